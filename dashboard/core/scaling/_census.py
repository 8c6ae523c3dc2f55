"""A census scenario as a population partition, and its Pitman–Yor fit (SPEC §3, "From a census").

Each plausible cell of a :class:`~dashboard.core.regions.Scenario` in one data set
(district × sex × age group × height band × weight band, auxiliary knowledge multiplied
in) is one anonymity set of expected size ``CAS_i = N[d, s, a] · p[s, a, j]``.  Rounded to
whole people, ``N_i = ⌊CAS_i + ½⌋`` (half up), the sets form a finite population whose
*counts of counts* — how many sets have each size — is all that
:func:`~dashboard.core.scaling.fit_partition` and
:func:`~dashboard.core.scaling.kappa_finite_population` need.

Never the whole grid at once: the US has ~10⁸ district × sex × age × height × weight cells
at 5 cm × 5 kg.  For one sex × age group the cell probabilities ``p_j`` are the same in every
district, so :func:`census_partition` walks the (sex, age group) pairs and, inside each, chunks
of districts of at most :data:`CHUNK_CELLS` cells, rounding ``N_d · p_j`` and adding the
rounded sizes to a dense ``np.bincount`` table.  Sizes above :data:`DENSE_MAX` (rare: only
without body measurements or in huge districts) go through ``np.unique`` into a sparse table
instead, so there is neither a cap nor a bin: the counts of counts are exact and the memory is
bounded by ``CHUNK_CELLS`` plus ``DENSE_MAX`` counters.

Cells whose expected size rounds to 0 hold no whole person and are no set; how many there
are and the expected people they hold are reported (:attr:`CensusPartition.zero_cells`,
:attr:`CensusPartition.zero_mass`).  The cells are those of the regional explorer's profile
grid (:func:`~dashboard.core.regions.bind`): implausible cells (BMI outside the scenario's
range) and the far tails each sex × age group's grid leaves out are no sets, as in every
aggregate (SPEC §1.5), so both pages describe the same population.  Results are memoised per data set and
:attr:`Scenario.profile_key`.  Nothing here imports Dash.
"""
from __future__ import annotations

import math
import shlex
import time
from dataclasses import dataclass
from pathlib import Path

import numpy as np

from ..errors import InputError
from ..memo import Memo
from ..regions import Scenario, bind, format_range
from ..text import gettext as _
from ._law import as_n, kappa_finite_population
from ._partition_fit import FitResult, fit_partition

#: Rounded sizes up to this are counted in a dense bincount table (512 KiB of counters).
DENSE_MAX = 1 << 16
#: At most this many cells (districts × plausible height × weight cells) are rounded at once.
CHUNK_CELLS = 1 << 20
#: Gallery sizes of the curves: 1 to the world population (8 × 10⁹), log-spaced.
WORLD = 8e9
DEFAULT_NS: np.ndarray = np.unique(np.concatenate([np.geomspace(1.0, WORLD, 241), [1e4, 1e6]]))
DEFAULT_NS.setflags(write=False)


@dataclass(frozen=True, eq=False)
class CensusPartition:
    """The anonymity sets a scenario implies in one data set, as counts of counts.

    ``sizes`` are the distinct rounded set sizes (ascending, ≥ 1) and ``multiplicities``
    how many sets have each; ``records = Σ sizes · multiplicities`` is the population the
    partition describes (everyone in a plausible cell, rounded per cell).  ``expected``
    is ``Σ CAS_i`` before rounding, ``people`` everyone the scenario describes (implausible
    cells included), ``n_cells`` the plausible cells, ``zero_cells`` / ``zero_mass`` the
    cells rounding to 0 and the expected people in them.  ``seconds``: time to build.
    """

    code: str
    name: str
    scenario: Scenario
    sizes: np.ndarray
    multiplicities: np.ndarray
    records: int
    n_sets: int
    n_cells: int
    zero_cells: int
    zero_mass: float
    expected: float
    people: float
    seconds: float

    @property
    def largest(self) -> int:
        return int(self.sizes[-1]) if self.sizes.size else 0

    @property
    def singletons(self) -> int:
        """Sets of exactly one person (the population's own uniques)."""
        return int(self.multiplicities[0]) if self.sizes.size and self.sizes[0] == 1 else 0

    def exact_kappa(self, n):
        """E[κ(n)] of galleries of n drawn without replacement from this population (n ≤ records)."""
        return kappa_finite_population(n, self.sizes, self.multiplicities)

    def to_dict(self) -> dict:
        return {
            "country": self.code, "name": self.name, "scenario": self.scenario.to_query(),
            "records": self.records, "sets": self.n_sets, "cells": self.n_cells,
            "zero_cells": self.zero_cells, "zero_mass": self.zero_mass,
            "expected_people": self.expected, "people": self.people,
            "largest_set": self.largest, "singletons": self.singletons,
            "distinct_sizes": int(self.sizes.size), "seconds": self.seconds,
        }


