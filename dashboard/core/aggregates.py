"""Regional aggregates of the conditional anonymity set (SPEC §1.5), for the regional explorer.

The **profile grid** of a :class:`~dashboard.core.scenario.Scenario` in one data set
is every district × chosen sex × study age group × height × weight cell *of that
sex × age group's grid* (or district × sex × age group alone without body
measurements), with the chosen auxiliary knowledge multiplied in::

    CAS[d, s, a, j] = N[d, s, a] · Π_k f_k[d, s, a] · p[s, a, j]

where ``p[s, a, j]`` is the joint band probability of cell ``j``.  The cells of
sex × age group ``(s, a)`` are those of
:meth:`~dashboard.core.body_model.JointBands.profile_mask_by_group`: *plausible*
(centre BMI within the scenario's range) and with both bands overlapping
±``body_model.PROFILE_SDS`` (4) standard deviations of the body groups that census
group mixes.  Any other cell is *left out* of every aggregate of that group —
minimum, maximum, means, both CDFs — and nothing is renormalised: its people are
simply not counted.  The joint grid reaches ±10 SD so that probabilities add up,
but a 210–215 cm, 130–135 kg cell of women aged 18–20 (≈ 7 SD) holding 1e-17 people
would otherwise be every district's "minimum CAS".

Denominators, stated once and used everywhere:

* **people** of a district or country = ``Σ N·Πf`` over the chosen sexes and
  age groups — everyone the scenario describes, in a grid cell or not;
* **plausible people** = ``Σ CAS`` over the profile grid (= people × the
  in-grid mass share; equal to people without body measurements);
* **combinations** = the cells of the profile grid, zero-CAS cells included:
  per district ``Σ_{s, a} J[s, a]`` with ``J[s, a]`` the cell count of group
  ``(s, a)`` (``ProfileCells.n_valid``) — left-out cells are no combinations.

Shares of people are shares of the people the model covers (SPEC §1.8): the
person-weighted CDF (share of *plausible people* whose CAS ≤ x) and the
cell-weighted CDF (share of *combinations* with CAS ≤ x) both rise to 1, and
the covered share ``plausible people / people`` is stated beside them (paper
model: the plausible cells, < 1 with body measurements; v2: ≥ 99.9 %, no cell
is implausible and each sex × age group's grid is its most probable cells
holding at least 99.9 % of its mass).

Thresholds: :func:`country_cdf`, :func:`share_at_most` and ``anonset cdf --at``
count CAS **≤ x** ("at most x"); :func:`share_below` and the district column
``share_below`` count CAS **< k** ("an anonymity set below k", so a set of
exactly k is not below k).  The two differ only where a CAS equals the threshold
exactly (in practice: whole-number counts without body measurements).

Entry points (pure, memoised on hashable arguments, safe to call from several
threads; no Dash): :func:`district_statistics`, :func:`country_cdf`,
:func:`district_cdf`, :func:`share_at_most`, :func:`share_below`,
:func:`country_table`, :func:`district_detail`, :func:`scenario_notes`.
The ``_reference_*`` functions materialise the whole grid; they exist only so
tests and ``benchmarks/bench_regions.py`` can check the fast paths against them.
"""
from __future__ import annotations

import math
from collections.abc import Hashable, Iterable, Sequence
from dataclasses import dataclass
from pathlib import Path

import numpy as np
import pandas as pd

from . import fractions
from . import text as formatting
from .body_model import (
    DEFAULT_MODEL,
    DEFAULT_STUDY,
    SEXES,
    BandGrid,
    CountryModel,
    format_age_band,
    load_country_model,
)
from .errors import InputError
from .memo import Memo
from .scenario import Scenario, UserPercent, check_ages

#: Default thresholds of the CDFs: 200 points, log-spaced from 1e-3 to 1e8 people.
DEFAULT_XS: np.ndarray = np.logspace(-3, 8, 200)
DEFAULT_XS.setflags(write=False)
#: The "x % of people have an anonymity set below k" headline thresholds.
DEFAULT_SHARE_KS: tuple[float, ...] = (5, 20, 100)
#: Country tables: a combination "deviates" when it lies more than this far from the mean.
DEVIATION: float = 0.30
#: CDF evaluation strategies (see :func:`cdf_counts`).
CDF_METHODS: tuple[str, ...] = ("auto", "cells", "districts")


# --------------------------------------------------------------------------- memoisation


_CELLS = Memo(64)
_BOUND = Memo(64)
_STATS = Memo(64)
_CDF = Memo(128)
_TABLE = Memo(256)


def clear_caches() -> None:
    """Forget every memoised aggregate (tests; a rebuilt cache is picked up anyway)."""
    for memo in (_CELLS, _BOUND, _STATS, _CDF, _TABLE):
        memo.clear()


def _readonly(a: np.ndarray) -> np.ndarray:
    a.setflags(write=False)
    return a


def _root_key(root: Path | None) -> str | None:
    return None if root is None else str(Path(root))


def _model(code: str, ages: Sequence[float], root: Path | None, model: str = DEFAULT_MODEL,
           self_report: bool = False) -> CountryModel:
    """The memoised model of a data set restricted to the age range; unknown codes are InputErrors."""
    try:
        return load_country_model(code, tuple(ages), root=root, model=model, self_report_correction=self_report)
    except KeyError as exc:
        raise InputError(exc.args[0] if exc.args else f"unknown country or data set {code!r}") from None


# --------------------------------------------------------------------------- the profile grid


