"""Person- and cell-weighted CDFs of the anonymity set over a country or one district (SPEC §1.5).

:func:`share_at_most` counts CAS **≤ x** ("at most x"); :func:`share_below` counts CAS **< k** ("an anonymity set below k", so a set of exactly k is not below k).
"""
from __future__ import annotations

import math
from collections.abc import Hashable, Iterable
from dataclasses import dataclass
from pathlib import Path

import numpy as np

from ..country import CountryModel
from ..errors import InputError
from ._cells import ProfileCells, bind, bind_model, readonly
from ._memos import CDF_MEMO
from ._scenario import Scenario

#: Default thresholds of the CDFs: 200 points, log-spaced from 1e-3 to 1e8 people.
DEFAULT_XS: np.ndarray = np.logspace(-3, 8, 200)
DEFAULT_XS.setflags(write=False)
#: The "x % of people have an anonymity set below k" headline thresholds.
DEFAULT_SHARE_KS: tuple[float, ...] = (5, 20, 100)


#: CDF evaluation strategies (see :func:`cdf_counts`).
CDF_METHODS: tuple[str, ...] = ("auto", "cells", "districts")


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


def cdf_thresholds(xs) -> np.ndarray:
    if xs is None:
        return DEFAULT_XS
    arr = np.asarray(xs, dtype=float).ravel()
    if arr.size == 0 or not np.all(np.isfinite(arr)) or np.any(arr <= 0):
        raise InputError("CDF thresholds must be positive numbers")
    return arr


def thresholds_key(xs: np.ndarray) -> Hashable:
    return None if xs is DEFAULT_XS else tuple(xs.tolist())


def _cdf_of(code: str, N: np.ndarray, cells: ProfileCells, xs: np.ndarray, strict: bool, method: str) -> Cdf:
    people_below, combos = cdf_counts(N, cells, xs, strict=strict, method=method)
    people = float(N.sum())
    plausible = float((N * cells.Q1[None]).sum())
    n_cells = N.shape[0] * int(cells.n_valid.sum())
    with np.errstate(invalid="ignore", divide="ignore"):
        person = people_below / plausible if plausible > 0 else np.full(xs.shape, np.nan)
    return Cdf(code, readonly(xs.copy()), readonly(person), readonly(combos / n_cells), people, plausible, n_cells)


def country_cdf(
    scenario: Scenario, code: str, xs=None, *, strict: bool = False, method: str = "auto", root: Path | None = None
) -> Cdf:
    """The person- and cell-weighted CDFs of a whole data set (memoised).

    ``xs`` defaults to :data:`DEFAULT_XS`; ``strict`` counts CAS < x instead of ≤ x.
    """
    xs = cdf_thresholds(xs)
    b = bind(scenario, code, root=root)
    key = ("country", b.model, scenario.profile_key, thresholds_key(xs), bool(strict), method)
    return CDF_MEMO.get(key, lambda: _cdf_of(b.model.code, b.N, b.cells, xs, strict, method))


def model_cdf(scenario: Scenario, model: CountryModel, xs=None, *, strict: bool = False) -> Cdf:
    """:func:`country_cdf` of ``scenario`` on a given model (memoised per model)."""
    xs = cdf_thresholds(xs)
    b = bind_model(model, scenario)
    key = ("country", model, scenario.profile_key, thresholds_key(xs), bool(strict), "auto")
    return CDF_MEMO.get(key, lambda: _cdf_of(model.code, b.N, b.cells, xs, strict, "auto"))


def cdfs(scenario: Scenario, xs=None, *, root: Path | None = None) -> dict[str, Cdf]:
    """:func:`country_cdf` for every country of the scenario, keyed by code."""
    return {code: country_cdf(scenario, code, xs, root=root) for code in scenario.countries}


def district_cdf(scenario: Scenario, code: str, district: str, xs=None, *, root: Path | None = None) -> Cdf:
    """The CDFs of one district (given by id or exact name)."""
    xs = cdf_thresholds(xs)
    b = bind(scenario, code, root=root)
    d = b.model.district_index(district)
    return _cdf_of(b.model.code, b.N[d:d + 1], b.cells, xs, False, "cells")


def _shares(scenario: Scenario, values, strict: bool, root) -> dict[str, dict[float, float]]:
    vals = cdf_thresholds(values)
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
