"""Forecasting correctness from measured points (SPEC §3): PYC-MB, three baselines, held-out errors
and a jackknife band.
"""
from __future__ import annotations

import math
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field

import numpy as np
from scipy import optimize

from ..errors import InputError
from ..text import N_, format_count, local_number, ngettext
from ..text import gettext as _
from . import _law as pyc

#: Most measurements (n, κ) accepted by the fits.
MAX_POINTS = 10_000


def check_points(n_points, kappa_points) -> tuple[np.ndarray, np.ndarray]:
    """Validated measurements (n, κ), sorted by n; InputError with a clear message otherwise."""
    try:
        n = np.asarray(n_points, dtype=float)
        k = np.asarray(kappa_points, dtype=float)
    except (TypeError, ValueError):
        raise InputError(_("measurements must be numbers")) from None
    if n.ndim != 1 or k.ndim != 1 or n.shape != k.shape:
        raise InputError(_("give one correctness value per gallery size (two lists of equal length)"))
    if n.size < 2:
        raise InputError(_("at least two measurements (n, kappa) are needed (got {count})").format(count=n.size))
    if n.size > MAX_POINTS:
        raise InputError(_("at most {limit} measurements are accepted (got {count})").format(
            limit=format_count(MAX_POINTS), count=format_count(n.size)))
    if not (np.all(np.isfinite(n)) and np.all(np.isfinite(k))):
        raise InputError(_("measurements must be finite numbers"))
    if n.min() <= 0:
        raise InputError(_("gallery sizes n must be positive (got {value})").format(value=_g(n.min())))
    if n.min() < 1:
        raise InputError(_("gallery sizes n must be at least 1 (got {value})").format(value=_g(n.min())))
    bad = np.flatnonzero((k < 0) | (k > 1))
    if bad.size:
        i = bad[0]
        raise InputError(_("correctness kappa must lie in [0, 1] (got {kappa} at n = {n})").format(
            kappa=_g(k[i]), n=_g(n[i])))
    order = np.argsort(n, kind="stable")
    n, k = n[order], k[order]
    dup = np.flatnonzero(np.diff(n) == 0)
    if dup.size:
        raise InputError(_("gallery size n = {n} appears twice; give one kappa per n").format(n=_g(n[dup[0]])))
    if np.count_nonzero(n > 1) < 2:
        raise InputError(_("at least two measurements with n > 1 are needed (a point at n = 1 has weight ln 1 = 0)"))
    return n, k


def parse_points(text: str) -> tuple[np.ndarray, np.ndarray]:
    """Measurements from "n:kappa,n:kappa,…" (e.g. "100:0.99,1000:0.80"), validated."""
    pairs = [p.strip() for p in str(text).replace(";", ",").split(",") if p.strip()]
    n, k = [], []
    for p in pairs:
        parts = p.split(":")
        if len(parts) != 2:
            raise InputError(_("measurement {value} is not of the form n:kappa (e.g. 1000:0.8)").format(value=repr(p)))
        try:
            n.append(float(parts[0]))
            k.append(float(parts[1]))
        except ValueError:
            raise InputError(_("measurement {value} is not of the form n:kappa (e.g. 1000:0.8)").format(
                value=repr(p))) from None
    return check_points(n, k)


@dataclass
class ModelFit:
    """One fitted correctness model: parameters, formula, fit quality, availability.

    ``residual`` is R = Σ ln(n_i)[κ̂_i − κ(n_i)]² at the optimum and ``rmse`` the plain
    root-mean-square error on the fitted points.  When ``available`` is False, ``reason``
    says why and :meth:`predict` raises InputError instead of returning a number; ``note``
    qualifies an available fit (e.g. a parameter on the edge of its range).
    """

    name: str
    params: dict
    formula: str
    residual: float
    rmse: float
    available: bool
    reason: str = ""
    note: str = ""
    _curve: Callable[[np.ndarray], np.ndarray] | None = field(default=None, repr=False)

    def predict(self, n):
        if not self.available or self._curve is None:
            raise InputError(f"{self.name} is not available: {self.reason}")
        arr, scalar = pyc.as_n(n)
        out = np.clip(self._curve(np.atleast_1d(arr)), 0.0, 1.0)
        return float(out[0]) if scalar else out

    def to_dict(self) -> dict:
        return {"name": self.name, "params": dict(self.params), "formula": self.formula,
                "residual": self.residual, "rmse": self.rmse, "available": self.available,
                "reason": self.reason, "note": self.note}


