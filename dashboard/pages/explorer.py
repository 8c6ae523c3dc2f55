"""Regional explorer for regulators (SPEC §1.5): layout and callbacks over :mod:`dashboard.views.explorer`.

One :class:`~dashboard.core.regions.Scenario` drives every view and lives in the URL
query, so each view is a shareable link.  Callbacks are thin: parse the store → the
view's memoised renderers → outputs.  The map's geometry is sent once per country;
every other change is a small :class:`dash.Patch`.
"""
from __future__ import annotations

import functools

import dash
from dash import (
    ClientsideFunction,
    Input,
    Output,
    State,
    callback,
    clientside_callback,
    dcc,
    html,
    no_update,
)

import census_loaders as cl
from dashboard import forms
from dashboard.components import error_box
from dashboard.core import country
from dashboard.core.regions import GRAINS, Scenario
from dashboard.core.text import N_, pgettext
from dashboard.core.text import gettext as _
from dashboard.figures import explorer as fx
from dashboard.guard import guarded
from dashboard.views import data_notes, explorer_layout
from dashboard.views.explorer import (
    COUNTRY_COLUMNS,
    DEFAULT_TABLE_GRAIN,
    ID,
    LOG,
    REPORT_STATES,
    SORRY,
    cdf_legend,
    cdf_note,
    cdf_query,
    cli_snippets,
    comparable_curves,
    country_table_rows,
    detail_panel,
    district_columns,
    district_rows,
    export_name,
    map_figure,
    map_legend,
    map_patch,
    map_state,
    parse_table_ages,
    preset_options,
    profile_sig,
    readouts,
    scenario_from_form,
    scenario_from_link,
    scenario_from_store,
    scenario_notes,
    selected_district,
    table_csv,
    table_note,
    table_query,
)
from dashboard.views.explorer_tables import translated_columns

TITLE = N_("AnonSet — regional explorer: district maps, CDFs and country tables")
dash.register_page(__name__, path="/explore", name="Explore regions", order=10,
                   title=lambda **_kw: _(TITLE))

#: Every callback and the layout answer bad input with its message and anything else with SORRY (class logged).
_guard = functools.partial(guarded, log=LOG, sorry=SORRY)


@_guard(lambda message: html.Div([html.H1(_("Explore regions")), html.Div(message, className="error", role="alert")]),
        where="explorer layout", input_errors=False)  # a broken cache must not become a traceback in the page
def layout(**query):
    """The page; every setting comes from the link (unknown keys are ignored, bad values reported)."""
    return explorer_layout.page(scenario_from_link(query))


@callback(
    Output(ID["aux"], "options"),
    Output(ID["aux"], "value"),
    Input(ID["countries"], "value"),
    State(ID["aux"], "value"),
    prevent_initial_call=True,
)
@_guard(lambda _message: (no_update, no_update), where="explorer presets", input_errors=False)
def on_countries(countries, chosen):
    """Offer the presets that describe every chosen country; drop chosen ones that no longer do.

    Anything but strings (a number, nested lists from a hand-made request) is no choice.
    """
    chosen = forms.strings(chosen)
    options = preset_options(forms.strings(countries))
    valid = {o["value"] for o in options}
    kept = [a for a in chosen if a in valid]
    return options, (kept if kept != chosen else no_update)


@callback(
    Output(ID["scenario"], "data"),
    Output(ID["message"], "children"),
    Output(ID["cli-map"], "children"),
    Output(ID["results"], "className"),
    Output(ID["report"], "disabled"),
    Input(ID["countries"], "value"),
    Input(ID["sex"], "value"),
    Input(ID["ages"], "value"),
    Input(ID["body"], "value"),
    Input(ID["height-width"], "value"),
    Input(ID["weight-width"], "value"),
    Input(ID["bmi"], "value"),
    Input(ID["aux"], "value"),
    Input(ID["user-name"], "value"),
    Input(ID["user-percent"], "value"),
    Input(ID["k"], "value"),
    Input(ID["stat"], "value"),
    Input(ID["model"], "value"),
    Input(ID["self-report"], "value"),
    prevent_initial_call=True,
)
@_guard(lambda message: _stale(message), where="explorer form")
def on_form(countries, sexes, ages, body, height_width, weight_width, bmi, aux, user_name, user_percent, k, stat,
            model="v2", self_report=None):
    """Validate the form into the scenario store; a bad setting says why and greys the views out (they still show
    the last valid scenario, marked as such — never a stale answer that looks current)."""
    s = scenario_from_form(countries, sexes, ages, body, height_width, weight_width, bmi, aux, user_name,
                           user_percent, k, stat, model, self_report)
    return s.to_query(), None, cli_snippets(s)["map"], "explorer-results", False


