"""The run's contract, through the installed console script: every input runs or is reported,
a run id is one safe name used by one writer, nothing is left half-written, each exit code
means one thing, and what is printed is never read as markup."""

from __future__ import annotations

import json
import lzma
import os
import resource
import shlex
import signal
import time
from pathlib import Path

import pytest

from tests.cli_helpers import (
    count,
    no_traceback,
    readers_of,
    redecode,
    run_ids,
    runs_row,
    start,
)
from tests.crawl_builder import write_warc


@pytest.fixture()
def good(tmp_path: Path) -> Path:
    path = tmp_path / "good.warc.gz"
    write_warc(path, 3, seed="g")
    return path


# --- inputs -----------------------------------------------------------------------------


def test_a_missing_input_is_refused_before_anything_is_written(tmp_path: Path, good: Path) -> None:
    out = tmp_path / "o"
    result = redecode("run", str(good), "/nope/x.warc.gz", "--out", str(out), "-q")
    assert result.returncode == 2, result.stderr
    assert "/nope/x.warc.gz: no such file or folder" in result.stderr
    assert "--allow-missing" in result.stderr
    assert not out.exists()


def test_allow_missing_runs_the_rest_and_keeps_the_missing_in_the_runs_row(
    tmp_path: Path, good: Path
) -> None:
    out = tmp_path / "o"
    result = redecode("run", str(good), "/nope/x.warc.gz", "--out", str(out), "-q",
                      "--run-id", "m", "--allow-missing")
    assert result.returncode == 0, result.stderr
    assert "missing (allowed): /nope/x.warc.gz: no such file or folder" in result.stderr
    assert runs_row(out, "m")["config"]["missing_inputs"] == [
        {"input": "/nope/x.warc.gz", "reason": "no such file or folder"}]
    assert count(out, "records", "m") == 3


def test_a_bad_line_in_a_list_is_refused_naming_the_line(tmp_path: Path, good: Path) -> None:
    listing = tmp_path / "list.txt"
    listing.write_text(f"{good.name}\n{good.name}.typo\n")
    result = redecode("run", f"@{listing}", "--out", str(tmp_path / "o"), "-q")
    assert result.returncode == 2
    assert f"{listing}:2: {good.name}.typo: no such file or folder" in result.stderr


def test_an_unsupported_url_scheme_is_refused_clearly(tmp_path: Path, good: Path) -> None:
    result = redecode("run", str(good), "ftp://host/x.warc.gz", "--out", str(tmp_path / "o"))
    assert result.returncode == 2
    assert "ftp://host/x.warc.gz: unsupported scheme ftp://" in result.stderr
    assert no_traceback(result) and not (tmp_path / "o").exists()


def test_a_folder_scan_lists_what_it_passed_over(tmp_path: Path) -> None:
    crawl = tmp_path / "crawl"
    crawl.mkdir()
    write_warc(crawl / "a.warc.gz", 2, seed="a")
    for name in ("cc.warc.wat.gz", "cc.warc.wet.gz", "example-bad.warc.gz.bad"):
        (crawl / name).write_bytes(b"x")
    out = tmp_path / "o"
    result = redecode("run", str(crawl), "--out", str(out), "-q", "--run-id", "s")
    assert result.returncode == 0, result.stderr
    for name, reason in (("cc.warc.wat.gz", "WAT/WET hold no raw responses"),
                         ("cc.warc.wet.gz", "WAT/WET hold no raw responses"),
                         ("example-bad.warc.gz.bad", "unknown suffix .bad")):
        assert f"passed over: {crawl / name}: {reason}" in result.stderr
    skipped = runs_row(out, "s")["config"]["skipped_inputs"]
    assert {(Path(s["path"]).name, s["reason"]) for s in skipped} == {
        ("cc.warc.wat.gz", "WAT/WET hold no raw responses"),
        ("cc.warc.wet.gz", "WAT/WET hold no raw responses"),
        ("example-bad.warc.gz.bad", "unknown suffix .bad")}


# --- run ids, reuse, resume ----------------------------------------------------------------