@dataclass(frozen=True, eq=False)
class ProfileCells:
    """The height × weight cells of the profile grid of a model, per sex × age group.

    Cells ``j`` are the union over sex × age groups of their profile grids, in
    row-major ``(h, w)`` order at ``h_idx``/``w_idx`` of the grids; ``valid[s, a, j]``
    says whether cell ``j`` belongs to the grid of group ``(s, a)`` and
    ``n_valid[s, a]`` counts those cells (the group's combinations).  ``q[s, a, j]``
    is the joint probability of a valid cell and **0 for a left-out one** (so sums
    over ``j`` are sums over the group's grid).  ``sorted_q[s, a, :n_valid[s, a]]``
    are the valid cells' probabilities ascending, followed by ``inf`` for the
    left-out ones; ``cum[s, a, i]`` = mass of the ``i`` smallest valid cells (constant
    past ``n_valid``) — together they serve the binary searches.  ``Q1``/``Q2`` are
    ``Σ_j q`` and ``Σ_j q²``; ``min_j``/``max_j`` locate the group's smallest non-zero
    and largest valid cell (−1 when it has none).  Without body measurements there
    is one cell of probability 1.
    """

    height: BandGrid | None
    weight: BandGrid | None
    h_idx: np.ndarray
    w_idx: np.ndarray
    q: np.ndarray
    sorted_q: np.ndarray
    cum: np.ndarray
    Q1: np.ndarray
    Q2: np.ndarray
    min_j: np.ndarray
    max_j: np.ndarray
    valid: np.ndarray  # (S, A, J) bool: cell j is in the grid of (s, a)
    n_valid: np.ndarray  # (S, A) int: cells in the grid of (s, a)

    @property
    def n(self) -> int:
        """Cells of the union grid (the last axis of ``q``); a group's own count is ``n_valid``."""
        return self.q.shape[-1]

    def take_sexes(self, sex_idx: np.ndarray) -> ProfileCells:
        return ProfileCells(
            self.height, self.weight, self.h_idx, self.w_idx,
            *(_readonly(x[sex_idx]) for x in (self.q, self.sorted_q, self.cum, self.Q1, self.Q2, self.min_j,
                                               self.max_j, self.valid, self.n_valid)),
        )

    def band(self, kind: str, j: int) -> tuple[float, float] | None:
        grid, idx = (self.height, self.h_idx) if kind == "height" else (self.weight, self.w_idx)
        if grid is None:
            return None
        i = int(idx[j])
        return (float(grid.lo[i]), float(grid.hi[i]))

    def band_labels(self, kind: str) -> np.ndarray:
        """``170–175 cm`` for every cell (None without body measurements)."""
        grid, idx = (self.height, self.h_idx) if kind == "height" else (self.weight, self.w_idx)
        if grid is None:
            return np.full(self.n, None, dtype=object)
        labels = np.array([formatting.format_band((lo, hi), kind) for lo, hi in zip(grid.lo, grid.hi)], dtype=object)
        return labels[idx]


def profile_cells(
    model: CountryModel,
    include_body: bool = True,
    height_width: float = 5,
    weight_width: float = 5,
    bmi_range: tuple[float, float] | None = (17.0, 30.0),
) -> ProfileCells:
    """The profile-grid cells of ``model`` per sex × age group (memoised per model, widths and BMI range)."""
    key = (model, bool(include_body), float(height_width), float(weight_width), bmi_range if include_body else None)
    return _CELLS.get(key, lambda: _make_cells(model, include_body, height_width, weight_width, bmi_range))


def _make_cells(model, include_body, height_width, weight_width, bmi_range) -> ProfileCells:
    ns, na = model.counts.shape[1:]
    if include_body:
        joint = model.joint(height_width, weight_width)
        by_group = joint.profile_mask_by_group(bmi_range)  # the one definition, in body_model
        h_idx, w_idx = np.nonzero(by_group.any(axis=(0, 1)))
        valid = by_group[:, :, h_idx, w_idx]
        q = np.where(valid, joint.prob[:, :, h_idx, w_idx], 0.0)
        height, weight = joint.height, joint.weight
    else:
        h_idx = w_idx = np.array([-1])
        valid = np.ones((ns, na, 1), dtype=bool)
        q = np.ones((ns, na, 1))
        height = weight = None
    n_valid = valid.sum(axis=2)
    key = np.where(valid, q, np.inf)  # left-out cells sort last, beyond every finite threshold
    sorted_q = np.take_along_axis(key, np.argsort(key, axis=2, kind="stable"), axis=2)
    cum = np.concatenate([np.zeros((ns, na, 1)), np.cumsum(np.where(np.isinf(sorted_q), 0.0, sorted_q), axis=2)],
                         axis=2)
    nz = np.where(valid & (q > 0), q, np.inf)
    min_j = np.where(np.isfinite(nz.min(axis=2, initial=np.inf)), nz.argmin(axis=2) if q.shape[2] else 0, -1)
    mx = np.where(valid, q, -np.inf)
    max_j = np.where(n_valid > 0, mx.argmax(axis=2) if q.shape[2] else 0, -1)
    return ProfileCells(
        height, weight, _readonly(h_idx), _readonly(w_idx),
        *(_readonly(np.ascontiguousarray(x)) for x in (
            q, sorted_q, cum, q.sum(axis=2), (q * q).sum(axis=2), min_j, max_j, valid, n_valid)),
    )


