"""Body-measurement priors: mean and SD of height and weight by sex × age group.

Germany: Destatis Mikrozensus 2017 (table 12211-9018, with the SDs Destatis gave
to Berrang et al.).  United States: NHANES Aug 2021–Aug 2023 (NCHS Series 3 No. 50),
which publishes means and percentiles but *no* SDs — the SDs used are estimated
from published percentiles and flagged as such (``sd_estimated``, ``note``).
"""
from __future__ import annotations

import csv
import io
import math
from pathlib import Path

import pandas as pd

from .schema import (
    BODY_PRIOR_COLUMNS,
    LINE_COLUMN,
    SEXES,
    LoaderError,
    SourceFile,
    parse_count,
    read_text,
    require_columns,
    validate_body_priors,
)

DE_FILE = "de/12211-9018_mikrozensus_2017_height_weight_by_sex_age.csv"
US_FILE = "us/us_height_weight_by_sex_age_nhanes_2021-2023.csv"

#: z-value of the 85th percentile of the standard normal: (P85 − P15) spans 2 × 1.0364 SD.
Z85 = 1.0364
US_SD_NOTE = (
    "NCHS publishes no standard deviations for these groups; each SD is estimated from the "
    f"published percentiles as (P85 − P15) / (2 × {Z85}), the SD of a normal distribution with "
    "the same spread. For weight this understates the right tail."
)
DE_NOTE = "Self-reported height and weight (Mikrozensus 2017); SDs as provided by Destatis to Berrang et al."

#: Loose plausibility limits for adult group means: catch unit mix-ups (inches, pounds, metres).
HEIGHT_MEAN_RANGE = (120.0, 220.0)
WEIGHT_MEAN_RANGE = (35.0, 200.0)


def _rows(path: Path, required: list[str]) -> list[tuple[int, dict[str, str]]]:
    """CSV rows with their 1-based line numbers; header and field counts checked."""
    text = read_text(path, "utf-8")
    reader = csv.reader(io.StringIO(text))
    header = [h.strip() for h in next(reader)]
    require_columns(header, required, path, 1)
    out = []
    for fields in reader:
        if not any(f.strip() for f in fields):
            continue
        if len(fields) != len(header):
            raise LoaderError(path, reader.line_num, f"expected {len(header)} fields, found {len(fields)}")
        out.append((reader.line_num, {h: f.strip() for h, f in zip(header, fields)}))
    if not out:
        raise LoaderError(path, None, "no data rows")
    return out


def _number(text: str, path: Path, line: int, what: str, *, positive: bool = True) -> float:
    value = parse_count(text, path, line, what)
    if positive and value <= 0:
        raise LoaderError(path, line, f"{what} {text!r} must be positive")
    return value


def _row(path: Path, line: int, rec: dict[str, str], cols: dict[str, str]) -> dict:
    """One prior row; ``cols`` maps schema names to this file's column names."""
    sex = rec["sex"]
    if sex not in SEXES:
        raise LoaderError(path, line, f"unknown sex {sex!r}")
    age_from = _number(rec["age_from"], path, line, "age_from", positive=False)
    age_to = math.nan if rec["age_to"] == "" else _number(rec["age_to"], path, line, "age_to")
    if not math.isnan(age_to) and age_to <= age_from:
        raise LoaderError(path, line, f"age group [{age_from:g}, {age_to:g}) is empty")
    out = {"sex": sex, "age_from": age_from, "age_to": age_to, LINE_COLUMN: line}
    for name, col in cols.items():
        out[name] = _number(rec[col], path, line, col)
    for name, (lo, hi) in (("height_mean", HEIGHT_MEAN_RANGE), ("weight_mean", WEIGHT_MEAN_RANGE)):
        if not lo <= out[name] <= hi:
            raise LoaderError(path, line, f"{cols[name]} {out[name]:g} is outside the plausible range [{lo:g}, {hi:g}] (wrong unit?)")
    for sd, mean in (("height_sd", "height_mean"), ("weight_sd", "weight_mean")):
        if out[sd] >= out[mean] / 2:
            raise LoaderError(path, line, f"{cols[sd]} {out[sd]:g} is implausibly large for a mean of {out[mean]:g}")
    return out


def _check_bands(df: pd.DataFrame, path: Path) -> None:
    """Per sex: no duplicate or overlapping age groups."""
    for sex, g in df.groupby("sex"):
        g = g.sort_values("age_from", kind="mergesort")
        dup = g["age_from"].duplicated()
        if dup.any():
            raise LoaderError(path, int(g.loc[dup, LINE_COLUMN].iloc[0]), f"duplicate age group for {sex}")
        nxt = g["age_from"].shift(-1)
        overlap = nxt.notna() & (g["age_to"].isna() | (nxt < g["age_to"]))
        if overlap.any():
            raise LoaderError(path, int(g.loc[overlap, LINE_COLUMN].iloc[0]), f"overlapping age groups for {sex}")


