"""Germany: population by Kreis × sex × 17 age groups from Destatis (EVAS 12411).

Two published tables are read as they are (see ``data/raw/de/PROVENANCE.md``):

* Regionalstatistik ``12411-02-03-4`` (31.12.2023 and 31.12.2024, Zensus 2022 basis),
  a UTF-8 extract with Germany, Land, Regierungsbezirk and Kreis rows and totals —
  the current data set;
* GENESIS-Online ``12411-0018`` (31.12.2015–2020, Zensus 2011 basis), the raw
  latin-1 table export with title, header and footer lines, and no totals.

Every published total is checked while parsing (ages → Insgesamt, male + female →
total, Kreise → Land → Germany), so a damaged file fails with a :class:`LoaderError`
naming the file and line instead of silently producing a wrong country.
"""
from __future__ import annotations

import csv
import io
import re
from pathlib import Path

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
    parse_count,
    read_text,
    require_columns,
    validate_population,
)

REGIONALSTATISTIK_FILE = "12411-02-03-4_kreise_2023_2024_clean.csv"
GENESIS_FILE = "12411-0018_kreise_2015-2020_genesis_raw.csv"
BOUNDARY_FILE = "vg5000_2021-01-01_kreise_400_eisenach_merged.geojson"
#: Before 01.07.2021 Eisenach (16056) was its own Kreis; this file still has it.
BOUNDARY_FILE_401 = "vg5000_2021-01-01_kreise_401.geojson"

REGIONALSTATISTIK_DATES = ("2023-12-31", "2024-12-31")
GENESIS_DATES = tuple(f"{y}-12-31" for y in range(2015, 2021))
DEFAULT_DATE = "2024-12-31"

#: The 17 published age classes, in publication order, as half-open bands.
AGE_GROUPS: tuple[tuple[str, float, float], ...] = (
    ("unter 3 Jahre", 0, 3),
    ("3 bis unter 6 Jahre", 3, 6),
    ("6 bis unter 10 Jahre", 6, 10),
    ("10 bis unter 15 Jahre", 10, 15),
    ("15 bis unter 18 Jahre", 15, 18),
    ("18 bis unter 20 Jahre", 18, 20),
    ("20 bis unter 25 Jahre", 20, 25),
    ("25 bis unter 30 Jahre", 25, 30),
    ("30 bis unter 35 Jahre", 30, 35),
    ("35 bis unter 40 Jahre", 35, 40),
    ("40 bis unter 45 Jahre", 40, 45),
    ("45 bis unter 50 Jahre", 45, 50),
    ("50 bis unter 55 Jahre", 50, 55),
    ("55 bis unter 60 Jahre", 55, 60),
    ("60 bis unter 65 Jahre", 60, 65),
    ("65 bis unter 75 Jahre", 65, 75),
    ("75 Jahre und mehr", 75, np.nan),
)
AGE_LABELS = tuple(label for label, _, _ in AGE_GROUPS)
TOTAL_LABEL = "Insgesamt"

#: Land names, for the GENESIS table which has Kreis rows only.
LAENDER = {
    "01": "Schleswig-Holstein", "02": "Hamburg", "03": "Niedersachsen", "04": "Bremen",
    "05": "Nordrhein-Westfalen", "06": "Hessen", "07": "Rheinland-Pfalz",
    "08": "Baden-Württemberg", "09": "Bayern", "10": "Saarland", "11": "Berlin",
    "12": "Brandenburg", "13": "Mecklenburg-Vorpommern", "14": "Sachsen",
    "15": "Sachsen-Anhalt", "16": "Thüringen",
}
#: City-states that Regionalstatistik publishes only as a Land row (2-digit code).
CITY_STATES = ("02", "11")

#: GENESIS special characters. "-" means "nothing there" (exactly zero); the others
#: mean the value is unknown, secret, not yet available or locked.
ZERO_MARKER = "-"
UNKNOWN_MARKERS = (".", "...", "x", "/")

REGIONALSTATISTIK_COLUMNS = (
    "jahr", "region_code", "region", "ebene", "bundesland_code",
    "altersgruppe", "insgesamt", "maennlich", "weiblich",
)
_VALUE_COLUMNS = ("insgesamt", "maennlich", "weiblich")
_LEVEL_CODE = {"DE": re.compile(r"DG"), "BL": re.compile(r"\d{2}"), "RB": re.compile(r"\d{3}"), "KR": re.compile(r"\d{5}")}

