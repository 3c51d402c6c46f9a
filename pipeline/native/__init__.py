"""The compiled core: the extension modules ``setup.py`` builds, and the one module that
imports them.

Every module is required: the build fails without a C and a C++ compiler, so the package has
one runtime path, the one the tests run. A missing module is an incomplete installation, said
in one line when the package first needs its compiled core. The ``.pyi`` stub beside each
module is its typed interface: mypy checks every call the package makes through it, and
``tests/unit/test_native.py`` checks each stub against the built module.

=============  =====================================  =====================================
name           built from                             what it holds
=============  =====================================  =====================================
``document``   ``pipeline/extract/_document.c``       Lexbor's HTML parser and the walks
``urls``       ``pipeline/extract/_urls.c``           ada: a page's links in one call
``dfa``        ``pipeline/extract/_dfa.c``            py3langid's feature walk and scoring
``utf8``       ``pipeline/encoding/_utf8.c``          UTF-8 counts and encoder
``mojibake``   ``pipeline/encoding/_mojibake.c``      mojibake_score's character counts
``ced``        ``pipeline/encoding/_ced.cpp``         Chromium's Compact Encoding Detection
``head``       ``pipeline/http/_head.c``              a stored response's head split
``fields``     ``pipeline/sources/_fields.c``         the WARC header fields FastWARC gives
``slots``      ``pipeline/_slots.c``                  frozen records built from C
``malloc``     ``pipeline/runners/_malloc.c``         the C library allocator's thresholds
=============  =====================================  =====================================

Their pure-Python oracles live in ``tests/oracles/``, never in the package.
"""

from __future__ import annotations

#: The extension modules (``setup.py`` builds exactly these: a test holds the lists equal).
MODULES = ("_ced", "_dfa", "_document", "_fields", "_head", "_malloc", "_mojibake", "_slots",
           "_urls", "_utf8")

try:
    from pipeline.native import _ced as ced
    from pipeline.native import _dfa as dfa
    from pipeline.native import _document as document
    from pipeline.native import _fields as fields
    from pipeline.native import _head as head
    from pipeline.native import _malloc as malloc
    from pipeline.native import _mojibake as mojibake
    from pipeline.native import _slots as slots
    from pipeline.native import _urls as urls
    from pipeline.native import _utf8 as utf8
except ImportError as exc:  # not a fallback: the installation is incomplete
    raise ImportError(
        f"redecode's compiled core is incomplete ({exc}): the package was not installed by "
        "its own build (setup.py compiles every module, with a C and a C++ compiler); "
        "reinstall it (in a checkout: make venv)"
    ) from exc

__all__ = ["MODULES", "ced", "dfa", "document", "fields", "head", "malloc", "mojibake", "slots",
           "urls", "utf8"]