@dataclass(frozen=True, eq=False)
class Bound:
    """A scenario bound to one data set: the arrays every aggregate shares.

    ``population[d, s, a]`` are the study-population counts of the chosen sexes
    (axis 1 follows ``sexes``); ``N`` the same with the auxiliary fractions
    multiplied in, so ``CAS = N[d, s, a] · cells.q[s, a, j]``.
    """

    model: CountryModel
    scenario: Scenario
    sexes: tuple[str, ...]
    population: np.ndarray
    N: np.ndarray
    cells: ProfileCells
    aux: tuple[fractions.FractionArray, ...]

    @property
    def n_cells_per_district(self) -> int:
        """Combinations per district: ``Σ_{s, a}`` of each sex × age group's cell count."""
        return int(self.cells.n_valid.sum())


def _aux_table(model: CountryModel, item):
    return item.table() if isinstance(item, UserPercent) else fractions.resolve_aux(model, item)


def bind(scenario: Scenario, code: str, *, root: Path | None = None) -> Bound:
    """Bind ``scenario`` to data set ``code`` (memoised; auxiliary tables via :mod:`.fractions`)."""
    return bind_model(_model(code, scenario.ages, root, scenario.model, scenario.self_report), scenario)


def bind_model(model: CountryModel, scenario: Scenario) -> Bound:
    """Bind ``scenario`` to a given model (e.g. one regrouped by :mod:`.age_grain`), memoised per model."""
    return _BOUND.get((model, scenario.profile_key), lambda: _make_bound(model, scenario))


def _make_bound(model: CountryModel, scenario: Scenario) -> Bound:
    sex_idx = np.array([SEXES.index(s) for s in scenario.sexes])
    aux = tuple(fractions.fraction_array(model, _aux_table(model, a)) for a in scenario.aux)
    f = np.ones((1, 1, 1))
    for fa in aux:
        f = f * fa.f
    population = model.counts[:, sex_idx, :]
    N = (model.counts * f)[:, sex_idx, :] if aux else population
    cells = profile_cells(model, scenario.include_body, scenario.height_width, scenario.weight_width,
                          scenario.bmi_range).take_sexes(sex_idx)
    return Bound(model, scenario, scenario.sexes, _readonly(np.ascontiguousarray(population)),
                 _readonly(np.ascontiguousarray(N, dtype=float)), cells, aux)


# --------------------------------------------------------------------------- CDFs


def cdf_counts(
    N: np.ndarray, cells: ProfileCells, xs: np.ndarray, *, strict: bool = False, method: str = "auto"
) -> tuple[np.ndarray, np.ndarray]:
    """People and combinations with CAS ≤ x (``strict``: < x) for every threshold, by binary search.

    SPEC §1.5: within a sex × age group the cell probabilities ``p_j`` are the same
    in every district, so district ``d`` and cell ``j`` count at ``x`` iff
    ``N_d · p_j ≤ x``.  Only the group's own cells ``j`` (``cells.valid``) take
    part: a left-out cell is no combination, not even one of CAS 0.
    ``method="cells"`` is the SPEC's wording: ``p_j`` sorted once with their
    cumulative mass, ``x / N_d`` searched among them (D·X searches per group,
    among the group's own ``n_valid`` cells, so a district with ``N_d = 0`` —
    ``x / 0 = inf`` — counts exactly the group's cells).
    ``method="districts"`` swaps the roles — ``N_d`` sorted with their cumulative
    people, ``x / p_j`` searched among them for the group's cells only (J·X
    searches) — and gives the same sums.  ``auto`` takes the one with fewer
    searches.  Nothing of size districts × cells is ever built.
    Returns ``(people, combinations)`` arrays over ``xs``; the people are
    ``Σ N_d · p_j`` over the counted pairs.
    """
    if method not in CDF_METHODS:
        raise InputError(f"unknown CDF method {method!r}; use {', '.join(CDF_METHODS)}")
    xs = np.asarray(xs, dtype=float)
    D, S, A = N.shape
    J = int(cells.n_valid.max()) if cells.n_valid.size else 0
    if method == "auto":
        method = "districts" if D > J else "cells"
    side = "left" if strict else "right"
    people = np.zeros(xs.shape)
    combos = np.zeros(xs.shape, dtype=np.int64)
    with np.errstate(divide="ignore"):
        if method == "cells":
            for s in range(S):
                for a in range(A):
                    n = N[:, s, a]
                    # the group's own cells only: N_d = 0 gives x / 0 = inf, which counts all of them
                    idx = np.searchsorted(cells.sorted_q[s, a, :cells.n_valid[s, a]], xs[None, :] / n[:, None],
                                          side=side)
                    people += (n[:, None] * cells.cum[s, a][idx]).sum(axis=0)
                    combos += idx.sum(axis=0)
        else:
            order = np.argsort(N, axis=0, kind="stable")
            sorted_n = np.take_along_axis(N, order, axis=0)
            cum_n = np.concatenate([np.zeros((1, S, A)), np.cumsum(sorted_n, axis=0)], axis=0)
            for s in range(S):
                for a in range(A):
                    q = cells.sorted_q[s, a, :cells.n_valid[s, a]]  # the group's own cells
                    sn = np.ascontiguousarray(sorted_n[:, s, a])
                    cn = np.ascontiguousarray(cum_n[:, s, a])
                    idx = np.searchsorted(sn, xs[None, :] / q[:, None], side=side)
                    people += q @ cn[idx]  # Σ_j q_j · cum_n[idx_j]: one matrix-vector product
                    combos += idx.sum(axis=0)
    return people, combos


