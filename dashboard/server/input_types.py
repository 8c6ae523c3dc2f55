"""The types a callback input can have when the Dash renderer sends it, checked before any callback runs.

A browser only sends what its components hold: a location's ``search`` is text, a button's
``n_clicks`` a count, an upload's ``contents`` text, a field's ``value`` a number, text or a flat
list of them.  A body with another type was not sent by the page; it is refused with 400 and a
message naming the input and the type it must have, instead of reaching a callback that would fail
on it and answer with a generic apology.  Properties not listed here (a store's ``data``, a
figure) may hold anything and are left to the callbacks.
"""
from __future__ import annotations

import numbers


def _text(v) -> bool:
    return v is None or isinstance(v, str)


def _count(v) -> bool:
    return v is None or (isinstance(v, int) and not isinstance(v, bool))


def _scalar(v) -> bool:
    return v is None or isinstance(v, (str, bool, numbers.Real))


def _texts(v) -> bool:
    return _text(v) or (isinstance(v, list) and all(isinstance(x, str) for x in v))


def _scalars(v) -> bool:
    return _scalar(v) or (isinstance(v, list) and all(x is not None and _scalar(x) for x in v))


def _numbers(v) -> bool:
    ok = lambda x: isinstance(x, numbers.Real) and not isinstance(x, bool)  # noqa: E731
    return v is None or ok(v) or (isinstance(v, list) and all(ok(x) for x in v))


def _object(v) -> bool:
    return v is None or isinstance(v, dict)


#: property → (what it must be, in words; the check)
PROPERTY_TYPES = {
    "pathname": ("text", _text), "search": ("text", _text), "hash": ("text", _text), "href": ("text", _text),
    "n_clicks": ("a whole number", _count), "n_submit": ("a whole number", _count),
    "n_blur": ("a whole number", _count), "n_intervals": ("a whole number", _count),
    "contents": ("text or a list of texts", _texts), "filename": ("text or a list of texts", _texts),
    "last_modified": ("a number or a list of numbers", _numbers),
    "value": ("a number, text or a flat list of them", _scalars),
    "clickData": ("an object", _object), "hoverData": ("an object", _object),
    "selectedData": ("an object", _object), "relayoutData": ("an object", _object),
    "active_cell": ("an object", _object),
}


def _entries(items):
    """The ``{"id", "property", "value"}`` entries of an inputs or state list (wildcards give lists of them)."""
    for item in items if isinstance(items, list) else []:
        if isinstance(item, dict):
            yield item
        elif isinstance(item, list):
            yield from (x for x in item if isinstance(x, dict))


def wrong_type(body: dict) -> tuple[str, str] | None:
    """``(property, message)`` for the first input or state of ``body`` whose value has a type the page
    cannot send, or for a ``changedPropIds`` that is not a list of texts; ``None`` when all are plausible."""
    changed = body.get("changedPropIds", [])
    if not isinstance(changed, list) or not all(isinstance(c, str) for c in changed):
        return "changedPropIds", "changedPropIds must be a list of texts"
    for key in ("inputs", "state"):
        for entry in _entries(body.get(key)):
            prop = entry.get("property")
            rule = PROPERTY_TYPES.get(prop) if isinstance(prop, str) else None
            if rule is not None and "value" in entry and not rule[1](entry["value"]):
                ident = entry.get("id")
                name = ident if isinstance(ident, str) else "a pattern-matching component"
                return prop, f"{name[:60]}.{prop} must be {rule[0]}"
    return None
