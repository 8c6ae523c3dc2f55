"""Smoke test of the shell in a real browser: loads, no console errors, nothing leaves 127.0.0.1."""
import pytest

pytestmark = pytest.mark.browser


def test_about_page_loads_cleanly(app_url, page):
    page.page.goto(f"{app_url.url}/about")
    page.page.wait_for_selector("h1:has-text('About AnonSet')")
    page.page.wait_for_selector("text=Sources and licences")
    page.page.wait_for_load_state("networkidle")
    shot = page.screenshot("shell-about")
    assert shot.exists()
    assert page.console_errors == []
    assert page.foreign_requests() == []
    nav = page.page.locator("nav.navbar a")
    assert nav.count() >= 2


def test_unknown_query_strings_are_accepted(app_url, page):
    page.page.goto(f"{app_url.url}/about?foo=bar&country=%3Cscript%3E")
    page.page.wait_for_selector("h1:has-text('About AnonSet')")
    assert page.console_errors == []
