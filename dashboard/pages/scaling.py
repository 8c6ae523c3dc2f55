"""The scaling-law page (SPEC §3): layout and callbacks over :mod:`dashboard.views.scaling`.

Callbacks parse, call the view and map its plain answers to outputs; bad input gives a
message in the page, and an unexpected error logs only its class.
"""
from __future__ import annotations

import dash
from dash import (
    ClientsideFunction,
    Input,
    Output,
    Patch,
    State,
    callback,
    clientside_callback,
    ctx,
    dcc,
    html,
    no_update,
)
from dash.exceptions import PreventUpdate

import census_loaders as cl
from dashboard import forms
from dashboard.components import error_box
from dashboard.core.text import N_
from dashboard.core.text import gettext as _
from dashboard.guard import guarded
from dashboard.views.scaling import (
    ID,
    LOG,
    census_query,
    client_config,
    forecast_query,
    points_from_source,
    render_census,
    render_cursor,
    render_forecast,
    render_law,
    settings_from_link,
)
from dashboard.views.scaling_layout import census_section, explore_section, forecast_section

dash.register_page(__name__, path="/scaling", name="Scaling law",
                   title="AnonSet — the scaling law of re-identification", order=30)


def layout(**query):
    """The page; every view's settings come from the link (bad values are reported, not fatal)."""
    link = settings_from_link(**query)
    return html.Div([
        html.H1(_("The scaling law of re-identification")),
        *[html.Div(msg, className="warning", role="status") for msg in link.notices],
        dcc.Tabs(id=ID["tabs"], value=link.view, className="scaling-tabs", mobile_breakpoint=0, children=[
            dcc.Tab(explore_section(link.h_bits, link.gamma, link.k, link.cursor), label=_("Explore the law"),
                    value="explore"),
            dcc.Tab(census_section(link.scenario, link.code, link.app_users), label=_("From a census"),
                    value="census"),
            dcc.Tab(forecast_section(link.rows, link.holdout), label=_("Forecast a technique"), value="forecast"),
        ]),
        dcc.Store(id=ID["query"]),
        dcc.Store(id=ID["config"], data=client_config()),
        dcc.Store(id=ID["census-query"]),
        dcc.Store(id=ID["forecast-query"]),
        html.Div(id=ID["url-sync"], hidden=True),
    ], className="scaling-page")


def _guard(answer, where: str):
    """Bad input → its message; anything else → an apology, its class logged (never a traceback in the page)."""
    return guarded(answer, log=LOG, where=f"scaling page {where}",
                   sorry=N_("Sorry — this could not be computed. Please check the values."))


# Interface synchronisation runs in the browser (assets/scaling.js): no request per slider move.
# Slider and number box show the same h / γ (the box also takes values beyond the slider).
for _slider, _box in (("h-slider", "h-input"), ("gamma-slider", "gamma-input")):
    clientside_callback(
        ClientsideFunction(namespace="anonset", function_name="scalingSync"),
        Output(ID[_slider], "value"), Output(ID[_box], "value"),
        Input(ID[_slider], "value"), Input(ID[_box], "value"),
        State(ID[_slider], "min"), State(ID[_slider], "max"),
        prevent_initial_call=True,
    )

# The cursor's slider (log n), its number box and the presets move together.
clientside_callback(
    ClientsideFunction(namespace="anonset", function_name="scalingCursor"),
    Output(ID["cursor-slider"], "value"), Output(ID["cursor-input"], "value"),
    Input(ID["cursor-slider"], "value"), Input(ID["cursor-input"], "value"),
    Input(ID["preset-10k"], "n_clicks"), Input(ID["preset-1m"], "n_clicks"),
    Input(ID["preset-earth"], "n_clicks"), Input(ID["preset-country"], "value"),
    State(ID["config"], "data"),
    prevent_initial_call=True,
)


@callback(
    Output(ID["law-graph"], "figure"),
    Output(ID["readouts"], "children"),
    Output(ID["law-params"], "children"),
    Output(ID["law-message"], "children"),
    Output(ID["law-command"], "children"),
    Input(ID["h-input"], "value"),
    Input(ID["gamma-input"], "value"),
    Input(ID["k"], "value"),
    State(ID["cursor-input"], "value"),
)
@_guard(lambda message: (no_update, no_update, no_update, error_box(message), no_update), "on_law")
def on_law(h_bits, gamma, k, cursor):
    """New (h, γ, k): recompute the curves and the readouts at the current cursor."""
    out = render_law(h_bits, gamma, k, cursor)
    return out["figure"], out["readouts"], out["params"], None, out["command"]


@callback(
    Output(ID["law-graph"], "figure", allow_duplicate=True),
    Output(ID["readouts"], "children", allow_duplicate=True),
    Output(ID["law-message"], "children", allow_duplicate=True),
    Output(ID["law-command"], "children", allow_duplicate=True),
    Input(ID["cursor-input"], "value"),
    State(ID["h-input"], "value"),
    State(ID["gamma-input"], "value"),
    State(ID["k"], "value"),
    prevent_initial_call=True,
)
@_guard(lambda message: (no_update, no_update, error_box(message), no_update), "on_cursor")
def on_cursor(cursor, h_bits, gamma, k):
    """Move the cursor with a Patch: four numbers at one n, the curves stay as they are."""
    out = render_cursor(cursor, h_bits, gamma, k)
    patch = Patch()
    for trace, props in out["patch"].items():
        for key, value in props.items():
            patch["data"][trace][key] = value
    return patch, out["readouts"], None, out["command"]


