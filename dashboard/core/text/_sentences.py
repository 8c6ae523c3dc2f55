"""The personal page's two sentences: one place, so the page, the CLI and the tests agree.

The words and thresholds are data (:mod:`._data` ``HEADLINE``, ``VERDICT``); the page's
JavaScript (``assets/anonset_engine.js`` ``ownHeadline``/``verdict``) receives the same data and
fills the same placeholders.  ``tests/js/golden_text.json`` and ``tests/test_engine_parity.py``
check both faces sentence for sentence.  Both round with ``floor(x + 0.5)`` on the same doubles,
so the two faces cannot drift apart.
"""
from __future__ import annotations

import math
import re

from ._data import ADULT_HEIGHT_REFUSAL, FIRST_QUESTION, HEADLINE, VERDICT
from ._i18n import DEFAULT_LANGUAGE, current_language, gettext, translate_marked
from ._numbers import format_count, local_number, percent_text


def tenths(x: float) -> str:
    """``2.1``: one decimal, rounded half up (the same operations as the page's JavaScript)."""
    return f"{math.floor(x * 10 + 0.5) / 10:.1f}"


def _pick(bands, x: float, **values) -> str:
    """The template of the first band whose bound ``x`` is below (the last band: everything else), filled."""
    text = gettext(next(t for below, t in bands if below is None or x < below))
    return text.format(**values) if "{" in text else text


def own_headline(others: float) -> str:
    """The personal page's lead (SPEC §1.7): "You and about X others share these attributes".

    ``others`` = ``(N − 1) · p``, the people expected to share the profile besides the
    person, who has it for certain — so the set is never "0 people".  Whole people, rounded down, as
    every count on the page (issue 28: "about 4.9 others" above a funnel ending in 4 was two numbers).
    """
    x = max(float(others), 0.0)
    return _pick(HEADLINE, x, tenths=tenths(x), count=format_count(x))


def verdict(cas: float, others: float, correctness: float) -> str:
    """One sentence a person can act on, by the size of the anonymity set.

    The chance that exact matching picks the person is Rocher's correctness κ = E[1 / own set]
    (SPEC §2) for a person who has the profile, stated as a percentage in small sets; in a crowd it is about 1 in the
    own set, the number of the headline.
    """
    return _pick(VERDICT, cas, percent=percent_text(str(math.floor(100 * correctness + 0.5))),
                 crowd=format_count(1 + max(float(others), 0.0)))


def has_answer(district=None, sex=None, ages=(), height=None, weight=None, aux=()) -> bool:
    """Whether a person has given any attribute: before that the page asks (:func:`first_question`) and shows
    no count (the engine's ``hasAnswer``, the same rule)."""
    return any(v not in (None, "") for v in (district, sex, height, weight)) or bool(ages) or bool(aux)


def first_question(national: bool = False) -> str:
    """What the personal page says before any answer (a data set without districts starts with the sex or age)."""
    return translate_marked(FIRST_QUESTION["national" if national else "district"])


def adult_height_refusal(value, lo: float, hi: float, unit: str = "cm") -> str:
    """Why a typed height is refused: "Height 60 cm is not a plausible adult height; give 100–250 cm".

    ``value``: the typed number, or a band as text ("60–65"); numbers print as the page's ``g`` prints them.
    The engine's ``adultHeightRefusal`` fills the same template (``client_text()["adult_height_refusal"]``).
    """
    return gettext(ADULT_HEIGHT_REFUSAL).format(value=local_number(_typed(value)), lo=local_number(_typed(lo)),
                                                hi=local_number(_typed(hi)), unit=unit)


def _typed(x) -> str:
    """A typed number as the page's ``g`` shows it (to 1e-6, six significant digits, no trailing zeros)."""
    if isinstance(x, str):
        return x
    x = math.floor(float(x) * 1e6 + 0.5) / 1e6
    return str(int(x)) if x.is_integer() and abs(x) < 1e15 else f"{x:.6g}"


def body_source_name(prior: dict) -> str:
    """Where a data set's height and weight come from (its manifest ``body_prior``), in the current language: the
    NCD-RisC estimates in our words (translated); a statistical office's table as the office names it (a quote)."""
    source = str(prior.get("source") or "")
    return translate_marked(source) if prior.get("kind") == "ncdrisc" else source


#: The body statistics' two usual source notes (the core writes them in English into shared tables and memos;
#: assets/anonset_engine.js reads the same two forms).
_OWN_SOURCE = re.compile(r"^Body statistics of ([A-Za-z0-9-]+): .*'s own table \((.*)\)\.$")
_NCD_SOURCE = re.compile(r"^Body statistics of ([A-Za-z0-9-]+): NCD-RisC prior for (\d{4}) \(mean height of the birth "
                         r"cohorts, NCD-RisC BMI (\d{4}); spread and height–BMI dependence of the measured NHANES "
                         r"2017–2018 adults\)\.$")


def body_source_note(note: str) -> str | None:
    """A body statistics' source note in the current language, or None when ``note`` is not one of its two usual
    forms (the page then quotes it in English)."""
    if current_language() == DEFAULT_LANGUAGE:
        return None
    if m := _OWN_SOURCE.match(str(note)):
        return gettext("Body statistics of {code}: its own table ({source}).").format(code=m[1], source=m[2])
    if m := _NCD_SOURCE.match(str(note)):
        return gettext("Body statistics of {code}: NCD-RisC estimates for {year} (mean height of the birth cohorts, "
                       "NCD-RisC BMI {bmi_year}; spread and height–BMI dependence of the measured NHANES 2017–2018 "
                       "adults).").format(code=m[1], year=m[2], bmi_year=m[3])
    return None
