"""Band probabilities of a :class:`~dashboard.core.body.CountryModel`, paper and v2 (SPEC §1.1, §1.6).

A mixin: :class:`~dashboard.core.body.CountryModel` inherits these methods; they read
``body``, ``body_weights``, ``body_model`` and the v2 options of the model and keep their
results in its memo.  Module names of :mod:`.body_model` are read at call time (this
module is imported while that one is being defined).
"""
from __future__ import annotations

import math
from collections.abc import Sequence

import numpy as np

from .. import bvn
from ..text import N_, local_number, translate_marked
from ..text import gettext as _
from ._bands import BAND_LIMITS, BAND_WIDTHS, PROFILE_SDS, BandGrid, JointBands, band_matrix, interval_probability
from ._correlation import nhanes_correlation, rho_for_groups
from ._v2 import GRID_LOG_SDS, coverage_mask, lognormal_params, safe_log, self_report_offsets

#: v2: a band edge further than this many SDs from a body group's mean (height, or ln weight)
#: counts as ±∞ — Φ(−7) ≈ 1.3e-12 of the group lies beyond; it bounds the CDF tables the
#: core and the browser share (:meth:`BandProbabilities.v2_cdf`).
V2_EDGE_SDS: float = 7.0


#: The joints a model keeps (most recently used; the process's byte budget still applies): the bucket advisor's
#: whole ladder of 5 × 5 widths and one more, so a second advice on a data set (another k or coverage) finds every
#: grid again — with 6 kept, a walk over 25 evicted each grid before its next use and every advice remade all 25.
JOINTS_KEPT = 26


