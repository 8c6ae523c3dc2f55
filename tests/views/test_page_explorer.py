"""The regional explorer without a browser: figure builders, callbacks called directly, messages for bad input."""
from __future__ import annotations

import json
import math
import shlex
from pathlib import Path

import numpy as np
import pandas as pd
import plotly
import plotly.graph_objects as go
import pytest
from dash import html
from support.page_checks import checked_figure, component_text

from dashboard.core import regions as ag
from dashboard.core import regions as age_grain
from dashboard.core.regions import Scenario
from dashboard.figures import explorer as fx
from dashboard.figures import maps
from dashboard.views import explorer as V


@pytest.fixture(scope="module")
def E(dash_page):
    return dash_page("explorer")


def as_json(obj) -> str:
    if hasattr(obj, "to_plotly_json"):
        obj = obj.to_plotly_json()
    return json.dumps(obj, cls=plotly.utils.PlotlyJSONEncoder)


# --------------------------------------------------------------------------- pure figure builders


def test_log_ticks_are_readable_over_any_range():
    vals, text = fx.log_ticks(3.2, 870)
    assert text == ["5", "10", "20", "50", "100", "200", "500"]
    assert vals == [round(math.log10(float(t)), 6) for t in text]
    vals, text = fx.log_ticks(1e-15, 2e3)  # a minimum CAS spans many decades
    assert 2 <= len(vals) <= 8 and text[0] == "10⁻¹⁵"
    assert vals == sorted(set(vals))
    assert fx.log_ticks(0, 10) == ([], [])
    assert fx.tick_label(2e-5) == "2 × 10⁻⁵" and fx.tick_label(5000) == "5k" and fx.tick_label(0.01) == "0.01"


def test_numbers_as_text():
    assert fx.format_cas(12345.9) == "12,345"  # rounded down, thousands separator
    assert fx.format_cas(0.00264) == "0.0026"
    assert fx.format_cas(float("nan")) == "–" and fx.format_cas(None) == "–"
    assert fx.percent(0.1994) == "19.9 %" and fx.percent(0.0053) == "0.53 %" and fx.percent(0) == "0 %"
    assert fx.percent(3e-9) == "less than 0.0001 %"  # never "3.0e-07 %"
    assert fx.format_cas(3.3e-05) == "0.000033" and fx.format_cas(1e-9) == "< 0.000001"


def _frame(values, filled=None, stat_col="person_mean"):
    n = len(values)
    df = pd.DataFrame({
        "district_id": [f"d{i}" for i in range(n)], "district_name": [f"District {i}" for i in range(n)],
        "region_name": ["R"] * n, "filled": filled if filled is not None else [False] * n,
        "population": np.full(n, 1234.7), "share_below": np.linspace(0, 1, n),
    })
    for col in ("person_mean", "cell_mean", "min_cas", "max_cas"):
        df[col] = values
    df.attrs["country"] = "XX"
    return df


def _square(i: int) -> dict:
    return {"type": "Feature", "id": f"d{i}", "properties": {},
            "geometry": {"type": "Polygon", "coordinates": [[[i, 0], [i + 1, 0], [i + 1, 1], [i, 1], [i, 0]]]}}


GEO = {"type": "FeatureCollection", "features": [_square(i) for i in range(4)]}


def test_map_colours_log_for_cas_linear_for_the_share():
    df = _frame([10.0, 1000.0, float("nan"), 0.0])
    c = fx.map_colours(df, "person_mean", 5, country_name="X", district_label="Kreis")
    assert c.z[:2].tolist() == [1.0, 3.0] and np.isnan(c.z[2:]).all() and c.n_missing == 2
    assert (c.zmin, c.zmax) == (1.0, 3.0)
    assert c.colorbar["ticktext"][0] == "10" and c.colorbar["ticktext"][-1] == "1k"
    assert c.title == "X: person mean CAS by Kreis" and "log scale" in c.colorbar["title"]["text"]
    assert c.text[:3].tolist() == ["10", "1,000", "–"]
    assert "person mean CAS: <b>%{text}</b>" in c.hovertemplate
    s = fx.map_colours(df, "share_below", 20)
    assert (s.zmin, s.zmax) == (0.0, 100.0) and s.z[-1] == 100.0
    assert "below 20" in s.title and "linear" in s.colorbar["title"]["text"] and s.text[-1] == "100.0 %"
    assert "share with CAS below 20: " in s.hovertemplate


def test_district_map_references_geometry_by_url():
    """No trace carries polygons: all reference the served file, ``locations`` pick the features."""
    from dashboard.figures.maps import RECOLOUR_IN_PLACE

    df = _frame([10.0, 20.0, 30.0, 40.0], filled=[False, True, False, False])
    fig = go.Figure(fx.district_map("/geo/X.geojson", df, "max", 5, ages_label="18–75", selected="d3", country_name="X"))
    main, filled, selected = fig.data
    assert main.type == "choroplethmap" and main.geojson == filled.geojson == selected.geojson == "/geo/X.geojson"
    assert list(main.locations) == ["d0", "d1", "d2", "d3"]
    assert list(filled.locations) == ["d1"] and filled.visible
    assert list(selected.locations) == ["d3"]
    assert fig.layout.map.style == "white-bg"  # blank style: no tiles, no CDN
    assert "1,234 people aged 18–75" in main.hovertext[0] and "filled" in main.hovertext[1]
    assert "%{customdata}" in main.hovertemplate and "%{hovertext}" in main.hovertemplate
    assert "maximum CAS: <b>%{text}</b>" in main.hovertemplate and main.customdata[2] == "District 2"
    assert "filled" in fig.layout.annotations[0].text
    # every trace may be recoloured in place by the browser (assets/map_recolour.js)
    assert main.meta == filled.meta == selected.meta == RECOLOUR_IN_PLACE
    none = go.Figure(fx.district_map("/geo/X.geojson", _frame([1.0] * 4), "max", 5, ages_label="18–75"))
    assert none.data[1].visible is False and none.data[2].visible is False and not none.layout.annotations
    # the colour bar's room is the same for every statistic: a change of statistic keeps the map's width (a new width
    # made MapLibre clear and redraw its canvas; the bars need 100-114 px in Chromium, checked in the browser tests)
    rooms = {stat: fx.district_map("/geo/X.geojson", df, stat, 5, ages_label="18–75")["layout"]["margin"]["r"]
             for stat in fx.STAT_INFO}
    assert set(rooms.values()) == {fx.COLORBAR_ROOM}, rooms
    # ... and a phone's refit (assets/presenter.js) reads that room from the figure, counted once: one number
    framed = maps.map_layout(maps.view_of({"bounds": [5.9, 47.3, 15.0, 55.1]}, fx.MAP_WIDTH, fx.MAP_HEIGHT), height=580)
    assert framed["meta"][maps.COLORBAR_ROOM_KEY] == fx.COLORBAR_ROOM == maps.COLORBAR_ROOM
    assert framed["meta"][maps.FIT_BOUNDS] == [5.9, 47.3, 15.0, 55.1]


