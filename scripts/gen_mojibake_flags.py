"""Write pipeline/encoding/mojibake_flags.npz: the mojibake scanner's per-code-point flag
tables, built from the character classes' definitions (tests/oracles/mojibake.py, and the
codecs they come from), BMP entries only.

Usage: .venv/bin/python scripts/gen_mojibake_flags.py
tests/unit/test_mojibake.py fails when the stored tables differ from a fresh build.
"""

from __future__ import annotations

import sys
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from pipeline.encoding import mojibake  # noqa: E402
from tests.oracles import mojibake as classes  # noqa: E402


def main() -> None:
    np.savez_compressed(mojibake.FLAGS_FILE, base=classes.base_flags(), rare=classes.rare_flags())
    print(f"wrote {mojibake.FLAGS_FILE} ({mojibake.FLAGS_FILE.stat().st_size} bytes)")


if __name__ == "__main__":
    main()
