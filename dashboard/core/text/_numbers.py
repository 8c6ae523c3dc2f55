"""Numbers and bands as people read them: whole people rounded down, ``170–175 cm`` (no Dash)."""
from __future__ import annotations

import math
import re
from decimal import ROUND_HALF_UP, Decimal

import numpy as np
from babel.numbers import format_decimal
from babel.numbers import format_percent as _babel_percent

from ._data import (
    FEWER_THAN_ONE,
    LOG_TICKS,
    MISSING,
    PERCENT,
    SHORT_SUFFIXES,
    UNITS,
)
from ._i18n import DEFAULT_LANGUAGE, N_, current_language, gettext, ngettext, pgettext

_NUMBER = re.compile(r"^(-?)(\d[\d,]*)(?:\.(\d+))?$")


def local_number(text: str, lang: str | None = None) -> str:
    """An English-written number (``1,234.5``) in the current language's digits (``1.234,5``, ``1\u202f234,5``).

    Babel's ``format_decimal`` with exactly the fraction digits given, grouping always (the browser's
    ``localNumber``: ``Intl.NumberFormat`` with ``useGrouping: "always"``, which writes the same).  English and
    anything that is not a plain number come back unchanged.
    """
    lang = lang or current_language()
    if lang == DEFAULT_LANGUAGE:
        return text
    m = _NUMBER.match(text)
    if not m:
        return text
    sign, whole, frac = m.groups()
    digits = len(frac) if frac else 0
    pattern = "#,##0" + ("." + "0" * digits if digits else "")
    value = Decimal(whole.replace(",", "") + ("." + frac if frac else ""))
    return ("\u2212" if sign else "") + format_decimal(value, format=pattern, locale=lang)


def number_marks(lang: str | None = None) -> tuple[str, str]:
    """The decimal mark and the thousands separator of the current language (Babel's CLDR symbols, as the browser's
    ``Intl`` writes them): ``(".", ",")`` in English, ``(",", ".")`` in German, ``(",", "\u202f")`` in French."""
    from babel.numbers import get_decimal_symbol, get_group_symbol

    lang = lang or current_language()
    if lang == DEFAULT_LANGUAGE:
        return ".", ","
    return get_decimal_symbol(lang), get_group_symbol(lang)


def percent_suffix(lang: str | None = None) -> str:
    """What follows a percentage: `` %`` in English (unchanged for the CLI), else the language's own (CLDR):
    ``\u00a0%`` in German, French and Spanish, ``%`` in Italian and Portuguese."""
    lang = lang or current_language()
    if lang == DEFAULT_LANGUAGE:
        return PERCENT["suffix"]
    return _babel_percent(0.5, locale=lang).replace("50", "")


def percent_text(number_en: str, lang: str | None = None) -> str:
    """``41.8`` → ``41.8 %`` / ``41,8\u00a0%``: a percentage written in the current language."""
    return local_number(number_en, lang) + percent_suffix(lang)


def format_in_language(value: float, spec: str) -> str:
    """``format(value, spec)`` in the current language: exactly Python's in English (what the CLI writes),
    the language's digits elsewhere, and for a ``%`` spec the language's percentage ("0.37%" → "0,37 %")."""
    if current_language() == DEFAULT_LANGUAGE:
        return format(value, spec)
    if spec.endswith("%"):
        return percent_text(format(value * 100, spec[:-1] + "f"))
    return local_number(format(value, spec))


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
    return local_number(f"{math.floor(max(x, 0.0)):,}")


def format_people(x: float) -> str:
    """A number of people for a sentence: whole people, or "fewer than one" — never 0.0003
    (the engine's ``formatPeople``)."""
    x = _finite(x)
    if x is None:
        return MISSING
    return gettext(FEWER_THAN_ONE) if x < 1 else format_count(x)


def format_counts(values) -> np.ndarray:
    """:func:`format_count` of many values at once, as a string array (a map's hover: thousands of districts)."""
    arr = np.asarray(values, dtype=float)
    ok = np.isfinite(arr)
    whole = np.floor(np.maximum(np.where(ok, arr, 0.0), 0.0)).astype(np.int64)
    return np.asarray([local_number(f"{w:,}") if good else MISSING for w, good in zip(whole.tolist(), ok.tolist())], dtype=str)


def format_band(band: tuple[float, float] | None, kind: str) -> str:
    """``170–175 cm``; ``any`` for a withheld band."""
    if band is None:
        return pgettext("band", "any")
    return f"{local_number(f'{band[0]:g}')}–{local_number(f'{band[1]:g}')} {UNITS[kind]}"


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
        return percent_text("0")
    if below_percent_floor(x):
        return percent_floor_text()
    if x < 1:
        d = Decimal(x)
        text = format(d.quantize(Decimal(1).scaleb(d.adjusted() - 1), rounding=ROUND_HALF_UP), "f")
        return percent_text(text.rstrip("0").rstrip(".") if "." in text else text)
    if PERCENT["near_whole"] < x < 100:
        return gettext(N_("more than {percent}")).format(percent=percent_text(f"{PERCENT['near_whole']:g}"))
    return percent_text(format(Decimal(x).quantize(Decimal("0.1"), rounding=ROUND_HALF_UP), "f"))


def below_percent_floor(percent: float) -> bool:
    """True for a (positive) percentage too small to print: it reads :data:`PERCENT_FLOOR_TEXT`.
    The one floor of every percentage AnonSet shows (the page, the CLI, the figures' hovers)."""
    return percent < PERCENT["floor"]


#: What a percentage below the floor reads as, everywhere (in English; :func:`percent_floor_text` in the
#: current language).
PERCENT_FLOOR_TEXT = PERCENT["below_floor"]