class BandProbabilities:
    """Height × weight band probabilities per body group and per sex × age group."""


    @property
    def is_v2(self) -> bool:
        return self.body_model == "v2"

    def v2_params(self) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
        """``(height mean, height sd, μ, σ, ρ)`` per body group: ``(H, ln W)`` bivariate normal (v2).

        Height means include the cohort shift (:attr:`height_shift`) and, with
        :attr:`self_report_correction` on self-reported statistics, the NHANES
        self-report offsets; ``(μ, σ)`` match the log-normal to the weight mean and SD.
        """
        def make():
            hm = np.array(self.body.height_mean, float)
            wm = np.array(self.body.weight_mean, float)
            if self.height_shift is not None:
                hm = hm + self.height_shift
            if self.self_report_correction and self.body.self_reported:
                dh, dw = self_report_offsets(self.cache_root)
                hm, wm = hm - dh, wm - dw
            mu, sigma = lognormal_params(wm, self.body.weight_sd)
            table = self.correlation
            if table is None:

                table = nhanes_correlation(self.cache_root)

            rho = rho_for_groups(table, self.body.sex_index, self.body.age_lo, self.body.age_hi)
            out = (hm, np.array(self.body.height_sd, float), mu, sigma, rho)
            for a in out:
                a.setflags(write=False)
            return out

        return self.memo("v2_params", make)

    def _z(self, kind: str, x) -> np.ndarray:
        """Standardised v2 coordinates ``[g, ...]`` of heights (cm) or weights (kg, via ln)."""
        hm, hs, mu, sigma, _ = self.v2_params()
        x = np.asarray(x, float)
        shape = (-1,) + (1,) * x.ndim
        if kind == "height":
            return (x[None] - hm.reshape(shape)) / hs.reshape(shape)
        return (safe_log(x)[None] - mu.reshape(shape)) / sigma.reshape(shape)

    def grid(self, kind: str, width: float) -> BandGrid:
        """The aligned ``kind`` grid of ``width`` covering ±10 SD of every body group.

        v2: heights with the shifted means; weights also cover ±GRID_LOG_SDS of the
        log-normals (whose right tail reaches further than the normal's).
        """
        if not self.is_v2:
            means, sds = self.body.params(kind)
            return self.memo(("grid", kind, float(width)), lambda: BandGrid.covering(means, sds, float(width)))

        def make():
            hm, hs, mu, sigma, _ = self.v2_params()
            w = float(width)
            if kind == "height":
                return BandGrid.covering(hm, hs, w)
            lo = max(0.0, math.floor(float(np.min(np.exp(mu - GRID_LOG_SDS * sigma))) / w) * w)
            hi = math.ceil(float(np.max(np.exp(mu + GRID_LOG_SDS * sigma))) / w) * w
            return BandGrid(float(lo), w, round((hi - lo) / w))

        return self.memo(("grid_v2", kind, float(width)), make)

    def group_band_matrix(self, kind: str, width: float) -> np.ndarray:
        """``P[g, j]`` = probability of band ``j`` of :meth:`grid` for body group ``g``."""
        if not self.is_v2:
            means, sds = self.body.params(kind)
            return band_matrix(means, sds, self.grid(kind, width))
        hm, hs, mu, sigma, _ = self.v2_params()
        if kind == "height":
            return band_matrix(hm, hs, self.grid(kind, width))
        edges = self.grid(kind, width).edges
        return band_matrix(mu, sigma, BandGrid(0.0, 1.0, len(edges) - 1), safe_log(edges))

    def group_interval(self, kind: str, band: tuple[float, float] | None) -> np.ndarray:
        """``Pr_g[lo ≤ X < hi]`` for every body group; a withheld band (None) is 1."""
        if band is None:
            return np.ones(len(self.body))
        if not self.is_v2:
            means, sds = self.body.params(kind)
            return interval_probability(means, sds, band[0], band[1])
        hm, hs, mu, sigma, _ = self.v2_params()
        if kind == "height":
            return interval_probability(hm, hs, band[0], band[1])
        return interval_probability(mu, sigma, safe_log(band[0]), safe_log(band[1]))

    def group_cell(self, height_band: tuple[float, float] | None,
                   weight_band: tuple[float, float] | None) -> np.ndarray:
        """``Pr_g[h-band, w-band]`` for every body group (None = withheld).

        Paper: the product of the marginals.  v2: the bivariate-normal rectangle
        probability of ``(H, ln W)`` with the group's ρ.
        """
        return self.group_cell_table([height_band], [weight_band])[:, 0, 0]

    def group_cell_table(self, height_bands: Sequence, weight_bands: Sequence, groups=None) -> np.ndarray:
        """``P[g, i, j] = Pr_g[height_bands[i], weight_bands[j]]`` (None entries = withheld).

        ``groups`` (indices) restricts the rows computed to those body groups (the
        result then has one row per index).
        """
        if not self.is_v2 or not any(b is not None for b in height_bands) or not any(b is not None for b in weight_bands):
            ph = np.stack([self.group_interval("height", b) for b in height_bands], axis=1)
            pw = np.stack([self.group_interval("weight", b) for b in weight_bands], axis=1)
            out = ph[:, :, None] * pw[:, None, :]
            return out if groups is None else out[np.asarray(groups)]
        inf = math.inf
        h0 = np.array([-inf if b is None else b[0] for b in height_bands], float)
        h1 = np.array([inf if b is None else b[1] for b in height_bands], float)
        w0 = np.array([0.0 if b is None else b[0] for b in weight_bands], float)
        w1 = np.array([inf if b is None else b[1] for b in weight_bands], float)
        gs = np.arange(len(self.body)) if groups is None else np.asarray(groups, dtype=np.int64).reshape(-1)
        return self._v2_rectangles(gs, h0, h1, w0, w1)

    # ------------------------------------------------------------------ v2 rectangles from one CDF table

    def v2_edges(self, kind: str, g: int) -> np.ndarray:
        """Body group ``g``'s canonical finite band edges (v2): whole cm / kg within the input
        limits widened by the widest band, no further than :data:`V2_EDGE_SDS` from the mean."""
        def make():
            lo, hi = BAND_LIMITS[kind]
            pad = max(BAND_WIDTHS)
            x = np.arange(math.floor(lo - pad), math.ceil(hi + pad) + 1, dtype=float)
            x = x[np.abs(self._zg(kind, g, x)) <= V2_EDGE_SDS]
            x.setflags(write=False)
            return x

        return self.memo(("v2_edges", kind, int(g)), make)

    def _zg(self, kind: str, g: int, x: np.ndarray) -> np.ndarray:
        """v2 standardised coordinate of ``x`` for body group ``g`` alone."""
        hm, hs, mu, sigma, _ = self.v2_params()
        if kind == "height":
            return (np.asarray(x, float) - hm[g]) / hs[g]
        return (safe_log(x) - mu[g]) / sigma[g]

    def v2_cdf(self, g: int) -> np.ndarray:
        """``F[i, j] = Φ₂(z_h(i), z_w(j); ρ_g)`` on ``[−∞] + v2_edges + [+∞]`` of each kind.

        The one table every v2 band probability of the personal page is differenced from,
        in the core and (sliced, :mod:`.public_tables`) in the browser: one batch per
        group, so a cell has the same bits whoever asks for it.  A read-only view into
        :meth:`v2_cdf_stack`.
        """
        flat, offsets, nrows, ncols = self.v2_cdf_stack()
        g = int(g)
        return flat[offsets[g]:offsets[g] + nrows[g] * ncols[g]].reshape(int(nrows[g]), int(ncols[g]))

    def v2_cdf_stack(self) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
        """Every body group's :meth:`v2_cdf` table in one read-only buffer: ``(flat, offsets, nrows, ncols)``,
        group ``g``'s ``F[i, j]`` at ``flat[offsets[g] + i * ncols[g] + j]`` (memoised).

        Each table is still its own batch (one ``bvn_cdf`` call per group, the bits the browser gets); one
        buffer lets :meth:`group_cell_table` gather every group's corners in one indexing step.
        """
        def make():
            tables = []
            for g in range(len(self.body)):
                rho = float(self.v2_params()[4][g])
                inf = np.array([math.inf])
                zh = np.concatenate([-inf, self._zg("height", g, self.v2_edges("height", g)), inf])
                zw = np.concatenate([-inf, self._zg("weight", g, self.v2_edges("weight", g)), inf])
                tables.append(bvn.bvn_cdf(zh[:, None], zw[None, :], rho))
            nrows = np.array([F.shape[0] for F in tables], dtype=np.int64)
            ncols = np.array([F.shape[1] for F in tables], dtype=np.int64)
            offsets = np.concatenate([[0], np.cumsum(nrows * ncols)[:-1]]).astype(np.int64)
            flat = np.concatenate([F.ravel() for F in tables]) if tables else np.empty(0)
            out = (flat, offsets, nrows, ncols)
            for a in out:
                a.setflags(write=False)
            return out

        return self.memo("v2_cdf_stack", make)

    def v2_edge_spans(self, kind: str) -> tuple[np.ndarray, np.ndarray]:
        """Per body group, the first of its :meth:`v2_edges` and how many there are (memoised).

        The edges are consecutive whole units (a run of a 1-unit grid cut where ``|z|`` passes
        :data:`V2_EDGE_SDS`, ``z`` rising with the edge), so edge ``x`` is row ``x − first + 1``.
        """
        def make():
            firsts, counts = [], []
            for g in range(len(self.body)):
                edges = self.v2_edges(kind, g)
                if len(edges) and edges[-1] - edges[0] != len(edges) - 1:
                    raise RuntimeError(f"body group {g}'s {kind} edges are not consecutive whole units")
                firsts.append(edges[0] if len(edges) else math.nan)
                counts.append(len(edges))
            out = (np.array(firsts, float), np.array(counts, np.int64))
            for a in out:
                a.setflags(write=False)
            return out

        return self.memo(("v2_edge_spans", kind), make)

    def v2_rows(self, kind: str, g: int, x) -> np.ndarray | None:
        """Rows (height) or columns (weight) of :meth:`v2_cdf` for the edges ``x``.

        An edge further than :data:`V2_EDGE_SDS` below the mean is row 0 (−∞), above it
        the last row (+∞); ``None`` when an edge inside that range is not a whole unit
        (the caller then computes the rectangle directly).
        """
        x = np.asarray(x, float)
        edges = self.v2_edges(kind, g)
        z = self._zg(kind, g, x)
        pos = np.searchsorted(edges, x)
        found = (pos < len(edges)) & (edges[np.minimum(pos, len(edges) - 1)] == x)
        below, above = z < -V2_EDGE_SDS, z > V2_EDGE_SDS
        if not np.all(found | below | above):
            return None
        return np.where(below, 0, np.where(above, len(edges) + 1, pos + 1))

    def _v2_z(self, kind: str, gs: np.ndarray, x: np.ndarray) -> np.ndarray:
        """``[g, i]``: :meth:`_zg` of the edges ``x`` for each body group of ``gs`` (the same bits, one pass)."""
        hm, hs, mu, sigma, _ = self.v2_params()
        if kind == "height":
            return (x[None, :] - hm[gs][:, None]) / hs[gs][:, None]
        return (safe_log(x)[None, :] - mu[gs][:, None]) / sigma[gs][:, None]

    def _v2_table_rows(self, kind: str, gs: np.ndarray, x: np.ndarray, z: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """:meth:`v2_rows` for every body group of ``gs`` at once: ``(rows [g, i], on_grid [g])``; a group whose
        edges are not all on its table (``on_grid`` False) has meaningless rows."""
        firsts, counts = self.v2_edge_spans(kind)
        first, count = firsts[gs][:, None], counts[gs][:, None]
        below, above = z < -V2_EDGE_SDS, z > V2_EDGE_SDS
        with np.errstate(invalid="ignore"):
            pos = x[None, :] - first
            found = (x == np.floor(x))[None, :] & (pos >= 0) & (pos <= count - 1)
        pos = np.where(found, pos, 0.0).astype(np.int64)
        rows = np.where(below, 0, np.where(above, count + 1, pos + 1))
        return rows, np.all(found | below | above, axis=1)

    def _v2_rectangles(self, gs: np.ndarray, h0, h1, w0, w1) -> np.ndarray:
        """``P[g, i, j] = Pr_g[h0_i ≤ H < h1_i, w0_j ≤ W < w1_j]`` for the body groups ``gs``, by
        inclusion–exclusion on each group's :meth:`v2_cdf`, all groups in one gather.

        A group with an edge off its whole-unit table (and inside ±:data:`V2_EDGE_SDS`) is computed
        straight from the CDF, one group per batch as the table is (the quadrature rule follows the
        batch's largest ``|ρ|``).
        """
        out = np.empty((len(gs), len(h0), len(w0)))
        if not len(gs):
            return out
        zs = {name: self._v2_z(kind, gs, x) for name, kind, x in
              (("h0", "height", h0), ("h1", "height", h1), ("w0", "weight", w0), ("w1", "weight", w1))}
        (i0, ok_h0), (i1, ok_h1) = (self._v2_table_rows("height", gs, x, zs[n]) for n, x in (("h0", h0), ("h1", h1)))
        (j0, ok_w0), (j1, ok_w1) = (self._v2_table_rows("weight", gs, x, zs[n]) for n, x in (("w0", w0), ("w1", w1)))
        on_grid = ok_h0 & ok_h1 & ok_w0 & ok_w1
        if on_grid.any():
            flat, offsets, _, ncols = self.v2_cdf_stack()
            sel = np.flatnonzero(on_grid)
            base, width = offsets[gs[sel]][:, None, None], ncols[gs[sel]][:, None, None]

            def corner(i, j):
                return flat[base + i[sel][:, :, None] * width + j[sel][:, None, :]]

            out[sel] = np.maximum(corner(i1, j1) - corner(i0, j1) - corner(i1, j0) + corner(i0, j0), 0.0)
        rho = self.v2_params()[4]
        for k in np.flatnonzero(~on_grid):  # an edge off the whole-unit grid: straight from the CDF
            out[k] = bvn.rectangle(zs["h0"][k][:, None], zs["h1"][k][:, None], zs["w0"][k][None, :],
                                   zs["w1"][k][None, :], rho[gs[k]])
        return out

    def group_band_cells(self, kind: str, starts: np.ndarray, width: float,
                         other: tuple[float, float] | None, groups=None) -> np.ndarray:
        """``P[g, j] = Pr_g[kind ∈ [starts_j, starts_j + width), other kind ∈ other]`` (other None = withheld).

        ``groups`` (indices) restricts the rows to those body groups.
        """
        starts = np.asarray(starts, float)
        if groups is not None and (not self.is_v2 or other is None):
            return self.group_band_cells(kind, starts, width, other)[np.asarray(groups)]
        if not self.is_v2 or other is None:
            lo, hi = starts, starts + width
            if not self.is_v2:
                means, sds = self.body.params(kind)
                p = interval_probability(means[:, None], sds[:, None], lo[None, :], hi[None, :])
            else:
                hm, hs, mu, sigma, _ = self.v2_params()
                if kind == "height":
                    p = interval_probability(hm[:, None], hs[:, None], lo[None, :], hi[None, :])
                else:
                    p = interval_probability(mu[:, None], sigma[:, None], safe_log(lo)[None, :], safe_log(hi)[None, :])
            other_kind = "weight" if kind == "height" else "height"
            return p * self.group_interval(other_kind, other)[:, None]
        bands = [(float(a), float(a + width)) for a in starts]
        if kind == "height":
            return self.group_cell_table(bands, [other], groups)[:, :, 0]
        return self.group_cell_table([other], bands, groups)[:, 0, :]

    def marginal(self, kind: str, width: float) -> np.ndarray:
        """``[sex, age group, band]`` probabilities of one measurement on its grid."""
        def make():
            out = np.einsum("sag,gj->saj", self.body_weights, self.group_band_matrix(kind, width))
            out.setflags(write=False)
            return out

        return self.memo(("marginal", self.body_model, kind, float(width)), make)

    def group_joint(self, height_width: float = 5, weight_width: float = 5) -> np.ndarray:
        """``P[g, h, w]``: each body group's cell probabilities on the joint grid (memoised).

        Paper: outer products of the marginals.  v2: the bivariate normal CDF of
        ``(H, ln W)`` evaluated once on the grid of band edges, then inclusion–exclusion
        by array differencing (:func:`bvn.rectangle_grid`).
        """
        key = ("group_joint", self.body_model, float(height_width), float(weight_width))

        def make():
            hg, wg = self.grid("height", height_width), self.grid("weight", weight_width)
            ph = self.group_band_matrix("height", height_width)
            pw = self.group_band_matrix("weight", weight_width)
            if not self.is_v2:
                out = ph[:, :, None] * pw[:, None, :]
            else:
                rho = self.v2_params()[4]
                zh = self._z("height", hg.edges)
                zw = self._z("weight", wg.edges)
                out = np.empty((len(self.body), hg.n, wg.n))
                for g in range(len(self.body)):
                    out[g] = bvn.rectangle_grid(zh[g], zw[g], rho[g])
            out.setflags(write=False)
            return out

        return self.memo_lru("group_joints", key, make, maxsize=4)

    def joint(self, height_width: float = 5, weight_width: float = 5) -> JointBands:
        """Joint height × weight band probabilities per sex × age group (memoised).

        The SPEC mixture of the body groups' joint distributions, weighted by the
        years each covers: ``prob[s, a] = Σ_g W[s, a, g] · P_g[h, w]`` with
        :meth:`group_joint` (paper: independent normals within a group; v2: the
        bivariate normal of ``(H, ln W)``).  Sums to 1 over all bands within ~1e-12.
        Under v2 the bm.JointBands carry the coverage mask (≥ COVERAGE of each group).
        """
        key = ("joint", self.body_model, float(height_width), float(weight_width))

        def make():
            hg, wg = self.grid("height", height_width), self.grid("weight", weight_width)
            pg = self.group_joint(height_width, weight_width)
            ns, na, _ = self.body_weights.shape
            prob = np.empty((ns, na, hg.n, wg.n))
            for s in range(ns):
                for a in range(na):
                    w = self.body_weights[s, a]
                    used = np.flatnonzero(w > 0)
                    prob[s, a] = np.tensordot(w[used], pg[used], axes=(0, 0))
            prob.setflags(write=False)
            if self.is_v2:
                hm, hs, mu, sigma, _ = self.v2_params()
                cov = coverage_mask(prob)
                cov.setflags(write=False)
                return JointBands(hg, wg, prob, model="v2", coverage=cov)
            hm, hs = self.body.params("height")
            wm, ws = self.body.params("weight")
            return JointBands(hg, wg, prob, self.core_range("height"), self.core_range("weight"),
                              self.group_core_ranges("height"), self.group_core_ranges("weight"),
                              (hm, hs, wm, ws, self.body_weights > 0), model="paper")

        return self.memo_lru("joints", key, make, maxsize=JOINTS_KEPT)

    def core_range(self, kind: str) -> tuple[float, float]:
        """[lo, hi] of ±bm.PROFILE_SDS around every body group's mean (the realistic range)."""
        means, sds = self.body.params(kind)
        return float(np.min(means - PROFILE_SDS * sds)), float(np.max(means + PROFILE_SDS * sds))

    def group_core_ranges(self, kind: str) -> np.ndarray:
        """``[s, a, (lo, hi)]``: ±bm.PROFILE_SDS of the body groups each sex × age group mixes (read-only).

        From the lowest ``mean − bm.PROFILE_SDS·sd`` to the highest ``mean + bm.PROFILE_SDS·sd``
        over the body groups with ``body_weights[s, a, g] > 0`` — the realistic range of
        that census group, which bounds its profile grid (:meth:`bm.JointBands.profile_mask_by_group`).
        """
        def make():
            means, sds = self.body.params(kind)
            used = self.body_weights > 0
            lo = np.where(used, (means - PROFILE_SDS * sds)[None, None, :], np.inf).min(axis=2, initial=np.inf)
            hi = np.where(used, (means + PROFILE_SDS * sds)[None, None, :], -np.inf).max(axis=2, initial=-np.inf)
            out = np.stack([lo, hi], axis=-1)
            out.setflags(write=False)
            return out

        return self.memo(("group_core", kind), make)

    def cell_probability(
        self, height_band: tuple[float, float] | None, weight_band: tuple[float, float] | None
    ) -> np.ndarray:
        """``[sex, age group]`` probability of one height × weight cell (None = withheld)."""
        return self.body_weights @ self.group_cell(height_band, weight_band)

    def model_notes(self) -> tuple[str, ...]:
        """What the interface says about the body model in use (SPEC §1.6), in the current language (English for
        the CLI and the shared public tables; a page's own language on the page: issue 31)."""
        if not self.is_v2:
            return (_("Body model: paper (height and weight independent normals; cells with a BMI outside "
                      "{lo}–{hi} at their centre are left out of aggregates).").format(
                lo=local_number("17"), hi=local_number("30")),)
        if self.correlation is not None and "NCD-RisC" in getattr(self, "body_note", ""):
            notes = [_("Body model v2: height and ln(weight) bivariate normal per sex × age group; weight "
                       "log-normal with the mean and SD of BMI × height² (NCD-RisC BMI, NHANES height–BMI "
                       "dependence), correlation of that model; no cell is left out.")]
        else:
            notes = [_("Body model v2: height and ln(weight) bivariate normal per sex × age group, correlation "
                       "estimated from NHANES 2017–2018 (used for every country); weight log-normal with the "
                       "survey's mean and SD; no cell is left out.")]
        if self.height_shift_note:
            notes.append(self.height_shift_note)
        if self.self_report_correction and self.body.self_reported:
            dh, dw = self_report_offsets(self.cache_root)
            notes.append(self_report_note(dh, dw))
        elif self.body.self_reported:
            notes.append(_("The body statistics are self-reported (not corrected; the option corrects them)."))
        return tuple(notes)


#: The self-report correction's note; the personal page's JavaScript writes the same msgid with the same numbers.
SELF_REPORT_NOTE = N_("Self-reported body statistics corrected to measured ones (NHANES: self-reported height "
                      "{height} cm, weight {weight} kg against measured).")


def self_report_note(dh: float, dw: float) -> str:
    """The self-report correction in words, in the current language: the offsets signed, to a tenth."""
    return translate_marked(SELF_REPORT_NOTE).format(height=_signed(dh), weight=_signed(dw))


def _signed(x: float) -> str:
    """``+1.3`` / ``-0.5`` in English (as the CLI always wrote it), the language's digits elsewhere (``+1,3``)."""
    text = f"{x:+.1f}"
    return "+" + local_number(text[1:]) if text.startswith("+") else local_number(text)
