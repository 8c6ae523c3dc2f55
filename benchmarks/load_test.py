"""Load test: simulated users drive every page's real callbacks under gunicorn.

Usage::

    python benchmarks/load_test.py [--users 200] [--duration 60] [--workers N] [--think 3.0] [--ramp 10]
                                   [--url http://127.0.0.1:8050]   # an already running server instead
                                   [--json results.json]
                                   [--adversarial]     # + one client sending the costliest allowed requests
                                   [--personal-tables /route/{country}.json]
                                   [--cold-tables]     # load at once, while the public tables still warm

Starts ``gunicorn -c dashboard/gunicorn_conf.py dashboard.wsgi:server`` on a free
127.0.0.1 port (unless ``--url`` is given), measures the cold start to the first
page, then runs ``--users`` simulated users (one thread each, a bounded pool) for
``--duration`` seconds.  Each user, in a loop that ends at the deadline:

1. opens a page from ``dash.page_registry`` (every registered page, so pages added
   later are covered): ``GET /path``, ``/_dash-layout``, ``/_dash-dependencies``
   and the page router's callback, exactly as the Dash renderer does;
2. fires the page's initial server callbacks with the values in its layout;
3. makes a few interactions, each changing one input the way a person would —
   an option of a dropdown / radio / checklist, a number near the field's
   placeholder ("e.g. 172") or inside its min/max, a slider position, a button
   click, a click on a map's district — and follows the chain of callbacks the
   answer triggers (the renderer's behaviour), applying every answer to its
   copy of the page;
4. thinks between actions (exponential, mean ``--think`` seconds).

A "Download report" button (explorer, bucket advisor, data-set page) is fetched by the browser, not by a
callback (issue 29: ``GET /_reports/<kind>``, assets/report_download.js): it is one of the inputs a user may
change, with the same chance as when a server callback made the report, and a click then fires any server
callback of that button (the data-set page's upload report, which answers a shipped data set with nothing) and
fetches the report by GET with the query the page's clientside function builds ("GET report <kind>" in the
table).  A refusal (400: a setting the user's random changes made wrong; 503: the report slots busy) is the
page's message, not an error, as the callback's refusal was; they are counted apart.

``--adversarial`` adds one client that sends the most expensive requests the cost limits
(``dashboard/limits.py``) allow, back to back with no think time, each one new so that no
cache answers it: explorer curves for as many data sets at 1 cm × 1 kg as the limit allows
with a new age range, the map of the largest data set at 1 cm × 1 kg, a census view of the
costliest data set at 1 cm × 1 kg and a forecast of the most points the page fits.  Its
requests are reported apart; the targets then apply to the normal users (p95 < 500 ms, 0
errors; the issue's figure for 100 users).

The personal page's traffic is one mode of a user's page visit (``PERSONAL_MODE``): today its
callbacks fire like every page's; once the page computes in the browser and only fetches a
table per country, ``--personal-tables /route/{country}.json`` switches its visits to one
``GET`` of that table per country chosen (and no callback per change).

No request leaves 127.0.0.1.  Prints whether there were 0 errors, p50/p95/p99
latency (all requests and per callback), requests/s, RSS (and PSS) of every
gunicorn worker with every country loaded, and the cold start.  Targets:
0 errors, p95 < 300 ms, RSS per worker < 1 GB, cold start < 5 s.
Exit status 0 when every target is met, 1 otherwise.
"""
from __future__ import annotations

import argparse
import json
import math
import os
import random
import re
import signal
import socket
import subprocess
import sys
import tempfile
import threading
import time
from collections import defaultdict
from pathlib import Path
from urllib.parse import urlparse

import requests

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "tests"))  # the Dash protocol helpers (tests/support) serve the callback tests too

from support.dash_protocol import (  # noqa: E402
    PATCH_KEY,
    ROUTER_OUTPUT,
    _is_wildcard,
    _key,
    callback_body,
    registered_pages,
    split_output,
    walk_components,
)

TARGETS = {"p95_ms": 300.0, "rss_mb": 1024.0, "cold_start_s": 5.0}
ADVERSARIAL_P95_MS = 500.0
#: How a visit to the personal page ("/") loads: its callbacks, or (after issue 15) one table per country.
PERSONAL_PAGE = "/"
PERSONAL_MODE = {"mode": "callbacks", "route": None}
#: Stores the browser sets by itself on a page's load, as a visitor's browser has them when the server's callbacks run:
#: the explorer's sections below the map are computed once the map has drawn (assets/explorer.js).
CLIENTSIDE_STORES = {"/explore": {("explore-map-drawn", "data"): "drawn"}}
RELOAD_P = 0.2  # share of page visits that are full loads (the rest follow a navbar link)
#: The clientside function of the pages' report buttons (assets/report_download.js): a click is a GET of the report.
REPORT_FUNCTION = "downloadReport"
# inputs a person never "changes" directly (the page or the browser sets them)
PASSIVE_PROPS = {"data", "n_intervals", "hash", "pathname", "search", "href", "active_cell", "selected_rows",
                 "derived_virtual_data", "relayoutData", "hoverData", "modified_timestamp", "loading_state",
                 "page_current", "sort_by", "filter_query", "style", "options", "columns", "figure", "disabled"}


