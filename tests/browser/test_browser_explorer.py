"""The regional explorer in headless Chromium: live map values, district detail, CDF readouts, sortable tables."""
from __future__ import annotations

import math
import re
import time
from pathlib import Path

import numpy as np
import pytest
from support.browser import wait_until_drawn

pytestmark = pytest.mark.browser

MAP_Z = "(() => { const g = document.querySelector('#explore-map .js-plotly-plot');"\
        " return g && g.data && g.data[0] ? Array.from(g.data[0].z) : null; })()"
MAP_TITLE = "document.querySelector('#explore-map .js-plotly-plot').layout.title.text"
#: MapLibre has drawn everything it was given and is not moving.
IDLE_MAP = ("(() => { const g = document.querySelector('#explore-map .js-plotly-plot');"
            " const m = g && g._fullLayout && g._fullLayout.map && g._fullLayout.map._subplot.map;"
            " return !!m && m.loaded() && !m.isMoving() && m.areTilesLoaded(); })()")


def _open(pg, url: str):
    pg.goto(url)
    pg.wait_for_selector("#explore-readouts .readout", timeout=60_000)
    pg.wait_for_function("(() => { const td = document.querySelector(\"#explore-country-table td[data-dash-column='country']\");"
                         " return td !== null && td.innerText.trim() !== ''; })()", timeout=60_000)


def _wait_map(pg, title_part: str):
    pg.wait_for_selector("#explore-map .js-plotly-plot", state="attached", timeout=60_000)
    pg.wait_for_function(
        f"(() => {{ const g = document.querySelector('#explore-map .js-plotly-plot');"
        f" return g && g.layout && g.layout.title && g.layout.title.text.includes({title_part!r}); }})()",
        timeout=30_000,
    )


def _z(pg) -> np.ndarray:
    return np.array([np.nan if v is None else v for v in pg.evaluate(MAP_Z)], dtype=float)


def _expected_z(scenario, code="DE") -> np.ndarray:
    from dashboard.core import regions as ag

    values = ag.district_stat(scenario, code).to_numpy(dtype=float)
    if scenario.stat == "share_below":
        return 100 * values
    with np.errstate(divide="ignore", invalid="ignore"):
        return np.where(values > 0, np.log10(values), np.nan)


def _idle(pg):
    pg.wait_for_load_state("networkidle")
    wait_until_drawn(pg)  # callbacks done, and the sections below the map no longer busy



def _click_map_at(pg, lon: float, lat: float, expect: str, attempts: int = 4):
    """Hover, then click the map at (lon, lat), as a person does, until ``expect`` appears.

    The point is projected by the map itself once MapLibre has finished rendering; Plotly
    turns a click into ``clickData`` only for the point it is hovering, so the hover must
    have registered first.  A busy machine can drop the first hover: it is tried again, like
    a person who moves the mouse a little and clicks once more.
    """
    from playwright.sync_api import TimeoutError as PlaywrightTimeout

    pg.wait_for_function("(() => { const g = document.querySelector('#explore-map .js-plotly-plot');"
                         " const m = g && g._fullLayout && g._fullLayout.map && g._fullLayout.map._subplot.map;"
                         " return !!m && m.loaded(); })()", timeout=30_000)
    box = pg.locator("#explore-map .js-plotly-plot").bounding_box()
    for attempt in range(attempts):
        xy = pg.evaluate(
            "([lon, lat]) => { const g = document.querySelector('#explore-map .js-plotly-plot');"
            " const m = g._fullLayout.map._subplot.map; const p = m.project([lon, lat]);"
            " const r = m.getContainer().getBoundingClientRect(); const o = g.getBoundingClientRect();"
            " return [p.x + r.left - o.left, p.y + r.top - o.top]; }", [lon, lat])
        x, y = box["x"] + xy[0] + attempt, box["y"] + xy[1]
        pg.mouse.move(x - 3, y)
        pg.mouse.move(x, y, steps=3)
        try:
            pg.wait_for_function("(() => { const g = document.querySelector('#explore-map .js-plotly-plot');"
                                 " return !!(g._hoverdata && g._hoverdata.length); })()", timeout=5_000)
        except PlaywrightTimeout:
            continue
        pg.mouse.click(x, y)
        try:
            pg.wait_for_selector(expect, timeout=10_000)
            return
        except PlaywrightTimeout:
            continue
    pg.wait_for_selector(expect, timeout=10_000)  # fails with Playwright's own message

