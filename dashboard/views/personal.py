"""“How many people are like me?” — the personal anonymity-set page (SPEC §1–2).

Privacy: the URL query carries the country and district only. The other answers
travel to the server in callback requests (the computation needs them), are never
logged, cached or stored there, and reach the address bar only in the fragment
(``#…``) of a link the person copies on purpose — browsers never send fragments.

This module holds what the page computes or draws without a callback (ids, choices,
profile parsing, :func:`render`, the map memo, :func:`warm`); :mod:`dashboard.pages.personal`
holds the layout and the callbacks.
"""
from __future__ import annotations

import logging
import math
from typing import NamedTuple

import numpy as np
from dash import dcc, html

import census_loaders as cl
from census_loaders.auxiliary import user_fraction
from dashboard import forms, ids
from dashboard.components import card, field
from dashboard.core import catalog, memo
from dashboard.core import verdict as verdict_text
from dashboard.core.body_model import load_country_model
from dashboard.core.cas import DEFAULT_KS, CasWarning, Profile, profile_report
from dashboard.core.errors import InputError
from dashboard.core.formatting import format_count, format_counts
from dashboard.core.scenario import UserPercent
from dashboard.figures.maps import choropleth, geojson_url, log_colorbar, view_of
from dashboard.figures.personal import funnel_figure, what_if_figure
from dashboard.figures.style import GRAPH_CONFIG, percent, safe_log10

PAGE = "me"
LOG = logging.getLogger("anonset.personal")
#: The small map in the form (pixels): its height, and the width used to frame a country.
MAP_WIDTH, MAP_HEIGHT = 250, 330  # width: the plotting area left of the colour bar
MAP_COLORBAR_TITLE = "people like you"
DEFAULT_COUNTRY = "DE"


def _id(name: str) -> str:
    return ids.make(PAGE, name)


ID = {name: _id(name) for name in (
    "country", "district", "sex", "ages", "units", "height-cm", "height-ft", "height-in", "weight-kg",
    "weight-lb", "height-width", "weight-width", "aux", "aux-name", "aux-percent", "users", "k",
    "metric-box", "imperial-box", "map", "message", "headline", "verdict", "warnings", "funnel",
    "funnel-text", "reid", "what-district", "what-age", "what-height", "what-weight", "what-sex",
    "changes", "advice", "example", "copy-link", "link-text", "clipboard", "data-note", "results",
    "url-sync", "aux-note", "model",
)}

#: The visible body-model switch (SPEC §1.6): v2 by default, the paper model selectable.
MODEL_OPTIONS = [
    {"label": " v2 (default)", "value": "v2"},
    {"label": " paper (as published)", "value": "paper"},
]
MODEL_HELP = ("v2: height and weight correlated, weight skewed, tested on real people (NHANES). "
              "paper: independent normals, as in the published figures.")


# --------------------------------------------------------------------------- options (pure)


class CountryChoices(NamedTuple):
    """What the form offers for one data set."""

    districts: list[dict]
    ages: list[dict]
    aux: list[dict]
    note: str


def country_choices(code: str) -> CountryChoices:
    model = load_country_model(code)
    order = sorted(range(model.n_districts), key=lambda i: str(model.district_names[i]).lower())
    regions = len(set(map(str, model.region_names))) > 1
    districts = [
        {"label": catalog.district_label(model.district_names[i], model.district_ids[i], model.region_names[i],
                                         model.region_ids[i], model.filled[i], with_region=regions),
         "value": str(model.district_ids[i])}
        for i in order
    ]
    ages = [{"label": g.label, "value": g.label} for g in model.age_groups]
    aux = [
        {"label": f"{t['name']}", "value": t["id"], "title": t.get("note", "")}
        for t in cl.auxiliary_tables(code)
    ]
    info = cl.dataset_info(code)
    src = info["sources"][0]
    prior = info["body_prior"]
    note = (
        f"Population: {src['publisher']}, table {src['table_id']}, {info['reference_date']}. "
        f"Height and weight: {prior['source']}"
        + (f" — borrowed from {prior['borrowed_from']} (no own statistics)." if prior.get("borrowed_from") else ".")
    )
    return CountryChoices(districts, ages, aux, note)


