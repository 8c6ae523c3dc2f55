"""The bucket advisor (SPEC §7): the coarsest-but-safe release granularity for an app.

The ladder of granularities (:class:`Config`), the advice per district (:func:`advise`,
:func:`advise_model`) and its words and files (:func:`recommendation_text`, :func:`export_json`,
:func:`export_csv`).
"""
from ._advisor import (
    BITS_TOL,
    COVERAGE_NOTE,
    Advice,
    advice_if_cached,
    advise,
    advise_model,
    borrowed_note,
    check_coverage,
    check_k,
    clear_caches,
    filled_note,
    refines,
)
from ._ladder import AGE_LEVELS, WIDTHS, Config, age_blocks, block_bands, partition_refines, width_refines
from ._report import export_csv, export_json, recommendation_text

__all__ = [
    "AGE_LEVELS",
    "Advice",
    "BITS_TOL",
    "COVERAGE_NOTE",
    "Config",
    "WIDTHS",
    "advice_if_cached",
    "advise",
    "advise_model",
    "age_blocks",
    "block_bands",
    "borrowed_note",
    "check_coverage",
    "check_k",
    "clear_caches",
    "export_csv",
    "export_json",
    "filled_note",
    "partition_refines",
    "recommendation_text",
    "refines",
    "width_refines",
]
