"""The personal CAS: funnel, auxiliary fractions, what-ifs, advice, bad input."""
from __future__ import annotations

import itertools
import math

import pandas as pd
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from scipy.stats import norm
from support.synthetic import US_GROUPS, make_population, make_priors

from census_loaders.schema import FractionTable
from dashboard.core import body, parsing
from dashboard.core import text as formatting
from dashboard.core.body import BAND_WIDTHS, widen_band
from dashboard.core.country import CountryModel, load_country_model
from dashboard.core.errors import InputError
from dashboard.core.groups import DEFAULT_STUDY
from dashboard.core.personal import Profile, advise, cas_by_cell, compute_cas, profile_report, what_ifs

NAN = math.nan

WEARABLES = FractionTable(
    "de_wearables", "Wears a smartwatch",
    pd.DataFrame({"age_from": [10.0, 25, 45, 65], "age_to": [25.0, 45, 65, NAN], "fraction": [0.297, 0.27, 0.171, 0.072]}),
    country="DE", note="assumed equal across sexes and districts",
)
FLO = FractionTable(
    "us_flo", "Uses the period app", pd.DataFrame({"sex": ["female", "male"], "fraction": [0.295805, 0.0]}),
    country="US", note="an upper bound",
)
UNIFORM = FractionTable("half", "Half of everyone", pd.DataFrame({"fraction": [0.5]}))


def model_for(code="DE", groups=None, priors=None, study=DEFAULT_STUDY, **kw):
    """A synthetic model; the paper body model unless ``model=`` says otherwise (these tests check its numbers)."""
    kw.setdefault("model", "paper")
    groups = groups or [(0, 3), (3, 6), (6, 10), (10, 15), (15, 18), (18, 20)] + [(a, a + 5) for a in range(20, 65, 5)] + [(65, 75), (75, None)]
    return CountryModel.from_frames(
        code, make_population(groups), priors if priors is not None else make_priors(), name="Testland", study=study,
        aux_tables={"de_wearables": WEARABLES, "us_flo": FLO, "half": UNIFORM}, **kw,
    )


MODEL = model_for()
POP = make_population(
    [(0, 3), (3, 6), (6, 10), (10, 15), (15, 18), (18, 20)] + [(a, a + 5) for a in range(20, 65, 5)] + [(65, 75), (75, None)]
)
PRIORS = make_priors()


def n_of(district, sex, lo):
    q = POP[(POP["district_id"] == district) & (POP["sex"] == sex) & (POP["age_from"] == lo)]
    return float(q["count"].iloc[0])


def pr(prior_rows, lo, hi, kind):
    out = 0.0
    for w, r in prior_rows:
        mu, sd = (r.height_mean, r.height_sd) if kind == "height" else (r.weight_mean, r.weight_sd)
        out += w * (norm.cdf(hi, mu, sd) - norm.cdf(lo, mu, sd))
    return out


# ----------------------------------------------------------------------------- the funnel


def test_funnel_by_hand():
    p = Profile.build("DE", district="01002", sex="male", age=40, height=183, weight="85-90")
    res = compute_cas(MODEL, p)
    steps = [line.step for line in res.funnel]
    assert steps == ["country", "district", "sex", "age", "height", "weight"]
    n = n_of("01002", "male", 40)
    r = PRIORS[(PRIORS["sex"] == "male") & (PRIORS["age_from"] == 40)].iloc[0]
    ph = norm.cdf(185, r.height_mean, r.height_sd) - norm.cdf(180, r.height_mean, r.height_sd)
    pw = norm.cdf(90, r.weight_mean, r.weight_sd) - norm.cdf(85, r.weight_mean, r.weight_sd)
    counts = [line.count for line in res.funnel]
    study = POP[(POP["age_from"] >= 18) & (POP["age_from"] < 75)]
    assert counts[0] == pytest.approx(study["count"].sum())
    assert counts[1] == pytest.approx(study[study["district_id"] == "01002"]["count"].sum())
    assert counts[2] == pytest.approx(study[(study["district_id"] == "01002") & (study["sex"] == "male")]["count"].sum())
    assert counts[3] == pytest.approx(n)
    assert counts[4] == pytest.approx(n * ph, rel=1e-12)
    assert counts[5] == pytest.approx(n * ph * pw, rel=1e-12)
    assert res.cas == counts[5] and res.population == counts[0]
    assert [line.value for line in res.funnel] == ["Testland", "Beta (01002)", "male", "40–45", "180–185 cm", "85–90 kg"]
    assert res.plausible and res.bmi == pytest.approx(87.5 / 1.825**2)
    d = res.to_dict()
    assert d["funnel"][3] == {"step": "age", "value": "40–45", "count": n}
    assert d["cas_display"] == formatting.format_count(res.cas)


