"""Content codings with crafted bytes: each coding, stacks, corrupt data, the size cap, and
bodies stored already decoded."""

from __future__ import annotations

import gzip
import zlib

import brotli
import pytest
import zstandard

from pipeline.http.coding import CodingFailure, Decoded, decode_content

TEXT = b"<!doctype html><p>" + "Grüße, 日本語, привет. ".encode() * 40 + b"</p>"


def raw_deflate(data: bytes) -> bytes:
    c = zlib.compressobj(9, zlib.DEFLATED, -zlib.MAX_WBITS)
    return c.compress(data) + c.flush()


def coding_of(case: str) -> str:
    """The Content-Encoding name of a case ("deflate-raw" -> "deflate")."""
    return case.removesuffix("-zlib").removesuffix("-raw")


ENCODED = {
    "gzip": gzip.compress(TEXT, mtime=0),
    "x-gzip": gzip.compress(TEXT, mtime=0),
    "deflate-zlib": zlib.compress(TEXT),
    "deflate-raw": raw_deflate(TEXT),
    "br": brotli.compress(TEXT),
    "zstd": zstandard.ZstdCompressor().compress(TEXT),
}


@pytest.mark.parametrize("case", sorted(ENCODED), ids=sorted(ENCODED))
def test_each_coding_is_removed(case: str) -> None:
    coding = coding_of(case)
    out = decode_content(ENCODED[case], coding, cap=1 << 20)
    assert isinstance(out, Decoded)
    assert out.body == TEXT
    assert out.applied == (coding,)
    assert not out.truncated and out.notes == ()


def test_coding_names_are_case_insensitive() -> None:
    assert decode_content(ENCODED["gzip"], " GZip ", cap=1 << 20).body == TEXT


def test_stacked_codings_are_removed_in_reverse_order() -> None:
    # "Content-Encoding: gzip, br": gzip was applied first, then br
    body = brotli.compress(gzip.compress(TEXT, mtime=0))
    out = decode_content(body, "gzip, br", cap=1 << 20)
    assert out.body == TEXT and out.applied == ("br", "gzip")


def test_identity_is_a_no_op_inside_a_stack() -> None:
    out = decode_content(ENCODED["zstd"], "identity, zstd", cap=1 << 20)
    assert out.body == TEXT and out.applied == ("zstd",)


@pytest.mark.parametrize("coding", ["gzip", "deflate", "br", "zstd"])
def test_corrupt_binary_data_is_an_error(coding: str) -> None:
    corrupt = {"gzip": b"\x1f\x8b\x08\x00" + bytes(range(256)) * 4,
               "deflate": bytes(range(255, -1, -1)) * 4,
               "br": b"\xff\xff\x00\x01" + bytes(range(256)) * 4,
               "zstd": b"\x28\xb5\x2f\xfd" + bytes(range(256)) * 4}[coding]
    out = decode_content(corrupt, coding, cap=1 << 20)
    assert isinstance(out, CodingFailure) and out.error_type == "http-content-encoding-failed"


@pytest.mark.parametrize("case", sorted(ENCODED), ids=sorted(ENCODED))
def test_over_the_cap_is_an_error(case: str) -> None:
    out = decode_content(ENCODED[case], coding_of(case), cap=100)
    assert isinstance(out, CodingFailure) and out.error_type == "http-decompressed-too-large"


def test_a_gzip_bomb_stops_at_the_cap_without_inflating_everything() -> None:
    bomb = gzip.compress(b"\0" * (50 * 2**20), mtime=0)  # 50 MiB of zeros in ~50 KB
    out = decode_content(bomb, "gzip", cap=2**20)
    assert isinstance(out, CodingFailure) and out.error_type == "http-decompressed-too-large"


def test_unknown_coding_on_binary_data_is_unsupported() -> None:
    out = decode_content(b"\x00\x01\x02compressed?", "compress", cap=1 << 20)
    assert isinstance(out, CodingFailure) and out.error_type == "http-content-encoding-unsupported"


@pytest.mark.parametrize("coding", ["gzip", "deflate", "br", "zstd", "sdch"])
def test_body_stored_decoded_under_a_coding_header_is_kept(coding: str) -> None:
    # ClueWeb09 stores the page decoded but keeps "Content-Encoding: gzip"
    out = decode_content(TEXT, coding, cap=1 << 20)
    assert out.body == TEXT and out.applied == ()
    assert out.notes == ("content-encoding-not-applied",)


def test_truncated_gzip_stream_gives_the_prefix_and_says_so() -> None:
    body = ENCODED["gzip"][: len(ENCODED["gzip"]) // 2]
    out = decode_content(body, "gzip", cap=1 << 20)
    assert out.truncated
    assert 0 < len(out.body) < len(TEXT) and TEXT.startswith(out.body)


def test_truncated_brotli_stream_says_so() -> None:
    body = ENCODED["br"][: len(ENCODED["br"]) // 2]
    out = decode_content(body, "br", cap=1 << 20)
    assert out.truncated and TEXT.startswith(out.body)


def test_empty_body_with_a_coding_is_empty() -> None:
    out = decode_content(b"", "gzip", cap=100)
    assert out.body == b"" and out.applied == ()
