"""``anonset buckets``: the coarsest-but-safe release granularity for an app (SPEC §7).

    anonset buckets --country DE --k 10 --coverage 0.95 [--per-district] [--model paper] [--json]
                    [--ages 18-75] [--export-json FILE] [--export-csv FILE]

The JSON output has ``recommended`` (``age_group_years``, ``height_cm``, ``weight_kg``,
``bits``, ``coverage`` and the explicit ``age_groups`` and ``area``) and ``front``
(a list of the same).  ``age_group_years`` is a number of years, ``"census"`` (the
census groups) or ``"withheld"``; ``height_cm`` / ``weight_kg`` a width or ``"withheld"``;
``age_groups`` lists the resulting ``[from, to)`` bands, which is what an app applies.  The export files are what the explorer's "For app
developers" page downloads (:func:`dashboard.core.buckets.export_json` / ``export_csv``).
"""
from __future__ import annotations

from pathlib import Path

from dashboard.core import buckets as bk
from dashboard.core.body import DEFAULT_MODEL, MODELS
from dashboard.core.buckets import export_csv, export_json, recommendation_text
from dashboard.core.groups import DEFAULT_STUDY
from dashboard.core.regions import parse_range
from dashboard.core.text import plural, share_setting

from . import CliError, emit


def _number(text, what: str) -> float:
    try:
        return float(str(text).strip().rstrip("%")) / (100.0 if str(text).strip().endswith("%") else 1.0)
    except ValueError:
        raise CliError(f"{what} {text!r} is not a number") from None


def _fmt_width(w, unit: str) -> str:
    return "withheld" if w in (None, "withheld") else f"{w} {unit}"


def _fmt_age(a) -> str:
    return {"census": "census groups", "withheld": "withheld"}.get(a, f"{a}-year")


def _text(result: dict) -> str:
    advice: bk.Advice = result["_advice"]
    lines = [
        f"{advice.name} ({advice.code}), ages {result['ages']}, k = {advice.k:g}, coverage target {advice.q:.1%}, "
        f"body model {advice.body_model}: {len(advice.evaluated)} configurations, {len(advice.front)} on the front "
        f"({advice.seconds:.1f} s)",
        "",
        recommendation_text(advice),
    ]
    if advice.recommended is not None and advice.short_under_recommended:
        n = len(advice.short_under_recommended)
        lines.append(f"Under this choice {n} of {len(advice.district_ids)} {plural(advice.district_label)} "
                     f"have fewer than {share_setting(advice.q)} of their own people at CAS ≥ {advice.k:g}.")
    lines += ["", f"{'':2}{'age':>14} {'height':>9} {'weight':>9} {'area':>19} {'bits':>7} {'coverage':>9}"]
    for e in advice.front:
        c = e.config
        mark = "* " if e is advice.recommended else "  "
        lines.append(f"{mark}{_fmt_age(c.age):>14} {_fmt_width(c.height, 'cm'):>9} {_fmt_width(c.weight, 'kg'):>9} "
                     f"{c.area:>19} {e.bits:7.2f} {e.coverage:9.2%}")
    lines.append("(* recommended: the most bits with coverage ≥ target)")
    if advice.per_district is not None:
        rows = advice.per_district.rows()
        withhold = [r for r in rows if r["withhold_district"]]
        lines += ["", f"Per {advice.district_label}: {len(rows) - len(withhold)} can be released at "
                      f"{advice.district_label} level with their own finest safe buckets; "
                      f"{len(withhold)} need the {advice.district_label} withheld:"]
        for r in withhold[:30]:
            lines.append(f"  {r['district_name']} ({r['district_id']})")
        if len(withhold) > 30:
            lines.append(f"  … and {len(withhold) - 30} more (see --json)")
    for note in advice.notes:
        lines.append(f"Note: {note}")
    return "\n".join(lines)


def _run(args) -> int:
    ages = parse_range(args.ages, "age range", allow_open=True) if args.ages else DEFAULT_STUDY
    advice = bk.advise(
        args.country, _number(args.k, "k"), _number(args.coverage, "coverage"), ages=ages, model=args.model,
        per_district=args.per_district, root=Path(args.cache) if args.cache else None,
    )
    for path, text in ((args.export_json, export_json), (args.export_csv, export_csv)):
        if path:
            try:
                Path(path).write_text(text(advice), encoding="utf-8")
            except OSError as exc:
                raise CliError(f"cannot write {path}: {exc.strerror or exc}") from None
    result = advice.to_dict()
    result["seconds"] = advice.seconds
    if args.json:
        return emit(result, True, str)
    result["_advice"] = advice
    return emit(result, False, _text)


def add_parser(sub) -> None:
    p = sub.add_parser(
        "buckets",
        help="bucket advisor: the coarsest-but-safe age, height, weight and place granularity for an app",
        description="Search release granularities (merged census age groups; height and weight bands of "
                    f"{', '.join(str(w) for w in bk.WIDTHS if w)} or withheld; district, region or withheld) for the "
                    "one keeping the most information (bits) while at least a share --coverage of people "
                    "have a conditional anonymity set of at least --k (SPEC §7).",
    )
    p.add_argument("--country", required=True, metavar="CODE", help="data set code, e.g. DE, US, AU-SA2")
    p.add_argument("--k", default="10", help="minimum anonymity set (default 10)")
    p.add_argument("--coverage", default="0.95", help="share of people who must reach k, in (0, 1] (default 0.95)")
    p.add_argument("--ages", help="study population [from, to), e.g. 18-75 (default)")
    p.add_argument("--per-district", action="store_true",
                   help="also each district's finest configuration meeting the coverage within it")
    p.add_argument("--model", default=DEFAULT_MODEL, metavar="MODEL",
                   help=f"body model; available: {', '.join(MODELS)} (default {DEFAULT_MODEL})")
    p.add_argument("--export-json", metavar="FILE", help="write the JSON config an app can apply")
    p.add_argument("--export-csv", metavar="FILE", help="write every configuration as CSV")
    p.add_argument("--cache", help="cache folder to read (default: data_cache/)")
    p.add_argument("--json", action="store_true", help="machine-readable output")
    p.set_defaults(func=_run)
