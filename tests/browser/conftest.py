"""Browser fixtures: the real app under gunicorn for the whole session, headless Chromium, a recording page."""
from __future__ import annotations

import pytest


@pytest.fixture(scope="session")
def app_url(tmp_path_factory, cache_root):
    """The real app under gunicorn on a free loopback port, for the whole session."""
    from support.browser import require_chromium, running_server, warm_pages

    require_chromium()
    log = tmp_path_factory.mktemp("server") / "server.log"
    with running_server(log) as url:
        warm_pages(url, ["/explore", "/explore/buckets", "/dataset", "/scaling", "/attack"])
        url_holder = type("Server", (), {"url": url, "log": log})
        yield url_holder


@pytest.fixture(scope="session")
def browser():
    from support.browser import CHROMIUM, CHROMIUM_ARGS, require_chromium

    require_chromium()
    from playwright.sync_api import sync_playwright

    with sync_playwright() as p:
        b = p.chromium.launch(executable_path=CHROMIUM, headless=True, args=CHROMIUM_ARGS)
        yield b
        b.close()


@pytest.fixture(scope="session")
def visitors(browser, app_url):
    """The session's shared browser contexts (``support.browser.Visitors``): a test opens a fresh tab of the one its
    options name, with the app's storage cleared, instead of a new context that would compile the app's scripts
    again (issue 25: the suite's time)."""
    from support.browser import Visitors

    shared = Visitors(browser, app_url.url)
    yield shared
    shared.close()


@pytest.fixture
def page(visitors):
    """A fresh desktop-sized tab (1366 × 900) with request/console recording, in the shared desktop context.

    ``bypass_csp`` lets Playwright's own polling scripts (``wait_for_function``) run
    under the app's Content-Security-Policy; the policy itself is tested in
    ``test_browser_offline.py`` with contexts that do not bypass it.
    """
    recorder = visitors.tab(viewport={"width": 1366, "height": 900}, bypass_csp=True)
    yield recorder
    recorder.page.close()


@pytest.fixture
def cold_page(browser):
    """A desktop tab like ``page``'s but in a browser context of its own, whose HTTP cache has not seen the app: for
    a check that counts the server's answers (the shared contexts' tabs may find a resource cached by an earlier
    test, and the server would then not send it at all)."""
    from support.browser import PageRecorder

    context = browser.new_context(viewport={"width": 1366, "height": 900}, bypass_csp=True)
    recorder = PageRecorder(context.new_page())
    recorder.page.set_default_timeout(60_000)
    yield recorder
    context.close()
