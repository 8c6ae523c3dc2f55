"""“How many people are like me?” (SPEC §1–2): layout and callbacks over :mod:`dashboard.views.personal`.

Privacy: the URL query carries the country and district only; the other answers travel
in callback requests and are never logged, cached or stored (see the view's docstring).
"""
from __future__ import annotations

import dash
from dash import ClientsideFunction, Input, Output, Patch, State, callback, clientside_callback, html, no_update

import census_loaders as cl
from dashboard import ids
from dashboard.components import error_box
from dashboard.core.errors import InputError
from dashboard.views.personal import (
    DEFAULT_COUNTRY,
    ID,
    LOG,
    build_profile,
    country_choices,
    data_note,
    form_section,
    has_map,
    map_colours,
    map_figure,
    profile_aux_notes,
    render,
    results_section,
)

dash.register_page(__name__, path="/", name="Me", title="AnonSet — how many people are like you?", order=0)


def layout(country: str | None = None, district: str | None = None, **_query):
    """The page; ``?country=DE&district=11000`` preselects (unknown values are reported, not fatal)."""
    notices = []
    codes = cl.countries()
    code = country if country in codes else DEFAULT_COUNTRY
    if country and country not in codes:
        notices.append(f"Unknown country {str(country)[:20]!r} in the link; showing {cl.dataset_info(code)['name']}.")
    choices = country_choices(code)
    valid = {d["value"] for d in choices.districts}
    chosen = district if district in valid else None
    if district and district not in valid:
        notices.append(f"Unknown district {str(district)[:20]!r} in the link; please choose one.")
    return html.Div(
        [
            html.H1("How many people are like you?"),
            html.P(
                "Tell AnonSet your district, sex, age, height and weight to see how many people share them — "
                "estimated from public census statistics. A health app holding these attributes could link them "
                "to you if that number is small. Nothing you type is stored.",
                className="lead",
            ),
            *[html.Div(n, className="warning", role="status") for n in notices],
            html.Div([form_section(code, chosen, choices), results_section()], className="personal-grid"),
            html.Div(id=ID["url-sync"], hidden=True),
        ]
    )


# --------------------------------------------------------------------------- callbacks


@callback(
    Output(ID["district"], "options"),
    Output(ID["ages"], "options"),
    Output(ID["aux"], "options"),
    Output(ID["map"], "figure"),
    Output(ID["map"], "style"),
    Output(ID["data-note"], "children"),
    Output(ID["district"], "value", allow_duplicate=True),
    Output(ID["ages"], "value", allow_duplicate=True),
    Output(ID["aux"], "value", allow_duplicate=True),
    Input(ID["country"], "value"),
    State(ID["district"], "value"),
    prevent_initial_call=True,  # the layout already holds the first country's options and map
)
def on_country(code, district):
    """A new country: its districts, age groups, presets and map (geometry sent once per country)."""
    if code not in cl.countries():
        return [], [], [], {}, {"display": "none"}, "Choose a country.", None, [], []
    choices = country_choices(code)
    valid = {d["value"] for d in choices.districts}
    district = district if isinstance(district, str) and district in valid else None
    fig = map_figure(code, district)
    style = {} if fig is not None else {"display": "none"}
    note = data_note(code, choices)
    return (choices.districts, choices.ages, choices.aux, fig or {}, style, note, district,
            no_update if district else [], no_update if district else [])


@callback(
    Output(ID["district"], "value", allow_duplicate=True),
    Input(ID["map"], "clickData"),
    prevent_initial_call=True,
)
def on_map_click(click):
    """Clicking a district on the map selects it."""
    try:
        return str(click["points"][0]["location"])
    except (TypeError, KeyError, IndexError):
        return no_update


RESULT_OUTPUTS = ("headline", "verdict", "warnings", "funnel", "funnel_text", "reid", "what_district", "what_age",
                  "what_height", "what_weight", "what_sex", "changes", "advice")


