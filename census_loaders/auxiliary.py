"""Auxiliary knowledge (SPEC §1.3): fraction tables an attacker may multiply in.

Two presets come from ``data/raw/aux/`` (see its PROVENANCE.md): wearable use by
age group in Germany, and a period-tracking app's users among US women (an upper
bound).  Users can add their own from a CSV file (:func:`parse_fraction_csv`) or
a percentage typed into the interface (:func:`user_fraction`).  Every table is
checked with :func:`schema.validate_fraction_table`; malformed input fails with a
message naming the file and line, because a silently wrong fraction would
silently shrink every anonymity set.
"""
from __future__ import annotations

import csv
import io
import math
import numbers
import re
from pathlib import Path

import pandas as pd

from .notes import N_
from .schema import (
    FRACTION_KEYS,
    LINE_COLUMN,
    SEXES,
    FractionTable,
    LoaderError,
    SourceFile,
    read_text,
    require_columns,
    validate_fraction_table,
)

WEARABLES_FILE = "aux/de_wearables_by_age_destatis_ikt_2020.csv"
FLO_FILE = "aux/us_flo_app_users.csv"

_SEX_ALIASES = {
    "female": "female", "f": "female", "woman": "female", "women": "female", "w": "female",
    "weiblich": "female", "frau": "female", "frauen": "female",
    "male": "male", "m": "male", "man": "male", "men": "male", "männlich": "male",
    "maennlich": "male", "mann": "male", "männer": "male",
}
_AGE_RANGE = re.compile(r"^\s*(\d+(?:\.\d+)?)\s*(?:-|–|—|to|bis)\s*(\d+(?:\.\d+)?)\s*$", re.IGNORECASE)
_AGE_OPEN = re.compile(r"^\s*(\d+(?:\.\d+)?)\s*(?:\+|and over|and older|und mehr|und älter)\s*$", re.IGNORECASE)
_ALLOWED_COLUMNS = ("fraction", "percent", "district_id", "sex", "age_from", "age_to", "age")


# --------------------------------------------------------------------------- presets


def _csv_rows(path: Path, required: list[str]) -> list[tuple[int, dict[str, str]]]:
    text = read_text(path, "utf-8")
    reader = csv.reader(io.StringIO(text))
    header = [h.strip() for h in next(reader)]
    require_columns(header, required, path, 1)
    rows = []
    for fields in reader:
        if not any(f.strip() for f in fields):
            continue
        if len(fields) != len(header):
            raise LoaderError(path, reader.line_num, f"expected {len(header)} fields, found {len(fields)}")
        rows.append((reader.line_num, {h: f.strip() for h, f in zip(header, fields)}))
    if not rows:
        raise LoaderError(path, None, "no data rows")
    return rows


def _share(text: str, path: Path | str, line: int, what: str) -> float:
    """A number in [0, 1] or a LoaderError naming the line."""
    try:
        value = float(text)
    except ValueError:
        raise LoaderError(path, line, f"{what} {text!r} is not a number") from None
    if not (math.isfinite(value) and 0 <= value <= 1):
        raise LoaderError(path, line, f"{what} {text!r} is not in [0, 1]")
    return value


#: The presets' names and notes: our words (marked for the catalogues), shown in the page's language; the manifest
#: and the CLI keep the English.  Their numbers are the sources' own, written out in each translation.
WEARABLES_NAME = N_("Wears a smartwatch or fitness band (Germany, 2020)")
WEARABLES_NOTE = N_(
    "Share of the population using a smartwatch, fitness band or similar connected device in Q1 2020: "
    "the share among internet users in each age group times the internet users' share of the "
    "population aged 10+ (about 90 %). Assumed equal across sexes and districts, since the survey "
    "does not break them down. Under-10s are not covered.")
FLO_NAME = N_("Uses the Flo period-tracking app (US women, upper bound)")
FLO_NOTE = N_(
    "UPPER BOUND: about 50 million monthly active users divided by 169.03 million US women = 0.2958. "
    "Not every user is a woman living in the US, so the true share is lower; 0 for men. "
    "Assumed equal across age groups and counties.")
#: Every preset's words, for the personal page's client catalogue (its JavaScript says them in the page's language).
PRESET_TEXTS = (WEARABLES_NAME, WEARABLES_NOTE, FLO_NAME, FLO_NOTE)


