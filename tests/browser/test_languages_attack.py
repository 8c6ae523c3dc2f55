"""The attack lab in all six languages (issue 31). What every page is checked for: ``support.languages``."""
from __future__ import annotations

import pytest
from support.languages import each_language_and_width, heading_problems, page_problems

from dashboard.core import text

pytestmark = pytest.mark.browser

#: A short experiment (three small galleries, one repetition): measured once, written in every language.
PATH = "/attack?lang={lang}&known=2&sizes=50,100,200&repeats=1"


def _ready(pg, size):
    pg.wait_for_selector("#attack-forecast-graph .main-svg .xtitle", timeout=90_000)
    pg.wait_for_selector("#attack-models table")


def test_attack_lab_in_every_language(visitors, app_url):
    """The attack lab in six languages at phone and desktop width, its explanations opened: the form, the cards,
    the tables, the four charts' titles, axes and legends, the explanation; the attribution quoted in English;
    nothing clipped or overlapping, nothing English whose translation differs, nothing from another host."""
    problems = []
    for lang, size, rec, where, words in each_language_and_width(visitors, app_url, "attack", PATH, _ready):
        pg = rec.page
        with text.language(lang):
            heading = text.gettext("Attack lab: de-anonymising sparse data")
        problems += heading_problems(pg, lang, where, heading)
        pg.evaluate("document.querySelectorAll('.attack-page details').forEach((d) => { d.open = true; })")
        pg.wait_for_load_state("networkidle")
        problems += page_problems(rec, where, words)
        if size["width"] < 500 and lang in ("de", "pt"):
            rec.screenshot(f"attack-{lang}-phone")
    assert problems == [], "\n".join(problems[:60])
