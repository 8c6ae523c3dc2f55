"""Fitting a Pitman–Yor process to a partition (SPEC §3): likelihood, maximum-likelihood fit, sampler."""
from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np
from scipy import optimize
from scipy import special as sp

from ..errors import InputError
from . import _law as pyc
from ._law import counts_of_counts, stirling_rest_scalar


def _sum_log_alpha_id(d: float, alpha: float, k: int) -> float:
    """Σ_{i=1}^{K−1} log(α + i d) in closed form (no loop over K).

    d > 0: (K−1) ln d + lnΓ(α/d + K) − lnΓ(α/d + 1); d < 0: with c = α/|d|,
    (K−1) ln|d| + lnΓ(c) − lnΓ(c − K + 1); d = 0: (K−1) ln α.  For large arguments the
    lnΓ difference is taken from Stirling's series so that d → 0 is continuous.
    """
    s = k - 1
    if s == 0:
        return 0.0
    if d == 0.0:
        return s * math.log(alpha)
    if d > 0.0:
        base = alpha + d                               # |d|·x with x = α/d + 1
    else:
        base = alpha + s * d                           # the smallest factor α + (K−1)d
        if base <= 0.0:
            return -math.inf
    x = base / abs(d)
    if x >= 10.0:
        rest = stirling_rest_scalar(x, float(s))
        return s * (math.log(base) + rest)
    return s * math.log(abs(d)) + math.lgamma(x + s) - math.lgamma(x)


def _log_rising_alpha1(alpha: float, n: float) -> float:
    """log (α+1)_{n−1} = lnΓ(α + n) − lnΓ(α + 1)."""
    if n <= 1:
        return 0.0
    x, s = alpha + 1.0, n - 1.0
    if x >= 10.0:
        rest = stirling_rest_scalar(x, s)
        return s * (math.log(x) + rest)
    return math.lgamma(alpha + n) - math.lgamma(x)


class _Partition:
    """Counts of counts of one observed partition, validated once."""

    def __init__(self, sizes, multiplicities):
        self.sizes, self.mult = counts_of_counts(sizes, multiplicities)
        self.n = float(self.sizes @ self.mult)
        self.k = round(float(self.mult.sum()))

    def loglik(self, d: float, alpha: float) -> float:
        """log L(d, α); −inf outside the region where the partition has positive probability."""
        if not (d < 1.0 and alpha + d > 0.0 and math.isfinite(alpha)):
            return -math.inf
        t1 = _sum_log_alpha_id(d, alpha, self.k)
        if t1 == -math.inf:
            return t1
        t2 = _log_rising_alpha1(alpha, self.n)
        t3 = float(self.mult @ (sp.gammaln(self.sizes - d) - math.lgamma(1.0 - d)))
        return t1 - t2 + t3


def log_likelihood(d, alpha, sizes, multiplicities) -> float:
    """Pitman–Yor partition log-likelihood from counts of counts (SPEC §3).

    log L = Σ_{i=1}^{K−1} log(α + i d) − log (α+1)_{n−1} + Σ_k log (1−d)_{m_k−1}, with
    ``multiplicities[k]`` sets of size ``sizes[k]``, K sets and n records in all.
    """
    d, alpha = pyc.check_params(d, alpha)
    return _Partition(sizes, multiplicities).loglik(d, alpha)


#: The d < 0 search stops at d = −D_NEG_MAX (a Dirichlet this even is practically uniform).
D_NEG_MAX = 1e4


