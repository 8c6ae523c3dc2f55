"""The NCD-RisC body prior of a country (issue 27): height and weight of every sex × age group, 200 countries.

A country without a body table of its own (only DE and the US ship one) is described by:

* **mean height**: NCD-RisC mean height at 18 of the birth cohorts the age group holds in the data set's
  reference year (eLife 2016; cohorts after 1996 take 1996), plus the measured change with age (NHANES
  2017–2018: a group's measured mean height minus the USA cohort mean at 18, less the same gap of the
  20–30-year-olds; so shrinking with age and the cohorts' survival are carried over from the US);
* **height SD within the group** and the **dependence of BMI on height** (the normal-score correlation of
  height and BMI, a Gaussian copula): from the measured NHANES 2017–2018 adults of the same sex and age group;
* **BMI**: the NCD-RisC 2022 gamma (shape k, scale θ) of the country × sex × age group (Lancet 2024);
* **weight** = BMI × height².  Its mean and SD and the correlation of height with ln(weight) are computed
  exactly for that model (Gauss–Hermite quadrature over the copula), and the v2 machinery takes them as it takes
  a survey's table (log-normal weight with that mean and SD, ρ per group).

Age groups: 18–20 (BMI of the 20–24 group: NCD-RisC starts at 20), 20–25 … 80–85, and the open 85+
(cohorts born 85–99 years before the reference year; BMI of NCD-RisC's 85+; NHANES spread of its 80+ group,
whose ages are top-coded at 80).  Census ages below 18 use the 18–20 group, flagged as the nearest group.
Countries an NCD-RisC file lacks take the stand-in of ``census_loaders.ncdrisc.STAND_INS``, named in the note.
"""
from __future__ import annotations

import functools
import math
from pathlib import Path

import numpy as np
import pandas as pd
from scipy import special, stats

from census_loaders import cache, nhanes
from census_loaders.ncdrisc import BMI_YEAR, ISO2_OF_ISO3, ISO3, STAND_INS
from census_loaders.paths import cache_dir

from ..errors import InputError
from ..groups import SEXES, format_age_band, open_group_end
from ..memo import lru
from ..text import N_
from ._v2 import cohort_arrays

#: The prior's age groups (``inf`` = open).
PRIOR_GROUPS: tuple[tuple[float, float], ...] = (
    ((18.0, 20.0),) + tuple((float(a), float(a + 5)) for a in range(20, 85, 5)) + ((85.0, math.inf),))
#: The NHANES groups the spread, the BMI–height dependence and the age change are measured in (age 80 = 80+).
NHANES_GROUPS: tuple[tuple[float, float], ...] = (
    ((18.0, 20.0),) + tuple((float(a), float(a + 5)) for a in range(20, 80, 5)) + ((80.0, math.inf),))
#: NHANES 2017–2018 examined people from January 2017 to early 2019: birth cohort = 2018 − age.
NHANES_YEAR: int = 2018
#: The young adults whose measured gap to their cohort's height at 18 is the reference of the change with age.
YOUNG: tuple[float, float] = (20.0, 30.0)
#: Gauss–Hermite nodes per dimension for the moments of weight (exact to ~1e-10 for these smooth integrands).
QUAD_NODES: int = 48
SOURCE = ("NCD-RisC (mean height by birth cohort, eLife 2016; BMI gamma 2022, Lancet 2024), with the height "
          "spread and the height–BMI dependence of the measured NHANES 2017–2018 adults")
#: The countries whose own national body statistics ship (every other data set takes its NCD-RisC prior), as
#: :data:`BODY_SOURCES_TEXT` names them.
OWN_BODY_TABLES: dict[str, str] = {"DE": "Germany's Mikrozensus 2017", "US": "the United States' NHANES/NCHS tables"}
#: Where every data set's height and weight come from, in words (the About page, the reports' limits): one source.
BODY_SOURCES_TEXT = N_(
    "Height and weight come from a country's own national statistics where they ship (Germany's Mikrozensus 2017 "
    "and the United States' NHANES/NCHS tables); every other country's are NCD-RisC's estimates (mean height of "
    "each birth cohort, and the BMI distribution by sex and age group), with the spread and the height–weight "
    "dependence measured on the NHANES 2017–2018 adults. Where NCD-RisC has no figures for a territory, a "
    "neighbour's stand in, and the data-set table names them.")


def _nhanes_group(age: np.ndarray) -> np.ndarray:
    out = np.full(np.shape(age), -1, dtype=np.int64)
    for g, (lo, hi) in enumerate(NHANES_GROUPS):
        out[(age >= lo) & (age < hi)] = g
    return out


