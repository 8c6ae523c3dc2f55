"""The world on one map (issue 26): per data set, the explorer's default numbers, computed once at build time.

:func:`write_aggregates` runs inside ``anonset data build`` and writes ``world/aggregates.parquet``;
:func:`world_aggregates` reads it for the world page and ``anonset world``; :func:`map_rows` keeps the one
data set per country the map colours.
"""
from ._aggregates import (
    AGGREGATES_FILE,
    COLUMNS,
    DEFAULT_WORLD_STAT,
    WORLD_STATS,
    check_world_stat,
    compute_aggregates,
    dataset_aggregate,
    default_scenario,
    map_rows,
    world_aggregates,
    write_aggregates,
)

__all__ = [
    "AGGREGATES_FILE",
    "COLUMNS",
    "DEFAULT_WORLD_STAT",
    "WORLD_STATS",
    "check_world_stat",
    "compute_aggregates",
    "dataset_aggregate",
    "default_scenario",
    "map_rows",
    "world_aggregates",
    "write_aggregates",
]
