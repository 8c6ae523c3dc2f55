"""``anonset attack``: the sparse de-anonymisation of SPEC §6 measured on MovieLens, and its forecast.

Runs the Scoreboard-RH matcher (:mod:`dashboard.core.attack`) on galleries of several
sizes, prints the shares identified, wrongly matched and refused, then PYC-MB and the
baselines fitted with the largest size held out and their forecasts at 10⁶ and 10⁸ users.
Arguments are read as text so a bad value ends with one line and exit code 2.
"""
from __future__ import annotations

import math

from dashboard.core import attack as sa

from . import CliError, emit


def _number(text, what: str) -> float:
    try:
        value = float(str(text).strip().replace("_", ""))
    except ValueError:
        raise CliError(f"{what} {text!r} is not a number") from None
    if not math.isfinite(value):
        raise CliError(f"{what} {text!r} is not a finite number")
    return value


def _whole(text, what: str) -> int:
    value = _number(text, what)
    if value != int(value):
        raise CliError(f"{what} must be a whole number, not {text!r}")
    return int(value)


def parse_sizes(text: str) -> tuple[int, ...]:
    """Gallery sizes from "50,100,200"."""
    parts = [p.strip() for p in str(text).split(",") if p.strip()]
    if not parts:
        raise CliError("--sizes: give gallery sizes separated by commas, e.g. 50,100,200,400,671")
    if len(parts) > sa.MAX_SIZES:
        raise CliError(f"--sizes: at most {sa.MAX_SIZES} gallery sizes are measured (got {len(parts)})")
    return tuple(_whole(p, "--sizes: gallery size") for p in parts)


def config_from_args(args) -> sa.AttackConfig:
    return sa.AttackConfig(
        known=_whole(args.known, "--known"),
        noise_stars=_number(args.noise_stars, "--noise-stars"),
        noise_days=_whole(args.noise_days, "--noise-days"),
        wrong_share=_number(args.wrong, "--wrong"),
        sizes=parse_sizes(args.sizes),
        repeats=_whole(args.repeats, "--repeats"),
        seed=_whole(args.seed, "--seed"),
        phi=_number(args.phi, "--phi"),
    )


def _pct(x) -> str:
    return "–" if x is None else f"{100 * x:6.2f} %"


def _text(r: dict) -> str:
    c, d = r["config"], r["data"]
    lines = [
        (f"Scoreboard-RH on MovieLens ({d['users']:,} users, {d['items']:,} movies, {d['ratings']:,} ratings): "
         f"m = {c['known']} known ratings, rating ± {c['noise_stars']:g} star, date ± {c['noise_days']} days, "
         f"{c['wrong_items']} wrong item(s), phi = {c['phi']:g}, {c['repeats']} repetition(s), seed {c['seed']}"),
        "",
        f"{'n':>6} {'identified':>10} {'wrong':>9} {'no match':>9} {'H(Pi) bits':>11} {'-log2 Pi(r)':>12} "
        f"{'log2 n':>7}",
    ]
    for m in r["measured"]:
        lines.append(f"{m['n']:>6,} {_pct(m['kappa']):>10} {_pct(m['wrong']):>9} {_pct(m['no_match']):>9} "
                     f"{m['entropy_bits']:>11.3f} {m['target_bits']:>12.3f} {m['prior_bits']:>7.2f}")
    lines.append("")
    if not r["forecast"]:
        lines.append(f"No forecast: {r['forecast_reason']}")
    else:
        head = f"{'model':<7}" + "".join(f" {'kappa(' + f'{a:.0e}' + ')':>14}" for a in sa.FORECAST_AT)
        lines.append(head + "   held-out n: forecast vs measured")
        for name, rows in r["forecast"].items():
            hold = r["holdout_all"].get(name) or {}
            if rows is None:
                lines.append(f"{name:<7} not available: {r['models'][name]['reason']}")
                continue
            cells = "".join(f" {_pct(p['kappa']):>14}" for p in rows)
            if hold.get("forecast") is None:
                held = f"not available: {hold.get('reason', '')}"
            else:
                held = (f"{_pct(hold['forecast']).strip()} vs {_pct(hold['measured']).strip()} "
                        f"(error {100 * hold['error']:+.2f} pp)")
            lines.append(f"{name:<7}{cells}   {held}")
        h = r["holdout"]
        if h is not None:
            lines.append("")
            if h.get("forecast") is None:
                lines.append(f"PYC-MB fitted without n = {h['n']:,.0f}: not available ({h.get('reason', '')})")
            else:
                lines.append(f"PYC-MB fitted without n = {h['n']:,.0f} forecasts {_pct(h['forecast']).strip()}; "
                             f"measured {_pct(h['measured']).strip()}; error {100 * h['error']:+.2f} pp")
    if r.get("by_known"):
        n = r["by_known"][0]["n"]
        lines += ["", f"Against known ratings m (galleries of {n:,} users):",
                  f"{'m':>6} {'identified':>10} {'wrong':>9} {'no match':>9}"]
        lines += [f"{b['known']:>6} {_pct(b['kappa']):>10} {_pct(b['wrong']):>9} {_pct(b['no_match']):>9}"
                  for b in r["by_known"]]
    for note in r["notes"]:
        lines.append(f"note: {note}")
    lines += ["EXP and POL are the project's forms (see `anonset pyc forecast`).",
              f"{r['seconds']:.1f} s. Data: {d['attribution']}"]
    return "\n".join(lines)


