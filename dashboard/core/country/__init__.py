"""The country model (SPEC §1.1): one data set's census counts, study population and body priors.

:class:`CountryModel` binds a census table (district × sex × age group) to the body priors of
:mod:`dashboard.core.body`; :func:`load_country_model` builds it once per data set from the cache.
Beside it: auxiliary knowledge as fractions on the model's grid (:func:`fraction_array`) and the
catalogue of what the cache holds (:func:`dataset_rows`, :func:`country_options`), and the body statistics
a data set uses (:func:`body_statistics`), and the district search over district and place names
(:func:`rank_districts`, :func:`place_rows`).
"""
from ._body_table import body_statistics
from ._catalog import (
    DATASET_DESCRIPTIONS,
    HEADING,
    SOURCE_KINDS,
    census_source,
    closest_note,
    continent_of,
    country_name,
    country_options,
    dataset_rows,
    dataset_title,
    district_label,
    map_datasets,
    search_text,
    source_rows,
    territory_name,
    world_total,
)
from ._fractions import FractionArray, UserAux, fraction_array, preset_array, resolve_aux
from ._model import CountryModel, load_country_model
from ._places import SHOWN, part_of_line, place_rows, rank_districts, search_fold

__all__ = [
    "HEADING",
    "closest_note",
    "continent_of",
    "CountryModel",
    "FractionArray",
    "UserAux",
    "body_statistics",
    "census_source",
    "country_name",
    "country_options",
    "DATASET_DESCRIPTIONS",
    "SOURCE_KINDS",
    "dataset_title",
    "dataset_rows",
    "district_label",
    "fraction_array",
    "load_country_model",
    "map_datasets",
    "part_of_line",
    "place_rows",
    "rank_districts",
    "search_fold",
    "SHOWN",
    "search_text",
    "preset_array",
    "resolve_aux",
    "source_rows",
    "territory_name",
    "world_total",
]
