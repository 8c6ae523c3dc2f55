"""``GET /_reports/<kind>`` (issue 29): the pages' reports by plain GET, not inside a callback's JSON.

The body is the report the page's callback made before, byte for byte (the same functions, parameters and
English document; the date is frozen so two renderings compare); headers say it is an attachment under the
report's name, cacheable by this browser only, with an ETag; a busy report slot is 503 with Retry-After and
the command, a bad parameter 400 with one line in the page's language.
"""
from __future__ import annotations

import pytest

from dashboard import reports
from dashboard.core import memo
from dashboard.core.regions import Scenario
from dashboard.core.text import language
from dashboard.server import headers, jobs, limits
from dashboard.views import buckets as vb
from dashboard.views import dataset as vd


@pytest.fixture
def fresh(monkeypatch):
    """No report made before, and every report dated the same minute (two renderings are then the same bytes)."""
    from dashboard.reports import _common, _files

    monkeypatch.setattr(_files, "_RENDERED", memo.Memo(4, name="test.reports.rendered"))
    monkeypatch.setattr(_common, "today", lambda: "2026-01-02 03:04 UTC")


def _english(make):
    with language("en"):
        return make()


EXPLORER = [
    ("country=MT", Scenario.from_query({"country": "MT"}), "5", (18.0, 75.0), "5"),
    ("country=MT&sex=female&ages=30-50&height_width=10&k=7&stat=share_below&cdf_grain=census&table_ages=20-60",
     Scenario.from_query({"country": "MT", "sex": "female", "ages": "30-50", "height_width": "10", "k": "7",
                          "stat": "share_below"}), "census", (20.0, 60.0), "5"),
    ("country=LI,MT&body=0&table_grain=census", Scenario.from_query({"country": "LI,MT", "body": "0"}), "5",
     (18.0, 75.0), "census"),
]


@pytest.mark.parametrize("query, s, cdf_grain, table_ages, table_grain", EXPLORER)
def test_the_explorer_report_is_the_callbacks_file(client, fresh, query, s, cdf_grain, table_ages, table_grain):
    r = client.get(f"/_reports/explorer?{query}")
    assert r.status_code == 200, r.get_data(as_text=True)
    expected = _english(lambda: reports.to_html(reports.explorer_report(s, cdf_grain=cdf_grain, table_ages=table_ages,
                                                                        table_grain=table_grain)))
    assert r.get_data(as_text=True) == expected
    name = reports.file_name("explorer", "-".join(s.countries))
    assert r.headers["Content-Disposition"] == f'attachment; filename="{name}"'


@pytest.mark.parametrize("query", ["country=MT&k=10&coverage=0.9", "country=MT&k=5&coverage=0.8&per_district=1"])
def test_the_buckets_report_is_the_callbacks_file(client, fresh, query):
    r = client.get(f"/_reports/buckets?{query}")
    assert r.status_code == 200, r.get_data(as_text=True)
    s = vb.from_query(dict(p.split("=") for p in query.split("&")))[0]
    assert r.get_data(as_text=True) == _english(lambda: reports.to_html(reports.buckets_report(s, vb.advice(s))))
    assert r.headers["Content-Disposition"] == (
        f'attachment; filename="{reports.file_name("buckets", f"{s.country}-k{s.k:g}-q{s.q:g}")}"')


@pytest.mark.parametrize("query, form", [
    ("source=nhanes&columns=sex&columns=age&columns=race", ("nhanes", ["sex", "age", "race"], [], [])),
    ("source=adult&columns=age&columns=sex&columns=education&bin.age=5&trials=1&k=3&target=0.1",
     ("adult", ["age", "sex", "education"], ["5"], [{"column": "age"}])),
])
def test_the_dataset_report_is_the_callbacks_file(client, fresh, query, form):
    r = client.get(f"/_reports/dataset?{query}")
    assert r.status_code == 200, r.get_data(as_text=True)
    k, target = ("3", "0.1") if "k=3" in query else (None, None)
    req = vd.parse_request(*form, "drop", None, None, "1" if "trials=1" in query else None, None, k, target)
    table = vd.table_for(req.source, None, None)
    expected = _english(lambda: reports.to_html(reports.dataset_report(vd.analyse(req, table), req, None,
                                                                       vd.coarsening(req, table))))
    assert r.get_data(as_text=True) == expected
    assert r.headers["Content-Disposition"] == f'attachment; filename="anonset-report-dataset-{req.source}.html"'


