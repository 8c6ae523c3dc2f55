"""The server-side cache (Flask-Caching), created here and attached by the app with :func:`init_app`.

Holds NON-personal data only: AnonLand rerun jobs (:mod:`dashboard.jobs`) and the health
probe.  Never memoise a function of a person's attributes.  The backend comes from the
settings: a shared folder (``FileSystemCache``) or Redis, so every gunicorn worker on the
host sees the same entries.
"""
from __future__ import annotations

from flask import Flask
from flask_caching import Cache

cache = Cache()


def init_app(server: Flask, settings) -> Cache:
    """Attach :data:`cache` to the Flask ``server`` with the backend ``settings`` describe."""
    cache.init_app(server, config=settings.cache_config())
    return cache