def _cohort_mean(cohorts: dict, iso3: str, sex: str, years: np.ndarray) -> float:
    oldest, newest = cohorts["years"]
    return float(np.mean(cohorts[(iso3, sex)][np.clip(years, oldest, newest) - oldest]))


def normal_scores(x: np.ndarray) -> np.ndarray:
    """Φ⁻¹((rank − ½) / n) of each value (average ranks for ties): the copula's normal scores."""
    r = stats.rankdata(x)
    return special.ndtri((r - 0.5) / len(x))


def nhanes_body_stats(people: pd.DataFrame, cohorts: dict, groups=NHANES_GROUPS) -> pd.DataFrame:
    """Per sex × NHANES group: ``n``, ``height_sd``, ``bmi_rho`` (normal-score correlation of height and BMI)
    and ``height_offset`` (measured mean height minus the USA NCD-RisC mean at 18 of each person's cohort).

    ``people`` needs ``sex, age, height_cm, weight_kg`` (measured); ``cohorts`` as :func:`cohort_arrays`;
    ``groups`` a subset of :data:`NHANES_GROUPS` holding the young adults 20–30 (the validation's 18–75).
    """
    sex = people["sex"].astype(str).str.lower().to_numpy()
    age = pd.to_numeric(people["age"]).to_numpy(float)
    h = pd.to_numeric(people["height_cm"]).to_numpy(float)
    w = pd.to_numeric(people["weight_kg"]).to_numpy(float)
    grp = _nhanes_group(age)
    rows = []
    wanted = {NHANES_GROUPS.index(g) for g in groups}
    for s in SEXES:
        if ("USA", s) not in cohorts:
            raise InputError("the NCD-RisC height table has no rows for the USA: the NHANES height offsets need them")
        for g, (lo, hi) in enumerate(NHANES_GROUPS):
            if g not in wanted:
                continue
            m = (sex == s) & (grp == g) & np.isfinite(h) & np.isfinite(w) & (w > 0)
            n = int(m.sum())
            if n < 10:
                raise InputError(f"the NHANES sample has {n} measured {s}s aged {format_age_band(lo, hi)}: too few "
                                 "to estimate the height spread (at least 10 are needed)")
            born = NHANES_YEAR - np.floor(age[m]).astype(np.int64)
            oldest, newest = cohorts["years"]
            at18 = cohorts[("USA", s)][np.clip(born, oldest, newest) - oldest]
            bmi = w[m] / (h[m] / 100.0) ** 2
            rows.append({"sex": s, "age_from": lo, "age_to": hi, "n": n,
                         "height_sd": float(np.std(h[m], ddof=1)),
                         "bmi_rho": float(np.corrcoef(h[m], normal_scores(bmi))[0, 1]),
                         "gap_to_cohort": float(np.mean(h[m] - at18))})
    out = pd.DataFrame(rows)
    # The change with age only: the gap of each group minus that of the same sex's young adults (20–30).  The
    # unweighted sample's ethnic mix (NHANES oversamples shorter groups) shifts every gap alike and cancels.
    young = out[(out["age_from"] >= YOUNG[0]) & (out["age_to"] <= YOUNG[1])]
    ref = {s: float(np.average(g["gap_to_cohort"], weights=g["n"])) for s, g in young.groupby("sex")}
    out["height_offset"] = out["gap_to_cohort"] - out["sex"].map(ref)
    return out


@functools.lru_cache(maxsize=4)
def _hermite_rule(nodes: int) -> tuple[np.ndarray, np.ndarray]:
    """Gauss–Hermite nodes and weights summing to 1 (the same for every country: made once)."""
    x, wq = np.polynomial.hermite_e.hermegauss(nodes)
    x.flags.writeable = False
    wq = wq / wq.sum()
    wq.flags.writeable = False
    return x, wq


