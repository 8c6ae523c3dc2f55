"""Accessibility in headless Chromium: axe-core on EVERY registered page (normal and presenter
mode), keyboard order of the personal page, and the presenter-mode toggle.

axe-core is not vendored: CI installs it with ``npm install --prefix tests/.axe axe-core``
(see .ci/run); without it the axe tests skip.
"""
from __future__ import annotations

import os
import sys
from pathlib import Path

import pytest
from support import TESTS
from support.browser import PAGES, projector_problems, wait_for_dash, wait_until_list_has_focus

pytestmark = pytest.mark.browser

AXE_JS = Path(os.environ.get("ANONSET_AXE_JS", TESTS / ".axe" / "node_modules" / "axe-core" / "axe.min.js"))
BLOCKING = ("serious", "critical")


@pytest.fixture(scope="module")
def axe_source():
    if not AXE_JS.exists():
        pytest.skip(f"axe-core not installed ({AXE_JS}); run: npm install --prefix tests/.axe axe-core")
    return AXE_JS.read_text(encoding="utf-8")


def run_axe(pg, source: str) -> list[dict]:
    pg.evaluate(source)  # through the DevTools protocol, so the page's CSP does not apply to axe itself
    result = pg.evaluate("() => axe.run(document, {resultTypes: ['violations']})")
    return result["violations"]


def _describe(violations) -> str:
    lines = []
    for v in violations:
        lines.append(f"{v['impact']} {v['id']}: {v['help']} ({len(v['nodes'])} nodes)")
        lines.extend(f"    {n['target']} {n['html'][:120]}" for n in v["nodes"][:3])
    return "\n".join(lines)


def page_views() -> list[tuple[str, str]]:
    """Every page, and each further view of a page with tabs (its ``VIEWS``, opened by ``?view=``)."""
    out = []
    for module, path in PAGES:
        out.append((module, path))
        views = getattr(sys.modules.get(module), "VIEWS", ())
        out.extend((module, f"{path}?view={view}") for view in views[1:])
    return out


VIEWS = page_views()


@pytest.fixture
def axe_page(visitors):
    """A fresh tab of the session's shared desktop context (``visitors``) with request/console recording, as the
    ``page`` fixture's: the views share its HTTP and code caches as one visitor's do (a context per view parsed the
    app's scripts again each time; issue 25), and the last view's presenter mode (kept in localStorage, which the
    tabs share) is cleared before the first load."""
    rec = visitors.tab(viewport={"width": 1366, "height": 900}, bypass_csp=True)
    yield rec
    rec.page.close()


#: Every dropdown's focus proxy taken out of the tab order by the shell's repair (assets/shell).
FOCUS_PROXIES_REPAIRED = "() => !document.querySelector('.dash-dropdown-focus-target:not([tabindex=\"-1\"])')"


def _only_unrepaired_focus_proxies(violation: dict) -> bool:
    """An aria-hidden-focus violation whose every node is a dropdown's focus proxy."""
    return violation["id"] == "aria-hidden-focus" and all(
        "dash-dropdown-focus-target" in " ".join(map(str, n["target"])) for n in violation["nodes"])


#: The font size of every drawn chart: presenter mode draws each larger (assets/presenter.js, or the page itself).
CHART_FONT_SIZES = ("() => Array.from(document.querySelectorAll('.js-plotly-plot')).filter(g => g._fullLayout)"
                    ".map(g => g._fullLayout.font.size)")


#: Views whose presenter mode switched by the toggle is not the DOM a ?presenter=1 link opens (compared element by
#: element, session 17): the personal page's three optional inputs (me-aux-name, me-aux-percent, me-users) keep
#: their normal size and colour after the toggle, and the attack chart is drawn with its legend after the toggle,
#: without it from the link.  These get presenter mode from a second load of the link, as before.
PRESENTER_BY_LINK = {"/", "/attack"}


