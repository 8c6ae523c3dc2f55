"""The explorer in all six languages (issue 31). What every page is checked for: ``support.languages``."""
from __future__ import annotations

import pytest
from support.languages import each_language_and_width, heading_problems, page_problems

from dashboard.core import text

pytestmark = pytest.mark.browser

#: The explorer with a district chosen (map, legend, detail panel and its chart, curves, readouts, country tables).
EXPLORER = "/explore?lang={lang}&country=DE&district=11000"


def _ready(pg, size):
    pg.wait_for_selector("#explore-readouts .readout")
    pg.wait_for_function("(() => { const td = document.querySelector(\"#explore-country-table td[data-dash-column='country']\");"
                         " return td !== null && td.innerText.trim() !== ''; })()")
    pg.wait_for_selector("#explore-detail .detail #explore-distribution .main-svg")
    pg.wait_for_function("(() => { const g = document.querySelector('#explore-map .js-plotly-plot');"
                         " return g && g.layout && g.layout.title && g.layout.title.text; })()")
    pg.wait_for_selector("#explore-cdf .main-svg")
    if size["width"] >= 500:  # the district table's words too (one click, no second page load)
        pg.check("#explore-show-table input")
        pg.wait_for_selector("#explore-district-table td[data-dash-column='district']")
    pg.wait_for_timeout(400)


def test_explorer_in_every_language(visitors, app_url):
    """The explorer in six languages at phone and desktop width: its words (page, map, legend, detail, curves,
    country and district tables), its numbers in the language's format, nothing clipped or overlapping."""
    problems = []
    for lang, size, rec, where, words in each_language_and_width(visitors, app_url, "explorer", EXPLORER, _ready):
        pg = rec.page
        with text.language(lang):
            heading, tables = text.gettext("Explore regions"), text.gettext("Country tables")
            decimal = text.local_number("1.5")[1]
        problems += heading_problems(pg, lang, where, heading)
        if tables not in pg.inner_text(".explorer-tables h2"):
            problems.append(f"{where}: tables heading {pg.inner_text('.explorer-tables h2')!r}")
        shares = [b.inner_text() for b in pg.query_selector_all("#explore-readouts .readout b")]
        if not shares or not all(decimal in x or "." not in x and "," not in x for x in shares):
            problems.append(f"{where}: readout shares {shares} not written with {decimal!r}")
        problems += page_problems(rec, where, words)
        if lang in ("de", "pt"):
            rec.screenshot(f"explorer-{lang}-{size['width']}")
    assert problems == [], "\n".join(problems[:60])
