"""The Infra Standard's ASCII whitespace operations the extractors apply to text and
attribute values.

https://infra.spec.whatwg.org/#ascii-whitespace
"""

from __future__ import annotations

#: ASCII whitespace per the Infra Standard: TAB, LF, FF, CR, SPACE (not NBSP).
ASCII_WHITESPACE = "\t\n\x0c\r "
_TO_SPACE = str.maketrans({"\t": " ", "\n": " ", "\x0c": " ", "\r": " "})


def strip_and_collapse(value: str) -> str:
    """Infra Standard *strip and collapse ASCII whitespace*.

    "replace any sequence of one or more consecutive code points that are ASCII
    whitespace in the string with a single U+0020 SPACE code point, and then remove
    any leading and trailing ASCII whitespace from that string."

    >>> strip_and_collapse("\\t a \\n\\n b\\u00a0 ")
    'a b\\xa0'
    """
    return " ".join(part for part in value.translate(_TO_SPACE).split(" ") if part)


def strip_ascii(value: str | None) -> str | None:
    """Strip leading and trailing ASCII whitespace; None for a missing or empty value.

    >>> strip_ascii("  x \\n"), strip_ascii(" "), strip_ascii(None)
    ('x', None, None)
    """
    if value is None:
        return None
    value = value.strip(ASCII_WHITESPACE)
    return value or None
