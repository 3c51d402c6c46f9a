"""Language: ``<html lang>`` when plausible, else the language detected from the text.

Detection uses py3langid (langid.py's model, shipped inside the package: no download).
Decision, per record:

- ``lang_detected``: the detector's answer on the main text (or the visible text when
  the main text is short), when its normalised probability reaches ``MIN_DETECTED``.
- ``lang``: the primary subtag of ``<html lang>`` (lowercased) when it is a well-formed
  language subtag and the detector does not confidently (``OVERRULE``) say otherwise;
  else ``lang_detected``. Pages often keep a template's ``lang="en"`` on text in
  another language, and 34 of the 181 benchmark pages have no ``lang`` at all.
"""

from __future__ import annotations

import lzma
from functools import lru_cache
from pathlib import Path
from typing import Any

from pipeline.derived import cache_dir, write_once
from pipeline.extract import lang_automaton
from pipeline.native import dfa

#: Below this normalised probability the detector's answer is not recorded.
MIN_DETECTED = 0.5
#: The detector overrules a well-formed ``<html lang>`` only at this confidence.
OVERRULE = 0.99
#: Text fed to the detector: a few sentences are enough (the NFC normalisation, the
#: feature walk and the scoring all grow with it).
MAX_CHARS = 300
#: Shorter texts are not worth detecting.
MIN_CHARS = 20

#: Language pairs the detector confuses and pages legitimately label either way.
_SAME = {frozenset({"no", "nb"}), frozenset({"no", "nn"}), frozenset({"ms", "id"}),
         frozenset({"hr", "bs"}), frozenset({"sr", "hr"}), frozenset({"sr", "bs"})}


#: The arrays of py3langid's model, as stored in its npz.
_MODEL_ARRAYS = ("ptc", "pc", "classes", "nextmove", "nextmove_row", "out_feat")
#: The big ones, memory-mapped read-only: the page cache holds one copy for every worker
#: (the 39 MB DFA was copied into each process: 14% of a worker's page faults). The
#: compiled walk never reads the full DFA: it walks the compact automaton.
_MAPPED = frozenset({"ptc", "nextmove", "ac_states", "ac_blocks"})
#: The compact automaton's arrays (lang_automaton.Automaton), stored beside the model's.
_AUTOMATON_ARRAYS = ("ac_states", "ac_blocks")


def _decompressed_model(model_file: Path) -> Path | None:
    """py3langid's model (an LZMA-compressed npz) unpacked once into :func:`cache_dir`, one
    ``.npy`` file per array, with the compact automaton of its DFA and that automaton's
    depth (``depth.txt``), named by the py3langid release and the model file's size (so
    every checkout and venv of that release shares one copy; hashing the 4.6 MB file cost
    every start ~8 ms). The LZMA costs ~0.45 s in every process, copying the table out of
    an npz ~0.1 s, building the automaton ~1.5 s; a ``.npy`` is memory-mapped instead: no
    copy, and the page cache shares it between workers. None when the cache cannot be
    written."""
    import numpy as np
    import py3langid

    def unpack(folder: Path) -> None:
        folder.mkdir()
        with lzma.open(model_file) as src, np.load(src, allow_pickle=False) as data:
            arrays = {name: data[name] for name in _MODEL_ARRAYS}
        for name, value in arrays.items():
            np.save(folder / f"{name}.npy", value, allow_pickle=False)
        automaton = lang_automaton.compact(arrays["nextmove"], arrays["nextmove_row"],
                                           arrays["out_feat"])
        for name, value in zip(_AUTOMATON_ARRAYS, automaton[:2], strict=True):
            np.save(folder / f"{name}.npy", value, allow_pickle=False)
        (folder / "depth.txt").write_text(str(automaton.depth), "ascii")
        (folder / "done").touch()  # (how releases before write_once knew a whole folder)

    try:
        size = model_file.stat().st_size
    except OSError:
        return None
    # (the model's own float16 table; the automaton beside it)
    target = cache_dir() / f"py3langid-{py3langid.__version__}-{size}-f16-ac{lang_automaton.DENSE}"
    if write_once(target, unpack, (lzma.LZMAError, ValueError, KeyError)):
        return target
    return None


