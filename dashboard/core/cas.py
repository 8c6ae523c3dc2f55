"""The personal conditional anonymity set (SPEC §1.1–1.3): profile → funnel, what-ifs, advice.

``CAS = Σ_{d, s, a} N[d, s, a] · Pr[h-band, w-band | s, a] · Π_k f_k[d, s, a]`` over the
districts, sexes and census age groups the profile selects.  A withheld attribute
selects every value (a withheld band has probability 1), so the same sum gives the
funnel, the what-ifs and the advice.

Entry points (all pure, no Dash):

* :class:`Profile` — what the person tells (frozen, hashable; :meth:`Profile.build`
  accepts values such as ``height=172, height_width=5`` or ``"160-165"``);
* :func:`compute_cas` → :class:`CasResult` (funnel lines, final CAS unrounded, warnings);
* :func:`what_ifs` → :class:`WhatIfs` (every other value of each attribute, widening,
  withholding);
* :func:`advise` → :class:`Advice` per ``k`` (the changes that give up the least
  information while bringing the CAS to at least ``k``);
* :func:`profile_report` — all of the above plus re-identification, as a page calls them;
* :func:`cas_by_cell` — the CAS over the whole height × weight grid.

Beside it: :mod:`~dashboard.core.parsing` (ages, bands, sexes), :mod:`~dashboard.core.fractions`
(auxiliary knowledge on the model's grid) and :mod:`~dashboard.core.text` (whole people).

Inputs that cannot give a number raise :class:`~dashboard.core.errors.InputError`.
"""
from __future__ import annotations

import itertools
import math
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, replace

import numpy as np

from census_loaders.schema import FractionTable

from . import body_model as bm
from .body_model import (
    BAND_WIDTHS,
    DEFAULT_BMI_RANGE,
    DEFAULT_STUDY,
    SEXES,
    CountryModel,
)
from .errors import InputError
from .fractions import FractionArray, UserAux, fraction_array, preset_array
from .parsing import BAND_LIMITS, DEFAULT_WIDTH, SEX_ALIASES, check_band, parse_age, parse_band
from .reidentification import Reidentification, expected_anonymity_set, reidentification
from .text import format_band, format_count, plural

#: Default targets for the advice.
DEFAULT_KS: tuple[int, ...] = (10, 100)
#: How far (in SD of the body groups involved) the height/weight what-ifs reach.
WHATIF_SDS = bm.PROFILE_SDS


# --------------------------------------------------------------------------- profile


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


# --------------------------------------------------------------------------- resolution


@dataclass(frozen=True, eq=False)
class _Resolved:
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


def _resolve_ages(model: CountryModel, specs: tuple) -> np.ndarray:
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


def _resolve(model: CountryModel, profile: Profile) -> _Resolved:
    """Bind a profile to a model.

    Not memoised: a memo keyed by profiles would keep people's answers in the
    server's memory (issue 15); binding is cheap next to the sums that follow.
    """
    if profile.country != model.code:
        raise InputError(f"the profile is for {profile.country}, but the data set is {model.code}")
    model = model.with_study(profile.study)
    return _bind(model, profile)


def _bind(model: CountryModel, profile: Profile) -> _Resolved:
    district = D = None
    if profile.district is not None:
        district = model.district_index(profile.district)
        D = model.region_members(district) if profile.area == "region" else np.array([district])
    S = np.ones(len(SEXES), dtype=bool)
    if profile.sex is not None:
        S[:] = False
        S[SEXES.index(profile.sex)] = True
    A = _resolve_ages(model, profile.ages)
    aux = tuple(preset_array(model, a) if isinstance(a, str) else fraction_array(model, a.table) for a in profile.aux)
    return _Resolved(model, profile, district, D, S, A, aux)


def _area_counts(model: CountryModel, D: np.ndarray | None, fs: Sequence[np.ndarray] = ()) -> np.ndarray:
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


def _cell(model: CountryModel, h, w) -> tuple[np.ndarray, np.ndarray]:
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


# --------------------------------------------------------------------------- the funnel


