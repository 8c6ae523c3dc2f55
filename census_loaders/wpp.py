"""UN World Population Prospects 2024: a national data set for every country without a finer one.

Source: ``world/unwpp2024_population_country_sex_age5_1950-2100_via-starsim-data-2.0.0.csv.gz``
(see ``data/raw/world/PROVENANCE.md``): persons by country × sex × 5-year age group (0–4 … 95–99,
100+), for the decades 1950 … 2100 only (estimates to 2020, medium-variant projections after).

Reference year 2025 (mid-year), by linear interpolation of every cell (country × sex × age group)
halfway between the 2020 estimate and the 2030 projection: ``n_2025 = (n_2020 + n_2030) / 2``.
The file holds no 2025 column, and a cell-wise midpoint keeps every total consistent (the
interpolated country total is the midpoint of the two totals).  Counts stay fractional, as WPP
publishes them (thousands with decimals); they are rounded where shown.

Every data set here is *national*: one "district", the country itself.  They are marked
:attr:`CountryData.national_model`, so the build keeps one only for a country that no other
registered loader covers (any data set whose code starts with the country's ISO code, e.g.
``KE`` or ``US-ZCTA``); for the others WPP remains a consistency check (:func:`population_at`).
"""
from __future__ import annotations

import csv
import io
from pathlib import Path

import numpy as np
import pandas as pd

from .notes import N_, Note, Num
from .schema import LINE_COLUMN, CountryData, LoaderError, SourceFile, parse_count, read_text, require_columns

FILE = "unwpp2024_population_country_sex_age5_1950-2100_via-starsim-data-2.0.0.csv.gz"
COLUMNS = ("iso3", "iso2", "country", "wpp_location_key", "year", "variant", "sex", "age_group", "age_start",
           "population")
YEARS = tuple(range(1950, 2101, 10))
AGE_STARTS = tuple(range(0, 101, 5))  # 0-4 … 95-99, 100+
SEX = {"F": "female", "M": "male"}
#: The data sets' reference year and how it is reached (shown on screen and in the manifest).
REFERENCE_YEAR = 2025
REFERENCE_DATE = "2025-07-01"
METHOD = Note(N_("UN model estimate for {year}: each sex × age cell is the midpoint of the WPP 2024 estimate for 2020 "
                 "and its medium-variant projection for 2030 (linear interpolation; the file holds decades only)."),
              year=str(REFERENCE_YEAR))
PUBLISHER = "United Nations, Department of Economic and Social Affairs, Population Division"
LICENCE = "CC BY 3.0 IGO"
CITATION = ("United Nations, Department of Economic and Social Affairs, Population Division (2024). World Population "
            "Prospects 2024, Medium variant; via the PyPI package starsim-data 2.0.0 (demographics-2024.h5)")


def read_wpp(path: Path) -> pd.DataFrame:
    """Every row of the WPP file, checked: columns ``iso2, iso3, country, year, sex, age_from, count, source_line``.

    A damaged or truncated file (bad gzip stream, short line, non-numeric or negative count,
    unknown year/sex/age, a repeated or missing cell) raises :class:`LoaderError` naming the line.
    """
    path = Path(path)
    reader = csv.reader(io.StringIO(read_text(path)))
    header = [h.strip() for h in next(reader, [])]
    require_columns(header, COLUMNS, path, 1)
    col = {h: i for i, h in enumerate(header)}
    years, ages = {str(y) for y in YEARS}, {str(a) for a in AGE_STARTS}
    rows, seen = [], {}
    for rec in reader:
        line = reader.line_num
        if not rec or not any(f.strip() for f in rec):
            continue
        if len(rec) != len(header):
            raise LoaderError(path, line, f"has {len(rec)} fields but the header has {len(header)} (truncated?)")
        iso2, iso3, year, sex, age = (rec[col[c]].strip() for c in ("iso2", "iso3", "year", "sex", "age_start"))
        if len(iso2) != 2 or not iso2.isalpha() or not iso2.isupper():
            raise LoaderError(path, line, f"iso2 code {iso2!r} is not two capital letters")
        if year not in years:
            raise LoaderError(path, line, f"year {year!r} is not one of the decades 1950 … 2100")
        if sex not in SEX:
            raise LoaderError(path, line, f"sex {sex!r} is neither F nor M")
        if age not in ages:
            raise LoaderError(path, line, f"age_start {age!r} is not a 5-year group start 0 … 100")
        key = (iso2, year, sex, age)
        if key in seen:
            raise LoaderError(path, line, f"{iso2} {year} {sex} age {age}: listed twice (first on line {seen[key]})")
        seen[key] = line
        count = parse_count(rec[col["population"]], path, line, f"population ({iso2} {year} {sex} {age})")
        rows.append((iso2, iso3, rec[col["country"]].strip(), int(year), SEX[sex], float(age), count, line))
    if not rows:
        raise LoaderError(path, None, "no data rows below the header")
    df = pd.DataFrame(rows, columns=["iso2", "iso3", "country", "year", "sex", "age_from", "count", LINE_COLUMN])
    expected = len(YEARS) * len(SEX) * len(AGE_STARTS)
    sizes = df.groupby("iso2", sort=False).size()
    short = sizes[sizes != expected]
    if len(short):
        iso2 = short.index[0]
        last = int(df.loc[df["iso2"] == iso2, LINE_COLUMN].max())
        raise LoaderError(path, last, f"{iso2} has {int(short.iloc[0])} rows, not {expected} (16 decades × 2 sexes × "
                                      "21 age groups): the file is cut short or a cell is missing")
    return df