def data_note(code: str, choices: CountryChoices) -> str:
    """Where the numbers come from, and why there is no map when there is none."""
    return choices.note + ("" if has_map(code) else " " + cl.dataset_info(code).get("boundary_note", ""))


def has_map(code: str) -> bool:
    return cl.dataset_info(code)["boundaries"] is not None


@memo.lru(256)
def map_figure(code: str, district: str | None = None):
    """The small district map (colours filled in by the profile callback), or None without boundaries.

    Memoised and shared between requests: treat the figure as read-only.
    """
    info = cl.dataset_info(code)
    if info["boundaries"] is None:
        return None
    model = load_country_model(code)
    ids_ = [str(i) for i in model.district_ids]
    population = model.counts.sum(axis=(1, 2))
    names = [str(n) for n in model.district_names]
    return choropleth(
        geojson_url(code), ids_, population, names=names,
        hover_lines=[f"{format_count(p)} people aged {model.study[0]:g}–{model.study[1]:g}" for p in population],
        colorbar_title=MAP_COLORBAR_TITLE, view=view_of(info["boundaries"]["frame"], MAP_WIDTH, MAP_HEIGHT),
        filled_ids=[i for i, f in zip(ids_, model.filled) if f] or None, selected_id=district, height=MAP_HEIGHT,
    )


# --------------------------------------------------------------------------- layout


def _width_dropdown(id_: str, unit: str):
    return dcc.Dropdown(
        id=id_, options=[{"label": f"{w} {unit}", "value": w} for w in forms.WIDTHS], value=5,
        clearable=False, searchable=False,
    )


