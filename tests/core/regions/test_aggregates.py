"""Regional aggregates: fast paths equal the materialised grid, CDF shape, country tables by hand."""
from __future__ import annotations

import json
import math
import threading

import numpy as np
import pandas as pd
import pytest
from support.synthetic import TINY_AGES, make_tiny_cache

from dashboard.core import regions as ag
from dashboard.core.country import load_country_model
from dashboard.core.errors import InputError
from dashboard.core.groups import SEXES
from dashboard.core.regions import Scenario, UserPercent
from dashboard.core.regions import testing as regions_testing
from dashboard.core.regions._districts import _location_labels

REL = 1e-9

# ----------------------------------------------------------------------------- a hand-checked cache

@pytest.fixture(scope="module")
def tiny(tmp_path_factory):
    return make_tiny_cache(tmp_path_factory.mktemp("tiny"))


# ----------------------------------------------------------------------------- country tables by hand


def test_sex_table_by_hand():
    # female: d1 = 10 20 30 40, d2 = 0 25 15 60 → sorted 0 10 15 20 25 30 40 60, sum 200, n 8
    v = np.array([[10, 20, 30, 40], [0, 25, 15, 60]], dtype=float)
    t = ag.sex_table(v, ["T1", "T2"], ["One", "Two"], ["20–30", "30–40", "40–50", "50–60"])
    assert t["n_cells"] == 8 and t["population"] == 200
    assert t["min_cas"] == 10 and (t["min_district_id"], t["min_district_name"], t["min_age"]) == ("T1", "One", "20–30")
    assert t["cell_mean"] == 25
    # |v − 25| > 7.5 for 0, 10, 15, 40, 60 (not 20, 25, 30) → 5 of 8
    assert t["share_deviating"] == 5 / 8
    # q = ⌊8/4⌋ = 2: without the top quartile (40, 60): 100 / 6; middle half 15 20 25 30: 90 / 4
    assert t["mean_without_top_quartile"] == pytest.approx(100 / 6)
    assert t["mean_without_top_quartile_pct"] == pytest.approx(100 * (100 / 6) / 25)
    assert t["mean_middle_half"] == 22.5 and t["mean_middle_half_pct"] == pytest.approx(90.0)


def test_sex_table_edge_cases():
    t = ag.sex_table(np.zeros((2, 2)), ["a", "b"], ["A", "B"], ["x", "y"])
    assert math.isnan(t["min_cas"]) and t["min_district_id"] is None and t["cell_mean"] == 0
    assert math.isnan(t["mean_middle_half_pct"])
    t = ag.sex_table(np.array([[3.0, 1.0, 2.0]]), ["a"], ["A"], ["x", "y", "z"])  # n < 4: nothing trimmed
    assert t["mean_without_top_quartile"] == t["mean_middle_half"] == t["cell_mean"] == 2


def test_country_table_by_hand(tiny):
    df = ag.country_table(["TT"], TINY_AGES, root=tiny)
    assert list(df.columns) == list(ag.TABLE_COLUMNS)
    f, m = (df[df["sex"] == s].iloc[0] for s in ("female", "male"))
    assert f["ages"] == "20–60" and f["districts"] == 2 and f["n_cells"] == 8
    assert f["min_cas"] == 10 and f["min_district_id"] == "T1" and f["min_age"] == "20–30"
    assert f["cell_mean"] == 25 and f["share_deviating"] == 5 / 8
    assert f["mean_without_top_quartile"] == pytest.approx(100 / 6) and f["mean_middle_half"] == 22.5
    # male: d1 = 5 5 5 5, d2 = 5 5 5 45 → mean 10; every value deviates by ≥ 5 > 3
    assert m["cell_mean"] == 10 and m["min_cas"] == 5 and m["min_district_id"] == "T1"
    assert m["share_deviating"] == 1.0
    assert m["mean_without_top_quartile"] == 5 and m["mean_without_top_quartile_pct"] == 50
    assert m["mean_middle_half"] == 5 and m["mean_middle_half_pct"] == 50
    assert f["male_female_ratio"] == m["male_female_ratio"] == 10 / 25


