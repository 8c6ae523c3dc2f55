"""The scaling-law page without a browser: figure builders, parsers and callbacks called directly."""
from __future__ import annotations

import base64
import json
import logging
import math
import re
import shlex

import numpy as np
import plotly.graph_objects as go
import pytest
from dash import html
from dash.exceptions import PreventUpdate
from support.page_checks import checked_figure, component_text

from dashboard import forms
from dashboard.core import scaling as pyc
from dashboard.core.errors import InputError
from dashboard.core.regions import Scenario
from dashboard.core.scaling import (
    DEFAULT_NS,
    _forecast,
    _law,
    census_partition,
    census_scaling,
    census_values,
    gallery_sizes,
)
from dashboard.core.scaling import _census as census_module
from dashboard.figures import scaling as figs
from dashboard.figures import style
from dashboard.views import scaling as V


@pytest.fixture(scope="module")
def S(dash_page):
    return dash_page("scaling")


@pytest.fixture
def fresh_caches():
    """Tests that replace a core function: no memoised answer before, none computed with it after."""
    V.clear_caches()
    yield
    V.clear_caches()


def _error(out) -> str:
    assert isinstance(out, html.Div) and out.className == "error", out
    return out.children


def _rows(points):
    return [{"n": a, "kappa": b} for a, b in points]


def _in_callback(prop_id: str, fn, *args):
    """Call a callback as Dash would after ``prop_id`` changed (for ``ctx.triggered_id``)."""
    from contextvars import copy_context

    from dash._callback_context import context_value
    from dash._utils import AttributeDict

    def run():
        context_value.set(AttributeDict(triggered_inputs=[{"prop_id": prop_id, "value": None}]))
        return fn(*args)

    return copy_context().run(run)


def _csv(text: str, name="m.csv") -> tuple[str, str]:
    return "data:text/csv;base64," + base64.b64encode(text.encode()).decode(), name


# --------------------------------------------------------------------------- figures


def test_law_figure_has_log_n_axis_to_the_world_and_a_cursor():
    n = np.geomspace(1, 8e9, 50)
    d, a = pyc.from_h_gamma(pyc.bits_to_nats(20), 0.3)
    fig = go.Figure(figs.law_figure(n, pyc.kappa(n, d, a), pyc.uniqueness(n, d, a), pyc.k_violations(n, d, a, 5),
                                    5, 1e6, (0.5, 0.4, 0.6)))
    assert len(fig.data) == 5
    assert fig.layout.xaxis.type == "log" and fig.layout.xaxis.tickvals[-1] == 8e9
    assert fig.layout.xaxis.ticktext[-1] == "8B" and "1M" in fig.layout.xaxis.ticktext
    assert fig.layout.yaxis.tickformat == ".0%"
    line, markers = fig.data[figs.CURSOR_LINE], fig.data[figs.CURSOR_MARKERS]
    assert list(line.x) == [1e6, 1e6] and list(markers.y) == [0.5, 0.4, 0.6]
    assert "violating 5-anonymity" in fig.data[2].name
    patch = figs.cursor_patch_values(8e9, (0.1, 0.0, 0.2))
    assert patch[figs.CURSOR_LINE]["x"] == [8e9, 8e9] and patch[figs.CURSOR_LINE]["textposition"] == "bottom left"
    assert patch[figs.CURSOR_MARKERS]["y"] == [0.1, 0.0, 0.2]


def test_census_and_forecast_figures():
    n = np.geomspace(1, 8e9, 40)
    exact = np.where(n <= 1e7, 1 / (1 + n / 1e5), np.nan)
    fig = go.Figure(figs.census_figure(n, exact, 1 / (1 + n / 1e5), 1e7, "Testland", 1e4))
    assert fig.data[0].name.startswith("exact") and max(fig.data[0].x) <= 1e7
    assert len(fig.data[1].x) == 40 and "population 10M" in fig.data[2].text
    at = np.geomspace(1, 8e9, 30)
    preds = {"PYC-MB": np.full(30, 0.5), "ENT": None, "EXP": np.full(30, 0.4), "POL": np.full(30, 0.3)}
    fig = go.Figure(figs.forecast_figure(np.array([10.0, 100, 1000]), np.array([0.9, 0.8, 0.7]), at, preds,
                                         (np.full(30, 0.4), np.full(30, 0.6)), held_out=1))
    names = [t.name for t in fig.data]
    assert "PYC-MB band (jackknife)" in names and "ENT" not in names
    assert "EXP (ours)" in names and "POL (ours)" in names
    assert "measured (held out)" in names and list(fig.data[names.index("measured (held out)")].x) == [1000]


