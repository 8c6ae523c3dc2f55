"""ABS Regional Population by Age and Sex 2019 (cat. no. 3235.0): ERP at 30 June 2019.

Two data sets from the published legacy ``.xls`` workbooks: local government areas
(ASGS 2019, 544 areas, grouped by state or territory) and statistical areas level 2
(ASGS 2016, 2,288 areas, grouped by SA3).  Table 1 holds males, Table 2 females,
Table 3 persons; each has 18 five-year age groups (85 and over open) and a total.
The workbooks' own totals (per row, per state / for Australia, and persons = males
+ females) are all checked, so a damaged or mis-read file fails loudly.  The derived
tidy CSVs are read by :func:`read_tidy_csv` so tests can prove both parses agree.
"""
from __future__ import annotations

import csv
import io
import re
from dataclasses import dataclass
from pathlib import Path

import numpy as np
import pandas as pd

from .notes import N_, Note
from .schema import (
    LINE_COLUMN,
    CountryData,
    LoaderError,
    SourceFile,
    check_total,
    open_bytes,
    parse_count,
    read_text,
    require_columns,
    validate_population,
)

REFERENCE_DATE = "2019-06-30"
#: (sheet, the word its title uses) for each sex; Table 3 (persons) is a cross-check.
SEX_SHEETS = {"male": ("Table 1", "Males"), "female": ("Table 2", "Females")}
PERSONS_SHEET = ("Table 3", "Persons")
#: Titles and headers sit in the first rows; searched, not assumed, so a shifted
#: layout fails with a message instead of reading the wrong cells.
HEADER_SEARCH_ROWS = 15

AGE_GROUPS: tuple[tuple[int, int | None], ...] = tuple((a, a + 5) for a in range(0, 85, 5)) + ((85, None),)
#: Age headers after dash normalisation (the workbook has "0-4", then "5–9" with EN DASH ...).
AGE_LABELS = tuple(f"{a}-{a + 4}" for a in range(0, 85, 5)) + ("85 and over",)
CSV_AGE_COLUMNS = tuple(f"age_{a}-{a + 4}" for a in range(0, 85, 5)) + ("age_85_plus",)
CSV_SEXES = {"M": "male", "F": "female"}

LICENCE = "CC BY 4.0"
ATTRIBUTION = "Source: Australian Bureau of Statistics, Regional Population by Age and Sex, Australia, 2019 (cat. no. 3235.0)"
BOUNDARY_NOTE = Note(N_("No boundary file for Australian LGAs/SA2s is shipped yet: the data works everywhere but the map."))
#: Shared by both levels.
ERP_NOTE = Note(N_("Preliminary estimated resident population (ERP) at 30 June 2019."))
AGES_NOTE = Note(N_("Five-year age groups; {top} and over form one open-ended group."), top="85")


@dataclass(frozen=True)
class Level:
    """One geography of the release: where its files are and how its codes look."""

    key: str
    code: str  # data set code
    name: str
    workbook: str
    tidy_csv: str
    asgs: str  # edition printed above the header, e.g. "ASGS 2019"
    district: tuple[str, str]  # workbook headers of district code / name
    region: tuple[str, str]  # workbook headers of region code / name
    csv_district: tuple[str, str]
    csv_region: tuple[str, str]
    district_digits: int
    region_digits: int
    district_label: str
    region_label: str
    notes: tuple[str, ...]


LGA = Level(
    key="LGA", code="AU", name="Australia",
    workbook="32350ds0003_2019.xls", tidy_csv="au_lga2019_sex_age5_erp_2019-06-30.csv", asgs="ASGS 2019",
    district=("LGA code", "LGA name"), region=("S/T code", "S/T name"),
    csv_district=("lga_code19", "lga_name19"), csv_region=("ste_code", "ste_name"),
    district_digits=5, region_digits=1,
    district_label="local government area", region_label="state or territory",
    notes=(
        ERP_NOTE,
        Note(N_("Local government areas on ASGS 2019 boundaries; unincorporated areas (e.g. Unincorporated ACT) are "
                "areas of their own.")),
        AGES_NOTE,
    ),
)
SA2 = Level(
    key="SA2", code="AU-SA2", name="Australia — statistical areas level 2",
    workbook="32350ds0001_2019.xls.gz", tidy_csv="au_sa2_2016_sex_age5_erp_2019-06-30.csv", asgs="ASGS 2016",
    district=("SA2 code", "SA2 name"), region=("SA3 code", "SA3 name"),
    csv_district=("sa2_code16", "sa2_name16"), csv_region=("sa3_code", "sa3_name"),
    district_digits=9, region_digits=5,
    district_label="SA2", region_label="SA3",
    notes=(
        ERP_NOTE,
        Note(N_("Statistical Areas Level 2 on ASGS 2016 boundaries; Other Territories are not in this table (they are "
                "in the LGA data set).")),
        AGES_NOTE,
    ),
)
LEVELS = {"LGA": LGA, "SA2": SA2}


