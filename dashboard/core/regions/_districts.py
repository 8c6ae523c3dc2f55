"""Per-district statistics of the anonymity set: the explorer's map values, a district's detail, and the notes a scenario needs (SPEC §1.5).
"""
from __future__ import annotations

import math
from dataclasses import dataclass
from pathlib import Path

import numpy as np
import pandas as pd

from .. import text as formatting
from ..errors import InputError
from ..groups import format_age_band
from ..text import gettext as _
from ._cdfs import country_cdf
from ._cells import Bound, bind
from ._memos import STATS_MEMO
from ._scenario import Scenario

STAT_COLUMNS: dict[str, str] = {
    "person_mean": "person_mean", "cell_mean": "cell_mean", "min": "min_cas", "max": "max_cas",
    "share_below": "share_below",
}


def district_statistics(scenario: Scenario, code: str, *, root: Path | None = None) -> pd.DataFrame:
    """Per-district statistics of the profile grid, one row per district (memoised; a fresh copy).

    Columns: ``country, district_id, district_name, region_id, region_name, filled``;
    ``population`` (study population of the chosen sexes and ages), ``people``
    (with auxiliary fractions), ``plausible_people`` (``Σ CAS`` over the profile
    grid), ``n_cells`` (combinations: ``Σ_{s, a}`` of each sex × age group's own
    cell count, the same in every district); every statistic is over those cells
    only — a cell outside a group's grid (implausible, or beyond ±4 SD of its body
    groups) is never a minimum, maximum or combination.  ``min_cas`` (smallest
    non-zero CAS, NaN if none) at
    ``min_sex, min_age, min_height, min_weight``; ``max_cas`` at ``max_*``;
    ``cell_mean`` (``Σ CAS / n_cells``); ``person_mean`` (``Σ CAS² / Σ CAS``);
    ``share_below`` (people with CAS < ``scenario.k`` / the people the model covers,
    ``plausible_people``; SPEC §1.8).  Heights and
    weights are ``None`` without body measurements.  Vectorised over districts.
    """
    b = bind(scenario, code, root=root)
    key = (b.model, scenario.profile_key, scenario.k)
    return STATS_MEMO.get(key, lambda: _district_statistics(b, scenario.k)).copy()


def _location_labels(b: Bound) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    """Sex and age label per flattened ``(s, a)``; height and weight label per cell."""
    S, A = b.N.shape[1:]
    sex = np.repeat(np.array(b.sexes, dtype=object), A)
    age = np.tile(np.array([g.label for g in b.model.age_groups], dtype=object), S)
    return sex, age, b.cells.band_labels("height"), b.cells.band_labels("weight")


