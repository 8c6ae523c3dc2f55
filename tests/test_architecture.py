"""The shape of the code, checked: layer contracts, no import cycle, no private name crossing a module.

The contracts live in pyproject.toml ([tool.importlinter]); these tests run them and check what
import-linter does not: that no module anywhere in dashboard/ and census_loaders/ takes part in an
import cycle, that a private (``_x``) name is never imported from another module, and that each
core subpackage's public ``__init__`` lists exactly what it imports.
"""
from __future__ import annotations

import ast
import importlib
import re
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
PACKAGES = ("dashboard", "census_loaders")


def _lint_imports(config: Path | None = None) -> subprocess.CompletedProcess:
    pytest.importorskip("importlinter", reason="import-linter is in the test extra: pip install -e '.[test]'")
    exe = shutil.which("lint-imports", path=str(Path(sys.executable).parent)) or shutil.which("lint-imports")
    args = [exe] if exe else [sys.executable, "-m", "importlinter.cli"]
    if config is not None:
        args += ["--config", str(config)]
    return subprocess.run([*args, "--no-cache"], cwd=ROOT, capture_output=True, text=True, timeout=300, check=False)


def test_the_import_contracts_hold():
    """pyproject.toml's layers (pages → views → figures/components → core → loaders, and the core's
    own layers) and forbidden imports (no web stack in the core) are kept."""
    out = _lint_imports()
    assert out.returncode == 0, out.stdout[-4000:] + out.stderr[-2000:]


def test_a_broken_contract_fails(tmp_path):
    """The contracts can fail: the same checker with the core placed above the views reports a break."""
    text = (ROOT / "pyproject.toml").read_text(encoding="utf-8")
    broken = text.replace('    "dashboard.views",\n    "dashboard.figures | dashboard.components",\n    "dashboard.core",\n',
                          '    "dashboard.core",\n    "dashboard.figures | dashboard.components",\n    "dashboard.views",\n')
    assert broken != text, "the app-layers contract changed shape; update this test"
    config = tmp_path / "pyproject.toml"
    config.write_text(broken, encoding="utf-8")
    out = _lint_imports(config)
    assert out.returncode != 0
    assert "BROKEN" in out.stdout and "dashboard.views" in out.stdout


def _module_name(path: Path) -> str:
    parts = list(path.relative_to(ROOT).with_suffix("").parts)
    if parts[-1] == "__init__":
        parts = parts[:-1]
    return ".".join(parts)


def _sources():
    for package in PACKAGES:
        yield from sorted((ROOT / package).rglob("*.py"))


def _absolute(module: str, node: ast.ImportFrom, is_package: bool) -> str:
    if not node.level:
        return node.module or ""
    base = module.split(".")
    base = base if is_package else base[:-1]
    base = base[: len(base) - (node.level - 1)]
    return ".".join(base + ([node.module] if node.module else []))


def _import_graph() -> dict[str, set[str]]:
    """Module → the project modules it imports, anywhere in the file (inside functions too)."""
    modules = {_module_name(p): p for p in _sources()}
    graph: dict[str, set[str]] = {m: set() for m in modules}
    for name, path in modules.items():
        is_package = path.name == "__init__.py"
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            targets = []
            if isinstance(node, ast.Import):
                targets = [a.name for a in node.names]
            elif isinstance(node, ast.ImportFrom):
                base = _absolute(name, node, is_package)
                targets = [f"{base}.{a.name}" if f"{base}.{a.name}" in modules else base for a in node.names]
            for t in targets:
                while t and t not in modules:
                    t = t.rpartition(".")[0]
                if t and t != name:
                    graph[name].add(t)
    return graph


def _cycles(graph: dict[str, set[str]]) -> list[list[str]]:
    """Strongly connected components of more than one module (Tarjan, iterative)."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on_stack: set[str] = set()
    found = []
    counter = 0
    for root in sorted(graph):
        if root in index:
            continue
        work = [(root, iter(sorted(graph[root])))]
        index[root] = low[root] = counter
        counter += 1
        stack.append(root)
        on_stack.add(root)
        while work:
            v, it = work[-1]
            w = next(it, None)
            if w is not None:
                if w not in index:
                    index[w] = low[w] = counter
                    counter += 1
                    stack.append(w)
                    on_stack.add(w)
                    work.append((w, iter(sorted(graph[w]))))
                elif w in on_stack:
                    low[v] = min(low[v], index[w])
                continue
            work.pop()
            if work:
                low[work[-1][0]] = min(low[work[-1][0]], low[v])
            if low[v] == index[v]:
                component = []
                while True:
                    w = stack.pop()
                    on_stack.discard(w)
                    component.append(w)
                    if w == v:
                        break
                if len(component) > 1:
                    found.append(sorted(component))
    return found


def test_no_import_cycle_anywhere():
    """Not in the core, not between the app and its server, not through an import inside a function.

    A package's ``__init__`` importing its own private modules is not a cycle, but a private module
    importing its package's ``__init__`` (``from . import x`` where x is a name, not a module) is."""
    assert _cycles(_import_graph()) == []


def test_the_cycle_finder_finds_a_cycle():
    assert _cycles({"a": {"b"}, "b": {"c"}, "c": {"a"}, "d": {"a"}}) == [["a", "b", "c"]]
    assert _cycles({"a": {"b"}, "b": set()}) == []


def test_no_private_name_crosses_a_module():
    """``from x import _y`` (or a private module of another package) appears nowhere in dashboard/
    or census_loaders/: what another module needs is public."""
    offenders = []
    for path in _sources():
        name = _module_name(path)
        own_package = name if path.name == "__init__.py" else name.rpartition(".")[0]
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if not isinstance(node, ast.ImportFrom) or node.module == "__future__":
                continue
            source = _absolute(name, node, path.name == "__init__.py")
            siblings = {m.stem for m in (ROOT / Path(*source.split("."))).glob("_*.py")} if source == own_package else set()
            private_names = [a.name for a in node.names if a.name.startswith("_") and a.name not in siblings]
            # a private module may only be imported by its own package
            parts = source.split(".")
            for i, part in enumerate(parts):
                if part.startswith("_") and not part.startswith("__") and ".".join(parts[:i]) != own_package:
                    offenders.append(f"{path.relative_to(ROOT)}:{node.lineno}: private module {source}")
            if private_names:
                offenders.append(f"{path.relative_to(ROOT)}:{node.lineno}: {source} {private_names}")
    assert offenders == []


CORE_PACKAGES = sorted(p.parent.name for p in (ROOT / "dashboard" / "core").glob("*/__init__.py"))


@pytest.mark.parametrize("package", CORE_PACKAGES)
def test_core_subpackages_have_a_public_init(package):
    """Each core subpackage: a docstring, ``__all__`` naming exactly what its ``__init__`` imports,
    every name real, and nothing but private modules behind it."""
    path = ROOT / "dashboard" / "core" / package / "__init__.py"
    tree = ast.parse(path.read_text(encoding="utf-8"))
    assert ast.get_docstring(tree), f"{package}/__init__.py needs a docstring saying what lives here"
    imported = {a.asname or a.name for n in tree.body if isinstance(n, ast.ImportFrom) and n.module != "__future__"
                for a in n.names}
    module = importlib.import_module(f"dashboard.core.{package}")
    assert sorted(module.__all__) == sorted(imported)
    assert all(hasattr(module, n) for n in module.__all__)
    public_modules = [p.name for p in path.parent.glob("*.py") if not re.match(r"_", p.name) and p.name != "testing.py"]
    assert public_modules == [], f"modules behind dashboard.core.{package} are private (_name.py)"
