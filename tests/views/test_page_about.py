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
