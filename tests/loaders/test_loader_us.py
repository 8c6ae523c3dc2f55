"""US PEP Vintage 2022 loader: spot values, WONDER = derived CSV, boundaries, corrupted files."""
from __future__ import annotations

import gzip

import numpy as np
import pandas as pd
import pytest
import shapely

from census_loaders import us_pep
from census_loaders.schema import POPULATION_COLUMNS, LoaderError


@pytest.fixture(scope="module")
def us_folder(raw_root):
    return raw_root / "us"


@pytest.fixture(scope="module")
def us(us_folder):
    [data] = us_pep.load(us_folder)
    return data


@pytest.fixture(scope="module")
def wonder_f_text(us_folder):
    return gzip.decompress((us_folder / us_pep.WONDER_FILES["female"]).read_bytes()).decode("utf-8")


def county_total(pop: pd.DataFrame, fips: str) -> float:
    return pop.loc[pop["district_id"] == fips, "count"].sum()


# --------------------------------------------------------------------------- the data set


def test_data_set_description(us):
    assert us.code == "US" and us.name == "United States"
    assert (us.district_label, us.region_label) == ("county", "state")
    assert us.body_prior_country == "US" and us.reference_date == "2022-07-01"
    assert [s.path.name for s in us.sources] == list(us_pep.WONDER_FILES.values())
    assert all(s.path.exists() and s.licence and s.citation for s in us.sources)
    assert us.boundary_sources and "ISC" in us.boundary_sources[0].licence


def test_totals_and_spot_values(us):
    pop = us.population
    assert pop["count"].sum() == 333_287_557
    assert pop["district_id"].nunique() == 3144
    assert county_total(pop, "06037") == 9_721_138
    assert county_total(pop, "48301") == 51
    assert county_total(pop, "17031") == 5_109_292
    assert county_total(pop, "48201") == 4_780_913
    assert county_total(pop, "15005") == 82
    texas = pop[pop["region_id"] == "48"]
    assert texas["count"].sum() == 30_029_572 and texas["district_id"].nunique() == 254
    assert pop["region_id"].nunique() == 51  # 50 states + DC
    la = pop[pop["district_id"] == "06037"].iloc[0]
    assert (la["district_name"], la["region_name"]) == ("Los Angeles County", "California")


def test_schema_shape(us):
    pop = us.population
    assert list(pop.columns) == list(POPULATION_COLUMNS)
    assert not pop["filled"].any()
    assert (pop.groupby("district_id").size() == 36).all()
    assert (pop["district_id"].str[:2] == pop["region_id"]).all()
    assert pop["district_id"].str.fullmatch(r"\d{5}").all()
    groups = pop[["age_from", "age_to"]].drop_duplicates().sort_values("age_from")
    assert list(groups["age_from"]) == [float(a) for a in range(0, 90, 5)]
    assert groups["age_to"].iloc[:-1].tolist() == [float(a) for a in range(5, 90, 5)]
    assert np.isnan(groups["age_to"].iloc[-1])  # 85+ is open
    assert set(pop["sex"]) == {"female", "male"}
    assert (pop["count"] == 0).sum() == 31  # all in tiny counties (PROVENANCE)


def test_wonder_and_derived_give_identical_tables(us, us_folder):
    derived = us_pep.read_derived(us_folder / us_pep.DERIVED_FILE)
    pd.testing.assert_frame_equal(derived, us.population)


def test_boundaries(us):
    b = us.boundaries
    assert b.crs.to_epsg() == 4326 and list(b.columns) == ["district_id", "geometry"]
    ids = set(us.population["district_id"])
    assert set(b["district_id"]) == ids - {"51610"} and len(b) == 3143
    assert b.geometry.notna().all() and not b.geometry.is_empty.any() and b.geometry.is_valid.all()
    assert set(b.geom_type) <= {"Polygon", "MultiPolygon"}
    assert any("51610" in n and "Falls Church" in n for n in us.notes)
    shape = dict(zip(b["district_id"], b.geometry))
    assert shape["06037"].contains(shapely.Point(-118.2437, 34.0522))  # downtown Los Angeles
    assert shape["17031"].contains(shapely.Point(-87.6298, 41.8781))  # Chicago Loop


def test_crlf_line_endings_read_the_same(tmp_path, wonder_f_text, us):
    path = tmp_path / "f.csv"
    path.write_bytes(wonder_f_text.replace("\n", "\r\n").encode())
    df = us_pep.read_wonder_file(path)
    assert df["count"].sum() == us.population.query("sex == 'female'")["count"].sum()


# --------------------------------------------------------------------------- corrupted copies


def edit_line(text: str, line: int, change) -> str:
    lines = text.split("\n")
    lines[line - 1] = change(lines[line - 1])
    return "\n".join(lines)


def set_field(line_text: str, column: int, value: str) -> str:
    """Replace one field of a WONDER line (its County field is the only quoted one)."""
    head, county, tail = line_text.split('"')
    fields = head.rstrip(",").split(",") + [f'"{county}"'] + tail.lstrip(",").split(",")
    fields[column] = value
    return ",".join(fields)


def write(tmp_path, text: str, gz: bool = True, encoding: str = "utf-8"):
    path = tmp_path / ("f.csv.gz" if gz else "f.csv")
    raw = text.encode(encoding)
    path.write_bytes(gzip.compress(raw, compresslevel=1) if gz else raw)
    return path


