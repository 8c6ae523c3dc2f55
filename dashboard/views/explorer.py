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
import shlex
from collections.abc import Mapping
from typing import NamedTuple

import numpy as np
from dash import Patch, dcc, html, no_update

import census_loaders as cl
from dashboard import forms, ids
from dashboard.components import card
from dashboard.core import country as catalog
from dashboard.core import memo, regions
from dashboard.core.body import DEFAULT_BMI_RANGE
from dashboard.core.country import load_country_model
from dashboard.core.errors import InputError
from dashboard.core.groups import DEFAULT_STUDY, format_age_band
from dashboard.core.memo import Memo
from dashboard.core.regions import Scenario, UserPercent, check_ages, parse_range
from dashboard.core.text import (
    N_,
    body_source_note,
    current_language,
    district_word,
    language,
    local_number,
    ngettext,
    percent_text,
    translate_marked,
)
from dashboard.core.text import gettext as _
from dashboard.figures import explorer as fx
from dashboard.figures.maps import geojson_url, view_of
from dashboard.figures.style import graph_config
from dashboard.server import limits
from dashboard.views import anonland as anonland_view
from dashboard.views import data_notes
from dashboard.views.explorer_tables import (  # noqa: F401 - the country tables are part of this view's interface
    COUNTRY_COLUMNS,
    COUNTRY_SCREEN_COLUMNS,
    DEFAULT_TABLE_GRAIN,
    DISTRICT_NUM,
    TABLES_MEMO,
    country_data_table,
    country_table_rows,
    export_name,
    table_csv,
    table_note,
)

PAGE = "explore"
LOG = logging.getLogger("anonset.explorer")
#: Query keys the scenario reads, in the order a link is repaired (countries first: presets depend on them).
SCENARIO_KEYS = ("country", "sex", "ages", "body", "height_width", "weight_width", "aux", "bmi", "k", "stat", "model",
                 "sr")
DEFAULT_TABLE_AGES = DEFAULT_STUDY
GRAIN_OPTIONS = [
    {"label": N_("whole 5-year age groups (comparable across countries)"), "value": "5"},
    {"label": N_("each data set's own age groups (the UK: single years)"), "value": "census"},
]
SORRY = N_("Sorry — this view could not be computed. Please check the settings.")


def _id(name: str) -> str:
    return ids.make(PAGE, name)


ID = {name: _id(name) for name in (
    "countries", "sex", "ages", "body", "height-width", "weight-width", "bmi", "aux", "user-name", "user-percent",
    "k", "stat", "message", "results", "notes", "scenario", "map", "map-box", "map-legend", "no-map", "loaded-map",
    "map-drawn",
    "show-table", "district-table", "district-table-box", "selected", "detail", "cdf", "readouts", "cdf-note",
    "cdf-section", "tables-section",
    "loaded-cdf", "cdf-legend", "table-ages", "table-grain", "table-note", "country-table", "table-message",
    "table-query", "cdf-grain", "cdf-query", "cli-map", "cli-cdf", "cli-table", "link-text", "link-copy", "link-notices", "model",
    "self-report", "report", "report-message",
    "district-csv", "district-csv-download", "country-csv", "country-csv-download",
)}
#: What the report button's GET /_reports/explorer carries (assets/report_download.js): the scenario store (its
#: query, merged), the distributions' grain, the country tables' ages as typed and their grain — never the district.
REPORT_STATES = ((ID["scenario"], "data", "*"), (ID["cdf-grain"], "value", "cdf_grain"),
                 (ID["table-ages"], "value", "table_ages"), (ID["table-grain"], "value", "table_grain"))
REPORT_PARAMS = ",".join(name for _id_, _prop, name in REPORT_STATES)


STAT_OPTIONS = [
    {"label": N_("person mean CAS"), "value": "person_mean"},
    {"label": N_("cell mean CAS"), "value": "cell_mean"},
    {"label": N_("minimum non-zero CAS"), "value": "min"},
    {"label": N_("maximum CAS"), "value": "max"},
    {"label": N_("share of people with CAS below k"), "value": "share_below"},
]


