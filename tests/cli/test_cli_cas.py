"""``anonset cas``: text and JSON output, and one-line errors for bad arguments."""
from __future__ import annotations

import json
import shutil

import pandas as pd
import pytest
from support import ROOT
from support.synthetic import DE_GROUPS, make_population, make_priors

from dashboard import cli
from dashboard.core import country as bm
from dashboard.core import personal as C

REAL_CACHE = ROOT / "data_cache"


@pytest.fixture(scope="module")
def tiny_cache(tmp_path_factory):
    """A cache folder in the real layout holding one small data set ``XX`` and one preset."""
    root = tmp_path_factory.mktemp("cache")
    (root / "population").mkdir()
    (root / "auxiliary").mkdir()
    make_population(DE_GROUPS).to_parquet(root / "population" / "XX.parquet", index=False)
    make_priors().assign(prior_country="DE").to_parquet(root / "body_priors.parquet", index=False)
    pd.DataFrame({"age_from": [10.0, 45.0], "age_to": [45.0, float("nan")], "fraction": [0.3, 0.1]}).to_parquet(
        root / "auxiliary" / "gadget.parquet", index=False)
    manifest = {
        "schema_version": 1,
        "datasets": {"XX": {
            "name": "Testland", "district_label": "Kreis", "region_label": "Land", "notes": [],
            "body_prior": {"country": "DE", "borrowed_from": "DE", "source": "test survey"},
        }},
        "body_priors": {"DE": {"rows": 24, "sources": []}},
        "auxiliary": {"gadget": {"name": "Owns a gadget", "country": None, "note": "made up", "keys": ["age_from", "age_to"], "sources": []}},
    }
    # the v2 body model's correlations come from the NHANES sample: copy the real one
    real = json.loads((REAL_CACHE / "manifest.json").read_text(encoding="utf-8"))
    (root / "microdata").mkdir()
    shutil.copy(REAL_CACHE / "microdata" / "nhanes.parquet", root / "microdata" / "nhanes.parquet")
    manifest["microdata"] = {"nhanes": real["microdata"]["nhanes"]}
    (root / "manifest.json").write_text(json.dumps(manifest), encoding="utf-8")
    return root


pytestmark = pytest.mark.cli("dashboard.cli.cas", "cas")  # the run fixture (tests/conftest.py): anonset with this topic only


def test_registered():
    assert "dashboard.cli.cas" in cli.COMMAND_MODULES


BASE = ["--country", "XX", "--district", "01002", "--sex", "female", "--age", "65-75", "--height", "160-165", "--weight", "70-75"]


def test_json_matches_core(run, tiny_cache):
    code, out, err = run(*BASE, "--aux", "gadget", "--users", "20000", "--cache", str(tiny_cache), "--json")
    assert code == 0 and err == ""
    data = json.loads(out)
    model = bm.load_country_model("XX", root=tiny_cache)
    want = C.compute_cas(model, C.Profile.build("XX", "01002", "female", "65-75", height="160-165", weight="70-75", aux=["gadget"]))
    assert [line["step"] for line in data["funnel"]] == ["country", "district", "sex", "age", "height", "weight", "auxiliary"]
    assert all(set(line) == {"step", "value", "count"} for line in data["funnel"])
    assert data["cas"] == pytest.approx(want.cas, rel=1e-12)
    assert [line["count"] for line in data["funnel"]] == pytest.approx([line.count for line in want.funnel])
    r = data["reidentification"]
    assert r["users"] == 20000 and set(r["k_indistinguishable"]) == {"2", "5", "10"}
    assert 0 <= r["uniqueness"] <= r["correctness"] <= 1
    assert [a["k"] for a in data["advice"]] == [10, 100]
    codes = {w["code"] for w in data["warnings"]}
    assert "borrowed_body_statistics" in codes and "filled_district" not in codes
    assert data["what_ifs"]["district"][0]["cas"] >= data["what_ifs"]["district"][-1]["cas"]


def test_text_output(run, tiny_cache):
    code, out, _ = run(*BASE, "--cache", str(tiny_cache), "--k", "5", "--k", "1000")
    assert code == 0
    assert "Funnel" in out and "Beta (01002)" in out and "65–75" in out
    assert "uniqueness ξ" in out and "correctness κ" in out
    assert "k = 5" in out and "k = 1000" in out
    assert "borrowed" in out or "Germany" in out or "DE" in out


def test_value_with_width_and_user_fractions(run, tiny_cache, tmp_path):
    csv = tmp_path / "club.csv"
    csv.write_text("sex,percent\nfemale,10\nmale,20\n", encoding="utf-8")
    code, out, _ = run("--country", "XX", "--district", "01002", "--sex", "female", "--age", "70", "--height", "162",
                       "--height-width", "2", "--weight", "71", "--weight-width", "1", "--aux-percent", "Runs=50",
                       "--aux-csv", str(csv), "--cache", str(tiny_cache), "--json")
    assert code == 0
    data = json.loads(out)
    assert data["funnel"][4]["value"] == "162–164 cm" and data["funnel"][5]["value"] == "71–72 kg"
    assert data["funnel"][-1]["count"] == pytest.approx(data["funnel"][5]["count"] * 0.5 * 0.1)


def test_withheld_and_region(run, tiny_cache):
    code, out, _ = run("--country", "XX", "--district", "01001", "--region", "--cache", str(tiny_cache), "--json")
    data = json.loads(out)
    assert code == 0 and data["funnel"][1]["value"].startswith("North")
    assert data["funnel"][2]["value"] == "any"