def read_wearables(path: Path) -> FractionTable:
    """Wearable use in Germany by age group: share of internet users × internet users' share."""
    path = Path(path)
    rows = _csv_rows(path, ["age_from", "age_to", "share_of_internet_users", "internet_users_share_of_population"])
    records = []
    for line, r in rows:
        lo, hi = _age_bounds(r["age_from"], r["age_to"], path, line)
        f = _share(r["share_of_internet_users"], path, line, "share_of_internet_users") * _share(
            r["internet_users_share_of_population"], path, line, "internet_users_share_of_population")
        records.append({"age_from": lo, "age_to": hi, "fraction": f, LINE_COLUMN: line})
    table = pd.DataFrame(records)
    _check_keys(table, path)
    ft = FractionTable(
        id="de_wearables",
        name=WEARABLES_NAME,
        table=table,
        sources=[SourceFile(
            path=path.resolve(),
            publisher="Statistisches Bundesamt (Destatis)",
            table_id="IKT in privaten Haushalten 2020 (Zahl der Woche, 22.09.2020)",
            reference_date="2020-Q1",
            licence="Reuse with attribution: Quelle: Statistisches Bundesamt (Destatis), 2020",
            citation=(
                "Statistisches Bundesamt (Destatis), survey on ICT use in private households, Q1 2020; "
                "press release 'Zahl der Woche', 22 September 2020 (via ots/dpa). "
                "Quelle: Statistisches Bundesamt (Destatis), 2020"
            ),
        )],
        country="DE",
        note=WEARABLES_NOTE,
    )
    return validate_fraction_table(ft, path)


def read_flo(path: Path) -> FractionTable:
    """Flo app users among US women (0 for men): an upper bound, as stated in the note."""
    path = Path(path)
    rows = _csv_rows(path, ["sex", "app_active_users", "population_of_sex", "fraction"])
    records = []
    for line, r in rows:
        sex = r["sex"]
        if sex not in SEXES:
            raise LoaderError(path, line, f"unknown sex {sex!r}")
        f = _share(r["fraction"], path, line, "fraction")
        if r["population_of_sex"]:
            try:
                users, pop = float(r["app_active_users"]), float(r["population_of_sex"])
            except ValueError:
                raise LoaderError(path, line, "app_active_users and population_of_sex must be numbers") from None
            if pop <= 0 or abs(users / pop - f) > 5e-6:
                raise LoaderError(path, line, f"fraction {f:g} does not equal app_active_users / population_of_sex")
        records.append({"sex": sex, "fraction": f, LINE_COLUMN: line})
    table = pd.DataFrame(records)
    _check_keys(table, path)
    if set(table["sex"]) != set(SEXES):
        raise LoaderError(path, None, "both sexes must be listed")
    ft = FractionTable(
        id="us_flo",
        name=FLO_NAME,
        table=table,
        sources=[SourceFile(
            path=path.resolve(),
            publisher="Flo Health (flo.health/about-flo, user count); Statista (US population by gender)",
            table_id="Flo monthly active users / US female population",
            reference_date="about 2023",
            licence="Facts cited with attribution (no data licence stated)",
            citation=(
                "About 50 million monthly active users (flo.health/about-flo, as cited in the literature on "
                "conditional anonymity sets) over about 169.03 million US women (Statista)"
            ),
        )],
        country="US",
        note=FLO_NOTE,
    )
    return validate_fraction_table(ft, path)


def load(raw_root: Path) -> list[FractionTable]:
    """The auxiliary-knowledge presets with their sources."""
    raw_root = Path(raw_root)
    return [read_wearables(raw_root / WEARABLES_FILE), read_flo(raw_root / FLO_FILE)]


# --------------------------------------------------------------------------- keys


def _age_bounds(lo_text: str, hi_text: str, file: Path | str, line: int) -> tuple[float, float]:
    """A half-open age band [lo, hi); empty ``hi`` = open-ended."""
    try:
        lo = float(lo_text)
        hi = math.nan if hi_text.strip() == "" else float(hi_text)
    except ValueError:
        raise LoaderError(file, line, f"age band {lo_text!r}–{hi_text!r} is not numeric") from None
    if not math.isfinite(lo) or lo < 0 or (not math.isnan(hi) and not (math.isfinite(hi) and hi > lo)):
        raise LoaderError(file, line, f"age band [{lo_text}, {hi_text or '∞'}) is not a valid half-open band")
    return lo, hi


def _parse_age(text: str, file: str, line: int) -> tuple[float, float]:
    m = _AGE_RANGE.match(text)
    if m:
        return _age_bounds(m.group(1), m.group(2), file, line)
    m = _AGE_OPEN.match(text)
    if m:
        return _age_bounds(m.group(1), "", file, line)
    raise LoaderError(file, line, f"age {text!r} is not understood; write e.g. '18-25' (meaning [18, 25)) or '65+'")


