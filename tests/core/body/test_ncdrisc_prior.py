"""Issue 27: the NCD-RisC body prior of every country, against the NCD-RisC numbers it comes from."""
from __future__ import annotations

import json
import math

import numpy as np
import pytest
from scipy import stats

from census_loaders import cache, ncdrisc
from dashboard.core import personal as C
from dashboard.core.body import (
    PRIOR_GROUPS,
    cached_bmi,
    cached_cohorts,
    ncdrisc_prior,
    ncdrisc_prior_frame,
    nhanes_stats,
    weight_moments,
)
from dashboard.core.country import body_statistics, load_country_model
from dashboard.core.errors import InputError


@pytest.fixture(scope="module")
def kr(cache_root):
    return ncdrisc_prior("KR", 2010, cache_root)


def _height(iso3, sex, years, cache_root):
    t = cache.height_cohorts(cache_root)
    t = t[(t["iso3"] == iso3) & (t["sex"] == sex)].set_index("birth_year")["height_cm"]
    return float(np.mean([t[min(y, 1996)] for y in years]))


def test_moments_come_from_the_ncdrisc_numbers(kr, cache_root):
    assert len(kr) == 2 * len(PRIOR_GROUPS) and kr.attrs["prior_country"] == "KR" and kr.attrs["year"] == 2010
    bmi = cache.bmi_gamma(cache_root)
    st = nhanes_stats(cache_root).set_index(["sex", "age_from"])
    for sex, lo in (("male", 40.0), ("female", 65.0), ("male", 85.0), ("female", 18.0)):
        row = kr[(kr["sex"] == sex) & (kr["age_from"] == lo)].iloc[0]
        hi = 100.0 if lo == 85 else lo + (2 if lo == 18 else 5)
        # height: the mean at 18 of the cohorts born in 2010 − hi + 1 … 2010 − lo, plus NHANES' change with age
        at18 = _height("KOR", sex, range(int(2010 - hi + 1), int(2010 - lo) + 1), cache_root)
        assert row["height_at_18"] == pytest.approx(at18, abs=1e-9)
        nh = st.loc[(sex, min(lo, 80.0))]
        assert row["height_mean"] == pytest.approx(at18 + nh["height_offset"], abs=1e-9)
        assert row["height_sd"] == nh["height_sd"]
        # BMI: the gamma of the NCD-RisC row (18–20 takes 20–24; 85+ its own)
        b = bmi[(bmi["iso3"] == "KOR") & (bmi["sex"] == sex) & (bmi["age_from"] == max(lo, 20.0))].iloc[0]
        assert (row["bmi_k"], row["bmi_theta"]) == (b["k"], b["theta"])
        assert row["bmi_mean"] == pytest.approx(b["mean_bmi"], rel=1e-9)
    # Korean men 40–45 weigh in the 70s, not Germany's ~88 kg
    men40 = kr[(kr["sex"] == "male") & (kr["age_from"] == 40)].iloc[0]
    assert 72 < men40["weight_mean"] < 80


def test_weight_moments_closed_forms():
    # independent height and BMI: E[W] = kθ·E[H²], E[W²] = k(k+1)θ²·E[H⁴]
    hm, hs, k, th = 170.0, 7.0, 25.0, 1.05
    m = weight_moments(hm, hs, k, th, 0.0)
    eh2 = (hm**2 + hs**2) / 1e4
    eh4 = (hm**4 + 6 * hm**2 * hs**2 + 3 * hs**4) / 1e8
    assert m["weight_mean"] == pytest.approx(k * th * eh2, rel=1e-12)
    assert m["weight_sd"] == pytest.approx(math.sqrt(k * (k + 1) * th**2 * eh4 - (k * th * eh2) ** 2), rel=1e-9)
    # by simulation with the copula: mean, SD and corr(H, ln W)
    rng = np.random.default_rng(5)
    z1, z2 = rng.standard_normal((2, 200_000))
    r = 0.3
    h = hm + hs * z1
    b = stats.gamma.ppf(stats.norm.cdf(r * z1 + math.sqrt(1 - r * r) * z2), k, scale=th)
    w = b * (h / 100) ** 2
    m = weight_moments(hm, hs, k, th, r)
    assert m["weight_mean"] == pytest.approx(w.mean(), rel=2e-3)
    assert m["weight_sd"] == pytest.approx(w.std(), rel=5e-3)
    assert m["rho"] == pytest.approx(np.corrcoef(h, np.log(w))[0, 1], abs=5e-3)


