"""decode_html speed of this checkout against another revision, in the same run, interleaved.

    python -m bench.decode_ab REV [--rounds 5]

``REV`` (a commit) is exported with ``git archive`` into a temporary folder, with this
checkout's compiled extensions copied beside its modules where their sources are the same,
and REV's own source compiled where it differs (a self-contained C module: ``_utf8.c``,
``_mojibake.c``, ...; a differing module that links a library ``setup.py`` builds, such as
``_document.c``, is left out, so that REV's pure-Python path serves it, which ``decode_html``
does not reach);
then one subprocess per (tree, round) times ``decode_html`` on the undeclared pages of
``bench/__main__.py``'s decode table (chardet corpus, and 200 KB windows-1251 pages), best of
3 each in CPU time of the process (the machine is shared), the two trees taking turns round by
round. Prints MB/s (one core) per tree, the best round of each, and the ratio.
"""

from __future__ import annotations

import argparse
import json
import shutil
import subprocess
import sys
import sysconfig
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent

_WORKER = r"""
import json, random, sys, time
sys.path.insert(0, sys.argv[1])
sys.path.insert(1, sys.argv[2])
from bench.__main__ import chardet_groups
from bench.crawl import page
from pipeline import decode_html
import pipeline
assert pipeline.__file__.startswith(sys.argv[1]), pipeline.__file__
groups = {"undeclared (chardet corpus)": chardet_groups()["undeclared"]}
rng = random.Random(1)
groups["undeclared windows-1251, 200 KB pages"] = [
    (page(rng, "ru", "cp1251", False, i, 200_000), "http://x.example/") for i in range(20)]
out = {}
for name, pages in groups.items():
    mb = sum(len(b) for b, _ in pages) / 1e6
    [decode_html(b, None, u) for b, u in pages]  # warm-up: imports, tables
    best = min(
        (lambda t0: ([decode_html(b, None, u) for b, u in pages], time.process_time() - t0)[1])(time.process_time())
        for _ in range(3))
    out[name] = mb / best
print(json.dumps(out))
"""


def _export(rev: str, into: Path) -> Path:
    tree = into / "tree"
    tree.mkdir()
    archive = subprocess.run(["git", "archive", rev, "pipeline"], cwd=ROOT, capture_output=True, check=True).stdout
    subprocess.run(["tar", "-x", "-C", str(tree)], input=archive, check=True)
    for built in ROOT.glob("pipeline/**/*.so"):
        target = tree / built.relative_to(ROOT)
        if not target.parent.is_dir():
            continue
        stem = built.name.split(".")[0]
        ours = [s for s in built.parent.glob(f"{stem}.c*") if s.suffix in (".c", ".cpp")]
        if not ours:  # a module built from a source this checkout no longer has: not ours to lend
            continue
        theirs = target.parent / ours[0].name
        if not theirs.exists() or theirs.read_bytes() == ours[0].read_bytes():
            shutil.copy2(built, target)
        elif not _compile(theirs, target):
            print(f"decode_ab: {rev}'s {theirs.relative_to(tree)} does not build on its own (it links a "
                  "library setup.py builds): that module's pure-Python path serves in that tree",
                  file=sys.stderr)
    return tree


def _compile(source: Path, target: Path) -> bool:
    """Build REV's own version of a self-contained C extension module as setup.py does; False
    when it does not build that way (a module that links a library setup.py compiles)."""
    include = sysconfig.get_paths()["include"]
    built = subprocess.run(["cc", "-shared", "-fPIC", "-O2", "-std=c11", f"-I{include}", f"-I{source.parent}",
                            str(source), "-o", str(target)], capture_output=True, check=False)
    if built.returncode != 0:
        target.unlink(missing_ok=True)
    return built.returncode == 0


def main(argv: list[str]) -> int:
    """Run the interleaved rounds and print the table."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("rev")
    parser.add_argument("--rounds", type=int, default=5)
    args = parser.parse_args(argv)
    with tempfile.TemporaryDirectory() as work:
        trees = {"this checkout": ROOT, args.rev: _export(args.rev, Path(work))}
        best: dict[str, dict[str, float]] = {name: {} for name in trees}
        for _ in range(args.rounds):
            for name, tree in trees.items():
                result = subprocess.run(
                    [sys.executable, "-c", _WORKER, str(tree), str(ROOT)],
                    capture_output=True, text=True, check=True, cwd=ROOT,
                )
                for group, rate in json.loads(result.stdout).items():
                    best[name][group] = max(best[name].get(group, 0.0), rate)
    names = list(trees)
    print(f"| pages | {names[0]} MB/s | {names[1]} MB/s | ratio |\n|---|---:|---:|---:|")
    for group in best[names[0]]:
        new, old = best[names[0]][group], best[names[1]][group]
        print(f"| {group} | {new:.1f} | {old:.1f} | {new / old:.2f} |")
    return 0


if __name__ == "__main__":
    raise SystemExit(main(sys.argv[1:]))
