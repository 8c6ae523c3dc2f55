"""``GET /healthz``: liveness for a load balancer."""
from __future__ import annotations

import logging

from flask import Flask

import census_loaders

from .cache import cache

LOG = logging.getLogger("anonset.app")


def healthz(settings):
    """The data cache is readable and the Flask cache answers (503 with the reason otherwise)."""
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
        return {"status": "cache unavailable", "cache": settings.cache_type, "datasets": n}, 503
    return {"status": "ok", "datasets": n, "cache": settings.cache_type}


def install(server: Flask, settings) -> None:
    server.add_url_rule("/healthz", "healthz", lambda: healthz(settings), methods=["GET"])
