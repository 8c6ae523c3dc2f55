"""The pieces of body model v2 that need no model (SPEC §1.6); re-exported by :mod:`.body_model`.

* the model names and :func:`check_model`;
* :func:`lognormal_params` (moment matching) and :func:`coverage_mask` (the ≥ 99.9 % grid);
* the NCD-RisC cohort height shift of a borrowing country (:func:`cohort_height_shift`);
* the NHANES self-report offsets (:func:`self_report_offsets`).
"""
from __future__ import annotations

import math
from pathlib import Path

import numpy as np
import pandas as pd

from census_loaders import cache, nhanes
from census_loaders.ncdrisc import ISO3
from census_loaders.paths import cache_dir

from ..errors import InputError
from ..groups import SEXES, open_group_end
from ..memo import lru
from ..text import N_

#: Body models (SPEC §1.6): ``v2`` (the default: correlated, log-normal weight, nobody
#: left out) and ``paper`` (independent normals, BMI filter, the published numbers).
MODELS: tuple[str, ...] = ("v2", "paper")
DEFAULT_MODEL: str = "v2"
#: Each body model in a few words: the pages' switches and the personal page's status line say these.
MODEL_LABELS: dict[str, str] = {"v2": N_("v2 — height and weight correlated, nobody left out"),
                                "paper": N_("paper — independent normals, as published")}  # N_: the pages translate
#: v2 aggregates run over the most probable cells of each sex × age group holding at
#: least this share of its probability mass (SPEC §1.6).
COVERAGE: float = 0.999
#: The v2 weight grid reaches this many log-SDs either side of every body group
#: (the log-normal's tails beyond hold < 1e-13).
GRID_LOG_SDS: float = 7.5


def check_model(name) -> str:
    """``"v2"`` or ``"paper"`` (case-insensitive), or an InputError naming the choices."""
    key = str(name).strip().lower() if name is not None else DEFAULT_MODEL
    if key not in MODELS:
        raise InputError(f"unknown body model {name!r}: use {' or '.join(MODELS)}")
    return key


def lognormal_params(mean, sd) -> tuple[np.ndarray, np.ndarray]:
    """``(μ, σ)`` of the log-normal with the given mean and SD (moment matching, SPEC §1.6).

    ``σ² = ln(1 + s²/m²)``, ``μ = ln m − σ²/2``.
    """
    m, s = np.asarray(mean, float), np.asarray(sd, float)
    var = np.log1p((s / m) ** 2)
    return np.log(m) - var / 2.0, np.sqrt(var)


def safe_log(x) -> np.ndarray:
    """Natural log with ``log(x ≤ 0) = −inf`` (a weight band starting at 0)."""
    x = np.asarray(x, float)
    with np.errstate(divide="ignore", invalid="ignore"):
        return np.where(x > 0, np.log(np.where(x > 0, x, 1.0)), -np.inf)


def coverage_mask(prob: np.ndarray, share: float = COVERAGE) -> np.ndarray:
    """``[..., h, w]`` mask of the most probable cells holding ≥ ``share`` of each group's mass.

    Per leading index, cells are taken in descending probability until their sum
    reaches ``share`` of the total (the cell that crosses it included).
    """
    lead, (H, W) = prob.shape[:-2], prob.shape[-2:]
    flat = prob.reshape(-1, H * W)
    order = np.argsort(-flat, axis=1, kind="stable")
    srt = np.take_along_axis(flat, order, axis=1)
    cum = np.cumsum(srt, axis=1)
    need = share * flat.sum(axis=1, keepdims=True)
    keep_sorted = np.concatenate([np.ones((flat.shape[0], 1), bool), cum[:, :-1] < need], axis=1) & (srt > 0)
    mask = np.zeros_like(flat, dtype=bool)
    np.put_along_axis(mask, order, keep_sorted, axis=1)
    return mask.reshape(lead + (H, W))


def self_report_offsets(root: Path | None = None) -> tuple[float, float]:
    """Mean self-reported minus measured height (cm) and weight (kg) of the NHANES adults (SPEC §1.6)."""

    root = Path(root) if root is not None else cache_dir()
    return _self_report_offsets(str(root))


