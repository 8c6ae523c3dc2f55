"""AnonLand: is the estimated anonymity set right?  Checked on a synthetic country (SPEC §4).

The page opens from the shipped full-scale result (``data_cache/anonland``, loaded
once per process).  A smaller AnonLand can be rerun in the background:

* Dash's ``background=True`` callbacks need ``diskcache`` or Celery, and neither
  is installed, so the rerun is a **thread** started by the "Run" callback, polled
  by a ``dcc.Interval``.
* The job runner is :mod:`dashboard.server.jobs`: status, cancel flag and result live in the
  server-side cache (:mod:`dashboard.server.cache`), so the poll may reach any gunicorn worker.

Reruns are capped (:data:`MAX_PEOPLE`, :data:`MAX_CITIZENS_PER_CLASS`, at most
:data:`dashboard.server.jobs.MAX_RUNNING` at once per server, across its workers); at the cap a run takes about a second.

This module holds what the page computes or draws without a callback; the layout and the
callbacks are in :mod:`dashboard.pages.anonland`.
"""
from __future__ import annotations

import logging
from typing import NamedTuple

import pandas as pd
from dash import dcc, html, no_update

from dashboard import forms, ids
from dashboard.components import card, field, kv_table, model_switch, table
from dashboard.core import anonland as core
from dashboard.core import memo
from dashboard.core.body import MODEL_LABELS
from dashboard.core.errors import InputError
from dashboard.figures import anonland as figs
from dashboard.figures.style import GRAPH_CONFIG
from dashboard.server import limits
from dashboard.server.jobs import job_status, valid_job

PAGE = "anonland"
LOG = logging.getLogger("anonset.anonland")

#: Rerun limits, stated on the page.
MAX_PEOPLE = 10_250_000
MAX_CITIZENS_PER_CLASS = 400
SCALE_RANGE = (0.001, 0.1)
EPSILON_MAX = 1000.0
WIDTH_RANGE = (0.5, 50.0)
SEED_MAX = 2**32 - 1
#: Poll period of the progress display (ms).
POLL_MS = 400

DEFAULTS = dict(scale=0.01, epsilon=2.0, height_width=5, weight_width=5, citizens=200, seed=2026)
CLASS_NAMES = tuple(c.name for c in core.DEFAULT_CLASSES)


def _id(name: str) -> str:
    return ids.make(PAGE, name)


ID = {name: _id(name) for name in (
    "label", "back", "view-note", "census", "cards", "divergence", "divergence-table", "box", "box-table",
    "difference", "difference-table", "summary-table", "models-table", "class-table", "parameters", "run", "scale",
    "epsilon", "model",
    "height-width", "weight-width", "citizens", "seed", "start", "cancel", "progress", "progress-text",
    "progress-box", "message", "interval", "job", "view", "results",
)}
ID.update({f"size-{name}": _id(f"size-{name}") for name in CLASS_NAMES})


# --------------------------------------------------------------------------- the shipped result


@memo.lru(1)
def full_result() -> core.AnonLandResult | None:
    """The precomputed full-scale AnonLand, read once per process (None when the cache lacks it)."""
    try:
        return core.load_result()
    except FileNotFoundError:
        return None


# --------------------------------------------------------------------------- rerun input (pure)


def _plain(x: float) -> str:
    """10,250,000 rather than 1.025e+07 in a message; fractions as typed."""
    return f"{x:,.0f}" if float(x).is_integer() and abs(x) < 1e15 else f"{x:g}"


def _number(value, field: str, lo: float, hi: float, *, whole: bool = False, required: bool = True,
            lo_open: bool = False) -> float | None:
    """A number from the form within ``[lo, hi]`` (``(lo, hi]`` when ``lo_open``), with a message naming the field."""
    x = forms.number(value, field, required=required)
    if x is None:
        return None
    if whole and not float(x).is_integer():
        raise InputError(f"{field}: please enter a whole number, not {x:g}")
    if lo_open and x <= lo:
        raise InputError(f"{field}: must be greater than {lo:g} (got {x:g})")
    if x < lo or x > hi:
        raise InputError(f"{field}: {_plain(x)} is outside the allowed range {_plain(lo)} to {_plain(hi)}")
    return int(x) if whole else x