DL_DE_BY_2_0 = "Datenlizenz Deutschland – Namensnennung – Version 2.0 (dl-de/by-2-0), https://www.govdata.de/dl-de/by-2-0"


# --------------------------------------------------------------------------- helpers


def _check_date(date: str, allowed: tuple[str, ...], file: Path) -> str:
    if date not in allowed:
        raise LoaderError(file, None, f"no data for reference date {date!r}; this file has {', '.join(allowed)}")
    return date


def _cell(text: str, file: Path, line: int, what: str) -> float | None:
    """A published cell: a count, ``None`` when empty, 0 for "-" ("nothing there").

    Whether a row of "-" means a district that no longer exists is decided by the
    caller, which sees the whole row or district.
    """
    s = text.strip()
    if s == "":
        return None
    if s == ZERO_MARKER:
        return 0.0
    if s in UNKNOWN_MARKERS:
        raise LoaderError(file, line, f"{what} is not available (marker {s!r}); a complete table is needed")
    return parse_count(s, file, line, what)


# --------------------------------------------------------------------------- Regionalstatistik


def read_regionalstatistik(path: Path, date: str = DEFAULT_DATE) -> pd.DataFrame:
    """Parse table 12411-02-03-4 for one reference date into the validated schema.

    Returns 400 Kreise × 2 sexes × 17 age groups with a ``source_line`` column
    dropped by validation; every published total in the file is checked first.
    """
    path = Path(path)
    _check_date(date, REGIONALSTATISTIK_DATES, path)
    year = date[:4]
    text = read_text(path, "utf-8")
    reader = csv.reader(io.StringIO(text), delimiter=";")
    try:
        header = [h.strip() for h in next(reader)]
    except StopIteration:
        raise LoaderError(path, None, "file is empty") from None
    require_columns(header, REGIONALSTATISTIK_COLUMNS, path, 1)
    idx = {c: header.index(c) for c in REGIONALSTATISTIK_COLUMNS}

    records = []
    for fields in reader:
        line = reader.line_num
        if not any(f.strip() for f in fields):
            continue
        if len(fields) != len(header):
            raise LoaderError(path, line, f"expected {len(header)} fields, found {len(fields)} (truncated or damaged line?)")
        get = {c: fields[i].strip() for c, i in idx.items()}
        if not re.fullmatch(r"\d{4}", get["jahr"]):
            raise LoaderError(path, line, f"year {get['jahr']!r} is not a year")
        if get["jahr"] != year:
            continue
        level = get["ebene"]
        if level not in _LEVEL_CODE:
            raise LoaderError(path, line, f"unknown level (ebene) {level!r}")
        if level == "RB":  # Regierungsbezirke are not used and not needed for any check
            continue
        code = get["region_code"]
        if not _LEVEL_CODE[level].fullmatch(code):
            raise LoaderError(path, line, f"region code {code!r} is not a valid {level} code")
        land = get["bundesland_code"]
        if level == "DE":
            if land != "DG":
                raise LoaderError(path, line, f"Germany row has Land code {land!r}")
        elif land not in LAENDER or code[:2] != land:
            raise LoaderError(path, line, f"region code {code!r} does not belong to Land code {land!r}")
        label = get["altersgruppe"]
        if label not in AGE_LABELS and label != TOTAL_LABEL:
            raise LoaderError(path, line, f"unknown age group {label!r}")
        values = [_cell(get[c], path, line, f"{c} of {code} ({label})") for c in _VALUE_COLUMNS]
        dashes = sum(get[c] == ZERO_MARKER for c in _VALUE_COLUMNS)
        records.append((line, level, code, get["region"], land, label, dashes, *values))

    df = pd.DataFrame.from_records(
        records, columns=["line", "level", "code", "name", "land", "label", "dashes", *_VALUE_COLUMNS]
    )
    if df.empty:
        raise LoaderError(path, None, f"no rows for {year} were found")
    for c in _VALUE_COLUMNS:
        df[c] = df[c].astype("float64")  # None → NaN
    df = _check_regionalstatistik(df, path, year)
    return _regionalstatistik_to_schema(df, path)


