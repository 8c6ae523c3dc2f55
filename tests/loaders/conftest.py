"""Fixtures of the loader and build tests."""
from __future__ import annotations

import pytest
from support.loaders import CARRIED_OVER_FILE, SMALL_REGISTRY

from census_loaders import build as cache_build


def _use_small_registry(mp: pytest.MonkeyPatch) -> None:
    mp.setattr(cache_build, "POPULATION_LOADERS", SMALL_REGISTRY)
    mp.setattr(cache_build, "NATIONAL_MODEL", None)
    mp.setattr(cache_build, "WORLD_MAP", None)


@pytest.fixture
def small_registry(monkeypatch):
    """The build reads only the two quick population sources (:data:`support.loaders.SMALL_REGISTRY`),
    without the WPP consistency check and the world map (tests/loaders/test_wpp.py builds those)."""
    _use_small_registry(monkeypatch)


@pytest.fixture(scope="session")
def small_build(raw_root, tmp_path_factory):
    """``(folder, manifest)``: a cache built once per process with the small registry and the derived files (the
    world aggregates and the explorer's country table, ``dashboard.cli.data.derived_files``, as ``anonset data
    build`` makes them) into a folder that already held :data:`CARRIED_OVER_FILE` (test_build.py, test_ncdrisc.py),
    and the manifest ``build`` returned.  Read it, or copy it (``shutil.copytree(folder, out, symlinks=True)``)
    before building over it: tests share it."""
    from dashboard.cli.data import derived_files

    folder, name, text = CARRIED_OVER_FILE
    out = tmp_path_factory.mktemp("small-cache") / "cache"
    (out / folder).mkdir(parents=True)
    (out / folder / name).write_text(text)
    with pytest.MonkeyPatch.context() as mp:
        _use_small_registry(mp)
        manifest = cache_build.build(raw_root, out, log=lambda m: None, derived=derived_files)
    return out, manifest


@pytest.fixture(scope="session")
def small_cache(small_build):
    """The folder of :func:`small_build`."""
    return small_build[0]