def translated_options(options: list[dict]) -> list[dict]:
    """Radio or checklist options whose marked labels are shown in the page's language."""
    return [{**o, "label": translate_marked(o["label"])} for o in options]


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
            notices.append(_("Unknown country or data set {codes} in the link").format(
                codes=", ".join(repr(_clip(c, 20)) for c in bad)) + catalog.closest_note(bad) + ".")
        if not codes:
            notices.append(_("The link chooses no country."))
        ok = [c for c in codes if c in known]
        if ok:
            good["country"] = ",".join(dict.fromkeys(ok))
        elif codes or "country" in q:
            notices[-1] += " " + _("Showing {name} instead.").format(name=catalog.dataset_title(Scenario().countries[0]))
    for key in SCENARIO_KEYS[1:]:
        if key not in q:
            continue
        try:
            Scenario.from_query({**good, key: q[key]})
        except InputError as exc:
            notices.append(_clip(_("In the link: {error}. The default is used instead.").format(error=exc)))
        else:
            good[key] = q[key]
    scenario = Scenario.from_query(good)
    try:
        limits.check_scenario(scenario, what=_("The link's scenario"))
    except limits.CostError as exc:
        notices.append(_clip(_("{error}. Showing the first data set at the default bands instead.").format(error=exc), 600))
        default = Scenario()
        scenario = scenario.replace(countries=scenario.countries[:1], height_width=default.height_width,
                                    weight_width=default.weight_width)
    district = None
    if q.get("district"):
        model = load_country_model(scenario.countries[0])
        if q["district"] in set(map(str, model.district_ids)):
            district = q["district"]
        else:
            notices.append(_("Unknown district {district} in the link for {name}.").format(
                district=repr(_clip(q["district"], 20)), name=catalog.dataset_title(scenario.countries[0])))
    table_ages = DEFAULT_TABLE_AGES
    if q.get("table_ages"):
        try:
            table_ages = parse_table_ages(q["table_ages"])
        except InputError as exc:
            notices.append(_clip(_("In the link: {error}. The country tables use {ages} instead.").format(
                error=exc, ages=format_age_band(*DEFAULT_TABLE_AGES))))
    table_grain = DEFAULT_TABLE_GRAIN
    if q.get("table_grain"):
        if q["table_grain"] in regions.GRAINS:
            table_grain = q["table_grain"]
        else:
            notices.append(_("Unknown age grain {grain} in the link: the country tables compare whole 5-year age "
                             "groups.").format(grain=repr(_clip(q["table_grain"], 20))))
    cdf_grain = DEFAULT_TABLE_GRAIN
    if q.get("cdf_grain"):
        if q["cdf_grain"] in regions.GRAINS:
            cdf_grain = q["cdf_grain"]
        else:
            notices.append(_("Unknown age grain {grain} in the link: the distributions compare whole 5-year age "
                             "groups.").format(grain=repr(_clip(q["cdf_grain"], 20))))
    return LinkState(scenario, district, table_ages, tuple(notices), table_grain, cdf_grain)


def parse_table_ages(text) -> tuple[float, float]:
    """The country tables' age range from the text box (``18-75``, ``15-85``, ``18+``)."""
    if text is None or not str(text).strip():
        raise InputError(_("the country tables' age range is empty: give e.g. 18-75"))
    return check_ages(parse_range(str(text), _("age range"), allow_open=True))


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
        raise InputError(_("Countries: choose at least one country"))
    sexes = [sexes] if isinstance(sexes, str) else list(sexes or [])
    if not sexes:
        raise InputError(_("Sex: choose female, male or both"))
    q = {"country": ",".join(countries), "sex": ",".join(sexes), "ages": str(ages or "").strip(),
         "body": "1" if body else "0", "bmi": str(bmi or "").strip() or range_text(DEFAULT_BMI_RANGE)}
    q["height_width"] = str(forms.width(height_width, _("Height band")))
    q["weight_width"] = str(forms.width(weight_width, _("Weight band")))
    if not q["ages"]:
        raise InputError(_("Ages: give the study population, e.g. 18-75"))
    items = [str(a) for a in (aux or [])]
    pct = "" if user_percent is None else str(user_percent).strip()
    if pct:
        name = str(user_name or "").strip()[:60] or _("own fraction")
        items.append(UserPercent.parse(f"{name}={pct}").spec)
    if items:
        q["aux"] = ";".join(items)
    kval = forms.number(k, "k", required=True)  # k is a symbol, in every language
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
        raise InputError(_("no scenario yet"))
    s = Scenario.from_query(query)
    limits.check_scenario(s)  # a store is written by the form, which checks the same; a forged one is refused
    return s


