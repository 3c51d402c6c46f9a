"""Benchmark ``pipeline.encoding.decoders.decode`` per encoding against the plain Python codec.

Usage: python scripts/bench_decoders.py [CHARDET_DIR] [--min-seconds S]

Reads ../shared/corpus/chardet/MANIFEST.tsv (true encodings), keeps the files in a WHATWG
encoding that decode without errors ("clean real pages"; a BOM is stripped first), and prints
per encoding: files, MB, MB/s of ``decode`` and of ``bytes.decode(<Python codec>, "replace")``,
their ratio, and how many files had a stretch decoded by the pure-Python spec loop (a byte
sequence the codec gets wrong beyond rewriting). Then, for malformed input, MB/s of ``decode``
on 1 MB of random bytes and on the Shift_JIS pages decoded with each multi-byte encoding.
"""

from __future__ import annotations

import csv
import random
import sys
import time
from collections import defaultdict
from collections.abc import Callable
from pathlib import Path

from pipeline.encoding.decoders import decode
from pipeline.encoding.decoders.cjk_chinese import BIG5, GB18030
from pipeline.encoding.decoders.cjk_japanese import EUC_JP, SHIFT_JIS
from pipeline.encoding.decoders.cjk_korean import EUC_KR

#: The codec a Python user would pass for the page's true encoding (plain, not WHATWG-exact).
PLAIN_CODEC = {
    "UTF-8": "utf-8", "UTF-16LE": "utf-16-le", "UTF-16BE": "utf-16-be", "Shift_JIS": "cp932",
    "EUC-JP": "euc_jp", "EUC-KR": "cp949", "Big5": "big5hkscs", "GBK": "gb18030",
    "gb18030": "gb18030", "ISO-2022-JP": "iso2022_jp", "IBM866": "cp866", "KOI8-R": "koi8_r",
    "x-mac-cyrillic": "mac_cyrillic", "macintosh": "mac_roman", "windows-874": "cp874",
    **{f"windows-{n}": f"cp{n}" for n in range(1250, 1259)},
    **{f"ISO-8859-{n}": f"iso8859_{n}" for n in (2, 5, 6, 7)},
}
MULTI = {"Shift_JIS": SHIFT_JIS, "EUC-JP": EUC_JP, "EUC-KR": EUC_KR, "Big5": BIG5,
         "GBK": GB18030, "gb18030": GB18030}
BOMS = (b"\xef\xbb\xbf", b"\xff\xfe", b"\xfe\xff")


def _rate(func: Callable[[bytes], object], bodies: list[bytes], min_seconds: float) -> float:
    """Best MB/s (CPU time) of 5 rounds, each decoding all ``bodies`` for min_seconds / 5."""
    total = sum(map(len, bodies))
    best = 0.0
    for _ in range(5):
        reps = 0
        start = time.process_time()
        while True:
            for body in bodies:
                func(body)
            reps += 1
            elapsed = time.process_time() - start
            if elapsed >= min_seconds / 5:
                break
        best = max(best, total * reps / elapsed / 1e6)
    return best


def main(argv: list[str]) -> None:
    root = Path(__file__).resolve().parent.parent.parent / "shared" / "corpus" / "chardet"
    min_seconds = 0.5
    args = list(argv[1:])
    if "--min-seconds" in args:
        i = args.index("--min-seconds")
        min_seconds = float(args[i + 1])
        del args[i : i + 2]
    if args:
        root = Path(args[0])
    by_encoding: dict[str, list[bytes]] = defaultdict(list)
    with open(root / "MANIFEST.tsv", newline="", encoding="utf-8") as f:
        for row in csv.DictReader(f, delimiter="\t"):
            encoding = row["true_encoding"]
            if row["scope"] != "whatwg" or encoding not in PLAIN_CODEC:
                continue
            body = (root / row["path"]).read_bytes()
            for bom in BOMS:
                if body.startswith(bom):
                    body = body[len(bom):]
            if decode(body, encoding).decode_errors == 0:
                by_encoding[encoding].append(body)
    print("| encoding | clean files | MB | decode MB/s | plain codec | codec MB/s | ratio | files with a spec-loop stretch |")
    print("|---|---:|---:|---:|---|---:|---:|---:|")
    for encoding in sorted(by_encoding):
        bodies = by_encoding[encoding]
        codec = PLAIN_CODEC[encoding]
        ours = _rate(lambda b, e=encoding: decode(b, e), bodies, min_seconds)
        plain = _rate(lambda b, c=codec: b.decode(c, "replace"), bodies, min_seconds)
        decoder = MULTI.get(encoding)
        slow = sum(decoder.decode_codec(b) is None for b in bodies) if decoder else 0
        mb = sum(map(len, bodies)) / 1e6
        print(f"| {encoding} | {len(bodies)} | {mb:.2f} | {ours:.0f} | {codec} | {plain:.0f} "
              f"| {plain / ours:.2f}x | {slow} |")
    rng = random.Random(1)
    noise = [bytes(rng.getrandbits(8) for _ in range(1_000_000))]
    sjis = by_encoding["Shift_JIS"]
    print()
    print("| encoding | random bytes MB/s | errors/MB | Shift_JIS pages MB/s | errors/MB |")
    print("|---|---:|---:|---:|---:|")
    for encoding in ("Shift_JIS", "EUC-JP", "ISO-2022-JP", "EUC-KR", "Big5", "gb18030", "UTF-8"):
        cells = []
        for bodies in (noise, sjis):
            rate = _rate(lambda b, e=encoding: decode(b, e), bodies, min_seconds)
            errors = sum(decode(b, encoding).decode_errors for b in bodies)
            cells.append(f"{rate:.1f} | {errors / (sum(map(len, bodies)) / 1e6):.0f}")
        print(f"| {encoding} | {' | '.join(cells)} |")


if __name__ == "__main__":
    main(sys.argv)
