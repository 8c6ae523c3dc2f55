"""District choices are searchable by name and by region (province, state): catalog.district_label and
the personal page's options for the new data sets."""
from __future__ import annotations

import pytest

from dashboard.core.country import district_label


def test_label_carries_the_region_when_it_helps():
    assert district_label("Castro", "075019", "Lecce", "075") == "Castro — Lecce (075019)"
    assert district_label("Castro", "016065", "Bergamo", "016") == "Castro — Bergamo (016065)"
    assert district_label("Berlin", "11000", "Berlin", "11") == "Berlin (11000)"  # region named like the district
    assert district_label("Roma", "ITI43", "ITI4", "ITI4") == "Roma (ITI43)"  # region known only by its code
    assert district_label("Tanger", "01.511.01.0", "Tanger-Assilah", "01.511", with_region=False) == "Tanger (01.511.01.0)"
    assert district_label("X", "1", "R", "r", filled=True) == "X — R (1) — filled"


def test_an_id_made_from_the_name_is_not_repeated():
    assert district_label("Auckland", "auckland", "New Zealand", "NZ", with_region=False) == "Auckland"
    assert district_label("Central Hawke's Bay district", "central-hawkes-bay-district", with_region=False) \
        == "Central Hawke's Bay district"


@pytest.mark.parametrize("code, value, label", [
    ("IT-COM", "097055", "Morterone — Lecco (097055)"),
    ("IT-COM", "075096", "Castro — Lecce (075096)"),
    ("MA", "01.511.01.0", "Tanger — Tanger-Assilah (01.511.01.0)"),
    ("KR", "11020", "중구 — 서울특별시 (Seoul) (11020)"),
    ("NZ", "auckland", "Auckland"),
])
def test_personal_page_options(dash_page, code, value, label):
    options = {o["value"]: o["label"] for o in dash_page("personal").country_choices(code).districts}
    assert options[value] == label
