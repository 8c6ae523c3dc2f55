"""The bucket advisor's report: the recommendation, the Pareto front, where it falls short, per district."""
from __future__ import annotations

import census_loaders as cl
from dashboard.core.buckets import Advice
from dashboard.figures.maps import geojson_url
from dashboard.views import buckets as vb

from . import _common as common
from ._document import Cell, Report, Section, Table
from ._maps import svg_map

METHOD = (
    "For each release granularity on a ladder — age in the census groups, 5-, 10-, 15- or 20-year groups or withheld; "
    "height and weight in 1, 2, 5, 10 or 20 cm / kg bands or withheld; the district, the district except where it "
    "falls short, the region, or no place — the advisor computes every person's conditional anonymity set (CAS: the "
    "census count of their place, sex and age group times the probability of their height and weight bands, SPEC §1) "
    "and the exact share of people whose CAS is at least k. It keeps the Pareto front of information (the entropy of "
    "the released profile per person, in bits) against that coverage and recommends the configuration with the most "
    "bits among those meeting the target share (SPEC §7). A variable granularity per district follows the VisualAnon "
    "study's suggestion.")


def _bits(x, path=None) -> Cell:
    return Cell("–" if x is None else f"{x:.2f}", x, path)


def _cov(x, path=None) -> Cell:
    return Cell("–" if x is None else f"{100 * x:.2f} %", x, path)


def _config_cells(e: dict, p: str) -> dict:
    return {"age_group_years": Cell(str(e["age_group_years"]), e["age_group_years"], p + "age_group_years"),
            "height_cm": Cell(str(e["height_cm"]), e["height_cm"], p + "height_cm"),
            "weight_kg": Cell(str(e["weight_kg"]), e["weight_kg"], p + "weight_kg"),
            "area": Cell(e["area"], e["area"], p + "area"), "bits": _bits(e["bits"], p + "bits"),
            "coverage": _cov(e["coverage"], p + "coverage")}


CONFIG_COLUMNS = (("age_group_years", "age groups (years)"), ("height_cm", "height band (cm)"),
                  ("weight_kg", "weight band (kg)"), ("area", "place"), ("bits", "bits kept"),
                  ("coverage", "share with CAS ≥ k"))


