"""AnonLand (SPEC §4): layout and callbacks over :mod:`dashboard.views.anonland`.

The page opens from the shipped full-scale result; a smaller AnonLand can be rerun in
the background (a thread polled by a ``dcc.Interval``; see the view's docstring).
"""
from __future__ import annotations

import dash
from dash import Input, Output, State, callback, dcc, html, no_update

from dashboard.components import error_box
from dashboard.core.text import N_, local_number
from dashboard.core.text import gettext as _
from dashboard.figures import anonland as figs
from dashboard.guard import guarded
from dashboard.server.jobs import job_result, request_cancel, start_job, valid_job
from dashboard.views.anonland import (
    CLASS_NAMES,
    ID,
    LOG,
    RESULT_KEYS,
    Poll,
    build_rerun,
    explain_text,
    poll_job,
    render,
    render_full,
    rerun_panel,
    results_section,
)

dash.register_page(__name__, path="/anonland", name="AnonLand", order=40,
                   title="AnonSet — AnonLand: checking the estimate on a synthetic country")


def layout(**_query):
    """The page, filled from the shipped result (query strings are accepted and ignored)."""
    view = render_full("plain")
    results = results_section(view)
    return html.Div(
        [
            html.H1(_("AnonLand: checking the estimate on a synthetic country")),
            html.P(_("Does the conditional anonymity set AnonSet computes from census tables match the real number of "
                     "people? On a made-up country where every person is known, we can count and compare."),
                   className="lead"),
            html.Details([html.Summary(_("What AnonLand is, and how to read the charts")),
                          dcc.Markdown(explain_text(), mathjax=False)], open=True,
                         className="details anonland-explain intro"),
            html.Div([results, rerun_panel()], className="anonland-grid"),
            dcc.Store(id=ID["view"], data={"source": "full"}, storage_type="memory"),
        ],
        className="anonland-page",
    )


SIZE_STATES = [State(ID[f"size-{name}"], "value") for name in CLASS_NAMES]


@callback(
    Output(ID["job"], "data"),
    Output(ID["interval"], "disabled"),
    Output(ID["start"], "disabled"),
    Output(ID["cancel"], "disabled"),
    Output(ID["message"], "children"),
    Output(ID["progress"], "value"),
    Output(ID["progress-text"], "children"),
    Output(ID["progress-box"], "hidden"),
    Input(ID["start"], "n_clicks"),
    State(ID["scale"], "value"),
    State(ID["epsilon"], "value"),
    State(ID["height-width"], "value"),
    State(ID["weight-width"], "value"),
    State(ID["citizens"], "value"),
    State(ID["seed"], "value"),
    State(ID["model"], "value"),
    *SIZE_STATES,
    prevent_initial_call=True,
)
@guarded(lambda message: (no_update, True, False, True, error_box(message), no_update, no_update, no_update),
         log=LOG, where="anonland starting a rerun", sorry=N_("Sorry — the rerun could not be started."))
def on_start(_clicks, scale, epsilon, height_width, weight_width, citizens, seed, model, *sizes):
    """Validate the form and start a rerun in the background; bad input → a message beside the button."""
    cfg = build_rerun(scale, epsilon, height_width, weight_width, citizens, seed, sizes, model)
    job = start_job(cfg)
    return ({"job": job}, False, True, False, None, "0",
            _("Starting: {people} people, {citizens} test citizens…").format(
                people=local_number(f"{cfg.population:,}"), citizens=local_number(f"{cfg.n_citizens:,}")), False)


@callback(
    Output(ID["progress"], "value", allow_duplicate=True),
    Output(ID["progress-text"], "children", allow_duplicate=True),
    Output(ID["interval"], "disabled", allow_duplicate=True),
    Output(ID["start"], "disabled", allow_duplicate=True),
    Output(ID["cancel"], "disabled", allow_duplicate=True),
    Output(ID["view"], "data", allow_duplicate=True),
    Output(ID["message"], "children", allow_duplicate=True),
    Input(ID["interval"], "n_intervals"),
    State(ID["job"], "data"),
    prevent_initial_call=True,
)
@guarded(lambda message: tuple(Poll("0", "", True, False, True, no_update, error_box(message))), log=LOG,
         where="anonland polling a rerun", sorry=N_("Sorry — the rerun's progress could not be read."), input_errors=False)
def on_poll(_n, job_data):
    """Progress of the running rerun; when it is done, switch the charts to it."""
    return tuple(poll_job(job_data))


@callback(
    Output(ID["progress-text"], "children", allow_duplicate=True),
    Output(ID["cancel"], "disabled", allow_duplicate=True),
    Input(ID["cancel"], "n_clicks"),
    State(ID["job"], "data"),
    prevent_initial_call=True,
)
@guarded(lambda message: (message, False), log=LOG, where="anonland cancelling a rerun",
         sorry=N_("Sorry — the rerun could not be cancelled."), input_errors=False)
def on_cancel(_clicks, job_data):
    """Ask the running rerun to stop (it checks between districts)."""
    job = valid_job(job_data)
    if not job:
        return no_update, True
    request_cancel(job)
    return _("Cancelling…"), True


@callback(
    Output(ID["view"], "data", allow_duplicate=True),
    Input(ID["back"], "n_clicks"),
    prevent_initial_call=True,
)
def on_back(_clicks):
    return {"source": "full"}


VIEW_OUTPUTS = [Output(ID[k], "figure" if k in ("divergence", "box", "difference") else "children")
                for k in RESULT_KEYS]


@callback(
    *VIEW_OUTPUTS,
    Output(ID["back"], "style"),
    Output(ID["view-note"], "children"),
    Output(ID["label"], "className"),
    Input(ID["view"], "data"),
    Input(ID["census"], "value"),
    prevent_initial_call=True,
)
@guarded(lambda message: (*[no_update] * len(RESULT_KEYS), no_update, error_box(message), no_update), log=LOG,
         where="anonland drawing a result", sorry=N_("Sorry — this result could not be drawn."), input_errors=False)
def on_view(view, census):
    """Draw the shipped result or a finished rerun (an expired rerun falls back to the shipped one)."""
    note = None
    job = valid_job(view) if isinstance(view, dict) and view.get("source") == "job" else None
    stored = job_result(job) if job else None
    if job and stored is None:
        note = html.Div(_("Your rerun has expired on the server; showing the full-scale result."), className="warning")
    if stored is not None:
        out = render(stored[0], stored[1], census, rerun=True)
    else:
        out = render_full(census if census in figs.CENSUSES else "plain")
    rerun = stored is not None
    return (*[out[k] for k in RESULT_KEYS], {} if rerun else {"display": "none"}, note,
            "anonland-label rerun" if rerun else "anonland-label")
