"""The explorer's page layout: the scenario form, the map, detail and distributions, and the country tables.

Only components (ids from :mod:`dashboard.views.explorer`); :mod:`dashboard.pages.explorer` holds the callbacks.
"""
from __future__ import annotations

from dash import dash_table, dcc, html

import census_loaders as cl
from dashboard import forms
from dashboard.components import (
    TABLE_STYLE,
    chart_reading,
    command_snippet,
    field,
    model_help,
    model_switch,
    report_request,
    table_locale,
)
from dashboard.core import country as catalog
from dashboard.core.regions import Scenario
from dashboard.core.text import N_, with_language
from dashboard.core.text import gettext as _
from dashboard.figures.maps import geojson_url
from dashboard.figures.style import graph_config
from dashboard.views.explorer import (
    GRAIN_OPTIONS,
    ID,
    REPORT_PARAMS,
    STAT_OPTIONS,
    LinkState,
    cdf_query,
    cli_snippets,
    form_values,
    preset_options,
    range_text,
    table_query,
    translated_options,
)
from dashboard.views.explorer_tables import country_data_table

#: What the detail panel says before a district is chosen (the page's callback says it again after a change).
CLICK_HINT = N_("Click a district on the map (or a row of the district table) to see its detail.")


def _width(id_: str, unit: str, value: int):
    return dcc.Dropdown(id=id_, options=[{"label": f"{w} {unit}", "value": w} for w in forms.WIDTHS], value=value,
                        clearable=False, searchable=False)


def form_section(s: Scenario, v: dict) -> html.Section:
    return html.Section(
        [
            html.H2(_("Scenario"), className="panel-title"),
            field(_("Countries"), dcc.Dropdown(id=ID["countries"], options=catalog.country_options(cl.manifest()),
                                             value=v["countries"], multi=True, clearable=False),
                   _("The map shows the first; the curves compare all."), ID["countries"]),
            field(_("Sex"), dcc.Checklist(id=ID["sex"], options=[{"label": _("female"), "value": "female"},
                                                               {"label": _("male"), "value": "male"}],
                                        value=v["sex"], inline=True, className="radio"), control_id=ID["sex"]),
            field(_("Ages"), dcc.Input(id=ID["ages"], type="text", value=v["ages"], debounce=True, maxLength=20,
                                     placeholder="18-75"),
                   _("Study population [from, to), e.g. 18-75 or 65+; census groups are trimmed by overlap."), ID["ages"]),
            field(_("Profile"), dcc.Checklist(id=ID["body"], options=[{"label": _("height × weight bands"), "value": "body"}],
                                            value=v["body"], className="checklist"),
                   _("Off: district × sex × age only."), ID["body"]),
            html.Div([field(_("Height band"), _width(ID["height-width"], "cm", v["height-width"]), control_id=ID["height-width"]),
                      field(_("Weight band"), _width(ID["weight-width"], "kg", v["weight-width"]), control_id=ID["weight-width"])],
                     className="row2"),
            field(_("Body model"), html.Div([
                model_switch(ID["model"], v["model"]),
                dcc.Checklist(id=ID["self-report"], value=v["self-report"], className="checklist", options=[{
                    "label": _(" v2: correct self-reported heights and weights to measured ones (NHANES offsets)"),
                    "value": "on"}]),
            ]), model_help(), ID["model"]),
            field(_("Plausible BMI"), dcc.Input(id=ID["bmi"], type="text", value=v["bmi"], debounce=True, maxLength=20),
                   _("Paper model only: cells whose centre BMI lies outside are left out of every number."), ID["bmi"]),
            html.Fieldset(
                [
                    html.Legend(_("Auxiliary knowledge"), className="field-label"),
                    dcc.Checklist(id=ID["aux"], options=preset_options(s.countries), value=v["aux"], className="checklist"),
                    html.Div([field(_("Your own fact"), dcc.Input(id=ID["user-name"], type="text", value=v["user-name"],
                                                               debounce=True, maxLength=60, placeholder=_("e.g. uses app X")),
                                     control_id=ID["user-name"]),
                              field(_("… true for this % of people"), dcc.Input(id=ID["user-percent"], type="text",
                                                                         value=v["user-percent"], debounce=True,
                                                                         maxLength=80, placeholder=_("e.g. 12")),
                                     control_id=ID["user-percent"])]),
                    html.Div(_("A percentage, or one per age band: 18-30:10,30+:5. Fractions multiply (independence assumed)."),
                             className="field-help"),
                ],
                className="aux-fieldset",
            ),
            field(_("Map statistic"), dcc.RadioItems(id=ID["stat"], options=translated_options(STAT_OPTIONS), value=v["stat"],
                                                   className="checklist"), control_id=ID["stat"]),
            field("k", dcc.Input(id=ID["k"], type="number", value=v["k"], debounce=True),  # no min: Dash empties a value below it
                   _("Threshold of the map's “share of people with CAS below k”."), ID["k"]),
            html.Div([html.Label(_("Link to this view"), htmlFor=ID["link-text"], className="field-label"),
                      html.Div([dcc.Input(id=ID["link-text"], type="text", readOnly=True, className="link-text"),
                                dcc.Clipboard(target_id=ID["link-text"], id=ID["link-copy"], title=_("copy the link"))],
                               className="link-row")], className="field"),
        ],
        className="panel explorer-form", **{"aria-label": _("Scenario")},
    )


