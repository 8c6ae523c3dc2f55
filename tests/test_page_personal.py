"""Callbacks of the personal page, called directly (no browser): parsing, numbers, messages."""
from __future__ import annotations

import json

import pytest
from dash import html
from page_checks import checked_figure

from dashboard import forms
from dashboard.core.errors import InputError
from dashboard.views import personal as V


@pytest.fixture(scope="module")
def personal(dash_page):
    return dash_page("personal")


def _call(P, **kw):
    args = dict(country="DE", district="11000", sex="female", ages=["40–45"], units="metric", h_cm=162, h_ft=None,
                h_in=None, w_kg=72, w_lb=None, h_width=5, w_width=5, aux=[], aux_name=None, aux_percent=None,
                users=None, ks=[10, 100])
    args.update(kw)
    return P.on_profile(*args.values())


def test_headline_matches_the_cli(personal, capsys):
    from dashboard.cli import main

    out = _call(personal)
    assert out[0] is None
    assert main(["cas", "--country", "DE", "--district", "11000", "--sex", "female", "--age", "40-45",
                 "--height", "160-165", "--weight", "70-75", "--json"]) == 0
    cli = json.loads(capsys.readouterr().out)
    # the person's own set (SPEC §1.7): you and about (N − 1)·p others; the CLI's expected_anonymity_set
    assert cli["expected_anonymity_set"] == pytest.approx(1 + cli["others"]) and cli["expected_anonymity_set"] >= 1
    assert out[1] == f"You and about {int(cli['others']):,} others share these attributes"


@pytest.mark.parametrize(
    "change, message",
    [
        (dict(h_cm=20), "Height (cm): 20 is outside"),
        (dict(h_cm=400), "Height (cm): 400 is outside"),
        (dict(h_cm="abc"), "is not a number"),
        (dict(w_kg=float("nan")), "finite number"),
        (dict(district="99999"), "District"),
        (dict(country="XX"), "Country"),
        (dict(ages=["3–6"]), "Age group(s)"),
        (dict(sex="other"), "Sex"),
        (dict(h_width=7), "Height band"),
        (dict(users=-5), "Users of the app"),
        (dict(users=2.5), "whole number"),
        (dict(aux_percent=150), "outside the range 0–100"),
        (dict(aux=["no_such_preset"]), "Auxiliary knowledge"),
        (dict(units="imperial", h_ft=12), "Height (feet)"),
    ],
)
def test_bad_input_gives_a_clear_message(personal, change, message):
    out = _call(personal, **change)
    assert isinstance(out[0], html.Div) and out[0].className == "error"
    assert message in out[0].children
    assert all(o is personal.no_update for o in out[1:])


def test_imperial_units_give_the_same_bands(personal):
    metric = _call(personal)[1]
    imperial = _call(personal, units="imperial", h_cm=None, w_kg=None, h_ft=5, h_in=3.8, w_lb=158.7)[1]
    assert metric == imperial  # 5 ft 3.8 in = 162.1 cm, 158.7 lb = 72.0 kg


def test_empty_form_gives_the_country_total(personal):
    out = _call(personal, district=None, sex=None, ages=[], h_cm=None, w_kg=None)
    assert out[0] is None and "others share these attributes" in out[1]


def test_user_defined_fraction_multiplies_in(personal):
    base = _call(personal, aux_percent=None)[1]
    tenth = _call(personal, aux_name="uses app X", aux_percent=10)[1]
    n = lambda s: int(s.split()[3].replace(",", ""))  # "You and about 1,234 others …"
    assert n(tenth) == pytest.approx(n(base) / 10, abs=1)


def test_likely_unique_warning(personal):
    out = _call(personal, district="03354", ages=["20–25"], h_cm=199, w_kg=54, h_width=1, w_width=1)
    codes = [w.to_plotly_json()["props"].get("data-code") for w in out[3]]
    # body model v2 (the default): a BMI outside 17–30 is no "implausible" combination
    assert "likely_unique" in codes and "implausible_bmi" not in codes
    # the person's own set (SPEC §1.7): you and about X others, never "0 people"
    assert out[1].startswith("You") and "0 people" not in out[1]


def test_layout_accepts_unknown_queries(personal):
    page = personal.layout(country="XX", district="nope", foo="bar")
    text = str(page)
    assert "Unknown country" in text
    page = personal.layout(country="DE", district="nope")
    assert "Unknown district" in str(page)


def test_country_without_boundaries_hides_the_map(personal):
    out = personal.on_country("AU", None)
    assert out[4] == {"display": "none"} and "map" in out[5]
    out = personal.on_country("US", "06037")
    assert out[4] == {} and out[6] == "06037"


