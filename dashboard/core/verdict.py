"""The plain-language sentences beside a number: one place, so page, CLI and tests agree."""
from __future__ import annotations

from .formatting import format_count


def headline(cas: float) -> str:
    """"573 people share these attributes" (rounded down, thousands separator)."""
    n = format_count(cas)
    if cas < 1:
        return "Fewer than one person is expected to share these attributes"
    if n == "1":
        return "1 person — you — is expected to have these attributes"
    return f"{n} people share these attributes"


def own_headline(others: float) -> str:
    """The personal page's lead (SPEC §1.7): "You and about X others share these attributes".

    ``others`` = ``(N − 1) · p``, the people expected to share the profile besides the
    person, who has it for certain — so the set is never "0 people".
    """
    x = max(float(others), 0.0)
    if x < 0.05:
        return "You alone: fewer than 0.1 others are expected to share these attributes"
    if x < 10:
        return f"You and about {x:.1f} others share these attributes"
    return f"You and about {format_count(x)} others share these attributes"


def verdict(cas: float) -> str:
    """One sentence a person can act on, by the size of the anonymity set."""
    if cas < 1:
        return ("You are likely unique: anyone who links a data set holding these attributes to a "
                "list of names can probably single you out.")
    if cas < 5:
        return (f"Very few people look like you: exact matching would pick you with probability about "
                f"1 in {format_count(cas)}. Consider giving less precise values.")
    if cas < 20:
        return ("A small group: matching narrows you down to a handful of people, which many "
                "re-identification attacks can finish with one more fact.")
    if cas < 100:
        return ("A modest crowd: you are not unique on these attributes, but one or two more facts "
                "(a birth date, a postcode) could change that.")
    return (f"You blend into a crowd of {format_count(cas)}: exact matching on these attributes alone "
            f"would pick you with probability about 1 in {format_count(cas)}.")
