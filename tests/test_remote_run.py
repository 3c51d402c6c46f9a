"""The crawl where it lives: `redecode run` and the audits on a real S3-compatible server on
loopback (moto's, IAM auth on), through the installed console script. What the run writes to
s3:// equals a local-disk run row for row; a crash leaves nothing a reader or a later run
mistakes for output; every storage failure is one line naming the path."""

from __future__ import annotations

import gzip
import json
import os
import threading
from pathlib import Path

import pytest

from pipeline.rules import load_rules
from pipeline.runners.local import run
from pipeline.runners.rundir import RunDir
from pipeline.runners.task import Task, commit_task, run_task
from pipeline.storage import Storage
from tests.cli_helpers import count, no_traceback, redecode
from tests.crawl_builder import http_response, write_records, write_warc
from tests.httpserver import serve
from tests.run_tables import differences, table_rows
from tests.s3server import free_port


def inputs(crawl: str) -> list[str]:
    return [f"{crawl}/corpus/warc-samples/", f"{crawl}/data/sample/"]


def rows_of(out: str, run_id: str, crawl: str) -> dict[str, list[str]]:
    return table_rows(Storage(), out, run_id, f"{crawl}/corpus/warc-samples",
                      f"{crawl}/data/sample")


def one_line(stderr: str) -> str:
    lines = [line for line in stderr.splitlines() if line.strip()]
    assert len(lines) == 1, stderr
    return lines[0]


def test_s3_to_s3_equals_a_local_disk_run_and_audits_read_it(
    s3_env, crawl_bucket: str, local_reference, tmp_path: Path,
) -> None:
    server, bucket = s3_env  # the environment holds AWS_ENDPOINT_URL and the keys: nothing else
    expected, unreadable = local_reference
    out = f"{bucket}/out"
    result = redecode("run", *inputs(crawl_bucket), "--out", out, "--run-id", "s3", "-w", "2",
                      "-q", "--rules", f"{crawl_bucket}/data/sample/rules.toml")
    assert result.returncode == (3 if unreadable else 0), result.stderr
    got = rows_of(out, "s3", crawl_bucket)
    assert got == expected, differences(got, expected)
    keys = server.keys(out)
    assert not [k for k in keys if k.endswith(".tmp")]
    assert f"{out}/_runs/s3/_finished" in keys and f"{out}/_runs/s3/_lock" not in keys
    # the audits read the run where it lives, through the same storage layer
    audit = redecode("audit", "--out", out, "--format", "json", "--check", "all")
    assert audit.returncode == 0, audit.stderr
    gates = json.loads(audit.stdout)["gates"]
    assert gates["records"] == sum(1 for _ in expected["records"])


@pytest.mark.slow  # 44 inputs run, killed, audited and resumed through the CLI (the local
# kill-and-resume tests cover the commit protocol in the default suite)
def test_a_run_killed_mid_commit_on_s3_is_never_read_and_resume_finishes_it(
    s3_env, crawl_bucket: str, local_reference, tmp_path: Path,
) -> None:
    server, bucket = s3_env
    expected, unreadable = local_reference
    out = f"{bucket}/out"
    args = [*inputs(crawl_bucket), "--out", out, "--run-id", "k", "-w", "1", "-q",
            "--rules", f"{crawl_bucket}/data/sample/rules.toml"]
    # rank 21's first part is put in place, then the process is killed: no marker (rank
    # 20, example-digest.warc, holds requests only: it has no part to put in place)
    fault = f"k:21:-1:{tmp_path / 'fault'}:kill"
    killed = redecode("run", *args, env={"REDECODE_TEST_FAULT": fault})
    assert killed.returncode == -9 and (tmp_path / "fault").exists()
    keys = server.keys(out)
    assert len([k for k in keys if "/_completions/" in k]) == 21
    # half committed: its first part is in place, the rest and the marker are not
    assert len([k for k in keys if "/part-00021-" in k]) == 1
    assert f"{out}/_runs/k/_finished" not in keys and f"{out}/_runs/k/_lock" in keys
    # a reader sees the committed files only, and says the run is unfinished
    audit = redecode("audit", "--out", out, "--format", "json")
    assert audit.returncode == 0, audit.stderr
    assert "run k is unfinished: 21 of 44 input files committed" in audit.stderr
    assert "1 uncommitted part(s) left out" in audit.stderr
    partial = json.loads(audit.stdout)["gates"]["records"]
    assert 0 < partial < len(expected["records"])
    # the next run takes the dead writer's lock over, reruns what was not committed
    resumed = redecode("run", *args, "--resume")
    assert resumed.returncode == (3 if unreadable else 0), resumed.stderr
    assert "took over the stale lock" in resumed.stderr
    got = rows_of(out, "k", crawl_bucket)
    assert got == expected, differences(got, expected)
    assert not [k for k in server.keys(out) if k.endswith(".tmp") or k.endswith("/_lock")]


