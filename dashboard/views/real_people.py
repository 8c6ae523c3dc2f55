"""“Real people”: the body models tested on the NHANES adults as a population (issue 13), and the
NCD-RisC prior checked against the US and German own tables (issue 27).

Everything the page shows, computed once (:func:`report`, memoised; :func:`warm`) from
:func:`dashboard.core.body.validate_nhanes`; :mod:`dashboard.pages.real_people`
holds only the layout.  The page beside AnonLand: AnonLand checks CAS on a synthetic
country built by the paper model's own assumptions, this one on real measured people.
"""
from __future__ import annotations

import logging

from dash import dcc, html

from dashboard import ids
from dashboard.components import card, command_block, table
from dashboard.core import memo
from dashboard.core.body import validate_nhanes, validate_prior
from dashboard.core.errors import InputError
from dashboard.figures.real_people import MODEL_NAMES, calibration_figure, divergence_figure
from dashboard.figures.style import GRAPH_CONFIG

PAGE = "real"
LOG = logging.getLogger("anonset.real_people")
COMMAND = "anonset validate nhanes --json"
PRIOR_COMMAND = "anonset validate prior --json"
#: Cells of the US predicted-against-observed table shown on the page (the fullest; --json has all).
PRIOR_CELLS_SHOWN = 12


def _id(name: str) -> str:
    return ids.make(PAGE, name)


ID = {name: _id(name) for name in ("cards", "calibration", "divergence", "ras-table", "rho-table", "message")}


@memo.lru(1)
def report() -> dict:
    """The validation report of both models (memoised: the sample does not change while the app runs)."""
    return validate_nhanes()


def warm() -> None:
    try:
        report()
        prior_report()
    except InputError:
        pass  # no NHANES sample (or no NCD-RisC table) in this cache: the page says so


def _pct(x) -> str:
    return "–" if x is None else f"{100 * x:+.0f} %"


def summary_cards(r: dict) -> list:
    v2, paper = r["models"]["v2"], r["models"]["paper"]
    gain = v2["heldout_loglik_per_person"] - paper["heldout_loglik_per_person"]
    return [
        card("Typical error, real sets of 10 or more",
             f"{100 * v2['median_abs_divergence']:.0f} % vs {100 * paper['median_abs_divergence']:.0f} %",
             "Median of |expected set − real set| / real set: v2 against the paper model. Lower is better.",
             value_id=_id("mad")),
        card("Fit to the real people (log-likelihood)",
             f"{v2['heldout_loglik_per_person']:.3f} vs {paper['heldout_loglik_per_person']:.3f}",
             f"Mean log-probability (nats) of each person's own cell, the correlation fitted on the other half: "
             f"v2 is higher by {gain:.3f}, i.e. it gives the cells people are really in about "
             f"{100 * (2.718281828 ** gain - 1):.0f} % more probability.",
             value_id=_id("loglik")),
        card("People the aggregates leave out",
             f"{100 * v2['left_out_share']:.0f} % vs {100 * paper['left_out_share']:.0f} %",
             "The paper model drops every cell whose centre BMI lies outside 17–30 from its aggregates; "
             "v2 keeps everyone.", value_id=_id("left-out")),
    ]


def ras_rows(r: dict) -> list[dict]:
    rows = []
    v2 = {x["range"]: x for x in r["models"]["v2"]["by_ras"]}
    paper = {x["range"]: x for x in r["models"]["paper"]["by_ras"]}
    for key, a in v2.items():
        if not a["n"]:
            continue
        b = paper[key]
        rows.append({
            "real set": key, "people": a["n"],
            "v2: expected set": _pct(a["median_divergence_expected"]), "v2: CAS": _pct(a["median_divergence_cas"]),
            "paper: expected set": _pct(b["median_divergence_expected"]), "paper: CAS": _pct(b["median_divergence_cas"]),
        })
    return rows


def rho_rows(r: dict) -> list[dict]:
    by = {}
    for x in r["models"]["v2"]["correlation"]:
        label = f"{x['age_from']:g}–{x['age_to']:g}"
        by.setdefault(label, {"age": label})[x["sex"]] = "–" if x["rho"] is None else f"{x['rho']:.2f}"
        by[label][f"{x['sex']} n"] = x["n"]
    return [{"age": v["age"], "women ρ": v.get("female", "–"), "women n": v.get("female n", 0),
             "men ρ": v.get("male", "–"), "men n": v.get("male n", 0)} for v in by.values()]


