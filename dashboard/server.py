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
import hashlib
import logging
import re
import time
import traceback
from pathlib import Path

import dash
from dash import html
from dash.exceptions import DependencyException, PreventUpdate
from flask import Response, g, make_response, request
from werkzeug.exceptions import HTTPException

from . import limits, views
from .cache import cache
from .core import memo

LOG = logging.getLogger("anonset.app")
ROOT = Path(__file__).resolve().parent.parent
#: The shell's repairs of Dash component markup and styles (see :func:`install`).
SHELL_ASSETS = ROOT / "assets" / "shell"
#: Shell scripts served at /_shell/<name> and loaded by every page after a11y.js.
SHELL_SCRIPTS = ("nav.js", "fields.js")

CALLBACK_PATH = "/_dash-update-component"
PAGES_CONTENT = "_pages_content"  # dash.page_container's content div
ROUTER_OUTPUT = ".._pages_content.children..._pages_store.data.."  # the page router's callback
#: Deepest JSON nesting a callback body may have (the renderer's bodies are < 15 deep; figures ~10).
MAX_JSON_DEPTH = 64
#: Pages whose callbacks answer from the request body alone, with nothing personal in it: their
#: serialised answers are kept (keyed by the body's hash) and repeated requests served from them.
#: NEVER the personal page ("me-…": a person's attributes), the page router (its query may carry them)
#: or AnonLand (a job's state lives in the shared cache, not in the body).
#: (The data-set page analyses uploaded records: never.)  "attack": the answer is a function of the
#: parameters and the seed in the body; "buckets": of the country, k and coverage.
CACHEABLE_PAGES = ("explore", "scaling", "buckets", "attack")
#: Paths whose layout (the page router's answer, a function of the path and query only) is kept too.
CACHEABLE_ROUTES = ("/explore", "/scaling", "/about", "/explore/buckets", "/attack", "/real-people")
#: The largest answer kept in the response cache.
MAX_CACHED_RESPONSE = 2 * 1024 * 1024
_RESPONSES = memo.Memo(4096, name="dashboard.server.responses")

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
    # the navigation's "you are here" (assets/shell/nav.js) and bad-input marking (assets/shell/fields.js)
    for name in SHELL_SCRIPTS:
        body = (SHELL_ASSETS / name).read_text(encoding="utf-8")
        server.add_url_rule(f"/_shell/{name}", f"shell_{name.replace('.', '_')}", lambda body=body: Response(
            body, mimetype="text/javascript", headers={"Cache-Control": "public, max-age=3600"}), methods=["GET"])
    server.add_url_rule("/_shell/a11y.css", "shell_a11y_css", lambda: Response(
        a11y_css, mimetype="text/css", headers={"Cache-Control": "public, max-age=3600"}), methods=["GET"])
    server.before_request(_check_callback_request)
    server.after_request(_after_request)
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


# --------------------------------------------------------------------------- request hooks


def _too_deep(value, limit: int = MAX_JSON_DEPTH) -> bool:
    """True when ``value`` nests deeper than ``limit`` (iterative: no recursion to overflow)."""
    stack = [(value, 1)]
    while stack:
        v, depth = stack.pop()
        if depth > limit:
            return True
        if isinstance(v, dict):
            stack.extend((x, depth + 1) for x in v.values() if isinstance(x, (dict, list)))
        elif isinstance(v, list):
            stack.extend((x, depth + 1) for x in v if isinstance(x, (dict, list)))
    return False


def _malformed(reason: str):
    LOG.warning("malformed callback request (%s)", reason)
    return {"error": "malformed callback request"}, 400


def _shipped_anonland_view(body: dict) -> bool:
    """AnonLand's result view of the *shipped* run (not a rerun: a job's result lives in the shared cache)."""
    if "anonland-box.figure" not in str(body.get("output")):
        return False
    view = next((i.get("value") for i in body.get("inputs") or [] if isinstance(i, dict) and i.get("id") == "anonland-view"),
                None)
    return isinstance(view, dict) and view.get("source") == "full" and set(view) == {"source"}


def _cacheable(body: dict) -> bool:
    if _shipped_anonland_view(body):
        return True
    if body.get("output") == ROUTER_OUTPUT:
        inputs = body.get("inputs") or []
        path = next((i.get("value") for i in inputs if isinstance(i, dict) and i.get("property") == "pathname"), None)
        return isinstance(path, str) and path.rstrip("/") in CACHEABLE_ROUTES
    outputs = body.get("outputs")
    outputs = outputs if isinstance(outputs, list) else [outputs]
    ids_ = [o.get("id") for o in outputs if isinstance(o, dict)]
    return bool(ids_) and len(ids_) == len(outputs) and all(
        isinstance(i, str) and i.split("-", 1)[0] in CACHEABLE_PAGES for i in ids_)


