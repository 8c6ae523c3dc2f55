"""Hostile requests to EVERY callback and EVERY page's URL query: no HTTP 500, no traceback in the log.

Driven by Hypothesis through Flask's test client.  The callbacks come from
``/_dash-dependencies`` and the pages from ``dash.page_registry`` at run time,
so callbacks and pages added later are fuzzed without editing this file.

Payloads: NaN, ±inf, 1e308, negative and huge numbers, huge lists, 1 MB strings,
wrong types, nested junk, unknown component ids, missing / extra inputs, broken
``output`` strings and malformed JSON — mixed with valid values taken from each
page's layout (so the fuzzing also reaches deep into the computations).

A callback that raises is answered by the shell with "no update" (204) and a
log line naming only the exception class; those are collected as *findings*
(written to ``test-artifacts/fuzz-findings.json``, each with its request).  A finding
that is not in the committed baseline (``tests/views/fuzz_baseline.json``, empty when
nothing is known) fails the test that found it.  A 500, a traceback, or a fuzz value
showing up in a log line is a failure too.
"""
from __future__ import annotations

import inspect
import json
import logging
import math
import re
import sys
import time
from pathlib import Path
from urllib.parse import quote, urlencode

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from support import ROOT
from support.dash_protocol import ROUTER_OUTPUT, callback_body, split_output, walk_components

ARTIFACTS = ROOT / "test-artifacts"
FINDINGS_FILE = ARTIFACTS / "fuzz-findings.json"
#: Known findings, ``[{"what": …, "log": …}]``: a finding outside this list fails the suite.
BASELINE = Path(__file__).with_name("fuzz_baseline.json")
MARKER = "FUZZ-MARKER-9d41"  # inside every fuzz string: it must never reach a log line
MEGA = MARKER + "x" * (1_000_000 - len(MARKER))
EXAMPLES_PER_CALLBACK = 30
EXAMPLES_PER_PAGE_QUERY = 30
FINDINGS: list[dict] = []


# --------------------------------------------------------------------------- the app, discovered at run time


@pytest.fixture(scope="module")
def app_model(cache_root):
    """Test client, server-side callbacks, and each page's components (from its router answer)."""
    import dash

    from dashboard.wsgi import app

    client = app.server.test_client()
    assert client.get("/").status_code == 200
    deps = client.get("/_dash-dependencies").get_json()
    router = next(d for d in deps if d["output"] == ROUTER_OUTPUT)
    components = walk_components(client.get("/_dash-layout").get_json())
    pages = {}
    for module, page in sorted(dash.page_registry.items(), key=lambda mp: mp[0].startswith("dashboard.")):
        path = re.sub(r"<[^>]+>", "x", page.get("path_template") or page["path"])
        if path in pages:
            continue  # a test that imported "dashboard.pages.x" again: same page
        body = callback_body(router, {("_pages_location", "pathname"): path, ("_pages_location", "search"): ""},
                             ["_pages_location.pathname"])
        r = client.post("/_dash-update-component", json=body)
        assert r.status_code == 200, path
        components.update(walk_components(r.get_json()["response"]["_pages_content"]["children"]))
        pages[path] = {"module": module, "layout": page["layout"], "query_names": _query_names(module, page)}
    server_deps = [d for d in deps if not d.get("clientside_function")]
    return {"client": client, "deps": server_deps, "router": router, "components": components, "pages": pages}


def _query_names(module: str, page: dict) -> list[str]:
    """Query parameters a page may read: its layout's named parameters, plus identifier-like string
    literals of its module (``q["k"]``, ``query.get("k")``, key tuples …) for layouts taking ``**query``."""
    names = set()
    layout = page["layout"]
    if callable(layout):
        for p in inspect.signature(layout).parameters.values():
            if p.kind in (p.POSITIONAL_OR_KEYWORD, p.KEYWORD_ONLY):
                names.add(p.name)
    src_module = sys.modules.get(module)
    try:
        source = inspect.getsource(src_module) if src_module else ""
    except (OSError, TypeError):
        source = ""
    names.update(re.findall(r"""["']([a-z][a-z0-9_]{0,23})["']""", source))
    return sorted(names)


