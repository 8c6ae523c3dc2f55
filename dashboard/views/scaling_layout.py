"""The scaling-law page's three views as components (SPEC §3), in the visitor's language: the explore view's
sliders, cursor and presets, the census view's form, the forecast view's table of measurements.

Built when the page is (:func:`dashboard.pages.scaling.layout`), so every word is translated at render time; ids,
defaults and limits come from :mod:`dashboard.views.scaling`.
"""
from __future__ import annotations

import math
import re

from dash import dash_table, dcc, html

import census_loaders as cl
from dashboard import forms
from dashboard.components import chart_reading, field, table_locale
from dashboard.core import country
from dashboard.core.body import BAND_WIDTHS
from dashboard.core.groups import SEXES
from dashboard.core.regions import Scenario
from dashboard.core.text import format_count, local_number, ngettext, short_number, translate_marked
from dashboard.core.text import gettext as _
from dashboard.figures import scaling as figs
from dashboard.figures.style import graph_config, message_figure

from .scaling import (
    GAMMA_SLIDER,
    H_SLIDER,
    HOLDOUT_CHOICES,
    ID,
    K_CHOICES,
    MAX_POINTS,
    UPLOAD_REFUSED_BYTES,
    WORLD,
    ages_text,
    country_preset_options,
)


def rich(message: str, **parts) -> list:
    """A translated sentence with components in it: ``{name}`` placeholders replaced by ``parts`` (bold words,
    links), so a sentence is translated whole rather than in fragments."""
    out = []
    for piece in re.split(r"(\{\w+\})", message):
        name = piece[1:-1] if piece.startswith("{") and piece.endswith("}") else None
        if name in parts:
            out.append(parts[name])
        elif piece:
            out.append(piece)
    return out


def _sliderfield(label, slider_id, input_id, lo, hi, step, value, marks, help_text):
    return html.Div([
        html.Label(label, htmlFor=input_id, className="field-label"),
        html.Div([
            html.Div(dcc.Slider(id=slider_id, min=lo, max=hi, step=step, value=min(max(value, lo), hi), marks=marks,
                                allow_direct_input=False, updatemode="mouseup", tooltip={"placement": "bottom"}),
                     className="slider-box"),
            dcc.Input(id=input_id, type="number", value=value, debounce=True, step="any", inputMode="decimal"),
        ], className="slider-row"),
        html.Div(help_text, className="field-help"),
    ], className="field")


def _graph(graph_id: str) -> dcc.Graph:
    return dcc.Graph(id=graph_id, config=graph_config(), figure=message_figure(_("Computing…")))


def explore_section(h_bits, gamma, k, cursor):
    # the cursor's marks: a billion's label ("1Mrd.", "1Mln") beside a million's ran together on a phone's slider
    marks_n = {e: short_number(10.0 ** e) for e in ((0, 3, 6, 9) if len(short_number(1e9)) <= 3 else (0, 3, 6))}
    controls = html.Section([
        _sliderfield(_("Entropy h (bits)"), ID["h-slider"], ID["h-input"], *H_SLIDER, 0.1, h_bits,
                     {v: f"{v:g}" for v in (1, 10, 20, 30, 40)},
                     _("How much the attributes tell apart: like 2^h equally likely sets.")),
        _sliderfield(_("Tail complexity γ"), ID["gamma-slider"], ID["gamma-input"], *GAMMA_SLIDER, 0.01, gamma,
                     {-2: "−2", -1: "−1", 0: "0", 1: "1"},
                     _("γ < 0: finite, even support · γ = 0: geometric tail · γ → 1: heavy tail.")),
        field(_("k for k-anonymity"), dcc.Dropdown(id=ID["k"], options=[{"label": str(v), "value": v}
                                                                        for v in K_CHOICES],
                                                   value=k, clearable=False, searchable=False),
              _("A record violates k-anonymity when fewer than k records share its attributes."), ID["k"]),
        html.Div(id=ID["law-params"], className="law-params"),
    ], className="panel scaling-controls", **{"aria-label": _("Law parameters")})
    cursor_box = html.Div([
        html.Label(_("Cursor: gallery size n"), htmlFor=ID["cursor-input"], className="field-label"),
        html.Div([
            html.Div(dcc.Slider(id=ID["cursor-slider"], min=0, max=math.log10(WORLD), step=0.01,
                                value=math.log10(cursor), marks=marks_n, allow_direct_input=False,
                                updatemode="drag"), className="slider-box"),
            dcc.Input(id=ID["cursor-input"], type="number", value=cursor, debounce=True, step="any"),
        ], className="slider-row"),
        html.Div([
            html.Button(_("App, {count} users").format(count=short_number(1e4)), id=ID["preset-10k"],
                        className="button secondary", n_clicks=0),
            html.Button(_("App, {count} users").format(count=short_number(1e6)), id=ID["preset-1m"],
                        className="button secondary", n_clicks=0),
            html.Button(_("Earth, {count}").format(count=short_number(WORLD)), id=ID["preset-earth"],
                        className="button secondary", n_clicks=0),
            html.Div(dcc.Dropdown(id=ID["preset-country"], options=country_preset_options(), value=None,
                                  placeholder=_("A country's population…"), clearable=True),
                     className="preset-country"),
        ], className="preset-buttons"),
    ], className="cursor-box")
    results = html.Section([
        html.Div(id=ID["law-message"], role="alert"),
        html.Div(id=ID["readouts"], className="cards readouts", **{"aria-live": "polite"}),
        chart_reading(translate_marked(figs.READING["law"])),
        _graph(ID["law-graph"]),
        cursor_box,
        html.H2(_("Reproduce this")),
        html.Div(id=ID["law-command"]),
    ], className="scaling-results", **{"aria-label": _("The law's curves")})
    intro = html.P(rich(_(
        "For galleries of n records drawn from a population whose anonymity sets follow a Pitman–Yor process, the "
        "expected {correctness} of exact matching (the share of records an attacker identifies correctly by picking "
        "at random among matches), the {uniqueness} and the share of records violating k-anonymity, all from two "
        "numbers: the entropy h and the tail complexity γ (Rocher, Hendrickx & de Montjoye, 2025)."),
        correctness=html.B(_("correctness κ(n)")), uniqueness=html.B(_("uniqueness Ξ(n)"))), className="lead")
    return html.Div([intro, html.Div([controls, results], className="scaling-grid")])


