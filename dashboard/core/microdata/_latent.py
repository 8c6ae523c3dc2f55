"""Latent class uniqueness and correctness of a data set (SPEC §5; the model of Manrique-Vallier & Reiter).

Model.  The population is a finite mixture of ``C`` classes; within a class the quasi-identifier
columns are independent categoricals:

    p(x) = Σ_c π_c Π_j φ_{c,j}(x_j).

Unlike the Gaussian copula it needs no order of a column's values, so unordered categories
(race, marital status) keep their dependence on the other columns; with enough classes it
represents any joint distribution.  ``p(x)`` is exact (a log-sum-exp over the classes), so
``ξ = (1 − p)^(N − 1)``, ``κ`` and ``Ξ(N)`` follow exactly as for the copula
(:func:`~._copula.uniqueness`, :func:`~._copula.correctness`).

Estimation.  EM on the distinct rows with their counts (a record's one-hot codes as one sparse
matrix, so each iteration is two sparse products: vectorised, no loop over records).  Each
``φ_{c,j}`` gets a small Dirichlet prior centred on the column's overall shares
(:data:`PRIOR_WEIGHT` pseudo-records per class): a value never seen in a class keeps a small,
data-driven probability, and the M-step stays a MAP estimate.  Several seeded random starts per
``C``; the best likelihood wins.  ``C`` is chosen by BIC (``−2 log L + k log n``, with
``k = C − 1 + C Σ_j (K_j − 1)``) over 1, 2, 3, 4, 6, 8, …, stopping once two larger ``C`` in a row
have not improved it, or by held-out log-likelihood (fit on a seeded 80 %, score the 20 %), or —
the default — by *uniqueness*: the ``C`` whose model predicts the records' own shares of unique
records, on the full tuple of columns and on every tuple with one or two columns left out — and
with three, four, … left out while the records are still nearly all unique (over
:data:`NEARLY_ALL_UNIQUE` on average) on the deepest tuples checked so far (a
posterior predictive check of the very quantity the model is for; a mixture's model of fewer
columns is exact, the same classes with the left-out columns' factors dropped).  The mean gap
``model's share − records' share`` over those tuples falls as C grows (more classes concentrate the
mass), so C is doubled from 1 while the gap is positive, then bisected to two C that bracket 0; the
two fits are blended — ω·(C_lo classes) + (1 − ω)·(C_hi classes) is itself a latent class model —
with the ω that closes the gap exactly, so the answer does not jump with the integer C.  At most
``m / RECORDS_PER_CLASS`` classes are tried.

Why the sub-tuples: on a small sample nearly every record is unique on the full tuple (1 % of
ADULT: 326 records, 96–100 % unique on eight or more columns), so matching that share alone could
not tell C = 1 from C = 8 and the rule settled on one or two classes, overstating the whole set's
uniqueness by 0.15–0.27.  With fewer columns the sample still has repeats, and those shares pin C
down.  The errors were bias, not variance: on ADULT subsets at 1 %, fixing C from 1 to 16 moved the
error from about +0.16 to −0.16 while repeated samples moved it by about 0.01.  So averaging over C
(a Dirichlet-process mixture's posterior, or BIC weights) was not the cure: at 1 % BIC is lowest at
C = 1 on every subset tried, and the weights would pull towards the overstatement.  Why not BIC or
held-out likelihood alone: on NHANES's six quasi-identifiers fitted on 10 % (526 records) BIC picks
one class and held-out likelihood two or three, and both overstate the whole set's uniqueness by
0.07–0.12 (too few classes leave the columns nearly independent, which spreads the mass over too
many cells); too many classes memorise the sample and understate it.

Why deeper only when nearly all are unique: a tuple on which every sampled record is unique says
nothing about C, so on the widest ADULT subsets at 1 % (13–14 columns, 96–98 % unique even with two
columns left out) the rule had almost nothing to match and overstated uniqueness by 0.07–0.09;
leaving out three columns there cut those errors by 0.01–0.03.  Always leaving out three columns
was tried and reverted: it pushed NHANES at 10 % (57 % unique with two left out) from 0.02 to
0.03.  The 0.9 threshold is a statement about the sample (the tuples leave little to match), not
a fit to a benchmark: no NHANES sample at 10 % meets it.  This and the companion columns below each lower the
ADULT Table 1 error at 1 % on the benchmark's subsets (seed 2019) and on a held-out set (seed 2020)
alike; see ``benchmarks/bench_adult_table1.py``.

Companion columns.  Two columns in one-to-one correspondence in the fitted records (ADULT's
``education`` and ``education_num``: each value of one is seen with a single value of the other)
are one column in two codings.  The mixture, whose columns are independent within a class, would
spread mass over pairings never seen (a degree with the wrong number of years) unless it spent
classes on them, so such a column is left out of the mixture and follows its partner:
``p(x) = p_mixture(x without it) · T[partner value, its value]``, with ``T`` the records' pairing
under the same Dirichlet prior as the classes' columns (:func:`companions`).  Summing the partner
out leaves an ordinary column (its class marginals ``φ_c,partner · T``), so the models of fewer
columns stay exact.  19 of the 50 ADULT subsets of the Table 1 benchmark have both columns.

With more than :data:`SELECT_RECORDS` records, ``C`` is chosen on a seeded subsample of that many and
the chosen fits are then refined on all records (at most :data:`REFINE_ITER` EM iterations from the
selection's solution: more moved no prediction in the third decimal).
Everything is deterministic for a given seed.
"""
from __future__ import annotations