def _builders():
    """Every figure builder of the page with typical arguments (NaN where the exact curve stops)."""
    n = np.geomspace(1, 8e9, 40)
    d, a = pyc.from_h_gamma(pyc.bits_to_nats(20), 0.3)
    exact = np.where(n <= 1e7, 1 / (1 + n / 1e5), np.nan)
    at = np.geomspace(1, 8e9, 30)
    preds = {"PYC-MB": np.full(30, 0.5), "ENT": np.full(30, 0.2), "EXP": np.full(30, 0.4), "POL": None}
    points = (np.array([10.0, 100, 1000]), np.array([0.9, 0.8, 0.7]))
    return {
        "law": figs.law_figure(n, pyc.kappa(n, d, a), pyc.uniqueness(n, d, a), pyc.k_violations(n, d, a, 5), 5,
                               1e6, (0.5, 0.4, 0.6)),
        "census": figs.census_figure(n, exact, 1 / (1 + n / 1e5), 1e7, "Testland", 1e4),
        "census without app": figs.census_figure(n, exact, 1 / (1 + n / 1e5), 1e7, "Testland"),
        "forecast": figs.forecast_figure(*points, at, preds, (np.full(30, 0.4), np.full(30, 0.6)), held_out=1),
        "forecast without band": figs.forecast_figure(*points, at, preds, None),
    }


@pytest.mark.parametrize("name", list(_builders()))
def test_builders_return_plain_dicts_with_numpy_columns(name):
    """Plain dicts (no plotly validation or template per request) whose columns Dash serialises in one step."""
    fig = _builders()[name]
    assert type(fig) is dict and set(fig) == {"data", "layout"}
    for trace in fig["data"]:
        assert trace["type"] == "scatter"
        for key in ("x", "y"):
            assert isinstance(trace[key], np.ndarray) and trace[key].dtype == float, (trace.get("name"), key)
        if "customdata" in trace and len(trace["customdata"]) > 3:
            assert isinstance(trace["customdata"], np.ndarray), trace.get("name")
    checked_figure(fig)  # plotly's schema accepts it, with exactly the keys plotly.py would send
    # the look plotly's default template gave: room for tick labels and titles, a light grid
    for ax in ("xaxis", "yaxis"):
        assert fig["layout"][ax]["automargin"] is True and fig["layout"][ax]["gridcolor"] == style.GRID
    assert not hasattr(figs, "go") and not hasattr(figs, "empty_figure")


def test_number_formats():
    assert figs.n_label(8e9) == "8B" and figs.n_label(12345) == "12,345" and figs.n_label(44729087) == "44.7M"
    assert figs.pct(0.5) == "50.0 %" and figs.pct(0.000097) == "0.0097 %" and figs.pct(1e-300) == "less than 0.0001 %"
    assert figs.pct(0) == "0 %" and figs.pct(None) == "–"
    assert figs.sci(3.858e10) == "3.858 × 10¹⁰" and figs.sci(192332.1) == "192,332" and figs.sci(-0.2266, 3) == "-0.227"


# --------------------------------------------------------------------------- explore


def test_on_law_draws_the_law(S):
    fig, cards, params, message, command = S.on_law(20, 0.3, 5, 1e6)
    assert message is None
    fig = go.Figure(fig)
    d, a = pyc.from_h_gamma(pyc.bits_to_nats(20), 0.3)
    np.testing.assert_allclose(fig.data[0].y, pyc.kappa(V.LAW_NS, d, a))
    np.testing.assert_allclose(fig.data[2].y, pyc.k_violations(V.LAW_NS, d, a, 5))
    text = component_text(cards)
    assert figs.pct(pyc.kappa(1e6, d, a)) in text and "1M" in text
    assert "d = 0.7766" in component_text(params) and "heavy" in component_text(params)
    cmd = component_text(command)
    assert "anonset pyc kappa --h-bits 20 --gamma 0.3 --n 10000 1e6 8e9" in cmd


def test_law_command_runs_in_the_cli(cache_root, capsys):
    from dashboard.cli import main

    cmd = V.law_command(24, -0.5, [1e4, 1e6, 8e9])
    assert main(shlex.split(cmd)[1:] + ["--json"]) == 0
    rows = json.loads(capsys.readouterr().out)["rows"]
    assert rows[1]["kappa"] == pytest.approx(pyc.kappa_h_gamma(1e6, pyc.bits_to_nats(24), -0.5))


