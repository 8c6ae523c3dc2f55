"""``anonset world``: the world map's numbers (``/explore/world``), one line per country, from a shell.

The numbers are those ``anonset data build`` wrote (:func:`dashboard.core.world.world_aggregates`), so the
command prints exactly what the map colours: one data set per country.  ``--all`` lists every data set, as
the page's table does.
"""
from __future__ import annotations

from pathlib import Path

from dashboard.core.text import format_count, format_percent
from dashboard.core.world import map_rows, world_aggregates

from . import CliError, emit

#: ``--stat`` choices → the aggregates' columns.
STAT_CHOICES = {"mean": "person_mean", "share_below": "share_below"}


def _records(df) -> list[dict]:
    out = []
    for r in df.to_dict("records"):
        r["reference_year"] = None if r["reference_year"] is None or r["reference_year"] != r["reference_year"] \
            else int(r["reference_year"])
        out.append({k: (v.item() if hasattr(v, "item") else v) for k, v in r.items()})
    return out


def _format(rows: list[dict], stat: str) -> str:
    if not rows:
        return "no data sets"
    k = rows[0]["k"]
    head = "person-mean set (people)" if stat == "person_mean" else f"share of people in a set below {k:g}"
    lines = [f"{'code':<8} {'country':<28} {'grain':<22} {'year':>4} {head}"]
    for r in rows:
        value = format_count(r[stat]) if stat == "person_mean" else format_percent(r[stat])
        grain = "national (UN estimate)" if r["national_model"] else r["grain"]
        lines.append(f"{r['code']:<8} {r['name'][:28]:<28} {grain[:22]:<22} {r['reference_year'] or '':>4} {value}")
    lines.append(f"{len(rows)} rows; both sexes, ages {rows[0]['ages']}, body model {rows[0]['model']}, "
                 f"k = {k:g} (the explorer's defaults), computed by `anonset data build`")
    return "\n".join(lines)


def _world(args) -> int:
    stat = STAT_CHOICES.get(str(args.stat).strip().lower())
    if stat is None:
        raise CliError(f"--stat {args.stat!r} is not offered; use {' or '.join(STAT_CHOICES)}")
    df = world_aggregates(Path(args.cache) if args.cache else None)
    if not args.all:
        df = map_rows(df)
    rows = _records(df.sort_values(["country", "code"]))
    return emit(rows, args.json, lambda r: _format(r, stat))


def add_parser(sub) -> None:
    p = sub.add_parser("world", help="the world map's numbers: one value per country (the explorer's defaults)")
    p.add_argument("--stat", default="mean", help="mean (person-mean anonymity set, default) or share_below "
                                                  "(share of people in a set below k)")
    p.add_argument("--all", action="store_true", help="every data set, not only the one per country the map shows")
    p.add_argument("--cache", help="cache folder to read (default: data_cache/)")
    p.add_argument("--json", action="store_true", help="machine-readable output: one object per row")
    p.set_defaults(func=_world)
