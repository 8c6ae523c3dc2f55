"""UCI Adult: the PROVENANCE spot values and its four uniqueness figures exactly, the cache entry, damaged copies."""
from __future__ import annotations

import gzip
from pathlib import Path

import pandas as pd
import pytest

from census_loaders import adult, cache
from census_loaders.schema import LoaderError
from dashboard.core import microdata as M


@pytest.fixture(scope="module")
def raw_file(raw_root) -> Path:
    path = raw_root / "microdata" / "adult" / adult.FILE
    if not path.exists():
        pytest.skip("ADULT file not present")
    return path


@pytest.fixture(scope="module")
def table(raw_file) -> pd.DataFrame:
    return adult.parse(raw_file)


def test_provenance_spot_values(table):
    assert len(table) == 32_561
    assert table["sex"].value_counts().to_dict() == {"Male": 21_790, "Female": 10_771}
    assert table["age"].mean() == pytest.approx(38.581647, abs=5e-7)
    assert table["income"].value_counts().to_dict() == {"<=50K": 24_720, ">50K": 7_841}
    assert table["race"].value_counts().to_dict() == {"White": 27_816, "Black": 3_124, "Asian-Pac-Islander": 1_039,
                                                      "Amer-Indian-Eskimo": 311, "Other": 271}
    assert table.iloc[0].tolist() == [39, "State-gov", 77516, "Bachelors", 13, "Never-married", "Adm-clerical",
                                      "Not-in-family", "White", "Male", 2174, 0, 40, "United-States", "<=50K"]
    # "?" is missing: as many as the PROVENANCE counts, 2,399 records with at least one
    assert table[["workclass", "occupation", "native_country"]].isna().sum().tolist() == [1_836, 1_843, 583]
    assert int(table.isna().any(axis=1).sum()) == 2_399
    # duplicates are kept
    assert len(table.drop_duplicates()) == 32_537
    assert len(table.drop(columns="income").drop_duplicates()) == 32_536


REFERENCE = {  # PROVENANCE: attributes → (uniqueness, unique records, distinct combinations)
    "a": (["age", "sex", "race", "marital_status"], 0.017291, 563, 1_772),
    "b": (["age", "sex", "race", "marital_status", "education", "native_country"], 0.171801, 5_594, 8_553),
    "c": (["age", "workclass", "education", "marital_status", "occupation", "relationship", "race", "sex",
           "native_country", "hours_per_week"], 0.761709, 24_802, 27_515),
    "d": ([c for c in adult.COLUMNS_CACHED if c != "income"], 0.998495, 32_512, 32_536),
}


@pytest.fixture(scope="module")
def shipped(cache_root) -> M.Table:
    return M.adult_table()


@pytest.mark.parametrize("key", sorted(REFERENCE))
def test_the_four_reference_uniqueness_values(shipped, key):
    columns, share, unique, distinct = REFERENCE[key]
    prep = M.prepare(shipped, columns, missing="value")  # "?" as an ordinary value, as the PROVENANCE does
    emp = M.empirical(prep.codes)
    assert prep.n == 32_561 and emp.n_classes == distinct
    assert int((emp.class_size == 1).sum()) == unique
    assert round(emp.uniqueness, 6) == share


def test_shipped_cache_holds_the_file(table, cache_root):
    info = cache.microdata_info("adult")
    assert info["rows"] == 32_561 and info["loader"] == "census_loaders.adult"
    assert "1994" in info["note"] and "Becker" in info["sources"][0]["citation"]
    assert info["sources"][0]["file"] == f"microdata/adult/{adult.FILE}"
    pd.testing.assert_frame_equal(cache.microdata("adult"), table)


def _damaged(raw_file: Path, tmp_path: Path, line: int, new: str) -> Path:
    lines = gzip.decompress(raw_file.read_bytes()).decode("utf-8").splitlines(keepends=True)
    lines[line - 1] = new + "\n"
    out = tmp_path / adult.FILE
    out.write_bytes(gzip.compress("".join(lines).encode("utf-8"), mtime=0))
    return out


@pytest.mark.parametrize("line, new, problem", [
    (2, "39,State-gov,77516,Bachelors,13,Never-married,Adm-clerical,Not-in-family,White,Male,2174,0,40", "expected 15 fields, found 13"),
    (3, "x,State-gov,77516,Bachelors,13,Never-married,Adm-clerical,Not-in-family,White,Male,2174,0,40,Cuba,<=50K", "age 'x' is not a whole number"),
    (4, "12,State-gov,77516,Bachelors,13,Never-married,Adm-clerical,Not-in-family,White,Male,2174,0,40,Cuba,<=50K", "age 12 is outside"),
    (5, "39,,77516,Bachelors,13,Never-married,Adm-clerical,Not-in-family,White,Male,2174,0,40,Cuba,<=50K", "workclass is empty"),
    (6, "39,State-gov,77516,Bachelors,13,Never-married,Adm-clerical,Not-in-family,White,M,2174,0,40,Cuba,<=50K", "sex 'M' is not one of"),
    (7, "39,State-gov,77516,Bachelors,13,Never-married,Adm-clerical,Not-in-family,White,Male,2174,0,40,Cuba,>50K.", "income '>50K.' is not one of"),
])
def test_damaged_rows_name_file_line_and_problem(raw_file, tmp_path, line, new, problem):
    with pytest.raises(LoaderError) as err:
        adult.parse(_damaged(raw_file, tmp_path, line, new))
    text = str(err.value)
    assert adult.FILE in text and f"line {line}" in text and problem in text


def test_damaged_header(raw_file, tmp_path):
    with pytest.raises(LoaderError, match="line 1: expected the columns age, workclass"):
        adult.parse(_damaged(raw_file, tmp_path, 1, "age;workclass"))
