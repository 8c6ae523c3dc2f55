"""The bucket advisor's ladder (SPEC §7): which release granularities exist and how one refines another.

A :class:`Config` is one choice of age groups, height and weight band widths and place level;
:func:`age_blocks` turns an age level into blocks of census groups.  Split from
:mod:`dashboard.core.buckets` (the search) so the ladder reads on its own.
"""
from __future__ import annotations

from dataclasses import dataclass

from ..country import CountryModel

#: Nominal age-group widths in years ("census": the census groups; "withheld": one group).
AGE_LEVELS: tuple = ("census", 5, 10, 15, 20, "withheld")
#: Height (cm) and weight (kg) band widths; ``None`` = withheld (one band).
WIDTHS: tuple = (1, 2, 5, 10, 20, None)
#: Area levels, finest first.
AREAS: tuple[str, ...] = ("district", "district_or_region", "region", "withheld")



@dataclass(frozen=True, order=True)
class Config:
    """One release granularity: ``age`` ∈ :data:`AGE_LEVELS`, widths ∈ :data:`WIDTHS`, ``area`` ∈ :data:`AREAS`."""

    age: object
    height: int | None
    weight: int | None
    area: str

    def key(self) -> tuple:
        return (str(self.age), -1 if self.height is None else self.height, -1 if self.weight is None else self.weight,
                AREAS.index(self.area))


def width_refines(w1, w2) -> bool:
    """Bands of ``w1`` lie inside bands of ``w2`` (both aligned to multiples of their width)."""
    if w2 is None:
        return True
    if w1 is None:
        return False
    return w2 % w1 == 0


def age_blocks(model: CountryModel, level) -> tuple[tuple[int, ...], ...]:
    """The study age groups merged at ``level``: a tuple of blocks of consecutive group indices."""
    groups = model.age_groups
    n = len(groups)
    if level == "census":
        return tuple((a,) for a in range(n))
    if level == "withheld":
        return (tuple(range(n)),)
    width = float(level)
    lo = groups[0].lo
    cuts = [a for a in range(1, n) if abs(groups[a].lo / width - round(groups[a].lo / width)) < 1e-9
            and groups[a].lo - lo >= width / 2 - 1e-9]
    bounds = [0, *cuts, n]
    return tuple(tuple(range(bounds[i], bounds[i + 1])) for i in range(len(bounds) - 1))


def block_bands(model: CountryModel, blocks) -> list[tuple[float, float]]:
    g = model.age_groups
    return [(g[b[0]].lo, g[b[-1]].hi) for b in blocks]


def partition_refines(p1, p2) -> bool:
    where = {a: i for i, b in enumerate(p2) for a in b}
    return all(len({where[a] for a in b}) == 1 for b in p1)
