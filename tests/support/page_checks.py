"""Checks the page tests share: every plain figure dict the app builds, and the text of a component tree."""
from __future__ import annotations

import plotly.graph_objects as go


def _keys(node, path: str = "") -> set[str]:
    if isinstance(node, dict) and "bdata" not in node:  # not plotly's typed-array encoding of a column
        return {p for k, v in node.items() for p in _keys(v, f"{path}/{k}") | {f"{path}/{k}"}}
    if isinstance(node, list) and node and isinstance(node[0], dict):
        return {p for i, v in enumerate(node) for p in _keys(v, f"{path}[{i}]")}
    return set()


def checked_figure(fig) -> go.Figure:
    """``fig`` validated: a plain dict (never a ``go.Figure``), accepted by plotly's schema, and with exactly the
    keys plotly.py would send — no magic-underscore shorthand such as ``font_size``, which plotly.js ignores
    in a plain dict.  Returns the validated ``go.Figure`` for attribute access in assertions."""
    assert type(fig) is dict and set(fig) <= {"data", "layout"}, type(fig)
    checked = go.Figure(fig)
    sent = checked.to_plotly_json()
    sent["layout"].pop("template", None)
    assert _keys(sent) == _keys(fig), sorted(_keys(sent) ^ _keys(fig))
    return checked


def component_text(component) -> str:
    """All text inside a Dash component tree as one line: pieces joined by a space, runs of whitespace as one
    (for asserting on messages and readouts)."""
    return " ".join(_pieces(component).split())


def _pieces(component) -> str:
    if component is None:
        return ""
    if isinstance(component, (str, int, float)):
        return str(component)
    if isinstance(component, (list, tuple)):
        return " ".join(_pieces(c) for c in component)
    return _pieces(getattr(component, "children", None))
