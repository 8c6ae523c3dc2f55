"""Sexes and age groups: the census's axes, and the study population cut from them (SPEC §1.1).

Array axes are always ``[district, sex, age group]`` with sexes in the order of :data:`SEXES`.
:func:`trim_age_groups` trims census age groups to the study range by overlap (an open group
``[a, ∞)`` spans ``[a, 100)``, :func:`open_group_end`); :func:`age_overlap_weights` spreads a
group evenly over its years.
"""
from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np

from .errors import InputError
from .text import gettext

#: Tolerance for snapping ages and band edges to their grid.
_EPS = 1e-9

#: Sexes in array order (axis 1 of every count array).
SEXES: tuple[str, str] = ("female", "male")
#: The default study population: adults aged [18, 75).
DEFAULT_STUDY: tuple[float, float] = (18.0, 75.0)
#: An open-ended census group ``[a, ∞)`` (75+, 85+) is taken to span ``[a, 100)``
#: (or ``[a, a + 5)`` when ``a ≥ 95``) for the overlap rule.  Few people live past
#: 100 and the "spread evenly over the years" assumption is rough there anyway; it
#: only matters when the study range reaches into the open group.
OPEN_GROUP_END: float = 100.0


def open_group_end(lo: float) -> float:
    """Where an open-ended group starting at ``lo`` is assumed to end (see :data:`OPEN_GROUP_END`)."""
    return max(OPEN_GROUP_END, lo + 5.0)


def overlap_years(lo1: float, hi1: float, lo2: float, hi2: float) -> float:
    """Years shared by the half-open bands ``[lo1, hi1)`` and ``[lo2, hi2)`` (inf allowed)."""
    return max(0.0, min(hi1, hi2) - max(lo1, lo2))


def format_age_band(lo: float, hi: float) -> str:
    """``65–75``, ``75+`` (an infinite upper end), whole years without decimals."""
    def num(x: float) -> str:
        return f"{x:g}"

    if not math.isfinite(hi):
        return f"{num(lo)}+"
    return f"{num(lo)}–{num(hi)}"


@dataclass(frozen=True)
class AgeGroup:
    """A census age group as it enters the study population.

    ``lo``/``hi`` are the years inside the study range; ``census_lo``/``census_hi``
    the published group (``census_hi`` is ``inf`` for an open group); ``share`` the
    fraction of the group's people counted (overlap years / group years).
    """

    lo: float
    hi: float
    census_lo: float
    census_hi: float
    share: float

    @property
    def trimmed(self) -> bool:
        return self.share < 1.0 - _EPS

    @property
    def label(self) -> str:
        """``65–75``; a trimmed group names its census group: ``18–20 (of 15–20)``."""
        own = format_age_band(self.lo, self.hi)
        if self.trimmed:
            return f"{own} (of {format_age_band(self.census_lo, self.census_hi)})"
        return format_age_band(self.census_lo, self.census_hi)

    @property
    def shown_label(self) -> str:
        """:attr:`label` as a page shows it, in the current language ("18–20 (von 15–20)"); :attr:`label` stays the
        value forms and addresses carry (English, as the CLI prints it)."""
        if not self.trimmed:
            return self.label
        return gettext("{ages} (of {group})").format(ages=format_age_band(self.lo, self.hi),
                                                     group=format_age_band(self.census_lo, self.census_hi))


def check_study(study: Sequence[float]) -> tuple[float, float]:
    """A study range as ``(lo, hi)`` floats (``hi`` may be inf), or an InputError."""
    try:
        lo, hi = (float(x) for x in study)
    except (TypeError, ValueError):
        raise InputError(f"the study range must be two ages, e.g. 18–75, not {study!r}") from None
    if math.isnan(lo) or math.isnan(hi) or lo < 0 or hi <= lo:
        raise InputError(f"the study range {format_age_band(lo, hi)} is not a valid age band [from, to)")
    return lo, hi


def trim_age_groups(
    census: Sequence[tuple[float, float]], study: Sequence[float] = DEFAULT_STUDY
) -> tuple[np.ndarray, tuple[AgeGroup, ...]]:
    """Apply the study range to census age groups by overlap (SPEC §1.1).

    ``census`` holds ``(age_from, age_to)`` with ``age_to`` NaN or inf for an open
    group.  A group partly inside is trimmed to the overlap and its count is to be
    scaled by ``share`` = overlap years / group years (people spread evenly over the
    years of a group); groups entirely outside are dropped.  Returns the indices of
    the kept census groups and their :class:`AgeGroup` descriptions.
    """
    s_lo, s_hi = check_study(study)
    kept, groups = [], []
    for i, (lo, hi) in enumerate(census):
        lo = float(lo)
        hi = math.inf if hi is None or (isinstance(hi, float) and math.isnan(hi)) else float(hi)
        span_hi = open_group_end(lo) if math.isinf(hi) else hi
        years = overlap_years(lo, span_hi, s_lo, s_hi)
        if years <= _EPS:
            continue
        t_lo, t_hi = max(lo, s_lo), min(span_hi, s_hi)
        share = years / (span_hi - lo)
        if math.isinf(hi) and s_hi >= span_hi:
            t_hi = math.inf  # the whole open group is in the study: keep it open
        kept.append(i)
        groups.append(AgeGroup(t_lo, t_hi, lo, hi, min(1.0, share)))
    if not groups:
        raise InputError(
            f"no census age group lies inside the study range {format_age_band(s_lo, s_hi)}"
        )
    return np.asarray(kept, dtype=np.int64), tuple(groups)


def group_span(group: AgeGroup) -> tuple[float, float]:
    """The finite years an age group stands for (open groups end at :func:`open_group_end`)."""
    hi = open_group_end(group.lo) if math.isinf(group.hi) else group.hi
    return group.lo, hi


def age_overlap_weights(
    groups: Sequence[AgeGroup], bands: Sequence[tuple[float, float]]
) -> np.ndarray:
    """``W[a, t]`` = share of age group ``a``'s years that fall in band ``t``.

    The overlap rule of SPEC §1.1 used for tables keyed by other age bands
    (auxiliary fractions): a census group takes the year-weighted mean of the bands
    it overlaps.  Bands may be open (``hi`` NaN/inf).  Rows need not sum to 1 when
    the bands do not cover every year.
    """
    out = np.zeros((len(groups), len(bands)))
    for a, g in enumerate(groups):
        lo, hi = group_span(g)
        for t, (blo, bhi) in enumerate(bands):
            bhi = math.inf if bhi is None or math.isnan(bhi) else bhi
            out[a, t] = overlap_years(lo, hi, float(blo), float(bhi)) / (hi - lo)
    return out
