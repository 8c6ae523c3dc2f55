"""Run the real app under gunicorn and drive it in Debian's headless Chromium.

Every request the page makes is recorded, so tests can assert that nothing
leaves 127.0.0.1, and every console error is collected.
"""
from __future__ import annotations

import json
import os
import re
import shutil
import socket
import subprocess
import sys
import time
from contextlib import contextmanager
from pathlib import Path
from urllib.parse import urlparse

import pytest

from support import ROOT

CHROMIUM = os.environ.get("ANONSET_CHROMIUM", "/usr/bin/chromium")
ARTIFACTS = ROOT / "test-artifacts"
CHROMIUM_ARGS = [
    "--no-sandbox",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
    "--disable-quic",
    "--no-first-run",
    "--disable-gpu",
]


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


@contextmanager
def running_server(log_path: Path, workers: int = 1, env: dict | None = None):
    """gunicorn serving dashboard.wsgi:server on a free loopback port.  Several workers are forked from a master
    that loaded the app once (``--preload``, as production's ``preload_app``): each loading it again cost ~10 s of
    CPU a worker (issue 25)."""
    port = free_port()
    cmd = [
        sys.executable, "-m", "gunicorn", "dashboard.wsgi:server",
        "--bind", f"127.0.0.1:{port}", "--workers", str(workers), "--timeout", "120",
        "--access-logfile", "-", "--error-logfile", "-", *(["--preload"] if workers > 1 else []),
    ]
    log = open(log_path, "w")
    proc = subprocess.Popen(cmd, stdout=log, stderr=subprocess.STDOUT, env={**os.environ, **(env or {})})
    url = f"http://127.0.0.1:{port}"
    try:
        # gunicorn binds after the preloaded app has loaded every data set: minutes on a busy 2-core machine
        deadline = time.time() + 300
        while True:
            if proc.poll() is not None:
                raise RuntimeError(f"gunicorn exited: {log_path.read_text()[-2000:]}")
            try:
                with socket.create_connection(("127.0.0.1", port), timeout=0.5):
                    break
            except OSError:
                if time.time() > deadline:
                    raise RuntimeError(f"gunicorn did not listen within 300 s: {log_path.read_text()[-2000:]}") from None
                time.sleep(0.2)
        yield url
    finally:
        proc.terminate()
        try:
            proc.wait(timeout=15)
        except subprocess.TimeoutExpired:
            proc.kill()
        log.close()


def _with_origin(error) -> str:
    """A page error's message with the first frame of its stack, so a failure names the script and line."""
    stack = (getattr(error, "stack", None) or "").splitlines()
    frames = [line.strip() for line in stack if line.strip().startswith("at ")]
    return f"{error} ({frames[0]})" if frames else str(error)


#: No callback is running, no chart is waiting for its figure, and no section says it is busy (the explorer's
#: sections below the map wait for its first draw, then for their callbacks: aria-busy until their content comes).
BUSY = "[data-dash-is-loading=\"true\"], .dash-graph--pending, [aria-busy=\"true\"]"
DRAWN = f"() => !document.querySelector('{BUSY}')"


def wait_until_drawn(pg, timeout: int = 30_000) -> None:
    """Wait until the page's callbacks and charts are done.  Leave a page only then: dcc.Graph (dash 4.4) throws
    "Cannot read properties of null (reading 'classList')" when a figure reaches a chart that navigation unmounted."""
    pg.wait_for_function(DRAWN, timeout=timeout)


class PageRecorder:
    """Collects console errors, page errors and every requested URL of a page."""

    def __init__(self, page):
        self.page = page
        self.console_errors: list[str] = []
        self.requests: list[str] = []
        page.on("console", lambda m: self.console_errors.append(m.text) if m.type == "error" else None)
        page.on("pageerror", lambda e: self.console_errors.append(_with_origin(e)))
        page.on("request", lambda r: self.requests.append(r.url))

    def foreign_requests(self) -> list[str]:
        """Requests to any host but 127.0.0.1 (data: and blob: URLs are local)."""
        out = []
        for url in self.requests:
            parsed = urlparse(url)
            if parsed.scheme in ("data", "blob", "about"):
                continue
            if parsed.hostname != "127.0.0.1":
                out.append(url)
        return out

    def screenshot(self, name: str, full_page: bool = True) -> Path:
        ARTIFACTS.mkdir(exist_ok=True)
        path = ARTIFACTS / f"{name}.png"
        self.page.screenshot(path=str(path), full_page=full_page)
        return path