@callback(
    Output(ID["message"], "children"),
    *[Output(ID[key.replace("_", "-")], "figure" if key == "funnel" or key.startswith("what_") else "children")
      for key in RESULT_OUTPUTS],
    Output(ID["map"], "figure", allow_duplicate=True),
    Output(ID["aux-note"], "children"),
    Input(ID["country"], "value"),
    Input(ID["district"], "value"),
    Input(ID["sex"], "value"),
    Input(ID["ages"], "value"),
    Input(ID["units"], "value"),
    Input(ID["height-cm"], "value"),
    Input(ID["height-ft"], "value"),
    Input(ID["height-in"], "value"),
    Input(ID["weight-kg"], "value"),
    Input(ID["weight-lb"], "value"),
    Input(ID["height-width"], "value"),
    Input(ID["weight-width"], "value"),
    Input(ID["aux"], "value"),
    Input(ID["aux-name"], "value"),
    Input(ID["aux-percent"], "value"),
    Input(ID["users"], "value"),
    Input(ID["k"], "value"),
    Input(ID["model"], "value"),
    prevent_initial_call="initial_duplicate",
)
def on_profile(country, district, sex, ages, units, h_cm, h_ft, h_in, w_kg, w_lb, h_width, w_width,
               aux, aux_name, aux_percent, users, ks, body_model="v2"):
    """Recompute the anonymity set. Never logs, caches or stores the attributes."""
    n_out = len(RESULT_OUTPUTS) + 2
    try:
        profile = build_profile(country, district, sex, ages, units, h_cm, h_ft, h_in, w_kg, w_lb, h_width,
                                w_width, aux, aux_name, aux_percent)
        out = render(profile, users, ks, body_model)
    except InputError as exc:
        return (error_box(str(exc)), *([no_update] * n_out))
    except Exception as exc:  # never a traceback in the page or the log (which would hold the inputs)
        LOG.error("personal page: %s while computing a profile", type(exc).__name__)
        return (error_box("Sorry — this estimate could not be computed. Please check your answers."),
                *([no_update] * n_out))
    patch = Patch()
    for key, value in map_colours(profile, out["district_cas"]).items():
        patch["data"][0][key] = value
    aux_notes = [w.message for w in profile_aux_notes(profile)]
    return (None, *[out[key] for key in RESULT_OUTPUTS], patch if has_map(profile.country) else no_update,
            html.Ul([html.Li(n) for n in aux_notes]) if aux_notes else None)


clientside_callback(
    ClientsideFunction(namespace="anonset", function_name="toggleUnits"),
    Output(ID["metric-box"], "style"),
    Output(ID["imperial-box"], "style"),
    Input(ID["units"], "value"),
)

clientside_callback(
    ClientsideFunction(namespace="anonset", function_name="syncQuery"),
    Output(ID["url-sync"], "children"),
    Input(ID["country"], "value"),
    Input(ID["district"], "value"),
)

clientside_callback(
    ClientsideFunction(namespace="anonset", function_name="linkWithAnswers"),
    Output(ID["link-text"], "value"),
    Input(ID["copy-link"], "n_clicks"),
    [State(ID[k], "value") for k in ("country", "district", "sex", "ages", "units", "height-cm", "height-ft",
                                      "height-in", "weight-kg", "weight-lb", "height-width", "weight-width", "aux")],
    prevent_initial_call=True,
)

clientside_callback(
    ClientsideFunction(namespace="anonset", function_name="answersFromFragment"),
    [Output(ID[k], "value", allow_duplicate=True) for k in ("sex", "ages", "units", "height-cm", "height-ft",
                                                             "height-in", "weight-kg", "weight-lb", "height-width",
                                                             "weight-width", "aux")],
    Output(ID["district"], "value", allow_duplicate=True),
    Input(ids.URL, "hash"),
    Input(ID["example"], "n_clicks"),
    State(ID["ages"], "options"),
    State(ID["district"], "options"),
    State(ID["district"], "value"),
    prevent_initial_call="initial_duplicate",
)
