"""Regions (SPEC §1.5): the explorer's scenarios, district maps, CDFs and country tables.

A :class:`Scenario` is one frozen, hashable choice of countries, ages, bands and auxiliary
knowledge; :func:`district_statistics`, :func:`country_cdf`, :func:`district_cdf`,
:func:`share_below` and :func:`country_table` aggregate the anonymity sets of every cell of it;
:func:`comparable_country_table` regroups ages so countries compare at one grain.
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
    five_year_groups,
)
from ._aggregates import (
    STAT_COLUMNS,
    bind,
    cdf_counts,
    cdfs,
    country_cdf,
    country_table,
    district_detail,
    district_stat,
    district_statistics,
    profile_cells,
    scenario_notes,
    share_at_most,
    share_below,
)
from ._scenario import STATS, Scenario, UserPercent, check_ages, format_range, parse_range

__all__ = [
    "GRAINS",
    "STATS",
    "STAT_COLUMNS",
    "Scenario",
    "UserPercent",
    "bind",
    "cdf_counts",
    "cdfs",
    "check_ages",
    "comparable_ages",
    "comparable_cdfs",
    "comparable_country_rows",
    "comparable_country_table",
    "comparable_model",
    "comparable_model_counts",
    "comparable_share_below",
    "country_cdf",
    "country_table",
    "district_detail",
    "district_stat",
    "district_statistics",
    "five_year_groups",
    "format_range",
    "parse_range",
    "profile_cells",
    "scenario_notes",
    "share_at_most",
    "share_below",
]
