"""The shipped deployment on loopback: Debian's nginx (deploy/nginx.conf.template) in front of two
gunicorn instances sharing one Redis (deploy/stack.py).

Slow clients are cut by the proxy and do not stall the instances; nginx's own refusals (400, 414,
413 for a chunked body past 16 MB) carry the security headers; its logs hold no query string, no
client address and no request line; one instance stopping mid-run fails no request.
The figures (p95 under 60 slow-header and 24 slow-body clients) are in benchmarks/slow_clients.py.
"""
from __future__ import annotations

import json
import shutil
import socket
import sys
import threading
import urllib.request

import pytest
from support import ROOT

pytestmark = [pytest.mark.slow,
              pytest.mark.skipif(shutil.which("nginx") is None and not __import__("os").path.exists("/usr/sbin/nginx"),
                                 reason="needs Debian's nginx (apt-get install nginx)"),
              pytest.mark.skipif(shutil.which("redis-server") is None, reason="needs redis-server")]

SECURITY_HEADERS = ("content-security-policy", "x-content-type-options", "x-frame-options", "referrer-policy")


@pytest.fixture(scope="module")
def deployed():
    sys.path.insert(0, str(ROOT / "deploy"))
    try:
        import stack
    finally:
        sys.path.pop(0)
    # not warmed (no 192 data sets loaded per instance at start): the warm start is tested in test_deploy.py
    with stack.local_stack(instances=2, env={"ANONSET_WARM": "0"}) as st:
        yield st


def _raw(st, request: bytes, body_chunks=(), timeout: float = 15) -> tuple[int, dict, bytes]:
    port = int(st.url.rsplit(":", 1)[1])
    with socket.create_connection(("127.0.0.1", port), timeout=timeout) as s:
        s.sendall(request)
        try:
            for chunk in body_chunks:
                s.sendall(chunk)
        except OSError:
            pass  # the proxy answered and closed while the body was still coming
        data = b""
        while True:
            try:
                part = s.recv(65536)
            except OSError:
                break
            if not part:
                break
            data += part
    head, _, body = data.partition(b"\r\n\r\n")
    lines = head.decode("latin-1").split("\r\n")
    status = int(lines[0].split()[1])
    headers = {k.strip().lower(): v.strip() for k, _, v in (line.partition(":") for line in lines[1:])}
    return status, headers, body


def test_the_app_answers_through_the_proxy_from_both_instances(deployed):
    with urllib.request.urlopen(deployed.url + "/healthz", timeout=10) as r:
        health = json.loads(r.read())
    assert health["status"] == "ok" and health["cache"] == "RedisCache"
    for _ in range(6):
        with urllib.request.urlopen(deployed.url + "/explore?country=FR", timeout=30) as r:
            assert r.status == 200 and "content-security-policy" in {k.lower() for k in r.headers}
    used = {line.rsplit(" ", 1)[-1] for line in deployed.access_log.read_text().splitlines() if '"GET /explore"' in line}
    assert used == {i.address for i in deployed.instances}, "least_conn spreads the pages over both instances"


@pytest.mark.parametrize("name, request_bytes, chunks, status", [
    ("request line too long", b"GET /" + b"a" * 20000 + b" HTTP/1.1\r\nHost: x\r\n\r\n", (), 414),
    ("not HTTP", b"GARBAGE\x00\x01\r\n\r\n", (), 400),
    ("chunked body past 16 MB", b"POST /_dash-update-component HTTP/1.1\r\nHost: x\r\nTransfer-Encoding: chunked\r\n"
                                b"Content-Type: application/json\r\n\r\n",
     [b"100000\r\n" + b"x" * 0x100000 + b"\r\n"] * 18, 413),
])
def test_the_proxys_own_refusals_carry_the_security_headers(deployed, name, request_bytes, chunks, status):
    got, headers, body = _raw(deployed, request_bytes, chunks)
    assert got == status, name
    for h in SECURITY_HEADERS:
        assert h in headers, (name, h)
    assert headers["content-security-policy"].startswith("default-src 'none'")
    assert body.decode() == "The request was refused before it reached AnonSet: it was malformed, too large or too slow.\n"


