"""Numbers and bands as people read them: whole people rounded down, ``170–175 cm`` (no Dash)."""
from __future__ import annotations

import math
from decimal import ROUND_HALF_UP, Decimal

import numpy as np

from ._data import FEWER_THAN_ONE, LOG_TICKS, MISSING, PERCENT, SHORT_SUFFIXES, UNITS


def _finite(x) -> float | None:
    """``x`` as a finite float, or None (shown as "–") for text, None, NaN and ±inf."""
    try:
        x = float(x)
    except (TypeError, ValueError):
        return None
    return x if math.isfinite(x) else None


def format_count(x: float) -> str:
    """Whole people, rounded down, with a thousands separator: ``573``, ``1,234``."""
    x = _finite(x)
    if x is None:
        return MISSING
    return f"{math.floor(max(x, 0.0)):,}"


def format_people(x: float) -> str:
    """A number of people for a sentence: whole people, or "fewer than one" — never 0.0003
    (the engine's ``formatPeople``)."""
    x = _finite(x)
    if x is None:
        return MISSING
    return FEWER_THAN_ONE if x < 1 else format_count(x)


def format_counts(values) -> np.ndarray:
    """:func:`format_count` of many values at once, as a string array (a map's hover: thousands of districts)."""
    arr = np.asarray(values, dtype=float)
    ok = np.isfinite(arr)
    whole = np.floor(np.maximum(np.where(ok, arr, 0.0), 0.0)).astype(np.int64)
    return np.asarray([f"{w:,}" if good else MISSING for w, good in zip(whole.tolist(), ok.tolist())], dtype=str)


def format_band(band: tuple[float, float] | None, kind: str) -> str:
    """``170–175 cm``; ``any`` for a withheld band."""
    if band is None:
        return "any"
    return f"{band[0]:g}–{band[1]:g} {UNITS[kind]}"


def format_percent(share: float, *, positive: bool = False) -> str:
    """A share (0–1) as a percentage people can read — ``41.8 %``, ``0.041 %``, ``less than 0.0001 %`` —
    never ``0 %`` for a tiny chance nor ``1.6e-278 %``.  The page's ``formatPercent``
    (``assets/anonset_engine.js``) says the same: both round half up on the exact value
    (JavaScript's ``toFixed``/``toPrecision``), which ``Decimal`` reproduces.  ``positive``: the
    share is known to be above 0 (ξ when p < 1), so a 0 is an underflow and reads "less than 0.0001 %".
    """
    s = _finite(share)
    if s is None:
        return MISSING
    x = 100 * s
    if x == 0 and not positive:
        return PERCENT["zero"]
    if below_percent_floor(x):
        return PERCENT["below_floor"]
    if x < 1:
        d = Decimal(x)
        text = format(d.quantize(Decimal(1).scaleb(d.adjusted() - 1), rounding=ROUND_HALF_UP), "f")
        return (text.rstrip("0").rstrip(".") if "." in text else text) + PERCENT["suffix"]
    if PERCENT["near_whole"] < x < 100:
        return PERCENT["above_near_whole"]
    return format(Decimal(x).quantize(Decimal("0.1"), rounding=ROUND_HALF_UP), "f") + PERCENT["suffix"]


def below_percent_floor(percent: float) -> bool:
    """True for a (positive) percentage too small to print: it reads :data:`PERCENT_FLOOR_TEXT`.
    The one floor of every percentage AnonSet shows (the page, the CLI, the figures' hovers)."""
    return percent < PERCENT["floor"]


#: What a percentage below the floor reads as, everywhere.
PERCENT_FLOOR_TEXT = PERCENT["below_floor"]


#: Below this a positive number is shown as "< 0.000001" (a millionth of a person is "nobody").
SMALLEST_SHOWN = 1e-6
_SUPERSCRIPT = str.maketrans("-0123456789", "⁻⁰¹²³⁴⁵⁶⁷⁸⁹")


def format_small(x: float, sig: int = 2) -> str:
    """A number below one as a plain decimal with ``sig`` significant digits — ``0.066``, ``0.000033`` —
    never ``3.3e-05``; below :data:`SMALLEST_SHOWN` it reads ``< 0.000001``."""
    x = _finite(x)
    if x is None:
        return MISSING
    if x == 0:
        return "0"
    if abs(x) < SMALLEST_SHOWN:
        return ("< " if x > 0 else "> −") + f"{SMALLEST_SHOWN:.6f}"
    decimals = max(0, sig - 1 - math.floor(math.log10(abs(x))))
    text = f"{x:.{decimals}f}"
    if "." in text:
        text = text.rstrip("0").rstrip(".")
    return text.replace("-", "−")