#: What a colour change may touch in the map: trace 0's colours, hover and colour bar, and the title.
RECOLOUR_KEYS = {"z", "text", "hovertemplate", "hovertext", "zmin", "zmax", "colorbar"}


def _patch_locations(body: str) -> list[list]:
    """The locations a map update's Patch assigns (fails when the map was sent as a whole figure)."""
    import json

    figure = json.loads(body)["response"]["explore-map"]["figure"]
    assert figure.get("__dash_patch_update") == "__dash_patch_update", "a map update must be a Patch"
    return [op["location"] for op in figure["operations"]]


def _served(app_url, path: str) -> int:
    """How many times the test server answered ``path`` (its access log): browser-cache hits do not count.

    The log line of a response is written when its last byte is sent, so a transfer that an earlier test's
    closed page left behind can be logged a moment later: the count is read once it has been still for 1.5 s.
    """
    def count():
        return sum(f"GET {path} " in line for line in app_url.log.read_text(errors="replace").splitlines())

    last, still_since = count(), time.monotonic()
    deadline = still_since + 15
    while time.monotonic() - still_since < 1.5 and time.monotonic() < deadline:
        time.sleep(0.25)
        now = count()
        if now != last:
            last, still_since = now, time.monotonic()
    return last


#: Colours as drawn: one pixel of the map's WebGL canvas per (lon, lat), read in MapLibre's render event (while
#: the frame is still in the drawing buffer).
MAP_PIXELS = """(points) => new Promise(resolve => {
  const g = document.querySelector('#explore-map .js-plotly-plot');
  const m = g._fullLayout.map._subplot.map, gl = m.painter.context.gl, c = m.getCanvas(), r = c.width / c.clientWidth;
  m.once('render', () => resolve(points.map(([lon, lat]) => {
    const p = m.project([lon, lat]), px = new Uint8Array(4);
    gl.readPixels(Math.round(p.x * r), Math.round(c.height - p.y * r), 1, 1, gl.RGBA, gl.UNSIGNED_BYTE, px);
    return Array.from(px.slice(0, 3));
  })));
  m.triggerRepaint();
})"""


def _inner_points(code: str, n: int = 40) -> dict[str, tuple[float, float]]:
    """A point well inside each of the ``n`` largest districts of the served geometry (away from borders)."""
    import json

    import shapely

    from census_loaders.paths import cache_dir

    features = json.loads((cache_dir() / "boundaries" / f"{code}.geojson").read_text())["features"]
    shapes = sorted(((f["id"], shapely.geometry.shape(f["geometry"])) for f in features), key=lambda t: -t[1].area)[:n]
    inner = {i: g.buffer(-0.1) for i, g in shapes}
    return {i: tuple(g.representative_point().coords[0]) for i, g in inner.items() if not g.is_empty}


def _expected_pixels(pg, ids) -> np.ndarray:
    """Each district's colour on the map as plotly.js's own colour scale gives it (stops and range read from the
    page), at the trace's opacity over the white background."""
    trace = pg.evaluate("(() => { const t = document.querySelector('#explore-map .js-plotly-plot')._fullData[0];"
                        " return {scale: t.colorscale, zmin: t.zmin, zmax: t.zmax, opacity: t.marker.opacity,"
                        " locations: Array.from(t.locations), z: Array.from(t.z)}; })()")
    stops = np.array([s[0] for s in trace["scale"]], dtype=float)
    rgb = np.array([[int(s[1][i:i + 2], 16) for i in (1, 3, 5)] for s in trace["scale"]], dtype=float)
    index = {loc: k for k, loc in enumerate(trace["locations"])}
    out = []
    for district in ids:
        t = (trace["z"][index[district]] - trace["zmin"]) / (trace["zmax"] - trace["zmin"])
        colour = np.array([np.interp(min(max(t, 0.0), 1.0), stops, rgb[:, c]) for c in range(3)])
        out.append(trace["opacity"] * colour + (1 - trace["opacity"]) * 255)
    return np.array(out)


