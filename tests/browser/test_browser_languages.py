"""Every translated page in all six languages, at phone and desktop width (issue 31): the page speaks the language
asked for and nothing else (no visible text equal to an English message whose translation differs), its labels
(the navbar's presenter toggle too, issue 28) are neither clipped nor on top of each other, its charts' texts stay
inside and apart, and nothing is fetched from another host.  One page load per (page, language, width); screenshots for German and Portuguese phones.
"""
from __future__ import annotations

import pytest
from support.browser import CHART_TEXT_PROBLEMS, PageRecorder

from dashboard.core import text

pytestmark = pytest.mark.browser

SIZES = ({"width": 390, "height": 844}, {"width": 1440, "height": 900})
#: The personal page with an answer (every result drawn: funnel, cards, what-ifs, advice).
PERSONAL = "/?lang={lang}&country=DE#district=11000&sex=female&ages=65%E2%80%9375&hcm=170&wkg=70"
#: The explorer with a district chosen (map, legend, detail panel and its chart, curves, readouts, country tables).
EXPLORER = "/explore?lang={lang}&country=DE&district=11000"

#: Text that overflows its box (a label cut off), or two labels of one row on top of each other.
LAYOUT_PROBLEMS = r"""() => {
  const out = [];
  const shown = (el) => { const r = el.getBoundingClientRect(); const s = getComputedStyle(el);
    return r.width > 0 && r.height > 0 && s.visibility !== "hidden" && !el.closest("details:not([open]) > :not(summary)"); };
  const labels = document.querySelectorAll(
    "button, label, summary, h1, h2, .nav-link, .lang-link, .field-label, .card-title, .card-value, .tab-button, "
    + ".Select-placeholder, .Select-value-label, .dash-dropdown-placeholder, th");
  labels.forEach((el) => {
    if (!shown(el) || !el.textContent.trim() || el.closest(".visually-hidden")) return;
    const s = getComputedStyle(el);
    const clips = ["hidden", "clip"].includes(s.overflowX) || s.textOverflow === "ellipsis";
    if (clips && el.scrollWidth > el.clientWidth + 1) out.push(`clipped: "${el.textContent.trim().slice(0, 50)}" (${el.scrollWidth} > ${el.clientWidth} px)`);
  });
  const rows = document.querySelectorAll(".buttons, .tab-list, .row2, .row3, .lang-switch, .radio");
  const inter = (a, b) => Math.min(a.right, b.right) - Math.max(a.left, b.left) > 1 && Math.min(a.bottom, b.bottom) - Math.max(a.top, b.top) > 1;
  rows.forEach((row) => {
    const kids = Array.from(row.children).filter(shown);
    for (let i = 0; i < kids.length; i++) for (let j = i + 1; j < kids.length; j++)
      if (inter(kids[i].getBoundingClientRect(), kids[j].getBoundingClientRect()))
        out.push(`overlap: "${kids[i].textContent.trim().slice(0, 30)}" and "${kids[j].textContent.trim().slice(0, 30)}"`);
  });
  if (document.documentElement.scrollWidth > window.innerWidth + 1)
    out.push(`the page is ${document.documentElement.scrollWidth} px wide in a ${window.innerWidth} px window`);
  return out;
}"""

#: The presenter toggle's label, whole and on screen (issue 28: "Präsentatio…" ran out of its 6.5em box at 390 px in
#: German and Italian): neither wider than its button nor outside the window.
TOGGLE_CLIPPED = r"""() => {
  const t = document.querySelector(".navbar .presenter-toggle"), r = t.getBoundingClientRect();
  const out = [];
  if (t.scrollWidth > t.clientWidth) out.push(`its text is ${t.scrollWidth} px in a ${t.clientWidth} px button`);
  if (r.left < 0 || r.right > window.innerWidth || r.top < 0) out.push(`it lies at ${Math.round(r.left)}–${Math.round(r.right)} px in a ${window.innerWidth} px window`);
  return out.map((p) => `presenter toggle "${t.textContent.trim()}": ${p}`);
}"""

