"""scripts/readme_tables.py: README blocks replaced by the bench results' sections."""

from __future__ import annotations

import importlib.util
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
_spec = importlib.util.spec_from_file_location("readme_tables", ROOT / "scripts" / "readme_tables.py")
assert _spec is not None and _spec.loader is not None
readme_tables = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(readme_tables)

RESULTS = """# Benchmark results

## End to end (100 pages)

| a | b |
|---|---|
| 1 | 2 |

### Two workers

| c |
|---|

## Extraction (181 pages)

text
"""


def test_a_block_becomes_its_section_one_level_down() -> None:
    readme = "intro\n\n<!-- bench: End to end -->\nold table\n<!-- /bench -->\n\nafter\n"
    out = readme_tables.render(readme, RESULTS)
    assert "old table" not in out
    assert "### End to end (100 pages)\n\n| a | b |" in out
    assert "#### Two workers" in out and "Extraction" not in out
    assert out.startswith("intro\n\n<!-- bench: End to end -->\n") and out.endswith("<!-- /bench -->\n\nafter\n")
    assert readme_tables.render(out, RESULTS) == out  # rendering again changes nothing


def test_a_block_without_a_section_is_refused() -> None:
    with pytest.raises(SystemExit, match="Storage"):
        readme_tables.render("<!-- bench: Storage -->\n<!-- /bench -->\n", RESULTS)


def test_top_keeps_a_section_without_its_subsections() -> None:
    out = readme_tables.render("<!-- bench: End to end#top -->\n<!-- /bench -->\n", RESULTS)
    assert "### End to end (100 pages)\n\n| a | b |" in out
    assert "Two workers" not in out and "| c |" not in out


def test_a_subsection_is_kept_alone_one_level_down() -> None:
    out = readme_tables.render("<!-- bench: End to end#Two -->\n<!-- /bench -->\n", RESULTS)
    assert out == "<!-- bench: End to end#Two -->\n### Two workers\n\n| c |\n|---|\n\n<!-- /bench -->\n"
    with pytest.raises(SystemExit, match="Three"):
        readme_tables.render("<!-- bench: End to end#Three -->\n<!-- /bench -->\n", RESULTS)


def test_the_readme_and_docs_hold_the_tracked_results() -> None:
    assert readme_tables.main(["--check"]) == 0, "run scripts/readme_tables.py after make bench WRITE=1"


def test_a_stale_page_is_named(tmp_path, monkeypatch, capsys) -> None:
    (tmp_path / "docs").mkdir()
    (tmp_path / "bench").mkdir()
    (tmp_path / "bench" / "RESULTS.md").write_text(RESULTS)
    (tmp_path / "README.md").write_text("no blocks\n")
    (tmp_path / "docs" / "x.md").write_text("<!-- bench: Extraction -->\nold\n<!-- /bench -->\n")
    monkeypatch.setattr(readme_tables, "ROOT", tmp_path)
    assert readme_tables.main(["--check"]) == 1
    assert "docs/x.md" in capsys.readouterr().err
    assert readme_tables.main([]) == 0 and readme_tables.main(["--check"]) == 0
    assert "## Extraction (181 pages)" in (tmp_path / "docs" / "x.md").read_text()
