"""Mutation fuzzer over the extraction entry points, for the sanitizer job (``make sanitize``).

Each input is a seed of ``tests/fixtures/fuzz/`` mutated (tags spliced in from a dictionary
of the tree builder's hard cases, slices duplicated to nest, bytes flipped, seeds crossed,
names re-cased, the text cut short). Every input goes through the compiled core's parse
under random limits and its walks, the block cutter, and ``extract()``, whose fields must
equal its oracle's (``tests/oracles/extract.py``, a differential check), and whose links
table, built by the compiled builder, must equal the one the oracle's links make in Python
(``tests/oracles/links_table.py``), both refusing the same pages; its bytes in a
legacy encoding, with bytes overwritten at random, also go through CED
(``pipeline.native.ced``) with a random URL hint.
Under AddressSanitizer and UndefinedBehaviorSanitizer a memory or UB error aborts the
process: the exit status is the verdict. Not coverage-guided: a fixed time budget of
random mutations from a seed given on the command line (so a failure can be replayed).

    python scripts/fuzz_extract.py --seconds 120 --seed 1 --save-failures build/fuzz-failures
"""

from __future__ import annotations

import argparse
import random
import sys
import time
from collections.abc import Sequence
from dataclasses import replace
from pathlib import Path

import pyarrow as pa

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from pipeline.encoding.sniff import ced  # noqa: E402
from pipeline.extract import ExtractOptions, document, extract  # noqa: E402
from pipeline.extract.document import ExtractionLimit, utf8_of  # noqa: E402
from pipeline.extract.fields import Link  # noqa: E402
from pipeline.extract.links import PageLinks  # noqa: E402
from pipeline.extract.options import LinkLimits  # noqa: E402
from pipeline.native import document as core  # noqa: E402
from pipeline.runners.worker import Rows, links_table  # noqa: E402
from tests.oracles import extract as oracle  # noqa: E402
from tests.oracles.links_table import links_table as oracle_links_table  # noqa: E402

SEEDS = ROOT / "tests" / "fixtures" / "fuzz"
#: Pieces the tree builder treats specially (scoping, adoption agency, foster parenting,
#: foreign content, raw text, templates) and the walks read (links, metadata, boilerplate).
DICTIONARY = [
    "<a href=/x>", "</a>", "<b>", "</b>", "<i>", "</i>", "<nobr>", "<p>", "</p>", "<div>", "</div>",
    "<table>", "<tr>", "<td>", "</table>", "<template>", "</template>", "<svg>", "</svg>", "<math>",
    "<mi>", "<foreignObject>", "<title>", "</title>", "<script>", "</script>", "<style>", "<select>",
    "<option>", "<frameset>", "<body>", "<html lang=x>", "<head>", "<base href=/b/>",
    "<meta property=og:title content=x>", "<link rel=canonical href=/c>", "<area href=/a alt=y>",
    "<article>", "<nav>", "<aside class=sidebar>", "<div hidden>", "<p style='display:none'>",
    "<div itemprop=articleBody>", "<li>", "<ul class=related>", "<form>", "<button>", "<h2>",
    "<plaintext>", "<textarea>", "<!--", "-->", "<!doctype html>", "&amp;", "&#x0;", "\x00",
    "\u00a0", "\u3000", "\ue000", "\ud7ff", "\U0001f600", "<", ">", "'", '"', "=", " ", "\n",
    # the links' sources: URL-valued attributes, srcset, refresh, style sheets, scripts
    "<img src=/i.png srcset='a 1x, b 2x,c 9w 3h'>", "<source srcset=\"x (1x, y\">", "<img src=''>",
    "<input type=IMAGE src=i>", "<form action=''>", "<button formaction=/f>", "<video poster=p>",
    "<object data=o>", "<q cite=/c>", "<td background=b>", "<a href=/x ping='/p /q'>",
    "<div itemtype='http://s.example/A' itemid=urn:x>", "<meta http-equiv=refresh content='0;url=/r'>",
    "<link rel=stylesheet href=s.css>", "<style>", "</style>", "a{b:url( x.png )}", "url(", "@import 'i.css';",
    "image-set('a' 1x)", "<p style=\"background:url('q')\">", "<script type=application/ld+json>",
    "var a = '/x\\u002fy', b = /re'gex/g, c = `t${'/s'}`;", "\"https:\\/\\/e.example\\/p\"", "<!--", "`",
    # comment sections, their reply forms and hidden boxes, content classes, custom names
    "<div id=comments>", "<li class='comment hentry'>", "<form id=commentform>", "<div class=hiddenBox>",
    "<section class='comment-list widget'>", "<div class='post entry-author-x'>", "<x-card data-n=1>",
]


