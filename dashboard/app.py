"""The Dash shell: pages, navigation bar, server-side cache, and the WSGI ``server``.

Run for development with ``anonset serve``; deploy with
``gunicorn dashboard.app:server`` (see README).  Everything the page loads is
served from this process: Dash serves its own scripts and plotly.js locally,
and the pages use no CDN, web font or map tile.
"""
from __future__ import annotations

from pathlib import Path

import dash
from dash import Dash, dcc, html
from flask_caching import Cache

from . import ids
from . import settings as settings_module

ROOT = Path(__file__).resolve().parent.parent
SETTINGS = settings_module.load()

app = Dash(
    __name__,
    use_pages=True,
    pages_folder=str(Path(__file__).parent / "pages"),
    assets_folder=str(ROOT / "assets"),
    serve_locally=True,
    title="AnonSet — how many people are like you?",
    update_title=None,
    suppress_callback_exceptions=True,
    meta_tags=[{"name": "viewport", "content": "width=device-width, initial-scale=1"}],
)
server = app.server

cache = Cache(
    server,
    config={
        "CACHE_TYPE": SETTINGS.cache_type,
        "CACHE_DIR": SETTINGS.cache_dir,
        "CACHE_REDIS_URL": SETTINGS.redis_url,
        "CACHE_DEFAULT_TIMEOUT": SETTINGS.cache_timeout,
    },
)


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
        ],
        id=ids.NAVBAR,
        className="navbar",
        **{"aria-label": "Main"},
    )


app.layout = html.Div(
    [
        dcc.Location(id=ids.URL),
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


@server.get("/healthz")
def healthz():
    """Liveness for a load balancer: the cache manifest is readable."""
    import census_loaders

    try:
        n = len(census_loaders.countries())
    except FileNotFoundError:
        return {"status": "no data cache"}, 503
    return {"status": "ok", "datasets": n}


def run() -> None:  # pragma: no cover - thin wrapper used by `anonset serve`
    app.run(host=SETTINGS.host, port=SETTINGS.port, debug=SETTINGS.debug)