def build_rerun(scale, epsilon, height_width, weight_width, citizens, seed, sizes=(),
                model: str | None = "v2") -> core.AnonLandConfig:
    """Validate the rerun form and make its configuration; bad input raises InputError with a message.

    District sizes are the full-scale sizes times ``scale`` unless a size per class
    is given (empty = scaled).  The numbers of districts stay as in SPEC §4.
    """
    sizes = list(sizes) + [None] * (len(core.DEFAULT_CLASSES) - len(sizes))
    f = _number(scale, "Scale", *SCALE_RANGE)
    classes = []
    for c, given in zip(core.DEFAULT_CLASSES, sizes):
        size = _number(given, f"People per {c.name}", 1, MAX_PEOPLE, whole=True, required=False)
        if size is None:
            size = round(c.size * f)
            if size < 1:
                raise InputError(f"Scale: at {f:g} a {c.name} of {c.size:,} people would be empty")
        classes.append(core.DistrictClass(c.name, int(size), c.number))
    eps = _number(epsilon, "ε (privacy parameter)", 0, EPSILON_MAX, lo_open=True)
    hw = _number(height_width, "Height band (cm)", *WIDTH_RANGE)
    ww = _number(weight_width, "Weight band (kg)", *WIDTH_RANGE)
    k = _number(citizens, "Test citizens per class", 1, MAX_CITIZENS_PER_CLASS, whole=True)
    s = _number(seed, "Seed", 0, SEED_MAX, whole=True)
    population = sum(c.size * c.number for c in classes)
    if population > MAX_PEOPLE:
        cmd = limits.anonland_command(1, eps, hw, ww, k, s, model or "v2")  # only custom sizes get here
        raise limits.CostError(f"This AnonLand would have {population:,} people; reruns are limited to "
                               f"{MAX_PEOPLE:,} people on the page. Choose a smaller scale or smaller districts, "
                               f"or run the full AnonLand (no limit) on your own machine with: {cmd}")
    return core.AnonLandConfig(classes=tuple(classes), epsilon=eps, height_width=hw, weight_width=ww,
                               citizens_per_class=k, seed=s, body_model=model or "v2")


# --------------------------------------------------------------------------- rendering (pure)


def _table(rows: list[dict], caption: str | None = None):
    """A plain accessible table (scrolls sideways when narrow)."""
    return table(rows, caption, class_name="table anonland-table", wrap_class="anonland-scroll")


def _kv_table(pairs: list[tuple[str, str]], caption: str) -> html.Table:
    return kv_table(pairs, caption, class_name="table anonland-table anonland-kv")


def _details(rows: list[dict], summary: str = "The numbers behind this chart (table)") -> html.Details:
    return html.Details([html.Summary(summary), _table(rows)], className="details anonland-details")


def _pooled_share(summary: dict, keep) -> tuple[float | None, int]:
    """Share outside the band over several RAS ranges, weighted by their citizens."""
    rows = [r for r in summary.get("by_ras_range", []) if keep(r) and r["n"] and r["share_diverging"] is not None]
    n = sum(r["n"] for r in rows)
    return (sum(r["share_diverging"] * r["n"] for r in rows) / n if n else None), n


def small_crowd_error(below: float = 5) -> tuple[float | None, int, float]:
    """From the shipped AnonLand: the share of test citizens whose real crowd is under ``below`` and whose
    estimate is off by more than the divergence threshold, their number and the threshold (for the
    humility notes next to small results on other pages)."""
    result = full_result()
    summary = result.summary if result else {}
    share, n = _pooled_share(summary, lambda r: r["ras_hi"] is not None and r["ras_hi"] < below)
    return share, n, float(summary.get("divergence_threshold", core.DIVERGENCE_THRESHOLD))


