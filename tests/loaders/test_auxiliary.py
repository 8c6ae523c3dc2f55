"""Auxiliary-knowledge fraction tables: presets, users' CSV files, typed percentages."""
from __future__ import annotations

import math
import re

import pytest

from census_loaders.auxiliary import load, parse_fraction_csv, read_flo, read_wearables, user_fraction
from census_loaders.schema import FRACTION_KEYS, LoaderError


@pytest.fixture(scope="module")
def presets(raw_root):
    if not (raw_root / "aux").exists():
        pytest.skip("aux raw files are not present")
    return {t.id: t for t in load(raw_root)}


# --------------------------------------------------------------------------- presets


def test_presets(presets):
    assert set(presets) == {"de_wearables", "us_flo"}
    for t in presets.values():
        assert t.name and t.note and t.sources
        assert set(t.table.columns) <= {*FRACTION_KEYS, "fraction"}
        assert t.table["fraction"].between(0, 1).all()
        for s in t.sources:
            assert s.publisher and s.licence and s.path.exists()


def test_de_wearables(presets):
    t = presets["de_wearables"]
    assert t.country == "DE"
    assert list(t.table.columns) == ["age_from", "age_to", "fraction"]
    rows = {r.age_from: r for r in t.table.itertuples()}
    assert set(rows) == {10, 25, 45, 65}
    assert math.isclose(rows[65].fraction, 0.072) and math.isnan(rows[65].age_to)
    assert math.isclose(rows[10].fraction, 0.33 * 0.90) and rows[10].age_to == 25
    assert "equal across sexes and districts" in t.note
    assert "Destatis" in t.sources[0].publisher and "Destatis" in t.sources[0].licence


def test_us_flo(presets):
    t = presets["us_flo"]
    assert t.country == "US"
    assert list(t.table.columns) == ["sex", "fraction"]
    f = dict(zip(t.table["sex"], t.table["fraction"]))
    assert math.isclose(f["female"], 0.2958, abs_tol=1e-4) and f["male"] == 0
    assert "UPPER BOUND" in t.note and "upper bound" in t.name


def test_preset_corruptions(raw_root, tmp_path):
    src = (raw_root / "aux/us_flo_app_users.csv").read_text(encoding="utf-8")
    p = tmp_path / "us_flo_app_users.csv"
    p.write_text(src.replace("0.295805", "0.395805"))
    with pytest.raises(LoaderError, match=r"us_flo_app_users\.csv, line 2: fraction 0\.395805 does not equal"):
        read_flo(p)
    p.write_text(src.replace("male,0,,0", "mle,0,,0"))
    with pytest.raises(LoaderError, match=r"line 3: unknown sex 'mle'"):
        read_flo(p)
    src = (raw_root / "aux/de_wearables_by_age_destatis_ikt_2020.csv").read_text(encoding="utf-8")
    p = tmp_path / "w.csv"
    p.write_text(src.replace("0.08,0.90", "8,0.90"))
    with pytest.raises(LoaderError, match=r"w\.csv, line 5: share_of_internet_users '8' is not in \[0, 1\]"):
        read_wearables(p)
    p.write_text(src.replace("25,45,", "20,45,"))
    with pytest.raises(LoaderError, match=r"w\.csv, line 2: age band starting at 10 overlaps"):
        read_wearables(p)
    p.write_bytes(src.encode("utf-16"))
    with pytest.raises(LoaderError, match=r"w\.csv, line 1: .*re-encoded"):
        read_wearables(p)
    p.write_text("")
    with pytest.raises(LoaderError, match="empty"):
        read_wearables(p)


def test_csv_uniform():
    t = parse_fraction_csv("fraction\n0.25\n", "Owns a dog")
    assert list(t.table.columns) == ["fraction"] and t.table["fraction"].iloc[0] == 0.25
    assert t.name == "Owns a dog" and t.id == "user_owns_a_dog" and t.country is None


def test_csv_keys_and_formats():
    t = parse_fraction_csv("\ufeffDistrict_ID;Sex;Age;Percent\r\n01001;w;18-25;12,5\r\n01001;m;18-25;10 %\r\n"
                           "01001;female;65+;3\r\n", "Sports club")
    assert list(t.table.columns) == ["district_id", "sex", "age_from", "age_to", "fraction"]
    assert list(t.table["district_id"]) == ["01001"] * 3  # leading zero kept
    assert list(t.table["sex"]) == ["female", "male", "female"]
    assert list(t.table["fraction"]) == [0.125, 0.10, 0.03]
    assert math.isnan(t.table["age_to"].iloc[2]) and t.table["age_from"].iloc[2] == 65
    t = parse_fraction_csv("age_from,age_to,fraction\n18,30,0.2\n30,,0.1\n\n", "X", "club.csv")
    assert list(t.table["age_from"]) == [18, 30] and math.isnan(t.table["age_to"].iloc[1])
    t = parse_fraction_csv("age\tfraction\n18 to 25\t0.5\n", "X")
    assert (t.table["age_from"].iloc[0], t.table["age_to"].iloc[0]) == (18, 25)


