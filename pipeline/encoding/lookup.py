"""Implements the Encoding Standard's *get an encoding* (label → encoding name).

https://encoding.spec.whatwg.org/#concept-encoding-get
"""

from __future__ import annotations

from pipeline.encoding.labels import LABELS

# ASCII whitespace per the Infra Standard: TAB, LF, FF, CR, SPACE.
_ASCII_WHITESPACE = "\t\n\x0c\r "


def get_an_encoding(label: str | bytes | None) -> str | None:
    """Return the WHATWG encoding name for ``label``, or None when it is not a label.

    Step 1: "Remove any leading and trailing ASCII whitespace from label."
    Step 2: "If label is an ASCII case-insensitive match for any of the labels listed
    in the table below, then return the corresponding encoding; otherwise return failure."

    >>> get_an_encoding(" Latin1 ")
    'windows-1252'
    >>> get_an_encoding("gb2312")
    'GBK'
    >>> get_an_encoding("utf-32") is None
    True
    """
    if label is None:
        return None
    if isinstance(label, bytes):
        label = label.decode("latin-1")
    key = label.strip(_ASCII_WHITESPACE)
    # ASCII case-insensitive only: str.lower() would also fold non-ASCII letters
    # (e.g. U+212A KELVIN SIGN → "k"), which the spec does not.
    if not key.isascii():
        return None
    return LABELS.get(key.lower())
