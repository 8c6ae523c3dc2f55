"""The Pitman–Yor correctness (PYC) scaling law (SPEC §3): κ(n), Ξ(n), V_k(n) and (h, γ).

Every formula is derived from the (d, α) form of the Pitman–Yor process PY(d, α); the
(h, γ) form printed in the source paper has a flipped sign and is not used.  Entropies are
in nats here (the interface converts with :func:`bits_to_nats` / :func:`nats_to_bits`).

Numerics.  The law needs differences of ``lnΓ`` at huge, nearly equal arguments (α up to
1e18, n up to 1e10) and divisions by a tiny ``d`` (down to 1e-12 and exactly 0).  Both are
handled by one quantity, the mean of ψ over ``[x, x + s]``::

    A(x, s) = [lnΓ(x + s) − lnΓ(x)] / s        (= ψ(x) at s = 0)

computed by Stirling's series written as a *difference* (no huge terms cancel) for large
arguments, by a Taylor series in ``s`` with Hurwitz zeta values for small ``s``, and by plain
``gammaln`` elsewhere.  The expected number of sets is then

    E[K_n] = 1 + (α + d) · D · exprel(d · D),   D = A(α + n, d) − A(α + 1, d)

which equals the SPEC's ``α · expm1(Δ) / d`` (use (α)_n = α (α+1)_{n−1}) but has no division
by ``d``, no sign trouble for −d < α < 0, and tends to ``α [ψ(n + α) − ψ(α)]`` at d = 0.
"""
from __future__ import annotations

import math
from typing import NamedTuple

import numpy as np
from scipy import special as sp

from ..errors import InputError

LN2 = math.log(2.0)

#: B_2, B_4, …, B_20 (Bernoulli numbers) for Stirling's series of lnΓ and ψ.
_BERNOULLI = np.array([
    1 / 6, -1 / 30, 1 / 42, -1 / 30, 5 / 66, -691 / 2730, 7 / 6, -3617 / 510,
    43867 / 798, -174611 / 330,
])
_KS = np.arange(1, _BERNOULLI.size + 1)
_M = 2 * _KS - 1                                   # powers x^{-m} in Stirling's lnΓ series
_C = _BERNOULLI / (2 * _KS * (2 * _KS - 1))        # lnΓ(x) ~ … + Σ c_k x^{-(2k-1)}
_PSI_C = _BERNOULLI / (2 * _KS)                    # ψ(x) ~ ln x − 1/(2x) − Σ b_k x^{-2k}

#: Stirling's series is used where both arguments are at least this large.
_X_STIRLING = 10.0
#: The Taylor series in s is used where |s| ≤ this fraction of x (12 terms then give 1e-16).
_TAYLOR_RATIO = 0.05
_TAYLOR_K = np.arange(1, 13)
_EULER = 0.5772156649015329


def bits_to_nats(h_bits):
    """Entropy in nats from bits (1 bit = ln 2 nats)."""
    return np.asarray(h_bits, dtype=float) * LN2 if np.ndim(h_bits) else float(h_bits) * LN2


def nats_to_bits(h_nats):
    """Entropy in bits from nats."""
    return np.asarray(h_nats, dtype=float) / LN2 if np.ndim(h_nats) else float(h_nats) / LN2



def check_params(d, alpha) -> tuple[float, float]:
    """Return (d, α) as floats, or raise InputError outside d < 1, α > −d."""
    try:
        d = float(d)
        alpha = float(alpha)
    except (TypeError, ValueError):
        raise InputError("the Pitman–Yor parameters d and alpha must be numbers") from None
    if not (math.isfinite(d) and math.isfinite(alpha)):
        raise InputError(f"the Pitman–Yor parameters must be finite (got d={d}, alpha={alpha})")
    if d >= 1.0:
        raise InputError(f"the discount d must be below 1 (got d={d:g})")
    if not alpha + d > 0.0:
        hint = "; for d < 0, alpha = -K·d with K > 1 sets" if d < 0 else ""
        raise InputError(f"the concentration alpha must exceed -d = {-d:g} (got alpha={alpha:g}){hint}")
    if alpha + d < 1e-300:
        raise InputError(f"alpha + d = {alpha + d:g} is too close to 0 to compute with")
    return d, alpha


