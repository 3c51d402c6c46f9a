"""Which attributes and contents of a document hold URLs, and what kind of link each is.

The HTML Standard's URL-valued content attributes (index of attributes, "Valid URL
potentially surrounded by spaces", "set of space-separated tokens consisting of valid
absolute URLs", "comma-separated list of image candidate strings"):

| element | attribute | kind | value |
|---|---|---|---|
| ``a``, ``area`` | ``href`` | navigation | one URL |
| ``a``, ``area`` | ``ping`` | metadata | space-separated URLs |
| ``link`` | ``href`` | navigation or resource (by ``rel``) | one URL |
| ``base`` | ``href`` | metadata | one URL, against the fallback base URL |
| ``img``, ``script``, ``iframe``, ``frame``, ``embed``, ``audio``, ``video``, ``source``, ``track``, ``input type=image`` | ``src`` | resource | one URL |
| ``img``, ``source`` | ``srcset`` | resource | image candidates (*parse a srcset attribute*) |
| ``video`` | ``poster`` | resource | one URL |
| ``object`` | ``data`` | resource | one URL |
| ``body``, ``table``, ``td``, ``th`` | ``background`` | resource | one URL (obsolete, still loaded) |
| ``form`` | ``action`` | form | one URL ("" is the document's URL) |
| ``button``, ``input`` | ``formaction`` | form | one URL ("" is the document's URL) |
| ``blockquote``, ``q``, ``del``, ``ins`` | ``cite`` | metadata | one URL |
| ``img``, ``frame``, ``iframe`` | ``longdesc`` | metadata | one URL (obsolete) |
| ``html`` | ``manifest`` | metadata | one URL (obsolete) |
| any element | ``itemid`` | metadata | one URL |
| any element | ``itemtype`` | metadata | space-separated URLs |
| ``meta http-equiv=refresh`` | ``content`` | refresh | :mod:`~pipeline.extract.refresh` |
| any element | ``style`` | css | CSS tokenization: its URLs |
| ``style`` | (its text) | css | CSS tokenization: its URLs |
| ``script`` without ``src``, JavaScript or JSON | (its text) | script-string | its URL-like string literals |

Kinds: ``navigation`` (a hyperlink a user or a crawler follows), ``resource`` (what the
browser fetches to show the page), ``form`` (where a form is submitted), ``refresh`` (where
the page sends itself), ``metadata`` (URLs that identify or describe: fetched by no one, or,
for ``ping``, only as a beacon when a link is followed), ``css`` (a style sheet's URLs) and
``script-string`` (a URL-like string in a script: what a crawler may try, not what a
browser loads). The compiled walk receives these tables from :func:`walk_tables`.

An empty ``src``, ``srcset``, ``poster``, ``data``, ``background``, ``cite``, ``longdesc``,
``manifest`` or ``itemid`` names nothing (the spec fetches nothing for an empty ``src``):
it is left out. An empty ``href`` is the base URL, as the ``href`` IDL attribute says.
"""

from __future__ import annotations

from typing import Literal

Kind = Literal["navigation", "resource", "form", "refresh", "metadata", "css", "script-string"]
#: Every kind, in the order the records' per-kind counts list them.
KINDS: tuple[Kind, ...] = ("navigation", "resource", "form", "refresh", "metadata", "css",
                          "script-string")

#: How an attribute value holds URLs.
ONE, SPACE_SEPARATED, SRCSET = 0, 1, 2

