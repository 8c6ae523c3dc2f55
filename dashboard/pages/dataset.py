"""“How identifiable is a data set?” (SPEC §5): layout and callbacks over :mod:`dashboard.views.dataset`.

An uploaded file stays in the browser; choosing it (to list its columns) and each "Analyse" send
it with that request; the server decodes it in memory, answers, and forgets it (nothing written,
logged or cached).
"""
from __future__ import annotations

import dash
from dash import ALL, ClientsideFunction, Input, Output, State, callback, clientside_callback, ctx, dcc, html, no_update

from dashboard import reports
from dashboard.components import error_box, field, report_request
from dashboard.core import microdata as M
from dashboard.core.text import (
    N_,
    current_language,
    gettext,
    local_number,
    note_in_language,
    translate_marked,
)
from dashboard.core.text import gettext as _
from dashboard.guard import guarded
from dashboard.views import data_notes
from dashboard.views.dataset import (
    BIN_TYPE,
    DEFAULT_CLASSES_RULE,
    ID,
    LOG,
    REPORT_PARAMS,
    REPORT_STATES,
    analyse,
    bin_boxes,
    classes_rule_options,
    coarsening,
    column_options,
    default_columns,
    default_missing,
    parse_request,
    plan_section,
    records_download,
    render,
    results_section,
    table_for,
    upload_limit,
)

dash.register_page(__name__, path="/dataset", name="Data set",
                   title="AnonSet — how identifiable is a data set?", order=40)

PRIVACY = N_("Your file stays in this browser tab. When you choose it (to list its columns) and each time you press "
           "Analyse, it is sent to this AnonSet server with that one request, read in memory and forgotten: it is never "
           "written to disk, logged or cached, and no other host is contacted.")
#: The lead under the heading.
LEAD = N_("Uniqueness, correctness and risk of record-level data: empirical classes, the Gaussian-copula model of "
          "Rocher et al. (2019), the tuple-frequency risk (TFRR) of Yang et al. (2021) and the Pitman–Yor law.")


#: Where a refused upload's message sits: it concerns the upload box and greys every result of the previous file.
REFUSED_UPLOAD_GREYS = {"data-field": ID["upload"], "data-results": f'{ID["results"]} {ID["columns"]} {ID["bins"]}'}


