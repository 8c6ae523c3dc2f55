"""Offline and private, in headless Chromium, for EVERY registered page.

* each page (from ``dash.page_registry``, so pages added later are covered) loads
  with every request to 127.0.0.1, a clean console and no CSP violation;
* the personal page, filled in with distinctive answers, leaves none of them in
  the server log, the URL, or any file the server wrote during the test (the
  Flask-Caching folder and the temporary folders the app uses).
"""
from __future__ import annotations

import os
import tempfile
import time
from pathlib import Path

import pytest
from support.browser import PAGES, choose_option, wait_for_dash

pytestmark = pytest.mark.browser

# collects CSP violations (also those Chromium reports only as console messages)
CSP_LISTENER = """
window.__cspViolations = [];
document.addEventListener('securitypolicyviolation', function (e) {
  window.__cspViolations.push(e.violatedDirective + ' ' + (e.blockedURI || 'inline') + ' ' + (e.sourceFile || ''));
});
"""




@pytest.fixture(scope="module")
def strict_context(browser):
    """One browser context for this file's pages, enforcing the app's CSP: its HTTP and code caches are shared,
    so only the first page loads the app's scripts cold (issue 25: a context of its own per page before)."""
    context = browser.new_context(viewport={"width": 1366, "height": 900})
    context.add_init_script(CSP_LISTENER)
    yield context
    context.close()


@pytest.fixture
def strict_page(strict_context):
    """A new page that enforces the app's CSP (the shared ``page`` fixture bypasses it for Playwright's polling).

    Under an enforced CSP, ``wait_for_function`` needs an arrow-function string
    (evaluated once); a bare expression would be eval'd on every poll and blocked.
    """
    from support.browser import PageRecorder

    pg = strict_context.new_page()
    pg.set_default_timeout(60_000)
    yield PageRecorder(pg)
    pg.close()


@pytest.mark.parametrize("module,path", PAGES, ids=[p for _, p in PAGES])
def test_page_is_offline_clean_and_csp_compliant(app_url, strict_page, module, path):
    page = strict_page
    pg = page.page
    responses = []
    pg.on("response", lambda r: responses.append(r))
    pg.goto(f"{app_url.url}{path}")
    wait_for_dash(pg)
    pg.wait_for_timeout(500)  # late renders (maps draw after the first paint)
    violations = pg.evaluate("window.__cspViolations")
    assert violations == [], f"{module}: CSP violations {violations}"
    assert page.foreign_requests() == [], f"{module}: requests leaving 127.0.0.1"
    assert page.console_errors == [], f"{module}: console errors"
    main = next(r for r in responses if r.url.rstrip("/") == f"{app_url.url}{path}".rstrip("/"))
    headers = main.headers
    assert "frame-ancestors 'none'" in headers["content-security-policy"]
    assert headers["referrer-policy"] == "no-referrer"
    # plotly.js and every script come from this server (Dash serve_locally)
    scripts = pg.evaluate("Array.from(document.scripts).map(s => s.src).filter(Boolean)")
    assert scripts and all(s.startswith(app_url.url) for s in scripts), scripts
    if pg.evaluate("() => !!document.querySelector('.js-plotly-plot')"):
        plotly = [u for u in page.requests if "plotly" in u.rsplit("/", 1)[-1]]
        assert plotly and all(u.startswith(app_url.url) for u in plotly), plotly


# --------------------------------------------------------------------------- private: the personal page

HEIGHT, WEIGHT, AGE_GROUP = "187.3", "93.7", "40–45"
SECRETS = (HEIGHT, WEIGHT, "187.3", "93.7", AGE_GROUP, "40-45", "40%E2%80%9345")


# the browser's own profile and the test runner's folders are client-side, not the server's
CLIENT_SIDE_TMP = ("playwright", "pytest-of", "bash_jobs", ".org.chromium", "chromium", ".com.google")


def _files_written_since(roots: list[Path], since: float) -> list[Path]:
    out = []
    for root in roots:
        if not root.exists():
            continue
        for dirpath, dirs, files in os.walk(root):
            if Path(dirpath) == Path(tempfile.gettempdir()):
                dirs[:] = [d for d in dirs if not d.startswith(CLIENT_SIDE_TMP)]
            for name in files:
                p = Path(dirpath) / name
                try:
                    if p.stat().st_mtime >= since and p.stat().st_size < 50_000_000:
                        out.append(p)
                except OSError:
                    continue
    return out


def test_personal_answers_never_reach_logs_or_files(app_url, strict_page):
    from dashboard.settings import load

    page = strict_page
    pg = page.page
    start = time.time() - 1
    log_size_before = app_url.log.stat().st_size
    pg.goto(f"{app_url.url}/?country=DE#district=11000")
    pg.wait_for_selector("#me-country", state="attached")
    pg.check("input[value=male]")
    choose_option(pg, "me-ages", "40", AGE_GROUP)
    pg.fill("#me-height-cm", HEIGHT)
    pg.press("#me-height-cm", "Tab")
    pg.fill("#me-weight-kg", WEIGHT)
    pg.press("#me-weight-kg", "Tab")
    pg.wait_for_function(
        "() => { const li = document.querySelectorAll('#me-funnel-text li');"
        " return li.length == 6 && li[3].innerText.includes('40') && li[5].innerText.includes('90'); }",
        timeout=20_000,
    )
    pg.wait_for_load_state("networkidle")
    # the answers are on screen (computed in the browser) …
    assert "male" in pg.inner_text("#me-funnel-text")
    # … but in no URL sent (an opened link's #fragment follows the edits; a fragment never leaves the
    # browser), no log line and no file the server wrote
    assert all(s not in pg.url.split("#")[0] for s in SECRETS)
    for url in page.requests:
        assert all(s not in url for s in SECRETS), url
    time.sleep(0.5)
    log = app_url.log.read_text(errors="replace")
    new_log = log[log_size_before:]
    assert "POST /_dash-update-component" in new_log  # the access log does record the requests
    for secret in SECRETS:
        assert secret not in log, f"{secret!r} in the server log"
    roots = [Path(load().cache_dir), Path(tempfile.gettempdir()), Path.cwd() / "data_cache"]
    written = _files_written_since(roots, start)
    for path in written:
        try:
            data = path.read_bytes()
        except OSError:
            continue
        for secret in SECRETS:
            assert secret.encode() not in data, f"{secret!r} found in {path}"
    assert pg.evaluate("window.__cspViolations") == []
    assert page.console_errors == []
    assert page.foreign_requests() == []
