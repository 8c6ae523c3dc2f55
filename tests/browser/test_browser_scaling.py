"""The scaling-law page in headless Chromium: three views, h and γ typed, points pasted, nothing leaks."""
from __future__ import annotations

import re

import pytest

pytestmark = pytest.mark.browser


def _percent(text: str) -> float:
    value = float(re.search(r"([\d.]+(?:e-?\d+)?)\s*%", text).group(1))
    return value / 100


def _wait_text(pg, selector: str, pattern: str, timeout: int = 30_000):
    pg.wait_for_function(
        "([sel, pat]) => { const el = document.querySelector(sel); return el && new RegExp(pat).test(el.innerText); }",
        arg=[selector, pattern], timeout=timeout,
    )
    return pg.inner_text(selector)


def test_explore_changes_h_and_gamma_and_reads_the_cursor(app_url, page):
    from dashboard.core import scaling as pyc

    pg = page.page
    pg.goto(f"{app_url.url}/scaling")
    first = _wait_text(pg, "#scaling-readout-kappa", "%")
    assert _percent(first) == pytest.approx(pyc.kappa_h_gamma(1e6, pyc.bits_to_nats(20), 0.3), abs=1e-3)
    pg.fill("#scaling-h-input", "24")
    pg.press("#scaling-h-input", "Enter")
    pg.fill("#scaling-gamma-input", "-0.5")
    pg.press("#scaling-gamma-input", "Enter")
    want = pyc.kappa_h_gamma(1e6, pyc.bits_to_nats(24), -0.5)
    pg.wait_for_function(
        "(want) => { const t = document.querySelector('#scaling-law-params').innerText;"
        " return t.includes('h = 24 bits') && t.includes('γ = -0.5'); }", arg=want)
    pg.wait_for_function("document.querySelector('#scaling-law-params').innerText.includes('finite support')")
    pg.wait_for_load_state("networkidle")
    assert _percent(pg.inner_text("#scaling-readout-kappa")) == pytest.approx(want, abs=1.5e-3)
    # a preset moves the cursor (a Patch) and the readouts follow
    pg.click("#scaling-preset-earth")
    _wait_text(pg, "#scaling-readouts", "8B")
    pg.wait_for_load_state("networkidle")
    earth = pyc.kappa_h_gamma(8e9, pyc.bits_to_nats(24), -0.5)
    assert _percent(pg.inner_text("#scaling-readout-kappa")) == pytest.approx(earth, rel=0.02)
    assert "anonset pyc kappa --h-bits 24 --gamma -0.5" in pg.inner_text("#scaling-law-command")
    pg.wait_for_function("window.location.search.includes('n=8e9')")
    assert "h=24" in pg.url and "view=explore" in pg.url
    # a bad value gives a message, not a traceback
    pg.fill("#scaling-h-input", "0")
    pg.press("#scaling-h-input", "Enter")
    assert "Entropy h (bits)" in _wait_text(pg, "#scaling-law-message", "outside")
    pg.fill("#scaling-h-input", "24")
    pg.press("#scaling-h-input", "Enter")
    pg.wait_for_function("document.querySelector('#scaling-law-message').innerText === ''")
    page.screenshot("scaling-explore")
    assert page.console_errors == []
    assert page.foreign_requests() == []


def test_census_view_fits_germany(app_url, page):
    pg = page.page
    pg.goto(f"{app_url.url}/scaling?view=census&country=DE&users=10000")
    h = _wait_text(pg, "#scaling-c-h", "bits")
    from dashboard.core import scaling as cp
    from dashboard.core.regions import Scenario

    fit = cp.census_fit(cp.census_partition(Scenario(countries=("DE",)), "DE"))
    assert float(h.split()[0]) == pytest.approx(fit.h_bits, abs=0.01)
    sentence = pg.inner_text("#scaling-c-sentence")
    assert "app of 10,000 users" in sentence and "Germany" in sentence
    assert "anonset pyc census --country DE" in pg.inner_text("#scaling-c-command")
    pg.wait_for_selector("#scaling-c-graph .main-svg")
    pg.wait_for_load_state("networkidle")
    page.screenshot("scaling-census")
    assert page.console_errors == []
    assert page.foreign_requests() == []