def as_n(n, name: str = "n") -> tuple[np.ndarray, bool]:
    """Gallery sizes as a float array (n ≥ 1, finite) and whether the input was a scalar."""
    try:
        arr = np.asarray(n, dtype=float)
    except (TypeError, ValueError):
        raise InputError(f"{name} must be numbers") from None
    if arr.ndim > 1:
        raise InputError(f"{name} must be a number or a one-dimensional list")
    if arr.size and not np.all(np.isfinite(arr)):
        raise InputError(f"{name} must be finite")
    if arr.size and arr.min() < 1.0:
        raise InputError(f"{name} must be at least 1 (got {arr.min():g})")
    return arr, arr.ndim == 0


def _out(arr: np.ndarray, scalar: bool):
    return float(arr) if scalar else arr



def _log1p_over_minus_one(u: np.ndarray) -> np.ndarray:
    """log1p(u)/u − 1, to full relative precision also for tiny u."""
    out = np.empty_like(u)
    small = np.abs(u) <= 0.1
    if small.any():
        v = -u[small]
        vmax = float(np.max(np.abs(v)))
        # terms v^k/(k+1) until below 1e-17 relative: 16 at |u| = 0.1, 3 at 1e-6
        nterms = 16 if vmax > 1e-2 else (8 if vmax > 1e-4 else (5 if vmax > 1e-6 else 3))
        acc = np.full_like(v, 1.0 / (nterms + 1))
        for k in range(nterms - 1, 0, -1):
            acc = 1.0 / (k + 1) + v * acc
        out[small] = v * acc
    big = ~small
    if big.any():
        ub = u[big]
        out[big] = (np.log1p(ub) - ub) / ub
    return out


def _stirling_terms(x_min: float) -> int:
    """How many Stirling terms make the first omitted one negligible (< 1e-18) at x_min."""
    for k in range(1, _BERNOULLI.size):
        if abs(_C[k]) * (2 * k + 1) * x_min ** (-2.0 * (k + 1)) < 1e-18:
            return k + 1
    return _BERNOULLI.size


def _stirling_rest(x: np.ndarray, s: np.ndarray) -> np.ndarray:
    """A(x, s) − ln x from Stirling's series written as a difference (x, x+s ≥ 10)."""
    u = s / x
    lm1 = _log1p_over_minus_one(u)
    ell = 1.0 + lm1                                    # log1p(u)/u
    out = lm1 + ell * (s - 0.5) / x                    # the (x − ½) ln x − x part
    nterms = _stirling_terms(float(np.min(x)) if x.size else 1e300)
    near = np.abs(u) <= 0.5
    inv2 = (1.0 / x) ** 2
    p = inv2                                           # x^{-(m+1)} for m = 1
    with np.errstate(over="ignore", invalid="ignore", divide="ignore"):
        for k in range(nterms):
            m = float(_M[k])
            # [(x+s)^{-m} − x^{-m}]/s = x^{-(m+1)} · expm1(−m log1p(u))/u
            t = -m * _C[k] * p * ell * sp.exprel(-m * u * ell)
            if not near.all():
                xs = x + s
                direct = _C[k] * (xs ** -m - x ** -m) / np.where(s == 0, 1.0, s)
                t = np.where(near, t, direct)
            out = out + t
            p = p * inv2
    return out


