"""The bucket advisor view and page without a browser: parsing, links, render, figures, callbacks."""
from __future__ import annotations

import json

import numpy as np
import pytest
from dash import html
from support.page_checks import checked_figure, component_text

from dashboard.core import buckets
from dashboard.core.errors import InputError
from dashboard.figures import buckets as fb
from dashboard.views import buckets as vb


@pytest.fixture(scope="module")
def P(dash_page):
    return dash_page("buckets")


def test_parse_form(cache_root):
    assert vb.parse_form("de", "10", "95", ["yes"]) == vb.Settings("DE", 10.0, 0.95, True)
    assert vb.parse_form("MT", "2.5", "50%", []) == vb.Settings("MT", 2.5, 0.5, False)
    for args, msg in [(("", "10", "95", []), "choose a country"), (("ZZ", "10", "95", []), "unknown country"),
                      (("Germny", "10", "95", []), "closest: DE (Germany)"),
                      (("DE", "0", "95", []), "k must be a positive"), (("DE", "x", "95", []), "not a number"),
                      (("DE", "10", "0", []), "above 0 %"), (("DE", "10", "101", []), "at most 100 %"),
                      (("DE", "10", "nan", []), "not a finite number")]:
        with pytest.raises(InputError) as exc:
            vb.parse_form(*args)
        assert msg in str(exc.value)


def test_links_round_trip_and_repair(cache_root):
    s = vb.Settings("MT", 20.0, 0.8, True)
    query = dict(p.split("=") for p in vb.to_query(s)[1:].split("&"))
    assert vb.from_query(query) == (s, ())
    got, notices = vb.from_query({"country": "XX", "k": "-3", "coverage": "2", "other": "ignored"})
    assert got == vb.DEFAULTS and len(notices) == 3
    assert vb.cli_command(s) == "anonset buckets --country MT --k 20 --coverage 0.8 --per-district"
    # a setting given twice (a hand-edited link, the report's GET): the last one, as on every page
    assert vb.from_query({"country": ["DE", "MT"], "k": ["5", "20"], "coverage": "0.8", "per_district": "1"}) == (s, ())


@pytest.mark.slow  # over 5 s on this machine: in the full suite, not the fast lane
def test_render_matches_the_core(cache_root):
    s = vb.Settings("MT", 10.0, 0.9, True)
    r = vb.render(s)
    a = buckets.advise("MT", 10, 0.9, per_district=True)
    assert r["sentence"] == buckets.recommendation_text(a)
    assert r["cards"][0]["value"] == f"{a.recommended.coverage:.1%}"
    fig = checked_figure(r["front"])
    assert len(fig.data[0].x) == len(a.evaluated) and len(fig.data[1].x) == len(a.front)
    assert fig.data[2].x[0] == pytest.approx(100 * a.recommended.coverage)
    m = checked_figure(r["map"])
    np.testing.assert_allclose(np.asarray(m.data[0].z, dtype=float), 100 * a.district_coverage)
    assert len(r["per_district_rows"]) == 2 and r["query"] == vb.to_query(s)
    text, name = vb.export(s, "json")
    assert json.loads(text)["recommended"]["coverage"] == pytest.approx(a.recommended.coverage)
    assert name == "anonset-buckets-MT-k10-q0.9.json"
    assert vb.export(s, "csv")[0] == buckets.export_csv(a)


@pytest.mark.slow  # over 5 s on this machine: in the full suite, not the fast lane
def test_no_map_and_no_recommendation(cache_root):
    r = vb.render(vb.Settings("LI", 1e9, 0.99, False))
    assert r["map"] is None and "No configuration meets the target" in r["no_map"]
    assert r["sentence"].startswith("No configuration")
    checked_figure(r["front"])


def test_figures_are_plain_and_valid():
    pts = [{"age_group_years": a, "height_cm": h, "weight_kg": "withheld", "area": "district", "bits": b, "coverage": c}
           for a, h, b, c in [("census", 1, 20.0, 0.3), (10, 5, 15.0, 0.9), ("withheld", "withheld", 2.0, 1.0)]]
    fig = checked_figure(fb.front_figure(pts, pts, pts[1], 0.95, 10))
    assert fig.layout.shapes[0].x0 == 95
    assert fb.describe(pts[1], "Kreis", "Land") == "age 10-year · height 5 cm · weight withheld · Kreis"
    m = checked_figure(fb.shortfall_map("/geo/XX.geojson", ["a", "b"], ["A", "B"], [0.5, np.nan], ["a"], 0.9, 10,
                                        view=None))
    assert list(m.data[1].locations) == ["a"] and m.data[0].zmax == 100


