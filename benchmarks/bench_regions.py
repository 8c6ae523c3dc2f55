"""Time the regional explorer's aggregates on real data (one run each, side by side).

Usage::

    python benchmarks/bench_regions.py [--chunk 256] [--cache DIR]

1. The whole-US person-weighted CDF of CAS with 5 cm × 5 kg bands (200 thresholds):
   the binary-search method of SPEC §1.5 (both orientations) against materialising
   every county × sex × age × height × weight cell.  The full grid would take
   several GB, so the brute force materialises ``--chunk`` counties at a time,
   sorts their CAS values and accumulates; the script prints the grid size and
   the memory one chunk needs.  Target: the fast method ≥ 50× faster, equal to
   1e-9 relative.
   Both body models in one run (``v2``, the default, and ``paper``), with the
   ratio v2 / paper of the fast method (target ≤ 2×) and of binding the scenario
   cold (joint probabilities and profile cells computed).
2. One district-statistics map (every district's statistics) for DE and US:
   cold with the model read from the cache files, cold with the model already in
   memory, and warm (memoised).
"""
from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from census_loaders import cache
from dashboard.core import regions as ag
from dashboard.core.country import _model as bm
from dashboard.core.regions import Scenario
from dashboard.core.regions import testing as regions_testing

TARGET_SPEEDUP = 50.0


def timed(fn):
    t = time.perf_counter()
    value = fn()
    return value, time.perf_counter() - t


def bench_cdf(root: Path | None, chunk: int, body: str = "v2") -> dict:
    scenario = Scenario(countries=("US",), height_width=5, weight_width=5, model=body)
    model = bm.load_country_model("US", root=root, model=body)
    model.v2_params() if body == "v2" else None  # the NHANES ρ read once, as in the running app
    for key in ("joints", "group_joints"):
        model.forget(key)
    ag.clear_caches()
    b, t_bind = timed(lambda: ag.bind(scenario, "US", root=root))  # joint probabilities and profile cells, cold
    D, S, A = b.N.shape
    joint = model.joint(5, 5)
    nh, nw = joint.height.n, joint.weight.n
    full = D * S * A * nh * nw
    plausible = D * b.n_cells_per_district  # each sex × age group's own profile grid
    print(f"Whole-US person-weighted CDF of CAS, 5 cm × 5 kg bands, 200 thresholds 1e-3 … 1e8 — body model {body}")
    print(f"  binding the scenario cold (joint band probabilities + profile cells): {t_bind * 1e3:.0f} ms")
    print(f"  grid: {D:,} counties × {S} sexes × {A} age groups × {nh} × {nw} bands = {full:,} cells "
          f"({plausible:,} in the per-group profile grids); {full * 8 / 1e9:.1f} GB as float64")
    print(f"  brute force materialises {chunk} counties at a time "
          f"({chunk * S * A * nh * nw * 8 / 1e6:,.0f} MB per chunk), sorts their CAS and accumulates")
    xs = ag.DEFAULT_XS
    (fast_p, fast_c), t_fast = timed(lambda: ag.cdf_counts(b.N, b.cells, xs, method="districts"))
    (lit_p, lit_c), t_lit = timed(lambda: ag.cdf_counts(b.N, b.cells, xs, method="cells"))
    (ref, ref_cells, _, n_cells), t_ref = timed(lambda: regions_testing.reference_cdf(scenario, "US", xs, chunk=chunk, root=root))
    same_cells = np.array_equal(fast_c, lit_c) and np.allclose(fast_c / n_cells, ref_cells, rtol=1e-12, atol=0)
    covered = (b.N * b.cells.Q1[None]).sum()  # shares of the people the model covers (SPEC §1.8)
    fast = fast_p / covered
    lit = lit_p / covered
    ok = ref > 0
    err_fast = float(np.max(np.abs(fast[ok] - ref[ok]) / ref[ok]))
    err_lit = float(np.max(np.abs(lit[ok] - ref[ok]) / ref[ok]))
    print(f"  {'method':<58} {'seconds':>9} {'speed-up':>9} {'max rel. diff':>14}")
    print(f"  {'materialise the grid (chunked), sort, accumulate':<58} {t_ref:>9.3f} {'1×':>9} {'–':>14}")
    print(f"  {'binary search, x/p_j among sorted N_d (auto for the US)':<58} {t_fast:>9.3f} "
          f"{t_ref / t_fast:>8.0f}× {err_fast:>14.1e}")
    print(f"  {'binary search, x/N_d among sorted p_j (SPEC wording)':<58} {t_lit:>9.3f} "
          f"{t_ref / t_lit:>8.0f}× {err_lit:>14.1e}")
    verdict = "met" if t_ref / t_fast >= TARGET_SPEEDUP and err_fast <= 1e-9 else "NOT met"
    print(f"  target ≥ {TARGET_SPEEDUP:.0f}× and ≤ 1e-9 relative: {verdict}; "
          f"covered share {covered / b.N.sum():.4f} (the curve ends at {fast[-1]:.4f})")
    print(f"  cell-weighted CDF identical in all three: {same_cells}")
    return {"fast": t_fast, "bind": t_bind, "speedup": t_ref / t_fast, "cells": plausible}


def bench_maps(root: Path | None) -> None:
    scenario = Scenario()
    print("\nOne district-statistics map (default scenario: both sexes, 18–75, 5 cm × 5 kg, BMI 17–30)")
    print(f"  {'data set':<9} {'districts':>9} {'cold, model from files':>23} {'cold, model in memory':>22} {'warm':>10}")
    for code in ("DE", "US"):
        # forget loaded models and parsed parquet files: the first request after a start
        bm._load_base.cache_clear()
        cache.clear_tables()
        ag.clear_caches()
        df, t_files = timed(lambda code=code: ag.district_statistics(scenario, code, root=root))
        ag.clear_caches()
        model = bm.load_country_model(code, root=root)
        model.forget("joints")  # recompute joint probabilities too
        _, t_mem = timed(lambda code=code: ag.district_statistics(scenario, code, root=root))
        _, t_warm = timed(lambda code=code: ag.district_statistics(scenario, code, root=root))
        print(f"  {code:<9} {len(df):>9,} {t_files * 1e3:>20.0f} ms {t_mem * 1e3:>19.0f} ms {t_warm * 1e3:>7.2f} ms")


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--chunk", type=int, default=256, help="counties materialised at a time by the brute force")
    p.add_argument("--cache", help="cache folder (default data_cache/)")
    args = p.parse_args(argv)
    root = Path(args.cache) if args.cache else None
    r = {body: bench_cdf(root, args.chunk, body) for body in ("v2", "paper")}
    print("\nv2 against paper (same run, same machine):")
    for key, what in (("fast", "whole-US CDF, fast method"), ("bind", "binding cold (joint probabilities + cells)")):
        ratio = r["v2"][key] / r["paper"][key]
        verdict = ("target ≤ 2×: " + ("met" if ratio <= 2 else "NOT met")) if key == "fast" else "(no target; memoised)"
        print(f"  {what:<44} v2 {r['v2'][key] * 1e3:8.1f} ms  paper {r['paper'][key] * 1e3:8.1f} ms  "
              f"ratio {ratio:5.2f}×  {verdict}")
    print(f"  profile-grid combinations: v2 {r['v2']['cells']:,}, paper {r['paper']['cells']:,}")
    bench_maps(root)
    return 0


if __name__ == "__main__":
    sys.exit(main())