def visitor_options(size: dict) -> dict:
    """The browser-context options of a visitor at ``size``: a phone (mobile viewport, touch) below 500 px."""
    return {"viewport": size, "bypass_csp": True} | ({"is_mobile": True} if size["width"] < 500 else {})


class Visitors:
    """The session's browser contexts, one per set of context options, whose tabs the tests share as one visitor's.

    A new context fetches, parses and compiles the app's scripts again: about 1 s more of Chromium CPU per page load
    here than a new tab of a context that has loaded the app before (``benchmarks/bench_browser_loads.py``, median of
    rounds: /about 2.5 against 1.5 s, /explore?country=DE 5.1 against 4.2 s; issue 25, the suite's time).  Each
    ``tab`` is a fresh page with an empty recorder; what earlier tabs left in the app's origin (presenter mode in
    localStorage, cookies, IndexedDB) is cleared before it opens, so a test starts as a first visit does, caches
    aside.  A context with routes or init scripts of its own stays a test's own ``browser.new_context``."""

    def __init__(self, browser, origin: str):
        self._browser, self._origin, self._contexts = browser, origin, {}

    def context(self, **options):
        """The shared context made with ``options`` (``browser.new_context``'s keywords)."""
        key = json.dumps(options, sort_keys=True)
        if key not in self._contexts:
            self._contexts[key] = self._browser.new_context(**options)
        return self._contexts[key]

    def tab(self, timeout_ms: int = 60_000, **options) -> PageRecorder:
        """A fresh recorded tab of the context made with ``options``; the caller closes ``tab.page``."""
        ctx = self.context(**options)
        pg = ctx.new_page()
        ctx.clear_cookies()
        ctx.new_cdp_session(pg).send("Storage.clearDataForOrigin", {
            "origin": self._origin, "storageTypes": "local_storage,indexeddb,service_workers,cache_storage"})
        pg.set_default_timeout(timeout_ms)
        return PageRecorder(pg)

    def close(self) -> None:
        for ctx in self._contexts.values():
            ctx.close()
        self._contexts.clear()


def require_chromium():
    if not Path(CHROMIUM).exists() or shutil.which("gunicorn") is None and not _has_gunicorn():
        pytest.skip(f"browser tests need {CHROMIUM} and gunicorn")


def _has_gunicorn() -> bool:
    try:
        import gunicorn  # noqa: F401
    except ImportError:
        return False
    return True


def open_dropdown(pg, dropdown_id: str) -> None:
    """Click a Dash 4 dropdown open and wait until its list holds the focus, so typing searches, as for a
    person who sees the list first (keys pressed while it is still opening land on the trigger button,
    where Dash keeps only the first of them).  A function predicate: it also runs under the app's CSP."""
    pg.click(f"#{dropdown_id}")
    wait_until_list_has_focus(pg)


def wait_until_list_has_focus(pg) -> None:
    """An opened dropdown's list (its search box or an option) holds the keyboard focus."""
    pg.wait_for_function("() => { const a = document.activeElement;"
                         " return !!(a && a.closest && a.closest('.dash-dropdown-content')); }")


def choose_option(pg, dropdown_id: str, search: str, value: str) -> None:
    """Pick ``value`` in a Dash 4 dropdown by typing ``search`` into its search box, then close it.

    The field is scrolled to the top first so the option list opens inside the
    viewport; the list is re-rendered while the search settles, so a replaced
    option is looked up again.
    """
    from playwright.sync_api import Error as PlaywrightError

    pg.locator(f"#{dropdown_id}").evaluate("el => el.scrollIntoView({block: 'start'})")
    open_dropdown(pg, dropdown_id)
    pg.keyboard.type(search, delay=15)
    option = pg.locator(f"label.dash-dropdown-option:has(input[value='{value}'])")
    for attempt in range(3):
        try:
            option.wait_for(state="visible")
            option.scroll_into_view_if_needed(timeout=5_000)
            option.click(timeout=5_000)
            break
        except PlaywrightError:
            if attempt == 2:
                raise
    pg.keyboard.press("Escape")


