"""Chromium's CPU per page load of the app, three ways of opening pages side by side (issue 25: the suite's time).

Usage::

    python benchmarks/bench_browser_loads.py [--loads 4] [--paths /about,/scaling,/explore?country=DE]

The browser tests spend about half of the suite's CPU in Chromium, most of it loading pages.  How a test opens
its page decides much of that cost, so this prints, for each path, Chromium's CPU (every Chromium process,
including renderers that have exited, from ``/proc``) per load when each load is:

* **new context**: a fresh browser context and tab per load, as the tests did (cold HTTP and code caches: the
  app's scripts are fetched, parsed and compiled again);
* **tab, used context**: a new tab per load in one context that has loaded the app before (what
  ``tests/support/browser.Visitors`` gives the tests);
* **via about:blank**: one tab going to each load through ``about:blank`` (the language checks did this: every
  load starts a new renderer process).

Each way runs in a browser of its own, its count taken over ``--loads`` loads from a settled start to every
process reaped; the ways alternate round by round, so a change of the machine's load hits all of them alike; the
table's header prints ``os.getloadavg()``.  The app runs under gunicorn as ``bench_map_draw.py`` starts it.
Chromium: ``/usr/bin/chromium`` (``ANONSET_CHROMIUM`` overrides).
"""
from __future__ import annotations

import argparse
import os
import re
import statistics
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from bench_map_draw import _serve  # noqa: E402  - the same production-like server

HZ = os.sysconf("SC_CLK_TCK")
ARGS = ["--no-sandbox", "--disable-background-networking", "--disable-component-update", "--disable-sync",
        "--disable-quic", "--no-first-run", "--disable-gpu"]  # as tests/support/browser.py launches it
VIEWPORT = {"width": 1366, "height": 900}
SETTLE_S = 1.5  # after each load: an exited process's CPU reaches its parent's cutime when it is reaped
WAYS = ("new context", "tab, used context", "via about:blank")


def chromium_cpu_s() -> float:
    """CPU seconds of every Chromium process, children that have exited and been reaped included (cutime, cstime;
    a zombie's command line is empty, so a process not yet reaped is missed: hence ``SETTLE_S``)."""
    total = 0
    for pid in os.listdir("/proc"):
        if not pid.isdigit():
            continue
        try:
            if b"chrom" not in Path(f"/proc/{pid}/cmdline").read_bytes():
                continue
            stat = Path(f"/proc/{pid}/stat").read_text()
        except OSError:
            continue
        fields = stat[stat.rfind(")") + 2:].split()
        total += sum(int(v) for v in fields[11:15])
    return total / HZ


def _load(pg, url: str) -> None:
    pg.goto(url)
    pg.wait_for_load_state("networkidle")
    pg.wait_for_function("() => !document.querySelector('[data-dash-is-loading=\"true\"]')", polling=100)


def one_way(pw, url: str, path: str, way: str, loads: int) -> float:
    """Chromium's CPU seconds per load of ``path`` opened ``loads`` times ``way``, in a browser of its own (launched
    and shown the app once before the count starts, so every way starts from the same state; closed, and its
    processes reaped, before the count ends)."""
    browser = pw.chromium.launch(executable_path=os.environ.get("ANONSET_CHROMIUM", "/usr/bin/chromium"),
                                 headless=True, args=ARGS)
    used = browser.new_context(viewport=VIEWPORT, bypass_csp=True)
    first = used.new_page()
    _load(first, f"{url}{path}")  # the context has seen the app once
    first.close()
    walker = used.new_page()
    time.sleep(SETTLE_S)
    before = chromium_cpu_s()
    for i in range(loads):
        target = f"{url}{path}{'&' if '?' in path else '?'}round={i}"  # a new document each time
        if way == "new context":
            ctx = browser.new_context(viewport=VIEWPORT, bypass_csp=True)
            _load(ctx.new_page(), target)
            ctx.close()
        elif way == "tab, used context":
            tab = used.new_page()
            _load(tab, target)
            tab.close()
        else:
            walker.goto("about:blank")
            _load(walker, target)
    walker.close()
    time.sleep(SETTLE_S)  # a closed renderer's CPU counts once its parent has reaped it
    spent = chromium_cpu_s() - before
    browser.close()
    return spent / loads


def measure(pw, url: str, path: str, loads: int, rounds: int) -> dict[str, float]:
    """Median over ``rounds`` of the CPU seconds per load of ``path`` for each way (ways alternate round by round)."""
    per_way: dict[str, list[float]] = {way: [] for way in WAYS}
    for _ in range(rounds):
        for way in WAYS:
            per_way[way].append(one_way(pw, url, path, way, loads))
    return {way: statistics.median(v) for way, v in per_way.items()}


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--loads", type=int, default=4, help="loads per way and round")
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--paths", default="/about,/scaling,/explore?country=DE,/?country=DE")
    args = parser.parse_args(argv)
    from playwright.sync_api import sync_playwright

    with tempfile.TemporaryFile() as log:
        server, url = _serve(log)
        try:
            with sync_playwright() as p:
                load = os.getloadavg()
                print(f"Chromium CPU seconds per page load, median of {args.rounds} rounds of {args.loads} (load average "
                      f"{load[0]:.1f} {load[1]:.1f} {load[2]:.1f})")
                print(f"{'path':28s}" + "".join(f"{w:>20s}" for w in WAYS) + f"{'new ctx / tab':>15s}")
                for path in args.paths.split(","):
                    cpu = measure(p, url, path, args.loads, args.rounds)
                    ratio = cpu["new context"] / cpu["tab, used context"]
                    print(f"{re.sub(r'^/$', '/ (personal)', path)[:28]:28s}"
                          + "".join(f"{cpu[w]:20.2f}" for w in WAYS) + f"{ratio:15.1f}", flush=True)
        finally:
            server.terminate()
            server.wait(30)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
