"""Checks every page (but the personal page, which computes in the browser and has its own) as a newcomer sees it.

For each page in ``dash.page_registry`` — pages added later are checked too — at 1440 × 900 and
390 × 844: no visible number in scientific notation or with an SI prefix below one, every axis
tick label inside its figure, chart texts apart and clear of the hovered toolbar, every tab reachable and operable by keyboard, one tab stop per
chart, chart fonts that follow presenter mode, links that round-trip the state they claim,
unknown countries reported, and no stale result after invalid input.  One server and one browser
for the module (session fixtures); each page is loaded once per viewport, in one context per viewport, for the
static checks and then the keyboard's; every other check opens a tab of one desktop context (issue 25: a context per
load parsed the app's scripts again each time), and checks that read the same address share its load (a page's link
and its chart fonts).  Presenter mode on a projector is checked on test_a11y.py's presenter-mode load of each page.
"""
from __future__ import annotations

import re

import pytest
from support.browser import WIDE_TABLES, wait_until_drawn

pytestmark = pytest.mark.browser

DESKTOP, PHONE = (1440, 900), (390, 844)
#: The personal page (/) computes in the browser and is checked by its own tests.
SKIP = {"/"}


def _pages() -> list[str]:
    import dash

    import dashboard.wsgi  # noqa: F401 - registers the pages

    return sorted(p["path"] for p in dash.page_registry.values() if p["path"] not in SKIP)


PAGES = _pages()
#: Views that once showed unreadable numbers (a UK minimum CAS of 3.3e-05, a fitted "K = 2.039e+04 sets"),
#: checked beside each page's default view.
HARD_VIEWS = {
    "/explore": ["/explore?country=GB&stat=min&district=E06000053"],
    "/scaling": ["/scaling?view=forecast", "/scaling?view=census&country=GB"],
}
VIEWS = PAGES + [v for p in PAGES for v in HARD_VIEWS.get(p, [])]

#: Per page, a link carrying state and the query keys it must keep after a load (pages without an entry are
#: checked as a fixed point: the address after settling must load to itself).
STATE_LINKS = {
    "/explore": ("/explore?country=DE,FR&stat=min&k=20&table_ages=15-85&table_grain=census",
                 {"country": "DE,FR", "stat": "min", "k": "20", "table_ages": "15-85", "table_grain": "census"}),
    "/scaling": ("/scaling?view=census&country=FR", {"view": "census", "country": "FR"}),
    "/explore/buckets": ("/explore/buckets?country=FR&k=20&coverage=0.9", {"country": "FR", "k": "20", "coverage": "0.9"}),
    "/attack": ("/attack?known=8&days=3", {"known": "8", "days": "3"}),
}
#: Per page, a link with an unknown country (pages that take a country).
UNKNOWN_COUNTRY = {
    "/explore": "/explore?country=ZZ",
    "/scaling": "/scaling?view=census&country=ZZ",
    "/explore/buckets": "/explore/buckets?country=ZZ",
}

SCAN_TEXT = r"""() => {
  const bad = [];
  const sci = /\b\d(?:\.\d+)?e[+-]?\d+\b/i;            // 1e-5, 2.039e+04
  const milli = /^\s*[\d.,]+\s*[mµμunp]\s*$/;            // "10m" people on an axis
  const giga = /\b\d+(?:\.\d+)?\s*G\b/;                 // "1G"
  const walker = document.createTreeWalker(document.body, NodeFilter.SHOW_TEXT);
  let n;
  while ((n = walker.nextNode())) {
    const t = n.textContent, el = n.parentElement;
    if (!t.trim() || !el || el.closest("script, style, pre, code, textarea")) continue;
    const r = el.getBoundingClientRect();
    if (!r.width && !r.height) continue;
    if (getComputedStyle(el).visibility === "hidden") continue;
    if (sci.test(t) || milli.test(t) || giga.test(t)) bad.push(t.trim().slice(0, 80));
  }
  return bad;
}"""

