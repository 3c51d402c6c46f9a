"""`make redecode` / `make nightly` take any crawl (CRAWL, RULES, OUT); `make bench` leaves
the tracked results alone unless asked (WRITE=1)."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

from tests.cli_helpers import run_ids
from tests.crawl_builder import write_warc

ROOT = Path(__file__).resolve().parent.parent


def make(*args: str) -> subprocess.CompletedProcess[str]:
    # -o: take the installed .venv as it is (never reinstall from a test)
    return subprocess.run(["make", "--no-print-directory", "-C", str(ROOT), "-o", ".venv/.installed",
                           *args], capture_output=True, text=True, timeout=300)


def test_make_redecode_and_nightly_take_a_crawl_rules_and_out(tmp_path: Path) -> None:
    crawl = tmp_path / "crawl"
    crawl.mkdir()
    write_warc(crawl / "a.warc.gz", 3, seed="m")
    rules = tmp_path / "rules.toml"
    rules.write_text('[encoding]\npolicy = "browser"\n')
    out = tmp_path / "out"
    result = make("nightly", f"CRAWL={crawl}", f"RULES={rules}", f"OUT={out}", "RUN_ARGS=-q")
    assert result.returncode == 0, result.stdout + result.stderr
    (run_id,) = run_ids(out)
    assert '"policy": "browser"' in (out / "_runs" / run_id / "_run.json").read_text()
    assert (out / "report.html").is_file()


def test_make_bench_writes_the_tracked_results_only_when_asked() -> None:
    default = make("-n", "bench").stdout
    assert "--results out/bench/RESULTS.md" in default
    assert "--results bench/RESULTS.md" in make("-n", "bench", "WRITE=1").stdout


def test_the_bench_refuses_to_replace_the_tracked_results_with_a_partial_run() -> None:
    before = (ROOT / "bench" / "RESULTS.md").read_bytes()
    result = subprocess.run([sys.executable, "-m", "bench", "--only", "hostile", "--results",
                             "bench/RESULTS.md"], cwd=ROOT, capture_output=True, text=True)
    assert result.returncode == 2 and "only a complete run" in result.stderr
    assert (ROOT / "bench" / "RESULTS.md").read_bytes() == before