def _check_callback_request():
    """Before a callback runs: a body the renderer could have sent, parsed once, or 400 without a traceback.

    Then, for the non-personal pages (:data:`CACHEABLE_PAGES`), a repeated body is answered from
    the response cache.
    """
    g.t0 = time.perf_counter()
    if request.path != CALLBACK_PATH or request.method != "POST":
        return None
    if request.content_length is not None and request.content_length > _SETTINGS.max_body_bytes:
        LOG.warning("callback request too large (%d bytes)", request.content_length)
        return {"error": "request too large"}, 413
    try:
        raw = request.get_data(cache=True)
        body = request.get_json(force=True, silent=False)
    except RecursionError:
        return _malformed("JSON nested too deeply")
    except HTTPException as exc:
        if exc.code == 413:
            LOG.warning("callback request too large")
            return {"error": "request too large"}, 413
        return _malformed("not JSON")
    except (ValueError, UnicodeDecodeError):
        return _malformed("not JSON")
    if _too_deep(body):
        return _malformed("JSON nested too deeply")
    if not isinstance(body, dict) or not isinstance(body.get("output"), str) or body["output"] not in _APP.callback_map:
        return _malformed("unknown callback")
    if not isinstance(body.get("inputs"), list) or "outputs" not in body:
        return _malformed("no inputs or outputs")
    g.callback_body = body
    if _SETTINGS.response_cache and _cacheable(body):
        g.response_key = hashlib.sha256(raw).digest()
        hit = _RESPONSES.peek(g.response_key)
        if hit is not None:
            status, payload = hit
            g.response_hit = True
            return Response(payload, status=status, mimetype="application/json")
    return None


def _after_request(response: Response) -> Response:
    """Keep cacheable answers, log callbacks over their time budget, 404 for unknown pages, headers."""
    if request.path == CALLBACK_PATH and request.method == "POST":
        key = g.get("response_key")
        if key is not None and not g.get("response_hit") and response.status_code in (200, 204):
            payload = response.get_data()
            if len(payload) <= MAX_CACHED_RESPONSE:
                _RESPONSES.put(key, (response.status_code, payload))
        elapsed = time.perf_counter() - g.get("t0", time.perf_counter())
        if elapsed > limits.CALLBACK_BUDGET_S:
            LOG.warning("callback %s took %.1f s (budget %g s)", _known_output(), elapsed, limits.CALLBACK_BUDGET_S)
    elif request.method in ("GET", "HEAD") and response.status_code == 200 and _is_unknown_page():
        response.status_code = 404  # the shell still renders the friendly "page not found" layout
    return _security_headers(response)


def _is_unknown_page() -> bool:
    """True for an index-page request (Dash serves the shell for any path) whose path is no registered page."""
    rule = request.url_rule.rule if request.url_rule is not None else None
    if rule not in ("/", "/<path:path>"):
        return False
    path = _APP.strip_relative_path(request.path) or ""
    for page in dash.page_registry.values():
        if page.get("module", "").split(".")[-1] == "not_found_404":
            continue
        template = page.get("path_template")
        if template:
            t_parts, p_parts = template.strip("/").split("/"), path.split("/")
            if len(t_parts) == len(p_parts) and all(a.startswith("<") or a == b for a, b in zip(t_parts, p_parts)):
                return False
        if path == page["path"].strip("/"):
            return False
    return True


# --------------------------------------------------------------------------- errors

_REQUEST_PARSING = {"_initialize_context", "_prepare_callback", "_inputs_to_vals", "inputs_to_vals",
                    "inputs_to_dict", "split_callback_id", "update_args_group", "_prepare_grouping",
                    "map_grouping", "get_json"}


def _malformed_request(exc: Exception) -> bool:
    """True when the request is not one the Dash renderer sends (or failed to parse before any callback ran).

    Reads the body :func:`_check_callback_request` parsed — never ``get_json`` here, inside the error
    handler, where a body that cannot be parsed would raise again.
    """
    body = g.get("callback_body")
    if not isinstance(body, dict) or body.get("output") not in _APP.callback_map:
        return True
    if not isinstance(body.get("inputs"), list) or "outputs" not in body:
        return True
    names = {frame.name for frame in traceback.extract_tb(exc.__traceback__)}
    return bool(names & _REQUEST_PARSING) and "_invoke_callback" not in names


def _known_output() -> str:
    """The callback's output spec if it is one of the app's (component ids, never values), else "?"."""
    body = g.get("callback_body")
    output = body.get("output") if isinstance(body, dict) else None
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
    from dashboard.core.country import load_country_model

    t0 = time.perf_counter()
    codes = cl.countries()
    with memo.pinned():  # what every visit opens with stays, outside the workers' memo budget
        for code in codes:
            load_country_model(code)
            cl.boundaries(code)
            cl.auxiliary_tables(code)
        views.warm_all()  # each page's view precomputes what every visit opens with
    with _APP.server.test_client() as client:  # builds callbacks, routes and the index once, pre-fork
        for path in ("/", "/_dash-layout", "/_dash-dependencies"):
            client.get(path)
    return {"countries": len(codes), "seconds": round(time.perf_counter() - t0, 2)}
