"""People whose age the census did not record, spread over the ages that were recorded.

Kenya ("Not Stated", 682 people), India ("Age not stated", 0.37 %) and Japan (年齢不詳,
2.3 %) publish such people as a row of their own.  AnonSet counts people by age group, and
dropping them would shrink every anonymity set of a district by its unknown share (up to
3.95 % in Tokushima).  So, within each district and sex, they are spread over the age
groups in proportion to the recorded ones:

    count'(d, s, a) = count(d, s, a) × (known(d, s) + unknown(d, s)) / known(d, s)

This keeps each district × sex total equal to the published one, and assumes that the
people of unknown age are aged like the others of their district and sex (Statistics
Japan's own imputed series, 不詳補完値, allocates them by a finer model that is not
published at this grain in our files).  Counts become fractional estimates.
"""
from __future__ import annotations

import numpy as np
import pandas as pd

KEYS = ["district_id", "sex"]


def spread_unknown_age(known: pd.DataFrame, unknown: pd.DataFrame) -> tuple[pd.DataFrame, pd.DataFrame]:
    """``known`` rows (with ``district_id``, ``sex``, ``count``) scaled up by ``unknown`` (same keys, ``count``).

    Returns ``(spread, not_spread)``: the known rows with their new ``count``, and the
    (district, sex, count) of unknown-age people who could not be spread because nobody of
    that district and sex has a recorded age (the caller reports them; they are left out).
    """
    extra = unknown.groupby(KEYS, as_index=False)["count"].sum().rename(columns={"count": "unknown"})
    base = known.groupby(KEYS, as_index=False)["count"].sum().rename(columns={"count": "known"})
    factors = base.merge(extra, on=KEYS, how="outer").fillna({"known": 0.0, "unknown": 0.0})
    stuck = factors[(factors["known"] <= 0) & (factors["unknown"] > 0)]
    ok = factors["known"] > 0
    factors["factor"] = np.where(ok, (factors["known"] + factors["unknown"]) / factors["known"].where(ok, 1.0), 1.0)
    out = known.merge(factors[KEYS + ["factor"]], on=KEYS, how="left", validate="many_to_one")
    out["count"] = out["count"] * out["factor"].fillna(1.0)
    out = out.drop(columns="factor")
    out.index = known.index
    return out, stuck[KEYS + ["unknown"]].rename(columns={"unknown": "count"}).reset_index(drop=True)
