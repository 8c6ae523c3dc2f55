"""SPEC §1.4 fill: a quarter of the real V2022 counties, completed from state totals."""
from __future__ import annotations

import warnings

import numpy as np
import pandas as pd
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from census_loaders import us_pep
from census_loaders.fill import FillWarning, fill_missing_districts
from census_loaders.schema import validate_population

CELL = ["sex", "age_from", "age_to"]


@pytest.fixture(scope="module")
def full(raw_root):
    folder = raw_root / "us"
    return us_pep.read_wonder(folder / us_pep.WONDER_FILES["female"], folder / us_pep.WONDER_FILES["male"])


def state_totals(table: pd.DataFrame) -> pd.DataFrame:
    return table.groupby(["region_id", *CELL], dropna=False, as_index=False)["count"].sum()


@pytest.fixture(scope="module")
def filled(full):
    """Every 4th FIPS code kept, plus all of Delaware (fully covered) and none of Hawaii."""
    ids = sorted(full["district_id"].unique())
    keep = (set(ids[::4]) | {i for i in ids if i.startswith("10")}) - {i for i in ids if i.startswith("15")}
    partial = full[full["district_id"].isin(keep)]
    with warnings.catch_warnings():
        warnings.simplefilter("error", FillWarning)  # consistent PEP totals: no clamping
        out = fill_missing_districts(partial, state_totals(full), full)
    return partial, out


def test_result_is_a_valid_population_table(filled, full):
    _, out = filled
    checked = validate_population(out, "filled")
    assert len(checked) == len(full) and checked["district_id"].nunique() == 3144
    assert out.attrs["fill_warnings"] == []


def test_state_totals_and_every_state_cell_are_kept(filled, full):
    """SPEC §1.4/§1.8: the remainder is taken cell by cell, so covered + filled reproduces the state's
    total and each of its sex × age cells; a filled county gets what the covered ones left over."""
    partial, out = filled
    got = out.groupby("region_id")["count"].sum()
    want = full.groupby("region_id")["count"].sum()
    np.testing.assert_allclose(got.sort_index(), want.sort_index(), rtol=1e-9)
    assert out["count"].sum() == pytest.approx(333_287_557, rel=1e-9)
    cells_got = _cells(out).groupby(["region_id", *CELL])["count"].sum()
    cells_want = _cells(full).groupby(["region_id", *CELL])["count"].sum()
    np.testing.assert_allclose(cells_got.sort_index(), cells_want.reindex(cells_got.sort_index().index), rtol=1e-9)
    one = out[out["filled"]].groupby("region_id")["district_id"].first()
    for region, district in one.items():
        rows = _cells(out[out["district_id"] == district]).set_index(CELL)["count"]
        n = out.loc[out["filled"] & (out["region_id"] == region), "district_id"].nunique()
        left = (_cells(full[full["region_id"] == region]).groupby(CELL)["count"].sum()
                - _cells(partial[partial["region_id"] == region]).groupby(CELL)["count"].sum().reindex(
                    _cells(full[full["region_id"] == region]).groupby(CELL)["count"].sum().index, fill_value=0.0))
        np.testing.assert_allclose(rows.sort_index().to_numpy(), (left / n).sort_index().to_numpy(), rtol=1e-9)


def _cells(df: pd.DataFrame) -> pd.DataFrame:
    return df.assign(age_to=df["age_to"].fillna(np.inf))


def test_filled_counties_of_a_state_are_equal(filled):
    _, out = filled
    rows = out[out["filled"]]
    spread = rows.groupby(["region_id", *CELL], dropna=False)["count"].agg(["min", "max"])
    np.testing.assert_allclose(spread["min"], spread["max"], rtol=1e-12)


def test_covered_counties_are_unchanged(filled):
    partial, out = filled
    covered = out[~out["filled"]].reset_index(drop=True)
    expected = partial.sort_values(["district_id", "sex", "age_from"]).reset_index(drop=True)
    pd.testing.assert_frame_equal(covered[expected.columns], expected)


def test_filled_flags_exactly_on_uncovered_counties(filled, full):
    partial, out = filled
    flagged = set(out.loc[out["filled"], "district_id"])
    assert flagged == set(full["district_id"]) - set(partial["district_id"])
    assert (out.groupby("district_id")["filled"].nunique() == 1).all()


def test_fully_covered_and_uncovered_states(filled, full):
    _, out = filled
    delaware = out[out["region_id"] == "10"]
    assert not delaware["filled"].any() and delaware["district_id"].nunique() == 3
    hawaii = out[out["region_id"] == "15"]
    assert hawaii["filled"].all() and hawaii["district_id"].nunique() == 5
    # no county covered: each of the 5 gets a fifth of the state, Kalawao included
    kalawao = hawaii[hawaii["district_id"] == "15005"]["count"].sum()
    assert kalawao == pytest.approx(full.loc[full["region_id"] == "15", "count"].sum() / 5)


def test_region_names_come_from_all_districts(filled):
    _, out = filled
    row = out[(out["district_id"] == "15005")].iloc[0]
    assert (row["district_name"], row["region_name"]) == ("Kalawao County", "Hawaii")


