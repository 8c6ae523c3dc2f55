"""The regional explorer's Scenario: validation, URL round trip, the reproducing command."""
from __future__ import annotations

import math
import shlex

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from dashboard.core.errors import InputError
from dashboard.core.regions import STATS, Scenario, UserPercent


def test_defaults_are_the_study_population_and_hashable():
    s = Scenario()
    assert s.countries == ("DE",) and s.sexes == ("female", "male") and s.ages == (18.0, 75.0)
    assert s.include_body and (s.height_width, s.weight_width) == (5, 5)
    assert s.aux == () and s.bmi_range == (17.0, 30.0) and s.k == 5.0 and s.stat == "person_mean"
    assert hash(s) == hash(Scenario()) and s == Scenario()
    assert {s: 1}[Scenario(countries=["DE"])] == 1
    with pytest.raises(AttributeError):
        s.k = 3  # frozen


def test_normalisation():
    s = Scenario(countries=("us", "DE", "US"), sexes=("m", "female"), aux=("de_wearables", "Runs=2.5"))
    assert s.countries == ("US", "DE")
    assert s.sexes == ("female", "male")  # array order, not input order
    assert s.aux == ("de_wearables", UserPercent("Runs", percent=2.5))
    assert s.presets == ("de_wearables",) and s.user_aux == (UserPercent("Runs", 2.5),)


def test_profile_key_ignores_what_does_not_change_numbers():
    a = Scenario(include_body=False, height_width=5)
    b = Scenario(include_body=False, height_width=10, bmi_range=(18, 25), k=20, stat="min", countries=("US",))
    assert a.profile_key == b.profile_key
    assert Scenario(height_width=10).profile_key != Scenario().profile_key


def test_from_query_parses_every_key(cache_root):
    q = {"country": "DE", "sex": "female", "ages": "20-60", "body": "1", "height_width": "10",
         "weight_width": "2", "aux": "de_wearables;Runs marathons=2.5;Gadget=18-30:10,30+:5",
         "bmi": "18.5-25", "k": "20", "stat": "share_below", "tab": "ignored by the scenario"}
    s = Scenario.from_query(q, root=cache_root)
    assert s == Scenario(
        countries=("DE",), sexes=("female",), ages=(20, 60), height_width=10, weight_width=2,
        aux=("de_wearables", UserPercent("Runs marathons", 2.5),
             UserPercent("Gadget", by_age=((18, 30, 10), (30, math.inf, 5)))),
        bmi_range=(18.5, 25), k=20, stat="share_below",
    )
    assert Scenario.from_query({}, check_data=False) == Scenario()
    assert Scenario.from_query({"body": "0"}, check_data=False).include_body is False
    assert Scenario.from_query({"ages": "18+"}, check_data=False).ages == (18.0, math.inf)


def test_to_query_round_trip_examples(cache_root):
    examples = [
        Scenario(),
        Scenario(countries=("US", "US-ZCTA"), sexes=("female",), aux=("us_flo",), k=100, stat="min"),
        Scenario(countries=("GB", "DE"), ages=(15, 85), include_body=False),
        Scenario(ages=(18.5, math.inf), height_width=1, weight_width=20, bmi_range=(16, 35.5),
                 aux=(UserPercent("A; b".replace(";", ","), by_age=((0, 40, 0.25), (40, math.inf, 99.5))),)),
    ]
    for s in examples:
        q = s.to_query()
        assert all(isinstance(k, str) and isinstance(v, str) for k, v in q.items())
        assert Scenario.from_query(q, root=cache_root) == s
    assert Scenario().to_query() == {"country": "DE"}  # defaults stay out of the link


_user = st.builds(
    UserPercent,
    name=st.text(st.characters(blacklist_characters=";", blacklist_categories=("Cs",)), min_size=1, max_size=12)
    .filter(lambda x: x.strip()),
    percent=st.floats(0, 100),
)
_scenarios = st.builds(
    Scenario,
    countries=st.lists(st.sampled_from(["DE", "US", "GB", "AU-SA2", "US-ZCTA", "FR"]), min_size=1, max_size=3, unique=True),
    sexes=st.sampled_from([("female",), ("male",), ("female", "male")]),
    ages=st.tuples(st.integers(0, 60), st.integers(1, 40)).map(lambda t: (t[0], min(100, t[0] + t[1]))),
    include_body=st.booleans(),
    height_width=st.sampled_from([1, 2, 5, 10, 20]),
    weight_width=st.sampled_from([1, 2, 5, 10, 20]),
    aux=st.lists(st.one_of(st.sampled_from(["de_wearables", "us_flo"]), _user), max_size=3, unique=True),
    bmi_range=st.tuples(st.floats(1, 40), st.floats(0.01, 30)).map(lambda t: (t[0], t[0] + t[1])),
    k=st.floats(1e-3, 1e6),
    stat=st.sampled_from(STATS),
)


