"""Fits of the PYC law (dashboard.core.scaling): likelihood, sampler, PYC-MB and baselines."""
from __future__ import annotations

import json
import math

import numpy as np
import pytest
from support.synthetic import large_population_by_distinct_sizes

from dashboard.core import scaling
from dashboard.core.errors import InputError

# ------------------------------------------------------------------ the likelihood


def _loglik_by_loops(d, alpha, set_sizes):
    """The SPEC's product formula, term by term."""
    k, n = len(set_sizes), sum(set_sizes)
    out = sum(math.log(alpha + i * d) for i in range(1, k))
    out -= sum(math.log(alpha + 1 + i) for i in range(n - 1))
    for m in set_sizes:
        out += sum(math.log(1 - d + i) for i in range(m - 1))
    return out


@pytest.mark.parametrize("d,alpha", [(0.0, 2.5), (0.4, 3.0), (0.7, -0.5), (-0.5, 0.5 * 12), (1e-12, 7.0),
                                     (0.2, 1e9), (-3.0, 3.0 * 40)])
def test_log_likelihood_matches_the_product(d, alpha):
    set_sizes = [1, 1, 1, 2, 2, 3, 5, 8, 1, 13, 2]
    sizes, mult = np.unique(set_sizes, return_counts=True)
    got = scaling.log_likelihood(d, alpha, sizes, mult)
    assert got == pytest.approx(_loglik_by_loops(d, alpha, set_sizes), rel=1e-11, abs=1e-9)


def _set_partitions(items):
    if not items:
        yield []
        return
    first, rest = items[0], items[1:]
    for part in _set_partitions(rest):
        yield [[first]] + part
        for i in range(len(part)):
            yield part[:i] + [[first] + part[i]] + part[i + 1:]


@pytest.mark.parametrize("d,alpha", [(0.0, 1.3), (0.5, 0.2), (0.9, -0.6), (-1.0, 3.0), (-0.25, 2.0)])
def test_partition_probabilities_sum_to_one(d, alpha):
    """exp(log L) is the probability of one labelled partition: over all of {1..6} they sum to 1."""
    total = 0.0
    for part in _set_partitions(list(range(6))):
        sizes, mult = np.unique([len(b) for b in part], return_counts=True)
        total += math.exp(scaling.log_likelihood(d, alpha, sizes, mult))
    assert total == pytest.approx(1.0, rel=1e-12)


def test_log_likelihood_edges():
    sizes, mult = [1, 2, 4], [3, 2, 1]
    assert scaling.log_likelihood(1e-12, 5.0, sizes, mult) == pytest.approx(
        scaling.log_likelihood(0.0, 5.0, sizes, mult), rel=1e-10)
    # six sets cannot come from a Dirichlet over three: probability zero
    assert scaling.log_likelihood(-1.0, 3.0, sizes, mult) == -math.inf
    with pytest.raises(InputError):
        scaling.log_likelihood(0.5, -0.6, sizes, mult)
    with pytest.raises(InputError):
        scaling.log_likelihood(0.5, 1.0, [1.5], [2])


# ------------------------------------------------------------------ Chinese restaurant


@pytest.mark.parametrize("d,alpha", [(0.0, 5.0), (0.5, 2.0), (0.8, -0.3), (-1.0, 8.0), (0.3, 40.0)])
def test_sampler_matches_the_law(d, alpha):
    rng = np.random.default_rng(42)
    n, reps = 300, 400
    kap, xi = np.empty(reps), np.empty(reps)
    for r in range(reps):
        sizes = scaling.sample_partition(n, d, alpha, rng)
        assert sizes.sum() == n and sizes.min() >= 1
        kap[r] = sizes.size / n
        xi[r] = np.count_nonzero(sizes == 1) / n
    for emp, law in ((kap, scaling.kappa(n, d, alpha)), (xi, scaling.uniqueness(n, d, alpha))):
        se = emp.std(ddof=1) / math.sqrt(reps)
        assert abs(emp.mean() - law) <= 3 * se + 1e-12, (emp.mean(), law, se)


