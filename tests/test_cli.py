"""The CLI on the bundled sample, run as a user runs it (the installed console script):
`redecode run` writes the tables DuckDB reads; `decode` explains."""

from __future__ import annotations

import json
from pathlib import Path

import duckdb

from tests.cli_helpers import redecode

ROOT = Path(__file__).resolve().parent.parent
SAMPLE = ROOT / "data" / "sample"


def test_run_on_the_sample_writes_every_table(tmp_path: Path) -> None:
    out = tmp_path / "out"
    result = redecode("run", str(SAMPLE), "--out", str(out), "--run-id", "t", "-q")
    assert result.returncode == 0, result.stderr
    counts = dict(
        duckdb.execute(
            f"select encoding_source, count(*) from read_parquet('{out}/records/*/*.parquet', "
            "hive_partitioning=true) group by 1"
        ).fetchall()
    )
    # the sample is built to exercise every decision step (data/sample/README.md)
    for source in ("bom", "header", "meta", "xml", "late-meta", "utf8", "detected", "default"):
        assert counts.get(source, 0) > 0, (source, counts)
    for table in ("links", "errors", "runs"):
        assert list((out / table).glob("run_id=t/*.parquet")), table


def test_run_with_the_sample_rules_uses_the_rule(tmp_path: Path) -> None:
    out = tmp_path / "out"
    result = redecode("run", str(SAMPLE), "--out", str(out), "--run-id", "r", "-q",
                      "--rules", str(SAMPLE / "rules.toml"))
    assert result.returncode == 0, result.stderr
    ((rule_rows,),) = duckdb.execute(
        f"select count(*) from read_parquet('{out}/records/*/*.parquet') where encoding_source = 'rule'"
    ).fetchall()
    assert rule_rows > 0


def test_run_refuses_missing_inputs(tmp_path: Path) -> None:
    result = redecode("run", str(tmp_path / "nothing-*.warc.gz"), "--out", str(tmp_path))
    assert result.returncode == 2
    assert "the pattern matches no file" in result.stderr


def test_decode_explains_a_meta_declared_page(tmp_path: Path) -> None:
    page = tmp_path / "p.html"
    page.write_bytes('<meta charset="shift_jis"><title>テスト</title>'.encode("shift_jis"))
    result = redecode("decode", str(page), "--url", "http://x.example/", "--json", "--text")
    assert result.returncode == 0, result.stderr
    data = json.loads(result.stdout)
    assert data["encoding"] == "Shift_JIS"
    assert data["encoding_source"] == "meta"
    assert "テスト" in data["text"]


def test_strict_stops_at_the_first_record_error(tmp_path: Path) -> None:
    # the sample holds broken records: recorded normally, fatal under --strict
    broken = str(SAMPLE / "broken.warc.gz")
    ok = redecode("run", broken, "--out", str(tmp_path / "a"), "-q", "--workers", "1")
    assert ok.returncode == 0, ok.stderr
    strict = redecode("run", broken, "--out", str(tmp_path / "b"), "-q", "--workers", "1",
                      "--strict")
    assert strict.returncode == 1
    assert "source" in strict.stderr


def test_config_sources_are_recorded_cli_over_env(tmp_path: Path) -> None:
    out = tmp_path / "out"
    result = redecode("run", str(SAMPLE / "sample.arc.gz"), "--out", str(out), "-q",
                      "--run-id", "c", "--workers", "1",
                      env={"REDECODE_POLICY": "browser", "REDECODE_WORKERS": "2"})
    assert result.returncode == 0, result.stderr
    config = json.loads((out / "_runs" / "c" / "_run.json").read_text())
    assert config["sources"] == {"policy": "env", "workers": "cli"}
    assert config["rules"]["encoding"]["policy"] == "browser"