TICKS_OUTSIDE = r"""() => {
  const out = [];
  document.querySelectorAll(".js-plotly-plot").forEach((gd) => {
    const svg = gd.querySelector(".main-svg");
    if (!svg) return;
    const box = svg.getBoundingClientRect();
    if (!box.width || !box.height) return;
    gd.querySelectorAll(".xtick text, .ytick text, .cbaxis text, .colorbar text").forEach((t) => {
      if (!t.textContent.trim()) return;
      const r = t.getBoundingClientRect();
      if (!r.width) return;
      if (r.left < box.left - 1 || r.right > box.right + 1 || r.top < box.top - 1 || r.bottom > box.bottom + 1) {
        out.push(`${gd.parentElement.id || "graph"}: "${t.textContent}" ${Math.round(r.left)}–${Math.round(r.right)} `
                 + `× ${Math.round(r.top)}–${Math.round(r.bottom)} outside ${Math.round(box.left)}–${Math.round(box.right)} `
                 + `× ${Math.round(box.top)}–${Math.round(box.bottom)}`);
      }
    });
  });
  return out;
}"""

TAB_STOPS_PER_CHART = r"""() => Array.from(document.querySelectorAll(".js-plotly-plot")).map((gd) => {
  const stops = Array.from(gd.querySelectorAll("a[href], button, input, canvas, [tabindex]"))
    .filter((e) => e.tabIndex >= 0 && !e.disabled && e.getAttribute("tabindex") !== "-1"
            && (e.tagName !== "CANVAS" || e.hasAttribute("tabindex")));
  return [gd.parentElement.id || "graph", stops.length];
})"""


#: A page's first visit in a test session computes what production warms before it forks (the test server is
#: not warmed): every data set's models and the default views, seconds here, more on a loaded machine.
FIRST_VISIT_MS = 120_000


def _settle(pg, timeout: int = 30_000) -> None:
    pg.wait_for_load_state("networkidle", timeout=timeout)
    wait_until_drawn(pg, timeout)
    pg.wait_for_timeout(300)


def _context(visitors, size=DESKTOP):
    """The session's shared context at ``size`` (``visitors``: its HTTP and code caches are warm from other files)."""
    return visitors.context(viewport={"width": size[0], "height": size[1]}, bypass_csp=True)


def _open(ctx, app_url, path: str):
    """A fresh tab of ``ctx`` on ``path``, settled: (page, its page errors)."""
    pg = ctx.new_page()
    errors: list[str] = []
    pg.on("pageerror", lambda e: errors.append(str(e)))
    pg.goto(f"{app_url.url}{path}")
    _settle(pg, FIRST_VISIT_MS)
    return pg, errors


@pytest.fixture(scope="module", params=[DESKTOP, PHONE], ids=["desktop", "phone"])
def loaded(request, visitors, app_url):
    """Every page loaded once per viewport, each in a tab of one context per viewport (the tabs share its HTTP and
    code caches as one visitor's do): {path: (page, errors)}; closed at the end of the module.  Checks that change
    a loaded page (its tabs) come after the read-only checks in this file."""
    ctx = _context(visitors, request.param)
    pages = {path: _open(ctx, app_url, path) for path in VIEWS}
    yield request.param, pages
    for pg, _errors in pages.values():
        pg.close()


@pytest.fixture(scope="module")
def visitor(visitors):
    """The desktop context of the checks that load a page of their own, each in a fresh tab closed after it: the tabs
    share the context's caches (a context per load parsed the app's scripts again each time; issue 25) and its
    localStorage (presenter mode: the one check that switches it switches it back)."""
    return _context(visitors)


@pytest.mark.parametrize("path", VIEWS)
def test_numbers_are_readable(loaded, path):
    _, pages = loaded
    pg, errors = pages[path]
    assert pg.evaluate(SCAN_TEXT) == []
    assert errors == []


@pytest.mark.parametrize("path", VIEWS)
def test_every_tick_label_is_inside_its_figure(loaded, path):
    """Inside the figure, and on a numeric axis level and apart (issue 28: the n labels of the attack forecast and
    the scaling charts stood on end at 390 px; a phone now labels every other power of ten)."""
    from support.browser import TICK_LABEL_PROBLEMS

    _, pages = loaded
    pg, _ = pages[path]
    assert pg.evaluate(TICKS_OUTSIDE) == []
    assert pg.evaluate(TICK_LABEL_PROBLEMS) == []


@pytest.mark.parametrize("path", VIEWS)
def test_chart_texts_stay_inside_and_apart(loaded, path):
    """Titles, legends and annotations inside their chart and apart; on a desktop, each chart hovered, its toolbar
    (shown on hover only) covers none of them (issue 28: the toolbar covered titles and legends)."""
    from support.browser import CHART_TEXT_PROBLEMS, toolbar_problems

    size, pages = loaded
    pg, _ = pages[path]
    assert pg.evaluate(CHART_TEXT_PROBLEMS) == []
    if size == DESKTOP:
        assert toolbar_problems(pg) == []


