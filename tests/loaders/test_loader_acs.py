"""ACS S0101 as downloaded: the ZCTA data set, any-geography reading, county files with fill, corruptions."""
from __future__ import annotations

import csv
import gzip
import shutil

import numpy as np
import pandas as pd
import pytest

from census_loaders import acs, us_pep
from census_loaders.fill import FillWarning
from census_loaders.schema import POPULATION_COLUMNS, LoaderError

DATA = "ACSST5Y2020.S0101-Data.csv"
META = "ACSST5Y2020.S0101-Column-Metadata.csv"


@pytest.fixture(scope="module")
def folder(raw_root):
    return raw_root / "us" / "acs"


@pytest.fixture(scope="module")
def zcta(folder):
    [data] = acs.load(folder)
    return data


@pytest.fixture(scope="module")
def raw_rows(folder):
    """The real file as lists of fields (line 1 codes, line 2 labels, then one row per area)."""
    with open(folder / DATA, newline="", encoding="utf-8") as fh:
        return list(csv.reader(fh))


@pytest.fixture(scope="module")
def table(folder):
    return acs.read_s0101(folder / DATA, folder / META)


def portal_text(rows: list[list[str]]) -> str:
    """Rows in the portal's layout: every field quoted, the empty last field bare."""
    return "".join(",".join(f'"{v}"' for v in r[:-1]) + ",\n" for r in rows)


def write(tmp_path, rows, name=DATA):
    path = tmp_path / name
    path.write_text(portal_text(rows), encoding="utf-8")
    return path


def line_of(rows, geo_id: str) -> int:
    return next(i for i, r in enumerate(rows, start=1) if r[0] == geo_id)


def test_portal_writer_reproduces_the_file(folder, raw_rows):
    assert portal_text(raw_rows) == (folder / DATA).read_text(encoding="utf-8")


# --------------------------------------------------------------------------- the ZCTA data set


def test_data_set_description(zcta):
    assert zcta.code == "US-ZCTA"
    assert zcta.name == "United States — ZIP code areas of Maine and New Hampshire (ACS 2016–2020)"
    assert zcta.district_label == "ZIP code area (ZCTA)" and zcta.region_label == "state"
    assert zcta.body_prior_country == "US" and zcta.reference_date == "2016/2020"
    assert zcta.boundaries is None and "no zcta boundary file" in zcta.boundary_note.lower()
    assert any("margins of error" in n for n in zcta.notes)
    assert zcta.sources[0].path.name == DATA and zcta.sources[0].table_id == "ACSST5Y2020.S0101"


def test_spot_values(zcta, table):
    nation = table[table["level"] == "nation"]
    assert nation["count"].sum() == 326_569_308
    assert nation.groupby("sex")["count"].sum().to_dict() == {"female": 165_750_778, "male": 160_818_530}
    pop = zcta.population
    portland = pop[pop["district_id"] == "04101"]
    assert portland["count"].sum() == 18_179
    assert portland.groupby("sex")["count"].sum().to_dict() == {"female": 9_138, "male": 9_041}
    at_25 = portland[portland["age_from"] == 25].set_index("sex")
    assert at_25.loc["male", "count"] == 1_609 and at_25.loc["female", "count"] == 1_415
    assert at_25.loc["male", "moe"] == 287 and at_25.loc["female", "moe"] == 227
    assert portland["region_name"].iloc[0] == "Maine" and portland["region_id"].iloc[0] == "23"


def test_zcta_count_and_total(zcta, table):
    pop = zcta.population
    # 681 ZCTA rows in the file; 03579 (341 people) is listed twice, once under each state
    assert table.attrs["repeated_rows"] == [("8600000US03579", 570, 4)]
    assert pop["district_id"].nunique() == 680
    repeated = pop.loc[pop["district_id"] == "03579", "count"].sum()
    assert repeated == 341 and pop["count"].sum() + repeated == 2_696_388
    assert pop.groupby("region_name")["district_id"].nunique().to_dict() == {"Maine": 432, "New Hampshire": 248}
    assert "ZCTA 03579 appears twice in the source file as identical rows (lines 4 and 570); it is counted once, under New Hampshire (by its ZIP prefix)." in zcta.notes
    assert not any("crosses a state line" in n for n in zcta.notes)  # the file says nothing of the kind


