"""Fixtures every folder may use: where the raw official files and the built cache are, the pages as Dash loaded
them, and ``run`` for the command line.  Folder conftests hold the rest (browser/, loaders/, server/); helpers
that are not fixtures live in the ``support`` package (tests/support/)."""
from __future__ import annotations

import os
import sys
import tempfile

import pytest

# Under pytest-xdist each worker gets its own private Flask cache folder (rerun slots, jobs, tables),
# so two workers never see each other's heavy-work slots.
if os.environ.get("PYTEST_XDIST_WORKER") and "ANONSET_FLASK_CACHE_DIR" not in os.environ:
    os.environ["ANONSET_FLASK_CACHE_DIR"] = tempfile.mkdtemp(prefix=f"anonset-{os.environ['PYTEST_XDIST_WORKER']}-")

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


@pytest.fixture(scope="session")
def dash_page(cache_root):
    """``dash_page("explorer")``: a page module as Dash loaded it (``pages.<name>``), whose callbacks are the served ones.

    Importing ``dashboard.pages.<name>`` instead would run the module a second time and
    register its path twice, which makes every later request to the app fail.
    """

    from dashboard.wsgi import app  # noqa: F401  (loads the pages)

    return lambda name: sys.modules[f"pages.{name}"]


@pytest.fixture
def run(request, monkeypatch, capsys):
    """``run(*argv) -> (exit code, stdout, stderr)``: ``anonset`` in-process, for a module marked
    ``pytestmark = pytest.mark.cli("dashboard.cli.<topic>", *leading_argv)``.

    Only that topic's module is loaded, so other topics' imports cannot interfere; the leading
    arguments (e.g. ``"cas"``) are put before ``argv``.
    """
    from dashboard import cli

    marker = request.node.get_closest_marker("cli")
    if marker is None or not marker.args:
        pytest.fail('the run fixture needs pytest.mark.cli("dashboard.cli.<topic>", *leading_argv) on the test')
    module, *lead = marker.args
    monkeypatch.setattr(cli, "COMMAND_MODULES", [module])

    def call(*argv):
        code = cli.main([*lead, *argv])
        out = capsys.readouterr()
        return code, out.out, out.err

    return call