#: assets/map_recolour.js's counts of the map's updates: {fast: recoloured in place, full: plotly.js's own update}.
RECOLOUR_COUNTS = "(document.querySelector('#explore-map .js-plotly-plot').__anonsetRecolour || {fast: 0, full: 0})"
#: Counts MapLibre's resizes of the explorer's map from now on, and the resizes to its own size skipped
#: (assets/map_recolour.js guardResize): a resize resets the canvas, so every district is drawn again.
COUNT_RESIZES = ("() => { const m = document.querySelector('#explore-map .js-plotly-plot')._fullLayout.map._subplot.map;"
                 " window.__mapResizes = 0; m.on('resize', () => { window.__mapResizes += 1; }); }")
RESIZES = ("() => { const m = document.querySelector('#explore-map .js-plotly-plot')._fullLayout.map._subplot.map;"
           " return {resized: window.__mapResizes, skipped: m.__anonsetResizesSkipped || 0,"
           " canvas: [m.getCanvas().width, m.getCanvas().height]}; }")
#: Why each map trace last went to plotly.js's own update (assets/map_recolour.js), for a failure's message.
RECOLOUR_WHY = ("(document.querySelector('#explore-map .js-plotly-plot').calcdata || [])"
                ".map((cd) => cd[0].trace._glTrace ? (cd[0].trace._glTrace.__recolourWhy || null) : 'no map trace')")


def _settled_recolour_counts(pg, quiet_ms: int = 1500, limit_ms: int = 20_000) -> dict:
    """The map's update counts once they have stopped moving for ``quiet_ms``: on a loaded machine the map's own
    settling (a refit to its real width, a late store) can land after the map first looks idle, and counted as
    the first change's it read as a full redraw the change caused (a full run, session 11)."""
    last, still, waited = pg.evaluate(RECOLOUR_COUNTS), 0, 0
    while still < quiet_ms and waited < limit_ms:
        pg.wait_for_timeout(250)
        waited += 250
        now = pg.evaluate(RECOLOUR_COUNTS)
        still = still + 250 if now == last else 0
        last = now
    return last