@dataclass(frozen=True)
class FunnelLine:
    """One narrowing step: ``count`` unrounded (use :func:`format_count` to show it)."""

    step: str  # country, district, sex, age, height, weight, auxiliary
    value: str
    count: float
    key: str | None = None  # the auxiliary table's id on auxiliary lines

    def to_dict(self) -> dict:
        return {"step": self.step, "value": self.value, "count": self.count}


@dataclass(frozen=True)
class CasWarning:
    """Something the interface must say beside the number (``code`` for styling)."""

    code: str  # implausible_bmi, filled_district, borrowed_body_statistics, nearest_body_group,
    #            trimmed_age_group, likely_unique, auxiliary_gap, auxiliary_note
    message: str

    def to_dict(self) -> dict:
        return {"code": self.code, "message": self.message}


@dataclass(frozen=True)
class CasResult:
    """The funnel of one profile and its final CAS (unrounded)."""

    profile: Profile
    funnel: tuple[FunnelLine, ...]
    cas: float
    population: float  # the study population of the whole data set (N in SPEC §2)
    warnings: tuple[CasWarning, ...]
    bmi: float | None  # at the centre of the chosen cell, when both bands are given
    plausible: bool | None  # paper model only (v2 leaves nobody out: None)
    body_model: str = bm.DEFAULT_MODEL

    @property
    def display(self) -> str:
        return format_count(self.cas)

    @property
    def expected_anonymity_set(self) -> float:
        """``1 + (N − 1) · CAS / N`` (SPEC §1.7): the person and about ``(N − 1) · p`` others; ≥ 1."""
        return expected_anonymity_set(self.cas, max(self.population, 1.0))

    @property
    def others(self) -> float:
        """The others expected to share the person's profile, ``(N − 1) · p``."""
        return self.expected_anonymity_set - 1.0

    def to_dict(self) -> dict:
        return {
            "profile": self.profile.to_dict(),
            "funnel": [line.to_dict() for line in self.funnel],
            "cas": self.cas,
            "cas_display": self.display,
            "expected_anonymity_set": self.expected_anonymity_set,
            "others": self.others,
            "body_model": self.body_model,
            "population": self.population,
            "bmi": self.bmi,
            "plausible": self.plausible,
            "warnings": [w.to_dict() for w in self.warnings],
        }


def _area_label(r: _Resolved) -> str:
    m, d = r.model, r.district
    if d is None:
        return f"any {m.district_label}"
    if r.profile.area == "region":
        return f"{m.region_names[d]} ({m.region_label}, {len(r.D)} {plural(m.district_label)})"
    return f"{m.district_names[d]} ({m.district_ids[d]})"


def _ages_label(model: CountryModel, A: np.ndarray) -> str:
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


def _with_body(model: CountryModel, body_model: str | None) -> CountryModel:
    return model if body_model is None else model.with_model(body_model)