def stirling_rest_scalar(x: float, s: float) -> float:
    """:func:`_stirling_rest` for one pair of floats (the likelihood's hot path)."""
    u = s / x
    if abs(u) <= 0.1:
        v = -u
        acc = 1.0 / 17.0
        for k in range(15, 0, -1):
            acc = 1.0 / (k + 1) + v * acc
        lm1 = v * acc
    else:
        lm1 = (math.log1p(u) - u) / u
    ell = 1.0 + lm1
    out = lm1 + ell * (s - 0.5) / x
    inv2 = (1.0 / x) ** 2
    p = inv2
    near = abs(u) <= 0.5
    for k in range(_stirling_terms(x)):
        m = float(_M[k])
        if near:
            z = -m * u * ell
            rel = math.expm1(z) / z if z != 0.0 else 1.0
            out -= m * float(_C[k]) * p * ell * rel
        else:
            out += float(_C[k]) * ((x + s) ** -m - x ** -m) / s
        p *= inv2
    return out


def _avgpsi(x: np.ndarray, s: np.ndarray, xs=None) -> np.ndarray:
    """A(x, s) = [lnΓ(x+s) − lnΓ(x)]/s (ψ(x) at s = 0) for x > 0, x + s > 0.

    ``xs`` is x + s when the caller knows it more accurately than the rounded sum
    (x + s = α + d can be far smaller than x = α + 1).
    """
    x, s = np.broadcast_arrays(np.asarray(x, float), np.asarray(s, float))
    xs = x + s if xs is None else np.broadcast_to(np.asarray(xs, float), x.shape)
    out = np.empty(x.shape)
    st = (x >= _X_STIRLING) & (xs >= _X_STIRLING)
    if st.any():
        out[st] = np.log(x[st]) + _stirling_rest(x[st], s[st])
    rest = ~st
    ta = rest & (np.abs(s) <= _TAYLOR_RATIO * x)
    if ta.any():
        xt, stt = x[ta], s[ta]
        z = sp.zeta(_TAYLOR_K[:, None] + 1.0, xt[None, :])
        coef = (-stt[None, :]) ** _TAYLOR_K[:, None] / (_TAYLOR_K[:, None] + 1.0)
        out[ta] = sp.digamma(xt) - np.sum(coef * z, axis=0)
    di = rest & ~ta
    if di.any():
        xd, sd = x[di], s[di]
        out[di] = (sp.gammaln(xs[di]) - sp.gammaln(xd)) / sd
    return out


def _avgpsi_scalar(x: float, s: float, xs: float | None = None) -> float:
    """:func:`_avgpsi` for one pair of floats, with the same branches and functions."""
    xs = x + s if xs is None else xs
    if x >= _X_STIRLING and xs >= _X_STIRLING:
        return math.log(x) + stirling_rest_scalar(x, s)
    if abs(s) <= _TAYLOR_RATIO * x:
        z = sp.zeta(_TAYLOR_K + 1.0, x)
        return float(sp.digamma(x)) - float(np.sum((-s) ** _TAYLOR_K * z / (_TAYLOR_K + 1.0)))
    return float((sp.gammaln(xs) - sp.gammaln(x)) / s)


