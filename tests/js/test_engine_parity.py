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
import re
import shutil
import subprocess

import pytest
from support import ROOT
from support.parity_cases import build_cases, check_results, close, shared_tables

RUNNER = ROOT / "tests" / "js" / "parity_runner.js"
NODE = shutil.which("node") or shutil.which("nodejs")

pytestmark = pytest.mark.skipif(NODE is None, reason="node is not installed")


@pytest.mark.slow  # 500 profile reports in Python and under node: the full suite runs it
def test_engine_equals_core_on_500_random_profiles():
    """Both body models: v2 (the default; rectangles differenced from the CDF slices) and paper."""
    tables, cases, expected = build_cases(random.Random(20261123))
    from dashboard.core.text import client_text

    # each table's repeated parts written once (the runner gives every table its own copy): half the JSON to write
    payload = json.dumps({"tables": shared_tables(tables), "cases": cases, "text": client_text()})
    out = subprocess.run([NODE, str(RUNNER)], input=payload, capture_output=True, text=True, timeout=600)
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


def test_sentences_equal_the_cores_word_for_word():
    """The headline and the verdict (core/text) at every threshold and its neighbours, and across
    the range of crowd sizes, for a small and a huge population."""
    from dashboard.core.personal import correctness, expected_anonymity_set
    from dashboard.core.text import client_text, own_headline, verdict

    lams = [0.0, 1e-9, 0.03, 0.5, 0.949, 0.95, 0.951, 0.99, 1.0, 1.04, 1.0499, 1.05, 1.25, 2.0999, 2.25, 4.99,
            5.0, 9.9499, 9.95, 10.0, 10.049, 19.99, 20.0, 99.5, 99.99, 100.0, 2418.4, 1e6 + 0.5, 7.9e9]
    grid = []
    for n in (3.0, 5_000.0, 8.1e9):
        for lam in lams:
            if lam <= n:
                others = expected_anonymity_set(lam, n) - 1
                grid.append((lam, others, correctness(lam, n)))
    script = (
        "const E=require(process.argv[1]);E.useText(JSON.parse(process.argv[2]));"
        "const g=JSON.parse(require('fs').readFileSync(0,'utf8'));"
        "process.stdout.write(JSON.stringify(g.map(([l,o,k])=>[E.ownHeadline(o),E.verdict(l,o,k)])));"
    )
    out = subprocess.run([NODE, "-e", script, str(ROOT / "assets" / "anonset_engine.js"), json.dumps(client_text())],
                         input=json.dumps(grid),
                         capture_output=True, text=True, timeout=60)
    assert out.returncode == 0, out.stderr
    for (lam, others, kappa), (head, verd) in zip(grid, json.loads(out.stdout)):
        assert head == own_headline(others), (lam, others)
        assert verd == verdict(lam, others, kappa), (lam, others)
    assert len({own_headline(o) for _, o, _ in grid}) > 10  # the grid reaches every branch


def test_percentages_equal_the_cores():
    """format_percent (the CLI) and formatPercent (the page) on every branch, at rounding ties
    (exact binary halves) and on random shares across 30 orders of magnitude."""
    from dashboard.core.text import client_text, format_percent

    rng = random.Random(7)
    shares = [0.0, 1e-300, 9.99e-7, 1e-6, 1.0000001e-6, 0.00125, 0.000999996, 0.0099996, 0.00375, 0.01, 0.0225,
              0.5, 0.999, 0.9990001, 0.99999, 1.0, 1.5, -0.25, float("nan"), float("inf")]
    shares += [10 ** rng.uniform(-30, 0) for _ in range(400)]
    script = (
        "const E=require(process.argv[1]);E.useText(JSON.parse(process.argv[2]));"
        "const g=JSON.parse(require('fs').readFileSync(0,'utf8'));"
        "process.stdout.write(JSON.stringify(g.map((x)=>[E.formatPercent(x===null?NaN:x),"
        "E.formatPercent(x===null?NaN:x,true)])));"
    )
    finite = [x if x == x and abs(x) != float("inf") else None for x in shares]
    out = subprocess.run([NODE, "-e", script, str(ROOT / "assets" / "anonset_engine.js"), json.dumps(client_text())],
                         input=json.dumps(finite),
                         capture_output=True, text=True, timeout=60)
    assert out.returncode == 0, out.stderr
    pairs = json.loads(out.stdout)
    for x, (js, js_positive) in zip(shares, pairs):
        assert js == format_percent(x), (x, js, format_percent(x))
        assert js_positive == format_percent(x, positive=True), (x, js_positive)
    shown = [t for pair in pairs for t in pair]
    assert format_percent(0.0, positive=True) == "less than 0.0001 %"  # ξ underflowed: still above 0
    assert format_percent(0.00125) == "0.13 %" and format_percent(0.0225) == "2.3 %"  # half up, as toFixed
    assert format_percent(1e-300) == "less than 0.0001 %" and not any(re.search(r"\de", t) for t in shown)
