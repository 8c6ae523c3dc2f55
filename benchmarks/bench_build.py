"""The data build in this process against the build on a two-worker Dask cluster, side by side in one run.

Usage::

    python benchmarks/bench_build.py [--runs 1] [--raw ../shared/data/raw] [--aggregates-only]

Each run builds the whole cache into a temporary folder with ``anonset data build --scheduler serial`` and
with ``--scheduler local`` (a ``LocalCluster`` of 2 single-thread processes on 127.0.0.1), alternating,
and prints per path:

* **build**: wall seconds of the whole ``anonset data build`` (loading every raw file is serial on both
  paths; only the world aggregates, the map over data sets, run on the cluster);
* **aggregates**: the seconds of that map, as the build logs them;
* **peak memory**: the largest resident memory of the build's whole process tree (the build and, on the
  Dask path, its scheduler and workers), sampled every 0.1 s with psutil.

Both builds must give byte-identical files (the script checks the world aggregates' sha256 and exits 1 when
they differ).  With ``--aggregates-only`` it copies the shipped ``data_cache/`` and recomputes only the
aggregates (``anonset data aggregates``), which isolates the distributed part.

On this 2-core machine two workers cannot beat one process by much: the cores are the limit, and the Dask
path pays for starting its processes and for each worker loading the data sets it is given.  On a cluster
with more cores the map spreads over every worker (``--scheduler tcp://…``), and the serial part, reading
the raw files, is what remains.  Timings depend on the machine's load: the header prints the load average.
"""
from __future__ import annotations

import argparse
import hashlib
import os
import re
import shutil
import statistics
import subprocess
import sys
import tempfile
import threading
import time
from pathlib import Path

import psutil

ROOT = Path(__file__).resolve().parents[1]
PATHS = ("serial", "local")
FILES = ("world/aggregates.parquet", "world/district_aggregates.parquet")


def _tree_rss(proc: psutil.Process) -> int:
    total = 0
    for p in [proc, *proc.children(recursive=True)]:
        try:
            total += p.memory_info().rss
        except psutil.Error:
            pass
    return total


def _run(cmd: list[str]) -> tuple[float, float, str]:
    """Wall seconds, peak tree RSS in MB, and stderr of ``cmd``."""
    started = time.perf_counter()
    proc = subprocess.Popen(cmd, cwd=ROOT, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True)
    peak = 0
    watched = psutil.Process(proc.pid)
    done = threading.Event()

    def sample():
        nonlocal peak
        while not done.is_set():
            try:
                peak = max(peak, _tree_rss(watched))
            except psutil.Error:
                pass
            time.sleep(0.1)

    sampler = threading.Thread(target=sample, daemon=True)
    sampler.start()
    _, err = proc.communicate()
    done.set()
    sampler.join()
    wall = time.perf_counter() - started
    if proc.returncode != 0:
        sys.exit(f"{' '.join(cmd)} failed ({proc.returncode}):\n{err[-2000:]}")
    return wall, peak / 2**20, err


def _aggregate_seconds(log: str) -> float:
    m = re.search(r"world aggregates: .* in ([0-9.]+) s", log)
    return float(m.group(1)) if m else float("nan")


def _digest(folder: Path) -> dict[str, str]:
    return {f: hashlib.sha256((folder / f).read_bytes()).hexdigest() for f in FILES}


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--runs", type=int, default=1)
    ap.add_argument("--raw", default=None, help="raw data folder (default: the build's default)")
    ap.add_argument("--aggregates-only", action="store_true", help="recompute only the aggregates of a copy of data_cache/")
    args = ap.parse_args()
    anonset = [sys.executable, "-c", "from dashboard.cli import main; raise SystemExit(main())"]
    results: dict[str, list[tuple[float, float, float]]] = {p: [] for p in PATHS}
    digests: dict[str, dict] = {}
    with tempfile.TemporaryDirectory(prefix="bench-build-") as tmp:
        for run in range(args.runs):
            for path in PATHS:
                out = Path(tmp) / f"{path}-{run}"
                if args.aggregates_only:
                    shutil.copytree(ROOT / "data_cache", out)
                    cmd = [*anonset, "data", "aggregates", "--cache", str(out), "--scheduler", path]
                else:
                    cmd = [*anonset, "data", "build", "--out", str(out), "--scheduler", path]
                    if args.raw:
                        cmd += ["--raw", args.raw]
                wall, peak, log = _run(cmd)
                results[path].append((wall, _aggregate_seconds(log), peak))
                digests[f"{path}-{run}"] = _digest(out)
                shutil.rmtree(out)
    load = " / ".join(f"{x:.1f}" for x in os.getloadavg())
    what = "anonset data aggregates (a copy of data_cache/)" if args.aggregates_only else "anonset data build"
    print(f"{what}, median of {args.runs} run(s); {os.cpu_count()} cores, load average {load}")
    print(f"{'path':<28}{'build (s)':>12}{'aggregates (s)':>16}{'peak memory (MB)':>18}")
    labels = {"serial": "serial (this process)", "local": "Dask, 2 workers × 1 thread"}
    med = {}
    for path in PATHS:
        walls, aggs, peaks = zip(*results[path], strict=True)
        med[path] = (statistics.median(walls), statistics.median(aggs), max(peaks))
        print(f"{labels[path]:<28}{med[path][0]:>12.1f}{med[path][1]:>16.1f}{med[path][2]:>18.0f}")
    print(f"Dask / serial: build ×{med['local'][0] / med['serial'][0]:.2f}, aggregates ×{med['local'][1] / med['serial'][1]:.2f}")
    same = len({tuple(sorted(d.items())) for d in digests.values()}) == 1
    print("world aggregates identical on both paths: " + ("yes" if same else "NO"))
    return 0 if same else 1


if __name__ == "__main__":
    raise SystemExit(main())
