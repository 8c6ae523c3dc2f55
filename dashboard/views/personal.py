"""“How many people are like me?” — the personal anonymity-set page (SPEC §1–2, issue 15).

Private by construction: a person's answers never reach the server.  The server
serves public tables (:mod:`dashboard.core.personal`, at
``/_tables/<code>.json?model=…&hw=…&ww=…``) — the same for every visitor, chosen
by the country, the band widths and the body model only — and
``assets/anonset_engine.js`` computes the funnel, the what-ifs, the advice and
the re-identification figures in the browser (``assets/personal_page.js`` draws
them).  The only server callback of the page takes the country (its districts,
age groups, presets and map).  Answers reach the address bar only in the
fragment (``#…``) of a link, which browsers never send.

This module holds ids, choices, the layout pieces and :func:`warm`;
:mod:`dashboard.pages.personal` holds the layout function and the callbacks.
"""
from __future__ import annotations

import logging
from pathlib import Path
from typing import NamedTuple

from dash import dcc, html

import census_loaders as cl
from census_loaders.auxiliary import PRESET_TEXTS
from dashboard import forms, ids
from dashboard.components import field, model_help, model_switch, table
from dashboard.core import country as catalog
from dashboard.core import memo
from dashboard.core import personal as pt
from dashboard.core.body import ADULT_HEIGHT_LIMITS, MODEL_LABELS, WEIGHT_LIMITS
from dashboard.core.country import load_country_model
from dashboard.core.errors import InputError
from dashboard.core.personal import DEFAULT_KS
from dashboard.core.text import (
    N_,
    body_source_name,
    client_text,
    current_language,
    first_question,
    format_count,
    gettext,
    local_number,
    ngettext,
    script_messages,
    translate_marked,
)
from dashboard.core.text import gettext as _
from dashboard.figures.maps import choropleth, geojson_url, view_of
from dashboard.figures.style import FONT, HIGHLIGHT, MUTED, QUALITATIVE, graph_config, separators
from dashboard.views import data_notes
from dashboard.views.anonland import small_crowd_error

PAGE = "me"
ASSETS = Path(__file__).resolve().parents[2] / "assets"
LOG = logging.getLogger("anonset.personal")
#: The small map in the form (pixels): its height, and the width used to frame a country.
MAP_WIDTH, MAP_HEIGHT = 250, 330  # width: the plotting area left of the colour bar
MAP_COLORBAR_TITLE = N_("people like you")
DEFAULT_COUNTRY = "DE"
#: The safety targets offered for the advice.
K_CHOICES = (2, 5, 10, 20, 50, 100, 1000)


def _id(name: str) -> str:
    return ids.make(PAGE, name)


ID = {name: _id(name) for name in (
    "country", "district", "sex", "ages", "units", "height-cm", "height-ft", "height-in", "weight-kg",
    "weight-lb", "height-width", "weight-width", "aux", "aux-name", "aux-percent", "users", "k", "model",
    "metric-box", "imperial-box", "map", "message", "headline", "verdict", "warnings", "funnel",
    "funnel-text", "reid", "what-district", "what-age", "what-height", "what-weight", "what-sex",
    "changes", "advice", "example", "copy-link", "link-text", "clipboard", "data-note", "results",
    "url-sync", "aux-note", "config", "table-status", "status", "retry", "answer", "notice", "tabs",
    "units-sync", "map-values", "map-base", "district-all", "later", "self-report", "body-panel", "district-box",
    "national-note",
)}



# --------------------------------------------------------------------------- the page ↔ browser contract
#
# One named field contract between this page and assets/personal_page.js (issue 25).  Dash hands a
# clientside function its values by position; the page config ships the names below, so the
# JavaScript works with objects keyed by these names and returns objects keyed by them.

#: The answers and settings in a shared link's #fragment — never in the query, never sent — by the
#: names the link uses, in its order.
FRAGMENT = ("district", "sex", "ages", "units", "hcm", "hft", "hin", "wkg", "wlb", "hw", "ww", "aux", "model", "sr")
#: The settings that choose a public table (never an answer).
TABLE_SETTINGS = ("country", "hw", "ww", "model", "sr")
#: The answers the result is computed from.
ANSWERS = ("district", "sex", "ages", "units", "hcm", "hft", "hin", "wkg", "wlb", "aux", "auxName", "auxPct",
           "users", "ks")