def form_section(code: str, district: str | None, choices: CountryChoices):
    return html.Section(
        [
            html.H2("About you", className="panel-title"),
            field("Country", dcc.Dropdown(id=ID["country"], options=catalog.country_options(cl.manifest()), value=code,
                                           clearable=False),
                   control_id=ID["country"]),
            field("District", dcc.Dropdown(id=ID["district"], options=choices.districts, value=district,
                                            placeholder="Search or click the map…"),
                   "Type to search, or click your district on the map.", ID["district"]),
            dcc.Graph(id=ID["map"], figure=map_figure(code, district) or {}, config={**GRAPH_CONFIG, "scrollZoom": True},
                      className="mini-map", style={} if has_map(code) else {"display": "none"}),
            html.Div(data_note(code, choices), id=ID["data-note"], className="field-help"),
            field("Sex", dcc.RadioItems(id=ID["sex"], options=[{"label": " female", "value": "female"},
                                                                {"label": " male", "value": "male"}],
                                         value=None, inline=True, className="radio"), control_id=ID["sex"]),
            field("Age group(s)", dcc.Dropdown(id=ID["ages"], options=choices.ages, value=[], multi=True,
                                                placeholder="Choose one or more census age groups"),
                   "Selecting several groups adds their people up.", ID["ages"]),
            field("Units", dcc.RadioItems(id=ID["units"], options=[{"label": " cm / kg", "value": "metric"},
                                                                    {"label": " ft, in / lb", "value": "imperial"}],
                                           value="metric", inline=True, className="radio"), control_id=ID["units"]),
            html.Div(
                [
                    field("Height (cm)", dcc.Input(id=ID["height-cm"], type="number", inputMode="decimal",
                                                    placeholder="e.g. 172", debounce=True), control_id=ID["height-cm"]),
                    field("Weight (kg)", dcc.Input(id=ID["weight-kg"], type="number", inputMode="decimal",
                                                    placeholder="e.g. 70", debounce=True), control_id=ID["weight-kg"]),
                ],
                id=ID["metric-box"], className="row2",
            ),
            html.Div(
                [
                    field("Height (ft)", dcc.Input(id=ID["height-ft"], type="number", placeholder="5", debounce=True),
                           control_id=ID["height-ft"]),
                    field("(in)", dcc.Input(id=ID["height-in"], type="number", placeholder="8", debounce=True),
                           control_id=ID["height-in"]),
                    field("Weight (lb)", dcc.Input(id=ID["weight-lb"], type="number", placeholder="154", debounce=True),
                           control_id=ID["weight-lb"]),
                ],
                id=ID["imperial-box"], className="row3", style={"display": "none"},
            ),
            html.Div(
                [
                    field("Height band", _width_dropdown(ID["height-width"], "cm"), control_id=ID["height-width"]),
                    field("Weight band", _width_dropdown(ID["weight-width"], "kg"), control_id=ID["weight-width"]),
                ],
                className="row2",
            ),
            field("Body model", dcc.RadioItems(id=ID["model"], options=MODEL_OPTIONS, value="v2", inline=True,
                                                className="radio"),
                   MODEL_HELP, ID["model"]),
            html.Details(
                [
                    html.Summary("What else might an attacker know? (optional)"),
                    dcc.Checklist(id=ID["aux"], options=choices.aux, value=[], className="checklist"),
                    html.Div(id=ID["aux-note"], className="field-help"),
                    html.Div(
                        [
                            field("Your own fact", dcc.Input(id=ID["aux-name"], type="text", maxLength=60,
                                                             placeholder="e.g. uses app X", debounce=True),
                                   control_id=ID["aux-name"]),
                            field("… true for % of people", dcc.Input(id=ID["aux-percent"], type="text", maxLength=200,
                                                                        placeholder="12, or 18-30:20,30+:5", debounce=True),
                                   "One percentage, or one per age group.", ID["aux-percent"]),
                        ],
                        className="row2",
                    ),
                    field("Users of the app (for k-indistinguishability)",
                           dcc.Input(id=ID["users"], type="number", min=1, placeholder="e.g. 10000", debounce=True),
                           "How many people's records the app's dataset holds.", ID["users"]),
                    field("Safety targets k", dcc.Dropdown(id=ID["k"], options=[{"label": str(k), "value": k} for k in (2, 5, 10, 20, 50, 100, 1000)],
                                                            value=list(DEFAULT_KS), multi=True), control_id=ID["k"]),
                ],
                className="details",
            ),
            html.Div(
                [
                    html.Button("Try an example", id=ID["example"], className="button secondary", n_clicks=0),
                    html.Button("Copy link with my answers", id=ID["copy-link"], className="button", n_clicks=0),
                ],
                className="buttons",
            ),
            html.Div(
                [
                    html.Label("Link", htmlFor=ID["link-text"], className="visually-hidden"),
                    dcc.Input(id=ID["link-text"], type="text", readOnly=True, className="link-text"),
                    dcc.Clipboard(target_id=ID["link-text"], id=ID["clipboard"], title="copy"),
                ],
                className="link-row",
            ),
            html.Div("Your answers go into the link's #fragment, which browsers never send to a server.",
                     className="field-help"),
        ],
        className="panel form-panel",
        **{"aria-label": "Your attributes"},
    )


def results_section():
    graph = lambda key: dcc.Graph(id=ID[key], config=GRAPH_CONFIG, figure={})
    return html.Section(
        [
            html.Div(id=ID["message"], role="alert"),
            html.P("", id=ID["headline"], className="headline", **{"aria-live": "polite"}),
            html.P("", id=ID["verdict"], className="verdict"),
            html.Div(id=ID["warnings"]),
            html.H2("How the crowd narrows"),
            graph("funnel"),
            html.Ol(id=ID["funnel-text"], className="funnel-text"),
            html.H2("Risk of re-identification"),
            html.Div(id=ID["reid"], className="cards"),
            html.H2("What if…"),
            dcc.Tabs(
                [
                    dcc.Tab(graph("what-district"), label="District", value="district"),
                    dcc.Tab(graph("what-age"), label="Age", value="age"),
                    dcc.Tab(graph("what-height"), label="Height", value="height"),
                    dcc.Tab(graph("what-weight"), label="Weight", value="weight"),
                    dcc.Tab(graph("what-sex"), label="Sex", value="sex"),
                ],
                value="district",
            ),
            html.H2("Widen or withhold"),
            html.Div(id=ID["changes"]),
            html.H2("How to stay in a crowd"),
            html.Div(id=ID["advice"]),
        ],
        id=ID["results"],
        className="results-panel",
        **{"aria-label": "Your anonymity set"},
    )