def _stale(message: str) -> tuple:
    """``on_form``'s answer to a bad setting: why, the views greyed out and no report (never of stale numbers)."""
    box = html.Div([error_box(message),
                    html.P(_("The views below still show the last valid scenario (greyed out) until the "
                             "setting is fixed."), className="field-help")], **{"data-stale": "true"})
    return no_update, box, no_update, "explorer-results stale", True


# "Download report": GET /_reports/explorer in the browser (assets/report_download.js; the route makes the file, issue 29)
clientside_callback(
    ClientsideFunction(namespace="anonset", function_name="downloadReport"),
    Output(ID["report-message"], "children"),
    Input(ID["report"], "n_clicks"),
    *(State(component, prop) for component, prop, _name in REPORT_STATES),
    prevent_initial_call=True,
)


# a click on the map or a table row selects a district; a new first country clears the selection (clientside)
clientside_callback(
    ClientsideFunction(namespace="anonset", function_name="explorerSelect"),
    Output(ID["selected"], "data"),
    Input(ID["map"], "clickData"),
    Input(ID["district-table"], "active_cell"),
    Input(ID["scenario"], "data"),
    State(ID["selected"], "data"),
    prevent_initial_call=True,
)


@callback(
    Output(ID["map"], "figure"),
    Output(ID["loaded-map"], "data"),
    Output(ID["map-box"], "style"),
    Output(ID["no-map"], "children"),
    Output(ID["map-legend"], "children"),
    Input(ID["scenario"], "data"),
    Input(ID["selected"], "data"),
    State(ID["loaded-map"], "data"),
)
@_guard(lambda _message: (no_update,) * 5, where="explorer map")
def on_map(query, selected, loaded):
    """The district map: geometry only when the first country changes, otherwise a Patch of what changed."""
    s = scenario_from_store(query)
    code = s.countries[0]
    district = selected_district(selected, code)
    geo = cl.boundaries(code)
    if geo is None:
        note = data_notes.boundary_note(code) or _("No district boundaries are available for this data set.")
        return ({}, map_state(s, district, False), {"display": "none"},
                html.Div([note, " ", _("The districts are listed in the table below.")], className="warning"), None)
    if not loaded or loaded.get("country") != code or not loaded.get("map"):
        return map_figure(s, district), map_state(s, district, True), {}, None, map_legend(s)
    patch, state = map_patch(s, district, loaded)
    recoloured = (state["profile"], state["stat"], state["k"]) != (loaded.get("profile"), loaded.get("stat"), loaded.get("k"))
    legend = map_legend(s) if recoloured else no_update
    return patch, state, no_update, no_update, legend


@callback(
    Output(ID["district-table"], "data"),
    Output(ID["district-table"], "columns"),
    Output(ID["district-table-box"], "style"),
    Output(ID["show-table"], "style"),
    Input(ID["scenario"], "data"),
    Input(ID["show-table"], "value"),
)
@_guard(lambda _message: (no_update,) * 4, where="explorer district table")
def on_district_table(query, show):
    """Every district in a sortable table: always for data sets without a map, on request otherwise."""
    s = scenario_from_store(query)
    code = s.countries[0]
    has_map = cl.boundaries(code) is not None
    if has_map and not show:
        return [], [], {"display": "none"}, {}
    return (district_rows(s, code), district_columns(s, code), {},
            {} if has_map else {"display": "none"})


@callback(
    Output(ID["detail"], "children"),
    Input(ID["selected"], "data"),
    Input(ID["scenario"], "data"),
)
@_guard(error_box, where="explorer detail")
def on_detail(selected, query):
    """The clicked district's detail (or the hint to click one)."""
    s = scenario_from_store(query)
    district = selected_district(selected, s.countries[0])
    if district is None:
        return html.P(_(explorer_layout.CLICK_HINT), className="muted")
    return detail_panel(s, district)


@callback(
    Output(ID["notes"], "children"),
    Input(ID["scenario"], "data"),
)
@_guard(error_box, where="explorer notes")
def on_notes(query):
    """The notes on the chosen data sets, above the map (at once: coming later they would push the drawn map down)."""
    return scenario_notes(scenario_from_store(query))


# the sections below the map wait for its first draw: the store is set once per page (assets/explorer.js says when)
clientside_callback(
    ClientsideFunction(namespace="anonset", function_name="explorerWhenMapDrawn"),
    Output(ID["map-drawn"], "data"),
    Input(ID["scenario"], "data"),
    State(ID["map-drawn"], "data"),
    State(ID["map"], "id"),
    State(ID["map-box"], "id"),
)


