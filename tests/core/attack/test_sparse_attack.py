"""Scoreboard-RH (SPEC §6): hand-made records, a loop reference, the noise model, and the measured curves."""
from __future__ import annotations

import math
import re

import numpy as np
import pandas as pd
import pytest

from dashboard.core import attack as sa
from dashboard.core import scaling as pyc_fit
from dashboard.core.errors import InputError

DAY = sa.SECONDS_PER_DAY


def _ratings(rows: list[tuple[int, int, float, int]]) -> sa.Ratings:
    """(user, item, stars, day) rows → Ratings."""
    df = pd.DataFrame(rows, columns=["user_id", "movie_id", "rating", "day"])
    df["timestamp"] = df.pop("day") * DAY + 3600
    return sa.ratings_from_frame(df)


def _aux(data: sa.Ratings, items, stars, days) -> sa.Aux:
    col = {int(v): i for i, v in enumerate(data.items)}
    return sa.Aux(np.array([[col[i] for i in items]]), np.array([stars], float), np.array([days], float) + 1)


@pytest.fixture
def small():
    # users 1–5 all rated the popular items 10 and 11 alike; user 3 alone rated the rare item 99
    rows = [(u, 10, 4.0, 100) for u in range(1, 6)] + [(u, 11, 3.0, 200) for u in range(1, 6)]
    rows += [(3, 99, 5.0, 300), (1, 12, 2.0, 400), (2, 12, 2.0, 400)]
    return _ratings(rows)


def test_a_unique_rare_item_identifies(small):
    g = sa.make_gallery(small)
    dec = sa.match(g, _aux(small, [10, 11, 99], [4, 3, 5], [100, 200, 300]), tol_stars=0, tol_days=0)
    assert small.users[dec.best[0]] == 3
    assert dec.matched[0] and dec.answer()[0] == dec.best[0]
    # scores are the weights 1/ln(1 + supp): 5 records rated 10 and 11, one rated 99
    s = sa.score(g, _aux(small, [10, 11, 99], [4, 3, 5], [100, 200, 300]), 0, 0)[0]
    common = 2 / math.log(6)
    assert s == pytest.approx([common, common, common + 1 / math.log(2), common, common])
    ecc = (1 / math.log(2)) / np.std(s)
    assert dec.eccentricity[0] == pytest.approx(ecc)


def test_the_eccentricity_test_refuses_ties(small):
    g = sa.make_gallery(small)
    dec = sa.match(g, _aux(small, [10, 12], [4, 2], [100, 400]), tol_stars=0, tol_days=0)
    assert not dec.matched[0]  # users 1 and 2 score the same
    assert dec.answer()[0] == -1
    assert dec.eccentricity[0] == 0
    # only common items: every record scores the same, σ = 0, no match and the uniform distribution
    dec = sa.match(g, _aux(small, [10, 11], [4, 3], [100, 200]), tol_stars=0, tol_days=0)
    assert not dec.matched[0]
    assert dec.entropy[0] == pytest.approx(math.log2(5))


def test_tolerances_on_rating_and_date(small):
    g = sa.make_gallery(small)
    w = 1 / math.log(2)
    for stars, day, tol_s, tol_d, hit in [(5, 300, 0, 0, True), (4, 300, 0, 0, False), (4, 300, 1, 0, True),
                                          (4.5, 303, 0.5, 3, True), (5, 304, 1, 3, False), (5, 296, 0, 3, False)]:
        s = sa.score(g, _aux(small, [99], [stars], [day]), tol_s, tol_d)[0]
        assert s[2] == pytest.approx(w if hit else 0.0), (stars, day, tol_s, tol_d)
        assert np.count_nonzero(s) == int(hit)


def test_eccentricity_threshold_phi(small):
    g = sa.make_gallery(small)
    aux = _aux(small, [10, 11, 99], [4, 3, 5], [100, 200, 300])
    ecc = sa.match(g, aux, 0, 0).eccentricity[0]
    assert sa.match(g, aux, 0, 0, phi=ecc * 0.99).matched[0]
    assert not sa.match(g, aux, 0, 0, phi=ecc * 1.01).matched[0]
    with pytest.raises(InputError):
        sa.match(g, aux, 0, 0, phi=0)


def _loop_score(data: sa.Ratings, rows, aux: sa.Aux, tol_s, tol_d) -> np.ndarray:
    """The definition, one record and one item at a time."""
    r = data.rating[rows].toarray()
    d = data.day[rows].toarray()
    supp = (r > 0).sum(axis=0)
    out = np.zeros((aux.items.shape[0], len(rows)))
    for t in range(aux.items.shape[0]):
        for j in range(len(rows)):
            for k, item in enumerate(aux.items[t]):
                if r[j, item] > 0 and abs(r[j, item] - aux.rating[t, k]) <= tol_s and \
                        abs(d[j, item] - aux.day[t, k]) <= tol_d:
                    out[t, j] += 1 / math.log(1 + supp[item])
    return out


def test_vectorised_scores_equal_the_definition():
    rng = np.random.default_rng(7)
    rows = []
    for u in range(40):
        for item in rng.choice(60, size=rng.integers(8, 20), replace=False):
            rows.append((u, int(item), float(rng.integers(1, 11) / 2), int(rng.integers(0, 60))))
    data = _ratings(rows)
    cfg = sa.AttackConfig(known=6, noise_stars=0.5, noise_days=5, wrong_share=0.34, sizes=(25,), repeats=1)
    gallery_rows = np.sort(rng.choice(data.n_users, 25, replace=False))
    g = sa.make_gallery(data, gallery_rows)
    aux = sa.make_aux(data, gallery_rows, cfg, rng)
    fast = sa.score(g, aux, 0.5, 5)
    assert fast == pytest.approx(_loop_score(data, gallery_rows, aux, 0.5, 5))
    # Π ∝ exp(score/σ) and H(Π) from the definition
    dec = sa.decide(fast)
    for t in range(3):
        z = fast[t] / fast[t].std()
        pi = np.exp(z - z.max()) / np.exp(z - z.max()).sum()
        assert np.exp(dec.log_pi[t]) == pytest.approx(pi)
        assert dec.entropy[t] == pytest.approx(-(pi * np.log2(pi)).sum())


