"""The rarer Latin sets (pipeline/encoding/sniff/latin.py): text written for these tests in each
language, encoded in its legacy set, decoded as a page that declares nothing."""

from __future__ import annotations

import pytest

from pipeline.encoding.api import decode_html
from pipeline.encoding.sniff.latin import refine_latin

# (language, Python codec, WHATWG name, text)
CASES = [
    ("lt", "iso8859_4", "ISO-8859-4",
     "Lietuvos sostinė yra Vilnius. Šiandien žmonės ėjo į turgų, pirko duonos ir pieno. "
     "Vaikai žaidė kieme, o senelis skaitė laikraštį apie ūkininkų rūpesčius."),
    ("lv", "iso8859_13", "ISO-8859-13",
     "Latvijas galvaspilsēta ir Rīga. Šodien cilvēki gāja uz tirgu un pirka maizi. "
     "Bērni spēlējās pagalmā, bet vectēvs lasīja avīzi par zemnieku rūpēm un ģimenēm."),
    ("mt", "iso8859_3", "ISO-8859-3",
     "Il-Ħadd filgħodu l-familja kollha tmur il-knisja. Ġużeppi u Ċikku żaru l-belt "
     "u xtraw il-ħobż. Għandna ħafna xogħol għada, iżda llum il-jum ta' mistrieħ."),
    ("eo", "iso8859_3", "ISO-8859-3",
     "Ĉiu homo rajtas ŝanĝi sian opinion. Hodiaŭ ni aĉetis ĵurnalon kaj manĝis en la ĝardeno. "
     "La infanoj ĉirkaŭkuris la domon, kaj la patro ŝatis la ĥoron."),
    ("pl", "iso8859_16", "ISO-8859-16",
     "Wczoraj poszliśmy do sklepu kupić chleb i mleko. Dzieci bawiły się na podwórku, "
     "a dziadek czytał gazetę o żniwach. Źródło rzeki leży w górach, gdzie często pada śnieg."),
    ("et", "iso8859_15", "ISO-8859-15",
     "Eesti pealinn on Tallinn. Täna käisid inimesed turul ja ostsid leiba. Šokolaadi ja "
     "žurnaale müüdi ka, ning Tšehhi külalised söögid tõid rõõmu."),
]


@pytest.mark.parametrize("lang, codec, encoding, text", CASES, ids=[c[0] + "-" + c[2] for c in CASES])
def test_undeclared_rare_latin_text_decodes_to_its_text(lang: str, codec: str, encoding: str, text: str) -> None:
    decoded = decode_html(text.encode(codec), None, None)
    assert decoded.text == text, decoded.encoding


def test_a_reading_the_bytes_cannot_tell_apart_keeps_chardetngs_answer() -> None:
    # Romanian with cedilla letters in windows-1250: ISO-8859-16 gives the same byte the comma
    # letters, the only difference between the readings (folded), so nothing supports a switch.
    body = ("Elevii şcolii au învăţat istoria ţării şi au mers în excursie la munte, "
            "unde au văzut păduri şi râuri frumoase.").encode("cp1250")
    assert refine_latin(body, "windows-1250") is None


def test_western_text_stays_windows_1252() -> None:
    text = "Le café était très fréquenté; à côté, l'hôtel offrait des crêpes et du thé à volonté."
    assert refine_latin(text.encode("cp1252"), "windows-1252") is None
    assert decode_html(text.encode("cp1252"), None, None).encoding == "windows-1252"


def test_hungarian_in_iso_8859_2_is_not_read_as_iso_8859_16() -> None:
    body = "Árvíztűrő tükörfúrógép: az őszi szélben a fűzfák levelei hullanak.".encode("iso8859_2")
    assert refine_latin(body, "ISO-8859-2") is None


def test_only_latin_answers_are_refined() -> None:
    assert refine_latin("Привет, мир".encode("cp1251"), "windows-1251") is None