def test_slow_clients_are_held_by_the_proxy_not_by_the_instances(deployed):
    port = int(deployed.url.rsplit(":", 1)[1])
    held = []
    for _ in range(40):
        s = socket.create_connection(("127.0.0.1", port), timeout=5)
        s.sendall(b"GET /healthz HTTP/1.1\r\nHost: x\r\nX-Slow: ")  # a header that never ends
        held.append(s)
    for _ in range(16):
        s = socket.create_connection(("127.0.0.1", port), timeout=5)
        s.sendall(b"POST /_dash-update-component HTTP/1.1\r\nHost: x\r\nContent-Length: 100000\r\n\r\n{")
        held.append(s)
    try:
        # more stalled clients than the instances have threads (2 × 1 worker × 4 threads): every one is
        # nginx's, so the app still answers at once
        for path in ("/healthz", "/explore", "/healthz"):
            with urllib.request.urlopen(deployed.url + path, timeout=5) as r:
                assert r.status == 200
        # nothing reached an instance: its own access log saw no slow request
        for inst in deployed.instances:
            assert "_dash-update-component" not in inst.log.read_text()
    finally:
        for s in held:
            s.close()


def test_the_logs_hold_no_query_no_address_and_no_request_line(deployed):
    with urllib.request.urlopen(deployed.url + "/explore?country=DE&k=7&secret=1.83m", timeout=30) as r:
        assert r.status == 200
    _raw(deployed, b"GET /" + b"q" * 20000 + b"?height=183 HTTP/1.1\r\nHost: x\r\n\r\n")
    logs = deployed.access_log.read_text() + deployed.error_log.read_text()
    assert "secret" not in logs and "country=" not in logs and "height=183" not in logs and "qqqq" not in logs
    assert "127.0.0.1 -" not in logs and "client: 127.0.0.1" not in logs   # no visitor address
    for line in deployed.access_log.read_text().splitlines():
        assert "?" not in line


def test_stopping_one_instance_mid_run_fails_no_request(deployed):
    """Requests keep flowing while one instance is killed outright (its port refuses from then on):
    nginx retries each on the other instance and marks the dead one down."""
    failures, done = [], []
    stop = threading.Event()

    def client():
        while not stop.is_set():
            for path in ("/healthz", "/explore?country=FR", "/_tables/LU.json"):
                try:
                    with urllib.request.urlopen(deployed.url + path, timeout=30) as r:
                        r.read()
                        done.append(r.status)
                        if r.status != 200:
                            failures.append((path, r.status))
                except OSError as exc:
                    failures.append((path, repr(exc)))

    for path in ("/explore?country=FR", "/_tables/LU.json"):  # built once (a cold table may answer 503: busy)
        urllib.request.urlopen(deployed.url + path, timeout=60).read()
    threads = [threading.Thread(target=client) for _ in range(4)]
    for t in threads:
        t.start()
    stop.wait(3)
    deployed.instances[0].stop(graceful=False)
    stop.wait(5)
    stop.set()
    for t in threads:
        t.join()
    assert failures == [] and len(done) > 20
    dead = deployed.instances[0].address
    retried = [line for line in deployed.access_log.read_text().splitlines() if line.endswith(f"{dead}, {deployed.instances[1].address}")]
    assert retried, "at least one request met the dead instance and was retried on the other"
    assert deployed.instances[1].proc.poll() is None


def test_with_no_healthy_instance_the_balancer_says_so(deployed):
    """Last in this module: every instance stopped, the balancer answers a page that says the servers are
    down (with the security headers), not an empty response or nginx's gateway page."""
    import stack

    for inst in deployed.instances:
        inst.stop(graceful=False)
    status, headers, body = _raw(deployed, b"GET /explore HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n")
    assert status in (502, 504)
    assert body.decode() == stack.PROXY_DOWN_TEXT and "No AnonSet server is answering" in body.decode()
    assert headers.get("x-content-type-options") == "nosniff" and "default-src 'none'" in headers.get(
        "content-security-policy", "")
    assert "nginx" not in body.decode().lower()
