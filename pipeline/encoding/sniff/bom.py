"""Implements the Encoding Standard's *BOM sniff*.

https://encoding.spec.whatwg.org/#bom-sniff
"""

from __future__ import annotations

_BOMS: tuple[tuple[bytes, str], ...] = (
    (b"\xef\xbb\xbf", "UTF-8"),
    (b"\xfe\xff", "UTF-16BE"),
    (b"\xff\xfe", "UTF-16LE"),
)


def bom_sniff(body: bytes) -> tuple[str | None, int]:
    """Return (encoding, BOM length) for a leading byte order mark, else (None, 0).

    Step 2: "For each of the rows of the following table, starting with the first one and
    going down, if BOM starts with the bytes given in the first column, then return the
    encoding given in the cell in the second column of that row. Otherwise, return null."
    UTF-32 BOMs are not BOMs here: ``FF FE 00 00`` is UTF-16LE, as in browsers.

    >>> bom_sniff(b"\\xef\\xbb\\xbf<html>")
    ('UTF-8', 3)
    >>> bom_sniff(b"\\xff\\xfe\\x00\\x00")
    ('UTF-16LE', 2)
    >>> bom_sniff(b"<html>")
    (None, 0)
    """
    for bom, encoding in _BOMS:
        if body.startswith(bom):
            return encoding, len(bom)
    return None, 0
