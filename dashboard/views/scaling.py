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
from dash import dash_table, dcc, html, no_update
from dash.exceptions import PreventUpdate

import census_loaders as cl
from dashboard import forms, ids
from dashboard.components import card, chart_reading, command_block, field
from dashboard.core import country, memo, regions, scaling
from dashboard.core.body import BAND_WIDTHS
from dashboard.core.errors import InputError
from dashboard.core.groups import SEXES
from dashboard.core.memo import Memo
from dashboard.core.regions import Scenario
from dashboard.core.text import format_count, format_number, format_small
from dashboard.figures import scaling as figs
from dashboard.figures.style import GRAPH_CONFIG, message_figure, short_number
from dashboard.server import limits

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
    h = forms.number(value, "Entropy h (bits)", lo=H_LIMITS[0], hi=H_LIMITS[1], required=True)
    return h


def parse_gamma(value) -> float:
    return forms.number(value, "Tail complexity γ", lo=GAMMA_LIMITS[0], hi=GAMMA_LIMITS[1], required=True)


def parse_k(value) -> int:
    k = forms.number(value, "k", lo=2, hi=max(K_CHOICES), required=True)
    if k != int(k):
        raise InputError("k: please choose a whole number of records")
    return int(k)


def parse_cursor(value) -> float:
    n = forms.number(value, "Gallery size n", lo=1, hi=WORLD, required=True)
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


@memo.lru(256)
def law_figure(h_bits: float, gamma: float, k: int, n: float) -> dict:
    """The explore chart of validated (h, γ, k) with its cursor at n; memoised and shared: read-only."""
    law = _law(h_bits, gamma, k)
    return figs.law_figure(LAW_NS, law.kappa, law.xi, law.viol, k, n, law_at(law.d, law.alpha, k, n)[:3])


def clear_caches() -> None:
    """Forget memoised curves, figures and views (tests, benchmarks)."""
    _law.cache_clear()
    law_at.cache_clear()
    law_figure.cache_clear()
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
            out.append({"label": f"{info.get('name', code)} ({short_number(float(f'{float(pop):.3g}'))})",
                        "value": code})
    return out


def tail_text(d: float, alpha: float, gamma: float) -> str:
    """What (d, α) means, in words."""
    if d < 0:
        return (f"finite support: a symmetric Dirichlet over K = −α/d ≈ {format_count(-alpha / d)} sets "
                "(γ < 0, more even than geometric)")
    if d == 0:
        return "geometric tail (d = 0, a Dirichlet process)"
    return "heavy, power-law tail (d > 0): many rare sets" + (" — the heaviest kind (γ ≥ 1, α ≤ 0)" if gamma >= 1 else "")


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
        raise InputError("Country: please choose a country")
    q = {"country": str(country), "sex": ",".join(sexes or []), "ages": str(ages or "").strip() or "18-75",
         "body": "1" if body else "0"}
    if not sexes:
        raise InputError("Sex: choose at least one sex")
    q["height_width"] = str(forms.width(height_width, "Height band"))
    q["weight_width"] = str(forms.width(weight_width, "Weight band"))
    if aux:
        q["aux"] = ";".join(aux)
    if k is not None:
        q["k"] = str(k)
    s = Scenario.from_query(q)
    limits.check_scenario(s, scaling.to_cli(s), what="This census view")
    return s


def parse_users(value) -> float:
    n = forms.number(value, "App users n", lo=1, hi=WORLD, required=True)
    if n != int(n):
        raise InputError("App users n: please enter a whole number")
    return n


# ---- forecast


def parse_holdout(value, n_points: int) -> int:
    h = forms.number(value, "Held-out points", lo=0, hi=max(HOLDOUT_CHOICES))
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


# --------------------------------------------------------------------------- rendering (pure)


def readout_cards(n: float, values: tuple[float, float, float, float], k: int) -> list:
    kappa, xi, viol, sets = values
    return [
        card("Gallery size n", figs.n_label(n), "records the attacker matches against (an app's users)", tooltip=True),
        card("Correctness", figs.pct(kappa), "share of records exact matching identifies correctly",
             value_id=_id("readout-kappa"), tooltip=True, formula="the expected correctness κ(n) of the law"),
        card("Uniqueness", figs.pct(xi), "share of records alone in their anonymity set", value_id=_id("readout-xi"),
             tooltip=True, formula="the expected uniqueness Ξ(n) of the law"),
        card(f"Violating {k}-anonymity", figs.pct(viol), f"share of records in sets of fewer than {k}",
             value_id=_id("readout-viol"), tooltip=True),
        card("Distinct sets", format_count(sets) if sets >= 1 else format_small(sets, 3),
             "expected number of different attribute combinations among the n records", tooltip=True,
             formula="E[Kₙ], the expected number of distinct sets among n records"),
    ]


