"""``anonset country-table | cdf | districts``: output equals the core, one-line errors, reproducible views."""
from __future__ import annotations

import json
import shlex

import pytest
from support.synthetic import make_tiny_cache

from dashboard import cli
from dashboard.cli import regions
from dashboard.core import regions as ag
from dashboard.core.regions import Scenario, UserPercent


@pytest.fixture(scope="module")
def tiny(tmp_path_factory):
    return make_tiny_cache(tmp_path_factory.mktemp("tiny_cli"))


pytestmark = pytest.mark.cli("dashboard.cli.regions")  # the run fixture (tests/conftest.py): anonset with this topic only


def test_registered():
    assert "dashboard.cli.regions" in cli.COMMAND_MODULES


def test_country_table_json_by_hand(run, tiny):
    code, out, err = run("country-table", "--country", "TT", "--ages", "20-60", "--cache", str(tiny), "--json")
    assert code == 0 and err == ""
    data = json.loads(out)
    assert data["ages"] == "20–60"
    f, m = data["rows"]
    assert (f["sex"], f["min_cas"], f["min_district_id"], f["cell_mean"], f["share_deviating"]) == ("female", 10, "T1", 25, 0.625)
    assert f["mean_middle_half"] == 22.5 and m["mean_without_top_quartile_pct"] == 50
    assert f["male_female_ratio"] == m["male_female_ratio"] == 0.4


def test_country_table_text(run, tiny):
    code, out, _ = run("country-table", "--country", "TT", "--ages", "20-60", "--cache", str(tiny))
    assert code == 0
    assert "ages 20–60" in out and "One (T1), 20–30" in out and "0.400" in out and "62.50 %" in out


def test_country_table_real(run, cache_root):
    code, out, _ = run("country-table", "--country", "DE,LU", "--json")
    assert code == 0
    rows = json.loads(out)["rows"]
    assert [(r["country"], r["sex"]) for r in rows] == [("DE", "female"), ("DE", "male"), ("LU", "female"), ("LU", "male")]
    want = ag.country_table(["DE", "LU"], root=cache_root)
    assert [r["cell_mean"] for r in rows] == pytest.approx(list(want["cell_mean"]), rel=1e-12)


def test_cdf_json_equals_core(run, cache_root):
    code, out, err = run("cdf", "--country", "DE", "--sex", "female", "--aux", "de_wearables", "--height-width", "10",
                         "--at", "5,20,100", "--json")
    assert code == 0 and err == ""
    data = json.loads(out)
    s = Scenario(sexes=("female",), aux=("de_wearables",), height_width=10)
    want = ag.share_at_most(s, [5, 20, 100], root=cache_root)["DE"]
    c = data["countries"][0]
    assert data["semantics"].startswith("CAS at most") and data["scenario"] == s.to_query()
    assert [r["x"] for r in c["at"]] == [5, 20, 100]
    assert [r["share_people"] for r in c["at"]] == pytest.approx(list(want.values()), rel=1e-12)
    cdf = ag.country_cdf(s, "DE", root=cache_root)
    assert c["plausible_share"] == pytest.approx(cdf.plausible_share, rel=1e-12)
    assert all(0 <= r["share_people"] <= c["plausible_share"] for r in c["at"])


def test_cdf_text_states_at_most(run, cache_root):
    code, out, _ = run("cdf", "--country", "DE", "--country", "GB", "--no-body", "--at", "1000")
    assert code == 0
    assert "at most x" in out and "CAS ≤        1,000" in out and out.count("CAS ≤") == 2
    share = ag.share_at_most(Scenario(countries=("DE",), include_body=False), [1000], root=cache_root)["DE"][1000.0]
    assert f"{100 * share:.2f} % of people" in out


def test_cdf_reproduces_the_explorers_readouts(run, cache_root):
    """Issue 28: the readouts count CAS < k on whole 5-year groups; the command shown beside them says so
    (--grain 5 --below) and prints the very same shares."""
    from dashboard.views.explorer import readouts

    s = Scenario(countries=("DE", "FR"))
    command = s.to_cli("cdf", at=(5, 20, 100), grain="5", below=True)
    assert command.endswith("--at 5,20,100 --grain 5 --below")
    code, out, err = run(*shlex.split(command)[1:], "--json")
    assert code == 0 and err == ""
    data = json.loads(out)
    assert data["semantics"] == "CAS below x (< x)" and data["grain"] == "5"
    want = ag.comparable_share_below(s, [5, 20, 100], "5", root=cache_root)
    for c in data["countries"]:
        assert [r["share_people"] for r in c["at"]] == [want[c["country"]][k] for k in (5.0, 20.0, 100.0)]
    shown = " ".join(str(r) for r in readouts(s, "5"))
    for k in (5.0, 20.0, 100.0):
        assert f"{100 * want['DE'][k]:.1f}" in shown  # the page's readout, rounded as shown
    _, text, _ = run(*shlex.split(command)[1:])
    assert "below x, on whole 5-year age groups" in text and "CAS <            5" in text