#: The pages for everyone (the personal page's check is in test_browser_personal.py); the data-set, scaling, attack,
#: AnonLand and real-people pages are expert pages, where symbols may stand beside the words.
LAY_PAGES = ["/explore", "/explore/buckets", "/about"]


@pytest.mark.parametrize("path", LAY_PAGES)
def test_lay_pages_say_it_in_words(loaded, path):
    """No ξ, κ, Ξ, "nats" or "SPEC §" in the visible text of a lay page outside a details layer (issue 28)."""
    from support.browser import LAY_SYMBOLS

    _, pages = loaded
    pg, _ = pages[path]
    assert pg.evaluate(LAY_SYMBOLS) == []


@pytest.mark.parametrize("path", PAGES)
def test_one_tab_stop_per_chart(loaded, path):
    _, pages = loaded
    pg, _ = pages[path]
    for graph, stops in pg.evaluate(TAB_STOPS_PER_CHART):
        assert stops <= 1, f"{graph}: {stops} tab stops"


def test_wide_tables_fit_a_desktop(loaded):
    """At 1440 × 900 the explorer's country table fits the page (issue 28: it scrolled sideways)."""
    from support.browser import TABLES_SCROLLING_SIDEWAYS

    size, pages = loaded
    if size != DESKTOP:
        pytest.skip("a phone scrolls a wide table sideways")
    for path, sel in WIDE_TABLES.items():
        pg, _ = pages[path]
        pg.wait_for_selector(f"{sel} td")
        assert pg.evaluate(TABLES_SCROLLING_SIDEWAYS, sel) == [], path


NAV_LINK_ROWS = r"""() => ({height: document.querySelector('.navbar').getBoundingClientRect().height,
  rows: new Set(Array.from(document.querySelectorAll('.navbar a.nav-link')).map((a) => Math.round(a.getBoundingClientRect().top))).size})"""


def test_phone_navigation_is_one_row(loaded):
    """The links are one row (they scroll sideways) on a line under the brand and the toggle, not 190 px of wrapped
    links."""
    size, pages = loaded
    if size != PHONE:
        pytest.skip("phone only")
    for path, (pg, _) in pages.items():
        got = pg.evaluate(NAV_LINK_ROWS)
        assert got["rows"] == 1 and got["height"] < 80, (path, got)


CHART_FONT_SIZES = ("() => Array.from(document.querySelectorAll('.js-plotly-plot')).filter(g => g._fullLayout)"
                    ".map(g => g._fullLayout.font.size)")


def _query(url: str) -> dict:
    from urllib.parse import parse_qsl, urlparse

    return dict(parse_qsl(urlparse(url).query))


def _links_round_trip(pg, path: str) -> None:
    """The page opened from its state link (STATE_LINKS, else its plain address) keeps the state it claims, and the
    address it settled on loads to itself (a plain reload keeps the state)."""
    want = STATE_LINKS.get(path, (path, {}))[1]
    first = pg.url
    got = _query(first)
    for key, value in want.items():
        assert got.get(key) == value, (key, first)
    pg.reload()
    _settle(pg)
    assert _query(pg.url) == got
    assert not pg.locator(".warning[role=status]").count() or "Unknown" not in pg.inner_text("main")


def _chart_fonts_follow_presenter_mode(pg) -> bool:
    """The toggle enlarges every chart's font and switches it back; False when the page draws no chart when it
    opens (nothing to check: /about has none, /attack none before a run unless the server has one at hand)."""
    before = pg.evaluate(CHART_FONT_SIZES)
    if not before:
        return False
    pg.click("#shell-presenter-toggle" if pg.locator("#shell-presenter-toggle").count() else ".presenter-toggle")
    pg.wait_for_function(f"(b) => ({CHART_FONT_SIZES})().every((s, i) => i >= b.length || s > b[i] * 1.2)", arg=before)
    pg.click(".presenter-toggle")
    pg.wait_for_function(f"(b) => ({CHART_FONT_SIZES})().every((s, i) => i >= b.length || s === b[i])", arg=before)
    return True


