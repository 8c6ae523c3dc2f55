"""``anonset pyc kappa|fit|forecast`` through dashboard.cli.main."""
from __future__ import annotations

import json

import numpy as np
import pytest

from dashboard import cli
from dashboard.core import scaling

pytestmark = pytest.mark.cli("dashboard.cli.pyc")  # the run fixture (tests/conftest.py): anonset with this topic only


def test_registered_in_the_cli_frame():
    assert "dashboard.cli.pyc" in cli.COMMAND_MODULES


def test_kappa_json_matches_the_core(run):
    code, out, err = run("pyc", "kappa", "--h-bits", "20", "--gamma", "0.3", "--n", "1", "100", "1e6", "--json")
    assert code == 0 and err == ""
    data = json.loads(out)
    d, alpha = scaling.from_h_gamma(scaling.bits_to_nats(20), 0.3)
    assert data["d"] == pytest.approx(d) and data["alpha"] == pytest.approx(alpha)
    rows = data["rows"]
    assert [r["n"] for r in rows] == [1, 100, 1e6]
    assert rows[0]["kappa"] == 1.0
    assert rows[2]["kappa"] == pytest.approx(scaling.kappa(1e6, d, alpha))
    assert rows[2]["uniqueness"] == pytest.approx(scaling.uniqueness(1e6, d, alpha))
    for k in (2, 5, 10):
        assert rows[2][f"violates_{k}_anonymity"] == pytest.approx(scaling.k_violations(1e6, d, alpha, k))


def test_kappa_text(run):
    code, out, _ = run("pyc", "kappa", "--h-bits", "12", "--gamma", "-0.4", "--n", "10", "1000")
    assert code == 0
    assert "kappa" in out and "<5-anon" in out and "1,000" in out


@pytest.mark.parametrize("argv,needle", [
    (["--h-bits", "abc", "--gamma", "0.3", "--n", "5"], "--h-bits must be a number"),
    (["--h-bits", "10", "--gamma", "nan", "--n", "5"], "--gamma must be finite"),
    (["--h-bits", "0", "--gamma", "0.3", "--n", "5"], "entropy h must be positive"),
    (["--h-bits", "10", "--gamma", "0.3", "--n", "0"], "at least 1"),
])
def test_kappa_errors_are_one_line(run, argv, needle):
    code, out, err = run("pyc", "kappa", *argv)
    assert code == 2 and out == ""
    assert needle in err and err.count("\n") == 1 and err.startswith("anonset: error:")


def _sample_file(tmp_path, two_columns: bool, header: bool = False):
    sizes = scaling.sample_partition(20_000, 0.4, 30.0, np.random.default_rng(3))
    path = tmp_path / ("counts.csv" if two_columns else "sizes.txt")
    lines = []
    if two_columns:
        u, c = np.unique(sizes, return_counts=True)
        if header:
            lines.append("size,count")
        lines += [f"{a},{b}" for a, b in zip(u, c)]
    else:
        if header:
            lines.append("size")
        lines += [str(s) for s in sizes]
    path.write_text("\n".join(lines) + "\n")
    return path, sizes


@pytest.mark.parametrize("two_columns,header", [(False, False), (True, True), (True, False), (False, True)])
def test_fit_reads_both_layouts(run, tmp_path, two_columns, header):
    path, sizes = _sample_file(tmp_path, two_columns, header)
    code, out, err = run("pyc", "fit", "--sizes", str(path), "--json")
    assert code == 0, err
    data = json.loads(out)
    fit = data["fit"]
    assert fit["n_records"] == 20_000 and fit["n_sets"] == sizes.size
    assert abs(fit["d"] - 0.4) < 0.1
    first = data["rows"][0]
    assert first["n"] == 20_000
    assert first["kappa_exact"] == pytest.approx(sizes.size / 20_000, rel=1e-9)
    assert data["rows"][1]["kappa_exact"] is None           # 10x the population: no exact value