@dataclass(frozen=True, eq=False)
class Cdf:
    """Person- and cell-weighted CDFs of CAS over a country (or one district).

    ``person[i]`` = share of the *people the model covers* whose CAS ≤ ``x[i]``
    (SPEC §1.8: denominator ``plausible_people``, the people in the profile grid's
    cells, so it rises to 1; :attr:`covered_share` of everyone is that many —
    paper: the plausible cells, v2: ≥ 99.9 %); ``cells[i]`` = share of the
    ``n_cells`` combinations with CAS ≤ ``x[i]`` (rises to 1).  ``n_cells`` =
    districts × ``Σ_{s, a}`` of each sex × age group's own cell count: cells
    outside a group's profile grid are no combinations and never counted.
    """

    code: str
    x: np.ndarray
    person: np.ndarray
    cells: np.ndarray
    people: float
    plausible_people: float
    n_cells: int

    @property
    def covered_share(self) -> float:
        """The share of everyone the curve describes (the people in the profile grid's cells)."""
        return self.plausible_share

    @property
    def plausible_share(self) -> float:
        """The share of people in the profile grid's cells: where the person-weighted CDF ends.

        Those cells are plausible and within ±4 SD of their sex × age group's body groups.
        """
        return self.plausible_people / self.people if self.people > 0 else math.nan

    def rows(self) -> list[dict]:
        return [{"x": float(x), "person": float(p), "cells": float(c)} for x, p, c in zip(self.x, self.person, self.cells)]

    def to_dict(self) -> dict:
        return {
            "country": self.code, "people": self.people, "plausible_people": self.plausible_people,
            "plausible_share": self.plausible_share, "covered_people": self.plausible_people,
            "covered_share": self.covered_share, "n_cells": self.n_cells,
            "x": self.x.tolist(), "person": self.person.tolist(), "cells": self.cells.tolist(),
        }


def _xs(xs) -> np.ndarray:
    if xs is None:
        return DEFAULT_XS
    arr = np.asarray(xs, dtype=float).ravel()
    if arr.size == 0 or not np.all(np.isfinite(arr)) or np.any(arr <= 0):
        raise InputError("CDF thresholds must be positive numbers")
    return arr


def _xs_key(xs: np.ndarray) -> Hashable:
    return None if xs is DEFAULT_XS else tuple(xs.tolist())


def _cdf_of(code: str, N: np.ndarray, cells: ProfileCells, xs: np.ndarray, strict: bool, method: str) -> Cdf:
    people_below, combos = cdf_counts(N, cells, xs, strict=strict, method=method)
    people = float(N.sum())
    plausible = float((N * cells.Q1[None]).sum())
    n_cells = N.shape[0] * int(cells.n_valid.sum())
    with np.errstate(invalid="ignore", divide="ignore"):
        person = people_below / plausible if plausible > 0 else np.full(xs.shape, np.nan)
    return Cdf(code, _readonly(xs.copy()), _readonly(person), _readonly(combos / n_cells), people, plausible, n_cells)


def country_cdf(
    scenario: Scenario, code: str, xs=None, *, strict: bool = False, method: str = "auto", root: Path | None = None
) -> Cdf:
    """The person- and cell-weighted CDFs of a whole data set (memoised).

    ``xs`` defaults to :data:`DEFAULT_XS`; ``strict`` counts CAS < x instead of ≤ x.
    """
    xs = _xs(xs)
    b = bind(scenario, code, root=root)
    key = ("country", b.model, scenario.profile_key, _xs_key(xs), bool(strict), method)
    return _CDF.get(key, lambda: _cdf_of(b.model.code, b.N, b.cells, xs, strict, method))


def model_cdf(scenario: Scenario, model: CountryModel, xs=None, *, strict: bool = False) -> Cdf:
    """:func:`country_cdf` of ``scenario`` on a given model (memoised per model)."""
    xs = _xs(xs)
    b = bind_model(model, scenario)
    key = ("country", model, scenario.profile_key, _xs_key(xs), bool(strict), "auto")
    return _CDF.get(key, lambda: _cdf_of(model.code, b.N, b.cells, xs, strict, "auto"))


def cdfs(scenario: Scenario, xs=None, *, root: Path | None = None) -> dict[str, Cdf]:
    """:func:`country_cdf` for every country of the scenario, keyed by code."""
    return {code: country_cdf(scenario, code, xs, root=root) for code in scenario.countries}


def district_cdf(scenario: Scenario, code: str, district: str, xs=None, *, root: Path | None = None) -> Cdf:
    """The CDFs of one district (given by id or exact name)."""
    xs = _xs(xs)
    b = bind(scenario, code, root=root)
    d = b.model.district_index(district)
    return _cdf_of(b.model.code, b.N[d:d + 1], b.cells, xs, False, "cells")


def _shares(scenario: Scenario, values, strict: bool, root) -> dict[str, dict[float, float]]:
    vals = _xs(values)
    out = {}
    for code in scenario.countries:
        c = country_cdf(scenario, code, vals, strict=strict, root=root)
        out[code] = {float(v): float(p) for v, p in zip(vals, c.person)}
    return out


def share_at_most(scenario: Scenario, values: Iterable[float], *, root: Path | None = None) -> dict[str, dict[float, float]]:
    """Per country, the share of people whose CAS is **at most** each value (CAS ≤ x).

    Exactly the person-weighted CDF at those values (what ``anonset cdf --at`` prints);
    the denominator is the people the model covers (SPEC §1.8; :attr:`Cdf.covered_share`).
    """
    return _shares(scenario, list(values), False, root)


def share_below(
    scenario: Scenario, ks: Iterable[float] = DEFAULT_SHARE_KS, *, root: Path | None = None
) -> dict[str, dict[float, float]]:
    """Per country, "x % of people have an anonymity set below k": the share with CAS **< k**.

    Strict, like the district column ``share_below``; :func:`share_at_most` is the
    ≤ counterpart (they differ only for a CAS exactly equal to k).
    """
    return _shares(scenario, list(ks), True, root)


