"""The bivariate normal CDF, vectorised (Genz's BVNU algorithm, Drezner–Wesolowsky form).

``scipy.stats.multivariate_normal.cdf`` integrates one point at a time (Genz's
quasi-Monte-Carlo for the general case); the body model needs the CDF on whole
grids of band edges (tens of thousands of points per body group), so this module
evaluates Genz's deterministic bivariate algorithm (A. Genz, "Numerical computation
of rectangular bivariate and trivariate normal and t probabilities", Statistics and
Computing 14, 2004; after Drezner & Wesolowsky 1990) on NumPy arrays:

* ``|ρ| < 0.925``: Gauss–Legendre quadrature of Plackett's identity
  ``Φ₂(h, k; ρ) = Φ(h)Φ(k) + (1/2π) ∫₀^{asin ρ} exp(−(h² + k² − 2hk sin θ)/(2cos²θ)) dθ``;
* ``|ρ| ≥ 0.925``: Genz's series-corrected integral in ``√(1 − ρ²)``.

Genz's rules: 6 Gauss–Legendre points for |ρ| < 0.3, 12 below 0.75, 20 above
(~1e-15 absolute accuracy in each range).
Checked against scipy to 1e-10 and against Monte-Carlo in ``tests/test_bvn.py``.
"""
from __future__ import annotations

import math

import numpy as np
from scipy.special import ndtr

_X, _W = np.polynomial.legendre.leggauss(20)  # nodes on [-1, 1]
#: Genz's choice of rule by |ρ| (6, 12, 20 points), accurate to ~1e-15 in each range.
_RULES = {n: np.polynomial.legendre.leggauss(n) for n in (6, 12, 20)}


def _rule(r_abs_max: float) -> tuple[np.ndarray, np.ndarray]:
    return _RULES[6 if r_abs_max < 0.3 else 12 if r_abs_max < 0.75 else 20]


def _weighted_sum(w: np.ndarray, e: np.ndarray) -> np.ndarray:
    """``Σ_i w[i]·e[i, :]`` summed in index order: the same bits for a point whatever else is in the batch.

    (``w @ e`` goes through BLAS, whose blocking and threads change the order of the sum
    with the batch's size and the thread count; the browser's tables and the core must agree
    to the last bit, see :meth:`BandProbabilities.v2_cdf`.)
    """
    acc = w[0] * e[0]
    for i in range(1, len(w)):
        acc = acc + w[i] * e[i]
    return acc


#: Arguments are clipped here: Φ(±38) is 0 / 1 in double precision.
Z_CLIP = 38.0


def _bvnu_scalar(h: np.ndarray, k: np.ndarray, r: float) -> np.ndarray:
    """``Pr[X > h, Y > k]`` for a standard bivariate normal with correlation ``r`` (arrays broadcast)."""
    h = np.clip(np.asarray(h, float), -Z_CLIP, Z_CLIP)
    k = np.clip(np.asarray(k, float), -Z_CLIP, Z_CLIP)
    h, k = np.broadcast_arrays(h, k)
    r = float(r)
    if r == 0.0:
        return ndtr(-h) * ndtr(-k)
    hk = h * k
    if abs(r) < 0.925:
        hs = (h * h + k * k) / 2.0
        asr = math.asin(r)
        X, W = _rule(abs(r))
        sn = np.sin(asr * (X + 1.0) / 2.0)  # (n,)
        e = np.exp((sn[:, None] * hk.reshape(1, -1) - hs.reshape(1, -1)) / (1.0 - sn * sn)[:, None])
        bvn = _weighted_sum(W, e).reshape(h.shape) * asr / (4.0 * math.pi)
        return bvn + ndtr(-h) * ndtr(-k)
    if r < 0:
        k = -k
        hk = -hk
    bvn = np.zeros(h.shape)
    if abs(r) < 1.0:
        as_ = (1.0 - r) * (1.0 + r)
        a = math.sqrt(as_)
        bs = (h - k) ** 2
        c = (4.0 - hk) / 8.0
        d = (12.0 - hk) / 16.0
        bvn = a * np.exp(-(bs / as_ + hk) / 2.0) * (1.0 - c * (bs - as_) * (1.0 - d * bs / 5.0) / 3.0 + c * d * as_ * as_ / 5.0)
        b = np.sqrt(bs)
        with np.errstate(over="ignore", invalid="ignore"):
            corr = np.exp(-hk / 2.0) * math.sqrt(2.0 * math.pi) * ndtr(-b / a) * b * (1.0 - c * bs * (1.0 - d * bs / 5.0) / 3.0)
        bvn = bvn - np.where(hk > -160.0, np.nan_to_num(corr), 0.0)
        a = a / 2.0
        xs = (a * (_X + 1.0)) ** 2  # (n,)
        rs = np.sqrt(1.0 - xs)
        asr = -(bs.reshape(1, -1) / xs[:, None] + hk.reshape(1, -1)) / 2.0  # (n, m)
        hkf = hk.reshape(1, -1)
        cf, df = c.reshape(1, -1), d.reshape(1, -1)
        with np.errstate(over="ignore", invalid="ignore"):
            term = np.exp(asr) * (np.exp(-hkf * (1.0 - rs[:, None]) / (2.0 * (1.0 + rs[:, None]))) / rs[:, None]
                                  - (1.0 + cf * xs[:, None] * (1.0 + df * xs[:, None])))
        term = np.where(asr > -100.0, np.nan_to_num(term), 0.0)
        bvn = bvn + a * _weighted_sum(_W, term).reshape(h.shape)
        bvn = -bvn / (2.0 * math.pi)
    if r > 0:
        return bvn + ndtr(-np.maximum(h, k))
    bvn = -bvn
    extra = np.where(h < 0, ndtr(k) - ndtr(h), ndtr(-h) - ndtr(-k))
    return bvn + np.where(k > h, extra, 0.0)