def page(link: LinkState) -> html.Div:
    """The page a link describes (:func:`dashboard.views.explorer.scenario_from_link`)."""
    s = link.scenario
    v = form_values(s)
    cli = cli_snippets(s, link.table_ages, link.table_grain, link.cdf_grain)
    selected = {"country": s.countries[0], "district": link.district} if link.district else None
    graph = lambda key, **kw: dcc.Graph(id=ID[key], config=graph_config(**kw), figure={})
    results = html.Div(
        [
            html.Div(id=ID["message"], role="alert", **{"data-results": ID["results"]}),
            # the report is fetched by GET /_reports/explorer (assets/report_download.js): the scenario store, the
            # distributions' grain, the country tables' ages as typed and their grain
            html.Div([html.Button(_("Download report"), id=ID["report"], n_clicks=0, className="button secondary",
                                  title=_("one HTML file with every chart, its numbers, the sources and the commands; "
                                          "it opens offline and prints to PDF (in English)"),
                                  **report_request("explorer", REPORT_PARAMS, ID["report-message"])),
                      html.Div(id=ID["report-message"], role="status")],
                     className="link-row report-row"),
            html.Div(id=ID["notes"]),
            html.Section(
                [
                    html.H2(_("District map")),
                    chart_reading(_("Each district coloured by the chosen statistic: dark purple is a small anonymity "
                                    "set (few people alike, easier to single out), yellow a large one; the scale is "
                                    "logarithmic. Click a district for its detail, or list them all in a table.")),
                    # data-geometry: assets/map_prewarm.js fetches the first country's polygons while the page
                    # waits for the map's figure (the browser caches them for plotly.js's own request)
                    html.Div(graph("map", scrollZoom=True), id=ID["map-box"], className="map-box",
                             **({"data-geometry": geojson_url(s.countries[0])} if cl.boundaries(s.countries[0]) else {})),
                    html.Div(id=ID["no-map"]),
                    html.Div(id=ID["map-legend"], className="map-legend"),
                    dcc.Checklist(id=ID["show-table"], value=[], className="checklist",
                                  options=[{"label": _("list every district in a sortable table (CSV download)"),
                                            "value": "show"}]),
                    html.Div([
                        html.Div([html.Button(_("Download the district table (CSV)"), id=ID["district-csv"], n_clicks=0,
                                              className="button secondary"),
                                  dcc.Download(id=ID["district-csv-download"])], className="result-exports"),
                        dash_table.DataTable(
                            id=ID["district-table"], data=[], columns=[], sort_action="native", page_size=15,
                            filter_action="native", filter_options={"case": "insensitive",
                                                                    "placeholder_text": _("search…")},
                            cell_selectable=True,
                            locale_format=table_locale(),
                            style_cell_conditional=[{"if": {"column_id": c}, "textAlign": "left"}
                                                    for c in ("district", "district_id", "region", "filled")],
                            **TABLE_STYLE,
                        )],
                        id=ID["district-table-box"], style={"display": "none"},
                    ),
                    command_snippet(ID["cli-map"], cli["map"]),
                ],
                className="explorer-section", **{"aria-label": _("District map")},
            ),
            html.Section([html.H2(_("District detail")), html.Div(
                html.P(_(CLICK_HINT), className="muted"), id=ID["detail"])],
                className="explorer-section", **{"aria-label": _("District detail")}),
            html.Section(
                [
                    html.H2(_("How anonymity sets are distributed")),
                    field(_("Age groups compared"), dcc.RadioItems(id=ID["cdf-grain"], options=translated_options(GRAIN_OPTIONS),
                                                                 value=link.cdf_grain, className="checklist"),
                          control_id=ID["cdf-grain"]),
                    html.Div(id=ID["readouts"], className="cards readouts"),
                    chart_reading(_("For each anonymity set size x (left to right, log scale), the share of people "
                                    "whose set is at most x: the further left a curve rises, the more people sit in "
                                    "small crowds. Solid lines count people, dotted ones combinations.")),
                    graph("cdf"),
                    html.Div(id=ID["cdf-legend"]),
                    html.P(id=ID["cdf-note"], className="field-help cdf-note"),
                    command_snippet(ID["cli-cdf"], cli["cdf"], _("The command prints the readouts' shares: people "
                                                                 "whose set is below k, on the curves' age groups.")),
                ],
                # busy until the curves come, after the map's first draw (pages/explorer.py on_cdf)
                className="explorer-section", id=ID["cdf-section"],
                **{"aria-label": _("Distributions"), "aria-busy": "true"},
            ),
        ],
        className="explorer-results", id=ID["results"],
    )
    tables = html.Section(
        [
            html.H2(_("Country tables")),
            html.P(_("Every data set in the cache, by sex, over district × sex × age group only (no body "
                     "measurements): a CAS here is a census count. Means are over all district × age combinations; "
                     "the CSV also has the trimmed means in people."),
                   className="field-help"),
            html.Div(
                [field(_("Ages of the country tables"), dcc.Input(id=ID["table-ages"], type="text", debounce=True,
                                                                value=range_text(link.table_ages), maxLength=20),
                        _("Default 18-75; published comparisons used e.g. 15-85."), ID["table-ages"]),
                 field(_("Age groups compared"), dcc.RadioItems(id=ID["table-grain"], options=translated_options(GRAIN_OPTIONS),
                                                              value=link.table_grain, className="checklist"),
                       control_id=ID["table-grain"])],
                className="table-settings",
            ),
            html.Div(id=ID["table-message"], role="alert",
                     **{"data-results": f'{ID["country-table"]} {ID["country-csv"]}'}),
            html.P(id=ID["table-note"], className="field-help"),
            dcc.Loading(country_data_table(), type="dot"),
            html.Div([html.Button(_("Download the country tables (CSV)"), id=ID["country-csv"], n_clicks=0,
                                  className="button secondary"),
                      dcc.Download(id=ID["country-csv-download"])], className="result-exports"),
            command_snippet(ID["cli-table"], cli["table"]),
        ],
        # busy until the tables come, after the map's first draw (pages/explorer.py on_table)
        className="explorer-section explorer-tables", id=ID["tables-section"],
        **{"aria-label": _("Country tables"), "aria-busy": "true"},
    )
    return html.Div(
        [
            html.H1(_("Explore regions")),
            html.P(_("How large are anonymity sets across a country's districts, and how do countries compare? "
                     "One scenario drives the map, the curves and the link in your address bar."), className="lead"),
            html.P(dcc.Link(_("For app developers: safe bucket sizes →"), href=with_language("/explore/buckets"))),
            html.Div([html.Div(n, className="warning", role="status") for n in link.notices], id=ID["link-notices"]),
            html.Div([form_section(s, v), results], className="explorer-grid"),
            tables,
            dcc.Store(id=ID["scenario"], data=s.to_query()),
            dcc.Store(id=ID["selected"], data=selected),
            dcc.Store(id=ID["loaded-map"], data=None),
            # set once, when the map has drawn (or there is none): the sections below it wait for it (assets/explorer.js)
            dcc.Store(id=ID["map-drawn"], data=None),
            dcc.Store(id=ID["loaded-cdf"], data=None),
            dcc.Store(id=ID["table-query"], data=table_query(link.table_ages, link.table_grain)),
            dcc.Store(id=ID["cdf-query"], data=cdf_query(link.cdf_grain)),
        ],
        className="explorer",
    )
