"""The data-set page (SPEC §5): “How identifiable is a data set?” — ids, limits, parsing, rendering, memo.

Privacy: an uploaded file reaches the server only inside the callback request that analyses
it; :func:`table_for` decodes it in memory, nothing of it is written, logged or memoised
(the memo below holds results for the shipped NHANES sample only, keyed by the settings).
"""
from __future__ import annotations

import base64
import binascii
import logging
import math
import shlex
from collections.abc import Mapping
from dataclasses import dataclass

from dash import ALL, dcc, html

from dashboard import forms, ids
from dashboard import settings as settings_module
from dashboard.components import card, command_block, table
from dashboard.core import microdata
from dashboard.core.errors import InputError
from dashboard.core.memo import Memo
from dashboard.core.text import (
    N_,
    current_language,
    format_number,
    local_number,
    ngettext,
    number_marks,
    percent_text,
    translate_marked,
)
from dashboard.core.text import gettext as _
from dashboard.figures import dataset as figs
from dashboard.figures.style import graph_config, percent
from dashboard.server import limits

PAGE = "dataset"
LOG = logging.getLogger("anonset.dataset")


def _id(name: str) -> str:
    return ids.make(PAGE, name)


ID = {name: _id(name) for name in (
    "source", "upload", "upload-wrap", "upload-refused", "load-message", "columns", "bins", "missing", "population",
    "fraction", "trials", "analyse", "results", "message", "privacy", "model", "classes-rule", "plan-k", "plan-target", "plan",
    "download", "download-values", "download-csv", "download-message", "report", "download-report", "report-message",
)}
#: Pattern-matching id of a column's bin-width box.
BIN_TYPE = _id("bin")
SOURCES = ("nhanes", "adult", "upload")
#: The shipped data sets (SOURCES but the upload).
SHIPPED_SOURCES = SOURCES[:-1]
DEFAULT_COLUMNS = ("sex", "age", "race", "education", "marital_status", "household_size")
#: Per shipped data set: the columns chosen first, and the missing-value policy (ADULT: "?" is a value,
#: as in its PROVENANCE's uniqueness figures).
DEFAULTS = {"nhanes": (DEFAULT_COLUMNS, "drop"),
            "adult": (("age", "sex", "race", "marital_status", "education", "native_country"), "value")}
#: Bin widths offered first for NHANES's numeric columns (blank = exact values).
SUGGESTED_BINS = {"height_cm": 5, "weight_kg": 5, "waist_cm": 5, "bmi": 1, "self_height_cm": 5, "self_weight_kg": 5,
                  "household_income_usd": None, "age": None, "household_size": None}
#: Base64 and the JSON around it: the request grows by 4/3 plus a little.
REQUEST_OVERHEAD = 256 * 1024
#: Most numeric columns offered a bin box (a wide file keeps the rest exact).
MAX_BIN_BOXES = 40