# --------------------------------------------------------------------------- the app's structure


class AppModel:
    """What every user needs to know: dependencies and each page's layout (fetched once)."""

    def __init__(self, base: str, pages: list[str]):
        self.base = base
        s = requests.Session()
        self.shell = walk_components(s.get(f"{base}/_dash-layout", timeout=30).json())
        self.deps = s.get(f"{base}/_dash-dependencies", timeout=30).json()
        self.server_deps = [d for d in self.deps if not d.get("clientside_function") and d["output"] != ROUTER_OUTPUT]
        self.router = next(d for d in self.deps if d["output"] == ROUTER_OUTPUT)
        self.report_deps = [d for d in self.deps
                            if (d.get("clientside_function") or {}).get("function_name") == REPORT_FUNCTION]
        import census_loaders

        self.countries = census_loaders.countries()
        self.pages: dict[str, dict] = {}
        for path in pages:
            body = callback_body(self.router, {("_pages_location", "pathname"): path,
                                               ("_pages_location", "search"): ""},
                                 ["_pages_location.pathname", "_pages_location.search"])
            r = s.post(f"{base}/_dash-update-component", json=body, timeout=60)
            r.raise_for_status()
            content = r.json()["response"]["_pages_content"]["children"]
            comps = {**self.shell, **walk_components(content)}
            mine = [d for d in self.server_deps if self._belongs(d, comps)]
            reports = [d for d in self.report_deps if self._belongs(d, comps)]
            self.pages[path] = {"components": comps, "deps": mine, "reports": reports}

    @staticmethod
    def _belongs(dep: dict, comps: dict) -> bool:
        ids_ = [_key(d["id"], d["property"])[0] for d in dep["inputs"] if not _is_wildcard(d["id"])]
        return bool(ids_) and all(i in comps for i in ids_)


# --------------------------------------------------------------------------- a simulated user


class Stats:
    def __init__(self):
        self.lock = threading.Lock()
        self.latency: dict[str, list[float]] = defaultdict(list)
        self.errors: list[str] = []
        self.count = 0
        self.busy_retries = 0  # 503 + Retry-After answers waited out and asked again (see User._request)
        self.report_refusals: dict[int, int] = defaultdict(int)  # GET report answered 400 / 503 (the page's message)

    def record(self, label: str, seconds: float, error: str | None = None):
        with self.lock:
            self.latency[label].append(seconds * 1000)
            self.count += 1
            if error:
                self.errors.append(f"{label}: {error}")


def _js_text(value) -> str:
    """A value as JavaScript's String() writes it (a whole float without ".0")."""
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, float) and value.is_integer():
        return str(int(value))
    return str(value)


def report_query(names: list[str], values: list) -> list[tuple[str, str]]:
    """The report's query as assets/report_download.js ``reportQuery`` builds it (without ``lang``: English)."""
    from urllib.parse import parse_qsl

    out: list[tuple[str, str]] = []

    def add(name, value):
        if value is not None and value != "":
            out.append((name, _js_text(value)))

    for i, name in enumerate(names):
        value = values[i] if i < len(values) else None
        if not name:
            continue
        if name == "*":
            if isinstance(value, str):
                out.extend(parse_qsl(value.lstrip("?"), keep_blank_values=True))
            elif isinstance(value, dict):
                for key, v in value.items():
                    for x in v if isinstance(v, list) else [v]:
                        add(key, x)
        elif name.endswith(".*"):
            ids = values[i + 1] if i + 1 < len(values) and isinstance(values[i + 1], list) else []
            for v, ident in zip(value if isinstance(value, list) else [value], ids):
                if isinstance(ident, dict) and "column" in ident:
                    add(name[:-1] + str(ident["column"]), v)
        else:
            for x in value if isinstance(value, list) else [value]:
                add(name, x)
    return out


