"""The AnonLand page in all six languages (issue 31). What every page is checked for: ``support.languages``."""
from __future__ import annotations

import pytest
from support.languages import each_language_and_width, heading_problems, page_problems

from dashboard.core import text

pytestmark = pytest.mark.browser


def _ready(pg, size):
    """The shipped result drawn (three charts), then every folded part opened so its words are checked too."""
    for chart in ("divergence", "box", "difference"):
        pg.wait_for_selector(f"#anonland-{chart} .legend, #anonland-{chart} .xtitle", state="attached")
    pg.evaluate("() => document.querySelectorAll('.anonland-page details').forEach((d) => { d.open = true; })")
    pg.wait_for_timeout(200)


def test_anonland_page_in_every_language(visitors, app_url):
    """AnonLand in six languages at phone and desktop width: its words, the cards, the tables' headings, the charts'
    legends (the district classes by their names in the language) and axes, the rerun form, numbers the language's
    way; nothing clipped or overlapping, no chart text outside or on another, nothing from another host."""
    problems = []
    for lang, size, rec, where, words in each_language_and_width(visitors, app_url, "anonland", "/anonland?lang={lang}",
                                                                 _ready):
        pg = rec.page
        with text.language(lang):
            heading = text.gettext("AnonLand: checking the estimate on a synthetic country")
            village = text.pgettext("AnonLand district class", "village")
            population = text.local_number("102,500,000")
        problems += heading_problems(pg, lang, where, heading)
        legend = [t.strip() for t in pg.locator("#anonland-divergence .legendtext").all_text_contents()]
        if village not in legend:
            problems.append(f"{where}: the legend {legend}")
        if population not in pg.inner_text("#anonland-label"):
            problems.append(f"{where}: the label {pg.inner_text('#anonland-label')[:80]!r}")
        problems += page_problems(rec, where, words)
        if size["width"] < 500 and lang in ("de", "pt"):
            rec.screenshot(f"anonland-{lang}-phone")
    assert problems == [], "\n".join(problems[:60])
