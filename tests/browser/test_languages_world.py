"""The world map's page in all six languages (issue 31). What every page is checked for: ``support.languages``."""
from __future__ import annotations

import pytest
from support.languages import SIZES, english_words, new_context, page_problems

from dashboard.core import text

pytestmark = pytest.mark.browser

def test_world_page_in_every_language(browser, app_url):
    """The world map's page in six languages at phone and desktop width: its words, the switch, the table's
    headings and names, the map's colour bar title, nothing clipped or overlapping, nothing from another host."""
    problems = []
    for lang in text.LANGUAGES:
        words = english_words(lang) if lang != "en" else []
        with text.language(lang):
            heading, country = text.gettext("The world on one map"), text.gettext("Country")
            germany = "Germany" if lang == "en" else {"de": "Deutschland", "fr": "Allemagne", "it": "Germania",
                                                      "es": "Alemania", "pt": "Alemanha"}[lang]
        for size in SIZES:
            ctx, rec = new_context(browser, size)
            pg, where = rec.page, f"world {lang} {size['width']}px"
            pg.goto(app_url.url + f"/explore/world?lang={lang}&stat=share_below")
            pg.wait_for_selector("#world-table td[data-dash-column='country']")
            pg.wait_for_selector("#world-map .js-plotly-plot .colorbar")
            pg.fill("#world-search", germany)
            pg.wait_for_function("(name) => Array.from(document.querySelectorAll(\"#world-table "
                                 "td[data-dash-column='country']\")).some((td) => td.innerText.trim() === name)",
                                 arg=germany)
            pg.wait_for_timeout(300)
            if pg.inner_text("h1").strip() != heading:
                problems.append(f"{where}: heading {pg.inner_text('h1')!r}")
            headings = [t.strip() for t in pg.locator("#world-table th").all_inner_texts()]
            if country not in headings:
                problems.append(f"{where}: the table's headings {headings}")
            problems += page_problems(rec, where, words)
            if size["width"] < 500 and lang in ("de", "pt"):
                rec.screenshot(f"world-{lang}-phone")
            ctx.close()
    assert problems == [], "\n".join(problems[:60])
