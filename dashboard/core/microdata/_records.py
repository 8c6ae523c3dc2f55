"""A record-level data set: reading it, choosing quasi-identifiers, and its empirical classes (SPEC §5).

* :func:`read_csv` — a user's CSV (bytes, in memory) → a typed :class:`Table`, within stated limits:
  size, rows, columns; encoding (UTF-8 with or without BOM, UTF-16 with BOM, else Windows-1252)
  and delimiter (comma, semicolon, tab or bar) detected; missing-value tokens recognised.
  Nothing is written anywhere: the bytes are parsed and dropped by the caller.
* :func:`nhanes_table` — the shipped NHANES 2017–2018 sample from the data cache.
* :func:`prepare` — the chosen quasi-identifier columns, binned (numeric: ``floor(x / w) · w``)
  and encoded as integer codes, under a stated missing-value policy:
  ``drop`` (default) leaves out every record with a missing value in a chosen column;
  ``value`` keeps it and treats "missing" as one more value of that column.
* :func:`empirical` — equivalence classes, each record's class size, the share of unique
  records, the counts of counts (for the Pitman–Yor fit of SPEC §3) and k-anonymity
  violations for k = 2, 5, 10.

Everything raises :class:`~dashboard.core.errors.InputError` with a message for a person;
no value from the file is ever logged.
"""
from __future__ import annotations

import csv
import io
import math
import re
from dataclasses import dataclass, field

import numpy as np
import pandas as pd
from scipy.stats import rankdata

from census_loaders import cache

from ..errors import InputError
from ..memo import Memo
from ..text import N_, gettext, ngettext, translate_marked
from ._words import num, pct

#: Largest CSV accepted (bytes). The page also keeps it under the server's request limit.
MAX_BYTES = 10_000_000
MAX_ROWS = 200_000
MAX_COLUMNS = 200
#: Most quasi-identifier columns analysed together.
MAX_QI = 16  # ADULT has 14 attributes besides income (the PROVENANCE's set (d))
#: A column whose distinct values number at least this share of the records is an identifier and is refused
#: (from :data:`IDENTIFIER_MIN_RECORDS` records up; below that a warning says so).
IDENTIFIER_SHARE = 0.95
IDENTIFIER_MIN_RECORDS = 20
#: A column with more distinct values than this gets a warning (bin it).
MANY_VALUES = 1_000
#: Distinct values above which a chosen column is refused (it cannot be a meaningful QI).
MAX_VALUES = 50_000
KS: tuple[int, ...] = (2, 5, 10)
MISSING_POLICIES = ("drop", "value")
MISSING_LABEL = "(missing)"
#: Cell texts read as "missing" (case-insensitive, after trimming spaces).
MISSING_TOKENS = frozenset({"", "na", "n/a", "nan", "null", "none", ".", "?", "-", "missing", "#n/a"})
DELIMITERS = {",": N_("comma"), ";": N_("semicolon"), "\t": N_("tab"), "|": N_("bar")}
NHANES_ID = "nhanes"
ADULT_ID = "adult"


class ColumnError(InputError):
    """A chosen column cannot be a quasi-identifier (one value for everyone, or an identifier)."""


@dataclass
class Table:
    """A typed record table: numeric columns float64 (NaN = missing), others object strings (None = missing)."""

    frame: pd.DataFrame
    name: str
    source: str  # "upload" or a shipped data set's id ("nhanes", "adult")
    encoding: str = "utf-8"
    delimiter: str = ","
    notes: list[str] = field(default_factory=list)
    #: each note's structure (``census_loaders.notes``: template and fields) where the data set's manifest has it,
    #: so a page says the note in its language (``dashboard.core.text.note_in_language``)
    note_parts: list[dict | None] = field(default_factory=list)
    _described: list[dict] | None = field(default=None, init=False, repr=False, compare=False)

    @property
    def n_rows(self) -> int:
        return len(self.frame)

    def numeric(self, column: str) -> bool:
        return pd.api.types.is_float_dtype(self.frame[column])

    def describe(self) -> list[dict]:
        """One row per column: name, kind, distinct values, missing count, range or example (worked out once per
        table: the page asks for it three times per file, and a shipped table is shared by every visitor)."""
        if self._described is None:
            self._described = self._describe()
        return [dict(row) for row in self._described]

    def _describe(self) -> list[dict]:
        out = []
        for col in self.frame.columns:
            s = self.frame[col]
            missing = int(s.isna().sum())
            distinct = int(s.nunique(dropna=True))
            row = {"name": col, "kind": "numeric" if self.numeric(col) else "categorical",
                   "distinct": distinct, "missing": missing}
            if self.numeric(col) and distinct:
                row["min"], row["max"] = float(s.min()), float(s.max())
            out.append(row)
        return out