def test_finite_support_is_described(S):
    params = component_text(S.on_law(24, -0.5, 5, 1e6)[2])
    assert "finite support" in params and "sets" in params


@pytest.mark.parametrize("h, gamma, k, message", [
    (0, 0.3, 5, "Entropy h (bits): 0 is outside"),
    ("abc", 0.3, 5, "is not a number"),
    (None, 0.3, 5, "Entropy h (bits): please enter a number"),
    (500, 0.3, 5, "outside the range"),
    (20, 99, 5, "Tail complexity γ"),
    (20, float("nan"), 5, "finite number"),
    (20, 0.3, 1, "k: 1 is outside"),
    (20, 0.3, 2.5, "whole number"),
    (100, -50, 5, "too large"),
])
def test_on_law_bad_input_gives_a_message(S, h, gamma, k, message):
    out = S.on_law(h, gamma, k, 1e6)
    assert message in _error(out[3])
    assert out[0] is S.no_update and out[1] is S.no_update


def test_law_curves_and_figures_are_memoised_read_only(S):
    """Every visit starts at the same law and sliders revisit values: computed once, shared read-only."""
    V.clear_caches()
    first = S.on_law(20, 0.3, 5, 1e6)[0]
    assert S.on_law("20", 0.3, 5, 1e6)[0] is first
    assert S.on_law(20, 0.3, 10, 1e6)[0] is not first and S.on_law(20, 0.3, 5, 1e4)[0] is not first
    law = V.law_curves(20, 0.3, 5)
    assert law is V.law_curves(20.0, "0.3", 5)
    with pytest.raises(ValueError):
        law.kappa[0] = 0.0
    assert first["data"][0]["y"] is law.kappa  # the figure shares the memoised curve, never a copy


def test_on_cursor_patches_without_recomputing(S, monkeypatch, fresh_caches):
    calls = []
    monkeypatch.setattr(_law, "k_violations", lambda *a, **kw: calls.append(a) or 0.25)  # where law_point finds it
    patch, cards, message, command = S.on_cursor(1e4, 20, 0.3, 5)
    assert message is None and len(calls) == 1 and np.ndim(calls[0][0]) == 0  # one n, not the curve
    ops = patch.to_plotly_json()["operations"]
    where = {tuple(op["location"]): op["params"]["value"] for op in ops}
    assert where[("data", figs.CURSOR_LINE, "x")] == [1e4, 1e4]
    assert where[("data", figs.CURSOR_MARKERS, "y")][2] == 0.25
    assert all(op["location"][1] in (figs.CURSOR_LINE, figs.CURSOR_MARKERS) for op in ops)
    assert "10,000" in component_text(cards) and "--n 10000 1e6 8e9" in component_text(command)


@pytest.mark.parametrize("n, message", [(0, "Gallery size n"), (1e11, "outside the range"), ("x", "not a number")])
def test_on_cursor_bad_n(S, n, message):
    out = S.on_cursor(n, 20, 0.3, 5)
    assert message in _error(out[2]) and out[0] is S.no_update


def test_cursor_controls(S):
    ID = V.ID
    assert V.cursor_target(ID["cursor-slider"], 4, None, None) == (None, 10_000.0)
    assert V.cursor_target(ID["cursor-input"], None, 2500, None) == (pytest.approx(math.log10(2500)), None)
    assert V.cursor_target(ID["cursor-input"], None, -3, None) == (None, None)
    assert V.cursor_target(ID["preset-earth"], None, None, None) == (pytest.approx(math.log10(8e9)), 8e9)
    assert V.cursor_target(ID["preset-1m"], None, None, None)[1] == 1e6
    slider, n = V.cursor_target(ID["preset-country"], None, None, "DE")
    import census_loaders as cl

    assert n == cl.dataset_info("DE")["population"] and slider == pytest.approx(math.log10(n))
    assert V.cursor_target(ID["preset-country"], None, None, None) == (None, None)
    assert any(o["value"] == "US" for o in V.country_preset_options())
    # the browser does the same (assets/scaling.js, tests/test_clientside_scaling.py) with these populations
    assert V.client_config()["populations"]["DE"] == n


# --------------------------------------------------------------------------- census


