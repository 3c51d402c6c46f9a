"""mojibake_score / naive_decode_garbled: one case per phenomenon."""

from __future__ import annotations

import pytest
from ftfy.badness import BADNESS_RE, MOJIBAKE_CATEGORIES
from hypothesis import given, settings
from hypothesis import strategies as st

from pipeline.encoding import mojibake
from pipeline.encoding.mojibake import (
    MOJIBAKE_THRESHOLD,
    is_mojibake,
    mojibake_score,
    naive_decode_garbled,
    requests_encoding_from_content_type,
)
from tests.oracles import mojibake as oracle
from tests.oracles.mojibake import badness_count

FRENCH = "Le cœur a ses raisons que la raison ne connaît point. Élève, été, garçon. " * 40
RUSSIAN = "Съешь же ещё этих мягких французских булок, да выпей чаю. " * 40
JAPANESE = "吾輩は猫である。名前はまだ無い。どこで生れたかとんと見当がつかぬ。" * 40
KOREAN = "다람쥐 헌 쳇바퀴에 타고파. 키스의 고유조건은 입술끼리 만나야 하고 " * 40


@pytest.mark.parametrize(
    "text",
    [FRENCH, RUSSIAN, JAPANESE, KOREAN, "plain ascii " * 100, ""],
    ids=["french", "russian", "japanese", "korean", "ascii", "empty"],
)
def test_right_decodes_are_not_flagged(text: str) -> None:
    assert not is_mojibake(mojibake_score(text))


@pytest.mark.parametrize(
    ("text", "codec"),
    [
        (FRENCH, "cp1252"),  # UTF-8 read as windows-1252: "Ã©"
        (RUSSIAN, "cp1252"),  # UTF-8 Cyrillic read as windows-1252: "Ð¡ÑŠ"
        (JAPANESE, "latin-1"),  # requests' ISO-8859-1 default: C1 controls
        (KOREAN, "cp1252"),
    ],
    ids=["utf8-french-as-1252", "utf8-russian-as-1252", "utf8-japanese-as-latin1",
         "utf8-korean-as-1252"],
)
def test_utf8_read_as_single_byte_is_flagged(text: str, codec: str) -> None:
    garbled = text.encode("utf-8").decode(codec, "replace")
    assert mojibake_score(garbled) > MOJIBAKE_THRESHOLD


def test_legacy_cyrillic_read_as_1252_is_letter_soup() -> None:
    # windows-1251 Russian read as windows-1252: runs of accented Latin letters
    garbled = RUSSIAN.encode("cp1251").decode("cp1252")
    assert mojibake_score(garbled) > 0.5


def test_emphatic_repeated_letter_is_not_soup() -> None:
    # "óóóó" (one letter repeated) is emphasis, not a wrong decode
    assert not is_mojibake(mojibake_score("Jóóóó napot! " + FRENCH))


@pytest.mark.parametrize(
    ("codec", "wrong"),
    [("cp932", "cp949"), ("euc_kr", "gb18030"), ("euc_jp", "euc_kr"), ("euc_jp", "gb18030")],
    ids=["sjis-as-euckr", "euckr-as-gbk-korean-spacing", "eucjp-as-euckr-jamo",
         "eucjp-as-gbk-simplified-with-kana"],
)
def test_cjk_read_as_wrong_cjk_is_flagged(codec: str, wrong: str) -> None:
    text = KOREAN if codec == "euc_kr" else JAPANESE
    garbled = text.encode(codec).decode(wrong, "replace").replace("\ufffd", "")
    assert mojibake_score(garbled) > MOJIBAKE_THRESHOLD


def test_utf16_read_as_latin1_is_flagged_by_nuls() -> None:
    garbled = ("hello world " * 50).encode("utf-16-le").decode("latin-1")
    assert mojibake_score(garbled) > MOJIBAKE_THRESHOLD


def test_undecoded_iso2022jp_escapes_are_flagged() -> None:
    garbled = JAPANESE.encode("iso2022_jp").decode("ascii")
    assert mojibake_score(garbled) == 1.0


def test_score_is_in_unit_interval() -> None:
    for text in (FRENCH, "\x00" * 10, "Ã©" * 100):
        assert 0.0 <= mojibake_score(text) <= 1.0


@settings(max_examples=300, deadline=None)
@given(
    st.text(
        alphabet=st.sampled_from(
            sorted(set("".join(MOJIBAKE_CATEGORIES.values()) + "ŒœÂÃÎÐ×ØÙ²µ¹¼½¾√≈‚Ђ°€"
                       "вВГРСЂўβΒΓΞΟāàÄ abcXYZ.,!?\n日本"))
        ),
        max_size=80,
    )
)
def test_windowed_badness_count_equals_ftfy_whole_text_count(text: str) -> None:
    # badness_count scans only windows around trigger chars; it must count exactly what
    # ftfy's whole-text findall counts (guards the trigger list against ftfy upgrades)
    assert badness_count(text) == len(BADNESS_RE.findall(text))


# --- requests' get_encoding_from_headers, quirk by quirk ---


