"""The body models tested on real people: the NHANES 2017–2018 adults as a population (issue 13).

AnonLand (SPEC §4) checks CAS against real anonymity sets of a *synthetic* country
whose heights and weights are independent normals — the paper model's own
assumption.  Here the population is real: the 4,850 NHANES adults aged 18–74 with
measured height and weight (``census_loaders.nhanes.adults``).  Treat them as a
country of ``N`` people and, for each person,

* the **real set** RAS = the people with the same sex, age group (the census 5-year
  groups 18–20, 20–25, …, 70–75), height band and weight band (5 cm × 5 kg by
  default), the person included;
* the model's **CAS** = ``N(sex, age) · Pr_model[h-band, w-band | sex, age]`` with
  the census counts = the sample's own sex × age counts and the body statistics =
  the sample's own means and SDs per sex × age group; the v2 correlation ρ is
  fitted on the *other half* of the sample (2-fold, a fixed seeded split), so no
  person's own record informs the ρ used for them; the paper model takes ρ = 0 and
  normal weights;
* the **expected set** ``E = 1 + (N(sex, age) − 1) · p`` (SPEC §1.7), the quantity a
  person's real set is to be compared with.

Reported per model (:func:`validate`):

* ``by_ras``: per RAS range (AnonLand's), people and the median divergence
  ``(E − RAS) / RAS`` and ``(CAS − RAS) / RAS``, and the median absolute divergence;
* ``median_abs_divergence``: median ``|E − RAS| / RAS`` over people with RAS ≥ 10;
* ``heldout_loglik_per_person``: mean ``ln p`` of each person's own cell (nats);
* ``calibration``: people in deciles of the predicted cell probability ``p``, the
  mean ``p`` and the mean observed leave-one-out frequency ``(RAS − 1) / (N − 1)``
  of their cell (equal in expectation when the model is right);
* ``correlation``: the fitted ρ by sex and age group (per fold, and on all people);
* ``left_out_share``: the people the model's aggregates leave out (paper: centre BMI
  outside 17–30; v2: none).

Also the self-report offsets (self-reported minus measured height and weight,
SPEC §1.6).  Pure: NumPy/SciPy/pandas, no Dash.
"""
from __future__ import annotations

import math
from dataclasses import dataclass
from pathlib import Path

import numpy as np
import pandas as pd

from census_loaders import cache, nhanes
from census_loaders.paths import cache_dir

from .. import bvn
from ..errors import InputError
from ..ras_ranges import ras_range_label, ras_range_masks
from ._bands import DEFAULT_BMI_RANGE, interval_probability
from ._correlation import RHO_GROUPS, SEXES, correlation_table
from ._v2 import MODELS, check_model, lognormal_params

#: The fixed seed of the 2-fold split.
SEED: int = 20_170_918
#: Median absolute divergence is reported for people whose real set has at least this many.
LARGE_RAS: int = 10


def _age_group(age: np.ndarray) -> np.ndarray:
    """Index into :data:`RHO_GROUPS` (the census 5-year groups 18–20 … 70–75); −1 outside."""
    out = np.full(age.shape, -1, dtype=np.int64)
    for g, (lo, hi) in enumerate(RHO_GROUPS):
        out[(age >= lo) & (age < hi)] = g
    return out


@dataclass(frozen=True)
class People:
    """The validation population: one row per person, every index precomputed."""

    sex: np.ndarray  # (n,) 0 female, 1 male
    group: np.ndarray  # (n,) age-group index
    height: np.ndarray
    weight: np.ndarray
    fold: np.ndarray  # (n,) 0/1
    frame: pd.DataFrame

    @property
    def n(self) -> int:
        return len(self.sex)

    @property
    def cell_group(self) -> np.ndarray:
        """Sex × age group index, ``sex * G + group``."""
        return self.sex * len(RHO_GROUPS) + self.group