def law_params(law: Law) -> html.Div:
    h_nats = scaling.bits_to_nats(law.h_bits)
    return html.Div([
        html.Div([html.Span("Pitman–Yor parameters: ", className="muted"),
                  html.B(f"d = {figs.sci(law.d)}, α = {figs.sci(law.alpha)}", id=_id("dalpha"))],
                 className="law-dalpha"),
        html.Div(f"h = {law.h_bits:g} bits = {h_nats:.4g} nats; γ = {law.gamma:g} — {tail_text(law.d, law.alpha, law.gamma)}.",
                 className="field-help"),
        html.Div("h = ψ(α+1) − ψ(1−d),  γ = [ψ(1) − ψ(1−d)] / h", className="formula"),
    ])


def census_summary(sc: scaling.CensusScaling) -> list:
    part, fit = sc.partition, sc.fit
    gap = sc.max_gap()
    support = f" · finite support ≈ {format_count(fit.support)} sets" if fit.support else ""
    return [
        card("Fitted entropy", f"{fit.h_bits:.2f} bits", "how much the attributes tell people apart: each bit "
             "halves the crowd", value_id=_id("c-h"), tooltip=True, formula=f"h = {fit.h:.3f} nats"),
        card("Tail complexity γ", f"{fit.gamma:.3g}", tail_text(fit.d, fit.alpha, fit.gamma).split(":")[0],
             value_id=_id("c-gamma"), tooltip=True),
        card("(d, α)", [f"d = {figs.sci(fit.d, 3)}", html.Br(), f"α = {figs.sci(fit.alpha, 3)}"],
             f"Pitman–Yor discount and concentration{support}", tooltip=True),
        card("Anonymity sets", f"{part.n_sets:,}", f"holding {format_count(part.records)} people "
             f"(largest {part.largest:,}; {part.singletons:,} of one person)", tooltip=True),
        card("Largest gap", f"{100 * gap:.1f} pp" if math.isfinite(gap) else "–",
             "largest difference between the exact and the fitted κ(n) inside the population", tooltip=True),
    ]


def census_table(sc: scaling.CensusScaling, app_n: float, values: dict) -> html.Table:
    """κ at the table's gallery sizes (``values`` from :func:`census_values` of :func:`census_rows`)."""
    body = []
    for n in scaling.gallery_sizes(sc, app_n):
        exact, law = values[n]
        tags = []
        if n == app_n:
            tags.append("your app")
        if n == sc.partition.records:
            tags.append("the whole population")
        if n == WORLD:
            tags.append("the world")
        label = figs.n_label(n) + (f" ({', '.join(tags)})" if tags else "")
        diff = "–" if exact is None else f"{100 * (law - exact):+.1f}".replace("-0.0", "0.0").replace("+0.0", "0.0")
        body.append(html.Tr([html.Td(label), html.Td(figs.pct(exact), className="num"),
                             html.Td(figs.pct(law), className="num"), html.Td(diff, className="num")]))
    return html.Table([
        html.Thead(html.Tr([html.Th("Gallery of n residents"), html.Th("exact κ", className="num"),
                            html.Th("PYC κ", className="num"), html.Th("PYC − exact (pp)", className="num")])),
        html.Tbody(body),
    ], className="table")


def _attributes(s: Scenario) -> str:
    parts = ["district", "sex" if len(s.sexes) == 2 else None, "age group"]
    if s.include_body:
        parts += [f"{s.height_width} cm height band", f"{s.weight_width} kg weight band"]
    parts += [a if isinstance(a, str) else a.name for a in s.aux]
    return ", ".join(p for p in parts if p)


def _who(part: scaling.CensusPartition) -> str:
    s = part.scenario
    people = {("female",): "women", ("male",): "men"}.get(s.sexes, "residents")
    ages = f"{s.ages[0]:g}–{s.ages[1]:g}" if math.isfinite(s.ages[1]) else f"{s.ages[0]:g} and over"
    return f"{part.name}'s {people} aged {ages}"


