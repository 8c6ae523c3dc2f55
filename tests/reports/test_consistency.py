"""Every number in a report equals ``anonset … --json`` for the same parameters (issue 33), for the three kinds.

Each report is made by ``anonset report … --out``; every table cell that shows a number carries its exact value and
its place in the ``--json`` of the table's own command, which is run here and compared exactly."""
from __future__ import annotations

import json

import pytest
from support.reports import check_against_json, external_fetches, parse

from dashboard import cli


@pytest.fixture
def anonset(capsys):
    def call(*argv) -> tuple[int, str, str]:
        code = cli.main(list(argv))
        out = capsys.readouterr()
        return code, out.out, out.err

    return call


def _report(anonset, tmp_path, *argv) -> str:
    out = tmp_path / "r.html"
    code, _, err = anonset("report", *argv, "--out", str(out))
    assert code == 0, err
    assert "report written to" in err
    return out.read_text(encoding="utf-8")


def _json(anonset):
    def run(argv):
        code, out, err = anonset(*argv)
        assert code == 0, err
        return json.loads(out)

    return run


def test_explorer_report_equals_the_json(anonset, tmp_path, cache_root):
    html = _report(anonset, tmp_path, "explorer", "--country", "SI", "--country", "EE", "--stat", "share_below",
                   "--k", "10", "--height-width", "10")
    n = check_against_json(html, _json(anonset))
    tables = {t["name"] for t in parse(html).tables}
    assert {"districts", "cdf", "cdf-coverage", "country-table"} <= tables
    assert n > 12 * 4 + 2 * 9 * 3  # every district of SI, both curves at nine points, …
    assert external_fetches(html) == []
    assert "below 5" in html and "NHANES" in html  # the known limits: AnonLand's small sets, the body model


@pytest.mark.slow
def test_buckets_report_equals_the_json(anonset, tmp_path, cache_root):
    html = _report(anonset, tmp_path, "buckets", "--country", "SI", "--k", "10", "--coverage", "0.9", "--per-district")
    n = check_against_json(html, _json(anonset))
    tables = {t["name"] for t in parse(html).tables}
    assert {"headline", "front", "per_district"} <= tables
    assert n > 12 * 8
    assert external_fetches(html) == []


@pytest.mark.slow
def test_dataset_report_equals_the_json_and_holds_no_record_values(anonset, tmp_path, cache_root):
    from dashboard.core import microdata

    columns = "sex,age,race,education"
    html = _report(anonset, tmp_path, "dataset", "nhanes", "--columns", columns)
    n = check_against_json(html, _json(anonset))
    tables = {t["name"] for t in parse(html).tables}
    assert {"headline", "counts_of_counts", "k_anonymity", "population_uniqueness", "validation", "plan"} <= tables
    assert n > 40
    head = html.split("What was asked")[0]
    assert "holds no record values" in head
    # no record's combination of values appears (the page's "riskiest records" table is left out)
    table = microdata.shipped_table("nhanes")
    analysis = microdata.analyse(table, columns.split(","), validation=False, greedy=False)
    for r in microdata.riskiest(analysis, 5):
        assert " · ".join(str(r[c]) for c in columns.split(",")) not in html
    assert external_fetches(html) == []


def test_batch_mode_refuses_a_file_it_cannot_analyse(anonset, tmp_path):
    bad = tmp_path / "one.csv"
    bad.write_text("a,b\n1,2\n", encoding="utf-8")
    out = tmp_path / "r.html"
    for argv, says in ((["dataset", str(bad), "--columns", "a,zz"], "no column 'zz'"),
                       (["dataset", str(bad), "--columns", "a,b"], "record"),
                       (["dataset", str(tmp_path / "missing.csv"), "--columns", "a"], "no such file")):
        code, stdout, err = anonset("report", *argv, "--out", str(out))
        assert code == 2 and stdout == ""
        assert err.startswith("anonset: error: ") and says in err and err.count("\n") == 1
        assert not out.exists()


def test_the_output_must_be_an_html_file(anonset, tmp_path):
    code, _, err = anonset("report", "dataset", "nhanes", "--columns", "sex,age", "--out", str(tmp_path / "r.pdf"))
    assert code == 2 and ".html" in err