# --------------------------------------------------------------------------- district statistics

STAT_COLUMNS: dict[str, str] = {
    "person_mean": "person_mean", "cell_mean": "cell_mean", "min": "min_cas", "max": "max_cas",
    "share_below": "share_below",
}


def district_statistics(scenario: Scenario, code: str, *, root: Path | None = None) -> pd.DataFrame:
    """Per-district statistics of the profile grid, one row per district (memoised; a fresh copy).

    Columns: ``country, district_id, district_name, region_id, region_name, filled``;
    ``population`` (study population of the chosen sexes and ages), ``people``
    (with auxiliary fractions), ``plausible_people`` (``Σ CAS`` over the profile
    grid), ``n_cells`` (combinations: ``Σ_{s, a}`` of each sex × age group's own
    cell count, the same in every district); every statistic is over those cells
    only — a cell outside a group's grid (implausible, or beyond ±4 SD of its body
    groups) is never a minimum, maximum or combination.  ``min_cas`` (smallest
    non-zero CAS, NaN if none) at
    ``min_sex, min_age, min_height, min_weight``; ``max_cas`` at ``max_*``;
    ``cell_mean`` (``Σ CAS / n_cells``); ``person_mean`` (``Σ CAS² / Σ CAS``);
    ``share_below`` (people with CAS < ``scenario.k`` / the people the model covers,
    ``plausible_people``; SPEC §1.8).  Heights and
    weights are ``None`` without body measurements.  Vectorised over districts.
    """
    b = bind(scenario, code, root=root)
    key = (b.model, scenario.profile_key, scenario.k)
    return _STATS.get(key, lambda: _district_statistics(b, scenario.k)).copy()


def _location_labels(b: Bound) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    """Sex and age label per flattened ``(s, a)``; height and weight label per cell."""
    S, A = b.N.shape[1:]
    sex = np.repeat(np.array(b.sexes, dtype=object), A)
    age = np.tile(np.array([g.label for g in b.model.age_groups], dtype=object), S)
    return sex, age, b.cells.band_labels("height"), b.cells.band_labels("weight")


def _district_statistics(b: Bound, k: float) -> pd.DataFrame:
    m, N, c = b.model, b.N, b.cells
    D, S, A = N.shape
    people = N.sum(axis=(1, 2))
    plausible = (N * c.Q1[None]).sum(axis=(1, 2))
    with np.errstate(invalid="ignore", divide="ignore"):
        person_mean = np.where(plausible > 0, (N * N * c.Q2[None]).sum(axis=(1, 2)) / plausible, np.nan)
    n_cells = int(c.n_valid.sum())
    sa_min_q = np.where(c.min_j >= 0, np.take_along_axis(c.q, np.maximum(c.min_j, 0)[..., None], 2)[..., 0], np.inf)
    sa_max_q = np.where(c.max_j >= 0, np.take_along_axis(c.q, np.maximum(c.max_j, 0)[..., None], 2)[..., 0], 0.0)
    flat = N.reshape(D, S * A)
    cand = np.where(flat > 0, flat * sa_min_q.reshape(-1)[None], np.inf)
    imin = cand.argmin(axis=1)
    vmin = cand[np.arange(D), imin]
    has_min = np.isfinite(vmin)
    cand = flat * sa_max_q.reshape(-1)[None]
    imax = cand.argmax(axis=1)
    vmax = cand[np.arange(D), imax]
    has_max = vmax > 0

    below = np.zeros(D)
    with np.errstate(divide="ignore"):
        for s in range(S):
            for a in range(A):
                n = N[:, s, a]
                idx = np.searchsorted(c.sorted_q[s, a], k / n, side="left")
                below += n * c.cum[s, a][idx]
    with np.errstate(invalid="ignore", divide="ignore"):  # of the people the model covers (SPEC §1.8)
        share = np.where(plausible > 0, below / np.where(plausible > 0, plausible, 1.0), np.nan)

    sex, age, hl, wl = _location_labels(b)
    jmin = c.min_j.reshape(-1)[imin]
    jmax = c.max_j.reshape(-1)[imax]

    def where(ok, values):
        return pd.array(np.where(ok, values, None), dtype="string")

    df = pd.DataFrame({
        "country": pd.array([m.code] * D, dtype="string"),
        "district_id": pd.array(m.district_ids.astype(str), dtype="string"),
        "district_name": pd.array(m.district_names.astype(str), dtype="string"),
        "region_id": pd.array(m.region_ids.astype(str), dtype="string"),
        "region_name": pd.array(m.region_names.astype(str), dtype="string"),
        "filled": np.asarray(m.filled, dtype=bool),
        "population": b.population.sum(axis=(1, 2)),
        "people": people,
        "plausible_people": plausible,
        "n_cells": np.full(D, n_cells, dtype=np.int64),
        "min_cas": np.where(has_min, vmin, np.nan),
        "min_sex": where(has_min, sex[imin]),
        "min_age": where(has_min, age[imin]),
        "min_height": where(has_min, hl[np.maximum(jmin, 0)]),
        "min_weight": where(has_min, wl[np.maximum(jmin, 0)]),
        "max_cas": vmax,
        "max_sex": where(has_max, sex[imax]),
        "max_age": where(has_max, age[imax]),
        "max_height": where(has_max, hl[np.maximum(jmax, 0)]),
        "max_weight": where(has_max, wl[np.maximum(jmax, 0)]),
        "cell_mean": plausible / n_cells if n_cells else np.full(D, np.nan),
        "person_mean": person_mean,
        "share_below": share,
    })
    df.attrs.update(country=m.code, k=float(k), study=m.study, include_body=b.scenario.include_body)
    return df


