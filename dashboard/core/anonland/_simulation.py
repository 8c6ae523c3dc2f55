"""AnonLand: a synthetic country where the real anonymity sets are known (SPEC §4).

The validation asks how close the conditional anonymity set (CAS, estimated from
census statistics) comes to the real anonymity set (RAS, counted among people).

How AnonLand is made, and the choices the SPEC leaves open:

* **Population.**  Each district's people are split over sex × 5-year age group by
  one multinomial draw (fair coin for sex, the age density uniform on ``[0, 40)``
  and falling linearly to zero at 90).  Heights and weights are independent
  normals given sex.  Every person exists: district ``d``'s heights and weights
  are one reproducible draw from a generator keyed by ``(seed, d)``
  (:func:`district_people`), its people ordered by cell ``sex × age group``.  So a
  test can materialise a whole (small) AnonLand and recount anything.
* **Census.**  The counts per district × sex × age group, and the mean and
  standard deviation (population SD, ``ddof=0``) of height and weight per sex ×
  age group **computed from every person's draw** — a census *of* AnonLand, not
  of the model behind it.  All 102.5 million people are drawn once, streamed
  district by district; only their per-cell sums are kept.
* **Noisy census.**  Laplace noise of scale ``1/ε`` (sensitivity 1) on every
  histogram count, i.e. every district × sex × age-group count; the noisy count
  is kept unrounded and clipped at 0 (a negative number of people cannot enter
  ``N · Pr``).  The body means and SDs are not histogram counts and are *not*
  noised, so the noisy CAS differs from the plain one only through ``N``.
* **Test citizens.**  Per district class, distinct people drawn uniformly from
  the class's whole population (so districts are chosen in proportion to their
  size and a citizen's sex and age group follow the district's counts).  A
  citizen is a person of its cell, so its RAS counts itself: ``RAS ≥ 1``.
* **RAS** = people of the citizen's district, sex and age group whose height and
  weight fall in the citizen's bands (half-open, aligned as :func:`band_of`).
  **CAS** = ``N(d, s, a) · Pr[h band, w band | s, a]`` from the census moments,
  under the body model of the run (``body_model``, SPEC §1.6; both are kept per
  citizen, ``cas_v2`` and ``cas_paper``):

  - ``v2`` (the default): ``(H, ln W)`` bivariate normal, the weight log-normal
    matched to the census mean and SD, ρ the NHANES estimate for the sex and
    age group (the nearest NHANES group for children and the over-75s) —
    the model AnonSet uses everywhere;
  - ``paper``: independent normals, ``Pr[h band] · Pr[w band]`` through
    :func:`interval_probability`.

  AnonLand's people are drawn with independent normal heights and weights (the
  paper model's world, SPEC §4), so under ``v2`` the divergence also measures
  what v2's correlation and skew cost where reality has neither; the "Real
  people" page (NHANES) measures the other way round.

Randomness: one :class:`numpy.random.SeedSequence` per stage, keyed by
``spawn_key`` (``(stage,)`` or ``(stage, district)``), so a run is deterministic
for a seed and any district can be redrawn alone.  Nothing here imports Dash.
"""
from __future__ import annotations

import json
import math
import numbers
import os
import resource
import time
from collections.abc import Callable
from dataclasses import asdict, dataclass, field, replace
from pathlib import Path

import numpy as np
import pandas as pd

from census_loaders.cache import read_parquet
from census_loaders.paths import cache_dir

from .. import bvn
from ..body import (
    MODELS,
    check_model,
    interval_probability,
    lognormal_params,
    nhanes_correlation,
    rho_for_groups,
    safe_log,
)
from ..errors import InputError
from ..groups import SEXES, format_age_band
from ..ras_ranges import ras_range_label, ras_range_masks
from ..text import gettext as _
from ..text import local_number, ngettext, pgettext

#: ``progress(fraction in [0, 1], message)``; it may raise to cancel a run.
Progress = Callable[[float, str], None]


#: A citizen "diverges" when ``|CAS − RAS| / RAS`` exceeds this.
DIVERGENCE_THRESHOLD: float = 0.25
#: The box plot of CAS per RAS covers RAS below this.
BOX_RAS_LIMIT: int = 25
#: The median divergence is reported for RAS above this.
LARGE_RAS: int = 25
#: File names of a written result.
CITIZENS_FILE, SUMMARY_FILE = "citizens.parquet", "summary.json"

# Stages of the seed sequence (spawn_key[0]); fixed so results never shift.
_STAGE_COUNTS, _STAGE_NOISE, _STAGE_CITIZENS, _STAGE_AGES, _STAGE_BODY = range(5)
#: Same tolerance as ``body_model.band_of``: a value on a band edge belongs above it.
_BAND_EPS = 1e-9




def _count(n: int) -> str:
    """A whole number the language's way (1,234 in English, 1.234 in German)."""
    return local_number(f"{int(n):,}")


