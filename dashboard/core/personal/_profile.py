"""What a person tells (SPEC §1.1): the :class:`Profile`, resolved against a country model.

:func:`resolve` turns a profile into the districts, sexes, age groups and bands it selects
(:class:`Resolved`); :func:`area_counts` sums the census over the selected districts with the
auxiliary fractions, and :func:`cell_probabilities` gives Pr[height band] and Pr[height band,
weight band] per sex × age group (a withheld band is 1). The funnel, the what-ifs and the advice
all start here.
"""
from __future__ import annotations

import itertools
import math
from collections.abc import Sequence
from dataclasses import dataclass, replace

import numpy as np

from census_loaders.schema import FractionTable

from .. import groups as bm
from ..country import CountryModel, FractionArray, UserAux, fraction_array, preset_array
from ..errors import InputError
from ..groups import DEFAULT_STUDY, SEXES
from ..parsing import SEX_ALIASES, check_band, parse_age, parse_band
from ..text import plural

#: Default targets for the advice.
DEFAULT_KS: tuple[int, ...] = (10, 100)


@dataclass(frozen=True)
class Profile:
    """What a person reveals.  ``None`` / ``()`` means withheld (every value counts).

    * ``district``: a district id (or exact name); ``area="region"`` coarsens it to
      its region; ``None`` = the whole country.
    * ``ages``: a tuple of census age groups — bands such as ``"65-75"``, ``"75+"`` or
      ``(65, 75)`` (a band may cover several whole groups), or ages in years such as
      ``40`` that pick their group; selected groups' counts add.  A bare string or
      number is one spec; write one band as ``((65, 75),)``.
    * ``height`` / ``weight``: half-open bands ``(lo, hi)`` of width 1, 2, 5, 10 or
      20, aligned to multiples of the width (use :meth:`build` for values).
    * ``aux``: preset ids and/or :class:`FractionTable` objects (multiplied in order).
    * ``study``: the study population's age range.
    """

    country: str
    district: str | None = None
    sex: str | None = None
    ages: tuple = ()
    height: tuple[float, float] | None = None
    weight: tuple[float, float] | None = None
    aux: tuple = ()
    study: tuple[float, float] = DEFAULT_STUDY
    area: str = "district"

    def __post_init__(self):
        set_ = lambda k, v: object.__setattr__(self, k, v)
        if not isinstance(self.country, str) or not self.country.strip():
            raise InputError("choose a country")
        set_("country", self.country.strip())
        district = None if self.district is None else str(self.district).strip() or None
        set_("district", district)
        if self.sex is not None:
            sex = SEX_ALIASES.get(str(self.sex).strip().lower())
            if sex is None:
                raise InputError(f"unknown sex {self.sex!r}: use female or male")
            set_("sex", sex)
        ages = self.ages
        if isinstance(ages, (str, int, float)):
            ages = (ages,)
        set_("ages", tuple(dict.fromkeys(parse_age(a) for a in ages)))
        set_("height", None if self.height is None else check_band(self.height, "height"))
        set_("weight", None if self.weight is None else check_band(self.weight, "weight"))
        aux = self.aux
        if isinstance(aux, (str, FractionTable, UserAux)):
            aux = (aux,)
        norm = []
        for a in aux:
            if isinstance(a, FractionTable):
                a = UserAux.of(a)
            elif isinstance(a, str):
                a = a.strip()
                if not a:
                    continue
            elif not isinstance(a, UserAux):
                raise InputError(f"auxiliary knowledge {a!r} is neither a preset id nor a fraction table")
            norm.append(a)
        set_("aux", tuple(dict.fromkeys(norm)))
        set_("study", bm.check_study(self.study))
        if self.area not in ("district", "region"):
            raise InputError(f"area must be 'district' or 'region', not {self.area!r}")
        if self.area == "region" and self.district is None:
            set_("area", "district")

    @classmethod
    def build(
        cls,
        country: str,
        district: str | None = None,
        sex: str | None = None,
        age=(),
        height=None,
        height_width: float | None = None,
        weight=None,
        weight_width: float | None = None,
        aux=(),
        study: Sequence[float] = DEFAULT_STUDY,
        area: str = "district",
    ) -> Profile:
        """A profile from interface-style values: ``height=172, height_width=5`` or ``height="160-165"``."""
        if isinstance(age, (str, int, float)):
            age = (age,)
        return cls(
            country=country,
            district=district,
            sex=sex,
            ages=tuple(age),
            height=parse_band(height, height_width, "height"),
            weight=parse_band(weight, weight_width, "weight"),
            aux=tuple(aux) if not isinstance(aux, (str, FractionTable)) else (aux,),
            study=tuple(study),
            area=area,
        )

    @property
    def height_width(self) -> float | None:
        return None if self.height is None else self.height[1] - self.height[0]

    @property
    def weight_width(self) -> float | None:
        return None if self.weight is None else self.weight[1] - self.weight[0]

    @property
    def aux_ids(self) -> tuple[str, ...]:
        return tuple(a if isinstance(a, str) else a.id for a in self.aux)

    def replace(self, **changes) -> Profile:
        return replace(self, **changes)

    def to_dict(self) -> dict:
        def age(a):
            return a if isinstance(a, float) else bm.format_age_band(*a)

        return {
            "country": self.country,
            "district": self.district,
            "area": self.area,
            "sex": self.sex,
            "ages": [age(a) for a in self.ages],
            "height": None if self.height is None else list(self.height),
            "weight": None if self.weight is None else list(self.weight),
            "aux": list(self.aux_ids),
            "study": [self.study[0], self.study[1] if math.isfinite(self.study[1]) else None],
        }


