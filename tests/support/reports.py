"""Reading an AnonSet report back: its tables' cells and the ``--json`` each cell points into."""
from __future__ import annotations

import json
import re
from html.parser import HTMLParser


class ReportTables(HTMLParser):
    """Every ``<table data-command>`` with its cells' ``data-value`` / ``data-json`` / text."""

    def __init__(self):
        super().__init__()
        self.tables: list[dict] = []
        self.cells_without_path: list[tuple[str, str]] = []
        self._table = None
        self._cell = None

    def handle_starttag(self, tag, attrs):
        a = dict(attrs)
        if tag == "table":
            self._table = {"name": a.get("data-table"), "command": a.get("data-command"), "cells": []}
            self.tables.append(self._table)
        elif tag == "td" and self._table is not None:
            self._cell = {"key": a.get("data-key"), "value": a.get("data-value"), "path": a.get("data-json"), "text": ""}

    def handle_data(self, data):
        if self._cell is not None:
            self._cell["text"] += data

    def handle_endtag(self, tag):
        if tag == "td" and self._cell is not None:
            if self._cell["value"] is not None and self._cell["path"] is None:
                self.cells_without_path.append((self._table["name"], self._cell["key"]))
            self._table["cells"].append(self._cell)
            self._cell = None
        elif tag == "table":
            self._table = None


def parse(html: str) -> ReportTables:
    p = ReportTables()
    p.feed(html)
    return p


def resolve(data, path: str):
    """``countries/0/at/3/share_people`` in a ``--json`` output; a last ``#`` is the length of the list."""
    for part in path.split("/"):
        if part == "#":
            return len(data)
        data = data[int(part)] if isinstance(data, list) else data[part]
    return data


#: A src or href that would make the browser fetch something from another host.
EXTERNAL = re.compile(r"""<(?:script|link|img|iframe|source|video|audio)\b[^>]*\b(?:src|href)\s*=\s*["']?\s*(?:https?:)?//""",
                      re.IGNORECASE)


def external_fetches(html: str) -> list[str]:
    """Tags in the document (not inside the embedded plotly.js text) that load a resource from another host."""
    body = re.sub(r"<script\b[^>]*>.*?</script>", "<script></script>", html, flags=re.DOTALL | re.IGNORECASE)
    return EXTERNAL.findall(body) + re.findall(r"@import|@font-face|url\(\s*['\"]?https?:", body)


def check_against_json(html: str, run_json) -> int:
    """Assert every cell with a value equals the ``--json`` of its table's command; return how many were checked.

    ``run_json(argv) -> dict`` runs ``anonset`` (argv without the leading ``anonset``)."""
    import shlex

    parsed = parse(html)
    assert not parsed.cells_without_path, f"numbers with no --json behind them: {parsed.cells_without_path[:5]}"
    outputs: dict[str, dict] = {}
    checked = 0
    for t in parsed.tables:
        cells = [c for c in t["cells"] if c["path"]]
        if not cells:
            continue
        assert t["command"], f"table {t['name']} has numbers but no command"
        if t["command"] not in outputs:
            argv = shlex.split(t["command"])
            assert argv[0] == "anonset" and argv[-1] == "--json"
            outputs[t["command"]] = run_json(argv[1:])
        data = outputs[t["command"]]
        for c in cells:
            want = resolve(data, c["path"])
            got = json.loads(c["value"])
            assert got == want, f"{t['name']} {c['path']}: report {got!r} ≠ --json {want!r}"
            checked += 1
    return checked
