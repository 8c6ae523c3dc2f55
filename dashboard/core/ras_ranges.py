"""Ranges of the real anonymity set (RAS) in which a model's estimates are compared with the truth:
AnonLand (SPEC §4), the NHANES validation and their figures use the same ranges.
"""
from __future__ import annotations

import numpy as np

#: RAS ranges of the summary table, as inclusive ``(lo, hi)``; ``hi`` None = open.
RAS_RANGES: tuple[tuple[int, int | None], ...] = (
    (1, 1), (2, 4), (5, 9), (10, 24), (25, 99), (100, 999), (1000, None),
)


def ras_range_label(lo: int, hi: int | None) -> str:
    """``1``, ``2–4``, ``≥1000``."""
    if hi is None:
        return f"≥{lo}"
    return str(lo) if lo == hi else f"{lo}–{hi}"


def ras_range_masks(ras: np.ndarray):
    """``(lo, hi, mask)`` per RAS range of :data:`RAS_RANGES` (``hi`` None: no upper end)."""
    for lo, hi in RAS_RANGES:
        yield lo, hi, (ras >= lo) & (ras <= (hi if hi is not None else np.inf))