def _check_regionalstatistik(df: pd.DataFrame, path: Path, year: str) -> pd.DataFrame:
    """All structural and arithmetic checks; returns the units that have values."""
    dup = df.duplicated(["level", "code", "label"])
    if dup.any():
        r = df.loc[dup].iloc[0]
        raise LoaderError(path, int(r["line"]), f"duplicate row for {r['code']} ({r['name']}), {r['label']!r}, {year}")
    names = df.groupby(["level", "code"])["name"].transform("first")
    bad = df["name"] != names
    if bad.any():
        r = df.loc[bad].iloc[0]
        raise LoaderError(path, int(r["line"]), f"region {r['code']} is named both {names[bad].iloc[0]!r} and {r['name']!r}")
    n_rows = df.groupby(["level", "code"])["label"].transform("size")
    short = n_rows != len(AGE_LABELS) + 1
    if short.any():
        r = df.loc[short].iloc[0]
        have = set(df.loc[(df["level"] == r["level"]) & (df["code"] == r["code"]), "label"])
        missing = [lbl for lbl in (*AGE_LABELS, TOTAL_LABEL) if lbl not in have]
        raise LoaderError(
            path, int(r["line"]),
            f"{r['code']} ({r['name']}) has {int(n_rows[short].iloc[0])} of {len(AGE_LABELS) + 1} rows for {year}; "
            f"missing {', '.join(map(repr, missing))} (truncated file?)",
        )
    # A unit whose cells are all empty or "-" did not exist on this date (historic Kreis);
    # otherwise "-" is a published zero and an empty cell is an error.
    empty = df[list(_VALUE_COLUMNS)].isna()
    n_absent = (empty.sum(axis=1) + df["dashes"]).groupby([df["level"], df["code"]]).transform("sum")
    historic = n_absent == 3 * (len(AGE_LABELS) + 1)
    partial = ~historic & empty.any(axis=1)
    if partial.any():
        r = df.loc[partial].iloc[0]
        raise LoaderError(path, int(r["line"]), f"value missing for {r['code']} ({r['name']}) while its other cells have values")
    if (historic & (df["level"] != "KR")).any():
        r = df.loc[historic & (df["level"] != "KR")].iloc[0]
        raise LoaderError(path, int(r["line"]), f"{r['level']} row {r['code']} ({r['name']}) has no values")
    df = df.loc[~historic].reset_index(drop=True)
    for lvl, what in (("DE", "the Germany (DG) total"), ("BL", "Land rows")):
        if not (df["level"] == lvl).any():
            raise LoaderError(path, None, f"{what} for {year} are missing")

    # male + female = total, on every row
    mf = df["maennlich"] + df["weiblich"]
    bad = (mf - df["insgesamt"]).abs() > 0.5
    if bad.any():
        r = df.loc[bad].iloc[0]
        check_total(path, int(r["line"]), f"{r['code']} ({r['name']}), {r['label']}: male + female", mf[bad].iloc[0], r["insgesamt"])

    # the 17 age groups sum to "Insgesamt", per unit and column
    ages = df[df["label"] != TOTAL_LABEL].groupby(["level", "code"])[list(_VALUE_COLUMNS)].sum()
    totals = df[df["label"] == TOTAL_LABEL].set_index(["level", "code"])
    for col in _VALUE_COLUMNS:
        diff = (ages[col] - totals[col].reindex(ages.index)).abs() > 0.5
        if diff.any():
            key = diff[diff].index[0]
            r = totals.loc[key]
            check_total(path, int(r["line"]), f"{key[1]} ({r['name']}), {col}: the {len(AGE_LABELS)} age groups",
                        ages.loc[key, col], r[col])

    districts = _district_rows(df)
    # Kreise sum to their Land, Länder (via their Kreise) sum to Germany, per age group and column
    lands = df[df["level"] == "BL"].set_index(["code", "label"])
    by_land = districts.groupby(["land", "label"])[list(_VALUE_COLUMNS)].sum()
    by_land.index = by_land.index.set_names(["code", "label"])
    germany = df[df["level"] == "DE"].set_index("label")
    by_label = districts.groupby("label")[list(_VALUE_COLUMNS)].sum()
    orphan = by_land.index.difference(lands.index)
    if len(orphan):
        raise LoaderError(path, None, f"Kreise of Land {orphan[0][0]} have no Land row")
    for col in _VALUE_COLUMNS:
        parts = by_land[col].reindex(lands.index, fill_value=0.0)
        diff = (parts - lands[col]).abs() > 0.5
        if diff.any():
            key = diff[diff].index[0]
            r = lands.loc[key]
            check_total(path, int(r["line"]), f"Land {key[0]} ({r['name']}), {key[1]}, {col}: its Kreise",
                        parts[key], r[col])
        parts = by_label[col].reindex(germany.index, fill_value=0.0)
        diff = (parts - germany[col]).abs() > 0.5
        if diff.any():
            label = diff[diff].index[0]
            r = germany.loc[label]
            check_total(path, int(r["line"]), f"Germany, {label}, {col}: the {districts['code'].nunique()} Kreise",
                        parts[label], r[col])
    return df


