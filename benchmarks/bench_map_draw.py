"""Time the explorer's district map in headless Chromium: first draw and a colour change.

Usage::

    python benchmarks/bench_map_draw.py [--countries DE,IT-COM,BR,US] [--runs 2] [--screenshots DIR]

Starts the app (gunicorn, one worker, on a free loopback port, the shipped ``data_cache/``)
and, for each data set, opens ``/explore?country=<code>`` in a fresh browser context (no
cached geometry) and measures:

* **first draw**: from navigation to MapLibre having loaded the served geometry and drawn
  its features (the same test as ``tests/browser/test_browser_new_countries.py``);
* of which **figure arrival**: navigation until the map's figure (data, no geometry yet) is on
  the page — the server's and Dash's share; the rest of the first draw is fetching, parsing
  and drawing the geometry;
* **colour change**: from choosing another statistic to the map's title and colours being
  updated and MapLibre idle again.

Printed per data set: the geometry file's size, the median of ``--runs`` first draws and
colour changes; targets (issue 26): first draw < 3 s, colour change < 1 s.  Exit code 1
when a target is missed.  Chromium: ``/usr/bin/chromium`` (``ANONSET_CHROMIUM`` overrides).
"""
from __future__ import annotations

import argparse
import os
import socket
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
TARGET_FIRST_S, TARGET_COLOUR_S = 3.0, 1.0
MAP = "document.querySelector('#explore-map .js-plotly-plot')"
DRAWN = (f"(() => {{ const g = {MAP}; if (!g || !g._fullLayout || !g._fullLayout.map) return false;"
         " const s = g._fullLayout.map._subplot; const m = s && s.map; if (!m || !m.loaded()) return false;"
         " const st = m.getStyle(); if (!st || !st.sources) return false;"
         " const src = Object.keys(st.sources); return src.length > 0 && src.every(k => m.isSourceLoaded(k))"
         " && src.reduce((n, k) => n + m.querySourceFeatures(k).length, 0) > 0; })()")
IDLE = (f"(() => {{ const g = {MAP}; const m = g._fullLayout.map._subplot.map;"
        " return m.loaded() && !m.isMoving() && m.areTilesLoaded(); })()")


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def _serve(log) -> tuple[subprocess.Popen, str]:
    port = _free_port()
    proc = subprocess.Popen([sys.executable, "-m", "gunicorn", "dashboard.wsgi:server", "--bind", f"127.0.0.1:{port}",
                             "--workers", "1", "--timeout", "120"], cwd=ROOT, stdout=log, stderr=subprocess.STDOUT)
    deadline = time.time() + 90
    while time.time() < deadline:
        if proc.poll() is not None:
            raise SystemExit("the app did not start (see the log)")
        try:
            with socket.create_connection(("127.0.0.1", port), timeout=0.5):
                return proc, f"http://127.0.0.1:{port}"
        except OSError:
            time.sleep(0.3)
    proc.terminate()
    raise SystemExit("the app did not open its port within 90 s")


def measure(browser, url: str, code: str, width: int, height: int, shot: Path | None) -> tuple[float, float]:
    context = browser.new_context(viewport={"width": width, "height": height}, is_mobile=width < 500,
                                  bypass_csp=True)  # the page forbids eval; the probes below need it
    pg = context.new_page()
    t0 = time.perf_counter()
    pg.goto(f"{url}/explore?country={code}")
    pg.wait_for_function(f"(() => {{ const g = {MAP}; return !!(g && g.data && g.data.length); }})()",
                         timeout=180_000, polling=50)
    figure = time.perf_counter() - t0
    pg.wait_for_function(DRAWN, timeout=180_000, polling=50)
    first = time.perf_counter() - t0
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
    return first, colour, figure


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--countries", default="DE,IT-COM,BR,US", help="comma-separated data set codes with a map")
    parser.add_argument("--runs", type=int, default=2, help="first draws per data set (median printed)")
    parser.add_argument("--width", type=int, default=1440)
    parser.add_argument("--height", type=int, default=900)
    parser.add_argument("--screenshots", type=Path, default=None, help="folder for one screenshot per data set")
    args = parser.parse_args(argv)
    sys.path.insert(0, str(ROOT))
    from playwright.sync_api import sync_playwright

    import census_loaders as cl

    codes = [c.strip().upper() for c in args.countries.split(",") if c.strip()]
    ok = True
    with tempfile.TemporaryFile("w+") as log:
        proc, url = _serve(log)
        try:
            with sync_playwright() as p:
                browser = p.chromium.launch(executable_path=os.environ.get("ANONSET_CHROMIUM", "/usr/bin/chromium"))
                for code in codes:
                    info = cl.dataset_info(code)
                    if not info.get("boundaries"):
                        print(f"{code}: no map ({info.get('boundary_note', 'no boundaries')})")
                        continue
                    runs = [measure(browser, url, code, args.width, args.height, args.screenshots if i == 0 else None)
                            for i in range(args.runs)]
                    first = statistics.median(r[0] for r in runs)
                    colour = statistics.median(r[1] for r in runs)
                    figure = statistics.median(r[2] for r in runs)
                    b = info["boundaries"]
                    print(f"{code}: {b['features']:,} polygons, geometry {b['bytes'] / 1e6:.2f} MB; first draw "
                          f"{first:.2f} s (target < {TARGET_FIRST_S:.0f} s), colour change {colour:.2f} s "
                          f"(target < {TARGET_COLOUR_S:.0f} s); the figure arrived after {figure:.2f} s, so the geometry took "
                          f"{first - figure:.2f} s; runs (first/colour) {', '.join(f'{a:.2f}/{c:.2f}' for a, c, _ in runs)}")
                    ok &= first < TARGET_FIRST_S and colour < TARGET_COLOUR_S
                browser.close()
        finally:
            proc.terminate()
            proc.wait(timeout=15)
    print("targets met" if ok else "TARGET MISSED")
    return 0 if ok else 1


if __name__ == "__main__":
    raise SystemExit(main())