def test_65_75_mixture_by_hand():
    p = Profile.build("DE", district="01001", sex="female", age="65-75", height="160-165", weight="70-75")
    res = compute_cas(MODEL, p)
    f = PRIORS[PRIORS["sex"] == "female"].set_index("age_from")
    want = 0.0
    for lo in (65.0, 70.0):
        want += 0.5 * pr([(1, f.loc[lo])], 160, 165, "height") * pr([(1, f.loc[lo])], 70, 75, "weight")
    assert res.cas == pytest.approx(n_of("01001", "female", 65) * want, rel=1e-12)


def test_several_age_groups_add_and_band_spanning_groups():
    one = compute_cas(MODEL, Profile("DE", "01001", "female", ages=("55-60",)))
    two = compute_cas(MODEL, Profile("DE", "01001", "female", ages=("55-60", "60-65")))
    span = compute_cas(MODEL, Profile("DE", "01001", "female", ages=("55-65",)))
    years = compute_cas(MODEL, Profile("DE", "01001", "female", ages=(57, 61)))
    assert two.cas == pytest.approx(n_of("01001", "female", 55) + n_of("01001", "female", 60))
    assert span.cas == pytest.approx(two.cas) and years.cas == pytest.approx(two.cas)
    assert one.funnel[3].value == "55–60" and two.funnel[3].value == "55–65"


def test_withheld_attributes_leave_lines_unchanged():
    res = compute_cas(MODEL, Profile("DE", height=(170.0, 175.0)))
    counts = [line.count for line in res.funnel]
    assert counts[0] == counts[1] == counts[2] == counts[3]
    assert res.funnel[1].value == "any district" and res.funnel[3].value == "any age (18–75)"
    assert counts[5] == counts[4] < counts[3] and res.funnel[5].value == "any"


def test_region_area():
    p = Profile.build("DE", district="01001", sex="female", age=30, area="region")
    res = compute_cas(MODEL, p)
    want = n_of("01001", "female", 30) + n_of("01002", "female", 30)
    assert res.cas == pytest.approx(want)
    assert res.funnel[1].value.startswith("North (region, 2 districts)")


def test_trimmed_us_group():
    model = model_for("US", groups=US_GROUPS)
    res = compute_cas(model, Profile.build("US", district="01001", sex="male", age=19))
    pop = make_population(US_GROUPS)
    raw = pop[(pop["district_id"] == "01001") & (pop["sex"] == "male") & (pop["age_from"] == 15)]["count"].iloc[0]
    assert res.cas == pytest.approx(raw * 2 / 5)
    assert res.funnel[3].value == "18–20 (of 15–20)"
    assert any(w.code == "trimmed_age_group" for w in res.warnings)
    # the census band and the trimmed band both name the group
    assert compute_cas(model, Profile("US", "01001", "male", ages=("15-20",))).cas == pytest.approx(res.cas)
    # what-if keys (group labels) can be fed back as ages
    ages = what_ifs(model, res.profile).age
    for key, value in zip(ages.keys, ages.cas):
        assert compute_cas(model, res.profile.replace(ages=(key,))).cas == pytest.approx(value)


# ----------------------------------------------------------------------------- warnings


def codes(res):
    return {w.code for w in res.warnings}