@pytest.mark.parametrize("run_id", ["../escape", "a%2Fb"])
def test_an_unsafe_run_id_is_refused_before_anything_is_touched(
    tmp_path: Path, good: Path, run_id: str
) -> None:
    out = tmp_path / "o"
    result = redecode("run", str(good), "--out", str(out), "--run-id", run_id)
    assert result.returncode == 2 and no_traceback(result)
    assert f"--run-id {run_id!r}" in result.stderr
    assert sorted(p.name for p in tmp_path.iterdir()) == ["good.warc.gz"]


def test_reusing_a_run_id_needs_resume_or_overwrite(tmp_path: Path, good: Path) -> None:
    other = tmp_path / "other.warc.gz"
    write_warc(other, 2, seed="o")
    out = tmp_path / "o"
    assert redecode("run", str(good), "--out", str(out), "-q", "--run-id", "r").returncode == 0
    keep = out / "records" / "run_id=r" / ".kept-by-someone"
    keep.write_text("not the run's")
    again = redecode("run", str(other), "--out", str(out), "-q", "--run-id", "r")
    assert again.returncode == 2
    assert "run r already exists" in again.stderr and "--overwrite" in again.stderr
    assert count(out, "records", "r") == 3  # untouched
    replaced = redecode("run", str(other), "--out", str(out), "-q", "--run-id", "r", "--overwrite")
    assert replaced.returncode == 0, replaced.stderr
    assert count(out, "records", "r") == 2  # only the new input's rows
    assert runs_row(out, "r")["inputs"] == [str(other)]
    assert keep.read_text() == "not the run's"  # --overwrite removes the run's files only


def test_a_stray_part_in_the_run_folder_breaks_the_invariant(tmp_path: Path, good: Path) -> None:
    out = tmp_path / "o"
    assert redecode("run", str(good), "--out", str(out), "-q", "--run-id", "a").returncode == 0
    stray = out / "records" / "run_id=b" / "extra.parquet"
    stray.parent.mkdir(parents=True)
    stray.write_bytes((out / "records" / "run_id=a" / "part-00000-0000.parquet").read_bytes())
    result = redecode("run", str(good), "--out", str(out), "-q", "--run-id", "b")
    assert result.returncode == 4, result.stderr
    assert f"accounting: {stray}: a file no task of this run wrote" in result.stderr


def test_resume_with_nothing_unfinished_says_so_and_writes_nothing(tmp_path: Path, good: Path) -> None:
    out = tmp_path / "o"
    assert redecode("run", str(good), "--out", str(out), "-q").returncode == 0
    (only,) = run_ids(out)
    before = sorted(str(p) for p in out.rglob("*"))
    result = redecode("run", str(good), "--out", str(out), "-q", "--resume")
    assert result.returncode == 0, result.stderr
    assert f"nothing to do: the newest run of these inputs and rules in {out}, {only}, has " \
           "finished" in result.stderr
    assert sorted(str(p) for p in out.rglob("*")) == before
    empty = redecode("run", str(good), "--out", str(tmp_path / "empty"), "-q", "--resume")
    assert empty.returncode == 2 and "nothing to resume" in empty.stderr


def test_resume_refuses_a_run_started_with_other_inputs(tmp_path: Path, good: Path) -> None:
    other = tmp_path / "other.warc.gz"
    write_warc(other, 2, seed="o")
    out = tmp_path / "o"
    assert redecode("run", str(good), "--out", str(out), "-q", "--run-id", "r").returncode == 0
    result = redecode("run", str(other), "--out", str(out), "-q", "--run-id", "r", "--resume")
    assert result.returncode == 2 and "other inputs, rules or code" in result.stderr


def test_two_runs_started_in_the_same_second_get_their_own_ids(tmp_path: Path, good: Path) -> None:
    out = tmp_path / "o"
    procs = [start("run", str(good), "--out", str(out), "-q") for _ in range(2)]
    assert [p.wait(timeout=120) for p in procs] == [0, 0]
    ids = run_ids(out)
    assert len(ids) == 2
    assert all(count(out, "records", run_id) == 3 for run_id in ids)


