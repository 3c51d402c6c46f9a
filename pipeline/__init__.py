"""redecode: re-decode archived web crawls exactly as a browser would.

Public API (stable): :func:`decode_html`, :func:`decode_bytes`.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

# Importing the package changes nothing in the process: a worker configures itself when it
# starts (pipeline.runners.startup.start_worker).

# The one home of the version (pyproject.toml reads it from here). Bump it with every change
# that can alter a row of any table (records, links, errors, runs): rules_version and the runs
# row's code carry it, so two runs of one version have rows made by the same code.
__version__ = "0.5.0"

if TYPE_CHECKING:
    from pipeline.encoding.api import decode_bytes, decode_html

__all__ = ["__version__", "decode_bytes", "decode_html"]


def __getattr__(name: str) -> Any:
    # Lazy: importing the package (e.g. for the CLI's --help) must not load the codec tables.
    if name in ("decode_html", "decode_bytes"):
        from pipeline.encoding import api

        return getattr(api, name)
    raise AttributeError(name)