@pytest.mark.parametrize("path", PAGES)
def test_links_round_trip_and_chart_fonts_follow_presenter_mode(visitor, app_url, path):
    """Two checks on one load where a page's link is its plain address (issue 25: each loaded it for itself): the
    link round-trips its state, then, on the reloaded page, the chart fonts follow presenter mode.  A page whose
    link carries state gets the fonts check on its plain address where that is open anyway: on the load of its
    bad-input check (FONTS_ON_BAD_INPUT_LOAD; issue 25: a load of its own here before), else in a tab of its own."""
    link = STATE_LINKS.get(path, (path, {}))[0]
    pg, errors = _open(visitor, app_url, link)
    try:
        _links_round_trip(pg, path)
        if link != path:
            assert errors == [], link
            if path in FONTS_ON_BAD_INPUT_LOAD:
                return
            pg.close()
            pg, errors = _open(visitor, app_url, path)
        _chart_fonts_follow_presenter_mode(pg)
        assert errors == [], path
    finally:
        pg.close()


@pytest.mark.parametrize("path", sorted(UNKNOWN_COUNTRY))
def test_unknown_country_in_a_link_is_reported(visitor, app_url, path):
    pg, _ = _open(visitor, app_url, UNKNOWN_COUNTRY[path])
    try:
        notices = pg.locator(".warning, [role=status]")
        text = " ".join(notices.all_inner_texts())
        assert re.search(r"[Uu]nknown country.*ZZ", text), text
    finally:
        pg.close()


def test_no_stale_result_after_invalid_input_explorer(visitor, app_url):
    pg, _ = _open(visitor, app_url, "/explore")
    try:
        pg.fill("#explore-ages", "abc")
        pg.press("#explore-ages", "Enter")
        pg.wait_for_selector("#explore-message .error")
        assert "stale" in pg.get_attribute("#explore-results", "class")
        assert float(pg.evaluate("getComputedStyle(document.querySelector('#explore-results > section')).opacity")) < 0.5
        pg.fill("#explore-table-ages", "300-400")
        pg.press("#explore-table-ages", "Enter")
        pg.wait_for_selector("#explore-table-message .error")
        pg.wait_for_function("!document.querySelector(\"#explore-country-table td[data-dash-column='country']\")")
        pg.fill("#explore-ages", "18-75")
        pg.press("#explore-ages", "Enter")
        pg.wait_for_function("!document.querySelector('#explore-results').classList.contains('stale')")
    finally:
        pg.close()


def test_no_stale_result_after_invalid_input_scaling(visitor, app_url):
    pg, _ = _open(visitor, app_url, "/scaling")
    try:
        pg.fill("#scaling-h-input", "0")
        pg.press("#scaling-h-input", "Enter")
        pg.wait_for_selector("#scaling-law-message .error")
        opacity = "getComputedStyle(document.querySelector('#scaling-readouts')).opacity"
        assert float(pg.evaluate(opacity)) < 0.5
        pg.fill("#scaling-h-input", "20")
        pg.press("#scaling-h-input", "Enter")
        pg.wait_for_function(f"{opacity} === '1'")
    finally:
        pg.close()


# --------------------------------------------------------------------------- bad input, every field of every page

#: Per page (or view), each editable field with a value it must refuse, and the button that runs the page
#: (None when the page recomputes as you type).  Every visible text or number field of every registered page
#: must appear here or in FREE_TEXT (test_every_field_has_a_bad_input_case), so a new page or field is covered.
RUN = {"/attack": "attack-run", "/dataset": "dataset-analyse", "/anonland": "anonland-start",
       "/scaling?view=forecast": "scaling-f-use-paste"}
