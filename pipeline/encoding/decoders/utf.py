"""The Encoding Standard's UTF-8 and UTF-16BE/LE decoders, on Python's own codecs.

Python's UTF-8 decoder with ``errors="replace"`` follows Unicode's "maximal subpart" practice,
which is what the spec's UTF-8 decoder produces (https://encoding.spec.whatwg.org/#utf-8-decoder:
a byte outside the expected range is "restored" and the partial sequence is one error); its
UTF-16 decoder splits unpaired surrogates and a final odd byte the way the spec's shared UTF-16
decoder does. tests/conformance/test_decoders.py proves both against the spec, step by step.
"""

from __future__ import annotations

from pipeline.encoding.decoders.errors import COUNT_REPLACE, reset_count, take_count

_LITERAL_FFFD = "\ufffd".encode()


def decode_utf8(body: bytes) -> tuple[str, int]:
    """UTF-8 decode without BOM handling: (text, errors).

    >>> decode_utf8(b"caf\\xc3\\xa9 \\xef\\xbf\\xbd \\xe0\\x80")
    ('café � ��', 2)
    """
    try:
        return body.decode("utf-8"), 0
    except UnicodeDecodeError:
        pass
    text = body.decode("utf-8", "replace")
    # A literal U+FFFD is the valid sequence EF BF BD. 0xEF is never a continuation byte, so
    # every EF BF BD in the input decodes as one literal U+FFFD (the spec restores a byte that
    # breaks a sequence and reads it again as a lead): the rest of the U+FFFD are errors.
    return text, text.count("\ufffd") - body.count(_LITERAL_FFFD)


def decode_utf16(body: bytes, big_endian: bool) -> tuple[str, int]:
    """UTF-16BE/LE decode without BOM handling: (text, errors).

    >>> decode_utf16(b"A\\x00\\x00\\xd8B\\x00!", big_endian=False)
    ('A�B�', 2)
    """
    codec = "utf-16-be" if big_endian else "utf-16-le"
    try:
        return body.decode(codec), 0
    except UnicodeDecodeError:
        pass
    reset_count()
    text = body.decode(codec, COUNT_REPLACE)
    return text, take_count()
