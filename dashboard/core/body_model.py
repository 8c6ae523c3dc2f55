"""The body model shared by the personal page (CAS) and the regional aggregates.

It turns a census table and a body-measurement table into numpy arrays and the
probabilities SPEC §1.1 defines:

* the **study population**: census age groups trimmed to the study range by
  overlap (:func:`trim_age_groups`);
* the **mapping** of census age groups onto body-statistics age groups, weighted by
  the years each covers, with the nearest body group standing in where the census
  reaches beyond the survey (:func:`body_group_weights`);
* **band probabilities** for half-open height and weight bands aligned to multiples
  of their width (:func:`band_of`, :class:`BandGrid`), per body group
  (:func:`band_matrix`, memoised on hashable keys) and per sex × census age group
  as the SPEC mixture ``Σ_g w_g Pr_g[h-band] Pr_g[w-band]``
  (:meth:`CountryModel.joint`);
* the **BMI plausibility** mask (:func:`bmi_plausible`) and the per sex × age
  group **profile grid** of plausible cells within ±:data:`PROFILE_SDS` of the
  body groups that group mixes (:meth:`JointBands.profile_mask_by_group`);
* :class:`CountryModel`, built once per data set (:func:`load_country_model`,
  memoised) or from DataFrames (:meth:`CountryModel.from_frames`, for tests).

Array axes are always ``[district, sex, age group]`` with sexes in the order of
:data:`SEXES`, and ``[..., height band, weight band]`` for joint probabilities.
Nothing here imports Dash.
"""
from __future__ import annotations

import itertools
import math
import threading
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from functools import lru_cache
from pathlib import Path

import numpy as np
import pandas as pd
from scipy.special import ndtr

from . import memo
from .body_v2 import (  # noqa: F401 - re-exported: the v2 pieces are part of this module's interface
    COVERAGE,
    DEFAULT_MODEL,
    GRID_LOG_SDS,
    MODELS,
    _cohort_arrays_cached,
    _log,
    check_model,
    cohort_arrays,
    cohort_height_shift,
    coverage_mask,
    lognormal_params,
    self_report_offsets,
)
from .errors import InputError

#: Sexes in array order (axis 1 of every count array).
SEXES: tuple[str, str] = ("female", "male")
#: The default study population: adults aged [18, 75).
DEFAULT_STUDY: tuple[float, float] = (18.0, 75.0)
#: An open-ended census group ``[a, ∞)`` (75+, 85+) is taken to span ``[a, 100)``
#: (or ``[a, a + 5)`` when ``a ≥ 95``) for the overlap rule.  Few people live past
#: 100 and the "spread evenly over the years" assumption is rough there anyway; it
#: only matters when the study range reaches into the open group.
OPEN_GROUP_END: float = 100.0
#: Band widths the interface offers (cm for height, kg for weight).
BAND_WIDTHS: tuple[int, ...] = (1, 2, 5, 10, 20)
#: Plausible BMI range (SPEC §1.1); cells whose centre lies outside are implausible.
DEFAULT_BMI_RANGE: tuple[float, float] = (17.0, 30.0)
#: The band grid covers this many standard deviations either side of every body group,
#: so that the probabilities over all bands add up to 1 within ~1e-12.
GRID_SDS: float = 10.0
#: The *profile grid* that aggregates and what-ifs walk covers ±PROFILE_SDS of the body
#: groups — for aggregates, of the body groups each sex × census age group mixes
#: (:meth:`JointBands.profile_mask_by_group`): cells further out hold ~1e-17 people (a
#: 210 cm, 130 kg woman of 18–20) and would make a "minimum CAS" or a cell mean describe
#: the grid's reach instead of the population.
PROFILE_SDS: float = 4.0

_EPS = 1e-9
#: Guards the small LRU caches on models: a Dash server may call from several threads.
_LOCK = threading.RLock()
#: Every model's memoised values (joints, grids, fraction arrays …) in one byte-bounded memo (the process's
#: budget, memo.set_budget), and the variants of each data set's home model (other study ranges, body models).
_MODEL_MEMO = memo.OwnedMemo(50_000, name="dashboard.core.body_model.model_memo")
_FAMILY = memo.Memo(4096, name="dashboard.core.body_model.variants",
                    sizeof=lambda m: int(m.counts.nbytes + m.body_weights.nbytes + m.nearest_body.nbytes) + 4096)


# --------------------------------------------------------------------------- ages


def open_group_end(lo: float) -> float:
    """Where an open-ended group starting at ``lo`` is assumed to end (see :data:`OPEN_GROUP_END`)."""
    return max(OPEN_GROUP_END, lo + 5.0)


def overlap_years(lo1: float, hi1: float, lo2: float, hi2: float) -> float:
    """Years shared by the half-open bands ``[lo1, hi1)`` and ``[lo2, hi2)`` (inf allowed)."""
    return max(0.0, min(hi1, hi2) - max(lo1, lo2))


def format_age_band(lo: float, hi: float) -> str:
    """``65–75``, ``75+`` (an infinite upper end), whole years without decimals."""
    def num(x: float) -> str:
        return f"{x:g}"

    if not math.isfinite(hi):
        return f"{num(lo)}+"
    return f"{num(lo)}–{num(hi)}"


