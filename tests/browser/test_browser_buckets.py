"""The bucket advisor page in headless Chromium: the recommendation, the front, the map, downloads, bad input."""
from __future__ import annotations

import json

import numpy as np
import pytest

pytestmark = pytest.mark.browser

SENTENCE = "#buckets-sentence"


def _wait_sentence(pg, part: str, timeout: int = 90_000):
    pg.wait_for_function(
        "(part) => { const el = document.querySelector('#buckets-sentence'); return el && el.innerText.includes(part); }",
        arg=part, timeout=timeout)
    return pg.inner_text(SENTENCE)


@pytest.fixture(scope="module")
def advisor(browser):
    """One desktop page for the file's desktop checks: the first opens its address with a load, the next go to theirs
    in place the way the app's links do (``support.in_place``); its console and requests are recorded throughout."""
    from support.browser import PageRecorder

    context = browser.new_context(viewport={"width": 1366, "height": 900}, bypass_csp=True)
    pg = context.new_page()
    pg.set_default_timeout(60_000)
    yield PageRecorder(pg)
    pg.close()


def _open(page, app_url, path: str):
    from support.in_place import open_page

    open_page(page.page, app_url.url, path, leaving=SENTENCE)


def _idle(pg):
    pg.wait_for_load_state("networkidle")
    pg.wait_for_function("!document.querySelector('[data-dash-is-loading=\"true\"]')")


def test_explorer_links_to_the_advisor_and_it_shows_the_core_answer(app_url, advisor):
    from dashboard.core import buckets as bk
    from dashboard.core import buckets as br

    page = advisor
    pg = page.page
    _open(page, app_url, "/explore?country=DE")
    pg.click("text=For app developers: safe bucket sizes")
    pg.wait_for_url("**/explore/buckets**")
    advice = bk.advise("DE", 10, 0.95)
    text = _wait_sentence(pg, "Collect age")
    assert text == br.recommendation_text(advice)
    assert pg.title().startswith("AnonSet — For app developers")
    cards = pg.inner_text("#buckets-cards")
    assert f"{advice.recommended.coverage:.1%}" in cards and f"{len(advice.evaluated):,}" in cards
    # the front chart: every configuration, the front and the star at the recommendation
    pg.wait_for_selector("#buckets-front .main-svg")
    data = pg.evaluate("document.querySelector('#buckets-front .js-plotly-plot').data.map(t => [t.name, t.x.length])")
    assert data[0] == ["every configuration on the ladder", len(advice.evaluated)]
    assert data[1] == ["Pareto front", len(advice.front)]
    star = pg.evaluate("document.querySelector('#buckets-front .js-plotly-plot').data[2]")
    assert star["name"] == "recommended"
    assert star["x"][0] == pytest.approx(100 * advice.recommended.coverage) and star["y"][0] == pytest.approx(
        advice.recommended.bits)
    # the map: each district's own share, the short ones outlined, geometry by URL
    pg.wait_for_selector("#buckets-map .js-plotly-plot", state="attached")
    z = np.array(pg.evaluate("Array.from(document.querySelector('#buckets-map .js-plotly-plot').data[0].z)"),
                 dtype=float)
    np.testing.assert_allclose(z, 100 * advice.district_coverage, atol=1e-9)
    outlined = pg.evaluate("document.querySelector('#buckets-map .js-plotly-plot').data[1].locations")
    short = {advice.district_ids[d] for d in advice.short_under_recommended}
    # the short districts outlined, or — when they are more than half — the others
    want = short if 2 * len(short) <= len(advice.district_ids) else set(advice.district_ids) - short
    assert sorted(outlined) == sorted(want)
    assert pg.evaluate("document.querySelector('#buckets-map .js-plotly-plot').data[0].geojson") == "/geo/DE.geojson"
    assert "anonset buckets --country DE --k 10 --coverage 0.95" in pg.inner_text("#buckets-cli")
    _idle(pg)
    page.screenshot("buckets-de")
    assert page.console_errors == []
    assert page.foreign_requests() == []


