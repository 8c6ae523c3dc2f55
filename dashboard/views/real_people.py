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
from dashboard.core.body import de_summary, us_summary, validate_nhanes, validate_prior
from dashboard.core.errors import InputError
from dashboard.core.text import gettext as _
from dashboard.core.text import local_number, percent_suffix, translate_marked
from dashboard.figures.real_people import MODEL_NAMES, calibration_figure, divergence_figure
from dashboard.figures.style import graph_config

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
    """The validation report of both models (memoised: the sample does not change while the app runs; numbers only,
    every sentence is written at render time in the page's language)."""
    return validate_nhanes()


def warm() -> None:
    try:
        report()
        prior_report()
    except InputError:
        pass  # no NHANES sample (or no NCD-RisC table) in this cache: the page says so


def _num(x: float, spec: str) -> str:
    """``format(x, spec)`` with the language's marks (a minus as "−" outside English)."""
    return local_number(format(x, spec))


def _pct(x) -> str:
    """A signed whole percentage: "+12 %", "−40 %" (the language's percent sign)."""
    if x is None:
        return "–"
    return _signed(100 * x, ".0f") + percent_suffix()


def _signed(x: float, spec: str) -> str:
    return ("+" if x >= 0 else "−") + local_number(format(abs(x), spec))


def _whole_percent(share: float) -> str:
    return local_number(f"{100 * share:.0f}") + percent_suffix()


def _share(share: float, digits: int = 2) -> str:
    """A share as a percentage with ``digits`` decimals: "1.23 %" / "1,23 %"."""
    return local_number(f"{100 * share:.{digits}f}") + percent_suffix()


def summary_cards(r: dict) -> list:
    v2, paper = r["models"]["v2"], r["models"]["paper"]
    gain = v2["heldout_loglik_per_person"] - paper["heldout_loglik_per_person"]
    return [
        card(_("Typical error, real sets of 10 or more"),
             _("{v2} vs {paper}").format(v2=_whole_percent(v2["median_abs_divergence"]),
                                         paper=_whole_percent(paper["median_abs_divergence"])),
             _("Median of |expected set − real set| / real set: v2 against the paper model. Lower is better."),
             value_id=_id("mad")),
        card(_("Fit to the real people (log-likelihood)"),
             _("{v2} vs {paper}").format(v2=_num(v2["heldout_loglik_per_person"], ".3f"),
                                         paper=_num(paper["heldout_loglik_per_person"], ".3f")),
             _("Mean log-probability (nats) of each person's own cell, the correlation fitted on the other half: v2 is "
               "higher by {gain}, i.e. it gives the cells people are really in about {more} more probability.").format(
                 gain=_num(gain, ".3f"), more=_whole_percent(2.718281828 ** gain - 1)),
             value_id=_id("loglik")),
        card(_("People the aggregates leave out"),
             _("{v2} vs {paper}").format(v2=_whole_percent(v2["left_out_share"]),
                                         paper=_whole_percent(paper["left_out_share"])),
             _("The paper model drops every cell whose centre BMI lies outside 17–30 from its aggregates; v2 keeps "
               "everyone."), value_id=_id("left-out")),
    ]


def _range(key: str) -> str:
    """A real-set range ("1", "2–4", "10+") with the language's digits."""
    return key if not key[:1].isdigit() else "".join(local_number(part) if part.isdigit() else part
                                                       for part in _split_digits(key))


def _split_digits(text: str) -> list[str]:
    out, cur = [], ""
    for ch in text:
        if cur and ch.isdigit() != cur[-1].isdigit():
            out.append(cur)
            cur = ""
        cur += ch
    return out + ([cur] if cur else [])


def ras_rows(r: dict) -> list[dict]:
    rows = []
    v2 = {x["range"]: x for x in r["models"]["v2"]["by_ras"]}
    paper = {x["range"]: x for x in r["models"]["paper"]["by_ras"]}
    for key, a in v2.items():
        if not a["n"]:
            continue
        b = paper[key]
        rows.append({
            _("real set"): _range(key), _("people"): a["n"],
            _("v2: expected set"): _pct(a["median_divergence_expected"]), _("v2: CAS"): _pct(a["median_divergence_cas"]),
            _("paper: expected set"): _pct(b["median_divergence_expected"]),
            _("paper: CAS"): _pct(b["median_divergence_cas"]),
        })
    return rows


def rho_rows(r: dict) -> list[dict]:
    by = {}
    for x in r["models"]["v2"]["correlation"]:
        label = f"{x['age_from']:g}–{x['age_to']:g}"
        by.setdefault(label, {"age": label})[x["sex"]] = "–" if x["rho"] is None else _num(x["rho"], ".2f")
        by[label][f"{x['sex']} n"] = x["n"]
    return [{_("age"): v["age"], _("women ρ"): v.get("female", "–"), _("women n"): v.get("female n", 0),
             _("men ρ"): v.get("male", "–"), _("men n"): v.get("male n", 0)} for v in by.values()]