BAD_INPUT = {
    "/explore": [("explore-ages", "abc"), ("explore-bmi", "40-20"), ("explore-user-percent", "150"),
                 ("explore-k", "-3"), ("explore-table-ages", "300-400")],
    "/scaling": [("scaling-h-input", "0"), ("scaling-gamma-input", "99"), ("scaling-cursor-input", "-5")],
    "/scaling?view=census": [("scaling-c-ages", "abc"), ("scaling-c-users", "0")],
    "/scaling?view=forecast": [("scaling-f-paste", "abc")],
    "/explore/buckets": [("buckets-k", "abc"), ("buckets-coverage", "150")],
    "/attack": [("attack-known", "0"), ("attack-sizes", "abc"), ("attack-repeats", "0"), ("attack-seed", "-1"),
                ("attack-phi", "-1")],
    "/dataset": [("dataset-population", "abc"), ("dataset-fraction", "5"), ("dataset-trials", "0"),
                 ('{"column":"age","type":"dataset-bin"}', "abc"), ("dataset-plan-k", "0"),
                 ("dataset-plan-target", "150")],
    "/anonland": [("anonland-scale", "0"), ("anonland-size-city", "-5"), ("anonland-epsilon", "-1"),
                  ("anonland-height-width", "0"), ("anonland-weight-width", "0"), ("anonland-citizens", "0"),
                  ("anonland-seed", "-1")],
}
#: The pages whose link carries state (STATE_LINKS) and whose plain address has a bad-input check: their chart fonts
#: are checked on that check's load (test_links_round_trip_and_chart_fonts_follow_presenter_mode).
FONTS_ON_BAD_INPUT_LOAD = set(STATE_LINKS) & set(BAD_INPUT)
#: Views whose results as loaded cannot come back in place: AnonLand opens on the shipped full-scale result, and
#: its Start button (the only way to clear a refused value's message) runs a smaller AnonLand instead.
RELOADED_BETWEEN_CASES = {"/anonland"}
#: Fields where any text is fine (a name), read-only fields, and fields checked through a sibling of the
#: same kind (the data-set page's bin widths share one parser: one is typed into above).
FREE_TEXT = {"explore-user-name", "explore-link-text", "world-search"}  # any text is a search (none found: "0 of …")
SAME_KIND = ("dataset-bin", "anonland-size-")

EDITABLE_FIELDS = r"""() => Array.from(document.querySelectorAll('#main input, #main textarea')).filter((e) => {
  const r = e.getBoundingClientRect(), t = (e.type || '').toLowerCase();
  return r.width > 0 && !e.readOnly && !e.disabled && !['hidden', 'checkbox', 'radio', 'file', 'button', 'submit'].includes(t)
    && !e.closest('.dash-dropdown, .dash-dropdown-wrapper, .dash-dropdown-content, .dash-table-container');
}).map((e) => e.id)"""

#: Result elements (charts, number cards, table cells, result sentences, export buttons) shown at full strength
#: inside a scope, and export buttons that still take a click.
FRESH_RESULTS = r"""(scope) => {
  const root = document.querySelector(scope) || document.getElementById('main');
  const strength = (el) => { let o = 1; for (let e = el; e && e.nodeType === 1; e = e.parentElement) o *= parseFloat(getComputedStyle(e).opacity); return o; };
  const name = (e) => ((e.closest('[id]') || {}).id || e.tagName) + ': ' + e.textContent.trim().slice(0, 30);
  const shown = Array.from(root.querySelectorAll('.js-plotly-plot, .card-value, td, .verdict, .result-exports button'))
    .filter((e) => e.getBoundingClientRect().width > 0 && e.textContent.trim() !== '' || e.matches('.js-plotly-plot'));
  return shown.filter((e) => e.getBoundingClientRect().width > 0 && strength(e) >= 0.6).map(name)
    .concat(shown.filter((e) => e.matches('button') && !e.disabled).map((e) => 'enabled ' + name(e)));
}"""

#: Where a field's stale results live when not the whole page (the explorer's tables and views are independent).
RESULT_SCOPE = {"explore-table-ages": ".explorer-tables", "explore-ages": "#explore-results",
                "explore-bmi": "#explore-results", "explore-user-percent": "#explore-results",
                "explore-k": "#explore-results"}


def _kind(fid: str) -> str:
    return next((k for k in SAME_KIND if k in fid), fid)


@pytest.mark.parametrize("path", PAGES)
def test_every_field_has_a_bad_input_case(loaded, path):
    size, pages = loaded
    if size != DESKTOP:
        pytest.skip("the fields are the same on a phone")
    covered = {_kind(f) for cases in BAD_INPUT.values() for f, _ in cases}
    views = [path] + HARD_VIEWS.get(path, [])
    for view in views:
        pg, _ = pages[view]
        missing = [f for f in pg.evaluate(EDITABLE_FIELDS) if f not in FREE_TEXT and _kind(f) not in covered]
        assert missing == [], f"{view}: give these fields a bad-input case in BAD_INPUT: {missing}"


