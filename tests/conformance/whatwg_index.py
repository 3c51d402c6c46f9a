"""The WHATWG index files of the shared corpus, read independently of the bundled tables."""

from __future__ import annotations

from pathlib import Path


def index_file(corpus: Path, name: str) -> dict[int, int]:
    """``index-<name>.txt`` as pointer → code point."""
    table = {}
    for line in (corpus / "whatwg-encoding" / f"index-{name}.txt").read_text("utf-8").split("\n"):
        if line.startswith("#") or not line.strip():
            continue
        pointer, code_point = line.split()[:2]
        table[int(pointer)] = int(code_point, 16)
    return table
