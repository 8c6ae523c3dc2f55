"""``anonset country-table | cdf | districts``: the regional explorer's numbers from a shell.

Options map one to one onto the explorer's link (:class:`~dashboard.core.regions.Scenario`),
so ``Scenario.to_cli()`` prints a command these parsers accept.  Every value is
checked by the core; bad input ends with one line and exit code 2.
"""
from __future__ import annotations

import math
from pathlib import Path

from dashboard.core import regions
from dashboard.core.groups import DEFAULT_STUDY
from dashboard.core.regions import STATS, Scenario, UserPercent, parse_range
from dashboard.core.text import format_count

from . import CliError, emit


def cache_root(args) -> Path | None:
    return Path(args.cache) if getattr(args, "cache", None) else None


def _split(values) -> list[str]:
    """Repeated and/or comma-separated option values, in order."""
    return [p.strip() for v in (values or ()) for p in str(v).split(",") if p.strip()]


def _numbers(text: str, what: str) -> tuple[float, ...]:
    out = []
    for part in str(text).split(","):
        part = part.strip().replace("_", "")
        try:
            value = float(part)
        except ValueError:
            raise CliError(f"{what} {part!r} is not a number (give e.g. 5,20,100)") from None
        if not math.isfinite(value) or value <= 0:
            raise CliError(f"{what} values must be positive numbers of people, not {part!r}")
        out.append(value)
    if not out:
        raise CliError(f"{what} needs at least one value, e.g. 5,20,100")
    return tuple(out)


def _countries(args) -> list[str]:
    codes = _split(args.country)
    if not codes:
        raise CliError("give a country or data set with --country, e.g. --country DE")
    return codes


def scenario_from_args(args) -> Scenario:
    """The scenario the options describe, validated exactly as a link would be."""
    q = {"country": ",".join(_countries(args))}
    if args.sex is not None:
        q["sex"] = ",".join(_split(args.sex))
    if args.ages is not None:
        q["ages"] = args.ages
    if args.no_body:
        q["body"] = "0"
    if args.height_width is not None:
        q["height_width"] = args.height_width
    if args.weight_width is not None:
        q["weight_width"] = args.weight_width
    if args.bmi is not None:
        q["bmi"] = args.bmi
    if getattr(args, "k", None) is not None:
        q["k"] = args.k
    if getattr(args, "stat", None) is not None:
        q["stat"] = args.stat
    q["model"] = getattr(args, "model", "v2")
    q["sr"] = "1" if getattr(args, "self_report_correction", False) else "0"
    scenario = Scenario.from_query(q, check_data=False)
    aux = [a.strip() for a in (args.aux or ()) if a.strip()]
    aux += [UserPercent.parse(spec) for spec in (args.aux_percent or ())]
    if aux:
        scenario = scenario.replace(aux=tuple(aux))
    return scenario.check_data(cache_root(args))


def _cas(x) -> str:
    """Whole people rounded down (SPEC display rule); below one person, two significant digits."""
    if x is None or (isinstance(x, float) and math.isnan(x)):
        return "–"
    return format_count(x) if x >= 1 else f"{x:.2g}"


def _pct(x) -> str:
    if x is None or (isinstance(x, float) and math.isnan(x)):
        return "–"
    return f"{100 * x:.2f} %"


def _num_label(x: float) -> str:
    return f"{x:,.0f}" if float(x).is_integer() else f"{x:g}"


# --------------------------------------------------------------------------- country-table


def _run_table(args) -> int:
    codes = _split(args.country) or None
    ages = parse_range(args.ages, "--ages", allow_open=True) if args.ages else DEFAULT_STUDY
    df = regions.comparable_country_table(codes, ages, args.grain, root=cache_root(args))
    rows = df.to_dict("records")
    out = {"ages": df["ages"].iloc[0] if len(df) else None, "rows": [_plain(r) for r in rows]}
    return emit(out, args.json, _table_text)


def _plain(row: dict) -> dict:
    out = {}
    for k, v in row.items():
        if hasattr(v, "item"):
            v = v.item()
        if v is None or (isinstance(v, float) and math.isnan(v)) or str(v) == "<NA>":
            v = None
        out[k] = v
    return out


