"""Issue 29: a callback input of a type the page cannot send gets a specific 400, not a callback's generic apology."""
from __future__ import annotations

import logging

import pytest
from support.dash_protocol import ROUTER_OUTPUT, callback_body, walk_components

from dashboard.server.input_types import PROPERTY_TYPES, wrong_type


def _body(prop: str, value, changed=None) -> dict:
    return {"output": "x.children", "outputs": {"id": "x", "property": "children"},
            "inputs": [{"id": "field", "property": prop, "value": value}], "changedPropIds": changed or []}


@pytest.mark.parametrize("prop,value,message", [
    ("search", float("nan"), "field.search must be text"),
    ("pathname", 3, "field.pathname must be text"),
    ("n_clicks", True, "field.n_clicks must be a whole number"),
    ("n_clicks", 1.5, "field.n_clicks must be a whole number"),
    ("contents", [["a"], {"b": 1}], "field.contents must be text or a list of texts"),
    ("value", {"a": 1}, "field.value must be a number, text or a flat list of them"),
    ("value", [1, [2]], "field.value must be a number, text or a flat list of them"),
    ("clickData", [1], "field.clickData must be an object"),
])
def test_wrong_types_are_named(prop, value, message):
    assert wrong_type(_body(prop, value)) == (prop, message)


@pytest.mark.parametrize("prop,value", [
    ("search", "?country=DE"), ("search", None), ("n_clicks", 0), ("value", 42.5), ("value", "DE"),
    ("value", ["DE", "FR"]), ("value", [18, 75]), ("value", True), ("contents", "data:text/csv;base64,YQ=="),
    ("filename", ["a.csv", "b.csv"]), ("clickData", {"points": []}), ("data", {"anything": [1, {"goes": 2}]}),
])
def test_what_a_page_sends_passes(prop, value):
    assert wrong_type(_body(prop, value)) is None


def test_changed_prop_ids_must_be_texts():
    assert wrong_type(_body("value", 1, changed=["a.value", False]))[0] == "changedPropIds"
    assert wrong_type({**_body("value", 1), "changedPropIds": "a.value"})[0] == "changedPropIds"
    wildcard = {**_body("value", 1), "state": [[{"id": {"type": "t", "index": 0}, "property": "value", "value": {}}]]}
    assert wrong_type(wildcard) == ("value", "a pattern-matching component.value must be a number, text or a flat list of them")


def test_every_component_of_every_page_passes_its_own_values(client):
    """The table must never refuse what a page itself holds: every listed property of every component in the
    shell and in every page's layout (as the router serves it) passes."""
    import dash

    deps = client.get("/_dash-dependencies").get_json()
    router = next(d for d in deps if d["output"] == ROUTER_OUTPUT)
    components = walk_components(client.get("/_dash-layout").get_json())
    paths = {page["path"] for page in dash.page_registry.values() if not page.get("path_template")}
    for path in sorted(paths):
        body = callback_body(router, {("_pages_location", "pathname"): path, ("_pages_location", "search"): ""},
                             ["_pages_location.pathname"])
        r = client.post("/_dash-update-component", json=body)
        assert r.status_code == 200, path
        components.update(walk_components(r.get_json()["response"]["_pages_content"]["children"]))
    checked = 0
    for ident, (kind, props) in components.items():
        for prop, value in props.items():
            if prop in PROPERTY_TYPES:
                checked += 1
                assert wrong_type(_body(prop, value)) is None, (ident, kind, prop, value)
    assert checked > 100


def test_the_router_with_a_number_for_its_query_is_refused_by_name(client, caplog):
    deps = client.get("/_dash-dependencies").get_json()
    router = next(d for d in deps if d["output"] == ROUTER_OUTPUT)
    body = callback_body(router, {("_pages_location", "pathname"): "/explore", ("_pages_location", "search"): 7},
                         ["_pages_location.pathname"])
    with caplog.at_level(logging.WARNING, logger="anonset.app"):
        r = client.post("/_dash-update-component", json=body)
    assert r.status_code == 400
    assert r.get_json() == {"error": "malformed callback request: _pages_location.search must be text"}
    assert [rec.levelname for rec in caplog.records if rec.name == "anonset.app"] == ["WARNING"]
    assert "wrong type for search" in caplog.text and "callback raised" not in caplog.text
