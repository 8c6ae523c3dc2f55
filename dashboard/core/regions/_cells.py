"""The cells of a scenario (SPEC §1.5): each data set's profile grid, bound to a scenario's sexes, ages and auxiliary knowledge.

A :class:`ProfileCells` holds every plausible height × weight cell of a data set's profile grid with its probability per sex × age group; :func:`bind` multiplies in the census counts and the auxiliary fractions a :class:`~dashboard.core.regions.Scenario` selects (:class:`Bound`). Every aggregate starts here.
"""
from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

import numpy as np

from .. import country
from .. import text as formatting
from ..body import DEFAULT_MODEL, BandGrid
from ..country import CountryModel, load_country_model
from ..errors import InputError
from ..groups import SEXES
from ._memos import BOUND_MEMO, CELLS_MEMO
from ._scenario import Scenario, UserPercent


def readonly(a: np.ndarray) -> np.ndarray:
    a.setflags(write=False)
    return a


def root_key(root: Path | None) -> str | None:
    return None if root is None else str(Path(root))


def scenario_model(code: str, ages: Sequence[float], root: Path | None, model: str = DEFAULT_MODEL,
           self_report: bool = False) -> CountryModel:
    """The memoised model of a data set restricted to the age range; unknown codes are InputErrors."""
    try:
        return load_country_model(code, tuple(ages), root=root, model=model, self_report_correction=self_report)
    except KeyError as exc:
        raise InputError(exc.args[0] if exc.args else f"unknown country or data set {code!r}") from None


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
            *(readonly(x[sex_idx]) for x in (self.q, self.sorted_q, self.cum, self.Q1, self.Q2, self.min_j,
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
    return CELLS_MEMO.get(key, lambda: _make_cells(model, include_body, height_width, weight_width, bmi_range))


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
        height, weight, readonly(h_idx), readonly(w_idx),
        *(readonly(np.ascontiguousarray(x)) for x in (
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
    aux: tuple[country.FractionArray, ...]

    @property
    def n_cells_per_district(self) -> int:
        """Combinations per district: ``Σ_{s, a}`` of each sex × age group's cell count."""
        return int(self.cells.n_valid.sum())


def aux_table(model: CountryModel, item):
    return item.table() if isinstance(item, UserPercent) else country.resolve_aux(model, item)


def bind(scenario: Scenario, code: str, *, root: Path | None = None) -> Bound:
    """Bind ``scenario`` to data set ``code`` (memoised; auxiliary tables via :mod:`.fractions`)."""
    return bind_model(scenario_model(code, scenario.ages, root, scenario.model, scenario.self_report), scenario)


def bind_model(model: CountryModel, scenario: Scenario) -> Bound:
    """Bind ``scenario`` to a given model (e.g. one regrouped by :mod:`.age_grain`), memoised per model."""
    return BOUND_MEMO.get((model, scenario.profile_key), lambda: _make_bound(model, scenario))


def _make_bound(model: CountryModel, scenario: Scenario) -> Bound:
    sex_idx = np.array([SEXES.index(s) for s in scenario.sexes])
    aux = tuple(country.fraction_array(model, aux_table(model, a)) for a in scenario.aux)
    f = np.ones((1, 1, 1))
    for fa in aux:
        f = f * fa.f
    population = model.counts[:, sex_idx, :]
    N = (model.counts * f)[:, sex_idx, :] if aux else population
    cells = profile_cells(model, scenario.include_body, scenario.height_width, scenario.weight_width,
                          scenario.bmi_range).take_sexes(sex_idx)
    return Bound(model, scenario, scenario.sexes, readonly(np.ascontiguousarray(population)),
                 readonly(np.ascontiguousarray(N, dtype=float)), cells, aux)