def test_warnings():
    implausible = compute_cas(MODEL, Profile.build("DE", "01001", "female", 30, height="150-155", weight="110-115"))
    assert "implausible_bmi" in codes(implausible) and implausible.plausible is False and implausible.cas > 0
    filled = compute_cas(MODEL, Profile.build("DE", "02001", "female", 30))
    assert "filled_district" in codes(filled)
    assert "filled_district" not in codes(compute_cas(MODEL, Profile.build("DE", "01001", "female", 30)))
    tiny = compute_cas(MODEL, Profile.build("DE", "01001", "female", 30, height=199, weight=41, height_width=1, weight_width=1))
    assert tiny.cas < 1 and "likely_unique" in codes(tiny)
    assert any("likely unique" in w.message for w in tiny.warnings)


def test_borrowed_body_statistics_named():
    priors = make_priors()
    priors.attrs.update(prior_country="DE", borrowed_from="DE")
    model = model_for("AT", priors=priors, prior_country_name="Germany")
    res = compute_cas(model, Profile.build("AT", "01001", "male", 30, height=180))
    msg = [w.message for w in res.warnings if w.code == "borrowed_body_statistics"]
    assert msg and "Germany (DE)" in msg[0]
    # no body measurement given: nothing borrowed is used
    assert "borrowed_body_statistics" not in codes(compute_cas(model, Profile.build("AT", "01001", "male", 30)))


def test_nearest_body_group_flagged():
    res = compute_cas(MODEL, Profile.build("DE", "01001", "male", 77, height=175, study=(18, 80)))
    assert "nearest_body_group" in codes(res)
    assert res.funnel[3].value == "75–80 (of 75+)"


# ----------------------------------------------------------------------------- auxiliary knowledge


def test_aux_by_age_overlap_and_composition():
    base = Profile.build("DE", "01001", "female", "65-75", height=165, weight=70)
    plain = compute_cas(MODEL, base).cas
    wear = compute_cas(MODEL, base.replace(aux=("de_wearables",)))
    assert wear.cas == pytest.approx(plain * 0.072, rel=1e-12)
    assert wear.funnel[-1].step == "auxiliary" and wear.funnel[-1].value == "Wears a smartwatch"
    both = compute_cas(MODEL, base.replace(aux=("de_wearables", "half")))
    assert both.cas == pytest.approx(plain * 0.072 * 0.5, rel=1e-12)
    assert [line.step for line in both.funnel][-2:] == ["auxiliary", "auxiliary"]
    # a table with bands that do not match the census groups: year-weighted
    odd = FractionTable("odd", "Odd bands", pd.DataFrame({"age_from": [60.0, 70.0], "age_to": [70.0, 80.0], "fraction": [0.2, 0.1]}))
    assert compute_cas(MODEL, base.replace(aux=(odd,))).cas == pytest.approx(plain * 0.15, rel=1e-12)
    young = Profile.build("DE", "01001", "female", 19)
    assert compute_cas(MODEL, young.replace(aux=("de_wearables",))).cas == pytest.approx(
        compute_cas(MODEL, young).cas * 0.297)


def test_aux_by_sex_district_and_user_tables():
    from census_loaders.auxiliary import parse_fraction_csv, user_fraction

    us = model_for("US", groups=US_GROUPS)
    woman = Profile.build("US", "01001", "female", 30, aux=["us_flo"])
    man = woman.replace(sex="male")
    assert compute_cas(us, woman).cas == pytest.approx(compute_cas(us, woman.replace(aux=())).cas * 0.295805)
    assert compute_cas(us, man).cas == 0.0
    with pytest.raises(InputError, match="is for US"):
        compute_cas(MODEL, Profile.build("DE", "01001", "female", 30, aux=["us_flo"]))
    by_district = FractionTable("app", "App users", pd.DataFrame({"district_id": ["01001", "01002", "02001", "02002"], "fraction": [0.1, 0.2, 0.3, 0.4]}))
    p = Profile.build("DE", "01002", "female", 30)
    assert compute_cas(MODEL, p.replace(aux=(by_district,))).cas == pytest.approx(compute_cas(MODEL, p).cas * 0.2)
    # withholding the district: each district keeps its own fraction
    whole = compute_cas(MODEL, p.replace(district=None, aux=(by_district,))).cas
    want = sum(n_of(d, "female", 30) * f for d, f in zip(["01001", "01002", "02001", "02002"], [0.1, 0.2, 0.3, 0.4]))
    assert whole == pytest.approx(want)
    typed = user_fraction("Runs marathons", percent=20)
    assert compute_cas(MODEL, p.replace(aux=(typed,))).cas == pytest.approx(compute_cas(MODEL, p).cas * 0.2)
    csv = parse_fraction_csv("sex,age,percent\nfemale,18-45,40\nfemale,45+,10\nmale,18+,5\n", "Cycling club")
    assert compute_cas(MODEL, p.replace(aux=(csv,))).cas == pytest.approx(compute_cas(MODEL, p).cas * 0.4)