def test_sampler_dirichlet_has_at_most_k_sets():
    sizes = scaling.sample_partition(5000, -0.5, 0.5 * 7, np.random.default_rng(1))
    assert sizes.size <= 7 and sizes.sum() == 5000
    # 100,000 records: its time is a figure of benchmarks/bench_pyc.py ("Chinese-restaurant sample")
    assert scaling.sample_partition(100_000, 0.6, 5.0, np.random.default_rng(2)).sum() == 100_000


def test_sampler_bad_input():
    with pytest.raises(InputError, match="whole"):
        scaling.sample_partition(100, -0.5, 1.7, np.random.default_rng(0))
    with pytest.raises(InputError):
        scaling.sample_partition(0, 0.5, 1.0)
    with pytest.raises(InputError, match="at most"):
        scaling.sample_partition(scaling.MAX_SAMPLE + 1, 0.5, 1.0)
    with pytest.raises(InputError):
        scaling.sample_partition(10, 1.0, 1.0)


# ------------------------------------------------------------------ likelihood fit


@pytest.mark.parametrize("d,alpha,seed", [(0.5, 10.0, 3), (0.0, 50.0, 4), (0.8, 2.0, 5), (0.3, 200.0, 6),
                                          (-0.2, 100.0, 7)])
def test_fit_recovers_parameters(d, alpha, seed):
    sizes = scaling.sample_partition(50_000, d, alpha, np.random.default_rng(seed))
    u, c = np.unique(sizes, return_counts=True)
    fit = scaling.fit_partition(u, c)
    assert fit.converged, fit.message
    assert fit.n_records == 50_000 and fit.n_sets == sizes.size
    assert abs(fit.d - d) < 0.07
    h, _ = scaling.to_h_gamma(d, alpha)
    # α, hence h, is weakly identified when d is large (sd of h ≈ 1 nat at d = 0.8, n = 5e4)
    assert abs(fit.h - h) < 0.3 * h + 0.3
    # the fitted law reproduces the sample's own correctness and uniqueness
    assert fit.kappa(50_000) == pytest.approx(sizes.size / 50_000, rel=0.05)
    assert fit.uniqueness(50_000) == pytest.approx(np.count_nonzero(sizes == 1) / 50_000, rel=0.1, abs=2e-3)
    # one size per set gives the same fit as counts of counts
    again = scaling.fit_partition(sizes)
    assert again.d == pytest.approx(fit.d, abs=1e-4)


def test_fit_finite_dirichlet():
    sizes = scaling.sample_partition(50_000, -1.0, 20.0, np.random.default_rng(8))
    fit = scaling.fit_partition(sizes)
    assert fit.d < 0 and fit.gamma < 0
    assert 19.0 < fit.support < 21.0
    nonneg = scaling.fit_partition(sizes, allow_negative_d=False)
    assert nonneg.d >= 0 and nonneg.support is None
    assert fit.log_likelihood >= nonneg.log_likelihood


def test_fit_of_a_large_population_costs_its_distinct_sizes():
    """Millions of records given as 3,000 distinct sizes fit (the time is a figure of benchmarks/bench_pyc.py)."""
    sizes, mult = large_population_by_distinct_sizes()
    assert 5e6 < sizes @ mult < 5e8
    fit = scaling.fit_partition(sizes, mult)
    assert 0 < fit.d < 1 and fit.converged
    payload = json.dumps(fit.to_dict())
    assert "h_bits" in payload


def test_fit_partition_bad_input():
    with pytest.raises(InputError, match="single set"):
        scaling.fit_partition([10], [1])
    with pytest.raises(InputError, match="unique"):
        scaling.fit_partition([1], [50])
    with pytest.raises(InputError):
        scaling.fit_partition([1, 2], [3])
    with pytest.raises(InputError):
        scaling.fit_partition([], [])
    with pytest.raises(InputError):
        scaling.fit_partition([0, 2], [3, 1])


# ------------------------------------------------------------------ PYC-MB and baselines

GALLERY = np.array([100, 200, 500, 1000, 2000, 5000, 10_000], dtype=float)


@pytest.mark.parametrize("h,gamma", [(8.0, 0.3), (12.0, 0.0), (6.0, -0.5), (15.0, 0.7), (10.0, 0.9),
                                     (4.0, 0.2), (9.0, 1.2), (13.8, -0.79), (19.05, 0.33)])