def warm_pages(url: str, paths: list[str], timeout: float = 600.0) -> None:
    """Run each page's initial server callbacks once over HTTP, as production warms before it forks.

    The test server is a plain gunicorn (not warmed): without this, the first browser test to open a
    page waits for what production warms (the explorer's default views; its country table, 10 s here
    before the build stored it, is now read from the cache) and may time out on a busy CI machine.
    Answers are not checked: the tests do that.
    """
    import requests

    from support.dash_protocol import ROUTER_OUTPUT, callback_body, walk_components

    def key(ident, prop: str) -> tuple[str, str]:  # as callback_body looks a value up
        return (json.dumps(ident, sort_keys=True, separators=(",", ":")) if isinstance(ident, dict) else ident,
                prop.split("@", 1)[0])

    s = requests.Session()
    shell = walk_components(s.get(f"{url}/_dash-layout", timeout=timeout).json())
    deps = s.get(f"{url}/_dash-dependencies", timeout=timeout).json()
    router = next(d for d in deps if d["output"] == ROUTER_OUTPUT)
    server_deps = [d for d in deps if not d.get("clientside_function") and d["output"] != ROUTER_OUTPUT]
    for path in paths:
        state = {("_pages_location", "pathname"): path, ("_pages_location", "search"): ""}
        r = s.post(f"{url}/_dash-update-component", json=callback_body(router, state, ["_pages_location.pathname"]),
                   timeout=timeout)
        if r.status_code != 200:
            continue
        components = {**shell, **walk_components(r.json()["response"]["_pages_content"]["children"])}
        values = {(i, prop): v for i, (_t, props) in components.items() for prop, v in props.items()}
        for dep in server_deps:
            ids = [key(d["id"], d["property"]) for d in dep["inputs"]]
            if dep.get("prevent_initial_call") or not all(k[0] in components for k in ids):
                continue
            s.post(f"{url}/_dash-update-component", json=callback_body(dep, {**state, **values}), timeout=timeout)


def wait_for_dash(pg, timeout: int = 30_000) -> None:
    """Until the renderer has drawn the page, no callback is pending and nothing is busy (:data:`BUSY`)."""
    pg.wait_for_selector("#_pages_content", state="attached", timeout=timeout)
    pg.wait_for_function(
        "() => { const c = document.querySelector('#_pages_content');"
        f" return c && c.children.length > 0 && !document.querySelector('{BUSY}'); }}",
        timeout=timeout,
    )
    pg.wait_for_load_state("networkidle", timeout=timeout)


def page_modules() -> list[tuple[str, str]]:
    """(module, URL path) of every page in ``dash.page_registry`` (path variables filled with "x")."""
    import dash

    from dashboard.wsgi import app  # noqa: F401  (imports the pages)

    pages = {}
    # Dash imports pages as "pages.<name>"; a test importing "dashboard.pages.<name>" adds a duplicate entry
    for module, page in sorted(dash.page_registry.items(), key=lambda mp: mp[0].startswith("dashboard.")):
        template = page.get("path_template")
        path = re.sub(r"<[^>]+>", "x", template) if template else page["path"]
        pages.setdefault(path, module)
    return sorted(((m, p) for p, m in pages.items()), key=lambda mp: mp[1])


#: (module, URL path) of every registered page, for parametrising the browser tests.
PAGES = page_modules()


#: Per chart on the page, every title, axis title, legend, annotation and (when shown) the plotly toolbar: each
#: text must stay inside its chart's box and none may overlap another (issue 28: at 390 px a what-if title was cut
#: off, the explorer's k labels read "k = 520 100", the bucket legend sat on the data, the toolbar covered titles);
#: a district map framed by the server (layout.meta.anonset_fit_bounds) must show its whole frame (it was cut off
#: at the left).  Returns one line per problem.
#: Lay pages say what a number means in words: the visible text holds no "ξ", "κ", "Ξ", "nats" or "SPEC §" outside
#: a <details> layer (issue 28); what it finds, as "id: text".
LAY_SYMBOLS = r"""() => {
  const symbol = /[ξκΞ]|\bnats?\b|SPEC\s*§/;
  const out = [];
  const walker = document.createTreeWalker(document.body, NodeFilter.SHOW_TEXT);
  let n;
  while ((n = walker.nextNode())) {
    const el = n.parentElement;
    if (!el || !symbol.test(n.textContent) || el.closest("details, script, style, noscript")) continue;
    const r = el.getBoundingClientRect();
    if (!r.width || !r.height || getComputedStyle(el).visibility === "hidden") continue;
    out.push(`${(el.closest("[id]") || {}).id || el.tagName}: ${n.textContent.trim().slice(0, 100)}`);
  }
  return out;
}"""