def test_a_map_of_very_many_districts_draws_its_borders_once_zoomed_in():
    """Italy's and Brazil's municipalities: the figure names the zoom, one step past the whole-country view, from which
    the browser draws the districts' borders (assets/map_detail.js); maps of fewer districts draw them from the start."""
    view = maps.view_of({"bounds": [6.6, 35.5, 18.5, 47.1]}, fx.MAP_WIDTH, fx.MAP_HEIGHT)
    many = maps.MANY_DISTRICTS + 1
    df = _frame([float(i % 50 + 1) for i in range(many)])
    fig = fx.district_map("/geo/X.geojson", df, "min", 5, ages_label="18–75", view=view)
    assert fig["layout"]["meta"][maps.BORDERS_FROM_ZOOM_KEY] == round(view["zoom"] + maps.BORDER_ZOOM_STEP, 2)
    assert maps.BORDER_ZOOM_STEP == 1.0
    few = fx.district_map("/geo/X.geojson", df.head(maps.MANY_DISTRICTS), "min", 5, ages_label="18–75", view=view)
    assert maps.BORDERS_FROM_ZOOM_KEY not in few["layout"]["meta"]
    assert maps.borders_from_zoom(many, None) is None  # no frame, no zoom to start from: borders from the start
    # the personal page's and the bucket advisor's maps say it the same way
    ids = [f"d{i}" for i in range(many)]
    mine = maps.choropleth("/geo/X.geojson", ids, np.ones(many), names=ids, view=view)
    assert mine["layout"]["meta"][maps.BORDERS_FROM_ZOOM_KEY] == fig["layout"]["meta"][maps.BORDERS_FROM_ZOOM_KEY]
    from dashboard.figures.buckets import shortfall_map

    advisor = shortfall_map("/geo/X.geojson", ids, ids, np.full(many, 50.0), ids[:3], 0.9, 5, view=view)
    assert advisor["layout"]["meta"][maps.BORDERS_FROM_ZOOM_KEY] == mine["layout"]["meta"][maps.BORDERS_FROM_ZOOM_KEY]
    # the same string in the browser's file
    assets = Path(__file__).resolve().parents[2] / "assets"
    assert f'"{maps.BORDERS_FROM_ZOOM_KEY}"' in (assets / "map_detail.js").read_text()


def test_frame_is_the_main_territory_and_the_view_fits_it():
    """The build frames a country's main territory (not the DOM); maps fit that frame to their own size."""
    import census_loaders as cl
    from census_loaders.geometry import frame
    from dashboard.figures.maps import WORLD_VIEW, view_of

    fr = frame(cl.boundaries("FR"))
    assert fr == cl.dataset_info("FR")["boundaries"]["frame"]  # what the build stored
    assert set(fr["outside"]) == {"FRY10", "FRY20", "FRY30", "FRY40", "FRY50"}  # the overseas departments
    view = view_of(fr, fx.MAP_WIDTH, fx.MAP_HEIGHT - 46)
    assert 45 < view["center"]["lat"] < 48 and 1 < view["center"]["lon"] < 4 and view["zoom"] > 4
    assert view_of(fr, 300, 330)["zoom"] < view["zoom"]  # a smaller map zooms out
    us = cl.dataset_info("US")["boundaries"]["frame"]
    assert {"02013", "15001"} <= set(us["outside"]) and us["bounds"][0] > -125  # Alaska, Hawaii outside
    assert frame({"features": []})["outside"] == [] and view_of(None, 100, 100) == WORLD_VIEW


def test_cdf_figure_overlays_countries_and_labels_the_plausible_share():
    s = Scenario(countries=("DE", "FR"))
    cdfs = ag.cdfs(s)
    fig = go.Figure(fx.cdf_figure(cdfs, {"DE": "Germany", "FR": "France"}))
    assert len(fig.data) == 4 and fig.layout.xaxis.type == "log"
    assert fig.data[0].line.dash == "solid" and fig.data[1].line.dash == "dot"
    assert fig.data[0].line.color != fig.data[2].line.color  # one colour per country
    # shares of the people the model covers (SPEC §1.8): the curve ends at 100 %, the covered share is stated
    assert fig.data[0].y[-1] == pytest.approx(100.0)
    ends = [a for a in fig.layout.annotations if "covered" in a.text]  # one box: its lines never overlap
    assert len(ends) == 1 and ends[0].text.startswith("shares of the covered:<br>")
    for code, name in (("DE", "Germany"), ("FR", "France")):
        assert f"{name}: {fx.percent(cdfs[code].covered_share)}" in ends[0].text
    assert (ends[0].x, ends[0].y, ends[0].xref) == (0, 1, "paper")  # top left: every curve is near 0 there
    assert {a.text for a in fig.layout.annotations} >= {"k = 5", "20", "100"}
    # a phone: no box (the key under the chart lists the shares), the k labels kept, every other tick
    narrow = fig.layout.meta["anonset_narrow"]
    assert [a["text"] for a in narrow["annotations"]] == ["k = 5", "20", "100"]
    assert narrow["xaxis"]["tickangle"] == 0 and len(narrow["xaxis"]["tickvals"]) < len(fig.layout.xaxis.tickvals)


def test_covered_box_takes_a_free_corner_or_none():
    """Top left when the curves stay low there, bottom right when they are high there, else no box."""
    key = [fx.CdfKey("AA", "Aland", "#000", "solid", 0.999)]
    x = np.logspace(-3, 5, 200)
    late = 100 / (1 + (1e3 / x) ** 2)    # rises at 1,000 people: the top left is free
    early = 100 / (1 + (1e-2 / x) ** 2)  # rises at 0.01: the bottom right is free
    box = lambda people, cells: fx.end_box(key, [(x, people, cells)], (-3.0, 5.0))  # noqa: E731
    assert (box(late, late)[0]["x"], box(late, late)[0]["y"]) == (0, 1)
    assert (box(early, early)[0]["x"], box(early, early)[0]["y"]) == (1, 0)
    assert box(late, early) == []  # one curve in each corner