def class_label(name: str) -> str:
    """A district class's name in the current language (results and the CLI keep the English name)."""
    return {"metropolis": pgettext("AnonLand district class", "metropolis"),
            "city": pgettext("AnonLand district class", "city"),
            "county": pgettext("AnonLand district class", "county"),
            "town": pgettext("AnonLand district class", "town"),
            "village": pgettext("AnonLand district class", "village")}.get(name, name)


@dataclass(frozen=True)
class DistrictClass:
    """``number`` districts of ``size`` people each."""

    name: str
    size: int
    number: int


#: SPEC §4: 102.5 million people in five classes.
DEFAULT_CLASSES: tuple[DistrictClass, ...] = (
    DistrictClass("metropolis", 5_000_000, 5),
    DistrictClass("city", 1_000_000, 25),
    DistrictClass("county", 100_000, 250),
    DistrictClass("town", 10_000, 2_500),
    DistrictClass("village", 1_000, 2_500),
)


def _finite(value, what: str) -> float:
    if isinstance(value, bool) or not isinstance(value, numbers.Real):
        raise InputError(f"{what} must be a number, not {value!r}")
    value = float(value)
    if not math.isfinite(value):
        raise InputError(f"{what} must be a finite number, not {value!r}")
    return value


def _whole(value, what: str, minimum: int) -> int:
    x = _finite(value, what)
    if not x.is_integer() or x < minimum:
        raise InputError(f"{what} must be a whole number of at least {minimum}, not {value!r}")
    return int(x)


@dataclass(frozen=True)
class AnonLandConfig:
    """Every parameter of one AnonLand run; invalid values raise :class:`InputError`.

    Per-sex tuples are in :data:`body_model.SEXES` order ``(female, male)``.
    """

    classes: tuple[DistrictClass, ...] = DEFAULT_CLASSES
    age_max: int = 90
    age_plateau: int = 40
    age_group_width: int = 5
    male_share: float = 0.5
    height_mean: tuple[float, float] = (175.0, 180.0)
    height_sd: tuple[float, float] = (10.0, 10.0)
    weight_mean: tuple[float, float] = (70.0, 80.0)
    weight_sd: tuple[float, float] = (10.0, 10.0)
    height_width: float = 5.0
    weight_width: float = 5.0
    citizens_per_class: int = 1_000
    epsilon: float = 2.0
    seed: int = 2026
    body_model: str = "v2"

    def __post_init__(self) -> None:
        classes = tuple(self.classes)
        if not classes:
            raise InputError("AnonLand needs at least one district class")
        checked = []
        for c in classes:
            if not isinstance(c, DistrictClass):
                c = DistrictClass(*c)
            size = _whole(c.size, f"the district size of {c.name!r}", 1)
            number = _whole(c.number, f"the number of {c.name!r} districts", 1)
            checked.append(DistrictClass(str(c.name), size, number))
        object.__setattr__(self, "classes", tuple(checked))
        age_max = _whole(self.age_max, "the maximum age", 1)
        plateau = _whole(self.age_plateau, "the end of the flat part of the age density", 0)
        if plateau > age_max:
            raise InputError(f"the age density's flat part ({plateau}) must end by the maximum age ({age_max})")
        object.__setattr__(self, "age_max", age_max)
        object.__setattr__(self, "age_plateau", plateau)
        object.__setattr__(self, "age_group_width", _whole(self.age_group_width, "the age group width", 1))
        share = _finite(self.male_share, "the share of men")
        if not 0.0 <= share <= 1.0:
            raise InputError(f"the share of men must lie in [0, 1], not {share:g}")
        object.__setattr__(self, "male_share", share)
        for name in ("height_mean", "height_sd", "weight_mean", "weight_sd"):
            values = tuple(getattr(self, name))
            if len(values) != len(SEXES):
                raise InputError(f"{name} needs one value per sex {SEXES}")
            values = tuple(_finite(v, name.replace("_", " ")) for v in values)
            if name.endswith("sd") and min(values) <= 0:
                raise InputError(f"{name.replace('_', ' ')} must be positive")
            object.__setattr__(self, name, values)
        for name in ("height_width", "weight_width"):
            w = _finite(getattr(self, name), name.replace("_", " "))
            if w <= 0:
                raise InputError(f"the {name.replace('_', ' ')} must be positive, not {w:g}")
            object.__setattr__(self, name, w)
        eps = _finite(self.epsilon, "ε")
        if eps <= 0:
            raise InputError(f"the privacy parameter ε must be positive, not {eps:g}")
        object.__setattr__(self, "epsilon", eps)
        k = _whole(self.citizens_per_class, "the number of test citizens per district class", 1)
        object.__setattr__(self, "citizens_per_class", k)
        for c in checked:
            if k > c.size * c.number:
                raise InputError(_("{citizens} test citizens per class exceed the {people} people of the {district_class} "
                                   "class").format(citizens=_count(k), people=_count(c.size * c.number),
                                                                    district_class=class_label(c.name)))
        object.__setattr__(self, "seed", _whole(self.seed, "the seed", 0))
        object.__setattr__(self, "body_model", check_model(self.body_model))

    # ---- derived

    def scaled(self, factor: float) -> AnonLandConfig:
        """The same AnonLand with every district size multiplied by ``factor`` (rounded)."""
        f = _finite(factor, "the scale")
        if f <= 0:
            raise InputError(f"the scale must be positive, not {f:g}")
        classes = []
        for c in self.classes:
            size = round(c.size * f)
            if size < 1:
                raise InputError(f"at scale {f:g} a {c.name} of {c.size:,} people would be empty")
            classes.append(DistrictClass(c.name, size, c.number))
        return replace(self, classes=tuple(classes))

    @property
    def n_districts(self) -> int:
        return sum(c.number for c in self.classes)

    @property
    def population(self) -> int:
        return sum(c.size * c.number for c in self.classes)

    @property
    def n_citizens(self) -> int:
        return self.citizens_per_class * len(self.classes)

    @property
    def age_groups(self) -> tuple[tuple[int, int], ...]:
        """Half-open census age groups ``[lo, hi)``; the last ends at :attr:`age_max`."""
        lo = range(0, self.age_max, self.age_group_width)
        return tuple((a, min(a + self.age_group_width, self.age_max)) for a in lo)

    def district_sizes(self) -> np.ndarray:
        """People per district, classes in order."""
        return np.repeat([c.size for c in self.classes], [c.number for c in self.classes]).astype(np.int64)

    def district_class(self) -> np.ndarray:
        """Index of each district's class."""
        return np.repeat(np.arange(len(self.classes)), [c.number for c in self.classes])

    def as_dict(self) -> dict:
        """JSON-ready parameters (what the summary records)."""
        d = asdict(self)
        d["classes"] = [asdict(c) for c in self.classes]
        d["sexes"] = list(SEXES)
        d["laplace_scale"] = 1.0 / self.epsilon
        d["population"] = self.population
        d["n_districts"] = self.n_districts
        d["n_citizens"] = self.n_citizens
        return d




