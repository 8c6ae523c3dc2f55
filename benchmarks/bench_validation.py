"""Time ``anonset validate nhanes`` (both body models) on the cached NHANES sample.

Usage::

    python benchmarks/bench_validation.py [--repeat 3] [--cache DIR]

Cold: the sample read from the cache file; warm: read again from the memo.  The
target is < 10 s for the whole command (both models).
"""
from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from census_loaders import cache
from dashboard import cli
from dashboard.core.body import validate_nhanes

TARGET_S = 10.0


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--repeat", type=int, default=3)
    ap.add_argument("--cache", type=Path, default=None)
    args = ap.parse_args(argv)
    cache.clear_tables()
    t = time.perf_counter()
    out = validate_nhanes(root=args.cache)
    cold = time.perf_counter() - t
    warm = []
    for _ in range(max(args.repeat, 1)):
        t = time.perf_counter()
        validate_nhanes(root=args.cache)
        warm.append(time.perf_counter() - t)
    # the whole command as a user runs it, in this process (parser, JSON output to /dev/null)
    import contextlib
    import io

    t = time.perf_counter()
    with contextlib.redirect_stdout(io.StringIO()):
        cli.main(["validate", "nhanes", "--json"] + (["--cache", str(args.cache)] if args.cache else []))
    command = time.perf_counter() - t
    print(f"validate nhanes: {out['population']:,} people, models {', '.join(out['models'])}")
    print(f"  cold (sample read from the cache file): {cold:.3f} s")
    print(f"  warm (best of {len(warm)}): {min(warm):.3f} s")
    print(f"  the CLI command (--json): {command:.3f} s  target < {TARGET_S:g} s: "
          f"{'met' if max(cold, command) < TARGET_S else 'NOT met'}")
    return 0 if max(cold, command) < TARGET_S else 1


if __name__ == "__main__":
    sys.exit(main())