#: What the answer computation writes.
RESULTS = ("status", "message", "headline", "verdict", "warnings", "funnelText", "later", "mapValues", "auxNote",
           "resultsClass", "answerClass")

#: Every field by name → (component id, property).
FIELDS = {
    **{name: (ID[key], "value") for name, key in (
        ("district", "district"), ("sex", "sex"), ("ages", "ages"), ("units", "units"), ("hcm", "height-cm"),
        ("hft", "height-ft"), ("hin", "height-in"), ("wkg", "weight-kg"), ("wlb", "weight-lb"),
        ("hw", "height-width"), ("ww", "weight-width"), ("aux", "aux"), ("model", "model"), ("sr", "self-report"),
        ("country", "country"), ("auxName", "aux-name"), ("auxPct", "aux-percent"), ("users", "users"), ("ks", "k"),
        ("link", "link-text"))},
    "tableStatus": (ID["table-status"], "data"),
    "retry": (ID["retry"], "n_clicks"),
    "retryStyle": (ID["retry"], "style"),
    "presenter": (ids.PRESENTER_STORE, "data"),
    "copyLink": (ID["copy-link"], "n_clicks"),
    "hash": (ids.URL, "hash"),
    "example": (ID["example"], "n_clicks"),
    "ageOptions": (ID["ages"], "options"),
    "districtOptions": (ID["district-all"], "data"),
    "notice": (ID["notice"], "children"),
    "urlSync": (ID["url-sync"], "children"),
    "status": (ID["status"], "children"),
    "message": (ID["message"], "children"),
    "headline": (ID["headline"], "children"),
    "verdict": (ID["verdict"], "children"),
    "warnings": (ID["warnings"], "children"),
    "funnelText": (ID["funnel-text"], "children"),
    "later": (ID["later"], "data"),
    "mapValues": (ID["map-values"], "data"),
    "auxNote": (ID["aux-note"], "children"),
    "resultsClass": (ID["results"], "className"),
    "answerClass": (ID["answer"], "className"),
}

#: The answers' components: their values stay in the browser (tests/test_page_personal.py checks the callback
#: map), with the map (a click chooses the district) and the link holding the answers.
PERSONAL = (*(FIELDS[name][0] for name in ANSWERS), ID["map"], ID["link-text"])

#: The named clientside callbacks: what each reads (inputs, then states; the page config comes last)
#: and writes, by field name.
CALLBACKS = {
    "loadTable": {"inputs": (*TABLE_SETTINGS, "retry"), "states": (), "outputs": ("tableStatus", "retryStyle")},
    "compute": {"inputs": ("tableStatus", *ANSWERS, "presenter", *TABLE_SETTINGS), "states": (), "outputs": RESULTS},
    "syncAddress": {"inputs": ("country", *FRAGMENT), "states": (), "outputs": ("urlSync",)},
    "linkWithAnswers": {"inputs": ("copyLink",), "states": ("country", *FRAGMENT), "outputs": ("link",)},
    "answersFromFragment": {"inputs": ("hash", "example"), "states": ("ageOptions", "districtOptions", "district", "notice"),
                            "outputs": (*FRAGMENT, "notice")},
}


def client_fields() -> dict:
    """The contract as the browser reads it: per callback, the names of its arguments and of its outputs."""
    return {name: {"args": [*c["inputs"], *c["states"]], "outputs": list(c["outputs"])} for name, c in CALLBACKS.items()}


# --------------------------------------------------------------------------- options (pure)


class CountryChoices(NamedTuple):
    """What the form offers for one data set."""

    districts: list[dict]
    ages: list[dict]
    aux: list[dict]
    note: str


#: How people type umlauts and ß on a keyboard without them ("Muenchen", "Strasse"), beside dropping them.
_TRANSLITERATION = str.maketrans({"ä": "ae", "ö": "oe", "ü": "ue", "ß": "ss", "Ä": "Ae", "Ö": "Oe", "Ü": "Ue"})


