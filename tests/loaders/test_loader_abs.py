"""ABS 3235.0 (ERP 30 June 2019) loader: published spot values, cross-checks, and damaged copies.

No .xls writer is installed (xlwt is not a dependency), so damaged workbooks are made
by patching BIFF cell records of a copy of the real file in place: a count's RK
value, a code cell turned into a shared-string cell, a sheet name.  Record sizes do
not change, so the copy stays a well-formed workbook with one wrong cell.
"""
from __future__ import annotations

import gzip
import struct
from pathlib import Path

import numpy as np
import pandas as pd
import pytest
import xlrd
from support.loaders import raises_loader_error
from xlrd import compdoc

from census_loaders import abs as au
from census_loaders.schema import LINE_COLUMN, POPULATION_COLUMNS, LoaderError, validate_population


@pytest.fixture(scope="module")
def folder(raw_root) -> Path:
    f = raw_root / "au"
    if not (f / au.LGA.workbook).exists():
        pytest.skip("ABS workbooks not present")
    return f


@pytest.fixture(scope="module")
def datasets(folder):
    return {d.code: d for d in au.load(folder)}


@pytest.fixture(scope="module")
def lga(datasets) -> pd.DataFrame:
    return datasets["AU"].population


@pytest.fixture(scope="module")
def sa2(datasets) -> pd.DataFrame:
    return datasets["AU-SA2"].population


def _count(pop, code, sex=None, age_from=None, age_to=None):
    sel = pop["district_id"] == code
    if sex:
        sel &= pop["sex"] == sex
    if age_from is not None:
        sel &= pop["age_from"] == age_from
    return pop.loc[sel, "count"].sum()


# --------------------------------------------------------------------------- real data


def test_two_datasets(datasets):
    assert list(datasets) == ["AU", "AU-SA2"]


@pytest.mark.parametrize(
    "code, n, total, males, females",
    [("AU", 544, 25_365_571, 12_581_355, 12_784_216), ("AU-SA2", 2_288, 25_360_928, 12_578_840, 12_782_088)],
)
def test_shape_and_totals(datasets, code, n, total, males, females):
    pop = datasets[code].population
    assert list(pop.columns) == list(POPULATION_COLUMNS)
    assert pop["district_id"].nunique() == n
    assert len(pop) == n * 2 * 18
    assert pop["count"].sum() == total
    by_sex = pop.groupby("sex")["count"].sum()
    assert (by_sex["male"], by_sex["female"]) == (males, females)
    assert not pop["filled"].any()
    ages = pop.drop_duplicates("age_from").sort_values("age_from")
    assert list(ages["age_from"]) == list(range(0, 90, 5))
    assert list(ages["age_to"].iloc[:-1]) == list(range(5, 90, 5))
    assert np.isnan(ages["age_to"].iloc[-1])  # 85 and over


@pytest.mark.parametrize(
    "code, level, district, name, total, males, females, m25, f25",
    [
        ("AU", "LGA", "10050", "Albury (C)", 54_353, 26_348, 28_005, 1_779, 1_858),
        ("AU", "LGA", "17200", "Sydney (C)", 246_343, 127_753, 118_590, 22_844, 22_932),
        ("AU", "LGA", "24600", "Melbourne (C)", 178_955, 88_212, 90_743, 17_845, 18_508),
        ("AU", "LGA", "31000", "Brisbane (C)", 1_253_982, 618_628, 635_354, 59_359, 58_682),
        ("AU", "LGA", "89399", "Unincorporated ACT", 426_704, 210_971, 215_733, 16_974, 17_748),
        ("AU-SA2", "SA2", "101021007", "Braidwood", 4_222, 2_135, 2_087, 84, 64),
        ("AU-SA2", "SA2", "206041122", "Melbourne", 51_894, 25_639, 26_255, 6_272, 6_371),
    ],
)
def test_spot_values(datasets, code, level, district, name, total, males, females, m25, f25):
    pop = datasets[code].population
    assert set(pop.loc[pop["district_id"] == district, "district_name"]) == {name}
    assert _count(pop, district) == total
    assert _count(pop, district, "male") == males
    assert _count(pop, district, "female") == females
    assert males + females == total
    assert _count(pop, district, "male", 25) == m25
    assert _count(pop, district, "female", 25) == f25


