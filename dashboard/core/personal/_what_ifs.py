"""What-ifs (SPEC §1.2): the CAS for every other value of each attribute, for widening and withholding."""
from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np

from .. import body as bm
from ..body import BAND_LIMITS, BAND_WIDTHS, DEFAULT_BMI_RANGE
from ..country import CountryModel
from ..groups import SEXES
from ..parsing import DEFAULT_WIDTH
from ..text import format_band
from ._profile import Profile, Resolved, area_counts, cell_probabilities, resolve, with_body

#: How far (in SD of the body groups involved) the height/weight what-ifs reach.
WHATIF_SDS = bm.PROFILE_SDS


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


def _band_what_if(r: Resolved, kind: str, mass_sel: np.ndarray, bmi_range) -> WhatIf:
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


def evaluate(r: Resolved, *, D="same", S=None, A=None, h="same", w="same", aux=None) -> float:
    """The final CAS of the resolved profile with some attributes replaced."""
    m, p = r.model, r.profile
    D = r.D if isinstance(D, str) else D
    S = r.S if S is None else S
    A = r.A if A is None else A
    h = p.height if isinstance(h, str) else h
    w = p.weight if isinstance(w, str) else w
    fs = [a.f for a in (r.aux if aux is None else aux)]
    mass = area_counts(m, D, fs)
    _, phw = cell_probabilities(m, h, w)
    return float((mass * (S[:, None] & A[None, :]) * phw).sum())


def what_ifs(model: CountryModel, profile: Profile, bmi_range: tuple[float, float] = DEFAULT_BMI_RANGE,
             *, body_model: str | None = None) -> WhatIfs:
    """For each attribute, the final CAS for every other value; widening and withholding.

    Height and weight bands span ±4 SD of the body groups involved at the chosen
    width (5 when withheld); districts are ranked by CAS.
    """
    r = resolve(with_body(model, body_model), profile)
    m, p = r.model, r.profile
    fs = [a.f for a in r.aux]
    sel = r.sel
    _, phw = cell_probabilities(m, p.height, p.weight)
    mass = area_counts(m, r.D, fs)
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
            widen.append(Change(kind, "widen", f"{kind} {format_band(nb, kind)} (width {wdt})", evaluate(r, **kw), new))
    withhold = _withholdings(r)
    return WhatIfs(cas, district, sex, age, height, weight, tuple(widen), tuple(withhold))


def _withholdings(r: Resolved) -> list[Change]:
    m, p = r.model, r.profile
    out = []
    if r.district is not None:
        if p.area == "district":
            out.append(Change("district", "region", f"{m.district_label} → its {m.region_label} ({m.region_names[r.district]})",
                              evaluate(r, D=m.region_members(r.district)), p.replace(area="region")))
        out.append(Change("district", "country", f"{m.district_label} → whole country", evaluate(r, D=None),
                          p.replace(district=None, area="district")))
    if p.sex is not None:
        out.append(Change("sex", "withhold", "withhold sex", evaluate(r, S=np.ones(2, dtype=bool)), p.replace(sex=None)))
    if p.ages:
        out.append(Change("age", "withhold", "withhold age", evaluate(r, A=np.ones_like(r.A)), p.replace(ages=())))
    if p.height is not None:
        out.append(Change("height", "withhold", "withhold height", evaluate(r, h=None), p.replace(height=None)))
    if p.weight is not None:
        out.append(Change("weight", "withhold", "withhold weight", evaluate(r, w=None), p.replace(weight=None)))
    for k, fa in enumerate(r.aux):
        rest = r.aux[:k] + r.aux[k + 1:]
        out.append(Change(fa.id, "withhold", f"withhold “{fa.name}”", evaluate(r, aux=rest),
                          p.replace(aux=p.aux[:k] + p.aux[k + 1:])))
    return out