def test_a_second_writer_is_refused_and_a_dead_writers_lock_is_taken_over(tmp_path: Path) -> None:
    inputs = []
    for n in range(2):
        inputs.append(str(tmp_path / f"in-{n}.warc.gz"))
        write_warc(Path(inputs[-1]), 300, seed=f"l{n}")
    out = tmp_path / "o"
    first = start("run", *inputs, "--out", str(out), "-q", "--run-id", "L", "--workers", "1")
    lock = out / "_runs" / "L" / "_lock"

    def holder_recorded() -> bool:
        # the lock file is created, then locked, then given its holder: wait for the last
        try:
            return json.loads(lock.read_bytes() or b"{}").get("pid") == first.pid
        except (OSError, ValueError):
            return False

    deadline = time.monotonic() + 60
    while not holder_recorded() and time.monotonic() < deadline:
        time.sleep(0.005)
    os.killpg(first.pid, signal.SIGSTOP)  # hold it mid-run, whatever the machine's speed
    assert first.poll() is None, "the run ended before the second writer came"
    second = redecode("run", *inputs, "--out", str(out), "-q", "--run-id", "L", "--resume")
    assert second.returncode == 2, second.stderr
    assert f"being written by pid {first.pid} on host" in second.stderr
    os.killpg(first.pid, signal.SIGKILL)  # what the OOM killer does to the whole run
    first.wait()
    assert lock.exists()  # left behind by the dead process
    third = redecode("run", *inputs, "--out", str(out), "-q", "--run-id", "L", "--resume")
    assert third.returncode == 0, third.stderr
    assert f"took over the stale lock of pid {first.pid}" in third.stderr
    assert not lock.exists()
    assert count(out, "records", "L") == 600


# --- exit codes and messages -----------------------------------------------------------------


def test_unreadable_inputs_exit_3_and_each_is_printed_with_its_reason(tmp_path: Path, good: Path) -> None:
    bad = {
        "doc.warc": b"%PDF-1.4\n%\xe2\xe3\xcf\xd3\n1 0 obj\n<< /Type /Catalog >>\nendobj\n",
        "random.warc": bytes(range(256)) * 8,
        "empty.warc.gz": b"",
        # a compression the readers do not take (xz), written by Python's lzma
        "crawl.warc.xz": lzma.compress(good.read_bytes()),
    }
    for name, data in bad.items():
        (tmp_path / name).write_bytes(data)
    out = tmp_path / "o"
    result = redecode("run", str(good), *(str(tmp_path / n) for n in bad), "--out", str(out),
                      "-q", "--run-id", "u")
    assert result.returncode == 3, result.stderr
    lines = [line for line in result.stderr.splitlines() if line.startswith("unreadable: ")]
    assert sorted(Path(line.split(": ")[1]).name for line in lines) == sorted(bad)
    assert any("empty.warc.gz: source-empty-file" in line for line in lines)
    assert all(len(line.split(": ", 3)) == 4 for line in lines)  # path: error type: message
    assert count(out, "records", "u") == 3


def test_a_users_mistake_is_one_line_and_exit_2(tmp_path: Path, good: Path) -> None:
    a_file = tmp_path / "a-file"
    a_file.write_text("x")
    result = redecode("run", str(good), "--out", str(a_file))
    assert result.returncode == 2 and no_traceback(result)
    assert result.stderr.strip() == f"error: --out {a_file}: not a folder"
    for workers in ("0", "-1"):
        refused = redecode("run", str(good), "--out", str(tmp_path / "o"), "--workers", workers)
        assert refused.returncode == 2 and "--workers" in refused.stderr, refused.stderr
    # -o is "the file a command writes" (report -o report.html); run's folder is --out only
    assert redecode("run", str(good), "-o", str(tmp_path / "o")).returncode == 2
    assert not (tmp_path / "o").exists()


def test_help_version_and_the_exit_code_table() -> None:
    for args in (("-h",), ("--help",), ("run", "-h")):
        result = redecode(*args)
        assert result.returncode == 0
        assert "Exit codes:" in result.stdout and "3  the run finished, but some inputs" in result.stdout
    version = redecode("--version")
    assert version.returncode == 0 and version.stdout.startswith("redecode ")


def test_printed_names_are_never_read_as_markup(tmp_path: Path) -> None:
    # a file name with markup, and a record whose error message quotes markup ("[/]" is a
    # closing tag with nothing open: rich raises on it)
    broken = tmp_path / "[bold]x[link=http:evil.example]y.warc"
    broken.write_bytes(b"[/] not a warc [link=http://evil.example/]z\n")
    result = redecode("run", str(broken), "--out", str(tmp_path / "o"), "-q")
    assert result.returncode == 3 and no_traceback(result), result.stderr
    assert f"unreadable: {broken}: " in result.stderr
    assert "[/] not a warc [link=http://evil.example/]z" in result.stderr
    strict = redecode("run", str(broken), "--out", str(tmp_path / "s"), "-q", "--strict")
    assert strict.returncode == 1 and no_traceback(strict), strict.stderr
    assert f"--strict: {broken}: source/" in strict.stderr and "[/] not a warc" in strict.stderr