def too_large(name: str, size: int, limit: int) -> str:
    """Why a file is refused for its size (the page says it before the upload too)."""
    return gettext("{name} is {size} MB; files of at most {limit} MB are accepted").format(
        name=name, size=num(size / 1e6, ".1f"), limit=num(limit / 1e6, ".0f"))


def too_wide(name: str, columns: int) -> str:
    return gettext("{name} has {columns} columns; at most {most} are accepted").format(
        name=name, columns=num(columns), most=num(MAX_COLUMNS))


def unreadable(name: str, delim: str) -> str:
    return gettext("{name} could not be read as a {delimiter}-separated table").format(
        name=name, delimiter=translate_marked(DELIMITERS[delim]))


def _decode(raw: bytes, name: str) -> tuple[str, str]:
    if raw.startswith((b"\xff\xfe", b"\xfe\xff")):
        try:
            return raw.decode("utf-16"), "UTF-16"
        except UnicodeDecodeError:
            raise InputError(gettext("{name}: starts like a UTF-16 text but could not be decoded").format(
                name=name)) from None
    if b"\x00" in raw[:4096]:
        raise InputError(gettext("{name} is not a text file (it looks binary — e.g. an Excel workbook); save it as "
                                 "CSV first").format(name=name))
    try:
        return raw.decode("utf-8-sig"), "UTF-8"
    except UnicodeDecodeError:
        pass
    try:
        return raw.decode("cp1252"), "Windows-1252"
    except UnicodeDecodeError:
        return raw.decode("latin-1"), "Latin-1"


def _sniff_delimiter(lines: list[str], name: str) -> str:
    """The delimiter giving the same number (> 1) of fields on most of the first lines."""
    best, best_score = None, (0, 0)
    for delim in DELIMITERS:
        try:
            counts = [len(r) for r in csv.reader(lines, delimiter=delim)]
        except csv.Error:
            continue
        if not counts:
            continue
        mode = max(set(counts), key=counts.count)
        if mode < 2:
            continue
        score = (counts.count(mode), mode)  # most consistent lines, then most fields
        if score > best_score:
            best, best_score = delim, score
    if best is None:
        raise InputError(gettext("{name} has a single column: AnonSet needs at least two columns separated by "
                                 "commas, semicolons, tabs or bars (|)").format(name=name))
    return best


_DECIMAL_COMMA = re.compile(r"^[+-]?\d+,\d+$")


def _type_column(s: pd.Series, decimal_comma: bool) -> pd.Series:
    """Trimmed strings with missing tokens → None; numeric when every other value is a number."""
    s = s.astype(object).where(s.notna(), "")
    s = s.map(lambda v: str(v).strip())
    missing = s.str.lower().isin(MISSING_TOKENS)
    s = s.where(~missing, None)
    present = s.dropna()
    if present.empty:
        return pd.Series(np.full(len(s), np.nan), index=s.index, dtype="float64")
    texts = present
    if decimal_comma and texts.str.match(_DECIMAL_COMMA).any():
        texts = texts.str.replace(",", ".", regex=False)
    nums = pd.to_numeric(texts, errors="coerce")
    if nums.notna().all() and np.isfinite(nums.to_numpy(dtype=float)).all():
        out = pd.Series(np.nan, index=s.index, dtype="float64")
        out.loc[present.index] = nums.to_numpy(dtype=float)
        return out
    return s


