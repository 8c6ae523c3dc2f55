"""The bucket advisor (SPEC §7): the coarsest-but-safe release granularity for an app.

An app releases, for each of its users, a **profile**: an area (the district, its
region, or nothing), the sex, an age group, a height band and a weight band.  A
*configuration* says how coarse each of these is:

* **age**: the census age groups of the study range, merged into blocks at a
  nominal width of :data:`AGE_LEVELS` years — ``"census"`` keeps the census groups,
  ``10`` cuts the study range at the census boundaries that are multiples of 10
  (a cut must lie at least half a width from the study's start, so an 18–20 group
  joins the next), ``"withheld"`` is one block;
* **height** / **weight**: bands of :data:`WIDTHS` cm / kg aligned to multiples of the
  width (SPEC §1.1), or withheld (``None``: one band);
* **area**: :data:`AREAS` — ``district``; ``district_or_region`` (the district,
  except in districts where fewer than a share ``q`` of people reach ``k``: there
  the district is withheld and their people are pooled per region); ``region``
  (the data set's ``region_id``); ``withheld`` (the whole country).

The CAS of a released profile is the SPEC's sum over everything it covers,
``CAS = Σ_{d ∈ area} Σ_{a ∈ block} N[d, s, a] · Pr[h-band, w-band | s, a]`` — counts
of merged age groups add, exactly as the personal page adds selected groups.
**Coverage** is the share of *all* people of the study range (no BMI filter: people
in implausible cells are among the easiest to single out, SPEC §1.6) whose profile
has CAS ≥ k.  **Information kept** is the entropy, in bits, of the released profile
over people, ``−Σ (CAS/T) log₂(CAS/T)`` with ``T`` the study population.

Monotonicity.  If configuration ``c'`` refines ``c`` — every
age block, band and area of ``c'`` lies inside one of ``c`` — then a profile of ``c``
is a union of profiles of ``c'`` and, because the CAS is a sum over districts, age
groups and (nested, aligned) bands of non-negative terms, its CAS is the sum of
theirs: nobody's CAS drops when a release is coarsened, so coverage never drops,
and the entropy of a function of a variable never exceeds the variable's, so
information never rises.  Widths nest only along divisibility (1 → 2 → 10 → 20,
1 → 5 → 10 → 20; 2 and 5 are incomparable); age levels nest when their cuts do
(census → 5 → 10 → 20, 5 → 15); areas nest district → region → withheld, and
``district_or_region`` lies between district and region for the same age and
widths.  :func:`refines` is that partial order; ``tests/test_buckets.py`` checks
coverage and bits along every refining pair.  Because coverage is exact and cheap
for every configuration (below), the whole ladder is evaluated — the front needs
every configuration's coverage anyway — and monotonicity is a checked property of
the results (and what makes "coarser is safer" true for the app) rather than a
shortcut the search depends on.

How it is computed (SPEC §1.5: nothing of size areas × cells is built).  Per area
``r``, sex ``s``, age block ``B`` and cell ``j``, ``CAS = Σ_{a∈B} M[r,s,a] p[s,a,j]``.

* A block of one census group is the SPEC's sorted-probability + binary-search
  case: ``p_j`` sorted once with cumulative mass, each area's covered mass is
  ``M · (mass of cells with p_j ≥ k / M)``; its entropy is ``H(p)`` by the chain rule.
* A merged block depends on each area's own age mix ``π[r]`` (``m_r = Σ π_a p_a``).
  With the block's country mix ``π̄`` and ``m̄ = Σ π̄_a p_a``, every cell satisfies
  ``ρmin_r m̄_j ≤ m_r[j] ≤ ρmax_r m̄_j`` with ``ρ = π[r]/π̄``.  Cells sorted by ``m̄``
  (cumulative mass of each ``p_a`` in that order) give the surely covered cells by
  binary search; only the cells between the two thresholds are summed explicitly,
  so **coverage is exact**.  The mixture entropy ``H(m_r)`` is bracketed by the
  second-order Taylor expansion around ``π̄`` with the remainder bounded by the same
  ``ρ`` (``−½ δᵀKδ / min(1, ρmin) ≤ remainder ≤ −½ δᵀKδ / max(1, ρmax)``,
  ``K_ab = Σ_j p_aj p_bj / m̄_j``), and by concavity; the areas with the widest
  brackets are computed exactly until the whole configuration's bits are certified
  to within :data:`BITS_TOL`.  ``bits`` is the bracket's midpoint and ``bits_error``
  its half-width.

Entry points (pure, memoised, no Dash): :func:`advise` → :class:`Advice`;
:func:`export_json` / :func:`export_csv` (shared by the CLI and the page);
:func:`recommendation_text`.  ``_reference_evaluate`` materialises everything
(tests only).
"""
from __future__ import annotations

import math
import time
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np

from ..body import DEFAULT_MODEL, check_model
from ..country import CountryModel, load_country_model
from ..errors import InputError
from ..groups import DEFAULT_STUDY, format_age_band
from ..memo import Memo
from ..regions import check_ages
from ..text import N_, plural
from ..text import gettext as _
from ._ladder import AGE_LEVELS, AREAS, WIDTHS, Config, age_blocks, block_bands, partition_refines, width_refines