@pytest.mark.slow  # over 5 s on this machine: in the full suite, not the fast lane
def test_callbacks(P, cache_root):
    out = P.on_settings("MT", "10", "90", [])
    assert out[0] == "" and out[1] == buckets.recommendation_text(buckets.advise("MT", 10, 0.9))
    assert out[-2] == "?country=MT&k=10&coverage=0.9" and out[-1] is False  # the report button is enabled
    bad = P.on_settings("MT", "0", "90", [])
    assert "k must be a positive" in component_text(bad[0]) and all(x is not None for x in bad[1:])
    assert bad[-1] is True  # no report of the last valid numbers while the form is wrong
    sent = P.on_json(1, "MT", "10", "90", [])
    assert sent["filename"] == "anonset-buckets-MT-k10-q0.9.json" and json.loads(sent["content"])["country"] == "MT"
    assert P.on_csv(1, "MT", "10", "90", [])["content"].startswith("recommended,on_front")
    assert P.on_json(1, "MT", "-1", "90", []) is P.no_update
    # the report: the query store's settings by GET /_reports/buckets (the button's clientside callback, issue 29)
    from dashboard.wsgi import app

    client = app.server.test_client()
    sent = client.get("/_reports/buckets" + out[-2])
    assert sent.status_code == 200 and sent.headers["Content-Disposition"] == (
        'attachment; filename="anonset-report-buckets-MT-k10-q0.9.html"')
    assert sent.get_data(as_text=True).startswith("<!DOCTYPE html>") and buckets.recommendation_text(
        buckets.advise("MT", 10, 0.9)).split(";")[0] in sent.get_data(as_text=True)
    refused = client.get("/_reports/buckets?country=MT&k=0&coverage=0.9")
    assert refused.status_code == 400 and "No report: k must be a positive" in refused.get_data(as_text=True)
    deps = client.get("/_dash-dependencies").get_json()
    report = [d for d in deps if any(i["id"] == vb.ID["button-report"] for i in d["inputs"])]
    assert len(report) == 1 and report[0]["clientside_function"]["function_name"] == "downloadReport"
    assert [(s["id"], s["property"]) for s in report[0]["state"]] == [(vb.ID["query"], "data")]
    page = P.layout(country="MT", k="10", coverage="0.9", unknown="x")
    assert "For app developers: safe bucket sizes" in component_text(page)
    broken = P.layout(country="XX")
    assert "Unknown country" in component_text(broken)
    assert isinstance(page, html.Div)


@pytest.mark.slow  # two full German bucket advices: the full suite runs it
def test_the_body_model_is_a_setting(cache_root):
    """v2 by default, paper selectable: in the form, the link, the CLI command, the notes and the advice itself."""
    s = vb.parse_form("MT", "10", "95", [], "paper")
    assert s.model == "paper" and vb.from_query({"country": "MT", "model": "paper"})[0].model == "paper"
    assert vb.to_query(s).endswith("model=paper") and vb.cli_command(s).endswith("--model paper")
    paper, v2 = vb.render(s), vb.render(s._replace(model="v2"))
    assert paper["notes"][0].startswith("Body model: paper") and v2["notes"][0].startswith("Body model v2")
    assert vb.advice(s).body_model == "paper" and vb.advice(s._replace(model="v2")).body_model == "v2"
    assert vb.from_query({"model": "v9"})[1] and vb.from_query({"model": "v9"})[0].model == "v2"
    with pytest.raises(InputError, match="unknown body model 'v9'"):
        vb.parse_form("MT", "10", "95", [], "v9")


def test_a_report_while_another_renders_is_refused_with_its_command(P, monkeypatch):
    """Issue 29: reports are rationed (their own pool): the route says so (503, the page shows its text) and names
    the ``anonset report`` line."""
    from dashboard.core import memo
    from dashboard.reports import _files
    from dashboard.server import jobs, limits
    from dashboard.wsgi import app

    monkeypatch.setattr(limits, "REPORT_WAIT_S", 0.1)
    monkeypatch.setattr(_files, "_RENDERED", memo.Memo(4, name="test.reports.rendered"))  # none made before
    with app.server.app_context():
        held = [jobs.acquire_slot(limits.REPORT_POOL, limits.heavy_at_once()) for _ in range(limits.heavy_at_once())]
    assert None not in held
    try:
        sent = app.server.test_client().get("/_reports/buckets?country=MT&k=10&coverage=0.9")
    finally:
        for slot in held:
            slot.release()
    text = sent.get_data(as_text=True)
    assert sent.status_code == 503 and sent.headers["Retry-After"] and text.startswith("This report")
    assert "busy" in text and "anonset report buckets --country MT --k 10 --coverage 0.9 --out" in text


def test_the_advices_own_notes_on_borrowed_statistics_and_filled_districts_are_translated():
    """The advice writes these two notes in English (the CLI prints them); the page said them in English, quoted as
    if they were the data's own words: now in the page's language, from the model that wrote them."""
    from types import SimpleNamespace

    from dashboard.core.text import language

    m = SimpleNamespace(name="Atlantis", borrowed_from="DE", prior_country_name="Germany",
                        filled=np.array([True, True, False]), district_label="county", region_label="state")
    borrowed, filled = buckets.borrowed_note(m), buckets.filled_note(m)
    assert borrowed == "Atlantis has no body statistics of its own; those of Germany are used."
    assert filled == "2 counties are filled from their state's remainder (SPEC §1.4)."
    with language("de"):
        assert vb.advice_note(borrowed, m) == "Für Atlantis gibt es keine eigene Körperstatistik; die von Germany wird verwendet."
        assert vb.advice_note(filled, m).startswith("2 ") and "SPEC §1.4" in vb.advice_note(filled, m)
        assert vb.advice_note(filled, m) != filled
    with language("en"):
        assert vb.advice_note(borrowed, m) == borrowed
    assert buckets.borrowed_note(SimpleNamespace(borrowed_from=None)) is None