@pytest.mark.parametrize("module,path", VIEWS, ids=[p for _, p in VIEWS])
def test_no_serious_or_critical_axe_violations(app_url, axe_page, axe_source, module, path):
    """Normal, then presenter mode switched on by the page's toggle on the same load (issue 25: a second load with
    ?presenter=1 before, kept for PRESENTER_BY_LINK; the link's way is also test_presenter_mode_toggle_persists_and_
    links_switch_it's and test_browser_checks.py's); in presenter mode of a page, the projector check too: resized to
    1280 × 720, then 1920 × 1080, the navigation is one row, the main answer or chart starts in the first screen and
    the wide tables fit (issue 25: a load of its own before, in test_browser_checks.py)."""
    page = axe_page
    pg = page.page
    pg.goto(f"{app_url.url}{path}")
    wait_for_dash(pg)
    for presenter in (False, True):
        if presenter and path in PRESENTER_BY_LINK:
            pg.goto(f"{app_url.url}{path}" + ("&" if "?" in path else "?") + "presenter=1")
            wait_for_dash(pg)
            pg.wait_for_function("() => document.body.classList.contains('presenter')")
        elif presenter:
            before = pg.evaluate(CHART_FONT_SIZES)
            pg.click("#shell-presenter-toggle")
            pg.wait_for_function("() => document.body.classList.contains('presenter')")
            pg.wait_for_selector("#shell-presenter-toggle[aria-pressed=true]", state="attached", timeout=5_000)
            wait_for_dash(pg)  # a callback that follows the mode
            pg.wait_for_function(f"(b) => ({CHART_FONT_SIZES})().every((s, i) => i >= b.length || s > b[i] * 1.2)",
                                 arg=before)  # every chart drawn again in presenter mode
            pg.evaluate("() => window.scrollTo(0, 0)")  # as a page opens
        else:  # the tab's context is shared: no presenter mode left over from the last view
            assert not pg.evaluate("() => document.body.classList.contains('presenter')"), path
        pg.wait_for_timeout(300)  # the shell's repairs run on the next animation frame
        # ... and again after React re-renders a dropdown (its focus proxy back at tabindex 0): on a loaded machine
        # axe once ran between the two (CI, session 12); a repair that never comes still fails here
        pg.wait_for_function(FOCUS_PROXIES_REPAIRED, timeout=15_000)
        blocking = [v for v in run_axe(pg, axe_source) if v["impact"] in BLOCKING]
        if blocking and all(_only_unrepaired_focus_proxies(v) for v in blocking):
            # React re-rendered a dropdown while axe ran (its focus proxy back at tabindex 0 until the shell's repair
            # on the next frame; CI, session 15): the settled page is the subject, so once the repair has come, axe
            # runs again; a repair that never comes fails the wait, a proxy left focusable fails axe again
            pg.wait_for_function(FOCUS_PROXIES_REPAIRED, timeout=15_000)
            blocking = [v for v in run_axe(pg, axe_source) if v["impact"] in BLOCKING]
        mode = "presenter mode" if presenter else "normal"
        assert blocking == [], f"{module} ({path}, {mode}):\n{_describe(blocking)}"
    if "?" not in path:  # a page (not a further view): presenter mode on a projector, on this load
        assert projector_problems(pg, path) == []
    assert page.console_errors == []


def _focus_trail(pg, presses: int) -> list[str]:
    """The id of the focused element (or of its closest ancestor with an id) after each Tab."""
    trail = []
    for _ in range(presses):
        pg.keyboard.press("Tab")
        trail.append(pg.evaluate(
            "() => { const e = document.activeElement; if (!e || e === document.body) return '';"
            " if (e.classList.contains('skip-link')) return 'skip-link';"
            " const c = e.id ? e : e.closest('[id]'); return c ? c.id : e.tagName; }"))
    return trail


