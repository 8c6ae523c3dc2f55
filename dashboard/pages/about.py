"""About: what AnonSet computes, and every data source with its licence and sha256 (in six languages: a source's
citation stays as published, our own words are translated)."""
from __future__ import annotations

import json

import dash
from dash import dcc, html

import census_loaders
from dashboard import ids
from dashboard.components import data_table
from dashboard.core.body import BODY_SOURCES_TEXT
from dashboard.core.country import dataset_rows, dataset_title, source_rows, territory_name
from dashboard.core.text import N_, district_word, gettext, with_language
from dashboard.core.text import gettext as _

dash.register_page(__name__, path="/about", name="About", title="AnonSet — about and sources", order=90)

PAGE = "about"

METHOD = N_("""
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
""")
SHA_NOTE = N_(
    "Each file's sha256 is the checksum of the published file the cache was built from "
    "(`sha256sum` on it gives the same value), so a citation can be checked byte for byte."
)
#: The data-set table's columns: the row key → its heading (marked; shown in the visitor's language).
DATASET_COLUMNS = {"code": N_("code"), "name": N_("name"), "continent": N_("continent"),
                   "districts": N_("districts"), "district": N_("district"), "population": N_("population"),
                   "date": N_("date"), "map": N_("map"), "body statistics": N_("body statistics")}
#: The sources table's columns (source_rows' keys).
SOURCE_COLUMNS = {"data set": N_("data set"), "kind": N_("kind"), "publisher": N_("publisher"), "table": N_("table"),
                  "date": N_("date"), "licence": N_("licence"), "file": N_("file"), "sha256": "sha256"}


def _grain(grain: str) -> str:
    """A data set's district word as the About table shows it: "national" for one without districts."""
    return _("national") if grain == "national" else district_word(grain)


def _body_statistics(prior: dict) -> str:
    """Whose height and weight a data set uses, short (the paragraph above the table says what NCD-RisC's are): a
    country's own table as cited, "NCD-RisC (2025)", and a neighbour standing in where NCD-RisC has no figures."""
    if prior.get("kind") != "ncdrisc":
        return (prior["source"].replace("Statistisches Bundesamt (Destatis)", "Destatis")
                + (f" ({prior['year']})" if prior.get("year") else ""))
    out = f"NCD-RisC ({prior['year']})" if prior.get("year") else "NCD-RisC"
    stand_ins = prior.get("stand_ins") or {}
    parts = [(_("height of {country}") if what == "height" else _("BMI of {country}")).format(
        country=territory_name(code)) for what, code in sorted(stand_ins.items(), key=lambda kv: kv[0] != "height")]
    return out + ("; " + _("standing in: {what}").format(what=", ".join(parts)) if parts else "")


def _dataset_table_rows(manifest: dict) -> list[dict]:
    datasets = manifest["datasets"]
    return [
        {
            "code": r["code"], "name": dataset_title(r["code"]), "continent": gettext(r["continent"]),
            "districts": r["districts"], "district": _grain(r["grain"]), "population": r["population"],
            "date": r["reference_date"], "map": _("yes") if r["map"] else _("no"),
            "body statistics": _body_statistics(datasets[r["code"]]["body_prior"]),
        }
        for r in dataset_rows(manifest)
    ]


def layout(**_query) -> html.Div:
    method = dcc.Markdown(gettext(METHOD), mathjax=False)
    try:
        manifest = census_loaders.manifest()
    except FileNotFoundError as exc:
        return html.Div([html.H1(_("About AnonSet")), method, html.P(str(exc), className="warning")])
    datasets = _dataset_table_rows(manifest)
    return html.Div(
        [
            html.H1(_("About AnonSet")),
            method,
            html.H2(_("Data sets ({count})").format(count=len(datasets))),
            html.P([_("Every country on one map, with each data set's numbers:") + " ",
                    dcc.Link(_("the world view"), href=with_language("/explore/world"),
                             id=ids.make(PAGE, "world-link")), "."]),
            html.P(gettext(BODY_SOURCES_TEXT), id=ids.make(PAGE, "body-sources")),
            data_table(datasets, ids.make(PAGE, "datasets"), nowrap=("code", "date"), headers=DATASET_COLUMNS),
            html.H2(_("Sources and licences")),
            dcc.Markdown(gettext(SHA_NOTE)),
            data_table(source_rows(manifest), ids.make(PAGE, "sources"), nowrap=("date",),
                       class_names={"sha256": "sha256", "file": "path"}, headers=SOURCE_COLUMNS),
        ],
        className="prose about",
        # the tables' own "Export" button is DataTable's word: assets/explorer.css writes this one in its place
        style={"--export-label": json.dumps(_("Export"))},
    )