def _avgpsi_diff(x2, gap, s, x2s=None) -> np.ndarray:
    """D = A(x2 + gap, s) − A(x2, s) for gap ≥ 0, accurate when gap ≪ x2 (huge α).

    ``x2s``: x2 + s computed accurately by the caller (scalar case only).  D = 0 exactly
    where gap = 0 (n = 1).
    """
    if np.ndim(x2) == 0 and np.ndim(s) == 0:
        # one (α, d) for all n: the branch is the same for every element
        x2f, sf = float(x2), float(s)
        x2s = x2f + sf if x2s is None else float(x2s)
        gap = np.asarray(gap, float)
        if x2f >= _X_STIRLING and x2s >= _X_STIRLING:
            x1 = x2f + gap
            sv = np.full(x1.shape, sf)
            out = np.log1p(gap / x2f) + (_stirling_rest(x1, sv) - stirling_rest_scalar(x2f, sf))
        else:
            out = _avgpsi(x2f + gap, sf, x2s + gap) - _avgpsi_scalar(x2f, sf, x2s)
        return np.where(gap == 0.0, 0.0, out)
    x2, gap, s = np.broadcast_arrays(
        np.asarray(x2, float), np.asarray(gap, float), np.asarray(s, float)
    )
    out = np.empty(x2.shape)
    x1 = x2 + gap
    both = (x2 >= _X_STIRLING) & (x2 + s >= _X_STIRLING)
    if both.any():
        a, g, sb = x2[both], gap[both], s[both]
        r = _stirling_rest(np.concatenate([x1[both], a]), np.concatenate([sb, sb]))
        out[both] = np.log1p(g / a) + (r[: a.size] - r[a.size:])
    other = ~both
    if other.any():
        out[other] = _avgpsi(x1[other], s[other]) - _avgpsi(x2[other], s[other])
    return out


def _lgamma_diff(x, s) -> np.ndarray:
    """lnΓ(x + s) − lnΓ(x), accurate for huge x."""
    s_arr = np.asarray(s, float)
    return s_arr * _avgpsi(x, s_arr)


def _psi_shift(x: float, delta: float) -> float:
    """ψ(x + δ) − ψ(x) for one pair, accurate when δ ≪ x or both are huge."""
    if delta == 0.0:
        return 0.0
    y = x + delta
    if x >= _X_STIRLING and y >= _X_STIRLING:
        u = delta / x
        out = math.log1p(u) + delta / (2.0 * x * y)
        if abs(u) <= 0.5:
            lu = math.log1p(u)
            inv2 = (1.0 / x) ** 2
            xp = 1.0
            for k, b in zip(_KS.tolist(), _PSI_C.tolist()):
                xp *= inv2
                out -= b * xp * math.expm1(-2.0 * k * lu)
        else:
            for k, b in zip(_KS.tolist(), _PSI_C.tolist()):
                out -= b * (y ** (-2.0 * k) - x ** (-2.0 * k))
        return float(out)
    if abs(delta) <= _TAYLOR_RATIO * x:
        z = sp.zeta(_TAYLOR_K + 1.0, x)
        return float(-np.sum((-delta) ** _TAYLOR_K * z))
    return float(sp.digamma(y) - sp.digamma(x))



def expected_sets(n, d, alpha):
    """E[K_n | d, α], the expected number of distinct sets among n records (in [1, n])."""
    d, alpha = check_params(d, alpha)
    arr, scalar = as_n(n)
    return _out(_expected_sets(arr, d, alpha), scalar)


def _expected_sets(arr: np.ndarray, d: float, alpha: float) -> np.ndarray:
    D = _avgpsi_diff(alpha + 1.0, arr - 1.0, d)
    with np.errstate(over="ignore", invalid="ignore"):
        ek = 1.0 + (alpha + d) * D * sp.exprel(d * D)
    ek = np.where(np.isnan(ek), arr, ek)
    return np.clip(ek, 1.0, arr)


def kappa(n, d, alpha):
    """E[κ(n) | d, α] = α·expm1(Δ)/(n d): expected correctness of exact matching in a gallery of n.

    Vectorised over n (float, ≥ 1; a scalar gives a float).  Lies in [1/n, 1], equals 1 at
    n = 1 and does not increase with n (exactly within one call, to ~1e-12 across calls);
    continuous through d = 0 (where it is α[ψ(n+α) − ψ(α)]/n) and valid for d < 0 with
    α = −K d (symmetric Dirichlet over K sets).
    """
    d, alpha = check_params(d, alpha)
    arr, scalar = as_n(n)
    return _out(_monotone(arr, _expected_sets(arr, d, alpha) / arr), scalar)