def test_pyc_mb_recovers_the_forecast(h, gamma):
    kap = scaling.kappa_h_gamma(GALLERY, h, gamma)
    fit = scaling.fit_pyc_mb(GALLERY, kap)
    assert fit.available, fit.reason
    truth = scaling.kappa_h_gamma(10 * GALLERY[-1], h, gamma)
    assert abs(fit.predict(10 * GALLERY[-1]) - truth) < 0.01
    assert fit.residual < 1e-8 and fit.rmse < 1e-4
    assert "psi^-1" in fit.formula


def test_pyc_mb_with_measurement_noise():
    rng = np.random.default_rng(11)
    h, gamma = 9.0, 0.5
    kap = np.clip(scaling.kappa_h_gamma(GALLERY, h, gamma) + rng.normal(0, 0.002, GALLERY.size), 0, 1)
    fit = scaling.fit_pyc_mb(GALLERY, kap)
    assert abs(fit.predict(1e5) - scaling.kappa_h_gamma(1e5, h, gamma)) < 0.02


def test_baselines_recover_their_own_curves():
    ent = scaling.fit_ent(GALLERY, 500 * (1 - (1 - 1 / 500) ** GALLERY) / GALLERY)
    assert ent.params["K"] == pytest.approx(500, rel=1e-4)
    exp = scaling.fit_exp(GALLERY, 0.2 + 0.8 * np.exp(-1e-3 * (GALLERY - 1)))
    assert exp.params["c"] == pytest.approx(0.2, abs=1e-4)
    assert exp.params["lambda"] == pytest.approx(1e-3, rel=1e-3)
    pol = scaling.fit_pol(GALLERY, np.minimum(1, 3.0 * GALLERY ** -0.3))
    assert pol.params["a"] == pytest.approx(3.0, rel=1e-3)
    assert pol.params["b"] == pytest.approx(0.3, rel=1e-3)
    for model in (ent, exp, pol):
        assert model.available and model.rmse < 1e-4
    assert "our form" in exp.formula and "our form" in pol.formula
    for fitter in (scaling.fit_exp, scaling.fit_pol):
        assert "is ours" in fitter.__doc__ and "supplement" in fitter.__doc__


def test_unavailable_fits_say_why():
    flat = scaling.forecast([(10, 1.0), (100, 1.0), (1000, 1.0)], at=[1e4])
    for name, model in flat.models.items():
        assert not model.available and "no decay" in model.reason
        assert flat.predictions[name] is None
        with pytest.raises(InputError, match="not available"):
            model.predict(100)
    rising = scaling.fit_pyc_mb([10, 100, 1000], [0.2, 0.5, 0.9])
    assert not rising.available and rising.reason


def test_forecast_all_models_holdout_and_band():
    h, gamma = 10.0, 0.5
    kap = scaling.kappa_h_gamma(GALLERY, h, gamma)
    fc = scaling.forecast(list(zip(GALLERY, kap)), at=[1e5, 1e6, 8e9], holdout=2)
    assert set(fc.models) == {"PYC-MB", "ENT", "EXP", "POL"}
    for name, pred in fc.predictions.items():
        assert pred.shape == (3,) and np.all((pred >= 0) & (pred <= 1)), name
    truth = scaling.kappa_h_gamma(fc.at, h, gamma)
    np.testing.assert_allclose(fc.predictions["PYC-MB"], truth, atol=0.01)
    held = fc.holdout["PYC-MB"]
    assert held.available and list(held.n) == list(GALLERY[-2:]) and held.rmse < 0.01
    assert all(fc.holdout[m].rmse > held.rmse for m in ("ENT", "EXP", "POL"))
    band = fc.band
    assert band.available and "jackknife" in band.method
    assert np.all(band.lower <= fc.predictions["PYC-MB"] + 1e-12)
    assert np.all(band.upper >= fc.predictions["PYC-MB"] - 1e-12)
    json.dumps(fc.to_dict(), default=lambda v: v.tolist())
    # the same through a pair of lists and through text
    fc2 = scaling.forecast((GALLERY, kap), at=1e5, holdout=0, band=False)
    assert fc2.holdout == {} and not fc2.band.available
    assert fc2.predictions["PYC-MB"][0] == pytest.approx(fc.predictions["PYC-MB"][0], abs=1e-6)


