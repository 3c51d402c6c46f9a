"""Shared fixtures: where the shared corpus lives (a missing corpus fails, never skips)."""

from __future__ import annotations

from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
CORPUS = ROOT.parent / "shared" / "corpus"


@pytest.fixture(scope="session")
def corpus() -> Path:
    """The conformance corpus directory; the suite fails loudly when it is missing."""
    assert CORPUS.is_dir(), f"conformance corpus missing at {CORPUS}"
    return CORPUS
