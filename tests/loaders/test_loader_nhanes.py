"""NHANES 2017–2018 examined persons: the PROVENANCE spot values, the cache entry, and damaged copies."""
from __future__ import annotations

import gzip
from pathlib import Path

import pandas as pd
import pytest

from census_loaders import cache, nhanes
from census_loaders.schema import LoaderError


@pytest.fixture(scope="module")
def raw_file(raw_root) -> Path:
    path = raw_root / "us" / nhanes.FILE
    if not path.exists():
        pytest.skip("NHANES file not present")
    return path


@pytest.fixture(scope="module")
def table(raw_file) -> pd.DataFrame:
    return nhanes.parse(raw_file)


def test_provenance_spot_values(table):
    assert len(table) == 8_366
    adults = nhanes.adults(table)
    assert len(adults) == 4_850
    assert adults["sex"].value_counts().to_dict() == {"female": 2_513, "male": 2_337}
    means = adults.groupby("sex")["height_cm"].mean()
    assert means["male"] == pytest.approx(173.82, abs=0.005)
    assert means["female"] == pytest.approx(160.13, abs=0.005)


def test_self_reports_are_converted_and_nonresponse_is_missing(table, raw_file):
    raw = pd.read_csv(raw_file)
    coded = raw["CurrentSelfreportedHeightInches"].isin(nhanes.NONRESPONSE_CODES)
    assert coded.sum() > 0
    row = table.set_index("seqn")
    assert row.loc[raw.loc[coded, "SEQN"], "self_height_cm"].isna().all()
    ok = raw["CurrentSelfreportedHeightInches"].between(36, 96)
    first = raw.loc[ok].iloc[0]
    assert row.loc[first["SEQN"], "self_height_cm"] == pytest.approx(first["CurrentSelfreportedHeightInches"] * 2.54)
    assert table["self_weight_kg"].max() < 300


def test_household_size_top_code_is_seven(table, raw_file):
    raw = pd.read_csv(raw_file)
    top = raw["TotalNumberOfPeopleInTheHousehold"].astype(str).str.startswith("7")
    assert top.sum() > 0
    assert (table.set_index("seqn").loc[raw.loc[top, "SEQN"], "household_size"] == 7).all()
    assert table["household_size"].between(1, 7).all()


def test_shipped_cache_holds_the_sample(table):
    info = cache.microdata_info("nhanes")
    assert info["rows"] == 8_366
    cached = cache.microdata("nhanes")
    pd.testing.assert_frame_equal(cached, table, check_dtype=False)


def test_unknown_record_level_data_set_is_a_clear_error():
    with pytest.raises(cache.UnknownDataset, match="unknown record-level data set 'nope'.*nhanes"):
        cache.microdata("nope")


def _damaged(raw_file: Path, tmp_path: Path, edit) -> Path:
    lines = gzip.decompress(raw_file.read_bytes()).decode("utf-8").splitlines(keepends=True)
    lines = edit(lines)
    out = tmp_path / nhanes.FILE
    out.write_bytes(gzip.compress("".join(lines).encode("utf-8")))
    return out


def _replace_field(lines, line_no, index, value):
    fields = lines[line_no - 1].rstrip("\n").split(",")
    fields[index] = value
    lines[line_no - 1] = ",".join(fields) + "\n"
    return lines


@pytest.mark.parametrize(
    "edit, message",
    [
        (lambda ls: _replace_field(ls, 4, 1, "F"), r"line 4: Gender 'F' is neither"),
        (lambda ls: _replace_field(ls, 5, 3, "1.7"), r"line 5: StandingHeightCm 1.7 is outside the plausible range"),
        (lambda ls: _replace_field(ls, 6, 4, "heavy"), r"line 6: WeightKg 'heavy' is not a number"),
        (lambda ls: ls[:7] + [ls[2]] + ls[7:], r"line 8: respondent 93704 appears twice \(first on line 3\)"),
        (lambda ls: [ls[0].replace("Gender", "Sex")] + ls[1:], r"line 1: missing column\(s\) 'Gender'"),
        (lambda ls: [ls[0].replace(",", ";")] + ls[1:], r"single column: is the delimiter wrong"),
        (lambda ls: ls[:3] + ["1,2,3\n"] + ls[3:], r"line 4: expected 14 fields, found 3"),
        (lambda ls: ls[:1], r"no data rows"),
    ],
)
def test_damaged_copies_name_the_line_and_the_problem(raw_file, tmp_path, edit, message):
    path = _damaged(raw_file, tmp_path, edit)
    with pytest.raises(LoaderError, match=message):
        nhanes.parse(path)


def test_truncated_gzip_is_a_clear_error(raw_file, tmp_path):
    path = tmp_path / nhanes.FILE
    path.write_bytes(raw_file.read_bytes()[:5_000])
    with pytest.raises(LoaderError, match="gzip stream is damaged or truncated"):
        nhanes.parse(path)