def headline_cards(summary: dict, citizens: pd.DataFrame | None = None) -> list:
    """Four numbers that answer the question before the charts do (five with the citizens: the own set)."""
    t = summary.get("divergence_threshold", core.DIVERGENCE_THRESHOLD)
    large = summary.get("median_divergence_large_ras", {})
    nvp = summary.get("noisy_vs_plain", {})
    eps = summary.get("parameters", {}).get("epsilon")
    small_share, small_n = _pooled_share(summary, lambda r: r["ras_hi"] is not None and r["ras_hi"] < 5)
    big_share, big_n = _pooled_share(summary, lambda r: r["ras_lo"] >= 100)
    above = large.get("ras_above", core.LARGE_RAS)
    cards = [
        (f"Off by more than {t * 100:g} %, real crowd under 5", figs.share(small_share),
         f"Of the {small_n:,} test citizens who really share their attributes with fewer than 5 people (themselves "
         "included), this many get an estimate more than a quarter off." if small_n else
         "No test citizen here has a real crowd under 5."),
        (f"Off by more than {t * 100:g} %, real crowd 100 or more", figs.share(big_share),
         f"The same for the {big_n:,} test citizens in real crowds of at least 100 people." if big_n else
         "No test citizen here has a real crowd of 100 or more: try a larger scale."),
        (f"Median divergence, real crowd over {above}", figs.percent(large.get("plain"), 2),
         f"The typical error for the {large.get('n', 0):,} test citizens in real crowds of more than {above} people "
         f"(noisy census: {figs.percent(large.get('noisy'), 2)})." if large.get("n") else
         f"No test citizen here has a real crowd of more than {above}: try a larger scale."),
        ("Largest change from the privacy noise, in people", figs.number(nvp.get("max")),
         f"The most the noisy census (ε = {eps:g}) moved any test citizen's estimate; the median change is "
         f"{figs.number(nvp.get('median'))} people." if eps is not None else ""),
        model_card(summary),
    ]
    if citizens is not None and "census_count" in citizens.columns:
        one = next((r for r in core.own_set_divergence(citizens) if r["range"] == "1"), None)
        if one and one["n"]:
            cards.append((
                "Alone in the real crowd: CAS vs your own set",
                f"{figs.percent(one['median_divergence_cas'], 2)} vs {figs.percent(one['median_divergence_expected'], 2)}",
                f"For the {one['n']:,} test citizens nobody else shares attributes with, the median divergence of CAS "
                "and of the expected own set 1 + (N − 1)·CAS/N (SPEC §1.7): a citizen who has the profile is one of "
                "its people for certain, which CAS alone does not count."))
    return [card(title, value, explain) for title, value, explain in cards]


def parameter_tables(summary: dict) -> list:
    """The parameters of a run: district classes, then everything else."""
    p = summary.get("parameters", {})
    classes = [
        {"district class": c["name"], "districts": c["number"], "people each": c["size"],
         "people": c["size"] * c["number"], "test citizens": p.get("citizens_per_class", 0)}
        for c in p.get("classes", [])
    ]
    sexes = p.get("sexes", ["female", "male"])

    def per_sex(key, unit):
        return ", ".join(f"{s} {v:g} {unit}" for s, v in zip(sexes, p.get(key, [])))

    other = [
        ("people in all", f"{p.get('population', 0):,} in {p.get('n_districts', 0):,} districts"),
        ("test citizens", f"{p.get('n_citizens', 0):,}"),
        ("privacy parameter ε", (f"{p.get('epsilon', float('nan')):g} (Laplace noise of scale "
                                 f"{p.get('laplace_scale', float('nan')):g} on every census head count)")),
        ("height band", f"{p.get('height_width', float('nan')):g} cm"),
        ("weight band", f"{p.get('weight_width', float('nan')):g} kg"),
        ("age", (f"0–{p.get('age_max')}: equally likely up to {p.get('age_plateau')}, then falling to none at "
                 f"{p.get('age_max')}; census groups of {p.get('age_group_width')} years")),
        ("share of men", figs.share(p.get("male_share"), 0)),
        ("height (normal)", f"mean {per_sex('height_mean', 'cm')}; sd {per_sex('height_sd', 'cm')}"),
        ("weight (normal)", f"mean {per_sex('weight_mean', 'kg')}; sd {per_sex('weight_sd', 'kg')}"),
        ("seed", str(p.get("seed"))),
        ("body model of the CAS", MODEL_LABELS.get(p.get("body_model", "paper"), str(p.get("body_model")))),
    ]
    return [_table(classes, "District classes"), _kv_table(other, "Everything else")]


