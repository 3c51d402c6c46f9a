"""The oracle of ``pipeline/http/_head.c``: a stored response's head split into status line,
header fields and body, as :mod:`pipeline.http.message` describes it (RFC 9112 §2.1 with the
leniencies archived responses need), one line at a time.
"""

from __future__ import annotations

import re

from pipeline.http.message import ResponseHead
from pipeline.http.response import HttpNote
from pipeline.native import head as compiled

# "HTTP/" DIGIT "." DIGIT SP 3DIGIT (RFC 9112 §4); tolerate HTTP/1, HTTP/2 and extra spaces.
_STATUS_LINE = re.compile(rb"HTTP/[0-9](?:\.[0-9])?[ \t]+([0-9]{3})(?:[ \t]|\r?$)")
_HEAD_END = re.compile(rb"\n\r*\n")  # an empty line: LF, any CRs, LF
# the caps are the compiled module's (one home): the steps are restated, not the numbers
MAX_HEAD = compiled.MAX_HEAD
MAX_FIELD_LINE = compiled.MAX_FIELD_LINE


def parse_head(block: bytes) -> ResponseHead | None:
    """:func:`pipeline.http.message.parse_head` in Python (``_head.c`` restated).

    >>> parse_head(b"HTTP/1.0 200 OK\\nA: b\\n\\nbody").headers
    ((b'A', b'b'),)
    """
    first_end = block.find(b"\n", 0, MAX_HEAD)
    first = block[: first_end if first_end >= 0 else len(block)].rstrip(b"\r")
    m = _STATUS_LINE.match(first)
    if m is None:
        return None
    status = int(m.group(1))
    notes: list[HttpNote] = []
    if first_end < 0:
        return ResponseHead(status, first, (), len(block), ("no-header-end",))
    end = _HEAD_END.search(block, first_end)
    if end is None:
        # The block ends inside the header section: keep what is there, no body.
        head, body_start = block[first_end + 1 :], len(block)
        notes.append("no-header-end")
    else:
        head, body_start = block[first_end + 1 : end.start() + 1], end.end()
    if len(head) > MAX_HEAD:
        head = head[:MAX_HEAD]  # the lines past the cap are dropped (a cut line too, below)
        head = head[: head.rfind(b"\n") + 1]
        notes.append("header-section-over-cap")
    if b"\r\n" not in block[:min(body_start, MAX_HEAD)]:
        notes.append("lf-only-header-lines")
    headers: list[list[bytes]] = []
    for line in head.split(b"\n"):
        line = line.rstrip(b"\r")
        if not line:
            continue
        if len(line) > MAX_FIELD_LINE:
            notes.append("header-section-over-cap")
            continue
        if line[:1] in (b" ", b"\t"):
            # RFC 9112 §5.2: "replace each received obs-fold with one or more SP octets".
            if headers:
                headers[-1][1] = headers[-1][1] + b" " + line.strip(b" \t")
            continue
        name, sep, value = line.partition(b":")
        if not sep:
            notes.append("header-line-without-colon")
            continue
        headers.append([name.rstrip(b" \t"), value.strip(b" \t")])
    return ResponseHead(status, first, tuple((n, v) for n, v in headers), body_start,
                        tuple(dict.fromkeys(notes)))