def _load_model(model_file: Path) -> tuple[tuple[Any, ...], lang_automaton.Automaton]:
    """py3langid.modelio.load_model's result, from the unpacked cache when possible, and the
    compact automaton of its DFA for the compiled walk (built in the process when the cache
    cannot be written)."""
    from py3langid import modelio

    cached = _decompressed_model(model_file)
    if cached is not None:
        import numpy as np

        try:
            data = {name: np.load(cached / f"{name}.npy", mmap_mode="r" if name in _MAPPED else None,
                                  allow_pickle=False) for name in _MODEL_ARRAYS + _AUTOMATON_ARRAYS}
            depth = int((cached / "depth.txt").read_text("ascii"))
        except (OSError, ValueError):
            cached = None
    if cached is None:
        model = modelio.load_model(model_file)
        return model, lang_automaton.compact(model[3], model[4], model[5])
    # nextmove stays a (mapped) array: py3langid's attributes, never read by the compiled walk
    model = (data["ptc"], data["pc"], data["classes"].tolist(), data["nextmove"],
             modelio._to_array(data["nextmove_row"]), data["out_feat"].tolist())
    return model, lang_automaton.Automaton(data["ac_states"], data["ac_blocks"], depth)


@lru_cache(maxsize=1)
def _identifier() -> Any:
    import numpy as np
    from py3langid.langid import MODEL_DIR, MODEL_FILE, LanguageIdentifier

    class CompiledWalk(LanguageIdentifier):
        """py3langid with its byte DFA walk and its scoring in C (``_dfa.c``): the same
        features in the same order, the same formula in float64 over the model's float16
        table (tests/unit/test_extract_lang.py)."""

        __slots__ = ("_automaton", "_depth", "_aliases", "_pc32", "tk_row")

        def __init__(self, *args: Any, tk_row: Any, automaton: lang_automaton.Automaton,
                     **kwargs: Any) -> None:
            # py3langid's own walk pre-shifts every state's row (~11 ms at each start); it
            # never runs here, so it is given no rows (and the model's afterwards)
            super().__init__(*args, tk_row=(), **kwargs)
            self.tk_row = tk_row
            self._automaton = automaton[:2]
            self._depth = automaton.depth
            self._aliases = tuple(self._alias_pairs)
            self._pc32 = np.ascontiguousarray(self.nb_pc, dtype=np.float32)

        def _args(self, text: bytes) -> tuple[Any, ...]:
            return (*self._automaton, text, self._depth, self.nb_ptc, self.nb_ptc.shape[1],
                    self._pc32, self._aliases)

        def _decide(self, text: str | bytes) -> Any:
            return np.array(dfa.probabilities(*self._args(self._encode(text))))

        def classify(self, text: str | bytes) -> tuple[str, float]:
            index, probability = dfa.classify(*self._args(self._encode(text)))
            return self.nb_classes[index], probability

    path = Path(MODEL_FILE)
    (ptc, pc, classes, nextmove, row, output), automaton = _load_model(
        path if path.is_absolute() else MODEL_DIR / path)
    # as LanguageIdentifier.from_model_file builds it; the table stays the model's float16
    return CompiledWalk(np.ascontiguousarray(ptc, dtype=np.float16), np.asarray(pc), classes,
                        nextmove, output, norm_probs=True, tk_row=row, automaton=automaton)


def detect_language(text: str) -> tuple[str, float] | None:
    """The detected language of ``text`` and its normalised probability, or None.

    >>> detect_language("Le chat est sur la table et il dort depuis ce matin.")[0]
    'fr'
    """
    sample = text[:MAX_CHARS]
    if len(sample.strip()) < MIN_CHARS:
        return None
    lang, prob = _identifier().classify(sample)
    return str(lang), float(prob)


def primary_subtag(html_lang: str | None) -> str | None:
    """The primary language subtag of a BCP 47 tag when it is well formed (2-3 or 5-8
    ASCII letters), lowercased.

    >>> primary_subtag("en-US"), primary_subtag("pt_BR"), primary_subtag("{{lang}}")
    ('en', 'pt', None)
    """
    if not html_lang:
        return None
    primary = html_lang.replace("_", "-").split("-", 1)[0]
    if primary.isascii() and primary.isalpha() and (2 <= len(primary) <= 3 or 5 <= len(primary) <= 8):
        return primary.lower()
    return None


def choose_language(html_lang: str | None, detected: tuple[str, float] | None) -> tuple[str | None, str | None]:
    """``(lang, lang_detected)`` per the module's decision rule.

    >>> choose_language("en", ("de", 0.999))
    ('de', 'de')
    >>> choose_language("en-GB", ("de", 0.8))
    ('en', 'de')
    >>> choose_language(None, ("ja", 0.3))
    (None, None)
    """
    lang_detected = detected[0] if detected is not None and detected[1] >= MIN_DETECTED else None
    primary = primary_subtag(html_lang)
    if primary is None:
        return lang_detected, lang_detected
    if detected is None or lang_detected is None or detected[0] == primary:
        return primary, lang_detected
    if detected[1] >= OVERRULE and frozenset({primary, detected[0]}) not in _SAME:
        return detected[0], lang_detected
    return primary, lang_detected