def test_country_table_age_setting(tiny):
    # 25–60 trims the census group 20–30 to its upper half: d1 female 10 → 5
    df = ag.country_table(["TT"], (25, 60), root=tiny)
    f = df[df["sex"] == "female"].iloc[0]
    assert f["min_cas"] == 5 and f["min_age"] == "25–30 (of 20–30)"
    assert f["population"] == pytest.approx(200 - 5)
    with pytest.raises(InputError, match="reversed"):
        ag.country_table(["TT"], (60, 25), root=tiny)
    with pytest.raises(InputError, match="unknown country"):
        ag.country_table(["XX"], root=tiny)


#: Census data sets of every kind and a few national UN estimates (the fast lane); the full suite takes all 192.
SAMPLE = ("DE", "US", "AU-SA2", "KE-SUB", "IN", "JP", "MA", "NZ", "LI", "NG", "CN", "BR")


@pytest.mark.parametrize("which", ["sample", pytest.param("all", marks=pytest.mark.slow)])
def test_country_table_real_data_sets(cache_root, which):
    from census_loaders import cache

    codes = SAMPLE if which == "sample" else cache.countries(cache_root)
    df = ag.country_table(codes if which == "sample" else None, root=cache_root)
    assert len(df) == 2 * len(codes) and set(df["sex"]) == {"female", "male"}
    assert (df["cell_mean"] > 0).all() and (df["min_cas"] > 0).all()
    # dropping the top quartile can only lower the mean; the middle half may lie above it (one-district countries)
    assert (df["mean_without_top_quartile_pct"] <= 100 + 1e-9).all() and (df["mean_middle_half_pct"] > 0).all()
    de = df[(df["country"] == "DE") & (df["sex"] == "female")].iloc[0]
    m = load_country_model("DE", root=cache_root)
    assert de["cell_mean"] == pytest.approx(m.counts[:, 0, :].mean(), rel=1e-12)
    assert de["population"] == pytest.approx(m.counts[:, 0, :].sum(), rel=1e-12)


# ----------------------------------------------------------------------------- fast vs brute force

SCENARIOS = {
    "default": Scenario(),
    "female_wearables_10x2": Scenario(sexes=("female",), aux=("de_wearables",), height_width=10, weight_width=2),
    "no_body": Scenario(include_body=False, k=1000),
    "user_aux_wide_bmi": Scenario(sexes=("male",), ages=(30, 60), bmi_range=(15, 40), k=50,
                                  aux=(UserPercent("Club", by_age=((18, 45, 20), (45, math.inf, 3))),)),
    "paper": Scenario(model="paper"),
    "paper_user_aux_wide_bmi": Scenario(sexes=("male",), ages=(30, 60), bmi_range=(15, 40), k=50, model="paper",
                                        aux=(UserPercent("Club", by_age=((18, 45, 20), (45, math.inf, 3))),)),
}
US_SCENARIOS = {
    "default": Scenario(countries=("US",)),
    "flo": Scenario(countries=("US",), aux=("us_flo",), height_width=20, weight_width=1, k=2),
    "paper": Scenario(countries=("US",), model="paper"),
}
DE_DISTRICTS = [0, 57, 150, 301, 399]
#: A few US counties, including tiny ones (Kalawao, Loving) where zero cells occur.
US_COUNTIES = ["15005", "48301", "06037", "36061", "02282", "01001"]

COMPARE = ["people", "plausible_people", "min_cas", "max_cas", "cell_mean", "person_mean", "share_below"]


def _assert_rel(a, b, rel=REL):
    a, b = np.asarray(a, float), np.asarray(b, float)
    assert a.shape == b.shape
    assert np.array_equal(np.isnan(a), np.isnan(b))
    ok = ~np.isnan(a)
    assert np.all(np.abs(a[ok] - b[ok]) <= rel * np.abs(b[ok]) + 1e-300), np.max(np.abs(a[ok] - b[ok]) / np.abs(b[ok]))


