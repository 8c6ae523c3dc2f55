"""The Pitman–Yor correctness law (dashboard.core.scaling) against independent computations."""
from __future__ import annotations

import itertools
import math

import mpmath as mp
import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from dashboard.core import scaling as pyc
from dashboard.core.errors import InputError

NS = np.array([1, 2, 3, 7, 10, 100, 1e3, 1e4, 1e6, 1e8, 1e10])


# ------------------------------------------------------------------ references in mpmath

def _mp_kappa(n, d, alpha, dps=120):
    """The SPEC's form α·expm1(Δ)/(n d) at high precision (signed Γ for α < 0)."""
    with mp.workdps(dps):
        n, d, a = mp.mpf(n), mp.mpf(d), mp.mpf(alpha)
        if d == 0:
            return a * (mp.digamma(n + a) - mp.digamma(a)) / n
        if a < 0:                                  # Γ(α) < 0 for −d < α < 0
            ratio = mp.rf(a + d, n) / mp.rf(a, n)
        else:
            ratio = mp.exp(mp.loggamma(n + a + d) - mp.loggamma(n + a)
                           - mp.loggamma(a + d) + mp.loggamma(a))
        return a * (ratio - 1) / (n * d)


def _mp_sets_of_size(n, d, alpha, j, dps=120):
    with mp.workdps(dps):
        n, d, a = mp.mpf(n), mp.mpf(d), mp.mpf(alpha)

        def lrise(x, m):
            return mp.loggamma(x + m) - mp.loggamma(x)

        return mp.exp(mp.log(mp.binomial(n, j)) + lrise(1 - d, j - 1) + lrise(a + d, n - j)
                      - lrise(a + 1, n - 1))


EXTREME = [
    (0.0, 1e18), (1e-12, 1e18), (-1e-12, 1e18), (0.5, 1e18), (0.9, 1e12),
    (0.0, 0.01), (1e-12, 0.01), (0.3, -0.2), (0.999, 2.0), (0.5, 5.0),
    (-0.5, 0.5 * 20), (-3.0, 3.0 * 1.5), (-1e3, 1e3 * 1e6), (-2.0, 2.0 * 1e15),
]


@pytest.mark.parametrize("d,alpha", EXTREME)
def test_kappa_matches_high_precision_reference(d, alpha):
    got = pyc.kappa(NS, d, alpha)
    want = np.array([float(_mp_kappa(n, d, alpha)) for n in NS])
    np.testing.assert_allclose(got, want, rtol=1e-12, atol=0)


@pytest.mark.parametrize("d,alpha", [(0.0, 3.0), (0.5, 1e18), (0.2, 1e9), (-2.0, 30.0), (0.7, -0.3)])
def test_uniqueness_and_violations_match_reference(d, alpha):
    ns = np.array([1, 2, 5, 10, 1e3, 1e6, 1e10])
    xi = pyc.uniqueness(ns, d, alpha)
    v5 = pyc.k_violations(ns, d, alpha, 5)
    for n, x, v in zip(ns, xi, v5):
        ref_xi = float(_mp_sets_of_size(n, d, alpha, 1) / n)
        ref_v = float(sum(j * _mp_sets_of_size(n, d, alpha, j) for j in range(1, 5) if j <= n) / n)
        assert x == pytest.approx(ref_xi, rel=1e-11, abs=1e-300)
        assert v == pytest.approx(ref_v, rel=1e-11, abs=1e-300)


# ------------------------------------------------------------------ closed forms and sums

@pytest.mark.parametrize("alpha", [0.05, 1.0, 17.3, 2500.0])
def test_d_zero_equals_direct_sum(alpha):
    for n in (1, 2, 10, 137, 2000):
        direct = math.fsum(alpha / (alpha + i) for i in range(n)) / n
        assert pyc.kappa(n, 0.0, alpha) == pytest.approx(direct, rel=1e-13)
        assert pyc.uniqueness(n, 0.0, alpha) == pytest.approx(alpha / (alpha + n - 1), rel=1e-13)