#: The bits of every configuration are certified to within this many bits.
BITS_TOL: float = 1e-3
#: The advice's first note (in English: the advice is shared by every language; pages translate it where shown).
COVERAGE_NOTE = N_("Coverage counts everyone in the study range (no BMI filter); bits are the entropy of the released "
                   "profile.")
#: Explicit (area, cell) pairs evaluated at once in a merged block.
_CHUNK = 2_000_000
_LN2 = math.log(2.0)

_ADVICE = Memo(16)


def clear_caches() -> None:
    _ADVICE.clear()




def check_k(k) -> float:
    try:
        value = float(k)
    except (TypeError, ValueError):
        raise InputError(_("k {value} is not a number").format(value=repr(k))) from None
    if not math.isfinite(value) or value <= 0:
        raise InputError(_("k must be a positive number of people, not {value}").format(value=repr(k)))
    return value


def check_coverage(q) -> float:
    try:
        value = float(q)
    except (TypeError, ValueError):
        raise InputError(_("coverage {value} is not a number").format(value=repr(q))) from None
    if not math.isfinite(value) or not (0 < value <= 1):
        raise InputError(_("coverage must lie in (0, 1] (a share of people, e.g. 0.95), not {value}").format(
            value=repr(q)))
    return value


def _load(code: str, ages, root: Path | None) -> CountryModel:
    try:
        return load_country_model(str(code).strip().upper(), tuple(ages), root=root)
    except KeyError as exc:
        raise InputError(exc.args[0] if exc.args else f"unknown country or data set {code!r}") from None




@dataclass(frozen=True, eq=False)
class _Cells:
    """Cell probabilities ``p[s, a, j]`` of one (height width, weight width) on the ±10 SD grid.

    Cells below ``floor`` in every group are dropped: the floor is set so that such a
    cell's CAS stays below k/10 in any area (never covered), and what they hold is at
    most ``dropped[s, a]`` of a group's mass (≈1e-9 or less).  ``sorted_p[s, a]``
    ascending with ``cum[s, a]`` (length J+1) serve the single-group blocks;
    ``H[s, a]`` is the group's entropy in nats on the full grid (exact);
    ``slack`` bounds the entropy the dropped cells can hold in any mixture of the
    groups (``δ log(n/δ)`` for mass ``δ`` over ``n`` cells), added to the upper end of
    a merged block's bracket.
    """

    p: np.ndarray
    sorted_p: np.ndarray
    cum: np.ndarray
    H: np.ndarray
    slack: float


def _cell_probs(model: CountryModel, hw, ww, body_model: str) -> np.ndarray:
    """``[s, a, j]`` probabilities of the (hw × ww) cells; ``None`` = that measurement withheld.

    THE place the body model is chosen (nothing else in this module needs it).
    """
    model = model.with_model(body_model)
    ns, na = model.counts.shape[1:]
    if hw is None and ww is None:
        return np.ones((ns, na, 1))
    if hw is None:
        return np.asarray(model.marginal("weight", ww), dtype=float)
    if ww is None:
        return np.asarray(model.marginal("height", hw), dtype=float)
    return np.asarray(model.joint(hw, ww).prob, dtype=float).reshape(ns, na, -1)


def _entropy_nats(p: np.ndarray, axis=-1) -> np.ndarray:
    with np.errstate(divide="ignore", invalid="ignore"):
        return -np.where(p > 0, p * np.log(np.where(p > 0, p, 1.0)), 0.0).sum(axis=axis)


def _make_cells(model: CountryModel, hw, ww, body_model: str, floor: float = 0.0) -> _Cells:
    full = _cell_probs(model, hw, ww, body_model)
    keep = (full > floor).any(axis=(0, 1))
    p = np.ascontiguousarray(full[:, :, keep])
    dropped = full[:, :, ~keep].sum(axis=2)
    n_drop = int((~keep).sum())
    d = float(dropped.max()) if dropped.size else 0.0
    slack = d * math.log(n_drop / d) if d > 0 and n_drop > 0 else 0.0
    sorted_p = np.sort(p, axis=2)
    cum = np.concatenate([np.zeros(p.shape[:2] + (1,)), np.cumsum(sorted_p, axis=2)], axis=2)
    return _Cells(p, sorted_p, cum, _entropy_nats(full), max(slack, 0.0))


#: Cells of a merged block are binned by how far their age posterior strays from the block's mix (τ below).
TAU_EDGES: tuple[float, ...] = (0.1, 0.3, 0.8, math.inf)


@dataclass(frozen=True, eq=False)
class _Bin:
    """Cells of one τ bin, ascending by ``mbar`` (``tau`` = the largest τ in the bin)."""

    tau: float
    sorted_m: np.ndarray
    P_sorted: np.ndarray  # (|B|, n) p_a in that order
    cumP: np.ndarray  # (|B|, n+1) cumulative


