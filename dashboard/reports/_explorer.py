"""The regional explorer's report: the scenario's district map, the distributions and the country tables."""
from __future__ import annotations

import math

import census_loaders as cl
from dashboard.core import regions
from dashboard.core.body import BODY_SOURCES_TEXT
from dashboard.core.country import load_country_model
from dashboard.core.groups import format_age_band
from dashboard.core.regions import Scenario
from dashboard.figures import explorer as fx
from dashboard.figures.maps import geojson_url
from dashboard.views import explorer as ve

from . import _common as common
from ._document import Cell, Report, Section, Table
from ._maps import svg_map

#: Where the report reads the curves: the readouts' k = 5, 20, 100 and a wider sweep (CAS < x).
CDF_AT: tuple[float, ...] = (1, 2, 5, 10, 20, 50, 100, 1000, 10000)

METHOD = (
    "A person's conditional anonymity set (CAS) is the number of people who share their district, sex, age group, "
    "height band and weight band: the census count of district × sex × age group times the probability of the height "
    "and weight bands given sex and age group (body model v2: correlated height and weight, log-normal weight; the "
    "paper model: independent normals with a BMI filter), times any auxiliary fraction (SPEC §1). An attacker who "
    "links two databases on these attributes re-identifies a person with probability 1/CAS. The map colours each "
    "district by a statistic of its cells; the curves give the share of people (and of combinations) whose CAS is "
    "below x, over the people the model covers (SPEC §1.5, §1.8).")


def _finite(v):
    if v is None:
        return None
    try:
        f = float(v)
    except (TypeError, ValueError):
        return None
    return f if math.isfinite(f) else None


def _cas(v, path: str | None = None) -> Cell:
    f = _finite(v)
    return Cell(fx.format_cas(f) if f is not None else "–", f, path)


def _pct(v, path: str | None = None) -> Cell:
    f = _finite(v)
    return Cell(fx.percent(f) if f is not None else "–", f, path)


def parameters(s: Scenario, cdf_grain: str, table_ages, table_grain: str) -> tuple[tuple[str, str], ...]:
    aux = [a.spec if hasattr(a, "spec") else str(a) for a in s.aux]
    grain = {"5": "whole 5-year age groups", "census": "each data set's own age groups"}
    return (
        ("countries (data sets)", ", ".join(f"{cl.dataset_info(c)['name']} ({c})" for c in s.countries)),
        ("sex", ", ".join(s.sexes)),
        ("ages (study population)", format_age_band(*s.ages)),
        ("profile", "district × sex × age × height band × weight band" if s.include_body
         else "district × sex × age only"),
        ("height band", f"{s.height_width:g} cm"), ("weight band", f"{s.weight_width:g} kg"),
        ("body model", s.model), ("self-report correction (NHANES offsets)", "on" if s.self_report else "off"),
        ("plausible BMI (paper model only)", ve.range_text(s.bmi_range)),
        ("auxiliary knowledge", "; ".join(aux) or "none"),
        ("map statistic", dict((o["value"], o["label"]) for o in ve.STAT_OPTIONS)[s.stat]),
        ("k", f"{s.k:g}"),
        ("age groups of the curves", grain[cdf_grain]),
        ("ages of the country tables", format_age_band(*table_ages)), ("age groups of the country tables", grain[table_grain]),
    )


def _inline_geometry(fig: dict, code: str) -> dict:
    """The app's map references its geometry by URL; a report carries it inline (no request anywhere)."""
    return svg_map(fig, geojson_url(code), cl.boundaries(code))


