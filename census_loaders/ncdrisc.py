"""NCD-RisC mean height at age 18 by country, sex and birth cohort (eLife 2016), for the v2 cohort shift.

The file (`eu/NCD_RisC_eLife_2016_height_age18_countries.csv`, see the PROVENANCE there)
holds 200 countries × 2 sexes × 101 birth cohorts (1896–1996) of mean height at 18.
The body model v2 shifts the borrowed (German) mean height of each age group by the
difference between the borrowing country's and Germany's cohorts (SPEC §1.6,
:func:`dashboard.core.body_model.cohort_height_shift`).

Cached as ``height_cohorts.parquet``: ``iso3, country, sex (female/male), birth_year,
height_cm, height_lo95, height_hi95``.  A malformed file gives a LoaderError naming
file, line and problem.
"""
from __future__ import annotations

import csv
import io
import math
from pathlib import Path

import pandas as pd

from .schema import LoaderError, SourceFile, read_text

FILE = "NCD_RisC_eLife_2016_height_age18_countries.csv"
FOLDER = "eu"
HEADER = ["Country", "ISO", "Sex", "Year of birth", "Mean height (cm)",
          "Mean height lower 95% uncertainty interval (cm)", "Mean height upper 95% uncertainty interval (cm)"]
SEX = {"Men": "male", "Women": "female"}
#: Data set codes (ISO 3166-1 alpha-2, Eurostat's EL/UK spellings too) → NCD-RisC's ISO3.
ISO3 = {
    "AL": "ALB", "AT": "AUT", "AU": "AUS", "BE": "BEL", "BG": "BGR", "CH": "CHE", "CY": "CYP", "CZ": "CZE",
    "DE": "DEU", "DK": "DNK", "EE": "EST", "EL": "GRC", "ES": "ESP", "FI": "FIN", "FR": "FRA", "GB": "GBR",
    "GR": "GRC", "HR": "HRV", "HU": "HUN", "IE": "IRL", "IS": "ISL", "IT": "ITA", "LI": "LIE", "LT": "LTU",
    "LU": "LUX", "LV": "LVA", "ME": "MNE", "MK": "MKD", "MT": "MLT", "NL": "NLD", "NO": "NOR", "PL": "POL",
    "PT": "PRT", "RO": "ROU", "RS": "SRB", "SE": "SWE", "SI": "SVN", "SK": "SVK", "TR": "TUR", "UK": "GBR",
    "US": "USA",
}
NOTE = ("Mean height at age 18 by birth cohort 1896–1996 (NCD Risk Factor Collaboration, eLife 2016); "
        "means only, no SDs; cohorts after 1996 are not covered.")


def parse(path: Path) -> pd.DataFrame:
    """The NCD-RisC table, validated; a LoaderError naming file and line otherwise."""
    text = read_text(path)
    rows = list(csv.reader(io.StringIO(text)))
    if not rows or [c.strip() for c in rows[0]] != HEADER:
        raise LoaderError(path, 1, f"unexpected header; expected {', '.join(HEADER)}")
    out = []
    for line, row in enumerate(rows[1:], start=2):
        if not row or all(not c.strip() for c in row):
            continue
        if len(row) != len(HEADER):
            raise LoaderError(path, line, f"{len(row)} fields, expected {len(HEADER)}")
        country, iso, sex, year, mean, lo, hi = (c.strip() for c in row)
        if sex not in SEX:
            raise LoaderError(path, line, f"sex {sex!r} is neither Men nor Women")
        if len(iso) != 3 or not iso.isalpha():
            raise LoaderError(path, line, f"ISO code {iso!r} is not three letters")
        try:
            year_i = int(year)
            values = [float(mean), float(lo), float(hi)]
        except ValueError:
            raise LoaderError(path, line, f"year {year!r} or heights {mean!r}, {lo!r}, {hi!r} are not numbers") from None
        if not all(math.isfinite(v) and 100.0 <= v <= 220.0 for v in values):
            raise LoaderError(path, line, f"mean height {mean} cm is outside 100–220 cm")
        if not 1850 <= year_i <= 2020:
            raise LoaderError(path, line, f"year of birth {year_i} is implausible")
        out.append((iso.upper(), country, SEX[sex], year_i, *values))
    df = pd.DataFrame(out, columns=["iso3", "country", "sex", "birth_year", "height_cm", "height_lo95", "height_hi95"])
    dup = df.duplicated(["iso3", "sex", "birth_year"])
    if dup.any():
        r = df[dup].iloc[0]
        raise LoaderError(path, None, f"{r.iso3} {r.sex} born {r.birth_year} appears twice")
    if "DEU" not in set(df["iso3"]):
        raise LoaderError(path, None, "no rows for Germany (DEU), whose statistics other countries borrow")
    for c in ("iso3", "country", "sex"):
        df[c] = df[c].astype("string")
    return df.sort_values(["iso3", "sex", "birth_year"], kind="mergesort").reset_index(drop=True)


def load(raw_root: Path) -> tuple[pd.DataFrame, list[SourceFile]] | None:
    """The table and its source, or None when the file is not shipped."""
    path = Path(raw_root) / FOLDER / FILE
    if not path.exists():
        return None
    source = SourceFile(
        path=path,
        publisher="NCD Risk Factor Collaboration (NCD-RisC)",
        table_id="NCD_RisC_eLife_2016_height_age18_countries",
        reference_date="birth cohorts 1896–1996",
        licence="CC BY 4.0 (eLife article); ncdrisc.org download terms believed to allow reuse with citation",
        citation="NCD Risk Factor Collaboration: A century of trends in adult human height. eLife 2016;5:e13410, "
        "doi:10.7554/eLife.13410.",
    )
    return parse(path), [source]