@pytest.mark.parametrize("text, line, problem", [
    ("", None, "file is empty"),
    ("   \n\n", None, "file is empty"),
    ("sex,share\nfemale,0.3\n", 1, "unknown column\\(s\\) 'share'"),
    ("sex\nfemale\n", 1, "no 'fraction'"),
    ("fraction,percent\n0.1,10\n", 1, "either 'fraction' or 'percent'"),
    ("age,age_from,fraction\n18-25,18,0.1\n", 1, "either 'age' or 'age_from'"),
    ("age_from,fraction\n18,0.1\n", 1, "must come together"),
    ("sex,fraction\n", None, "no data rows"),
    ("sex,fraction\nfemale,0.3\nmale,abc\n", 3, "fraction 'abc' is not a number"),
    ("sex,fraction\nfemale,0.3\nmale,\n", 3, "fraction is empty"),
    ("sex,fraction\nfemale,1.3\n", 2, "fraction '1.3' is not in \\[0, 1\\]"),
    ("sex,fraction\nfemale,-0.1\n", 2, "is not in \\[0, 1\\]"),
    ("sex,fraction\nfemale,nan\n", 2, "is not in \\[0, 1\\]"),
    ("sex,percent\nfemale,130\n", 2, "percent '130' is not in \\[0, 100\\]"),
    ("sex,fraction\nfemale,0.3\nfemale,0.2\n", 3, "duplicate key \\(sex=female\\), also on line 2"),
    ("sex,fraction\nF,0.3\nwomen,0.2\n", 3, "duplicate key"),
    ("sex,fraction\ndivers,0.3\n", 2, "sex 'divers' is not female or male"),
    ("age,fraction\n18-25,0.3\nadults,0.2\n", 3, "age 'adults' is not understood"),
    ("age,fraction\n25-18,0.3\n", 2, "not a valid half-open band"),
    ("age,fraction\n18-30,0.3\n25-40,0.2\n", 2, "overlaps"),
    ("age_from,age_to,fraction\n18,x,0.3\n", 2, "not numeric"),
    ("fraction\n0.3\n0.2\n", 3, "no key column"),
    ("district_id,fraction\n,0.3\n", 2, "district_id is empty"),
    ("sex,fraction\nfemale,0.3,1\n", 2, "expected 2 fields, found 3"),
    ("sex,fraction\nfemale,0,3\n", 2, "expected 2 fields"),  # decimal comma with comma delimiter
])
def test_csv_malformed(text, line, problem):
    with pytest.raises(LoaderError) as info:
        parse_fraction_csv(text, "Test", "my.csv")
    msg = str(info.value)
    assert msg.startswith("my.csv"), msg
    if line is not None:
        assert msg.startswith(f"my.csv, line {line}: "), msg
    assert re.search(problem, msg), msg


def test_csv_needs_a_name():
    with pytest.raises(ValueError, match="name"):
        parse_fraction_csv("fraction\n0.2\n", " ")


# --------------------------------------------------------------------------- typed percentages


def test_user_uniform():
    t = user_fraction("Runs marathons", percent=2.5)
    assert list(t.table.columns) == ["fraction"] and t.table["fraction"].iloc[0] == 0.025
    assert "2.5 %" in t.note
    assert user_fraction("All", percent=100).table["fraction"].iloc[0] == 1
    assert user_fraction("None", percent=0).table["fraction"].iloc[0] == 0


def test_user_by_age():
    t = user_fraction("Smartwatch", by_age={(65, None): 5, (18, 40): 30, (40, 65): 20.0})
    assert list(t.table["age_from"]) == [18, 40, 65]
    assert list(t.table["fraction"]) == [0.30, 0.20, 0.05]
    assert math.isnan(t.table["age_to"].iloc[2])


@pytest.mark.parametrize("kwargs, problem", [
    ({"percent": 101}, "between 0 and 100"),
    ({"percent": -1}, "between 0 and 100"),
    ({"percent": float("nan")}, "between 0 and 100"),
    ({"percent": float("inf")}, "between 0 and 100"),
    ({"percent": "12"}, "must be a number"),
    ({"percent": True}, "must be a number"),
    ({}, "either one percentage or"),
    ({"percent": 5, "by_age": {(18, 30): 5}}, "either one percentage or"),
    ({"by_age": {}}, "at least one age group"),
    ({"by_age": {(18, 30): 150}}, "ages 18–30 must be between 0 and 100"),
    ({"by_age": {(65, None): float("nan")}}, "ages 65\\+ must be between 0 and 100"),
    ({"by_age": {(30, 18): 5}}, "upper age must be above"),
    ({"by_age": {(-5, 18): 5}}, "lower age must be a number"),
    ({"by_age": {(18, 40): 5, (30, 50): 5}}, "overlaps"),
    ({"by_age": {(18, None): 5, (30, 50): 5}}, "overlaps"),
])
def test_user_invalid(kwargs, problem):
    with pytest.raises(ValueError, match=problem):
        user_fraction("Test", **kwargs)
