"""Country names (English and local) and continents, for the manifest (build time only).

* Names come from the Unicode CLDR as packaged by Babel: the English name of the territory and its
  name in each of its official languages (``babel.languages.get_official_languages``, de facto
  official included), so "Deutschland", "Brasil", "España", "Côte d'Ivoire", "日本" come from the
  same published source.  Typographic apostrophes are made plain so that a typed "d'Ivoire" matches.
* Continents come from the ``Continent_7`` column of ``country_data.tsv`` in the PyPI package
  ``country_converter`` (coco, GPL-3; its regions follow the UN M49 geoscheme): Africa, Asia, Europe,
  North America (with Central America and the Caribbean), South America, Oceania.  The file is read
  directly (``keep_default_na=False``: Namibia's code is ``NA``).

The pages and the CLI never import this module: they read what the build wrote into the manifest.
"""
from __future__ import annotations

import importlib.util
from functools import lru_cache
from pathlib import Path

CONTINENTS = ("Africa", "Asia", "Europe", "North America", "South America", "Oceania")
UNKNOWN_CONTINENT = "Other"


def _plain(text: str) -> str:
    return text.replace("\u2019", "'")


def _coco_table():
    import pandas as pd

    spec = importlib.util.find_spec("country_converter")
    if spec is None or spec.origin is None:
        raise ImportError("the package country_converter is needed to build the cache (pip install -e .)")
    tsv = Path(spec.origin).parent / "country_data.tsv"
    return pd.read_csv(tsv, sep="\t", keep_default_na=False, dtype=str, usecols=["ISO2", "ISO3", "Continent_7"])


def _codes(cell: str) -> list[str]:
    """A few cells are patterns of several codes: "^GB$|^UK$", "^GR$|^EL$"; the first is the ISO one."""
    return [c.strip() for c in cell.replace("^", "").replace("$", "").split("|") if c.strip()]


@lru_cache(maxsize=1)
def iso2_by_iso3() -> dict[str, str]:
    """ISO alpha-3 → alpha-2 for every country and territory coco knows."""
    table = _coco_table()
    return {_codes(a3)[0]: _codes(a2)[0] for a2, a3 in zip(table["ISO2"], table["ISO3"]) if _codes(a2) and _codes(a3)}


def iso3_of(iso2: str) -> str | None:
    """ISO alpha-3 of an alpha-2 code (for NCD-RisC's tables), or None."""
    return {a2: a3 for a3, a2 in iso2_by_iso3().items()}.get(iso2.upper())


@lru_cache(maxsize=1)
def _continent_table() -> dict[str, str]:
    table = _coco_table()
    out = {}
    for codes, name in zip(table["ISO2"], table["Continent_7"]):
        for code in _codes(codes):
            if name in CONTINENTS:
                out.setdefault(code, name)
    return out


def continent(code: str) -> str:
    """The continent of a data set code's country (``US-ZCTA`` → ``North America``); ``Other`` if unknown."""
    return _continent_table().get(code.split("-")[0].upper(), UNKNOWN_CONTINENT)


@lru_cache(maxsize=512)
def country_names(iso2: str) -> tuple[str, list[str]]:
    """``(English name, local names)`` of an ISO alpha-2 code; local names exclude the English one.

    An unknown code gives ``(code, [])``.
    """
    from babel import Locale, UnknownLocaleError
    from babel.languages import get_official_languages

    iso2 = iso2.upper()
    english = Locale("en").territories.get(iso2)
    if english is None:
        return iso2, []
    english = _plain(english)
    local: list[str] = []
    for lang in get_official_languages(iso2, de_facto=True):
        try:
            name = Locale.parse(lang).territories.get(iso2)
        except (UnknownLocaleError, ValueError):
            continue
        if name:
            name = _plain(name)
            if name != english and name not in local:
                local.append(name)
    return english, local
