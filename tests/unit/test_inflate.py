"""The inflater keeps zlib's contract where the readers depend on it."""

from __future__ import annotations

import gzip
import random
import zlib

import numpy as np
import pytest

from pipeline import inflate


def _texty(rng: random.Random, size: int) -> bytes:
    """``size`` bytes, 30% of them random and the rest "A" (compressible, not trivially)."""
    draw = np.random.default_rng(rng.getrandbits(64))
    noise = draw.integers(0, 256, size, dtype=np.uint8)
    return np.where(draw.random(size) < 0.3, noise, np.uint8(65)).astype(np.uint8).tobytes()


def _pieces(data: bytes, rng: random.Random) -> tuple[bytes, bytes, bool]:
    """Decompress ``data`` as MemberChain does: bounded reads, feeding unconsumed_tail back."""
    d = inflate.decompressobj(inflate.GZIP_WBITS)
    out, tail = [], data
    while True:
        limit = rng.randint(1, 70_000)
        piece = d.decompress(tail, limit)
        assert len(piece) <= limit
        out.append(piece)
        tail = d.unconsumed_tail
        if d.eof or (not tail and not piece):
            break
        if not tail:  # input used up: ISA-L may still hold output (MemberChain drains it too)
            while piece := d.decompress(b"", limit):
                out.append(piece)
            break
    return b"".join(out), d.unused_data, d.eof


def test_isal_inflates_members_and_zlib_only_what_is_shorter_than_one() -> None:
    from isal import isal_zlib

    assert type(isal_zlib.decompressobj(inflate.GZIP_WBITS)) is not type(zlib.decompressobj(inflate.GZIP_WBITS))
    assert type(inflate.decompressobj(inflate.GZIP_WBITS)) is type(isal_zlib.decompressobj(inflate.GZIP_WBITS))
    assert type(inflate.decompressobj(inflate.GZIP_WBITS, 6)) is type(zlib.decompressobj(inflate.GZIP_WBITS))


def test_bounded_reads_give_the_member_and_leave_the_next_in_unused_data() -> None:
    rng = random.Random(7)
    for _ in range(60):
        raw = _texty(rng, rng.randint(0, 200_000))
        following = gzip.compress(b"the next member")
        out, unused, eof = _pieces(gzip.compress(raw, compresslevel=6) + following, rng)
        assert (out, unused, eof) == (raw, following, True)


def test_a_truncated_member_gives_what_zlib_gives() -> None:
    rng = random.Random(3)
    raw = _texty(rng, 300_000)
    data = gzip.compress(raw)
    for cut in (len(data) // 3, len(data) // 2, len(data) - 9):
        out, _, eof = _pieces(data[:cut], rng)
        assert not eof and out == zlib.decompressobj(inflate.GZIP_WBITS).decompress(data[:cut])


@pytest.mark.parametrize("flip", [-6, -2, 20])  # CRC-32, ISIZE, compressed data
def test_corruption_raises_an_inflate_error(flip: int) -> None:
    data = bytearray(gzip.compress(b"hello world " * 1000))
    data[flip] ^= 0x55
    with pytest.raises(inflate.INFLATE_ERRORS):
        inflate.decompressobj(inflate.GZIP_WBITS).decompress(bytes(data))


def test_zlib_and_raw_deflate() -> None:
    text = b"deflate me " * 500
    for wbits, packed in ((inflate.ZLIB_WBITS, zlib.compress(text)),
                          (inflate.RAW_WBITS, zlib.compress(text)[2:-4])):
        d = inflate.decompressobj(wbits)
        assert d.decompress(packed) == text and d.eof