def _monotone(arr: np.ndarray, values: np.ndarray) -> np.ndarray:
    """Make values non-increasing in n within one call.

    The law is non-increasing; rounding (relative error below ~1e-12, largest for d ≪ 0)
    can flip two values that differ by less than that, e.g. at α = 1e18 where κ(n) and
    κ(n + 1) agree to 18 digits.  A running minimum over sorted n removes such flips.
    """
    if values.ndim == 0 or values.size < 2:
        return values
    order = np.argsort(arr, kind="stable")
    out = np.empty_like(values)
    out[order] = np.minimum.accumulate(values[order])
    return out


def uniqueness(n, d, alpha):
    """E[Ξ(n)] = E[K_{n,1}]/n: expected share of records that are alone in their set.

    Closed form (α+d)_{n−1}/(α+1)_{n−1} = exp((d−1)·D) with the cancellation-free D.
    """
    d, alpha = check_params(d, alpha)
    arr, scalar = as_n(n)
    with np.errstate(under="ignore"):
        xi = np.exp((d - 1.0) * _avgpsi_diff(alpha + 1.0, arr - 1.0, d - 1.0, alpha + d))
    return _out(np.clip(xi, 0.0, 1.0), scalar)


def _log_share_of_size(arr: np.ndarray, d: float, alpha: float, j: int) -> np.ndarray:
    """log(j · E[K_{n,j}] / n) for j ≤ n: the log share of records in sets of size j.

    j·C(n,j)/n = C(n−1, j−1); (α+d)_{n−j}/(α+1)_{n−1} is split into a cancellation-free
    ratio (α+d)_{n−j}/(α+1)_{n−j} and the rising factorial (α+1+n−j)_{j−1}.
    """
    out = (
        _lgamma_diff(arr - j + 1.0, j - 1.0) - math.lgamma(j)
        + (math.lgamma(j - d) - math.lgamma(1.0 - d))
        + (d - 1.0) * _avgpsi_diff(alpha + 1.0, arr - j, d - 1.0, alpha + d)
    )
    if j > 1:
        out = out - _lgamma_diff(alpha + 1.0 + arr - j, j - 1.0)
    return out


def expected_sets_of_size(n, d, alpha, j: int):
    """E[K_{n,j}] = C(n,j)(1−d)_{j−1}(α+d)_{n−j}/(α+1)_{n−1}: expected number of sets of size j."""
    d, alpha = check_params(d, alpha)
    arr, scalar = as_n(n)
    j = _check_int(j, "j", 1)
    out = np.zeros(arr.shape)
    ok = arr >= j
    if ok.any():
        with np.errstate(under="ignore"):
            out[ok] = np.exp(_log_share_of_size(arr[ok], d, alpha, j)) * arr[ok] / j
    return _out(out, scalar)


#: Largest k accepted by :func:`k_violations` (it sums k − 1 terms).
MAX_K = 10_000


def _check_int(value, name: str, lo: int) -> int:
    try:
        iv = int(value)
    except (TypeError, ValueError, OverflowError):
        raise InputError(f"{name} must be a whole number (got {value!r})") from None
    if iv != value or iv < lo:
        raise InputError(f"{name} must be a whole number of at least {lo} (got {value!r})")
    return iv


def k_violations(n, d, alpha, k: int):
    """E[V_k(n)] = (1/n) Σ_{j<k} j·E[K_{n,j}]: expected share of records violating k-anonymity.

    A record violates k-anonymity when fewer than k records (itself included) share its set.
    k = 1 gives 0, k = 2 gives the uniqueness; k is at most :data:`MAX_K`.
    """
    d, alpha = check_params(d, alpha)
    arr, scalar = as_n(n)
    k = _check_int(k, "k", 1)
    if k > MAX_K:
        raise InputError(f"k must be at most {MAX_K:,} (got {k:,})")
    total = np.zeros(arr.shape)
    with np.errstate(under="ignore"):
        for j in range(1, k):
            ok = arr >= j
            if not ok.any():
                break
            total[ok] += np.exp(_log_share_of_size(arr[ok], d, alpha, j))
    return _out(np.clip(total, 0.0, 1.0), scalar)