def _census(S, **kw):
    args = dict(view="census", country="DE", sexes=["female", "male"], ages="18-75", body=["body"], hw=5, ww=5,
                aux=[], users=10_000)
    args.update(kw)
    return S.on_census(*args.values())


def test_on_census_matches_the_core_and_the_cli(S, capsys):
    out = _census(S)
    assert out[0] is None
    sentence, cards, fig, table, notes, command = out[1:-1]  # the last output is the view's link (census-query)
    fig = go.Figure(fig)
    sc = census_scaling(Scenario(countries=("DE",)), "DE", [1e4])
    assert f"{figs.pct(sc.exact[0])} of them (exact" in sentence and "10,000 users" in sentence
    assert f"{sc.fit.h_bits:.2f} bits" in component_text(cards)
    assert fig.data[0].name.startswith("exact") and max(fig.data[0].x) <= sc.partition.records
    assert "the whole population" in component_text(table) and "8B (the world)" in component_text(table)
    assert "round to 0" in component_text(notes)
    from dashboard.cli import main

    cmd = component_text(command).strip()
    assert cmd.startswith("anonset pyc census --country DE --ages 18-75")
    assert main(shlex.split(cmd)[1:] + ["--json"]) == 0
    cli = json.loads(capsys.readouterr().out)
    assert cli["fit"]["h_bits"] == pytest.approx(sc.fit.h_bits)


def test_census_and_forecast_views_are_memoised(cache_root):
    """The default views (and any revisited one) are computed once: the exact κ and the fits dominate."""
    V.clear_caches()
    args = ("DE", ["female", "male"], "18-75", ["body"], 5, 5, [], 10_000)
    census = V.render_census(*args)
    assert V.render_census(*args) is census
    assert V.render_census(*args[:-1], 20_000) is not census
    rows = _rows(V.EXAMPLE_POINTS)
    forecast = V.render_forecast(rows, 1)
    assert V.render_forecast([dict(r) for r in rows], 1) is forecast
    assert V.render_forecast(rows, 0) is not forecast
    assert V.render_forecast(_rows(V.EXAMPLE_POINTS[:-1]), 1) is not forecast


@pytest.mark.parametrize("country, users", [("DE", 10_000), ("LI", 1e8)])
def test_census_values_in_one_pass_equal_each_row_alone(cache_root, country, users):
    sc = census_scaling(Scenario(countries=(country,)), country)
    rows = gallery_sizes(sc, users)
    values = census_values(sc, rows)
    assert all(values[n] == sc.at(n) for n in rows) and values[8e9][0] is None


@pytest.mark.parametrize("country, users", [("DE", 10_000), ("DE", 44_000_000), ("LI", 1e8), ("LI", 1e4)])
def test_census_curve_with_the_app_equals_one_computed_at_once(cache_root, country, users):
    """The memoised curve of the population plus the app's point is the curve the core computes for both."""
    V.clear_caches()
    scenario = Scenario(countries=(country,))
    part = census_partition(scenario, country)
    fig = V.render_census(country, ["female", "male"], "18-75", ["body"], 5, 5, [], users)["c-graph"]
    want = census_scaling(scenario, country, np.unique(np.concatenate([DEFAULT_NS, [users, part.records]])))
    ok = np.isfinite(want.exact)
    np.testing.assert_array_equal(fig["data"][1]["x"], want.n)
    np.testing.assert_array_equal(fig["data"][1]["y"], want.pyc)
    np.testing.assert_array_equal(fig["data"][0]["x"], want.n[ok])
    np.testing.assert_array_equal(fig["data"][0]["y"], want.exact[ok])


def test_census_beyond_the_population_only_the_law_speaks(S):
    out = _census(S, country="LI", users=1e8)
    assert out[0] is None and "only the law can say" in out[1]


def test_census_only_runs_in_its_view(S):
    with pytest.raises(PreventUpdate):
        _census(S, view="explore")


@pytest.mark.parametrize("change, message", [
    (dict(sexes=[]), "Sex: choose at least one sex"),
    (dict(ages="75-18"), "reversed"),
    (dict(ages="abc"), "is not a range"),
    (dict(ages="0-150"), "outside the census data"),
    (dict(country="XX"), "unknown country"),
    (dict(country=None), "Country"),
    (dict(users=0), "App users n"),
    (dict(users="many"), "not a number"),
    (dict(users=2.5), "whole number"),
    (dict(hw=7), "Height band"),
    (dict(country="US", aux=["de_wearables"]), "describes DE"),
])
def test_census_bad_input_gives_a_message(S, change, message):
    out = _census(S, **change)
    assert message in _error(out[0])
    assert all(o is S.no_update for o in out[1:])


