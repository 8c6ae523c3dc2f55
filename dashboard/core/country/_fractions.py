"""Auxiliary knowledge as fractions on a model's grid (SPEC §1.3): presets and user tables.

:func:`fraction_array` puts a :class:`~census_loaders.schema.FractionTable` on a country
model's districts × sexes × age groups (memoised on the model); :class:`UserAux` carries a
user's own table inside a hashable profile.  Pure (no Dash).
"""
from __future__ import annotations

import hashlib
from dataclasses import dataclass

import numpy as np
import pandas as pd

from census_loaders import cache
from census_loaders.schema import FractionTable

from .. import groups as bm
from ..errors import InputError
from ..groups import SEXES
from ..parsing import SEX_ALIASES
from ..text import plural
from ._model import CountryModel


def _table_digest(table: FractionTable) -> str:
    h = hashlib.sha1()
    h.update(f"{table.id}\x00{table.name}\x00{table.country}\x00".encode())
    h.update(table.table.to_csv(index=False).encode())
    return h.hexdigest()[:16]


@dataclass(frozen=True, eq=False)
class UserAux:
    """A user-defined :class:`FractionTable` inside a :class:`Profile`, hashed by content."""

    table: FractionTable
    digest: str

    @classmethod
    def of(cls, table: FractionTable) -> UserAux:
        return cls(table, _table_digest(table))

    @property
    def id(self) -> str:
        return self.table.id

    def __eq__(self, other) -> bool:
        return isinstance(other, UserAux) and (self.id, self.digest) == (other.id, other.digest)

    def __hash__(self) -> int:
        return hash((self.id, self.digest))


@dataclass(frozen=True, eq=False)
class FractionArray:
    """A fraction table on a model's grid: ``f`` broadcasts to ``[district, sex, age group]``.

    Axes the table is not keyed by have length 1.  People the table does not cover
    get 0 (the table says nothing applies to them); ``gaps`` says where.
    """

    id: str
    name: str
    note: str
    f: np.ndarray
    gaps: tuple[str, ...]

    @property
    def by_district(self) -> bool:
        return self.f.shape[0] > 1


def _country_matches(table_country: str | None, code: str) -> bool:
    return table_country is None or code == table_country or code.split("-")[0] == table_country


def fraction_array(model: CountryModel, table: FractionTable) -> FractionArray:
    """Put a fraction table on the model's districts × sexes × study age groups (presets are memoised by preset_array).

    Age-keyed rows apply to census groups by the overlap rule (a year-weighted mean
    over the bands a group overlaps, SPEC §1.3).  Overlapping rows are an error.
    """
    # user tables (a typed percentage) are answers: never memoised (issue 15); presets are, by preset_array
    return _fraction_array(model, table)