@settings(max_examples=150, deadline=None)
@given(_scenarios)
def test_to_query_round_trip_property(s):
    assert Scenario.from_query(s.to_query(), check_data=False) == s


@pytest.mark.parametrize("query, message", [
    ({"country": "XX"}, "unknown country or data set 'XX'"),
    ({"country": ""}, "at least one country"),
    ({"country": " , "}, "at least one country"),
    ({"sex": "diverse"}, "unknown sex 'diverse'"),
    ({"sex": ""}, "at least one sex"),
    ({"ages": "75-18"}, "reversed"),
    ({"ages": "40-40"}, "reversed"),
    ({"ages": "90-130"}, "outside the census data"),
    ({"ages": "120+"}, "outside the census data"),
    ({"ages": "adults"}, "not a range"),
    ({"k": "0"}, "positive"),
    ({"k": "-5"}, "positive"),
    ({"k": "many"}, "not a number"),
    ({"k": "inf"}, "finite"),
    ({"height_width": "3"}, "not offered"),
    ({"weight_width": "abc"}, "not a number"),
    ({"body": "maybe"}, "body"),
    ({"bmi": "30-17"}, "reversed"),
    ({"stat": "median"}, "unknown statistic"),
    ({"aux": "nope"}, "unknown auxiliary knowledge 'nope'"),
    ({"country": "US", "aux": "de_wearables"}, "describes DE, not US"),
    ({"aux": "Runs=abc"}, "not a number"),
    ({"aux": "Runs=150"}, "between 0 and 100"),
    ({"aux": "=5"}, "NAME=PERCENT"),
    ({"aux": "G=18-30:10,25-40:5"}, "overlap"),
    ({"aux": "bad id!"}, "neither a preset id"),
])
def test_bad_queries(query, message, cache_root):
    with pytest.raises(InputError, match=message):
        Scenario.from_query(query, root=cache_root)


def test_bad_constructor_values():
    with pytest.raises(InputError, match="at least one country"):
        Scenario(countries=())
    with pytest.raises(InputError, match="at least one sex"):
        Scenario(sexes=())
    with pytest.raises(InputError, match="reversed"):
        Scenario(ages=(75, 18))
    with pytest.raises(InputError, match="positive"):
        Scenario(k=0)
    with pytest.raises(InputError, match="not offered"):
        Scenario(weight_width=7)
    with pytest.raises(InputError, match="include_body"):
        Scenario(include_body="yes")


def test_user_percent_text_and_table():
    u = UserPercent.parse("Gadget owners=18-30:10,30+:5")
    assert u.by_age == ((18.0, 30.0, 10.0), (30.0, math.inf, 5.0)) and u.percent is None
    assert UserPercent.parse(u.spec) == u
    t = u.table()
    assert list(t.table["fraction"]) == pytest.approx([0.10, 0.05])
    assert UserPercent.parse("Runs=2.5%").percent == 2.5
    assert float(UserPercent("Runs", 2.5).table().table["fraction"].iloc[0]) == pytest.approx(0.025)
    with pytest.raises(InputError, match="either one percentage"):
        UserPercent("x")


def test_to_cli_reproduces_the_view():
    s = Scenario(countries=("DE", "US-ZCTA"), sexes=("male",), ages=(15, 85), height_width=10, weight_width=2,
                 aux=(UserPercent("Runs marathons", 2.5),), bmi_range=(18, 28), k=20, stat="share_below")
    cmd = s.to_cli()
    assert cmd.startswith("anonset districts --country DE --country US-ZCTA --ages 15-85 --sex male")
    assert "--height-width 10 --weight-width 2 --bmi 18-28" in cmd
    assert "--aux-percent 'Runs marathons=2.5'" in cmd and "--stat share_below --k 20" in cmd
    assert shlex.split(cmd)[0] == "anonset"
    assert "--no-body" in Scenario(include_body=False).to_cli("cdf")
    assert Scenario().to_cli("cdf", at=(5, 20.5)).endswith("--at 5,20.5")
    assert Scenario(countries=("DE", "GB")).to_cli("country-table") == \
        "anonset country-table --country DE --country GB --ages 18-75"
    with pytest.raises(InputError):
        Scenario().to_cli("map")
