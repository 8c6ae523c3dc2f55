"""The ``anonset report …`` line a busy server names instead of the report: the CLI accepts it as it stands."""
from __future__ import annotations

import shlex

import pytest

from dashboard import reports
from dashboard.cli import build_parser
from dashboard.core.regions import Scenario
from dashboard.views import buckets as vb
from dashboard.views import dataset as vd


@pytest.mark.parametrize("kind, page_command, extra", [
    ("explorer", Scenario.from_query({"country": "DE,FR", "stat": "share_below", "k": "7"}).to_cli("districts"),
     ["--grain", "census", "--table-ages", "20-60", "--table-grain", "5"]),
    ("buckets", vb.cli_command(vb.parse_form("MT", "10", "90", ["on"], "paper")), []),
    ("dataset", vd.command(vd.parse_request("upload", ["age", "sex"], ["10"], [{"type": vd.BIN_TYPE, "column": "age"}],
                                            "drop", None, "0.2", "1"), "my data.csv"), ["--k", "5", "--target", "0.05"]),
])
def test_the_report_command_is_the_pages_command_as_a_report(kind, page_command, extra):
    line = reports.report_command(kind, page_command, extra)
    words = shlex.split(line)
    assert words[:3] == ["anonset", "report", kind] and words[-2:] == ["--out", f"anonset-report-{kind}.html"]
    assert words[3:-2] == shlex.split(page_command)[2:] + extra  # every option of the page, none lost
    args = build_parser().parse_args(words[1:])
    assert args.out == f"anonset-report-{kind}.html"


def test_only_a_page_command_of_its_kind_becomes_a_report():
    with pytest.raises(ValueError, match="no 'buckets' report"):
        reports.report_command("buckets", "anonset districts --country DE")
    with pytest.raises(ValueError, match="no 'map' report"):
        reports.report_command("map", "anonset districts --country DE")
