"""Advice (SPEC §1.2): the least revealing changes that bring a profile's CAS to at least ``k``.

Split from :mod:`dashboard.core.personal` (which re-exports :func:`advise`, :class:`Advice` and
:class:`AdviceOption`); it works on the same resolved profile and counts.
"""
from __future__ import annotations

import math
from collections.abc import Iterable
from dataclasses import dataclass

import numpy as np

from .. import body as bm
from ..body import BAND_WIDTHS
from ..country import CountryModel
from ..errors import InputError
from ..text import format_band
from ._profile import DEFAULT_KS, Profile, Resolved, ages_label, area_counts, resolve, with_body
from ._what_ifs import evaluate


@dataclass(frozen=True)
class AdviceOption:
    """A set of changes reaching the target, and the information it gives up.

    ``bits = log2(CAS' / CAS)``: the self-information the profile loses, i.e. the
    sum along the funnel of ``−log2`` of the finer value's share of the coarser one
    (the probability mass of the finer attribute value within the coarser value,
    given the other attributes).  ``inf`` when the current CAS is 0.
    """

    changes: tuple[str, ...]
    profile: Profile
    cas: float
    bits: float

    def to_dict(self) -> dict:
        return {"changes": list(self.changes), "cas": self.cas, "bits": self.bits, "profile": self.profile.to_dict()}


@dataclass(frozen=True)
class Advice:
    """The least revealing ways to reach a CAS of at least ``k``; ``met`` if it already is."""

    k: float
    cas: float
    met: bool
    options: tuple[AdviceOption, ...]

    def to_dict(self) -> dict:
        return {"k": self.k, "cas": self.cas, "met": self.met, "options": [o.to_dict() for o in self.options]}


def _ladders(r: Resolved):
    """Per attribute, its coarsening levels (level 0 = the profile), each finer ⊆ coarser."""
    m, p = r.model, r.profile
    area = [("", r.D, {})]
    if r.district is not None:
        if p.area == "district":
            area.append((f"{m.district_label} → its {m.region_label} ({m.region_names[r.district]})",
                         m.region_members(r.district), {"area": "region"}))
        area.append((f"{m.district_label} → whole country", None, {"district": None, "area": "district"}))
    sex = [("", r.S, {})]
    if p.sex is not None:
        sex.append(("withhold sex", np.ones(2, dtype=bool), {"sex": None}))
    age = [("", r.A, {})]
    if p.ages:
        idx = np.flatnonzero(r.A)
        n = len(r.A)
        for step in (1, 2):
            grown = np.zeros(n, dtype=bool)
            for a in idx:
                grown[max(0, a - step): min(n, a + step + 1)] = True
            if grown.all() or (grown == age[-1][1]).all():
                continue
            bands = tuple((m.age_groups[a].lo, m.age_groups[a].hi) for a in np.flatnonzero(grown))
            age.append((f"widen age to {ages_label(m, grown)}", grown, {"ages": bands}))
        age.append(("withhold age", np.ones(n, dtype=bool), {"ages": ()}))
    bands = {}
    for kind in ("height", "weight"):
        band = getattr(p, kind)
        lad = [("", band, {})]
        if band is not None:
            for wdt in BAND_WIDTHS:
                if wdt <= band[1] - band[0]:
                    continue
                nb = bm.widen_band(band, wdt)
                if nb == lad[-1][1]:
                    continue
                lad.append((f"widen {kind} to {format_band(nb, kind)}", nb, {kind: nb}))
            lad.append((f"withhold {kind}", None, {kind: None}))
        bands[kind] = lad
    return area, sex, age, bands["height"], bands["weight"]


def advise(
    model: CountryModel, profile: Profile, ks: Iterable[float] = DEFAULT_KS, limit: int = 5,
    *, body_model: str | None = None,
) -> tuple[Advice, ...]:
    """For each target ``k``: the minimal changes bringing the CAS to at least ``k``.

    Candidates combine, per attribute, one level of its ladder: the district → its
    region → the whole country; sex → withheld; age → one or two neighbouring
    groups added on each side → withheld; each band → every wider width
    (:func:`body_model.widen_band`) → withheld; each auxiliary fraction → withheld.
    A candidate is kept only if undoing any one of its changes drops it below
    ``k`` (minimal), and candidates are ranked by the bits they give up
    (``log2(CAS'/CAS)``, see :class:`AdviceOption`), then by the number of changes.
    """
    r = resolve(with_body(model, body_model), profile)
    m, p = r.model, r.profile
    area, sex, age, hlad, wlad = _ladders(r)
    n_aux = len(r.aux)
    # masses [area level, aux subset, sex, age]; subset bit k set = aux k withheld
    subsets = list(np.ndindex(*(2,) * n_aux)) if n_aux else [()]
    mass = np.empty((len(area), len(subsets)) + m.counts.shape[1:])
    for i, (_, D, _) in enumerate(area):
        for j, bits in enumerate(subsets):
            fs = [fa.f for fa, off in zip(r.aux, bits) if not off]
            mass[i, j] = area_counts(m, D, fs)
    masks = np.array([[s[1][:, None] & a[1][None, :] for a in age] for s in sex], dtype=float)  # [sl, al, s, a]
    P = m.group_cell_table([b for _, b, _ in hlad], [b for _, b, _ in wlad])  # [g, hl, wl]
    B = np.einsum("sag,gij->saij", m.body_weights, P)
    cas = np.einsum("xysa,klsa,saij->xyklij", mass, masks, B)
    cas = cas.reshape((len(area),) + (2,) * n_aux + cas.shape[2:])
    current = evaluate(r)
    names = [fa.name for fa in r.aux]
    out = []
    for k in ks:
        k = float(k)
        if not k > 0:
            raise InputError(f"the target k must be a positive number, not {k:g}")
        if current >= k:
            out.append(Advice(k, current, True, ()))
            continue
        q = cas >= k
        minimal = q.copy()
        for ax in range(q.ndim):
            lower = np.zeros_like(q)
            src = [slice(None)] * q.ndim
            dst = [slice(None)] * q.ndim
            src[ax], dst[ax] = slice(None, -1), slice(1, None)
            lower[tuple(dst)] = q[tuple(src)]
            minimal &= ~lower
        options = []
        for idx in np.argwhere(minimal):
            idx = tuple(int(i) for i in idx)
            value = float(cas[idx])
            changes, kw = [], {}
            a_lvl, aux_lvls, (sl, al, hl, wl) = idx[0], idx[1:1 + n_aux], idx[1 + n_aux:]
            for lad, lvl in ((area, a_lvl), (sex, sl), (age, al), (hlad, hl), (wlad, wl)):
                if lvl:
                    changes.append(lad[lvl][0])
                    kw.update(lad[lvl][2])
            kept = []
            for j, off in enumerate(aux_lvls):
                if off:
                    changes.append(f"withhold “{names[j]}”")
                else:
                    kept.append(p.aux[j])
            if len(kept) != n_aux:
                kw["aux"] = tuple(kept)
            bits = math.log2(value / current) if current > 0 else math.inf
            options.append(AdviceOption(tuple(changes), p.replace(**kw), value, bits))
        options.sort(key=lambda o: (o.bits, o.cas, len(o.changes)))
        out.append(Advice(k, current, False, tuple(options[:limit] if limit else options)))
    return tuple(out)
