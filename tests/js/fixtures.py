"""What the node unit tests need from the Python side, as JSON on stdout: the personal page's config
(views.personal.page_config(): the field contract and core/text's data) and one public table, and the
district search's inputs and Python's ranked options for real names (core.country.rank_districts), which the
browser's copy (assets/personal_page.js rankDistricts) must give too.

Run by tests/js/harness.js (through $ANONSET_PYTHON, else python3) unless $ANONSET_JS_FIXTURES names a
file holding this JSON already (tests/test_js_unit.py writes one per session).
"""
from __future__ import annotations

import json
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[2]))


def fixtures() -> dict:
    from dashboard.core import personal as pt
    from dashboard.views.personal import page_config

    return {"config": page_config(), "table": pt.public_tables("DE", "v2", 5, 5), "search": search_cases(),
            "adult_height": adult_height_refusals()}


def adult_height_refusals() -> dict:
    """The core's refusal of an adult's 60 cm, and of 2 ft (24 inches) in the units typed: the page must say these."""
    import math

    from dashboard.core.body import ADULT_HEIGHT_LIMITS
    from dashboard.core.text import adult_height_refusal

    lo, hi = ADULT_HEIGHT_LIMITS
    return {"cm_60": adult_height_refusal(60, lo, hi),
            "inches_24": adult_height_refusal(24, math.ceil(lo / 2.54), math.floor(hi / 2.54), "inches")}


#: Real names typed as people type them (issue 28), per data set.
QUERIES = {
    "DE": ["Neukölln", "neukolln", "Munchen", "Munich", "Koln", "cologne", "berg", "Bad T", "frankfurt main", "Sylt"],
    "IT-COM": ["Roma", "Rome", "Milano", "Forli", "Cantu", "san giovanni", "Venezia", "Venice"],
}


def search_cases() -> dict:
    import census_loaders as cl
    from dashboard.core.country import place_rows, rank_districts
    from dashboard.views.personal import country_choices

    out = {}
    for code, queries in QUERIES.items():
        districts, places = country_choices(code).districts, place_rows(code)
        word = cl.dataset_info(code)["district_label"]
        out[code] = {"districts": districts, "places": places, "word": word,
                     "expected": {q: rank_districts(q, districts, places, word, limit=30) for q in queries}}
    return out


if __name__ == "__main__":
    json.dump(fixtures(), sys.stdout, allow_nan=False)