#: Visible text nodes (outside quoted English, marked lang="en", and the language switch) equal to one of ``words``.
UNTRANSLATED = r"""(words) => {
  const set = new Set(words), out = [];
  const walker = document.createTreeWalker(document.body, NodeFilter.SHOW_TEXT);
  let n;
  while ((n = walker.nextNode())) {
    const t = n.textContent.trim(), el = n.parentElement;
    if (!t || !el || !set.has(t) || el.closest('script, style, [lang="en"], .lang-switch')) continue;
    if (getComputedStyle(el).fontSize === "0px") continue;  // replaced by a translated ::after (DataTable's "Export")
    const r = el.getBoundingClientRect();
    if (r.width > 0 && r.height > 0) out.push(t);
  }
  document.querySelectorAll(".js-plotly-plot text").forEach((e) => { const t = e.textContent.trim(); if (set.has(t)) out.push(`chart: ${t}`); });
  return out;
}"""


def english_words(lang: str) -> list[str]:
    """The English messages (without placeholders) whose translation in ``lang`` differs: must not be seen."""
    catalog = text.translations(lang)._catalog  # noqa: SLF001 - gettext's own msgid → msgstr table
    out = []
    for key, value in catalog.items():
        msgid = key[0] if isinstance(key, tuple) else key
        msgid = msgid.split("\x04", 1)[-1]
        if msgid and "{" not in msgid and len(msgid) > 2 and value != msgid and not isinstance(key, tuple):
            out.append(msgid.strip())
    return out


def _context(browser, size: dict, timeout_ms: int = 60_000):
    """A fresh browser context at ``size`` (a phone below 500 px) and its recorded page."""
    ctx = browser.new_context(viewport=size, is_mobile=size["width"] < 500, bypass_csp=True)
    rec = PageRecorder(ctx.new_page())
    rec.page.set_default_timeout(timeout_ms)
    return ctx, rec


def _page_problems(rec, where: str, words: list[str]) -> list[str]:
    """What every translated page is checked for: clipped or overlapping labels, chart texts outside or on top of
    each other, English words whose translation differs, console errors and requests to another host."""
    pg = rec.page
    return ([f"{where}: {p}" for p in pg.evaluate(LAYOUT_PROBLEMS)]
            + [f"{where}: {p}" for p in pg.evaluate(CHART_TEXT_PROBLEMS)]
            + [f"{where}: untranslated {p!r}" for p in pg.evaluate(UNTRANSLATED, words)]
            + [f"{where}: console {e}" for e in rec.console_errors]
            + [f"{where}: fetched {u}" for u in rec.foreign_requests()])


def _load(browser, app_url, path: str, size: dict, lang: str):
    ctx, rec = _context(browser, size)
    pg = rec.page
    pg.goto(app_url.url + path.format(lang=lang))
    pg.wait_for_function("() => document.querySelectorAll('#me-funnel-text li').length >= 6")
    pg.wait_for_function("() => document.querySelector('#me-reid .card') && document.querySelector('#me-funnel .main-svg')")
    pg.wait_for_timeout(400)
    return ctx, rec


def test_personal_page_in_every_language(browser, app_url):
    problems = []
    for lang in text.LANGUAGES:
        words = english_words(lang) if lang != "en" else []
        with text.language(lang):
            question = text.gettext("How many people are like you?")
            headline_start = text.gettext("You and about {count} others share these attributes").split("{")[0][:8]
        for size in SIZES:
            ctx, rec = _load(browser, app_url, PERSONAL, size, lang)
            pg, where = rec.page, f"{lang} {size['width']}px"
            if pg.get_attribute("html", "lang") != lang:
                problems.append(f"{where}: <html lang> is {pg.get_attribute('html', 'lang')}")
            if pg.inner_text("h1").strip() != question:
                problems.append(f"{where}: heading {pg.inner_text('h1')!r}")
            if not pg.inner_text("#me-headline").startswith(headline_start):
                problems.append(f"{where}: headline {pg.inner_text('#me-headline')!r}")
            problems += [f"{where}: {p}" for p in pg.evaluate(TOGGLE_CLIPPED)]
            problems += _page_problems(rec, where, words)
            if size["width"] < 500 and lang in ("de", "pt"):
                rec.screenshot(f"personal-{lang}-phone")
            ctx.close()
    assert problems == [], "\n".join(problems[:60])