# --------------------------------------------------------------------------- small tables


def tiny(counts: dict[str, tuple[float, float]], region="01") -> pd.DataFrame:
    """A population table of districts with one female and one male cell (age 0+, open)."""
    rows = []
    for district, (f, m) in counts.items():
        for sex, c in (("female", f), ("male", m)):
            rows.append(dict(district_id=district, district_name=f"D{district}", region_id=region,
                             region_name=f"R{region}", sex=sex, age_from=0.0, age_to=np.nan,
                             count=float(c), filled=False))
    return pd.DataFrame(rows)


def test_negative_remainder_is_clamped_and_recorded():
    all_districts = tiny({"a": (0, 0), "b": (0, 0), "c": (0, 0)})
    partial = tiny({"a": (60, 40)})
    totals = pd.DataFrame(dict(region_id="01", sex=["female", "male"], age_from=0.0, age_to=np.nan,
                               count=[40.0, 50.0]))  # survey noise: state has fewer people than county a
    with pytest.warns(FillWarning, match="exceed the region total by 20.0 people in 1 sex × age cell"):
        out = fill_missing_districts(partial, totals, all_districts)
    assert len(out.attrs["fill_warnings"]) == 1 and "01" in out.attrs["fill_warnings"][0]
    b = out[out["district_id"] == "b"].set_index("sex")["count"]
    assert b["female"] == 0 and b["male"] == pytest.approx(5.0)  # the male cell's remainder 10 is not short


def test_remainder_is_split_cell_by_cell():
    """A hand-checked case: state 40 F / 60 M, covered county 30 F / 10 M → 10 F and 50 M left
    over for 2 counties: each 5 F and 25 M (SPEC §1.8; the old share rule gave 12 F / 18 M)."""
    all_districts = tiny({"a": (0, 0), "b": (0, 0), "c": (0, 0)})
    totals = pd.DataFrame(dict(region_id="01", sex=["female", "male"], age_from=0.0, age_to=np.nan,
                               count=[40.0, 60.0]))
    out = fill_missing_districts(tiny({"a": (30, 10)}), totals, all_districts)
    for d in ("b", "c"):
        got = out[out["district_id"] == d].set_index("sex")["count"]
        assert got["female"] == pytest.approx(5.0) and got["male"] == pytest.approx(25.0)


def test_moe_of_filled_rows_is_missing():
    partial = tiny({"a": (6, 4)}).assign(moe=[1.0, 2.0])
    totals = pd.DataFrame(dict(region_id="01", sex=["female", "male"], age_from=0.0, age_to=np.nan,
                               count=[10.0, 10.0]))
    out = fill_missing_districts(partial, totals, tiny({"a": (0, 0), "b": (0, 0)}))
    assert out.loc[out["filled"], "moe"].isna().all() and out.loc[~out["filled"], "moe"].tolist() == [1.0, 2.0]


def test_regions_without_totals_are_left_alone():
    partial = tiny({"a": (6, 4)})
    out = fill_missing_districts(partial, partial.iloc[:0][["region_id", *CELL, "count"]],
                                 tiny({"a": (0, 0), "b": (0, 0)}))
    assert len(out) == 2 and not out["filled"].any()


def test_inputs_that_cannot_be_filled_raise():
    totals = pd.DataFrame(dict(region_id="01", sex=["female", "male"], age_from=0.0, age_to=np.nan,
                               count=[10.0, 10.0]))
    with pytest.raises(ValueError, match="district z of partial is not in all_districts"):
        fill_missing_districts(tiny({"z": (1, 1)}), totals, tiny({"a": (0, 0)}))
    other_cells = tiny({"a": (1, 1)}).assign(age_to=5.0)
    with pytest.raises(ValueError, match="cells differ"):
        fill_missing_districts(other_cells, totals, tiny({"a": (0, 0), "b": (0, 0)}))
    with pytest.raises(ValueError, match="repeats a cell"):
        fill_missing_districts(tiny({"a": (1, 1)}), pd.concat([totals, totals]), tiny({"a": (0, 0), "b": (0, 0)}))


@settings(max_examples=60, deadline=None)
@given(
    counts=st.lists(st.tuples(st.integers(0, 1000), st.integers(0, 1000)), min_size=1, max_size=6),
    covered=st.lists(st.booleans(), min_size=6, max_size=6),
)
@pytest.mark.slow  # over 5 s on this machine: in the full suite, not the fast lane
def test_fill_conserves_the_region_total(counts, covered):
    """Whatever is covered, covered + filled reproduces the region total (totals ≥ covered)."""
    districts = {f"d{i}": c for i, c in enumerate(counts)}
    full = tiny(districts)
    keep = [d for i, d in enumerate(districts) if covered[i]]
    out = fill_missing_districts(full[full["district_id"].isin(keep)], state_totals(full), full)
    assert set(out["district_id"]) == set(districts)
    assert out["count"].sum() == pytest.approx(full["count"].sum(), rel=1e-9, abs=1e-9)
    assert set(out.loc[out["filled"], "district_id"]) == set(districts) - set(keep)