@pytest.fixture(scope="module")
def movielens(cache_root):
    return sa.movielens()


def test_auxiliary_information_respects_the_noise_model(movielens):
    data = movielens
    cfg = sa.AttackConfig(known=8, noise_stars=1.0, noise_days=14, wrong_share=0.25)
    rows = np.arange(data.n_users)
    aux = sa.make_aux(data, rows, cfg, np.random.default_rng(3))
    assert aux.items.shape == (data.n_users, 8)
    rated = data.rating[rows[:, None], aux.items].toarray()
    truth_r = rated
    truth_d = data.day[rows[:, None], aux.items].toarray()
    right = truth_r > 0
    assert (right.sum(axis=1) == 6).all()  # round(0.25 · 8) = 2 wrong items, never rated by the target
    assert np.all(np.abs(aux.rating[right] - truth_r[right]) <= 1.0)
    assert np.all(np.abs(aux.day[right] - truth_d[right]) <= 14)
    assert np.all((aux.rating >= 0.5) & (aux.rating <= 5.0)) and np.all(aux.rating * 2 == np.round(aux.rating * 2))
    assert all(len(set(r)) == 8 for r in aux.items.tolist())
    assert np.abs(aux.day[right] - truth_d[right]).max() == 14  # the whole range is used


def test_identification_grows_with_known_items(movielens):
    cfg = sa.AttackConfig(noise_stars=1.0, noise_days=14, repeats=3, seed=5)
    rows = sa.sweep_known(movielens, cfg, [1, 2, 4, 8])
    kappa = [r["kappa"] for r in rows]
    assert all(b > a for a, b in zip(kappa, kappa[1:])), kappa
    assert kappa[0] < 0.8 and kappa[-1] > 0.99
    for r in rows:
        assert r["kappa"] + r["wrong"] + r["no_match"] == pytest.approx(1.0)


def test_identification_falls_with_gallery_size(movielens):
    measured, runs = sa.measure(movielens, sa.AttackConfig(known=2, sizes=(50, 200, 671), repeats=5, seed=2))
    kappa = [m.kappa for m in measured]
    assert kappa[0] > kappa[1] > kappa[2], kappa
    assert len(runs) == 15
    assert [m.prior_bits for m in measured] == pytest.approx([math.log2(n) for n in (50, 200, 671)])
    assert all(0 <= m.entropy <= m.prior_bits for m in measured)


def test_the_papers_headline_holds_on_movielens(movielens):
    """8 ratings, 2 of them wrong, dates ± 14 days: the paper identifies 99 % of Netflix subscribers."""
    measured, _ = sa.measure(movielens, sa.AttackConfig(known=8, wrong_share=0.25, sizes=(671,), repeats=2))
    assert measured[0].kappa > 0.98
    assert measured[0].wrong < 0.01


def test_a_measurement_does_not_depend_on_the_other_sizes(movielens):
    a, _ = sa.measure(movielens, sa.AttackConfig(known=3, sizes=(100, 300), repeats=2, seed=9))
    b, _ = sa.measure(movielens, sa.AttackConfig(known=3, sizes=(50, 300, 500), repeats=2, seed=9))
    assert a[1].kappa == b[1].kappa and a[1].entropy == b[1].entropy


def test_holdout_is_pyc_mb_fitted_without_the_largest_n(movielens):
    exp = sa.run_experiment(movielens, sa.AttackConfig(known=2, repeats=3))
    n = np.array([m.n for m in exp.measured], float)
    k = np.array([m.kappa for m in exp.measured])
    hold = exp.holdout()
    fit = pyc_fit.fit_pyc_mb(n[:-1], k[:-1])
    assert fit.available
    assert hold["n"] == 671 and hold["measured"] == k[-1]
    assert hold["forecast"] == pytest.approx(fit.predict(671.0), abs=1e-6)
    assert hold["error"] == pytest.approx(hold["forecast"] - hold["measured"])
    assert abs(hold["error"]) < 0.05
    out = sa.experiment_dict(exp)
    assert [p["n"] for p in out["forecast"]["PYC-MB"]] == [1e6, 1e8]
    assert 0 <= out["forecast"]["PYC-MB"][1]["kappa"] <= out["forecast"]["PYC-MB"][0]["kappa"] <= k[-1]


@pytest.mark.parametrize("change, message", [
    ({"known": 0}, "known items m"), ({"known": 21}, "between 1 and 20"), ({"noise_stars": 0.3}, "multiple of 0.5"),
    ({"noise_days": -1}, "date noise"), ({"noise_days": 400}, "date noise"), ({"wrong_share": 1.5}, "wrong items"),
    ({"sizes": (50, 1000)}, "larger than the data set (671 users)"), ({"sizes": (1, 50)}, "gallery size"),
    ({"sizes": (50, 50)}, "only once"), ({"sizes": ()}, "at least one"), ({"repeats": 0}, "repetitions"),
    ({"repeats": 2.5}, "whole number"), ({"phi": -1}, "phi"), ({"sizes": tuple(range(10, 140, 10))}, "at most 12"),
])
def test_bad_settings_are_clear_errors(change, message):
    cfg = sa.AttackConfig(**change)
    with pytest.raises(InputError, match=re.escape(message)):
        sa.check_config(cfg, 671)