def test_statistic_and_scenario_recolour_the_map_without_new_geometry(app_url, cold_page):
    page = cold_page  # the server's count of geometry answers below needs a cache that has not seen DE's
    from dashboard.core.regions import Scenario

    pg = page.page
    geometry_served = _served(app_url, "/geo/DE.geojson")
    _open(pg, f"{app_url.url}/explore?country=DE")
    _wait_map(pg, "person mean CAS")
    np.testing.assert_allclose(_z(pg), _expected_z(Scenario()), atol=1e-3)
    geometry_before = pg.evaluate("document.querySelector('#explore-map .js-plotly-plot').data[0].geojson")
    points = _inner_points("DE")
    pg.wait_for_function(IDLE_MAP)
    before_colours = _expected_pixels(pg, list(points))
    np.testing.assert_allclose(np.array(pg.evaluate(MAP_PIXELS, list(points.values())), dtype=float), before_colours, atol=6)
    assert geometry_before == "/geo/DE.geojson"  # polygons come from our own server, once, by URL
    # plotly.js's request, and assets/map_prewarm.js's prefetch of the same URL when it came first (plotly.js's
    # is then answered from the browser's cache)
    geometry_requests = sum("/geo/DE.geojson" in u for u in page.requests)
    assert 1 <= geometry_requests <= 2, page.requests
    responses = []
    pg.on("response", lambda r: responses.append(r) if "_dash-update-component" in r.url else None)
    # updates before the first change (the map's own settling: a refit to its real width, a late store) are not
    # the subject: count from here
    counted = _settled_recolour_counts(pg)
    pg.evaluate(COUNT_RESIZES)
    canvas_before = pg.evaluate(RESIZES)["canvas"]

    # the statistic: minimum non-zero CAS
    pg.check("#explore-stat input[value=min]")
    _wait_map(pg, "minimum non-zero CAS")
    pg.wait_for_function("document.querySelector('#explore-map-legend').innerText.includes('minimum non-zero CAS: from')")
    np.testing.assert_allclose(_z(pg), _expected_z(Scenario(stat="min")), atol=1e-3)
    pg.wait_for_function("location.search.includes('stat=min')")
    # recoloured in place (assets/map_recolour.js: feature state, no re-tiling), and drawn in plotly.js's colours
    counts = pg.evaluate(f"{RECOLOUR_COUNTS}")
    assert counts["full"] - counted["full"] == 0 and counts["fast"] - counted["fast"] >= 1, \
        (counted, counts, pg.evaluate(RECOLOUR_WHY))
    pg.wait_for_function(IDLE_MAP)
    # ... and the map kept its size: no resize (which clears the canvas and draws every district again, twice per
    # change before issue 26: the colour bar's margin followed its labels); plotly.js's own resize was skipped
    resizes = pg.evaluate(RESIZES)
    assert resizes["resized"] == 0 and resizes["skipped"] >= 1 and resizes["canvas"] == canvas_before, resizes
    drawn = np.array(pg.evaluate(MAP_PIXELS, list(points.values())), dtype=float)
    expected = _expected_pixels(pg, list(points))
    assert np.abs(expected - before_colours).max() > 15  # well beyond the tolerance: stale colours would fail
    np.testing.assert_allclose(drawn, expected, atol=6)
    # the share below k, with another k
    pg.check("#explore-stat input[value=share_below]")
    pg.fill("#explore-k", "20")
    pg.press("#explore-k", "Tab")
    _wait_map(pg, "below 20")
    np.testing.assert_allclose(_z(pg), _expected_z(Scenario(stat="share_below", k=20)), atol=1e-2)
    pg.wait_for_function("location.search.includes('k=20') && location.search.includes('stat=share_below')")
    # the scenario: women only
    pg.uncheck("#explore-sex input[value=male]")
    pg.wait_for_function("location.search.includes('sex=female')")
    _idle(pg)
    pg.wait_for_timeout(500)
    np.testing.assert_allclose(_z(pg), _expected_z(Scenario(stat="share_below", k=20, sexes=("female",))), atol=1e-2)
    # geometry was never sent again: every map update was a patch without coordinates
    _idle(pg)
    bodies = [r.text() for r in responses if r.ok and r.status == 200]
    map_updates = [b for b in bodies if "explore-map" in b]
    assert map_updates and all("coordinates" not in b for b in map_updates)
    # each recolour is a Patch of trace 0's colours and the title only: no geometry, ids, names or new traces
    locations = [loc for b in map_updates for loc in _patch_locations(b)]
    assert locations and all(loc == ["layout", "title", "text"] or (loc[:2] == ["data", 0] and len(loc) == 3
                                                                      and loc[2] in RECOLOUR_KEYS)
                             for loc in locations), locations
    assert pg.evaluate("document.querySelector('#explore-map .js-plotly-plot').data[0].geojson") == geometry_before
    assert sum("/geo/DE.geojson" in u for u in page.requests) == geometry_requests  # never fetched again
    counts = pg.evaluate(f"{RECOLOUR_COUNTS}")
    assert counts["full"] - counted["full"] == 0 and counts["fast"] - counted["fast"] >= 3, (counted, counts)  # all in place
    # hover and click still find districts (the geometry plotly.js prepared is carried over to each recolour)
    _click_map_at(pg, 13.40, 52.52, "#explore-detail .detail[data-district='11000']")  # Berlin's centre
    assert _served(app_url, "/geo/DE.geojson") - geometry_served == 1  # and the server sent it once
    # the clicked district's detail, and its link to the personal page (issue 25: a load of its own before)
    _click_a_district_and_see_its_detail(pg)
    assert page.console_errors == []
    assert page.foreign_requests() == []