def district_stat(scenario: Scenario, code: str, stat: str | None = None, *, root: Path | None = None) -> pd.Series:
    """One statistic per district (what the map colours), indexed by district_id."""
    stat = stat or scenario.stat
    if stat not in STAT_COLUMNS:
        raise InputError(f"unknown statistic {stat!r}; choose one of {', '.join(STAT_COLUMNS)}")
    df = district_statistics(scenario, code, root=root)
    return pd.Series(df[STAT_COLUMNS[stat]].to_numpy(), index=pd.Index(df["district_id"], name="district_id"), name=stat)


# --------------------------------------------------------------------------- district detail


@dataclass(frozen=True, eq=False)
class DistrictDetail:
    """What the explorer shows for a clicked district.

    ``stats`` is its row of :func:`district_statistics`; ``distribution`` has one
    row per sex × age group (``population``, ``people``, ``plausible_people``,
    ``share`` of the district's people); ``smallest`` / ``largest`` list its
    smallest non-zero and largest cells with their attribute values and CAS.
    """

    country: str
    district_id: str
    district_name: str
    region_name: str
    filled: bool
    stats: dict
    distribution: pd.DataFrame
    smallest: pd.DataFrame
    largest: pd.DataFrame

    def to_dict(self) -> dict:
        def recs(df):
            return [{k: (None if (isinstance(v, float) and math.isnan(v)) or v is pd.NA else v) for k, v in r.items()}
                    for r in df.to_dict("records")]

        return {
            "country": self.country, "district_id": self.district_id, "district_name": self.district_name,
            "region_name": self.region_name, "filled": self.filled,
            "stats": {k: (None if v is pd.NA else v) for k, v in self.stats.items()},
            "distribution": recs(self.distribution), "smallest": recs(self.smallest), "largest": recs(self.largest),
        }


def district_detail(
    scenario: Scenario, code: str, district: str, n: int = 5, *, root: Path | None = None
) -> DistrictDetail:
    """Sex × age distribution and the ``n`` smallest and largest cells of one district."""
    if int(n) < 1:
        raise InputError("ask for at least one cell")
    b = bind(scenario, code, root=root)
    m = b.model
    d = m.district_index(district)
    sex, age, hl, wl = _location_labels(b)
    pop, Nd = b.population[d].reshape(-1), b.N[d].reshape(-1)
    plaus = (b.N[d] * b.cells.Q1).reshape(-1)
    total = Nd.sum()
    distribution = pd.DataFrame({
        "sex": pd.array(sex, dtype="string"), "age": pd.array(age, dtype="string"),
        "population": pop, "people": Nd, "plausible_people": plaus,
        "share": Nd / total if total > 0 else np.full(Nd.shape, np.nan),
    })
    grid = b.N[d][:, :, None] * b.cells.q  # one district: S × A × J, small; 0 outside a group's grid
    flat = grid.reshape(-1)
    own = b.cells.valid.reshape(-1)  # only a group's own cells are its combinations
    J = b.cells.n
    sa, j = np.divmod(np.arange(flat.size), J)

    def cells_frame(idx):
        return pd.DataFrame({
            "sex": pd.array(sex[sa[idx]], dtype="string"), "age": pd.array(age[sa[idx]], dtype="string"),
            "height": pd.array(hl[j[idx]], dtype="string"), "weight": pd.array(wl[j[idx]], dtype="string"),
            "cas": flat[idx],
        })

    nz = np.flatnonzero((flat > 0) & own)
    smallest = nz[np.argsort(flat[nz], kind="stable")[: int(n)]]
    largest = nz[np.argsort(-flat[nz], kind="stable")[: int(n)]]
    stats = district_statistics(scenario, code, root=root).iloc[d].to_dict()
    stats = {k: (v.item() if isinstance(v, np.generic) else v) for k, v in stats.items()}
    return DistrictDetail(
        m.code, str(m.district_ids[d]), str(m.district_names[d]), str(m.region_names[d]), bool(m.filled[d]),
        stats, distribution, cells_frame(smallest), cells_frame(largest),
    )


# --------------------------------------------------------------------------- notes


def scenario_notes(scenario: Scenario, code: str, *, root: Path | None = None) -> tuple[str, ...]:
    """What the explorer must say beside a country's numbers (borrowed statistics, fills, gaps)."""
    b = bind(scenario, code, root=root)
    m = b.model
    notes = []
    if scenario.include_body and m.borrowed_from:
        notes.append(f"{m.name} has no body statistics of its own; those of {m.prior_country_name or m.borrowed_from} are used.")
    if scenario.include_body and m.nearest_body.any():
        notes.append("Some age groups reach beyond the body statistics; the nearest body group is used for them.")
    trimmed = [g.label for g in m.age_groups if g.trimmed]
    if trimmed:
        notes.append(f"Age groups trimmed to the study range {format_age_band(*m.study)}: {', '.join(trimmed)}.")
    if m.filled.any():
        notes.append(f"{int(m.filled.sum())} {formatting.plural(m.district_label)} are filled from their {m.region_label}'s remainder (SPEC §1.4).")
    if scenario.include_body and scenario.model == "paper":
        notes.append(f"Cells with a BMI outside {scenario.bmi_range[0]:g}–{scenario.bmi_range[1]:g} at their centre are left out.")
    if scenario.include_body:
        notes.extend(m.model_notes()[1:] if scenario.model == "paper" else m.model_notes())
        c = country_cdf(scenario, code, root=root)
        notes.append(f"Shares are of the people the model covers: {c.covered_share:.1%} of the "
                     f"{formatting.format_count(c.people)} people described.")
    for fa in b.aux:
        notes.extend(fa.gaps)
        if fa.note:
            notes.append(f"{fa.name}: {fa.note}")
    return tuple(notes)


