"""The NCD-RisC prior checked where a country's own table exists (issue 27): the US and Germany.

* **US** — the prior built for the USA (reference year 2018, the NHANES 2017–2018 examinations) against the
  NHANES adults 18–74 as individuals, beside v2's NHANES fit and the paper model (:mod:`._validation`):
  held-out log-likelihood per person of each person's own 5 cm × 5 kg cell, and the share of people in each
  cell, predicted against observed (pooled over sex × age groups by the sample's own counts).  Held out:
  the parts of the prior estimated from NHANES (height SD, height–BMI dependence, change with age) are
  estimated on the *other* half of the sample (the same seeded split as v2's ρ), so no person's record
  informs the prior they are scored with.  The NCD-RisC BMI is of 2022, four years after the sample.
* **DE** — the prior built for Germany in 2017 against the Mikrozensus 2017 table, group by group: mean
  height and weight, and the divergence of the two joint band distributions (5 cm × 5 kg, both under v2:
  the Mikrozensus with the NHANES ρ, the prior with its own).  The Mikrozensus is self-reported (people
  report themselves taller and lighter), so part of any gap is the survey's, not the prior's.

Pure: NumPy/SciPy/pandas, no Dash.
"""
from __future__ import annotations

import copy
import math
from pathlib import Path

import numpy as np
import pandas as pd

from census_loaders import cache
from census_loaders.paths import cache_dir

from .. import bvn
from ..groups import SEXES, format_age_band, open_group_end
from ..memo import lru
from ..text import (
    DEFAULT_LANGUAGE,
    current_language,
    gettext,
    language,
    local_number,
    percent_text,
)
from ._correlation import RHO_GROUPS, correlation_table, nhanes_correlation, rho_for_groups
from ._ncdrisc import (
    NHANES_GROUPS,
    NHANES_YEAR,
    cached_bmi,
    cached_cohorts,
    ncdrisc_prior_frame,
    nhanes_body_stats,
    nhanes_people,
)
from ._v2 import lognormal_params, safe_log
from ._validation import SEED, cell_probabilities, group_stats, load_people, real_sets

#: The Mikrozensus year the German prior is built for.
DE_YEAR: int = 2017
#: Cells of the predicted-against-observed table: heights and weights covered (wider than any adult).
HEIGHT_RANGE: tuple[float, float] = (120.0, 220.0)
WEIGHT_RANGE: tuple[float, float] = (25.0, 250.0)


def _cells(hm, hs, wm, ws, rho, h_edges, w_edges) -> np.ndarray:
    """``P[g, i, j]``: each group's probability of every height × weight cell under v2."""
    mu, sigma = lognormal_params(wm, ws)
    out = np.empty((len(hm), len(h_edges) - 1, len(w_edges) - 1))
    for g in range(len(hm)):
        zh = (h_edges - hm[g]) / hs[g]
        zw = (safe_log(w_edges) - mu[g]) / sigma[g]
        out[g] = bvn.rectangle_grid(zh, zw, float(rho[g]))
    return out


def _fold_priors(people, root: Path | None) -> list[pd.DataFrame]:
    """The USA prior for 2018 built with the NHANES parts of each half: ``[prior scoring fold 0, fold 1]``.

    The people scored are 18–74, so only the groups up to 70–75 come from the halves; the older groups
    (unused here) keep the whole sample's statistics.
    """
    cohorts, bmi = cached_cohorts(root), cached_bmi(root)
    full = nhanes_body_stats(nhanes_people(root), cohorts)
    frame = pd.DataFrame({"sex": np.array(SEXES)[people.sex], "age": people.frame["age"].to_numpy(float),
                          "height_cm": people.height, "weight_kg": people.weight})
    young_groups = tuple(g for g in NHANES_GROUPS if g[1] <= 75.0)
    out = []
    for f in (0, 1):
        part = nhanes_body_stats(frame[people.fold == 1 - f], cohorts, young_groups)
        stats = pd.concat([part, full[full["age_from"] >= 75]], ignore_index=True)
        out.append(ncdrisc_prior_frame("US", NHANES_YEAR, bmi, cohorts, stats))
    return out


def _prior_params(prior: pd.DataFrame, sex: np.ndarray, group: np.ndarray):
    """The prior's ``(hm, hs, wm, ws, rho)`` of each person (prior groups 18–20 … 70–75 = RHO_GROUPS)."""
    prior = prior.sort_values(["sex", "age_from"], kind="mergesort").reset_index(drop=True)
    idx = {}
    for i, r in prior.iterrows():
        idx[(SEXES.index(r["sex"]), float(r["age_from"]))] = i
    rows = np.array([idx[(int(s), RHO_GROUPS[int(g)][0])] for s, g in zip(sex, group)])
    return tuple(prior[c].to_numpy(float)[rows] for c in ("height_mean", "height_sd", "weight_mean", "weight_sd", "rho"))