# Line 10 of the female file is a data row of Autauga-to-Bibb era (Alabama, 0-4 years).
CORRUPTIONS = {
    "non-numeric count": (lambda t: edit_line(t, 10, lambda s: set_field(s, 8, "12x")), 10, "not a number"),
    "negative count": (lambda t: edit_line(t, 10, lambda s: set_field(s, 8, "-12")), 10, "negative"),
    "garbled FIPS": (lambda t: edit_line(t, 10, lambda s: set_field(s, 7, "01O17")), 10, "not 5 digits"),
    "unknown state": (lambda t: edit_line(t, 10, lambda s: set_field(set_field(s, 5, "99"), 7, "99017")), 10,
                      "unknown state FIPS code '99'"),
    "county outside its state": (lambda t: edit_line(t, 10, lambda s: set_field(s, 7, "02017")), 10,
                                 "does not lie in state 01"),
    "duplicate county row": (lambda t: edit_line(t, 10, lambda s: s + "\n" + s), 11, "duplicate row for county"),
    "unknown gender": (lambda t: edit_line(t, 10, lambda s: set_field(s, 1, "X")), 10, "unknown gender code"),
    "unknown age group": (lambda t: edit_line(t, 10, lambda s: set_field(s, 3, "0-5")), 10, "unknown age group code"),
    "wrong state in county name": (lambda t: edit_line(t, 10, lambda s: s.replace(", AL\"", ", AK\"")), 10,
                                   "does not end with its state"),
    "missing column": (lambda t: "\n".join(",".join(l.split(",")[:-1]) for l in t.split("\n")), 1,
                       "missing column(s) 'Population'"),
    "wrong delimiter": (lambda t: t.replace(",", ";"), 1, "delimiter"),
    "ragged line": (lambda t: edit_line(t, 10, lambda s: s + ",7"), 10, "not a well-formed CSV"),
    "data after the footnotes": (lambda t: t.rstrip("\n") + "\n" + t.split("\n")[9] + "\n", 56634,
                                 "data line after the footnote"),
}


@pytest.mark.parametrize("name", CORRUPTIONS)
def test_corrupted_wonder_file_names_file_and_line(tmp_path, wonder_f_text, name):
    corrupt, line, problem = CORRUPTIONS[name]
    path = write(tmp_path, corrupt(wonder_f_text))
    with pytest.raises(LoaderError) as err:
        us_pep.read_wonder_file(path)
    assert err.value.file == str(path) and err.value.line == line, str(err.value)
    assert problem in err.value.problem and f"{path}, line {line}: " in str(err.value)


def test_unknown_but_well_formed_county_is_rejected_against_the_map(tmp_path, wonder_f_text, us):
    path = write(tmp_path, edit_line(wonder_f_text, 10, lambda s: set_field(s, 7, "01999")))
    with pytest.raises(LoaderError, match=r"line 10: county FIPS code 01999 is not a known county"):
        us_pep.read_wonder_file(path, known_ids=set(us.population["district_id"]))


def test_missing_age_group_is_named(tmp_path, wonder_f_text):
    lines = wonder_f_text.split("\n")
    del lines[9]  # one county's 0-4 row
    path = write(tmp_path, "\n".join(lines))
    with pytest.raises(LoaderError, match=r"f\.csv\.gz: county \d{5} \(female\) lacks age group\(s\) 0-4"):
        us_pep.read_wonder_file(path)


@pytest.mark.parametrize("case", ["truncated gzip", "empty file", "empty gzip", "UTF-16"])
def test_unreadable_files(tmp_path, us_folder, wonder_f_text, case):
    if case == "truncated gzip":
        raw = (us_folder / us_pep.WONDER_FILES["female"]).read_bytes()
        path = tmp_path / "f.csv.gz"
        path.write_bytes(raw[: len(raw) // 2])
        problem, line = "damaged or truncated", None
    elif case == "empty file":
        path = write(tmp_path, "", gz=False)
        problem, line = "empty", None
    elif case == "empty gzip":
        path = write(tmp_path, "")
        problem, line = "empty", None
    else:
        path = write(tmp_path, wonder_f_text, encoding="utf-16")
        problem, line = "re-encoded", 1
    with pytest.raises(LoaderError) as err:
        us_pep.read_wonder_file(path)
    assert err.value.file == str(path) and err.value.line == line and problem in err.value.problem


def test_load_names_the_broken_file(tmp_path, us_folder, wonder_f_text):
    """Through load(): a county missing from the male file is reported against that file."""
    (tmp_path / us_pep.BOUNDARY_FILE).symlink_to(us_folder / us_pep.BOUNDARY_FILE)
    (tmp_path / us_pep.WONDER_FILES["female"]).symlink_to(us_folder / us_pep.WONDER_FILES["female"])
    male = gzip.decompress((us_folder / us_pep.WONDER_FILES["male"]).read_bytes()).decode()
    male = "\n".join(l for l in male.split("\n") if ",56045," not in l)  # drop Weston County, WY
    (tmp_path / us_pep.WONDER_FILES["male"]).write_bytes(gzip.compress(male.encode(), compresslevel=1))
    with pytest.raises(LoaderError) as err:
        us_pep.load(tmp_path)
    assert err.value.file.endswith(us_pep.WONDER_FILES["male"]) and "county 56045 is missing" in err.value.problem


def test_derived_csv_fips_must_stay_strings(tmp_path, us_folder):
    """A derived CSV saved by a tool that dropped leading zeros is refused, with its line."""
    text = (us_folder / us_pep.DERIVED_FILE).read_text()
    path = tmp_path / "derived.csv"
    path.write_text(edit_line(text, 2, lambda s: s[1:]))  # "01001,…" → "1001,…"
    with pytest.raises(LoaderError, match=r"derived\.csv, line 2: county FIPS code '1001' is not 5 digits"):
        us_pep.read_derived(path)
