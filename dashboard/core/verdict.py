"""The personal page's two sentences: one place, so the page, the CLI and the tests agree.

The page's JavaScript (``assets/anonset_engine.js`` ``ownHeadline``/``verdict``) says the same
words; ``tests/test_engine_parity.py`` checks it sentence for sentence against these functions.
Both round with ``floor(x + 0.5)`` on the same doubles, so the two faces cannot drift apart.
"""
from __future__ import annotations

import math

from .formatting import format_count


def tenths(x: float) -> str:
    """``2.1``: one decimal, rounded half up (the same operations as the page's JavaScript)."""
    return f"{math.floor(x * 10 + 0.5) / 10:.1f}"


def own_headline(others: float) -> str:
    """The personal page's lead (SPEC §1.7): "You and about X others share these attributes".

    ``others`` = ``(N − 1) · p``, the people expected to share the profile besides the
    person, who has it for certain — so the set is never "0 people".  One decimal below 10.
    """
    x = max(float(others), 0.0)
    if x < 0.95:
        return "You \u2014 and probably nobody else: fewer than one other person is expected to share these attributes"
    if x < 1.05:
        return "You and about 1 other person share these attributes"
    if x < 10:
        return f"You and about {tenths(x)} others share these attributes"
    return f"You and about {format_count(x)} others share these attributes"


def verdict(cas: float, others: float, correctness: float) -> str:
    """One sentence a person can act on, by the size of the anonymity set.

    The chance that exact matching picks the person is Rocher's correctness κ = E[1 / own set]
    (SPEC §2) for a person who has the profile, stated as a percentage in small sets; in a crowd it is about 1 in the
    own set, the number of the headline.
    """
    if cas < 1:
        return ("You are likely unique: anyone who links a data set holding these attributes to a "
                "list of names can probably single you out.")
    if cas < 5:
        return (f"Very few people look like you: exact matching would pick you out with probability about "
                f"{math.floor(100 * correctness + 0.5)} %. Consider giving less precise values.")
    if cas < 20:
        return ("A small group: matching narrows you down to a handful of people, which many "
                "re-identification attacks can finish with one more fact.")
    if cas < 100:
        return ("A modest crowd: you are not unique on these attributes, but one or two more facts "
                "(a birth date, a postcode) could change that.")
    crowd = format_count(1 + max(float(others), 0.0))
    return (f"You blend into a crowd of about {crowd}, you included: exact matching on these attributes alone "
            f"would pick you with probability about 1 in {crowd}.")