def _weighted_residual(curve, n, k, w) -> float:
    try:
        pred = curve(n)
    except (InputError, FloatingPointError, OverflowError, ValueError):
        return math.inf
    if not np.all(np.isfinite(pred)):
        return math.inf
    r = k - pred
    return float(w @ (r * r))


def _nelder_mead(objective, starts, steps, scale: float, keep: int = 3, **opts):
    """Nelder–Mead from the ``keep`` best of ``starts``, restarted once from the best; or None.

    The objective is divided by ``scale`` (the residual of the no-decay curve κ ≡ 1) so that
    the tolerances are relative: a curve that decays by 1e-5 is fitted as carefully as one
    that decays to 0, and flat valleys stop at ``maxfev`` instead of running on.
    """
    def scaled(x):
        return objective(x) / scale

    scored = sorted(((scaled(np.asarray(s, float)), tuple(s)) for s in starts), key=lambda t: t[0])
    best = None
    options = {"xatol": 1e-7, "fatol": 1e-12, "maxiter": 800, "maxfev": 800}
    options.update(opts)
    def run(x0):
        simplex = [x0] + [x0 + np.eye(x0.size)[i] * steps[i] for i in range(x0.size)]
        return optimize.minimize(scaled, x0, method="Nelder-Mead",
                                 options={**options, "initial_simplex": simplex})

    for value, s in scored[:keep]:
        if not math.isfinite(value):
            continue
        res = run(np.asarray(s, float))
        if best is None or res.fun < best.fun:
            best = res
    if best is not None:
        again = run(np.asarray(best.x, float))         # a fresh simplex escapes a collapsed one
        if again.fun <= best.fun:
            best = again
        best.fun = best.fun * scale
    return best


def _unavailable(name: str, formula: str, reason: str) -> ModelFit:
    return ModelFit(name, {}, formula, math.nan, math.nan, False, reason)


NO_DECAY = N_("kappa = 1 at every measured n: the measurements show no decay of correctness, so there is nothing "
              "to extrapolate")
#: Why a model's optimiser found nothing (the same words for every model).
NO_START = N_("no start point gave a finite residual")


def _g(x: float) -> str:
    """A number as ``f"{x:g}"`` writes it, in the current language's digits (English: unchanged, the CLI)."""
    return local_number(f"{x:g}")


def _no_decay(n: np.ndarray, k: np.ndarray) -> bool:
    """κ̂ = 1 at every weighted point (n > 1)."""
    return bool(np.all(k[n > 1] >= 1.0 - 1e-12))


def _decay_scale(n: np.ndarray, k: np.ndarray) -> float:
    """R of the flat curve κ ≡ 1: the natural unit of the residual for these measurements."""
    return max(float(np.log(n) @ ((1.0 - k) ** 2)), 1e-300)


def _finish(name, formula, params, curve, n, k, w, res, checks, note: str = "") -> ModelFit:
    """A ModelFit from an optimiser result, with the region checks applied."""
    if res is None or not math.isfinite(res.fun):
        return _unavailable(name, formula, _("the fit failed: no finite residual was found"))
    params = {key: float(v) for key, v in params.items()}
    for bad, why in checks:
        if bad:
            return ModelFit(name, params, formula, float(res.fun), math.nan, False, why)
    pred = curve(n)
    if not np.all(np.isfinite(pred)):
        return ModelFit(name, params, formula, float(res.fun), math.nan, False,
                        _("the fitted curve is not finite at the measured n"))
    rmse = float(np.sqrt(np.mean((k - pred) ** 2)))
    return ModelFit(name, params, formula, float(res.fun), rmse, True, "", note, curve)


#: PYC-MB search box: 0 < h ≤ H_MAX nats, γ ≤ GAMMA_MAX and h·γ ≥ HG_MIN (d ≳ −1e8, where
#: the symmetric Dirichlet is the uniform distribution to 1e-4).  A fit ending on the h or γ
#: walls means the data do not identify the law; on the h·γ wall it is the ENT limit.
H_MAX = 50.0
GAMMA_MAX = 40.0
HG_MIN = -19.0
H_MIN = 1e-6


def _entropy_limit() -> str:
    return _("the entropy ran to the search limit ({limit} nats): the measurements decay too little to identify "
             "it").format(limit=_g(H_MAX))