def _check_statistics(scenario, code, districts, root):
    fast = ag.district_statistics(scenario, code, root=root).iloc[districts].reset_index(drop=True)
    ref = regions_testing.reference_district_statistics(scenario, code, districts, root=root)
    for col in COMPARE:
        _assert_rel(fast[col], ref[col])
    assert (fast["n_cells"] == ref["n_cells"]).all()
    # where: decode the reference's flat (s, a, cell) index into the same labels
    b = ag.bind(scenario, code, root=root)
    J = b.cells.n
    sex, age, hl, wl = _location_labels(b)
    for which in ("min", "max"):
        sa, j = np.divmod(ref[f"{which}_flat"].to_numpy(), J)
        has = fast[f"{which}_sex"].notna().to_numpy()
        assert list(fast[f"{which}_sex"][has]) == list(sex[sa][has])
        assert list(fast[f"{which}_age"][has]) == list(age[sa][has])
        if scenario.include_body:
            assert list(fast[f"{which}_height"][has]) == list(hl[j][has])
            assert list(fast[f"{which}_weight"][has]) == list(wl[j][has])
    return fast


@pytest.mark.parametrize("name", SCENARIOS)
def test_district_statistics_equal_brute_force_de(name, cache_root):
    fast = _check_statistics(SCENARIOS[name], "DE", DE_DISTRICTS, cache_root)
    assert (fast["plausible_people"] <= fast["people"] * (1 + 1e-12)).all()


@pytest.mark.parametrize("name", US_SCENARIOS)
def test_district_statistics_equal_brute_force_us(name, cache_root):
    m = load_country_model("US", root=cache_root)
    idx = [m.district_index(c) for c in US_COUNTIES]
    fast = _check_statistics(US_SCENARIOS[name], "US", idx, cache_root)
    if name == "flo":
        # men get fraction 0: their cells are combinations with CAS 0, never the minimum
        assert (fast["min_sex"] == "female").all()


def _naive_cdf(scenario, code, districts, xs, root, strict=False):
    """The most literal reading: materialise, keep each group's own cells, count cell by cell for each x.

    People are shares of the people the model covers (SPEC §1.8): those in the kept cells.
    """
    grid, mask, N = regions_testing.reference_grid(scenario, code, districts, root=root, per_group=True)
    v = grid[:, mask].ravel()
    cmp = (v[None, :] < xs[:, None]) if strict else (v[None, :] <= xs[:, None])
    return (cmp * v[None, :]).sum(axis=1) / v.sum(), cmp.mean(axis=1)


@pytest.mark.parametrize("method", ["cells", "districts"])
@pytest.mark.parametrize("strict", [False, True])
@pytest.mark.parametrize("name", SCENARIOS)
def test_cdf_counts_equal_brute_force_on_subsets(name, strict, method, cache_root):
    s = SCENARIOS[name]
    xs = np.logspace(-3, 5, 60)
    b = ag.bind(s, "DE", root=cache_root)
    people, combos = ag.cdf_counts(b.N[DE_DISTRICTS], b.cells, xs, strict=strict, method=method)
    person, cells = _naive_cdf(s, "DE", DE_DISTRICTS, xs, cache_root, strict)
    _assert_rel(people / (b.N[DE_DISTRICTS] * b.cells.Q1).sum(), person)
    n_cells = len(DE_DISTRICTS) * b.n_cells_per_district
    assert np.array_equal(combos, np.round(cells * n_cells).astype(np.int64))
    ref = regions_testing.reference_cdf(s, "DE", xs, DE_DISTRICTS, chunk=2, strict=strict, root=cache_root)
    _assert_rel(ref[0], person)
    _assert_rel(ref[1], cells)


@pytest.mark.parametrize("name", US_SCENARIOS)
def test_cdf_us_counties_equal_brute_force(name, cache_root):
    s = US_SCENARIOS[name]
    m = load_country_model("US", root=cache_root)
    idx = [m.district_index(c) for c in US_COUNTIES]
    b = ag.bind(s, "US", root=cache_root)
    xs = np.logspace(-3, 6, 80)
    person, cells = _naive_cdf(s, "US", idx, xs, cache_root)
    for method in ("cells", "districts"):
        people, combos = ag.cdf_counts(b.N[idx], b.cells, xs, method=method)
        _assert_rel(people / (b.N[idx] * b.cells.Q1).sum(), person)
        _assert_rel(combos / (len(idx) * b.n_cells_per_district), cells)


