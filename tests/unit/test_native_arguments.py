"""Every function of every compiled extension refuses a bad argument with a Python exception,
never by crashing the process: each call runs in a process of its own, where a signal
(SIGSEGV, SIGFPE, SIGABRT) is a failure like any other outcome but the expected exception.

The bad arguments are those the C code reads memory or sizes from: a class whose instances
``object.__new__`` may not make (``_slots.build(memoryview, ())`` crashed), slot descriptors
of another class, a depth that overflows an index (``_dfa.visit_counts`` with a huge depth
crashed with SIGFPE), buffers of the wrong item size or alignment, counts and shares out of
range, and Python callbacks that change what the C code is reading. A test checks that the
table names every function of every extension module built."""

from __future__ import annotations

import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

import pipeline.native as native

ROOT = Path(__file__).resolve().parents[2]

_AUTOMATON = """
import numpy as np
from pipeline.native import _dfa
STATES = np.array([[-1, -1, 0, -1]], np.int32)  # one state, its full row: to itself
BLOCKS = np.zeros(1024, np.uint8).tobytes()
TABLE = np.zeros(4, np.float16)  # one feature row of 4 classes
PC = np.zeros(4, np.float32)
"""

_CONFIGURED = """
from pipeline.extract import document  # (importing document configures the module)
from pipeline.native import _document
DOC = document.parse(b'<p class=x style="color: red">hello <a href=/x>world</a></p>', 0, 0, 0.0)
"""

_LINKS = """
from pipeline.extract import links  # (importing links binds Link)
from pipeline.native import _urls
"""

_BATCH = _LINKS + """
import pyarrow as pa
from pipeline.schema import LINKS
PAGE, _ = links.extract_links([('navigation', 'a', 'href', '/x', 'nofollow', 't'), ('css', 'style', None, 'y', None, '')],
                              'http://a.example/', 'http://a.example/', 'UTF-8')
assert len(PAGE) == 2
"""

_DICT_WITH_SLOTS = """
class Slotted(dict):
    __slots__ = ("a",)
"""