@pytest.mark.parametrize("d,alpha", [(0.0, 2.0), (0.4, 3.0), (0.8, -0.5), (-1.5, 1.5 * 12), (1e-9, 40.0)])
def test_expected_sets_follow_the_chinese_restaurant_recursion(d, alpha):
    """E[K_{n+1}] = E[K_n] + (α + d E[K_n])/(α + n): the chance that record n+1 opens a set."""
    n_max = 3000
    ek = np.empty(n_max)
    ek[0] = 1.0
    for i in range(1, n_max):
        ek[i] = ek[i - 1] + (alpha + d * ek[i - 1]) / (alpha + i)
    ns = np.arange(1, n_max + 1, dtype=float)
    np.testing.assert_allclose(pyc.expected_sets(ns, d, alpha), ek, rtol=1e-11)
    np.testing.assert_allclose(pyc.kappa(ns, d, alpha), ek / ns, rtol=1e-11)


@pytest.mark.parametrize("K,a", [(2, 0.3), (10, 0.5), (50, 4.0), (7, 1000.0)])
def test_negative_d_is_the_symmetric_dirichlet(K, a):
    """d = −a, α = K a: E[K_n] = K[1 − ((K−1)a)_n/(K a)_n] (Beta integral of (1 − π_1)^n)."""
    for n in (1, 2, 5, 40, 1000, 10**6):
        with mp.workdps(40):
            miss = mp.rf((K - 1) * mp.mpf(a), n) / mp.rf(K * mp.mpf(a), n)
            want = float(K * (1 - miss) / n)
        assert pyc.kappa(n, -a, K * a) == pytest.approx(want, rel=1e-11)


def test_negative_d_against_monte_carlo_dirichlet_multinomial():
    rng = np.random.default_rng(7)
    K, a, n, reps = 12, 0.4, 25, 20000
    weights = rng.dirichlet(np.full(K, a), size=reps)
    counts = rng.multinomial(n, weights)
    kap = (counts > 0).sum(axis=1) / n
    se = kap.std(ddof=1) / math.sqrt(reps)
    assert abs(kap.mean() - pyc.kappa(n, -a, K * a)) < 3 * se
    xi = (counts == 1).sum(axis=1) / n
    assert abs(xi.mean() - pyc.uniqueness(n, -a, K * a)) < 3 * xi.std(ddof=1) / math.sqrt(reps)


@pytest.mark.parametrize("d,alpha", [(0.0, 4.0), (0.6, 2.0), (-1.0, 9.0), (0.3, 1e6)])
def test_sets_of_each_size_add_up(d, alpha):
    n = 60
    by_size = np.array([pyc.expected_sets_of_size(n, d, alpha, j) for j in range(1, n + 1)])
    assert by_size.sum() == pytest.approx(pyc.expected_sets(n, d, alpha), rel=1e-11)
    assert (np.arange(1, n + 1) * by_size).sum() == pytest.approx(n, rel=1e-11)
    assert pyc.k_violations(n, d, alpha, n + 1) == pytest.approx(1.0, rel=1e-11)
    assert pyc.k_violations(n, d, alpha, 2) == pytest.approx(pyc.uniqueness(n, d, alpha), rel=1e-12)
    assert pyc.k_violations(n, d, alpha, 1) == 0.0
    assert pyc.expected_sets_of_size(5, d, alpha, 6) == 0.0


# ------------------------------------------------------------------ properties over the whole range

