"""Tuple-frequency re-identification risk, TFRR (SPEC §5; Yang, Wang, Wu, Yang & Luo 2021).

Only the per-attribute counts are used: for a record r of a data set of N records with d
quasi-identifiers, ``n_j`` is the number of records sharing r's value of attribute j.  The
frequency ``X_d`` of r's tuple (its class size) follows the paper's d-dimensional *recursive
hypergeometric* distribution rH(N, d, n_1, …, n_d) (Methods, Eqs. 3–4):

    P(X_1 = k) = [k = n_1];
    P(X_j = k) = Σ_m P(X_{j−1} = m) · C(m, k) C(N − m, n_j − k) / C(N, n_j)

— given m records share the first j − 1 values, the n_j holders of value j fall on them
hypergeometrically.  It is the size of the intersection of d independent uniformly random
subsets of sizes n_1 … n_d, so it does not depend on the order of the attributes; the recursion
here runs from the smallest count up (the support never exceeds min n_j) and drops, at each
step, a left tail of mass below 1e-16 and a right tail of mass below 1e-16 · P(X ≥ 1) (never
the values up to 10), so that P(X = k | X ≥ 1) keeps its relative precision; the
first step, from a point mass, is computed only within mean ± (12 sd + 30), outside which a
hypergeometric holds less than 1e-20 (Chernoff's bound, which holds for it as for the binomial).

The paper's binomial approximation (Eqs. 6–7) is ``X_d ≈ B(n_d, P_{d−1})`` with
``P_{d−1} = Π_{j<d} n_j / N^{d−1}``; the paper leaves the order of the attributes open, and
AnonSet takes as the d-th attribute the one with the smallest count, so that the binomial's
support [0, n_d] is the exact support [0, min n_j] (the mean Π n_j / N^{d−1} is the same for any
order).  The two agree as N grows with the shares n_j / N fixed (the paper's Fig. 3) and differ
for small N.

Risk (Eq. 12): the probability that r is k-indistinguishable, given that r is in the data set, is
``P(X_d ≥ k) / P(X_d ≥ 1)``; the risk score is its complement (for k = 2, the probability that r
is unique).  The paper evaluates the score by the AUC against the records' real (empirical)
uniqueness, which :func:`analyse` reports for both forms.

Not implemented, on purpose: the paper's value-dependence correction ("Exploiting value dependence
knowledge to rectify prediction results").  As the paper applies it, it recomputes with
``B(n_i p_ij, p')`` only the scores of the *true positive* records whose score is below 0.5: which
records those are is known only from the real uniqueness the score is meant to predict, so the
corrected AUC uses the answer to pick what it corrects, and nothing in the paper says how to choose
the records without it.  It also handles one strongly dependent value pair per record (the paper
says so), while real tables such as NHANES and ADULT hold several (age with marital status,
relationship with sex, education with education-num).  The latent class model is this page's answer
to dependent values: it models the dependence of every value with every other.
"""
from __future__ import annotations

import math

import numpy as np
from scipy.special import gammaln
from scipy.stats import binom

from ..errors import InputError
from ._records import KS, roc_auc

#: Outer tails of less mass than this are dropped at each step of the recursion.
TAIL = 1e-16


def _lnc(a, b):
    """ln C(a, b), −inf outside 0 ≤ b ≤ a."""
    a = np.asarray(a, dtype=float)
    b = np.asarray(b, dtype=float)
    ok = (b >= 0) & (b <= a)
    with np.errstate(invalid="ignore"):
        out = gammaln(a + 1) - gammaln(b + 1) - gammaln(a - b + 1)
    return np.where(ok, out, -np.inf)


def _trim(lo: int, pmf: np.ndarray, tail: float, keep: int = max(KS)) -> tuple[int, np.ndarray]:
    """Drop outer tails: on the left mass < ``tail``; on the right mass < ``tail`` · P(X ≥ 1), never values ≤ ``keep``.

    The right-hand rule keeps the relative precision of P(X = k | X ≥ 1) when presence itself is rare.
    """
    vals = lo + np.arange(pmf.size)
    c = np.cumsum(pmf)
    left = min(int(np.searchsorted(c, tail, side="right")), pmf.size - 1)
    present = float(pmf[vals >= 1].sum())
    r = np.cumsum(pmf[::-1])
    right = int(np.searchsorted(r, tail * present, side="right")) if present > 0 else 0
    right = min(right, max(0, pmf.size - 1 - (keep - lo)))
    stop = max(left + 1, pmf.size - right)
    return lo + left, pmf[left:stop]