def test_census_country_change_offers_its_presets(S):
    options, value = S.on_census_country("US", ["de_wearables"])
    assert value == [] and all(o["value"] != "de_wearables" for o in options)
    options, value = S.on_census_country("DE", ["de_wearables"])
    assert value == ["de_wearables"]


@pytest.mark.parametrize("chosen", [None, 5, "de_wearables", {"a": 1}, [["de_wearables"]], [{"id": 1}],
                                    ["de_wearables", 3], [None]])
def test_census_country_ignores_a_malformed_choice(S, chosen):
    """A tampered request (a number, nested lists or dicts) is no choice, not an exception."""
    options, value = S.on_census_country("DE", chosen)
    assert value == [] and any(o["value"] == "de_wearables" for o in options)
    assert S.on_census_country(["DE"], chosen) == ([], [])


# --------------------------------------------------------------------------- forecast


def test_on_forecast_shows_four_models_formulas_and_the_band(S):
    out = S.on_forecast("forecast", _rows(V.EXAMPLE_POINTS), 1)
    assert out[0] is None
    fig, models, band, formulas, command = out[1:-1]  # the last output is the view's link (forecast-query)
    fig = go.Figure(fig)
    text = component_text(models)
    for name in ("PYC-MB", "ENT", "EXP (our form)", "POL (our form)"):
        assert name in text
    assert "κ at 300k" in text and "κ at 8B" in text and "pp" in text
    assert "our form" in component_text(formulas) and "alpha*expm1(Delta)" in component_text(formulas)
    assert "jackknife" in band and "our forms" in band
    assert any(t.name == "PYC-MB band (jackknife)" for t in fig.data)
    assert "--holdout 1" in component_text(command) and "--at 8e9" in component_text(command)


def test_forecast_command_runs_in_the_cli(cache_root, capsys):
    from dashboard.cli import main

    n = np.array([a for a, _ in V.EXAMPLE_POINTS], float)
    k = np.array([b for _, b in V.EXAMPLE_POINTS])
    cmd = V.forecast_command(n, k, 1)
    assert main(shlex.split(cmd)[1:] + ["--json"]) == 0
    out = json.loads(capsys.readouterr().out)
    assert out["at"] == [3e5, 1e9, 8e9] and set(out["models"]) == {"PYC-MB", "ENT", "EXP", "POL"}


def test_unavailable_models_say_why(S):
    out = S.on_forecast("forecast", _rows([(10, 1.0), (100, 1.0), (1000, 1.0)]), 0)
    assert out[0] is None
    text = component_text(out[2])
    assert text.count("not available") == 4 and "no decay" in text
    assert "No PYC-MB band" in out[3]


@pytest.mark.parametrize("rows, message", [
    ([(100, 0.9), (1000, 1.5)], "must lie in [0, 1]"),
    ([(100, 0.9), (1000, -0.1)], "must lie in [0, 1]"),
    ([(0, 0.9), (1000, 0.5)], "must be positive"),
    ([(-5, 0.9), (1000, 0.5)], "must be positive"),
    ([(100, 0.9)], "at least two measurements"),
    ([(100, 0.9), (100, 0.8), (1000, 0.5)], "appears twice"),
    ([(100, 0.9), ("abc", 0.8)], "Row 2: 'abc' in column n is not a number"),
    ([(100, 0.9), (1000, "x")], "Row 2: 'x' in column κ̂ is not a number"),
    ([(100, 0.9), (1000, None)], "Row 2: give both"),
    ([], "at least two measurements"),
])
def test_forecast_bad_points_give_a_message(S, rows, message):
    out = S.on_forecast("forecast", _rows(rows), 1)
    assert message in _error(out[0])
    assert all(o is S.no_update for o in out[1:])


def test_forecast_too_many_rows(S):
    """The page fits at most 1,000 measurements and says how to fit more (the CLI's --csv)."""
    rows = _rows((i + 2, 0.5) for i in range(V.MAX_POINTS + 1))
    message = _error(S.on_forecast("forecast", rows, 1)[0])
    assert "at most 1,000" in message and "anonset pyc forecast --csv" in message


def test_blank_rows_are_skipped_and_holdout_adapts(S):
    rows = _rows([(100, 0.9), (None, None), (1000, 0.6)])
    out = S.on_forecast("forecast", rows, 3)
    assert out[0] is None and "No points held out" in out[3]