#: Per chart being hovered: its toolbar's box against its title's, legends' and annotations' boxes (a desktop shows the
#: toolbar on hover only, at the figure's top right; issue 28).  "not hovered" if the mouse is not over the chart.
TOOLBAR_OVER_TEXT = r"""(gd) => {
  const name = (gd.closest("[id]") || {}).id || "graph";
  const bar = gd.querySelector(".modebar");
  if (!bar) return [];
  if (!gd.querySelector(".plotly").matches(":hover")) return [`${name}: not hovered`];
  const m = bar.getBoundingClientRect();
  if (!m.width || !m.height) return [`${name}: the toolbar has no box on hover`];
  const inter = (a, b) => Math.min(a.right, b.right) - Math.max(a.left, b.left) > 0 && Math.min(a.bottom, b.bottom) - Math.max(a.top, b.top) > 0;
  const out = [];
  const check = (kind, el, text) => {
    const r = el.getBoundingClientRect();
    if (r.width > 0 && r.height > 0 && inter(r, m))
      out.push(`${name}: the toolbar (${Math.round(m.left)}–${Math.round(m.right)} × ${Math.round(m.top)}–${Math.round(m.bottom)}) `
               + `covers the ${kind} "${text}" (${Math.round(r.left)}–${Math.round(r.right)} × ${Math.round(r.top)}–${Math.round(r.bottom)})`);
  };
  gd.querySelectorAll(".g-gtitle text").forEach((e) => e.textContent.trim() && check("title", e, e.textContent.trim().slice(0, 40)));
  gd.querySelectorAll(".legend").forEach((e) => check("legend", e.querySelector(".bg") || e, e.textContent.trim().slice(0, 40)));
  gd.querySelectorAll(".annotation").forEach((e) => e.textContent.trim() && check("annotation", e, e.textContent.trim().slice(0, 40)));
  return out;
}"""


def toolbar_problems(pg) -> list[str]:
    """Hover every chart in view of a scroll (the desktop's toolbar shows on hover only) and list where its toolbar
    covers the chart's title, legend or an annotation; [] when none does.  About 0.1 s a chart."""
    out = []
    charts = pg.locator(".js-plotly-plot")
    for i in range(charts.count()):
        gd = charts.nth(i)
        if not gd.is_visible() or not gd.evaluate("(gd) => !!gd.querySelector('.modebar')"):
            continue
        box = gd.bounding_box()
        if not box or box["width"] < 20 or box["height"] < 20:
            continue
        gd.hover(position={"x": box["width"] / 2, "y": min(box["height"] - 5, 60)}, force=True)
        out += gd.evaluate(TOOLBAR_OVER_TEXT)
    pg.mouse.move(0, 0)
    return out


CHART_TEXT_PROBLEMS = r"""() => {
  const out = [];
  const inter = (a, b) => Math.min(a.right, b.right) - Math.max(a.left, b.left) > 2 && Math.min(a.bottom, b.bottom) - Math.max(a.top, b.top) > 2;
  document.querySelectorAll(".js-plotly-plot").forEach((gd) => {
    const svg = gd.querySelector(".main-svg");
    if (!svg) return;
    const box = svg.getBoundingClientRect();
    if (!box.width || !box.height) return;
    const name = (gd.closest("[id]") || {}).id || "graph";
    const items = [];
    const add = (kind, el) => {
      const r = el.getBoundingClientRect();
      const shown = (e) => { for (; e && e.nodeType === 1; e = e.parentElement) { const s = getComputedStyle(e);
        if (s.visibility === "hidden" || s.display === "none" || parseFloat(s.opacity) === 0) return false; } return true; };
      if (r.width > 0 && r.height > 0 && shown(el)) items.push([kind, el.textContent.trim().slice(0, 40), r]);
    };
    gd.querySelectorAll(".g-gtitle text").forEach((e) => e.textContent.trim() && add("title", e));
    gd.querySelectorAll(".g-xtitle text, .g-ytitle text").forEach((e) => e.textContent.trim() && add("axis title", e));
    gd.querySelectorAll(".legend").forEach((e) => add("legend", e.querySelector(".bg") || e));
    gd.querySelectorAll(".colorbar .cbtitle text").forEach((e) => e.textContent.trim() && add("colour bar title", e));
    gd.querySelectorAll(".annotation").forEach((e) => e.textContent.trim() && add("annotation", e.querySelector(".annotation-text-g") || e));
    if (window.innerWidth <= 600) gd.querySelectorAll(".modebar").forEach((e) => add("toolbar", e));  // a desktop shows it on hover only
    items.forEach(([kind, text, r]) => {
      if (kind === "toolbar") return;
      if (r.left < box.left - 1 || r.right > box.right + 1 || r.top < box.top - 1 || r.bottom > box.bottom + 1)
        out.push(`${name}: ${kind} "${text}" leaves the chart (${Math.round(r.left)}–${Math.round(r.right)} × ${Math.round(r.top)}–${Math.round(r.bottom)} in ${Math.round(box.left)}–${Math.round(box.right)} × ${Math.round(box.top)}–${Math.round(box.bottom)})`);
    });
    for (let i = 0; i < items.length; i++) for (let j = i + 1; j < items.length; j++) {
      const [ka, ta, ra] = items[i], [kb, tb, rb] = items[j];
      if (ka === "axis title" && kb === "axis title") continue;
      if (inter(ra, rb)) out.push(`${name}: ${ka} "${ta}" overlaps ${kb} "${tb}"`);
    }
    const fl = gd._fullLayout, b = fl && fl.meta && fl.meta.anonset_fit_bounds, sub = fl && fl.map && fl.map._subplot;
    if (b && sub && sub.map) {
      const mid = (b[1] + b[3]) / 2, w = sub.map.getContainer().clientWidth;
      const west = sub.map.project([b[0], mid]).x, east = sub.map.project([b[2], mid]).x;
      if (west < -2 || east > w + 2) out.push(`${name}: the map's frame ${Math.round(west)}–${Math.round(east)} px is cut off (map ${w} px wide)`);
    }
  });
  return out;
}"""


