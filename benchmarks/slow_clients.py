"""Slow clients against gunicorn alone and behind the shipped nginx, side by side in one run.

    python benchmarks/slow_clients.py [--header-clients 60] [--body-clients 24] [--seconds 20]

Starts ``deploy/stack.py``'s loopback deployment (nginx → two gunicorn instances, one Redis). Then,
for each target (one instance directly, then the proxy), it opens ``--header-clients`` connections
that send their request headers one byte every 2 s and ``--body-clients`` that announce a 100 kB
POST body and send 10 bytes of it every 2 s. While they hang on, it probes ``/healthz`` and one
page (``/explore``) 4 times a second and prints each probe's p50 / p95 / max latency and failures
(a probe waits at most 5 s), and how many slow sockets the target has closed by the end.
Target (issue 29): behind the proxy, p95 < 500 ms for both probes and 0 failures.
Exit status 0 when the proxy meets it.
"""
from __future__ import annotations

import argparse
import socket
import sys
import threading
import time
import urllib.request
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "deploy"))

import stack  # noqa: E402  (deploy/stack.py)

PROBES = ("/healthz", "/explore")


def _slow_header(host: str, port: int, stop: threading.Event, closed: list) -> None:
    try:
        s = socket.create_connection((host, port), timeout=5)
        s.sendall(b"GET /healthz HTTP/1.1\r\nHost: 127.0.0.1\r\n")
        while not stop.is_set():
            s.sendall(b"X")          # one byte of a header that never ends
            if stop.wait(2):
                break
    except OSError:
        closed.append(1)             # the server cut it (or refused it)
        return
    s.close()


def _slow_body(host: str, port: int, stop: threading.Event, closed: list) -> None:
    try:
        s = socket.create_connection((host, port), timeout=5)
        s.sendall(b"POST /_dash-update-component HTTP/1.1\r\nHost: 127.0.0.1\r\n"
                  b"Content-Type: application/json\r\nContent-Length: 100000\r\n\r\n")
        while not stop.is_set():
            s.sendall(b"0" * 10)
            if stop.wait(2):
                break
    except OSError:
        closed.append(1)
        return
    s.close()


def _probe(url: str, seconds: float) -> tuple[list[float], int]:
    times, failures = [], 0
    end = time.time() + seconds
    while time.time() < end:
        t = time.perf_counter()
        try:
            with urllib.request.urlopen(url, timeout=5) as r:
                r.read()
                ok = r.status == 200
        except OSError:
            ok = False
        dt = time.perf_counter() - t
        if ok:
            times.append(dt)
        else:
            failures += 1
        time.sleep(max(0.0, 0.25 - dt))
    return times, failures


def _pct(values: list[float], q: float) -> float:
    if not values:
        return float("nan")
    v = sorted(values)
    return v[min(len(v) - 1, int(round(q * (len(v) - 1))))]


def measure(base_url: str, header_clients: int, body_clients: int, seconds: float) -> dict:
    host, port = base_url.removeprefix("http://").split(":")
    stop, closed = threading.Event(), []
    threads = [threading.Thread(target=_slow_header, args=(host, int(port), stop, closed), daemon=True)
               for _ in range(header_clients)]
    threads += [threading.Thread(target=_slow_body, args=(host, int(port), stop, closed), daemon=True)
                for _ in range(body_clients)]
    for t in threads:
        t.start()
    time.sleep(2)  # every slow client is connected and has started sending
    results: dict = {}
    probes = {p: threading.Thread(target=lambda p=p: results.__setitem__(p, _probe(base_url + p, seconds)))
              for p in PROBES}
    for t in probes.values():
        t.start()
    for t in probes.values():
        t.join()
    still_open = sum(t.is_alive() for t in threads)
    stop.set()
    for t in threads:
        t.join(timeout=5)
    return {"probes": results, "slow_sockets_closed_by_server": len(closed), "slow_sockets_open_at_end": still_open}


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--header-clients", type=int, default=60)
    ap.add_argument("--body-clients", type=int, default=24)
    ap.add_argument("--seconds", type=float, default=20.0, help="probing time per target")
    args = ap.parse_args(argv)
    with stack.local_stack(instances=2) as st:
        targets = {"gunicorn alone": f"http://{st.instances[0].address}", "behind nginx": st.url}
        rows, ok = [], True
        for name, url in targets.items():
            m = measure(url, args.header_clients, args.body_clients, args.seconds)
            for path, (times, failures) in m["probes"].items():
                p95 = _pct(times, 0.95)
                rows.append((name, path, len(times) + failures, failures, _pct(times, 0.5), p95,
                             max(times, default=float("nan")), m["slow_sockets_closed_by_server"]))
                if name == "behind nginx" and (failures or not p95 < 0.5):
                    ok = False
            time.sleep(3)  # let the first target recover before the next
    print(f"{args.header_clients} slow-header and {args.body_clients} slow-body clients, {args.seconds:.0f} s of probes each")
    print(f"{'target':<16}{'probe':<11}{'probes':>7}{'failed':>7}{'p50 ms':>9}{'p95 ms':>9}{'max ms':>9}{'slow cut':>10}")
    for name, path, n, failed, p50, p95, mx, cut in rows:
        print(f"{name:<16}{path:<11}{n:>7}{failed:>7}{p50 * 1e3:>9.0f}{p95 * 1e3:>9.0f}{mx * 1e3:>9.0f}{cut:>10}")
    print("target behind nginx: p95 < 500 ms, 0 failed —", "met" if ok else "NOT met")
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
