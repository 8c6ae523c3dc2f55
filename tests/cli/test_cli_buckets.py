"""``anonset buckets``: the JSON equals the core, text output, exports, one-line errors."""
from __future__ import annotations

import csv
import json

import pytest

from dashboard import cli
from dashboard.core import buckets

pytestmark = pytest.mark.cli("dashboard.cli.buckets")  # the run fixture (tests/conftest.py): anonset with this topic only


def test_registered():
    assert "dashboard.cli.buckets" in cli.COMMAND_MODULES


@pytest.mark.slow  # over 5 s on this machine: in the full suite, not the fast lane
def test_json_keys_and_values_equal_the_core(run, cache_root):
    code, out, err = run("buckets", "--country", "DE", "--k", "10", "--coverage", "0.95", "--json")
    assert code == 0 and err == ""
    data = json.loads(out)
    advice = buckets.advise("DE", 10, 0.95)
    rec = data["recommended"]
    for key in ("age_group_years", "height_cm", "weight_kg", "bits", "coverage"):
        assert key in rec
    want = advice.recommended
    assert rec["coverage"] == pytest.approx(want.coverage) and rec["bits"] == pytest.approx(want.bits)
    assert rec["coverage"] >= 0.95
    assert (rec["age_group_years"], rec["height_cm"], rec["weight_kg"]) == (
        want.config.age, want.config.height or "withheld", want.config.weight or "withheld")
    assert len(data["front"]) == len(advice.front)
    assert all({"age_group_years", "height_cm", "weight_kg", "bits", "coverage"} <= set(f) for f in data["front"])
    assert data["model"] == "v2" and data["k"] == 10 and data["coverage_target"] == 0.95
    assert len(data["short_districts"]) == len(advice.short_under_recommended)


@pytest.mark.slow  # over 5 s on this machine: in the full suite, not the fast lane
def test_text_per_district_and_exports(run, cache_root, tmp_path):
    j, c = tmp_path / "config.json", tmp_path / "all.csv"
    code, out, err = run("buckets", "--country", "MT", "--k", "5", "--coverage", "90%", "--per-district",
                         "--export-json", str(j), "--export-csv", str(c))
    assert code == 0 and err == ""
    advice = buckets.advise("MT", 5, 0.9, per_district=True)
    assert buckets.recommendation_text(advice) in out
    assert "on the front" in out and "* " in out and "Per NUTS-3 region" in out
    config = json.loads(j.read_text(encoding="utf-8"))
    assert config["recommended"]["coverage"] == pytest.approx(advice.recommended.coverage)
    assert len(config["per_district"]) == 2
    rows = list(csv.DictReader(c.open(encoding="utf-8")))
    assert len(rows) == len(advice.evaluated) and rows[0].keys() >= {"age_group_years", "height_cm", "bits"}


@pytest.mark.parametrize("argv,msg", [
    (("--country", "DE", "--k", "0"), "k must be a positive"),
    (("--country", "DE", "--k", "ten"), "k 'ten' is not a number"),
    (("--country", "DE", "--coverage", "1.5"), "coverage must lie in (0, 1]"),
    (("--country", "DE", "--coverage", "0"), "coverage must lie in (0, 1]"),
    (("--country", "ZZ"), "unknown country or data set 'ZZ'"),
    (("--country", "DE", "--model", "v9"), "--model 'v9' is not a body model: use v2 or paper"),
    (("--country", "DE", "--ages", "75-18"), "reversed"),
])
def test_bad_input_is_one_line_exit_2(run, cache_root, argv, msg):
    code, out, err = run("buckets", *argv)
    assert code == 2 and out == ""
    assert err.count("\n") == 1 and msg in err and "Traceback" not in err


@pytest.mark.slow  # over 5 s on this machine: in the full suite, not the fast lane
def test_unwritable_export_is_one_line(run, cache_root, tmp_path):
    code, _, err = run("buckets", "--country", "LI", "--export-json", str(tmp_path / "missing" / "x.json"))
    assert code == 2 and err.startswith("anonset: error: cannot write") and err.count("\n") == 1
