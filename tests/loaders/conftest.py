"""Fixtures of the loader and build tests."""
from __future__ import annotations

import pytest
from support.loaders import SMALL_REGISTRY

from census_loaders import build as cache_build


@pytest.fixture
def small_registry(monkeypatch):
    """The build reads only the two quick population sources (:data:`support.loaders.SMALL_REGISTRY`),
    without the WPP consistency check and the world map (tests/loaders/test_wpp.py builds those)."""
    monkeypatch.setattr(cache_build, "POPULATION_LOADERS", SMALL_REGISTRY)
    monkeypatch.setattr(cache_build, "NATIONAL_MODEL", None)
    monkeypatch.setattr(cache_build, "WORLD_MAP", None)
