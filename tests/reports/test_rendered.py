"""A report is made once per kind and parameters: the second visitor gets the same file without a rendering."""
from __future__ import annotations

import pytest

from dashboard import reports
from dashboard.core import memo
from dashboard.reports import _files


@pytest.fixture
def fresh():
    _files._RENDERED.clear()
    yield
    _files._RENDERED.clear()


def test_the_same_report_is_rendered_once(fresh):
    made = []

    def make(text):
        def run():
            made.append(text)
            return text
        return run

    assert reports.rendered("buckets", ("MT", 10), make("<html>MT 10</html>")) == "<html>MT 10</html>"
    assert reports.rendered("buckets", ("MT", 10), make("never")) == "<html>MT 10</html>"
    assert reports.rendered("buckets", ("MT", 11), make("<html>MT 11</html>")) == "<html>MT 11</html>"
    assert reports.rendered("explorer", ("MT", 10), make("<html>explorer</html>")) == "<html>explorer</html>"
    assert made == ["<html>MT 10</html>", "<html>MT 11</html>", "<html>explorer</html>"]
    assert "reports.rendered" in memo.registered()  # cleared with every other memo when the data cache is rebuilt


def test_a_failed_report_is_not_kept(fresh):
    def refuse():
        raise reports_error

    reports_error = RuntimeError("busy")
    with pytest.raises(RuntimeError):
        reports.rendered("buckets", ("DE", 10), refuse)
    assert reports.rendered("buckets", ("DE", 10), lambda: "<html>DE</html>") == "<html>DE</html>"


def test_at_most_a_few_reports_are_kept(fresh):
    big = "x" * (20 * 2**20)
    for k in range(6):
        reports.rendered("buckets", ("DE", k), lambda: big)
    assert len(_files._RENDERED) <= 4 and _files._RENDERED.nbytes <= 64 * 2**20
