"""``GET /_reports/<kind>?…``: a page's report as a file, by plain GET (issue 29).

A report is 2–5 MB of HTML; answered inside a callback it was JSON-encoded into the callback's
answer, the slowest request of the load test and a large share of the server's CPU.  Here it is
sent as it is: ``Content-Type: text/html``, ``Content-Disposition: attachment`` with the report's
file name, ``Cache-Control: private, max-age=…`` and an ETag (a second click within the hour is the
browser's own copy; later, a ``304`` without rendering anything).

The query is the page's own shareable query (never a person's attributes; an uploaded file's
report stays a callback of the data-set page).  What each kind reads from it and how it makes
its report is given by the app factory (:func:`install`, from :mod:`dashboard.reports`): this
module imports no page, view or report.

* bad or out-of-range parameters: ``400`` with one plain-text line in the page's language (``?lang=``);
* the report slots busy (:func:`dashboard.server.limits.report_slot`): ``503`` with ``Retry-After`` and the
  limit's message, which names the ``anonset report …`` command that writes the same file locally.
"""
from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import NamedTuple

from flask import Flask, Response, abort, g, request

from dashboard.core import text
from dashboard.core.errors import InputError
from dashboard.core.text import gettext as _

from . import limits

#: How long the browser keeps a report without asking again (it holds the data's and the code's version
#: in its ETag, so a revalidation after that is a 304 unless either changed).
MAX_AGE = 3600
#: Seconds a refused request waits before it may try again.
RETRY_AFTER_S = 5
URL = "/_reports/<kind>"


class ReportFile(NamedTuple):
    """One report, parsed from a query but not yet made."""

    name: str                    # the file name (``reports.file_name``)
    tag: str                     # its ETag, quoted: every parameter, the data's and the code's version
    text: Callable[[], str]      # the report's HTML (made in a report slot, or the kept copy)


class ReportKind(NamedTuple):
    """How one page's report is asked for: the page (its language applies) and the parser of its query."""

    page: str                                                # the page's path, e.g. "/explore"
    parse: Callable[[Mapping[str, list[str]]], ReportFile]   # raises InputError for a bad query


def _plain(message: str, status: int) -> Response:
    """A one-line plain-text answer (the page puts it in its report message)."""
    line = " ".join(str(message).split())
    return Response(line, status=status, mimetype="text/plain", headers={"Cache-Control": "no-store"})


def serve(kinds: Mapping[str, ReportKind], kind: str) -> Response:
    spec = kinds.get(kind)
    if spec is None:
        abort(404)
    with text.language(text.language_for_page(spec.page, g.get("language_asked"))):
        try:
            report = spec.parse(request.args.to_dict(flat=False))
        except InputError as exc:  # a CostError here is a query beyond the page's limits: also the query's fault
            return _plain(_("No report: {error}").format(error=exc), 400)
        headers = {"ETag": report.tag, "Cache-Control": f"private, max-age={MAX_AGE}"}
        if request.if_none_match.contains_weak(report.tag.strip('"')):  # werkzeug's parsing: W/"…", "*", lists
            return Response(status=304, headers=headers)  # before any rendering: a revalidation costs no slot
        try:
            body = report.text()
        except limits.CostError as exc:
            response = _plain(str(exc), 503)
            response.headers["Retry-After"] = str(RETRY_AFTER_S)
            return response
        except InputError as exc:
            return _plain(_("No report: {error}").format(error=exc), 400)
    headers["Content-Disposition"] = f'attachment; filename="{report.name}"'
    return Response(body, status=200, mimetype="text/html", headers=headers)


def install(server: Flask, kinds: Mapping[str, ReportKind]) -> None:
    """Attach ``GET /_reports/<kind>`` for ``kinds`` (by :func:`dashboard.app.create_app`)."""
    server.add_url_rule(URL, "reports", lambda kind: serve(kinds, kind), methods=["GET"])
