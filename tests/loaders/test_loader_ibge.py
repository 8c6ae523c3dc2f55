"""Brazil, Censo 2010 (``BR``): the spot values of data/raw/br/PROVENANCE.md, Nazária without a polygon, the
simplified 5,564-polygon map, and damaged copies of the census file."""
from __future__ import annotations

import json
from pathlib import Path

import pandas as pd
import pytest
from support.census_files import damaged_folder, replace_on, truncated_gzip
from support.loaders import raises_loader_error

import census_loaders as cl
from census_loaders import ibge
from census_loaders.schema import POPULATION_COLUMNS


@pytest.fixture(scope="module")
def folder(raw_root) -> Path:
    f = raw_root / "br"
    if not (f / ibge.CENSUS_FILE).exists():
        pytest.skip("Brazilian census files not present")
    return f


def _people(pop, code=None, sex=None) -> float:
    sel = pd.Series(True, index=pop.index)
    if code:
        sel &= pop["district_id"] == code
    if sex:
        sel &= pop["sex"] == sex
    return float(pop.loc[sel, "count"].sum())


@pytest.mark.parametrize("code, total, male, female", [
    (None, 190_755_799, 93_406_990, 97_348_809),
    ("3550308", 11_253_503, 5_328_632, 5_924_871),  # São Paulo
    ("3304557", 6_320_446, 2_959_817, 3_360_629),  # Rio de Janeiro
])
def test_spot_values(cache_root, code, total, male, female):
    pop = cl.population("BR")
    assert (_people(pop, code), _people(pop, code, "male"), _people(pop, code, "female")) == (total, male, female)


def test_brasilia_bora_and_the_shape_of_the_data_set(cache_root):
    pop = cl.population("BR")
    assert list(pop.columns) == list(POPULATION_COLUMNS) and len(pop) == 5_565 * 2 * 17
    people = pop.groupby("district_id")["count"].sum()
    assert people["5300108"] == 2_570_160 and people.idxmin() == "3507209" and people.min() == 805  # Borá
    assert pop["region_id"].nunique() == 27 and pop["age_to"].isna().sum() == 5_565 * 2  # 80+ open
    assert pop.loc[pop["district_id"] == "3550308", "region_name"].iloc[0] == "São Paulo (SP)"


def test_manifest_map_and_old_data(cache_root):
    info = json.loads((cache_root / "manifest.json").read_text(encoding="utf-8"))["datasets"]["BR"]
    assert "2010" in info["name"] and any(n.startswith("Old data: the census of 2010") for n in info["notes"])
    b = info["boundaries"]
    assert b["missing_geometry"] == ["2206720"] and b["features"] == 5_564 and b["geometry_without_data"] == []
    assert b["bytes"] < 3_500_000
    assert any("Nazária (2206720, 8,068 people" in n for n in info["notes"])


@pytest.mark.slow
def test_urban_and_rural_in_the_published_rows(folder):
    raw = ibge.read_census(folder / ibge.CENSUS_FILE)
    by_area = raw.groupby("area")["count"].sum()
    assert (by_area["urban"], by_area["rural"]) == (160_925_792, 29_830_007)


# line 2: 110001,1100015,Alta Floresta D'Oeste,Rondônia,2010,1,M,1,urban,0000,0,0,0,100
@pytest.mark.parametrize("edit, line, fragment", [
    (replace_on(2, ",0,0,0,100", ",0,0,0,-100"), 2, "populacao '-100' is not a non-negative number"),
    (replace_on(2, "110001,1100015,", "110001,110001X,"), 2, "munic_code7 '110001X' is not a 7-digit IBGE code"),
    (replace_on(2, "110001,1100015,", "110002,1100015,"), 2, "munic_res6 '110002' is not munic_code7"),
    (replace_on(2, "110001,1100015,", "990001,9900015,"), 2, "munic_code7 '9900015' is in no Brazilian state"),
    (replace_on(2, ",M,1,urban,", ",X,1,urban,"), 2, "sex 'X' is not one of M, F"),
    (replace_on(2, ",urban,0000,", ",urban,0001,"), 2, "fxetaria '0001' is not one of"),
    (replace_on(3, "Alta Floresta D'Oeste", "Alta Floresta"), 3, "municipality 1100015 is named 'Alta Floresta'"),
    (lambda lines: lines[:3] + lines[2:], 4, "municipality 1100015, male, urban, age 0101: listed twice"),
    (lambda lines: lines[:200], None, "municipality 1100023 has 67 rows, not 132"),
])
def test_damaged_census_file(folder, tmp_path, edit, line, fragment):
    bad = damaged_folder(folder, tmp_path, ibge.CENSUS_FILE, edit, keep=264)
    raises_loader_error(ibge.load, bad, file=ibge.CENSUS_FILE, line=line, fragments=(fragment,))


def test_truncated_census_file(folder, tmp_path):
    bad = damaged_folder(folder, tmp_path, ibge.CENSUS_FILE, raw_bytes=truncated_gzip(folder / ibge.CENSUS_FILE))
    raises_loader_error(ibge.load, bad, file=ibge.CENSUS_FILE, line=None, fragments=("gzip stream is damaged",))


@pytest.mark.slow
def test_loaded_from_the_raw_files(folder):
    (data,) = ibge.load(folder)
    assert data.code == "BR" and _people(data.population) == 190_755_799
    assert len(data.boundaries) == 5_564 and "2206720" not in set(data.boundaries["district_id"])
