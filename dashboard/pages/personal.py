"""“How many people are like me?” (SPEC §1–2): layout and callbacks over :mod:`dashboard.views.personal`.

Private by construction (issue 15): the only server callback takes the country.
Everything a person answers is handled by clientside callbacks
(``assets/personal_page.js`` over ``assets/anonset_engine.js``) on public tables
fetched by country, band widths and body model.
"""
from __future__ import annotations

import dash
from dash import ClientsideFunction, Input, Output, State, callback, clientside_callback, dcc, html

import census_loaders as cl
from dashboard.core.country import closest_note
from dashboard.core.text import N_, gettext
from dashboard.views.personal import (
    CALLBACKS,
    DEFAULT_COUNTRY,
    FIELDS,
    ID,
    TABS,
    answer_section,
    body_panel,
    country_choices,
    data_note,
    district_box_style,
    form_section,
    has_map,
    map_figure,
    national_note,
    page_config,
    panel_id,
    results_section,
    tab_id,
)

TITLE = N_("AnonSet — how many people are like you?")
dash.register_page(__name__, path="/", name="Me", title=lambda **_kw: gettext(TITLE), order=0)


def layout(country: str | None = None, district: str | None = None, **_query):
    """The page; ``?country=DE`` preselects (unknown values are reported, not fatal).

    ``district=`` in the query (links from before issue 15, the explorer's link) is
    still accepted; the page then moves it into the fragment.
    """
    notices = []
    code = DEFAULT_COUNTRY
    if isinstance(district, list):  # ?district=a&district=b: the last one, as for any repeated setting
        district = str(district[-1]) if district else None
    if country:
        try:
            code = cl.canonical_code(str(country))  # any case: ?country=ng
        except cl.UnknownDataset:
            notices.append(gettext("Unknown country {country} in the link{suggestion}; showing {name} instead.").format(
                country=repr(str(country)[:20]), suggestion=closest_note([country]), name=cl.dataset_info(code)["name"]))
    choices = country_choices(code)
    valid = {d["value"] for d in choices.districts}
    chosen = district if district in valid else None
    if district and district not in valid:
        notices.append(gettext("Unknown district {district} in the link; please choose one.").format(
            district=repr(str(district)[:20])))
    return html.Div(
        [
            html.H1(gettext("How many people are like you?")),
            html.P(
                gettext("Tell AnonSet your district, sex, age, height and weight to see how many people share them — "
                        "estimated from public census statistics. Your answers stay in this browser: the page "
                        "downloads the same public tables for everyone and computes your result here."),
                className="lead",
            ),
            html.Div([html.Div(n, className="warning", role="status") for n in notices], id=ID["notice"]),
            html.Div([answer_section(code), form_section(code, chosen, choices), results_section(code)],
                     className="personal-grid"),
            dcc.Store(id=ID["config"], data=page_config()),
            dcc.Store(id=ID["table-status"]),
            dcc.Store(id=ID["district-all"], data=choices.districts),
            dcc.Store(id=ID["later"]),
            dcc.Store(id=ID["map-values"]),
            dcc.Store(id=ID["map-base"], data={"code": code, "figure": map_figure(code)} if has_map(code) else None),
            html.Div(id=ID["url-sync"], hidden=True),
            html.Div(id=ID["units-sync"], hidden=True),
        ]
    )


# --------------------------------------------------------------------------- the one server callback


@callback(
    Output(ID["district-all"], "data"),
    Output(ID["ages"], "options"),
    Output(ID["aux"], "options"),
    Output(ID["map-base"], "data"),
    Output(ID["map"], "style"),
    Output(ID["data-note"], "children"),
    Output(ID["body-panel"], "children"),
    Output(ID["district-box"], "style"),
    Output(ID["national-note"], "children"),
    Input(ID["country"], "value"),
    prevent_initial_call=True,  # the layout already holds the first country's options and map
)
def on_country(code):
    """A new country: its districts, age groups, presets and map (a setting, not an answer)."""
    if not isinstance(code, str) or code not in cl.countries():
        return [], [], [], None, {"display": "none"}, gettext("Choose a country."), [], {"display": "none"}, ""
    choices = country_choices(code)
    fig = map_figure(code) if has_map(code) else None
    style = {} if fig is not None else {"display": "none"}
    base = {"code": code, "figure": fig} if fig is not None else None
    return (choices.districts, choices.ages, choices.aux, base, style, data_note(code, choices), body_panel(code),
            district_box_style(code), national_note(code))


# --------------------------------------------------------------------------- in the browser

_cs = lambda name: ClientsideFunction(namespace="anonsetMe", function_name=name)  # noqa: E731


