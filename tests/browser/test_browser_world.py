"""The world page in headless Chromium: the map draws every country from the served outline file, the statistic
switch recolours it by a Patch (and the link follows), and a click on a country opens the explorer on it."""
from __future__ import annotations

import pytest

pytestmark = pytest.mark.browser

MAP = "document.querySelector('#world-map .js-plotly-plot')"
SUBPLOT = f"{MAP}._fullLayout.map._subplot"
#: MapLibre has loaded the outline file and drawn features from it.
DRAWN = (f"(() => {{ const g = {MAP}; if (!g || !g._fullLayout || !g._fullLayout.map) return false;"
         " const m = g._fullLayout.map._subplot && g._fullLayout.map._subplot.map; if (!m || !m.loaded()) return false;"
         " const src = Object.keys(m.getStyle().sources || {}); return src.length > 0"
         " && src.every(k => m.isSourceLoaded(k)) && src.reduce((n, k) => n + m.querySourceFeatures(k).length, 0) > 0;"
         " })()")


def _click_country(pg, lon: float, lat: float) -> None:
    """Click the map at a longitude and latitude (MapLibre's own projection to the canvas)."""
    xy = pg.evaluate(f"(() => {{ const p = {SUBPLOT}.map.project([{lon}, {lat}]); return [p.x, p.y]; }})()")
    box = pg.locator("#world-map .maplibregl-canvas").bounding_box()
    pg.mouse.move(box["x"] + xy[0], box["y"] + xy[1])
    pg.mouse.click(box["x"] + xy[0], box["y"] + xy[1])


def test_world_map_draws_recolours_and_opens_a_country(app_url, page):
    pg = page.page
    geo = []
    pg.on("response", lambda r: geo.append(r) if "/geo/world.geojson" in r.url else None)
    pg.goto(f"{app_url.url}/explore/world?utm_source=x")
    pg.wait_for_function(DRAWN, timeout=60_000)
    trace = pg.evaluate(f"(() => {{ const t = {MAP}.data[0]; return [t.geojson, t.locations.length]; }})()")
    assert trace[0] == "/geo/world.geojson" and trace[1] > 180
    page.screenshot("world-desktop-mean", full_page=False)
    updates = []
    pg.on("response", lambda r: updates.append(r) if "_dash-update-component" in r.url else None)
    pg.check("#world-stat input[value=share_below]")
    pg.wait_for_function(f"{MAP}.data[0].colorbar.ticksuffix === ' %'", timeout=30_000)
    pg.wait_for_function("window.location.search.includes('stat=share_below')", timeout=10_000)
    pg.wait_for_load_state("networkidle")
    bodies = [b for b in (r.body() for r in updates) if b'"world-map"' in b]
    assert bodies and all(b"__dash_patch_update" in b and b"FeatureCollection" not in b for b in bodies)
    assert len(geo) == 1  # the outlines are fetched once
    _click_country(pg, -50.0, -10.0)  # Brazil: 5,565 municipalities
    pg.wait_for_function("location.pathname + location.search === '/explore?country=BR'", timeout=30_000)
    assert page.console_errors == []
    assert page.foreign_requests() == []
