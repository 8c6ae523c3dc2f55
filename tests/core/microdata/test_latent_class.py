"""The latent class model: exact on a known model, its uniqueness against the exact value, the NHANES target."""
from __future__ import annotations

import numpy as np
import pytest

from dashboard.core import microdata as M


def _known(cards, n_classes, seed, concentration=0.4) -> M.LatentClassModel:
    rng = np.random.default_rng(seed)
    weights = rng.dirichlet(np.full(n_classes, 4.0))
    log_phi = [np.log(rng.dirichlet(np.full(k, concentration), size=n_classes)) for k in cards]
    return M.LatentClassModel(weights=weights, log_phi=log_phi, cards=np.asarray(cards))


def _all_cells(cards) -> np.ndarray:
    """Every cell of the product space, in the order of itertools.product."""
    return np.indices(tuple(int(k) for k in cards), dtype=np.int32).reshape(len(cards), -1).T


def _cell_probs(model) -> np.ndarray:
    """p(x) of every cell (order of :func:`_all_cells`): Σ_c π_c ⊗_j φ_cj as outer products, which is faster
    than the model's own log_prob over a large grid; the model's log_prob with a companion column."""
    if model.companions:
        return np.exp(model.log_prob(_all_cells(model.cards)))
    total = 0.0
    for c, weight in enumerate(model.weights):
        term = np.asarray(weight)
        for lp in model.log_phi:
            term = np.multiply.outer(term, np.exp(lp[c]))
        total = total + term
    return np.ravel(total)


def _exact_uniqueness(model, cards, population: float) -> float:
    """Ξ(N) = Σ_x p(x) (1 − p(x))^(N − 1), summed over every cell of the product space."""
    p = _cell_probs(model)
    return float(np.sum(p * np.exp((population - 1) * np.log1p(-p))))


CARDS = [12, 8, 6, 5, 4]  # 11,520 cells


def test_probabilities_are_exact_and_the_margins_sum_out():
    model = _known(CARDS, 3, seed=1)
    cells = _all_cells(CARDS)
    p, se = model.cell_prob(cells)
    assert p.sum() == pytest.approx(1.0, abs=1e-12) and not se.any()
    # brute force: Σ_c π_c Π_j φ_cj(x_j) for a few cells
    for x in cells[[0, 777, 11_519]]:
        direct = sum(model.weights[c] * np.prod([np.exp(model.log_phi[j][c, x[j]]) for j in range(len(CARDS))])
                     for c in range(3))
        assert model.cell_prob(x[None, :])[0][0] == pytest.approx(direct, rel=1e-12)
    # the model of columns 0 and 2 is the full model summed over the others
    sub = model.sub([0, 2])
    full = p.reshape(CARDS).sum(axis=(1, 3, 4))
    grid = _all_cells([CARDS[0], CARDS[2]])
    np.testing.assert_allclose(sub.cell_prob(grid)[0], full.ravel(), rtol=1e-10)


@pytest.mark.parametrize("n_classes, population", [(3, 3_000), (5, 8_000)])
def test_uniqueness_of_a_known_model_is_recovered(n_classes, population):
    truth = _known(CARDS, n_classes, seed=n_classes)
    exact = _exact_uniqueness(truth, CARDS, population)
    records = truth.sample(population, seed=7)
    fitted = M.fit_latent_class(records, CARDS, seed=0)
    p, _ = fitted.cell_prob(records)
    predicted = float(M.uniqueness(p, population).mean())
    model_exact = _exact_uniqueness(fitted, CARDS, population)
    assert 0.1 < exact < 0.9
    assert abs(predicted - exact) < 0.02
    assert abs(model_exact - exact) < 0.03  # the closed form over all cells, not only the sampled ones
    # the closed form of the true model agrees with the mean of its own ξ over its records
    p_true, _ = truth.cell_prob(records)
    assert float(M.uniqueness(p_true, population).mean()) == pytest.approx(exact, abs=0.02)


def test_a_small_sample_nearly_all_unique_still_predicts_the_population():
    """The default rule's hard case: 2 % of a population drawn from a known 6- or 8-class model, where
    86-98 % of the sampled records are unique on the full tuple.  Matching that share alone cannot tell
    one class from eight; the shares with one or two columns left out can.  The truth is the exact Ξ(N)
    summed over all 28,800 cells; one class (the columns independent) misses it by about 0.1."""
    cards = [12, 10, 8, 6, 5]
    errors, independent = [], []
    for n_classes, population, sample in [(6, 10_000, 200), (8, 20_000, 400)]:
        for seed in range(4):
            truth = _known(cards, n_classes, seed=seed + 10, concentration=0.6)
            exact = _exact_uniqueness(truth, cards, population)
            records = truth.sample(sample, seed=seed)
            assert M.empirical(records).uniqueness > 0.85 and 0.2 < exact < 0.45
            for fitted, out in ((M.fit_latent_class(records, cards, seed=0), errors),
                                (M.fit_latent_class(records, cards, seed=0, n_classes=1), independent)):
                out.append(float(M.uniqueness(fitted.cell_prob(records)[0], population).mean()) - exact)
    assert np.mean(np.abs(errors)) < 0.035 and max(np.abs(errors)) < 0.08
    assert np.mean(independent) > 0.07


