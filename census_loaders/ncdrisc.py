"""NCD-RisC tables for the body prior of every country (issue 27): mean height by birth cohort, BMI by age.

* `eu/NCD_RisC_eLife_2016_height_age18_countries.csv`: 200 countries × 2 sexes × 101 birth cohorts
  (1896–1996) of mean height at 18 (eLife 2016), cached as ``height_cohorts.parquet``: ``iso3, country,
  sex (female/male), birth_year, height_cm, height_lo95, height_hi95``.
* `world/ncdrisc2024_bmi-gamma_…csv.gz`: BMI ~ Gamma(k, θ) by 200 countries × 2 sexes × 14 age groups
  (20–24 … 85+), 2022 (Lancet 2024, fitted by P. J. Dodd's bmitb), cached as ``bmi_gamma.parquet``.

The core builds each country's prior from both (:func:`dashboard.core.body.ncdrisc_prior`); the ISO
tables here map data set codes (ISO 3166-1 alpha-2) to NCD-RisC's alpha-3 and name the stand-ins of
countries a file lacks.  A malformed file gives a LoaderError naming file, line and problem.
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
#: ISO 3166-1 alpha-3 → alpha-2 of every country in the NCD-RisC files (200 + Hong Kong) and the UN WPP
#: file (187; Macao, Monaco): 203 countries.  Namibia's alpha-2 is the string "NA".
ISO2_OF_ISO3: dict[str, str] = {
    "AFG": "AF", "AGO": "AO", "ALB": "AL", "AND": "AD", "ARE": "AE", "ARG": "AR", "ARM": "AM", "ASM": "AS",
    "ATG": "AG", "AUS": "AU", "AUT": "AT", "AZE": "AZ", "BDI": "BI", "BEL": "BE", "BEN": "BJ", "BFA": "BF",
    "BGD": "BD", "BGR": "BG", "BHR": "BH", "BHS": "BS", "BIH": "BA", "BLR": "BY", "BLZ": "BZ", "BMU": "BM",
    "BOL": "BO", "BRA": "BR", "BRB": "BB", "BRN": "BN", "BTN": "BT", "BWA": "BW", "CAF": "CF", "CAN": "CA",
    "CHE": "CH", "CHL": "CL", "CHN": "CN", "CIV": "CI", "CMR": "CM", "COD": "CD", "COG": "CG", "COK": "CK",
    "COL": "CO", "COM": "KM", "CPV": "CV", "CRI": "CR", "CUB": "CU", "CYP": "CY", "CZE": "CZ", "DEU": "DE",
    "DJI": "DJ", "DMA": "DM", "DNK": "DK", "DOM": "DO", "DZA": "DZ", "ECU": "EC", "EGY": "EG", "ERI": "ER",
    "ESP": "ES", "EST": "EE", "ETH": "ET", "FIN": "FI", "FJI": "FJ", "FRA": "FR", "FSM": "FM", "GAB": "GA",
    "GBR": "GB", "GEO": "GE", "GHA": "GH", "GIN": "GN", "GMB": "GM", "GNB": "GW", "GNQ": "GQ", "GRC": "GR",
    "GRD": "GD", "GRL": "GL", "GTM": "GT", "GUY": "GY", "HKG": "HK", "HND": "HN", "HRV": "HR", "HTI": "HT",
    "HUN": "HU", "IDN": "ID", "IND": "IN", "IRL": "IE", "IRN": "IR", "IRQ": "IQ", "ISL": "IS", "ISR": "IL",
    "ITA": "IT", "JAM": "JM", "JOR": "JO", "JPN": "JP", "KAZ": "KZ", "KEN": "KE", "KGZ": "KG", "KHM": "KH",
    "KIR": "KI", "KNA": "KN", "KOR": "KR", "KWT": "KW", "LAO": "LA", "LBN": "LB", "LBR": "LR", "LBY": "LY",
    "LCA": "LC", "LKA": "LK", "LSO": "LS", "LTU": "LT", "LUX": "LU", "LVA": "LV", "MAC": "MO", "MAR": "MA",
    "MCO": "MC", "MDA": "MD", "MDG": "MG", "MDV": "MV", "MEX": "MX", "MHL": "MH", "MKD": "MK", "MLI": "ML",
    "MLT": "MT", "MMR": "MM", "MNE": "ME", "MNG": "MN", "MOZ": "MZ", "MRT": "MR", "MUS": "MU", "MWI": "MW",
    "MYS": "MY", "NAM": "NA", "NER": "NE", "NGA": "NG", "NIC": "NI", "NIU": "NU", "NLD": "NL", "NOR": "NO",
    "NPL": "NP", "NRU": "NR", "NZL": "NZ", "OMN": "OM", "PAK": "PK", "PAN": "PA", "PER": "PE", "PHL": "PH",
    "PLW": "PW", "PNG": "PG", "POL": "PL", "PRI": "PR", "PRK": "KP", "PRT": "PT", "PRY": "PY", "PSE": "PS",
    "PYF": "PF", "QAT": "QA", "ROU": "RO", "RUS": "RU", "RWA": "RW", "SAU": "SA", "SDN": "SD", "SEN": "SN",
    "SGP": "SG", "SLB": "SB", "SLE": "SL", "SLV": "SV", "SOM": "SO", "SRB": "RS", "SSD": "SS", "STP": "ST",
    "SUR": "SR", "SVK": "SK", "SVN": "SI", "SWE": "SE", "SWZ": "SZ", "SYC": "SC", "SYR": "SY", "TCD": "TD",
    "TGO": "TG", "THA": "TH", "TJK": "TJ", "TKL": "TK", "TKM": "TM", "TLS": "TL", "TON": "TO", "TTO": "TT",
    "TUN": "TN", "TUR": "TR", "TUV": "TV", "TWN": "TW", "TZA": "TZ", "UGA": "UG", "UKR": "UA", "URY": "UY",
    "USA": "US", "UZB": "UZ", "VCT": "VC", "VEN": "VE", "VNM": "VN", "VUT": "VU", "WSM": "WS", "YEM": "YE",
    "ZAF": "ZA", "ZMB": "ZM", "ZWE": "ZW",
}
#: Data set codes (ISO 3166-1 alpha-2, Eurostat's EL/UK spellings too) → NCD-RisC's ISO3.
ISO3: dict[str, str] = {**{a2: a3 for a3, a2 in ISO2_OF_ISO3.items()}, "EL": "GRC", "UK": "GBR", "LI": "LIE"}
#: Countries an NCD-RisC file lacks, and whose row stands in (ISO2 → {"height"|"bmi": ISO2}): the nearest
#: country by geography and population; every page and the CLI name the stand-in.
STAND_INS: dict[str, dict[str, str]] = {
    "HK": {"bmi": "CN"},                 # Hong Kong: no BMI row
    "MO": {"height": "HK", "bmi": "CN"},  # Macao: neither
    "MC": {"height": "FR", "bmi": "FR"},  # Monaco: neither
    "SS": {"height": "SD"},              # South Sudan: no height row (split from Sudan in 2011)
    "LI": {"height": "CH", "bmi": "CH"},  # Liechtenstein: in neither file
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


BMI_FOLDER = "world"
BMI_FILE = "ncdrisc2024_bmi-gamma_country_sex_age5_2022_via-bmitb-ae395f2.csv.gz"
BMI_HEADER = ["iso3", "year", "sex", "age_group", "age_start", "k", "theta", "Vkk", "Vkt", "Vtt", "cvgc",
              "mean_bmi", "sd_bmi"]
BMI_SEX = {"M": "male", "F": "female"}
#: The 14 NCD-RisC age groups: 20–24 … 80–84 and 85+ (open, ``age_to`` NaN).
BMI_AGE_STARTS = tuple(range(20, 90, 5))
BMI_YEAR = 2022
BMI_NOTE = ("Adult BMI ~ Gamma(shape k, scale θ) by country × sex × 5-year age group 20–24 … 85+, 2022, fitted to the "
            "NCD-RisC 2024 prevalences of seven BMI classes (P. J. Dodd, bmitb); adults 20+ only.")


def parse_bmi(path: Path) -> pd.DataFrame:
    """The NCD-RisC 2022 BMI gamma table, validated; a LoaderError naming file and line otherwise.

    Columns: ``iso3, sex (female/male), age_from, age_to (NaN = 85+), k, theta, mean_bmi, sd_bmi, cvgc``.
    """
    path = Path(path)
    text = read_text(path)
    reader = csv.reader(io.StringIO(text))
    header = [c.strip() for c in next(reader, [])]
    if header != BMI_HEADER:
        raise LoaderError(path, 1, f"unexpected header; expected {', '.join(BMI_HEADER)}")
    out = []
    for fields in reader:
        line = reader.line_num
        if not any(f.strip() for f in fields):
            continue
        if len(fields) != len(BMI_HEADER):
            raise LoaderError(path, line, f"{len(fields)} fields, expected {len(BMI_HEADER)}")
        rec = {h: f.strip() for h, f in zip(BMI_HEADER, fields)}
        iso = rec["iso3"]
        if len(iso) != 3 or not iso.isalpha():
            raise LoaderError(path, line, f"ISO code {iso!r} is not three letters")
        if rec["sex"] not in BMI_SEX:
            raise LoaderError(path, line, f"sex {rec['sex']!r} is neither M nor F")
        try:
            year, start = int(rec["year"]), int(rec["age_start"])
            k, theta, mean, sd = (float(rec[c]) for c in ("k", "theta", "mean_bmi", "sd_bmi"))
            cvgc = int(rec["cvgc"])
        except ValueError:
            raise LoaderError(path, line, "year, age_start, k, theta, mean_bmi, sd_bmi or cvgc is not a number") from None
        if year != BMI_YEAR:
            raise LoaderError(path, line, f"year {year} is not {BMI_YEAR}")
        want = "85+" if start == 85 else f"{start}-{start + 4}"
        if start not in BMI_AGE_STARTS or rec["age_group"] != want:
            raise LoaderError(path, line, f"age group {rec['age_group']!r} does not match age_start {start}")
        if not all(math.isfinite(v) and v > 0 for v in (k, theta)):
            raise LoaderError(path, line, f"gamma shape k {rec['k']!r} and scale θ {rec['theta']!r} must be positive")
        if not 12.0 <= k * theta <= 60.0:
            raise LoaderError(path, line, f"mean BMI k·θ = {k * theta:.1f} is outside 12–60 kg/m²")
        if abs(mean - k * theta) > 1e-6 * mean or abs(sd - math.sqrt(k) * theta) > 1e-6 * sd:
            raise LoaderError(path, line, f"mean_bmi {mean} / sd_bmi {sd} disagree with k·θ and √k·θ")
        out.append((iso.upper(), BMI_SEX[rec["sex"]], float(start), math.nan if start == 85 else float(start + 5),
                    k, theta, mean, sd, cvgc, line))
    df = pd.DataFrame(out, columns=["iso3", "sex", "age_from", "age_to", "k", "theta", "mean_bmi", "sd_bmi", "cvgc",
                                    "line"])
    if df.empty:
        raise LoaderError(path, None, "no data rows")
    dup = df.duplicated(["iso3", "sex", "age_from"])
    if dup.any():
        r = df[dup].iloc[0]
        raise LoaderError(path, int(r.line), f"{r.iso3} {r.sex} {r.age_from:g}+ appears twice")
    counts = df.groupby(["iso3", "sex"]).size()
    short = counts[counts != len(BMI_AGE_STARTS)]
    if len(short) or df.groupby("iso3")["sex"].nunique().min() != 2:
        iso = short.index[0][0] if len(short) else df.groupby("iso3")["sex"].nunique().idxmin()
        raise LoaderError(path, None, f"{iso} lacks some of the {len(BMI_AGE_STARTS)} age groups × 2 sexes")
    for c in ("iso3", "sex"):
        df[c] = df[c].astype("string")
    df = df.drop(columns="line").sort_values(["iso3", "sex", "age_from"], kind="mergesort")
    return df.reset_index(drop=True)


def load_bmi(raw_root: Path) -> tuple[pd.DataFrame, list[SourceFile]] | None:
    """The BMI gamma table and its source, or None when the file is not shipped."""
    path = Path(raw_root) / BMI_FOLDER / BMI_FILE
    if not path.exists():
        return None
    source = SourceFile(
        path=path.resolve(),
        publisher="NCD Risk Factor Collaboration (NCD-RisC), via P. J. Dodd's bmitb (GitHub petedodd/bmitb @ ae395f2)",
        table_id="NCD-RisC 2024 age-specific BMI, gamma fit (bmitb data/DRB.Rdata)",
        reference_date="2022",
        licence="CC BY 4.0 (NCD-RisC data); bmitb repository MIT",
        citation=("NCD Risk Factor Collaboration: Worldwide trends in underweight and obesity from 1990 to 2022. "
                  "Lancet 2024;403:1027–1050, doi:10.1016/S0140-6736(23)02750-2; gamma parameters from "
                  "P. J. Dodd, bmitb (MIT)."),
    )
    return parse_bmi(path), [source]


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
