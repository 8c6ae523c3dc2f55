"""The Real people view: its numbers are the validation's, in words a reader can follow."""
from __future__ import annotations

from dashboard.core.body import validate_nhanes
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


def test_layout_accepts_unknown_queries(dash_page):
    P = dash_page("real_people")  # the module Dash loaded (importing dashboard.pages.* would register it twice)
    page = str(P.layout(foo="bar"))
    assert "Real people" in page and "What the numbers mean" in page
