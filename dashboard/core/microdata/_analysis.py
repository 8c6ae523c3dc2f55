"""“How identifiable is a data set?” — every SPEC §5 figure for one table and one choice of columns.

:func:`analyse` runs the four parts on the same prepared records and returns plain data:

* empirical classes (:mod:`.microdata`);
* two models of p(x) — the Gaussian copula (:mod:`._copula`) and the latent class model
  (:mod:`._latent`) — each with Ξ at the data set's own size (fitted on all records), the curve
  Ξ(N) up to 8 × 10⁹ and the paper's validation (fit on a fraction, predict the whole; MAE, AUC
  and calibration of ξ); the one that validates better (or the one asked for) gives each
  record's ξ and κ at the chosen population N and the greedy "one more attribute" order, and the
  summary says which and why (``model``);
* TFRR (:mod:`.tfrr`): exact recursive hypergeometric and binomial risks, AUC against the
  empirical uniqueness;
* the Pitman–Yor fit of the class sizes (:func:`.pyc_fit.fit_partition`), with the link that
  opens the scaling page on it.

The :class:`Analysis` keeps the per-record arrays for the page; :meth:`Analysis.summary` is the
JSON of ``anonset dataset --json``.  Nothing here reads or writes files.
"""
from __future__ import annotations

import csv
import io
import math
import time
from dataclasses import dataclass, field
from urllib.parse import urlencode

import numpy as np

from .. import scaling as pyc_fit
from ..errors import InputError
from ..text import gettext as _
from ..text import translate_marked
from . import _copula as copula
from . import _latent as latent
from . import _models as models
from . import _tfrr as tfrr
from ._records import KS, Prepared, Table, empirical, prepare, roc_curve
from ._words import num, pct

DEFAULT_FRACTION = 0.1
DEFAULT_TRIALS = 3
MAX_TRIALS = 20
#: The scaling page's accepted ranges (dashboard/pages/scaling.py: H_LIMITS, GAMMA_LIMITS).
SCALING_H_BITS = (0.01, 100.0)
SCALING_GAMMA = (-50.0, 50.0)


@dataclass
class Analysis:
    prepared: Prepared
    population: float
    summary_dict: dict
    p: np.ndarray                 # the chosen model's cell probability per record
    xi: np.ndarray                # at the chosen population
    kappa: np.ndarray
    risk: np.ndarray | None       # TFRR exact, 1 − P(2-indistinguishable)
    risk_binomial: np.ndarray | None
    class_size: np.ndarray
    curves: dict = field(default_factory=dict)
    model: str = "copula"         # the model p, xi and kappa come from

    @property
    def chosen(self) -> dict:
        """The chosen model's block of the summary."""
        return self.summary_dict["copula" if self.model == "copula" else "latent_class"]

    def summary(self) -> dict:
        return self.summary_dict


def check_fraction(value) -> float:
    try:
        f = float(value)
    except (TypeError, ValueError):
        raise InputError(_("the validation fraction must be a number, not {value}").format(
            value=repr(str(value)[:20]))) from None
    if not (math.isfinite(f) and 0 < f < 1):
        raise InputError(_("the validation fraction must lie between 0 and 1 (e.g. {example}), not {value}").format(
            example=num(0.1, "g"), value=str(value)[:20]))
    return f


def check_trials(value) -> int:
    try:
        t = int(value)
    except (TypeError, ValueError):
        raise InputError(_("the number of validation trials must be a whole number, not {value}").format(
            value=repr(str(value)[:20]))) from None
    if not 1 <= t <= MAX_TRIALS:
        raise InputError(_("the number of validation trials must lie between 1 and {most}, not {value}").format(
            most=MAX_TRIALS, value=t))
    return t


def scaling_url(h_bits: float, gamma: float, n: float) -> str | None:
    """The scaling page's "Explore the law" view on these parameters (None outside its ranges)."""
    if not (SCALING_H_BITS[0] <= h_bits <= SCALING_H_BITS[1] and SCALING_GAMMA[0] <= gamma <= SCALING_GAMMA[1]):
        return None
    n = min(max(float(n), 1.0), copula.WORLD)
    return "/scaling?" + urlencode({"view": "explore", "h": f"{h_bits:.4g}", "gamma": f"{gamma:.4g}",
                                    "n": f"{n:.0f}"})


def pitman_yor(emp, population: float, grid: np.ndarray) -> dict:
    """Pitman–Yor fit of the class sizes (counts of counts), or the reason it is not available."""
    try:
        fit = pyc_fit.fit_partition(emp.sizes, emp.multiplicities)
    except InputError as exc:
        return {"available": False, "reason": str(exc), "h_bits": None, "gamma": None}
    out = fit.to_dict()
    out["available"] = True
    out["uniqueness_at_n"] = float(fit.uniqueness(float(emp.n_records)))
    out["uniqueness_at_population"] = float(fit.uniqueness(population))
    out["kappa_at_population"] = float(fit.kappa(population))
    out["curve"] = [{"n": float(n), "value": float(v)} for n, v in zip(grid, np.atleast_1d(fit.uniqueness(grid)))]
    out["scaling_url"] = scaling_url(fit.h_bits, fit.gamma, population)
    return out