def comparable_curves(s: Scenario, grain: str):
    """The CDFs of every chosen data set on one age grain (:func:`dashboard.core.regions.comparable_cdfs`); the
    largest allowed comparisons (seconds of CPU) wait for one of the server's heavy slots, or are refused
    with the command that computes them (:func:`dashboard.server.limits.scenario_slot`)."""
    with limits.scenario_slot(s, _("This comparison")):
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
            # a preset's name and note are ours (census_loaders.auxiliary, marked): in the page's language
            out.append({"label": translate_marked(t["name"]), "value": t["id"],
                        "title": translate_marked(t["note"]) if t.get("note") else ""})
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
_TABLES = TABLES_MEMO  # the country tables' memo (:mod:`dashboard.views.explorer_tables`), cleared by the tests


def map_colours(s: Scenario) -> fx.MapColours:
    """The map's colours of the scenario's first country (memoised: read-only, shared by requests)."""
    code = s.countries[0]
    key = (code, s.profile_key, s.stat, s.k if s.stat == "share_below" else None, current_language())

    def make():
        model = load_country_model(code)
        return fx.map_colours(regions.district_statistics(s, code), s.stat, s.k, country_name=catalog.dataset_title(code),
                              district_label=model.district_label)

    return _COLOURS.get(key, make)


def map_hover(s: Scenario) -> np.ndarray:
    """Each district's population line for the map's hover (memoised per country and profile)."""
    code = s.countries[0]
    return _HOVER.get((code, s.profile_key, current_language()),
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
                           country_name=catalog.dataset_title(code), district_label=model.district_label,
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
                   _("selected {district} (click one for its detail)").format(district=district_word(model.district_label))]),
        html.Span([html.Span(className="swatch", style={"borderColor": fx.FILLED_COLOUR}),
                   ngettext("filled (estimated from the remainder of its {region}): {n} district",
                            "filled (estimated from the remainder of its {region}): {n} districts", n_filled).format(
                       region=district_word(model.region_label), n=n_filled) if n_filled
                   else _("filled (estimated) districts: none in {name}").format(name=catalog.dataset_title(code))]),
    ]
    if colours.n_missing:
        items.append(html.Span([html.Span(className="swatch empty"),
                                ngettext("white: no value ({n} district)", "white: no value ({n} districts)",
                                         colours.n_missing).format(n=colours.n_missing)]))
    boundaries = cl.dataset_info(code)["boundaries"]
    unmapped = boundaries.get("missing_geometry", []) if boundaries else []
    if unmapped:
        label = district_word(model.district_label, plural=len(unmapped) != 1)
        more = " " + ngettext("and {n} more", "and {n} more", len(unmapped) - 5).format(n=len(unmapped) - 5) \
            if len(unmapped) > 5 else ""
        items.append(html.Span(_("not on the map (no outline in the boundary file), but in every count and in the "
                                 "district table: {n} {districts} — {names}").format(
            n=len(unmapped), districts=label, names=_district_names(code, tuple(unmapped[:5]))) + more,
            className="map-unmapped"))
    outside = boundaries["frame"]["outside"] if boundaries else []
    if outside:
        items.append(html.Span(ngettext("{n} district lies outside the frame (e.g. {names}): zoom out to see it",
                                        "{n} districts lie outside the frame (e.g. {names}): zoom out to see them",
                                        len(outside)).format(n=len(outside),
                                                             names=_district_names(code, tuple(outside[:3])))))
    col = fx.STAT_INFO[s.stat].column
    values = df[col].to_numpy(dtype=float)
    ok = np.isfinite(values) & ((values > 0) if fx.STAT_INFO[s.stat].log else True)
    if ok.any():
        fmt = fx.percent if s.stat == "share_below" else fx.format_cas
        lo, hi = int(np.flatnonzero(ok)[np.argmin(values[ok])]), int(np.flatnonzero(ok)[np.argmax(values[ok])])
        names = df["district_name"].astype(str).to_numpy()
        items.append(html.Span(_("{statistic}: from {low} ({low_name}) to {high} ({high_name})").format(
            statistic=fx.stat_label(s.stat, s.k), low=fmt(values[lo]), low_name=names[lo], high=fmt(values[hi]),
            high_name=names[hi]), className="map-range"))
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
    return _ROWS.get((code, s.profile_key, s.k, current_language()), lambda: _district_rows(s, code))


