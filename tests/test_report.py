"""`redecode report`: one self-contained HTML file that renders in headless Chromium."""

from __future__ import annotations

import re
import shutil
import struct
import subprocess
import zlib
from pathlib import Path

import pytest
from typer.testing import CliRunner

from pipeline import report
from pipeline.cli_audit import app
from tests.fixtures.audit import build

CHROMIUM_FLAGS = ["--headless", "--no-sandbox", "--disable-gpu",
                  "--disable-background-networking", "--enable-logging=stderr", "--v=0"]


@pytest.fixture(scope="module")
def report_file(tmp_path_factory: pytest.TempPathFactory) -> Path:
    out = tmp_path_factory.mktemp("report") / "out"
    build.report_runs(out)  # two runs: a rule change, FFFD and mojibake: every chart draws
    output = out / "report.html"
    result = CliRunner().invoke(app, ["report", "--out", str(out), "-o", str(output)])
    assert result.exit_code == 0, result.output
    return output


def test_report_is_one_self_contained_file(report_file: Path) -> None:
    text = report_file.read_text(encoding="utf-8")
    assert text.startswith("<!DOCTYPE html>")
    # nothing is fetched: no script, stylesheet link, image, frame, src/href or CSS url()
    for pattern in (r"<script", r"<link", r"<img", r"<iframe", r"\bsrc=", r"\bhref=",
                    r"url\(", r"@import"):
        assert not re.search(pattern, text, re.I), pattern
    assert text.count("<svg") >= 5  # mix, sources, FFFD over time, change, rates per run


def test_report_has_every_section(report_file: Path) -> None:
    text = report_file.read_text(encoding="utf-8")
    for heading in ("Encoding mix per TLD", "Decision sources", "U+FFFD rate per host over time",
                    "Top mojibake hosts", "Run-to-run change"):
        assert f"<h2>{heading}</h2>" in text
    assert "before → after" in text
    assert "news.example.jp" in text


def test_report_escapes_text_from_the_crawl(tmp_path: Path) -> None:
    records = build._records("xss")
    records[0]["url_host_tld"] = "<script>alert(1)</script>"
    build.write_run(tmp_path, "xss", records)
    text = report.render(tmp_path)
    assert "<script>" not in text
    assert "&lt;script&gt;" in text


def test_bar_chart_of_nothing_says_so() -> None:
    assert report.bar_chart([], {"pages": []}) == "<p>No rows.</p>"


def _png_pixels(png: bytes, max_rows: int) -> tuple[int, int, list[bytes]]:
    """Width, channels and the first ``max_rows`` RGB(A) rows of an 8-bit truecolour PNG
    (what Chromium writes), unfiltered in pure Python (hence the row limit)."""
    assert png[:8] == b"\x89PNG\r\n\x1a\n"
    position, idat, header = 8, b"", b""
    while position < len(png):
        (length,) = struct.unpack(">I", png[position : position + 4])
        kind = png[position + 4 : position + 8]
        data = png[position + 8 : position + 8 + length]
        if kind == b"IHDR":
            header = data
        elif kind == b"IDAT":
            idat += data
        position += 12 + length
    width, height, depth, colour = struct.unpack(">IIBB", header[:10])
    assert depth == 8 and colour in (2, 6), (depth, colour)
    channels = 3 if colour == 2 else 4
    raw = zlib.decompress(idat)
    stride = width * channels
    rows: list[bytes] = []
    previous = bytearray(stride)
    for index in range(min(height, max_rows)):
        start = index * (stride + 1)
        kind, line = raw[start], bytearray(raw[start + 1 : start + 1 + stride])
        for i in range(stride):  # PNG filters: None, Sub, Up, Average, Paeth
            left = line[i - channels] if i >= channels else 0
            up = previous[i]
            corner = previous[i - channels] if i >= channels else 0
            if kind == 1:
                line[i] = (line[i] + left) & 0xFF
            elif kind == 2:
                line[i] = (line[i] + up) & 0xFF
            elif kind == 3:
                line[i] = (line[i] + (left + up) // 2) & 0xFF
            elif kind == 4:
                estimate = left + up - corner
                pa, pb, pc = abs(estimate - left), abs(estimate - up), abs(estimate - corner)
                nearest = left if pa <= pb and pa <= pc else up if pb <= pc else corner
                line[i] = (line[i] + nearest) & 0xFF
        rows.append(bytes(line))
        previous = line
    return width, channels, rows


def _colour_stats(png: Path) -> tuple[int, float]:
    """Distinct colours and the share of pixels that differ from the top-left one, over the
    top 700 pixel rows (title, gates table and the first chart)."""
    width, channels, rows = _png_pixels(png.read_bytes(), max_rows=700)
    background = rows[0][:3]
    colours, other, total = set(), 0, 0
    for row in rows[::4]:
        for x in range(0, width * channels, channels * 2):
            pixel = row[x : x + 3]
            colours.add(pixel)
            other += pixel != background
            total += 1
    return len(colours), other / total


def _render(page: Path, tmp_path: Path) -> tuple[Path, list[str]]:
    chromium = shutil.which("chromium") or shutil.which("chromium-browser")
    assert chromium, "chromium missing: apt-get install -y chromium (.ci/run does this)"
    screenshot = tmp_path / f"{page.stem}.png"
    completed = subprocess.run(
        [chromium, *CHROMIUM_FLAGS, f"--screenshot={screenshot}", "--window-size=900,1200",
         page.resolve().as_uri()],
        capture_output=True, text=True, timeout=120, check=False,
    )
    assert screenshot.exists(), completed.stderr[-2000:]
    console = [line for line in completed.stderr.splitlines() if ":CONSOLE" in line]
    return screenshot, console


@pytest.mark.browser
def test_report_renders_in_chromium_without_console_errors(
    report_file: Path, tmp_path: Path
) -> None:
    screenshot, console = _render(report_file, tmp_path)
    assert console == []
    colours, inked = _colour_stats(screenshot)
    assert colours >= 5  # palette bars and lines, text, grid: not one flat colour
    assert inked > 0.02


@pytest.mark.browser
def test_the_harness_sees_console_errors_and_blank_pages(tmp_path: Path) -> None:
    # negative controls: the checks above can fail
    broken = tmp_path / "broken.html"
    broken.write_text("<html><body><script>undefined_function()</script></body></html>")
    screenshot, console = _render(broken, tmp_path)
    assert any("undefined_function" in line for line in console)
    colours, inked = _colour_stats(screenshot)
    assert colours == 1 and inked == 0.0


def test_line_chart_keeps_the_given_run_order() -> None:
    # run ids are not sortable by name: "after" must come after "before" when told so
    svg = report.line_chart({"rate": [("after", 0.2), ("before", 0.1)]},
                            x_order=["before", "after"])
    assert svg.index(">before</text>") < svg.index(">after</text>")
