"""The AnonLand page in headless Chromium: opens from the shipped result, reruns a tiny AnonLand, stays local."""
from __future__ import annotations

import pytest

pytestmark = pytest.mark.browser


def _open(app_url, page):
    pg = page.page
    pg.goto(f"{app_url.url}/anonland?unknown=1")
    pg.wait_for_selector("#anonland-divergence .main-svg")
    pg.wait_for_selector("#anonland-box .main-svg")
    pg.wait_for_selector("#anonland-difference .main-svg")
    pg.wait_for_load_state("networkidle")
    return pg


def test_page_opens_with_the_shipped_result_and_refuses_bad_input(app_url, page):
    pg = _open(app_url, page)
    assert "The precomputed full-scale AnonLand: 102,500,000 people" in pg.inner_text("#anonland-label")
    assert pg.locator("#anonland-back").is_hidden()
    # four divergence cards, the body model used, and CAS vs the own set at RAS = 1 (SPEC §1.7)
    assert pg.locator("#anonland-cards .card").count() == 6
    cards = pg.inner_text("#anonland-cards")
    assert "your own set" in cards
    assert "Body model of these estimates" in cards and "v2" in cards
    # one legend entry per district class, the ±25 % band and its label
    legend = pg.locator("#anonland-divergence .legendtext").all_text_contents()
    assert legend == ["metropolis", "city", "county", "town", "village"]
    assert "±25 % band" in pg.locator("#anonland-divergence .annotation-text").all_text_contents()
    # table alternatives open and show numbers
    pg.click("#anonland-divergence-table summary")
    assert "RAS" in pg.inner_text("#anonland-divergence-table table")
    assert pg.locator("#anonland-summary-table tbody tr").count() == 7
    pg.evaluate("() => window.scrollTo(0, 0)")  # the rerun form is sticky: shoot it in its place
    page.screenshot("anonland")
    assert page.console_errors == []
    assert page.foreign_requests() == []
    _bad_input_shows_a_message(pg)  # on the same load (issue 25: a load of its own before): the form is untouched
    assert page.console_errors == []


def test_census_switch_redraws_the_charts(app_url, page):
    pg = _open(app_url, page)
    pg.check("#anonland-census input[value=both]")
    pg.wait_for_function("() => [...document.querySelectorAll('#anonland-divergence .legendtext')]"
                         ".some(t => t.textContent === 'noisy census (all classes)')")
    pg.wait_for_function("() => [...document.querySelectorAll('#anonland-box .legendtext')]"
                         ".some(t => t.textContent === 'CAS, noisy census')")
    assert page.console_errors == []


def _bad_input_shows_a_message(pg):
    """An invalid ε: one message, the start button still takes a click, the shown result stays the shipped one."""
    pg.fill("#anonland-epsilon", "0")
    pg.click("#anonland-start")
    pg.wait_for_selector("#anonland-message .error")
    assert "ε (privacy parameter): must be greater than 0" in pg.inner_text("#anonland-message")
    assert pg.locator("#anonland-start").is_enabled()
    assert "precomputed full-scale" in pg.inner_text("#anonland-label")


def test_tiny_rerun_shows_progress_and_replaces_the_charts(app_url, page):
    pg = _open(app_url, page)
    pg.fill("#anonland-scale", "0.001")
    pg.fill("#anonland-citizens", "40")
    pg.fill("#anonland-seed", "99")
    pg.click("#anonland-start")
    pg.wait_for_selector("#anonland-progress", state="visible")
    pg.wait_for_function("() => document.querySelector('#anonland-progress-text').innerText.startsWith('Done')",
                         timeout=60_000)
    assert pg.get_attribute("#anonland-progress", "value") == "100"
    assert "102,500 people and 200 test citizens" in pg.inner_text("#anonland-progress-text")
    pg.wait_for_function("() => document.querySelector('#anonland-label').innerText.startsWith('Your rerun')")
    label = pg.inner_text("#anonland-label")
    assert "Your rerun: parameters — 102,500 people" in label and "seed 99" in label
    assert pg.locator("#anonland-back").is_visible() and pg.locator("#anonland-start").is_enabled()
    assert "102,500" in pg.inner_text("#anonland-parameters")
    pg.wait_for_load_state("networkidle")
    pg.evaluate("() => window.scrollTo(0, 0)")
    page.screenshot("anonland-rerun")
    pg.click("#anonland-back")
    pg.wait_for_function("() => document.querySelector('#anonland-label').innerText.includes('precomputed full-scale')")
    assert pg.locator("#anonland-back").is_hidden()
    assert page.console_errors == []
    assert page.foreign_requests() == []


def test_rerun_works_across_several_gunicorn_workers(cache_root, page, tmp_path):
    """Job status and result live in the shared server-side cache, so polls may land on any worker."""
    from support.browser import running_server

    with running_server(tmp_path / "server.log", workers=3) as url:
        pg = page.page
        pg.goto(f"{url}/anonland")
        for seed in ("5", "6"):  # two runs: each makes ~10 polls, spread over the workers
            if seed == "6":  # the second on the same load: back to the shipped result first, as a visitor would
                pg.click("#anonland-back")
                pg.wait_for_function(
                    "() => document.querySelector('#anonland-label').innerText.includes('precomputed full-scale')")
            pg.wait_for_selector("#anonland-divergence .main-svg")
            pg.fill("#anonland-scale", "0.002")
            pg.fill("#anonland-citizens", "30")
            pg.fill("#anonland-seed", seed)
            pg.click("#anonland-start")
            pg.wait_for_function("() => document.querySelector('#anonland-label').innerText.startsWith('Your rerun')",
                                 timeout=60_000)
            assert f"seed {seed}" in pg.inner_text("#anonland-label")
            assert pg.inner_text("#anonland-message") == ""
        log = (tmp_path / "server.log").read_text()
        assert "Traceback" not in log
    assert page.console_errors == []