def read_destatis_12211_9018(path: Path) -> pd.DataFrame:
    """German priors: 2 sexes × 12 age groups 18–75, published SDs."""
    path = Path(path)
    cols = {"height_mean": "height_mean_cm", "height_sd": "height_sd_cm",
            "weight_mean": "weight_mean_kg", "weight_sd": "weight_sd_kg"}
    rows = [_row(path, line, rec, cols) for line, rec in _rows(path, ["sex", "age_from", "age_to", *cols.values()])]
    df = pd.DataFrame(rows)
    df["sd_estimated"] = False
    df["note"] = DE_NOTE
    _check_bands(df, path)
    return _finish(df, path)


def read_nhanes_2021_2023(path: Path) -> pd.DataFrame:
    """US priors: 2 sexes × 8 age groups 18–20, 20–30 … 70–80, 80+.

    A published SD is used where the file has one; otherwise the estimated SD
    (the ``*_sd_*_est`` columns) with ``sd_estimated`` True.
    """
    path = Path(path)
    required = ["country", "sex", "age_from", "age_to", "height_mean_cm", "height_sd_cm", "weight_mean_kg",
                "weight_sd_kg", "height_sd_cm_est", "weight_sd_kg_est"]
    rows = []
    for line, rec in _rows(path, required):
        if rec["country"] != "US":
            raise LoaderError(path, line, f"country {rec['country']!r} is not 'US'")
        published = rec["height_sd_cm"] != "" and rec["weight_sd_kg"] != ""
        sd = ("height_sd_cm", "weight_sd_kg") if published else ("height_sd_cm_est", "weight_sd_kg_est")
        cols = {"height_mean": "height_mean_cm", "height_sd": sd[0], "weight_mean": "weight_mean_kg", "weight_sd": sd[1]}
        row = _row(path, line, rec, cols)
        row["sd_estimated"] = not published
        row["note"] = "" if published else US_SD_NOTE
        rows.append(row)
    df = pd.DataFrame(rows)
    _check_bands(df, path)
    out = _finish(df, path)
    if out["sd_estimated"].any():
        out.attrs["note"] = US_SD_NOTE
    return out


def _finish(df: pd.DataFrame, path: Path) -> pd.DataFrame:
    out = validate_body_priors(df, path)
    out = out[[*BODY_PRIOR_COLUMNS, "sd_estimated", "note"]].copy()
    out["sd_estimated"] = out["sd_estimated"].astype("bool")
    out["note"] = out["note"].astype("string")
    return out


def _sources(raw_root: Path) -> dict[str, list[SourceFile]]:
    return {
        "DE": [SourceFile(
            path=(raw_root / DE_FILE).resolve(),
            publisher="Statistisches Bundesamt (Destatis)",
            table_id="12211-9018",
            reference_date="2017",
            licence="Datenlizenz Deutschland – Namensnennung – Version 2.0 (dl-de/by-2-0)",
            citation=(
                "© Statistisches Bundesamt (Destatis), Mikrozensus 2017, Tabelle 12211-9018 (Körpermaße); "
                "minimum, maximum and SD as published in P. Berrang, P. Gerhart, D. Schröder, "
                "'Measuring Conditional Anonymity — A Global Study', Appendix C, Table 5"
            ),
        )],
        "US": [SourceFile(
            path=(raw_root / US_FILE).resolve(),
            publisher="Centers for Disease Control and Prevention, National Center for Health Statistics (NCHS)",
            table_id="Vital Health Stat 3(50), Tables 1, 3, 5, 7",
            reference_date="2021-08/2023-08",
            licence="Public domain (U.S. federal work)",
            citation=(
                "Fryar CD, Gu Q, Afful J, Carroll MD, Ogden CL. Anthropometric reference data for children "
                "and adults: United States, August 2021–August 2023. Vital Health Stat 3. 2025;(50):1–28. "
                "doi:10.15620/cdc/174595. SDs estimated here from the published percentiles."
            ),
        )],
    }


def load(raw_root: Path) -> dict[str, tuple[pd.DataFrame, list[SourceFile]]]:
    """Body priors per country code, each with the files it was read from."""
    raw_root = Path(raw_root)
    sources = _sources(raw_root)
    return {
        "DE": (read_destatis_12211_9018(raw_root / DE_FILE), sources["DE"]),
        "US": (read_nhanes_2021_2023(raw_root / US_FILE), sources["US"]),
    }