def test_aux_gaps_and_errors():
    only_women = FractionTable("w", "Women only", pd.DataFrame({"sex": ["female"], "fraction": [0.3]}))
    res = compute_cas(MODEL, Profile.build("DE", "01001", "male", 30, aux=[only_women]))
    assert res.cas == 0 and any("no fraction for male" in w.message for w in res.warnings if w.code == "auxiliary_gap")
    overlap = FractionTable("o", "Overlap", pd.DataFrame({"age_from": [18.0, 30.0], "age_to": [40.0, 50.0], "fraction": [0.1, 0.2]}))
    with pytest.raises(InputError, match="rows overlap"):
        compute_cas(MODEL, Profile.build("DE", "01001", "male", 30, aux=[overlap]))
    bad = FractionTable("b", "Bad", pd.DataFrame({"fraction": [1.5]}))
    with pytest.raises(InputError, match=r"\[0, 1\]"):
        compute_cas(MODEL, Profile.build("DE", "01001", "male", 30, aux=[bad]))
    with pytest.raises(InputError, match="unknown auxiliary knowledge 'nope'"):
        compute_cas(MODEL, Profile.build("DE", "01001", "male", 30, aux=["nope"]))


def test_profile_with_user_table_is_hashable():
    a = Profile.build("DE", "01001", "male", 30, aux=[UNIFORM])
    b = Profile.build("DE", "01001", "male", 30, aux=[FractionTable("half", "Half of everyone", pd.DataFrame({"fraction": [0.5]}))])
    assert a == b and hash(a) == hash(b)
    assert a.aux_ids == ("half",)


# ----------------------------------------------------------------------------- properties

ALL_AGES = [g.label for g in MODEL.age_groups]
profiles = st.builds(
    lambda d, s, ages, h, hw, w, ww, aux, area: Profile.build(
        "DE", d, s, tuple(ages), height=h, height_width=hw, weight=w, weight_width=ww, aux=aux, area=area
    ),
    d=st.sampled_from([None, "01001", "01002", "02001", "02002"]),
    s=st.sampled_from([None, "female", "male"]),
    ages=st.lists(st.integers(18, 74), max_size=3),
    h=st.one_of(st.none(), st.integers(140, 205)),
    hw=st.sampled_from(BAND_WIDTHS),
    w=st.one_of(st.none(), st.integers(40, 140)),
    ww=st.sampled_from(BAND_WIDTHS),
    aux=st.lists(st.sampled_from(["de_wearables", "half"]), max_size=2, unique=True),
    area=st.sampled_from(["district", "region"]),
)


@settings(max_examples=150, deadline=None)
@given(p=profiles)
def test_funnel_never_increases(p):
    counts = [line.count for line in compute_cas(MODEL, p).funnel]
    for prev, cur in itertools.pairwise(counts):
        assert cur <= prev


