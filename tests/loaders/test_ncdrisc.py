"""NCD-RisC cohort heights: the loader, the v2 cohort shift for borrowing countries, and a damaged file."""
from __future__ import annotations

import shutil

import numpy as np
import pytest
from support.loaders import digest_tree, mirror_raw

from census_loaders import build as cache_build
from census_loaders import cache, ncdrisc
from census_loaders.schema import LoaderError
from dashboard.core import personal as C
from dashboard.core.body import BodyPriors, cohort_height_shift
from dashboard.core.country import CountryModel, load_country_model


@pytest.fixture(scope="module")
def table(raw_root):
    return ncdrisc.parse(raw_root / "eu" / ncdrisc.FILE)


def _h(t, iso, sex, year):
    return float(t.query("iso3 == @iso and sex == @sex and birth_year == @year")["height_cm"].iloc[0])


def test_spot_values_from_the_provenance(table):
    assert len(table) == 40_400 and table["iso3"].nunique() == 200
    for iso, sex, year, want in (("DEU", "male", 1950, 176.1), ("DEU", "male", 1996, 179.9),
                                 ("DEU", "female", 1996, 165.9), ("NLD", "male", 1996, 182.5),
                                 ("PRT", "female", 1950, 158.8), ("LVA", "female", 1996, 169.8)):
        assert _h(table, iso, sex, year) == pytest.approx(want, abs=0.05)


def test_cached_table_equals_the_raw_file(table, cache_root):
    cached = cache.height_cohorts(cache_root)
    assert cached is not None and cached.equals(table)
    assert cache.manifest(cache_root)["height_cohorts"]["sources"][0]["file"].endswith(ncdrisc.FILE)


def test_cohort_shift_by_hand(table):
    body = BodyPriors.from_frame(cache.body_priors("DE"))
    shift, note = cohort_height_shift(table, "NL", "DE", body, 2022)
    g = [i for i in range(len(body)) if body.sex_index[i] == 1 and body.age_lo[i] == 50][0]  # men 50–55
    years = range(2022 - 55 + 1, 2022 - 50 + 1)
    want = np.mean([_h(table, "NLD", "male", y) - _h(table, "DEU", "male", y) for y in years])
    assert shift[g] == pytest.approx(want, rel=1e-12)
    assert "NCD-RisC" in note and "weights unchanged" in note
    # the newest cohort is 1996: 18–20-year-olds of 2022 (born 2002–2004) take it
    young = [i for i in range(len(body)) if body.sex_index[i] == 0 and body.age_lo[i] == 18][0]
    assert shift[young] == pytest.approx(_h(table, "NLD", "female", 1996) - _h(table, "DEU", "female", 1996))
    assert "after 1996" in note
    none, why = cohort_height_shift(table, "LI", "DE", body, 2022)
    assert none is None and "No NCD-RisC height data for LI" in why


def test_no_country_borrows_germanys_table_any_more(cache_root):
    """Issue 27: NL is described by its NCD-RisC prior, not by Germany's statistics (shifted or not)."""
    nl = load_country_model("NL", root=cache_root)
    assert nl.borrowed_from is None and nl.height_shift is None and "NCD-RisC" in nl.body_note
    assert cache.dataset_info("NL", cache_root)["body_prior"]["kind"] == "ncdrisc"
    for own in ("DE", "US"):
        assert cache.dataset_info(own, cache_root)["body_prior"]["kind"] == "own"
    p = C.Profile.build("NL", sex="male", age="40-45", height="185-190", weight="80-85")
    v2 = C.compute_cas(nl, p)
    assert "body_source" in {w.code for w in v2.warnings}
    assert "borrowed_body_statistics" not in {w.code for w in v2.warnings}
    # taller Dutch men: their own prior puts more of them at 185–190 cm than Germany's statistics do
    german = C.compute_cas(CountryModel.from_frames(
        "NL", cache.population("NL", cache_root), cache.body_priors("DE", cache_root), cache_root=cache_root), p)
    assert v2.cas > german.cas


def test_national_estimates_get_their_own_countrys_prior(cache_root):
    """Nigeria and Japan (national UN estimates and a census): each its own NCD-RisC prior, none borrowed."""
    for code, iso3 in (("NG", "NGA"), ("JP", "JPN")):
        info = cache.dataset_info(code, cache_root)
        assert info["iso3"] == iso3 and info["body_prior"]["kind"] == "ncdrisc", info["body_prior"]
        model = load_country_model(code, root=cache_root)
        assert model.prior_country_name != "DE" and "NCD-RisC" in model.body_note