# --------------------------------------------------------------------------- country tables


def sex_table(values: np.ndarray, district_ids: Sequence[str], district_names: Sequence[str],
              age_labels: Sequence[str]) -> dict:
    """Country-table quantities of one sex from ``values[d, a]`` (CAS = census count; SPEC §1.5).

    * ``min_cas``: smallest non-zero value, with its district and age group;
    * ``cell_mean``: mean over all ``d × a`` combinations (zeros included);
    * ``share_deviating``: share of combinations with ``|v − mean| > 30 % · mean``;
    * quartile trimming by rank: with ``n`` combinations sorted ascending and
      ``q = ⌊n/4⌋``, ``mean_without_top_quartile`` averages the ``n − q`` smallest,
      ``mean_middle_half`` the values of rank ``q … n−q−1``; each also as a
      percentage of ``cell_mean``.
    """
    v = np.asarray(values, dtype=float)
    flat = v.reshape(-1)
    n = flat.size
    out: dict = {"n_cells": n, "population": float(flat.sum())}
    nz = np.flatnonzero(flat > 0)
    if nz.size:
        i = nz[np.argmin(flat[nz])]
        d, a = np.unravel_index(i, v.shape)
        out.update(min_cas=float(flat[i]), min_district_id=str(district_ids[d]),
                   min_district_name=str(district_names[d]), min_age=str(age_labels[a]))
    else:
        out.update(min_cas=math.nan, min_district_id=None, min_district_name=None, min_age=None)
    mean = float(flat.mean()) if n else math.nan
    out["cell_mean"] = mean
    out["share_deviating"] = float(np.mean(np.abs(flat - mean) > DEVIATION * mean)) if n else math.nan
    srt = np.sort(flat)
    q = n // 4
    top = float(srt[: n - q].mean()) if n else math.nan
    mid = float(srt[q: n - q].mean()) if n else math.nan
    pct = (lambda x: 100.0 * x / mean) if mean > 0 else (lambda x: math.nan)
    out.update(mean_without_top_quartile=top, mean_without_top_quartile_pct=pct(top),
               mean_middle_half=mid, mean_middle_half_pct=pct(mid))
    return out


TABLE_COLUMNS = (
    "country", "name", "sex", "ages", "districts", "n_cells", "population", "min_cas", "min_district_id",
    "min_district_name", "min_age", "cell_mean", "male_female_ratio", "share_deviating",
    "mean_without_top_quartile", "mean_without_top_quartile_pct", "mean_middle_half", "mean_middle_half_pct",
)


def country_rows(code: str, ages: Sequence[float] = DEFAULT_STUDY, *, root: Path | None = None) -> tuple[dict, ...]:
    """The two rows (female, male) of one data set's country table (memoised per model and ages)."""
    ages = check_ages(ages)
    # Keyed by the cache's manifest time, not the model: the body model keeps only a
    # few data sets loaded, and a table of all 41 must not reload them every time.
    key = (str(code), ages, _root_key(root), _manifest_time(root))
    return _TABLE.get(key, lambda: _country_rows(_model(code, ages, root)))


def _manifest_time(root: Path | None) -> int:
    from census_loaders.paths import cache_dir

    try:
        return (Path(root) if root is not None else cache_dir()).joinpath("manifest.json").stat().st_mtime_ns
    except FileNotFoundError:
        return -1


def _country_rows(m: CountryModel) -> tuple[dict, ...]:
    labels = [g.label for g in m.age_groups]
    rows = []
    for s, sex in enumerate(SEXES):
        row = {"country": m.code, "name": m.name, "sex": sex, "ages": format_age_band(*m.study),
               "districts": m.n_districts}
        row.update(sex_table(m.counts[:, s, :], m.district_ids, m.district_names, labels))
        rows.append(row)
    f, ml = rows[0]["cell_mean"], rows[1]["cell_mean"]
    ratio = ml / f if f > 0 else math.nan
    for row in rows:
        row["male_female_ratio"] = ratio
    return tuple(rows)


def country_table(
    codes: Iterable[str] | None = None, ages: Sequence[float] = DEFAULT_STUDY, *, root: Path | None = None
) -> pd.DataFrame:
    """Country tables (district × sex × age only): one row per data set and sex.

    ``codes`` defaults to every data set in the cache; ``ages`` is the study range
    (default 18–75; the published comparisons used 15–85).  The male/female ratio
    is of the cell means and repeats on both rows of a country.
    """
    if codes is None:
        from census_loaders import cache

        codes = cache.countries(root)
    codes = [str(c).strip().upper() for c in codes]
    if not codes:
        raise InputError("choose at least one country")
    rows = [row for code in codes for row in country_rows(code, ages, root=root)]
    df = pd.DataFrame(rows, columns=list(TABLE_COLUMNS))
    for col in ("country", "name", "sex", "ages", "min_district_id", "min_district_name", "min_age"):
        df[col] = df[col].astype("string")
    return df


# --------------------------------------------------------------------------- brute-force reference (tests only)


