"""The code that made a run (pipeline/provenance.py): recorded in _run.json and the runs row,
and followed by rules_version."""

from __future__ import annotations

import hashlib
import json
import os
from importlib import metadata
from pathlib import Path

import pytest

import pipeline
import pipeline.native as native
from pipeline import provenance, rules
from tests.cli_helpers import redecode, runs_row
from tests.crawl_builder import write_warc


def test_the_run_records_its_code_in_run_json_and_the_runs_row(tmp_path: Path) -> None:
    crawl = tmp_path / "c.warc.gz"
    write_warc(crawl, 2, seed="p")
    out = tmp_path / "o"
    result = redecode("run", str(crawl), "--out", str(out), "-q", "--run-id", "p")
    assert result.returncode == 0, result.stderr
    row = runs_row(out, "p")
    code = json.loads(row["code"])
    assert code == row["config"]["code"]
    assert code == json.loads((out / "_runs" / "p" / "_run.json").read_text())["code"]
    # what the build compiled in, as the compiled modules themselves say it
    assert code["pipeline"] == row["pipeline_version"] == pipeline.__version__
    assert code["lexbor"].startswith(native.document.LEXBOR_VERSION + " ")
    assert code["ada"] == native.urls.ADA_URL_VERSION
    assert code["ced"] == "npm ced 2.0.0"
    assert code["nanoarrow"].startswith(native.urls.NANOARROW_VERSION + " (nanoarrow sdist, sha256 ")
    assert json.loads(code["built"]) == [f"pipeline.native.{name}" for name in native.MODULES]
    for library in ("pyarrow", "ada-url", "numpy", "py3langid", "fastwarc", "warcio"):
        assert code[library] == metadata.version(library), library
    assert len(code["source_sha256"]) == 64
    assert row["rules_version"].startswith(f"{pipeline.__version__}+")


def test_library_versions_are_read_as_importlib_metadata_reads_them() -> None:
    versions = provenance.distribution_versions((*provenance.LIBRARIES, "no-such-distribution-x"))
    for name in provenance.LIBRARIES:
        assert versions[name] == metadata.version(name), name
    assert versions["no-such-distribution-x"] == "not installed"


@pytest.mark.parametrize("key", ["pipeline", "lexbor", "ada", "ced", "nanoarrow", "pyarrow", "numpy"])
def test_rules_version_changes_with_the_code(key: str, monkeypatch: pytest.MonkeyPatch) -> None:
    before = rules.load_rules(None).version
    changed = {**provenance.code_versions(), key: "another version"}
    monkeypatch.setattr(rules, "code_versions", lambda: changed)
    assert rules.load_rules(None).version != before


def test_rules_version_leaves_the_source_digest_out() -> None:
    # an edit (a comment) is recorded by source_sha256, not hashed into rules_version
    assert "source_sha256" not in provenance.code_versions()
    assert set(provenance.code_identity()) == {*provenance.code_versions(), "source_sha256"}


def _package(root: Path) -> Path:
    package = root / "pkg"
    (package / "sub" / "__pycache__").mkdir(parents=True)
    (package / "a.py").write_text("A = 1\n")
    (package / "sub" / "b.json").write_text("{}")
    (package / "sub.py").write_text("S = 2\n")  # sorts after sub/ as paths, before as text
    (package / "sub" / "__pycache__" / "b.py").write_text("left out")
    (package / "_native.json").write_text("left out")
    (package / "notes.md").write_text("left out")
    return package


def _by_hand(package: Path) -> str:
    # the definition: each source file's path and sha256, in path order
    digest = hashlib.sha256()
    for name in ("a.py", "sub/b.json", "sub.py"):
        digest.update(name.encode() + b"\0")
        digest.update(hashlib.sha256((package / name).read_bytes()).digest())
    return digest.hexdigest()


def test_the_source_digest_is_kept_and_follows_every_edit(tmp_path: Path,
                                                          monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("REDECODE_CACHE_DIR", str(tmp_path / "cache"))
    package = _package(tmp_path)
    first = provenance._source_digest(package)
    assert first == _by_hand(package)
    (kept,) = (tmp_path / "cache").glob("source-*.txt")
    assert kept.read_text() == first and provenance._source_digest(package) == first
    # an edit of the same size, its modification time set back: digested again
    edited = package / "sub" / "b.json"
    st = edited.stat()
    edited.write_text("[]")
    os.utime(edited, ns=(st.st_atime_ns, st.st_mtime_ns))
    second = provenance._source_digest(package)
    assert second == _by_hand(package) != first
    # a file that is not a source changes nothing; a new source file does
    (package / "sub" / "__pycache__" / "b.py").write_text("changed")
    (package / "notes.md").write_text("changed")
    assert provenance._source_digest(package) == second
    (package / "c.txt").write_text("new")
    assert provenance._source_digest(package) != second


def test_the_source_digest_of_the_package_is_the_digest_of_its_files(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("REDECODE_CACHE_DIR", str(tmp_path))
    package = Path(pipeline.__file__).parent
    digest = hashlib.sha256()
    for path in sorted(package.rglob("*")):
        if (path.suffix in (".py", ".json", ".txt", ".dat", ".npz")
                and "__pycache__" not in path.parts and path != package / "_native.json"
                and path.is_file()):
            digest.update(path.relative_to(package).as_posix().encode() + b"\0")
            digest.update(hashlib.sha256(path.read_bytes()).digest())
    assert provenance._source_digest() == digest.hexdigest()  # derived
    assert provenance._source_digest() == digest.hexdigest()  # read back