def validate_us(root: Path | None = None, height_width: float = 5, weight_width: float = 5) -> dict:
    """The USA prior against the NHANES individuals (see the module docstring)."""
    people = load_people(root)
    priors = _fold_priors(people, root)
    h0 = np.floor(people.height / height_width) * height_width
    w0 = np.floor(people.weight / weight_width) * weight_width
    p_prior = np.empty(people.n)
    for f in (0, 1):
        sel = people.fold == f
        hm, hs, wm, ws, rho = _prior_params(priors[f], people.sex[sel], people.group[sel])
        mu, sigma = lognormal_params(wm, ws)
        p_prior[sel] = bvn.rectangle((h0[sel] - hm) / hs, (h0[sel] + height_width - hm) / hs,
                                     (safe_log(w0[sel]) - mu) / sigma, (np.log(w0[sel] + weight_width) - mu) / sigma, rho)
    models = {"ncdrisc": p_prior}
    for name in ("v2", "paper"):
        models[name] = cell_probabilities(people, name, height_width, weight_width)["p"]
    loglik = {}
    for name, p in models.items():
        with np.errstate(divide="ignore"):
            ll = np.log(p)
        loglik[name] = float(ll.mean()) if np.isfinite(ll).all() else -math.inf

    # share of people per cell, predicted (sample's own sex × age counts) against observed
    h_edges = np.arange(HEIGHT_RANGE[0], HEIGHT_RANGE[1] + height_width, height_width)
    w_edges = np.arange(WEIGHT_RANGE[0], WEIGHT_RANGE[1] + weight_width, weight_width)
    cg = people.cell_group
    n_group = np.bincount(cg, minlength=2 * len(RHO_GROUPS)).astype(float)
    observed = np.zeros((len(h_edges) - 1, len(w_edges) - 1))
    hi = np.clip(np.searchsorted(h_edges, people.height, side="right") - 1, 0, len(h_edges) - 2)
    wi = np.clip(np.searchsorted(w_edges, people.weight, side="right") - 1, 0, len(w_edges) - 2)
    np.add.at(observed, (hi, wi), 1.0)
    observed /= people.n
    full_prior = ncdrisc_prior_frame("US", NHANES_YEAR, cached_bmi(root), cached_cohorts(root),
                                     nhanes_body_stats(nhanes_people(root), cached_cohorts(root)))
    sexes = np.repeat(np.arange(2), len(RHO_GROUPS))
    groups = np.tile(np.arange(len(RHO_GROUPS)), 2)
    hm, hs, wm, ws, rho = _prior_params(full_prior, sexes, groups)
    predicted = np.tensordot(n_group / people.n, _cells(hm, hs, wm, ws, rho, h_edges, w_edges), axes=(0, 0))
    own = _own_group_params(people)
    predicted_v2 = np.tensordot(n_group / people.n, _cells(*own, h_edges, w_edges), axes=(0, 0))
    keep = (observed > 0) | (predicted >= 1e-3)
    ii, jj = np.nonzero(keep)
    cells = [{"height": f"{h_edges[i]:g}–{h_edges[i + 1]:g}", "weight": f"{w_edges[j]:g}–{w_edges[j + 1]:g}",
              "observed": float(observed[i, j]), "predicted_ncdrisc": float(predicted[i, j]),
              "predicted_v2": float(predicted_v2[i, j])} for i, j in zip(ii, jj)]
    cells.sort(key=lambda c: -c["observed"])
    tv = {"ncdrisc": 0.5 * float(np.abs(predicted - observed).sum()),
          "v2": 0.5 * float(np.abs(predicted_v2 - observed).sum())}
    out = {
        "population": people.n,
        "height_width": height_width,
        "weight_width": weight_width,
        "seed": SEED,
        "prior_year": NHANES_YEAR,
        "heldout_loglik_per_person": loglik,
        "cell_share_total_variation": tv,
        "cells": cells,
        "ras_1_people": int((real_sets(people, height_width, weight_width) == 1).sum()),
    }
    out["summary"] = english(us_summary, out)
    return out


def english(sentence, result: dict) -> str:
    """``sentence(result)`` in English: the report's own summary (``--json``) never depends on who asked first."""
    with language(DEFAULT_LANGUAGE):
        return sentence(result)