def _table_text(out: dict) -> str:
    head = (f"{'country':<8} {'sex':<6} {'min CAS':>9}  {'where':<32} {'cell mean':>11} {'M/F':>6} "
            f"{'dev>30%':>8} {'w/o top Q':>16} {'middle half':>16}")
    title = (f"Country tables, district × sex × age only, ages {out['ages']} "
             "(CAS = census count; means over all combinations):")
    lines = [title, head]
    for r in out["rows"]:
        where = f"{r['min_district_name'] or '–'} ({r['min_district_id'] or '–'}), {r['min_age'] or '–'}"
        if len(where) > 32:
            where = where[:31] + "…"
        top = f"{_cas(r['mean_without_top_quartile'])} ({r['mean_without_top_quartile_pct']:.0f}%)"
        mid = f"{_cas(r['mean_middle_half'])} ({r['mean_middle_half_pct']:.0f}%)"
        ratio = "–" if r["male_female_ratio"] is None else f"{r['male_female_ratio']:.3f}"
        lines.append(f"{r['country']:<8} {r['sex']:<6} {_cas(r['min_cas']):>9}  {where:<32} "
                     f"{_cas(r['cell_mean']):>11} {ratio:>6} {_pct(r['share_deviating']):>8} {top:>16} {mid:>16}")
    return "\n".join(lines)


# --------------------------------------------------------------------------- cdf


def _run_cdf(args) -> int:
    scenario = scenario_from_args(args)
    at = _numbers(args.at, "--at")
    root = cache_root(args)
    below = bool(args.below)
    cdfs = regions.comparable_cdfs(scenario, args.grain, at, strict=below, root=root)
    countries = []
    for code in scenario.countries:
        c = cdfs[code]
        countries.append({
            "country": code, "model": scenario.model, "people": c.people, "plausible_people": c.plausible_people,
            "plausible_share": c.plausible_share, "covered_people": c.plausible_people,
            "covered_share": c.covered_share, "combinations": c.n_cells,
            "at": [{"x": float(x), "share_people": float(p), "share_combinations": float(q)}
                   for x, p, q in zip(c.x, c.person, c.cells)],
            "notes": list(regions.scenario_notes(scenario, code, root=root)),
        })
    out = {"scenario": scenario.to_query(), "grain": args.grain,
           "semantics": "CAS below x (< x)" if below else "CAS at most x (≤ x)", "countries": countries}
    return emit(out, args.json, _cdf_text)


def _cdf_text(out: dict) -> str:
    lines = []
    for c in out["countries"]:
        covered = ("in plausible cells (BMI 17–30, paper model)" if c["model"] == "paper"
                   else "in the cells holding 99.9 % of each group (body model v2)")
        below = out["semantics"].startswith("CAS below")
        relation, sign = ("below", "<") if below else ("at most", "≤")
        grain = "whole 5-year age groups" if out.get("grain") == "5" else "the census's own age groups"
        lines.append(f"{c['country']}: share of people whose anonymity set (CAS) is {relation} x, on {grain}, of the "
                     f"{format_count(c['covered_people'])} people the model covers ({_pct(c['covered_share'])} of "
                     f"{format_count(c['people'])}, those {covered})")
        for row in c["at"]:
            lines.append(f"  CAS {sign} {_num_label(row['x']):>12}: {_pct(row['share_people']):>9} of people, "
                         f"{_pct(row['share_combinations']):>9} of {c['combinations']:,} combinations")
        lines.extend(f"  ! {n}" for n in c["notes"])
    return "\n".join(lines)


# --------------------------------------------------------------------------- districts


_LOCATED = {"min": "min", "max": "max"}


def _run_districts(args) -> int:
    scenario = scenario_from_args(args)
    root = cache_root(args)
    col = regions.STAT_COLUMNS[scenario.stat]
    rows = []
    for code in scenario.countries:
        df = regions.district_statistics(scenario, code, root=root)
        keep = ["country", "district_id", "district_name", "region_name", "filled", "people", col]
        if scenario.stat in _LOCATED:
            p = _LOCATED[scenario.stat]
            keep += [f"{p}_sex", f"{p}_age", f"{p}_height", f"{p}_weight"]
        rows += [_plain(r) for r in df[keep].to_dict("records")]
    out = {"scenario": scenario.to_query(), "stat": scenario.stat, "column": col, "k": scenario.k,
           "districts": rows}
    return emit(out, args.json, _districts_text)


def _districts_text(out: dict) -> str:
    stat, col = out["stat"], out["column"]
    title = {
        "person_mean": "person mean of CAS (Σ CAS² / Σ CAS)",
        "cell_mean": "cell mean of CAS (mean over combinations)",
        "min": "minimum non-zero CAS",
        "max": "maximum CAS",
        "share_below": f"share of people with CAS below {_num_label(out['k'])} (CAS < k)",
    }[stat]
    lines = [f"Per district: {title}; * = filled from its region (SPEC §1.4)"]
    for r in out["districts"]:
        v = r[col]
        value = _pct(v) if stat == "share_below" else _cas(v)
        name = f"{r['district_name']}{' *' if r['filled'] else ''}"
        line = f"{r['country']:<8} {r['district_id']:<12} {name[:40]:<40} {r['region_name'][:24]:<24} {value:>12}"
        if stat in _LOCATED and r[f"{stat}_sex"] is not None:
            where = ", ".join(str(r[f"{stat}_{a}"]) for a in ("sex", "age", "height", "weight") if r[f"{stat}_{a}"])
            line += f"  at {where}"
        lines.append(line)
    return "\n".join(lines)


