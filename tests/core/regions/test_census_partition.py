"""The census partition (SPEC §3, "From a census"): chunked counts of counts vs a materialised grid."""
from __future__ import annotations

import json
import math

import numpy as np
import pytest

from dashboard.core import regions as ag
from dashboard.core import scaling
from dashboard.core.errors import InputError
from dashboard.core.regions import Scenario, UserPercent
from dashboard.core.regions import testing as regions_testing

#: A few German districts of very different sizes: Berlin, Munich, Flensburg, Zweibrücken.
DISTRICTS = ("11000", "09162", "01001", "07320")


def _brute(scenario: Scenario, code: str, districts) -> tuple[np.ndarray, np.ndarray, float, int]:
    """Materialise every cell of the districts, round half up, count the counts."""
    grid, mask, _ = regions_testing.reference_grid(scenario, code, districts, per_group=True)
    cells = grid[:, mask].ravel()  # mask [s, a, h, w]: each group's own profile grid
    rounded = np.floor(cells + 0.5).astype(np.int64)
    sizes, mult = np.unique(rounded[rounded > 0], return_counts=True)
    return sizes, mult, float(cells.sum()), cells.size


def _chunked(scenario: Scenario, code: str, districts, **kw):
    b = ag.bind(scenario, code)
    return scaling.partition_of(b.N[np.asarray(districts)], b.cells.q, b.cells.valid, **kw)


@pytest.fixture(scope="module")
def de_idx(cache_root):
    from dashboard.core.country import load_country_model

    model = load_country_model("DE")
    return [model.district_index(d) for d in DISTRICTS]


@pytest.mark.parametrize("scenario", [
    Scenario(countries=("DE",)),
    Scenario(countries=("DE",), sexes=("female",), ages=(30, 60), height_width=2, weight_width=10),
    Scenario(countries=("DE",), include_body=False),
    Scenario(countries=("DE",), aux=(UserPercent("uses app X", percent=3.0),)),
], ids=["default", "female-30-60-2cm-10kg", "no-body", "aux-3pct"])
@pytest.mark.parametrize("chunk, dense", [(scaling.CHUNK_CELLS, scaling.DENSE_MAX), (300, 7)], ids=["defaults", "tiny"])
def test_counts_of_counts_match_the_materialised_grid(de_idx, scenario, chunk, dense):
    sizes, mult, expected, n_cells = _brute(scenario, "DE", de_idx)
    got_sizes, got_mult, tot = _chunked(scenario, "DE", de_idx, chunk_cells=chunk, dense_max=dense)
    np.testing.assert_array_equal(got_sizes, sizes)
    np.testing.assert_array_equal(got_mult, mult)
    # mass: the rounded sets hold exactly the brute-force rounded people; Σ CAS is kept
    assert int(np.dot(got_sizes, got_mult)) == int(np.dot(sizes, mult))
    assert tot["cells"] == n_cells
    assert math.isclose(tot["expected"], expected, rel_tol=1e-12)
    assert abs(np.dot(sizes, mult) - expected) <= 0.5 * n_cells
    assert tot["zero_mass"] < 0.5 * tot["zero_cells"] + 1e-9


def test_whole_country_mass_is_conserved(cache_root):
    s = Scenario(countries=("DE",))
    part = scaling.census_partition(s, "DE")
    b = ag.bind(s, "DE")
    plausible = float((b.N * b.cells.Q1[None]).sum())
    assert math.isclose(part.expected, plausible, rel_tol=1e-10)
    assert part.records == int(np.dot(part.sizes, part.multiplicities))
    assert abs(part.records - part.expected) <= 0.5 * part.n_cells
    assert part.n_cells == b.N.shape[0] * int(b.cells.n_valid.sum())
    assert part.n_sets + part.zero_cells == part.n_cells
    assert np.all(np.diff(part.sizes) > 0) and part.sizes[0] >= 1
    assert scaling.census_partition(s, "DE") is part  # memoised


