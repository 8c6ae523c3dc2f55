"""For app developers: safe bucket sizes (SPEC §7) — a view of the regional explorer.

Thin: layout and short callbacks; parsing, numbers and figures live in
:mod:`dashboard.views.buckets` (→ :mod:`dashboard.core.buckets`, :mod:`dashboard.figures.buckets`).
No @dataclass here (Dash runs page modules outside ``sys.modules``).
"""
from __future__ import annotations

import json
import logging

import dash
from dash import (
    ClientsideFunction,
    Input,
    Output,
    State,
    callback,
    clientside_callback,
    dash_table,
    dcc,
    html,
    no_update,
)

import census_loaders as cl
from dashboard.components import error_box, model_help, model_switch, report_request, table_locale
from dashboard.core.errors import InputError
from dashboard.core.text import N_, with_language
from dashboard.core.text import gettext as _
from dashboard.figures.style import graph_config, message_figure
from dashboard.guard import guarded
from dashboard.views import buckets as vb

#: What a chart says before the advice is on the page (an empty chart showed bare axes while the server was busy).
NOT_YET = N_("The chart appears here once the advice is computed.")

dash.register_page(__name__, path=vb.PATH, name="For app developers", order=11, nav=False,
                   title=lambda **_kw: "AnonSet — " + _(vb.TITLE))

LOG = logging.getLogger("anonset.buckets")
ID = vb.ID
SORRY = N_("Sorry — this advice could not be computed. Please check the settings.")
TABLE_STYLE = dict(
    style_table={"overflowX": "auto"},
    style_cell={"whiteSpace": "normal", "height": "auto", "padding": "4px 8px", "minWidth": "56px", "maxWidth": "260px",
                "textAlign": "left"},
    style_header={"fontWeight": "600", "backgroundColor": "#f4f6f8"},
)


def _field(label, control, help_text, control_id):
    return html.Div([html.Label(label, htmlFor=control_id, className="field-label"), control,
                     html.Div(help_text, className="field-help")], className="field")


def _cards(cards: list[dict]) -> list:
    return [html.Div([html.Div(c["title"], className="card-title"), html.Div(c["value"], className="card-value"),
                      html.Div(c["explain"], className="card-explain")], className="card") for c in cards]


@guarded(lambda message: html.Div([html.H1(_(vb.TITLE)), html.Div(message, className="error", role="alert")]),
         log=LOG, where="buckets layout", sorry=SORRY, input_errors=False)  # a broken cache: no traceback
