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
def language_visitors(browser):
    """A phone and a desktop browser context (``support.languages.new_visitors``) for every page's language check: the
    pages share the contexts' HTTP and code caches, so only the session's first load at each width is a cold one."""
    from support.languages import new_visitors

    contexts = new_visitors(browser)
    yield contexts
    for _size, ctx in contexts:
        ctx.close()


@pytest.fixture
def page(browser):
    """A fresh desktop-sized page with request/console recording.

    ``bypass_csp`` lets Playwright's own polling scripts (``wait_for_function``) run
    under the app's Content-Security-Policy; the policy itself is tested in
    ``test_browser_offline.py`` with contexts that do not bypass it.
    """
    from support.browser import PageRecorder

    context = browser.new_context(viewport={"width": 1366, "height": 900}, bypass_csp=True)
    pg = context.new_page()
    pg.set_default_timeout(60_000)
    recorder = PageRecorder(pg)
    yield recorder
    context.close()
