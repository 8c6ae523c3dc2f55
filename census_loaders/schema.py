"""The one normalised schema every census loader produces, and its validation.

Every loader turns a published file into :class:`CountryData` objects whose
``population`` frame has :data:`POPULATION_COLUMNS`.  Validation lives here, in
one place, so a malformed file fails the same way whichever loader read it:
with a :class:`LoaderError` naming the file, the line and the problem.
"""
from __future__ import annotations

import gzip
import io
import math
from dataclasses import dataclass, field
from pathlib import Path
from typing import Iterable

import numpy as np
import pandas as pd

SEXES = ("female", "male")

#: Columns of a normalised population table, with their dtypes.
#: ``age_to`` is NaN for an open-ended group (e.g. 85+); ages are half-open [from, to).
#: ``count`` is float because filled (SPEC §1.4) and survey-based tables are fractional.
POPULATION_COLUMNS: dict[str, str] = {
    "district_id": "string",
    "district_name": "string",
    "region_id": "string",
    "region_name": "string",
    "sex": "string",
    "age_from": "float64",
    "age_to": "float64",
    "count": "float64",
    "filled": "bool",
}
#: Optional columns a loader may add; they are kept in the cache.
OPTIONAL_COLUMNS: dict[str, str] = {
    "flag": "string",  # Eurostat observation flags: b, e, p, bp, ep ...
    "moe": "float64",  # ACS 90 % margin of error of the count
}
#: A loader may add this column (1-based line in the source file) so validation
#: errors can name the line; it is dropped before the table is cached.
LINE_COLUMN = "source_line"


class LoaderError(Exception):
    """A published file could not be turned into the normalised schema.

    The message always names the file, the line (when one applies) and the problem,
    e.g. ``de/12411.csv, line 17: count '-12' is negative``.
    """

    def __init__(self, file: str | Path, line: int | None, problem: str):
        self.file = str(file)
        self.line = line
        self.problem = problem
        where = f"{self.file}, line {line}" if line is not None else self.file
        super().__init__(f"{where}: {problem}")


@dataclass(frozen=True)
class SourceFile:
    """One published file a data set was built from, with what is needed to cite it."""

    path: Path  # absolute path of the raw file
    publisher: str
    table_id: str
    reference_date: str  # ISO date or period, e.g. "2023-12-31" or "2016/2020"
    licence: str
    citation: str = ""


@dataclass
class CountryData:
    """One data set of the cache: a country (or a sub-national data set) at one date.

    ``code`` is the ISO 3166-1 alpha-2 code for national data sets (``DE``, ``GB``);
    further data sets of a country carry a suffix (``US-ZCTA``, ``AU-SA2``).
    """

    code: str
    name: str
    population: pd.DataFrame
    sources: list[SourceFile]
    reference_date: str
    district_label: str = "district"  # e.g. "Kreis", "county", "NUTS-3 region"
    region_label: str = "region"  # the next level up: "Land", "state", "NUTS-2 region"
    #: Whose height/weight statistics describe this population; None = the data set's own country (the code
    #: before any "-" suffix): its own table where one ships, else its NCD-RisC prior (issue 27).
    body_prior_country: str | None = None
    boundaries: "object | None" = None  # GeoDataFrame with district_id + geometry, EPSG:4326
    boundary_sources: list[SourceFile] = field(default_factory=list)
    boundary_note: str = ""  # why there is no map, when boundaries is None
    #: Simplification of the served polygons: tolerance in degrees and decimals kept
    #: (None = census_loaders.geometry's defaults, ≈ 1 km and 4 decimals).
    boundary_tolerance: float | None = None
    boundary_decimals: int | None = None
    notes: list[str] = field(default_factory=list)  # caveats shown in the interface
    #: A national model estimate (UN WPP): kept only where no other loader covers the country
    #: (any data set whose code starts with the same ISO code), see ``census_loaders.build``.
    national_model: bool = False
    #: What part of the country a data set covers when not all of it ("the ZIP code areas of Maine …"):
    #: its total is then not compared with the national figure.
    part_of_country: str = ""
    #: Further names people search the country by ("Turkey" beside CLDR's "Türkiye").
    search_names: list[str] = field(default_factory=list)


# --------------------------------------------------------------------------- reading


def read_text(path: Path, encoding: str = "utf-8") -> str:
    """Read a (possibly gzipped) text file, failing with a clear message.

    An empty file, a truncated gzip stream, or bytes that are not valid in the
    published encoding (a re-encoded file) each raise :class:`LoaderError`.
    """
    path = Path(path)
    raw = _gunzipped_bytes(path)
    if not raw.strip():
        raise LoaderError(path, None, "file is empty")
    try:
        text = raw.decode(encoding)
    except UnicodeDecodeError as exc:
        line = raw[: exc.start].count(b"\n") + 1
        raise LoaderError(
            path, line, f"bytes are not valid {encoding} (was the file re-encoded?)"
        ) from None
    return text.lstrip("\ufeff")