def _district_statistics(b: Bound, k: float) -> pd.DataFrame:
    m, N, c = b.model, b.N, b.cells
    D, S, A = N.shape
    people = N.sum(axis=(1, 2))
    plausible = (N * c.Q1[None]).sum(axis=(1, 2))
    with np.errstate(invalid="ignore", divide="ignore"):
        person_mean = np.where(plausible > 0, (N * N * c.Q2[None]).sum(axis=(1, 2)) / plausible, np.nan)
    n_cells = int(c.n_valid.sum())
    sa_min_q = np.where(c.min_j >= 0, np.take_along_axis(c.q, np.maximum(c.min_j, 0)[..., None], 2)[..., 0], np.inf)
    sa_max_q = np.where(c.max_j >= 0, np.take_along_axis(c.q, np.maximum(c.max_j, 0)[..., None], 2)[..., 0], 0.0)
    flat = N.reshape(D, S * A)
    cand = np.where(flat > 0, flat * sa_min_q.reshape(-1)[None], np.inf)
    imin = cand.argmin(axis=1)
    vmin = cand[np.arange(D), imin]
    has_min = np.isfinite(vmin)
    cand = flat * sa_max_q.reshape(-1)[None]
    imax = cand.argmax(axis=1)
    vmax = cand[np.arange(D), imax]
    has_max = vmax > 0

    below = np.zeros(D)
    with np.errstate(divide="ignore"):
        for s in range(S):
            for a in range(A):
                n = N[:, s, a]
                idx = np.searchsorted(c.sorted_q[s, a], k / n, side="left")
                below += n * c.cum[s, a][idx]
    with np.errstate(invalid="ignore", divide="ignore"):  # of the people the model covers (SPEC §1.8)
        share = np.where(plausible > 0, below / np.where(plausible > 0, plausible, 1.0), np.nan)

    sex, age, hl, wl = _location_labels(b)
    jmin = c.min_j.reshape(-1)[imin]
    jmax = c.max_j.reshape(-1)[imax]

    def where(ok, values):
        return pd.array(np.where(ok, values, None), dtype="string")

    df = pd.DataFrame({
        "country": pd.array([m.code] * D, dtype="string"),
        "district_id": pd.array(m.district_ids.astype(str), dtype="string"),
        "district_name": pd.array(m.district_names.astype(str), dtype="string"),
        "region_id": pd.array(m.region_ids.astype(str), dtype="string"),
        "region_name": pd.array(m.region_names.astype(str), dtype="string"),
        "filled": np.asarray(m.filled, dtype=bool),
        "population": b.population.sum(axis=(1, 2)),
        "people": people,
        "plausible_people": plausible,
        "n_cells": np.full(D, n_cells, dtype=np.int64),
        "min_cas": np.where(has_min, vmin, np.nan),
        "min_sex": where(has_min, sex[imin]),
        "min_age": where(has_min, age[imin]),
        "min_height": where(has_min, hl[np.maximum(jmin, 0)]),
        "min_weight": where(has_min, wl[np.maximum(jmin, 0)]),
        "max_cas": vmax,
        "max_sex": where(has_max, sex[imax]),
        "max_age": where(has_max, age[imax]),
        "max_height": where(has_max, hl[np.maximum(jmax, 0)]),
        "max_weight": where(has_max, wl[np.maximum(jmax, 0)]),
        "cell_mean": plausible / n_cells if n_cells else np.full(D, np.nan),
        "person_mean": person_mean,
        "share_below": share,
    })
    df.attrs.update(country=m.code, k=float(k), study=m.study, include_body=b.scenario.include_body)
    return df


def district_stat(scenario: Scenario, code: str, stat: str | None = None, *, root: Path | None = None) -> pd.Series:
    """One statistic per district (what the map colours), indexed by district_id."""
    stat = stat or scenario.stat
    if stat not in STAT_COLUMNS:
        raise InputError(f"unknown statistic {stat!r}; choose one of {', '.join(STAT_COLUMNS)}")
    df = district_statistics(scenario, code, root=root)
    return pd.Series(df[STAT_COLUMNS[stat]].to_numpy(), index=pd.Index(df["district_id"], name="district_id"), name=stat)




@dataclass(frozen=True, eq=False)
class DistrictDetail:
    """What the explorer shows for a clicked district.

    ``stats`` is its row of :func:`district_statistics`; ``distribution`` has one
    row per sex × age group (``population``, ``people``, ``plausible_people``,
    ``share`` of the district's people); ``smallest`` / ``largest`` list its
    smallest non-zero and largest cells with their attribute values and CAS.
    """

    country: str
    district_id: str
    district_name: str
    region_name: str
    filled: bool
    stats: dict
    distribution: pd.DataFrame
    smallest: pd.DataFrame
    largest: pd.DataFrame

    def to_dict(self) -> dict:
        def recs(df):
            return [{k: (None if (isinstance(v, float) and math.isnan(v)) or v is pd.NA else v) for k, v in r.items()}
                    for r in df.to_dict("records")]

        return {
            "country": self.country, "district_id": self.district_id, "district_name": self.district_name,
            "region_name": self.region_name, "filled": self.filled,
            "stats": {k: (None if v is pd.NA else v) for k, v in self.stats.items()},
            "distribution": recs(self.distribution), "smallest": recs(self.smallest), "largest": recs(self.largest),
        }


