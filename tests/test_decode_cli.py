"""`redecode decode`: one page explained, through the installed console script."""

from __future__ import annotations

import json
from pathlib import Path

from pipeline.encoding.mojibake import MOJIBAKE_THRESHOLD
from tests.cli_helpers import no_traceback, redecode

JAPANESE = ("<html><head><title>日本語のページ</title></head><body><article>"
            + "<p>これは文字化けの検査に使う日本語の文章です。本文は十分な長さがあります。</p>" * 12
            + "<a href='/next'>次へ</a></article></body></html>")


def _page(tmp_path: Path, data: bytes, name: str = "p.html") -> str:
    path = tmp_path / name
    path.write_bytes(data)
    return str(path)


def test_a_page_forced_to_the_wrong_encoding_by_its_header_is_warned_about(tmp_path: Path) -> None:
    # Shift_JIS bytes under a header that says ISO-8859-1: no U+FFFD, but mojibake.
    page = _page(tmp_path, JAPANESE.encode("shift_jis"))
    result = redecode("decode", page, "--content-type", "text/html; charset=ISO-8859-1",
                      "--url", "http://shop.example.jp/")
    assert result.returncode == 0 and no_traceback(result), result.stderr
    out = result.stdout
    assert "encoding: windows-1252 (header" in out
    assert "0 U+FFFD" in out
    assert "warning: the text looks like mojibake" in out
    assert "without the declaration the bytes read as Shift_JIS" in out
    # requests decodes ISO-8859-1 as Latin-1, the browser as windows-1252: 0x80-0x9F differ.
    assert "naive decode: garbled" in out


def test_a_right_decoding_has_no_warning_and_shows_the_fields(tmp_path: Path) -> None:
    page = _page(tmp_path, JAPANESE.encode("shift_jis"))
    result = redecode("decode", page, "--content-type", "text/html; charset=Shift_JIS",
                      "--url", "http://shop.example.jp/a/")
    assert result.returncode == 0, result.stderr
    assert "warning:" not in result.stdout
    assert "looks right" in result.stdout
    assert "title: 日本語のページ" in result.stdout
    assert "lang: ja" in result.stdout
    assert "link: http://shop.example.jp/next" in result.stdout


def test_text_prints_only_the_main_text(tmp_path: Path) -> None:
    page = _page(tmp_path, JAPANESE.encode("utf-8"))
    result = redecode("decode", page, "--content-type", "text/html; charset=utf-8", "--text")
    assert result.returncode == 0, result.stderr
    assert "これは文字化けの検査に使う日本語の文章です" in result.stdout
    assert "encoding:" not in result.stdout and "<p>" not in result.stdout


def test_html_prints_the_decoded_source(tmp_path: Path) -> None:
    page = _page(tmp_path, JAPANESE.encode("euc_jp"))
    result = redecode("decode", page, "--content-type", "text/html; charset=EUC-JP", "--html")
    assert result.returncode == 0, result.stderr
    assert result.stdout.rstrip("\n") == JAPANESE


def test_format_json_holds_the_decision_score_verdict_fields_and_links(tmp_path: Path) -> None:
    page = _page(tmp_path, JAPANESE.encode("shift_jis"))
    result = redecode("decode", page, "--content-type", "text/html; charset=ISO-8859-1",
                      "--url", "http://shop.example.jp/", "--format", "json", "--text")
    assert result.returncode == 0, result.stderr
    data = json.loads(result.stdout)
    assert data["decision"]["encoding"] == "windows-1252"
    assert data["is_mojibake"] is True and data["mojibake_score"] > MOJIBAKE_THRESHOLD
    assert data["alternative"]["encoding"] == "Shift_JIS"
    assert data["naive_decode_garbled"] is True
    assert any("mojibake" in w for w in data["warnings"])
    assert data["links"][0]["url"] == "http://shop.example.jp/next"
    assert "main_text" in data


def test_page_text_never_reaches_the_terminal_as_control_sequences(tmp_path: Path) -> None:
    page = _page(tmp_path, b"<title>a\x1b]8;;http://evil/\x07b</title><p>x")
    result = redecode("decode", page, "--content-type", "text/html; charset=utf-8")
    assert result.returncode == 0, result.stderr
    assert "\x1b" not in result.stdout and "\\x1b]8;;http://evil/\\x07" in result.stdout


def test_text_and_html_together_is_a_usage_error(tmp_path: Path) -> None:
    page = _page(tmp_path, b"<p>x")
    result = redecode("decode", page, "--text", "--html")
    assert result.returncode == 2 and no_traceback(result)
    assert result.stderr.count("\n") == 1


def test_an_archive_or_a_pdf_is_refused_as_no_page(tmp_path: Path) -> None:
    # A .warc.gz (or any archive a run reads) and a PDF are not one page's bytes: decoding
    # them "as a page" printed a confident report of garbage. One line, exit 2.
    root = Path(__file__).resolve().parent.parent / "data" / "sample"
    cases = {
        str(root / "sample-main.warc.gz"): "a gzip stream (a compressed archive, or a body "
                                           "still compressed), not a page; redecode run PATH",
        str(root / "sample-transport.warc"): "a WARC file, not a page; redecode run PATH",
        str(root / "sample.parquet"): "a Parquet file, not a page",
        _page(tmp_path, b"%PDF-1.4\n%\xe2\xe3\xcf\xd3\n1 0 obj\n<< >>\nendobj\n", "doc.html"):
            "application/pdf by its first bytes, not a page",
    }
    for i, (path, said) in enumerate(cases.items()):
        extra = ["--text"] if i == 0 else []  # --text is refused the same way
        result = redecode("decode", path, "--content-type", "text/html", *extra)
        assert result.returncode == 2 and no_traceback(result), (path, result.stderr)
        (line,) = result.stderr.strip().splitlines()
        assert line.startswith(f"error: {path}: {said}"), line
        assert result.stdout == ""


def test_text_of_a_page_that_looks_wrongly_decoded_warns_on_stderr(tmp_path: Path) -> None:
    # --text prints the main text alone on stdout, and what plain decode warns of on stderr.
    page = _page(tmp_path, JAPANESE.encode("shift_jis"))
    result = redecode("decode", page, "--content-type", "text/html; charset=ISO-8859-1",
                      "--url", "http://shop.example.jp/", "--text")
    assert result.returncode == 0, result.stderr
    assert "warning: the text looks like mojibake" in result.stderr
    assert "without the declaration the bytes read as Shift_JIS" in result.stderr
    assert "warning" not in result.stdout and result.stdout.strip()
    right = redecode("decode", page, "--content-type", "text/html; charset=Shift_JIS",
                     "--text")
    assert right.returncode == 0 and right.stderr == ""
    assert "これは文字化けの検査に使う日本語の文章です" in right.stdout
