"""Sparse de-anonymisation (SPEC §6): the Scoreboard-RH matcher of Narayanan & Shmatikov, measured here.

**Data.** A :class:`Ratings` holds users × items as two SciPy sparse matrices of one sparsity
pattern (CSR for drawing galleries by user; a :class:`Gallery` keeps them as CSC, for reading
an item's column): the rating (0.5–5 stars; a stored zero would mean "not rated", and no rating is 0)
and the day of the rating (whole days since 1970-01-01 UTC, plus one so day 0 is never a
stored zero).  :func:`movielens` reads the cached MovieLens ratings (671 users × 9,066 movies).

**Matcher (Scoreboard-RH, the paper's §4).** The adversary knows ``m`` items of a target,
each with an approximate rating and date.  Every record ``r'`` of the gallery scores

    Score(aux, r') = Σ_{i ∈ supp(aux)} wt(i) · Sim(aux_i, r'_i),    wt(i) = 1 / ln(1 + |supp(i)|)

with ``Sim = 1`` when ``r'`` rated item ``i`` with a rating within ``tol_stars`` of the known
one *and* on a day within ``tol_days`` of the known date, else 0; ``|supp(i)|`` is the number
of gallery records that rated ``i`` (rare items count more).  The paper writes
``wt(i) = 1/log|supp(i)|``, which is infinite for an item rated by one record — common in a
long-tailed catalogue such as this one (3,063 of 9,066 movies have a single rating) — so the
support is shifted by one; for popular items the two weights agree, and the base of the
logarithm does not matter (the test below is scale-free).  Matching criterion: with
``max``, ``max2`` the highest and second-highest scores and ``σ`` their standard deviation
over the gallery (population SD), the eccentricity is ``e = (max − max2)/σ``; the best record
is returned only when ``e ≥ φ``, else the answer is "no match" (⊥).  A tie for the top, a
gallery of one, or all scores equal (σ = 0) give ``e = 0``: no match.  Default ``φ = 1.5``,
the eccentricity the paper uses in its Netflix Prize experiments (§5 of the paper; the
shipped fragment stops before it).  Scoring is vectorised: for a batch of targets every
(target, known item) pair gathers its column of the CSC matrices at once and the scores are
summed with one ``bincount`` — no Python loop over records or targets.

**Entropy of the candidate set (the paper's Definition 4, entropic de-anonymisation).** The
matcher outputs the distribution ``Π(r') = c · exp(Score(aux, r')/σ)`` over the gallery
(``c`` normalises; σ = 0 gives the uniform distribution).  For each target we report

* ``entropy`` — the Shannon entropy ``H(Π) = −Σ_{r'} Π(r') log₂ Π(r')`` in bits: the
  uncertainty left about who the target is, without an oracle (``log₂ n`` = nothing learnt);
* ``target_bits`` — ``HS(Π, r) = −log₂ Π(r)`` for the target's own record, the bits the
  adversary still needs to single out the right record (Definition 4 with the similarity
  threshold θ met by the target record alone).

Both are averaged over the targets of a run.

**Experiment.** For each gallery size ``n`` and repetition ``j``, a gallery of ``n`` users is
drawn without replacement (``numpy.random.default_rng([seed, n, j])``, so a measurement does
not depend on which other sizes are asked for); every user of the gallery is a target.  Its
auxiliary information: ``m`` of its rated items drawn uniformly without replacement; the
rating moved by δ uniform on the half-star grid of [−s, s] (clipped to 0.5–5); the day moved
by a whole number of days uniform in [−D, D]; ``round(w·m)`` of the ``m`` items replaced by
items the user never rated (drawn from the whole catalogue, with a random rating and one of
the user's own rating days).  The matcher's tolerances are the noise bounds (``tol_stars =
s``, ``tol_days = D``) unless given.  Reported per ``n``: the share of targets correctly
identified (the measured correctness κ̂(n)), wrongly matched and answered "no match", pooled
over repetitions, and their spread between repetitions; then PYC-MB and the baselines
(:func:`dashboard.core.scaling.forecast`) fitted to κ̂(n) with the largest ``n`` held out.
"""
from __future__ import annotations

