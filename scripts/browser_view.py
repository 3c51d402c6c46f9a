"""Rebuild and score the browser-view expectations (``tests/browser_view/cases.jsonl``).

What Chromium shows (``document.characterSet``) for undeclared ``text/html`` pages, asked of a
real headless Chromium through ``../shared/oracle``. The pages are recipes
(:mod:`tests.browser_view.pages`): real text in every legacy encoding Chromium supports,
undeclared UTF-8 and 7-bit bodies, 120 B to 200 KB, dense and mostly-ASCII, each body under
``.com``, its language's country TLD and one more TLD drawn from Chromium's table and a few
generic ones. The cases fall in two halves by a hash of the recipe (``fit`` and
``held-out``), measured apart.

    python scripts/browser_view.py build  WORK      # bodies + the oracle's manifest in WORK
    python scripts/browser_view.py oracle WORK      # run Chromium over them (~0.1-0.2 s a page)
    python scripts/browser_view.py write  WORK      # WORK's verdicts -> tests/browser_view/cases.jsonl
    python scripts/browser_view.py report [--split held-out|fit|all] [--misses]

``report`` measures ``encoding_browser`` as the pipeline gives it: CED as Chromium calls it.
"""

from __future__ import annotations

import hashlib
import json
import subprocess
import sys
from collections import defaultdict
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from pipeline.encoding.api import decode_html  # noqa: E402
from pipeline.encoding.sniff.ced import CED_VERSION  # noqa: E402
from pipeline.encoding.sniff.tld_defaults import TLD_ENCODINGS  # noqa: E402
from tests.browser_view.pages import (  # noqa: E402
    CASES,
    DOTLESS,
    cases,
    load_cases,
    page_body,
    recipe_of,
    url_for,
)

ORACLE = ROOT.parent / "shared" / "oracle" / "oracle.py"
CONTENT_TYPE = "text/html"
def build(work: Path) -> None:
    (work / "bodies").mkdir(parents=True, exist_ok=True)
    with (work / "manifest.jsonl").open("w") as manifest:
        bodies: dict[str, str] = {}
        for recipe, tld, case_id in cases():
            if recipe.body_id not in bodies:
                body = page_body(recipe)
                name = f"bodies/{recipe.body_id}.bin"
                (work / name).write_bytes(body)
                bodies[recipe.body_id] = name
            manifest.write(json.dumps({
                "id": case_id, "url": url_for(case_id, tld), "content_type": CONTENT_TYPE,
                "body": bodies[recipe.body_id],
            }) + "\n")
    print(f"{sum(1 for _ in cases())} cases, {len(bodies)} bodies in {work}")


def run_oracle(work: Path, tabs: int) -> None:
    subprocess.run([
        sys.executable, str(ORACLE), "pages", str(work / "manifest.jsonl"), "-o", str(work / "oracle.jsonl"),
        "--tabs", str(tabs), "--lang", "en-US", "--no-source", "--progress",
    ], check=True)


def write(work: Path) -> None:
    seen = {}
    with (work / "oracle.jsonl").open() as handle:
        for line in handle:
            record = json.loads(line)
            if record.get("outcome") == "rendered":
                seen[record["id"]] = record["characterSet"]
    lines = []
    missing = 0
    for recipe, _, case_id in cases():
        if case_id not in seen:
            missing += 1
            continue
        digest = hashlib.sha256(page_body(recipe)).hexdigest()[:12]
        lines.append(f"{case_id}\t{digest}\t{seen[case_id]}\n")
    with CASES.open("w") as out:
        out.write("# id = lang.encoding.layout.length.seed@tld (tests/browser_view/pages.py); sha256 prefix of the body;"
                  " document.characterSet in Chromium 156 (scripts/browser_view.py)\n")
        out.write("id\tsha256\tchromium\n")
        out.writelines(lines)
    print(f"{len(lines)} cases written to {CASES} ({missing} without a rendered verdict)")