def inverse_digamma(y, tol: float = 1e-15, max_iter: int = 60):
    """x > 0 with ψ(x) = y, by Newton's method from Minka's starting point (vectorised)."""
    if np.ndim(y) == 0:
        return _inverse_digamma_scalar(float(y), tol, max_iter)
    arr = np.asarray(y, dtype=float)
    if arr.size and not np.all(np.isfinite(arr)):
        raise InputError("inverse_digamma needs finite values")
    if arr.size and arr.max() > 700.0:
        raise InputError(f"inverse_digamma: {arr.max():g} is too large (the result overflows)")
    with np.errstate(divide="ignore"):
        x = np.where(arr >= -2.22, np.exp(arr) + 0.5, -1.0 / (arr + _EULER))
    for _ in range(max_iter):
        step = (sp.digamma(x) - arr) / sp.zeta(2.0, x)   # ψ'(x) = ζ(2, x)
        new = x - step
        new = np.where(new <= 0.0, x / 2.0, new)       # never leave the domain
        done = np.all(np.abs(new - x) <= tol * np.abs(new))
        x = new
        if done:
            break
    return float(x) if arr.ndim == 0 else x


def _inverse_digamma_scalar(y: float, tol: float, max_iter: int) -> float:
    if not math.isfinite(y):
        raise InputError("inverse_digamma needs finite values")
    if y > 700.0:
        raise InputError(f"inverse_digamma: {y:g} is too large (the result overflows)")
    x = math.exp(y) + 0.5 if y >= -2.22 else -1.0 / (y + _EULER)
    for _ in range(max_iter):
        new = x - (float(sp.digamma(x)) - y) / _trigamma(x)
        if new <= 0.0:
            new = x / 2.0
        if abs(new - x) <= tol * abs(new):
            return new
        x = new
    return x


def to_h_gamma(d, alpha) -> tuple[float, float]:
    """(h, γ) in nats from (d, α): h = ψ(α+1) − ψ(1−d), γ = [ψ(1) − ψ(1−d)]/h.

    γ = 0 at d = 0, γ < 0 exactly when d < 0 (finite support); for d > 0, γ < 1 when α > 0
    and γ ≥ 1 when −d < α ≤ 0 (the heaviest tails).  Every h > 0 and real γ is valid.
    """
    d, alpha = check_params(d, alpha)
    y = 1.0 - d
    h = _psi_shift(y, alpha + d)
    if d == 0.0:
        return h, 0.0
    return h, _psi_shift(y, d) / h


def from_h_gamma(h, gamma) -> tuple[float, float]:
    """(d, α) from (h, γ), inverting to_h_gamma: 1−d = ψ⁻¹(ψ(1) − hγ), α+1 = ψ⁻¹(ψ(1−d) + h).

    Valid for every h > 0 and every real γ (α + 1 > 1 − d ⟺ h > 0).  Both inversions are polished by Newton steps on the cancellation-free ψ differences so
    that small d (small γ) and α close to −d keep full relative precision.
    """
    try:
        h = float(h)
        gamma = float(gamma)
    except (TypeError, ValueError):
        raise InputError("the entropy h and the tail complexity gamma must be numbers") from None
    if not (math.isfinite(h) and math.isfinite(gamma)):
        raise InputError(f"h and gamma must be finite (got h={h}, gamma={gamma})")
    if not h > 0.0:
        raise InputError(f"the entropy h must be positive (got h={h:g} nats)")
    d = _solve_d(h * gamma)
    if not d < 1.0:
        raise InputError(f"h·gamma = {h * gamma:g} nats is too large (d rounds to 1)")
    try:
        delta = _solve_shift(1.0 - d, h)
    except InputError:
        raise InputError(f"(h={h:g} nats, gamma={gamma:g}) gives an alpha beyond 1e300") from None
    alpha = delta - d
    if not (math.isfinite(alpha) and alpha + d > 0.0):
        raise InputError(f"(h={h:g}, gamma={gamma:g}) gives no valid Pitman–Yor parameters")
    return d, alpha