def _callback_ids(cache_root_present: bool = True) -> list[str]:
    """Callback outputs for parametrisation (collected when the module loads)."""
    try:
        from dashboard.wsgi import app

        client = app.server.test_client()
        client.get("/")
        deps = client.get("/_dash-dependencies").get_json()
    except Exception:  # noqa: BLE001 - no data cache: the fixture skips
        return ["<none>"]
    return [d["output"] for d in deps if not d.get("clientside_function")]


CALLBACKS = _callback_ids()
#: Callbacks (by an output id) whose valid payloads run a whole analysis or report (a data set, a bucket advice, a
#: country table): 5–12 s of fuzzing each, so they run in the full suite and not in the fast lane.
HEAVY_CALLBACKS = {"dataset-message", "dataset-download-csv", "dataset-download-report", "buckets-cards",
                   "buckets-download-json", "buckets-download-csv", "explore-cli-table"}


def _short(output: str) -> str:
    outs, _ = split_output(output)
    return ",".join(sorted({str(o["id"]) for o in outs}))[:50]


# --------------------------------------------------------------------------- strategies

HOSTILE = [
    math.nan, math.inf, -math.inf, 1e308, -1e308, 5e-324, -1, -0.0, 0, -10**6, 2**63, -2**63, 10**30, True, False,
    None, "", " ", "NaN", "Infinity", "-inf", "1e308", "-1", "0", "null", "[]", "{}", "\x00", "\u202e\u0000",
    f"<script>{MARKER}</script>", f"' OR 1=1 -- {MARKER}", f"../../etc/passwd{MARKER}", f"%00{MARKER}", "🙂" * 50,
    MEGA, [], {}, [None], [math.nan], list(range(100_000)), [MEGA[:10_000]] * 100, {"a": [1, {"b": MARKER}]},
    [[[[[[[[MARKER]]]]]]]], {"points": [{"location": MARKER}]}, {"points": []}, {"points": None},
]
junk = st.recursive(
    st.one_of(st.sampled_from(HOSTILE), st.floats(allow_nan=True, allow_infinity=True), st.integers(),
              st.text(max_size=30).map(lambda s: MARKER + s), st.booleans(), st.none()),
    lambda inner: st.one_of(st.lists(inner, max_size=6), st.dictionaries(st.text(max_size=8), inner, max_size=4)),
    max_leaves=12,
)


def _valid_values(components: dict, ident, prop: str) -> list:
    """Values a real browser could send for this prop: the layout's value and its options."""
    key = json.dumps(ident, sort_keys=True, separators=(",", ":")) if isinstance(ident, dict) else ident
    _type, props = components.get(key, (None, {}))
    prop = prop.split("@", 1)[0]
    out = []
    if prop in props:
        out.append(props[prop])
    options = props.get("options")
    if prop == "value" and isinstance(options, list):
        vals = [o.get("value") if isinstance(o, dict) else o for o in options[:50]]
        out.extend(vals)
        if vals:
            out.append(vals[:2])
    if prop == "n_clicks":
        out.extend([1, 2])
    if prop == "clickData":
        out.append({"points": [{"location": "11000"}]})
    return out or [None]


def value_strategy(components, ident, prop):
    valid = _valid_values(components, ident, prop)
    return st.one_of(st.sampled_from(valid), st.sampled_from(valid), junk)


