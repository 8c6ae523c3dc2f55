"""The Real people page in headless Chromium: the validation numbers, both models, no foreign requests."""
from __future__ import annotations

import pytest

pytestmark = pytest.mark.browser


def test_real_people_page_shows_both_models(app_url, page):
    from dashboard.views.real_people import report

    r = report()
    pg = page.page
    pg.set_viewport_size({"width": 1440, "height": 900})
    pg.goto(f"{app_url.url}/real-people")
    pg.wait_for_selector("#real-calibration .main-svg")
    pg.wait_for_load_state("networkidle")
    mad = pg.inner_text("#real-mad")
    assert f"{100 * r['models']['v2']['median_abs_divergence']:.0f} %" in mad
    assert f"{100 * r['models']['paper']['median_abs_divergence']:.0f} %" in mad
    assert f"{r['models']['v2']['heldout_loglik_per_person']:.3f}" in pg.inner_text("#real-loglik")
    text = pg.inner_text("main") if pg.query_selector("main") else pg.inner_text("body")
    assert "What the numbers mean" in text and "4,850" in text and "anonset validate nhanes" in text
    legend = pg.inner_text("#real-calibration")
    assert "v2 (default)" in legend and "paper model" in legend
    page.screenshot("real-people-desktop")
    assert page.console_errors == [] and page.foreign_requests() == []


def test_real_people_phone_layout(app_url, visitors):
    rec = visitors.tab(viewport={"width": 390, "height": 844}, device_scale_factor=2, is_mobile=True, bypass_csp=True)
    rec.page.goto(f"{app_url.url}/real-people")
    rec.page.wait_for_selector("#real-divergence .main-svg")
    width = rec.page.evaluate("document.documentElement.scrollWidth")
    assert width <= 400, f"page is {width}px wide on a 390px phone"
    rec.screenshot("real-people-phone")
    assert rec.console_errors == [] and rec.foreign_requests() == []
    rec.page.close()