def _bvnu(h, k, r) -> np.ndarray:
    """``Pr[X > h, Y > k]``; ``r`` a scalar or an array broadcasting with ``h`` and ``k``.

    For |r| < 0.925 (the body model's range) the quadrature is vectorised over ``r`` too;
    larger correlations are evaluated per distinct value.
    """
    r = np.asarray(r, float)
    if r.ndim == 0:
        return _bvnu_scalar(h, k, float(r))
    h, k, r = np.broadcast_arrays(np.clip(np.asarray(h, float), -Z_CLIP, Z_CLIP),
                                  np.clip(np.asarray(k, float), -Z_CLIP, Z_CLIP), r)
    out = np.empty(h.shape)
    small = np.abs(r) < 0.925
    if small.any():
        hh, kk, rr = h[small], k[small], r[small]
        hk, hs = hh * kk, (hh * hh + kk * kk) / 2.0
        asr = np.arcsin(rr)
        X, W = _rule(float(np.abs(rr).max()))
        sn = np.sin(asr[None, :] * (X[:, None] + 1.0) / 2.0)  # (n, m)
        e = np.exp((sn * hk[None, :] - hs[None, :]) / (1.0 - sn * sn))
        out[small] = _weighted_sum(W, e) * asr / (4.0 * math.pi) + ndtr(-hh) * ndtr(-kk)
    for value in np.unique(r[~small]):
        sel = (~small) & (r == value)
        out[sel] = _bvnu_scalar(h[sel], k[sel], float(value))
    return out


def bvn_cdf(x, y, rho) -> np.ndarray:
    """``Φ₂(x, y; ρ) = Pr[X ≤ x, Y ≤ y]`` for standard normals with correlation ``rho``
    (``x``, ``y`` and ``rho`` broadcast).

    Exact at the limits (``±inf`` allowed) and clipped to ``[0, 1]``.
    """
    rho = np.asarray(rho, float)
    if not np.all((rho >= -1.0) & (rho <= 1.0)):
        raise ValueError(f"a correlation must lie in [-1, 1], not {rho}")
    x = np.asarray(x, float)
    y = np.asarray(y, float)
    out = np.clip(_bvnu(-x, -y, rho), 0.0, 1.0)
    x, y, out = np.broadcast_arrays(x, y, out)
    if np.isinf(x).any() or np.isinf(y).any():  # exact limits: Φ2(∞, y) = Φ(y), Φ2(−∞, y) = 0
        out = np.where(x == np.inf, ndtr(y), out)
        out = np.where(y == np.inf, ndtr(x), out)
        out = np.where((x == -np.inf) | (y == -np.inf), 0.0, out)
    return out


def rectangle_grid(zx: np.ndarray, zy: np.ndarray, rho: float) -> np.ndarray:
    """Probabilities of every cell of the grid of edges ``zx × zy`` (standardised, ascending).

    The CDF is evaluated once on the ``(len(zx), len(zy))`` grid of edges, then
    ``P[i, j] = F[i+1, j+1] − F[i, j+1] − F[i+1, j] + F[i, j]`` by array
    differencing (inclusion–exclusion).  Returns ``(len(zx) − 1, len(zy) − 1)``.
    """
    F = bvn_cdf(np.asarray(zx, float)[:, None], np.asarray(zy, float)[None, :], rho)
    P = np.diff(np.diff(F, axis=0), axis=1)
    return np.maximum(P, 0.0)


def rectangle(x0, x1, y0, y1, rho: float) -> np.ndarray:
    """``Pr[x0 ≤ X < x1, y0 ≤ Y < y1]`` for standardised bounds (arrays broadcast).

    The four corners go through one vectorised CDF call.
    """
    x0, x1, y0, y1, rho = np.broadcast_arrays(*(np.asarray(v, float) for v in (x0, x1, y0, y1, rho)))
    F = bvn_cdf(np.stack([x1, x0, x1, x0]), np.stack([y1, y1, y0, y0]), np.stack([rho] * 4))
    return np.maximum(F[0] - F[1] - F[2] + F[3], 0.0)
