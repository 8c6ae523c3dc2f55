"""Kenya, census 2019 (``KE`` counties, ``KE-SUB`` sub-counties): the spot values of data/raw/ke/PROVENANCE.md,
the blank cells KNBS left, the two grains adding up, and damaged copies of the census file."""
from __future__ import annotations

import json
from pathlib import Path

import pandas as pd
import pytest
from support.census_files import damaged_folder, replace_on, truncated_gzip
from support.loaders import raises_loader_error

import census_loaders as cl
from census_loaders import knbs
from census_loaders.schema import POPULATION_COLUMNS


@pytest.fixture(scope="module")
def folder(raw_root) -> Path:
    f = raw_root / "ke"
    if not (f / knbs.CENSUS_FILE).exists():
        pytest.skip("Kenyan census files not present")
    return f


def _people(pop, code=None, sex=None, age_from=None) -> float:
    sel = pd.Series(True, index=pop.index)
    if code:
        sel &= pop["district_id"] == code
    if sex:
        sel &= pop["sex"] == sex
    if age_from is not None:
        sel &= pop["age_from"] == age_from
    return float(pop.loc[sel, "count"].sum())


@pytest.mark.parametrize("dataset, code, male, female, total", [
    ("KE", None, 23_548_056, 24_014_716, 47_562_772),
    ("KE", "47", 2_192_452, 2_204_376, 4_396_828),  # Nairobi
    ("KE", "01", 610_257, 598_046, 1_208_303),  # Mombasa
    ("KE-SUB", None, 23_548_056, 24_014_716, 47_562_772),  # with Mt. Kenya Forest's blank male cell restored
    ("KE-SUB", "47-westlands", 153_818, 155_021, 308_839),
    ("KE-SUB", "42-kisumu-central", 84_155, 89_985, 174_140),
])
def test_spot_values(cache_root, dataset, code, male, female, total):
    pop = cl.population(dataset)
    got = (_people(pop, code, "male"), _people(pop, code, "female"), _people(pop, code))
    assert got == pytest.approx((male, female, total), abs=1e-6)


def test_the_two_grains(cache_root):
    counties, subs = cl.population("KE"), cl.population("KE-SUB")
    assert list(counties.columns) == list(POPULATION_COLUMNS) == list(subs.columns)
    assert counties["district_id"].nunique() == 47 and subs["district_id"].nunique() == 345
    assert len(counties) == 47 * 2 * 21 and counties["age_to"].isna().sum() == 47 * 2  # 0–4 … 95–99, 100+
    # every county is the sum of its sub-counties in every sex and age group (Not Stated spread in each)
    by_county = subs.groupby(["region_id", "sex", "age_from"])["count"].sum()
    mine = counties.set_index(["district_id", "sex", "age_from"])["count"]
    assert (by_county.sort_index() - mine.sort_index()).abs().max() < 0.5
    assert subs.loc[subs["district_id"] == "47-westlands", "district_name"].iloc[0] == "Westlands"
    assert subs.loc[subs["district_id"] == "47-westlands", "region_name"].iloc[0] == "Nairobi"
    info = cl.dataset_info("KE-SUB")
    assert info["boundaries"] is None and "the county data set KE has a map" in info["boundary_note"]
    assert cl.dataset_info("KE")["boundaries"]["features"] == 47


def test_published_rows(folder, cache_root):
    raw = knbs.read_census(folder / knbs.CENSUS_FILE)
    rows = raw.set_index(["county", "sub", "age"])
    assert tuple(rows.loc[("NAIROBI", "WESTLANDS", "30"), ["male", "female"]]) == (3_726, 3_924)
    stated = raw[(raw["sub"] == "ALL") & (raw["age"] == "Not Stated")]
    assert (stated["male"].sum(), stated["female"].sum()) == (385, 297)
    # KNBS left Male blank with Total 2, Female 1: the loader takes the difference and says so
    assert tuple(rows.loc[("NYERI", "MT. KENYA FOREST", "10"), ["male", "female"]]) == (1, 1)
    assert raw.attrs["derived_cells"] == ["Mt. Kenya Forest, age 10"]
    assert any("Mt. Kenya Forest, age 10" in n for n in cl.dataset_info("KE-SUB")["notes"])


# line 2: BARINGO,ALL,Total,336322,330428,666750; line 3: BARINGO,ALL,0,8303,7982,16285
@pytest.mark.parametrize("edit, line, fragment", [
    (replace_on(3, ",8303,", ",8304,"), 3, "BARINGO / ALL, age 0: male + female vs total"),
    (replace_on(3, ",8303,", ",-8303,"), 3, "Male (BARINGO / ALL, age 0) '-8303' is negative"),
    (replace_on(3, ",0,8303,", ",zero,8303,"), 3, "unknown age 'zero'"),
    (replace_on(3, ",16285", ""), 3, "fields but the header has 6"),
    (replace_on(3, "BARINGO,ALL,", ",ALL,"), 3, "empty County or SubCounty"),
    (lambda lines: lines[:2] + lines[3:], 2, "BARINGO / ALL has no row for age '0'"),
    (lambda lines: lines[:3] + lines[2:], 4, "BARINGO / ALL, age 0: listed twice (first on line 3)"),
])
def test_damaged_census_file(folder, tmp_path, edit, line, fragment):
    bad = damaged_folder(folder, tmp_path, knbs.CENSUS_FILE, edit, keep=400)
    raises_loader_error(knbs.load, bad, file=knbs.CENSUS_FILE, line=line, fragments=(fragment,))


def test_a_sub_county_that_no_longer_adds_up(folder, tmp_path):
    """One man moved from Baringo's county row to nowhere: the sub-counties no longer add up to it."""
    def edit(lines):
        for i, l in enumerate(lines):
            if l.startswith("BARINGO,ALL,Total,"):
                lines[i] = "BARINGO,ALL,Total,336323,330428,666751\n"
            if l.startswith("BARINGO,ALL,0,"):
                lines[i] = "BARINGO,ALL,0,8304,7982,16286\n"
        return lines
    bad = damaged_folder(folder, tmp_path, knbs.CENSUS_FILE, edit)
    raises_loader_error(knbs.load, bad, file=knbs.CENSUS_FILE, line=3,
                        fragments=("BARINGO, age 0, male: sub-counties sum to 8,303 but the county row is 8,304",))


def test_truncated_census_file(folder, tmp_path):
    bad = damaged_folder(folder, tmp_path, knbs.CENSUS_FILE, raw_bytes=truncated_gzip(folder / knbs.CENSUS_FILE))
    raises_loader_error(knbs.load, bad, file=knbs.CENSUS_FILE, line=None, fragments=("gzip stream is damaged",))


@pytest.mark.slow
def test_loaded_from_the_raw_files(folder, cache_root):
    counties, subs = knbs.load(folder)
    assert (counties.code, subs.code) == ("KE", "KE-SUB")
    assert _people(counties.population) == pytest.approx(47_562_772, abs=1e-6)
    assert len(counties.boundaries) == 47 and subs.boundaries is None
    info = json.loads((cache_root / "manifest.json").read_text(encoding="utf-8"))["datasets"]["KE"]
    assert info["boundaries"]["missing_geometry"] == [] and "2019" in info["name"]
