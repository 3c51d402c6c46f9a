"""Typed interface of ``pipeline/extract/_document.c`` (Lexbor's HTML parser and the walks
over its tree; imported through :mod:`pipeline.native` only)."""

from collections.abc import Callable
from typing import Literal, final, overload

from _typeshed import ReadableBuffer

#: The version of the Lexbor sources compiled in.
LEXBOR_VERSION: str

#: One link candidate: (kind, tag, attr, value, rel, text).
_Candidate = tuple[str, str, str | None, str, str | None, str]
#: The head facts: (metas as (property, name, content), base href, title, canonical links as
#: (href, rel), html lang).
_Head = tuple[list[tuple[str | None, str | None, str]], str | None, str | None,
              list[tuple[str, str | None]], str | None]
#: An ExtractContent block: (length with markers, length outside links, that text as UTF-8,
#: whether it may hold a default waste expression, links, cleaned lines as UTF-8).
_Block = tuple[int, int, bytes, bool, int, bytes]

class ParseLimitError(Exception):
    """A parse stopped by a limit: ``args`` is (code, message)."""

@final
class Document:
    """UTF-8 ``data`` parsed by Lexbor as an HTML document; the parse is stopped
    (:class:`ParseLimitError`) past a limit (0: none: the open elements, one start tag's
    attributes, the distinct names outside Lexbor's tables) or the thread CPU ``deadline``."""

    def __new__(cls, data: ReadableBuffer, max_depth: int = 0, max_attributes: int = 0,
                deadline: float = 0.0, max_names: int = 0) -> Document: ...
    @overload
    def facts(
        self, limits: tuple[int, ...], packed: Literal[False] = False, /
    ) -> tuple[int, list[_Candidate], list[int], list[str], _Head]:
        """(elements, link candidates, URLs left out per kind, meta refresh contents, head
        facts)."""
    @overload
    def facts(
        self, limits: tuple[int, ...], packed: Literal[True], /
    ) -> tuple[int, tuple[bytes, list[object]], list[int], list[str], _Head]:
        """:meth:`facts` with the candidates packed: (pack, the objects it indexes)."""
    def main_text(
        self, drop_tags: bool, drop_hidden: bool, prune_patterns: bool, prefer_article: bool,
        max_share: float, article_min_share: float, comments: bool, comment_max_share: float,
        prefix_chars: int, /,
    ) -> tuple[list[_Block], int, str, bool, list[_Block]]:
        """(blocks of the scoring scope, visible text length, its first ``prefix_chars``
        characters, whether the scope is an article container, blocks of the comment
        sections: empty unless ``comments``)."""

def srcset_urls(value: str, /) -> list[str]:
    """The image candidate URLs of a ``srcset`` value."""

def css_urls(text: str, /) -> list[str]:
    """The URLs of a style sheet or ``style`` attribute."""

def script_urls(text: str, /) -> list[str]:
    """The URL-like string literals of a script."""

def configure(
    tag_flags: dict[str, int], kinds: dict[str, int], container_kinds: dict[str, int],
    style_hidden: Callable[[str], bool], names_boilerplate: Callable[[str], bool],
    role_boilerplate: Callable[[str], bool], /,
) -> None:
    """The main-text walks' tag tables and the tests they call back."""

def configure_patterns(
    words: tuple[str, ...], comment_words: tuple[str, ...], content_classes: tuple[str, ...],
    comment_names: Callable[[str], bool], hidden_classes: tuple[str, ...],
    comment_form_words: tuple[str, ...], comment_form_names: Callable[[str], bool], /,
) -> None:
    """The ASCII lowercase class/id words searched in C (boilerplate, comment sections,
    their reply forms), the class tokens that exempt or hide an element, and the tests of
    names that are not ASCII."""

def configure_urls(
    kinds: tuple[str, ...], per_element: tuple[tuple[str, str, str, int], ...],
    global_attributes: tuple[tuple[str, str, int], ...], keep_empty: frozenset[str],
    resource_rels: tuple[str, ...], js_types: tuple[str, ...], json_types: tuple[str, ...], /,
) -> None:
    """The links' attribute tables (:mod:`pipeline.extract.url_attributes`)."""

def configure_head(integration_points: tuple[str, ...], meta_keys: tuple[str, ...], /) -> None:
    """The tag names of the HTML integration points and the meta keys metadata reads."""

def blocks(marked: str, /) -> list[_Block]:
    """Marked text cut into ExtractContent blocks."""
