"""The district search (core.country.rank_districts) on real names and the shipped GeoNames index (issue 28):
exact and whole-word matches first, accents and case ignored, local and English names, and places below
district level leading to their district with a line in the data set's own district word."""
from __future__ import annotations

import pytest

import census_loaders as cl
from census_loaders import places as gazetteer
from dashboard.core.country import part_of_line, place_rows, rank_districts, search_fold
from dashboard.core.country._places import name_tier
from dashboard.views.personal import country_choices


def search(code: str, query: str, n: int = 5) -> list[dict]:
    word = cl.dataset_info(code)["district_label"]
    return rank_districts(query, country_choices(code).districts, place_rows(code), word)[0][:n]


def first(code: str, query: str) -> dict:
    found = search(code, query, 1)
    assert found, f"{code}: nothing found for {query!r}"
    return found[0]


def test_tiers_exact_then_word_start_then_inside():
    assert name_tier("forli", "forli") == 0
    assert name_tier("forlimpopoli", "forli") == 1
    assert name_tier("bad tolz-wolfratshausen", "wolf") == 1
    assert name_tier("neuenforli", "forli") == 2
    assert name_tier("roma", "milano") is None
    assert search_fold("Forlì") == search_fold("FORLI") == "forli"
    assert search_fold("Köln") == "koln"


@pytest.mark.parametrize("code, query, district, place", [
    ("IT-COM", "Roma", "Roma", None),  # the city first, not Romano di Lombardia
    ("IT-COM", "Rome", "Roma", None),  # the English name, from the gazetteer
    ("IT-COM", "Milano", "Milano", None),
    ("IT-COM", "milan", "Milano", None),
    ("IT-COM", "Forli", "Forlì", None),  # not Forlimpopoli
    ("IT-COM", "Cantu", "Cantù", None),
    ("DE", "Munchen", "München, kreisfreie Stadt", None),  # the city before the Landkreis
    ("DE", "Munich", "München, kreisfreie Stadt", None),
    ("DE", "Koln", "Köln, kreisfreie Stadt", None),
    ("DE", "cologne", "Köln, kreisfreie Stadt", None),
    ("DE", "Neukölln", "Berlin", "Neukölln"),
    ("DE", "neukolln", "Berlin", "Neukölln"),
    ("US", "Brooklyn", "Kings County", None),  # GeoNames: Brooklyn is Kings County
    ("US", "Chicago", "Cook County", "Chicago"),
    ("FR", "Marseille", "Bouches-du-Rhône", "Marseille"),
    ("FR", "Paris", "Paris", None),
    ("FR", "Lyon", "Rhône", "Lyon"),
    ("US", "Rome", "Floyd County", "Rome"),  # Rome, Georgia: the largest of the places of that name
])
def test_real_names_find_their_district_first(code, query, district, place):
    names = {d["value"]: d["name"] for d in country_choices(code).districts}
    top = first(code, query)
    assert names[top["value"]] == district, (query, top)
    assert top["place"] == place


def test_a_place_below_district_level_says_where_it_is_counted():
    top = first("DE", "Neukölln")
    assert top["label"] == "Neukölln is part of Berlin, published as one Kreis"
    assert top["label"] == part_of_line("Neukölln", "Berlin", "Kreis")
    us = first("US", "Chicago")
    assert us["label"].endswith("published as one county")


def test_one_option_per_district_and_a_count_of_all_matches():
    options, matched = rank_districts("berg", country_choices("DE").districts, place_rows("DE"), "Kreis", limit=20)
    values = [o["value"] for o in options]
    assert len(values) == len(set(values)) == 20 < matched
    assert [o["tier"] for o in options] == sorted(o["tier"] for o in options)


def test_nothing_typed_or_nothing_found():
    districts = country_choices("DE").districts
    assert rank_districts("   ", districts, place_rows("DE"), "Kreis") == ([], 0)
    assert rank_districts("qxzqxz", districts, place_rows("DE"), "Kreis") == ([], 0)


def test_the_index_is_the_gazetteer_assigned_by_coordinates(cache_root):
    source = cl.places_source()
    assert source and "CC BY 4.0" in source["licence"] and source["package_version"]
    de = cl.place_index("DE")
    assert list(de.columns) == list(gazetteer.PLACE_COLUMNS)
    row = de.loc[de["name"] == "Neukölln"].iloc[0]
    assert row["district_id"] == "11000" and not row["is_district"]
    assert cl.place_index("NG") is None or len(cl.place_index("NG")) >= 0  # a data set without one is None
    assert place_rows("DE")[0][:3] == ["Berlin", place_rows("DE")[0][1], "11000"]  # largest first


def test_search_names_keep_latin_names_and_drop_codes_and_romanisations():
    assert gazetteer.search_names("Rome", ["ROM", "Roma", "luo ma", "Рим", "Rome", "Róma", "Roma"]) == ["Roma"]  # Róma folds to roma: one per spelling
    assert gazetteer.district_stem("München, Landeshauptstadt") == "munchen"
    assert gazetteer.district_stem("Roma (RM)") == "roma"


def test_point_in_polygon_and_the_nearest_district_off_a_coast():
    import pandas as pd
    square = {"type": "Feature", "id": "A", "properties": {"name": "A"},
              "geometry": {"type": "Polygon", "coordinates": [[[0, 0], [1, 0], [1, 1], [0, 1], [0, 0]]]}}
    other = {**square, "id": "B", "properties": {"name": "B"},
             "geometry": {"type": "Polygon", "coordinates": [[[2, 0], [3, 0], [3, 1], [2, 1], [2, 0]]]}}
    pts = pd.DataFrame({"latitude": [0.5, 0.5, 0.5, 5.0], "longitude": [0.5, 2.5, 1.02, 0.5]})
    got = gazetteer.assign(pts, {"type": "FeatureCollection", "features": [square, other]})
    assert got.tolist() == ["A", "B", "A", None]  # 1.02: 0.02° off A's coast; (0.5, 5): nowhere