@callback(
    Output(ID["cdf"], "figure"),
    Output(ID["readouts"], "children"),
    Output(ID["cdf-note"], "children"),
    Output(ID["cdf-legend"], "children"),
    Output(ID["loaded-cdf"], "data"),
    Output(ID["cdf-query"], "data"),
    Output(ID["cli-cdf"], "children"),
    Output(ID["cdf-section"], "aria-busy"),
    Input(ID["scenario"], "data"),
    Input(ID["cdf-grain"], "value"),
    Input(ID["map-drawn"], "data"),
    State(ID["loaded-cdf"], "data"),
)
@_guard(lambda message: (*(no_update,) * 2, error_box(message), *(no_update,) * 4, "false"), where="explorer distributions")
def on_cdf(query, grain, map_drawn, loaded):
    """Person- and cell-weighted CDFs of every chosen country on one age grain (whole 5-year groups by default);
    nothing is resent when only k or the statistic changed, nor before the map has drawn."""
    if not map_drawn:
        return (no_update,) * 8
    grain = grain if grain in GRAINS else DEFAULT_TABLE_GRAIN
    s = scenario_from_store(query)
    key = {"countries": list(s.countries), "profile": profile_sig(s.to_query()), "grain": grain}
    if key == loaded:
        return (no_update,) * 8
    cdfs = comparable_curves(s, grain)
    names = {c: country.dataset_title(c) for c in s.countries}
    return (fx.cdf_figure(cdfs, names), readouts(s, grain), cdf_note(s, cdfs, grain), cdf_legend(cdfs, names),
            key, cdf_query(grain), cli_snippets(s, cdf_grain=grain)["cdf"], "false")


@callback(
    Output(ID["country-table"], "data"),
    Output(ID["table-message"], "children"),
    Output(ID["cli-table"], "children"),
    Output(ID["table-query"], "data"),
    Output(ID["table-note"], "children"),
    Output(ID["tables-section"], "aria-busy"),
    Input(ID["table-ages"], "value"),
    Input(ID["table-grain"], "value"),
    Input(ID["map-drawn"], "data"),
)
@_guard(lambda message: ([], error_box(message), no_update, no_update, None, "false"), where="explorer country tables")
def on_table(ages_text, grain, map_drawn):
    """Country tables of every data set for the chosen ages and age grain (memoised per data set and ages), once the
    map has drawn.

    Bad ages empty the table (no stale numbers under an error)."""
    if not map_drawn:
        return (no_update,) * 6
    grain = grain if grain in GRAINS else DEFAULT_TABLE_GRAIN
    ages = parse_table_ages(ages_text)
    rows = country_table_rows(ages, grain)
    note = table_note(ages, grain)
    return rows, None, cli_snippets(Scenario(), ages, grain)["table"], table_query(ages, grain), note, "false"


clientside_callback(
    ClientsideFunction(namespace="anonset", function_name="explorerSyncQuery"),
    Output(ID["link-text"], "value"),
    Input(ID["scenario"], "data"),
    Input(ID["selected"], "data"),
    Input(ID["table-query"], "data"),
    Input(ID["cdf-query"], "data"),
)


# --------------------------------------------------------------------------- CSV downloads (issue 28)
# Each table's own download with a name that says what it holds and one header row (DataTable's built-in export
# named both "Data.csv" and wrote the country table's two header levels as two rows).  The rows are the table as
# shown (filtered and sorted): public statistics only.


@callback(
    Output(ID["district-csv-download"], "data"),
    Input(ID["district-csv"], "n_clicks"),
    State(ID["district-table"], "derived_virtual_data"),
    State(ID["district-table"], "columns"),
    State(ID["countries"], "value"),
    State(ID["stat"], "value"),
    prevent_initial_call=True,
)
def on_district_csv(clicks, rows, columns, countries, stat):
    if not clicks or not _table_shape(rows, columns):
        return no_update
    code = countries[0] if isinstance(countries, list) and countries else countries
    return dcc.send_string(table_csv(rows or [], columns),
                           export_name(pgettext("file name", "districts"), _word(code), _word(stat)))


def _table_shape(rows, columns) -> bool:
    """The table as a DataTable sends it (rows: dicts, columns: dicts with a string id); anything else is no download."""
    return (isinstance(columns, list) and bool(columns)
            and all(isinstance(c, dict) and isinstance(c.get("id"), str) for c in columns)
            and (rows is None or isinstance(rows, list) and all(isinstance(r, dict) for r in rows)))


def _word(value) -> str:
    """A setting as a file-name word (a string or number; anything else is left out)."""
    return str(value)[:40] if isinstance(value, (str, int, float)) else ""


@callback(
    Output(ID["country-csv-download"], "data"),
    Input(ID["country-csv"], "n_clicks"),
    State(ID["country-table"], "derived_virtual_data"),
    State(ID["country-table"], "columns"),
    State(ID["table-ages"], "value"),
    State(ID["table-grain"], "value"),
    prevent_initial_call=True,
)
def on_country_csv(clicks, rows, columns, ages, grain):
    if not clicks or not _table_shape(rows, columns):
        return no_update
    # every column, the trimmed means in people too (the screen leaves them out to fit a projector)
    return dcc.send_string(table_csv(rows or [], translated_columns(COUNTRY_COLUMNS)),
                           export_name(pgettext("file name", "country-tables"), _word(ages), _word(grain)))
