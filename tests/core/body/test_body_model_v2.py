"""Body model v2 (SPEC §1.6): correlated (H, ln W), log-normal weight, mixtures, coverage; the person's own set."""
from __future__ import annotations

import math

import numpy as np
import pandas as pd
import pytest
from scipy.stats import multivariate_normal, norm
from support.synthetic import make_model

from dashboard.core import regions as ag
from dashboard.core.body import (
    COVERAGE,
    RHO_GROUPS,
    check_model,
    correlation_table,
    lognormal_params,
    nhanes_correlation,
    rho_for_groups,
    self_report_offsets,
)
from dashboard.core.country import load_country_model
from dashboard.core.errors import InputError
from dashboard.core.personal import Profile, advise, compute_cas, expected_anonymity_set, reidentification, what_ifs
from dashboard.core.regions import Scenario

RHO = pd.DataFrame([{"sex": s, "age_from": lo, "age_to": hi, "rho": r}
                    for s, r in (("female", 0.3), ("male", 0.5)) for lo, hi in RHO_GROUPS])


def v2(**kw):
    return make_model(model="v2", correlation=RHO, **kw)


def _rect_scipy(mh, sh, mu, sigma, rho, hb, wb):
    """Pr[h0 ≤ H < h1, w0 ≤ W < w1] with (H, ln W) bivariate normal, by scipy's CDF."""
    cov = [[sh * sh, rho * sh * sigma], [rho * sh * sigma, sigma * sigma]]
    mvn = multivariate_normal([mh, mu], cov)
    F = lambda h, w: mvn.cdf([h, math.log(w)])
    return F(hb[1], wb[1]) - F(hb[0], wb[1]) - F(hb[1], wb[0]) + F(hb[0], wb[0])


# ----------------------------------------------------------------------------- the pieces


def test_lognormal_moment_matching():
    mu, sigma = lognormal_params(80.0, 16.0)
    assert sigma**2 == pytest.approx(math.log(1 + 0.04))
    # the log-normal's mean and sd are the survey's
    assert math.exp(mu + sigma**2 / 2) == pytest.approx(80.0, rel=1e-12)
    assert math.sqrt((math.exp(sigma**2) - 1) * math.exp(2 * mu + sigma**2)) == pytest.approx(16.0, rel=1e-12)


def test_unknown_model_is_a_clear_error():
    with pytest.raises(InputError, match="unknown body model 'v3'"):
        check_model("v3")
    with pytest.raises(InputError, match="v2 or paper"):
        make_model(model="bogus")
    assert check_model("PAPER") == "paper" and check_model(None) == "v2"


def test_with_model_is_memoised_and_keeps_the_study():
    m = v2(study=(30, 60))
    p = m.with_model("paper")
    assert p.body_model == "paper" and p.study == m.study and p is m.with_model("paper")
    assert p.with_model("v2") is m and m.with_study((18, 75)).body_model == "v2"


def test_cell_probability_matches_scipy_per_body_group():
    m = v2()
    hm, hs, mu, sigma, rho = m.v2_params()
    for g in (0, 5, len(m.body) - 1):
        for hb, wb in (((160, 165), (60, 65)), ((175, 180), (90, 95)), ((150, 152), (100, 101))):
            ours = m.group_cell(hb, wb)[g]
            assert ours == pytest.approx(_rect_scipy(hm[g], hs[g], mu[g], sigma[g], rho[g], hb, wb), rel=1e-8, abs=1e-13)


def test_marginals_are_normal_height_and_lognormal_weight():
    m = v2()
    hm, hs, mu, sigma, _ = m.v2_params()
    assert m.group_cell((170, 175), None) == pytest.approx(norm.cdf(175, hm, hs) - norm.cdf(170, hm, hs), rel=1e-12)
    want = norm.cdf(np.log(85), mu, sigma) - norm.cdf(np.log(80), mu, sigma)
    assert m.group_cell(None, (80, 85)) == pytest.approx(want, rel=1e-12)
    assert (m.group_cell(None, None) == 1).all()


