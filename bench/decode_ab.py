"""decode_html speed of this checkout against another revision, in the same run, interleaved.

    python -m bench.decode_ab REV [--rounds 5]

``REV`` (a commit) is exported with ``git archive`` into a temporary folder, with this
checkout's compiled extensions copied where REV imports them when their sources are the same,
and REV's own source compiled where it differs (a self-contained C module: ``_utf8.c``,
``_mojibake.c``, ...; a differing module that links a library ``setup.py`` builds, such as
``_document.c``, is this checkout's build in REV's tree too, which imports every compiled
module, or left to an older REV's pure-Python path; ``decode_html`` does not reach it);
then one subprocess per (tree, round) times ``decode_html`` on the undeclared pages of
``bench/__main__.py``'s decode table (chardet corpus, and 200 KB windows-1251 pages), best of
3 each in CPU time of the process (the machine is shared), the two trees taking turns round by
round. Prints MB/s (one core) per tree, the best round of each, and the ratio.
"""

from __future__ import annotations

import argparse
import ast
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


def _sources() -> dict[str, Path]:
    """This checkout's extension modules (setup.py's ``_extension(name, [source, ...])``):
    module name -> its first source, relative to the checkout."""
    found = {}
    for node in ast.walk(ast.parse((ROOT / "setup.py").read_text("utf-8"))):
        if (isinstance(node, ast.Call) and isinstance(node.func, ast.Name) and node.func.id == "_extension"
                and len(node.args) >= 2 and isinstance(node.args[1], ast.List)):
            found[node.args[0].value] = Path(node.args[1].elts[0].value)
    return found


def _export(rev: str, into: Path) -> Path:
    tree = into / "tree"
    tree.mkdir()
    archive = subprocess.run(["git", "archive", rev, "pipeline"], cwd=ROOT, capture_output=True, check=True).stdout
    subprocess.run(["tar", "-x", "-C", str(tree)], input=archive, check=True)
    # REV imports its modules from pipeline/native/ (one facade), or from beside their sources
    facade = (tree / "pipeline" / "native" / "__init__.py").exists()
    suffix = sysconfig.get_config_var("EXT_SUFFIX")
    for name, source in _sources().items():
        built = ROOT / "pipeline" / "native" / f"{name}{suffix}"
        theirs = tree / source
        target = (tree / "pipeline" / "native" if facade else theirs.parent) / built.name
        if not built.exists() or not target.parent.is_dir():
            continue
        if not theirs.exists() or theirs.read_bytes() == (ROOT / source).read_bytes():
            shutil.copy2(built, target)
        elif not _compile(theirs, target):
            # (a REV before the one facade has its pure-Python path for it instead)
            print(f"decode_ab: {rev}'s {source} does not build on its own (it links a library "
                  "setup.py builds): " + ("this checkout's build of it stands in" if facade else
                                          "its pure-Python path serves") + " (decode_html does not reach it)",
                  file=sys.stderr)
            if facade:
                shutil.copy2(built, target)
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