def test_fit_text_and_custom_n(run, tmp_path):
    path, _ = _sample_file(tmp_path, True)
    code, out, _ = run("pyc", "fit", "--sizes", str(path), "--n", "100", "1e6")
    assert code == 0
    assert "Pitman-Yor fit: d =" in out and "1,000,000" in out and "exact" in out


def test_fit_errors(run, tmp_path, monkeypatch):
    code, _, err = run("pyc", "fit", "--sizes", str(tmp_path / "missing.csv"))
    assert code == 2 and "no such file" in err
    bad = tmp_path / "bad.csv"
    bad.write_text("size,count\n1,10\n2,x\n")
    code, _, err = run("pyc", "fit", "--sizes", str(bad))
    assert code == 2 and "line 3" in err and "'x' is not a number" in err
    wide = tmp_path / "wide.csv"
    wide.write_text("1,2,3\n")
    code, _, err = run("pyc", "fit", "--sizes", str(wide))
    assert code == 2 and "one column" in err
    mixed = tmp_path / "mixed.csv"
    mixed.write_text("1,5\n2\n")
    code, _, err = run("pyc", "fit", "--sizes", str(mixed))
    assert code == 2 and "column" in err
    empty = tmp_path / "empty.csv"
    empty.write_text("# nothing\n\n")
    code, _, err = run("pyc", "fit", "--sizes", str(empty))
    assert code == 2 and "no set sizes" in err
    frac = tmp_path / "frac.csv"
    frac.write_text("1.5\n2\n")
    code, _, err = run("pyc", "fit", "--sizes", str(frac))
    assert code == 2 and "whole" in err
    import dashboard.cli.pyc as cli_pyc

    monkeypatch.setattr(cli_pyc, "MAX_ROWS", 5)
    many = tmp_path / "many.txt"
    many.write_text("\n".join(["1", "2"] * 4) + "\n")
    code, _, err = run("pyc", "fit", "--sizes", str(many))
    assert code == 2 and "more than 5 rows" in err and "size,count" in err
    assert err.count("\n") == 1


def test_forecast_text_has_all_models(run):
    kap = scaling.kappa_h_gamma([100, 1000, 3000, 10_000], 9.0, 0.4)
    points = ",".join(f"{n}:{k:.6f}" for n, k in zip([100, 1000, 3000, 10_000], kap))
    code, out, err = run("pyc", "forecast", "--points", points, "--at", "1e5", "--at", "8e9")
    assert code == 0, err
    for name in ("PYC-MB", "ENT", "EXP", "POL", "band", "Held out", "our forms"):
        assert name in out


def test_forecast_json(run):
    code, out, _ = run("pyc", "forecast", "--points", "100:0.99,1000:0.80", "--at", "10000", "--json")
    assert code == 0
    data = json.loads(out)
    assert set(data["models"]) == {"PYC-MB", "ENT", "EXP", "POL"}
    assert data["at"] == [10000.0]
    assert data["holdout"] == {}                      # two points: nothing held out by default
    assert data["band"]["available"] is False and data["band"]["reason"]
    for pred in data["predictions"].values():
        assert pred is None or 0 <= pred[0] <= 1


@pytest.mark.parametrize("argv,needle", [
    (["--points", "100:0.99", "--at", "1e4"], "at least two"),
    (["--points", "100:1.5,1000:0.8", "--at", "1e4"], "[0, 1]"),
    (["--points", "100:0.9,100:0.8", "--at", "1e4"], "appears twice"),
    (["--points", "100=0.9,1000:0.8", "--at", "1e4"], "n:kappa"),
    (["--points", "100:0.9,1000:0.8", "--at", "soon"], "--at must be a number"),
    (["--points", "100:0.9,1000:0.8,2000:0.7", "--at", "1e4", "--holdout", "-1"], "--holdout"),
])
def test_forecast_errors(run, argv, needle):
    code, out, err = run("pyc", "forecast", *argv)
    assert code == 2 and out == "" and needle in err