def test_joint_grid_equals_pointwise_rectangles_and_sums_to_one():
    m = v2()
    j = m.joint(5, 5)
    assert j.model == "v2" and np.abs(j.prob.sum(axis=(2, 3)) - 1).max() < 1e-12
    s, a = 1, 3
    for hi, wi in ((10, 20), (15, 25), (3, 40)):
        hb = (j.height.lo[hi], j.height.hi[hi])
        wb = (j.weight.lo[wi], j.weight.hi[wi])
        assert j.prob[s, a, hi, wi] == pytest.approx(float(m.cell_probability(hb, wb)[s, a]), rel=1e-9, abs=1e-15)


def test_mixture_of_joint_distributions_for_65_75():
    """SPEC §1.1/§1.6: Pr[cell | 65–75] = Σ_g w_g Pr_g[cell], each Pr_g correlated within its body group."""
    m = v2()
    a = [g.label for g in m.age_groups].index("65–75")
    hm, hs, mu, sigma, rho = m.v2_params()
    for s in (0, 1):
        used = np.flatnonzero(m.body_weights[s, a])
        assert len(used) == 2 and m.body_weights[s, a, used] == pytest.approx([0.5, 0.5])
        hb, wb = (165, 170), (70, 75)
        want = sum(0.5 * _rect_scipy(hm[g], hs[g], mu[g], sigma[g], rho[g], hb, wb) for g in used)
        assert float(m.cell_probability(hb, wb)[s, a]) == pytest.approx(want, rel=1e-8)
        # … which is not the product of the mixed marginals (correlation does not factor across the mixture)
        ph = float(m.cell_probability(hb, None)[s, a])
        pw = float(m.cell_probability(None, wb)[s, a])
        assert abs(want - ph * pw) > 1e-4


def test_joint_against_monte_carlo():
    m = v2()
    hm, hs, mu, sigma, rho = m.v2_params()
    g = 14
    rng = np.random.default_rng(5)
    n = 1_000_000
    z1 = rng.standard_normal(n)
    z2 = rho[g] * z1 + math.sqrt(1 - rho[g] ** 2) * rng.standard_normal(n)
    h, w = hm[g] + hs[g] * z1, np.exp(mu[g] + sigma[g] * z2)
    assert w.mean() == pytest.approx(m.body.weight_mean[g], rel=3e-3)
    assert w.std() == pytest.approx(m.body.weight_sd[g], rel=1e-2)
    P = m.group_joint(5, 5)[g]
    hg, wg = m.grid("height", 5), m.grid("weight", 5)
    counts, _, _ = np.histogram2d(h, w, bins=[hg.edges, wg.edges])
    freq = counts / n
    se = np.sqrt(P * (1 - P) / n)
    assert np.all(np.abs(freq - P) <= 5 * se + 2e-6)


def test_coverage_grid_holds_99_9_percent_and_has_no_bmi_filter():
    m = v2()
    j = m.joint(5, 5)
    cov = j.coverage
    share = j.covered_share
    assert (share >= COVERAGE - 1e-12).all() and (share < 1).all()
    # dropping the least probable kept cell falls below the target: the grid is minimal
    for s in range(2):
        for a in range(cov.shape[1]):
            kept = j.prob[s, a][cov[s, a]]
            assert kept.sum() - kept.min() < COVERAGE
    assert np.array_equal(j.profile_mask_by_group((17, 30)), cov)  # the BMI range plays no part
    bmi_out = ~j.plausible()
    assert (cov & bmi_out[None, None]).any()  # v2 keeps cells the paper model calls implausible


# ----------------------------------------------------------------------------- the correlation


