"""The attack lab (SPEC §6): layout and one callback over :mod:`dashboard.views.attack`.

The Run button validates the form and shows the (memoised) experiment; the first visit shows
the default experiment, computed when the server started.  Bad input gives a message beside
the button; an unexpected error logs only its class.
"""
from __future__ import annotations

import dash
from dash import Input, Output, State, callback, dcc, html, no_update

from dashboard.components import error_box
from dashboard.core.text import N_
from dashboard.core.text import gettext as _
from dashboard.guard import guarded
from dashboard.views.attack import (
    GRAPH_KEYS,
    ID,
    LOG,
    RESULT_KEYS,
    attribution,
    controls,
    explain,
    page_status,
    results,
    run,
    settings_from_link,
)

dash.register_page(__name__, path="/attack", name="Attack lab", order=35,
                   title="AnonSet — attack lab: de-anonymising sparse data")


def layout(**query):
    """The page; settings may come from the link (``?known=8&days=3``); bad values are reported, not fatal."""
    cfg, notices = settings_from_link(**query)
    problem = page_status()
    return html.Div([
        html.H1(_("Attack lab: de-anonymising sparse data")),
        html.P(_("How many ratings does it take to single out one person among hundreds — and among a hundred "
                 "million? This page runs the Netflix Prize attack of Narayanan and Shmatikov on real MovieLens "
                 "ratings, measures how often it names the right person, and forecasts that share for larger data "
                 "sets with the Pitman–Yor correctness law."), className="lead"),
        # the data's attribution, quoted as its terms ask (in English, like the data sets' notes: GLOSSARY.md)
        html.P([_("Data:") + " ", html.Span(attribution(), lang="en")], className="attribution",
               id=ID["attribution"]),
        *[html.Div(msg, className="warning", role="status") for msg in notices],
        *([html.Div(problem, className="warning", role="status")] if problem else []),
        html.Div([controls(cfg), results()], className="scaling-grid"),
        html.Details([html.Summary(_("How the attack and the measurements work")),
                      dcc.Markdown(explain(), mathjax=False)], className="details"),
    ], className="scaling-page attack-page")


@callback(
    *[Output(ID[k], "figure" if k in GRAPH_KEYS else "children") for k in RESULT_KEYS],
    Output(ID["message"], "children"),
    Input(ID["run"], "n_clicks"),
    *[State(ID[k], "value") for k in ("known", "stars", "days", "wrong", "sizes", "repeats", "seed", "phi")],
)
@guarded(lambda message: (*[no_update] * len(RESULT_KEYS), error_box(message)), log=LOG, where="attack page on_run",
         sorry=N_("Sorry — the attack could not be run. Please check the values."), input_errors=False)
def on_run(_clicks, known, stars, days, wrong, sizes, repeats, seed, phi):
    """Validate the form and show the experiment (memoised on the settings); bad input is ``run``'s message."""
    out, message = run(known, stars, days, wrong, sizes, repeats, seed, phi)
    if out is None:
        return (*[no_update] * len(RESULT_KEYS), message)
    return (*[out[k] for k in RESULT_KEYS], None)
