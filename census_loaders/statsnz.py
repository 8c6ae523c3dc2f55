"""New Zealand: estimated resident population by territorial authority × sex × 5-year age, 30 June 2015
(Stats NZ, NZ.Stat table 7502; data set ``NZ``).

The table as Stats NZ ship it in their ``demdata`` repository: ``Area``, ``Age``
(``0-4 Years`` … ``80-84 Years``, ``85 Years and over``), ``Sex`` (Male/Female), ``Year at 30
June`` (2006–2015), ``Value``, ``Flags``.  The latest year, 2015, is used.  Areas are
named, not coded: a district's id is its name as a slug (``far-north-district``).  See
``data/raw/nz/PROVENANCE.md``.

Checked: the columns; every (area, age, sex, year) once and no cell missing, for every
year; known age labels, sexes and flags; counts finite and non-negative.  Stats NZ round
the estimates to the nearest 10, so small cells are approximate (stated in the notes).
"""
from __future__ import annotations

import csv
import io
import re
from pathlib import Path

import numpy as np
import pandas as pd

from .notes import N_, Note, Num
from .schema import (
    LINE_COLUMN,
    CountryData,
    LoaderError,
    SourceFile,
    parse_count,
    read_text,
    require_columns,
    validate_population,
)

CODE = "NZ"
YEAR = "2015"
REFERENCE_DATE = f"{YEAR}-06-30"
TABLE_FILE = "statsnz_TABLECODE7502_TA_age_sex_2006-2015_via-demdata.csv"
LEGEND_FILE = "statsnz_TABLECODE7502_FootnotesLegend_via-demdata.csv"
COLUMNS = ("Area", "Age", "Sex", "Year at 30 June", "Value", "Flags")
AGE_LABELS = tuple(f"{a}-{a + 4} Years" for a in range(0, 85, 5)) + ("85 Years and over",)
SEXES = {"Male": "male", "Female": "female"}
#: Flags of the table's footnote legend.
FLAGS = {"", "*", "c", "e", "i", "m", "p", "r", "s"}
OUTSIDE = "Area outside territorial authority"

PUBLISHER = "Statistics New Zealand (Stats NZ)"
LICENCE = "CC BY 4.0 (attribute Stats NZ); demdata repository MIT, Crown copyright (c) 2016"
CITATION = ("Stats NZ, Subnational population estimates (TA, AU), by age and sex, at 30 June 1996, 2001, 2006–2015 "
            "(NZ.Stat table 7502); via GitHub StatisticsNZ/demdata")
BOUNDARY_NOTE = Note(N_("No boundary file for New Zealand's territorial authorities ships with AnonSet: the data "
                        "works everywhere but the map."))


def slug(name: str) -> str:
    """A district id from an area name: "Central Hawke's Bay district" → ``central-hawkes-bay-district``."""
    s = name.lower().replace("'", "").replace("’", "")
    return re.sub(r"[^a-z0-9]+", "-", s).strip("-")


