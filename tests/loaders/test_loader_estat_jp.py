"""Japan, census 2020 (``JP``): the spot values of data/raw/jp/PROVENANCE.md, the unknown ages spread in
proportion (checked against the closed form), the boundary file, and damaged copies of the census file."""
from __future__ import annotations

import json
from pathlib import Path

import pandas as pd
import pytest
from support.census_files import damaged_folder, replace_on, truncated_gzip
from support.loaders import raises_loader_error

import census_loaders as cl
from census_loaders import estat_jp
from census_loaders.schema import POPULATION_COLUMNS


@pytest.fixture(scope="module")
def folder(raw_root) -> Path:
    f = raw_root / "jp"
    if not (f / estat_jp.CENSUS_FILE).exists():
        pytest.skip("Japanese census files not present")
    return f


@pytest.fixture(scope="module")
def raw(folder) -> pd.DataFrame:
    return estat_jp.read_census(folder / estat_jp.CENSUS_FILE)


def _sum(df, **where) -> float:
    sel = pd.Series(True, index=df.index)
    for col, value in where.items():
        sel &= df[col] == value
    return float(df.loc[sel, "count"].sum())


def test_published_values(raw):
    assert len(raw) == 1_974 and raw["pref_code"].nunique() == 47
    assert _sum(raw) == 126_146_099
    assert (_sum(raw, sex="M"), _sum(raw, sex="F")) == (61_349_581, 64_796_518)
    unknown = raw[raw["age_group"] == "unknown"]
    assert (_sum(unknown, sex="M"), _sum(unknown, sex="F")) == (1_591_143, 1_340_695)
    assert _sum(unknown) == 2_931_838
    old = raw[raw["age_group"].isin([f"{a}-{a + 4}" for a in range(65, 95, 5)] + ["95+"])]
    assert _sum(old) == 35_335_805
    tokyo = raw[raw["pref_code"] == "13"]
    assert (_sum(tokyo), _sum(tokyo, sex="M"), _sum(tokyo, sex="F")) == (14_047_594, 6_898_388, 7_149_206)
    assert _sum(tokyo, sex="M", age_group="0-4") == 266_375
    assert (_sum(tokyo, sex="M", age_group="unknown"), _sum(tokyo, sex="F", age_group="unknown")) == (226_959, 201_780)
    osaka, tottori = raw[raw["pref_code"] == "27"], raw[raw["pref_code"] == "31"]
    assert (_sum(osaka), _sum(osaka, sex="M"), _sum(osaka, sex="F")) == (8_837_685, 4_235_956, 4_601_729)
    assert (_sum(tottori), _sum(tottori, sex="M"), _sum(tottori, sex="F")) == (553_407, 264_432, 288_975)


def test_unknown_ages_are_spread_in_proportion(cache_root):
    pop = cl.population("JP")
    assert list(pop.columns) == list(POPULATION_COLUMNS) and len(pop) == 47 * 2 * 20
    assert _sum(pop) == pytest.approx(126_146_099, abs=1e-3)
    tokyo = pop[pop["district_id"] == "13"]
    assert _sum(tokyo, sex="male") == pytest.approx(6_898_388, abs=1e-6)
    # closed form: published × total / known, with total and known of Tokyo's men
    expected = 266_375 * 6_898_388 / (6_898_388 - 226_959)
    assert _sum(tokyo, sex="male", age_from=0.0) == pytest.approx(expected, rel=1e-12)
    assert tokyo["district_name"].iloc[0] == "Tokyo (東京都)" and tokyo["region_name"].iloc[0] == "Kanto (関東)"
    assert pop["age_to"].isna().sum() == 47 * 2 and pop["age_from"].max() == 95


def test_manifest_states_the_treatment_and_the_missing_outlines(cache_root):
    info = json.loads((cache_root / "manifest.json").read_text(encoding="utf-8"))["datasets"]["JP"]
    assert "2020" in info["name"] and info["districts"] == 47 and info["regions"] == 8
    assert any("2,931,838 people" in n and "in proportion" in n for n in info["notes"])
    b = info["boundaries"]
    # the staged boundary file has POLYGON EMPTY for Niigata (15) and Kagoshima (46): not drawn, said so
    assert b["missing_geometry"] == ["15", "46"] and b["features"] == 45
    assert any("Niigata (15" in n and "Kagoshima (46" in n for n in info["notes"])


def test_region_of_every_prefecture():
    assert [estat_jp.region_of(c)[0] for c in ("01", "02", "13", "15", "27", "31", "36", "47")] == \
        ["1", "2", "3", "4", "5", "6", "7", "8"]


# --------------------------------------------------------------------------- damaged copies

# line 2: 01,北海道,Hokkaido,M,0-4,0,83004,published
@pytest.mark.parametrize("edit, line, fragment", [
    (replace_on(2, ",83004,", ",-83004,"), 2, "population (01, M, 0-4) '-83004' is negative"),
    (replace_on(2, ",83004,", ",8300x,"), 2, "'8300x' is not a number"),
    (replace_on(2, "01,北海道", "48,北海道"), 2, "pref_code '48' is not a prefecture code"),
    (replace_on(2, ",M,0-4,", ",M,0-5,"), 2, "unknown age group '0-5'"),
    (replace_on(2, ",83004,published", ""), 2, "fields but the header has 8"),
    (lambda lines: lines[:1] + lines[2:], None, "no row for prefecture 01, M, age 0-4"),
    (lambda lines: lines + lines[1:2], 1976, "prefecture 01, M, age 0-4: listed twice (first on line 2)"),
])
def test_damaged_census_file(folder, tmp_path, edit, line, fragment):
    bad = damaged_folder(folder, tmp_path, estat_jp.CENSUS_FILE, edit)
    raises_loader_error(estat_jp.load, bad, file=estat_jp.CENSUS_FILE, line=line, fragments=(fragment,))


def test_truncated_census_file(folder, tmp_path):
    bad = damaged_folder(folder, tmp_path, estat_jp.CENSUS_FILE,
                         raw_bytes=truncated_gzip(folder / estat_jp.CENSUS_FILE))
    raises_loader_error(estat_jp.load, bad, file=estat_jp.CENSUS_FILE, line=None,
                        fragments=("gzip stream is damaged or truncated",))


@pytest.mark.slow
def test_a_damaged_census_file_keeps_the_previous_cache(raw_root, folder, tmp_path, monkeypatch):
    """The build stops on the damaged Japanese file with its name and line; the cache it built before is untouched."""
    import os

    from support.loaders import digest_tree

    from census_loaders import build as cache_build
    from census_loaders.registry import LoaderEntry
    from census_loaders.schema import LoaderError

    monkeypatch.setattr(cache_build, "POPULATION_LOADERS", [LoaderEntry("census_loaders.estat_jp", "jp")])
    out = tmp_path / "cache"
    cache_build.build(raw_root, out, log=lambda m: None)
    before = digest_tree(out)
    assert "population/JP.parquet" in before and "boundaries/JP.geojson" in before
    raw = tmp_path / "raw"
    raw.mkdir()
    for src in raw_root.iterdir():  # symlinks to the real folders, but a damaged jp/ folder
        if src.name != "jp":
            os.symlink(src, raw / src.name)
    damaged_folder(folder, raw, estat_jp.CENSUS_FILE, replace_on(2, ",83004,", ",-83004,"))  # writes raw/jp
    with pytest.raises(LoaderError, match=r"stat-japan_census2020.*line 2: population \(01, M, 0-4\) '-83004' is negative"):
        cache_build.build(raw, out, log=lambda m: None)
    assert digest_tree(out) == before