def weight_moments(h_mean, h_sd, k, theta, rho, nodes: int = QUAD_NODES) -> dict[str, np.ndarray]:
    """Mean and SD of weight = BMI × (height/100)², and corr(height, ln weight), per group (arrays broadcast).

    Height ~ N(h_mean, h_sd²); BMI ~ Gamma(k, θ); their dependence a Gaussian copula with correlation ``rho``.
    Exact up to the quadrature (``nodes`` Gauss–Hermite points per dimension).
    """
    x, wq = _hermite_rule(nodes)
    # BMI's normal score z on the first axis, the independent part u of height's on the second:
    # height's score = r·z + √(1 − r²)·u, so the costly gamma quantile is needed on one axis only
    z, u = x[:, None], x[None, :]
    w2 = wq[:, None] * wq[None, :]
    hm, hs, k, th, r = (np.asarray(a, float)[..., None, None] for a in (h_mean, h_sd, k, theta, rho))
    lo, hi = x <= 0, x > 0
    B = np.empty(np.broadcast_shapes(k.shape, th.shape)[:-2] + (nodes, 1))
    kk, tt = np.broadcast_arrays(k[..., 0, 0], th[..., 0, 0])
    # the upper tail through the survival function: Φ(z) rounds to 1 beyond z ≈ 8.3
    B[..., lo, 0] = stats.gamma.ppf(special.ndtr(x[lo]), kk[..., None], scale=tt[..., None])
    B[..., hi, 0] = stats.gamma.isf(special.ndtr(-x[hi]), kk[..., None], scale=tt[..., None])
    H = hm + hs * (r * z + np.sqrt(1.0 - r * r) * u)
    W = B * (H / 100.0) ** 2
    ew = (w2 * W).sum(axis=(-2, -1))
    vw = (w2 * (W - ew[..., None, None]) ** 2).sum(axis=(-2, -1))
    lw = np.log(W)
    elw = (w2 * lw).sum(axis=(-2, -1))
    cov = (w2 * (H - hm) * (lw - elw[..., None, None])).sum(axis=(-2, -1))
    vlw = (w2 * (lw - elw[..., None, None]) ** 2).sum(axis=(-2, -1))
    return {"weight_mean": ew, "weight_sd": np.sqrt(vw), "rho": cov / (hs[..., 0, 0] * np.sqrt(vlw))}


def _iso3(iso2: str, kind: str, have: set[str]) -> tuple[str, str | None]:
    """The ISO3 whose ``kind`` row serves ``iso2``, and the stand-in's ISO2 (None = its own)."""
    own = ISO3.get(iso2)
    if own in have:
        return own, None
    sub = STAND_INS.get(iso2, {}).get(kind)
    if sub is not None and ISO3.get(sub) in have:
        return ISO3[sub], sub
    what = "mean height" if kind == "height" else "BMI"
    raise InputError(f"no usable body statistics for {iso2}: NCD-RisC has no {what} row for it and no stand-in "
                     "is defined, so height and weight cannot be modelled for this data set")


def ncdrisc_prior_frame(iso2: str, year: int, bmi: pd.DataFrame, cohorts: dict, nhanes_stats: pd.DataFrame) -> pd.DataFrame:
    """The prior table of a country (``schema.BODY_PRIOR_COLUMNS`` + ``rho`` and the NCD-RisC inputs).

    ``bmi`` as ``cache.bmi_gamma``; ``cohorts`` as :func:`cohort_arrays`; ``nhanes_stats`` as
    :func:`nhanes_body_stats`.  ``df.attrs``: ``prior_country``, ``source``, ``note`` (stand-ins named).
    """
    iso2 = str(iso2).split("-")[0].upper()
    h_iso, h_sub = _iso3(iso2, "height", {key[0] for key in cohorts if isinstance(key, tuple)})
    b_iso, b_sub = _iso3(iso2, "bmi", set(map(str, bmi["iso3"].unique())))  # unique first: 28 × fewer strings
    mine = bmi[bmi["iso3"] == b_iso]
    gamma = {(sx, float(lo)): (float(k), float(t), float(hi))
             for sx, lo, hi, k, t in zip(mine["sex"].astype(str), mine["age_from"], mine["age_to"], mine["k"], mine["theta"])}
    spread = [(str(sx), float(lo), float(hi), float(sd), float(r), float(off)) for sx, lo, hi, sd, r, off in zip(
        nhanes_stats["sex"], nhanes_stats["age_from"], nhanes_stats["age_to"], nhanes_stats["height_sd"],
        nhanes_stats["bmi_rho"], nhanes_stats["height_offset"])]
    rows = []
    for s in SEXES:
        for lo, hi in PRIOR_GROUPS:
            span_hi = open_group_end(lo) if math.isinf(hi) else hi
            years = np.arange(int(year - span_hi + 1), int(year - lo) + 1)
            b_from = max(20.0, min(lo, 85.0))
            k, theta, b_to = gamma[(s, b_from)]
            mid = 0.5 * (lo + span_hi)
            sx_, s_lo, s_hi, sd, r, off = next(x for x in spread if x[0] == s and x[1] <= mid < x[2])
            rows.append({
                "sex": s, "age_from": lo, "age_to": math.nan if math.isinf(hi) else hi,
                "height_at_18": _cohort_mean(cohorts, h_iso, s, years),
                "height_offset": off, "height_sd": sd, "bmi_k": k, "bmi_theta": theta, "bmi_rho": r,
                "bmi_age_group": format_age_band(b_from, b_to if math.isfinite(b_to) else math.inf),
                "nhanes_group": format_age_band(s_lo, s_hi),
                "cohorts": f"{years[0]}–{years[-1]}",
            })
    df = pd.DataFrame(rows)
    df["height_mean"] = df["height_at_18"] + df["height_offset"]
    mom = weight_moments(df["height_mean"], df["height_sd"], df["bmi_k"], df["bmi_theta"], df["bmi_rho"])
    df["weight_mean"], df["weight_sd"], df["rho"] = mom["weight_mean"], mom["weight_sd"], mom["rho"]
    df["bmi_mean"], df["bmi_sd"] = df["bmi_k"] * df["bmi_theta"], np.sqrt(df["bmi_k"]) * df["bmi_theta"]
    df["height_source"], df["bmi_source"] = ISO2_OF_ISO3[h_iso], ISO2_OF_ISO3[b_iso]
    df["note"] = ""
    subs = [f"{'mean heights' if kind == 'height' else 'BMI'} of {sub}" for kind, sub in (("height", h_sub), ("bmi", b_sub)) if sub]
    note = (f"Body statistics of {iso2}: NCD-RisC prior for {year} (mean height of the birth cohorts, NCD-RisC BMI "
            f"{BMI_YEAR}; spread and height–BMI dependence of the measured NHANES 2017–2018 adults).")
    if subs:
        note += f" NCD-RisC has no row for {iso2}: the {' and the '.join(subs)} stand in."
    df.attrs.update(prior_country=iso2, borrowed_from=None, source=SOURCE, note=note, year=int(year),
                    stand_ins={k: v for k, v in (("height", h_sub), ("bmi", b_sub)) if v})
    return df