def layout(**query):
    """The form (source, columns, bins, settings) and the results; the link takes no data."""
    nhanes = M.nhanes_table()
    limit = upload_limit()
    form = html.Div([
        html.H2(_("Data"), className="panel-title"),
        field(_("Records"), dcc.RadioItems(id=ID["source"], options=[
            {"label": _("NHANES 2017–2018 sample ({records} real records, CDC)").format(records=local_number("8,366")),
             "value": "nhanes"},
            {"label": _("UCI Adult, 1994 ({records} real records, US Census Bureau; the paper's ADULT)").format(
                records=local_number("32,561")), "value": "adult"},
            {"label": _("my CSV file"), "value": "upload"}], value="nhanes", className="radio-stack"),
            control_id=ID["source"]),
        html.Div(dcc.Upload(id=ID["upload"], children=html.Div([_("Drop a CSV here or") + " ", html.U(_("choose a file")),
                                                                 " " + _("(at most {size} MB)").format(
                                                                     size=local_number(f"{limit / 1e6:.0f}"))]),
                            className="upload-box", accept=".csv,.tsv,.txt,text/csv,text/plain", max_size=limit),
                 id=ID["upload-wrap"], **{"data-max-bytes": str(limit), "data-lang": current_language(),
                                           # what assets/dataset.js says of a file refused before the upload (the
                                           # core's sentence, its numbers filled in by Intl in the page's language)
                                           "data-too-large": _("{name} is {size} MB; files of at most {limit} MB are "
                                                               "accepted")}),
        # a refused file greys the analysis and the column list of the previous one (assets/shell/fields.js)
        html.Div(id=ID["upload-refused"], role="alert", **REFUSED_UPLOAD_GREYS),
        html.Div(id=ID["load-message"], className="field-help", role="status", **REFUSED_UPLOAD_GREYS),
        html.P(gettext(PRIVACY), className="privacy-note", id=ID["privacy"]),
        field(_("Quasi-identifier columns"), dcc.Checklist(id=ID["columns"], options=column_options(nhanes),
                                                            value=default_columns(nhanes), className="checklist"),
              _("What an attacker could know about a person."), control_id=ID["columns"]),
        html.Details([html.Summary(_("Bin widths of numeric columns")),
                      html.P(_("Blank: exact values. A width w groups x into [k·w, (k+1)·w)."), className="field-help"),
                      html.Div(bin_boxes(nhanes), id=ID["bins"], className="bin-grid")], className="details", open=True),
        field(_("Missing values"), dcc.RadioItems(id=ID["missing"], options=[
            {"label": _("leave those records out"), "value": "drop"},
            {"label": _("“missing” is a value"), "value": "value"}], value="drop", className="radio-stack"),
            control_id=ID["missing"]),
        field(_("Population N"), dcc.Input(id=ID["population"], type="text", inputMode="decimal",
                                           placeholder=_("the data set's size"), debounce=True),
              _("How many people the records were drawn from (e.g. {example}). ξ and κ are computed at this N.").format(
                  example=local_number("330,000,000")),
              control_id=ID["population"]),
        field(_("Model"), dcc.RadioItems(id=ID["model"], options=[
            {"label": _("the one that validates better (default)"), "value": "auto"},
            {"label": _("Gaussian copula (Rocher et al. 2019)"), "value": "copula"},
            {"label": _("latent class model (for unordered categories)"), "value": "latent-class"}],
            value="auto", className="radio-stack"),
            _("Both are fitted and validated; this one gives each record's ξ and κ."), control_id=ID["model"]),
        field(_("Latent classes"), dcc.Dropdown(id=ID["classes-rule"], options=classes_rule_options(),
                                                value=DEFAULT_CLASSES_RULE, clearable=False, searchable=False),
              _("How the latent class model chooses its number of classes (each rule's sentence: on hover, and "
                "with the results)."), control_id=ID["classes-rule"]),
        html.Div([field(_("Validation fraction"), dcc.Input(id=ID["fraction"], type="text", value=local_number("0.1"),
                                                            debounce=True),
                        control_id=ID["fraction"]),
                  field(_("Trials"), dcc.Input(id=ID["trials"], type="text", value="3", debounce=True),
                        control_id=ID["trials"])], className="row2"),
        html.Div([field(_("Plan: k"), dcc.Input(id=ID["plan-k"], type="text", inputMode="numeric", value="5",
                                                debounce=True),
                        control_id=ID["plan-k"]),
                  field(_("Plan: target share below k"), dcc.Input(id=ID["plan-target"], type="text",
                                                                   inputMode="decimal", value=local_number("0.05"),
                                                                   debounce=True),
                        control_id=ID["plan-target"])], className="row2"),
        html.Button(_("Analyse"), id=ID["analyse"], n_clicks=0, className="button"),
        html.Div(id=ID["message"], role="status"),
        html.Details([
            html.Summary(_("Download each record's ξ, κ and risk (CSV)")),
            html.P(_("One row per analysed record: its row number, class size, p, ξ, κ and TFRR risk, for the settings "
                     "above. Without the quasi-identifier values unless you tick the box."), className="field-help"),
            dcc.Checklist(id=ID["download-values"], options=[{"label": _("include the quasi-identifier values"),
                                                              "value": "values"}], value=[], className="checklist"),
            html.Button(_("Download CSV"), id=ID["download"], n_clicks=0, className="button secondary"),
            html.Div(id=ID["download-message"], role="status"),
            dcc.Download(id=ID["download-csv"]),
        ], className="details"),
        # a shipped data set's report: GET /_reports/dataset (assets/report_download.js); an upload's: on_report
        html.Div([html.Button(_("Download report"), id=ID["report"], n_clicks=0, className="button secondary",
                              title=_("one HTML file of aggregates only (no record values): the charts, their numbers, "
                                      "the sources and the commands; it opens offline and prints to PDF (in English)"),
                              **report_request("dataset", REPORT_PARAMS, ID["report-message"], "source=upload")),
                  dcc.Download(id=ID["download-report"])], className="link-row"),
        html.Div(id=ID["report-message"], role="status"),
    ], className="panel dataset-form")
    return html.Div([
        html.H1(_("How identifiable is a data set?")),
        html.P(gettext(LEAD), className="lead"),
        html.Div([form, dcc.Loading(html.Div(id=ID["results"], className="dataset-results"), type="default")],
                 className="dataset-grid"),
    ], className="dataset-page")


@callback(
    Output(ID["columns"], "options"),
    Output(ID["columns"], "value"),
    Output(ID["bins"], "children"),
    Output(ID["load-message"], "children"),
    Output(ID["source"], "value"),
    Output(ID["upload-refused"], "children"),
    Output(ID["missing"], "value"),
    Input(ID["source"], "value"),
    Input(ID["upload"], "contents"),
    State(ID["upload"], "filename"),
    prevent_initial_call=True,
)
def on_source(source, contents, filename):
    """A new file or source: offer its columns (the file is read here in memory and dropped)."""
    uploaded = ctx.triggered_id == ID["upload"]
    if uploaded:
        source = "upload"
    columns = _columns_of(source, contents, filename)
    return (*columns[:4], source, None, columns[4])


@guarded(lambda message: (no_update, no_update, no_update, error_box(message), no_update), log=LOG,
         where="dataset page reading a table", sorry=N_("Sorry — this file could not be read."))
