"""Rocher et al. (2019) Table 1, ADULT column, reproduced: python benchmarks/bench_adult_table1.py

Populations: 50 random attribute subsets of ADULT (the 32,561 records of ``adult.data``), drawn with
seed 2019 as the paper's Methods describe ("selecting subsets of attributes uniformly"): the number
of attributes k uniformly in 2…14, then k attributes uniformly without replacement from the 14
attributes other than ``fnlwgt`` (a survey weight, not something known about a person; with it
nearly every record is unique, while the paper's ADULT populations reach at most Ξ = 0.794).
``?`` is kept as a value (the PROVENANCE's convention), numeric attributes are exact, and every
record is kept (duplicates too).  The population's uniqueness is the share of its records unique
on the subset.

For each population and sampling fraction (100 %, 10 %, 5 %, 1 %) one trial (the paper ran 100):
fit the model on a random sample of that fraction (at least 50 records, as the paper requires),
predict the population's uniqueness as the mean of ξ̂ = (1 − p̂)^(n − 1) over the sample (at most
5,000 records of it, seeded), and take the absolute error.  Printed: the MAE, mean ± s.d. over the
50 populations, for the Gaussian copula and the latent class model, beside the paper's figures.

Last run (2026-11-26, latent class model with companion columns and the deeper sub-tuples; 2 shared
cores under a load of 8-10): 335 s CPU, 1,346 s wall (the issue's 10 minutes judged on CPU seconds:
the wall clock here is mostly the neighbours'):

     fraction |  paper (copula) |          copula |    latent-class
         100% | 0.018 ± 0.016   |   0.117 ± 0.097 |   0.005 ± 0.005
          10% | 0.022 ± 0.020   |   0.116 ± 0.097 |   0.005 ± 0.004
           5% | 0.027 ± 0.023   |   0.116 ± 0.097 |   0.009 ± 0.008
           1% | 0.027 ± 0.014   |   0.109 ± 0.096 |   0.025 ± 0.024

Held out (``--seed 2020``: 50 other subsets and samples; the two changes were chosen on seed 2019
and only checked here; 319 s CPU):

     fraction |  paper (copula) |          copula |    latent-class
         100% | 0.018 ± 0.016   |   0.113 ± 0.094 |   0.007 ± 0.005
          10% | 0.022 ± 0.020   |   0.112 ± 0.093 |   0.005 ± 0.004
           5% | 0.027 ± 0.023   |   0.110 ± 0.093 |   0.009 ± 0.008
           1% | 0.027 ± 0.014   |   0.099 ± 0.093 |   0.022 ± 0.024

What moved the 1 % row (the same samples, latent class model only; mean absolute error, seed 2019 /
seed 2020): the rule with one or two columns left out, 0.030 / 0.030; with companion columns
(``education`` and ``education_num`` modelled as one where both are chosen), 0.026 / 0.026; with
three or more columns left out while the sample is nearly all unique, 0.027 / 0.027; both (the
default), 0.025 / 0.022.  A prior four or sixteen times as strong (1 or 4 pseudo-records per class
instead of 0.25) gave 0.024 and 0.026 on seed 2019: not adopted.  The other rules at 1 % (seed 2019):
BIC 0.080, held-out likelihood 0.076, both overstating (too few classes).  The rule that matched the
full tuple's share unique alone gave 0.013 / 0.029 / 0.048 / 0.104 in 21 minutes.  At 1 % most of the
remaining error is the 326-record sample itself (refitting one sample with other seeds moves Ξ̂ by
0.01-0.02, drawing another sample by 0.05-0.1).

AnonSet's copula overstates uniqueness on ADULT's wide subsets by about 0.1 where the paper's is
within 0.02.  ``benchmarks/diag_copula_paper.py`` locates it in two steps of the paper's Methods that
ours does differently: its pairwise correlation matches each pair's mutual information (ours
maximises the pair's likelihood, which for a nominal column in a random order finds almost no
dependence), and its population uniqueness is the share unique among n records drawn from the model
(its eq. 16; ours, as SPEC §5 says, is the mean of ξ over the real records).  Both together bring the
copula's error at 100 % from 0.04-0.26 to 0.01-0.14 on the five populations tried there; neither alone
does (mutual information with the mean of ξ over the real records: +0.09 to +0.33).  AnonSet keeps
SPEC §5's estimator; the latent class model is the default wherever it validates better.

Caveat: at 100 % the latent class model has seen every record whose uniqueness it predicts (its class
count matches the unique shares of those records on sub-tuples), so the smaller fractions are the
real test.
"""
from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from dashboard.core import microdata as M  # noqa: E402

