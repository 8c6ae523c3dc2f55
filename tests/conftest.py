"""Fixtures every folder may use: where the raw official files and the built cache are, the pages as Dash loaded
them, and ``run`` for the command line.  Folder conftests hold the rest (browser/, loaders/, server/); helpers
that are not fixtures live in the ``support`` package (tests/support/)."""
from __future__ import annotations

import os
import sys
import tempfile

import pytest

# This machine (and CI, its copy) sets PYTHONDONTWRITEBYTECODE=1: then every process the suite starts (each worker,
# each gunicorn server, each CLI subprocess) compiles the project again, and pytest rewrites every test module's
# asserts again in each worker (13 of a worker's 21 s of collection CPU).  The suite writes its bytecode into
# __pycache__ (git-ignored) and its processes read it back; set here, before pytest-xdist starts its workers.
sys.dont_write_bytecode = False
os.environ.pop("PYTHONDONTWRITEBYTECODE", None)

# Under pytest-xdist each worker gets its own private Flask cache folder (rerun slots, jobs, tables),
# so two workers never see each other's heavy-work slots; inside ANONSET_FLASK_CACHE_DIR when one is set.
if os.environ.get("PYTEST_XDIST_WORKER"):
    _base = os.environ.get("ANONSET_FLASK_CACHE_DIR")
    os.environ["ANONSET_FLASK_CACHE_DIR"] = tempfile.mkdtemp(
        prefix=f"anonset-{os.environ['PYTEST_XDIST_WORKER']}-", dir=_base if _base and os.path.isdir(_base) else None)

from census_loaders.paths import cache_dir, raw_dir  # noqa: E402  (after the environment above is set)

#: Processes for ``-n auto`` (the default, see pyproject's addopts): one more than the 2-core machine the suite is
#: sized for has cores, since the fast lane's processes also wait on servers and subprocesses (fast lane, three runs
#: each: median 147 s with three processes, 160 s with two).  Each test file runs in one process (``--dist loadfile``).
MAX_WORKERS = 3


def pytest_xdist_auto_num_workers(config):
    """Three processes for a run over folders or several files; none (in-process, no start-up cost) for one file or
    single tests, which ``--dist loadfile`` would put on one worker anyway."""
    args = [a for a in config.args if not a.startswith("-")]
    files = {a.split("::")[0] for a in args}
    if args and len(files) <= 1 and all(os.path.isfile(f) for f in files):
        return 0
    return min(MAX_WORKERS, (os.cpu_count() or 1) + 1)


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
