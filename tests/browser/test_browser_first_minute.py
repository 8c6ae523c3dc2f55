"""The individual's first minute (issue 28), one page load per class of defect: the empty page asks instead of
answering, places below district level and names typed without accents are found, the headline and the
funnel say one number, and on a phone the answer stays in view and a refused answer is explained beside
its field.  Desktop 1440 × 900, phone 390 × 844."""
from __future__ import annotations

import re

import pytest
from support.browser import choose_option, open_dropdown, visitor_options

pytestmark = pytest.mark.browser

DESKTOP = {"width": 1440, "height": 900}
PHONE = {"width": 390, "height": 844}


def _open(visitors, url, viewport):
    rec = visitors.tab(**visitor_options(viewport))
    rec.page.set_default_timeout(60_000)
    rec.page.goto(url)
    rec.page.wait_for_selector("#me-country", state="attached")
    return rec.page, rec


def _options(pg, dropdown_id, typed, first=None):
    """The option labels the district dropdown shows for what is typed (first the ranked ones).

    The places of a data set are fetched when a person first types, so the ranked list can arrive seconds after
    the letters on a busy machine: with ``first``, wait (up to 20 s) for the list to lead with it; a list that never
    does is returned as it stands, for the assertion to show.
    """
    from playwright.sync_api import TimeoutError as PlaywrightTimeout

    pg.locator(f"#{dropdown_id}").evaluate("el => el.scrollIntoView({block: 'start'})")
    open_dropdown(pg, dropdown_id)
    pg.keyboard.type(typed, delay=15)
    pg.wait_for_function("(t) => { const o = document.querySelector('.dash-dropdown-content .dash-dropdown-option');"
                         " const s = document.querySelector('input.dash-dropdown-search');"
                         " return o && s && s.value === t; }", arg=typed)
    if first is not None:
        try:
            pg.wait_for_function("(f) => { const o = document.querySelector('.dash-dropdown-content .dash-dropdown-option');"
                                 " return o && o.innerText.trim().startsWith(f); }", arg=first, timeout=20_000)
        except PlaywrightTimeout:
            pass
    pg.wait_for_timeout(300)  # the ranked list settles
    labels = pg.locator(".dash-dropdown-content .dash-dropdown-option").all_inner_texts()
    pg.keyboard.press("Escape")
    return [x.strip() for x in labels]


def _assert_leads(pg, typed, first):
    options = _options(pg, "me-district", typed, first)
    assert options and options[0].startswith(first), (typed, options[:3])


def test_desktop_first_question_places_and_one_number(visitors, app_url):
    ctx, rec = _open(visitors, f"{app_url.url}/?country=DE", DESKTOP)
    pg = rec.page
    try:
        # the empty page asks; no count, no funnel, no risk card
        headline = pg.inner_text("#me-headline")
        assert headline.startswith("Where do you live?") and not re.search(r"\d", headline)
        assert pg.locator("#me-results").evaluate("el => getComputedStyle(el).display") == "none"
        rec.screenshot("first-minute-empty-desktop", full_page=False)
        # a city part leads to its district, in Germany's district word; names typed without umlauts
        options = _options(pg, "me-district", "Neukölln", "Neukölln is part")
        assert options[0] == "Neukölln is part of Berlin, published as one Kreis", options[:3]
        _assert_leads(pg, "Munchen", "München, kreisfreie Stadt")
        _assert_leads(pg, "Koln", "Köln, kreisfreie Stadt")
        choose_option(pg, "me-district", "Neukölln", "11000")
        pg.wait_for_function("(document.querySelector('#me-headline')?.innerText || '').includes('You and about')")
        # one number for the crowd: the headline's others and the funnel's last line round alike
        pg.check("input[value=female]")
        choose_option(pg, "me-ages", "34", "30–35")  # one's age finds the group
        pg.fill("#me-height-cm", "201")
        pg.press("#me-height-cm", "Tab")
        pg.wait_for_function("document.querySelectorAll('#me-funnel-text li').length >= 5 && "
                             "document.querySelector('#me-funnel-text').innerText.includes('200–205')")
        last = pg.locator("#me-funnel-text li").all_inner_texts()[-1].split(": ")[1]
        said = re.search(r"about ([\d,]+) other", pg.inner_text("#me-headline"))
        if said:
            assert said.group(1) == last
        assert "Body model" not in pg.inner_text("#me-answer")  # a detail below the answer, not its first line
        assert pg.inner_text("#me-reid").count("Census:") == 0 and pg.inner_text("#me-reid").count("All from the census") == 1
        assert rec.console_errors == []
        assert rec.foreign_requests() == []
        rec.screenshot("first-minute-answer-desktop", full_page=False)
    finally:
        ctx.close()


def test_italy_rome_forli_cantu(visitors, app_url):
    ctx, rec = _open(visitors, f"{app_url.url}/?country=IT-COM", DESKTOP)
    pg = rec.page
    try:
        _assert_leads(pg, "Roma", "Roma (")
        _assert_leads(pg, "Rome", "Roma (")
        _assert_leads(pg, "Milano", "Milano (")
        _assert_leads(pg, "Forli", "Forlì")
        _assert_leads(pg, "Cantu", "Cantù")
        assert rec.console_errors == []
    finally:
        ctx.close()


def test_phone_answer_stays_in_view_and_errors_sit_by_their_field(visitors, app_url):
    ctx, rec = _open(visitors, f"{app_url.url}/?country=DE#district=11000&sex=female&ages=65%E2%80%9375", PHONE)
    pg = rec.page
    try:
        pg.wait_for_function("(document.querySelector('#me-headline')?.innerText || '').includes('You and about')")
        pg.locator("#me-weight-kg").scroll_into_view_if_needed()
        pg.fill("#me-weight-kg", "72")
        pg.press("#me-weight-kg", "Tab")
        pg.wait_for_function("document.querySelector('#me-funnel-text').innerText.includes('70–75 kg')")
        box, field = pg.locator("#me-headline").bounding_box(), pg.locator("#me-weight-kg").bounding_box()
        assert 0 <= box["y"] and box["y"] + box["height"] <= PHONE["height"], box  # the summary is in view …
        assert field["y"] > box["y"] + box["height"] and field["y"] < PHONE["height"], field  # … above the field
        assert pg.locator("#me-answer").bounding_box()["height"] < PHONE["height"] * 0.3
        # a refused answer: the message under its own field, the result cleared
        pg.fill("#me-height-cm", "abc")
        pg.press("#me-height-cm", "Tab")
        pg.wait_for_selector(".field[data-error]")
        note = pg.locator(".field[data-error]").get_attribute("data-error")
        assert "is not a number" in note
        assert pg.locator(".field[data-error] #me-height-cm").count() == 1
        pg.fill("#me-height-cm", "250")  # the top of "50–250" is inside it
        pg.press("#me-height-cm", "Tab")
        pg.wait_for_function("document.querySelector('#me-funnel-text').innerText.includes('245–250 cm')")
        assert pg.locator(".field[data-error]").count() == 0
        rec.screenshot("first-minute-phone-sticky", full_page=False)
        assert rec.console_errors == []
    finally:
        ctx.close()
