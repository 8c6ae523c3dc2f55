"""Country tables (SPEC §1.5): per data set and sex, the population, the smallest anonymity sets and where they are.
"""
from __future__ import annotations

import math
from collections.abc import Iterable, Sequence
from pathlib import Path

import numpy as np
import pandas as pd

from census_loaders import cache
from census_loaders.paths import cache_dir

from ..country import CountryModel
from ..errors import InputError
from ..groups import DEFAULT_STUDY, SEXES, format_age_band
from ._cells import root_key, scenario_model
from ._memos import TABLE_MEMO
from ._scenario import check_ages

#: Country tables: a combination "deviates" when it lies more than this far from the mean.
DEVIATION: float = 0.30


def sex_table(values: np.ndarray, district_ids: Sequence[str], district_names: Sequence[str],
              age_labels: Sequence[str]) -> dict:
    """Country-table quantities of one sex from ``values[d, a]`` (CAS = census count; SPEC §1.5).

    * ``min_cas``: smallest non-zero value, with its district and age group;
    * ``cell_mean``: mean over all ``d × a`` combinations (zeros included);
    * ``share_deviating``: share of combinations with ``|v − mean| > 30 % · mean``;
    * quartile trimming by rank: with ``n`` combinations sorted ascending and
      ``q = ⌊n/4⌋``, ``mean_without_top_quartile`` averages the ``n − q`` smallest,
      ``mean_middle_half`` the values of rank ``q … n−q−1``; each also as a
      percentage of ``cell_mean``.
    """
    v = np.asarray(values, dtype=float)
    flat = v.reshape(-1)
    n = flat.size
    out: dict = {"n_cells": n, "population": float(flat.sum())}
    nz = np.flatnonzero(flat > 0)
    if nz.size:
        i = nz[np.argmin(flat[nz])]
        d, a = np.unravel_index(i, v.shape)
        out.update(min_cas=float(flat[i]), min_district_id=str(district_ids[d]),
                   min_district_name=str(district_names[d]), min_age=str(age_labels[a]))
    else:
        out.update(min_cas=math.nan, min_district_id=None, min_district_name=None, min_age=None)
    mean = float(flat.mean()) if n else math.nan
    out["cell_mean"] = mean
    out["share_deviating"] = float(np.mean(np.abs(flat - mean) > DEVIATION * mean)) if n else math.nan
    srt = np.sort(flat)
    q = n // 4
    top = float(srt[: n - q].mean()) if n else math.nan
    mid = float(srt[q: n - q].mean()) if n else math.nan
    pct = (lambda x: 100.0 * x / mean) if mean > 0 else (lambda x: math.nan)
    out.update(mean_without_top_quartile=top, mean_without_top_quartile_pct=pct(top),
               mean_middle_half=mid, mean_middle_half_pct=pct(mid))
    return out


TABLE_COLUMNS = (
    "country", "name", "sex", "ages", "districts", "n_cells", "population", "min_cas", "min_district_id",
    "min_district_name", "min_age", "cell_mean", "male_female_ratio", "share_deviating",
    "mean_without_top_quartile", "mean_without_top_quartile_pct", "mean_middle_half", "mean_middle_half_pct",
)


def country_rows(code: str, ages: Sequence[float] = DEFAULT_STUDY, *, root: Path | None = None) -> tuple[dict, ...]:
    """The two rows (female, male) of one data set's country table (memoised per model and ages)."""
    ages = check_ages(ages)
    # Keyed by the cache's manifest time, not the model: the body model keeps only a
    # few data sets loaded, and a table of all 41 must not reload them every time.
    key = (str(code), ages, root_key(root), _manifest_time(root))
    return TABLE_MEMO.get(key, lambda: _country_rows(scenario_model(code, ages, root)))


def _manifest_time(root: Path | None) -> int:

    try:
        return (Path(root) if root is not None else cache_dir()).joinpath("manifest.json").stat().st_mtime_ns
    except FileNotFoundError:
        return -1


def _country_rows(m: CountryModel) -> tuple[dict, ...]:
    labels = [g.label for g in m.age_groups]
    rows = []
    for s, sex in enumerate(SEXES):
        row = {"country": m.code, "name": m.name, "sex": sex, "ages": format_age_band(*m.study),
               "districts": m.n_districts}
        row.update(sex_table(m.counts[:, s, :], m.district_ids, m.district_names, labels))
        rows.append(row)
    f, ml = rows[0]["cell_mean"], rows[1]["cell_mean"]
    ratio = ml / f if f > 0 else math.nan
    for row in rows:
        row["male_female_ratio"] = ratio
    return tuple(rows)


def country_table(
    codes: Iterable[str] | None = None, ages: Sequence[float] = DEFAULT_STUDY, *, root: Path | None = None
) -> pd.DataFrame:
    """Country tables (district × sex × age only): one row per data set and sex.

    ``codes`` defaults to every data set in the cache; ``ages`` is the study range
    (default 18–75; the published comparisons used 15–85).  The male/female ratio
    is of the cell means and repeats on both rows of a country.
    """
    if codes is None:

        codes = cache.countries(root)
    codes = [str(c).strip().upper() for c in codes]
    if not codes:
        raise InputError("choose at least one country")
    rows = [row for code in codes for row in country_rows(code, ages, root=root)]
    df = pd.DataFrame(rows, columns=list(TABLE_COLUMNS))
    for col in ("country", "name", "sex", "ages", "min_district_id", "min_district_name", "min_age"):
        df[col] = df[col].astype("string")
    return df