@settings(max_examples=100, deadline=None)
@given(p=profiles, kind=st.sampled_from(["height", "weight"]), width=st.sampled_from(BAND_WIDTHS))
def test_widening_never_lowers_cas(p, kind, width):
    band = getattr(p, kind)
    if band is None or width <= band[1] - band[0]:
        return
    wider = p.replace(**{kind: widen_band(band, width)})
    assert compute_cas(MODEL, wider).cas >= compute_cas(MODEL, p).cas
    assert compute_cas(MODEL, p.replace(**{kind: None})).cas >= compute_cas(MODEL, wider).cas


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(p=profiles, hw=st.sampled_from(BAND_WIDTHS), ww=st.sampled_from(BAND_WIDTHS))
def test_all_cells_give_back_the_census_count(p, hw, ww):
    """With the plausibility filter off, the CAS over every height × weight band sums to the count."""
    grid = cas_by_cell(MODEL, p, hw, ww, bmi_range=None)
    assert grid.plausible.all()
    age_line = compute_cas(MODEL, p.replace(height=None, weight=None, aux=())).funnel[3].count
    with_aux = compute_cas(MODEL, p.replace(height=None, weight=None)).cas
    assert grid.cas.sum() == pytest.approx(with_aux, rel=1e-9)
    if not p.aux:
        assert grid.cas.sum() == pytest.approx(age_line, rel=1e-9)


@settings(max_examples=60, deadline=None)
@given(p=profiles)
def test_cell_grid_matches_point_computation(p):
    if p.height is None or p.weight is None:
        return
    grid = cas_by_cell(MODEL, p)
    i, j = grid.joint.height.index(p.height[0]), grid.joint.weight.index(p.weight[0])
    assert grid.cas[i, j] == pytest.approx(compute_cas(MODEL, p).cas, rel=1e-9, abs=1e-300)


# ----------------------------------------------------------------------------- what-ifs


def test_what_ifs_agree_with_compute_cas():
    p = Profile.build("DE", "01002", "female", "65-75", height=162, weight=72, aux=["de_wearables"])
    cas = compute_cas(MODEL, p).cas
    wi = what_ifs(MODEL, p)
    assert wi.cas == pytest.approx(cas)
    assert list(wi.district.cas) == sorted(wi.district.cas, reverse=True)
    for key, value in zip(wi.district.keys, wi.district.cas):
        assert value == pytest.approx(compute_cas(MODEL, p.replace(district=key)).cas)
    assert wi.district.cas[wi.district.chosen][0] == pytest.approx(cas)
    for key, value in zip(wi.sex.keys, wi.sex.cas):
        assert value == pytest.approx(compute_cas(MODEL, p.replace(sex=key)).cas)
    for g, value in zip(MODEL.age_groups, wi.age.cas):
        assert value == pytest.approx(compute_cas(MODEL, p.replace(ages=((g.lo, g.hi),))).cas)
    assert wi.age.chosen.sum() == 1 and wi.age.cas[wi.age.chosen][0] == pytest.approx(cas)
    for kind, what in (("height", wi.height), ("weight", wi.weight)):
        assert what.chosen.sum() == 1 and what.cas[what.chosen][0] == pytest.approx(cas)
        width = getattr(p, kind)[1] - getattr(p, kind)[0]
        for start, value in list(zip(what.keys, what.cas))[::3]:
            assert value == pytest.approx(compute_cas(MODEL, p.replace(**{kind: (start, start + width)})).cas)
        assert what.plausible is not None and what.plausible[what.chosen][0]
        assert not what.plausible.all()
    assert wi.weight.keys.min() >= body.WEIGHT_LIMITS[0]
    for change in wi.widen + wi.withhold:
        assert change.cas >= cas
        assert change.cas == pytest.approx(compute_cas(MODEL, change.profile).cas)
    attrs = {(c.attribute, c.action) for c in wi.withhold}
    assert attrs == {("district", "region"), ("district", "country"), ("sex", "withhold"), ("age", "withhold"),
                     ("height", "withhold"), ("weight", "withhold"), ("de_wearables", "withhold")}
    assert {c.profile.height_width for c in wi.widen if c.attribute == "height"} == {10, 20}
    d = wi.to_dict(max_districts=2)
    assert len(d["district"]) == 2 and d["height"][0]["label"]


# ----------------------------------------------------------------------------- advice


