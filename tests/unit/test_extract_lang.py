"""Language: <html lang> when plausible, else the detector's answer."""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

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


# --- the compiled DFA walk (pipeline/extract/_dfa.c) against py3langid's own ----------

_SAMPLES = [
    "Le chat est sur la table et il dort depuis ce matin.",
    "Der schnelle braune Fuchs springt über den faulen Hund.",
    "日本語の文章です。今日はいい天気ですね。",
    "Быстрая коричневая лиса перепрыгивает через ленивую собаку.",
    "", "a", "\u00a0\u3000", "🙂" * 50, "x" * 400,
]


@given(st.text(max_size=300))
@settings(max_examples=300, deadline=None)
def test_compiled_feature_walk_equals_py3langids(text: str) -> None:
    _assert_same_walk(text)


def test_compiled_feature_walk_on_real_languages() -> None:
    for text in _SAMPLES:
        _assert_same_walk(text)


def _assert_same_walk(text: str) -> None:
    from py3langid.langid import visit_counts

    from pipeline.extract import lang

    identifier = lang._identifier()
    assert type(identifier).__name__ == "CompiledWalk"
    data = identifier._encode(text)
    expected = visit_counts(identifier.tk_nextmove, _rowbase(identifier), identifier.tk_output, data)
    for depth in (-1, identifier._depth):  # one chain; several chains side by side
        got = lang.dfa.visit_counts(*identifier._automaton, data, depth)
        assert got == expected
        if got is not None:
            assert list(got) == list(expected)  # the order the scores are summed in


@given(st.text(min_size=100, max_size=1500))
@settings(max_examples=200, deadline=None)
def test_the_walk_in_chains_equals_py3langids_on_long_texts(text: str) -> None:
    # chains start from 4 * (depth + 1) bytes per chain
    _assert_same_walk(text)


def _rowbase(identifier):  # type: ignore[no-untyped-def]
    """py3langid's pre-shifted rows for its own walk (its LanguageIdentifier builds them; the
    compiled walk's identifier does not)."""
    return [row << 8 for row in identifier.tk_row]


def _full_dfa(identifier):  # type: ignore[no-untyped-def]
    """py3langid's full DFA as a (rows, 256) table of next states, each state's row index."""
    import numpy as np

    table = np.asarray(identifier.tk_nextmove, dtype=np.int64).reshape(-1, 256)
    return table, np.frombuffer(identifier.tk_row, dtype=np.uint16).astype(np.int64)


def test_the_compact_automaton_makes_every_transition_of_the_full_dfa() -> None:
    # Breadth first over both automata side by side from their start states: every state
    # of the compact one stands for exactly one of the full DFA (the same feature), and
    # from each pair every one of the 256 bytes leads to a pair again: all 26.8 million
    # transitions, compared.
    import numpy as np

    from pipeline.extract import lang

    identifier = lang._identifier()
    table, row = _full_dfa(identifier)
    states = np.asarray(identifier._automaton[0]).reshape(-1, 4)
    full_feature = np.asarray(identifier.tk_output)
    partner = np.full(len(states), -1, dtype=np.int64)  # compact state -> full DFA state
    partner[0] = 0
    ours, theirs = np.array([0]), np.array([0])
    compared = 0
    while ours.size:
        on = np.tile(np.arange(256, dtype=np.uint8), ours.size)
        got = np.frombuffer(lang.dfa.next_states(*identifier._automaton,
                                                  np.repeat(ours, 256).astype(np.int32),
                                                  on.tobytes()), dtype=np.int32).astype(np.int64)
        expected = table[np.repeat(row[theirs], 256), on]
        compared += got.size
        known = partner[got] >= 0
        assert (partner[got[known]] == expected[known]).all()
        new, first = np.unique(got[~known], return_index=True)
        partner[new] = expected[~known][first]
        assert (partner[got] == expected).all()  # one partner each
        assert (states[new, 0] == full_feature[partner[new]]).all()
        ours, theirs = new, partner[new]
    assert (partner >= 0).all() and compared == 256 * len(states)


