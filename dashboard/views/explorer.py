"""Regional explorer for regulators: live district maps, person-weighted CDFs and country tables (SPEC §1.5).

One :class:`~dashboard.core.regions.Scenario` drives every view and lives in the
URL query (``Scenario.to_query`` plus this page's own ``district`` and
``table_ages``), so each view is a shareable link.  Callbacks are thin: parse the
store → memoised core (:mod:`dashboard.core.regions`) → pure figure builders
(:mod:`dashboard.figures.explorer`).  The map's geometry is sent once per
country; every other change is a small :class:`dash.Patch`.

This module holds everything the page computes or draws without a callback (ids, link ↔
scenario, the memoised renderers, :func:`warm`); :mod:`dashboard.pages.explorer` holds the
layout and the callbacks.
"""
from __future__ import annotations

import json
import logging
import math
import re
import shlex
from collections.abc import Mapping
from typing import NamedTuple

import numpy as np
from dash import Patch, dash_table, dcc, html, no_update

import census_loaders as cl
from dashboard import forms, ids
from dashboard.components import TABLE_STYLE, card, field, model_help, model_switch
from dashboard.core import country as catalog
from dashboard.core import memo, regions
from dashboard.core.body import DEFAULT_BMI_RANGE
from dashboard.core.country import load_country_model
from dashboard.core.errors import InputError
from dashboard.core.groups import DEFAULT_STUDY, format_age_band
from dashboard.core.memo import Memo
from dashboard.core.regions import Scenario, UserPercent, check_ages, parse_range
from dashboard.figures import explorer as fx
from dashboard.figures.maps import geojson_url, view_of
from dashboard.server import limits
from dashboard.views import anonland as anonland_view

PAGE = "explore"
LOG = logging.getLogger("anonset.explorer")
#: Query keys the scenario reads, in the order a link is repaired (countries first: presets depend on them).
SCENARIO_KEYS = ("country", "sex", "ages", "body", "height_width", "weight_width", "aux", "bmi", "k", "stat", "model",
                 "sr")
DEFAULT_TABLE_AGES = DEFAULT_STUDY
#: The country tables compare whole 5-year age groups by default (:mod:`dashboard.core.regions`).
DEFAULT_TABLE_GRAIN = "5"
GRAIN_OPTIONS = [
    {"label": "whole 5-year age groups (comparable across countries)", "value": "5"},
    {"label": "each data set's own age groups (the UK: single years)", "value": "census"},
]
SORRY = "Sorry — this view could not be computed. Please check the settings."


def _id(name: str) -> str:
    return ids.make(PAGE, name)


ID = {name: _id(name) for name in (
    "countries", "sex", "ages", "body", "height-width", "weight-width", "bmi", "aux", "user-name", "user-percent",
    "k", "stat", "message", "results", "notes", "scenario", "map", "map-box", "map-legend", "no-map", "loaded-map",
    "show-table", "district-table", "district-table-box", "selected", "detail", "cdf", "readouts", "cdf-note",
    "loaded-cdf", "cdf-legend", "table-ages", "table-grain", "table-note", "country-table", "table-message",
    "table-query", "cdf-grain", "cdf-query", "cli-map", "cli-cdf", "cli-table", "link-text", "link-copy", "link-notices", "model",
    "self-report", "report", "report-download", "report-message",
    "district-csv", "district-csv-download", "country-csv", "country-csv-download",
)}


def table_csv(rows: list[dict], columns: list[dict]) -> str:
    """A table as CSV with one header row: a two-level column name becomes "group: name" (a spreadsheet reads one
    header row; DataTable's own export wrote the two levels as two rows)."""
    import csv
    import io

    def header(c: dict) -> str:
        name = c.get("name", c["id"])
        if isinstance(name, (list, tuple)):
            return ": ".join(str(n) for n in name) if len(set(name)) > 1 else str(name[0])
        return str(name)

    out = io.StringIO()
    writer = csv.writer(out, lineterminator="\n")
    writer.writerow([header(c) for c in columns])
    for row in rows or []:
        writer.writerow(["" if row.get(c["id"]) is None else row.get(c["id"]) for c in columns])
    return out.getvalue()


def export_name(kind: str, *parts) -> str:
    """A download's file name that says what it holds (not DataTable's "Data.csv" for every table):
    ``anonset-districts-DE-mean.csv``, ``anonset-country-tables-18-75-census.csv``."""
    words = [kind] + [str(p) for p in parts if p not in (None, "", [])]
    safe = "-".join(re.sub(r"[^A-Za-z0-9.+_-]+", "-", w).strip("-") for w in words)
    return f"anonset-{safe}.csv"

STAT_OPTIONS = [
    {"label": "person mean CAS", "value": "person_mean"},
    {"label": "cell mean CAS", "value": "cell_mean"},
    {"label": "minimum non-zero CAS", "value": "min"},
    {"label": "maximum CAS", "value": "max"},
    {"label": "share of people with CAS below k", "value": "share_below"},
]
DISTRICT_NUM = {"specifier": ",.15~g"}  # values are rounded beforehand (whole people / 2 significant digits)


# --------------------------------------------------------------------------- links ↔ scenario (pure)


class LinkState(NamedTuple):
    """What a link describes, repaired: a valid scenario, the selected district, the table's ages, notices."""

    scenario: Scenario
    district: str | None
    table_ages: tuple[float, float]
    notices: tuple[str, ...]
    table_grain: str = "5"
    cdf_grain: str = "5"


def _clip(text: str, n: int = 300) -> str:
    return text if len(text) <= n else text[: n - 1] + "…"


