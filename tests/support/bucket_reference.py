"""The bucket advisor checked the slow way: every released profile materialised (small data sets only)."""
from __future__ import annotations

import numpy as np

from dashboard.core import buckets as bk
from dashboard.core.body_model import DEFAULT_MODEL, CountryModel
from dashboard.core.bucket_config import Config


def reference_evaluate(model: CountryModel, config: Config, k: float, q: float | None = None,
                        body_model: str = DEFAULT_MODEL) -> tuple[float, float]:
    """(bits, coverage) by materialising every released profile; small data sets only."""
    counts = np.asarray(model.counts, dtype=float)
    D = counts.shape[0]
    T = counts.sum()
    p = bk._cell_probs(model, config.height, config.weight, body_model)  # (S, A, J)
    blocks = bk.age_blocks(model, config.age)
    cas_d = np.stack([np.einsum("dsa,saj->dsj", counts[:, :, list(b)], p[:, list(b)]) for b in blocks], axis=2)
    if config.area == "district":
        groups = [[d] for d in range(D)]
    elif config.area == "withheld":
        groups = [list(range(D))]
    else:
        rid = np.asarray(model.region_ids).astype(str)
        if config.area == "region":
            groups = [list(np.flatnonzero(rid == r)) for r in np.unique(rid)]
        else:
            people = counts.sum(axis=(1, 2))
            cov_d = np.array([cas_d[d][cas_d[d] >= k].sum() / people[d] if people[d] > 0 else np.nan for d in range(D)])
            short = np.flatnonzero(cov_d < q)
            groups = [[d] for d in range(D) if d not in set(short)]
            groups += [list(short[rid[short] == r]) for r in np.unique(rid[short])]
    cas = np.concatenate([cas_d[g].sum(axis=0).ravel() for g in groups])
    cov = cas[cas >= k].sum() / T
    P = cas[cas > 0] / T
    return float(-(P * np.log2(P)).sum()), float(cov)
