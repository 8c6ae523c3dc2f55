"""``group_cell_table`` (v2) gathers every body group's rectangles in one step (issue 25: ~500 profile reports in
the engine-parity tests went through a loop over groups).  The cells must keep their bits: the browser differences
the same CDF tables, so the vectorised version is checked bit for bit against the former loop, kept here only."""
from __future__ import annotations

import math

import numpy as np
import pytest
from support.synthetic import make_population, make_priors

from dashboard.core import bvn
from dashboard.core.body import V2_EDGE_SDS
from dashboard.core.country import CountryModel, load_country_model


def reference_table(m, height_bands, weight_bands, groups=None) -> np.ndarray:
    """The former v2 ``group_cell_table``: one group at a time, each from its own freshly computed CDF table
    (a side with every band withheld is the product of the marginals, unchanged)."""
    if not any(b is not None for b in height_bands) or not any(b is not None for b in weight_bands):
        ph = np.stack([m.group_interval("height", b) for b in height_bands], axis=1)
        pw = np.stack([m.group_interval("weight", b) for b in weight_bands], axis=1)
        out = ph[:, :, None] * pw[:, None, :]
        return out if groups is None else out[np.asarray(groups)]
    inf = math.inf
    h0 = np.array([-inf if b is None else b[0] for b in height_bands], float)
    h1 = np.array([inf if b is None else b[1] for b in height_bands], float)
    w0 = np.array([0.0 if b is None else b[0] for b in weight_bands], float)
    w1 = np.array([inf if b is None else b[1] for b in weight_bands], float)
    gs = range(len(m.body)) if groups is None else np.asarray(groups).tolist()
    return np.stack([_reference_rectangles(m, int(g), h0, h1, w0, w1) for g in gs]) if len(gs) else \
        np.empty((0, len(h0), len(w0)))


def _z(m, kind, g, x):
    hm, hs, mu, sigma, _ = m.v2_params()
    x = np.asarray(x, float)
    if kind == "height":
        return (x - hm[g]) / hs[g]
    with np.errstate(divide="ignore", invalid="ignore"):
        logs = np.where(x > 0, np.log(np.where(x > 0, x, 1.0)), -np.inf)
    return (logs - mu[g]) / sigma[g]


def _reference_rows(m, kind, g, x):
    edges = m.v2_edges(kind, g)
    z = _z(m, kind, g, x)
    pos = np.searchsorted(edges, x)
    found = (pos < len(edges)) & (edges[np.minimum(pos, len(edges) - 1)] == x)
    below, above = z < -V2_EDGE_SDS, z > V2_EDGE_SDS
    if not np.all(found | below | above):
        return None
    return np.where(below, 0, np.where(above, len(edges) + 1, pos + 1))


def _reference_rectangles(m, g, h0, h1, w0, w1):
    rows = [_reference_rows(m, "height", g, h) for h in (h0, h1)]
    cols = [_reference_rows(m, "weight", g, w) for w in (w0, w1)]
    rho = m.v2_params()[4][g]
    if any(r is None for r in rows + cols):
        z = [_z(m, "height", g, h)[:, None] for h in (h0, h1)] + [_z(m, "weight", g, w)[None, :] for w in (w0, w1)]
        return bvn.rectangle(*z, rho)
    F = reference_cdf(m, g)
    (i0, i1), (j0, j1) = rows, cols
    return np.maximum(F[i1][:, j1] - F[i0][:, j1] - F[i1][:, j0] + F[i0][:, j0], 0.0)


_CDFS: dict = {}


def reference_cdf(m, g):
    """Group ``g``'s CDF table computed alone, as the former ``v2_cdf`` did (kept per model for the test's speed)."""
    key = (id(m), g)
    if key not in _CDFS:
        inf = np.array([math.inf])
        zh = np.concatenate([-inf, _z(m, "height", g, m.v2_edges("height", g)), inf])
        zw = np.concatenate([-inf, _z(m, "weight", g, m.v2_edges("weight", g)), inf])
        _CDFS[key] = (m, bvn.bvn_cdf(zh[:, None], zw[None, :], float(m.v2_params()[4][g])))
    return _CDFS[key][1]


def same_bits(a, b):
    a, b = np.asarray(a), np.asarray(b)
    assert a.shape == b.shape and a.dtype == b.dtype
    assert a.tobytes() == b.tobytes(), f"{np.sum(a != b)} cells differ, largest {np.nanmax(np.abs(a - b)):.3g}"


#: Band sets: a profile's band with its widenings and withholdings, the what-if rows of one kind, bands beyond
#: ±7 SD, a weight band from 0, off-grid edges (half centimetres: straight from the CDF), and one cell.
BANDS = {
    "profile": ([(170, 175), (165, 180), None], [(70, 75), (60, 80), None]),
    "what-if heights": ([(float(a), float(a + 5)) for a in range(140, 210, 5)], [(70, 75)]),
    "what-if weights": ([(160, 165)], [(float(a), float(a + 2)) for a in range(40, 140, 2)]),
    "withheld height": ([None], [(70, 75), (90, 95)]),
    "far": ([(30, 40), (250, 260), (-math.inf, 100)], [(0, 10), (400, 500)]),
    "from zero": ([(160, 170)], [(0, 50), (0, math.inf)]),
    "off the grid": ([(170.5, 175.5), (150, 150.25), (170, 175)], [(70, 75), (70.5, 71)]),
    "one cell": ([(180, 185)], [(90, 95)]),
}


@pytest.fixture(scope="module", params=["DE", "US", "GB", "AD"])
def model(request):
    return load_country_model(request.param).with_model("v2")


@pytest.mark.parametrize("bands", list(BANDS))
def test_the_vectorised_table_has_the_former_loops_bits(model, bands):
    hb, wb = BANDS[bands]
    same_bits(model.group_cell_table(hb, wb), reference_table(model, hb, wb))


@pytest.mark.parametrize("groups", [[3, 1], [0], [0, 0, 2], [-1], []])
def test_chosen_groups_have_the_former_loops_bits(model, groups):
    hb, wb = BANDS["off the grid"]
    same_bits(model.group_cell_table(hb, wb, groups=groups), reference_table(model, hb, wb, groups))
    same_bits(model.group_band_cells("height", np.arange(150.0, 200.0, 5.0), 5, (70, 75), groups=groups),
              reference_table(model, [(float(a), float(a + 5)) for a in range(150, 200, 5)], [(70, 75)],
                              groups)[:, :, 0])


def test_the_stacked_tables_are_each_groups_own(model):
    """``v2_cdf(g)`` is a read-only view of the one buffer, equal to the group's table computed alone."""
    for g in (0, len(model.body) - 1):
        F = model.v2_cdf(g)
        same_bits(F, reference_cdf(model, g))
        assert not F.flags.writeable


@pytest.mark.parametrize("people", [0.0, 1.0])
def test_hand_made_models_with_no_one_or_one_person_agree(people):
    """Body probabilities do not read the counts, but a census of nobody (or of one person) must still answer."""
    pop = make_population()
    pop["count"] = 0.0
    pop.loc[pop.index[len(pop) // 2], "count"] = people
    m = CountryModel.from_frames("XX", pop, make_priors(), name="Testland", model="v2")
    assert m.census_counts.sum() == people
    for hb, wb in BANDS.values():
        same_bits(m.group_cell_table(hb, wb), reference_table(m, hb, wb))