def test_a_malformed_automaton_is_an_error_not_a_read_outside() -> None:
    import numpy as np

    from pipeline.extract import lang

    identifier = lang._identifier()
    states, blocks = (np.array(a).reshape(-1, 4) if a.ndim == 2 else np.array(a) for a in identifier._automaton)
    text = "Ceci est une phrase en français, assez longue pour le détecteur.".encode()
    sparse = states[:, 3] >= 0
    looping = states.copy()
    looping[1:, 1] = np.arange(1, len(looping))  # each state its own failure state
    beyond = states.copy()
    beyond[sparse, 2] = len(blocks)  # exceptions past the end of the blocks
    short_row = states.copy()
    short_row[~sparse, 2] = len(blocks) - 1023  # a full row past the end
    far = blocks.copy()
    far[:1024] = 0x7F  # the start state's row leads outside the automaton
    for bad in ((looping, blocks), (beyond, blocks), (short_row, blocks), (states, far)):
        with pytest.raises(ValueError, match="malformed"):
            lang.dfa.visit_counts(*bad, text, identifier._depth)
    with pytest.raises(TypeError):
        lang.dfa.visit_counts(states[:, :3].copy(), blocks, text, identifier._depth)


def test_the_chains_warm_up_for_the_dfas_depth() -> None:
    # The chains' warm-up is the DFA's depth: the largest breadth-first distance of a state
    # from the start, recomputed here in numpy on the full DFA.
    import numpy as np

    from pipeline.extract import lang

    identifier = lang._identifier()
    nextmove, row = _full_dfa(identifier)
    depth = np.full(len(row), -1)
    depth[0] = 0
    frontier, distance = np.array([0]), 0
    while frontier.size:
        reached = np.unique(nextmove[row[frontier]])
        frontier = reached[depth[reached] < 0]
        distance += 1
        depth[frontier] = distance
    assert (depth >= 0).all()
    assert identifier._depth == depth.max()
    # Walking in chains must differ from one chain when the warm-up is too short (so the
    # equality tests above can fail): find a text where a warm-up of depth - 1 breaks.
    text = ("Ceci est une phrase en français, assez longue pour le détecteur. " * 12).encode()
    automaton = identifier._automaton
    assert lang.dfa.visit_counts(*automaton, text, identifier._depth) == lang.dfa.visit_counts(*automaton, text)
    assert any(lang.dfa.visit_counts(*automaton, text[k:], 0) != lang.dfa.visit_counts(*automaton, text[k:])
               for k in range(8))


def test_the_cached_model_is_py3langids_model(tmp_path, monkeypatch) -> None:  # type: ignore[no-untyped-def]
    # The decompressed cache must load the very arrays py3langid's own loader gives.
    import numpy as np
    from py3langid import modelio
    from py3langid.langid import MODEL_DIR, MODEL_FILE

    from pipeline.extract import lang

    monkeypatch.setenv("REDECODE_CACHE_DIR", str(tmp_path))
    path = MODEL_DIR / MODEL_FILE
    cached, automaton = lang._load_model(path)
    assert list(tmp_path.glob("py3langid-*/done")), "the cache was not written"
    again, automaton_again = lang._load_model(path)  # now read from the cache
    assert automaton.depth == automaton_again.depth == lang._identifier()._depth > 0
    for built, read in zip(automaton[:2], automaton_again[:2], strict=True):
        assert np.array_equal(built, read)
    reference = modelio.load_model(path)
    for got in (cached, again):
        assert np.array_equal(got[0], reference[0]) and np.array_equal(got[1], reference[1])
        assert got[2] == reference[2] and got[5] == reference[5]
        # nextmove comes mapped (the compiled walk reads it as a buffer of uint32)
        assert got[3].dtype.itemsize == 4 and np.array_equal(got[3], np.asarray(reference[3]))
        assert got[4] == reference[4]


def test_without_a_writable_cache_the_automaton_is_built_in_the_process(tmp_path, monkeypatch) -> None:  # type: ignore[no-untyped-def]
    import numpy as np
    from py3langid.langid import MODEL_DIR, MODEL_FILE

    from pipeline.extract import lang

    blocker = tmp_path / "a-file"
    blocker.write_bytes(b"")
    monkeypatch.setenv("REDECODE_CACHE_DIR", str(blocker))  # a file: no directory under it
    assert lang._decompressed_model(MODEL_DIR / MODEL_FILE) is None
    _, built = lang._load_model(MODEL_DIR / MODEL_FILE)
    assert built.depth == lang._identifier()._depth
    for ours, cached in zip(built[:2], lang._identifier()._automaton, strict=True):
        assert np.array_equal(ours, cached)