def test_whole_country_cdf_equals_brute_force(cache_root):
    s = SCENARIOS["female_wearables_10x2"]
    c = ag.country_cdf(s, "DE", root=cache_root)
    person, cells, people, n_cells = regions_testing.reference_cdf(s, "DE", root=cache_root)
    _assert_rel(c.person, person)
    _assert_rel(c.cells, cells)
    assert c.people == pytest.approx(people, rel=1e-12) and c.n_cells == n_cells
    other = ag.country_cdf(s, "DE", method="cells", root=cache_root)
    _assert_rel(other.person, c.person, 1e-12)
    assert np.array_equal(other.cells, c.cells)


# ----------------------------------------------------------------------------- per-group profile grid


def _band_lo(label):
    return float(label.split("–")[0])


def test_min_cas_of_every_german_district_is_a_realistic_cell(cache_root):
    """The minimum is a cell of its own group's ±4 SD grid, not a 7-SD corner holding 1e-17 people (paper model)."""
    df = ag.district_statistics(Scenario(model="paper"), "DE", root=cache_root)
    m = load_country_model("DE", root=cache_root, model="paper")
    # the union grid's far corner (a woman of 18–20, 210–215 cm, 130–135 kg) held ~1e-17 people
    assert (df["min_cas"] > 1e-7).all()
    assert df.set_index("district_id").loc["11000", "min_cas"] > 1e-4  # Berlin
    labels = [g.label for g in m.age_groups]
    means = {k: m.body.params(k) for k in ("height", "weight")}
    for row in df.itertuples():
        s, a = SEXES.index(row.min_sex), labels.index(row.min_age)
        used = np.flatnonzero(m.body_weights[s, a] > 0)
        for kind, label in (("height", row.min_height), ("weight", row.min_weight)):
            mu, sd = means[kind][0][used], means[kind][1][used]
            lo, hi = _band_lo(label), _band_lo(label) + 5
            # the band overlaps ±4 SD of the body groups this census group mixes
            assert hi > (mu - 4 * sd).min() and lo < (mu + 4 * sd).max(), (row.district_name, kind, label)
        h, w = _band_lo(row.min_height) + 2.5, _band_lo(row.min_weight) + 2.5
        assert 17 <= w / (h / 100) ** 2 <= 30
        assert row.min_cas <= row.cell_mean <= row.max_cas


def test_left_out_cells_are_not_combinations(cache_root):
    s = Scenario()
    m = load_country_model("DE", root=cache_root)
    joint = m.joint(5, 5)
    by_group = joint.profile_mask_by_group(s.bmi_range)
    b = ag.bind(s, "DE", root=cache_root)
    c = b.cells
    # the cells: union of the groups' grids, each group flagged, zero probability where left out
    assert np.array_equal(by_group.any(axis=(0, 1))[c.h_idx, c.w_idx], np.ones(c.n, dtype=bool))
    assert np.array_equal(c.valid, by_group[:, :, c.h_idx, c.w_idx])
    assert np.array_equal(c.n_valid, by_group.sum(axis=(2, 3)))
    assert (c.q[~c.valid] == 0).all() and (c.q[c.valid] > 0).all()
    assert b.n_cells_per_district == by_group.sum() < c.valid.size
    df = ag.district_statistics(s, "DE", root=cache_root)
    assert (df["n_cells"] == by_group.sum()).all()
    assert df["cell_mean"].to_numpy() == pytest.approx(df["plausible_people"] / by_group.sum(), rel=1e-12)
    # a cell of the union grid that is ~5 SD for women of 18–20: positive mass, but no combination of theirs
    a = [g.label for g in m.age_groups].index("18–20")
    cell = (joint.height.index(195), joint.weight.index(95))
    j = int(np.flatnonzero((c.h_idx == cell[0]) & (c.w_idx == cell[1]))[0])
    assert joint.prob[0, a][cell] > 0 and not c.valid[0, a, j] and c.valid[:, :, j].any()
    berlin = m.district_index("11000")
    tiny = m.counts[berlin, 0, a] * joint.prob[0, a][cell]
    assert tiny > 0
    # Berlin's cell-weighted CDF at that size counts only Berlin's own cells (as the brute force does)
    cdf = ag.district_cdf(s, "DE", "11000", [2 * tiny], root=cache_root)
    person, cells, _, n_cells = regions_testing.reference_cdf(s, "DE", np.array([2 * tiny]), districts=[berlin], root=cache_root)
    assert cdf.n_cells == n_cells == by_group.sum()
    assert cdf.cells[0] == pytest.approx(cells[0], abs=1e-12) and cdf.person[0] == pytest.approx(person[0], abs=1e-12)
    # a district with nobody: every own cell is a combination of CAS 0 ≤ x, no left-out cell is
    empty = np.zeros((1,) + b.N.shape[1:])
    for method in ("cells", "districts"):
        for strict in (False, True):
            people, combos = ag.cdf_counts(empty, c, np.array([1e-12, 1.0, 1e9]), strict=strict, method=method)
            assert (people == 0).all() and (combos == by_group.sum()).all()
    # one empty sex × age group in an otherwise populated district: it adds exactly its own cells
    N = b.N[berlin:berlin + 1].copy()
    N[0, 0, a] = 0
    for method in ("cells", "districts"):
        _, with_empty = ag.cdf_counts(N, c, np.array([1e-12]), method=method)
        _, full = ag.cdf_counts(b.N[berlin:berlin + 1], c, np.array([1e-12]), method=method)
        assert with_empty[0] - full[0] == c.n_valid[0, a]