def _query_text(key: str, value) -> str:
    """One query value as text; a key given twice (``country=DE&country=US``) is joined."""
    if isinstance(value, (list, tuple)):
        sep = ";" if key == "aux" else ","
        return sep.join(str(v) for v in value)
    return "" if value is None else str(value)


def scenario_from_link(query: Mapping) -> LinkState:
    """Parse a link's query; every part that does not parse is reported and replaced by its default.

    Unknown countries are dropped one by one (the known ones stay); an unknown
    district or table age range is reported and ignored.  Never raises InputError.
    """
    q = {str(k): _query_text(str(k), v) for k, v in dict(query).items()}
    notices: list[str] = []
    good: dict[str, str] = {}
    if "country" in q:
        known = set(cl.countries())
        codes = [c.strip().upper() for c in q["country"].split(",") if c.strip()]
        bad = [c for c in codes if c not in known]
        if bad:
            notices.append(f"Unknown country or data set {', '.join(repr(_clip(c, 20)) for c in bad)} in the link"
                           + catalog.closest_note(bad) + ".")
        if not codes:
            notices.append("The link chooses no country.")
        ok = [c for c in codes if c in known]
        if ok:
            good["country"] = ",".join(dict.fromkeys(ok))
        elif codes or "country" in q:
            notices[-1] += f" Showing {cl.dataset_info(Scenario().countries[0])['name']} instead."
    for key in SCENARIO_KEYS[1:]:
        if key not in q:
            continue
        try:
            Scenario.from_query({**good, key: q[key]})
        except InputError as exc:
            notices.append(_clip(f"In the link: {exc}. The default is used instead."))
        else:
            good[key] = q[key]
    scenario = Scenario.from_query(good)
    try:
        limits.check_scenario(scenario, what="The link's scenario")
    except limits.CostError as exc:
        notices.append(_clip(f"{exc}. Showing the first data set at the default bands instead.", 600))
        default = Scenario()
        scenario = scenario.replace(countries=scenario.countries[:1], height_width=default.height_width,
                                    weight_width=default.weight_width)
    district = None
    if q.get("district"):
        model = load_country_model(scenario.countries[0])
        if q["district"] in set(map(str, model.district_ids)):
            district = q["district"]
        else:
            notices.append(f"Unknown district {_clip(q['district'], 20)!r} in the link for {model.name}.")
    table_ages = DEFAULT_TABLE_AGES
    if q.get("table_ages"):
        try:
            table_ages = parse_table_ages(q["table_ages"])
        except InputError as exc:
            notices.append(_clip(f"In the link: {exc}. The country tables use 18–75 instead."))
    table_grain = DEFAULT_TABLE_GRAIN
    if q.get("table_grain"):
        if q["table_grain"] in regions.GRAINS:
            table_grain = q["table_grain"]
        else:
            notices.append(f"Unknown age grain {_clip(q['table_grain'], 20)!r} in the link: the country tables "
                           "compare whole 5-year age groups.")
    cdf_grain = DEFAULT_TABLE_GRAIN
    if q.get("cdf_grain"):
        if q["cdf_grain"] in regions.GRAINS:
            cdf_grain = q["cdf_grain"]
        else:
            notices.append(f"Unknown age grain {_clip(q['cdf_grain'], 20)!r} in the link: the distributions "
                           "compare whole 5-year age groups.")
    return LinkState(scenario, district, table_ages, tuple(notices), table_grain, cdf_grain)


def parse_table_ages(text) -> tuple[float, float]:
    """The country tables' age range from the text box (``18-75``, ``15-85``, ``18+``)."""
    if text is None or not str(text).strip():
        raise InputError("the country tables' age range is empty: give e.g. 18-75")
    return check_ages(parse_range(str(text), "age range", allow_open=True))


def range_text(r: tuple[float, float]) -> str:
    lo, hi = r
    f = lambda x: str(int(x)) if float(x).is_integer() else f"{x:g}"
    return f"{f(lo)}+" if math.isinf(hi) else f"{f(lo)}-{f(hi)}"


def form_values(s: Scenario) -> dict:
    """The form's values that show scenario ``s``."""
    user = s.user_aux[0] if s.user_aux else None
    return {
        "countries": list(s.countries), "sex": list(s.sexes), "ages": range_text(s.ages),
        "body": ["body"] if s.include_body else [], "height-width": s.height_width, "weight-width": s.weight_width,
        "bmi": range_text(s.bmi_range), "aux": list(s.presets),
        "user-name": user.name if user else "", "user-percent": user.spec.split("=", 1)[1] if user else "",
        "k": int(s.k) if float(s.k).is_integer() else s.k, "stat": s.stat, "model": s.model,
        "self-report": ["on"] if s.self_report else [],
    }


def scenario_from_form(countries, sexes, ages, body, height_width, weight_width, bmi, aux, user_name, user_percent,
                       k, stat, model="v2", self_report=None) -> Scenario:
    """Validate the form into a Scenario (exactly as a link would be); raises InputError with a message."""
    countries = [countries] if isinstance(countries, str) else list(countries or [])
    if not countries:
        raise InputError("Countries: choose at least one country")
    sexes = [sexes] if isinstance(sexes, str) else list(sexes or [])
    if not sexes:
        raise InputError("Sex: choose female, male or both")
    q = {"country": ",".join(countries), "sex": ",".join(sexes), "ages": str(ages or "").strip(),
         "body": "1" if body else "0", "bmi": str(bmi or "").strip() or range_text(DEFAULT_BMI_RANGE)}
    q["height_width"] = str(forms.width(height_width, "Height band"))
    q["weight_width"] = str(forms.width(weight_width, "Weight band"))
    if not q["ages"]:
        raise InputError("Ages: give the study population, e.g. 18-75")
    items = [str(a) for a in (aux or [])]
    pct = "" if user_percent is None else str(user_percent).strip()
    if pct:
        name = str(user_name or "").strip()[:60] or "own fraction"
        items.append(UserPercent.parse(f"{name}={pct}").spec)
    if items:
        q["aux"] = ";".join(items)
    kval = forms.number(k, "k", required=True)
    q["k"] = repr(kval)
    q["stat"] = stat or "person_mean"
    q["model"] = str(model or "v2")
    q["sr"] = "1" if self_report and "on" in list(self_report) else "0"
    s = Scenario.from_query(q)
    limits.check_scenario(s)
    return s


