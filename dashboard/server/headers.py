"""Security headers: the Content-Security-Policy and the other headers every response carries.

Everything the page loads is served from this process: Dash serves its own scripts and
plotly.js locally, and the pages use no CDN, web font or map tile — the policy below forbids them.
"""
from __future__ import annotations

import dash
from flask import Flask, Response, request

PERMISSIONS_POLICY = ", ".join(
    f"{feature}=()" for feature in (
        "accelerometer", "autoplay", "camera", "display-capture", "geolocation", "gyroscope",
        "magnetometer", "microphone", "midi", "payment", "usb", "serial", "hid",
        "publickey-credentials-get", "screen-wake-lock", "xr-spatial-tracking",
    )
) + ", clipboard-write=(self), fullscreen=(self)"

SECURITY_HEADERS = {
    "Referrer-Policy": "no-referrer",
    "X-Content-Type-Options": "nosniff",
    "X-Frame-Options": "DENY",
    "Permissions-Policy": PERMISSIONS_POLICY,
    "Cross-Origin-Opener-Policy": "same-origin",
    "Cross-Origin-Resource-Policy": "same-origin",
}

_csp_memo: dict[tuple, str] = {}


def content_security_policy(app: dash.Dash) -> str:
    """The CSP every response of ``app`` carries: everything from this origin, nothing from anywhere else.

    Scripts: files from 'self' plus the sha256 of each inline script Dash writes
    into the index page (its renderer bootstrap and any inline clientside
    callback), each hash once — no 'unsafe-inline', no 'unsafe-eval'.  Styles need
    'unsafe-inline': plotly.js and the Dash components inject <style> elements.
    MapLibre (map traces) runs its workers from blob: URLs.
    """
    hashes = list(dict.fromkeys(app.csp_hashes()))  # each once: two identical inline scripts have one hash
    key = tuple(hashes)
    if key not in _csp_memo:
        directives = {
            "default-src": ["'self'"],
            "script-src": ["'self'", *hashes],
            "style-src": ["'self'", "'unsafe-inline'"],
            "img-src": ["'self'", "data:", "blob:"],
            "font-src": ["'self'", "data:"],
            "connect-src": ["'self'"],
            "worker-src": ["'self'", "blob:"],
            "child-src": ["'self'", "blob:"],
            "frame-src": ["'none'"],
            "object-src": ["'none'"],
            "manifest-src": ["'self'"],
            "media-src": ["'none'"],
            "base-uri": ["'none'"],
            "form-action": ["'self'"],
            "frame-ancestors": ["'none'"],
        }
        _csp_memo.clear()
        _csp_memo[key] = "; ".join(f"{name} {' '.join(values)}" for name, values in directives.items())
    return _csp_memo[key]


def add_security_headers(app: dash.Dash, response: Response) -> Response:
    """``response`` with the CSP, :data:`SECURITY_HEADERS` and, for callback answers, ``no-store``."""
    response.headers["Content-Security-Policy"] = content_security_policy(app)
    for name, value in SECURITY_HEADERS.items():
        response.headers[name] = value
    if request.method == "POST":
        # callback answers are computed from a person's answers: no browser or proxy may keep them
        response.headers["Cache-Control"] = "no-store"
    return response


def install(app: dash.Dash, server: Flask) -> None:
    """Every response of ``server`` gets the headers (registered first, so Flask runs it after the other hooks)."""
    server.after_request(lambda response: add_security_headers(app, response))