#: (module, function, setup, call, the exception expected). ``function`` names what is
#: called: a module-level function, or "Document", "Document.facts", "Document.main_text".
CASES: list[tuple[str, str, str, str, str]] = [
    # _slots
    ("pipeline.native._slots", "build", "from pipeline.native import _slots", "_slots.build(memoryview, ())", "TypeError"),
    ("pipeline.native._slots", "build", "from pipeline.native import _slots" + _DICT_WITH_SLOTS,
     "_slots.build(Slotted, (Slotted.a,), 1)", "TypeError"),
    ("pipeline.native._slots", "build", "from pipeline.native import _slots\nclass A:\n    __slots__ = tuple('abcdefgh')\n"
     "class B:\n    __slots__ = ()", "_slots.build(B, (A.h,), 1)", "TypeError"),
    ("pipeline.native._slots", "build", "from pipeline.native import _slots\nclass A:\n    x = property(lambda s: 1, "
     "lambda s, v: None)", "_slots.build(A, (A.__dict__['x'],), 1)", "TypeError"),
    # _fields
    ("pipeline.native._fields", "warc_fields", "from pipeline.native import _fields",
     "_fields.warc_fields([('a', 'b')], ('a',) * 33)", "ValueError"),
    ("pipeline.native._fields", "warc_fields", "from pipeline.native import _fields",
     "_fields.warc_fields([('a', b'b')], ('a',))", "TypeError"),
    # _head
    ("pipeline.native._head", "parse_head", "from pipeline.native import _head",
     "_head.parse_head(memoryview(b'HTTP/1.1 200 OK\\r\\n\\r\\n'))", "TypeError"),
    # _utf8
    ("pipeline.native._utf8", "encode", "from pipeline.native import _utf8", "_utf8.encode(b'x')", "TypeError"),
    ("pipeline.native._utf8", "counts", "from pipeline.native import _utf8", "_utf8.counts('x')", "TypeError"),
    # _mojibake
    ("pipeline.native._mojibake", "scan", "from pipeline.native import _mojibake",
     "_mojibake.scan('abc', bytes(65535), bytes(65536))", "ValueError"),
    # _ced
    ("pipeline.native._ced", "detect", "from pipeline.native import _ced",
     "_ced.detect(b'abc', corpus=-1)", "ValueError"),
    ("pipeline.native._ced", "detect", "from pipeline.native import _ced",
     "_ced.detect(b'abc', url_hint=b'x')", "TypeError"),
    # _malloc
    ("pipeline.native._malloc", "set_thresholds", "from pipeline.native import _malloc",
     "_malloc.set_thresholds(-1, 0)", "ValueError"),
    ("pipeline.native._malloc", "set_thresholds", "from pipeline.native import _malloc",
     "_malloc.set_thresholds(2**31, 0)", "ValueError"),
    # _dfa
    ("pipeline.native._dfa", "visit_counts", _AUTOMATON,
     "_dfa.visit_counts(STATES, BLOCKS, b'x' * 100, 2**63 - 1)", "ValueError"),  # was SIGFPE
    ("pipeline.native._dfa", "visit_counts", _AUTOMATON,
     "_dfa.visit_counts(STATES, BLOCKS, b'x' * 100, 2**62)", "ValueError"),  # was SIGSEGV
    ("pipeline.native._dfa", "visit_counts", _AUTOMATON,
     "_dfa.visit_counts(STATES, BLOCKS, b'x' * 100, -2)", "ValueError"),
    ("pipeline.native._dfa", "visit_counts", _AUTOMATON,
     "_dfa.visit_counts(memoryview(bytes(17))[1:].cast('i'), BLOCKS, b'x')", "ValueError"),  # unaligned
    ("pipeline.native._dfa", "classify", _AUTOMATON,
     "_dfa.classify(STATES, BLOCKS, b'x' * 100, 2**63 - 1, TABLE, 4, PC, ())", "ValueError"),
    ("pipeline.native._dfa", "classify", _AUTOMATON,
     "_dfa.classify(STATES, BLOCKS, b'x', 4, TABLE, 4, PC, ((0, 4),))", "ValueError"),
    ("pipeline.native._dfa", "probabilities", _AUTOMATON,
     "_dfa.probabilities(STATES, BLOCKS, b'x' * 100, 2**62, TABLE, 4, PC, ())", "ValueError"),
    ("pipeline.native._dfa", "probabilities", _AUTOMATON,
     "_dfa.probabilities(STATES, BLOCKS, b'x', 4, memoryview(bytes(9))[1:].cast('e'), 4, PC, ())",
     "ValueError"),
    ("pipeline.native._dfa", "next_states", _AUTOMATON,
     "_dfa.next_states(STATES, BLOCKS, np.array([1], np.int32), b'a')", "ValueError"),
    ("pipeline.native._dfa", "next_states", _AUTOMATON,
     "_dfa.next_states(STATES, BLOCKS, np.array([0, 0], np.int32), b'a')", "TypeError"),
    ("pipeline.native._dfa", "added", _AUTOMATON, "_dfa.added(memoryview(b'abcde')[1:], False)", "ValueError"),
    ("pipeline.native._dfa", "added", _AUTOMATON, "_dfa.added(b'abc', False)", "TypeError"),
    ("pipeline.native._dfa", "set_f16c", _AUTOMATON + "class Bad:\n    def __bool__(self):\n"
     "        raise ValueError('no truth')", "_dfa.set_f16c(Bad())", "ValueError"),
    # _urls
    ("pipeline.native._urls", "parse", _LINKS, "_urls.parse(b'http://x/', None)", "TypeError"),
    ("pipeline.native._urls", "parse", _LINKS, "_urls.parse('/x', 'http://x/')", "TypeError"),
    ("pipeline.native._urls", "hrefs", _LINKS, "_urls.hrefs(['/a', 1], None)", "TypeError"),
    ("pipeline.native._urls", "bind_links", _LINKS + "class A:\n    __slots__ = tuple('abcdefghijklmnop')\n"
     "class B:\n    __slots__ = ()\nfor n in 'abcdefgh':\n    setattr(B, n, getattr(A, chr(ord(n) + 8)))",
     "_urls.bind_links(B, tuple('abcdefgh'), links.KINDS)", "TypeError"),  # A's slots, not B's
    ("pipeline.native._urls", "bind_links", _LINKS + "class A:\n    __slots__ = tuple('abcdefgh')",
     "_urls.bind_links(A, tuple('abcdefga'), links.KINDS)", "TypeError"),  # a slot twice
    ("pipeline.native._urls", "bind_links", _LINKS + _DICT_WITH_SLOTS,
     "_urls.bind_links(Slotted, ('a',) * 8, links.KINDS)", "TypeError"),
    ("pipeline.native._urls", "links", _LINKS,
     "_urls.links([('nowhere', 'a', 'href', '/x', None, '')], None, None, None, False, {}, bool, None, False)",
     "ValueError"),
    # a callback that empties the list of candidates being read (was a use after free): the
    # call must return, and the RuntimeError raised after it is the outcome expected
    ("pipeline.native._urls", "links", _LINKS + textwrap.dedent("""
        import gc
        CANDS = [('navigation', 'a%d' % i, 'h%d' % i, 'http://h%d.test/%s' % (i, 'x' * i), 'r%d' % i,
                  't%d' % i) for i in range(2000)]
        def internal(host):
            if CANDS:  # (once: the first host)
                CANDS.clear()
                gc.collect()
                GARBAGE = [('x%d' % i, bytes(100)) for i in range(20_000)]
            return True
        """), "_urls.links(CANDS, None, None, None, True, {}, internal, None, False)\n"
     "    raise RuntimeError('links read the list it was given, as it was when called')", "RuntimeError"),
    ("pipeline.native._urls", "links_packed", _LINKS,
     "_urls.links_packed(b'not a pack', [], [], None, None, None, False, {}, bool, None, False)", "ValueError"),
    # links_batch: a capsule of the links schema (names and types checked, not trusted), a list
    # of (PageLinks, run_id, record_id, url) whose values are checked before they are read
    ("pipeline.native._urls", "links_batch", _BATCH, "_urls.links_batch(None, [])", "TypeError"),
    ("pipeline.native._urls", "links_batch", _BATCH,
     "_urls.links_batch(pa.array([1]).__arrow_c_array__()[1], [])", "TypeError"),  # an array capsule
    ("pipeline.native._urls", "links_batch", _BATCH,
     "_urls.links_batch(pa.schema([('x', pa.string())]).__arrow_c_schema__(), [])", "ValueError"),
    ("pipeline.native._urls", "links_batch", _BATCH,  # a column of another type
     "_urls.links_batch(LINKS.set(9, pa.field('internal', pa.string())).__arrow_c_schema__(), [])", "ValueError"),
    ("pipeline.native._urls", "links_batch", _BATCH,  # a column twice
     "_urls.links_batch(LINKS.set(0, LINKS.field(1)).__arrow_c_schema__(), [])", "ValueError"),
    ("pipeline.native._urls", "links_batch", _BATCH,
     "_urls.links_batch(LINKS.__arrow_c_schema__(), (PAGE, 'r', 'i', None))", "TypeError"),
    ("pipeline.native._urls", "links_batch", _BATCH,
     "_urls.links_batch(LINKS.__arrow_c_schema__(), [(list(PAGE), 'r', 'i', None)])", "TypeError"),
    ("pipeline.native._urls", "links_batch", _BATCH,
     "_urls.links_batch(LINKS.__arrow_c_schema__(), [(PAGE, 'r', 'i')])", "TypeError"),
    ("pipeline.native._urls", "links_batch", _BATCH,
     "_urls.links_batch(LINKS.__arrow_c_schema__(), [(PAGE, 1, 'i', None)])", "TypeError"),
    ("pipeline.native._urls", "links_batch", _BATCH,
     "_urls.links_batch(LINKS.__arrow_c_schema__(), [(PAGE, 'r', 'i', b'http://x/')])", "TypeError"),
    ("pipeline.native._urls", "links_batch", _BATCH,
     "_urls.links_batch(LINKS.__arrow_c_schema__(), [(PAGE, 'r', '\\ud800', None)])", "UnicodeEncodeError"),
    ("pipeline.native._urls", "PageLinks", _BATCH, "_urls.PageLinks(PAGE)", "TypeError"),
    ("pipeline.native._urls", "PageLinks", _BATCH, "PAGE[len(PAGE)]", "IndexError"),
    ("pipeline.native._urls", "PageLinks", _BATCH, "PAGE[-len(PAGE) - 1]", "IndexError"),
    ("pipeline.native._urls", "PageLinks", _BATCH, "PAGE['0']", "TypeError"),
    ("pipeline.native._urls", "PageLinks", _BATCH, "PAGE[::0]", "ValueError"),
    # _document: module functions
    ("pipeline.native._document", "srcset_urls", _CONFIGURED, "_document.srcset_urls(b'a.jpg 1x')", "TypeError"),
    ("pipeline.native._document", "css_urls", _CONFIGURED, "_document.css_urls(None)", "TypeError"),
    ("pipeline.native._document", "script_urls", _CONFIGURED, "_document.script_urls(1)", "TypeError"),
    ("pipeline.native._document", "blocks", _CONFIGURED, "_document.blocks(b'x')", "TypeError"),
    ("pipeline.native._document", "configure", _CONFIGURED,
     "_document.configure({'div': 256}, {}, {}, bool, bool, bool)", "ValueError"),
    ("pipeline.native._document", "configure", _CONFIGURED,
     "_document.configure({}, {}, {}, bool, None, bool)", "TypeError"),
    ("pipeline.native._document", "configure_patterns", _CONFIGURED,
     "_document.configure_patterns(('Nav',), (), (), bool, (), (), bool)", "ValueError"),
    ("pipeline.native._document", "configure_head", _CONFIGURED,
     "_document.configure_head(('no-such-element',), ())", "ValueError"),
    ("pipeline.native._document", "configure_urls", _CONFIGURED + _LINKS,
     "_document.configure_urls(links.KINDS, (('a', 'href', 1, 0),), (), frozenset(), (), (), ())", "TypeError"),
    # a main-text test that reconfigures the module in the middle of its walk
    ("pipeline.native._document", "configure_patterns", _CONFIGURED + textwrap.dedent("""
        def hidden(style):
            _document.configure_patterns((), (), (), bool, (), (), bool)
            return False
        _document.configure({}, {}, {}, hidden, bool, bool)
        """), "DOC.main_text(True, True, True, True, 0.3, 0.15, True, 0.5, 10)", "RuntimeError"),
    # _document: the parse and the walks
    ("pipeline.native._document", "Document", _CONFIGURED, "_document.Document(b'<p>', 0, 0, float('nan'))",
     "ValueError"),
    ("pipeline.native._document", "Document", _CONFIGURED, "_document.Document(b'<p>', -1, 0, 0.0)",
     "ValueError"),
    ("pipeline.native._document", "Document.facts", _CONFIGURED, "DOC.facts((10,) * 6 + (-1,))", "ValueError"),
    ("pipeline.native._document", "Document.facts", _CONFIGURED, "DOC.facts((10,) * 6)", "ValueError"),
    ("pipeline.native._document", "Document.main_text", _CONFIGURED,
     "DOC.main_text(True, True, True, True, 0.3, 0.15, True, 0.5, 2**62)", "ValueError"),
    ("pipeline.native._document", "Document.main_text", _CONFIGURED,
     "DOC.main_text(True, True, True, True, float('nan'), 0.15, True, 0.5, 10)", "ValueError"),
]