@lru(8)
def _self_report_offsets(root: str) -> tuple[float, float]:

    try:
        d = nhanes.adults(cache.microdata("nhanes", Path(root)))
    except (KeyError, FileNotFoundError) as exc:
        raise InputError(f"the self-report correction needs the NHANES sample in the cache ({exc}); "
                         "run `anonset data build`") from None
    dh = (d["self_height_cm"] - d["height_cm"]).mean()
    dw = (d["self_weight_kg"] - d["weight_kg"]).mean()
    return float(dh), float(dw)


def cohort_arrays(cohorts: pd.DataFrame) -> dict:
    """``{(iso3, sex): height at 18 indexed by birth_year − oldest}`` plus ``"years"``: (oldest, newest)."""
    years = cohorts["birth_year"].to_numpy(np.int64)
    oldest, newest = int(years.min()), int(years.max())
    out: dict = {"years": (oldest, newest)}
    iso = cohorts["iso3"].astype(str).to_numpy()
    sex = cohorts["sex"].astype(str).to_numpy()
    h = cohorts["height_cm"].to_numpy(float)
    keys = pd.Series(np.char.add(np.char.add(iso.astype(str), "|"), sex.astype(str)))
    for key, idx in keys.groupby(keys).indices.items():
        arr = np.full(newest - oldest + 1, np.nan)
        arr[years[idx] - oldest] = h[idx]
        i, s_ = key.split("|")
        out[(i, s_)] = arr
    return out


@lru(4)
def cached_cohort_arrays(root: str, stamp: int) -> dict:

    cohorts = cache.height_cohorts(Path(root))
    return None if cohorts is None else cohort_arrays(cohorts)


def cohort_height_shift(cohorts, country: str, lender: str, body,
                        year: int, iso3: str | None = None) -> tuple[np.ndarray | None, str]:
    """Per body group, cm to add to the lender's mean height for a borrowing country (SPEC §1.6).

    A body group ``[lo, hi)`` in ``year`` holds the birth cohorts ``year − hi + 1 … year − lo``;
    the shift is the mean over those cohorts of (the country's − the lender's) mean height
    at 18 (NCD-RisC), per sex.  Cohorts after the newest published one (1996) take the
    newest.  ``iso3``: the country's ISO alpha-3 code as the manifest records it (any country of the
    world); without it, ``census_loaders.ncdrisc.ISO3`` is asked.  Returns ``(None, reason)`` when
    either country is not in the table.
    """


    if isinstance(cohorts, pd.DataFrame):
        cohorts = cohort_arrays(cohorts)
    base = country.split("-")[0]
    iso_c, iso_l = iso3 or ISO3.get(base), ISO3.get(lender)
    if any((iso, s_) not in cohorts for iso in (iso_c, iso_l) for s_ in SEXES):
        return None, (f"No NCD-RisC height data for {country}: the borrowed mean heights are used unchanged.")
    oldest, newest = cohorts["years"]
    shift = np.zeros(len(body))
    clamped = False
    for g in range(len(body)):
        lo = float(body.age_lo[g])
        hi = float(body.age_hi[g]) if math.isfinite(body.age_hi[g]) else open_group_end(lo)
        years = np.arange(int(year - hi + 1), int(year - lo) + 1)
        clamped |= bool((years > newest).any())
        years = np.clip(years, oldest, newest) - oldest
        sex = SEXES[int(body.sex_index[g])]
        shift[g] = float(np.mean(cohorts[(iso_c, sex)][years] - cohorts[(iso_l, sex)][years]))
    f = [shift[g] for g in range(len(body)) if body.sex_index[g] == 0]
    m = [shift[g] for g in range(len(body)) if body.sex_index[g] == 1]
    # what is borrowed first, then by how much it is shifted (issue 28: the cm came before the word "borrowed")
    note = (f"No body statistics of its own: {lender}'s are borrowed, with mean heights shifted by birth cohort "
            f"(NCD-RisC, height at 18) by {min(m):+.1f} to {max(m):+.1f} cm for men and {min(f):+.1f} to "
            f"{max(f):+.1f} cm for women; weights unchanged.")
    if clamped:
        note += f" Cohorts born after {newest} take the {newest} value."
    return shift, note