PYC_FORMULA = ("E[kappa(n) | d, alpha] = alpha*expm1(Delta)/(n*d), Delta = [lnG(n+alpha+d) - "
               "lnG(n+alpha)] - [lnG(alpha+d) - lnG(alpha)], with (d, alpha) from entropy h and "
               "tail complexity gamma: 1-d = psi^-1(psi(1) - h*gamma), "
               "alpha+1 = psi^-1(psi(1) + h - h*gamma)")


def _pyc_curve(h: float, g: float):
    d, alpha = pyc.from_h_gamma(h, g)
    return lambda n: pyc.kappa(n, d, alpha)


def fit_pyc_mb(n_points, kappa_points, start: tuple[float, float] | None = None) -> ModelFit:
    """PYC-MB: (h, γ) minimising R(h, γ) = Σ ln(n_i)[κ̂_i − E[κ(n_i) | h, γ]]².

    E[κ(n) | h, γ] = α·expm1(Δ)/(n d) with (d, α) = from_h_gamma(h, γ) (SPEC §3).
    Nelder–Mead from the two best points of a 10 × 8 grid over h ∈ [0.3, 45] nats and
    γ ∈ [−2, 1.3] (or from ``start`` alone), then restarted once from the best.  The simplex
    moves in (h, h·γ): the same R(h, γ), but h·γ = ψ(1) − ψ(1−d) fixes d alone, which keeps
    the valley of finite-support (γ < 0) fits straight.  Unavailable when the optimum sits
    on the h ≤ 50 nats or γ ≤ 40 walls of the search (the data do not identify the law).
    """
    n, k = check_points(n_points, kappa_points)
    if _no_decay(n, k):
        return _unavailable("PYC-MB", PYC_FORMULA, _(NO_DECAY))
    w = np.log(n)

    def objective(theta):                              # theta = (h, t = h·γ)
        h, t = float(theta[0]), float(theta[1])
        if not (0.0 < h <= H_MAX and HG_MIN <= t <= GAMMA_MAX * h):
            return math.inf
        try:
            curve = _pyc_curve(h, t / h)
        except InputError:
            return math.inf
        return _weighted_residual(curve, n, k, w)

    if start is None:
        hs = np.geomspace(0.3, 45.0, 10)
        gs = [-2.0, -0.5, 0.0, 0.3, 0.6, 0.85, 1.0, 1.3]
        starts = [(h, h * g) for h in hs for g in gs]
        keep = 2
    else:
        starts, keep = [(start[0], start[0] * start[1])], 1
    res = _nelder_mead(objective, starts, steps=(0.3, 0.3), scale=_decay_scale(n, k), keep=keep)
    if res is None:
        return _unavailable("PYC-MB", PYC_FORMULA, _(NO_START))
    h, g = float(res.x[0]), float(res.x[1]) / float(res.x[0])
    params = {"h_nats": h, "h_bits": pyc.nats_to_bits(h), "gamma": g}
    checks = [
        (h >= H_MAX * 0.999, _entropy_limit()),
        (h <= H_MIN, _("the entropy ran to 0: the measurements lie at or below 1/n, below what exact matching on "
                       "a single set gives")),
        (g >= GAMMA_MAX * 0.999, _("the tail complexity ran to the search limit (gamma = {limit})").format(
            limit=_g(GAMMA_MAX))),
    ]
    note = ""
    if h * g <= HG_MIN * 0.99:
        note = _("the tail ran to the uniform limit (d below about -1e8): PYC-MB here is the uniform distribution "
                 "over e^h sets, i.e. ENT")
    try:
        d, alpha = pyc.from_h_gamma(h, g)
    except InputError as exc:
        return _unavailable("PYC-MB", PYC_FORMULA, _("the optimum left the valid region: {problem}").format(
            problem=exc))
    params.update({"d": d, "alpha": alpha})
    return _finish("PYC-MB", PYC_FORMULA, params, lambda x: pyc.kappa(x, d, alpha), n, k, w, res,
                   checks, note)


ENT_FORMULA = "kappa(n) = K*[1 - (1 - 1/K)^n]/n, K = e^h (uniform over K sets)"


