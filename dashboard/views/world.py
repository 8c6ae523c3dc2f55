"""The world view (issue 26): ids, link parsing, the map, the country table and its search, for ``/explore/world``.

Everything shown is read from the aggregates the build wrote (:func:`dashboard.core.world.world_aggregates`):
no visit computes over the 192 data sets.  The table's rows are built once per cache version
(:data:`ROWS_MEMO`); the search matches every word of the query, accents and case ignored, against each
data set's catalogue search text (English, local and other names, code, continent).
"""
from __future__ import annotations

import shlex
from collections.abc import Mapping
from pathlib import Path
from urllib.parse import urlencode

from dash import dcc

from census_loaders import cache, fold
from census_loaders.paths import cache_dir
from dashboard import ids
from dashboard.core.country import country_name
from dashboard.core.country import search_text as catalogue_search_text
from dashboard.core.errors import InputError
from dashboard.core.memo import Memo
from dashboard.core.text import N_, current_language, district_word, gettext, local_number, ngettext
from dashboard.core.text import gettext as _
from dashboard.core.world import (
    AGGREGATES_FILE,
    DEFAULT_WORLD_STAT,
    WORLD_STATS,
    check_world_stat,
    map_rows,
    world_aggregates,
)
from dashboard.figures import world as figs
from dashboard.figures.style import message_figure

PAGE = "world"
PATH = "/explore/world"
EXPLORER_PATH = "/explore"
ID = {name: ids.make(PAGE, name) for name in ("stat", "map", "table", "search", "count", "go", "command",
                                              "url-sync", "query", "notice")}
#: The table's columns: (key, heading marked for translation; the share's heading names its k).
TABLE_COLUMNS = (
    ("country", N_("Country")), ("code", N_("Data set")), ("continent", N_("Continent")), ("grain", N_("Districts")),
    ("districts", N_("Number")), ("population", N_("Population")), ("year", N_("Year")),
    ("person_mean", N_("Person-mean set")), ("share_below", N_("Share below {k} (%)")), ("on_map", N_("On the map")),
    ("body", N_("Body statistics")),
)
#: The statistic switch's labels (the core's WORLD_STATS names them for the CLI, in English).
STAT_LABELS = {"person_mean": N_("Person-mean anonymity set"),
               "share_below": N_("Share of people in an anonymity set below {k}")}
#: Text columns read left-aligned; numbers stay right-aligned.
TABLE_ALIGN = [{"if": {"column_id": key}, "textAlign": "left"}
               for key in ("country", "code", "continent", "grain", "on_map", "body")]
#: The table's rows per cache version (a manifest stamp keys it; 192 rows, built in milliseconds).
ROWS_MEMO = Memo(maxsize=4)


def stat_from_query(query: Mapping) -> tuple[str, tuple[str, ...]]:
    """The statistic a link asks for (``?stat=share_below``) and any notice; unknown keys are ignored."""
    raw = (query or {}).get("stat")
    if raw is None or not str(raw).strip():
        return DEFAULT_WORLD_STAT, ()
    try:
        return check_world_stat(str(raw)), ()
    except InputError:
        return DEFAULT_WORLD_STAT, (_("Unknown statistic “{stat}” in the link; showing the {default}.").format(
            stat=str(raw)[:40], default=stat_label(DEFAULT_WORLD_STAT).lower()),)


def to_query(stat: str) -> str:
    """The address bar's ``?…`` for a statistic (written out even for the default, so switching back clears it)."""
    return "?" + urlencode({"stat": check_world_stat(stat)})


def check_stat(stat) -> str:
    """The switch's value, checked (a forged callback gets a clear message)."""
    return check_world_stat(None if stat is None else str(stat)[:40])


def explorer_href(code: str) -> str:
    """Where a click on a country (or its table row) leads: the explorer on that data set."""
    return f"{EXPLORER_PATH}?{urlencode({'country': str(code)})}"


def cli_command(stat: str) -> str:
    """The ``anonset`` command that prints the same numbers ("reproduce this")."""
    return shlex.join(["anonset", "world", "--stat", "share_below" if stat == "share_below" else "mean"])


def stat_label(stat: str, k: float | None = None) -> str:
    """The switch's label of ``stat`` in the page's language (the share's with its k, or "k")."""
    return gettext(STAT_LABELS[stat]).format(k=_k_text(k) if k is not None else "k")


def _k_text(k: float) -> str:
    return local_number(f"{k:g}")


def _k(df) -> float:
    return float(df["k"].iloc[0]) if len(df) else 5.0


def k_of_cache(root=None) -> float:
    """The k the aggregates' share was computed for (the explorer's default)."""
    return _k(world_aggregates(root))


