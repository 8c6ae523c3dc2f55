"""Kenya, 2019 Population and Housing Census: counties and sub-counties × sex × age (KNBS; ``KE``, ``KE-SUB``).

One CSV of KNBS Volume III Table 2.3 ("Distribution of Population by Age, Sex, County and
Sub-County"), as redistributed by the R package ``rKenyaCensus``: ``County``, ``SubCounty``
(``ALL`` = the county row), ``Age`` (``Total``, single years ``0`` … ``99``, ``100+``, ``Not
Stated`` and interleaved 5-year subtotals, which are skipped), ``Male``, ``Female``, ``Total``.
Boundaries: the 47 counties from OpenStreetMap, with their KNBS county codes.  See
``data/raw/ke/PROVENANCE.md``.

Two data sets, because the grains serve different needs: ``KE``, the 47 counties, which have a
map; and ``KE-SUB``, the 345 sub-counties, which are finer (a sub-county is what a person
would say they live in, and smaller sets are what AnonSet is about) but have no published
boundaries, so they are a table, as Australia's SA2s.

An empty cell stands for KNBS's "–" (zero).  Where exactly one of Male and Female is empty
and Total is not, it is the difference (KNBS left two such cells blank, e.g. Mt. Kenya
Forest age 10: Total 2, Female 1); with that, every single-year row has Male + Female =
Total, the single years of every county and sub-county add up to its ``Total`` row, and the
sub-counties add up to their county in every single year and sex.  "Not Stated" ages are
spread over the stated ones of their district and sex (:mod:`census_loaders.unknown_age`).
Single years are grouped into 5-year groups, 100 and over open.
"""
from __future__ import annotations

import csv
import io
import re
from pathlib import Path

import numpy as np
import pandas as pd

from . import geometry as geo
from .notes import N_, Join, Nn_, Note, Num
from .schema import (
    LINE_COLUMN,
    CountryData,
    LoaderError,
    SourceFile,
    check_total,
    parse_count,
    read_text,
    require_columns,
    validate_population,
)
from .unknown_age import spread_unknown_age

CODE, SUB_CODE = "KE", "KE-SUB"
REFERENCE_DATE = "2019-08-24"  # census night 24/25 August 2019
CENSUS_FILE = "knbs_census2019-V3-T2.3_county-subcounty_sex_age1_2019_via-rKenyaCensus-6db00e5.csv.gz"
BOUNDARY_FILE = "osm_kenya_counties_boundaries_47_via-kenya-counties-subcounties-1aaa7e1.geojson"

COLUMNS = ("County", "SubCounty", "Age", "Male", "Female", "Total")
COUNTY_ROW = "ALL"
TOTAL, NOT_STATED, OPEN = "Total", "Not Stated", "100+"
SINGLE_YEARS = tuple(str(a) for a in range(100)) + (OPEN,)
#: The interleaved 5-year subtotal rows, as printed ("0 - 4", "10 -14"): skipped.
SUBTOTAL = re.compile(r"\d+\s*-\s*\d+")
N_COUNTIES = 47

PUBLISHER = "Kenya National Bureau of Statistics (KNBS)"
LICENCE = "KNBS published census tables (attribution: KNBS, 2019 KPHC); package rKenyaCensus MIT"
CITATION = ("KNBS, 2019 Kenya Population and Housing Census, Volume III, Table 2.3: Distribution of Population by "
            "Age, Sex, County and Sub-County; via the R package rKenyaCensus 0.0.2 (V3_T2.3)")
BOUNDARY_PUBLISHER = "OpenStreetMap contributors (via GitHub Mondieki/kenya-counties-subcounties)"
BOUNDARY_LICENCE = "ODbL 1.0 (© OpenStreetMap contributors); repository MIT"
BOUNDARY_TOLERANCE = 0.01  # ≈ 1 km: counties are tens to hundreds of km across
BOUNDARY_DECIMALS = 4


def _display(name: str) -> str:
    """'MT. KENYA FOREST' → 'Mt. Kenya Forest', "MURANG'A SOUTH" → "Murang'a South" (KNBS prints upper case)."""
    return " ".join(w[:1].upper() + w[1:].lower() for w in name.split())


