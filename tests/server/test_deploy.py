"""Deployment: health endpoint, security headers, the error handler, gunicorn config, caching backends.

The Redis tests start a real ``redis-server`` on a free loopback port and stop it;
they skip when redis-server (``apt-get install redis-server``) or the Python
client is not installed.
"""
from __future__ import annotations

import ast
import base64
import hashlib
import importlib.util
import json
import os
import re
import signal
import socket
import subprocess
import sys
import time
from pathlib import Path

import pytest
from support import ROOT
from support.browser import free_port  # one helper for a free loopback port

# typed answers (the personal page keeps them in the browser); must never reach a cache, a log or a file
SECRET_HEIGHT, SECRET_WEIGHT, SECRET_FACT = 181.37, 77.73, "uses-secret-app-4711"


def _pages():
    import dash

    from dashboard.wsgi import app  # noqa: F401

    return sorted({re.sub(r"<[^>]+>", "x", p.get("path_template") or p["path"]) for p in dash.page_registry.values()})


def _personal_body(**overrides):
    """The personal page's only server request: its country callback (issue 15: the answers are handled in the
    browser and have no server callback to go to; tests/test_page_personal.py checks the callback map).  The
    secrets below are in the renderer's state but, as in the browser, not in the request."""
    from support.dash_protocol import callback_body

    from dashboard.wsgi import app

    app.server.test_client().get("/")  # Dash moves the pages' callbacks into the app on its first request
    deps = app._callback_list
    dep = next(d for d in deps if d["output"].startswith("..me-district-all.data"))
    assert not dep.get("clientside_function")
    values = {"me-country": "DE", "me-height-cm": SECRET_HEIGHT, "me-weight-kg": SECRET_WEIGHT,
              "me-aux-name": SECRET_FACT, **overrides}
    state = {(k, "value"): v for k, v in values.items()}
    return callback_body(dep, state, ["me-country.value"])


# --------------------------------------------------------------------------- health, headers, errors


def test_healthz(client):
    r = client.get("/healthz")
    assert r.status_code == 200
    body = r.get_json()
    assert body["status"] == "ok" and body["datasets"] > 0 and body["cache"] in ("FileSystemCache", "RedisCache")
    assert r.headers["X-Frame-Options"] == "DENY"


def test_security_headers_on_every_response(client):
    from dashboard.wsgi import app

    index = client.get("/")
    asset = next(p for p in ("/assets/style.css", "/assets/presenter.js") if client.get(p).status_code == 200)
    script = re.search(r'src="(/_dash-component-suites/[^"]+)"', index.get_data(as_text=True)).group(1)
    responses = {p: client.get(p) for p in [*_pages(), "/_dash-layout", "/_dash-dependencies", "/healthz", asset,
                                            script, "/no-such-page?x=1", "/_dash-component-suites/nope/x.js"]}
    responses["POST callback"] = client.post("/_dash-update-component", json=_personal_body())
    responses["malformed"] = client.post("/_dash-update-component", data="{", content_type="application/json")
    for name, r in responses.items():
        h = r.headers
        assert r.status_code < 500, name
        csp = h.get("Content-Security-Policy", "")
        assert "frame-ancestors 'none'" in csp and "connect-src 'self'" in csp, name
        assert "default-src 'self'" in csp and "object-src 'none'" in csp, name
        assert h["Referrer-Policy"] == "no-referrer", name
        assert h["X-Content-Type-Options"] == "nosniff", name
        assert h["X-Frame-Options"] == "DENY", name
        assert "camera=()" in h["Permissions-Policy"] and "geolocation=()" in h["Permissions-Policy"], name
    assert responses["POST callback"].headers["Cache-Control"] == "no-store"
    # no host but this one, no blanket inline script or eval
    csp = index.headers["Content-Security-Policy"]
    assert not re.search(r"https?:|\*|wss?:", csp)
    script_src = re.search(r"script-src ([^;]+)", csp).group(1)
    assert "'unsafe-inline'" not in script_src and "'unsafe-eval'" not in script_src
    assert set(app.csp_hashes()) <= set(script_src.split())