def _age_area(cfg: AnonLandConfig) -> float:
    return cfg.age_plateau + 0.5 * (cfg.age_max - cfg.age_plateau)


def age_cdf(cfg: AnonLandConfig, x) -> np.ndarray:
    """CDF of the age density: uniform on ``[0, plateau)``, linear to zero at ``age_max``."""
    x = np.clip(np.asarray(x, float), 0.0, cfg.age_max)
    p, m = float(cfg.age_plateau), float(cfg.age_max)
    tail = np.where(x > p, ((m - p) ** 2 - (m - x) ** 2) / (2.0 * (m - p) if m > p else 1.0), 0.0)
    return (np.minimum(x, p) + tail) / _age_area(cfg)


def age_quantile(cfg: AnonLandConfig, u) -> np.ndarray:
    """Inverse of :func:`age_cdf`, for drawing ages."""
    y = np.asarray(u, float) * _age_area(cfg)
    p, m = float(cfg.age_plateau), float(cfg.age_max)
    rest = np.maximum((m - p) ** 2 - 2.0 * (m - p) * np.maximum(y - p, 0.0), 0.0)
    return np.where(y <= p, y, m - np.sqrt(rest))


def age_group_probabilities(cfg: AnonLandConfig) -> np.ndarray:
    """Share of people in each census age group (sums to 1)."""
    edges = np.array([lo for lo, _ in cfg.age_groups] + [cfg.age_max], float)
    return np.diff(age_cdf(cfg, edges))


def cell_probabilities(cfg: AnonLandConfig) -> np.ndarray:
    """``[sex, age group]`` share of a district's people."""
    sex = np.array([1.0 - cfg.male_share, cfg.male_share])
    return sex[:, None] * age_group_probabilities(cfg)[None, :]




def _rng(cfg: AnonLandConfig, *key: int) -> np.random.Generator:
    """The generator of one stage (and district): independent streams, addressable by key."""
    return np.random.Generator(np.random.PCG64(np.random.SeedSequence(cfg.seed, spawn_key=tuple(key))))


def _band_index(values: np.ndarray, width: float) -> np.ndarray:
    """Vectorised :func:`band_of`: band ``i`` is ``[i·width, (i+1)·width)``."""
    return np.floor(np.asarray(values, float) / width + _BAND_EPS).astype(np.int64)




