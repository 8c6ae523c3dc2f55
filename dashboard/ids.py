"""Component ids, from one place: the shell's ids, and ``ids.make(page, name)`` → ``"page-name"``.

Each view (:mod:`dashboard.views`) builds its page's id table with :func:`make`; the page's
layout, its callbacks and the tests read that table, so they agree.
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
