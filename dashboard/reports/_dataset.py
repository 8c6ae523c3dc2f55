"""The data-set page's report: aggregates only — never a record's values (the riskiest-records table stays out)."""
from __future__ import annotations

from dashboard.core import microdata
from dashboard.figures.style import percent
from dashboard.views import dataset as vd

from . import _common as common
from ._document import Cell, Report, Section, Table

NO_RECORD_VALUES = ("This report holds no record values: only aggregates over the records (counts, shares, model "
                    "parameters and their validation). The page's list of the riskiest records and the per-record "
                    "download are left out.")

METHOD = (
    "The chosen columns are the quasi-identifiers: records sharing all their values form a class, and a record alone "
    "in its class is unique. The empirical part counts classes and k-anonymity violations. Two generative models — a "
    "Gaussian copula over the columns' marginals (Rocher et al. 2019) and a latent class model — give each value "
    "combination a probability p, hence each record's chance ξ of being unique and κ of being correctly re-identified "
    "in a population of N people; each model is fitted on a random fraction of the records and validated on the "
    "whole. TFRR (Yang et al. 2021) predicts each record's risk from the per-column counts alone with the recursive "
    "hypergeometric tuple frequency, and the Pitman–Yor law (Rocher et al. 2025) fits the class sizes' counts of "
    "counts (SPEC §3, §5).")


def _p(x, path) -> Cell:
    return Cell("–" if x is None else percent(x), x, path)


def _n(x, path, fmt="{:,.0f}") -> Cell:
    return Cell("–" if x is None else fmt.format(x), x, path)


def _f(x, path, digits=3) -> Cell:
    return Cell("–" if x is None else f"{x:.{digits}f}", x, path)


def parameters(req: vd.Request, source_name: str) -> tuple[tuple[str, str], ...]:
    return (("data set", source_name), ("quasi-identifier columns", ", ".join(req.columns)),
            ("bin widths", ", ".join(f"{c}={w:g}" for c, w in req.bins) or "none (exact values)"),
            ("records with a missing value", {"drop": "dropped", "value": "missing is a value"}.get(req.missing,
                                                                                                   req.missing)),
            ("population N", "the data set's size" if req.population is None else f"{req.population:,.0f}"),
            ("validation fraction", f"{req.fraction:g}"), ("validation trials", str(req.trials)),
            ("model of ξ and κ", req.model), ("plan: k", str(req.k)), ("plan: target share below k", f"{req.target:g}"))


def _plan_section(result: dict, command: str) -> Section:
    c, p = result["contributions"], result["plan"]
    rel = c["release"]
    contrib = []
    for i, row in enumerate(c["columns"]):
        w, g = row["withheld"], row["generalised"]
        base = f"contributions/columns/{i}"
        contrib.append({"column": Cell(row["column"], row["column"], f"{base}/column"), "now": row["now"],
                        "w_unique": _p(w["uniqueness"], f"{base}/withheld/uniqueness"),
                        "w_below": _p(w["share_below_k"], f"{base}/withheld/share_below_k"),
                        "step": g["step"] if g else "(none)",
                        "g_unique": _p(g["uniqueness"], f"{base}/generalised/uniqueness") if g else "–",
                        "g_below": _p(g["share_below_k"], f"{base}/generalised/share_below_k") if g else "–"})
    steps = [{"step": str(i + 1), "column": Cell(st["column"], st["column"], f"plan/steps/{i}/column"),
              "action": Cell(st["action"], st["action"], f"plan/steps/{i}/action"),
              "below": _p(st["share_below_k"], f"plan/steps/{i}/share_below_k"),
              "unique": _p(st["uniqueness"], f"plan/steps/{i}/uniqueness"),
              "bits": _f(st["bits"], f"plan/steps/{i}/bits", 2)} for i, st in enumerate(p["steps"])]
    release = Table("plan-release", "As released", (("what", "figure"), ("value", "value")), (
        {"what": "records unique", "value": _p(rel["uniqueness"], "contributions/release/uniqueness")},
        {"what": f"records in a class below k = {c['k']}", "value": _p(rel["share_below_k"],
                                                                        "contributions/release/share_below_k")},
        {"what": "bits of information", "value": _f(rel["bits"], "contributions/release/bits", 2)},
    ), numeric=("value",), command=command)
    tables = [release, Table("contributions", f"Each column's contribution: unique and below k = {c['k']} with the "
                                              "column withheld, or one step coarser", (
        ("column", "column"), ("now", "now"), ("w_unique", "withheld: unique"), ("w_below", "withheld: < k"),
        ("step", "one step coarser"), ("g_unique", "coarser: unique"), ("g_below", "coarser: < k")), tuple(contrib),
        numeric=("w_unique", "w_below", "g_unique", "g_below"), command=command)]
    if steps:
        tables.append(Table("plan", "The plan, step by step (greedy: the most records protected per bit lost)", (
            ("step", "step"), ("column", "column"), ("action", "generalisation"), ("below", f"records below k = {p['k']}"),
            ("unique", "unique"), ("bits", "bits kept")), tuple(steps), numeric=("below", "unique", "bits"),
            command=command))
    return Section(f"Which columns to coarsen: at most {percent(p['target'])} of records below k = {p['k']}",
                   (p["message"],), tables=tuple(tables), commands=(command,))


