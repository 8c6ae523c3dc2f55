"""The vectorised bivariate normal CDF against scipy and against Monte-Carlo."""
from __future__ import annotations

import numpy as np
import pytest
from scipy.stats import multivariate_normal, norm

from dashboard.core import bvn

RHOS = [-0.999, -0.95, -0.926, -0.924, -0.6, -0.2, 0.0, 0.05, 0.2, 0.35, 0.6, 0.9, 0.924, 0.926, 0.95, 0.99, 0.999]


def _scipy(x, y, r):
    mvn = multivariate_normal([0.0, 0.0], [[1.0, r], [r, 1.0]])
    return np.array([mvn.cdf([a, b]) for a, b in zip(x, y)])


@pytest.mark.parametrize("rho", RHOS)
def test_cdf_matches_scipy_to_1e_10(rho):
    rng = np.random.default_rng(abs(hash(rho)) % 2**32)
    x = np.concatenate([rng.normal(0, 2.5, 80), [-8, -3, 0, 3, 8, 0.5]])
    y = np.concatenate([rng.normal(0, 2.5, 80), [-8, 3, 0, -3, 8, -0.5]])
    assert np.abs(bvn.bvn_cdf(x, y, rho) - _scipy(x, y, rho)).max() < 1e-10


def test_vectorised_over_rho_matches_scalar():
    rng = np.random.default_rng(7)
    x, y = rng.normal(0, 2, 300), rng.normal(0, 2, 300)
    r = rng.uniform(-0.99, 0.99, 300)
    r[:40] = 0.95  # the high-correlation branch, per distinct value
    one = np.array([bvn.bvn_cdf(a, b, c) for a, b, c in zip(x, y, r)])
    assert np.abs(bvn.bvn_cdf(x, y, r) - one).max() < 1e-15
    assert np.abs(one - np.array([_scipy([a], [b], c)[0] for a, b, c in zip(x, y, r)])).max() < 1e-10


def test_limits_and_independence():
    x = np.array([-1.0, 0.0, 2.0])
    assert bvn.bvn_cdf(np.inf, np.inf, 0.4) == 1.0
    assert np.allclose(bvn.bvn_cdf(x, np.inf, 0.4), norm.cdf(x), atol=1e-15)
    assert np.allclose(bvn.bvn_cdf(np.inf, x, -0.7), norm.cdf(x), atol=1e-15)
    assert np.all(bvn.bvn_cdf(-np.inf, x, 0.3) == 0.0)
    assert np.allclose(bvn.bvn_cdf(x[:, None], x[None, :], 0.0), norm.cdf(x)[:, None] * norm.cdf(x)[None, :], atol=1e-16)
    # Φ2(0, 0; ρ) = 1/4 + asin(ρ)/(2π)
    for r in (-0.9, -0.3, 0.3, 0.95):
        assert bvn.bvn_cdf(0.0, 0.0, r) == pytest.approx(0.25 + np.arcsin(r) / (2 * np.pi), abs=1e-15)
    with pytest.raises(ValueError):
        bvn.bvn_cdf(0.0, 0.0, 1.5)


def test_rectangle_grid_is_inclusion_exclusion_and_sums_to_one():
    z = np.concatenate([[-np.inf], np.linspace(-4, 4, 17), [np.inf]])
    w = np.concatenate([[-np.inf], np.linspace(-3, 5, 9), [np.inf]])
    P = bvn.rectangle_grid(z, w, 0.45)
    assert P.shape == (18, 10) and (P >= 0).all()
    assert P.sum() == pytest.approx(1.0, abs=1e-13)
    i, j = 7, 4
    direct = bvn.rectangle(z[i], z[i + 1], w[j], w[j + 1], 0.45)
    assert P[i, j] == pytest.approx(float(direct), rel=1e-12)
    # marginals of the grid are the univariate band probabilities
    assert np.allclose(P.sum(axis=1), np.diff(norm.cdf(z)), atol=1e-14)
    assert np.allclose(P.sum(axis=0), np.diff(norm.cdf(w)), atol=1e-14)


def test_rectangles_against_monte_carlo():
    rng = np.random.default_rng(2024)
    r = 0.4
    n = 2_000_000
    x = rng.standard_normal(n)
    y = r * x + np.sqrt(1 - r * r) * rng.standard_normal(n)
    edges = np.array([-np.inf, -1.5, -0.5, 0.0, 0.7, 2.0, np.inf])
    P = bvn.rectangle_grid(edges, edges, r)
    counts, _, _ = np.histogram2d(x, y, bins=[np.r_[-50, edges[1:-1], 50]] * 2)
    freq = counts / n
    se = np.sqrt(P * (1 - P) / n)
    assert np.all(np.abs(freq - P) <= 5 * se + 1e-7)