def test_headers_etag_and_a_second_click(client):
    r = client.get("/_reports/explorer?country=MT")
    assert r.status_code == 200 and r.headers["Content-Type"] == "text/html; charset=utf-8"
    assert r.headers["Cache-Control"].startswith("private, max-age=") and r.headers["ETag"].startswith('"')
    for name, value in headers.SECURITY_HEADERS.items():
        assert r.headers[name] == value
    assert "default-src 'self'" in r.headers["Content-Security-Policy"]
    again = client.get("/_reports/explorer?country=MT", headers={"If-None-Match": r.headers["ETag"]})
    assert again.status_code == 304 and again.data == b"" and again.headers["ETag"] == r.headers["ETag"]
    listed = client.get("/_reports/explorer?country=MT", headers={"If-None-Match": f'"x", W/{r.headers["ETag"]}'})
    assert listed.status_code == 304
    other = client.get("/_reports/explorer?country=MT&k=7", headers={"If-None-Match": r.headers["ETag"]})
    assert other.status_code == 200 and other.headers["ETag"] != r.headers["ETag"]
    # the page's language is no parameter of the (English) document: the same file, the same tag
    de = client.get("/_reports/explorer?country=MT&lang=de")
    assert de.headers["ETag"] == r.headers["ETag"] and de.data == r.data


def test_a_busy_report_slot_is_503_with_retry_after_and_the_command(client, fresh, monkeypatch):
    from dashboard.wsgi import app

    monkeypatch.setattr(limits, "REPORT_WAIT_S", 0.1)
    with app.server.app_context():
        held = [jobs.acquire_slot(limits.REPORT_POOL, limits.heavy_at_once()) for _ in range(limits.heavy_at_once())]
    assert None not in held
    try:
        r = client.get("/_reports/buckets?country=MT&k=10&coverage=0.9")
        de = client.get("/_reports/buckets?country=MT&k=10&coverage=0.9&lang=de")
    finally:
        for slot in held:
            slot.release()
    assert r.status_code == 503 and r.headers["Retry-After"].isdigit() and r.mimetype == "text/plain"
    text = r.get_data(as_text=True)
    assert text.startswith("This report") and "busy" in text and "\n" not in text
    assert "anonset report buckets --country MT --k 10 --coverage 0.9 --out" in text
    assert de.status_code == 503 and "Dieser Bericht" in de.get_data(as_text=True)
    assert "anonset report buckets --country MT" in de.get_data(as_text=True)
    assert r.headers["Cache-Control"] == "no-store" and r.headers["X-Content-Type-Options"] == "nosniff"


@pytest.mark.parametrize("url, message", [
    ("/_reports/explorer?country=MT&k=0", "k must be a positive number"),
    ("/_reports/explorer?country=", "choose at least one country"),
    ("/_reports/explorer?country=XX", "XX"),
    ("/_reports/explorer?country=MT&table_ages=abc", "is not a range"),
    ("/_reports/explorer?country=MT&table_ages=", "age range is empty"),
    ("/_reports/explorer?country=MT&cdf_grain=7", "unknown age grain '7'"),
    ("/_reports/explorer?country=DE,US,FR,IT,ES,PT,NL,BE,AT,CH,DK,SE,NO,FI,IE,PL", "at most"),
    ("/_reports/buckets?country=MT&k=-1", "k must be a positive"),
    ("/_reports/buckets?country=MT&coverage=2", "coverage"),
    ("/_reports/buckets?country=QQ", "Unknown country 'QQ'"),
    ("/_reports/buckets?country=MT&model=v9", "unknown body model 'v9'"),
    ("/_reports/dataset?source=upload&columns=age", "an uploaded file's report is made in its page"),
    ("/_reports/dataset?columns=age", "shipped data set"),
    ("/_reports/dataset?source=nhanes", "Choose at least one quasi-identifier column"),
    ("/_reports/dataset?source=nhanes&columns=age&bin.age=-3", "age"),
    ("/_reports/dataset?source=nhanes&columns=age&population=many", "Population N"),
])
def test_bad_parameters_are_400_with_one_line(client, url, message):
    r = client.get(url)
    text = r.get_data(as_text=True)
    assert r.status_code == 400 and r.mimetype == "text/plain", text
    assert text.startswith("No report: ") and message in text and "\n" not in text and "Traceback" not in text
    assert r.headers["Cache-Control"] == "no-store"


def test_the_message_speaks_the_pages_language(client):
    de = client.get("/_reports/buckets?country=MT&k=0&lang=de").get_data(as_text=True)
    assert de.startswith("Kein Bericht: ") and "k muss" in de
    fr = client.get("/_reports/explorer?country=MT&cdf_grain=7&lang=fr").get_data(as_text=True)
    assert fr.startswith("Pas de rapport") and "'7'" in fr
    # numbers typed in German on the data-set page: 0,2 is a fraction, as the form reads it
    ok = client.get("/_reports/dataset?source=nhanes&columns=sex&columns=age&fraction=0,2&trials=1&lang=de")
    assert ok.status_code == 200 and "--fraction 0.2" in ok.get_data(as_text=True)
    assert client.get("/_reports/dataset?source=nhanes&columns=sex&fraction=0,2&trials=1").status_code == 400


def test_an_unknown_kind_is_404(client):
    assert client.get("/_reports/personal?country=MT").status_code == 404
