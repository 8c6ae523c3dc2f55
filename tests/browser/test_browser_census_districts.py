"""Issue 26's district data sets in headless Chromium: India (a map with two districts left off it) and Kenya's
sub-counties (no map): the personal page finds the district and the explorer says what is and is not drawn."""
from __future__ import annotations

import pytest
from support.browser import choose_option

pytestmark = pytest.mark.browser

MAP = "document.querySelector('#explore-map .js-plotly-plot')"
DRAWN = (f"(() => {{ const g = {MAP}; if (!g || !g._fullLayout || !g._fullLayout.map) return false;"
         " const s = g._fullLayout.map._subplot; const m = s && s.map; if (!m || !m.loaded()) return false;"
         " const st = m.getStyle(); if (!st || !st.sources) return false;"
         " const src = Object.keys(st.sources); return src.length > 0 && src.every(k => m.isSourceLoaded(k))"
         " && src.reduce((n, k) => n + m.querySourceFeatures(k).length, 0) > 0; })()")


@pytest.mark.parametrize("code, district, name", [("IN", "603", "Chennai"), ("KE-SUB", "47-westlands", "Westlands")])
def test_personal_page_and_explorer(app_url, page, code, district, name):
    pg = page.page
    pg.goto(f"{app_url.url}/?country={code}&district={district}")
    pg.wait_for_selector("#me-country", state="attached")
    pg.check("input[value=female]")
    choose_option(pg, "me-ages", "30", "30–35")
    pg.wait_for_function("(() => { const li = document.querySelectorAll('#me-funnel-text li');"
                         " return li.length >= 4; })()", timeout=60_000)
    assert name in pg.inner_text("#me-funnel-text")
    body = pg.inner_text("body")
    assert ("census 2011" if code == "IN" else "census 2019") in body  # the census year wherever it is shown
    pg.goto(f"{app_url.url}/explore?country={code}&district={district}")
    pg.wait_for_selector(f"#explore-detail .detail[data-district='{district}']", timeout=120_000)
    if code == "IN":
        pg.wait_for_function(DRAWN, timeout=120_000)
        legend = pg.inner_text("#explore-map-legend")
        assert "not on the map" in legend and "Diu, Yanam" in legend
    else:
        pg.wait_for_selector("#explore-no-map .warning")
        assert "the county data set KE has a map" in pg.inner_text("#explore-no-map")
    assert page.console_errors == []
    assert page.foreign_requests() == []
