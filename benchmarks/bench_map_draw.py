"""Time the explorer's district map in headless Chromium: first draw and a colour change.

Usage::

    python benchmarks/bench_map_draw.py [--countries DE,IT-COM,BR,US,US-ZCTA] [--runs 2] [--screenshots DIR]
                                        [--save after.json] [--before before.json | --against REVISION]

Starts the app as production runs it (gunicorn with ``dashboard/gunicorn_conf.py``: the app
preloaded and every country warmed before the first request, one ``gthread`` worker of four
threads so the page's parallel callbacks are not queued behind each other; the shipped
``data_cache/``), waits until it answers, and, for each data set, opens ``/explore?country=<code>`` in a fresh browser context (no
cached geometry) and measures:

* **first draw**: from navigation to MapLibre having loaded the served geometry and drawn
  its features (the same test as ``tests/browser/test_browser_new_countries.py``);
* of which **figure arrival**: navigation until the map's figure (data, no geometry yet) is on
  the page — the server's and Dash's share, and loading plotly.js (the graph element exists only once
  plotly.js has run); the rest of the first draw is fetching, parsing and drawing the geometry;
* **colour change**: from choosing another statistic, on a page that has finished loading (the
  sections below the map come once it has drawn), to the map's title and colours being updated and
  MapLibre idle again;
* **first draw, page clock**: the first draw as the page's own clock has it (``performance.now()``,
  from the navigation's start, at MapLibre's first "idle" with every source and tile loaded): what a
  person waits after opening the link, without Playwright's way to the navigation and its polling
  (~0.3 s here).  The targets are checked on the wall-clock columns.

Printed: one table, a row per data set side by side (polygons, geometry size, the median
of ``--runs`` first draws, figure arrivals and colour changes); ``--save`` writes the medians
as JSON and ``--before`` adds that file's figures as "before" columns.  ``--against REVISION`` (a git
revision, or a folder holding another tree) is the comparison to trust on a machine whose speed drifts
(this one's did by a third from one day to the next): that tree's app is served beside this one and
the two servers' pages are opened in turn, each first every other run, so both medians come from
the same minutes.  A data set without a map (US-ZCTA ships no ZIP-area boundaries)
gets a row saying so.  Targets (issue 26): first draw < 3 s, colour change < 1 s; exit code 1
when a target is missed.  Timings depend on the machine's load: the table's header prints
``os.getloadavg()``.  Chromium: ``/usr/bin/chromium`` (``ANONSET_CHROMIUM`` overrides).
"""
from __future__ import annotations

import argparse
import contextlib
import json
import os
import socket
import statistics
import subprocess
import sys
import tempfile
import time
import urllib.request
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
TARGET_FIRST_S, TARGET_COLOUR_S = 3.0, 1.0
MAP = "document.querySelector('#explore-map .js-plotly-plot')"
DRAWN = (f"(() => {{ const g = {MAP}; if (!g || !g._fullLayout || !g._fullLayout.map) return false;"
         " const s = g._fullLayout.map._subplot; const m = s && s.map; if (!m || !m.loaded()) return false;"
         " const st = m.getStyle(); if (!st || !st.sources) return false;"
         " const src = Object.keys(st.sources); return src.length > 0 && src.every(k => m.isSourceLoaded(k))"
         " && src.reduce((n, k) => n + m.querySourceFeatures(k).length, 0) > 0; })()")
#: Run in every page before its scripts: the page's own clock (ms from navigation start, as a person's wait starts
#: when they open the link) at MapLibre's first "idle" once the map has sources and every one is loaded with its
#: tiles, i.e. the districts drawn.  It leaves out what the wall-clock "first draw" adds around the page: Playwright's
#: way to the navigation's start and its polling of DRAWN.
PAGE_CLOCK = r"""(function wait() {
  const g = document.querySelector('#explore-map .js-plotly-plot');
  const m = g && g._fullLayout && g._fullLayout.map && g._fullLayout.map._subplot && g._fullLayout.map._subplot.map;
  if (!m) { setTimeout(wait, 20); return; }
  m.on('idle', () => {
    const st = m.getStyle(), src = st && st.sources ? Object.keys(st.sources) : [];
    if (!window.__anonsetDrawnAt && src.length && src.every(k => m.isSourceLoaded(k)) && m.areTilesLoaded())
      window.__anonsetDrawnAt = performance.now();
  });
})();"""
IDLE = (f"(() => {{ const g = {MAP}; const m = g._fullLayout.map._subplot.map;"
        " return m.loaded() && !m.isMoving() && m.areTilesLoaded(); })()")


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def _serve(log, root: Path = ROOT) -> tuple[subprocess.Popen, str]:
    """The app of the source tree ``root`` under gunicorn with the production configuration, answering on a free
    loopback port."""
    port = _free_port()
    env = {**os.environ, "ANONSET_BIND": f"127.0.0.1:{port}", "ANONSET_WORKERS": "1", "ANONSET_THREADS": "4"}
    proc = subprocess.Popen([sys.executable, "-m", "gunicorn", "-c", "dashboard/gunicorn_conf.py", "dashboard.wsgi:server"],
                            cwd=root, stdout=log, stderr=subprocess.STDOUT, env=env)
    url = f"http://127.0.0.1:{port}"
    deadline = time.time() + 300  # the master warms every country before it forks the worker
    while time.time() < deadline:
        if proc.poll() is not None:
            raise SystemExit("the app did not start (see the log)")
        try:
            with urllib.request.urlopen(f"{url}/about", timeout=5) as response:
                if response.status == 200:
                    return proc, url
        except OSError:
            time.sleep(0.5)
    proc.terminate()
    raise SystemExit("the app did not answer within 300 s")