def _district_rows(df: pd.DataFrame) -> pd.DataFrame:
    """Kreis rows with values, plus Berlin and Hamburg (Land rows, AGS ``xx000``)."""
    kr = df[df["level"] == "KR"]
    cities = df[(df["level"] == "BL") & df["code"].isin(CITY_STATES)].copy()
    cities["code"] = cities["code"] + "000"
    return pd.concat([kr, cities], ignore_index=True)


def _regionalstatistik_to_schema(df: pd.DataFrame, path: Path) -> pd.DataFrame:
    land_names = df[df["level"] == "BL"].drop_duplicates("code").set_index("code")["name"]
    d = _district_rows(df)
    d = d[d["label"] != TOTAL_LABEL]
    out = _long(d.rename(columns={"maennlich": "male", "weiblich": "female"}), land_names)
    return validate_population(out, path)


def _long(d: pd.DataFrame, land_names) -> pd.DataFrame:
    """Wide rows (one per district × age, ``female``/``male`` columns) → schema rows."""
    age = {label: (lo, hi) for label, lo, hi in AGE_GROUPS}
    parts = []
    for sex in ("female", "male"):
        parts.append(pd.DataFrame({
            "district_id": d["code"].to_numpy(),
            "district_name": d["name"].to_numpy(),
            "region_id": d["land"].to_numpy(),
            "region_name": d["land"].map(land_names).to_numpy(),
            "sex": sex,
            "age_from": d["label"].map(lambda s: age[s][0]).to_numpy(dtype="float64"),
            "age_to": d["label"].map(lambda s: age[s][1]).to_numpy(dtype="float64"),
            "count": d[sex].to_numpy(dtype="float64"),
            "filled": False,
            LINE_COLUMN: d["line"].to_numpy(),
        }))
    return pd.concat(parts, ignore_index=True)


# --------------------------------------------------------------------------- GENESIS


_GENESIS_HEADER_LINES = 6
_GENESIS_FIELDS = 3 + 2 * len(AGE_LABELS)
_MOJIBAKE = re.compile("Ã[\u0080-\u00bf]|ï»¿")