def test_district_detail_lists_only_own_cells(cache_root):
    det = ag.district_detail(Scenario(), "DE", "11000", n=50, root=cache_root)
    m = load_country_model("DE", root=cache_root)
    labels = [g.label for g in m.age_groups]
    lo = m.group_core_ranges("height")
    for r in det.smallest.itertuples():
        s, a = SEXES.index(r.sex), labels.index(r.age)
        h = _band_lo(r.height)
        assert h + 5 > lo[s, a, 0] and h < lo[s, a, 1]
    assert det.smallest["cas"].iloc[0] == pytest.approx(det.stats["min_cas"], rel=1e-12)


# ----------------------------------------------------------------------------- CDF shape and semantics


@pytest.mark.parametrize("name", SCENARIOS)
def test_cdf_monotone_and_its_ends(name, cache_root):
    s = SCENARIOS[name]
    c = ag.country_cdf(s, "DE", root=cache_root)
    assert c.x.shape == c.person.shape == c.cells.shape == (200,)
    assert c.x[0] == pytest.approx(1e-3) and c.x[-1] == pytest.approx(1e8)
    assert np.all(np.diff(c.person) >= 0) and np.all(np.diff(c.cells) >= 0)
    b = ag.bind(s, "DE", root=cache_root)
    # the covered share Σ N·Σ_j p_j / Σ N is stated; shares are of the covered people, so the curve ends at 1
    share = (b.N * b.cells.Q1[None]).sum() / b.N.sum()
    assert c.plausible_share == pytest.approx(share, rel=1e-12) and c.covered_share == c.plausible_share
    assert c.person[-1] == pytest.approx(1.0, rel=1e-12)
    # paper: below 1 exactly when implausible cells carry people; v2: at least 99.9 % covered
    if s.include_body and s.model == "paper":
        assert c.plausible_share < 0.99
    elif s.include_body:
        assert 0.999 - 1e-12 <= c.plausible_share < 1.0
    else:
        assert c.plausible_share == 1.0
    assert c.cells[-1] == 1.0


def test_implausible_cells_left_out_not_renormalised(cache_root):
    narrow = ag.country_cdf(Scenario(bmi_range=(20, 25), model="paper"), "DE", root=cache_root)
    wide = ag.country_cdf(Scenario(bmi_range=(1, 1000), model="paper"), "DE", root=cache_root)
    # only the tails beyond 4 SD (height and weight combined, mass e^−8 ≈ 3.4e-4) stay out of the grid
    assert wide.plausible_share == pytest.approx(1.0, abs=5e-4)
    assert wide.plausible_share < 1.0
    assert narrow.plausible_share < ag.country_cdf(Scenario(model="paper"), "DE", root=cache_root).plausible_share
    # every threshold: the narrower grid counts fewer people (its cells are a subset, nothing rescaled)
    assert np.all(narrow.person * narrow.plausible_people <= wide.person * wide.plausible_people * (1 + 1e-12))
    d_n = ag.district_statistics(Scenario(bmi_range=(20, 25), model="paper"), "DE", root=cache_root)
    d_w = ag.district_statistics(Scenario(bmi_range=(1, 1000), model="paper"), "DE", root=cache_root)
    assert (d_n["people"] == d_w["people"]).all() and (d_n["plausible_people"] < d_w["plausible_people"]).all()