def _norm(text: object) -> str:
    """Header text with dashes unified and spaces collapsed ('5–9' -> '5-9')."""
    s = str(text).replace("\u2013", "-").replace("\u2014", "-").replace("\u2212", "-")
    return " ".join(s.split())


def _code(value: object, digits: int, what: str, where: str, row: int) -> str:
    """An all-digit area code of fixed length; the xls stores codes as floats."""
    if isinstance(value, float) and value.is_integer():
        value = int(value)
    text = str(value).strip()
    if not re.fullmatch(rf"\d{{{digits}}}", text):
        raise LoaderError(where, row, f"{what} {text!r} is not a {digits}-digit code")
    return text


def _check_area(level: Level, district: str, region: str, where: str, row: int) -> None:
    """ASGS codes nest: an LGA starts with its state digit, an SA2 with its SA3 code."""
    if not district.startswith(region):
        raise LoaderError(where, row, f"{level.district[0]} {district} does not lie in {level.region[0]} {region}")


@dataclass
class _Table:
    """The data rows of one workbook table."""

    where: str
    districts: list[str]
    names: list[str]
    regions: list[tuple[str, str]]
    rows: list[int]  # 1-based spreadsheet rows
    values: np.ndarray  # (n, 19): the 18 age groups, then the total

    def index(self) -> dict[str, int]:
        return {d: i for i, d in enumerate(self.districts)}


# --------------------------------------------------------------------------- workbook


def _read_table(book, sheet: str, sex_word: str, level: Level, path: Path) -> _Table:
    """Parse one table: title, header by text, numeric-first-cell rows, row and section totals."""
    import xlrd

    if sheet not in book.sheet_names():
        raise LoaderError(path, None, f"sheet {sheet!r} is missing (the workbook has {', '.join(book.sheet_names())})")
    sh = book.sheet_by_name(sheet)
    where = f"{path}, sheet '{sheet}'"
    top = min(sh.nrows, HEADER_SEARCH_ROWS)
    texts = [[_norm(v) if isinstance(v, str) else v for v in sh.row_values(r)] for r in range(top)]

    title = next(((r, t) for r in range(top) for t in texts[r] if isinstance(t, str) and re.match(r"Table \d+\.", t)), None)
    if title is None:
        raise LoaderError(where, None, f"no title 'Table N. …' in the first {top} rows")
    if not re.search(rf"\b{sex_word}\b", title[1]):
        raise LoaderError(where, title[0] + 1, f"title {title[1]!r} does not say {sex_word}: are the tables in the wrong order?")

    age_row = next((r for r in range(top) if AGE_LABELS[0] in texts[r]), None)
    id_row = next((r for r in range(top) if level.region[0] in texts[r] or level.district[0] in texts[r]), None)
    if age_row is None or id_row is None:
        missing = AGE_LABELS[0] if age_row is None else level.district[0]
        raise LoaderError(where, None, f"no header row with {missing!r} in the first {top} rows")
    age_cols = {t: c for c, t in enumerate(texts[age_row]) if isinstance(t, str) and t}
    id_cols = {t: c for c, t in enumerate(texts[id_row]) if isinstance(t, str) and t}
    require_columns(id_cols, (*level.region, *level.district), where, id_row + 1)
    require_columns(age_cols, AGE_LABELS, where, age_row + 1)
    total_label = f"Total {sex_word}"
    if total_label not in age_cols:
        raise LoaderError(where, age_row + 1, f"missing column(s) {total_label!r}")
    if not any(level.asgs == t for row in texts for t in row):
        raise LoaderError(where, None, f"the table does not say {level.asgs!r}: is it the other geography's workbook?")
    value_cols = [age_cols[a] for a in AGE_LABELS] + [age_cols[total_label]]
    value_labels = [f"age {a}" for a in AGE_LABELS] + ["total"]
    i_rc, i_rn = (id_cols[c] for c in level.region)
    i_dc, i_dn = (id_cols[c] for c in level.district)

    districts, names, regions, rows, values = [], [], [], [], []
    seen: dict[str, int] = {}
    section = np.zeros(len(value_cols))
    for r in range(max(age_row, id_row) + 1, sh.nrows):
        cells = sh.row(r)
        row_no = r + 1
        if cells[0].ctype == xlrd.XL_CELL_NUMBER:
            region = _code(cells[i_rc].value, level.region_digits, level.region[0], where, row_no)
            district = _code(cells[i_dc].value, level.district_digits, level.district[0], where, row_no)
            _check_area(level, district, region, where, row_no)
            if district in seen:
                raise LoaderError(where, row_no, f"duplicate row for {level.district[0]} {district} (first on row {seen[district]})")
            seen[district] = row_no
            vec = [parse_count(cells[c].value, where, row_no, f"count ({district}, {label})") for c, label in zip(value_cols, value_labels)]
            check_total(where, row_no, f"{district} age groups vs {total_label!r}", float(sum(vec[:-1])), vec[-1])
            districts.append(district)
            names.append(str(cells[i_dn].value).strip())
            regions.append((region, str(cells[i_rn].value).strip()))
            rows.append(row_no)
            values.append(vec)
            section += vec
        elif any(isinstance(c.value, str) and c.value.strip().upper().startswith("TOTAL ") for c in cells[:2]):
            # "TOTAL MALES NEW SOUTH WALES" / "TOTAL MALES AUSTRALIA": the rows since the last total
            label = next(c.value.strip() for c in cells[:2] if isinstance(c.value, str) and c.value.strip())
            for j in (len(value_cols) - 1, *range(len(value_cols) - 1)):  # the total column first
                c = value_cols[j]
                if cells[c].ctype == xlrd.XL_CELL_NUMBER:
                    check_total(where, row_no, f"{label} ({value_labels[j]})", float(section[j]), float(cells[c].value))
            section[:] = 0
    if not districts:
        raise LoaderError(where, None, "no data rows (rows whose first cell is a number)")
    return _Table(where, districts, names, regions, rows, np.asarray(values, dtype="float64"))


