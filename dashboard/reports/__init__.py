"""Reports people can file (issue 33): one self-contained HTML file per analysis, offline and printable.

:func:`explorer_report`, :func:`buckets_report` and :func:`dataset_report` gather what the pages
show from the same view and core functions (so every number equals ``anonset … --json``);
:func:`to_html` lays a :class:`Report` out as one HTML document with plotly.js embedded once
and nothing fetched from another host.  The CLI (``anonset report``) and the pages' "Download
report" buttons both call these: the buttons through ``GET /_reports/<kind>`` (:data:`KINDS`, issue 29:
each page's shareable query → the file), an uploaded file's report through :func:`upload_report`.
"""
from ._buckets import buckets_report
from ._dataset import NO_RECORD_VALUES, dataset_report
from ._document import Cell, Report, Section, Table, to_html
from ._downloads import KINDS, buckets_file, dataset_file, explorer_file, upload_report
from ._explorer import explorer_report
from ._files import file_name, rendered, report_command
from ._maps import rewind_for_d3, svg_map

__all__ = ["KINDS", "Cell", "NO_RECORD_VALUES", "Report", "Section", "Table", "buckets_file", "buckets_report",
           "dataset_file", "dataset_report", "explorer_file", "explorer_report", "file_name", "rendered",
           "report_command", "rewind_for_d3", "svg_map", "to_html", "upload_report"]
