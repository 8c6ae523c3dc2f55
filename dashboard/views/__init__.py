"""One module per page: everything it computes or draws without a callback.

A view holds its page's id table, defaults and limits, link and form parsing, the
``render_*`` functions (plain dicts of components and figures), its memos and ``warm()``.
Views are ordinary modules — imported by their real name, tested without the app; the
page modules (:mod:`dashboard.pages`) keep ``register_page``, ``layout(**query)`` and short
callbacks that parse, call the view and map its answer to outputs.
"""
from __future__ import annotations

import importlib
import pkgutil
from types import ModuleType


def modules() -> list[ModuleType]:
    """Every view module, imported (in name order)."""
    return [importlib.import_module(f"{__name__}.{m.name}") for m in sorted(pkgutil.iter_modules(__path__), key=lambda m: m.name)]


def warm_all() -> None:
    """Each view precomputes what every visit opens with (gunicorn runs this before forking)."""
    for module in modules():
        warm = getattr(module, "warm", None)
        if callable(warm):
            warm()
