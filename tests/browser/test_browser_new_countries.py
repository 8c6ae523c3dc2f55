"""Italy's municipalities, Morocco, South Korea and New Zealand in headless Chromium: the 7,901-polygon
map draws from the served geometry and recolours by Patch, districts are found by province, and the
data sets without a map list (and filter) their districts."""
from __future__ import annotations

import pytest
from support.browser import choose_option, open_dropdown

pytestmark = pytest.mark.browser

MAP = "document.querySelector('#explore-map .js-plotly-plot')"
#: MapLibre has the geometry and has drawn it (features rendered from the served file).
DRAWN = (f"(() => {{ const g = {MAP}; if (!g || !g._fullLayout || !g._fullLayout.map) return false;"
         " const s = g._fullLayout.map._subplot; const m = s && s.map; if (!m || !m.loaded()) return false;"
         " const st = m.getStyle(); if (!st || !st.sources) return false;"
         " const src = Object.keys(st.sources); return src.length > 0 && src.every(k => m.isSourceLoaded(k))"
         " && src.reduce((n, k) => n + m.querySourceFeatures(k).length, 0) > 0; })()")


def _open_explorer(pg, url):
    pg.goto(url)
    pg.wait_for_selector("#explore-readouts .readout", timeout=120_000)


def test_italian_municipal_map_draws_and_recolours_by_patch(app_url, page):
    pg = page.page
    geo = []
    pg.on("response", lambda r: geo.append(r) if "/geo/IT-COM.geojson" in r.url else None)
    _open_explorer(pg, f"{app_url.url}/explore?country=IT-COM")
    pg.wait_for_function(DRAWN, timeout=120_000)
    trace = pg.evaluate(f"(() => {{ const t = {MAP}.data[0]; return [t.geojson, t.locations.length]; }})()")
    assert trace == ["/geo/IT-COM.geojson", 7_901]
    # the simplified geometry, fetched once: plotly.js's request, and assets/map_prewarm.js's prefetch of the same
    # URL when it came first (plotly.js's is then answered from the browser's cache)
    fetched = len(geo)
    assert 1 <= fetched <= 2 and all(len(r.body()) < 3_000_000 for r in geo)
    responses = []
    pg.on("response", lambda r: responses.append(r) if "_dash-update-component" in r.url else None)
    pg.check("#explore-stat input[value=min]")
    pg.wait_for_function(f"{MAP}.layout.title.text.includes('minimum non-zero CAS')", timeout=60_000)
    pg.wait_for_load_state("networkidle")
    map_updates = [b for b in (r.body() for r in responses) if b'"explore-map"' in b]
    assert map_updates and all(b"__dash_patch_update" in b for b in map_updates)  # colours only, as a Patch
    assert not any(b"coordinates" in b or b"FeatureCollection" in b for b in map_updates)
    assert len(geo) == fetched  # no second geometry download
    counts = pg.evaluate(f"{MAP}.__anonsetRecolour")
    assert counts["full"] == 0 and counts["fast"] >= 1  # recoloured in place (assets/map_recolour.js), not re-tiled
    # 7,901 municipalities: their borders are drawn from one step past the whole-country view (assets/map_detail.js),
    # the outlines of the filled and the selected ones at every zoom
    detail = pg.evaluate(BORDER_LAYERS)
    assert detail["from"] == pytest.approx(detail["opened"] + 1, abs=0.05), detail
    # (the fills keep MapLibre's antialiasing outline: without it a municipality narrower than a pixel is not drawn)
    assert detail["districts"] == [["fill", 0, None], ["line", detail["from"], None]], detail
    assert all(minzoom == 0 for _type, minzoom, _aa in detail["outlines"]), detail
    assert pg.evaluate(RENDERED_BORDERS) == 0  # the whole country in view: no border drawn
    pg.evaluate(f"{MAP}._fullLayout.map._subplot.map.setZoom({detail['from']} + 0.5)")
    pg.wait_for_function(f"(() => {{ const m = {MAP}._fullLayout.map._subplot.map; return !m.isMoving() && m.loaded()"
                         " && m.areTilesLoaded(); })()", timeout=60_000)
    assert pg.evaluate(RENDERED_BORDERS) > 0  # zoomed in: the borders are drawn
    assert page.console_errors == []
    assert page.foreign_requests() == []


