"""AnonLand reruns as background jobs: a thread per run, its state in the server-side cache.

* Dash's ``background=True`` callbacks need ``diskcache`` or Celery, and neither is
  installed, so a rerun is a **thread** started by the page's "Run" callback and polled
  by a ``dcc.Interval``.  The thread runs at a lower priority (:data:`RERUN_NICE`) than the requests.
* The job's status, cancel flag and result live in the server-side cache
  (:data:`dashboard.server.cache.cache`: Flask-Caching on a shared folder, or Redis), keyed by a
  random job id — not in process memory — so the poll may reach any gunicorn worker on
  the host (the README deploys four).  Entries expire after :data:`JOB_TIMEOUT` seconds.
* A worker that dies mid-run leaves a status that stops being updated; the poll reports
  it as lost after :data:`STALE_AFTER` seconds instead of spinning forever.
* At most ``settings.max_reruns`` reruns at once **per server** — across its gunicorn workers — (more are
  refused, not queued; ``ANONSET_MAX_RERUNS``).  The slots live beside the shared cache: with the
  folder backend a slot is an exclusive ``flock`` on ``<cache folder>/anonland-slot-<i>.lock``
  (released by the kernel if the worker dies), with Redis an atomic ``SET NX`` key that expires
  after :data:`SLOT_TTL` seconds.
* A cache that cannot be written (a read-only folder, Redis down) is said as such — one line in the
  log, and "the server's cache cannot be written" in the page — never "no longer known".
"""
from __future__ import annotations

import fcntl
import logging
import os
import re
import secrets
import sys
import threading
import time

import pandas as pd
from flask import current_app, has_app_context

from dashboard.core import anonland as core
from dashboard.core.errors import InputError
from dashboard.core.text import N_, current_language, language, local_number, ngettext, translate_marked
from dashboard.core.text import gettext as _
from dashboard.settings import default_max_reruns

from . import cache as cache_module
from .cache import cache

LOG = logging.getLogger("anonset.anonland")

#: Seconds a Redis slot key lives if its worker dies without releasing it.
SLOT_TTL = 300
#: Seconds a job's status and result stay in the cache.
JOB_TIMEOUT = 3600
#: A running job whose status has not changed for this long is reported as lost.
STALE_AFTER = 60.0
#: Niceness steps a rerun's thread takes: the 200-user load test measured reruns at 15 % of the server's CPU, and
#: a visitor's page should not wait behind them (a worker's other threads are not slowed: a rerun's thread gives
#: up the GIL as before, measured in session 16's note).
RERUN_NICE = 10

_JOB_RE = re.compile(r"^[A-Za-z0-9_-]{16,64}$")
CACHE_UNWRITABLE = N_("The server's cache cannot be written, so reruns are unavailable right now "
                      "(the site's operator can see why in the server log).")
#: Columns of a rerun kept in the cache (what the charts need).
_KEEP = ("citizen", "district_class", "ras", "cas", "cas_noisy", "divergence", "divergence_noisy", "noisy_minus_plain")


class _Cancelled(Exception):
    """Raised from the progress hook when the person pressed Cancel."""


def _key(job: str, part: str) -> str:
    return f"anonland-job:{job}:{part}"


def valid_job(job) -> str | None:
    """The job id from the browser's store, or None if it is not one of ours (it becomes a cache key)."""
    job = job.get("job") if isinstance(job, dict) else job
    return job if isinstance(job, str) and _JOB_RE.match(job) else None


def _set_status(job: str, state: str, fraction: float, message: str) -> bool:
    try:
        return bool(cache.set(_key(job, "status"), {"state": state, "fraction": float(fraction), "message": message,
                                                    "updated": time.time()}, timeout=JOB_TIMEOUT))
    except Exception as exc:  # noqa: BLE001 - e.g. Redis down: one line, no traceback
        LOG.warning("anonland: cache write failed (%s)", type(exc).__name__)
        return False


def max_running() -> int:
    """Reruns the server runs at the same time, all workers together (more are refused, not queued): the
    settings' ``max_reruns`` (default half the cores), also before the app has installed its settings."""
    return int(getattr(cache_module.SETTINGS, "max_reruns", 0) or default_max_reruns())


class _Slot:
    """One of the server's rerun slots, held until :meth:`release`."""

    def __init__(self, kind: str, handle, key=None):
        self.kind, self.handle, self.key = kind, handle, key

    def release(self) -> None:
        try:
            if self.kind == "file":
                fcntl.flock(self.handle, fcntl.LOCK_UN)
                self.handle.close()
            elif cache.get(self.key) == self.handle:
                cache.delete(self.key)
        except Exception as exc:  # noqa: BLE001
            LOG.warning("anonland: releasing a rerun slot failed (%s)", type(exc).__name__)