class User:
    def __init__(self, model: AppModel, stats: Stats, rng: random.Random, think: float, deadline: float):
        self.m, self.stats, self.rng, self.think, self.deadline = model, stats, rng, think, deadline
        self.s = requests.Session()
        self.state: dict[tuple[str, str], object] = {}
        self.page = None
        self.loaded = False

    # ---- requests
    def _request(self, label: str, method: str, path: str, retry_busy: int = 0, answered=(200, 204), **kw):
        """One request, timed.  ``retry_busy``: like the personal page's table fetch, a 503 with Retry-After
        ("busy, ask again") is waited out and asked again up to that many times (the wait counts in the time).
        ``answered``: the statuses that are no error (a report's refusals are the page's message)."""
        t0 = time.perf_counter()
        try:
            r = self.s.request(method, f"{self.m.base}{path}", timeout=60, **kw)
            for _ in range(retry_busy):
                if r.status_code != 503 or "Retry-After" not in r.headers:
                    break
                with self.stats.lock:
                    self.stats.busy_retries += 1
                time.sleep(min(8.0, max(1.0, float(r.headers.get("Retry-After") or 2))))
                r = self.s.request(method, f"{self.m.base}{path}", timeout=60, **kw)
            ok = r.status_code in answered
            self.stats.record(label, time.perf_counter() - t0, None if ok else f"HTTP {r.status_code}")
            return r if ok else None
        except requests.RequestException as exc:
            self.stats.record(label, time.perf_counter() - t0, type(exc).__name__)
            return None

    def _label(self, dep) -> str:
        outs, _ = split_output(dep["output"])
        return "callback " + ",".join(sorted({str(o["id"]) for o in outs}))[:60]

    def fire(self, dep, changed: list[str], depth: int = 0):
        body = callback_body(dep, self.state, changed)
        r = self._request(self._label(dep), "POST", "/_dash-update-component", json=body)
        if r is None or r.status_code == 204 or depth >= 4:
            return
        try:
            answer = r.json().get("response", {})
        except ValueError:
            self.stats.record(self._label(dep), 0, "invalid JSON")
            return
        updated = []
        for ident, props in answer.items():
            for prop, value in props.items():
                if isinstance(value, dict) and PATCH_KEY in value:
                    continue  # a Patch of a figure: nothing the next callbacks read
                self.state[(ident, prop)] = value
                updated.append(f"{ident}.{prop}")
        # the renderer fires every callback that has an updated prop as input (once each)
        upd = set(updated)
        for nxt in self.page["deps"]:
            trig = [f"{_key(d['id'], d['property'])[0]}.{d['property']}" for d in nxt["inputs"]]
            hit = [t for t in trig if t in upd]
            if hit and time.monotonic() < self.deadline:
                self.fire(nxt, hit, depth + 1)

    # ---- a person's changes
    def new_value(self, ident: str, prop: str):
        ctype, props = self.page["components"].get(ident, (None, {}))
        current = self.state.get((ident, prop))
        rng = self.rng
        if prop == "n_clicks":
            return (current or 0) + 1
        if prop == "clickData":
            fig = self.state.get((ident, "figure")) or props.get("figure") or {}
            locs = ((fig.get("data") or [{}])[0] or {}).get("locations") if isinstance(fig, dict) else None
            return {"points": [{"location": rng.choice(locs)}]} if locs else None
        if prop == "value":
            options = self.state.get((ident, "options"), props.get("options"))
            if options:
                values = [o["value"] if isinstance(o, dict) else o for o in options]
                if isinstance(current, list) or props.get("multi"):
                    return rng.sample(values, min(len(values), rng.choice([1, 1, 2])))
                return rng.choice(values)
            if ctype in ("Slider", "RangeSlider") and "min" in props and "max" in props:
                lo, hi = float(props["min"]), float(props["max"])
                x = rng.uniform(lo, hi)
                return [min(x, (x + hi) / 2), max(x, (x + hi) / 2)] if ctype == "RangeSlider" else x
            if props.get("type") == "number" or ctype == "Input":
                hint = re.search(r"-?\d+(?:\.\d+)?", str(props.get("placeholder", "")))
                if hint:
                    x = float(hint.group())
                    return round(rng.uniform(0.85, 1.15) * x, 1) if x else rng.randint(0, 10)
                if "min" in props and "max" in props and props["min"] is not None and props["max"] is not None:
                    return round(rng.uniform(float(props["min"]), float(props["max"])), 2)
                if isinstance(current, (int, float)):
                    return round(current * rng.uniform(0.8, 1.2), 3)
                return None  # a free-text field: leave it
        return None

    def interact(self):
        candidates = []
        for dep in self.page["deps"]:
            for d in dep["inputs"]:
                ident, prop = _key(d["id"], d["property"])
                if prop not in PASSIVE_PROPS and ident in self.page["components"]:
                    candidates.append((dep, ident, prop))
        # a report button whose report is fetched by the browser: one candidate, as when a callback made it
        known = {(ident, prop) for _dep, ident, prop in candidates}
        for dep in self.page["reports"]:
            for d in dep["inputs"]:
                ident, prop = _key(d["id"], d["property"])
                if (ident, prop) not in known and ident in self.page["components"]:
                    candidates.append((dep, ident, prop))
        if not candidates:
            return
        for _ in range(5):
            dep, ident, prop = self.rng.choice(candidates)
            value = self.new_value(ident, prop)
            if value is not None:
                break
        else:
            return
        self.state[(ident, prop)] = value
        changed = f"{ident}.{prop}"
        for other in self.page["deps"]:  # every callback with this input fires
            if any(_key(d["id"], d["property"]) == (ident, prop) for d in other["inputs"]):
                self.fire(other, [changed])
        for report in self.page["reports"]:  # … and a report button's GET, as the browser sends it
            if any(_key(d["id"], d["property"]) == (ident, prop) for d in report["inputs"]):
                self.fetch_report(report, ident)

    def fetch_report(self, dep, button: str):
        """``GET /_reports/<kind>`` with the query assets/report_download.js builds from the button's data-params
        and the callback's states (pattern-matching states are empty here, as in every callback body)."""
        props = self.page["components"][button][1]
        values = [[] if _is_wildcard(d["id"]) else self.state.get(_key(d["id"], d["property"])) for d in dep["state"]]
        query = report_query(str(props.get("data-params") or "").split(","), values)
        local = str(props.get("data-local") or "")
        if local and tuple(local.split("=", 1)) in query:
            return  # the page's own callback answered it (the data-set page's upload)
        url = str(props["data-report"])
        r = self._request(f"GET report {url.rsplit('/', 1)[-1]}", "GET", url, params=query, answered=(200, 400, 503))
        if r is not None and r.status_code != 200:
            with self.stats.lock:
                self.stats.report_refusals[r.status_code] += 1

    def visit_tables(self, path: str) -> bool:
        """The personal page computing in the browser: the shell, then one table per country chosen."""
        if not self.loaded or self.rng.random() < RELOAD_P:
            if self._request(f"GET {path}", "GET", path) is None:
                return False
            self._request("GET /_dash-layout", "GET", "/_dash-layout")
            self._request("GET /_dash-dependencies", "GET", "/_dash-dependencies")
            self.loaded = True
        self.fire_router_for(path)
        for _ in range(self.rng.choice([1, 1, 2])):
            code = self.rng.choice(self.m.countries)
            route = PERSONAL_MODE["route"].format(country=code)
            self._request("GET personal table", "GET", route, retry_busy=4)  # as assets/personal_page.js does
        return True

    def fire_router_for(self, path: str):
        state = {("_pages_location", "pathname"): path, ("_pages_location", "search"): ""}
        body = callback_body(self.m.router, state, ["_pages_location.pathname", "_pages_location.search"])
        self._request("callback page router", "POST", "/_dash-update-component", json=body)

    def open_page(self, path: str):
        if path == PERSONAL_PAGE and PERSONAL_MODE["mode"] == "tables":
            self.page = None
            return self.visit_tables(path)
        self.page = self.m.pages[path]
        self.state = {}
        for ident, (_t, props) in self.page["components"].items():
            for prop, value in props.items():
                if prop != "children" and not isinstance(value, dict) or prop in ("figure", "data"):
                    self.state[(ident, prop)] = value
        self.state[("_pages_location", "pathname")] = path
        self.state[("_pages_location", "search")] = ""
        self.state.update(CLIENTSIDE_STORES.get(path, {}))
        if not self.loaded or self.rng.random() < RELOAD_P:
            # a full page load: the index, then what the renderer fetches before drawing
            if self._request(f"GET {path}", "GET", path) is None:
                return False
            self._request("GET /_dash-layout", "GET", "/_dash-layout")
            self._request("GET /_dash-dependencies", "GET", "/_dash-dependencies")
            self.loaded = True
        # a navbar link (dcc.Link) only runs the page router's callback
        self.fire_router()
        for dep in self.page["deps"]:
            if not dep.get("prevent_initial_call") and time.monotonic() < self.deadline:
                self.fire(dep, [])
        return True

    def fire_router(self):
        body = callback_body(self.m.router, self.state, ["_pages_location.pathname", "_pages_location.search"])
        self._request("callback page router", "POST", "/_dash-update-component", json=body)

    def pause(self):
        delay = min(self.rng.expovariate(1 / self.think), 4 * self.think) if self.think > 0 else 0
        time.sleep(max(0.0, min(delay, self.deadline - time.monotonic())))

    def run(self):
        paths = list(self.m.pages)
        while time.monotonic() < self.deadline:
            if not self.open_page(self.rng.choice(paths)):
                self.pause()
                continue
            for _ in range(self.rng.randint(2, 8)):
                if time.monotonic() >= self.deadline:
                    break
                self.pause()
                if time.monotonic() < self.deadline and self.page is not None:
                    self.interact()  # (the personal page in "tables" mode answers changes in the browser)
            self.pause()