def correlation_from_prior(df: pd.DataFrame) -> pd.DataFrame:
    """The ρ table the v2 model reads (``sex, age_from, age_to, rho``; the open group ends at 100)."""
    out = df[["sex", "age_from", "age_to", "rho"]].copy()
    out["age_to"] = [open_group_end(lo) if pd.isna(hi) else hi for lo, hi in zip(out["age_from"], out["age_to"])]
    return out


def nhanes_people(root: Path | None = None) -> pd.DataFrame:
    """The NHANES adults 18+ with measured height and weight (age 80 = 80 and over), or an InputError."""
    root = Path(root) if root is not None else cache_dir()
    try:
        return nhanes.adults(cache.microdata("nhanes", root), 18.0, 81.0)
    except (KeyError, FileNotFoundError) as exc:
        raise InputError(f"the NCD-RisC body prior needs the NHANES sample in the cache ({exc}); "
                         "run `anonset data build`") from None


@lru(4)
def _stats(root: str, stamp: int) -> pd.DataFrame:
    r = Path(root)
    cohorts = _cohorts(root, stamp)
    return nhanes_body_stats(nhanes_people(r), cohorts)


@lru(4)
def _cohorts(root: str, stamp: int) -> dict:
    table = cache.height_cohorts(Path(root))
    if table is None:
        raise InputError("the NCD-RisC height table is not in the cache: run `anonset data build`")
    return cohort_arrays(table)


@lru(4)
def _bmi(root: str, stamp: int) -> pd.DataFrame:
    table = cache.bmi_gamma(Path(root))
    if table is None:
        raise InputError("the NCD-RisC BMI table is not in the cache: run `anonset data build`")
    return table


def _stamp(root: Path) -> int:
    try:
        return (root / "manifest.json").stat().st_mtime_ns
    except FileNotFoundError:
        return -1


@lru(256)
def _prior(iso2: str, year: int, root: str, stamp: int) -> pd.DataFrame:
    return ncdrisc_prior_frame(iso2, year, _bmi(root, stamp), _cohorts(root, stamp), _stats(root, stamp))


def ncdrisc_prior(iso2: str, year: int, root: Path | None = None) -> pd.DataFrame:
    """The NCD-RisC prior of ``iso2`` in ``year`` from the cache (memoised; a fresh copy)."""
    root = Path(root) if root is not None else cache_dir()
    out = _prior(str(iso2), int(year), str(root), _stamp(root))
    df = out.copy()
    df.attrs = dict(out.attrs)
    return df


def nhanes_stats(root: Path | None = None) -> pd.DataFrame:
    """The NHANES spread, BMI–height dependence and age change per sex × group (memoised; a copy)."""
    root = Path(root) if root is not None else cache_dir()
    return _stats(str(root), _stamp(root)).copy()


def cached_cohorts(root: Path | None = None) -> dict:
    root = Path(root) if root is not None else cache_dir()
    return _cohorts(str(root), _stamp(root))


def cached_bmi(root: Path | None = None) -> pd.DataFrame:
    root = Path(root) if root is not None else cache_dir()
    return _bmi(str(root), _stamp(root)).copy()