def warm() -> None:
    """Before gunicorn forks: the map of every country with boundaries (each is drawn on a visit's first choice)."""
    for code in cl.countries():
        map_figure(code)


# --------------------------------------------------------------------------- rendering (pure)


def _model_box(model) -> html.Div:
    """Which body model the numbers come from (the switch's effect, stated in words)."""
    return html.Div(model.model_notes()[0], className="note", **{"data-code": f"body_model_{model.body_model}"})


def _warning_box(w) -> html.Div:
    return html.Div(w.message, className="error" if w.code == "likely_unique" else "warning", **{"data-code": w.code})


def reid_cards(report, source: str) -> list:
    r = report.reidentification
    cards = [
        ("Your own set", f"{r.expected_anonymity_set:,.1f}" if r.expected_anonymity_set < 10
         else format_count(r.expected_anonymity_set),
         f"You have these attributes for certain, so your anonymity set is you plus about (N − 1)·p others: "
         f"1 + (N − 1)·p = {r.expected_anonymity_set:,.2f}, p = CAS / N (SPEC §1.7). {source}"),
        ("Correct guess", percent(r.correct_guess),
         f"Probability that an attacker who matches on these attributes picks you: 1 / max(CAS, 1). {source}"),
        ("Uniqueness ξ", percent(r.uniqueness),
         f"Chance nobody else in the population of {format_count(r.population)} shares your attributes: "
         f"ξ = (1 − p)^(N − 1), p = CAS / N (Rocher et al. 2019). {source}"),
        ("Correctness κ", percent(r.correctness),
         f"Chance exact matching over the whole population identifies you: κ = (1 − (1 − p)^N) / (N p) "
         f"(Rocher et al. 2019). {source}"),
    ]
    for k, prob in sorted(r.k_indistinguishable.items()):
        cards.append(
            (f"{k}-indistinguishable", percent(prob),
             f"Chance your record shares its attributes with at least {k - 1} other(s) among the app's "
             f"{format_count(r.users)} users: Pr[Binomial(m − 1, p) ≥ k − 1] (Yang et al.). {source}")
        )
    return [card(title, value, explain, tooltip=True, tabIndex=0) for title, value, explain in cards]


def changes_table(what_ifs) -> html.Table:
    rows = [("Now", "", what_ifs.cas)] + [
        (c.label, c.action, c.cas) for c in (*what_ifs.widen, *what_ifs.withhold)
    ]
    return html.Table(
        [html.Thead(html.Tr([html.Th("Change"), html.Th("People like you", className="num")]))]
        + [html.Tbody([html.Tr([html.Td(label), html.Td(format_count(cas), className="num")]) for label, _, cas in rows])],
        className="table",
    )


def advice_list(advice) -> html.Div:
    blocks = []
    for a in advice:
        k = format_count(a.k)
        if a.met:
            blocks.append(html.P(f"k = {k}: already met — at least {k} people share your attributes.", className="ok"))
            continue
        if not a.options:
            blocks.append(html.P(f"k = {k}: no combination of widening or withholding reaches {k} people.",
                                 className="warning"))
            continue
        items = [
            html.Li([html.B("; ".join(o.changes)), f" → {format_count(o.cas)} people",
                     html.Span(f" (gives up {o.bits:.1f} bits)" if math.isfinite(o.bits) else "", className="muted")])
            for o in a.options[:5]
        ]
        blocks.append(html.Div([html.P(f"To be one of at least {k} people:"), html.Ol(items)]))
    return html.Div(blocks)