@dataclass(frozen=True, eq=False)
class Census:
    """AnonLand's two censuses: axes ``[district, sex, age group]`` and ``[sex, age group]``.

    ``noise`` is the raw Laplace draw; ``noisy_counts = max(counts + noise, 0)``.
    Body statistics are shared by both censuses (they are not noised).
    """

    counts: np.ndarray
    noise: np.ndarray
    noisy_counts: np.ndarray
    height_mean: np.ndarray
    height_sd: np.ndarray
    weight_mean: np.ndarray
    weight_sd: np.ndarray

    def body_table(self, cfg: AnonLandConfig) -> list[dict]:
        """One row per sex × age group: people, and the census height/weight normals."""
        rows = []
        totals = self.counts.sum(axis=0)
        for s, sex in enumerate(SEXES):
            for a, (lo, hi) in enumerate(cfg.age_groups):
                rows.append({
                    "sex": sex, "age_group": format_age_band(lo, hi), "people": int(totals[s, a]),
                    "height_mean": float(self.height_mean[s, a]), "height_sd": float(self.height_sd[s, a]),
                    "weight_mean": float(self.weight_mean[s, a]), "weight_sd": float(self.weight_sd[s, a]),
                })
        return rows


def draw_counts(cfg: AnonLandConfig) -> np.ndarray:
    """Census counts ``[district, sex, age group]``: one multinomial per district."""
    p = cell_probabilities(cfg)
    flat = _rng(cfg, _STAGE_COUNTS).multinomial(cfg.district_sizes(), p.reshape(-1))
    return flat.reshape(cfg.n_districts, *p.shape).astype(np.int64)


def draw_noise(cfg: AnonLandConfig, shape: tuple[int, ...]) -> np.ndarray:
    """Laplace noise of scale ``1/ε`` (sensitivity 1) for every histogram count."""
    return _rng(cfg, _STAGE_NOISE).laplace(0.0, 1.0 / cfg.epsilon, size=shape)


def _district_normals(cfg: AnonLandConfig, district: int, n: int) -> tuple[np.ndarray, np.ndarray]:
    """Standard normals behind district ``district``'s heights and weights (people in cell order)."""
    rng = _rng(cfg, _STAGE_BODY, int(district))
    return rng.standard_normal(n), rng.standard_normal(n)


def district_people(cfg: AnonLandConfig, counts: np.ndarray, district: int) -> pd.DataFrame:
    """Every person of one district: ``sex``, ``age_group`` (index), ``height``, ``weight``.

    The same draws :func:`run_anonland` counts RAS on and takes the census from;
    meant for tests and for small AnonLands (memory grows with the district).
    """
    cells = np.asarray(counts[district]).reshape(-1)
    zh, zw = _district_normals(cfg, district, int(cells.sum()))
    n_age = counts.shape[2]
    cell = np.repeat(np.arange(cells.size), cells)
    sex, age = cell // n_age, cell % n_age
    hm, hs = np.asarray(cfg.height_mean), np.asarray(cfg.height_sd)
    wm, ws = np.asarray(cfg.weight_mean), np.asarray(cfg.weight_sd)
    return pd.DataFrame({
        "sex": sex, "age_group": age,
        "height": hm[sex] + hs[sex] * zh, "weight": wm[sex] + ws[sex] * zw,
    })




def draw_citizens(cfg: AnonLandConfig, counts: np.ndarray) -> pd.DataFrame:
    """Distinct test citizens per class, uniform over each class's people.

    Columns: ``district_class`` (index), ``district``, ``person`` (index inside the
    district, people ordered by cell), ``sex``, ``age_group`` (indices), ``cell_pos``
    (index inside its cell) and ``age`` (whole years, from the age density within
    the group).  Sorted by district and person.
    """
    rng = _rng(cfg, _STAGE_CITIZENS)
    first = np.concatenate([[0], np.cumsum([c.number for c in cfg.classes])])
    parts = []
    for k, c in enumerate(cfg.classes):
        picks = np.sort(rng.choice(c.size * c.number, size=cfg.citizens_per_class, replace=False))
        parts.append(pd.DataFrame({
            "district_class": k, "district": first[k] + picks // c.size, "person": picks % c.size,
        }))
    cit = pd.concat(parts, ignore_index=True).sort_values(["district", "person"], kind="mergesort")
    cit = cit.reset_index(drop=True)
    n_age = counts.shape[2]
    flat = counts.reshape(counts.shape[0], -1)
    ends = np.cumsum(flat, axis=1)
    d = cit["district"].to_numpy()
    i = cit["person"].to_numpy()
    cell = np.array([np.searchsorted(ends[dd], ii, side="right") for dd, ii in zip(d, i)], dtype=np.int64)
    cit["sex"] = cell // n_age
    cit["age_group"] = cell % n_age
    cit["cell_pos"] = i - (ends[d, cell] - flat[d, cell])
    groups = np.array(cfg.age_groups, float)
    lo_u = age_cdf(cfg, groups[cit["age_group"], 0])
    hi_u = age_cdf(cfg, groups[cit["age_group"], 1])
    u = _rng(cfg, _STAGE_AGES).uniform(lo_u, hi_u)
    ages = np.floor(age_quantile(cfg, u))
    cit["age"] = np.clip(ages, groups[cit["age_group"], 0], groups[cit["age_group"], 1] - 1).astype(np.int64)
    return cit




