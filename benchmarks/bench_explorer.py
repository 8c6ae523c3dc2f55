"""Time the regional explorer's colour-only map update, as the server runs it.

Usage::

    python benchmarks/bench_explorer.py [--calls 60] [--countries DE,US]

For each country the map callback (``on_map`` of ``dashboard/pages/explorer.py``)
is called directly, as Dash calls it for a request:

1. once with nothing loaded: the full figure, which references the district
   geometry by URL; the browser fetches that file (``/geo/<code>.geojson``) once.
   The figure's JSON plus that file is what a first draw costs, the denominator
   below;
2. then ``--calls`` times with that figure loaded, each call switching to the
   next map statistic (person mean → cell mean → minimum → maximum → share below
   k → …): a colour-only update.  The core is memoised as in the running app, so
   after the first round each call is the page's own work — parse the scenario,
   read the memoised district statistics, build colours, hover texts and the
   colour bar, wrap them in a ``dash.Patch``.

Printed: median and p95 server time of a colour-only update (target p95 < 100 ms)
and the JSON payload of that update as a share of the first draw (target < 10 %).
Exit code 1 when a target is missed.
"""
from __future__ import annotations

import argparse
import json
import statistics
import sys
import time
from pathlib import Path

import plotly

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

TARGET_P95_MS = 100.0
TARGET_SHARE = 0.10


def payload(obj) -> int:
    """Bytes of the JSON Dash sends for a figure or a Patch."""
    if hasattr(obj, "to_plotly_json"):
        obj = obj.to_plotly_json()
    return len(json.dumps(obj, cls=plotly.utils.PlotlyJSONEncoder).encode("utf-8"))


def percentile(values: list[float], q: float) -> float:
    ordered = sorted(values)
    i = min(len(ordered) - 1, max(0, round(q * (len(ordered) - 1))))
    return ordered[i]


def bench(page, code: str, calls: int) -> tuple[float, float, float]:
    from dashboard.core.regions import STATS, Scenario

    base = Scenario(countries=(code,))
    t = time.perf_counter()
    fig, loaded, *_ = page.on_map(base.to_query(), None, None)
    t_full = time.perf_counter() - t
    import census_loaders as cl

    geometry = cl.dataset_info(code)["boundaries"]["bytes"]  # the served file, fetched once per country
    full = payload(fig) + geometry
    times, sizes = [], []
    for i in range(calls):
        stat = STATS[(i + 1) % len(STATS)]
        query = base.replace(stat=stat).to_query()
        t = time.perf_counter()
        patch, state, *_ = page.on_map(query, None, loaded)
        times.append(time.perf_counter() - t)
        if type(patch).__name__ != "Patch":
            raise SystemExit(f"{code}: expected a Patch for a colour-only update, got {type(patch).__name__}")
        body = json.dumps(patch.to_plotly_json(), cls=plotly.utils.PlotlyJSONEncoder)
        if "coordinates" in body:
            raise SystemExit(f"{code}: the colour-only update resent geometry")
        sizes.append(len(body.encode("utf-8")))
        loaded = state
    med, p95 = statistics.median(times) * 1e3, percentile(times, 0.95) * 1e3
    share = max(sizes) / full
    print(f"{code}: full figure {(full - geometry) / 1e3:,.0f} kB + geometry file {geometry / 1e3:,.0f} kB, "
          f"built in {t_full * 1e3:,.0f} ms (first call, cold)")
    print(f"    colour-only update over {calls} calls: median {med:.1f} ms, p95 {p95:.1f} ms "
          f"(target p95 < {TARGET_P95_MS:.0f} ms)")
    print(f"    payload {statistics.median(sizes) / 1e3:,.1f} kB median, {max(sizes) / 1e3:,.1f} kB largest = "
          f"{100 * share:.1f} % of the first draw (target < {100 * TARGET_SHARE:.0f} %)")
    return med, p95, share


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--calls", type=int, default=60, help="colour-only updates per country (≥ 50)")
    parser.add_argument("--countries", default="DE,US", help="comma-separated data set codes with boundaries")
    args = parser.parse_args(argv)
    if args.calls < 50:
        parser.error("--calls must be at least 50")
    from dashboard.pages import explorer as page
    from dashboard.wsgi import app  # noqa: F401  (registers the pages as the server does)

    ok = True
    for code in [c.strip().upper() for c in args.countries.split(",") if c.strip()]:
        _, p95, share = bench(page, code, args.calls)
        ok &= p95 < TARGET_P95_MS and share < TARGET_SHARE
    print("targets met" if ok else "TARGET MISSED")
    return 0 if ok else 1


if __name__ == "__main__":
    raise SystemExit(main())