def scenario_from_store(query) -> Scenario:
    """The scenario a store holds (it was validated when written; checked again, it costs next to nothing)."""
    if not isinstance(query, Mapping) or not query.get("country"):
        raise InputError("no scenario yet")
    s = Scenario.from_query(query)
    limits.check_scenario(s)  # a store is written by the form, which checks the same; a forged one is refused
    return s


def comparable_curves(s: Scenario, grain: str):
    """The CDFs of every chosen data set on one age grain (:func:`dashboard.core.regions.comparable_cdfs`); the
    largest allowed comparisons (seconds of CPU) wait for one of the server's heavy slots, or are refused
    with the command that computes them (:func:`dashboard.server.limits.scenario_slot`)."""
    with limits.scenario_slot(s, "This comparison"):
        return regions.comparable_cdfs(s, grain)


def profile_sig(query: Mapping) -> str:
    """Everything but countries, k and stat: what the per-district numbers depend on besides the country."""
    return json.dumps({k: v for k, v in sorted(query.items()) if k not in ("country", "k", "stat")})


def table_query(ages, grain: str) -> dict | None:
    """The country tables' part of the link (only what differs from the defaults)."""
    q = {}
    if tuple(ages) != DEFAULT_TABLE_AGES:
        q["table_ages"] = range_text(ages)
    if grain != DEFAULT_TABLE_GRAIN:
        q["table_grain"] = grain
    return q or None


def table_note(ages, grain: str) -> str:
    """What the country tables compare (said under the table, because the UK's ages are single years)."""
    if grain == "census":
        return ("Each data set on its own age groups, trimmed to the ages by overlap: not comparable across "
                "countries. The UK publishes single years of age, so its cells hold about a fifth of the people of "
                "a 5-year cell; a trimmed group such as 18–20 (of 15–20) holds part of its people, which is where "
                "most minima and the fractional people come from.")
    lo, hi = regions.comparable_ages(ages)
    return (f"Compared on whole 5-year age groups inside the chosen ages ({format_age_band(lo, hi)}): the UK's "
            "single years are summed into 5-year groups, and no census group is cut in part, so the data sets have "
            "cells of the same kind and no minimum comes from a fraction of a group (a data set that publishes a "
            "wider group, such as Germany's 65–75, keeps it; one that publishes estimated counts, such as Morocco, "
            "can still show fractions of a person). Choose “each data set's own age groups” for the census grain.")


def cli_snippets(s: Scenario, table_ages=DEFAULT_TABLE_AGES, table_grain: str = DEFAULT_TABLE_GRAIN,
                 cdf_grain: str = DEFAULT_TABLE_GRAIN) -> dict[str, str]:
    """The ``anonset`` commands that reproduce the map, the readouts beside the CDFs (CAS < k on their age
    grain) and the country tables."""
    return {
        "map": s.replace(countries=s.countries[:1]).to_cli("districts"),
        "cdf": s.to_cli("cdf", at=fx.READOUT_KS, grain=cdf_grain, below=True),
        "table": shlex.join(["anonset", "country-table", "--ages", range_text(table_ages), "--grain", table_grain]),
    }


def preset_options(countries) -> list[dict]:
    """Presets that describe every chosen country (a German survey cannot describe US counties)."""
    codes = [c for c in (countries or []) if c]
    out = []
    for t in cl.auxiliary_tables():
        owner = t.get("country")
        if owner is None or (codes and all(owner in (c, c.split("-")[0]) for c in codes)):
            out.append({"label": t["name"], "value": t["id"], "title": t.get("note", "")})
    return out


# --------------------------------------------------------------------------- rendering (pure)


def _ages_label(s: Scenario) -> str:
    return format_age_band(*s.ages)


def _view(code: str) -> dict:
    """Where the district map opens: the data set's main territory (framed when the cache was built)."""
    return view_of(cl.dataset_info(code)["boundaries"]["frame"], fx.MAP_WIDTH, fx.MAP_HEIGHT - 46)


# Memoised views, shared by requests and read-only (Dash only serialises them).
_COLOURS = Memo(256, name="views.explorer.colours")
_HOVER = Memo(128, name="views.explorer.hover")
_DETAILS = Memo(256, name="views.explorer.details")
_ROWS = Memo(64, name="views.explorer.rows")
_TABLES = Memo(32, name="views.explorer.tables")


def map_colours(s: Scenario) -> fx.MapColours:
    """The map's colours of the scenario's first country (memoised: read-only, shared by requests)."""
    code = s.countries[0]
    key = (code, s.profile_key, s.stat, s.k if s.stat == "share_below" else None)

    def make():
        model = load_country_model(code)
        return fx.map_colours(regions.district_statistics(s, code), s.stat, s.k, country_name=model.name,
                              district_label=model.district_label)

    return _COLOURS.get(key, make)


