"""The funnel (SPEC §1.1–1.3): how each attribute narrows a person's anonymity set.

``CAS = Σ_{d, s, a} N[d, s, a] · Pr[h-band, w-band | s, a] · Π_k f_k[d, s, a]`` over the districts,
sexes and census age groups the profile selects; :func:`compute_cas` gives the line after each
attribute and the final CAS, unrounded, with warnings.
"""
from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from ..body import DEFAULT_BMI_RANGE, DEFAULT_MODEL, cell_bmi
from ..country import CountryModel
from ..groups import format_age_band
from ..text import format_band, format_count, plural, translate_marked
from ._profile import Profile, ages_label, area_counts, area_label, cell_probabilities, resolve, with_body
from ._reidentification import expected_anonymity_set


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
    body_model: str = DEFAULT_MODEL

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


def compute_cas(model: CountryModel, profile: Profile, bmi_range: tuple[float, float] = DEFAULT_BMI_RANGE,
                *, body_model: str | None = None) -> CasResult:
    """The funnel country → district → sex → age → height → weight → each auxiliary fraction.

    Each line is the previous one narrowed by one attribute (a withheld attribute
    leaves the count unchanged); the last line is the CAS.  ``body_model`` (``v2`` /
    ``paper``) overrides the model's own; the BMI check is the paper model's only.
    """
    r = resolve(with_body(model, body_model), profile)
    m = r.model
    p = r.profile
    country_sa = area_counts(m, None)
    area_sa = area_counts(m, r.D)
    smask = np.broadcast_to(r.S[:, None], area_sa.shape)
    sel = r.sel
    ph, phw = cell_probabilities(m, p.height, p.weight)
    lines = [
        FunnelLine("country", m.name, float(country_sa.sum())),
        FunnelLine("district", area_label(r), float(area_sa.sum())),
        FunnelLine("sex", p.sex or "any", float((area_sa * smask).sum())),
        FunnelLine("age", ages_label(m, r.A), float((area_sa * sel).sum())),
        FunnelLine("height", format_band(p.height, "height"), float((area_sa * sel * ph).sum())),
        FunnelLine("weight", format_band(p.weight, "weight"), float((area_sa * sel * phw).sum())),
    ]
    for k, fa in enumerate(r.aux):
        mass = area_counts(m, r.D, [a.f for a in r.aux[: k + 1]])
        lines.append(FunnelLine("auxiliary", fa.name, float((mass * sel * phw).sum()), key=fa.id))
    cas = lines[-1].count

    warnings: list[CasWarning] = []
    bmi = plausible = None
    if p.height is not None and p.weight is not None:
        bmi = cell_bmi(p.height, p.weight)
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
    if uses_body and m.body_note:
        warnings.append(CasWarning("body_source", m.body_note))
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
                f"Only ages {format_age_band(g.lo, g.hi)} of the census group "
                f"{format_age_band(g.census_lo, g.census_hi)} are in the study population: "
                f"{g.share:.0%} of its people are counted (taken as spread evenly over its years).",
            ))
    for fa in r.aux:
        for gap in fa.gaps:
            warnings.append(CasWarning("auxiliary_gap", gap))
        if fa.note:
            warnings.append(CasWarning("auxiliary_note", f"{translate_marked(fa.name)}: {translate_marked(fa.note)}"))
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
