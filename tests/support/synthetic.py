"""Small hand-made data: census populations, body priors and models in the cache schema, and a tiny cache
folder in the real layout (shared by the core, CLI and view tests)."""
from __future__ import annotations

import json
import math

import numpy as np
import pandas as pd

from dashboard.core.country import CountryModel
from dashboard.core.groups import DEFAULT_STUDY, SEXES

#: Germany-like census groups (17 groups, 65–75 and an open 75+).
DE_GROUPS = [(0, 3), (3, 6), (6, 10), (10, 15), (15, 18), (18, 20), (20, 25), (25, 30), (30, 35),
             (35, 40), (40, 45), (45, 50), (50, 55), (55, 60), (60, 65), (65, 75), (75, None)]
#: US-like 5-year census groups with an open 85+.
US_GROUPS = [(a, a + 5) for a in range(0, 85, 5)] + [(85, None)]


def make_population(groups=DE_GROUPS, districts=None, seed=0) -> pd.DataFrame:
    """A small population table in the cache schema with random counts."""
    rng = np.random.default_rng(seed)
    districts = districts or [
        ("01001", "Alpha", "01", "North", False),
        ("01002", "Beta", "01", "North", False),
        ("02001", "Gamma", "02", "South", True),
        ("02002", "Delta", "02", "South", False),
    ]
    rows = []
    for did, dname, rid, rname, filled in districts:
        for sex in SEXES:
            for lo, hi in groups:
                rows.append({
                    "district_id": did, "district_name": dname, "region_id": rid, "region_name": rname,
                    "sex": sex, "age_from": float(lo), "age_to": math.nan if hi is None else float(hi),
                    "count": float(rng.integers(50, 5000)), "filled": filled,
                })
    df = pd.DataFrame(rows)
    for c in ("district_id", "district_name", "region_id", "region_name", "sex"):
        df[c] = df[c].astype("string")
    return df


def make_priors(groups=None, country="DE") -> pd.DataFrame:
    """Body priors like the Mikrozensus: 5-year groups 18–75 (18–20 first)."""
    groups = groups or [(18, 20)] + [(a, a + 5) for a in range(20, 75, 5)]
    rows = []
    for sex, h0, w0 in (("female", 166.0, 66.0), ("male", 179.0, 84.0)):
        for i, (lo, hi) in enumerate(groups):
            rows.append({
                "sex": sex, "age_from": float(lo), "age_to": math.nan if hi is None else float(hi),
                "height_mean": h0 - 0.2 * i, "height_sd": 6.5 + 0.05 * i,
                "weight_mean": w0 + 0.6 * i, "weight_sd": 12.0 + 0.2 * i,
            })
    df = pd.DataFrame(rows)
    df["sex"] = df["sex"].astype("string")
    df.attrs.update(prior_country=country, borrowed_from=None, source="test survey")
    return df


def make_model(groups=DE_GROUPS, priors=None, study=DEFAULT_STUDY, **kw) -> CountryModel:
    """A synthetic model; the paper body model unless ``model=`` says otherwise (these tests check its numbers)."""
    kw.setdefault("model", "paper")
    return CountryModel.from_frames(
        "XX", make_population(groups), priors if priors is not None else make_priors(), name="Testland", study=study, **kw
    )



# ----------------------------------------------------------------------------- a hand-checked cache

#: Census groups of the tiny data set and its hand-chosen counts [district][sex] per group.
TINY_GROUPS = [(0, 20), (20, 30), (30, 40), (40, 50), (50, 60), (60, None)]
TINY_COUNTS = {
    ("T1", "female"): [999, 10, 20, 30, 40, 999],
    ("T2", "female"): [999, 0, 25, 15, 60, 999],
    ("T1", "male"): [999, 5, 5, 5, 5, 999],
    ("T2", "male"): [999, 5, 5, 5, 45, 999],
}
TINY_AGES = (20, 60)


def make_tiny_cache(root):
    """A cache folder in the real layout with one data set ``TT`` of 2 districts (counts above)."""
    (root / "population").mkdir()
    (root / "auxiliary").mkdir()
    names = {"T1": ("One", "R1", "Region A"), "T2": ("Two", "R1", "Region A")}
    rows = []
    for (d, sex), counts in TINY_COUNTS.items():
        for (lo, hi), n in zip(TINY_GROUPS, counts):
            rows.append({"district_id": d, "district_name": names[d][0], "region_id": names[d][1],
                         "region_name": names[d][2], "sex": sex, "age_from": float(lo),
                         "age_to": math.nan if hi is None else float(hi), "count": float(n), "filled": d == "T2"})
    pop = pd.DataFrame(rows)
    for c in ("district_id", "district_name", "region_id", "region_name", "sex"):
        pop[c] = pop[c].astype("string")
    pop.to_parquet(root / "population" / "TT.parquet", index=False)
    make_priors().assign(prior_country="DE").to_parquet(root / "body_priors.parquet", index=False)
    pd.DataFrame({"sex": ["female", "male"], "fraction": [0.5, 0.0]}).to_parquet(
        root / "auxiliary" / "tt_app.parquet", index=False)
    manifest = {
        "schema_version": 1,
        "datasets": {"TT": {"name": "Tinyland", "district_label": "district", "region_label": "region", "notes": [],
                            "body_prior": {"country": "DE", "borrowed_from": "DE", "source": "test survey"}}},
        "body_priors": {"DE": {"rows": 24, "sources": []}},
        "auxiliary": {"tt_app": {"name": "Uses the app", "country": "TT", "note": "made up", "keys": ["sex"],
                                 "sources": []}},
    }
    (root / "manifest.json").write_text(json.dumps(manifest), encoding="utf-8")
    return root


# ----------------------------------------------------------------------------- a large population, by distinct sizes


def large_population_by_distinct_sizes(seed: int = 9) -> tuple[np.ndarray, np.ndarray]:
    """``(sizes, multiplicities)``: millions of records in 3,000 distinct set sizes, a power law with noise (the
    Pitman–Yor fit's cost test and ``benchmarks/bench_pyc.py``)."""
    rng = np.random.default_rng(seed)
    sizes = np.arange(1, 3001)
    mult = np.maximum(1, (2e6 * sizes ** -2.2 * rng.uniform(0.8, 1.2, sizes.size)).astype(int))
    return sizes, mult