def map_hover(s: Scenario) -> np.ndarray:
    """Each district's population line for the map's hover (memoised per country and profile)."""
    code = s.countries[0]
    return _HOVER.get((code, s.profile_key),
                      lambda: fx.hover_people(regions.district_statistics(s, code), _ages_label(s)))


def map_figure(s: Scenario, selected: str | None = None):
    """The full district map of the scenario's first country, or None when it has no boundaries."""
    code = s.countries[0]
    geo = cl.boundaries(code)
    if geo is None:
        return None
    model = load_country_model(code)
    df = regions.district_statistics(s, code)
    view = _view(code)
    return fx.district_map(geojson_url(code), df, s.stat, s.k, ages_label=_ages_label(s), view=view, selected=selected,
                           country_name=model.name, district_label=model.district_label,
                           colours=map_colours(s), hover=map_hover(s))


def map_state(s: Scenario, selected: str | None, has_map: bool) -> dict:
    """What the map in the browser shows, so the next update can send only what changed."""
    q = s.to_query()
    return {"country": s.countries[0], "profile": profile_sig(q), "stat": s.stat,
            "k": s.k if s.stat == "share_below" else None, "selected": selected, "map": has_map}


def map_patch(s: Scenario, selected: str | None, loaded: Mapping):
    """A Patch with only what changed since ``loaded`` (colours, hover, selection), or no_update."""
    now = map_state(s, selected, True)
    patch = Patch()
    changed = False
    if (now["profile"], now["stat"], now["k"]) != (loaded.get("profile"), loaded.get("stat"), loaded.get("k")):
        colours = map_colours(s)
        main = patch["data"][fx.MAIN]
        main["z"] = colours.z
        main["text"] = colours.text
        main["hovertemplate"] = colours.hovertemplate
        main["zmin"] = colours.zmin
        main["zmax"] = colours.zmax
        main["colorbar"] = colours.colorbar
        patch["layout"]["title"]["text"] = colours.title
        if now["profile"] != loaded.get("profile"):
            main["hovertext"] = map_hover(s)
        changed = True
    if selected != loaded.get("selected"):
        props = fx.selected_props(selected)
        for key, value in props.items():
            patch["data"][fx.SELECTED][key] = value
        changed = True
    return (patch if changed else no_update), now


def map_legend(s: Scenario) -> list:
    """The legend under the map: what the outlines mean, which districts have no value or no outline."""
    code = s.countries[0]
    model = load_country_model(code)
    df = regions.district_statistics(s, code)
    n_filled = int(df["filled"].sum())
    colours = map_colours(s)
    items = [
        html.Span([html.Span(className="swatch", style={"borderColor": fx.SELECTED_COLOUR}),
                   f"selected {model.district_label} (click one for its detail)"]),
        html.Span([html.Span(className="swatch", style={"borderColor": fx.FILLED_COLOUR}),
                   f"filled (estimated from the {model.region_label}'s remainder): {n_filled} districts" if n_filled
                   else f"filled (estimated) districts: none in {model.name}"]),
    ]
    if colours.n_missing:
        items.append(html.Span([html.Span(className="swatch empty"),
                                f"white: no value ({colours.n_missing} districts)"]))
    boundaries = cl.dataset_info(code)["boundaries"]
    unmapped = boundaries.get("missing_geometry", []) if boundaries else []
    if unmapped:
        label = model.district_label if len(unmapped) == 1 else f"{model.district_label}s"
        more = f" and {len(unmapped) - 5} more" if len(unmapped) > 5 else ""
        items.append(html.Span(f"not on the map (no outline in the boundary file), but in every count and in the "
                               f"district table: {len(unmapped)} {label} — "
                               f"{_district_names(code, tuple(unmapped[:5]))}{more}", className="map-unmapped"))
    outside = boundaries["frame"]["outside"] if boundaries else []
    if outside:
        items.append(html.Span(f"{len(outside)} districts lie outside the frame (e.g. "
                               f"{_district_names(code, tuple(outside[:3]))}): zoom out to see them"))
    col = fx.STAT_INFO[s.stat].column
    values = df[col].to_numpy(dtype=float)
    ok = np.isfinite(values) & ((values > 0) if fx.STAT_INFO[s.stat].log else True)
    if ok.any():
        fmt = fx.percent if s.stat == "share_below" else fx.format_cas
        lo, hi = int(np.flatnonzero(ok)[np.argmin(values[ok])]), int(np.flatnonzero(ok)[np.argmax(values[ok])])
        names = df["district_name"].astype(str).to_numpy()
        items.append(html.Span(f"{fx.stat_label(s.stat, s.k)}: from {fmt(values[lo])} ({names[lo]}) "
                               f"to {fmt(values[hi])} ({names[hi]})", className="map-range"))
    return items


@memo.lru(128)
def _district_names(code: str, ids_: tuple[str, ...]) -> str:
    """"Alaska, Hawaii": the names of a few districts (memoised: the same few per country)."""
    model = load_country_model(code)
    names = dict(zip(map(str, model.district_ids), map(str, model.district_names)))
    return ", ".join(names.get(i, i) for i in ids_)


def district_rows(s: Scenario, code: str) -> list[dict]:
    """One row per district for the sortable table (values rounded as displayed; id = district_id).

    Memoised per data set, profile and k: the rows are shared by requests, read-only.
    """
    return _ROWS.get((code, s.profile_key, s.k), lambda: _district_rows(s, code))


