"""The Gaussian copula: bivariate normal, QMC rectangle probabilities, recovery on data from a known copula."""
from __future__ import annotations

import itertools
import math

import numpy as np
import pytest
from scipy.special import ndtri
from scipy.stats import binom, multivariate_normal

from dashboard.core import microdata
from dashboard.core.errors import InputError


@pytest.mark.parametrize("r", [-0.999, -0.95, -0.93, -0.6, -0.1, 0.0, 0.3, 0.8, 0.92, 0.93, 0.97, 0.9995])
def test_bvn_cdf_matches_scipy(r):
    rng = np.random.default_rng(abs(int(r * 1e4)))
    h, k = rng.normal(size=300) * 2, rng.normal(size=300) * 2
    ref = multivariate_normal(mean=[0, 0], cov=[[1, r], [r, 1]]).cdf(np.c_[h, k])
    assert np.max(np.abs(microdata.bvn_cdf(h, k, r) - ref)) < 1e-12


def test_bvn_cdf_infinite_bounds():
    inf = np.inf
    h = np.array([-inf, 0.3, inf, inf, 0.3, -1.0])
    k = np.array([0.5, -inf, 0.7, inf, inf, -inf])
    got = microdata.bvn_cdf(h, k, 0.5)
    from scipy.special import ndtr
    assert got.tolist() == pytest.approx([0.0, 0.0, ndtr(0.7), 1.0, ndtr(0.3), 0.0])


def _corr(d, seed):
    rng = np.random.default_rng(seed)
    a = rng.normal(size=(d, d))
    s = a @ a.T + 0.5 * np.eye(d)
    sd = np.sqrt(np.diag(s))
    return s / np.outer(sd, sd)


@pytest.mark.parametrize("d", [3, pytest.param(4, marks=pytest.mark.slow), pytest.param(5, marks=pytest.mark.slow)])  # 4-D, 5-D: seconds
def test_rectangle_probabilities_match_scipy_within_their_standard_error(d):
    rng = np.random.default_rng(d)
    corr = _corr(d, d)
    lo = rng.normal(size=(15, d))
    hi = lo + rng.exponential(size=(15, d)) * 0.5
    p, se = microdata.rectangle_prob(lo, hi, corr, n_points=64)
    mvn = multivariate_normal(mean=np.zeros(d), cov=corr, abseps=1e-13, releps=1e-10, maxpts=5_000_000)
    ref = np.array([mvn.cdf(hi[i], lower_limit=lo[i]) for i in range(15)])
    assert np.all(np.abs(p - ref) <= 5 * se + 1e-15)
    assert np.max(np.abs(p - ref) / ref) < 5e-3  # the accuracy claimed in the module notes


def test_rectangle_probability_default_points_are_accurate_for_small_cells():
    corr = _corr(6, 11)
    rng = np.random.default_rng(3)
    lo = rng.normal(size=(30, 6))
    hi = lo + 0.05  # NHANES-like cells: narrow in every direction
    p, se = microdata.rectangle_prob(lo, hi, corr)
    p_ref, _ = microdata.rectangle_prob(lo, hi, corr, n_points=1024, n_rep=16, seed=9)
    rel = np.abs(p - p_ref) / p_ref
    assert np.max(rel) < 5e-3 and np.median(rel) < 5e-4  # ξ then moves by < ξ·λ·0.5%
    assert np.all(np.abs(p - p_ref) <= 5 * se)


def test_two_dimensional_rectangles_are_exact():
    corr = np.array([[1.0, -0.7], [-0.7, 1.0]])
    lo, hi = np.array([[-0.5, 0.1]]), np.array([[0.4, 1.3]])
    p, se = microdata.rectangle_prob(lo, hi, corr)
    ref = multivariate_normal(mean=[0, 0], cov=corr).cdf(hi[0], lower_limit=lo[0])
    assert p[0] == pytest.approx(ref, abs=1e-9) and se[0] == 0


def test_cells_of_a_product_space_add_up_to_one():
    cards = [3, 4, 5, 2]
    ths = [np.r_[-np.inf, ndtri(np.cumsum(np.full(k, 1 / k))[:-1]), np.inf] for k in cards]
    model = microdata.CopulaModel(ths, _corr(4, 5), _corr(4, 5), 100)
    cells = np.array(list(itertools.product(*[range(k) for k in cards])), dtype=np.int32)
    p, _ = model.cell_prob(cells)
    assert p.sum() == pytest.approx(1.0, abs=2e-4)


def test_nearest_correlation_higham_example():
    a = np.array([[1.0, 1.0, 0.0], [1.0, 1.0, 1.0], [0.0, 1.0, 1.0]])
    x = microdata.nearest_correlation(a)
    ref = np.array([[1.0, 0.7607, 0.1573], [0.7607, 1.0, 0.7607], [0.1573, 0.7607, 1.0]])
    assert np.max(np.abs(x - ref)) < 2e-3  # Higham (2002), section 4
    assert np.linalg.eigvalsh(x).min() > 0 and np.allclose(np.diag(x), 1)
    ok = _corr(4, 1)
    assert np.allclose(microdata.nearest_correlation(ok), ok, atol=1e-8)


