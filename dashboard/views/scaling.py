"""The scaling law of re-identification (SPEC §3): explore it, fit it to a census, forecast with it.

Three views, each a shareable link (``?view=explore|census|forecast`` plus its own settings):

* **Explore the law** — κ(n), Ξ(n) and the share violating k-anonymity for an entropy h
  (in bits) and a tail complexity γ, from 1 record to the world population, with a cursor
  moved by a ``dash.Patch`` (the curves are not recomputed);
* **From a census** — the anonymity sets a census scenario implies (the regional explorer's
  :class:`~dashboard.core.regions.Scenario`, same link keys), the Pitman–Yor law fitted to
  them, and the population's exact correctness beside the law's;
* **Forecast a technique** — measured correctness extrapolated by PYC-MB and 3 baselines, held-out errors, a band.

Everything the page computes or draws without a callback lives here — ids, defaults and limits,
link and form parsing, the ``render_*`` functions (plain dicts of components and figures), the
memos and :func:`warm` — so it is imported by its real name and tested without the app.  The page
(:mod:`dashboard.pages.scaling`) holds the layout and the callbacks.
"""
from __future__ import annotations

import logging
import math
import shlex
from typing import NamedTuple

import numpy as np
from dash import html, no_update
from dash.exceptions import PreventUpdate

import census_loaders as cl
from dashboard import forms, ids
from dashboard.components import command_block
from dashboard.core import country, memo, scaling
from dashboard.core.errors import InputError
from dashboard.core.memo import Memo
from dashboard.core.regions import Scenario
from dashboard.core.text import N_, current_language, format_count, ngettext, short_number
from dashboard.core.text import gettext as _
from dashboard.figures import scaling as figs
from dashboard.server import limits

from .scaling_text import (  # noqa: F401 - band_text … tail_text: part of this module's interface
    band_text,
    census_notes,
    census_sentence,
    census_summary,
    census_table,
    formulas_list,
    law_params,
    models_table,
    readout_cards,
    scenario_notes,
    tail_text,
)

PAGE = "scaling"
LOG = logging.getLogger("anonset.scaling")
VIEWS = ("explore", "census", "forecast")
WORLD = scaling.WORLD

# explore
DEFAULT_H_BITS = 20.0
DEFAULT_GAMMA = 0.3
DEFAULT_K = 5
DEFAULT_CURSOR = 1e6
K_CHOICES = (2, 3, 5, 10, 20, 50, 100)
H_SLIDER = (1.0, 40.0)
H_LIMITS = (0.01, 100.0)
GAMMA_SLIDER = (-2.0, 1.5)
GAMMA_LIMITS = (-50.0, 50.0)
LAW_NS = np.geomspace(1.0, WORLD, 300)
CURSOR_PRESETS = {"10k": 1e4, "1m": 1e6, "earth": WORLD}
# census
DEFAULT_APP_USERS = 10_000
# forecast
UPLOAD_REFUSED_BYTES = 20_000_000
MAX_POINTS = limits.MAX_FORECAST_POINTS  # the page's limit (the CLI fits up to forms.MAX_POINTS)
MAX_POINTS_IN_LINK = 50
MAX_POINTS_IN_COMMAND = 200
HOLDOUT_CHOICES = (0, 1, 2, 3)
DEFAULT_HOLDOUT = 1
EXAMPLE_POINTS = ((100, 0.995), (300, 0.984), (1000, 0.951), (3000, 0.876), (10_000, 0.738), (30_000, 0.563))


def _id(name: str) -> str:
    return ids.make(PAGE, name)


ID = {name: _id(name) for name in (
    "tabs", "notices", "query", "url-sync", "config", "census-query", "forecast-query",
    # explore
    "h-slider", "h-input", "gamma-slider", "gamma-input", "k", "cursor-slider", "cursor-input",
    "preset-10k", "preset-1m", "preset-earth", "preset-country", "law-graph", "law-message", "readouts",
    "law-params", "law-command",
    # census
    "c-country", "c-sex", "c-ages", "c-body", "c-height-width", "c-weight-width", "c-aux", "c-users",
    "c-message", "c-summary", "c-graph", "c-sentence", "c-table", "c-notes", "c-command",
    # forecast
    "f-table", "f-add", "f-example", "f-clear", "f-paste", "f-use-paste", "f-upload", "f-load-message",
    "f-holdout", "f-message", "f-graph", "f-models", "f-formulas", "f-band", "f-command",
)}