def compute_cas(model: CountryModel, profile: Profile, bmi_range: tuple[float, float] = DEFAULT_BMI_RANGE,
                *, body_model: str | None = None) -> CasResult:
    """The funnel country → district → sex → age → height → weight → each auxiliary fraction.

    Each line is the previous one narrowed by one attribute (a withheld attribute
    leaves the count unchanged); the last line is the CAS.  ``body_model`` (``v2`` /
    ``paper``) overrides the model's own; the BMI check is the paper model's only.
    """
    r = _resolve(_with_body(model, body_model), profile)
    m = r.model
    p = r.profile
    country_sa = _area_counts(m, None)
    area_sa = _area_counts(m, r.D)
    smask = np.broadcast_to(r.S[:, None], area_sa.shape)
    sel = r.sel
    ph, phw = _cell(m, p.height, p.weight)
    lines = [
        FunnelLine("country", m.name, float(country_sa.sum())),
        FunnelLine("district", _area_label(r), float(area_sa.sum())),
        FunnelLine("sex", p.sex or "any", float((area_sa * smask).sum())),
        FunnelLine("age", _ages_label(m, r.A), float((area_sa * sel).sum())),
        FunnelLine("height", format_band(p.height, "height"), float((area_sa * sel * ph).sum())),
        FunnelLine("weight", format_band(p.weight, "weight"), float((area_sa * sel * phw).sum())),
    ]
    for k, fa in enumerate(r.aux):
        mass = _area_counts(m, r.D, [a.f for a in r.aux[: k + 1]])
        lines.append(FunnelLine("auxiliary", fa.name, float((mass * sel * phw).sum()), key=fa.id))
    cas = lines[-1].count

    warnings: list[CasWarning] = []
    bmi = plausible = None
    if p.height is not None and p.weight is not None:
        bmi = bm.cell_bmi(p.height, p.weight)
        plausible = None if m.is_v2 else bool(bmi_range[0] <= bmi <= bmi_range[1])
        if plausible is False:
            warnings.append(CasWarning(
                "implausible_bmi",
                f"BMI {bmi:.1f} at the centre of {format_band(p.height, 'height')} × {format_band(p.weight, 'weight')} "
                f"lies outside {bmi_range[0]:g}–{bmi_range[1]:g}: an implausible combination. The estimate is "
                "shown, but such cells are left out of every aggregate.",
            ))
    if r.district is not None:
        if p.area == "district" and m.filled[r.district]:
            warnings.append(CasWarning(
                "filled_district",
                f"{m.district_names[r.district]} is a filled {m.district_label}: the published table does not "
                f"cover it, so its counts are the rest of its {m.region_label} spread evenly (SPEC §1.4).",
            ))
        elif p.area == "region" and m.filled[r.D].any():
            warnings.append(CasWarning(
                "filled_district",
                f"{int(m.filled[r.D].sum())} of the {len(r.D)} {plural(m.district_label)} in this {m.region_label} are filled estimates.",
            ))
    uses_body = p.height is not None or p.weight is not None
    if uses_body and m.is_v2 and m.height_shift_note:
        warnings.append(CasWarning("height_shift", m.height_shift_note))
    if uses_body and m.is_v2 and m.self_report_correction and m.body.self_reported:
        warnings.append(CasWarning("self_report_correction", m.model_notes()[-1]))
    if uses_body and m.borrowed_from:
        warnings.append(CasWarning(
            "borrowed_body_statistics",
            f"{m.name} has no height and weight statistics of its own: those of "
            f"{m.prior_country_name or m.borrowed_from} ({m.borrowed_from}) are used.",
        ))
    if uses_body:
        for a in np.flatnonzero(r.A):
            flagged = [s for s in np.flatnonzero(r.S) if m.nearest_body[s, a]]
            if flagged:
                warnings.append(CasWarning("nearest_body_group", m.body_mapping_note(flagged[0], a)))
    for a in np.flatnonzero(r.A):
        g = m.age_groups[a]
        if g.trimmed:
            warnings.append(CasWarning(
                "trimmed_age_group",
                f"Only ages {bm.format_age_band(g.lo, g.hi)} of the census group "
                f"{bm.format_age_band(g.census_lo, g.census_hi)} are in the study population: "
                f"{g.share:.0%} of its people are counted (taken as spread evenly over its years).",
            ))
    for fa in r.aux:
        for gap in fa.gaps:
            warnings.append(CasWarning("auxiliary_gap", gap))
        if fa.note:
            warnings.append(CasWarning("auxiliary_note", f"{fa.name}: {fa.note}"))
    if len(r.aux) > 1:
        warnings.append(CasWarning(
            "auxiliary_note", "Auxiliary fractions are multiplied: they are assumed independent of each other."
        ))
    if cas < 1:
        warnings.append(CasWarning(
            "likely_unique",
            "Fewer than one other person expected: likely unique (you are probably the only one with this profile).",
        ))
    return CasResult(p, tuple(lines), cas, float(country_sa.sum()), tuple(warnings), bmi, plausible, m.body_model)


@dataclass(frozen=True, eq=False)
class CellGrid:
    """The final CAS for every height × weight cell of the joint grid (other attributes as given).

    ``cas[h, w]`` is unrounded; ``plausible`` marks the cells aggregates keep.
    Summed over every cell it gives back the age line of the funnel (the grid
    spans ±10 SD of every body group).
    """

    joint: bm.JointBands
    cas: np.ndarray
    plausible: np.ndarray


