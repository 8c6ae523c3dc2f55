"""NCD-RisC cohort heights: the loader, the v2 cohort shift for borrowing countries, and a damaged file."""
from __future__ import annotations

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


def test_borrowing_countries_are_shifted_in_v2_only(cache_root):
    nl = load_country_model("NL", root=cache_root)
    assert nl.height_shift is not None and (nl.height_shift > 2).all()
    assert load_country_model("DE", root=cache_root).height_shift is None  # its own statistics
    assert load_country_model("US", root=cache_root).height_shift is None
    p = C.Profile.build("NL", sex="male", age="40-45", height="185-190", weight="80-85")
    v2 = C.compute_cas(nl, p)
    paper = C.compute_cas(nl, p, body_model="paper")
    assert "height_shift" in {w.code for w in v2.warnings}
    assert "height_shift" not in {w.code for w in paper.warnings}
    # taller Dutch men: the shifted model puts more of them at 185–190 cm than Germany's statistics do
    unshifted = C.compute_cas(CountryModel.from_frames(
        "NL", cache.population("NL", cache_root), cache.body_priors("NL", cache_root), cache_root=cache_root), p)
    assert v2.cas > unshifted.cas


def test_every_country_of_the_world_is_shifted_through_its_iso3(table, cache_root):
    """National estimates (Nigeria, Japan) borrow Germany's statistics, shifted by their own NCD-RisC cohorts:
    the manifest's ``iso3`` reaches countries the old alpha-2 table (ncdrisc.ISO3) does not list."""
    assert "JP" not in ncdrisc.ISO3 and cache.dataset_info("JP", cache_root)["iso3"] == "JPN"
    jp = load_country_model("JP", root=cache_root)
    body = BodyPriors.from_frame(cache.body_priors("JP", cache_root))
    want, _ = cohort_height_shift(table, "JP", "DE", body, 2025, "JPN")
    assert jp.height_shift is not None and np.allclose(jp.height_shift, want)
    assert (jp.height_shift < -5).all()  # Japanese cohorts are shorter than German ones at 18
    assert load_country_model("NG", root=cache_root).height_shift is not None


@pytest.mark.slow  # a cache build: the full suite runs it
def test_damaged_file_names_file_and_line_and_keeps_the_cache(raw_root, tmp_path, small_registry):
    out = tmp_path / "cache"
    cache_build.build(raw_root, out, log=lambda m: None)
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