def test_csp_hashes_cover_every_inline_script_of_every_page(client):
    """Each inline <script> Dash writes into a page is allowed by its hash (so the browser runs it)."""
    for path in _pages():
        r = client.get(path)
        html = re.sub(r"<!--.*?-->", "", r.get_data(as_text=True), flags=re.DOTALL)  # IE conditional comments
        allowed = set(re.search(r"script-src ([^;]+)", r.headers["Content-Security-Policy"]).group(1).split())
        inline = [m.group(2) for m in re.finditer(r"<script(?![^>]*\bsrc=)([^>]*)>(.*?)</script>", html, re.DOTALL)
                  if "application/json" not in m.group(1)]
        assert inline, path
        for body in inline:
            digest = base64.b64encode(hashlib.sha256(body.encode()).digest()).decode()
            assert f"'sha256-{digest}'" in allowed, (path, body[:80])


def test_every_script_and_stylesheet_is_served_locally(client):
    """serve_locally: the index names no external host, and every file it names is served here."""
    from dashboard.wsgi import app

    assert app.config.serve_locally
    html = client.get("/").get_data(as_text=True)
    urls = re.findall(r'(?:src|href)="([^"]+)"', html)
    assert urls and not [u for u in urls if re.match(r"(https?:)?//", u)]
    for url in urls:
        if url.startswith("/") and not url.startswith("/#"):
            assert client.get(url).status_code == 200, url
    # plotly.js (loaded on demand by dcc.Graph) ships with dash and is served from this process
    import dash.dcc as dcc_pkg

    plotly = [d for d in dcc_pkg._js_dist if "plotly" in d.get("relative_package_path", "")]
    assert plotly, "no plotly.js bundle registered by dcc"
    r = client.get(f"/_dash-component-suites/{plotly[0]['namespace']}/{plotly[0]['relative_package_path']}")
    assert r.status_code == 200 and len(r.data) > 1_000_000 and b"plotly" in r.data[:5000].lower()


def _page_module(path: str):
    """The page module as Dash imported it (``pages.<name>``; importing it again would register it twice)."""
    import dash

    return sys.modules[next(m for m, p in dash.page_registry.items() if p["path"] == path and m.startswith("pages."))]


def test_a_failing_callback_answers_no_update_and_logs_only_the_class(client, monkeypatch, caplog):
    personal = _page_module("/")

    def boom(*_a, **_k):
        raise ValueError(f"secret {SECRET_HEIGHT} {SECRET_FACT}")

    monkeypatch.setattr(personal, "country_choices", boom)
    from support.dash_protocol import callback_body

    from dashboard.wsgi import app

    dep = next(d for d in app._callback_list if d["output"].startswith("..me-district-all.data"))
    body = callback_body(dep, {("me-country", "value"): "FR", ("me-district", "value"): None}, ["me-country.value"])
    with caplog.at_level("DEBUG"):
        r = client.post("/_dash-update-component", json=body)
    assert r.status_code == 204
    text = caplog.text
    assert "ValueError" in text
    assert str(SECRET_HEIGHT) not in text and SECRET_FACT not in text and "Traceback" not in text


def test_a_failing_page_layout_shows_a_message(client, monkeypatch, caplog):
    import uuid

    import dash
    from support.dash_protocol import ROUTER_OUTPUT, callback_body

    from dashboard.wsgi import app

    def broken_layout(**_query):
        raise RuntimeError("secret layout failure")

    for page in dash.page_registry.values():
        if page["path"] == "/about":
            monkeypatch.setitem(page, "layout", broken_layout)
    router = next(d for d in app._callback_list if d["output"] == ROUTER_OUTPUT)
    fresh = f"?t={uuid.uuid4().hex}"  # a request no cache has answered before (layouts' answers are cached)
    body = callback_body(router, {("_pages_location", "pathname"): "/about", ("_pages_location", "search"): fresh},
                         ["_pages_location.pathname"])
    with caplog.at_level("DEBUG"):
        r = client.post("/_dash-update-component", json=body)
    assert r.status_code == 200
    assert "could not be shown" in r.get_data(as_text=True)
    assert "RuntimeError" in caplog.text and "secret layout failure" not in caplog.text


def test_malformed_callback_requests_are_400_not_500(client, caplog):
    with caplog.at_level("DEBUG"):
        for body in ("{", "[]", "null", '{"output": "nope.children"}', '{"inputs": 5}', '"x"'):
            r = client.post("/_dash-update-component", data=body, content_type="application/json")
            assert r.status_code in (400, 204), (body, r.status_code)
    assert "Traceback" not in caplog.text


def test_oversized_bodies_are_refused(client):
    from dashboard.wsgi import settings as SETTINGS

    r = client.post("/_dash-update-component", data=b"x" * (SETTINGS.max_body_bytes + 1),
                    content_type="application/json")
    assert r.status_code == 413


