"""Comparing countries on one age grain: single years summed into 5-year groups, study ranges narrowed to whole groups."""
from __future__ import annotations

import numpy as np
import pytest

from dashboard.core import regions
from dashboard.core.errors import InputError


def test_comparable_ages_are_whole_five_year_groups():
    assert regions.comparable_ages((18, 75)) == (20, 75)
    assert regions.comparable_ages((15, 85)) == (15, 85)
    assert regions.comparable_ages((18, float("inf"))) == (20, float("inf"))
    assert regions.comparable_ages((17.5, 30.2)) == (20, 30)
    with pytest.raises(InputError, match="no whole 5-year"):
        regions.comparable_ages((18, 22))


def test_five_year_groups_sum_single_years_and_keep_wider_groups():
    bounds = [(20, 21), (21, 22), (22, 23), (23, 24), (24, 25), (25, 30), (30, 31), (85, float("inf"))]
    counts = np.arange(2 * len(bounds), dtype=float).reshape(2, len(bounds))
    out, groups = regions.five_year_groups(counts, bounds)
    assert groups == [(20, 25), (25, 30), (30, 35), (85, float("inf"))]
    np.testing.assert_allclose(out[:, 0], counts[:, :5].sum(axis=1))
    np.testing.assert_allclose(out[:, 1:], counts[:, 5:])
    assert out.sum() == counts.sum()  # totals kept
    with pytest.raises(ValueError):
        regions.five_year_groups(counts, bounds[:-1])


def test_five_year_data_are_unchanged_and_the_uk_is_regrouped():
    m, counts, labels = regions.comparable_model_counts("DE", (18, 75))
    ref = regions.country_table(["DE"], (20, 75)).set_index("sex")
    rows = {r["sex"]: r for r in regions.comparable_country_rows("DE", (18, 75))}
    assert rows["female"]["cell_mean"] == pytest.approx(ref.loc["female", "cell_mean"])
    assert labels[0] == "20–25" and counts.shape[2] == m.counts.shape[2]  # Destatis groups (65–75 too) kept
    m, counts, labels = regions.comparable_model_counts("GB", (18, 75))
    assert m.counts.shape[2] == 55 and counts.shape[2] == 11  # 55 single years → 11 groups
    assert counts.sum() == pytest.approx(m.counts.sum())
    with pytest.raises(InputError):
        regions.comparable_country_table(["DE"], (18, 75), "weekly")


def test_comparable_cdfs_regroup_single_years_into_five_year_groups():
    """The UK's CDF on the comparable grain, without body measurements, against a direct computation from its
    census counts summed into 5-year groups; a data set already on 5-year groups gives its usual CDF."""
    from dashboard.core.country import load_country_model
    from dashboard.core.regions import Scenario

    s = Scenario(countries=("GB", "DE"), include_body=False)
    xs = np.array([50.0, 200.0, 1000.0, 5000.0])
    got = regions.comparable_cdfs(s, "5", xs)
    base = load_country_model("GB", (20.0, 75.0))
    years = [(lo, hi) for lo, hi in base.census_groups]
    keep = [i for i, (lo, hi) in enumerate(years) if lo >= 20 and hi <= 75]
    assert len(keep) == 55 and all(years[i][1] - years[i][0] == 1 for i in keep)  # single years
    N = base.census_counts[:, :, keep].reshape(base.n_districts, 2, 11, 5).sum(axis=3)  # 5-year cells
    want = [(N * (N <= x)).sum() / N.sum() for x in xs]
    np.testing.assert_allclose(got["GB"].person, want, rtol=1e-12)
    assert got["GB"].people == pytest.approx(N.sum())
    model = regions.comparable_model("GB", (18, 75))
    assert [(g.lo, g.hi) for g in model.age_groups] == [(a, a + 5.0) for a in range(20, 75, 5)]
    # Germany publishes 5-year groups: its usual CDF on the whole groups inside 18–75 (20–75)
    de = regions.cdfs(Scenario(countries=("DE",), include_body=False, ages=(20.0, 75.0)), xs)["DE"]
    np.testing.assert_allclose(got["DE"].person, de.person)
    # the census grain is each data set's own
    own = regions.comparable_cdfs(s, "census", xs)
    np.testing.assert_allclose(own["GB"].person, regions.cdfs(s, xs)["GB"].person)
    assert own["GB"].person[1] > got["GB"].person[1]  # single-year cells are smaller
    with pytest.raises(InputError, match="age grain"):
        regions.comparable_cdfs(s, "1")
