"""Reports people can file (issue 33): one self-contained HTML file per analysis, offline and printable.

:func:`explorer_report`, :func:`buckets_report` and :func:`dataset_report` gather what the pages
show from the same view and core functions (so every number equals ``anonset … --json``);
:func:`to_html` lays a :class:`Report` out as one HTML document with plotly.js embedded once
and nothing fetched from another host.  The CLI (``anonset report``) and the pages' "Download
report" buttons both call these.
"""
from ._buckets import buckets_report
from ._dataset import NO_RECORD_VALUES, dataset_report
from ._document import Cell, Report, Section, Table, to_html
from ._explorer import explorer_report
from ._maps import rewind_for_d3, svg_map

__all__ = ["Cell", "NO_RECORD_VALUES", "Report", "Section", "Table", "buckets_report", "dataset_report",
           "explorer_report", "file_name", "rewind_for_d3", "svg_map", "to_html"]


def file_name(kind: str, stem: str) -> str:
    """``anonset-report-explorer-DE.html``: what a downloaded report is called."""
    safe = "".join(ch if ch.isalnum() or ch in "-_." else "-" for ch in stem)[:60].strip("-") or "report"
    return f"anonset-report-{kind}-{safe}.html"