def _load_explorer(browser, app_url, size: dict, lang: str):
    ctx, rec = _context(browser, size)
    pg = rec.page
    pg.goto(app_url.url + EXPLORER.format(lang=lang))
    pg.wait_for_selector("#explore-readouts .readout")
    pg.wait_for_function("(() => { const td = document.querySelector(\"#explore-country-table td[data-dash-column='country']\");"
                         " return td !== null && td.innerText.trim() !== ''; })()")
    pg.wait_for_selector("#explore-detail .detail #explore-distribution .main-svg")
    pg.wait_for_function("(() => { const g = document.querySelector('#explore-map .js-plotly-plot');"
                         " return g && g.layout && g.layout.title && g.layout.title.text; })()")
    pg.wait_for_selector("#explore-cdf .main-svg")
    if size["width"] >= 500:  # the district table's words too (one click, no second page load)
        pg.check("#explore-show-table input")
        pg.wait_for_selector("#explore-district-table td[data-dash-column='district']")
    pg.wait_for_timeout(400)
    return ctx, rec


def test_explorer_in_every_language(browser, app_url):
    """The explorer in six languages at phone and desktop width: its words (page, map, legend, detail, curves,
    country and district tables), its numbers in the language's format, nothing clipped or overlapping."""
    problems = []
    for lang in text.LANGUAGES:
        words = english_words(lang) if lang != "en" else []
        with text.language(lang):
            heading, tables = text.gettext("Explore regions"), text.gettext("Country tables")
            decimal = text.local_number("1.5")[1]
        for size in SIZES:
            ctx, rec = _load_explorer(browser, app_url, size, lang)
            pg, where = rec.page, f"explorer {lang} {size['width']}px"
            if pg.get_attribute("html", "lang") != lang:
                problems.append(f"{where}: <html lang> is {pg.get_attribute('html', 'lang')}")
            if pg.inner_text("h1").strip() != heading or tables not in pg.inner_text(".explorer-tables h2"):
                problems.append(f"{where}: heading {pg.inner_text('h1')!r}")
            shares = [b.inner_text() for b in pg.query_selector_all("#explore-readouts .readout b")]
            if not shares or not all(decimal in x or "." not in x and "," not in x for x in shares):
                problems.append(f"{where}: readout shares {shares} not written with {decimal!r}")
            problems += _page_problems(rec, where, words)
            if lang in ("de", "pt"):
                rec.screenshot(f"explorer-{lang}-{size['width']}")
            ctx.close()
    assert problems == [], "\n".join(problems[:60])


#: The bucket advisor for Malta with every district's own answer (two districts: the per-district table is cheap).
BUCKETS = "/explore/buckets?lang={lang}&country=MT&k=10&coverage=0.95&per_district=1"


def test_bucket_advisor_in_every_language(browser, app_url):
    """The bucket advisor in six languages at phone and desktop width: the recommendation the core writes in that
    language, its cards, charts and tables, nothing clipped, overlapping or left in English."""
    from dashboard.core import buckets as bk

    advice = bk.advise("MT", 10, 0.95, per_district=True)
    problems = []
    for lang in text.LANGUAGES:
        words = english_words(lang) if lang != "en" else []
        with text.language(lang):
            heading, sentence = text.gettext("For app developers: safe bucket sizes"), bk.recommendation_text(advice)
        for size in SIZES:
            ctx, rec = _context(browser, size, 90_000)
            pg, where = rec.page, f"buckets {lang} {size['width']}px"
            pg.goto(app_url.url + BUCKETS.format(lang=lang))
            pg.wait_for_function("() => (document.querySelector('#buckets-sentence') || {}).innerText")
            pg.wait_for_selector("#buckets-front .main-svg")
            pg.wait_for_selector("#buckets-per-district-table td[data-dash-column='district']")
            pg.wait_for_timeout(400)
            if pg.get_attribute("html", "lang") != lang or pg.inner_text("h1").strip() != heading:
                problems.append(f"{where}: <html lang> {pg.get_attribute('html', 'lang')}, heading {pg.inner_text('h1')!r}")
            if pg.inner_text("#buckets-sentence").strip() != sentence:
                problems.append(f"{where}: sentence {pg.inner_text('#buckets-sentence')!r}, not {sentence!r}")
            problems += _page_problems(rec, where, words)
            if lang in ("de", "pt"):
                rec.screenshot(f"buckets-{lang}-{size['width']}")
            ctx.close()
    assert problems == [], "\n".join(problems[:60])