# --------------------------------------------------------------------------- parsing (pure)


def parse_view(value) -> str:
    return value if value in VIEWS else "explore"


def parse_h(value) -> float:
    """Entropy in bits, as typed (the law works in nats)."""
    h = forms.number(value, _("Entropy h (bits)"), lo=H_LIMITS[0], hi=H_LIMITS[1], required=True)
    return h


def parse_gamma(value) -> float:
    return forms.number(value, _("Tail complexity γ"), lo=GAMMA_LIMITS[0], hi=GAMMA_LIMITS[1], required=True)


def parse_k(value) -> int:
    k = forms.number(value, "k", lo=2, hi=max(K_CHOICES), required=True)
    if k != int(k):
        raise InputError(_("k: please choose a whole number of records"))
    return int(k)


def parse_cursor(value) -> float:
    n = forms.number(value, _("Gallery size n"), lo=1, hi=WORLD, required=True)
    return n


#: The law's curves (:class:`~dashboard.core.scaling.LawCurves`) as the explore view draws them.
Law = scaling.LawCurves


def law_curves(h_bits, gamma, k) -> Law:
    """κ, Ξ and V_k over 1 … 8 × 10⁹ for h in bits; InputError for values the law cannot take."""
    return _law(float(parse_h(h_bits)), float(parse_gamma(gamma)), parse_k(k))


@memo.lru(256)
def _law(h_bits: float, gamma: float, k: int) -> Law:
    """The curves of validated (h, γ, k), memoised: every visit starts at the same law, and sliders revisit.

    Shared between requests, so the arrays are read-only.
    """
    return scaling.law_curves(h_bits, gamma, k, LAW_NS)


@memo.lru(1024)
def law_at(d: float, alpha: float, k: int, n: float) -> tuple[float, float, float, float]:
    """(κ, Ξ, V_k, E[K_n]) at one gallery size: the cursor's readouts (memoised: the chart's cursor needs them too)."""
    return scaling.law_point(d, alpha, k, n)


def law_figure(h_bits: float, gamma: float, k: int, n: float) -> dict:
    """The explore chart of validated (h, γ, k) with its cursor at n, in the request's language; memoised and
    shared: read-only."""
    return _law_figure(h_bits, gamma, k, n, current_language())


@memo.lru(256)
def _law_figure(h_bits: float, gamma: float, k: int, n: float, lang: str) -> dict:
    """:func:`law_figure`, memoised per language (its names and axis titles are words)."""
    law = _law(h_bits, gamma, k)
    return figs.law_figure(LAW_NS, law.kappa, law.xi, law.viol, k, n, law_at(law.d, law.alpha, k, n)[:3])


def clear_caches() -> None:
    """Forget memoised curves, figures and views (tests, benchmarks)."""
    _law.cache_clear()
    law_at.cache_clear()
    _law_figure.cache_clear()
    _CENSUS_VIEWS.clear()
    _CENSUS_CURVES.clear()
    _FORECAST_VIEWS.clear()


def cursor_target(trigger, log_n, n, country) -> tuple[float | None, float | None]:
    """(slider value, n) after a cursor control changed; None leaves that control alone."""
    if trigger == ID["cursor-slider"]:
        if log_n is None:
            return None, None
        return None, float(round(10.0 ** float(log_n)))
    if trigger == ID["cursor-input"]:
        try:
            value = parse_cursor(n)
        except InputError:
            return None, None
        return math.log10(value), None
    for key, value in CURSOR_PRESETS.items():
        if trigger == ID[f"preset-{key}"]:
            return math.log10(value), value
    if trigger == ID["preset-country"] and country:
        pop = country_population(country)
        if pop:
            return math.log10(pop), pop
    return None, None


def country_population(code: str) -> float | None:
    try:
        pop = float(cl.dataset_info(code).get("population") or 0)
    except (KeyError, TypeError, ValueError):
        return None
    return min(pop, WORLD) if pop >= 1 else None


