"""gunicorn configuration for AnonSet.

    gunicorn -c dashboard/gunicorn_conf.py dashboard.wsgi:server

Settings come from the environment (see ``dashboard/settings.py``):
``ANONSET_BIND`` (default ``127.0.0.1:8050``), ``ANONSET_WORKERS``,
``ANONSET_TIMEOUT``, ``REDIS_URL`` …

* ``preload_app``: the master builds the app (``dashboard.wsgi``: ``create_app`` from the
  environment) and loads every country once (``dashboard.app.warm``) before forking, so workers start instantly and share
  the tables copy-on-write.
* The access log records time, method, path (never the query string, a body,
  the client address, referrer or user agent), status, size and duration.
"""
from __future__ import annotations

import logging
import os
import sys

from gunicorn import glogging

# one core per request: the server's parallelism is its workers and threads, and a BLAS thread pool per
# request (OpenBLAS defaults to every core) would let one seconds-long computation take the whole machine.
# Set before the app (and numpy) is imported; an operator's own setting wins.
for _var in ("OPENBLAS_NUM_THREADS", "OMP_NUM_THREADS", "MKL_NUM_THREADS"):
    os.environ.setdefault(_var, "1")

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))

from dashboard.settings import load as _load_settings  # noqa: E402 - after the BLAS thread defaults

_settings = _load_settings()

bind = [b.strip() for b in _settings.bind.split(",") if b.strip()]
workers = _settings.workers
# gthread: each worker serves ANONSET_THREADS requests at once, so one slow callback does not
# queue the worker's other requests behind it (numpy releases the GIL in its heavy loops)
worker_class = "dashboard.server.gunicorn_worker.SafeThreadWorker"  # gthread, with safe refusals
threads = _settings.threads
preload_app = True
timeout = _settings.timeout          # a worker silent this long is restarted
graceful_timeout = 30                # time to finish in-flight requests on SIGTERM / HUP
# seconds an idle keep-alive connection stays open (gthread workers keep them; sync workers do not).
# Longer than a proxy's upstream keep-alive (nginx: 60 s) and than a person's pause between clicks,
# so the client side closes first: a request racing the server's close would fail with a reset.
keepalive = 75
max_requests = 5000                  # recycle workers now and then (forks from the warm master: cheap)
max_requests_jitter = 500
limit_request_line = 8190
limit_request_fields = 100
forwarded_allow_ips = os.environ.get("FORWARDED_ALLOW_IPS", "127.0.0.1")
proxy_allow_ips = forwarded_allow_ips
# gunicorn ≥ 23's control socket lives at one path per user: several instances on a host would clash
control_socket_disable = True



def escape_control(text: str) -> str:
    """``text`` with control characters (CR, LF, NUL, ESC, DEL …) written as ``\\xNN``.

    A path such as ``/a%0a[forged] "GET /admin" 200`` is decoded by the server before it
    reaches the log; unescaped, its newline would start a forged log line.
    """
    return "".join(c if " " <= c != "\x7f" else f"\\x{ord(c):02x}" for c in text)


class SafeAccessLogger(glogging.Logger):
    """gunicorn's logger, with every text atom of an access-log line escaped (one request, one line)."""

    def atoms(self, resp, req, environ, request_time):
        found = super().atoms(resp, req, environ, request_time)
        return {k: escape_control(v) if isinstance(v, str) else v for k, v in found.items()}


logger_class = SafeAccessLogger
accesslog = os.environ.get("ANONSET_ACCESS_LOG", "-")
errorlog = os.environ.get("ANONSET_ERROR_LOG", "-")
loglevel = os.environ.get("ANONSET_LOG_LEVEL", "info")
# %(U)s is the path only (PATH_INFO); %(r)s and %(q)s would carry the query string
access_log_format = '%(t)s "%(m)s %(U)s" %(s)s %(B)s %(M)sms'


def on_starting(server):
    """Send the app's own log records ("anonset.*") to stderr beside gunicorn's error log."""
    handler = logging.StreamHandler(sys.stderr)
    handler.setFormatter(logging.Formatter("[%(asctime)s] [%(process)d] [%(levelname)s] %(name)s: %(message)s",
                                           "%Y-%m-%d %H:%M:%S %z"))
    root = logging.getLogger("anonset")
    if not root.handlers:
        root.addHandler(handler)
    root.setLevel(logging.INFO)
    root.propagate = False


# The hooks below import the app lazily: this file is read before the app is built (and must set the BLAS
# defaults above before numpy loads); by the time a hook runs, ``preload_app`` has imported dashboard.wsgi.


def when_ready(server):
    """Master, after preloading and before forking: say if the cache backend does not answer; load every country once."""
    from dashboard.server import cache

    problem = cache.check_backend()
    if problem:
        server.log.warning("%s", problem)
    if not _settings.warm:
        return
    from dashboard.app import warm
    from dashboard.wsgi import app

    result = warm(app)
    server.log.info("warm: %d data sets loaded in %.2f s", result["countries"], result["seconds"])


def post_worker_init(worker):
    """Worker, once started: fill the shared cache with each data set's default public table, in the
    background (the first worker per data and code version does it; the others return at once)."""
    if not _settings.warm:
        return
    import threading

    def run():
        from dashboard.server import tables
        from dashboard.wsgi import server as flask_server

        try:
            with flask_server.app_context():
                result = tables.warm_shared()
        except Exception as exc:  # noqa: BLE001 - a failed warm costs only the first visitor's wait
            worker.log.warning("warm tables: failed (%s: %s)", type(exc).__name__, exc)
            return
        if "skipped" not in result:
            worker.log.info("warm tables: %d built, %d already shared, in %.2f s",
                            result["built"], result["present"], result["seconds"])

    threading.Thread(target=run, name="anonset-warm-tables", daemon=True).start()
