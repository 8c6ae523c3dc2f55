"""One age grain for comparing countries: census ages regrouped into whole 5-year groups (no Dash).

Most data sets publish 5-year age groups; the United Kingdom publishes single years.  A cell
of one year holds about a fifth of the people of a 5-year cell, so UK cell means, minima and
shares are not comparable with Germany's (1,177 against 6,835).  And a study range such as
18–75 trims the census group 15–20 to its years 18–20, whose cells hold 3/5 of a group's
people (the "18–20 (of 15–20)" minimum of 0.8 people).

:func:`five_year_groups` regroups any ages into 5-year groups aligned on multiples of 5 and
:func:`comparable_ages` narrows a study range to the whole 5-year groups inside it, so every
data set is compared on the same cells: district × sex × whole 5-year group.
"""
from __future__ import annotations

import dataclasses
import functools
import math
import time
from collections.abc import Callable, Sequence
from pathlib import Path

import numpy as np
import pandas as pd

from census_loaders import cache

from ..body import DEFAULT_MODEL
from ..country import load_country_model
from ..errors import InputError
from ..groups import format_age_band
from ..memo import Memo
from ._cdfs import country_cdf, model_cdf
from ._stored_table import (
    STORED_TABLE_AGES,
    STORED_TABLE_FILE,
    STORED_TABLE_GRAIN,
    country_table_frame,
    stored_country_rows,
)
from ._tables import country_table, sex_table

#: The grain countries are compared on.
GRAIN = 5.0
#: The two grains the country tables offer: 5-year groups (comparable, the default) or each data set's own.
GRAINS = ("5", "census")
_EPS = 1e-9


def comparable_ages(ages: Sequence[float]) -> tuple[float, float]:
    """The whole 5-year groups inside a study range: 18–75 → 20–75, 15–85 → 15–85, 18+ → 20+.

    Raises InputError when the range holds no whole 5-year group (e.g. 18–22).
    """
    lo, hi = float(ages[0]), float(ages[1])
    lo5 = math.ceil(lo / GRAIN - _EPS) * GRAIN
    hi5 = hi if math.isinf(hi) else math.floor(hi / GRAIN + _EPS) * GRAIN
    if hi5 - lo5 < GRAIN - _EPS:
        raise InputError(f"ages {format_age_band(lo, hi)} hold no whole 5-year age group: give e.g. 20-75")
    return lo5, hi5


def five_year_groups(counts: np.ndarray, bounds: Sequence[tuple[float, float]]) -> tuple[np.ndarray, list[tuple[float, float]]]:
    """Counts over age groups (last axis, group ``a`` covering ``bounds[a] = [lo, hi)``) summed into 5-year groups.

    A group that lies inside one 5-year group (a single year, or a 5-year group itself) is
    added to it; a wider group (an open ``85+``, a 10-year group) stays as it is.  Returns
    the new counts (same leading axes) and their bounds, in age order.  Totals are kept.
    """
    counts = np.asarray(counts, dtype=float)
    if counts.shape[-1] != len(bounds):
        raise ValueError(f"{counts.shape[-1]} age groups in the counts, {len(bounds)} bounds")
    target: list[tuple[float, float]] = []
    index = []
    for lo, hi in bounds:
        lo, hi = float(lo), float(hi)
        start = math.floor(lo / GRAIN + _EPS) * GRAIN
        if hi <= start + GRAIN + _EPS:
            key = (start, start + GRAIN)
        else:
            key = (lo, hi)
        if key not in target:
            target.append(key)
        index.append(target.index(key))
    order = sorted(range(len(target)), key=lambda i: target[i])
    rank = {old: new for new, old in enumerate(order)}
    out = np.zeros(counts.shape[:-1] + (len(target),))
    for a, t in enumerate(index):
        out[..., rank[t]] += counts[..., a]
    return out, [target[i] for i in order]


def comparable_model_counts(code: str, ages: Sequence[float], *, root: Path | None = None):
    """A data set's counts ``[district, sex, group]`` over the whole 5-year groups inside ``ages``, and the groups' labels.

    Single-year data (the UK) are summed into 5-year groups; a data set whose groups are
    wider keeps them.  The model is :func:`load_country_model`'s, restricted to
    :func:`comparable_ages`, so no group is trimmed.
    """
    study = comparable_ages(ages)
    try:
        m = load_country_model(code, study, root=root)
    except KeyError as exc:
        raise InputError(exc.args[0] if exc.args else f"unknown country or data set {code!r}") from None
    bounds = [(g.lo, g.hi) for g in m.age_groups]
    counts, groups = five_year_groups(m.counts, bounds)
    return m, counts, [format_age_band(lo, hi) for lo, hi in groups]


def comparable_model(code: str, ages: Sequence[float], model: str = DEFAULT_MODEL, *, root: Path | None = None,
                     self_report: bool = False):
    """A data set's model on the comparable grain: its census groups summed into 5-year groups (the UK's single
    years; 5-year and wider groups stay), restricted to the whole 5-year groups inside ``ages`` (memoised).

    Every aggregate of :mod:`.aggregates` then treats the data set as if it published 5-year groups, so
    countries are compared cell for cell.  A data set already on 5-year groups gives its usual model.
    """
    study = comparable_ages(ages)
    try:
        base = load_country_model(code, study, root=root, model=model, self_report_correction=self_report)
    except KeyError as exc:
        raise InputError(exc.args[0] if exc.args else f"unknown country or data set {code!r}") from None
    key = (base, str(model), bool(self_report))
    return _MODELS.get(key, lambda: _regrouped(base, study))