# --------------------------------------------------------------------------- parsers


def add_scenario_options(p, cache_and_json: bool = True) -> None:
    p.add_argument("--country", action="append", metavar="CODE",
                   help="data set code (DE, US, AU-SA2 …); repeat or comma-separate for several")
    p.add_argument("--sex", action="append", help="female and/or male (default both); repeat or comma-separate")
    p.add_argument("--ages", help="study population [from, to), e.g. 18-75 (default) or 15-85")
    p.add_argument("--no-body", action="store_true", help="district × sex × age only, without height × weight")
    p.add_argument("--height-width", help="height band width in cm: 1, 2, 5, 10 or 20 (default 5)")
    p.add_argument("--weight-width", help="weight band width in kg: 1, 2, 5, 10 or 20 (default 5)")
    p.add_argument("--bmi", help="plausible BMI range at the cell centre (default 17-30; --model paper only)")
    p.add_argument("--model", default="v2", help="body model: v2 (default) or paper (SPEC §1.6)")
    p.add_argument("--self-report-correction", action="store_true",
                   help="v2: correct self-reported body statistics to measured ones with the NHANES offsets")
    p.add_argument("--aux", action="append", metavar="ID", help="auxiliary-knowledge preset id; repeatable")
    p.add_argument("--aux-percent", action="append", metavar="NAME=PERCENT",
                   help="your own auxiliary knowledge: 'Runs=2.5' or per age band 'Gadget=18-30:10,30+:5'; repeatable")
    if cache_and_json:
        p.add_argument("--cache", help="cache folder to read (default: data_cache/)")
        p.add_argument("--json", action="store_true", help="machine-readable output")


def add_parser(sub) -> None:
    p = sub.add_parser(
        "country-table",
        help="per country and sex: minimum CAS, cell mean, M/F ratio, deviation and trimmed means",
        description="Country tables of SPEC §1.5 over district × sex × age only (no body measurements).",
    )
    p.add_argument("--country", action="append", metavar="CODE",
                   help="data set code; repeat or comma-separate (default: every data set)")
    p.add_argument("--ages", help="study population [from, to) (default 18-75; published comparisons used 15-85)")
    p.add_argument("--grain", choices=regions.GRAINS, default="census",
                   help="age groups compared: 5 = whole 5-year groups inside --ages (comparable across countries; "
                        "the UK's single years summed), census = each data set's own (default)")
    p.add_argument("--cache", help="cache folder to read (default: data_cache/)")
    p.add_argument("--json", action="store_true", help="machine-readable output")
    p.set_defaults(func=_run_table)

    p = sub.add_parser(
        "cdf",
        help="share of people (and of combinations) whose CAS is at most each value",
        description=("The person-weighted CDF of CAS over a whole country at the given values: the share of "
                     "people whose anonymity set is at most x (CAS ≤ x), of the people the model covers (SPEC §1.8): "
                     "v2 covers ≥ 99.9 % of everyone; the paper model leaves implausible height × weight cells out. "
                     "The covered share is stated."),
    )
    add_scenario_options(p)
    p.add_argument("--at", default="5,20,100", help="comma-separated values of x (default 5,20,100)")
    p.add_argument("--grain", choices=regions.GRAINS, default="census",
                   help="age groups: census = each data set's own (default), 5 = whole 5-year groups inside --ages "
                        "(comparable across countries; the explorer's curves and readouts)")
    p.add_argument("--below", action="store_true",
                   help="count CAS < x (the explorer's readouts: 'below k') instead of CAS ≤ x")
    p.set_defaults(func=_run_cdf)

    p = sub.add_parser(
        "districts",
        help="one statistic of the profile grid for every district (what the map colours)",
        description="Per-district statistics of CAS over the profile grid (SPEC §1.5).",
    )
    add_scenario_options(p)
    p.add_argument("--stat", help=f"statistic: {', '.join(STATS)} (default person_mean)")
    p.add_argument("--k", help="threshold for --stat share_below: people with CAS < k (default 5)")
    p.set_defaults(func=_run_districts)