def open_bytes(path: Path) -> io.BytesIO:
    """The (gunzipped) bytes of a binary file such as a workbook, or a clear error."""
    path = Path(path)
    raw = _gunzipped_bytes(path)
    if not raw:
        raise LoaderError(path, None, "file is empty")
    return io.BytesIO(raw)


def _gunzipped_bytes(path: Path) -> bytes:
    """A file's bytes, gunzipped when it ends in .gz; a missing or damaged file is a LoaderError."""
    if not path.exists():
        raise LoaderError(path, None, "file not found")
    raw = path.read_bytes()
    if path.suffix == ".gz":
        try:
            raw = gzip.decompress(raw)
        except (OSError, EOFError) as exc:
            raise LoaderError(path, None, f"gzip stream is damaged or truncated ({exc})") from None
    return raw


def parse_count(text: object, file: Path | str, line: int | None, what: str = "count") -> float:
    """A published head count as a float; non-numeric, negative or infinite values raise."""
    if isinstance(text, (int, float, np.integer, np.floating)) and not isinstance(text, bool):
        value = float(text)
    else:
        s = str(text).strip().replace("\u00a0", "").replace(" ", "")
        try:
            value = float(s)
        except ValueError:
            raise LoaderError(file, line, f"{what} {str(text)!r} is not a number") from None
    if not math.isfinite(value):
        raise LoaderError(file, line, f"{what} {text!r} is not a finite number")
    if value < 0:
        raise LoaderError(file, line, f"{what} {text!r} is negative")
    return value


def require_columns(columns: Iterable[str], required: Iterable[str], file: Path | str, line: int | None = 1) -> None:
    """Raise if the header lacks any of the required columns (e.g. wrong delimiter)."""
    have = list(columns)
    missing = [c for c in required if c not in have]
    if missing:
        hint = ""
        if len(have) == 1:
            hint = " (the header has a single column: is the delimiter wrong?)"
        raise LoaderError(file, line, f"missing column(s) {', '.join(map(repr, missing))}{hint}")


# --------------------------------------------------------------------------- validation


def _line_of(df: pd.DataFrame, mask: pd.Series) -> int | None:
    if LINE_COLUMN in df.columns and mask.any():
        value = df.loc[mask, LINE_COLUMN].iloc[0]
        return None if pd.isna(value) else int(value)
    return None


def validate_population(df: pd.DataFrame, file: Path | str) -> pd.DataFrame:
    """Check a loader's table against the schema and return it normalised.

    Checks: required columns, sexes, finite non-negative counts, ordered half-open
    ages, no duplicate (district, sex, age_from) keys, no overlapping age groups
    within a district and sex, and every district having both sexes.  Returns a
    copy with canonical dtypes, sorted, without the ``source_line`` column.
    """
    require_columns(df.columns, POPULATION_COLUMNS, file, None)
    if df.empty:
        raise LoaderError(file, None, "no population rows were found")
    bad_sex = ~df["sex"].isin(SEXES)
    if bad_sex.any():
        raise LoaderError(file, _line_of(df, bad_sex), f"unknown sex {df.loc[bad_sex, 'sex'].iloc[0]!r}")
    counts = pd.to_numeric(df["count"], errors="coerce")
    bad = counts.isna() | ~np.isfinite(counts) | (counts < 0)
    if bad.any():
        raise LoaderError(file, _line_of(df, bad), f"count {df.loc[bad, 'count'].iloc[0]!r} is not a non-negative number")
    age_from = pd.to_numeric(df["age_from"], errors="coerce")
    age_to = pd.to_numeric(df["age_to"], errors="coerce")
    bad = age_from.isna() | (age_from < 0) | (age_to.notna() & (age_to <= age_from))
    if bad.any():
        raise LoaderError(file, _line_of(df, bad), "age group is not a valid half-open band [from, to)")
    empty_id = df["district_id"].isna() | (df["district_id"].astype(str).str.strip() == "")
    if empty_id.any():
        raise LoaderError(file, _line_of(df, empty_id), "empty district code")
    dup = df.duplicated(["district_id", "sex", "age_from"], keep="first")
    if dup.any():
        row = df.loc[dup].iloc[0]
        raise LoaderError(
            file, _line_of(df, dup),
            f"duplicate row for district {row['district_id']}, {row['sex']}, age {row['age_from']:g}",
        )
    out = df.copy()
    out["count"] = counts.astype("float64")
    out["age_from"] = age_from.astype("float64")
    out["age_to"] = age_to.astype("float64")
    out = out.sort_values(["district_id", "sex", "age_from"], kind="mergesort")
    # overlapping groups inside one district and sex: next group starts before this one ends
    nxt = out.groupby(["district_id", "sex"], sort=False)["age_from"].shift(-1)
    overlap = nxt.notna() & (out["age_to"].isna() | (nxt < out["age_to"]))
    if overlap.any():
        row = out.loc[overlap].iloc[0]
        raise LoaderError(file, _line_of(out, overlap), f"overlapping age groups in district {row['district_id']} ({row['sex']})")
    sexes = out.groupby("district_id")["sex"].nunique()
    if (sexes < 2).any():
        missing = sexes[sexes < 2].index[0]
        raise LoaderError(file, None, f"district {missing} does not have both sexes")
    keep = [c for c in (*POPULATION_COLUMNS, *OPTIONAL_COLUMNS) if c in out.columns]
    out = out[keep].reset_index(drop=True)
    for col in keep:
        dtype = {**POPULATION_COLUMNS, **OPTIONAL_COLUMNS}[col]
        out[col] = out[col].astype(dtype)
    return out


