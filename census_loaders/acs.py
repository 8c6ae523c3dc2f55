"""ACS subject table S0101 "Age and Sex", exactly as the Census Bureau's data portal exports it.

The portal's layout: line 1 column codes, line 2 labels, every field quoted, special values
such as ``(X)`` and ``*****``, and an empty last field.  :func:`read_s0101` reads it for any
geography the user brings (ZCTAs, counties, states, the nation), picking the 18 age groups of
the male and female columns by their labels, because column numbers have moved between
vintages and the table also carries overlapping "selected age categories".

:func:`load` turns the shipped file (ZCTAs of Maine and New Hampshire, 2016–2020) into the
data set ``US-ZCTA``; :func:`load_county_s0101` reads a county-level file and completes states
it covers only in part (SPEC §1.4, :mod:`census_loaders.fill`).
"""
from __future__ import annotations

import csv
import io
import re
from pathlib import Path

import numpy as np
import pandas as pd

from .fill import fill_missing_districts
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

PUBLIC_DOMAIN = "Public domain (work of the U.S. federal government)"

#: The 18 age groups of S0101 (2017 onwards), label text → half-open [from, to).
AGE_LABELS: dict[str, tuple[float, float]] = {
    "Under 5 years": (0.0, 5.0),
    **{f"{a} to {a + 4} years": (float(a), float(a + 5)) for a in range(5, 85, 5)},
    "85 years and over": (85.0, np.nan),
}
_SEX_LABEL = {"male": "Male", "female": "Female"}
TOTAL_LABEL = "Estimate!!Total!!Total population"

#: GEO_ID prefixes (summary levels) → level name and the length of the code that follows.
#: ``860Z200US`` is how ZCTAs are written from the 2020 ZCTA vintage on.
GEO_LEVELS: dict[str, tuple[str, int]] = {
    "0100000US": ("nation", 0),
    "0400000US": ("state", 2),
    "0500000US": ("county", 5),
    "8600000US": ("zcta", 5),
    "860Z200US": ("zcta", 5),
}
_GEO_RE = re.compile(r"^(\d{7}US|860Z200US)(\d*)$")

#: Margin-of-error symbols: ``*****`` = controlled estimate, no sampling error (0); the others
#: mean "could not be computed / not applicable" (NaN).
MOE_SYMBOLS = {"*****": 0.0, "**": np.nan, "***": np.nan, "-": np.nan, "N": np.nan, "(X)": np.nan}

#: ZIP prefixes → state (FIPS, name).  USPS gives 030–038 to New Hampshire and 039–049 to Maine
#: (039xx is southern York County, Maine), so "03xxx = New Hampshire" would misplace 11 ZCTAs.
ZIP_STATES = {
    **{f"{p:03d}": ("33", "New Hampshire") for p in range(30, 39)},
    **{f"{p:03d}": ("23", "Maine") for p in range(39, 50)},
}


# --------------------------------------------------------------------------- reading


def _read_metadata(path: Path) -> dict[str, tuple[str, int]]:
    """Column code → (label, line) from a ``…-Column-Metadata.csv`` file."""
    rows = list(csv.reader(io.StringIO(read_text(path))))
    require_columns(rows[0] if rows else [], ["Column Name", "Label"], path, 1)
    return {r[0]: (r[1], i) for i, r in enumerate(rows[1:], start=2) if len(r) >= 2}


def _find_columns(codes: list[str], labels: list[str], where: Path, line: int) -> dict:
    """Locate total, sex totals and the 18 age groups per sex (estimate and margin) by label."""
    index = {label: i for i, label in enumerate(labels) if label}
    found: dict = {"total": None, "sex": {}, "age": {}}

    def col(label: str) -> int | None:
        return index.get(label)

    found["total"] = col(TOTAL_LABEL)
    missing = [] if found["total"] is not None else [TOTAL_LABEL]
    for sex, word in _SEX_LABEL.items():
        est = col(f"Estimate!!{word}!!Total population")
        if est is None:
            missing.append(f"Estimate!!{word}!!Total population")
        found["sex"][sex] = est
        for age_label, band in AGE_LABELS.items():
            e = col(f"Estimate!!{word}!!Total population!!AGE!!{age_label}")
            m = col(f"Margin of Error!!{word}!!Total population!!AGE!!{age_label}")
            if e is None:
                missing.append(f"Estimate!!{word}!!Total population!!AGE!!{age_label}")
            found["age"][(sex, band)] = (e, m)
    if missing:
        more = f" and {len(missing) - 1} more" if len(missing) > 1 else ""
        raise LoaderError(where, line, f"no column labelled {missing[0]!r}{more} "
                                       "(is this ACS table S0101 \"Age and Sex\", 2017 or later?)")
    for i in [found["total"], *found["sex"].values(), *(e for e, _ in found["age"].values())]:
        if not codes[i].endswith("E"):
            raise LoaderError(where, line, f"column {codes[i]!r} labelled {labels[i]!r} is not an estimate (…E)")
    return found