def read_csv(raw: bytes, name: str = "the file", *, max_bytes: int = MAX_BYTES) -> Table:
    """Parse an uploaded CSV held in memory (never written to disk) into a typed :class:`Table`."""
    name = str(name or "the file")[:80]
    if raw is None or len(raw) == 0:
        raise InputError(gettext("{name} is empty").format(name=name))
    if len(raw) > max_bytes:
        raise InputError(too_large(name, len(raw), max_bytes))
    text, encoding = _decode(raw, name)
    if not text.strip():
        raise InputError(gettext("{name} is empty").format(name=name))
    head = [ln for ln in text.splitlines()[:50] if ln.strip()]
    delim = _sniff_delimiter(head, name)
    # the shape before the parse: a 10,000-column file is refused from its first lines (rows: nrows below)
    widest = max(len(r) for r in csv.reader(head, delimiter=delim))
    if widest > MAX_COLUMNS:
        raise InputError(too_wide(name, widest))
    try:
        frame = pd.read_csv(io.StringIO(text), sep=delim, dtype=str, keep_default_na=False, header=None,
                            skip_blank_lines=True, engine="c", nrows=MAX_ROWS + 2)
    except pd.errors.ParserError as exc:
        m = re.search(r"Expected (\d+) fields in line (\d+), saw (\d+)", str(exc))
        if m:
            raise InputError(gettext("{name}, line {line}: {fields} fields where the header has {header} (is the "
                                     "delimiter {delimiter}?)").format(
                name=name, line=m.group(2), fields=m.group(3), header=m.group(1),
                delimiter=translate_marked(DELIMITERS[delim]))) from None
        raise InputError(unreadable(name, delim)) from None
    except (UnicodeError, ValueError):
        raise InputError(unreadable(name, delim)) from None
    header = [str(v) for v in frame.iloc[0].tolist()] if len(frame) else []
    frame = frame.iloc[1:].reset_index(drop=True)
    if frame.shape[1] > MAX_COLUMNS:
        raise InputError(too_wide(name, frame.shape[1]))
    if frame.shape[1] < 2:
        raise InputError(gettext("{name} has a single column: AnonSet needs at least two").format(name=name))
    if len(frame) > MAX_ROWS:
        raise InputError(gettext("{name} has more than {most} records; at most {most} are accepted").format(
            name=name, most=num(MAX_ROWS)))
    if len(frame) == 0:
        raise InputError(gettext("{name} has a header but no records").format(name=name))
    names, seen = [], set()
    for i, col in enumerate(header, start=1):
        base = str(col).strip() or f"column {i}"
        label, j = base[:60], 2
        while label in seen:
            label, j = f"{base[:55]} ({j})", j + 1
        seen.add(label)
        names.append(label)
    frame.columns = names
    typed = pd.DataFrame({c: _type_column(frame[c], decimal_comma=delim == ";") for c in names})
    notes = [gettext("Read {records} records and {columns} columns ({encoding}, {delimiter}-separated).").format(
        records=num(len(typed)), columns=num(len(names)), encoding=encoding,
        delimiter=translate_marked(DELIMITERS[delim]))]
    empty = [c for c in names if typed[c].isna().all()]
    if empty:
        notes.append(ngettext("Column {columns} holds no values.", "Columns {columns} hold no values.",
                              len(empty)).format(columns=", ".join(empty[:5])))
    return Table(frame=typed, name=name, source="upload", encoding=encoding, delimiter=delim, notes=notes)


#: The shipped record-level data sets: id → (page name, columns left out because they are IDs).
SHIPPED: dict[str, tuple[str, tuple[str, ...]]] = {
    NHANES_ID: (N_("NHANES 2017–2018 sample"), ("seqn",)),  # names marked: a page says them in its language
    ADULT_ID: (N_("UCI Adult 1994 (census income)"), ()),
}


def shipped_table(dataset_id: str, root=None) -> Table:
    """A shipped record-level data set from the data cache (ID columns left out), as a typed :class:`Table`.

    Made once per data set and cache folder and shared (every visit to the data-set page opens one): treat it as
    read-only."""
    if dataset_id not in SHIPPED:
        raise InputError(f"no shipped data set {str(dataset_id)[:20]!r} (shipped: {', '.join(SHIPPED)})")
    return _SHIPPED_TABLES.get((dataset_id, None if root is None else str(root)),
                               lambda: _read_shipped_table(dataset_id, root))


_SHIPPED_TABLES = Memo(4, name="core.microdata.shipped_tables")


def _read_shipped_table(dataset_id: str, root=None) -> Table:
    name, id_columns = SHIPPED[dataset_id]
    df = cache.microdata(dataset_id, root).drop(columns=list(id_columns))
    frame = pd.DataFrame({
        c: (df[c].astype("float64") if pd.api.types.is_numeric_dtype(df[c])
            else df[c].astype(object).where(df[c].notna(), None))
        for c in df.columns
    })
    info = cache.microdata_info(dataset_id, root)
    note = info.get("note") or name
    return Table(frame=frame, name=name, source=dataset_id, notes=[str(note)],
                 note_parts=[info.get("note_parts") if info.get("note") else None])