import math
import time
from dataclasses import asdict, dataclass, field

import numpy as np
import pandas as pd
from scipy import sparse

import census_loaders as cl
from census_loaders.movielens import ATTRIBUTION
from census_loaders.paths import cache_dir

from .. import memo
from .. import scaling as pyc_fit
from ..errors import InputError
from ..text import gettext as _

SECONDS_PER_DAY = 86_400
#: The eccentricity threshold of the paper's Netflix Prize experiments.
DEFAULT_PHI = 1.5
RATING_GRID = np.arange(1, 11) / 2.0  # 0.5 … 5 stars
#: Input limits (the page and the CLI share them).
MAX_KNOWN = 20  # every MovieLens user has at least 20 ratings
MAX_NOISE_STARS = 2.0
MAX_NOISE_DAYS = 365
MAX_SIZES = 12
MAX_REPEATS = 20
MIN_GALLERY = 2
#: The forecast sizes the CLI reports (SPEC §6 / issue 18: 10⁶ and 10⁸ users).
FORECAST_AT = (1e6, 1e8)
DATASET_ID = "movielens"




@dataclass(frozen=True, eq=False)
class Ratings:
    """Users × items: ratings and days as two CSR matrices of one sparsity pattern (see the module doc)."""

    users: np.ndarray  # user id of each row
    items: np.ndarray  # item id of each column
    rating: sparse.csr_matrix
    day: sparse.csr_matrix  # whole days since 1970-01-01 UTC, plus one

    @property
    def n_users(self) -> int:
        return int(self.rating.shape[0])

    @property
    def n_items(self) -> int:
        return int(self.rating.shape[1])

    @property
    def n_ratings(self) -> int:
        return int(self.rating.nnz)


def ratings_from_frame(df: pd.DataFrame) -> Ratings:
    """A :class:`Ratings` from a frame with ``user_id``, ``movie_id``, ``rating``, ``timestamp`` (one row each)."""
    if df.empty:
        raise InputError("no ratings given")
    users, rows = np.unique(df["user_id"].to_numpy(), return_inverse=True)
    items, cols = np.unique(df["movie_id"].to_numpy(), return_inverse=True)
    rating = df["rating"].to_numpy(dtype=float)
    if np.any(rating <= 0):
        raise InputError("ratings must be positive (a stored 0 would mean 'not rated')")
    day = np.floor_divide(df["timestamp"].to_numpy(dtype=np.int64), SECONDS_PER_DAY) + 1
    shape = (users.size, items.size)
    r = sparse.csr_matrix((rating, (rows, cols)), shape=shape)
    d = sparse.csr_matrix((day.astype(float), (rows, cols)), shape=shape)
    if r.nnz != len(df):
        raise InputError("a user rates the same item twice")
    r.sort_indices()
    d.sort_indices()
    return Ratings(users, items, r, d)


def _cache_stamp() -> tuple[str, int]:

    path = cache_dir() / "microdata" / f"{DATASET_ID}.parquet"
    try:
        return str(path), path.stat().st_mtime_ns
    except FileNotFoundError:
        return str(path), -1


@memo.lru(2, name="core.sparse_attack.movielens")
def _movielens(path: str, stamp: int) -> Ratings:

    if stamp < 0:
        raise InputError(_("the MovieLens ratings are not in the data cache: build it with `anonset data build`"))
    return ratings_from_frame(cl.cache.microdata(DATASET_ID))


def movielens() -> Ratings:
    """The cached MovieLens ratings (memoised per cache file and modification time)."""
    return _movielens(*_cache_stamp())


