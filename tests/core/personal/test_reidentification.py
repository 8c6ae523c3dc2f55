"""ξ, κ and k-indistinguishability against closed forms and direct evaluation."""
from __future__ import annotations

import math
from fractions import Fraction

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from scipy.stats import binom

from dashboard.core import personal as ri
from dashboard.core.errors import InputError


@pytest.mark.parametrize("lam", [1e-6, 1e-3, 0.5, 1.0, 3.0, 10.0, 200.0])
@pytest.mark.parametrize("N", [1e8, 1e10])
def test_large_population_tends_to_poisson_limits(lam, N):
    assert ri.uniqueness(lam, N) == pytest.approx(math.exp(-lam), rel=1e-6)
    assert ri.correctness(lam, N) == pytest.approx(-math.expm1(-lam) / lam, rel=1e-6)


def test_tiny_p_keeps_precision():
    # λ = 1e-9 in N = 1e10: p = 1e-19; a naive (1 − p)**N loses everything
    lam, N = 1e-9, 1e10
    assert ri.uniqueness(lam, N) == pytest.approx(math.exp(-lam * (N - 1) / N), rel=1e-15)
    assert ri.correctness(lam, N) == pytest.approx(1 - lam / 2, rel=1e-15)
    assert 0 < 1 - ri.correctness(lam, N) < 1e-9


@pytest.mark.parametrize("N,lam", [(10, 2), (50, 0.5), (1000, 7), (3, 2.5), (2, 1)])
def test_direct_evaluation_with_exact_fractions(N, lam):
    p = Fraction(lam).limit_denominator(10**6) / N
    xi = (1 - p) ** (N - 1)
    kappa = (1 - (1 - p) ** N) / (N * p)
    assert ri.uniqueness(lam, N) == pytest.approx(float(xi), rel=1e-12)
    assert ri.correctness(lam, N) == pytest.approx(float(kappa), rel=1e-12)
    # κ = E[1 / (1 + X)], X ~ Binomial(N − 1, p)
    pf = float(p)
    expect = sum(binom.pmf(x, N - 1, pf) / (1 + x) for x in range(N))
    assert ri.correctness(lam, N) == pytest.approx(expect, rel=1e-10)


def test_edge_cases():
    assert ri.uniqueness(0, 1e6) == 1.0 and ri.correctness(0, 1e6) == 1.0
    assert ri.uniqueness(5e6, 1e6) == 0.0 and ri.correctness(5e6, 1e6) == pytest.approx(1e-6)
    assert ri.uniqueness(1e6, 1e6) == 0.0
    assert ri.uniqueness(1, 1) == 1.0 and ri.correctness(1, 1) == 1.0
    assert ri.profile_probability(5e6, 1e6) == 1.0
    assert ri.correct_guess(0.2) == 1.0 and ri.correct_guess(4) == 0.25


@settings(max_examples=200)
@given(lam=st.floats(0, 1e6), N=st.floats(1, 1e10))
def test_bounds_and_order(lam, N):
    xi, kappa = ri.uniqueness(lam, N), ri.correctness(lam, N)
    assert 0 <= xi <= kappa * (1 + 1e-12) and kappa <= 1 + 1e-12


@settings(max_examples=100)
@given(lam=st.floats(0.01, 1e4), factor=st.floats(1.001, 10), N=st.floats(1e5, 1e10))
def test_more_company_less_risk(lam, factor, N):
    assert ri.uniqueness(lam * factor, N) <= ri.uniqueness(lam, N)
    assert ri.correctness(lam * factor, N) <= ri.correctness(lam, N) * (1 + 1e-12)


def test_k_indistinguishability():
    lam, N, m = 20.0, 1e6, 100_000
    p = lam / N
    for k in ri.INDISTINGUISHABILITY_KS:
        want = 1 - sum(binom.pmf(j, m - 1, p) for j in range(k - 1))
        assert ri.k_indistinguishability(lam, N, m, k) == pytest.approx(want, rel=1e-9)
    assert ri.k_indistinguishability(lam, N, m, 1) == 1.0
    assert ri.k_indistinguishability(lam, N, 1, 2) == 0.0
    # decreasing in k, increasing in m
    vals = [ri.k_indistinguishability(lam, N, m, k) for k in (2, 5, 10)]
    assert vals == sorted(vals, reverse=True)
    assert ri.k_indistinguishability(lam, N, 2 * m, 5) > ri.k_indistinguishability(lam, N, m, 5)


def test_reidentification_bundle():
    r = ri.reidentification(3.0, 1e7, users=50_000)
    assert r.p == pytest.approx(3e-7)
    assert set(r.k_indistinguishable) == {2, 5, 10}
    assert r.uniqueness == pytest.approx(math.exp(-3), rel=1e-5)
    d = r.to_dict()
    assert d["k_indistinguishable"]["2"] == r.k_indistinguishable[2]
    assert ri.reidentification(3.0, 1e7).k_indistinguishable == {}


@pytest.mark.parametrize(
    "call,msg",
    [
        (lambda: ri.uniqueness(-1, 100), "non-negative"),
        (lambda: ri.correctness(float("nan"), 100), "non-negative"),
        (lambda: ri.uniqueness(1, 0), "at least 1"),
        (lambda: ri.reidentification(1, 100, users=0), "at least 1"),
        (lambda: ri.reidentification(1, 100, users=2.5), "whole number"),
        (lambda: ri.reidentification(1, 100, users="many"), "whole number"),
        (lambda: ri.k_indistinguishability(1, 100, 10, 0), "k must"),
    ],
)
def test_bad_input(call, msg):
    with pytest.raises(InputError, match=msg):
        call()