import itertools
import math
from dataclasses import dataclass, field

import numpy as np
from scipy import optimize, sparse
from scipy.special import logsumexp

from ..errors import InputError
from ..text import N_
from ._records import class_ids

#: Pseudo-records of the Dirichlet prior on each class's column distribution.
PRIOR_WEIGHT = 0.25
#: Numbers of classes tried, in order (the search stops early, see the module notes).
CLASS_GRID = (1, 2, 3, 4, 6, 8, 12, 16, 24, 32, 48, 64)
MAX_CLASSES = CLASS_GRID[-1]
#: Random starts per number of classes, EM iterations at most, and relative convergence tolerance.
STARTS = 2
MAX_ITER = 200
TOL = 1e-5
#: EM iterations at most and tolerance while choosing the number of classes (the chosen one is then refined).
SELECT_ITER = 100
SELECT_TOL = 1e-4
#: EM iterations at most when the chosen fits, started from the selection's solution, are refined on all records.
REFINE_ITER = 30
#: Records on which the number of classes is chosen (a seeded subsample when larger).
SELECT_RECORDS = 10_000
#: The rules that choose the number of classes; the first is the default (validated: benchmarks/bench_adult_table1.py).
SELECTIONS = ("unique-shares", "bic", "heldout")
DEFAULT_SELECTION = SELECTIONS[0]
#: How each rule chooses the number of classes, in a sentence (the page and the CLI show it).
RULE_TEXT = {
    "unique-shares": N_("chosen so that the model reproduces the fitted records' own shares of unique records on "
                         "all the chosen columns and on every set with one or two of them left out (and three or "
                         "more while nearly all the records are unique on those sets)"),
    "bic": N_("chosen by the Bayesian information criterion"),
    "heldout": N_("chosen by the likelihood of 20 % of the records held out of the fit"),
    "given": N_("given"),
}
#: Why two columns are modelled as one (the page and the CLI show it with the columns' names).
COMPANION_TEXT = N_("{child} is modelled together with {partner}: in the fitted records each value of either is "
                     "seen with a single value of the other, so the model keeps that pairing rather than drawing "
                     "the two independently within a class")
