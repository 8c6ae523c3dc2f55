"""The personal page computed in the browser (issue 15): how fast, and how big are the tables.

Runs the real app under gunicorn and drives it in headless Chromium:

* **first answer after choosing a country**: from the click on the country to the funnel
  showing that country's numbers (the table fetch, the engine and the drawing included),
  for each country in COUNTRIES; "cold server" = the first request for that table after the
  server started, "warm server" = a fresh browser (empty browser cache) against a server that
  has built the table before;
* **every later change**: from leaving the height box (the debounce fires on blur) to the
  funnel showing the new band — the renderer, the engine, React and the figures; plus the
  engine's own time (compute callback) for the same changes;
* **table sizes**: bytes of each table as served, gzip and raw, for the default widths and 1 × 1.

Targets (issue 15): first answer < 300 ms, later changes < 30 ms, US table < 1.5 MB compressed.
Usage: python benchmarks/bench_personal_client.py [--repeat 15]
"""
from __future__ import annotations

import argparse
import gzip
import statistics
import sys
import urllib.request
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "tests"))

from support.browser import CHROMIUM, CHROMIUM_ARGS, running_server  # noqa: E402

COUNTRIES = (("US", "United States"), ("GB", "United Kingdom"), ("FR", "France"), ("US-ZCTA", "ZCTA"))
VERBOSE = False
START = "/?country=DE#sex=female&ages=40%E2%80%9345&hcm=170&wkg=70"

WATCH = """() => {
  window.__seen = null;
  const target = document.querySelector('#me-funnel-text');
  const obs = new MutationObserver(() => {
    const t = target.innerText;
    if (window.__want && t.includes(window.__want) && window.__seen === null) window.__seen = performance.now();
  });
  obs.observe(target, {childList: true, subtree: true, characterData: true});
}"""


def _pick_country(pg, code: str) -> None:
    """Open the country dropdown and type, so only the final click is timed."""
    pg.click("#me-country")
    pg.keyboard.type(code)
    option = pg.locator(f"label.dash-dropdown-option:has(input[value='{code}'])")
    option.wait_for(state="visible")
    return option


def first_answer(browser, url: str, code: str, want: str) -> float:
    ctx = browser.new_context(viewport={"width": 1440, "height": 900}, bypass_csp=True)
    pg = ctx.new_page()
    pg.goto(url + START)
    pg.wait_for_function("(document.querySelector('#me-funnel-text')?.innerText || '').includes('Germany')", timeout=60_000)
    pg.evaluate(WATCH)
    option = _pick_country(pg, code)
    pg.evaluate("document.addEventListener('mousedown', () => { if (window.__armed) "
                "{ window.__t0 = performance.now(); window.__armed = false; } }, true)")
    pg.evaluate(f"window.__want = {want!r}; window.__seen = null; window.__armed = true")
    option.click()
    pg.wait_for_function("window.__seen !== null", timeout=60_000)
    ms = pg.evaluate("window.__seen - window.__t0")
    if VERBOSE:
        rows = pg.evaluate("""() => performance.getEntriesByType('resource').filter(e => e.startTime >= window.__t0 - 5)
            .map(e => [e.name.split('/').pop().slice(0, 40), Math.round(e.startTime - window.__t0), Math.round(e.responseEnd - window.__t0)])""")
        for name, start, end in rows:
            print(f"      {name:42s} {start:6d} → {end:6d} ms")
    ctx.close()
    return ms