def dataset_report(analysis: microdata.Analysis, req: vd.Request, filename: str | None = None,
                   coarsening: dict | None = None) -> Report:
    """The data-set page's report from its analysis (and, when given, its coarsening plan)."""
    out = vd.render(analysis, req, filename)
    s = analysis.summary()
    e, t, py = s["empirical"], s["tfrr"], s["pyc"]
    chosen = "copula" if s["model"]["chosen"] == "copula" else "latent_class"
    c = s[chosen]
    N = analysis.population
    command = vd.command(req, filename) + " --json"
    f = out["figures"]
    headline = Table("headline", "Headline figures", (("what", "figure"), ("value", "value")), (
        {"what": "records analysed", "value": _n(s["n_records"], "n_records")},
        {"what": "records read", "value": _n(s["n_input"], "n_input")},
        {"what": "unique in the data set (empirical)", "value": _p(e["uniqueness"], "empirical/uniqueness")},
        {"what": f"{s['model']['name']}: unique at this size", "value": _p(c["uniqueness"], f"{chosen}/uniqueness")},
        {"what": f"{s['model']['name']}: unique among N = {N:,.0f} (mean ξ)",
         "value": _p(c["uniqueness_at_population"], f"{chosen}/uniqueness_at_population")},
        {"what": f"{s['model']['name']}: mean correctness κ at N", "value": _p(c["correctness_at_population"],
                                                                             f"{chosen}/correctness_at_population")},
        {"what": "TFRR AUC (exact)", "value": _f(t["auc"], "tfrr/auc")},
        {"what": "TFRR AUC (binomial)", "value": _f(t["auc_binomial"], "tfrr/auc_binomial")},
    ), numeric=("value",), command=command)
    k_rows = tuple({"k": f"k = {k}", "records": _n(v["records"], f"empirical/k_anonymity/{k}/records"),
                    "share": _p(v["share"], f"empirical/k_anonymity/{k}/share"),
                    "classes": _n(v["classes"], f"empirical/k_anonymity/{k}/classes")}
                   for k, v in e["k_anonymity"].items())
    coc = tuple({"size": _n(r["size"], f"empirical/counts_of_counts/{i}/size"),
                 "classes": _n(r["classes"], f"empirical/counts_of_counts/{i}/classes")}
                for i, r in enumerate(e["counts_of_counts"]))
    empirical = Section(
        "Empirical", (f"{e['n_classes']:,} classes among {s['n_records']:,} records; {percent(e['uniqueness'])} of the "
                      "records are unique.",), f["classes"], "records by the size of their class", (
            Table("counts_of_counts", "Classes by size (counts of counts)", (("size", "class size (records)"),
                  ("classes", "classes of this size")), coc, numeric=("size", "classes"), command=command),
            Table("k_anonymity", "k-anonymity violations: records whose class has fewer than k records", (
                ("k", "k"), ("records", "records in classes below k"), ("share", "share"),
                ("classes", "classes below k")), k_rows, numeric=("records", "share", "classes"), command=command)),
        (command,))
    curve_rows = []
    cop_curve, lc_curve = s["copula"]["population_uniqueness"], s["latent_class"]["population_uniqueness"]
    py_curve = py.get("curve") if py.get("available") else None
    for i, pt in enumerate(cop_curve):
        curve_rows.append({"n": _n(pt["n"], f"copula/population_uniqueness/{i}/n"),
                           "copula": _p(pt["value"], f"copula/population_uniqueness/{i}/value"),
                           "latent": _p(lc_curve[i]["value"], f"latent_class/population_uniqueness/{i}/value"),
                           "py": _p(py_curve[i]["value"], f"pyc/curve/{i}/value") if py_curve else "–"})
    records_rows = (
        {"what": f"mean ξ (chance of being unique among N = {N:,.0f})",
         "value": _p(c["uniqueness_at_population"], f"{chosen}/uniqueness_at_population")},
        {"what": "mean κ (chance of a correct re-identification)",
         "value": _p(c["correctness_at_population"], f"{chosen}/correctness_at_population")},
        {"what": "records with ξ above 0.95", "value": _n(c["records_xi_above_0_95"], f"{chosen}/records_xi_above_0_95")},
    )
    models_section = Section(
        "Models: Gaussian copula (Rocher et al. 2019) and latent class", (out["model_text"], out["latent_text"]),
        f["curve"], "population uniqueness over N", (
            Table("population_uniqueness", "Share of a population of n people who are unique, by model", (
                ("n", "population n"), ("copula", "Gaussian copula"), ("latent", "latent class model"),
                ("py", "Pitman–Yor law")), tuple(curve_rows), numeric=("n", "copula", "latent", "py"), command=command),),
        (command,))
    records_section = Section(
        "Each record's ξ and κ", ("The distribution of the records' ξ and κ under the model shown (the chart); the "
                                  "table gives its summary. The per-record values are not in this report.",),
        f["records"], "distribution of ξ and κ",
        (Table("records", "Summary of the records' ξ and κ", (("what", "figure"), ("value", "value")), records_rows,
               numeric=("value",), command=command),), (command,))
    sections = [Section("Headline figures", tables=(headline,)), empirical, models_section, records_section]
    greedy = c.get("one_more_attribute", [])
    if f["greedy"] and greedy:
        rows = tuple({"name": Cell(g["name"], g["name"], f"{chosen}/one_more_attribute/{i}/name"),
                      "pop": _p(g["uniqueness_population"], f"{chosen}/one_more_attribute/{i}/uniqueness_population"),
                      "model": _p(g["uniqueness_dataset_model"],
                                  f"{chosen}/one_more_attribute/{i}/uniqueness_dataset_model"),
                      "emp": _p(g["uniqueness_dataset_empirical"],
                                f"{chosen}/one_more_attribute/{i}/uniqueness_dataset_empirical")}
                     for i, g in enumerate(greedy))
        sections.append(Section("Uniqueness as attributes are added", (), f["greedy"],
                                "uniqueness as attributes are added",
                                (Table("one_more_attribute", "Adding the columns one at a time (the most identifying "
                                                             "first)", (("name", "+ column"), ("pop", "unique among N"),
                                                                        ("model", "unique in the data set: model"),
                                                                        ("emp", "unique in the data set: empirical")),
                                       rows, numeric=("pop", "model", "emp"), command=command),), (command,)))
    val_rows = []
    for key, name in (("copula", "Gaussian copula"), ("latent_class", "latent class model")):
        v = s[key].get("validation", {})
        if v.get("mae") is None:
            continue
        val_rows.append({"model": name, "pred": _p(v["predicted_mean"], f"{key}/validation/predicted_mean"),
                         "emp": _p(v["empirical"], f"{key}/validation/empirical"),
                         "mae": _f(v["mae"], f"{key}/validation/mae"), "sd": _f(v["mae_sd"], f"{key}/validation/mae_sd"),
                         "auc": _f(v["auc"], f"{key}/validation/auc"),
                         "cal": _f(v["calibration"]["error"], f"{key}/validation/calibration/error")})
    sections.append(Section("Validation", (out["validation_text"], out["integration"]), tables=(
        Table("validation", "Validation of both models (Rocher et al. 2019)", (
            ("model", "model"), ("pred", "predicted Ξ"), ("emp", "empirical Ξ"), ("mae", "mean absolute error"),
            ("sd", "± (sd)"), ("auc", "AUC of ξ"), ("cal", "calibration error of ξ")), tuple(val_rows),
            numeric=("pred", "emp", "mae", "sd", "auc", "cal"), command=command),) if val_rows else (),
        commands=(command,)))
    auc_rows = [{"what": "AUC, exact (recursive hypergeometric)", "value": _f(t["auc"], "tfrr/auc")},
                {"what": "AUC, binomial approximation", "value": _f(t["auc_binomial"], "tfrr/auc_binomial")},
                {"what": "mean risk of being unique (exact)", "value": _p(t["mean_risk"], "tfrr/mean_risk")},
                {"what": "mean risk of being unique (binomial)", "value": _p(t["mean_risk_binomial"],
                                                                             "tfrr/mean_risk_binomial")}]
    auc_rows += [{"what": f"AUC for k = {k}", "value": _f(v, f"tfrr/auc_k/{k}")} for k, v in t["auc_k"].items()]
    sections.append(Section("TFRR (Yang et al. 2021)", (
        "Each record's risk from the per-attribute counts alone: the tuple frequency is recursive hypergeometric "
        "(exact) or binomial (approximation); the AUC measures how well the risk picks out the records that are "
        "really unique here. The chart's curve points are not in the --json output; its AUCs are.", out["tfrr_text"]),
        f["roc"], "ROC of the TFRR risk", (Table("tfrr", "TFRR", (("what", "figure"), ("value", "value")),
                                                 tuple(auc_rows), numeric=("value",), command=command),),
        (command,)))
    if py.get("available"):
        py_rows = (
            {"what": "entropy h (bits)", "value": _n(py["h_bits"], "pyc/h_bits", "{:.4g}")},
            {"what": "γ", "value": _n(py["gamma"], "pyc/gamma", "{:.4g}")},
            {"what": "d", "value": _n(py["d"], "pyc/d", "{:.4g}")},
            {"what": "α", "value": _n(py["alpha"], "pyc/alpha", "{:.4g}")},
            {"what": "the law's uniqueness at this size", "value": _p(py["uniqueness_at_n"], "pyc/uniqueness_at_n")},
        )
        py_tables = (Table("pyc", "Pitman–Yor fit of the class sizes", (("what", "parameter"), ("value", "value")),
                           py_rows, numeric=("value",), command=command),)
        py_text = "The class sizes' counts of counts fitted by the Pitman–Yor law (SPEC §3)."
    else:
        py_tables, py_text = (), f"Pitman–Yor fit not available: {py.get('reason', '')}"
    sections.append(Section("Pitman–Yor fit", (py_text,), tables=py_tables, commands=(command,)))
    commands = [command]
    if coarsening is not None:
        plan_cmd = (vd.command(req, filename) + f" --plan --k {coarsening['plan']['k']} "
                    f"--target {coarsening['plan']['target']:g} --json")
        sections.append(_plan_section(coarsening, plan_cmd))
        commands.append(plan_cmd)
    source_name = s["source"]
    sources = microdata_sources(req.source) if req.source in vd.SHIPPED_SOURCES else (
        {"what": f"{source_name}: a file analysed in memory (not stored; its name only is shown)"},)
    return Report(
        kind="dataset", title="AnonSet report: how identifiable is a data set?",
        lead="Uniqueness, correctness and risk of record-level data for the columns under “What was asked”.",
        parameters=parameters(req, source_name),
        headlines=(f"{percent(e['uniqueness'])} of the {s['n_records']:,} records are unique on these columns; the "
                   f"{s['model']['name']} predicts {percent(c['uniqueness_at_population'])} unique among "
                   f"N = {N:,.0f} people.", out["model_text"], out["tfrr_text"]),
        sections=tuple(sections), sources=tuple(sources), method=METHOD,
        papers=(common.PAPERS["copula"], common.PAPERS["tfrr"], common.PAPERS["pyc"]),
        limits=(f"Validation of the models on this data set: {out['validation_text']}",
                "The models assume the records are a random sample of the population N; a data set that is not "
                "(a convenience sample, a register with duplicates) can be more or less identifiable than predicted.",
                common.body_model_limit() if req.source == "nhanes" else
                "No census or body model is involved: every number comes from the records themselves."),
        commands=tuple(commands), version=common.version(), manifest_sha256=common.manifest_sha256(),
        date=common.today(), notices=(NO_RECORD_VALUES,), warnings=tuple(out["warnings"]),
    )


def microdata_sources(dataset_id: str) -> tuple[dict, ...]:
    return tuple(common.microdata_sources(dataset_id))
