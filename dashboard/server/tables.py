"""``GET /_tables/<code>.json?model=…&hw=…&ww=…``: the personal page's public tables.

The same bytes for every visitor of a data set, body model and pair of band widths
(:mod:`dashboard.core.personal`) — settings, never a person's answers — so they
are cacheable: an ETag from the data cache's manifest hash and the parameters,
``Cache-Control: public, max-age=…, immutable`` and gzip when the browser accepts it.
Bad parameters get HTTP 400 with a JSON ``{"error": …}`` naming the problem.
A cold build takes one of the server's heavy slots (:func:`dashboard.server.limits.heavy_slot`); when they
are busy the answer is 503 with ``Retry-After`` and the command that computes the same locally.

A table is built once per host, not once per worker: the gzipped bytes go to the shared
server cache (:mod:`dashboard.server.cache`, keyed on the ETag, which changes with the data and the
code), so the other gunicorn workers serve them without building (a cold US v2 table takes
~0.3 s).  A cache that does not answer only costs that build: the table is still served.
:func:`warm_shared` fills the shared cache with every data set's default table once per data
and code version (one gunicorn worker does it in the background after start, ~5 s of CPU), so
no visitor waits for a cold build of what the page opens with.
"""
from __future__ import annotations

import gzip
import json
import logging
import os
import time

from flask import Flask, Response, request

import census_loaders as cl
from dashboard.core import memo
from dashboard.core.errors import InputError
from dashboard.core.parsing import DEFAULT_WIDTH
from dashboard.core.personal import check_params, default_model, etag, table_bytes, tables_version

from . import limits
from .cache import cache

#: A year: a table's URL changes with the data and the code (the page adds ``v=<tables version>``).
MAX_AGE = 365 * 24 * 3600


def table_url(code: str, model: str, hw: int, ww: int, sr: bool = False) -> str:
    """Where the page fetches a table (``v`` makes a new data cache a new URL)."""
    return f"/_tables/{code}.json?model={model}&hw={hw}&ww={ww}&sr={int(sr)}&v={tables_version()}"


#: Seconds a table stays in the shared cache (its key changes with the data and the code anyway).
SHARED_TIMEOUT = 7 * 24 * 3600
log = logging.getLogger(__name__)


@memo.lru(48, name="dashboard.server.tables:_gzipped")  # bytes count towards the process's budget
def _gzipped(code: str, model: str, hw: int, ww: int, sr: bool, tag: str) -> bytes:
    key = _shared_key(tag)
    body = _shared_get(key)
    if body is None:
        # a cold build costs up to ~1 s of CPU: one of the server's table slots, waited for a few seconds
        # (limits.CostError when still busy: 503 with Retry-After, which the page waits out)
        with limits.heavy_slot("This table", f"anonset cas --country {code}", wait_s=limits.TABLE_WAIT_S,
                               pool=limits.TABLE_POOL):
            body = _shared_get(key)  # another worker may have built it while this one waited
            if body is None:
                body = _compress(table_bytes(code, model, hw, ww, sr))  # the raw JSON is not kept beside it
                _shared_set(key, body)
    return body


def warm_order() -> list[str]:
    """Every data set, census ones first (most visits), then the ~140 national UN estimates (~1 s each).

    All are warmed, so no visit waits for a table build through the one heavy slot a deployment
    shares (the load test through the balancer saw 503s for cold national tables).
    """
    everything = cl.countries()
    national = {c for c in everything if cl.dataset_info(c).get("national_model")}
    return [c for c in everything if c not in national] + [c for c in everything if c in national]


#: The longest a warm holds its lock: a worker killed while warming leaves it behind until then
#: (a warm takes about a minute on 2 quiet cores; meanwhile visitors build the tables they ask for).
WARM_LOCK_S = 600


def warm_shared(codes=None) -> dict:
    """Put each data set's default table (default model and widths) in the shared cache, unless there.

    While one caller warms (a lock in the shared cache), the others return at once, so every worker
    may call it.  The lock is released when the warm ends: a later server on the same cache only
    checks that each table is there.  Builds without the in-process memos: the warming worker stays small.
    """
    t0 = time.perf_counter()
    lock = f"tables-warm:{tables_version()}"
    try:
        if not cache.add(lock, os.getpid(), timeout=WARM_LOCK_S):
            return {"skipped": "another worker warms the tables"}
    except Exception as exc:  # noqa: BLE001
        return {"skipped": f"the shared cache does not answer ({type(exc).__name__})"}
    model, width, built, present = default_model(), DEFAULT_WIDTH, 0, 0
    try:
        for code in warm_order() if codes is None else codes:
            key = _shared_key(etag(code, model, width, width))
            if _shared_get(key) is not None:
                present += 1
                continue
            _shared_set(key, _compress(table_bytes(code, model, width, width)))
            built += 1
    finally:
        try:
            cache.delete(lock)
        except Exception:  # noqa: BLE001 - the lock then expires on its own
            pass
    return {"built": built, "present": present, "seconds": round(time.perf_counter() - t0, 2)}


def _shared_key(tag: str) -> str:
    return "tables:" + tag.strip('"')


def _compress(raw: bytes) -> bytes:
    return gzip.compress(raw, compresslevel=6, mtime=0)  # mtime 0: the same bytes in every worker


def _shared_get(key: str) -> bytes | None:
    try:
        body = cache.get(key)
    except Exception as exc:  # noqa: BLE001 - e.g. Redis refuses the connection: build it here instead
        log.warning("shared cache unavailable for a public table (%s): building it in this worker", type(exc).__name__)
        return None
    return body if isinstance(body, bytes) else None


def _shared_set(key: str, body: bytes) -> None:
    try:
        cache.set(key, body, timeout=SHARED_TIMEOUT)
    except Exception as exc:  # noqa: BLE001
        log.warning("shared cache unavailable for a public table (%s): not shared with other workers",
                    type(exc).__name__)


def _error(message: str, status: int = 400) -> Response:
    return Response(json.dumps({"error": message}), status=status, mimetype="application/json",
                    headers={"Cache-Control": "no-store"})


def serve_table(code: str):
    try:
        code, model, hw, ww, sr = check_params(code, request.args.get("model"), request.args.get("hw"),
                                                  request.args.get("ww"), cl.countries(), request.args.get("sr"))
    except InputError as exc:
        return _error(str(exc))
    tag = etag(code, model, hw, ww, sr)
    headers = {"ETag": tag, "Cache-Control": f"public, max-age={MAX_AGE}, immutable", "Vary": "Accept-Encoding"}
    if tag in [t.strip() for t in request.headers.get("If-None-Match", "").split(",")]:
        return Response(status=304, headers=headers)
    try:
        body = _gzipped(code, model, hw, ww, sr, tag)
    except limits.CostError as exc:
        response = _error(str(exc), status=503)
        response.headers["Retry-After"] = "5"
        return response
    if "gzip" in request.headers.get("Accept-Encoding", "").lower():
        headers["Content-Encoding"] = "gzip"
    else:
        body = gzip.decompress(body)  # one build path: the gzipped bytes, shared by the workers
    return Response(body, status=200, mimetype="application/json", headers=headers)


def install(server: Flask) -> None:
    """Attach the route to the Flask server (by :func:`dashboard.server.install`)."""
    server.add_url_rule("/_tables/<code>.json", "public_tables", serve_table, methods=["GET"])