def test_the_blend_closes_the_rule_s_gap_and_says_how_it_chose():
    truth = _known(CARDS, 4, seed=5)
    fitted = M.fit_latent_class(truth.sample(3_000, seed=1), CARDS, seed=0)
    assert fitted.rule == "unique-shares" and fitted.blend is not None
    assert abs(fitted.blend["uniqueness_gap"]) < 1e-4 and 0 <= fitted.blend["weight_of_fewer"] <= 1
    lo, hi = fitted.blend["classes"]
    gaps = {r["classes"]: r["uniqueness_gap"] for r in fitted.selection}
    assert hi == lo + 1 and gaps[lo] > 0 >= gaps[hi]
    assert "one or two of them left out" in fitted.to_dict()["rule_text"]


def test_bic_recovers_the_number_of_classes_and_fits_are_deterministic():
    truth = _known([2, 5, 4, 3, 6, 3, 4, 5], 4, seed=3, concentration=0.3)
    records = truth.sample(20_000, seed=2)
    a = M.fit_latent_class(records, truth.cards, seed=0, selection="bic")
    b = M.fit_latent_class(records, truth.cards, seed=0, selection="bic")
    assert a.n_classes == 4 and a.rule == "bic"
    np.testing.assert_array_equal(a.weights, b.weights)
    assert [r["classes"] for r in a.selection][:4] == [1, 2, 3, 4]
    held = M.fit_latent_class(records, truth.cards, seed=0, selection="heldout")
    assert held.n_classes >= 3


def test_bad_choices_are_messages():
    codes = np.zeros((10, 2), dtype=np.int32)
    with pytest.raises(ValueError, match="chosen by"):
        M.fit_latent_class(codes, [1, 1], selection="magic")
    with pytest.raises(ValueError, match="at least two records"):
        M.fit_latent_class(codes[:1], [1, 1])


@pytest.fixture(scope="module")
def nhanes_six(cache_root):
    return M.prepare(M.nhanes_table(), ["sex", "age", "race", "education", "marital_status", "household_size"])


def test_nhanes_six_quasi_identifiers_at_ten_percent_meet_the_target(nhanes_six):
    """Fitted on 10 %, the whole set's uniqueness (0.732): the copula misses it by 0.08-0.09 (biased: the
    unordered columns' dependence is lost); the latent class model by 0.020 (seed 0; 0.022 on seeds 1
    and 2), within the issue's target of 0.03."""
    emp = M.empirical(nhanes_six.codes)
    assert emp.uniqueness == pytest.approx(0.7317, abs=1e-4)
    v = M.validate_model(M.LATENT_CLASS, nhanes_six.codes, nhanes_six.cards, emp.class_size == 1, 0.1, 5, seed=0)
    assert v["mae"] <= 0.05 and v["auc"] > 0.75
    assert v["mae"] <= 0.03
    c = M.validate_model(M.COPULA, nhanes_six.codes, nhanes_six.cards, emp.class_size == 1, 0.1, 5, seed=0)
    assert c["mae"] > 0.07 and v["mae"] < c["mae"] / 1.5
    assert 0 <= v["calibration"]["error"] < 0.15 and sum(b["records"] for b in v["calibration"]["bins"]) == 5 * 2_000


def _with_companion(model: M.LatentClassModel, partner: int, seed: int) -> M.LatentClassModel:
    """The known model with one more column, a relabelling of column ``partner`` (one-to-one, like ADULT's
    education and education_num): exact, its cells with another pairing have probability 0."""
    k = int(model.cards[partner])
    perm = np.random.default_rng(seed).permutation(k)
    with np.errstate(divide="ignore"):
        log_t = np.log(np.eye(k)[:, perm])
    log_phi = list(model.log_phi) + [model.log_phi[partner][:, np.argsort(perm)]]
    return M.LatentClassModel(weights=model.weights, log_phi=log_phi, cards=np.append(model.cards, k),
                              companions={len(model.cards): (partner, log_t)})


