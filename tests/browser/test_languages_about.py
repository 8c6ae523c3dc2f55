"""The About page in all six languages (issue 31). What every page is checked for: ``support.languages``."""
from __future__ import annotations

import pytest
from support.languages import column_headings, each_language_and_width, heading_problems, page_problems

from dashboard.core import text

pytestmark = pytest.mark.browser


def _ready(pg, size):
    pg.wait_for_selector("#about-sources td[data-dash-column='sha256']")


def test_about_page_in_every_language(visitors, app_url):
    """The About page in six languages at phone and desktop width: its words, the tables' headings and our own
    words in them, numbers grouped the language's way, nothing clipped or overlapping (citations as published)."""
    problems = []
    for lang, size, rec, where, words in each_language_and_width(visitors, app_url, "about", "/about?lang={lang}", _ready):
        pg = rec.page
        with text.language(lang):
            heading, population = text.gettext("About AnonSet"), text.gettext("population")
        problems += heading_problems(pg, lang, where, heading)
        headings = column_headings(pg, "#about-datasets th")
        if population not in headings:
            problems.append(f"{where}: the data-set table's headings {headings}")
        problems += page_problems(rec, where, words)
        if size["width"] < 500 and lang in ("de", "pt"):
            rec.screenshot(f"about-{lang}-phone")
    assert problems == [], "\n".join(problems[:60])
