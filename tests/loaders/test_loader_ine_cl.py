"""Chile, Censo 2017 (``CL``): the spot values of data/raw/cl/PROVENANCE.md, Antártica without a polygon,
and damaged copies of the census file."""
from __future__ import annotations

import json
from pathlib import Path

import pandas as pd
import pytest
from support.census_files import damaged_folder, replace_on, truncated_gzip
from support.loaders import raises_loader_error

import census_loaders as cl
from census_loaders import ine_cl
from census_loaders.schema import POPULATION_COLUMNS


@pytest.fixture(scope="module")
def folder(raw_root) -> Path:
    f = raw_root / "cl"
    if not (f / ine_cl.CENSUS_FILE).exists():
        pytest.skip("Chilean census files not present")
    return f


def _people(pop, code=None, sex=None) -> float:
    sel = pd.Series(True, index=pop.index)
    if code:
        sel &= pop["district_id"] == code
    if sex:
        sel &= pop["sex"] == sex
    return float(pop.loc[sel, "count"].sum())


@pytest.mark.parametrize("code, total, male, female", [
    (None, 17_574_003, 8_601_989, 8_972_014),
    ("13101", 404_495, 206_678, 197_817),  # Santiago
    ("13119", 521_627, 250_792, 270_835),  # Maipú
    ("05101", 296_655, 144_945, 151_710),  # Valparaíso
    ("12202", 138, 126, 12),  # Antártica, the smallest
])
def test_spot_values(cache_root, code, total, male, female):
    pop = cl.population("CL")
    assert (_people(pop, code), _people(pop, code, "male"), _people(pop, code, "female")) == (total, male, female)


def test_shape_of_the_data_set(cache_root):
    pop = cl.population("CL")
    assert list(pop.columns) == list(POPULATION_COLUMNS) and len(pop) == 346 * 2 * 21
    assert pop["region_id"].nunique() == 16 and pop["age_to"].isna().sum() == 346 * 2  # 100+ open
    info = json.loads((cache_root / "manifest.json").read_text(encoding="utf-8"))["datasets"]["CL"]
    assert info["boundaries"]["missing_geometry"] == ["12202"] and info["boundaries"]["features"] == 345
    assert info["boundaries"]["bytes"] < 1_200_000
    assert any("Antartica (12202, 138 people)" in n for n in info["notes"])


# line 2: 01101,Iquique,011,Iquique,01,Tarapaca,mujer,F,0 a 4,0-4,0,6685
@pytest.mark.parametrize("edit, line, fragment", [
    (replace_on(2, ",6685", ",-6685"), 2, "poblacion (01101, F, 0-4) '-6685' is negative"),
    (replace_on(2, "01101,", "1101,"), 2, "codigo_comuna '1101' is not a 5-digit comuna code"),
    (replace_on(2, ",F,0 a 4,0-4,", ",X,0 a 4,0-4,"), 2, "sex 'X' is not M or F"),
    (replace_on(2, ",0-4,0,", ",0-3,0,"), 2, "unknown age group '0-3'"),
    (replace_on(2, ",Iquique,011,", ",Iquique,021,"), 2, "comuna 01101 is not in region '01'"),
    (replace_on(3, ",Iquique,011,", ",Iquiqe,011,"), 3, "comuna 01101: its names or codes differ from line 2"),
    (lambda lines: lines + lines[1:2], 14_534, "comuna 01101, F, age 0-4: listed twice (first on line 2)"),
    (lambda lines: lines[:2] + lines[3:], None, "no row for comuna 01101, F, age 5-9"),
])
def test_damaged_census_file(folder, tmp_path, edit, line, fragment):
    bad = damaged_folder(folder, tmp_path, ine_cl.CENSUS_FILE, edit)
    raises_loader_error(ine_cl.load, bad, file=ine_cl.CENSUS_FILE, line=line, fragments=(fragment,))


def test_truncated_census_file(folder, tmp_path):
    bad = damaged_folder(folder, tmp_path, ine_cl.CENSUS_FILE, raw_bytes=truncated_gzip(folder / ine_cl.CENSUS_FILE))
    raises_loader_error(ine_cl.load, bad, file=ine_cl.CENSUS_FILE, line=None, fragments=("gzip stream is damaged",))


@pytest.mark.slow
def test_loaded_from_the_raw_files(folder):
    (data,) = ine_cl.load(folder)
    assert data.code == "CL" and _people(data.population) == 17_574_003
    assert len(data.boundaries) == 345 and "12202" not in set(data.boundaries["district_id"])