# --------------------------------------------------------------------------- gunicorn


def _load_conf(env: dict) -> object:
    old = {k: os.environ.get(k) for k in env}
    os.environ.update({k: v for k, v in env.items() if v is not None})
    for k, v in env.items():
        if v is None:
            os.environ.pop(k, None)
    try:
        spec = importlib.util.spec_from_file_location("gconf_test", ROOT / "dashboard" / "gunicorn_conf.py")
        mod = importlib.util.module_from_spec(spec)
        spec.loader.exec_module(mod)
        return mod
    finally:
        for k, v in old.items():
            if v is None:
                os.environ.pop(k, None)
            else:
                os.environ[k] = v


def test_gunicorn_config_values():
    conf = _load_conf({"ANONSET_BIND": None, "ANONSET_HOST": None, "ANONSET_PORT": None, "ANONSET_WORKERS": None})
    assert conf.bind == ["127.0.0.1:8050"]
    assert conf.workers >= 2 and conf.preload_app is True
    assert 10 <= conf.timeout <= 300 and conf.graceful_timeout > 0
    fmt = conf.access_log_format
    assert "%(m)s" in fmt and "%(U)s" in fmt
    for atom in ("%(r)s", "%(q)s", "%(h)s", "%(a)s", "%(f)s", "{", "%(u)s"):
        assert atom not in fmt, atom
    conf = _load_conf({"ANONSET_BIND": "0.0.0.0:9000,unix:/tmp/x.sock", "ANONSET_WORKERS": "3"})
    assert conf.bind == ["0.0.0.0:9000", "unix:/tmp/x.sock"] and conf.workers == 3


def _wait_http(url: str, proc, timeout: float = 300) -> float:
    import requests

    t0 = time.perf_counter()
    while time.perf_counter() - t0 < timeout:
        if proc.poll() is not None:
            raise RuntimeError("server exited")
        try:
            if requests.get(url, timeout=5).status_code == 200:
                return time.perf_counter() - t0
        except requests.RequestException:
            time.sleep(0.1)
    raise TimeoutError(url)


def _stop(proc):
    proc.send_signal(signal.SIGTERM)
    try:
        proc.wait(timeout=40)
    except subprocess.TimeoutExpired:
        proc.kill()
        proc.wait()


#: Requests gunicorn refuses itself, before the app sees them, and the status it answers each with.
GUNICORN_REFUSALS = {
    "bad request line": b"GARBAGE refused-line-secret\r\n\r\n",
    "URI too long": b"GET /refused-line-secret" + b"a" * 9000 + b" HTTP/1.1\r\nHost: x\r\n\r\n",
    "header too large": b"GET / HTTP/1.1\r\nHost: x\r\nX-Big: " + b"b" * 9000 + b"\r\n\r\n",
    "bad header name": b"GET / HTTP/1.1\r\nHost: x\r\nBad Header refused-line-secret: 1\r\n\r\n",
}
GUNICORN_REFUSAL_STATUS = {"bad request line": 400, "URI too long": 414, "header too large": 431,
                           "bad header name": 400}


def _raw_answer(port: int, request: bytes) -> tuple[int, dict]:
    """(status, lower-cased headers) of the answer to raw ``request`` bytes."""
    with socket.create_connection(("127.0.0.1", port), timeout=10) as sock:
        sock.sendall(request)
        data = b""
        while b"\r\n\r\n" not in data:
            chunk = sock.recv(65536)
            if not chunk:
                break
            data += chunk
    head = data.split(b"\r\n\r\n", 1)[0].decode("latin-1").split("\r\n")
    headers = dict((k.strip().lower(), v.strip()) for k, v in (line.split(":", 1) for line in head[1:] if ":" in line))
    return int(head[0].split()[1]), headers


