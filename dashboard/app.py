"""The Dash shell: pages, navigation bar, server-side cache, security headers and the WSGI ``server``.

Run for development with ``anonset serve``; deploy with
``gunicorn -c dashboard/gunicorn_conf.py dashboard.app:server`` (see README).
Everything the page loads is served from this process: Dash serves its own
scripts and plotly.js locally (``serve_locally=True``), and the pages use no
CDN, web font or map tile — the Content-Security-Policy below forbids them.

Privacy in the shell: a callback that raises is answered with "no update" (204)
and logged by exception *class* only — never its message or the request, which
may hold a person's answers.
"""
from __future__ import annotations

import functools
import logging
import re
import sys
import traceback
from pathlib import Path

import dash
from dash import ClientsideFunction, Dash, Input, Output, State, dcc, html
from dash.exceptions import DependencyException, PreventUpdate
from flask import Response, make_response, request
from flask_caching import Cache
from werkzeug.exceptions import HTTPException

from . import ids
from . import settings as settings_module

ROOT = Path(__file__).resolve().parent.parent
SETTINGS = settings_module.load()
LOG = logging.getLogger("anonset.app")

CALLBACK_PATH = "/_dash-update-component"
PAGES_CONTENT = "_pages_content"  # dash.page_container's content div


def _callback_error(err: Exception):
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


app = Dash(
    __name__,
    use_pages=True,
    pages_folder=str(Path(__file__).parent / "pages"),
    assets_folder=str(ROOT / "assets"),
    serve_locally=True,
    title="AnonSet — how many people are like you?",
    update_title=None,
    suppress_callback_exceptions=True,
    on_error=_callback_error,
    meta_tags=[
        {"name": "viewport", "content": "width=device-width, initial-scale=1"},
        {"name": "referrer", "content": "no-referrer"},
    ],
)
server = app.server
server.config["MAX_CONTENT_LENGTH"] = SETTINGS.max_body_bytes

# Dash's default page, with a language, one <footer> (Dash wraps its scripts in a second one,
# which screen readers announce as another "contentinfo"), and the shell's accessibility fixes.
app.index_string = """<!DOCTYPE html>
<html lang="en">
    <head>
        {%metas%}
        <title>{%title%}</title>
        {%favicon%}
        {%css%}
        <link rel="stylesheet" href="/_shell/a11y.css">
    </head>
    <body>
        {%app_entry%}
        {%config%}
        {%scripts%}
        {%renderer%}
        <script src="/_shell/a11y.js"></script>
    </body>
</html>"""

# Server-side memo of NON-personal computations only (per-country tables, figures
# of whole countries).  Never memoise a function of a person's attributes.
cache = Cache(server, config=SETTINGS.cache_config())


# --------------------------------------------------------------------------- layout


def _navbar() -> html.Nav:
    pages = sorted(dash.page_registry.values(), key=lambda p: p.get("order") or 0)
    links = [
        dcc.Link(p["name"], href=p["relative_path"], className="nav-link")
        for p in pages
        if p.get("nav", True)
    ]
    return html.Nav(
        [
            dcc.Link([html.Span("Anon", className="brand-a"), html.Span("Set", className="brand-b")],
                     href="/", className="brand", title="AnonSet home"),
            html.Div(links, className="nav-links"),
            html.Button(
                "Presenter mode", id=ids.PRESENTER_TOGGLE, n_clicks=0, className="presenter-toggle",
                title="Large type and high contrast for projectors (link: ?presenter=1)",
                **{"aria-pressed": "false"},
            ),
        ],
        id=ids.NAVBAR,
        className="navbar",
        **{"aria-label": "Main"},
    )


app.layout = html.Div(
    [
        dcc.Location(id=ids.URL),
        dcc.Store(id=ids.PRESENTER_STORE, storage_type="local"),
        html.A("Skip to content", href="#main", className="skip-link"),
        _navbar(),
        html.Main(dash.page_container, id="main", className="page"),
        html.Footer(
            [
                "AnonSet estimates anonymity sets from public statistics; nothing you type is stored or sent anywhere. ",
                dcc.Link("Sources and licences", href="/about"),
            ],
            className="footer",
        ),
    ],
    className="shell",
)

# presenter mode: ?presenter=1|0 or the navbar toggle → localStorage → class "presenter" on <body>
app.clientside_callback(
    ClientsideFunction(namespace="anonsetShell", function_name="choosePresenter"),
    Output(ids.PRESENTER_STORE, "data"),
    Input(ids.PRESENTER_TOGGLE, "n_clicks"),
    Input(ids.URL, "search"),
    State(ids.PRESENTER_STORE, "data"),
)
app.clientside_callback(
    ClientsideFunction(namespace="anonsetShell", function_name="applyPresenter"),
    Output(ids.PRESENTER_TOGGLE, "aria-pressed"),
    Input(ids.PRESENTER_STORE, "data"),
)


# --------------------------------------------------------------------------- accessibility fixes