@st.composite
def callback_payload(draw, dep, components):
    """A callback request: realistic structure with hostile values, sometimes a hostile structure."""
    state = {}
    for d in dep["inputs"] + dep.get("state", []):
        if isinstance(d["id"], dict):
            continue
        state[(d["id"], d["property"].split("@", 1)[0])] = draw(value_strategy(components, d["id"], d["property"]))
    triggers = [f"{d['id']}.{d['property']}" for d in dep["inputs"] if not isinstance(d["id"], dict)]
    changed = draw(st.lists(st.sampled_from(triggers), max_size=2, unique=True)) if triggers else []
    body = callback_body(dep, state, changed)
    mutation = draw(st.sampled_from(["none"] * 6 + ["unknown-id", "drop-input", "extra-input", "bad-changed",
                                                    "inputs-not-list", "bad-output", "no-outputs", "state-junk"]))
    if mutation == "unknown-id" and body["inputs"]:
        body["inputs"][0] = {**body["inputs"][0], "id": MARKER + "-unknown"}
    elif mutation == "drop-input" and body["inputs"]:
        body["inputs"] = body["inputs"][:-1]
    elif mutation == "extra-input":
        body["inputs"] = body["inputs"] + [{"id": MARKER, "property": "value", "value": draw(junk)}]
    elif mutation == "bad-changed":
        body["changedPropIds"] = [MARKER + ".value", draw(junk)]
    elif mutation == "inputs-not-list":
        body["inputs"] = draw(junk)
    elif mutation == "bad-output":
        body["output"] = body["output"] + MARKER
    elif mutation == "no-outputs":
        body.pop("outputs", None)
    elif mutation == "state-junk":
        body["state"] = draw(junk)
    return body


# --------------------------------------------------------------------------- checks


class LogWatch(logging.Handler):
    """Every record at any level from any logger, with its rendered message and traceback."""

    def __init__(self):
        super().__init__(level=logging.DEBUG)
        self.records: list[logging.LogRecord] = []

    def emit(self, record):
        self.records.append(record)

    def text(self, since: int = 0) -> str:
        out = []
        for r in self.records[since:]:
            out.append(r.getMessage())
            if r.exc_info:
                out.append("Traceback (exc_info)")
        return "\n".join(out)


@pytest.fixture
def logwatch():
    handler = LogWatch()
    root = logging.getLogger()
    old_level = root.level
    root.addHandler(handler)
    root.setLevel(logging.DEBUG)
    try:
        yield handler
    finally:
        root.removeHandler(handler)
        root.setLevel(old_level)


def _short_value(v) -> str:
    if isinstance(v, str) and len(v) > 60:
        return f"<str of {len(v):,} chars>"
    if isinstance(v, (list, dict)) and len(json.dumps(v, default=str, allow_nan=True)) > 120:
        return f"<{type(v).__name__} of {len(v):,} items: {json.dumps(v, default=str, allow_nan=True)[:60]}…>"
    return json.dumps(v, default=str, allow_nan=True)


def _summary(body) -> str:
    """A readable, bounded description of a request: each input's id.prop = value."""
    if isinstance(body, (bytes, str)):
        return repr(body[:120])
    if not isinstance(body, dict):
        return _short_value(body)
    parts = []
    for part in ("inputs", "state"):
        items = body.get(part)
        if isinstance(items, list):
            parts.append(part + ": " + "; ".join(
                f"{d.get('id')}.{d.get('property')}={_short_value(d.get('value'))}" if isinstance(d, dict)
                else _short_value(d) for d in items))
        elif part in body:
            parts.append(f"{part}: {_short_value(items)}")
    parts.append(f"changedPropIds: {_short_value(body.get('changedPropIds'))}")
    if "outputs" not in body:
        parts.append("no 'outputs'")
    return " | ".join(parts)[:1500]


def _check(resp, watch: LogWatch, since: int, what: str, payload) -> None:
    assert resp.status_code != 500 and resp.status_code < 500, f"{what}: HTTP {resp.status_code} for {_summary(payload)}"
    new = watch.text(since)
    assert "Traceback" not in new, f"{what}: traceback in the log for {_summary(payload)}:\n{new[-2000:]}"
    assert MARKER not in new, f"{what}: a request value reached the log: {new[-500:]}"
    for record in watch.records[since:]:
        msg = record.getMessage()
        if "raised" in msg or "failed with" in msg:
            FINDINGS.append({"what": what, "log": msg[:300], "status": resp.status_code, "payload": _summary(payload)})


def _key(finding: dict) -> tuple[str, str]:
    return finding["what"], finding["log"]