class Adversary:
    """One client sending the most expensive requests the cost limits allow, back to back, each one new."""

    def __init__(self, model: AppModel, stats: Stats, rng: random.Random, deadline: float):
        from dashboard.core.regions import Scenario
        from dashboard.server import limits
        from dashboard.views import scaling as sv

        self.m, self.stats, self.rng, self.deadline = model, stats, rng, deadline
        self.limits, self.Scenario, self.sv = limits, Scenario, sv
        self.s = requests.Session()
        dep = lambda prefix: next(d for d in model.server_deps if d["output"].startswith(prefix))  # noqa: E731
        self.cdf, self.map = dep("..explore-cdf.figure"), dep("..explore-map.figure")
        self.census = next(d for d in model.server_deps if "scaling-c-sentence.children" in d["output"])
        self.forecast = next(d for d in model.server_deps if "scaling-f-graph.figure" in d["output"])
        # the seconds-long pages (issue 14): a new bucket advice and a new attack run each time
        self.buckets = next(d for d in model.server_deps if "buckets-cards.children" in d["output"])
        self.attack = next(d for d in model.server_deps if "attack-cards.children" in d["output"])
        # the costliest single data set the limits allow (district × age × band cells), for the map and census view
        allowed = []
        for c in model.countries:
            for w in (1, 2, 5):
                try:
                    limits.check_scenario(self._scenario([c], "18-75", w))
                except limits.CostError:
                    continue
                allowed.append((limits.district_cells(c, (18, 75), w, w), c, w))
                break  # the finest bands this data set is allowed
        _cells, self.costliest, self.width = max(allowed)

    def _ages(self) -> str:
        lo = self.rng.randint(15, 40)
        return f"{lo}-{self.rng.randint(lo + 20, 90)}"

    def _post(self, label: str, body: dict):
        t0 = time.perf_counter()
        try:
            r = self.s.post(f"{self.m.base}/_dash-update-component", json=body, timeout=120)
            ok = r.status_code in (200, 204)
            self.stats.record(label, time.perf_counter() - t0, None if ok else f"HTTP {r.status_code}")
        except requests.RequestException as exc:
            self.stats.record(label, time.perf_counter() - t0, type(exc).__name__)

    def _scenario(self, codes, ages, width=1):
        return self.Scenario.from_query({"country": ",".join(codes), "body": "1", "height_width": str(width),
                                         "weight_width": str(width), "ages": ages})

    def curves(self):
        ages, codes = self._ages(), list(self.m.countries)
        self.rng.shuffle(codes)
        batch = []
        for code in codes:
            try:
                self.limits.check_scenario(self._scenario([*batch, code], ages))
                batch.append(code)
            except self.limits.CostError:
                continue
        q = self._scenario(batch, ages).to_query()
        self._post("adversary explorer curves", callback_body(
            self.cdf, {("explore-scenario", "data"): q, **CLIENTSIDE_STORES["/explore"]}, ["explore-scenario.data"]))

    def district_map(self):
        q = self._scenario([self.costliest], self._ages(), self.width).to_query()
        self._post("adversary explorer map", callback_body(self.map, {("explore-scenario", "data"): q},
                                                           ["explore-scenario.data"]))

    def census_view(self):
        values = {("scaling-tabs", "value"): "census", ("scaling-c-country", "value"): self.costliest,
                  ("scaling-c-sex", "value"): ["female", "male"], ("scaling-c-ages", "value"): self._ages(),
                  ("scaling-c-body", "value"): ["body"], ("scaling-c-height-width", "value"): self.width,
                  ("scaling-c-weight-width", "value"): self.width, ("scaling-c-aux", "value"): [],
                  ("scaling-c-users", "value"): self.rng.randint(1000, 10**7)}
        self._post("adversary census view", callback_body(self.census, values, ["scaling-c-ages.value"]))

    def forecast_fit(self):
        n = self.limits.MAX_FORECAST_POINTS
        sizes = sorted(self.rng.sample(range(2, 10**7), n))
        rows = [{"n": float(x), "kappa": round(max(0.0, min(1.0, 1 - 0.06 * math.log10(x) + self.rng.gauss(0, 0.01))),
                                               4)} for x in sizes]
        values = {("scaling-tabs", "value"): "forecast", ("scaling-f-table", "data"): rows,
                  ("scaling-f-holdout", "value"): 1}
        self._post("adversary forecast", callback_body(self.forecast, values, ["scaling-f-table.data"]))

    def bucket_advice(self):
        values = {("buckets-country", "value"): self.rng.choice(["US", "IT-COM", "GB", "US-ZCTA"]),
                  ("buckets-k", "value"): str(round(self.rng.uniform(2, 200), 3)),
                  ("buckets-coverage", "value"): str(round(self.rng.uniform(50, 99.9), 2)),
                  ("buckets-per-district", "value"): ["yes"]}
        self._post("adversary bucket advice", callback_body(self.buckets, values, ["buckets-k.value"]))

    def attack_run(self):
        from dashboard.core import attack as sa
        from dashboard.views import attack as av

        sizes = sorted(self.rng.sample(range(2, sa.movielens().n_users + 1), av.PAGE_MAX_SIZES))
        values = {("attack-run", "n_clicks"): 1, ("attack-known", "value"): sa.MAX_KNOWN,
                  ("attack-stars", "value"): 2.0, ("attack-days", "value"): 90, ("attack-wrong", "value"): 0.5,
                  ("attack-sizes", "value"): ", ".join(map(str, sizes)), ("attack-repeats", "value"): av.PAGE_MAX_REPEATS,
                  ("attack-seed", "value"): self.rng.randint(0, 2**31 - 1), ("attack-phi", "value"): 0.1}
        self._post("adversary attack run", callback_body(self.attack, values, ["attack-run.n_clicks"]))

    def run(self):
        moves = [self.curves, self.district_map, self.census_view, self.forecast_fit, self.bucket_advice,
                 self.attack_run]
        i = 0
        while time.monotonic() < self.deadline:
            moves[i % len(moves)]()
            i += 1