def read_s0101(data_path: Path, metadata_path: Path | None = None) -> pd.DataFrame:
    """An S0101 data file as a long table: one row per geography × sex × age group.

    Columns: ``geo_id``, ``level`` (nation / state / county / zcta), ``code`` (the FIPS or ZCTA
    code after the summary-level prefix, "" for the nation), ``name``, ``sex``, ``age_from``,
    ``age_to``, ``count``, ``moe`` (90 % margin of error; 0 for a controlled estimate, NaN when
    not computable) and ``source_line``.  Labels come from line 2, or from the metadata file
    when line 2 is already data; when both exist they must agree.  Every row must satisfy
    male + female = total and, per sex, age groups = sex total, within rounding (½ per part).
    The portal's export can list a ZCTA twice (once per state selection): identical repeats
    are dropped and listed as (geo_id, line, first line) in ``result.attrs["repeated_rows"]``;
    any other repeat raises.
    """
    data_path = Path(data_path)
    text = read_text(data_path)
    reader = csv.reader(io.StringIO(text))
    try:
        rows = [(reader.line_num, r) for r in reader if r]
    except csv.Error as exc:
        raise LoaderError(data_path, reader.line_num, f"not a well-formed CSV file ({exc})") from None
    codes = rows[0][1]
    require_columns(codes, ["GEO_ID", "NAME"], data_path, 1)
    body = rows[1:]
    labels = None
    if body and not _GEO_RE.match(body[0][1][0]):
        labels = body[0][1]
        if len(labels) != len(codes):
            raise LoaderError(data_path, body[0][0], f"{len(labels)} labels for {len(codes)} columns")
        body = body[1:]
    label_where, label_line = data_path, 2
    if metadata_path is not None:
        meta = _read_metadata(Path(metadata_path))
        meta_labels = [meta.get(c, ("", 0))[0] for c in codes]
        if labels is not None:
            for code, own in zip(codes, labels):
                if code in meta and meta[code][0] != own:
                    raise LoaderError(metadata_path, meta[code][1], f"label of {code} is {meta[code][0]!r} "
                                                                    f"but the data file says {own!r}")
        else:
            labels, label_where, label_line = meta_labels, Path(metadata_path), None
    if labels is None:
        raise LoaderError(data_path, 2, "line 2 is not the label line and no metadata file was given")
    cols = _find_columns(codes, labels, label_where, label_line)
    if not body:
        raise LoaderError(data_path, None, "no geography rows were found")

    geo_col = codes.index("GEO_ID")
    name_col = codes.index("NAME")
    seen: dict[str, tuple[int, list[str]]] = {}
    repeated: list[tuple[str, int, int]] = []
    records = []
    for line, r in body:
        if len(r) != len(codes):
            hint = " (is the delimiter wrong?)" if len(r) == 1 else ""
            raise LoaderError(data_path, line, f"{len(r)} fields, but the header has {len(codes)}{hint}")
        geo_id = r[geo_col].strip()
        m = _GEO_RE.match(geo_id)
        level = GEO_LEVELS.get(m.group(1)) if m else None
        if level is None or len(m.group(2)) != level[1]:
            raise LoaderError(data_path, line, f"unknown or garbled geography code GEO_ID {geo_id!r}")
        if geo_id in seen:
            first_line, first = seen[geo_id]
            # The portal lists a ZCTA under every state it touches: an identical repeat is
            # that listing, not a second area.  Anything else is a corrupt file.
            if level[0] == "zcta" and r == first:
                repeated.append((geo_id, line, first_line))
                continue
            raise LoaderError(data_path, line, f"duplicate row for {geo_id} (first on line {first_line})")
        seen[geo_id] = (line, r)
        records.append((line, r, geo_id, level[0], m.group(2)))

    def number(line: int, raw: str, code: str) -> float:
        return parse_count(raw, data_path, line, what=f"{code} estimate")

    def margin(line: int, raw: str, code: str) -> float:
        raw = raw.strip()
        if raw in MOE_SYMBOLS:
            return MOE_SYMBOLS[raw]
        return parse_count(raw, data_path, line, what=f"{code} margin of error")

    out = []
    for line, r, geo_id, level, code in records:
        total = number(line, r[cols["total"]], codes[cols["total"]])
        sex_totals = {s: number(line, r[i], codes[i]) for s, i in cols["sex"].items()}
        check_total(data_path, line, f"{geo_id}: male + female", sum(sex_totals.values()), total, tol=1.0)
        for sex, sex_total in sex_totals.items():
            parts = []
            for (s, (a, b)), (e, mo) in cols["age"].items():
                if s != sex:
                    continue
                value = number(line, r[e], codes[e])
                parts.append(value)
                out.append((geo_id, level, code, r[name_col], sex, a, b, value,
                            margin(line, r[mo], codes[mo]) if mo is not None else np.nan, line))
            if abs(sum(parts) - 100) < 1 and abs(sum(parts) - sex_total) > 1:
                raise LoaderError(data_path, line, f"{geo_id}: the {sex} age groups sum to about 100: "
                                                   "they look like percentages (S0101 before 2017 gives "
                                                   "percentages), not counts")
            check_total(data_path, line, f"{geo_id}: {sex} age groups", sum(parts), sex_total,
                        tol=0.5 * len(parts))
    df = pd.DataFrame(out, columns=["geo_id", "level", "code", "name", "sex", "age_from", "age_to",
                                    "count", "moe", LINE_COLUMN])
    for c in ("geo_id", "level", "code", "name", "sex"):
        df[c] = df[c].astype("string")
    df.attrs["repeated_rows"] = repeated
    return df