def test_unexpected_errors_log_only_their_class(S, monkeypatch, caplog, fresh_caches):
    def boom(*a, **kw):
        raise RuntimeError("secret 0.123")

    monkeypatch.setattr(V.scaling, "forecast", boom)
    with caplog.at_level(logging.ERROR, logger="anonset.scaling"):
        out = S.on_forecast("forecast", _rows(V.EXAMPLE_POINTS), 1)
    assert "could not be computed" in _error(out[0])
    assert "RuntimeError" in caplog.text and "secret" not in caplog.text


# ---- CSV and pasted text


def test_csv_with_and_without_header(cache_root):
    rows = forms.parse_csv(*_csv("n,kappa\n100,0.99\n1000,0.8\n"))
    assert rows == [{"n": 100.0, "kappa": 0.99}, {"n": 1000.0, "kappa": 0.8}]
    assert forms.parse_csv(*_csv("100;0.99\n1000;0.8\n# comment\n\n")) == rows
    assert forms.parse_csv(*_csv("\ufeffkappa,n\n0.99,100\n0.8,1000\n")) == rows


@pytest.mark.parametrize("text, message", [
    ("a,b\n1,2\n", "the header must name the columns n and kappa"),
    ("n,kappa\n100,0.9\n1000,zz\n", "Line 3 of m.csv: 'zz' is not a number"),
    ("n,kappa\n100\n", "expected two columns"),
    ("", "holds no measurements"),
])
def test_bad_csv_gives_a_message(cache_root, text, message):
    with pytest.raises(InputError, match=message.replace("(", r"\(").replace(")", r"\)")):
        forms.parse_csv(*_csv(text) if text else ("data:text/csv;base64,", "m.csv"))


def test_huge_csv_is_refused_quickly(S):
    big = "n,kappa\n" + "".join(f"{i + 2},0.5\n" for i in range(1_000_000))  # 10⁶ rows, ~11 MB
    contents, name = _csv(big, "big.csv")
    with pytest.raises(InputError, match="MB; files of at most 1 MB"):  # how fast: benchmarks/bench_pyc.py
        forms.parse_csv(contents, name)
    many = "".join("1,1\n" for _ in range(200_000))  # under 1 MB, but 200,000 rows
    with pytest.raises(InputError, match="at most 10,000 measurements"):
        forms.parse_csv(*_csv(many))
    out = _in_callback(V.ID["f-upload"] + ".contents", S.on_points_source, 0, 0, 0, 0, contents, name, None, [])
    assert out[0] is S.no_update and "1 MB" in _error(out[1])


def test_binary_or_broken_uploads(cache_root):
    binary = "data:application/octet-stream;base64," + base64.b64encode(b"\xff\xfe\x00\x81").decode()
    with pytest.raises(InputError, match="not a UTF-8 text"):
        forms.parse_csv(binary, "x.bin")
    with pytest.raises(InputError, match="could not be read"):
        forms.parse_csv("data:text/csv;base64,@@@@", "x.csv")


def test_pasted_text(cache_root):
    assert forms.parse_points_text("100:0.9, 1000:0.5") == [{"n": 100.0, "kappa": 0.9}, {"n": 1000.0, "kappa": 0.5}]
    assert forms.parse_points_text("n kappa\n100 0.9\n1000 0.5") == [{"n": 100.0, "kappa": 0.9},
                                                               {"n": 1000.0, "kappa": 0.5}]
    with pytest.raises(InputError, match="holds no measurements"):
        forms.parse_points_text("   ")


def test_points_sources(cache_root):
    ID = V.ID
    rows, msg = V.points_from_source(ID["f-add"], None, None, None, [{"n": 1, "kappa": 1}])
    assert len(rows) == 2 and msg is None
    rows, _ = V.points_from_source(ID["f-example"], None, None, None, [])
    assert len(rows) == len(V.EXAMPLE_POINTS)
    rows, _ = V.points_from_source(ID["f-clear"], None, None, None, rows)
    assert all(r["n"] is None for r in rows)
    rows, msg = V.points_from_source(ID["f-use-paste"], None, None, "10,0.9\n100,0.5", [])
    assert len(rows) == 2 and "2 points" in component_text(msg)
    rows, msg = V.points_from_source(ID["f-upload"], *_csv("n,kappa\n10,0.9\n100,0.5\n"), None, [])
    assert len(rows) == 2 and "m.csv" in component_text(msg)
    with pytest.raises(PreventUpdate):
        V.points_from_source(None, None, None, None, [])