def country_preset_options() -> list[dict]:
    out = []
    for code, info in sorted(cl.manifest()["datasets"].items()):
        pop = info.get("population")
        if pop:
            out.append({"label": f"{country.country_name(code, info)} ({short_number(float(f'{float(pop):.3g}'))})",
                        "value": code})
    return out


def law_command(h_bits: float, gamma: float, n_values) -> str:
    ns = [_num_arg(v) for v in n_values]
    return shlex.join(["anonset", "pyc", "kappa", "--h-bits", f"{h_bits:g}", "--gamma", f"{gamma:g}", "--n", *ns])


def _num_arg(x: float) -> str:
    """A number for a link or a command: 1000, 2.5, 1e6, 8e9 (round large numbers in e-notation)."""
    x = float(x)
    if x >= 1e6 and float(f"{x:.3g}") == x:
        return f"{x:.3g}".replace("e+0", "e").replace("e+", "e")
    return f"{x:.0f}" if x.is_integer() else f"{x:.6g}"


# ---- census


def census_scenario(country, sexes, ages, body, height_width, weight_width, aux, k=None) -> Scenario:
    """The regional explorer's Scenario from the census form; InputError names the field."""
    if not country:
        raise InputError(_("Country: please choose a country"))
    q = {"country": str(country), "sex": ",".join(sexes or []), "ages": str(ages or "").strip() or "18-75",
         "body": "1" if body else "0"}
    if not sexes:
        raise InputError(_("Sex: choose at least one sex"))
    q["height_width"] = str(forms.width(height_width, _("Height band")))
    q["weight_width"] = str(forms.width(weight_width, _("Weight band")))
    if aux:
        q["aux"] = ";".join(aux)
    if k is not None:
        q["k"] = str(k)
    s = Scenario.from_query(q)
    limits.check_scenario(s, scaling.to_cli(s), what=_("This census view"))
    return s


def parse_users(value) -> float:
    n = forms.number(value, _("App users n"), lo=1, hi=WORLD, required=True)
    if n != int(n):
        raise InputError(_("App users n: please enter a whole number"))
    return n


# ---- forecast


def parse_holdout(value, n_points: int) -> int:
    h = forms.number(value, _("Held-out points"), lo=0, hi=max(HOLDOUT_CHOICES))
    h = 0 if h is None else int(h)
    return h if n_points - h >= 2 else 0


def forecast_sizes(n_max: float) -> np.ndarray:
    """The table's gallery sizes: 10 × the largest measured n, a billion, the world."""
    return np.unique(np.array([min(10.0 * n_max, WORLD), 1e9, WORLD]))


def forecast_command(n: np.ndarray, k: np.ndarray, holdout: int) -> str | None:
    if n.size > MAX_POINTS_IN_COMMAND:
        return None
    points = ",".join(f"{_num_arg(a)}:{b:.6g}" for a, b in zip(n, k, strict=True))
    args = ["anonset", "pyc", "forecast", "--points", points]
    for at in forecast_sizes(float(n.max())):
        args += ["--at", _num_arg(at)]
    return shlex.join(args + ["--holdout", str(holdout)])


def points_from_query(text) -> list[dict] | None:
    """Table rows from a link's ``points=n:kappa,…``, checked like typed ones."""
    if not text:
        return None
    rows = forms.parse_points_text(str(text)[:20_000])
    forms.rows_to_points(rows)
    return rows


# ---- link


def page_query(view: str, explore: dict | None = None, census: dict | None = None,
               forecast: dict | None = None) -> str:
    """The ``?…`` of the current view: the view and its own settings only (a link shows one view)."""
    from urllib.parse import urlencode

    q = {"view": parse_view(view)}
    part = {"explore": explore, "census": census, "forecast": forecast}[q["view"]]
    q.update({k: v for k, v in (part or {}).items() if v not in (None, "")})
    return "?" + urlencode(q, safe=",:;-")


# --------------------------------------------------------------------------- helpers