def test_forecast_view_takes_pasted_points(app_url, page):
    pg = page.page
    pg.goto(f"{app_url.url}/scaling?view=forecast")
    _wait_text(pg, "#scaling-f-models", "PYC-MB")
    pasted = "n,kappa\n200,0.99\n2000,0.93\n20000,0.71\n200000,0.38\n"
    pg.fill("#scaling-f-paste", pasted)
    pg.click("#scaling-f-use-paste")
    _wait_text(pg, "#scaling-f-load-message", "4 points")
    models = _wait_text(pg, "#scaling-f-models", r"2M")  # κ at 10 × the largest n = 2M
    for name in ("PYC-MB", "ENT", "EXP (our form)", "POL (our form)"):
        assert name in models
    assert "8B" in models
    assert "--points 200:0.99,2000:0.93,20000:0.71,200000:0.38" in pg.inner_text("#scaling-f-command")
    assert "our form" in pg.inner_text("#scaling-f-formulas")
    pg.wait_for_function("window.location.search.includes('points=200:0.99')")
    pg.wait_for_load_state("networkidle")
    page.screenshot("scaling-forecast")
    # bad pasted input: a message beside the box, the table keeps its points
    pg.fill("#scaling-f-paste", "100,0.9\n1000,abc\n")
    pg.click("#scaling-f-use-paste")
    assert "'abc' is not a number" in _wait_text(pg, "#scaling-f-load-message", "not a number")
    pg.fill("#scaling-f-paste", "100,0.9\n1000,1.4\n")
    pg.click("#scaling-f-use-paste")
    assert "[0, 1]" in _wait_text(pg, "#scaling-f-message", "must lie in")
    assert page.console_errors == []
    assert page.foreign_requests() == []


def test_unknown_link_values_are_reported(app_url, page):
    pg = page.page
    pg.goto(f"{app_url.url}/scaling?view=nope&h=abc&country=XX&zzz=1")
    pg.wait_for_selector("text=Unknown view")
    pg.wait_for_selector("text=Ignoring h in the link")
    pg.wait_for_selector("text=Ignoring the census settings")
    _wait_text(pg, "#scaling-readout-kappa", "%")
    assert page.console_errors == []


def test_upload_a_csv_and_a_bad_one(app_url, page, tmp_path):
    pg = page.page
    pg.goto(f"{app_url.url}/scaling?view=forecast")
    _wait_text(pg, "#scaling-f-models", "PYC-MB")
    good = tmp_path / "measured.csv"
    good.write_text("n,kappa\n500,0.97\n5000,0.85\n50000,0.52\n")
    pg.set_input_files("#scaling-f-upload input[type=file]", str(good))
    _wait_text(pg, "#scaling-f-load-message", "3 points from measured.csv")
    _wait_text(pg, "#scaling-f-models", "κ at 500k")  # 10 × the largest n
    bad = tmp_path / "bad.csv"
    bad.write_text("n,kappa\n500,0.97\n5000,lots\n")
    pg.set_input_files("#scaling-f-upload input[type=file]", str(bad))
    assert "'lots' is not a number" in _wait_text(pg, "#scaling-f-load-message", "not a number")
    assert page.console_errors == []


def test_phone_layout(app_url, visitors):
    rec = visitors.tab(viewport={"width": 390, "height": 844}, device_scale_factor=2, is_mobile=True)
    for view, ready in (("explore", "#scaling-readout-kappa"), ("census", "#scaling-c-h"),
                        ("forecast", "#scaling-f-models table")):
        rec.page.goto(f"{app_url.url}/scaling?view={view}")
        rec.page.wait_for_selector(ready)
        rec.page.wait_for_load_state("networkidle")
        width = rec.page.evaluate("document.documentElement.scrollWidth")
        assert width <= 400, f"{view}: the page is {width}px wide on a 390px phone"
    rec.screenshot("scaling-phone")
    assert rec.console_errors == [] and rec.foreign_requests() == []
    rec.page.close()
