"""The explorer's district selection runs in the browser (assets/explorer.js, issue 14: interface state
needs no server): run in Node with a stand-in for Dash's ``window.dash_clientside``."""
from __future__ import annotations

import json
import shutil
import subprocess

import pytest
from support import ROOT

from dashboard.views import explorer as V

NODE = shutil.which("node") or shutil.which("nodejs")
pytestmark = pytest.mark.skipif(NODE is None, reason="node is not installed (apt-get install nodejs)")

HARNESS = """
const fs = require("fs");
global.window = {dash_clientside: {no_update: "NO_UPDATE"}};
eval(fs.readFileSync(process.argv[1], "utf8"));
const api = window.dash_clientside.anonset;
const calls = JSON.parse(fs.readFileSync(0, "utf8"));
process.stdout.write(JSON.stringify(calls.map(([trig, args]) => {
  window.dash_clientside.callback_context = {triggered: trig ? [{prop_id: trig}] : []};
  const out = api.explorerSelect(...args);
  return out === undefined ? "UNDEFINED" : out;
})));
"""
NO = "NO_UPDATE"
DE = {"country": "DE,FR", "stat": "min"}
BERLIN = {"country": "DE", "district": "11000"}


def run(calls):
    out = subprocess.run([NODE, "-e", HARNESS, str(ROOT / "assets" / "explorer.js")], input=json.dumps(calls),
                         capture_output=True, text=True, timeout=60, check=True)
    return json.loads(out.stdout)


def test_a_map_click_or_a_table_row_selects_and_a_new_first_country_clears():
    map_click, table = f"{V.ID['map']}.clickData", f"{V.ID['district-table']}.active_cell"
    scenario = f"{V.ID['scenario']}.data"
    got = run([
        [map_click, [{"points": [{"location": "11000"}]}, None, DE, None]],
        [map_click, [{"points": [{"location": 11000}]}, None, DE, BERLIN]],  # the same district: nothing changes
        [map_click, [{"points": []}, None, DE, None]],                       # a click beside the districts
        [table, [None, {"row": 3, "column": 0, "row_id": "05315"}, DE, BERLIN]],
        [table, [None, {"row": 3, "column": 0}, DE, BERLIN]],                # a cell without a row id
        [scenario, [None, None, {"country": "US"}, BERLIN]],                 # another first country
        [scenario, [None, None, DE, BERLIN]],                                # the same first country
        [scenario, [None, None, None, BERLIN]],                              # no scenario yet
    ])
    assert got == [BERLIN, NO, NO, {"country": "DE", "district": "05315"}, NO, None, NO, NO]


@pytest.fixture(scope="module")
def app(dash_page):
    from dashboard.wsgi import app

    dash_page("explorer")
    with app.server.test_client() as client:  # Dash merges the pages' callbacks on the first request
        assert client.get("/_dash-dependencies").status_code == 200
    return app


def test_the_selection_is_not_a_server_callback(app):
    """No server callback takes the map's clicks or the table's active cell; a clientside one does."""
    server = [v for v in app.callback_map.values() if v.get("callback") is not None]
    clientside = [v for v in app.callback_map.values() if v.get("callback") is None]
    assert server and clientside
    ui = {(V.ID["map"], "clickData"), (V.ID["district-table"], "active_cell")}

    def takes(cb):
        return {(d["id"], d["property"]) for d in cb["inputs"]} & ui

    assert not any(takes(cb) for cb in server)
    assert any(takes(cb) == ui for cb in clientside)