@pytest.mark.parametrize(
    ("content_type", "expected"),
    [
        (None, None),  # no header: apparent_encoding (detection)
        ("", None),
        ("text/html", "ISO-8859-1"),  # "text" in the media type, no charset
        ("text/html; charset=UTF-8", "UTF-8"),
        ("text/html; CHARSET='euc-kr'", "euc-kr"),  # keys lowercased, quotes stripped
        ('text/html; charset="shift_jis"', "shift_jis"),
        ("application/json", "utf-8"),  # RFC 4627 default
        ("application/xhtml+xml", None),  # no "text": detection
        ("Text/HTML", None),  # the "text" test is case-sensitive
        ("application/octet-stream-text", "ISO-8859-1"),  # substring, not a media type test
    ],
)
def test_requests_header_rules(content_type: str | None, expected: str | None) -> None:
    assert requests_encoding_from_content_type(content_type) == expected


def test_utf8_page_declared_only_in_meta_is_garbled_by_requests() -> None:
    # the survey's main case: header "text/html" without charset, UTF-8 body
    body = '<meta charset="utf-8"><p>日本語</p>'.encode()
    assert naive_decode_garbled(body, "text/html", body.decode("utf-8"))


def test_header_charset_that_python_knows_is_not_garbled() -> None:
    body = "Привет".encode("cp1251")
    assert not naive_decode_garbled(body, "text/html; charset=windows-1251", "Привет")


def test_python_strict_shift_jis_differs_from_whatwg() -> None:
    # Python's shift_jis decodes 0x8160 as U+301C; browsers (and WHATWG) show U+FF5E
    body = b"\x81\x60"
    assert naive_decode_garbled(body, "text/html; charset=shift_jis", "\uff5e")


def test_unknown_label_falls_back_to_utf8_like_requests() -> None:
    body = "é".encode()
    assert not naive_decode_garbled(body, "text/html; charset=x-no-such-codec", "é")


def test_bare_charset_parameter_makes_requests_raise() -> None:
    # DEVIATION (requests raises, we answer True): requests calls True.strip(...) and raises,
    # so the naive pipeline gets no text
    assert naive_decode_garbled(b"abc", "text/html; charset", "abc")


def test_leading_bom_kept_by_python_utf8_is_not_a_difference() -> None:
    # DEVIATION: Python's utf-8 keeps U+FEFF at the start; not counted as garbling
    body = b"\xef\xbb\xbfhello \xc3\xa9"
    assert not naive_decode_garbled(body, "text/html; charset=utf-8", "hello é")


def test_ascii_body_is_never_garbled_by_an_ascii_compatible_codec() -> None:
    assert not naive_decode_garbled(b"<p>hi</p>", "text/html", "<p>hi</p>")


def test_no_content_type_uses_detection() -> None:
    # DEVIATION: detection is charset_normalizer's (requests' dependency), never chardet
    text = "Съешь же ещё этих мягких французских булок, да выпей чаю. " * 20
    assert not naive_decode_garbled(text.encode("utf-8"), None, text)


@settings(max_examples=200, deadline=None)
@given(st.binary(max_size=200), st.one_of(st.none(), st.text(max_size=40)))
def test_naive_decode_garbled_never_raises(body: bytes, content_type: str | None) -> None:
    assert naive_decode_garbled(body, content_type, "x") in (True, False)


@settings(max_examples=300, deadline=None)
@given(st.text(max_size=300))
def test_mojibake_score_never_raises_and_stays_in_range(text: str) -> None:
    # any str, lone surrogates included
    assert 0.0 <= mojibake_score(text) <= 1.0


@settings(max_examples=300, deadline=None)
@given(st.text(alphabet=st.sampled_from("\x00\x1b a\u00e9\u0416\u65e5\U0001f600$(B"), max_size=300))
def test_mojibake_score_reads_the_nul_characters_off_the_utf8_form_alike(text: str) -> None:
    assert mojibake_score(text, utf8=text.encode()) == mojibake_score(text)
    assert mojibake_score(text, "UTF-8", utf8=text.encode()) == mojibake_score(text, "UTF-8")


@settings(max_examples=300, deadline=None)
@given(st.text(alphabet=st.sampled_from("\ufeff a\u00e9\u0416\U0001f600"), max_size=40),
       st.sampled_from([None, "text/html", "text/html; charset=utf-8", "text/html; charset=UTF8",
                        "text/html; charset=utf-8-sig", "text/html; charset=latin-1",
                        "application/json", "text/html; charset"]),
       st.booleans())
def test_naive_decode_garbled_answers_alike_from_the_utf8_form(text: str, content_type: str | None,
                                                              bom: bool) -> None:
    # decode_html's Decoded.utf8: the body (after a UTF-8 BOM, which decode_html strips)
    from pipeline.encoding.api import decode_html

    body = (b"\xef\xbb\xbf" if bom else b"") + text.encode()
    decoded = decode_html(body, content_type)
    assert (naive_decode_garbled(body, content_type, decoded.text, utf8=decoded.utf8)
            == naive_decode_garbled(body, content_type, decoded.text))