def _click_a_district_and_see_its_detail(pg):
    """Berlin, clicked on the map: its detail, its outline on the map, and the link that opens the personal page
    with it chosen (the page is left there)."""
    text = pg.inner_text("#explore-detail")
    assert "Berlin (11000)" in text and "Smallest non-zero cells" in text and "Largest cells" in text
    assert pg.locator("#explore-detail .js-plotly-plot").count() == 1  # the sex × age bar chart
    link = pg.get_attribute("#explore-personal-link", "href")
    assert link == "/?country=DE#district=11000"  # the district is an answer there: fragment only
    pg.wait_for_function("location.search.includes('district=11000')")
    # the selection is outlined on the map (one feature, not the country again)
    pg.wait_for_function("document.querySelector('#explore-map .js-plotly-plot').data[2].locations[0] === '11000'")
    assert pg.evaluate("document.querySelector('#explore-map .js-plotly-plot').data[2].locations.length") == 1
    # the link opens the personal page with the district chosen
    pg.click("#explore-personal-link")
    pg.wait_for_selector("#me-country", state="attached")
    pg.wait_for_function("location.pathname === '/' && location.hash.includes('district=11000')"
                         " && !location.search.includes('district')")
    pg.wait_for_function("(document.querySelector('#me-district') || {}).innerText?.includes('Berlin')", timeout=30_000)


#: Run before the page's scripts: the page's clock when the map has first drawn its districts (MapLibre loaded, every
#: source loaded with its tiles) and when the readouts and the country table first have content (polled every 10 ms).
ORDER_PROBE = r"""(function poll() {
  const t = window.__anonsetOrder = window.__anonsetOrder || {drawn: null, readouts: null, table: null};
  const now = performance.now(), g = document.querySelector('#explore-map .js-plotly-plot');
  const m = g && g._fullLayout && g._fullLayout.map && g._fullLayout.map._subplot && g._fullLayout.map._subplot.map;
  const src = m && m.loaded() && m.areTilesLoaded() ? Object.keys(m.getStyle().sources || {}) : [];
  if (t.drawn === null && src.length && src.every(k => m.isSourceLoaded(k))) t.drawn = now;
  if (t.readouts === null && document.querySelector('#explore-readouts .readout')) t.readouts = now;
  if (t.table === null && document.querySelector('#explore-country-table td')) t.table = now;
  if (t.drawn === null || t.readouts === null || t.table === null) setTimeout(poll, 10);
})();"""


def test_the_sections_below_the_map_come_after_its_first_draw(app_url, page):
    """Issue 26: on the browser's one main thread the distributions' chart and the country table delayed the map's
    first draw; they are asked for once it has drawn (assets/explorer.js), and the notes above it come at once."""
    pg = page.page
    pg.add_init_script(ORDER_PROBE)
    pg.goto(f"{app_url.url}/explore?country=BR")
    pg.wait_for_selector("#explore-readouts .readout", timeout=120_000)
    pg.wait_for_selector("#explore-country-table td", timeout=60_000)
    pg.wait_for_function("window.__anonsetOrder.drawn !== null", timeout=60_000)
    order = pg.evaluate("window.__anonsetOrder")
    assert None not in order.values() and order["readouts"] >= order["drawn"] and order["table"] >= order["drawn"], order
    assert "Notes on the data" in pg.inner_text("#explore-notes")
    assert page.console_errors == []


