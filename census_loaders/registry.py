"""Which source serves which country.

Each entry names a loader module (exposing ``load(folder: Path) -> list[CountryData]``)
and its folder under the raw data root.  Order is precedence: when two loaders
produce the same data set code, the first one wins (national statistics offices
before Eurostat).  Adding a country = one loader module + one line here.
"""
from __future__ import annotations

import importlib
from dataclasses import dataclass


@dataclass(frozen=True)
class LoaderEntry:
    module: str  # e.g. "census_loaders.destatis"
    folder: str  # folder under the raw root, e.g. "de"

    def load(self, raw_root):
        return importlib.import_module(self.module).load(raw_root / self.folder)


POPULATION_LOADERS: list[LoaderEntry] = [
    LoaderEntry("census_loaders.destatis", "de"),
    LoaderEntry("census_loaders.us_pep", "us"),
    LoaderEntry("census_loaders.acs", "us/acs"),
    LoaderEntry("census_loaders.ons", "uk"),
    LoaderEntry("census_loaders.abs", "au"),
    LoaderEntry("census_loaders.istat", "it"),  # IT-COM, beside Eurostat's IT (107 provinces)
    LoaderEntry("census_loaders.hcp", "ma"),
    LoaderEntry("census_loaders.kosis", "kr"),
    LoaderEntry("census_loaders.statsnz", "nz"),
    LoaderEntry("census_loaders.knbs", "ke"),  # KE (counties, map) and KE-SUB (sub-counties)
    LoaderEntry("census_loaders.ibge", "br"),
    LoaderEntry("census_loaders.ine_cl", "cl"),
    LoaderEntry("census_loaders.censusindia", "in"),
    LoaderEntry("census_loaders.estat_jp", "jp"),
    LoaderEntry("census_loaders.eurostat", "eu"),
    # last: a national UN model estimate for every country that no loader above covers
    # (CountryData.national_model; the build drops it where any data set of the country exists)
    LoaderEntry("census_loaders.wpp", "world"),
]

#: The national model (``population_at(folder, year)``) every census data set's total is checked against.
NATIONAL_MODEL = LoaderEntry("census_loaders.wpp", "world")
#: The world map: ``load(folder) -> (GeoDataFrame district_id=ISO alpha-2, names, SourceFile)``.
WORLD_MAP = LoaderEntry("census_loaders.naturalearth", "world")

#: Record-level data sets (``load(folder) -> list[MicroData]``), cached under ``microdata/``.
MICRODATA_LOADERS: list[LoaderEntry] = [
    LoaderEntry("census_loaders.nhanes", "us"),
    LoaderEntry("census_loaders.movielens", "sparse"),
    LoaderEntry("census_loaders.adult", "microdata/adult"),
]

#: Body-measurement priors: ``load(raw_root) -> dict[country, (DataFrame, list[SourceFile])]``: the countries
#: with a table of their own (DE, US).  Every other country gets its NCD-RisC prior (no borrowing, issue 27).
BODY_PRIORS_MODULE = "census_loaders.body"
#: Auxiliary knowledge: ``load(raw_root) -> list[FractionTable]``.
AUXILIARY_MODULE = "census_loaders.auxiliary"