#: (element, attribute) -> (kind, value form), for the elements' own attributes, in the
#: order rows of one element come out. ``link href``'s kind is decided by its rel.
ELEMENT_ATTRIBUTES: dict[str, tuple[tuple[str, Kind, int], ...]] = {
    "a": (("href", "navigation", ONE), ("ping", "metadata", SPACE_SEPARATED)),
    "area": (("href", "navigation", ONE), ("ping", "metadata", SPACE_SEPARATED)),
    "link": (("href", "navigation", ONE),),
    "base": (("href", "metadata", ONE),),
    "img": (("src", "resource", ONE), ("srcset", "resource", SRCSET),
            ("longdesc", "metadata", ONE)),
    "source": (("src", "resource", ONE), ("srcset", "resource", SRCSET)),
    "script": (("src", "resource", ONE),),
    "iframe": (("src", "resource", ONE), ("longdesc", "metadata", ONE)),
    "frame": (("src", "resource", ONE), ("longdesc", "metadata", ONE)),
    "embed": (("src", "resource", ONE),),
    "audio": (("src", "resource", ONE),),
    "video": (("src", "resource", ONE), ("poster", "resource", ONE)),
    "track": (("src", "resource", ONE),),
    "input": (("src", "resource", ONE), ("formaction", "form", ONE)),
    "object": (("data", "resource", ONE),),
    "body": (("background", "resource", ONE),),
    "table": (("background", "resource", ONE),),
    "td": (("background", "resource", ONE),),
    "th": (("background", "resource", ONE),),
    "form": (("action", "form", ONE),),
    "button": (("formaction", "form", ONE),),
    "blockquote": (("cite", "metadata", ONE),),
    "q": (("cite", "metadata", ONE),),
    "del": (("cite", "metadata", ONE),),
    "ins": (("cite", "metadata", ONE),),
    "html": (("manifest", "metadata", ONE),),
}
#: Attributes any element may carry, after the element's own.
GLOBAL_ATTRIBUTES: tuple[tuple[str, Kind, int], ...] = (
    ("itemid", "metadata", ONE), ("itemtype", "metadata", SPACE_SEPARATED),
)
#: Attributes whose empty value is kept (the IDL attribute of ``href`` gives the base URL;
#: of ``action``/``formaction`` the document's URL).
EMPTY_KEPT = frozenset({"href", "action", "formaction"})

#: ``link`` types whose effect is "External Resource" in the HTML Standard's table of link
#: types (§4.6.7) — the browser fetches them — plus the icon types pages use that the table
#: does not list (each is an icon the browser or the OS fetches). Any other rel (or none)
#: makes a ``link`` a hyperlink.
RESOURCE_RELS = frozenset({
    "compression-dictionary", "dns-prefetch", "icon", "manifest", "modulepreload", "pingback",
    "preconnect", "prefetch", "preload", "stylesheet",
    "apple-touch-icon", "apple-touch-icon-precomposed", "apple-touch-startup-image",
    "mask-icon", "fluid-icon",
})

#: HTML Standard §4.12.1.1: the JavaScript MIME type essences of a classic script.
JAVASCRIPT_TYPES = frozenset({
    "application/ecmascript", "application/javascript", "application/x-ecmascript",
    "application/x-javascript", "text/ecmascript", "text/javascript", "text/javascript1.0",
    "text/javascript1.1", "text/javascript1.2", "text/javascript1.3", "text/javascript1.4",
    "text/javascript1.5", "text/jscript", "text/livescript", "text/x-ecmascript",
    "text/x-javascript",
})
#: Script types whose text is JSON: import maps and speculation rules (§4.12.1.1).
JSON_SCRIPT_TYPES = frozenset({"importmap", "speculationrules"})
_FORMS: dict[tuple[str, str], int] = {
    (tag, attr): form for tag, entries in ELEMENT_ATTRIBUTES.items() for attr, _, form in entries
}
_GLOBAL_FORMS = {attr: form for attr, _, form in GLOBAL_ATTRIBUTES}


def value_form(tag: str, attr: str | None) -> int:
    """How the attribute ``attr`` of a ``tag`` element holds URLs (:data:`ONE`,
    :data:`SPACE_SEPARATED` or :data:`SRCSET`).

    >>> value_form("img", "srcset") == SRCSET, value_form("a", "ping") == SPACE_SEPARATED, value_form("a", "href")
    (True, True, 0)
    """
    if attr is None:
        return ONE
    return _FORMS.get((tag, attr), _GLOBAL_FORMS.get(attr, ONE))


def walk_tables() -> tuple[tuple[tuple[str, str, str, int], ...], tuple[tuple[str, str, int], ...]]:
    """The tables for the compiled walk: ((element, attribute, kind, form), ...) in row
    order, and the global attributes ((attribute, kind, form), ...)."""
    per_element = tuple((tag, attr, kind, form) for tag, entries in ELEMENT_ATTRIBUTES.items()
                        for attr, kind, form in entries)
    return per_element, GLOBAL_ATTRIBUTES
