"""``anonset report explorer|buckets|dataset … --out FILE.html``: a report people can file (issue 33).

One self-contained HTML file (plotly.js embedded, nothing fetched, a print stylesheet for A4 and
Letter) with every parameter, the headline figures in sentences, each chart with its numbers as a
table, the data sources, the method, the known limits and the ``anonset … --json`` commands that
reproduce every number.  The options are those of ``anonset districts``/``cdf``, ``anonset
buckets`` and ``anonset dataset``.  Batch use (a data portal): a file that cannot be analysed ends
with one line on stderr and exit code 2, and no report is written.
"""
from __future__ import annotations

import os
import sys
import tempfile
import time
from pathlib import Path

from . import CliError


def _check_out(path: str) -> None:
    if Path(path).suffix.lower() not in (".html", ".htm"):
        raise CliError(f"--out {path}: give a file name ending in .html")


def _checked(run):
    """Check --out before any work (a bad file name is refused at once, not after a minute of analysis)."""
    def checked(args) -> int:
        _check_out(args.out)
        return run(args)

    return checked


def _write(path: str, text: str) -> None:
    """Write atomically: a failed run never leaves half a report (or replaces a good one)."""
    target = Path(path)
    _check_out(path)
    try:
        fd, tmp = tempfile.mkstemp(prefix=".anonset-report-", suffix=".html", dir=target.parent if str(target.parent) else ".")
        with os.fdopen(fd, "w", encoding="utf-8") as fh:
            fh.write(text)
        umask = os.umask(0)
        os.umask(umask)
        os.chmod(tmp, 0o666 & ~umask)  # an ordinary file, not mkstemp's private 0600
        os.replace(tmp, target)
    except OSError as exc:
        raise CliError(f"--out {path}: cannot be written ({exc.strerror or exc})") from None


def _done(args, text: str, started: float) -> int:
    _write(args.out, text)
    print(f"anonset: report written to {args.out} ({len(text.encode('utf-8')) / 1e6:.1f} MB, "
          f"{time.perf_counter() - started:.1f} s)", file=sys.stderr)
    return 0


def _explorer(args) -> int:
    from dashboard.core import regions
    from dashboard.reports import explorer_report, to_html
    from dashboard.views import explorer as ve

    from .regions import scenario_from_args

    started = time.perf_counter()
    scenario = scenario_from_args(args)
    table_ages = ve.parse_table_ages(args.table_ages) if args.table_ages else ve.DEFAULT_TABLE_AGES
    for what, grain in (("--grain", args.grain), ("--table-grain", args.table_grain)):
        if grain not in regions.GRAINS:
            raise CliError(f"{what} {grain!r}: choose 5 (whole 5-year groups) or census (each data set's own)")
    report = explorer_report(scenario, cdf_grain=args.grain, table_ages=table_ages, table_grain=args.table_grain)
    return _done(args, to_html(report), started)


def _buckets(args) -> int:
    from dashboard.core import buckets as bk
    from dashboard.core.body import check_model
    from dashboard.reports import buckets_report, to_html
    from dashboard.views import buckets as vb

    started = time.perf_counter()
    try:
        k, q = float(args.k), float(args.coverage)
    except ValueError:
        raise CliError(f"--k {args.k!r} and --coverage {args.coverage!r} must be numbers (e.g. 10 and 0.95)") from None
    settings = vb.Settings(str(args.country).strip().upper(), bk.check_k(k), bk.check_coverage(q),
                           bool(args.per_district), check_model(args.model))
    advice = bk.advise(settings.country, settings.k, settings.q, per_district=settings.per_district,
                       model=settings.model)
    return _done(args, to_html(buckets_report(settings, advice)), started)