def _n(x: float, spec: str) -> str:
    return local_number(format(x, spec))


def _signed(x: float, spec: str) -> str:
    """``+1.2`` / ``-1.2`` (English as the CLI always wrote it), ``+1,2`` / ``−1,2`` elsewhere."""
    if current_language() == DEFAULT_LANGUAGE:
        return format(x, "+" + spec)
    return ("+" if x >= 0 else "−") + local_number(format(abs(x), spec))


def _pct(share: float, digits: int) -> str:
    return f"{share:.{digits}%}" if current_language() == DEFAULT_LANGUAGE else percent_text(f"{100 * share:.{digits}f}")


def us_summary(us: dict) -> str:
    """The US check in one sentence, in the current language (the page writes it in the visitor's)."""
    loglik, tv = us["heldout_loglik_per_person"], us["cell_share_total_variation"]
    worse = loglik["v2"] - loglik["ncdrisc"]
    gap = (gettext("{worse} nats per person worse than the own fit (each person's cell {factor}× less probable on "
                   "average)").format(worse=_n(worse, ".3f"), factor=_n(math.exp(worse), ".2f")) if worse > 0 else
           gettext("{better} nats per person better than the own fit").format(better=_n(-worse, ".3f")))
    return gettext("US: the NCD-RisC prior scores {prior} nats per person against {v2} for v2 fitted on NHANES itself "
                   "and {paper} for the paper model: {gap}; the predicted cell shares differ from the observed by "
                   "{tv} (total variation; v2's own fit {tv_v2}).").format(
        prior=_n(loglik["ncdrisc"], ".3f"), v2=_n(loglik["v2"], ".3f"), paper=_n(loglik["paper"], ".3f"), gap=gap,
        tv=_pct(tv["ncdrisc"], 1), tv_v2=_pct(tv["v2"], 1))


def _own_group_params(people):
    """v2's NHANES fit per sex × age group (``2·G`` rows, sex-major): its own means and SDs, ρ of all people."""
    st = group_stats(people)
    frame = pd.DataFrame({"sex": np.array(SEXES)[people.sex], "age": [RHO_GROUPS[g][0] for g in people.group],
                          "height_cm": people.height, "weight_kg": people.weight})
    rho = np.nan_to_num(correlation_table(frame)["rho"].to_numpy(float))  # indexed sex * G + group
    return st["height_mean"], st["height_sd"], st["weight_mean"], st["weight_sd"], rho


def _divergences(p: np.ndarray, q: np.ndarray) -> tuple[float, float]:
    """Total variation and Jensen–Shannon divergence (bits) of two cell distributions."""
    p, q = p / p.sum(), q / q.sum()
    m = 0.5 * (p + q)

    def kl(a: np.ndarray) -> float:
        on = a > 0  # m ≥ a / 2 > 0 there
        return float(np.sum(a[on] * np.log2(a[on] / m[on])))

    return 0.5 * float(np.abs(p - q).sum()), 0.5 * (kl(p) + kl(q))


