"""Every shipped data set's description (what follows its country in its name) is marked for translation, so a
translated page never shows one in English (core.country.dataset_title looks it up in the catalogue)."""
from __future__ import annotations

import census_loaders as cl
from dashboard.core.country import DATASET_DESCRIPTIONS, dataset_title
from dashboard.core.text import language


def test_every_shipped_description_is_marked():
    tails = {cl.dataset_info(code)["name"].partition(" — ")[2] for code in cl.countries()} - {""}
    assert tails and tails <= set(DATASET_DESCRIPTIONS), sorted(tails - set(DATASET_DESCRIPTIONS))


def test_a_title_is_translated_whole():
    with language("de"):
        title = dataset_title("AU-SA2")
    assert cl.dataset_info("AU-SA2")["name"] == "Australia — statistical areas level 2"
    assert title.startswith("Australien — ") and "statistical areas" not in title, title
