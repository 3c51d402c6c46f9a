"""Generate pipeline/encoding/labels.py from the WHATWG Encoding Standard's encodings.json.

Usage: python scripts/gen_labels.py [CORPUS_DIR] > pipeline/encoding/labels.py

CORPUS_DIR defaults to ../shared/corpus/whatwg-encoding. The output is deterministic, so
tests/conformance/test_labels.py regenerates it and diffs against the committed module.
"""

from __future__ import annotations

import hashlib
import json
import sys
from pathlib import Path

SOURCE_COMMIT = "a985b62a9b45c17da3e17a9f0a0b4e30c34c4a8a"


def render(corpus_dir: Path) -> str:
    """Return the text of labels.py for the encodings.json in ``corpus_dir``."""
    raw = (corpus_dir / "encodings.json").read_bytes()
    groups = json.loads(raw)
    digest = hashlib.sha256(raw).hexdigest()
    names: list[str] = []
    pairs: list[tuple[str, str]] = []
    for group in groups:
        for enc in group["encodings"]:
            names.append(enc["name"])
            for label in enc["labels"]:
                pairs.append((label, enc["name"]))
    out = [
        '"""WHATWG Encoding Standard label table. GENERATED - DO NOT EDIT.',
        "",
        "Source: whatwg/encoding encodings.json at commit",
        f"{SOURCE_COMMIT}",
        f"(sha256 of the file: {digest}).",
        "Regenerate: python scripts/gen_labels.py > pipeline/encoding/labels.py",
        '"""',
        "",
        "from __future__ import annotations",
        "",
        f"#: The {len(names)} encoding names, in the standard's order.",
        "ENCODINGS: tuple[str, ...] = (",
        *[f"    {n!r}," for n in names],
        ")",
        "",
        f"#: All {len(pairs)} labels (lowercase) mapped to their encoding's name.",
        "LABELS: dict[str, str] = {",
        *[f"    {label!r}: {name!r}," for label, name in pairs],
        "}",
        "",
    ]
    return "\n".join(out)


if __name__ == "__main__":
    root = Path(sys.argv[1]) if len(sys.argv) > 1 else (
        Path(__file__).resolve().parent.parent.parent / "shared" / "corpus" / "whatwg-encoding"
    )
    sys.stdout.write(render(root))
