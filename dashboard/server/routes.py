"""Routes besides Dash's own: the shell's scripts and styles, each data set's district geometry, and its
place names for the district search (``/_places/<code>.json``, fetched by the personal page only when a
person types in the district box of that data set).

The personal page's public tables have their own module (:mod:`dashboard.server.tables`).
"""
from __future__ import annotations

import functools
import gzip
import json
from pathlib import Path

from flask import Flask, Response, abort, make_response, request, send_file

import census_loaders
from census_loaders.paths import cache_dir
from dashboard.core.country import place_rows

ROOT = Path(__file__).resolve().parent.parent.parent
#: The shell's repairs of Dash component markup and styles (see :func:`install`).
SHELL_ASSETS = ROOT / "assets" / "shell"
#: Shell scripts served at /_shell/<name> and loaded by every page after a11y.js.
SHELL_SCRIPTS = ("nav.js", "fields.js", "lang.js")  # lang.js: in <head>, before Dash's renderer (issue 31)
#: The partial plotly.js bundle (core, bar, box, choroplethmap; built by assets/plotly/build.js).
PLOTLY_BUNDLE = ROOT / "assets" / "plotly" / "plotly-anonset.min.js"
#: Where Dash's graphs fetch plotly.js when it is served locally (dcc.Graph loads it on the first graph).
PLOTLY_URL = "/_dash-component-suites/plotly/package_data/plotly.min.js"


def _static(body: str, mimetype: str):
    return lambda: Response(body, mimetype=mimetype, headers={"Cache-Control": "public, max-age=3600"})


def install_shell(server: Flask) -> None:
    """Serve assets/shell/ at /_shell/ (the index page links them; see ``dashboard.app``).

    Dash 4's components render a few things axe-core reports as serious (unnamed listboxes, a
    focusable aria-hidden input in front of every dropdown, unnamed slider handles and page
    buttons, dcc.Upload's unnamed file input): assets/shell/a11y.js repairs the markup as it
    appears, for every page; assets/shell/a11y.css fixes contrasts.  Served here (not
    auto-included from assets/) so the index page loads them exactly where it says.
    """
    a11y_js = (SHELL_ASSETS / "a11y.js").read_text(encoding="utf-8")
    a11y_css = (SHELL_ASSETS / "a11y.css").read_text(encoding="utf-8")
    server.add_url_rule("/_shell/a11y.js", "shell_a11y_js", _static(a11y_js, "text/javascript"), methods=["GET"])
    # the navigation's "you are here" (assets/shell/nav.js) and bad-input marking (assets/shell/fields.js)
    for name in SHELL_SCRIPTS:
        body = (SHELL_ASSETS / name).read_text(encoding="utf-8")
        server.add_url_rule(f"/_shell/{name}", f"shell_{name.replace('.', '_')}", _static(body, "text/javascript"),
                            methods=["GET"])
    server.add_url_rule("/_shell/a11y.css", "shell_a11y_css", _static(a11y_css, "text/css"), methods=["GET"])


def district_geojson(code: str):
    """A data set's district polygons, served once and cached by the browser.

    Map figures reference this URL (``figures.maps.geojson_url``) instead of
    carrying the geometry, so a map callback answers in kilobytes, not megabytes.
    """
    if code not in census_loaders.countries():
        abort(404)
    # gzip: Italy's 7,901 municipalities are 2.8 MB of GeoJSON but 0.5 MB compressed
    return _gzipped_file(cache_dir() / "boundaries" / f"{code}.geojson", code)


def world_geojson():
    """Every country's outline (``data_cache/world/countries.geojson``, feature id = ISO alpha-2) for the
    world map, served like a data set's districts (gzipped, cached by the browser)."""
    entry = census_loaders.manifest().get("world")
    if not entry:
        abort(404)
    return _gzipped_file(cache_dir() / entry["file"], "world")


def _gzipped_file(path: Path, tag: str, mimetype: str = "application/geo+json"):
    """A static file of the cache or assets: gzipped once per process when accepted, cached a day by ETag."""
    if not path.is_file():
        abort(404)
    if not request.accept_encodings["gzip"]:
        return send_file(path, mimetype=mimetype, max_age=86400, conditional=True, etag=True)
    stat = path.stat()
    resp = make_response(gzipped_geometry(str(path), stat.st_mtime_ns, stat.st_size))
    resp.mimetype = mimetype
    resp.headers["Content-Encoding"] = "gzip"
    resp.vary.add("Accept-Encoding")
    resp.cache_control.public = True
    resp.cache_control.max_age = 86400
    resp.set_etag(f"{tag}-{stat.st_mtime_ns:x}-{stat.st_size:x}-gzip")
    return resp.make_conditional(request)


@functools.lru_cache(maxsize=64)
def gzipped_geometry(path: str, mtime_ns: int, size: int) -> bytes:
    """A boundary file (or the plotly.js bundle) gzipped once per process (keyed by modification time, so a
    rebuilt cache is seen)."""
    return gzip.compress(Path(path).read_bytes(), compresslevel=6, mtime=0)


def plotly_bundle():
    """The partial plotly.js bundle, answered where Dash's graphs ask for the full one.

    The full plotly.min.js (4.8 MB, every trace type) took 3-5 s to parse and evaluate in Chromium here before
    the first map could start; this one (3.1 MB, 0.9 MB gzipped, the trace types the app draws) takes under
    one.  The URL has no fingerprint, so the browser revalidates it daily by its ETag.
    """
    return _gzipped_file(PLOTLY_BUNDLE, "plotly", "text/javascript")


def district_places(code: str):
    """A data set's GeoNames places with the district each lies in (public, the same for everyone; gzipped
    when accepted: Germany's 11,870 places are ~0.6 MB of JSON, ~0.2 MB compressed)."""
    if code not in census_loaders.countries():
        abort(404)
    word = census_loaders.dataset_info(code).get("district_label") or "district"
    tag = f"places-{code}-{census_loaders.manifest().get('files', {}).get(f'places/{code}.parquet', 'none')}"
    if tag in [t.strip().strip('"') for t in request.headers.get("If-None-Match", "").split(",")]:
        return Response(status=304)
    zipped = "gzip" in request.headers.get("Accept-Encoding", "").lower()
    body = _places_body(code, word, tag)
    resp = make_response(body if zipped else gzip.decompress(body))
    resp.mimetype = "application/json"
    if zipped:
        resp.headers["Content-Encoding"] = "gzip"
    resp.vary.add("Accept-Encoding")
    resp.cache_control.public = True
    resp.cache_control.max_age = 86400
    resp.set_etag(tag)
    return resp


@functools.lru_cache(maxsize=8)
def _places_body(code: str, word: str, tag: str) -> bytes:
    payload = {"code": code, "word": word, "places": place_rows(code)}
    return gzip.compress(json.dumps(payload, ensure_ascii=False, separators=(",", ":")).encode("utf-8"),
                         compresslevel=6, mtime=0)


def install(server: Flask) -> None:
    """Attach the shell's files and the district geometry to ``server``."""
    install_shell(server)
    server.add_url_rule("/geo/world.geojson", "world_geojson", world_geojson, methods=["GET"])
    server.add_url_rule("/geo/<code>.geojson", "district_geojson", district_geojson, methods=["GET"])
    server.add_url_rule("/_places/<code>.json", "district_places", district_places, methods=["GET"])
    # a rule without variables wins over Dash's /_dash-component-suites/<package>/<path> for this one URL
    server.add_url_rule(PLOTLY_URL, "plotly_bundle", plotly_bundle, methods=["GET"])