def layout(**query):
    """The page; settings come from the link (unknown keys ignored, bad values reported and defaulted)."""
    s, notices = vb.from_query(query)
    v = vb.form_values(s)
    options = vb.country_options()
    form = html.Section(
        [
            html.H2(_("Your app"), className="panel-title"),
            _field(_("Country"), dcc.Dropdown(id=ID["country"], options=options, value=v["country"], clearable=False),
                   _("Whose population your users come from."), ID["country"]),
            _field(_("Minimum anonymity set k"), dcc.Input(id=ID["k"], type="text", value=v["k"], debounce=True,
                                                            maxLength=12, inputMode="decimal"),
                   _("Each released profile should be shared by at least k people (e.g. 10)."), ID["k"]),
            _field(_("Coverage (% of people)"), dcc.Input(id=ID["coverage"], type="text", value=v["coverage"],
                                                           debounce=True, maxLength=8, inputMode="decimal"),
                   _("The share of people who must reach k (e.g. 95)."), ID["coverage"]),
            dcc.Checklist(id=ID["per-district"], value=v["per_district"], className="checklist",
                          options=[{"label": _("also each district's own finest safe buckets"), "value": "yes"}]),
            _field(_("Body model"), model_switch(ID["model"], v["model"]),
                   model_help(), ID["model"]),
            html.P(_("Searched: age in the census groups, 5-, 10-, 15-, 20-year groups or withheld; height and weight "
                     "in 1, 2, 5, 10, 20 cm / kg or withheld; the district, the district except where it falls short, "
                     "the region, or no place. Adults 18–75; everyone counts (no BMI filter)."), className="field-help"),
            html.P(dcc.Link(_("← back to the regional explorer"), href=with_language("/explore"))),
        ],
        className="panel explorer-form", **{"aria-label": _("Settings")},
    )
    results = html.Div(
        [
            html.Div(id=ID["message"], role="alert"),
            dcc.Loading(html.Div([
                html.P(id=ID["sentence"], className="verdict"),
                html.Div(id=ID["cards"], className="cards"),
            ]), type="dot"),
            html.Div([
                # disabled until the advice is on the page (while the server was busy they were live and silent)
                html.Button(_("Download JSON config"), id=ID["button-json"], n_clicks=0, className="button",
                            disabled=True),
                html.Button(_("Download CSV (every configuration)"), id=ID["button-csv"], n_clicks=0,
                            className="button secondary", disabled=True),
                # fetched by GET /_reports/buckets with the query store's settings (assets/report_download.js)
                html.Button(_("Download report"), id=ID["button-report"], n_clicks=0, className="button secondary",
                            title=_("one HTML file with the charts, their numbers, the sources and the command; it "
                                    "opens offline and prints to PDF (in English)"),
                            **report_request("buckets", "*", ID["report-message"])),
                dcc.Download(id=ID["download-json"]), dcc.Download(id=ID["download-csv"]),
            ], className="link-row buckets-exports result-exports"),
            html.Div(id=ID["report-message"], role="status"),
            html.Section([html.H2(_("Information kept against people protected")),
                          dcc.Graph(id=ID["front"], config=graph_config(), figure=message_figure(_(NOT_YET))),
                          html.P(_("Each grey dot is one configuration; the line is the Pareto front (no configuration "
                                   "keeps more bits and protects more people); the star is the recommendation: the "
                                   "most bits among those meeting the target."), className="field-help")],
                         className="explorer-section", **{"aria-label": _("Pareto front")}),
            html.Section([html.H2(_("Where the recommendation falls short")),
                          html.P(id=ID["map-help"], className="field-help"),
                          html.Div(dcc.Graph(id=ID["map"], config=graph_config(scrollZoom=True),
                                             figure=message_figure(_(NOT_YET))),
                                   id=ID["map-box"], className="map-box"),
                          html.Div(id=ID["no-map"]),
                          html.Div(dash_table.DataTable(id=ID["short-table"], data=[], page_size=10,
                                                        sort_action="native", export_format="csv",
                                                        columns=[{"name": name, "id": n} for n, name in (
                                                            ("district", _("district")), ("district_id", _("id")),
                                                            ("people", _("people")), ("coverage", _("coverage")))],
                                                        locale_format=table_locale(),
                                                        **TABLE_STYLE), id=ID["short-box"])],
                         className="explorer-section", **{"aria-label": _("Districts below the target")}),
            html.Section([html.H2(_("Per district")),
                          dash_table.DataTable(id=ID["per-district-table"], data=[], page_size=12,
                                               sort_action="native", export_format="csv",
                                               columns=[{"name": name, "id": n} for n, name in (
                                                   ("district", _("district")), ("district_id", _("id")),
                                                   ("finest safe buckets", _("finest safe buckets")),
                                                   ("coverage", _("coverage")), ("bits", _("bits")))],
                                               locale_format=table_locale(), **TABLE_STYLE)],
                         id=ID["per-district-box"], className="explorer-section", style={"display": "none"},
                         **{"aria-label": _("Per district")}),
            html.Div([html.Div([_("Reproduce this:") + " ", dcc.Clipboard(target_id=ID["cli"], title=_("copy the command"),
                                                                            className="copy")], className="field-label"),
                      html.Pre(html.Code(vb.cli_command(s), id=ID["cli"]))], className="snippet"),
            html.Ul(id=ID["notes"], className="field-help"),
        ],
        className="explorer-results",
    )
    return html.Div(
        [
            html.H1(_(vb.TITLE)),
            html.P(_("Collect in buckets just coarse enough that nearly everyone keeps a minimum anonymity set — "
                     "variable per district if needed, as the VisualAnon paper suggests. Choose k and the share of "
                     "people who must reach it; the advisor searches every combination of age, height, weight and "
                     "place granularity and keeps the most information."), className="lead"),
            html.Div([html.Div(n, className="warning", role="status") for n in notices], id=ID["notices"]),
            html.Div([form, results], className="explorer-grid"),
            dcc.Store(id=ID["query"], data=vb.to_query(s)),
            html.Div(id=ID["url-sync"], hidden=True),
        ],
        className="explorer buckets",
        # the tables' own "Export" button is DataTable's word: assets/explorer.css writes this one in its place
        style={"--export-label": json.dumps(_("Export"))},
    )


