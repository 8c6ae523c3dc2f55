"""Shared fixtures: where the raw official files and the built cache are."""
from __future__ import annotations

import sys
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).resolve().parent))  # browser_support

from census_loaders.paths import cache_dir, raw_dir


@pytest.fixture(scope="session")
def raw_root():
    root = raw_dir()
    if not root.exists():
        pytest.skip(f"raw data folder {root} is not present")
    return root


@pytest.fixture(scope="session")
def cache_root():
    root = cache_dir()
    if not (root / "manifest.json").exists():
        pytest.skip("data_cache/ has not been built")
    return root


@pytest.fixture(scope="session")
def dash_page(cache_root):
    """``dash_page("explorer")``: a page module as Dash loaded it (``pages.<name>``), whose callbacks are the served ones.

    Importing ``dashboard.pages.<name>`` instead would run the module a second time and
    register its path twice, which makes every later request to the app fail.
    """
    import sys

    from dashboard.wsgi import app  # noqa: F401  (loads the pages)

    return lambda name: sys.modules[f"pages.{name}"]


@pytest.fixture(scope="session")
def app_url(tmp_path_factory, cache_root):
    """The real app under gunicorn on a free loopback port, for the whole session."""
    from browser_support import require_chromium, running_server

    require_chromium()
    log = tmp_path_factory.mktemp("server") / "server.log"
    with running_server(log) as url:
        url_holder = type("Server", (), {"url": url, "log": log})
        yield url_holder


@pytest.fixture(scope="session")
def browser():
    from browser_support import CHROMIUM, CHROMIUM_ARGS, require_chromium

    require_chromium()
    from playwright.sync_api import sync_playwright

    with sync_playwright() as p:
        b = p.chromium.launch(executable_path=CHROMIUM, headless=True, args=CHROMIUM_ARGS)
        yield b
        b.close()


@pytest.fixture
def page(browser):
    """A fresh desktop-sized page with request/console recording.

    ``bypass_csp`` lets Playwright's own polling scripts (``wait_for_function``) run
    under the app's Content-Security-Policy; the policy itself is tested in
    ``test_browser_offline.py`` with contexts that do not bypass it.
    """
    from browser_support import PageRecorder

    context = browser.new_context(viewport={"width": 1366, "height": 900}, bypass_csp=True)
    pg = context.new_page()
    pg.set_default_timeout(30_000)
    recorder = PageRecorder(pg)
    yield recorder
    context.close()
