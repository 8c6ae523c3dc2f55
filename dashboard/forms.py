"""Turn what a person typed into core arguments, with messages a person understands.

Pure functions (no Dash): the page callbacks call them, and so do the tests.
Every problem raises :class:`~dashboard.core.errors.InputError` naming the field.
"""
from __future__ import annotations

import base64
import binascii
import math
import re

import numpy as np

from dashboard.core import scaling as pyc_fit
from dashboard.core.errors import InputError
from dashboard.core.text import format_count, local_number
from dashboard.core.text import gettext as _

#: Imperial units of the personal page, converted in the browser (``assets/personal_page.js``, same factors).
CM_PER_INCH = 2.54
KG_PER_LB = 0.45359237
#: Band widths offered in the interface (cm and kg, SPEC §1.1).
WIDTHS = (1, 2, 5, 10, 20)
#: The largest user count accepted for k-indistinguishability (the world population).
MAX_USERS = 8_000_000_000
#: Measurements of correctness (n, κ̂): the largest pasted text or uploaded CSV, and the most points.
MAX_CSV_BYTES = 1_000_000
MAX_POINTS = pyc_fit.MAX_POINTS


def number(value, field: str, *, lo: float | None = None, hi: float | None = None, required: bool = False) -> float | None:
    """A finite number from a text box (None when empty and not required)."""
    if value is None or (isinstance(value, str) and not value.strip()):
        if required:
            raise InputError(_("{field}: please enter a number").format(field=field))
        return None
    if isinstance(value, bool):
        raise InputError(_("{field}: {value} is not a number").format(field=field, value=repr(value)))
    if isinstance(value, (int, float)):
        x = float(value)
    else:
        text = str(value).strip().replace(",", ".")
        if len(text) > 40:
            raise InputError(_("{field}: that is not a number").format(field=field))
        try:
            x = float(text)
        except ValueError:
            raise InputError(_("{field}: {value} is not a number").format(field=field, value=repr(text))) from None
    if not math.isfinite(x):
        raise InputError(_("{label}: please enter a finite number").format(label=field))
    if lo is not None and x < lo:
        raise InputError(f"{field}: {plain(x)} is "
                         + (f"outside the range {plain(lo)}–{plain(hi)}" if hi is not None else f"below {plain(lo)}"))
    if hi is not None and x > hi:
        raise InputError(f"{field}: {plain(x)} is "
                         + (f"outside the range {plain(lo)}–{plain(hi)}" if lo is not None else f"above {plain(hi)}"))
    return x


def plain(x: float) -> str:
    """A number as a person reads it in a message: 8,000,000,000 and 0.01, never 8e+09 or 1e-05."""
    if abs(x) >= 1e15:
        e = int(math.floor(math.log10(abs(x))))
        return f"{x / 10 ** e:.3g} × 10^{e}"
    if x == int(x):
        return f"{int(x):,}"
    if abs(x) >= 1e-4:
        return f"{x:,.6g}" if abs(x) < 1e6 else f"{x:,.0f}"
    return f"{x:.12f}".rstrip("0")






def width(value, field: str) -> int:
    """A band width from the offered list (default 5)."""
    if value in (None, ""):
        return 5
    try:
        w = int(float(value))
    except (TypeError, ValueError):
        raise InputError(_("{field}: choose one of {widths}").format(field=field, widths=", ".join(map(str, WIDTHS)))) from None
    if w not in WIDTHS:
        raise InputError(_("{field}: choose one of {widths}").format(field=field, widths=", ".join(map(str, WIDTHS))))
    return w






def choice(value, allowed, field: str, *, default=None):
    """One of a fixed set of values (e.g. a sex or a units toggle) or the default."""
    if value in (None, ""):
        return default
    if value not in allowed:
        raise InputError(f"{field}: {str(value)[:40]!r} is not one of the choices")
    return value


def selection(values, allowed, field: str) -> tuple:
    """A multi-select: every value must be offered (unknown ones are an error, not dropped)."""
    if values in (None, ""):
        return ()
    if isinstance(values, (str, int, float)):
        values = [values]
    if not isinstance(values, (list, tuple)):
        raise InputError(f"{field}: unexpected selection")
    if len(values) > 500:
        raise InputError(f"{field}: too many values selected")
    allowed = set(allowed)
    bad = [v for v in values if not isinstance(v, (str, int, float)) or v not in allowed]
    if bad:
        raise InputError(f"{field}: {str(bad[0])[:40]!r} is not one of the choices")
    return tuple(dict.fromkeys(values))


def strings(values) -> list[str]:
    """A multi-choice value (checklist, multi-dropdown): a list of strings.  Anything else in a tampered
    request (a bare string, numbers, nested lists, dicts) is no choice rather than an error."""
    if isinstance(values, list) and all(isinstance(v, str) for v in values):
        return values
    return []


def query_lists(query) -> dict[str, list[str]]:
    """A URL query (``request.args.to_dict(flat=False)``, or any mapping of a key to a value or a list of
    them) as each key's values, as texts (``None`` left out)."""
    return {str(key): [str(v) for v in (value if isinstance(value, (list, tuple)) else [value]) if v is not None]
            for key, value in dict(query).items()}


def query_last(query) -> dict[str, str]:
    """Each key's value, the last one when a key is repeated (as for any setting given twice in a link)."""
    return {key: values[-1] for key, values in query_lists(query).items() if values}


# --------------------------------------------------------------------------- measured points (n, κ̂)