def nhanes_table(root=None) -> Table:
    """The shipped NHANES 2017–2018 sample (the respondent number ``seqn`` left out: it is an ID)."""
    return shipped_table(NHANES_ID, root)


def adult_table(root=None) -> Table:
    """The shipped UCI Adult file (1994; ``?`` is missing: "missing is a value" keeps it as one)."""
    return shipped_table(ADULT_ID, root)




@dataclass
class Prepared:
    """The chosen quasi-identifiers of the kept records as integer codes (n × d).

    ``labels[j][c]`` is the text of code ``c`` in column ``j``; codes are ordered by value for
    numeric columns (``ordinal[j]``) and by a seeded random order for categorical ones (the
    copula needs an order; Rocher et al. randomise it for nominal attributes). Missing, when
    kept as a value, is the last code.
    """

    columns: list[str]
    codes: np.ndarray
    labels: list[np.ndarray]
    ordinal: list[bool]
    widths: dict[str, float]
    missing: str
    n_input: int
    dropped: int
    row_index: np.ndarray  # positions of the kept records in the table
    warnings: list[str]

    @property
    def n(self) -> int:
        return int(self.codes.shape[0])

    @property
    def cards(self) -> np.ndarray:
        return np.array([len(lab) for lab in self.labels], dtype=np.int64)

    def record_labels(self, rows) -> list[dict]:
        """The QI values of some records, as texts (for a table of the riskiest records)."""
        rows = np.asarray(rows, dtype=int)
        return [{c: str(self.labels[j][self.codes[i, j]]) for j, c in enumerate(self.columns)} for i in rows]


def parse_columns(text: str | None) -> list[str]:
    if text is None or not str(text).strip():
        raise InputError("choose at least one quasi-identifier column (e.g. --columns sex,age,race)")
    cols = [c.strip() for c in next(csv.reader([str(text)])) if c.strip()]
    if not cols:
        raise InputError("choose at least one quasi-identifier column")
    return cols


def parse_bins(text: str | None) -> dict[str, float]:
    """``"age=5,height_cm=2"`` → {"age": 5.0, "height_cm": 2.0}."""
    out: dict[str, float] = {}
    if text is None or not str(text).strip():
        return out
    for part in str(text).split(","):
        part = part.strip()
        if not part:
            continue
        if "=" not in part:
            raise InputError(f"bin {part!r} is not of the form column=width (e.g. age=5)")
        col, _, width = part.rpartition("=")
        out[col.strip()] = check_width(width, col.strip())
    return out


def check_width(value, column: str) -> float:
    try:
        w = float(str(value).strip().replace(",", "."))
    except ValueError:
        raise InputError(gettext("bin width of {column}: {value} is not a number").format(
            column=repr(column), value=repr(str(value)[:20]))) from None
    if not math.isfinite(w) or w <= 0:
        raise InputError(gettext("bin width of {column} must be a positive number, not {value}").format(
            column=repr(column), value=str(value)[:20]))
    return w


def _fmt(x: float) -> str:
    return f"{x:.10g}"


def _bin_labels(values: np.ndarray, width: float | None) -> tuple[np.ndarray, np.ndarray]:
    """Sorted distinct bins of the (finite) values and each value's bin index."""
    if width is None:
        uniq, inv = np.unique(values, return_inverse=True)
        return np.array([_fmt(u) for u in uniq], dtype=object), inv
    lo = np.floor(values / width)
    uniq, inv = np.unique(lo, return_inverse=True)
    labels = np.array([f"[{_fmt(u * width)}, {_fmt((u + 1) * width)})" for u in uniq], dtype=object)
    return labels, inv