def read_genesis_12411_0018(path: Path, date: str = "2020-12-31") -> pd.DataFrame:
    """Parse the raw GENESIS export of table 12411-0018 for one reference date.

    The file is latin-1 with six header and four footer lines and no totals, so
    the checks are structural: title, the sex and age headers, the footer
    (a missing one means a truncated file), 37 fields per line, valid dates and
    AGS, no duplicate Kreis per date, and counts that are numbers.
    """
    path = Path(path)
    _check_date(date, GENESIS_DATES, path)
    stichtag = f"{date[8:10]}.{date[5:7]}.{date[:4]}"
    text = read_text(path, "latin-1")
    if "\x00" in text:
        raise LoaderError(path, 1, "file contains NUL bytes: it is not latin-1 text (saved as UTF-16?)")
    lines = [ln.rstrip("\r") for ln in text.split("\n")]  # not splitlines(): latin-1 \x85 is no line break
    while lines and not lines[-1].strip():
        lines.pop()
    for i, line in enumerate(lines, 1):
        if _MOJIBAKE.search(line):
            raise LoaderError(path, i, "text looks UTF-8 encoded, but GENESIS exports are latin-1 (was the file re-encoded?)")
    if not lines[0].startswith("GENESIS-Tabelle: 12411-0018"):
        raise LoaderError(path, 1, f"expected the title 'GENESIS-Tabelle: 12411-0018', found {lines[0][:60]!r}")
    if len(lines) <= _GENESIS_HEADER_LINES:
        raise LoaderError(path, len(lines), "file ends inside the header (truncated?)")
    _check_genesis_header(lines, path)

    records = []
    seen: dict[tuple[str, str], int] = {}
    footer = None
    for i in range(_GENESIS_HEADER_LINES, len(lines)):
        line_no = i + 1
        raw = lines[i]
        if raw.startswith("__"):
            footer = line_no
            break
        if not raw.strip():
            continue
        fields = raw.split(";")
        if len(fields) != _GENESIS_FIELDS:
            raise LoaderError(path, line_no, f"expected {_GENESIS_FIELDS} fields, found {len(fields)} (truncated or damaged line?)")
        day, ags, name = (f.strip() for f in fields[:3])
        if not re.fullmatch(r"\d{2}\.\d{2}\.\d{4}", day):
            raise LoaderError(path, line_no, f"reference date {day!r} is not dd.mm.yyyy")
        if not re.fullmatch(r"\d{5}", ags) or ags[:2] not in LAENDER:
            raise LoaderError(path, line_no, f"district code {ags!r} is not a valid 5-digit AGS")
        if not name:
            raise LoaderError(path, line_no, f"district {ags} has no name")
        if (day, ags) in seen:
            raise LoaderError(path, line_no, f"duplicate row for district {ags} on {day} (first on line {seen[(day, ags)]})")
        seen[(day, ags)] = line_no
        if day != stichtag:
            continue
        if all(v.strip() in ("", ZERO_MARKER) for v in fields[3:]):
            continue  # a row without any value: the district did not exist on this date
        values = [
            _cell(v, path, line_no, f"{sex} {label} of {ags}")
            for v, (sex, label) in zip(fields[3:], [(s, lbl) for s in ("male", "female") for lbl in AGE_LABELS])
        ]
        if any(v is None for v in values):
            raise LoaderError(path, line_no, f"value missing for district {ags} while its other cells have values")
        records.append((line_no, ags, name, values))
    if footer is None:
        raise LoaderError(path, len(lines), "the GENESIS footer ('__________') is missing: the file appears truncated")
    if not records:
        raise LoaderError(path, None, f"no rows for {stichtag} were found")

    rows = []
    n = len(AGE_LABELS)
    for line_no, ags, name, values in records:
        for k, label in enumerate(AGE_LABELS):
            rows.append((line_no, ags, name, ags[:2], label, values[k], values[n + k]))
    d = pd.DataFrame.from_records(rows, columns=["line", "code", "name", "land", "label", "male", "female"])
    return validate_population(_long(d, LAENDER), path)


def _check_genesis_header(lines: list[str], path: Path) -> None:
    """Lines 5 and 6 must name the sexes and age groups in the order the values use."""
    expected = {
        5: ["männlich"] * len(AGE_LABELS) + ["weiblich"] * len(AGE_LABELS),
        6: list(AGE_LABELS) * 2,
    }
    for line_no, want in expected.items():
        fields = lines[line_no - 1].split(";")
        if len(fields) != _GENESIS_FIELDS:
            hint = " (is the delimiter wrong?)" if len(fields) == 1 else ""
            raise LoaderError(path, line_no, f"header has {len(fields)} fields, expected {_GENESIS_FIELDS}{hint}")
        got = [f.strip() for f in fields[3:]]
        if got != want:
            k = next(j for j, (a, b) in enumerate(zip(got, want)) if a != b)
            raise LoaderError(path, line_no, f"header column {k + 4} is {got[k]!r}, expected {want[k]!r}")


# --------------------------------------------------------------------------- boundaries


def read_boundaries(path: Path):
    """Kreis polygons keyed by ARS (= AGS), EPSG:4326, unsimplified."""
    gdf = read_boundary_file(path, "ARS")
    bad = gdf.geometry.isna() | gdf.geometry.is_empty
    if bad.any():
        raise LoaderError(path, None, f"feature {gdf.loc[bad, 'district_id'].iloc[0]} has no geometry")
    return gdf


def _match_boundaries(pop: pd.DataFrame, gdf, pop_file: Path, geo_file: Path) -> None:
    ids = set(pop["district_id"])
    geo = set(gdf["district_id"])
    if ids - geo:
        raise LoaderError(pop_file, None, f"district(s) {sorted(ids - geo)[:5]} have no boundary in {geo_file.name} (unknown district code?)")
    if geo - ids:
        raise LoaderError(geo_file, None, f"boundary feature(s) {sorted(geo - ids)[:5]} have no population in {pop_file.name}")


# --------------------------------------------------------------------------- sources and load


