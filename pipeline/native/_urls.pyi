"""Typed interface of ``pipeline/extract/_urls.c`` (ada's URL parser; imported through
:mod:`pipeline.native` only)."""

from collections.abc import Callable

from pipeline.extract.fields import Link

#: The ada-url release whose ada.cpp is compiled in.
ADA_URL_VERSION: str

_Candidate = tuple[str, str, str | None, str, str | None, str]

def parse(href: str, base: bytes | None, /) -> tuple[str, str] | None:
    """(href, hostname) of ``href`` parsed against ``base`` (UTF-8); None where it fails."""

def hrefs(hrefs: list[str], base: bytes | None, /) -> list[str | None]:
    """Each href parsed against ``base``; None where it fails."""

def bind_links(cls: type[Link], field_names: tuple[str, ...], kinds: tuple[str, ...], /) -> None:
    """The Link class, its field names in order and the link kinds, checked and kept."""

def links(
    candidates: list[_Candidate], base: bytes | None, page_data: bytes | None,
    page_url: str | None, has_domain: bool, internal_of: dict[str | None, bool | None],
    internal_fn: Callable[[str], bool | None],
    reencode: Callable[[str, str], str] | None, reencode_all: bool, /,
) -> tuple[tuple[Link, ...], int]:
    """(the links of ``candidates``, the URLs that failed to parse)."""

def links_packed(
    pack: bytes, objects: list[object], extra: list[_Candidate], base: bytes | None,
    page_data: bytes | None, page_url: str | None, has_domain: bool,
    internal_of: dict[str | None, bool | None], internal_fn: Callable[[str], bool | None],
    reencode: Callable[[str, str], str] | None, reencode_all: bool, /,
) -> tuple[tuple[Link, ...], int]:
    """:func:`links` over a pack of candidates (``Document.facts(..., True)``), then ``extra``."""
