"""The bucket advisor in all six languages (issue 31). What every page is checked for: ``support.languages``."""
from __future__ import annotations

import pytest
from support.languages import each_language_and_width, heading_problems, page_problems

from dashboard.core import text

pytestmark = pytest.mark.browser

#: The bucket advisor for Malta with every district's own answer (two districts: the per-district table is cheap).
BUCKETS = "/explore/buckets?lang={lang}&country=MT&k=10&coverage=0.95&per_district=1"


def _ready(pg, size):
    pg.wait_for_function("() => (document.querySelector('#buckets-sentence') || {}).innerText")
    pg.wait_for_selector("#buckets-front .main-svg")
    pg.wait_for_selector("#buckets-per-district-table td[data-dash-column='district']")
    pg.wait_for_timeout(400)


def test_bucket_advisor_in_every_language(visitors, app_url):
    """The bucket advisor in six languages at phone and desktop width: the recommendation the core writes in that
    language, its cards, charts and tables, nothing clipped, overlapping or left in English."""
    from dashboard.core import buckets as bk

    advice = bk.advise("MT", 10, 0.95, per_district=True)
    problems = []
    for lang, size, rec, where, words in each_language_and_width(visitors, app_url, "buckets", BUCKETS, _ready, 90_000):
        pg = rec.page
        with text.language(lang):
            heading, sentence = text.gettext("For app developers: safe bucket sizes"), bk.recommendation_text(advice)
        problems += heading_problems(pg, lang, where, heading)
        if pg.inner_text("#buckets-sentence").strip() != sentence:
            problems.append(f"{where}: sentence {pg.inner_text('#buckets-sentence')!r}, not {sentence!r}")
        problems += page_problems(rec, where, words)
        if lang in ("de", "pt"):
            rec.screenshot(f"buckets-{lang}-{size['width']}")
    assert problems == [], "\n".join(problems[:60])