def census_sentence(sc: scaling.CensusScaling, app_n: float, values: dict) -> str:
    """The view's answer in one sentence: how accurately exact matching identifies an app's users."""
    part = sc.partition
    exact, law = values[float(app_n)]
    head = (f"In an app of {figs.n_label(app_n)} users drawn from {_who(part)}, exact matching on "
            f"{_attributes(part.scenario)} would pick the right person for ")
    if exact is None:
        return (head + f"about {figs.pct(law)} of them by the fitted law — more users than the "
                f"{format_count(part.records)} people the census describes, so only the law can say.")
    return head + f"{figs.pct(exact)} of them (exact, from the census); the fitted law says {figs.pct(law)}."


def census_notes(sc: scaling.CensusScaling, notes) -> list:
    part = sc.partition
    own = [
        f"Each plausible cell is one anonymity set of its expected size rounded to whole people; "
        f"{part.zero_cells:,} of {part.n_cells:,} cells round to 0 (holding {part.zero_mass:,.0f} expected people) "
        "and are no set.",
        f"Partition of {format_count(part.records)} people built in {part.seconds:.2f} s; fit: {sc.fit.message}.",
    ]
    return [html.Li(n) for n in (*own, *notes)]


def models_table(fc: scaling.Forecast, sizes: np.ndarray) -> html.Table:
    idx = [int(np.argmin(np.abs(fc.at - s))) for s in sizes]
    head = [html.Th("Model"), html.Th("Parameters"), html.Th("Fit RMSE", className="num"),
            html.Th("Held-out RMSE", className="num")]
    head += [html.Th(f"κ at {figs.n_label(s)}", className="num") for s in sizes]
    body = []
    for name, m in fc.models.items():
        label = name + (" (our form)" if name in ("EXP", "POL") else "")
        if not m.available:
            body.append(html.Tr([html.Td(label), html.Td(f"not available: {m.reason}", colSpan=3 + len(sizes),
                                                         className="unavailable")], **{"data-model": name}))
            continue
        hold = fc.holdout.get(name)
        hold_text = "–" if hold is None else (f"{100 * hold.rmse:.2f} pp" if hold.available else "n/a")
        cells = []
        pred = fc.predictions[name]
        for i in idx:
            text = [figs.pct(float(pred[i]))]
            if name == "PYC-MB" and fc.band.available:
                text.append(html.Div(f"{figs.pct(float(fc.band.lower[i]))} – {figs.pct(float(fc.band.upper[i]))}",
                                     className="band-range", title="jackknife band"))
            cells.append(html.Td(html.Div(text), className="num", **{"data-label": head[4 + len(cells)].children}))
        note = [html.Div(m.note, className="field-help")] if m.note else []
        if hold is not None and not hold.available:
            note.append(html.Div(f"held-out check: {hold.reason}", className="field-help"))
        values = [label, [_params_text(name, m.params), *note], f"{100 * m.rmse:.2f} pp", hold_text]
        body.append(html.Tr([html.Td(v, className="num" if i > 1 else None, **{"data-label": head[i].children})
                             for i, v in enumerate(values)] + cells, **{"data-model": name}))
    return html.Table([html.Thead(html.Tr(head)), html.Tbody(body)], className="table models-table stack-on-phone")


def _params_text(name: str, p: dict) -> str:
    if name == "PYC-MB":
        return (f"h = {format_number(p['h_bits'])} bits, γ = {format_number(p['gamma'])} "
                f"(d = {figs.sci(p['d'], 3)}, α = {figs.sci(p['alpha'])})")
    if name == "ENT":
        return f"h = {format_number(p['h_bits'])} bits (K = {format_number(p['K'], 4)} sets)"
    if name == "EXP":
        return f"c = {format_number(p['c'])}, λ = {figs.sci(p['lambda'], 3)}"
    return f"a = {format_number(p['a'])}, b = {format_number(p['b'])}"


def formulas_list(fc: scaling.Forecast) -> html.Dl:
    items = []
    for name, m in fc.models.items():
        items += [html.Dt(name + (" — our form" if name in ("EXP", "POL") else "")),
                  html.Dd(html.Code(m.formula), className="formula")]
    return html.Dl(items, className="formulas")