def interpolate(df: pd.DataFrame, year: float) -> pd.DataFrame:
    """Every country × sex × age cell at ``year``, linear between the two decades around it.

    Columns ``iso2, sex, age_from, count``; a decade itself is returned unchanged.
    """
    if not YEARS[0] <= year <= YEARS[-1]:
        raise ValueError(f"year {year} is outside WPP's 1950 … 2100")
    lo = max(y for y in YEARS if y <= year)
    hi = min(y for y in YEARS if y >= year)
    keys = ["iso2", "sex", "age_from"]
    a = df[df["year"] == lo].set_index(keys)["count"]
    if hi == lo:
        return a.reset_index()
    b = df[df["year"] == hi].set_index(keys)["count"].reindex(a.index)
    w = (year - lo) / (hi - lo)
    return ((1 - w) * a + w * b).rename("count").reset_index()


def population_at(folder: Path, years) -> dict[float, dict[str, float]]:
    """WPP's total population of every country (ISO alpha-2) at each of ``years`` (linear between decades).

    The build checks every census data set's total against this (manifest ``wpp_check``).
    """
    df = read_wpp(Path(folder) / FILE)
    out = {}
    for year in years:
        cells = interpolate(df, year)
        out[year] = {k: float(v) for k, v in cells.groupby("iso2")["count"].sum().items()}
    return out


def load(folder: Path) -> list[CountryData]:
    """One national data set per WPP country (code = ISO alpha-2), at 2025; 21 age groups, 100+ open."""
    # import here: babel is needed to build the cache, not to read it
    from . import naturalearth
    from .country_names import country_names

    folder = Path(folder)
    path = folder / FILE
    df = read_wpp(path)
    cells = interpolate(df, REFERENCE_YEAR)
    firsts = df.drop_duplicates("iso2")
    wpp_names = dict(zip(firsts["iso2"], firsts["country"]))
    shapes = naturalearth.countries(folder, dict(zip(firsts["iso3"], firsts["iso2"])))
    outline = {c: shapes[shapes["district_id"] == c].reset_index(drop=True) for c in shapes["district_id"]}
    outline_source = naturalearth.source(folder, f"the country's outline, simplified at {naturalearth.NATIONAL_TOLERANCE}° "
                                                 f"(≈ 2 km), {naturalearth.NATIONAL_DECIMALS} decimals")
    source = SourceFile(path=path.absolute(), publisher=PUBLISHER, table_id="WPP 2024, population by sex and 5-year age "
                        "group, 2020 estimate and 2030 medium projection, interpolated to 2025",
                        reference_date=REFERENCE_DATE, licence=LICENCE, citation=CITATION)
    out = []
    for iso2, g in cells.groupby("iso2", sort=True):
        english = country_names(iso2)[0]
        pop = g.assign(
            district_id=iso2, district_name=english, region_id=iso2, region_name=english,
            age_to=np.where(g["age_from"] >= AGE_STARTS[-1], np.nan, g["age_from"] + 5), filled=False,
        )[["district_id", "district_name", "region_id", "region_name", "sex", "age_from", "age_to", "count", "filled"]]
        out.append(CountryData(
            code=iso2,
            name=f"{english} — UN model estimate for {REFERENCE_YEAR}, no districts",
            population=pop.reset_index(drop=True),
            sources=[source],
            reference_date=REFERENCE_DATE,
            district_label="country",
            region_label="country",
            body_prior_country=iso2,
            boundaries=outline.get(iso2),
            boundary_sources=[outline_source],
            boundary_tolerance=naturalearth.NATIONAL_TOLERANCE,
            boundary_decimals=naturalearth.NATIONAL_DECIMALS,
            boundary_note="" if iso2 in outline else Note(N_("Natural Earth has no outline for this country.")),
            national_model=True,
            search_names=[wpp_names[iso2]] if wpp_names[iso2] != english else [],
            notes=[
                METHOD,
                Note(N_("National figures only: no district statistics are published for this country in the sources "
                        "AnonSet uses, so the whole country is the smallest area (one 'district').")),
                Note(N_("A UN model estimate, not a census count: WPP's mid-year figures are modelled from censuses, "
                        "surveys and registers (Japan 2020: {wpp} million in WPP against {census} million in the "
                        "census)."), wpp=Num(126.30, ".2f"), census=Num(126.15, ".2f")),
                Note(N_("Five-year age groups; {top} and over form one open-ended group."), top="100"),
            ],
        ))
    return out
