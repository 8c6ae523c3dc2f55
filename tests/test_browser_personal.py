"""The personal page in headless Chromium: fill the form, read the result, check nothing leaks."""
from __future__ import annotations

import re
from urllib.parse import urlparse

import pytest
from browser_support import choose_option

pytestmark = pytest.mark.browser

# distinctive values, so their absence from the URL and the server log means something
HEIGHT, WEIGHT = "163.7", "71.9"


def _fill_profile(pg):
    pg.check("input[value=female]")
    choose_option(pg, "me-ages", "65", "65–75")
    pg.fill("#me-height-cm", HEIGHT)
    pg.press("#me-height-cm", "Tab")
    pg.fill("#me-weight-kg", WEIGHT)
    pg.press("#me-weight-kg", "Tab")


def _wait_for_full_profile(pg):
    """Until the funnel shows the typed age, height and weight (the first render shows the country only)."""
    pg.wait_for_function(
        "(() => { const li = document.querySelectorAll('#me-funnel-text li');"
        " return li.length == 6 && li[3].innerText.includes('65') && li[5].innerText.includes('kg'); })()",
        timeout=20_000,
    )


def _headline_count(pg) -> int:
    """The others of "You and about X others share these attributes" (SPEC §1.7), whole people."""
    pg.wait_for_function("document.querySelector('#me-headline').innerText.includes('share these')")
    pg.wait_for_load_state("networkidle")
    text = pg.inner_text("#me-headline")
    assert "0 people" not in text
    return int(float(re.match(r"You and about ([\d,.]+) others", text).group(1).replace(",", "")))


def test_fill_form_read_headline_and_funnel(app_url, page):
    pg = page.page
    pg.goto(f"{app_url.url}/?country=DE&district=11000")
    pg.wait_for_selector("#me-country", state="attached")
    _fill_profile(pg)
    _wait_for_full_profile(pg)
    lines = pg.locator("#me-funnel-text li").all_inner_texts()
    assert lines[0].startswith("Germany") and "Berlin" in lines[1] and "female" in lines[2]
    assert "65" in lines[3] and "160–165 cm" in lines[4] and "70–75 kg" in lines[5]
    count = _headline_count(pg)
    assert abs(count - int(lines[-1].split(": ")[1].replace(",", ""))) <= 1  # others = CAS·(N − 1)/N
    from dashboard.core.body_model import load_country_model
    from dashboard.core.cas import Profile, compute_cas

    expected = compute_cas(load_country_model("DE"), Profile.build("DE", "11000", "female", "65-75", 163.7, 5, 71.9, 5))
    assert count == int(expected.others)
    page.screenshot("personal-desktop")
    # privacy: the URL holds country and district only, the server log none of the answers
    parts = urlparse(pg.url)  # not the host: a random port may contain "71"
    shown = parts.path + "?" + parts.query + "#" + parts.fragment
    assert "163" not in shown and "71" not in shown and "female" not in shown
    assert parts.query == "country=DE&district=11000" and parts.fragment == ""
    log = app_url.log.read_text()
    for secret in (HEIGHT, WEIGHT, "female", "65–75"):
        assert secret not in log
    assert page.console_errors == []
    assert page.foreign_requests() == []


def test_link_with_answers_uses_the_fragment(app_url, browser, page):
    pg = page.page
    pg.goto(f"{app_url.url}/?country=DE&district=11000")
    pg.wait_for_selector("#me-country", state="attached")
    _fill_profile(pg)
    _wait_for_full_profile(pg)
    count = _headline_count(pg)
    pg.click("#me-copy-link")
    pg.wait_for_function("document.querySelector('#me-link-text').value.includes('#')")
    link = pg.input_value("#me-link-text")
    query, fragment = link.split("#", 1)
    assert query.endswith("?country=DE&district=11000")
    assert "hcm=163.7" in fragment and "sex=female" in fragment
    other = browser.new_context(bypass_csp=True).new_page()
    other.goto(link)
    _wait_for_full_profile(other)
    assert _headline_count(other) == count
    assert other.input_value("#me-height-cm") == HEIGHT
    other.context.close()