def test_the_switch_keeps_the_address_and_a_link_to_an_english_page_reloads(browser, app_url):
    """The switch changes only ?lang= (the #fragment stays); a link from a translated page to one not
    translated yet loads it afresh, English shell and all, and its links still carry the language asked for."""
    ctx = browser.new_context(viewport={"width": 1440, "height": 900}, bypass_csp=True)
    rec = PageRecorder(ctx.new_page())
    pg = rec.page
    pg.set_default_timeout(60_000)
    pg.goto(app_url.url + "/?country=DE#district=11000&sex=female")
    pg.wait_for_function("() => document.querySelectorAll('#me-funnel-text li').length >= 3")
    with pg.expect_navigation():
        pg.click(".lang-switch a[data-lang='de']")
    # the switch keeps the address, its #fragment included (a fragment holding the page's defaults beside the
    # answers loses the answers on any reload: reported, not this issue's)
    assert "lang=de" in pg.url and "country=DE" in pg.url and "district=11000" in pg.url
    pg.wait_for_function("() => document.documentElement.lang === 'de'")
    assert pg.inner_text("h1").startswith("Wie viele Menschen")
    pg.click(".navbar a.nav-link[href^='/scaling']")
    pg.wait_for_url("**/scaling?lang=de")
    pg.wait_for_function("() => document.documentElement.lang === 'en' && !!document.querySelector('.navbar')")
    assert "Explore regions" in pg.inner_text(".navbar")
    assert pg.get_attribute(".navbar a.brand", "href") == "/?lang=de"
    assert rec.console_errors == [] and rec.foreign_requests() == []
    ctx.close()


def test_about_page_in_every_language(browser, app_url):
    """The About page in six languages at phone and desktop width: its words, the tables' headings and our own
    words in them, numbers grouped the language's way, nothing clipped or overlapping (citations as published)."""
    problems = []
    for lang in text.LANGUAGES:
        words = english_words(lang) if lang != "en" else []
        with text.language(lang):
            heading, population = text.gettext("About AnonSet"), text.gettext("population")
        for size in SIZES:
            ctx, rec = _context(browser, size)
            pg, where = rec.page, f"about {lang} {size['width']}px"
            pg.goto(app_url.url + f"/about?lang={lang}")
            pg.wait_for_selector("#about-sources td[data-dash-column='sha256']")
            if pg.get_attribute("html", "lang") != lang:
                problems.append(f"{where}: <html lang> is {pg.get_attribute('html', 'lang')}")
            if pg.inner_text("h1").strip() != heading:
                problems.append(f"{where}: heading {pg.inner_text('h1')!r}")
            headings = [t.strip() for t in pg.locator("#about-datasets th").all_inner_texts()]
            if population not in headings:
                problems.append(f"{where}: the data-set table's headings {headings}")
            problems += _page_problems(rec, where, words)
            if size["width"] < 500 and lang in ("de", "pt"):
                rec.screenshot(f"about-{lang}-phone")
            ctx.close()
    assert problems == [], "\n".join(problems[:60])


def test_world_page_in_every_language(browser, app_url):
    """The world map's page in six languages at phone and desktop width: its words, the switch, the table's
    headings and names, the map's colour bar title, nothing clipped or overlapping, nothing from another host."""
    problems = []
    for lang in text.LANGUAGES:
        words = english_words(lang) if lang != "en" else []
        with text.language(lang):
            heading, country = text.gettext("The world on one map"), text.gettext("Country")
            germany = "Germany" if lang == "en" else {"de": "Deutschland", "fr": "Allemagne", "it": "Germania",
                                                      "es": "Alemania", "pt": "Alemanha"}[lang]
        for size in SIZES:
            ctx, rec = _context(browser, size)
            pg, where = rec.page, f"world {lang} {size['width']}px"
            pg.goto(app_url.url + f"/explore/world?lang={lang}&stat=share_below")
            pg.wait_for_selector("#world-table td[data-dash-column='country']")
            pg.wait_for_selector("#world-map .js-plotly-plot .colorbar")
            pg.fill("#world-search", germany)
            pg.wait_for_function("(name) => Array.from(document.querySelectorAll(\"#world-table "
                                 "td[data-dash-column='country']\")).some((td) => td.innerText.trim() === name)",
                                 arg=germany)
            pg.wait_for_timeout(300)
            if pg.inner_text("h1").strip() != heading:
                problems.append(f"{where}: heading {pg.inner_text('h1')!r}")
            headings = [t.strip() for t in pg.locator("#world-table th").all_inner_texts()]
            if country not in headings:
                problems.append(f"{where}: the table's headings {headings}")
            problems += _page_problems(rec, where, words)
            if size["width"] < 500 and lang in ("de", "pt"):
                rec.screenshot(f"world-{lang}-phone")
            ctx.close()
    assert problems == [], "\n".join(problems[:60])
