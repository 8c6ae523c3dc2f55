"""The world on one map (issue 26): per data set, the explorer's default numbers, computed once at build time.

:func:`write_aggregates` runs inside ``anonset data build`` (a map over data sets, serial or on Dask) and
writes ``world/aggregates.parquet`` and ``world/district_aggregates.parquet``; :func:`world_aggregates` and
:func:`district_aggregates` read them for the world page and ``anonset world``; :func:`map_rows` keeps the one
data set per country the map colours.
"""
from ._aggregates import (
    AGGREGATE_KS,
    AGGREGATE_MODELS,
    AGGREGATES_FILE,
    COLUMNS,
    DEFAULT_WORLD_STAT,
    DISTRICT_AGGREGATES_FILE,
    DISTRICT_COLUMNS,
    SHARE_COLUMNS,
    WORLD_STATS,
    check_world_stat,
    compute_aggregates,
    dataset_aggregate,
    dataset_aggregates,
    default_scenario,
    district_aggregates,
    map_rows,
    share_column,
    world_aggregates,
    write_aggregates,
)

__all__ = [
    "AGGREGATES_FILE",
    "AGGREGATE_KS",
    "AGGREGATE_MODELS",
    "COLUMNS",
    "DEFAULT_WORLD_STAT",
    "DISTRICT_AGGREGATES_FILE",
    "DISTRICT_COLUMNS",
    "SHARE_COLUMNS",
    "WORLD_STATS",
    "check_world_stat",
    "compute_aggregates",
    "dataset_aggregate",
    "dataset_aggregates",
    "default_scenario",
    "district_aggregates",
    "map_rows",
    "share_column",
    "world_aggregates",
    "write_aggregates",
]
