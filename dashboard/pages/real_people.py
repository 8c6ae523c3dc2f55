"""“Real people”: the body models tested on the NHANES adults — layout over :mod:`dashboard.views.real_people`."""
from __future__ import annotations

import dash
from dash import html

from dashboard.components import error_box
from dashboard.guard import guarded
from dashboard.views.real_people import LOG, content, render

dash.register_page(__name__, path="/real-people", name="Real people", order=45,
                   title="AnonSet — the body models tested on real people (NHANES)")

LEAD = ("AnonLand tests the method on a synthetic country. Here the population is real: 4,850 adults whose height "
        "and weight were measured by the US National Health and Nutrition Examination Survey (2017–2018). How close "
        "do the two body models come to their real anonymity sets?")


def _head() -> list:
    return [html.H1("Real people: does the model match?"), html.P(LEAD, className="lead")]


@guarded(lambda message: html.Div(_head() + [error_box(message)]), log=LOG, where="real people",
         sorry="Sorry — the validation could not be computed.")
def layout(**_query):
    return html.Div(_head() + content(render()))