def cas_by_cell(
    model: CountryModel,
    profile: Profile,
    height_width: float | None = None,
    weight_width: float | None = None,
    bmi_range: tuple[float, float] | None = DEFAULT_BMI_RANGE,
    *,
    body_model: str | None = None,
) -> CellGrid:
    """The CAS over the whole height × weight grid (widths default to the profile's, else 5)."""
    r = _resolve(_with_body(model, body_model), profile)
    m, p = r.model, r.profile
    hw = height_width or p.height_width or DEFAULT_WIDTH
    ww = weight_width or p.weight_width or DEFAULT_WIDTH
    joint = m.joint(hw, ww)
    mass = _area_counts(m, r.D, [a.f for a in r.aux]) * r.sel
    cas = np.tensordot(mass, joint.prob, axes=([0, 1], [0, 1]))
    return CellGrid(joint, cas, joint.plausible(bmi_range))


# --------------------------------------------------------------------------- what-ifs


@dataclass(frozen=True, eq=False)
class WhatIf:
    """The final CAS when only one attribute takes each of its values.

    ``keys`` identify the values (district ids, sexes, age labels, band starts),
    ``labels`` are for display, ``chosen`` marks the profile's own value(s), and
    ``plausible`` (height/weight only, when the other band is given) the BMI check.
    Districts are ranked by CAS, largest first; the rest keep their natural order.
    """

    attribute: str
    keys: np.ndarray
    labels: np.ndarray
    cas: np.ndarray
    chosen: np.ndarray
    plausible: np.ndarray | None = None

    def rows(self) -> list[dict]:
        out = []
        for i in range(len(self.cas)):
            row = {"key": _plain(self.keys[i]), "label": str(self.labels[i]), "cas": float(self.cas[i]), "chosen": bool(self.chosen[i])}
            if self.plausible is not None:
                row["plausible"] = bool(self.plausible[i])
            out.append(row)
        return out


def _plain(x):
    return x.item() if isinstance(x, np.generic) else x


@dataclass(frozen=True)
class Change:
    """The effect of widening a band, withholding an attribute or coarsening the district."""

    attribute: str  # district, sex, age, height, weight, or an auxiliary id
    action: str  # widen, withhold, region, country
    label: str
    cas: float
    profile: Profile

    def to_dict(self) -> dict:
        return {"attribute": self.attribute, "action": self.action, "label": self.label, "cas": self.cas}


@dataclass(frozen=True, eq=False)
class WhatIfs:
    """Every other value of each attribute, and every widening / withholding."""

    cas: float
    district: WhatIf
    sex: WhatIf
    age: WhatIf
    height: WhatIf
    weight: WhatIf
    widen: tuple[Change, ...]
    withhold: tuple[Change, ...]

    def to_dict(self, max_districts: int | None = None) -> dict:
        districts = self.district.rows()
        if max_districts is not None:
            districts = districts[:max_districts]
        return {
            "cas": self.cas,
            "district": districts,
            "sex": self.sex.rows(),
            "age": self.age.rows(),
            "height": self.height.rows(),
            "weight": self.weight.rows(),
            "widen": [c.to_dict() for c in self.widen],
            "withhold": [c.to_dict() for c in self.withhold],
        }


def _sensible_bands(model: CountryModel, kind: str, width: float, groups: np.ndarray, chosen) -> np.ndarray:
    """Band starts covering ±WHATIF_SDS of the body groups involved, within the input limits."""
    means, sds = model.body.params(kind)
    means, sds = means[groups], sds[groups]
    lo_lim, hi_lim = BAND_LIMITS[kind]
    lo = max(lo_lim, math.floor(float(np.min(means - WHATIF_SDS * sds)) / width) * width)
    hi = min(hi_lim, math.ceil(float(np.max(means + WHATIF_SDS * sds)) / width) * width)
    lo = math.ceil(lo / width) * width
    if chosen is not None:
        lo, hi = min(lo, chosen[0]), max(hi, chosen[1])
    return np.arange(lo, hi - 1e-9, width)


