"""ONS mid-2022 population estimates (release MYE22UK) for the UK's 361 local authority districts.

The published workbook ``mye22final.xlsx.gz`` (sheets ``MYE2 - Males`` / ``MYE2 -
Females``: district × single year of age 0…89 and 90+) is the primary source.  Its
aggregate rows (UK, countries, English regions, counties) are used as checks and to
place each district in its English region or nation, since the sheet lists every
region (and Wales, Scotland, Northern Ireland) followed by its districts.  The tidy
CSV extract of the same table is read by :func:`read_tidy_csv` so tests can prove the
two agree.  Boundaries come from the ONS Open Geography Portal (May 2023, BUC).
"""
from __future__ import annotations

import csv
import io
import re
from dataclasses import dataclass
from pathlib import Path
from typing import Mapping

import numpy as np
import pandas as pd

from .geometry import read_boundary_file
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

WORKBOOK = "mye22final.xlsx.gz"
TIDY_CSV = "uk_lad_sex_sya_mid2022_apr2023geog.csv"
BOUNDARIES = "lad_may2023_uk_buc_from-topojson.geojson"

REFERENCE_DATE = "2022-06-30"
SEX_SHEETS = {"male": "MYE2 - Males", "female": "MYE2 - Females"}
PERSONS_SHEET = "MYE2 - Persons"
#: The header is on row 8 in the published file; it is looked for in the first rows
#: so that an inserted or deleted title row does not shift every column silently.
HEADER_SEARCH_ROWS = 20

#: Geography types of the 361 local authority districts (workbook "Geography guide").
LAD_TYPES = frozenset({
    "Non-metropolitan District", "Unitary Authority", "Metropolitan District",
    "London Borough", "Council Area", "Local Government District",
})
#: Aggregate rows: used for checks and regions, never as districts.
AGGREGATE_TYPES = frozenset({"Country", "Region", "County", "Metropolitan County"})

AGE_LABELS = tuple(str(a) for a in range(90)) + ("90+",)
ID_COLUMNS = ("Code", "Name", "Geography", "All ages")
#: GSS codes of districts: English UAs, non-met districts, met districts, London
#: boroughs; Welsh UAs; Scottish council areas; Northern Irish LGDs.
LAD_CODE = re.compile(r"^(E06|E07|E08|E09|W06|S12|N09)\d{6}$")
GSS_CODE = re.compile(r"^[EWSNK]\d{8}$")
UK_CODE = "K02000001"
ENGLISH_REGION = re.compile(r"^E12\d{6}$")
#: Nations, for districts whose English region cannot be derived (the tidy CSV).
NATIONS = {
    "E": ("E92000001", "England"),
    "W": ("W92000004", "Wales"),
    "S": ("S92000003", "Scotland"),
    "N": ("N92000002", "Northern Ireland"),
}

CSV_ID_COLUMNS = ("lad_code", "lad_name", "geography", "sex", "all_ages")
CSV_AGE_COLUMNS = tuple(f"age_{a}" for a in range(90)) + ("age_90_plus",)
CSV_SEXES = {"M": "male", "F": "female"}

ATTRIBUTION = "Source: Office for National Statistics licensed under the Open Government Licence v.3.0"
BOUNDARY_ATTRIBUTION = (
    "Source: Office for National Statistics licensed under the Open Government Licence v.3.0. "
    "Contains OS data © Crown copyright and database right 2023"
)


@dataclass
class _Sheet:
    """The data rows of one MYE2 sheet, in sheet order (aggregates included)."""

    where: str  # "…/mye22final.xlsx.gz, sheet 'MYE2 - Males'", for error messages
    codes: list[str]
    names: list[str]
    geographies: list[str]
    rows: list[int]  # 1-based spreadsheet row numbers
    values: np.ndarray  # (n, 92): "All ages", then ages 0…89 and 90+

    def index(self) -> dict[str, int]:
        return {code: i for i, code in enumerate(self.codes)}


# --------------------------------------------------------------------------- workbook


def _cell_text(value: object) -> str:
    if value is None:
        return ""
    if isinstance(value, float) and value.is_integer():
        value = int(value)
    return str(value).strip()


