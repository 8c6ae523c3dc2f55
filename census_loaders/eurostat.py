"""Eurostat ``demo_r_pjangrp3``: population on 1 January by sex, 5-year age group and NUTS-3 region.

Reads the bulk SDMX-TSV exactly as Eurostat publishes it (``estat_demo_r_pjangrp3.tsv.gz``:
gzip, tab-separated, a comma-joined key ``freq,sex,unit,age,geo\\TIME_PERIOD`` followed by one
column per year; cells are ``"<count> <flags>"`` and ``:`` means not available) and returns one
:class:`CountryData` per country that has data for the chosen year (36 for 2022: EU-27, EFTA
and candidate countries; the UK has no post-Brexit data and is not returned).

Decisions, so that every person in a published TOTAL is accounted for:

* **Regions.**  Only five-character geo codes (NUTS 3) that are regions of NUTS 2021 (listed in
  ``nuts3_2021_names.csv``) are kept.  ``xxZZZ`` extra-regio codes are dropped silently; any other
  five-character code (an earlier NUTS version, ``xxXXX`` "not regionalised") is dropped and
  listed in the country's notes, with the people it held when it has data for the year.
* **Age classes.**  Y_LT5, Y5-9, ..., Y80-84 and an open-ended 85+ (``age_to`` NaN).  Y_GE85
  overlaps Y85-89 and Y_GE90, so only one of them is used.  The 85+ count is, in order of
  preference: Y_GE85; Y85-89 + Y_GE90; or, when only Y85-89 is published (Albania and Türkiye in
  2022), TOTAL - UNK - the 17 classes below 85, which must be at least Y85-89 (the difference is
  the 90+ population, plus anyone of unknown age when UNK is not published).  The note of such a
  country says how many people that difference holds: for 2022 it is 0 in Albania (whose Y85-89
  already equals TOTAL minus the classes below 85, i.e. it is the open class) and 202,977 in
  Türkiye.
* **Unknown age (UNK)** cannot be placed in an age group, so it is left out of the table; the
  country's first note states how many people that is (``:`` is read as "not published").
* **Checks.**  For every region and sex with complete data, the 18 classes plus UNK must equal
  TOTAL, and for every age class F + M must equal T; Y_GE85 must equal Y85-89 + Y_GE90 where all
  three are published.  A mismatch raises :class:`LoaderError` naming the file and line.
* **Incomplete regions.**  A region whose female or male row misses TOTAL, one of the 17 classes
  or any way to get 85+ is dropped and named in the notes (none is, for 2022): a district with
  holes would make every count derived from it look smaller than it is.
* **Flags** (b break in series, e estimated, p provisional, ...) are kept in the ``flag`` column;
  a derived 85+ carries the union of the flags of the cells it was computed from.

District names are GISCO's Latin-script ``NAME_LATN``; the raw files hold no NUTS-2 names, so
``region_name`` is the NUTS-2 code.
"""
from __future__ import annotations

import csv
import functools
import io
from pathlib import Path

import geopandas as gpd
import numpy as np
import pandas as pd

from .geometry import read_boundary_file
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

TSV_NAME = "estat_demo_r_pjangrp3.tsv.gz"
NAMES_NAME = "nuts3_2021_names.csv"
BOUNDARY_NAME = "nuts3_2021_20M_4326.geojson"
TABLE_ID = "demo_r_pjangrp3"
DEFAULT_YEAR = 2022

LICENCE = "Eurostat reuse policy, CC BY 4.0"
BOUNDARY_LICENCE = "© EuroGeographics for the administrative boundaries"

#: Key dimensions the loader needs; ``freq`` and ``unit`` are checked when present.
KEY_DIMS = ("sex", "age", "geo")

