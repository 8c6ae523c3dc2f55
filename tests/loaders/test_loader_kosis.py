"""KOSIS census 2010 (``KR``): spot values of data/raw/kr/PROVENANCE.md, the choice of leaf districts,
the boundary code crosswalk (checked with district seats), and damaged copies of the file."""
from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pandas as pd
import pytest
import shapely
from shapely.geometry import Point

from census_loaders import kosis
from census_loaders.schema import POPULATION_COLUMNS, LoaderError


@pytest.fixture(scope="module")
def folder(raw_root) -> Path:
    f = raw_root / "kr"
    if not (f / kosis.CENSUS_FILE).exists():
        pytest.skip("KOSIS files not present")
    return f


@pytest.fixture(scope="module")
def data(folder):
    (d,) = kosis.load(folder)
    return d


@pytest.fixture(scope="module")
def pop(data) -> pd.DataFrame:
    return data.population


def _people(pop, code=None, sex=None, region=None):
    sel = pd.Series(True, index=pop.index)
    if code:
        sel &= pop["district_id"] == code
    if region:
        sel &= pop["region_id"] == region
    if sex:
        sel &= pop["sex"] == sex
    return pop.loc[sel, "count"].sum()


# --------------------------------------------------------------------------- real data


def test_nation(data, pop):
    assert data.code == "KR" and list(pop.columns) == list(POPULATION_COLUMNS)
    assert _people(pop) == 47_990_761
    assert (_people(pop, sex="male"), _people(pop, sex="female")) == (23_840_896, 24_149_865)
    assert pop["district_id"].nunique() == 251 and pop["region_id"].nunique() == 16
    assert len(pop) == 251 * 2 * 18


def test_seoul_and_jongno(pop):
    assert _people(pop, region="11") == 9_631_482
    assert (_people(pop, "11010", "male"), _people(pop, "11010", "female")) == (74_331, 76_738)
    assert _people(pop, "11010") == 151_069
    jongno = pop[pop["district_id"] == "11010"].iloc[0]
    assert jongno["district_name"] == "종로구" and jongno["region_name"] == "서울특별시 (Seoul)"


def test_leaves_exclude_aggregates_and_city_totals(folder, pop):
    df = kosis.read_census(folder / kosis.CENSUS_FILE)
    codes = set(df["code"])
    assert len(codes) == 322  # PROVENANCE: 322 codes in all
    leaves, parent_of, city_totals = kosis.leaf_districts(df, folder / kosis.CENSUS_FILE)
    assert sorted(city_totals) == ["31010", "31020", "31040", "31050", "31090", "31100", "31190", "33010", "34010",
                                   "35010", "37010", "38110_2010"]
    assert set(leaves) == set(pop["district_id"])
    assert not any(c[-1] in "CDE" for c in leaves) and "38110" in leaves  # Yangsan, not Changwon's total
    five = [c for c in codes if kosis.AREA.fullmatch(c)]
    assert len(five) == 263 and len(leaves) == 251  # 263 area codes less 12 city totals
    names = pop.drop_duplicates("district_id").set_index("district_id")["district_name"]
    assert names["34011"] == "천안시 동남구" and names["38111"] == "창원시 의창구"
    assert names["31011"] == "수원시 장안구"  # published with its city already


def test_age_groups_add_up(folder, pop):
    ages = pop.drop_duplicates("age_from").sort_values("age_from")
    assert list(ages["age_from"]) == list(range(0, 90, 5)) and np.isnan(ages["age_to"].iloc[-1])
    nation = kosis.read_census(folder / kosis.CENSUS_FILE)
    nation = nation[(nation["code"] == "00") & (nation["age"] == "85세이상")].iloc[0]
    assert _people(pop[pop["age_from"] == 85]) == nation["total"] == 366_609


#: Seats of districts (lon, lat): each must lie in the polygon drawn for its census code. The first
#: three keep their code; the others are translated by the crosswalk.
SEATS = {
    "11010": (126.979, 37.573),  # 종로구, Seoul
    "21090": (129.163, 35.163),  # 해운대구, Busan
    "39010": (126.531, 33.500),  # 제주시
    "21160": (129.222, 35.244),  # 기장군
    "22080": (128.431, 35.774),  # 달성군
    "23090": (126.488, 37.747),  # 강화군
    "23100": (124.660, 37.965),  # 옹진군 (Baengnyeong-do)
    "31360": (127.075, 38.096),  # 연천군
    "31390": (127.488, 37.492),  # 양평군
    "34400": (126.628, 36.890),  # 당진군
    "38040": (128.108, 35.180),  # 진주시
    "38110": (129.037, 35.335),  # 양산시
    "38410": (128.166, 35.567),  # 합천군
}


def test_crosswalked_polygons_contain_their_district_seats(data):
    shapes = data.boundaries.set_index("district_id").geometry
    assert len(shapes) == 251 and shapes.index.is_unique  # every si-gun-gu has its polygon
    for code, (lon, lat) in SEATS.items():
        assert shapes[code].contains(Point(lon, lat)), code


def test_matching_codes_alone_would_have_been_wrong(folder):
    """Without the crosswalk, census 38110 (Yangsan) would get no polygon and census 38100 (Geoje) Yangsan's."""
    import geopandas as gpd

    raw = gpd.read_file(folder / kosis.BOUNDARY_FILE)
    by_code = dict(zip(raw["adm2_code"].astype(str), raw.geometry))
    assert by_code["38100"].contains(Point(*SEATS["38110"]))  # SGIS 38100 is Yangsan
    assert "38110" not in by_code