def _band_what_if(r: _Resolved, kind: str, mass_sel: np.ndarray, bmi_range) -> WhatIf:
    m, p = r.model, r.profile
    chosen = p.height if kind == "height" else p.weight
    other = p.weight if kind == "height" else p.height
    width = DEFAULT_WIDTH if chosen is None else chosen[1] - chosen[0]
    v = np.einsum("sa,sag->g", mass_sel, m.body_weights)
    used = np.flatnonzero(np.einsum("sa,sag->g", (mass_sel > 0).astype(float), m.body_weights) > 0)
    if used.size == 0:
        used = np.arange(len(m.body))
    starts = _sensible_bands(m, kind, width, used, chosen)
    live = np.flatnonzero(v > 0)  # only the body groups that carry people
    P = m.group_band_cells(kind, starts, width, other, groups=live)  # [g, band]: joint with the other band
    cas = v[live] @ P
    labels = np.array([f"{s:g}–{s + width:g}" for s in starts], dtype=object)
    chosen_mask = np.zeros(len(starts), dtype=bool) if chosen is None else np.isclose(starts, chosen[0])
    plaus = None
    if other is not None and not m.is_v2:
        centres = starts + width / 2
        oc = np.array([(other[0] + other[1]) / 2])
        plaus = bm.bmi_plausible(centres, oc, bmi_range)[:, 0] if kind == "height" else bm.bmi_plausible(oc, centres, bmi_range)[0]
    return WhatIf(kind, starts, labels, cas, chosen_mask, plaus)


def _evaluate(r: _Resolved, *, D="same", S=None, A=None, h="same", w="same", aux=None) -> float:
    """The final CAS of the resolved profile with some attributes replaced."""
    m, p = r.model, r.profile
    D = r.D if isinstance(D, str) else D
    S = r.S if S is None else S
    A = r.A if A is None else A
    h = p.height if isinstance(h, str) else h
    w = p.weight if isinstance(w, str) else w
    fs = [a.f for a in (r.aux if aux is None else aux)]
    mass = _area_counts(m, D, fs)
    _, phw = _cell(m, h, w)
    return float((mass * (S[:, None] & A[None, :]) * phw).sum())


def what_ifs(model: CountryModel, profile: Profile, bmi_range: tuple[float, float] = DEFAULT_BMI_RANGE,
             *, body_model: str | None = None) -> WhatIfs:
    """For each attribute, the final CAS for every other value; widening and withholding.

    Height and weight bands span ±4 SD of the body groups involved at the chosen
    width (5 when withheld); districts are ranked by CAS.
    """
    r = _resolve(_with_body(model, body_model), profile)
    m, p = r.model, r.profile
    fs = [a.f for a in r.aux]
    sel = r.sel
    _, phw = _cell(m, p.height, p.weight)
    mass = _area_counts(m, r.D, fs)
    cas = float((mass * sel * phw).sum())

    # districts: Σ_{s,a} N f [d, s, a] · Pr[cell | s, a] over the selected sexes and ages
    dep = [f for f in fs if f.shape[0] > 1]
    weight_sa = sel * phw
    for f in fs:
        if f.shape[0] == 1:
            weight_sa = weight_sa * f[0]
    x = m.counts
    for f in dep:
        x = x * f
    per_district = x.reshape(len(x), -1) @ weight_sa.ravel()
    order = np.argsort(-per_district, kind="stable")
    chosen_d = np.zeros(m.n_districts, dtype=bool)
    if r.D is not None:
        chosen_d[r.D] = True
    district = WhatIf(
        "district", m.district_ids[order], m.district_names[order], per_district[order], chosen_d[order]
    )

    sex_cas = (mass * r.A[None, :] * phw).sum(axis=1)
    sex = WhatIf("sex", np.array(SEXES, dtype=object), np.array(SEXES, dtype=object), sex_cas,
                 r.S.copy() if p.sex is not None else np.zeros(2, dtype=bool))
    age_cas = (mass * r.S[:, None] * phw).sum(axis=0)
    labels = np.array([g.label for g in m.age_groups], dtype=object)
    age = WhatIf("age", labels, labels, age_cas, r.A.copy() if p.ages else np.zeros(len(labels), dtype=bool))

    mass_sel = mass * sel
    height = _band_what_if(r, "height", mass_sel, bmi_range)
    weight = _band_what_if(r, "weight", mass_sel, bmi_range)

    widen = []
    for kind in ("height", "weight"):
        band = getattr(p, kind)
        if band is None:
            continue
        for wdt in BAND_WIDTHS:
            if wdt <= band[1] - band[0]:
                continue
            nb = bm.widen_band(band, wdt)
            kw = {"h": nb} if kind == "height" else {"w": nb}
            new = p.replace(**{kind: nb})
            widen.append(Change(kind, "widen", f"{kind} {format_band(nb, kind)} (width {wdt})", _evaluate(r, **kw), new))
    withhold = _withholdings(r)
    return WhatIfs(cas, district, sex, age, height, weight, tuple(widen), tuple(withhold))


