"""The decision: step order, the three policies, rules, signals, and the public API."""

from __future__ import annotations

from dataclasses import dataclass

import pytest

from pipeline.encoding.api import decide, decode_bytes, decode_html
from pipeline.encoding.explain import explain, explain_text
from pipeline.encoding.options import EncodingOptions, Override

RUSSIAN = "Съешь же ещё этих мягких французских булок, да выпей чаю. "
JAPANESE = "日本語のテキストです。これはテストです。"
PAD = b"<!--" + b"x" * 2000 + b"-->"


def test_bom_beats_header_and_is_stripped() -> None:
    d = decode_html(b"\xef\xbb\xbf" + "é".encode(), "text/html; charset=windows-1252")
    assert (d.text, d.encoding, d.encoding_source, d.bom, d.http_charset) == ("é", "UTF-8", "bom", "UTF-8", "windows-1252")


def test_utf16_bom_beats_meta() -> None:
    d = decode_html('<meta charset="windows-1252">é'.encode("utf-16"))
    assert (d.encoding, d.encoding_source, d.text[-1]) == ("UTF-16LE", "bom", "é")


def test_header_beats_meta() -> None:
    d = decode_html(b"<meta charset=koi8-r>", "text/html; charset=gbk")
    assert (d.encoding, d.encoding_source, d.meta_charset) == ("GBK", "header", "koi8-r")


def test_unknown_header_label_ignored() -> None:
    d = decode_html(b"<meta charset=koi8-r>", "text/html; charset=foo-bar")
    assert (d.encoding, d.encoding_source, d.http_charset) == ("KOI8-R", "meta", "foo-bar")


def test_header_label_mapping() -> None:
    # iso-8859-1 is windows-1252 (0x80 is the euro sign), gb2312 is GBK
    assert decode_html(b"\x80", "text/html; charset=iso-8859-1").text == "€"
    assert decode_html(b"", "text/html; charset=gb2312").encoding == "GBK"


def test_replacement_label() -> None:
    d = decode_html(b"anything", "text/html; charset=iso-2022-kr")
    assert (d.encoding, d.text, d.decode_errors) == ("replacement", "\ufffd", 1)


def test_xml_declaration_honoured() -> None:
    body = b'<?xml version="1.0" encoding="koi8-r"?><html>' + RUSSIAN.encode("koi8_r")
    for policy in ("standard", "browser"):
        d = decode_html(body, "text/html", policy=policy)
        assert (d.encoding, d.encoding_source) == ("KOI8-R", "xml")


def test_meta_overrides_xml_declaration() -> None:
    d = decode_html(b'<?xml version="1.0" encoding="gbk"?><html><meta charset="koi8-r">')
    assert (d.encoding, d.encoding_source, d.encoding_browser) == ("KOI8-R", "meta", "KOI8-R")


def test_late_meta_in_head() -> None:
    d = decode_html(b"<head>" + PAD + b"<meta charset=koi8-r>")
    assert (d.encoding, d.encoding_source, d.encoding_browser) == ("KOI8-R", "late-meta", "KOI8-R")
    assert d.decision.encoding_browser_source == "late-meta"


def test_late_meta_in_body_ignored() -> None:
    d = decode_html(b"<body>" + PAD + b"<meta charset=koi8-r>")
    assert d.encoding_source != "late-meta" and d.encoding == "windows-1252"


def test_meta_in_script_standard_vs_browser() -> None:
    # the prescan sees it, Chromium's tokenizer does not (measured: html5lib tests1.dat #54-#56)
    body = b'<script>x="<meta charset=koi8-r>"</script>'
    assert decode_html(body).encoding == "KOI8-R"
    assert decode_html(body, policy="browser").encoding == "windows-1252"


def test_undeclared_utf8_standard_vs_browser() -> None:
    body = RUSSIAN.encode()
    standard = decode_html(body, None, "http://example.ru/")
    assert (standard.encoding, standard.encoding_source, standard.text) == ("UTF-8", "utf8", RUSSIAN)
    # Chromium never detects UTF-8 on http(s): the TLD default
    assert (standard.encoding_browser, standard.decision.encoding_browser_source) == ("windows-1251", "default")
    browser = decode_html(body, None, "http://example.ru/", policy="browser")
    assert browser.encoding == "windows-1251"