def run_table(summary: dict) -> html.Table:
    """How long the run took and how much memory the process needed."""
    r = summary.get("run", {})
    pairs = [
        ("time", f"{r.get('runtime_seconds', float('nan')):.2f} s"),
        ("peak memory", f"{r.get('peak_memory_mb', float('nan')):,.0f} MB (of the whole process that ran it)"),
        ("people drawn", f"{r.get('people_drawn', 0):,}"),
        ("census cells holding test citizens", f"{r.get('cells_with_citizens', 0):,}"),
        ("processor cores / numpy", f"{r.get('cpus')} / {r.get('numpy')}"),
    ]
    return _kv_table(pairs, "The run")


def describe(summary: dict, rerun: bool) -> str:
    """The label above the charts: which AnonLand they show."""
    p = summary.get("parameters", {})
    sizes = " · ".join(f"{c['name']} {c['size']:,}" for c in p.get("classes", []))
    common = (f"{p.get('population', 0):,} people (per district: {sizes}), ε = {p.get('epsilon', float('nan')):g}, "
              f"bands {p.get('height_width', float('nan')):g} cm / {p.get('weight_width', float('nan')):g} kg, "
              f"{p.get('citizens_per_class', 0):,} test citizens per class, seed {p.get('seed')}")
    return f"Your rerun: parameters — {common}." if rerun else f"The precomputed full-scale AnonLand: {common}."


RESULT_KEYS = ("label", "cards", "divergence", "divergence-table", "box", "box-table", "difference",
               "difference-table", "summary-table", "models-table", "class-table", "parameters", "run")


def model_rows(summary: dict) -> list[dict]:
    """Per RAS range, each body model's median |divergence| and share beyond ±25 % (plain census)."""
    models = summary.get("models") or {}
    if not models:
        return []
    names = list(models)
    rows = []
    for i, r in enumerate(models[names[0]]):
        row = {"real crowd (RAS)": r["range"], "test citizens": f"{r['n']:,}"}
        for name in names:
            m = models[name][i]
            row[f"{name}: median |divergence|"] = figs.share(m["median_abs_divergence"])
            row[f"{name}: off by > 25 %"] = figs.share(m["share_diverging"])
        rows.append(row)
    return rows


def model_card(summary: dict):
    """Which body model the estimates use, with both models' typical error in crowds of 100–999."""
    models = summary.get("models") or {}
    used = summary.get("body_model", summary.get("parameters", {}).get("body_model", "paper"))
    mid = {name: next((r for r in rows if r["range"] == "100–999"), None) for name, rows in models.items()}
    if len(mid) < 2 or any(v is None or v["median_abs_divergence"] is None for v in mid.values()):
        return ("Body model of these estimates", used, "")
    parts = " · ".join(f"{name} {figs.share(v['median_abs_divergence'])}" for name, v in mid.items())
    return ("Body model of these estimates", used,
            f"Median |divergence| in real crowds of 100–999: {parts}. AnonLand's heights and weights are independent "
            "(the paper model's world), so v2's correlation costs accuracy here; on real people it gains it.")