def _fraction_array(model: CountryModel, table: FractionTable) -> FractionArray:
    name = table.name or table.id
    if not _country_matches(table.country, model.code):
        raise InputError(f"auxiliary knowledge {name!r} is for {table.country}, not {model.name}")
    df = table.table
    if "fraction" not in df.columns or len(df) == 0:
        raise InputError(f"auxiliary knowledge {name!r} has no fractions")
    fr = pd.to_numeric(df["fraction"], errors="coerce").to_numpy(dtype=float)
    if np.isnan(fr).any() or (fr < 0).any() or (fr > 1).any():
        raise InputError(f"auxiliary knowledge {name!r}: every fraction must be a number in [0, 1]")
    n = len(df)
    gaps: list[str] = []
    if "district_id" in df.columns:
        lookup = model.district_lookup()["id"]
        d_idx = np.array([lookup.get(str(x).strip(), -1) for x in df["district_id"].tolist()], dtype=np.int64)
        unknown = int((d_idx < 0).sum())
        if unknown:
            gaps.append(f"{unknown} row(s) name {plural(model.district_label)} that are not in {model.name}; they are ignored")
        nd = model.n_districts
    else:
        d_idx, nd = np.zeros(n, dtype=np.int64), 1
    if "sex" in df.columns:
        sexes = [SEX_ALIASES.get(str(x).strip().lower()) for x in df["sex"].tolist()]
        if None in sexes:
            raise InputError(f"auxiliary knowledge {name!r}: sex must be female or male")
        s_idx, ns = np.array([SEXES.index(s) for s in sexes], dtype=np.int64), len(SEXES)
    else:
        s_idx, ns = np.zeros(n, dtype=np.int64), 1
    if "age_from" in df.columns:
        lo = pd.to_numeric(df["age_from"], errors="coerce").to_numpy(dtype=float)
        hi = pd.to_numeric(df["age_to"], errors="coerce").to_numpy(dtype=float) if "age_to" in df.columns else np.full(n, np.nan)
        if np.isnan(lo).any():
            raise InputError(f"auxiliary knowledge {name!r}: every row needs an age_from")
        aw = bm.age_overlap_weights(model.age_groups, list(zip(lo.tolist(), hi.tolist()))).T
        na = len(model.age_groups)
    else:
        aw, na = np.ones((n, 1)), 1
    keep = d_idx >= 0
    f = np.zeros((nd, ns, na))
    cover = np.zeros((nd, ns, na))
    np.add.at(f, (d_idx[keep], s_idx[keep]), fr[keep, None] * aw[keep])
    np.add.at(cover, (d_idx[keep], s_idx[keep]), aw[keep])
    if (cover > 1 + 1e-9).any():
        raise InputError(f"auxiliary knowledge {name!r}: rows overlap (some people would get two fractions)")
    short = cover < 1 - 1e-9
    if short.any():
        if nd > 1:
            k = int(short.any(axis=(1, 2)).sum())
            if k:
                gaps.append(f"no fraction for {k} {model.district_label}(s)")
        if ns > 1:
            for s in np.flatnonzero(short.all(axis=(0, 2))):
                gaps.append(f"no fraction for {SEXES[s]}")
        if na > 1:
            labels = [model.age_groups[a].label for a in np.flatnonzero(short.any(axis=(0, 1)))]
            if labels:
                gaps.append(f"ages {', '.join(labels)} are not (fully) covered")
        if nd == 1 and ns == 1 and na == 1:
            gaps.append("no fraction given")
    gaps = [f"{name}: {g}; taken as 0 there" if "ignored" not in g else f"{name}: {g}" for g in gaps]
    f = np.minimum(f, 1.0)
    f.setflags(write=False)
    return FractionArray(table.id, name, table.note or "", f, tuple(gaps))


def resolve_aux(model: CountryModel, aux) -> FractionTable:
    """A preset id (from the model's own tables or the cache) or a user table, as a FractionTable."""
    if isinstance(aux, UserAux):
        return aux.table
    if isinstance(aux, FractionTable):
        return aux
    if model.aux_tables is not None and aux in model.aux_tables:
        return model.aux_tables[aux]
    if model.aux_tables is not None and model.cache_root is None:
        known = ", ".join(sorted(model.aux_tables)) or "none"
        raise InputError(f"unknown auxiliary knowledge {aux!r}; available: {known}")

    try:
        return cache.auxiliary_table(aux, model.cache_root)
    except KeyError:
        try:
            known = ", ".join(t["id"] for t in cache.auxiliary_tables(model.code, model.cache_root)) or "none"
        except (KeyError, FileNotFoundError):
            known = "none"
        raise InputError(f"unknown auxiliary knowledge {aux!r} for {model.name}; available: {known}") from None
    except FileNotFoundError as exc:
        raise InputError(str(exc)) from None


def preset_array(model: CountryModel, preset: str) -> FractionArray:
    """A preset's fraction array, memoised by id (presets do not change under a loaded model)."""
    return model.memo(("preset", preset), lambda: fraction_array(model, resolve_aux(model, preset)))