def band_text(fc: scaling.Forecast, holdout: int) -> str:
    parts = []
    if fc.band.available:
        parts.append(f"Band: {fc.band.method}.")
    else:
        parts.append(f"No PYC-MB band: {fc.band.reason}.")
    if holdout:
        parts.append(f"Held-out RMSE: each model refitted without the {holdout} largest-n point(s) and scored on "
                     "them (a check of extrapolation).")
    else:
        parts.append("No points held out (choose 1–3 to check how each model extrapolates).")
    parts.append("Weights ln(n) as in the paper; the paper's supplement, which defines its own EXP and POL, is not "
                 "available, so EXP and POL here are our forms.")
    return " ".join(parts)


# --------------------------------------------------------------------------- layout


def _sliderfield(label, slider_id, input_id, lo, hi, step, value, marks, help_text):
    return html.Div([
        html.Label(label, htmlFor=input_id, className="field-label"),
        html.Div([
            html.Div(dcc.Slider(id=slider_id, min=lo, max=hi, step=step, value=min(max(value, lo), hi), marks=marks,
                                allow_direct_input=False, updatemode="mouseup", tooltip={"placement": "bottom"}),
                     className="slider-box"),
            dcc.Input(id=input_id, type="number", value=value, debounce=True, step="any", inputMode="decimal"),
        ], className="slider-row"),
        html.Div(help_text, className="field-help"),
    ], className="field")


def explore_section(h_bits, gamma, k, cursor):
    marks_n = {0: "1", 3: "1k", 6: "1M", 9: "1B"}
    controls = html.Section([
        _sliderfield("Entropy h (bits)", ID["h-slider"], ID["h-input"], *H_SLIDER, 0.1, h_bits,
                      {v: f"{v:g}" for v in (1, 10, 20, 30, 40)},
                      "How much the attributes tell apart: like 2^h equally likely sets."),
        _sliderfield("Tail complexity γ", ID["gamma-slider"], ID["gamma-input"], *GAMMA_SLIDER, 0.01, gamma,
                      {-2: "−2", -1: "−1", 0: "0", 1: "1"},
                      "γ < 0: finite, even support · γ = 0: geometric tail · γ → 1: heavy tail."),
        field("k for k-anonymity", dcc.Dropdown(id=ID["k"], options=[{"label": str(v), "value": v} for v in K_CHOICES],
                                                 value=k, clearable=False, searchable=False),
               "A record violates k-anonymity when fewer than k records share its attributes.", ID["k"]),
        html.Div(id=ID["law-params"], className="law-params"),
    ], className="panel scaling-controls", **{"aria-label": "Law parameters"})
    cursor_box = html.Div([
        html.Label("Cursor: gallery size n", htmlFor=ID["cursor-input"], className="field-label"),
        html.Div([
            html.Div(dcc.Slider(id=ID["cursor-slider"], min=0, max=math.log10(WORLD), step=0.01,
                                value=math.log10(cursor), marks=marks_n, allow_direct_input=False,
                                updatemode="drag"), className="slider-box"),
            dcc.Input(id=ID["cursor-input"], type="number", value=cursor, debounce=True, step="any"),
        ], className="slider-row"),
        html.Div([
            html.Button("App, 10k users", id=ID["preset-10k"], className="button secondary", n_clicks=0),
            html.Button("App, 1M users", id=ID["preset-1m"], className="button secondary", n_clicks=0),
            html.Button("Earth, 8B", id=ID["preset-earth"], className="button secondary", n_clicks=0),
            html.Div(dcc.Dropdown(id=ID["preset-country"], options=country_preset_options(), value=None,
                                  placeholder="A country's population…", clearable=True),
                     className="preset-country"),
        ], className="preset-buttons"),
    ], className="cursor-box")
    results = html.Section([
        html.Div(id=ID["law-message"], role="alert"),
        html.Div(id=ID["readouts"], className="cards readouts", **{"aria-live": "polite"}),
        chart_reading(figs.READING["law"]),
        dcc.Graph(id=ID["law-graph"], config=GRAPH_CONFIG, figure=message_figure("Computing…")),
        cursor_box,
        html.H2("Reproduce this"),
        html.Div(id=ID["law-command"]),
    ], className="scaling-results", **{"aria-label": "The law's curves"})
    intro = html.P([
        "For galleries of n records drawn from a population whose anonymity sets follow a Pitman–Yor process, "
        "the expected ", html.B("correctness κ(n)"), " of exact matching (the share of records an attacker "
        "identifies correctly by picking at random among matches), the ", html.B("uniqueness Ξ(n)"),
        " and the share of records violating k-anonymity, all from two numbers: the entropy h and the tail "
        "complexity γ (Rocher, Hendrickx & de Montjoye, 2025).",
    ], className="lead")
    return html.Div([intro, html.Div([controls, results], className="scaling-grid")])


