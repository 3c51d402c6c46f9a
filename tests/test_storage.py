"""The storage layer against a real S3-compatible server on loopback and the local disk."""

from __future__ import annotations

import gzip
from pathlib import Path

import pytest

from pipeline.storage import MissingPath, Storage, StorageError, parse_storage_options, redact


def test_a_local_path_and_an_s3_prefix_list_the_same_files(tmp_path: Path, s3_env) -> None:
    server, bucket = s3_env
    for name in ("a.warc.gz", "sub/b.warc", "sub/deeper/c.parquet", ".hidden/d.warc"):
        (tmp_path / name).parent.mkdir(parents=True, exist_ok=True)
        (tmp_path / name).write_bytes(name.encode())
    server.upload_tree(tmp_path, f"{bucket}/crawl")
    storage = Storage()
    local = [Path(p).relative_to(tmp_path).as_posix() for p in storage.list_files(str(tmp_path))]
    remote = [u.removeprefix(f"{bucket}/crawl/") for u in storage.list_files(f"{bucket}/crawl")]
    assert local == remote == ["a.warc.gz", "sub/b.warc", "sub/deeper/c.parquet"]
    assert storage.is_dir(f"{bucket}/crawl/sub") and not storage.is_dir(f"{bucket}/crawl/a.warc.gz")
    assert storage.is_file(f"{bucket}/crawl/a.warc.gz")


def test_a_remote_file_is_read_in_pieces_not_whole(s3_env) -> None:
    server, bucket = s3_env
    storage = Storage()
    data = gzip.compress(bytes(range(256)) * 200_000)  # ~51 MB decompressed, compressible
    payload = data + b"\0" * (20 * 2**20)
    with storage.atomic_writer(f"{bucket}/big.bin") as fh:
        fh.write(payload)
    with storage.open_read(f"{bucket}/big.bin") as fh:
        first = fh.read(1024)
        # A read-ahead file holds a block, not the object: what it has cached is bounded.
        cached = len(getattr(fh.cache, "cache", b""))
        assert first == payload[:1024]
        assert cached < len(payload) / 2
        fh.seek(len(payload) - 10)
        assert fh.read() == payload[-10:]


def test_an_s3_object_appears_only_when_its_writer_completes(s3_env) -> None:
    _, bucket = s3_env
    storage = Storage()
    target = f"{bucket}/out/part-00000.parquet"
    with pytest.raises(RuntimeError), storage.atomic_writer(target) as fh:
        fh.write(b"x" * (6 * 2**20))  # past one multipart block: an upload is under way
        fh.write(b"y" * (6 * 2**20))
        raise RuntimeError("killed")
    assert not storage.exists(target)
    with storage.atomic_writer(target) as fh:
        fh.write(b"whole")
    assert storage.read_bytes(target) == b"whole"


def test_a_local_file_appears_only_when_its_writer_completes(tmp_path: Path) -> None:
    storage = Storage()
    target = str(tmp_path / "out" / "_run.json")
    with pytest.raises(RuntimeError), storage.atomic_writer(target) as fh:
        fh.write(b"{half")
        raise RuntimeError("disk full")
    assert sorted(p.name for p in (tmp_path / "out").iterdir()) == []
    storage.write_bytes(target, b"{}")
    assert Path(target).read_bytes() == b"{}"


def test_errors_name_the_path_in_one_line(s3_env) -> None:
    server, bucket = s3_env
    storage = Storage()
    with pytest.raises(MissingPath, match="missing.warc.gz: not found"):
        storage.open_read(f"{bucket}/missing.warc.gz")
    with pytest.raises(MissingPath, match="no-such-bucket-here/x.warc.gz: not found"):
        storage.open_read("s3://no-such-bucket-here/x.warc.gz")
    wrong = Storage(parse_storage_options(["s3.key=AKIAWRONGWRONGWRONG", "s3.secret=nope"]))
    with pytest.raises(StorageError, match=r"access denied") as denied:
        wrong.list_files(f"{bucket}")
    assert "nope" not in str(denied.value) and "\n" not in str(denied.value)


def test_an_unreachable_endpoint_fails_fast_with_one_line(monkeypatch: pytest.MonkeyPatch) -> None:
    from tests.s3server import free_port

    monkeypatch.setenv("AWS_ENDPOINT_URL", f"http://127.0.0.1:{free_port()}")
    monkeypatch.setenv("AWS_ACCESS_KEY_ID", "x")
    monkeypatch.setenv("AWS_SECRET_ACCESS_KEY", "y")
    with pytest.raises(StorageError, match="cannot reach the storage endpoint") as err:
        Storage(parse_storage_options(["s3.skip_instance_cache=true"])).list_files("s3://b/x")
    assert "\n" not in str(err.value)


def test_http_is_read_only() -> None:
    with pytest.raises(StorageError, match="read-only"):
        Storage().write_bytes("https://example.invalid/x", b"")


def test_storage_options_parse_and_secrets_are_redacted() -> None:
    options = parse_storage_options(["s3.endpoint_url=http://h:9000", "s3.secret=abc",
                                     "anon=false", "client_kwargs.region_name=eu-west-1"])
    assert options == {"s3": {"endpoint_url": "http://h:9000", "secret": "abc"}, "anon": False,
                       "client_kwargs": {"region_name": "eu-west-1"}}
    assert "abc" not in repr(redact(options))
    with pytest.raises(ValueError, match="KEY=VALUE"):
        parse_storage_options(["novalue"])