def test_thinned_ticks_keep_the_last_and_stand_level():
    from dashboard.figures.style import on_narrow, thinned_ticks

    vals = [10.0 ** e for e in range(10)] + [8e9]
    thin = thinned_ticks(vals, [str(v) for v in vals])
    assert thin["tickvals"] == [1.0, 100.0, 1e4, 1e6, 1e8, 8e9] and thin["tickangle"] == 0
    assert thinned_ticks(list(range(10)), list("abcdefghij"))["ticktext"] == ["a", "c", "e", "g", "j"]
    layout = on_narrow({"meta": {"other": 1}, "height": 3}, xaxis=thin)
    assert layout["meta"] == {"other": 1, "anonset_narrow": {"xaxis": thin}} and layout["height"] == 3


TWELVE = ("DE", "FR", "IT", "ES", "PL", "NL", "BE", "AT", "CH", "GB", "US", "AU")


def test_cdf_figure_with_twelve_countries_keeps_its_plot_and_distinct_colours():
    s = Scenario(countries=TWELVE, model="paper")
    cdfs = ag.cdfs(s)
    names = {c: c for c in TWELVE}
    fig = fx.cdf_figure(cdfs, names)
    people = [t for t in fig["data"] if t["name"].endswith(": people")]
    styles = {(t["line"]["color"], t["line"]["dash"]) for t in people}
    assert len(styles) == 12 and len({t["line"]["color"] for t in people}) == 12  # no colour repeats
    assert fig["layout"]["height"] == fx.CDF_HEIGHT and fig["layout"]["showlegend"] is False  # key is a list below
    assert [e.code for e in fx.cdf_key(cdfs, names)] == list(TWELVE)
    assert not [a for a in fig["layout"]["annotations"] if "covered" in a["text"]]  # too many: the key lists them


def test_series_style():
    from dashboard.figures.style import QUALITATIVE_WIDE, series_style

    assert len({series_style(i) for i in range(3 * len(QUALITATIVE_WIDE))}) == 3 * len(QUALITATIVE_WIDE)
    assert len({series_style(i)[0] for i in range(len(QUALITATIVE_WIDE))}) == len(QUALITATIVE_WIDE)


def test_distribution_figure():
    d = ag.district_detail(Scenario(), "DE", "11000")
    fig = go.Figure(fx.distribution_figure(d.distribution, "Berlin"))
    assert [t.name for t in fig.data] == ["female", "male"] and fig.layout.barmode == "group"
    assert sum(sum(t.y) for t in fig.data) == pytest.approx(d.distribution["people"].sum())


# --------------------------------------------------------------------------- links and the form


def test_link_round_trip_through_the_form(cache_root):
    s = Scenario.from_query({"country": "US,DE", "sex": "female", "ages": "20-65", "height_width": "10",
                             "aux": "Gadget=18-30:10,30+:5", "k": "20", "stat": "share_below", "bmi": "16-32"})
    v = V.form_values(s)
    again = V.scenario_from_form(v["countries"], v["sex"], v["ages"], v["body"], v["height-width"],
                                 v["weight-width"], v["bmi"], v["aux"], v["user-name"], v["user-percent"], v["k"],
                                 v["stat"])
    assert again == s and again.to_query() == s.to_query()


@pytest.mark.parametrize(
    "query, message",
    [
        ({"country": "XX"}, "Unknown country or data set 'XX'"),
        ({"country": "DE,Germny"}, "'GERMNY' in the link (closest: DE (Germany))"),
        ({"country": ""}, "The link chooses no country"),
        ({"stat": "median"}, "unknown statistic 'median'"),
        ({"sex": ""}, "choose at least one sex"),
        ({"ages": "0-150"}, "outside the census data"),
        ({"ages": "75-18"}, "reversed or empty"),
        ({"k": "0"}, "k must be a positive number"),
        ({"k": "-3"}, "k must be a positive number"),
        ({"aux": "us_flo"}, "describes US, not DE"),
        ({"district": "nope"}, "Unknown district 'nope'"),
        ({"table_ages": "10-300"}, "The country tables use 18–75"),
    ],
)
def test_bad_links_are_reported_and_repaired(E, query, message):
    link = V.scenario_from_link(query)
    assert any(message in n for n in link.notices), link.notices
    page = E.layout(**query, utm_source="x")  # unknown keys are ignored
    assert message in component_text(page)
    assert "Traceback" not in component_text(page)


def test_good_link_keeps_everything(E):
    link = V.scenario_from_link({"country": ["DE", "FR"], "stat": "min", "k": "20", "district": "11000",
                                 "table_ages": "15-85", "other": "1"})
    assert link.notices == ()
    assert link.scenario.countries == ("DE", "FR") and link.scenario.stat == "min" and link.scenario.k == 20
    assert link.district == "11000" and link.table_ages == (15, 85)
    store = E.layout(country="DE,FR", stat="min", district="11000")
    assert "Unknown" not in component_text(store)


def _form(E, **kw):
    args = dict(countries=["DE"], sexes=["female", "male"], ages="18-75", body=["body"], height_width=5,
                weight_width=5, bmi="17-30", aux=[], user_name="", user_percent="", k=5, stat="person_mean")
    args.update(kw)
    return E.on_form(*args.values())


@pytest.mark.parametrize(
    "change, message",
    [
        (dict(countries=[]), "choose at least one country"),
        (dict(sexes=[]), "Sex: choose female, male or both"),
        (dict(ages=""), "Ages: give the study population"),
        (dict(ages="0-150"), "outside the census data"),
        (dict(ages="abc"), "is not a range"),
        (dict(k=0), "k must be a positive number"),
        (dict(k=-2), "k must be a positive number"),
        (dict(k=None), "k: please enter a number"),
        (dict(user_percent="150"), "between 0 and 100"),
        (dict(user_percent="18-30:x"), "is not a number"),
        (dict(bmi="30-17"), "reversed or empty"),
        (dict(countries=["DE", "US"], aux=["de_wearables"]), "describes DE, not US"),
        (dict(stat="median"), "unknown statistic"),
    ],
)
def test_bad_form_input_gives_a_message_and_marks_the_views_stale(E, change, message):
    out = _form(E, **change)
    assert out[0] is E.no_update and out[2] is E.no_update
    error = out[1].children[0]
    assert isinstance(error, html.Div) and error.className == "error" and message in error.children
    assert "last valid scenario" in component_text(out[1]) and out[3] == "explorer-results stale"
    assert out[4] is True  # the report button is disabled: no report of stale numbers


