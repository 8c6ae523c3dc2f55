"""ISTAT municipalities 2023 (``IT-COM``): the spot values of data/raw/it/PROVENANCE.md, the 2023
mergers, the grouping of single years, the served polygons, and small damaged copies of the files."""
from __future__ import annotations

import json
import shutil
from pathlib import Path

import numpy as np
import pandas as pd
import pytest
import shapely

from census_loaders import geometry as geo
from census_loaders import istat
from census_loaders.schema import POPULATION_COLUMNS, LoaderError


@pytest.fixture(scope="module")
def folder(raw_root) -> Path:
    f = raw_root / "it"
    if not (f / istat.POPULATION_FILE).exists():
        pytest.skip("ISTAT files not present")
    return f


@pytest.fixture(scope="module")
def data(folder):
    (d,) = istat.load(folder)
    return d


@pytest.fixture(scope="module")
def pop(data) -> pd.DataFrame:
    return data.population


@pytest.fixture(scope="module")
def raw(folder) -> pd.DataFrame:
    return pd.read_feather(folder / istat.POPULATION_FILE)


def _people(pop, code, sex=None):
    sel = pop["district_id"] == code
    if sex:
        sel &= pop["sex"] == sex
    return pop.loc[sel, "count"].sum()


# --------------------------------------------------------------------------- real data: PROVENANCE spot values


def test_italy_total_and_sexes(data, pop):
    assert data.code == "IT-COM" and list(pop.columns) == list(POPULATION_COLUMNS)
    assert pop["count"].sum() == 58_840_177
    by_sex = pop.groupby("sex")["count"].sum()
    assert (by_sex["female"], by_sex["male"]) == (30_096_088, 28_744_089)
    assert pop["district_id"].nunique() == 7_901
    assert len(pop) == 7_901 * 2 * 18 and not pop["filled"].any()


@pytest.mark.parametrize("code, name, province, people", [
    ("058091", "Roma", "Roma", 2_748_109),
    ("015146", "Milano", "Milano", 1_354_196),
    ("097055", "Morterone", "Lecco", 32),
])
def test_spot_municipalities(pop, code, name, province, people):
    rows = pop[pop["district_id"] == code]
    assert set(rows["district_name"]) == {name} and set(rows["region_name"]) == {province}
    assert rows["count"].sum() == people


def test_morterone_is_the_smallest(pop):
    per = pop.groupby("district_id")["count"].sum()
    assert per.idxmin() == "097055" and per.min() == 32


def test_single_years_are_grouped_into_five_year_groups(pop, raw):
    ages = pop.drop_duplicates("age_from").sort_values("age_from")
    assert list(ages["age_from"]) == list(range(0, 90, 5))
    assert list(ages["age_to"].iloc[:-1]) == list(range(5, 90, 5)) and np.isnan(ages["age_to"].iloc[-1])
    roma = raw[raw["municipality_code"] == 58091]
    ours = pop[pop["district_id"] == "058091"].set_index(["sex", "age_from"])["count"]
    assert ours["female", 85.0] == roma.loc[roma["age"] >= 85, "F"].sum()  # 85 … 100 (= 100 and over)
    assert ours["male", 20.0] == roma.loc[roma["age"].between(20, 24), "M"].sum()
    assert ours["male", 80.0] == roma.loc[roma["age"].between(80, 84), "M"].sum()


def test_every_raw_row_has_f_plus_m_equal_to_tot(raw):
    assert (raw["F"] + raw["M"] == raw["tot"]).all()  # the loader checks it; the file honours it


def test_municipalities_merged_in_2023_are_kept_with_name_and_province(data, pop):
    assert set(istat.MERGED_2023) == {"005079", "005110", "012009", "012018", "012095"}
    areas = pop.drop_duplicates("district_id").set_index("district_id")
    for code, name in istat.MERGED_2023.items():
        assert areas.loc[code, "district_name"] == name
        assert areas.loc[code, "region_name"] == {"005": "Asti", "012": "Varese"}[code[:3]]
    people = {c: _people(pop, c) for c in istat.MERGED_2023}
    assert people == {"005079": 184, "005110": 210, "012009": 1_592, "012018": 815, "012095": 1_210}
    note = next(n for n in data.notes if "merged during 2023" in n)
    assert all(f"{n} ({c})" in note for c, n in istat.MERGED_2023.items())
    assert not set(istat.MERGED_2023) & set(data.boundaries["district_id"])  # no polygon for them