def mutate(rng: random.Random, seeds: list[str]) -> str:
    """One mutated document."""
    text = rng.choice(seeds)
    for _ in range(rng.randint(1, 8)):
        op = rng.randrange(7)
        at = rng.randint(0, len(text))
        if op == 0:  # splice dictionary pieces
            text = text[:at] + "".join(rng.choices(DICTIONARY, k=rng.randint(1, 6))) + text[at:]
        elif op == 1 and text:  # duplicate a slice: unclosed tags nest
            end = min(len(text), at + rng.randint(1, 80))
            text = text[:end] + text[at:end] * rng.randint(2, 300) + text[end:]
        elif op == 2 and text:  # flip code points
            chars = list(text)
            for _ in range(rng.randint(1, 10)):
                chars[rng.randrange(len(chars))] = chr(rng.choice([rng.randint(0, 0x7F), rng.randint(0, 0x10FFFF)]))
            text = "".join(chars)
        elif op == 3:  # cross with another seed
            other = rng.choice(seeds)
            text = text[:at] + other[rng.randint(0, len(other)):]
        elif op == 4:  # re-case
            end = min(len(text), at + rng.randint(1, 200))
            text = text[:at] + text[at:end].swapcase() + text[end:]
        elif op == 5:  # cut short
            text = text[:at]
        else:  # many attributes
            text = text[:at] + "<div " + " ".join(f"a{i}" for i in range(rng.randint(1, 1500))) + ">" + text[at:]
    return text


def check(text: str, rng: random.Random) -> str | None:
    """Run every entry point on ``text``; a description of a difference, or None."""
    data = utf8_of(text)
    try:  # the parse under random limits, then both walks
        tree = document.parse(data, rng.choice([0, 3, 40, 1024]), rng.choice([0, 2, 30, 1024]),
                              rng.choice([0.0, time.thread_time() + 1.0]), rng.choice([0, 1, 8, 2048]))
        limits = (rng.choice([0, 1, 10_000]),) * 7
        tree.facts(limits)
        document.facts(tree, limits)
        document.main_text(tree, *(rng.random() < 0.5 for _ in range(4)), rng.random(), rng.random(),
                           rng.random() < 0.5, 1.0 - rng.random(), rng.randint(0, 50))
    except ExtractionLimit:
        pass
    core.blocks(data.decode("utf-8"))  # (marked text comes from the tree: no surrogates)
    limit = rng.choice([0, 3, 10_000])
    options = replace(ExtractOptions(), time_budget=0.0, max_links=LinkLimits(*[limit] * 7))
    url = rng.choice(["http://h.example/a/", None, "not a url"])
    encoding = rng.choice(["UTF-8", "windows-1252", "Shift_JIS", "ISO-2022-JP"])
    fast = extract(text, url, encoding, options)
    reference = oracle.extract(text, url, encoding, options)
    raw = bytearray(text.encode(rng.choice(["cp1251", "shift_jis", "gb18030", "utf-8", "latin-1"]), "replace"))
    for _ in range(rng.randint(0, 16) if raw else 0):
        raw[rng.randrange(len(raw))] = rng.randrange(256)
    ced.detect_encoding(bytes(raw), rng.choice(["http://h.example.jp/", "http://h/", "", "file:///x", "x://"]),
                        rng.choice([ced.FIRST_CHUNK_BYTES, rng.randint(0, 64)]))
    if any("ExtractionLimit" in e for e in fast.errors + reference.errors):
        return None  # the oracle estimates the limits: only the compiled parse decides
    if fast != reference:
        fields = [f for f in fast.__dataclass_fields__ if getattr(fast, f) != getattr(reference, f)]
        return f"fields differ: {fields}"
    return _check_links_table(fast.links, reference.links, url)


def _check_links_table(fast: PageLinks, reference: Sequence[Link], url: str | None) -> str | None:
    """The compiled links table of ``fast`` (a PageLinks) against the oracle's table of the
    oracle's links, in a batch with a page without links: equal, or both refused."""
    record = {"run_id": "fuzz", "record_id": "<urn:fuzz>", "url": url}
    empty = {"run_id": "fuzz", "record_id": "<urn:empty>", "url": None}
    try:
        table: pa.Table | Exception = links_table([Rows(record=empty), Rows(record=record, links=fast)])
    except ValueError as exc:
        table = exc
    try:
        expected: pa.Table | Exception = oracle_links_table([(empty, ()), (record, reference)])
    except (ValueError, pa.ArrowException) as exc:
        expected = exc
    if isinstance(table, Exception) or isinstance(expected, Exception):
        if isinstance(table, Exception) != isinstance(expected, Exception):
            return f"links table: compiled {table!r:.200}, oracle {expected!r:.200}"
        return None
    return None if table.equals(expected) else "links tables differ"


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--seconds", type=float, default=60.0)
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--save-failures", type=Path)
    args = parser.parse_args()
    seeds = [path.read_text("utf-8") for path in sorted(SEEDS.glob("*.html"))]
    rng = random.Random(args.seed)
    end = time.monotonic() + args.seconds
    runs = failures = 0
    while time.monotonic() < end:
        text = mutate(rng, seeds)
        problem = check(text, rng)
        runs += 1
        if problem is not None:
            failures += 1
            print(f"fuzz: input {runs}: {problem}", file=sys.stderr)
            if args.save_failures is not None:
                args.save_failures.mkdir(parents=True, exist_ok=True)
                (args.save_failures / f"seed{args.seed}-{runs}.html").write_text(text, "utf-8", "surrogatepass")
    print(f"fuzz: {runs} inputs from {len(seeds)} seeds in {args.seconds:g} s (seed {args.seed}): "
          f"{failures} differences")
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