def test_large_sizes_take_the_sparse_path_exactly():
    rng = np.random.default_rng(3)
    N = rng.uniform(0, 5e6, size=(7, 2, 3))
    q = rng.dirichlet(np.ones(5), size=(2, 3))
    sizes, mult, _ = scaling.partition_of(N, q, chunk_cells=4, dense_max=100)
    full = np.floor(N[:, :, :, None] * q[None] + 0.5).astype(np.int64).ravel()
    u, c = np.unique(full[full > 0], return_counts=True)
    np.testing.assert_array_equal(sizes, u)
    np.testing.assert_array_equal(mult, c)
    assert sizes.max() > 100
    # cells outside a group's own grid are no cells: neither sets nor zero cells
    valid = rng.random(q.shape) > 0.3
    sizes, mult, tot = scaling.partition_of(N, q, valid, chunk_cells=4, dense_max=100)
    full = np.floor(N[:, :, :, None] * q[None] + 0.5).astype(np.int64)[:, valid]
    u, c = np.unique(full[full > 0], return_counts=True)
    np.testing.assert_array_equal(sizes, u)
    np.testing.assert_array_equal(mult, c)
    assert tot["cells"] == full.size == N.shape[0] * valid.sum()


def test_round_half_up():
    assert scaling.round_half_up(np.array([0.49, 0.5, 1.5, 2.5, 2.4999])).tolist() == [0, 1, 2, 3, 2]


def test_scaling_exact_and_pyc_curves(cache_root):
    sc = scaling.census_scaling(Scenario(countries=("DE",)), "DE", [1, 1e4, 1e6, 1e12])
    part = sc.partition
    assert sc.exact[0] == pytest.approx(1.0) and sc.pyc[0] == pytest.approx(1.0)
    assert math.isnan(sc.exact[-1])  # beyond the population only the law speaks
    assert np.all(np.diff(sc.exact[:3]) <= 0) and np.all(np.diff(sc.pyc) <= 0)
    # at n = N every set is in the gallery: κ = K / N exactly
    assert part.exact_kappa(part.records) == pytest.approx(part.n_sets / part.records, rel=1e-9)
    # the fit recovers the partition's own K at n = N (the likelihood's moment condition)
    assert scaling.expected_sets(part.records, sc.fit.d, sc.fit.alpha) == pytest.approx(part.n_sets, rel=1e-3)
    assert sc.max_gap() < 0.05
    exact, law = sc.at(1e4)
    assert exact == pytest.approx(sc.exact[1]) and law == pytest.approx(sc.pyc[1])
    assert sc.at(1e12)[0] is None
    json.dumps(part.to_dict())


def test_unknown_country_is_an_input_error(cache_root):
    with pytest.raises(InputError, match="unknown"):
        scaling.census_partition(Scenario(countries=("XX",)), "XX")


def test_to_cli_round_trips_through_the_parser(cache_root, capsys):
    from dashboard.cli import main

    s = Scenario(countries=("DE",), sexes=("male",), ages=(30, 60), height_width=10, weight_width=10,
                 aux=(UserPercent("Runs", percent=5.0),))
    cmd = scaling.to_cli(s, "DE", [1e4, 1e5])
    assert cmd.startswith("anonset pyc census --country DE --ages 30-60 --sex male --height-width 10")
    import shlex

    assert main(shlex.split(cmd)[1:] + ["--json"]) == 0
    out = json.loads(capsys.readouterr().out)
    want = scaling.census_scaling(s, "DE", [1e4, 1e5])
    assert out["fit"]["h_bits"] == pytest.approx(want.fit.h_bits)
    assert [r["kappa_exact"] for r in out["rows"]] == pytest.approx(want.exact.tolist())
    assert out["command"] == cmd


def test_cli_text_and_errors(cache_root, capsys):
    from dashboard.cli import main

    assert main(["pyc", "census", "--country", "LI", "--no-body"]) == 0
    text = capsys.readouterr().out
    assert "Pitman-Yor fit: h =" in text and "exact kappa" in text
    assert main(["pyc", "census", "--country", "DE", "--n", "0"]) == 2
    assert main(["pyc", "census", "--country", "DE,US"]) == 2
    assert main(["pyc", "census", "--country", "DE", "--height-width", "7"]) == 2
    err = capsys.readouterr().err
    assert err.count("anonset: error:") == 3