def validate_de(root: Path | None = None, height_width: float = 5, weight_width: float = 5) -> dict:
    """The prior for Germany in 2017 against the Mikrozensus 2017 table, group by group."""
    own = cache.body_priors("DE", root).sort_values(["sex", "age_from"], kind="mergesort").reset_index(drop=True)
    everyone = nhanes_people(root)
    cohorts = cached_cohorts(root)
    prior = ncdrisc_prior_frame("DE", DE_YEAR, cached_bmi(root), cohorts, nhanes_body_stats(everyone, cohorts))
    own_sex = own["sex"].map(SEXES.index).to_numpy()
    own_lo = own["age_from"].to_numpy(float)
    own_hi = np.where(own["age_to"].isna(), np.inf, own["age_to"].to_numpy(float))
    own_rho = rho_for_groups(nhanes_correlation(root), own_sex, own_lo, own_hi)
    h_edges = np.arange(HEIGHT_RANGE[0], HEIGHT_RANGE[1] + height_width, height_width)
    w_edges = np.arange(WEIGHT_RANGE[0], WEIGHT_RANGE[1] + weight_width, weight_width)
    own_cells = _cells(own["height_mean"].to_numpy(float), own["height_sd"].to_numpy(float),
                       own["weight_mean"].to_numpy(float), own["weight_sd"].to_numpy(float), own_rho, h_edges, w_edges)
    rows = []
    for g in range(len(own)):
        s, lo, hi = SEXES[own_sex[g]], own_lo[g], own_hi[g]
        pr = prior[(prior["sex"] == s) & (prior["age_from"] >= lo) & (prior["age_from"] < hi)]
        # the prior groups inside the Mikrozensus group, weighted by the years each covers
        top = hi if math.isfinite(hi) else open_group_end(lo)
        years = np.array([min(b if pd.notna(b) else open_group_end(a), top) - a
                          for a, b in zip(pr["age_from"], pr["age_to"])])
        wts = years / years.sum()
        pc = _cells(pr["height_mean"].to_numpy(float), pr["height_sd"].to_numpy(float), pr["weight_mean"].to_numpy(float),
                    pr["weight_sd"].to_numpy(float), pr["rho"].to_numpy(float), h_edges, w_edges)
        mix = np.tensordot(wts, pc, axes=(0, 0))
        tv, js = _divergences(own_cells[g], mix)
        rows.append({
            "sex": s, "age": format_age_band(lo, hi),
            "height_mean_mikrozensus": float(own["height_mean"][g]), "height_mean_prior": float(np.dot(wts, pr["height_mean"])),
            "weight_mean_mikrozensus": float(own["weight_mean"][g]), "weight_mean_prior": float(np.dot(wts, pr["weight_mean"])),
            "height_sd_mikrozensus": float(own["height_sd"][g]), "weight_sd_mikrozensus": float(own["weight_sd"][g]),
            "band_total_variation": tv, "band_js_divergence_bits": js,
            "prior_groups": [format_age_band(a, b if pd.notna(b) else math.inf) for a, b in zip(pr["age_from"], pr["age_to"])],
        })
    dh = np.array([r["height_mean_prior"] - r["height_mean_mikrozensus"] for r in rows])
    dw = np.array([r["weight_mean_prior"] - r["weight_mean_mikrozensus"] for r in rows])
    tvs = np.array([r["band_total_variation"] for r in rows])
    out = {
        "prior_year": DE_YEAR,
        "height_width": height_width,
        "weight_width": weight_width,
        "groups": rows,
        "mean_abs_height_gap_cm": float(np.mean(np.abs(dh))),
        "mean_abs_weight_gap_kg": float(np.mean(np.abs(dw))),
        "median_band_total_variation": float(np.median(tvs)),
    }
    out["summary"] = english(de_summary, out)
    return out


def de_summary(de: dict) -> str:
    """The German check in one sentence, in the current language (from the groups' own numbers)."""
    rows = de["groups"]
    dh = np.array([r["height_mean_prior"] - r["height_mean_mikrozensus"] for r in rows])
    dw = np.array([r["weight_mean_prior"] - r["weight_mean_mikrozensus"] for r in rows])
    tvs = np.array([r["band_total_variation"] for r in rows])
    worst = rows[int(np.argmax(tvs))]
    return gettext("DE: against the Mikrozensus 2017 (self-reported), the NCD-RisC prior's mean heights differ by "
                   "{height_lo} to {height_hi} cm (mean |gap| {height_gap} cm) and its mean weights by {weight_lo} to "
                   "{weight_hi} kg (mean |gap| {weight_gap} kg); the 5 cm × 5 kg band distributions differ by a median "
                   "{median} (total variation), most for {group} ({worst}). Self-reports run taller and lighter "
                   "than measurements, so part of each gap is the survey's.").format(
        height_lo=_signed(dh.min(), ".1f"), height_hi=_signed(dh.max(), ".1f"),
        height_gap=_n(float(np.mean(np.abs(dh))), ".1f"), weight_lo=_signed(dw.min(), ".1f"),
        weight_hi=_signed(dw.max(), ".1f"), weight_gap=_n(float(np.mean(np.abs(dw))), ".1f"),
        median=_pct(float(np.median(tvs)), 0), group=(gettext("female {age}") if worst["sex"] == "female" else gettext("male {age}")).format(age=worst["age"]),
        worst=_pct(worst["band_total_variation"], 0))


def validate_prior(root: Path | None = None, height_width: float = 5, weight_width: float = 5) -> dict:
    """Both checks: ``{"us": …, "de": …}`` (see the module docstring); memoised per cache version (a deep copy)."""
    root = Path(root) if root is not None else cache_dir()
    try:
        stamp = (root / "manifest.json").stat().st_mtime_ns
    except FileNotFoundError:
        stamp = -1
    return copy.deepcopy(_validate_prior(str(root), stamp, float(height_width), float(weight_width)))


@lru(4)
def _validate_prior(root: str, stamp: int, height_width: float, weight_width: float) -> dict:
    r = Path(root)
    return {"us": validate_us(r, height_width, weight_width), "de": validate_de(r, height_width, weight_width)}
