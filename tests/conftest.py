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


@pytest.fixture(scope="session")
def sample_crawl(corpus: Path) -> tuple[Path, Path]:
    """The crawl the storage tests decode: Common Crawl-like samples and the sample crawl,
    as two folders (in this order, which both a local and a bucket listing keep)."""
    return corpus / "warc-samples", ROOT / "data" / "sample"


@pytest.fixture(scope="session")
def local_reference(sample_crawl: tuple[Path, Path], tmp_path_factory: pytest.TempPathFactory):
    """The four tables of a local-disk run of :func:`sample_crawl` with the sample rules
    (``tests.run_tables.table_rows`` form), and whether an input was unreadable."""
    from pipeline.rules import load_rules
    from pipeline.runners.local import run
    from pipeline.storage import Storage
    from tests.run_tables import table_rows

    out = tmp_path_factory.mktemp("reference") / "out"
    roots = [str(p) for p in sample_crawl]
    summary = run(roots, out, load_rules(sample_crawl[1] / "rules.toml"), workers=1,
                  run_id="reference")
    assert summary.invariant_ok, summary.problems
    return table_rows(Storage(), str(out), "reference", *roots), bool(summary.unreadable)


@pytest.fixture(scope="session")
def crawl_bucket(s3_server, sample_crawl: tuple[Path, Path]) -> str:
    """:func:`sample_crawl` uploaded once, under ``s3://<bucket>/corpus/warc-samples/`` and
    ``s3://<bucket>/data/sample/``; returns ``s3://<bucket>``."""
    bucket = s3_server.make_bucket("crawl-input")
    s3_server.upload_tree(sample_crawl[0], f"{bucket}/corpus/warc-samples")
    s3_server.upload_tree(sample_crawl[1], f"{bucket}/data/sample")
    return bucket
