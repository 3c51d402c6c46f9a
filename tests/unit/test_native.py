"""The compiled core's boundary (pipeline/native/): one facade imports every extension module,
nothing else in the package does, the facade's list is the build's, and each module has
its typed stub (``make lint`` runs mypy's stubtest over them against the built modules)."""

from __future__ import annotations

import ast
import re
from importlib.machinery import EXTENSION_SUFFIXES
from pathlib import Path

import pipeline.native as native

ROOT = Path(__file__).resolve().parents[2]
PACKAGE = ROOT / "pipeline"
FACADE = PACKAGE / "native" / "__init__.py"


def _setup_modules() -> list[str]:
    """The module names setup.py builds (``_extension("name", ...)`` calls)."""
    names = []
    for node in ast.walk(ast.parse((ROOT / "setup.py").read_text("utf-8"))):
        if (isinstance(node, ast.Call) and isinstance(node.func, ast.Name) and node.func.id == "_extension"
                and node.args and isinstance(node.args[0], ast.Constant)):
            names.append(node.args[0].value)
    return names


def _imported_modules(path: Path) -> set[str]:
    """Every module ``path`` imports (``from a import b`` counts ``a.b`` too), and every
    string constant naming a module of the package (``importlib.import_module("...")``)."""
    found: set[str] = set()
    package = ".".join(path.relative_to(ROOT).with_suffix("").parts[:-1])
    for node in ast.walk(ast.parse(path.read_text("utf-8"))):
        if isinstance(node, ast.Import):
            found.update(alias.name for alias in node.names)
        elif isinstance(node, ast.ImportFrom):
            base = node.module or ""
            if node.level:
                base = ".".join(package.split(".")[: len(package.split(".")) - node.level + 1] + [base]).strip(".")
            found.add(base)
            found.update(f"{base}.{alias.name}" for alias in node.names)
        elif isinstance(node, ast.Constant) and isinstance(node.value, str) and node.value.startswith("pipeline."):
            found.add(node.value)
    return found


def test_the_facade_lists_what_setup_py_builds() -> None:
    assert sorted(_setup_modules()) == sorted(native.MODULES)
    assert len(set(native.MODULES)) == len(native.MODULES) == 10


def test_the_facade_imports_every_module_and_names_each_once() -> None:
    imported = {name.rpartition(".")[2] for name in _imported_modules(FACADE)
                if name.startswith("pipeline.native._")}
    assert imported == set(native.MODULES)
    for name in native.MODULES:
        assert getattr(native, name.lstrip("_")).__name__ == f"pipeline.native.{name}"


def test_only_the_facade_imports_the_compiled_modules() -> None:
    compiled = {f"pipeline.native.{name}" for name in native.MODULES}
    importers = {
        str(path.relative_to(ROOT)): sorted(_imported_modules(path) & compiled)
        for path in sorted(PACKAGE.rglob("*.py"))
        if path != FACADE and _imported_modules(path) & compiled
    }
    assert importers == {}


def test_every_module_has_its_stub_and_its_build() -> None:
    folder = FACADE.parent
    for name in native.MODULES:
        assert (folder / f"{name}.pyi").is_file(), name
        assert any((folder / f"{name}{suffix}").is_file() for suffix in EXTENSION_SUFFIXES), name
    stubs = {path.stem for path in folder.glob("_*.pyi")}
    assert stubs == set(native.MODULES)


def _setup_extensions() -> dict[str, tuple[list[str], list[str]]]:
    """Each module setup.py builds: (its sources, the files it depends on), as written there
    (``ADA_BASE`` resolved)."""
    tree = ast.parse((ROOT / "setup.py").read_text("utf-8"))
    names = {node.targets[0].id: node.value.value for node in tree.body
             if isinstance(node, ast.Assign) and isinstance(node.targets[0], ast.Name)
             and isinstance(node.value, ast.Constant) and isinstance(node.value.value, str)}

    def paths(node: ast.expr) -> list[str]:
        assert isinstance(node, ast.List)
        return [item.value if isinstance(item, ast.Constant) else names[item.id]
                for item in node.elts]

    found = {}
    for node in ast.walk(tree):
        if isinstance(node, ast.Call) and isinstance(node.func, ast.Name) and node.func.id == "_extension":
            depends = next((paths(k.value) for k in node.keywords if k.arg == "depends"), [])
            found[node.args[0].value] = (paths(node.args[1]), depends)
    return found


def test_every_header_a_module_includes_is_in_its_depends() -> None:
    # setup.py's depends is what puts a header into the sdist: one left out builds in the
    # checkout and fails in the sdist's build (make package-check)
    include = re.compile(r'^\s*#\s*include\s+"([^"]+)"', re.MULTILINE)
    for name, (sources, depends) in _setup_extensions().items():
        wanted: set[str] = set()
        todo = list(sources) + [d for d in depends if not d.endswith(".h")]
        while todo:
            path = ROOT / todo.pop()
            for header in include.findall(path.read_text("utf-8", "replace")):
                local = (path.parent / header).resolve()
                if local.is_file() and ROOT in local.parents:
                    relative = str(local.relative_to(ROOT))
                    if relative not in wanted:
                        wanted.add(relative)
                        todo.append(relative)
        assert wanted <= set(depends), (name, sorted(wanted - set(depends)))


def test_no_python_twin_of_a_compiled_module_is_left_in_the_package() -> None:
    # One runtime path: no import guarded by ImportError stands in for a compiled module, and
    # no switch chooses between paths.
    for path in sorted(PACKAGE.rglob("*.py")):
        text = path.read_text("utf-8")
        for word in ("REDECODE_PURE_PYTHON", "native_status", "ced_status", "NATIVE ="):
            assert word not in text, (path, word)