def build_profile(country, district, sex, ages, units, h_cm, h_ft, h_in, w_kg, w_lb, h_width, w_width,
                  aux, aux_name, aux_percent) -> Profile:
    """Validate the form and make a Profile; raises InputError with a message for the page."""
    codes = cl.countries()
    code = forms.choice(country, codes, "Country", default=DEFAULT_COUNTRY)
    model = load_country_model(code)
    district = forms.choice(district, set(map(str, model.district_ids)), "District")
    sex = forms.choice(sex, ("female", "male"), "Sex")
    ages = forms.selection(ages, [g.label for g in model.age_groups], "Age group(s)")
    units = forms.choice(units, ("metric", "imperial"), "Units", default="metric")
    height = forms.height_cm(units, h_cm, h_ft, h_in)
    weight = forms.weight_kg(units, w_kg, w_lb)
    hw = forms.width(h_width, "Height band")
    ww = forms.width(w_width, "Weight band")
    presets = forms.selection(aux, [t["id"] for t in cl.auxiliary_tables(code)], "Auxiliary knowledge")
    extra = []
    text = "" if aux_percent is None else str(aux_percent).strip()
    if text:
        if len(text) > 200:
            raise InputError("Your own fact: that percentage is too long")
        name = (aux_name or "").strip()[:60].replace("=", " ").replace(";", " ") or "your own fact"
        if ":" in text:  # per age group, e.g. 18-30:10,30+:5 (the explorer's syntax)
            extra.append(UserPercent.parse(f"{name}={text}").table())
        else:
            percent = forms.percentage(text, "Your own fact (%)")
            try:
                extra.append(user_fraction(name, percent))
            except ValueError as exc:
                raise InputError(f"Your own fact: {exc}") from None
    return Profile.build(code, district=district, sex=sex, age=ages, height=height, height_width=hw,
                         weight=weight, weight_width=ww, aux=(*presets, *extra))


def render(profile: Profile, users, ks, body_model: str = "v2") -> dict:
    """Everything the results panel shows for a profile (pure; tested without a browser).

    ``body_model`` is the switch's value: ``v2`` (default) or ``paper``.
    """
    m = forms.users(users)
    ks = forms.selection(ks, (2, 5, 10, 20, 50, 100, 1000), "Safety targets k") or DEFAULT_KS
    body_model = forms.choice(body_model, ("v2", "paper"), "Body model", default="v2")
    model = load_country_model(profile.country, model=body_model)
    report = profile_report(model, profile, ks=ks, users=m)
    result = report.result
    info = cl.dataset_info(profile.country)
    src = info["sources"][0]
    source = f"Census: {src['publisher']} {src['table_id']} ({info['reference_date']})."
    wi = report.what_ifs
    return {
        "headline": verdict_text.own_headline(result.others),
        "verdict": verdict_text.verdict(result.cas),
        "warnings": [_model_box(model)] + [_warning_box(w) for w in result.warnings],
        "funnel": funnel_figure(result),
        "funnel_text": [html.Li([html.Span(f"{line.value}: "), html.B(format_count(line.count))]) for line in result.funnel],
        "reid": reid_cards(report, source),
        "what_district": what_if_figure(wi.district, f"Other districts ({model.district_label}), ranked", max_bars=25),
        "what_age": what_if_figure(wi.age, "Other age groups"),
        "what_height": what_if_figure(wi.height, "Other height bands", unit=" cm"),
        "what_weight": what_if_figure(wi.weight, "Other weight bands", unit=" kg"),
        "what_sex": what_if_figure(wi.sex, "The other sex"),
        "changes": changes_table(wi),
        "advice": advice_list(report.advice),
        "district_cas": dict(zip(map(str, wi.district.keys), wi.district.cas)),
    }


def map_colours(profile: Profile, district_cas: dict) -> dict:
    """The small map's new colours, colour bar and hover for a result's CAS per district."""
    model = load_country_model(profile.country)
    values = np.array([district_cas.get(str(i), math.nan) for i in model.district_ids], dtype=float)
    return {"z": safe_log10(values), "colorbar": log_colorbar(values, MAP_COLORBAR_TITLE),
            "hovertext": np.char.add(format_counts(values), " people like you")}


def profile_aux_notes(profile: Profile):
    """The stated assumptions of the chosen auxiliary tables (shown under the checklist)."""
    notes = []
    for key in profile.aux_ids:
        entry = next((t for t in cl.auxiliary_tables() if t["id"] == key), None)
        if entry and entry.get("note"):
            notes.append(CasWarning("auxiliary_note", f"{entry['name']}: {entry['note']}"))
    return notes