@dataclass(frozen=True)
class AgeGroup:
    """A census age group as it enters the study population.

    ``lo``/``hi`` are the years inside the study range; ``census_lo``/``census_hi``
    the published group (``census_hi`` is ``inf`` for an open group); ``share`` the
    fraction of the group's people counted (overlap years / group years).
    """

    lo: float
    hi: float
    census_lo: float
    census_hi: float
    share: float

    @property
    def trimmed(self) -> bool:
        return self.share < 1.0 - _EPS

    @property
    def label(self) -> str:
        """``65–75``; a trimmed group names its census group: ``18–20 (of 15–20)``."""
        own = format_age_band(self.lo, self.hi)
        if self.trimmed:
            return f"{own} (of {format_age_band(self.census_lo, self.census_hi)})"
        return format_age_band(self.census_lo, self.census_hi)


def check_study(study: Sequence[float]) -> tuple[float, float]:
    """A study range as ``(lo, hi)`` floats (``hi`` may be inf), or an InputError."""
    try:
        lo, hi = (float(x) for x in study)
    except (TypeError, ValueError):
        raise InputError(f"the study range must be two ages, e.g. 18–75, not {study!r}") from None
    if math.isnan(lo) or math.isnan(hi) or lo < 0 or hi <= lo:
        raise InputError(f"the study range {format_age_band(lo, hi)} is not a valid age band [from, to)")
    return lo, hi


def trim_age_groups(
    census: Sequence[tuple[float, float]], study: Sequence[float] = DEFAULT_STUDY
) -> tuple[np.ndarray, tuple[AgeGroup, ...]]:
    """Apply the study range to census age groups by overlap (SPEC §1.1).

    ``census`` holds ``(age_from, age_to)`` with ``age_to`` NaN or inf for an open
    group.  A group partly inside is trimmed to the overlap and its count is to be
    scaled by ``share`` = overlap years / group years (people spread evenly over the
    years of a group); groups entirely outside are dropped.  Returns the indices of
    the kept census groups and their :class:`AgeGroup` descriptions.
    """
    s_lo, s_hi = check_study(study)
    kept, groups = [], []
    for i, (lo, hi) in enumerate(census):
        lo = float(lo)
        hi = math.inf if hi is None or (isinstance(hi, float) and math.isnan(hi)) else float(hi)
        span_hi = open_group_end(lo) if math.isinf(hi) else hi
        years = overlap_years(lo, span_hi, s_lo, s_hi)
        if years <= _EPS:
            continue
        t_lo, t_hi = max(lo, s_lo), min(span_hi, s_hi)
        share = years / (span_hi - lo)
        if math.isinf(hi) and s_hi >= span_hi:
            t_hi = math.inf  # the whole open group is in the study: keep it open
        kept.append(i)
        groups.append(AgeGroup(t_lo, t_hi, lo, hi, min(1.0, share)))
    if not groups:
        raise InputError(
            f"no census age group lies inside the study range {format_age_band(s_lo, s_hi)}"
        )
    return np.asarray(kept, dtype=np.int64), tuple(groups)


def _group_span(group: AgeGroup) -> tuple[float, float]:
    """The finite years an age group stands for (open groups end at :func:`open_group_end`)."""
    hi = open_group_end(group.lo) if math.isinf(group.hi) else group.hi
    return group.lo, hi


def age_overlap_weights(
    groups: Sequence[AgeGroup], bands: Sequence[tuple[float, float]]
) -> np.ndarray:
    """``W[a, t]`` = share of age group ``a``'s years that fall in band ``t``.

    The overlap rule of SPEC §1.1 used for tables keyed by other age bands
    (auxiliary fractions): a census group takes the year-weighted mean of the bands
    it overlaps.  Bands may be open (``hi`` NaN/inf).  Rows need not sum to 1 when
    the bands do not cover every year.
    """
    out = np.zeros((len(groups), len(bands)))
    for a, g in enumerate(groups):
        lo, hi = _group_span(g)
        for t, (blo, bhi) in enumerate(bands):
            bhi = math.inf if bhi is None or math.isnan(bhi) else bhi
            out[a, t] = overlap_years(lo, hi, float(blo), float(bhi)) / (hi - lo)
    return out


# --------------------------------------------------------------------------- body groups