def click_href(click, root=None) -> str | None:
    """The explorer link of a clicked country (``clickData`` of the map), or None for a click on nothing."""
    try:
        location = str(click["points"][0]["location"])
    except (TypeError, KeyError, IndexError):
        return None
    rows = map_rows(world_aggregates(root))
    code = rows.loc[rows["country"] == location, "code"]
    return explorer_href(str(code.iloc[0])) if len(code) else None


def render_map(stat: str, root=None) -> dict:
    """The world choropleth for ``stat`` (a message figure when the cache holds no aggregates)."""
    try:
        df = world_aggregates(root)
    except InputError as exc:
        return message_figure(str(exc))
    rows = map_rows(df)
    title = (_("person-mean anonymity set (people)") if stat == "person_mean"
             else _("share of people in a set below {k}").format(k=_k_text(_k(df))))
    return figs.world_map(rows, stat, colorbar_title=title)


def _table_rows(df, manifest) -> list[dict]:
    datasets = manifest["datasets"]
    out = []
    for r in df.sort_values(["continent", "name", "code"]).to_dict("records"):
        d = datasets.get(r["code"], {})
        name = country_name(r["code"], d) if d else r["name"]
        out.append({
            "country": name, "code": f"[{r['code']}]({explorer_href(r['code'])})",
            "continent": gettext(r["continent"]),
            "grain": _("national only") if r["national_model"] else district_word(r["grain"]),
            "districts": int(r["districts"]), "population": round(float(r["population"])),
            "year": int(r["reference_year"]) if r["reference_year"] is not None else None,
            "person_mean": round(float(r["person_mean"]), 1),
            "share_below": round(100.0 * float(r["share_below"]), 2),
            "on_map": _("yes") if r["map_dataset"] else _("no ({code} is)").format(code=_stand_in(r["country"], df)),
            "body": r["body_prior_source"].split(":")[0],
            # the catalogue's names (English, local, other) and the name in the page's language ("Alemanha")
            "search": fold((catalogue_search_text(r["code"], d) if d else r["code"]) + " " + name).lower(),
        })
    return out


def _stand_in(country: str, df) -> str:
    shown = df[(df["country"] == country) & df["map_dataset"]]["code"]
    return str(shown.iloc[0]) if len(shown) else _("none")


def table_rows(root=None) -> list[dict]:
    """Every data set as a table row (memoised per cache version and language; treat as read-only)."""
    path = (Path(root) if root is not None else cache_dir()) / AGGREGATES_FILE
    try:
        stamp = path.stat().st_mtime_ns
    except FileNotFoundError:
        stamp = None
    key = (str(path), stamp, (path.parent.parent / "manifest.json").stat().st_mtime_ns if stamp else None,
           current_language())
    return ROWS_MEMO.get(key, lambda: _table_rows(world_aggregates(root), cache.manifest(root)))


def search_rows(rows: list[dict], query: str | None) -> list[dict]:
    """The rows whose search text holds every word of ``query`` (accents and case ignored)."""
    words = fold(str(query or "")).lower().split()
    if not words:
        return rows
    return [r for r in rows if all(w in r["search"] for w in words)]


def count_text(shown: int, total: int) -> str:
    if shown == total:
        return ngettext("{total} data set", "{total} data sets", total).format(total=local_number(f"{total:,}"))
    return ngettext("{shown} of {total} data set", "{shown} of {total} data sets", total).format(
        shown=local_number(f"{shown:,}"), total=local_number(f"{total:,}"))


def table_columns(k: float) -> list[dict]:
    from dash.dash_table.Format import Format, Group

    numeric = {"districts", "population", "year", "person_mean", "share_below"}
    cols = []
    for key, name in TABLE_COLUMNS:
        col = {"name": gettext(name).format(k=_k_text(k)), "id": key}
        if key in numeric:
            col.update(type="numeric", format=Format(group=Group.yes) if key != "year" else Format())
        if key == "code":
            col["presentation"] = "markdown"
        cols.append(col)
    return cols


def summary_line(root=None) -> str:
    """One sentence over the map: how many countries, and what the colours are for."""
    df = world_aggregates(root)
    rows = map_rows(df)
    with_districts = int((~rows["national_model"]).sum())
    return _("{countries} countries, each coloured by one data set (the national-grain one where a country has "
             "several); {with_districts} with district statistics, outlined in black; the other {national} are "
             "national UN estimates with no districts. The numbers are the explorer's default view of each data set: "
             "both sexes, ages {ages}, height and weight in 5 cm × 5 kg bands, body model {model}, k = {k}.").format(
        countries=len(rows), with_districts=with_districts, national=len(rows) - with_districts,
        ages=df["ages"].iloc[0], model=df["model"].iloc[0], k=_k_text(_k(df)))


def stat_switch(stat: str, k: float) -> dcc.RadioItems:
    return dcc.RadioItems(
        id=ID["stat"], value=stat, inline=True, className="radio-inline",
        options=[{"label": stat_label(s, k), "value": s} for s in WORLD_STATS],
    )