@dataclass(frozen=True, eq=False)
class _Mixed:
    """A merged block ``B`` of one sex on one cell grid, around its country age mix ``pbar``.

    For an area with mix ``π`` (``ρ = π / pbar``) and a cell ``j`` whose age posterior
    is ``w_j = pbar · p_j / mbar_j``, ``m[j] / mbar[j] − 1 = Σ_a (ρ_a − c)(w_aj − pbar_a)``
    for any ``c``, so with ``c`` the middle of ``ρ``'s range
    ``|m[j] / mbar[j] − 1| ≤ ½ (ρmax − ρmin) · τ_j`` with ``τ_j = Σ_a |w_aj − pbar_a|``
    (and always ``ρmin ≤ m[j] / mbar[j] ≤ ρmax``).  Binning the cells by ``τ`` gives
    each bin its own, tighter, pair of thresholds.
    """

    groups: np.ndarray  # census group indices
    pbar: np.ndarray  # (|B|,) country mix
    P: np.ndarray  # (|B|, J) p_a in cell order
    bins: tuple[_Bin, ...]
    H0: float  # H(mbar), nats
    grad: np.ndarray  # dH/dπ_a at pbar
    K: np.ndarray  # Σ_j p_aj p_bj / mbar_j
    Ha: np.ndarray  # H(p_a), nats, on the full grid
    slack: float  # entropy the dropped cells can add (see _Cells)


def _make_mixed(cells: _Cells, s: int, block: Sequence[int], pbar: np.ndarray) -> _Mixed:
    P = cells.p[s, list(block)]  # (B, J)
    mbar = pbar @ P
    pos = mbar > 0
    with np.errstate(divide="ignore", invalid="ignore"):
        tau = np.where(pos, np.abs(pbar[:, None] * P / np.where(pos, mbar, 1.0)[None, :] - pbar[:, None]).sum(axis=0),
                       0.0)
    which = np.searchsorted(np.asarray(TAU_EDGES), tau, side="left")
    bins = []
    for b, edge in enumerate(TAU_EDGES):
        idx = np.flatnonzero(which == b)
        if not idx.size:
            continue
        order = idx[np.argsort(mbar[idx], kind="stable")]
        Ps = np.ascontiguousarray(P[:, order])
        cum = np.concatenate([np.zeros((P.shape[0], 1)), np.cumsum(Ps, axis=1)], axis=1)
        bins.append(_Bin(float(tau[idx].max()), mbar[order], Ps, cum))
    logm = np.log(np.where(pos, mbar, 1.0))
    H0 = float(-(mbar[pos] * logm[pos]).sum())
    grad = -(P * (logm + 1.0)[None, :]).sum(axis=1)
    Pp = P[:, pos]
    K = (Pp / mbar[pos][None, :]) @ Pp.T
    return _Mixed(np.asarray(block), pbar, np.ascontiguousarray(P), tuple(bins), H0, grad, K, cells.H[s, list(block)],
                  cells.slack)




@dataclass(frozen=True, eq=False)
class AreaResult:
    """Per-area sums of one configuration on an area partition (arrays of length R).

    ``people``: study population; ``covered``: people whose CAS ≥ k; ``hcount``:
    ``−Σ_{s,B} M log₂ M``; ``hmix_lo``/``hmix_hi``: ``Σ_{s,B} M · H₂(m)`` bracketed
    (equal when exact).  Total bits = ``(Σ hcount + Σ hmix) / T + log₂ T``.
    """

    people: np.ndarray
    covered: np.ndarray
    hcount: np.ndarray
    hmix_lo: np.ndarray
    hmix_hi: np.ndarray


