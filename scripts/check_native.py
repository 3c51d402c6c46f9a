"""Check that every compiled module of ``pipeline.native`` is present where the package is
installed, and (unless ``--files``) that the package imports it and that the links table's
compiled builder (nanoarrow, in ``_urls``) hands pyarrow a batch equal to pyarrow's own
conversion of the same rows, built with the nanoarrow the build recorded.

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


def links_batch_problem(record: Path) -> str | None:
    """What is wrong with the links table's compiled builder as installed, or None."""
    import json

    import pyarrow as pa

    import pipeline.native as native
    from pipeline.extract import extract
    from pipeline.runners.worker import Rows, link_rows, links_table
    from pipeline.schema import LINKS

    built = json.loads(record.read_text("utf-8")).get("nanoarrow", "")
    if not built.startswith(native.urls.NANOARROW_VERSION + " "):
        return f"nanoarrow {native.urls.NANOARROW_VERSION} compiled in, the build recorded {built!r}"
    page = ("<a href=/a rel=nofollow>a</a><img src=https://b.example/i>"
            "<p style='background:url(http://c.example/c)'>x</p>")
    staged = [Rows(record={"run_id": "r", "record_id": f"<urn:{i}>", "url": url},
                   links=extract(page, url, "UTF-8").links)
              for i, url in enumerate(("http://a.example/", None))]
    expected = pa.Table.from_pylist([row for rows in staged for row in link_rows(rows)], schema=LINKS)
    if expected.num_rows != 5 or not links_table(staged).equals(expected):
        return "the compiled links table differs from pyarrow's conversion of its rows"
    return None


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

        problem = links_batch_problem(folder.parent / "_native.json")
        if problem is not None:
            print(f"check_native: {problem}", file=sys.stderr)
            return 1
        print(f"check_native: Lexbor {native.document.LEXBOR_VERSION}, ada "
              f"{native.urls.ADA_URL_VERSION}, CED {native.ced.CED_VERSION}, nanoarrow "
              f"{native.urls.NANOARROW_VERSION}")
    print(f"check_native: the {len(names)} compiled modules are in {folder}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