def attribution() -> str:
    """The attribution the data's terms ask for, from the cache manifest (the loader's text when absent)."""

    try:
        sources = cl.cache.microdata_info(DATASET_ID).get("sources", [])
    except (KeyError, FileNotFoundError):
        return ATTRIBUTION
    return sources[0].get("citation") or ATTRIBUTION if sources else ATTRIBUTION




@dataclass(frozen=True, eq=False)
class Gallery:
    """The released sample the adversary searches: a subset of users as CSC matrices, and the item weights."""

    rows: np.ndarray  # row of each gallery record in the full Ratings
    rating: sparse.csc_matrix
    day: sparse.csc_matrix
    weight: np.ndarray  # wt(i) = 1/ln(1 + |supp(i)|), 0 for items no record rated

    @property
    def n(self) -> int:
        return int(self.rating.shape[0])


def make_gallery(data: Ratings, rows=None) -> Gallery:
    """The gallery of ``rows`` (all users when None): column-major matrices and the weights wt(i)."""
    rows = np.arange(data.n_users) if rows is None else np.asarray(rows, dtype=np.int64)
    r = data.rating[rows].tocsc()
    d = data.day[rows].tocsc()
    r.sort_indices()
    d.sort_indices()
    supp = np.diff(r.indptr).astype(float)
    with np.errstate(divide="ignore"):
        weight = np.where(supp > 0, 1.0 / np.log1p(supp), 0.0)
    return Gallery(rows, r, d, weight)


@dataclass(frozen=True)
class Aux:
    """Auxiliary information about T targets, m items each (T × m arrays; item = column index)."""

    items: np.ndarray
    rating: np.ndarray
    day: np.ndarray

    def __post_init__(self):
        shapes = {np.shape(self.items), np.shape(self.rating), np.shape(self.day)}
        if len(shapes) != 1 or np.ndim(self.items) != 2:
            raise InputError("auxiliary information: items, ratings and days must be T × m arrays of one shape")


def score(gallery: Gallery, aux: Aux, tol_stars: float, tol_days: float) -> np.ndarray:
    """Scoreboard-RH scores, T × n: Σ_i wt(i)·[|rating − aux| ≤ tol_stars and |day − aux| ≤ tol_days]."""
    items = np.asarray(aux.items, dtype=np.int64)
    t, m = items.shape
    n = gallery.n
    flat = items.ravel()
    if flat.size and (flat.min() < 0 or flat.max() >= gallery.rating.shape[1]):
        raise InputError("auxiliary information names an item outside the catalogue")
    indptr = gallery.rating.indptr
    start = indptr[flat]
    length = indptr[flat + 1] - start
    total = int(length.sum())
    query = np.repeat(np.arange(flat.size), length)
    offset = np.arange(total) - np.repeat(np.cumsum(length) - length, length)
    pos = np.repeat(start, length) + offset
    rec = gallery.rating.indices[pos]
    ok = (np.abs(gallery.rating.data[pos] - np.asarray(aux.rating, float).ravel()[query]) <= tol_stars + 1e-9) & (
        np.abs(gallery.day.data[pos] - np.asarray(aux.day, float).ravel()[query]) <= tol_days + 1e-9)
    weights = gallery.weight[flat][query] * ok
    target = query // m if m else query
    out = np.bincount(target * n + rec, weights=weights, minlength=t * n)
    return out.reshape(t, n)


@dataclass
class Decision:
    """The matcher's answers for T targets (arrays of length T)."""

    best: np.ndarray  # index of the top-scoring record in the gallery
    matched: np.ndarray  # eccentricity ≥ φ
    eccentricity: np.ndarray
    entropy: np.ndarray  # H(Π), bits
    log_pi: np.ndarray  # T × n, natural log of Π

    def answer(self) -> np.ndarray:
        """The gallery index returned for each target, −1 for "no match"."""
        return np.where(self.matched, self.best, -1)