def test_form_writes_the_scenario_and_the_commands(E):
    store, message, cli_map, results, no_report = _form(E, countries=["US", "DE"], sexes=["female"], stat="min",
                                                        k=20, user_name="Runs marathons", user_percent="2.5")
    assert message is None and results == "explorer-results" and no_report is False
    assert store == {"country": "US,DE", "sex": "female", "aux": "Runs marathons=2.5", "k": "20", "stat": "min"}
    assert cli_map.startswith("anonset districts --country US ") and "--country DE" not in cli_map
    assert "--aux-percent 'Runs marathons=2.5'" in cli_map and "--stat min --k 20" in cli_map
    cli_cdf = E.on_cdf(store, "5", "drawn", None)[6]  # the readouts' command comes with the readouts (their age grain)
    assert cli_cdf.startswith("anonset cdf --country US --country DE") and cli_cdf.endswith("--at 5,20,100 --grain 5 --below")


def test_presets_follow_the_countries(E):
    assert [o["value"] for o in V.preset_options(["DE"])] == ["de_wearables"]
    assert [o["value"] for o in V.preset_options(["US-ZCTA"])] == ["us_flo"]
    assert V.preset_options(["DE", "US"]) == []
    options, value = E.on_countries(["US"], ["de_wearables"])
    assert value == [] and [o["value"] for o in options] == ["us_flo"]


# --------------------------------------------------------------------------- the map


def _q(**kw):
    return Scenario.from_query({"country": "DE", **kw}).to_query()


def test_map_sends_geometry_once_then_patches_colours_only(E):
    fig, loaded, style, note, _legend = E.on_map(_q(), None, None)
    assert style == {} and note is None and loaded["country"] == "DE" and loaded["map"]
    full = as_json(fig)
    assert '"geojson": "/geo/DE.geojson"' in full and '"coordinates"' not in full  # geometry by URL
    patch, loaded2, *_ = E.on_map(_q(stat="min"), None, loaded)
    assert type(patch).__name__ == "Patch"
    body = as_json(patch)
    assert "coordinates" not in body and "geojson" not in body
    import census_loaders as cl

    with_geometry = len(full) + len(json.dumps(cl.boundaries("DE")))  # what the browser receives in all
    assert len(body) < 0.1 * with_geometry
    ops = {tuple(op["location"]): op["params"]["value"] for op in patch.to_plotly_json()["operations"]}
    assert ("data", 0, "hovertext") not in ops  # the population did not change
    z = ops[("data", 0, "z")]
    mins = ag.district_stat(Scenario(stat="min"), "DE").to_numpy()
    assert z == pytest.approx(np.round(np.log10(mins), 4), nan_ok=True)
    assert "minimum non-zero CAS" in ops[("layout", "title", "text")]
    assert "minimum non-zero CAS: " in ops[("data", 0, "hovertemplate")]
    assert ops[("data", 0, "colorbar")]["ticktext"]
    # nothing changed → nothing sent; k alone does not recolour a CAS statistic
    assert E.on_map(_q(stat="min"), None, loaded2)[0] is E.no_update
    assert E.on_map(_q(stat="min", k="50"), None, loaded2)[0] is E.no_update


def test_share_below_k_recolours_when_k_changes(E):
    _, loaded, *_ = E.on_map(_q(stat="share_below"), None, None)
    patch, _, *_ = E.on_map(_q(stat="share_below", k="100"), None, loaded)
    ops = {tuple(op["location"]): op["params"]["value"] for op in patch.to_plotly_json()["operations"]}
    share = ag.district_stat(Scenario(stat="share_below", k=100), "DE").to_numpy()
    assert ops[("data", 0, "z")] == pytest.approx(np.round(100 * share, 3), nan_ok=True)
    assert ops[("data", 0, "zmax")] == 100.0


def test_scenario_change_patches_population_hover(E):
    _, loaded, *_ = E.on_map(_q(), None, None)
    patch, *_ = E.on_map(_q(sex="female", ages="20-40"), None, loaded)
    ops = {tuple(op["location"]): op["params"]["value"] for op in patch.to_plotly_json()["operations"]}
    assert ops[("data", 0, "hovertext")][0].endswith("people aged 20–40") and "coordinates" not in as_json(patch)


def test_selecting_a_district_sends_only_its_outline(E):
    _, loaded, *_ = E.on_map(_q(), None, None)
    patch, loaded2, *_ = E.on_map(_q(), {"country": "DE", "district": "11000"}, loaded)
    ops = {tuple(op["location"]): op["params"]["value"] for op in patch.to_plotly_json()["operations"]}
    assert ops[("data", 2, "locations")] == ["11000"] and ("data", 2, "geojson") not in ops
    assert ops[("data", 2, "visible")] is True and ("data", 0, "z") not in ops
    assert loaded2["selected"] == "11000"
    # a selection from another country is ignored
    assert E.on_map(_q(), {"country": "US", "district": "06037"}, loaded)[0] is E.no_update


def test_new_country_sends_new_geometry(E):
    _, loaded, *_ = E.on_map(_q(), None, None)
    fig, loaded2, *_ = E.on_map(Scenario(countries=("FR",)).to_query(), None, loaded)
    fig = go.Figure(fig)
    assert loaded2["country"] == "FR"
    assert fig.data[0].geojson == "/geo/FR.geojson" and "FR101" in set(fig.data[0].locations)


@pytest.mark.parametrize("code", ["AU", "AU-SA2", "US-ZCTA"])
def test_data_sets_without_boundaries_show_the_note_and_the_table(E, code):
    import census_loaders as cl

    q = Scenario(countries=(code,)).to_query()
    fig, loaded, style, note, _legend = E.on_map(q, None, None)
    assert fig == {} and style == {"display": "none"} and not loaded["map"]
    assert cl.dataset_info(code)["boundary_note"] in component_text(note)
    data, columns, box, toggle = E.on_district_table(q, [])
    assert box == {} and toggle == {"display": "none"}
    assert len(data) == ag.district_statistics(Scenario(countries=(code,)), code).shape[0]
    assert {c["id"] for c in columns} >= {"district", "population", "person_mean", "share_below"}
    assert all(r["id"] == r["district_id"] for r in data)


