"""What Chromium shows for a page that declares nothing: its content sniffing.

With the compiled CED (:mod:`.ced`, the normal case) the answer is Chromium's own detector's,
called as Blink calls it (:func:`chromium_detection`). Without it, the emulation below serves
(announced once per run by :mod:`.ced`): it agrees with Chromium on about 9 undeclared pages
in 10 (``docs/sniffing.md``), where the simple stand-in it replaced (chardetng with three
name adjustments) agreed on about 3 in 4.

The emulation. Blink's ``TextResourceDecoder::AutoDetectEncodingIfAllowed`` hands the bytes
and the page URL to ``DetectTextEncoding`` (``text_encoding_detector.cc``), which asks Compact
Encoding Detection (CED) with the URL as the only hint (no charset, no language), ``WEB_CORPUS``,
and 7-bit encodings allowed. A UTF-8 answer is thrown away on non-local URLs, and so is no
answer: the page then keeps its default encoding, the TLD's (:mod:`.tld_defaults`) or the
locale's. The procedure, in order (each step's source in brackets):

1. **7-bit body** (every byte below 0x80). CED answers ASCII, which Chromium shows as
   windows-1252, for plain text, terminal escapes, HZ ``~{``, UTF-7 ``+...-`` and ISO-2022-KR
   (CED's ``HTML5_MODE`` maps HZ, ISO-2022-KR/CN and UTF-7 to ASCII). ISO-2022-JP escapes
   (``ESC $ B``, ``ESC $ @``, ``ESC ( J``) are the exception: the page keeps its default
   encoding, the TLD's (Shift_JIS under ``.jp``, windows-1251 under ``.ru``, windows-1252 under
   ``.com``) [Chromium's "Remove auto-detection of ISO-2022-JP charset in HTML"; oracle: 307 of
   the 308 ISO-2022-JP pages of ``tests/browser_view``, 54 TLDs; the exception shows
   windows-1252 on some loads only].
2. **UTF-8 body**: the default encoding [``text_encoding_detector.cc``; oracle].
   **Mostly control bytes** (more than half of the pairs CED scores start with one: UTF-16
   without a BOM, binary): windows-1252 [``compact_enc_det.cc``: such bytes score UTF-16 and
   binary, which ``HTML5_MODE`` reports as ASCII; oracle: the chardet corpus's BOM-less UTF-16].
3. **Legacy bytes**: CED's answer, emulated by :func:`.ced_model.ced_guess` on the 48 byte
   pairs CED scores (:func:`.ced_window.ced_window`), with the TLD prior CED applies and the
   tables fitted to Chromium's answers [``compact_enc_det.cc`` for the shape; oracle for the
   tables]. What the fitted tables learnt, measured: the detector never reports ISO-8859-14,
   ISO-8859-16, windows-1258, x-mac-cyrillic or ISO-8859-8 (pages in them show as windows-1252,
   windows-1250/-1252, windows-1252, windows-1251 and windows-1255); among encodings that read
   the bytes alike the TLD decides (ISO-8859-7 under ``.gr``, windows-1253 under ``.com``);
   with fewer than 12 pairs the TLD weighs a quarter or more of its full weight, so a handful
   of non-ASCII bytes under ``.ru`` shows windows-1251 whatever they are.

Accuracy against Chromium is measured in ``docs/sniffing.md`` (``scripts/browser_view.py``).
"""

from __future__ import annotations

from collections.abc import Callable

from pipeline.encoding.decision import EncodingSource
from pipeline.encoding.sniff import ced
from pipeline.encoding.sniff.ced_model import ced_guess
from pipeline.encoding.sniff.ced_window import ced_window
from pipeline.encoding.sniff.detect import Guess, chardetng_guesses, has_iso_2022_jp_escapes
from pipeline.encoding.sniff.tld_defaults import url_tld
from pipeline.encoding.sniff.utf8 import check_utf8

#: Below this score margin the emulated answer is close to its runner-up (noted, not used).
CLOSE_MARGIN = 1.0