def explanation(r: dict) -> list:
    v2, paper = r["models"]["v2"], r["models"]["paper"]
    ras1 = next(x for x in v2["by_ras"] if x["range"] == "1")
    sr = r.get("self_report", {})
    items = [
        html.Li(["Every one of the ", html.B(f"{r['population']:,}"), " NHANES adults (18–74, height and weight "
                 "measured by examiners) is treated as a resident of a small country. Their real anonymity set is "
                 "the number of them with the same sex, age group, 5 cm height band and 5 kg weight band. ",
                 f"{r['people_with_ras_1']:,} are alone in their cell."]),
        html.Li(["For each person the model predicts the set from summary statistics only (the counts per sex × "
                 "age group and the means and SDs of height and weight) — exactly what AnonSet does for a census. "
                 "The ", html.B("expected set"), " is you plus the others the model expects: 1 + (N − 1)·p."]),
        html.Li(["The paper model says too little about where real people are: in every tenth of its predictions "
                 f"the real cells are fuller than predicted (by {100 * (min(c['ratio'] for c in paper['calibration']) - 1):.0f}–"
                 f"{100 * (max(c['ratio'] for c in paper['calibration']) - 1):.0f} %), because tall people tend to be "
                 "heavier and weights are skewed. v2 predicts within "
                 f"{100 * max(abs(c['ratio'] - 1) for c in v2['calibration']):.0f} % in every tenth."]),
        html.Li(["Where a person is alone in their cell (real set 1), CAS — the people expected to have the profile — "
                 f"is {_pct(ras1['median_divergence_cas'])} in the median: below the one person who certainly has it. "
                 "The expected set counts that person and adds the others the model expects; it is "
                 f"{_pct(ras1['median_divergence_expected'])}: the model expects some company where, in this sample, "
                 "there happens to be none. A cell's real count scatters around its expectation, so small sets are "
                 "never hit exactly; the personal page leads with the expected set (“you and about X others”) "
                 "because it is never below one."]),
        html.Li(["Large real sets are under-predicted by both models in the median: picking people whose cell happens "
                 "to be full picks cells with more people than expected (a selection effect, not a model error). "
                 "v2 is closer."]),
    ]
    if sr:
        items.append(html.Li(
            f"People over-report their height by {sr['height_cm']['mean']:+.1f} cm and under-report their weight by "
            f"{-sr['weight_kg']['mean']:.1f} kg on average (self-report minus measurement). Germany's statistics are "
            "self-reported; the command line offers --self-report-correction."))
    return items


@memo.lru(1)
def prior_report() -> dict:
    """The NCD-RisC prior against the US and German own tables (issue 27), memoised."""
    return validate_prior()


def prior_cards(p: dict) -> list:
    ll = p["us"]["heldout_loglik_per_person"]
    tv = p["us"]["cell_share_total_variation"]
    de = p["de"]
    return [
        card("US: fit to the real people, NCD-RisC prior",
             f"{ll['ncdrisc']:.3f} vs {ll['v2']:.3f} vs {ll['paper']:.3f}",
             "Held-out log-likelihood per person (nats): the prior built for the USA from NCD-RisC, v2 fitted on "
             "NHANES itself, and the paper model. Higher is better.", value_id=_id("prior-loglik")),
        card("US: cell shares off by", f"{tv['ncdrisc']:.0%} vs {tv['v2']:.0%}",
             "Total variation between the predicted and the observed share of people per 5 cm × 5 kg cell: "
             "NCD-RisC prior against v2's own fit.", value_id=_id("prior-tv")),
        card("DE: mean height and weight gap", f"{de['mean_abs_height_gap_cm']:.1f} cm, {de['mean_abs_weight_gap_kg']:.1f} kg",
             "Mean absolute gap per sex × age group between the NCD-RisC prior for Germany (2017) and the "
             "Mikrozensus 2017 (self-reported).", value_id=_id("prior-de")),
    ]


def prior_us_rows(p: dict) -> list[dict]:
    return [{"height cm": c["height"], "weight kg": c["weight"], "observed": f"{c['observed']:.2%}",
             "NCD-RisC prior": f"{c['predicted_ncdrisc']:.2%}", "v2 NHANES fit": f"{c['predicted_v2']:.2%}"}
            for c in p["us"]["cells"][:PRIOR_CELLS_SHOWN]]