def test_district_table_on_request_for_mapped_countries(E):
    q = _q(stat="max")
    assert E.on_district_table(q, [])[0] == []
    data, *_ = E.on_district_table(q, ["show"])
    df = ag.district_statistics(Scenario(), "DE").set_index("district_id")
    berlin = next(r for r in data if r["id"] == "11000")
    assert berlin["population"] == math.floor(df.loc["11000", "population"])
    assert berlin["max_cas"] == math.floor(df.loc["11000", "max_cas"])
    assert berlin["share_below"] == pytest.approx(100 * df.loc["11000", "share_below"], abs=1e-3)


def test_map_legend_names_the_outlines_and_the_range(cache_root):
    legend = component_text(V.map_legend(Scenario(stat="max")))
    assert "selected Kreis" in legend and "filled (estimated) districts: none in Germany" in legend
    df = ag.district_statistics(Scenario(), "DE")
    top = df.loc[df["max_cas"].idxmax()]
    assert f"to {fx.format_cas(top['max_cas'])} ({top['district_name']})" in legend
    us = component_text(V.map_legend(Scenario(countries=("US",))))
    assert "lie outside the frame" in us and "zoom out" in us
    share = component_text(V.map_legend(Scenario(stat="share_below", k=20)))
    assert "share with CAS below 20: from " in share and " %" in share


def test_map_legend_names_the_districts_without_an_outline(cache_root):
    """Chile's Antártica has no polygon: the legend says it is left off the map but counted (issue 26)."""
    chile = component_text(V.map_legend(Scenario(countries=("CL",))))
    assert "not on the map (no outline in the boundary file), but in every count and in the district table: " \
           "1 comuna — Antartica" in chile
    assert "not on the map" not in component_text(V.map_legend(Scenario()))  # Germany: every Kreis is drawn


def test_notes_on_the_data_start_with_the_data_sets_own(cache_root):
    text = component_text(V.scenario_notes(Scenario(countries=("IN", "JP"))))
    assert "India — census 2011: Old data: Census of India 2011" in text
    assert "Japan — census 2020: Age unknown: 2,931,838 people" in text


def test_the_data_sets_own_notes_are_said_in_the_pages_language(cache_root):
    """Issue 31: in French the data sets' notes are French — numbers with French digits, no English quotation."""
    from dashboard.core.text import language

    with language("fr"):
        notes = V.scenario_notes(Scenario(countries=("IN", "JP")))
    raw = json.dumps(notes, cls=plotly.utils.PlotlyJSONEncoder, ensure_ascii=False)
    assert "Inde — recensement 2011: Données anciennes : recensement de l’Inde de 2011" in component_text(notes)
    assert "Âge inconnu : 2\u202f931\u202f838 personnes (2,3\u00a0%" in raw  # French digits and percent sign
    assert "Old data" not in raw and "Age unknown" not in raw and "2,931,838" not in raw
    items = notes[0].children[1].children
    own = [li for li in items if "Données anciennes" in component_text(li) or "Âge inconnu" in component_text(li)]
    assert len(own) == 2 and not [li for li in own if "lang='en'" in str(li)]  # not quoted as English any more


def test_graphs_keep_the_png_camera_but_not_the_cloud_button(cache_root):
    assert "toImage" not in fx.GRAPH_CONFIG["modeBarButtonsToRemove"]
    assert "sendChartToCloud" in fx.GRAPH_CONFIG["modeBarButtonsToRemove"] and not fx.GRAPH_CONFIG["showSendToCloud"]


# --------------------------------------------------------------------------- selection and detail


def test_detail_of_a_district(E):
    panel = E.on_detail({"country": "DE", "district": "11000"}, _q())
    text = component_text(panel)
    d = ag.district_detail(Scenario(), "DE", "11000")
    assert "Berlin (11000)" in text and fx.format_cas(d.stats["person_mean"]) in text
    assert "Smallest non-zero cells" in text and "Largest cells" in text
    assert fx.format_cas(d.smallest["cas"].iloc[0]) in text and fx.format_cas(d.largest["cas"].iloc[0]) in text
    links = [c for c in _walk(panel) if type(c).__name__ == "Link"]
    assert links and links[0].href == "/?country=DE#district=11000"
    graphs = [c for c in _walk(panel) if type(c).__name__ == "Graph"]
    assert graphs and [t["name"] for t in graphs[0].figure["data"]] == ["female", "male"]
    hint = E.on_detail(None, _q())
    assert "Click a district" in component_text(hint)
    bad = E.on_detail({"country": "DE", "district": "99999"}, _q())
    assert bad.className == "error" and "99999" in bad.children


def _walk(c):
    yield c
    children = getattr(c, "children", None)
    for child in children if isinstance(children, (list, tuple)) else [children]:
        if child is not None and not isinstance(child, str):
            yield from _walk(child)


# --------------------------------------------------------------------------- distributions


def test_cdf_callback_readouts_and_note(E):
    q = Scenario(countries=("DE", "US")).to_query()
    fig, readouts, note, legend, key, cdf_q, command, busy = E.on_cdf(q, "census", "drawn", None)
    assert command.endswith("--at 5,20,100 --below") and "--country DE" in command  # census: the CLI default
    assert len(fig["data"]) == 4 and cdf_q == {"cdf_grain": "census"} and busy == "false"
    legend_text = component_text(legend)
    assert "Germany" in legend_text and "dotted: share of combinations" in legend_text
    shares = ag.share_below(Scenario(countries=("DE", "US")), (5, 20, 100))
    text = component_text(readouts)
    for code in ("DE", "US"):
        for k in (5, 20, 100):
            assert f"{fx.percent(shares[code][k])} of people have an anonymity set below {k}" in text
    # SPEC §1.8: shares of the people the model covers, the covered share stated (v2 by default)
    assert "Body model v2" in note and "of the people the model covers" in note and "99.9 %" in note
    paper = E.on_cdf(Scenario(countries=("DE",), model="paper").to_query(), "census", "drawn", None)[2]
    assert "Paper model" in paper and "plausible cells" in paper and "17–30" in paper
    assert "Notes on the data" in component_text(E.on_notes(q))
    # the statistic or k alone changes nothing here
    again = E.on_cdf(Scenario(countries=("DE", "US"), stat="min", k=50).to_query(), "census", "drawn", key)
    assert all(o is E.no_update for o in again)
    no_body = E.on_cdf(Scenario(include_body=False).to_query(), "census", "drawn", key)
    assert "reach 100 %" in no_body[2]


