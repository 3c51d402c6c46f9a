"""expand_inputs: files, directories, globs and path lists (cc-pyspark's input form), and an
account of every input that named nothing and every file a folder scan passed over."""

from __future__ import annotations

from pathlib import Path

import pytest

from pipeline.sources.inputs import Missing, Skipped, expand_inputs


@pytest.fixture()
def tree(tmp_path: Path) -> Path:
    for rel in ("a/one.warc.gz", "a/b/two.WARC", "a/b/three.arc.gz", "a/four.arc", "c/five.parquet",
                "a/readme.md", "a/skip.warc.gz.tmp", "a/.hidden/six.warc.gz", "a/b/seven.warc.lz4",
                "a/cc.warc.wat.gz", "a/cc.warc.wet.gz"):
        p = tmp_path / rel
        p.parent.mkdir(parents=True, exist_ok=True)
        p.write_bytes(b"")
    return tmp_path


def rel(tree: Path, paths: list[str]) -> list[str]:
    return [Path(p).relative_to(tree).as_posix() for p in paths]


def test_directory_is_searched_recursively_for_archive_extensions(tree: Path) -> None:
    got = expand_inputs([str(tree / "a")])
    assert rel(tree, got.files) == [
        "a/b/seven.warc.lz4", "a/b/three.arc.gz", "a/b/two.WARC", "a/four.arc", "a/one.warc.gz"]
    assert got.missing == []


def test_a_folder_scan_lists_what_it_passed_over_and_why(tree: Path) -> None:
    got = expand_inputs([str(tree / "a")])
    passed_over = {Path(s.path).relative_to(tree).as_posix(): s.reason for s in got.skipped}
    assert passed_over == {
        "a/.hidden": "hidden folder",
        "a/cc.warc.wat.gz": "WAT/WET hold no raw responses",
        "a/cc.warc.wet.gz": "WAT/WET hold no raw responses",
        "a/readme.md": "not an archive name",
        "a/skip.warc.gz.tmp": "unknown suffix .tmp",
    }


def test_the_output_folder_is_never_scanned(tree: Path) -> None:
    (tree / "a" / "out" / "records").mkdir(parents=True)
    (tree / "a" / "out" / "records" / "part-00000.parquet").write_bytes(b"")
    got = expand_inputs([str(tree / "a")], exclude=str(tree / "a" / "out"))
    assert not any("part-00000" in f for f in got.files)
    assert Skipped(str(tree / "a" / "out"), "the output folder") in got.skipped


def test_glob_and_duplicates_are_sorted_and_deduplicated(tree: Path) -> None:
    got = expand_inputs([str(tree / "a" / "*.warc.gz"), str(tree / "a" / "one.warc.gz"),
                         str(tree / "**" / "*.parquet")])
    # sorted by full path: a/one.warc.gz before c/five.parquet; the duplicate appears once
    assert rel(tree, got.files) == ["a/one.warc.gz", "c/five.parquet"]


def test_a_file_named_directly_is_taken_whatever_its_name(tree: Path) -> None:
    path = str(tree / "a" / "skip.warc.gz.tmp")
    assert expand_inputs([path]).files == [path]


def test_path_list_with_at_sign_and_txt_file(tree: Path) -> None:
    listing = tree / "inputs.txt"
    listing.write_text("# a comment\n\na/one.warc.gz\n" + str(tree / "c" / "five.parquet") + "\n")
    expected = sorted([str(tree / "a" / "one.warc.gz"), str(tree / "c" / "five.parquet")])
    assert expand_inputs([f"@{listing}"]).files == expected
    assert expand_inputs([str(listing)]).files == expected


def test_a_missing_input_beside_a_good_one_is_reported_not_dropped(tree: Path) -> None:
    got = expand_inputs([str(tree / "a" / "one.warc.gz"), "/nope/x.warc.gz",
                         str(tree / "nothing-*.warc")])
    assert rel(tree, got.files) == ["a/one.warc.gz"]
    assert got.missing == [
        Missing("/nope/x.warc.gz", "no such file or folder"),
        Missing(str(tree / "nothing-*.warc"), "the pattern matches no file"),
    ]