def _baseline() -> set[tuple[str, str]]:
    entries = json.loads(BASELINE.read_text(encoding="utf-8"))
    assert isinstance(entries, list) and all({"what", "log"} <= set(e) for e in entries), \
        f"{BASELINE}: a JSON list of {{'what': ..., 'log': ...}} objects"
    return {_key(e) for e in entries}


def _write_findings() -> Path:
    """Every finding of this session so far, once per (what, log), with the request that caused it."""
    ARTIFACTS.mkdir(exist_ok=True)
    unique = {}
    for f in FINDINGS:
        unique.setdefault(_key(f), f)
    FINDINGS_FILE.write_text(json.dumps(list(unique.values()), indent=1))
    return FINDINGS_FILE


def _assert_no_new_findings(start: int) -> None:
    """The findings since ``FINDINGS[start]`` are all in the baseline; otherwise fail, saying how to inspect them."""
    known = _baseline()
    new = {}
    for f in FINDINGS[start:]:
        if _key(f) not in known:
            new.setdefault(_key(f), f)
    if not new:
        return
    written = _write_findings()
    lines = [f"- {f['what']}: {f['log']} (HTTP {f['status']})\n    request: {f['payload'][:300]}" for f in new.values()]
    pytest.fail(
        f"{len(new)} new fuzz finding(s): a callback raised (the shell answered 'no update') for a hostile request, "
        f"and {BASELINE.relative_to(ROOT)} does not list it:\n" + "\n".join(lines) +
        f"\nInspect: {written.relative_to(ROOT)} holds each finding with its request; replay the request with "
        "app.server.test_client().post('/_dash-update-component', json=...) and read the log line. Fix the callback "
        "(bad input should give a message, not an exception); only a finding that is accepted goes into the "
        'baseline, as {"what": ..., "log": ...} copied from that file.',
        pytrace=False,
    )


def _post(client, body):
    data = json.dumps(body, allow_nan=True) if not isinstance(body, (bytes, str)) else body
    return client.post("/_dash-update-component", data=data, content_type="application/json")


# --------------------------------------------------------------------------- tests


def _params(outputs: list[str]) -> list:
    def heavy(output: str) -> bool:
        return bool(HEAVY_CALLBACKS & {str(o["id"]) for o in split_output(output)[0]})

    return [pytest.param(o, id=_short(o), marks=[pytest.mark.slow] if heavy(o) else []) for o in outputs]


@pytest.mark.parametrize("output", _params(CALLBACKS))
def test_every_callback_survives_hostile_payloads(app_model, logwatch, output):
    dep = next((d for d in app_model["deps"] if d["output"] == output), None)
    if dep is None:
        pytest.skip("callback not registered in this process")
    client, components = app_model["client"], app_model["components"]
    started, first = time.monotonic(), len(FINDINGS)

    @settings(max_examples=EXAMPLES_PER_CALLBACK, deadline=None, derandomize=True, database=None,
              suppress_health_check=list(HealthCheck))
    @given(body=callback_payload(dep, components))
    def run(body):
        if time.monotonic() - started > 20:  # a slow callback: enough examples
            return
        since = len(logwatch.records)
        resp = _post(client, body)
        _check(resp, logwatch, since, f"callback {_short(output)}", body)

    run()
    _assert_no_new_findings(first)


MALFORMED = [b"", b"{", b"}", b"[", b"null", b"true", b"0", b'"x"', b"[]", b"{}", b'{"output": null}',
             b'{"output": 5, "inputs": []}', b'{"output": "a.b", "inputs": "x"}', b'{"inputs": [{"id": 1}]}',
             b'{"output": "..a.b...c..", "outputs": [], "inputs": []}', b"\xff\xfe\x00", b"NaN", b"[" * 5000,
             b'{"output": "' + MARKER.encode() + b'"}']


