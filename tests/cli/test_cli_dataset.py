"""``anonset dataset`` through dashboard.cli.main: the JSON keys, the NHANES figures, and bad input as one line."""
from __future__ import annotations

import json
from collections import Counter

import numpy as np
import pytest

from dashboard import cli
from dashboard.core import microdata as M

QIS = "sex,age,race,education,marital_status,household_size"


pytestmark = pytest.mark.cli("dashboard.cli.dataset")  # the run fixture (tests/conftest.py): anonset with this topic only


def test_registered_in_the_cli_frame():
    assert "dashboard.cli.dataset" in cli.COMMAND_MODULES


@pytest.fixture(scope="module")
def nhanes_json(cache_root):
    import io
    from contextlib import redirect_stdout

    buf = io.StringIO()
    with redirect_stdout(buf):
        code = cli.main(["dataset", "nhanes", "--columns", QIS, "--population", "330e6", "--json"])
    assert code == 0
    return json.loads(buf.getvalue())


def test_nhanes_json_has_the_documented_keys(nhanes_json):
    d = nhanes_json
    for path in ("n_records", "empirical.uniqueness", "copula.uniqueness", "copula.population_uniqueness",
                 "copula.validation.mae", "copula.validation.auc", "tfrr.auc", "tfrr.auc_binomial",
                 "pyc.h_bits", "pyc.gamma"):
        node = d
        for part in path.split("."):
            node = node[part]
        assert node is not None, path
    curve = d["copula"]["population_uniqueness"]
    assert all(set(p) == {"n", "value"} for p in curve)
    assert curve[-1]["n"] >= 8e9 and any(p["n"] == d["n_records"] for p in curve)
    values = [p["value"] for p in curve]
    assert all(b <= a + 1e-12 for a, b in zip(values, values[1:]))


def test_nhanes_figures_against_a_brute_force_count(nhanes_json):
    t = M.nhanes_table()
    cols = QIS.split(",")
    kept = t.frame[cols].dropna()
    counts = Counter(map(tuple, kept.astype(str).itertuples(index=False)))
    unique = sum(1 for v in counts.values() if v == 1)
    d = nhanes_json
    assert d["n_records"] == len(kept) == 5260 and d["dropped"] == 8366 - 5260
    assert d["empirical"]["uniqueness"] == pytest.approx(unique / len(kept))
    assert d["empirical"]["k_anonymity"]["5"]["records"] == sum(v for v in counts.values() if v < 5)
    assert 0 <= d["copula"]["validation"]["mae"] < 0.2 and 0.5 < d["copula"]["validation"]["auc"] <= 1
    assert 0.5 < d["tfrr"]["auc"] <= 1 and abs(d["tfrr"]["auc"] - d["tfrr"]["auc_binomial"]) < 0.01
    assert d["pyc"]["available"] and d["pyc"]["scaling_url"].startswith("/scaling?view=explore&h=")
    assert d["copula"]["population"] == 330e6


def test_text_output_and_bins(run, tmp_path):
    rng = np.random.default_rng(0)
    rows = ["age;height;sex"] + [f"{a};{h:.1f};{s}".replace(".", ",") for a, h, s in
                                 zip(rng.integers(18, 80, 400), rng.normal(170, 10, 400), rng.choice(["F", "M"], 400))]
    f = tmp_path / "people.csv"
    f.write_text("\n".join(rows) + "\n", encoding="utf-8")
    code, out, err = run("dataset", str(f), "--columns", "age,height,sex", "--bins", "height=5,age=10",
                         "--trials", "1")
    assert code == 0 and err == ""
    assert "400 records" in out and "Gaussian copula" in out and "TFRR" in out and "Pitman-Yor" in out
    code, out, _ = run("dataset", str(f), "--columns", "age,height,sex", "--bins", "height=5,age=10", "--json",
                       "--trials", "1")
    assert json.loads(out)["bins"] == {"height": 5.0, "age": 10.0}


def test_identifier_and_one_valued_columns_are_refused(run, tmp_path):
    f = tmp_path / "ids.csv"
    f.write_text("id,sex,country\n" + "\n".join(f"{i},{'FM'[i % 2]},NZ" for i in range(300)) + "\n")
    code, out, err = run("dataset", str(f), "--columns", "id,sex", "--trials", "1")
    assert code != 0 and out == "" and "column 'id' is an identifier: 300 distinct values for 300 records" in err
    code, out, err = run("dataset", str(f), "--columns", "sex,country", "--trials", "1")
    assert code != 0 and "column 'country' has a single value in every kept record" in err


