"""Height and weight priors per body group, and how census age groups map onto them (SPEC §1.1).

:class:`BodyPriors` holds the means and standard deviations of a survey's sex × age groups;
:func:`body_group_weights` weights the body groups a census group overlaps by the years each
covers, the nearest body group standing in where the census reaches beyond the survey.
"""
from __future__ import annotations

import itertools
from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np
import pandas as pd

from ..groups import SEXES, AgeGroup, format_age_band, group_span


@dataclass(frozen=True, eq=False)
class BodyPriors:
    """Height and weight normals per sex × body-statistics age group (one row per group).

    ``country`` is whose survey these are; ``borrowed_from`` names the lending
    country when the data set has no statistics of its own (SPEC §1.1).
    """

    sex_index: np.ndarray  # (G,) index into SEXES
    age_lo: np.ndarray  # (G,)
    age_hi: np.ndarray  # (G,) inf = open-ended
    height_mean: np.ndarray
    height_sd: np.ndarray
    weight_mean: np.ndarray
    weight_sd: np.ndarray
    country: str = ""
    borrowed_from: str | None = None
    source: str = ""
    #: The survey asked people (self-reported), rather than measuring them.
    self_reported: bool = False

    @classmethod
    def from_frame(
        cls,
        df: pd.DataFrame,
        country: str | None = None,
        borrowed_from: str | None = None,
        source: str | None = None,
    ) -> BodyPriors:
        """From a table with ``schema.BODY_PRIOR_COLUMNS``; metadata defaults to ``df.attrs``."""
        missing = [c for c in ("sex", "age_from", "age_to", "height_mean", "height_sd", "weight_mean", "weight_sd") if c not in df.columns]
        if missing:
            raise ValueError(f"body priors lack column(s) {missing}")
        attrs = dict(df.attrs or {})
        df = df.sort_values(["sex", "age_from"], kind="mergesort")
        sex = df["sex"].astype(str).to_numpy()
        bad = sorted(set(sex) - set(SEXES))
        if bad:
            raise ValueError(f"body priors have unknown sex {bad[0]!r}")
        if set(sex) != set(SEXES):
            raise ValueError("body priors must cover both sexes")
        num = {c: pd.to_numeric(df[c], errors="coerce").to_numpy(dtype=float) for c in ("age_from", "age_to", "height_mean", "height_sd", "weight_mean", "weight_sd")}
        for c in ("height_mean", "height_sd", "weight_mean", "weight_sd"):
            if not np.all(np.isfinite(num[c]) & (num[c] > 0)):
                raise ValueError(f"body priors: {c} must be positive numbers")
        age_hi = np.where(np.isnan(num["age_to"]), np.inf, num["age_to"])
        return cls(
            sex_index=np.array([SEXES.index(s) for s in sex], dtype=np.int64),
            age_lo=num["age_from"],
            age_hi=age_hi,
            height_mean=num["height_mean"],
            height_sd=num["height_sd"],
            weight_mean=num["weight_mean"],
            weight_sd=num["weight_sd"],
            country=country if country is not None else str(attrs.get("prior_country") or ""),
            borrowed_from=borrowed_from if borrowed_from is not None else attrs.get("borrowed_from"),
            source=source if source is not None else str(attrs.get("source") or ""),
            self_reported=bool("note" in df.columns and df["note"].astype(str).str.contains("self-report", case=False).any()),
        )

    def __len__(self) -> int:
        return len(self.sex_index)

    def label(self, g: int) -> str:
        """``female 65–70``: how a body group is named in notes."""
        return f"{SEXES[self.sex_index[g]]} {format_age_band(self.age_lo[g], self.age_hi[g])}"

    def params(self, kind: str) -> tuple[np.ndarray, np.ndarray]:
        """``(means, sds)`` of ``"height"`` or ``"weight"`` for every group."""
        if kind == "height":
            return self.height_mean, self.height_sd
        if kind == "weight":
            return self.weight_mean, self.weight_sd
        raise ValueError(f"unknown body measurement {kind!r}")


def body_group_weights(
    groups: Sequence[AgeGroup], body: BodyPriors
) -> tuple[np.ndarray, np.ndarray]:
    """Mixture weights ``W[sex, age group, body group]`` and the nearest-group flags.

    Each census group's years are split over the body groups of the same sex that
    cover them (weights = years covered / group years, so a body group spanning
    several census groups is used by each).  Years no body group covers (a census
    75+ when the survey stops at 75) go to the nearest body group, and
    ``nearest[sex, age group]`` is set so the data can say so.
    """
    W = np.zeros((len(SEXES), len(groups), len(body)))
    nearest = np.zeros((len(SEXES), len(groups)), dtype=bool)
    for s in range(len(SEXES)):
        idx = np.flatnonzero(body.sex_index == s)
        blo, bhi = body.age_lo[idx], body.age_hi[idx]
        for a, g in enumerate(groups):
            lo, hi = group_span(g)
            cuts = {lo, hi, *(x for x in np.concatenate([blo, bhi]) if lo < x < hi)}
            cuts = sorted(cuts)
            for x0, x1 in itertools.pairwise(cuts):
                mid = 0.5 * (x0 + x1)
                inside = np.flatnonzero((blo <= mid) & (mid < bhi))
                if inside.size:
                    j = inside[0]
                else:
                    dist = np.maximum(blo - mid, mid - bhi)
                    j = int(np.argmin(dist))
                    nearest[s, a] = True
                W[s, a, idx[j]] += (x1 - x0) / (hi - lo)
    return W, nearest