def render(citizens: pd.DataFrame | None, summary: dict | None, census: str = "plain", rerun: bool = False) -> dict:
    """Everything the results column shows for one AnonLand result (pure; tested without a browser)."""
    census = census if census in figs.CENSUSES else "plain"
    if citizens is None or summary is None:
        missing = html.P("No precomputed AnonLand result is installed (run: anonset anonland). "
                         "You can still rerun a smaller AnonLand.", className="warning")
        return {k: ({} if k in ("divergence", "box", "difference") else None) for k in RESULT_KEYS} | {"label": missing}
    return {
        "label": describe(summary, rerun),
        "cards": headline_cards(summary, citizens),
        "divergence": figs.divergence_figure(citizens, census),
        "divergence-table": _details(figs.divergence_rows(citizens, census)),
        "box": figs.box_figure(summary, census),
        "box-table": _details(figs.box_rows(summary, census)),
        "difference": figs.difference_figure(citizens),
        "difference-table": _details(figs.difference_rows(citizens)),
        "summary-table": _table(figs.summary_rows(summary)),
        "models-table": _table(model_rows(summary)) if summary.get("models") else None,
        "class-table": _table(figs.class_rows(summary)),
        "parameters": parameter_tables(summary),
        "run": run_table(summary),
    }


@memo.lru(len(figs.CENSUSES))
def render_full(census: str = "plain") -> dict:
    """:func:`render` of the shipped result, once per census choice (the page opens without computing).

    The figures are plain dicts of float arrays, so serving the memoised values
    again costs one cheap JSON encoding per request.
    """
    result = full_result()
    return render(result.citizens if result else None, result.summary if result else None, census)


# --------------------------------------------------------------------------- layout

EXPLAIN = """
**What is AnonLand?** AnonSet estimates how many people share your district, sex, age group, height
and weight from census tables alone — the *conditional anonymity set* (CAS). To check that estimate we
need a country where the true answer is known, so we made one up: **AnonLand**, 102.5 million people in
5 metropolises of 5 million, 25 cities of 1 million, 250 counties of 100,000, 2,500 towns of 10,000 and
2,500 villages of 1,000. Each person gets a sex (a coin toss), an age (equally likely up to 40, then ever
rarer up to 90), a height and a weight (bell curves around 175 cm / 70 kg for women, 180 cm / 80 kg for men).

AnonLand then publishes a census the way a statistics office would: head counts per district, sex and
5-year age group, and the average and spread of height and weight per sex and age group. A second,
privacy-protected census adds random *Laplace noise* (ε = 2) to every head count.

Finally we pick **5,000 test citizens**, 1,000 from each kind of district. For each we count the
**real anonymity set (RAS)** — the people who really share the citizen's district, sex, age group, 5-cm
height band and 5-kg weight band, the citizen included — and compare it with the CAS from each census.

**Which body model?** AnonLand's heights and weights are independent bell curves — exactly what the
*paper* body model assumes. The estimates here use AnonSet's default, body model *v2*, which assumes
height and weight are correlated as they are in real people (NHANES) and that weight is skewed. In AnonLand
that assumption is wrong, so v2 lands further from the truth than the paper model does (see "Both body
models" below); on real people it is the other way round (the *Real people* page). A rerun can use either.
"""

READ_DIVERGENCE = (
    "Each dot is one test citizen. Left to right: how many people really share their attributes (log scale). "
    "Up and down: how far the estimate is off, as a share of the truth — 0 is exact, −50 % means half the true "
    "number, +100 % twice it. The green band is ±25 %. Under the paper model, whose assumptions AnonLand follows, "
    "crowds of a hundred or more sit inside it; under v2 they spread wider, because v2 expects height and weight "
    "to go together as in real people and AnonLand's do not. Small crowds scatter and the estimate tends to be too low — the true count always "
    "includes the citizen, and someone who is really alone is usually alone because they are unusual, which an "
    "average-based estimate cannot know."
)
READ_BOX = (
    "Only real crowds smaller than 25. For each true size, the box holds the middle half of the estimates, the "
    "line in it is the median, the whiskers reach the furthest estimates within one and a half box lengths. The "
    "dashed line is where estimate and truth agree; boxes below it mean the estimate is too small."
)
READ_DIFFERENCE = (
    "How much the privacy noise moves each test citizen's estimate, in people (log scale). The noise on a head "
    "count is about 1/ε people, and the estimate multiplies that count by a small probability, so the change is "
    "a small fraction of a person: the noisy census gives practically the same answers."
)