_PARTITIONS = Memo(16)
_FITS = Memo(16)


def clear_caches() -> None:
    """Forget memoised partitions and fits (tests, benchmarks)."""
    _PARTITIONS.clear()
    _FITS.clear()


def round_half_up(values: np.ndarray) -> np.ndarray:
    """⌊x + ½⌋ as int64: the rounding of expected set sizes to whole people."""
    return np.floor(values + 0.5).astype(np.int64)


class CountsOfCounts:
    """Accumulates rounded set sizes: dense bincount up to DENSE_MAX, np.unique above."""

    def __init__(self, dense_max: int = DENSE_MAX):
        self.dense_max = dense_max
        self.dense = np.zeros(dense_max + 1, dtype=np.int64)
        self.sparse: dict[int, int] = {}

    def add(self, rounded: np.ndarray) -> None:
        r = rounded[rounded > 0]
        if not r.size:
            return
        big = r > self.dense_max
        if big.any():
            u, c = np.unique(r[big], return_counts=True)
            for size, count in zip(u.tolist(), c.tolist(), strict=True):
                self.sparse[size] = self.sparse.get(size, 0) + count
            r = r[~big]
        bc = np.bincount(r)
        self.dense[: bc.size] += bc

    def result(self) -> tuple[np.ndarray, np.ndarray]:
        sizes = np.flatnonzero(self.dense)
        mult = self.dense[sizes]
        if self.sparse:
            extra = np.array(sorted(self.sparse.items()), dtype=np.int64)
            sizes = np.concatenate([sizes, extra[:, 0]])
            mult = np.concatenate([mult, extra[:, 1]])
        return sizes.astype(np.int64), mult.astype(np.int64)