def people_from_frame(df: pd.DataFrame, seed: int = SEED) -> People:
    """The adults of a NHANES-like frame (``sex, age, height_cm, weight_kg``) with a seeded 2-fold split."""
    need = ["sex", "age", "height_cm", "weight_kg"]
    missing = [c for c in need if c not in df.columns]
    if missing:
        raise InputError(f"the NHANES sample lacks column(s) {missing}")
    sex = df["sex"].astype(str).str.lower().map({s: i for i, s in enumerate(SEXES)})
    age = pd.to_numeric(df["age"], errors="coerce").to_numpy(float)
    h = pd.to_numeric(df["height_cm"], errors="coerce").to_numpy(float)
    w = pd.to_numeric(df["weight_kg"], errors="coerce").to_numpy(float)
    group = _age_group(age)
    keep = sex.notna().to_numpy() & (group >= 0) & np.isfinite(h) & np.isfinite(w) & (w > 0)
    if keep.sum() < 20:
        raise InputError("the NHANES sample holds too few adults with measured height and weight to validate on")
    rng = np.random.default_rng(seed)
    fold = np.zeros(int(keep.sum()), dtype=np.int64)
    fold[rng.permutation(len(fold))[: len(fold) // 2]] = 1
    return People(sex.to_numpy()[keep].astype(np.int64), group[keep], h[keep], w[keep], fold,
                  df.loc[keep].reset_index(drop=True))


def load_people(root: Path | None = None, seed: int = SEED) -> People:
    """The NHANES adults 18–74 of the cache; a clear InputError naming the file when missing or damaged."""

    path = (Path(root) if root is not None else cache_dir()) / "microdata" / "nhanes.parquet"
    try:
        df = nhanes.adults(cache.microdata("nhanes", root))
    except KeyError as exc:
        raise InputError(f"{exc.args[0] if exc.args else exc}: run `anonset data build` to add the NHANES sample "
                         f"({path})") from None
    except FileNotFoundError:
        raise InputError(f"the NHANES sample {path} is missing: run `anonset data build`") from None
    except (OSError, ValueError) as exc:
        raise InputError(f"the NHANES sample {path} cannot be read ({exc}): run `anonset data build`") from None
    return people_from_frame(df, seed)


def group_stats(p: People) -> dict[str, np.ndarray]:
    """Per sex × age group (``2·G``): count, means and SDs of height and weight (the sample's own)."""
    k = 2 * len(RHO_GROUPS)
    cg = p.cell_group
    n = np.bincount(cg, minlength=k).astype(float)
    out = {"n": n}
    for name, x in (("height", p.height), ("weight", p.weight)):
        s1 = np.bincount(cg, x, minlength=k)
        s2 = np.bincount(cg, x * x, minlength=k)
        with np.errstate(invalid="ignore", divide="ignore"):
            mean = s1 / n
            var = (s2 - n * mean**2) / (n - 1)
        out[f"{name}_mean"], out[f"{name}_sd"] = mean, np.sqrt(np.maximum(var, 0.0))
    return out


def _rho_by_fold(p: People) -> tuple[np.ndarray, pd.DataFrame]:
    """ρ per person from the other fold, and the table of fitted ρ (per fold and on all people)."""
    frame = pd.DataFrame({"sex": np.array(SEXES)[p.sex], "age": np.array([RHO_GROUPS[g][0] for g in p.group]),
                          "height_cm": p.height, "weight_kg": p.weight})
    tables = [correlation_table(frame[p.fold == f]) for f in (0, 1)]
    both = correlation_table(frame)
    table = both[["sex", "age_from", "age_to", "n", "rho"]].copy()
    table["rho_fold0"], table["rho_fold1"] = tables[0]["rho"].to_numpy(), tables[1]["rho"].to_numpy()
    rho_person = np.empty(p.n)
    for f in (0, 1):
        r = np.nan_to_num(tables[1 - f]["rho"].to_numpy(float))  # indexed sex * G + group, as cell_group
        sel = p.fold == f
        rho_person[sel] = r[p.cell_group[sel]]
    return rho_person, table


def cell_probabilities(p: People, model: str, height_width: float = 5, weight_width: float = 5) -> dict:
    """Each person's own-cell probability under ``model``, with the arrays it came from."""
    model = check_model(model)
    st = group_stats(p)
    cg = p.cell_group
    h0 = np.floor(p.height / height_width) * height_width
    w0 = np.floor(p.weight / weight_width) * weight_width
    h1, w1 = h0 + height_width, w0 + weight_width
    hm, hs = st["height_mean"][cg], st["height_sd"][cg]
    wm, ws = st["weight_mean"][cg], st["weight_sd"][cg]
    table = None
    if model == "paper":
        prob = interval_probability(hm, hs, h0, h1) * interval_probability(wm, ws, w0, w1)
    else:
        rho, table = _rho_by_fold(p)
        mu, sigma = lognormal_params(wm, ws)
        with np.errstate(divide="ignore"):
            zw0 = np.where(w0 > 0, (np.log(np.maximum(w0, 1e-300)) - mu) / sigma, -np.inf)
        zw1 = (np.log(w1) - mu) / sigma
        prob = bvn.rectangle((h0 - hm) / hs, (h1 - hm) / hs, zw0, zw1, rho)
    return {"p": prob, "N": st["n"][cg], "h0": h0, "w0": w0, "correlation": table}


def real_sets(p: People, height_width: float = 5, weight_width: float = 5) -> np.ndarray:
    """RAS: people with the same sex, age group, height band and weight band (the person included)."""
    key = pd.DataFrame({"g": p.cell_group, "h": np.floor(p.height / height_width),
                        "w": np.floor(p.weight / weight_width)})
    return key.groupby(["g", "h", "w"])["g"].transform("size").to_numpy(np.int64)


def _med(x) -> float | None:
    x = np.asarray(x, float)
    return float(np.median(x)) if x.size else None


def _model_report(p: People, model: str, ras: np.ndarray, height_width: float, weight_width: float,
                  bmi_range=DEFAULT_BMI_RANGE) -> dict:
    c = cell_probabilities(p, model, height_width, weight_width)
    prob, N = c["p"], c["N"]
    cas = N * prob
    expected = 1.0 + (N - 1.0) * prob
    div_e = (expected - ras) / ras
    div_c = (cas - ras) / ras
    by_ras = []
    for lo, hi, m in ras_range_masks(ras):
        by_ras.append({
            "range": ras_range_label(lo, hi), "ras_lo": lo, "ras_hi": hi, "n": int(m.sum()),
            "median_divergence_expected": _med(div_e[m]), "median_divergence_cas": _med(div_c[m]),
            "median_abs_divergence_expected": _med(np.abs(div_e[m])),
            "median_abs_divergence_cas": _med(np.abs(div_c[m])),
        })
    with np.errstate(divide="ignore"):
        loglik = np.log(prob)
    order = np.argsort(prob, kind="stable")
    observed = (ras - 1.0) / np.maximum(N - 1.0, 1.0)
    calibration = []
    for d, idx in enumerate(np.array_split(order, 10), 1):
        calibration.append({"decile": d, "n": int(idx.size), "mean_predicted": float(prob[idx].mean()),
                            "mean_observed": float(observed[idx].mean()),
                            "ratio": float(observed[idx].mean() / prob[idx].mean()) if prob[idx].mean() > 0 else None})
    large = ras >= LARGE_RAS
    out = {
        "heldout_loglik_per_person": float(loglik.mean()) if np.isfinite(loglik).all() else -math.inf,
        "median_abs_divergence": _med(np.abs(div_e[large])),
        "median_abs_divergence_cas": _med(np.abs(div_c[large])),
        "median_divergence_ras1_expected": _med(div_e[ras == 1]),
        "median_divergence_ras1_cas": _med(div_c[ras == 1]),
        "by_ras": by_ras,
        "calibration": calibration,
    }
    if model == "paper":
        hc, wc = c["h0"] + height_width / 2, c["w0"] + weight_width / 2
        bmi = wc / (hc / 100.0) ** 2
        out["left_out_share"] = float(((bmi < bmi_range[0]) | (bmi > bmi_range[1])).mean())
        out["correlation"] = [{"sex": s, "age_from": lo, "age_to": hi, "rho": 0.0}
                              for s in SEXES for lo, hi in RHO_GROUPS]
        out["correlation_note"] = "the paper model takes height and weight as independent (ρ = 0)"
    else:
        out["left_out_share"] = 0.0
        out["correlation"] = [{k: (None if isinstance(v, float) and math.isnan(v) else v) for k, v in r.items()}
                              for r in c["correlation"].to_dict("records")]
        out["correlation_note"] = ("ρ of height and ln(weight), fitted on each half of the sample; every person is "
                                   "scored with the ρ of the other half (rho_fold0 scores fold 1, and vice versa)")
    return out


def measured_self_report_offsets(p: People) -> dict:
    """Self-reported minus measured height (cm) and weight (kg), mean and median (SPEC §1.6)."""
    df = p.frame
    out = {}
    for name, self_col, col in (("height_cm", "self_height_cm", "height_cm"), ("weight_kg", "self_weight_kg", "weight_kg")):
        if self_col not in df.columns:
            continue
        d = (pd.to_numeric(df[self_col], errors="coerce") - df[col]).dropna().to_numpy(float)
        out[name] = {"mean": float(d.mean()), "median": float(np.median(d)), "n": int(d.size)}
    return out


def validate(people: People, models=MODELS, height_width: float = 5, weight_width: float = 5) -> dict:
    """The validation report (see the module docstring) for each model in ``models``."""
    models = tuple(dict.fromkeys(check_model(m) for m in models))
    if not models:
        raise InputError("choose at least one body model: v2 or paper")
    ras = real_sets(people, height_width, weight_width)
    st = group_stats(people)
    return {
        "population": people.n,
        "groups": int((st["n"] > 0).sum()),
        "height_width": height_width,
        "weight_width": weight_width,
        "folds": 2,
        "seed": SEED,
        "people_with_ras_1": int((ras == 1).sum()),
        "people_with_ras_at_least_10": int((ras >= LARGE_RAS).sum()),
        "self_report": measured_self_report_offsets(people),
        "models": {m: _model_report(people, m, ras, height_width, weight_width) for m in models},
    }


def validate_nhanes(models=MODELS, root: Path | None = None, height_width: float = 5, weight_width: float = 5) -> dict:
    """:func:`validate` on the cached NHANES adults."""
    return validate(load_people(root), models, height_width, weight_width)