@dataclass(frozen=True)
class FitResult:
    """Maximum-likelihood Pitman–Yor fit of an observed partition, with its predictions."""

    d: float
    alpha: float
    h: float                 # entropy, nats
    gamma: float             # tail complexity
    log_likelihood: float
    n_records: int
    n_sets: int
    converged: bool
    message: str

    @property
    def h_bits(self) -> float:
        return pyc.nats_to_bits(self.h)

    @property
    def support(self) -> float | None:
        """For d < 0 the number of sets of the finite Dirichlet, −α/d; None otherwise."""
        return -self.alpha / self.d if self.d < 0 else None

    def kappa(self, n):
        return pyc.kappa(n, self.d, self.alpha)

    def uniqueness(self, n):
        return pyc.uniqueness(n, self.d, self.alpha)

    def k_violations(self, n, k: int):
        return pyc.k_violations(n, self.d, self.alpha, k)

    def expected_sets(self, n):
        return pyc.expected_sets(n, self.d, self.alpha)

    def to_dict(self) -> dict:
        return {
            "d": self.d, "alpha": self.alpha, "h_nats": self.h, "h_bits": self.h_bits,
            "gamma": self.gamma, "log_likelihood": self.log_likelihood,
            "n_records": self.n_records, "n_sets": self.n_sets, "support": self.support,
            "converged": self.converged, "message": self.message,
        }


def _alpha_floor(d: float, k: int) -> float:
    """Smallest α with positive likelihood: −d for d ≥ 0, (K−1)|d| for d < 0."""
    return -d if d >= 0.0 else (k - 1) * -d


def _moment_alpha(part: _Partition, d: float) -> float:
    """α with E[K_n | d, α] = K (increasing in α), the starting point for a given d."""
    lo = _alpha_floor(d, part.k)
    if part.k >= part.n:                               # all singletons: α → ∞
        return lo + 1e12
    if part.k <= 1:
        return lo + 1e-6

    def gap(v):
        return pyc.expected_sets(part.n, d, lo + math.exp(v)) - part.k

    a, b = -30.0, 45.0
    if gap(a) > 0:
        return lo + math.exp(a)
    if gap(b) < 0:
        return lo + math.exp(b)
    return lo + math.exp(optimize.brentq(gap, a, b, xtol=1e-6))


def fit_partition(sizes, multiplicities=None, allow_negative_d: bool = True) -> FitResult:
    """Maximum-likelihood PY(d, α) for an observed partition given as counts of counts.

    ``multiplicities[k]`` sets have ``sizes[k]`` records (omit multiplicities to pass one size
    per set).  The search runs over 0 ≤ d < 1, α > −d and, with ``allow_negative_d``, the
    finite-support branch d < 0, α > (K−1)|d| (below that the observed K sets are impossible).
    Coordinates: d = 1 − e^u, α = floor(d) + e^v, Nelder–Mead from the best of a grid of
    moment-matched starts.  A very even partition drives d → −∞ (the uniform distribution
    over α/|d| sets); the search stops at d = −1e4 and the message says so.
    """
    if multiplicities is None:
        s = np.asarray(sizes, dtype=float).ravel()
        if s.size == 0:
            raise InputError("no set sizes given")
        sizes, multiplicities = s, np.ones_like(s)
    part = _Partition(sizes, multiplicities)
    if part.k < 2:
        raise InputError("the partition has a single set: d and alpha cannot be estimated")
    if part.k >= part.n:
        raise InputError("every record is alone in its set: the likelihood grows without "
                         "bound in alpha (all records are unique)")
    u_max = math.log1p(D_NEG_MAX) if allow_negative_d else 0.0

    def to_params(theta):
        u, v = float(theta[0]), float(theta[1])
        d = 1.0 - math.exp(u)
        return d, _alpha_floor(d, part.k) + math.exp(v)

    def objective(theta):
        if not (theta[0] <= u_max and -40.0 <= theta[1] <= 60.0) or theta[0] < -40.0:
            return math.inf
        d, alpha = to_params(theta)
        if not d < 1.0:
            return math.inf
        value = part.loglik(d, alpha)
        return -value / part.n if math.isfinite(value) else math.inf

    d_grid = [0.0, 0.15, 0.3, 0.45, 0.6, 0.75, 0.9, 0.97]
    if allow_negative_d:
        d_grid = [-3.0, -0.5] + d_grid
    starts = []
    for d0 in d_grid:
        a0 = _moment_alpha(part, d0)
        v0 = math.log(max(a0 - _alpha_floor(d0, part.k), 1e-17))
        theta = np.array([math.log(1.0 - d0), v0])
        starts.append((objective(theta), theta))
    starts.sort(key=lambda t: t[0])
    best = None
    for _, theta in starts[:3]:
        res = optimize.minimize(
            objective, theta, method="Nelder-Mead",
            options={"xatol": 1e-7, "fatol": 1e-11, "maxiter": 4000, "maxfev": 4000,
                     "initial_simplex": [theta, theta + [0.2, 0.0], theta + [0.0, 0.5]]},
        )
        if best is None or res.fun < best.fun:
            best = res
    if not math.isfinite(best.fun):
        raise InputError("the likelihood could not be maximised for this partition")
    d, alpha = to_params(best.x)
    messages = []
    if not best.success:
        messages.append(f"optimiser: {best.message}")
    if allow_negative_d and best.x[0] >= u_max - 1e-3:
        messages.append(f"d reached the search limit -{D_NEG_MAX:g}: the sets are as even as a "
                        f"uniform distribution over about {alpha / -d:.0f} sets")
    h, g = pyc.to_h_gamma(d, alpha)
    return FitResult(
        d=d, alpha=alpha, h=h, gamma=g, log_likelihood=float(-best.fun * part.n),
        n_records=round(part.n), n_sets=part.k, converged=bool(best.success),
        message="; ".join(messages) or "converged",
    )