# --------------------------------------------------------------------------- server and memory


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


#: The line one worker logs when every data set's default public table is in the shared cache.
WARM_TABLES_LINE = re.compile(r"warm tables: (\d+) built, (\d+) already shared")


def wait_for_warm_tables(log_paths: list[Path], procs: list[subprocess.Popen], timeout: float = 900.0) -> float:
    """Seconds from now until a server's background warm has put every default table in the shared cache
    (one of the ``log_paths`` says so: with a shared cache, only one instance warms)."""
    t0 = time.perf_counter()
    while not WARM_TABLES_LINE.search(text := "\n".join(p.read_text(errors="replace") for p in log_paths)):
        if "warm tables: failed" in text:
            raise RuntimeError("the server's warm of the public tables failed (see its log)")
        if any(proc.poll() is not None for proc in procs):
            raise RuntimeError(f"gunicorn exited:\n{text[-3000:]}")
        if time.perf_counter() - t0 > timeout:
            raise RuntimeError(f"the public tables were not warmed within {timeout:.0f} s")
        time.sleep(1.0)
    return time.perf_counter() - t0


def start_server(workers: int | None, log_path: Path, root: Path = ROOT) -> tuple[subprocess.Popen, str, dict]:
    port = free_port()
    # a cache folder of its own (unless one is given): each run starts from cold tables and warms them,
    # so two runs measure the same thing and never wait on what another server left in a shared folder
    env = {"ANONSET_FLASK_CACHE_DIR": tempfile.mkdtemp(prefix="anonset-load-cache-"), **os.environ,
           "ANONSET_BIND": f"127.0.0.1:{port}"}
    if workers:
        env["ANONSET_WORKERS"] = str(workers)
    cmd = [sys.executable, "-m", "gunicorn", "-c", str(root / "dashboard" / "gunicorn_conf.py"), "dashboard.wsgi:server"]
    log = open(log_path, "w")  # noqa: SIM115 - gunicorn writes to it until the run ends
    t0 = time.perf_counter()
    if root != ROOT:  # another checkout (e.g. the start of a branch, for an A/B run): its own code and data
        env["PYTHONPATH"] = str(root)
    proc = subprocess.Popen(cmd, cwd=root, env=env, stdout=log, stderr=subprocess.STDOUT)
    url = f"http://127.0.0.1:{port}"
    cold = {}
    deadline = time.time() + 120
    while time.time() < deadline:
        if proc.poll() is not None:
            raise RuntimeError(f"gunicorn exited:\n{log_path.read_text()[-3000:]}")
        try:
            if requests.get(f"{url}/", timeout=2).status_code == 200:
                cold["index_s"] = time.perf_counter() - t0
                break
        except requests.RequestException:
            time.sleep(0.05)
    else:
        proc.kill()
        raise RuntimeError("gunicorn did not answer within 120 s")
    # the first page drawn: index + layout + dependencies + the router's callback for "/"
    s = requests.Session()
    s.get(f"{url}/_dash-layout", timeout=30)
    deps = s.get(f"{url}/_dash-dependencies", timeout=30).json()
    router = next(d for d in deps if d["output"] == ROUTER_OUTPUT)
    body = callback_body(router, {("_pages_location", "pathname"): "/", ("_pages_location", "search"): ""},
                         ["_pages_location.pathname", "_pages_location.search"])
    s.post(f"{url}/_dash-update-component", json=body, timeout=60).raise_for_status()
    cold["first_page_s"] = time.perf_counter() - t0
    return proc, url, cold


