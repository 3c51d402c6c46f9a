"""Generate pipeline/encoding/decoders/whatwg_indexes.dat from the WHATWG index files.

Usage: python scripts/gen_decoder_tables.py [CORPUS_DIR] [OUT_FILE]

CORPUS_DIR defaults to ../shared/corpus/whatwg-encoding (whatwg/encoding at the commit below);
OUT_FILE defaults to pipeline/encoding/decoders/whatwg_indexes.dat. The output is deterministic:
tests/conformance/test_decoders.py regenerates it and compares with the committed file.

File format (read by pipeline/encoding/decoders/tables.py): zlib-compressed bytes of
``b"WHATWG-INDEXES 1\\n" + <one line of JSON header> + b"\\n" + payload``. The header maps each
index name (the ``index-NAME.txt`` file name part) to ``[offset, count]`` in the payload, which
holds little-endian uint32 values: for an ordinary index, the code point of every pointer from 0
to count-1 (0 where the index has no entry; no index maps a pointer to U+0000); for
``gb18030-ranges``, the flattened (pointer, code point) pairs in file order.
"""

from __future__ import annotations

import hashlib
import json
import struct
import sys
import zlib
from pathlib import Path

SOURCE_COMMIT = "a985b62a9b45c17da3e17a9f0a0b4e30c34c4a8a"
MAGIC = b"WHATWG-INDEXES 1\n"
ROOT = Path(__file__).resolve().parent.parent
DEFAULT_CORPUS = ROOT.parent / "shared" / "corpus" / "whatwg-encoding"
DEFAULT_OUT = ROOT / "pipeline" / "encoding" / "decoders" / "whatwg_indexes.dat"


def parse_index(path: Path) -> list[tuple[int, int]]:
    """Return the (pointer, code point) pairs of one ``index-*.txt`` file, in file order.

    Lines are split on LF only: the third column may hold U+0085 or U+2028.
    """
    pairs: list[tuple[int, int]] = []
    for line in path.read_text(encoding="utf-8").split("\n"):
        if not line.strip() or line.startswith("#"):
            continue
        fields = line.split("\t")
        pairs.append((int(fields[0]), int(fields[1], 16)))
    return pairs


def render(corpus_dir: Path) -> bytes:
    """Return the uncompressed file content (magic, JSON header, payload)."""
    header: dict[str, object] = {"source_commit": SOURCE_COMMIT, "indexes": {}}
    indexes: dict[str, list[int]] = header["indexes"]  # type: ignore[assignment]
    sha: dict[str, str] = {}
    payload = bytearray()
    for path in sorted(corpus_dir.glob("index-*.txt")):
        name = path.name[len("index-") : -len(".txt")]
        sha[name] = hashlib.sha256(path.read_bytes()).hexdigest()
        pairs = parse_index(path)
        if name == "gb18030-ranges":
            values = [v for pair in pairs for v in pair]
        else:
            values = [0] * (max(p for p, _ in pairs) + 1)
            for pointer, code_point in pairs:
                assert code_point != 0, f"{name}: pointer {pointer} maps to U+0000"
                assert values[pointer] == 0, f"{name}: duplicate pointer {pointer}"
                values[pointer] = code_point
        indexes[name] = [len(payload) // 4, len(values)]
        payload += struct.pack(f"<{len(values)}I", *values)
    header["sha256"] = sha
    head = json.dumps(header, sort_keys=True, separators=(",", ":")).encode()
    return MAGIC + head + b"\n" + bytes(payload)


def main(argv: list[str]) -> None:
    corpus_dir = Path(argv[1]) if len(argv) > 1 else DEFAULT_CORPUS
    out = Path(argv[2]) if len(argv) > 2 else DEFAULT_OUT
    out.write_bytes(zlib.compress(render(corpus_dir), 9))


if __name__ == "__main__":
    main(sys.argv)
