"""The copula and the latent class model validated side by side (SPEC §5): python benchmarks/bench_models.py

For each data set and choice of quasi-identifiers: fit on a random fraction (10 % unless stated)
``TRIALS`` times, predict the whole data set's share of unique records, and report the mean
absolute error (± s.d. over the trials), the AUC of ξ for "unique in the whole data set" on
held-out records, and the calibration error of ξ on them (record-weighted mean |ξ̂ − share unique|
over ten bins of ξ̂).  Seed 0.  The NHANES row is the issue's: six quasi-identifiers, target MAE ≤ 0.03.
ADULT rows use the PROVENANCE's attribute sets (a)-(c), ``?`` kept as a value.

Last run (2026-11-26, the latent class model with companion columns and the deeper sub-tuples; s = CPU
seconds on 2 shared cores):

    fit on 10%, 10 trials, seed 0
    data set         n empirical | model                     MAE    AUC  calib.      s
    NHANES       5,260     0.732 | copula          0.081 ± 0.012  0.799   0.104    3.7
    NHANES       5,260     0.732 | latent-class    0.024 ± 0.016  0.791   0.078    1.1
    ADULT (a)   32,561     0.017 | copula          0.014 ± 0.001  0.974   0.018    1.0
    ADULT (a)   32,561     0.017 | latent-class    0.001 ± 0.001  0.986   0.008    1.0
    ADULT (b)   32,561     0.172 | copula          0.030 ± 0.004  0.960   0.041    4.0
    ADULT (b)   32,561     0.172 | latent-class    0.006 ± 0.004  0.971   0.023    3.6
    ADULT (c)   32,561     0.762 | copula          0.170 ± 0.002  0.886   0.172   12.5
    ADULT (c)   32,561     0.762 | latent-class    0.010 ± 0.006  0.912   0.056   18.1

NHANES's 0.024 is unchanged by those two (no pair of its six columns is one-to-one, and no 10 % sample
is nearly all unique with two columns left out).
"""
from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from dashboard.core import microdata as M  # noqa: E402

CASES = [
    ("NHANES", "nhanes", ["sex", "age", "race", "education", "marital_status", "household_size"], "drop"),
    ("ADULT (a)", "adult", ["age", "sex", "race", "marital_status"], "value"),
    ("ADULT (b)", "adult", ["age", "sex", "race", "marital_status", "education", "native_country"], "value"),
    ("ADULT (c)", "adult", ["age", "workclass", "education", "marital_status", "occupation", "relationship", "race",
                            "sex", "native_country", "hours_per_week"], "value"),
]


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--trials", type=int, default=10)
    ap.add_argument("--fraction", type=float, default=0.1)
    args = ap.parse_args()
    print(f"fit on {args.fraction:.0%}, {args.trials} trials, seed 0")
    print(f"{'data set':<11} {'n':>6} {'empirical':>9} | {'model':<13} {'MAE':>15} {'AUC':>6} {'calib.':>7} {'s':>6}")
    for label, source, cols, missing in CASES:
        prep = M.prepare(M.shipped_table(source), cols, missing=missing)
        emp = M.empirical(prep.codes)
        for model in M.MODELS:
            t0 = time.process_time()
            v = M.validate_model(model, prep.codes, prep.cards, emp.class_size == 1, args.fraction, args.trials, seed=0)
            cpu = time.process_time() - t0
            print(f"{label:<11} {prep.n:>6,} {emp.uniqueness:>9.3f} | {model:<13} {v['mae']:>7.3f} ± {v['mae_sd']:.3f} "
                  f"{v['auc']:>6.3f} {v['calibration']['error']:>7.3f} {cpu:>6.1f}", flush=True)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