#: The 17 closed five-year classes and their half-open bands [from, to).
FIVE_YEAR: dict[str, tuple[int, int]] = {"Y_LT5": (0, 5)} | {
    f"Y{a}-{a + 4}": (a, a + 5) for a in range(5, 85, 5)
}
OPEN_TOP = "Y_GE85"  # the 18th class, 85+, age_to NaN
OPEN_TOP_FROM = 85
AGE_CODES = (*FIVE_YEAR, "Y85-89", "Y_GE85", "Y_GE90", "UNK", "TOTAL")
SEX_CODES = {"F": "female", "M": "male", "T": "total"}

#: Eurostat country prefix -> (ISO 3166-1 alpha-2, English name).
COUNTRIES: dict[str, tuple[str, str]] = {
    "AL": ("AL", "Albania"),
    "AT": ("AT", "Austria"),
    "BE": ("BE", "Belgium"),
    "BG": ("BG", "Bulgaria"),
    "CH": ("CH", "Switzerland"),
    "CY": ("CY", "Cyprus"),
    "CZ": ("CZ", "Czechia"),
    "DE": ("DE", "Germany"),
    "DK": ("DK", "Denmark"),
    "EE": ("EE", "Estonia"),
    "EL": ("GR", "Greece"),
    "ES": ("ES", "Spain"),
    "FI": ("FI", "Finland"),
    "FR": ("FR", "France"),
    "HR": ("HR", "Croatia"),
    "HU": ("HU", "Hungary"),
    "IE": ("IE", "Ireland"),
    "IS": ("IS", "Iceland"),
    "IT": ("IT", "Italy"),
    "LI": ("LI", "Liechtenstein"),
    "LT": ("LT", "Lithuania"),
    "LU": ("LU", "Luxembourg"),
    "LV": ("LV", "Latvia"),
    "ME": ("ME", "Montenegro"),
    "MK": ("MK", "North Macedonia"),
    "MT": ("MT", "Malta"),
    "NL": ("NL", "Netherlands"),
    "NO": ("NO", "Norway"),
    "PL": ("PL", "Poland"),
    "PT": ("PT", "Portugal"),
    "RO": ("RO", "Romania"),
    "RS": ("RS", "Serbia"),
    "SE": ("SE", "Sweden"),
    "SI": ("SI", "Slovenia"),
    "SK": ("SK", "Slovakia"),
    "TR": ("TR", "Türkiye"),
    "UK": ("GB", "United Kingdom"),
}

FLAG_MEANINGS = {
    "b": N_("break in time series"),
    "c": N_("confidential"),
    "d": N_("definition differs"),
    "e": N_("estimated"),
    "f": N_("forecast"),
    "n": N_("not significant"),
    "p": N_("provisional"),
    "r": N_("revised"),
    "s": N_("Eurostat estimate"),
    "u": N_("low reliability"),
    "z": N_("not applicable"),
}

_CELL = r"^(?P<value>\d+(?:\.\d+)?)(?: +(?P<flag>[a-z]+))?$"
_MISSING = r"^:(?: +[a-z]+)?$"


# --------------------------------------------------------------------------- the TSV


def _fail_at(mask: pd.Series, lines: pd.Series, file: Path, problem) -> None:
    """Raise for the first row where ``mask`` holds; ``problem`` gets that row's index."""
    if mask.any():
        i = mask.to_numpy().nonzero()[0][0]
        raise LoaderError(file, int(lines.iloc[i]), problem(i))


