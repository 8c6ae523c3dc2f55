"""One model, two faces: the browser engine (assets/anonset_engine.js) equals the core.

500 random profiles across DE, US, GB, US-ZCTA and FR (a Eurostat country with
borrowed body statistics), random band widths, districts or regions, sexes, age
groups (one or several), withheld attributes, auxiliary presets and typed
percentages, app users and targets k.  The engine runs under node on the public
tables the server sends (dashboard/core/public_tables.py); every number —
funnel, CAS, expected set, ξ, κ, correct guess, k-indistinguishability, every
what-if row, widening, withholding, advice (changes, CAS, bits) — must equal
``profile_report`` (what ``anonset cas --json`` prints) to relative 1e-9.
"""
from __future__ import annotations

import json
import random
import shutil
import subprocess
from pathlib import Path

import pytest
from parity_cases import build_cases, check_results, close

ROOT = Path(__file__).resolve().parents[1]
RUNNER = ROOT / "tests" / "js" / "parity_runner.js"
NODE = shutil.which("node") or shutil.which("nodejs")

pytestmark = pytest.mark.skipif(NODE is None, reason="node is not installed")


def test_engine_equals_core_on_500_random_profiles():
    """Both body models: v2 (the default; rectangles differenced from the CDF slices) and paper."""
    tables, cases, expected = build_cases(random.Random(20261123))
    out = subprocess.run([NODE, str(RUNNER)], input=json.dumps({"tables": tables, "cases": cases}),
                         capture_output=True, text=True, timeout=600)
    assert out.returncode == 0, out.stderr[-2000:]
    check_results(json.loads(out.stdout), cases, expected)


def test_binomial_tail_matches_scipy():
    """k-indistinguishability's Pr[Binomial(n, p) ≥ k − 1] in both tails, against scipy."""
    from scipy.stats import binom

    grid = [(k, n, p) for k in (2, 5, 10, 100) for n in (1, 9, 10_000, 7_999_999_999)
            for p in (1e-12, 3e-7, 1e-3, 0.2, 0.999)]
    script = (
        "const E=require(process.argv[1]);const g=JSON.parse(process.argv[2]);"
        "process.stdout.write(JSON.stringify(g.map(([k,n,p])=>E.binomSf(k-2,n,p))));"
    )
    out = subprocess.run([NODE, "-e", script, str(ROOT / "assets" / "anonset_engine.js"), json.dumps(grid)],
                         capture_output=True, text=True, timeout=60)
    assert out.returncode == 0, out.stderr
    for (k, n, p), v in zip(grid, json.loads(out.stdout)):
        ref = float(binom.sf(k - 2, n, p))
        if ref < 1e-300:
            assert v < 1e-290
        else:
            close(v, ref, f"sf k={k} n={n} p={p}")
