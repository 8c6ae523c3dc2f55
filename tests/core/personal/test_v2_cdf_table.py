"""v2 band probabilities differenced from one CDF table per body group (the browser gets slices of it).

The personal page's v2 numbers are computed in the browser from the same table
(``public_tables.joint_cdf``), so a cell must have the same bits whoever asks for it
and in whatever batch; and the table must still be the bivariate normal.
"""
from __future__ import annotations

import math

import numpy as np
import pytest
from scipy.stats import multivariate_normal

from dashboard.core import bvn
from dashboard.core import country as body_model
from dashboard.core.body import V2_EDGE_SDS
from dashboard.core.personal import public_tables


@pytest.fixture(scope="module")
def us():
    return body_model.load_country_model("US").with_model("v2")


def _direct(m, g, hb, wb):
    hm, hs, mu, sigma, rho = m.v2_params()
    z = [(np.array([x], float) - hm[g]) / hs[g] for x in hb] + [(np.log(np.array([x], float)) - mu[g]) / sigma[g] for x in wb]
    return float(bvn.rectangle(*z, rho[g])[0])


def test_table_rectangles_equal_the_bivariate_normal(us):
    hm, hs, mu, sigma, rho = us.v2_params()
    P = us.group_cell_table([(165, 170), (180, 185)], [(60, 65), (90, 100)])
    for g in (0, len(us.body) - 1):
        for i, hb in enumerate([(165, 170), (180, 185)]):
            for j, wb in enumerate([(60, 65), (90, 100)]):
                cov = [[1, rho[g]], [rho[g], 1]]
                mvn = multivariate_normal(mean=[0, 0], cov=cov)
                zh = [(x - hm[g]) / hs[g] for x in hb]
                zw = [(math.log(x) - mu[g]) / sigma[g] for x in wb]
                ref = (mvn.cdf([zh[1], zw[1]]) - mvn.cdf([zh[0], zw[1]]) - mvn.cdf([zh[1], zw[0]])
                       + mvn.cdf([zh[0], zw[0]]))
                assert P[g, i, j] == pytest.approx(ref, abs=2e-7)  # scipy's own accuracy (QMC)
                assert P[g, i, j] == pytest.approx(_direct(us, g, hb, wb), rel=1e-12, abs=1e-16)


def test_a_cell_has_the_same_bits_alone_and_in_a_batch(us):
    alone = us.group_cell_table([(170, 175)], [(70, 75)])[:, 0, 0]
    many = us.group_cell_table([(150, 155), (170, 175), None, (200, 210)], [(40, 41), (70, 75), None])[:, 1, 1]
    some = us.group_cell_table([(170, 175)], [(70, 75)], groups=[3, 1])[:, 0, 0]
    assert np.array_equal(alone, many)
    assert np.array_equal(some, alone[[3, 1]])


def test_bvn_cdf_of_a_point_does_not_depend_on_its_batch():
    rng = np.random.default_rng(3)
    x, y = rng.normal(size=500), rng.normal(size=500)
    for rho in (0.1, 0.5, 0.9, 0.95):
        batch = bvn.bvn_cdf(x, y, rho)
        assert all(bvn.bvn_cdf(x[i:i + 1], y[i:i + 1], rho)[0] == batch[i] for i in (0, 17, 499))
    mixed = bvn.bvn_cdf(x, y, np.where(np.arange(500) % 2, 0.1, 0.8))
    assert bvn.bvn_cdf(x[1:2], y[1:2], np.array([0.1]))[0] == mixed[1]


def test_edges_beyond_the_range_count_as_infinite(us):
    g = 0
    hm, hs, *_ = us.v2_params()
    far = math.ceil(hm[g] + (V2_EDGE_SDS + 0.5) * hs[g])
    edges = us.v2_edges("height", g)
    assert edges.min() >= hm[g] - V2_EDGE_SDS * hs[g] and edges.max() <= hm[g] + V2_EDGE_SDS * hs[g]
    rows = us.v2_rows("height", g, np.array([-math.inf, far, math.inf]))
    assert rows.tolist() == [0, len(edges) + 1, len(edges) + 1]
    # a band wholly beyond: nobody; a band straddling the limit: everyone above its lower edge
    assert us.group_cell_table([(far, far + 5)], [(60, 70)])[g, 0, 0] == 0.0
    lo = int(edges.max()) - 2
    straddle = us.group_cell_table([(lo, far)], [None, (60, 70)])[g, 0]
    assert straddle[1] == pytest.approx(_direct(us, g, (lo, math.inf), (60, 70)), rel=1e-9, abs=1e-18)


def test_an_edge_off_the_whole_unit_grid_is_computed_directly(us):
    assert us.v2_rows("height", 0, np.array([170.5])) is None
    P = us.group_cell_table([(170.5, 175.5)], [(70, 75)])
    for g in (0, 5):
        assert P[g, 0, 0] == pytest.approx(_direct(us, g, (170.5, 175.5), (70, 75)), rel=1e-13)


def test_the_browser_slice_holds_the_cores_numbers(us):
    t = public_tables("US", "v2", 5, 5)["body"]["joint_cdf"]
    eh, ew = t["edges"]["height"], t["edges"]["weight"]
    for g in (0, 7):
        q = t["groups"][g]
        F = np.array(q["F"]).reshape(q["nh"], q["nw"])
        i0, i1 = q["h"][eh.index(170)], q["h"][eh.index(175)]
        j0, j1 = q["w"][ew.index(70)], q["w"][ew.index(75)]
        cell = max(F[i1, j1] - F[i0, j1] - F[i1, j0] + F[i0, j0], 0.0)
        assert cell == us.group_cell_table([(170, 175)], [(70, 75)])[g, 0, 0]
        assert F[0].max() == 0.0 and F[:, 0].max() == 0.0 and F[-1, -1] == 1.0
    assert public_tables("US", "paper", 5, 5)["body"]["joint_cdf"] is None