def _reference_probabilities(identifier, text: str,  # type: ignore[no-untyped-def]
                             nextmove: list[int] | None = None) -> list[float]:
    """The documented formula in plain Python floats (float64), one operation at a time in
    the order _dfa.c runs them: py3langid's features and counts, log1p(count) * row summed
    in first-seen order, + pc, softmax at temperature sqrt(bytes), aliases folded."""
    import math

    from py3langid.langid import visit_counts

    data = identifier._encode(text)
    if nextmove is None:
        nextmove = identifier.tk_nextmove.tolist()
    visits = visit_counts(nextmove, _rowbase(identifier), identifier.tk_output, data)
    width = identifier.nb_ptc.shape[1]
    acc = [0.0] * width
    if visits:
        for feature, count in visits.items():
            weight, row = math.log1p(float(count)), identifier.nb_ptc[feature].tolist()
            for j in range(width):
                acc[j] += weight * row[j]
        acc = [a + float(p) for a, p in zip(acc, identifier.nb_pc.tolist(), strict=True)]
    t = 1.0 / math.sqrt(len(data) or 1)
    acc = [a * t for a in acc]
    top = max(acc)
    acc = [math.exp(a - top) for a in acc]
    total = 0.0
    for a in acc:
        total += a
    acc = [a / total for a in acc]
    for first, dupe in identifier._alias_pairs:
        acc[first] += acc[dupe]
        acc[dupe] = 0.0
    return acc


_SCORED = [*_SAMPLES, "Ceci est une phrase en français, assez longue pour le détecteur. " * 5,
           "这是一个中文句子，用于测试语言检测器的准确性。" * 8, "한국어 문장입니다. 언어 감지기를 시험합니다." * 6,
           GERMAN * 8, "Быстрая коричневая лиса перепрыгивает через ленивую собаку. " * 9]


def test_compiled_scores_are_the_float64_formula_exactly() -> None:
    # Bit for bit, with the F16C row conversion and with the portable one.
    from pipeline.extract import lang

    ours = lang._identifier()
    assert type(ours).__name__ == "CompiledWalk"
    assert any(len(ours._encode(t)) > 4 * (ours._depth + 1) * 4 for t in _SCORED)  # chains ran
    nextmove = ours.tk_nextmove.tolist()  # (a large table: converted once)
    expected = {text: _reference_probabilities(ours, text, nextmove) for text in _SCORED}
    try:
        for f16c in (True, False):
            lang.dfa.set_f16c(f16c)
            for text in _SCORED:
                assert ours._decide(text).tolist() == expected[text], (f16c, text)
    finally:
        lang.dfa.set_f16c(True)


def test_both_row_conversions_are_exact_on_every_half() -> None:
    # Every float16 bit pattern through each path's multiply-add equals numpy's exact
    # float16 -> float64 widening (NaNs compared by being NaN).
    import math

    import numpy as np

    from pipeline.extract import lang

    halves = np.arange(0x10000, dtype=np.uint16).view(np.float16)
    with np.errstate(invalid="ignore"):  # (the NaNs)
        expected = (0.0 + 1.0 * halves.astype(np.float64)).tolist()
    for f16c in (True, False):
        got = lang.dfa.added(halves.tobytes(), f16c)
        assert len(got) == len(expected)
        for g, e in zip(got, expected, strict=True):
            assert g == e or (math.isnan(g) and math.isnan(e)), (f16c, g, e)


def test_labels_and_probabilities_match_py3langids_own_identifier() -> None:
    # py3langid computes the same formula in float32 through BLAS: the same answers, the
    # probabilities within float32 rounding.
    import numpy as np
    from py3langid.langid import MODEL_FILE, LanguageIdentifier

    from pipeline.extract import lang

    ours = lang._identifier()
    assert ours.nb_ptc.dtype == np.float16  # the model's own table, mapped: no float32 copy
    theirs = LanguageIdentifier.from_model_file(MODEL_FILE, norm_probs=True)
    for text in _SCORED:
        assert np.allclose(ours._decide(text), theirs._decide(text), rtol=1e-4, atol=1e-6), text
        label, probability = ours.classify(text)
        assert label == theirs.classify(text)[0] and abs(probability - theirs.classify(text)[1]) < 1e-5


def test_threads_classify_independently() -> None:
    # The C scoring keeps its state on the stack: threads cannot mix their samples.
    from concurrent.futures import ThreadPoolExecutor

    texts = [GERMAN * 3, "Le chat est sur la table et il dort depuis ce matin. " * 6,
             "这是一个中文句子，用于测试语言检测器的准确性。" * 8] * 20
    expected = [detect_language(t) for t in texts]
    with ThreadPoolExecutor(4) as pool:
        assert list(pool.map(detect_language, texts)) == expected