def explanation(r: dict) -> list:
    v2, paper = r["models"]["v2"], r["models"]["paper"]
    ras1 = next(x for x in v2["by_ras"] if x["range"] == "1")
    sr = r.get("self_report", {})
    lo = min(c["ratio"] for c in paper["calibration"]) - 1
    hi = max(c["ratio"] for c in paper["calibration"]) - 1
    # one sentence for the translator; the count is set in bold where the language puts it
    first = _("Every one of the {population} NHANES adults (18–74, height and weight measured by examiners) is treated "
              "as a resident of a small country. Their real anonymity set is the number of them with the same sex, age "
              "group, 5 cm height band and 5 kg weight band. {alone} are alone in their cell.")
    before, after = first.split("{population}", 1)
    items = [
        html.Li([before, html.B(local_number(f"{r['population']:,}")),
                 after.format(alone=local_number(f"{r['people_with_ras_1']:,}"))]),
        html.Li(_("For each person the model predicts the set from summary statistics only (the counts per sex × age "
                  "group and the means and SDs of height and weight) — exactly what AnonSet does for a census. The "
                  "expected set is you plus the others the model expects: 1 + (N − 1)·p.")),
        html.Li(_("The paper model says too little about where real people are: in every tenth of its predictions the "
                  "real cells are fuller than predicted (by {low}–{high}), because tall people tend to be heavier and "
                  "weights are skewed. v2 predicts within {within} in every tenth.").format(
            low=local_number(f"{100 * lo:.0f}"), high=_whole_percent(hi),
            within=_whole_percent(max(abs(c["ratio"] - 1) for c in v2["calibration"])))),
        html.Li(_("Where a person is alone in their cell (real set 1), CAS — the people expected to have the profile — "
                  "is {cas} in the median: below the one person who certainly has it. The expected set counts that "
                  "person and adds the others the model expects; it is {expected}: the model expects some company "
                  "where, in this sample, there happens to be none. A cell's real count scatters around its "
                  "expectation, so small sets are never hit exactly; the personal page leads with the expected set "
                  "(“you and about X others”) because it is never below one.").format(
            cas=_pct(ras1["median_divergence_cas"]), expected=_pct(ras1["median_divergence_expected"]))),
        html.Li(_("Large real sets are under-predicted by both models in the median: picking people whose cell happens "
                  "to be full picks cells with more people than expected (a selection effect, not a model error). v2 "
                  "is closer.")),
    ]
    if sr:
        items.append(html.Li(_(
            "People over-report their height by {height} cm and under-report their weight by {weight} kg on average "
            "(self-report minus measurement). Germany's statistics are self-reported; the command line offers "
            "--self-report-correction.").format(height=_signed(sr["height_cm"]["mean"], ".1f"),
                                                 weight=_num(-sr["weight_kg"]["mean"], ".1f"))))
    return items


@memo.lru(1)
def prior_report() -> dict:
    """The NCD-RisC prior against the US and German own tables (issue 27), memoised (numbers; sentences at render)."""
    return validate_prior()


def prior_cards(p: dict) -> list:
    ll = p["us"]["heldout_loglik_per_person"]
    tv = p["us"]["cell_share_total_variation"]
    de = p["de"]
    return [
        card(_("US: fit to the real people, NCD-RisC prior"),
             _("{prior} vs {v2} vs {paper}").format(prior=_num(ll["ncdrisc"], ".3f"), v2=_num(ll["v2"], ".3f"),
                                                    paper=_num(ll["paper"], ".3f")),
             _("Held-out log-likelihood per person (nats): the prior built for the USA from NCD-RisC, v2 fitted on "
               "NHANES itself, and the paper model. Higher is better."), value_id=_id("prior-loglik")),
        card(_("US: cell shares off by"),
             _("{v2} vs {paper}").format(v2=_whole_percent(tv["ncdrisc"]), paper=_whole_percent(tv["v2"])),
             _("Total variation between the predicted and the observed share of people per 5 cm × 5 kg cell: NCD-RisC "
               "prior against v2's own fit."), value_id=_id("prior-tv")),
        card(_("DE: mean height and weight gap"),
             _("{height} cm, {weight} kg").format(height=_num(de["mean_abs_height_gap_cm"], ".1f"),
                                                  weight=_num(de["mean_abs_weight_gap_kg"], ".1f")),
             _("Mean absolute gap per sex × age group between the NCD-RisC prior for Germany (2017) and the "
               "Mikrozensus 2017 (self-reported)."), value_id=_id("prior-de")),
    ]


def _band(text: str) -> str:
    """A band "170–175" with the language's digits."""
    return "–".join(local_number(part) for part in text.split("–"))