@dataclass(frozen=True, eq=False)
class AnonLandResult:
    """Per-citizen table, JSON-ready summary and (for a fresh run) the census."""

    citizens: pd.DataFrame
    summary: dict
    census: Census | None = field(default=None)


def _population_pass(cfg: AnonLandConfig, counts: np.ndarray, cit: pd.DataFrame, report: Callable[[float, str], None]):
    """Stream every district's people once: census body sums, and RAS of the citizens.

    Keeps per-(sex, age group) sums of ``z`` and ``z²`` (standard normals), which
    give the census mean and SD exactly: ``x = μ_s + σ_s z``.
    """
    n_d, n_sex, n_age = counts.shape
    sums = {k: np.zeros((n_sex, n_age)) for k in ("zh", "zh2", "zw", "zw2")}
    n_cit = len(cit)
    ras = np.zeros(n_cit, np.int64)
    height = np.empty(n_cit)
    weight = np.empty(n_cit)
    hm, hs = np.asarray(cfg.height_mean), np.asarray(cfg.height_sd)
    wm, ws = np.asarray(cfg.weight_mean), np.asarray(cfg.weight_sd)
    c_district = cit["district"].to_numpy()
    c_cell = (cit["sex"] * n_age + cit["age_group"]).to_numpy()
    c_pos = cit["cell_pos"].to_numpy()
    starts_cit = np.searchsorted(c_district, np.arange(n_d + 1))
    sizes = counts.reshape(n_d, -1).sum(axis=1)
    done_people, total_people, next_report = 0, int(sizes.sum()), 0.0
    classes = cfg.district_class()
    for d in range(n_d):
        cells = counts[d].reshape(-1)
        zh, zw = _district_normals(cfg, d, int(sizes[d]))
        ends = np.cumsum(cells)
        starts = ends - cells
        nz = np.flatnonzero(cells)
        for key, z in (("zh", zh), ("zw", zw)):
            s1 = np.zeros(cells.size)
            s2 = np.zeros(cells.size)
            s1[nz] = np.add.reduceat(z, starts[nz])
            s2[nz] = np.add.reduceat(np.square(z), starts[nz])
            sums[key] += s1.reshape(n_sex, n_age)
            sums[key + "2"] += s2.reshape(n_sex, n_age)
        rows = np.arange(starts_cit[d], starts_cit[d + 1])
        for cell in np.unique(c_cell[rows]):
            s = cell // n_age
            here = rows[c_cell[rows] == cell]
            h = hm[s] + hs[s] * zh[starts[cell]:ends[cell]]
            w = wm[s] + ws[s] * zw[starts[cell]:ends[cell]]
            hb, wb = _band_index(h, cfg.height_width), _band_index(w, cfg.weight_width)
            for r in here:
                p = c_pos[r]
                ras[r] = np.count_nonzero((hb == hb[p]) & (wb == wb[p]))
                height[r], weight[r] = h[p], w[p]
        done_people += int(sizes[d])
        frac = done_people / total_people
        if frac >= next_report or d == n_d - 1:
            report(frac, _("drawing the people of AnonLand: district class {district_class} ({done} of {total} "
                           "people)").format(district_class=class_label(cfg.classes[classes[d]].name),
                                             done=_count(done_people), total=_count(total_people)))
            next_report = frac + 0.01
    return sums, ras, height, weight


def _census_body(cfg: AnonLandConfig, counts: np.ndarray, sums: dict) -> dict[str, np.ndarray]:
    """Census mean and population SD per sex × age group from the streamed sums."""
    n = counts.sum(axis=0).astype(float)
    out = {}
    for kind, key, mean, sd in (("height", "zh", cfg.height_mean, cfg.height_sd),
                                ("weight", "zw", cfg.weight_mean, cfg.weight_sd)):
        mu, sigma = np.asarray(mean)[:, None], np.asarray(sd)[:, None]
        with np.errstate(invalid="ignore", divide="ignore"):
            zbar = sums[key] / n
            zvar = np.maximum(sums[key + "2"] / n - zbar**2, 0.0)
        # An empty sex × age group has no statistics; fall back to the model so CAS stays defined.
        out[f"{kind}_mean"] = np.where(n > 0, mu + sigma * zbar, mu)
        out[f"{kind}_sd"] = np.where(n > 1, sigma * np.sqrt(zvar), sigma)
    return out


def group_correlations(cfg: AnonLandConfig) -> np.ndarray:
    """``ρ[s, a]``: the NHANES height–ln(weight) correlation for each AnonLand sex × age group (v2)."""
    groups = cfg.age_groups
    sex = np.repeat(np.arange(len(SEXES)), len(groups))
    lo = np.tile([float(g[0]) for g in groups], len(SEXES))
    hi = np.tile([float(g[1]) for g in groups], len(SEXES))
    return rho_for_groups(nhanes_correlation(), sex, lo, hi).reshape(len(SEXES), len(groups))


