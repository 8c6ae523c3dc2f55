"""``anonset attack``: the JSON keys of the issue, the text report, and one-line errors for bad input."""
from __future__ import annotations

import json

import pytest

pytestmark = [pytest.mark.usefixtures("cache_root"),
              pytest.mark.cli("dashboard.cli.attack", "attack")]  # the run fixture (tests/conftest.py)


def test_json_has_measured_forecast_and_holdout(run):
    code, out, err = run("--known", "2", "--sizes", "50,100,200,400", "--repeats", "3", "--json")
    assert code == 0 and err == ""
    r = json.loads(out)
    assert [m["n"] for m in r["measured"]] == [50, 100, 200, 400]
    for m in r["measured"]:
        assert {"n", "kappa", "wrong", "no_match"} <= set(m)
        assert m["kappa"] + m["wrong"] + m["no_match"] == pytest.approx(1.0)
    assert r["measured"][0]["kappa"] > r["measured"][-1]["kappa"]
    pyc = r["forecast"]["PYC-MB"]
    assert [p["n"] for p in pyc] == [1e6, 1e8] and all(0 <= p["kappa"] <= 1 for p in pyc)
    h = r["holdout"]
    assert set(h) >= {"n", "measured", "forecast", "error"} and h["n"] == 400
    assert h["measured"] == r["measured"][-1]["kappa"]
    assert h["error"] == pytest.approx(h["forecast"] - h["measured"])
    assert r["config"]["known"] == 2 and r["config"]["tol_days"] == 14
    assert "GroupLens" in r["data"]["attribution"]


def test_default_text_report(run):
    code, out, _ = run("--sizes", "100,300,671", "--repeats", "1")
    assert code == 0
    assert "m = 8 known ratings, rating ± 1 star, date ± 14 days" in out
    assert "PYC-MB" in out and "Harper" in out
    assert out.count("%") > 10


def test_no_decay_is_reported_not_a_crash(run):
    code, out, _ = run("--known", "20", "--noise-days", "0", "--noise-stars", "0", "--sizes", "50,100,200",
                        "--repeats", "1", "--json")
    r = json.loads(out)
    assert code == 0 and all(m["kappa"] == 1 for m in r["measured"])
    assert r["forecast"]["PYC-MB"] is None and "no decay" in r["models"]["PYC-MB"]["reason"]
    assert r["holdout"]["forecast"] is None and r["holdout"]["reason"]


@pytest.mark.parametrize("args, message", [
    (["--known", "0"], "known items m must be between 1 and 20"),
    (["--known", "25"], "between 1 and 20"),
    (["--known", "two"], "--known 'two' is not a number"),
    (["--noise-days", "-3"], "date noise"),
    (["--noise-stars", "0.7"], "multiple of 0.5"),
    (["--noise-stars", "3"], "between 0 and 2"),
    (["--wrong", "2"], "wrong items"),
    (["--sizes", "50,100,5000"], "larger than the data set (671 users)"),
    (["--sizes", "1,50,100"], "gallery size n must be between 2"),
    (["--sizes", ""], "--sizes"),
    (["--sizes", "50,abc"], "is not a number"),
    (["--repeats", "0"], "repetitions"),
    (["--repeats", "1.5"], "whole number"),
    (["--phi", "0"], "phi"),
    (["--seed", "nan"], "finite"),
])
def test_bad_input_is_one_clear_line(run, args, message):
    code, out, err = run(*args)
    assert code == 2 and out == ""
    assert len(err.strip().splitlines()) == 1 and message in err


def test_by_known_reproduces_the_pages_curve(run):
    import shlex

    from dashboard.views import attack as V

    cfg = V.parse_form(known=3, stars=1, days=3, wrong=0, sizes="100, 200, 300", repeats=2, seed=6, phi=1.5)
    cmd = V.curve_command(cfg)
    assert cmd.startswith("anonset attack ")
    code, out, _ = run(*shlex.split(cmd)[2:])
    assert code == 0
    cli = json.loads(out)["by_known"]
    page = V.known_curve(cfg)
    assert [r["known"] for r in cli] == list(V.KNOWN_CURVE) and all(r["n"] == 300 for r in cli)
    assert [r["kappa"] for r in cli] == [r["kappa"] for r in page]
    assert run("--by-known", "0,2")[0] == 2