def prior_us_rows(p: dict) -> list[dict]:
    return [{_("height cm"): _band(c["height"]), _("weight kg"): _band(c["weight"]), _("observed"): _share(c["observed"]),
             _("NCD-RisC prior"): _share(c["predicted_ncdrisc"]), _("v2 NHANES fit"): _share(c["predicted_v2"])}
            for c in p["us"]["cells"][:PRIOR_CELLS_SHOWN]]


def prior_de_rows(p: dict) -> list[dict]:
    return [{_("sex"): translate_marked(g["sex"]), _("age"): g["age"],
             _("height, Mikrozensus"): _num(g["height_mean_mikrozensus"], ".1f"),
             _("height, prior"): _num(g["height_mean_prior"], ".1f"),
             _("weight, Mikrozensus"): _num(g["weight_mean_mikrozensus"], ".1f"),
             _("weight, prior"): _num(g["weight_mean_prior"], ".1f"),
             _("bands apart (TV)"): _whole_percent(g["band_total_variation"]),
             _("JS divergence (bits)"): _num(g["band_js_divergence_bits"], ".3f")}
            for g in p["de"]["groups"]]


def render_prior() -> dict:
    """The prior section, or ``{"error": message}`` when the cache lacks what it needs."""
    try:
        p = prior_report()
    except InputError as exc:
        return {"error": _("The NCD-RisC prior cannot be checked: {reason}").format(reason=exc)}
    return {"cards": prior_cards(p), "us_rows": prior_us_rows(p), "de_rows": prior_de_rows(p),
            "summaries": [us_summary(p["us"]), de_summary(p["de"])], "command": PRIOR_COMMAND,
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
        "models": {k: translate_marked(MODEL_NAMES[k]) for k in r["models"]},
    }


def graph(key: str, fig: dict):
    return dcc.Graph(id=ID[key], figure=fig, config=graph_config())


def content(out: dict) -> list:
    return [
        html.Div(out["cards"], className="cards", id=ID["cards"]),
        html.H2(_("What the numbers mean")),
        html.Ul(out["explanation"], className="plain-list"),
        html.H2(_("Are the predicted cells as full as the real ones?")),
        html.P(_("People grouped into tenths by the probability the model gives their own cell. On the dashed line the "
                 "model is right on average; above it, real cells are fuller than the model thinks (it overstates how "
                 "unique people are)."), className="field-help"),
        graph("calibration", out["calibration"]),
        html.H2(_("How far off is a person's expected set?")),
        html.P(_("Median of (expected set − real set) / real set, by the size of the real set, as on the AnonLand "
                 "page."), className="field-help"),
        graph("divergence", out["divergence"]),
        table(out["ras_rows"], _("Median divergence from the real set, by real-set size (expected set and CAS)"),
              wrap_class="table-wrap"),
        html.H2(_("The correlation v2 uses")),
        html.P(_("ρ of height and ln(weight) per sex and age group among the NHANES adults — used for the countries "
                 "with a table of their own (the US, Germany; a stated assumption); an NCD-RisC prior carries its own "
                 "ρ, from NCD-RisC's BMI and NHANES' height–BMI dependence. Each person above was scored with the ρ "
                 "fitted on the other half of the sample."), className="field-help"),
        table(out["rho_rows"], _("ρ(height, ln weight) by sex and age group (NHANES 2017–2018, measured)"),
              wrap_class="table-wrap"),
        html.H2(_("Reproduce this")),
        *command_block(out["command"], _("Prints both models' numbers as JSON; add --model v2 or --model paper for "
                                         "one.")),
        *prior_content(out["prior"]),
    ]


def prior_content(pr: dict) -> list:
    """The section on the NCD-RisC prior: where a country's own table exists, how close does it come?"""
    head = [html.H2(_("The NCD-RisC prior, checked where a country's own table exists")),
            html.P(_("Every country without a body table of its own is described by its NCD-RisC prior (mean height "
                     "of its birth cohorts, its BMI distribution in 2022; the spread and the height–BMI dependence of "
                     "the NHANES adults). Here that prior is built for the US and for Germany and compared with their "
                     "own statistics."), className="field-help")]
    if "error" in pr:
        return head + [html.P(pr["error"], className="field-help", id=_id("prior-message"))]
    return head + [
        html.Div(pr["cards"], className="cards", id=_id("prior-cards")),
        html.Ul([html.Li(x) for x in pr["summaries"]], className="plain-list", id=_id("prior-summary")),
        table(pr["us_rows"], _("US: share of the NHANES adults per cell, observed and predicted (the {shown} fullest "
                               "of {cells} cells)").format(shown=len(pr["us_rows"]),
                                                          cells=local_number(f"{pr['cells']:,}")),
              wrap_class="table-wrap"),
        table(pr["de_rows"], _("DE: the NCD-RisC prior for 2017 against the Mikrozensus 2017 (self-reported), mean "
                               "height (cm), mean weight (kg) and how far apart the 5 cm × 5 kg band distributions "
                               "are"), wrap_class="table-wrap"),
        *command_block(pr["command"], _("Prints both checks as JSON, every cell included.")),
    ]
