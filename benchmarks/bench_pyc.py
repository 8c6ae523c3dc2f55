"""Timings of the PYC law and its fits against their targets (python benchmarks/bench_pyc.py).

Each figure is the median of several repeats, all in one run so the ratios are comparable.
"""
from __future__ import annotations

import base64
import statistics
import sys
import time
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "tests"))  # support.synthetic: the tests' population

from support.synthetic import large_population_by_distinct_sizes  # noqa: E402

from dashboard import forms  # noqa: E402
from dashboard.core import scaling  # noqa: E402
from dashboard.core.errors import InputError  # noqa: E402


def _median_seconds(fn, repeats: int) -> float:
    fn()                                               # warm caches and imports
    times = []
    for _ in range(repeats):
        start = time.perf_counter()
        fn()
        times.append(time.perf_counter() - start)
    return statistics.median(times)


def _stick_breaking_population(records: int, d: float, alpha: float, sticks: int, seed: int):
    """Counts of counts of a population of ``records`` drawn from a truncated PY(d, α) GEM."""
    rng = np.random.default_rng(seed)
    i = np.arange(1, sticks + 1)
    v = rng.beta(1.0 - d, alpha + i * d)
    log_rest = np.concatenate([[0.0], np.cumsum(np.log1p(-v))[:-1]])
    probs = v * np.exp(log_rest)
    probs /= probs.sum()
    counts = rng.multinomial(records, probs)
    counts = counts[counts > 0]
    return np.unique(counts, return_counts=True)


def main() -> int:
    rows = []

    n = np.geomspace(1.0, 1e10, 1000)
    for d, alpha in ((0.5, 1e3), (0.0, 1e18), (-2.0, 2.0 * 1e4)):
        t = _median_seconds(lambda d=d, alpha=alpha: scaling.kappa(n, d, alpha), 25)
        rows.append((f"kappa, 1,000 n in [1, 1e10], d={d:g}, alpha={alpha:.3g}", t, 5e-3))

    sizes, mult = _stick_breaking_population(10_000_000, 0.5, 1000.0, 2_000_000, seed=1)
    records = int(sizes @ mult)
    t = _median_seconds(lambda: scaling.fit_partition(sizes, mult), 5)
    fit = scaling.fit_partition(sizes, mult)
    rows.append((f"likelihood fit, {records:,} records ({sizes.size:,} distinct sizes)", t, 1.0))

    sizes, mult = large_population_by_distinct_sizes()
    t = _median_seconds(lambda: scaling.fit_partition(sizes, mult), 5)
    rows.append((f"likelihood fit, {int(sizes @ mult):,} records ({sizes.size:,} distinct sizes)", t, 3.0))

    gallery = np.array([100, 200, 500, 1000, 2000, 5000, 10_000], dtype=float)
    rng = np.random.default_rng(2)
    kap = np.clip(scaling.kappa_h_gamma(gallery, 10.0, 0.5) + rng.normal(0, 0.002, gallery.size), 0, 1)
    t = _median_seconds(lambda: scaling.fit_pyc_mb(gallery, kap), 7)
    rows.append(("PYC-MB fit, 7 measurements", t, 0.3))

    t = _median_seconds(lambda: scaling.forecast((gallery, kap), at=[1e5, 8e9]), 3)
    rows.append(("forecast: 4 models + holdout refits + jackknife band", t, None))

    t = _median_seconds(lambda: scaling.sample_partition(100_000, 0.5, 10.0, rng), 3)
    rows.append(("Chinese-restaurant sample, 100,000 records", t, 1.0))

    t = _median_seconds(lambda: scaling.sample_partition(100_000, 0.6, 5.0, np.random.default_rng(2)), 3)
    rows.append(("Chinese-restaurant sample, 100,000 records, d=0.6, alpha=5", t, 5.0))

    big = "n,kappa\n" + "".join(f"{i + 2},0.5\n" for i in range(1_000_000))  # 10^6 rows, ~11 MB
    upload = "data:text/csv;base64," + base64.b64encode(big.encode()).decode()

    def refuse():
        try:
            forms.parse_csv(upload, "big.csv")
        except InputError:
            return
        raise AssertionError("an 11 MB CSV was accepted")

    t = _median_seconds(refuse, 5)
    rows.append(("scaling page: an 11 MB CSV refused (forms.parse_csv)", t, 0.5))

    def fmt(seconds: float) -> str:
        return f"{seconds * 1e3:.2f} ms" if seconds < 1 else f"{seconds:.2f} s"

    width = max(len(r[0]) for r in rows)
    print(f"{'benchmark':<{width}}  {'median':>10}  {'target':>11}  ok")
    for label, t, target in rows:
        tgt = f"< {fmt(target)}" if target is not None else "-"
        ok = "-" if target is None else ("yes" if t < target else "NO")
        print(f"{label:<{width}}  {fmt(t):>10}  {tgt:>11}  {ok}")
    print(f"(likelihood fit found d = {fit.d:.4f}, alpha = {fit.alpha:.4g}; population drawn "
          f"from PY(0.5, 1000) by stick-breaking truncated at 2e6 sticks)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
