"""Before and after each request: the callback body's checks, the response cache, the time budget, 404s.

* A callback body the renderer could not have sent is refused with 400 (or 413 when too large)
  before Dash parses it, without a traceback; an input of a type the page cannot send is named
  in the answer (:mod:`.input_types`).
* The non-personal pages' answers (:data:`CACHEABLE_PAGES`) are kept, keyed by the body's hash,
  and a repeated body is answered from them.
* A callback over :data:`~dashboard.server.limits.CALLBACK_BUDGET_S` is logged (ids, never values).
* An index-page request for a path that is no page gets status 404 (the shell still renders
  its friendly "page not found" layout).
"""
from __future__ import annotations

import hashlib
import logging
import time
from urllib.parse import parse_qs

import dash
from flask import Flask, Response, g, request
from werkzeug.exceptions import HTTPException

from dashboard.core import memo
from dashboard.core.text import current_language

from . import limits
from .errors import CALLBACK_PATH, known_output
from .input_types import wrong_type

LOG = logging.getLogger("anonset.app")

ROUTER_OUTPUT = ".._pages_content.children..._pages_store.data.."  # the page router's callback
#: Deepest JSON nesting a callback body may have (the renderer's bodies are < 15 deep; figures ~10).
MAX_JSON_DEPTH = 64
#: Pages whose callbacks answer from the request body alone, with nothing personal in it: their
#: serialised answers are kept (keyed by the body's hash) and repeated requests served from them.
#: NEVER the personal page ("me-…": a person's attributes), the page router (its query may carry them)
#: or AnonLand (a job's state lives in the shared cache, not in the body).
#: (The data-set page analyses uploaded records: never.)  "attack": the answer is a function of the
#: parameters and the seed in the body; "buckets": of the country, k and coverage.
CACHEABLE_PAGES = ("explore", "scaling", "buckets", "attack")
#: Paths whose layout (the page router's answer, a function of the path and query only) is kept too.
CACHEABLE_ROUTES = ("/explore", "/scaling", "/about", "/explore/buckets", "/attack", "/real-people", "/explore/world",
                    "/anonland", "/dataset")
#: The personal page's layout is kept only for a link whose query holds nothing but these (``district=`` is one of
#: a person's answers; any other key may be one typed by hand).
PUBLIC_PERSONAL_QUERY = frozenset({"country", "lang", "presenter"})
#: The personal page's inputs that are no answer of a person (a country is the page's public setting, in its link):
#: a callback whose every input and state is one of these (``on_country``: districts, presets, map) is kept too.
PUBLIC_PERSONAL_INPUTS = frozenset({"me-country"})
#: The largest answer kept in the response cache.
MAX_CACHED_RESPONSE = 2 * 1024 * 1024
#: The kept answers, ``sha256(body) → (status, payload)``: one per process, shared by its apps (an
#: answer is a function of the body and the code alone).
RESPONSES = memo.Memo(4096, name="dashboard.server.responses")


def too_deep(value, limit: int = MAX_JSON_DEPTH) -> bool:
    """True when ``value`` nests deeper than ``limit`` (iterative: no recursion to overflow)."""
    stack = [(value, 1)]
    while stack:
        v, depth = stack.pop()
        if depth > limit:
            return True
        if isinstance(v, dict):
            stack.extend((x, depth + 1) for x in v.values() if isinstance(x, (dict, list)))
        elif isinstance(v, list):
            stack.extend((x, depth + 1) for x in v if isinstance(x, (dict, list)))
    return False


def _malformed(reason: str, message: str = ""):
    LOG.warning("malformed callback request (%s)", reason)
    return {"error": "malformed callback request" + (f": {message}" if message else "")}, 400


def _shipped_anonland_view(body: dict) -> bool:
    """AnonLand's result view of the *shipped* run (not a rerun: a job's result lives in the shared cache)."""
    if "anonland-box.figure" not in str(body.get("output")):
        return False
    view = next((i.get("value") for i in body.get("inputs") or [] if isinstance(i, dict) and i.get("id") == "anonland-view"),
                None)
    return isinstance(view, dict) and view.get("source") == "full" and set(view) == {"source"}


def _public_personal(body: dict) -> bool:
    """A personal-page callback that reads nothing but :data:`PUBLIC_PERSONAL_INPUTS`."""
    inputs = body.get("inputs")
    state = body.get("state", [])
    if not isinstance(inputs, list) or not inputs or not isinstance(state, list):
        return False
    return all(isinstance(i, dict) and i.get("id") in PUBLIC_PERSONAL_INPUTS for i in [*inputs, *state])