def format_number(x: float, sig: int = 3) -> str:
    """Any magnitude, readable, without scientific notation: ``0.00012``, ``3.14``, ``20,390``,
    ``1.5 million``, ``8 billion``; beyond 10¹⁵ ``3.9 × 10¹⁸``."""
    x = _finite(x)
    if x is None:
        return MISSING
    a = abs(x)
    sign = "−" if x < 0 else ""
    if a < 1:
        return format_small(x, sig)
    if a < 1e6:
        if a >= 10 ** (sig - 1):
            return f"{sign}{round(a):,}"
        return sign + format_small(a, sig)
    a = float(f"{a:.{sig}g}")  # rounded first: 999,999,999 is "1 billion", not "1000 million"
    if a < 1e15:
        scale, word = next((v, w) for v, w in ((1e12, "trillion"), (1e9, "billion"), (1e6, "million")) if a >= v)
        return f"{sign}{float(f'{a / scale:.{sig}g}'):g} {word}"
    mant, exp = f"{a:.{sig - 1}e}".split("e")
    mant = mant.rstrip("0").rstrip(".") if "." in mant else mant
    return f"{sign}{mant} × 10{str(int(exp)).translate(_SUPERSCRIPT)}"


def power_label(v: float) -> str:
    """A tick below 0.001 as people read it: ``10⁻⁶``, ``3 × 10⁻⁵`` (never ``1e-6``)."""
    mant, exp = f"{v:.0e}".split("e")
    sup = str(int(exp)).translate(_SUPERSCRIPT)
    return f"10{sup}" if mant == "1" else f"{mant} × 10{sup}"


#: District words whose plural follows their own language (issue 28: "other Kreis" read as a slip).
IRREGULAR_PLURALS = {"Kreis": "Kreise", "comune": "comuni"}


def plural(label: str) -> str:
    """``county`` → ``counties``, ``district`` → ``districts``, ``Kreis`` → ``Kreise`` (its own language's
    plural), and the head word before a parenthesis: ``ZIP code area (ZCTA)`` → ``ZIP code areas (ZCTA)``."""
    head, sep, tail = label.partition(" (")
    if sep:
        return plural(head) + sep + tail
    if label in IRREGULAR_PLURALS:
        return IRREGULAR_PLURALS[label]
    if label.endswith("y") and not label.endswith(("ay", "ey", "oy")):
        return label[:-1] + "ies"
    if label.endswith("s"):
        return label
    return label + "s"


def short_number(v: float) -> str:
    """0.5, 20, 5k, 2M, 8B: compact labels for log axes (the page's ``shortNumber``, same suffixes)."""
    for scale, suffix in SHORT_SUFFIXES:
        if v >= scale:
            return f"{v / scale:g}{suffix}"
    return f"{v:g}"


def log_ticks(lo: float, hi: float) -> tuple[list[float], list[str]]:
    """Tick positions (log10 space) and labels 1, 2, 5, 10, 20, 50 … between lo and hi
    (the page's ``logTicks`` reads the same :data:`LOG_TICKS` rule)."""
    rule = LOG_TICKS
    lo = max(lo, rule["floor"])
    hi = max(hi, lo * 10)
    slack = rule["tolerance"]
    vals, text = [], []
    for e in range(math.floor(math.log10(lo)), math.ceil(math.log10(hi)) + 1):
        for m in rule["mantissas"]:
            v = m * 10.0**e
            if lo * (1 - slack) <= v <= hi * (1 + slack):
                vals.append(math.log10(v))
                text.append(short_number(v))
    if len(vals) > rule["crowded"]:  # keep only the powers of ten when crowded
        keep = [i for i, t in enumerate(text) if t.startswith(tuple(rule["keep_when_crowded"]))]
        vals, text = [vals[i] for i in keep], [text[i] for i in keep]
    return vals, text


def share_setting(q: float) -> str:
    """A share someone set (a coverage target), with the digits they gave: ``95%``, ``99.99%`` — never
    ``100%`` for 99.99 % as whole-percent rounding showed it (issue 28)."""
    return f"{float(f'{100 * float(q):.6g}'):g}%"