# --------------------------------------------------------------------------- ZCTA data set


def _period(data_path: Path) -> tuple[int, int]:
    """(first, last) survey year from a portal file name such as ``ACSST5Y2020.S0101-Data.csv``."""
    m = re.match(r"ACSST(\d)Y(\d{4})\.S0101", data_path.name)
    if not m:
        raise LoaderError(data_path, None, "file name does not say the ACS period "
                                           "(expected ACSST<n>Y<year>.S0101-Data.csv)")
    span, year = int(m.group(1)), int(m.group(2))
    return year - span + 1, year


def zcta_population(table: pd.DataFrame, data_path: Path) -> pd.DataFrame:
    """The ZCTA rows of :func:`read_s0101` in the schema, with the state from the ZIP prefix.

    ZCTAs with an estimated population of 0 are kept (all counts 0): a user can still look up
    that ZIP code and learn that the survey placed nobody there.
    """
    z = table[table["level"] == "zcta"].copy()
    if z.empty:
        raise LoaderError(data_path, None, "no ZCTA rows (GEO_ID 8600000US…) were found")
    prefix = z["code"].str[:3]
    outside = ~prefix.isin(list(ZIP_STATES))
    if outside.any():
        row = z.loc[outside].iloc[0]
        raise LoaderError(data_path, int(row[LINE_COLUMN]),
                          f"ZCTA {row['code']} is outside Maine and New Hampshire (ZIP prefixes 030–049); "
                          "its state cannot be derived")
    z["region_id"] = prefix.map({p: s[0] for p, s in ZIP_STATES.items()})
    z["region_name"] = prefix.map({p: s[1] for p, s in ZIP_STATES.items()})
    z = z.rename(columns={"code": "district_id", "name": "district_name"})
    z["filled"] = False
    return validate_population(z, data_path)


def load(folder: Path) -> list[CountryData]:
    """The data set "US-ZCTA": ACS 5-year S0101 for the ZCTAs of Maine and New Hampshire."""
    folder = Path(folder)
    found = sorted(folder.glob("ACSST*.S0101-Data.csv"))
    if len(found) != 1:
        raise LoaderError(folder, None, f"expected one ACSST…S0101-Data.csv file, found {len(found)}")
    data_path = found[0]
    meta = data_path.with_name(data_path.name.replace("-Data.csv", "-Column-Metadata.csv"))
    metadata_path = meta if meta.exists() else None
    first, last = _period(data_path)
    table = read_s0101(data_path, metadata_path)
    population = zcta_population(table, data_path)

    states = sorted(population["region_name"].unique())
    where = " and ".join(states)
    period = f"{first}–{last}" if first != last else str(last)
    zero = population.groupby("district_id")["count"].sum()
    zero = sorted(zero[zero == 0].index)
    notes = [
        Note(N_("American Community Survey {years}-year estimates for {period}: survey estimates with 90 % margins of "
                "error (kept with each count), describing the period, not a date."),
             years=str(last - first + 1), period=period),
        Note(N_("ZIP Code Tabulation Areas (ZCTAs) approximate ZIP code delivery areas and do not follow county or "
                "state lines exactly; each is assigned to a state by its ZIP prefix (030–038 New Hampshire, 039–049 "
                "Maine).")),
    ]
    for geo_id, line, first_line in table.attrs.get("repeated_rows", []):
        code = geo_id[-5:]
        state = population.loc[population["district_id"] == code, "region_name"].iloc[0]
        notes.append(Note(N_("ZCTA {code} appears twice in the source file as identical rows (lines {first} and "
                             "{second}); it is counted once, under {state} (by its ZIP prefix)."),
                          code=code, first=str(first_line), second=str(line), state=state))
    if zero:
        notes.append(Note(Nn_("{n} ZCTA has an estimated population of 0 and is kept with zero counts: {codes}.",
                              "{n} ZCTAs have an estimated population of 0 and are kept with zero counts: {codes}."),
                          n=Num(len(zero)), codes=Join(tuple(zero))))
    citation = f"U.S. Census Bureau, {period} American Community Survey {last - first + 1}-Year Estimates, Table S0101"
    table_id = data_path.name.split("-")[0]
    sources = [SourceFile(data_path, "U.S. Census Bureau, American Community Survey", table_id,
                          f"{first}/{last}", PUBLIC_DOMAIN, citation)]
    if metadata_path is not None:
        sources.append(SourceFile(metadata_path, "U.S. Census Bureau, American Community Survey",
                                  f"{table_id} column metadata", f"{first}/{last}", PUBLIC_DOMAIN, citation))
    return [CountryData(
        code="US-ZCTA",
        name=f"United States — ZIP code areas of {where} (ACS {period})",
        population=population,
        sources=sources,
        reference_date=f"{first}/{last}",
        district_label="ZIP code area (ZCTA)",
        region_label="state",
        body_prior_country="US",
        boundaries=None,
        boundary_note=Note(N_("No ZCTA boundary file is shipped, so the map is not available for ZIP code areas.")),
        notes=notes,
        part_of_country=f"the ZIP code areas of {where}",
    )]


