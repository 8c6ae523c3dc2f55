"""Server concerns of the Dash app: security headers, error handling, routes, health and warm-up.

:func:`install` attaches them to the app built in :mod:`dashboard.app` (the shell).
Everything the page loads is served from this process: Dash serves its own scripts and
plotly.js locally, and the pages use no CDN, web font or map tile — the
Content-Security-Policy below forbids them.

Privacy: a callback that raises is answered with "no update" (204) and logged by
exception *class* only — never its message or the request, which may hold a person's answers.
"""
from __future__ import annotations

import functools
import logging
import re
import traceback
from pathlib import Path

import dash
from dash import html
from dash.exceptions import DependencyException, PreventUpdate
from flask import Response, make_response, request
from werkzeug.exceptions import HTTPException

from . import views
from .cache import cache

LOG = logging.getLogger("anonset.app")
ROOT = Path(__file__).resolve().parent.parent
#: The shell's repairs of Dash component markup and styles (see :func:`install`).
SHELL_ASSETS = ROOT / "assets" / "shell"

CALLBACK_PATH = "/_dash-update-component"
PAGES_CONTENT = "_pages_content"  # dash.page_container's content div

_APP: dash.Dash | None = None
_SETTINGS = None


def callback_error(err: Exception):
    """Dash's global ``on_error``: an exception inside any callback becomes "no update".

    Logs the exception class and the callback's output ids (component ids, not
    values).  The page router gets a short message instead of a blank page.
    """
    outputs = []
    try:
        outs = dash.callback_context.outputs_list
        outs = outs if isinstance(outs, list) else [outs]
        outputs = [f"{o.get('id')}.{str(o.get('property')).split('@')[0]}" for o in outs if isinstance(o, dict)]
    except Exception:  # noqa: BLE001 - logging must not fail
        outputs = []
    LOG.error("callback raised %s (outputs %s)", type(err).__name__, ",".join(outputs)[:300] or "?")
    if outputs and outputs[0].startswith(PAGES_CONTENT + "."):
        return [
            html.Div(
                [html.H1("Sorry — this page could not be shown"),
                 html.P("Please check the link, or start again from the navigation bar.")],
                className="error", role="alert",
            ),
            dash.no_update,
        ]
    raise PreventUpdate  # no update for any output: HTTP 204, the page keeps what it shows


def install(app: dash.Dash, settings) -> None:
    """Attach the routes, headers and error handlers to ``app``'s Flask server."""
    global _APP, _SETTINGS
    _APP, _SETTINGS = app, settings
    server = app.server
    a11y_js = (SHELL_ASSETS / "a11y.js").read_text(encoding="utf-8")
    a11y_css = (SHELL_ASSETS / "a11y.css").read_text(encoding="utf-8")

    # Dash 4's components render a few things axe-core reports as serious (unnamed listboxes, a
    # focusable aria-hidden input in front of every dropdown, unnamed slider handles and page
    # buttons, dcc.Upload's unnamed file input): assets/shell/a11y.js repairs the markup as it
    # appears, for every page; assets/shell/a11y.css fixes contrasts.  Served here (not
    # auto-included from assets/) so the index page loads them exactly where it says.
    server.add_url_rule("/_shell/a11y.js", "shell_a11y_js", lambda: Response(
        a11y_js, mimetype="text/javascript", headers={"Cache-Control": "public, max-age=3600"}), methods=["GET"])
    server.add_url_rule("/_shell/a11y.css", "shell_a11y_css", lambda: Response(
        a11y_css, mimetype="text/css", headers={"Cache-Control": "public, max-age=3600"}), methods=["GET"])
    server.after_request(_security_headers)
    server.register_error_handler(Exception, _unexpected_error)
    server.add_url_rule("/geo/<code>.geojson", "district_geojson", district_geojson, methods=["GET"])
    server.add_url_rule("/healthz", "healthz", healthz, methods=["GET"])


# --------------------------------------------------------------------------- security headers

