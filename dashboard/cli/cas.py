"""``anonset cas``: the personal anonymity set, its funnel, ξ, κ and advice, from a shell.

Every argument is read as text and checked by the core, so a bad value (an
unknown district, a height of 400 cm, text where a number belongs) ends with one
line naming the problem and exit code 2.
"""
from __future__ import annotations

import math
from pathlib import Path

import census_loaders as cl
from census_loaders import canonical_code
from census_loaders.auxiliary import parse_fraction_csv, user_fraction
from dashboard.core.country import load_country_model
from dashboard.core.groups import DEFAULT_STUDY, format_age_band
from dashboard.core.parsing import parse_age
from dashboard.core.personal import DEFAULT_KS, Profile, profile_report
from dashboard.core.text import format_count, format_percent

from . import CliError, add_model_arguments, emit


def _number(text: str, what: str) -> float:
    try:
        value = float(str(text).strip().replace(",", ""))
    except ValueError:
        raise CliError(f"{what} {text!r} is not a number") from None
    if not math.isfinite(value):
        raise CliError(f"{what} {text!r} is not a finite number")
    return value


def _study(text: str | None) -> tuple[float, float]:
    if text is None:
        return DEFAULT_STUDY
    band = parse_age(text)
    if not isinstance(band, tuple):
        raise CliError(f"--study {text!r} must be an age band such as 18-75 or 18+")
    return band


def _user_tables(args) -> list:

    tables = []
    for spec in args.aux_percent or []:
        name, sep, pct = spec.rpartition("=")
        if not sep or not name.strip():
            raise CliError(f"--aux-percent {spec!r} must look like NAME=PERCENT, e.g. 'Runs marathons=2.5'")
        try:
            tables.append(user_fraction(name, percent=_number(pct, f"--aux-percent {name!r}")))
        except ValueError as exc:
            raise CliError(f"--aux-percent {spec!r}: {exc}") from None
    for path in args.aux_csv or []:
        p = Path(path)
        if not p.is_file():
            raise CliError(f"--aux-csv {path!r}: no such file")
        try:
            tables.append(parse_fraction_csv(p.read_text(encoding="utf-8-sig"), p.stem, file_label=str(p)))
        except UnicodeDecodeError:
            raise CliError(f"--aux-csv {path!r}: not a UTF-8 text file") from None
        except ValueError as exc:
            raise CliError(f"--aux-csv {path!r}: {exc}") from None
    return tables


def _profile(args) -> Profile:
    if not args.country:
        raise CliError("give a country or data set with --country, e.g. --country DE")
    code = args.country.strip()
    try:  # any case (--country ng); an unknown code names the closest ones
        code = canonical_code(code, Path(args.cache) if args.cache else None)
    except FileNotFoundError:
        pass  # no cache: said in one line when the model is loaded
    return Profile.build(
        code,
        district=args.district,
        sex=args.sex,
        age=tuple(args.age or ()),
        height=args.height,
        height_width=args.height_width,
        weight=args.weight,
        weight_width=args.weight_width,
        aux=tuple(args.aux or ()) + tuple(_user_tables(args)),
        study=_study(args.study),
        area="region" if args.region else "district",
    )


def _ks(args) -> tuple[float, ...]:
    ks = tuple(_number(k, "--k") for k in (args.k or ())) or DEFAULT_KS
    for k in ks:
        if k <= 0:
            raise CliError(f"--k must be positive, not {k:g}")
    return tuple(int(k) if float(k).is_integer() else k for k in ks)


def _users(args) -> int | None:
    if args.users is None:
        return None
    value = _number(args.users, "--users")
    if not value.is_integer() or value < 1:
        raise CliError(f"--users must be a whole number of at least 1, not {args.users!r}")
    return int(value)


