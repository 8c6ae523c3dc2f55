"""The world map's page in all six languages (issue 31). What every page is checked for: ``support.languages``."""
from __future__ import annotations

import pytest
from support.languages import column_headings, each_language_and_width, heading_problems, page_problems

from dashboard.core import text

pytestmark = pytest.mark.browser

def _ready(pg, size):
    pg.wait_for_selector("#world-table td[data-dash-column='country']")
    pg.wait_for_selector("#world-map .js-plotly-plot .colorbar")


def test_world_page_in_every_language(visitors, app_url):
    """The world map's page in six languages at phone and desktop width: its words, the switch, the table's
    headings and names, the map's colour bar title, nothing clipped or overlapping, nothing from another host."""
    problems = []
    path = "/explore/world?lang={lang}&stat=share_below"
    for lang, size, rec, where, words in each_language_and_width(visitors, app_url, "world", path, _ready):
        pg = rec.page
        with text.language(lang):
            heading, country = text.gettext("The world on one map"), text.gettext("Country")
            germany = "Germany" if lang == "en" else {"de": "Deutschland", "fr": "Allemagne", "it": "Germania",
                                                      "es": "Alemania", "pt": "Alemanha"}[lang]
        pg.fill("#world-search", germany)
        pg.wait_for_function("(name) => Array.from(document.querySelectorAll(\"#world-table "
                             "td[data-dash-column='country']\")).some((td) => td.innerText.trim() === name)",
                             arg=germany)
        pg.wait_for_timeout(300)
        problems += heading_problems(pg, lang, where, heading)
        headings = column_headings(pg, "#world-table th")
        if country not in headings:
            problems.append(f"{where}: the table's headings {headings}")
        problems += page_problems(rec, where, words)
        if size["width"] < 500 and lang in ("de", "pt"):
            rec.screenshot(f"world-{lang}-phone")
    assert problems == [], "\n".join(problems[:60])