def _simulate(n, corr, cards, seed):
    rng = np.random.default_rng(seed)
    z = rng.multivariate_normal(np.zeros(len(cards)), corr, size=n)
    codes = np.empty((n, len(cards)), dtype=np.int32)
    ths = []
    for j, k in enumerate(cards):
        probs = rng.dirichlet(np.full(k, 2.0))
        t = np.r_[-np.inf, ndtri(np.cumsum(probs)[:-1]), np.inf]
        ths.append(t)
        codes[:, j] = np.searchsorted(t[1:-1], z[:, j])
    return codes, ths


SIGMA = np.array([[1, .6, .3, 0, -.4], [.6, 1, .5, .2, -.2], [.3, .5, 1, .1, 0],
                  [0, .2, .1, 1, .3], [-.4, -.2, 0, .3, 1]])
CARDS = [2, 30, 12, 50, 7]


@pytest.fixture(scope="module")
def simulated():
    return _simulate(20_000, SIGMA, CARDS, seed=5)


def test_fit_recovers_the_correlation_of_a_known_copula(simulated):
    codes, _ = simulated
    model = microdata.fit(codes, CARDS)
    assert np.max(np.abs(model.corr - SIGMA)) < 0.03
    assert model.projection_change < 1e-6  # already a correlation matrix


def test_fit_recovers_uniqueness_of_a_known_copula(simulated):
    codes, ths = simulated
    n = codes.shape[0]
    emp = microdata.empirical(codes).uniqueness
    p_fit, _ = microdata.fit(codes, CARDS).cell_prob(codes)
    p_true, _ = microdata.CopulaModel(ths, SIGMA, SIGMA, n).cell_prob(codes)
    fitted = microdata.uniqueness(p_fit, n).mean()
    true = microdata.uniqueness(p_true, n).mean()
    assert abs(fitted - true) < 0.01
    assert abs(fitted - emp) < 0.02  # the expected share unique vs one realised sample


def test_validation_on_a_known_copula(simulated):
    codes, _ = simulated
    e = microdata.empirical(codes)
    v = microdata.validate(codes, CARDS, e.class_size == 1, fraction=0.05, trials=2)
    assert v["mae"] < 0.03 and v["auc"] > 0.75
    assert v["train_records"] == 1000 and len(v["rows"]) == 2
    with pytest.raises(InputError, match="at least 50"):
        microdata.validate(codes[:400], CARDS, e.class_size[:400] == 1, fraction=0.1)


def test_uniqueness_and_correctness_closed_forms():
    p = np.array([0.0, 1e-12, 1e-4, 0.3, 1.0])
    N = 1000
    xi = microdata.uniqueness(p, N)
    assert xi.tolist() == pytest.approx([1.0, (1 - 1e-12) ** 999, (1 - 1e-4) ** 999, 0.7 ** 999, 0.0], rel=1e-12)
    kap = microdata.correctness(p, N)
    for pi, ki in zip(p[1:4], kap[1:4]):  # κ = E[1 / (1 + Binomial(N − 1, p))]
        m = np.arange(N)
        assert ki == pytest.approx(np.sum(binom.pmf(m, N - 1, pi) / (m + 1)), rel=1e-9)
    assert kap[0] == 1.0 and kap[-1] == pytest.approx(1 / N)
    lam = 2.5  # large N: e^−λ and (1 − e^−λ)/λ
    big = 8e9
    assert microdata.uniqueness(lam / big, big) == pytest.approx(math.exp(-lam), rel=1e-8)
    assert microdata.correctness(lam / big, big) == pytest.approx((1 - math.exp(-lam)) / lam, rel=1e-8)


def test_population_uniqueness_is_the_mean_of_xi_and_decreases():
    rng = np.random.default_rng(0)
    p = rng.random(500) * 1e-3
    grid = microdata.population_grid(500)
    curve = microdata.population_uniqueness(p, grid)
    assert np.all(np.diff(curve) <= 1e-15)
    assert curve[np.searchsorted(grid, 500)] == pytest.approx(microdata.uniqueness(p, 500).mean())
    u, c = np.unique(np.round(p, 5), return_counts=True)
    assert microdata.population_uniqueness(u, [1e4], weights=c)[0] == pytest.approx(
        microdata.uniqueness(np.round(p, 5), 1e4).mean())


def test_population_checks():
    assert microdata.check_population("1e6", 100) == 1e6
    with pytest.raises(InputError, match="cannot be smaller than the data set"):
        microdata.check_population(50, 100)
    with pytest.raises(InputError, match="at least 1"):
        microdata.check_population(0)


def test_one_more_attribute_orders_every_column(simulated):
    codes, _ = simulated
    codes = codes[:3000]
    model = microdata.fit(codes, CARDS)
    steps = microdata.one_more_attribute(model, codes, 3000.0, 3000)
    assert sorted(s["column"] for s in steps) == list(range(5))
    singles = []
    for j in range(5):  # the first column is the one most identifying on its own (the documented rule)
        p, _ = model.sub([j]).cell_prob(codes[:, [j]])
        singles.append((microdata.uniqueness(p, 3000.0).mean(), np.mean(-np.log2(p))))
    by_xi = max(s[0] for s in singles) >= 1e-6
    want = int(np.argmax([s[0] if by_xi else s[1] for s in singles]))
    assert steps[0]["column"] == want
    emp = [s["uniqueness_dataset_empirical"] for s in steps]
    assert all(b >= a for a, b in zip(emp, emp[1:]))
    assert emp[-1] == pytest.approx(microdata.empirical(codes).uniqueness)
