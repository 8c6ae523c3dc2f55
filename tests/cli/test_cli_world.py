"""``anonset world``: the world map's numbers, equal to the aggregates the page reads; one-line errors."""
from __future__ import annotations

import json

import pytest

from dashboard import cli
from dashboard.core.text import format_count
from dashboard.core.world import map_rows, world_aggregates

pytestmark = pytest.mark.cli("dashboard.cli.world")


def test_registered():
    assert "dashboard.cli.world" in cli.COMMAND_MODULES


def test_json_equals_the_map(run, cache_root):
    code, out, err = run("world", "--json")
    assert code == 0 and err == ""
    rows = {r["code"]: r for r in json.loads(out)}
    want = map_rows(world_aggregates()).set_index("code")
    assert set(rows) == set(want.index)
    for c in ("DE", "NG", "BR"):
        assert rows[c]["person_mean"] == want.loc[c, "person_mean"]
        assert rows[c]["share_below"] == want.loc[c, "share_below"]


def test_text_and_all(run, cache_root):
    code, out, _ = run("world", "--stat", "share_below", "--all")
    assert code == 0 and "KE-SUB" in out and "share of people in a set below 5" in out
    code, out, _ = run("world")
    de = world_aggregates().set_index("code").loc["DE", "person_mean"]
    line = next(x for x in out.splitlines() if x.startswith("DE "))
    assert line.endswith(format_count(de)) and "KE-SUB" not in out


def test_bad_stat_is_one_line(run, cache_root):
    code, _, err = run("world", "--stat", "median")
    assert code == 2 and len(err.strip().splitlines()) == 1 and "mean or share_below" in err
