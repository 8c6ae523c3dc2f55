"""Brute-force references for the regional aggregates: the whole grid, materialised (tests, benchmarks).

The explorer's fast paths (:func:`~dashboard.core.regions.district_statistics`,
:func:`~dashboard.core.regions.country_cdf`, …) never build ``cas[d, s, a, h, w]``; these do, so
the tests and ``benchmarks/bench_regions.py`` can check the fast paths against them. Nothing in
the app imports this module.
"""
from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path

import numpy as np
import pandas as pd

from ..country import fraction_array
from ..groups import SEXES
from ._cdfs import cdf_thresholds
from ._cells import aux_table, scenario_model
from ._scenario import Scenario


def reference_grid(scenario: Scenario, code: str, districts: Sequence[int] | None = None, *,
                    root: Path | None = None, per_group: bool = False) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """The materialised grid ``cas[d, s, a, h, w]``, the profile-grid mask and ``N[d, s, a]``.

    The mask is :meth:`~dashboard.core.body.JointBands.profile_mask_by_group`
    for the chosen sexes, ``[s, a, h, w]``, with ``per_group``; otherwise its union
    over all the model's groups, ``[h, w]`` (the cells ``j`` of :class:`ProfileCells`,
    in the same order).  ``cas`` is 0 outside each group's own grid, so
    ``cas[:, :, :, union]`` is ``N · ProfileCells.q``; only ``cas[:, mask]`` with the
    per-group mask holds exactly the combinations.  For tests and the benchmark
    only: it is districts × sexes × ages × heights × weights large.  Without body
    measurements ``h`` and ``w`` have length 1.
    """
    model = scenario_model(code, scenario.ages, root, scenario.model, scenario.self_report)
    sex_idx = np.array([SEXES.index(s) for s in scenario.sexes])
    counts = model.counts
    for item in scenario.aux:
        counts = counts * fraction_array(model, aux_table(model, item)).f
    N = counts[:, sex_idx, :]
    if districts is not None:
        N = N[np.asarray(districts)]
    if scenario.include_body:
        joint = model.joint(scenario.height_width, scenario.weight_width)
        by_group = joint.profile_mask_by_group(scenario.bmi_range)
        union = by_group.any(axis=(0, 1))
        by_group = by_group[sex_idx]
        prob = np.where(by_group, joint.prob[sex_idx], 0.0)
    else:
        prob = np.ones((len(sex_idx), N.shape[2], 1, 1))
        by_group, union = np.ones(prob.shape, dtype=bool), np.ones((1, 1), dtype=bool)
    return N[:, :, :, None, None] * prob[None], (by_group if per_group else union), N


def reference_cdf(scenario: Scenario, code: str, xs=None, districts: Sequence[int] | None = None, *,
                   chunk: int = 256, strict: bool = False, root: Path | None = None) -> tuple[np.ndarray, np.ndarray, float, int]:
    """Brute force: materialise every cell's CAS (``chunk`` districts at a time), keep each
    sex × age group's own cells (the per-group mask), sort, accumulate.

    Returns ``(person share, cell share, people, n_cells)`` over ``xs``.
    """
    xs = cdf_thresholds(xs)
    model = scenario_model(code, scenario.ages, root, scenario.model, scenario.self_report)
    idx = np.arange(model.n_districts) if districts is None else np.asarray(districts)
    people_below = np.zeros(xs.shape)
    combos = np.zeros(xs.shape)
    people, covered, n_cells = 0.0, 0.0, 0
    side = "left" if strict else "right"
    for start in range(0, len(idx), chunk):
        grid, mask, N = reference_grid(scenario, code, idx[start:start + chunk], root=root, per_group=True)
        v = np.sort(grid[:, mask].ravel())
        cs = np.concatenate([[0.0], np.cumsum(v)])
        k = np.searchsorted(v, xs, side=side)
        people_below += cs[k]
        combos += k
        people += float(N.sum())
        covered += float(v.sum())
        n_cells += v.size
    return people_below / covered, combos / n_cells, people, n_cells


def reference_district_statistics(scenario: Scenario, code: str, districts: Sequence[int] | None = None, *,
                                   root: Path | None = None) -> pd.DataFrame:
    """Brute force of :func:`district_statistics`'s numbers and locations.

    Over each sex × age group's own cells only (the per-group mask).  ``min_flat`` /
    ``max_flat`` index the flattened ``(s, a, j)`` with ``j`` the union cells of
    :class:`ProfileCells` (decode with ``divmod(flat, cells.n)``).
    """
    grid, mask, N = reference_grid(scenario, code, districts, root=root, per_group=True)
    D = grid.shape[0]
    if scenario.include_body:  # the union over every group of the model, both sexes: ProfileCells' cells j
        union = scenario_model(code, scenario.ages, root, scenario.model, scenario.self_report).joint(scenario.height_width, scenario.weight_width).profile_mask(
            scenario.bmi_range)
    else:
        union = np.ones((1, 1), dtype=bool)
    v = grid[:, mask]  # (d, every group's own cells) in (s, a, h, w) order
    # where each kept cell sits in (s, a, union cell j) order, to name the location
    S, A = mask.shape[:2]
    j_of_hw = np.cumsum(union.ravel()).reshape(union.shape) - 1
    sa_of, hw_of = np.divmod(np.flatnonzero(mask.reshape(S * A, -1)), union.size)
    flat_of = sa_of * int(union.sum()) + j_of_hw.ravel()[hw_of]
    people = N.reshape(D, -1).sum(axis=1)
    tot = v.sum(axis=1)
    nzv = np.where(v > 0, v, np.inf)
    imin, imax = nzv.argmin(axis=1), v.argmax(axis=1)
    vmin = nzv[np.arange(D), imin]
    with np.errstate(invalid="ignore", divide="ignore"):
        return pd.DataFrame({
            "people": people,
            "plausible_people": tot,
            "n_cells": np.full(D, v.shape[1]),
            "min_cas": np.where(np.isfinite(vmin), vmin, np.nan),
            "min_flat": flat_of[imin],
            "max_cas": v[np.arange(D), imax],
            "max_flat": flat_of[imax],
            "cell_mean": v.mean(axis=1),
            "person_mean": (v * v).sum(axis=1) / tot,
            "share_below": np.where(v < scenario.k, v, 0.0).sum(axis=1) / tot,
        })
