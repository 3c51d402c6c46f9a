"""UTF-8 check, Chromium's TLD table, and the detectors."""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from pipeline.encoding.sniff.ced import chromium_sniff
from pipeline.encoding.sniff.detect import (
    chardetng_guess,
    clean_tld,
    has_iso_2022_jp_escapes,
    refine_cyrillic,
    utf16_without_bom,
)
from pipeline.encoding.sniff.lenient_meta import lenient_meta_label
from pipeline.encoding.sniff.tld_defaults import TLD_ENCODINGS, tld_default, url_tld
from pipeline.encoding.sniff.utf8 import MIN_GOOD_PER_BAD, check_utf8
from tests.oracles import utf8 as oracle

RUSSIAN = "Съешь же ещё этих мягких французских булок, да выпей чаю. Москва - столица России. "


def test_utf8_valid() -> None:
    check = check_utf8("naïve café".encode())
    assert check.is_utf8 and check.errors == 0 and check.multibyte == 2


def test_utf8_pure_ascii_is_not_evidence() -> None:
    assert not check_utf8(b"<html>plain</html>").is_utf8


def test_utf8_one_bad_byte_among_many_good_stays_utf8() -> None:
    # a page that is UTF-8 but for one bad byte is UTF-8 with the error counted
    body = RUSSIAN.encode() * 3 + b"\xff" + RUSSIAN.encode()
    check = check_utf8(body)
    assert check.is_utf8 and check.errors == 1


def test_utf8_too_many_bad_sequences() -> None:
    body = "é".encode() * (MIN_GOOD_PER_BAD - 1) + b"\xff"
    assert not check_utf8(body).is_utf8


def test_utf8_truncated_at_end_is_valid() -> None:
    check = check_utf8("日本語".encode() + "語".encode()[:2])
    assert check.is_utf8 and check.truncated_at_end and check.errors == 1


def test_utf8_lone_lead_byte_at_end_is_not() -> None:
    # "café" in windows-1252: the only non-ASCII byte is a lone lead byte at the end
    assert not check_utf8("café".encode("cp1252")).is_utf8


def test_legacy_cjk_is_not_utf8() -> None:
    assert not check_utf8(("中文汉字测试这是一个简单的句子" * 20).encode("gbk")).is_utf8


@pytest.mark.parametrize(
    ("url", "expected"),
    [
        ("http://example.jp/", "Shift_JIS"), ("http://example.ru/", "windows-1251"),
        ("http://example.cn/", "GBK"), ("http://example.tw/", "Big5"),
        ("http://example.kr/", "EUC-KR"), ("http://example.gr/", "ISO-8859-7"),
        ("http://example.pl/", "ISO-8859-2"), ("http://example.tr/", "windows-1254"),
        ("http://example.th/", "windows-874"), ("https://WWW.EXAMPLE.CO.JP:443/x", "Shift_JIS"),
        ("http://example.de/", "windows-1252"), ("http://example.com/", "windows-1252"),
        ("http://example.jp./", "Shift_JIS"), (None, "windows-1252"), ("not a url", "windows-1252"),
    ],
    ids=lambda v: str(v),
)
def test_tld_default(url: str | None, expected: str) -> None:
    assert tld_default(url) == expected


def test_tld_table_is_chromiums_and_resolves() -> None:
    # Chromium's kEncodings has 49 entries, all of them WHATWG labels
    assert len(TLD_ENCODINGS) == 49
    assert TLD_ENCODINGS["ee"] == "windows-1256"  # sic: Chromium's table


def test_url_tld_of_ip_and_userinfo() -> None:
    assert url_tld("http://user:pw@host.example.kr:8080/") == "kr"
    # An IP address has no top-level domain (the one host parser, pipeline.urlhost): no TLD
    # default applies to it, as none of Chromium's table's entries is a number.
    assert url_tld("http://[::1]/") is None and url_tld("http://192.0.2.1/") is None
    assert url_tld("http://www.example.co.jp./") == "jp"  # a trailing dot is not a label


def test_chardetng_tld_steers_ambiguous_cjk() -> None:
    # the same bytes read as different CJK encodings depending on the TLD
    body = "中文字".encode("euc_kr") * 2
    answers = {tld: chardetng_guess(body, tld, allow_utf8=False).encoding for tld in ("kr", "cn", "tw")}
    assert answers["kr"] == "EUC-KR" and answers["cn"] == "GBK" and answers["tw"] == "Big5"