@st.composite
def py_params(draw):
    kind = draw(st.sampled_from(["zero", "tiny", "positive", "negative"]))
    if kind == "zero":
        d = 0.0
    elif kind == "tiny":
        d = draw(st.floats(1e-13, 1e-3)) * draw(st.sampled_from([1.0, -1.0]))
    elif kind == "positive":
        d = draw(st.floats(0.0, 0.999, allow_subnormal=False))
    else:
        d = -draw(st.floats(1e-3, 1e4))
    if d < 0 and kind == "negative":
        alpha = -d * (1.0 + 10 ** draw(st.floats(-3.0, 6.0)))
    else:
        alpha = max(-d, 0.0) + 10 ** draw(st.floats(-8.0, 18.0))
    if not alpha + d > 0:
        alpha = -d + 1e-8
    return d, alpha


GRID = np.unique(np.concatenate([np.arange(1, 40), np.logspace(0, 10, 300)]))


@settings(max_examples=150, deadline=None)
@given(py_params())
def test_kappa_is_a_correctness_curve(params):
    d, alpha = params
    k = pyc.kappa(GRID, d, alpha)
    assert k[0] == 1.0
    assert np.all((k >= 1.0 / GRID * (1 - 1e-12)) & (k <= 1.0))
    assert np.all(np.diff(k) <= 0.0)
    # the within-call monotone guard only removes rounding: separate calls agree
    picks = GRID[::37]
    separate = np.array([pyc.kappa(float(n), d, alpha) for n in picks])
    np.testing.assert_allclose(separate, k[::37], rtol=1e-12)
    xi = pyc.uniqueness(GRID, d, alpha)
    assert np.all((xi >= 0) & (xi <= k * (1 + 1e-12)))
    v = [pyc.k_violations(GRID[::29], d, alpha, kk) for kk in (2, 5, 10)]
    assert np.all(v[0] <= v[1] + 1e-15) and np.all(v[1] <= v[2] + 1e-15)
    assert np.all((v[2] >= 0) & (v[2] <= 1))


@settings(max_examples=100, deadline=None)
@given(st.floats(-6.0, 18.0), st.sampled_from([1e-12, -1e-12, 1e-11]))
def test_continuous_through_d_zero(log_alpha, tiny):
    alpha = 10 ** log_alpha
    np.testing.assert_allclose(pyc.kappa(NS, tiny, alpha), pyc.kappa(NS, 0.0, alpha), rtol=1e-9)
    # Ξ itself moves by |d|·(1/α + ln n) relative: d/α is not small when α is
    rtol = 1e-9 + 2 * abs(tiny) * (1 / alpha + 25)
    np.testing.assert_allclose(pyc.uniqueness(NS, tiny, alpha), pyc.uniqueness(NS, 0.0, alpha),
                               rtol=rtol, atol=1e-300)


@settings(max_examples=60, deadline=None)
@given(st.floats(0.05, 40.0))
def test_continuous_through_gamma_zero(h):
    at_zero = pyc.kappa_h_gamma(NS, h, 0.0)
    for g in (1e-10, -1e-10):
        np.testing.assert_allclose(pyc.kappa_h_gamma(NS, h, g), at_zero, rtol=1e-8)


@settings(max_examples=200, deadline=None)
@given(py_params())
def test_h_gamma_round_trip(params):
    d, alpha = params
    h, g = pyc.to_h_gamma(d, alpha)
    assert h > 0
    assert (g < 0) == (d < 0) and (g == 0) == (d == 0)
    if d > 0:
        assert (g >= 1) == (alpha <= 0)
    d2, a2 = pyc.from_h_gamma(h, g)
    assert d2 == pytest.approx(d, rel=1e-8, abs=1e-300)
    assert a2 + d2 == pytest.approx(alpha + d, rel=1e-8)


def test_h_gamma_known_values():
    h, g = pyc.to_h_gamma(0.0, 1.0)
    assert h == pytest.approx(1.0)                       # ψ(2) − ψ(1) = 1
    assert g == 0.0
    d, a = pyc.from_h_gamma(1.0, 0.0)
    assert d == 0.0 and a == pytest.approx(1.0, rel=1e-14)
    # a larger α means more sets, a higher entropy
    assert pyc.to_h_gamma(0.5, 100.0)[0] > pyc.to_h_gamma(0.5, 10.0)[0]
    assert pyc.bits_to_nats(1.0) == pytest.approx(math.log(2))
    assert pyc.nats_to_bits(pyc.bits_to_nats(23.0)) == pytest.approx(23.0)
    np.testing.assert_allclose(pyc.nats_to_bits(np.array([math.log(2), 0.0])), [1.0, 0.0])