@dataclass(frozen=True, eq=False)
class Resolved:
    """A profile bound to a model: indices and arrays every computation shares."""

    model: CountryModel
    profile: Profile
    district: int | None  # the chosen district
    D: np.ndarray | None  # districts of the area (None = all)
    S: np.ndarray  # (n_sex,) bool
    A: np.ndarray  # (n_age,) bool
    aux: tuple[FractionArray, ...]

    @property
    def sel(self) -> np.ndarray:
        return self.S[:, None] & self.A[None, :]


def resolve_ages(model: CountryModel, specs: tuple) -> np.ndarray:
    groups = model.age_groups
    mask = np.zeros(len(groups), dtype=bool)
    if not specs:
        mask[:] = True
        return mask
    listing = ", ".join(g.label for g in groups)
    study = bm.format_age_band(*model.study)
    for spec in specs:
        if isinstance(spec, float):
            mask[model.age_index(spec)] = True
            continue
        lo, hi = spec
        exact = [
            a for a, g in enumerate(groups)
            if (abs(g.lo - lo) < 1e-9 and (g.hi == hi or abs(g.hi - hi) < 1e-9))
            or (abs(g.census_lo - lo) < 1e-9 and (g.census_hi == hi or abs(g.census_hi - hi) < 1e-9))
        ]
        if exact:
            mask[exact[0]] = True
            continue
        inside = [a for a, g in enumerate(groups) if g.lo >= lo - 1e-9 and g.hi <= hi + 1e-9]
        if inside:
            span_lo, span_hi = groups[inside[0]].lo, groups[inside[-1]].hi
            contiguous = all(abs(groups[i].hi - groups[j].lo) < 1e-9 for i, j in itertools.pairwise(inside))
            if contiguous and abs(span_lo - lo) < 1e-9 and (span_hi == hi or abs(span_hi - hi) < 1e-9):
                mask[inside] = True
                continue
        if hi <= model.study[0] or lo >= model.study[1]:
            raise InputError(f"age {bm.format_age_band(lo, hi)} is outside the study population {study}")
        raise InputError(
            f"age {bm.format_age_band(lo, hi)} does not match the census age groups of {model.name}: {listing}"
        )
    return mask


def resolve(model: CountryModel, profile: Profile) -> Resolved:
    """Bind a profile to a model.

    Not memoised: a memo keyed by profiles would keep people's answers in the
    server's memory (issue 15); binding is cheap next to the sums that follow.
    """
    if profile.country != model.code:
        raise InputError(f"the profile is for {profile.country}, but the data set is {model.code}")
    model = model.with_study(profile.study)
    return bind(model, profile)


def bind(model: CountryModel, profile: Profile) -> Resolved:
    district = D = None
    if profile.district is not None:
        district = model.district_index(profile.district)
        D = model.region_members(district) if profile.area == "region" else np.array([district])
    S = np.ones(len(SEXES), dtype=bool)
    if profile.sex is not None:
        S[:] = False
        S[SEXES.index(profile.sex)] = True
    A = resolve_ages(model, profile.ages)
    aux = tuple(preset_array(model, a) if isinstance(a, str) else fraction_array(model, a.table) for a in profile.aux)
    return Resolved(model, profile, district, D, S, A, aux)


def area_counts(model: CountryModel, D: np.ndarray | None, fs: Sequence[np.ndarray] = ()) -> np.ndarray:
    """``Σ_{d∈D} N[d, s, a] · Π f[d, s, a]`` as ``[sex, age]`` (D None = every district)."""
    dep = [f for f in fs if f.shape[0] > 1]
    indep = [f for f in fs if f.shape[0] == 1]
    if dep:
        x = model.counts if D is None else model.counts[D]
        for f in dep:
            x = x * (f if D is None else f[D])
        m = x.sum(axis=0)
    elif D is None:
        m = model.memo("country_counts", lambda: model.counts.sum(axis=0))
    else:
        m = model.counts[D].sum(axis=0)
    for f in indep:
        m = m * f[0]
    return m


def cell_probabilities(model: CountryModel, h, w) -> tuple[np.ndarray, np.ndarray]:
    """``[sex, age]`` Pr[h-band] and Pr[h-band, w-band] (a withheld band is 1), monotone."""
    if h is None:
        ph = np.ones(model.counts.shape[1:])
    else:
        ph = np.minimum(model.cell_probability(h, None), 1.0)
    if w is None:
        phw = ph
    elif h is None:
        phw = np.minimum(model.cell_probability(None, w), 1.0)
    else:
        phw = np.minimum(model.cell_probability(h, w), ph)
    return ph, phw


def area_label(r: Resolved) -> str:
    m, d = r.model, r.district
    if d is None:
        return f"any {m.district_label}"
    if r.profile.area == "region":
        return f"{m.region_names[d]} ({m.region_label}, {len(r.D)} {plural(m.district_label)})"
    return f"{m.district_names[d]} ({m.district_ids[d]})"


def ages_label(model: CountryModel, A: np.ndarray) -> str:
    """``65–75``; adjacent groups merge (``55–75``); ``any age (18–75)`` when all are selected."""
    if A.all():
        return f"any age ({bm.format_age_band(*model.study)})"
    runs: list[list[int]] = []
    for a in np.flatnonzero(A):
        if runs and runs[-1][-1] == a - 1:
            runs[-1].append(a)
        else:
            runs.append([a])
    groups = model.age_groups
    return ", ".join(
        groups[r[0]].label if len(r) == 1 else bm.format_age_band(groups[r[0]].lo, groups[r[-1]].hi) for r in runs
    )


def with_body(model: CountryModel, body_model: str | None) -> CountryModel:
    return model if body_model is None else model.with_model(body_model)
