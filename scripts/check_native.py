"""Check that every compiled module of ``pipeline.native`` is present where the package is
installed, and (unless ``--files``) that the package imports it.

    python scripts/check_native.py [--files]

``--files`` only looks for the module files (``MODULES`` read from the package's source, not
imported): the sanitizer build's modules load only with the sanitizer runtimes preloaded.
Exit status 1 names every module that is missing.
"""

from __future__ import annotations

import argparse
import ast
import importlib.util
import sys
from importlib.machinery import EXTENSION_SUFFIXES
from pathlib import Path


def declared_modules(init: Path) -> tuple[str, ...]:
    """``MODULES`` as ``pipeline/native/__init__.py`` declares it (read, not imported)."""
    for node in ast.parse(init.read_text("utf-8")).body:
        if isinstance(node, ast.Assign) and any(
                isinstance(target, ast.Name) and target.id == "MODULES" for target in node.targets):
            return tuple(ast.literal_eval(node.value))
    raise SystemExit(f"check_native: {init} declares no MODULES")


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--files", action="store_true", help="look for the files only")
    args = parser.parse_args()
    spec = importlib.util.find_spec("pipeline")
    if spec is None or spec.origin is None:
        print("check_native: the pipeline package is not installed", file=sys.stderr)
        return 1
    folder = Path(spec.origin).parent / "native"
    names = declared_modules(folder / "__init__.py")
    missing = [name for name in names
               if not any((folder / f"{name}{suffix}").is_file() for suffix in EXTENSION_SUFFIXES)]
    if missing:
        print(f"check_native: not built in {folder}: {', '.join(missing)}", file=sys.stderr)
        return 1
    if not args.files:
        import pipeline.native as native

        print(f"check_native: Lexbor {native.document.LEXBOR_VERSION}, ada "
              f"{native.urls.ADA_URL_VERSION}, CED {native.ced.CED_VERSION}")
    print(f"check_native: the {len(names)} compiled modules are in {folder}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
