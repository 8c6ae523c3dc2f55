"""About: what AnonSet computes, and every data source with its licence and sha256."""
from __future__ import annotations

import dash
from dash import dcc, html

import census_loaders
from dashboard import ids
from dashboard.components import data_table
from dashboard.core.body import BODY_SOURCES_TEXT
from dashboard.core.country import dataset_rows, source_rows

dash.register_page(__name__, path="/about", name="About", title="AnonSet — about and sources", order=90)

PAGE = "about"

METHOD = """
**AnonSet** estimates how many people share your district, sex, age group, height band and
weight band — your *conditional anonymity set* (CAS) — from public statistics alone:

    CAS = N(district, sex, age) · Pr[height band, weight band | sex, age] · Pr[auxiliary knowledge]

The first factor is a census count; the second comes from body statistics (see “Data sets”
below). By default (body model v2) height and ln(weight) are a correlated bivariate normal per
sex and age group, with the correlation measured on real people (NHANES 2017–2018) and nobody
left out; the paper model (independent normals, cells with a BMI outside 17–30 left out of
aggregates) stays selectable and reproduces the published figures. An attacker who links two
databases by exact matching picks the right person with probability about 1 / CAS.
The method follows Berrang, Gerhart & Schröder, *Measuring Conditional Anonymity — A Global
Study*, and the re-identification and scaling laws of Rocher, Hendrickx & de Montjoye
(2019, 2025).

**Privacy — what goes where.** On the personal page (“Me”) your answers — district, sex, age,
height, weight, what an attacker might know, the app's users, k — stay in your browser: the page
downloads public tables that are the same for every visitor (chosen by the country, the band
widths, the body model and the self-report option, which are the only things it sends) and computes
your result in the browser, from the same numbers the server's own computation uses. Your answers reach the address bar only in the `#fragment` of a link, which browsers
never send. The other pages send their settings to this AnonSet server, which computes with them
and neither logs nor stores them. No page loads anything from, or sends anything to, another host.
"""
SHA_NOTE = (
    "Each file's sha256 is the checksum of the published file the cache was built from "
    "(`sha256sum` on it gives the same value), so a citation can be checked byte for byte."
)


def layout(**_query) -> html.Div:
    try:
        manifest = census_loaders.manifest()
    except FileNotFoundError as exc:
        return html.Div([html.H1("About AnonSet"), dcc.Markdown(METHOD), html.P(str(exc), className="warning")])
    datasets = [
        {
            "code": r["code"], "name": r["name"], "continent": r["continent"], "districts": r["districts"],
            "district": r["grain"],
            "population": r["population"], "date": r["reference_date"], "map": "yes" if r["map"] else "no",
            "body statistics": r["body_prior_source"].replace("Statistisches Bundesamt (Destatis)", "Destatis"),
        }
        for r in dataset_rows(manifest)
    ]
    return html.Div(
        [
            html.H1("About AnonSet"),
            dcc.Markdown(METHOD, mathjax=False),
            html.H2(f"Data sets ({len(datasets)})"),
            html.P(["Every country on one map, with each data set's numbers: ",
                    dcc.Link("the world view", href="/explore/world", id=ids.make(PAGE, "world-link")), "."]),
            html.P(BODY_SOURCES_TEXT, id=ids.make(PAGE, "body-sources")),
            data_table(datasets, ids.make(PAGE, "datasets"), nowrap=("code", "date")),
            html.H2("Sources and licences"),
            dcc.Markdown(SHA_NOTE),
            data_table(source_rows(manifest), ids.make(PAGE, "sources"), nowrap=("date",),
                       class_names={"sha256": "sha256", "file": "path"}),
        ],
        className="prose about",
    )