def test_cjk_check_runs_only_for_cjk_decoders() -> None:
    # EUC-JP bytes read by the Big5 decoder: plausible-looking Han, caught by the CJK check.
    japanese = "東京の図書館は古い新聞を保存しています。文字化けを直すために記録を残します。" * 3
    wrong = japanese.encode("euc_jp").decode("big5", "replace")
    assert "\ufffd" not in wrong
    assert is_mojibake(mojibake_score(wrong))  # decoder unknown: the check runs
    assert is_mojibake(mojibake_score(wrong, "Big5"))
    # a UTF-8 decoder cannot produce this kind of mojibake, so the check is skipped
    assert mojibake_score(wrong, "UTF-8") == mojibake_score(wrong, "windows-1252") == 0.0


# --- the per-char flag tables give what the regex passes give ---

_CJK_ALPHABET = sorted(set(
    "日本語のテキストです中文简体测试这个们繁體中文這個們한국어다람쥐ㄱㅏㅎㅢｱｲｳｰ丂丄乚"
    "\ue000\uf8ff\uf900\u3400\u4dbf\U00020000\ud800 \u3000àÀÿ×÷ÃƒÂ©â€™°"
))


@settings(max_examples=300, deadline=None)
@given(st.text(alphabet=st.sampled_from(_CJK_ALPHABET), min_size=15, max_size=120))
def test_flag_table_cjk_share_equals_regex_definition(text: str) -> None:
    assert oracle.cjk_share(text) == oracle.cjk_share_by_regex(text)


@settings(max_examples=300, deadline=None)
@given(st.text(alphabet=st.sampled_from(_CJK_ALPHABET + ["a", "é", "Ï", "ð", "è", "â"]), max_size=60))
def test_flag_prefilters_skip_only_zero_counts(text: str) -> None:
    # The scanner looks for badness only around trigger chars and for soup only in runs of
    # Latin-1 letters: without them, both are 0 by construction.
    codes = oracle.code_points(text)
    flags = oracle.base_flags()[codes[codes < 0x10000]]
    if not (flags & oracle.F_TRIGGER).any():
        assert badness_count(text) == 0
    if (flags & oracle.F_SOUP).sum() < 3:
        assert not oracle._SOUP_RE.findall(text)


def test_stored_flag_tables_equal_a_fresh_build() -> None:
    # scripts/gen_mojibake_flags.py writes them; a pattern change without a rerun fails here.
    import numpy as np

    base, rare = mojibake._bmp_tables()
    assert np.array_equal(np.frombuffer(base, np.uint8), oracle.base_flags())
    assert np.array_equal(np.frombuffer(rare, np.uint8), oracle.rare_flags())


# --- the compiled scanner (_mojibake.c) gives what the oracle gives ---

_SCAN_ALPHABET = _CJK_ALPHABET + list("aé ÏðèâåòÉÊËœŒ€“”‚ƒ\u0080\u009d²µ¹½√≈°ÐÎ\x00\n") + ["\U0001f600"]


@settings(max_examples=1500, deadline=None)
@given(st.text(alphabet=st.sampled_from(_SCAN_ALPHABET), max_size=400),
       st.booleans())
def test_compiled_shares_equal_the_oracle(text: str, check_cjk: bool) -> None:
    assert mojibake._shares(text, check_cjk) == oracle.shares(text, check_cjk)


def test_compiled_shares_equal_the_oracle_on_real_decodes(corpus) -> None:  # type: ignore[no-untyped-def]
    # Right and wrong decodes of the chardet corpus: every kind of mojibake the score meets.
    import csv

    compared = 0
    with open(corpus / "chardet" / "MANIFEST.tsv", encoding="utf-8") as fh:
        rows = [row for row in csv.DictReader(fh, delimiter="\t") if row["scope"] == "whatwg"]
    for row in rows[::3]:
        body = (corpus / "chardet" / row["path"]).read_bytes()
        for codec in ("utf-8", "cp1252", "gbk", "shift_jis", "euc_kr", "big5"):
            sample = mojibake._sample(body.decode(codec, "replace"))
            for check_cjk in (True, False):
                assert mojibake._shares(sample, check_cjk) == oracle.shares(sample, check_cjk), (
                    row["path"], codec)
                compared += 1
    assert compared > 500


@pytest.mark.parametrize("change_at", [None, 0, 2**20 - 1, 2**20, 3 * 2**20 + 5])
def test_ascii_pages_are_compared_a_slice_at_a_time_over_slice_boundaries(change_at: int | None) -> None:
    body = b"<p>" + b"abcdefgh" * (2**19)  # 4 MiB + 3 bytes: four slices and a bit
    text = body.decode("ascii")
    if change_at is not None:  # the text a decoder gave differs in one character
        text = text[:change_at] + ("x" if text[change_at] != "x" else "y") + text[change_at + 1:]
    assert naive_decode_garbled(body, "text/html; charset=utf-8", text) is (change_at is not None)
    assert naive_decode_garbled(body, "text/html", text[:-1]) is True  # lengths differ