def test_undeclared_ascii_is_windows_1252_whatever_the_tld() -> None:
    d = decode_html(b"<html>plain</html>", None, "http://example.jp/")
    assert (d.encoding, d.encoding_browser) == ("windows-1252", "windows-1252")


def test_undeclared_legacy_is_detected_with_tld() -> None:
    d = decode_html(JAPANESE.encode("euc_jp") * 3, None, "http://example.jp/")
    assert (d.encoding, d.encoding_source, d.encoding_browser) == ("EUC-JP", "detected", "EUC-JP")
    assert d.text == JAPANESE * 3


def test_undeclared_iso_2022_jp() -> None:
    d = decode_html(JAPANESE.encode("iso2022_jp"))
    assert (d.encoding, d.text) == ("ISO-2022-JP", JAPANESE)


def test_undeclared_utf16_without_bom() -> None:
    d = decode_html("<p>héllo</p>".encode("utf-16-le"))
    assert (d.encoding, d.text) == ("UTF-16LE", "<p>héllo</p>")


def test_malformed_meta_informs_standard_never_browser() -> None:
    body = b'<meta httpequiv="ContentType" content="text/html; charset=koi8-r">' + RUSSIAN.encode("koi8_r")
    d = decode_html(body, None, "http://example.com/")
    assert (d.encoding, d.encoding_source) == ("KOI8-R", "detected")
    assert any(s.kind == "malformed-meta" for s in d.decision.signals)
    browser = decide(body, None, "http://example.com/", EncodingOptions(policy="browser"))
    assert all(s.kind != "malformed-meta" for s in browser.signals)


def test_repair_utf8_overrides_lying_header() -> None:
    body = ("<p>" + RUSSIAN + "</p>").encode()
    standard = decode_html(body, "text/html; charset=iso-8859-1")
    assert (standard.encoding, standard.encoding_source) == ("windows-1252", "header")
    repaired = decode_html(body, "text/html; charset=iso-8859-1", policy="repair")
    assert (repaired.encoding, repaired.encoding_source, repaired.text) == ("UTF-8", "repair-utf8", "<p>" + RUSSIAN + "</p>")
    assert repaired.encoding_browser == "windows-1252"


def test_repair_leaves_true_declaration() -> None:
    body = RUSSIAN.encode("cp1251")
    d = decode_html(body, "text/html; charset=windows-1251", policy="repair")
    assert (d.encoding, d.encoding_source) == ("windows-1251", "header")


@pytest.mark.parametrize("text, codec, encoding", [
    (RUSSIAN * 3, "cp1251", "windows-1251"),
    (JAPANESE * 4, "cp932", "Shift_JIS"),
])
def test_repair_overrides_a_legacy_declaration_its_bytes_contradict(
        text: str, codec: str, encoding: str) -> None:
    # a long Shift_JIS or windows-1251 page sent as windows-1252: mojibake as declared,
    # clean as what the detector says
    body = f"<p>{text}</p>".encode(codec)
    lied = "text/html; charset=windows-1252"
    assert decode_html(body, lied).encoding == "windows-1252"
    d = decode_html(body, lied, policy="repair")
    assert (d.encoding, d.encoding_source, d.text) == (encoding, "repair-detected", f"<p>{text}</p>")
    assert [s.kind for s in d.decision.signals].count("repair") == 1


def test_repair_needs_enough_bytes_to_override_a_legacy_declaration() -> None:
    from pipeline.encoding.sniff.algorithm import REPAIR_MIN_NON_ASCII

    short = "<p>Привет</p>".encode("cp1251")  # 6 non-ASCII bytes
    assert len(short.translate(None, bytes(range(0x80)))) < REPAIR_MIN_NON_ASCII
    d = decode_html(short, "text/html; charset=windows-1252", policy="repair")
    assert (d.encoding, d.encoding_source) == ("windows-1252", "header")