def read_table(path: Path) -> pd.DataFrame:
    """Every row, checked: ``area``, ``age`` (index into :data:`AGE_LABELS`), ``sex``, ``year``, ``value``, line."""
    path = Path(path)
    reader = csv.reader(io.StringIO(read_text(path)))
    header = [h.strip() for h in next(reader, [])]
    require_columns(header, COLUMNS, path, 1)
    col = {h: i for i, h in enumerate(header)}
    age_index = {a: i for i, a in enumerate(AGE_LABELS)}
    rows, seen = [], {}
    for rec in reader:
        line = reader.line_num
        if not rec or not any(f.strip() for f in rec):
            continue
        if len(rec) != len(header):
            raise LoaderError(path, line, f"has {len(rec)} fields but the header has {len(header)} (truncated?)")
        area, age, sex, year, value, flag = (rec[col[c]].strip() for c in COLUMNS)
        if not area:
            raise LoaderError(path, line, "empty area name")
        if age not in age_index:
            raise LoaderError(path, line, f"unknown age label {age!r}")
        if sex not in SEXES:
            raise LoaderError(path, line, f"sex {sex!r} is not Male or Female")
        if not re.fullmatch(r"\d{4}", year):
            raise LoaderError(path, line, f"year {year!r} is not a year")
        if flag not in FLAGS:
            raise LoaderError(path, line, f"unknown flag {flag!r} (the legend has {', '.join(sorted(FLAGS - {''}))})")
        key = (area, age, sex, year)
        if key in seen:
            raise LoaderError(path, line, f"{area}, {age}, {sex}, {year}: listed twice (first on line {seen[key]})")
        seen[key] = line
        rows.append((area, age_index[age], SEXES[sex], year, parse_count(value, path, line, f"value ({area}, {age}, {sex}, {year})"), flag, line))
    if not rows:
        raise LoaderError(path, None, "no data rows below the header")
    df = pd.DataFrame(rows, columns=["area", "age", "sex", "year", "value", "flag", LINE_COLUMN])
    areas, years = df["area"].unique(), df["year"].unique()
    expected = len(areas) * len(AGE_LABELS) * len(SEXES) * len(years)
    if len(df) != expected:
        have = set(seen)
        for a in areas:
            for y in years:
                for g in AGE_LABELS:
                    for s in SEXES:
                        if (a, g, s, y) not in have:
                            raise LoaderError(path, None, f"no row for {a}, {g}, {s}, {y}: the table is incomplete")
    return df


def load(folder: Path) -> list[CountryData]:
    """One data set, ``NZ``: 67 territorial authorities and the area outside them, 30 June 2015, no map."""
    folder = Path(folder)
    path = folder / TABLE_FILE
    df = read_table(path)
    if YEAR not in set(df["year"]):
        raise LoaderError(path, None, f"no rows for {YEAR}, the year this data set uses")
    df = df[df["year"] == YEAR]
    ids = {a: slug(a) for a in df["area"].unique()}
    clash = pd.Series(list(ids.values())).duplicated()
    if clash.any():
        raise LoaderError(path, None, f"two areas give the same id {pd.Series(list(ids.values()))[clash].iloc[0]!r}")
    age_from = 5.0 * df["age"].to_numpy()
    long = pd.DataFrame({
        "district_id": df["area"].map(ids).to_numpy(), "district_name": df["area"].to_numpy(),
        "region_id": CODE, "region_name": "New Zealand",
        "sex": df["sex"].to_numpy(), "age_from": age_from, "age_to": np.where(age_from >= 85, np.nan, age_from + 5),
        "count": df["value"].to_numpy(), "filled": False, LINE_COLUMN: df[LINE_COLUMN].to_numpy(),
    })
    population = validate_population(long, path)
    n_ta = len(ids) - (OUTSIDE in ids)
    outside = float(df.loc[df["area"] == OUTSIDE, "value"].sum())
    notes = [
        Note(N_("Estimated resident population at 30 June {year} (Stats NZ subnational estimates, the latest year of "
                "the table): estimates, not census counts; {n} territorial authorities on 2015 boundaries (one "
                "Auckland) plus the area outside territorial authorities ({people} people)."),
             year=str(YEAR), n=Num(n_ta), people=Num(outside)) if OUTSIDE in ids else
        Note(N_("Estimated resident population at 30 June {year} (Stats NZ subnational estimates, the latest year of "
                "the table): estimates, not census counts; {n} territorial authorities on 2015 boundaries (one "
                "Auckland)."), year=str(YEAR), n=Num(n_ta)),
        Note(N_("Stats NZ round every estimate to the nearest {step}, so small cells are approximate."), step="10"),
        Note(N_("Five-year age groups; {top} and over form one open-ended group. The table names areas without codes; "
                "regions are not given, so every area is shown under New Zealand."), top="85"),
    ]
    source = SourceFile(path=path.absolute(), publisher=PUBLISHER, table_id="NZ.Stat table 7502 (TA × age × sex)",
                        reference_date=REFERENCE_DATE, licence=LICENCE, citation=CITATION)
    return [CountryData(
        code=CODE,
        name="New Zealand — estimates 2015",
        population=population,
        sources=[source],
        reference_date=REFERENCE_DATE,
        district_label="territorial authority",
        region_label="country",
        boundaries=None,
        boundary_note=BOUNDARY_NOTE,
        notes=notes,
    )]