PERMISSIONS_POLICY = ", ".join(
    f"{feature}=()" for feature in (
        "accelerometer", "autoplay", "camera", "display-capture", "geolocation", "gyroscope",
        "magnetometer", "microphone", "midi", "payment", "usb", "serial", "hid",
        "publickey-credentials-get", "screen-wake-lock", "xr-spatial-tracking",
    )
) + ", clipboard-write=(self), fullscreen=(self)"

_csp_memo: dict[tuple, str] = {}


def content_security_policy() -> str:
    """The CSP every response carries: everything from this origin, nothing from anywhere else.

    Scripts: files from 'self' plus the sha256 of each inline script Dash writes
    into the index page (its renderer bootstrap and any inline clientside
    callback) — no 'unsafe-inline', no 'unsafe-eval'.  Styles need
    'unsafe-inline': plotly.js and the Dash components inject <style> elements.
    MapLibre (map traces) runs its workers from blob: URLs.
    """
    hashes = _APP.csp_hashes()
    key = tuple(hashes)
    if key not in _csp_memo:
        directives = {
            "default-src": ["'self'"],
            "script-src": ["'self'", *hashes],
            "style-src": ["'self'", "'unsafe-inline'"],
            "img-src": ["'self'", "data:", "blob:"],
            "font-src": ["'self'", "data:"],
            "connect-src": ["'self'"],
            "worker-src": ["'self'", "blob:"],
            "child-src": ["'self'", "blob:"],
            "frame-src": ["'none'"],
            "object-src": ["'none'"],
            "manifest-src": ["'self'"],
            "media-src": ["'none'"],
            "base-uri": ["'none'"],
            "form-action": ["'self'"],
            "frame-ancestors": ["'none'"],
        }
        _csp_memo.clear()
        _csp_memo[key] = "; ".join(f"{name} {' '.join(values)}" for name, values in directives.items())
    return _csp_memo[key]


SECURITY_HEADERS = {
    "Referrer-Policy": "no-referrer",
    "X-Content-Type-Options": "nosniff",
    "X-Frame-Options": "DENY",
    "Permissions-Policy": PERMISSIONS_POLICY,
    "Cross-Origin-Opener-Policy": "same-origin",
    "Cross-Origin-Resource-Policy": "same-origin",
}


def _security_headers(response: Response) -> Response:
    response.headers["Content-Security-Policy"] = content_security_policy()
    for name, value in SECURITY_HEADERS.items():
        response.headers[name] = value
    if request.method == "POST":
        # callback answers are computed from a person's answers: no browser or proxy may keep them
        response.headers["Cache-Control"] = "no-store"
    return response


# --------------------------------------------------------------------------- errors

_REQUEST_PARSING = {"_initialize_context", "_prepare_callback", "_inputs_to_vals", "inputs_to_vals",
                    "inputs_to_dict", "split_callback_id", "update_args_group", "_prepare_grouping",
                    "map_grouping", "get_json"}


def _malformed_request(exc: Exception) -> bool:
    """True when the request is not one the Dash renderer sends (or failed to parse before any callback ran)."""
    body = request.get_json(silent=True)
    if not isinstance(body, dict) or body.get("output") not in _APP.callback_map:
        return True
    if not isinstance(body.get("inputs"), list) or "outputs" not in body:
        return True
    names = {frame.name for frame in traceback.extract_tb(exc.__traceback__)}
    return bool(names & _REQUEST_PARSING) and "_invoke_callback" not in names


def _known_output() -> str:
    """The callback's output spec if it is one of the app's (component ids, never values), else "?"."""
    try:
        output = (request.get_json(silent=True) or {}).get("output")
    except Exception:  # noqa: BLE001
        return "?"
    if isinstance(output, str) and output in _APP.callback_map:
        return re.sub(r"@[0-9a-f]+", "", output)[:300]
    return "?"


