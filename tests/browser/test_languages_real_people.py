"""The real-people page in all six languages (issue 31). What every page is checked for: ``support.languages``."""
from __future__ import annotations

import pytest
from support.languages import column_headings, each_language_and_width, heading_problems, page_problems

from dashboard.core import text

pytestmark = pytest.mark.browser


def _ready(pg, size):
    pg.wait_for_selector("#real-divergence .main-svg")
    pg.wait_for_selector("#real-prior-summary li")


def test_real_people_page_in_every_language(visitors, app_url):
    """The real-people page in six languages at phone and desktop width: its words, the cards, the tables' headings,
    the prior check's sentences and the charts' words, numbers the language's way, nothing clipped or overlapping,
    nothing from another host."""
    problems = []
    for lang, size, rec, where, words in each_language_and_width(visitors, app_url, "real-people",
                                                                 "/real-people?lang={lang}", _ready):
        pg = rec.page
        with text.language(lang):
            heading, real_set = text.gettext("Real people: does the model match?"), text.gettext("real set")
            us = text.gettext("US: fit to the real people, NCD-RisC prior")
        problems += heading_problems(pg, lang, where, heading)
        headings = column_headings(pg, "table th[scope='col']")
        if real_set not in headings:
            problems.append(f"{where}: the tables' headings {headings[:8]}")
        if us not in pg.inner_text("#real-prior-cards"):
            problems.append(f"{where}: the prior's cards {pg.inner_text('#real-prior-cards')[:100]!r}")
        problems += page_problems(rec, where, words)
        if size["width"] < 500 and lang in ("de", "pt"):
            rec.screenshot(f"real-people-{lang}-phone")
    assert problems == [], "\n".join(problems[:60])
