"""The server-side cache (Flask-Caching), created here and attached by the app with :func:`init_app`.

Holds NON-personal data only: AnonLand rerun jobs (:mod:`dashboard.server.jobs`), their slots,
the public tables and the health probe.  Never memoise a function of a person's attributes.  The
backend comes from the settings: a shared folder (``FileSystemCache``) or Redis, so every gunicorn
worker on the host sees the same entries.  Values are never pickled: the backends
(:mod:`dashboard.server.backends`) write JSON or raw bytes (:mod:`dashboard.server.serialize`), and
the folder is private to the server's user (:mod:`dashboard.server.cache_folder`: created 0700,
refused at start when another user owns it or others may write to it).

Faults are reported honestly and briefly: :func:`check_backend` says at start-up when the
backend does not answer (gunicorn's ``when_ready`` logs it), and a failed write of the
folder backend is logged as one line (cachelib logs a full traceback per failed write, also while
the backend is created on a read-only folder; :class:`OneLineCacheFaults`, installed first, strips it).
"""
from __future__ import annotations

import logging
from urllib.parse import urlparse

from flask import Flask
from flask_caching import Cache

from dashboard.settings import default_cache_dir

from . import cache_folder

cache = Cache()
#: The settings the cache was attached with (None before :func:`init_app`).
SETTINGS = None
#: Seconds a Redis connection attempt or command may take before it counts as failed.
REDIS_TIMEOUT_S = 2.0


class CacheFault(Exception):
    """The server-side cache cannot be written or reached; the message says which, in one line."""


class OneLineCacheFaults(logging.Filter):
    """cachelib's failed-write warnings (on the root logger, with ``exc_info``) become one line without a traceback."""

    def filter(self, record: logging.LogRecord) -> bool:
        if record.exc_info and "cachelib" in (record.pathname or ""):
            exc = record.exc_info[1]
            # cachelib's message names the cache file (an internal path): the operation and the error class only
            what = "a cache file could not be written or read" if "cache file" in str(record.msg) else record.getMessage()
            record.msg = "%s (%s)" % (what, type(exc).__name__ if exc else "error")
            record.args = None
            record.exc_info = None
            record.exc_text = None
        return True


def init_app(server: Flask, settings) -> Cache:
    """Attach :data:`cache` to the Flask ``server`` with the backend ``settings`` describe.

    The folder backend's folder is made private first (:func:`cache_folder.prepare`: UnsafeCacheFolder, one
    line, when it is not).
    """
    global SETTINGS
    root = logging.getLogger()
    if not any(isinstance(f, OneLineCacheFaults) for f in root.filters):
        root.addFilter(OneLineCacheFaults())  # before the backend exists: it writes while it is created
    config = settings.cache_config()
    if settings.cache_type == "RedisCache":
        config["CACHE_OPTIONS"] = {"socket_connect_timeout": REDIS_TIMEOUT_S, "socket_timeout": REDIS_TIMEOUT_S}
    else:
        cache_folder.prepare(settings.cache_dir)
    SETTINGS = settings
    cache.init_app(server, config=config)
    return cache


def describe() -> str:
    """The backend in words, without secrets (a Redis URL's password is never shown)."""
    if SETTINGS is None:
        return "no cache"
    if SETTINGS.cache_type == "RedisCache":
        u = urlparse(SETTINGS.redis_url or "")
        return f"Redis at {u.hostname or '?'}:{u.port or 6379}"
    return f"the folder {SETTINGS.cache_dir}"


def check_backend() -> str | None:
    """None when the cache answers a write and a read; otherwise a one-line warning for the log."""
    try:
        ok = cache.set("startup-probe", 1, timeout=60) and cache.get("startup-probe") == 1
    except Exception as exc:  # noqa: BLE001 - e.g. Redis refuses the connection
        return (f"the cache backend ({describe()}) does not answer ({type(exc).__name__}): AnonLand reruns and "
                "/healthz will fail until it does")
    if not ok:
        return (f"the cache backend ({describe()}) cannot be written: AnonLand reruns and /healthz will fail "
                "until it can")
    return None


def folder() -> str:
    """The folder backend's directory (also where the rerun slots' lock files live)."""
    if SETTINGS is not None:
        return SETTINGS.cache_dir
    return default_cache_dir()
