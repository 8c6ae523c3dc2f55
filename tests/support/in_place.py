"""Go to another address of the app in place, the way the app's own links do (``history.pushState`` and Dash's
``_dashprivate_pushstate`` event, which the page router answers with the new page's layout), instead of a new page
load: the scripts, styles and fonts stay loaded, which is where a load's Chromium time goes.

Before the target is shown the page passes through the about page and waits until ``leaving`` (a selector of the page
shown before) has left the document, so that nothing of the last answer stays on screen to be mistaken for the new one:
every element of the target page is then a new one, filled by its own callbacks as on a fresh load.
"""
from __future__ import annotations

_PUSH = "(p) => { window.history.pushState({}, '', p); window.dispatchEvent(new CustomEvent('_dashprivate_pushstate')); }"


def open_page(pg, base: str, path: str, leaving: str | None = None) -> None:
    """Show ``base + path`` on ``pg``: a load if the page has shown nothing yet, else in place (see the module)."""
    if not pg.url.startswith(base):
        pg.goto(base + path)
        return
    if leaving:
        pg.evaluate(_PUSH, "/about")
        pg.wait_for_selector(leaving, state="detached")
    pg.evaluate(_PUSH, path)