def decide(scores: np.ndarray, phi: float = DEFAULT_PHI) -> Decision:
    """Eccentricity test and the entropic output for T × n scores (see the module doc)."""
    scores = np.atleast_2d(np.asarray(scores, dtype=float))
    t, n = scores.shape
    if n == 0:
        raise InputError("the gallery is empty")
    best = np.argmax(scores, axis=1)
    top = scores[np.arange(t), best]
    if n >= 2:  # the second-highest score: the maximum once the top record is masked
        masked = scores.copy()
        masked[np.arange(t), best] = -np.inf
        top2 = masked.max(axis=1)
    else:
        top2 = top.copy()
    sigma = scores.std(axis=1)
    safe = np.where(sigma > 0, sigma, 1.0)
    ecc = np.where(sigma > 0, (top - top2) / safe, 0.0)
    matched = ecc >= phi
    z = scores / safe[:, None]  # σ = 0: every score equal, so Π is uniform either way
    z -= (top / safe)[:, None]  # the largest z is 0: exp cannot overflow
    e = np.exp(z)
    total = e.sum(axis=1)
    log_total = np.log(total)
    # H(Π) = −Σ Π ln Π = ln Σe − Σ e·z / Σe (nats), with Π = e / Σe
    entropy = (log_total - np.einsum("ij,ij->i", e, z) / total) / math.log(2)
    z -= log_total[:, None]  # now ln Π
    return Decision(best, matched, ecc, np.maximum(entropy, 0.0), z)


def match(gallery: Gallery, aux: Aux, tol_stars: float = 1.0, tol_days: float = 14.0,
          phi: float = DEFAULT_PHI) -> Decision:
    """Score every record of the gallery for each target of ``aux`` and apply the eccentricity test."""
    if not phi > 0:
        raise InputError(f"the eccentricity threshold phi must be positive (got {phi:g})")
    return decide(score(gallery, aux, tol_stars, tol_days), phi)




@dataclass(frozen=True)
class AttackConfig:
    """One experiment: m known items with noise, galleries of each size, repeated with a seed."""

    known: int = 8
    noise_stars: float = 1.0
    noise_days: int = 14
    wrong_share: float = 0.0
    sizes: tuple[int, ...] = (50, 100, 200, 400, 671)
    repeats: int = 5
    seed: int = 1
    phi: float = DEFAULT_PHI
    tol_stars: float | None = None  # None: the noise bound
    tol_days: float | None = None

    @property
    def tolerances(self) -> tuple[float, float]:
        return (self.noise_stars if self.tol_stars is None else self.tol_stars,
                self.noise_days if self.tol_days is None else self.tol_days)

    @property
    def wrong_items(self) -> int:
        return int(round(self.wrong_share * self.known))


