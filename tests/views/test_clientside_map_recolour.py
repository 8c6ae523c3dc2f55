"""The district map's in-place recolour (assets/map_recolour.js, issue 26): its colour scale must give
plotly.js's colours exactly and its feature ids MapLibre's, or the fast path would draw wrong colours.  Run in
Node; the whole path (feature state, pixels, fallback counters) is checked in tests/browser."""
from __future__ import annotations

import json
import shutil
import subprocess

import pytest
from support import ROOT

from dashboard.figures.maps import RECOLOUR_IN_PLACE

NODE = shutil.which("node") or shutil.which("nodejs")
ASSET = ROOT / "assets" / "map_recolour.js"

HARNESS = """
const fs = require("fs");
global.window = {Plotly: {react: function () {}}};
global.document = {querySelectorAll: function () { return []; }};
eval(fs.readFileSync(process.argv[1], "utf8"));
const api = window.anonset.mapRecolour;
const cases = JSON.parse(fs.readFileSync(0, "utf8"));
process.stdout.write(JSON.stringify({
  meta: api.META,
  colours: cases.scales.map(([trace, values]) => { const f = api.colourScale(trace); return f ? values.map(f) : null; }),
  ids: cases.ids.map(api.maplibreId),
}));
"""

GREY = [[0, "#000000"], [1, "#ffffff"]]
#: plotly.js's Viridis stops (src/components/colorscale/scales.js), first three and last
VIRIDIS = [[0, "#440154"], [0.06274509803921569, "#48186a"], [0.12549019607843137, "#472d7b"], [1, "#fde725"]]


def _run(cases: dict) -> dict:
    out = subprocess.run([NODE, "-e", HARNESS, str(ASSET)], input=json.dumps(cases), capture_output=True, text=True,
                         timeout=30, check=True)
    return json.loads(out.stdout)


def test_the_asset_and_the_figures_name_the_same_opt_in():
    assert f'"{RECOLOUR_IN_PLACE}"' in ASSET.read_text(encoding="utf-8")


@pytest.mark.skipif(NODE is None, reason="node is not installed (apt-get install nodejs)")
def test_colour_scale_reproduces_plotly_and_ids_follow_maplibre():
    out = _run({
        "scales": [
            [{"colorscale": GREY, "zmin": 0, "zmax": 10}, [5, -1, 11, 0, 10, 2.5]],
            # three stops: each value interpolates within its own segment (d3's polylinear scale)
            [{"colorscale": [[0, "#000000"], [0.5, "#ff0000"], [1, "#ffffff"]], "zmin": 0, "zmax": 2}, [0.5, 1, 1.5]],
            [{"colorscale": GREY, "zmin": 0, "zmax": 10, "reversescale": True}, [0, 10]],
            [{"colorscale": VIRIDIS, "zmin": 0, "zmax": 1}, [0, 0.06274509803921569, 0.1, 1]],
            [{"colorscale": [[0, "rgba(0,0,0,0)"], [1, "rgba(0,0,0,0)"]], "zmin": -0.5, "zmax": 0.5}, [0]],
            [{"colorscale": [[0, "viridis?"], [1, "#fff"]], "zmin": 0, "zmax": 1}, [0]],  # not a colour: no fast path
            [{"colorscale": "Viridis", "zmin": 0, "zmax": 1}, [0]],                        # a name, not stops
            [{"colorscale": GREY, "zmin": None, "zmax": 1}, [0]],
        ],
        "ids": ["01001", "11000", "E06000001", "12.391.05.07", 7, "kaikoura-district", "9007199254740993"],
    })
    assert out["meta"] == RECOLOUR_IN_PLACE
    grey, three, reverse, viridis, transparent, bad, named, no_range = out["colours"]
    # tinycolor rounds half up: 127.5 → 128; outside [zmin, zmax] the ends (clamped)
    assert grey == ["rgb(128, 128, 128)", "rgb(0, 0, 0)", "rgb(255, 255, 255)", "rgb(0, 0, 0)", "rgb(255, 255, 255)",
                    "rgb(64, 64, 64)"]
    assert three == ["rgb(128, 0, 0)", "rgb(255, 0, 0)", "rgb(255, 128, 128)"]
    assert reverse == ["rgb(255, 255, 255)", "rgb(0, 0, 0)"]
    # a stop's own colour exactly; between stops the linear mix: (0x44 + (0x48 - 0x44) * t, …)
    t = (0.1 - 0.06274509803921569) / (0.12549019607843137 - 0.06274509803921569)
    mix = [round(a + (b - a) * t) for a, b in zip((0x48, 0x18, 0x6A), (0x47, 0x2D, 0x7B))]
    assert viridis == ["rgb(68, 1, 84)", "rgb(72, 24, 106)", f"rgb({mix[0]}, {mix[1]}, {mix[2]})", "rgb(253, 231, 37)"]
    assert transparent == ["rgba(0, 0, 0, 0)"]
    assert bad is None and named is None and no_range is None
    # MapLibre's GeoJSON wrapper: string ids through parseInt (leading zeros dropped), unusable ones refused
    assert out["ids"] == [1001, 11000, None, 12, 7, None, None]
