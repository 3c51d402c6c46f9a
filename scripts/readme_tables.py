"""Copy the tables of bench/RESULTS.md (written by `make bench WRITE=1`) into README.md.

    .venv/bin/python scripts/readme_tables.py [--check]

README.md marks each copied block with ``<!-- bench: HEADING PREFIX -->`` ...
``<!-- /bench -->``; the block becomes the RESULTS.md section whose ``##`` heading starts with
that prefix (its own heading one level down, ``###``; its ``###`` subsections ``####``).
``--check`` exits 1 when README.md is not what the results give.
"""

from __future__ import annotations

import re
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
_BLOCK = re.compile(r"(<!-- bench: (?P<prefix>.+?) -->\n)(?P<body>.*?)(<!-- /bench -->)", re.S)


def sections(results: str) -> dict[str, str]:
    """RESULTS.md's ``##`` sections by heading, each with its subsections."""
    found: dict[str, str] = {}
    for chunk in re.split(r"(?m)^(?=## )", results):
        if chunk.startswith("## "):
            heading = chunk.split("\n", 1)[0][3:]
            found[heading] = chunk
    return found


def render(readme: str, results: str) -> str:
    """``readme`` with every marked block replaced by its section of ``results``."""
    known = sections(results)

    def replace(match: re.Match[str]) -> str:
        prefix = match["prefix"]
        heading = next((h for h in known if h.startswith(prefix)), None)
        if heading is None:
            raise SystemExit(f"README.md: no section of bench/RESULTS.md starts with {prefix!r}")
        body = re.sub(r"(?m)^(#{2,3}) ", lambda m: "#" + m[1] + " ", known[heading]).rstrip()
        return f"{match[1]}{body}\n\n{match[4]}"

    return _BLOCK.sub(replace, readme)


def main(argv: list[str]) -> int:
    readme_path = ROOT / "README.md"
    readme = readme_path.read_text(encoding="utf-8")
    rendered = render(readme, (ROOT / "bench" / "RESULTS.md").read_text(encoding="utf-8"))
    if "--check" in argv:
        return 0 if rendered == readme else 1
    readme_path.write_text(rendered, encoding="utf-8")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