def check_config(cfg: AttackConfig, n_users: int) -> AttackConfig:
    """The configuration, validated against the limits and the data set's size; InputError otherwise."""
    def whole(value, what, lo, hi):
        if isinstance(value, bool) or not isinstance(value, (int, np.integer, float)) or not math.isfinite(value) \
                or value != int(value):
            raise InputError(f"{what} must be a whole number (got {value!r})")
        if not lo <= value <= hi:
            raise InputError(f"{what} must be between {lo:,} and {hi:,} (got {value:,})")
        return int(value)

    known = whole(cfg.known, "known items m", 1, MAX_KNOWN)
    stars = float(cfg.noise_stars)
    if not (math.isfinite(stars) and 0 <= stars <= MAX_NOISE_STARS and stars * 2 == int(stars * 2)):
        raise InputError(f"rating noise must be a multiple of 0.5 star between 0 and {MAX_NOISE_STARS:g} "
                         f"(got {cfg.noise_stars!r})")
    days = whole(cfg.noise_days, "date noise (days)", 0, MAX_NOISE_DAYS)
    wrong = float(cfg.wrong_share)
    if not (math.isfinite(wrong) and 0 <= wrong <= 1):
        raise InputError(f"the share of wrong items must be between 0 and 1 (got {cfg.wrong_share!r})")
    sizes = tuple(cfg.sizes)
    if not sizes:
        raise InputError("give at least one gallery size")
    if len(sizes) > MAX_SIZES:
        raise InputError(f"at most {MAX_SIZES} gallery sizes are measured (got {len(sizes)})")
    sizes = tuple(whole(s, "gallery size n", MIN_GALLERY, 10**12) for s in sizes)
    too_big = [s for s in sizes if s > n_users]
    if too_big:
        raise InputError(f"gallery size n = {too_big[0]:,} is larger than the data set ({n_users:,} users)")
    if len(set(sizes)) != len(sizes):
        raise InputError("each gallery size may appear only once")
    repeats = whole(cfg.repeats, "repetitions", 1, MAX_REPEATS)
    seed = whole(cfg.seed, "seed", 0, 2**63 - 1)
    phi = float(cfg.phi)
    if not (math.isfinite(phi) and 0 < phi <= 100):
        raise InputError(f"the eccentricity threshold phi must be in (0, 100] (got {cfg.phi!r})")
    tol_s, tol_d = cfg.tol_stars, cfg.tol_days
    for tol, what in ((tol_s, "rating tolerance"), (tol_d, "date tolerance")):
        if tol is not None and not (math.isfinite(float(tol)) and float(tol) >= 0):
            raise InputError(f"the {what} must be a number of 0 or more (got {tol!r})")
    return AttackConfig(known, stars, days, wrong, tuple(sorted(sizes)), repeats, seed, phi,
                        None if tol_s is None else float(tol_s), None if tol_d is None else float(tol_d))


def make_aux(data: Ratings, targets: np.ndarray, cfg: AttackConfig, rng: np.random.Generator) -> Aux:
    """Noisy auxiliary information about each target row (see the module doc), vectorised over targets."""
    targets = np.asarray(targets, dtype=np.int64)
    m, t = cfg.known, targets.size
    sub_r = data.rating[targets]
    sub_d = data.day[targets]
    counts = np.diff(sub_r.indptr)
    if t and counts.min() < m:
        raise InputError(f"a user has only {counts.min()} ratings: fewer than the {m} known items asked for")
    # m of each row's entries, uniformly without replacement: sort each row's entries by a random key
    owner = np.repeat(np.arange(t, dtype=float), counts)
    order = np.argsort(owner + rng.random(owner.size))  # row first (whole part), random within the row
    pick = order[(sub_r.indptr[:-1][:, None] + np.arange(m)[None, :]).ravel()]
    items = sub_r.indices[pick].reshape(t, m).astype(np.int64)
    rating = sub_r.data[pick].reshape(t, m)
    day = sub_d.data[pick].reshape(t, m)
    steps = int(round(2 * cfg.noise_stars))
    if steps:
        rating = np.clip(rating + rng.integers(-steps, steps + 1, size=rating.shape) / 2.0, 0.5, 5.0)
    if cfg.noise_days:
        day = day + rng.integers(-cfg.noise_days, cfg.noise_days + 1, size=day.shape)
    w = cfg.wrong_items
    if w and t:
        slots = np.argsort(rng.random((t, m)), axis=1)[:, :w]  # which of the m items are wrong
        rows = np.repeat(np.arange(t), w)
        cols = slots.ravel()
        new = rng.integers(0, data.n_items, size=rows.size)
        for _attempt in range(100):  # redraw items the target did rate (rare: users rate few of 9,066 items)
            clash = np.asarray(sub_r[rows, new]).ravel() > 0
            clash |= _duplicates(items, rows, cols, new)
            if not clash.any():
                break
            new[clash] = rng.integers(0, data.n_items, size=int(clash.sum()))
        items[rows, cols] = new
        rating[rows, cols] = rng.choice(RATING_GRID, size=rows.size)
        own_day = sub_d.data[sub_d.indptr[rows] + (rng.random(rows.size) * counts[rows]).astype(np.int64)]
        day[rows, cols] = own_day
    return Aux(items, rating, day)