def _dataset(args) -> int:
    from dashboard.core import microdata
    from dashboard.reports import dataset_report, to_html
    from dashboard.views import dataset as vd

    from .dataset import load_table

    started = time.perf_counter()
    table = load_table(args.file)
    columns = microdata.parse_columns(args.columns)
    bins = microdata.parse_bins(args.bins)
    shipped = args.file.lower() in vd.SHIPPED_SOURCES
    population = None
    if args.population is not None:
        try:
            population = float(str(args.population).replace("_", "").replace(",", ""))
        except ValueError:
            raise CliError(f"--population {args.population!r} is not a number (e.g. 330e6)") from None
    req = vd.Request(source=args.file.lower() if shipped else "upload", columns=tuple(columns),
                     bins=tuple(sorted((str(c), float(w)) for c, w in (bins or {}).items())), missing=args.missing,
                     population=population,
                     fraction=microdata.check_fraction(args.fraction if args.fraction not in (None, "")
                                                       else microdata.DEFAULT_FRACTION),
                     trials=microdata.check_trials(args.trials), model=microdata.check_model(args.uniqueness_model),
                     classes_rule=microdata.check_classes_rule(args.classes_rule),
                     k=microdata.check_k(args.k), target=microdata.check_target(args.target))
    analysis = microdata.analyse(table, columns, bins, missing=args.missing, population=population,
                                 fraction=args.fraction, trials=args.trials, model=args.uniqueness_model,
                                 classes_rule=args.classes_rule)
    coarsening = {"contributions": microdata.contributions(table, columns, bins, args.missing, req.k),
                  "plan": microdata.plan(table, columns, bins, args.missing, req.k, req.target)}
    report = dataset_report(analysis, req, None if shipped else args.file, coarsening)
    return _done(args, to_html(report), started)


def add_parser(sub) -> None:
    from dashboard.core import microdata
    from dashboard.core.body import DEFAULT_MODEL

    from .dataset import add_data_set_options
    from .regions import add_scenario_options

    p = sub.add_parser("report", help="write a self-contained HTML report of an explorer, bucket or data-set analysis",
                       description=__doc__.split("\n\n")[1])
    kinds = p.add_subparsers(dest="kind", metavar="KIND")
    kinds.required = True

    e = kinds.add_parser("explorer", help="the regional explorer: district map, distributions, country tables",
                         description="The explorer's report; the scenario options are those of `anonset districts`.")
    add_scenario_options(e, cache_and_json=False)
    e.add_argument("--stat", help="the map's statistic: person_mean (default), cell_mean, min, max, share_below")
    e.add_argument("--k", help="threshold of --stat share_below (default 5)")
    e.add_argument("--grain", default="5", help="age groups of the curves: 5 (default) or census")
    e.add_argument("--table-ages", help="ages of the country tables (default 18-75)")
    e.add_argument("--table-grain", default="5", help="age groups of the country tables: 5 (default) or census")
    e.add_argument("--out", required=True, metavar="FILE.html", help="where to write the report")
    e.set_defaults(func=_checked(_explorer))

    b = kinds.add_parser("buckets", help="the bucket advisor: safe bucket sizes for an app",
                         description="The bucket advisor's report; options as `anonset buckets` (adults 18–75).")
    b.add_argument("--country", required=True, metavar="CODE", help="data set code, e.g. DE, US, AU-SA2")
    b.add_argument("--k", default="10", help="minimum anonymity set (default 10)")
    b.add_argument("--coverage", default="0.95", help="share of people who must reach k, in (0, 1] (default 0.95)")
    b.add_argument("--per-district", action="store_true", help="also each district's own finest safe buckets")
    b.add_argument("--model", default=DEFAULT_MODEL, help="body model: v2 (default) or paper")
    b.add_argument("--out", required=True, metavar="FILE.html", help="where to write the report")
    b.set_defaults(func=_checked(_buckets))

    d = kinds.add_parser("dataset", help="a record-level data set: uniqueness, correctness, risk (aggregates only)",
                         description="The data-set page's report (no record values); options as `anonset dataset`. "
                                     "Exits with code 2 and one line on stderr when the file cannot be analysed.")
    add_data_set_options(d)
    d.add_argument("--k", default=microdata.DEFAULT_K, help="the plan's k (default 5)")
    d.add_argument("--target", default=microdata.DEFAULT_TARGET, help="the plan's target share below k (default 0.05)")
    d.add_argument("--out", required=True, metavar="FILE.html", help="where to write the report")
    d.set_defaults(func=_checked(_dataset))
