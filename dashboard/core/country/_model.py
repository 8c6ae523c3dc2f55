"""The country model: one data set's census counts, study population and body priors (SPEC §1.1).

:class:`CountryModel` is built once per data set (:func:`load_country_model`, memoised on the
cache's manifest) or from DataFrames (:meth:`CountryModel.from_frames`, for tests). It derives
the model for another study range or body model (:meth:`~CountryModel.with_study`,
:meth:`~CountryModel.with_model`) and inherits the band probabilities of
:class:`~dashboard.core.body.BandProbabilities`. Nothing here imports Dash.
"""
from __future__ import annotations

import itertools
import math
import threading
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from functools import lru_cache
from pathlib import Path

import numpy as np
import pandas as pd

from census_loaders import cache
from census_loaders.paths import cache_dir

from .. import memo
from ..body import (
    DEFAULT_MODEL,
    BandProbabilities,
    BodyPriors,
    body_group_weights,
    check_model,
    correlation_from_prior,
    ncdrisc_prior,
)
from ..errors import InputError
from ..groups import DEFAULT_STUDY, SEXES, AgeGroup, check_study, format_age_band, trim_age_groups
from ..text import gettext as _
from ..text import translate_marked

_EPS = 1e-9
#: Guards the small LRU caches on models: a Dash server may call from several threads.
_LOCK = threading.RLock()
#: Every model's memoised values (joints, grids, fraction arrays …) in one byte-bounded memo (the process's
#: budget, memo.set_budget), and the variants of each data set's home model (other study ranges, body models).
_MODEL_MEMO = memo.OwnedMemo(50_000, name="dashboard.core.country._model.model_memo")
_FAMILY = memo.Memo(4096, name="dashboard.core.country._model.variants",
                    sizeof=lambda m: int(m.counts.nbytes + m.body_weights.nbytes + m.nearest_body.nbytes) + 4096)