def census_section(scenario: Scenario, code: str, users: float):
    aux_opts = [{"label": t["name"], "value": t["id"]} for t in cl.auxiliary_tables(code)]
    presets = [a for a in scenario.aux if isinstance(a, str)]
    width_opts = lambda unit: [{"label": f"{w} {unit}", "value": w} for w in BAND_WIDTHS]  # noqa: E731
    ages = _ages_text(scenario)
    controls = html.Section([
        field("Country", dcc.Dropdown(id=ID["c-country"], value=code, clearable=False,
                                       options=country.country_options(cl.manifest())), control_id=ID["c-country"]),
        field("Sex", dcc.Checklist(id=ID["c-sex"], options=[{"label": f" {s}", "value": s} for s in SEXES],
                                    value=list(scenario.sexes), inline=True, className="radio"),
               control_id=ID["c-sex"]),
        field("Ages", dcc.Input(id=ID["c-ages"], type="text", value=ages, debounce=True, maxLength=12),
               "The study population [from, to), e.g. 18-75 or 65+.", ID["c-ages"]),
        field("Height × weight", dcc.Checklist(id=ID["c-body"], options=[{"label": " include height and weight bands",
                                                                           "value": "body"}],
                                                value=["body"] if scenario.include_body else [],
                                                className="checklist scaling-check"),
               control_id=ID["c-body"]),
        html.Div([
            field("Height band", dcc.Dropdown(id=ID["c-height-width"], options=width_opts("cm"),
                                               value=scenario.height_width, clearable=False, searchable=False),
                   control_id=ID["c-height-width"]),
            field("Weight band", dcc.Dropdown(id=ID["c-weight-width"], options=width_opts("kg"),
                                               value=scenario.weight_width, clearable=False, searchable=False),
                   control_id=ID["c-weight-width"]),
        ], className="row2"),
        field("Auxiliary knowledge", dcc.Checklist(id=ID["c-aux"], options=aux_opts, value=presets,
                                                    className="checklist scaling-check"),
               "What else the attacker knows (presets of this country).", ID["c-aux"]),
        field("App users n", dcc.Input(id=ID["c-users"], type="number", value=users, debounce=True, step="any"),
               "Residents whose records the app holds: the gallery size.", ID["c-users"]),
    ], className="panel scaling-controls", **{"aria-label": "Census scenario"})
    results = html.Section([
        html.Div(id=ID["c-message"], role="alert"),
        dcc.Loading(html.Div([
            html.P(id=ID["c-sentence"], className="verdict"),
            html.Div(id=ID["c-summary"], className="cards"),
            chart_reading(figs.READING["census"]),
            dcc.Graph(id=ID["c-graph"], config=GRAPH_CONFIG, figure=message_figure("Computing…")),
            html.Div(id=ID["c-table"]),
            html.Ul(id=ID["c-notes"], className="notes"),
        ]), type="default", delay_show=300),
        html.H2("Reproduce this"),
        html.Div(id=ID["c-command"]),
    ], className="scaling-results", **{"aria-label": "Census partition and fit"})
    intro = html.P(
        "Every plausible district × sex × age × height × weight cell of a census scenario is an anonymity set of "
        "its expected size. Rounded to whole people, these sets are a real population: their exact correctness "
        "for an app of n residents (galleries drawn without replacement) is drawn beside the Pitman–Yor law "
        "fitted to them by maximum likelihood — how well two numbers describe a country. The scenario is the "
        "regional explorer's, with the same link settings.", className="lead")
    return html.Div([intro, html.Div([controls, results], className="scaling-grid")])


def _ages_text(scenario: Scenario) -> str:
    lo, hi = scenario.ages
    return f"{lo:g}-{hi:g}" if math.isfinite(hi) else f"{lo:g}+"


def _example_rows() -> list[dict]:
    return [{"n": a, "kappa": b} for a, b in EXAMPLE_POINTS]