def _duplicates(items: np.ndarray, rows: np.ndarray, cols: np.ndarray, new: np.ndarray) -> np.ndarray:
    """Whether a replacement item is already among the target's other known items."""
    trial = items.copy()
    trial[rows, cols] = new
    srt = np.sort(trial, axis=1)
    dup_row = (np.diff(srt, axis=1) == 0).any(axis=1)
    return dup_row[rows]


@dataclass
class RunResult:
    """One gallery size, one repetition: shares over its targets."""

    n: int
    repeat: int
    correct: float
    wrong: float
    no_match: float
    entropy: float  # mean H(Π), bits
    target_bits: float  # mean −log₂ Π(target)
    eccentricity: float  # median eccentricity


def run_gallery(data: Ratings, n: int, repeat: int, cfg: AttackConfig) -> RunResult:
    """One gallery of ``n`` users drawn with ``default_rng([seed, n, repeat])``; every user a target."""
    rng = np.random.default_rng([cfg.seed, n, repeat])
    rows = np.sort(rng.choice(data.n_users, size=n, replace=False))
    gallery = make_gallery(data, rows)
    aux = make_aux(data, rows, cfg, rng)
    tol_s, tol_d = cfg.tolerances
    dec = match(gallery, aux, tol_s, tol_d, cfg.phi)
    truth = np.arange(n)
    answer = dec.answer()
    correct = answer == truth
    no_match = answer < 0
    bits = -dec.log_pi[truth, truth] / math.log(2)
    return RunResult(n, repeat, float(correct.mean()), float((~correct & ~no_match).mean()),
                     float(no_match.mean()), float(dec.entropy.mean()), float(bits.mean()),
                     float(np.median(dec.eccentricity)))


@dataclass
class Measured:
    """One gallery size over its repetitions: pooled shares (every repetition has n targets) and spread."""

    n: int
    kappa: float
    wrong: float
    no_match: float
    entropy: float
    target_bits: float
    prior_bits: float  # log₂ n: the entropy before any knowledge
    kappa_sd: float  # SD of the share correct between repetitions
    repeats: int

    def to_dict(self) -> dict:
        return asdict(self)


@dataclass
class Experiment:
    config: AttackConfig
    measured: list[Measured]
    runs: list[RunResult]
    forecast: pyc_fit.Forecast | None
    forecast_reason: str
    seconds: float
    n_users: int
    n_items: int
    n_ratings: int
    notes: list[str] = field(default_factory=list)

    def holdout(self, model: str = "PYC-MB") -> dict | None:
        """The held-out largest n: measured κ̂, the model's forecast from the smaller n, and the error."""
        if self.forecast is None or model not in self.forecast.holdout:
            return None
        h = self.forecast.holdout[model]
        n, obs = float(h.n[-1]), float(h.observed[-1])
        if not h.available:
            return {"n": n, "measured": obs, "forecast": None, "error": None, "reason": h.reason}
        pred = float(np.asarray(h.predicted)[-1])
        return {"n": n, "measured": obs, "forecast": pred, "error": pred - obs}


def _summarise(n: int, runs: list[RunResult]) -> Measured:
    def mean(key):
        return float(np.mean([getattr(r, key) for r in runs]))

    kappas = [r.correct for r in runs]
    return Measured(n, mean("correct"), mean("wrong"), mean("no_match"), mean("entropy"), mean("target_bits"),
                    math.log2(n), float(np.std(kappas, ddof=1)) if len(kappas) > 1 else 0.0, len(runs))


def measure(data: Ratings, cfg: AttackConfig) -> tuple[list[Measured], list[RunResult]]:
    """The shares at each gallery size of ``cfg`` (validated first)."""
    cfg = check_config(cfg, data.n_users)
    runs = [run_gallery(data, n, j, cfg) for n in cfg.sizes for j in range(cfg.repeats)]
    return [_summarise(n, [r for r in runs if r.n == n]) for n in cfg.sizes], runs