def _check_keys(table: pd.DataFrame, file: Path | str) -> None:
    """No two rows for the same key, and no overlapping age bands within the other keys."""
    keys = [c for c in FRACTION_KEYS if c in table.columns]
    if not keys:
        if len(table) > 1:
            raise LoaderError(file, int(table[LINE_COLUMN].iloc[1]), "several rows but no key column (district_id, sex, age)")
        return
    dup = table.duplicated(keys, keep=False)
    if dup.any():
        lines = table.loc[dup, LINE_COLUMN].astype(int).tolist()
        row = table.loc[dup].iloc[0]
        what = ", ".join(f"{k}={row[k]}" for k in keys)
        raise LoaderError(file, lines[1], f"duplicate key ({what}), also on line {lines[0]}")
    if "age_from" in keys:
        others = [k for k in keys if k not in ("age_from", "age_to")]
        t = table.sort_values([*others, "age_from"], kind="mergesort")
        nxt = t.groupby(others, sort=False)["age_from"].shift(-1) if others else t["age_from"].shift(-1)
        overlap = nxt.notna() & (t["age_to"].isna() | (nxt < t["age_to"]))
        if overlap.any():
            r = t.loc[overlap].iloc[0]
            raise LoaderError(file, int(r[LINE_COLUMN]), f"age band starting at {r['age_from']:g} overlaps the next one")


def _slug(name: str) -> str:
    return re.sub(r"[^a-z0-9]+", "_", name.lower()).strip("_")[:40] or "fraction"


# --------------------------------------------------------------------------- user input


def _user_number(text: str, file: str, line: int, column: str, decimal_comma: bool) -> float:
    s = text.strip().replace("\u00a0", "").replace(" ", "")
    if column == "percent" and s.endswith("%"):
        s = s[:-1]
    if decimal_comma:
        s = s.replace(",", ".")
    if s == "":
        raise LoaderError(file, line, f"{column} is empty")
    try:
        value = float(s)
    except ValueError:
        raise LoaderError(file, line, f"{column} {text.strip()!r} is not a number") from None
    top = 100.0 if column == "percent" else 1.0
    if not (math.isfinite(value) and 0 <= value <= top):
        raise LoaderError(file, line, f"{column} {text.strip()!r} is not in [0, {top:g}]")
    return value / top


def _sniff_delimiter(header_line: str) -> str:
    counts = {d: header_line.count(d) for d in (",", ";", "\t")}
    best = max(counts, key=counts.get)
    return best if counts[best] else ","


def parse_fraction_csv(text: str, name: str, file_label: str = "uploaded file") -> FractionTable:
    """A user's own fraction table from CSV text.

    The header needs ``fraction`` (0–1) or ``percent`` (0–100) and may key rows by
    any of ``district_id``, ``sex``, ``age_from``/``age_to`` or an ``age`` column
    ("18-25" = [18, 25), "65+").  Delimiter ``,`` ``;`` or tab; with ``;`` or tab a
    decimal comma is accepted.  Every malformed case raises LoaderError naming
    ``file_label`` and the line.
    """
    if not name or not name.strip():
        raise ValueError("give the fraction a name")
    text = (text or "").lstrip("\ufeff")
    if not text.strip():
        raise LoaderError(file_label, None, "file is empty")
    lines = text.splitlines()
    first = next(i for i, ln in enumerate(lines) if ln.strip())
    delimiter = _sniff_delimiter(lines[first])
    reader = csv.reader(io.StringIO("\n".join(lines)), delimiter=delimiter)
    for _ in range(first):
        next(reader)
    header = [h.strip().lower() for h in next(reader)]
    header_line = reader.line_num
    unknown = [h for h in header if h not in _ALLOWED_COLUMNS]
    if unknown:
        raise LoaderError(file_label, header_line,
                          f"unknown column(s) {', '.join(map(repr, unknown))}; allowed: {', '.join(_ALLOWED_COLUMNS)}")
    if len(set(header)) != len(header):
        raise LoaderError(file_label, header_line, "a column name appears twice")
    value_cols = [c for c in ("fraction", "percent") if c in header]
    if not value_cols:
        raise LoaderError(file_label, header_line, "no 'fraction' (0–1) or 'percent' (0–100) column")
    if len(value_cols) == 2:
        raise LoaderError(file_label, header_line, "give either 'fraction' or 'percent', not both")
    value_col = value_cols[0]
    if "age" in header and ("age_from" in header or "age_to" in header):
        raise LoaderError(file_label, header_line, "give either 'age' or 'age_from'/'age_to', not both")
    if ("age_from" in header) != ("age_to" in header):
        raise LoaderError(file_label, header_line, "'age_from' and 'age_to' must come together (empty age_to = open-ended)")

    records = []
    for fields in reader:
        line = reader.line_num
        if not any(f.strip() for f in fields):
            continue
        if len(fields) != len(header):
            raise LoaderError(file_label, line, f"expected {len(header)} fields, found {len(fields)}")
        r = dict(zip(header, (f.strip() for f in fields)))
        rec: dict = {LINE_COLUMN: line}
        if "district_id" in r:
            if not r["district_id"]:
                raise LoaderError(file_label, line, "district_id is empty")
            rec["district_id"] = r["district_id"]
        if "sex" in r:
            sex = _SEX_ALIASES.get(r["sex"].lower())
            if sex is None:
                raise LoaderError(file_label, line, f"sex {r['sex']!r} is not female or male")
            rec["sex"] = sex
        if "age" in r:
            rec["age_from"], rec["age_to"] = _parse_age(r["age"], file_label, line)
        elif "age_from" in r:
            rec["age_from"], rec["age_to"] = _age_bounds(r["age_from"], r["age_to"], file_label, line)
        rec["fraction"] = _user_number(r[value_col], file_label, line, value_col, decimal_comma=delimiter != ",")
        records.append(rec)
    if not records:
        raise LoaderError(file_label, None, "the file has a header but no data rows")

    table = pd.DataFrame(records)
    keys = [c for c in FRACTION_KEYS if c in table.columns]
    table = table[[*keys, "fraction", LINE_COLUMN]]
    for col in keys:
        table[col] = table[col].astype("float64" if col.startswith("age") else "string")
    _check_keys(table, file_label)
    keyed = ", ".join(label for col, label in (("district_id", "district"), ("sex", "sex"), ("age_from", "age group"))
                      if col in keys)
    ft = FractionTable(
        id=f"user_{_slug(name)}",
        name=name.strip(),
        table=table,
        sources=[],
        country=None,
        note=(f"Defined by the user from {file_label}"
              + (f", by {keyed}" if keyed else ", uniform") + "; assumed independent of other attributes."),
    )
    return validate_fraction_table(ft, file_label)


