"""House rules checked by the suite: lint, layering (no Dash in the core) and module sizes."""
from __future__ import annotations

import ast
import json
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
#: What the pure layers must not import (the app's web stack).
WEB = ("dash", "flask", "flask_caching", "plotly", "werkzeug")


def test_ruff_is_clean():
    """The ruff configuration in pyproject.toml holds for the whole repository."""
    pytest.importorskip("ruff", reason="ruff is in the test extra: pip install -e '.[test]'")
    out = subprocess.run([sys.executable, "-m", "ruff", "check", "--no-cache", "--output-format", "concise", "."],
                         cwd=ROOT, capture_output=True, text=True, timeout=120, check=False)
    assert out.returncode == 0, out.stdout[-4000:] + out.stderr[-2000:]


def _imports(path: Path) -> set[str]:
    names = set()
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.Import):
            names |= {a.name.split(".")[0] for a in node.names}
        elif isinstance(node, ast.ImportFrom) and node.module and node.level == 0:
            names.add(node.module.split(".")[0])
    return names


@pytest.mark.parametrize("package", ["dashboard/core", "census_loaders"])
def test_pure_layers_import_no_web_stack(package):
    """core/ and census_loaders/ import no Dash, Flask or plotly — not even inside a function."""
    offenders = {str(p.relative_to(ROOT)): sorted(_imports(p) & set(WEB)) for p in (ROOT / package).rglob("*.py")}
    assert {k: v for k, v in offenders.items() if v} == {}


def test_importing_the_pure_layers_loads_no_web_stack():
    """At run time too: every module of core/ and census_loaders/ imported in a fresh interpreter."""
    code = (
        "import importlib, json, pkgutil, sys\n"
        "import census_loaders, dashboard.core\n"
        "for pkg in (census_loaders, dashboard.core):\n"
        "    for m in pkgutil.walk_packages(pkg.__path__, pkg.__name__ + '.'):\n"
        "        importlib.import_module(m.name)\n"
        f"print(json.dumps(sorted(m for m in sys.modules if m.split('.')[0] in {WEB!r})))\n"
    )
    out = subprocess.run([sys.executable, "-c", code], cwd=ROOT, capture_output=True, text=True, timeout=120,
                         check=False)
    assert out.returncode == 0, out.stderr[-2000:]
    assert json.loads(out.stdout.strip().splitlines()[-1]) == []


def test_pages_are_thin_and_no_source_file_is_huge():
    """Pages keep layout and short callbacks (< 500 lines); no source module reaches 900 lines."""
    pages = {p.name: len(p.read_text(encoding="utf-8").splitlines()) for p in (ROOT / "dashboard" / "pages").glob("*.py")}
    assert {k: n for k, n in pages.items() if n >= 500} == {}
    sources = [*ROOT.glob("dashboard/**/*.py"), *ROOT.glob("census_loaders/*.py")]
    sizes = {str(p.relative_to(ROOT)): len(p.read_text(encoding="utf-8").splitlines()) for p in sources}
    assert {k: n for k, n in sizes.items() if n >= 900} == {}


def test_views_are_importable_without_the_app():
    """A view is an ordinary module: importing every one registers no page and loads no app."""
    code = (
        "import json, sys, dash\n"
        "from dashboard import views\n"
        "mods = views.modules()\n"
        "print(json.dumps([[m.__name__ for m in mods], len(dash.page_registry), 'dashboard.app' in sys.modules]))\n"
    )
    out = subprocess.run([sys.executable, "-c", code], cwd=ROOT, capture_output=True, text=True, timeout=120,
                         check=False)
    assert out.returncode == 0, out.stderr[-2000:]
    names, registered, app_loaded = json.loads(out.stdout.strip().splitlines()[-1])
    assert {"dashboard.views.personal", "dashboard.views.explorer", "dashboard.views.scaling",
            "dashboard.views.anonland"} <= set(names)
    assert registered == 0 and app_loaded is False