def _ent_curve(h: float):
    big_k = math.exp(h)
    lq = math.log1p(-1.0 / big_k) if big_k > 1.0 else -math.inf

    def curve(n):
        with np.errstate(invalid="ignore"):
            return big_k * -np.expm1(n * lq) / n
    return curve


def fit_ent(n_points, kappa_points) -> ModelFit:
    """ENT baseline, one parameter: a uniform distribution over K = e^h sets,
    κ(n) = K·[1 − (1 − 1/K)^n]/n, 0 ≤ h ≤ 50 nats; same weights ln(n_i) as PYC-MB.
    """
    n, k = check_points(n_points, kappa_points)
    if _no_decay(n, k):
        return _unavailable("ENT", ENT_FORMULA, _(NO_DECAY))
    w = np.log(n)

    def objective(theta):
        h = float(theta[0])
        if not 0.0 <= h <= H_MAX:
            return math.inf
        return _weighted_residual(_ent_curve(h), n, k, w)

    res = _nelder_mead(objective, [(h,) for h in np.linspace(0.5, 45.0, 30)], steps=(0.5,),
                       scale=_decay_scale(n, k))
    if res is None:
        return _unavailable("ENT", ENT_FORMULA, _(NO_START))
    h = float(res.x[0])
    params = {"h_nats": h, "h_bits": pyc.nats_to_bits(h), "K": math.exp(h)}
    checks = [(h >= H_MAX * 0.999, _entropy_limit())]
    return _finish("ENT", ENT_FORMULA, params, _ent_curve(h), n, k, w, res, checks)


EXP_FORMULA = "kappa(n) = c + (1 - c)*exp(-lambda*(n - 1)), 0 <= c <= 1, lambda >= 0 (our form)"


def _exp_curve(c: float, lam: float):
    return lambda n: c + (1.0 - c) * np.exp(-lam * (n - 1.0))


def fit_exp(n_points, kappa_points) -> ModelFit:
    """EXP baseline, two parameters: exponential decay towards a floor,
    κ(n) = c + (1 − c)·e^{−λ(n−1)}, c ∈ [0, 1], λ ≥ 0; searched as (c, ln λ).

    This form is ours: the paper's supplement, which defines its own EXP, is not available.
    """
    n, k = check_points(n_points, kappa_points)
    if _no_decay(n, k):
        return _unavailable("EXP", EXP_FORMULA, _(NO_DECAY))
    w = np.log(n)

    def objective(theta):
        c, ll = float(theta[0]), float(theta[1])
        if not (0.0 <= c <= 1.0 and -80.0 <= ll <= 20.0):
            return math.inf
        return _weighted_residual(_exp_curve(c, math.exp(ll)), n, k, w)

    lls = [-math.log(x) for x in np.geomspace(max(n[0] - 1.0, 1.0), n[-1], 6)]
    starts = [(c, ll) for c in (0.0, 0.05, 0.3, 0.6, 0.9) for ll in lls]
    res = _nelder_mead(objective, starts, steps=(0.05, 0.5), scale=_decay_scale(n, k))
    if res is None:
        return _unavailable("EXP", EXP_FORMULA, _(NO_START))
    c, lam = float(res.x[0]), math.exp(float(res.x[1]))
    params = {"c": c, "lambda": lam}
    return _finish("EXP", EXP_FORMULA, params, _exp_curve(c, lam), n, k, w, res, [])


POL_FORMULA = "kappa(n) = min(1, a*n^(-b)), a > 0, b >= 0 (our form)"


def _pol_curve(a: float, b: float):
    return lambda n: np.minimum(1.0, a * np.power(n, -b))


