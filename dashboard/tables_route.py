"""``GET /_tables/<code>.json?model=…&hw=…&ww=…``: the personal page's public tables.

The same bytes for every visitor of a data set, body model and pair of band widths
(:mod:`dashboard.core.public_tables`) — settings, never a person's answers — so they
are cacheable: an ETag from the data cache's manifest hash and the parameters,
``Cache-Control: public, max-age=…, immutable`` and gzip when the browser accepts it.
Bad parameters get HTTP 400 with a JSON ``{"error": …}`` naming the problem.
"""
from __future__ import annotations

import gzip

from flask import Flask, Response, request

from dashboard.core import memo
from dashboard.core import public_tables as pt
from dashboard.core.errors import InputError

#: A year: a table's URL changes with the data (the page adds ``v=<manifest hash>``).
MAX_AGE = 365 * 24 * 3600


def table_url(code: str, model: str, hw: int, ww: int, sr: bool = False) -> str:
    """Where the page fetches a table (``v`` makes a new data cache a new URL)."""
    return f"/_tables/{code}.json?model={model}&hw={hw}&ww={ww}&sr={int(sr)}&v={pt.manifest_hash()}"


@memo.lru(48, name="dashboard.tables_route:_gzipped")  # bytes count towards the process's budget
def _gzipped(code: str, model: str, hw: int, ww: int, sr: bool, stamp: str) -> bytes:
    return gzip.compress(pt.tables_json(code, model, hw, ww, sr), compresslevel=6, mtime=0)


def _error(message: str, status: int = 400) -> Response:
    import json

    return Response(json.dumps({"error": message}), status=status, mimetype="application/json",
                    headers={"Cache-Control": "no-store"})


def serve_table(code: str):
    import census_loaders as cl

    try:
        code, model, hw, ww, sr = pt.check_params(code, request.args.get("model"), request.args.get("hw"),
                                                  request.args.get("ww"), cl.countries(), request.args.get("sr"))
    except InputError as exc:
        return _error(str(exc))
    tag = pt.etag(code, model, hw, ww, sr)
    headers = {"ETag": tag, "Cache-Control": f"public, max-age={MAX_AGE}, immutable", "Vary": "Accept-Encoding"}
    if tag in [t.strip() for t in request.headers.get("If-None-Match", "").split(",")]:
        return Response(status=304, headers=headers)
    if "gzip" in request.headers.get("Accept-Encoding", "").lower():
        body = _gzipped(code, model, hw, ww, sr, pt._stamp())
        headers["Content-Encoding"] = "gzip"
    else:
        body = pt.tables_json(code, model, hw, ww, sr)
    return Response(body, status=200, mimetype="application/json", headers=headers)


def install(server: Flask) -> None:
    """Attach the route to the Flask server (called once from ``dashboard.app``)."""
    server.add_url_rule("/_tables/<code>.json", "public_tables", serve_table, methods=["GET"])