# --------------------------------------------------------------------------- links and layout


def test_query_of_each_view(S):
    """The explore view's query is built in the browser (tests/test_clientside_scaling.py, same string);
    the census and forecast views' come from their callbacks."""
    q = V.link_query("explore", 24, -0.5, 10, 8e9, "DE", ["female", "male"], "18-75", ["body"], 5, 5, [], 10_000,
                     [], 1)
    assert q == "?view=explore&h=24&gamma=-0.5&k=10&n=8e9"
    q = V.census_query("DE", ["female"], "30-60", ["body"], 10, 5, ["de_wearables"], 5000)
    assert q == "?view=census&country=DE&sex=female&ages=30-60&height_width=10&aux=de_wearables&users=5000"
    assert S.on_census("census", "DE", ["female"], "30-60", ["body"], 10, 5, ["de_wearables"], 5000)[-1] == q
    q = V.forecast_query(_rows([(10, 0.9), (100, 0.5)]), 0)
    assert q == "?view=forecast&holdout=0&points=10:0.9,100:0.5"
    assert S.on_forecast("forecast", _rows([(10, 0.9), (100, 0.5)]), 0)[-1] == q
    with pytest.raises(InputError):
        V.census_query("DE", ["female"], "nonsense", ["body"], 10, 5, [], 5000)


def _by_id(page) -> dict:
    """The components of a page with an id, by id."""
    ids = {}

    def walk(c):
        if hasattr(c, "id") and getattr(c, "id", None):
            ids[c.id] = c
        for ch in (c.children if isinstance(getattr(c, "children", None), list) else [getattr(c, "children", None)]):
            if ch is not None and not isinstance(ch, (str, int, float)):
                walk(ch)

    walk(page)
    return ids


def test_layout_draws_plain_placeholder_charts(S):
    ids = _by_id(S.layout())
    for key in ("law-graph", "c-graph", "f-graph"):
        fig = ids[V.ID[key]].figure
        assert type(fig) is dict and fig["layout"]["annotations"][0]["text"] == "Computing…"
        go.Figure(fig)


def test_warm_answers_what_a_first_visit_asks(S, monkeypatch, fresh_caches):
    """After warm() (before gunicorn forks) the values the page opens with are answered from memory."""
    V.warm()

    def boom(*a, **kw):
        raise RuntimeError("computed again")

    # the package's names (what the view calls) and the modules' own (what the core calls inside)
    for module, name in ((V.scaling, "kappa"), (V.scaling, "k_violations"), (V.scaling, "census_scaling"),
                         (V.scaling, "kappa_finite_population"), (V.scaling, "forecast"), (_law, "kappa"),
                         (_law, "k_violations"), (_law, "kappa_finite_population"), (census_module, "census_scaling"),
                         (census_module, "kappa_finite_population"), (_forecast, "forecast")):
        monkeypatch.setattr(module, name, boom)
    ids = _by_id(S.layout())
    value = lambda key: ids[V.ID[key]].value  # noqa: E731
    law = S.on_law(value("h-input"), value("gamma-input"), value("k"), value("cursor-input"))
    assert law[3] is None
    census = S.on_census("census", *(value(key) for key in ("c-country", "c-sex", "c-ages", "c-body",
                                                              "c-height-width", "c-weight-width", "c-aux", "c-users")))
    assert census[0] is None
    forecast = S.on_forecast("forecast", json.loads(json.dumps(ids[V.ID["f-table"]].data)), value("f-holdout"))
    assert forecast[0] is None


def test_layout_reads_every_view_from_the_link(S):
    page = S.layout(view="census", country="US", sex="female", ages="30-60", height_width="10", users="5000",
                    h="24", gamma="-0.5", k="10", n="8e9", points="10:0.9,100:0.5", holdout="2", stat="min")
    tabs = page.children[1]
    assert tabs.value == "census"
    ids = _by_id(page)
    assert ids[V.ID["c-country"]].value == "US" and ids[V.ID["c-sex"]].value == ["female"]
    assert ids[V.ID["c-ages"]].value == "30-60" and ids[V.ID["c-height-width"]].value == 10
    assert ids[V.ID["c-users"]].value == 5000 and ids[V.ID["h-input"]].value == 24
    assert ids[V.ID["cursor-input"]].value == 8e9 and ids[V.ID["f-holdout"]].value == 2
    assert ids[V.ID["f-table"]].data == _rows([(10.0, 0.9), (100.0, 0.5)])