def test_a_rule_that_matched_no_record_is_reported(tmp_path: Path, good: Path) -> None:
    rules = tmp_path / "rules.toml"
    rules.write_text('[[encoding.override]]\nhost = "example.ru"\nencoding = "KOI8-R"\n\n'
                     '[[encoding.override]]\nhost = "nowhere.example"\nencoding = "EUC-JP"\n')
    result = redecode("run", str(good), "--out", str(tmp_path / "o"), "-q", "--rules", str(rules))
    assert result.returncode == 0, result.stderr
    assert "rule unused: [[encoding.override]] #1 (host = nowhere.example" in result.stderr
    assert "#0 (host = example.ru" not in result.stderr  # the .ru page matched it
    assert "matched 1, decided 0" in result.stdout  # it declares windows-1251 in <meta>


# --- interruptions, full disks, corrupt metadata ---------------------------------------------


@pytest.mark.parametrize("signum", [signal.SIGTERM, signal.SIGINT])
def test_a_signal_leaves_no_temporary_file_unlocks_and_says_how_to_resume(
    tmp_path: Path, signum: int
) -> None:
    inputs = []
    for n in range(2):  # one per worker; a part's temporary file appears at 500 rows
        inputs.append(str(tmp_path / f"in-{n}.warc.gz"))
        write_warc(Path(inputs[-1]), 900, seed=f"t{n}")
    out = tmp_path / "o"
    rules = tmp_path / "rules.toml"
    rules.write_text('[encoding]\npolicy = "browser"\n')  # resuming needs the same rules
    proc = start("run", *inputs, "--out", str(out), "-q", "--run-id", "T", "--workers", "2",
                 "--rules", str(rules))
    deadline = time.monotonic() + 60
    while not list(out.glob("*/run_id=T/.part-*.tmp")) and time.monotonic() < deadline:
        time.sleep(0.005)
    os.killpg(proc.pid, signal.SIGSTOP)  # hold the run mid-write, whatever the machine's speed
    assert proc.poll() is None, "the run ended before it could be interrupted"
    assert list(out.glob("*/run_id=T/.part-*.tmp"))
    if signum == signal.SIGINT:
        os.killpg(proc.pid, signum)  # Ctrl-C reaches the whole process group
    else:
        os.kill(proc.pid, signum)  # `kill PID` reaches the main process only
    os.killpg(proc.pid, signal.SIGCONT)
    _, stderr = proc.communicate(timeout=60)
    assert proc.returncode == 128 + signum, stderr
    assert "Traceback" not in stderr
    assert "--resume --run-id T" in stderr
    assert list(out.rglob("*.tmp")) == []
    assert not (out / "_runs" / "T" / "_lock").exists()
    assert all(readers_of(Path(p)) == [] for p in inputs)  # no worker left reading
    if signum == signal.SIGINT:
        return  # resuming is the same after either signal
    # the command it printed resumes the run, as written
    printed = shlex.split(stderr.split("Resume with: ", 1)[1].splitlines()[0])
    assert printed[0] == "redecode" and printed[-3:] == ["--resume", "--run-id", "T"]
    resumed = redecode(*printed[1:])
    assert resumed.returncode == 0, resumed.stderr
    assert count(out, "records", "T") == 1800


def _file_size_limit(limit: int):  # type: ignore[no-untyped-def]
    def apply() -> None:
        # a full disk, as far as this process can tell: writes past `limit` bytes fail (EFBIG)
        signal.signal(signal.SIGXFSZ, signal.SIG_IGN)
        resource.setrlimit(resource.RLIMIT_FSIZE, (limit, limit))
    return apply