@dataclass(frozen=True, eq=False)
class BodyPriors:
    """Height and weight normals per sex × body-statistics age group (one row per group).

    ``country`` is whose survey these are; ``borrowed_from`` names the lending
    country when the data set has no statistics of its own (SPEC §1.1).
    """

    sex_index: np.ndarray  # (G,) index into SEXES
    age_lo: np.ndarray  # (G,)
    age_hi: np.ndarray  # (G,) inf = open-ended
    height_mean: np.ndarray
    height_sd: np.ndarray
    weight_mean: np.ndarray
    weight_sd: np.ndarray
    country: str = ""
    borrowed_from: str | None = None
    source: str = ""
    #: The survey asked people (self-reported), rather than measuring them.
    self_reported: bool = False

    @classmethod
    def from_frame(
        cls,
        df: pd.DataFrame,
        country: str | None = None,
        borrowed_from: str | None = None,
        source: str | None = None,
    ) -> BodyPriors:
        """From a table with ``schema.BODY_PRIOR_COLUMNS``; metadata defaults to ``df.attrs``."""
        missing = [c for c in ("sex", "age_from", "age_to", "height_mean", "height_sd", "weight_mean", "weight_sd") if c not in df.columns]
        if missing:
            raise ValueError(f"body priors lack column(s) {missing}")
        attrs = dict(df.attrs or {})
        df = df.sort_values(["sex", "age_from"], kind="mergesort")
        sex = df["sex"].astype(str).to_numpy()
        bad = sorted(set(sex) - set(SEXES))
        if bad:
            raise ValueError(f"body priors have unknown sex {bad[0]!r}")
        if set(sex) != set(SEXES):
            raise ValueError("body priors must cover both sexes")
        num = {c: pd.to_numeric(df[c], errors="coerce").to_numpy(dtype=float) for c in ("age_from", "age_to", "height_mean", "height_sd", "weight_mean", "weight_sd")}
        for c in ("height_mean", "height_sd", "weight_mean", "weight_sd"):
            if not np.all(np.isfinite(num[c]) & (num[c] > 0)):
                raise ValueError(f"body priors: {c} must be positive numbers")
        age_hi = np.where(np.isnan(num["age_to"]), np.inf, num["age_to"])
        return cls(
            sex_index=np.array([SEXES.index(s) for s in sex], dtype=np.int64),
            age_lo=num["age_from"],
            age_hi=age_hi,
            height_mean=num["height_mean"],
            height_sd=num["height_sd"],
            weight_mean=num["weight_mean"],
            weight_sd=num["weight_sd"],
            country=country if country is not None else str(attrs.get("prior_country") or ""),
            borrowed_from=borrowed_from if borrowed_from is not None else attrs.get("borrowed_from"),
            source=source if source is not None else str(attrs.get("source") or ""),
            self_reported=bool("note" in df.columns and df["note"].astype(str).str.contains("self-report", case=False).any()),
        )

    def __len__(self) -> int:
        return len(self.sex_index)

    def label(self, g: int) -> str:
        """``female 65–70``: how a body group is named in notes."""
        return f"{SEXES[self.sex_index[g]]} {format_age_band(self.age_lo[g], self.age_hi[g])}"

    def params(self, kind: str) -> tuple[np.ndarray, np.ndarray]:
        """``(means, sds)`` of ``"height"`` or ``"weight"`` for every group."""
        if kind == "height":
            return self.height_mean, self.height_sd
        if kind == "weight":
            return self.weight_mean, self.weight_sd
        raise ValueError(f"unknown body measurement {kind!r}")


def body_group_weights(
    groups: Sequence[AgeGroup], body: BodyPriors
) -> tuple[np.ndarray, np.ndarray]:
    """Mixture weights ``W[sex, age group, body group]`` and the nearest-group flags.

    Each census group's years are split over the body groups of the same sex that
    cover them (weights = years covered / group years, so a body group spanning
    several census groups is used by each).  Years no body group covers (a census
    75+ when the survey stops at 75) go to the nearest body group, and
    ``nearest[sex, age group]`` is set so the data can say so.
    """
    W = np.zeros((len(SEXES), len(groups), len(body)))
    nearest = np.zeros((len(SEXES), len(groups)), dtype=bool)
    for s in range(len(SEXES)):
        idx = np.flatnonzero(body.sex_index == s)
        blo, bhi = body.age_lo[idx], body.age_hi[idx]
        for a, g in enumerate(groups):
            lo, hi = _group_span(g)
            cuts = {lo, hi, *(x for x in np.concatenate([blo, bhi]) if lo < x < hi)}
            cuts = sorted(cuts)
            for x0, x1 in itertools.pairwise(cuts):
                mid = 0.5 * (x0 + x1)
                inside = np.flatnonzero((blo <= mid) & (mid < bhi))
                if inside.size:
                    j = inside[0]
                else:
                    dist = np.maximum(blo - mid, mid - bhi)
                    j = int(np.argmin(dist))
                    nearest[s, a] = True
                W[s, a, idx[j]] += (x1 - x0) / (hi - lo)
    return W, nearest


# --------------------------------------------------------------------------- bands


def band_of(value: float, width: float) -> tuple[float, float]:
    """The half-open band of ``width`` aligned to its multiples that holds ``value``.

    ``band_of(172, 5) == (170.0, 175.0)``; ``band_of(175, 5) == (175.0, 180.0)``.
    """
    value, width = float(value), float(width)
    if not (math.isfinite(value) and math.isfinite(width) and width > 0):
        raise InputError(f"cannot form a band of width {width:g} around {value!r}")
    lo = math.floor(value / width + _EPS) * width
    return (lo, lo + width)


