"""The partial plotly.js bundles (assets/plotly/): the app's, served where Dash's graphs fetch plotly.js, and the
reports', embedded in every report file; each the version the Python plotly package writes figures for, and
holding every trace type drawn with it."""
from __future__ import annotations

import gzip
import re
from pathlib import Path

import plotly
from plotly.offline import get_plotlyjs_version

from dashboard.reports._document import REPORT_PLOTLY_JS
from dashboard.server.routes import PLOTLY_BUNDLE, PLOTLY_URL

ROOT = Path(__file__).resolve().parents[2]
BANNER = re.compile(r"/\* plotly\.js v(?P<version>[\d.]+) partial bundle \(core \+ (?P<traces>[a-z0-9, ]+)[;)]")
#: Every plotly trace type (graph_objs has one module per trace besides these).
NOT_TRACES = {"deprecations", "figure", "figurewidget", "frame", "layout"}
TRACE_TYPES = {p.stem[1:] for p in (Path(plotly.__file__).parent / "graph_objs").glob("_*.py")} - NOT_TRACES - {"_init__"}


def _banner(bundle: Path = PLOTLY_BUNDLE) -> re.Match:
    head = bundle.read_bytes()[:300].decode("utf-8")
    match = BANNER.match(head)
    assert match, f"{bundle} does not start with build.js's banner: {head[:120]!r}"
    return match


def _bundled(bundle: Path) -> set[str]:
    return {"scatter", *(t.strip() for t in _banner(bundle)["traces"].split(","))}  # the core has scatter


def _build_list(name: str) -> set[str]:
    """A trace list of build.js (``const TRACES = [...]``), so the committed bundles cannot drift from it."""
    source = (PLOTLY_BUNDLE.parent / "build.js").read_text(encoding="utf-8")
    return set(re.findall(r"'([a-z0-9]+)'", re.search(rf"const {name} = \[(.*?)\]", source).group(1)))


def test_bundles_are_the_plotly_js_of_the_python_package():
    for bundle in (PLOTLY_BUNDLE, REPORT_PLOTLY_JS):
        assert _banner(bundle)["version"] == get_plotlyjs_version(), f"rebuild {bundle.name} (see build.js)"


def _used_trace_types() -> set[str]:
    """Trace types the app's figures name: ``type="bar"`` in Python, ``type: "bar"`` in the page scripts."""
    found = set()
    for path in [*(ROOT / "dashboard").rglob("*.py"), *(ROOT / "assets").glob("*.js")]:
        found |= set(re.findall(r"""type(?:=|:\s*)["']([a-z0-9]+)["']""", path.read_text(encoding="utf-8")))
    return found & TRACE_TYPES


def test_bundle_holds_every_trace_type_the_app_draws():
    used = _used_trace_types()
    assert {"scatter", "choroplethmap"} <= used  # the scan finds the app's figures
    bundled = _bundled(PLOTLY_BUNDLE)
    assert bundled == {"scatter", *_build_list("TRACES")}
    # a type only the reports draw (their SVG maps' "choropleth") is in the reports' bundle, tested below
    assert used - bundled <= _report_only_types(), f"not in the plotly.js bundle: {sorted(used - bundled)}"


def test_report_bundle_holds_every_trace_type_a_report_draws():
    """A report draws the app's figures, their tile maps turned into SVG choropleths (reports/_maps.py)."""
    bundled = _bundled(REPORT_PLOTLY_JS)
    assert bundled == {"scatter", *_build_list("REPORT_TRACES")}
    drawn = (_used_trace_types() - {"choroplethmap"}) | _report_only_types()
    assert "choropleth" in drawn and drawn <= bundled, f"not in the reports' bundle: {sorted(drawn - bundled)}"
    assert not {"choroplethmap", "scattermap", "densitymap"} & bundled  # no tile-map engine (MapLibre) inside


def _report_only_types() -> set[str]:
    found = set()
    for path in (ROOT / "dashboard" / "reports").rglob("*.py"):  # type="x", "type": "x" or t["type"] = "x"
        found |= set(re.findall(r"""type(?:=|:\s*|["']\]\s*=\s*)["']([a-z0-9]+)["']""", path.read_text(encoding="utf-8")))
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