def test_a_full_disk_never_leaves_metadata_that_breaks_resume(tmp_path: Path, good: Path) -> None:
    out = tmp_path / "o"
    full = redecode("run", str(good), "--out", str(out), "-q", "--run-id", "F",
                    preexec_fn=_file_size_limit(300))
    assert full.returncode == 74 and no_traceback(full), full.stderr
    assert "cannot write the output" in full.stderr and "--resume --run-id F" in full.stderr
    assert not (out / "_runs" / "F" / "_run.json").exists()  # not an empty one
    assert list(out.rglob("*.tmp")) == []
    resumed = redecode("run", str(good), "--out", str(out), "-q", "--run-id", "F", "--resume")
    assert resumed.returncode == 0, resumed.stderr
    assert json.loads((out / "_runs" / "F" / "_run.json").read_text())["run_id"] == "F"


def test_corrupt_run_metadata_is_a_clear_error(tmp_path: Path, good: Path) -> None:
    out = tmp_path / "o"
    meta = out / "_runs" / "C" / "_run.json"
    meta.parent.mkdir(parents=True)
    meta.write_text("")  # what an in-place write on a full disk left
    result = redecode("run", str(good), "--out", str(out), "-q", "--run-id", "C", "--resume")
    assert result.returncode == 2 and no_traceback(result)
    assert result.stderr.startswith(f"error: {meta}: corrupt run metadata")


def test_a_file_name_that_is_not_utf8_is_written_with_escapes(tmp_path: Path) -> None:
    crawl = tmp_path / "crawl"
    crawl.mkdir()
    name = os.fsdecode(b"caf\xe9.warc.gz")  # Latin-1 bytes: lone surrogates in Python
    write_warc(crawl / name, 2, seed="n")
    out = tmp_path / "o"
    result = redecode("run", str(crawl), "--out", str(out), "-q", "--run-id", "n")
    assert result.returncode == 0 and no_traceback(result), result.stderr
    # (relative to the run's input root, the crawl folder)
    assert count(out, "records", "n", "warc_filename = 'caf\\xe9.warc.gz'") == 2
    assert runs_row(out, "n")["inputs"] == [f"{crawl}/caf\\xe9.warc.gz"]


def test_overwrite_and_resume_never_reach_through_a_link_out_of_the_output_folder(
    tmp_path: Path, good: Path,
) -> None:
    # A run's folders replaced by symbolic links to folders elsewhere: --overwrite would
    # remove and rewrite the files there, --resume write there. Both are refused before
    # anything is touched; the links and what they point at stay as they were.
    out = tmp_path / "o"
    assert redecode("run", str(good), "--out", str(out), "-q", "--run-id", "R").returncode == 0
    outside = tmp_path / "outside"
    outside.mkdir()
    for rel in ("records/run_id=R", "_runs/R"):
        moved = outside / rel.replace("/", "_")
        (out / rel).rename(moved)
        (out / rel).symlink_to(moved, target_is_directory=True)
    (outside / "_runs_R" / "_finished").unlink()  # unfinished: --resume would continue it
    before = {p: p.read_bytes() for p in sorted(outside.rglob("*")) if p.is_file()}
    assert len(before) > 3
    for option in ("--overwrite", "--resume"):
        result = redecode("run", str(good), "--out", str(out), "-q", "--run-id", "R", option)
        assert result.returncode == 2 and no_traceback(result), result.stderr
        (line,) = result.stderr.strip().splitlines()
        assert f"{out / 'records' / 'run_id=R'} -> {outside / 'records_run_id=R'}" in line
        assert f"{out / '_runs' / 'R'} -> {outside / '_runs_R'}" in line
        assert f"{option} touches nothing outside --out" in line
        assert {p: p.read_bytes() for p in sorted(outside.rglob("*")) if p.is_file()} == before
        assert (out / "records" / "run_id=R").is_symlink() and (out / "_runs" / "R").is_symlink()
    # a part that is a link (to a file elsewhere) is removed as a link by --overwrite
    assert redecode("run", str(good), "--out", str(out), "-q", "--run-id", "S").returncode == 0
    part = out / "records" / "run_id=S" / "part-00000-0000.parquet"
    elsewhere = outside / "kept.parquet"
    part.rename(elsewhere)
    part.symlink_to(elsewhere)
    kept = elsewhere.read_bytes()
    again = redecode("run", str(good), "--out", str(out), "-q", "--run-id", "S", "--overwrite")
    assert again.returncode == 0, again.stderr
    assert elsewhere.read_bytes() == kept and not part.is_symlink()
    assert count(out, "records", "S") == 3


