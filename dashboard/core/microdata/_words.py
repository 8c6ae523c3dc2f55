"""Numbers inside the data-set sentences, in the current language (English exactly as the CLI always wrote them)."""
from __future__ import annotations

from ..text import format_in_language


def pct(share: float, digits: int = 0) -> str:
    """``share`` as a percentage with ``digits`` decimals: "10%" in English (the CLI's), "10 %" / "10%" the
    language's way elsewhere."""
    return format_in_language(share, f".{digits}%")


def num(x: float, spec: str = ",") -> str:
    """``format(x, spec)`` with the language's decimal mark and grouping ("1,234.5" → "1.234,5")."""
    return format_in_language(x, spec)