def _text(report: dict) -> str:
    lines = []
    width = max(len(line["value"]) for line in report["funnel"])
    lines.append("Funnel (people, rounded down):")
    for line in report["funnel"]:
        lines.append(f"  {line['step']:<10} {line['value']:<{width}}  {format_count(line['count']):>14}")
    cas = report["cas"]
    lines.append(f"Conditional anonymity set: {format_count(cas)} (unrounded {cas:.6g})")
    lines.append(f"{report['headline']} (expected size of your own anonymity set "
                 f"{report['expected_anonymity_set']:.4g}; body model {report['body_model']}).")
    lines.append(report["verdict"])
    r = report["reidentification"]
    lines.append(
        f"Re-identification in a population of {format_count(r['population'])}: "
        f"uniqueness ξ = {format_percent(r['uniqueness'], positive=r['p'] < 1)}, correctness κ = {format_percent(r['correctness'])}, "
        f"correct guess 1/max(λ,1) = {format_percent(r['correct_guess'])}"
    )
    if r["users"]:
        parts = ", ".join(f"k={k}: {format_percent(v)}" for k, v in r["k_indistinguishable"].items())
        lines.append(f"  k-indistinguishable among {r['users']:,} users: {parts}")
    if report["warnings"]:
        lines.append("Notes:")
        lines.extend(f"  ! {w['message']}" for w in report["warnings"])
    lines.append("Advice:")
    for adv in report["advice"]:
        k = f"{adv['k']:g}"
        if adv["met"]:
            lines.append(f"  k = {k}: already met")
        elif not adv["options"]:
            lines.append(f"  k = {k}: no combination of the changes considered reaches it")
        else:
            lines.append(f"  k = {k}:")
            for i, o in enumerate(adv["options"], 1):
                bits = "∞" if o["bits"] is None or not math.isfinite(o["bits"]) else f"{o['bits']:.2f}"
                lines.append(f"    {i}. {'; '.join(o['changes'])} → {format_count(o['cas'])} (gives up {bits} bits)")
    return "\n".join(lines)


def _run(args) -> int:
    profile = _profile(args)
    ks, users = _ks(args), _users(args)
    root = Path(args.cache) if args.cache else None
    try:
        model = load_country_model(profile.country, profile.study, root=root, model=args.model,
                                   self_report_correction=args.self_report_correction)
    except FileNotFoundError as exc:
        raise CliError(str(exc)) from None
    districts = _number(args.districts, "--districts")
    if not districts.is_integer() or districts < 0:
        raise CliError(f"--districts must be a whole number, not {args.districts!r}")
    report = profile_report(model, profile, ks=ks, users=users)
    out = report.to_dict(max_districts=int(districts))
    out["study"] = format_age_band(*model.with_study(profile.study).study)
    prior = cl.dataset_info(model.code, root).get("body_prior") or {}
    out["body_statistics"] = {"kind": prior.get("kind"), "country": prior.get("country"),
                              "source": prior.get("source"), "year": prior.get("year"),
                              "stand_ins": prior.get("stand_ins") or {}, "note": model.body_note}
    return emit(out, args.json, _text)


def add_parser(sub) -> None:
    p = sub.add_parser(
        "cas",
        help="the conditional anonymity set of one profile: funnel, ξ, κ, advice",
        description=(
            "Estimate how many people share a profile (district, sex, age, height, weight, auxiliary "
            "knowledge) from census statistics. Omit an attribute to withhold it."
        ),
    )
    p.add_argument("--country", help="data set code, e.g. DE, US, US-ZCTA")
    p.add_argument("--district", help="district code (or its exact name); omit for the whole country")
    p.add_argument("--region", action="store_true", help="coarsen the district to its region")
    p.add_argument("--sex", help="female or male")
    p.add_argument("--age", action="append", metavar="AGE",
                   help="census age group (65-75, 75+) or age in years; repeat to add groups")
    p.add_argument("--height", help="band in cm (160-165) or a value (172) with --height-width")
    p.add_argument("--height-width", help="band width for a height value: 1, 2, 5, 10 or 20 (default 5)")
    p.add_argument("--weight", help="band in kg (70-75) or a value with --weight-width")
    p.add_argument("--weight-width", help="band width for a weight value (default 5)")
    p.add_argument("--aux", action="append", metavar="ID", help="auxiliary-knowledge preset id; repeatable")
    p.add_argument("--aux-percent", action="append", metavar="NAME=PERCENT",
                   help="your own auxiliary knowledge: a percentage of everyone; repeatable")
    p.add_argument("--aux-csv", action="append", metavar="FILE",
                   help="your own fraction table (CSV with fraction or percent, keyed by district_id/sex/age)")
    p.add_argument("--study", help="study population age band (default 18-75)")
    p.add_argument("--users", help="size of a released dataset, for k-indistinguishability")
    p.add_argument("--k", action="append", help="target anonymity set size for advice; repeatable (default 10, 100)")
    p.add_argument("--districts", default="20", help="how many districts of the what-if ranking --json lists (default 20)")
    add_model_arguments(p)
    p.add_argument("--cache", help="cache folder to read (default: data_cache/)")
    p.add_argument("--json", action="store_true", help="machine-readable output")
    p.set_defaults(func=_run)