def test_lga_states(lga):
    areas = lga.drop_duplicates("district_id")
    assert areas.groupby("region_id").size().to_dict() == {
        "1": 129, "2": 80, "3": 78, "4": 71, "5": 137, "6": 29, "7": 18, "8": 1, "9": 1,
    }
    names = dict(zip(areas["region_id"], areas["region_name"]))
    assert names["1"] == "New South Wales" and names["8"] == "Australian Capital Territory"
    assert names["9"] == "Other Territories"


def test_sa2_regions_are_sa3s(sa2):
    areas = sa2.drop_duplicates("district_id").set_index("district_id")
    assert tuple(areas.loc["101021007", ["region_id", "region_name"]]) == ("10102", "Queanbeyan")
    assert (areas["region_id"].str.len() == 5).all()
    assert all(d.startswith(r) for d, r in areas["region_id"].items())
    assert not any(d.startswith("9") for d in areas.index)  # no Other Territories at SA2 level


def test_male_plus_female_is_the_published_persons_total(folder, lga):
    """Against Table 3 (persons), read here with xlrd independently of the loader."""
    book = xlrd.open_workbook(str(folder / au.LGA.workbook), on_demand=True)
    sh = book.sheet_by_name("Table 3")
    persons = {str(int(sh.cell_value(r, 2))): sh.cell_value(r, sh.ncols - 1)
               for r in range(sh.nrows) if sh.cell_type(r, 0) == xlrd.XL_CELL_NUMBER}
    assert sh.cell_value(7, sh.ncols - 1) == "Total Persons"
    ours = lga.groupby("district_id")["count"].sum()
    assert len(persons) == 544
    assert (ours == pd.Series(persons).reindex(ours.index)).all()


def test_source_line_is_the_spreadsheet_row(folder):
    table = au.read_workbook(folder / au.LGA.workbook, "LGA")
    assert set(table.loc[table["district_id"] == "10050", LINE_COLUMN]) == {11}


@pytest.mark.parametrize("code, level", [("AU", au.LGA), ("AU-SA2", au.SA2)])
def test_tidy_csv_equals_workbook(datasets, folder, code, level):
    table = au.read_tidy_csv(folder / level.tidy_csv, level)
    assert table[LINE_COLUMN].min() == 2
    pd.testing.assert_frame_equal(validate_population(table, level.tidy_csv), datasets[code].population)


def test_metadata(datasets, folder):
    au_lga, au_sa2 = datasets["AU"], datasets["AU-SA2"]
    assert (au_lga.name, au_lga.district_label, au_lga.region_label) == ("Australia", "local government area", "state or territory")
    assert (au_sa2.name, au_sa2.district_label, au_sa2.region_label) == ("Australia — statistical areas level 2", "SA2", "SA3")
    for d, level in ((au_lga, au.LGA), (au_sa2, au.SA2)):
        assert d.reference_date == "2019-06-30"
        assert d.body_prior_country is None  # its NCD-RisC prior (issue 27)
        assert d.boundaries is None and not d.boundary_sources
        assert d.boundary_note == "No boundary file for Australian LGAs/SA2s is shipped yet: the data works everywhere but the map."
        (src,) = d.sources
        assert src.path == (folder / level.workbook).absolute() and src.path.exists()
        assert src.licence == "CC BY 4.0" and "cat. no. 3235.0" in src.citation and "3235.0" in src.table_id
        assert "Australian Bureau of Statistics" in src.publisher


# --------------------------------------------------------------------------- damaged workbooks