def test_schema_and_sums_per_zcta(zcta, raw_rows):
    pop = zcta.population
    assert list(pop.columns) == [*POPULATION_COLUMNS, "moe"]
    assert (pop.groupby("district_id").size() == 36).all() and not pop["filled"].any()
    assert pop["moe"].notna().all() and (pop["moe"] >= 0).all()
    codes = raw_rows[0]
    published = pd.DataFrame(raw_rows[3:], columns=codes).drop_duplicates("GEO_ID")
    published = published.set_index(published["GEO_ID"].str[-5:])
    by_sex = pop.groupby(["district_id", "sex"])["count"].sum().unstack()
    for sex, group in (("male", "C03"), ("female", "C05")):
        assert (by_sex[sex] == published[f"S0101_{group}_001E"].astype(float).reindex(by_sex.index)).all()
    assert (by_sex.sum(axis=1) == published["S0101_C01_001E"].astype(float).reindex(by_sex.index)).all()


def test_zero_population_zctas_are_kept(zcta):
    totals = zcta.population.groupby("district_id")["count"].sum()
    zero = sorted(totals[totals == 0].index)
    assert len(zero) == 8 and "04228" in zero
    assert any("8 ZCTAs have an estimated population of 0" in n for n in zcta.notes)


def test_zip_prefix_rule_agrees_with_the_file(raw_rows):
    """The portal lists Maine's ZCTAs, then New Hampshire's: the prefix rule must reproduce that."""
    ids = [r[0][-5:] for r in raw_rows[3:]]
    cut = next(i for i in range(1, len(ids)) if ids[i] < ids[i - 1])
    maine, new_hampshire = ids[:cut], ids[cut:]
    state = lambda z: acs.ZIP_STATES[z[:3]][1]  # noqa: E731
    assert {state(z) for z in maine if z != "03579"} == {"Maine"}
    assert {state(z) for z in new_hampshire} == {"New Hampshire"}
    assert "03579" in maine and "03579" in new_hampshire  # crosses the line; its prefix says NH
    assert sum(z.startswith("039") for z in maine) == 11  # why "03xxx = NH" would be wrong


# --------------------------------------------------------------------------- reading any layout


def test_columns_are_found_by_label_not_position(tmp_path, raw_rows, table):
    order = list(range(len(raw_rows[0]) - 1))[::-1] + [len(raw_rows[0]) - 1]
    shuffled = [[r[i] for i in order] for r in raw_rows]
    got = acs.read_s0101(write(tmp_path, shuffled))
    pd.testing.assert_frame_equal(got, table)


def test_labels_from_metadata_when_line_2_is_data(tmp_path, folder, raw_rows, table):
    path = write(tmp_path, [raw_rows[0], *raw_rows[2:]])
    got = acs.read_s0101(path, folder / META)
    expected = table.assign(source_line=table["source_line"] - 1)
    pd.testing.assert_frame_equal(got, expected)
    with pytest.raises(LoaderError, match=r"line 2: line 2 is not the label line and no metadata file"):
        acs.read_s0101(path)


def test_metadata_that_disagrees_is_named(tmp_path, folder, raw_rows):
    meta = tmp_path / META
    text = (folder / META).read_text(encoding="utf-8")
    meta.write_text(text.replace('"S0101_C03_007E","Estimate!!Male', '"S0101_C03_007E","Estimate!!Men'),
                    encoding="utf-8")
    with pytest.raises(LoaderError) as err:
        acs.read_s0101(folder / DATA, meta)
    assert err.value.file == str(meta) and err.value.line is not None and "S0101_C03_007E" in err.value.problem


def test_pre_2017_percentages_are_recognised(tmp_path, raw_rows):
    rows = [list(r) for r in raw_rows]
    codes = rows[0]
    row = rows[line_of(rows, "8600000US04101") - 1]
    for k in range(2, 20):
        row[codes.index(f"S0101_C03_{k:03d}E")] = "5.6" if k < 19 else "4.8"
    with pytest.raises(LoaderError, match="look like percentages"):
        acs.read_s0101(write(tmp_path, rows))