@pytest.mark.parametrize("view", sorted(BAD_INPUT))
def test_bad_input_marks_the_field_and_no_stale_result_looks_current(visitor, app_url, view):
    """Each field of the view in turn, on one load of the page (issue 25: a load per field before; a page whose link
    carries state has its chart fonts checked on this load first, test_links_round_trip_…): after each case
    the field's valid value is typed back (and the page run again where it has a button), and the page must look as
    it did when it had loaded — no field marked, the same results at full strength — before the next case, so each
    case starts from current results (a view of RELOADED_BETWEEN_CASES is loaded again instead, as before).  Each
    refused upload starts from a fresh load of the page (the shipped data set's analysis), the first one right after
    the field cases."""
    pg = visitor.new_page()
    errors: list[str] = []
    pg.on("pageerror", lambda e: errors.append(str(e)))
    try:
        if view in RELOADED_BETWEEN_CASES:  # each case on a fresh load, as before
            for field_id, bad in BAD_INPUT[view]:
                pg.goto(f"{app_url.url}{view}")
                _settle(pg)
                _bad_input_case(pg, view, field_id, bad, None)
            assert errors == []
            return
        pg.goto(f"{app_url.url}{view}")
        _settle(pg)
        if view in FONTS_ON_BAD_INPUT_LOAD:  # first, then the introduction open again as loaded (presenter mode shut it)
            shown = pg.evaluate(OPEN_DETAILS)
            _chart_fonts_follow_presenter_mode(pg)
            pg.evaluate("(shown) => { const all = document.querySelectorAll('details');"
                        " shown.forEach((i) => { all[i].open = true; }); }", shown)
            assert pg.evaluate(OPEN_DETAILS) == shown, view
        current = _looks_as_loaded(pg)
        cases = BAD_INPUT[view]
        for i, (field_id, bad) in enumerate(cases):
            follows = i + 1 < len(cases) or view in BAD_UPLOADS  # another case on this load
            _bad_input_case(pg, view, field_id, bad, current if follows else None)
        for i, (name, content, greyed) in enumerate(BAD_UPLOADS.get(view, [])):
            if i:
                pg.goto(f"{app_url.url}{view}")
                _settle(pg)
                assert _looks_as_loaded(pg) == current, view
            _bad_upload_case(pg, name, content, greyed)
        assert errors == []
    finally:
        pg.close()


OPEN_DETAILS = "() => Array.from(document.querySelectorAll('details')).flatMap((d, i) => d.open ? [i] : [])"
#: No field marked invalid, and the view's results shown at full strength (as FRESH_RESULTS names them).
AS_LOADED = r"""() => !document.querySelector('#main [aria-invalid=true]')"""


def _looks_as_loaded(pg) -> list[str]:
    """The page as loaded: no field marked, some results at full strength (sorted FRESH_RESULTS of #main)."""
    assert pg.evaluate(AS_LOADED), "a field is marked invalid on a page as loaded"
    fresh = sorted(pg.evaluate(FRESH_RESULTS, "#main"))
    assert fresh, "the page shows no current result as loaded"
    return fresh


def _after_greying(pg, scope: str, late_ms: int = 3000) -> list[str]:
    """The results in ``scope`` still looking current once the greying has faded in: 400 ms (its transition is
    0.2 s, style.css), and on a loaded machine up to ``late_ms`` more for a greying that starts late (/anonland's
    divergence table was seen at full strength at 400 ms, with its stale class set, and grey half a second later)."""
    from playwright.sync_api import TimeoutError as PlaywrightTimeout

    pg.wait_for_timeout(400)
    try:
        pg.wait_for_function(f"(scope) => ({FRESH_RESULTS})(scope).length === 0", arg=scope, timeout=late_ms)
    except PlaywrightTimeout:
        pass  # what still looks current is reported by the caller's assertion
    return pg.evaluate(FRESH_RESULTS, scope)