def test_cdf_readouts_and_comparison(app_url, page):
    from support.browser import CHART_TEXT_PROBLEMS, LABELS_ON_CURVES

    from dashboard.core import regions as age_grain
    from dashboard.core.regions import Scenario
    from dashboard.figures.explorer import percent

    pg = page.page
    _open(pg, f"{app_url.url}/explore?country=DE,FR,GB,IT")
    pg.wait_for_selector("#explore-readouts .readout[data-country='IT']")
    # compared on whole 5-year age groups by default (dashboard.core.regions)
    shares = age_grain.comparable_share_below(Scenario(countries=("DE", "FR")), (5, 20, 100))
    for code in ("DE", "FR"):
        text = pg.inner_text(f"#explore-readouts .readout[data-country='{code}']")
        for k in (5, 20, 100):
            assert f"{percent(shares[code][k])} of people have an anonymity set below {k}" in text
    traces = pg.evaluate("document.querySelector('#explore-cdf .js-plotly-plot').data.map(t => t.name)")
    assert traces[:4] == ["Germany: people", "Germany: combinations", "France: people", "France: combinations"]
    assert len(traces) == 8 and "France" in pg.inner_text("#explore-cdf-legend")
    # four countries (issue 28): the covered-shares box on no curve, no label on another, at a desktop and a phone
    cdf = "#explore-cdf .js-plotly-plot"
    for width, height in ((1366, 900), (390, 844)):
        pg.set_viewport_size({"width": width, "height": height})
        pg.wait_for_function(f"document.querySelector('{cdf}').__anonsetNarrow === {str(width < 600).lower()}")
        pg.wait_for_timeout(300)
        assert pg.evaluate(LABELS_ON_CURVES) == [] and pg.evaluate(CHART_TEXT_PROBLEMS) == [], width
        # a phone has no free corner: the key under the chart lists the covered shares
        boxes = pg.locator(f"{cdf} .annotation", has_text="shares of the covered").count()
        assert boxes == (0 if width < 600 else 1), width
    assert pg.evaluate("document.querySelector('#explore-cdf .js-plotly-plot').layout.xaxis.type") == "log"
    # SPEC §1.8: shares of the covered people, the covered share stated (body model v2 by default)
    assert "of the people the model covers" in pg.inner_text("#explore-cdf-note")
    assert pg.is_checked("#explore-model input[value=v2]")
    assert "anonset cdf --country DE --country FR" in pg.inner_text("#explore-cli-cdf")
    assert page.console_errors == []


def test_country_table_sorts_and_downloads(app_url, page):
    pg = page.page
    _open(pg, f"{app_url.url}/explore?country=DE")
    # the same address (issue 25: a load each before): the body-model switch, back to v2, the self-report box
    _model_switch_changes_the_numbers_and_the_link(pg)
    _self_report_correction_changes_the_numbers_the_note_and_the_link(pg)
    first = lambda col: pg.inner_text(f"#explore-country-table td[data-dash-column='{col}']")
    assert first("country") == "AD"  # alphabetical: Andorra (a national UN estimate) first
    sort = pg.locator("#explore-country-table th[data-dash-column='cell_mean'] .column-header--sort").last
    sort.click()  # ascending
    pg.wait_for_function("document.querySelector(\"#explore-country-table td[data-dash-column='country']\").innerText !== 'AD'")
    values = [float(t.replace(",", "")) for t in
              pg.locator("#explore-country-table td[data-dash-column='cell_mean']").all_inner_texts()]
    assert values == sorted(values) and len(values) > 10
    assert re.fullmatch(r"[\d,]+", pg.locator("#explore-country-table td[data-dash-column='population']").first.inner_text())
    with pg.expect_download() as dl:
        pg.click("#explore-country-csv")
    csv = Path(dl.value.path()).read_text(encoding="utf-8")
    header, first_row = csv.splitlines()[:2]
    assert "minimum non-zero CAS: district" in header and "Germany" in csv
    assert "without the top quartile: mean" in header  # every column: the screen leaves the trimmed means out
    assert not first_row.startswith("code,")  # one header row (DataTable's export wrote its two levels as two rows)
    assert dl.value.suggested_filename.startswith("anonset-country-tables-") and dl.value.suggested_filename.endswith(".csv")
    # the age setting: published comparisons used 15-85
    pg.fill("#explore-table-ages", "15-85")
    pg.press("#explore-table-ages", "Enter")
    pg.wait_for_function("document.querySelector('#explore-cli-table').innerText.includes('15-85')")
    pg.wait_for_function("location.search.includes('table_ages=15-85')")
    pg.fill("#explore-table-ages", "0-150")
    pg.press("#explore-table-ages", "Enter")
    pg.wait_for_selector("#explore-table-message .error")
    assert "outside the census data" in pg.inner_text("#explore-table-message")
    assert page.console_errors == [] and page.foreign_requests() == []


