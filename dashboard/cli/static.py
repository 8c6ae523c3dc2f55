"""``anonset export-static DIR``: the personal page as a folder any static host serves (issue 30).

    anonset export-static /tmp/site && python3 -m http.server -d /tmp/site 8000

The files are the app's own answers (:mod:`dashboard.server.static_site`); the target folder must be
empty, or hold a previous export and ``--force`` be given.  Bad input ends with one line and exit code 2.
"""
from __future__ import annotations

import sys
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
    return (f"Wrote {summary['files']} files, {summary['total_bytes'] / 1e6:.1f} MB, to {summary['target']} "
            f"({len(summary['datasets'])} data sets, {summary['seconds']:.0f} s).\n"
            f"Serve it with: python3 -m http.server -d {summary['target']} 8000")


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
        app = create_app(load())
    except (StartRefused, ValueError) as exc:
        raise CliError(" ".join(getattr(exc, "lines", [str(exc)]))) from None

    def progress(i: int, n: int, code: str) -> None:
        if not args.json and sys.stderr.isatty():
            print(f"\r{i + 1}/{n} {code:<10}", end="", file=sys.stderr, flush=True)

    try:
        result = export(app, target, codes, force=True, widths=widths, progress=progress)
    except ExportError as exc:
        raise CliError(str(exc)) from None
    if not args.json and sys.stderr.isatty():
        print(file=sys.stderr)
    summary = result.summary()
    summary.pop("tables")
    return emit(summary, args.json, _text)


def add_parser(sub) -> None:
    p = sub.add_parser("export-static", help="write the personal page as a static site (any static host, no Python)")
    p.add_argument("dir", help="the folder to write (empty, or a previous export with --force)")
    p.add_argument("--force", action="store_true", help="write over a previous export in DIR (its files only)")
    p.add_argument("--countries", help="comma-separated data set codes (default: every data set)")
    p.add_argument("--widths", default="5", help="band widths (cm and kg) whose tables are exported, e.g. 5 or 5,10 "
                                                  "(default 5: what the page opens with)")
    p.add_argument("--json", action="store_true", help="print what was written as JSON")
    p.set_defaults(func=_export)
