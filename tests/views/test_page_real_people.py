"""The Real people view: its numbers are the validation's, in words a reader can follow."""
from __future__ import annotations

import json

from plotly.utils import PlotlyJSONEncoder

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


def test_the_real_people_page_in_french(dash_page):
    """Issue 31: the page's words, cards, tables' headings, the prior check's sentences, the charts' names and hovers
    in French, numbers the French way; the memoised report holds numbers only, so English follows French unchanged."""
    from dashboard.core import text

    P = dash_page("real_people")
    with text.language("fr"):
        page = json.dumps(P.layout(), cls=PlotlyJSONEncoder, ensure_ascii=False)
        out = V.render()
        words = set(text.translations("fr")._catalog.values())
    assert "Des personnes réelles : le modèle concorde-t-il ?" in page and "Ce que disent les chiffres" in page
    assert "4\u202f850 adultes" in page and "Reproduire ce résultat" in page
    assert "anonset validate nhanes --json" in page  # the command stays English
    assert "Erreur typique, ensembles réels de 10 ou plus" in str(out["cards"])
    assert list(out["ras_rows"][0])[:2] == ["ensemble réel", "personnes"]
    assert list(out["prior"]["de_rows"][0])[:3] == ["sexe", "âge", "taille, Mikrozensus"]
    assert out["prior"]["de_rows"][0]["taille, Mikrozensus"].count(",") == 1  # "166,2"
    us, de = out["prior"]["summaries"]
    assert us.startswith("États-Unis : le prior NCD-RisC obtient −4,") and de.startswith("DE : face au Mikrozensus")
    assert [t["name"] for t in out["calibration"]["data"]] == ["calibration parfaite", "v2 (par défaut)", "modèle paper"]
    assert out["calibration"]["layout"]["separators"] == ",\u202f"
    assert "ensemble réel %{x}" in out["divergence"]["data"][0]["hovertemplate"]
    english = [t for t in text.translations("fr")._catalog if isinstance(t, str) and len(t) > 3 and t not in words
               and f'"children": "{t}"' in page]
    assert english == [], english
    p = validate_prior()
    assert out["prior"]["summaries"] != [p["us"]["summary"], p["de"]["summary"]]  # the --json summaries stay English
    assert V.render()["prior"]["summaries"] == [p["us"]["summary"], p["de"]["summary"]]