def _population_source(folder: Path, date: str) -> SourceFile:
    if date in REGIONALSTATISTIK_DATES:
        return SourceFile(
            path=(folder / REGIONALSTATISTIK_FILE).resolve(),
            publisher="Statistische Ämter des Bundes und der Länder, Regionaldatenbank Deutschland",
            table_id="12411-02-03-4",
            reference_date=date,
            licence=DL_DE_BY_2_0,
            citation=(
                "Quelle: Statistische Ämter des Bundes und der Länder, Regionaldatenbank Deutschland, "
                "Tabelle 12411-02-03-4 (Datenlizenz Deutschland – Namensnennung – Version 2.0)"
            ),
        )
    return SourceFile(
        path=(folder / GENESIS_FILE).resolve(),
        publisher="Statistisches Bundesamt (Destatis), GENESIS-Online",
        table_id="12411-0018",
        reference_date=date,
        licence=DL_DE_BY_2_0,
        citation=(
            "© Statistisches Bundesamt (Destatis), 2021; GENESIS-Online Tabelle 12411-0018 "
            "(Fortschreibung des Bevölkerungsstandes, Stand 17.08.2021), dl-de/by-2-0"
        ),
    )


def _boundary_source(path: Path) -> SourceFile:
    return SourceFile(
        path=path.resolve(),
        publisher="Bundesamt für Kartographie und Geodäsie (BKG)",
        table_id="VG5000 Kreise, Stand 01.01.2021",
        reference_date="2021-01-01",
        licence=DL_DE_BY_2_0,
        citation="© GeoBasis-DE / BKG 2021 (Daten verändert)",
    )


def available_dates() -> tuple[str, ...]:
    """Reference dates this loader can produce, newest first."""
    return tuple(sorted((*REGIONALSTATISTIK_DATES, *GENESIS_DATES), reverse=True))


def load(folder: Path, date: str | None = None) -> list[CountryData]:
    """Germany at one reference date (default: the newest), with Kreis boundaries."""
    folder = Path(folder)
    date = date or DEFAULT_DATE
    if date not in available_dates():
        raise ValueError(f"no German population data for {date!r}; available: {', '.join(available_dates())}")
    notes = [
        Note(N_("Sex is binary in the source: Destatis assigns 'divers' and 'ohne Angabe' to male or female.")),
        Note(N_("Age classes are not uniform: {classes}."),
             classes="0–3, 3–6, 6–10, 10–15, 15–18, 18–20, 20–25 … 60–65, 65–75, 75+"),
    ]
    boundary_note = ""
    if date in REGIONALSTATISTIK_DATES:
        pop_file = folder / REGIONALSTATISTIK_FILE
        pop = read_regionalstatistik(pop_file, date)
        geo_file = folder / BOUNDARY_FILE
        notes += [
            Note(N_("Population on the Zensus 2022 basis (Fortschreibung des Bevölkerungsstandes).")),
            Note(N_("Eisenach is part of Wartburgkreis (16063) since 01.07.2021; its former area is merged into that "
                    "district on the map.")),
            Note(N_("The table is a third party's cleaned UTF-8 extract of Regionalstatistik 12411-02-03-4; all its "
                    "totals were checked.")),
        ]
    else:
        pop_file = folder / GENESIS_FILE
        pop = read_genesis_12411_0018(pop_file, date)
        geo_file = folder / BOUNDARY_FILE_401 if date != "2015-12-31" else None
        notes += [
            Note(N_("Population on the Zensus 2011 basis, superseded by the Zensus 2022 revision of the 2023/2024 "
                    "data.")),
            Note(N_("Districts as published at the time (Eisenach 16056 separate from Wartburgkreis).")),
        ]
        if geo_file is None:
            boundary_note = Note(N_(
                "No map for 31.12.2015: Göttingen (03152) and Osterode am Harz (03156) merged into Landkreis Göttingen "
                "(03159) on 01.11.2016, and no boundary file of the older layout is available."))
    boundaries = None
    boundary_sources: list[SourceFile] = []
    if geo_file is not None:
        boundaries = read_boundaries(geo_file)
        _match_boundaries(pop, boundaries, pop_file, geo_file)
        boundary_sources = [_boundary_source(geo_file)]
    return [
        CountryData(
            code="DE",
            name="Germany",
            population=pop,
            sources=[_population_source(folder, date)],
            reference_date=date,
            district_label="Kreis",
            region_label="Land",
            body_prior_country="DE",
            boundaries=boundaries,
            boundary_sources=boundary_sources,
            boundary_note=boundary_note,
            notes=notes,
        )
    ]