# --------------------------------------------------------------------------- county level


def load_county_s0101(data_path: Path, all_counties: pd.DataFrame,
                      metadata_path: Path | None = None) -> pd.DataFrame:
    """A county-level S0101 file as a population table, states it covers in part completed.

    ``all_counties`` lists every county (``district_id``, ``district_name``, ``region_id``,
    ``region_name``; the US population table will do) and supplies names, so ids join the PEP
    map.  For a state with some counties in the file, the file must also hold that state's row
    (0400000USss): the fill spreads the state total minus the covered counties evenly over the
    missing counties (SPEC §1.4).  States with neither county nor state rows are not returned;
    a nation row is ignored.
    Clamped negative remainders are listed in ``result.attrs["fill_warnings"]``.
    """
    data_path = Path(data_path)
    table = read_s0101(data_path, metadata_path)
    other = ~table["level"].isin(["nation", "state", "county"])
    if other.any():
        row = table.loc[other].iloc[0]
        raise LoaderError(data_path, int(row[LINE_COLUMN]),
                          f"{row['geo_id']} is a {row['level']}, not a county or state")
    districts = all_counties[["district_id", "district_name", "region_id", "region_name"]].drop_duplicates()
    known = districts.set_index("district_id")

    counties = table[table["level"] == "county"].rename(columns={"code": "district_id"})
    unknown = ~counties["district_id"].isin(known.index)
    if unknown.any():
        row = counties.loc[unknown].iloc[0]
        raise LoaderError(data_path, int(row[LINE_COLUMN]),
                          f"county {row['district_id']} ({row['name']}) is not in the county list")
    counties = counties.drop(columns=["name"]).merge(districts, on="district_id", how="left")
    counties["filled"] = False

    states = table[table["level"] == "state"].rename(columns={"code": "region_id"})
    state_names = districts.drop_duplicates("region_id").set_index("region_id")["region_name"]
    unknown = ~states["region_id"].isin(state_names.index)
    if unknown.any():
        row = states.loc[unknown].iloc[0]
        raise LoaderError(data_path, int(row[LINE_COLUMN]), f"state {row['region_id']} has no counties in the list")

    n_all = districts.groupby("region_id")["district_id"].nunique()
    n_cov = counties.groupby("region_id")["district_id"].nunique()
    for region_id, n in n_cov.items():
        if n < n_all[region_id] and region_id not in set(states["region_id"]):
            line = int(counties.loc[counties["region_id"] == region_id, LINE_COLUMN].iloc[0])
            raise LoaderError(data_path, line,
                              f"state {region_id} ({state_names[region_id]}): the file covers {n} of its "
                              f"{n_all[region_id]} counties but has no state row to fill the rest from")

    filled = fill_missing_districts(counties, states[["region_id", "sex", "age_from", "age_to", "count"]],
                                    districts[districts["region_id"].isin(set(states["region_id"]) | set(n_cov.index))])
    warnings_ = filled.attrs.get("fill_warnings", [])
    out = validate_population(filled, data_path)
    out.attrs["fill_warnings"] = list(warnings_)
    return out