class Xls:
    """A copy of a real BIFF8 workbook whose cell records are patched in place."""

    RK, NUMBER, LABELSST, MULRK, BOUNDSHEET, EOF = 0x027E, 0x0203, 0x00FD, 0x00BD, 0x0085, 0x000A

    def __init__(self, raw: bytes):
        self.raw = bytearray(raw)
        doc = compdoc.CompDoc(bytes(raw))
        node = next(d for d in doc.dirlist if d.name == "Workbook")
        self.sids, sid = [], node.first_SID
        while sid >= 0:
            self.sids.append(sid)
            sid = doc.SAT[sid]
        self.sec = doc.sec_size
        self.stream = bytearray(doc.get_named_stream("Workbook"))
        book = xlrd.open_workbook(file_contents=bytes(raw), on_demand=True)
        self.bof = dict(zip(book.sheet_names(), book._sh_abs_posn))
        self.sst = list(book._sharedstrings)
        self.book = book

    def _put(self, pos: int, data: bytes) -> None:
        for i, b in enumerate(data):
            p = pos + i
            self.stream[p] = b
            self.raw[(self.sids[p // self.sec] + 1) * self.sec + p % self.sec] = b

    def _records(self, start: int):
        pos = start
        while True:
            rid, length = struct.unpack_from("<HH", self.stream, pos)
            yield rid, pos, length
            if rid == self.EOF:
                return
            pos += 4 + length

    def _find(self, sheet: str, row: int, col: int) -> tuple[int, int]:
        """(record id, position of the cell's value) — for MULRK, of its (xf, rk) pair."""
        for rid, pos, length in self._records(self.bof[sheet]):
            if rid in (self.RK, self.NUMBER, self.LABELSST):
                if struct.unpack_from("<HH", self.stream, pos + 4) == (row, col):
                    return rid, pos
            elif rid == self.MULRK:
                r, first = struct.unpack_from("<HH", self.stream, pos + 4)
                (last,) = struct.unpack_from("<H", self.stream, pos + 4 + length - 2)
                if r == row and first <= col <= last:
                    return rid, pos + 8 + (col - first) * 6
        raise KeyError((sheet, row, col))

    def set_rk(self, sheet: str, row: int, col: int, rk: int) -> None:
        rid, pos = self._find(sheet, row, col)
        if rid == self.MULRK:
            self._put(pos + 2, struct.pack("<I", rk & 0xFFFFFFFF))
        elif rid in (self.RK, self.LABELSST):  # same payload size: a text cell can become a number
            self._put(pos, struct.pack("<H", self.RK))
            self._put(pos + 10, struct.pack("<I", rk & 0xFFFFFFFF))
        else:
            raise KeyError(f"cell {row},{col} is a NUMBER record")

    def set_int(self, sheet: str, row: int, col: int, value: int) -> None:
        self.set_rk(sheet, row, col, (value << 2) | 2)

    def add(self, sheet: str, row: int, col: int, delta: int) -> None:
        self.set_int(sheet, row, col, int(self.book.sheet_by_name(sheet).cell_value(row, col)) + delta)

    def set_text(self, sheet: str, row: int, col: int, text: str) -> None:
        """Point a cell at an existing shared string (an RK cell becomes a text cell)."""
        rid, pos = self._find(sheet, row, col)
        if rid not in (self.RK, self.LABELSST):
            raise KeyError(f"cell {row},{col} cannot become text in place")
        self._put(pos, struct.pack("<H", self.LABELSST))
        self._put(pos + 10, struct.pack("<I", self.sst.index(text)))

    def rename_sheets(self, renames: dict[str, str]) -> None:
        for rid, pos, _ in self._records(0):
            if rid == self.BOUNDSHEET:
                n, flags = self.stream[pos + 10], self.stream[pos + 11]
                assert flags == 0  # 8-bit name
                name = bytes(self.stream[pos + 12: pos + 12 + n]).decode("latin-1")
                if name in renames:
                    new = renames[name].encode("latin-1")
                    assert len(new) == n
                    self._put(pos + 12, new)

    def write(self, path: Path) -> Path:
        path.write_bytes(gzip.compress(bytes(self.raw), 1) if path.suffix == ".gz" else bytes(self.raw))
        return path


@pytest.fixture(scope="module")
def lga_raw(folder) -> bytes:
    return (folder / au.LGA.workbook).read_bytes()


@pytest.fixture(scope="module")
def layout(lga_raw):
    """0-based rows of some LGAs in Table 1 and the columns of the LGA workbook."""
    sh = xlrd.open_workbook(file_contents=lga_raw, on_demand=True).sheet_by_name("Table 1")
    rows = {str(int(sh.cell_value(r, 2))): r for r in range(sh.nrows) if sh.cell_type(r, 0) == xlrd.XL_CELL_NUMBER}
    ages = [str(v).replace("\u2013", "-") for v in sh.row_values(7)]
    return {"rows": rows, "age": {a: ages.index(a) for a in au.AGE_LABELS}, "total": sh.ncols - 1, "lga_code": 2}


def test_workbook_non_numeric_count(lga_raw, layout, tmp_path):
    """An RK cell holding NaN: the nearest a count cell can get to text without resizing records."""
    x = Xls(lga_raw)
    r = layout["rows"]["10050"]
    x.set_rk("Table 1", r, layout["age"]["25-29"], 0x7FF80000)  # the top 30 bits of a double NaN
    raises_loader_error(au.read_workbook, x.write(tmp_path / au.LGA.workbook), "LGA", sheet="Table 1", line=r + 1,
                        fragments=("10050, age 25-29", "not a finite number"))


def test_workbook_negative_count(lga_raw, layout, tmp_path):
    x = Xls(lga_raw)
    r = layout["rows"]["24600"]
    x.set_int("Table 2", r, layout["age"]["30-34"], -12)
    raises_loader_error(au.read_workbook, x.write(tmp_path / au.LGA.workbook), "LGA", sheet="Table 2", line=r + 1,
                        fragments=("24600", "-12.0 is negative"))


def test_workbook_ages_do_not_sum_to_total(lga_raw, layout, tmp_path):
    x = Xls(lga_raw)
    r = layout["rows"]["10050"]
    x.add("Table 1", r, layout["age"]["85 and over"], 5)
    raises_loader_error(au.read_workbook, x.write(tmp_path / au.LGA.workbook), "LGA", sheet="Table 1", line=r + 1,
                        fragments=("parts sum to 26,353 but the total is 26,348",))


def test_workbook_duplicate_district(lga_raw, layout, tmp_path):
    x = Xls(lga_raw)
    r = layout["rows"]["10130"]
    x.set_int("Table 1", r, layout["lga_code"], 10050)
    raises_loader_error(au.read_workbook, x.write(tmp_path / au.LGA.workbook), "LGA", sheet="Table 1", line=r + 1,
                        fragments=("duplicate row for LGA code 10050 (first on row 11)",))


def test_workbook_unknown_district_code(lga_raw, layout, tmp_path):
    x = Xls(lga_raw)
    r = layout["rows"]["17200"]
    x.set_int("Table 2", r, layout["lga_code"], 999)
    raises_loader_error(au.read_workbook, x.write(tmp_path / au.LGA.workbook), "LGA", sheet="Table 2", line=r + 1,
                        fragments=("LGA code '999' is not a 5-digit code",))


def test_workbook_text_code(lga_raw, layout, tmp_path):
    x = Xls(lga_raw)
    r = layout["rows"]["17200"]
    x.set_text("Table 1", r, layout["lga_code"], "no.")
    raises_loader_error(au.read_workbook, x.write(tmp_path / au.LGA.workbook), "LGA", sheet="Table 1", line=r + 1,
                        fragments=("LGA code 'no.' is not a 5-digit code",))


def test_workbook_district_outside_its_state(lga_raw, layout, tmp_path):
    x = Xls(lga_raw)
    r = layout["rows"]["24600"]  # Melbourne, Victoria (2)
    x.set_int("Table 1", r, layout["lga_code"], 14600)
    raises_loader_error(au.read_workbook, x.write(tmp_path / au.LGA.workbook), "LGA", sheet="Table 1", line=r + 1,
                        fragments=("LGA code 14600 does not lie in S/T code 2",))


def test_workbook_row_dropped_from_the_data_is_caught_by_the_total_row(lga_raw, layout, tmp_path):
    """A text first cell hides a row from "keep rows whose first cell is numeric"; TOTAL MALES AUSTRALIA catches it."""
    x = Xls(lga_raw)
    x.set_text("Table 1", layout["rows"]["31000"], 0, "no.")
    path = x.write(tmp_path / au.LGA.workbook)
    sh = xlrd.open_workbook(file_contents=lga_raw, on_demand=True).sheet_by_name("Table 1")
    total_row = next(r for r in range(sh.nrows) if str(sh.cell_value(r, 1)).startswith("TOTAL MALES"))
    raises_loader_error(au.read_workbook, path, "LGA", sheet="Table 1", line=total_row + 1,
                        fragments=("TOTAL MALES AUSTRALIA (total)", "parts sum to 11,962,727 but the total is 12,581,355"))


def test_workbook_males_plus_females_differs_from_persons(lga_raw, layout, tmp_path):
    x = Xls(lga_raw)
    r = layout["rows"]["10050"]
    x.add("Table 2", r, layout["age"]["0-4"], 1)
    x.add("Table 2", r, layout["total"], 1)
    x.add("Table 2", 555, layout["age"]["0-4"], 1)  # keep TOTAL FEMALES AUSTRALIA consistent
    x.add("Table 2", 555, layout["total"], 1)
    raises_loader_error(au.read_workbook, x.write(tmp_path / au.LGA.workbook), "LGA", sheet="Table 3", line=r + 1,
                        fragments=("10050 age 0-4: males 1,931 + females 1,801 ≠ persons 3,731",))


def test_workbook_missing_column(lga_raw, tmp_path):
    x = Xls(lga_raw)
    x.set_text("Table 2", 8, 2, "no.")  # the "LGA code" header
    raises_loader_error(au.read_workbook, x.write(tmp_path / au.LGA.workbook), "LGA", sheet="Table 2", line=9,
                        fragments=("missing column(s) 'LGA code'",))


def test_workbook_missing_age_column(lga_raw, layout, tmp_path):
    x = Xls(lga_raw)
    x.set_text("Table 1", 7, layout["age"]["25-29"], "no.")
    raises_loader_error(au.read_workbook, x.write(tmp_path / au.LGA.workbook), "LGA", sheet="Table 1", line=8,
                        fragments=("missing column(s) '25-29'",))


def test_workbook_missing_sheet(lga_raw, tmp_path):
    x = Xls(lga_raw)
    x.rename_sheets({"Table 2": "Tabel 2"})
    raises_loader_error(au.read_workbook, x.write(tmp_path / au.LGA.workbook), "LGA", line=None,
                        fragments=("sheet 'Table 2' is missing",))


def test_workbook_tables_swapped(lga_raw, tmp_path):
    x = Xls(lga_raw)
    x.rename_sheets({"Table 1": "Table 2", "Table 2": "Table 1"})
    raises_loader_error(au.read_workbook, x.write(tmp_path / au.LGA.workbook), "LGA", sheet="Table 1", line=4,
                        fragments=("does not say Males",))


def test_workbook_truncated(lga_raw, tmp_path):
    p = tmp_path / au.LGA.workbook
    p.write_bytes(lga_raw[: len(lga_raw) // 2])
    raises_loader_error(au.read_workbook, p, "LGA", line=None, fragments=("not a readable .xls workbook",))


def test_workbook_garbled(lga_raw, tmp_path):
    p = tmp_path / au.LGA.workbook
    p.write_bytes(lga_raw[:512] + bytes(range(256)) * 100)
    raises_loader_error(au.read_workbook, p, "LGA", line=None, fragments=("not a readable .xls workbook",))


def test_workbook_empty(tmp_path):
    p = tmp_path / au.LGA.workbook
    p.write_bytes(b"")
    raises_loader_error(au.read_workbook, p, "LGA", line=None, fragments=("file is empty",))


@pytest.fixture(scope="module")
def sa2_xls(folder) -> bytes:
    return gzip.decompress((folder / au.SA2.workbook).read_bytes())


def test_sa2_workbook_truncated_gzip(folder, tmp_path):
    raw = (folder / au.SA2.workbook).read_bytes()
    p = tmp_path / au.SA2.workbook
    p.write_bytes(raw[: len(raw) // 3])
    raises_loader_error(au.read_workbook, p, "SA2", line=None, fragments=("damaged or truncated",))


def test_sa2_workbook_bad_code(sa2_xls, tmp_path):
    x = Xls(sa2_xls)
    x.set_int("Table 2", 9, 8, 10102100)  # Braidwood's SA2 code with 8 digits
    raises_loader_error(au.read_workbook, x.write(tmp_path / au.SA2.workbook), "SA2", sheet="Table 2", line=10,
                        fragments=("SA2 code '10102100' is not a 9-digit code",))


def test_sa2_workbook_state_total(sa2_xls, tmp_path):
    """A consistent edit of a row (age group and total) is caught by the state's total row."""
    x = Xls(sa2_xls)
    x.add("Table 1", 9, 10, 3)
    x.add("Table 1", 9, 28, 3)
    raises_loader_error(au.read_workbook, x.write(tmp_path / au.SA2.workbook), "SA2", sheet="Table 1", line=587,
                        fragments=("TOTAL MALES NEW SOUTH WALES (total)", "sum to 4,015,832 but the total is 4,015,829"))


def test_load_reports_the_damaged_file(folder, lga_raw, layout, tmp_path):
    x = Xls(lga_raw)
    x.set_int("Table 1", layout["rows"]["10050"], layout["age"]["0-4"], -1)
    damaged = tmp_path / "au"
    damaged.mkdir()
    x.write(damaged / au.LGA.workbook)
    (damaged / au.SA2.workbook).symlink_to(folder / au.SA2.workbook)
    with pytest.raises(LoaderError, match=rf"{au.LGA.workbook}, sheet 'Table 1', line 11: .*negative"):
        au.load(damaged)


# --------------------------------------------------------------------------- damaged tidy CSVs


@pytest.fixture(scope="module")
def lga_csv(folder) -> str:
    return (folder / au.LGA.tidy_csv).read_text(encoding="utf-8")


def _csv_raises(tmp_path, text: str | bytes, line: int | None, *fragments: str, level=au.LGA) -> None:
    p = tmp_path / level.tidy_csv
    p.write_bytes(text if isinstance(text, bytes) else text.encode("utf-8"))
    with pytest.raises(LoaderError) as info:
        au.read_tidy_csv(p, level)
    msg = str(info.value)
    assert level.tidy_csv in msg and info.value.line == line, msg
    for f in fragments:
        assert f in msg, msg


def _edit(text: str, line: int, column: str, value: str) -> str:
    lines = text.split("\n")
    header = lines[0].split(",")
    fields = lines[line - 1].split(",")  # line 2 (Albury) has no quoted commas
    fields[header.index(column)] = value
    lines[line - 1] = ",".join(fields)
    return "\n".join(lines)


def test_csv_wrong_delimiter(tmp_path, lga_csv):
    _csv_raises(tmp_path, lga_csv.replace(",", "\t"), 1, "missing column", "delimiter")


def test_csv_truncated(tmp_path, lga_csv):
    lines = lga_csv.split("\n")
    half = len(lines) // 2
    cut = "\n".join(lines[:half] + [",".join(lines[half].split(",")[:10])])
    _csv_raises(tmp_path, cut, half + 1, "has 10 fields but the header has 24")


def test_csv_re_encoded(tmp_path, lga_csv):
    text = _edit(lga_csv, 5, "lga_name19", "Bégà")
    _csv_raises(tmp_path, text.encode("latin-1"), 5, "not valid utf-8")


def test_csv_empty(tmp_path):
    _csv_raises(tmp_path, "", None, "file is empty")


def test_csv_missing_column(tmp_path, lga_csv):
    _csv_raises(tmp_path, lga_csv.replace("age_85_plus", "age_85+", 1), 1, "missing column(s) 'age_85_plus'")


@pytest.mark.parametrize(
    "column, value, fragment",
    [
        ("age_25-29", "n.a.", "count (10050, age_25-29) 'n.a.' is not a number"),
        ("age_25-29", "-1", "'-1' is negative"),
        ("lga_code19", "1005", "lga_code19 '1005' is not a 5-digit code"),
        ("lga_code19", "20050", "does not lie in S/T code 1"),
        ("total", "28006", "parts sum to 28,005 but the total is 28,006"),
        ("sex", "P", "sex 'P' is not M or F"),
    ],
)
def test_csv_bad_field(tmp_path, lga_csv, column, value, fragment):
    _csv_raises(tmp_path, _edit(lga_csv, 2, column, value), 2, fragment)


def test_csv_duplicate_row(tmp_path, lga_csv):
    lines = lga_csv.split("\n")
    lines.insert(4, lines[2])
    _csv_raises(tmp_path, "\n".join(lines), 5, "duplicate row for 10050, sex M (first on line 3)")


def test_sa2_csv_bad_sa3(tmp_path, folder):
    text = (folder / au.SA2.tidy_csv).read_text(encoding="utf-8")
    _csv_raises(tmp_path, _edit(text, 3, "sa3_code", "10103"), 3, "SA2 code 101021007 does not lie in SA3 code 10103", level=au.SA2)