def test_one_corrupt_run_config_does_not_block_resume_without_a_run_id(
    tmp_path: Path, good: Path,
) -> None:
    # --resume without --run-id looks through every run of --out: a run whose _run.json
    # is damaged is passed over with a note, and the unfinished run of these inputs goes on.
    out = tmp_path / "o"
    assert redecode("run", str(good), "--out", str(out), "-q", "--run-id", "A").returncode == 0
    (out / "_runs" / "A" / "_finished").unlink()
    (out / "_runs" / "A" / "_completions" / "00000").unlink()  # rank 0 to run again
    for name, text in (("B", "{half"), ("C", "[1, 2]")):
        damaged = out / "_runs" / name / "_run.json"
        damaged.parent.mkdir(parents=True)
        damaged.write_text(text)
    result = redecode("run", str(good), "--out", str(out), "-q", "--resume")
    assert result.returncode == 0 and no_traceback(result), result.stderr
    notes = [line for line in result.stderr.splitlines() if line.startswith("note: ")]
    assert len(notes) == 2, result.stderr
    assert f"passed over run B while looking for the run to resume: {out}/_runs/B/_run.json: " \
           "corrupt run metadata" in notes[0]
    assert f"{out}/_runs/C/_run.json: not a run's config" in notes[1]
    assert count(out, "records", "A") == 3 and (out / "_runs" / "A" / "_finished").exists()
    # when only damaged runs are there, the refusal names them
    (out / "_runs" / "A" / "_run.json").write_text("")
    alone = redecode("run", str(good), "--out", str(out), "-q", "--resume")
    assert alone.returncode == 2 and no_traceback(alone)
    assert "nothing to resume" in alone.stderr and "passed over 3 run(s)" in alone.stderr


def test_a_wat_or_wet_file_and_a_cut_warc_gz_are_said_on_the_terminal(
    tmp_path: Path, good: Path, corpus: Path,
) -> None:
    # Named one by one, a WAT and a WET file are read to their end and give no row; a
    # .warc.gz cut in half gives the records before the cut. The run exits 0 (every file
    # was read: none is unreadable), and the terminal says what happened to each.
    from pipeline.sources import iter_records
    from pipeline.sources.record import RawRecord

    whirlwind = corpus / "warc-samples" / "whirlwind-python"
    wat, wet = whirlwind / "whirlwind.warc.wat.gz", whirlwind / "whirlwind.warc.wet.gz"
    whole = (Path(__file__).resolve().parent.parent / "data" / "sample" /
             "sample-main.warc.gz").read_bytes()
    cut = tmp_path / "cut.warc.gz"
    cut.write_bytes(whole[: len(whole) // 2])
    (last,) = [item for item in iter_records(str(cut))
               if isinstance(item, RawRecord) and item.block_truncated]
    out = tmp_path / "o"
    result = redecode("run", str(good), str(wat), str(wet), str(cut), "--out", str(out), "-q",
                      "--run-id", "w")
    assert result.returncode == 0 and no_traceback(result), result.stderr
    lines = result.stderr.strip().splitlines()
    assert len(lines) == 3, result.stderr
    assert lines[0].startswith(f"note: {wat}: nothing to decode: none of its 2 records is a "
                               "response or resource (metadata 1, warcinfo 1); a WAT or WET "
                               "file holds Common Crawl's metadata or extracted text")
    assert lines[1].startswith(f"note: {wet}: nothing to decode: none of its 2 records is a "
                               "response or resource (conversion 1, warcinfo 1); a WAT or WET")
    assert lines[2] == (f"truncated: {cut}: the file ends inside the record at byte "
                        f"{last.warc_record_offset} (its gzip member is cut off); every record "
                        "before it was read, the cut one as far as it goes (a cut download? "
                        "fetch the file again)")
    # (warc_filename is relative to the run's input root: the inputs' common folder)
    assert count(out, "records", "w", "warc_filename like '%/cut.warc.gz'") > 0
    stats = {data["path"]: data for data in (json.loads(p.read_text()) for p in
                                            (out / "_runs" / "w" / "_stats").glob("*.json"))}
    assert stats[str(cut)]["truncated"].startswith("the file ends inside the record")
    assert stats[str(good)]["truncated"] is None