# Dash 4's components render a few things axe-core reports as serious: radio / check lists as
# unnamed role="listbox" with role="option" labels around native inputs (nested interactive),
# a focusable aria-hidden input in front of every dropdown, unnamed slider handles, DataTable
# page buttons without text and dcc.Upload's unnamed file input.  The shell repairs the markup as it appears, for every page.
A11Y_JS = r"""/* AnonSet shell: accessibility repairs of Dash component markup (served by dashboard/app.py). */
(function () {
  function labelFor(el) {
    if (!el || !el.id) return null;
    var label = document.querySelector('label[for="' + CSS.escape(el.id) + '"]');
    if (label && !label.id) label.id = el.id + "--label";
    return label;
  }
  function nameFromNearbyLabel(el) {
    for (var up = el, i = 0; up && i < 5; up = up.parentElement, i++) {
      var l = labelFor(up.id ? up : null);
      if (l) return l;
      var near = up.parentElement && up.parentElement.querySelector(":scope > label, :scope > .field-label");
      if (near) return near;
    }
    return null;
  }
  function repair(root) {
    root.querySelectorAll(".dash-dropdown-wrapper").forEach(function (w) {
      var target = w.querySelector(":scope > .dash-dropdown-focus-target"), button = w.querySelector(":scope > button");
      if (target && button && target.getAttribute("tabindex") !== "-1") {
        target.setAttribute("tabindex", "-1");  /* the trigger button itself takes the focus */
        button.setAttribute("tabindex", "0");
      }
    });
    root.querySelectorAll('.dash-options-list[role="listbox"]').forEach(function (list) {
      list.setAttribute("role", list.querySelector('input[type="radio"]') ? "radiogroup" : "group");
      list.querySelectorAll('[role="option"]').forEach(function (o) { o.removeAttribute("role"); o.removeAttribute("aria-selected"); });
      if (!list.getAttribute("aria-label") && !list.getAttribute("aria-labelledby")) {
        var l = labelFor(list);
        if (l) list.setAttribute("aria-labelledby", l.id);
      }
    });
    root.querySelectorAll('[role="slider"]:not([aria-label]):not([aria-labelledby])').forEach(function (h) {
      var l = nameFromNearbyLabel(h);
      h.setAttribute("aria-label", ((l && l.textContent.trim()) || "value") + " (slider)");
    });
    root.querySelectorAll('input[type="file"]:not([aria-label])').forEach(function (input) {
      var box = input.parentElement;  /* dcc.Upload: the drop box's own text names its hidden file input */
      input.setAttribute("aria-label", ((box && box.textContent.trim()) || "Choose a file"));
    });
    var pages = {"first-page": "First page", "previous-page": "Previous page", "next-page": "Next page", "last-page": "Last page"};
    root.querySelectorAll(".previous-next-container button:not([aria-label])").forEach(function (b) {
      for (var cls in pages) { if (b.classList.contains(cls)) b.setAttribute("aria-label", pages[cls]); }
    });
  }
  var queued = false;
  function schedule() {
    if (queued) return;
    queued = true;
    window.requestAnimationFrame(function () { queued = false; repair(document); });
  }
  new MutationObserver(schedule).observe(document.documentElement, {childList: true, subtree: true});
  schedule();
})();
"""

A11Y_CSS = """/* AnonSet shell: contrast fixes for Dash component styles (served by dashboard/app.py). */
.dash-table-container .dash-filter--case { color: #1b1f24 !important; opacity: 1 !important; }
.dash-table-container .dash-filter--case--sensitive { border-color: #4a5562 !important; }
.dash-table-container .previous-next-container button:disabled { color: #4a5562; }
/* Dash 4 draws a 1px focus ring on its number/text inputs: make it as visible as the app's others */
.dash-input-container:focus-within { outline: 3px solid var(--accent, #0b5cad) !important; outline-offset: 1px; }
.dash-dropdown:focus-visible, .dash-dropdown-focus-target:focus-visible + .dash-dropdown {
  outline: 3px solid var(--accent, #0b5cad); outline-offset: 1px; }
"""


@server.get("/_shell/a11y.js")
def _a11y_js():
    return Response(A11Y_JS, mimetype="text/javascript", headers={"Cache-Control": "public, max-age=3600"})


@server.get("/_shell/a11y.css")
def _a11y_css():
    return Response(A11Y_CSS, mimetype="text/css", headers={"Cache-Control": "public, max-age=3600"})


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
    hashes = app.csp_hashes()
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


@server.after_request
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
    if not isinstance(body, dict) or body.get("output") not in app.callback_map:
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
    if isinstance(output, str) and output in app.callback_map:
        return re.sub(r"@[0-9a-f]+", "", output)[:300]
    return "?"


@server.errorhandler(Exception)
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


@server.get("/geo/<code>.geojson")
def district_geojson(code: str):
    """A data set's district polygons, served once and cached by the browser.

    Map figures reference this URL (``figures.maps.geojson_url``) instead of
    carrying the geometry, so a map callback answers in kilobytes, not megabytes.
    """
    import census_loaders
    from census_loaders.paths import cache_dir
    from flask import abort, send_file

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


@server.get("/healthz")
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
        return {"status": "cache unavailable", "cache": SETTINGS.cache_type, "datasets": n}, 503
    return {"status": "ok", "datasets": n, "cache": SETTINGS.cache_type}


def warm() -> dict:
    """Load every country once (population, body model, boundaries) and set the app up.

    gunicorn runs this in the master before forking (``preload_app``), so the
    workers share the loaded tables.  Returns {"countries": n, "seconds": s}.
    """
    import time

    import census_loaders as cl
    from dashboard.core.body_model import load_country_model

    t0 = time.perf_counter()
    codes = cl.countries()
    for code in codes:
        load_country_model(code)
        cl.boundaries(code)
        cl.auxiliary_tables(code)
    for page in dash.page_registry.values():  # each page precomputes what every visit opens with
        page_warm = getattr(sys.modules.get(page["module"]), "warm", None)
        if callable(page_warm):
            page_warm()
    with server.test_client() as client:  # builds callbacks, routes and the index once, pre-fork
        for path in ("/", "/_dash-layout", "/_dash-dependencies"):
            client.get(path)
    return {"countries": len(codes), "seconds": round(time.perf_counter() - t0, 2)}


def run() -> None:  # pragma: no cover - thin wrapper used by `anonset serve`
    app.run(host=SETTINGS.host, port=SETTINGS.port, debug=SETTINGS.debug)