def read_tsv(path: Path, year: int = DEFAULT_YEAR) -> pd.DataFrame:
    """The NUTS-3 rows of the SDMX-TSV for one year, as a long table.

    Columns: ``geo, sex, age`` (Eurostat codes), ``value`` (float, NaN for ``:``), ``flag``
    (string, NA when unflagged) and ``source_line`` (1-based line in the decompressed file).
    Every line is checked for its field count, key layout, known codes and uniqueness; the
    year's cells of the NUTS-3 rows must be a non-negative count with optional flags, or ``:``.
    """
    path = Path(path)
    text = read_text(path).replace("\r\n", "\n")
    lines = text.split("\n")
    while lines and not lines[-1].strip():
        lines.pop()
    header = [h.strip() for h in lines[0].split("\t")]
    key_name = header[0]
    dims = key_name.split("\\")[0].split(",")
    require_columns(header, [str(year)], path, 1)
    require_columns(dims, KEY_DIMS, path, 1)
    if len(lines) < 2:
        raise LoaderError(path, None, "no data lines after the header")
    col = header.index(str(year))

    body = pd.Series(lines[1:], dtype="string")
    line_no = pd.Series(np.arange(2, len(lines) + 1), index=body.index)
    n_fields = body.str.count("\t") + 1
    _fail_at(n_fields != len(header), line_no, path,
             lambda i: f"{n_fields.iloc[i]} tab-separated fields, but the header has {len(header)}")
    fields = pd.read_csv(
        io.StringIO("\n".join(lines[1:])), sep="\t", header=None, usecols=[0, col], dtype=str,
        na_filter=False, quoting=csv.QUOTE_NONE, skip_blank_lines=False, engine="c",
    )
    key, cell = fields[0], fields[col]
    n_parts = key.str.count(",") + 1
    _fail_at(n_parts != len(dims), line_no, path,
             lambda i: f"key {key.iloc[i]!r} does not have the {len(dims)} parts of {key_name!r}")
    _fail_at(key.duplicated(), line_no, path, lambda i: f"duplicate key {key.iloc[i]!r}")
    parts = key.str.split(",", expand=True)
    parts.columns = dims
    expected = {"sex": SEX_CODES, "age": AGE_CODES, "freq": ("A",), "unit": ("NR",)}
    for dim, allowed in expected.items():
        if dim in parts.columns:
            values = parts[dim]
            _fail_at(~values.isin(list(allowed)), line_no, path,
                     lambda i, d=dim, v=values: f"unknown {d} code {v.iloc[i]!r}")

    nuts3 = (parts["geo"].str.len() == 5).to_numpy()
    cell, lines3 = cell[nuts3].str.strip(), line_no[nuts3]
    parsed = cell.str.extract(_CELL)
    missing = cell.str.match(_MISSING)
    bad = parsed["value"].isna() & ~missing
    if bad.any():
        i = bad.to_numpy().nonzero()[0][0]
        raw, line = fields[col][nuts3].iloc[i], int(lines3.iloc[i])
        parse_count(raw, path, line, f"{year} count")  # raises for non-numbers and negatives
        raise LoaderError(path, line, f"{year} cell {raw!r} is not a count with optional flags, nor ':'")
    return pd.DataFrame({
        "geo": parts["geo"][nuts3].to_numpy(),
        "sex": parts["sex"][nuts3].to_numpy(),
        "age": parts["age"][nuts3].to_numpy(),
        "value": pd.to_numeric(parsed["value"]).to_numpy(dtype="float64"),
        "flag": parsed["flag"].astype("string").to_numpy(),
        LINE_COLUMN: lines3.to_numpy(),
    }).astype({"geo": "string", "sex": "string", "age": "string", "flag": "string"})


# --------------------------------------------------------------------------- NUTS 2021


def read_nuts_codes(path: Path) -> set[str]:
    """The NUTS 2021 level-3 codes, without the ``xxZZZ`` extra-regio ones."""
    table = pd.read_csv(io.StringIO(read_text(path)), sep=";", dtype=str, keep_default_na=False)
    require_columns(table.columns, ["nuts"], path, 1)
    codes = table["nuts"].str.strip()
    return set(codes[(codes.str.len() == 5) & ~codes.str.endswith("ZZZ")])


def read_boundaries(path: Path) -> gpd.GeoDataFrame:
    """GISCO NUTS-3 polygons: ``district_id``, ``district_name`` (NAME_LATN), ``geometry``."""
    gdf = read_boundary_file(path, "NUTS_ID", ("NAME_LATN",)).rename(columns={"NAME_LATN": "district_name"})
    gdf["district_name"] = gdf["district_name"].astype("string").str.strip()
    return gdf