def _reference_grid(scenario: Scenario, code: str, districts: Sequence[int] | None = None, *,
                    root: Path | None = None, per_group: bool = False) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """The materialised grid ``cas[d, s, a, h, w]``, the profile-grid mask and ``N[d, s, a]``.

    The mask is :meth:`~dashboard.core.body_model.JointBands.profile_mask_by_group`
    for the chosen sexes, ``[s, a, h, w]``, with ``per_group``; otherwise its union
    over all the model's groups, ``[h, w]`` (the cells ``j`` of :class:`ProfileCells`,
    in the same order).  ``cas`` is 0 outside each group's own grid, so
    ``cas[:, :, :, union]`` is ``N · ProfileCells.q``; only ``cas[:, mask]`` with the
    per-group mask holds exactly the combinations.  For tests and the benchmark
    only: it is districts × sexes × ages × heights × weights large.  Without body
    measurements ``h`` and ``w`` have length 1.
    """
    model = _model(code, scenario.ages, root, scenario.model, scenario.self_report)
    sex_idx = np.array([SEXES.index(s) for s in scenario.sexes])
    counts = model.counts
    for item in scenario.aux:
        counts = counts * fractions.fraction_array(model, _aux_table(model, item)).f
    N = counts[:, sex_idx, :]
    if districts is not None:
        N = N[np.asarray(districts)]
    if scenario.include_body:
        joint = model.joint(scenario.height_width, scenario.weight_width)
        by_group = joint.profile_mask_by_group(scenario.bmi_range)
        union = by_group.any(axis=(0, 1))
        by_group = by_group[sex_idx]
        prob = np.where(by_group, joint.prob[sex_idx], 0.0)
    else:
        prob = np.ones((len(sex_idx), N.shape[2], 1, 1))
        by_group, union = np.ones(prob.shape, dtype=bool), np.ones((1, 1), dtype=bool)
    return N[:, :, :, None, None] * prob[None], (by_group if per_group else union), N


def _reference_cdf(scenario: Scenario, code: str, xs=None, districts: Sequence[int] | None = None, *,
                   chunk: int = 256, strict: bool = False, root: Path | None = None) -> tuple[np.ndarray, np.ndarray, float, int]:
    """Brute force: materialise every cell's CAS (``chunk`` districts at a time), keep each
    sex × age group's own cells (the per-group mask), sort, accumulate.

    Returns ``(person share, cell share, people, n_cells)`` over ``xs``.
    """
    xs = _xs(xs)
    model = _model(code, scenario.ages, root, scenario.model, scenario.self_report)
    idx = np.arange(model.n_districts) if districts is None else np.asarray(districts)
    people_below = np.zeros(xs.shape)
    combos = np.zeros(xs.shape)
    people, covered, n_cells = 0.0, 0.0, 0
    side = "left" if strict else "right"
    for start in range(0, len(idx), chunk):
        grid, mask, N = _reference_grid(scenario, code, idx[start:start + chunk], root=root, per_group=True)
        v = np.sort(grid[:, mask].ravel())
        cs = np.concatenate([[0.0], np.cumsum(v)])
        k = np.searchsorted(v, xs, side=side)
        people_below += cs[k]
        combos += k
        people += float(N.sum())
        covered += float(v.sum())
        n_cells += v.size
    return people_below / covered, combos / n_cells, people, n_cells


def _reference_district_statistics(scenario: Scenario, code: str, districts: Sequence[int] | None = None, *,
                                   root: Path | None = None) -> pd.DataFrame:
    """Brute force of :func:`district_statistics`'s numbers and locations.

    Over each sex × age group's own cells only (the per-group mask).  ``min_flat`` /
    ``max_flat`` index the flattened ``(s, a, j)`` with ``j`` the union cells of
    :class:`ProfileCells` (decode with ``divmod(flat, cells.n)``).
    """
    grid, mask, N = _reference_grid(scenario, code, districts, root=root, per_group=True)
    D = grid.shape[0]
    if scenario.include_body:  # the union over every group of the model, both sexes: ProfileCells' cells j
        union = _model(code, scenario.ages, root, scenario.model, scenario.self_report).joint(scenario.height_width, scenario.weight_width).profile_mask(
            scenario.bmi_range)
    else:
        union = np.ones((1, 1), dtype=bool)
    v = grid[:, mask]  # (d, every group's own cells) in (s, a, h, w) order
    # where each kept cell sits in (s, a, union cell j) order, to name the location
    S, A = mask.shape[:2]
    j_of_hw = np.cumsum(union.ravel()).reshape(union.shape) - 1
    sa_of, hw_of = np.divmod(np.flatnonzero(mask.reshape(S * A, -1)), union.size)
    flat_of = sa_of * int(union.sum()) + j_of_hw.ravel()[hw_of]
    people = N.reshape(D, -1).sum(axis=1)
    tot = v.sum(axis=1)
    nzv = np.where(v > 0, v, np.inf)
    imin, imax = nzv.argmin(axis=1), v.argmax(axis=1)
    vmin = nzv[np.arange(D), imin]
    with np.errstate(invalid="ignore", divide="ignore"):
        return pd.DataFrame({
            "people": people,
            "plausible_people": tot,
            "n_cells": np.full(D, v.shape[1]),
            "min_cas": np.where(np.isfinite(vmin), vmin, np.nan),
            "min_flat": flat_of[imin],
            "max_cas": v[np.arange(D), imax],
            "max_flat": flat_of[imax],
            "cell_mean": v.mean(axis=1),
            "person_mean": (v * v).sum(axis=1) / tot,
            "share_below": np.where(v < scenario.k, v, 0.0).sum(axis=1) / tot,
        })
