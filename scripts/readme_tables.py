"""Copy the tables of bench/RESULTS.md (written by `make bench WRITE=1`) into README.md and
the pages of docs/.

    .venv/bin/python scripts/readme_tables.py [--check]

A page marks each copied block with ``<!-- bench: SELECTOR -->`` ... ``<!-- /bench -->``. The
selector is the prefix of a RESULTS.md ``##`` heading: the block becomes that section, its own
heading one level down (``###``; its ``###`` subsections ``####``). ``PREFIX#top`` keeps the
section without its subsections; ``PREFIX#SUB`` keeps only the subsection whose heading starts
with ``SUB``, as a ``###`` section. ``--check`` exits 1 when a page is not what the results give,
naming it.
"""

from __future__ import annotations

import re
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
_BLOCK = re.compile(r"(<!-- bench: (?P<selector>.+?) -->\n)(?P<body>.*?)(<!-- /bench -->)", re.S)


def _split(text: str, level: str) -> dict[str, str]:
    """``text``'s sections at heading ``level`` (``"## "``) by heading, each with what follows."""
    found: dict[str, str] = {}
    for chunk in re.split(rf"(?m)^(?={level})", text):
        if chunk.startswith(level):
            found[chunk.split("\n", 1)[0][len(level):]] = chunk
    return found


def sections(results: str) -> dict[str, str]:
    """RESULTS.md's ``##`` sections by heading, each with its subsections."""
    return _split(results, "## ")


def _select(known: dict[str, str], selector: str) -> str:
    prefix, _, part = selector.partition("#")
    heading = next((h for h in known if h.startswith(prefix)), None)
    if heading is None:
        raise SystemExit(f"no section of bench/RESULTS.md starts with {prefix!r}")
    section = known[heading]
    if part == "top":
        return re.split(r"(?m)^(?=### )", section)[0]
    if part:
        subsections = _split(section, "### ")
        sub = next((h for h in subsections if h.startswith(part)), None)
        if sub is None:
            raise SystemExit(f"no subsection of {heading!r} starts with {part!r}")
        return "## " + subsections[sub][len("### "):]
    return section


def render(page: str, results: str) -> str:
    """``page`` with every marked block replaced by its part of ``results``."""
    known = sections(results)

    def replace(match: re.Match[str]) -> str:
        chosen = _select(known, match["selector"])
        body = re.sub(r"(?m)^(#{2,3}) ", lambda m: "#" + m[1] + " ", chosen).rstrip()
        return f"{match[1]}{body}\n\n{match[4]}"

    return _BLOCK.sub(replace, page)


def pages() -> list[Path]:
    """The pages that may hold marked blocks: README.md and docs/*.md."""
    return [ROOT / "README.md", *sorted((ROOT / "docs").glob("*.md"))]


def main(argv: list[str]) -> int:
    results = (ROOT / "bench" / "RESULTS.md").read_text(encoding="utf-8")
    stale = []
    for path in pages():
        page = path.read_text(encoding="utf-8")
        try:
            rendered = render(page, results)
        except SystemExit as error:
            raise SystemExit(f"{path.relative_to(ROOT)}: {error}") from None
        if rendered == page:
            continue
        if "--check" in argv:
            stale.append(str(path.relative_to(ROOT)))
        else:
            path.write_text(rendered, encoding="utf-8")
    if stale:
        print("not what bench/RESULTS.md gives: " + ", ".join(stale), file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
