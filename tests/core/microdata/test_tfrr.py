"""TFRR: the recursive hypergeometric distribution, its binomial approximation, and the risk AUC."""
from __future__ import annotations

import numpy as np
import pytest
from scipy.stats import binom, hypergeom

from dashboard.core import microdata as M
from dashboard.core.errors import InputError
from dashboard.core.microdata import _tfrr as T


def test_two_attributes_is_the_hypergeometric():
    lo, p = T.rh_pmf(100, [30, 40])
    k = lo + np.arange(p.size)
    assert np.max(np.abs(p - hypergeom.pmf(k, 100, 30, 40))) < 1e-13
    assert p.sum() == pytest.approx(1.0, abs=1e-12)


def test_one_attribute_is_its_count():
    assert T.rh_pmf(50, [7]) == (7, pytest.approx(np.array([1.0])))


def test_order_of_the_attributes_does_not_matter():
    a = T.rh_pmf(200, [50, 80, 120, 160])
    b = T.rh_pmf(200, [160, 50, 120, 80])
    assert a[0] == b[0] and np.allclose(a[1], b[1], atol=1e-15)


def test_recursion_by_hand_for_three_attributes():
    """Eq. 4 written out: P(X3 = k) = Σ_m H(m; N, n1, n2) · H(k; N, m, n3)."""
    N, n1, n2, n3 = 40, 12, 18, 25
    lo, p = T.rh_pmf(N, [n1, n2, n3])
    for k in range(0, 12):
        want = sum(hypergeom.pmf(m, N, n1, n2) * hypergeom.pmf(k, N, m, n3) for m in range(0, n1 + 1))
        got = p[k - lo] if lo <= k < lo + p.size else 0.0
        assert got == pytest.approx(want, abs=1e-14)


@pytest.mark.slow  # a Monte-Carlo simulation: the full suite runs it
def test_rh_matches_a_simulation_of_random_columns():
    rng = np.random.default_rng(0)
    N, ns = 60, [20, 30, 45]
    x = np.empty(40_000, dtype=int)
    for t in range(x.size):
        s = np.ones(N, bool)
        for n in ns:
            s &= np.isin(np.arange(N), rng.choice(N, n, replace=False))
        x[t] = s.sum()
    lo, p = T.rh_pmf(N, ns)
    emp = np.bincount(x, minlength=lo + p.size)[lo:lo + p.size] / x.size
    assert np.max(np.abs(emp - p)) < 0.01


def _mpd(N, counts):
    lo, p = T.rh_pmf(N, counts)
    full = np.zeros(min(counts) + 1)
    full[lo:lo + p.size] = p
    _, b = T.binomial_pmf(N, counts)
    return float(np.max(np.abs(b - full)))


def test_binomial_agrees_when_n_is_large_and_differs_when_small():
    shares = np.array([0.3, 0.5, 0.6])
    mpd = [_mpd(N, list((shares * N).astype(int))) for N in (50, 500, 5_000, 50_000)]
    assert all(b < a for a, b in zip(mpd, mpd[1:]))  # the paper's Fig. 3: MPD falls as N grows
    assert mpd[0] > 0.02 and mpd[-1] < 0.002
    assert _mpd(20, [10, 15]) > 0.09  # a small data set with common values: far apart
    # rare values in a large data set: the two forms coincide
    assert _mpd(1_000_000, [40, 2_000, 30_000]) < 1e-4
    lo, p = T.rh_pmf(1_000_000, [40, 2_000, 30_000])
    r_exact = T.rh_tail_ratio(1_000_000, [40, 2_000, 30_000])
    r_binom = T.binomial_tail_ratio(1_000_000, [40, 2_000, 30_000])
    assert r_exact[2] == pytest.approx(r_binom[2], abs=1e-4)


def test_binomial_parameters_use_the_smallest_count():
    n_d, p = T.binomial_params(1000, [300, 20, 500])
    assert n_d == 20 and p == pytest.approx(300 * 500 / 1000 ** 2)
    _, pmf = T.binomial_pmf(1000, [300, 20, 500])
    assert np.allclose(pmf, binom.pmf(np.arange(21), 20, 0.15))


def test_k_indistinguishability_is_eq_12():
    N, c = 80, [10, 30, 50]
    lo, p = T.rh_pmf(N, c)
    full = np.zeros(11)
    full[lo:lo + p.size] = p
    r = T.rh_tail_ratio(N, c)
    for k in (2, 5, 10):
        assert r[k] == pytest.approx((1 - full[:k].sum()) / (1 - full[0]), abs=1e-12)


def test_batched_recursion_equals_the_one_record_recursion():
    rng = np.random.default_rng(4)
    N = 500
    counts = np.sort(rng.integers(1, 450, size=(200, 4)), axis=1)
    counts[:10, 0] = 1
    counts[10:20] = [400, 420, 450, 480]
    batched = T._batched_ratios(N, counts, (2, 5, 10))
    for i, row in enumerate(counts):
        one = T.rh_tail_ratio(N, row)
        for k in (2, 5, 10):
            assert batched[k][i] == pytest.approx(one[k], abs=1e-10)


def test_auc_is_high_when_attributes_are_independent():
    rng = np.random.default_rng(7)
    n = 3000
    codes = np.column_stack([rng.choice(k, n, p=rng.dirichlet(np.ones(k))) for k in (2, 15, 30, 8)]).astype(np.int32)
    e = M.empirical(codes)
    out = T.analyse_tfrr(codes, e.class_size)
    assert out["auc"] > 0.85 and out["auc_binomial"] > 0.85
    assert abs(out["auc"] - out["auc_binomial"]) < 0.01
    assert set(out["auc_k"]) == {"2", "5", "10"}
    assert np.all((out["risk"] >= 0) & (out["risk"] <= 1))


def test_bad_input():
    with pytest.raises(InputError):
        T.rh_pmf(10, [])
    with pytest.raises(InputError):
        T.rh_pmf(10, [3, 11])
    with pytest.raises(InputError, match="at least two records"):
        T.risks(np.zeros((1, 2), dtype=np.int32))


def test_rare_presence_keeps_its_relative_precision():
    """P(X ≥ 2 | X ≥ 1) of order 1e-11: no cancellation, no trimming of the values that carry it."""
    N = 100_002
    row = [10, 12, 581, 1184, 6880, 10295, 21400, 49048]
    want2 = hypergeom.sf(1, N, 10, 12) / hypergeom.sf(0, N, 10, 12)
    assert T.rh_tail_ratio(N, row[:2])[2] == pytest.approx(want2, rel=1e-8)
    batched = T._batched_ratios(N, np.array([row[:2], [10, 12]]), (2,))
    assert batched[2][0] == pytest.approx(want2, rel=1e-8)
    for d in range(3, 9):
        one = T.rh_tail_ratio(N, row[:d])
        many = T._batched_ratios(N, np.array([row[:d], sorted([40, 900, 3000, 7000, 9000, 20000, 30000, 50000][:d])]),
                                 (2, 5, 10))
        for k in (2, 5, 10):
            assert many[k][0] == pytest.approx(one[k], rel=1e-7, abs=1e-300)
    assert 1e-12 < T.rh_tail_ratio(N, row)[2] < 1e-10
