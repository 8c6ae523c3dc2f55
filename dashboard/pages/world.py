"""The world on one map (issue 26): layout and short callbacks over :mod:`dashboard.views.world`.

The statistic switch recolours the map by a Patch (the outlines are fetched once, by URL) and keeps the
address bar in step (``?stat=share_below``); a click on a country opens the explorer on its data set; the
search box filters the country table (accents ignored).  Nothing here computes over the data sets: the
numbers were written by ``anonset data build``.
"""
from __future__ import annotations

import logging

import dash
from dash import (
    ClientsideFunction,
    Input,
    Output,
    Patch,
    callback,
    clientside_callback,
    dash_table,
    dcc,
    html,
    no_update,
)
from dash.exceptions import PreventUpdate

from dashboard.components import TABLE_STYLE, command_block, field, table_locale
from dashboard.core.errors import InputError
from dashboard.core.text import N_, gettext
from dashboard.core.text import gettext as _
from dashboard.figures.style import graph_config
from dashboard.guard import guarded
from dashboard.views import world as vw

ID = vw.ID
LOG = logging.getLogger("anonset.world")

dash.register_page(__name__, path=vw.PATH, name="World", title="AnonSet — the world on one map", order=12)

LEAD = N_("How large is the crowd a person hides in, country by country? Each country is coloured by one number "
        "of its data set; click a country to open its districts in the explorer (where it has them), or find "
        "any data set in the table below.")


SHELL_NOTE = N_("The same numbers from a shell.")


def layout(**query):
    """The page; ``?stat=person_mean|share_below`` chooses the colours, other query keys are ignored."""
    stat, notices = vw.stat_from_query(query)
    try:
        rows = vw.table_rows()
        summary, k = vw.summary_line(), vw.k_of_cache()
    except (InputError, FileNotFoundError) as exc:
        return html.Div([html.H1(_("The world on one map")),
                         html.P(str(exc), className="warning", role="status")], className="world-page")
    return html.Div([
        html.H1(_("The world on one map")),
        html.P(gettext(LEAD), className="lead"),
        *[html.Div(msg, className="warning", role="status", id=ID["notice"]) for msg in notices],
        field(_("Colour by"), vw.stat_switch(stat, k), control_id=ID["stat"]),
        html.P(summary, className="chart-reading"),
        dcc.Graph(id=ID["map"], figure=vw.render_map(stat), config=graph_config(), className="world-map"),
        dcc.Location(id=ID["go"], refresh="callback-nav"),
        html.Div(command_block(vw.cli_command(stat), gettext(SHELL_NOTE)), id=ID["command"]),
        html.H2(_("Every data set")),
        field(_("Search"), dcc.Input(id=ID["search"], type="search", value="", debounce=False, autoComplete="off",
                                     placeholder=_("country, local name, code or continent, e.g. Côte d'Ivoire, "
                                                   "Brasil")),
              _("Accents and case are ignored; every word must match."), control_id=ID["search"]),
        html.P(vw.count_text(len(rows), len(rows)), id=ID["count"], role="status", className="field-help"),
        dash_table.DataTable(
            id=ID["table"], data=rows, columns=vw.table_columns(k), sort_action="native", page_size=20,
            markdown_options={"link_target": "_self"}, style_cell_conditional=vw.TABLE_ALIGN,
            locale_format=table_locale(), **TABLE_STYLE,
        ),
        dcc.Store(id=ID["query"]),
        html.Div(id=ID["url-sync"], hidden=True),
    ], className="world-page")


@callback(Output(ID["map"], "figure"), Output(ID["command"], "children"), Output(ID["query"], "data"),
          Input(ID["stat"], "value"), prevent_initial_call=True)
@guarded(lambda message: (no_update, html.Div(message, className="error"), no_update), log=LOG,
         where="world page on_stat", sorry=N_("Sorry — the map could not be recoloured."))
def on_stat(stat):
    """Recolour the map (a Patch: colours, hover and colour bar only) and update the command and the link."""
    stat = vw.check_stat(stat)
    fig = vw.render_map(stat)
    patch = Patch()
    trace = fig["data"][0]
    for key in ("z", "hovertext", "colorbar"):
        patch["data"][0][key] = trace.get(key)
    return patch, command_block(vw.cli_command(stat), gettext(SHELL_NOTE)), vw.to_query(stat) or "?"


@callback(Output(ID["go"], "href"), Input(ID["map"], "clickData"), prevent_initial_call=True)
def on_click(click):
    """A click on a country opens the explorer on the data set the map shows for it."""
    href = vw.click_href(click)
    if href is None:
        raise PreventUpdate
    return href


@callback(Output(ID["table"], "data"), Output(ID["count"], "children"), Input(ID["search"], "value"),
          prevent_initial_call=True)
def on_search(text):
    """The rows matching every word typed (precomputed rows, filtered in microseconds)."""
    rows = vw.table_rows()
    found = vw.search_rows(rows, text)
    return found, vw.count_text(len(found), len(rows))


# the address bar follows the statistic (assets/url_sync.js: the one URL sync every page uses)
clientside_callback(
    ClientsideFunction(namespace="anonset", function_name="syncQuery"),
    Output(ID["url-sync"], "children"),
    Input(ID["query"], "data"),
)
