"""gunicorn's threaded worker, with its own refusals made safe for a server facing the internet without a proxy.

gunicorn answers a request it cannot parse (a bad request line, a header over its limits, a URI
over 4 KB …) itself, before the app sees it.  Its stock answer carries none of the app's security
headers, and its log line holds the whole invalid request line and the client's address.  This
worker answers those requests with the same status, a short text and the security headers
(:data:`~dashboard.server.headers.SECURITY_HEADERS` and a Content-Security-Policy that allows
nothing), and logs only the status and the kind of error.  The documented deployment puts nginx
in front (``deploy/``), which refuses such requests before they reach gunicorn; this covers
``anonset serve`` on its own.
"""
from __future__ import annotations

from datetime import datetime
from ssl import SSLError

from gunicorn import util
from gunicorn.http import errors as gerr
from gunicorn.http.message import Request
from gunicorn.http.wsgi import Response, default_environ
from gunicorn.workers.gthread import ThreadWorker

from .headers import SECURITY_HEADERS

#: Each kind of request gunicorn refuses → (status, reason); kinds not listed are 400 Bad Request.
REFUSALS = {
    gerr.LimitRequestLine: (414, "URI Too Long"),
    gerr.LimitRequestHeaders: (431, "Request Header Fields Too Large"),
    gerr.UnsupportedTransferCoding: (501, "Not Implemented"),
    gerr.ConfigurationProblem: (500, "Internal Server Error"),
    gerr.ExpectationFailed: (417, "Expectation Failed"),
    gerr.ForbiddenProxyRequest: (403, "Forbidden"),
    SSLError: (403, "Forbidden"),
}
#: The errors that are the client's (gunicorn's own list); anything else is answered 500.
CLIENT_ERRORS = (
    gerr.InvalidRequestLine, gerr.InvalidRequestMethod, gerr.InvalidHTTPVersion, gerr.InvalidHeader,
    gerr.InvalidHeaderName, gerr.LimitRequestLine, gerr.LimitRequestHeaders, gerr.InvalidProxyLine,
    gerr.ForbiddenProxyRequest, gerr.InvalidSchemeHeaders, gerr.UnsupportedTransferCoding,
    gerr.ConfigurationProblem, gerr.ObsoleteFolding, gerr.ExpectationFailed, gerr.InvalidH2CPreface, SSLError,
    gerr.InvalidChunkSize, gerr.ChunkMissingTerminator, gerr.InvalidChunkExtension,
)
#: What a refusal may load: nothing.
REFUSAL_CSP = "default-src 'none'; base-uri 'none'; form-action 'none'; frame-ancestors 'none'"


def refusal_status(exc: BaseException) -> tuple[int, str]:
    """The status gunicorn would answer ``exc`` with (application errors: 500)."""
    if isinstance(exc, (gerr.InvalidResponseHeader, gerr.InvalidResponseHeaderName)) or not isinstance(exc, CLIENT_ERRORS):
        return 500, "Internal Server Error"
    return next((found for kind, found in REFUSALS.items() if isinstance(exc, kind)), (400, "Bad Request"))


def refusal_bytes(status: int, reason: str) -> bytes:
    """A complete HTTP/1.1 answer: the status, the security headers, and the reason as plain text."""
    body = f"{status} {reason}\n".encode("ascii")
    headers = {"Connection": "close", "Content-Type": "text/plain; charset=utf-8", "Content-Length": str(len(body)),
               "Content-Security-Policy": REFUSAL_CSP, "Cache-Control": "no-store", **SECURITY_HEADERS}
    head = f"HTTP/1.1 {status} {reason}\r\n" + "".join(f"{k}: {v}\r\n" for k, v in headers.items()) + "\r\n"
    return head.encode("latin-1") + body


class SafeThreadWorker(ThreadWorker):
    """``gthread`` whose refusals carry the security headers and whose log holds no request line or address."""

    def handle_error(self, req, client, addr, exc):
        started = datetime.now()
        status, reason = refusal_status(exc)
        if status == 500:
            self.log.error("error handling a request (%s)", type(exc).__name__)
        else:
            self.log.warning("request refused with %d (%s)", status, type(exc).__name__)
        if req is None and isinstance(getattr(exc, "req", None), Request):  # a bad header: the request was read
            req = exc.req  # (InvalidRequestLine's ``req`` is the line itself, text: never logged)
        if req is not None:  # the access log line (its format holds the path only, no query, no address)
            environ = default_environ(req, client, self.cfg)
            environ["REMOTE_ADDR"], environ["REMOTE_PORT"] = "-", "-"
            resp = Response(req, client, self.cfg)
            resp.status = f"{status} {reason}"
            resp.response_length = 0
            self.log.access(resp, req, environ, datetime.now() - started)
        try:
            util.write_nonblock(client, refusal_bytes(status, reason))
        except Exception:  # noqa: BLE001 - the client is gone: nothing to answer
            self.log.debug("could not send the refusal")
