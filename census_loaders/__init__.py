"""Official census files → one normalised schema → ``data_cache/``.

The read API (what the pages, the CLI and notebooks use)::

    import census_loaders as cl
    cl.countries()            # ['AL', 'AT', ..., 'US', 'US-ZCTA']
    cl.population("DE")       # district_id, district_name, region_id, region_name,
                              # sex, age_from, age_to, count, filled
    cl.body_priors("DE")      # height/weight mean and SD by sex × age group
    cl.boundaries("DE")       # GeoJSON FeatureCollection, feature id = district_id

Nothing in this package imports Dash.
"""
from .cache import (
    NoOwnBodyTable,
    UnknownDataset,
    auxiliary_table,
    auxiliary_tables,
    body_priors,
    boundaries,
    canonical_code,
    closest_codes,
    countries,
    dataset_info,
    fold,
    manifest,
    place_index,
    places_source,
    population,
    world_map,
)
from .checksums import DamagedManifest
from .schema import LoaderError

__all__ = [
    "DamagedManifest",
    "LoaderError",
    "NoOwnBodyTable",
    "UnknownDataset",
    "auxiliary_table",
    "auxiliary_tables",
    "body_priors",
    "boundaries",
    "canonical_code",
    "closest_codes",
    "countries",
    "dataset_info",
    "fold",
    "manifest",
    "place_index",
    "places_source",
    "population",
    "world_map",
]