@dataclass(frozen=True, eq=False)
class CountryModel(BandProbabilities):
    """One data set as arrays, restricted to a study range.

    ``counts[d, s, a]`` are the study-population counts (trimmed groups already
    scaled).  ``body_weights[s, a, g]`` mixes body groups into census groups;
    ``nearest_body[s, a]`` flags groups that reach beyond the body statistics.
    Build with :func:`load_country_model` (memoised) or :meth:`from_frames`;
    :meth:`with_study` derives the model for another study range.  Hashing is by
    identity, so a model can key caches.
    """

    code: str
    name: str
    district_ids: np.ndarray  # (n_d,) str
    district_names: np.ndarray
    region_ids: np.ndarray
    region_names: np.ndarray
    filled: np.ndarray  # (n_d,) bool
    age_groups: tuple[AgeGroup, ...]
    counts: np.ndarray  # (n_d, n_sex, n_age)
    body: BodyPriors
    body_weights: np.ndarray  # (n_sex, n_age, G)
    nearest_body: np.ndarray  # (n_sex, n_age) bool
    study: tuple[float, float]
    census_groups: tuple[tuple[float, float], ...]  # every published group, hi inf = open
    census_counts: np.ndarray  # (n_d, n_sex, n_census) before the study range
    district_label: str = "district"
    region_label: str = "region"
    notes: tuple[str, ...] = ()
    prior_country_name: str = ""
    aux_tables: Mapping[str, object] | None = None  # id → FractionTable, for models not read from the cache
    cache_root: Path | None = None
    body_model: str = DEFAULT_MODEL  # SPEC §1.6: "v2" or "paper" (:meth:`with_model` switches)
    correlation: pd.DataFrame | None = None  # ρ table (sex, age_from, age_to, rho); None = NHANES
    height_shift: np.ndarray | None = None  # v2: cm added per body group (NCD-RisC cohort shift)
    height_shift_note: str = ""  # … and what the interface says about it
    self_report_correction: bool = False  # v2 option: self-reported statistics corrected to measured
    body_note: str = ""  # whose body statistics these are, their source and year (issue 27)
    _family: dict = field(default_factory=dict, repr=False)  # {"home": the model load_country_model keeps}, shared
    __memo_shared__ = True  # memo.nbytes counts a model where it is kept (_FAMILY), not in values referring to it

    # ---- construction

    @classmethod
    def from_frames(
        cls,
        code: str,
        population: pd.DataFrame,
        body_priors: pd.DataFrame,
        *,
        name: str | None = None,
        study: Sequence[float] = DEFAULT_STUDY,
        prior_country: str | None = None,
        borrowed_from: str | None = None,
        prior_source: str | None = None,
        prior_country_name: str | None = None,
        district_label: str = "district",
        region_label: str = "region",
        notes: Iterable[str] = (),
        aux_tables: Mapping[str, object] | None = None,
        cache_root: Path | None = None,
        model: str = DEFAULT_MODEL,
        correlation: pd.DataFrame | None = None,
        height_shift: Sequence[float] | None = None,
        height_shift_note: str = "",
        self_report_correction: bool = False,
        body_note: str = "",
    ) -> CountryModel:
        """Build from a population table (``schema.POPULATION_COLUMNS``) and body priors.

        Body-prior metadata defaults to ``body_priors.attrs`` (as returned by
        ``census_loaders.cache.body_priors``).  ``aux_tables`` lets tests resolve
        auxiliary presets by id without a cache.  ``model`` picks the body model;
        ``correlation`` (v2) defaults to the NHANES estimate of the cache;
        ``height_shift`` (cm per row of the body priors sorted by sex and age, v2 only).
        """
        need = ["district_id", "district_name", "region_id", "region_name", "sex", "age_from", "age_to", "count"]
        missing = [c for c in need if c not in population.columns]
        if missing:
            raise ValueError(f"population table lacks column(s) {missing}")
        pop = population
        if "filled" not in pop.columns:
            pop = pop.assign(filled=False)
        body = BodyPriors.from_frame(body_priors, prior_country, borrowed_from, prior_source)
        ids = pop["district_id"].astype(str).to_numpy()
        order_ids, d_idx = np.unique(ids, return_inverse=True)
        sex = pop["sex"].astype(str).to_numpy()
        bad = sorted(set(sex) - set(SEXES))
        if bad:
            raise ValueError(f"population table has unknown sex {bad[0]!r}")
        s_idx = np.where(sex == SEXES[0], 0, 1)
        a_from = pd.to_numeric(pop["age_from"]).to_numpy(dtype=float)
        a_to = pd.to_numeric(pop["age_to"]).to_numpy(dtype=float)
        a_to = np.where(np.isnan(a_to), np.inf, a_to)
        pairs = sorted(set(zip(a_from.tolist(), a_to.tolist())))
        for (l0, h0), (l1, _h1) in itertools.pairwise(pairs):
            if l1 < h0:
                raise ValueError(
                    f"census age groups {format_age_band(l0, h0)} and {format_age_band(l1, _h1)} overlap across districts"
                )
        pair_index = {p: i for i, p in enumerate(pairs)}
        g_idx = np.array([pair_index[p] for p in zip(a_from.tolist(), a_to.tolist())], dtype=np.int64)
        counts = np.zeros((len(order_ids), len(SEXES), len(pairs)))
        np.add.at(counts, (d_idx, s_idx, g_idx), pd.to_numeric(pop["count"]).to_numpy(dtype=float))
        first = np.unique(d_idx, return_index=True)[1]
        filled = np.zeros(len(order_ids), dtype=bool)
        np.logical_or.at(filled, d_idx, pop["filled"].to_numpy(dtype=bool))
        col = lambda c: pop[c].astype(str).to_numpy()[first].astype(object)
        base = cls(
            code=code,
            name=name or code,
            district_ids=order_ids.astype(object),
            district_names=col("district_name"),
            region_ids=col("region_id"),
            region_names=col("region_name"),
            filled=filled,
            age_groups=(),
            counts=np.zeros((len(order_ids), len(SEXES), 0)),
            body=body,
            body_weights=np.zeros((len(SEXES), 0, len(body))),
            nearest_body=np.zeros((len(SEXES), 0), dtype=bool),
            study=(math.nan, math.nan),
            census_groups=tuple(pairs),
            census_counts=counts,
            district_label=district_label,
            region_label=region_label,
            notes=tuple(notes),
            prior_country_name=prior_country_name or (body.borrowed_from or body.country),
            aux_tables=aux_tables,
            cache_root=cache_root,
            body_model=check_model(model),
            correlation=correlation,
            height_shift=None if height_shift is None else np.asarray(height_shift, float),
            height_shift_note=height_shift_note,
            self_report_correction=bool(self_report_correction),
            body_note=body_note,
        )
        return base._restricted(check_study(study))

    def _restricted(self, study: tuple[float, float], model: str | None = None,
                    self_report: bool | None = None) -> CountryModel:
        kept, groups = trim_age_groups(self.census_groups, study)
        shares = np.array([g.share for g in groups])
        counts = self.census_counts[:, :, kept] * shares[None, None, :]
        counts.setflags(write=False)
        W, nearest = body_group_weights(groups, self.body)
        return CountryModel(
            code=self.code,
            name=self.name,
            district_ids=self.district_ids,
            district_names=self.district_names,
            region_ids=self.region_ids,
            region_names=self.region_names,
            filled=self.filled,
            age_groups=groups,
            counts=counts,
            body=self.body,
            body_weights=W,
            nearest_body=nearest,
            study=study,
            census_groups=self.census_groups,
            census_counts=self.census_counts,
            district_label=self.district_label,
            region_label=self.region_label,
            notes=self.notes,
            prior_country_name=self.prior_country_name,
            aux_tables=self.aux_tables,
            cache_root=self.cache_root,
            body_model=self.body_model if model is None else model,
            correlation=self.correlation,
            height_shift=self.height_shift,
            height_shift_note=self.height_shift_note,
            self_report_correction=self.self_report_correction if self_report is None else bool(self_report),
            body_note=self.body_note,
            _family=self._family,
        )

    def _variant(self, study: tuple[float, float], model: str, self_report: bool) -> CountryModel:
        key = (study, model, bool(self_report))
        with _LOCK:
            home = self._family.setdefault("home", self)
        if key == (home.study, home.body_model, bool(home.self_report_correction)):
            return home
        return _FAMILY.get((home, key), lambda: home._restricted(study, model, self_report))

    def with_study(self, study: Sequence[float]) -> CountryModel:
        """The same data set restricted to another study range (memoised; same body model)."""
        study = check_study(study)
        if study == self.study:
            return self
        return self._variant(study, self.body_model, self.self_report_correction)

    def with_model(self, model: str = DEFAULT_MODEL, self_report_correction: bool | None = None) -> CountryModel:
        """The same data set under another body model (``v2`` / ``paper``), memoised.

        ``self_report_correction`` (v2 only) corrects self-reported body statistics.
        """
        model = check_model(model)
        sr = self.self_report_correction if self_report_correction is None else bool(self_report_correction)
        if model == self.body_model and sr == self.self_report_correction:
            return self
        return self._variant(self.study, model, sr)

    # ---- lookups

    @property
    def n_districts(self) -> int:
        return len(self.district_ids)

    @property
    def total(self) -> float:
        """The study population of the whole data set."""
        return float(self.counts.sum())

    @property
    def borrowed_from(self) -> str | None:
        return self.body.borrowed_from

    def district_index(self, key: str) -> int:
        """Index of a district given its id or its exact name (case-insensitive)."""
        key = str(key).strip()
        lookup = self._memo("district_lookup", self._district_lookup)
        if key in lookup["id"]:
            return lookup["id"][key]
        hits = lookup["name"].get(key.casefold(), [])
        if len(hits) == 1:
            return hits[0]
        if len(hits) > 1:
            ids = ", ".join(str(self.district_ids[i]) for i in hits[:5])
            raise InputError(f"{self.district_label} name {key!r} is ambiguous in {self.name}: use its code ({ids})")
        raise InputError(f"unknown {self.district_label} {key!r} in {self.name} (give its code, e.g. {self.district_ids[0]})")

    def _district_lookup(self) -> dict:
        names: dict[str, list[int]] = {}
        for i, n in enumerate(self.district_names):
            names.setdefault(str(n).casefold(), []).append(i)
        return {"id": {str(d): i for i, d in enumerate(self.district_ids)}, "name": names}

    def region_members(self, district: int) -> np.ndarray:
        """Indices of every district in the same region as ``district``."""
        return np.flatnonzero(self.region_ids == self.region_ids[district])

    def age_index(self, age: float) -> int:
        """The study age group holding an age in years, or an InputError."""
        age = float(age)
        for a, g in enumerate(self.age_groups):
            lo, hi = g.lo, g.hi
            if lo <= age < hi:
                return a
        raise InputError(
            f"age {age:g} is outside the study population {format_age_band(*self.study)}"
        )

    def body_mapping_parts(self, s: int, a: int) -> dict:
        """What :meth:`body_mapping_note` says, as values: the body statistics' age range for sex ``s`` and the
        body groups census group ``a`` uses (``[sex, lo, hi]``; ``hi`` None for an open group).  The personal
        page's JavaScript words them in its language."""
        used = np.flatnonzero(self.body_weights[s, a] > 0)
        own = self.body.sex_index == s
        return {"range": [_finite_or_none(self.body.age_lo[own].min()), _finite_or_none(self.body.age_hi[own].max())],
                "used": [[SEXES[int(self.body.sex_index[j])], _finite_or_none(self.body.age_lo[j]),
                          _finite_or_none(self.body.age_hi[j])] for j in used]}

    def body_mapping_note(self, s: int, a: int) -> str:
        """Which body groups a census group uses, naming the nearest-group stand-in, in the current language
        (English for the CLI, as it always read)."""
        g = self.age_groups[a]
        used = [f"{translate_marked(SEXES[int(self.body.sex_index[j])])} "
                f"{format_age_band(self.body.age_lo[j], self.body.age_hi[j])}"
                for j in np.flatnonzero(self.body_weights[s, a] > 0)]
        lo = self.body.age_lo[self.body.sex_index == s].min()
        hi = self.body.age_hi[self.body.sex_index == s].max()
        return _("{sex} {group} reaches beyond the body statistics ({ages}); the nearest body group is used "
                 "({groups})").format(sex=translate_marked(SEXES[s]), group=g.shown_label,
                                      ages=format_age_band(lo, hi), groups=", ".join(used))

    def _memo(self, key, make):
        return _MODEL_MEMO.get((self, key), make)

    def memo(self, key, make):
        """Public memo API: the value memoised under ``key``, made by ``make()`` (a raising make stores nothing);
        in the byte-bounded model memo, so an old value may be forgotten and made again."""
        return self._memo(("memo", key), make)

    def memo_lru(self, bucket: str, key, make, maxsize: int):
        """A bounded memo on this model: the ``maxsize`` most recently used values of ``bucket`` (thread-safe)."""
        return _MODEL_MEMO.lru_for(self, bucket, key, make, maxsize)

    def forget(self, bucket: str | None = None) -> None:
        """Drop this model's memos: one bucket (``"joints"``, an LRU bucket's name) or, without one, all."""
        _MODEL_MEMO.forget(self, bucket)

    def district_lookup(self) -> dict:
        """``{"id": {district id: index}, "name": {casefolded name: [indices]}}`` (memoised)."""
        return self._memo("district_lookup", self._district_lookup)