def test_settings_change_the_advice_and_the_link(app_url, advisor):
    from dashboard.core import buckets as bk
    from dashboard.core import buckets as br

    page = advisor
    pg = page.page
    _open(page, app_url, "/explore/buckets?country=MT&k=5&coverage=0.9")
    advice = bk.advise("MT", 5, 0.9)
    assert _wait_sentence(pg, "Collect") == br.recommendation_text(advice)
    pg.fill("#buckets-k", "20")
    pg.press("#buckets-k", "Enter")
    pg.fill("#buckets-coverage", "80")
    pg.press("#buckets-coverage", "Enter")
    advice = bk.advise("MT", 20, 0.8)
    pg.wait_for_function("() => window.location.search.includes('k=20') && window.location.search.includes('coverage=0.8')")
    assert _wait_sentence(pg, f"{advice.recommended.coverage:.1%}") == br.recommendation_text(advice)
    # per district: one row per district with its own finest safe buckets
    pg.check("#buckets-per-district input[type=checkbox]")
    pg.wait_for_selector("#buckets-per-district-table td[data-dash-column='district']", timeout=60_000)
    assert pg.locator("#buckets-per-district-table td[data-dash-column='district']").count() == 2
    pg.wait_for_function("() => window.location.search.includes('per_district=1')")
    # a bad value: one message, the last answer stays
    pg.fill("#buckets-k", "0")
    pg.press("#buckets-k", "Enter")
    pg.wait_for_function("() => document.querySelector('#buckets-message').innerText.includes('k must be a positive')")
    _idle(pg)
    assert br.recommendation_text(advice) in pg.inner_text(SENTENCE)
    pg.fill("#buckets-coverage", "150")
    pg.press("#buckets-coverage", "Enter")
    pg.wait_for_function("() => document.querySelector('#buckets-message').innerText.length > 0")
    assert page.console_errors == []
    assert page.foreign_requests() == []


def test_downloads_are_the_core_exports(app_url, advisor, tmp_path):
    from dashboard.core import buckets as bk
    from dashboard.core import buckets as br

    pg = advisor.page
    _open(advisor, app_url, "/explore/buckets?country=LI&k=10&coverage=0.9")
    _wait_sentence(pg, "Collect")
    _idle(pg)
    with pg.expect_download() as info:
        pg.click("#buckets-button-json")
    path = tmp_path / "config.json"
    info.value.save_as(path)
    assert info.value.suggested_filename == "anonset-buckets-LI-k10-q0.9.json"
    got = json.loads(path.read_text(encoding="utf-8"))
    assert got == json.loads(br.export_json(bk.advise("LI", 10, 0.9)))
    with pg.expect_download() as info:
        pg.click("#buckets-button-csv")
    info.value.save_as(tmp_path / "all.csv")
    assert (tmp_path / "all.csv").read_text(encoding="utf-8") == br.export_csv(bk.advise("LI", 10, 0.9))


def test_a_bad_link_is_repaired_with_notices(app_url, advisor):
    page = advisor
    pg = page.page
    _open(page, app_url, "/explore/buckets?country=XX&k=-1&coverage=7")
    pg.wait_for_selector("#buckets-notices")
    notices = pg.inner_text("#buckets-notices")
    assert "Unknown country" in notices and "k must be a positive" in notices and "coverage must lie" in notices
    _wait_sentence(pg, "Collect")
    assert page.console_errors == []


def test_phone_width(app_url, visitors):
    rec = visitors.tab(viewport={"width": 390, "height": 844}, bypass_csp=True)
    pg = rec.page
    pg.goto(f"{app_url.url}/explore/buckets?country=DE")
    _wait_sentence(pg, "Collect")
    _idle(pg)
    # nothing wider than the screen
    assert pg.evaluate("document.documentElement.scrollWidth") <= 390
    rec.screenshot("buckets-de-phone")
    assert rec.console_errors == []
    pg.close()