def _num_input(key: str, value=None, **kw):
    # no min/max on the box: Dash empties a value outside them ("Scale: please enter a number" for 0);
    # the server checks the range and names it
    kw.pop("min", None), kw.pop("max", None)
    return dcc.Input(id=ID[key], type="number", value=value, inputMode="decimal", debounce=False, **kw)


def rerun_panel():
    sizes = [
        field(f"{c.name.capitalize()} ({c.number:,} districts)",
               _num_input(f"size-{c.name}", min=1, step=1, placeholder=f"scaled from {c.size:,}"),
               control_id=ID[f"size-{c.name}"])
        for c in core.DEFAULT_CLASSES
    ]
    return html.Section(
        [
            html.H2("Rerun a smaller AnonLand", className="panel-title"),
            html.P(
                f"Up to {MAX_PEOPLE:,} people (a tenth of AnonLand) and {MAX_CITIZENS_PER_CLASS:,} test citizens per "
                f"district class ({MAX_CITIZENS_PER_CLASS * len(CLASS_NAMES):,} in all). A run takes a second or two "
                "and happens on the server in the background; the page stays usable.",
                className="field-help",
            ),
            field("Scale", _num_input("scale", DEFAULTS["scale"], min=SCALE_RANGE[0], max=SCALE_RANGE[1], step="any"),
                   f"Every district's size times this ({SCALE_RANGE[0]:g} to {SCALE_RANGE[1]:g}); 0.01 gives "
                   "1,025,000 people.", ID["scale"]),
            html.Details([html.Summary("People per district, by class (optional)"),
                          html.Div("Leave empty to use the scaled size.", className="field-help"), *sizes],
                         className="details"),
            field("ε, the privacy parameter", _num_input("epsilon", DEFAULTS["epsilon"], min=0, step="any"),
                   "Greater than 0. Smaller ε = more noise on the noisy census.", ID["epsilon"]),
            html.Div(
                [
                    field("Height band (cm)", _num_input("height-width", DEFAULTS["height_width"],
                                                          min=WIDTH_RANGE[0], max=WIDTH_RANGE[1], step="any"),
                           control_id=ID["height-width"]),
                    field("Weight band (kg)", _num_input("weight-width", DEFAULTS["weight_width"],
                                                          min=WIDTH_RANGE[0], max=WIDTH_RANGE[1], step="any"),
                           control_id=ID["weight-width"]),
                ],
                className="row2",
            ),
            html.Div(
                [
                    field("Test citizens per class", _num_input("citizens", DEFAULTS["citizens"], min=1,
                                                                 max=MAX_CITIZENS_PER_CLASS, step=1),
                           control_id=ID["citizens"]),
                    field("Seed", _num_input("seed", DEFAULTS["seed"], min=0, max=SEED_MAX, step=1),
                           control_id=ID["seed"]),
                ],
                className="row2",
            ),
            field("Body model of the CAS", model_switch(ID["model"], "v2", class_name="radio"),
                  "v2 is AnonSet's default; paper matches how AnonLand's people are drawn.", ID["model"]),
            html.Div(
                [
                    html.Button("Run", id=ID["start"], className="button", n_clicks=0),
                    html.Button("Cancel", id=ID["cancel"], className="button secondary", n_clicks=0, disabled=True),
                ],
                className="buttons",
            ),
            html.Div(id=ID["message"], role="alert"),
            html.Div(
                [
                    html.Progress(id=ID["progress"], value="0", max="100", className="anonland-progress",
                                  **{"aria-label": "Progress of the rerun"}),
                    html.Div("", id=ID["progress-text"], className="field-help", **{"aria-live": "polite"}),
                ],
                id=ID["progress-box"], hidden=True,
            ),
            dcc.Interval(id=ID["interval"], interval=POLL_MS, disabled=True, n_intervals=0),
            dcc.Store(id=ID["job"], storage_type="memory"),
        ],
        className="panel anonland-form",
        **{"aria-label": "Rerun AnonLand"},
    )