def test_same_names_are_told_apart_by_province(pop):
    areas = pop.drop_duplicates("district_id")
    castro = areas[areas["district_name"] == "Castro"]
    assert sorted(castro["region_name"]) == ["Bergamo", "Lecce"]
    assert areas["region_id"].nunique() == 107  # Italy's 107 provinces, as Eurostat's IT has
    assert (areas["district_id"].str[:3] == areas["region_id"]).all()
    assert "None" in set(areas["district_name"])  # None (TO) is a real municipality, not a missing name


def test_polygons_and_the_codes_without_population(data):
    shapes = data.boundaries
    assert len(shapes) == 7_899 and shapes["district_id"].is_unique
    assert data.boundary_tolerance == istat.BOUNDARY_TOLERANCE and data.boundary_decimals == 3
    note = next(n for n in data.notes if "no row in the population table" in n)
    for name, code in (("Misiliscemi", "081025"), ("Montecopiolo", "099030"), ("Sassofeltrio", "099031")):
        assert f"{name} ({code})" in note


# --------------------------------------------------------------------------- the served map


@pytest.fixture(scope="module")
def served(cache_root) -> dict:
    path = cache_root / "boundaries" / "IT-COM.geojson"
    return {"path": path, "geojson": json.loads(path.read_text(encoding="utf-8"))}


def test_served_map_is_small_and_complete(served, cache_root):
    assert served["path"].stat().st_size < 3_000_000
    features = served["geojson"]["features"]
    assert len(features) == 7_896  # 7,901 municipalities less the 5 merged in 2023
    info = json.loads((cache_root / "manifest.json").read_text(encoding="utf-8"))["datasets"]["IT-COM"]
    assert info["boundaries"]["missing_geometry"] == sorted(istat.MERGED_2023)
    assert info["boundaries"]["geometry_without_data"] == ["081025", "099030", "099031"]
    assert info["population"] == 58_840_177 and info["districts"] == 7_901
    assert info["body_prior"]["kind"] == "ncdrisc" and info["body_prior"]["country"] == "IT"


@pytest.mark.slow  # every pair of neighbouring Italian comuni: the full suite runs it
def test_simplified_neighbours_still_touch(served, folder):
    """Coverage simplification: shared edges are simplified once, so no gaps open between neighbours."""
    shapes = {f["id"]: shapely.geometry.shape(f["geometry"]) for f in served["geojson"]["features"]}
    assert all(g.is_valid and not g.is_empty for g in shapes.values())
    # Roma's neighbours in the full-resolution file touch Roma in the served one too
    full = istat.read_boundaries(folder / istat.BOUNDARIES_FILE).set_index("district_id").geometry
    around_roma = full["058091"].buffer(1e-6)  # once, not once per comune (10 s)
    neighbours = [c for c, g in full.items() if c != "058091" and g.intersects(around_roma)]
    assert len(neighbours) >= 10
    for c in neighbours:
        assert shapes[c].distance(shapes["058091"]) == 0, c
    # no overlaps either: areas of neighbours intersect in (almost) nothing
    for c in neighbours:
        assert shapes[c].intersection(shapes["058091"]).area < 1e-9


# --------------------------------------------------------------------------- small damaged copies


def _small_folder(folder: Path, tmp_path: Path, codes=(1001, 1002, 97055, 5079), damage=None) -> Path:
    """The three files cut down to a few municipalities (the merged 005079 among them), optionally damaged."""
    out = tmp_path / "it"
    out.mkdir()
    pop = pd.read_feather(folder / istat.POPULATION_FILE)
    pop = pop[pop["municipality_code"].isin(codes)].reset_index(drop=True)
    attrs = pd.read_feather(folder / istat.ATTRIBUTES_FILE)
    attrs = attrs[attrs["municipality_code"].isin(codes) | (attrs["province_code"] == 5)].reset_index(drop=True)
    shapes = pd.read_feather(folder / istat.BOUNDARIES_FILE)
    shapes = shapes[shapes["municipality_code"].isin(attrs["municipality_code"])].reset_index(drop=True)
    frames = {"pop": pop, "attrs": attrs, "shapes": shapes}
    if damage:
        damage(frames)
    frames["pop"].to_feather(out / istat.POPULATION_FILE)
    frames["attrs"].to_feather(out / istat.ATTRIBUTES_FILE)
    frames["shapes"].to_feather(out / istat.BOUNDARIES_FILE)
    return out