def fit_pol(n_points, kappa_points) -> ModelFit:
    """POL baseline, two parameters: power-law decay, κ(n) = min(1, a·n^{−b}), a > 0, b ≥ 0;
    searched as (ln a, b).

    This form is ours: the paper's supplement, which defines its own POL, is not available.
    """
    n, k = check_points(n_points, kappa_points)
    if _no_decay(n, k):
        return _unavailable("POL", POL_FORMULA, _(NO_DECAY))
    w = np.log(n)

    def objective(theta):
        la, b = float(theta[0]), float(theta[1])
        if not (b >= 0.0 and abs(la) <= 700.0 and b <= 50.0):
            return math.inf
        return _weighted_residual(_pol_curve(math.exp(la), b), n, k, w)

    starts = [(0.0, b) for b in (0.0, 0.05, 0.2, 0.5, 1.0)]
    use = (k > 0) & (k < 1) & (n > 1)
    if np.count_nonzero(use) >= 2:                     # log-log line through the decaying points
        slope, icpt = np.polyfit(np.log(n[use]), np.log(k[use]), 1, w=np.sqrt(w[use]))
        starts.append((float(icpt), max(0.0, float(-slope))))
    res = _nelder_mead(objective, starts, steps=(0.2, 0.05), scale=_decay_scale(n, k))
    if res is None:
        return _unavailable("POL", POL_FORMULA, _(NO_START))
    a, b = math.exp(float(res.x[0])), float(res.x[1])
    params = {"a": a, "b": b}
    checks = [(b >= 50.0 * 0.999, _("the exponent b ran to the search limit ({limit}): the measurements are not a "
                                    "power law").format(limit=_g(50.0)))]
    return _finish("POL", POL_FORMULA, params, _pol_curve(a, b), n, k, w, res, checks)


FITTERS: dict[str, Callable[..., ModelFit]] = {
    "PYC-MB": fit_pyc_mb, "ENT": fit_ent, "EXP": fit_exp, "POL": fit_pol,
}


@dataclass
class HoldoutScore:
    """A model fitted without the largest-n points, scored on them."""

    n: np.ndarray
    observed: np.ndarray
    predicted: np.ndarray | None
    rmse: float | None
    available: bool
    reason: str = ""
    note: str = ""  # why an available score says little (too few points, two models alike)

    def to_dict(self) -> dict:
        return {"n": self.n, "observed": self.observed, "predicted": self.predicted,
                "rmse": self.rmse, "available": self.available, "reason": self.reason, "note": self.note}


@dataclass
class Band:
    """Uncertainty band of the PYC-MB forecast at the requested n."""

    lower: np.ndarray | None
    upper: np.ndarray | None
    method: str
    available: bool
    reason: str = ""

    def to_dict(self) -> dict:
        return {"lower": self.lower, "upper": self.upper, "method": self.method,
                "available": self.available, "reason": self.reason}


@dataclass
class Forecast:
    """All four models fitted to the measurements and evaluated at ``at``."""

    n: np.ndarray
    kappa: np.ndarray
    at: np.ndarray
    models: dict[str, ModelFit]
    predictions: dict[str, np.ndarray | None]
    holdout: dict[str, HoldoutScore]
    band: Band

    def to_dict(self) -> dict:
        return {
            "points": {"n": self.n, "kappa": self.kappa}, "at": self.at,
            "models": {k: m.to_dict() for k, m in self.models.items()},
            "predictions": self.predictions,
            "holdout": {k: h.to_dict() for k, h in self.holdout.items()},
            "band": self.band.to_dict(),
        }


#: z for the PYC-MB band (about 95 % under a normal approximation).
BAND_Z = 1.96
#: PYC-MB has two parameters: a jackknife refit (one point left out) must keep more than two points.
MIN_BAND_POINTS = 4
#: Above this many points the jackknife deletes interleaved groups instead of single points.
JACKKNIFE_GROUPS = 20

def band_method() -> str:
    """How the band is made, in words (the current language)."""
    return _("jackknife: PYC-MB refitted without each measurement (or, above {groups} points, without each of "
             "{groups} interleaved groups); band = forecast ± {z} jackknife standard errors, clipped to [0, 1]").format(
        groups=JACKKNIFE_GROUPS, z=local_number(f"{BAND_Z}"))




def _jackknife_band(n, k, at, full: ModelFit) -> Band:
    if not full.available:
        return Band(None, None, band_method(), False, _("PYC-MB is not available: {reason}").format(
            reason=full.reason))
    if n.size < MIN_BAND_POINTS:
        return Band(None, None, band_method(), False, _(
            "the band needs at least {least} measurements: with {count}, a jackknife refit has {left} points for "
            "PYC-MB's two parameters and passes through them exactly, so its spread says nothing about the "
            "forecast").format(least=MIN_BAND_POINTS, count=n.size, left=max(n.size - 1, 0)))
    groups = min(n.size, JACKKNIFE_GROUPS)
    label = np.arange(n.size) % groups
    start = (full.params["h_nats"], full.params["gamma"])
    reps = []
    for g in range(groups):
        keep = label != g
        if np.count_nonzero(n[keep] > 1) < 2:
            continue
        try:
            fit = fit_pyc_mb(n[keep], k[keep], start=start)
        except InputError:
            continue
        if fit.available:
            reps.append(fit.predict(at))
    if len(reps) < 2:
        return Band(None, None, band_method(), False, _("fewer than two jackknife refits succeeded"))
    reps = np.array(reps)
    m = reps.shape[0]
    se = np.sqrt((m - 1) / m * np.sum((reps - reps.mean(axis=0)) ** 2, axis=0))
    centre = full.predict(at)
    return Band(np.clip(centre - BAND_Z * se, 0.0, 1.0), np.clip(centre + BAND_Z * se, 0.0, 1.0),
                band_method(), True)


