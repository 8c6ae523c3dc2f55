"""What the browser receives of :mod:`._data`: the words and rules as JSON, in the current language."""
from __future__ import annotations

from ._data import (
    ADULT_HEIGHT_REFUSAL,
    FEWER_THAN_ONE,
    FIRST_QUESTION,
    HEADLINE,
    LOG_TICKS,
    MISSING,
    PERCENT,
    SHORT_SUFFIXES,
    UNITS,
    VERDICT,
)
from ._i18n import client_catalogue, current_language, gettext, pgettext, plural_index
from ._numbers import district_words, percent_floor_text, percent_suffix, percent_text, short_suffix


def _bands(rows) -> list[dict]:
    return [{"below": below, "text": gettext(text)} for below, text in rows]


def client_text(messages=()) -> dict:
    """All of the above as JSON for the browser (tuples as lists, "everything else" as null), in the current
    language; ``messages``: the msgids the page's own JavaScript writes (``_()``/``ngettext()`` in its source),
    shipped translated with the plural rule's forms (``plural``: the browser picks with ``Intl.PluralRules``)."""
    return {
        "lang": current_language(),
        "missing": MISSING,
        "units": dict(UNITS),
        "fewer_than_one": gettext(FEWER_THAN_ONE),
        "percent": {**PERCENT, "zero": percent_text("0"), "below_floor": percent_floor_text(),
                    "above_near_whole": gettext("more than {percent}").format(
                        percent=percent_text(f"{PERCENT['near_whole']:g}")),
                    "suffix": percent_suffix()},
        "headline": _bands(HEADLINE),
        "first_question": {k: gettext(v) for k, v in FIRST_QUESTION.items()},
        "verdict": _bands(VERDICT),
        "adult_height_refusal": gettext(ADULT_HEIGHT_REFUSAL),
        "any_band": pgettext("band", "any"),
        "short_suffixes_local": [short_suffix(s) for _, s in SHORT_SUFFIXES],
        "plural_one": [n for n in range(0, 3) if plural_index(n) == 0],
        "messages": client_catalogue(messages),
        "district_words": {k: list(v) for k, v in district_words().items()} if current_language() != "en" else {},
        "log_ticks": {**LOG_TICKS, "mantissas": list(LOG_TICKS["mantissas"]),
                      "keep_when_crowded": list(LOG_TICKS["keep_when_crowded"])},
        "short_suffixes": [list(s) for s in SHORT_SUFFIXES],
    }