def test_share_at_most_and_below_ties(cache_root):
    # without body measurements the CAS of a cell is its census count: ties with a whole-number k
    s = Scenario(include_body=False)
    b = ag.bind(s, "DE", root=cache_root)
    k = float(b.N.min())
    at_most = ag.share_at_most(s, [k], root=cache_root)["DE"][k]
    below = ag.share_below(s, [k], root=cache_root)["DE"][k]
    tied = b.N[b.N == k].sum() / b.N.sum()
    assert tied > 0 and at_most - below == pytest.approx(tied, rel=1e-12)
    # with body measurements ties do not happen: the two agree
    a = ag.share_at_most(Scenario(), [5, 20, 100], root=cache_root)["DE"]
    bl = ag.share_below(Scenario(), root=cache_root)["DE"]
    assert set(bl) == {5.0, 20.0, 100.0} and all(a[k] == pytest.approx(bl[k], rel=1e-12) for k in bl)
    c = ag.country_cdf(Scenario(), "DE", [5, 20, 100], root=cache_root)
    assert list(a.values()) == list(c.person)


def test_country_share_below_is_the_people_weighted_district_share(cache_root):
    s = Scenario(aux=("de_wearables",), k=20)
    df = ag.district_statistics(s, "DE", root=cache_root)
    country = ag.share_below(s, [20], root=cache_root)["DE"][20.0]
    # shares of the people the model covers (SPEC §1.8): weighted by each district's covered people
    w = df["plausible_people"]
    assert (df["share_below"] * w).sum() / w.sum() == pytest.approx(country, rel=1e-9)


def test_district_cdf_matches_district_statistics(cache_root):
    s = Scenario(k=20)
    row = ag.district_statistics(s, "DE", root=cache_root).iloc[10]
    c = ag.district_cdf(s, "DE", row["district_id"], [20 * (1 - 1e-15)], root=cache_root)
    assert c.person[0] == pytest.approx(row["share_below"], rel=1e-9)
    assert c.people == row["people"] and c.plausible_people == pytest.approx(row["plausible_people"], rel=1e-12)


# ----------------------------------------------------------------------------- district statistics


def test_district_statistics_frame(cache_root):
    s = Scenario()
    df = ag.district_statistics(s, "DE", root=cache_root)
    m = load_country_model("DE", root=cache_root)
    assert len(df) == m.n_districts and list(df["district_id"]) == list(m.district_ids)
    assert df["district_id"].is_unique and df["filled"].dtype == bool
    assert df["population"].to_numpy() == pytest.approx(m.counts.sum(axis=(1, 2)))
    assert (df["min_cas"] <= df["cell_mean"]).all() and (df["cell_mean"] <= df["person_mean"]).all()
    assert (df["person_mean"] <= df["max_cas"]).all()
    assert df.attrs["k"] == 5.0 and df.attrs["country"] == "DE"
    series = ag.district_stat(s.replace(stat="max"), "DE", root=cache_root)
    assert series.index.name == "district_id" and series.iloc[3] == df["max_cas"].iloc[3]
    with pytest.raises(InputError):
        ag.district_stat(s, "DE", "median", root=cache_root)
    # the memoised frame is not the caller's
    df.loc[0, "person_mean"] = -1
    assert ag.district_statistics(s, "DE", root=cache_root).loc[0, "person_mean"] > 0


def test_filled_and_zero_districts(tiny):
    s = Scenario(countries=("TT",), ages=TINY_AGES, aux=("tt_app",), model="paper")  # the tiny cache has no NHANES
    df = ag.district_statistics(s, "TT", root=tiny)
    assert list(df["filled"]) == [False, True]
    # the app is used by half the women and no men: men's cells exist with CAS 0
    assert (df["people"] == [50, 50]).all()
    assert (df["min_sex"] == "female").all()
    cells = ag.bind(s, "TT", root=tiny).cells
    assert df["n_cells"].iloc[0] == cells.n_valid.sum() < 2 * 4 * cells.n
    notes = ag.scenario_notes(s, "TT", root=tiny)
    assert any("Germany" in n or "DE" in n for n in notes) and any("filled" in n for n in notes)


