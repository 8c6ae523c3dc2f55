"""The explorer's country tables (SPEC §1.5): every data set's anonymity sets over district × sex × age, as rows,
columns, the note under them and their CSV download.

Apart from :mod:`dashboard.views.explorer` (the map, the detail and the distributions), which re-exports these
names; this module needs nothing from it.
"""
from __future__ import annotations

import math
import re
import unicodedata

from dash import dash_table

from dashboard import ids
from dashboard.components import TABLE_STYLE, table_locale
from dashboard.core import country, regions
from dashboard.core.groups import format_age_band
from dashboard.core.memo import Memo
from dashboard.core.text import N_, current_language, translate_marked
from dashboard.core.text import gettext as _

#: The country tables compare whole 5-year age groups by default (:mod:`dashboard.core.regions`).
DEFAULT_TABLE_GRAIN = "5"
DISTRICT_NUM = {"specifier": ",.15~g"}  # values are rounded beforehand (whole people / 2 significant digits)
TABLE_ID = ids.make("explore", "country-table")
#: The country tables per (ages, grain, language): shared by requests, read-only.
TABLES_MEMO = Memo(32, name="views.explorer.tables")


def table_csv(rows: list[dict], columns: list[dict]) -> str:
    """A table as CSV with one header row: a two-level column name becomes "group: name" (a spreadsheet reads one
    header row; DataTable's own export wrote the two levels as two rows)."""
    import csv
    import io

    def header(c: dict) -> str:
        name = c.get("name", c["id"])
        if isinstance(name, (list, tuple)):
            return ": ".join(str(n) for n in name) if len(set(name)) > 1 else str(name[0])
        return str(name)

    out = io.StringIO()
    writer = csv.writer(out, lineterminator="\n")
    writer.writerow([header(c) for c in columns])
    for row in rows or []:
        writer.writerow(["" if row.get(c["id"]) is None else row.get(c["id"]) for c in columns])
    return out.getvalue()


def export_name(kind: str, *parts) -> str:
    """A download's file name that says what it holds (not DataTable's "Data.csv" for every table):
    ``anonset-districts-DE-mean.csv``, ``anonset-country-tables-18-75-census.csv``."""
    words = [kind] + [str(p) for p in parts if p not in (None, "", [])]
    ascii_words = (unicodedata.normalize("NFKD", w).encode("ascii", "ignore").decode() for w in words)  # "países"
    safe = "-".join(re.sub(r"[^A-Za-z0-9.+_-]+", "-", w).strip("-") for w in ascii_words)
    return f"anonset-{safe}.csv"



def table_note(ages, grain: str) -> str:
    """What the country tables compare (said under the table, because the UK's ages are single years)."""
    if grain == "census":
        return _("Each data set on its own age groups, trimmed to the ages by overlap: not comparable across "
                 "countries. The UK publishes single years of age, so its cells hold about a fifth of the people of "
                 "a 5-year cell; a trimmed group such as 18–20 (of 15–20) holds part of its people, which is where "
                 "most minima and the fractional people come from.")
    lo, hi = regions.comparable_ages(ages)
    return _("Compared on whole 5-year age groups inside the chosen ages ({ages}): the UK's single years are summed "
             "into 5-year groups, and no census group is cut in part, so the data sets have cells of the same kind "
             "and no minimum comes from a fraction of a group (a data set that publishes a wider group, such as "
             "Germany's 65–75, keeps it; one that publishes estimated counts, such as Morocco, can still show "
             "fractions of a person). Choose “each data set's own age groups” for the census grain.").format(
        ages=format_age_band(lo, hi))




