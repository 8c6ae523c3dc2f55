"""Turn what a person typed into core arguments, with messages a person understands.

Pure functions (no Dash): the page callbacks call them, and so do the tests.
Every problem raises :class:`~dashboard.core.errors.InputError` naming the field.
"""
from __future__ import annotations

import math

from dashboard.core.cas import HEIGHT_LIMITS, WEIGHT_LIMITS
from dashboard.core.errors import InputError

CM_PER_INCH = 2.54
KG_PER_LB = 0.45359237
#: Band widths offered in the interface (cm and kg, SPEC §1.1).
WIDTHS = (1, 2, 5, 10, 20)
#: The largest user count accepted for k-indistinguishability (the world population).
MAX_USERS = 8_000_000_000


def number(value, field: str, *, lo: float | None = None, hi: float | None = None, required: bool = False) -> float | None:
    """A finite number from a text box (None when empty and not required)."""
    if value is None or (isinstance(value, str) and not value.strip()):
        if required:
            raise InputError(f"{field}: please enter a number")
        return None
    if isinstance(value, bool):
        raise InputError(f"{field}: {value!r} is not a number")
    if isinstance(value, (int, float)):
        x = float(value)
    else:
        text = str(value).strip().replace(",", ".")
        if len(text) > 40:
            raise InputError(f"{field}: that is not a number")
        try:
            x = float(text)
        except ValueError:
            raise InputError(f"{field}: {text!r} is not a number") from None
    if not math.isfinite(x):
        raise InputError(f"{field}: please enter a finite number")
    if lo is not None and x < lo:
        raise InputError(f"{field}: {x:g} is " + (f"outside the range {lo:g}–{hi:g}" if hi is not None else f"below {lo:g}"))
    if hi is not None and x > hi:
        raise InputError(f"{field}: {x:g} is " + (f"outside the range {lo:g}–{hi:g}" if lo is not None else f"above {hi:g}"))
    return x


def height_cm(units: str, cm=None, feet=None, inches=None) -> float | None:
    """Height in cm from the metric box or the ft + in boxes (None when not given)."""
    lo, hi = HEIGHT_LIMITS
    if units == "imperial":
        ft = number(feet, "Height (feet)", lo=0, hi=9)
        inch = number(inches, "Height (inches)", lo=0, hi=120)
        if ft is None and inch is None:
            return None
        value = ((ft or 0) * 12 + (inch or 0)) * CM_PER_INCH
        if not lo <= value <= hi:
            raise InputError(f"Height: {value / CM_PER_INCH:.0f} inches is not a plausible adult height")
        return value
    return number(cm, "Height (cm)", lo=lo, hi=hi)


def weight_kg(units: str, kg=None, lb=None) -> float | None:
    """Weight in kg from the kg box or the lb box (None when not given)."""
    lo, hi = WEIGHT_LIMITS
    if units == "imperial":
        pounds = number(lb, "Weight (lb)", lo=lo / KG_PER_LB, hi=hi / KG_PER_LB)
        return None if pounds is None else pounds * KG_PER_LB
    return number(kg, "Weight (kg)", lo=lo, hi=hi)


def width(value, field: str) -> int:
    """A band width from the offered list (default 5)."""
    if value in (None, ""):
        return 5
    try:
        w = int(float(value))
    except (TypeError, ValueError):
        raise InputError(f"{field}: choose one of {', '.join(map(str, WIDTHS))}") from None
    if w not in WIDTHS:
        raise InputError(f"{field}: choose one of {', '.join(map(str, WIDTHS))}")
    return w


def users(value) -> int | None:
    """The number of records in the app's dataset (m in SPEC §2), or None."""
    m = number(value, "Users of the app", lo=1, hi=MAX_USERS)
    if m is None:
        return None
    if m != int(m):
        raise InputError("Users of the app: please enter a whole number")
    return int(m)


def percentage(value, field: str) -> float | None:
    """A percentage 0–100 typed in the interface (None when empty)."""
    return number(value, field, lo=0, hi=100)


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