@pytest.mark.slow  # a cache build: the full suite runs it
def test_damaged_file_names_file_and_line_and_keeps_the_cache(raw_root, tmp_path, small_registry, small_cache):
    out = tmp_path / "cache"
    shutil.copytree(small_cache, out, symlinks=True)  # the small registry's build (tests/loaders/conftest.py)
    before = digest_tree(out)
    raw = mirror_raw(raw_root, tmp_path / "raw")
    bad = raw / "eu" / ncdrisc.FILE
    lines = bad.read_text(encoding="utf-8").splitlines(keepends=True)
    bad.unlink()
    lines[4] = lines[4].replace(",Men,", ",Robots,")
    bad.write_text("".join(lines), encoding="utf-8")
    with pytest.raises(LoaderError, match=rf"{ncdrisc.FILE}.*line 5.*Robots"):
        cache_build.build(raw, out, log=lambda m: None)
    assert digest_tree(out) == before
    # the BMI file too: a bad line stops the build, the cache stays as it was
    import gzip
    raw2 = mirror_raw(raw_root, tmp_path / "raw2")
    bad = raw2 / ncdrisc.BMI_FOLDER / ncdrisc.BMI_FILE
    lines = gzip.open(bad, "rt", encoding="utf-8").read().splitlines(keepends=True)
    bad.unlink()
    lines[3] = lines[3].replace(",F,", ",Q,", 1)
    with gzip.open(bad, "wt", encoding="utf-8") as f:
        f.write("".join(lines))
    with pytest.raises(LoaderError, match=rf"{ncdrisc.BMI_FILE}.*line 4.*neither M nor F"):
        cache_build.build(raw2, out, log=lambda m: None)
    assert digest_tree(out) == before


@pytest.fixture(scope="module")
def bmi(raw_root):
    return ncdrisc.parse_bmi(raw_root / ncdrisc.BMI_FOLDER / ncdrisc.BMI_FILE)


def test_bmi_spot_values_from_the_provenance(bmi, cache_root):
    """PROVENANCE: age 40–44, USA M k 30.2036 θ 0.98166 → mean 29.65 (sd 5.39); JPN F 21.69 (3.75) …"""
    assert len(bmi) == 5600 and bmi["iso3"].nunique() == 200
    def row(iso, sex):
        return bmi[(bmi["iso3"] == iso) & (bmi["sex"] == sex) & (bmi["age_from"] == 40)].iloc[0]
    us = row("USA", "male")
    assert us["k"] == pytest.approx(30.2036, abs=5e-5) and us["theta"] == pytest.approx(0.98166, abs=5e-6)
    for iso, sex, mean, sd in (("USA", "male", 29.65, 5.39), ("USA", "female", 30.18, 6.65), ("JPN", "male", 24.46, 3.69),
                               ("JPN", "female", 21.69, 3.75), ("IND", "male", 23.69, 4.06), ("BRA", "male", 27.82, 4.60),
                               ("KEN", "female", 26.40, 5.74)):
        r = row(iso, sex)
        assert (round(r["mean_bmi"], 2), round(r["sd_bmi"], 2)) == (mean, sd)
    assert bmi[bmi["age_from"] == 85]["age_to"].isna().all()
    assert {"HKG", "MAC", "MCO"}.isdisjoint(set(bmi["iso3"]))
    assert cache.bmi_gamma(cache_root).equals(bmi)


def test_every_ncdrisc_country_has_an_alpha2_code(bmi, table):
    isos = set(bmi["iso3"].astype(str)) | set(table["iso3"].astype(str))
    assert isos <= set(ncdrisc.ISO2_OF_ISO3) and len(set(ncdrisc.ISO2_OF_ISO3.values())) == len(ncdrisc.ISO2_OF_ISO3)
    assert ncdrisc.ISO3["KR"] == "KOR" and ncdrisc.ISO3["NA"] == "NAM" and ncdrisc.ISO3["UK"] == "GBR"


@pytest.mark.parametrize("edit, problem", [
    (lambda l: l.replace(",M,", ",X,", 1), "neither M nor F"),
    (lambda l: l.replace(",2022,", ",2021,", 1), "is not 2022"),
    (lambda l: l.replace(",40-44,", ",40-45,", 1), "does not match age_start"),
])
def test_damaged_bmi_file_names_file_and_line(raw_root, tmp_path, edit, problem):
    import gzip
    src = raw_root / ncdrisc.BMI_FOLDER / ncdrisc.BMI_FILE
    lines = gzip.open(src, "rt", encoding="utf-8").read().splitlines(keepends=True)
    target = next(i for i, l in enumerate(lines) if ",M,40-44," in l and l.startswith("USA"))
    lines[target] = edit(lines[target])
    bad = tmp_path / ncdrisc.BMI_FILE
    with gzip.open(bad, "wt", encoding="utf-8") as f:
        f.write("".join(lines))
    with pytest.raises(LoaderError, match=rf"{ncdrisc.BMI_FILE}.*line {target + 1}.*{problem}"):
        ncdrisc.parse_bmi(bad)