def prior_de_rows(p: dict) -> list[dict]:
    return [{"sex": g["sex"], "age": g["age"],
             "height, Mikrozensus": f"{g['height_mean_mikrozensus']:.1f}", "height, prior": f"{g['height_mean_prior']:.1f}",
             "weight, Mikrozensus": f"{g['weight_mean_mikrozensus']:.1f}", "weight, prior": f"{g['weight_mean_prior']:.1f}",
             "bands apart (TV)": f"{g['band_total_variation']:.0%}", "JS divergence (bits)": f"{g['band_js_divergence_bits']:.3f}"}
            for g in p["de"]["groups"]]


def render_prior() -> dict:
    """The prior section, or ``{"error": message}`` when the cache lacks what it needs."""
    try:
        p = prior_report()
    except InputError as exc:
        return {"error": f"The NCD-RisC prior cannot be checked: {exc}"}
    return {"cards": prior_cards(p), "us_rows": prior_us_rows(p), "de_rows": prior_de_rows(p),
            "summaries": [p["us"]["summary"], p["de"]["summary"]], "command": PRIOR_COMMAND,
            "cells": len(p["us"]["cells"])}


def render() -> dict:
    """The page's content; an error box's text when the sample is missing."""
    r = report()
    return {
        "prior": render_prior(),
        "cards": summary_cards(r),
        "explanation": explanation(r),
        "calibration": calibration_figure(r),
        "divergence": divergence_figure(r),
        "ras_rows": ras_rows(r),
        "rho_rows": rho_rows(r),
        "command": COMMAND,
        "models": {k: MODEL_NAMES[k] for k in r["models"]},
    }


def graph(key: str, fig: dict):
    return dcc.Graph(id=ID[key], figure=fig, config=GRAPH_CONFIG)


def content(out: dict) -> list:
    return [
        html.Div(out["cards"], className="cards", id=ID["cards"]),
        html.H2("What the numbers mean"),
        html.Ul(out["explanation"], className="plain-list"),
        html.H2("Are the predicted cells as full as the real ones?"),
        html.P("People grouped into tenths by the probability the model gives their own cell. On the dashed line the "
               "model is right on average; above it, real cells are fuller than the model thinks (it overstates how "
               "unique people are).", className="field-help"),
        graph("calibration", out["calibration"]),
        html.H2("How far off is a person's expected set?"),
        html.P("Median of (expected set − real set) / real set, by the size of the real set, as on the AnonLand page.",
               className="field-help"),
        graph("divergence", out["divergence"]),
        table(out["ras_rows"], "Median divergence from the real set, by real-set size (expected set and CAS)",
              wrap_class="table-wrap"),
        html.H2("The correlation v2 uses"),
        html.P("ρ of height and ln(weight) per sex and age group among the NHANES adults — used for the countries with "
               "a table of their own (the US, Germany; a stated assumption); an NCD-RisC prior carries its own ρ, "
               "from NCD-RisC's BMI and NHANES' height–BMI dependence. Each person above was scored with the ρ fitted "
               "on the other half of the sample.", className="field-help"),
        table(out["rho_rows"], "ρ(height, ln weight) by sex and age group (NHANES 2017–2018, measured)",
              wrap_class="table-wrap"),
        html.H2("Reproduce this"),
        *command_block(out["command"], "Prints both models' numbers as JSON; add --model v2 or --model paper for one."),
        *prior_content(out["prior"]),
    ]


def prior_content(pr: dict) -> list:
    """The section on the NCD-RisC prior: where a country's own table exists, how close does it come?"""
    head = [html.H2("The NCD-RisC prior, checked where a country's own table exists"),
            html.P("Every country without a body table of its own is described by its NCD-RisC prior (mean height of "
                   "its birth cohorts, its BMI distribution in 2022; the spread and the height–BMI dependence of the "
                   "NHANES adults). Here that prior is built for the US and for Germany and compared with their own "
                   "statistics.", className="field-help")]
    if "error" in pr:
        return head + [html.P(pr["error"], className="field-help", id=_id("prior-message"))]
    return head + [
        html.Div(pr["cards"], className="cards", id=_id("prior-cards")),
        html.Ul([html.Li(x) for x in pr["summaries"]], className="plain-list", id=_id("prior-summary")),
        table(pr["us_rows"], f"US: share of the NHANES adults per cell, observed and predicted (the "
              f"{len(pr['us_rows'])} fullest of {pr['cells']} cells)", wrap_class="table-wrap"),
        table(pr["de_rows"], "DE: the NCD-RisC prior for 2017 against the Mikrozensus 2017 (self-reported), "
              "mean height (cm), mean weight (kg) and how far apart the 5 cm × 5 kg band distributions are",
              wrap_class="table-wrap"),
        *command_block(pr["command"], "Prints both checks as JSON, every cell included."),
    ]
