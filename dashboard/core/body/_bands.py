"""Height and weight bands (SPEC §1.1): the grid, band probabilities, BMI plausibility.

Bands are half-open and aligned to multiples of their width (:func:`band_of`, :class:`BandGrid`);
:func:`band_matrix` gives every body group's probability of every band (memoised on hashable
keys); :class:`JointBands` holds a sex × age group's joint height × weight probabilities with the
BMI plausibility mask (:func:`bmi_plausible`) and the profile grid of realistic cells.
"""
from __future__ import annotations

import math
from collections.abc import Iterable, Sequence
from dataclasses import dataclass

import numpy as np
from scipy.special import ndtr

from .. import memo
from ..errors import InputError

#: Tolerance for snapping ages and band edges to their grid.
_EPS = 1e-9

#: A height band must start inside this range (cm); a weight band inside the next (kg).
HEIGHT_LIMITS: tuple[float, float] = (50.0, 250.0)
WEIGHT_LIMITS: tuple[float, float] = (20.0, 350.0)
#: The range each band must start in, by measurement.
BAND_LIMITS = {"height": HEIGHT_LIMITS, "weight": WEIGHT_LIMITS}
#: The heights (cm) a person may type for an adult (the study population is adults, SPEC §1.1): the band grid
#: reaches down to 50 cm, but an adult of 50 cm is a typing slip (issue 28), and the body model puts such a
#: height dozens of standard deviations from every group's mean.
ADULT_HEIGHT_LIMITS: tuple[float, float] = (100.0, 250.0)
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


@memo.lru(256, name="dashboard.core.body._bands:_band_matrix_cached")
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
