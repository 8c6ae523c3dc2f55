"""The Dash shell: pages, navigation bar, presenter mode, and the WSGI ``server``.

Run for development with ``anonset serve``; deploy with
``gunicorn -c dashboard/gunicorn_conf.py dashboard.app:server`` (see README).
Server concerns — security headers, error handling, routes, health and warm-up — are in
:mod:`dashboard.server`; the server-side cache is :mod:`dashboard.cache`, attached here.
"""
from __future__ import annotations

from pathlib import Path

import dash
from dash import ClientsideFunction, Dash, Input, Output, State, dcc, html

from . import cache as cache_module
from . import ids, tables_route
from . import server as server_module
from . import settings as settings_module
from .core import memo

ROOT = Path(__file__).resolve().parent.parent
SETTINGS = settings_module.load()
memo.set_budget(SETTINGS.cache_budget_bytes)  # every in-process memo of this worker, together


app = Dash(
    __name__,
    use_pages=True,
    pages_folder=str(Path(__file__).parent / "pages"),
    assets_folder=str(ROOT / "assets"),
    assets_path_ignore=["^shell$"],  # assets/shell/ is linked by index_string below, served by dashboard.server
    serve_locally=True,
    title="AnonSet — how many people are like you?",
    update_title=None,
    suppress_callback_exceptions=True,
    on_error=server_module.callback_error,
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
        <script src="/_shell/nav.js"></script>
        <script src="/_shell/fields.js"></script>
    </body>
</html>"""

cache_module.init_app(server, SETTINGS)
server_module.install(app, SETTINGS)
tables_route.install(server)  # the personal page's public tables (issue 15)


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
                "AnonSet estimates anonymity sets from public statistics. Your answers on the personal page stay in "
                "your browser; other pages send their settings to this server only, which keeps none of them. ",
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


def run() -> None:  # pragma: no cover - thin wrapper used by `anonset serve`
    app.run(host=SETTINGS.host, port=SETTINGS.port, debug=SETTINGS.debug)
