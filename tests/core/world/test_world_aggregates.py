"""The world map's aggregates: written by the build, equal to the explorer core's numbers, one data set per country."""
from __future__ import annotations

import json

import numpy as np
import pytest

import census_loaders
from dashboard.core import regions
from dashboard.core.country import map_datasets, world_total
from dashboard.core.errors import InputError
from dashboard.core.world import (
    COLUMNS,
    check_world_stat,
    dataset_aggregate,
    default_scenario,
    map_rows,
    world_aggregates,
)

#: A national-grain census (401 Kreise), a national-only UN estimate, and a finer second data set of a country.
SAMPLED = ("DE", "NG", "KE-SUB")


@pytest.fixture(scope="module")
def aggregates(cache_root):
    return world_aggregates().set_index("code")


def test_one_row_per_data_set_with_every_column(aggregates, cache_root):
    assert list(aggregates.reset_index().columns) == list(COLUMNS)
    assert sorted(aggregates.index) == sorted(census_loaders.countries())
    assert aggregates["person_mean"].notna().all() and aggregates["share_below"].between(0, 1).all()


@pytest.mark.parametrize("code", SAMPLED)
def test_aggregates_equal_the_explorer_core(aggregates, code):
    """The file holds exactly what the explorer's functions give for their default view of the data set."""
    row = aggregates.loc[code]
    scenario = default_scenario(code)
    assert scenario == regions.Scenario(countries=(code,))  # the explorer's defaults, nothing of our own
    assert row["share_below"] == regions.share_below(scenario, [scenario.k])[code][scenario.k]
    stats = regions.district_statistics(scenario, code)
    # closed form: Σ CAS² / Σ CAS over the country = Σ_d person_mean_d · Σ_d CAS / Σ CAS
    pooled = float((stats["person_mean"] * stats["plausible_people"]).sum() / stats["plausible_people"].sum())
    assert row["person_mean"] == pytest.approx(pooled, rel=1e-12)
    assert row["covered_people"] == pytest.approx(stats["plausible_people"].sum(), rel=1e-12)
    fresh = dataset_aggregate(code)
    assert {k: row[k] for k in fresh} == fresh  # stored = computed, bit for bit
    assert (row["k"], row["ages"], row["model"]) == (5.0, "18–75", "v2")


def test_a_national_only_country_is_its_one_district(aggregates):
    row = aggregates.loc["NG"]
    stat = regions.district_stat(default_scenario("NG"), "NG", "person_mean")
    assert len(stat) == 1 and row["person_mean"] == pytest.approx(float(stat.iloc[0]), rel=1e-12)
    assert bool(row["national_model"]) and row["grain"] == "national" and row["reference_year"] == 2025


def test_descriptive_columns_come_from_the_catalogue(aggregates, cache_root):
    manifest = census_loaders.manifest()
    for code in SAMPLED:
        d, row = manifest["datasets"][code], aggregates.loc[code]
        assert row["country"] == d["country"] and row["continent"] == d["continent"]
        assert row["districts"] == d["districts"] and row["population"] == round(d["population"])
        assert row["reference_year"] == int(d["reference_date"][:4]) and row["body_prior_source"]
    assert aggregates.loc["KE-SUB", "name"] != aggregates.loc["KE", "name"]


def test_the_map_shows_one_data_set_per_country_the_coarser_national_one(aggregates, cache_root):
    manifest = census_loaders.manifest()
    rows = map_rows(aggregates.reset_index())
    assert rows["country"].is_unique and len(rows) == world_total(manifest)["countries"]
    chosen = dict(zip(rows["country"], rows["code"]))
    assert chosen == map_datasets(manifest)
    assert {chosen[c] for c in ("AU", "KE", "US", "IT")} == {"AU", "KE", "US", "IT"}
    assert not aggregates.loc[["AU-SA2", "KE-SUB", "US-ZCTA", "IT-COM"], "map_dataset"].any()


def test_every_country_on_the_map_has_an_outline(cache_root):
    outline = {f["id"] for f in json.loads((cache_root / "world" / "countries.geojson").read_text())["features"]}
    assert set(map_rows(world_aggregates())["country"]) <= outline


def test_the_aggregates_are_checksummed_in_the_manifest(cache_root):
    manifest = census_loaders.manifest()
    entry = manifest["world_aggregates"]
    assert entry["file"] == "world/aggregates.parquet" and entry["rows"] == len(manifest["datasets"])
    assert manifest["files"]["world/aggregates.parquet"] == census_loaders.checksums.sha256(
        cache_root / "world" / "aggregates.parquet")


def test_a_cache_without_aggregates_says_how_to_build_them(tmp_path):
    (tmp_path / "manifest.json").write_text(json.dumps({"datasets": {}}), encoding="utf-8")
    with pytest.raises(InputError, match="anonset data build"):
        world_aggregates(tmp_path)


def test_statistic_names_are_checked():
    assert check_world_stat(None) == "person_mean" and check_world_stat(" share_below") == "share_below"
    with pytest.raises(InputError, match="person_mean, share_below"):
        check_world_stat("median")