def widen_band(band: tuple[float, float], width: float) -> tuple[float, float]:
    """The smallest ``width``-aligned interval that contains ``band``.

    It is one band of ``width`` when the widths nest (5 → 10), and two when they
    do not (a 2-cm band straddling a 5-cm boundary), so widening never drops anyone.
    """
    lo, hi = band
    w = float(width)
    new_lo = math.floor(lo / w + _EPS) * w
    new_hi = math.ceil(hi / w - _EPS) * w
    return (new_lo, max(new_hi, new_lo + w))


@dataclass(frozen=True)
class BandGrid:
    """``n`` consecutive half-open bands ``[start + i·width, start + (i+1)·width)``."""

    start: float
    width: float
    n: int

    @property
    def edges(self) -> np.ndarray:
        return self.start + self.width * np.arange(self.n + 1)

    @property
    def lo(self) -> np.ndarray:
        return self.edges[:-1]

    @property
    def hi(self) -> np.ndarray:
        return self.edges[1:]

    @property
    def centres(self) -> np.ndarray:
        return self.start + self.width * (np.arange(self.n) + 0.5)

    def index(self, value: float) -> int:
        """Index of the band holding ``value`` (may be outside ``[0, n)``)."""
        return math.floor((float(value) - self.start) / self.width + _EPS)

    @classmethod
    def covering(cls, means: Iterable[float], sds: Iterable[float], width: float, n_sd: float = GRID_SDS) -> BandGrid:
        """The aligned grid covering ``mean ± n_sd·sd`` of every group."""
        means, sds = np.asarray(list(means), float), np.asarray(list(sds), float)
        lo = math.floor(float(np.min(means - n_sd * sds)) / width) * width
        hi = math.ceil(float(np.max(means + n_sd * sds)) / width) * width
        return cls(float(lo), float(width), round((hi - lo) / width))


def interval_probability(mean, sd, lo, hi) -> np.ndarray:
    """``Pr[lo ≤ X < hi]`` for ``X ~ Normal(mean, sd)``, broadcasting, tails accurate.

    Bands in the upper tail are computed from the lower tail of the mirrored
    variable, so tiny probabilities keep their relative precision.
    """
    mean, sd = np.asarray(mean, float), np.asarray(sd, float)
    za = (np.asarray(lo, float) - mean) / sd
    zb = (np.asarray(hi, float) - mean) / sd
    upper = za > 0
    p = np.where(upper, ndtr(-za) - ndtr(-zb), ndtr(zb) - ndtr(za))
    return np.maximum(p, 0.0)


@memo.lru(256, name="dashboard.core.body_model:_band_matrix_cached")
def _band_matrix_cached(means: tuple, sds: tuple, start: float, width: float, n: int, edges: tuple | None = None) -> np.ndarray:
    edges = start + width * np.arange(n + 1) if edges is None else np.asarray(edges, float)
    m = np.asarray(means)[:, None]
    s = np.asarray(sds)[:, None]
    out = interval_probability(m, s, edges[None, :-1], edges[None, 1:])
    out.setflags(write=False)
    return out


def band_matrix(means: Sequence[float], sds: Sequence[float], grid: BandGrid, edges=None) -> np.ndarray:
    """``P[g, j] = Pr_g[band j]`` for normal groups ``g`` on ``grid`` (memoised, read-only).

    ``edges`` (optional, ``grid.n + 1`` values) replaces the grid's own edges, e.g. by
    their logarithms for a log-normal measurement.
    """
    return _band_matrix_cached(
        tuple(float(x) for x in means), tuple(float(x) for x in sds), float(grid.start), float(grid.width), int(grid.n),
        None if edges is None else tuple(float(x) for x in edges),
    )


def bmi_plausible(
    height_centres: np.ndarray, weight_centres: np.ndarray, bmi_range: tuple[float, float] | None = DEFAULT_BMI_RANGE
) -> np.ndarray:
    """Mask ``[h, w]``: BMI = w / (h/100)² at the cell centre lies within ``bmi_range``.

    ``bmi_range=None`` switches the filter off (every cell plausible).
    """
    h = np.asarray(height_centres, float)[:, None]
    w = np.asarray(weight_centres, float)[None, :]
    if bmi_range is None:
        return np.ones((h.shape[0], w.shape[1]), dtype=bool)
    lo, hi = bmi_range
    with np.errstate(divide="ignore", invalid="ignore"):
        bmi = w / (h / 100.0) ** 2
    return (bmi >= lo) & (bmi <= hi) & (h > 0)


def cell_bmi(height_band: tuple[float, float], weight_band: tuple[float, float]) -> float:
    """BMI at the centre of one height × weight cell."""
    h = 0.5 * (height_band[0] + height_band[1])
    w = 0.5 * (weight_band[0] + weight_band[1])
    return w / (h / 100.0) ** 2