#: Per chart with a numeric x axis, tick labels that are turned (plotly stands them on end or tilts them when they do
#: not fit side by side: the attack forecast's eleven n labels stood upright at 390 px, issue 28) or whose boxes meet.
#: Category axes (a bar per name) and axes turned on purpose (``tickangle`` set) are left out.
TICK_LABEL_PROBLEMS = r"""() => {
  const out = [];
  document.querySelectorAll(".js-plotly-plot").forEach((gd) => {
    const name = (gd.closest("[id]") || {}).id || "graph";
    const set = gd.layout && gd.layout.xaxis && gd.layout.xaxis.tickangle;
    if (typeof set === "number" && set !== 0) return;  // turned by design (a bar chart's many age groups)
    const full = gd._fullLayout && gd._fullLayout.xaxis;
    if (full && full.type === "category") return;  // names, turned by plotly to fit: the figure picks no ticks there
    const ticks = Array.from(gd.querySelectorAll(".xtick text")).filter((t) => t.textContent.trim() && t.getBoundingClientRect().width);
    ticks.forEach((t) => {
      const turn = /rotate\(\s*(-?[\d.]+)/.exec(t.getAttribute("transform") || "");
      if (turn && Math.abs(parseFloat(turn[1])) > 0.5) out.push(`${name}: tick "${t.textContent}" turned ${Math.round(parseFloat(turn[1]))}°`);
    });
    const boxes = ticks.map((t) => [t.textContent, t.getBoundingClientRect()]);
    for (let i = 0; i < boxes.length; i++) for (let j = i + 1; j < boxes.length; j++) {
      const [ta, a] = boxes[i], [tb, b] = boxes[j];
      if (Math.min(a.right, b.right) - Math.max(a.left, b.left) > 0 && Math.min(a.bottom, b.bottom) - Math.max(a.top, b.top) > 0)
        out.push(`${name}: ticks "${ta}" and "${tb}" overlap`);
    }
  });
  return out;
}"""


