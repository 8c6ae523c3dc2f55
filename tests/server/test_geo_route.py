"""/geo/<code>.geojson: the served polygons, gzipped for browsers that accept it, cached and conditional."""
from __future__ import annotations

import gzip
import json


def test_gzip_when_accepted(client, cache_root):
    raw = (cache_root / "boundaries" / "IT-COM.geojson").read_bytes()
    resp = client.get("/geo/IT-COM.geojson", headers={"Accept-Encoding": "gzip, deflate"})
    assert resp.status_code == 200 and resp.headers["Content-Encoding"] == "gzip"
    assert resp.mimetype == "application/geo+json" and "Accept-Encoding" in resp.headers["Vary"]
    assert "max-age=86400" in resp.headers["Cache-Control"]
    body = resp.get_data()
    assert gzip.decompress(body) == raw and len(body) < len(raw) / 4  # 2.8 MB → about 0.5 MB
    assert len(json.loads(gzip.decompress(body))["features"]) == 7_896
    again = client.get("/geo/IT-COM.geojson", headers={"Accept-Encoding": "gzip", "If-None-Match": resp.headers["ETag"]})
    assert again.status_code == 304 and not again.get_data()


def test_plain_when_gzip_is_not_accepted(client, cache_root):
    raw = (cache_root / "boundaries" / "KR.geojson").read_bytes()
    resp = client.get("/geo/KR.geojson", headers={"Accept-Encoding": "identity"})
    assert resp.status_code == 200 and "Content-Encoding" not in resp.headers
    assert resp.get_data() == raw


def test_unknown_or_mapless_data_sets_are_404(client):
    assert client.get("/geo/XX.geojson", headers={"Accept-Encoding": "gzip"}).status_code == 404
    assert client.get("/geo/MA.geojson", headers={"Accept-Encoding": "gzip"}).status_code == 404  # no map


def _map_box(layout, ident):
    stack = [layout]
    while stack:
        c = stack.pop()
        if isinstance(c, (list, tuple)):
            stack.extend(c)
        elif hasattr(c, "to_plotly_json"):
            if getattr(c, "id", None) == ident:
                return c
            stack.append(getattr(c, "children", None))
    raise AssertionError(f"no {ident} in the layout")


def test_the_explorer_names_its_first_countrys_geometry_for_the_prefetch(client, dash_page):
    """assets/map_prewarm.js fetches data-geometry while the page waits for the map's figure."""
    explorer = dash_page("explorer")  # as Dash loaded it: importing dashboard.pages.explorer would register it twice

    box = _map_box(explorer.layout(country="IT-COM,DE"), explorer.ID["map-box"])
    assert box.to_plotly_json()["props"]["data-geometry"] == "/geo/IT-COM.geojson"
    assert client.get("/geo/IT-COM.geojson").status_code == 200
    mapless = _map_box(explorer.layout(country="MA"), explorer.ID["map-box"])
    assert "data-geometry" not in mapless.to_plotly_json()["props"]