def test_bad_input_shows_a_message(app_url, page):
    pg = page.page
    pg.goto(f"{app_url.url}/?country=DE&district=11000")
    pg.wait_for_selector("#me-country", state="attached")
    pg.fill("#me-height-cm", "400")
    pg.press("#me-height-cm", "Tab")
    pg.wait_for_selector("#me-message .error")
    assert "outside the range" in pg.inner_text("#me-message")
    assert page.console_errors == []


def test_phone_layout(app_url, browser):
    from browser_support import PageRecorder

    context = browser.new_context(viewport={"width": 390, "height": 844}, device_scale_factor=2, is_mobile=True,
                                  bypass_csp=True)
    rec = PageRecorder(context.new_page())
    rec.page.goto(f"{app_url.url}/?country=GB&district=E06000023")
    rec.page.wait_for_selector("#me-country", state="attached")
    rec.page.click("#me-example")
    _headline_count(rec.page)
    width = rec.page.evaluate("document.documentElement.scrollWidth")
    assert width <= 400, f"page is {width}px wide on a 390px phone"
    rec.screenshot("personal-phone")
    assert rec.console_errors == [] and rec.foreign_requests() == []
    context.close()


def test_unknown_district_in_url_is_reported(app_url, page):
    pg = page.page
    pg.goto(f"{app_url.url}/?country=DE&district=nope&x=1")
    pg.wait_for_selector("text=Unknown district")
    assert page.console_errors == []


def test_model_switch_and_own_set_headline(app_url, page):
    """The visible body-model switch (default v2) changes the numbers; the headline never says "0 people"."""
    from dashboard.core.body_model import load_country_model
    from dashboard.core.cas import Profile, compute_cas

    pg = page.page
    pg.set_viewport_size({"width": 1440, "height": 900})
    pg.goto(f"{app_url.url}/?country=DE&district=11000")
    pg.wait_for_selector("#me-country", state="attached")
    assert pg.is_checked("#me-model input[value=v2]")
    # a rare profile: tall and light (BMI 16), so CAS is below 1 and the paper model calls it implausible
    pg.check("input[value=female]")
    choose_option(pg, "me-ages", "20", "20–25")
    pg.fill("#me-height-cm", "190")
    pg.press("#me-height-cm", "Tab")
    pg.fill("#me-weight-kg", "58")
    pg.press("#me-weight-kg", "Tab")
    pg.wait_for_function("document.querySelectorAll('#me-funnel-text li').length == 6"
                         " && document.querySelector('#me-funnel-text').innerText.includes('55–60 kg')")
    pg.wait_for_load_state("networkidle")
    profile = Profile.build("DE", "11000", "female", "20-25", 190, 5, 58, 5)
    v2 = compute_cas(load_country_model("DE"), profile)
    paper = compute_cas(load_country_model("DE", model="paper"), profile)
    headline = pg.inner_text("#me-headline")
    assert headline.startswith("You") and "0 people" not in headline
    assert f"{v2.others:.1f}" in headline
    codes = pg.eval_on_selector_all("#me-warnings [data-code]", "els => els.map(e => e.dataset.code)")
    assert "body_model_v2" in codes and "implausible_bmi" not in codes
    page.screenshot("personal-model-v2")
    pg.check("#me-model input[value=paper]")
    pg.wait_for_function("document.querySelector('#me-warnings [data-code=body_model_paper]') !== null")
    pg.wait_for_load_state("networkidle")
    headline = pg.inner_text("#me-headline")
    assert f"{paper.others:.1f}" in headline and "0 people" not in headline
    codes = pg.eval_on_selector_all("#me-warnings [data-code]", "els => els.map(e => e.dataset.code)")
    assert "implausible_bmi" in codes
    funnel = pg.locator("#me-funnel-text li").all_inner_texts()
    assert funnel[-1].endswith(f": {int(paper.cas):,}")
    page.screenshot("personal-model-paper")
    assert page.console_errors == [] and page.foreign_requests() == []
