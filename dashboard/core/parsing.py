"""What a profile is made of, parsed and checked: ages, height and weight bands, sexes (SPEC §1.1).

Pure functions (no Dash); every problem raises :class:`~dashboard.core.errors.InputError`.  A height is an
adult's (the study population is adults; the body models know no children): it must lie in
``ADULT_HEIGHT_LIMITS``, refused with core/text's one message, the personal page's too (issue 28).
"""
from __future__ import annotations

import math
import re

from .body import ADULT_HEIGHT_LIMITS, BAND_LIMITS, BAND_WIDTHS, band_of
from .errors import InputError
from .groups import format_age_band
from .text import UNITS, adult_height_refusal

#: Default band width (SPEC §1.1: 5 cm, 5 kg).
DEFAULT_WIDTH = 5

#: Spellings of the two sexes accepted in forms, links and the CLI.
SEX_ALIASES = {
    "female": "female", "f": "female", "woman": "female", "women": "female",
    "male": "male", "m": "male", "man": "male", "men": "male",
}
_NUM = r"(\d+(?:\.\d+)?)"
#: "65-75", "65–75", "65 to 75"; and "75+" (an open band).
RANGE_PATTERN = re.compile(rf"^\s*{_NUM}\s*(?:-|–|—|to)\s*{_NUM}\s*$", re.IGNORECASE)
OPEN_PATTERN = re.compile(rf"^\s*{_NUM}\s*\+\s*$")
_OF = re.compile(r"\s*\(of [^)]*\)\s*$")


def _number(text, what: str) -> float:
    if isinstance(text, bool):
        raise InputError(f"{what} {text!r} is not a number")
    try:
        value = float(str(text).strip().replace(",", ".")) if isinstance(text, str) else float(text)
    except (TypeError, ValueError):
        raise InputError(f"{what} {text!r} is not a number") from None
    if not math.isfinite(value):
        raise InputError(f"{what} {text!r} is not a finite number")
    return value


def parse_age(spec) -> float | tuple[float, float]:
    """An age in years (``40``) or a band (``"65-75"``, ``"75+"``, ``(65, 75)``, ``(75, None)``)."""
    if isinstance(spec, (tuple, list)):
        if len(spec) != 2:
            raise InputError(f"age band {spec!r} must be (from, to)")
        lo = _number(spec[0], "age")
        raw = spec[1]
        open_end = raw is None or (isinstance(raw, float) and (math.isnan(raw) or math.isinf(raw)))
        hi = math.inf if open_end else _number(raw, "age")
        if lo < 0 or hi <= lo:
            raise InputError(f"age band {format_age_band(lo, hi)} is not a valid band [from, to)")
        return (lo, hi)
    if isinstance(spec, str):
        spec = _OF.sub("", spec)  # an AgeGroup label such as "18–20 (of 15–20)"
        m = RANGE_PATTERN.match(spec)
        if m:
            return parse_age((float(m.group(1)), float(m.group(2))))
        m = OPEN_PATTERN.match(spec)
        if m:
            return parse_age((float(m.group(1)), None))
        try:
            value = float(spec.strip())
        except ValueError:
            raise InputError(f"age {spec!r} is neither an age in years nor a band like 65-75 or 75+") from None
        return parse_age(value)
    value = _number(spec, "age")
    if value < 0:
        raise InputError(f"age {value:g} is negative")
    return value


def limits_of(kind: str) -> tuple[float, float]:
    """What a person may type for ``kind``: an adult's height (``ADULT_HEIGHT_LIMITS``), or a weight in the band grid.

    A typed value may be either end itself; a band must start inside (from ≥ lower, below upper).
    """
    return ADULT_HEIGHT_LIMITS if kind == "height" else BAND_LIMITS[kind]


def band_holding(value: float, width: float, top: float) -> tuple[float, float]:
    """The band of ``width`` holding a typed value; the range's ``top`` itself (250 cm, inside "100–250 cm" as the
    message says) belongs to the last band starting below it, as the page's ``bandIn`` does."""
    if value == top:
        lo = math.ceil(top / width - 1e-9) * width - width
        return (lo, lo + width)
    return band_of(value, width)


def check_band(band, kind: str) -> tuple[float, float]:
    """Validate a ``(lo, hi)`` band: a width the interface offers, aligned, in a human range."""
    unit = UNITS[kind]
    try:
        lo, hi = band
    except (TypeError, ValueError):
        raise InputError(f"{kind} band {band!r} must be (from, to)") from None
    lo, hi = _number(lo, kind), _number(hi, kind)
    width = hi - lo
    widths = ", ".join(str(w) for w in BAND_WIDTHS)
    if not any(abs(width - w) < 1e-9 for w in BAND_WIDTHS):
        raise InputError(f"{kind} band {lo:g}–{hi:g} {unit} has width {width:g}; widths are {widths} {unit}")
    width = float(round(width))
    if abs(lo / width - round(lo / width)) > 1e-9:
        below = math.floor(lo / width) * width
        raise InputError(
            f"{kind} band {lo:g}–{hi:g} {unit} is not aligned to multiples of {width:g} {unit} "
            f"(use {below:g}–{below + width:g} or {below + width:g}–{below + 2 * width:g})"
        )
    lo_lim, hi_lim = limits_of(kind)
    if lo < lo_lim or lo >= hi_lim:
        if kind == "height":
            raise InputError(adult_height_refusal(f"{lo:g}–{hi:g}", lo_lim, hi_lim, unit))
        raise InputError(f"{kind} {lo:g}–{hi:g} {unit} is outside the range {lo_lim:g}–{hi_lim:g} {unit}")
    return (float(round(lo / width) * width), float(round(lo / width) * width + width))


def parse_band(spec, width: float | None = None, kind: str = "height") -> tuple[float, float] | None:
    """A band from a value (``172`` with ``width``, default 5) or a band (``"160-165"``, ``(160, 165)``).

    ``None`` (withheld) stays ``None``.  A band's width is implied by its ends; a
    conflicting explicit ``width`` is an error.
    """
    if spec is None:
        return None
    if isinstance(spec, str) and spec.strip().lower() in ("", "any", "withheld"):
        return None
    if isinstance(spec, (tuple, list)):
        band = check_band(tuple(spec), kind)
    elif isinstance(spec, str) and RANGE_PATTERN.match(spec):
        m = RANGE_PATTERN.match(spec)
        band = check_band((float(m.group(1)), float(m.group(2))), kind)
    else:
        value = _number(spec, kind)
        w = DEFAULT_WIDTH if width is None else _number(width, f"{kind} width")
        if not any(abs(w - x) < 1e-9 for x in BAND_WIDTHS):
            raise InputError(f"{kind} width {w:g} is not one of {', '.join(map(str, BAND_WIDTHS))}")
        lo_lim, hi_lim = limits_of(kind)
        if not lo_lim <= value <= hi_lim:
            if kind == "height":
                raise InputError(adult_height_refusal(value, lo_lim, hi_lim, UNITS[kind]))
            raise InputError(f"{kind} {value:g} {UNITS[kind]} is outside the range {lo_lim:g}–{hi_lim:g} {UNITS[kind]}")
        return check_band(band_holding(value, w, hi_lim), kind)
    if width is not None and abs((band[1] - band[0]) - _number(width, f"{kind} width")) > 1e-9:
        raise InputError(f"{kind} band {band[0]:g}–{band[1]:g} does not have width {width}")
    return band