def _read_sheet(workbook, sheet: str, path: Path) -> _Sheet:
    """Parse one MYE2 sheet, checking codes, geography types, counts and row totals."""
    if sheet not in workbook.sheetnames:
        raise LoaderError(path, None, f"sheet {sheet!r} is missing (the workbook has {', '.join(workbook.sheetnames)})")
    where = f"{path}, sheet '{sheet}'"
    rows = workbook[sheet].iter_rows(values_only=True)
    header_row, columns = None, {}
    for row_no, cells in enumerate(rows, start=1):
        texts = [_cell_text(v) for v in cells]
        if texts and texts[0] == "Code":
            header_row = row_no
            for i, text in enumerate(texts):
                columns.setdefault(text, i)
            break
        if row_no >= HEADER_SEARCH_ROWS:
            break
    if header_row is None:
        raise LoaderError(where, None, f"no header row starting with 'Code' in the first {HEADER_SEARCH_ROWS} rows")
    require_columns(columns, (*ID_COLUMNS, *AGE_LABELS), where, header_row)
    i_code, i_name, i_geo = columns["Code"], columns["Name"], columns["Geography"]
    value_idx = [columns["All ages"]] + [columns[a] for a in AGE_LABELS]
    value_labels = ["all ages"] + [f"age {a}" for a in AGE_LABELS]

    codes, names, geos, row_nos, values = [], [], [], [], []
    seen: dict[str, int] = {}
    for row_no, cells in enumerate(rows, start=header_row + 1):
        if all(v is None or (isinstance(v, str) and not v.strip()) for v in cells):
            continue
        code, name, geo = (_cell_text(cells[i]) if i < len(cells) else "" for i in (i_code, i_name, i_geo))
        if geo in LAD_TYPES:
            if not LAD_CODE.match(code):
                raise LoaderError(where, row_no, f"district code {code!r} is not a local authority district code (E06/E07/E08/E09/W06/S12/N09 + 6 digits)")
        elif geo in AGGREGATE_TYPES:
            if not GSS_CODE.match(code):
                raise LoaderError(where, row_no, f"area code {code!r} is not a 9-character GSS code")
        else:
            raise LoaderError(where, row_no, f"unknown geography type {geo!r} for {code!r}")
        if code in seen:
            raise LoaderError(where, row_no, f"duplicate row for {code} (first on row {seen[code]})")
        seen[code] = row_no
        vec = []
        for i, label in zip(value_idx, value_labels):
            v = cells[i] if i < len(cells) else None
            vec.append(v if type(v) is int and v >= 0 else parse_count(v, where, row_no, f"count ({code}, {label})"))
        check_total(where, row_no, f"{code} single years of age vs 'All ages'", float(sum(vec[1:])), float(vec[0]))
        codes.append(code)
        names.append(name)
        geos.append(geo)
        row_nos.append(row_no)
        values.append(vec)
    if not codes:
        raise LoaderError(where, header_row, "no data rows below the header")
    return _Sheet(where, codes, names, geos, row_nos, np.asarray(values, dtype="float64"))


def _first_mismatch(a: np.ndarray, b: np.ndarray) -> int | None:
    bad = np.flatnonzero(np.abs(a - b) > 0.5)
    return int(bad[0]) if bad.size else None


def _column_label(j: int) -> str:
    return "all ages" if j == 0 else f"age {AGE_LABELS[j - 1]}"


