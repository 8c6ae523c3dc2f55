"""Fixtures of the loader and build tests."""
from __future__ import annotations

import pytest
from support.loaders import SMALL_REGISTRY

from census_loaders import build as cache_build


@pytest.fixture
def small_registry(monkeypatch):
    """The build reads only the two quick population sources (:data:`support.loaders.SMALL_REGISTRY`)."""
    monkeypatch.setattr(cache_build, "POPULATION_LOADERS", SMALL_REGISTRY)