_SCRIPT = """
import sys
{setup}
try:
    {call}
except {expected} as exc:
    print("raised", type(exc).__name__, exc)
    sys.exit(0)
print("no exception")
sys.exit(3)
"""


def _ids() -> list[str]:
    seen: dict[str, int] = {}
    ids = []
    for module, function, *_ in CASES:
        key = f"{module.rsplit('.', 1)[1]}.{function}"
        seen[key] = seen.get(key, 0) + 1
        ids.append(f"{key}-{seen[key]}")
    return ids


@pytest.mark.parametrize(("module", "function", "setup", "call", "expected"), CASES, ids=_ids())
def test_a_bad_argument_raises_a_python_exception(module: str, function: str, setup: str, call: str,
                                                  expected: str) -> None:
    script = _SCRIPT.format(setup=textwrap.dedent(setup), call=call, expected=expected)
    done = subprocess.run([sys.executable, "-c", script], cwd=ROOT, capture_output=True, text=True,
                          timeout=120)
    assert done.returncode == 0, (
        f"{module}.{function}: {call}\nexit {done.returncode} (a negative exit is the signal that "
        f"killed it)\n{done.stdout[-500:]}\n{done.stderr[-1500:]}")


def test_the_table_names_every_function_of_every_extension() -> None:
    # (tests/unit/test_native.py holds the facade's list to what setup.py builds)
    named = {(module, function) for module, function, *_ in CASES}
    missing = []
    for short in native.MODULES:
        name = f"pipeline.native.{short}"
        module = getattr(native, short.lstrip("_"))
        for attr in dir(module):
            value = getattr(module, attr)
            if attr.startswith("__") or not callable(value) or (
                    isinstance(value, type) and issubclass(value, BaseException)):
                continue
            if (name, attr) not in named:
                missing.append(f"{name}.{attr}")
            if isinstance(value, type):  # a class: its methods too
                missing += [f"{name}.{attr}.{m}" for m in vars(value)
                            if not m.startswith("__") and (name, f"{attr}.{m}") not in named]
    assert not missing, f"no bad-argument case for {missing}"