def _model_block(name: str, model, prep, n: int, N: float, seed: int) -> tuple[dict, np.ndarray]:
    """Headline figures of one fitted model over all records, and its p(x) per record."""
    p, se = model.cell_prob(prep.codes, seed=seed)
    grid = copula.population_grid(n)
    uniq_p, counts_p = np.unique(p, return_counts=True)
    curve = copula.population_uniqueness(uniq_p, grid, weights=counts_p)
    xi = copula.uniqueness(p, N)
    out = {
        "uniqueness": float(copula.uniqueness(p, n).mean()),
        "population": N,
        "uniqueness_at_population": float(xi.mean()),
        "correctness_at_population": float(copula.correctness(p, N).mean()),
        "records_xi_above_0_95": int(np.sum(xi > 0.95)),
        "population_uniqueness": [{"n": float(g), "value": float(v)} for g, v in zip(grid, curve)],
    }
    if name == models.COPULA:
        rel = np.divide(se, p, out=np.zeros_like(se), where=p > 0)
        out.update({
            "correlation": model.corr.round(6).tolist(),
            "pairwise_correlation": model.pairwise.round(6).tolist(),
            "projection_change": model.projection_change,
            "integration": {
                "method": (_("exact marginal") if prep.codes.shape[1] == 1 else _("exact bivariate normal (Genz)")
                           if prep.codes.shape[1] == 2 else
                           _("Genz separation of variables, randomised QMC: {sets} scrambled Sobol sets of {points} "
                             "points").format(sets=copula.N_REP, points=num(copula.N_POINTS, "d"))),
                "rel_se_median": float(np.median(rel)), "rel_se_max": float(np.max(rel)),
            },
            "notes": list(model.notes),
        })
    else:
        fit = model.to_dict()
        fit["companion_text"] = [translate_marked(latent.COMPANION_TEXT).format(child=prep.columns[c],
                                                                                 partner=prep.columns[q])
                                 for c, q in fit["companions"]]
        out.update({"fit": fit, "notes": list(model.notes),
                    "integration": {"method": _("exact (a sum over the latent classes)"), "rel_se_median": 0.0,
                                    "rel_se_max": 0.0}})
    out["_curve"] = curve
    return out, p