def check_total(file: Path | str, line: int | None, what: str, parts_sum: float, total: float, tol: float = 0.5) -> None:
    """Raise when published parts do not add up to their published total."""
    if abs(parts_sum - total) > tol:
        raise LoaderError(file, line, f"{what}: parts sum to {parts_sum:,.0f} but the total is {total:,.0f}")


#: Columns of a body-measurement prior table (one row per sex × age group).
BODY_PRIOR_COLUMNS: dict[str, str] = {
    "sex": "string",
    "age_from": "float64",
    "age_to": "float64",  # NaN = open-ended
    "height_mean": "float64",
    "height_sd": "float64",
    "weight_mean": "float64",
    "weight_sd": "float64",
}


def validate_body_priors(df: pd.DataFrame, file: Path | str) -> pd.DataFrame:
    """Check a body-prior table: both sexes, positive finite SDs, plausible means."""
    require_columns(df.columns, BODY_PRIOR_COLUMNS, file, None)
    for col in ("height_mean", "height_sd", "weight_mean", "weight_sd"):
        v = pd.to_numeric(df[col], errors="coerce")
        bad = v.isna() | ~np.isfinite(v) | (v <= 0)
        if bad.any():
            raise LoaderError(file, _line_of(df, bad), f"{col} must be a positive number")
    if set(df["sex"]) != set(SEXES):
        raise LoaderError(file, None, "body priors must cover both sexes")
    keep = [c for c in BODY_PRIOR_COLUMNS if c in df.columns] + [c for c in df.columns if c not in BODY_PRIOR_COLUMNS and c != LINE_COLUMN]
    out = df[keep].sort_values(["sex", "age_from"], kind="mergesort").reset_index(drop=True)
    for col, dtype in BODY_PRIOR_COLUMNS.items():
        out[col] = out[col].astype(dtype)
    return out


#: Key columns a fraction table may be keyed by (any subset, SPEC §1.3).
FRACTION_KEYS = ("district_id", "sex", "age_from", "age_to")


@dataclass
class MicroData:
    """A record-level data set (one row per person or user), cached as ``microdata/<id>.parquet``.

    Unlike the population tables these are samples of real individuals (NHANES) or of
    real behaviour (ratings): the body model is validated on them and the data-set and
    attack pages analyse them.  ``table`` is already typed and validated by its loader.
    """

    id: str
    name: str
    table: pd.DataFrame
    sources: list[SourceFile] = field(default_factory=list)
    note: str = ""


@dataclass
class FractionTable:
    """A piece of auxiliary knowledge: the fraction f ∈ [0, 1] of people it applies to.

    ``table`` has a ``fraction`` column and any subset of :data:`FRACTION_KEYS`
    (``age_from``/``age_to`` come together).  ``country`` limits it to one data
    set code (``None`` = any country).  ``note`` states the assumptions the
    interface must show (e.g. "an upper bound", "equal across sexes and districts").
    """

    id: str
    name: str
    table: pd.DataFrame
    sources: list[SourceFile] = field(default_factory=list)
    country: str | None = None
    note: str = ""


def validate_fraction_table(ft: FractionTable, file: Path | str) -> FractionTable:
    """Check keys and that every fraction is a number in [0, 1]."""
    require_columns(ft.table.columns, ["fraction"], file, None)
    extra = [c for c in ft.table.columns if c not in (*FRACTION_KEYS, "fraction", LINE_COLUMN)]
    if extra:
        raise LoaderError(file, None, f"unexpected column(s) {extra}; keys may be {list(FRACTION_KEYS)}")
    if ("age_from" in ft.table.columns) != ("age_to" in ft.table.columns):
        raise LoaderError(file, None, "age_from and age_to must come together")
    f = pd.to_numeric(ft.table["fraction"], errors="coerce")
    bad = f.isna() | (f < 0) | (f > 1)
    if bad.any():
        raise LoaderError(file, _line_of(ft.table, bad), f"fraction {ft.table.loc[bad, 'fraction'].iloc[0]!r} is not in [0, 1]")
    table = ft.table.drop(columns=[LINE_COLUMN], errors="ignore").copy()
    table["fraction"] = f.astype("float64")
    return FractionTable(ft.id, ft.name, table.reset_index(drop=True), ft.sources, ft.country, ft.note)
