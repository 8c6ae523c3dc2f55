"""Timings of the attack lab against issue 18's targets (python benchmarks/bench_attack.py).

* one matcher call (one target, m = 8 known ratings) over the whole MovieLens gallery,
  671 users × 9,066 movies — target < 50 ms;
* one full default experiment of ``anonset attack`` (5 sizes × 5 repetitions × every user
  of each gallery a target, then PYC-MB and the baselines with the largest size held out)
  — target < 20 s;
* the attack page's default answer (experiment + jackknife band + the curve against m),
  for information.

Each figure is the median of several repeats; the machine may be shared, so say so when
quoting them.
"""
from __future__ import annotations

import statistics
import sys
import time
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from dashboard.core import attack as sa


def _median_seconds(fn, repeats: int) -> float:
    fn()
    times = []
    for _ in range(repeats):
        start = time.perf_counter()
        fn()
        times.append(time.perf_counter() - start)
    return statistics.median(times)


def main() -> int:
    data = sa.movielens()
    gallery = sa.make_gallery(data)
    cfg = sa.AttackConfig()
    rng = np.random.default_rng(1)
    target = np.array([int(rng.integers(data.n_users))])
    aux = sa.make_aux(data, target, cfg, rng)
    rows = []
    t = _median_seconds(lambda: sa.match(gallery, aux, 1.0, 14.0), 50)
    rows.append((f"one matcher call, {gallery.n} users x {data.n_items:,} items, m = 8", t, 0.05))
    t = _median_seconds(lambda: sa.make_gallery(data), 20)
    rows.append(("building the full gallery (CSC matrices and item weights)", t, None))
    t = _median_seconds(lambda: sa.match(gallery, sa.make_aux(data, np.arange(data.n_users), cfg, rng), 1.0, 14.0), 5)
    rows.append((f"one batch: all {data.n_users} users as targets of the full gallery (aux included)", t, None))
    exp_t = _median_seconds(lambda: sa.run_experiment(data, cfg), 3)
    exp = sa.run_experiment(data, cfg)
    targets = sum(cfg.sizes) * cfg.repeats
    rows.append((f"default experiment: {len(cfg.sizes)} sizes x {cfg.repeats} repeats, {targets:,} targets, + fits",
                 exp_t, 20.0))

    from dashboard.views import attack as view

    def page_default():
        view._RESULTS.clear()
        view._KNOWN_CURVES.clear()
        view.render(view.DEFAULT)

    rows.append(("attack page default answer (cold: experiment, band, curve against m)",
                 _median_seconds(page_default, 2), None))
    width = max(len(r[0]) for r in rows)
    failed = False
    for name, seconds, target_s in rows:
        verdict = ""
        if target_s is not None:
            ok = seconds < target_s
            failed |= not ok
            verdict = f"target < {target_s * 1000:,.0f} ms  {'OK' if ok else 'MISSED'}"
        print(f"{name:<{width}}  {seconds * 1000:9.1f} ms  {verdict}")
    hold = exp.holdout()
    print("default experiment: " + ", ".join(f"n={m.n}: {100 * m.kappa:.2f} %" for m in exp.measured)
          + f"; PYC-MB hold-out: {hold}")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