def _unexpected_error(exc: Exception):
    """No traceback in a response or the log: the class name only (values may be personal)."""
    if isinstance(exc, HTTPException):
        return exc
    if isinstance(exc, DependencyException):  # /_dash-component-suites/<unknown package or file>
        return {"error": "not found"}, 404
    if request.path == CALLBACK_PATH:
        if _malformed_request(exc):
            LOG.warning("malformed callback request (%s)", type(exc).__name__)
            return {"error": "malformed callback request"}, 400
        LOG.error("callback failed with %s (output %s)", type(exc).__name__, _known_output())
        return "", 204
    rule = request.url_rule.rule if request.url_rule is not None else "?"
    LOG.error("%s %s failed with %s", request.method, rule, type(exc).__name__)
    return {"error": "internal error"}, 500


# --------------------------------------------------------------------------- district geometry


def district_geojson(code: str):
    """A data set's district polygons, served once and cached by the browser.

    Map figures reference this URL (``figures.maps.geojson_url``) instead of
    carrying the geometry, so a map callback answers in kilobytes, not megabytes.
    """
    from flask import abort, send_file

    import census_loaders
    from census_loaders.paths import cache_dir

    if code not in census_loaders.countries():
        abort(404)
    path = cache_dir() / "boundaries" / f"{code}.geojson"
    if not path.is_file():
        abort(404)
    if not request.accept_encodings["gzip"]:
        return send_file(path, mimetype="application/geo+json", max_age=86400, conditional=True, etag=True)
    # gzip: Italy's 7,901 municipalities are 2.8 MB of GeoJSON but 0.5 MB compressed
    stat = path.stat()
    resp = make_response(_gzipped_geometry(str(path), stat.st_mtime_ns, stat.st_size))
    resp.mimetype = "application/geo+json"
    resp.headers["Content-Encoding"] = "gzip"
    resp.vary.add("Accept-Encoding")
    resp.cache_control.public = True
    resp.cache_control.max_age = 86400
    resp.set_etag(f"{code}-{stat.st_mtime_ns:x}-{stat.st_size:x}-gzip")
    return resp.make_conditional(request)


@functools.lru_cache(maxsize=64)
def _gzipped_geometry(path: str, mtime_ns: int, size: int) -> bytes:
    """A boundary file gzipped once per process (keyed by modification time, so a rebuilt cache is seen)."""
    import gzip

    return gzip.compress(Path(path).read_bytes(), compresslevel=6, mtime=0)


# --------------------------------------------------------------------------- health and warm-up


def healthz():
    """Liveness for a load balancer: the data cache is readable and the Flask cache answers."""
    import census_loaders

    try:
        n = len(census_loaders.countries())
    except FileNotFoundError:
        return {"status": "no data cache"}, 503
    try:
        ok = cache.set("healthz", 1, timeout=60) and cache.get("healthz") == 1
    except Exception as exc:  # noqa: BLE001 - e.g. Redis down
        LOG.warning("healthz: cache backend failed with %s", type(exc).__name__)
        ok = False
    if not ok:
        return {"status": "cache unavailable", "cache": _SETTINGS.cache_type, "datasets": n}, 503
    return {"status": "ok", "datasets": n, "cache": _SETTINGS.cache_type}


def warm() -> dict:
    """Load every country once (population, body model, boundaries) and set the app up.

    gunicorn runs this in the master before forking (``preload_app``), so the
    workers share the loaded tables.  Returns {"countries": n, "seconds": s}.
    """
    if _APP is None:  # the app installs this module when it is imported
        import dashboard.app  # noqa: F401
    import time

    import census_loaders as cl
    from dashboard.core.body_model import load_country_model

    t0 = time.perf_counter()
    codes = cl.countries()
    for code in codes:
        load_country_model(code)
        cl.boundaries(code)
        cl.auxiliary_tables(code)
    views.warm_all()  # each page's view precomputes what every visit opens with
    with _APP.server.test_client() as client:  # builds callbacks, routes and the index once, pre-fork
        for path in ("/", "/_dash-layout", "/_dash-dependencies"):
            client.get(path)
    return {"countries": len(codes), "seconds": round(time.perf_counter() - t0, 2)}
