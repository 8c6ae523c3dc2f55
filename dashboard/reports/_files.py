"""What a report is called, the command that writes it locally, and the reports already made (by kind and every
parameter)."""
import shlex
from collections.abc import Callable, Hashable, Sequence

from dashboard.core import memo

from . import _common


def file_name(kind: str, stem: str) -> str:
    """``anonset-report-explorer-DE.html``: what a downloaded report is called."""
    safe = "".join(ch if ch.isalnum() or ch in "-_." else "-" for ch in stem)[:60].strip("-") or "report"
    return f"anonset-report-{kind}-{safe}.html"


#: the page command each kind of report extends (its options are the report's, see ``dashboard/cli/report.py``)
_PAGE_COMMANDS = {"explorer": "districts", "buckets": "buckets", "dataset": "dataset"}


def report_command(kind: str, page_command: str, extra: Sequence[str] = ()) -> str:
    """``anonset report KIND … --out FILE.html``: the report of a page, written on the visitor's own machine.

    ``page_command`` is the page's own "reproduce this" line (``anonset districts|buckets|dataset …``); the report
    takes the same options, plus ``extra`` (e.g. the explorer's ``--grain``)."""
    words = shlex.split(page_command)
    if kind not in _PAGE_COMMANDS or words[:2] != ["anonset", _PAGE_COMMANDS[kind]]:
        raise ValueError(f"no {kind!r} report for the command {page_command!r}")
    return shlex.join(["anonset", "report", kind, *words[2:], *extra, "--out", f"anonset-report-{kind}.html"])


#: Reports already made, by kind and every parameter (a hall pressing "Download report" on the same view gets one
#: rendering); a few, since each holds 5–12 MB of HTML.
_RENDERED = memo.Memo(4, name="reports.rendered", max_bytes=64 * 2**20)


def rendered(kind: str, key: Hashable, make: Callable[[], str]) -> str:
    """The report ``make()`` writes, made once per ``(kind, key)`` and data manifest: a second request is the same
    file, "made" at the first request's time.  ``key`` must hold every parameter of the report; never use it for
    a report of a person's own upload (it is not kept)."""
    return _RENDERED.get((kind, key, _common.manifest_sha256()), make)