def _check_persons(males: _Sheet, females: _Sheet, persons: _Sheet) -> None:
    """Every area in all three sheets, with males + females = persons in every column."""
    male_codes = set(males.codes)
    for sheet in (females, persons):
        codes = set(sheet.codes)
        missing = [c for c in males.codes if c not in codes]
        extra = [c for c in sheet.codes if c not in male_codes]
        if missing or extra:
            what = f"lacks {missing[:5]}" if missing else f"has areas not in {SEX_SHEETS['male']!r}: {extra[:5]}"
            raise LoaderError(sheet.where, None, f"the sheet {what}")
    fi, pi = females.index(), persons.index()
    for i, code in enumerate(males.codes):
        f, p = fi[code], pi[code]
        if females.names[f] != males.names[i]:
            raise LoaderError(females.where, females.rows[f], f"{code} is named {females.names[f]!r} here but {males.names[i]!r} in {SEX_SHEETS['male']!r}")
        j = _first_mismatch(males.values[i] + females.values[f], persons.values[p])
        if j is not None:
            raise LoaderError(
                persons.where, persons.rows[p],
                f"{code} {_column_label(j)}: males {males.values[i, j]:,.0f} + females {females.values[f, j]:,.0f} "
                f"≠ persons {persons.values[p, j]:,.0f}",
            )


def _title_case(name: str) -> str:
    """'YORKSHIRE AND THE HUMBER' -> 'Yorkshire and the Humber' (the sheet capitalises aggregates)."""
    if not name.isupper():
        return name
    small = {"and", "the", "of"}
    return " ".join(w if i and w in small else w.capitalize() for i, w in enumerate(name.lower().split()))


def _regions(sheet: _Sheet) -> tuple[list[tuple[str, str]], dict[str, int]]:
    """The region of each row, from the sheet order (a region row, then its districts).

    English districts take the last English region row above them; Welsh, Scottish
    and Northern Irish ones their nation row.  Where no such row precedes a district
    its nation (from the code's first letter) is used.  Returns the (id, name) of each
    row and the row index of each region used, for the sum check.
    """
    current: tuple[str, str, int] | None = None
    out, used = [], {}
    for i, (code, name, geo) in enumerate(zip(sheet.codes, sheet.names, sheet.geographies)):
        if geo == "Region" and ENGLISH_REGION.match(code):
            current = (code, _title_case(name), i)
        elif geo == "Country" and code[0] in "WSN" and code == NATIONS[code[0]][0]:
            current = (code, _title_case(name), i)
        elif geo == "Country":
            current = None  # UK, GB, England and Wales, England: regions follow
        if geo in LAD_TYPES and current is not None and current[0][0] == code[0]:
            out.append(current[:2])
            used[current[0]] = current[2]
        else:
            out.append(NATIONS[code[0]] if code[0] in NATIONS else ("", ""))
    return out, used


def _check_aggregates(sheet: _Sheet, regions: list[tuple[str, str]], used: dict[str, int]) -> None:
    """Districts must add up to their region / nation row and to the UK row."""
    is_lad = np.array([g in LAD_TYPES for g in sheet.geographies])
    groups = {region_id: [] for region_id in used}
    for i, (region_id, _) in enumerate(regions):
        if is_lad[i] and region_id in groups:
            groups[region_id].append(i)
    idx = sheet.index()
    checks = [(code, members) for code, members in groups.items()]
    if UK_CODE in idx:
        checks.append((UK_CODE, list(np.flatnonzero(is_lad))))
    for code, members in checks:
        r = idx[code]
        j = _first_mismatch(sheet.values[members].sum(axis=0), sheet.values[r])
        if j is not None:
            raise LoaderError(
                sheet.where, sheet.rows[r],
                f"{code} {sheet.names[r]} {_column_label(j)}: its {len(members)} local authority districts sum to "
                f"{sheet.values[members, j].sum():,.0f} but the row says {sheet.values[r, j]:,.0f}",
            )


def _long_table(parts: list[tuple[str, _Sheet, list[tuple[str, str]]]]) -> pd.DataFrame:
    """District × sex × single-year rows from the district rows of the sex sheets."""
    frames = []
    n_ages = len(AGE_LABELS)
    age_from = np.arange(n_ages, dtype="float64")
    age_to = np.append(np.arange(1, n_ages, dtype="float64"), np.nan)
    for sex, sheet, regions in parts:
        keep = [i for i, g in enumerate(sheet.geographies) if g in LAD_TYPES]
        n = len(keep)
        frames.append(pd.DataFrame({
            "district_id": np.repeat([sheet.codes[i] for i in keep], n_ages),
            "district_name": np.repeat([sheet.names[i] for i in keep], n_ages),
            "region_id": np.repeat([regions[i][0] for i in keep], n_ages),
            "region_name": np.repeat([regions[i][1] for i in keep], n_ages),
            "sex": sex,
            "age_from": np.tile(age_from, n),
            "age_to": np.tile(age_to, n),
            "count": sheet.values[keep, 1:].ravel(),
            "filled": False,
            LINE_COLUMN: np.repeat([sheet.rows[i] for i in keep], n_ages),
        }))
    return pd.concat(frames, ignore_index=True)