@pytest.mark.slow
def test_gunicorn_with_the_config_serves_warm_workers_and_logs_no_query(cache_root, tmp_path):
    requests = pytest.importorskip("requests")
    port = free_port()
    log = tmp_path / "gunicorn.log"
    env = {**os.environ, "ANONSET_BIND": f"127.0.0.1:{port}", "ANONSET_WORKERS": "2",
           "ANONSET_FLASK_CACHE_DIR": str(tmp_path / "fcache")}
    env.pop("REDIS_URL", None)
    with open(log, "w") as out:
        proc = subprocess.Popen([sys.executable, "-m", "gunicorn", "-c", "dashboard/gunicorn_conf.py",
                                 "dashboard.wsgi:server"], cwd=ROOT, env=env, stdout=out, stderr=subprocess.STDOUT)
    try:
        url = f"http://127.0.0.1:{port}"
        # how long a cold start takes is a benchmark's figure (benchmarks/load_test.py prints it), not this test's:
        # a wall-clock bound here failed on a loaded machine (load 10: over 90 s for a 25-31 s start)
        _wait_http(f"{url}/healthz", proc)
        r = requests.get(f"{url}/healthz?token=query-secret-1", timeout=10)
        assert r.status_code == 200 and r.json()["status"] == "ok"
        assert r.headers["X-Content-Type-Options"] == "nosniff"
        r = requests.post(f"{url}/_dash-update-component?endId=query-secret-2", json=_personal_body(), timeout=60)
        assert r.status_code == 200
        assert requests.get(f"{url}/about?country=query-secret-3", timeout=10).status_code == 200
        requests.get(f"{url}/forged%0aFORGED-LINE%0d%00end", timeout=10)  # a newline and a NUL in the path
        refused = {what: _raw_answer(port, request) for what, request in GUNICORN_REFUSALS.items()}
        chunk = b"x" * 0x100000  # a chunked body past the 16 MB limit: the app's 413, not "not JSON"
        chunked = _raw_answer(port, b"POST /_dash-update-component HTTP/1.1\r\nHost: x\r\nContent-Type: application/json"
                                    b"\r\nTransfer-Encoding: chunked\r\n\r\n" + (b"100000\r\n" + chunk + b"\r\n") * 18
                                    + b"0\r\n\r\n")
        time.sleep(0.5)
    finally:
        _stop(proc)
    text = log.read_text()
    # gunicorn's own refusals (issue 29): its status, the security headers, no request line or address in the log
    for what, (status, headers) in refused.items():
        assert status == GUNICORN_REFUSAL_STATUS[what], (what, status)
        assert headers.get("x-content-type-options") == "nosniff" and "default-src 'none'" in headers.get(
            "content-security-policy", ""), (what, headers)
        assert headers.get("x-frame-options") == "DENY" and headers.get("referrer-policy") == "no-referrer"
    assert chunked[0] == 413 and chunked[1].get("x-content-type-options") == "nosniff", chunked
    assert "refused-line-secret" not in text and "Invalid request from ip" not in text
    assert text.count("request refused with 400 (InvalidRequestLine)") == 1
    assert "request refused with 414 (LimitRequestLine)" in text
    assert "request refused with 431 (LimitRequestHeaders)" in text
    assert "warm: " in text and "data sets loaded" in text
    assert '"GET /healthz" 200' in text and '"POST /_dash-update-component" 200' in text
    for secret in ("query-secret", str(SECRET_HEIGHT), str(SECRET_WEIGHT), SECRET_FACT, "?"):
        assert secret not in "\n".join(l for l in text.splitlines() if '"GET' in l or '"POST' in l), secret
    assert "Traceback" not in text
    forged = [line for line in text.splitlines() if "FORGED-LINE" in line]
    assert len(forged) == 1 and "/forged\\x0aFORGED-LINE\\x0d\\x00end" in forged[0], forged
    assert "\x00" not in text


def test_dockerfile_runs_gunicorn_with_the_config():
    text = (ROOT / "Dockerfile").read_text()
    assert re.search(r"^FROM python:3\.11-slim", text, re.MULTILINE)
    assert "pip install" in text and "dashboard/gunicorn_conf.py" in text and "dashboard.wsgi:server" in text
    assert "HEALTHCHECK" in text and "/healthz" in text
    assert re.search(r"^USER (?!root)", text, re.MULTILINE)


# --------------------------------------------------------------------------- caching


def test_filesystem_cache_is_the_default(cache_root, tmp_path, monkeypatch):
    from flask import Flask
    from flask_caching import Cache

    from dashboard import settings

    monkeypatch.delenv("REDIS_URL", raising=False)
    monkeypatch.setenv("ANONSET_FLASK_CACHE_DIR", str(tmp_path / "fc"))
    s = settings.load()
    assert s.cache_type == "FileSystemCache" and s.cache_dir == str(tmp_path / "fc")
    cache = Cache(Flask("t"), config=s.cache_config())
    assert cache.set("k", {"v": 1}) and cache.get("k") == {"v": 1}
    assert any((tmp_path / "fc").iterdir())
    import dashboard.wsgi  # noqa: F401  (attaches the cache)
    from dashboard.server.cache import cache as app_cache

    assert type(app_cache.cache).__name__ == "FileSystemCache" or os.environ.get("REDIS_URL")