def citizen_cell_probabilities(cfg: AnonLandConfig, census: Census, s, a, h_lo, h_hi, w_lo, w_hi) -> dict[str, np.ndarray]:
    """Each citizen's ``Pr[h band, w band | s, a]`` from the census moments, per body model (see the module notes)."""
    hm, hs = census.height_mean[s, a], census.height_sd[s, a]
    wm, ws = census.weight_mean[s, a], census.weight_sd[s, a]
    paper = interval_probability(hm, hs, h_lo, h_hi) * interval_probability(wm, ws, w_lo, w_hi)
    mu, sigma = lognormal_params(wm, ws)
    rho = group_correlations(cfg)[s, a]
    v2 = bvn.rectangle((h_lo - hm) / hs, (h_hi - hm) / hs, (safe_log(w_lo) - mu) / sigma, (safe_log(w_hi) - mu) / sigma, rho)
    return {"v2": v2, "paper": paper}


def _citizen_table(cfg: AnonLandConfig, cit: pd.DataFrame, census: Census, ras, height, weight) -> pd.DataFrame:
    """The per-citizen output with compact dtypes."""
    d, s, a = (cit[c].to_numpy() for c in ("district", "sex", "age_group"))
    hb = _band_index(height, cfg.height_width)
    wb = _band_index(weight, cfg.weight_width)
    h_lo, w_lo = hb * cfg.height_width, wb * cfg.weight_width
    h_hi, w_hi = (hb + 1) * cfg.height_width, (wb + 1) * cfg.weight_width
    p = citizen_cell_probabilities(cfg, census, s, a, h_lo, h_hi, w_lo, w_hi)
    n_plain = census.counts[d, s, a].astype(float)
    n_noisy = census.noisy_counts[d, s, a]
    cas = n_plain * p[cfg.body_model]
    cas_noisy = n_noisy * p[cfg.body_model]
    labels = [format_age_band(lo, hi) for lo, hi in cfg.age_groups]
    return pd.DataFrame({
        "citizen": np.arange(len(cit), dtype=np.int32),
        "district_class": pd.Categorical.from_codes(cit["district_class"].to_numpy(), [c.name for c in cfg.classes]),
        "district": d.astype(np.int32),
        "sex": pd.Categorical.from_codes(s, list(SEXES)),
        "age": cit["age"].to_numpy().astype(np.int8),
        "age_group": pd.Categorical.from_codes(a, labels, ordered=True),
        "height": height.astype(np.float32),
        "weight": weight.astype(np.float32),
        "height_band_lo": h_lo.astype(np.float32),
        "height_band_hi": h_hi.astype(np.float32),
        "weight_band_lo": w_lo.astype(np.float32),
        "weight_band_hi": w_hi.astype(np.float32),
        "census_count": n_plain.astype(np.int32),
        "noisy_count": n_noisy.astype(np.float32),
        "ras": ras.astype(np.int32),
        "cas": cas,
        "cas_noisy": cas_noisy,
        **{f"cas_{name}": n_plain * p[name] for name in MODELS},
        # Derived columns in float32 keep the file small; recompute from cas/ras for full precision.
        "divergence": ((cas - ras) / ras).astype(np.float32),
        "divergence_noisy": ((cas_noisy - ras) / ras).astype(np.float32),
        "noisy_minus_plain": np.abs(cas_noisy - cas).astype(np.float32),
    })


def run_anonland(cfg: AnonLandConfig | None = None, progress: Progress | None = None) -> AnonLandResult:
    """Build AnonLand, take both censuses, count RAS and CAS for every test citizen.

    ``progress(fraction, message)`` is called along the way (about 100 times); an
    exception it raises aborts the run.  Runtime and the process's peak resident
    memory are recorded in the summary.
    """
    cfg = cfg or AnonLandConfig()
    started = time.perf_counter()
    report = progress or (lambda f, m: None)
    report(0.0, ngettext("census counts of {count} district", "census counts of {count} districts",
                         cfg.n_districts).format(count=_count(cfg.n_districts)))
    counts = draw_counts(cfg)
    noise = draw_noise(cfg, counts.shape)
    noisy = np.maximum(counts + noise, 0.0)
    report(0.02, ngettext("choosing {count} test citizen", "choosing {count} test citizens",
                          cfg.n_citizens).format(count=_count(cfg.n_citizens)))
    cit = draw_citizens(cfg, counts)
    sums, ras, height, weight = _population_pass(
        cfg, counts, cit, lambda f, m: report(0.03 + 0.94 * f, m))
    census = Census(counts=counts, noise=noise, noisy_counts=noisy, **_census_body(cfg, counts, sums))
    report(0.98, _("CAS from both censuses"))
    table = _citizen_table(cfg, cit, census, ras, height, weight)
    summary = summarise(table, cfg, census)
    summary["run"] = {
        "runtime_seconds": round(time.perf_counter() - started, 2),
        "peak_memory_mb": round(peak_memory_mb(), 1),
        "peak_memory_note": "peak resident memory of the whole process (getrusage ru_maxrss)",
        "cpus": os.cpu_count(),
        "numpy": np.__version__,
        "people_drawn": cfg.population,
        "cells_with_citizens": int(table.groupby(["district", "sex", "age_group"], observed=True).ngroups),
    }
    report(1.0, _("done"))
    return AnonLandResult(table, summary, census)