def analyse(table: Table, columns, bins=None, missing: str = "drop", population=None,
            fraction=None, trials=DEFAULT_TRIALS, seed: int = 0, greedy: bool = True,
            validation: bool = True, model: str = "auto", classes_rule: str | None = None) -> Analysis:
    """Run every part (see the module notes); InputError for any bad choice, before any work.

    ``classes_rule``: how the latent class model chooses its number of classes (``unique-shares``, the
    default, ``bic`` or ``heldout``; its fit and its validation both use it).
    ``model``: ``copula``, ``latent-class`` or ``auto`` (the one that validates better).  Both are
    fitted and validated; the chosen one gives the per-record ξ, κ and the greedy order.  A
    ``fraction`` given explicitly that leaves fewer than 50 training records is an error
    (:class:`FractionError`); the default fraction on a small table only skips the validation.
    """
    explicit_fraction = fraction not in (None, "")
    fraction = check_fraction(fraction if explicit_fraction else DEFAULT_FRACTION)
    trials = check_trials(trials)
    model = models.check_model(model)
    classes_rule = models.check_classes_rule(classes_rule)
    prep = prepare(table, columns, bins, missing, seed=seed)
    n = prep.n
    N = float(n) if population in (None, "") else copula.check_population(population, n)
    if explicit_fraction and validation and int(round(fraction * n)) < 50:
        raise copula.FractionError(_("a validation fraction of {fraction} leaves {fit} of {records} records to fit "
                                     "on; at least 50 are needed: choose a larger fraction").format(
            fraction=pct(fraction), fit=num(int(round(fraction * n))), records=num(n)))
    timing: dict[str, float] = {}

    t0 = time.perf_counter()
    emp = empirical(prep.codes)
    timing["empirical"] = time.perf_counter() - t0

    blocks, probs, fitted = {}, {}, {}
    for name in models.MODELS:
        t0 = time.perf_counter()
        fitted[name] = models.fit_model(name, prep.codes, prep.cards, seed=seed, classes_rule=classes_rule)
        blocks[name], probs[name] = _model_block(name, fitted[name], prep, n, N, seed)
        if validation:
            try:
                blocks[name]["validation"] = models.validate_model(name, prep.codes, prep.cards, emp.class_size == 1,
                                                                   fraction, trials, seed=seed,
                                                                   classes_rule=classes_rule)
            except InputError as exc:
                blocks[name]["validation"] = {"mae": None, "auc": None, "reason": str(exc), "fraction": fraction}
        timing[name] = time.perf_counter() - t0
    if model == "auto":
        chosen, why = models.choose({m: b.get("validation", {}) for m, b in blocks.items()}, prep.ordinal)
    else:
        chosen = model
        auto, auto_why = models.choose({m: b.get("validation", {}) for m, b in blocks.items()}, prep.ordinal)
        if auto != model:
            why = _("{model}: chosen by you (the default here would be the {default}: {reason})").format(
                model=models.model_name(model), default=models.model_name(auto), reason=auto_why.split(": ", 1)[1])
        else:
            why = _("{model}: chosen by you").format(model=models.model_name(model))
    p = probs[chosen]
    xi = copula.uniqueness(p, N)
    kappa = copula.correctness(p, N)
    grid = copula.population_grid(n)
    curves = {"grid": grid, "model": blocks[chosen]["_curve"], "copula": blocks[models.COPULA]["_curve"],
              "latent-class": blocks[models.LATENT_CLASS]["_curve"]}
    for b in blocks.values():
        b.pop("_curve")
    if greedy:
        t0 = time.perf_counter()
        steps = copula.one_more_attribute(fitted[chosen], prep.codes, N, n, seed=seed)
        for s in steps:
            s["name"] = prep.columns[s["column"]]
            s["names"] = [prep.columns[j] for j in s["columns"]]
        blocks[chosen]["one_more_attribute"] = steps
        timing["one_more_attribute"] = time.perf_counter() - t0
    cop = blocks[models.COPULA]

    t0 = time.perf_counter()
    tf = tfrr.analyse_tfrr(prep.codes, emp.class_size, KS)
    timing["tfrr"] = time.perf_counter() - t0
    t_out = {k: tf[k] for k in ("auc", "auc_binomial", "auc_k", "auc_k_binomial", "max_abs_difference",
                                "distinct_count_vectors")}
    t_out["mean_risk"] = float(np.mean(tf["risk"]))
    t_out["mean_risk_binomial"] = float(np.mean(tf["risk_binomial"]))
    t_out["roc"] = _rocs(tf, emp.class_size)

    t0 = time.perf_counter()
    py = pitman_yor(emp, N, grid)
    timing["pyc"] = time.perf_counter() - t0

    summary = {
        "source": table.name,
        "n_input": prep.n_input,
        "n_records": n,
        "dropped": prep.dropped,
        "columns": prep.columns,
        "bins": prep.widths,
        "missing": prep.missing,
        "warnings": prep.warnings,
        "empirical": emp.to_dict(),
        "model": {"chosen": chosen, "name": models.MODEL_NAMES[chosen], "reason": why, "requested": model,
                  "classes_rule": classes_rule, "classes_rule_text": latent.RULE_TEXT[classes_rule]},
        "copula": cop,
        "latent_class": blocks[models.LATENT_CLASS],
        "tfrr": t_out,
        "pyc": py,
        "seconds": {k: round(v, 3) for k, v in timing.items()},
    }
    return Analysis(prepared=prep, population=N, summary_dict=summary, p=p, xi=xi, kappa=kappa,
                    risk=tf["risk"], risk_binomial=tf["risk_binomial"], class_size=emp.class_size,
                    curves=curves, model=chosen)


def _rocs(tf: dict, class_size: np.ndarray) -> dict:

    label = class_size == 1
    return {"exact": roc_curve(tf["risk"], label), "binomial": roc_curve(tf["risk_binomial"], label)}


RECORD_FIELDS = ("record", "class_size", "p", "xi", "kappa", "tfrr_risk", "tfrr_risk_binomial")


def records_csv(analysis: Analysis, include_values: bool = False) -> str:
    """One CSV row per analysed record: its row number in the input (1 = first record), its class size,
    the chosen model's p(x), ξ and κ at the chosen N, and the TFRR risks (exact and binomial).

    The quasi-identifier values are left out unless ``include_values``: the file then says how exposed
    each record is without repeating what exposes it.
    """
    prep = analysis.prepared
    buf = io.StringIO()
    writer = csv.writer(buf, lineterminator="\n")
    header = list(RECORD_FIELDS) + (list(prep.columns) if include_values else [])
    writer.writerow(header)
    risk = analysis.risk if analysis.risk is not None else np.full(prep.n, np.nan)
    risk_b = analysis.risk_binomial if analysis.risk_binomial is not None else np.full(prep.n, np.nan)
    for i in range(prep.n):
        row = [int(prep.row_index[i]) + 1, int(analysis.class_size[i]), f"{analysis.p[i]:.6g}",
               f"{analysis.xi[i]:.6g}", f"{analysis.kappa[i]:.6g}", f"{risk[i]:.6g}", f"{risk_b[i]:.6g}"]
        if include_values:
            row += [str(prep.labels[j][prep.codes[i, j]]) for j in range(len(prep.columns))]
        writer.writerow(row)
    return buf.getvalue()


def riskiest(analysis: Analysis, limit: int = 20) -> list[dict]:
    """The records most likely unique in the population, with their QI values, ξ, κ, class size, TFRR risk."""
    order = np.lexsort((analysis.p, -analysis.xi))[:limit]
    rows = analysis.prepared.record_labels(order)
    for row, i in zip(rows, order):
        row.update({"xi": float(analysis.xi[i]), "kappa": float(analysis.kappa[i]),
                    "class_size": int(analysis.class_size[i]),
                    "tfrr_risk": None if analysis.risk is None else float(analysis.risk[i])})
    return rows
