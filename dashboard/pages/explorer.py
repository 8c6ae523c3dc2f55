"""Regional explorer for regulators: live district maps, person-weighted CDFs and country tables (SPEC §1.5).

One :class:`~dashboard.core.scenario.Scenario` drives every view and lives in the
URL query (``Scenario.to_query`` plus this page's own ``district`` and
``table_ages``), so each view is a shareable link.  Callbacks are thin: parse the
store → memoised core (:mod:`dashboard.core.aggregates`) → pure figure builders
(:mod:`dashboard.figures.explorer`).  The map's geometry is sent once per
country; every other change is a small :class:`dash.Patch`.

No @dataclass here: Dash executes page modules without putting them in
``sys.modules``, which dataclasses need.
"""
from __future__ import annotations

import functools
import json
import logging
import math
import shlex
from collections.abc import Mapping
from typing import NamedTuple

import dash
import numpy as np
from dash import (
    ClientsideFunction,
    Input,
    Output,
    Patch,
    State,
    callback,
    clientside_callback,
    ctx,
    dash_table,
    dcc,
    html,
    no_update,
)

import census_loaders as cl
from dashboard import forms, ids
from dashboard.core import aggregates as ag
from dashboard.core import catalog
from dashboard.core.body_model import (
    DEFAULT_BMI_RANGE,
    DEFAULT_STUDY,
    format_age_band,
    load_country_model,
)
from dashboard.core.errors import InputError
from dashboard.core.memo import Memo
from dashboard.core.scenario import Scenario, UserPercent, check_ages, parse_range
from dashboard.figures import explorer as fx
from dashboard.figures.maps import geojson_url, view_of

dash.register_page(__name__, path="/explore", name="Explore regions", order=10,
                   title="AnonSet — regional explorer: district maps, CDFs and country tables")

PAGE = "explore"
LOG = logging.getLogger("anonset.explorer")
#: Query keys the scenario reads, in the order a link is repaired (countries first: presets depend on them).
SCENARIO_KEYS = ("country", "sex", "ages", "body", "height_width", "weight_width", "aux", "bmi", "k", "stat")
DEFAULT_TABLE_AGES = DEFAULT_STUDY
SORRY = "Sorry — this view could not be computed. Please check the settings."


def _id(name: str) -> str:
    return ids.make(PAGE, name)


ID = {name: _id(name) for name in (
    "countries", "sex", "ages", "body", "height-width", "weight-width", "bmi", "aux", "user-name", "user-percent",
    "k", "stat", "message", "notes", "scenario", "map", "map-box", "map-legend", "no-map", "loaded-map",
    "show-table", "district-table", "district-table-box", "selected", "detail", "cdf", "readouts", "cdf-note",
    "loaded-cdf", "table-ages", "country-table", "table-message", "table-query", "cli-map", "cli-cdf",
    "cli-table", "link-text", "link-copy", "link-notices",
)}

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
            notices.append(f"Unknown country or data set {', '.join(repr(_clip(c, 20)) for c in bad)} in the link.")
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
    return LinkState(scenario, district, table_ages, tuple(notices))


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
        "k": int(s.k) if float(s.k).is_integer() else s.k, "stat": s.stat,
    }


def scenario_from_form(countries, sexes, ages, body, height_width, weight_width, bmi, aux, user_name, user_percent,
                       k, stat) -> Scenario:
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
    return Scenario.from_query(q)


def scenario_from_store(query) -> Scenario:
    """The scenario a store holds (it was validated when written; checked again, it costs nothing)."""
    if not isinstance(query, Mapping) or not query.get("country"):
        raise InputError("no scenario yet")
    return Scenario.from_query(query)


def _profile_sig(query: Mapping) -> str:
    """Everything but countries, k and stat: what the per-district numbers depend on besides the country."""
    return json.dumps({k: v for k, v in sorted(query.items()) if k not in ("country", "k", "stat")})