def test_the_sections_below_the_map_wait_for_its_first_draw(E):
    """Issue 26: the distributions and the country tables are computed and sent only once the browser says the map
    has drawn (or that there is none); the notes above the map come at once."""
    q = Scenario(countries=("DE",)).to_query()
    assert all(o is E.no_update for o in E.on_cdf(q, "census", None, None))
    assert all(o is E.no_update for o in E.on_table("18-75", "census", None))
    for said in ("drawn", "no map", "waited"):  # assets/explorer.js's three answers
        cdf, table = E.on_cdf(q, "census", said, None), E.on_table("18-75", "census", said)
        assert cdf[0]["data"] and table[0]
        assert cdf[-1] == table[-1] == "false"  # the sections stop saying they are busy as their content comes
    # a section says it is busy until then (the browser tests' settle waits on it, support/browser.py DRAWN)
    layout = E.layout()
    for section in ("cdf-section", "tables-section"):
        assert _find(layout, V.ID[section]).to_plotly_json()["props"]["aria-busy"] == "true"
    assert "Notes on the data" in component_text(E.on_notes(q))


def test_cdfs_compare_countries_on_whole_five_year_groups_by_default(E):
    """The UK counts single years of age, the others 5-year groups: the default compares every country on whole
    5-year groups (the core's numbers, the grain said), single years stay one click away."""
    s = Scenario(countries=("GB", "DE"))
    fig, readouts, note, _legend, key, cdf_q, command, _busy = E.on_cdf(s.to_query(), "5", "drawn", None)
    assert command.endswith("--grain 5 --below")
    assert cdf_q is None and key["grain"] == "5"  # the default grain stays out of the link
    assert "whole 5-year age groups (20–75" in note and "single years are summed" in note
    shares = age_grain.comparable_share_below(s, (5, 20, 100))
    text = component_text(readouts)
    for code in ("GB", "DE"):
        for k in (5, 20, 100):
            assert f"{fx.percent(shares[code][k])} of people have an anonymity set below {k}" in text
    census = ag.share_below(s, (5, 20, 100))
    # on single years the UK looks five times more exposed; on one grain it is close to Germany
    assert census["GB"][5] > 3 * census["DE"][5]
    assert shares["GB"][5] < 2 * shares["DE"][5]
    # switching the grain recomputes (the key holds it) and says so
    other = E.on_cdf(s.to_query(), "census", "drawn", key)
    assert other[4]["grain"] == "census" and "Not comparable on age" in other[2]
    assert E.on_cdf(s.to_query(), "nonsense", "drawn", None)[4]["grain"] == "5"


# --------------------------------------------------------------------------- country tables


@pytest.mark.slow  # over 5 s on this machine: in the full suite, not the fast lane
def test_country_tables_for_every_data_set(E):
    import census_loaders as cl

    rows, message, cli, query, note, busy = E.on_table("18-75", "census", "drawn")
    assert message is None and query == {"table_grain": "census"} and busy == "false"
    assert cli == "anonset country-table --ages 18-75 --grain census" and "not comparable" in note
    assert len(rows) == 2 * len(cl.countries())
    ref = ag.country_table(["DE"]).set_index("sex")
    de_f = next(r for r in rows if r["id"] == "DE-female")
    assert de_f["min_cas"] == math.floor(ref.loc["female", "min_cas"])
    assert de_f["cell_mean"] == math.floor(ref.loc["female", "cell_mean"])
    assert de_f["male_female_ratio"] == pytest.approx(ref.loc["female", "male_female_ratio"], abs=1e-3)
    assert de_f["share_deviating"] == pytest.approx(100 * ref.loc["female", "share_deviating"], abs=0.05)
    assert de_f["mean_middle_half_pct"] == pytest.approx(ref.loc["female", "mean_middle_half_pct"], abs=0.05)
    assert {c["id"] for c in V.COUNTRY_COLUMNS} == set(de_f) - {"id"}
    # the screen shows a subset that fits a projector; the CSV has every column
    assert {c["id"] for c in V.COUNTRY_SCREEN_COLUMNS} < {c["id"] for c in V.COUNTRY_COLUMNS}
    rows85, _, cli85, query85, _, _ = E.on_table("15-85", "census", "drawn")
    assert query85 == {"table_ages": "15-85", "table_grain": "census"} and "--ages 15-85" in cli85 and rows85 != rows
    for bad, message in (("", "empty"), ("10-300", "outside the census data"), ("x", "not a range")):
        out = E.on_table(bad, "5", "drawn")
        assert out[0] == [] and message in out[1].children and out[-1] == "false"  # no stale table under the error


def test_country_tables_compare_whole_five_year_groups_by_default(E):
    from dashboard.core import regions as age_grain

    rows, message, cli, query, note, _busy = E.on_table("18-75", "5", "drawn")
    assert message is None and query is None and cli.endswith("--ages 18-75 --grain 5")
    assert "whole 5-year age groups inside the chosen ages (20–75)" in note
    gb = next(r for r in rows if r["id"] == "GB-female")
    de = next(r for r in rows if r["id"] == "DE-female")
    us = next(r for r in rows if r["id"] == "US-female")
    assert "(of" not in "".join(str(r["min_age"]) for r in rows)  # no trimmed group anywhere
    whole = ("DE", "GB", "US", "AU", "FR", "IT")  # census counts of people (some data sets publish estimates)
    assert all(float(r["min_cas"]).is_integer() for r in rows if r["country"] in whole)  # whole people
    assert us["min_cas"] >= 1
    assert 0.5 < gb["cell_mean"] / de["cell_mean"] < 1.5  # the UK's single years summed into 5-year groups
    assert gb["population"] == pytest.approx(age_grain.comparable_country_table(["GB"], (20, 75), "census")
                                             .set_index("sex").loc["female", "population"], abs=1)


@pytest.mark.slow  # the census-grain table of every data set: 18 s on this machine (the default one is stored)
def test_single_years_summed_into_five_year_groups_compare_with_germany(E):
    """On each data set's own groups the UK's single-year cells are far smaller than Germany's; summed into
    5-year groups (the default) its cell mean is of the same order."""
    rows = {r["id"]: r for r in E.on_table("18-75", "5", "drawn")[0]}
    census = {r["id"]: r for r in E.on_table("18-75", "census", "drawn")[0]}
    assert census["GB-female"]["cell_mean"] < census["DE-female"]["cell_mean"] / 4
    assert 0.5 < rows["GB-female"]["cell_mean"] / rows["DE-female"]["cell_mean"] < 1.5