def _district_rows(s: Scenario, code: str) -> list[dict]:
    df = regions.district_statistics(s, code)

    def cas(v):
        v = float(v)
        if not math.isfinite(v):
            return None
        return float(f"{v:.2g}") if 0 < v < 1 else math.floor(v + 1e-9)

    rows, filled = [], _("filled")
    for r in df.to_dict("records"):
        share = float(r["share_below"])
        rows.append({
            "id": str(r["district_id"]), "district": str(r["district_name"]), "district_id": str(r["district_id"]),
            "region": str(r["region_name"]), "filled": filled if r["filled"] else "",
            "population": cas(r["population"]), "person_mean": cas(r["person_mean"]),
            "cell_mean": cas(r["cell_mean"]), "min_cas": cas(r["min_cas"]), "max_cas": cas(r["max_cas"]),
            "share_below": round(100 * share, 3) if math.isfinite(share) else None,
        })
    return rows


def district_columns(s: Scenario, code: str) -> list[dict]:
    model = load_country_model(code)
    num = lambda name, cid: {"name": name, "id": cid, "type": "numeric", "format": DISTRICT_NUM}
    return [
        {"name": district_word(model.district_label), "id": "district"}, {"name": _("id"), "id": "district_id"},
        {"name": district_word(model.region_label), "id": "region"},
        num(_("people aged {ages}").format(ages=_ages_label(s)), "population"), num(_("person mean CAS"), "person_mean"),
        num(_("cell mean CAS"), "cell_mean"), num(_("minimum non-zero CAS"), "min_cas"),
        num(_("maximum CAS"), "max_cas"),
        {"name": _("% of people with CAS below {k}").format(k=f"{s.k:g}"), "id": "share_below", "type": "numeric",
         "format": {"specifier": ".2f"}},
        {"name": _("filled"), "id": "filled"},
    ]


def _where(stats: dict, prefix: str) -> str:
    parts = [stats.get(f"{prefix}_{a}") for a in ("sex", "age", "height", "weight")]
    return ", ".join(_cell_text(p) for p in parts if p not in (None, "") and str(p) != "<NA>")


def _cell_text(value) -> str:
    """A cell's sex, age or band as shown: "female"/"male" in the page's language, "–" for none."""
    text = str(value)
    if text in ("None", "<NA>"):
        return "–"
    return translate_marked(text) if text in ("female", "male") else text


def _cells_table(df, caption: str) -> html.Table:
    heads = (_("sex"), _("age"), _("height"), _("weight"))
    head = html.Thead(html.Tr([html.Th(h) for h in heads] + [html.Th("CAS", className="num")]))
    body = html.Tbody([
        html.Tr([html.Td(_cell_text(r[c])) for c in ("sex", "age", "height", "weight")]
                + [html.Td(fx.format_cas(r["cas"]), className="num")])
        for r in df.to_dict("records")
    ])
    return html.Table([html.Caption(caption), head, body], className="table cells-table")


def detail_panel(s: Scenario, district: str) -> html.Div:
    """A clicked district: key numbers, its sex × age distribution, smallest and largest cells, link to the personal page.

    Memoised (a hundred components cost more than the numbers): the panel is shared by requests, read-only.
    """
    key = (s.countries[0], s.profile_key, s.k, str(district), current_language())
    return _DETAILS.get(key, lambda: _detail_panel(s, str(district)))


