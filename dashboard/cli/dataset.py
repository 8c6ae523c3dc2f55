"""``anonset dataset``: how identifiable is a data set? (SPEC §5)

    anonset dataset nhanes --columns sex,age,race,education,marital_status,household_size
    anonset dataset my.csv --columns age,zip,sex --bins age=5 --population 1e6 --json
    anonset dataset adult --columns age,sex,race,marital_status,education,native_country --missing value --plan

FILE is a CSV (comma, semicolon, tab or bar separated; UTF-8, UTF-16 or Windows-1252) or the word
``nhanes`` (the shipped NHANES 2017–2018 sample) or ``adult`` (the shipped UCI Adult file, 1994;
its ``?`` is a missing value: ``--missing value`` keeps it as one, as its PROVENANCE's figures do).  The file is read into memory and nothing of
it is written or logged.
"""
from __future__ import annotations

from pathlib import Path

from dashboard.core import microdata

from . import CliError, emit


def load_table(name: str):
    """A shipped data set by name, or a CSV file read into memory (never written elsewhere); CliError if unreadable."""
    if name.lower() in microdata.SHIPPED:
        return microdata.shipped_table(name.lower())
    path = Path(name)
    if not path.is_file():
        raise CliError(f"{name}: no such file (give a CSV file, or 'nhanes' or 'adult' for a shipped data set)")
    size = path.stat().st_size
    if size > microdata.MAX_BYTES:
        raise CliError(f"{path.name} is {size / 1e6:.1f} MB; files of at most {microdata.MAX_BYTES / 1e6:.0f} MB "
                       "are accepted")
    try:
        raw = path.read_bytes()
    except OSError as exc:
        raise CliError(f"{name}: cannot be read ({exc.strerror or 'error'})") from None
    return microdata.read_csv(raw, path.name)


def run(args) -> int:
    table = load_table(args.file)
    columns = microdata.parse_columns(args.columns)
    bins = microdata.parse_bins(args.bins)
    population = None
    if args.population is not None:
        text = str(args.population).replace("_", "").replace(",", "")
        try:
            population = float(text)
        except ValueError:
            raise CliError(f"--population {args.population!r} is not a number (e.g. 330e6)") from None
    if args.plan:
        k = microdata.check_k(args.k)
        result = {"source": table.name, "columns": columns,
                  "contributions": microdata.contributions(table, columns, bins, args.missing, k),
                  "plan": microdata.plan(table, columns, bins, args.missing, k, args.target)}
        return emit(result, args.json, _plan_text)
    analysis = microdata.analyse(table, columns, bins, missing=args.missing, population=population,
                                 fraction=args.fraction, trials=args.trials, seed=args.seed, model=args.uniqueness_model,
                                 classes_rule=args.classes_rule)
    if args.records:
        out = Path(args.records)
        try:
            out.write_text(microdata.records_csv(analysis, include_values=args.with_values), encoding="utf-8")
        except OSError as exc:
            raise CliError(f"--records {args.records}: cannot be written ({exc.strerror or 'error'})") from None
    result = dict(analysis.summary())
    result["tfrr"] = {k: v for k, v in result["tfrr"].items() if k != "roc"}
    if args.json:
        return emit(result, True, _text)
    return emit(result, False, _text)


def _pct(x) -> str:
    if x is None:
        return "n/a"
    if 0 < x < 1e-5:
        return "<0.001%"
    if 0 < x < 0.001:
        return f"{100 * x:.2g}%"
    return f"{100 * x:.1f}%"


def _num(x, fmt=".3f") -> str:
    return "n/a" if x is None else format(x, fmt)


def _plan_text(r: dict) -> str:
    c, p = r["contributions"], r["plan"]
    rel = c["release"]
    lines = [f"{r['source']}: {c['n_records']:,} records on {', '.join(r['columns'])}: {_pct(rel['uniqueness'])} unique, "
             f"{_pct(rel['share_below_k'])} in a class below k = {c['k']}, {rel['bits']:.2f} bits",
             "Each column's contribution (unique / below k / bits):"]
    for row in c["columns"]:
        w, g = row["withheld"], row["generalised"]
        lines.append(f"  {row['column']:<20} withheld: {_pct(w['uniqueness']):>6} / {_pct(w['share_below_k']):>6} / "
                     f"{w['bits']:.2f}" + (f"; {g['step']}: {_pct(g['uniqueness'])} / {_pct(g['share_below_k'])} / "
                                           f"{g['bits']:.2f}" if g else "; no coarser step"))
    lines.append(f"Plan (share below k = {p['k']} at most {_pct(p['target'])}): {p['message']}")
    for i, s in enumerate(p["steps"], 1):
        lines.append(f"  {i:>2}. {s['column']:<20} {s['action']:<52} below k {_pct(s['share_below_k']):>6}, "
                     f"{s['bits']:.2f} bits")
    return "\n".join(lines)