#: The district map's zoom at opening, the zoom its figure names for the borders, and its layers as
#: [type, minzoom, fill-antialias]: trace 0's (the districts) and the outline traces'.
BORDER_LAYERS = (f"(() => {{ const g = {MAP}, m = g._fullLayout.map._subplot.map, style = m.getStyle().layers;"
                 " const of = (t) => style.filter(l => l.id.startsWith('plotly-trace-layer-' + t.uid))"
                 "   .map(l => [l.type, l.minzoom || 0, (l.paint || {})['fill-antialias'] ?? null]);"
                 " return {opened: g._fullLayout.map.zoom, from: g._fullLayout.meta.anonset_borders_from_zoom,"
                 " districts: of(g._fullData[0]), outlines: g._fullData.slice(1).flatMap(of)}; })()")
#: How many district borders MapLibre has drawn in the map's view.
RENDERED_BORDERS = (f"(() => {{ const g = {MAP}, m = g._fullLayout.map._subplot.map;"
                    " const line = m.getStyle().layers.find(l => l.type === 'line'"
                    " && l.id.startsWith('plotly-trace-layer-' + g._fullData[0].uid));"
                    " return m.queryRenderedFeatures({layers: [line.id]}).length; })()")


def _search(pg, dropdown_id: str, text: str) -> None:
    """Open the dropdown, empty its search box (the last search's words, if the list kept them) and type ``text``."""
    open_dropdown(pg, dropdown_id)
    box = pg.locator(".dash-dropdown-content input[type=search], .dash-dropdown-content input[type=text]")
    if box.count():
        box.first.fill("")
        box.first.focus()
    pg.keyboard.type(text, delay=15)


def test_a_municipality_is_found_by_its_province(app_url, page):
    """Two searches in one load of the page (issue 25: a load per search indexed the 7,901 options again): the
    list is closed and opened again and its search box emptied between them."""
    pg = page.page
    pg.goto(f"{app_url.url}/?country=IT-COM")
    pg.wait_for_selector("#me-district", state="attached")
    pg.locator("#me-district").evaluate("el => el.scrollIntoView({block: 'start'})")
    for search in ("Lecco", "Castro"):
        _search(pg, "me-district", search)
        if search == "Lecco":  # the province: its municipalities are offered
            pg.wait_for_selector("label.dash-dropdown-option:has(input[value='097001'])")  # Abbadia Lariana (LC)
            # the list fills in as it renders (on a loaded machine the first two can be alone for a moment)
            pg.wait_for_function("() => document.querySelectorAll('label.dash-dropdown-option').length > 5")
            labels = pg.locator("label.dash-dropdown-option").all_inner_texts()
            assert len(labels) > 5 and all("Lecco" in t for t in labels)
            pg.keyboard.press("Escape")
            pg.wait_for_selector(".dash-dropdown-content", state="detached")
    # two municipalities of one name, told apart by their province
    pg.wait_for_selector("label.dash-dropdown-option:has(input[value='075096'])")
    labels = pg.locator("label.dash-dropdown-option").all_inner_texts()
    assert "Castro — Lecce (075096)" in labels and "Castro — Bergamo (016065)" in labels
    pg.locator("label.dash-dropdown-option:has(input[value='075096'])").click()
    pg.wait_for_function("document.querySelector('#me-district').innerText.includes('Castro')")
    assert "075096" not in pg.url  # a chosen district is an answer: never in the address (issue 15)
    assert page.console_errors == []


@pytest.mark.parametrize("code, district, name", [("MA", "12.391.05.07", "Oum Dreyga"), ("KR", "11010", "종로구"),
                                                  ("NZ", "kaikoura-district", "Kaikoura district")])
