"""redecode: re-decode archived web crawls exactly as a browser would.

Public API (stable): :func:`decode_html`, :func:`decode_bytes`.
"""

from __future__ import annotations

import os
from typing import TYPE_CHECKING, Any

# numpy's OpenBLAS would start a thread per core for the language scorer's small product
# (~140 x 142): on a busy worker those threads spin for CPU the other workers need (2.6% of
# the extraction step's CPU under perf). A value the user set is kept; it takes effect only
# where numpy is not imported yet.
os.environ.setdefault("OPENBLAS_NUM_THREADS", "1")

__version__ = "0.1.0"

if TYPE_CHECKING:
    from pipeline.encoding.api import decode_bytes, decode_html

__all__ = ["__version__", "decode_bytes", "decode_html"]


def __getattr__(name: str) -> Any:
    # Lazy: importing the package (e.g. for the CLI's --help) must not load the codec tables.
    if name in ("decode_html", "decode_bytes"):
        from pipeline.encoding import api

        return getattr(api, name)
    raise AttributeError(name)