def cli_snippets(s: Scenario, table_ages=DEFAULT_TABLE_AGES) -> dict[str, str]:
    """The ``anonset`` commands that reproduce the map, the CDFs and the country tables."""
    return {
        "map": s.replace(countries=s.countries[:1]).to_cli("districts"),
        "cdf": s.to_cli("cdf", at=fx.READOUT_KS),
        "table": shlex.join(["anonset", "country-table", "--ages", range_text(table_ages)]),
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
_COLOURS = Memo(256)
_HOVER = Memo(128)
_DETAILS = Memo(256)
_ROWS = Memo(64)
_TABLES = Memo(32)


def map_colours(s: Scenario) -> fx.MapColours:
    """The map's colours of the scenario's first country (memoised: read-only, shared by requests)."""
    code = s.countries[0]
    key = (code, s.profile_key, s.stat, s.k if s.stat == "share_below" else None)

    def make():
        model = load_country_model(code)
        return fx.map_colours(ag.district_statistics(s, code), s.stat, s.k, country_name=model.name,
                              district_label=model.district_label)

    return _COLOURS.get(key, make)


def map_hover(s: Scenario) -> np.ndarray:
    """Each district's population line for the map's hover (memoised per country and profile)."""
    code = s.countries[0]
    return _HOVER.get((code, s.profile_key),
                      lambda: fx.hover_people(ag.district_statistics(s, code), _ages_label(s)))


def map_figure(s: Scenario, selected: str | None = None):
    """The full district map of the scenario's first country, or None when it has no boundaries."""
    code = s.countries[0]
    geo = cl.boundaries(code)
    if geo is None:
        return None
    model = load_country_model(code)
    df = ag.district_statistics(s, code)
    view = _view(code)
    return fx.district_map(geojson_url(code), df, s.stat, s.k, ages_label=_ages_label(s), view=view, selected=selected,
                           country_name=model.name, district_label=model.district_label,
                           colours=map_colours(s), hover=map_hover(s))


def map_state(s: Scenario, selected: str | None, has_map: bool) -> dict:
    """What the map in the browser shows, so the next update can send only what changed."""
    q = s.to_query()
    return {"country": s.countries[0], "profile": _profile_sig(q), "stat": s.stat,
            "k": s.k if s.stat == "share_below" else None, "selected": selected, "map": has_map}


def map_patch(s: Scenario, selected: str | None, loaded: Mapping):
    """A Patch with only what changed since ``loaded`` (colours, hover, selection), or no_update."""
    now = map_state(s, selected, True)
    code = s.countries[0]
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
    """The legend under the map: what the outlines mean and which districts have no value."""
    code = s.countries[0]
    model = load_country_model(code)
    df = ag.district_statistics(s, code)
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


@functools.lru_cache(maxsize=128)
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
    df = ag.district_statistics(s, code)

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


def _card(title: str, value: str, explain: str = "") -> html.Div:
    return html.Div([html.Div(title, className="card-title"), html.Div(value, className="card-value"),
                     html.Div(explain, className="card-explain")], className="card")


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
    d = ag.district_detail(s, code, district)
    st = d.stats
    title = f"{d.district_name} ({d.district_id})"
    link = dcc.Link(f"Open “How many people are like you?” for {d.district_name} →",
                    href=f"/?country={code}&district={d.district_id}", className="button", id=_id("personal-link"))
    cards = [
        _card(f"People aged {_ages_label(s)}", fx.format_cas(st["population"]),
              "" if st["people"] == st["population"] else f"{fx.format_cas(st['people'])} with the auxiliary knowledge"),
        _card("Person mean CAS", fx.format_cas(st["person_mean"]), "expected CAS of a random resident: Σ CAS² / Σ CAS"),
        _card("Cell mean CAS", fx.format_cas(st["cell_mean"]), f"mean over {st['n_cells']:,} combinations"),
        _card("Minimum non-zero CAS", fx.format_cas(st["min_cas"]), _where(st, "min")),
        _card("Maximum CAS", fx.format_cas(st["max_cas"]), _where(st, "max")),
        _card(f"Share with CAS below {s.k:g}", fx.percent(st["share_below"]), "of the district's people"),
    ]
    return html.Div(
        [
            html.H3(title, className="detail-title"),
            html.P(f"{model.region_label[:1].upper()}{model.region_label[1:]}: {d.region_name} · {model.name}",
                   className="muted"),
            *([html.Div(f"This {model.district_label}'s counts are filled: estimated from its {model.region_label}'s "
                        "remainder (SPEC §1.4).", className="warning")] if d.filled else []),
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


def readouts(s: Scenario) -> list:
    """'x % of people have an anonymity set below k' for k = 5, 20, 100, per country."""
    shares = ag.share_below(s, fx.READOUT_KS)
    out = []
    for code in s.countries:
        name = cl.dataset_info(code)["name"]
        items = [html.Li([html.B(fx.percent(shares[code][float(k)])), f" of people have an anonymity set below {k}"],
                         **{"data-k": str(k)})
                 for k in fx.READOUT_KS]
        out.append(html.Div([html.Div(f"{name} ({code})", className="card-title"), html.Ul(items)],
                            className="card readout", **{"data-country": code}))
    return out


def cdf_note(s: Scenario, cdfs: dict) -> str:
    if not s.include_body:
        return ("Without height × weight every combination is plausible, so the person-weighted curves reach 100 %. "
                "Solid: share of people; dotted: share of district × sex × age combinations.")
    ends = "; ".join(f"{cl.dataset_info(c)['name']} {fx.percent(v.plausible_share)}" for c, v in cdfs.items())
    lo, hi = s.bmi_range
    return (f"Solid: share of people with CAS ≤ x; dotted: share of combinations. The person-weighted curve ends at "
            f"the plausible share ({ends}), not at 100 %: people in height × weight cells with a BMI outside "
            f"{lo:g}–{hi:g} are left out, not renormalised.")


def country_table_rows(ages) -> list[dict]:
    """Country tables of every data set (district × sex × age only) as displayed: people rounded down.

    Memoised per age range (every visit shows the default one): shared by requests, read-only.
    """
    ages = tuple(float(a) for a in ages)
    return _TABLES.get(ages, lambda: _country_table_rows(ages))


def _country_table_rows(ages) -> list[dict]:
    df = ag.country_table(None, ages)

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
#: Text columns left-aligned, numbers right-aligned (DataTable's default for numeric columns).
TABLE_STYLE = dict(
    style_table={"overflowX": "auto"},
    style_cell={"whiteSpace": "normal", "height": "auto", "padding": "4px 8px", "minWidth": "56px", "maxWidth": "220px"},
    style_header={"fontWeight": "600", "backgroundColor": "#f4f6f8", "textAlign": "center"},
)


def scenario_notes(s: Scenario) -> list:
    items = []
    for code in s.countries:
        name = cl.dataset_info(code)["name"]
        items += [html.Li(f"{name}: {n}") for n in ag.scenario_notes(s, code)]
    return [html.Details([html.Summary(f"Notes on the data ({len(items)})"), html.Ul(items)], className="notes")] if items else []


# --------------------------------------------------------------------------- layout


def _field(label: str, control, help_text: str | None = None, control_id: str | None = None):
    children = [html.Label(label, htmlFor=control_id, className="field-label"), control]
    if help_text:
        children.append(html.Div(help_text, className="field-help"))
    return html.Div(children, className="field")


def _width(id_: str, unit: str, value: int):
    return dcc.Dropdown(id=id_, options=[{"label": f"{w} {unit}", "value": w} for w in forms.WIDTHS], value=value,
                        clearable=False, searchable=False)


def _snippet(key: str, command: str, help_text: str = "") -> html.Div:
    code_id = ID[f"cli-{key}"]
    return html.Div(
        [html.Div(["Reproduce this: ", dcc.Clipboard(target_id=code_id, title="copy the command", className="copy")],
                  className="field-label"),
         html.Pre(html.Code(command, id=code_id)), *([html.Div(help_text, className="field-help")] if help_text else [])],
        className="snippet",
    )


def _form(s: Scenario, v: dict) -> html.Section:
    return html.Section(
        [
            html.H2("Scenario", className="panel-title"),
            _field("Countries", dcc.Dropdown(id=ID["countries"], options=catalog.country_options(cl.manifest()),
                                             value=v["countries"], multi=True, clearable=False),
                   "The map shows the first; the curves compare all.", ID["countries"]),
            _field("Sex", dcc.Checklist(id=ID["sex"], options=[{"label": "female", "value": "female"},
                                                               {"label": "male", "value": "male"}],
                                        value=v["sex"], inline=True, className="radio"), control_id=ID["sex"]),
            _field("Ages", dcc.Input(id=ID["ages"], type="text", value=v["ages"], debounce=True, maxLength=20,
                                     placeholder="18-75"),
                   "Study population [from, to), e.g. 18-75 or 65+; census groups are trimmed by overlap.", ID["ages"]),
            _field("Profile", dcc.Checklist(id=ID["body"], options=[{"label": "height × weight bands", "value": "body"}],
                                            value=v["body"], className="checklist"),
                   "Off: district × sex × age only.", ID["body"]),
            html.Div([_field("Height band", _width(ID["height-width"], "cm", v["height-width"]), control_id=ID["height-width"]),
                      _field("Weight band", _width(ID["weight-width"], "kg", v["weight-width"]), control_id=ID["weight-width"])],
                     className="row2"),
            _field("Plausible BMI", dcc.Input(id=ID["bmi"], type="text", value=v["bmi"], debounce=True, maxLength=20),
                   "Cells whose centre BMI lies outside are left out of every number.", ID["bmi"]),
            html.Fieldset(
                [
                    html.Legend("Auxiliary knowledge", className="field-label"),
                    dcc.Checklist(id=ID["aux"], options=preset_options(s.countries), value=v["aux"], className="checklist"),
                    html.Div([_field("Your own fact", dcc.Input(id=ID["user-name"], type="text", value=v["user-name"],
                                                               debounce=True, maxLength=60, placeholder="e.g. uses app X"),
                                     control_id=ID["user-name"]),
                              _field("… true for this % of people", dcc.Input(id=ID["user-percent"], type="text",
                                                                         value=v["user-percent"], debounce=True,
                                                                         maxLength=80, placeholder="e.g. 12"),
                                     control_id=ID["user-percent"])]),
                    html.Div("A percentage, or one per age band: 18-30:10,30+:5. Fractions multiply (independence assumed).",
                             className="field-help"),
                ],
                className="aux-fieldset",
            ),
            _field("Map statistic", dcc.RadioItems(id=ID["stat"], options=STAT_OPTIONS, value=v["stat"],
                                                   className="checklist"), control_id=ID["stat"]),
            _field("k", dcc.Input(id=ID["k"], type="number", value=v["k"], min=0, debounce=True),
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
    ag.cdfs(s)
    readouts(s)
    country_table_rows(DEFAULT_TABLE_AGES)


def layout(**query):
    """The page; every setting comes from the link (unknown keys are ignored, bad values reported)."""
    try:
        link = scenario_from_link(query)
    except Exception as exc:  # noqa: BLE001 - a broken cache must not become a traceback in the page
        LOG.error("explorer layout: %s", type(exc).__name__)
        return html.Div([html.H1("Explore regions"), html.Div(SORRY, className="error", role="alert")])
    s = link.scenario
    v = form_values(s)
    cli = cli_snippets(s, link.table_ages)
    selected = {"country": s.countries[0], "district": link.district} if link.district else None
    graph = lambda key, **kw: dcc.Graph(id=ID[key], config={**fx.GRAPH_CONFIG, **kw}, figure={})
    results = html.Div(
        [
            html.Div(id=ID["message"], role="alert"),
            html.Div(id=ID["notes"]),
            html.Section(
                [
                    html.H2("District map"),
                    html.Div(graph("map", scrollZoom=True), id=ID["map-box"], className="map-box"),
                    html.Div(id=ID["no-map"]),
                    html.Div(id=ID["map-legend"], className="map-legend"),
                    dcc.Checklist(id=ID["show-table"], value=[], className="checklist",
                                  options=[{"label": "list every district in a sortable table (CSV download)",
                                            "value": "show"}]),
                    html.Div(
                        dash_table.DataTable(
                            id=ID["district-table"], data=[], columns=[], sort_action="native", page_size=15,
                            filter_action="native", filter_options={"case": "insensitive",
                                                                    "placeholder_text": "search…"},
                            export_format="csv", export_headers="display", cell_selectable=True,
                            style_cell_conditional=[{"if": {"column_id": c}, "textAlign": "left"}
                                                    for c in ("district", "district_id", "region", "filled")],
                            **TABLE_STYLE,
                        ),
                        id=ID["district-table-box"], style={"display": "none"},
                    ),
                    _snippet("map", cli["map"]),
                ],
                className="explorer-section", **{"aria-label": "District map"},
            ),
            html.Section([html.H2("District detail"), html.Div(
                html.P("Click a district on the map (or a row of the district table) to see its detail.",
                       className="muted"), id=ID["detail"])],
                className="explorer-section", **{"aria-label": "District detail"}),
            html.Section(
                [
                    html.H2("How anonymity sets are distributed"),
                    html.Div(id=ID["readouts"], className="cards readouts"),
                    graph("cdf"),
                    html.P(id=ID["cdf-note"], className="field-help cdf-note"),
                    _snippet("cdf", cli["cdf"], "The command prints shares of CAS ≤ x; the readouts count CAS < k "
                                                "(they differ only for a CAS exactly equal to k)."),
                ],
                className="explorer-section", **{"aria-label": "Distributions"},
            ),
        ],
        className="explorer-results",
    )
    tables = html.Section(
        [
            html.H2("Country tables"),
            html.P("Every data set in the cache, by sex, over district × sex × age group only (no body "
                   "measurements): a CAS here is a census count. Means are over all district × age combinations.",
                   className="field-help"),
            html.Div(
                [_field("Ages of the country tables", dcc.Input(id=ID["table-ages"], type="text", debounce=True,
                                                                value=range_text(link.table_ages), maxLength=20),
                        "Default 18-75; published comparisons used e.g. 15-85.", ID["table-ages"])],
                className="table-settings",
            ),
            html.Div(id=ID["table-message"], role="alert"),
            dcc.Loading(dash_table.DataTable(
                id=ID["country-table"], data=[], columns=COUNTRY_COLUMNS, sort_action="native", page_size=30,
                export_format="csv", export_headers="display", merge_duplicate_headers=True,
                style_cell_conditional=[{"if": {"column_id": c}, "textAlign": "left"}
                                        for c in ("country", "name", "sex", "min_where", "min_age")]
                + [{"if": {"column_id": "min_where"}, "minWidth": "150px"},
                   {"if": {"column_id": "min_age"}, "minWidth": "120px"}],
                **TABLE_STYLE,
            ), type="dot"),
            _snippet("table", cli["table"]),
        ],
        className="explorer-section explorer-tables", **{"aria-label": "Country tables"},
    )
    return html.Div(
        [
            html.H1("Explore regions"),
            html.P("How large are anonymity sets across a country's districts, and how do countries compare? "
                   "One scenario drives the map, the curves and the link in your address bar.", className="lead"),
            html.Div([html.Div(n, className="warning", role="status") for n in link.notices], id=ID["link-notices"]),
            html.Div([_form(s, v), results], className="explorer-grid"),
            tables,
            dcc.Store(id=ID["scenario"], data=s.to_query()),
            dcc.Store(id=ID["selected"], data=selected),
            dcc.Store(id=ID["loaded-map"], data=None),
            dcc.Store(id=ID["loaded-cdf"], data=None),
            dcc.Store(id=ID["table-query"], data=None if link.table_ages == DEFAULT_TABLE_AGES
                      else range_text(link.table_ages)),
        ],
        className="explorer",
    )


# --------------------------------------------------------------------------- callbacks


def _error(exc: Exception, where: str) -> html.Div:
    """An InputError's message, or a short apology (only the exception class is logged)."""
    if isinstance(exc, InputError):
        return html.Div(str(exc), className="error")
    LOG.error("explorer %s: %s", where, type(exc).__name__)
    return html.Div(SORRY, className="error")


@callback(
    Output(ID["aux"], "options"),
    Output(ID["aux"], "value"),
    Input(ID["countries"], "value"),
    State(ID["aux"], "value"),
    prevent_initial_call=True,
)
def on_countries(countries, chosen):
    """Offer the presets that describe every chosen country; drop chosen ones that no longer do.

    Anything but strings (a number, nested lists from a hand-made request) is no choice.
    """
    chosen = forms.strings(chosen)
    try:
        options = preset_options(forms.strings(countries))
    except Exception as exc:  # noqa: BLE001
        LOG.error("explorer presets: %s", type(exc).__name__)
        return no_update, no_update
    valid = {o["value"] for o in options}
    kept = [a for a in chosen if a in valid]
    return options, (kept if kept != chosen else no_update)


@callback(
    Output(ID["scenario"], "data"),
    Output(ID["message"], "children"),
    Output(ID["cli-map"], "children"),
    Output(ID["cli-cdf"], "children"),
    Input(ID["countries"], "value"),
    Input(ID["sex"], "value"),
    Input(ID["ages"], "value"),
    Input(ID["body"], "value"),
    Input(ID["height-width"], "value"),
    Input(ID["weight-width"], "value"),
    Input(ID["bmi"], "value"),
    Input(ID["aux"], "value"),
    Input(ID["user-name"], "value"),
    Input(ID["user-percent"], "value"),
    Input(ID["k"], "value"),
    Input(ID["stat"], "value"),
    prevent_initial_call=True,
)
def on_form(countries, sexes, ages, body, height_width, weight_width, bmi, aux, user_name, user_percent, k, stat):
    """Validate the form into the scenario store; a bad setting leaves the views as they were and says why."""
    try:
        s = scenario_from_form(countries, sexes, ages, body, height_width, weight_width, bmi, aux, user_name,
                               user_percent, k, stat)
        cli = cli_snippets(s)
    except Exception as exc:  # noqa: BLE001 - InputError → its message; anything else → apology
        return no_update, _error(exc, "form"), no_update, no_update
    return s.to_query(), None, cli["map"], cli["cdf"]


@callback(
    Output(ID["selected"], "data"),
    Input(ID["map"], "clickData"),
    Input(ID["district-table"], "active_cell"),
    Input(ID["scenario"], "data"),
    State(ID["selected"], "data"),
    prevent_initial_call=True,
)
def on_select(click, active_cell, query, selected):
    """A click on the map or a table row selects a district; a new first country clears the selection."""
    try:
        code = scenario_from_store(query).countries[0]
    except Exception:  # noqa: BLE001 - no valid scenario: keep what there is
        return no_update
    trigger = ctx.triggered_id if ctx.triggered else None
    district = None
    if trigger == ID["map"] and click:
        try:
            district = str(click["points"][0]["location"])
        except (TypeError, KeyError, IndexError):
            return no_update
    elif trigger == ID["district-table"] and active_cell and active_cell.get("row_id") is not None:
        district = str(active_cell["row_id"])
    if district is not None:
        new = {"country": code, "district": district}
        return new if new != selected else no_update
    if selected and selected.get("country") != code:
        return None
    return no_update


def _selected_district(selected, code: str) -> str | None:
    if isinstance(selected, Mapping) and selected.get("country") == code and selected.get("district"):
        return str(selected["district"])
    return None


@callback(
    Output(ID["map"], "figure"),
    Output(ID["loaded-map"], "data"),
    Output(ID["map-box"], "style"),
    Output(ID["no-map"], "children"),
    Output(ID["map-legend"], "children"),
    Input(ID["scenario"], "data"),
    Input(ID["selected"], "data"),
    State(ID["loaded-map"], "data"),
)
def on_map(query, selected, loaded):
    """The district map: geometry only when the first country changes, otherwise a Patch of what changed."""
    try:
        s = scenario_from_store(query)
        code = s.countries[0]
        district = _selected_district(selected, code)
        geo = cl.boundaries(code)
        if geo is None:
            note = cl.dataset_info(code).get("boundary_note") or "No district boundaries are available for this data set."
            return ({}, map_state(s, district, False), {"display": "none"},
                    html.Div([note, " The districts are listed in the table below."], className="warning"), None)
        if not loaded or loaded.get("country") != code or not loaded.get("map"):
            return map_figure(s, district), map_state(s, district, True), {}, None, map_legend(s)
        patch, state = map_patch(s, district, loaded)
        recoloured = (state["profile"], state["stat"], state["k"]) != (loaded.get("profile"), loaded.get("stat"), loaded.get("k"))
        legend = map_legend(s) if recoloured else no_update
        return patch, state, no_update, no_update, legend
    except Exception as exc:  # noqa: BLE001
        _error(exc, "map")
        return no_update, no_update, no_update, no_update, no_update


@callback(
    Output(ID["district-table"], "data"),
    Output(ID["district-table"], "columns"),
    Output(ID["district-table-box"], "style"),
    Output(ID["show-table"], "style"),
    Input(ID["scenario"], "data"),
    Input(ID["show-table"], "value"),
)
def on_district_table(query, show):
    """Every district in a sortable table: always for data sets without a map, on request otherwise."""
    try:
        s = scenario_from_store(query)
        code = s.countries[0]
        has_map = cl.boundaries(code) is not None
        if has_map and not show:
            return [], [], {"display": "none"}, {}
        return (district_rows(s, code), district_columns(s, code), {},
                {} if has_map else {"display": "none"})
    except Exception as exc:  # noqa: BLE001
        _error(exc, "district table")
        return no_update, no_update, no_update, no_update


@callback(
    Output(ID["detail"], "children"),
    Input(ID["selected"], "data"),
    Input(ID["scenario"], "data"),
)
def on_detail(selected, query):
    """The clicked district's detail (or the hint to click one)."""
    try:
        s = scenario_from_store(query)
        district = _selected_district(selected, s.countries[0])
        if district is None:
            return html.P("Click a district on the map (or a row of the district table) to see its detail.",
                          className="muted")
        return detail_panel(s, district)
    except Exception as exc:  # noqa: BLE001
        return _error(exc, "detail")


@callback(
    Output(ID["cdf"], "figure"),
    Output(ID["readouts"], "children"),
    Output(ID["cdf-note"], "children"),
    Output(ID["notes"], "children"),
    Output(ID["loaded-cdf"], "data"),
    Input(ID["scenario"], "data"),
    State(ID["loaded-cdf"], "data"),
)
def on_cdf(query, loaded):
    """Person- and cell-weighted CDFs of every chosen country; nothing is resent when only k or the statistic changed."""
    try:
        s = scenario_from_store(query)
        key = {"countries": list(s.countries), "profile": _profile_sig(s.to_query())}
        if key == loaded:
            return no_update, no_update, no_update, no_update, no_update
        cdfs = ag.cdfs(s)
        names = {c: cl.dataset_info(c)["name"] for c in s.countries}
        return fx.cdf_figure(cdfs, names), readouts(s), cdf_note(s, cdfs), scenario_notes(s), key
    except Exception as exc:  # noqa: BLE001
        return no_update, no_update, no_update, _error(exc, "distributions"), no_update


@callback(
    Output(ID["country-table"], "data"),
    Output(ID["table-message"], "children"),
    Output(ID["cli-table"], "children"),
    Output(ID["table-query"], "data"),
    Input(ID["table-ages"], "value"),
)
def on_table(ages_text):
    """Country tables of every data set for the chosen ages (memoised per data set and ages)."""
    try:
        ages = parse_table_ages(ages_text)
        rows = country_table_rows(ages)
    except Exception as exc:  # noqa: BLE001
        return no_update, _error(exc, "country tables"), no_update, no_update
    query = None if ages == DEFAULT_TABLE_AGES else range_text(ages)
    return rows, None, cli_snippets(Scenario(), ages)["table"], query


clientside_callback(
    ClientsideFunction(namespace="anonset", function_name="explorerSyncQuery"),
    Output(ID["link-text"], "value"),
    Input(ID["scenario"], "data"),
    Input(ID["selected"], "data"),
    Input(ID["table-query"], "data"),
)
