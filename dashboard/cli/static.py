"""``anonset export-static DIR``: the personal page as a folder any static host serves (issue 30).

    anonset export-static /tmp/site && python3 -m http.server -d /tmp/site 8000

The files are the app's own answers (:mod:`dashboard.server.static_site`); the target folder must be
empty, or hold a previous export and ``--force`` be given.  Bad input ends with one line and exit code 2.
"""
from __future__ import annotations

import dataclasses
import shutil
import sys
import tempfile
from pathlib import Path

from dashboard.forms import WIDTHS

from . import CliError, emit


def _codes(text: str | None) -> list[str] | None:
    if not text:
        return None
    import census_loaders as cl

    codes = []
    for raw in (c.strip() for c in text.split(",")):
        if not raw:
            continue
        try:
            codes.append(cl.canonical_code(raw))
        except cl.UnknownDataset:
            raise CliError(f"--countries: {raw[:20]!r} is not a data set (anonset data summary lists them)") from None
    if not codes:
        raise CliError("--countries names no data set")
    return list(dict.fromkeys(codes))


def _widths(text: str) -> tuple[int, ...]:
    try:
        widths = tuple(dict.fromkeys(int(w) for w in text.split(",") if w.strip()))
    except ValueError:
        raise CliError(f"--widths {text!r}: give band widths in cm/kg, e.g. 5 or 5,10") from None
    bad = [w for w in widths if w not in WIDTHS]
    if not widths or bad:
        raise CliError(f"--widths {text!r}: each width must be one of {', '.join(map(str, WIDTHS))}")
    return widths


def _text(summary: dict) -> str:
    first = summary["first_answer_gz_bytes"]
    lines = [f"Wrote {summary['files']} files, {summary['total_bytes'] / 1e6:.1f} MB, to {summary['target']} "
             f"({len(summary['datasets'])} data sets, {summary['seconds']:.0f} s).",
             f"Before its first answer the page of {first['largest']} (the most) fetches {first['bytes'] / 1e6:.2f} MB "
             f"gzipped (budget {summary['budget_first_answer_gz_mb']} MB; the whole site's budget is "
             f"{summary['budget_total_mb']} MB).",
             f"Serve it with: python3 -m http.server -d {summary['target']} 8000"]
    return "\n".join(lines)


def _over_budget(summary: dict) -> list[str]:
    out = []
    if summary["total_bytes"] > summary["budget_total_mb"] * 1e6:
        out.append(f"the site is {summary['total_bytes'] / 1e6:.0f} MB, over its budget of {summary['budget_total_mb']} MB")
    first = summary["first_answer_gz_bytes"]
    if first["bytes"] > summary["budget_first_answer_gz_mb"] * 1e6:
        out.append(f"{first['largest']}'s page fetches {first['bytes'] / 1e6:.2f} MB gzipped before its first answer, "
                   f"over the budget of {summary['budget_first_answer_gz_mb']} MB")
    return out


def _export(args) -> int:
    codes = _codes(args.countries)
    widths = _widths(args.widths)
    from dashboard.server.static_site import ExportError, prepare_target

    target = Path(args.dir).expanduser()
    try:
        prepare_target(target, args.force)  # bad input first: before the app and its data sets load
    except ExportError as exc:
        raise CliError(str(exc)) from None
    from dashboard.app import create_app
    from dashboard.server.preflight import StartRefused
    from dashboard.server.static_site import export
    from dashboard.settings import load

    try:
        settings = load()
    except ValueError as exc:
        raise CliError(str(exc)) from None
    # the tables the export builds go to a private folder of its own, not to a deployment's shared cache
    scratch = tempfile.mkdtemp(prefix="anonset-export-")
    try:
        app = create_app(dataclasses.replace(settings, cache_type="FileSystemCache", cache_dir=scratch, redis_url=None))
    except StartRefused as exc:
        shutil.rmtree(scratch, ignore_errors=True)
        raise CliError(" ".join(exc.lines)) from None

    def progress(i: int, n: int, code: str) -> None:
        if not args.json and sys.stderr.isatty():
            print(f"\r{i + 1}/{n} {code:<10}", end="", file=sys.stderr, flush=True)

    try:
        result = export(app, target, codes, force=True, widths=widths, progress=progress)
    except ExportError as exc:
        raise CliError(str(exc)) from None
    finally:
        shutil.rmtree(scratch, ignore_errors=True)
    if not args.json and sys.stderr.isatty():
        print(file=sys.stderr)
    summary = result.summary()
    summary.pop("tables")
    code = emit(summary, args.json, _text)
    for line in _over_budget(summary):  # written all the same: a budget is a promise to readers, not a refusal
        print(f"anonset: warning: {line}", file=sys.stderr)
    return code


def add_parser(sub) -> None:
    p = sub.add_parser("export-static", help="write the personal page as a static site (any static host, no Python)")
    p.add_argument("dir", help="the folder to write (empty, or a previous export with --force)")
    p.add_argument("--force", action="store_true", help="write over a previous export in DIR (its files only)")
    p.add_argument("--countries", help="comma-separated data set codes (default: every data set)")
    p.add_argument("--widths", default="5", help="band widths (cm and kg) whose tables are exported, e.g. 5 or 5,10 "
                                                  "(default 5: what the page opens with)")
    p.add_argument("--json", action="store_true", help="print what was written as JSON")
    p.set_defaults(func=_export)
