"""The body statistics a data set uses, per sex × age group (issue 27).

One source for ``anonset body --country CC`` and the personal page's "body statistics" panel: the mean
and SD of height and weight, the correlation of height with ln(weight) and with weight (as the v2 model
uses them), which source and year they come from and, for an NCD-RisC prior, the NCD-RisC inputs.  Its sentences
are in the current language (English for the CLI, byte for byte as before; the page's on the page: issue 31).
"""
from __future__ import annotations

import math
from pathlib import Path

import numpy as np

from census_loaders import cache

from ..body import ncdrisc_prior
from ..groups import SEXES, format_age_band
from ..text import body_source_name, body_source_note
from ..text import gettext as _
from ._model import load_country_model


def _finite(x) -> float | None:
    x = float(x)
    return x if math.isfinite(x) else None


def body_statistics(code: str, root: Path | None = None) -> dict:
    """The body prior of data set ``code`` as a JSON-ready dict (see the module docstring).

    ``rho_height_lnweight`` is the v2 model's ρ; ``corr_height_weight`` the Pearson correlation of height
    and weight it implies (ρ·σ·E[W]/SD[W] for a log-normal weight, σ its log-SD).
    """
    m = load_country_model(code, root=root, model="v2")
    info = cache.dataset_info(m.code, root)
    prior = dict(info.get("body_prior") or {})
    hm, hs, mu, sigma, rho = m.v2_params()
    wm, ws = m.body.weight_mean, m.body.weight_sd
    ncd = None
    if prior.get("kind") == "ncdrisc":
        ncd = ncdrisc_prior(prior.get("country") or code.split("-")[0], int(prior["year"]), root)
        ncd = ncd.sort_values(["sex", "age_from"], kind="mergesort").reset_index(drop=True)
    groups = []
    for g in range(len(m.body)):
        corr_hw = float(rho[g] * sigma[g] * wm[g] / ws[g])
        row = {
            "sex": SEXES[int(m.body.sex_index[g])],
            "age": format_age_band(m.body.age_lo[g], m.body.age_hi[g]),
            "age_from": _finite(m.body.age_lo[g]), "age_to": _finite(m.body.age_hi[g]),
            "height_mean": float(hm[g]), "height_sd": float(hs[g]),
            "weight_mean": float(wm[g]), "weight_sd": float(ws[g]),
            "rho_height_lnweight": float(rho[g]), "corr_height_weight": corr_hw,
        }
        if ncd is not None:
            r = ncd.iloc[g]
            row.update({"bmi_mean": float(r["bmi_mean"]), "bmi_sd": float(r["bmi_sd"]), "bmi_k": float(r["bmi_k"]),
                        "bmi_theta": float(r["bmi_theta"]), "bmi_age_group": str(r["bmi_age_group"]),
                        "birth_cohorts": str(r["cohorts"]), "height_at_18": float(r["height_at_18"]),
                        "height_change_with_age": float(r["height_offset"]), "nhanes_group": str(r["nhanes_group"])})
        groups.append(row)
    kind = prior.get("kind") or ("borrowed" if m.borrowed_from else "own")
    return {
        "code": m.code,
        "name": m.name,
        "kind": kind,
        "country": prior.get("country") or m.body.country,
        "source": body_source_name(prior) if prior.get("source") else m.body.source,
        "year": prior.get("year"),
        "stand_ins": prior.get("stand_ins") or {},
        "self_reported": bool(m.body.self_reported),
        "note": body_source_note(m.body_note) or m.body_note,
        "groups_below_18": _("Census ages below 18 use the 18–20 group (the nearest body group), flagged as such."),
        "open_group": (_("85+: the cohorts born 85–99 years before the reference year, NCD-RisC's 85+ BMI, the "
                         "spread of the NHANES 80+ (ages top-coded at 80).") if kind == "ncdrisc" else
                       _("{group} and beyond: the oldest body group.").format(
                           group=format_age_band(float(np.max(m.body.age_lo)), math.inf))),
        "groups": groups,
    }