def ages_text(scenario: Scenario) -> str:
    lo, hi = scenario.ages
    return f"{lo:g}-{hi:g}" if math.isfinite(hi) else f"{lo:g}+"


def example_rows() -> list[dict]:
    return [{"n": a, "kappa": b} for a, b in EXAMPLE_POINTS]


def _try(parse, value, default, notices: list, what: str):
    if value is None:
        return default
    try:
        return parse(value)
    except InputError as exc:
        notices.append(_("Ignoring {what} in the link: {problem}").format(what=what, problem=exc))
        return default


# --------------------------------------------------------------------------- what the callbacks show (pure)

LAW_NOTE = N_("The CLI prints κ, Ξ and the shares violating 2-, 5- and 10-anonymity.")


def render_law(h_bits, gamma, k, cursor) -> dict:
    """New (h, γ, k): the curves, the readouts at the cursor (the default n when it does not parse),
    the law's parameters and the command; InputError for values the law cannot take."""
    law = law_curves(h_bits, gamma, k)
    try:
        n = parse_cursor(cursor)
    except InputError:
        n = DEFAULT_CURSOR
    values = law_at(law.d, law.alpha, law.k, n)
    cmd = law_command(law.h_bits, law.gamma, sorted({1e4, 1e6, n, WORLD}))
    return {"figure": law_figure(law.h_bits, law.gamma, law.k, n), "readouts": readout_cards(n, values, law.k),
            "params": law_params(law), "command": command_block(cmd, _(LAW_NOTE))}


def render_cursor(cursor, h_bits, gamma, k) -> dict:
    """The cursor moved: what changes in the chart (``{trace: {prop: value}}``), the readouts and the command."""
    n = parse_cursor(cursor)
    h_bits, gamma, k = parse_h(h_bits), parse_gamma(gamma), parse_k(k)
    d, alpha = scaling.from_h_gamma(scaling.bits_to_nats(h_bits), gamma)
    values = law_at(d, alpha, k, n)
    cmd = law_command(h_bits, gamma, sorted({1e4, 1e6, n, WORLD}))
    return {"patch": figs.cursor_patch_values(n, values[:3]), "readouts": readout_cards(n, values, k),
            "command": command_block(cmd, _(LAW_NOTE))}


def link_query(view, h_bits, gamma, k, cursor, country, sexes, ages, body, hw, ww, aux, users, rows, holdout) -> str:
    """The address bar's query for the current view (InputError when a setting of that view does not parse)."""
    explore = census = forecast = None
    view = parse_view(view)
    if view == "explore":
        explore = {"h": f"{parse_h(h_bits):g}", "gamma": f"{parse_gamma(gamma):g}", "k": str(parse_k(k)),
                   "n": _num_arg(parse_cursor(cursor))}
    elif view == "census":
        census = dict(census_scenario(country, sexes, ages, body, hw, ww, aux).to_query())
        census["users"] = _num_arg(parse_users(users))
    else:
        n, kk = forms.rows_to_points(rows)
        forecast = {"holdout": str(parse_holdout(holdout, n.size))}
        if n.size <= MAX_POINTS_IN_LINK:
            forecast["points"] = ",".join(f"{_num_arg(a)}:{b:.6g}" for a, b in zip(n, kk, strict=True))
    return page_query(view, explore, census, forecast)


def census_query(country, sexes, ages, body, hw, ww, aux, users) -> str:
    """The census view's ``?…`` (InputError when a setting does not parse); the browser puts it in the address bar."""
    return link_query("census", None, None, None, None, country, sexes, ages, body, hw, ww, aux, users, None, None)


def forecast_query(rows, holdout) -> str:
    """The forecast view's ``?…`` (InputError when the points do not parse)."""
    return link_query("forecast", None, None, None, None, None, None, None, None, None, None, None, None, rows,
                      holdout)


def client_config() -> dict:
    """What the page's clientside callbacks (assets/scaling.js) check and use: the limits of the explore
    view's numbers, the cursor presets and each data set's population (the country preset)."""
    pops = {}
    for option in country_preset_options():
        pop = country_population(option["value"])
        if pop:
            pops[option["value"]] = pop
    return {"h": list(H_LIMITS), "gamma": list(GAMMA_LIMITS), "k": [2, max(K_CHOICES)], "n": [1, WORLD],
            "presets": dict(CURSOR_PRESETS), "populations": pops}