def big_pages(path: Path, pages: int) -> None:
    """A WARC of ``pages`` pages of 1 MiB of random text each (0.84 MB a page in the
    records part): a dozen take the part past the 8 MiB of a multipart upload's first part."""
    safe = bytes(c for c in range(33, 127) if chr(c) not in "<>&")
    letters = (safe * 3)[:236] + b" " * 20  # a translation table: 256 bytes
    records = []
    for n in range(pages):
        text = os.urandom(2**20).translate(letters).decode()
        body = f"<html><title>p{n}</title><body><p>{text}</p></body></html>".encode()
        records.append(("response", f"http://big.test/{n}", http_response(body), {}))
    write_records(path, records)


def uploads(server, bucket: str) -> list[str]:
    """The keys of the unfinished multipart uploads in ``bucket``."""
    reply = server.client().list_multipart_uploads(Bucket=bucket.removeprefix("s3://"))
    return sorted(upload["Key"] for upload in reply.get("Uploads", []))


@pytest.mark.slow  # 14 MiB of pages decoded four times, two killed runs (15-43 s on 2 cores)
def test_a_writer_killed_mid_upload_leaves_no_upload_after_resume_or_the_run_end(
    s3_env, tmp_path: Path,
) -> None:
    server, bucket = s3_env
    crawl = tmp_path / "crawl"
    crawl.mkdir()
    big_pages(crawl / "a-big.warc.gz", 14)
    write_warc(crawl / "b-small.warc.gz", 5, seed="s")
    server.upload_tree(crawl, f"{bucket}/crawl")
    args = [f"{bucket}/crawl/", "--out", f"{bucket}/out", "-q"]
    # the worker writing rank 0's records part is killed after 13 pages: over 8 MiB of the
    # part is uploaded as a first part of a multipart upload, which no listing shows
    fault = f"k:0:13:{tmp_path / 'fired'}:kill"
    killed = redecode("run", *args, "--run-id", "k", "-w", "1",
                      env={"REDECODE_TEST_FAULT": fault})
    assert killed.returncode == -9 and (tmp_path / "fired").exists()
    left = uploads(server, bucket)
    assert len(left) == 1 and left[0].startswith("out/records/run_id=k/.part-00000-0000.parquet.")
    assert not [k for k in server.keys(f"{bucket}/out") if "/.part-" in k]
    resumed = redecode("run", *args, "--run-id", "k", "--resume")
    assert resumed.returncode == 0, resumed.stderr
    assert uploads(server, bucket) == []
    # a pool worker killed the same way: the run retries the file and, when it ends,
    # aborts the upload its killed attempt left
    fault = f"p:0:13:{tmp_path / 'fired-pool'}:kill"
    pooled = redecode("run", *args, "--run-id", "p", "-w", "2",
                      env={"REDECODE_TEST_FAULT": fault})
    assert pooled.returncode == 0, pooled.stderr
    assert (tmp_path / "fired-pool").exists() and "lost attempt:" in pooled.stderr
    assert uploads(server, bucket) == []
    # both give the rows of an uninterrupted run
    clean = tmp_path / "clean"
    run([str(crawl)], clean, load_rules(None), workers=1, run_id="c")
    want = table_rows(Storage(), str(clean), "c", str(crawl))
    for run_id in ("k", "p"):
        got = table_rows(Storage(), f"{bucket}/out", run_id, f"{bucket}/crawl")
        for table in ("records", "links", "errors"):
            assert got[table] == want[table], differences(got, want)
    assert len(want["records"]) == 19