# --------------------------------------------------------------------------- assembly


def _union_flags(frame: pd.DataFrame) -> pd.Series:
    """Per row, the sorted union of the flag letters in ``frame``'s columns (NA if none)."""
    joined = functools.reduce(lambda a, b: a + b, (frame[c].fillna("").astype(str) for c in frame.columns))
    letters = sorted(set("".join(joined.unique())))
    out = pd.Series("", index=frame.index, dtype=object)
    for letter in letters:
        out = out + np.where(joined.str.contains(letter, regex=False), letter, "")
    return out.replace("", pd.NA).astype("string")


def _check_sums(wide, lines, file: Path, complete: pd.Series) -> None:
    """Y_GE85 = Y85-89 + Y_GE90; classes + UNK = TOTAL; F + M = T.  Raises on a mismatch."""
    both = wide[["Y_GE85", "Y85-89", "Y_GE90"]].notna().all(axis=1)
    diff = (wide["Y_GE85"] - wide["Y85-89"] - wide["Y_GE90"]).abs() > 0.5
    bad = both & diff
    if bad.any():
        geo, sex = bad[bad].index[0]
        row = wide.loc[(geo, sex)]
        check_total(file, int(lines.loc[(geo, sex), "Y_GE85"]), f"{geo} {sex}: Y85-89 + Y_GE90 vs Y_GE85",
                    row["Y85-89"] + row["Y_GE90"], row["Y_GE85"])

    parts = wide[list(FIVE_YEAR)].sum(axis=1) + wide["top"] + wide["UNK"].fillna(0)
    bad = complete & ((parts - wide["TOTAL"]).abs() > 0.5)
    if bad.any():
        geo, sex = bad[bad].index[0]
        check_total(file, int(lines.loc[(geo, sex), "TOTAL"]), f"{geo} {sex}: age classes + UNK vs TOTAL",
                    parts.loc[(geo, sex)], wide.loc[(geo, sex), "TOTAL"])

    codes = [*FIVE_YEAR, "top", "Y85-89", "Y_GE85", "Y_GE90", "UNK", "TOTAL"]
    by_sex = {s: wide[codes].xs(s, level="sex") for s in ("F", "M", "T") if s in wide.index.get_level_values("sex")}
    if len(by_sex) < 3:
        return
    f, m, t = (by_sex[s].reindex(by_sex["T"].index) for s in ("F", "M", "T"))
    bad = (f + m - t).abs() > 0.5  # NaN anywhere compares False: only complete triples are checked
    if bad.to_numpy().any():
        geo = bad.index[bad.any(axis=1)][0]
        age = bad.columns[bad.loc[geo]][0]
        line_age = age
        if age == "top":
            line_age = "Y_GE85" if pd.notna(lines.loc[(geo, "T"), "Y_GE85"]) else "Y85-89"
        check_total(file, int(lines.loc[(geo, "T"), line_age]), f"{geo} {age}: F + M vs T",
                    f.loc[geo, age] + m.loc[geo, age], t.loc[geo, age])