def _search_text(name: str, code: str) -> str:
    """What a district is found by besides its label: its name as published, with umlauts spelled out
    ("Muenchen"), and its code, " | "-separated (each one a name: core.country.rank_districts).  Accents are
    ignored by the search itself; English and local place names come from the gazetteer
    (``/_places/<code>.json``, census_loaders.places)."""
    return " | ".join(dict.fromkeys([name, name.translate(_TRANSLITERATION), code]))


def dropdown_option(option: dict) -> dict:
    """A district option as Dash's dropdown takes it (the search's extra keys, name and pop, left out)."""
    return {k: option[k] for k in ("label", "value", "search") if k in option}


def country_choices(code: str) -> CountryChoices:
    """The form's options for a data set, in the current language (memoised and shared: treat as read-only)."""
    return _country_choices(code, current_language())


@memo.lru(64)
def _country_choices(code: str, lang: str) -> CountryChoices:
    model = load_country_model(code)
    order = sorted(range(model.n_districts), key=lambda i: str(model.district_names[i]).lower())
    regions = len(set(map(str, model.region_names))) > 1
    population = model.counts.sum(axis=(1, 2))
    districts = [
        {"label": catalog.district_label(model.district_names[i], model.district_ids[i], model.region_names[i],
                                         model.region_ids[i], model.filled[i], with_region=regions),
         "value": str(model.district_ids[i]),
         "search": _search_text(str(model.district_names[i]), str(model.district_ids[i])),
         "name": str(model.district_names[i]), "pop": round(float(population[i]), 1)}
        for i in order
    ]
    ages = five_year_picks(model.age_groups) + [{"label": g.shown_label, "value": g.label, "search": age_years(g.lo, g.hi)}
                                                for g in model.age_groups]
    aux = [
        {"label": translate_marked(t["name"]), "value": t["id"],  # ours (census_loaders.auxiliary): translated
         "title": translate_marked(t["note"]) if t.get("note") else ""}
        for t in cl.auxiliary_tables(code)
    ]
    info = cl.dataset_info(code)
    src = catalog.census_source(info["sources"])  # every file: the US publishes one per sex
    prior = info["body_prior"]
    tables = ngettext("table {id}", "tables {id}", 2 if ";" in src["table_id"] else 1).format(id=src["table_id"])
    body = body_source_name(prior) + (f", {prior['year']}" if prior.get("year") else "")
    note = _("Population: {publisher}, {tables}, {date}.").format(
        publisher=src["publisher"], tables=tables, date=info["reference_date"]) + " " + (
        _("Height and weight: {source} — borrowed from {country} (no own statistics).").format(
            source=body, country=prior["borrowed_from"]) if prior.get("borrowed_from")
        else _("Height and weight: {source}.").format(source=body))
    return CountryChoices(districts, ages, aux, note)


def body_panel(code: str) -> list:
    """The "body statistics" panel (twin of ``anonset body --country CC``): the prior a data set uses.

    A data set without a usable source gets one line saying so (nothing else is shown in its place).
    """
    return _body_panel(code, current_language())


@memo.lru(64)
def _body_panel(code: str, lang: str) -> list:
    try:
        b = catalog.body_statistics(code)
    except InputError as exc:  # the core's message, in English (quoted as such)
        return [html.Summary(_("Body statistics")), html.P(str(exc), className="error", lang="en")]
    year = f", {b['year']}" if b.get("year") else ""
    n = lambda x, d: local_number(f"{x:.{d}f}")  # noqa: E731
    sex, age, height, weight, corr = _("sex"), _("age"), _("height cm"), _("weight kg"), _("height–weight r")
    rows = [{sex: translate_marked(g["sex"]), age: g["age"],
             height: f"{n(g['height_mean'], 1)} ± {n(g['height_sd'], 1)}",
             weight: f"{n(g['weight_mean'], 1)} ± {n(g['weight_sd'], 1)}",
             corr: n(g["corr_height_weight"], 2),
             **({"BMI": f"{n(g['bmi_mean'], 1)} ± {n(g['bmi_sd'], 1)}"} if "bmi_mean" in g else {})}
            for g in b["groups"]]
    return [
        html.Summary(_("Body statistics: {source}").format(source=b["source"] + year)),
        table(rows, _("Mean ± SD per sex and age group, and the correlation of height and weight the model uses"),
              wrap_class="table-wrap"),
        # the core's notes on the source, in the page's language (the CLI's are English)
        html.P([b["note"], " ", b["groups_below_18"], " ", b["open_group"]], className="field-help"),
        html.P(html.Code(f"anonset body --country {b['code']} --json"), className="field-help"),
    ]