class LinkSettings(NamedTuple):
    """What a link asks every view to show, repaired (bad values are reported in ``notices``)."""

    view: str
    h_bits: float
    gamma: float
    k: int
    cursor: float
    scenario: Scenario
    code: str
    app_users: float
    rows: list
    holdout: int
    notices: tuple[str, ...]


def settings_from_link(view=None, h=None, gamma=None, k=None, n=None, users=None, points=None, holdout=None,
                       **query) -> LinkSettings:
    """Parse a link's query; every part that does not parse is reported and replaced by its default."""
    notices: list[str] = []
    if view is not None and view not in VIEWS:
        notices.append(_("Unknown view {view} in the link; showing “{name}”.").format(
            view=repr(str(view)[:20]), name=_("Explore the law")))
    view = parse_view(view)
    h_bits = _try(parse_h, h, DEFAULT_H_BITS, notices, "h")
    g = _try(parse_gamma, gamma, DEFAULT_GAMMA, notices, "γ")
    kk = _try(parse_k, k, DEFAULT_K, notices, "k") if view == "explore" else DEFAULT_K
    cursor = _try(parse_cursor, n, DEFAULT_CURSOR, notices, "n")
    app_users = _try(parse_users, users, DEFAULT_APP_USERS, notices, _("app users"))
    scen_q = {key: query[key] for key in ("country", "sex", "ages", "body", "height_width", "weight_width", "aux",
                                          "bmi") if key in query}
    try:
        scenario = Scenario.from_query(scen_q) if scen_q else Scenario()
    except InputError as exc:
        notices.append(_("Ignoring the census settings in the link: {problem}").format(problem=exc))
        scenario = Scenario()
    code = scenario.countries[0]
    if scenario.user_aux:
        notices.append(_("Your own auxiliary percentages from the link are not offered in this view; "
                         "its presets are."))
    if len(scenario.countries) > 1:
        notices.append(_("The census view shows one country: {code} (the first of {codes}).").format(
            code=code, codes=", ".join(scenario.countries)))
    rows = example_rows()
    if points:
        try:
            rows = points_from_query(points)
        except InputError as exc:
            notices.append(_("Ignoring the points in the link: {problem}").format(problem=exc))
    hold = _try(lambda v: int(forms.number(v, _("Held-out points"), lo=0, hi=3)), holdout, DEFAULT_HOLDOUT, notices,
                "holdout")
    return LinkSettings(view, h_bits, g, kk, cursor, scenario, code, app_users, rows, hold, tuple(notices))


def warm() -> None:
    """Before gunicorn forks: the answers each view opens with, memoised (the example's fits take ~0.3 s)."""
    render_law(DEFAULT_H_BITS, DEFAULT_GAMMA, DEFAULT_K, DEFAULT_CURSOR)
    s = Scenario()
    render_census(s.countries[0], list(s.sexes), ages_text(s), ["body"] if s.include_body else [],
                  s.height_width, s.weight_width, [], DEFAULT_APP_USERS)
    render_forecast(example_rows(), DEFAULT_HOLDOUT)




def _sync(trigger, slider_id, slider, value, lo, hi):
    if trigger == slider_id:
        return no_update, slider
    if isinstance(value, (int, float)) and math.isfinite(value):
        return min(max(float(value), lo), hi), no_update
    return no_update, no_update


_CENSUS_VIEWS = Memo(32, name="views.scaling.census_views")
#: The curves over DEFAULT_NS and the population of a partition: a new number of app users costs
#: one more exact κ, not 240.
_CENSUS_CURVES = Memo(16, name="views.scaling.census_curves")


def render_census(country, sexes, ages, body, hw, ww, aux, users) -> dict:
    """Everything the census view shows (pure; tested without a browser).

    Memoised on the validated scenario, its (memoised) partition and n — the exact κ over 240
    gallery sizes takes ~0.1 s for Germany — and shared between requests: treat the answer as read-only.
    """
    scenario = census_scenario(country, sexes, ages, body, hw, ww, aux)
    app_n = parse_users(users)
    code = scenario.countries[0]
    part = scaling.census_partition(scenario, code)
    return _CENSUS_VIEWS.get((part, scenario, app_n, current_language()),
                             lambda: _census_view(scenario, code, part, app_n))