@callback(
    Output(ID["message"], "children"),
    Output(ID["sentence"], "children"),
    Output(ID["cards"], "children"),
    Output(ID["front"], "figure"),
    Output(ID["map"], "figure"),
    Output(ID["map-box"], "style"),
    Output(ID["no-map"], "children"),
    Output(ID["map-help"], "children"),
    Output(ID["short-table"], "data"),
    Output(ID["short-box"], "style"),
    Output(ID["per-district-table"], "data"),
    Output(ID["per-district-box"], "style"),
    Output(ID["cli"], "children"),
    Output(ID["notes"], "children"),
    Output(ID["button-json"], "disabled"),
    Output(ID["button-csv"], "disabled"),
    Output(ID["query"], "data"),
    Output(ID["button-report"], "disabled"),
    Input(ID["country"], "value"),
    Input(ID["k"], "value"),
    Input(ID["coverage"], "value"),
    Input(ID["per-district"], "value"),
    Input(ID["model"], "value"),
)
@guarded(lambda message: (error_box(message),) + (no_update,) * 13 + (True, True, no_update, True), log=LOG,
         where="buckets", sorry=SORRY)
def on_settings(country, k, coverage, per_district, model="v2"):
    """Parse → advise → figures; a bad value is one message and nothing else changes."""
    s = vb.parse_form(country, k, coverage, bool(per_district), model)
    r = vb.render(s)
    hide, show = {"display": "none"}, {}
    return (
        "", r["sentence"], _cards(r["cards"]), r["front"],
        r["map"] or {}, show if r["map"] else hide, _no_map(r["no_map"], country) if r["no_map"] else "",
        r["map_help"],
        r["short_rows"], show if r["short_rows"] else hide,
        r["per_district_rows"], show if r["per_district_rows"] else hide,
        r["cli"], [html.Li(n, **({"lang": "en"} if n in r["quoted_notes"] else {})) for n in r["notes"]],
        False, False, r["query"], False,
    )


def _no_map(text: str, country) -> html.P:
    """Why there is no map: ours in the page's language, a data set's own boundary note quoted in English."""
    note = cl.dataset_info(str(country).strip().upper()).get("boundary_note") if country else None
    return html.P(text, className="muted", **({"lang": "en"} if note and text == note else {}))


def _download(kind: str, country, k, coverage, per_district, model=None):
    try:
        text, name = vb.export(vb.parse_form(country, k, coverage, bool(per_district), model), kind)
    except InputError:
        return no_update
    return dcc.send_string(text, name)


@callback(Output(ID["download-json"], "data"), Input(ID["button-json"], "n_clicks"),
          State(ID["country"], "value"), State(ID["k"], "value"), State(ID["coverage"], "value"),
          State(ID["per-district"], "value"), State(ID["model"], "value"), prevent_initial_call=True)
def on_json(_n, country, k, coverage, per_district, model="v2"):
    return _download("json", country, k, coverage, per_district, model)


@callback(Output(ID["download-csv"], "data"), Input(ID["button-csv"], "n_clicks"),
          State(ID["country"], "value"), State(ID["k"], "value"), State(ID["coverage"], "value"),
          State(ID["per-district"], "value"), State(ID["model"], "value"), prevent_initial_call=True)
def on_csv(_n, country, k, coverage, per_district, model="v2"):
    return _download("csv", country, k, coverage, per_district, model)


# "Download report": GET /_reports/buckets in the browser (the route makes the file, issue 29)
clientside_callback(
    ClientsideFunction(namespace="anonset", function_name="downloadReport"),
    Output(ID["report-message"], "children"),
    Input(ID["button-report"], "n_clicks"),
    State(ID["query"], "data"),
    prevent_initial_call=True,
)


# the address bar follows the view (assets/url_sync.js: the one URL sync every page uses)
clientside_callback(
    ClientsideFunction(namespace="anonset", function_name="syncQuery"),
    Output(ID["url-sync"], "children"),
    Input(ID["query"], "data"),
)