def test_bad_input_shows_messages_not_tracebacks(app_url, page):
    pg = page.page
    pg.goto(f"{app_url.url}/explore?country=XX&stat=median&k=-1&ages=0-150")
    pg.wait_for_selector("#explore-link-notices .warning")
    notices = pg.inner_text("#explore-link-notices")
    for part in ("Unknown country or data set 'XX'", "unknown statistic 'median'", "k must be a positive",
                 "outside the census data"):
        assert part in notices
    pg.wait_for_selector("#explore-readouts .readout")
    pg.wait_for_function("!location.search.includes('XX')")  # the address bar shows the repaired view
    pg.fill("#explore-ages", "60-40")
    pg.press("#explore-ages", "Enter")
    pg.wait_for_selector("#explore-message .error")
    assert "reversed or empty" in pg.inner_text("#explore-message")
    assert "Traceback" not in pg.content()
    assert page.console_errors == []


def test_data_set_without_boundaries_lists_its_districts(app_url, page):
    pg = page.page
    _open(pg, f"{app_url.url}/explore?country=AU")
    pg.wait_for_selector("#explore-no-map .warning")
    assert "No boundary file" in pg.inner_text("#explore-no-map")
    assert not pg.locator("#explore-map-box").is_visible()
    pg.wait_for_selector("#explore-district-table td[data-dash-column='district']")
    pg.locator("#explore-district-table td[data-dash-column='district']").first.click()
    pg.wait_for_selector("#explore-detail .detail")
    assert "Open “How many people are like you?”" in pg.inner_text("#explore-detail")
    assert page.console_errors == []
    assert page.foreign_requests() == []


@pytest.mark.parametrize("code, name, title", [("DE", "explorer-de", "Kreis"), ("US", "explorer-us", "county"),
                                                ("FR", "explorer-fr", "NUTS-3")])
def test_screenshots(app_url, page, code, name, title):
    district = {"DE": "11000", "US": "06037", "FR": "FR101"}[code]
    pg = page.page
    _open(pg, f"{app_url.url}/explore?country={code}&district={district}")
    _wait_map(pg, title)
    pg.wait_for_selector(f"#explore-detail .detail[data-district='{district}']")
    _idle(pg)
    pg.wait_for_timeout(1500)  # MapLibre draws after plotly resolves
    z = _z(pg)
    assert np.isfinite(z).sum() > 0.95 * len(z)
    assert not math.isnan(float(pg.evaluate("document.querySelector('#explore-map .js-plotly-plot').layout.map.zoom")))
    buttons = pg.evaluate("Array.from(document.querySelectorAll('#explore-map .modebar-btn')).map(b => b.getAttribute('data-title'))")
    assert "Download plot as a PNG" in buttons and not any("Share" in (b or "") for b in buttons)
    page.screenshot(name)
    assert page.console_errors == []
    assert page.foreign_requests() == []