def test_small_copy_loads(folder, tmp_path):
    (d,) = istat.load(_small_folder(folder, tmp_path))
    assert d.population["district_id"].nunique() == 4
    assert d.population.loc[d.population["district_id"] == "005079", "district_name"].iloc[0] == "Moransengo"


def _set(frame: str, row: int, col: str, value):
    def damage(frames):
        if not isinstance(value, (int, np.integer)):  # a float or bytes cell: widen the column first
            frames[frame] = frames[frame].astype({col: object if isinstance(value, (str, bytes)) else float})
        frames[frame].loc[row, col] = value
    return damage


@pytest.mark.parametrize("damage, file, message", [
    (_set("pop", 3, "tot", 999), istat.POPULATION_FILE, "line 4: municipality 97055, age 0: F 0 + M 0 ≠ tot 999"),
    (_set("pop", 5, "M", -3), istat.POPULATION_FILE, "line 6: M -3 is not a whole non-negative number"),
    (_set("pop", 7, "F", 2.5), istat.POPULATION_FILE, "line 8: F 2.5 is not a whole non-negative number"),
    (_set("pop", 2, "age", 120), istat.POPULATION_FILE, "age 120 is outside 0–100"),
    (lambda f: f.update(pop=pd.concat([f["pop"], f["pop"].iloc[[10]]], ignore_index=True)), istat.POPULATION_FILE,
     "line 405: duplicate row for municipality 005079, age 10"),
    (lambda f: f.update(pop=f["pop"].drop(index=20).reset_index(drop=True)), istat.POPULATION_FILE,
     "has 100 of the 101 ages"),
    (lambda f: f.update(pop=f["pop"].drop(columns=["tot"])), istat.POPULATION_FILE, "missing column(s) 'tot'"),
    (lambda f: f.update(attrs=pd.concat([f["attrs"], f["attrs"].iloc[[0]]], ignore_index=True)), istat.ATTRIBUTES_FILE,
     "is listed twice"),
    (_set("attrs", 0, "municipality", ""), istat.ATTRIBUTES_FILE, "empty municipality name"),
    (_set("attrs", 0, "province_code", 2), istat.ATTRIBUTES_FILE, "does not lie in its province"),
    (_set("shapes", 0, "geometry", b"\x01\x02garbage"), istat.BOUNDARIES_FILE, "geometry is not readable WKB"),
    (lambda f: f.update(shapes=f["shapes"].iloc[1:].reset_index(drop=True)), istat.BOUNDARIES_FILE, "no polygon for"),
])
def test_damaged_copies_fail_with_file_line_and_problem(folder, tmp_path, damage, file, message):
    small = _small_folder(folder, tmp_path, damage=damage)
    with pytest.raises(LoaderError) as err:
        istat.load(small)
    assert file in str(err.value) and message in str(err.value), str(err.value)


def test_truncated_and_empty_files(folder, tmp_path):
    small = _small_folder(folder, tmp_path)
    data = (small / istat.POPULATION_FILE).read_bytes()
    (small / istat.POPULATION_FILE).write_bytes(data[: len(data) // 2])
    with pytest.raises(LoaderError, match="not a readable Feather file"):
        istat.load(small)
    (small / istat.POPULATION_FILE).write_bytes(b"")
    with pytest.raises(LoaderError, match="not a readable Feather file"):
        istat.load(small)
    shutil.rmtree(small)
    with pytest.raises(LoaderError, match="file not found"):
        istat.load(small)


def test_a_merged_code_outside_any_province_is_an_error(folder, tmp_path):
    def damage(frames):
        frames["pop"].loc[frames["pop"]["municipality_code"] == 5079, "municipality_code"] = 999001
    with pytest.raises(LoaderError, match="999001 is in no province"):
        istat.load(_small_folder(folder, tmp_path, damage=damage))


def test_polygons_outside_italy_are_an_error(folder, tmp_path):
    def damage(frames):
        g = shapely.from_wkb(frames["shapes"]["geometry"].to_numpy())
        moved = shapely.transform(g, lambda xy: xy * 10)  # e.g. a projected file passed off as lon/lat
        frames["shapes"]["geometry"] = shapely.to_wkb(moved)
    with pytest.raises(LoaderError, match="not Italy in lon/lat"):
        istat.load(_small_folder(folder, tmp_path, damage=damage))


def test_simplification_defaults_are_unchanged_for_other_data_sets():
    assert geo.DEFAULT_TOLERANCE == 0.01 and geo.COORD_DECIMALS == 4
