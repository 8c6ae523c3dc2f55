"""Text: how AnonSet writes numbers and sentences, for the pages, the CLI and the browser.

The words, thresholds and number rules are data (``TEXT``, :func:`client_text`), shipped to
the personal page's JavaScript in its config, so both faces interpolate from one source;
``tests/js/golden_text.json`` is what both must print.
"""
from __future__ import annotations

from ._data import (
    ADULT_HEIGHT_REFUSAL,
    BODY_MODEL_DETAILS,
    BODY_MODEL_PLAIN,
    FEWER_THAN_ONE,
    FIRST_QUESTION,
    HEADLINE,
    LOG_TICKS,
    MISSING,
    PERCENT,
    SHORT_SUFFIXES,
    UNITS,
    VERDICT,
    client_text,
)
from ._numbers import (
    PERCENT_FLOOR_TEXT,
    SMALLEST_SHOWN,
    below_percent_floor,
    format_band,
    format_count,
    format_counts,
    format_number,
    format_people,
    format_percent,
    format_small,
    log_ticks,
    plural,
    power_label,
    share_setting,
    short_number,
)
from ._sentences import adult_height_refusal, first_question, has_answer, own_headline, tenths, verdict

__all__ = [
    "ADULT_HEIGHT_REFUSAL",
    "BODY_MODEL_DETAILS",
    "BODY_MODEL_PLAIN",
    "FEWER_THAN_ONE",
    "FIRST_QUESTION",
    "HEADLINE",
    "LOG_TICKS",
    "MISSING",
    "PERCENT",
    "PERCENT_FLOOR_TEXT",
    "SHORT_SUFFIXES",
    "SMALLEST_SHOWN",
    "UNITS",
    "VERDICT",
    "adult_height_refusal",
    "below_percent_floor",
    "client_text",
    "first_question",
    "has_answer",
    "format_band",
    "format_count",
    "format_counts",
    "format_number",
    "format_people",
    "format_percent",
    "format_small",
    "log_ticks",
    "own_headline",
    "plural",
    "power_label",
    "share_setting",
    "short_number",
    "tenths",
    "verdict",
]