def _trigamma(x: float) -> float:
    return float(sp.zeta(2.0, x))


def _solve_d(t: float) -> float:
    """d with ψ(1) − ψ(1−d) = t (increasing in d; d → 1 as t → ∞, d → −∞ as t → −∞).

    The inverse digamma gives 1 − d to absolute precision; for small |t| Newton steps on the
    cancellation-free difference then restore the relative precision of a small d.
    """
    if t == 0.0:
        return 0.0
    d = 1.0 - float(inverse_digamma(-_EULER - t))
    if abs(t) <= 0.5:
        for _ in range(4):
            step = (_psi_shift(1.0 - d, d) - t) / _trigamma(1.0 - d)
            d -= step
            if abs(step) <= 1e-15 * abs(d):
                break
    return d


def _solve_shift(y: float, h: float) -> float:
    """δ > 0 with ψ(y + δ) − ψ(y) = h (Newton on a concave increasing function)."""
    if h <= 0.05 * y * _trigamma(y):
        delta = h / _trigamma(y)
    else:
        delta = float(inverse_digamma(float(sp.digamma(y)) + h)) - y
        if not delta > 0.0:
            delta = h / _trigamma(y)
    for _ in range(60):
        step = (_psi_shift(y, delta) - h) / _trigamma(y + delta)
        new = delta - step
        if new <= 0.0:
            new = delta / 2.0
        if abs(new - delta) <= 1e-15 * new:
            delta = new
            break
        delta = new
    return delta


def kappa_h_gamma(n, h, gamma):
    """E[κ(n)] for entropy h (nats) and tail complexity γ, via (d, α)."""
    d, alpha = from_h_gamma(h, gamma)
    return kappa(n, d, alpha)



_CHUNK = 2_000_000