def test_a_bad_line_in_a_list_is_reported_with_its_line_number(tree: Path) -> None:
    listing = tree / "inputs.txt"
    listing.write_text("a/one.warc.gz\n# fine\na/typo.warc.gz\n")
    got = expand_inputs([f"@{listing}"])
    assert rel(tree, got.files) == ["a/one.warc.gz"]
    assert got.missing == [Missing(f"{listing}:3: a/typo.warc.gz", "no such file or folder")]
    assert expand_inputs([f"@{tree / 'no-list.txt'}"]).missing == [
        Missing(f"@{tree / 'no-list.txt'}", "no such list file")]


def test_remote_inputs_need_the_storage_layer_and_other_schemes_are_refused(tree: Path) -> None:
    got = expand_inputs(["s3://bucket/crawl/x.warc.gz", "ftp://host/x.warc.gz"])
    assert got.files == []
    assert got.missing == [
        Missing("s3://bucket/crawl/x.warc.gz", "remote inputs need the storage layer"),
        Missing("ftp://host/x.warc.gz", "unsupported scheme ftp://; remote inputs are s3://, "
                "s3a://, gs://, gcs://, hdfs://, http://, https://"),
    ]
    listing = tree / "remote.txt"
    listing.write_text("ftp://host/x.warc.gz\n")
    assert expand_inputs([str(listing)]).missing[0].reason.startswith("unsupported scheme")


def test_nothing_matching_gives_no_files(tree: Path) -> None:
    assert expand_inputs([str(tree / "nothing-*.warc")]).files == []
    assert expand_inputs([]).files == []


def test_a_list_that_includes_itself_is_an_error(tree: Path) -> None:
    listing = tree / "self.txt"
    listing.write_text("self.txt\n")
    with pytest.raises(ValueError, match="includes itself"):
        expand_inputs([str(listing)])


def test_a_relative_line_of_a_warc_paths_listing_without_an_input_base_says_so(
    tree: Path,
) -> None:
    # Common Crawl's warc.paths.gz lines are relative to the crawl's root: without
    # --input-base they are looked for beside the listing, and the reason says so.
    import gzip

    listing = tree / "warc.paths.gz"
    listing.write_bytes(gzip.compress(b"crawl-data/CC-MAIN-2024-10/x.warc.gz\n"))
    (missing,) = expand_inputs([str(listing)]).missing
    assert missing.input == f"{listing}:1: crawl-data/CC-MAIN-2024-10/x.warc.gz"
    assert missing.reason.startswith("no such file or folder (a relative line, looked for "
                                     f"in the list's folder {tree} since no --input-base")
    assert "--input-base https://data.commoncrawl.org/" in missing.reason
    # with an input base the line is taken from there, and nothing more is said
    (based,) = expand_inputs([str(listing)], input_base=str(tree / "root")).missing
    assert based.reason == "no such file or folder"


def test_saved_pages_are_found_with_their_names_relative_to_the_folder_given(
    tmp_path: Path,
) -> None:
    from pipeline.sources.inputs import Page

    for rel in ("site/index.html", "site/a/b.HTM", "site/a/notes.txt", "site/.cache/c.html"):
        (tmp_path / rel).parent.mkdir(parents=True, exist_ok=True)
        (tmp_path / rel).write_bytes(b"<p>x</p>")
    site = tmp_path / "site"
    got = expand_inputs([str(site)])
    assert got.files == [] and got.missing == []
    assert got.pages == [Page(str(site / "a" / "b.HTM"), "a/b.HTM"),
                         Page(str(site / "index.html"), "index.html")]
    assert Skipped(str(site / "a" / "notes.txt"), "not an archive name") in got.skipped
    # a glob: names relative to its part before the first glob character
    globbed = expand_inputs([str(site / "**" / "*.HTM")])
    assert globbed.pages == [Page(str(site / "a" / "b.HTM"), "a/b.HTM")]
    # beside an archive, a folder scan passes the pages over
    (site / "crawl.warc.gz").write_bytes(b"")
    mixed = expand_inputs([str(site)])
    assert mixed.files == [str(site / "crawl.warc.gz")] and mixed.pages == []
    assert Skipped(str(site / "index.html"), "a saved page beside archives (name the pages' "
                   "own folder or files to decode them)") in mixed.skipped
