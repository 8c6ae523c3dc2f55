"""India, Census 2011 table C-14 (``IN``): the spot values of data/raw/in/PROVENANCE.md, unstated ages spread in
proportion, the 2011 map (post-2011 districts dissolved or left blank), and damaged copies of the census file."""
from __future__ import annotations

import json
from pathlib import Path

import pandas as pd
import pytest
from support.census_files import damaged_folder, replace_on, truncated_gzip
from support.loaders import raises_loader_error

import census_loaders as cl
from census_loaders import censusindia
from census_loaders.schema import POPULATION_COLUMNS


@pytest.fixture(scope="module")
def folder(raw_root) -> Path:
    f = raw_root / "in"
    if not (f / censusindia.CENSUS_FILE).exists():
        pytest.skip("Indian census files not present")
    return f


def _people(pop, code=None, sex=None) -> float:
    sel = pd.Series(True, index=pop.index)
    if code:
        sel &= pop["district_id"] == code
    if sex:
        sel &= pop["sex"] == sex
    return float(pop.loc[sel, "count"].sum())


@pytest.mark.parametrize("code, total, male, female", [
    (None, 1_210_854_977, 623_270_258, 587_584_719),
    ("1", 870_354, 474_190, 396_164),  # Kupwara
    ("91", 887_978, 475_002, 412_976),  # North Delhi
    ("536", 3_943_323, 2_018_575, 1_924_748),  # Hyderabad
    ("603", 4_646_732, 2_335_844, 2_310_888),  # Chennai
])
def test_spot_values(cache_root, code, total, male, female):
    pop = cl.population("IN")
    got = (_people(pop, code), _people(pop, code, "male"), _people(pop, code, "female"))
    assert got == pytest.approx((total, male, female), abs=1e-4)


def test_largest_smallest_and_unstated_ages(cache_root):
    pop = cl.population("IN")
    assert list(pop.columns) == list(POPULATION_COLUMNS) and len(pop) == 640 * 2 * 17
    people = pop.groupby("district_id")["count"].sum()
    assert people.idxmax() == "517" and people.max() == pytest.approx(11_060_148, abs=1e-6)  # Thane
    assert people.idxmin() == "257" and people.min() == pytest.approx(8_004, abs=1e-6)  # Dibang Valley
    info = cl.dataset_info("IN")
    assert "2011" in info["name"] and any("Old data" in n for n in info["notes"])
    assert any("4,489,802 people (0.37%)" in n for n in info["notes"])


def test_the_2011_map(cache_root):
    info = json.loads((cache_root / "manifest.json").read_text(encoding="utf-8"))["datasets"]["IN"]
    b = info["boundaries"]
    assert b["missing_geometry"] == ["494", "634"] and b["features"] == 638  # Diu and Yanam
    assert b["geometry_without_data"] == []
    notes = " ".join(info["notes"])
    assert "Hapur and Shamli" in notes and "Sambhal (carved from Moradabad and Budaun)" in notes
    assert "Amethi (carved from Sultanpur and Rae Bareli)" in notes and "Diu (494, 52,074 people)" in notes


def test_unstated_ages_in_the_published_rows(folder):
    raw = censusindia.read_census(folder / censusindia.CENSUS_FILE)
    unstated = raw[raw["age"] == "Age not stated"]
    assert (unstated["male"].sum(), unstated["female"].sum()) == (2_372_881, 2_116_921)


# line 2: C4114,35,638,ANDAMAN & NICOBAR ISLANDS,District - Nicobars (01),Nicobars,All ages,36842,20727,16115,...
@pytest.mark.parametrize("edit, line, fragment", [
    (replace_on(3, ",3229,1646,1583,3229,", ",3229,1647,1583,3229,"), 3, "district 638, 0-4, Total: males + females"),
    (replace_on(3, ",1583,0,0,0", ",1583,1,0,1"), 3, "district 638, 0-4, Persons: rural + urban vs total"),
    (replace_on(3, ",3229,1646,", ",3229,-1646,"), 3, "Total Males (638, 0-4) '-1646' is negative"),
    (replace_on(3, "C4114,35,638,", "C4114,35,641,"), 3, "District Code '641' is not a 2011 district code"),
    (replace_on(3, ",0-4,", ",0-5,"), 3, "unknown age group '0-5'"),
    (replace_on(3, "C4114,", "C4115,"), 3, "Table Name 'C4115' is not C4114"),
    (replace_on(3, ",Nicobars,0-4,", ",Nicobar,0-4,"), 3, "district 638: name or state differ from line 2"),
])
def test_damaged_census_file(folder, tmp_path, edit, line, fragment):
    bad = damaged_folder(folder, tmp_path, censusindia.CENSUS_FILE, edit, keep=60)
    raises_loader_error(censusindia.load, bad, file=censusindia.CENSUS_FILE, line=line, fragments=(fragment,))


def test_an_age_group_that_no_longer_adds_up(folder, tmp_path):
    edit = replace_on(3, ",3229,1646,1583,3229,1646,1583,", ",3230,1647,1583,3230,1647,1583,")
    bad = damaged_folder(folder, tmp_path, censusindia.CENSUS_FILE, edit, keep=57)  # three whole districts
    raises_loader_error(censusindia.load, bad, file=censusindia.CENSUS_FILE, line=2,
                        fragments=("district 638, male: age groups vs All ages: parts sum to 20,728",))


def test_a_missing_district(folder, tmp_path):
    bad = damaged_folder(folder, tmp_path, censusindia.CENSUS_FILE, keep=57)  # the first three districts only
    raises_loader_error(censusindia.load, bad, file=censusindia.CENSUS_FILE, line=None,
                        fragments=("no rows for district(s) 1, 2, 3",))


def test_truncated_census_file(folder, tmp_path):
    bad = damaged_folder(folder, tmp_path, censusindia.CENSUS_FILE,
                         raw_bytes=truncated_gzip(folder / censusindia.CENSUS_FILE))
    raises_loader_error(censusindia.load, bad, file=censusindia.CENSUS_FILE, line=None,
                        fragments=("gzip stream is damaged",))


@pytest.mark.slow
def test_loaded_from_the_raw_files(folder):
    (data,) = censusindia.load(folder)
    assert data.code == "IN" and _people(data.population) == pytest.approx(1_210_854_977, abs=1e-3)
    shapes = data.boundaries.set_index("district_id").geometry
    assert len(shapes) == 638 and not {"494", "634"} & set(shapes.index)
    # Hapur is drawn as part of Ghaziabad (140): the dissolved polygon is larger than the clipped one
    import geopandas as gpd

    raw = gpd.read_file(folder / censusindia.BOUNDARY_FILE)
    clipped = raw.loc[raw["census2011_code"] == 140].geometry.iloc[0]
    hapur = raw.loc[raw["district"] == "HAPUR"].geometry.iloc[0]
    assert shapes["140"].area == pytest.approx(clipped.area + hapur.area, rel=1e-6)