def test_advice_reaches_k_with_minimal_changes():
    p = Profile.build("DE", "02001", "female", "65-75", height=162, weight=72, aux=["de_wearables"])
    cas = compute_cas(MODEL, p).cas
    assert cas < 10
    for adv in advise(MODEL, p, ks=(10, 100)):
        assert not adv.met and adv.options
        bits = [o.bits for o in adv.options]
        assert bits == sorted(bits)
        for o in adv.options:
            assert o.cas >= adv.k
            assert o.cas == pytest.approx(compute_cas(MODEL, o.profile).cas)
            assert o.bits == pytest.approx(math.log2(o.cas / cas))
            assert o.changes
    met = advise(MODEL, Profile.build("DE", "01001", "female", 30), ks=(10,))[0]
    assert met.met and met.options == ()


def test_advice_options_are_minimal():
    p = Profile.build("DE", "02001", "female", "65-75", height=162, weight=72)
    (adv,) = advise(MODEL, p, ks=(50,), limit=0)
    fields = ("district", "area", "sex", "ages", "height", "weight")
    for o in adv.options:
        for f in fields:
            if getattr(o.profile, f) != getattr(p, f):
                undone = o.profile.replace(**{f: getattr(p, f)})
                if f == "district":
                    undone = undone.replace(area=p.area)
                assert compute_cas(MODEL, undone).cas < 50 or undone == o.profile


def test_advice_bad_k():
    with pytest.raises(InputError, match="positive"):
        advise(MODEL, Profile.build("DE", "01001", "female", 30), ks=(0,))


def test_profile_report():
    p = Profile.build("DE", "02001", "female", "65-75", height=162, weight=72)
    rep = profile_report(MODEL, p, users=5000)
    assert rep.reidentification.cas == rep.result.cas
    assert rep.reidentification.population == rep.result.population
    assert set(rep.reidentification.k_indistinguishable) == {2, 5, 10}
    assert [a.k for a in rep.advice] == [10, 100]
    d = rep.to_dict()
    assert {"funnel", "cas", "reidentification", "advice", "what_ifs", "warnings"} <= set(d)


# ----------------------------------------------------------------------------- display and input


@pytest.mark.parametrize("x,text", [(573.9, "573"), (1234.5, "1,234"), (0.4, "0"), (1e7, "10,000,000"), (NAN, "–")])
def test_format_count(x, text):
    assert formatting.format_count(x) == text


def test_parse_band_and_profile_build():
    assert parsing.parse_band(172, 5) == (170, 175)
    assert parsing.parse_band("172", 2, "height") == (172, 174)
    assert parsing.parse_band("160-165") == (160, 165)
    assert parsing.parse_band("160–170") == (160, 170)
    assert parsing.parse_band(None) is None
    p = Profile.build("DE", "01001", "f", age="65–75", height=172, weight=70.5, weight_width=1)
    assert (p.sex, p.ages, p.height, p.weight) == ("female", ((65.0, 75.0),), (170, 175), (70, 71))
    assert parsing.parse_age("75+") == (75.0, math.inf) and parsing.parse_age("40") == 40.0


@pytest.mark.parametrize(
    "kwargs,msg",
    [
        ({"height": 20}, "Height 20 cm is not a plausible adult height; give 100–250 cm"),
        ({"height": 60}, "Height 60 cm is not a plausible adult height; give 100–250 cm"),
        ({"height": (95, 100)}, "Height 95–100 cm is not a plausible adult height"),
        ({"height": 400}, "Height 400 cm is not a plausible adult height"),
        ({"weight": 351}, "weight 351 kg is outside the range 20–350 kg"),
        ({"height": "tall"}, "is not a number"),
        ({"weight": "abc"}, "is not a number"),
        ({"height": "163-168"}, "not aligned to multiples of 5 cm"),
        ({"height": "160-163"}, "has width 3"),
        ({"height": 170, "height_width": 3}, "width 3 is not one of"),
        ({"height": "160-165", "height_width": 10}, "does not have width"),
        ({"sex": "robot"}, "unknown sex"),
        ({"age": "old"}, "neither an age"),
        ({"study": (75, 18)}, "not a valid"),
        ({"area": "planet"}, "area must be"),
    ],
)
def test_bad_profile_input(kwargs, msg):
    args = {"country": "DE", "district": "01001", "sex": "female", "age": 30, **kwargs}
    with pytest.raises(InputError, match=msg):
        Profile.build(**args)