def test_keyboard_reaches_the_personal_inputs_in_order(app_url, page):
    pg = page.page
    pg.goto(f"{app_url.url}/?country=DE#district=11000")
    pg.wait_for_selector("#me-country", state="attached")
    wait_for_dash(pg)
    pg.wait_for_timeout(300)
    pg.evaluate("() => { document.activeElement && document.activeElement.blur(); window.scrollTo(0, 0); }")
    trail = _focus_trail(pg, 45)
    assert trail[0] == "skip-link", trail[:5]
    wanted = ["me-country", "me-district", "me-sex", "me-ages", "me-units", "me-height-cm", "me-weight-kg",
              "me-height-width", "me-weight-width", "me-example", "me-copy-link"]
    positions = []
    for target in wanted:
        assert target in trail, f"Tab never reaches {target}: {trail}"
        positions.append(trail.index(target))
    assert positions == sorted(positions), list(zip(wanted, positions))
    # the navbar (links and the presenter toggle) comes before the form
    assert trail.index("shell-presenter-toggle") < trail.index("me-country")

    # the main inputs show a clear focus indicator (≥ 2px outline on the control or its container)
    for target in ("#me-country", "#me-height-cm", "#me-weight-kg", "#shell-presenter-toggle"):
        pg.focus(target)
        pg.keyboard.press("Shift+Tab")
        pg.keyboard.press("Tab")
        width = pg.evaluate(
            "() => { let e = document.activeElement, best = 0;"
            " for (let i = 0; e && i < 3; i++, e = e.parentElement) { const s = getComputedStyle(e);"
            "   if (s.outlineStyle !== 'none') best = Math.max(best, parseFloat(s.outlineWidth)); }"
            " return best; }")
        assert width >= 2, f"{target}: focus outline {width}px"

    # a dropdown works from the keyboard: open, search, choose, close
    pg.focus("#me-ages")
    pg.keyboard.press("Enter")
    wait_until_list_has_focus(pg)  # a person types once the list is open
    pg.keyboard.type("40", delay=15)
    pg.keyboard.press("ArrowDown")
    pg.keyboard.press("Enter")
    pg.keyboard.press("Escape")
    pg.wait_for_function("() => document.querySelector('#me-ages').innerText.includes('40')")
    assert page.console_errors == []


def test_skip_link_moves_to_the_main_content(app_url, page):
    pg = page.page
    pg.goto(f"{app_url.url}/about")
    wait_for_dash(pg)
    pg.keyboard.press("Tab")
    assert pg.evaluate("() => document.activeElement.className") == "skip-link"
    assert pg.evaluate("() => document.activeElement.getAttribute('href')") == "#main"
    assert pg.locator("main#main").count() == 1


def test_presenter_mode_toggle_persists_and_links_switch_it(app_url, visitors):
    desktop = {"viewport": {"width": 1366, "height": 900}, "bypass_csp": True}
    rec = visitors.tab(**desktop)
    pg = rec.page
    pg.goto(f"{app_url.url}/about")
    wait_for_dash(pg)
    body_size = lambda: pg.evaluate("() => parseFloat(getComputedStyle(document.body).fontSize)")
    is_on = lambda: pg.evaluate("() => document.body.classList.contains('presenter')")
    normal = body_size()
    assert not is_on()
    assert pg.get_attribute("#shell-presenter-toggle", "aria-pressed") == "false"

    pg.click("#shell-presenter-toggle")
    pg.wait_for_function("() => document.body.classList.contains('presenter')")
    # the class is set in the callback, the attribute by Dash once the callback has returned
    pg.wait_for_selector("#shell-presenter-toggle[aria-pressed=true]", state="attached", timeout=5_000)
    assert body_size() >= normal * 1.3
    assert pg.evaluate("() => getComputedStyle(document.body).color") == "rgb(0, 0, 0)"
    rec.screenshot("presenter-about")

    pg.reload()  # remembered in localStorage
    wait_for_dash(pg)
    pg.wait_for_function("() => document.body.classList.contains('presenter')")
    pg.goto(f"{app_url.url}/about?presenter=0")  # a link switches it off …
    wait_for_dash(pg)
    pg.wait_for_function("() => !document.body.classList.contains('presenter')")
    pg.click("#shell-presenter-toggle")  # … and the toggle on again
    pg.wait_for_function("() => document.body.classList.contains('presenter')")
    pg.click("#shell-presenter-toggle")
    pg.wait_for_function("() => !document.body.classList.contains('presenter')")
    assert rec.console_errors == []
    pg.close()

    pg2 = visitors.tab(**desktop).page  # ?presenter=1 switches it on in a new browser (nothing in its localStorage)
    pg2.goto(f"{app_url.url}/?presenter=1")
    pg2.wait_for_function("() => document.body.classList.contains('presenter')")
    pg2.wait_for_selector("#shell-presenter-toggle[aria-pressed=true]", state="attached", timeout=5_000)
    pg2.close()
