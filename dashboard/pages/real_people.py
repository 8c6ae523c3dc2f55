"""“Real people”: the body models tested on the NHANES adults — layout over :mod:`dashboard.views.real_people`."""
from __future__ import annotations

import dash
from dash import html

from dashboard.components import error_box
from dashboard.core.text import N_, gettext, local_number
from dashboard.core.text import gettext as _
from dashboard.guard import guarded
from dashboard.views.real_people import LOG, content, render

dash.register_page(__name__, path="/real-people", name="Real people", order=45,
                   title="AnonSet — the body models tested on real people (NHANES)")

LEAD = N_("AnonLand tests the method on a synthetic country. Here the population is real: {adults} adults whose height "
        "and weight were measured by the US National Health and Nutrition Examination Survey (2017–2018). How close "
        "do the two body models come to their real anonymity sets?")


def _head() -> list:
    return [html.H1(_("Real people: does the model match?")), html.P(gettext(LEAD).format(adults=local_number("4,850")), className="lead")]


@guarded(lambda message: html.Div(_head() + [error_box(message)]), log=LOG, where="real people",
         sorry=N_("Sorry — the validation could not be computed."))
def layout(**_query):
    return html.Div(_head() + content(render()))