def _named(name: str, **output_kw):
    """A clientside callback of the field contract (views.personal.CALLBACKS): its outputs, inputs and
    states by field name, the page config last (the JS reads the names from it)."""
    c = CALLBACKS[name]
    return (*[Output(*FIELDS[f], **output_kw) for f in c["outputs"]],
            *[Input(*FIELDS[f]) for f in c["inputs"]],
            *[State(*FIELDS[f]) for f in c["states"]],
            State(ID["config"], "data"))


# the public table of the country, widths and model (fetched once; a failure offers a retry)
clientside_callback(_cs("loadTable"), *_named("loadTable"))

# the answers → every result (computed here, in the browser)
clientside_callback(_cs("compute"), *_named("compute"), prevent_initial_call="initial_duplicate")

# the charts (Plotly takes ~5 ms each), the re-identification cards, the changes table and the advice
# are drawn a frame after the headline and the funnel's numbers
clientside_callback(
    _cs("drawLater"),
    Output(ID["funnel"], "figure"),
    *[Output(ID[f"what-{k}"], "figure") for k in ("district", "age", "height", "weight", "sex")],
    Output(ID["reid"], "children"),
    Output(ID["changes"], "children"),
    Output(ID["advice"], "children"),
    # each chart's box as high as its figure (assets/personal_page.js drawLater says why)
    *[Output(ID[k], "style") for k in ("funnel", "what-district", "what-age", "what-height", "what-weight", "what-sex")],
    Input(ID["later"], "data"),
    prevent_initial_call=True,
)

# the map (a new country's, or its colours for an answer) is drawn a frame later, so the answer comes first
clientside_callback(
    _cs("colourMap"),
    Output(ID["map"], "figure"),
    Input(ID["map-values"], "data"),
    Input(ID["map-base"], "data"),
)

# metric ↔ imperial: show the other boxes and convert what was typed (never empty them)
clientside_callback(
    _cs("toggleUnits"),
    Output(ID["metric-box"], "style"),
    Output(ID["imperial-box"], "style"),
    Output(ID["height-cm"], "value", allow_duplicate=True),
    Output(ID["height-ft"], "value", allow_duplicate=True),
    Output(ID["height-in"], "value", allow_duplicate=True),
    Output(ID["weight-kg"], "value", allow_duplicate=True),
    Output(ID["weight-lb"], "value", allow_duplicate=True),
    Input(ID["units"], "value"),
    State(ID["height-cm"], "value"),
    State(ID["height-ft"], "value"),
    State(ID["height-in"], "value"),
    State(ID["weight-kg"], "value"),
    State(ID["weight-lb"], "value"),
    prevent_initial_call="initial_duplicate",
)

# the district dropdown offers the districts and places matching what is typed, best first (all districts of a
# small country when nothing is typed); the places of a data set are fetched the first time a person types
clientside_callback(
    _cs("districtOptions"),
    Output(ID["district"], "options"),
    Input(ID["district"], "search_value"),
    Input(ID["district-all"], "data"),
    Input(ID["district"], "value"),
    State(ID["country"], "value"),
)

# a click on the map chooses the district
clientside_callback(
    _cs("districtFromMap"),
    Output(ID["district"], "value", allow_duplicate=True),
    Input(ID["map"], "clickData"),
    prevent_initial_call=True,
)

# another country: its districts, age groups and presets differ, so those answers start afresh
# (in the browser, so the answer does not wait for the server's district list)
clientside_callback(
    _cs("clearOnCountry"),
    Output(ID["district"], "value", allow_duplicate=True),
    Output(ID["ages"], "value", allow_duplicate=True),
    Output(ID["aux"], "value", allow_duplicate=True),
    Input(ID["country"], "value"),
    prevent_initial_call=True,
)

# keep ?country=… in the address bar (never an answer), and the fragment of an opened link in step
clientside_callback(_cs("syncAddress"), *_named("syncAddress"))

clientside_callback(_cs("linkWithAnswers"), *_named("linkWithAnswers"), prevent_initial_call=True)

clientside_callback(_cs("answersFromFragment"), *_named("answersFromFragment", allow_duplicate=True),
                    prevent_initial_call="initial_duplicate")

# the "What if…" tabs (no answers involved)
clientside_callback(
    _cs("chooseTab"),
    *[Output(tab_id(k), "aria-selected") for k, _ in TABS],
    *[Output(tab_id(k), "className") for k, _ in TABS],
    *[Output(tab_id(k), "tabIndex") for k, _ in TABS],
    *[Output(panel_id(k), "style") for k, _ in TABS],
    *[Input(tab_id(k), "n_clicks") for k, _ in TABS],
    prevent_initial_call=True,
)

__all__ = ["layout", "on_country", "has_map"]