def test_inverse_digamma():
    from scipy.special import digamma

    ys = np.array([-50.0, -3.0, -0.5772156649015329, 0.0, 1.0, 10.0, 41.4, 300.0])
    x = pyc.inverse_digamma(ys)
    np.testing.assert_allclose(digamma(x), ys, rtol=1e-13, atol=1e-13)
    assert pyc.inverse_digamma(-0.5772156649015329) == pytest.approx(1.0, rel=1e-14)
    with pytest.raises(InputError):
        pyc.inverse_digamma(800.0)


# ------------------------------------------------------------------ known distributions

def test_kappa_known_uniform_and_single_set():
    K = 37
    ns = np.array([1, 2, 10, 100, 5000])
    want = K * (1 - (1 - 1 / K) ** ns) / ns
    np.testing.assert_allclose(pyc.kappa_known(ns, np.full(K, 1 / K)), want, rtol=1e-13)
    np.testing.assert_allclose(pyc.kappa_known(ns, [1.0]), 1 / ns, rtol=1e-15)
    assert pyc.kappa_known(1, [0.2, 0.3, 0.5]) == pytest.approx(1.0)


def test_kappa_known_matches_enumeration():
    p = np.array([0.5, 0.3, 0.15, 0.05, 0.0])
    for n in (1, 2, 3, 4):
        total = 0.0
        for seq in itertools.product(range(p.size), repeat=n):
            total += np.prod(p[list(seq)]) * len(set(seq))
        assert pyc.kappa_known(n, p) == pytest.approx(total / n, rel=1e-12)


def test_kappa_finite_population_matches_enumeration():
    sizes_of_sets = [3, 2, 2, 1, 1, 1]
    people = [i for i, s in enumerate(sizes_of_sets) for _ in range(s)]
    N = len(people)
    for n in range(1, N + 1):
        draws = list(itertools.combinations(people, n))
        want = sum(len(set(c)) for c in draws) / len(draws) / n
        got = pyc.kappa_finite_population(n, [3, 2, 1], [1, 2, 3])
        assert got == pytest.approx(want, rel=1e-12)


def test_finite_population_tends_to_with_replacement():
    sizes = np.array([1, 2, 5, 40])
    mult = np.array([3_000_000, 1_000_000, 200_000, 10_000])
    N = float(sizes @ mult)
    probs = np.repeat(sizes / N, mult)
    ns = np.array([10, 1000, 10_000])
    np.testing.assert_allclose(pyc.kappa_finite_population(ns, sizes, mult),
                               pyc.kappa_known(ns, probs), rtol=1e-3)
    assert pyc.kappa_finite_population(N, sizes, mult) == pytest.approx(mult.sum() / N, rel=1e-12)


# ------------------------------------------------------------------ bad input

@pytest.mark.parametrize("d,alpha", [(1.0, 2.0), (0.5, -0.5), (0.5, -1.0), (-1.0, 1.0),
                                     (float("nan"), 1.0), (0.2, float("inf")), ("x", 1.0)])
def test_invalid_parameters(d, alpha):
    with pytest.raises(InputError):
        pyc.kappa(10, d, alpha)


@pytest.mark.parametrize("n", [0, 0.5, -3, float("nan"), [[1, 2]], "ten", [1, float("inf")]])
def test_invalid_gallery_sizes(n):
    with pytest.raises(InputError):
        pyc.kappa(n, 0.3, 2.0)