def upload_limit(max_body_bytes: int | None = None) -> int:
    """Largest file accepted: the core's limit, or less when the server's request limit is lower."""
    if max_body_bytes is None:
        max_body_bytes = settings_module.load().max_body_bytes
    return int(max(0, min(microdata.MAX_BYTES, (max_body_bytes - REQUEST_OVERHEAD) * 3 // 4)))


def table_for(source: str | None, contents: str | None, filename: str | None) -> microdata.Table:
    """The shipped sample, or the uploaded file decoded in memory (never stored)."""
    if source not in SOURCES:
        raise InputError(_("choose a shipped data set (NHANES, ADULT) or upload a CSV file"))
    if source in SHIPPED_SOURCES:
        return microdata.shipped_table(source)
    name = str(filename or _("the file"))[:80]
    if not contents:
        raise InputError(_("upload a CSV file first (or choose a shipped data set)"))
    if not isinstance(contents, str) or "," not in contents:
        raise InputError(_("{name}: the upload could not be read").format(name=name))
    b64 = contents.split(",", 1)[1]
    limit = upload_limit()
    if len(b64) * 3 // 4 > limit + 3:
        raise InputError(microdata.too_large(name, len(b64) * 3 // 4, limit))
    try:
        raw = base64.b64decode(b64, validate=True)
    except (binascii.Error, ValueError):
        raise InputError(_("{name}: the upload could not be read").format(name=name)) from None
    return microdata.read_csv(raw, name, max_bytes=limit)


def column_options(table_: microdata.Table) -> list[dict]:
    """Each column with its kind and counts, in the page's language (the column's own name as it is)."""
    out = []
    for row in table_.describe():
        kind = _("numeric") if row["kind"] == "numeric" else _("text")
        values = dict(name=row["name"], kind=kind, distinct=_count(row["distinct"]), missing=_count(row["missing"]))
        if row["missing"]:
            label = ngettext("{name} — {kind}, {distinct} value, {missing} missing",
                             "{name} — {kind}, {distinct} values, {missing} missing", row["distinct"]).format(**values)
        else:
            label = ngettext("{name} — {kind}, {distinct} value", "{name} — {kind}, {distinct} values",
                             row["distinct"]).format(**values)
        out.append({"label": label, "value": row["name"]})
    return out


def _count(n) -> str:
    """A whole number the language's way ("8,366", "8.366", "8 366")."""
    return local_number(f"{int(n):,}")


def _quoted(table_: microdata.Table) -> dict:
    """A shipped data set's column names are its own English words, quoted as they are (``lang="en"``); an
    upload's are in whatever language its author wrote them."""
    return {"lang": "en"} if table_.source in SHIPPED_SOURCES else {}


def quoted_value(value: str, source: str):
    """A column name or a record's values in a results table: quoted in English for the shipped data sets (see
    :func:`_quoted`)."""
    return html.Span(value, lang="en") if source in SHIPPED_SOURCES else value


def default_columns(table_: microdata.Table) -> list[str]:
    if table_.source in DEFAULTS:
        return list(DEFAULTS[table_.source][0])
    # an upload: the first few columns that are neither all-distinct nor constant
    rows = [r for r in table_.describe() if 1 < r["distinct"] < max(2, table_.n_rows)]
    return [r["name"] for r in rows[:4]] or [r["name"] for r in table_.describe()[:2]]


#: Short names of the latent class model's rules for its number of classes (the sentence is its RULE_TEXT).
CLASSES_RULE_LABELS = {"unique-shares": N_("unique shares (validated)"), "bic": "BIC",
                       "heldout": N_("held-out likelihood")}
DEFAULT_CLASSES_RULE = microdata.DEFAULT_CLASSES_RULE


def classes_rule_options() -> list[dict]:
    """The select's options: each rule's short name, its sentence as the option's title."""
    return [{"label": translate_marked(CLASSES_RULE_LABELS[r]), "value": r, "title": rule_sentence(r)}
            for r in microdata.CLASSES_RULES]


def rule_text(rule: str) -> str:
    """How the latent class model chose its number of classes, in the page's language (the core keeps the CLI's)."""
    return translate_marked(microdata.CLASSES_RULE_TEXT.get(rule, rule))


def rule_sentence(rule: str) -> str:
    return _("Number of classes {rule}.").format(rule=rule_text(rule))


def default_missing(table_: microdata.Table) -> str:
    return DEFAULTS[table_.source][1] if table_.source in DEFAULTS else "drop"


def bin_boxes(table_: microdata.Table) -> list:
    """One labelled box per numeric column (pattern-matching ids), prefilled with a suggestion."""
    boxes = []
    for row in [r for r in table_.describe() if r["kind"] == "numeric"][:MAX_BIN_BOXES]:
        col = row["name"]
        box_id = {"type": BIN_TYPE, "column": col}
        value = SUGGESTED_BINS.get(col) if table_.source == "nhanes" else None
        boxes.append(html.Label([
            html.Span(col, className="bin-label", **_quoted(table_)),
            dcc.Input(id=box_id, type="text", inputMode="decimal", value=None if value is None else str(value),
                      placeholder=_("exact"), debounce=True, className="bin-input"),
        ], className="bin-row"))
    return boxes


@dataclass(frozen=True)
class Request:
    source: str
    columns: tuple[str, ...]
    bins: tuple[tuple[str, float], ...]
    missing: str
    population: float | None
    fraction: float
    trials: int
    model: str = "auto"
    k: int = microdata.DEFAULT_K
    target: float = microdata.DEFAULT_TARGET
    classes_rule: str = microdata.DEFAULT_CLASSES_RULE

    def key(self) -> tuple:
        return (self.source, self.columns, self.bins, self.missing, self.population, self.fraction, self.trials,
                self.model, self.classes_rule)

    def plan_key(self) -> tuple:
        return ("plan", self.source, self.columns, self.bins, self.missing, self.k, self.target)


def parse_request(source, columns, bin_values, bin_ids, missing, population, fraction, trials, model=None,
                  k=None, target=None, classes_rule=None) -> Request:
    if source not in SOURCES:
        raise InputError(_("choose a shipped data set (NHANES, ADULT) or upload a CSV file"))
    if isinstance(columns, str):
        columns = [columns]
    cols = tuple(str(c) for c in (columns or []) if isinstance(c, (str, int, float)))
    if not cols:
        raise InputError(_("Choose at least one quasi-identifier column."))
    bins = []
    for value, bid in zip(bin_values or [], bin_ids or []):
        col = bid.get("column") if isinstance(bid, dict) else None
        if col in cols and value not in (None, ""):
            bins.append((str(col), microdata.check_width(value, str(col))))
    miss = missing if missing in microdata.MISSING_POLICIES else "drop"
    pop = None
    if population not in (None, ""):
        try:
            pop = float(_plain_number(str(population)))
        except ValueError:
            raise InputError(_("Population N: {value} is not a number (e.g. {example})").format(
                value=repr(str(population)[:20]), example=_count(330_000_000))) from None
        if not math.isfinite(pop):
            raise InputError(_("Population N: please enter a finite number"))
    return Request(source=source, columns=cols, bins=tuple(sorted(bins)), missing=miss, population=pop,
                   fraction=microdata.check_fraction(_decimal(fraction) if fraction not in (None, "")
                                                     else microdata.DEFAULT_FRACTION),
                   trials=microdata.check_trials(trials if trials not in (None, "") else microdata.DEFAULT_TRIALS),
                   model=microdata.check_model(model),
                   classes_rule=microdata.check_classes_rule(classes_rule),
                   k=microdata.check_k(k if k not in (None, "") else microdata.DEFAULT_K),
                   target=microdata.check_target(_decimal(str(target).strip().rstrip("%").strip())
                                                 if target not in (None, "")
                                                 else microdata.DEFAULT_TARGET))


#: What the report button's GET /_reports/dataset carries for a shipped data set (assets/report_download.js): the
#: form as typed, each bin box as ``bin.<column>`` (its values, then their ids), the plan's k and target.  With
#: ``source=upload`` the browser asks nothing (``data-local``): the page's own callback makes that report.
REPORT_STATES = ((ID["source"], "value", "source"), (ID["columns"], "value", "columns"),
                 ({"type": BIN_TYPE, "column": ALL}, "value", "bin.*"), ({"type": BIN_TYPE, "column": ALL}, "id", ""),
                 (ID["missing"], "value", "missing"), (ID["population"], "value", "population"),
                 (ID["fraction"], "value", "fraction"), (ID["trials"], "value", "trials"),
                 (ID["model"], "value", "model"), (ID["classes-rule"], "value", "classes_rule"),
                 (ID["plan-k"], "value", "k"), (ID["plan-target"], "value", "target"))
REPORT_PARAMS = ",".join(name for _id_, _prop, name in REPORT_STATES)
#: The form's fields in a report's query (``?source=nhanes&columns=sex&columns=age&bin.age=10&…``), as typed.
QUERY_FIELDS = ("missing", "population", "fraction", "trials", "model", "k", "target", "classes_rule")


def request_from_query(query: Mapping) -> Request:
    """A shipped data set's settings from a report's query (each value as the form holds it, in the page's
    language); bad ones are the InputErrors of :func:`parse_request`.  Never an upload (its records stay with
    the page's own request)."""
    q = forms.query_lists(query)
    last = forms.query_last(q)
    if last.get("source") not in SHIPPED_SOURCES:
        raise InputError(_("choose a shipped data set (NHANES, ADULT): an uploaded file's report is made in its "
                           "page, never from a link"))
    bins = [(key[len("bin."):], values[-1]) for key, values in q.items() if key.startswith("bin.") and values]
    return parse_request(last["source"], q.get("columns", []), [v for _c, v in bins], [{"column": c} for c, _v in bins],
                         *(last.get(name) for name in QUERY_FIELDS))


def _plain_number(text: str) -> str:
    """A number as typed in the page's language ("330.000.000", "1,5e6" in German) as Python reads it."""
    decimal, group = number_marks()
    for mark in {group, "\u202f", "\u00a0", " ", "_"}:
        text = text.replace(mark, "")
    return text.replace(decimal, ".").strip()


def _decimal(value):
    """A decimal typed with the language's mark ("0,1" in German) as Python reads it; English as it was."""
    decimal = number_marks()[0]
    return str(value).strip().replace(decimal, ".") if isinstance(value, str) and decimal != "." else value


#: Results for the shipped data sets only, keyed by the settings and the language (their sentences: the model's
#: reason, warnings, the plan's steps) — never by an upload's content.
_NHANES_MEMO = Memo(16, name="views.dataset.nhanes", max_bytes=256 * 2**20)


def analyse(req: Request, table_: microdata.Table) -> microdata.Analysis:
    def run():
        return microdata.analyse(table_, list(req.columns), dict(req.bins), req.missing, req.population,
                                 req.fraction, req.trials, model=req.model, classes_rule=req.classes_rule)

    if req.source in SHIPPED_SOURCES:
        key = (*req.key(), current_language())
        known = _NHANES_MEMO.peek(key)
        if known is not None:
            return known
        with limits.heavy_slot(_("This analysis"), command(req)):
            return _NHANES_MEMO.get(key, run)
    with limits.heavy_slot(_("This analysis"), command(req)):
        return run()


def coarsening(req: Request, table_: microdata.Table) -> dict:
    """Each column's contribution and the coarsening plan (memoised for the shipped data sets)."""
    def run():
        cols, bins = list(req.columns), dict(req.bins)
        return {"contributions": microdata.contributions(table_, cols, bins, req.missing, req.k),
                "plan": microdata.plan(table_, cols, bins, req.missing, req.k, req.target)}

    if req.source in SHIPPED_SOURCES:
        return _NHANES_MEMO.get((*req.plan_key(), current_language()), run)
    return run()


def plan_section(result: dict, req: Request) -> list:
    """The "which columns to coarsen" part of the results: contributions, then the plan or why there is none."""
    c, p = result["contributions"], result["plan"]
    rel = c["release"]
    k_c, k_p = _count(c["k"]), _count(p["k"])
    column, now, coarser = _("column"), _("now"), _("one step coarser")
    contrib_rows = []
    for row in c["columns"]:
        w, g = row["withheld"], row["generalised"]
        contrib_rows.append({
            column: quoted_value(row["column"], req.source), now: row["now"],
            _("withheld: unique"): percent(w["uniqueness"]), _("withheld: < k"): percent(w["share_below_k"]),
            coarser: g["step"] if g else _("(none)"),
            _("coarser: unique"): percent(g["uniqueness"]) if g else "–",
            _("coarser: < k"): percent(g["share_below_k"]) if g else "–"})
    generalisation = _("generalisation")
    step_rows = [{_("step"): i, column: quoted_value(s["column"], req.source), generalisation: s["action"],
                  _("records below k = {k}").format(k=k_p): percent(s["share_below_k"]),
                  _("unique"): percent(s["uniqueness"]), _("bits kept"): local_number(f"{s['bits']:.2f}")}
                 for i, s in enumerate(p["steps"], 1)]
    return [
        html.H2(_("Which columns to coarsen")),
        html.P(_("As released: {unique} of records unique, {below} in a class of fewer than k = {k} records, {bits} "
                 "bits of information (entropy of the records' value combinations).").format(
            unique=percent(rel["uniqueness"]), below=percent(rel["share_below_k"]), k=k_c,
            bits=local_number(f"{rel['bits']:.2f}")), className="field-help"),
        html.Div(table(contrib_rows, _("Each column's contribution: the share unique and the share in a class below "
                                       "k = {k} (< k) with the column withheld, or one step coarser").format(k=k_c),
                       text_columns=(now, coarser)),
                 className="table-wrap", tabIndex="0"),
        html.H3(_("Coarsening plan: at most {target} of records below k = {k}").format(target=percent(p["target"]),
                                                                                      k=k_p)),
        html.Div(p["message"], id=_id("plan-message"),
                 className="plan-message" + ("" if p["reached"] else " warning"), role="status"),
        html.Div(table(step_rows, _("The plan, step by step (greedy: the most records protected per bit lost)"),
                       text_columns=(column, generalisation)),
                 className="table-wrap", id=_id("plan-steps"), tabIndex="0") if step_rows else None,
        *command_block(command(req) + f" --plan --k {p['k']} --target {p['target']:g}",
                       _("The plan from the command line.")),
    ]


def records_download(req: Request, table_: microdata.Table, include_values: bool) -> dict:
    """The per-record CSV as a dcc.Download payload (built in memory, sent to this browser only)."""
    text = microdata.records_csv(analyse(req, table_), include_values=include_values)
    stem = req.source if req.source in SHIPPED_SOURCES else "dataset"
    return {"content": text, "filename": f"anonset-{stem}-records{'-with-values' if include_values else ''}.csv",
            "type": "text/csv"}


def command(req: Request, filename: str | None = None) -> str:
    src = req.source if req.source in SHIPPED_SOURCES else shlex.quote(str(filename or "FILE.csv")[:80])
    parts = ["anonset", "dataset", src, "--columns", shlex.quote(",".join(req.columns))]
    if req.bins:
        parts += ["--bins", shlex.quote(",".join(f"{c}={w:g}" for c, w in req.bins))]
    if req.population is not None:
        parts += ["--population", f"{req.population:g}"]
    if req.missing != "drop":
        parts += ["--missing", req.missing]
    if req.fraction != microdata.DEFAULT_FRACTION:
        parts += ["--fraction", f"{req.fraction:g}"]
    if req.trials != microdata.DEFAULT_TRIALS:
        parts += ["--trials", str(req.trials)]
    if req.model != "auto":
        parts += ["--model", req.model]
    if req.classes_rule != microdata.DEFAULT_CLASSES_RULE:
        parts += ["--classes-rule", req.classes_rule]
    return " ".join(parts)


def _fmt(x, digits=3) -> str:
    return "–" if x is None else local_number(f"{x:.{digits}f}")


def chance(x) -> str:
    """A probability a person can read at any size: 0.412 to three decimals; below 0.001 as "1 in 58,000"
    (issue 28: a large population listed ten records all at ξ = 0.000)."""
    if x is None:
        return "–"
    x = float(x)
    if x <= 0:
        return "0"
    if x >= 0.001:
        return local_number(f"{x:.3f}")
    return _("1 in {count}").format(count=_count(float(f"{1 / x:.2g}")))


#: Below this many records the Pitman–Yor law is fitted to a handful of class counts: shown with a warning.
FEW_RECORDS_FOR_A_FIT = 100


def _validation_rows(s: dict) -> list[dict]:
    """One row per model: its validation (fit on a fraction, predict the whole) side by side."""
    rows = []
    for key, model in (("copula", microdata.COPULA), ("latent_class", microdata.LATENT_CLASS)):
        v = s[key].get("validation", {})
        if v.get("mae") is None:
            continue
        rows.append({_("model"): microdata.model_name(model), _("predicted Ξ"): percent(v["predicted_mean"]),
                     _("empirical Ξ"): percent(v["empirical"]),
                     _("mean absolute error"): f"{_fmt(v['mae'])} ± {_fmt(v['mae_sd'])}",
                     _("AUC of ξ"): _fmt(v["auc"]), _("calibration error of ξ"): _fmt(v["calibration"]["error"])})
    return rows


def _population(N: float) -> str:
    return local_number(f"{N:,.0f}")


def _cards(s: dict, analysis: microdata.Analysis) -> list:
    """The headline numbers: records, uniqueness in the data and in the population, TFRR's AUC, the Pitman–Yor fit."""
    e, t, p = s["empirical"], s["tfrr"], s["pyc"]
    c = analysis.chosen
    model = s["model"]
    n, N = s["n_records"], analysis.population
    copula_chosen = model["chosen"] == microdata.COPULA
    if p.get("available"):
        h = _("h = {h} bits").format(h=local_number(f"{p['h_bits']:.3g}"))
        gamma = _("γ = {gamma}").format(gamma=local_number(f"{p['gamma']:.2g}"))
        pyc_text = (_("γ = {gamma}; from only {records} records: a rough fit").format(
            gamma=local_number(f"{p['gamma']:.2g}"), records=_count(n)) if n < FEW_RECORDS_FOR_A_FIT else gamma)
    else:
        h, pyc_text = _("not available"), p.get("reason", "")
    if t["auc"] is not None:
        auc_text = _("binomial approximation {auc}").format(auc=_fmt(t["auc_binomial"]))
    else:
        auc_text = (_("undefined: no record is unique") if e["uniqueness"] == 0
                    else _("undefined: every record is unique"))
    return [
        card(_("Records analysed"), _count(n),
             _("of {records}; columns: {columns}").format(records=_count(s["n_input"]), columns=", ".join(s["columns"])),
             value_id=_id("n")),
        card(_("Unique in the data set"), percent(e["uniqueness"]), _("records no other record shares (empirical)"),
             value_id=_id("emp-unique")),
        card(_("Copula: unique at this size") if copula_chosen else _("Latent class: unique at this size"),
             percent(c["uniqueness"]),
             _("the prediction of the {model} for a data set of this size, fitted on all records").format(
                 model=microdata.model_name(model["chosen"])),
             value_id=_id("cop-unique")),
        card((_("Copula: unique among N = {population}") if copula_chosen
              else _("Latent class: unique among N = {population}")).format(population=_population(N)),
             percent(c["uniqueness_at_population"]),
             _("of the records would be alone in a population of that size; exact matching would identify {share} "
               "of them correctly").format(share=percent(c["correctness_at_population"])), value_id=_id("cop-pop"),
             formula=_("mean uniqueness ξ and mean correctness κ of the records at N")),
        card(_("TFRR AUC"), _fmt(t["auc"]), auc_text, value_id=_id("tfrr-auc")),
        card(_("Pitman–Yor fit"), h, pyc_text, value_id=_id("pyc")),
    ]


def _latent_text(s: dict) -> str:
    lc_fit = s["latent_class"]["fit"]
    companions = " ".join(f"{t[0].upper()}{t[1:]}." for t in lc_fit.get("companion_text", []))
    return _("Latent class model: {classes} ({parameters}), {rule}. {companions}Unique at this size: {unique}; "
             "Gaussian copula: {copula}.").format(
        classes=ngettext("{count} class", "{count} classes", lc_fit["classes"]).format(count=_count(lc_fit["classes"])),
        parameters=ngettext("{count} parameter", "{count} parameters", lc_fit["parameters"]).format(
            count=_count(lc_fit["parameters"])),
        rule=rule_text(lc_fit["rule"]), companions=companions + " " if companions else "",
        unique=percent(s["latent_class"]["uniqueness"]), copula=percent(s["copula"]["uniqueness"]))


def render(analysis: microdata.Analysis, req: Request, filename: str | None = None) -> dict:
    """Everything the results area shows, as plain data and components (no callbacks)."""
    s = analysis.summary()
    e, t, p = s["empirical"], s["tfrr"], s["pyc"]
    c = analysis.chosen
    model = s["model"]
    v = c.get("validation", {})
    n, N = s["n_records"], analysis.population
    few = [_("Only {records} records: the Pitman–Yor fit rests on a handful of class sizes, so its h and γ are rough "
             "(a fit needs about {needed} records or more).").format(records=_count(n), needed=FEW_RECORDS_FOR_A_FIT)
           ] if p.get("available") and n < FEW_RECORDS_FOR_A_FIT else []
    records_below = _("records in classes below k")
    k_rows = [{"k": f"k = {k}", records_below: val["records"], _("share"): percent(val["share"]),
               _("classes below k"): val["classes"]} for k, val in e["k_anonymity"].items()]
    val_rows = _validation_rows(s)
    if val_rows:
        val_text = ngettext(
            "Each model fitted {trials} time on a random {fraction} of the records ({records} each), predicting the "
            "whole data set's share of unique records; AUC and calibration of ξ on records left out of the fit.",
            "Each model fitted {trials} times on a random {fraction} of the records ({records} each), predicting "
            "the whole data set's share of unique records; AUC and calibration of ξ on records left out of the fit.",
            v["trials"]).format(trials=v["trials"], fraction=percent_text(f"{100 * v['fraction']:.0f}"),
                                records=_count(v["train_records"]))
    else:
        val_text = v.get("reason") or _("The validation was not run.")
    greedy = c.get("one_more_attribute", [])
    risky = microdata.riskiest(analysis, 10)
    risky_rows = [{_("record"): quoted_value(" · ".join(str(r[col]) for col in s["columns"]), req.source),
                   "ξ": chance(r["xi"]),
                   "κ": _fmt(r["kappa"]), _("class size"): r["class_size"],
                   _("TFRR risk"): _fmt(r["tfrr_risk"])} for r in risky]
    integ = c["integration"]
    return {
        "cards": _cards(s, analysis),
        "model_text": _("Model shown: {reason}.").format(reason=model["reason"]),
        "latent_text": _latent_text(s),
        "warnings": list(s["warnings"]) + few,
        "k_table": table(k_rows, _("k-anonymity violations: records whose class has fewer than k records")),
        "figures": {
            "curve": figs.uniqueness_curve(analysis.curves["grid"], analysis.curves["copula"],
                                           p.get("curve") if p.get("available") else None, n, e["uniqueness"], N,
                                           latent_curve=analysis.curves["latent-class"]),
            "classes": figs.counts_of_counts(e["counts_of_counts"]),
            "records": figs.xi_kappa_histogram(analysis.xi, analysis.kappa, N),
            "greedy": figs.one_more_attribute(greedy, N) if greedy else None,
            "roc": figs.roc(t["roc"], t["auc"], t["auc_binomial"]),
        },
        "validation_table": table(val_rows, _("Validation of both models (Rocher et al. 2019)")) if val_rows else None,
        "validation_text": val_text,
        "riskiest": table(risky_rows, _("The records most likely unique among N = {population} ({model})").format(
            population=_population(N), model=microdata.model_name(model["chosen"]))),
        "integration": _("Cell probabilities: {method}; relative standard error median {median}, largest "
                         "{largest}.").format(method=integ["method"], median=percent(integ["rel_se_median"]),
                                              largest=percent(integ["rel_se_max"])),
        "tfrr_text": _("Mean risk of being unique: {exact} (exact), {binomial} (binomial); largest difference "
                       "between the two forms for one record {difference}. AUC for k = 5: {auc5}, k = 10: "
                       "{auc10}.").format(
            exact=percent(t["mean_risk"]), binomial=percent(t["mean_risk_binomial"]),
            difference=format_number(t["max_abs_difference"], 2), auc5=_fmt(t["auc_k"].get("5")),
            auc10=_fmt(t["auc_k"].get("10"))),
        "pyc": p,
        "scaling_url": p.get("scaling_url"),
        "command": command(req, filename),
        "seconds": s["seconds"],
    }


def graph(figure: dict | None, graph_id: str, label: str):
    if figure is None:
        return None
    return html.Div(dcc.Graph(id=graph_id, figure=figure, config=graph_config()), className="dataset-graph",
                    role="figure", **{"aria-label": label})


def results_section(out: dict) -> list:
    """The results area from :func:`render`'s dict (components only; the page maps it to one output)."""
    f = out["figures"]
    p = out["pyc"]
    py_children = [html.P(_("The class sizes' counts of counts fitted by the Pitman–Yor law (SPEC §3)."))]
    if p.get("available"):
        py_children.append(html.P(_("h = {h} bits, γ = {gamma} (d = {d}, α = {alpha}); the law's uniqueness at this "
                                    "size {unique}.").format(
            h=local_number(f"{p['h_bits']:.4g}"), gamma=local_number(f"{p['gamma']:.4g}"),
            d=local_number(f"{p['d']:.4g}"), alpha=local_number(f"{p['alpha']:.4g}"),
            unique=percent(p["uniqueness_at_n"]))))
        if out["scaling_url"]:
            py_children.append(dcc.Link(_("Open the scaling page on these parameters →"), href=out["scaling_url"],
                                        id=_id("scaling-link"), className="button secondary"))
    else:
        py_children.append(html.P(_("Not available: {reason}").format(reason=p.get("reason", "")), className="muted"))
    return [
        *[html.Div(w, className="warning", role="status") for w in out["warnings"]],
        html.Div(out["cards"], className="cards"),
        html.H2(_("Empirical")),
        html.Div([graph(f["classes"], _id("classes-graph"), _("records by the size of their class")),
                  html.Div(out["k_table"], className="table-wrap", tabIndex="0")], className="grid"),
        html.H2(_("Models: Gaussian copula (Rocher et al. 2019) and latent class")),
        html.P(out["model_text"], id=_id("model-text"), className="model-choice"),
        html.P(out["latent_text"], className="field-help"),
        html.Div([graph(f["curve"], _id("curve-graph"), _("population uniqueness over N")),
                  graph(f["records"], _id("records-graph"), _("distribution of ξ and κ"))], className="grid"),
        graph(f["greedy"], _id("greedy-graph"), _("uniqueness as attributes are added")),
        html.H3(_("Validation")),
        html.P(out["validation_text"], id=_id("validation-text")),
        html.Div(out["validation_table"], className="table-wrap", id=_id("validation"), tabIndex="0"),
        html.P(out["integration"], className="field-help"),
        html.Div(out["riskiest"], className="table-wrap", tabIndex="0"),
        html.H2(_("TFRR (Yang et al. 2021)")),
        html.Div([graph(f["roc"], _id("roc-graph"), _("ROC of the TFRR risk")),
                  html.Div([html.P(_("Each record's risk from the per-attribute counts alone: the tuple frequency is "
                                     "recursive hypergeometric (exact) or binomial (approximation); the AUC measures "
                                     "how well the risk picks out the records that are really unique here.")),
                            html.P(out["tfrr_text"], id=_id("tfrr-text"))])], className="grid"),
        html.H2(_("Pitman–Yor fit")),
        html.Div(py_children, id=_id("pyc-section")),
        html.H2(_("Reproduce this")),
        *command_block(out["command"], _("The same figures from the command line.")),
    ]


def warm() -> None:
    """Load the NHANES sample only: the gunicorn master warms with its socket open, so the first
    analysis (about 1.3 CPU seconds) runs on the first visit instead and is memoised from then on."""
    try:
        microdata.nhanes_table()
    except Exception as exc:  # noqa: BLE001 - warming must never stop the server
        LOG.warning("dataset warm-up failed with %s", type(exc).__name__)