def forecast_section(rows: list[dict], holdout: int):
    controls = html.Section([
        html.H2("Measured correctness", className="panel-title"),
        html.P("Type or paste the correctness κ̂ you measured at several gallery sizes n (any technique: exact, "
               "sparse or machine-learning matching).", className="field-help"),
        dash_table.DataTable(
            id=ID["f-table"], data=rows, editable=True, row_deletable=True, page_size=12,
            columns=[{"name": "gallery size n", "id": "n", "type": "numeric"},
                     {"name": "measured κ", "id": "kappa", "type": "numeric"}],
            style_cell={"textAlign": "right", "padding": "4px 8px", "width": "50%", "minWidth": "5em"},
            style_header={"fontWeight": "600", "textAlign": "right"},
            style_table={"overflowX": "auto", "width": "100%"},
        ),
        html.Div([
            html.Button("Add row", id=ID["f-add"], className="button secondary", n_clicks=0),
            html.Button("Example", id=ID["f-example"], className="button secondary", n_clicks=0),
            html.Button("Clear", id=ID["f-clear"], className="button secondary", n_clicks=0),
        ], className="buttons"),
        field("Paste points", dcc.Textarea(id=ID["f-paste"], placeholder="n,kappa per line, e.g.\n100,0.99\n1000,0.80",
                                            className="paste-box", maxLength=forms.MAX_CSV_BYTES),
               "One n,kappa per line (a header line is optional), or n:kappa,n:kappa.", ID["f-paste"]),
        html.Button("Use pasted points", id=ID["f-use-paste"], className="button", n_clicks=0),
        dcc.Upload(id=ID["f-upload"], children=html.Div(["Drop a CSV here or ", html.U("choose a file")]),
                   className="upload-box", accept=".csv,.txt,text/csv,text/plain", max_size=UPLOAD_REFUSED_BYTES),
        html.Div(f"CSV with columns n,kappa; at most {MAX_POINTS:,} points and 1 MB. κ̂ in [0, 1], n ≥ 1, each n "
                 "once, at least two points with n > 1.", className="field-help"),
        html.Div(id=ID["f-load-message"], role="alert"),
        field("Held-out points", dcc.Dropdown(id=ID["f-holdout"], value=holdout, clearable=False, searchable=False,
                                               options=[{"label": "none" if h == 0 else f"the {h} largest n",
                                                         "value": h} for h in HOLDOUT_CHOICES]),
               "Refit without the largest gallery sizes and score each model on them.", ID["f-holdout"]),
    ], className="panel scaling-controls", **{"aria-label": "Measurements"})
    results = html.Section([
        html.Div(id=ID["f-message"], role="alert"),
        dcc.Loading(html.Div([
            chart_reading(figs.READING["forecast"]),
            dcc.Graph(id=ID["f-graph"], config=GRAPH_CONFIG, figure=message_figure("Computing…")),
            html.Div(id=ID["f-models"], className="table-wrap"),
            html.P(id=ID["f-band"], className="field-help"),
            html.H2("Formulas"),
            html.Div(id=ID["f-formulas"]),
        ]), type="default", delay_show=300),
        html.H2("Reproduce this"),
        html.Div(id=ID["f-command"]),
    ], className="scaling-results", **{"aria-label": "Forecast"})
    intro = html.P(
        "PYC-MB fits the law to measured correctness (least squares with weights ln n) and extrapolates it to any "
        "gallery size, up to the world population; ENT, EXP and POL are simpler baselines fitted the same way. "
        "On the paper's corpora PYC-MB forecast a gallery ten times larger with an RMSE of about 5 percentage "
        "points for exact matching.", className="lead")
    return html.Div([intro, html.Div([controls, results], className="scaling-grid")])


def _try(parse, value, default, notices: list, what: str):
    if value is None:
        return default
    try:
        return parse(value)
    except InputError as exc:
        notices.append(f"Ignoring {what} in the link: {exc}")
        return default


# --------------------------------------------------------------------------- what the callbacks show (pure)

LAW_NOTE = "The CLI prints κ, Ξ and the shares violating 2-, 5- and 10-anonymity."


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
            "params": law_params(law), "command": command_block(cmd, LAW_NOTE)}