def kappa_known(n, probs):
    """κ(n) = (1/n) Σ_i [1 − (1 − π_i)^n] for anonymity-set probabilities π_i (with replacement).

    π must be non-negative and sum to 1 (within 1e-6; it is renormalised).  Equal
    probabilities are grouped, so the cost is one term per distinct π per n.
    """
    arr, scalar = as_n(n)
    p = np.asarray(probs, dtype=float).ravel()
    if p.size == 0:
        raise InputError("the probabilities are empty")
    if not np.all(np.isfinite(p)) or p.min() < 0.0:
        raise InputError("the probabilities must be finite and non-negative")
    total = p.sum()
    if not abs(total - 1.0) <= 1e-6:
        raise InputError(f"the probabilities must sum to 1 (they sum to {total:.9g})")
    p = p[p > 0.0] / total
    values, counts = np.unique(p, return_counts=True)
    with np.errstate(divide="ignore"):
        lq = np.log1p(-np.minimum(values, 1.0))           # −inf for a set of probability 1
    flat = np.atleast_1d(arr)
    out = np.empty(flat.shape)
    rows = max(1, _CHUNK // values.size)
    with np.errstate(divide="ignore", invalid="ignore"):
        for i in range(0, flat.size, rows):
            nn = flat[i:i + rows, None]
            hit = -np.expm1(nn * lq[None, :])
            out[i:i + rows] = (hit * counts[None, :]).sum(axis=1) / flat[i:i + rows]
    out = np.clip(out, 0.0, 1.0)
    return float(out[0]) if scalar else out


def counts_of_counts(sizes, multiplicities) -> tuple[np.ndarray, np.ndarray]:
    """Validated distinct positive whole sizes and their positive whole multiplicities."""
    s = np.asarray(sizes, dtype=float).ravel()
    m = np.asarray(multiplicities, dtype=float).ravel()
    if s.size == 0:
        raise InputError("no set sizes given")
    if s.shape != m.shape:
        raise InputError("sizes and multiplicities must have the same length")
    if not (np.all(np.isfinite(s)) and np.all(np.isfinite(m))):
        raise InputError("set sizes and multiplicities must be finite")
    if s.min() < 1 or np.any(s != np.round(s)):
        raise InputError("set sizes must be whole numbers of at least 1")
    if m.min() < 0 or np.any(m != np.round(m)):
        raise InputError("multiplicities must be whole numbers of at least 0")
    keep = m > 0
    if not keep.any():
        raise InputError("all multiplicities are zero")
    s, m = s[keep], m[keep]
    uniq, inv = np.unique(s, return_inverse=True)
    mult = np.bincount(inv, weights=m)
    return uniq, mult


def kappa_finite_population(n, sizes, multiplicities):
    """E[κ(n)] = (1/n) Σ_i [1 − C(N−N_i, n)/C(N, n)]: galleries of n drawn without replacement.

    The population is given as counts of counts: ``multiplicities[k]`` sets of size
    ``sizes[k]``; one term per distinct size.  n must lie in [1, N].
    """
    arr, scalar = as_n(n)
    s, m = counts_of_counts(sizes, multiplicities)
    big_n = float(np.dot(s, m))
    if arr.size and arr.max() > big_n:
        raise InputError(f"n must not exceed the population size N = {big_n:,.0f}")
    flat = np.atleast_1d(arr)
    out = np.empty(flat.shape)
    rows = max(1, _CHUNK // s.size)
    for i in range(0, flat.size, rows):
        nn = flat[i:i + rows, None]
        x2 = big_n - nn + 1.0                         # C(N−s,n)/C(N,n) =
        possible = x2 - s[None, :] > 0.0              # Γ(N−s+1)Γ(N−n+1)/[Γ(N−s−n+1)Γ(N+1)]
        x2b, sb = np.broadcast_arrays(x2, s[None, :])
        gap = np.broadcast_to(nn, x2b.shape)
        log_ratio = np.full(x2b.shape, -np.inf)
        if possible.any():
            log_ratio[possible] = -sb[possible] * _avgpsi_diff(
                x2b[possible], gap[possible], -sb[possible]
            )
        hit = -np.expm1(log_ratio)
        out[i:i + rows] = (hit * m[None, :]).sum(axis=1) / flat[i:i + rows]
    out = np.clip(out, 0.0, 1.0)
    return float(out[0]) if scalar else out




class LawCurves(NamedTuple):
    """One law, given as (h in bits, γ), and its curves κ, Ξ and V_k over the gallery sizes ``n`` (read-only)."""

    h_bits: float
    gamma: float
    k: int
    d: float
    alpha: float
    kappa: np.ndarray
    xi: np.ndarray
    viol: np.ndarray


def _read_only(values) -> np.ndarray:
    values = np.asarray(values, dtype=float)
    values.setflags(write=False)
    return values


def law_curves(h_bits: float, gamma: float, k: int, n) -> LawCurves:
    """κ(n), Ξ(n) and V_k(n) of the law with entropy ``h_bits`` (bits) and tail complexity ``gamma``."""
    d, alpha = from_h_gamma(bits_to_nats(h_bits), gamma)
    return LawCurves(h_bits, gamma, k, d, alpha, _read_only(kappa(n, d, alpha)), _read_only(uniqueness(n, d, alpha)),
                     _read_only(k_violations(n, d, alpha, k)))


def law_point(d: float, alpha: float, k: int, n: float) -> tuple[float, float, float, float]:
    """(κ, Ξ, V_k, E[K_n]) at one gallery size n."""
    return (kappa(n, d, alpha), uniqueness(n, d, alpha), k_violations(n, d, alpha, k), expected_sets(n, d, alpha))
