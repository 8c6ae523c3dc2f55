"""“Download report” in headless Chromium (issue 33): one self-contained HTML file that opens offline with live charts.

Issue 29: the button fetches ``GET /_reports/<kind>`` in the browser (assets/report_download.js) and saves the
answer's body under its Content-Disposition name; a refusal is the answer's one line in the report message.
"""
from __future__ import annotations

import re
import urllib.request
from urllib.parse import parse_qs, urlparse

import pytest
from support.browser import wait_for_dash
from support.reports import external_fetches, parse

pytestmark = pytest.mark.browser


def route_body(url: str) -> bytes:
    """The route's answer to ``url`` fetched again, outside the browser, with the minute it was made left out:
    another gunicorn worker may make it in another minute (Chromium does not hand a downloaded body to the test)."""
    with urllib.request.urlopen(url, timeout=120) as answer:
        return undated(answer.read())


def undated(body: bytes) -> bytes:
    return re.sub(rb"made \d{4}-\d\d-\d\d \d\d:\d\d UTC", b"made (minute)", body)


def test_explorer_report_downloads_self_contained_and_opens_offline(app_url, page, browser, tmp_path):
    pg = page.page
    pg.goto(f"{app_url.url}/explore?country=LI&stat=share_below&k=10")
    wait_for_dash(pg)
    with pg.expect_response(lambda r: "/_reports/" in r.url, timeout=60_000) as answer, \
            pg.expect_download(timeout=60_000) as info:
        pg.click("#explore-report")
    path = tmp_path / "report.html"
    info.value.save_as(path)
    assert info.value.suggested_filename == "anonset-report-explorer-LI.html"
    # the file saved is the route's body, asked for by the page's shareable query (no district, no callback)
    response = answer.value
    assert response.status == 200 and undated(path.read_bytes()) == route_body(response.url)
    url = urlparse(response.url)
    assert url.hostname == "127.0.0.1" and url.path == "/_reports/explorer"
    assert parse_qs(url.query) == {"country": ["LI"], "stat": ["share_below"], "k": ["10"], "cdf_grain": ["5"],
                                   "table_ages": ["18-75"], "table_grain": ["5"], "lang": ["en"]}
    assert pg.inner_text("#explore-report-message") == ""  # "Preparing the report…" is gone once it is saved
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


def test_a_refused_report_says_why_in_the_report_message(app_url, page):
    """A country tables' age range that does not parse: the route's 400 line, in the page's language."""
    pg = page.page
    pg.goto(f"{app_url.url}/explore?country=LI&lang=de")
    wait_for_dash(pg)
    pg.fill("#explore-table-ages", "abc")
    held = []  # the request waits here until the page has said it is preparing the report
    pg.route("**/_reports/**", lambda route: held.append(route))
    pg.click("#explore-report")
    pg.wait_for_function("document.querySelector('#explore-report-message').innerText === 'Der Bericht wird erstellt …'")
    pg.wait_for_function("true")  # lets Playwright hand over the held request
    assert len(held) == 1
    with pg.expect_response(lambda r: "/_reports/" in r.url, timeout=60_000) as answer:
        held[0].continue_()
    assert answer.value.status == 400 and "lang=de" in answer.value.url
    message = pg.locator("#explore-report-message .error")
    message.wait_for(timeout=30_000)
    assert message.inner_text() == answer.value.text() and message.inner_text().startswith("Kein Bericht: ")
    assert page.foreign_requests() == []


@pytest.mark.parametrize("path, button, name", [
    ("/explore/buckets?country=LI&k=5&coverage=0.9", "#buckets-button-report", "anonset-report-buckets-LI-k5-q0.9.html"),
    ("/dataset", "#dataset-report", "anonset-report-dataset-nhanes.html"),
])
def test_the_advisors_and_a_shipped_data_sets_report_download_by_get(app_url, page, tmp_path, path, button, name):
    pg = page.page
    pg.goto(f"{app_url.url}{path}")
    wait_for_dash(pg)
    pg.wait_for_function(f"document.querySelector('{button}') && !document.querySelector('{button}').disabled")
    with pg.expect_response(lambda r: "/_reports/" in r.url, timeout=90_000) as answer, \
            pg.expect_download(timeout=90_000) as info:
        pg.click(button)
    saved = tmp_path / name
    info.value.save_as(saved)
    assert info.value.suggested_filename == name and answer.value.status == 200
    assert undated(saved.read_bytes()) == route_body(answer.value.url)
    assert saved.read_text(encoding="utf-8").startswith("<!DOCTYPE html>")
    assert page.foreign_requests() == []


def test_the_download_holds_under_the_pages_enforced_csp(app_url, browser, tmp_path):
    """The shared ``page`` bypasses the CSP for Playwright's polling: here it is enforced (connect-src 'self' lets the
    same-origin fetch through; the object URL's download is no fetch), and nothing violates it."""
    from support.browser import PageRecorder

    context = browser.new_context(viewport={"width": 1366, "height": 900}, accept_downloads=True)
    try:
        pg = context.new_page()
        pg.set_default_timeout(60_000)
        pg.add_init_script("window.__cspViolations = []; document.addEventListener('securitypolicyviolation', "
                           "e => window.__cspViolations.push(e.violatedDirective + ' ' + e.blockedURI));")
        page = PageRecorder(pg)
        pg.goto(f"{app_url.url}/explore/buckets?country=LI&k=5&coverage=0.9")
        wait_for_dash(pg)
        pg.wait_for_function("() => !document.querySelector('#buckets-button-report').disabled")
        with pg.expect_download(timeout=90_000) as info:
            pg.click("#buckets-button-report")
        info.value.save_as(tmp_path / "r.html")
        assert info.value.suggested_filename == "anonset-report-buckets-LI-k5-q0.9.html"
        assert (tmp_path / "r.html").read_text(encoding="utf-8").startswith("<!DOCTYPE html>")
        assert pg.evaluate("window.__cspViolations") == [] and page.foreign_requests() == []
        assert page.console_errors == []
    finally:
        context.close()
