"""Error handling: a callback that raises, and any other exception a request meets.

Privacy: a callback that raises is answered with "no update" (204) and logged by exception
*class* only — never its message or the request, which may hold a person's answers.  No
response and no log line carries a traceback.
"""
from __future__ import annotations

import logging
import re
import traceback

import dash
from dash import html
from dash.exceptions import DependencyException, PreventUpdate
from flask import Flask, g, request
from werkzeug.exceptions import HTTPException

LOG = logging.getLogger("anonset.app")

CALLBACK_PATH = "/_dash-update-component"
PAGES_CONTENT = "_pages_content"  # dash.page_container's content div

#: Functions of Dash's request parsing: an exception raised in them (and not in a callback) means
#: a body the renderer would not send.
REQUEST_PARSING = frozenset({
    "_initialize_context", "_prepare_callback", "_inputs_to_vals", "inputs_to_vals", "inputs_to_dict",
    "split_callback_id", "update_args_group", "_prepare_grouping", "map_grouping", "get_json"})


def callback_error(err: Exception):
    """Dash's global ``on_error``: an exception inside any callback becomes "no update".

    Logs the exception class and the callback's output ids (component ids, not
    values).  The page router gets a short message instead of a blank page.
    """
    outputs = []
    try:
        outs = dash.callback_context.outputs_list
        outs = outs if isinstance(outs, list) else [outs]
        outputs = [f"{o.get('id')}.{str(o.get('property')).split('@')[0]}" for o in outs if isinstance(o, dict)]
    except Exception:  # noqa: BLE001 - logging must not fail
        outputs = []
    LOG.error("callback raised %s (outputs %s)", type(err).__name__, ",".join(outputs)[:300] or "?")
    if outputs and outputs[0].startswith(PAGES_CONTENT + "."):
        return [
            html.Div(
                [html.H1("Sorry — this page could not be shown"),
                 html.P("Please check the link, or start again from the navigation bar.")],
                className="error", role="alert",
            ),
            dash.no_update,
        ]
    raise PreventUpdate  # no update for any output: HTTP 204, the page keeps what it shows


def known_output(app: dash.Dash) -> str:
    """The callback's output spec if it is one of ``app``'s (component ids, never values), else "?"."""
    body = g.get("callback_body")
    output = body.get("output") if isinstance(body, dict) else None
    if isinstance(output, str) and output in app.callback_map:
        return re.sub(r"@[0-9a-f]+", "", output)[:300]
    return "?"


def malformed_request(app: dash.Dash, exc: Exception) -> bool:
    """True when the request is not one the Dash renderer sends (or failed to parse before any callback ran).

    Reads the body the request hook parsed (``g.callback_body``) — never ``get_json`` here, inside
    the error handler, where a body that cannot be parsed would raise again.
    """
    body = g.get("callback_body")
    if not isinstance(body, dict) or body.get("output") not in app.callback_map:
        return True
    if not isinstance(body.get("inputs"), list) or "outputs" not in body:
        return True
    names = {frame.name for frame in traceback.extract_tb(exc.__traceback__)}
    return bool(names & REQUEST_PARSING) and "_invoke_callback" not in names


def unexpected_error(app: dash.Dash, exc: Exception):
    """No traceback in a response or the log: the class name only (values may be personal)."""
    if isinstance(exc, HTTPException):
        return exc
    if isinstance(exc, DependencyException):  # /_dash-component-suites/<unknown package or file>
        return {"error": "not found"}, 404
    if request.path == CALLBACK_PATH:
        if malformed_request(app, exc):
            LOG.warning("malformed callback request (%s)", type(exc).__name__)
            return {"error": "malformed callback request"}, 400
        LOG.error("callback failed with %s (output %s)", type(exc).__name__, known_output(app))
        return "", 204
    rule = request.url_rule.rule if request.url_rule is not None else "?"
    LOG.error("%s %s failed with %s", request.method, rule, type(exc).__name__)
    return {"error": "internal error"}, 500


def install(app: dash.Dash, server: Flask) -> None:
    """Answer every exception of ``server`` with :func:`unexpected_error` (Dash's ``on_error`` is set by the app)."""
    server.register_error_handler(Exception, lambda exc: unexpected_error(app, exc))
