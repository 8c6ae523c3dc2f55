"""The load test through the load balancer, with one instance stopped mid-run.

Usage::

    python benchmarks/balancer_load.py [--instances 2] [--users 200] [--duration 60] [--kill-at 0.5]
                                       [--no-kill] [--json results.json]

The load starts once one instance has warmed every data set's default public table into the shared
cache (as a deployment is after its first minutes; ``load_test.py --cold-tables`` measures the cold window).

Starts the deployment of ``deploy/`` on loopback (:func:`deploy.stack.local_stack`: nginx with passive
health checks in front of ``--instances`` gunicorn instances as ``anonset serve`` runs them, sharing one
Redis for the heavy-work slots, rerun limits and the public-table cache), runs ``benchmarks/load_test.py
--url <balancer>`` against it, and at ``--kill-at`` of the run kills the first instance outright (SIGKILL:
its port refuses from then on, nothing is finished gracefully).  Prints the load test's figures, how many
requests each instance answered before and after the kill (from nginx's access log, which records the
upstream of every request and every retry), and exits 1 when any request failed.

What it shows on this 2-core machine: that a request the balancer can retry (one that never reached the
dead instance, or an idempotent GET) is retried on the other instance and does not fail, and what the
latency is with every instance on the same two cores.  Throughput cannot grow here: two instances share
the two cores that one instance already uses.  On more machines each instance brings its own cores and
the shared state lives in Redis, so capacity grows with the instances until Redis or the balancer is the
limit.
"""
from __future__ import annotations

import argparse
import collections
import json
import os
import subprocess
import sys
import tempfile
import threading
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "deploy"))

import stack  # noqa: E402

sys.path.insert(0, str(ROOT / "benchmarks"))
import load_test  # noqa: E402


def _upstream_counts(log: Path, dead: str) -> dict[str, int]:
    """Requests per upstream in nginx's access log; a retried request lists every upstream it tried."""
    counts: collections.Counter = collections.Counter()
    for line in log.read_text().splitlines():
        upstreams = line.rsplit('"', 1)[-1].split()[3:] if '"' in line else []
        tried = " ".join(upstreams)
        counts["retried after the dead instance" if "," in tried and dead in tried else
               (upstreams[-1].rstrip(",") if upstreams else "answered by nginx")] += 1
    return dict(counts)


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--instances", type=int, default=2)
    ap.add_argument("--users", type=int, default=200)
    ap.add_argument("--duration", type=float, default=60.0)
    ap.add_argument("--think", type=float, default=3.0)
    ap.add_argument("--kill-at", type=float, default=0.5, help="share of the run after which one instance is killed")
    ap.add_argument("--no-kill", action="store_true", help="keep every instance up")
    ap.add_argument("--json", type=Path, default=None)
    args = ap.parse_args()
    work = Path(tempfile.mkdtemp(prefix="anonset-balancer-"))
    out, ready = work / "load.json", work / "users-started"
    started = time.perf_counter()
    with stack.local_stack(instances=args.instances) as st:
        print(f"balancer {st.url} in front of {', '.join(i.address for i in st.instances)}; Redis {st.redis_url}; "
              f"stack up in {time.perf_counter() - started:.0f} s", flush=True)
        waited = load_test.wait_for_warm_tables([i.log for i in st.instances], [i.proc for i in st.instances])
        print(f"public tables warmed in the shared cache (waited {waited:.0f} s more)", flush=True)
        cmd = [sys.executable, str(ROOT / "benchmarks" / "load_test.py"), "--url", st.url, "--users", str(args.users),
               "--duration", str(args.duration), "--think", str(args.think), "--json", str(out), "--ready-file", str(ready)]
        load = subprocess.Popen(cmd, cwd=ROOT)
        killed = {}
        if not args.no_kill:
            def kill():
                # the load test first touches every country (a minute or more); count from when the users start
                while not ready.exists() and load.poll() is None:
                    time.sleep(0.2)
                time.sleep(args.duration * args.kill_at)
                if load.poll() is None:
                    st.instances[0].stop(graceful=False)
                    killed["at_s"] = round(time.perf_counter() - started, 1)
                    print(f"\n*** killed instance {st.instances[0].address} (SIGKILL) ***\n", flush=True)

            threading.Thread(target=kill, daemon=True).start()
        code = load.wait()
        counts = _upstream_counts(st.access_log, st.instances[0].address)
    result = json.loads(out.read_text()) if out.exists() else {}
    result.update(instances=args.instances, killed=killed or None, upstreams=counts, load_test_exit=code)
    print()
    print(f"through the balancer: {result.get('requests')} requests, {result.get('errors')} errors, "
          f"p50 {result.get('p50_ms')} ms, p95 {result.get('p95_ms')} ms, {result.get('requests_per_s')} requests/s")
    print("answered by (nginx's access log): " + ", ".join(f"{k}: {v}" for k, v in sorted(counts.items())))
    if killed:
        print(f"one instance of {args.instances} killed {killed['at_s']} s after the start; "
              f"requests that failed: {result.get('errors')}")
    print(f"{os.cpu_count()} cores: throughput cannot grow with instances on one machine; see the docstring")
    if args.json:
        args.json.write_text(json.dumps(result, indent=2))
    return 0 if result.get("errors") == 0 else 1


if __name__ == "__main__":
    raise SystemExit(main())