@pytest.mark.slow  # a fresh interpreter or a full build: seconds
def test_app_cache_works_in_a_fresh_process_with_the_filesystem_backend(cache_root, tmp_path):
    code = (
        "from dashboard.wsgi import server; from dashboard.server.cache import cache;"
        "import json;"
        "assert cache.set('fs-probe', 42) and cache.get('fs-probe') == 42;"
        "r = server.test_client().get('/healthz');"
        "print(json.dumps([type(cache.cache).__name__, r.status_code, r.get_json()]))"
    )
    env = {**os.environ, "ANONSET_FLASK_CACHE_DIR": str(tmp_path / "fc")}
    env.pop("REDIS_URL", None)
    out = subprocess.run([sys.executable, "-c", code], cwd=ROOT, env=env, capture_output=True, text=True, timeout=120,
                         check=False)
    assert out.returncode == 0, out.stderr[-2000:]
    kind, status, body = json.loads(out.stdout.strip().splitlines()[-1])
    assert kind == "FileSystemCache" and status == 200 and body["cache"] == "FileSystemCache"
    assert any((tmp_path / "fc").iterdir())


def test_redis_backend_when_redis_url_is_set(cache_root, redis_url, monkeypatch):
    import redis
    from flask import Flask
    from flask_caching import Cache

    from dashboard import settings

    monkeypatch.setenv("REDIS_URL", redis_url)
    s = settings.load()
    assert s.cache_type == "RedisCache"
    cache = Cache(Flask("t"), config=s.cache_config())
    assert cache.set("probe", [1, 2, 3]) and cache.get("probe") == [1, 2, 3]
    keys = redis.Redis.from_url(redis_url).keys("*")
    assert b"anonset:probe" in keys


@pytest.mark.slow  # a fresh interpreter or a full build: seconds
def test_app_uses_redis_in_a_fresh_process_and_stores_nothing_personal(cache_root, redis_url):
    """The real app with REDIS_URL: cache in Redis, /healthz ok, and a personal profile leaves no trace there."""
    import redis

    body = json.dumps(_personal_body())
    code = (
        "import json, sys;"
        "from dashboard.wsgi import server; from dashboard.server.cache import cache;"
        "c = server.test_client();"
        "assert c.get('/').status_code == 200;"
        "r = c.post('/_dash-update-component', data=sys.stdin.read(), content_type='application/json');"
        "h = c.get('/healthz');"
        "print(json.dumps([type(cache.cache).__name__, r.status_code, h.status_code, h.get_json()]))"
    )
    env = {**os.environ, "REDIS_URL": redis_url}
    out = subprocess.run([sys.executable, "-c", code], cwd=ROOT, env=env, input=body, capture_output=True,
                         text=True, timeout=180, check=False)
    assert out.returncode == 0, out.stderr[-2000:]
    kind, status, health, hbody = json.loads(out.stdout.strip().splitlines()[-1])
    assert kind == "RedisCache" and status == 200 and health == 200 and hbody["cache"] == "RedisCache"
    r = redis.Redis.from_url(redis_url)
    keys = r.keys("*")
    assert b"anonset:healthz" in keys
    for key in keys:
        blob = key + (r.dump(key) or b"")
        for secret in (str(SECRET_HEIGHT), str(SECRET_WEIGHT), SECRET_FACT):
            assert secret.encode() not in blob, (key, secret)
    for secret in (str(SECRET_HEIGHT), str(SECRET_WEIGHT), SECRET_FACT):
        assert secret not in out.stderr


def test_personal_answers_are_not_cached_on_the_filesystem(client, tmp_path):
    """A profile request writes none of its answers into the Flask-Caching folder."""
    from dashboard.wsgi import settings as SETTINGS

    folder = Path(SETTINGS.cache_dir)
    before = {p: p.stat().st_mtime_ns for p in folder.glob("*")} if folder.exists() else {}
    r = client.post("/_dash-update-component", json=_personal_body())
    assert r.status_code == 200
    if folder.exists():
        for p in folder.glob("*"):
            if before.get(p) != p.stat().st_mtime_ns:
                data = p.read_bytes()
                for secret in (str(SECRET_HEIGHT), str(SECRET_WEIGHT), SECRET_FACT):
                    assert secret.encode() not in data, (p, secret)