def test_chardetng_names_are_whatwg() -> None:
    thai = chardetng_guess(("ภาษาไทยเป็นภาษาที่สวยงาม" * 5).encode("cp874"), "th", allow_utf8=False)
    gbk = chardetng_guess(("中文汉字测试这是一个简单的句子" * 5).encode("gbk"), "cn", allow_utf8=False)
    assert thai.encoding == "windows-874" and gbk.encoding == "GBK"


def test_clean_tld_never_panics_chardetng() -> None:
    # chardetng panics on dots or uppercase: such TLDs are dropped, never passed on
    assert clean_tld("co.jp") is None and clean_tld("JP") == b"jp"
    assert chardetng_guess(b"\xe9t\xe9", "co.jp", allow_utf8=False) is not None


def test_utf16_without_bom() -> None:
    assert utf16_without_bom("<html>hi</html>".encode("utf-16-be")) == "UTF-16BE"
    assert utf16_without_bom(b"<html>hi</html>") is None


def test_utf16_not_nul_runs() -> None:
    # Mozilla bug 638318: NULs around ASCII must not be taken for UTF-16
    assert utf16_without_bom(b"\x00" * 500 + b"<title>NOT UTF-16!</title>" + b"\x00" * 500) is None


def test_iso_2022_jp_escapes() -> None:
    assert has_iso_2022_jp_escapes("日本語".encode("iso2022_jp"))
    assert not has_iso_2022_jp_escapes(b"plain \x1b[0m ansi")


def test_refine_cyrillic_mac() -> None:
    assert refine_cyrillic(RUSSIAN.encode("mac_cyrillic"), "windows-1251") == "x-mac-cyrillic"
    assert refine_cyrillic(RUSSIAN.encode("cp1251"), "windows-1251") == "windows-1251"
    assert refine_cyrillic(RUSSIAN.encode("koi8_r"), "KOI8-U") == "KOI8-U"


def test_refine_cyrillic_leaves_latin_alone() -> None:
    french = ("Le cœur déçu mais l'âme plutôt naïve, Louÿs rêva de crapaüter. " * 5).encode("cp1252")
    assert refine_cyrillic(french, "windows-1252") == "windows-1252"


def test_browser_detection_never_utf8_on_http() -> None:
    body = RUSSIAN.encode()
    assert chromium_sniff(body, "http://x.ru/", "windows-1251")[:2] == ("windows-1251", "default")
    assert chromium_sniff(body, "file:///x.html", "windows-1252")[:2] == ("UTF-8", "detected")


def test_browser_detection_koi8_r_name() -> None:
    assert chromium_sniff(RUSSIAN.encode("koi8_r") * 3, "http://x.ru/", "windows-1251")[0] == "KOI8-R"


@pytest.mark.parametrize(
    ("body", "expected"),
    [
        (b'<meta httpequiv="ContentType" content="text/html; charset=koi8-r">', "KOI8-R"),
        (b'<meta http-equiv="Content-Type" content="text/html; charset=iso-8859&#8211;1">', "windows-1252"),
        (b'<?xml version="1.0" encoding="MacCyrillic"?>', "x-mac-cyrillic"),
        (b'<meta charset="nonsense">', None),
        (b"<p>charset=koi8-r</p>", None),
    ],
    ids=["httpequiv-typo", "en-dash-entity", "non-whatwg-name", "nonsense", "not-in-meta"],
)
def test_lenient_meta(body: bytes, expected: str | None) -> None:
    found = lenient_meta_label(body)
    assert (None if found is None else found[0]) == expected


def test_browser_detection_greek_identical_readings() -> None:
    # a held-out oracle page: no byte where ISO-8859-7 and windows-1253 differ; Chromium 156
    # named it ISO-8859-7 under every TLD tried (dotless, .com, .gr), and so does CED.
    for url in ("http://s1a2b3/", "http://x.com/", "http://x.gr/"):
        assert chromium_sniff(_greek_page(), url, "windows-1252")[:2] == ("ISO-8859-7", "detected")