def rh_pmf(population: int, counts, tail: float = TAIL) -> tuple[int, np.ndarray]:
    """The recursive hypergeometric distribution rH(N, d, n_1…n_d): (first value, pmf from it on)."""
    N = int(population)
    c = sorted(int(x) for x in counts)
    if not c:
        raise InputError("at least one attribute count is needed")
    if c[0] < 0 or c[-1] > N:
        raise InputError("attribute counts must lie between 0 and the data set size")
    lo, pmf = c[0], np.array([1.0])
    for n in c[1:]:
        m = np.arange(lo, lo + pmf.size, dtype=float)
        k_lo = max(0, lo + n - N)
        k_hi = min(int(m[-1]), n)
        k = np.arange(k_lo, k_hi + 1, dtype=float)
        log_t = _lnc(m[:, None], k[None, :]) + _lnc(N - m[:, None], n - k[None, :]) - _lnc(N, n)
        new = pmf @ np.exp(log_t)
        lo, pmf = _trim(k_lo, new, tail)
    return lo, pmf


def rh_tail_ratio(population: int, counts, ks=KS) -> dict[int, float]:
    """P(X ≥ k) / P(X ≥ 1) under rH for each k (1 when the tuple cannot be absent and k ≤ min n)."""
    lo, pmf = rh_pmf(population, counts)
    vals = lo + np.arange(pmf.size)
    present = float(pmf[vals >= 1].sum())
    out = {}
    for k in ks:
        if present <= 0.0:
            out[int(k)] = 0.0  # the tuple is all but impossible: if it is there, it is alone
        else:
            out[int(k)] = min(1.0, float(pmf[vals >= k].sum()) / present)
    return out


def binomial_params(population: int, counts) -> tuple[int, float]:
    """The binomial approximation B(n_d, P_{d−1}) with the smallest count as n_d (see module notes)."""
    c = sorted(int(x) for x in counts)
    N = float(population)
    n_d = c[0]
    if len(c) == 1:
        return n_d, 1.0
    logp = float(np.sum(np.log(np.asarray(c[1:], dtype=float)))) - (len(c) - 1) * math.log(N)
    return n_d, math.exp(logp)


def binomial_pmf(population: int, counts) -> tuple[int, np.ndarray]:
    n_d, p = binomial_params(population, counts)
    k = np.arange(n_d + 1)
    return 0, binom.pmf(k, n_d, p)


def binomial_tail_ratio(population: int, counts, ks=KS) -> dict[int, float]:
    n_d, p = binomial_params(population, counts)
    present = float(binom.sf(0, n_d, p))
    out = {}
    for k in ks:
        out[int(k)] = 0.0 if present <= 0.0 else min(1.0, float(binom.sf(k - 1, n_d, p)) / present)
    return out


def _binomial_ratios(n_d: np.ndarray, p: np.ndarray, ks) -> dict[int, np.ndarray]:
    present = binom.sf(0, n_d, p)
    out = {}
    with np.errstate(invalid="ignore", divide="ignore"):
        for k in ks:
            r = binom.sf(k - 1, n_d, p) / present
            out[int(k)] = np.where(present > 0, np.minimum(r, 1.0), 0.0)
    return out


def attribute_counts(codes: np.ndarray) -> np.ndarray:
    """n_j for every record and attribute: how many records share the record's value of column j."""
    codes = np.asarray(codes)
    out = np.empty(codes.shape, dtype=np.int64)
    for j in range(codes.shape[1]):
        cnt = np.bincount(codes[:, j])
        out[:, j] = cnt[codes[:, j]]
    return out


#: Elements of the (batch × support × support) transition arrays per block.
BLOCK_ELEMENTS = 4_000_000


