"""Component ids, from one place: ``ids.page_component(page, name)`` → ``"page-name"``.

Pages import their ids from here so callbacks, layouts and tests agree.
"""
from __future__ import annotations

# shell
URL = "shell-url"
NAVBAR = "shell-navbar"
PRESENTER_TOGGLE = "shell-presenter-toggle"
PRESENTER_STORE = "shell-presenter-store"


def make(page: str, name: str) -> str:
    """A page-scoped id; one helper so no two pages can collide."""
    return f"{page}-{name}"
