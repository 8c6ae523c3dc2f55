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
    dash_table,
    dcc,
    html,
    no_update,
)

import census_loaders as cl
from dashboard import forms, reports
from dashboard.components import TABLE_STYLE, chart_reading, command_snippet, error_box, field
from dashboard.core.regions import GRAINS, Scenario, format_range
from dashboard.figures import explorer as fx
from dashboard.figures.maps import geojson_url
from dashboard.guard import guarded
from dashboard.server import limits
from dashboard.views.explorer import (
    COUNTRY_COLUMNS,
    DEFAULT_TABLE_GRAIN,
    GRAIN_OPTIONS,
    ID,
    LOG,
    SORRY,
    cdf_legend,
    cdf_note,
    cdf_query,
    cli_snippets,
    comparable_curves,
    country_data_table,
    country_table_rows,
    detail_panel,
    district_columns,
    district_rows,
    export_name,
    form_section,
    form_values,
    map_figure,
    map_legend,
    map_patch,
    map_state,
    parse_table_ages,
    preset_options,
    profile_sig,
    range_text,
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

dash.register_page(__name__, path="/explore", name="Explore regions", order=10,
                   title="AnonSet — regional explorer: district maps, CDFs and country tables")

#: Every callback and the layout answer bad input with its message and anything else with SORRY (class logged).
_guard = functools.partial(guarded, log=LOG, sorry=SORRY)


@_guard(lambda message: html.Div([html.H1("Explore regions"), html.Div(message, className="error", role="alert")]),
        where="explorer layout", input_errors=False)  # a broken cache must not become a traceback in the page
def layout(**query):
    """The page; every setting comes from the link (unknown keys are ignored, bad values reported)."""
    link = scenario_from_link(query)
    s = link.scenario
    v = form_values(s)
    cli = cli_snippets(s, link.table_ages, link.table_grain, link.cdf_grain)
    selected = {"country": s.countries[0], "district": link.district} if link.district else None
    graph = lambda key, **kw: dcc.Graph(id=ID[key], config={**fx.GRAPH_CONFIG, **kw}, figure={})
    results = html.Div(
        [
            html.Div(id=ID["message"], role="alert", **{"data-results": ID["results"]}),
            html.Div([html.Button("Download report", id=ID["report"], n_clicks=0, className="button secondary",
                                  title="one HTML file with every chart, its numbers, the sources and the commands; "
                                        "it opens offline and prints to PDF"),
                      html.Div(id=ID["report-message"], role="status"), dcc.Download(id=ID["report-download"])],
                     className="link-row report-row"),
            html.Div(id=ID["notes"]),
            html.Section(
                [
                    html.H2("District map"),
                    chart_reading("Each district coloured by the chosen statistic: dark purple is a small anonymity "
                                  "set (few people alike, easier to single out), yellow a large one; the scale is "
                                  "logarithmic. Click a district for its detail, or list them all in a table."),
                    # data-geometry: assets/map_prewarm.js fetches the first country's polygons while the page
                    # waits for the map's figure (the browser caches them for plotly.js's own request)
                    html.Div(graph("map", scrollZoom=True), id=ID["map-box"], className="map-box",
                             **({"data-geometry": geojson_url(s.countries[0])} if cl.boundaries(s.countries[0]) else {})),
                    html.Div(id=ID["no-map"]),
                    html.Div(id=ID["map-legend"], className="map-legend"),
                    dcc.Checklist(id=ID["show-table"], value=[], className="checklist",
                                  options=[{"label": "list every district in a sortable table (CSV download)",
                                            "value": "show"}]),
                    html.Div([
                        html.Div([html.Button("Download the district table (CSV)", id=ID["district-csv"], n_clicks=0,
                                              className="button secondary"),
                                  dcc.Download(id=ID["district-csv-download"])], className="result-exports"),
                        dash_table.DataTable(
                            id=ID["district-table"], data=[], columns=[], sort_action="native", page_size=15,
                            filter_action="native", filter_options={"case": "insensitive",
                                                                    "placeholder_text": "search…"},
                            cell_selectable=True,
                            style_cell_conditional=[{"if": {"column_id": c}, "textAlign": "left"}
                                                    for c in ("district", "district_id", "region", "filled")],
                            **TABLE_STYLE,
                        )],
                        id=ID["district-table-box"], style={"display": "none"},
                    ),
                    command_snippet(ID["cli-map"], cli["map"]),
                ],
                className="explorer-section", **{"aria-label": "District map"},
            ),
            html.Section([html.H2("District detail"), html.Div(
                html.P("Click a district on the map (or a row of the district table) to see its detail.",
                       className="muted"), id=ID["detail"])],
                className="explorer-section", **{"aria-label": "District detail"}),
            html.Section(
                [
                    html.H2("How anonymity sets are distributed"),
                    field("Age groups compared", dcc.RadioItems(id=ID["cdf-grain"], options=GRAIN_OPTIONS,
                                                                 value=link.cdf_grain, className="checklist"),
                          control_id=ID["cdf-grain"]),
                    html.Div(id=ID["readouts"], className="cards readouts"),
                    chart_reading("For each anonymity set size x (left to right, log scale), the share of people "
                                  "whose set is at most x: the further left a curve rises, the more people sit in "
                                  "small crowds. Solid lines count people, dotted ones combinations."),
                    graph("cdf"),
                    html.Div(id=ID["cdf-legend"]),
                    html.P(id=ID["cdf-note"], className="field-help cdf-note"),
                    command_snippet(ID["cli-cdf"], cli["cdf"], "The command prints the readouts' shares: people whose "
                                                "set is below k, on the curves' age groups."),
                ],
                className="explorer-section", **{"aria-label": "Distributions"},
            ),
        ],
        className="explorer-results", id=ID["results"],
    )
    tables = html.Section(
        [
            html.H2("Country tables"),
            html.P("Every data set in the cache, by sex, over district × sex × age group only (no body "
                   "measurements): a CAS here is a census count. Means are over all district × age combinations; "
                   "the CSV also has the trimmed means in people.",
                   className="field-help"),
            html.Div(
                [field("Ages of the country tables", dcc.Input(id=ID["table-ages"], type="text", debounce=True,
                                                                value=range_text(link.table_ages), maxLength=20),
                        "Default 18-75; published comparisons used e.g. 15-85.", ID["table-ages"]),
                 field("Age groups compared", dcc.RadioItems(id=ID["table-grain"], options=GRAIN_OPTIONS,
                                                              value=link.table_grain, className="checklist"),
                       control_id=ID["table-grain"])],
                className="table-settings",
            ),
            html.Div(id=ID["table-message"], role="alert",
                     **{"data-results": f'{ID["country-table"]} {ID["country-csv"]}'}),
            html.P(id=ID["table-note"], className="field-help"),
            dcc.Loading(country_data_table(), type="dot"),
            html.Div([html.Button("Download the country tables (CSV)", id=ID["country-csv"], n_clicks=0,
                                  className="button secondary"),
                      dcc.Download(id=ID["country-csv-download"])], className="result-exports"),
            command_snippet(ID["cli-table"], cli["table"]),
        ],
        className="explorer-section explorer-tables", **{"aria-label": "Country tables"},
    )
    return html.Div(
        [
            html.H1("Explore regions"),
            html.P("How large are anonymity sets across a country's districts, and how do countries compare? "
                   "One scenario drives the map, the curves and the link in your address bar.", className="lead"),
            html.P(dcc.Link("For app developers: safe bucket sizes →", href="/explore/buckets")),
            html.Div([html.Div(n, className="warning", role="status") for n in link.notices], id=ID["link-notices"]),
            html.Div([form_section(s, v), results], className="explorer-grid"),
            tables,
            dcc.Store(id=ID["scenario"], data=s.to_query()),
            dcc.Store(id=ID["selected"], data=selected),
            dcc.Store(id=ID["loaded-map"], data=None),
            dcc.Store(id=ID["loaded-cdf"], data=None),
            dcc.Store(id=ID["table-query"], data=table_query(link.table_ages, link.table_grain)),
            dcc.Store(id=ID["cdf-query"], data=cdf_query(link.cdf_grain)),
        ],
        className="explorer",
    )


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
                    html.P("The views below still show the last valid scenario (greyed out) until the "
                           "setting is fixed.", className="field-help")], **{"data-stale": "true"})
    return no_update, box, no_update, "explorer-results stale", True