def test_closed_forms_on_a_tiny_cache(tmp_path):
    """Two districts of known counts and no body measurements: CAS = census count, so the person-mean set is
    Σ n² / Σ n over every district × sex × age cell of the study ages, and the share below k is Σ_{n<k} n / Σ n."""
    from support.synthetic import TINY_COUNTS, TINY_GROUPS, make_tiny_cache

    root = make_tiny_cache(tmp_path)
    scenario = regions.Scenario(countries=("TT",), include_body=False, ages=(20, 60), k=11)
    got = dataset_aggregate("TT", scenario, root=root)
    n = np.array([c for counts in TINY_COUNTS.values() for (lo, hi), c in zip(TINY_GROUPS, counts)
                  if lo >= 20 and hi is not None and hi <= 60], dtype=float)
    assert got["person_mean"] == pytest.approx((n ** 2).sum() / n.sum(), rel=1e-12)
    assert got["share_below"] == pytest.approx(n[n < 11].sum() / n.sum(), rel=1e-12)
    assert got["study_people"] == n.sum() and got["k"] == 11.0


@pytest.mark.parametrize("code", SAMPLED)
@pytest.mark.parametrize("model", ["v2", "paper"])
def test_both_models_every_k_and_every_district_equal_the_explorer_core(code, model, cache_root):
    """Issue 30: per data set and per district, under both body models, the minimum set and the share below
    every k of AGGREGATE_KS are the explorer core's numbers, bit for bit."""
    from dashboard.core.world import AGGREGATE_KS, district_aggregates, share_column

    row = world_aggregates(model=model).set_index("code").loc[code]
    scenario = default_scenario(code).replace(model=model)
    national = [regions.share_below(scenario, [k])[code][float(k)] for k in AGGREGATE_KS]
    assert [row[share_column(k)] for k in AGGREGATE_KS] == national
    assert row["share_below"] == row[share_column(scenario.k)] and row["model"] == model
    shares = [row[share_column(k)] for k in AGGREGATE_KS]
    assert shares == sorted(shares)  # more people below a larger k
    stats = regions.district_statistics(scenario, code)
    assert row["min_set"] == np.nanmin(stats["min_cas"].to_numpy(dtype=float))
    per = district_aggregates(model=model, code=code)
    assert list(per["district_id"]) == list(stats["district_id"])
    np.testing.assert_array_equal(per["person_mean"], stats["person_mean"].to_numpy(dtype=float))
    np.testing.assert_array_equal(per["min_set"], stats["min_cas"].to_numpy(dtype=float))
    for k in AGGREGATE_KS:
        want = regions.district_statistics(scenario.replace(k=float(k)), code)["share_below"].to_numpy(dtype=float)
        np.testing.assert_array_equal(per[share_column(k)], want)


def test_an_unknown_model_names_the_models(cache_root):
    from dashboard.core.world import district_aggregates

    with pytest.raises(InputError, match="v2, paper"):
        world_aggregates(model="v3")
    with pytest.raises(InputError, match="v2, paper"):
        district_aggregates(model="")


@pytest.fixture(scope="module")
def dask_mapper(cache_root):
    """One local two-process Dask cluster for the module's serial-versus-Dask checks (it starts at its first map):
    starting one per test cost a cluster start and two cold worker processes each time."""
    from dashboard.cli.cluster import data_set_mapper

    with data_set_mapper("local") as mapper:
        yield mapper


@pytest.mark.slow  # a two-process Dask cluster starts (a few seconds) and computes four data sets twice
def test_serial_and_dask_give_identical_aggregates(dask_mapper):
    """The build's map over data sets gives the same frames, bit for bit, in this process and on Dask."""
    import pandas as pd

    from dashboard.core.world import compute_aggregates

    codes = ["DE", "NG", "KE-SUB", "MT"]
    serial = compute_aggregates(codes=codes)
    distributed = compute_aggregates(codes=codes, mapper=dask_mapper)
    for a, b in zip(serial, distributed, strict=True):
        pd.testing.assert_frame_equal(a, b, check_exact=True)
    assert sorted(serial[0]["code"].unique()) == sorted(codes) and len(serial[0]) == 2 * len(codes)


@pytest.mark.slow  # a two-process Dask cluster starts and computes four data sets' country tables
def test_serial_and_dask_give_identical_country_tables(dask_mapper):
    """The stored country table is mapped over data sets like the aggregates: the same rows, bit for bit, on Dask."""
    import pandas as pd

    from dashboard.core.regions import compute_country_table

    codes = ["DE", "NG", "KE-SUB", "MT"]
    serial = compute_country_table(codes=codes)
    distributed = compute_country_table(codes=codes, mapper=dask_mapper)
    pd.testing.assert_frame_equal(serial, distributed, check_exact=True)
    assert list(serial["country"].unique()) == codes and len(serial) == 2 * len(codes)