def _district_rows(s: Scenario, code: str) -> list[dict]:
    df = regions.district_statistics(s, code)

    def cas(v):
        v = float(v)
        if not math.isfinite(v):
            return None
        return float(f"{v:.2g}") if 0 < v < 1 else math.floor(v + 1e-9)

    rows = []
    for r in df.to_dict("records"):
        share = float(r["share_below"])
        rows.append({
            "id": str(r["district_id"]), "district": str(r["district_name"]), "district_id": str(r["district_id"]),
            "region": str(r["region_name"]), "filled": "filled" if r["filled"] else "",
            "population": cas(r["population"]), "person_mean": cas(r["person_mean"]),
            "cell_mean": cas(r["cell_mean"]), "min_cas": cas(r["min_cas"]), "max_cas": cas(r["max_cas"]),
            "share_below": round(100 * share, 3) if math.isfinite(share) else None,
        })
    return rows


def district_columns(s: Scenario, code: str) -> list[dict]:
    model = load_country_model(code)
    num = lambda name, cid: {"name": name, "id": cid, "type": "numeric", "format": DISTRICT_NUM}
    return [
        {"name": model.district_label, "id": "district"}, {"name": "id", "id": "district_id"},
        {"name": model.region_label, "id": "region"},
        num(f"people aged {_ages_label(s)}", "population"), num("person mean CAS", "person_mean"),
        num("cell mean CAS", "cell_mean"), num("minimum non-zero CAS", "min_cas"), num("maximum CAS", "max_cas"),
        {"name": f"% of people with CAS below {s.k:g}", "id": "share_below", "type": "numeric",
         "format": {"specifier": ".2f"}},
        {"name": "filled", "id": "filled"},
    ]


def _where(stats: dict, prefix: str) -> str:
    parts = [stats.get(f"{prefix}_{a}") for a in ("sex", "age", "height", "weight")]
    return ", ".join(str(p) for p in parts if p not in (None, "") and str(p) != "<NA>")


def _cells_table(df, caption: str) -> html.Table:
    head = html.Thead(html.Tr([html.Th(h) for h in ("sex", "age", "height", "weight")] + [html.Th("CAS", className="num")]))
    body = html.Tbody([
        html.Tr([html.Td(str(r[c]) if str(r[c]) not in ("None", "<NA>") else "–") for c in ("sex", "age", "height", "weight")]
                + [html.Td(fx.format_cas(r["cas"]), className="num")])
        for r in df.to_dict("records")
    ])
    return html.Table([html.Caption(caption), head, body], className="table cells-table")


def detail_panel(s: Scenario, district: str) -> html.Div:
    """A clicked district: key numbers, its sex × age distribution, smallest and largest cells, link to the personal page.

    Memoised (a hundred components cost more than the numbers): the panel is shared by requests, read-only.
    """
    key = (s.countries[0], s.profile_key, s.k, str(district))
    return _DETAILS.get(key, lambda: _detail_panel(s, str(district)))


def _detail_panel(s: Scenario, district: str) -> html.Div:
    code = s.countries[0]
    model = load_country_model(code)
    d = regions.district_detail(s, code, district)
    st = d.stats
    title = f"{d.district_name} ({d.district_id})"
    link = dcc.Link(f"Open “How many people are like you?” for {d.district_name} →",
                    href=f"/?country={code}#district={d.district_id}", className="button", id=_id("personal-link"))
    cards = [
        card(f"People aged {_ages_label(s)}", fx.format_cas(st["population"]),
              "" if st["people"] == st["population"] else f"{fx.format_cas(st['people'])} with the auxiliary knowledge"),
        card("Person mean CAS", fx.format_cas(st["person_mean"]), "expected CAS of a random resident: Σ CAS² / Σ CAS"),
        card("Cell mean CAS", fx.format_cas(st["cell_mean"]), f"mean over {st['n_cells']:,} combinations"),
        card("Minimum non-zero CAS", fx.format_cas(st["min_cas"]), _where(st, "min")),
        card("Maximum CAS", fx.format_cas(st["max_cas"]), _where(st, "max")),
        card(f"Share with CAS below {s.k:g}", fx.percent(st["share_below"]), "of the district's people"),
    ]
    return html.Div(
        [
            html.H3(title, className="detail-title"),
            html.P(f"{model.region_label[:1].upper()}{model.region_label[1:]}: {d.region_name} · {model.name}",
                   className="muted"),
            *([html.Div(f"This {model.district_label}'s counts are filled: estimated from its {model.region_label}'s "
                        "remainder.", className="warning")] if d.filled else []),
            html.Div(cards, className="cards"),
            html.Div(
                [
                    dcc.Graph(id=_id("distribution"), config=fx.GRAPH_CONFIG,
                              figure=fx.distribution_figure(d.distribution, f"{d.district_name}: people by sex and age group")),
                    html.Div([_cells_table(d.smallest, "Smallest non-zero cells (where the fewest people are alike)"),
                              _cells_table(d.largest, "Largest cells (the biggest crowds)")], className="cells"),
                ],
                className="detail-grid",
            ),
            html.P(link, className="buttons"),
        ],
        className="panel detail", **{"data-district": d.district_id},
    )


def cdf_query(grain: str) -> dict | None:
    """The distributions' part of the link (only when not the default grain)."""
    return None if grain == DEFAULT_TABLE_GRAIN else {"cdf_grain": grain}


#: The readouts' words after the share (the page bolds the share; the report writes the same sentence).
READOUT_TAIL = " of people have an anonymity set below {k}"