#: Largest partition :func:`sample_partition` draws (it loops in Python, ~1 µs a record).
MAX_SAMPLE = 5_000_000


def sample_partition(n: int, d: float, alpha: float, rng=None) -> np.ndarray:
    """Set sizes of a partition of n records drawn from PY(d, α) (Chinese restaurant).

    Record i + 1 opens a new set with probability (α + dK)/(α + i), else joins set j with
    probability (m_j − d)/(α + i).  Joining is O(1): copy the set of a uniformly drawn earlier
    record (probability ∝ m_j), accepted with probability 1 − d/m_j for d ≥ 0; for d < 0 mix
    that draw with a uniform set (weights i and K|d|).  d < 0 needs α = K|d| with K whole.
    """
    if rng is None:
        rng = np.random.default_rng()
    d, alpha = pyc.check_params(d, alpha)
    n = pyc._check_int(n, "n", 1)
    if n > MAX_SAMPLE:
        raise InputError(f"n must be at most {MAX_SAMPLE:,} for the sampler (got {n:,})")
    if d < 0:
        k_max = alpha / -d
        if abs(k_max - round(k_max)) > 1e-9 * max(1.0, k_max):
            raise InputError(f"for d < 0 the sampler needs alpha = K·|d| with K whole (K = {k_max:g})")
    owner = [0] * n                                    # set index of each record
    sizes: list[int] = []
    buf = rng.random(4 * n + 64).tolist()
    pos = 0

    def uniform():
        nonlocal buf, pos
        if pos >= len(buf):
            buf = rng.random(2 * n + 64).tolist()
            pos = 0
        pos += 1
        return buf[pos - 1]

    neg = -d if d < 0 else 0.0
    for i in range(n):
        k = len(sizes)
        if i == 0 or uniform() * (alpha + i) < alpha + d * k:
            owner[i] = k
            sizes.append(1)
            continue
        if d >= 0.0:
            while True:
                j = owner[int(uniform() * i)]
                if d == 0.0 or uniform() * sizes[j] < sizes[j] - d:
                    break
        elif uniform() * (i + k * neg) < i:
            j = owner[int(uniform() * i)]
        else:
            j = int(uniform() * k)
        owner[i] = j
        sizes[j] += 1
    return np.asarray(sizes, dtype=np.int64)
