"""“Real people”: the body models tested on the NHANES adults — layout over :mod:`dashboard.views.real_people`."""
from __future__ import annotations

import dash
from dash import html

from dashboard.components import apology, error_box
from dashboard.core.errors import InputError
from dashboard.views.real_people import LOG, content, render

dash.register_page(__name__, path="/real-people", name="Real people", order=45,
                   title="AnonSet — the body models tested on real people (NHANES)")

LEAD = ("AnonLand tests the method on a synthetic country. Here the population is real: 4,850 adults whose height "
        "and weight were measured by the US National Health and Nutrition Examination Survey (2017–2018). How close "
        "do the two body models come to their real anonymity sets?")


def layout(**_query):
    head = [html.H1("Real people: does the model match?"), html.P(LEAD, className="lead")]
    try:
        return html.Div(head + content(render()))
    except InputError as exc:
        return html.Div(head + [error_box(str(exc))])
    except Exception as exc:  # noqa: BLE001 - never a traceback in the page
        return html.Div(head + [apology(LOG, "Sorry — the validation could not be computed.",
                                        "real people: %s", type(exc).__name__)])