def test_companion_columns_are_found_only_when_one_to_one():
    rng = np.random.default_rng(0)
    a = rng.integers(0, 6, 500)
    codes = np.column_stack([a, (a * 5 + 3) % 6, rng.integers(0, 6, 500), np.zeros(500, int), a // 2,
                             np.zeros(500, int), (a + 1) % 6])
    # 1 and 6 relabel 0; 2 is independent; 3 and 5 have one value; 4 is a coarsening of 0 (not one-to-one)
    assert M.companions(codes) == {1: 0, 6: 0}
    assert M.companions(codes[:, [2, 3, 4]]) == {}


def test_a_companion_column_keeps_the_model_exact_and_its_pairing():
    truth = _with_companion(_known([6, 5, 4], 3, seed=2), partner=0, seed=1)
    cells = _all_cells(truth.cards)
    p = truth.cell_prob(cells)[0]
    assert p.sum() == pytest.approx(1.0, abs=1e-12)
    records = truth.sample(4_000, seed=3)
    assert M.companions(records) == {3: 0}
    fitted = M.fit_latent_class(records, truth.cards, seed=0)
    assert fitted.to_dict()["companions"] == [[3, 0]]
    q = fitted.cell_prob(cells)[0]
    assert q.sum() == pytest.approx(1.0, abs=1e-9) and q[p == 0].sum() < 0.01  # the pairing is kept
    # the partner summed out: the companion is an ordinary column, exact against the full table
    sub = fitted.sub([3, 1])
    full = q.reshape(tuple(truth.cards)).sum(axis=(0, 2)).T
    np.testing.assert_allclose(sub.cell_prob(_all_cells([6, 5]))[0], full.ravel(), rtol=1e-9)
    both = fitted.sub([3, 0])
    assert both.companions and both.cell_prob(np.array([[0, 0], [1, 0]]))[0].min() < 0.01


def test_a_small_sample_with_a_companion_column_predicts_the_exact_uniqueness():
    """2 % of a population drawn from a known 6-class model with one column repeated under other labels: the
    truth is the exact Ξ(N) over every cell.  The fitted model finds the pairing and recovers Ξ."""
    errors = []
    for seed in range(3):
        base = _known([12, 10, 8, 6, 5], 6, seed=seed + 10, concentration=0.6)
        truth = _with_companion(base, partner=0, seed=seed)
        exact = _exact_uniqueness(truth, truth.cards, 10_000)
        assert exact == pytest.approx(_exact_uniqueness(base, base.cards, 10_000), abs=1e-9)
        records = truth.sample(200, seed=seed)
        fitted = M.fit_latent_class(records, truth.cards, seed=0)
        assert fitted.to_dict()["companions"] == [[5, 0]]
        errors.append(float(M.uniqueness(fitted.cell_prob(records)[0], 10_000).mean()) - exact)
    assert np.mean(np.abs(errors)) < 0.035 and max(np.abs(errors)) < 0.08


def test_the_rule_leaves_out_more_columns_only_while_nearly_all_records_are_unique():
    rng = np.random.default_rng(4)
    sparse_records = rng.integers(0, 20, size=(120, 9))  # 9 columns of 20 values: unique even with 2 left out
    deep = M.fit_latent_class(sparse_records, [20] * 9, seed=0).checked
    truth = _known(CARDS, 3, seed=1)
    usual = M.fit_latent_class(truth.sample(600, seed=0), CARDS, seed=0).checked
    assert deep["most_left_out"] >= 3 and usual["most_left_out"] == 2
    assert usual["tuples"] == 1 + 5 + 10 and deep["tuples"] > 1 + 9 + 36


@pytest.mark.slow
def test_a_sample_unique_even_with_two_columns_left_out_still_predicts_the_population():
    """1 % of a population drawn from a known 8-class model over 8 columns: 99-100 % of the sampled records are
    unique on the full tuple, and nearly all with two columns left out, so the rule also leaves out three.  The
    truth is the exact Ξ(N) over all 829,440 cells; stopping at two left out misses it by 0.04 on average
    (0.11 on one seed), leaving out three by under 0.03."""
    cards = [10, 9, 8, 8, 6, 6, 5, 4]
    errors = []
    for seed in range(4):
        truth = _known(cards, 8, seed=seed + 20, concentration=0.5)
        exact = _exact_uniqueness(truth, cards, 20_000)
        records = truth.sample(200, seed=seed)
        fitted = M.fit_latent_class(records, cards, seed=0)
        assert M.empirical(records).uniqueness >= 0.98 and fitted.checked["most_left_out"] == 3
        errors.append(float(M.uniqueness(fitted.cell_prob(records)[0], 20_000).mean()) - exact)
    assert np.mean(np.abs(errors)) < 0.03 and max(np.abs(errors)) < 0.06