def acquire_slot(pool: str = "anonland", n: int | None = None) -> _Slot | None:
    """A free slot of the server's ``pool`` (None when all ``n`` are taken; default: the rerun pool of
    :func:`max_running` slots); CacheFault when the cache cannot be written."""
    settings = cache_module.SETTINGS
    n = max_running() if n is None else int(n)
    if settings is not None and settings.cache_type == "RedisCache":
        token = secrets.token_hex(8)
        for i in range(n):
            key = f"{pool}-slot:{i}"
            try:
                if cache.add(key, token, timeout=SLOT_TTL):  # SET NX EX: atomic across workers and hosts
                    return _Slot("redis", token, key)
            except Exception as exc:  # noqa: BLE001
                raise cache_module.CacheFault(type(exc).__name__) from None
        return None
    folder = cache_module.folder()
    for i in range(n):
        try:
            os.makedirs(folder, mode=0o700, exist_ok=True)
            handle = open(os.path.join(folder, f"{pool}-slot-{i}.lock"), "a")  # noqa: SIM115 - held while running
        except OSError as exc:
            raise cache_module.CacheFault(type(exc).__name__) from None
        try:
            fcntl.flock(handle, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except OSError:
            handle.close()
            continue
        return _Slot("file", handle)
    return None


_STATES = ("running", "done", "cancelled", "error")


def _valid_status(status) -> bool:
    """A status as :func:`_set_status` writes it (anything else in the cache is an unknown job)."""
    return (isinstance(status, dict) and status.get("state") in _STATES
            and type(status.get("fraction")) in (int, float) and isinstance(status.get("message"), str)
            and type(status.get("updated", 0)) in (int, float))


def job_status(job: str) -> dict | None:
    """``{"state": running|done|cancelled|error|lost, "fraction", "message"}``, or None for an unknown job."""
    status = cache.get(_key(job, "status"))
    if not _valid_status(status):
        return None
    if status["state"] == "running" and time.time() - status.get("updated", 0) > STALE_AFTER:
        return {**status, "state": "lost", "message": _("The run stopped answering (the server may have restarted).")}
    return status


def job_result(job: str) -> tuple[pd.DataFrame, dict] | None:
    """The finished rerun's citizens and summary (None once expired)."""
    stored = cache.get(_key(job, "result"))
    if not (isinstance(stored, dict) and isinstance(stored.get("citizens"), pd.DataFrame)
            and isinstance(stored.get("summary"), dict)):
        return None
    return stored["citizens"], stored["summary"]


def request_cancel(job: str) -> None:
    cache.set(_key(job, "cancel"), True, timeout=JOB_TIMEOUT)


def lower_this_threads_priority(by: int = RERUN_NICE) -> None:
    """Make the calling thread ``by`` steps nicer (Linux schedules threads one by one), so the CPU serves the
    worker's visitors first and a rerun the time left over.  Nothing elsewhere: there ``PRIO_PROCESS`` with a
    thread id would name a process."""
    if not sys.platform.startswith("linux"):
        return
    tid = threading.get_native_id()
    try:
        os.setpriority(os.PRIO_PROCESS, tid, min(19, os.getpriority(os.PRIO_PROCESS, tid) + by))
    except OSError:  # a sandbox may refuse; the rerun then runs at the worker's priority
        pass


def _run_job(job: str, cfg: core.AnonLandConfig, slot: _Slot, lang: str = "en") -> None:
    """The thread body: run AnonLand, reporting progress (and honouring Cancel) through the cache, in ``lang``
    (the language of the page that started it: a thread does not inherit the request's), at a lower priority
    than the worker's request threads."""
    lower_this_threads_priority()
    with language(lang):
        _run_job_here(job, cfg, slot)


def _run_job_here(job: str, cfg: core.AnonLandConfig, slot: _Slot) -> None:
    last = [0.0]

    def progress(fraction: float, message: str) -> None:
        now = time.monotonic()
        if now - last[0] < 0.15 and fraction < 1.0:
            return
        last[0] = now
        if cache.get(_key(job, "cancel")):
            raise _Cancelled
        _set_status(job, "running", fraction, message)

    try:
        result = core.run_anonland(cfg, progress)
        citizens = result.citizens.loc[:, list(_KEEP)].copy()
        cache.set(_key(job, "result"), {"citizens": citizens, "summary": result.summary}, timeout=JOB_TIMEOUT)
        run = result.summary["run"]
        _set_status(job, "done", 1.0, _("Done: {people} people and {citizens} test citizens in {seconds} s.").format(
            people=local_number(f"{cfg.population:,}"), citizens=local_number(f"{cfg.n_citizens:,}"),
            seconds=local_number(f"{run['runtime_seconds']:.2f}")))
    except _Cancelled:
        _set_status(job, "cancelled", 0.0, _("Cancelled."))
    except Exception as exc:  # noqa: BLE001 - never a traceback in the page or the log
        LOG.error("anonland rerun failed: %s", type(exc).__name__)
        _set_status(job, "error", 0.0, _("Sorry — this rerun failed. Please try other parameters."))
    finally:
        slot.release()


def _with_app_context(target):
    """``target`` run inside the current Flask app's context, so a job thread uses that app's cache backend."""
    if not has_app_context():
        return target
    app = current_app._get_current_object()  # the app itself, not the proxy (Flask's documented way)

    def run(*args):
        with app.app_context():
            target(*args)

    return run


def start_job(cfg: core.AnonLandConfig) -> str:
    """Start a rerun in a daemon thread and return its job id; refuses when the server is busy.

    InputError (shown in the page) when every slot of the server is taken or the cache cannot be written.
    """
    try:
        slot = acquire_slot()
    except cache_module.CacheFault as exc:
        LOG.warning("anonland: the cache (%s) cannot be written (%s); rerun refused", cache_module.describe(), exc)
        raise InputError(translate_marked(CACHE_UNWRITABLE)) from None
    if slot is None:
        n = max_running()
        raise InputError(ngettext("{count} rerun is already running on this server (its limit for all visitors "
                                  "together); please try again in a moment.",
                                  "{count} reruns are already running on this server (its limit for all visitors "
                                  "together); please try again in a moment.", n).format(count=local_number(f"{n:,}")))
    job = secrets.token_urlsafe(18)
    try:
        if not _set_status(job, "running", 0.0, _("Starting…")):
            LOG.warning("anonland: the cache (%s) cannot be written; rerun refused", cache_module.describe())
            raise InputError(translate_marked(CACHE_UNWRITABLE))
        threading.Thread(target=_with_app_context(_run_job), args=(job, cfg, slot, current_language()), name=f"anonland-{job[:6]}", daemon=True).start()
    except Exception:
        slot.release()
        raise
    return job