def test_stand_ins_and_countries_without_a_source(cache_root):
    bmi, cohorts = cached_bmi(cache_root), cached_cohorts(cache_root)
    st = nhanes_stats(cache_root)
    hk = ncdrisc_prior_frame("HK", 2022, bmi, cohorts, st)  # no BMI row: China's stands in
    assert hk.attrs["stand_ins"] == {"bmi": "CN"} and "BMI of CN stand in" in hk.attrs["note"]
    assert (hk["height_source"] == "HK").all() and (hk["bmi_source"] == "CN").all()
    ss = ncdrisc_prior_frame("SS", 2022, bmi, cohorts, st)  # no height row: Sudan's stands in
    assert ss.attrs["stand_ins"] == {"height": "SD"}
    li = ncdrisc_prior_frame("LI", 2022, bmi, cohorts, st)
    assert li.attrs["stand_ins"] == {"height": "CH", "bmi": "CH"}
    with pytest.raises(InputError, match="no usable body statistics for XK"):
        ncdrisc_prior_frame("XK", 2022, bmi, cohorts, st)
    # every NCD-RisC country of either file gets a prior
    isos = set(bmi["iso3"].astype(str)) | {k[0] for k in cohorts if isinstance(k, tuple)}
    assert len(isos) == 201
    for iso3 in ("IND", "BRA", "TKL"):
        df = ncdrisc_prior_frame(ncdrisc.ISO2_OF_ISO3[iso3], 2022, bmi, cohorts, st)
        assert np.isfinite(df[["height_mean", "weight_mean", "weight_sd", "rho"]].to_numpy()).all()


def test_data_sets_use_their_own_prior_with_source_and_year(cache_root):
    it = load_country_model("IT", root=cache_root)
    assert it.borrowed_from is None and "NCD-RisC prior for 2022" in it.body_note
    assert it.correlation is not None  # the prior's own ρ, not NHANES'
    p = C.Profile.build("IT", sex="female", age="35-40", height="160-165", weight="55-60")
    res = C.compute_cas(it, p)
    assert any(w.code == "body_source" and "NCD-RisC" in w.message for w in res.warnings)
    de = body_statistics("DE", cache_root)
    assert de["kind"] == "own" and de["year"] == "2017" and "12211-9018" in de["source"]


pytestmark = pytest.mark.cli("dashboard.cli.body", "body")


def test_cli_body_json_and_text(run, cache_root):
    code, out, err = run("--country", "KR", "--json", "--cache", str(cache_root))
    assert code == 0 and err == ""
    d = json.loads(out)
    assert d["kind"] == "ncdrisc" and d["year"] == 2010 and d["source"].startswith("NCD-RisC")
    g = next(x for x in d["groups"] if x["sex"] == "male" and x["age"] == "40–45")
    prior = ncdrisc_prior("KR", 2010, cache_root)
    want = prior[(prior["sex"] == "male") & (prior["age_from"] == 40)].iloc[0]
    assert g["weight_mean"] == pytest.approx(want["weight_mean"]) and g["rho_height_lnweight"] == pytest.approx(want["rho"])
    assert 0 < g["corr_height_weight"] < 1
    code, out, _ = run("--country", "KR", "--cache", str(cache_root))
    assert code == 0 and "NCD-RisC" in out and "2010" in out and "85+" in out
    code, _, err = run("--country", "XX", "--cache", str(cache_root))
    assert code == 2 and "unknown" in err and err.count("\n") == 1


def test_cas_json_names_the_body_statistics(cache_root, capsys):
    from dashboard.cli import main

    assert main(["cas", "--country", "MA", "--sex", "male", "--age", "30-35", "--height", "170-175", "--json",
                 "--cache", str(cache_root)]) == 0
    b = json.loads(capsys.readouterr().out)["body_statistics"]
    assert (b["kind"], b["country"], b["year"]) == ("ncdrisc", "MA", 2024) and "NCD-RisC prior for 2024" in b["note"]
