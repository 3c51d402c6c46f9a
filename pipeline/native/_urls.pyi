"""Typed interface of ``pipeline/extract/_urls.c`` (ada's URL parser; imported through
:mod:`pipeline.native` only)."""

from collections.abc import Callable, Iterator
from typing import SupportsIndex, final, overload

from pipeline.extract.fields import Link

#: The ada-url release whose ada.cpp is compiled in.
ADA_URL_VERSION: str
#: The nanoarrow release compiled in (the links table's Arrow arrays).
NANOARROW_VERSION: str

@final
class PageLinks:
    """A page's links, in order, kept compiled: each a :class:`Link` when read."""

    def __init__(self) -> None: ...
    def __hash__(self) -> int: ...
    def __len__(self) -> int: ...
    @overload
    def __getitem__(self, index: SupportsIndex, /) -> Link: ...
    @overload
    def __getitem__(self, index: slice, /) -> tuple[Link, ...]: ...
    def __iter__(self) -> Iterator[Link]: ...
    def __eq__(self, other: object, /) -> bool: ...
    def __ne__(self, other: object, /) -> bool: ...

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
) -> tuple[PageLinks, int]:
    """(the links of ``candidates``, the URLs that failed to parse)."""

def links_packed(
    pack: bytes, objects: list[object], extra: list[_Candidate], base: bytes | None,
    page_data: bytes | None, page_url: str | None, has_domain: bool,
    internal_of: dict[str | None, bool | None], internal_fn: Callable[[str], bool | None],
    reencode: Callable[[str, str], str] | None, reencode_all: bool, /,
) -> tuple[PageLinks, int]:
    """:func:`links` over a pack of candidates (``Document.facts(..., True)``), then ``extra``."""

def links_batch(
    schema: object, pages: list[tuple[PageLinks, str, str, str | None]], /,
) -> tuple[object, object]:
    """The links of ``pages`` (each with its record's run_id, record_id and url) as one Arrow
    record batch of ``schema`` (a PyCapsule ``arrow_schema``: the links table's): the
    PyCapsules ``arrow_schema`` and ``arrow_array`` of the Arrow C Data Interface."""