def read_workbook(path: Path) -> pd.DataFrame:
    """The district × sex × single-year table of the MYE22UK workbook, fully cross-checked.

    Checks each row's ages against "All ages", males + females = persons for every
    area and column, and districts against their region / nation rows and the UK row.
    ``source_line`` is the spreadsheet row of the district in its sex's sheet.
    """
    import openpyxl  # imported here: only this reader needs it

    path = Path(path)
    data = open_bytes(path)
    # openpyxl raises many unrelated types for a damaged file (BadZipFile, KeyError,
    # XML parse errors, InvalidFileException ...): all mean the same to the user.
    try:
        workbook = openpyxl.load_workbook(data, read_only=True, data_only=True)
    except Exception as exc:
        raise LoaderError(path, None, f"not a readable xlsx workbook ({type(exc).__name__}: {exc})") from None
    try:
        males = _read_sheet(workbook, SEX_SHEETS["male"], path)
        females = _read_sheet(workbook, SEX_SHEETS["female"], path)
        persons = _read_sheet(workbook, PERSONS_SHEET, path)
    except LoaderError:
        raise
    except Exception as exc:
        raise LoaderError(path, None, f"workbook is damaged ({type(exc).__name__}: {exc})") from None
    finally:
        workbook.close()
    _check_persons(males, females, persons)
    parts = []
    for sex, sheet in (("female", females), ("male", males)):
        regions, used = _regions(sheet)
        _check_aggregates(sheet, regions, used)
        parts.append((sex, sheet, regions))
    return _long_table(parts)


def regions_of(table: pd.DataFrame) -> dict[str, tuple[str, str]]:
    """district_id -> (region_id, region_name), to give the tidy CSV the workbook's regions."""
    first = table.drop_duplicates("district_id")
    return dict(zip(first["district_id"], zip(first["region_id"], first["region_name"])))


# --------------------------------------------------------------------------- tidy CSV


def read_tidy_csv(path: Path, regions: Mapping[str, tuple[str, str]] | None = None) -> pd.DataFrame:
    """The same table from the tidy CSV extract; ``source_line`` is the CSV line.

    The CSV has no region column: ``regions`` (e.g. :func:`regions_of` the workbook
    table) supplies it; districts it does not cover get their nation.
    """
    path = Path(path)
    reader = csv.reader(io.StringIO(read_text(path)))
    header = next(reader, [])
    require_columns(header, (*CSV_ID_COLUMNS, *CSV_AGE_COLUMNS), path, 1)
    col = {name: i for i, name in enumerate(header)}
    value_idx = [col["all_ages"]] + [col[c] for c in CSV_AGE_COLUMNS]
    value_labels = ["all_ages", *CSV_AGE_COLUMNS]
    regions = regions or {}
    ids, names, sexes, lines, values = [], [], [], [], []
    seen: dict[tuple[str, str], int] = {}
    for rec in reader:
        line = reader.line_num
        if not rec or all(not f.strip() for f in rec):
            continue
        if len(rec) != len(header):
            raise LoaderError(path, line, f"has {len(rec)} fields but the header has {len(header)} (truncated or wrong delimiter?)")
        code, name, geo, sex = (rec[col[c]].strip() for c in ("lad_code", "lad_name", "geography", "sex"))
        if not LAD_CODE.match(code):
            raise LoaderError(path, line, f"district code {code!r} is not a local authority district code (E06/E07/E08/E09/W06/S12/N09 + 6 digits)")
        if geo not in LAD_TYPES:
            raise LoaderError(path, line, f"unknown geography type {geo!r} for {code}")
        if sex not in CSV_SEXES:
            raise LoaderError(path, line, f"sex {sex!r} is not M or F")
        key = (code, sex)
        if key in seen:
            raise LoaderError(path, line, f"duplicate row for {code}, sex {sex} (first on line {seen[key]})")
        seen[key] = line
        vec = [parse_count(rec[i], path, line, f"count ({code}, {label})") for i, label in zip(value_idx, value_labels)]
        check_total(path, line, f"{code} {sex} single years of age vs all_ages", float(sum(vec[1:])), vec[0])
        ids.append(code)
        names.append(name)
        sexes.append(CSV_SEXES[sex])
        lines.append(line)
        values.append(vec[1:])
    if not ids:
        raise LoaderError(path, None, "no data rows below the header")
    n_ages = len(CSV_AGE_COLUMNS)
    region = [regions.get(c, NATIONS[c[0]]) for c in ids]
    return pd.DataFrame({
        "district_id": np.repeat(ids, n_ages),
        "district_name": np.repeat(names, n_ages),
        "region_id": np.repeat([r[0] for r in region], n_ages),
        "region_name": np.repeat([r[1] for r in region], n_ages),
        "sex": np.repeat(sexes, n_ages),
        "age_from": np.tile(np.arange(n_ages, dtype="float64"), len(ids)),
        "age_to": np.tile(np.append(np.arange(1, n_ages, dtype="float64"), np.nan), len(ids)),
        "count": np.asarray(values, dtype="float64").ravel(),
        "filled": False,
        LINE_COLUMN: np.repeat(lines, n_ages),
    })