def census_section(scenario: Scenario, code: str, users: float):
    # the presets' names are ours (census_loaders.auxiliary, marked): in the page's language
    aux_opts = [{"label": translate_marked(t["name"]), "value": t["id"]} for t in cl.auxiliary_tables(code)]
    presets = [a for a in scenario.aux if isinstance(a, str)]
    width_opts = lambda unit: [{"label": f"{local_number(str(w))} {unit}", "value": w}  # noqa: E731
                               for w in BAND_WIDTHS]
    controls = html.Section([
        field(_("Country"), dcc.Dropdown(id=ID["c-country"], value=code, clearable=False,
                                         options=country.country_options(cl.manifest())), control_id=ID["c-country"]),
        field(_("Sex"), dcc.Checklist(id=ID["c-sex"], options=[{"label": " " + translate_marked(s), "value": s} for s in SEXES],
                                      value=list(scenario.sexes), inline=True, className="radio"),
              control_id=ID["c-sex"]),
        field(_("Ages"), dcc.Input(id=ID["c-ages"], type="text", value=ages_text(scenario), debounce=True,
                                   maxLength=12),
              _("The study population [from, to), e.g. 18-75 or 65+."), ID["c-ages"]),
        field(_("Height × weight"), dcc.Checklist(id=ID["c-body"], options=[
            {"label": " " + _("include height and weight bands"), "value": "body"}],
            value=["body"] if scenario.include_body else [], className="checklist scaling-check"),
            control_id=ID["c-body"]),
        html.Div([
            field(_("Height band"), dcc.Dropdown(id=ID["c-height-width"], options=width_opts("cm"),
                                                 value=scenario.height_width, clearable=False, searchable=False),
                  control_id=ID["c-height-width"]),
            field(_("Weight band"), dcc.Dropdown(id=ID["c-weight-width"], options=width_opts("kg"),
                                                 value=scenario.weight_width, clearable=False, searchable=False),
                  control_id=ID["c-weight-width"]),
        ], className="row2"),
        field(_("Auxiliary knowledge"), dcc.Checklist(id=ID["c-aux"], options=aux_opts, value=presets,
                                                      className="checklist scaling-check"),
              _("What else the attacker knows (presets of this country)."), ID["c-aux"]),
        field(_("App users n"), dcc.Input(id=ID["c-users"], type="number", value=users, debounce=True, step="any"),
              _("Residents whose records the app holds: the gallery size."), ID["c-users"]),
    ], className="panel scaling-controls", **{"aria-label": _("Census scenario")})
    results = html.Section([
        html.Div(id=ID["c-message"], role="alert"),
        dcc.Loading(html.Div([
            html.P(id=ID["c-sentence"], className="verdict"),
            html.Div(id=ID["c-summary"], className="cards"),
            chart_reading(translate_marked(figs.READING["census"])),
            _graph(ID["c-graph"]),
            html.Div(id=ID["c-table"], className="table-wrap"),
            html.Ul(id=ID["c-notes"], className="notes"),
        ]), type="default", delay_show=300),
        html.H2(_("Reproduce this")),
        html.Div(id=ID["c-command"]),
    ], className="scaling-results", **{"aria-label": _("Census partition and fit")})
    intro = html.P(_(
        "Every plausible district × sex × age × height × weight cell of a census scenario is an anonymity set of its "
        "expected size. Rounded to whole people, these sets are a real population: their exact correctness for an "
        "app of n residents (galleries drawn without replacement) is drawn beside the Pitman–Yor law fitted to them "
        "by maximum likelihood — how well two numbers describe a country. The scenario is the regional explorer's, "
        "with the same link settings."), className="lead")
    return html.Div([intro, html.Div([controls, results], className="scaling-grid")])