def test_reproduce_commands_give_the_page_numbers(cache_root, capsys):
    from dashboard.cli import main

    s = Scenario(countries=("DE",), stat="share_below", k=20, sexes=("female",))
    cli = V.cli_snippets(s)
    assert main([*shlex.split(cli["map"])[1:], "--json"]) == 0
    out = json.loads(capsys.readouterr().out)
    page = ag.district_stat(s, "DE")
    got = {r["district_id"]: r["share_below"] for r in out["districts"]}
    assert got["11000"] == pytest.approx(page["11000"])
    assert main([*shlex.split(cli["table"])[1:], "--json", "--country", "DE"]) == 0
    table = json.loads(capsys.readouterr().out)
    assert table["rows"][0]["min_cas"] == pytest.approx(age_grain.comparable_country_table(["DE"])["min_cas"].iloc[0])  # the page's grain


def test_callbacks_never_show_a_traceback(E, monkeypatch, caplog):

    def boom(*a, **k):
        raise RuntimeError("secret detail")

    monkeypatch.setattr(V.regions, "district_detail", boom)
    V._DETAILS.clear()  # the panel is memoised: make the next one be computed
    out = E.on_detail({"country": "DE", "district": "11000"}, _q())
    assert out.className == "error" and "secret" not in component_text(out) and "could not be computed" in component_text(out)
    assert "RuntimeError" in caplog.text and "secret detail" not in caplog.text


def test_figures_are_plain_dicts_with_array_columns():
    """Builders return plain dicts (no go.Figure: validation and its template cost more than the data) whose
    long numeric columns are numpy arrays (serialised in one step); each is a valid plotly figure."""
    df = _frame([10.0, 20.0, float("nan"), 40.0], filled=[False, True, False, False])
    cdfs = ag.cdfs(Scenario(countries=("DE",)))
    figures = {
        "map": fx.district_map("/geo/X.geojson", df, "person_mean", 5, ages_label="18–75"),
        "cdf": fx.cdf_figure(cdfs, {"DE": "Germany"}),
        "distribution": fx.distribution_figure(ag.district_detail(Scenario(), "DE", "11000").distribution),
    }
    for name, fig in figures.items():
        assert type(fig) is dict and set(fig) == {"data", "layout"}, name
        checked_figure(fig)
        assert "template" not in fig["layout"]
    assert isinstance(figures["map"]["data"][0]["z"], np.ndarray) and np.isnan(figures["map"]["data"][0]["z"][2])
    assert all(isinstance(t["x"], np.ndarray) and isinstance(t["y"], np.ndarray) for t in figures["cdf"]["data"])
    assert all(isinstance(t["y"], np.ndarray) for t in figures["distribution"]["data"])
    main = figures["map"]["data"][0]
    assert all(isinstance(main[key], np.ndarray) and main[key].dtype.kind == "U"
               for key in ("locations", "customdata", "hovertext", "text"))


def test_memoised_views_are_shared_and_keyed_on_what_they_show(cache_root):
    s = Scenario(countries=("DE",))
    assert V.detail_panel(s, "11000") is V.detail_panel(s, "11000")
    assert V.detail_panel(Scenario(countries=("DE",), k=50), "11000") is not V.detail_panel(s, "11000")
    assert V.district_rows(s, "DE") is V.district_rows(Scenario(countries=("DE",), stat="min"), "DE")
    assert V.map_colours(s) is not V.map_colours(Scenario(countries=("DE",), stat="min"))
    assert V.map_colours(Scenario(stat="min", k=5)) is V.map_colours(Scenario(stat="min", k=50))  # k not shown
    assert V.map_colours(Scenario(stat="share_below", k=5)) is not V.map_colours(Scenario(stat="share_below", k=50))


def test_warm_precomputes_what_every_visit_opens_with(cache_root):
    V._TABLES.clear()
    V._COLOURS.clear()
    V.warm()
    assert V.country_table_rows(V.DEFAULT_TABLE_AGES) is V.country_table_rows(list(V.DEFAULT_TABLE_AGES))
    assert len(V._COLOURS._data) == 1  # the default scenario's map


@pytest.mark.parametrize("chosen", [5, [[1], {"a": 1}], "x", None, [None, 3.5]])
def test_presets_callback_takes_malformed_choices_as_none(E, chosen):
    options, kept = E.on_countries(["DE"], chosen)
    assert options and all(isinstance(o["value"], str) for o in options)
    assert kept == [] or kept is E.no_update
    options2, _ = E.on_countries([["DE"], 7], ["de_wearables"])
    assert all(isinstance(o["value"], str) for o in options2)


def test_forms_strings_is_a_list_of_strings_or_nothing():
    from dashboard import forms

    assert forms.strings(["DE", "FR"]) == ["DE", "FR"] and forms.strings([]) == []
    assert forms.strings("DE") == [] and forms.strings(None) == [] and forms.strings(["DE", 3]) == []


def test_country_options_come_from_the_catalog():
    import census_loaders as cl
    from dashboard.core import country as catalog

    options = catalog.country_options(cl.manifest())
    choosable = [o for o in options if not o.get("disabled")]
    assert sorted(o["value"] for o in choosable) == cl.countries()
    de = next(o for o in choosable if o["value"] == "DE")
    assert de["label"] == "Germany (DE) · Deutschland" and de["search"] == "europe"  # the rest is in the label


def test_self_report_correction_is_a_scenario_setting():
    """sr=1 (v2 only) reaches the model: a link round-trips it, paper ignores it, and the numbers change."""
    from dashboard.core import regions as ag
    from dashboard.core.errors import InputError
    from dashboard.core.regions import Scenario
    from dashboard.views.explorer import form_values, scenario_from_form

    s = Scenario.from_query({"country": "DE", "sr": "1"})
    assert s.self_report and s.to_query()["sr"] == "1" and "--self-report-correction" in s.to_cli("cdf")
    assert Scenario.from_query(s.to_query()) == s
    assert not Scenario.from_query({"country": "DE", "sr": "1", "model": "paper"}).self_report
    with pytest.raises(InputError, match="sr 'maybe'"):
        Scenario.from_query({"country": "DE", "sr": "maybe"})
    plain = ag.district_statistics(Scenario(countries=("DE",)), "DE")
    corrected = ag.district_statistics(s, "DE")
    assert not np.allclose(plain["person_mean"], corrected["person_mean"])
    f = scenario_from_form(["DE"], ["female", "male"], "18-75", ["body"], 5, 5, "17-30", [], "", "", 5,
                           "person_mean", "v2", ["on"])
    assert f.self_report and form_values(f)["self-report"] == ["on"]