def prepare(table: Table, columns, bins: dict[str, float] | None = None, missing: str = "drop",
            seed: int = 0) -> Prepared:
    """Encode the chosen columns of the table (see :class:`Prepared`); InputError on bad choices."""
    bins = dict(bins or {})
    if isinstance(columns, str):
        columns = parse_columns(columns)
    columns = list(columns)
    if not columns:
        raise InputError("choose at least one quasi-identifier column")
    if len(columns) > MAX_QI:
        raise InputError(gettext("at most {most} quasi-identifier columns can be analysed together (got {count})").format(
            most=MAX_QI, count=len(columns)))
    if len(set(columns)) != len(columns):
        raise InputError(gettext("a column is chosen twice"))
    known = list(table.frame.columns)
    for c in columns:
        if c not in known:
            raise InputError(gettext("no column {column} in {table} (columns: {columns})").format(
                column=repr(c), table=table.name, columns=", ".join(known[:12]) + (", …" if len(known) > 12 else "")))
    for c, w in bins.items():
        if c not in columns:
            raise InputError(gettext("a bin width is given for {column}, which is not among the chosen columns").format(
                column=repr(c)))
        if not table.numeric(c):
            raise InputError(gettext("column {column} is not numeric: it cannot be binned").format(column=repr(c)))
        check_width(w, c)
    if missing not in MISSING_POLICIES:
        raise InputError(f"missing-value policy must be one of {', '.join(MISSING_POLICIES)}, not {str(missing)[:20]!r}")
    frame = table.frame[columns]
    miss = frame.isna().to_numpy()
    n_input = len(frame)
    if missing == "drop":
        keep = ~miss.any(axis=1)
    else:
        keep = np.ones(n_input, dtype=bool)
    row_index = np.flatnonzero(keep)
    dropped = n_input - row_index.size
    if row_index.size < 2:
        raise InputError(ngettext(
            "only {count} record remains after leaving out those with a missing value in the chosen columns; choose "
            "other columns or keep missing values as a value",
            "only {count} records remain after leaving out those with a missing value in the chosen columns; choose "
            "other columns or keep missing values as a value", int(row_index.size)).format(count=int(row_index.size)))
    rng = np.random.default_rng(seed)
    codes = np.empty((row_index.size, len(columns)), dtype=np.int32)
    labels, ordinal, warnings = [], [], []
    for j, c in enumerate(columns):
        s = frame[c].to_numpy()[row_index]
        m = miss[row_index, j]
        if table.numeric(c):
            vals = s.astype(float)
            lab, inv = _bin_labels(vals[~m], bins.get(c))
            ordinal.append(True)
        else:
            vals = np.array([str(v) for v in s[~m]], dtype=object)
            uniq, inv = np.unique(vals, return_inverse=True)
            perm = rng.permutation(uniq.size)  # random order of a nominal column's values
            rank = np.empty_like(perm)
            rank[perm] = np.arange(perm.size)
            lab = uniq[perm]
            inv = rank[inv]
            ordinal.append(False)
        col_codes = np.empty(row_index.size, dtype=np.int32)
        col_codes[~m] = inv
        if m.any():
            lab = np.append(lab, MISSING_LABEL)
            col_codes[m] = lab.size - 1
        codes[:, j] = col_codes
        labels.append(np.asarray(lab, dtype=object))
        k = lab.size
        if k > MAX_VALUES:
            raise InputError((gettext("column {column} has {count} distinct values: give it a bin width (at most "
                                      "{most})") if table.numeric(c) else
                              gettext("column {column} has {count} distinct values: it cannot be a quasi-identifier "
                                      "(at most {most})")).format(column=repr(c), count=num(k), most=num(MAX_VALUES)))
        if k == 1:
            raise ColumnError(gettext("column {column} has a single value in every kept record: it tells no one apart "
                                      "and adds nothing; leave it out").format(column=repr(c)))
        if row_index.size >= IDENTIFIER_MIN_RECORDS and k >= IDENTIFIER_SHARE * row_index.size:
            raise ColumnError((gettext(
                "column {column} is an identifier: {count} distinct values for {records} records ({share}), so it "
                "alone singles out almost everyone. Leave it out or give it a bin width (uniqueness is about what "
                "else identifies people)") if table.numeric(c) else gettext(
                "column {column} is an identifier: {count} distinct values for {records} records ({share}), so it "
                "alone singles out almost everyone. Leave it out (uniqueness is about what else identifies "
                "people)")).format(column=repr(c), count=num(k), records=num(int(row_index.size)),
                                   share=pct(k / row_index.size)))
        if k == row_index.size and k > 1:
            warnings.append((gettext("{column}: this column alone identifies everyone (every record has its own "
                                     "value); give it a bin width") if table.numeric(c) else
                             gettext("{column}: this column alone identifies everyone (every record has its own "
                                     "value)")).format(column=c))
        elif k > MANY_VALUES:
            warnings.append((gettext("{column}: {count} distinct values — almost every value is rare; a bin width "
                                     "would group them") if table.numeric(c) else
                             gettext("{column}: {count} distinct values — almost every value is rare")).format(
                column=c, count=num(k)))
    if dropped:
        warnings.insert(0, gettext("{dropped} of {records} records have a missing value in a chosen column and are "
                                   "left out (missing-value policy: drop)").format(dropped=num(dropped),
                                                                                   records=num(n_input)))
    return Prepared(columns=columns, codes=codes, labels=labels, ordinal=ordinal,
                    widths={c: float(w) for c, w in bins.items()}, missing=missing, n_input=n_input,
                    dropped=dropped, row_index=row_index, warnings=warnings)




