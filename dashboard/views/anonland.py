"""AnonLand: is the estimated anonymity set right?  Checked on a synthetic country (SPEC §4).

The page opens from the shipped full-scale result (``data_cache/anonland``, loaded
once per process).  A smaller AnonLand can be rerun in the background:

* Dash's ``background=True`` callbacks need ``diskcache`` or Celery, and neither
  is installed, so the rerun is a **thread** started by the "Run" callback, polled
  by a ``dcc.Interval``.
* The job runner is :mod:`dashboard.server.jobs`: status, cancel flag and result live in the
  server-side cache (:mod:`dashboard.server.cache`), so the poll may reach any gunicorn worker.

Reruns are capped (:data:`MAX_PEOPLE`, :data:`MAX_CITIZENS_PER_CLASS`, at most
:func:`dashboard.server.jobs.max_running` at once per server, across its workers); at the cap a run takes about a second.

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
from dashboard.core.text import N_, current_language, gettext, local_number, ngettext, pgettext
from dashboard.core.text import gettext as _
from dashboard.figures import anonland as figs
from dashboard.figures.style import graph_config
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
    """10,250,000 rather than 1.025e+07 in a message; fractions as typed (the language's digits)."""
    return local_number(f"{x:,.0f}" if float(x).is_integer() and abs(x) < 1e15 else f"{x:g}")


def _whole(n: int) -> str:
    """A whole number with the language's thousands separator."""
    return local_number(f"{int(n):,}")


def _number(value, field: str, lo: float, hi: float, *, whole: bool = False, required: bool = True,
            lo_open: bool = False) -> float | None:
    """A number from the form within ``[lo, hi]`` (``(lo, hi]`` when ``lo_open``), with a message naming the field."""
    x = forms.number(value, field, required=required)
    if x is None:
        return None
    if whole and not float(x).is_integer():
        raise InputError(_("{field}: please enter a whole number, not {value}").format(field=field, value=_plain(x)))
    if lo_open and x <= lo:
        raise InputError(_("{field}: must be greater than {low} (got {value})").format(
            field=field, low=_plain(lo), value=_plain(x)))
    if x < lo or x > hi:
        raise InputError(_("{field}: {value} is outside the allowed range {low} to {high}").format(
            field=field, value=_plain(x), low=_plain(lo), high=_plain(hi)))
    return int(x) if whole else x


def build_rerun(scale, epsilon, height_width, weight_width, citizens, seed, sizes=(),
                model: str | None = "v2") -> core.AnonLandConfig:
    """Validate the rerun form and make its configuration; bad input raises InputError with a message.

    District sizes are the full-scale sizes times ``scale`` unless a size per class
    is given (empty = scaled).  The numbers of districts stay as in SPEC §4.
    """
    sizes = list(sizes) + [None] * (len(core.DEFAULT_CLASSES) - len(sizes))
    f = _number(scale, _("Scale"), *SCALE_RANGE)
    classes = []
    for c, given in zip(core.DEFAULT_CLASSES, sizes):
        size = _number(given, _("People per {district_class}").format(district_class=core.class_label(c.name)),
                       1, MAX_PEOPLE, whole=True, required=False)
        if size is None:
            size = round(c.size * f)
            if size < 1:
                raise InputError(_("Scale: at {scale} a {district_class} of {people} people would be empty").format(scale=_plain(f), district_class=core.class_label(c.name),
                                                            people=_whole(c.size)))
        classes.append(core.DistrictClass(c.name, int(size), c.number))
    eps = _number(epsilon, _("ε (privacy parameter)"), 0, EPSILON_MAX, lo_open=True)
    hw = _number(height_width, _("Height band (cm)"), *WIDTH_RANGE)
    ww = _number(weight_width, _("Weight band (kg)"), *WIDTH_RANGE)
    k = _number(citizens, _("Test citizens per class"), 1, MAX_CITIZENS_PER_CLASS, whole=True)
    s = _number(seed, _("Seed"), 0, SEED_MAX, whole=True)
    population = sum(c.size * c.number for c in classes)
    if population > MAX_PEOPLE:
        cmd = limits.anonland_command(1, eps, hw, ww, k, s, model or "v2")  # only custom sizes get here
        raise limits.CostError(_("This AnonLand would have {people} people; reruns are limited to {limit} people on "
                                 "the page. Choose a smaller scale or smaller districts, or run the full AnonLand "
                                 "(no limit) on your own machine with: {command}").format(
            people=_whole(population), limit=_whole(MAX_PEOPLE), command=cmd))
    return core.AnonLandConfig(classes=tuple(classes), epsilon=eps, height_width=hw, weight_width=ww,
                               citizens_per_class=k, seed=s, body_model=model or "v2")


# --------------------------------------------------------------------------- rendering (pure)


def _table(rows: list[dict], caption: str | None = None):
    """A plain accessible table (scrolls sideways when narrow)."""
    return table(rows, caption, class_name="table anonland-table", wrap_class="anonland-scroll", empty=_("No data."))


def _kv_table(pairs: list[tuple[str, str]], caption: str) -> html.Table:
    return kv_table(pairs, caption, class_name="table anonland-table anonland-kv")


def _details(rows: list[dict], summary: str | None = None) -> html.Details:
    return html.Details([html.Summary(summary or _("The numbers behind this chart (table)")), _table(rows)],
                        className="details anonland-details")


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
    off = figs.threshold_percent(t)
    five, hundred, above_text = _whole(5), _whole(100), _whole(above)
    large_n = large.get("n", 0)
    cards = [
        (_("Off by more than {percent}, real crowd under {count}").format(percent=off, count=five),
         figs.share(small_share),
         ngettext("Of the {n} test citizen who really shares their attributes with fewer than {count} people "
                  "(themselves included), this many get an estimate more than a quarter off.",
                  "Of the {n} test citizens who really share their attributes with fewer than {count} people "
                  "(themselves included), this many get an estimate more than a quarter off.", small_n).format(
             n=_whole(small_n), count=five) if small_n else
         _("No test citizen here has a real crowd under {count}.").format(count=five)),
        (_("Off by more than {percent}, real crowd {count} or more").format(percent=off, count=hundred),
         figs.share(big_share),
         ngettext("The same for the {n} test citizen in real crowds of at least {count} people.",
                  "The same for the {n} test citizens in real crowds of at least {count} people.", big_n).format(
             n=_whole(big_n), count=hundred) if big_n else
         _("No test citizen here has a real crowd of {count} or more: try a larger scale.").format(count=hundred)),
        (_("Median divergence, real crowd over {count}").format(count=above_text),
         figs.percent(large.get("plain"), 2),
         ngettext("The typical error for the {n} test citizen in real crowds of more than {count} people "
                  "(noisy census: {noisy}).",
                  "The typical error for the {n} test citizens in real crowds of more than {count} people "
                  "(noisy census: {noisy}).", large_n).format(
             n=_whole(large_n), count=above_text, noisy=figs.percent(large.get("noisy"), 2)) if large_n else
         _("No test citizen here has a real crowd of more than {count}: try a larger scale.").format(count=above_text)),
        (_("Largest change from the privacy noise, in people"), figs.number(nvp.get("max")),
         _("The most the noisy census (ε = {epsilon}) moved any test citizen's estimate; the median change is "
           "{median} people.").format(epsilon=_plain(eps), median=figs.number(nvp.get("median")))
         if eps is not None else ""),
        model_card(summary),
    ]
    if citizens is not None and "census_count" in citizens.columns:
        one = next((r for r in core.own_set_divergence(citizens) if r["range"] == "1"), None)
        if one and one["n"]:
            cards.append((
                _("Alone in the real crowd: CAS vs your own set"),
                _("{cas} vs {own}").format(cas=figs.percent(one["median_divergence_cas"], 2),
                                           own=figs.percent(one["median_divergence_expected"], 2)),
                ngettext("For the {n} test citizen nobody else shares attributes with, the median divergence of CAS "
                         "and of the expected own set 1 + (N − 1)·CAS/N (SPEC §1.7): a citizen who has the profile "
                         "is one of its people for certain, which CAS alone does not count.",
                         "For the {n} test citizens nobody else shares attributes with, the median divergence of CAS "
                         "and of the expected own set 1 + (N − 1)·CAS/N (SPEC §1.7): a citizen who has the profile "
                         "is one of its people for certain, which CAS alone does not count.", one["n"]).format(
                    n=_whole(one["n"]))))
    return [card(title, value, explain) for title, value, explain in cards]


def _unit(value, unit: str) -> str:
    """``175 cm``: a value the language's way and its unit."""
    return f"{_plain(value)} {unit}"


def parameter_tables(summary: dict) -> list:
    """The parameters of a run: district classes, then everything else."""
    p = summary.get("parameters", {})
    classes = [
        {_("district class"): core.class_label(c["name"]), _("districts"): c["number"], _("people each"): c["size"],
         _("people"): c["size"] * c["number"], _("test citizens"): p.get("citizens_per_class", 0)}
        for c in p.get("classes", [])
    ]
    sexes = p.get("sexes", ["female", "male"])
    sex_words = {"female": _("women"), "male": _("men")}
    nan = float("nan")

    def per_sex(key, unit):
        return ", ".join(f"{sex_words.get(s, s)} {_unit(v, unit)}" for s, v in zip(sexes, p.get(key, [])))

    other = [
        (_("people in all"), ngettext("{people} in {districts} district", "{people} in {districts} districts",
                                      p.get("n_districts", 0)).format(people=_whole(p.get("population", 0)),
                                                                      districts=_whole(p.get("n_districts", 0)))),
        (_("test citizens"), _whole(p.get("n_citizens", 0))),
        (_("privacy parameter ε"), _("{epsilon} (Laplace noise of scale {scale} on every census head count)").format(
            epsilon=_plain(p.get("epsilon", nan)), scale=_plain(p.get("laplace_scale", nan)))),
        (_("height band"), _unit(p.get("height_width", nan), "cm")),
        (_("weight band"), _unit(p.get("weight_width", nan), "kg")),
        (_("age"), _("0–{max}: equally likely up to {plateau}, then falling to none at {max}; census groups of "
                     "{width} years").format(max=p.get("age_max"), plateau=p.get("age_plateau"),
                                             width=p.get("age_group_width"))),
        (_("share of men"), figs.share(p.get("male_share"), 0)),
        (_("height (normal)"), _("mean {means}; sd {sds}").format(means=per_sex("height_mean", "cm"),
                                                                  sds=per_sex("height_sd", "cm"))),
        (_("weight (normal)"), _("mean {means}; sd {sds}").format(means=per_sex("weight_mean", "kg"),
                                                                  sds=per_sex("weight_sd", "kg"))),
        (_("seed"), str(p.get("seed"))),
        (_("body model of the CAS"), gettext(MODEL_LABELS.get(p.get("body_model", "paper"), str(p.get("body_model"))))),
    ]
    return [_table(classes, _("District classes")), _kv_table(other, _("Everything else"))]


def run_table(summary: dict) -> html.Table:
    """How long the run took and how much memory the process needed."""
    r = summary.get("run", {})
    nan = float("nan")
    seconds, memory = r.get("runtime_seconds", nan), r.get("peak_memory_mb", nan)
    pairs = [
        (_("time"), local_number(f"{seconds:.2f}") + " s"),
        (_("peak memory"), _("{megabytes} MB (of the whole process that ran it)").format(
            megabytes=local_number(f"{memory:,.0f}"))),
        (_("people drawn"), _whole(r.get("people_drawn", 0))),
        (_("census cells holding test citizens"), _whole(r.get("cells_with_citizens", 0))),
        (_("processor cores / numpy"), f"{r.get('cpus')} / {r.get('numpy')}"),
    ]
    return _kv_table(pairs, _("The run"))


def describe(summary: dict, rerun: bool) -> str:
    """The label above the charts: which AnonLand they show."""
    p = summary.get("parameters", {})
    nan = float("nan")
    sizes = " · ".join(f"{core.class_label(c['name'])} {_whole(c['size'])}" for c in p.get("classes", []))
    common = _("{people} people (per district: {sizes}), ε = {epsilon}, bands {height} cm / {weight} kg, "
               "{citizens} test citizens per class, seed {seed}").format(
        people=_whole(p.get("population", 0)), sizes=sizes, epsilon=_plain(p.get("epsilon", nan)),
        height=_plain(p.get("height_width", nan)), weight=_plain(p.get("weight_width", nan)),
        citizens=_whole(p.get("citizens_per_class", 0)), seed=p.get("seed"))
    if rerun:
        return _("Your rerun: parameters — {parameters}.").format(parameters=common)
    return _("The precomputed full-scale AnonLand: {parameters}.").format(parameters=common)


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
        row = {_("real crowd (RAS)"): figs.range_label(r["range"]), _("test citizens"): _whole(r["n"])}
        for name in names:
            m = models[name][i]
            row[_("{model}: median |divergence|").format(model=name)] = figs.share(m["median_abs_divergence"])
            row[_("{model}: off by > {percent}").format(model=name, percent=figs.threshold_percent(0.25))] = figs.share(
                m["share_diverging"])
        rows.append(row)
    return rows


def model_card(summary: dict):
    """Which body model the estimates use, with both models' typical error in crowds of 100–999."""
    models = summary.get("models") or {}
    used = summary.get("body_model", summary.get("parameters", {}).get("body_model", "paper"))
    mid = {name: next((r for r in rows if r["range"] == "100–999"), None) for name, rows in models.items()}
    if len(mid) < 2 or any(v is None or v["median_abs_divergence"] is None for v in mid.values()):
        return (_("Body model of these estimates"), used, "")
    parts = " · ".join(f"{name} {figs.share(v['median_abs_divergence'])}" for name, v in mid.items())
    return (_("Body model of these estimates"), used,
            _("Median |divergence| in real crowds of {range}: {models}. AnonLand's heights and weights are independent "
              "(the paper model's world), so v2's correlation costs accuracy here; on real people it gains it.").format(
                range=figs.range_label("100–999"), models=parts))


def render(citizens: pd.DataFrame | None, summary: dict | None, census: str = "plain", rerun: bool = False) -> dict:
    """Everything the results column shows for one AnonLand result (pure; tested without a browser)."""
    census = census if census in figs.CENSUSES else "plain"
    if citizens is None or summary is None:
        missing = html.P(_("No precomputed AnonLand result is installed (run: {command}). "
                           "You can still rerun a smaller AnonLand.").format(command="anonset anonland"),
                         className="warning")
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


def render_full(census: str = "plain") -> dict:
    """:func:`render` of the shipped result, once per census choice and language (the page opens without computing).

    The figures are plain dicts of float arrays, so serving the memoised values
    again costs one cheap JSON encoding per request.
    """
    return _render_full(census, current_language())


@memo.lru(2 * len(figs.CENSUSES))
def _render_full(census: str, lang: str) -> dict:
    """:func:`render_full`'s memo: ``lang`` is in the key (the words and numbers are the language's)."""
    result = full_result()
    return render(result.citizens if result else None, result.summary if result else None, census)


# --------------------------------------------------------------------------- layout

#: What AnonLand is, paragraph by paragraph (Markdown; the numbers are filled in by :func:`explain_text`).
EXPLAIN = (
    N_("**What is AnonLand?** AnonSet estimates how many people share your district, sex, age group, height and "
       "weight from census tables alone — the *conditional anonymity set* (CAS). To check that estimate we need a "
       "country where the true answer is known, so we made one up: **AnonLand**, {population} people in "
       "{metropolises} metropolises of {metropolis_size}, {cities} cities of {city_size}, {counties} counties of "
       "{county_size}, {towns} towns of {town_size} and {villages} villages of {village_size}. Each person gets a sex "
       "(a coin toss), an age (equally likely up to {plateau}, then ever rarer up to {age_max}), a height and a weight "
       "(bell curves around {women_height} / {women_weight} for women, {men_height} / {men_weight} for men)."),
    N_("AnonLand then publishes a census the way a statistics office would: head counts per district, sex and 5-year "
       "age group, and the average and spread of height and weight per sex and age group. A second, "
       "privacy-protected census adds random *Laplace noise* (ε = {epsilon}) to every head count."),
    N_("Finally we pick **{citizens} test citizens**, {per_class} from each kind of district. For each we count the "
       "**real anonymity set (RAS)** — the people who really share the citizen's district, sex, age group, "
       "{height_band} height band and {weight_band} weight band, the citizen included — and compare it with the CAS "
       "from each census."),
    N_("**Which body model?** AnonLand's heights and weights are independent bell curves — exactly what the *paper* "
       "body model assumes. The estimates here use AnonSet's default, body model *v2*, which assumes height and weight "
       "are correlated as they are in real people (NHANES) and that weight is skewed. In AnonLand that assumption is "
       "wrong, so v2 lands further from the truth than the paper model does (see “{both_models}” below); on real "
       "people it is the other way round (the *{real_people}* page). A rerun can use either."),
)


def explain_text() -> str:
    """:data:`EXPLAIN` in the page's language, its numbers the language's way (the full-scale AnonLand of SPEC §4)."""
    c = {k.name: k for k in core.DEFAULT_CLASSES}
    cfg = core.AnonLandConfig()

    def size(name):
        return figs.number(c[name].size) if c[name].size < 1_000_000 else _millions(c[name].size)

    return "\n\n".join(gettext(p) for p in EXPLAIN).format(both_models=_("Both body models"),
                                                          real_people=_("Real people"),
        population=_millions(sum(k.size * k.number for k in core.DEFAULT_CLASSES)),
        metropolises=_whole(c["metropolis"].number), metropolis_size=size("metropolis"),
        cities=_whole(c["city"].number), city_size=size("city"), counties=_whole(c["county"].number),
        county_size=size("county"), towns=_whole(c["town"].number), town_size=size("town"),
        villages=_whole(c["village"].number), village_size=size("village"),
        plateau=cfg.age_plateau, age_max=cfg.age_max,
        women_height=_unit(cfg.height_mean[0], "cm"), women_weight=_unit(cfg.weight_mean[0], "kg"),
        men_height=_unit(cfg.height_mean[1], "cm"), men_weight=_unit(cfg.weight_mean[1], "kg"),
        epsilon=_plain(cfg.epsilon), citizens=_whole(cfg.n_citizens), per_class=_whole(cfg.citizens_per_class),
        height_band=_unit(cfg.height_width, "cm"), weight_band=_unit(cfg.weight_width, "kg"))


def _millions(n: float) -> str:
    """102.5 million, 5 million (the language's words and digits)."""
    m = n / 1e6
    return ngettext("{count} million", "{count} million", 1 if m == 1 else 2).format(count=_plain(m))


READ_DIVERGENCE = N_(
    "Each dot is one test citizen. Left to right: how many people really share their attributes (log scale). "
    "Up and down: how far the estimate is off, as a share of the truth — 0 is exact, {minus_half} means half the true "
    "number, {plus_double} twice it. The green band is {band}. Under the paper model, whose assumptions AnonLand "
    "follows, crowds of a hundred or more sit inside it; under v2 they spread wider, because v2 expects height and "
    "weight to go together as in real people and AnonLand's do not. Small crowds scatter and the estimate tends to be "
    "too low — the true count always includes the citizen, and someone who is really alone is usually alone because "
    "they are unusual, which an average-based estimate cannot know."
)
READ_BOX = N_(
    "Only real crowds smaller than {limit}. For each true size, the box holds the middle half of the estimates, the "
    "line in it is the median, the whiskers reach the furthest estimates within one and a half box lengths. The "
    "dashed line is where estimate and truth agree; boxes below it mean the estimate is too small."
)
READ_DIFFERENCE = N_(
    "How much the privacy noise moves each test citizen's estimate, in people (log scale). The noise on a head "
    "count is about 1/ε people, and the estimate multiplies that count by a small probability, so the change is "
    "a small fraction of a person: the noisy census gives practically the same answers."
)


def reading(which: str) -> str:
    """How to read one chart, in the page's language."""
    if which == "divergence":
        return gettext(READ_DIVERGENCE).format(minus_half=figs.percent(-0.5, 0), plus_double=figs.percent(1.0, 0),
                                               band="±" + figs.threshold_percent(core.DIVERGENCE_THRESHOLD))
    if which == "box":
        return gettext(READ_BOX).format(limit=_whole(core.BOX_RAS_LIMIT))
    return gettext(READ_DIFFERENCE)


def _num_input(key: str, value=None, **kw):
    # no min/max on the box: Dash empties a value outside them ("Scale: please enter a number" for 0);
    # the server checks the range and names it
    kw.pop("min", None), kw.pop("max", None)
    return dcc.Input(id=ID[key], type="number", value=value, inputMode="decimal", debounce=False, **kw)


def _capital(text: str) -> str:
    return text[:1].upper() + text[1:]


def rerun_panel():
    sizes = [
        field(_capital(ngettext("{district_class} ({count} district)", "{district_class} ({count} districts)",
                                c.number).format(district_class=core.class_label(c.name), count=_whole(c.number))),
              _num_input(f"size-{c.name}", min=1, step=1,
                         placeholder=_("scaled from {people}").format(people=_whole(c.size))),
              control_id=ID[f"size-{c.name}"])
        for c in core.DEFAULT_CLASSES
    ]
    default_people = round(sum(c.size * c.number for c in core.DEFAULT_CLASSES) * DEFAULTS["scale"])
    return html.Section(
        [
            html.H2(_("Rerun a smaller AnonLand"), className="panel-title"),
            html.P(
                _("Up to {people} people (a tenth of AnonLand) and {citizens} test citizens per district class "
                  "({total} in all). A run takes a second or two and happens on the server in the background; the "
                  "page stays usable.").format(people=_whole(MAX_PEOPLE), citizens=_whole(MAX_CITIZENS_PER_CLASS),
                                               total=_whole(MAX_CITIZENS_PER_CLASS * len(CLASS_NAMES))),
                className="field-help",
            ),
            field(_("Scale"), _num_input("scale", DEFAULTS["scale"], min=SCALE_RANGE[0], max=SCALE_RANGE[1], step="any"),
                  _("Every district's size times this ({low} to {high}); {example} gives {people} people.").format(
                      low=_plain(SCALE_RANGE[0]), high=_plain(SCALE_RANGE[1]), example=_plain(DEFAULTS["scale"]),
                      people=_whole(default_people)), ID["scale"]),
            html.Details([html.Summary(_("People per district, by class (optional)")),
                          html.Div(_("Leave empty to use the scaled size."), className="field-help"), *sizes],
                         className="details"),
            field(_("ε, the privacy parameter"), _num_input("epsilon", DEFAULTS["epsilon"], min=0, step="any"),
                  _("Greater than 0. Smaller ε = more noise on the noisy census."), ID["epsilon"]),
            html.Div(
                [
                    field(_("Height band (cm)"), _num_input("height-width", DEFAULTS["height_width"],
                                                             min=WIDTH_RANGE[0], max=WIDTH_RANGE[1], step="any"),
                          control_id=ID["height-width"]),
                    field(_("Weight band (kg)"), _num_input("weight-width", DEFAULTS["weight_width"],
                                                             min=WIDTH_RANGE[0], max=WIDTH_RANGE[1], step="any"),
                          control_id=ID["weight-width"]),
                ],
                className="row2",
            ),
            html.Div(
                [
                    field(_("Test citizens per class"), _num_input("citizens", DEFAULTS["citizens"], min=1,
                                                                    max=MAX_CITIZENS_PER_CLASS, step=1),
                          control_id=ID["citizens"]),
                    field(_("Seed"), _num_input("seed", DEFAULTS["seed"], min=0, max=SEED_MAX, step=1),
                          control_id=ID["seed"]),
                ],
                className="row2",
            ),
            field(_("Body model of the CAS"), model_switch(ID["model"], "v2", class_name="radio"),
                  _("v2 is AnonSet's default; paper matches how AnonLand's people are drawn."), ID["model"]),
            html.Div(
                [
                    html.Button(pgettext("start a computation", "Run"), id=ID["start"], className="button", n_clicks=0),
                    html.Button(_("Cancel"), id=ID["cancel"], className="button secondary", n_clicks=0, disabled=True),
                ],
                className="buttons",
            ),
            html.Div(id=ID["message"], role="alert"),
            html.Div(
                [
                    html.Progress(id=ID["progress"], value="0", max="100", className="anonland-progress",
                                  **{"aria-label": _("Progress of the rerun")}),
                    html.Div("", id=ID["progress-text"], className="field-help", **{"aria-live": "polite"}),
                ],
                id=ID["progress-box"], hidden=True,
            ),
            dcc.Interval(id=ID["interval"], interval=POLL_MS, disabled=True, n_intervals=0),
            dcc.Store(id=ID["job"], storage_type="memory"),
        ],
        className="panel anonland-form",
        **{"aria-label": _("Rerun AnonLand")},
    )


def _chart(key: str, title: str, view: dict) -> html.Section:
    """One chart: title, how to read it, the graph, and its table alternative."""
    return html.Section(
        [
            html.H2(title),
            html.P(reading(key), className="anonland-reading"),
            dcc.Graph(id=ID[key], figure=view[key], config=graph_config()),
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
                    html.Button(_("Back to the full-scale result"), id=ID["back"], className="button secondary",
                                n_clicks=0, style={"display": "none"}),
                    html.Div(id=ID["view-note"]),
                ],
                className="anonland-banner",
            ),
            field(_("Census shown in the charts"),
                  dcc.RadioItems(id=ID["census"], value="plain", inline=True, className="radio",
                                 options=[{"label": " " + _("plain"), "value": "plain"},
                                          {"label": " " + _("noisy (Laplace, ε)"), "value": "noisy"},
                                          {"label": " " + _("both"), "value": "both"}]),
                  control_id=ID["census"]),
            html.Div(view["cards"], id=ID["cards"], className="cards"),
            _chart("divergence", _("How far is the estimate from the truth?"), view),
            _chart("box", _("Small crowds: estimate against truth"), view),
            _chart("difference", _("What the privacy noise changes"), view),
            html.H2(_("Summary by size of the real crowd")),
            html.Div(view["summary-table"], id=ID["summary-table"]),
            html.H2(_("Both body models")),
            html.P(_("The same test citizens, their CAS from the plain census under each body model."),
                   className="anonland-reading"),
            html.Div(view["models-table"], id=ID["models-table"]),
            html.H2(_("By district class")),
            html.Div(view["class-table"], id=ID["class-table"]),
            html.H2(_("Parameters")),
            html.Div(view["parameters"], id=ID["parameters"], className="anonland-params"),
            html.H2(_("Time and memory")),
            html.Div(view["run"], id=ID["run"]),
        ],
        id=ID["results"],
        className="anonland-results",
        **{"aria-label": _("AnonLand results")},
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
                    html.Div(_("This rerun is no longer known to the server; please run it again."), className="error"))
    pct = f"{100 * status['fraction']:.0f}"  # the progress bar's value, not shown as text
    state = status["state"]
    if state == "running":
        return Poll(pct, status["message"], False, True, False, no_update, None)
    if state == "done":
        return Poll("100", status["message"], True, False, True, {"source": "job", "job": job}, None)
    if state == "cancelled":
        return Poll("0", status["message"], True, False, True, no_update, None)
    return Poll(pct, "", True, False, True, no_update, html.Div(status["message"], className="error"))