def _check_sexes(males: _Table, females: _Table, persons: _Table | None) -> None:
    """Both sex tables list the same areas alike; persons = males + females where published."""
    fi = females.index()
    if set(fi) != set(males.districts):
        missing = sorted(set(males.districts) - set(fi))[:5]
        extra = sorted(set(fi) - set(males.districts))[:5]
        raise LoaderError(females.where, None, f"areas differ from the males table: missing {missing}, extra {extra}")
    for i, d in enumerate(males.districts):
        f = fi[d]
        if (females.names[f], females.regions[f]) != (males.names[i], males.regions[i]):
            raise LoaderError(females.where, females.rows[f], f"{d} is {females.names[f]!r} in {females.regions[f]} here but {males.names[i]!r} in {males.regions[i]} in the males table")
    if persons is None:
        return
    pi = persons.index()
    if set(pi) != set(males.districts):
        raise LoaderError(persons.where, None, "areas differ from the males table")
    for i, d in enumerate(males.districts):
        p, f = pi[d], fi[d]
        bad = np.flatnonzero(np.abs(males.values[i] + females.values[f] - persons.values[p]) > 0.5)
        if bad.size:
            j = bad[0]
            label = "total" if j == len(AGE_LABELS) else f"age {AGE_LABELS[j]}"
            raise LoaderError(
                persons.where, persons.rows[p],
                f"{d} {label}: males {males.values[i, j]:,.0f} + females {females.values[f, j]:,.0f} ≠ persons {persons.values[p, j]:,.0f}",
            )


def _long_table(parts: list[tuple[str, list[str], list[str], list[tuple[str, str]], list[int], np.ndarray]]) -> pd.DataFrame:
    """District × sex × age-group rows; ``values`` has the 18 age groups per district."""
    n_ages = len(AGE_GROUPS)
    age_from = np.array([a for a, _ in AGE_GROUPS], dtype="float64")
    age_to = np.array([np.nan if b is None else b for _, b in AGE_GROUPS], dtype="float64")
    frames = []
    for sex, districts, names, regions, lines, values in parts:
        n = len(districts)
        frames.append(pd.DataFrame({
            "district_id": np.repeat(districts, n_ages),
            "district_name": np.repeat(names, n_ages),
            "region_id": np.repeat([r[0] for r in regions], n_ages),
            "region_name": np.repeat([r[1] for r in regions], n_ages),
            "sex": sex,
            "age_from": np.tile(age_from, n),
            "age_to": np.tile(age_to, n),
            "count": np.asarray(values, dtype="float64")[:, :n_ages].ravel(),
            "filled": False,
            LINE_COLUMN: np.repeat(lines, n_ages),
        }))
    return pd.concat(frames, ignore_index=True)