def test_malformed_json_and_bodies(app_model, logwatch):
    client, first = app_model["client"], len(FINDINGS)

    @settings(max_examples=60, deadline=None, derandomize=True, database=None,
              suppress_health_check=list(HealthCheck))
    @given(raw=st.one_of(st.sampled_from(MALFORMED), st.binary(max_size=300),
                         st.text(max_size=300).map(lambda s: s.encode("utf-8", "surrogatepass")),
                         junk.map(lambda j: json.dumps(j, allow_nan=True).encode())),
           ctype=st.sampled_from(["application/json", "text/plain", "application/x-www-form-urlencoded", ""]))
    def run(raw, ctype):
        since = len(logwatch.records)
        resp = client.post("/_dash-update-component", data=raw, content_type=ctype)
        _check(resp, logwatch, since, "malformed body", raw[:200])

    run()
    # the other Dash endpoints with the wrong method or junk
    for path in ("/_dash-layout", "/_dash-dependencies", "/_reload-hash", "/healthz"):
        since = len(logwatch.records)
        _check(client.post(path, data=b"{"), logwatch, since, f"POST {path}", "{")
    _assert_no_new_findings(first)


QUERY_VALUES = st.one_of(
    st.sampled_from(["", "0", "-1", "NaN", "inf", "-inf", "1e308", "-1e308", "DE", "US", "11000", "x,y,,",
                     "DE,US,ZZ", "a|b|c", "1.5", "01", "%", "%%", "%zz", "true", "null", "[]", "{}",
                     MARKER + "<script>", MARKER + "'\"", MARKER * 300, "\u202e" + MARKER, "🙂" + MARKER]),
    st.text(max_size=40).map(lambda s: MARKER + s),
    st.floats(allow_nan=True, allow_infinity=True).map(repr),
    st.integers().map(str),
)


def _fuzz_page_query(app_model, logwatch, path: str, names: list[str], started: float) -> None:
    client, router = app_model["client"], app_model["router"]
    query = st.lists(st.tuples(st.sampled_from(names + [MARKER.lower(), "__class__", "pathname_", "search_"]),
                               QUERY_VALUES), min_size=1, max_size=4)

    @settings(max_examples=EXAMPLES_PER_PAGE_QUERY, deadline=None, derandomize=True, database=None,
              suppress_health_check=list(HealthCheck))
    @given(pairs=query)
    def run(pairs):
        if time.monotonic() - started > 45:
            return
        qs = urlencode(pairs, quote_via=quote)
        since = len(logwatch.records)
        resp = client.get(f"{path}?{qs}")
        _check(resp, logwatch, since, f"GET {path}", qs)
        body = callback_body(router, {("_pages_location", "pathname"): path,
                                      ("_pages_location", "search"): f"?{qs}"},
                             ["_pages_location.pathname", "_pages_location.search"])
        since = len(logwatch.records)
        resp = _post(client, body)
        _check(resp, logwatch, since, f"page {path} (router)", qs)
        if resp.status_code == 200:
            assert "could not be shown" not in resp.get_data(as_text=True), f"{path}?{qs}: layout raised"

    run()


@pytest.mark.slow  # over 5 s on this machine: in the full suite, not the fast lane
def test_every_page_query_parameter(app_model, logwatch):
    """GET /path?… and the page router with the same query, for every page and every parameter it reads."""
    client = app_model["client"]
    started, first = time.monotonic(), len(FINDINGS)
    for path, info in app_model["pages"].items():
        _fuzz_page_query(app_model, logwatch, path, info["query_names"] or ["q"], started)
    # hostile paths
    for p in ("/%00", "/" + "a" * 5000, "/../../etc/passwd", "/_dash-component-suites/dash/../../x.js",
              "/_dash-component-suites/nope/x.js", "/assets/../dashboard/app.py", "/_dash-layout?x=%ff"):
        since = len(logwatch.records)
        _check(client.get(p), logwatch, since, f"GET {p[:40]}", p[:80])
    _assert_no_new_findings(first)


def test_write_findings():
    """Callbacks that raised (answered 204 by the shell): written out for the pages' owners, and the baseline
    is well-formed (each fuzz test above fails on a finding outside it)."""
    _baseline()
    _write_findings()
