"""Server concerns of the Dash app, one module per topic; :func:`install` attaches them to an app.

=====================  =====================================================================
module                 concern
=====================  =====================================================================
:mod:`.headers`        Content-Security-Policy and the other security headers
:mod:`.errors`         a callback that raises, and every other exception (no traceback anywhere)
:mod:`.language`       the visitor's language, set per request (never per process)
:mod:`.hooks`          before/after each request: callback body checks, response cache, time
                       budget, 404 for unknown pages
:mod:`.routes`         the shell's scripts and styles (/_shell/…), district geometry (/geo/…)
:mod:`.tables`         the personal page's public tables (/_tables/…)
:mod:`.report_routes`  the pages' reports as files (/_reports/…; the kinds come from the app factory)
:mod:`.static_site`    ``anonset export-static``: the personal page as a static site (given the app)
:mod:`.health`         /healthz for a load balancer
:mod:`.meta`           link-preview meta tags from the deployment's address, never the Host header
:mod:`.warmup`         load every data set and set the app up before gunicorn forks
:mod:`.cache`          the server-side cache (Flask-Caching: a shared folder or Redis)
:mod:`.backends`       its folder and Redis backends, whose values are never pickled
:mod:`.serialize`      what those backends write and read back: JSON or raw bytes
:mod:`.cache_folder`   the cache folder is private (0700, this user's own) or the server stops
:mod:`.preflight`      a damaged data cache stops the server before it starts
:mod:`.jobs`           AnonLand reruns as background jobs, and the server's slots
:mod:`.limits`         the cost model of one request
=====================  =====================================================================

Nothing here imports the app, the pages or the views: the app (:mod:`dashboard.app`) builds
itself with :func:`dashboard.app.create_app` and calls :func:`install`; the views use
:mod:`.cache`, :mod:`.jobs` and :mod:`.limits`.
"""
from __future__ import annotations

import dash

from . import (
    cache,
    errors,
    headers,
    health,
    hooks,
    jobs,
    language,
    limits,
    meta,
    preflight,
    report_routes,
    routes,
    tables,
    warmup,
)
from .errors import callback_error
from .warmup import warm


def install(app: dash.Dash, settings, report_kinds=None) -> None:
    """Attach the cache, headers, request hooks, error handler and routes to ``app``'s Flask server.

    ``report_kinds`` (:data:`dashboard.reports.KINDS`, given by the app factory): the reports served by
    ``GET /_reports/<kind>``.

    The headers go first: Flask runs ``after_request`` hooks in reverse order, so every response,
    whatever the other hooks did, leaves with them.
    """
    server = app.server
    server.config["MAX_CONTENT_LENGTH"] = settings.max_body_bytes
    cache.init_app(server, settings)
    headers.install(app, server)
    hooks.install(app, server, settings)
    language.install(app, server)  # first of the before-request hooks: the response cache's key needs it
    errors.install(app, server)
    routes.install(server)
    health.install(server, settings)
    tables.install(server)  # the personal page's public tables (issue 15)
    report_routes.install(server, report_kinds or {})  # the pages' reports by plain GET (issue 29)
    meta.install(app, settings.public_url)


__all__ = ["cache", "callback_error", "errors", "headers", "health", "hooks", "install", "jobs", "language", "limits", "meta", "preflight",
           "report_routes", "routes",
           "tables", "warm", "warmup"]
