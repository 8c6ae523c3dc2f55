"""The visitor's language, per request (issue 31): never a process-wide switch.

* An index page: ``?lang=xx`` wins, else the browser's ``Accept-Language`` (werkzeug parses it; a malformed
  header is ignored), else English.  A page that is not translated yet
  (:data:`dashboard.core.text.TRANSLATED_PATHS`) is English, shell included.  The page's ``<html lang>``
  says the language shown and ``data-asked`` the one asked for.
* A callback or the layout: the page's language comes with the request, in the headers ``assets/shell/lang.js``
  adds to the renderer's requests (the server sends ``Referrer-Policy: no-referrer``, and a cookie would mix two
  tabs in two languages); a request without them is English.

The language is set in :mod:`dashboard.core.text`'s context variable for the request and reset after it.
"""
from __future__ import annotations

import dash
from flask import Flask, g, request

from dashboard.core import text

#: The header carrying the language a page is shown in, and the one the visitor asked for.
SHOWN_HEADER = "X-AnonSet-Lang"
ASKED_HEADER = "X-AnonSet-Asked"
#: Requests the renderer makes on behalf of a page.
RENDERER_PATHS = ("/_dash-update-component", "/_dash-layout")


def browser_language() -> str:
    """The browser's choice (``Accept-Language``), English when it names none AnonSet speaks or is malformed."""
    try:
        preferred = [lang for lang, _q in request.accept_languages]
    except Exception:  # noqa: BLE001 - a header werkzeug cannot read is no header
        preferred = []
    return text.negotiate(preferred)


def asked_language() -> str:
    """``?lang=`` when AnonSet speaks it, else the browser's language."""
    return text.known_language(request.args.get("lang")) or browser_language()


def carried(asked: str) -> str | None:
    """The language links carry: none when English is asked of an English browser (links stay as they were)."""
    return None if asked == text.DEFAULT_LANGUAGE and browser_language() == text.DEFAULT_LANGUAGE else asked


#: The page router's callback (its answer is a page's layout) and the path it is asked for.
ROUTER_OUTPUT = ".._pages_content.children..._pages_store.data.."


def routed_path() -> str | None:
    """The path a page-router request asks a layout for (None for any other request, or a body Dash would refuse)."""
    try:
        body = request.get_json(force=True, silent=True, cache=True)
    except Exception:  # noqa: BLE001 - too large or too deep: the request hooks answer it
        return None
    if not isinstance(body, dict) or body.get("output") != ROUTER_OUTPUT or not isinstance(body.get("inputs"), list):
        return None
    return next((i.get("value") for i in body["inputs"] if isinstance(i, dict) and i.get("property") == "pathname"
                 and isinstance(i.get("value"), str)), None)


def choose() -> tuple[str, str]:
    """(language shown, language asked) for this request."""
    if request.path in RENDERER_PATHS:
        shown = text.known_language(request.headers.get(SHOWN_HEADER)) or text.DEFAULT_LANGUAGE
        asked = text.known_language(request.headers.get(ASKED_HEADER)) or shown
        if shown != text.DEFAULT_LANGUAGE and request.path == RENDERER_PATHS[0]:
            path = routed_path()  # a page not translated yet is English even when a link skipped the reload
            if path is not None and not text.page_is_translated(path):
                shown = text.DEFAULT_LANGUAGE
        return shown, asked
    asked = asked_language()
    return text.language_for_page(request.path, asked), asked


def before_request() -> None:
    shown, asked = choose()
    g.language_tokens = (text.set_language(shown), text.set_carried_language(carried(asked)))
    g.language_asked = asked


def teardown_request(_exc=None) -> None:
    tokens = g.pop("language_tokens", None)
    if tokens is not None:
        text.reset_language(tokens[0])
        text.reset_carried_language(tokens[1])


def index_html(html: str) -> str:
    """The index page in the request's language: ``<html lang="de" data-asked="de">``."""
    asked = g.get("language_asked") or text.current_language()
    translated = " ".join(text.TRANSLATED_PATHS)
    return html.replace('<html lang="en">', f'<html lang="{text.current_language()}" data-asked="{asked}" '
                                             f'data-translated="{translated}">', 1)


def install(app: dash.Dash, server: Flask) -> None:
    """Set the language before every other hook (the response cache's key includes it)."""
    server.before_request_funcs.setdefault(None, []).insert(0, before_request)
    server.teardown_request(teardown_request)
    plain = app.interpolate_index

    def interpolate_index(**kwargs):
        return index_html(plain(**kwargs))

    app.interpolate_index = interpolate_index