# --------------------------------------------------------------------------- county-level S0101


@pytest.fixture(scope="module")
def pep(raw_root):
    folder = raw_root / "us"
    return us_pep.read_wonder(folder / us_pep.WONDER_FILES["female"], folder / us_pep.WONDER_FILES["male"])


def s0101_row(template: list[str], codes: list[str], geo_id: str, name: str, cells: pd.DataFrame) -> list[str]:
    """A data row in the real layout with the estimates of ``cells`` (one area's PEP rows)."""
    row = list(template)
    row[0], row[1] = geo_id, name
    col = {c: i for i, c in enumerate(codes)}
    by_sex = {s: cells[cells["sex"] == s].sort_values("age_from")["count"].to_numpy() for s in ("male", "female")}
    for k in range(18):
        m, f = by_sex["male"][k], by_sex["female"][k]
        row[col[f"S0101_C03_{k + 2:03d}E"]] = f"{m:.0f}"
        row[col[f"S0101_C05_{k + 2:03d}E"]] = f"{f:.0f}"
        row[col[f"S0101_C01_{k + 2:03d}E"]] = f"{m + f:.0f}"
    row[col["S0101_C03_001E"]] = f"{by_sex['male'].sum():.0f}"
    row[col["S0101_C05_001E"]] = f"{by_sex['female'].sum():.0f}"
    row[col["S0101_C01_001E"]] = f"{cells['count'].sum():.0f}"
    return row


def county_file(tmp_path, raw_rows, pep, counties, states, edit=None):
    """A county-level S0101 file built from the real header and PEP numbers (plus the US row)."""
    codes, template = raw_rows[0], raw_rows[2]
    rows = [raw_rows[0], raw_rows[1], raw_rows[2]]
    for s in states:
        cells = pep[pep["region_id"] == s].groupby(["sex", "age_from"], as_index=False)["count"].sum()
        rows.append(s0101_row(template, codes, f"0400000US{s}", f"State {s}", cells))
    for c in counties:
        rows.append(s0101_row(template, codes, f"0500000US{c}", f"County {c}", pep[pep["district_id"] == c]))
    if edit:
        edit(rows)
    return write(tmp_path, rows, "ACSDT1Y2022.S0101-Data.csv")


def test_county_file_with_partial_states_is_filled(tmp_path, raw_rows, pep):
    counties = ["10001", "10003", "10005", "44001", "44007"]  # all of Delaware, 2 of Rhode Island's 5
    path = county_file(tmp_path, raw_rows, pep, counties, states=["10", "44", "15"])  # Hawaii: state row only
    out = acs.load_county_s0101(path, pep)
    assert list(out.columns) == [*POPULATION_COLUMNS, "moe"] and out.attrs["fill_warnings"] == []
    assert set(out["region_id"]) == {"10", "15", "44"} and out["district_id"].nunique() == 3 + 5 + 5
    assert set(out.loc[out["filled"], "district_id"]) == {"44003", "44005", "44009", *(f"150{i:02d}" for i in (1, 3, 5, 7, 9))}
    ref = pep.set_index(["district_id", "sex", "age_from"])["count"]
    covered = out[~out["filled"]].set_index(["district_id", "sex", "age_from"])["count"]
    pd.testing.assert_series_equal(covered, ref.loc[covered.index])
    for state in ("10", "15", "44"):  # SPEC §1.4 keeps each state's total (per sex only approximately)
        got = out[out["region_id"] == state]["count"].sum()
        want = pep[pep["region_id"] == state]["count"].sum()
        np.testing.assert_allclose(got, want, rtol=1e-9)
    ri = out[out["filled"] & (out["region_id"] == "44")].groupby("district_id")["count"].sum()
    assert ri.nunique() == 1
    assert out.loc[out["filled"], "moe"].isna().all() and out.loc[~out["filled"], "moe"].notna().all()
    name = out.loc[out["district_id"] == "44003", ["district_name", "region_name"]].iloc[0].tolist()
    assert name == ["Kent County", "Rhode Island"]


