"""Warm-up: load every data set once and set the app up, before gunicorn forks its workers."""
from __future__ import annotations

import time
from collections.abc import Callable, Iterable

import dash

import census_loaders as cl
from dashboard.core import memo
from dashboard.core.country import load_country_model


def warm(app: dash.Dash, warmers: Iterable[Callable[[], None]] = ()) -> dict:
    """Load every country once (population, body model, boundaries), run ``warmers``, and set ``app`` up.

    gunicorn runs this in the master before forking (``preload_app``), so the workers share the
    loaded tables.  ``warmers`` precompute what every visit opens with (the app passes each page's
    view warm-up: this package sits below the views and does not import them).
    Returns ``{"countries": n, "seconds": s}``.
    """
    t0 = time.perf_counter()
    codes = cl.countries()
    with memo.pinned():  # what every visit opens with stays, outside the workers' memo budget
        for code in codes:
            load_country_model(code)
            cl.boundaries(code)
            cl.auxiliary_tables(code)
        for warmer in warmers:
            warmer()
    with app.server.test_client() as client:  # builds callbacks, routes and the index once, pre-fork
        for path in ("/", "/_dash-layout", "/_dash-dependencies"):
            client.get(path)
    return {"countries": len(codes), "seconds": round(time.perf_counter() - t0, 2)}