def partition_of(N: np.ndarray, q: np.ndarray, valid: np.ndarray | None = None, chunk_cells: int = CHUNK_CELLS,
                 dense_max: int = DENSE_MAX) -> tuple[np.ndarray, np.ndarray, dict]:
    """Counts of counts of ⌊N[d, s, a] · q[s, a, j] + ½⌋ over all d, s, a, j, chunk by chunk.

    ``N`` is ``[district, sex, age]`` (auxiliary fractions applied), ``q`` the cells'
    probabilities ``[sex, age, cell]`` and ``valid[s, a, j]`` (optional) which cells belong
    to the profile grid of group ``(s, a)`` — the others are no cells at all.  Returns
    ``(sizes, multiplicities, totals)`` with totals ``cells``, ``zero_cells``,
    ``zero_mass`` and ``expected`` (Σ N·q over the cells).
    """
    D, S, A = N.shape
    acc = CountsOfCounts(dense_max)
    cells, zero_cells, zero_mass, expected = 0, 0, 0.0, 0.0
    for s in range(S):
        for a in range(A):
            qj = q[s, a] if valid is None else q[s, a][valid[s, a]]
            rows = max(1, chunk_cells // max(qj.size, 1))
            cells += D * qj.size
            for d0 in range(0, D, rows):
                v = N[d0:d0 + rows, s, a][:, None] * qj[None, :]
                r = round_half_up(v)
                zero = r <= 0
                zero_cells += int(np.count_nonzero(zero))
                zero_mass += float(v[zero].sum())
                expected += float(v.sum())
                acc.add(r.ravel())
    sizes, mult = acc.result()
    return sizes, mult, {"cells": cells, "zero_cells": zero_cells, "zero_mass": zero_mass, "expected": expected}


def census_partition(scenario: Scenario, code: str | None = None, *, root: Path | None = None) -> CensusPartition:
    """The anonymity sets of ``scenario`` in data set ``code`` (default: its first country), memoised."""
    code = scenario.countries[0] if code is None else str(code).strip().upper()
    b = bind(scenario, code, root=root)
    key = (b.model, scenario.profile_key)
    return _PARTITIONS.get(key, lambda: _build(b, scenario, code))


def _build(b, scenario: Scenario, code: str) -> CensusPartition:
    t0 = time.perf_counter()
    sizes, mult, tot = partition_of(b.N, b.cells.q, getattr(b.cells, "valid", None))
    records = int(np.dot(sizes, mult)) if sizes.size else 0
    return CensusPartition(
        code=code, name=b.model.name, scenario=scenario, sizes=_ro(sizes), multiplicities=_ro(mult),
        records=records, n_sets=int(mult.sum()), n_cells=int(tot["cells"]),
        zero_cells=int(tot["zero_cells"]), zero_mass=float(tot["zero_mass"]),
        expected=float(tot["expected"]), people=float(b.N.sum()),
        seconds=time.perf_counter() - t0,
    )


def _ro(a: np.ndarray) -> np.ndarray:
    a.setflags(write=False)
    return a


def census_fit(partition: CensusPartition) -> FitResult:
    """The maximum-likelihood PY(d, α) of a census partition (memoised with it).

    InputError when the partition cannot identify the law (a single set, or every
    person alone in a set).
    """
    if partition.records == 0:
        raise InputError(_("no whole person remains in any plausible cell: every expected set rounds to 0"))
    return _FITS.get(id(partition), lambda: (partition, fit_partition(
        partition.sizes, partition.multiplicities)))[1]


@dataclass(frozen=True, eq=False)
class CensusScaling:
    """Exact and fitted correctness of a census partition at gallery sizes ``n``.

    ``exact[i]`` is the finite-population κ (galleries drawn without replacement), NaN where
    ``n[i]`` exceeds the population; ``pyc[i]`` the fitted law's κ, defined at every n.
    """

    partition: CensusPartition
    fit: FitResult
    n: np.ndarray
    exact: np.ndarray
    pyc: np.ndarray

    def at(self, n: float) -> tuple[float | None, float]:
        """(exact κ or None beyond the population, PYC κ) at one gallery size."""
        exact = self.partition.exact_kappa(n) if n <= self.partition.records else None
        return exact, float(self.fit.kappa(n))

    def max_gap(self) -> float:
        """Largest |exact − PYC| over the gallery sizes inside the population."""
        ok = np.isfinite(self.exact)
        return float(np.max(np.abs(self.exact[ok] - self.pyc[ok]))) if ok.any() else math.nan

    def rows(self) -> list[dict]:
        return [{"n": float(n), "kappa_exact": None if not math.isfinite(e) else float(e), "kappa_pyc": float(p)}
                for n, e, p in zip(self.n, self.exact, self.pyc, strict=True)]


def census_scaling(scenario: Scenario, code: str | None = None, n=None, *, root: Path | None = None) -> CensusScaling:
    """Partition, fit and both κ curves for a scenario (``n`` defaults to :data:`DEFAULT_NS`)."""
    part = census_partition(scenario, code, root=root)
    fit = census_fit(part)
    ns, _scalar = as_n(DEFAULT_NS if n is None else n, "gallery sizes n")
    ns = np.atleast_1d(ns)
    exact = np.full(ns.shape, np.nan)
    inside = ns <= part.records
    if inside.any():
        exact[inside] = np.atleast_1d(part.exact_kappa(ns[inside]))
    return CensusScaling(part, fit, ns, exact, np.atleast_1d(fit.kappa(ns)))


def gallery_sizes(sc: CensusScaling, app_n: float) -> list[float]:
    """The gallery sizes a census table shows: 1,000, 10,000, a million, an app's n, the population, the world."""
    ns = {1e3, 1e4, 1e6, float(app_n), float(sc.partition.records), WORLD}
    return sorted(n for n in ns if n >= 1)


def census_values(sc: CensusScaling, ns) -> dict[float, tuple[float | None, float]]:
    """``sc.at(n)`` for every n, with the exact κ of all n inside the population in one pass over the sets
    (``sc.at`` makes a pass for each n, and the table has six rows)."""
    ns = [float(n) for n in ns]
    inside = [n for n in ns if n <= sc.partition.records]
    exact = dict(zip(inside, np.atleast_1d(sc.partition.exact_kappa(np.array(inside))).tolist())) if inside else {}
    law = np.atleast_1d(sc.fit.kappa(np.array(ns))).tolist()
    return {n: (exact.get(n), kappa) for n, kappa in zip(ns, law, strict=True)}


def with_gallery_size(sc: CensusScaling, n: float, exact: float | None, law: float) -> CensusScaling:
    """``sc`` with gallery size n (κ from :func:`census_values`) on its curves, in order."""
    if np.isin(n, sc.n):
        return sc
    i = int(np.searchsorted(sc.n, n))
    return CensusScaling(sc.partition, sc.fit, np.insert(sc.n, i, n),
                            np.insert(sc.exact, i, math.nan if exact is None else exact), np.insert(sc.pyc, i, law))


def _n_text(x: float) -> str:
    """1000, 44729083, 1e6, 8e9: whole gallery sizes exactly, round large ones in e-notation."""
    x = float(x)
    if x >= 1e6 and float(f"{x:.3g}") == x:
        return f"{x:.3g}".replace("e+0", "e").replace("e+", "e")
    return f"{x:.0f}" if x.is_integer() else repr(x)


def to_cli(scenario: Scenario, code: str | None = None, n=None) -> str:
    """The ``anonset pyc census`` command that reproduces a census view ("reproduce this")."""
    code = scenario.countries[0] if code is None else code
    args = ["anonset", "pyc", "census", "--country", code, "--ages", format_range(scenario.ages),
            *scenario.profile_cli_args()]
    if n is not None:
        args += ["--n", *(_n_text(x) for x in np.atleast_1d(n))]
    return shlex.join(args)