def _slug(name: str) -> str:
    return re.sub(r"[^a-z0-9]+", "-", name.lower()).strip("-")


def read_census(path: Path) -> pd.DataFrame:
    """The ``Total``, single-year and ``Not Stated`` rows, checked: ``county``, ``sub``, ``age``, ``male``,
    ``female``, ``source_line`` (subtotal rows skipped)."""
    path = Path(path)
    reader = csv.reader(io.StringIO(read_text(path)))
    header = [h.strip() for h in next(reader, [])]
    require_columns(header, COLUMNS, path, 1)
    col = {h: i for i, h in enumerate(header)}
    known = {TOTAL, NOT_STATED, *SINGLE_YEARS}
    rows, seen, derived = [], {}, []
    for rec in reader:
        line = reader.line_num
        if not rec or not any(f.strip() for f in rec):
            continue
        if len(rec) != len(header):
            raise LoaderError(path, line, f"has {len(rec)} fields but the header has {len(header)} (truncated?)")
        county, sub, age = (rec[col[c]].strip() for c in ("County", "SubCounty", "Age"))
        if not county or not sub:
            raise LoaderError(path, line, "empty County or SubCounty")
        if SUBTOTAL.fullmatch(age):
            continue
        if age not in known:
            raise LoaderError(path, line, f"unknown age {age!r}")
        if (county, sub, age) in seen:
            raise LoaderError(path, line, f"{county} / {sub}, age {age}: listed twice (first on line {seen[county, sub, age]})")
        seen[county, sub, age] = line
        male, female, total = (None if not rec[col[c]].strip() else parse_count(rec[col[c]], path, line,
                               f"{c} ({county} / {sub}, age {age})") for c in ("Male", "Female", "Total"))
        if total is not None and (male is None) != (female is None):
            if male is None:
                male = total - female
            else:
                female = total - male
            if male and female:  # a blank that is not KNBS's "–" (zero)
                derived.append(Note(N_("{name}, age {age}"), name=_display(sub if sub != COUNTY_ROW else county),
                                    age=str(age)))
            if min(male, female) < 0:
                raise LoaderError(path, line, f"{county} / {sub}, age {age}: a count exceeds the total")
        male, female = male or 0.0, female or 0.0
        check_total(path, line, f"{county} / {sub}, age {age}: male + female vs total", male + female, total or 0.0)
        rows.append((county, sub, age, male, female, line))
    if not rows:
        raise LoaderError(path, None, "no data rows below the header")
    df = pd.DataFrame(rows, columns=["county", "sub", "age", "male", "female", LINE_COLUMN])
    _check_sums(path, df)
    df.attrs["derived_cells"] = derived
    return df


def _check_sums(path: Path, df: pd.DataFrame) -> None:
    """Every unit's ages add up to its Total row; each county's sub-counties add up to it, age by age."""
    keys = ["county", "sub"]
    rows_per = df.groupby(keys, sort=False)["age"].nunique()
    short = rows_per[rows_per < 2 + len(SINGLE_YEARS)]
    if not short.empty:
        county, sub = short.index[0]
        g = df[(df["county"] == county) & (df["sub"] == sub)]
        missing = next(a for a in (TOTAL, *SINGLE_YEARS, NOT_STATED) if a not in set(g["age"]))
        raise LoaderError(path, int(g[LINE_COLUMN].iloc[0]), f"{county} / {sub} has no row for age {missing!r}")
    totals = df[df["age"] == TOTAL].set_index(keys)
    parts = df[df["age"] != TOTAL].groupby(keys)[["male", "female"]].sum().loc[totals.index]
    for sex in ("male", "female"):
        off = (parts[sex] - totals[sex]).abs() > 0.5
        if off.any():
            county, sub = off[off].index[0]
            check_total(path, int(totals.loc[(county, sub), LINE_COLUMN]), f"{county} / {sub}, {sex}: single years vs "
                        "Total", float(parts.loc[(county, sub), sex]), float(totals.loc[(county, sub), sex]))
    ages = df[df["age"] != TOTAL]
    counties = ages[ages["sub"] == COUNTY_ROW].set_index(["county", "age"])[["male", "female", LINE_COLUMN]]
    subs = ages[ages["sub"] != COUNTY_ROW].groupby(["county", "age"])[["male", "female"]].sum()
    no_subs = sorted(set(counties.index.get_level_values(0)) - set(subs.index.get_level_values(0)))
    if no_subs:
        raise LoaderError(path, None, f"county {no_subs[0]} has no sub-county rows")
    joined = counties.join(subs.add_suffix("_subs"), how="left").fillna(0.0)
    for sex in ("male", "female"):
        off = joined[(joined[sex] - joined[f"{sex}_subs"]).abs() > 0.5]
        if not off.empty:
            (county, age), r = off.index[0], off.iloc[0]
            raise LoaderError(path, int(r[LINE_COLUMN]), f"{county}, age {age}, {sex}: sub-counties sum to "
                                                         f"{r[f'{sex}_subs']:,.0f} but the county row is {r[sex]:,.0f}")