def cacheable(body: dict) -> bool:
    """True when the callback ``body`` asks for a non-personal answer that may be kept and repeated."""
    if _shipped_anonland_view(body):
        return True
    if body.get("output") == ROUTER_OUTPUT:
        inputs = body.get("inputs") or []
        path = next((i.get("value") for i in inputs if isinstance(i, dict) and i.get("property") == "pathname"), None)
        if path == "/":
            search = next((i.get("value") for i in inputs if isinstance(i, dict) and i.get("property") == "search"), "")
            return isinstance(search, str) and set(parse_qs(search.lstrip("?"), keep_blank_values=True)) <= PUBLIC_PERSONAL_QUERY
        return isinstance(path, str) and path.rstrip("/") in CACHEABLE_ROUTES
    if _public_personal(body):
        return True
    outputs = body.get("outputs")
    outputs = outputs if isinstance(outputs, list) else [outputs]
    ids_ = [o.get("id") for o in outputs if isinstance(o, dict)]
    return bool(ids_) and len(ids_) == len(outputs) and all(
        isinstance(i, str) and i.split("-", 1)[0] in CACHEABLE_PAGES for i in ids_)


def check_callback_request(app: dash.Dash, settings):
    """Before a callback runs: a body the renderer could have sent, parsed once, or 400 without a traceback.

    Then, for the non-personal pages (:data:`CACHEABLE_PAGES`), a repeated body is answered from
    the response cache.
    """
    g.t0 = time.perf_counter()
    if request.path != CALLBACK_PATH or request.method != "POST":
        return None
    if request.content_length is not None and request.content_length > settings.max_body_bytes:
        LOG.warning("callback request too large (%d bytes)", request.content_length)
        return {"error": "request too large"}, 413
    try:
        raw = request.get_data(cache=True)
        if request.content_length is None and len(raw) >= settings.max_body_bytes:
            # a chunked body is read up to the limit and cut there (werkzeug's LimitedStream): too large
            LOG.warning("callback request too large (chunked)")
            return {"error": "request too large"}, 413
        body = request.get_json(force=True, silent=False)
    except RecursionError:
        return _malformed("JSON nested too deeply")
    except HTTPException as exc:
        if exc.code == 413:
            LOG.warning("callback request too large")
            return {"error": "request too large"}, 413
        return _malformed("not JSON")
    except (ValueError, UnicodeDecodeError):
        return _malformed("not JSON")
    if too_deep(body):
        return _malformed("JSON nested too deeply")
    if not isinstance(body, dict) or not isinstance(body.get("output"), str) or body["output"] not in app.callback_map:
        return _malformed("unknown callback")
    if not isinstance(body.get("inputs"), list) or "outputs" not in body:
        return _malformed("no inputs or outputs")
    typed = wrong_type(body)
    if typed is not None:  # the property name only in the log: the id came with the request
        return _malformed(f"wrong type for {typed[0]}", typed[1])
    g.callback_body = body
    if settings.response_cache and cacheable(body):
        # the answer holds words: its key holds the language they are written in
        g.response_key = hashlib.sha256(current_language().encode() + b"\0" + raw).digest()
        hit = RESPONSES.peek(g.response_key)
        if hit is not None:
            status, payload = hit
            g.response_hit = True
            return Response(payload, status=status, mimetype="application/json")
    return None


def after_request(app: dash.Dash, response: Response) -> Response:
    """Keep cacheable answers, log callbacks over their time budget, 404 for unknown pages."""
    if request.path == CALLBACK_PATH and request.method == "POST":
        key = g.get("response_key")
        if key is not None and not g.get("response_hit") and response.status_code in (200, 204):
            payload = response.get_data()
            if len(payload) <= MAX_CACHED_RESPONSE:
                RESPONSES.put(key, (response.status_code, payload))
        elapsed = time.perf_counter() - g.get("t0", time.perf_counter())
        if elapsed > limits.CALLBACK_BUDGET_S:
            LOG.warning("callback %s took %.1f s (budget %g s)", known_output(app), elapsed, limits.CALLBACK_BUDGET_S)
    elif request.method in ("GET", "HEAD") and response.status_code == 200 and is_unknown_page(app):
        response.status_code = 404  # the shell still renders the friendly "page not found" layout
    return response


def is_unknown_page(app: dash.Dash) -> bool:
    """True for an index-page request (Dash serves the shell for any path) whose path is no registered page."""
    rule = request.url_rule.rule if request.url_rule is not None else None
    if rule not in ("/", "/<path:path>"):
        return False
    path = app.strip_relative_path(request.path) or ""
    for page in dash.page_registry.values():
        if page.get("module", "").split(".")[-1] == "not_found_404":
            continue
        template = page.get("path_template")
        if template:
            t_parts, p_parts = template.strip("/").split("/"), path.split("/")
            if len(t_parts) == len(p_parts) and all(a.startswith("<") or a == b for a, b in zip(t_parts, p_parts)):
                return False
        if path == page["path"].strip("/"):
            return False
    return True


def install(app: dash.Dash, server: Flask, settings) -> None:
    """Attach the request hooks to ``server`` (after :func:`dashboard.server.headers.install`)."""
    server.before_request(lambda: check_callback_request(app, settings))
    server.after_request(lambda response: after_request(app, response))