def _holdout_label(h: int) -> str:
    return _("none") if h == 0 else ngettext("the {count} largest n", "the {count} largest n", h).format(count=h)


def forecast_section(rows: list[dict], holdout: int):
    controls = html.Section([
        html.H2(_("Measured correctness"), className="panel-title"),
        html.P(_("Type or paste the correctness κ̂ you measured at several gallery sizes n (any technique: exact, "
                 "sparse or machine-learning matching)."), className="field-help"),
        dash_table.DataTable(
            id=ID["f-table"], data=rows, editable=True, row_deletable=True, page_size=12,
            columns=[{"name": _("gallery size n"), "id": "n", "type": "numeric"},
                     {"name": _("measured κ"), "id": "kappa", "type": "numeric"}],
            locale_format=table_locale(),
            style_cell={"textAlign": "right", "padding": "4px 8px", "width": "50%", "minWidth": "5em"},
            style_header={"fontWeight": "600", "textAlign": "right"},
            style_table={"overflowX": "auto", "width": "100%"},
        ),
        html.Div([
            html.Button(_("Add row"), id=ID["f-add"], className="button secondary", n_clicks=0),
            html.Button(_("Example"), id=ID["f-example"], className="button secondary", n_clicks=0),
            html.Button(_("Clear"), id=ID["f-clear"], className="button secondary", n_clicks=0),
        ], className="buttons"),
        field(_("Paste points"), dcc.Textarea(id=ID["f-paste"],
                                              placeholder=_("n,kappa per line, e.g.") + "\n100,0.99\n1000,0.80",
                                              className="paste-box", maxLength=forms.MAX_CSV_BYTES),
              _("One n,kappa per line (a header line is optional), or n:kappa,n:kappa."), ID["f-paste"]),
        html.Button(_("Use pasted points"), id=ID["f-use-paste"], className="button", n_clicks=0),
        dcc.Upload(id=ID["f-upload"], children=html.Div(rich(_("Drop a CSV here or {choose}"),
                                                             choose=html.U(_("choose a file")))),
                   className="upload-box", accept=".csv,.txt,text/csv,text/plain", max_size=UPLOAD_REFUSED_BYTES),
        html.Div(_("CSV with columns n,kappa; at most {count} points and 1 MB. κ̂ in [0, 1], n ≥ 1, each n once, at "
                   "least two points with n > 1.").format(count=format_count(MAX_POINTS)), className="field-help"),
        html.Div(id=ID["f-load-message"], role="alert"),
        field(_("Held-out points"), dcc.Dropdown(id=ID["f-holdout"], value=holdout, clearable=False, searchable=False,
                                                 options=[{"label": _holdout_label(h), "value": h}
                                                          for h in HOLDOUT_CHOICES]),
              _("Refit without the largest gallery sizes and score each model on them."), ID["f-holdout"]),
    ], className="panel scaling-controls", **{"aria-label": _("Measurements")})
    results = html.Section([
        html.Div(id=ID["f-message"], role="alert"),
        dcc.Loading(html.Div([
            chart_reading(translate_marked(figs.READING["forecast"])),
            _graph(ID["f-graph"]),
            html.Div(id=ID["f-models"], className="table-wrap"),
            html.P(id=ID["f-band"], className="field-help"),
            html.H2(_("Formulas")),
            html.Div(id=ID["f-formulas"]),
        ]), type="default", delay_show=300),
        html.H2(_("Reproduce this")),
        html.Div(id=ID["f-command"]),
    ], className="scaling-results", **{"aria-label": _("Forecast")})
    intro = html.P(_(
        "PYC-MB fits the law to measured correctness (least squares with weights ln n) and extrapolates it to any "
        "gallery size, up to the world population; ENT, EXP and POL are simpler baselines fitted the same way. On "
        "the paper's corpora PYC-MB forecast a gallery ten times larger with an RMSE of about 5 percentage points "
        "for exact matching."), className="lead")
    return html.Div([intro, html.Div([controls, results], className="scaling-grid")])
