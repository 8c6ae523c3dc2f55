"""A data set's own notes as every page shows them (issue 31): in the page's language, from the structure the
loaders write beside the English text (``dashboard.core.text.dataset_notes``).

A note the cache holds only in English (a cache built before notes had a structure) is quoted in English, marked
``lang="en"``, so a screen reader says it in English.
"""
from __future__ import annotations

from dash import html

import census_loaders as cl
from dashboard.core import text


def said(note: str, lang: str | None):
    """A note as a page child: the text itself, or a ``lang``-marked span when it is quoted in another language."""
    return html.Span(note, lang=lang) if lang else note


def note_texts(code: str) -> list[tuple[str, str | None]]:
    """The data set's notes as ``(text, lang)`` in the page's language (``lang``: None, or "en" when quoted)."""
    return text.dataset_notes(cl.dataset_info(code))


def note_items(code: str, prefix: str = "") -> list[html.Li]:
    """The data set's notes as list items, each after ``prefix`` (the explorer names the data set: "Italy: ")."""
    return [html.Li([prefix, said(t, lang)] if prefix else said(t, lang)) for t, lang in note_texts(code)]


def boundary_note(code: str):
    """Why the data set has no map, as a page child in the page's language (None when the manifest says nothing)."""
    found = text.boundary_note(cl.dataset_info(code))
    return said(*found) if found else None


def boundary_note_text(code: str) -> str | None:
    """The same as plain text (a report, a ``title``): the page's language where the catalogue has it."""
    found = text.boundary_note(cl.dataset_info(code))
    return found[0] if found else None