# --------------------------------------------------------------------------- boundaries


def read_boundaries(path: Path):
    """District polygons (EPSG:4326) keyed by GSS code, unsimplified (the build simplifies)."""
    gdf = read_boundary_file(path, "AREACD")
    empty = gdf.geometry.isna() | gdf.geometry.is_empty
    if empty.any():
        raise LoaderError(path, None, f"district(s) without a geometry: {sorted(gdf.loc[empty, 'district_id'])[:5]}")
    return gdf


def check_boundaries(boundaries, district_ids, path: Path) -> None:
    """Every district must have a polygon and every polygon a district: both files are April/May 2023 LADs."""
    have, want = set(boundaries["district_id"]), set(district_ids)
    if have != want:
        raise LoaderError(
            path, None,
            f"boundaries do not match the population table: no boundary for {sorted(want - have)[:5]}, "
            f"no population for {sorted(have - want)[:5]}",
        )


# --------------------------------------------------------------------------- load


def load(folder: Path) -> list[CountryData]:
    """The UK data set: 361 districts × sex × single year of age, with district boundaries."""
    folder = Path(folder)
    workbook = folder / WORKBOOK
    population = validate_population(read_workbook(workbook), workbook)
    boundary_path = folder / BOUNDARIES
    boundaries = read_boundaries(boundary_path)
    check_boundaries(boundaries, population["district_id"], boundary_path)
    source = SourceFile(
        path=workbook.absolute(),
        publisher="Office for National Statistics (ONS)",
        table_id="MYE22UK",
        reference_date=REFERENCE_DATE,
        licence="OGL v3.0",
        citation=ATTRIBUTION,
    )
    boundary_source = SourceFile(
        path=boundary_path.absolute(),
        publisher="ONS Open Geography Portal",
        table_id="Local Authority Districts (May 2023) Boundaries UK BUC",
        reference_date="2023-05",
        licence="OGL v3.0",
        citation=BOUNDARY_ATTRIBUTION,
    )
    return [CountryData(
        code="GB",
        name="United Kingdom",
        population=population,
        sources=[source],
        reference_date=REFERENCE_DATE,
        district_label="local authority district",
        region_label="English region or nation",
        boundaries=boundaries,
        boundary_sources=[boundary_source],
        notes=[
            Note(N_("Mid-2022 estimates on local authority boundaries as of April 2023.")),
            Note(N_("Scotland's figures come from NRS and Northern Ireland's from NISRA, compiled by ONS.")),
            Note(N_("Ages {top} and over form one open-ended group."), top="90"),
        ],
    )]
