"""A data set's own notes in the page's language (issue 31).

The loaders write each note in English (the manifest's ``notes``, which the CLI prints) and, beside it, its structure
(``note_parts``: the ``N_``-marked template, its plural and its fields; ``census_loaders.notes``).  Here a note is
rendered from that structure: the template through the catalogue, each number in the language's digits, names and
codes as written.  In English the rendering is the manifest's text, character for character.

A cache built before notes had a structure has only the English text: :func:`dataset_notes` then gives it back
marked ``"en"``, so a page quotes it in English (``lang="en"``) rather than pretending it is translated.
"""
from __future__ import annotations

from ._i18n import DEFAULT_LANGUAGE, current_language, language, ngettext, translate_marked
from ._numbers import format_in_language


def _field(value) -> str:
    if isinstance(value, str):
        return value
    if "num" in value:
        return format_in_language(value["num"], value["fmt"])
    if "note" in value:
        return render_note(value["note"])
    if "join" in value:
        return value["sep"].join(_field(v) for v in value["join"])
    raise ValueError(f"not a note field: {value!r}")


def _template(parts: dict) -> str:
    """The note's template in the current language (its plural form for the field ``n``)."""
    if parts.get("plural"):
        return ngettext(parts["template"], parts["plural"], int(parts["fields"]["n"]["num"]))
    return translate_marked(parts["template"])


def render_note(parts: dict, lang: str | None = None) -> str:
    """One note (its manifest structure: ``{"template", "plural", "fields"}``) in ``lang`` (default: the current
    language); English gives the loader's own text."""
    if lang is not None:
        with language(lang):
            return render_note(parts)
    return _template(parts).format(**{k: _field(v) for k, v in parts.get("fields", {}).items()})


def is_translated(parts: dict, lang: str | None = None) -> bool:
    """Whether the catalogue of ``lang`` (default: the current language) has the note's own sentence; English is."""
    lang = lang or current_language()
    if lang == DEFAULT_LANGUAGE:
        return True
    with language(lang):
        own = _template(parts)
    with language(DEFAULT_LANGUAGE):
        return own != _template(parts)


def dataset_notes(info: dict) -> list[tuple[str, str | None]]:
    """A data set's notes (its manifest entry ``info``) as ``(text, lang)``: each in the current language with
    ``lang`` None, or — a note without a structure or a translation — its English text with ``lang`` ``"en"``."""
    texts = list(info.get("notes", ()))
    parts = info.get("note_parts")
    if not parts or len(parts) != len(texts):
        parts = [None] * len(texts)
    return [note_in_language(t, p) for t, p in zip(texts, parts)]


def boundary_note(info: dict) -> tuple[str, str | None] | None:
    """Why the data set has no map (its ``boundary_note``) as ``(text, lang)``, like :func:`dataset_notes`; None
    when it has none."""
    text = info.get("boundary_note")
    if not text:
        return None
    return note_in_language(text, info.get("boundary_note_parts"))


def note_in_language(text: str, parts: dict | None) -> tuple[str, str | None]:
    """One note (its English ``text`` and its structure ``parts``, or None) as ``(text, lang)``, like
    :func:`dataset_notes`: in the current language, or its English text marked ``"en"`` when it has no structure or
    no translation (a record-level data set's note: ``dashboard.core.microdata.Table.note_parts``)."""
    if parts and is_translated(parts):
        return render_note(parts), None
    return text, _quoted()


def _quoted() -> str | None:
    return None if current_language() == DEFAULT_LANGUAGE else DEFAULT_LANGUAGE
