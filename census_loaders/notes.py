"""A data set's notes as sentences a page can translate (issue 31): each note is an English template with named
fields, marked ``N_()`` (``Nn_()`` when it counts something) so Babel extracts it, and the values of its fields.

The loaders stay English and free of any language: a :class:`Note` *is* its English text (a ``str``), so the
manifest's ``notes``, the CLI and everything that reads them are unchanged.  Beside that text the build writes each
note's structure (:meth:`Note.to_json`: template, plural, fields) into the manifest's ``note_parts``; a page renders
it in its own language (``dashboard.core.text.dataset_notes``): the template through the catalogue, numbers in the
language's digits, names and codes as they are.

A field's value is a ``str`` (a name, a code, a year: kept as written), a :class:`Num` (a count or a share: the
language's digits), a nested :class:`Note` (a clause of its own template) or a :class:`Join` (items joined by a
separator that reads the same in every language, ", ").
"""
from __future__ import annotations

import string
from dataclasses import dataclass


def N_(message: str) -> str:  # noqa: N802 - gettext's name for "mark for extraction, translate later"
    """Marks a note's template for extraction (Babel's ``N_`` keyword); the page translates it."""
    return message


def Nn_(singular: str, plural: str) -> tuple[str, str]:  # noqa: N802 - ``N_`` for a singular/plural pair
    """Marks a counted note's singular and plural template (extracted as a plural message: ``Nn_:1,2``)."""
    return singular, plural


@dataclass(frozen=True)
class Num:
    """A number of a note: ``fmt`` is its English format (``,.0f`` for a count, ``.2%`` for a share)."""

    value: float
    fmt: str = ",.0f"

    def __str__(self) -> str:
        return format(self.value, self.fmt)

    def to_json(self) -> dict:
        return {"num": float(self.value), "fmt": self.fmt}


@dataclass(frozen=True)
class Join:
    """Items (strings, numbers or notes) joined by ``sep`` (", " by default), as one field."""

    items: tuple
    sep: str = ", "

    def __str__(self) -> str:
        return self.sep.join(str(i) for i in self.items)

    def to_json(self) -> dict:
        return {"join": [_field_json(i) for i in self.items], "sep": self.sep}


_FORMATTER = string.Formatter()


def fields_of(template: str) -> set[str]:
    """The named fields a template holds: ``{people}`` → ``people``."""
    return {name for _lit, name, _spec, _conv in _FORMATTER.parse(template) if name}


class Note(str):
    """One note: its English text (the ``str``), and its template, plural template and fields.

    ``Note(N_("… {people} people …"), people=Num(1234))``; a counted one ``Note(Nn_(singular, plural), n=Num(2),
    …)`` chooses by the field ``n`` (English: singular for 1).  Every field of the template must be given.
    """

    template: str
    plural: str | None
    fields: dict

    def __new__(cls, template: str | tuple[str, str], **fields) -> Note:
        singular, plural = (template, None) if isinstance(template, str) else template
        chosen = singular
        if plural is not None:
            if "n" not in fields:
                raise ValueError(f"a counted note needs the field n: {singular!r}")
            chosen = singular if _count(fields["n"]) == 1 else plural
        want = fields_of(singular) | (fields_of(plural) if plural else set())
        if want != set(fields):
            raise ValueError(f"note fields {sorted(fields)} do not match the template's {sorted(want)}: {singular!r}")
        self = super().__new__(cls, chosen.format(**{k: str(v) for k, v in fields.items()}))
        self.template, self.plural, self.fields = singular, plural, dict(fields)
        return self

    def to_json(self) -> dict:
        """The note's structure for the manifest: ``{"template", "plural", "fields"}`` (JSON values only)."""
        return {"template": self.template, "plural": self.plural,
                "fields": {k: _field_json(v) for k, v in sorted(self.fields.items())}}


def _count(value) -> float:
    return value.value if isinstance(value, Num) else float(value)


def _field_json(value):
    if isinstance(value, Note):
        return {"note": value.to_json()}
    if isinstance(value, (Num, Join)):
        return value.to_json()
    if isinstance(value, str):
        return value
    raise TypeError(f"a note's field is a str, Num, Join or Note, not {type(value).__name__}: {value!r}")


def note_json(note: str) -> dict:
    """The manifest's structure of any note: a :class:`Note`'s own; a plain string is its own template."""
    if isinstance(note, Note):
        return note.to_json()
    return {"template": str(note), "plural": None, "fields": {}}


def and_join(items) -> str:
    """Items joined by " and " as English writes them ("A and B and C"), each " and " a note of its own, so a page
    says it in its language."""
    items = list(items)
    if len(items) == 1:
        return items[0]
    return Note(N_("{first} and {second}"), first=items[0], second=and_join(items[1:]))