def readouts(s: Scenario, grain: str = DEFAULT_TABLE_GRAIN) -> list:
    """'x % of people have an anonymity set below k' for k = 5, 20, 100, per country, on the CDFs' age grain."""
    shares = regions.comparable_share_below(s, fx.READOUT_KS, grain)
    out = []
    for code in s.countries:
        name = cl.dataset_info(code)["name"]
        items = [html.Li([html.B(fx.percent(shares[code][float(k)])), READOUT_TAIL.format(k=k)],
                         **{"data-k": str(k)})
                 for k in fx.READOUT_KS]
        out.append(html.Div([html.Div(f"{name} ({code})", className="card-title"), html.Ul(items)],
                            className="card readout", **{"data-country": code}))
    caveat = small_sets_caveat()
    if caveat:
        out.append(html.P(caveat, className="field-help readout-caveat", **{"data-caveat": "small-sets"}))
    return out


def small_sets_caveat() -> str:
    """Humility next to "below 5": how often the AnonLand check found small estimates more than 25 % off."""
    share, n, threshold = anonland_view.small_crowd_error(5)
    if share is None or not n:
        return ""
    return (f"Small numbers are rough estimates: in the AnonLand check, {fx.percent(share)} of the {n:,} test "
            f"citizens whose real crowd was under 5 got an estimate more than {threshold * 100:g} % off. Read "
            "“below 5” as “very few people alike”, not as an exact count.")


_CSS_DASH = {"solid": "solid", "longdash": "dashed", "dashdot": "dashed", "dash": "dashed"}


def _swatch(colour: str, style: str, width: int = 3) -> html.Span:
    return html.Span(className="line-swatch", style={"borderTop": f"{width}px {style} {colour}"}, **{"aria-hidden": "true"})


def cdf_legend(cdfs: dict, names: dict[str, str]) -> html.Div:
    """The CDF chart's key as a list under it (wraps on a phone, never squeezes the plot): one entry per country
    with its colour and where its people curve ends, then the two line styles."""
    items = []
    for e in fx.cdf_key(cdfs, names):
        end = f" — shares of the {fx.percent(e.end)} covered" if math.isfinite(e.end) else ""
        items.append(html.Li([_swatch(e.colour, _CSS_DASH.get(e.dash, "solid")), f"{e.name}{end}"],
                             **{"data-country": e.code}))
    key = [html.Li([_swatch("#4a5562", "solid"), "solid: share of people"], className="key"),
           html.Li([_swatch("#4a5562", "dotted", 3), "dotted: share of combinations"], className="key")]
    return html.Div(html.Ul(items + key, className="line-legend"), **{"aria-label": "Key to the curves"})


def single_year_note(codes) -> str:
    """A sentence when some chosen data sets count single years of age (the UK) and others 5-year groups."""
    single = [load_country_model(c).name for c in codes
              if all(g.census_hi - g.census_lo <= 1 for g in load_country_model(c).age_groups)]
    if not single or len(single) == len(codes):
        return ""
    return (f" Not comparable on age: {', '.join(single)} count{'s' if len(single) == 1 else ''} single years of age, "
            "the others 5-year groups, so their anonymity sets are smaller partly because their age cells are "
            "narrower (the country tables below compare whole 5-year groups).")


def cdf_note(s: Scenario, cdfs: dict, grain: str = "census") -> str:
    if grain == "census":
        return _cdf_note(s, cdfs) + single_year_note(s.countries)
    return _cdf_note(s, cdfs) + " " + grain_note(s.ages)


def grain_note(ages) -> str:
    """Which age grain the distributions compare (the default: whole 5-year groups)."""
    lo, hi = regions.comparable_ages(ages)
    return (f"Compared on whole 5-year age groups ({format_age_band(lo, hi)}, inside the chosen ages): the UK's "
            "single years are summed into 5-year groups so every country's cells are of the same kind. The command "
            "below prints each data set's own age groups.")



def _cdf_note(s: Scenario, cdfs: dict) -> str:
    if not s.include_body:
        return ("Without height × weight every combination is plausible, so the person-weighted curves reach 100 %. "
                "Solid: share of people; dotted: share of district × sex × age combinations.")
    ends = "; ".join(f"{cl.dataset_info(c)['name']} {fx.percent(v.covered_share)}" for c, v in cdfs.items())
    lo, hi = s.bmi_range
    if s.model == "paper":
        return (f"Solid: share of people with CAS ≤ x; dotted: share of combinations. Paper model: shares are of the "
                f"people in plausible cells ({ends} of everyone): cells with a BMI outside {lo:g}–{hi:g} at their "
                f"centre are left out, as in the published figures.")
    return (f"Solid: share of people with CAS ≤ x; dotted: share of combinations. Body model v2: shares are of the "
            f"people the model covers ({ends} of everyone — the cells holding 99.9 % of each sex × age group); "
            f"no cell is left out for its BMI.")


def country_table_rows(ages, grain: str = DEFAULT_TABLE_GRAIN) -> list[dict]:
    """Country tables of every data set (district × sex × age only) as displayed: people rounded down.

    ``grain`` "5" compares whole 5-year groups (the default), "census" each data set's own groups.
    Memoised per age range and grain (every visit shows the default one, whose table the build stored in the
    cache: :func:`dashboard.core.regions.write_country_table`): shared by requests, read-only.
    """
    ages = tuple(float(a) for a in ages)
    return _TABLES.get((ages, grain), lambda: _country_table_rows(ages, grain))