def _cell_number(value, row: int, column: str) -> float | None:
    if value is None or (isinstance(value, str) and not value.strip()):
        return None
    if isinstance(value, bool):
        raise InputError(_("Row {row}: {value} in column {column} is not a number").format(
            row=row, value=repr(value), column=column))
    if isinstance(value, (int, float)):
        return float(value)
    text = str(value).strip().replace("_", "")
    try:
        return float(text)
    except ValueError:
        raise InputError(_("Row {row}: {value} in column {column} is not a number").format(
            row=row, value=repr(text[:30]), column=column)) from None


def rows_to_points(rows) -> tuple[np.ndarray, np.ndarray]:
    """Table rows ({"n": …, "kappa": …}) → validated (n, κ); blank rows are skipped."""
    if not isinstance(rows, list):
        raise InputError(_("Enter at least two measurements (n, κ̂)"))
    if len(rows) > MAX_POINTS:
        raise InputError(_("At most {limit} measurements are accepted (got {count} rows)").format(
            limit=format_count(MAX_POINTS), count=format_count(len(rows))))
    n, k = [], []
    for i, row in enumerate(rows, start=1):
        row = row if isinstance(row, dict) else {}
        a, b = _cell_number(row.get("n"), i, "n"), _cell_number(row.get("kappa"), i, "κ̂")
        if a is None and b is None:
            continue
        if a is None or b is None:
            raise InputError(_("Row {row}: give both the gallery size n and the measured κ̂").format(row=i))
        n.append(a)
        k.append(b)
    return pyc_fit.check_points(n, k)


_SEP = re.compile(r"[,;\t]+|\s+")
_KAPPA_NAMES = {"kappa", "κ", "k", "correctness", "kappa_hat", "κ̂", "kappahat"}


def parse_points_text(text: str) -> list[dict]:
    """Pasted measurements, one ``n,kappa`` per line (or ``n:kappa,n:kappa``) → table rows."""
    text = str(text or "")
    if len(text) > MAX_CSV_BYTES:
        raise InputError(_("The pasted text is larger than 1 MB; upload a CSV of at most {count} points instead").format(
            count=format_count(10_000)))
    if ":" in text:
        pairs = [p.strip() for p in re.split(r"[,;\n]+", text) if p.strip()]
        lines = [p.replace(":", ",") for p in pairs]
    else:
        lines = text.splitlines()
    return _rows_from_lines(lines, _("pasted text"), line_word="Line")


def parse_csv(contents: str | None, filename: str | None = None) -> list[dict]:
    """An uploaded CSV (columns n,kappa; header optional) → table rows, within the stated limits."""
    name = str(filename or _("the file"))[:80]
    if not contents or "," not in contents:
        raise InputError(_("{file}: the upload is empty").format(file=name))
    head, b64 = contents.split(",", 1)
    if len(b64) * 3 // 4 > MAX_CSV_BYTES + 3:
        size = len(b64) * 3 // 4
        raise InputError(_("{file} is {size} MB; files of at most 1 MB (and {count} points) are accepted").format(
            file=name, size=local_number(f"{size / 1e6:.1f}"), count=format_count(MAX_POINTS)))
    try:
        raw = base64.b64decode(b64, validate=True)
    except (binascii.Error, ValueError):
        raise InputError(_("{file}: the upload could not be read").format(file=name)) from None
    try:
        text = raw.decode("utf-8-sig")
    except UnicodeDecodeError:
        raise InputError(_("{file} is not a UTF-8 text (CSV) file").format(file=name)) from None
    return _rows_from_lines(text.splitlines(), name, line_word="Line")


def points_from_lines(lines, source: str) -> list[dict]:
    """Measurements from the lines of a CSV (header ``n,kappa`` optional) → table rows (``anonset pyc forecast --csv``)."""
    return _rows_from_lines(lines, source, line_word="Line")


def _too_many_rows(source: str, rows: int) -> str:
    return _("{source} has {count} rows; at most {limit} measurements are accepted").format(
        source=source, count=format_count(rows), limit=format_count(MAX_POINTS))


def _rows_from_lines(lines, source: str, line_word: str) -> list[dict]:
    numbered = [(i, ln.split("#", 1)[0].strip()) for i, ln in enumerate(lines, start=1)]
    numbered = [(i, ln) for i, ln in numbered if ln]
    if not numbered:
        raise InputError(_("{source} holds no measurements").format(source=source))
    if len(numbered) > MAX_POINTS + 1:
        raise InputError(_too_many_rows(source, len(numbered)))
    cols = (0, 1)
    first = [c.strip().strip('"').lower() for c in _SEP.split(numbered[0][1]) if c.strip()]
    if first and not all(_is_number(c) for c in first):
        try:
            cols = (first.index("n"), next(i for i, c in enumerate(first) if c in _KAPPA_NAMES))
        except (ValueError, StopIteration):
            raise InputError(_("{source}: the header must name the columns n and kappa (found {found})").format(
                source=source, found=", ".join(first)[:60])) from None
        numbered = numbered[1:]
    if len(numbered) > MAX_POINTS:
        raise InputError(_too_many_rows(source, len(numbered)))
    rows = []
    for i, ln in numbered:
        cells = [c.strip().strip('"') for c in _SEP.split(ln) if c.strip()]
        if len(cells) <= max(cols):
            raise InputError(_("Line {line} of {source}: expected two columns n,kappa, found {found}").format(
                line=i, source=source, found=repr(ln[:40])))
        values = []
        for c in (cells[cols[0]], cells[cols[1]]):
            if not _is_number(c):
                raise InputError(_("Line {line} of {source}: {value} is not a number").format(
                    line=i, source=source, value=repr(c[:30])))
            values.append(float(c))
        rows.append({"n": values[0], "kappa": values[1]})
    return rows


def _is_number(text: str) -> bool:
    try:
        float(text)
    except ValueError:
        return False
    return True