def test_a_run_aborts_the_unfinished_uploads_of_its_own_temporary_parts_only(
    s3_env, tmp_path: Path,
) -> None:
    # what a writer killed mid-part leaves (the slow test above kills a real one), started
    # here by hand under the run's temporary part names, any rank's width, and other names
    from pipeline.runners.rundir import new_attempt

    server, bucket = s3_env
    out = f"{bucket}/out"
    runs = RunDir(Storage(), out, "r")
    own = [runs.temp_part("records", 0, 0, new_attempt()),
           runs.temp_part("links", 7, 3, new_attempt()),
           runs.temp_part("errors", 100_000, 0, new_attempt()),
           runs.temp_part("records", 1_234_567, 12_345, new_attempt()),
           f"{runs.partition('records')}/.part-00002.parquet.{new_attempt()}.tmp"]
    others = [RunDir(Storage(), out, "other").temp_part("records", 0, 0, new_attempt()),
              runs.part("records", 0),  # a committed name: never a killed writer's
              f"{runs.partition('records')}/.part-0100000.parquet.{new_attempt()}.tmp",
              f"{runs.partition('links')}/sub/.part-00001.parquet.{new_attempt()}.tmp",
              f"{out}/.part-00000.parquet.{new_attempt()}.tmp"]
    client = server.client()
    name = bucket.removeprefix("s3://")
    for url in own + others:
        key = url.removeprefix(f"{bucket}/")
        upload = client.create_multipart_upload(Bucket=name, Key=key)["UploadId"]
        client.upload_part(Bucket=name, Key=key, UploadId=upload, PartNumber=1, Body=b"x" * 64)
    assert uploads(server, bucket) == sorted(u.removeprefix(f"{bucket}/") for u in own + others)
    crawl = tmp_path / "c.warc.gz"
    write_warc(crawl, 3, seed="u")
    summary = run([str(crawl)], out, load_rules(None), workers=1, run_id="r")
    assert summary.invariant_ok and summary.written == 3 and summary.uncleaned == ()
    assert uploads(server, bucket) == sorted(u.removeprefix(f"{bucket}/") for u in others)
    assert runs.abort_uploads() == []  # nothing of its own is left to abort


def test_a_store_that_refuses_the_upload_listing_costs_a_note_not_the_run(s3_env) -> None:
    # (a policy without s3:ListBucketMultipartUploads is refused the same way; moto's IAM
    # does not tell that action apart, a bucket that does not exist does refuse)
    from pipeline.runners.local import _abort_uploads

    server, bucket = s3_env
    assert _abort_uploads(RunDir(Storage(), f"{bucket}/out", "r")) == []
    (note,) = _abort_uploads(RunDir(Storage(), "s3://no-such-bucket-here/out", "r"))
    assert note.startswith("cannot abort the unfinished uploads a killed writer may have "
                           "left (s3://no-such-bucket-here/out/records/run_id=r: not found")
    assert "AbortIncompleteMultipartUpload" in note