def measure(browser, url: str, code: str, width: int, height: int, shot: Path | None) -> tuple[float, float, float, float]:
    context = browser.new_context(viewport={"width": width, "height": height}, is_mobile=width < 500,
                                  bypass_csp=True)  # the page forbids eval; the probes below need it
    context.add_init_script(PAGE_CLOCK)
    pg = context.new_page()
    t0 = time.perf_counter()
    pg.goto(f"{url}/explore?country={code}")
    pg.wait_for_function(f"(() => {{ const g = {MAP}; return !!(g && g.data && g.data.length); }})()",
                         timeout=180_000, polling=50)
    figure = time.perf_counter() - t0
    pg.wait_for_function(DRAWN, timeout=180_000, polling=50)
    first = time.perf_counter() - t0
    pg.wait_for_function("() => !!window.__anonsetDrawnAt", timeout=60_000, polling=100)
    page_first = pg.evaluate("window.__anonsetDrawnAt") / 1000
    # the sections below the map come once it has drawn (assets/explorer.js): a person changes the statistic on a page
    # that has finished loading, so the colour change is timed from there
    pg.wait_for_selector("#explore-readouts .readout", timeout=60_000)
    pg.wait_for_load_state("networkidle")
    pg.wait_for_function(IDLE, timeout=60_000, polling=50)
    title = pg.evaluate(f"{MAP}.layout.title.text")
    t0 = time.perf_counter()
    pg.check("#explore-stat input[value=min]")
    pg.wait_for_function(f"{MAP}.layout.title.text !== {title!r}", timeout=60_000, polling=20)
    pg.wait_for_function(IDLE, timeout=60_000, polling=20)
    colour = time.perf_counter() - t0
    if shot is not None:
        shot.mkdir(parents=True, exist_ok=True)
        pg.screenshot(path=str(shot / f"explorer-{code}-{width}x{height}.png"), full_page=False)
    context.close()
    return first, figure, colour, page_first


COLUMNS = ("first", "figure", "colour", "page")


def _row(code: str, info: dict, now: dict | None, before: dict | None) -> str:
    """One data set's line of the table: size, then first draw / figure arrival / colour change (before → now)."""
    b = info.get("boundaries") or {}
    size = f"{b.get('features', 0):>6,} {b.get('bytes', 0) / 1e6:5.2f} MB" if b else f"{'–':>6} {'–':>8}"
    cells = []
    for column in COLUMNS:
        was = (before or {}).get(column)
        new = (now or {}).get(column)
        text = f"{new:6.2f}" if new is not None else f"{'no map':>6}"
        if before is not None:
            text = (f"{was:6.2f}" if was is not None else f"{'–':>6}") + " → " + text
        cells.append(text)
    return f"{code:<8} {size}  " + "  ".join(cells)


@contextlib.contextmanager
def _tree(against: str):
    """The source tree to compare with: a folder as it is, or a git revision of this repository checked out into a
    temporary worktree (removed afterwards; it holds that revision's shipped data_cache/)."""
    if Path(against).is_dir():
        yield Path(against)
        return
    folder = Path(tempfile.mkdtemp(prefix="anonset-against-")) / "tree"
    subprocess.run(["git", "worktree", "add", "--detach", "--quiet", str(folder), against], cwd=ROOT, check=True)
    try:
        yield folder
    finally:
        subprocess.run(["git", "worktree", "remove", "--force", str(folder)], cwd=ROOT, check=False)