def percent_floor_text() -> str:
    """"less than 0.0001 %" in the current language."""
    return gettext(N_("less than {percent}")).format(percent=percent_text(f"{PERCENT['floor']:f}".rstrip("0")))


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
        return ("< " if x > 0 else "> −") + local_number(f"{SMALLEST_SHOWN:.6f}")
    decimals = max(0, sig - 1 - math.floor(math.log10(abs(x))))
    text = f"{x:.{decimals}f}"
    if "." in text:
        text = text.rstrip("0").rstrip(".")
    return local_number(text).replace("-", "−")


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
            return sign + local_number(f"{round(a):,}")
        return sign + format_small(a, sig)
    a = float(f"{a:.{sig}g}")  # rounded first: 999,999,999 is "1 billion", not "1000 million"
    if a < 1e15:
        scale = next(v for v in (1e12, 1e9, 1e6) if a >= v)
        mantissa = float(f"{a / scale:.{sig}g}")
        n = 1 if mantissa == 1 else 2  # gettext counts whole numbers: 1.5 takes the plural
        word = {1e12: ngettext("trillion", "trillion", n), 1e9: ngettext("billion", "billion", n),
                1e6: ngettext("million", "million", n)}[scale]
        return f"{sign}{local_number(f'{mantissa:g}')} {word}"
    mant, exp = f"{a:.{sig - 1}e}".split("e")
    mant = mant.rstrip("0").rstrip(".") if "." in mant else mant
    return f"{sign}{local_number(mant)} × 10{str(int(exp)).translate(_SUPERSCRIPT)}"


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


def _short_number_en(v: float) -> str:
    for scale, suffix in SHORT_SUFFIXES:
        if v >= scale:
            return f"{v / scale:g}{suffix}"
    return f"{v:g}"


def short_suffix(suffix: str) -> str:
    """A compact axis label's suffix in the current language (a thousand, a million, a billion)."""
    return {"k": pgettext("short number", "k"), "M": pgettext("short number", "M"),
            "B": pgettext("short number", "B")}.get(suffix, suffix)


def short_number(v: float) -> str:
    """0.5, 20, 5k, 2M, 8B: compact labels for log axes (the page's ``shortNumber``, same suffixes); in the
    current language's digits and its own suffix for a billion (8 Mrd., 8 Md)."""
    text = _short_number_en(v)
    for _scale, suffix in SHORT_SUFFIXES:
        if text.endswith(suffix):
            return local_number(text[: -len(suffix)]) + short_suffix(suffix)
    return local_number(text)


def log_ticks(lo: float, hi: float) -> tuple[list[float], list[str]]:
    """Tick positions (log10 space) and labels 1, 2, 5, 10, 20, 50 … between lo and hi
    (the page's ``logTicks`` reads the same :data:`LOG_TICKS` rule)."""
    rule = LOG_TICKS
    lo = max(lo, rule["floor"])
    hi = max(hi, lo * 10)
    slack = rule["tolerance"]
    raw, text = [], []
    for e in range(math.floor(math.log10(lo)), math.ceil(math.log10(hi)) + 1):
        for m in rule["mantissas"]:
            v = m * 10.0**e
            if lo * (1 - slack) <= v <= hi * (1 + slack):
                raw.append(v)
                text.append(_short_number_en(v))
    if len(raw) > rule["crowded"]:  # keep only the powers of ten when crowded (read on the English labels)
        keep = [i for i, t in enumerate(text) if t.startswith(tuple(rule["keep_when_crowded"]))]
        raw, text = [raw[i] for i in keep], [text[i] for i in keep]
    return [math.log10(v) for v in raw], [short_number(v) for v in raw]


def share_setting(q: float) -> str:
    """A share someone set (a coverage target), with the digits they gave: ``95%``, ``99.99%`` — never
    ``100%`` for 99.99 % as whole-percent rounding showed it (issue 28)."""
    return f"{float(f'{100 * float(q):.6g}'):g}%"


def district_words() -> dict:
    """Generic English district words in the current language, singular and plural (context "district word").
    The offices' own terms (Kreis, Land, comuna, commune, county, si-gun-gu, SA2, ZCTA …) are not here: they stay
    as each office names them (dashboard/locale/GLOSSARY.md)."""
    return {
        "country": (pgettext("district word", "country"), pgettext("district word", "countries")),
        "NUTS-3 region": (pgettext("district word", "NUTS-3 region"), pgettext("district word", "NUTS-3 regions")),
        "NUTS-2 region": (pgettext("district word", "NUTS-2 region"), pgettext("district word", "NUTS-2 regions")),
        "municipality": (pgettext("district word", "municipality"), pgettext("district word", "municipalities")),
        "district": (pgettext("district word", "district"), pgettext("district word", "districts")),
        "region": (pgettext("district word", "region"), pgettext("district word", "regions")),
        "state": (pgettext("district word", "state"), pgettext("district word", "states")),
        "province": (pgettext("district word", "province"), pgettext("district word", "provinces")),
        "prefecture": (pgettext("district word", "prefecture"), pgettext("district word", "prefectures")),
        "province or prefecture": (pgettext("district word", "province or prefecture"), pgettext("district word", "provinces or prefectures")),
        "state or territory": (pgettext("district word", "state or territory"), pgettext("district word", "states or territories")),
    }


def district_word(label: str, plural: bool = False) -> str:
    """A data set's district word in the current language: a generic English word translated ("NUTS-3 region" →
    "NUTS-3-Region"), an office's own term as it is; ``plural``: its plural (:func:`plural` for an office's term)."""
    found = district_words().get(label) if current_language() != DEFAULT_LANGUAGE else None
    if found:
        return found[1] if plural else found[0]
    return plural_of(label) if plural else label


plural_of = plural  # district_word's parameter "plural" hides the function's name
