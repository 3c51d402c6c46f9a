"""Write pipeline/encoding/mojibake_flags.npz: the mojibake scorer's per-code-point flag
tables, built from its patterns (and the codecs they come from), BMP entries only.

Usage: .venv/bin/python scripts/gen_mojibake_flags.py
tests/unit/test_mojibake.py fails when the stored tables differ from a fresh build.
"""

from __future__ import annotations

import sys
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from pipeline.encoding import mojibake  # noqa: E402


def main() -> None:
    base, rare = mojibake.build_base_flags(), mojibake.build_rare_flags()
    assert not base[0x10000:].any() and not rare[0x10000:].any(), "a class left the BMP"
    np.savez_compressed(mojibake.FLAGS_FILE, base=base[:0x10000], rare=rare[:0x10000])
    print(f"wrote {mojibake.FLAGS_FILE} ({mojibake.FLAGS_FILE.stat().st_size} bytes)")


if __name__ == "__main__":
    main()