def test_personal_page_and_explorer_work(app_url, page, code, district, name):
    pg = page.page
    pg.goto(f"{app_url.url}/?country={code}&district={district}")
    pg.wait_for_selector("#me-country", state="attached")
    pg.check("input[value=male]")
    choose_option(pg, "me-ages", "45", "45–50")
    pg.fill("#me-height-cm", "178")
    pg.press("#me-height-cm", "Tab")
    pg.fill("#me-weight-kg", "82")
    pg.press("#me-weight-kg", "Tab")
    pg.wait_for_function("(() => { const li = document.querySelectorAll('#me-funnel-text li');"
                         " return li.length == 6 && li[5].innerText.includes('kg'); })()", timeout=60_000)
    assert name in pg.inner_text("#me-funnel-text")
    # issue 27: its own NCD-RisC prior, with source and year, in the warnings and the body statistics panel
    assert f"Body statistics of {code}: NCD-RisC prior for" in pg.inner_text("#me-warnings")
    assert "those of Germany" not in pg.inner_text("body")
    _open_explorer(pg, f"{app_url.url}/explore?country={code}&district={district}")
    pg.wait_for_selector(f"#explore-detail .detail[data-district='{district}']", timeout=60_000)
    if code == "KR":
        pg.wait_for_function(DRAWN, timeout=60_000)
    else:
        pg.wait_for_selector("#explore-no-map .warning")
        assert "No boundary file" in pg.inner_text("#explore-no-map")
    if code == "MA":  # on this explorer page (issue 25: a load of its own before)
        _district_table_filters_by_province(pg, district)
    assert page.console_errors == []
    assert page.foreign_requests() == []


def _district_table_filters_by_province(pg, shown: str):
    """Morocco's district table (no map) filters by its region column, and a row opens its district's detail in place
    of the detail ``shown`` (the district the page opened with)."""
    pg.wait_for_selector("#explore-district-table td[data-dash-column='district']")
    box = pg.locator("#explore-district-table th.dash-filter[data-dash-column='region'] input[type=text]")
    box.fill("tanger")  # case-insensitive
    box.press("Enter")
    pg.wait_for_function("(() => { const c = Array.from(document.querySelectorAll("
                         "\"#explore-district-table td[data-dash-column='region']\")).map(td => td.innerText);"
                         " return c.length > 0 && c.every(t => t.includes('Tanger')); })()")
    pg.locator("#explore-district-table td[data-dash-column='district']").first.click()
    pg.wait_for_selector(f"#explore-detail .detail:not([data-district='{shown}'])")
    assert "Tanger-Assilah" in pg.inner_text("#explore-detail")


def test_the_country_picker_finds_local_and_unaccented_names(app_url, page):
    """Issue 26: the picker's ``search`` words hold only what its labels do not (the dropdown indexes every substring
    of every word at mount); a person still finds a country by its own name, without accents, by its code or by
    its continent, in the real dropdown (core.country._catalog.words_beyond)."""
    pg = page.page
    pg.goto(f"{app_url.url}/?country=DE")
    pg.wait_for_selector("#me-country", state="attached")
    for typed, value in (("cote d ivoire", "CI"), ("Brasil", "BR"), ("espana", "ES"), ("日本", "JP"),
                         ("algerie", "DZ"), ("deutschland europe", "DE")):
        _search(pg, "me-country", typed)
        offered = "label.dash-dropdown-option input"
        try:  # the list as filtered (unfiltered, the first rows already hold Africa's countries): the country, few others
            pg.wait_for_function("([sel, value]) => { const v = Array.from(document.querySelectorAll(sel)).map((e) => e.value);"
                                 " return v.includes(value) && v.length < 5; }", arg=[offered, value], timeout=10_000)
        except Exception:
            raise AssertionError((typed, pg.eval_on_selector_all(offered, "els => els.map((e) => e.value)"))) from None
        pg.keyboard.press("Escape")
        pg.wait_for_selector(".dash-dropdown-content", state="detached")
    assert page.console_errors == []