def _regrouped(base, study):

    counts, groups = five_year_groups(base.census_counts, base.census_groups)
    if [tuple(g) for g in groups] == [tuple(map(float, g)) for g in base.census_groups]:
        return base
    counts.setflags(write=False)
    grouped = dataclasses.replace(base, census_groups=tuple(groups), census_counts=counts, _family={})
    return grouped._restricted(study)


def comparable_cdfs(scenario, grain: str = "5", xs=None, *, strict: bool = False, root: Path | None = None) -> dict:
    """:func:`.aggregates.cdfs` of every country of ``scenario`` on ``grain``: ``"5"`` (every data set on whole
    5-year groups inside the scenario's ages, see :func:`comparable_model`) or ``"census"`` (each its own)."""

    if grain not in GRAINS:
        raise InputError(f"age grain {grain!r}: choose 5 (whole 5-year groups) or census (each data set's own)")
    if grain == "census":
        return {c: country_cdf(scenario, c, xs, strict=strict, root=root) for c in scenario.countries}
    return {c: model_cdf(scenario, comparable_model(c, scenario.ages, scenario.model, root=root,
                                                       self_report=scenario.self_report), xs, strict=strict)
            for c in scenario.countries}


def comparable_share_below(scenario, ks, grain: str = "5", *, root: Path | None = None) -> dict[str, dict[float, float]]:
    """Per country, the share of people with CAS **< k** on ``grain`` (the readouts beside the CDFs)."""
    ks = [float(k) for k in ks]
    return {c: {k: float(p) for k, p in zip(ks, cdf.person)}
            for c, cdf in comparable_cdfs(scenario, grain, ks, strict=True, root=root).items()}


def comparable_country_rows(code: str, ages: Sequence[float], *, root: Path | None = None) -> tuple[dict, ...]:
    """The two rows (female, male) of a data set's country table on the comparable grain (see module doc)."""

    m, counts, labels = comparable_model_counts(code, ages, root=root)
    study = comparable_ages(ages)
    rows = []
    for s, sex in enumerate(("female", "male")):
        row = {"country": m.code, "name": m.name, "sex": sex, "ages": format_age_band(*study),
               "districts": m.n_districts}
        row.update(sex_table(counts[:, s, :], m.district_ids, m.district_names, labels))
        rows.append(row)
    f, ml = rows[0]["cell_mean"], rows[1]["cell_mean"]
    for row in rows:
        row["male_female_ratio"] = ml / f if f > 0 else math.nan
    return tuple(rows)


def comparable_country_table(codes=None, ages: Sequence[float] = (18.0, 75.0), grain: str = "5", *, root: Path | None = None):
    """The country tables on ``grain``: ``"5"`` (whole 5-year groups, comparable; see the module doc) or
    ``"census"`` (each data set's own groups, :func:`.aggregates.country_table`)."""


    if grain not in GRAINS:
        raise InputError(f"age grain {grain!r}: choose 5 (whole 5-year groups) or census (each data set's own)")
    if grain == "census":
        return country_table(codes, ages, root=root)
    if codes is None:

        codes = cache.countries(root)
    codes = [str(c).strip().upper() for c in codes]
    if not codes:
        raise InputError("choose at least one country")
    ages = tuple(float(a) for a in ages)
    stored = stored_country_rows(root) if ages == STORED_TABLE_AGES else None
    rows = [row for code in codes for row in _memo_rows(code, ages, root, stored)]
    return country_table_frame(rows)


def _memo_rows(code: str, ages: tuple[float, float], root: Path | None, stored: dict | None) -> tuple[dict, ...]:
    if stored is not None and code in stored:  # the default range: the rows the build computed
        return stored[code]
    key = (code, ages, None if root is None else str(root))
    return _ROWS.get(key, lambda: comparable_country_rows(code, ages, root=root))


def _serial_map(fn: Callable, items: list) -> list:
    return [fn(item) for item in items]


def compute_country_table(root: Path | None = None, log: Callable[[str], None] = lambda msg: None, *,
                          mapper: Callable[[Callable, list], list] = _serial_map,
                          codes: Sequence[str] | None = None) -> pd.DataFrame:
    """The default country table (:data:`STORED_TABLE_AGES`, grain 5) of every data set in the cache at ``root``
    (or of ``codes``), computed afresh (never read back from a stored copy): what the build stores.
    ``mapper(fn, items)`` runs the per-data-set work in order (``dask.distributed`` in ``anonset data build``);
    any mapper gives the same table."""
    started = time.perf_counter()
    codes = list(cache.countries(root) if codes is None else codes)
    per_code = mapper(functools.partial(comparable_country_rows, ages=STORED_TABLE_AGES, root=root), codes)
    rows = [row for rows_of_code in per_code for row in rows_of_code]
    log(f"  country table: {len(codes)} data sets in {time.perf_counter() - started:.1f} s")
    return country_table_frame(rows)


def write_country_table(root: Path, log: Callable[[str], None] = lambda msg: None, *,
                        mapper: Callable[[Callable, list], list] = _serial_map) -> dict:
    """Compute the default country table of the cache at ``root`` (through ``mapper``) and write it there; return
    its manifest entry (the build files it under :data:`.COUNTRY_TABLE_KEY`)."""
    df = compute_country_table(root, log, mapper=mapper)
    path = Path(root) / STORED_TABLE_FILE
    path.parent.mkdir(parents=True, exist_ok=True)
    df.to_parquet(path, index=False)
    return {"file": STORED_TABLE_FILE, "rows": int(len(df)), "ages": format_age_band(*STORED_TABLE_AGES),
            "grain": STORED_TABLE_GRAIN,
            "note": "computed by `anonset data build`: the explorer's default country table (every data set, "
                    "district × sex × whole 5-year age groups)"}


_ROWS = Memo(1024, name="core.age_grain.rows")  # a few age ranges × every data set (~230)
_MODELS = Memo(64, name="core.age_grain.models")