def _build(long: pd.DataFrame, file: Path):
    """Wide per (region, sex): the 18 classes, the 85+ method, completeness, after the checks."""
    wide = long.pivot(index=["geo", "sex"], columns="age", values="value").reindex(columns=list(AGE_CODES))
    flags = long.pivot(index=["geo", "sex"], columns="age", values="flag").reindex(columns=list(AGE_CODES))
    lines = long.pivot(index=["geo", "sex"], columns="age", values=LINE_COLUMN).reindex(columns=list(AGE_CODES))
    five = wide[list(FIVE_YEAR)]
    complete17 = five.notna().all(axis=1)
    derived = wide["TOTAL"] - wide["UNK"].fillna(0) - five.sum(axis=1)
    has_ge85 = wide["Y_GE85"].notna()
    has_sum = ~has_ge85 & wide["Y85-89"].notna() & wide["Y_GE90"].notna()
    has_derived = ~has_ge85 & ~has_sum & wide["Y85-89"].notna() & wide["TOTAL"].notna() & complete17
    wide["method"] = np.select([has_ge85, has_sum, has_derived], ["Y_GE85", "sum", "derived"], "none")
    wide["top"] = np.select(
        [has_ge85, has_sum, has_derived],
        [wide["Y_GE85"], wide["Y85-89"] + wide["Y_GE90"], derived], np.nan,
    )
    too_small = has_derived & (derived < wide["Y85-89"] - 0.5)
    if too_small.any():
        geo, sex = too_small[too_small].index[0]
        raise LoaderError(
            file, int(lines.loc[(geo, sex), "TOTAL"]),
            f"{geo} {sex}: TOTAL - UNK - the classes below 85 is {derived.loc[(geo, sex)]:,.0f}, "
            f"less than Y85-89 ({wide.loc[(geo, sex), 'Y85-89']:,.0f})",
        )
    wide["complete"] = complete17 & wide["top"].notna() & wide["TOTAL"].notna()
    _check_sums(wide, lines, file, wide["complete"])

    top_flag = np.select(
        [has_ge85, has_sum, has_derived],
        [flags["Y_GE85"].fillna(""),
         _union_flags(flags[["Y85-89", "Y_GE90"]]).fillna(""),
         _union_flags(flags[[*FIVE_YEAR, "Y85-89", "UNK", "TOTAL"]]).fillna("")],
        "",
    )
    flags["top"] = pd.Series(top_flag, index=flags.index).replace("", pd.NA).astype("string")
    lines["top"] = np.where(has_ge85, lines["Y_GE85"], lines["Y85-89"])
    return wide, flags, lines


def _population_rows(wide, flags, lines, names: pd.Series) -> pd.DataFrame:
    """The schema's long table for the kept (region, F/M) rows of ``wide``."""
    classes = [*FIVE_YEAR, "top"]
    bands = [*FIVE_YEAR.values(), (OPEN_TOP_FROM, np.nan)]
    n, k = len(wide), len(classes)
    geo = wide.index.get_level_values("geo").to_numpy().astype(str)
    sex = wide.index.get_level_values("sex").map(SEX_CODES).to_numpy().astype(str)
    districts = np.repeat(geo, k)
    regions = np.array([g[:4] for g in geo]).repeat(k)
    return pd.DataFrame({
        "district_id": districts,
        "district_name": names.reindex(districts).to_numpy(),
        "region_id": regions,
        "region_name": regions,
        "sex": np.repeat(sex, k),
        "age_from": np.tile([float(b[0]) for b in bands], n),
        "age_to": np.tile([float(b[1]) for b in bands], n),
        "count": wide[classes].to_numpy(dtype="float64").ravel(),
        "filled": False,
        "flag": pd.array(flags[classes].to_numpy().ravel(), dtype="string"),
        LINE_COLUMN: lines[classes].to_numpy(dtype="int64").ravel(),
    })


def _codes_note(codes: list[str], template, **fields) -> Note:
    """A note naming codes (its field ``codes``), capped so that a long list stays readable in the interface."""
    shown = Join(tuple(codes[:30]))
    if len(codes) > 30:
        shown = Note(N_("{codes} and {more} more"), codes=shown, more=Num(len(codes) - 30))
    return Note(template, codes=shown, **fields)


def _flag_note(flags: pd.Series) -> str | None:
    """How many of a country's counts are flagged, and what the flags mean (None if none are)."""
    flagged = flags.dropna()
    if flagged.empty:
        return None
    counts = flagged.value_counts().sort_index()
    parts = Join(tuple(
        Join((code, " (", Join(tuple(Note(FLAG_MEANINGS[c]) if c in FLAG_MEANINGS else c for c in code), " + "),
              ") ", Num(n)), "")
        for code, n in counts.items()))
    return Note(N_("{flagged} of {counts} counts carry Eurostat flags: {flags}."), flagged=Num(len(flagged)),
                counts=Num(len(flags)), flags=parts)