def test_other_bad_inputs():
    with pytest.raises(InputError, match="sum to 1"):
        pyc.kappa_known(10, [0.5, 0.2])
    with pytest.raises(InputError):
        pyc.kappa_known(10, [0.5, -0.5, 1.0])
    with pytest.raises(InputError, match="whole"):
        pyc.kappa_finite_population(2, [1.5], [2])
    with pytest.raises(InputError, match="exceed"):
        pyc.kappa_finite_population(10, [2], [3])
    with pytest.raises(InputError):
        pyc.k_violations(10, 0.3, 2.0, 2.5)
    with pytest.raises(InputError):
        pyc.k_violations(10, 0.3, 2.0, 0)
    with pytest.raises(InputError):
        pyc.from_h_gamma(0.0, 0.3)
    with pytest.raises(InputError):
        pyc.from_h_gamma(float("nan"), 0.3)
    with pytest.raises(InputError):
        pyc.from_h_gamma(900.0, 0.0)


def test_scalar_in_scalar_out():
    assert isinstance(pyc.kappa(10, 0.3, 2.0), float)
    assert isinstance(pyc.uniqueness(10, 0.3, 2.0), float)
    assert isinstance(pyc.k_violations(10, 0.3, 2.0, 5), float)
    assert pyc.kappa([10], 0.3, 2.0).shape == (1,)
    assert pyc.kappa(1, 0.3, 2.0) == 1.0


@pytest.mark.filterwarnings("error::RuntimeWarning")
@pytest.mark.parametrize("d", [1 - 1e-12, 0.999, 0.5, 1e-300, 0.0, -1e-12, -0.5, -1e6])
def test_corners_of_the_region_stay_finite(d):
    n = np.array([1, 2, 10, 1e5, 1e10, 1e15])
    if d < 0:                       # a Dirichlet over K sets: alpha = K|d|, K > 1
        alphas = [-d * K for K in (1 + 1e-9, 2.0, 1e6, 1e12)]
    else:
        alphas = [1e-8, 1.0, 1e18, 1e100, 1e300] + ([-d * (1 - 1e-12)] if d > 1e-100 else [])
    for alpha in alphas:
        k = pyc.kappa(n, d, alpha)
        xi = pyc.uniqueness(n, d, alpha)
        v = pyc.k_violations(n, d, alpha, 5)
        assert np.all(np.isfinite(k) & np.isfinite(xi) & np.isfinite(v))
        assert k[0] == xi[0] == v[0] == 1.0
        assert np.all((k >= 0) & (k <= 1)) and np.all(np.diff(k) <= 0)
        assert np.all(xi <= k * (1 + 1e-12))
        h, g = pyc.to_h_gamma(d, alpha)
        assert h > 0 and math.isfinite(g)
    with pytest.raises(InputError, match="too close"):
        pyc.kappa(10, -1e-300, 1.000000001e-300)


def test_law_curves_and_point_agree_with_the_law_and_are_read_only():
    n = np.geomspace(1.0, 8e9, 40)
    law = pyc.law_curves(20.0, 0.3, 5, n)
    d, alpha = pyc.from_h_gamma(pyc.bits_to_nats(20.0), 0.3)
    assert (law.d, law.alpha) == (d, alpha) and (law.h_bits, law.gamma, law.k) == (20.0, 0.3, 5)
    np.testing.assert_array_equal(law.kappa, pyc.kappa(n, d, alpha))
    np.testing.assert_array_equal(law.xi, pyc.uniqueness(n, d, alpha))
    np.testing.assert_array_equal(law.viol, pyc.k_violations(n, d, alpha, 5))
    for arr in (law.kappa, law.xi, law.viol):
        assert not arr.flags.writeable
    point = pyc.law_point(d, alpha, 5, 1e6)
    assert point == (pyc.kappa(1e6, d, alpha), pyc.uniqueness(1e6, d, alpha), pyc.k_violations(1e6, d, alpha, 5),
                     pyc.expected_sets(1e6, d, alpha))
