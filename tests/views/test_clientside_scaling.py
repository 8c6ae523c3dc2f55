"""The scaling page's clientside callbacks (assets/scaling.js), run in Node with a stand-in for Dash's
``window.dash_clientside``: the same answers as the Python they replaced (views.scaling.link_query,
cursor_target, the slider ↔ box rule), so no request reaches the server for interface synchronisation."""
from __future__ import annotations

import json
import math
import shutil
import subprocess

import pytest
from support import ROOT

from dashboard.views import scaling as V

NODE = shutil.which("node") or shutil.which("nodejs")
pytestmark = pytest.mark.skipif(NODE is None, reason="node is not installed (apt-get install nodejs)")

HARNESS = """
const fs = require("fs");
global.window = {dash_clientside: {no_update: "NO_UPDATE"}, location: {pathname: "/scaling", search: "", hash: ""},
                 history: {replaceState: () => {}}};
eval(fs.readFileSync(process.argv[1], "utf8"));
const api = window.dash_clientside.anonset;
const calls = JSON.parse(fs.readFileSync(0, "utf8"));
const out = calls.map(([fn, trig, args]) => {
  window.dash_clientside.callback_context = {triggered: trig ? [{prop_id: trig + ".value"}] : []};
  return api[fn](...args);
});
process.stdout.write(JSON.stringify(out));
"""


def run(calls):
    out = subprocess.run([NODE, "-e", HARNESS, str(ROOT / "assets" / "scaling.js")], input=json.dumps(calls),
                         capture_output=True, text=True, timeout=60, check=True)
    return json.loads(out.stdout)


NO = "NO_UPDATE"


def test_slider_and_box_sync_like_the_python_rule():
    ID = V.ID
    lo, hi = V.H_SLIDER
    got = run([
        ["scalingSync", ID["h-input"], [20, 60, lo, hi]],   # a box value beyond the slider clamps it
        ["scalingSync", ID["h-slider"], [12, 60, lo, hi]],  # the slider sets the box
        ["scalingSync", ID["h-input"], [20, None, lo, hi]],  # an empty box changes nothing
        ["scalingSync", ID["gamma-slider"], [-1.5, 0.3, *V.GAMMA_SLIDER]],
    ])
    assert got == [[40, NO], [NO, 12], [NO, NO], [NO, -1.5]]


def test_cursor_controls_like_cursor_target(cache_root):
    ID = V.ID
    config = V.client_config()
    calls = [
        ["scalingCursor", ID["cursor-slider"], [4, None, 0, 0, 0, None, config]],
        ["scalingCursor", ID["cursor-input"], [None, 2500, 0, 0, 0, None, config]],
        ["scalingCursor", ID["cursor-input"], [None, -3, 0, 0, 0, None, config]],
        ["scalingCursor", ID["preset-earth"], [None, None, 0, 0, 1, None, config]],
        ["scalingCursor", ID["preset-1m"], [None, None, 0, 1, 0, None, config]],
        ["scalingCursor", ID["preset-country"], [None, None, 0, 0, 0, "DE", config]],
        ["scalingCursor", ID["preset-country"], [None, None, 0, 0, 0, None, config]],
    ]
    got = run(calls)
    for (fn, trig, args), answer in zip(calls, got):
        slider, n = V.cursor_target(trig, args[0], args[1], args[5])
        expected = [NO if slider is None else slider, NO if n is None else n]
        assert answer[1] == expected[1], (trig, answer, expected)
        assert (answer[0] == NO) == (expected[0] == NO) and (
            answer[0] == NO or math.isclose(answer[0], expected[0])), (trig, answer, expected)


@pytest.mark.parametrize("h, gamma, k, n", [(24, -0.5, 10, 8e9), (20, 0.3, 5, 1e6), (12.5, 1.25, 2, 2500),
                                            (33.3, -0.05, 100, 1.5e6), (1, 0, 3, 1)])
def test_explore_query_is_the_python_one(h, gamma, k, n):
    config = {"h": list(V.H_LIMITS), "gamma": list(V.GAMMA_LIMITS), "k": [2, max(V.K_CHOICES)], "n": [1, V.WORLD]}
    [q] = run([["scalingQuery", None, ["explore", h, gamma, k, n, None, None, config]]])
    assert q == V.link_query("explore", h, gamma, k, n, "DE", [], "", [], 5, 5, [], 1, [], 1)


def test_query_of_the_other_views_and_bad_numbers():
    config = {"h": list(V.H_LIMITS), "gamma": list(V.GAMMA_LIMITS), "k": [2, max(V.K_CHOICES)], "n": [1, V.WORLD]}
    got = run([
        ["scalingQuery", None, ["census", 20, 0.3, 5, 1e6, "?view=census&country=FR", None, config]],
        ["scalingQuery", None, ["forecast", 20, 0.3, 5, 1e6, None, "?view=forecast&holdout=1", config]],
        ["scalingQuery", None, ["explore", 0, 0.3, 5, 1e6, None, None, config]],  # h out of range: no update
        ["scalingQuery", None, ["explore", 20, 0.3, 2.5, 1e6, None, None, config]],  # k not whole
        ["scalingQuery", None, ["census", 20, 0.3, 5, 1e6, None, None, config]],  # census not parsed yet
    ])
    assert got == ["?view=census&country=FR", "?view=forecast&holdout=1", NO, NO, NO]