def test_two_attempts_of_one_rank_at_once_commit_one_whole(s3_env, tmp_path: Path) -> None:
    # What a Spark speculative copy does: two attempts write the same rank concurrently
    # under their own temporary names; one is committed, the other's files are removed.
    server, bucket = s3_env
    crawl = tmp_path / "c.warc.gz"
    write_warc(crawl, 40, seed="t")
    storage = Storage()
    task = Task(0, str(crawl), "two", f"{bucket}/out", load_rules(None), storage=storage)
    results: list = []
    threads = [threading.Thread(target=lambda: results.append(run_task(task)))
               for _ in range(2)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    first, second = results
    assert first.attempt != second.attempt
    rundir = RunDir(storage, f"{bucket}/out", "two")
    # two parts per attempt (no errors row, no errors part), none final yet
    assert first.parts.keys() == second.parts.keys() == {"records", "links"}
    assert len(rundir.temporary_files()[0]) == 4
    commit_task(task, first)
    leftover = rundir.temporary_files()[0]
    assert sorted(leftover) == sorted(rundir.temp_part(t, 0, 0, second.attempt)
                                      for t in ("records", "links"))
    storage.remove_all(leftover)
    local = tmp_path / "local"
    run([str(crawl)], local, load_rules(None), workers=1, run_id="two")
    got = table_rows(storage, f"{bucket}/out", "two", str(tmp_path))
    want = table_rows(Storage(), str(local), "two", str(tmp_path))
    for table in ("records", "links", "errors"):
        assert got[table] == want[table] and len(got["records"]) == 40


def test_warc_paths_gz_with_an_input_base(s3_env, crawl_bucket: str, tmp_path: Path) -> None:
    server, bucket = s3_env
    lines = ["corpus/warc-samples/jwarc/cc.warc.gz", "data/sample/sample-main.warc.gz"]
    listing = tmp_path / "warc.paths.gz"
    listing.write_bytes(gzip.compress(("\n".join(lines) + "\n").encode()))
    server.upload_tree(tmp_path, f"{bucket}/listing")
    ok = redecode("run", f"{bucket}/listing/warc.paths.gz", "--input-base", f"{crawl_bucket}/",
                  "--out", str(tmp_path / "out"), "--run-id", "cc", "-q")
    assert ok.returncode == 0, ok.stderr
    config = json.loads((tmp_path / "out" / "_runs" / "cc" / "_run.json").read_text())
    assert config["inputs"] == [f"{crawl_bucket}/{line}" for line in lines]
    listing.write_bytes(gzip.compress(b"data/sample/sample-main.warc.gz\ndata/nope.warc.gz\n"))
    server.upload_tree(tmp_path, f"{bucket}/listing")
    missing = redecode("run", f"{bucket}/listing/warc.paths.gz", "--input-base",
                       f"{crawl_bucket}/", "--out", str(tmp_path / "out2"), "-q")
    assert missing.returncode == 2 and no_traceback(missing)
    assert (f"{bucket}/listing/warc.paths.gz:2: data/nope.warc.gz: no such file or folder"
            in one_line(missing.stderr))
    assert not (tmp_path / "out2").exists()


@pytest.mark.parametrize("case", ["missing key", "missing bucket", "bad credentials",
                                  "unreachable endpoint"])
def test_storage_failures_are_one_line_naming_the_path_and_write_nothing(
    s3_env, crawl_bucket: str, case: str, monkeypatch: pytest.MonkeyPatch,
) -> None:
    server, bucket = s3_env
    good = f"{crawl_bucket}/data/sample/sample-main.warc.gz"
    out = f"{bucket}/out"
    named, said = {
        "missing key": (f"{crawl_bucket}/data/sample/nope.warc.gz", "no such file or folder"),
        "missing bucket": ("s3://no-such-bucket-here/crawl/", "not found"),
        "bad credentials": (out, "access denied; check the credentials"),
        "unreachable endpoint": (out, "cannot reach the storage endpoint"),
    }[case]
    if case == "bad credentials":
        monkeypatch.setenv("AWS_SECRET_ACCESS_KEY", "wrong-secret-value")
    if case == "unreachable endpoint":
        monkeypatch.setenv("AWS_ENDPOINT_URL", f"http://127.0.0.1:{free_port()}")
    result = redecode("run", good, *([named] if named != out else []), "--out", out, "-q")
    assert result.returncode == 2 and no_traceback(result)
    line = one_line(result.stderr)
    assert named.rstrip("/") in line and said in line, line
    assert "wrong-secret-value" not in line
    assert server.keys(out) == []
    if named == out:  # the audits refuse the same way
        audit = redecode("audit", "--out", out)
        assert audit.returncode == 2 and no_traceback(audit)
        assert said in one_line(audit.stderr) and out in one_line(audit.stderr)


def test_credentials_and_signed_queries_are_never_written(
    s3_env, crawl_bucket: str, sample_crawl, monkeypatch: pytest.MonkeyPatch,
) -> None:
    server, bucket = s3_env
    key_id, secret = server.env["AWS_ACCESS_KEY_ID"], server.env["AWS_SECRET_ACCESS_KEY"]
    monkeypatch.delenv("AWS_ACCESS_KEY_ID")  # given as storage options instead
    monkeypatch.delenv("AWS_SECRET_ACCESS_KEY")
    token = "s3cr3t-signature-0123456789"
    out = f"{bucket}/out"
    with serve(sample_crawl[1], token) as base:
        signed = f"{base}/sample-main.warc.gz?token={token}"
        unreadable = f"{base}/README.md?token={token}"  # read, but not an archive
        result = redecode("run", signed, unreadable, f"{base}/nope.warc.gz?token={token}",
                          f"{crawl_bucket}/data/sample/broken.warc.gz", "--allow-missing",
                          "--out", out, "--run-id", "p", "-q",
                          "--storage-option", f"s3.key={key_id}",
                          "--storage-option", f"s3.secret={secret}")
    assert result.returncode == 3, result.stderr  # README.md: no record in it
    assert f"unreadable: {base}/README.md: " in result.stderr
    assert f"missing (allowed): {base}/nope.warc.gz: no such file or folder" in result.stderr
    for text in (result.stdout, result.stderr):
        assert secret not in text and token not in text
    written = b"".join(server.read(url) for url in server.keys(out))
    assert secret.encode() not in written and token.encode() not in written
    assert key_id.encode() not in written
    config = json.loads(server.read(f"{out}/_runs/p/_run.json"))
    assert config["storage_options"] == {"s3": {"key": "***", "secret": "***"}}
    assert f"{base}/sample-main.warc.gz" in config["inputs"]
    rows = table_rows(Storage({"s3": {"key": key_id, "secret": secret}}), out, "p", base)
    assert sum('"warc_filename": "<root>/sample-main.warc.gz"' in r for r in rows["records"]) > 10


def test_the_endpoint_from_the_rules_file_or_an_option(
    s3_env, crawl_bucket: str, monkeypatch: pytest.MonkeyPatch, tmp_path: Path,
) -> None:
    server, _ = s3_env
    monkeypatch.delenv("AWS_ENDPOINT_URL")
    good = f"{crawl_bucket}/data/sample/sample-main.warc.gz"
    rules = tmp_path / "rules.toml"
    rules.write_text(f'[storage]\nendpoint_url = "{server.endpoint}"\nregion = "us-east-1"\n')
    by_rules = redecode("run", good, "--out", str(tmp_path / "a"), "--rules", str(rules), "-q")
    assert by_rules.returncode == 0, by_rules.stderr
    by_option = redecode("run", good, "--out", str(tmp_path / "b"), "-q",
                         "--storage-option", f"s3.endpoint_url={server.endpoint}")
    assert by_option.returncode == 0, by_option.stderr
    rules.write_text('[storage]\nendpoint = "http://x"\n')
    typo = redecode("run", good, "--out", str(tmp_path / "d"), "--rules", str(rules))
    assert typo.returncode == 2
    assert "storage.endpoint: unknown key (did you mean 'endpoint_url'?)" in typo.stderr


def test_keys_holding_a_question_mark_or_a_hash_are_read_as_listed(
    s3_env, tmp_path: Path,
) -> None:
    # An S3 key may hold "?" and "#": neither is a query or a fragment there. A listing of
    # the three keys reads each object once, and every row names the key it came from.
    server, bucket = s3_env
    client = server.client()
    name = bucket.removeprefix("s3://")
    write_warc(tmp_path / "q.warc.gz", 3, seed="q")
    sample_arc = Path(__file__).resolve().parent.parent / "data" / "sample" / "sample.arc.gz"
    keys = {"in/q.warc": tmp_path / "q.warc.gz",
            "in/q.warc?versionId=abc.arc.gz": sample_arc,
            "in/r#frag.arc.gz": sample_arc}
    for key, path in keys.items():
        client.upload_file(str(path), name, key)
    local = tmp_path / "local"
    local.mkdir()
    (local / "q.warc").write_bytes(keys["in/q.warc"].read_bytes())
    (local / "a.arc.gz").write_bytes(sample_arc.read_bytes())
    reference = redecode("run", str(local), "--out", str(tmp_path / "ref"), "--run-id", "r",
                         "-q")
    assert reference.returncode == 0, reference.stderr
    # (warc_filename is relative to the run's input root: the folder, the bucket)
    want_counts = {"q.warc": count(tmp_path / "ref", "records", "r", "warc_filename = 'q.warc'"),
                   "arc": count(tmp_path / "ref", "records", "r", "warc_filename = 'a.arc.gz'")}
    assert want_counts["q.warc"] == 3 and want_counts["arc"] > 0
    result = redecode("run", f"{bucket}/in/", "--out", str(tmp_path / "out"), "--run-id", "k",
                      "-q")
    assert result.returncode == 0, result.stderr
    out = tmp_path / "out"
    got = {key: count(out, "records", "k", f"warc_filename = '{key}'") for key in keys}
    assert got == {"in/q.warc": want_counts["q.warc"],
                   "in/q.warc?versionId=abc.arc.gz": want_counts["arc"],
                   "in/r#frag.arc.gz": want_counts["arc"]}
    assert count(out, "records", "k") == sum(got.values())
    config = json.loads((out / "_runs" / "k" / "_run.json").read_text())
    assert config["inputs"] == sorted(f"{bucket}/{key}" for key in keys)


@pytest.mark.parametrize("suffix", ["/x//y", "//x", "/q?versionId=1", "/q#x"])
def test_an_output_url_that_names_no_plain_folder_is_refused_before_writing(
    s3_env, crawl_bucket: str, suffix: str,
) -> None:
    # "s3://b//x" has an empty folder name and "s3://b/q?versionId=1" reads as a version of
    # the object q: refused with exit 2, and nothing is written anywhere in the bucket.
    server, bucket = s3_env
    result = redecode("run", f"{crawl_bucket}/data/sample/sample-main.warc.gz",
                      "--out", f"{bucket}{suffix}", "--run-id", "o", "-q")
    assert result.returncode == 2, result.stderr
    assert no_traceback(result)
    line = one_line(result.stderr)
    assert f"--out {bucket}{suffix}" in line, line
    assert server.keys(bucket) == []


def test_an_https_input_that_cannot_be_reached_or_is_refused_says_so(
    sample_crawl, tmp_path: Path,
) -> None:
    # A server that does not answer is not a missing file: the line says it cannot be
    # reached (as for s3://); a refused request says access denied; a 404 is "no such file".
    dead = f"https://127.0.0.1:{free_port()}/crawl/x.warc.gz"
    result = redecode("run", dead, "--out", str(tmp_path / "out"), "-q")
    assert result.returncode == 2 and no_traceback(result)
    line = one_line(result.stderr)
    assert f"{dead}: cannot reach the storage endpoint" in line, line
    assert "no such file" not in line
    with serve(sample_crawl[1], "right") as base:
        refused = redecode("run", f"{base}/sample-main.warc.gz?token=wrong",
                           f"{base}/nope.warc.gz?token=right", "--out", str(tmp_path / "out"),
                           "-q")
    assert refused.returncode == 2 and no_traceback(refused)
    line = one_line(refused.stderr)
    assert f"{base}/sample-main.warc.gz: access denied" in line, line
    assert f"{base}/nope.warc.gz: no such file or folder" in line, line
    assert "wrong" not in line and not (tmp_path / "out").exists()


#: The sample's rules, one override changed and one added (a .com fallback reaches many of
#: the WARC samples' pages): what an incremental run must decode again.
CHANGED_RULES = """
[[encoding.override]]
host = "legacy.example.jp"
encoding = "Shift_JIS"
mode = "fallback"

[[encoding.override]]
url_prefix = "http://mislabeled.example.com/ru/"
encoding = "windows-1251"
mode = "force"

[[encoding.override]]
host = "com"
encoding = "windows-1251"
mode = "fallback"
"""


@pytest.mark.slow  # three CLI runs over the sample on S3 (tests/test_incremental.py covers
# the plan and the copies on local files in the default suite)
def test_an_incremental_run_on_s3_equals_a_full_one(s3_env, crawl_bucket: str, tmp_path) -> None:
    server, bucket = s3_env
    out = f"{bucket}/incremental"
    changed = tmp_path / "changed.toml"
    changed.write_text(CHANGED_RULES)
    base = redecode("run", *inputs(crawl_bucket), "--out", out, "--run-id", "base", "-q",
                    "--rules", f"{crawl_bucket}/data/sample/rules.toml")
    assert base.returncode in (0, 3), base.stderr
    again = [*inputs(crawl_bucket), "--out", out, "--rules", str(changed), "-q"]
    incremental = redecode("run", *again, "--run-id", "incremental", "--base-run", "base")
    full = redecode("run", *again, "--run-id", "full")
    assert incremental.returncode == full.returncode, incremental.stderr + full.stderr
    got, want = rows_of(out, "incremental", crawl_bucket), rows_of(out, "full", crawl_bucket)
    for table in ("records", "links", "errors"):
        assert got[table] == want[table], differences({table: got[table]}, {table: want[table]})
    (row,) = got["runs"]
    counts = json.loads(row)
    assert 0 < counts["records_redecoded"] < counts["records_copied"]
    assert counts["base_run"] == "base"