def _batched_ratios(N: int, counts: np.ndarray, ks) -> dict[int, np.ndarray]:
    """rH tail ratios P(X ≥ k) / P(X ≥ 1) for many sorted count vectors at once (same result as rh_tail_ratio).

    Rows of ``counts`` are sorted ascending and distinct; the recursion runs depth by depth over
    the distinct prefixes (rows sharing their smallest counts share the first steps), for blocks of
    prefixes together, each pmf held on its own window [lo, lo + W), trimmed like :func:`rh_pmf`.  The ratios are direct sums of the last pmf (a difference
    such as P(X ≥ 1) − P(X = 1) would lose every digit when P(X ≥ 2 | X ≥ 1) is tiny).
    """
    lf = gammaln(np.arange(N + 2, dtype=float) + 1.0)  # ln m!

    def log_hyper(m, k, n):
        """ln P(k | m) of the hypergeometric step, on the grid m (B, W) × k (B, K); n (B, 1); −inf if impossible.

        ln C(m, k) + ln C(N − m, n − k) − ln C(N, n), split into a part of m, a part of k and the two
        factorials of differences, so only two gathers run on the whole grid.
        """
        part_m = lf[m] + lf[N - m]
        nk = n - k
        part_k = -lf[np.minimum(k, N)] - lf[np.maximum(nk, 0)]  # k > n is masked below
        const = lf[N] - lf[n] - lf[N - n]
        d1 = m[:, :, None] - k[:, None, :]                   # m − k
        d2 = (N - n)[:, :, None] - d1                        # N − m − n + k
        out = (part_m[:, :, None] + part_k[:, None, :] - (const[:, :, None])
               - lf[np.clip(d1, 0, N)] - lf[np.clip(d2, 0, N)])
        ok = (d1 >= 0) & (d2 >= 0) & (nk >= 0)[:, None, :]
        return np.where(ok, out, -np.inf)

    kmax = int(max(ks))
    B, d = counts.shape
    out = {int(k): np.empty(B) for k in ks}
    if d == 1:  # the tuple count is the attribute count itself
        for kk in ks:
            out[int(kk)][:] = (counts[:, 0] >= kk).astype(float)
        return out
    # Depth by depth over the distinct prefixes n_(1) … n_(j+1): rows that share their smallest
    # counts share the (widest, costliest) first steps.  A prefix's pmf lives on [lo, lo + w).
    prev_pmf = prev_lo = prev_w = prev_of_row = None
    with np.errstate(invalid="ignore", divide="ignore", over="ignore"):
        for j in range(1, d):
            last = j == d - 1
            if last:
                pref, row_of = counts, np.arange(B)
            else:
                pref, row_of = np.unique(counts[:, :j + 1], axis=0, return_inverse=True)
                row_of = row_of.ravel()
            U = pref.shape[0]
            if j == 1:
                parent = None
                mean2 = pref[:, 0] * pref[:, 1] / N
                width = np.minimum(pref[:, 0] + 1.0, 24.0 * np.sqrt(mean2) + 61.0)
                cost = width
            else:
                rep = np.empty(U, dtype=np.int64)
                rep[row_of] = np.arange(B)            # one row having each prefix
                parent = prev_of_row[rep]
                width = prev_w[parent].astype(float)
                cost = width * np.maximum(width, kmax)
            order = np.argsort(cost, kind="stable")
            new_lo = np.zeros(U, dtype=np.int64)
            new_w = np.ones(U, dtype=np.int64)
            blocks = []
            start = 0
            while start < U:
                size = min(U - start, 16384)
                while size > 1 and size * cost[order[start + size - 1]] > BLOCK_ELEMENTS:
                    size //= 2
                idx_u = order[start:start + size]
                start += size
                c = pref[idx_u].astype(np.int64)
                if parent is None:
                    lo = c[:, 0].copy()
                    pmf = np.ones((idx_u.size, 1))
                else:
                    par = parent[idx_u]
                    W = int(prev_w[par].max())
                    lo = prev_lo[par]
                    pmf = prev_pmf[par, :W]
                n = c[:, j][:, None]
                W = pmf.shape[1]
                m = np.minimum(lo[:, None] + np.arange(W)[None, :], N)  # past a row's own width its pmf is 0
                k_lo = np.maximum(0, lo + c[:, j] - N)
                k_hi = np.minimum(lo + W - 1, c[:, j])
                if j == 1:  # from a point mass: only the hypergeometric's window of mass > 1e-20 on each side
                    mu = lo * c[:, j] / N
                    sd = np.sqrt(mu * (1.0 - c[:, j] / N) * (N - lo) / max(N - 1, 1))
                    k_lo = np.maximum(k_lo, np.floor(mu - 12.0 * sd - 30.0).astype(np.int64))
                    k_hi = np.minimum(k_hi, np.ceil(mu + 12.0 * sd + 30.0).astype(np.int64))
                Wk = int(np.max(k_hi - k_lo)) + 1
                k = k_lo[:, None] + np.arange(Wk)[None, :]
                new = np.einsum("bs,bst->bt", pmf, np.exp(log_hyper(m, k, n)))
                present = np.where(k >= 1, new, 0.0).sum(axis=1)
                if last:  # the tuple's count: the ratios by direct sums (no cancellation)
                    for kk in ks:
                        tail_k = np.where(k >= kk, new, 0.0).sum(axis=1)
                        out[int(kk)][idx_u] = np.where(present > 0, np.clip(tail_k / present, 0.0, 1.0), 0.0)
                    continue
                # trim as _trim: left tail < TAIL, right tail < TAIL · P(X ≥ 1), values ≤ kmax kept
                cl = np.cumsum(new, axis=1)
                cr = np.cumsum(new[:, ::-1], axis=1)
                left = np.minimum((cl < TAIL).sum(axis=1), Wk - 1)
                right = np.where(present > 0, (cr < TAIL * present[:, None]).sum(axis=1), 0)
                right = np.minimum(right, np.maximum(0, Wk - 1 - (kmax - k_lo)))
                wid = np.maximum(Wk - right - left, 1)
                Wn = int(wid.max())
                idx = left[:, None] + np.arange(Wn)[None, :]
                valid = idx < (left + wid)[:, None]
                blocks.append((idx_u, np.where(valid, np.take_along_axis(new, np.minimum(idx, Wk - 1), axis=1), 0.0)))
                new_lo[idx_u] = k_lo + left
                new_w[idx_u] = wid
            if last:
                break
            prev_pmf = np.zeros((U, int(new_w.max())))
            for idx_u, block in blocks:
                prev_pmf[idx_u, :block.shape[1]] = block
            prev_lo, prev_w, prev_of_row = new_lo, new_w, row_of
    return out