def test_memo_is_thread_safe(cache_root):
    ag.clear_caches()
    s = Scenario(countries=("DE",), height_width=2, weight_width=2)
    out, errors = [], []

    def work():
        try:
            out.append(ag.district_statistics(s, "DE", root=cache_root))
            out.append(ag.country_cdf(s, "DE", root=cache_root).person)
        except Exception as exc:  # noqa: BLE001 - any failure in a thread is reported below
            errors.append(exc)

    threads = [threading.Thread(target=work) for _ in range(8)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert not errors
    frames = [o for o in out if isinstance(o, pd.DataFrame)]
    curves = [o for o in out if isinstance(o, np.ndarray)]
    assert all(f.equals(frames[0]) for f in frames) and all(np.array_equal(c, curves[0]) for c in curves)


# ----------------------------------------------------------------------------- district detail


def test_district_detail(cache_root):
    s = Scenario(aux=("de_wearables",))
    det = ag.district_detail(s, "DE", "Kiel, kreisfreie Stadt", n=4, root=cache_root)
    assert det.district_id == "01002" and det.region_name == "Schleswig-Holstein" and not det.filled
    d = det.distribution
    assert len(d) == 2 * 11 and set(d["sex"]) == {"female", "male"}
    assert d["people"].sum() == pytest.approx(det.stats["people"], rel=1e-12)
    assert d["share"].sum() == pytest.approx(1.0)
    assert d["plausible_people"].sum() == pytest.approx(det.stats["plausible_people"], rel=1e-12)
    assert len(det.smallest) == len(det.largest) == 4
    assert det.smallest["cas"].is_monotonic_increasing and det.largest["cas"].is_monotonic_decreasing
    assert det.smallest["cas"].iloc[0] == pytest.approx(det.stats["min_cas"], rel=1e-12)
    assert det.largest["cas"].iloc[0] == pytest.approx(det.stats["max_cas"], rel=1e-12)
    top = det.largest.iloc[0]
    assert (top["sex"], top["age"], top["height"], top["weight"]) == (
        det.stats["max_sex"], det.stats["max_age"], det.stats["max_height"], det.stats["max_weight"])
    assert json.dumps(det.to_dict())
    # the largest cell's CAS, recomputed from the model
    m = load_country_model("DE", root=cache_root)
    j = m.joint(5, 5)
    a = [g.label for g in m.age_groups].index(top["age"])
    h = round((float(top["height"].split("–")[0]) - j.height.start) / 5)
    w = round((float(top["weight"].split("–")[0]) - j.weight.start) / 5)
    s_i = SEXES.index(top["sex"])
    f = ag.bind(s, "DE", root=cache_root).aux[0].f[0, 0, a]
    assert top["cas"] == pytest.approx(m.counts[1, s_i, a] * f * j.prob[s_i, a, h, w], rel=1e-12)
    with pytest.raises(InputError, match="unknown"):
        ag.district_detail(s, "DE", "Atlantis", root=cache_root)


def test_bad_input(cache_root, tiny):
    with pytest.raises(InputError, match="unknown country"):
        ag.district_statistics(Scenario(countries=("XX",)), "XX", root=cache_root)
    with pytest.raises(InputError, match="positive"):
        ag.country_cdf(Scenario(), "DE", [0, 5], root=cache_root)
    with pytest.raises(InputError, match="method"):
        ag.country_cdf(Scenario(), "DE", method="fast", root=cache_root)
    with pytest.raises(InputError, match="is for DE"):
        ag.district_statistics(Scenario(countries=("US",), aux=("de_wearables",)), "US", root=cache_root)
    with pytest.raises(InputError, match="at least one cell"):
        ag.district_detail(Scenario(), "DE", "01001", n=0, root=cache_root)
    # an age range inside the open oldest group is that group trimmed (60+ spans 60–100)
    df = ag.district_statistics(Scenario(countries=("TT",), ages=(90, 95), include_body=False), "TT", root=tiny)
    assert df["min_age"].iloc[0] == "90–95 (of 60+)" and df["people"].iloc[0] == pytest.approx(2 * 999 * 5 / 40)