def _map_section(s: Scenario) -> Section:
    code = s.countries[0]
    model = load_country_model(code)
    df = regions.district_statistics(s, code)
    col = regions.STAT_COLUMNS[s.stat]
    fmt = _pct if s.stat == "share_below" else _cas
    rows = tuple({"district_id": Cell(str(r["district_id"]), str(r["district_id"]), f"districts/{i}/district_id"),
                  "district_name": str(r["district_name"]), "region_name": str(r["region_name"]),
                  "filled": Cell("filled" if r["filled"] else "", bool(r["filled"]), f"districts/{i}/filled"),
                  "people": _cas(r["people"], f"districts/{i}/people"), col: fmt(r[col], f"districts/{i}/{col}")}
                 for i, r in enumerate(df.to_dict("records")))
    command = ve.cli_snippets(s)["map"] + " --json"
    table = Table("districts", f"{model.name}: {fx.stat_label(s.stat, s.k)} per {model.district_label} "
                               f"(people aged {format_age_band(*s.ages)}; filled = estimated from the "
                               f"{model.region_label}'s remainder, SPEC §1.4)",
                  (("district_id", "id"), ("district_name", model.district_label), ("region_name", model.region_label),
                   ("filled", "filled"), ("people", "people"), (col, fx.stat_label(s.stat, s.k))),
                  rows, numeric=("people", col), command=command)
    fig = ve.map_figure(s)
    paragraphs = [f"The map shows the first data set, {model.name}: each {model.district_label} coloured by the "
                  f"{fx.stat_label(s.stat, s.k)} (dark: few people alike)."]
    if fig is None:
        paragraphs.append(cl.dataset_info(code).get("boundary_note") or "This data set has no district boundaries.")
    return Section("District map", tuple(paragraphs), _inline_geometry(fig, code) if fig else None,
                   f"district map of {model.name}", (table,), (command,))


def _cdf_section(s: Scenario, grain: str) -> tuple[Section, list[str]]:
    cdfs = regions.comparable_cdfs(s, grain)
    names = {c: cl.dataset_info(c)["name"] for c in s.countries}
    at = regions.comparable_cdfs(s, grain, CDF_AT, strict=True)
    rows = []
    headlines = []
    for ci, code in enumerate(s.countries):
        c = at[code]
        for j, (x, p, q) in enumerate(zip(c.x, c.person, c.cells)):
            base = f"countries/{ci}/at/{j}"
            rows.append({"country": Cell(code, code, f"countries/{ci}/country"),
                         "x": Cell(f"{float(x):,.0f}", float(x), f"{base}/x"),
                         "share_people": _pct(p, f"{base}/share_people"),
                         "share_combinations": _pct(q, f"{base}/share_combinations")})
        readout = {float(x): float(p) for x, p in zip(c.x, c.person)}
        headlines.append(f"{names[code]} ({code}): " + "; ".join(
            fx.percent(readout[float(k)]) + ve.READOUT_TAIL.format(k=k) for k in fx.READOUT_KS)
            + f" (of the {fx.percent(c.covered_share)} of people the model covers).")
    covered = tuple({"country": Cell(code, code, f"countries/{ci}/country"),
                     "people": _cas(at[code].people, f"countries/{ci}/people"),
                     "covered_share": _pct(at[code].covered_share, f"countries/{ci}/covered_share"),
                     "combinations": Cell(f"{int(at[code].n_cells):,}", int(at[code].n_cells),
                                          f"countries/{ci}/combinations")} for ci, code in enumerate(s.countries))
    command = s.to_cli("cdf", at=CDF_AT, grain=grain, below=True) + " --json"
    tables = (
        Table("cdf", "Share of people (and of combinations) whose CAS is below x", (
            ("country", "data set"), ("x", "x"), ("share_people", "share of people with CAS < x"),
            ("share_combinations", "share of combinations with CAS < x")), tuple(rows),
            numeric=("x", "share_people", "share_combinations"), command=command),
        Table("cdf-coverage", "Who the shares are of", (("country", "data set"), ("people", "people"),
              ("covered_share", "share the model covers"), ("combinations", "combinations")), covered,
              numeric=("people", "covered_share", "combinations"), command=command),
    )
    note = ve.cdf_note(s, cdfs, grain)
    return Section("How anonymity sets are distributed",
                   ("For each anonymity set size x (log scale), the share of people whose set is at most x: the further "
                    "left a curve rises, the more people sit in small crowds. Solid lines count people, dotted ones "
                    "combinations.", note),
                   fx.cdf_figure(cdfs, names), "distributions of the anonymity sets", tables,
                   (command,)), headlines