def _bad_input_case(pg, view: str, field_id: str, bad: str, current: list[str] | None) -> None:
    """The case; then, when ``current`` (the view's results as loaded) is given, the page back as loaded."""
    sel = f"[id='{field_id}']" if field_id.startswith("{") else f"#{field_id}"
    box = pg.locator(sel)
    was_open = box.evaluate("(el) => { const d = el.closest('details'); if (!d) return null;"
                            " const o = d.open; d.open = true; return o; }")  # a person opens it
    valid = box.input_value()
    _enter(pg, view, box, bad)
    pg.wait_for_function("(sel) => document.querySelector(sel).getAttribute('aria-invalid') === 'true'", arg=sel)
    described = pg.evaluate("(sel) => (document.querySelector(sel).getAttribute('aria-describedby') || '')"
                            ".split(/\\s+/).map((i) => document.getElementById(i)).filter(Boolean)"
                            ".map((e) => e.textContent.trim())", arg=sel)
    message = " ".join(described)
    assert message and len(message) < 300, f"{field_id}: a clear message describes the field: {described}"
    assert not re.search(r"\d(?:\.\d+)?e[+-]?\d", message), message
    fresh = _after_greying(pg, RESULT_SCOPE.get(field_id, "#main"))
    assert fresh == [], f"{field_id}: results still looking current beside “{message}”: {fresh[:5]}"
    if current is None:
        return
    # back to the page as loaded: the valid value typed back, the details as they were, the same current results
    _enter(pg, view, box, valid)
    if was_open is False:
        box.evaluate("(el) => { el.closest('details').open = false; }")
    try:
        pg.wait_for_function(f"(want) => ({AS_LOADED})() && JSON.stringify(({FRESH_RESULTS})('#main').sort())"
                             " === JSON.stringify(want)", arg=current, timeout=30_000)
    except Exception:
        got = sorted(pg.evaluate(FRESH_RESULTS, "#main"))
        marked = pg.evaluate("() => Array.from(document.querySelectorAll('#main [aria-invalid=true]')).map((e) => e.id)")
        raise AssertionError(f"{field_id}: after “{valid}” was typed back the page is not as loaded: marked {marked}, "
                             f"missing {sorted(set(current) - set(got))[:5]}, new {sorted(set(got) - set(current))[:5]}"
                             ) from None


def _enter(pg, view: str, box, value: str) -> None:
    """Type ``value`` into ``box`` as a person does (Enter, Tab), then run the page where it has a button."""
    box.fill(value)
    box.press("Enter")
    box.press("Tab")
    if view in RUN:
        pg.click(f"#{RUN[view]}")


#: Per view, files an upload box must refuse (name, content) and the form parts of the previous file that must
#: then look stale beside the page's results.
BAD_UPLOADS = {
    "/dataset": [("one-column.csv", b"id\n1\n2\n3\n", ["#dataset-columns", "#dataset-bins"]),
                 ("too-large.csv", b"a,b\n" + b"1,2\n" * 2_700_000, ["#dataset-columns", "#dataset-bins"])],
}
STRENGTH = r"""(sel) => { let o = 1;
  for (let e = document.querySelector(sel); e && e.nodeType === 1; e = e.parentElement) o *= parseFloat(getComputedStyle(e).opacity);
  return o; }"""


def _bad_upload_case(pg, name: str, content: bytes, greyed: list[str]) -> None:
    pg.wait_for_selector("#main .card-value")  # the previous analysis is on screen
    pg.set_input_files("[id='dataset-upload'] input[type=file]",
                       files=[{"name": name, "mimeType": "text/csv", "buffer": content}])
    pg.wait_for_function("() => document.querySelector('#dataset-upload').getAttribute('aria-invalid') === 'true'")
    fresh = _after_greying(pg, "#main")
    assert fresh == [], f"{name}: results of the previous file still look current: {fresh[:5]}"
    for sel in greyed:
        assert pg.evaluate(STRENGTH, sel) < 0.6, f"{name}: {sel} still looks current"


ACTIVE_NAV_LINK = r"""() => {
  const row = document.querySelector('.navbar .nav-links');
  const on = Array.from(row.querySelectorAll('a.nav-link[aria-current=page]'));
  if (on.length !== 1) return {marked: on.map((a) => a.textContent)};
  const r = row.getBoundingClientRect(), a = on[0].getBoundingClientRect();
  const more = (row.getAttribute('data-more') || '').split(' ');
  // an edge with more links beyond it fades over its 12 % (style.css): the active link must sit in the clear part
  const lo = r.left + (more.includes('left') ? 0.12 * r.width : 0), hi = r.right - (more.includes('right') ? 0.12 * r.width : 0);
  const links = Array.from(row.querySelectorAll('a.nav-link')).map((x) => x.getBoundingClientRect());
  const shown = (sel) => { const b = document.querySelector(sel); if (!b) return false;
    const s = getComputedStyle(b), br = b.getBoundingClientRect();
    return s.visibility === 'visible' && s.display !== 'none' && br.width > 4 && br.left >= 0 && br.right <= window.innerWidth; };
  const apart = (sel) => { const b = document.querySelector(sel).getBoundingClientRect();
    return Math.min(b.right, r.right) - Math.max(b.left, r.left) <= 0 || Math.min(b.bottom, r.bottom) - Math.max(b.top, r.top) <= 0; };
  return {marked: [on[0].textContent], href: on[0].getAttribute('href'), active: on[0].classList.contains('active'),
          inside: a.left >= lo - 1 && a.right <= hi + 1, pageX: window.scrollX, rowWidth: r.width,
          cutLeft: links.some((x) => x.left < r.left - 1), cutRight: links.some((x) => x.right > r.right + 1),
          controlLeft: shown('.navbar .nav-more-left'), controlRight: shown('.navbar .nav-more-right'),
          clearOfBrand: apart('.navbar .brand'), clearOfToggle: apart('.navbar .presenter-toggle'),
          scrollLeft: row.scrollLeft};
}"""


