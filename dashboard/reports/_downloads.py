"""The pages' reports as files (issue 29): each page's shareable query → the report, made once and named.

``GET /_reports/<kind>?…`` (:mod:`dashboard.server.report_routes`) answers with :data:`KINDS`: the explorer's
scenario with its age grains and table ages, the bucket advisor's settings, a shipped data set's form.
Parsing is strict (a bad value is an InputError naming it, never a default in its place); the report
is the one the pages' callbacks made before (the same functions, key and English document), so the file
is the same bytes.  An uploaded file's report (:func:`upload_report`) is made for its one request, never kept.
"""
from __future__ import annotations

import hashlib
from collections.abc import Callable, Hashable, Mapping
from functools import lru_cache
from pathlib import Path

from dashboard import forms
from dashboard.core.errors import InputError
from dashboard.core.regions import GRAINS, Scenario, format_range
from dashboard.core.text import DEFAULT_LANGUAGE, language
from dashboard.core.text import gettext as _
from dashboard.server import limits
from dashboard.server.report_routes import ReportFile, ReportKind
from dashboard.views import buckets as vb
from dashboard.views import dataset as vd
from dashboard.views import explorer as ve

from . import _common
from ._buckets import buckets_report
from ._dataset import dataset_report
from ._document import to_html
from ._explorer import explorer_report
from ._files import file_name, rendered, report_command

#: The code a report is made by (its ETag changes with it, as with the data).
_CODE = ("core", "figures", "views", "reports")


@lru_cache(maxsize=1)
def code_version() -> str:
    h = hashlib.sha256(_common.version().encode())
    root = Path(__file__).resolve().parents[1]
    for part in _CODE:
        for path in sorted((root / part).rglob("*.py")):
            h.update(path.relative_to(root).as_posix().encode() + b"\0" + path.read_bytes())
    return h.hexdigest()


def _file(kind: str, key: Hashable, name: str, make: Callable[[], str]) -> ReportFile:
    tag = hashlib.sha256(f"{kind}|{key!r}|{_common.manifest_sha256()}|{code_version()}".encode()).hexdigest()[:32]
    return ReportFile(name, f'"{tag}"', lambda: rendered(kind, key, make))


def _grain(q: Mapping[str, str], key: str) -> str:
    grain = q.get(key, ve.DEFAULT_TABLE_GRAIN)
    if grain not in GRAINS:
        raise InputError(_("unknown age grain {grain}: choose one of {grains}").format(
            grain=repr(grain[:20]), grains=", ".join(GRAINS)))
    return grain


def explorer_file(query: Mapping) -> ReportFile:
    """``?country=DE&…&cdf_grain=5&table_ages=18-75&table_grain=5``: the page's link (its scenario as
    :meth:`Scenario.to_query` writes it, the country tables' ages as typed) without the selected district."""
    q = forms.query_last(query)
    s = Scenario.from_query({k: v for k, v in q.items() if k in ve.SCENARIO_KEYS})
    limits.check_scenario(s, what=_("This report"))
    table_ages = ve.parse_table_ages(q.get("table_ages", ve.range_text(ve.DEFAULT_TABLE_AGES)))
    cdf_grain, table_grain = _grain(q, "cdf_grain"), _grain(q, "table_grain")
    command = report_command("explorer", s.to_cli("districts"), ["--grain", cdf_grain, "--table-ages",
                             format_range(table_ages), "--table-grain", table_grain])

    def make() -> str:
        with limits.report_slot(command), limits.scenario_slot(s, _("This report")), language(DEFAULT_LANGUAGE):
            return to_html(explorer_report(s, cdf_grain=cdf_grain, table_ages=table_ages, table_grain=table_grain))

    return _file("explorer", (s, cdf_grain, table_ages, table_grain), file_name("explorer", "-".join(s.countries)),
                 make)


def buckets_file(query: Mapping) -> ReportFile:
    """``?country=DE&k=10&coverage=0.95[&per_district=1][&model=paper]``: the advisor's link."""
    s, _notices = vb.from_query(query, strict=True)

    def make() -> str:
        with limits.report_slot(report_command("buckets", vb.cli_command(s))), language(DEFAULT_LANGUAGE):
            return to_html(buckets_report(s, vb.advice(s)))

    return _file("buckets", s, file_name("buckets", f"{s.country}-k{s.k:g}-q{s.q:g}"), make)


def _dataset_make(req: vd.Request, table_, filename: str | None) -> Callable[[], str]:
    plan = ["--k", f"{req.k:g}", "--target", f"{req.target:g}"]
    name = filename if req.source == "upload" else None

    def make() -> str:
        with limits.report_slot(report_command("dataset", vd.command(req, filename), plan)), language(DEFAULT_LANGUAGE):
            return to_html(dataset_report(vd.analyse(req, table_), req, name, vd.coarsening(req, table_)))

    return make


def dataset_file(query: Mapping) -> ReportFile:
    """``?source=nhanes&columns=sex&columns=age&bin.age=10&population=…&fraction=…&trials=…&model=…&classes_rule=…
    &k=…&target=…``: a shipped data set's form, each value as typed (:func:`dashboard.views.dataset.request_from_query`)."""
    req = vd.request_from_query(query)
    make = _dataset_make(req, vd.table_for(req.source, None, None), None)
    return _file("dataset", (req.key(), req.plan_key()), file_name("dataset", req.source), make)


def upload_report(req: vd.Request, table_, filename: str | None) -> tuple[str, str]:
    """An uploaded file's report and file name, made for this one request (never kept: a person's records)."""
    return _dataset_make(req, table_, filename)(), file_name("dataset", "upload")


#: The reports served by ``GET /_reports/<kind>``, each with the page whose language its messages speak.
KINDS = {
    "explorer": ReportKind("/explore", explorer_file),
    "buckets": ReportKind(vb.PATH, buckets_file),
    "dataset": ReportKind("/dataset", dataset_file),
}