def _country_table_rows(ages, grain: str = DEFAULT_TABLE_GRAIN) -> list[dict]:
    df = regions.comparable_country_table(None, ages, grain)

    def cas(v):
        v = float(v)
        if not math.isfinite(v):
            return None
        return float(f"{v:.2g}") if 0 < v < 1 else math.floor(v + 1e-9)

    def num(v, digits):
        v = float(v)
        return round(v, digits) if math.isfinite(v) else None

    rows = []
    for r in df.to_dict("records"):
        where = r["min_district_name"]
        where = "–" if where is None or str(where) == "<NA>" else f"{where} ({r['min_district_id']})"
        rows.append({
            "id": f"{r['country']}-{r['sex']}", "country": str(r["country"]), "name": str(r["name"]),
            "sex": str(r["sex"]), "districts": int(r["districts"]), "population": cas(r["population"]),
            "min_cas": cas(r["min_cas"]), "min_where": where,
            "min_age": "–" if r["min_age"] is None or str(r["min_age"]) == "<NA>" else str(r["min_age"]),
            "cell_mean": cas(r["cell_mean"]), "male_female_ratio": num(r["male_female_ratio"], 3),
            "share_deviating": num(100 * float(r["share_deviating"]), 1),
            "mean_without_top_quartile": cas(r["mean_without_top_quartile"]),
            "mean_without_top_quartile_pct": num(r["mean_without_top_quartile_pct"], 1),
            "mean_middle_half": cas(r["mean_middle_half"]),
            "mean_middle_half_pct": num(r["mean_middle_half_pct"], 1),
        })
    return rows


COUNTRY_COLUMNS = [
    {"name": ["data set", "code"], "id": "country"}, {"name": ["data set", "country"], "id": "name"},
    {"name": ["data set", "sex"], "id": "sex"},
    {"name": ["data set", "districts"], "id": "districts", "type": "numeric", "format": {"specifier": ",d"}},
    {"name": ["data set", "people"], "id": "population", "type": "numeric", "format": DISTRICT_NUM},
    {"name": ["minimum non-zero CAS", "CAS"], "id": "min_cas", "type": "numeric", "format": DISTRICT_NUM},
    {"name": ["minimum non-zero CAS", "district"], "id": "min_where"},
    {"name": ["minimum non-zero CAS", "age group"], "id": "min_age"},
    {"name": ["mean CAS (all combinations)", "mean"], "id": "cell_mean", "type": "numeric", "format": DISTRICT_NUM},
    {"name": ["mean CAS (all combinations)", "male / female"], "id": "male_female_ratio", "type": "numeric",
     "format": {"specifier": ".3f"}},
    {"name": ["mean CAS (all combinations)", "% deviating > 30 %"], "id": "share_deviating", "type": "numeric",
     "format": {"specifier": ".1f"}},
    {"name": ["without the top quartile", "mean"], "id": "mean_without_top_quartile", "type": "numeric",
     "format": DISTRICT_NUM},
    {"name": ["without the top quartile", "% of mean"], "id": "mean_without_top_quartile_pct", "type": "numeric",
     "format": {"specifier": ".1f"}},
    {"name": ["without both outer quartiles", "mean"], "id": "mean_middle_half", "type": "numeric",
     "format": DISTRICT_NUM},
    {"name": ["without both outer quartiles", "% of mean"], "id": "mean_middle_half_pct", "type": "numeric",
     "format": {"specifier": ".1f"}},
]
#: The country table's on-screen columns: all of :data:`COUNTRY_COLUMNS` scrolled sideways on a projector (1723 px in
#: a 1214 px page at 1280 × 720) and at 1440 × 900.  The trimmed means in people are left to the CSV and
#: ``anonset country-table`` (their "% of mean" says the same); headers are short words that wrap (soft hyphens
#: in the long ones: a header word was the widest thing in its column).
COUNTRY_SCREEN_COLUMNS = [
    {"name": ["data set", "code"], "id": "country"}, {"name": ["data set", "country"], "id": "name"},
    {"name": ["data set", "sex"], "id": "sex"},
    {"name": ["data set", "dis\u00adtricts"], "id": "districts", "type": "numeric", "format": {"specifier": ",d"}},
    {"name": ["data set", "people"], "id": "population", "type": "numeric", "format": DISTRICT_NUM},
    {"name": ["smallest non-zero CAS", "CAS"], "id": "min_cas", "type": "numeric", "format": DISTRICT_NUM},
    {"name": ["smallest non-zero CAS", "district"], "id": "min_where"},
    {"name": ["smallest non-zero CAS", "ages"], "id": "min_age"},
    {"name": ["mean CAS (all combinations)", "mean"], "id": "cell_mean", "type": "numeric", "format": DISTRICT_NUM},
    {"name": ["mean CAS (all combinations)", "male / female"], "id": "male_female_ratio", "type": "numeric",
     "format": {"specifier": ".3f"}},
    {"name": ["mean CAS (all combinations)", "% off\u00a0by >\u00a030\u00a0%"], "id": "share_deviating",
     "type": "numeric", "format": {"specifier": ".1f"}},
    {"name": ["mean without … (% of the mean)", "top quar\u00adtile"], "id": "mean_without_top_quartile_pct",
     "type": "numeric", "format": {"specifier": ".1f"}},
    {"name": ["mean without … (% of the mean)", "both outer quar\u00adtiles"], "id": "mean_middle_half_pct",
     "type": "numeric", "format": {"specifier": ".1f"}},
]