def test_phone_navigation_shows_the_page_you_are_on(loaded):
    """At 390 px the links have a line of their own (issue 28: squeezed between the brand and the presenter toggle the
    row was 134 px wide and cut "Me" to "ıe" at one edge and the next link at the other, with no hint): the active link
    in the row's clear part, no link cut at an edge without that edge's ‹ / › control, the row clear of the brand and
    the toggle; the › control scrolls the row to its end."""
    size, pages = loaded
    if size != PHONE:
        pytest.skip("phone only: on a desktop the links wrap")
    for path in PAGES:
        pg, _ = pages[path]
        pg.wait_for_function("() => document.querySelector('.navbar .nav-link[aria-current=page]')")
        got = pg.evaluate(ACTIVE_NAV_LINK)
        href = got.get("href") or ""
        # a page without its own link (the bucket advisor) is under its section's link
        assert (href == path or path.startswith(href.rstrip("/") + "/")) and got["active"], (path, got)
        assert got["inside"], f"{path}: the active link {got['marked']} is scrolled out of the navigation row"
        assert got["pageX"] == 0, "the page itself does not scroll sideways"
        assert got["cutLeft"] <= got["controlLeft"] and got["cutRight"] <= got["controlRight"], \
            f"{path}: a link is cut at an edge of the navigation row without that edge's ‹ / › control: {got}"
        assert got["clearOfBrand"] and got["clearOfToggle"], f"{path}: the navigation row overlaps the brand or the toggle"
        assert got["rowWidth"] > 0.9 * PHONE[0], f"{path}: the navigation row is {got['rowWidth']} px wide, not the line's width"
    # the › control scrolls the row: pressed until the last link shows, then only ‹ is offered
    pg, _ = pages[PAGES[0]]
    for _ in range(8):
        if not pg.evaluate(ACTIVE_NAV_LINK)["controlRight"]:
            break
        pg.click(".navbar .nav-more-right")
        pg.wait_for_timeout(450)  # the smooth scroll
    end = pg.evaluate(ACTIVE_NAV_LINK)
    assert not end["cutRight"] and not end["controlRight"] and end["controlLeft"] and end["scrollLeft"] > 0, end


@pytest.mark.parametrize("path", PAGES)
def test_tabs_are_reachable_and_operable_by_keyboard(loaded, path):
    """On the page as loaded (after the read-only checks above: this one switches tabs, and back)."""
    size, pages = loaded
    if size != DESKTOP:
        pytest.skip("the keyboard checks are the same on a phone")
    pg, _ = pages[path]
    lists = pg.locator(".tab-container, [role=tablist]")
    for i in range(lists.count()):
        tablist = lists.nth(i)
        if not tablist.is_visible():
            continue
        tabs = tablist.locator("[role=tab]")
        n = tabs.count()
        assert n >= 2 and n == tablist.locator(":scope > *").count(), "every tab has role=tab"
        stops = [tabs.nth(j).get_attribute("tabindex") for j in range(n)]
        assert stops.count("0") == 1, f"one tab stop per tablist, got {stops}"
        first = stops.index("0")
        tabs.nth(first).focus()
        pg.keyboard.press("ArrowRight")
        nxt = (first + 1) % n
        pg.wait_for_function("([sel, i, j]) => { const t = document.querySelectorAll(sel)[j];"
                             " return t.getAttribute('aria-selected') === 'true' && document.activeElement === t; }",
                             arg=[f"#{tablist.get_attribute('id')} [role=tab]" if tablist.get_attribute("id")
                                  else "[role=tab]", first, nxt])
        pg.keyboard.press("ArrowLeft")
        pg.keyboard.press("Enter")
        pg.wait_for_function("(sel) => document.activeElement.getAttribute('aria-selected') === 'true'",
                             arg="[role=tab]")


# The presenter-mode-on-a-projector check runs on test_a11y.py's presenter-mode load of every page
# (support.browser.projector_problems; issue 25: a load of its own before).
