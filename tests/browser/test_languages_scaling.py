"""The scaling-law page in all six languages (issue 31). What every page is checked for: ``support.languages``."""
from __future__ import annotations

import pytest
from support.languages import each_language_and_width, heading_problems, page_problems

from dashboard.core import text

pytestmark = pytest.mark.browser

#: Each view's tab (in the page's order) and what shows that its results are drawn.
VIEWS = (("explore", "#scaling-law-graph .main-svg .xtitle"), ("census", "#scaling-c-graph .main-svg .xtitle"),
         ("forecast", "#scaling-f-models table"))


def _ready(pg, size):
    pg.wait_for_selector(VIEWS[0][1])


def test_scaling_page_in_every_language(visitors, app_url):
    """The three views in six languages at phone width, the first at desktop width too (the census view on
    Liechtenstein, a small census): words, readouts, cards, tables and charts, numbers the language's way, nothing clipped or
    overlapping, nothing English whose translation differs, nothing from another host."""
    problems = []
    for lang, size, rec, where, words in each_language_and_width(
            visitors, app_url, "scaling", "/scaling?lang={lang}&country=LI&users=5000", _ready):
        pg = rec.page
        with text.language(lang):
            heading = text.gettext("The scaling law of re-identification")
        problems += heading_problems(pg, lang, where, heading)
        # every view at phone width (where words run out of room); the desktop checks the first view's layout
        for i, (view, drawn) in enumerate(VIEWS if size["width"] < 500 else VIEWS[:1]):
            if i:
                pg.locator(".scaling-tabs .tab").nth(i).click()
                pg.wait_for_selector(drawn)
            pg.wait_for_load_state("networkidle")
            problems += page_problems(rec, f"{where} {view}", words)
            rec.console_errors.clear()  # reported once, by the view that logged them
            if size["width"] < 500 and lang in ("de", "pt"):
                rec.screenshot(f"scaling-{view}-{lang}-phone")
    assert problems == [], "\n".join(problems[:60])