def test_repair_never_overrides_an_operator_rule() -> None:
    body = f"<p>{RUSSIAN * 3}</p>".encode("cp1251")
    rule = Override("windows-1252", host="example.com", mode="force")
    d = decode_html(body, "text/html", "http://example.com/",
                    rules=EncodingOptions(policy="repair", overrides=(rule,)))
    assert (d.encoding, d.encoding_source) == ("windows-1252", "rule")


def test_the_decision_keeps_the_declaration_and_what_the_bytes_say() -> None:
    body = f"<p>{RUSSIAN * 3}</p>".encode("cp1251")
    lied = decide(body, "text/html; charset=iso-8859-1")
    assert (lied.declared, lied.bytes_encoding, lied.bytes_evidence) == (
        "windows-1252", "windows-1251", "detector")
    assert lied.bytes_weight == sum(ch != " " and ord(ch) > 127 for ch in RUSSIAN * 3)
    # the verdict is a column of its own: the signals are the decision's
    assert [s.kind for s in lied.signals] == ["http-charset"]
    valid = decide("<p>Café</p>".encode(), "text/html; charset=windows-1252")
    assert (valid.declared, valid.bytes_encoding, valid.bytes_evidence, valid.bytes_weight) == (
        "windows-1252", "UTF-8", "utf8", None)
    ascii_only = decide(b"<meta charset=koi8-r><p>hi</p>")
    assert (ascii_only.declared, ascii_only.bytes_encoding) == ("KOI8-R", None)
    bom = decide(b"\xef\xbb\xbf<p>hi</p>", "text/html; charset=koi8-r")
    assert (bom.declared, bom.bytes_encoding) == (None, None)


def test_the_bytes_verdict_names_the_encodings_that_read_them_alike() -> None:
    # "á" and "é" only: every Latin-1-like single-byte encoding reads them alike
    d = decide("<p>Á é á é á é á é</p>".encode("cp1250"), "text/html")
    assert d.bytes_encoding is not None and d.bytes_encoding not in d.bytes_alike
    assert {"windows-1250", "windows-1252", "ISO-8859-2"} - {d.bytes_encoding} <= set(d.bytes_alike)
    assert "windows-1251" not in d.bytes_alike


def test_repair_detected_overrides_lying_utf8() -> None:
    body = (RUSSIAN * 4).encode("cp1251")
    d = decode_html(body, "text/html; charset=utf-8", None, policy="repair")
    assert (d.encoding, d.encoding_source) == ("windows-1251", "repair-detected")
    assert decode_html(body, "text/html; charset=utf-8").encoding == "UTF-8"


def test_rule_fallback_only_when_undeclared() -> None:
    options = EncodingOptions(overrides=(Override("koi8-r", host="example.com"),))
    undeclared = decode_html(b"\xf0\xd2", None, "http://www.example.com/", rules=options)
    assert (undeclared.encoding, undeclared.encoding_source) == ("KOI8-R", "rule")
    declared = decode_html(b"\xf0\xd2", "text/html; charset=gbk", "http://example.com/", rules=options)
    assert declared.encoding_source == "header"


def test_rule_force_beats_declarations_not_bom() -> None:
    options = EncodingOptions(overrides=(Override("koi8-r", url_prefix="http://example.com/old/", mode="force"),))
    forced = decode_html(b"\xf0\xd2", "text/html; charset=gbk", "http://example.com/old/a", rules=options)
    assert (forced.encoding, forced.encoding_source, forced.encoding_browser) == ("KOI8-R", "rule", "GBK")
    bom = decode_html(b"\xef\xbb\xbfx", None, "http://example.com/old/a", rules=options)
    assert bom.encoding_source == "bom"


def test_rules_object_with_encoding_attribute_and_policy() -> None:
    @dataclass
    class Rules:
        encoding: EncodingOptions

    rules = Rules(EncodingOptions(policy="browser"))
    # the rules' policy applies unless a policy is passed
    assert decode_html(RUSSIAN.encode(), None, None, rules=rules).encoding == "windows-1252"
    assert decode_html(RUSSIAN.encode(), None, None, rules=rules, policy="standard").encoding == "UTF-8"


