"""The report document: one self-contained HTML file, escaped text, exact values behind every number."""
from __future__ import annotations

import json

from support.reports import external_fetches, parse

from dashboard.reports import Cell, Report, Section, Table, file_name, to_html


def _report(**kw) -> Report:
    table = Table("t", "a <caption>", (("a", "A"), ("b", "B")),
                  ({"a": Cell("1.2 %", 0.0123456789, "x/0/y"), "b": "<script>alert(1)</script>"},),
                  numeric=("a",), command="anonset x --json")
    fig = {"data": [{"type": "scatter", "x": [1, 2], "y": [3, 4]}], "layout": {"title": {"text": "t"}}}
    base = dict(kind="test", title="T & <b>", lead="lead", parameters=(("p", "v<1>"),), headlines=("h",),
                sections=(Section("S", ("para",), fig, "chart", (table,), ("anonset x --json",)),),
                sources=({"what": "w", "publisher": "P", "licence": "CC BY 4.0"},), method="m", papers=("paper",),
                limits=("limit",), commands=("anonset x --json",), version="9.9", manifest_sha256="ab" * 32,
                date="2026-01-01 00:00 UTC", notices=("No record values.",))
    base.update(kw)
    return Report(**base)


def test_one_self_contained_file_with_plotly_once_and_nothing_fetched():
    html = to_html(_report())
    assert html.startswith("<!DOCTYPE html>")
    assert html.count("<script") == 3  # the empty world topojson, plotly.js once, one chart
    assert "cdn.plot.ly" not in html.split("</head>")[1]
    assert external_fetches(html) == []
    assert "@media print" in html and "@page" in html


def test_text_is_escaped_and_values_are_exact():
    html = to_html(_report())
    assert "<script>alert(1)</script>" not in html and "&lt;script&gt;" in html
    assert "T &amp; &lt;b&gt;" in html
    cells = [c for t in parse(html).tables for c in t["cells"] if c["path"]]
    assert [(c["path"], json.loads(c["value"]), c["text"]) for c in cells] == [("x/0/y", 0.0123456789, "1.2 %")]
    t = next(t for t in parse(html).tables if t["name"] == "t")
    assert t["command"] == "anonset x --json"


def test_version_checksum_date_and_notice_are_shown():
    html = to_html(_report())
    assert "AnonSet 9.9" in html and "ab" * 32 in html and "2026-01-01 00:00 UTC" in html
    assert html.index("No record values.") < html.index("What was asked")


def test_an_external_script_is_detected():
    assert external_fetches('<img src="https://example.org/x.png">') != []
    assert external_fetches('<a href="https://example.org/">inert link</a>') == []


def test_file_names_are_safe():
    assert file_name("explorer", "DE,AT/../x") == "anonset-report-explorer-DE-AT-..-x.html"


def test_maps_are_svg_with_the_geometry_inline_wound_for_d3():
    """Opened from disk, MapLibre's worker cannot start (Chrome, file://): a report draws the map as SVG."""
    from dashboard.reports import rewind_for_d3, svg_map

    ccw = [[0, 0], [1, 0], [1, 1], [0, 1], [0, 0]]  # GeoJSON's exterior order: counter-clockwise
    hole_cw = [[0.2, 0.2], [0.2, 0.8], [0.8, 0.8], [0.8, 0.2], [0.2, 0.2]]
    geo = {"type": "FeatureCollection", "features": [
        {"type": "Feature", "id": "a", "geometry": {"type": "Polygon", "coordinates": [ccw, hole_cw]}},
        {"type": "Feature", "id": "b", "geometry": {"type": "MultiPolygon", "coordinates": [[ccw[::-1]]]}}]}
    out = rewind_for_d3(geo)
    assert out["features"][0]["geometry"]["coordinates"] == [ccw[::-1], hole_cw[::-1]]  # exterior cw, hole ccw
    assert out["features"][1]["geometry"]["coordinates"] == [[ccw[::-1]]]  # already clockwise: kept
    assert geo["features"][0]["geometry"]["coordinates"][0] == ccw  # the input is not changed
    fig = {"data": [{"type": "choroplethmap", "geojson": "/geo/XX.geojson", "locations": ["a"], "z": [1.0],
                     "meta": "x", "below": ""}], "layout": {"map": {"style": "white-bg"}, "height": 400}}
    svg = svg_map(fig, "/geo/XX.geojson", geo)
    trace = svg["data"][0]
    assert trace["type"] == "choropleth" and trace["geojson"] == out and "meta" not in trace
    assert "map" not in svg["layout"] and svg["layout"]["geo"]["visible"] is False
    assert "window.PlotlyGeoAssets" in to_html(_report())  # plotly.js reads it instead of fetching world_110m.json