def country_data_table() -> dash_table.DataTable:
    """The country tables on screen: :data:`COUNTRY_SCREEN_COLUMNS`, words wrapped in narrow columns, so the table
    fits a 1280 × 720 projector in presenter mode and a 1440 × 900 screen without scrolling sideways."""
    return dash_table.DataTable(
        id=ID["country-table"], data=[], columns=COUNTRY_SCREEN_COLUMNS, sort_action="native", page_size=30,
        merge_duplicate_headers=True,
        style_cell_conditional=[{"if": {"column_id": c}, "textAlign": "left"}
                                for c in ("country", "name", "sex", "min_where", "min_age")]
        + [{"if": {"column_id": "name"}, "minWidth": "8em", "maxWidth": "13em"},
           {"if": {"column_id": "min_where"}, "minWidth": "6em", "maxWidth": "10em"},
           {"if": {"column_id": "min_age"}, "whiteSpace": "nowrap"}],
        css=[{"selector": ".dash-cell, .dash-header", "rule": "padding: 4px 6px !important"}],
        **TABLE_STYLE,
    )


def scenario_notes(s: Scenario) -> list:
    """The data set's own notes (its date, unknown ages, districts without a map …), then the scenario's."""
    items = []
    for code in s.countries:
        info = cl.dataset_info(code)
        name = info["name"]
        items += [html.Li(f"{name}: {n}") for n in info.get("notes", ())]
        items += [html.Li(f"{name}: {n}") for n in regions.scenario_notes(s, code)]
    return [html.Details([html.Summary(f"Notes on the data ({len(items)})"), html.Ul(items)], className="notes")] if items else []


# --------------------------------------------------------------------------- layout


def _width(id_: str, unit: str, value: int):
    return dcc.Dropdown(id=id_, options=[{"label": f"{w} {unit}", "value": w} for w in forms.WIDTHS], value=value,
                        clearable=False, searchable=False)


def form_section(s: Scenario, v: dict) -> html.Section:
    return html.Section(
        [
            html.H2("Scenario", className="panel-title"),
            field("Countries", dcc.Dropdown(id=ID["countries"], options=catalog.country_options(cl.manifest()),
                                             value=v["countries"], multi=True, clearable=False),
                   "The map shows the first; the curves compare all.", ID["countries"]),
            field("Sex", dcc.Checklist(id=ID["sex"], options=[{"label": "female", "value": "female"},
                                                               {"label": "male", "value": "male"}],
                                        value=v["sex"], inline=True, className="radio"), control_id=ID["sex"]),
            field("Ages", dcc.Input(id=ID["ages"], type="text", value=v["ages"], debounce=True, maxLength=20,
                                     placeholder="18-75"),
                   "Study population [from, to), e.g. 18-75 or 65+; census groups are trimmed by overlap.", ID["ages"]),
            field("Profile", dcc.Checklist(id=ID["body"], options=[{"label": "height × weight bands", "value": "body"}],
                                            value=v["body"], className="checklist"),
                   "Off: district × sex × age only.", ID["body"]),
            html.Div([field("Height band", _width(ID["height-width"], "cm", v["height-width"]), control_id=ID["height-width"]),
                      field("Weight band", _width(ID["weight-width"], "kg", v["weight-width"]), control_id=ID["weight-width"])],
                     className="row2"),
            field("Body model", html.Div([
                model_switch(ID["model"], v["model"]),
                dcc.Checklist(id=ID["self-report"], value=v["self-report"], className="checklist", options=[{
                    "label": " v2: correct self-reported heights and weights to measured ones (NHANES offsets)",
                    "value": "on"}]),
            ]), model_help(), ID["model"]),
            field("Plausible BMI", dcc.Input(id=ID["bmi"], type="text", value=v["bmi"], debounce=True, maxLength=20),
                   "Paper model only: cells whose centre BMI lies outside are left out of every number.", ID["bmi"]),
            html.Fieldset(
                [
                    html.Legend("Auxiliary knowledge", className="field-label"),
                    dcc.Checklist(id=ID["aux"], options=preset_options(s.countries), value=v["aux"], className="checklist"),
                    html.Div([field("Your own fact", dcc.Input(id=ID["user-name"], type="text", value=v["user-name"],
                                                               debounce=True, maxLength=60, placeholder="e.g. uses app X"),
                                     control_id=ID["user-name"]),
                              field("… true for this % of people", dcc.Input(id=ID["user-percent"], type="text",
                                                                         value=v["user-percent"], debounce=True,
                                                                         maxLength=80, placeholder="e.g. 12"),
                                     control_id=ID["user-percent"])]),
                    html.Div("A percentage, or one per age band: 18-30:10,30+:5. Fractions multiply (independence assumed).",
                             className="field-help"),
                ],
                className="aux-fieldset",
            ),
            field("Map statistic", dcc.RadioItems(id=ID["stat"], options=STAT_OPTIONS, value=v["stat"],
                                                   className="checklist"), control_id=ID["stat"]),
            field("k", dcc.Input(id=ID["k"], type="number", value=v["k"], debounce=True),  # no min: Dash empties a value below it
                   "Threshold of the map's “share of people with CAS below k”.", ID["k"]),
            html.Div([html.Label("Link to this view", htmlFor=ID["link-text"], className="field-label"),
                      html.Div([dcc.Input(id=ID["link-text"], type="text", readOnly=True, className="link-text"),
                                dcc.Clipboard(target_id=ID["link-text"], id=ID["link-copy"], title="copy the link")],
                               className="link-row")], className="field"),
        ],
        className="panel explorer-form", **{"aria-label": "Scenario"},
    )


def warm() -> None:
    """Before gunicorn forks: what every visit opens with (the default scenario's views and country tables)."""
    s = Scenario()
    map_figure(s)
    map_legend(s)
    regions.comparable_cdfs(s)
    readouts(s)
    country_table_rows(DEFAULT_TABLE_AGES)


# --------------------------------------------------------------------------- callbacks


def selected_district(selected, code: str) -> str | None:
    if isinstance(selected, Mapping) and selected.get("country") == code and selected.get("district"):
        return str(selected["district"])
    return None
