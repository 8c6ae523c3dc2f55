"""``anonset anonland``: the synthetic-country validation of SPEC §4 from a shell.

Runs AnonLand (full scale by default, ``--scale`` for quick runs), prints the
summary and, with ``--out``, writes ``citizens.parquet`` and ``summary.json``.
Arguments are read as text so a bad value ends with one line and exit code 2.
"""
from __future__ import annotations

import math
import sys
from dataclasses import replace

from dashboard.core import anonland as core

from . import CliError, add_model_arguments, emit


def _number(text: str | None, what: str, default: float) -> float:
    if text is None:
        return float(default)
    try:
        value = float(str(text).strip().replace(",", "").replace("_", ""))
    except ValueError:
        raise CliError(f"{what} {text!r} is not a number") from None
    if not math.isfinite(value):
        raise CliError(f"{what} {text!r} is not a finite number")
    return value


def _whole(text: str | None, what: str, default: int) -> int:
    value = _number(text, what, default)
    if not value.is_integer():
        raise CliError(f"{what} must be a whole number, not {text!r}")
    return int(value)


def _config(args) -> core.AnonLandConfig:
    n_classes = len(core.DEFAULT_CLASSES)
    total = _whole(args.test_citizens, "--test-citizens", 1_000 * n_classes)
    if total <= 0:
        raise CliError(f"--test-citizens must be positive, not {args.test_citizens!r}")
    if total % n_classes:
        raise CliError(f"--test-citizens must be a multiple of {n_classes} (an equal share per district class)")
    base = core.AnonLandConfig(
        seed=_whole(args.seed, "--seed", 2026),
        citizens_per_class=1,
        epsilon=_number(args.epsilon, "--epsilon", 2.0),
        height_width=_number(args.height_width, "--height-width", 5.0),
        weight_width=_number(args.weight_width, "--weight-width", 5.0),
        body_model=args.model,
    )
    if args.scale is not None:
        base = base.scaled(_number(args.scale, "--scale", 1.0))
    # Citizens last, so their check against each class's people sees the scaled sizes.
    return replace(base, citizens_per_class=total // n_classes)


def _fmt(x, digits: int = 3) -> str:
    if x is None:
        return "–"
    return f"{x:+.{digits}f}" if isinstance(x, float) else str(x)


def _pct(x) -> str:
    return "–" if x is None else f"{100 * x:.1f}%"


def _text(result: dict) -> str:
    p = result["parameters"]
    lines = [
        (f"AnonLand: {p['population']:,} people in {p['n_districts']:,} districts, "
        f"{result['n_citizens']:,} test citizens, ε = {p['epsilon']:g}, seed {p['seed']}, "
        f"bands {p['height_width']:g} cm × {p['weight_width']:g} kg, body model {p.get('body_model', 'paper')} "
        f"for the CAS"),
        "",
        f"{'RAS':>8}  {'citizens':>8}  {'|div|>25%':>9}  {'(noisy)':>8}  {'median div':>10}",
    ]
    for r in result["by_ras_range"]:
        lines.append(f"{r['range']:>8}  {r['n']:>8,}  {_pct(r['share_diverging']):>9}  "
                     f"{_pct(r['share_diverging_noisy']):>8}  {_fmt(r['median_divergence']):>10}")
    m = result["median_divergence_large_ras"]
    nv = result["noisy_vs_plain"]
    lines += [
        "",
        (f"median divergence (CAS − RAS)/RAS for RAS > {m['ras_above']}: {_fmt(m['plain'], 4)} "
        f"(noisy census {_fmt(m['noisy'], 4)}, {m['n']:,} citizens)"),
        (f"largest |noisy − plain| CAS: {nv['max']:.4g} people (citizen {nv['max_citizen']}); "
        f"median {nv['median']:.3g}, 95% {nv['q95']:.3g}"),
    ]
    models = result.get("models") or {}
    if len(models) > 1:
        lines += ["", "median |divergence| by body model (plain census):",
                  f"{'RAS':>8}  " + "  ".join(f"{name:>8}" for name in models)]
        for i, r in enumerate(next(iter(models.values()))):
            lines.append(f"{r['range']:>8}  " + "  ".join(f"{_pct(rows[i]['median_abs_divergence']):>8}"
                                                        for rows in models.values()))
    run = result.get("run")
    if run:
        lines.append(f"runtime {run['runtime_seconds']:.1f} s, peak memory {run['peak_memory_mb']:,.0f} MB")
    for f in result.get("files", []):
        lines.append(f"wrote {f}")
    return "\n".join(lines)


def _run(args) -> int:
    cfg = _config(args)
    show = sys.stderr.isatty()

    def progress(fraction: float, message: str) -> None:
        if show:
            print(f"\r{100 * fraction:5.1f}%  {message[:90]:<90}", end="", file=sys.stderr, flush=True)

    result = core.run_anonland(cfg, progress=progress)
    if show:
        print(file=sys.stderr)
    out = dict(result.summary)
    if args.out:
        try:
            out["files"] = [str(p) for p in core.write_result(result, args.out)]
        except OSError as exc:
            raise CliError(f"cannot write to --out {args.out!r}: {exc.strerror or exc}") from None
    return emit(out, args.json, _text)


def add_parser(sub) -> None:
    p = sub.add_parser(
        "anonland",
        help="validate CAS against real anonymity sets in the synthetic country AnonLand",
        description=(
            "Build AnonLand (102.5 million synthetic people, SPEC §4), take a plain and a Laplace-noised "
            "census, and compare CAS with the real anonymity set (RAS) of test citizens."
        ),
    )
    p.add_argument("--seed", help="random seed (default 2026)")
    p.add_argument("--test-citizens", help="test citizens in all, split evenly over the 5 district classes (default 5000)")
    p.add_argument("--epsilon", help="Laplace privacy parameter ε of the noisy census, sensitivity 1 (default 2)")
    p.add_argument("--scale", help="multiply every district size by this, e.g. 0.01 for a quick run (default 1)")
    p.add_argument("--height-width", help="height band width in cm (default 5)")
    p.add_argument("--weight-width", help="weight band width in kg (default 5)")
    add_model_arguments(p, self_report=False)
    p.add_argument("--out", metavar="DIR", help="write citizens.parquet and summary.json to this folder")
    p.add_argument("--json", action="store_true", help="machine-readable output")
    p.set_defaults(func=_run)