def test_forms_module():
    assert forms.height_cm("imperial", feet=6, inches=0) == pytest.approx(182.88)
    assert forms.weight_kg("imperial", lb=100) == pytest.approx(45.359237)
    assert forms.number("", "x") is None
    with pytest.raises(InputError, match="please enter a number"):
        forms.number(" ", "x", required=True)
    with pytest.raises(InputError):
        forms.selection(["a", {"b": 1}], ["a"], "x")
    with pytest.raises(InputError, match="too many"):
        forms.selection(list(range(600)), range(600), "x")


def test_one_sided_bounds():
    with pytest.raises(InputError, match="below 0"):
        forms.number(-1, "x", lo=0)
    with pytest.raises(InputError, match="above 10"):
        forms.number(11, "x", hi=10)


def test_user_defined_fraction_per_age_group(personal):
    """SPEC §1.3: a percentage per age group, e.g. 20 % under 45 and 5 % from 45."""
    n = lambda s: int(s.split()[3].replace(",", ""))  # "You and about 1,234 others …"
    base = n(_call(personal, aux_percent=None)[1])
    young = n(_call(personal, aux_name="uses app X", aux_percent="18-45:20,45+:5")[1])  # the profile is 40–45
    assert young == pytest.approx(base * 0.20, abs=1)
    out = _call(personal, aux_percent="18-45:abc")
    assert out[0].className == "error"


def test_map_is_a_plain_dict_and_the_answer_patches_only_colours_and_hover(personal):
    """The map is built by the shared builder (figures.maps) as a dict with array columns; an answer
    patches z, the colour bar and the hover line, never geometry or names."""
    import numpy as np

    fig = V.map_figure("DE", "11000")
    assert type(fig) is dict
    checked = checked_figure(fig)
    main = fig["data"][0]
    assert main["geojson"] == "/geo/DE.geojson" and main["locations"].dtype.kind == "U"
    assert isinstance(main["z"], np.ndarray) and main["customdata"][list(main["locations"]).index("11000")] == "Berlin"
    assert [t.name for t in checked.data][-1] == "selected district" and list(checked.data[-1].locations) == ["11000"]
    patch = _call(personal)[-2]
    ops = {tuple(op["location"]): op["params"]["value"] for op in patch.to_plotly_json()["operations"]}
    assert set(ops) <= {("data", 0, "z"), ("data", 0, "colorbar"), ("data", 0, "hovertext")}
    berlin = list(main["locations"]).index("11000")
    assert ops[("data", 0, "hovertext")][berlin].endswith("people like you")
    assert len(ops[("data", 0, "z")]) == len(main["locations"])


def test_model_switch_paper_reproduces_the_paper_numbers(personal):
    """The visible switch: v2 by default; 'paper' gives the paper model's CAS and its BMI warning."""
    from dashboard.core.body_model import load_country_model
    from dashboard.core.cas import Profile, compute_cas

    kw = dict(ages=["20–25"], h_cm=190, w_kg=58)
    v2 = _call(personal, **kw)
    paper = personal.on_profile(*dict(country="DE", district="11000", sex="female", ages=["20–25"], units="metric",
                                      h_cm=190, h_ft=None, h_in=None, w_kg=58, w_lb=None, h_width=5, w_width=5,
                                      aux=[], aux_name=None, aux_percent=None, users=None, ks=[10, 100],
                                      model="paper").values())
    profile = Profile.build("DE", "11000", "female", "20-25", 190, 5, 58, 5)
    want_v2 = compute_cas(load_country_model("DE"), profile)
    want_paper = compute_cas(load_country_model("DE", model="paper"), profile)
    assert f"{want_v2.others:.1f}" in v2[1] and f"{want_paper.others:.1f}" in paper[1]
    codes = lambda out: [w.to_plotly_json()["props"].get("data-code") for w in out[3]]
    assert "body_model_v2" in codes(v2) and "implausible_bmi" not in codes(v2)
    assert "body_model_paper" in codes(paper) and "implausible_bmi" in codes(paper)
    bad = personal.on_profile(*dict(country="DE", district="11000", sex="female", ages=["20–25"], units="metric",
                                    h_cm=190, h_ft=None, h_in=None, w_kg=58, w_lb=None, h_width=5, w_width=5,
                                    aux=[], aux_name=None, aux_percent=None, users=None, ks=[10, 100],
                                    model="v3").values())
    assert "Body model" in bad[0].children
