"""The page's link-preview meta tags without the visitor's ``Host`` header.

Dash's pages write ``<meta property="twitter:url">`` (and image URLs) from the request, so a
client could have its own ``Host`` header printed into the page (cache poisoning behind a shared
cache, a forged link preview).  Here the address comes from the deployment's setting
``ANONSET_PUBLIC_URL`` (e.g. ``https://anonset.example.org``); without it the tags that would
carry an address are left out.
"""
from __future__ import annotations

import html
import re

import dash
from flask import request

#: Dash's meta tags whose content is an address built from the request
_ADDRESS_TAGS = re.compile(r'<meta (?:property|name)="(?:twitter:url|twitter:image|og:url|og:image)" content="[^"]*">\s*')
_TWITTER_URL = '<meta property="twitter:url" content="{}">'


def rewrite(metas: str, public_url: str | None, path: str) -> str:
    """``metas`` with every request-built address removed, and ``twitter:url`` from ``public_url`` + ``path``."""
    out = _ADDRESS_TAGS.sub("", metas)
    if public_url:
        out += _TWITTER_URL.format(html.escape(public_url + path, quote=True))
    return out


def install(app: dash.Dash, public_url: str | None) -> None:
    """Route ``app``'s index page through :func:`rewrite` (Dash's documented ``interpolate_index`` hook)."""
    plain = app.interpolate_index

    def interpolate_index(**kwargs):
        kwargs["metas"] = rewrite(kwargs.get("metas", ""), public_url, request.path)
        return plain(**kwargs)

    app.interpolate_index = interpolate_index
