"""Shared fixtures: where the raw official files and the built cache are."""
from __future__ import annotations

import pytest

from census_loaders.paths import cache_dir, raw_dir


@pytest.fixture(scope="session")
def raw_root():
    root = raw_dir()
    if not root.exists():
        pytest.skip(f"raw data folder {root} is not present")
    return root


@pytest.fixture(scope="session")
def cache_root():
    root = cache_dir()
    if not (root / "manifest.json").exists():
        pytest.skip("data_cache/ has not been built")
    return root