@pytest.mark.parametrize("change, table_ages, message", [
    (dict(k=0), "18-75", "k must be a positive number"),
    (dict(countries=[]), "18-75", "choose at least one country"),
    ({}, "abc", "is not a range"),
])
def test_the_report_is_refused_with_the_pages_message(E, change, table_ages, message):
    """A bad setting: the form greys the views and disables the button (no store of it to ask a report of); the
    route refuses the same setting in a link (GET /_reports/explorer, tests/server/test_report_routes.py)."""
    from dashboard.wsgi import app

    args = dict(countries=["MT"], sexes=["female", "male"], ages="18-75", body=["body"], height_width=5,
                weight_width=5, bmi="17-30", aux=[], user_name="", user_percent="", k=5, stat="person_mean",
                model="v2", self_report=[])
    args.update(change)
    query = {"country": ",".join(args["countries"]), "k": str(args["k"]), "table_ages": table_ages}
    if change:
        store, box, _cli, results, disabled = E.on_form(*args.values())
        assert store is E.no_update and disabled is True and message in component_text(box)
    r = app.server.test_client().get("/_reports/explorer", query_string=query)
    assert r.status_code == 400 and r.get_data(as_text=True).startswith("No report: ") and message in r.get_data(
        as_text=True)


def test_the_report_is_of_the_form_as_it_is_now(E):
    """The form → the scenario store (on_form) → the button's GET /_reports/explorer with that store's query."""
    from dashboard.wsgi import app

    args = dict(countries=["MT"], sexes=["female"], ages="30-50", body=["body"], height_width=10, weight_width=5,
                bmi="17-30", aux=[], user_name="", user_percent="", k=7, stat="share_below", model="v2",
                self_report=[])
    store = E.on_form(*args.values())[0]
    r = app.server.test_client().get("/_reports/explorer", query_string={**store, "cdf_grain": "5",
                                                                         "table_ages": "18-75", "table_grain": "5"})
    assert r.status_code == 200
    assert r.headers["Content-Disposition"] == 'attachment; filename="anonset-report-explorer-MT.html"'
    html_text = r.get_data(as_text=True)
    assert "anonset districts --country MT --ages 30-50 --sex female --height-width 10" in html_text
    assert "share of people with CAS below 7" in html_text


def test_the_report_button_fetches_the_route_in_the_browser(E):
    """No server callback makes the report any more (issue 29): a clientside one fetches GET /_reports/explorer with
    the scenario store, the grains and the table ages (the button names them), never the selected district."""
    from dashboard.wsgi import app

    deps = app.server.test_client().get("/_dash-dependencies").get_json()
    report = [d for d in deps if any(i["id"] == V.ID["report"] for i in d["inputs"])]
    assert len(report) == 1 and report[0]["clientside_function"]["function_name"] == "downloadReport"
    assert report[0]["output"] == f'{V.ID["report-message"]}.children'
    assert [(s["id"], s["property"]) for s in report[0]["state"]] == [(c, p) for c, p, _n in V.REPORT_STATES]
    assert V.REPORT_PARAMS == "*,cdf_grain,table_ages,table_grain" and "district" not in V.REPORT_PARAMS
    button = _find(E.layout(country="MT"), V.ID["report"])
    assert button.children == "Download report" and button.className == "button secondary"
    attrs = button.to_plotly_json()["props"]
    assert attrs["data-report"] == "/_reports/explorer" and attrs["data-params"] == V.REPORT_PARAMS
    assert attrs["data-message"] == V.ID["report-message"] and attrs["data-preparing"] == "Preparing the report…"


def _find(component, component_id):
    if getattr(component, "id", None) == component_id:
        return component
    children = getattr(component, "children", None)
    for child in children if isinstance(children, (list, tuple)) else [children]:
        if hasattr(child, "to_plotly_json"):
            found = _find(child, component_id)
            if found is not None:
                return found
    return None


def test_close_k_labels_go_on_separate_rows_and_titles_fit_a_phone():
    """Issue 28: at 390 px the CDF's labels read "k = 520 100"; a long map title was cut off."""
    from dashboard.figures.explorer import K_LABEL_DECADES, k_label_rows
    from dashboard.figures.style import TITLE_CHARS, wrap_title

    assert k_label_rows((5, 20, 100)) == [0, 1, 0]
    assert k_label_rows((1, 1000)) == [0, 0]
    for ks in [(5, 20, 100), (2, 3, 5, 10, 11)]:
        rows = k_label_rows(ks)
        for i in range(len(ks)):
            for j in range(i):
                if rows[i] == rows[j]:
                    assert abs(math.log10(ks[i]) - math.log10(ks[j])) >= K_LABEL_DECADES
    text, lines = wrap_title("United Kingdom: minimum non-zero CAS by district (people, log scale)")
    assert lines == 2 and all(len(line) <= TITLE_CHARS for line in text.split("<br>"))
    assert text.replace("<br>", " ") == "United Kingdom: minimum non-zero CAS by district (people, log scale)"
    assert wrap_title("short") == ("short", 1)


def test_table_csv_has_one_header_row_and_a_descriptive_name():
    """Issue 28: both explorer exports were "Data.csv"; the country table's CSV had two header rows."""
    import csv
    import io

    from dashboard.views.explorer import COUNTRY_COLUMNS, export_name, table_csv

    rows = [{"country": "DE", "name": "Germany", "min_cas": 3.5, "min_where": "Berlin, Stadt"}]
    text = table_csv(rows, COUNTRY_COLUMNS)
    got = list(csv.reader(io.StringIO(text)))
    assert len(got) == 2 and len(got[0]) == len(COUNTRY_COLUMNS)
    assert got[0][:2] == ["data set: code", "data set: country"] and "minimum non-zero CAS: district" in got[0]
    assert got[1][0] == "DE" and got[1][got[0].index("minimum non-zero CAS: district")] == "Berlin, Stadt"
    assert export_name("districts", "DE", "mean") == "anonset-districts-DE-mean.csv"
    assert export_name("country-tables", "18-75", "census") == "anonset-country-tables-18-75-census.csv"
    assert export_name("districts", "DE", "mean") != export_name("country-tables", "18-75", "census")