def later_changes(browser, url: str, repeat: int) -> tuple[list[float], list[float], list[float]]:
    """Each change a person makes, timed in the page from the Tab key's keydown (the debounced box
    commits on blur) to the funnel showing the new band; a pause before each, as a person types."""
    ctx = browser.new_context(viewport={"width": 1440, "height": 900}, bypass_csp=True)
    pg = ctx.new_page()
    pg.goto(url + "/?country=US#district=06037&sex=female&ages=40%E2%80%9345&hcm=170&wkg=70")
    pg.wait_for_function("(document.querySelector('#me-funnel-text')?.innerText || '').includes('170–175 cm')",
                         timeout=60_000)
    pg.evaluate(WATCH)
    pg.evaluate("document.addEventListener('keydown', e => { if (e.key === 'Tab' && window.__armed) "
                "{ window.__t0 = performance.now(); window.__armed = false; } }, true)")
    page_ms, dispatch_ms, engine_ms = [], [], []
    for i in range(repeat):
        h = 150 + 5 * (i % 8)
        pg.wait_for_timeout(700)  # the previous change's map and charts are drawn, as between a person's edits
        pg.fill("#me-height-cm", str(h + 1))
        pg.evaluate(f"window.__want = '{h}–{h + 5} cm'; window.__seen = null; window.__armed = true")
        pg.press("#me-height-cm", "Tab")
        pg.wait_for_function("window.__seen !== null", timeout=30_000)
        seen, start, ms = pg.evaluate("[window.__seen - window.__t0, window.__anonsetLastCompute.start - window.__t0, "
                                      "window.__anonsetLastCompute.ms]")
        page_ms.append(seen)
        dispatch_ms.append(start)
        engine_ms.append(ms)
    ctx.close()
    return page_ms, dispatch_ms, engine_ms


def sizes(url: str) -> list[tuple[str, str, int, int, int, int]]:
    out = []
    for code in ("DE", "US", "US-ZCTA", "GB", "FR"):
        for model, hw, ww in (("v2", 5, 5), ("v2", 1, 1), ("paper", 5, 5), ("paper", 1, 1)):
            req = urllib.request.Request(f"{url}/_tables/{code}.json?model={model}&hw={hw}&ww={ww}",
                                         headers={"Accept-Encoding": "gzip"})
            with urllib.request.urlopen(req, timeout=120) as r:
                body = r.read()
            raw = len(gzip.decompress(body)) if r.headers.get("Content-Encoding") == "gzip" else len(body)
            out.append((code, model, hw, ww, len(body), raw))
    return out


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--repeat", type=int, default=15)
    ap.add_argument("--verbose", action="store_true", help="list the requests of each first answer")
    args = ap.parse_args()
    global VERBOSE
    VERBOSE = args.verbose
    from playwright.sync_api import sync_playwright

    log = Path("/tmp/bench_personal_client.log")
    with running_server(log) as url, sync_playwright() as p:
        browser = p.chromium.launch(executable_path=CHROMIUM, headless=True, args=CHROMIUM_ARGS)
        print("first answer after choosing a country (click → funnel drawn, table fetch included), ms:")
        for code, want in COUNTRIES:
            cold = first_answer(browser, url, code, want)
            warm = [first_answer(browser, url, code, want) for _ in range(3)]
            print(f"  {code:8s} cold server {cold:7.1f}   warm server, empty browser cache: "
                  f"median {statistics.median(warm):6.1f} (max {max(warm):6.1f})")
        page_ms, dispatch_ms, engine_ms = later_changes(browser, url, args.repeat)
        print(f"every later change (US, Los Angeles; Tab keydown → funnel drawn), {len(page_ms)} changes, ms: "
              f"median {statistics.median(page_ms):.1f}, p90 {sorted(page_ms)[int(0.9 * len(page_ms)) - 1]:.1f}, "
              f"max {max(page_ms):.1f}")
        print(f"  of which Dash's dispatch (keydown → the compute callback starts): median "
              f"{statistics.median(dispatch_ms):.1f}; the compute callback (engine + building the outputs): "
              f"median {statistics.median(engine_ms):.1f}, max {max(engine_ms):.1f}")
        browser.close()
        print("table sizes (as served; gzip / raw):")
        for code, model, hw, ww, gz, raw in sizes(url):
            print(f"  {code:8s} {model:5s} {hw:2d} cm × {ww:2d} kg  {gz / 1024:7.1f} KiB gzip  {raw / 1024:7.1f} KiB raw")
    print("(shared 2-core machine: several other jobs were running)")


if __name__ == "__main__":
    main()