def class_ids(codes: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Each record's class index and the class sizes (classes = identical rows of ``codes``)."""
    codes = np.asarray(codes)
    if codes.ndim != 2 or codes.shape[0] == 0:
        raise InputError("no records to classify")
    cards = codes.max(axis=0).astype(np.float64) + 1
    if np.sum(np.log2(np.maximum(cards, 1))) < 62:  # one mixed-radix integer key per record
        key = np.zeros(codes.shape[0], dtype=np.int64)
        for j in range(codes.shape[1]):
            key = key * int(cards[j]) + codes[:, j].astype(np.int64)
        _, inv, counts = np.unique(key, return_inverse=True, return_counts=True)
    else:
        _, inv, counts = np.unique(codes, axis=0, return_inverse=True, return_counts=True)
    return inv.ravel().astype(np.int64), counts.astype(np.int64)


@dataclass
class Empirical:
    n_records: int
    n_classes: int
    uniqueness: float           # share of records alone in their class
    class_size: np.ndarray      # per record
    sizes: np.ndarray           # counts of counts: distinct class sizes …
    multiplicities: np.ndarray  # … and how many classes have each
    violations: dict[int, dict]  # k → records / classes below k

    def to_dict(self) -> dict:
        return {
            "n_records": self.n_records, "n_classes": self.n_classes, "uniqueness": self.uniqueness,
            "unique_records": int(np.sum(self.class_size == 1)),
            "largest_class": int(self.sizes.max()),
            "median_class_size_of_a_record": float(np.median(self.class_size)),
            "counts_of_counts": [{"size": int(s), "classes": int(m)} for s, m in zip(self.sizes, self.multiplicities)],
            "k_anonymity": {str(k): v for k, v in self.violations.items()},
        }


def empirical(codes: np.ndarray, ks=KS) -> Empirical:
    """Equivalence classes of the records, share unique, counts of counts, k-anonymity violations."""
    inv, counts = class_ids(codes)
    size = counts[inv]
    n = int(size.size)
    sizes, mult = np.unique(counts, return_counts=True)
    viol = {}
    for k in ks:
        rec = int(np.sum(size < k))
        viol[int(k)] = {"records": rec, "share": rec / n, "classes": int(np.sum(counts < k))}
    return Empirical(n_records=n, n_classes=int(counts.size), uniqueness=float(np.mean(size == 1)),
                     class_size=size, sizes=sizes.astype(np.int64), multiplicities=mult.astype(np.int64),
                     violations=viol)




def roc_auc(scores, labels) -> float | None:
    """Area under the ROC curve of ``scores`` for the binary ``labels`` (ties count one half).

    The Mann–Whitney form: the probability that a random positive scores above a random
    negative.  None when the labels hold a single class (the AUC is undefined).
    """

    s = np.asarray(scores, dtype=float).ravel()
    y = np.asarray(labels, dtype=bool).ravel()
    if s.shape != y.shape:
        raise InputError("one score per label is needed")
    pos, neg = int(y.sum()), int((~y).sum())
    if pos == 0 or neg == 0:
        return None
    r = rankdata(s)
    return float((r[y].sum() - pos * (pos + 1) / 2) / (pos * neg))


def roc_curve(scores, labels, max_points: int = 200) -> dict | None:
    """False- and true-positive rates over thresholds (at most ``max_points``), for a figure."""
    s = np.asarray(scores, dtype=float).ravel()
    y = np.asarray(labels, dtype=bool).ravel()
    pos, neg = int(y.sum()), int((~y).sum())
    if pos == 0 or neg == 0:
        return None
    order = np.argsort(-s, kind="stable")
    s, y = s[order], y[order]
    last = np.r_[np.flatnonzero(np.diff(s) != 0), s.size - 1]  # end of each run of tied scores
    tp = np.cumsum(y)[last]
    fp = np.cumsum(~y)[last]
    tpr = np.r_[0.0, tp / pos]
    fpr = np.r_[0.0, fp / neg]
    if tpr.size > max_points:
        keep = np.unique(np.linspace(0, tpr.size - 1, max_points).round().astype(int))
        tpr, fpr = tpr[keep], fpr[keep]
    return {"fpr": fpr.tolist(), "tpr": tpr.tolist()}
