"""``anonset data build`` and ``anonset data summary``.

``summary`` first verifies the cache against the sha256 its manifest records per file
(:mod:`census_loaders.checksums`): a damaged cache exits 1 with one line per damaged file
(``anonset serve`` refuses to start with the same lines, :func:`damage`).
"""
from __future__ import annotations

import functools
import sys
from pathlib import Path

from census_loaders import build as cache_build
from census_loaders import checksums, manifest
from census_loaders.paths import cache_dir, raw_dir
from dashboard.core.country import dataset_rows, world_total
from dashboard.core.regions import COUNTRY_TABLE_KEY, write_country_table
from dashboard.core.world import write_aggregates

from . import emit
from .cluster import LOCAL, data_set_mapper


def _build(args) -> int:
    raw = Path(args.raw) if args.raw else raw_dir()
    out = Path(args.out) if args.out else cache_dir()
    log = (lambda msg: None) if args.quiet else (lambda msg: print(msg, file=sys.stderr))
    with data_set_mapper(args.scheduler) as mapper:  # a bad or unreachable scheduler fails before the build
        cache_build.build(raw, out, log=log, derived=functools.partial(derived_files, mapper=mapper))
    return 0


def derived_files(folder: Path, log, mapper=None) -> dict:
    """What the build derives from the new cache (the world map's aggregates, the explorer's default country
    table), as manifest entries; ``mapper`` runs both's per-data-set work (in this process when None)."""
    mapped = {"mapper": mapper} if mapper else {}
    return {"world_aggregates": write_aggregates(folder, log, **mapped),
            COUNTRY_TABLE_KEY: write_country_table(folder, log, **mapped)}


def _aggregates(args) -> int:
    """Recompute the derived files of an existing cache in place and re-record its checksums."""
    root = Path(args.cache) if args.cache else cache_dir()
    problems = damage(root)
    if problems:
        return report_damage(problems)
    log = (lambda msg: None) if args.quiet else (lambda msg: print(msg, file=sys.stderr))
    with data_set_mapper(args.scheduler) as mapper:
        checksums.record(root, {**checksums.read(root), **derived_files(root, log, mapper)})
    return 0


def _notes(args) -> int:
    """Re-write the data sets' notes of an existing cache from the loaders (English text and structure, issue 31):
    only ``manifest.json`` changes.  A note whose English differs from the cache's is named on stderr."""
    root = Path(args.cache) if args.cache else cache_dir()
    problems = damage(root)
    if problems:
        return report_damage(problems)
    log = (lambda msg: None) if args.quiet else (lambda msg: print(msg, file=sys.stderr))
    changed = cache_build.rewrite_notes(Path(args.raw) if args.raw else raw_dir(), root, log)
    for line in changed:
        print(f"changed: {line}", file=sys.stderr)
    log(f"notes re-written in {root / checksums.MANIFEST} ({len(changed)} changed)")
    return 0


#: Width of the one-screen summary.
SCREEN_WIDTH = 100


def _wrapped(items: list[str], indent: str, width: int = SCREEN_WIDTH) -> list[str]:
    lines, line = [], indent
    for item in items:
        if len(line) + len(item) + 1 > width and line.strip():
            lines.append(line.rstrip())
            line = indent
        line += item + " "
    if line.strip():
        lines.append(line.rstrip())
    return lines


def _format_summary(rows: list[dict], world: dict) -> str:
    """One screen: per continent its people and data sets — the district data sets with their district
    count, then the national-only ones — and the world total.  ``--long`` lists every data set."""
    lines = []
    continents: dict[str, list[dict]] = {}
    for r in rows:
        continents.setdefault(r["continent"], []).append(r)
    for name, group in continents.items():
        finer = [r for r in group if not r["national_model"]]
        national = [r for r in group if r["national_model"]]
        people = sum(r["population"] for r in group if r["code"] in world["counted"])
        lines.append(f"{name} — {people:,} people; {len(finer)} data sets with districts, {len(national)} national only")
        lines += _wrapped([f"{r['code']}:{r['districts']:,}" for r in finer], "  districts: ")
        lines += _wrapped([r["code"] for r in national], "  national:  ")
    lines.append(f"World: {world['population']:,} people in {world['countries']} countries, each counted once "
                 f"({world['data_sets']} data sets);")
    lines.append(f"  {world['countries_with_districts']} countries with district data, "
                 f"{world['countries_national_only']} with national UN estimates only")
    lines.append("Details: `anonset data summary --long` (one line per data set) or `--json`.")
    return "\n".join(lines)


