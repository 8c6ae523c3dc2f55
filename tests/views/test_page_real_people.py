"""The Real people view: its numbers are the validation's, in words a reader can follow."""
from __future__ import annotations

from dashboard.core.body import validate_nhanes, validate_prior
from dashboard.views import real_people as V


def test_render_matches_the_validation():
    out = V.render()
    r = validate_nhanes()
    assert [row["people"] for row in out["ras_rows"]] == [x["n"] for x in r["models"]["v2"]["by_ras"] if x["n"]]
    assert len(out["rho_rows"]) == 12 and sum(x["women n"] + x["men n"] for x in out["rho_rows"]) == 4850
    cards = str(out["cards"])
    assert f"{100 * r['models']['v2']['median_abs_divergence']:.0f} %" in cards
    assert f"{100 * r['models']['paper']['left_out_share']:.0f} %" in cards
    words = str(out["explanation"])
    assert "expected set" in words and "4,850" in words and "self-report" in words
    assert [t["name"] for t in out["calibration"]["data"]] == ["perfect calibration", "v2 (default)", "paper model"]
    assert len(out["divergence"]["data"]) == 2


def test_prior_section_matches_the_prior_validation():
    out = V.render()["prior"]
    p = validate_prior()
    ll = p["us"]["heldout_loglik_per_person"]
    assert f"{ll['ncdrisc']:.3f} vs {ll['v2']:.3f} vs {ll['paper']:.3f}" in str(out["cards"])
    assert len(out["de_rows"]) == 24 and out["de_rows"][0]["height, Mikrozensus"] == f"{p['de']['groups'][0]['height_mean_mikrozensus']:.1f}"
    assert out["us_rows"][0]["observed"] == f"{100 * p['us']['cells'][0]['observed']:.2f} %"  # the page's percent, as every other
    assert out["summaries"] == [p["us"]["summary"], p["de"]["summary"]]
    assert out["command"] == "anonset validate prior --json"


def test_layout_accepts_unknown_queries(dash_page):
    P = dash_page("real_people")  # the module Dash loaded (importing dashboard.pages.* would register it twice)
    page = str(P.layout(foo="bar"))
    assert "Real people" in page and "What the numbers mean" in page
    assert "The NCD-RisC prior, checked where a country's own table exists" in page