def country_table_rows(ages, grain: str = DEFAULT_TABLE_GRAIN) -> list[dict]:
    """Country tables of every data set (district × sex × age only) as displayed: people rounded down.

    ``grain`` "5" compares whole 5-year groups (the default), "census" each data set's own groups.
    Memoised per age range and grain (every visit shows the default one, whose table the build stored in the
    cache: :func:`dashboard.core.regions.write_country_table`): shared by requests, read-only.
    """
    ages = tuple(float(a) for a in ages)
    return TABLES_MEMO.get((ages, grain, current_language()), lambda: _country_table_rows(ages, grain))


def _country_table_rows(ages, grain: str = DEFAULT_TABLE_GRAIN) -> list[dict]:
    df = regions.comparable_country_table(None, ages, grain)

    def cas(v):
        v = float(v)
        if not math.isfinite(v):
            return None
        return float(f"{v:.2g}") if 0 < v < 1 else math.floor(v + 1e-9)

    def num(v, digits):
        v = float(v)
        return round(v, digits) if math.isfinite(v) else None

    rows = []
    for r in df.to_dict("records"):
        where = r["min_district_name"]
        where = "–" if where is None or str(where) == "<NA>" else f"{where} ({r['min_district_id']})"
        rows.append({
            "id": f"{r['country']}-{r['sex']}", "country": str(r["country"]), "name": country.dataset_title(str(r["country"])),
            "sex": translate_marked(str(r["sex"])) if str(r["sex"]) in ("female", "male") else str(r["sex"]), "districts": int(r["districts"]), "population": cas(r["population"]),
            "min_cas": cas(r["min_cas"]), "min_where": where,
            "min_age": "–" if r["min_age"] is None or str(r["min_age"]) == "<NA>" else str(r["min_age"]),
            "cell_mean": cas(r["cell_mean"]), "male_female_ratio": num(r["male_female_ratio"], 3),
            "share_deviating": num(100 * float(r["share_deviating"]), 1),
            "mean_without_top_quartile": cas(r["mean_without_top_quartile"]),
            "mean_without_top_quartile_pct": num(r["mean_without_top_quartile_pct"], 1),
            "mean_middle_half": cas(r["mean_middle_half"]),
            "mean_middle_half_pct": num(r["mean_middle_half_pct"], 1),
        })
    return rows


