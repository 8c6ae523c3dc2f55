"""Time the census partition (SPEC §3, "From a census") on whole countries.

Usage::

    python benchmarks/bench_census_partition.py [--countries DE US] [--repeat 3] [--cache DIR]

For each data set and the default scenario (adults 18–75, 5 cm × 5 kg, both sexes): the
chunked counts of counts (cold: the model and its cells are loaded first, as the running app
keeps them), the Pitman–Yor fit, and the exact κ curve at 243 gallery sizes.  For Germany the
materialised grid (every district × sex × age × height × weight cell at once, what the
chunked walk avoids) is timed beside it and must give identical counts of counts; for the US
that grid would be ~10⁸ cells, so only its size is printed.
"""
from __future__ import annotations

import argparse
import statistics
import sys
import time
import tracemalloc
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from dashboard.core import regions as ag
from dashboard.core import scaling
from dashboard.core.regions import Scenario
from dashboard.core.regions import testing as regions_testing

#: Materialise the full grid for comparison only below this many cells (incl. implausible).
BRUTE_MAX_CELLS = 20_000_000


def _timed(fn, repeat: int):
    times, value = [], None
    for _ in range(repeat):
        t0 = time.perf_counter()
        value = fn()
        times.append(time.perf_counter() - t0)
    return value, statistics.median(times)


def _peak_mib(fn) -> tuple[object, float]:
    tracemalloc.start()
    try:
        value = fn()
        _, peak = tracemalloc.get_traced_memory()
    finally:
        tracemalloc.stop()
    return value, peak / 2**20


def bench(code: str, repeat: int, root: Path | None) -> None:
    s = Scenario(countries=(code,))
    t0 = time.perf_counter()
    b = ag.bind(s, code, root=root)
    load = time.perf_counter() - t0
    D, S, A = b.N.shape
    joint = b.model.joint(s.height_width, s.weight_width)
    full_cells = D * S * A * joint.prob.shape[2] * joint.prob.shape[3]
    (sizes, mult, tot), t_part = _timed(lambda: scaling.partition_of(b.N, b.cells.q, b.cells.valid), repeat)
    _, peak = _peak_mib(lambda: scaling.partition_of(b.N, b.cells.q, b.cells.valid))
    fit, t_fit = _timed(lambda: scaling.fit_partition(sizes, mult), repeat)
    ns = scaling.DEFAULT_NS[scaling.DEFAULT_NS <= float(np.dot(sizes, mult))]
    _, t_exact = _timed(lambda: scaling.kappa_finite_population(ns, sizes, mult), repeat)
    print(f"{code}: {D:,} districts x {S} sexes x {A} ages, {int(b.cells.n_valid.sum()):,} profile-grid "
          f"height x weight cells over the sex x age groups = {tot['cells']:,} cells ({full_cells:,} in the full "
          f"grid); model + cells loaded in {load:.2f} s")
    print(f"  partition (chunked)  {t_part * 1e3:9.1f} ms   peak {peak:7.1f} MiB   "
          f"{int(mult.sum()):,} sets, {sizes.size:,} distinct sizes, largest {int(sizes[-1]):,}")
    print(f"  PY likelihood fit    {t_fit * 1e3:9.1f} ms   h = {fit.h_bits:.3f} bits, gamma = {fit.gamma:.4f}")
    print(f"  exact kappa curve    {t_exact * 1e3:9.1f} ms   ({ns.size} gallery sizes up to the population)")
    if full_cells <= BRUTE_MAX_CELLS:
        def brute():
            grid, mask, _ = regions_testing.reference_grid(s, code, root=root, per_group=True)
            r = np.floor(grid[:, mask] + 0.5).astype(np.int64).ravel()
            return np.unique(r[r > 0], return_counts=True)

        (bs, bm), t_brute = _timed(brute, 1)
        _, bpeak = _peak_mib(brute)
        same = np.array_equal(bs, sizes) and np.array_equal(bm, mult)
        print(f"  materialised grid    {t_brute * 1e3:9.1f} ms   peak {bpeak:7.1f} MiB   "
              f"identical counts of counts: {same}   ({t_brute / t_part:.1f}x the chunked time)")
        if not same:
            raise SystemExit(f"{code}: chunked and materialised counts of counts differ")
    else:
        print(f"  materialised grid    skipped: {full_cells:,} cells would need "
              f"{full_cells * 8 / 2**30:.1f} GiB as float64")


def main(argv=None) -> int:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--countries", nargs="+", default=["DE", "US"])
    p.add_argument("--repeat", type=int, default=3)
    p.add_argument("--cache", type=Path, default=None)
    args = p.parse_args(argv)
    for code in args.countries:
        bench(code, args.repeat, args.cache)
    return 0


if __name__ == "__main__":
    sys.exit(main())