def _medians(runs: list) -> dict:
    out = {column: round(statistics.median(r[i] for r in runs), 2) for i, column in enumerate(COLUMNS)}
    out["runs"] = [[round(v, 2) for v in r] for r in runs]
    return out


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--countries", default="DE,IT-COM,BR,US,US-ZCTA", help="comma-separated data set codes")
    parser.add_argument("--runs", type=int, default=2, help="first draws per data set (median printed)")
    parser.add_argument("--width", type=int, default=1440)
    parser.add_argument("--height", type=int, default=900)
    parser.add_argument("--screenshots", type=Path, default=None, help="folder for one screenshot per data set")
    parser.add_argument("--save", type=Path, default=None, help="write the medians to this JSON file")
    parser.add_argument("--before", type=Path, default=None, help="a --save file to print as the 'before' columns")
    parser.add_argument("--against", default=None,
                        help="a git revision (or a folder) to serve beside this tree and measure in the same run, the "
                             "two servers' pages opened in turn: its medians are the 'before' columns")
    args = parser.parse_args(argv)
    if args.against and args.before:
        parser.error("--against and --before both give the 'before' columns: choose one")
    sys.path.insert(0, str(ROOT))
    from playwright.sync_api import sync_playwright

    import census_loaders as cl

    codes = [c.strip().upper() for c in args.countries.split(",") if c.strip()]
    before = json.loads(args.before.read_text()) if args.before else None
    results: dict[str, dict | None] = {}
    notes: list[str] = []
    load_at_start = os.getloadavg()
    with tempfile.TemporaryFile("w+") as log, contextlib.ExitStack() as stack:
        servers = {"now": _serve(log)}
        if args.against:
            servers["before"] = _serve(log, stack.enter_context(_tree(args.against)))
            before = {}
        try:
            with sync_playwright() as p:
                browser = p.chromium.launch(executable_path=os.environ.get("ANONSET_CHROMIUM", "/usr/bin/chromium"))
                for code in codes:
                    info = cl.dataset_info(code)
                    if not info.get("boundaries"):
                        results[code] = None
                        notes.append(f"{code}: no map ({info.get('boundary_note', 'no boundaries')})")
                        continue
                    runs = {name: [] for name in servers}
                    for i in range(args.runs):  # the servers in turn, each first every other run
                        for name in (list(servers) if i % 2 == 0 else list(servers)[::-1]):
                            runs[name].append(measure(browser, servers[name][1], code, args.width, args.height,
                                                      args.screenshots if i == 0 and name == "now" else None))
                    results[code] = _medians(runs["now"])
                    if args.against:
                        before[code] = _medians(runs["before"])
                    for name, measured in runs.items():
                        print(f"  {code} {name}: runs (first / figure / colour / first by the page's clock) "
                              + ", ".join("/".join(f"{v:.2f}" for v in r) for r in measured), flush=True)
                browser.close()
        finally:
            for proc, _url in servers.values():
                proc.terminate()
                proc.wait(timeout=30)
    load_at_end = os.getloadavg()
    arrow = "before → now" if before is not None else "now"
    if args.against:
        arrow += f"; before: {args.against}, served beside this tree in the same run"
    print(f"\nmap draw in Chromium {args.width}×{args.height}, median of {args.runs} run(s), seconds ({arrow}); "
          f"load average {load_at_start[0]:.1f} at start, {load_at_end[0]:.1f} at end")
    print(f"{'data set':<8} {'polygons':>6} {'geometry':>8}  {'first draw':^{15 if before else 6}}  "
          f"{'figure':^{15 if before else 6}}  {'colour':^{15 if before else 6}}  {'first, page':^{15 if before else 11}}")
    for code in codes:
        print(_row(code, cl.dataset_info(code), results.get(code), (before or {}).get(code) if before else None))
    for note in notes:
        print(note)
    print("first draw: navigation → MapLibre has drawn the geometry; figure: navigation → the figure is on the page; "
          "colour: another statistic → recoloured and idle; first, page: the first draw by the page's own clock, from "
          "the navigation's start (without Playwright's way there and its polling).  "
          f"Targets, on the wall-clock columns: first draw < {TARGET_FIRST_S:.0f} s, "
          f"colour < {TARGET_COLOUR_S:.0f} s.")
    if args.save:
        args.save.write_text(json.dumps({"load": [load_at_start[0], load_at_end[0]], **results}, indent=1))
    measured = [r for r in results.values() if r]
    ok = all(r["first"] < TARGET_FIRST_S and r["colour"] < TARGET_COLOUR_S for r in measured)
    print("targets met" if ok else "TARGET MISSED")
    return 0 if ok else 1


if __name__ == "__main__":
    raise SystemExit(main())