def run_experiment(data: Ratings, cfg: AttackConfig, at=FORECAST_AT, band: bool = False) -> Experiment:
    """Measure κ̂(n), then fit PYC-MB and the baselines with the largest n held out and forecast at ``at``
    (``band``: the PYC-MB jackknife band too)."""
    started = time.perf_counter()
    cfg = check_config(cfg, data.n_users)
    measured, runs = measure(data, cfg)
    return finish_experiment(data, cfg, measured, runs, at, band, time.perf_counter() - started)


def finish_experiment(data: Ratings, cfg: AttackConfig, measured: list[Measured], runs: list[RunResult],
                      at=FORECAST_AT, band: bool = False, measured_in: float = 0.0) -> Experiment:
    """The forecast and notes of measured shares (:func:`measure`), their words in the current language: a page
    measures once (seconds) and writes the experiment in each language asked for (a fit, a fraction of that)."""
    started = time.perf_counter()
    n = np.array([m.n for m in measured], dtype=float)
    k = np.array([m.kappa for m in measured])
    fc, reason = None, ""
    notes = []
    if n.size < 3:
        reason = _("the forecast needs at least three gallery sizes (two to fit, the largest held out)")
    else:
        try:
            fc = pyc_fit.forecast((n, k), at=np.asarray(at, dtype=float), holdout=1, band=band)
        except InputError as exc:
            reason = str(exc)
    if np.any(np.diff(k) > 0):
        notes.append(_("the measured correctness rises between some gallery sizes: sampling noise; more repetitions "
                       "smooth it"))
    return Experiment(cfg, measured, runs, fc, reason, measured_in + time.perf_counter() - started,
                      data.n_users, data.n_items, data.n_ratings, notes)


def sweep_known(data: Ratings, cfg: AttackConfig, known_values, n: int | None = None) -> list[dict]:
    """Identification against m at one gallery size (default: every user), pooled over the repetitions."""
    n = data.n_users if n is None else n
    out = []
    for m in known_values:
        c = check_config(AttackConfig(**{**asdict(cfg), "known": m, "sizes": (n,)}), data.n_users)
        row = _summarise(n, [run_gallery(data, n, j, c) for j in range(c.repeats)])
        out.append({"known": int(m), **row.to_dict()})
    return out


def experiment_dict(exp: Experiment, at=FORECAST_AT) -> dict:
    """The JSON shape of the CLI: ``measured``, ``forecast`` (per model), ``holdout`` (PYC-MB), and the rest."""
    cfg = exp.config
    forecast: dict[str, list | None] = {}
    models = {}
    holdouts = {}
    if exp.forecast is not None:
        for name, pred in exp.forecast.predictions.items():
            forecast[name] = None if pred is None else [
                {"n": float(a), "kappa": float(p)} for a, p in zip(exp.forecast.at, pred, strict=True)]
            models[name] = exp.forecast.models[name].to_dict()
            holdouts[name] = exp.holdout(name)
    return {
        "data": {"users": exp.n_users, "items": exp.n_items, "ratings": exp.n_ratings, "attribution": attribution()},
        "config": {**asdict(cfg), "sizes": list(cfg.sizes), "tol_stars": cfg.tolerances[0],
                   "tol_days": cfg.tolerances[1], "wrong_items": cfg.wrong_items},
        "measured": [{"n": m.n, "kappa": m.kappa, "wrong": m.wrong, "no_match": m.no_match, "entropy_bits": m.entropy,
                      "target_bits": m.target_bits, "prior_bits": m.prior_bits, "kappa_sd": m.kappa_sd,
                      "repeats": m.repeats} for m in exp.measured],
        "forecast": forecast,
        "forecast_reason": exp.forecast_reason,
        "models": models,
        "holdout": exp.holdout("PYC-MB"),
        "holdout_all": holdouts,
        "notes": exp.notes,
        "seconds": exp.seconds,
    }