def test_forecast_band_reflects_noise():
    rng = np.random.default_rng(5)
    kap = scaling.kappa_h_gamma(GALLERY, 8.0, 0.4)
    noisy = np.clip(kap + rng.normal(0, 0.01, kap.size), 0, 1)
    exact = scaling.forecast((GALLERY, kap), at=[1e5], holdout=0).band
    rough = scaling.forecast((GALLERY, noisy), at=[1e5], holdout=0).band
    assert (rough.upper - rough.lower)[0] > (exact.upper - exact.lower)[0]


def test_forecast_holdout_needs_enough_points():
    fc = scaling.forecast([(100, 0.99), (1000, 0.8)], at=[1e4])
    assert all(not s.available and "fewer than two" in s.reason for s in fc.holdout.values())
    assert not fc.band.available and "at least 4 measurements" in fc.band.reason


def test_forecast_says_when_three_points_cannot_tell_much():
    """The README's old example: 3 points give a 2-point hold-out fit and a jackknife of exact 2-point fits."""
    fc = scaling.forecast([(100, 0.99), (1000, 0.80), (10_000, 0.55)], at=[1e5])
    assert not fc.band.available and "passes through them exactly" in fc.band.reason
    assert all(s.available and "as many as the model's parameters" in s.note for s in fc.holdout.values())
    if np.allclose(fc.holdout["PYC-MB"].predicted, fc.holdout["ENT"].predicted, atol=1e-4):
        assert "uniform limit" in fc.holdout["PYC-MB"].note and "uniform limit" in fc.holdout["ENT"].note
    four = scaling.forecast((GALLERY[:4], scaling.kappa_h_gamma(GALLERY[:4], 8.0, 0.4)), at=[1e5], holdout=0)
    assert four.band.available


@pytest.mark.parametrize("n,k,match", [
    ([100, 1000], [0.9, 1.2], r"\[0, 1\]"),
    ([100, 1000], [0.9, -0.1], r"\[0, 1\]"),
    ([0, 1000], [0.9, 0.5], "positive"),
    ([-5, 1000], [0.9, 0.5], "positive"),
    ([0.5, 1000], [0.9, 0.5], "at least 1"),
    ([100, float("nan")], [0.9, 0.5], "finite"),
    ([100, 1000], [0.9, float("inf")], "finite"),
    ([100], [0.9], "at least two"),
    ([100, 100, 1000], [0.9, 0.8, 0.5], "appears twice"),
    ([100, 1000], [0.9], "equal length"),
    ([1, 1000], [1.0, 0.5], "n > 1"),
])
def test_bad_measurements(n, k, match):
    for fitter in scaling.FITTERS.values():
        with pytest.raises(InputError, match=match):
            fitter(n, k)


def test_too_many_measurements():
    n = np.arange(2, scaling.MAX_POINTS + 3, dtype=float)
    with pytest.raises(InputError, match="10,000"):
        scaling.fit_pyc_mb(n, 1 / n)


def test_parse_points_and_forecast_arguments():
    n, k = scaling.parse_points("100:0.99, 1000:0.80;10000:0.5")
    assert list(n) == [100, 1000, 10000] and list(k) == [0.99, 0.8, 0.5]
    for bad in ("100-0.99,1000:0.8", "100:abc,1000:0.8", "100:0.9:1,1000:0.8", ""):
        with pytest.raises(InputError):
            scaling.parse_points(bad)
    pts = [(100, 0.99), (1000, 0.8), (10000, 0.5)]
    with pytest.raises(InputError):
        scaling.forecast(pts, at=[])
    with pytest.raises(InputError):
        scaling.forecast(pts, at=[0.5])
    with pytest.raises(InputError):
        scaling.forecast(pts, at=[1e4], holdout=-1)
    with pytest.raises(InputError):
        scaling.forecast([(1, 2, 3)], at=[1e4])