def _census_view(scenario: Scenario, code: str, part: scaling.CensusPartition, app_n: float) -> dict:
    population = _CENSUS_CURVES.get(part, lambda: scaling.census_scaling(
        scenario, code, np.union1d(scaling.DEFAULT_NS, [float(max(part.records, 1))])))
    rows = scaling.gallery_sizes(population, app_n)
    values = scaling.census_values(population, rows)
    sc = scaling.with_gallery_size(population, app_n, *values[float(app_n)])
    notes = scenario_notes(scenario, code)
    return {
        "c-sentence": census_sentence(sc, app_n, values),
        "c-summary": census_summary(sc),
        "c-graph": figs.census_figure(sc.n, sc.exact, sc.pyc, part.records, country.country_name(code), app_n),
        "c-table": census_table(sc, app_n, values),
        "c-notes": census_notes(sc, notes),
        "c-command": command_block(scaling.to_cli(scenario, code, rows)),
    }


def points_from_source(trigger, contents, filename, pasted, rows) -> tuple[list[dict], object]:
    if trigger == ID["f-add"]:
        rows = list(rows or [])
        if len(rows) >= MAX_POINTS:
            limits.check_points(len(rows) + 1)
        return rows + [{"n": None, "kappa": None}], None
    if trigger == ID["f-example"]:
        return example_rows(), None
    if trigger == ID["f-clear"]:
        return [{"n": None, "kappa": None}, {"n": None, "kappa": None}], None
    if trigger == ID["f-use-paste"]:
        new = forms.parse_points_text(pasted)
        limits.check_points(len(new), _("The pasted text"))
        return new, html.Div(ngettext("{count} point from the pasted text.", "{count} points from the pasted text.",
                                      len(new)).format(count=format_count(len(new))), className="field-help")
    if trigger == ID["f-upload"]:
        new = forms.parse_csv(contents, filename)
        limits.check_points(len(new), _("The file"))
        return new, html.Div(ngettext("{count} point from {file}.", "{count} points from {file}.", len(new)).format(
            count=format_count(len(new)), file=str(filename or _("the file"))[:80]), className="field-help")
    raise PreventUpdate


_FORECAST_VIEWS = Memo(32, name="views.scaling.forecast_views")


def render_forecast(rows, holdout) -> dict:
    """Everything the forecast view shows for table rows and a held-out count (pure).

    Memoised on the validated points and held-out count (fitting four models and the jackknife
    band takes ~0.3 s; the example is every visitor's first answer) and shared between
    requests: treat the answer as read-only.
    """
    if isinstance(rows, list):
        limits.check_points(len(rows))
    n, k = forms.rows_to_points(rows)
    hold = parse_holdout(holdout, n.size)
    key = (np.asarray(n, dtype=float).tobytes(), np.asarray(k, dtype=float).tobytes(), hold, current_language())
    return _FORECAST_VIEWS.get(key, lambda: _forecast_view(n, k, hold))


def _forecast_view(n: np.ndarray, k: np.ndarray, hold: int) -> dict:
    sizes = forecast_sizes(float(n.max()))
    at = np.unique(np.concatenate([np.geomspace(1.0, WORLD, 160), sizes, n]))
    fc = scaling.forecast((n, k), at=at, holdout=hold)
    band = (fc.band.lower, fc.band.upper) if fc.band.available else None
    cmd = forecast_command(n, k, hold)
    return {
        "f-graph": figs.forecast_figure(n, k, at, fc.predictions, band, held_out=hold),
        "f-models": models_table(fc, sizes),
        "f-band": band_text(fc, hold),
        "f-formulas": formulas_list(fc),
        "f-command": command_block(cmd, "" if cmd else _(
            "{count} points are too many for a one-line command; the CLI takes --points \"n:kappa,n:kappa,…\"."
        ).format(count=format_count(n.size))),
    }