@dataclass(frozen=True, eq=False)
class JointBands:
    """Joint band probabilities on a common grid.

    ``prob[sex, age group, h, w] = Σ_g W[sex, age, g] · Pr_g[h-band] · Pr_g[w-band]``;
    over all bands it sums to 1 within ~1e-12 (the grid spans ±10 SD of every
    body group).  Use :meth:`plausible` to leave implausible cells out of
    aggregates — they are masked, never renormalised away.

    The *profile grid* of a sex × age group (:meth:`profile_mask_by_group`) is
    narrower: plausible cells whose centre lies within PROFILE_SDS standard
    deviations, height and weight combined (``z_h² + z_w² ≤ PROFILE_SDS²``), of at
    least one body group that census group mixes (``body_weights[s, a, g] > 0``).
    An ellipse, not a box: a cell 4 SD out in both height and weight (5.7 SD
    jointly) holds ~1e-5 people and is not a combination anyone realistically has.
    ``group_height_core[s, a]`` / ``group_weight_core[s, a]`` bound it (``[lo, hi]``
    from the lowest ``mean − PROFILE_SDS·sd`` to the highest ``mean + PROFILE_SDS·sd``);
    ``height_core`` / ``weight_core`` are the union over all groups.
    """

    height: BandGrid
    weight: BandGrid
    prob: np.ndarray  # (n_sex, n_age, n_h, n_w)
    height_core: tuple[float, float] = (-math.inf, math.inf)  # ±PROFILE_SDS of all body groups
    weight_core: tuple[float, float] = (-math.inf, math.inf)
    group_height_core: np.ndarray | None = None  # (n_sex, n_age, 2): ±PROFILE_SDS of the group's body groups
    group_weight_core: np.ndarray | None = None
    #: (height means, height sds, weight means, weight sds, used[s, a, g]) of the body groups
    body_groups: tuple | None = None
    #: The body model that made ``prob`` (``paper`` or ``v2``).
    model: str = "paper"
    #: v2: ``[s, a, h, w]`` the most probable cells holding ≥ COVERAGE of each group's mass.
    coverage: np.ndarray | None = None

    @property
    def covered_share(self) -> np.ndarray:
        """``[s, a]``: the probability mass of each group's profile grid (v2: ≥ COVERAGE)."""
        mask = self.coverage if self.coverage is not None else self.profile_mask_by_group()
        return np.where(mask, self.prob, 0.0).sum(axis=(2, 3))

    def plausible(self, bmi_range: tuple[float, float] | None = DEFAULT_BMI_RANGE) -> np.ndarray:
        """``[h, w]`` mask of plausible cells (see :func:`bmi_plausible`)."""
        return bmi_plausible(self.height.centres, self.weight.centres, bmi_range)

    def _cores(self, kind: str) -> np.ndarray:
        """``[s, a, 2]`` core ranges of ``kind`` (the union range where none were given)."""
        cores = self.group_height_core if kind == "height" else self.group_weight_core
        if cores is None:
            union = self.height_core if kind == "height" else self.weight_core
            cores = np.broadcast_to(np.asarray(union, float), self.prob.shape[:2] + (2,))
        return np.asarray(cores, float)

    def in_core(self, kind: str) -> np.ndarray:
        """``[s, a, band]``: the ``kind`` band overlaps the sex × age group's ±PROFILE_SDS range."""
        grid = self.height if kind == "height" else self.weight
        cores = self._cores(kind)
        return (grid.hi[None, None, :] > cores[..., 0:1]) & (grid.lo[None, None, :] < cores[..., 1:2])

    def profile_mask_by_group(self, bmi_range: tuple[float, float] | None = DEFAULT_BMI_RANGE) -> np.ndarray:
        """``[s, a, h, w]``: cell ``(h, w)`` belongs to the profile grid of sex × age group ``(s, a)``.

        Plausible (BMI at the centre within ``bmi_range``) and both bands overlapping
        that group's ±PROFILE_SDS range.  Cells outside are not combinations of the
        group: aggregates leave them out, as they leave out implausible cells.

        Under the v2 model nothing is implausible: the grid is the coverage mask
        (the most probable cells holding ≥ COVERAGE of the mass) and ``bmi_range`` is
        ignored.
        """
        if self.coverage is not None:
            return self.coverage
        plausible = self.plausible(bmi_range)[None, None]
        if self.body_groups is None:  # no body groups known: the bounding box of the ranges
            h = self.in_core("height")
            w = self.in_core("weight")
            return plausible & h[..., :, None] & w[..., None, :]
        hm, hs, wm, ws, used = self.body_groups
        zh = (self.height.centres[None, :] - hm[:, None]) / hs[:, None]  # (G, H)
        zw = (self.weight.centres[None, :] - wm[:, None]) / ws[:, None]  # (G, W)
        inside = (zh[:, :, None] ** 2 + zw[:, None, :] ** 2) <= PROFILE_SDS**2  # (G, H, W)
        G, H, W = inside.shape
        near = (used.reshape(-1, G).astype(np.int64) @ inside.reshape(G, -1).astype(np.int64)) > 0
        return plausible & near.reshape(used.shape[:2] + (H, W))

    def profile_mask(self, bmi_range: tuple[float, float] | None = DEFAULT_BMI_RANGE) -> np.ndarray:
        """``[h, w]`` cells in the profile grid of *some* sex × age group (union of :meth:`profile_mask_by_group`)."""
        return self.profile_mask_by_group(bmi_range).any(axis=(0, 1))


