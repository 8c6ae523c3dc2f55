"""The partial plotly.js bundle (assets/plotly/): served where Dash's graphs fetch plotly.js, the version the
Python plotly package writes figures for, and holding every trace type the app draws."""
from __future__ import annotations

import gzip
import re
from pathlib import Path

import plotly
from plotly.offline import get_plotlyjs_version

from dashboard.server.routes import PLOTLY_BUNDLE, PLOTLY_URL

ROOT = Path(__file__).resolve().parents[2]
BANNER = re.compile(r"/\* plotly\.js v(?P<version>[\d.]+) partial bundle \(core \+ (?P<traces>[a-z0-9, ]+)[;)]")
#: Every plotly trace type (graph_objs has one module per trace besides these).
NOT_TRACES = {"deprecations", "figure", "figurewidget", "frame", "layout"}
TRACE_TYPES = {p.stem[1:] for p in (Path(plotly.__file__).parent / "graph_objs").glob("_*.py")} - NOT_TRACES - {"_init__"}


def _banner() -> re.Match:
    head = PLOTLY_BUNDLE.read_bytes()[:300].decode("utf-8")
    match = BANNER.match(head)
    assert match, f"{PLOTLY_BUNDLE} does not start with build.js's banner: {head[:120]!r}"
    return match


def test_bundle_is_the_plotly_js_of_the_python_package():
    assert _banner()["version"] == get_plotlyjs_version(), "rebuild assets/plotly (see build.js) for this plotly"


def _used_trace_types() -> set[str]:
    """Trace types the app's figures name: ``type="bar"`` in Python, ``type: "bar"`` in the page scripts."""
    found = set()
    for path in [*(ROOT / "dashboard").rglob("*.py"), *(ROOT / "assets").glob("*.js")]:
        found |= set(re.findall(r"""type(?:=|:\s*)["']([a-z0-9]+)["']""", path.read_text(encoding="utf-8")))
    return found & TRACE_TYPES


def test_bundle_holds_every_trace_type_the_app_draws():
    used = _used_trace_types()
    assert {"scatter", "choroplethmap"} <= used  # the scan finds the app's figures
    bundled = {"scatter", *(t.strip() for t in _banner()["traces"].split(","))}  # the core has scatter
    built = set(re.findall(r"'([a-z0-9]+)'", re.search(r"const TRACES = \[(.*?)\]",
                                                       (PLOTLY_BUNDLE.parent / "build.js").read_text()).group(1)))
    assert bundled == {"scatter", *built}
    # the reports embed the full plotly.js (dashboard/reports), so their trace types need not be here
    assert used - bundled <= _report_only_types(), f"not in the plotly.js bundle: {sorted(used - bundled)}"


def _report_only_types() -> set[str]:
    found = set()
    for path in (ROOT / "dashboard" / "reports").rglob("*.py"):
        found |= set(re.findall(r"""type(?:=|:\s*)["']([a-z0-9]+)["']""", path.read_text(encoding="utf-8")))
    return found & TRACE_TYPES


def test_served_where_dash_fetches_plotly(client):
    raw = PLOTLY_BUNDLE.read_bytes()
    resp = client.get(PLOTLY_URL, headers={"Accept-Encoding": "gzip"})
    assert resp.status_code == 200 and resp.headers["Content-Encoding"] == "gzip"
    assert resp.mimetype == "text/javascript" and "max-age=86400" in resp.headers["Cache-Control"]
    assert gzip.decompress(resp.get_data()) == raw  # the bundle, not Dash's full plotly.min.js
    again = client.get(PLOTLY_URL, headers={"Accept-Encoding": "gzip", "If-None-Match": resp.headers["ETag"]})
    assert again.status_code == 304
    plain = client.get(PLOTLY_URL, headers={"Accept-Encoding": "identity"})
    assert plain.status_code == 200 and "Content-Encoding" not in plain.headers and plain.get_data() == raw