def test_bad_policy_and_rules_raise() -> None:
    with pytest.raises(ValueError):
        decode_html(b"", policy="guess")
    with pytest.raises(TypeError):
        decode_html(b"", rules=42)


def test_every_signal_recorded() -> None:
    body = b"\xef\xbb\xbf<meta charset=koi8-r>"
    d = decode_html(body, "text/html; charset=gbk", crawler_charset="ISO-8859-1")
    kinds = [s.kind for s in d.decision.signals]
    assert kinds == ["bom", "http-charset", "crawler-charset"]
    d = decode_html(b"<meta charset=koi8-r>", "text/html; charset=gbk")
    assert [s.kind for s in d.decision.signals] == ["http-charset", "meta-prescan"]


def test_second_opinion_signal() -> None:
    d = decide((RUSSIAN * 3).encode("cp1251"), None, "http://x.ru/", EncodingOptions(second_opinion=True))
    opinion = [s for s in d.signals if s.kind == "detector-second-opinion"]
    assert len(opinion) == 1 and opinion[0].label == "charset-normalizer"


def test_counts() -> None:
    d = decode_html(b"ok \xef\xbf\xbd bad \xff", "text/html; charset=utf-8")
    # a literal U+FFFD is a replacement char but not a decode error
    assert (d.replacement_chars, d.decode_errors) == (2, 1)


def test_decode_bytes_reexported() -> None:
    assert decode_bytes(b"\xe9", "latin1") == "é"
    with pytest.raises(LookupError):
        decode_bytes(b"", "utf-32")


def test_explain_marks_the_winner() -> None:
    d = decode_html(b"<meta charset=koi8-r>", "text/html; charset=bogus")
    info = explain(d)
    decided = [s for s in info["signals"] if s["decided"]]
    assert [s["kind"] for s in decided] == ["meta-prescan"]
    assert "prescan" in info["why"]
    text = explain_text(d)
    assert "<- decided" in text and "not a WHATWG label" in text


def test_browser_by_content_type() -> None:
    # Blink decodes XML types with the XML declaration or UTF-8, no <meta>, no detection;
    # text/plain gets detection but no <meta>
    meta = b"<meta charset=koi8-r>" + RUSSIAN.encode("koi8_r")
    assert decode_html(meta, "application/xhtml+xml").encoding_browser == "UTF-8"
    assert decode_html(b'<?xml version="1.0" encoding="koi8-r"?><r/>', "text/xml").encoding_browser == "KOI8-R"
    assert decode_html(meta, "application/json").encoding_browser == "UTF-8"
    plain = decode_html(meta, "text/plain", "http://example.ru/")
    assert (plain.encoding_browser, plain.decision.encoding_browser_source) == ("KOI8-R", "detected")
    assert decode_html(b"<meta charset=koi8-r>", "text/plain").encoding_browser == "windows-1252"


def test_koi8_named_koi8_r_unless_ukrainian_bytes() -> None:
    russian = decode_html((RUSSIAN * 3).encode("koi8_r"), None, "http://example.ru/")
    assert russian.encoding == "KOI8-R" and russian.text == RUSSIAN * 3
    ukrainian_text = "Привіт, як справи? Їжак і ґанок. " * 5
    ukrainian = decode_html(ukrainian_text.encode("koi8_u"), None, "http://example.ua/")
    assert ukrainian.encoding == "KOI8-U" and ukrainian.text == ukrainian_text


def test_repair_utf16_declaration_without_nul_bytes() -> None:
    body = b"<html><p>plain ASCII, served as UTF-16 by mistake</p></html>"
    standard = decode_html(body, "text/html; charset=utf-16")
    assert standard.encoding == "UTF-16LE" and standard.encoding_browser == "UTF-16LE"
    repaired = decode_html(body, "text/html; charset=utf-16", policy="repair")
    assert (repaired.encoding, repaired.encoding_source, repaired.text) == ("UTF-8", "repair-utf8", body.decode())
    real = decode_html("<p>real UTF-16</p>".encode("utf-16-le"), "text/html; charset=utf-16le", policy="repair")
    assert real.encoding == "UTF-16LE"