#: The oldest age an open group ("85+") is found by when a person types their age.
OLDEST_TYPED_AGE = 110


def age_years(lo: float, hi: float | None) -> str:
    """The whole years of an age group, so that typing one's age ("34") finds the group "30–35"."""
    top = OLDEST_TYPED_AGE + 1 if hi is None or hi != hi or hi == float("inf") else int(hi)
    return " ".join(str(a) for a in range(int(lo), max(top, int(lo) + 1)))


def five_year_picks(groups) -> list[dict]:
    """For single-year census ages (GB): one option per five-year block, picking its five groups at once.

    The value ``5y:40`` stands for the groups inside [40, 45); the browser expands it.
    """
    singles = [g for g in groups if g.hi - g.lo == 1]
    if len(singles) < len(groups) / 2:
        return []
    los = {g.lo for g in singles}
    out = []
    for lo in sorted({5 * (int(g.lo) // 5) for g in singles}):
        if all(lo + i in los for i in range(5)):
            out.append({"label": _("{lo}–{hi} (five single years)").format(lo=f"{lo:g}", hi=f"{lo + 5:g}"),
                        "value": f"5y:{lo:g}",
                        "search": age_years(lo, lo + 5)})
    return out


def data_note(code: str, choices: CountryChoices) -> list:
    """Where the numbers come from, why there is no map when there is none, and the data set's own notes
    (its census date, how unknown ages are treated, districts without a map), folded."""
    out = [choices.note]
    no_map = None if has_map(code) else data_notes.boundary_note(code)  # the data set's own words, in the page's
    if no_map:
        out += [" ", no_map]
    notes = data_notes.note_items(code)
    if not notes:
        return out
    summary = ngettext("About {name} ({n} note)", "About {name} ({n} notes)", len(notes))
    return out + [html.Details([html.Summary(summary.format(name=catalog.dataset_title(code), n=len(notes))),
                                html.Ul(notes)], className="notes")]


def has_map(code: str) -> bool:
    """A district map to click on: not for a national-only data set (its one "district" is the country)."""
    info = cl.dataset_info(code)
    return info["boundaries"] is not None and not is_national(code)


def is_national(code: str) -> bool:
    """A data set without districts (a UN national estimate): the crowd starts at the country."""
    info = cl.dataset_info(code)
    return bool(info.get("national_model")) or info["districts"] <= 1


def national_note(code: str) -> str:
    """The one line shown above the funnel of a national-only data set ("" otherwise)."""
    if not is_national(code):
        return ""
    info = cl.dataset_info(code)
    return _("No district statistics are published for {country}: your crowd starts at the whole country "
             "({source}).").format(country=catalog.country_name(code), source=translate_marked(info["name"].split(" — ", 1)[-1]))


def district_box_style(code: str) -> dict:
    return {"display": "none"} if is_national(code) else {}


def map_figure(code: str):
    """The small district map (the browser colours it and outlines the chosen district), or None, in the current
    language (its hover and colour bar).

    Memoised and shared between requests: treat the figure as read-only.
    """
    return _map_figure(code, current_language())


@memo.lru(64)
def _map_figure(code: str, lang: str):
    info = cl.dataset_info(code)
    if info["boundaries"] is None:
        return None
    model = load_country_model(code)
    ids_ = [str(i) for i in model.district_ids]
    population = model.counts.sum(axis=(1, 2))
    names = [str(n) for n in model.district_names]
    fig = choropleth(
        geojson_url(code), ids_, population, names=names,
        hover_lines=[ngettext("{count} person aged {ages}", "{count} people aged {ages}", int(p)).format(
            count=format_count(p), ages=f"{model.study[0]:g}–{model.study[1]:g}") for p in population],
        colorbar_title=gettext(MAP_COLORBAR_TITLE), view=view_of(info["boundaries"]["frame"], MAP_WIDTH, MAP_HEIGHT),
        filled_ids=[i for i, f in zip(ids_, model.filled) if f] or None, selected_id=None, height=MAP_HEIGHT,
    )
    fig["layout"]["separators"] = separators()
    return fig


def page_config() -> dict:
    """What the browser needs to fetch tables and draw (no personal data): in a dcc.Store."""
    return {
        "tables": "/_tables/",
        "v": pt.tables_version(),
        "models": list(pt.available_models()),
        "default_model": pt.default_model(),
        "model_labels": {k: gettext(v) for k, v in MODEL_LABELS.items()},
        "style": {"font": FONT, "highlight": HIGHLIGHT, "muted": MUTED, "bar": QUALITATIVE[0],
                  "separators": separators()},
        "limits": {"height_cm": list(ADULT_HEIGHT_LIMITS), "weight_kg": list(WEIGHT_LIMITS),
                   "max_users": forms.MAX_USERS},
        "k_choices": list(K_CHOICES),
        "rough": rough_estimate_evidence(),
        "fields": client_fields(),
        "fragment": list(FRAGMENT),
        "text": client_text([*script_messages(*PAGE_SCRIPTS), *PRESET_TEXTS]),  # the presets' words too
        "lang": current_language(),
        # each data set's country in the page's language (the public tables, shared by every language, say English)
        "country_names": {c: catalog.country_name(c) for c in cl.countries()},
    }


#: The page's scripts whose words (``_("…")``) the config ships translated.
PAGE_SCRIPTS = (ASSETS / "personal_page.js", ASSETS / "anonset_engine.js")


#: Below this CAS the page says the number is rough, with AnonLand's measured error (SPEC §4).
ROUGH_BELOW = 25


def rough_estimate_evidence() -> dict:
    """AnonLand's share of test citizens with a real crowd under ROUGH_BELOW whose estimate was more than
    25 % off (None without the shipped result): the evidence behind "small numbers are rough"."""

    share, n, threshold = small_crowd_error(ROUGH_BELOW)
    return {"below": ROUGH_BELOW, "share": share, "n": n, "threshold": threshold}


# --------------------------------------------------------------------------- layout


def _width_dropdown(id_: str, unit: str):
    return dcc.Dropdown(
        id=id_, options=[{"label": f"{w} {unit}", "value": w} for w in forms.WIDTHS], value=5,
        clearable=False, searchable=False,
    )


def _number_box(key: str, placeholder: str):
    """A text box for a number: the browser checks it (so "162,5" or "abc" gets a message, not silence)."""
    return dcc.Input(id=ID[key], type="text", inputMode="decimal", placeholder=placeholder, debounce=True,
                     autoComplete="off", maxLength=40)


def form_section(code: str, district: str | None, choices: CountryChoices):
    return html.Section(
        [
            html.H2(_("About you"), className="panel-title"),
            field(_("Country"), dcc.Dropdown(id=ID["country"], options=catalog.country_options(cl.manifest()), value=code,
                                          clearable=False, maxHeight=360, search_order="original"),
                  _("Grouped by continent: type a country's name in English or its own language, or its code."),
                  control_id=ID["country"]),
            # the dropdown holds only the options matching what is typed (assets/personal_page.js
            # districtOptions): Dash's dropdown indexes every option it is given, 0.2 s for 3,144 counties
            html.Div(field(_("District"), dcc.Dropdown(id=ID["district"], value=district,
                                                    placeholder=_("Your town, city part or district…"),
                                                    search_order="original",  # ranked in the browser
                                                    options=[dropdown_option(d) for d in choices.districts
                                                             if d["value"] == district]),
                           _("Type your town, city part or district (in English or its own language, accents "
                             "optional), or click your district on the map."),
                           ID["district"]),
                     id=ID["district-box"], style=district_box_style(code)),
            dcc.Graph(id=ID["map"], figure={}, config=graph_config(scrollZoom=True),
                      className="mini-map", style={} if has_map(code) else {"display": "none"}),
            html.Div(data_note(code, choices), id=ID["data-note"], className="field-help"),
            html.Details(body_panel(code), id=ID["body-panel"], className="body-panel"),
            field(_("Sex"), dcc.RadioItems(id=ID["sex"], options=[{"label": " " + _("female"), "value": "female"},
                                                               {"label": " " + _("male"), "value": "male"}],
                                        value=None, inline=True, className="radio"), control_id=ID["sex"]),
            field(_("Age group(s)"), dcc.Dropdown(id=ID["ages"], options=choices.ages, value=[], multi=True,
                                               placeholder=_("Choose one or more census age groups")),
                  _("Selecting several groups adds their people up."), ID["ages"]),
            field(_("Units"), dcc.RadioItems(id=ID["units"], options=[{"label": " cm / kg", "value": "metric"},
                                                                   {"label": " " + _("ft, in / lb"), "value": "imperial"}],
                                          value="metric", inline=True, className="radio"), control_id=ID["units"]),
            html.Div(
                [
                    field(_("Height (cm)"), _number_box("height-cm", _("e.g. 172")), control_id=ID["height-cm"]),
                    field(_("Weight (kg)"), _number_box("weight-kg", _("e.g. 70")), control_id=ID["weight-kg"]),
                ],
                id=ID["metric-box"], className="row2",
            ),
            html.Div(
                [
                    field(_("Height (ft)"), _number_box("height-ft", "5"), control_id=ID["height-ft"]),
                    field(_("(in)"), _number_box("height-in", "8"), control_id=ID["height-in"]),
                    field(_("Weight (lb)"), _number_box("weight-lb", "154"), control_id=ID["weight-lb"]),
                ],
                id=ID["imperial-box"], className="row3", style={"display": "none"},
            ),
            html.Div(
                [
                    field(_("Height band"), _width_dropdown(ID["height-width"], "cm"), control_id=ID["height-width"]),
                    field(_("Weight band"), _width_dropdown(ID["weight-width"], "kg"), control_id=ID["weight-width"]),
                ],
                className="row2",
            ),
            html.Details(
                [
                    html.Summary(_("What else might an attacker know? (optional)")),
                    dcc.Checklist(id=ID["aux"], options=choices.aux, value=[], className="checklist"),
                    html.Div(id=ID["aux-note"], className="field-help"),
                    html.Div(
                        [
                            field(_("Your own fact"), dcc.Input(id=ID["aux-name"], type="text", maxLength=60,
                                                             placeholder=_("e.g. uses app X"), debounce=True),
                                  control_id=ID["aux-name"]),
                            field(_("… true for % of people"), dcc.Input(id=ID["aux-percent"], type="text", maxLength=200,
                                                                       placeholder=_("12, or 18-30:20,30+:5"), debounce=True),
                                  _("One percentage, or one per age group."), ID["aux-percent"]),
                        ],
                        className="row2",
                    ),
                    field(_("Users of the app (for k-indistinguishability)"), _number_box("users", _("e.g. 10000")),
                          _("How many people's records the app's dataset holds."), ID["users"]),
                    field(_("Safety targets k"), dcc.Dropdown(id=ID["k"], options=[{"label": str(k), "value": k} for k in K_CHOICES],
                                                           value=list(DEFAULT_KS), multi=True), control_id=ID["k"]),
                ],
                className="details",
            ),
            field(_("Body model"), html.Div([
                model_switch(ID["model"], pt.default_model(), pt.available_models(), class_name="radio"),
                dcc.Checklist(id=ID["self-report"], value=[], className="checklist", options=[{
                    "label": _(" v2: correct self-reported heights and weights to measured ones (NHANES offsets)"),
                    "value": "on"}]),
            ]), model_help(), ID["model"]),
            html.Div(
                [
                    html.Button(_("Try an example"), id=ID["example"], className="button secondary", n_clicks=0),
                    html.Button(_("Copy link with my answers"), id=ID["copy-link"], className="button", n_clicks=0),
                ],
                className="buttons",
            ),
            html.Div(
                [
                    html.Label(_("Link"), htmlFor=ID["link-text"], className="visually-hidden"),
                    dcc.Input(id=ID["link-text"], type="text", readOnly=True, className="link-text"),
                    dcc.Clipboard(target_id=ID["link-text"], id=ID["clipboard"], title=_("copy")),
                ],
                className="link-row",
            ),
            html.Div(_("Your answers go into the link's #fragment, which browsers never send to a server."),
                     className="field-help"),
        ],
        className="panel form-panel",
        **{"aria-label": _("Your attributes")},
    )


def answer_section(code: str = DEFAULT_COUNTRY):
    """The answer, first on a phone: the status of the tables, messages, the headline and the verdict.

    Before any answer the headline asks the first question (core.text.first_question; the browser says the
    same, assets/anonset_engine.js firstQuestion) and no count is shown."""
    return html.Section(
        [
            html.Div([html.Span("", id=ID["status"]),
                      html.Button(_("Retry"), id=ID["retry"], n_clicks=0, className="button secondary",
                                  style={"display": "none"})],
                     className="table-status", role="status"),
            html.Div(id=ID["message"], role="alert"),
            html.P(first_question(is_national(code)), id=ID["headline"], className="headline",
                   **{"aria-live": "polite"}),
            html.P("", id=ID["verdict"], className="verdict"),
        ],
        id=ID["answer"], className="answer-panel empty", **{"aria-label": _("Your answer")},
    )


def results_section(code: str = DEFAULT_COUNTRY):
    """The funnel, the risk cards, the what-ifs and the advice: hidden (``cleared``) until an answer is given."""
    graph = lambda key: dcc.Graph(id=ID[key], config=graph_config(), figure={})
    return html.Section(
        [
            html.Div(id=ID["warnings"]),
            html.H2(_("How the crowd narrows")),
            html.P(national_note(code), id=ID["national-note"], className="field-help national-note"),
            graph("funnel"),
            html.Ol(id=ID["funnel-text"], className="funnel-text"),
            html.H2(_("Risk of re-identification")),
            html.Div(id=ID["reid"], className="cards"),
            html.H2(_("What if…")),
            what_if_tabs(graph),
            html.H2(_("Widen or withhold")),
            html.Div(id=ID["changes"]),
            html.H2(_("How to stay in a crowd")),
            html.Div(id=ID["advice"]),
        ],
        id=ID["results"],
        className="results-panel cleared",
        **{"aria-label": _("Your anonymity set")},
    )


#: The _("What if…") tabs: (key, label).
TABS = (("district", N_("District")), ("age", N_("Age")), ("height", N_("Height")), ("weight", N_("Weight")),
        ("sex", N_("Sex")))


def tab_id(key: str) -> str:
    return _id(f"tab-{key}")


def panel_id(key: str) -> str:
    return _id(f"panel-{key}")


def what_if_tabs(graph) -> html.Div:
    """Tabs people can reach and operate by keyboard: role=tab buttons (Enter/Space, arrow keys), role=tabpanel."""
    buttons = [
        html.Button(gettext(label), id=tab_id(key), n_clicks=0, role="tab", className="tab-button" + (" selected" if i == 0 else ""),
                    tabIndex=0 if i == 0 else -1,
                    **{"aria-selected": "true" if i == 0 else "false", "aria-controls": panel_id(key)})
        for i, (key, label) in enumerate(TABS)
    ]
    panels = [
        html.Div(graph(f"what-{key}"), id=panel_id(key), role="tabpanel", className="tab-panel",
                 style={} if i == 0 else {"display": "none"}, **{"aria-labelledby": tab_id(key)})
        for i, (key, _) in enumerate(TABS)
    ]
    return html.Div([html.Div(buttons, role="tablist", className="tab-list", id=ID["tabs"],
                              **{"aria-label": _("What if one answer were different")}), *panels],
                    className="what-if-tabs")


def warm() -> None:
    """Before gunicorn forks: the map of every data set with district boundaries, the default tables.

    National-only data sets (about 150, one outline each) are not warmed: their page has no map.
    """
    for code in cl.countries():
        if has_map(code):
            map_figure(code)
    pt.tables_json(DEFAULT_COUNTRY, pt.default_model(), 5, 5)
