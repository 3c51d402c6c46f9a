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


def test_promote_puts_a_finished_file_in_place_on_s3_and_locally(s3_env, tmp_path: Path) -> None:
    _, bucket = s3_env
    storage = Storage()
    for base in (f"{bucket}/p", str(tmp_path / "p")):
        tmp, final = f"{base}/.part-00000.parquet.ab12.tmp", f"{base}/part-00000.parquet"
        with storage.open_write(tmp, sync=True) as fh:
            fh.write(b"attempt one")
        assert not storage.exists(final)
        storage.promote(tmp, final)
        assert storage.read_bytes(final) == b"attempt one" and not storage.exists(tmp)
        assert storage.list_dir(base) == [("part-00000.parquet", False)]


def test_existing_checks_many_keys_with_one_listing_per_folder(s3_env, tmp_path: Path) -> None:
    server, bucket = s3_env
    for name in ("a/1.warc.gz", "a/2.warc.gz", "b/3.warc.gz"):
        (tmp_path / name).parent.mkdir(parents=True, exist_ok=True)
        (tmp_path / name).write_bytes(b"x")
    server.upload_tree(tmp_path, f"{bucket}/c")
    asked = [f"{bucket}/c/a/1.warc.gz", f"{bucket}/c/a/9.warc.gz", f"{bucket}/c/b/3.warc.gz",
             f"{bucket}/c/z/4.warc.gz", str(tmp_path / "a" / "2.warc.gz"), str(tmp_path / "no")]
    assert Storage().existing(asked) == {asked[0], asked[2], asked[4]}


def test_conditional_writes_let_exactly_one_writer_win(s3_env) -> None:
    from pipeline.storage import Conflict

    _, bucket = s3_env
    storage = Storage()
    path = f"{bucket}/_runs/r/_lock"
    etag = storage.create(path, b"first")
    with pytest.raises(Conflict):
        storage.create(path, b"second")  # If-None-Match: *
    current = storage.read_versioned(path)
    assert current is not None and current.data == b"first" and current.etag == etag
    assert current.age < 60
    renewed = storage.replace(path, b"first, renewed", etag)
    with pytest.raises(Conflict):
        storage.replace(path, b"taken over", etag)  # If-Match on a version that is gone
    storage.remove_if(path, renewed)
    assert storage.read_versioned(path) is None


def test_a_snapshot_answers_from_its_listing(s3_env) -> None:
    server, bucket = s3_env
    storage = Storage()
    storage.write_bytes(f"{bucket}/snap/a.parquet", b"abc")
    snapshot = storage.snapshot()
    assert snapshot.list_dir(f"{bucket}/snap") == [("a.parquet", False)]
    server.client().delete_object(Bucket=bucket.removeprefix("s3://"), Key="snap/a.parquet")
    assert snapshot.is_file(f"{bucket}/snap/a.parquet")  # what the listing said
    assert not storage.is_file(f"{bucket}/snap/a.parquet")  # a run always asks the store


def test_a_parquet_page_over_the_limit_is_found_through_a_remote_file(s3_env, tmp_path: Path) -> None:
    # the page headers are read through the fsspec file pyarrow reads (seeks, small reads)
    import pyarrow as pa
    import pyarrow.parquet as pq

    from pipeline.errors import RecordError
    from pipeline.sources import iter_records
    from pipeline.sources.record import RawRecord

    _, bucket = s3_env
    good = pa.table({"url": ["http://a.test/0", "http://a.test/1"], "body": [b"<p>a", b"<p>b"]})
    hostile = pa.table({"url": [f"http://a.test/{i}" for i in range(2, 66)],
                        "body": [b"<p>" + bytes([97 + i % 26]) * (24 << 10) for i in range(64)]})
    with pq.ParquetWriter(tmp_path / "p.parquet", good.schema, compression="zstd",
                          use_dictionary=False) as writer:
        for table in (good, hostile, good):
            writer.write_table(table)
    storage = Storage()
    storage.write_bytes(f"{bucket}/p.parquet", (tmp_path / "p.parquet").read_bytes())
    with storage.open_read(f"{bucket}/p.parquet") as fh:
        remote = list(iter_records(f"{bucket}/p.parquet", fileobj=fh, max_block=64 << 10))
    kinds = [r.url if isinstance(r, RawRecord) else r.error_type for r in remote]
    assert kinds == (["http://a.test/0", "http://a.test/1"] + ["source-page-too-large"] * 64
                     + ["http://a.test/0", "http://a.test/1"])
    assert [r.offset for r in remote if isinstance(r, RecordError)] == list(range(2, 66))
    with (tmp_path / "p.parquet").open("rb") as fh:
        local = list(iter_records(f"{bucket}/p.parquet", fileobj=fh, max_block=64 << 10))
    assert remote == local


def test_what_travels_to_an_executor_is_the_store_this_process_reaches_without_secrets(
    s3_env, tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
) -> None:
    server, bucket = s3_env  # AWS_ENDPOINT_URL, the keys and the region are in the environment
    driver = Storage({"s3": {"key": "AKIDEXAMPLE", "secret": "s3cr3t", "anon": False}})
    sent = driver.for_executors([f"{bucket}/out", str(tmp_path)])
    assert sent.options == {"s3": {"anon": False, "endpoint_url": server.endpoint,
                                   "client_kwargs": {"region_name": "us-east-1"}}}
    # an executor's environment has none of it but credentials of its own: the same store
    server.client().put_object(Bucket=bucket.removeprefix("s3://"), Key="x.txt", Body=b"here")
    for key in ("AWS_ENDPOINT_URL", "AWS_DEFAULT_REGION"):
        monkeypatch.delenv(key)
    assert sent.read_bytes(f"{bucket}/x.txt") == b"here"
    # options that name the endpoint win; paths on no S3 store resolve nothing
    named = Storage({"s3": {"endpoint_url": "http://127.0.0.1:9"}})
    assert named.for_executors([f"{bucket}/x"]).options == {
        "s3": {"endpoint_url": "http://127.0.0.1:9"}}
    assert Storage().for_executors([str(tmp_path)]).options == {}
    # a profile that this process's AWS config does not hold is one line
    monkeypatch.setenv("AWS_PROFILE", "no-such-profile")
    with pytest.raises(StorageError, match="no-such-profile"):
        Storage().for_executors([f"{bucket}/x"])