# --------------------------------------------------------------------------- callbacks: census


@callback(
    Output(ID["c-aux"], "options"),
    Output(ID["c-aux"], "value"),
    Input(ID["c-country"], "value"),
    State(ID["c-aux"], "value"),
    prevent_initial_call=True,
)
def on_census_country(code, chosen):
    """A new country offers its own auxiliary presets (others' presets are dropped)."""
    if not isinstance(code, str) or code not in cl.countries():
        return [], []
    tables = cl.auxiliary_tables(code)
    valid = {t["id"] for t in tables}
    return ([{"label": t["name"], "value": t["id"]} for t in tables],
            [a for a in forms.strings(chosen) if a in valid])


CENSUS_OUTPUTS = ("c-message", "c-sentence", "c-summary", "c-graph", "c-table", "c-notes", "c-command")


@callback(
    *[Output(ID[key], "figure" if key == "c-graph" else "children") for key in CENSUS_OUTPUTS],
    Output(ID["census-query"], "data"),
    Input(ID["tabs"], "value"),
    Input(ID["c-country"], "value"),
    Input(ID["c-sex"], "value"),
    Input(ID["c-ages"], "value"),
    Input(ID["c-body"], "value"),
    Input(ID["c-height-width"], "value"),
    Input(ID["c-weight-width"], "value"),
    Input(ID["c-aux"], "value"),
    Input(ID["c-users"], "value"),
)
@_guard(lambda message: (error_box(message), *[no_update] * len(CENSUS_OUTPUTS)), "on_census")
def on_census(view, country, sexes, ages, body, hw, ww, aux, users):
    """Partition → fit → exact and PYC κ; only while the census view is shown."""
    if view != "census":
        raise PreventUpdate
    out = render_census(country, sexes, ages, body, hw, ww, aux, users)
    query = census_query(country, sexes, ages, body, hw, ww, aux, users)
    return (None, *[out[key] for key in CENSUS_OUTPUTS[1:]], query)


# --------------------------------------------------------------------------- callbacks: forecast


@callback(
    Output(ID["f-table"], "data"),
    Output(ID["f-load-message"], "children"),
    Input(ID["f-add"], "n_clicks"),
    Input(ID["f-example"], "n_clicks"),
    Input(ID["f-clear"], "n_clicks"),
    Input(ID["f-use-paste"], "n_clicks"),
    Input(ID["f-upload"], "contents"),
    State(ID["f-upload"], "filename"),
    State(ID["f-paste"], "value"),
    State(ID["f-table"], "data"),
    prevent_initial_call=True,
)
@_guard(lambda message: (no_update, error_box(message)), "on_points_source")
def on_points_source(_add, _example, _clear, _paste, contents, filename, pasted, rows):
    """Fill the table from a button, pasted text or an uploaded CSV."""
    return points_from_source(ctx.triggered_id, contents, filename, pasted, rows)


FORECAST_OUTPUTS = ("f-message", "f-graph", "f-models", "f-band", "f-formulas", "f-command")


@callback(
    *[Output(ID[key], "figure" if key == "f-graph" else "children") for key in FORECAST_OUTPUTS],
    Output(ID["forecast-query"], "data"),
    Input(ID["tabs"], "value"),
    Input(ID["f-table"], "data"),
    Input(ID["f-holdout"], "value"),
)
@_guard(lambda message: (error_box(message), *[no_update] * len(FORECAST_OUTPUTS)), "on_forecast")
def on_forecast(view, rows, holdout):
    """Fit the four models and extrapolate; only while the forecast view is shown."""
    if view != "forecast":
        raise PreventUpdate
    out = render_forecast(rows, holdout)
    query = forecast_query(rows, holdout)
    return (None, *[out[key] for key in FORECAST_OUTPUTS[1:]], query)


# --------------------------------------------------------------------------- the link


# The address bar's query for the current view: the explore view's four numbers are checked in the
# browser; the census and forecast views' parts come from their callbacks above (which parse them anyway).
clientside_callback(
    ClientsideFunction(namespace="anonset", function_name="scalingQuery"),
    Output(ID["query"], "data"),
    Input(ID["tabs"], "value"),
    Input(ID["h-input"], "value"), Input(ID["gamma-input"], "value"), Input(ID["k"], "value"),
    Input(ID["cursor-input"], "value"),
    Input(ID["census-query"], "data"), Input(ID["forecast-query"], "data"),
    State(ID["config"], "data"),
)


# the address bar follows the view (assets/url_sync.js: the one URL sync every page uses)
clientside_callback(
    ClientsideFunction(namespace="anonset", function_name="syncQuery"),
    Output(ID["url-sync"], "children"),
    Input(ID["query"], "data"),
)