def _chart(key: str, title: str, reading: str, view: dict) -> html.Section:
    """One chart: title, how to read it, the graph, and its table alternative."""
    return html.Section(
        [
            html.H2(title),
            html.P(reading, className="anonland-reading"),
            dcc.Graph(id=ID[key], figure=view[key], config=GRAPH_CONFIG),
            html.Div(view[f"{key}-table"], id=ID[f"{key}-table"]),
        ],
        className="anonland-chart",
    )


def results_section(view: dict) -> html.Section:
    return html.Section(
        [
            html.Div(
                [
                    html.P(view["label"], id=ID["label"], className="anonland-label", **{"aria-live": "polite"}),
                    html.Button("Back to the full-scale result", id=ID["back"], className="button secondary",
                                n_clicks=0, style={"display": "none"}),
                    html.Div(id=ID["view-note"]),
                ],
                className="anonland-banner",
            ),
            field("Census shown in the charts",
                   dcc.RadioItems(id=ID["census"], value="plain", inline=True, className="radio",
                                  options=[{"label": " plain", "value": "plain"},
                                           {"label": " noisy (Laplace, ε)", "value": "noisy"},
                                           {"label": " both", "value": "both"}]),
                   control_id=ID["census"]),
            html.Div(view["cards"], id=ID["cards"], className="cards"),
            _chart("divergence", "How far is the estimate from the truth?", READ_DIVERGENCE, view),
            _chart("box", "Small crowds: estimate against truth", READ_BOX, view),
            _chart("difference", "What the privacy noise changes", READ_DIFFERENCE, view),
            html.H2("Summary by size of the real crowd"),
            html.Div(view["summary-table"], id=ID["summary-table"]),
            html.H2("Both body models"),
            html.P("The same test citizens, their CAS from the plain census under each body model.",
                   className="anonland-reading"),
            html.Div(view["models-table"], id=ID["models-table"]),
            html.H2("By district class"),
            html.Div(view["class-table"], id=ID["class-table"]),
            html.H2("Parameters"),
            html.Div(view["parameters"], id=ID["parameters"], className="anonland-params"),
            html.H2("Time and memory"),
            html.Div(view["run"], id=ID["run"]),
        ],
        id=ID["results"],
        className="anonland-results",
        **{"aria-label": "AnonLand results"},
    )


# --------------------------------------------------------------------------- callbacks


class Poll(NamedTuple):
    """What one poll of a job puts on the page."""

    progress: str
    text: str
    interval_disabled: bool
    start_disabled: bool
    cancel_disabled: bool
    view: object
    message: object


def poll_job(job_data) -> Poll:
    """The page's view of a job (pure apart from reading the cache)."""
    job = valid_job(job_data)
    status = job_status(job) if job else None
    if status is None:
        return Poll("0", "", True, False, True, no_update,
                    html.Div("This rerun is no longer known to the server; please run it again.", className="error"))
    pct = f"{100 * status['fraction']:.0f}"
    state = status["state"]
    if state == "running":
        return Poll(pct, status["message"], False, True, False, no_update, None)
    if state == "done":
        return Poll("100", status["message"], True, False, True, {"source": "job", "job": job}, None)
    if state == "cancelled":
        return Poll("0", status["message"], True, False, True, no_update, None)
    return Poll(pct, "", True, False, True, no_update, html.Div(status["message"], className="error"))
