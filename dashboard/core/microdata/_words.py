"""Numbers inside the data-set sentences, in the current language (English exactly as the CLI always wrote them)."""
from __future__ import annotations

from ..text import DEFAULT_LANGUAGE, current_language, local_number, percent_text


def pct(share: float, digits: int = 0) -> str:
    """``share`` as a percentage with ``digits`` decimals: "10%" in English (the CLI's), "10 %" / "10%" the
    language's way elsewhere."""
    if current_language() == DEFAULT_LANGUAGE:
        return f"{share:.{digits}%}"
    return percent_text(f"{100 * share:.{digits}f}")


def num(x: float, spec: str = ",") -> str:
    """``format(x, spec)`` with the language's decimal mark and grouping ("1,234.5" → "1.234,5")."""
    return local_number(format(x, spec))