def read_workbook(path: Path, level: Level | str) -> pd.DataFrame:
    """The district × sex × age-group table of one 3235.0 workbook (``.xls`` or ``.xls.gz``).

    ``source_line`` is the spreadsheet row of the district in its sex's table.
    """
    import xlrd

    level = LEVELS[level] if isinstance(level, str) else level
    path = Path(path)
    data = open_bytes(path)
    # xlrd raises many unrelated types for a damaged file (XLRDError, CompDocError,
    # struct.error, IndexError ...): all mean the same to the user.
    try:
        book = xlrd.open_workbook(file_contents=data.getvalue(), on_demand=True)
    except Exception as exc:
        raise LoaderError(path, None, f"not a readable .xls workbook ({type(exc).__name__}: {exc})") from None
    try:
        tables = {sex: _read_table(book, sheet, word, level, path) for sex, (sheet, word) in SEX_SHEETS.items()}
        persons = None
        if PERSONS_SHEET[0] in book.sheet_names():
            persons = _read_table(book, *PERSONS_SHEET, level, path)
    except LoaderError:
        raise
    except Exception as exc:
        raise LoaderError(path, None, f"workbook is damaged ({type(exc).__name__}: {exc})") from None
    finally:
        book.release_resources()
    _check_sexes(tables["male"], tables["female"], persons)
    return _long_table([
        (sex, t.districts, t.names, t.regions, t.rows, t.values)
        for sex, t in (("female", tables["female"]), ("male", tables["male"]))
    ])


# --------------------------------------------------------------------------- tidy CSV


def read_tidy_csv(path: Path, level: Level | str) -> pd.DataFrame:
    """The same table from the derived tidy CSV; ``source_line`` is the CSV line."""
    level = LEVELS[level] if isinstance(level, str) else level
    path = Path(path)
    reader = csv.reader(io.StringIO(read_text(path)))
    header = next(reader, [])
    ids = (*level.csv_region, *level.csv_district, "sex")
    require_columns(header, (*ids, *CSV_AGE_COLUMNS, "total"), path, 1)
    col = {name: i for i, name in enumerate(header)}
    value_idx = [col[c] for c in CSV_AGE_COLUMNS] + [col["total"]]
    value_labels = [*CSV_AGE_COLUMNS, "total"]
    where = str(path)
    per_sex: dict[str, list] = {"female": [[], [], [], [], []], "male": [[], [], [], [], []]}
    seen: dict[tuple[str, str], int] = {}
    for rec in reader:
        line = reader.line_num
        if not rec or all(not f.strip() for f in rec):
            continue
        if len(rec) != len(header):
            raise LoaderError(path, line, f"has {len(rec)} fields but the header has {len(header)} (truncated or wrong delimiter?)")
        rc, rn, dc, dn, sex = (rec[col[c]].strip() for c in ids)
        region = _code(rc, level.region_digits, level.csv_region[0], where, line)
        district = _code(dc, level.district_digits, level.csv_district[0], where, line)
        _check_area(level, district, region, where, line)
        if sex not in CSV_SEXES:
            raise LoaderError(path, line, f"sex {sex!r} is not M or F")
        if (district, sex) in seen:
            raise LoaderError(path, line, f"duplicate row for {district}, sex {sex} (first on line {seen[district, sex]})")
        seen[district, sex] = line
        vec = [parse_count(rec[i], path, line, f"count ({district}, {label})") for i, label in zip(value_idx, value_labels)]
        check_total(path, line, f"{district} {sex} age groups vs total", float(sum(vec[:-1])), vec[-1])
        for lst, v in zip(per_sex[CSV_SEXES[sex]], (district, dn, (region, rn), line, vec)):
            lst.append(v)
    if not seen:
        raise LoaderError(path, None, "no data rows below the header")
    return _long_table([(sex, *lists) for sex, lists in per_sex.items() if lists[0]])


# --------------------------------------------------------------------------- load


def _dataset(folder: Path, level: Level) -> CountryData:
    path = folder / level.workbook
    population = validate_population(read_workbook(path, level), path)
    source = SourceFile(
        path=path.absolute(),
        publisher="Australian Bureau of Statistics (ABS)",
        table_id=f"3235.0 / {level.workbook.split('.')[0]}",
        reference_date=REFERENCE_DATE,
        licence=LICENCE,
        citation=ATTRIBUTION,
    )
    return CountryData(
        code=level.code,
        name=level.name,
        population=population,
        sources=[source],
        reference_date=REFERENCE_DATE,
        district_label=level.district_label,
        region_label=level.region_label,
        boundaries=None,
        boundary_note=BOUNDARY_NOTE,
        notes=list(level.notes),
    )


def load(folder: Path) -> list[CountryData]:
    """Two data sets: AU (local government areas) and AU-SA2 (statistical areas level 2)."""
    folder = Path(folder)
    return [_dataset(folder, LGA), _dataset(folder, SA2)]