@pytest.mark.parametrize("content, args, message", [
    (None, ["--columns", "a"], "no such file"),
    ("", ["--columns", "a"], "is empty"),
    ("a\n1\n2\n", ["--columns", "a"], "single column"),
    ("a,b\n1,2\n3,4\n", ["--columns", "zz"], "no column 'zz'"),
    ("a,b\n1,2\n3,4\n", ["--columns", "a", "--population", "1"], "cannot be smaller than the data set"),
    ("a,b\n1,2\n3,4\n", ["--columns", "a", "--population", "lots"], "not a number"),
    ("a,b\n1,x\n3,y\n", ["--columns", "b", "--bins", "b=2"], "not numeric"),
    ("a,b\n1,2\n3,4\n", ["--columns", "a", "--fraction", "2"], "validation fraction"),
    ("a,b\n,2\n,4\n", ["--columns", "a"], "remain"),
])
def test_bad_input_is_one_line(run, tmp_path, content, args, message):
    path = tmp_path / "in.csv"
    if content is not None:
        path.write_text(content)
    code, out, err = run("dataset", str(path), *args)
    assert code == 2 and out == ""
    assert err.count("\n") == 1 and message in err and "Traceback" not in err


def test_missing_as_a_value(run, tmp_path):
    f = tmp_path / "m.csv"
    f.write_text("a,b\n" + "\n".join(f"{i % 7},{'' if i % 5 == 0 else i % 3}" for i in range(200)) + "\n")
    code, out, _ = run("dataset", str(f), "--columns", "a,b", "--missing", "value", "--json", "--trials", "1")
    d = json.loads(out)
    assert code == 0 and d["n_records"] == 200 and d["dropped"] == 0
    code, out, _ = run("dataset", str(f), "--columns", "a,b", "--json", "--trials", "1")
    assert json.loads(out)["n_records"] == 160


def test_plan_and_model_choice(run, tmp_path, cache_root):
    code, out, err = run("dataset", "adult", "--columns", "age,sex,race,marital_status", "--missing", "value",
                         "--plan", "--k", "5", "--target", "0.01", "--json")
    d = json.loads(out)
    assert code == 0 and d["contributions"]["release"]["uniqueness"] == pytest.approx(0.017291, abs=1e-6)
    assert d["plan"]["reached"] and d["plan"]["after"]["share_below_k"] <= 0.01
    f = tmp_path / "small.csv"
    f.write_text("a,b\n" + "\n".join(f"{i % 4},{i % 3}" for i in range(30)) + "\n")
    code, out, _ = run("dataset", str(f), "--columns", "a,b", "--plan", "--k", "50", "--target", "0")
    assert code == 0 and "No plan reaches the target" in out
    code, out, err = run("dataset", str(f), "--columns", "a,b", "--fraction", "0.5")
    assert code == 2 and "leaves 15 of 30 records to fit on; at least 50 are needed" in err
    with pytest.raises(SystemExit):  # argparse refuses it with the list of choices
        cli.main(["dataset", str(f), "--columns", "a,b", "--model", "neural"])


def test_the_rule_for_the_number_of_latent_classes(run, tmp_path, capsys):
    """--classes-rule reaches the latent class model's fit and its validation; the JSON and the text name it,
    with its sentence; a pair of columns in one-to-one correspondence is said to be modelled as one."""
    f = tmp_path / "pairs.csv"
    rng = np.random.default_rng(1)
    a, b = rng.integers(0, 5, 300), rng.integers(0, 4, 300)
    f.write_text("a,a_code,b\n" + "\n".join(f"{x},{'ABCDE'[x]},{y}" for x, y in zip(a, b)) + "\n")
    code, out, _ = run("dataset", str(f), "--columns", "a,a_code,b", "--json", "--trials", "1",
                       "--classes-rule", "bic")
    d = json.loads(out)
    assert code == 0 and d["model"]["classes_rule"] == "bic" and d["latent_class"]["fit"]["rule"] == "bic"
    assert d["model"]["classes_rule_text"] == M.CLASSES_RULE_TEXT["bic"]
    assert d["latent_class"]["fit"]["companions"] == [[1, 0]]
    assert d["latent_class"]["fit"]["companion_text"] == [M.COMPANION_TEXT.format(child="a_code", partner="a")]
    code, out, _ = run("dataset", str(f), "--columns", "a,a_code,b", "--trials", "1")
    assert code == 0 and M.CLASSES_RULE_TEXT[M.DEFAULT_CLASSES_RULE] in out
    assert "a_code is modelled together with a" in out
    code, out, _ = run("dataset", str(f), "--columns", "a,b", "--json", "--trials", "1", "--classes-rule", "heldout")
    assert json.loads(out)["latent_class"]["fit"]["rule"] == "heldout"
    with pytest.raises(SystemExit):  # argparse refuses it with the list of choices
        cli.main(["dataset", str(f), "--columns", "a,b", "--classes-rule", "aic"])
    assert "unique-shares" in capsys.readouterr().err
