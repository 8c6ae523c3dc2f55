"""The bucket advisor checked the slow way: every released profile materialised (small data sets only).

The expensive part, each person's CAS in every released cell of a (height, weight, age) release, does not depend
on the area, k or q: :func:`reference_evaluate_many` computes it once per (height, weight, age) for every area and
several targets (k, q) together, and the pooled CAS and entropy once per grouping of the districts.
"""
from __future__ import annotations

from collections.abc import Iterable

import numpy as np

from dashboard.core.body import DEFAULT_MODEL
from dashboard.core.buckets import Config, age_blocks
from dashboard.core.buckets._advisor import _cell_probs
from dashboard.core.country import CountryModel


def _released_cas(model: CountryModel, config: Config, body_model: str) -> np.ndarray:
    """``[d, s, block, cell]``: the CAS of every released profile of ``config`` (area aside)."""
    counts = np.asarray(model.counts, dtype=float)
    p = _cell_probs(model, config.height, config.weight, body_model)  # (S, A, J)
    blocks = age_blocks(model, config.age)
    return np.stack([np.einsum("dsa,saj->dsj", counts[:, :, list(b)], p[:, list(b)]) for b in blocks], axis=2)


def _groups(model: CountryModel, config: Config, cas_d: np.ndarray, k: float, q: float | None) -> list[list[int]]:
    counts = np.asarray(model.counts, dtype=float)
    D = counts.shape[0]
    if config.area == "district":
        return [[d] for d in range(D)]
    if config.area == "withheld":
        return [list(range(D))]
    rid = np.asarray(model.region_ids).astype(str)
    if config.area == "region":
        return [list(np.flatnonzero(rid == r)) for r in np.unique(rid)]
    people = counts.sum(axis=(1, 2))
    cov_d = np.array([cas_d[d][cas_d[d] >= k].sum() / people[d] if people[d] > 0 else np.nan for d in range(D)])
    short = np.flatnonzero(cov_d < q)
    groups = [[d] for d in range(D) if d not in set(short)]
    groups += [list(short[rid[short] == r]) for r in np.unique(rid[short])]
    return groups


def _evaluate(model, config, cas_d, targets, T) -> dict[tuple, tuple[float, float]]:
    out, pooled = {}, {}
    for k, q in targets:
        groups = _groups(model, config, cas_d, k, q)
        key = tuple(tuple(int(d) for d in g) for g in groups)
        if key not in pooled:
            cas = np.concatenate([cas_d[g].sum(axis=0).ravel() for g in groups])
            P = cas[cas > 0] / T
            pooled[key] = (cas, float(-(P * np.log2(P)).sum()))
        cas, bits = pooled[key]
        out[(k, q)] = (bits, float(cas[cas >= k].sum() / T))
    return out


def reference_evaluate(model: CountryModel, config: Config, k: float, q: float | None = None,
                        body_model: str = DEFAULT_MODEL) -> tuple[float, float]:
    """(bits, coverage) by materialising every released profile; small data sets only."""
    T = np.asarray(model.counts, dtype=float).sum()
    return _evaluate(model, config, _released_cas(model, config, body_model), [(k, q)], T)[(k, q)]


def reference_evaluate_many(model: CountryModel, configs: Iterable[Config], targets: Iterable[tuple[float, float]],
                            body_model: str = DEFAULT_MODEL) -> dict[tuple, dict[Config, tuple[float, float]]]:
    """``{(k, q): {config: (bits, coverage)}}``, as :func:`reference_evaluate` gives them, with each configuration's
    released profiles materialised once for all the targets."""
    targets = list(targets)
    T = np.asarray(model.counts, dtype=float).sum()
    out: dict[tuple, dict[Config, tuple[float, float]]] = {t: {} for t in targets}
    # one (height, weight) after the other: the model keeps only a few cell grids in memory; the released profiles
    # do not depend on the area, so the configurations differing only in their area share one materialisation
    released, cas_d = None, None
    for config in sorted(set(configs), key=lambda c: (str(c.height), str(c.weight), str(c.age), str(c.area))):
        if (config.height, config.weight, config.age) != released:
            released = (config.height, config.weight, config.age)
            cas_d = _released_cas(model, config, body_model)
        for t, value in _evaluate(model, config, cas_d, targets, T).items():
            out[t][config] = value
    return out