def _greek_page() -> bytes:
    text = (
        "Η Αθήνα είναι η πρωτεύουσα της Ελλάδας. Ο καιρός σήμερα είναι ζεστός και ο ουρανός "
        "καθαρός. Τα παιδιά παίζουν στο πάρκο και οι γονείς πίνουν καφέ. Αύριο θα πάμε στη "
        "θάλασσα με το αυτοκίνητο."
    )
    page = f"<html><head><title>t</title></head><body><p>{text}</p><p>{text}</p></body></html>"
    return page.encode("cp1253")


# Two of the held-out oracle pages (docs/sniffing.md): the paragraph twice in a small page.
CZECH_HELD_OUT = (
    "Praha je hlavní město České republiky. Řeka Vltava protéká středem města a přes ni vede "
    "Karlův most. Ve starém městě najdete úzké uličky, kostely a malé kavárny, kde se podává káva "
    "a štrúdl. Žluťoučký kůň úpěl ďábelské ódy. Večer se lidé procházejí po nábřeží a dívají se "
    "na osvětlený hrad. Příští týden začíná nový školní rok a děti se těší na své kamarády."
)
POLISH_HELD_OUT = (
    "Warszawa jest stolicą Polski. Wisła płynie przez środek miasta, a nad jej brzegiem ludzie "
    "spacerują wieczorem. Zażółć gęślą jaźń. W sklepie kupiliśmy świeży chleb, masło i kiełbasę. "
    "Dzieci bawią się na podwórku, a dziadek czyta gazetę. Jutro pojedziemy nad morze, jeśli "
    "pogoda będzie ładna i słoneczna."
)


def _held_out_page(text: str) -> bytes:
    return f"<html><head><title>test</title></head><body><p>{text}</p><p>{text}</p></body></html>".encode("iso8859_2")


def test_browser_detection_latin2_choice() -> None:
    # Chromium 156 showed the Czech ISO-8859-2 page as windows-1250 (š, ž read as ą, ľ:
    # letters) and the Polish one as ISO-8859-2 (ą, ś read as ±, ¶ inside words); neither page
    # is in tests/browser_view
    assert chromium_sniff(_held_out_page(CZECH_HELD_OUT), "http://s1a2b3/", "windows-1252")[0] == "windows-1250"
    assert chromium_sniff(_held_out_page(POLISH_HELD_OUT), "http://s1a2b3/", "windows-1252")[0] == "ISO-8859-2"


@given(st.lists(st.sampled_from([b"a", b"\xc3\xa9", b"\xe2\x82\xac", b"\xf0\x9f\x99\x82", b"\xef\xbf\xbd",
                                 b"\xff", b"\x80", b"\xc3", b"\xe0\x80", b"\xed\xa0\x80", b"\xf4\x90",
                                 b"\xe2\x82", b"\xf0\x9f", b"\xc0\xaf", b"\xfe",
                                 b"<p>ascii run, 16+ bytes</p>"]), max_size=60))
@settings(max_examples=2000, deadline=None)
def test_compiled_utf8_counts_equal_the_decoder(pieces: list[bytes]) -> None:
    # check_utf8's counts from pipeline/encoding/_utf8.c against decode_utf8's own (the
    # decoder is proven against the spec in tests/conformance/test_decoders.py).
    from pipeline.encoding.decoders.utf import decode_utf8
    from pipeline.native import utf8

    body = b"".join(pieces)
    text, errors = decode_utf8(body)
    non_ascii = sum(1 for c in text if ord(c) > 0x7F) - errors
    assert utf8.counts(body) == (non_ascii, errors) == oracle.utf8_counts(body)


@given(st.lists(st.sampled_from([b"a", b"<p>", b"\xc3\xa9", b"\xe2\x82\xac", b"\xf0\x9f\x99\x82", b"\xff",
                                 b"\x80", b"\xed\xa0\x80", b"\xe2\x82", b"\xc0\xaf"]), max_size=40))
@settings(max_examples=1000, deadline=None)
def test_check_utf8_equals_its_oracle(pieces: list[bytes]) -> None:
    # check_utf8 answers from _utf8.counts; its oracle, from str.decode and the decoder.
    body = b"".join(pieces)
    assert check_utf8(body) == oracle.check_utf8(body)