def peak_memory_mb() -> float:
    """Peak resident memory of this process in MB (Linux reports KB, macOS bytes)."""
    peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
    return peak / (1024.0 * 1024.0) if os.uname().sysname == "Darwin" else peak / 1024.0


def _num(x) -> float | None:
    x = float(x)
    return x if math.isfinite(x) else None


def _median(x: np.ndarray) -> float | None:
    return _num(np.median(x)) if x.size else None


def _share_diverging(div: np.ndarray) -> float | None:
    """The share of divergences beyond ±:data:`DIVERGENCE_THRESHOLD` (None for no citizens)."""
    return _num(np.mean(np.abs(div) > DIVERGENCE_THRESHOLD)) if div.size else None


def _box(values: np.ndarray) -> dict:
    """Quartiles, Tukey whiskers (1.5 IQR, clipped to the data), extremes, mean."""
    q1, med, q3 = np.quantile(values, [0.25, 0.5, 0.75])
    iqr = q3 - q1
    inside = values[(values >= q1 - 1.5 * iqr) & (values <= q3 + 1.5 * iqr)]
    return {
        "n": int(values.size), "min": _num(values.min()), "q1": _num(q1), "median": _num(med),
        "q3": _num(q3), "max": _num(values.max()), "mean": _num(values.mean()),
        "whisker_lo": _num(inside.min()), "whisker_hi": _num(inside.max()),
    }


def expected_sets(citizens: pd.DataFrame) -> np.ndarray:
    """Each test citizen's own expected set ``1 + (N − 1) · CAS / N`` (SPEC §1.7), N = their census group."""
    n = np.maximum(citizens["census_count"].to_numpy(float), 1.0)
    cas = citizens["cas"].to_numpy(float)
    return np.maximum(1.0, 1.0 + (n - 1.0) * cas / n)


def own_set_divergence(citizens: pd.DataFrame) -> list[dict]:
    """Per RAS range: median ``(E − RAS) / RAS`` of the expected set beside that of CAS (SPEC §1.7).

    Most of CAS's divergence at RAS = 1 is the conditioning the expected set accounts for:
    a citizen who has the profile is one of its people for certain.
    """
    ras = citizens["ras"].to_numpy(float)
    cas = citizens["cas"].to_numpy(float)
    e = expected_sets(citizens)
    return [{"range": ras_range_label(lo, hi), "n": int(m.sum()),
             "median_divergence_cas": _median((cas[m] - ras[m]) / ras[m]),
             "median_divergence_expected": _median((e[m] - ras[m]) / ras[m])}
            for lo, hi, m in ras_range_masks(ras)]


def model_comparison(citizens: pd.DataFrame) -> dict:
    """Per body model (plain census): per RAS range, the median divergence and the share beyond ±25 %.

    From the per-citizen ``cas_v2`` and ``cas_paper`` columns; ``{}`` for a table without them.
    """
    ras = citizens["ras"].to_numpy(float)
    out = {}
    for name in MODELS:
        col = f"cas_{name}"
        if col not in citizens:
            continue
        div = (citizens[col].to_numpy(float) - ras) / ras
        out[name] = [{"range": ras_range_label(lo, hi), "n": int(m.sum()), "median_divergence": _median(div[m]),
                      "median_abs_divergence": _median(np.abs(div[m])), "share_diverging": _share_diverging(div[m])}
                     for lo, hi, m in ras_range_masks(ras)]
    return out