def buckets_report(s: vb.Settings, advice: Advice, notices=()) -> Report:
    """The advisor's report for settings ``s`` and their advice (from :func:`views.buckets.advice` or the core)."""
    r = vb.render(s, advice)
    d = advice.to_dict()
    rec = d["recommended"]
    command = vb.cli_command(s) + " --json"
    headline = Table("headline", "Headline figures", (("what", "figure"), ("value", "value")), (
        {"what": "people (study population)", "value": Cell(f"{d['people']:,.0f}", d["people"], "people")},
        {"what": f"share with CAS ≥ {advice.k:g} under the recommendation",
         "value": _cov(None if rec is None else rec["coverage"], None if rec is None else "recommended/coverage")},
        {"what": "information kept (bits per person)",
         "value": _bits(None if rec is None else rec["bits"], None if rec is None else "recommended/bits")},
        {"what": "configurations searched", "value": Cell(f"{d['configurations']:,}", d["configurations"],
                                                          "configurations")},
        {"what": f"{advice.district_label}s below the target", "value": Cell(f"{len(d['short_districts']):,}",
                                                                             len(d["short_districts"]),
                                                                             "short_districts/#")},
    ), numeric=("value",), command=command)
    front_rows = tuple({**_config_cells(e, f"front/{i}/"), "recommended": "★" if e == rec else ""}
                       for i, e in enumerate(d["front"]))
    front = Section(
        "Information kept against people protected",
        ("Each grey dot is one configuration; the line is the Pareto front (no configuration keeps more bits and "
         "protects more people); the star is the recommendation: the most bits among those meeting the target.",),
        r["front"], "Pareto front", (Table("front", "The Pareto front (★ recommended)",
                                           (("recommended", "★"),) + CONFIG_COLUMNS, front_rows,
                                           numeric=("bits", "coverage"), command=command),), (command,))
    map_fig = r["map"]
    if map_fig:
        map_fig = svg_map(map_fig, geojson_url(advice.code), cl.boundaries(advice.code))
    order = sorted(range(len(d["short_districts"])), key=lambda i: d["short_districts"][i]["coverage"])
    short = tuple({"district_id": Cell(str(x["district_id"]), x["district_id"], f"short_districts/{i}/district_id"),
                   "district_name": x["district_name"],
                   "people": Cell(f"{x['people']:,.0f}", x["people"], f"short_districts/{i}/people"),
                   "coverage": _cov(x["coverage"], f"short_districts/{i}/coverage")}
                  for i, x in ((i, d["short_districts"][i]) for i in order))
    shortfall = Section(
        "Where the recommendation falls short", tuple(p for p in (r["map_help"], r["no_map"]) if p), map_fig,
        "districts below the target",
        (Table("short_districts", f"{advice.district_label}s below {advice.q:.0%} under the recommendation (their own "
                                  "people's share with CAS ≥ k)",
               (("district_id", "id"), ("district_name", advice.district_label), ("people", "people"),
                ("coverage", "share with CAS ≥ k")), short, numeric=("people", "coverage"), command=command),)
        if short else (),
        (command,),
        notes=("" if short else f"Every {advice.district_label} reaches the target.",))
    sections = [Section("Headline figures", tables=(headline,)), front, shortfall]
    if advice.per_district is not None:
        rows = tuple({"district_id": Cell(str(x["district_id"]), x["district_id"], f"per_district/{i}/district_id"),
                      "district_name": x["district_name"],
                      "withhold_district": Cell("withhold" if x["withhold_district"] else "", x["withhold_district"],
                                                f"per_district/{i}/withhold_district"),
                      "age_group_years": Cell(str(x["age_group_years"] or "–"), x["age_group_years"],
                                              f"per_district/{i}/age_group_years"),
                      "height_cm": Cell(str(x["height_cm"] or "–"), x["height_cm"], f"per_district/{i}/height_cm"),
                      "weight_kg": Cell(str(x["weight_kg"] or "–"), x["weight_kg"], f"per_district/{i}/weight_kg"),
                      "bits": _bits(x["bits"], f"per_district/{i}/bits"),
                      "coverage": _cov(x["coverage"], f"per_district/{i}/coverage")}
                     for i, x in enumerate(d["per_district"]))
        sections.append(Section("Per district", (f"Each {advice.district_label}'s own finest safe buckets.",), tables=(
            Table("per_district", f"Per {advice.district_label}: the finest configuration meeting the target within it",
                  (("district_id", "id"), ("district_name", advice.district_label), ("withhold_district", "withhold"),
                   ("age_group_years", "age groups (years)"), ("height_cm", "height (cm)"), ("weight_kg", "weight (kg)"),
                   ("bits", "bits kept"), ("coverage", "share with CAS ≥ k")), rows, numeric=("bits", "coverage"),
                  command=command),),
            commands=(command,)))
    if r["notes"]:
        sections.append(Section("Notes", tuple(r["notes"])))
    params = (("country (data set)", f"{advice.name} ({advice.code})"), ("minimum anonymity set k", f"{advice.k:g}"),
              ("coverage target", f"{advice.q:.1%} of people"), ("ages", d["ages"]),
              ("each district's own finest safe buckets", "yes" if s.per_district else "no"),
              ("body model", advice.body_model))
    return Report(
        kind="buckets", title="AnonSet report: safe bucket sizes for an app",
        lead="How coarse must an app collect age, height, weight and place so that nearly everyone keeps a minimum "
             "anonymity set? The advisor's answer for the settings under “What was asked”.",
        parameters=params, headlines=(r["sentence"],) + tuple(f"{c['title']}: {c['value']} ({c['explain']})"
                                                             for c in r["cards"]),
        sections=tuple(sections), sources=tuple(common.dataset_sources(advice.code)), method=METHOD,
        papers=(common.PAPERS["cas"],),
        limits=(common.small_sets_limit(), common.body_model_limit(),
                "Coverage counts people by the model's expected cell sizes; it assumes an attacker who knows exactly the "
                "released attributes and nothing more."),
        commands=(command,),
        version=common.version(), manifest_sha256=common.manifest_sha256(), date=common.today(),
        notices=tuple(notices),
    )