def forecast(points, at: Sequence[float] | float, holdout: int = 1, band: bool = True) -> Forecast:
    """Fit PYC-MB, ENT, EXP and POL to ``points`` and predict κ at each n in ``at``.

    ``points``: (n, κ) pairs, or a pair of sequences (n_list, κ_list).  ``holdout``: how many
    of the largest-n points to hold out for the out-of-sample check — every model is refitted
    on the others and scored by RMSE on them (0 skips it).  ``band``: the PYC-MB jackknife
    band (see :func:`band_method`).
    """
    n, k = _points_arrays(points)
    at_arr, _scalar = pyc.as_n(at, "the forecast sizes (at)")
    at_arr = np.atleast_1d(at_arr)
    if at_arr.size == 0:
        raise InputError("give at least one gallery size to forecast")
    holdout = pyc._check_int(holdout, "holdout", 0)
    models = {name: fitter(n, k) for name, fitter in FITTERS.items()}
    predictions = {name: (m.predict(at_arr) if m.available else None) for name, m in models.items()}
    scores: dict[str, HoldoutScore] = {}
    if holdout:
        train_n, train_k = n[:-holdout], k[:-holdout]
        test_n, test_k = n[-holdout:], k[-holdout:]
        enough = holdout < n.size and np.count_nonzero(train_n > 1) >= 2
        for name, fitter in FITTERS.items():
            if not enough:
                scores[name] = HoldoutScore(test_n, test_k, None, None, False, ngettext(
                    "holding out {count} point leaves fewer than two measurements with n > 1 to fit",
                    "holding out {count} points leaves fewer than two measurements with n > 1 to fit",
                    holdout).format(count=holdout))
                continue
            fit = fitter(train_n, train_k)
            if not fit.available:
                scores[name] = HoldoutScore(test_n, test_k, None, None, False, fit.reason)
                continue
            pred = fit.predict(test_n)
            note = ""
            if np.count_nonzero(train_n > 1) <= 2:
                note = _("fitted on {count} measurements, as many as the model's parameters: it passes through "
                         "them exactly, so the score checks one extrapolation, not the fit — give at least four "
                         "points").format(count=np.count_nonzero(train_n > 1))
            scores[name] = HoldoutScore(test_n, test_k, pred,
                                        float(np.sqrt(np.mean((pred - test_k) ** 2))), True, note=note)
        pyc_mb, ent = scores.get("PYC-MB"), scores.get("ENT")
        if (pyc_mb and ent and pyc_mb.available and ent.available
                and np.allclose(pyc_mb.predicted, ent.predicted, atol=1e-4)):
            alike = _("PYC-MB's best fit on these points is its uniform limit, which is ENT's model: the two "
                      "predict the same")
            for sc in (pyc_mb, ent):
                sc.note = f"{sc.note}; {alike}" if sc.note else alike
    if band:
        band_result = _jackknife_band(n, k, at_arr, models["PYC-MB"])
    else:
        band_result = Band(None, None, band_method(), False, _("not requested"))
    return Forecast(n, k, at_arr, models, predictions, scores, band_result)


def _points_arrays(points) -> tuple[np.ndarray, np.ndarray]:
    if isinstance(points, str):
        return parse_points(points)
    if isinstance(points, tuple) and len(points) == 2 and all(np.ndim(p) == 1 for p in points):
        return check_points(points[0], points[1])
    try:
        arr = np.asarray(list(points), dtype=float)
    except (TypeError, ValueError):
        raise InputError("points must be (n, kappa) pairs") from None
    if arr.ndim != 2 or arr.shape[1] != 2:
        raise InputError("points must be (n, kappa) pairs")
    return check_points(arr[:, 0], arr[:, 1])