def _model_switch_changes_the_numbers_and_the_link(pg):
    """The visible body-model switch (default v2): paper reproduces the paper model's shares, and the link says so;
    v2 again gives v2's share, without the model in the link."""
    from dashboard.core import regions as age_grain
    from dashboard.core.regions import Scenario
    from dashboard.figures.explorer import percent

    pg.wait_for_selector("#explore-readouts .readout[data-country='DE']")
    assert pg.is_checked("#explore-model input[value=v2]")
    pg.check("#explore-model input[value=paper]")
    pg.wait_for_function("document.querySelector('#explore-cdf-note').innerText.includes('Paper model')")
    paper = age_grain.comparable_share_below(Scenario(countries=("DE",), model="paper"), (5,))["DE"][5.0]
    pg.wait_for_function(
        f"document.querySelector(\"#explore-readouts .readout[data-country='DE']\").innerText.includes('{percent(paper)}')")
    assert "model=paper" in pg.url
    assert "--model paper" in pg.inner_text("#explore-cli-cdf")
    # back to v2, the page as it was opened (the self-report check below starts from it)
    plain = age_grain.comparable_share_below(Scenario(countries=("DE",)), (5,))["DE"][5.0]
    pg.check("#explore-model input[value=v2]")
    pg.wait_for_function(
        f"document.querySelector(\"#explore-readouts .readout[data-country='DE']\").innerText.includes('{percent(plain)}')")
    pg.wait_for_function("!window.location.search.includes('model=paper')")
    assert "--model paper" not in pg.inner_text("#explore-cli-cdf")


def _self_report_correction_changes_the_numbers_the_note_and_the_link(pg):
    """The v2 option correcting self-reported statistics (Germany's are self-reported): the readout becomes the
    corrected model's share, the note says so, and the link and the CLI command carry it."""
    from dashboard.core import regions as age_grain
    from dashboard.core.regions import Scenario
    from dashboard.figures.explorer import percent

    pg.wait_for_selector("#explore-readouts .readout[data-country='DE']")
    assert not pg.is_checked("#explore-self-report input[value=on]")
    plain = age_grain.comparable_share_below(Scenario(countries=("DE",)), (5,))["DE"][5.0]
    corrected = age_grain.comparable_share_below(Scenario(countries=("DE",), self_report=True), (5,))["DE"][5.0]
    assert plain != corrected  # (a small change: NHANES's offsets are 1.5 cm and 0.8 kg; the view test checks more)
    pg.check("#explore-self-report input[value=on]")
    pg.wait_for_function("document.querySelector('#explore-notes').textContent.includes('corrected to measured')")
    pg.wait_for_function("window.location.search.includes('sr=1')")
    assert percent(corrected) in pg.inner_text("#explore-readouts .readout[data-country='DE']")
    assert "--self-report-correction" in pg.inner_text("#explore-cli-cdf")


def test_cdfs_switch_between_five_year_groups_and_single_years(app_url, page):
    """The UK (single years) beside Germany (5-year groups): one grain by default, single years one click away,
    the grain in the note and the link."""
    from dashboard.core import regions as age_grain
    from dashboard.core.regions import Scenario
    from dashboard.figures.explorer import percent

    pg = page.page
    _open(pg, f"{app_url.url}/explore?country=GB,DE")
    pg.wait_for_selector("#explore-readouts .readout[data-country='GB']")
    assert pg.is_checked("#explore-cdf-grain input[value='5']")
    assert "whole 5-year age groups" in pg.inner_text("#explore-cdf-note")
    s = Scenario(countries=("GB", "DE"))
    five = age_grain.comparable_share_below(s, (5,))["GB"][5.0]
    assert f"{percent(five)} of people have an anonymity set below 5" in pg.inner_text("#explore-readouts")
    pg.check("#explore-cdf-grain input[value=census]")
    single = age_grain.comparable_share_below(s, (5,), "census")["GB"][5.0]
    pg.wait_for_function(
        f"document.querySelector(\"#explore-readouts .readout[data-country='GB']\").innerText.includes('{percent(single)}')")
    assert "Not comparable on age" in pg.inner_text("#explore-cdf-note")
    pg.wait_for_function("window.location.search.includes('cdf_grain=census')")
    pg.reload()
    pg.wait_for_selector("#explore-readouts .readout[data-country='GB']")
    assert pg.is_checked("#explore-cdf-grain input[value=census]")
    assert page.console_errors == [] and page.foreign_requests() == []