COUNTRY_COLUMNS = [
    {"name": [N_("data set"), N_("code")], "id": "country"}, {"name": [N_("data set"), N_("country")], "id": "name"},
    {"name": [N_("data set"), N_("sex")], "id": "sex"},
    {"name": [N_("data set"), N_("districts")], "id": "districts", "type": "numeric", "format": {"specifier": ",d"}},
    {"name": [N_("data set"), N_("people")], "id": "population", "type": "numeric", "format": DISTRICT_NUM},
    {"name": [N_("minimum non-zero CAS"), N_("CAS")], "id": "min_cas", "type": "numeric", "format": DISTRICT_NUM},
    {"name": [N_("minimum non-zero CAS"), N_("district")], "id": "min_where"},
    {"name": [N_("minimum non-zero CAS"), N_("age group")], "id": "min_age"},
    {"name": [N_("mean CAS (all combinations)"), N_("mean")], "id": "cell_mean", "type": "numeric", "format": DISTRICT_NUM},
    {"name": [N_("mean CAS (all combinations)"), N_("male / female")], "id": "male_female_ratio", "type": "numeric",
     "format": {"specifier": ".3f"}},
    {"name": [N_("mean CAS (all combinations)"), N_("% deviating > 30 %")], "id": "share_deviating", "type": "numeric",
     "format": {"specifier": ".1f"}},
    {"name": [N_("without the top quartile"), N_("mean")], "id": "mean_without_top_quartile", "type": "numeric",
     "format": DISTRICT_NUM},
    {"name": [N_("without the top quartile"), N_("% of mean")], "id": "mean_without_top_quartile_pct", "type": "numeric",
     "format": {"specifier": ".1f"}},
    {"name": [N_("without both outer quartiles"), N_("mean")], "id": "mean_middle_half", "type": "numeric",
     "format": DISTRICT_NUM},
    {"name": [N_("without both outer quartiles"), N_("% of mean")], "id": "mean_middle_half_pct", "type": "numeric",
     "format": {"specifier": ".1f"}},
]
#: The country table's on-screen columns: all of :data:`COUNTRY_COLUMNS` scrolled sideways on a projector (1723 px in
#: a 1214 px page at 1280 × 720) and at 1440 × 900.  The trimmed means in people are left to the CSV and
#: ``anonset country-table`` (their "% of mean" says the same); headers are short words that wrap (soft hyphens
#: in the long ones: a header word was the widest thing in its column).
COUNTRY_SCREEN_COLUMNS = [
    {"name": [N_("data set"), N_("code")], "id": "country"}, {"name": [N_("data set"), N_("country")], "id": "name"},
    {"name": [N_("data set"), N_("sex")], "id": "sex"},
    {"name": [N_("data set"), N_("dis\u00adtricts")], "id": "districts", "type": "numeric", "format": {"specifier": ",d"}},
    {"name": [N_("data set"), N_("people")], "id": "population", "type": "numeric", "format": DISTRICT_NUM},
    {"name": [N_("smallest non-zero CAS"), N_("CAS")], "id": "min_cas", "type": "numeric", "format": DISTRICT_NUM},
    {"name": [N_("smallest non-zero CAS"), N_("district")], "id": "min_where"},
    {"name": [N_("smallest non-zero CAS"), N_("ages")], "id": "min_age"},
    {"name": [N_("mean CAS (all combinations)"), N_("mean")], "id": "cell_mean", "type": "numeric", "format": DISTRICT_NUM},
    {"name": [N_("mean CAS (all combinations)"), N_("male / female")], "id": "male_female_ratio", "type": "numeric",
     "format": {"specifier": ".3f"}},
    {"name": [N_("mean CAS (all combinations)"), N_("% off\u00a0by >\u00a030\u00a0%")], "id": "share_deviating",
     "type": "numeric", "format": {"specifier": ".1f"}},
    {"name": [N_("mean without … (% of the mean)"), N_("top quar\u00adtile")], "id": "mean_without_top_quartile_pct",
     "type": "numeric", "format": {"specifier": ".1f"}},
    {"name": [N_("mean without … (% of the mean)"), N_("both outer quar\u00adtiles")], "id": "mean_middle_half_pct",
     "type": "numeric", "format": {"specifier": ".1f"}},
]



def translated_columns(columns: list[dict]) -> list[dict]:
    """Columns whose (one- or two-level) marked names are shown in the page's language."""
    def name(n):
        return [translate_marked(p) for p in n] if isinstance(n, list) else translate_marked(n)
    return [{**c, "name": name(c["name"])} for c in columns]


def country_data_table() -> dash_table.DataTable:
    """The country tables on screen: :data:`COUNTRY_SCREEN_COLUMNS`, words wrapped in narrow columns, so the table
    fits a 1280 × 720 projector in presenter mode and a 1440 × 900 screen without scrolling sideways."""
    return dash_table.DataTable(
        id=TABLE_ID, data=[], columns=translated_columns(COUNTRY_SCREEN_COLUMNS), sort_action="native", page_size=30,
        locale_format=table_locale(),
        merge_duplicate_headers=True,
        style_cell_conditional=[{"if": {"column_id": c}, "textAlign": "left"}
                                for c in ("country", "name", "sex", "min_where", "min_age")]
        + [{"if": {"column_id": "name"}, "minWidth": "8em", "maxWidth": "13em"},
           {"if": {"column_id": "min_where"}, "minWidth": "6em", "maxWidth": "10em"},
           {"if": {"column_id": "min_age"}, "whiteSpace": "nowrap"}],
        css=[{"selector": ".dash-cell, .dash-header", "rule": "padding: 4px 6px !important"}],
        **TABLE_STYLE,
    )


