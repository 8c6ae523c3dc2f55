"""The shipped data_cache/: coverage, consistency, spot values through the read API."""
from __future__ import annotations

import json

import numpy as np
import pytest

import census_loaders as cl
from dashboard.cli import main


def test_at_least_39_countries(cache_root):
    codes = cl.countries()
    iso = [c for c in codes if "-" not in c]
    assert len(iso) >= 39, codes
    for code in ("DE", "US", "GB", "AU", "FR", "PL", "US-ZCTA"):
        assert code in codes


#: National UN estimates (~150, alike by construction) are checked through a sample; every census data set fully.
NATIONAL_SAMPLE = ("NG", "JP", "CN", "IN", "BR", "NA", "FJ", "CI")


def checked_codes() -> list[str]:
    return [c for c in cl.countries() if not cl.dataset_info(c).get("national_model") or c in NATIONAL_SAMPLE]


def test_every_dataset_is_consistent(cache_root):
    for code in checked_codes():
        pop = cl.population(code)
        info = cl.dataset_info(code)
        assert list(pop.columns[:9]) == [
            "district_id", "district_name", "region_id", "region_name",
            "sex", "age_from", "age_to", "count", "filled",
        ], code
        assert set(pop["sex"]) == {"female", "male"}, code
        assert (pop["count"] >= 0).all(), code
        assert pop["district_id"].nunique() == info["districts"], code
        assert np.isclose(pop["count"].sum(), info["population"], rtol=1e-9), code
        # each district has both sexes over the same age groups
        groups = pop.groupby(["district_id", "sex"]).size()
        assert groups.nunique() == 1, code


def test_every_district_has_a_boundary_or_the_gap_is_explained(cache_root):
    for code in checked_codes():
        info = cl.dataset_info(code)
        b = info["boundaries"]
        if b is None:
            assert info["boundary_note"], code
            assert cl.boundaries(code) is None
            continue
        geo = cl.boundaries(code)
        ids = {f["id"] for f in geo["features"]}
        districts = set(cl.population(code)["district_id"])
        missing = districts - ids
        assert ids <= districts, code
        assert sorted(missing) == b["missing_geometry"], code
        if missing:  # allowed only when the data set's notes explain it
            assert any(m in " ".join(info["notes"]) for m in missing), (code, missing)


def test_spot_values_germany(cache_root):
    pop = cl.population("DE")
    assert pop["district_id"].nunique() == 400
    by = pop.groupby("district_id")["count"].sum()
    info = cl.dataset_info("DE")
    if info["reference_date"] == "2023-12-31":
        assert by.sum() == 83_456_045 and by["11000"] == 3_662_381 and by["03354"] == 46_815
    else:
        assert info["reference_date"] == "2024-12-31"
        assert by.sum() == 83_577_140 and by["11000"] == 3_685_265 and by["03354"] == 46_502


def test_spot_values_other_countries(cache_root):
    us = cl.population("US").groupby("district_id")["count"].sum()
    assert us.sum() == 333_287_557 and us["06037"] == 9_721_138 and us["48301"] == 51
    gb = cl.population("GB").groupby("district_id")["count"].sum()
    assert gb.sum() == 67_596_281 and gb["E06000023"] == 479_024
    au = cl.population("AU").groupby("district_id")["count"].sum()
    assert au.sum() == 25_365_571
    fr = cl.population("FR")
    assert fr["district_id"].str.startswith("FR").all()


def test_body_priors_borrowed_flag(cache_root):
    de = cl.body_priors("DE")
    assert de.attrs["borrowed_from"] is None
    us = cl.body_priors("US")
    assert us.attrs["prior_country"] == "US" and us.attrs["borrowed_from"] is None
    with pytest.raises(cl.NoOwnBodyTable, match="NCD-RisC"):  # issue 27: GB has its NCD-RisC prior
        cl.body_priors("GB")


def test_auxiliary_presets(cache_root):
    ids = {t["id"] for t in cl.auxiliary_tables()}
    assert {"de_wearables", "us_flo"} <= ids
    flo = cl.auxiliary_table("us_flo")
    assert flo.country == "US" and "upper bound" in flo.note.lower()