@pytest.mark.parametrize(
    "argv,msg",
    [
        (["--district", "99999"], "unknown Kreis '99999'"),
        (["--sex", "robot"], "unknown sex 'robot'"),
        (["--age", "80"], "outside the study population 18–75"),
        (["--age", "old"], "neither an age"),
        (["--height", "20"], "Height 20 cm is not a plausible adult height; give 100–250 cm"),
        (["--height", "60"], "Height 60 cm is not a plausible adult height; give 100–250 cm"),
        (["--height", "99.5", "--height-width", "1"], "Height 99.5 cm is not a plausible adult height"),
        (["--height", "60-65"], "Height 60–65 cm is not a plausible adult height; give 100–250 cm"),
        (["--height", "250.5"], "Height 250.5 cm is not a plausible adult height"),
        (["--height", "400"], "Height 400 cm is not a plausible adult height"),
        (["--height", "1.7m"], "is not a number"),
        (["--weight", "abc"], "weight 'abc' is not a number"),
        (["--height", "163-168"], "not aligned"),
        (["--height", "170", "--height-width", "3"], "width 3"),
        (["--users", "many"], "--users 'many' is not a number"),
        (["--users", "2.5"], "--users must be a whole number"),
        (["--k", "ten"], "--k 'ten' is not a number"),
        (["--k", "0"], "--k must be positive"),
        (["--aux", "nope"], "unknown auxiliary knowledge 'nope'"),
        (["--aux-percent", "Runs=200"], "between 0 and 100"),
        (["--aux-percent", "200"], "NAME=PERCENT"),
        (["--aux-csv", "/no/such.csv"], "no such file"),
        (["--study", "40"], "--study"),
    ],
)
def test_bad_arguments_one_line(run, tiny_cache, argv, msg):
    code, out, err = run("--country", "XX", "--cache", str(tiny_cache), *argv)
    assert code == 2 and out == ""
    assert err.count("\n") == 1 and err.startswith("anonset: error: ")
    assert msg in err


def test_the_adult_height_refusal_is_the_core_text_the_page_shows(run, tiny_cache):
    """The CLI, the core and the personal page refuse an adult's 60 cm with one text (core/text), from one range."""
    from dashboard.core.body import ADULT_HEIGHT_LIMITS
    from dashboard.core.text import adult_height_refusal

    code, out, err = run("--country", "XX", "--cache", str(tiny_cache), "--height", "60")
    assert (code, out) == (2, "")
    assert err == f"anonset: error: {adult_height_refusal(60, *ADULT_HEIGHT_LIMITS)}\n"
    assert "Traceback" not in err


@pytest.mark.parametrize("height, band", [("250", [245.0, 250.0]), ("100", [100.0, 105.0]), ("245-250", [245.0, 250.0])])
def test_the_ends_of_the_adult_range_are_accepted(run, tiny_cache, height, band):
    """250 cm is inside "100–250 cm", as the message says (issue 28: it was refused as outside "50–250"); it is
    the last band's, as on the page (assets/personal_page.js bandIn)."""
    code, out, err = run("--country", "XX", "--cache", str(tiny_cache), "--height", height, "--json")
    assert code == 0, err
    assert json.loads(out)["profile"]["height"] == band


def test_country_codes_are_case_insensitive(run, tiny_cache):
    upper = run(*BASE, "--cache", str(tiny_cache), "--json")
    lower = run("--country", "xx", *BASE[2:], "--cache", str(tiny_cache), "--json")
    assert upper[0] == lower[0] == 0, lower[2]
    assert json.loads(upper[1])["cas"] == json.loads(lower[1])["cas"]


def test_unknown_country_and_missing_cache(run, tiny_cache, tmp_path):
    code, _, err = run("--country", "ZZ", "--cache", str(tiny_cache))
    assert code == 2 and "unknown country or data set 'ZZ'" in err and err.count("\n") == 1
    code, _, err = run("--cache", str(tiny_cache))
    assert code == 2 and "--country" in err
    code, _, err = run("--country", "XX", "--cache", str(tmp_path / "empty"))
    assert code == 2 and "no data cache" in err and err.count("\n") == 1


def test_bad_csv_names_the_line(run, tiny_cache, tmp_path):
    csv = tmp_path / "bad.csv"
    csv.write_text("sex,percent\nfemale,abc\n", encoding="utf-8")
    code, _, err = run("--country", "XX", "--cache", str(tiny_cache), "--aux-csv", str(csv))
    assert code == 2 and "line 2" in err and err.count("\n") == 1


def test_real_germany(run, cache_root):
    code, out, err = run("--country", "DE", "--district", "11000", "--sex", "female", "--age", "65-75",
                         "--height", "160-165", "--weight", "70-75", "--json", "--cache", str(cache_root))
    assert code == 0, err
    data = json.loads(out)
    assert data["funnel"][1]["value"].startswith("Berlin")
    counts = [line["count"] for line in data["funnel"]]
    assert counts == sorted(counts, reverse=True) and data["cas"] == counts[-1]
    code, out, _ = run("--country", "DE", "--district", "11000", "--sex", "female", "--age", "65-75",
                       "--height", "172", "--height-width", "5", "--cache", str(cache_root))
    assert code == 0 and "170–175 cm" in out
    code, _, err = run("--country", "DE", "--district", "99999", "--cache", str(cache_root))
    assert code == 2 and "unknown Kreis" in err
