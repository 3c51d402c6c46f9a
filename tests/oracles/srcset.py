"""The URLs of a ``srcset`` attribute (``img``, ``source``).

Implements the HTML Standard's *parse a srcset attribute* (§4.8.4.3.10), keeping the URL
of every image candidate the descriptor parser accepts (what Chromium 156 accepts too:
``tests/fixtures/links/srcset-chromium.json``, the WPT cases answered by its
``img.currentSrc``). The oracle of the compiled core's ``srcset_urls``
(``pipeline/extract/_urltext.c``), which the pipeline runs: tests compare the two.
https://html.spec.whatwg.org/commit-snapshots/2c2f4ac1bcae32e4b8af5f6a5a2fb8f5dc2b4e83/#parse-a-srcset-attribute
"""

from __future__ import annotations

import re

_WHITESPACE = "\t\n\x0c\r "
#: "A valid non-negative integer" (§2.3.4.1) and "a valid floating-point number"
#: (§2.3.4.3), each followed by its descriptor letter.
_WIDTH = re.compile(r"[0-9]+w")
_HEIGHT = re.compile(r"[0-9]+h")
_DENSITY = re.compile(r"-?(?:[0-9]+(?:\.[0-9]+)?|\.[0-9]+)(?:[eE][-+]?[0-9]+)?x")


def parse_srcset(value: str) -> list[str]:
    """The URLs of the image candidates of a ``srcset`` value, in order.

    >>> parse_srcset(" a.png 1x, b.png 2x,c.png 640w 480h")
    ['a.png', 'b.png', 'c.png']
    >>> parse_srcset("data:,a 1x 1x ( , data:,b 1x, ), data:,c")  # duplicate density
    ['data:,c']
    >>> parse_srcset("a 1h, b foo, c 0w, d, e,,")  # h without w, unknown, zero width
    ['d', 'e']
    """
    candidates: list[str] = []
    end = len(value)
    position = 0
    while True:
        # Step 4: "splitting loop": skip ASCII whitespace and commas.
        while position < end and (value[position] in _WHITESPACE or value[position] == ","):
            position += 1
        if position >= end:  # Step 5
            return candidates
        # Step 6: collect a sequence of code points that are not ASCII whitespace.
        start = position
        while position < end and value[position] not in _WHITESPACE:
            position += 1
        url = value[start:position]
        descriptors: list[str] = []
        if url.endswith(","):
            # Step 8.1: "If url ends with U+002C (,), then: Remove all trailing U+002C
            # COMMA characters from url."
            url = url.rstrip(",")
        else:
            position = _tokenize_descriptors(value, position, descriptors)
        if _descriptors_ok(descriptors) and url:
            candidates.append(url)


def _tokenize_descriptors(value: str, position: int, descriptors: list[str]) -> int:
    """Step 8.2, the descriptor tokenizer: fills ``descriptors``; the position after."""
    end = len(value)
    while position < end and value[position] in _WHITESPACE:  # 8.2.1
        position += 1
    current: list[str] = []
    state = "in descriptor"
    while True:
        c = value[position] if position < end else ""
        if state == "in descriptor":
            if c and c in _WHITESPACE:
                if current:
                    descriptors.append("".join(current))
                    current = []
                    state = "after descriptor"
            elif c == ",":
                position += 1
                if current:
                    descriptors.append("".join(current))
                return position
            elif c == "(":
                current.append(c)
                state = "in parens"
            elif c == "":
                if current:
                    descriptors.append("".join(current))
                return position
            else:
                current.append(c)
        elif state == "in parens":
            if c == ")":
                current.append(c)
                state = "in descriptor"
            elif c == "":
                # "Append current descriptor to descriptors. Jump to the step labeled
                # descriptor parser."
                descriptors.append("".join(current))
                return position
            else:
                current.append(c)
        else:  # after descriptor
            if c == "":
                return position
            if c not in _WHITESPACE:
                state = "in descriptor"
                position -= 1  # "Set position to the previous character in input."
        position += 1


def _descriptors_ok(descriptors: list[str]) -> bool:
    """Step 9-13, the descriptor parser: whether the candidate is kept (error is no)."""
    width = density = height = False
    for descriptor in descriptors:
        if _WIDTH.fullmatch(descriptor):
            # "If width and density are not both absent, then let error be yes."
            if width or density or int(descriptor[:-1]) == 0:
                return False
            width = True
        elif _DENSITY.fullmatch(descriptor):
            if width or density or height or float(descriptor[:-1]) < 0:
                return False
            density = True
        elif _HEIGHT.fullmatch(descriptor):
            if height or density or int(descriptor[:-1]) == 0:
                return False
            height = True
        else:  # "Anything else: Let error be yes."
            return False
    # Step 12: "If future-compat-h is not absent and width is absent, let error be yes."
    return not (height and not width)