SEED = 2019
POPULATIONS = 50
FRACTIONS = (1.0, 0.10, 0.05, 0.01)
PAPER = {1.0: (0.018, 0.016), 0.10: (0.022, 0.020), 0.05: (0.027, 0.023), 0.01: (0.027, 0.014)}
MEAN_RECORDS = 5_000
POOL = ["age", "workclass", "education", "education_num", "marital_status", "occupation", "relationship", "race",
        "sex", "capital_gain", "capital_loss", "hours_per_week", "native_country", "income"]


def subsets(rng: np.random.Generator, count: int) -> list[list[str]]:
    out = []
    for _ in range(count):
        k = int(rng.integers(2, len(POOL) + 1))
        out.append([POOL[i] for i in sorted(rng.choice(len(POOL), k, replace=False))])
    return out


def predicted(model_name: str, codes: np.ndarray, cards, n: int, rng: np.random.Generator, seed: int) -> float:
    model = M.fit_model(model_name, codes, cards, seed=seed)
    rows = codes if codes.shape[0] <= MEAN_RECORDS else codes[np.sort(rng.choice(codes.shape[0], MEAN_RECORDS,
                                                                                   replace=False))]
    p, _ = model.cell_prob(rows, seed=seed)
    return float(M.uniqueness(p, n).mean())


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--populations", type=int, default=POPULATIONS)
    ap.add_argument("--models", default=",".join(M.MODELS))
    ap.add_argument("--seed", type=int, default=SEED, help=f"seed of the subsets and samples (default {SEED}, the "
                    "table quoted; another seed is a held-out check that nothing was fitted to this one)")
    args = ap.parse_args()
    models = [m.strip() for m in args.models.split(",") if m.strip()]
    table = M.adult_table()
    rng = np.random.default_rng(args.seed)
    pops = subsets(rng, args.populations)
    errors = {(m, f): [] for m in models for f in FRACTIONS}
    truth = []
    t_start, c_start = time.perf_counter(), time.process_time()
    for i, cols in enumerate(pops):
        prep = M.prepare(table, cols, missing="value")
        n = prep.n
        emp = M.empirical(prep.codes).uniqueness
        truth.append(emp)
        line = [f"{i + 1:>2} k={len(cols):>2} Xi={emp:.3f}"]
        for f in FRACTIONS:
            m_rec = n if f == 1.0 else int(round(f * n))
            sample = prep.codes if f == 1.0 else prep.codes[np.sort(rng.choice(n, m_rec, replace=False))]
            for model in models:
                pred = predicted(model, sample, prep.cards, n, np.random.default_rng([args.seed, i]), seed=i)
                errors[(model, f)].append(abs(pred - emp))
                line.append(f"{model[:3]}@{f:.0%}={pred:.3f}")
        print("  ".join(line), f"[{time.perf_counter() - t_start:.0f} s]", flush=True)
    print()
    print(f"ADULT, {len(pops)} attribute subsets (seed {args.seed}; uniqueness {min(truth):.3f}-{max(truth):.3f}; "
          f"paper: 0.000-0.794), one trial per population and fraction; MAE mean ± s.d.")
    print(f"{'fraction':>9} | {'paper (copula)':>15} | " + " | ".join(f"{m:>15}" for m in models))
    for f in FRACTIONS:
        cells = []
        for m in models:
            e = np.array(errors[(m, f)])
            cells.append(f"{e.mean():.3f} ± {e.std(ddof=1):.3f}")
        print(f"{f:>9.0%} | {PAPER[f][0]:.3f} ± {PAPER[f][1]:.3f}   | " + " | ".join(f"{c:>15}" for c in cells))
    # judged on CPU seconds: on the shared 2-core machine the wall clock also measures the neighbours
    print(f"total {time.perf_counter() - t_start:.0f} s wall, {time.process_time() - c_start:.0f} s CPU "
          f"(target: under 600 s)")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