@pytest.mark.parametrize(
    "profile,msg",
    [
        (lambda: Profile.build("DE", "99999", "female", 30), "unknown district '99999'"),
        (lambda: Profile.build("DE", "01001", "female", 80), "outside the study population 18–75"),
        (lambda: Profile.build("DE", "01001", "female", 17), "outside the study population"),
        (lambda: Profile.build("DE", "01001", "female", "75+"), "outside the study population"),
        (lambda: Profile.build("DE", "01001", "female", "63-68"), "does not match the census age groups"),
        (lambda: Profile.build("FR", "01001", "female", 30), "the profile is for FR"),
    ],
)
def test_bad_profile_against_model(profile, msg):
    with pytest.raises(InputError, match=msg):
        compute_cas(MODEL, profile())


# ----------------------------------------------------------------------------- real data


def test_real_germany_berlin(cache_root):
    from census_loaders import cache

    model = load_country_model("DE", root=cache_root)
    p = Profile.build("DE", "11000", "female", "65-75", height="160-165", weight="70-75")
    res = compute_cas(model, p)
    counts = [line.count for line in res.funnel]
    assert counts == sorted(counts, reverse=True)
    assert 2e6 < counts[1] < 4e6  # Berlin's adults 18–75
    assert 10 < res.cas < counts[3]
    assert res.funnel[1].value.startswith("Berlin")
    wi = what_ifs(model, p)
    assert len(wi.district.cas) == 400
    adv = advise(model, p.replace(height=(160.0, 161.0), weight=(70.0, 71.0)), ks=(10, 100))
    assert all(o.cas >= a.k for a in adv for o in a.options)
    ids = [t["id"] for t in cache.auxiliary_tables("DE", cache_root)]
    if "de_wearables" in ids:
        with_aux = compute_cas(model, p.replace(aux=("de_wearables",)))
        assert with_aux.cas == pytest.approx(res.cas * 0.08 * 0.9, rel=1e-6)


def test_real_us_trimmed_and_flo(cache_root):
    from census_loaders import cache

    if "US" not in cache.countries(cache_root):
        pytest.skip("no US data set in the cache")
    model = load_country_model("US", root=cache_root)
    county = model.district_ids[0]
    res = compute_cas(model, Profile.build("US", county, "female", 19, height=163, weight=70))
    assert res.cas > 0
    ids = [t["id"] for t in cache.auxiliary_tables("US", cache_root)]
    if "us_flo" in ids:
        flo = compute_cas(model, Profile.build("US", county, "female", 30, aux=["us_flo"]))
        plain = compute_cas(model, Profile.build("US", county, "female", 30))
        assert flo.cas == pytest.approx(plain.cas * 0.295805, rel=1e-4)


def test_format_counts_matches_format_count():
    import numpy as np

    from dashboard.core.text import format_count, format_counts

    values = [0.0, 0.4, 1.0, 999.99, 1234.5, 6e9, -3.0, float("nan"), float("inf"), -float("inf"), 1e15]
    got = format_counts(values)
    assert got.dtype.kind == "U" and got.tolist() == [format_count(v) for v in values]
    assert format_counts(np.array([])).tolist() == []


def test_readable_numbers_never_use_scientific_notation():
    import re

    from dashboard.core.text import format_number, format_small, power_label

    assert format_small(3.3e-05) == "0.000033" and format_small(0.066) == "0.066" and format_small(0) == "0"
    assert format_small(1e-9) == "< 0.000001" and format_small(-0.0002) == "−0.0002"
    assert format_number(20390.2) == "20,390" and format_number(1.5e6) == "1.5 million"
    assert format_number(999_999_999) == "1 billion" and format_number(8e9) == "8 billion"
    assert format_number(3.9e18) == "3.9 × 10¹⁸" and format_number(1.234) == "1.23"
    assert power_label(1e-6) == "10⁻⁶" and power_label(3e-5) == "3 × 10⁻⁵"
    for x in (1e-300, 1e-7, 1.7e-6, 0.5, 12.5, 2.039e4, 1e6, 7.7e9, 1e21, float("nan")):
        assert not re.search(r"\de[+-]?\d", format_number(x) + format_small(x)), x
