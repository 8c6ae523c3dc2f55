"""The node unit tests of the page's JavaScript (tests/js/*.test.js, ``node --test``), run by the suite:
the personal page's clientside callbacks (assets/personal_page.js) over the named field contract, the one
URL sync (assets/url_sync.js), the map's recolouring in place (assets/map_recolour.js), and the engine's text
against the golden table (tests/js/golden_text.json)."""
from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
NODE = shutil.which("node") or shutil.which("nodejs")
TESTS = sorted((ROOT / "tests" / "js").glob("*.test.js"))

pytestmark = pytest.mark.skipif(NODE is None, reason="node is not installed (apt-get install nodejs): "
                                                     "the JavaScript unit tests need it")


@pytest.fixture(scope="module")
def fixtures_file(tmp_path_factory, cache_root):
    """The Python side's fixtures for node (tests/js/fixtures.py), written once."""
    sys.path.insert(0, str(ROOT / "tests" / "js"))
    from fixtures import fixtures

    path = tmp_path_factory.mktemp("js") / "fixtures.json"
    path.write_text(json.dumps(fixtures(), allow_nan=False))
    return path


@pytest.mark.parametrize("test_file", TESTS, ids=[p.name for p in TESTS])
def test_node_unit_tests_pass(test_file, fixtures_file):
    env = {**os.environ, "ANONSET_JS_FIXTURES": str(fixtures_file), "ANONSET_PYTHON": sys.executable}
    out = subprocess.run([NODE, "--test", str(test_file)], cwd=ROOT, env=env, capture_output=True, text=True,
                         timeout=300)
    assert out.returncode == 0, (out.stdout[-6000:] + out.stderr[-2000:])
    assert "# fail 0" in out.stdout and "# pass 0" not in out.stdout, out.stdout[-2000:]


def test_there_are_unit_tests_of_the_personal_page():
    assert {p.name for p in TESTS} >= {"personal_page.test.js", "golden_text.test.js"}
