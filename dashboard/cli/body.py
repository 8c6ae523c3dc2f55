"""``anonset body --country CC``: the body statistics a data set uses (issue 27), the shell twin of the
personal page's "body statistics" panel."""
from __future__ import annotations

from pathlib import Path

from dashboard.core.country import body_statistics

from . import CliError, emit


def _text(out: dict) -> str:
    year = f", {out['year']}" if out.get("year") else ""
    lines = [f"{out['name']} ({out['code']}): body statistics from {out['source']}{year}."]
    if out.get("note"):
        lines.append(out["note"])
    ncd = out["kind"] == "ncdrisc"
    head = (f"{'sex':<7}{'age':<8}{'height cm':>16}{'weight kg':>16}{'ρ(h,ln w)':>11}{'r(h,w)':>8}"
            + (f"{'BMI':>13}  cohorts" if ncd else ""))
    lines.append(head)
    for g in out["groups"]:
        line = (f"{g['sex']:<7}{g['age']:<8}{g['height_mean']:>9.1f} ± {g['height_sd']:<4.1f}"
                f"{g['weight_mean']:>9.1f} ± {g['weight_sd']:<4.1f}{g['rho_height_lnweight']:>11.2f}"
                f"{g['corr_height_weight']:>8.2f}")
        if ncd:
            line += f"{g['bmi_mean']:>7.1f} ± {g['bmi_sd']:<4.1f}  {g['birth_cohorts']}"
        lines.append(line)
    lines.append(out["groups_below_18"])
    lines.append(f"Open group: {out['open_group']}")
    return "\n".join(lines)


def _run(args) -> int:
    root = Path(args.cache) if args.cache else None
    if root is not None and not root.is_dir():
        raise CliError(f"--cache {args.cache!r}: no such folder")
    return emit(body_statistics(args.country, root), args.json, _text)


def add_parser(sub) -> None:
    p = sub.add_parser("body", help="the body statistics (height, weight) a data set uses, and their source",
                       description=("Per sex × age group: mean and SD of height and weight, the height–weight "
                                    "correlation, the source and its year (a country's own table, or its NCD-RisC "
                                    "prior)."))
    p.add_argument("--country", required=True, help="data set code, e.g. KR, DE, US-ZCTA")
    p.add_argument("--cache", help="cache folder to read (default: data_cache/)")
    p.add_argument("--json", action="store_true", help="machine-readable output")
    p.set_defaults(func=_run)