def district_detail(
    scenario: Scenario, code: str, district: str, n: int = 5, *, root: Path | None = None
) -> DistrictDetail:
    """Sex × age distribution and the ``n`` smallest and largest cells of one district."""
    if int(n) < 1:
        raise InputError("ask for at least one cell")
    b = bind(scenario, code, root=root)
    m = b.model
    d = m.district_index(district)
    sex, age, hl, wl = _location_labels(b)
    pop, Nd = b.population[d].reshape(-1), b.N[d].reshape(-1)
    plaus = (b.N[d] * b.cells.Q1).reshape(-1)
    total = Nd.sum()
    distribution = pd.DataFrame({
        "sex": pd.array(sex, dtype="string"), "age": pd.array(age, dtype="string"),
        "population": pop, "people": Nd, "plausible_people": plaus,
        "share": Nd / total if total > 0 else np.full(Nd.shape, np.nan),
    })
    grid = b.N[d][:, :, None] * b.cells.q  # one district: S × A × J, small; 0 outside a group's grid
    flat = grid.reshape(-1)
    own = b.cells.valid.reshape(-1)  # only a group's own cells are its combinations
    J = b.cells.n
    sa, j = np.divmod(np.arange(flat.size), J)

    def cells_frame(idx):
        return pd.DataFrame({
            "sex": pd.array(sex[sa[idx]], dtype="string"), "age": pd.array(age[sa[idx]], dtype="string"),
            "height": pd.array(hl[j[idx]], dtype="string"), "weight": pd.array(wl[j[idx]], dtype="string"),
            "cas": flat[idx],
        })

    nz = np.flatnonzero((flat > 0) & own)
    smallest = nz[np.argsort(flat[nz], kind="stable")[: int(n)]]
    largest = nz[np.argsort(-flat[nz], kind="stable")[: int(n)]]
    stats = district_statistics(scenario, code, root=root).iloc[d].to_dict()
    stats = {k: (v.item() if isinstance(v, np.generic) else v) for k, v in stats.items()}
    return DistrictDetail(
        m.code, str(m.district_ids[d]), str(m.district_names[d]), str(m.region_names[d]), bool(m.filled[d]),
        stats, distribution, cells_frame(smallest), cells_frame(largest),
    )




def scenario_notes(scenario: Scenario, code: str, *, root: Path | None = None) -> tuple[str, ...]:
    """What the explorer must say beside a country's numbers (borrowed statistics, fills, gaps)."""
    b = bind(scenario, code, root=root)
    m = b.model
    notes = []
    if scenario.include_body and m.body_note:
        notes.append(m.body_note)
    if scenario.include_body and m.borrowed_from:
        notes.append(_("{name} has no body statistics of its own; those of {source} are used.").format(
            name=m.name, source=m.prior_country_name or m.borrowed_from))
    if scenario.include_body and m.nearest_body.any():
        notes.append(_("Some age groups reach beyond the body statistics; the nearest body group is used for them."))
    trimmed = [g.label for g in m.age_groups if g.trimmed]
    if trimmed:
        notes.append(_("Age groups trimmed to the study range {ages}: {groups}.").format(
            ages=format_age_band(*m.study), groups=", ".join(trimmed)))
    if m.filled.any():
        n = int(m.filled.sum())
        notes.append(formatting.ngettext(
            "{n} {districts}: filled from the remainder of its {region} (SPEC §1.4).",
            "{n} {districts}: filled from the remainder of their {region} (SPEC §1.4).", n).format(
            n=n, districts=formatting.district_word(m.district_label, plural=n != 1),
            region=formatting.district_word(m.region_label)))
    if scenario.include_body and scenario.model == "paper":
        notes.append(_("Cells with a BMI outside {lo}–{hi} at their centre are left out.").format(
            lo=formatting.local_number(f"{scenario.bmi_range[0]:g}"),
            hi=formatting.local_number(f"{scenario.bmi_range[1]:g}")))
    if scenario.include_body:
        notes.extend(m.model_notes()[1:] if scenario.model == "paper" else m.model_notes())
        c = country_cdf(scenario, code, root=root)
        notes.append(_("Shares are of the people the model covers: {share} of the {count} people described.").format(
            share=formatting.percent_text(f"{100 * c.covered_share:.1f}"), count=formatting.format_count(c.people)))
    for fa in b.aux:
        notes.extend(fa.gaps)
        if fa.note:
            # a preset's name and note are ours (census_loaders.auxiliary, marked): in the page's language
            notes.append(f"{formatting.translate_marked(fa.name)}: {formatting.translate_marked(fa.note)}")
    return tuple(notes)