def _text(r: dict) -> str:
    e, t, p = r["empirical"], r["tfrr"], r["pyc"]
    lines = [f"{r['source']}: {r['n_records']:,} records on {', '.join(r['columns'])}"
             + (f" (bins: {', '.join(f'{k}={v:g}' for k, v in r['bins'].items())})" if r["bins"] else "")]
    lines += [f"  warning: {w}" for w in r["warnings"]]
    lines.append(f"Empirical: {e['n_classes']:,} classes; unique records {_pct(e['uniqueness'])}; "
                 + "; ".join(f"k={k}: {v['records']:,} records ({_pct(v['share'])}) in classes below k"
                             for k, v in e["k_anonymity"].items()))
    m = r["model"]
    lines.append(f"Model shown: {m['reason']}")
    for key, name in (("copula", "Gaussian copula"), ("latent_class", "Latent class model")):
        b = r[key]
        v = b.get("validation", {})
        extra = f" ({b['fit']['classes']} classes, {b['fit']['rule_text']})" if key == "latent_class" else ""
        lines.append(f"{name}{extra}: uniqueness at the data set's size {_pct(b['uniqueness'])} "
                     f"(empirical {_pct(e['uniqueness'])}); at N = {b['population']:,.0f}: "
                     f"mean xi {_pct(b['uniqueness_at_population'])}, mean kappa {_pct(b['correctness_at_population'])}")
        if key == "latent_class":
            lines += [f"  {t}" for t in b["fit"].get("companion_text", [])]
        if v.get("mae") is not None:
            lines.append(f"  validation (fit on {v['fraction']:.0%} = {v['train_records']:,} records, {v['trials']} trials): "
                         f"MAE of uniqueness {_num(v['mae'])}, AUC of xi {_num(v['auc'])}, "
                         f"calibration error {_num(v['calibration']['error'])}")
        else:
            lines.append(f"  validation: {v.get('reason', 'not run')}")
        for s in b.get("one_more_attribute", []):
            lines.append(f"  + {s['name']:<24} Xi(N) {_pct(s['uniqueness_population']):>7}   "
                         f"unique in the data set: model {_pct(s['uniqueness_dataset_model']):>7}, "
                         f"empirical {_pct(s['uniqueness_dataset_empirical']):>7}")
    lines.append(f"TFRR: AUC against empirical uniqueness {_num(t['auc'])} (exact recursive hypergeometric), "
                 f"{_num(t['auc_binomial'])} (binomial)")
    if p.get("available"):
        lines.append(f"Pitman-Yor fit of the class sizes: h = {p['h_bits']:.4g} bits, gamma = {p['gamma']:.4g} "
                     f"(d = {p['d']:.4g}, alpha = {p['alpha']:.4g}); scaling page: {p['scaling_url'] or 'out of its range'}")
    else:
        lines.append(f"Pitman-Yor fit: not available ({p['reason']})")
    return "\n".join(lines)


def add_data_set_options(parser) -> None:
    """FILE and the analysis options, shared by ``anonset dataset`` and ``anonset report dataset``."""
    parser.add_argument("file", metavar="FILE", help="a CSV file, or 'nhanes' (NHANES 2017-2018 sample) or 'adult' (UCI Adult, 1994)")
    parser.add_argument("--columns", required=True, help="quasi-identifier columns, comma-separated")
    parser.add_argument("--bins", help="bin widths of numeric columns, e.g. age=5,height_cm=2")
    parser.add_argument("--population", help="population size N for xi and kappa (default: the data set's size)")
    parser.add_argument("--missing", choices=microdata.MISSING_POLICIES, default="drop",
                        help="records with a missing value: drop them (default) or treat missing as a value")
    parser.add_argument("--fraction", default=None, help="validation: share of records to fit on (default 0.1; given "
                        "explicitly, it must leave at least 50 records)")
    parser.add_argument("--model", dest="uniqueness_model", choices=microdata.MODEL_CHOICES, default="auto",
                        help="the model of each record's xi and kappa: copula, latent-class, or auto (default: the one "
                             "that validates better on this data set)")
    parser.add_argument("--classes-rule", choices=microdata.CLASSES_RULES, default=microdata.DEFAULT_CLASSES_RULE,
                        help="how the latent class model chooses its number of classes: " + "; ".join(
                            f"{r}: {microdata.CLASSES_RULE_TEXT[r]}" for r in microdata.CLASSES_RULES)
                        + f" (default {microdata.DEFAULT_CLASSES_RULE})")
    parser.add_argument("--trials", default=microdata.DEFAULT_TRIALS, help="validation: random fractions averaged (default 3)")


def add_parser(sub) -> None:
    c = sub.add_parser(
        "dataset", help="uniqueness, correctness and risk of a record-level data set (copula, TFRR, Pitman-Yor)",
        description=("Empirical classes, Gaussian-copula uniqueness (Rocher et al. 2019) with its validation, "
                     "TFRR (Yang et al. 2021) and the Pitman-Yor fit of the class sizes, for the chosen "
                     "quasi-identifier columns (SPEC 5). FILE is a CSV, 'nhanes' or 'adult'."),
    )
    add_data_set_options(c)
    c.add_argument("--seed", type=int, default=0, help="seed of the random choices (default 0)")
    c.add_argument("--plan", action="store_true",
                   help="which columns to coarsen: each column's contribution and a coarsening plan (instead of the "
                        "analysis)")
    c.add_argument("--k", default=microdata.DEFAULT_K, help="plan: records in a class below k count as at risk (default 5)")
    c.add_argument("--target", default=microdata.DEFAULT_TARGET,
                   help="plan: largest share of records at risk to reach (default 0.05)")
    c.add_argument("--records", metavar="OUT.csv",
                   help="also write one row per record: row number, class size, p, xi, kappa, TFRR risks "
                        "(no quasi-identifier values unless --with-values)")
    c.add_argument("--with-values", action="store_true", help="--records: include the quasi-identifier values")
    c.add_argument("--json", action="store_true", help="print JSON")
    c.set_defaults(func=run)