def test_districts_json_equals_core(run, cache_root):
    code, out, _ = run("districts", "--country", "DE", "--stat", "min", "--json")
    assert code == 0
    data = json.loads(out)
    df = ag.district_statistics(Scenario(), "DE", root=cache_root)
    assert data["column"] == "min_cas" and len(data["districts"]) == len(df)
    first = data["districts"][0]
    assert first["district_id"] == df["district_id"].iloc[0]
    assert first["min_cas"] == pytest.approx(df["min_cas"].iloc[0], rel=1e-12)
    assert (first["min_sex"], first["min_height"]) == (df["min_sex"].iloc[0], df["min_height"].iloc[0])


def test_districts_share_below_text(run, tiny):
    code, out, _ = run("districts", "--country", "TT", "--ages", "20-60", "--no-body", "--stat", "share_below",
                       "--k", "10", "--cache", str(tiny))
    assert code == 0
    lines = out.splitlines()
    assert "CAS below 10 (CAS < k)" in lines[0]
    # T1 women 10 20 30 40 and men 5 5 5 5 → 20 of 120 people below 10; T2 (filled) 5·3 + 0 of 160
    assert "One" in lines[1] and "16.67 %" in lines[1]
    assert "Two *" in lines[2] and "9.38 %" in lines[2]


@pytest.mark.parametrize("scenario", [
    Scenario(),
    Scenario(countries=("DE", "GB"), sexes=("male",), ages=(15, 85), height_width=10, weight_width=2,
             aux=(UserPercent("Runs marathons", 2.5),), bmi_range=(18, 28), k=20, stat="share_below"),
    Scenario(countries=("US",), include_body=False, aux=("us_flo", UserPercent("G", by_age=((18, 30, 10), (30, float("inf"), 5)))),
             stat="max"),
])
def test_to_cli_reproduces_the_scenario(scenario, cache_root):
    for command in ("districts", "cdf"):
        argv = shlex.split(scenario.to_cli(command))[1:]
        args = cli.build_parser().parse_args(argv)
        got = regions.scenario_from_args(args)
        if command == "cdf":  # cdf has no map statistic
            got = got.replace(stat=scenario.stat, k=scenario.k)
        assert got == scenario


def test_to_cli_command_runs(run):
    s = Scenario(countries=("LU",), sexes=("female",), k=50, stat="share_below")
    code, out, _ = run(*shlex.split(s.to_cli())[1:], "--json")
    assert code == 0 and json.loads(out)["scenario"] == s.to_query()


@pytest.mark.parametrize("argv, message", [
    (["districts"], "give a country"),
    (["districts", "--country", "XX"], "unknown country or data set 'XX'"),
    (["districts", "--country", "DE", "--sex", "other"], "unknown sex"),
    (["districts", "--country", "DE", "--sex", ","], "at least one sex"),
    (["districts", "--country", "DE", "--ages", "75-18"], "reversed"),
    (["districts", "--country", "DE", "--ages", "90-130"], "outside the census data"),
    (["districts", "--country", "DE", "--stat", "share_below", "--k", "0"], "positive"),
    (["districts", "--country", "DE", "--height-width", "3"], "not offered"),
    (["districts", "--country", "DE", "--stat", "median"], "unknown statistic"),
    (["districts", "--country", "US", "--aux", "de_wearables"], "describes DE, not US"),
    (["districts", "--country", "DE", "--aux-percent", "Runs"], "NAME=PERCENT"),
    (["cdf", "--country", "DE", "--at", "5,x"], "not a number"),
    (["cdf", "--country", "DE", "--at", "0"], "positive"),
    (["cdf", "--country", "DE", "--bmi", "30-17"], "reversed"),
    (["country-table", "--country", "ZZ"], "unknown country or data set 'ZZ'"),
    (["country-table", "--ages", "18"], "not a range"),
])
def test_bad_input_one_line_exit_2(run, argv, message, cache_root):
    code, out, err = run(*argv)
    assert code == 2 and out == ""
    assert err.count("\n") == 1 and err.startswith("anonset: error: ") and message in err