def test_nhanes_correlation_table(cache_root):
    t = nhanes_correlation(cache_root)
    assert len(t) == 24 and t["n"].sum() == 4850
    assert t["rho"].between(0.2, 0.6).all()  # SPEC §1.6: 0.2–0.6
    assert 0.3 <= t["rho"].median() <= 0.4
    assert t[t.sex == "male"]["rho"].median() > t[t.sex == "female"]["rho"].median()
    # deterministic and equal to a direct computation
    from census_loaders import cache, nhanes

    d = nhanes.adults(cache.microdata("nhanes", cache_root))
    sel = (d.sex == "male") & (d.age >= 40) & (d.age < 45)
    assert t.query("sex == 'male' and age_from == 40")["rho"].iloc[0] == pytest.approx(
        np.corrcoef(d.height_cm[sel], np.log(d.weight_kg[sel]))[0, 1], rel=1e-12)


def test_rho_for_groups_weights_years_and_uses_nearest():
    r = rho_for_groups(RHO.assign(rho=np.where(RHO.age_from < 45, 0.2, 0.6)), [0, 0, 1], [40, 80, 18], [50, np.inf, 20])
    assert r[0] == pytest.approx(0.4) and r[1] == pytest.approx(0.6) and r[2] == pytest.approx(0.2)


def test_correlation_table_of_generated_records():
    rng = np.random.default_rng(1)
    n = 20_000
    z1 = rng.standard_normal(n)
    z2 = 0.5 * z1 + math.sqrt(0.75) * rng.standard_normal(n)
    df = pd.DataFrame({"sex": "female", "age": 30.0, "height_cm": 165 + 7 * z1, "weight_kg": np.exp(4.2 + 0.2 * z2)})
    t = correlation_table(df)
    assert t.query("sex == 'female' and age_from == 30")["rho"].iloc[0] == pytest.approx(0.5, abs=0.02)
    assert t.query("sex == 'male'")["rho"].isna().all()


def test_missing_nhanes_is_a_clear_error(tmp_path):
    with pytest.raises(InputError, match="nhanes.parquet is missing.*anonset data build"):
        nhanes_correlation(tmp_path)
    m = make_model(model="v2", cache_root=tmp_path)
    with pytest.raises(InputError, match="NHANES"):
        m.joint(5, 5)


# ----------------------------------------------------------------------------- CAS under v2


def test_v2_funnel_what_ifs_and_advice_agree():
    m = v2()
    p = Profile.build("XX", "01002", "female", "65-75", height="165-170", weight="95-100")
    res = compute_cas(m, p)
    assert res.body_model == "v2" and res.plausible is None
    assert "implausible_bmi" not in {w.code for w in res.warnings}
    N = m.counts[1, 0, [g.label for g in m.age_groups].index("65–75")]
    assert res.cas == pytest.approx(N * float(m.cell_probability((165, 170), (95, 100))[0, -1]), rel=1e-12)
    wi = what_ifs(m, p)
    for kind in ("height", "weight"):
        what = getattr(wi, kind)
        assert what.cas[what.chosen][0] == pytest.approx(res.cas, rel=1e-9)
        width = 5
        for start, value in list(zip(what.keys, what.cas))[::4]:
            assert value == pytest.approx(compute_cas(m, p.replace(**{kind: (start, start + width)})).cas, rel=1e-9)
    for adv in advise(m, p, ks=(50,)):
        for o in adv.options:
            assert compute_cas(m, o.profile).cas == pytest.approx(o.cas, rel=1e-9) and o.cas >= 50
    paper = compute_cas(m, p, body_model="paper")
    assert paper.body_model == "paper" and paper.cas != pytest.approx(res.cas)