def _withholdings(r: _Resolved) -> list[Change]:
    m, p = r.model, r.profile
    out = []
    if r.district is not None:
        if p.area == "district":
            out.append(Change("district", "region", f"{m.district_label} → its {m.region_label} ({m.region_names[r.district]})",
                              _evaluate(r, D=m.region_members(r.district)), p.replace(area="region")))
        out.append(Change("district", "country", f"{m.district_label} → whole country", _evaluate(r, D=None),
                          p.replace(district=None, area="district")))
    if p.sex is not None:
        out.append(Change("sex", "withhold", "withhold sex", _evaluate(r, S=np.ones(2, dtype=bool)), p.replace(sex=None)))
    if p.ages:
        out.append(Change("age", "withhold", "withhold age", _evaluate(r, A=np.ones_like(r.A)), p.replace(ages=())))
    if p.height is not None:
        out.append(Change("height", "withhold", "withhold height", _evaluate(r, h=None), p.replace(height=None)))
    if p.weight is not None:
        out.append(Change("weight", "withhold", "withhold weight", _evaluate(r, w=None), p.replace(weight=None)))
    for k, fa in enumerate(r.aux):
        rest = r.aux[:k] + r.aux[k + 1:]
        out.append(Change(fa.id, "withhold", f"withhold “{fa.name}”", _evaluate(r, aux=rest),
                          p.replace(aux=p.aux[:k] + p.aux[k + 1:])))
    return out


# --------------------------------------------------------------------------- everything at once


@dataclass(frozen=True, eq=False)
class ProfileReport:
    """What the personal page shows for one profile."""

    result: CasResult
    what_ifs: WhatIfs
    reidentification: Reidentification
    advice: tuple  # of advice.Advice

    def to_dict(self, max_districts: int | None = 20) -> dict:
        from .text import own_headline, verdict

        ri = self.reidentification
        return {
            **self.result.to_dict(),
            "headline": own_headline(ri.others),
            "verdict": verdict(self.result.cas, ri.others, ri.correctness),
            "reidentification": ri.to_dict(),
            "advice": [a.to_dict() for a in self.advice],
            "what_ifs": self.what_ifs.to_dict(max_districts=max_districts),
        }


def profile_report(
    model: CountryModel,
    profile: Profile,
    ks: Iterable[float] = DEFAULT_KS,
    users: int | None = None,
    bmi_range: tuple[float, float] = DEFAULT_BMI_RANGE,
    *,
    body_model: str | None = None,
) -> ProfileReport:
    """compute_cas + what_ifs + re-identification (N = the data set's study population) + advice.

    ``body_model`` (``v2`` / ``paper``) overrides the model's own.
    """
    from .advice import advise

    model = _with_body(model, body_model)
    result = compute_cas(model, profile, bmi_range)
    return ProfileReport(
        result,
        what_ifs(model, profile, bmi_range),
        reidentification(result.cas, result.population, users),
        advise(model, profile, ks),
    )


def __getattr__(name: str):
    """``advise``, ``Advice`` and ``AdviceOption`` live in :mod:`.advice` (kept importable from here)."""
    if name in ("advise", "Advice", "AdviceOption"):
        from . import advice

        return getattr(advice, name)
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