# --------------------------------------------------------------------------- the model


from .body_bands import BandProbabilities  # noqa: E402 - the mixin reads this module at call time


@dataclass(frozen=True, eq=False)
class CountryModel(BandProbabilities):
    """One data set as arrays, restricted to a study range.

    ``counts[d, s, a]`` are the study-population counts (trimmed groups already
    scaled).  ``body_weights[s, a, g]`` mixes body groups into census groups;
    ``nearest_body[s, a]`` flags groups that reach beyond the body statistics.
    Build with :func:`load_country_model` (memoised) or :meth:`from_frames`;
    :meth:`with_study` derives the model for another study range.  Hashing is by
    identity, so a model can key caches.
    """

    code: str
    name: str
    district_ids: np.ndarray  # (n_d,) str
    district_names: np.ndarray
    region_ids: np.ndarray
    region_names: np.ndarray
    filled: np.ndarray  # (n_d,) bool
    age_groups: tuple[AgeGroup, ...]
    counts: np.ndarray  # (n_d, n_sex, n_age)
    body: BodyPriors
    body_weights: np.ndarray  # (n_sex, n_age, G)
    nearest_body: np.ndarray  # (n_sex, n_age) bool
    study: tuple[float, float]
    census_groups: tuple[tuple[float, float], ...]  # every published group, hi inf = open
    census_counts: np.ndarray  # (n_d, n_sex, n_census) before the study range
    district_label: str = "district"
    region_label: str = "region"
    notes: tuple[str, ...] = ()
    prior_country_name: str = ""
    aux_tables: Mapping[str, object] | None = None  # id → FractionTable, for models not read from the cache
    cache_root: Path | None = None
    body_model: str = DEFAULT_MODEL  # SPEC §1.6: "v2" or "paper" (:meth:`with_model` switches)
    correlation: pd.DataFrame | None = None  # ρ table (sex, age_from, age_to, rho); None = NHANES
    height_shift: np.ndarray | None = None  # v2: cm added per body group (NCD-RisC cohort shift)
    height_shift_note: str = ""  # … and what the interface says about it
    self_report_correction: bool = False  # v2 option: self-reported statistics corrected to measured
    _family: dict = field(default_factory=dict, repr=False)  # {"home": the model load_country_model keeps}, shared
    __memo_shared__ = True  # memo.nbytes counts a model where it is kept (_FAMILY), not in values referring to it

    # ---- construction

    @classmethod
    def from_frames(
        cls,
        code: str,
        population: pd.DataFrame,
        body_priors: pd.DataFrame,
        *,
        name: str | None = None,
        study: Sequence[float] = DEFAULT_STUDY,
        prior_country: str | None = None,
        borrowed_from: str | None = None,
        prior_source: str | None = None,
        prior_country_name: str | None = None,
        district_label: str = "district",
        region_label: str = "region",
        notes: Iterable[str] = (),
        aux_tables: Mapping[str, object] | None = None,
        cache_root: Path | None = None,
        model: str = DEFAULT_MODEL,
        correlation: pd.DataFrame | None = None,
        height_shift: Sequence[float] | None = None,
        height_shift_note: str = "",
        self_report_correction: bool = False,
    ) -> CountryModel:
        """Build from a population table (``schema.POPULATION_COLUMNS``) and body priors.

        Body-prior metadata defaults to ``body_priors.attrs`` (as returned by
        ``census_loaders.cache.body_priors``).  ``aux_tables`` lets tests resolve
        auxiliary presets by id without a cache.  ``model`` picks the body model;
        ``correlation`` (v2) defaults to the NHANES estimate of the cache;
        ``height_shift`` (cm per row of the body priors sorted by sex and age, v2 only).
        """
        need = ["district_id", "district_name", "region_id", "region_name", "sex", "age_from", "age_to", "count"]
        missing = [c for c in need if c not in population.columns]
        if missing:
            raise ValueError(f"population table lacks column(s) {missing}")
        pop = population
        if "filled" not in pop.columns:
            pop = pop.assign(filled=False)
        body = BodyPriors.from_frame(body_priors, prior_country, borrowed_from, prior_source)
        ids = pop["district_id"].astype(str).to_numpy()
        order_ids, d_idx = np.unique(ids, return_inverse=True)
        sex = pop["sex"].astype(str).to_numpy()
        bad = sorted(set(sex) - set(SEXES))
        if bad:
            raise ValueError(f"population table has unknown sex {bad[0]!r}")
        s_idx = np.where(sex == SEXES[0], 0, 1)
        a_from = pd.to_numeric(pop["age_from"]).to_numpy(dtype=float)
        a_to = pd.to_numeric(pop["age_to"]).to_numpy(dtype=float)
        a_to = np.where(np.isnan(a_to), np.inf, a_to)
        pairs = sorted(set(zip(a_from.tolist(), a_to.tolist())))
        for (l0, h0), (l1, _h1) in itertools.pairwise(pairs):
            if l1 < h0:
                raise ValueError(
                    f"census age groups {format_age_band(l0, h0)} and {format_age_band(l1, _h1)} overlap across districts"
                )
        pair_index = {p: i for i, p in enumerate(pairs)}
        g_idx = np.array([pair_index[p] for p in zip(a_from.tolist(), a_to.tolist())], dtype=np.int64)
        counts = np.zeros((len(order_ids), len(SEXES), len(pairs)))
        np.add.at(counts, (d_idx, s_idx, g_idx), pd.to_numeric(pop["count"]).to_numpy(dtype=float))
        first = np.unique(d_idx, return_index=True)[1]
        filled = np.zeros(len(order_ids), dtype=bool)
        np.logical_or.at(filled, d_idx, pop["filled"].to_numpy(dtype=bool))
        col = lambda c: pop[c].astype(str).to_numpy()[first].astype(object)
        base = cls(
            code=code,
            name=name or code,
            district_ids=order_ids.astype(object),
            district_names=col("district_name"),
            region_ids=col("region_id"),
            region_names=col("region_name"),
            filled=filled,
            age_groups=(),
            counts=np.zeros((len(order_ids), len(SEXES), 0)),
            body=body,
            body_weights=np.zeros((len(SEXES), 0, len(body))),
            nearest_body=np.zeros((len(SEXES), 0), dtype=bool),
            study=(math.nan, math.nan),
            census_groups=tuple(pairs),
            census_counts=counts,
            district_label=district_label,
            region_label=region_label,
            notes=tuple(notes),
            prior_country_name=prior_country_name or (body.borrowed_from or body.country),
            aux_tables=aux_tables,
            cache_root=cache_root,
            body_model=check_model(model),
            correlation=correlation,
            height_shift=None if height_shift is None else np.asarray(height_shift, float),
            height_shift_note=height_shift_note,
            self_report_correction=bool(self_report_correction),
        )
        return base._restricted(check_study(study))

    def _restricted(self, study: tuple[float, float], model: str | None = None,
                    self_report: bool | None = None) -> CountryModel:
        kept, groups = trim_age_groups(self.census_groups, study)
        shares = np.array([g.share for g in groups])
        counts = self.census_counts[:, :, kept] * shares[None, None, :]
        counts.setflags(write=False)
        W, nearest = body_group_weights(groups, self.body)
        return CountryModel(
            code=self.code,
            name=self.name,
            district_ids=self.district_ids,
            district_names=self.district_names,
            region_ids=self.region_ids,
            region_names=self.region_names,
            filled=self.filled,
            age_groups=groups,
            counts=counts,
            body=self.body,
            body_weights=W,
            nearest_body=nearest,
            study=study,
            census_groups=self.census_groups,
            census_counts=self.census_counts,
            district_label=self.district_label,
            region_label=self.region_label,
            notes=self.notes,
            prior_country_name=self.prior_country_name,
            aux_tables=self.aux_tables,
            cache_root=self.cache_root,
            body_model=self.body_model if model is None else model,
            correlation=self.correlation,
            height_shift=self.height_shift,
            height_shift_note=self.height_shift_note,
            self_report_correction=self.self_report_correction if self_report is None else bool(self_report),
            _family=self._family,
        )

    def _variant(self, study: tuple[float, float], model: str, self_report: bool) -> CountryModel:
        key = (study, model, bool(self_report))
        with _LOCK:
            home = self._family.setdefault("home", self)
        if key == (home.study, home.body_model, bool(home.self_report_correction)):
            return home
        return _FAMILY.get((home, key), lambda: home._restricted(study, model, self_report))

    def with_study(self, study: Sequence[float]) -> CountryModel:
        """The same data set restricted to another study range (memoised; same body model)."""
        study = check_study(study)
        if study == self.study:
            return self
        return self._variant(study, self.body_model, self.self_report_correction)

    def with_model(self, model: str = DEFAULT_MODEL, self_report_correction: bool | None = None) -> CountryModel:
        """The same data set under another body model (``v2`` / ``paper``), memoised.

        ``self_report_correction`` (v2 only) corrects self-reported body statistics.
        """
        model = check_model(model)
        sr = self.self_report_correction if self_report_correction is None else bool(self_report_correction)
        if model == self.body_model and sr == self.self_report_correction:
            return self
        return self._variant(self.study, model, sr)

    # ---- lookups

    @property
    def n_districts(self) -> int:
        return len(self.district_ids)

    @property
    def total(self) -> float:
        """The study population of the whole data set."""
        return float(self.counts.sum())

    @property
    def borrowed_from(self) -> str | None:
        return self.body.borrowed_from

    def district_index(self, key: str) -> int:
        """Index of a district given its id or its exact name (case-insensitive)."""
        key = str(key).strip()
        lookup = self._memo("district_lookup", self._district_lookup)
        if key in lookup["id"]:
            return lookup["id"][key]
        hits = lookup["name"].get(key.casefold(), [])
        if len(hits) == 1:
            return hits[0]
        if len(hits) > 1:
            ids = ", ".join(str(self.district_ids[i]) for i in hits[:5])
            raise InputError(f"{self.district_label} name {key!r} is ambiguous in {self.name}: use its code ({ids})")
        raise InputError(f"unknown {self.district_label} {key!r} in {self.name} (give its code, e.g. {self.district_ids[0]})")

    def _district_lookup(self) -> dict:
        names: dict[str, list[int]] = {}
        for i, n in enumerate(self.district_names):
            names.setdefault(str(n).casefold(), []).append(i)
        return {"id": {str(d): i for i, d in enumerate(self.district_ids)}, "name": names}

    def region_members(self, district: int) -> np.ndarray:
        """Indices of every district in the same region as ``district``."""
        return np.flatnonzero(self.region_ids == self.region_ids[district])

    def age_index(self, age: float) -> int:
        """The study age group holding an age in years, or an InputError."""
        age = float(age)
        for a, g in enumerate(self.age_groups):
            lo, hi = g.lo, g.hi
            if lo <= age < hi:
                return a
        raise InputError(
            f"age {age:g} is outside the study population {format_age_band(*self.study)}"
        )

    def body_mapping_note(self, s: int, a: int) -> str:
        """Which body groups a census group uses, naming the nearest-group stand-in."""
        g = self.age_groups[a]
        used = [self.body.label(j) for j in np.flatnonzero(self.body_weights[s, a] > 0)]
        lo = self.body.age_lo[self.body.sex_index == s].min()
        hi = self.body.age_hi[self.body.sex_index == s].max()
        return (
            f"{SEXES[s]} {g.label} reaches beyond the body statistics ({format_age_band(lo, hi)}); "
            f"the nearest body group is used ({', '.join(used)})"
        )

    def _memo(self, key, make):
        return _MODEL_MEMO.get((self, key), make)

    def memo(self, key, make):
        """Public memo API: the value memoised under ``key``, made by ``make()`` (a raising make stores nothing);
        in the byte-bounded model memo, so an old value may be forgotten and made again."""
        return self._memo(("memo", key), make)

    def memo_lru(self, bucket: str, key, make, maxsize: int):
        """A bounded memo on this model: the ``maxsize`` most recently used values of ``bucket`` (thread-safe)."""
        return _MODEL_MEMO.lru_for(self, bucket, key, make, maxsize)

    def forget(self, bucket: str | None = None) -> None:
        """Drop this model's memos: one bucket (``"joints"``, an LRU bucket's name) or, without one, all."""
        _MODEL_MEMO.forget(self, bucket)

    def district_lookup(self) -> dict:
        """``{"id": {district id: index}, "name": {casefolded name: [indices]}}`` (memoised)."""
        return self._memo("district_lookup", self._district_lookup)



