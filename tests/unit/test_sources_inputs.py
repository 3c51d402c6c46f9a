"""expand_inputs: files, directories, globs and path lists (cc-pyspark's input form)."""

from __future__ import annotations

from pathlib import Path

import pytest

from pipeline.sources.inputs import expand_inputs


@pytest.fixture()
def tree(tmp_path: Path) -> Path:
    for rel in ("a/one.warc.gz", "a/b/two.WARC", "a/b/three.arc.gz", "a/four.arc", "c/five.parquet",
                "a/readme.md", "a/skip.warc.gz.tmp", "a/.hidden/six.warc.gz", "a/b/seven.warc.lz4"):
        p = tmp_path / rel
        p.parent.mkdir(parents=True, exist_ok=True)
        p.write_bytes(b"")
    return tmp_path


def test_directory_is_searched_recursively_for_archive_extensions(tree: Path) -> None:
    got = expand_inputs([str(tree / "a")])
    assert [Path(p).relative_to(tree).as_posix() for p in got] == [
        "a/b/seven.warc.lz4", "a/b/three.arc.gz", "a/b/two.WARC", "a/four.arc", "a/one.warc.gz"]


def test_glob_and_duplicates_are_sorted_and_deduplicated(tree: Path) -> None:
    got = expand_inputs([str(tree / "a" / "*.warc.gz"), str(tree / "a" / "one.warc.gz"),
                         str(tree / "**" / "*.parquet")])
    # sorted by full path: a/one.warc.gz before c/five.parquet; the duplicate appears once
    assert [Path(p).relative_to(tree).as_posix() for p in got] == ["a/one.warc.gz", "c/five.parquet"]


def test_a_file_named_directly_is_taken_whatever_its_name(tree: Path) -> None:
    assert expand_inputs([str(tree / "a" / "skip.warc.gz.tmp")]) == [str(tree / "a" / "skip.warc.gz.tmp")]


def test_path_list_with_at_sign_and_txt_file(tree: Path) -> None:
    listing = tree / "inputs.txt"
    listing.write_text("# a comment\n\na/one.warc.gz\n" + str(tree / "c" / "five.parquet") + "\n")
    expected = sorted([str(tree / "a" / "one.warc.gz"), str(tree / "c" / "five.parquet")])
    assert expand_inputs([f"@{listing}"]) == expected
    assert expand_inputs([str(listing)]) == expected


def test_nothing_matching_is_a_usage_error(tree: Path) -> None:
    with pytest.raises(ValueError, match="no input files"):
        expand_inputs([str(tree / "nothing-*.warc")])
    with pytest.raises(ValueError):
        expand_inputs([])


def test_a_list_that_includes_itself_is_an_error(tree: Path) -> None:
    listing = tree / "self.txt"
    listing.write_text("self.txt\n")
    with pytest.raises(ValueError, match="includes itself"):
        expand_inputs([str(listing)])
