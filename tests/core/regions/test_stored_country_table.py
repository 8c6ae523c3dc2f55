"""The default country table the build stores (issues 25, 26): the same rows as computed, and a cache without an
intact copy computes them again (the server refuses such a cache at start, like any damaged file)."""
from __future__ import annotations

import shutil

import pandas as pd
import pytest

from census_loaders import cache, checksums
from dashboard.core.regions import (
    COUNTRY_TABLE_KEY,
    STORED_TABLE_AGES,
    STORED_TABLE_FILE,
    comparable_country_rows,
    comparable_country_table,
    country_table_frame,
    stored_country_rows,
)

#: A sample, not all 192: 5-year groups, the UK's single years regrouped, a national model, a ZIP-code grain,
#: and the first and last data sets in code order.
SAMPLE = ("DE", "GB", "NZ", "US-ZCTA", "JP")


def computed(code: str, root=None) -> pd.DataFrame:
    return country_table_frame(list(comparable_country_rows(code, STORED_TABLE_AGES, root=root)))


def test_the_cache_stores_every_data_sets_default_rows_checksummed(cache_root):
    manifest = cache.manifest(cache_root)
    entry = manifest[COUNTRY_TABLE_KEY]
    assert (entry["file"], entry["ages"], entry["grain"]) == (STORED_TABLE_FILE, "18–75", "5")
    assert manifest["files"][STORED_TABLE_FILE] == checksums.sha256(cache_root / STORED_TABLE_FILE)
    stored = stored_country_rows(cache_root)
    assert sorted(stored) == cache.countries(cache_root)
    assert entry["rows"] == sum(len(rows) for rows in stored.values()) == 2 * len(stored)


@pytest.mark.parametrize("code", [*SAMPLE, "first", "last"])
def test_stored_rows_equal_the_computed_ones(cache_root, code):
    codes = cache.countries(cache_root)
    code = {"first": codes[0], "last": codes[-1]}.get(code, code)
    stored = country_table_frame(list(stored_country_rows(cache_root)[code]))
    pd.testing.assert_frame_equal(stored, computed(code, cache_root), check_exact=True)
    # and the table every caller reads for the default range is the stored one
    pd.testing.assert_frame_equal(comparable_country_table([code], STORED_TABLE_AGES, root=cache_root), stored,
                                  check_exact=True)


@pytest.fixture
def copied_cache(cache_root, tmp_path):
    """The shipped cache with its own manifest and stored table (everything else linked, not copied)."""
    root = tmp_path / "cache"
    root.mkdir()
    for item in cache_root.iterdir():
        if item.name not in ("manifest.json", "tables"):
            (root / item.name).symlink_to(item)
    shutil.copy(cache_root / "manifest.json", root / "manifest.json")
    (root / "tables").mkdir()
    shutil.copy(cache_root / STORED_TABLE_FILE, root / STORED_TABLE_FILE)
    return root


def _damage(path):
    data = bytearray(path.read_bytes())
    data[len(data) // 2] ^= 0xFF
    path.write_bytes(bytes(data))


@pytest.mark.parametrize("how", ["damaged", "missing", "old cache"])
def test_a_cache_without_an_intact_copy_computes_the_rows(copied_cache, how):
    path = copied_cache / STORED_TABLE_FILE
    assert stored_country_rows(copied_cache) is not None  # the copy itself is intact
    if how == "damaged":
        _damage(path)
    elif how == "missing":
        path.unlink()
    else:  # built before the build stored the table: no entry, no checksum, no file
        manifest = checksums.read(copied_cache)
        del manifest[COUNTRY_TABLE_KEY]
        path.unlink()
        checksums.record(copied_cache, manifest)
    cache.clear_tables()
    assert stored_country_rows(copied_cache) is None
    pd.testing.assert_frame_equal(comparable_country_table(["DE"], STORED_TABLE_AGES, root=copied_cache),
                                  computed("DE", copied_cache), check_exact=True)
    # the rule for damaged data: the server and `anonset data summary` refuse the cache, naming the file
    expected = {"damaged": [f"{path}: checksum mismatch"], "missing": [f"{path}: missing"], "old cache": []}[how]
    assert [line for line in checksums.verify(copied_cache) if STORED_TABLE_FILE in line] == expected
