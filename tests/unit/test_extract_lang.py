"""Language: <html lang> when plausible, else the detector's answer."""

from __future__ import annotations

from pipeline.extract import extract
from pipeline.extract.lang import choose_language, detect_language, primary_subtag

GERMAN = ("Der Ausschuss hat am Dienstag über den neuen Haushalt beraten, der sich um drei Monate "
          "verzögert hat. Die Mitglieder waren sich einig, dass der Vorschlag überarbeitet werden muss.")


def test_primary_subtag_accepts_only_well_formed_tags() -> None:
    assert primary_subtag("EN-us") == "en"
    assert primary_subtag("zh_Hant_TW") == "zh"
    assert primary_subtag("") is None
    assert primary_subtag("english!") is None
    assert primary_subtag("x") is None


def test_detector_recognises_german() -> None:
    detected = detect_language(GERMAN)
    assert detected is not None and detected[0] == "de" and detected[1] > 0.9


def test_html_lang_wins_unless_the_detector_is_confident_otherwise() -> None:
    assert choose_language("de-DE", ("de", 0.999)) == ("de", "de")
    assert choose_language("en", ("de", 0.999)) == ("de", "de")  # template's lang on German text
    assert choose_language("en", ("de", 0.9)) == ("en", "de")
    assert choose_language("nb", ("no", 0.999)) == ("nb", "no")  # a pair labelled either way
    assert choose_language(None, ("de", 0.9)) == ("de", "de")
    assert choose_language("{{lang}}", None) == (None, None)


def test_extract_records_both_languages() -> None:
    e = extract(f'<html lang="en"><div><p>{GERMAN}</p><p>{GERMAN}</p></div>', "https://x.de/", "UTF-8")
    assert (e.html_lang, e.lang_detected, e.lang) == ("en", "de", "de")