#: Per chart, each annotation inside the plot area (a label on the data) whose box meets a drawn curve: every line
#: trace's SVG path is walked every 2 px (issue 28: with four countries the lowest "covered" label touched a curve
#: on a phone).  Labels above or beside the plot (the k labels) are skipped.
LABELS_ON_CURVES = r"""() => {
  const out = [];
  document.querySelectorAll(".js-plotly-plot").forEach((gd) => {
    const name = (gd.closest("[id]") || {}).id || "graph";
    const svg = gd.querySelector(".main-svg"), size = gd._fullLayout && gd._fullLayout._size;
    if (!svg || !size) return;
    const box = svg.getBoundingClientRect();
    const plot = {left: box.left + size.l, top: box.top + size.t, right: box.left + size.l + size.w, bottom: box.top + size.t + size.h};
    const labels = Array.from(gd.querySelectorAll(".annotation")).map((a) => [a.textContent.trim().slice(0, 40),
      (a.querySelector(".annotation-text-g") || a).getBoundingClientRect()])
      .filter(([t, r]) => t && r.width && r.top >= plot.top - 1 && r.bottom <= plot.bottom + 1);
    if (!labels.length) return;
    gd.querySelectorAll(".scatterlayer path.js-line").forEach((path) => {
      const len = path.getTotalLength(), m = path.getScreenCTM();
      if (!len || !m) return;
      const hit = new Set();
      for (let s = 0; s <= len; s += 2) {
        const p = path.getPointAtLength(s), x = m.a * p.x + m.c * p.y + m.e, y = m.b * p.x + m.d * p.y + m.f;
        labels.forEach(([t, r], i) => { if (!hit.has(i) && x >= r.left && x <= r.right && y >= r.top && y <= r.bottom) hit.add(i); });
      }
      const trace = (path.closest(".trace") && path.closest(".trace").__data__ && path.closest(".trace").__data__[0].trace.name) || "a curve";
      hit.forEach((i) => out.push(`${name}: label "${labels[i][0]}" lies on ${trace}`));
    });
  });
  return out;
}"""


#: Each data table (or plain table) matching a selector that is wider than its box, so it scrolls sideways: as
#: "id: content px in box px" (issue 28: the explorer's country table was 1723 px in 1214 px on a projector).
TABLES_SCROLLING_SIDEWAYS = r"""(sel) => Array.from(document.querySelectorAll(sel)).map((t) => {
  const box = t.querySelector(".dash-spreadsheet-container") || t;
  return box.getBoundingClientRect().width && box.scrollWidth > box.clientWidth + 1
    ? `${(t.closest("[id]") || {}).id || "table"}: ${box.scrollWidth} px in ${box.clientWidth} px` : null;
}).filter(Boolean)"""


# --------------------------------------------------------------------------- presenter mode on a projector

#: A projector's sizes: a page opened with ?presenter=1 is resized to each in turn (not reloaded).
PROJECTORS = [(1280, 720), (1920, 1080)]
#: Tables that must fit the width (not scroll sideways) on a projector and at 1440 × 900, per page.
WIDE_TABLES = {"/explore": "#explore-country-table"}
#: Pages whose main content is prose (no result to show first).
PROSE_PAGES = {"/about"}
#: The page's main answer or chart: the first visible headline, chart, number card or table of the page.
MAIN_RESULT_TOP = r"""() => {
  const el = Array.from(document.querySelectorAll(
      '#main .headline, #main .js-plotly-plot, #main .card-value, #main table, #main .dash-table-container'))
    .find((e) => { const r = e.getBoundingClientRect(); return r.width > 0 && r.height > 0; });
  return el ? el.getBoundingClientRect().top : null;
}"""
NAV_ROW = r"""() => {
  const nav = document.querySelector('.navbar'), links = Array.from(nav.querySelectorAll('a.nav-link'));
  const tops = new Set(links.map((a) => Math.round(a.getBoundingClientRect().top)));
  return {height: nav.getBoundingClientRect().height, rows: tops.size};
}"""


def projector_problems(pg, path: str) -> list[str]:
    """A page opened with ?presenter=1 (at ``path``), resized to 1280 × 720, then 1920 × 1080: the navigation is one
    row, the page's main answer or chart starts in the first screen, and its wide tables fit the width.  One line per
    problem; the page is left at the last size."""
    problems = []
    for width, height in PROJECTORS:
        pg.set_viewport_size({"width": width, "height": height})
        pg.wait_for_timeout(250)
        wait_until_drawn(pg)
        nav = pg.evaluate(NAV_ROW)
        if nav["rows"] != 1 or nav["height"] > 70:
            problems.append(f"{path} at {width}×{height}: navigation {nav}")
        if path in PROSE_PAGES:
            continue
        top = pg.evaluate(MAIN_RESULT_TOP)
        if top is None or top > height - 80:
            problems.append(f"{path} at {width}×{height}: main result starts at {top} px")
        if path in WIDE_TABLES:
            pg.wait_for_selector(f"{WIDE_TABLES[path]} td")
            problems += [f"{path} at {width}×{height}: {t}" for t in
                         pg.evaluate(TABLES_SCROLLING_SIDEWAYS, WIDE_TABLES[path])]
    return problems
