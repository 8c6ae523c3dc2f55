"""The world page: layout with any query, the statistic switch (a Patch, the link, the command), a click → the
explorer link, the accent-blind table search, and the served outline file."""
from __future__ import annotations

import gzip
import json

import plotly.graph_objects as go
import pytest
from dash.exceptions import PreventUpdate

from dashboard.core.world import map_rows, world_aggregates
from dashboard.views import world as vw


def _walk(component):
    yield component
    children = getattr(component, "children", None)
    if isinstance(children, (list, tuple)):
        for c in children:
            yield from _walk(c)
    elif children is not None and hasattr(children, "children"):
        yield from _walk(children)


def _by_id(page, component_id):
    return next(c for c in _walk(page) if getattr(c, "id", None) == component_id)


def test_layout_accepts_unknown_query_keys_and_reads_the_statistic(dash_page):
    world = dash_page("world")
    page = world.layout(utm_source="x", country="DE")
    assert _by_id(page, vw.ID["stat"]).value == "person_mean"
    fig = _by_id(page, vw.ID["map"]).figure
    go.Figure(fig)  # a valid plotly figure
    trace = fig["data"][0]
    assert trace["type"] == "choroplethmap" and trace["geojson"] == "/geo/world.geojson"
    assert fig["layout"]["map"]["style"] == "white-bg"  # our blank offline style, no tiles
    assert len(trace["locations"]) == len(map_rows(world_aggregates()))
    shared = world.layout(stat="share_below")
    assert _by_id(shared, vw.ID["stat"]).value == "share_below"
    assert _by_id(shared, vw.ID["map"]).figure["data"][0]["colorbar"]["ticksuffix"] == " %"
    bad = world.layout(stat="<script>")
    assert "Unknown statistic" in _by_id(bad, vw.ID["notice"]).children
    assert _by_id(bad, vw.ID["stat"]).value == "person_mean"


def test_hover_says_name_value_grain_and_year_and_districts_are_outlined():
    fig = vw.render_map("person_mean")
    main, outline = fig["data"]
    rows = map_rows(world_aggregates())
    i = list(main["locations"]).index("DE")
    assert main["customdata"][i] == rows.set_index("country").loc["DE", "name"]
    de = rows.set_index("country").loc["DE"]
    assert main["hovertext"][i].startswith(f"person-mean set: {int(de['person_mean']):,} people<br>"
                                           f"{de['districts']:,} Kreise · {de['reference_year']}<br>")
    ng = list(main["locations"]).index("NG")
    assert "national only (UN estimate 2025)" in main["hovertext"][ng]
    assert set(outline["locations"]) == set(rows.loc[~rows["national_model"], "country"])
    assert "NG" not in set(outline["locations"]) and "BR" in set(outline["locations"])


def test_statistic_switch_recolours_by_patch_and_updates_link_and_command(dash_page):
    world = dash_page("world")
    patch, command, query = world.on_stat("share_below")
    ops = {tuple(op["location"]): op["params"]["value"] for op in patch.to_plotly_json()["operations"]}
    assert set(ops) == {("data", 0, "z"), ("data", 0, "hovertext"), ("data", 0, "colorbar")}
    rows = map_rows(world_aggregates())
    assert list(ops[("data", 0, "z")]) == list(100.0 * rows["share_below"])
    assert query == "?stat=share_below"
    assert "anonset world --stat share_below" in str(command)
    _, message, _ = world.on_stat("median")
    assert "unknown statistic" in str(message)


def test_a_click_on_a_country_opens_the_explorer_on_its_data_set(dash_page):
    world = dash_page("world")
    assert world.on_click({"points": [{"location": "KE", "curveNumber": 0}]}) == "/explore?country=KE"
    assert world.on_click({"points": [{"location": "AU"}]}) == "/explore?country=AU"  # not AU-SA2
    for nothing in (None, {}, {"points": []}, {"points": [{"location": "ZZ"}]}, "junk", [1]):
        with pytest.raises(PreventUpdate):
            world.on_click(nothing)


@pytest.mark.parametrize("query,code", [("cote d'ivoire", "CI"), ("Côte", "CI"), ("deutschland", "DE"),
                                        ("Brasil", "BR"), ("ESPAÑA", "ES"), ("japan", "JP")])
def test_table_search_ignores_accents_and_case(dash_page, query, code):
    world = dash_page("world")
    rows, count = world.on_search(query)
    assert code in {r["code"].split("]")[0].lstrip("[") for r in rows}
    assert count.endswith("data sets") and len(rows) < len(vw.table_rows())


def test_table_has_every_data_set_with_an_explorer_link():
    rows = vw.table_rows()
    assert len(rows) == len(world_aggregates())
    ke = next(r for r in rows if r["code"].startswith("[KE-SUB]"))
    assert ke["code"] == "[KE-SUB](/explore?country=KE-SUB)" and ke["on_map"] == "no (KE is)"
    assert vw.search_rows(rows, "") is rows and vw.search_rows(rows, "kenya") == [
        r for r in rows if r["code"].startswith(("[KE]", "[KE-SUB]"))]


def test_world_outline_is_served_gzipped_from_our_own_server(cache_root):
    from dashboard.wsgi import app

    client = app.server.test_client()
    resp = client.get("/geo/world.geojson", headers={"Accept-Encoding": "gzip"})
    assert resp.status_code == 200 and resp.headers["Content-Encoding"] == "gzip"
    collection = json.loads(gzip.decompress(resp.data))
    assert len(collection["features"]) == 235
    assert client.get("/geo/world.geojson", headers={"Accept-Encoding": "gzip", "If-None-Match": resp.headers["ETag"]}
                      ).status_code == 304


def test_the_world_page_in_portuguese(dash_page):
    """Issue 31: the page's words, the switch, the summary, the table's headings, names and words in the language
    asked for (country names from CLDR, found by the search too), numbers its way; the CLI command stays English."""
    from dashboard.core import text

    world = dash_page("world")
    with text.language("pt"):
        page = world.layout(stat="share_below")
        rows = vw.table_rows()
        found = vw.search_rows(rows, "alemanha")
        count = vw.count_text(3, len(rows))
        hover = _by_id(page, vw.ID["map"]).figure["data"][0]["hovertext"]
    texts = [c.children for c in _walk(page) if isinstance(getattr(c, "children", None), str)]
    assert "O mundo em um mapa" in texts and any(t.startswith("Proporção de pessoas") for t in
                                                 [o["label"] for o in _by_id(page, vw.ID["stat"]).options])
    assert any("países, cada um colorido" in t for t in texts)
    table = _by_id(page, vw.ID["table"])
    assert [c["name"] for c in table.columns][:3] == ["País", "Conjunto de dados", "Continente"]
    assert table.locale_format == {"decimal": ",", "group": "."}
    assert [r["code"].split("]")[0] for r in found] == ["[DE"] and found[0]["country"] == "Alemanha"
    assert count == f"3 de {len(rows)} conjuntos de dados"
    assert any(h.startswith("proporção") or "das pessoas em um conjunto menor que" in h for h in hover)
    assert any("abrir DE no explorador" in h for h in hover)
    with text.language("en"):  # the rows are kept per language: English again after Portuguese
        assert next(r for r in vw.table_rows() if r["code"].startswith("[DE]"))["country"] == "Germany"
    assert vw.cli_command("share_below") == "anonset world --stat share_below"