def summarise(citizens: pd.DataFrame, cfg: AnonLandConfig, census: Census | None = None) -> dict:
    """The SPEC §4 report from a per-citizen table (JSON-ready; NaN becomes None).

    * ``by_ras_range``: per RAS range, citizens and the share with
      ``|divergence| > 0.25`` (plain and noisy census) and the median divergence;
    * ``median_divergence_large_ras``: median over citizens with RAS > 25;
    * ``noisy_vs_plain``: the largest ``|CAS_noisy − CAS|`` (and whose) and quantiles;
    * ``box_by_ras``: CAS per RAS value below 25 (box-plot statistics);
    * ``by_class``: the same headline numbers per district class;
    * ``noise`` and ``census_body`` when the census is given; ``parameters``.
    """
    ras = citizens["ras"].to_numpy()
    div = citizens["divergence"].to_numpy()
    div_n = citizens["divergence_noisy"].to_numpy()

    med, share = _median, _share_diverging
    ranges = []
    for lo, hi, m in ras_range_masks(ras):
        ranges.append({
            "range": ras_range_label(lo, hi), "ras_lo": lo, "ras_hi": hi, "n": int(m.sum()),
            "share_diverging": share(div[m]), "share_diverging_noisy": share(div_n[m]),
            "median_divergence": med(div[m]), "median_divergence_noisy": med(div_n[m]),
        })
    large = ras > LARGE_RAS
    diff = citizens["noisy_minus_plain"].to_numpy()
    worst = int(np.argmax(diff)) if diff.size else None
    box = []
    for r in range(1, BOX_RAS_LIMIT):
        m = ras == r
        if m.any():
            box.append({"ras": r, "cas": _box(citizens["cas"].to_numpy()[m]),
                        "cas_noisy": _box(citizens["cas_noisy"].to_numpy()[m])})
    by_class = []
    for name, g in citizens.groupby("district_class", observed=True, sort=False):
        g_large = g["ras"].to_numpy() > LARGE_RAS
        by_class.append({
            "district_class": str(name), "n": len(g),
            "median_ras": med(g["ras"].to_numpy()), "median_cas": med(g["cas"].to_numpy()),
            "share_diverging": share(g["divergence"].to_numpy()),
            "median_divergence_large_ras": med(g["divergence"].to_numpy()[g_large]),
            "max_noisy_minus_plain": _num(g["noisy_minus_plain"].max()),
        })
    out = {
        "spec": "SPEC §4 AnonLand",
        "body_model": cfg.body_model,
        "models": model_comparison(citizens),
        "n_citizens": len(citizens),
        "own_set_by_ras_range": own_set_divergence(citizens),
        "divergence_threshold": DIVERGENCE_THRESHOLD,
        "by_ras_range": ranges,
        "median_divergence_large_ras": {
            "ras_above": LARGE_RAS, "n": int(large.sum()),
            "plain": med(div[large]), "noisy": med(div_n[large]),
        },
        "noisy_vs_plain": {
            "max": _num(diff[worst]) if worst is not None else None,
            "max_citizen": int(citizens["citizen"].iloc[worst]) if worst is not None else None,
            "max_relative": _num(np.max(diff / citizens["cas"].to_numpy())) if diff.size else None,
            "median": med(diff),
            "q95": _num(np.quantile(diff, 0.95)) if diff.size else None,
        },
        "box_by_ras": box,
        "by_class": by_class,
        "parameters": cfg.as_dict(),
    }
    if census is not None:
        out["noise"] = {
            "cells": int(census.noise.size),
            "mean": _num(census.noise.mean()),
            "mean_abs": _num(np.abs(census.noise).mean()),
            "expected_mean_abs": 1.0 / cfg.epsilon,
            "clipped_cells": int(np.count_nonzero(census.counts + census.noise < 0)),
        }
        out["census_body"] = census.body_table(cfg)
    return out




def default_dir() -> Path:
    """Where the precomputed full-scale result lives: ``<data cache>/anonland``."""

    return cache_dir() / "anonland"


def write_result(result: AnonLandResult, out_dir: str | os.PathLike) -> tuple[Path, Path]:
    """Write ``citizens.parquet`` (zstd) and ``summary.json``; return both paths."""
    out = Path(out_dir)
    out.mkdir(parents=True, exist_ok=True)
    cit, summ = out / CITIZENS_FILE, out / SUMMARY_FILE
    result.citizens.to_parquet(cit, index=False, compression="zstd")
    summ.write_text(json.dumps(result.summary, indent=1, ensure_ascii=False, allow_nan=False) + "\n",
                    encoding="utf-8")
    return cit, summ


def load_result(directory: str | os.PathLike | None = None) -> AnonLandResult:
    """A written result (default: the precomputed full-scale AnonLand); no census attached."""
    d = Path(directory) if directory is not None else default_dir()
    cit, summ = d / CITIZENS_FILE, d / SUMMARY_FILE
    if not (cit.is_file() and summ.is_file()):
        raise FileNotFoundError(f"no AnonLand result in {d} (run: anonset anonland --out {d})")
    return AnonLandResult(read_parquet(cit), json.loads(summ.read_text(encoding="utf-8")))


def box_frame(summary: dict, which: str = "cas") -> pd.DataFrame:
    """``box_by_ras`` as a table (one row per RAS value), for plotting."""
    return pd.DataFrame([{"ras": b["ras"], **b[which]} for b in summary.get("box_by_ras", [])])


def ras_range_frame(summary: dict) -> pd.DataFrame:
    """``by_ras_range`` as a table, for the summary table of a page."""
    return pd.DataFrame(summary.get("by_ras_range", []))