#: Numbers of classes the "unique-shares" rule doubles through before it bisects between the last two.
UNIQUENESS_GRID = (1, 2, 4, 8, 16, 32, 64)
#: Pairs of left-out columns (a seeded sample) among the sub-tuples the rule "unique-shares" checks.
PAIR_DROPS = 120
#: The rule "unique-shares" leaves out one more column while the records' mean share unique on the deepest tuples
#: checked exceeds this (a sample far smaller than the population: those shares say little about C).
NEARLY_ALL_UNIQUE = 0.9
#: The rule "unique-shares" tries no more classes than a ``1 / RECORDS_PER_CLASS`` share of the records.
RECORDS_PER_CLASS = 4
#: Share of the records held out when ``selection="heldout"``.
HELDOUT_SHARE = 0.2


@dataclass
class LatentClassModel:
    """A fitted latent class model over columns with ``cards[j]`` values each (codes 0…K_j − 1)."""

    weights: np.ndarray            # π, shape (C,)
    log_phi: list[np.ndarray]      # per column: log φ_{c,j}, shape (C, K_j)
    cards: np.ndarray
    loglik: float = math.nan       # on the records it was fitted on
    n_records: int = 0
    selection: list[dict] = field(default_factory=list)  # the C tried: C, loglik, bic or held-out score
    rule: str = "bic"
    notes: list[str] = field(default_factory=list)
    blend: dict | None = None      # rule "unique-shares": the two fits blended and the weight of the smaller
    checked: dict | None = None    # rule "unique-shares": how many tuples it checked, and at most how many columns left out
    # column -> (its partner, log T): a column in one-to-one correspondence with an earlier one in the records
    # (see :func:`companions`); its value given the partner's is T[partner value] in every class, and its
    # log_phi holds the class marginals φ_c,partner @ T (exact, used once the partner is summed out)
    companions: dict = field(default_factory=dict)

    @property
    def n_classes(self) -> int:
        return int(self.weights.size)

    @property
    def n_parameters(self) -> int:
        """The mixture's parameters (a companion column adds none to the classes: it follows its partner)."""
        return parameter_count(self.n_classes, [k for j, k in enumerate(self.cards) if j not in self.companions])

    def log_prob(self, codes: np.ndarray) -> np.ndarray:
        """log p(x) of each row of ``codes`` (exact)."""
        codes = np.asarray(codes)
        lw = np.log(self.weights)[None, :] + sum(lp[:, codes[:, j]].T for j, lp in enumerate(self.log_phi)
                                                 if j not in self.companions)
        out = logsumexp(lw, axis=1)
        for j, (partner, log_t) in self.companions.items():
            out = out + log_t[codes[:, partner], codes[:, j]]
        return out

    def cell_prob(self, codes: np.ndarray, n_points=None, n_rep=None, seed=None) -> tuple[np.ndarray, np.ndarray]:
        """p(x) per record and its standard error (zero: the sum is exact); the copula's signature."""
        p = np.exp(self.log_prob(codes))
        return p, np.zeros_like(p)

    def sub(self, columns) -> LatentClassModel:
        """The model of some of the columns: the others summed out (exact for a mixture)."""
        cols = list(columns)
        where = {j: i for i, j in enumerate(cols)}
        # a companion whose partner is summed out becomes an ordinary column (its log_phi is its class marginal)
        kept = {where[j]: (where[partner], log_t) for j, (partner, log_t) in self.companions.items()
                if j in where and partner in where}
        return LatentClassModel(weights=self.weights, log_phi=[self.log_phi[j] for j in cols],
                                cards=self.cards[cols], loglik=math.nan, n_records=self.n_records,
                                rule=self.rule, companions=kept)

    def sample(self, n: int, seed: int = 0) -> np.ndarray:
        """``n`` records drawn from the model (for tests and simulations)."""
        rng = np.random.default_rng(seed)
        cls = rng.choice(self.n_classes, size=n, p=self.weights / self.weights.sum())
        out = np.empty((n, len(self.log_phi)), dtype=np.int32)
        order = [j for j in range(len(self.log_phi)) if j not in self.companions] + list(self.companions)
        for j in order:
            lp, rows = self.log_phi[j], cls
            if j in self.companions:  # drawn given its partner's value, drawn before it
                partner, lp = self.companions[j]
                rows = out[:, partner]
            cum = np.cumsum(np.exp(lp), axis=1)
            u = rng.random(n) * cum[rows, -1]
            out[:, j] = np.minimum((u[:, None] > cum[rows]).sum(axis=1), lp.shape[1] - 1)
        return out

    def to_dict(self) -> dict:
        return {"classes": self.n_classes, "parameters": self.n_parameters, "loglik": self.loglik,
                "rule": self.rule, "rule_text": RULE_TEXT.get(self.rule, self.rule), "selection": self.selection,
                "blend": self.blend, "checked": self.checked, "companions": [[int(j), int(p)] for j, (p, _) in self.companions.items()],
                "notes": list(self.notes)}


