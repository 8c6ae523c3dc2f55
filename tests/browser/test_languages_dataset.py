"""The data-set page in all six languages (issue 31). What every page is checked for: ``support.languages``."""
from __future__ import annotations

import pytest
from support.languages import each_language_and_width, heading_problems, page_problems

from dashboard.core import text

pytestmark = pytest.mark.browser


def _ready(pg, size):
    """The NHANES default analysis drawn: its cards, the plan and every chart."""
    pg.wait_for_selector("#dataset-plan-message", timeout=120_000)
    pg.wait_for_selector("#dataset-roc-graph .main-svg")
    pg.wait_for_load_state("networkidle")


def test_data_set_page_in_every_language(visitors, app_url):
    """The data-set page in six languages at phone and desktop width with NHANES analysed (the default on load): the
    form, the cards, the model's reason, the plan, the tables' headings and the charts' words, numbers the language's
    way, nothing clipped or overlapping, nothing from another host."""
    problems = []
    for lang, size, rec, where, words in each_language_and_width(visitors, app_url, "dataset", "/dataset?lang={lang}",
                                                                 _ready, timeout_ms=120_000):
        pg = rec.page
        with text.language(lang):
            heading, analyse = text.gettext("How identifiable is a data set?"), text.gettext("Analyse")
            records = text.gettext("Records analysed")
        problems += heading_problems(pg, lang, where, heading)
        if pg.inner_text("#dataset-analyse").strip() != analyse:
            problems.append(f"{where}: the button reads {pg.inner_text('#dataset-analyse')!r}")
        if records not in pg.inner_text(".dataset-results .cards"):
            problems.append(f"{where}: the cards {pg.inner_text('.dataset-results .cards')[:120]!r}")
        if lang == "de" and "8.366" not in pg.inner_text(".dataset-form"):
            problems.append(f"{where}: the record count is not grouped the German way")
        problems += page_problems(rec, where, words)
        if size["width"] < 500 and lang in ("de", "pt"):
            rec.screenshot(f"dataset-{lang}-phone")
    assert problems == [], "\n".join(problems[:60])