def test_expected_anonymity_set_is_at_least_one():
    rng = np.random.default_rng(3)
    for lam, n in zip(rng.exponential(5, 500), rng.integers(1, 10**9, 500)):
        lam = min(lam, n)
        e = expected_anonymity_set(lam, n)
        assert e >= 1 and e == pytest.approx(1 + (n - 1) * lam / n)
    assert expected_anonymity_set(0.0, 1000) == 1.0
    assert expected_anonymity_set(1e-9, 1e8) == pytest.approx(1.0)
    r = reidentification(0.3, 1e6)
    assert r.expected_anonymity_set == pytest.approx(1.3, rel=1e-6) and r.others == pytest.approx(0.3, rel=1e-5)
    # consistent with κ: for large N, κ ≈ E[1 / (1 + X)] ≥ 1 / E[1 + X] (Jensen)
    assert r.correctness >= 1 / r.expected_anonymity_set


def test_cas_result_leads_with_the_own_set():
    m = v2()
    tiny = compute_cas(m, Profile.build("XX", "01001", "female", 30, height=199, weight=41, height_width=1,
                                            weight_width=1))
    assert tiny.cas < 1 <= tiny.expected_anonymity_set
    d = tiny.to_dict()
    assert d["expected_anonymity_set"] == pytest.approx(1 + d["others"]) and d["body_model"] == "v2"


# ----------------------------------------------------------------------------- real data


def test_paper_left_out_shares_and_v2_covers_them(cache_root):
    """SPEC §1.6: about 42 % of US adults (26 % of Germans) sit in cells the paper model leaves out."""
    from census_loaders import cache, nhanes

    d = nhanes.adults(cache.microdata("nhanes", cache_root))
    h, w = np.floor(d.height_cm / 5) * 5 + 2.5, np.floor(d.weight_kg / 5) * 5 + 2.5
    bmi = w / (h / 100) ** 2
    assert ((bmi < 17) | (bmi > 30)).mean() == pytest.approx(0.42, abs=0.005)  # real people, measured
    # the paper model's own mass outside its grid: Germany 26 %; the US (normal weights) even more than the real 42 %
    for code, lo, hi in (("DE", 0.25, 0.27), ("US", 0.42, 0.6)):
        paper = ag.country_cdf(Scenario(countries=(code,), model="paper"), code, root=cache_root)
        assert lo <= 1 - paper.covered_share <= hi
        v = ag.country_cdf(Scenario(countries=(code,)), code, root=cache_root)
        assert v.covered_share >= COVERAGE - 1e-9
        # the left-out people are among the easiest to single out: v2 has more people at small k
        assert ag.share_below(Scenario(countries=(code,)), [5], root=cache_root)[code][5.0] > 0


def test_real_v2_models_sum_to_one(cache_root):
    for code in ("DE", "US", "FR"):
        m = load_country_model(code, root=cache_root)
        assert m.body_model == "v2"
        j = m.joint(5, 5)
        assert np.abs(j.prob.sum(axis=(2, 3)) - 1).max() < 1e-12
        assert (j.covered_share >= COVERAGE - 1e-12).all()


def test_self_report_correction_is_an_option_for_self_reported_statistics(cache_root):
    """SPEC §1.6: Germany's statistics are self-reported; the correction is offered, never applied silently."""
    de = load_country_model("DE", root=cache_root)
    fixed = load_country_model("DE", root=cache_root, self_report_correction=True)
    assert de.body.self_reported and not de.self_report_correction
    dh, dw = self_report_offsets(cache_root)
    assert dh == pytest.approx(1.48, abs=0.01) and dw == pytest.approx(-0.81, abs=0.01)
    assert fixed.v2_params()[0] == pytest.approx(de.v2_params()[0] - dh)
    mu_fixed, _ = lognormal_params(de.body.weight_mean - dw, de.body.weight_sd)
    assert fixed.v2_params()[2] == pytest.approx(mu_fixed)
    assert any("corrected to measured" in n for n in fixed.model_notes())
    assert any("not corrected" in n for n in de.model_notes())
    us = load_country_model("US", root=cache_root, self_report_correction=True)
    assert not us.body.self_reported  # measured: nothing to correct
    assert us.v2_params()[0] == pytest.approx(load_country_model("US", root=cache_root).v2_params()[0])