def test_county_file_without_state_row_cannot_be_completed(tmp_path, raw_rows, pep):
    path = county_file(tmp_path, raw_rows, pep, ["10001", "44001"], states=["10"])
    with pytest.raises(LoaderError, match=r"line 6: state 44 \(Rhode Island\): the file covers 1 of its 5 counties "
                                          r"but has no state row"):
        acs.load_county_s0101(path, pep)


def test_county_file_complete_state_needs_no_state_row(tmp_path, raw_rows, pep):
    path = county_file(tmp_path, raw_rows, pep, ["10001", "10003", "10005"], states=[])
    out = acs.load_county_s0101(path, pep)
    assert not out["filled"].any() and out["count"].sum() == pep.loc[pep["region_id"] == "10", "count"].sum()


def test_county_file_negative_remainder_is_clamped(tmp_path, raw_rows, pep):
    """A state row with fewer people than its covered counties (survey noise) → clamp + warning."""
    covered_ids = ["44003", "44005", "44007", "44009"]  # all of Rhode Island but Bristol (44001)

    def shrink(rows):
        codes, state = rows[0], rows[3]
        covered = pep.loc[pep["district_id"].isin(covered_ids), "count"].sum()
        cut = float(state[codes.index("S0101_C01_001E")]) - (covered - 10)
        cells = [f"S0101_C05_{i:03d}E" for i in range(2, 20)]
        values = np.array([float(state[codes.index(c)]) for c in cells])
        new = np.floor(values * (1 - cut / values.sum())).astype(int)
        for c, v in zip(cells, new):
            state[codes.index(c)] = str(v)
        female = int(new.sum())
        male = int(float(state[codes.index("S0101_C03_001E")]))
        state[codes.index("S0101_C05_001E")] = str(female)
        state[codes.index("S0101_C01_001E")] = str(female + male)

    path = county_file(tmp_path, raw_rows, pep, covered_ids, states=["44"], edit=shrink)
    with pytest.warns(FillWarning, match="region 44"):
        out = acs.load_county_s0101(path, pep)
    assert len(out.attrs["fill_warnings"]) == 1
    bristol = out[out["district_id"] == "44001"]
    # cell by cell (SPEC §1.8): the shrunk female cells are short and clamped to 0; the male cells keep
    # their remainder, which is Bristol's own count (the male state row equals the PEP state total)
    female, male = bristol[bristol["sex"] == "female"], bristol[bristol["sex"] == "male"]
    assert bristol["filled"].all() and (female["count"] == 0).all()
    want = pep[(pep["district_id"] == "44001") & (pep["sex"] == "male")]["count"].to_numpy()
    np.testing.assert_allclose(male.sort_values("age_from")["count"].to_numpy(), want, rtol=1e-9)


@pytest.mark.parametrize("case", ["unknown county", "duplicate county row", "ZCTA in a county file", "garbled id"])
def test_county_file_errors_name_the_line(tmp_path, raw_rows, pep, case):
    counties = ["10001", "10003", "10005"]
    edits = {
        "unknown county": (lambda rows: rows[3].__setitem__(0, "0500000US09001"), 4, "county 09001"),
        "duplicate county row": (lambda rows: rows.append(list(rows[4])), 7, "duplicate row for 0500000US10003"),
        "ZCTA in a county file": (lambda rows: rows.append(raw_rows[3]), 7, "is a zcta, not a county"),
        "garbled id": (lambda rows: rows[5].__setitem__(0, "0500000US1000"), 6, "garbled geography code"),
    }
    edit, line, problem = edits[case]
    path = county_file(tmp_path, raw_rows, pep, counties, states=[], edit=edit)
    with pytest.raises(LoaderError) as err:
        acs.load_county_s0101(path, pep)
    assert err.value.file == str(path) and err.value.line == line and problem in err.value.problem


# --------------------------------------------------------------------------- corrupted copies


def set_value(rows, geo_id: str, code: str, value: str):
    rows[line_of(rows, geo_id) - 1][rows[0].index(code)] = value


def drop_column(rows, code: str):
    i = rows[0].index(code)
    for r in rows:
        del r[i]