def _columns_of(source, contents, filename) -> tuple:
    """The table's column choices, bin boxes, a note and its missing-value policy (or why it cannot be read)."""
    table_ = table_for(source, contents, filename)
    if table_.source == "upload":
        note = " ".join(table_.notes[:2])
    else:  # the shipped data set's note, in the page's language (quoted in English only from a cache without its
        # structure: views/data_notes)
        said = note_in_language(table_.notes[0], table_.note_parts[0] if table_.note_parts else None)
        note = [_("The shipped {name}:").format(name=translate_marked(table_.name)) + " ", data_notes.said(*said)]
    return column_options(table_), default_columns(table_), bin_boxes(table_), note, default_missing(table_)


#: The form as the analysis reads it (source, upload, columns, bins, settings): "Analyse" and the download read the same.
FORM_STATES = [
    State(ID["source"], "value"),
    State(ID["upload"], "contents"),
    State(ID["upload"], "filename"),
    State(ID["columns"], "value"),
    State({"type": BIN_TYPE, "column": ALL}, "value"),
    State({"type": BIN_TYPE, "column": ALL}, "id"),
    State(ID["missing"], "value"),
    State(ID["population"], "value"),
    State(ID["fraction"], "value"),
    State(ID["trials"], "value"),
    State(ID["model"], "value"),
    State(ID["classes-rule"], "value"),
]


@callback(
    Output(ID["results"], "children"),
    Output(ID["message"], "children"),
    Input(ID["analyse"], "n_clicks"),
    *FORM_STATES,
    State(ID["plan-k"], "value"),
    State(ID["plan-target"], "value"),
)
@guarded(lambda message: (no_update, error_box(message)), log=LOG, where="dataset page on_analyse",
         sorry=N_("Sorry — this could not be computed. Please check the choices."))
def on_analyse(_clicks, source, contents, filename, columns, bin_values, bin_ids, missing, population, fraction, trials,
               model, classes_rule, plan_k, plan_target):
    """Analyse (also on first load, for the NHANES defaults); a bad choice is a message, never a traceback."""
    req = parse_request(source, columns, bin_values, bin_ids, missing, population, fraction, trials, model,
                        plan_k, plan_target, classes_rule)
    table_ = table_for(req.source, contents, filename)
    out = render(analyse(req, table_), req, filename if req.source == "upload" else None)
    return [*results_section(out), html.Div(plan_section(coarsening(req, table_), req), id=ID["plan"])], None


@callback(
    Output(ID["download-csv"], "data"),
    Output(ID["download-message"], "children"),
    Input(ID["download"], "n_clicks"),
    State(ID["download-values"], "value"),
    *FORM_STATES,
    prevent_initial_call=True,
)
@guarded(lambda message: (no_update, error_box(message)), log=LOG, where="dataset page on_download",
         sorry=N_("Sorry — the records could not be prepared. Please check the choices."))
def on_download(clicks, values, source, contents, filename, columns, bin_values, bin_ids, missing, population, fraction,
                trials, model, classes_rule):
    """The per-record CSV for the current settings (the same analysis as "Analyse"; memoised for shipped data)."""
    if not clicks:
        return no_update, no_update
    req = parse_request(source, columns, bin_values, bin_ids, missing, population, fraction, trials, model,
                        classes_rule=classes_rule)
    table_ = table_for(req.source, contents, filename)
    return records_download(req, table_, "values" in (values or [])), None


clientside_callback(
    ClientsideFunction(namespace="anonset", function_name="downloadReport"),
    Output(ID["report-message"], "children"),
    Input(ID["report"], "n_clicks"),
    *(State(component, prop) for component, prop, _name in REPORT_STATES),
    prevent_initial_call=True,
)


@callback(
    Output(ID["download-report"], "data"),
    Output(ID["report-message"], "children", allow_duplicate=True),
    Input(ID["report"], "n_clicks"),
    *FORM_STATES,
    State(ID["plan-k"], "value"),
    State(ID["plan-target"], "value"),
    prevent_initial_call=True,
)
@guarded(lambda message: (no_update, error_box(_("No report: {message}").format(message=message))), log=LOG,
         where="dataset page on_report", sorry=N_("Sorry — the report could not be made. Please check the choices."))
def on_report(clicks, source, contents, filename, columns, bin_values, bin_ids, missing, population, fraction, trials,
              model, classes_rule, plan_k, plan_target):
    """An uploaded file's report (its records stay with this one request; a shipped data set's report is fetched by
    GET /_reports/dataset in the browser).  The same parsing and analysis as "Analyse"; aggregates only."""
    if not clicks or source != "upload":
        return no_update, no_update
    req = parse_request(source, columns, bin_values, bin_ids, missing, population, fraction, trials, model,
                        plan_k, plan_target, classes_rule)
    text, name = reports.upload_report(req, table_for(req.source, contents, filename), filename)
    return dcc.send_string(text, name, type="text/html"), None