# --------------------------------------------------------------------------- from the cache


def _manifest_stamp(root: Path) -> int:
    try:
        return (root / "manifest.json").stat().st_mtime_ns
    except FileNotFoundError:
        return -1


@lru_cache(maxsize=64)  # every data set in the cache (41) stays loaded
def _load_base(code: str, root: Path, stamp: int) -> CountryModel:
    from census_loaders import cache

    info = cache.dataset_info(code, root)
    pop = cache.population(code, root)
    priors = cache.body_priors(code, root)
    lender = priors.attrs.get("borrowed_from") or priors.attrs.get("prior_country")
    lender_name = lender or ""
    if lender:
        try:
            lender_name = cache.dataset_info(lender, root).get("name", lender)
        except KeyError:
            lender_name = lender
    shift, shift_note = None, ""
    borrowed = priors.attrs.get("borrowed_from")
    if borrowed:
        cohorts = _cohort_arrays_cached(str(root), _manifest_stamp(root))
        if cohorts is None:
            shift_note = "No NCD-RisC cohort heights in the cache: the borrowed mean heights are used unchanged."
        else:
            year = int(str(info.get("reference_date") or "2022")[:4])
            body = BodyPriors.from_frame(priors)
            shift, shift_note = cohort_height_shift(cohorts, code, str(borrowed), body, year)
    return CountryModel.from_frames(
        code,
        pop,
        priors,
        name=info.get("name", code),
        study=DEFAULT_STUDY,
        prior_country_name=lender_name,
        district_label=info.get("district_label", "district"),
        region_label=info.get("region_label", "region"),
        notes=info.get("notes", ()),
        cache_root=root,
        height_shift=shift,
        height_shift_note=shift_note,
    )


def load_country_model(code: str, study: Sequence[float] = DEFAULT_STUDY, root: Path | None = None,
                       model: str = DEFAULT_MODEL, self_report_correction: bool = False) -> CountryModel:
    """The model of a cached data set, memoised per cache folder and manifest time.

    ``model`` is the body model (``v2``, the default, or ``paper``; SPEC §1.6).
    Unknown codes raise ``census_loaders.cache.UnknownDataset`` (a KeyError with a
    message listing the known codes); unknown models an InputError.
    """
    from census_loaders.paths import cache_dir

    model = check_model(model)
    root = Path(root) if root is not None else cache_dir()
    base = _load_base(str(code), root, _manifest_stamp(root))
    return base.with_study(study).with_model(model, self_report_correction)