def _detail_panel(s: Scenario, district: str) -> html.Div:
    code = s.countries[0]
    model = load_country_model(code)
    d = regions.district_detail(s, code, district)
    st = d.stats
    title = f"{d.district_name} ({d.district_id})"
    region = district_word(model.region_label)
    link = dcc.Link(_("Open “How many people are like you?” for {district} →").format(district=d.district_name),
                    href=f"/?country={code}#district={d.district_id}", className="button", id=_id("personal-link"))
    cards = [
        card(_("People aged {ages}").format(ages=_ages_label(s)), fx.format_cas(st["population"]),
             "" if st["people"] == st["population"] else
             _("{count} with the auxiliary knowledge").format(count=fx.format_cas(st["people"]))),
        card(_("Person mean CAS"), fx.format_cas(st["person_mean"]),
             _("expected CAS of a random resident: Σ CAS² / Σ CAS")),
        card(_("Cell mean CAS"), fx.format_cas(st["cell_mean"]),
             ngettext("mean over {n} combination", "mean over {n} combinations", int(st["n_cells"])).format(
                 n=local_number(f"{st['n_cells']:,}"))),
        card(_("Minimum non-zero CAS"), fx.format_cas(st["min_cas"]), _where(st, "min")),
        card(_("Maximum CAS"), fx.format_cas(st["max_cas"]), _where(st, "max")),
        card(_("Share with CAS below {k}").format(k=f"{s.k:g}"), fx.percent(st["share_below"]),
             _("of the district's people")),
    ]
    return html.Div(
        [
            html.H3(title, className="detail-title"),
            html.P(f"{region[:1].upper()}{region[1:]}: {d.region_name} · {catalog.dataset_title(code)}", className="muted"),
            *([html.Div(_("{district}: its counts are filled, estimated from the remainder of its {region}.").format(
                district=district_word(model.district_label), region=region), className="warning")]
              if d.filled else []),
            html.Div(cards, className="cards"),
            html.Div(
                [
                    dcc.Graph(id=_id("distribution"), config=graph_config(), figure=fx.distribution_figure(
                        d.distribution, _("{district}: people by sex and age group").format(district=d.district_name))),
                    html.Div([_cells_table(d.smallest, _("Smallest non-zero cells (where the fewest people are alike)")),
                              _cells_table(d.largest, _("Largest cells (the biggest crowds)"))], className="cells"),
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
READOUT_TAIL = N_(" of people have an anonymity set below {k}")


def readouts(s: Scenario, grain: str = DEFAULT_TABLE_GRAIN) -> list:
    """'x % of people have an anonymity set below k' for k = 5, 20, 100, per country, on the CDFs' age grain."""
    shares = regions.comparable_share_below(s, fx.READOUT_KS, grain)
    out = []
    for code in s.countries:
        name = catalog.dataset_title(code)
        items = [html.Li([html.B(fx.percent(shares[code][float(k)])), translate_marked(READOUT_TAIL).format(k=k)],
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
    return _("Small numbers are rough estimates: in the AnonLand check, {share} of the {n} test citizens whose real "
             "crowd was under 5 got an estimate more than {threshold} off. Read “below 5” as “very few people alike”, "
             "not as an exact count.").format(share=fx.percent(share), n=local_number(f"{n:,}"),
                                               threshold=percent_text(f"{threshold * 100:g}"))


_CSS_DASH = {"solid": "solid", "longdash": "dashed", "dashdot": "dashed", "dash": "dashed"}


def _swatch(colour: str, style: str, width: int = 3) -> html.Span:
    return html.Span(className="line-swatch", style={"borderTop": f"{width}px {style} {colour}"}, **{"aria-hidden": "true"})


def cdf_legend(cdfs: dict, names: dict[str, str]) -> html.Div:
    """The CDF chart's key as a list under it (wraps on a phone, never squeezes the plot): one entry per country
    with its colour and where its people curve ends, then the two line styles."""
    items = []
    for e in fx.cdf_key(cdfs, names):
        end = " — " + _("shares of the {percent} covered").format(percent=fx.percent(e.end)) if math.isfinite(e.end) else ""
        items.append(html.Li([_swatch(e.colour, _CSS_DASH.get(e.dash, "solid")), f"{e.name}{end}"],
                             **{"data-country": e.code}))
    key = [html.Li([_swatch("#4a5562", "solid"), _("solid: share of people")], className="key"),
           html.Li([_swatch("#4a5562", "dotted", 3), _("dotted: share of combinations")], className="key")]
    return html.Div(html.Ul(items + key, className="line-legend"), **{"aria-label": _("Key to the curves")})


def single_year_note(codes) -> str:
    """A sentence when some chosen data sets count single years of age (the UK) and others 5-year groups."""
    single = [catalog.dataset_title(c) for c in codes
              if all(g.census_hi - g.census_lo <= 1 for g in load_country_model(c).age_groups)]
    if not single or len(single) == len(codes):
        return ""
    return " " + ngettext(
        "Not comparable on age: {names} counts single years of age, the others 5-year groups, so its anonymity sets "
        "are smaller partly because its age cells are narrower (the country tables below compare whole 5-year "
        "groups).",
        "Not comparable on age: {names} count single years of age, the others 5-year groups, so their anonymity "
        "sets are smaller partly because their age cells are narrower (the country tables below compare whole "
        "5-year groups).", len(single)).format(names=", ".join(single))


def cdf_note(s: Scenario, cdfs: dict, grain: str = "census") -> str:
    if grain == "census":
        return _cdf_note(s, cdfs) + single_year_note(s.countries)
    return _cdf_note(s, cdfs) + " " + grain_note(s.ages)


def grain_note(ages) -> str:
    """Which age grain the distributions compare (the default: whole 5-year groups)."""
    lo, hi = regions.comparable_ages(ages)
    return _("Compared on whole 5-year age groups ({ages}, inside the chosen ages): the UK's single years are summed "
             "into 5-year groups so every country's cells are of the same kind. The command below prints each data "
             "set's own age groups.").format(ages=format_age_band(lo, hi))



def _cdf_note(s: Scenario, cdfs: dict) -> str:
    if not s.include_body:
        return _("Without height × weight every combination is plausible, so the person-weighted curves reach "
                 "{percent}. Solid: share of people; dotted: share of district × sex × age combinations.").format(
            percent=percent_text("100"))
    ends = "; ".join(f"{catalog.dataset_title(c)} {fx.percent(v.covered_share)}" for c, v in cdfs.items())
    lo, hi = s.bmi_range
    if s.model == "paper":
        return _("Solid: share of people with CAS ≤ x; dotted: share of combinations. Paper model: shares are of "
                 "the people in plausible cells ({shares} of everyone): cells with a BMI outside {lo}–{hi} at their "
                 "centre are left out, as in the published figures.").format(
            shares=ends, lo=local_number(f"{lo:g}"), hi=local_number(f"{hi:g}"))
    return _("Solid: share of people with CAS ≤ x; dotted: share of combinations. Body model v2: shares are of the "
             "people the model covers ({shares} of everyone — the cells holding {held} of each sex × age group); no "
             "cell is left out for its BMI.").format(shares=ends, held=percent_text("99.9"))


def _english_notes(s: Scenario, code: str) -> tuple[str, ...]:
    """The scenario's notes in English: a note the page's language leaves equal to it is the data's own text."""
    if current_language() == "en":
        return regions.scenario_notes(s, code)
    with language("en"):
        return regions.scenario_notes(s, code)


def _scenario_note(name: str, note: str, english: str) -> html.Li:
    """One scenario note: ours in the page's language, a body source note said in it (as the personal page says
    it), any other text of the data's own quoted in English (``lang="en"``)."""
    if current_language() == "en" or note != english:
        return html.Li(f"{name}: {note}")
    said = body_source_note(note)
    return html.Li(f"{name}: {said}") if said else html.Li([f"{name}: ", html.Span(note, lang="en")])


def scenario_notes(s: Scenario) -> list:
    """The data set's own notes (its date, unknown ages, districts without a map …), then the scenario's."""
    items = []
    for code in s.countries:
        info = cl.dataset_info(code)
        name = catalog.dataset_title(code, info)
        items += data_notes.note_items(code, prefix=f"{name}: ")  # the data set's own, in the page's language
        items += [_scenario_note(name, n, en) for n, en in zip(regions.scenario_notes(s, code), _english_notes(s, code))]
    summary = _("Notes on the data ({n})").format(n=len(items))
    return [html.Details([html.Summary(summary), html.Ul(items)], className="notes")] if items else []


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
