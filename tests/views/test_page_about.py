"""The About page: every source file with its licence and sha256, in the app's table style."""
from __future__ import annotations

import census_loaders
from dashboard.core.country import source_rows


def _walk(component):
    yield component
    children = getattr(component, "children", None)
    if isinstance(children, (list, tuple)):
        for c in children:
            yield from _walk(c)
    elif children is not None and hasattr(children, "children"):
        yield from _walk(children)


def test_every_source_row_carries_the_files_sha256():
    manifest = census_loaders.manifest()
    rows = source_rows(manifest)
    assert rows and all(len(r["sha256"]) == 64 for r in rows)
    kinds = {r["kind"] for r in rows}
    assert {"population", "boundaries", "body statistics", "auxiliary knowledge", "record-level data"} <= kinds
    nhanes = [r for r in rows if r["kind"] == "record-level data" and "NHANES" in r["data set"]]
    assert nhanes[0]["sha256"] == manifest["microdata"]["nhanes"]["sources"][0]["sha256"]


def test_about_layout_lists_sources_with_sha256_in_a_filterable_table(dash_page):
    about = dash_page("about")
    page = about.layout()
    tables = [c for c in _walk(page) if type(c).__name__ == "DataTable"]
    assert len(tables) == 2
    sources = tables[1]
    assert "sha256" in [c["id"] for c in sources.columns]
    assert sources.filter_options == {"placeholder_text": "filter…"}
    assert sources.export_format == "csv"
    date_style = {k: v for c in tables[0].style_cell_conditional if c["if"]["column_id"] == "date" for k, v in c.items()}
    assert date_style["whiteSpace"] == "nowrap" and date_style["textAlign"] == "left"


def test_the_body_statistics_sentence_names_exactly_the_countries_with_their_own_tables(dash_page):
    """The About page once said every country without its own statistics borrowed Germany's, long after each got
    its NCD-RisC prior: the sentence is now the core's, and its claim is checked against the shipped data sets."""
    from dashboard.core.body import BODY_SOURCES_TEXT, OWN_BODY_TABLES
    from dashboard.core.country import dataset_rows

    rows = dataset_rows(census_loaders.manifest())
    own = {r["code"].split("-")[0] for r in rows if not r["body_prior_source"].startswith("NCD-RisC")}
    assert own == set(OWN_BODY_TABLES)
    stand_ins = [r["code"] for r in rows if "stand in" in r["body_prior_source"]]
    assert stand_ins and "stand in" in BODY_SOURCES_TEXT  # the table names them, as the sentence says
    texts = [c.children for c in _walk(dash_page("about").layout()) if isinstance(getattr(c, "children", None), str)]
    assert BODY_SOURCES_TEXT in texts
    assert not any("borrow" in t for t in texts)


def test_the_about_page_in_german_translates_our_words_and_keeps_citations(dash_page):
    """Issue 31: the page's words, the tables' headings, continents, kinds and district words in the language asked
    for, numbers grouped its way; a source's citation and sha256 as published."""
    from dashboard.core import text

    about = dash_page("about")
    with text.language("de"):
        page = about.layout()
    strings = [c.children for c in _walk(page) if isinstance(getattr(c, "children", None), str)]
    assert "Über AnonSet" in strings and any(s.startswith("Datensätze (") for s in strings)
    assert any(s.startswith("Größe und Gewicht stammen") for s in strings)
    datasets, sources = [c for c in _walk(page) if type(c).__name__ == "DataTable"]
    assert [c["name"] for c in datasets.columns][:4] == ["Kürzel", "Name", "Kontinent", "Kreise"]
    assert datasets.locale_format == {"decimal": ",", "group": "."}
    assert sources.filter_options == {"placeholder_text": "filtern…"}
    rows = {r["code"]: r for r in datasets.data}
    assert rows["DE"]["continent"] == "Europa" and rows["DE"]["name"].startswith("Deutschland")
    assert rows["DE"]["district"] == "Kreis"  # an office's own term stays
    assert rows["NG"]["district"] == "national" and rows["FR"]["map"] == "ja"
    # whose body statistics: short, a neighbour standing in named in German (CLDR), a country's own table as cited
    assert rows["LI"]["body statistics"] == "NCD-RisC (2022); ersatzweise Größe: Schweiz, BMI: Schweiz"
    assert rows["FR"]["body statistics"] == "NCD-RisC (2022)"
    assert rows["DE"]["body statistics"] == "Destatis, 12211-9018 (2017)"
    kinds = {r["kind"] for r in sources.data}
    assert {"Bevölkerung", "Grenzen", "Körperstatistik"} <= kinds
    english = {r["sha256"]: r for r in source_rows(census_loaders.manifest())}
    assert all(r["publisher"] == english[r["sha256"]]["publisher"] for r in sources.data)  # citations as published