PORTLAND = "8600000US04101"
HERE = lambda p: p  # noqa: E731  (the Portland row's line)
#: corruption → (edit, line as a function of the Portland row's line, problem text)
CORRUPTIONS = {
    "non-numeric count": (lambda rows: set_value(rows, PORTLAND, "S0101_C03_007E", "N"), HERE, "not a number"),
    "negative count": (lambda rows: set_value(rows, PORTLAND, "S0101_C05_007E", "-1415"), HERE, "negative"),
    "age groups not summing": (lambda rows: set_value(rows, PORTLAND, "S0101_C03_007E", "1709"), HERE,
                               "male age groups: parts sum to 9,141 but the total is 9,041"),
    "male + female not the total": (lambda rows: set_value(rows, PORTLAND, "S0101_C01_001E", "18079"), HERE,
                                    "male + female: parts sum to 18,179 but the total is 18,079"),
    "garbled GEO_ID": (lambda rows: set_value(rows, PORTLAND, "GEO_ID", "8600000US0410"), HERE, "garbled geography"),
    "unknown summary level": (lambda rows: set_value(rows, PORTLAND, "GEO_ID", "1400000US04101"), HERE,
                              "garbled geography"),
    "changed duplicate row": (lambda rows: rows.insert(line_of(rows, PORTLAND),
                                                       [*rows[line_of(rows, PORTLAND) - 1][:-2], "9", ""]),
                              lambda p: p + 1, "duplicate row for 8600000US04101"),
    "ragged row": (lambda rows: rows[line_of(rows, PORTLAND) - 1].pop(), HERE, "458 fields"),
    "missing age column": (lambda rows: drop_column(rows, "S0101_C03_007E"), lambda p: 2,
                           "no column labelled 'Estimate!!Male!!Total population!!AGE!!25 to 29 years'"),
    "missing GEO_ID column": (lambda rows: drop_column(rows, "GEO_ID"), lambda p: 1, "missing column(s) 'GEO_ID'"),
}


@pytest.mark.parametrize("name", CORRUPTIONS)
def test_corrupted_s0101_names_file_and_line(tmp_path, raw_rows, name):
    edit, line, problem = CORRUPTIONS[name]
    rows = [list(r) for r in raw_rows]
    line = line(line_of(rows, PORTLAND))
    edit(rows)
    path = write(tmp_path, rows)
    with pytest.raises(LoaderError) as err:
        acs.read_s0101(path)
    assert err.value.file == str(path) and err.value.line == line, str(err.value)
    assert problem in err.value.problem


def test_zcta_outside_maine_and_new_hampshire(tmp_path, folder, raw_rows):
    rows = [list(r) for r in raw_rows]
    set_value(rows, PORTLAND, "GEO_ID", "8600000US10001")
    write(tmp_path, rows)
    shutil.copy(folder / META, tmp_path / META)
    with pytest.raises(LoaderError) as err:
        acs.load(tmp_path)
    assert err.value.line == line_of(raw_rows, PORTLAND) and "ZCTA 10001 is outside Maine and New Hampshire" in str(err.value)


@pytest.mark.parametrize("case", ["empty", "UTF-16", "truncated gzip", "wrong delimiter"])
def test_unreadable_s0101(tmp_path, folder, case):
    text = (folder / DATA).read_text(encoding="utf-8")
    path = tmp_path / DATA
    if case == "empty":
        path.write_bytes(b"")
        line, problem = None, "empty"
    elif case == "UTF-16":
        path.write_bytes(text.encode("utf-16"))
        line, problem = 1, "re-encoded"
    elif case == "truncated gzip":
        path = tmp_path / (DATA + ".gz")
        raw = gzip.compress(text.encode())
        path.write_bytes(raw[: len(raw) // 2])
        line, problem = None, "truncated"
    else:
        path.write_text(text.replace(",", ";"), encoding="utf-8")
        line, problem = 1, "delimiter"
    with pytest.raises(LoaderError) as err:
        acs.read_s0101(path)
    assert err.value.file == str(path) and err.value.line == line and problem in err.value.problem
