"""The WSGI entry point: this process's one app, built by :func:`dashboard.app.create_app` from the environment.

    gunicorn -c dashboard/gunicorn_conf.py dashboard.wsgi:server

Importing this module builds the app (that is its only job); every other module builds
nothing at import.  ``settings`` are the ones it was built with, ``app`` the Dash app and
``server`` its Flask server (the WSGI callable).
"""
from __future__ import annotations

from dashboard.app import create_app
from dashboard.settings import load

settings = load()
app = create_app(settings)
server = app.server

__all__ = ["app", "server", "settings"]