def _status_kb(pid: int, field: str) -> int | None:
    try:
        for line in Path(f"/proc/{pid}/status").read_text().splitlines():
            if line.startswith(field + ":"):
                return int(line.split()[1])
    except OSError:
        return None
    return None


def _pss_kb(pid: int) -> int | None:
    try:
        for line in Path(f"/proc/{pid}/smaps_rollup").read_text().splitlines():
            if line.startswith("Pss:"):
                return int(line.split()[1])
    except OSError:
        return None
    return None


def worker_pids(master: int) -> list[int]:
    pids = []
    for status in Path("/proc").glob("[0-9]*/status"):
        try:
            text = status.read_text()
        except OSError:
            continue
        m = re.search(r"^PPid:\s+(\d+)", text, re.MULTILINE)
        if m and int(m.group(1)) == master:
            pids.append(int(status.parent.name))
    return sorted(pids)


def cpu_seconds(pids: list[int]) -> float:
    """User + system CPU time of processes (from /proc/<pid>/stat)."""
    tick = os.sysconf("SC_CLK_TCK")
    total = 0.0
    for pid in pids:
        try:
            fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
            total += (int(fields[11]) + int(fields[12])) / tick
        except (OSError, IndexError, ValueError):
            continue
    return total


def memory(master: int) -> dict:
    out = {"master": {"pid": master, "rss_mb": (_status_kb(master, "VmRSS") or 0) / 1024,
                      "pss_mb": (_pss_kb(master) or 0) / 1024}, "workers": []}
    for pid in worker_pids(master):
        out["workers"].append({"pid": pid, "rss_mb": (_status_kb(pid, "VmRSS") or 0) / 1024,
                               "hwm_mb": (_status_kb(pid, "VmHWM") or 0) / 1024,
                               "pss_mb": (_pss_kb(pid) or 0) / 1024})
    return out


def touch_every_country(url: str, model: AppModel) -> int:
    """Make every worker compute a profile for every country (so RSS is measured with all loaded)."""
    page = model.pages.get("/")
    if page is None:
        return 0
    country_dep = next((d for d in page["deps"]
                        if any(i["id"].endswith("country") for i in d["inputs"] if isinstance(i["id"], str))
                        and "options" in d["output"]), None)
    comps = page["components"]
    country_id = next((i for i in comps if isinstance(i, str) and i.endswith("-country")), None)
    if not country_dep or not country_id:
        return 0
    codes = [o["value"] for o in comps[country_id][1].get("options", [])]
    n = 0
    s = requests.Session()
    for _round in range(3):  # sync workers take requests in turn: three rounds reach each of them
        for code in codes:
            body = callback_body(country_dep, {(country_id, "value"): code}, [f"{country_id}.value"])
            s.post(f"{url}/_dash-update-component", json=body, timeout=60)
            n += 1
    return n