def family(row: dict) -> str:
    """The case's encoding family, for the report."""
    encoding, lang = row["encoding"], row["lang"]
    if lang == "7bit":
        return "7-bit"
    if encoding == "UTF-8":
        return "UTF-8 (undeclared)"
    if encoding in ("Shift_JIS", "EUC-JP", "ISO-2022-JP", "GBK", "gb18030", "Big5", "EUC-KR"):
        return "CJK"
    if encoding in ("windows-1251", "KOI8-R", "KOI8-U", "IBM866", "ISO-8859-5", "x-mac-cyrillic"):
        return "Cyrillic"
    if encoding in ("windows-1250", "ISO-8859-2", "ISO-8859-16"):
        return "Central European"
    if encoding in ("windows-1257", "ISO-8859-13", "ISO-8859-4"):
        return "Baltic"
    if encoding in ("windows-1252", "ISO-8859-15", "macintosh", "ISO-8859-10", "ISO-8859-14", "ISO-8859-3"):
        return "Western/Latin"
    return "Greek, Turkish, Hebrew, Arabic, Thai, Vietnamese"


def tld_group(row: dict) -> str:
    tld = row["tld"]
    if tld == DOTLESS:
        return "no TLD (host without a dot)"
    if tld == "com":
        return ".com"
    if tld in TLD_ENCODINGS:
        return "TLD in Chromium's table"
    return "other TLD"


def length_bucket(row: dict) -> str:
    size = len(page_body(row["recipe"]))
    for limit, name in ((500, "< 500 B"), (5000, "500 B - 5 KB"), (50_000, "5 - 50 KB")):
        if size < limit:
            return name
    return ">= 50 KB"


def predict(row: dict) -> str:
    """``encoding_browser`` for the case's page."""
    return decode_html(page_body(recipe_of(row)), CONTENT_TYPE, row["url"], policy="browser").encoding_browser


def report(split: str, misses: bool) -> None:
    rows = [row for row in load_cases() if split == "all" or row["split"] == split]
    results = [(row, predict(row)) for row in rows]
    ok = sum(found == row["chromium"] for row, found in results)
    print(f"**{split}**: {ok}/{len(results)} ({_share(ok, len(results))}) equal to Chromium; "
          f"detector: CED {CED_VERSION}\n")
    for title, key in (("encoding family", family), ("TLD", tld_group), ("length", length_bucket)):
        groups: dict[str, list[bool]] = defaultdict(list)
        for row, found in results:
            groups[key(row)].append(found == row["chromium"])
        print(f"| {title} | pages | = Chromium |\n|---|---:|---:|")
        for name in sorted(groups):
            hits = groups[name]
            print(f"| {name} | {len(hits)} | {sum(hits)}/{len(hits)} ({_share(sum(hits), len(hits))}) |")
        print()
    if misses:
        for row, found in results:
            if found != row["chromium"]:
                print(f"{row['id']}\t{len(page_body(recipe_of(row)))}\tchromium={row['chromium']}\tours={found}")


def _share(part: int, whole: int) -> str:
    """A percentage with one decimal, or two where one would round a miss away (99.97%)."""
    share = 100 * part / whole
    return f"{share:.1f}%" if part == whole or f"{share:.1f}" != "100.0" else f"{share:.2f}%"


def main(argv: list[str]) -> int:
    """Dispatch the subcommands (see the module docstring)."""
    if not argv or argv[0] not in ("build", "oracle", "write", "report"):
        print(__doc__, file=sys.stderr)
        return 2
    command, rest = argv[0], argv[1:]
    if command == "report":
        split = "held-out"
        if "--split" in rest:
            split = rest[rest.index("--split") + 1]
        report(split, "--misses" in rest)
        return 0
    if not rest:
        print(f"browser_view.py {command}: WORK folder missing", file=sys.stderr)
        return 2
    work = Path(rest[0])
    if command == "build":
        build(work)
    elif command == "oracle":
        run_oracle(work, int(rest[rest.index("--tabs") + 1]) if "--tabs" in rest else 4)
    else:
        write(work)
    return 0


if __name__ == "__main__":
    raise SystemExit(main(sys.argv[1:]))