def parameter_count(n_classes: int, cards) -> int:
    return int(n_classes - 1 + n_classes * int(np.sum(np.asarray(cards) - 1)))


def _one_hot(codes: np.ndarray, cards: np.ndarray) -> sparse.csr_matrix:
    """Rows × Σ K_j indicator matrix of the codes."""
    n, d = codes.shape
    offsets = np.concatenate([[0], np.cumsum(cards)[:-1]])
    cols = (codes + offsets[None, :]).ravel()
    rows = np.repeat(np.arange(n), d)
    return sparse.csr_matrix((np.ones(n * d), (rows, cols)), shape=(n, int(cards.sum())))


def _compress(codes: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Distinct rows of ``codes`` and how many records each stands for."""
    inv, counts = class_ids(codes)
    first = np.zeros(counts.size, dtype=np.int64)
    first[inv[::-1]] = np.arange(inv.size)[::-1]
    return codes[first], counts.astype(np.float64)


def _marginals(x: sparse.csr_matrix, w: np.ndarray, cards: np.ndarray) -> np.ndarray:
    """Each column's overall shares, with one pseudo-record spread evenly (never zero)."""
    total = x.T @ w
    out = np.empty_like(total)
    start = 0
    for k in cards:
        seg = total[start:start + k]
        out[start:start + k] = (seg + 1.0 / k) / (seg.sum() + 1.0)
        start += k
    return out


def _lse(a: np.ndarray) -> np.ndarray:
    """log Σ exp over the last axis (faster than SciPy's for the small class axis)."""
    mx = a.max(axis=1)
    return mx + np.log(np.exp(a - mx[:, None]).sum(axis=1))


def _posterior(joint: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Each row's class responsibilities and log Σ exp of its joint log probabilities.

    One exponential per entry, taken in single precision after the row maximum is subtracted (so the
    values lie in (0, 1], where float32's relative error of 6e-8 is far below EM's tolerance); the sums
    and the log-likelihood stay in double precision.  Three times faster than two float64 passes.
    """
    mx = joint.max(axis=1)
    e = np.exp((joint - mx[:, None]).astype(np.float32))
    s = e.sum(axis=1, dtype=np.float64)
    return e / s[:, None], mx + np.log(s)


def _em(x, w, cards, prior, n_classes, rng, max_iter=MAX_ITER, tol=TOL, init=None):
    """One EM run from a random soft assignment (or from ``init`` = (log π, log φ) of an earlier run);
    returns (log π, stacked log φ (ΣK × C), log L)."""
    n = x.shape[0]
    starts = np.concatenate([[0], np.cumsum(cards)[:-1]])
    segment = np.repeat(np.arange(cards.size), cards)
    xt = x.T  # CSC: its product with the responsibilities is ~5x faster than with a CSR copy
    if init is None:
        resp = rng.dirichlet(np.ones(n_classes), size=n)
    else:
        resp, _ = _posterior(x @ init[1] + init[0][None, :])
    prev = -np.inf
    ll = -np.inf
    for _ in range(max_iter):
        wr = resp * w[:, None]
        nc = wr.sum(axis=0)
        log_pi = np.log(np.maximum(nc, 1e-300) / w.sum())
        counts = xt @ wr + PRIOR_WEIGHT * prior[:, None]
        log_phi = np.log(counts) - np.log(np.add.reduceat(counts, starts, axis=0))[segment]
        resp, lse = _posterior(x @ log_phi + log_pi[None, :])
        ll = float(w @ lse)
        if ll - prev <= tol * abs(ll):
            break
        prev = ll
    return log_pi, log_phi, ll


def _best_of_starts(x, w, cards, prior, n_classes, seed, starts, max_iter=MAX_ITER, tol=TOL):
    best = None
    for s in range(1 if n_classes == 1 else starts):
        rng = np.random.default_rng([seed, n_classes, s])
        run = _em(x, w, cards, prior, n_classes, rng, max_iter=max_iter, tol=tol)
        if best is None or run[2] > best[2]:
            best = run
    return best


def _model(run, cards, n, rule, selection) -> LatentClassModel:
    log_pi, log_phi, ll = run
    bounds = np.concatenate([[0], np.cumsum(cards)])
    phis = [np.ascontiguousarray(log_phi[a:b].T) for a, b in zip(bounds[:-1], bounds[1:])]
    return LatentClassModel(weights=np.exp(log_pi), log_phi=phis, cards=np.asarray(cards, dtype=np.int64),
                            loglik=ll, n_records=n, selection=selection, rule=rule)


def _score(run, x, w) -> float:
    log_pi, log_phi, _ = run
    return float(w @ _lse(x @ log_phi + log_pi[None, :]))


def _level(d: int, depth: int, rng: np.random.Generator) -> list[tuple[int, ...]]:
    """The tuples with ``depth`` of the ``d`` columns left out (at most :data:`PAIR_DROPS` of them, a seeded sample)."""
    sets = list(itertools.combinations(range(d), depth))
    if len(sets) > PAIR_DROPS:
        sets = [sets[i] for i in np.sort(rng.choice(len(sets), PAIR_DROPS, replace=False))]
    return sets


class _UniquenessCheck:
    """The records' own share of unique records on the full tuple and on sub-tuples, and a model's predicted
    share on the same tuples (the rule "unique-shares").

    The tuples leave out no column, each one column, and up to :data:`PAIR_DROPS` pairs of columns (a seeded
    sample); then, while the records are still nearly all unique on the deepest tuples (more than
    :data:`NEARLY_ALL_UNIQUE` of them on average), up to :data:`PAIR_DROPS` tuples with one more column left
    out — the shares that still carry information about the dependence.
    The records are given once per distinct row (``uniq``) with their counts ``w``; ``m`` records in all.
    A mixture's model of a sub-tuple is the same mixture with the left-out columns' factors dropped, so
    every sub-tuple's p(x) comes from one table of per-column log factors.
    """

    def __init__(self, uniq: np.ndarray, w: np.ndarray, cards: np.ndarray, m: int, rng: np.random.Generator):
        self.uniq, self.w, self.m = uniq, w, m
        self.offsets = np.concatenate([[0], np.cumsum(cards)[:-1]])
        d = uniq.shape[1]
        self.drops, own = [], []
        for depth in range(d):
            level = _level(d, depth, rng)
            shares = [self._own_share([j for j in range(d) if j not in drop]) for drop in level]
            self.drops += level
            own += shares
            self.depth = depth
            if depth >= 2 and np.mean(shares) <= NEARLY_ALL_UNIQUE:
                break
        self.own = np.array(own)

    def _own_share(self, keep: list[int]) -> float:
        inv, _ = class_ids(self.uniq[:, keep])
        size = np.bincount(inv, weights=self.w)[inv]
        return float(np.sum(self.w[size == 1])) / self.m

    def probs(self, run) -> np.ndarray:
        """p(x) of each distinct row on each checked tuple: shape (tuples, rows).

        In single precision (a relative error of 1e-7 on p moves a share unique by far less than its
        sampling noise); the rule evaluates every checked tuple for each C it tries, so this is its hot loop.
        """
        log_pi, log_phi = run[0].astype(np.float32), run[1].astype(np.float32)
        factors = np.stack([log_phi[self.offsets[j] + self.uniq[:, j]] for j in range(self.uniq.shape[1])])
        total = factors.sum(axis=0) + log_pi[None, :]
        return np.stack([np.exp(_lse(total - factors[list(drop)].sum(axis=0))) if drop else np.exp(_lse(total))
                         for drop in self.drops])

    def gap(self, probs: np.ndarray) -> float:
        """Mean over the tuples of (model's share unique among m records − the records' own share)."""
        lq = np.log1p(-np.minimum(probs.astype(np.float64), 1.0 - 1e-16))
        shares = np.exp((self.m - 1.0) * lq) @ self.w / self.m
        return float(np.mean(shares - self.own))


def _by_uniqueness(x, w, cards, prior, check: _UniquenessCheck, seed, starts, tried) -> tuple:
    """(C_lo, run_lo, C_hi, run_hi): double C while the model's share unique (averaged over the checked tuples)
    exceeds the records' own (more classes concentrate the mass), then bisect down to two C that bracket it;
    without a bracket (C_best, run_best, None, None)."""
    cache: dict[int, tuple] = {}

    def gap_of(c: int) -> float:
        if c not in cache:
            run = _best_of_starts(x, w, cards, prior, c, seed, starts if c <= 8 else 1,  # one start for many classes
                                  max_iter=SELECT_ITER, tol=SELECT_TOL)
            gap = check.gap(check.probs(run))
            cache[c] = (gap, run)
            tried.append({"classes": c, "loglik": run[2], "uniqueness_gap": gap})
        return cache[c][0]

    lo = hi = None
    for c in UNIQUENESS_GRID:
        if c > 1 and c * RECORDS_PER_CLASS > check.m:  # more classes than the records can populate
            break
        if gap_of(c) <= 0:
            hi = c
            break
        lo = c
    if lo is not None and hi is not None:
        while hi - lo > 1:
            mid = (lo + hi) // 2
            if gap_of(mid) > 0:
                lo = mid
            else:
                hi = mid
    tried.sort(key=lambda r: r["classes"])
    if lo is not None and hi is not None:
        return lo, cache[lo][1], hi, cache[hi][1]
    c = min(cache, key=lambda k: abs(cache[k][0]))
    return c, cache[c][1], None, None


def _blend(check: _UniquenessCheck, lo_run, hi_run) -> tuple[float, float]:
    """Weight ω of the fewer-class model in ω·lo + (1 − ω)·hi (itself a latent class model) that makes the
    model's share unique, averaged over the checked tuples, equal the records' own; and the gap at ω."""
    p_lo, p_hi = check.probs(lo_run), check.probs(hi_run)

    def gap(omega: float) -> float:
        return check.gap(omega * p_lo + (1 - omega) * p_hi)

    g1, g0 = gap(1.0), gap(0.0)
    if g1 <= 0:
        return 1.0, g1
    if g0 >= 0:
        return 0.0, g0
    omega = optimize.brentq(gap, 0.0, 1.0, xtol=1e-6)
    return float(omega), gap(omega)


def companions(codes: np.ndarray) -> dict[int, int]:
    """Columns in one-to-one correspondence with an earlier column in these records, each with that partner.

    Column k is the companion of column j < k when each value of either, among the records, is seen with a
    single value of the other (education and its number of years in ADULT), and each has two values or more.
    """
    codes = np.asarray(codes)
    d = codes.shape[1]
    distinct = [np.unique(codes[:, j]).size for j in range(d)]
    out: dict[int, int] = {}
    for j in range(d):
        if j in out or distinct[j] < 2:
            continue
        for k in range(j + 1, d):
            if k in out or distinct[k] != distinct[j]:
                continue
            pairs = np.unique(codes[:, [j, k]], axis=0).shape[0]
            if pairs == distinct[j]:
                out[k] = j
    return out


def _companion_table(codes: np.ndarray, partner: int, child: int, cards: np.ndarray) -> np.ndarray:
    """log T[a, b] = log P(child = b | partner = a): the records' counts with the Dirichlet prior of the classes'
    column distributions (:data:`PRIOR_WEIGHT` pseudo-records at the child's overall shares); an unseen partner
    value gets those shares."""
    ka, kb = int(cards[partner]), int(cards[child])
    counts = np.zeros((ka, kb))
    np.add.at(counts, (codes[:, partner], codes[:, child]), 1.0)
    total = counts.sum(axis=0)
    shares = (total + 1.0 / kb) / (total.sum() + 1.0)
    t = counts + PRIOR_WEIGHT * shares[None, :]
    return np.log(t / t.sum(axis=1, keepdims=True))


def fit(codes: np.ndarray, cards, seed: int = 0, selection: str = DEFAULT_SELECTION, n_classes: int | None = None,
        starts: int = STARTS, select_records: int = SELECT_RECORDS) -> LatentClassModel:
    """Fit the latent class model to integer-coded records (see the module notes).

    Columns in one-to-one correspondence in the records (:func:`companions`) are modelled as one: the
    mixture is fitted without the companions, and each companion then follows its partner's value.
    """
    codes = np.asarray(codes)
    cards = np.asarray(cards, dtype=np.int64)
    if codes.ndim != 2 or codes.shape[0] < 2:
        raise InputError("the latent class model needs at least two records")
    if selection not in SELECTIONS:
        raise InputError(f"the number of classes is chosen by {' or '.join(SELECTIONS)}, not {selection!r}")
    pairs = companions(codes)
    if not pairs:
        return _fit_mixture(codes, cards, seed, selection, n_classes, starts, select_records)
    own = [j for j in range(codes.shape[1]) if j not in pairs]
    core = _fit_mixture(codes[:, own], cards[own], seed, selection, n_classes, starts, select_records)
    log_phi: list = [None] * codes.shape[1]
    for i, j in enumerate(own):
        log_phi[j] = core.log_phi[i]
    table, loglik = {}, core.loglik
    for child, partner in pairs.items():
        log_t = _companion_table(codes, partner, child, cards)
        table[child] = (partner, log_t)
        log_phi[child] = logsumexp(log_phi[partner][:, :, None] + log_t[None, :, :], axis=1)
        loglik += float(log_t[codes[:, partner], codes[:, child]].sum())
    return LatentClassModel(weights=core.weights, log_phi=log_phi, cards=cards, loglik=loglik,
                            n_records=core.n_records, selection=core.selection, rule=core.rule,
                            notes=core.notes, blend=core.blend, checked=core.checked, companions=table)


def _fit_mixture(codes: np.ndarray, cards: np.ndarray, seed: int, selection: str, n_classes: int | None,
                 starts: int, select_records: int) -> LatentClassModel:
    """The mixture of independent columns, with the number of classes chosen by ``selection`` (or given)."""
    n = codes.shape[0]
    uniq, w = _compress(codes)
    x = _one_hot(uniq, cards)
    prior = _marginals(x, w, cards)
    if n_classes is not None:
        if not 1 <= int(n_classes) <= MAX_CLASSES:
            raise InputError(f"the number of classes must lie between 1 and {MAX_CLASSES}")
        run = _best_of_starts(x, w, cards, prior, int(n_classes), seed, starts)
        return _model(run, cards, n, "given", [{"classes": int(n_classes), "loglik": run[2]}])

    rng = np.random.default_rng(seed)
    sel_codes = codes
    if n > select_records:
        sel_codes = codes[np.sort(rng.choice(n, select_records, replace=False))]
    if selection == "heldout":
        order = rng.permutation(sel_codes.shape[0])
        cut = max(1, int(round(sel_codes.shape[0] * (1 - HELDOUT_SHARE))))
        train_codes, test_codes = sel_codes[order[:cut]], sel_codes[order[cut:]]
    else:
        train_codes, test_codes = sel_codes, None
    tu, tw = _compress(train_codes)
    tx = _one_hot(tu, cards)
    tprior = _marginals(tx, tw, cards)
    if test_codes is not None and test_codes.shape[0]:
        hu, hw = _compress(test_codes)
        hx = _one_hot(hu, cards)
    tried, best, worse = [], None, 0
    m = train_codes.shape[0]
    if selection == "unique-shares":
        check = _UniquenessCheck(tu, tw, cards, m, np.random.default_rng([seed, 1]))
        c_lo, run_lo, c_hi, run_hi = _by_uniqueness(tx, tw, cards, tprior, check, seed, starts, tried)
        run_lo = _em(x, w, cards, prior, c_lo, None, init=run_lo[:2], max_iter=REFINE_ITER)  # refined on all records
        checked = {"tuples": len(check.drops), "most_left_out": check.depth}
        if c_hi is None:
            model = _model(run_lo, cards, n, selection, tried)
            model.checked = checked
            if c_lo == MAX_CLASSES:
                model.notes.append(f"the largest number of classes tried ({c_lo}) fits best: the model may be "
                                   "too coarse for these columns")
            return model
        run_hi = _em(x, w, cards, prior, c_hi, None, init=run_hi[:2], max_iter=REFINE_ITER)
        omega, gap = _blend(check, run_lo, run_hi)
        log_pi = np.concatenate([run_lo[0] + math.log(max(omega, 1e-300)), run_hi[0] + math.log(max(1 - omega, 1e-300))])
        log_phi = np.concatenate([run_lo[1], run_hi[1]], axis=1)
        keep = np.isfinite(log_pi) & (log_pi > -690)
        ll = float(w @ _lse(x @ log_phi[:, keep] + log_pi[keep][None, :]))
        model = _model((log_pi[keep], log_phi[:, keep], ll), cards, n, selection, tried)
        model.blend = {"classes": [c_lo, c_hi], "weight_of_fewer": omega, "uniqueness_gap": gap}
        model.checked = checked
        return model
    for c in (() if selection == "unique-shares" else CLASS_GRID):
        if c > 1 and parameter_count(c, cards) > 2 * m:  # more parameters than the data can carry
            break
        run = _best_of_starts(tx, tw, cards, tprior, c, seed, starts)
        if selection == "bic":
            score = -(-2.0 * run[2] + parameter_count(c, cards) * math.log(m))  # higher is better
            tried.append({"classes": c, "loglik": run[2], "bic": -score})
        else:
            score = _score(run, hx, hw) if test_codes is not None and test_codes.shape[0] else run[2]
            tried.append({"classes": c, "loglik": run[2], "heldout_loglik": score})
        if best is None or score > best[0]:
            best, worse = (score, c, run), 0
        else:
            worse += 1
            if worse >= 2:
                break
    chosen = best[1]
    # the chosen C on all records, from the selection's solution: converges in a few iterations
    run = _em(x, w, cards, prior, chosen, None, init=best[2][:2])
    model = _model(run, cards, n, selection, tried)
    if chosen == MAX_CLASSES:
        model.notes.append(f"the largest number of classes tried ({chosen}) was the best: the model may be "
                           "too coarse for these columns")
    return model