# --------------------------------------------------------------------------- report


def pct(values: list[float], q: float) -> float:
    if not values:
        return math.nan
    v = sorted(values)
    i = min(len(v) - 1, max(0, math.ceil(q / 100 * len(v)) - 1))
    return v[i]


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--users", type=int, default=200)
    ap.add_argument("--duration", type=float, default=60.0, help="seconds of load (default 60)")
    ap.add_argument("--workers", type=int, default=None, help="gunicorn workers (default: settings)")
    ap.add_argument("--think", type=float, default=3.0, help="mean think time between actions, s (default 3)")
    ap.add_argument("--ramp", type=float, default=10.0, help="seconds over which the users arrive (default 10)")
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--url", default=None, help="use a running server (loopback only) instead of starting one")
    ap.add_argument("--json", type=Path, default=None, help="also write the results as JSON")
    ap.add_argument("--cold-tables", action="store_true",
                    help="start the load at once, while the server still warms its public tables in the background "
                         "(default: wait for the warm, as a deployment is after its first minutes)")
    ap.add_argument("--ready-file", type=Path, default=None,
                    help="touch this file when the users start (benchmarks/balancer_load.py times its kill from it)")
    ap.add_argument("--root", type=Path, default=ROOT,
                    help="serve this checkout instead of this one (A/B runs: e.g. an export of the branch's start)")
    ap.add_argument("--adversarial", action="store_true",
                    help="add one client sending the costliest allowed requests as fast as it can (target: the "
                         "normal users' p95 < 500 ms, 0 errors; use with --users 100)")
    ap.add_argument("--personal-tables", metavar="ROUTE", default="/_tables/{country}.json",
                    help="personal-page visits fetch one table per country from ROUTE (default: the app's "
                         "/_tables/{country}.json; the page computes in the browser); 'callbacks' fires the page's "
                         "server callbacks instead (before issue 15)")
    args = ap.parse_args(argv)
    if args.personal_tables and args.personal_tables != "callbacks":
        PERSONAL_MODE.update(mode="tables", route=args.personal_tables)

    proc = None
    cold = {}
    log_path = Path(tempfile.mkdtemp(prefix="anonset-load-")) / "gunicorn.log"
    if args.url:
        host = urlparse(args.url).hostname
        if host not in ("127.0.0.1", "localhost", "::1"):
            ap.error("--url must be a loopback address (the load test never leaves this machine)")
        url = args.url.rstrip("/")
    else:
        proc, url, cold = start_server(args.workers, log_path, args.root.resolve())
    try:
        print(f"server {url}" + (f" (log {log_path})" if proc else ""), flush=True)
        pages = registered_pages()
        model = AppModel(url, pages)
        print(f"pages: {', '.join(pages)}; server callbacks: {len(model.server_deps)} "
              '(' + ', '.join(f"{p}: {len(v['deps'])}" for p, v in model.pages.items()) + ')', flush=True)
        touched = touch_every_country(url, model)
        if proc and not args.cold_tables:
            cold["tables_warm_s"] = wait_for_warm_tables([log_path], [proc])
            print(f"public tables warmed (waited {cold['tables_warm_s']:.0f} s more)", flush=True)
        mem_before = memory(proc.pid) if proc else None

        stats = Stats()
        server_pids = [proc.pid, *worker_pids(proc.pid)] if proc else []
        cpu0_server, cpu0_client = cpu_seconds(server_pids), sum(os.times()[:2])
        start = time.monotonic()
        deadline = start + args.duration
        if args.ready_file:
            args.ready_file.touch()
        load_at_start = os.getloadavg()
        rng = random.Random(args.seed)
        users = [User(model, stats, random.Random(rng.random()), args.think, deadline) for _ in range(args.users)]
        threads = []
        ramp = min(args.ramp, args.duration / 2)
        for i, u in enumerate(users):  # users arrive evenly over the ramp (default 10 s)
            t = threading.Thread(target=u.run, name=f"user-{i}", daemon=True)
            threads.append(t)
            t.start()
            time.sleep(ramp / max(1, args.users))
        adversary_stats = Stats()
        if args.adversarial:
            adversary = Adversary(model, adversary_stats, random.Random(rng.random()), deadline)
            t = threading.Thread(target=adversary.run, name="adversary", daemon=True)
            threads.append(t)
            t.start()
        for t in threads:
            t.join(timeout=max(1.0, deadline - time.monotonic()) + 90)
        elapsed = time.monotonic() - start
        stuck = sum(t.is_alive() for t in threads)
        cpu_server = cpu_seconds(server_pids) - cpu0_server
        cpu_client = sum(os.times()[:2]) - cpu0_client
        mem_after = memory(proc.pid) if proc else None
    finally:
        if proc:
            proc.send_signal(signal.SIGTERM)
            try:
                proc.wait(timeout=40)
            except subprocess.TimeoutExpired:
                proc.kill()

    all_ms = [x for v in stats.latency.values() for x in v]
    result = {
        "adversarial": args.adversarial, "personal_mode": PERSONAL_MODE["mode"],
        "load_average_at_start": [round(x, 2) for x in load_at_start],
        "load_average_at_end": [round(x, 2) for x in os.getloadavg()],
        "users": args.users, "duration_s": round(elapsed, 1), "think_s": args.think, "ramp_s": ramp,
        "requests": stats.count, "errors": len(stats.errors), "error_samples": stats.errors[:20],
        "busy_retries": stats.busy_retries,
        "report_refusals": dict(stats.report_refusals),
        "stuck_users": stuck,
        "requests_per_s": round(stats.count / elapsed, 1) if elapsed else 0,
        "p50_ms": round(pct(all_ms, 50), 1), "p95_ms": round(pct(all_ms, 95), 1), "p99_ms": round(pct(all_ms, 99), 1),
        "max_ms": round(max(all_ms), 1) if all_ms else None,
        "per_request": {k: {"n": len(v), "p50_ms": round(pct(v, 50), 1), "p95_ms": round(pct(v, 95), 1),
                            "p99_ms": round(pct(v, 99), 1)} for k, v in sorted(stats.latency.items())},
        "cold_start": {k: round(v, 2) for k, v in cold.items()},
        "countries_touched": touched,
        "cpu_cores": os.cpu_count(),
        "cpu_seconds_server": round(cpu_server, 1), "cpu_seconds_load_generator": round(cpu_client, 1),
        "memory_before": mem_before, "memory_after": mem_after,
    }

    print()
    print(f"{args.users} users (arriving over {ramp:g} s), {elapsed:.0f} s, mean think {args.think:g} s: {stats.count} requests, "
          f"{result['requests_per_s']} requests/s")
    print(f"CPU during the run ({os.cpu_count()} cores): server {cpu_server:.0f} s, this load generator "
          f"{cpu_client:.0f} s, of {elapsed * (os.cpu_count() or 1):.0f} core-seconds")
    print(f"load average (1, 5, 15 min) at the start {result['load_average_at_start']}, at the end "
          f"{result['load_average_at_end']} (other processes on this machine count too)")
    print(f"errors: {len(stats.errors)}" + (" (0 errors)" if not stats.errors else "")
          + f"; busy answers (503 + Retry-After) waited out and asked again: {stats.busy_retries}"
          + f"; reports refused (the page's message, by status): {dict(stats.report_refusals) or 'none'}")
    for e in stats.errors[:10]:
        print("  ", e)
    print(f"latency: p50 {result['p50_ms']} ms, p95 {result['p95_ms']} ms, p99 {result['p99_ms']} ms, "
          f"max {result['max_ms']} ms")
    width = max(len(k) for k in stats.latency) if stats.latency else 10
    for k, v in result["per_request"].items():
        print(f"  {k:<{width}}  n={v['n']:<6} p50 {v['p50_ms']:>7} ms  p95 {v['p95_ms']:>7} ms  p99 {v['p99_ms']:>7} ms")
    target_p95 = ADVERSARIAL_P95_MS if args.adversarial else TARGETS["p95_ms"]
    ok = not stats.errors and not stuck and result["p95_ms"] < target_p95
    if args.adversarial:
        adv = [x for v in adversary_stats.latency.values() for x in v]
        result["adversary"] = {
            "requests": adversary_stats.count, "errors": len(adversary_stats.errors),
            "error_samples": adversary_stats.errors[:10],
            "per_request": {k: {"n": len(v), "p50_ms": round(pct(v, 50), 1), "max_ms": round(max(v), 1)}
                            for k, v in sorted(adversary_stats.latency.items())},
            "p50_ms": round(pct(adv, 50), 1), "max_ms": round(max(adv), 1) if adv else None,
        }
        print(f"adversary: {adversary_stats.count} requests back to back, {len(adversary_stats.errors)} errors, "
              f"p50 {result['adversary']['p50_ms']} ms, max {result['adversary']['max_ms']} ms")
        for k, v in result["adversary"]["per_request"].items():
            print(f"  {k:<{width}}  n={v['n']:<6} p50 {v['p50_ms']:>7} ms  max {v['max_ms']:>7} ms")
    if proc:
        print(f"cold start: first 200 on / after {cold['index_s']:.2f} s, first page drawn (layout + router) "
              f"after {cold['first_page_s']:.2f} s")
        for label, mem in (("after loading every country", mem_before), ("after the run", mem_after)):
            ws = mem["workers"]
            print(f"memory {label}: master RSS {mem['master']['rss_mb']:.0f} MB; "
                  + "; ".join(f"worker {w['pid']} RSS {w['rss_mb']:.0f} MB (PSS {w['pss_mb']:.0f} MB)" for w in ws))
        max_rss = max(w["rss_mb"] for w in mem_after["workers"] + mem_before["workers"])
        ok = ok and max_rss < TARGETS["rss_mb"] and cold["first_page_s"] < TARGETS["cold_start_s"]
        result["max_worker_rss_mb"] = round(max_rss, 1)
    print(f"targets (0 errors, p95 < {target_p95:g} ms{' for the normal users' if args.adversarial else ''}, "
          "RSS/worker < 1 GB, cold start < 5 s):", "MET" if ok else "NOT MET")
    result["targets_met"] = ok
    if args.json:
        args.json.write_text(json.dumps(result, indent=2))
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