def _percent(value: object, what: str) -> float:
    if isinstance(value, bool) or not isinstance(value, numbers.Real):
        raise ValueError(f"{what} must be a number between 0 and 100, not {value!r}")
    v = float(value)
    if not math.isfinite(v) or not 0 <= v <= 100:
        raise ValueError(f"{what} must be between 0 and 100 %, got {value!r}")
    return v / 100.0


def user_fraction(
    name: str,
    percent: float | None = None,
    by_age: dict[tuple[float, float | None], float] | None = None,
) -> FractionTable:
    """A fraction typed into the interface: one percentage, or one per age group.

    ``by_age`` maps half-open bands ``(age_from, age_to)`` (``age_to`` None =
    open-ended) to percentages.  Invalid input raises ValueError with a message
    the interface can show as it is.
    """
    if not name or not name.strip():
        raise ValueError("give the fraction a name")
    if (percent is None) == (by_age is None):
        raise ValueError("give either one percentage or a percentage per age group")
    if percent is not None:
        table = pd.DataFrame({"fraction": [_percent(percent, "the percentage")]})
        note = f"Entered by the user: {percent:g} % of everyone, in every district, sex and age group."
    else:
        if not by_age:
            raise ValueError("give at least one age group")
        rows = []
        for band, pct in by_age.items():
            try:
                lo, hi = band
            except (TypeError, ValueError):
                raise ValueError(f"age group {band!r} must be a pair (from, to)") from None
            label = f"{lo}+" if hi is None else f"{lo}–{hi}"
            if isinstance(lo, bool) or not isinstance(lo, numbers.Real) or not math.isfinite(lo) or lo < 0:
                raise ValueError(f"age group {label}: the lower age must be a number ≥ 0")
            if hi is not None and (isinstance(hi, bool) or not isinstance(hi, numbers.Real)
                                   or not math.isfinite(hi) or hi <= lo):
                raise ValueError(f"age group {label}: the upper age must be above the lower age")
            rows.append({"age_from": float(lo), "age_to": math.nan if hi is None else float(hi),
                         "fraction": _percent(pct, f"the percentage for ages {label}")})
        table = pd.DataFrame(rows).sort_values("age_from", kind="mergesort").reset_index(drop=True)
        nxt = table["age_from"].shift(-1)
        overlap = nxt.notna() & (table["age_to"].isna() | (nxt < table["age_to"]))
        if overlap.any():
            r = table.loc[overlap].iloc[0]
            raise ValueError(f"the age group starting at {r['age_from']:g} overlaps the next one")
        note = "Entered by the user per age group; assumed equal across districts and sexes."
    ft = FractionTable(id=f"user_{_slug(name)}", name=name.strip(), table=table, country=None, note=note)
    return validate_fraction_table(ft, "interface input")