def chromium_detection(
    body: bytes,
    url: str | None,
    default: str,
    kind: str = "html",
    *,
    is_utf8: bool | None = None,
    guesses: Callable[[], tuple[Guess | None, Guess | None]] | None = None,
    sample: bytes | None = None,
) -> tuple[str, EncodingSource, str]:
    """(encoding, source, note) Chromium shows for an undeclared ``kind`` document (``html``
    or ``plain``) at ``url`` whose default encoding is ``default``: CED's answer read as Blink
    reads it (:func:`.ced.chromium_sniff`), else the emulation (:func:`emulate_chromium_detection`,
    which takes the caller's shared work: ``is_utf8``, ``guesses``, ``sample``).

    >>> chromium_detection(b"plain", "http://x.jp/", "Shift_JIS")[:2]
    ('windows-1252', 'default')
    >>> chromium_detection("日本".encode("iso2022_jp"), "http://x.jp/", "Shift_JIS")[:2]
    ('Shift_JIS', 'default')
    """
    if ced.NATIVE:
        return ced.chromium_sniff(body, url, default, kind)
    return emulate_chromium_detection(
        body, url_tld(url), default, allow_utf8=ced.is_local(url), is_utf8=is_utf8, guesses=guesses,
        sample=sample,
    )


def emulate_chromium_detection(
    body: bytes,
    tld: str | None,
    default: str,
    *,
    allow_utf8: bool = False,
    is_utf8: bool | None = None,
    guesses: Callable[[], tuple[Guess | None, Guess | None]] | None = None,
    sample: bytes | None = None,
) -> tuple[str, EncodingSource, str]:
    """(encoding, source, note) the emulation of Chromium's detector answers for an undeclared
    ``body`` (HTML: ISO-2022-JP is never answered).

    ``default`` is the page's default encoding (TLD, else locale). ``is_utf8`` and
    ``guesses`` (chardetng's TLD-hinted and unhinted guesses on ``sample``, the detector
    sample) let the caller share work it has already done.

    >>> emulate_chromium_detection(b"plain", "jp", "Shift_JIS")[:2]
    ('windows-1252', 'default')
    >>> emulate_chromium_detection("日本".encode("iso2022_jp"), "jp", "Shift_JIS")[:2]
    ('Shift_JIS', 'default')
    >>> emulate_chromium_detection("日本語".encode(), "jp", "Shift_JIS")[:2]
    ('Shift_JIS', 'default')
    """
    sample = body if sample is None else sample
    if sample.isascii() and body.isascii():
        if has_iso_2022_jp_escapes(body):
            return default, "default", (
                f"7-bit with ISO-2022-JP escapes: Chromium does not take ISO-2022-JP from detection; "
                f"TLD/locale default {default}"
            )
        return "windows-1252", "default", "7-bit: CED answers ASCII (also for HZ, UTF-7, ISO-2022-KR), shown as windows-1252"
    if is_utf8 is None:
        is_utf8 = check_utf8(body if sample.isascii() else sample).is_utf8
    if is_utf8:
        if allow_utf8:
            return "UTF-8", "detected", "UTF-8 detected (file: URL)"
        return default, "default", f"UTF-8 bytes: Chromium discards a UTF-8 verdict; TLD/locale default {default}"
    window = ced_window(body)
    controls = sum(byte < 0x80 for byte in window.first)
    if controls * 2 > window.count:
        return "windows-1252", "detected", (
            f"{controls} of the {window.count} byte pairs CED scores start with a control byte (UTF-16 "
            "without BOM, or binary): CED answers UTF-16 or binary, which it reports as ASCII; windows-1252"
        )
    hinted, generic = guesses() if guesses is not None else chardetng_guesses(sample, (tld, None), allow_utf8=False)
    found = ced_guess(
        window, tld, default,
        generic.encoding if generic is not None else None, hinted.encoding if hinted is not None else None,
        sample,
    )
    close = ", close" if found.margin < CLOSE_MARGIN else ""
    ranked = ", ".join(f"{name} {score:+.1f}" for name, score in found.top)
    return found.encoding, "detected", (
        f"CED emulation: {found.pairs} byte pairs scored ({found.tag_pairs} in tag or title text, at 1/16); "
        f"prior of TLD {tld or '(none)'} x{found.derate:.2f}; scores relative to the best: {ranked}{close}"
    )