class _Engine:
    """Everything of one data set, study range and body model the advisor reuses."""

    def __init__(self, model: CountryModel, body_model: str, k: float = 1.0):
        self.model = model
        self.body_model = body_model
        self.counts = np.asarray(model.counts, dtype=float)
        self.T = float(self.counts.sum())
        if not self.T > 0:
            raise InputError(f"{model.name} has nobody in the study range {format_age_band(*model.study)}")
        #: cells below this probability in every group can never reach k/10 people, in any area
        self.floor = min(1e-13, 0.1 * k / self.T)
        self._cells: dict = {}
        self._mixed: dict = {}
        self._block: dict = {}  # (area, s, block, hw, ww, k) → that block's per-area sums, shared by age levels
        #: every age level's blocks (levels may coincide: a country with 10-year census groups)
        self.partitions = {level: age_blocks(model, level) for level in AGE_LEVELS}
        rid = np.asarray(model.region_ids).astype(str)
        self.region_names_u, self.region_of = np.unique(rid, return_inverse=True)
        self.R = len(self.region_names_u)

    def cells(self, hw, ww) -> _Cells:
        key = (hw, ww)
        if key not in self._cells:
            self._cells[key] = _make_cells(self.model, hw, ww, self.body_model, self.floor)
        return self._cells[key]

    def mixed(self, hw, ww, s: int, block: tuple[int, ...]) -> _Mixed:
        key = (hw, ww, s, block)
        if key not in self._mixed:
            M = self.counts[:, s, list(block)].sum(axis=0)
            tot = M.sum()
            pbar = M / tot if tot > 0 else np.full(len(block), 1.0 / len(block))
            self._mixed[key] = _make_mixed(self.cells(hw, ww), s, block, pbar)
        return self._mixed[key]

    def release(self, hw, ww) -> None:
        """Forget everything of one width pair (the search visits each pair once)."""
        self._cells.pop((hw, ww), None)
        for key in [key for key in self._mixed if key[:2] == (hw, ww)]:
            del self._mixed[key]
        for key in [key for key in self._block if key[3:5] == (hw, ww)]:
            del self._block[key]

    # ---- areas

    def area_counts(self, area: str) -> np.ndarray:
        if area == "district":
            return self.counts
        if area == "region":
            out = np.zeros((self.R,) + self.counts.shape[1:])
            np.add.at(out, self.region_of, self.counts)
            return out
        if area == "withheld":
            return self.counts.sum(axis=0, keepdims=True)
        raise InputError(f"unknown area level {area!r}; choose {', '.join(AREAS)}")

    def pools(self, short: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """Counts of the short districts pooled per region, and which regions have any."""
        out = np.zeros((self.R,) + self.counts.shape[1:])
        np.add.at(out, self.region_of[short], self.counts[short])
        has = np.zeros(self.R, dtype=bool)
        has[self.region_of[short]] = True
        return out[has], np.flatnonzero(has)

    # ---- evaluation

    def evaluate(self, M: np.ndarray, blocks, hw, ww, k: float, exact_bits: bool = False,
                 area: str | None = None) -> AreaResult:
        """Per-area sums of one (age partition, widths) on the areas of ``M``.

        With ``area`` (a level of :meth:`area_counts`) each block's sums are kept for the
        other age levels that share the block (release them with :meth:`release`).
        """
        R, S, _ = M.shape
        cells = self.cells(hw, ww)
        covered = np.zeros(R)
        hcount = np.zeros(R)
        hmix_lo = np.zeros(R)
        hmix_hi = np.zeros(R)
        people = M.sum(axis=(1, 2))
        for s in range(S):
            for block in blocks:
                key = (area, s, block, hw, ww, k)
                part = self._block.get(key) if area is not None and not exact_bits else None
                if part is None:
                    part = self._block_sums(M, s, block, cells, hw, ww, k, exact_bits)
                    if area is not None and not exact_bits:
                        self._block[key] = part
                cov, hc, lo, hi = part
                covered += cov
                hcount += hc
                hmix_lo += lo
                hmix_hi += hi
        return AreaResult(people, covered, hcount, hmix_lo, hmix_hi)

    def _block_sums(self, M, s, block, cells: _Cells, hw, ww, k, exact_bits):
        MB = M[:, s, list(block)]
        nB = MB.sum(axis=1)
        with np.errstate(divide="ignore", invalid="ignore"):
            hc = -np.where(nB > 0, nB * np.log2(np.where(nB > 0, nB, 1.0)), 0.0)
        if len(block) == 1:
            a = block[0]
            with np.errstate(divide="ignore"):
                idx = np.searchsorted(cells.sorted_p[s, a], k / nB, side="left")
            cov = nB * (cells.cum[s, a, -1] - cells.cum[s, a][idx])
            h = nB * (cells.H[s, a] / _LN2)
            return cov, hc, h, h
        cov, lo, hi = self._merged(MB, nB, self.mixed(hw, ww, s, block), k, exact_bits)
        return cov, hc, lo, hi

    @staticmethod
    def _merged(MB: np.ndarray, nB: np.ndarray, mx: _Mixed, k: float, exact_bits: bool):
        R, nb = MB.shape
        live = nB > 0
        with np.errstate(divide="ignore", invalid="ignore"):
            pi = np.where(live[:, None], MB / np.where(live, nB, 1.0)[:, None], 0.0)
            used = mx.pbar > 0
            ratio = np.where(used[None, :], pi / np.where(used, mx.pbar, 1.0)[None, :], 1.0)
            rmin = ratio.min(axis=1)
            rmax = ratio.max(axis=1)
        half = 0.5 * (rmax - rmin)
        covered = np.zeros(R)
        for bn in mx.bins:
            lo_f = np.maximum(rmin, 1.0 - half * bn.tau)
            hi_f = np.minimum(rmax, 1.0 + half * bn.tau)
            with np.errstate(divide="ignore", invalid="ignore"):
                t_hi = np.where(live & (lo_f > 0), k / (nB * lo_f), np.inf)
                t_lo = np.where(live, k / (nB * hi_f), np.inf)
            i_hi = np.searchsorted(bn.sorted_m, t_hi, side="left")
            i_lo = np.minimum(np.searchsorted(bn.sorted_m, t_lo, side="left"), i_hi)
            # surely covered: every cell of the bin from i_hi on
            covered += (MB * (bn.cumP[:, -1][None, :] - bn.cumP[:, i_hi].T)).sum(axis=1)
            # the cells between the two thresholds, summed explicitly
            L = i_hi - i_lo
            rows = np.flatnonzero(L > 0)
            if not rows.size:
                continue
            ends = np.cumsum(L[rows])
            # chunks of at most _CHUNK pairs (a single larger row is its own chunk)
            cuts = np.unique(np.searchsorted(ends, np.arange(_CHUNK, ends[-1] + _CHUNK, _CHUNK), side="right"))
            start = 0
            for stop in [*cuts.tolist(), rows.size]:
                stop = max(stop, start + 1)
                if start >= rows.size:
                    break
                rr_ = rows[start:stop]
                lens = L[rr_]
                rr = np.repeat(rr_, lens)
                offs = np.repeat(np.cumsum(lens) - lens, lens)
                pos = i_lo[rr] + (np.arange(rr.size) - offs)
                c = np.einsum("nb,bn->n", MB[rr], bn.P_sorted[:, pos])
                covered += np.bincount(rr, weights=np.where(c >= k, c, 0.0), minlength=R)
                start = stop
        # entropy of each area's mixture, bracketed
        lin_part = (pi * mx.Ha[None, :]).sum(axis=1)  # Σ π_a H(p_a): concave lower bound
        with np.errstate(divide="ignore", invalid="ignore"):
            hpi = -np.where(pi > 0, pi * np.log(np.where(pi > 0, pi, 1.0)), 0.0).sum(axis=1)
            d = pi - mx.pbar[None, :]
            lin = mx.H0 + d @ mx.grad
            Q = ((d @ mx.K) * d).sum(axis=1)
            lo = np.maximum(lin_part, np.where(rmin > 0, lin - 0.5 * Q / np.minimum(1.0, rmin), -np.inf))
            hi = np.minimum(lin_part + hpi, lin - 0.5 * Q / np.maximum(1.0, rmax) + mx.slack)
        hi = np.maximum(hi, lo)
        if exact_bits:
            exact = _exact_mixture_entropy(pi, mx, np.arange(R))
            lo, hi = np.maximum(exact, lin_part), exact + mx.slack
        lo = np.where(live, lo, 0.0)
        hi = np.where(live, hi, 0.0)
        return covered, nB * lo / _LN2, nB * hi / _LN2

    def certify(self, M: np.ndarray, blocks, hw, ww, res: AreaResult, tol_people_bits: float) -> AreaResult:
        """Compute mixture entropies exactly for the widest brackets until Σ gap ≤ tol (people × bits)."""
        gap = res.hmix_hi - res.hmix_lo
        if gap.sum() <= tol_people_bits:
            return res
        # per (s, block) gaps are not kept apart; recompute exactly the areas with the widest total gap
        order = np.argsort(-gap)
        remaining = gap.sum() - np.cumsum(gap[order])  # gap left after computing the first i+1 exactly
        n = int(np.argmax(remaining <= tol_people_bits)) + 1 if (remaining <= tol_people_bits).any() else order.size
        sel = order[:n]
        lo, hi = res.hmix_lo.copy(), res.hmix_hi.copy()
        exact = np.zeros(sel.size)
        extra = np.zeros(sel.size)  # what the dropped cells may add
        S = M.shape[1]
        for s in range(S):
            for block in blocks:
                MB = M[sel][:, s][:, list(block)]
                nB = MB.sum(axis=1)
                if len(block) == 1:
                    exact += nB * self.cells(hw, ww).H[s, block[0]] / _LN2
                    continue
                mx = self.mixed(hw, ww, s, block)
                live = nB > 0
                pi = np.where(live[:, None], MB / np.where(live, nB, 1.0)[:, None], 0.0)
                exact += nB * np.where(live, _exact_mixture_entropy(pi, mx, np.arange(sel.size)), 0.0) / _LN2
                extra += nB * mx.slack / _LN2
        lo[sel] = np.maximum(exact, lo[sel])
        hi[sel] = np.maximum(np.minimum(exact + extra, hi[sel]), lo[sel])
        return AreaResult(res.people, res.covered, res.hcount, lo, hi)


def _exact_mixture_entropy(pi: np.ndarray, mx: _Mixed, rows: np.ndarray) -> np.ndarray:
    """``H(Σ_a π[r, a] p_a)`` in nats for the given rows, in chunks."""
    out = np.zeros(rows.size)
    J = mx.P.shape[1]
    step = max(1, _CHUNK // max(J, 1))
    for i in range(0, rows.size, step):
        m = pi[rows[i:i + step]] @ mx.P
        out[i:i + step] = _entropy_nats(m)
    return out




@dataclass(frozen=True, eq=False)
class Evaluated:
    """One configuration's numbers.  ``bits`` is certified to ``± bits_error``.

    ``short_districts`` (``district_or_region`` only): indices of the districts withheld, as a
    small int32 array (a US search holds ~200 such sets of up to 3,143).
    """

    config: Config
    age_groups: tuple[tuple[float, float], ...]
    bits: float
    bits_error: float
    coverage: float
    short_districts: np.ndarray = field(default_factory=lambda: np.zeros(0, dtype=np.int32))

    def to_dict(self, model: CountryModel | None = None) -> dict:
        c = self.config
        out = {
            "age_group_years": c.age,
            "height_cm": "withheld" if c.height is None else c.height,
            "weight_kg": "withheld" if c.weight is None else c.weight,
            "area": c.area,
            "bits": self.bits,
            "bits_error": self.bits_error,
            "coverage": self.coverage,
            "age_groups": [[lo, None if math.isinf(hi) else hi] for lo, hi in self.age_groups],
        }
        if c.area == "district_or_region":
            out["withheld_districts"] = len(self.short_districts)
            if model is not None:
                out["withheld_district_ids"] = [str(model.district_ids[d]) for d in self.short_districts]
        return out


@dataclass(frozen=True)
class DistrictAdvice:
    """Per-district mode: each district's finest district-level configuration meeting q there."""

    district_ids: tuple[str, ...]
    district_names: tuple[str, ...]
    region_names: tuple[str, ...]
    people: np.ndarray
    best: tuple[Config | None, ...]  # None: no district-level release meets q there
    best_bits: np.ndarray  # bits within the district (NaN when none)
    best_coverage: np.ndarray
    global_coverage: np.ndarray  # each district's coverage under the global recommendation's age and widths

    def rows(self) -> list[dict]:
        out = []
        for i, d in enumerate(self.district_ids):
            b = self.best[i]
            out.append({
                "district_id": d, "district_name": self.district_names[i], "region_name": self.region_names[i],
                "people": float(self.people[i]),
                "age_group_years": None if b is None else b.age,
                "height_cm": None if b is None else ("withheld" if b.height is None else b.height),
                "weight_kg": None if b is None else ("withheld" if b.weight is None else b.weight),
                "withhold_district": b is None,
                "bits": _nan_none(self.best_bits[i]), "coverage": _nan_none(self.best_coverage[i]),
                "coverage_under_global": _nan_none(self.global_coverage[i]),
            })
        return out


def _nan_none(x):
    x = float(x)
    return None if math.isnan(x) else x


@dataclass(frozen=True, eq=False)
class Advice:
    """What :func:`advise` found: every evaluated configuration, the front and the recommendation."""

    code: str
    name: str
    study: tuple[float, float]
    k: float
    q: float
    body_model: str
    people: float
    district_label: str
    region_label: str
    evaluated: tuple[Evaluated, ...]
    front: tuple[Evaluated, ...]
    recommended: Evaluated | None
    short_under_recommended: tuple[int, ...]  # districts whose own coverage < q under the recommendation
    district_ids: tuple[str, ...]
    district_names: tuple[str, ...]
    district_coverage: np.ndarray  # under the recommendation's age and widths, per district (district level)
    district_people: np.ndarray
    per_district: DistrictAdvice | None
    seconds: float
    n_exact_bits: int = 0
    notes: tuple[str, ...] = field(default=())

    def to_dict(self, full: bool = False) -> dict:
        model = None
        out = {
            "country": self.code, "name": self.name, "ages": format_age_band(*self.study), "k": self.k,
            "coverage_target": self.q, "model": self.body_model, "people": self.people,
            "recommended": None if self.recommended is None else self.recommended.to_dict(model),
            "front": [e.to_dict(model) for e in self.front],
            "configurations": len(self.evaluated),
            "short_districts": [
                {"district_id": self.district_ids[d], "district_name": self.district_names[d],
                 "coverage": float(self.district_coverage[d]), "people": float(self.district_people[d])}
                for d in self.short_under_recommended
            ],
            "notes": list(self.notes),
        }
        if self.recommended is not None and self.recommended.config.area == "district_or_region":
            out["recommended"]["withheld_district_ids"] = [self.district_ids[d] for d in self.recommended.short_districts]
        if self.per_district is not None:
            out["per_district"] = self.per_district.rows()
        if full:
            out["all"] = [e.to_dict(model) for e in self.evaluated]
        return out




def refines(a: Evaluated, b: Evaluated, partitions: dict) -> bool:
    """``a``'s release is a refinement of ``b``'s (so CAS(a) ≤ CAS(b) for everyone)."""
    ca, cb = a.config, b.config
    if not (partition_refines(partitions[ca.age], partitions[cb.age])
            and width_refines(ca.height, cb.height) and width_refines(ca.weight, cb.weight)):
        return False
    ra, rb = AREAS.index(ca.area), AREAS.index(cb.area)
    if ca.area == "district_or_region" and cb.area == "district_or_region":
        # pools of short districts per region: a's pools lie inside b's when a's short set is inside b's
        return set(a.short_districts.tolist()) <= set(b.short_districts.tolist())
    if cb.area == "district_or_region":
        return ca.area == "district"
    if ca.area == "district_or_region":
        return rb >= AREAS.index("region")
    return ra <= rb


def pareto_front(items: Sequence[Evaluated]) -> tuple[Evaluated, ...]:
    """Configurations no other beats on both bits and coverage, by bits descending.

    Within the certified precision two configurations tie; of exact ties the one
    listed first in :data:`AREAS`/ladder order is kept.
    """
    ordered = sorted(items, key=lambda e: (-e.bits, -e.coverage, e.config.key()))
    front = []
    best = -math.inf
    for e in ordered:
        if e.coverage > best + 1e-12:
            front.append(e)
            best = e.coverage
    return tuple(front)


def _bits(res: AreaResult, T: float) -> tuple[float, float]:
    lo = (res.hcount.sum() + res.hmix_lo.sum()) / T + math.log2(T)
    hi = (res.hcount.sum() + res.hmix_hi.sum()) / T + math.log2(T)
    return 0.5 * (lo + hi), 0.5 * (hi - lo)


def borrowed_note(m: CountryModel) -> str | None:
    """The advice's note (English, shared with the CLI) that the data set borrows another country's body statistics."""
    if not m.borrowed_from:
        return None
    return f"{m.name} has no body statistics of its own; those of {m.prior_country_name or m.borrowed_from} are used."


def filled_note(m: CountryModel) -> str | None:
    """The advice's note (English) on the districts whose counts are filled from their region's remainder."""
    if not m.filled.any():
        return None
    return f"{int(m.filled.sum())} {plural(m.district_label)} are filled from their {m.region_label}'s remainder (SPEC §1.4)."


def advise(
    code: str,
    k: float = 10,
    q: float = 0.95,
    *,
    ages: Sequence[float] = DEFAULT_STUDY,
    model: str = DEFAULT_MODEL,
    per_district: bool = False,
    areas: Sequence[str] = AREAS,
    age_levels: Sequence = AGE_LEVELS,
    widths: Sequence = WIDTHS,
    root: Path | None = None,
) -> Advice:
    """The bucket advice of SPEC §7 for data set ``code`` (memoised).

    Every configuration of the ladder (:data:`AGE_LEVELS` × :data:`WIDTHS`² ×
    ``areas``; ``age_levels`` and ``widths`` narrow the ladder) gets its exact
    coverage and certified bits; ``front`` is their Pareto
    front; ``recommended`` the one with the most bits among those with coverage ≥ q
    (ties: the higher coverage).  With ``per_district`` each district's finest
    district-level configuration meeting q within it is added.
    """
    ages = check_ages(ages)
    body_model = check_model(model)
    check_k(k), check_coverage(q)
    return advise_model(_load(code, ages, root), k, q, model=body_model, per_district=per_district, areas=areas,
                        age_levels=age_levels, widths=widths)


def advice_if_cached(code: str, k: float = 10, q: float = 0.95, *, per_district: bool = False,
                     ages: Sequence[float] = DEFAULT_STUDY, model: str = DEFAULT_MODEL,
                     root: Path | None = None) -> Advice | None:
    """The memoised :func:`advise` answer on the full ladder, or None; computes no advice (for a
    server that rations its seconds-long searches, :func:`dashboard.limits.heavy_slot`)."""
    country = _load(code, check_ages(ages), root)
    return _ADVICE.peek((country, check_model(model), check_k(k), check_coverage(q), bool(per_district),
                         AREAS, AGE_LEVELS, WIDTHS))


def advise_model(
    country: CountryModel,
    k: float = 10,
    q: float = 0.95,
    *,
    model: str = DEFAULT_MODEL,
    per_district: bool = False,
    areas: Sequence[str] = AREAS,
    age_levels: Sequence = AGE_LEVELS,
    widths: Sequence = WIDTHS,
) -> Advice:
    """:func:`advise` on a :class:`CountryModel` already restricted to its study range (tests, notebooks)."""
    k = check_k(k)
    q = check_coverage(q)
    body_model = check_model(model)
    areas = tuple(dict.fromkeys(areas))
    for a in areas:
        if a not in AREAS:
            raise InputError(f"unknown area level {a!r}; choose {', '.join(AREAS)}")
    age_levels = tuple(dict.fromkeys(age_levels))
    for a in age_levels:
        if a not in AGE_LEVELS:
            raise InputError(f"unknown age level {a!r}; choose {', '.join(map(str, AGE_LEVELS))}")
    widths = tuple(dict.fromkeys(widths))
    for w in widths:
        if w not in WIDTHS:
            raise InputError(f"unknown band width {w!r}; choose {', '.join(str(x) for x in WIDTHS if x)} or withheld")
    if not (areas and age_levels and widths):
        raise InputError("the ladder is empty: give at least one area level, age level and width")
    key = (country, body_model, k, q, bool(per_district), areas, age_levels, widths)
    # a fresh engine per search: it keeps per-width scratch that concurrent searches must not share
    return _ADVICE.get(key, lambda: _advise(_Engine(country, body_model, k), k, q, per_district, areas, age_levels,
                                            widths))


def _advise(eng: _Engine, k: float, q: float, per_district: bool, areas: tuple[str, ...],
            age_levels: tuple = AGE_LEVELS, widths: tuple = WIDTHS) -> Advice:
    t0 = time.perf_counter()
    m = eng.model
    T = eng.T
    tol = BITS_TOL * T
    evaluated: list[Evaluated] = []
    need_district = "district" in areas or "district_or_region" in areas or per_district
    district_cov: dict = {}  # (age, hw, ww) → per-district covered / people
    district_res: dict = {}
    n_exact = 0
    counts_by_area = {a: eng.area_counts(a) for a in ("district", "region", "withheld")}
    people_d = eng.counts.sum(axis=(1, 2))
    levels = {}
    for level, blocks in eng.partitions.items():
        if level in age_levels and blocks not in levels.values():
            levels[level] = blocks  # a level giving the same groups as a finer one is the same configuration
    for hw in widths:
        for ww in widths:
            for level, blocks in levels.items():
                bands = tuple(block_bands(m, blocks))
                for area in ("district", "region", "withheld"):
                    if area not in areas and not (area == "district" and need_district):
                        continue
                    M = counts_by_area[area]
                    res = eng.evaluate(M, blocks, hw, ww, k, area=area)
                    before = float((res.hmix_hi - res.hmix_lo).sum())
                    res = eng.certify(M, blocks, hw, ww, res, tol)
                    n_exact += before > tol
                    if area == "district":
                        district_res[(level, hw, ww)] = res
                        with np.errstate(invalid="ignore", divide="ignore"):
                            district_cov[(level, hw, ww)] = np.where(people_d > 0, res.covered / people_d, np.nan)
                        if area not in areas:
                            continue
                    bits, err = _bits(res, T)
                    evaluated.append(Evaluated(Config(level, hw, ww, area), bands, float(bits), float(err),
                                               float(res.covered.sum() / T)))
                if "district_or_region" in areas:
                    dres = district_res[(level, hw, ww)]
                    cov_d = district_cov[(level, hw, ww)]
                    short = np.flatnonzero(cov_d < q)
                    if short.size == 0 or short.size == eng.model.n_districts and eng.R == 1:
                        continue  # same as district (nothing short) / as withheld
                    M, _ = eng.pools(short)
                    pres = eng.evaluate(M, blocks, hw, ww, k)
                    pres = eng.certify(M, blocks, hw, ww, pres, tol)
                    keep = np.ones(len(people_d), dtype=bool)
                    keep[short] = False
                    comb = AreaResult(
                        np.concatenate([dres.people[keep], pres.people]),
                        np.concatenate([dres.covered[keep], pres.covered]),
                        np.concatenate([dres.hcount[keep], pres.hcount]),
                        np.concatenate([dres.hmix_lo[keep], pres.hmix_lo]),
                        np.concatenate([dres.hmix_hi[keep], pres.hmix_hi]),
                    )
                    bits, err = _bits(comb, T)
                    evaluated.append(Evaluated(Config(level, hw, ww, "district_or_region"), bands, float(bits),
                                               float(err), float(comb.covered.sum() / T), _readonly(short.astype(np.int32))))
            eng.release(hw, ww)
    front = pareto_front(evaluated)
    feasible = [e for e in evaluated if e.coverage >= q - 1e-12]
    recommended = max(feasible, key=lambda e: (e.bits, e.coverage, _neg_key(e.config))) if feasible else None
    if recommended is not None:
        c = recommended.config
        dcov = district_cov.get((c.age, c.height, c.weight))
    else:
        dcov = None
    if dcov is None:
        dcov = np.full(len(people_d), np.nan)
    short_rec = tuple(int(d) for d in np.flatnonzero(dcov < q))
    pd_advice = _per_district(eng, q, district_res, district_cov, dcov) if per_district else None
    notes = [
        COVERAGE_NOTE,
        f"Bits certified to within ±{BITS_TOL:g}.",
    ]
    if m.body_note:
        notes.append(m.body_note)
    notes += [n for n in (borrowed_note(m), filled_note(m)) if n]
    return Advice(
        m.code, m.name, m.study, k, q, eng.body_model, T, m.district_label, m.region_label,
        tuple(evaluated), front, recommended, short_rec,
        tuple(str(x) for x in m.district_ids), tuple(str(x) for x in m.district_names), dcov, people_d,
        pd_advice, time.perf_counter() - t0, int(n_exact), tuple(notes),
    )


def _neg_key(c: Config) -> tuple:
    return tuple(-x if isinstance(x, (int, float)) else 0 for x in c.key())


def _per_district(eng: _Engine, q: float, district_res: dict, district_cov: dict, global_cov: np.ndarray) -> DistrictAdvice:
    """Per district: the district-level configuration with the most bits within it that meets q there.

    Bits within a district are the entropy of its own released profiles (sex, age
    group, bands); every district-level configuration's per-district coverage is
    already known from the global pass, so this is one vectorised arg-max.
    """
    m = eng.model
    people = eng.counts.sum(axis=(1, 2))
    D = len(people)
    keys = list(district_res)
    bits = np.empty((len(keys), D))
    covs = np.empty((len(keys), D))
    for i, key in enumerate(keys):
        r = district_res[key]
        with np.errstate(invalid="ignore", divide="ignore"):
            h = (r.hcount + 0.5 * (r.hmix_lo + r.hmix_hi)) / np.where(people > 0, people, 1.0)
            bits[i] = np.where(people > 0, h + np.log2(np.where(people > 0, people, 1.0)), np.nan)
        covs[i] = district_cov[key]
    ok = covs >= q - 1e-12
    score = np.where(ok, bits, -np.inf)
    j = np.argmax(score, axis=0)
    has = np.isfinite(score[j, np.arange(D)])
    best = tuple(Config(keys[j[d]][0], keys[j[d]][1], keys[j[d]][2], "district") if has[d] else None for d in range(D))
    return DistrictAdvice(
        tuple(str(x) for x in m.district_ids), tuple(str(x) for x in m.district_names),
        tuple(str(x) for x in m.region_names), people, best,
        np.where(has, bits[j, np.arange(D)], np.nan), np.where(has, covs[j, np.arange(D)], np.nan), global_cov,
    )


def _readonly(a: np.ndarray) -> np.ndarray:
    a.setflags(write=False)
    return a
