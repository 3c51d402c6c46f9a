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


@pytest.fixture(scope="session")
def s3_server():
    """A real S3-compatible server on loopback (moto's standalone server, IAM auth on)."""
    from tests.s3server import start_s3_server

    server = start_s3_server()
    try:
        yield server
    finally:
        server.stop()


@pytest.fixture
def s3_env(s3_server, monkeypatch: pytest.MonkeyPatch):
    """The server's endpoint and credentials in this process's environment (as a user's
    shell would have them), and a fresh bucket for the test; yields ``(server, "s3://bucket")``."""
    import uuid

    for key, value in s3_server.env.items():
        monkeypatch.setenv(key, value)
    yield s3_server, s3_server.make_bucket(f"t-{uuid.uuid4().hex[:12]}")