def county_codes(path: Path):
    """KNBS county code (2 digits) and display name per census county name, and the county polygons."""
    shapes = geo.read_boundary_file(path, "county_code", ("county_name", "census_county"))
    shapes["district_id"] = shapes["district_id"].map(lambda c: f"{int(float(c)):02d}" if str(c).strip() else c)
    codes = dict(zip(shapes["census_county"].astype(str).str.strip(), shapes["district_id"]))
    names = dict(zip(shapes["district_id"], shapes["county_name"].astype(str)))
    if len(codes) != N_COUNTIES:
        raise LoaderError(path, None, f"{len(codes)} counties, not {N_COUNTIES}")
    return codes, names, shapes[["district_id", "geometry"]]


def _grouped(rows: pd.DataFrame, path: Path) -> tuple[pd.DataFrame, pd.DataFrame]:
    """Single years → 5-year groups with Not Stated spread; returns (population rows, not-spread)."""
    rows = rows[rows["age"] != TOTAL]
    long = rows.melt(id_vars=["district_id", "district_name", "region_id", "region_name", "age", LINE_COLUMN],
                     value_vars=["male", "female"], var_name="sex", value_name="count")
    known, unknown = long[long["age"] != NOT_STATED].copy(), long[long["age"] == NOT_STATED]
    years = known["age"].map(lambda a: 100 if a == OPEN else int(a))
    known["age_from"] = (years // 5 * 5).astype(float)
    known = (known.groupby(["district_id", "district_name", "region_id", "region_name", "sex", "age_from"],
                           as_index=False, sort=False).agg(count=("count", "sum"), **{LINE_COLUMN: (LINE_COLUMN, "min")}))
    spread, stuck = spread_unknown_age(known, unknown)
    spread["age_to"] = np.where(spread["age_from"] >= 100, np.nan, spread["age_from"] + 5)
    spread["filled"] = False
    return validate_population(spread, path), stuck


def load(folder: Path) -> list[CountryData]:
    """Two data sets: ``KE`` (47 counties, with a map) and ``KE-SUB`` (345 sub-counties, no map)."""
    folder = Path(folder)
    path = folder / CENSUS_FILE
    geo_path = folder / BOUNDARY_FILE
    df = read_census(path)
    codes, county_names, shapes = county_codes(geo_path)
    unknown_counties = sorted(set(df["county"]) - set(codes))
    if unknown_counties:
        raise LoaderError(path, None, f"county {unknown_counties[0]!r} is not among the 47 counties of {BOUNDARY_FILE}")
    df["county_id"] = df["county"].map(codes)
    df["county_name"] = df["county_id"].map(county_names)

    counties = df[df["sub"] == COUNTY_ROW].copy()
    counties["district_id"], counties["district_name"] = counties["county_id"], counties["county_name"]
    counties["region_id"], counties["region_name"] = CODE, "Kenya"
    subs = df[df["sub"] != COUNTY_ROW].copy()
    subs["district_id"] = subs["county_id"] + "-" + subs["sub"].map(_slug)
    subs["district_name"] = subs["sub"].map(_display)
    subs["region_id"], subs["region_name"] = subs["county_id"], subs["county_name"]
    clash = subs.drop_duplicates(["county", "sub"])["district_id"].duplicated()
    if clash.any():
        raise LoaderError(path, None, f"two sub-counties give the id {subs['district_id'][clash].iloc[0]!r}")

    county_pop, county_stuck = _grouped(counties, path)
    sub_pop, sub_stuck = _grouped(subs, path)
    total_rows = df[df["age"] == TOTAL]
    people = float(total_rows.loc[total_rows["sub"] == COUNTY_ROW, ["male", "female"]].to_numpy().sum())
    stated = df[(df["age"] == NOT_STATED) & (df["sub"] == COUNTY_ROW)]
    n_unknown = float(stated[["male", "female"]].to_numpy().sum())
    derived = df.attrs.get("derived_cells", [])
    repaired = [Note(Nn_("{n} male or female cell(s) that KNBS left blank although the row's total implies them "
                         "({cells}) are set to that difference.",
                         "{n} male or female cell(s) that KNBS left blank although the row's total implies them "
                         "({cells}) are set to that difference."),
                     n=Num(len(derived)), cells=Join(tuple(derived[:3]), "; "))] if derived else []
    wild = subs.loc[subs["sub"].str.contains(r"FOREST|NATIONA|PARK"), "sub"].unique()
    common = [
        Note(N_("Census night 24/25 August 2019: {people} people (male and female; the {intersex} intersex persons "
                "are not in this table)."), people=Num(people), intersex=Num(1524)),
        Note(N_("Age not stated: {people} people, spread over the age groups of their district and sex in proportion "
                "to the people of stated age. Single years are grouped into five-year groups; {top} and over form one "
                "open-ended group."), people=Num(n_unknown), top="100"),
    ]
    for template, stuck in ((N_("{people} people of unstated age in a county and sex with no stated ages are left "
                                "out."), county_stuck),
                            (N_("{people} people of unstated age in a sub-county and sex with no stated ages are "
                                "left out."), sub_stuck)):
        if not stuck.empty:
            common.append(Note(template, people=Num(stuck["count"].sum())))
    source = SourceFile(path=path.absolute(), publisher=PUBLISHER, table_id="2019 KPHC Volume III, Table 2.3",
                        reference_date=REFERENCE_DATE, licence=LICENCE, citation=CITATION)
    geo_source = SourceFile(path=geo_path.absolute(), publisher=BOUNDARY_PUBLISHER, table_id="Kenya county boundaries (OSM)",
                            reference_date="2019", licence=BOUNDARY_LICENCE,
                            citation="© OpenStreetMap contributors; Mondieki/kenya-counties-subcounties, simplified")
    n_subs = subs.drop_duplicates(["county", "sub"]).shape[0]
    county_data = CountryData(
        code=CODE, name="Kenya — counties, census 2019", population=county_pop, sources=[source],
        reference_date=REFERENCE_DATE, district_label="county", region_label="country",
        boundaries=shapes.reset_index(drop=True), boundary_sources=[geo_source],
        boundary_tolerance=BOUNDARY_TOLERANCE, boundary_decimals=BOUNDARY_DECIMALS,
        notes=[*common, Note(N_("The {counties} counties, with a map. The finer data set {code} has the {n} "
                                "sub-counties, which have no published boundaries."),
                             counties=Num(47), code=SUB_CODE, n=Num(n_subs)),
               Note(N_("County outlines are from OpenStreetMap and include some water (e.g. Lamu)."))],
    )
    sub_data = CountryData(
        code=SUB_CODE, name="Kenya — sub-counties, census 2019", population=sub_pop, sources=[source],
        reference_date=REFERENCE_DATE, district_label="sub-county", region_label="county",
        boundaries=None,
        boundary_note=Note(N_("No boundaries of Kenya's {n} sub-counties are published in a form AnonSet could use; "
                              "the county data set {code} has a map."), n=Num(n_subs), code=CODE),
        notes=[*common, *repaired,
               Note(N_("{n} sub-counties, among them forests and national parks with few people (e.g. {examples}); "
                       "some names are truncated as printed by KNBS (e.g. Aberdare Nationa, Nyandarua Centra)."),
                    n=Num(n_subs), examples=Join(tuple(_display(w) for w in wild[:2])))],
    )
    return [county_data, sub_data]