@callback(
    Output(ID["report-download"], "data"),
    Output(ID["report-message"], "children"),
    Input(ID["report"], "n_clicks"),
    State(ID["countries"], "value"),
    State(ID["sex"], "value"),
    State(ID["ages"], "value"),
    State(ID["body"], "value"),
    State(ID["height-width"], "value"),
    State(ID["weight-width"], "value"),
    State(ID["bmi"], "value"),
    State(ID["aux"], "value"),
    State(ID["user-name"], "value"),
    State(ID["user-percent"], "value"),
    State(ID["k"], "value"),
    State(ID["stat"], "value"),
    State(ID["model"], "value"),
    State(ID["self-report"], "value"),
    State(ID["cdf-grain"], "value"),
    State(ID["table-ages"], "value"),
    State(ID["table-grain"], "value"),
    prevent_initial_call=True,
)
@_guard(lambda message: (no_update, error_box(f"No report: {message}")), where="explorer report")
def on_report(clicks, countries, sexes, ages, body, height_width, weight_width, bmi, aux, user_name, user_percent, k,
              stat, model, self_report, cdf_grain, table_ages, table_grain):
    """The report of the form as it is now (parsed as the views parse it): a bad setting gets the page's message."""
    if not clicks:
        return no_update, no_update
    s = scenario_from_form(countries, sexes, ages, body, height_width, weight_width, bmi, aux, user_name,
                           user_percent, k, stat, model, self_report)
    table_ages = parse_table_ages(table_ages)
    cdf_grain = cdf_grain if cdf_grain in GRAINS else DEFAULT_TABLE_GRAIN
    table_grain = table_grain if table_grain in GRAINS else DEFAULT_TABLE_GRAIN
    command = reports.report_command("explorer", s.to_cli("districts"), ["--grain", cdf_grain, "--table-ages",
                                     format_range(table_ages), "--table-grain", table_grain])

    def make() -> str:
        with limits.report_slot(command), limits.scenario_slot(s, "This report"):
            return reports.to_html(reports.explorer_report(s, cdf_grain=cdf_grain, table_ages=table_ages,
                                                           table_grain=table_grain))
    text = reports.rendered("explorer", (s, cdf_grain, table_ages, table_grain), make)
    return dcc.send_string(text, reports.file_name("explorer", "-".join(s.countries)), type="text/html"), None


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
        note = cl.dataset_info(code).get("boundary_note") or "No district boundaries are available for this data set."
        return ({}, map_state(s, district, False), {"display": "none"},
                html.Div([note, " The districts are listed in the table below."], className="warning"), None)
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
        return html.P("Click a district on the map (or a row of the district table) to see its detail.",
                      className="muted")
    return detail_panel(s, district)