def test_manifest_names_every_source(cache_root):
    m = cl.manifest()
    for code, d in m["datasets"].items():
        assert d["sources"], code
        for s in d["sources"]:
            for key in ("file", "sha256", "publisher", "table_id", "reference_date", "licence", "rows", "population"):
                assert s.get(key) not in (None, ""), (code, key)
            assert len(s["sha256"]) == 64


def test_cache_size_within_budget(cache_root):
    total = sum(p.stat().st_size for p in cache_root.rglob("*") if p.is_file())
    assert total <= 40 * 1024 * 1024, f"data_cache is {total / 1e6:.1f} MB"


def test_unknown_code_is_a_clear_error_naming_the_closest_matches(cache_root):
    with pytest.raises(cl.UnknownDataset) as err:
        cl.population("XX")
    assert "unknown country" in str(err.value) and "anonset data summary" in str(err.value)
    with pytest.raises(cl.UnknownDataset) as err:
        cl.dataset_info("Germny")
    assert "closest: DE (Germany)" in str(err.value)
    assert cl.closest_codes("Deutschland")[0] == "DE" and cl.closest_codes("brasil")[0] == "BR"
    assert cl.closest_codes("Espana")[0] == "ES" and cl.closest_codes("cote d'ivoire")[0] == "CI"
    assert cl.closest_codes("Côte d’Ivoire")[0] == "CI" and cl.closest_codes("Turkey")[0] == "TR"
    assert "JP" in cl.closest_codes("日本")


def test_codes_are_case_insensitive(cache_root):
    assert cl.canonical_code("de") == "DE" and cl.canonical_code(" us-zcta ") == "US-ZCTA"
    assert cl.population("ng").equals(cl.population("NG"))
    assert cl.dataset_info("it-com") is cl.dataset_info("IT-COM")


def test_cli_summary_lists_every_dataset(cache_root, capsys):
    assert main(["data", "summary", "--json"]) == 0
    rows = json.loads(capsys.readouterr().out)
    assert len(rows) == len(cl.countries())
    assert len([r for r in rows if "-" not in r["code"]]) >= 39
    de = next(r for r in rows if r["code"] == "DE")
    assert de["districts"] == 400
    assert "12211-9018" in de["body_prior_source"]
    gb = next(r for r in rows if r["code"] == "GB")
    assert gb["body_prior_source"].startswith("NCD-RisC") and "2022" in gb["body_prior_source"]
    ng = next(r for r in rows if r["code"] == "NG")
    assert (ng["grain"], ng["districts"], ng["districts_with_geometry"], ng["reference_year"]) == ("national", 1, 1, 2025)
    assert ng["continent"] == "Africa" and ng["licence"] == "CC BY 3.0 IGO" and ng["country"] == "Nigeria"
    assert de["grain"] == "Kreis" and de["districts_with_geometry"] == 400 and de["continent"] == "Europe"
    for r in rows:
        for key in ("code", "country", "population", "reference_year", "grain", "source", "licence", "districts",
                    "districts_with_geometry", "continent"):
            assert r[key] not in (None, ""), (r["code"], key)


def test_cli_summary_is_one_screen_by_continent_with_the_world_total(cache_root, capsys):
    assert main(["data", "summary"]) == 0
    text = capsys.readouterr().out
    lines = text.splitlines()
    assert len(lines) <= 40 and max(map(len, lines)) <= 100
    heads = [line.split(" — ")[0] for line in lines if not line.startswith(" ") and " — " in line]
    assert heads == ["Africa", "Asia", "Europe", "North America", "South America", "Oceania"]
    assert main(["data", "summary", "--world", "--json"]) == 0
    world = json.loads(capsys.readouterr().out)
    assert f"World: {world['population']:,} people in {world['countries']} countries" in text
    # each country once: the national data set where a country has several (AU, not AU-SA2)
    assert "AU" in world["counted"] and "AU-SA2" not in world["counted"] and "US-ZCTA" not in world["counted"]
    # WPP's 2025 estimates, and each census at its own date (India 2011: 1.21 of 1.45 billion in 2025)
    assert 7.8e9 < world["population"] < 8.3e9
    assert world["countries"] == len({d["country"] for d in cl.manifest()["datasets"].values()})