def _format_long(rows: list[dict]) -> str:
    lines = [f"{'code':<8} {'districts':>9} {'mapped':>7} {'population':>14}  {'date':<10}  {'continent':<13}  "
             "source / body statistics"]
    for r in rows:
        lines.append(
            f"{r['code']:<8} {r['districts']:>9,} {r['districts_with_geometry']:>7,} {r['population']:>14,.0f}  "
            f"{r['reference_date']:<10}  {r['continent']:<13}  {r['source']} / {r['body_prior_source']}"
        )
    lines.append(f"{len(rows)} data sets")
    return "\n".join(lines)


def damage(root: Path | None = None) -> list[str]:
    """One line per damaged file of the data cache (none when intact, or when there is no cache at all)."""
    try:
        return checksums.verify(root if root is not None else cache_dir())
    except FileNotFoundError:
        return []


def report_damage(lines: list[str]) -> int:
    """Print each line (a damaged file, or why the server must not start) on stderr; return the exit code 1."""
    for line in lines:
        print(f"anonset: error: {line}", file=sys.stderr)
    return 1


def _summary(args) -> int:
    root = Path(args.cache) if args.cache else None
    problems = damage(root)
    if problems:
        return report_damage(problems)
    try:
        rows = dataset_rows(manifest(root))
        world = world_total(manifest(root))
    except FileNotFoundError as exc:
        raise KeyError(str(exc)) from None
    if not checksums.recorded(manifest(root)):
        print("anonset: note: this cache's manifest records no file checksums (built before they were): "
              "its files were not verified", file=sys.stderr)
    if args.world:
        return emit(world, args.json, lambda w: _format_summary([], w).splitlines()[0])
    if args.long:
        return emit(rows, args.json, _format_long)
    return emit(rows, args.json, lambda r: _format_summary(r, world))


SCHEDULER_HELP = ("where the per-data-set aggregates run: local (default: a Dask cluster of 2 processes on "
                  "127.0.0.1), serial (this process) or a Dask scheduler's address, tcp://host:port")


def add_parser(sub) -> None:
    data = sub.add_parser("data", help="build or describe the normalised census cache")
    dsub = data.add_subparsers(dest="data_command", metavar="ACTION")
    dsub.required = True
    b = dsub.add_parser("build", help="rebuild data_cache/ from the official raw files")
    b.add_argument("--raw", help="raw data folder (default: ../shared/data/raw)")
    b.add_argument("--out", help="cache folder to write (default: data_cache/)")
    b.add_argument("--quiet", action="store_true", help="print nothing but errors")
    b.add_argument("--scheduler", default=LOCAL, help=SCHEDULER_HELP)
    b.set_defaults(func=_build)
    a = dsub.add_parser("aggregates", help="recompute the derived files of an existing cache (the world "
                        "map's aggregates, the explorer's default country table; the build computes them too)")
    a.add_argument("--cache", help="cache folder to update (default: data_cache/)")
    a.add_argument("--quiet", action="store_true", help="print nothing but errors")
    a.add_argument("--scheduler", default=LOCAL, help=SCHEDULER_HELP)
    a.set_defaults(func=_aggregates)
    n = dsub.add_parser("notes", help="re-write the data sets' notes in the manifest from the loaders (their English "
                        "and the structure the pages translate), without rebuilding a data file")
    n.add_argument("--raw", help="raw data folder (default: ../shared/data/raw)")
    n.add_argument("--cache", help="cache folder to update (default: data_cache/)")
    n.add_argument("--quiet", action="store_true", help="print nothing but errors and changed notes")
    n.set_defaults(func=_notes)
    s = dsub.add_parser("summary", help="per data set: districts, population, date, sources")
    s.add_argument("--cache", help="cache folder to read (default: data_cache/)")
    s.add_argument("--json", action="store_true", help="machine-readable output: one object per data set")
    s.add_argument("--long", action="store_true", help="one line per data set instead of one screen by continent")
    s.add_argument("--world", action="store_true", help="only the world total (each country counted once)")
    s.set_defaults(func=_summary)
