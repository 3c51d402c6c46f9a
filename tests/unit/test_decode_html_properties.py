"""Properties of ``decode_html`` on arbitrary bytes (hypothesis): it never raises, never drops
bytes silently, counts what it replaces, and keeps the browser answer policy-independent."""

from __future__ import annotations

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from pipeline.encoding.api import decode_html
from pipeline.encoding.decoders import python_codec
from pipeline.encoding.sniff.bom import bom_sniff

_PIECES = [
    b"<meta charset=", b"<meta http-equiv=content-type content='text/html; charset=", b"'>",
    b'"', b"'", b">", b"<", b"</", b"<!--", b"-->", b"--!>", b"<!", b"<?xml version='1.0' encoding='",
    b"?>", b"<script>", b"</script>", b"<style>", b"<title>", b"</title>", b"<head>", b"</head>",
    b"<body>", b"koi8-r", b"utf-8", b"utf-16", b"shift_jis", b"x-user-defined", b"iso-2022-kr",
    b"gbk", b"bogus", b"\xef\xbb\xbf", b"\xff\xfe", b"\xfe\xff", b"\x00", b"\x1b$B", b" ",
    b"\xe6\x97\xa5", b"\xa4\xa2", b"\x82\xa0", b"\xc3", b"\xff", b"&#8211;", b"=",
]
html_like = st.lists(st.one_of(st.sampled_from(_PIECES), st.binary(max_size=8)), max_size=40).map(b"".join)
bodies = st.one_of(st.binary(max_size=600), html_like)
content_types = st.one_of(
    st.none(),
    st.sampled_from([
        "text/html", "text/html; charset=utf-8", "text/html; charset=bogus", "text/html;charset=\"gbk\"",
        "text/html; charset=iso-2022-kr", "text/html; charset=utf-16le", "text/html; charset=x-user-defined",
        "garbage", "text/html; charset=", "text/html; charset=koi8-r, text/plain",
    ]),
    st.text(max_size=40),
)
urls = st.one_of(
    st.none(),
    st.sampled_from(["http://example.jp/", "https://x.ru/a", "http://[::1]/", "file:///tmp/a.html", "http://a.b.co.kr:80"]),
    st.text(max_size=30),
)
policies = st.sampled_from(["standard", "browser", "repair"])

SETTINGS = settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.too_slow])


@SETTINGS
@given(bodies, content_types, urls, policies)
def test_never_raises_and_counts(body: bytes, content_type: str | None, url: str | None, policy: str) -> None:
    decoded = decode_html(body, content_type, url, policy=policy)
    assert decoded.replacement_chars == decoded.text.count("\ufffd")
    assert decoded.decode_errors <= decoded.replacement_chars
    # the browser answer does not depend on the policy
    assert decoded.encoding_browser == decode_html(body, content_type, url, policy="browser").encoding
    if policy == "browser":
        assert decoded.encoding == decoded.encoding_browser


@SETTINGS
@given(bodies, content_types, urls, policies)
def test_never_drops_bytes(body: bytes, content_type: str | None, url: str | None, policy: str) -> None:
    decoded = decode_html(body, content_type, url, policy=policy)
    payload = body
    bom, length = bom_sniff(body)
    if bom is not None and bom == decoded.encoding:
        payload = body[length:]
    if payload and decoded.encoding not in ("replacement", "ISO-2022-JP"):
        # something always comes out of something (ISO-2022-JP escapes alone are no text)
        assert decoded.text
    codec = python_codec(decoded.encoding)
    if decoded.decode_errors == 0 and codec is not None and decoded.encoding != "x-user-defined":
        # an error-free decode round-trips: every byte is accounted for in the text
        assert decoded.text.encode(codec) == payload


@SETTINGS
@given(bodies)
def test_deterministic(body: bytes) -> None:
    first = decode_html(body, None, "http://example.com/")
    second = decode_html(body, None, "http://example.com/")
    assert (first.text, first.decision) == (second.text, second.decision)


@SETTINGS
@given(bodies, content_types, urls, policies)
def test_utf8_bytes_are_the_text_exactly(body: bytes, content_type: str | None, url: str | None,
                                         policy: str) -> None:
    # Decoded.utf8 goes to the parser in place of text.encode(): it must be those bytes.
    decoded = decode_html(body, content_type, url, policy=policy)
    if decoded.utf8 is not None:
        assert decoded.encoding == "UTF-8" and decoded.decode_errors == 0
        assert decoded.utf8 == decoded.text.encode("utf-8")
    elif decoded.encoding == "UTF-8":
        assert decoded.decode_errors > 0


def test_utf8_bytes_of_a_bom_page_leave_the_bom_out() -> None:
    decoded = decode_html(b"\xef\xbb\xbf<p>caf\xc3\xa9", "text/html; charset=windows-1252")
    assert decoded.encoding == "UTF-8" and decoded.utf8 == b"<p>caf\xc3\xa9" == decoded.text.encode()