def render_cursor(cursor, h_bits, gamma, k) -> dict:
    """The cursor moved: what changes in the chart (``{trace: {prop: value}}``), the readouts and the command."""
    n = parse_cursor(cursor)
    h_bits, gamma, k = parse_h(h_bits), parse_gamma(gamma), parse_k(k)
    d, alpha = scaling.from_h_gamma(scaling.bits_to_nats(h_bits), gamma)
    values = law_at(d, alpha, k, n)
    cmd = law_command(h_bits, gamma, sorted({1e4, 1e6, n, WORLD}))
    return {"patch": figs.cursor_patch_values(n, values[:3]), "readouts": readout_cards(n, values, k),
            "command": command_block(cmd, LAW_NOTE)}


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
        notices.append(f"Unknown view {str(view)[:20]!r} in the link; showing “Explore the law”.")
    view = parse_view(view)
    h_bits = _try(parse_h, h, DEFAULT_H_BITS, notices, "h")
    g = _try(parse_gamma, gamma, DEFAULT_GAMMA, notices, "γ")
    kk = _try(parse_k, k, DEFAULT_K, notices, "k") if view == "explore" else DEFAULT_K
    cursor = _try(parse_cursor, n, DEFAULT_CURSOR, notices, "n")
    app_users = _try(parse_users, users, DEFAULT_APP_USERS, notices, "app users")
    scen_q = {key: query[key] for key in ("country", "sex", "ages", "body", "height_width", "weight_width", "aux",
                                          "bmi") if key in query}
    try:
        scenario = Scenario.from_query(scen_q) if scen_q else Scenario()
    except InputError as exc:
        notices.append(f"Ignoring the census settings in the link: {exc}")
        scenario = Scenario()
    code = scenario.countries[0]
    if scenario.user_aux:
        notices.append("Your own auxiliary percentages from the link are not offered in this view; "
                       "its presets are.")
    if len(scenario.countries) > 1:
        notices.append(f"The census view shows one country: {code} (the first of {', '.join(scenario.countries)}).")
    rows = _example_rows()
    if points:
        try:
            rows = points_from_query(points)
        except InputError as exc:
            notices.append(f"Ignoring the points in the link: {exc}")
    hold = _try(lambda v: int(forms.number(v, "held-out points", lo=0, hi=3)), holdout, DEFAULT_HOLDOUT, notices,
                "holdout")
    return LinkSettings(view, h_bits, g, kk, cursor, scenario, code, app_users, rows, hold, tuple(notices))


def warm() -> None:
    """Before gunicorn forks: the answers each view opens with, memoised (the example's fits take ~0.3 s)."""
    render_law(DEFAULT_H_BITS, DEFAULT_GAMMA, DEFAULT_K, DEFAULT_CURSOR)
    s = Scenario()
    render_census(s.countries[0], list(s.sexes), _ages_text(s), ["body"] if s.include_body else [],
                  s.height_width, s.weight_width, [], DEFAULT_APP_USERS)
    render_forecast(_example_rows(), DEFAULT_HOLDOUT)




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
    return _CENSUS_VIEWS.get((part, scenario, app_n), lambda: _census_view(scenario, code, part, app_n))


def _census_view(scenario: Scenario, code: str, part: scaling.CensusPartition, app_n: float) -> dict:
    population = _CENSUS_CURVES.get(part, lambda: scaling.census_scaling(
        scenario, code, np.union1d(scaling.DEFAULT_NS, [float(max(part.records, 1))])))
    rows = scaling.gallery_sizes(population, app_n)
    values = scaling.census_values(population, rows)
    sc = scaling.with_gallery_size(population, app_n, *values[float(app_n)])
    notes = regions.scenario_notes(scenario, code)
    return {
        "c-sentence": census_sentence(sc, app_n, values),
        "c-summary": census_summary(sc),
        "c-graph": figs.census_figure(sc.n, sc.exact, sc.pyc, part.records, part.name, app_n),
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
        return _example_rows(), None
    if trigger == ID["f-clear"]:
        return [{"n": None, "kappa": None}, {"n": None, "kappa": None}], None
    if trigger == ID["f-use-paste"]:
        new = forms.parse_points_text(pasted)
        limits.check_points(len(new), "The pasted text")
        return new, html.Div(f"{len(new):,} points from the pasted text.", className="field-help")
    if trigger == ID["f-upload"]:
        new = forms.parse_csv(contents, filename)
        limits.check_points(len(new), "The file")
        return new, html.Div(f"{len(new):,} points from {str(filename or 'the file')[:80]}.", className="field-help")
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
    key = (np.asarray(n, dtype=float).tobytes(), np.asarray(k, dtype=float).tobytes(), hold)
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
        "f-command": command_block(cmd, "" if cmd else
                                    f"{n.size:,} points are too many for a one-line command; the CLI takes "
                                    "--points \"n:kappa,n:kappa,…\"."),
    }