def test_layout_reports_bad_link_values(S):
    page = S.layout(view="nope", h="abc", gamma="7e9", n="-1", country="XX", points="1:2:3", holdout="9")
    text = component_text(page.children)
    for part in ("Unknown view", "Ignoring h", "Ignoring γ", "Ignoring n", "Ignoring the census settings",
                 "Ignoring the points", "Ignoring holdout"):
        assert part in text
    assert next(c for c in page.children if type(c).__name__ == "Tabs").value == "explore"


# --------------------------------------------------------------------------- issue 31: six languages


def _strings(component) -> list[str]:
    """Every text a component tree shows: children, labels of options, placeholders, tab labels, table headings."""
    out = []
    if component is None:
        return out
    if isinstance(component, str):
        return [component]
    if isinstance(component, (list, tuple)):
        for c in component:
            out += _strings(c)
        return out
    if isinstance(component, dict):
        return _strings(component.get("label")) + _strings(component.get("name"))
    for prop in ("children", "label", "placeholder", "options", "columns"):
        out += _strings(getattr(component, prop, None))
    return out


def _figure_texts(fig: dict) -> list[str]:
    layout = fig["layout"]
    texts = [t["name"] for t in fig["data"] if t.get("name") and t.get("showlegend", True)]
    texts += [a["title"]["text"] for a in (layout["xaxis"], layout["yaxis"]) if a.get("title")]
    return texts + [str(x) for t in fig["data"] for x in (t.get("text") or []) if x]


def test_the_scaling_page_in_german(S):
    """Issue 31: the page's words, the three views' forms, readouts, census sentence, cards, table and notes, the
    forecast's models table and band text, the charts' names and axes in German, numbers the German way; no
    English message whose translation differs; the CLI commands stay English; English again afterwards."""
    from support.languages import english_words

    from dashboard.core import text

    with text.language("de"):
        page = S.layout(view="census", country="LI", users="5000")
        law = V.render_law(V.DEFAULT_H_BITS, V.DEFAULT_GAMMA, V.DEFAULT_K, 1e6)
        census = V.render_census("LI", ["female", "male"], "18-75", ["body"], 5, 5, [], 5000)
        forecast = V.render_forecast(_rows(V.EXAMPLE_POINTS), 1)
        words = english_words("de")
    shown = _strings(page) + _strings(list(law.values())) + _strings([census[k] for k in census if k != "c-graph"])
    shown += _strings([forecast[k] for k in forecast if k != "f-graph"])
    figures = [law["figure"], census["c-graph"], forecast["f-graph"]]
    shown += [t for f in figures for t in _figure_texts(f)]
    text_all = " ".join(shown)
    assert "Das Skalierungsgesetz der Reidentifikation" in shown
    assert {"Das Gesetz erkunden", "Aus einem Zensus", "Eine Technik prognostizieren"} <= set(shown)
    assert "Korrektheit" in shown and "Verschiedene Mengen" in shown and "Angepasste Entropie" in shown
    assert "In einer App mit 5.000 Nutzern aus den Einwohnern von Liechtenstein im Alter von 18–75" in text_all
    assert "Kreis, Geschlecht, Altersgruppe, Größenklasse 5 cm, Gewichtsklasse 5 kg" in text_all
    assert "Galerie aus n Einwohnern" in shown and "Modell" in shown and "RMSE zurückgehalten" in shown
    assert "Gewichte ln(n) wie im Paper" in component_text(forecast["f-band"])
    assert re.search(r"\d,\d\s%", component_text(law["readouts"])), component_text(law["readouts"])
    assert "Korrektheit κ(n)" in _figure_texts(law["figure"]) and law["figure"]["layout"]["separators"] == ",."
    assert forecast["f-graph"]["layout"]["xaxis"]["title"]["text"] == "Galeriegröße n (Einträge, log. Skala)"
    english = sorted({s.strip() for s in shown if s.strip() in set(words)})
    assert english == [], english
    assert component_text(census["c-command"]).startswith("anonset pyc census --country LI")  # the CLI: English
    with text.language("en"):  # memoised per language: English again after German
        again = V.render_law(V.DEFAULT_H_BITS, V.DEFAULT_GAMMA, V.DEFAULT_K, 1e6)
        assert "Correctness" in _strings(again["readouts"])
        assert "correctness κ(n)" in _figure_texts(again["figure"])