PERSONAL_NAMES = {"sex", "age", "ages", "height", "weight", "h_cm", "w_kg", "h_ft", "h_in", "w_lb", "height_cm",
                  "weight_kg", "aux_name", "aux_percent", "profile"}


def test_memoised_functions_take_no_personal_attributes():
    """Every @cache.memoize / @cache.cached / lru_cache / memo.lru in the app is keyed by non-personal data."""
    offenders, seen = [], set()
    for path in sorted((ROOT / "dashboard").rglob("*.py")):
        tree = ast.parse(path.read_text(encoding="utf-8"))
        for node in ast.walk(tree):
            if not isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
                continue
            names = {ast.unparse(d).split("(")[0] for d in node.decorator_list}
            if not any(n.endswith(("memoize", "cached", "lru_cache", "functools.cache", "cache", "memo.lru"))
                       for n in names):
                continue
            seen.add(f"{path.stem}.{node.name}")
            params = {a.arg for a in (*node.args.args, *node.args.kwonlyargs)}
            bad = params & PERSONAL_NAMES
            if bad:
                offenders.append(f"{path.relative_to(ROOT)}:{node.lineno} {node.name}({', '.join(sorted(bad))})")
    assert offenders == []
    assert {"personal._map_figure", "scaling._law_figure", "explorer._district_names"} <= seen  # the scan sees them


def test_anonset_serve_takes_host_and_port_from_the_environment_unless_given(cache_root, monkeypatch, capsys):
    from dashboard.cli import main, serve

    calls = []
    monkeypatch.setattr(serve, "run_production", lambda host, port, workers: calls.append((host, port)))
    monkeypatch.setenv("ANONSET_PORT", "8123")
    monkeypatch.delenv("ANONSET_HOST", raising=False)
    assert main(["serve"]) == 0
    assert main(["serve", "--port", "9000", "--host", "127.0.0.2"]) == 0
    monkeypatch.delenv("ANONSET_PORT")
    assert main(["serve"]) == 0
    assert calls == [("127.0.0.1", 8123), ("127.0.0.2", 9000), ("127.0.0.1", 8050)]
    assert "http://127.0.0.1:8123/" in capsys.readouterr().out
    monkeypatch.setenv("ANONSET_PORT", "abc")
    assert main(["serve"]) == 2 and calls[-1] == ("127.0.0.1", 8050)
    assert "ANONSET_PORT must be a whole number" in capsys.readouterr().err


def test_anonset_serve_dev_flag_runs_flasks_server(cache_root, monkeypatch):
    import dash

    from dashboard.cli import main

    calls = []
    monkeypatch.setattr(dash.Dash, "run", lambda app, **kw: calls.append((kw["host"], kw["port"])))
    assert main(["serve", "--dev", "--port", "9001"]) == 0
    assert calls == [("127.0.0.1", 9001)]


@pytest.mark.slow  # gunicorn started: the full suite runs it
def test_anonset_serve_is_gunicorn_quiet_and_without_the_development_warning(tmp_path):
    """The README's first command: a production server, no red warning, no line per request."""
    import requests
    from support.browser import free_port

    port = free_port()
    log = tmp_path / "serve.log"
    with open(log, "w") as out:
        proc = subprocess.Popen([sys.executable, "-m", "dashboard", "serve", "--port", str(port)],
                                stdout=out, stderr=subprocess.STDOUT,
                                # not warmed: the warm start is test_gunicorn_with_the_config_serves_warm_workers…
                                env={**os.environ, "ANONSET_WORKERS": "1", "ANONSET_WARM": "0"})
    try:
        deadline = time.time() + 300
        while True:
            try:
                r = requests.get(f"http://127.0.0.1:{port}/explore", timeout=30)
                break
            except (requests.ConnectionError, requests.Timeout):  # still starting (a busy machine)
                assert proc.poll() is None, log.read_text()
                assert time.time() < deadline, log.read_text()
                time.sleep(0.3)
        assert r.status_code == 200 and "AnonSet" in r.text
    finally:
        proc.terminate()
        proc.wait(timeout=30)
    text = log.read_text()
    assert f"AnonSet on http://127.0.0.1:{port}/" in text
    assert "gunicorn" in text.lower()
    assert "development server" not in text.lower()
    assert "GET /explore" not in text