def _run(args) -> int:
    cfg = config_from_args(args)
    data = sa.movielens()
    by_known = None
    if args.by_known:
        values = [_whole(v, "--by-known") for v in str(args.by_known).split(",") if v.strip()]
        if not values or len(values) > sa.MAX_KNOWN:
            raise CliError(f"--by-known: give 1 to {sa.MAX_KNOWN} values of m, e.g. 1,2,4,8")
        checked = sa.check_config(cfg, data.n_users)
        by_known = sa.sweep_known(data, checked, values, n=max(checked.sizes))
    exp = sa.run_experiment(data, cfg)
    out = sa.experiment_dict(exp)
    if by_known is not None:
        out["by_known"] = [{k: r[k] for k in ("known", "n", "kappa", "wrong", "no_match", "entropy", "repeats")}
                           for r in by_known]
    return emit(out, args.json, _text)


def add_parser(sub) -> None:
    p = sub.add_parser(
        "attack",
        help="measure the Narayanan-Shmatikov sparse de-anonymisation on MovieLens and forecast it",
        description=(
            "Scoreboard-RH (Narayanan & Shmatikov) on galleries of MovieLens users: the share identified from m "
            "approximately known ratings, wrongly matched, or refused (eccentricity below phi); then PYC-MB and "
            "the ENT/EXP/POL baselines fitted with the largest gallery held out, forecast to 1e6 and 1e8 users."
        ),
    )
    p.add_argument("--known", default="8", help=f"known ratings m per target, 1-{sa.MAX_KNOWN} (default 8)")
    p.add_argument("--noise-days", default="14",
                   help=f"date error, whole days 0-{sa.MAX_NOISE_DAYS} (default 14; also the matcher's tolerance)")
    p.add_argument("--noise-stars", default="1",
                   help=f"rating error in stars, 0-{sa.MAX_NOISE_STARS:g} in half stars (default 1; also the tolerance)")
    p.add_argument("--wrong", default="0", help="share of the m items that are wrong, 0-1 (default 0)")
    p.add_argument("--sizes", default="50,100,200,400,671",
                   help="gallery sizes n, comma-separated, 2 to the number of users (default 50,100,200,400,671)")
    p.add_argument("--repeats", default="5", help=f"random galleries per size, 1-{sa.MAX_REPEATS} (default 5)")
    p.add_argument("--seed", default="1", help="random seed (default 1)")
    p.add_argument("--phi", default=str(sa.DEFAULT_PHI),
                   help=f"eccentricity threshold in standard deviations (default {sa.DEFAULT_PHI:g}, the paper's)")
    p.add_argument("--by-known", metavar="LIST",
                   help="also measure identification against m at the largest size, e.g. 1,2,4,8 (key by_known)")
    p.add_argument("--json", action="store_true", help="machine-readable output")
    p.set_defaults(func=_run)