def risks(codes: np.ndarray, ks=KS) -> dict:
    """Per record: P(k-indistinguishable) for each k, exact (rH) and binomial; the risk is 1 − that."""
    codes = np.asarray(codes)
    n = codes.shape[0]
    if n < 2:
        raise InputError("TFRR needs at least two records")
    counts = np.sort(attribute_counts(codes), axis=1)
    uniq, inv = np.unique(counts, axis=0, return_inverse=True)
    inv = inv.ravel()
    exact = _batched_ratios(n, uniq, ks)
    n_d = uniq[:, 0].astype(float)
    if uniq.shape[1] > 1:
        p = np.exp(np.sum(np.log(uniq[:, 1:].astype(float)), axis=1) - (uniq.shape[1] - 1) * math.log(n))
    else:
        p = np.ones(uniq.shape[0])
    approx = _binomial_ratios(n_d, p, ks)
    return {
        "k_indistinguishable": {k: v[inv] for k, v in exact.items()},
        "k_indistinguishable_binomial": {k: v[inv] for k, v in approx.items()},
        "distinct_count_vectors": int(uniq.shape[0]),
    }


def analyse_tfrr(codes: np.ndarray, class_size: np.ndarray, ks=KS) -> dict:
    """TFRR scores of every record and their AUCs against the empirical class sizes (paper's evaluation).

    ``risk`` is 1 − P(2-indistinguishable), the probability of being unique; ``auc`` is its AUC for
    "the record is unique in the data set" (``auc_binomial`` for the approximation); ``auc_k``
    gives, for each k, the AUC of 1 − P(k-indistinguishable) for "the record's class has fewer than
    k records".
    """
    r = risks(codes, ks)
    size = np.asarray(class_size)
    ex, bi = r["k_indistinguishable"], r["k_indistinguishable_binomial"]
    auc_k = {str(k): roc_auc(1.0 - ex[k], size < k) for k in ex}
    auc_kb = {str(k): roc_auc(1.0 - bi[k], size < k) for k in bi}
    risk = 1.0 - ex[2] if 2 in ex else None
    risk_b = 1.0 - bi[2] if 2 in bi else None
    return {
        "risk": risk, "risk_binomial": risk_b,
        "auc": auc_k.get("2"), "auc_binomial": auc_kb.get("2"),
        "auc_k": auc_k, "auc_k_binomial": auc_kb,
        "max_abs_difference": float(np.max(np.abs(risk - risk_b))) if risk is not None else None,
        "distinct_count_vectors": r["distinct_count_vectors"],
        "k_indistinguishable": ex, "k_indistinguishable_binomial": bi,
    }