def test_served_map(cache_root):
    info = json.loads((cache_root / "manifest.json").read_text(encoding="utf-8"))["datasets"]["KR"]
    assert info["population"] == 47_990_761 and info["districts"] == 251
    assert info["boundaries"]["features"] == 251 and info["boundaries"]["missing_geometry"] == []
    assert info["boundaries"]["bytes"] < 1_000_000
    assert "2010" in info["name"] and any("Old data" in n for n in info["notes"])
    geo = json.loads((cache_root / "boundaries" / "KR.geojson").read_text(encoding="utf-8"))
    assert all(shapely.geometry.shape(f["geometry"]).is_valid for f in geo["features"])


# --------------------------------------------------------------------------- damaged copies


def _damaged(folder: Path, tmp_path: Path, edit) -> Path:
    out = tmp_path / "kr"
    out.mkdir()
    lines = (folder / kosis.CENSUS_FILE).read_text(encoding="utf-8").splitlines(keepends=True)
    lines = edit(lines)
    (out / kosis.CENSUS_FILE).write_text("".join(lines), encoding="utf-8")
    (out / kosis.BOUNDARY_FILE).write_bytes((folder / kosis.BOUNDARY_FILE).read_bytes())
    return out


def _line_of(lines, code, age):
    return next(i for i, l in enumerate(lines) if l.startswith(f"'{code},") and f'"{age}"' in l)


def _replace(code, age, old, new):
    def edit(lines):
        i = _line_of(lines, code, age)
        assert old in lines[i]
        lines[i] = lines[i].replace(old, new, 1)
        return lines
    return edit


def _drop(code, age):
    def edit(lines):
        del lines[_line_of(lines, code, age)]
        return lines
    return edit


def _drop_district(code):
    def edit(lines):
        return [l for l in lines if not l.startswith(f"'{code},")]
    return edit


@pytest.mark.parametrize("edit, message", [
    # Jongno, 0–4: 4,613 = 2,367 + 2,246 (line 125 of the file) — one count changed
    (_replace("11010", "0 - 4세", ",2367,", ",2368,"), "line 125: area 11010 (종로구), age 0 - 4세: male + female vs total"),
    (_replace("11010", "0 - 4세", ",4613,2367,2246,", ",4614,2368,2246,"), "area 11010 (종로구), male: age groups vs 계"),
    (_replace("11010", "0 - 4세", ",4613,", ",-4613,"), "line 125: 인구 (명) (11010, 0 - 4세) '-4613' is negative"),
    (_replace("11010", "0 - 4세", '"0 - 4세"', '"0-4세"'), "line 125: unknown age label '0-4세'"),
    (_replace("11010", "0 - 4세", "'11010,", "'1101X,"), "area code '1101X' is neither"),
    (_drop("11010", "0 - 4세"), "area 11010 (종로구) has no row for age '0 - 4세'"),
    (_drop_district("11010"), "province 11 (서울특별시): its si-gun-gu vs its total"),
    (lambda lines: lines + [lines[_line_of(lines, "11010", "계")]], "area 11010 (종로구), age 계: listed twice"),
    (lambda lines: [l.replace(",", ";") for l in lines], "no header row"),
])
def test_damaged_copies_fail_with_file_line_and_problem(folder, tmp_path, edit, message):
    with pytest.raises(LoaderError) as err:
        kosis.load(_damaged(folder, tmp_path, edit))
    assert kosis.CENSUS_FILE in str(err.value) and message in str(err.value), str(err.value)


def test_a_city_total_that_no_longer_matches_its_gu_is_caught(folder, tmp_path):
    """Suwon's total raised by 10 (and its province and the nation with it): its four gu no longer add up
    to it, so it is taken for a district — and Gyeonggi's si-gun-gu then exceed Gyeonggi."""
    def edit(lines):
        for code in ("31010",):
            i = _line_of(lines, code, "계")
            parts = lines[i].split(",")
            parts[5], parts[6] = str(int(parts[5]) + 10), str(int(parts[6]) + 10)
            lines[i] = ",".join(parts)
            j = _line_of(lines, code, "0 - 4세")
            parts = lines[j].split(",")
            parts[5], parts[6] = str(int(parts[5]) + 10), str(int(parts[6]) + 10)
            lines[j] = ",".join(parts)
        return lines
    with pytest.raises(LoaderError, match="province 31 .*: its si-gun-gu vs its total"):
        kosis.load(_damaged(folder, tmp_path, edit))


def test_re_encoded_and_truncated_files(folder, tmp_path):
    out = _damaged(folder, tmp_path, lambda lines: lines)
    text = (out / kosis.CENSUS_FILE).read_text(encoding="utf-8")
    (out / kosis.CENSUS_FILE).write_bytes(text.encode("cp949"))
    with pytest.raises(LoaderError, match="not valid utf-8"):
        kosis.load(out)
    (out / kosis.CENSUS_FILE).write_text(text[: len(text) // 2].rsplit("\n", 1)[0] + "\n", encoding="utf-8")
    with pytest.raises(LoaderError):
        kosis.load(out)


@pytest.mark.slow  # a whole load with its boundaries, over 5 s: in the full suite, not the fast lane
def test_a_boundary_file_without_a_crosswalked_code_is_an_error(folder, tmp_path):
    out = _damaged(folder, tmp_path, lambda lines: lines)
    geo = json.loads((out / kosis.BOUNDARY_FILE).read_text(encoding="utf-8"))
    geo["features"] = [f for f in geo["features"] if f["properties"]["adm2_code"] != 38100]
    (out / kosis.BOUNDARY_FILE).write_text(json.dumps(geo), encoding="utf-8")
    with pytest.raises(LoaderError, match=r"no polygon with SGIS code\(s\) \['38100'\]"):
        kosis.load(out)
