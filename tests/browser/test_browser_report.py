"""“Download report” in headless Chromium (issue 33): one self-contained HTML file that opens offline with live charts."""
from __future__ import annotations

import pytest
from support.browser import wait_for_dash
from support.reports import external_fetches, parse

pytestmark = pytest.mark.browser


def test_explorer_report_downloads_self_contained_and_opens_offline(app_url, page, browser, tmp_path):
    pg = page.page
    pg.goto(f"{app_url.url}/explore?country=LI&stat=share_below&k=10")
    wait_for_dash(pg)
    with pg.expect_download(timeout=60_000) as info:
        pg.click("#explore-report")
    path = tmp_path / "report.html"
    info.value.save_as(path)
    assert info.value.suggested_filename == "anonset-report-explorer-LI.html"
    text = path.read_text(encoding="utf-8")
    assert text.startswith("<!DOCTYPE html>") and external_fetches(text) == []
    assert {"districts", "cdf", "country-table"} <= {t["name"] for t in parse(text).tables}
    # opened from disk with every request but the file itself refused: the charts still draw
    context = browser.new_context(viewport={"width": 1200, "height": 900})
    requested: list[str] = []
    context.route("**/*", lambda route: (requested.append(route.request.url),
                                         route.continue_() if route.request.url.startswith("file:") else route.abort()))
    offline = context.new_page()
    errors: list[str] = []
    offline.on("pageerror", lambda e: errors.append(str(e)))
    offline.goto(path.as_uri())
    offline.wait_for_function("document.querySelectorAll('.js-plotly-plot .main-svg').length >= 2", timeout=30_000)
    context.close()
    assert [u for u in requested if not u.startswith(("file:", "data:", "blob:"))] == [] and errors == []
    # a bad setting: the button is disabled (no report of the last valid numbers)
    pg.fill("#explore-k", "0")
    pg.press("#explore-k", "Tab")
    pg.wait_for_function("document.querySelector('#explore-report').disabled === true")
    assert page.foreign_requests() == []
