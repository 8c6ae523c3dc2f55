"""Which columns to coarsen: contributions and the coarsening plan, on small generated tables and on ADULT."""
from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

from dashboard.core import microdata as M


def _table(frame: pd.DataFrame) -> M.Table:
    return M.Table(frame=frame, name="t", source="upload")


def _generated(n=400, seed=0) -> M.Table:
    rng = np.random.default_rng(seed)
    return _table(pd.DataFrame({
        "age": rng.integers(18, 90, n).astype(float),
        "sex": rng.choice(["F", "M"], n).astype(object),
        "job": rng.choice([f"job{i}" for i in range(30)], n, p=np.r_[np.full(5, 0.16), np.full(25, 0.2 / 25)]).astype(object),
    }))


def test_contributions_match_a_direct_count():
    t = _generated()
    c = M.contributions(t, ["age", "sex", "job"], k=3)
    by = {row["column"]: row for row in c["columns"]}
    f = t.frame
    size = f.groupby(["sex", "job"])["sex"].transform("size")  # age withheld
    assert by["age"]["withheld"]["uniqueness"] == pytest.approx(float((size == 1).mean()))
    assert by["age"]["withheld"]["share_below_k"] == pytest.approx(float((size < 3).mean()))
    binned = f.assign(age=np.floor(f["age"] / 2))
    size = binned.groupby(["age", "sex", "job"])["sex"].transform("size")
    assert by["age"]["generalised"]["step"] == "bins of 2"
    assert by["age"]["generalised"]["uniqueness"] == pytest.approx(float((size == 1).mean()))
    assert by["sex"]["generalised"] is None  # two common values: nothing to merge, only withholding
    counts = f.groupby(["age", "sex", "job"]).size() / len(f)
    assert c["release"]["bits"] == pytest.approx(float(-(counts * np.log2(counts)).sum()))


def test_plan_reaches_the_target_and_each_step_keeps_less_information():
    p = M.plan(_generated(), ["age", "sex", "job"], k=5, target=0.1)
    assert p["reached"] and p["after"]["share_below_k"] <= 0.1 < p["before"]["share_below_k"]
    bits = [p["before"]["bits"]] + [s["bits"] for s in p["steps"]]
    assert all(a >= b - 1e-12 for a, b in zip(bits, bits[1:]))
    assert "withheld" not in [p["release"][c] for c in ("age", "sex", "job")] or len(set(p["release"].values())) > 1
    assert "generalisation steps bring" in p["message"] or "generalisation step brings" in p["message"]


def test_no_plan_reaches_the_target():
    p = M.plan(_generated(n=40), ["sex", "job"], k=50, target=0.0)  # 40 records can never form a class of 50
    assert not p["reached"] and p["message"].startswith("No plan reaches the target")
    assert list(p["release"].values()).count("withheld") == 1  # one column stays released


def test_bad_plan_settings_are_messages():
    t = _generated()
    with pytest.raises(ValueError, match="k must"):
        M.plan(t, ["age", "sex"], k=1)
    with pytest.raises(ValueError, match="target share"):
        M.plan(t, ["age", "sex"], target=1.5)


def test_adult_plan(cache_root):
    cols = ["age", "sex", "race", "marital_status", "education", "native_country"]
    p = M.plan(M.adult_table(), cols, missing="value", k=5, target=0.05)
    assert p["before"]["uniqueness"] == pytest.approx(0.171801, abs=1e-6)  # the PROVENANCE's (b)
    assert p["reached"] and p["after"]["share_below_k"] <= 0.05
