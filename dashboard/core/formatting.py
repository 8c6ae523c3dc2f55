"""Numbers and bands as people read them: whole people rounded down, ``170–175 cm`` (no Dash)."""
from __future__ import annotations

import math

import numpy as np

#: The unit of each body measurement.
UNITS = {"height": "cm", "weight": "kg"}


def format_count(x: float) -> str:
    """Whole people, rounded down, with a thousands separator: ``573``, ``1,234``."""
    try:
        x = float(x)
    except (TypeError, ValueError):
        return "–"
    if not math.isfinite(x):
        return "–"
    return f"{math.floor(max(x, 0.0)):,}"


def format_counts(values) -> np.ndarray:
    """:func:`format_count` of many values at once, as a string array (a map's hover: thousands of districts)."""
    arr = np.asarray(values, dtype=float)
    ok = np.isfinite(arr)
    whole = np.floor(np.maximum(np.where(ok, arr, 0.0), 0.0)).astype(np.int64)
    return np.asarray([f"{w:,}" if good else "–" for w, good in zip(whole.tolist(), ok.tolist())], dtype=str)


def format_band(band: tuple[float, float] | None, kind: str) -> str:
    """``170–175 cm``; ``any`` for a withheld band."""
    if band is None:
        return "any"
    return f"{band[0]:g}–{band[1]:g} {UNITS[kind]}"
