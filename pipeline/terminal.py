"""Text from a crawl shown on a terminal: never as control sequences."""

from __future__ import annotations

import re

#: C0/C1 controls, DEL, and the bidirectional marks and overrides a terminal would obey.
_UNPRINTABLE = re.compile("[\x00-\x1f\x7f-\x9f\u200e\u200f\u202a-\u202e\u2066-\u2069]")


def printable(text: str) -> str:
    """``text`` with control and bidirectional characters shown as escapes.

    >>> printable("a\\x1b]8;;http://x\\x07b\\nc\\u202e")
    'a\\\\x1b]8;;http://x\\\\x07b\\\\nc\\\\u202e'
    """
    def escape(match: re.Match[str]) -> str:
        char = match.group()
        return repr(char)[1:-1] if ord(char) < 0x100 else f"\\u{ord(char):04x}"

    return _UNPRINTABLE.sub(escape, text)
