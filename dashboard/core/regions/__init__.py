"""Regions (SPEC §1.5): the explorer's scenarios, district maps, CDFs and country tables.

A :class:`Scenario` is one frozen, hashable choice of countries, ages, bands and auxiliary
knowledge; :func:`district_statistics`, :func:`country_cdf`, :func:`district_cdf`,
:func:`share_below` and :func:`country_table` aggregate the anonymity sets of every cell of it;
:func:`comparable_country_table` regroups ages so countries compare at one grain; its default (every data set,
18–75, 5-year groups) is computed once by the build (:func:`write_country_table`) and read back from the cache.
"""
from ._age_grain import (
    GRAINS,
    comparable_ages,
    comparable_cdfs,
    comparable_country_rows,
    comparable_country_table,
    comparable_model,
    comparable_model_counts,
    comparable_share_below,
    compute_country_table,
    five_year_groups,
    write_country_table,
)
from ._cdfs import DEFAULT_XS, cdf_counts, cdfs, country_cdf, district_cdf, share_at_most, share_below
from ._cells import bind, profile_cells
from ._districts import STAT_COLUMNS, district_detail, district_stat, district_statistics, scenario_notes
from ._memos import clear_caches
from ._scenario import STATS, Scenario, UserPercent, check_ages, format_range, parse_range
from ._stored_table import (
    COUNTRY_TABLE_KEY,
    STORED_TABLE_AGES,
    STORED_TABLE_FILE,
    STORED_TABLE_GRAIN,
    country_table_frame,
    stored_country_rows,
)
from ._tables import TABLE_COLUMNS, country_table, sex_table

__all__ = [
    "COUNTRY_TABLE_KEY",
    "DEFAULT_XS",
    "GRAINS",
    "STATS",
    "STAT_COLUMNS",
    "STORED_TABLE_AGES",
    "STORED_TABLE_FILE",
    "STORED_TABLE_GRAIN",
    "Scenario",
    "TABLE_COLUMNS",
    "UserPercent",
    "bind",
    "cdf_counts",
    "cdfs",
    "check_ages",
    "clear_caches",
    "comparable_ages",
    "comparable_cdfs",
    "comparable_country_rows",
    "comparable_country_table",
    "comparable_model",
    "comparable_model_counts",
    "comparable_share_below",
    "compute_country_table",
    "country_cdf",
    "country_table",
    "country_table_frame",
    "district_cdf",
    "district_detail",
    "district_stat",
    "district_statistics",
    "five_year_groups",
    "format_range",
    "parse_range",
    "profile_cells",
    "scenario_notes",
    "sex_table",
    "share_at_most",
    "share_below",
    "stored_country_rows",
    "write_country_table",
]