def _country_table_section(s: Scenario, ages, grain: str) -> Section:
    df = regions.comparable_country_table(list(s.countries), ages, grain)
    cmd = ve.cli_snippets(s, ages, grain)["table"]
    cmd = cmd.replace("anonset country-table", "anonset country-table " + " ".join(f"--country {c}" for c in s.countries), 1)
    cmd += " --json"
    rows = []
    for i, r in enumerate(df.to_dict("records")):
        where = r["min_district_name"]
        p = f"rows/{i}/"
        rows.append({
            "country": Cell(str(r["country"]), str(r["country"]), p + "country"),
            "sex": Cell(str(r["sex"]), str(r["sex"]), p + "sex"),
            "districts": Cell(f"{int(r['districts']):,}", int(r["districts"]), p + "districts"),
            "population": _cas(r["population"], p + "population"), "min_cas": _cas(r["min_cas"], p + "min_cas"),
            "min_where": "–" if where is None or str(where) == "<NA>" else f"{where} ({r['min_district_id']})",
            "min_age": "–" if r["min_age"] is None or str(r["min_age"]) == "<NA>" else str(r["min_age"]),
            "cell_mean": _cas(r["cell_mean"], p + "cell_mean"),
            "male_female_ratio": Cell("–" if _finite(r["male_female_ratio"]) is None
                                      else f"{float(r['male_female_ratio']):.3f}", _finite(r["male_female_ratio"]),
                                      p + "male_female_ratio"),
            "share_deviating": _pct(r["share_deviating"], p + "share_deviating"),
            "mean_without_top_quartile": _cas(r["mean_without_top_quartile"], p + "mean_without_top_quartile"),
            "mean_middle_half": _cas(r["mean_middle_half"], p + "mean_middle_half"),
        })
    table = Table("country-table", "Country tables of the chosen data sets, by sex (district × sex × age only: a CAS "
                                   "here is a census count)", (
        ("country", "data set"), ("sex", "sex"), ("districts", "districts"), ("population", "people"),
        ("min_cas", "minimum non-zero CAS"), ("min_where", "where"), ("min_age", "age group"),
        ("cell_mean", "mean CAS (all combinations)"), ("male_female_ratio", "male / female"),
        ("share_deviating", "share deviating > 30 %"), ("mean_without_top_quartile", "mean without the top quartile"),
        ("mean_middle_half", "mean without both outer quartiles")), tuple(rows),
        numeric=("districts", "population", "min_cas", "cell_mean", "male_female_ratio", "share_deviating",
                 "mean_without_top_quartile", "mean_middle_half"), command=cmd)
    return Section("Country tables", (ve.table_note(ages, grain),), tables=(table,), commands=(cmd,),
                   notes=("The explorer's country tables list every data set in the cache; the report keeps the "
                          "chosen ones.",))


def explorer_report(s: Scenario, *, cdf_grain: str = ve.DEFAULT_TABLE_GRAIN, table_ages=ve.DEFAULT_TABLE_AGES,
                    table_grain: str = ve.DEFAULT_TABLE_GRAIN, notices=()) -> Report:
    """The explorer's report for scenario ``s`` (validated), from the functions the page and the CLI use."""
    map_section = _map_section(s)
    cdf_section, readouts = _cdf_section(s, cdf_grain)
    table_section = _country_table_section(s, table_ages, table_grain)
    notes = []
    for code in s.countries:
        name = cl.dataset_info(code)["name"]
        notes += [f"{name}: {n}" for n in cl.dataset_info(code).get("notes", ())]
        notes += [f"{name}: {n}" for n in regions.scenario_notes(s, code)]
    caveat = ve.small_sets_caveat()
    sources = [src for code in s.countries for src in common.dataset_sources(code)]
    chosen_aux = set(s.presets)
    for t in cl.auxiliary_tables():
        if t["id"] in chosen_aux:
            sources.append({"what": f"auxiliary knowledge: {t['name']}", "citation": t.get("note")})
    sections = (map_section, cdf_section, table_section,
                Section("Notes on the data", tuple(notes)) if notes else None)
    return Report(
        kind="explorer", title="AnonSet report: regional explorer",
        lead="How large are anonymity sets across a country's districts, and how do countries compare? Every number "
             "below is from public census statistics, for the scenario under “What was asked”.",
        parameters=parameters(s, cdf_grain, table_ages, table_grain),
        headlines=tuple(readouts) + ((caveat,) if caveat else ()),
        sections=tuple(x for x in sections if x is not None),
        sources=tuple(sources), method=METHOD, papers=(common.PAPERS["cas"],),
        limits=(common.small_sets_limit(), common.body_model_limit(),
                "Height and weight do not depend on the district. " + BODY_SOURCES_TEXT + " Census counts are the "
                "published ones: where a census publishes estimates or fills districts from a region, the notes say "
                "so."),
        commands=tuple(c for sec in (map_section, cdf_section, table_section) for c in sec.commands),
        version=common.version(), manifest_sha256=common.manifest_sha256(), date=common.today(),
        notices=tuple(notices),
    )