def _manifest_stamp(root: Path) -> int:
    try:
        return (root / "manifest.json").stat().st_mtime_ns
    except FileNotFoundError:
        return -1


@lru_cache(maxsize=512)  # every data set in the cache (191; ~230 with more census sets) stays loaded
def _load_base(code: str, root: Path, stamp: int) -> CountryModel:

    info = cache.dataset_info(code, root)
    pop = cache.population(code, root)
    prior = info.get("body_prior") or {}
    correlation, body_note = None, ""
    if prior.get("kind") == "ncdrisc":  # issue 27: every country without a table of its own
        year = int(prior.get("year") or str(info.get("reference_date") or "2022")[:4])
        priors = ncdrisc_prior(prior.get("country") or code.split("-")[0], year, root)
        correlation = correlation_from_prior(priors)
        body_note = priors.attrs["note"]
        lender_name = prior.get("country") or code
    else:
        priors = cache.body_priors(code, root)
        lender = priors.attrs.get("borrowed_from") or priors.attrs.get("prior_country")
        lender_name = lender or ""
        if lender:
            try:
                lender_name = cache.dataset_info(lender, root).get("name", lender)
            except KeyError:
                lender_name = lender
        if prior.get("kind") == "own":
            body_note = (f"Body statistics of {code}: {prior.get('country')}'s own table "
                         f"({prior.get('source', '')}, {prior.get('year', '')}).")
    return CountryModel.from_frames(
        code,
        pop,
        priors,
        name=info.get("name", code),
        study=DEFAULT_STUDY,
        prior_country_name=lender_name,
        district_label=info.get("district_label", "district"),
        region_label=info.get("region_label", "region"),
        notes=info.get("notes", ()),
        cache_root=root,
        correlation=correlation,
        body_note=body_note,
    )


def load_country_model(code: str, study: Sequence[float] = DEFAULT_STUDY, root: Path | None = None,
                       model: str = DEFAULT_MODEL, self_report_correction: bool = False) -> CountryModel:
    """The model of a cached data set, memoised per cache folder and manifest time.

    ``model`` is the body model (``v2``, the default, or ``paper``; SPEC §1.6).
    Unknown codes raise ``census_loaders.cache.UnknownDataset`` (a KeyError with a
    message listing the known codes); unknown models an InputError.
    """

    model = check_model(model)
    root = Path(root) if root is not None else cache_dir()
    base = _load_base(cache.canonical_code(str(code), root), root, _manifest_stamp(root))
    return base.with_study(study).with_model(model, self_report_correction)


def _finite_or_none(x) -> float | None:
    """An age as JSON: a number, None for an open end (inf)."""
    x = float(x)
    return x if math.isfinite(x) else None