def _sources(folder: Path, year: int) -> tuple[list[SourceFile], list[SourceFile]]:
    """Citable sources of the population table and of the boundaries."""
    ref = f"{year}-01-01"
    population = [
        SourceFile(
            folder / TSV_NAME, "Eurostat", TABLE_ID, ref, LICENCE,
            "Eurostat, Population on 1 January by age group, sex and NUTS 3 region (demo_r_pjangrp3), "
            "bulk download (SDMX-TSV). Source: Eurostat, demo_r_pjangrp3.",
        ),
        SourceFile(
            folder / NAMES_NAME, "Eurostat", "NUTS 2021", "2021-01-01", LICENCE,
            "Eurostat, NUTS 2021 classification: list of NUTS 3 regions.",
        ),
    ]
    boundaries = [
        SourceFile(
            folder / BOUNDARY_NAME, "Eurostat GISCO", "NUTS_RG_20M_2021_4326_LEVL_3", "2021-01-01",
            BOUNDARY_LICENCE,
            "Eurostat GISCO, NUTS 2021 regions, 1:20 million, EPSG:4326. "
            "© EuroGeographics for the administrative boundaries.",
        )
    ]
    return population, boundaries


def load(folder: Path, year: int = DEFAULT_YEAR) -> list[CountryData]:
    """One :class:`CountryData` per country with NUTS-3 data for ``year`` (see the module docstring)."""
    folder = Path(folder)
    tsv = folder / TSV_NAME
    long = read_tsv(tsv, year)
    nuts2021 = read_nuts_codes(folder / NAMES_NAME)
    shapes = read_boundaries(folder / BOUNDARY_NAME)

    long = long[~long["geo"].str.endswith("ZZZ")]
    valid = long["geo"].isin(nuts2021)
    country_of = long["geo"].str[:2]
    unknown = valid & ~country_of.isin(list(COUNTRIES))
    if unknown.any():
        row = long[unknown].iloc[0]
        raise LoaderError(tsv, int(row[LINE_COLUMN]), f"no country is known for the NUTS code {row['geo']}")

    notes: dict[str, list[str]] = {}
    other = long[~valid]
    other_total = other[(other["age"] == "TOTAL") & (other["sex"] == "T")].set_index("geo")["value"]
    for cc, codes in other.groupby(other["geo"].str[:2])["geo"]:
        codes = sorted(codes.unique())
        with_data = [c for c in codes if pd.notna(other_total.get(c))]
        without = [c for c in codes if c not in with_data]
        if with_data:
            people = other_total[with_data].sum()
            notes.setdefault(cc, []).append(_codes_note(
                with_data, Nn_("Dropped {n} code(s) that are not NUTS 2021 regions although they hold {people} people "
                               "in {year}: {codes}.",
                               "Dropped {n} code(s) that are not NUTS 2021 regions although they hold {people} people "
                               "in {year}: {codes}."),
                n=Num(len(with_data)), people=Num(people), year=str(year)))
        if without:
            notes.setdefault(cc, []).append(_codes_note(
                without, Nn_("Dropped {n} code(s) that are not NUTS 2021 regions (no {year} data): {codes}.",
                             "Dropped {n} code(s) that are not NUTS 2021 regions (no {year} data): {codes}."),
                n=Num(len(without)), year=str(year)))

    long = long[valid]
    has_data = long.groupby("geo")["value"].count()
    long = long[long["geo"].isin(has_data[has_data > 0].index)]
    wide, flags, lines = _build(long, tsv)

    fm = wide.index.get_level_values("sex").isin(["F", "M"])
    region_ok = wide.loc[fm, "complete"].groupby(level="geo").agg(["all", "size"])
    keep_geo = region_ok.index[region_ok["all"] & (region_ok["size"] == 2)]
    incomplete = sorted(set(region_ok.index) - set(keep_geo))
    for cc in sorted({g[:2] for g in incomplete}):
        notes.setdefault(cc, []).append(_codes_note(
            [g for g in incomplete if g[:2] == cc],
            N_("Dropped NUTS-3 region(s) with incomplete {year} data (a sex, TOTAL or an age class is ':'): {codes}."),
            year=str(year)))

    no_shape = sorted(set(keep_geo) - set(shapes["district_id"]))
    if no_shape:
        raise LoaderError(folder / BOUNDARY_NAME, None, f"no polygon for NUTS-3 region(s) {', '.join(no_shape[:10])}")
    names = shapes.set_index("district_id")["district_name"]
    kept = wide.index.get_level_values("geo").isin(keep_geo) & fm
    rows = _population_rows(wide[kept], flags[kept], lines[kept], names)
    population = validate_population(rows, tsv)

    pop_sources, boundary_sources = _sources(folder, year)
    result = []
    f_m = wide[kept]
    pop_country = population["district_id"].str[:2]
    for cc in sorted(set(pop_country)):
        iso, name = COUNTRIES[cc]
        table = population[pop_country == cc].reset_index(drop=True)
        sub = f_m[f_m.index.get_level_values("geo").str[:2] == cc]
        districts = table["district_id"].unique()
        unk = sub["UNK"]
        unk_text = (Note(N_("UNK (unknown age) is not published")) if unk.isna().all()
                    else Note(N_("UNK (unknown age): {people} people, left out as they fit no age group"),
                              people=Num(unk.sum())))
        country_notes = [
            Note(Nn_("Population on 1 January {year}: {people} in {n} NUTS-3 region (Eurostat {table}, NUTS 2021); "
                     "{unknown}.",
                     "Population on 1 January {year}: {people} in {n} NUTS-3 regions (Eurostat {table}, NUTS 2021); "
                     "{unknown}."),
                 year=str(year), people=Num(table["count"].sum()), n=Num(len(districts)), table=TABLE_ID,
                 unknown=unk_text)
        ]
        methods = sub["method"].value_counts()
        if methods.get("sum", 0):
            country_notes.append(Note(N_("No Y_GE85 count is published for {year}: 85+ is Y85-89 + Y_GE90."),
                                      year=str(year)))
        if methods.get("derived", 0):
            d = sub[sub["method"] == "derived"]
            extra = (d["top"] - d["Y85-89"]).sum()
            country_notes.append(Note(
                N_("No Y_GE85 or Y_GE90 count is published for {year}: 85+ is derived as TOTAL - UNK - the 17 classes "
                   "below 85. It exceeds Y85-89 by {people} people: the 90+, plus anyone of unknown age, as UNK is "
                   "not published.") if d["UNK"].isna().any() else
                N_("No Y_GE85 or Y_GE90 count is published for {year}: 85+ is derived as TOTAL - UNK - the 17 classes "
                   "below 85. It exceeds Y85-89 by {people} people: the 90+."),
                year=str(year), people=Num(extra)))
        flag_note = _flag_note(table["flag"])
        if flag_note:
            country_notes.append(flag_note)
        if cc == "DE":
            country_notes.append(Note(N_("Eurostat's German figures are on the Zensus 2011 basis; Destatis publishes "
                                         "newer ones on the Zensus 2022 basis.")))
        country_notes.append(Note(N_("The raw files hold no NUTS-2 names: regions are shown by their NUTS-2 code.")))
        country_notes.extend(notes.get(cc, []))
        boundaries = shapes[shapes["district_id"].isin(districts)][["district_id", "geometry"]].reset_index(drop=True)
        result.append(CountryData(
            code=iso,
            name=name,
            population=table,
            sources=pop_sources,
            reference_date=f"{year}-01-01",
            district_label="NUTS-3 region",
            region_label="NUTS-2 region",
            boundaries=boundaries,
            boundary_sources=boundary_sources,
            notes=country_notes,
        ))
    return result