@callback(
    Output(ID["cdf"], "figure"),
    Output(ID["readouts"], "children"),
    Output(ID["cdf-note"], "children"),
    Output(ID["cdf-legend"], "children"),
    Output(ID["notes"], "children"),
    Output(ID["loaded-cdf"], "data"),
    Output(ID["cdf-query"], "data"),
    Output(ID["cli-cdf"], "children"),
    Input(ID["scenario"], "data"),
    Input(ID["cdf-grain"], "value"),
    State(ID["loaded-cdf"], "data"),
)
@_guard(lambda message: (*(no_update,) * 4, error_box(message), no_update, no_update, no_update),
        where="explorer distributions")
def on_cdf(query, grain, loaded):
    """Person- and cell-weighted CDFs of every chosen country on one age grain (whole 5-year groups by default);
    nothing is resent when only k or the statistic changed."""
    grain = grain if grain in GRAINS else DEFAULT_TABLE_GRAIN
    s = scenario_from_store(query)
    key = {"countries": list(s.countries), "profile": profile_sig(s.to_query()), "grain": grain}
    if key == loaded:
        return (no_update,) * 8
    cdfs = comparable_curves(s, grain)
    names = {c: cl.dataset_info(c)["name"] for c in s.countries}
    return (fx.cdf_figure(cdfs, names), readouts(s, grain), cdf_note(s, cdfs, grain), cdf_legend(cdfs, names),
            scenario_notes(s), key, cdf_query(grain), cli_snippets(s, cdf_grain=grain)["cdf"])


@callback(
    Output(ID["country-table"], "data"),
    Output(ID["table-message"], "children"),
    Output(ID["cli-table"], "children"),
    Output(ID["table-query"], "data"),
    Output(ID["table-note"], "children"),
    Input(ID["table-ages"], "value"),
    Input(ID["table-grain"], "value"),
)
@_guard(lambda message: ([], error_box(message), no_update, no_update, None), where="explorer country tables")
def on_table(ages_text, grain):
    """Country tables of every data set for the chosen ages and age grain (memoised per data set and ages).

    Bad ages empty the table (no stale numbers under an error)."""
    grain = grain if grain in GRAINS else DEFAULT_TABLE_GRAIN
    ages = parse_table_ages(ages_text)
    rows = country_table_rows(ages, grain)
    note = table_note(ages, grain)
    return rows, None, cli_snippets(Scenario(), ages, grain)["table"], table_query(ages, grain), note


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
    return dcc.send_string(table_csv(rows or [], columns), export_name("districts", _word(code), _word(stat)))


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
    return dcc.send_string(table_csv(rows or [], COUNTRY_COLUMNS), export_name("country-tables", _word(ages), _word(grain)))
