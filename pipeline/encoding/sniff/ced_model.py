"""Chromium's detector (CED) emulated: CED's scoring shape with tables fitted to Chromium.

CED (google/compact_enc_det, Apache-2.0) picks the encoding with the highest score, where
(``compact_enc_det.cc``: ``ApplyHints``, ``BoostPrune``, ``InternalDetectEncoding``)

    score(E) = prior(TLD, E) * derate + sum over the scored pairs of pair_score(E, pair)

- the prior comes from the URL's TLD (``kTLDHintProbs``; Chromium passes the URL and no other
  hint, so it applies at full weight), or from the all-web default when the TLD has no row;
- ``derate`` = max(3, n + 1) / 12 when fewer than 12 pairs were seen (``kDerateHintsBelow``),
  else 1: with little text the TLD weighs less, but still a quarter at least;
- each pair adds ``b1[byte1] + b2[byte2] + ...`` from per-encoding tables, and the TLD's top
  encoding gets a small boost per pair (``kDeclaredEncBoost``);
- bytes an encoding does not define are whacked (``kBadPairWhack``).

CED's tables (``compact_enc_det_generated_tables.h``) are not public. This module keeps the
shape and fits the tables to Chromium 156's own answers: a log-linear model whose score for
candidate E is

    bias[E] + d * (prior[E] + tld[t, E] + dflt * [E is Chromium's TLD default])
      + (n_w / 48) * tld_pairs[t, E]
      + (generic + generic_w * n_w / 48) * [E is chardetng's unhinted guess]
      + (hinted + hinted_w * n_w / 48) * [E is chardetng's TLD-hinted guess]
      + sum_i w_i * (b1[E, byte1_i] + b2[E, class(byte2_i)] + shape[E, shape_E(pair i)])
      + sum_b robust[E, b] * share of byte b among the sample's bytes from 0x80
      + bad[E] * (weighted pairs with a byte E leaves undefined)
      + err[E] * (decoding errors of the pairs in E, multi-byte E only)

with ``d`` CED's derating, ``w_i`` the pair weights of :func:`.ced_window.ced_window`, ``n_w``
their sum, and ``t`` the TLD's row (one per TLD seen often enough while fitting, one shared by
the rest). ``shape_E`` classes the byte before the pair and the pair's two bytes as E reads
them (lowercase letter, uppercase letter, other character, undefined or control: 64 shapes),
which is where a wrong single-byte reading shows (``mŠnner``: a capital inside a word).
The last term stands for CED's ``RobustScan``: when the first answer is unreliable, CED
rescores a few candidates on up to 1,000 pairs of the first 64-256 KB (the detector sample,
:func:`.detect.detector_sample`, holds about as many). chardetng's two guesses stand in for
the character statistics CED's tables hold. The
weights are fitted by ``scripts/browser_view.py fit`` on half of the oracle-verified pages in
``tests/browser_view/`` and stored in ``ced_weights.npz``; the other half measures them
(``docs/sniffing.md``).
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import cache, lru_cache
from pathlib import Path

import numpy as np

from pipeline.encoding.sniff.ced_window import MAX_PAIRS, PairWindow

WEIGHTS_FILE = Path(__file__).with_name("ced_weights.npz")

#: ``kDerateHintsBelow``: with fewer pairs, the TLD prior is scaled by max(3, n + 1) / 12.
DERATE_BELOW = 12
#: Multi-byte candidates, scored on their decoding errors too, with the Python codec that
#: counts them (an error count, not a decode: the codecs' small differences from the WHATWG
#: decoders do not matter to it, and the fitted weights were made with the same count).
MULTI_BYTE = {"Shift_JIS": "cp932", "EUC-JP": "euc_jp", "GBK": "gbk", "gb18030": "gb18030",
              "Big5": "big5", "EUC-KR": "cp949"}
#: Classes of an ASCII second byte (index 256 + class in ``b2``).
_LOWER, _UPPER, _SPACE, _OTHER = 256, 257, 258, 259
_SECOND_CLASS = np.array(
    [_LOWER if 0x61 <= b <= 0x7A else _UPPER if 0x41 <= b <= 0x5A else _SPACE if b == 0x20 else _OTHER
     for b in range(0x80)] + list(range(0x80, 0x100)),
    dtype=np.intp,
)
_ASCII = bytes(range(0x80))
#: Most decoding errors counted per candidate (a page in another script errs on every pair).
MAX_ERRORS = 8


@dataclass(frozen=True, slots=True)
class Weights:
    """The fitted tables (see the module docstring); ``K`` candidates, ``T`` TLD rows + 1."""

    candidates: tuple[str, ...]
    tlds: tuple[str, ...]
    bias: np.ndarray  # (K,)
    prior: np.ndarray  # (K,) the all-web prior, derated like the TLD's
    tld: np.ndarray  # (T + 1, K)
    tld_pairs: np.ndarray  # (T + 1, K)
    scalars: np.ndarray  # (5,): dflt, generic, hinted, generic_w, hinted_w
    b1: np.ndarray  # (K, 256)
    b2: np.ndarray  # (K, 260)
    bad: np.ndarray  # (K,)
    err: np.ndarray  # (K,)
    shape: np.ndarray  # (K, 64)
    robust: np.ndarray  # (K, 128)

    def tld_row(self, tld: str | None) -> int:
        """The row of ``tld`` in the TLD tables (the shared last row when it has none)."""
        try:
            return self.tlds.index(tld or "")
        except ValueError:
            return len(self.tlds)


@dataclass(frozen=True, slots=True)
class Features:
    """What the score of every candidate is computed from, for one page."""

    first: np.ndarray  # (256,) weighted counts of first bytes
    second: np.ndarray  # (260,) weighted counts of second-byte classes
    bad: np.ndarray  # (K,) weighted pairs with a byte the candidate leaves undefined
    err: np.ndarray  # (K,) decoding errors of the pairs (multi-byte candidates)
    shape: np.ndarray  # (K, 64) weighted counts of each candidate's reading shapes
    spread: np.ndarray  # (128,) share of each byte 0x80-0xFF among the sample's non-ASCII bytes
    derate: float
    weighted_pairs: float
    tld_row: int
    default: int  # candidate index of Chromium's TLD default, -1 if not a candidate
    generic: int  # candidate index of chardetng's unhinted guess, -1 if none
    hinted: int  # candidate index of chardetng's TLD-hinted guess, -1 if none


def derate(pairs: int) -> float:
    """CED's hint derating for ``pairs`` non-ASCII pairs (``BoostPrune``, ``PRUNE_FINAL``).

    >>> derate(0), derate(5), derate(11), derate(12)
    (0.25, 0.5, 1.0, 1.0)
    """
    if pairs >= DERATE_BELOW:
        return 1.0
    return max(3, pairs + 1) / DERATE_BELOW


_LOWER_LETTER, _UPPER_LETTER, _OTHER_CHAR, _UNDEFINED = 0, 1, 2, 3


@cache
def byte_shapes(candidates: tuple[str, ...]) -> np.ndarray:
    """(K, 256) uint8: each byte's class as each candidate reads it (lowercase letter,
    uppercase letter, other character, undefined or control); multi-byte candidates read
    every byte from 0x80 as "other"."""
    from pipeline.encoding.decoders import decode

    table = np.full((len(candidates), 256), _OTHER_CHAR, dtype=np.uint8)
    for k, encoding in enumerate(candidates):
        single = encoding not in MULTI_BYTE
        text = decode(bytes(range(0x80, 0x100)), encoding).text if single else ""
        for byte in range(256):
            char = chr(byte) if byte < 0x80 else (text[byte - 0x80] if single else "\u4e00")
            if char == "\ufffd" or (char < " " and char not in "\t\n\r\f") or "\x7f" <= char <= "\x9f":
                table[k, byte] = _UNDEFINED
            elif char.isalpha() and char.islower():
                table[k, byte] = _LOWER_LETTER
            elif char.isalpha() and char.isupper():
                table[k, byte] = _UPPER_LETTER
    return table


@cache
def undefined_bytes(candidates: tuple[str, ...]) -> np.ndarray:
    """(K, 256) bool: the bytes each single-byte candidate leaves undefined (U+FFFD or a C1
    control in the WHATWG index), none for multi-byte candidates."""
    from pipeline.encoding.decoders import decode

    table = np.zeros((len(candidates), 256), dtype=bool)
    for k, encoding in enumerate(candidates):
        if encoding in MULTI_BYTE:
            continue
        text = decode(bytes(range(0x80, 0x100)), encoding).text
        for offset, char in enumerate(text):
            table[k, 0x80 + offset] = char == "\ufffd" or "\x80" <= char <= "\x9f"
    return table


def features(
    window: PairWindow, weights: Weights, tld: str | None, default: str,
    generic: str | None, hinted: str | None, sample: bytes = b"",
) -> Features:
    """The page's features for :func:`scores` (the same function fits the weights);
    ``sample`` is the detector sample (:func:`.detect.detector_sample`)."""
    candidates = weights.candidates
    pair_weights = np.asarray(window.weights, dtype=float)
    befores = np.frombuffer(window.before, dtype=np.uint8).astype(np.intp)
    firsts = np.frombuffer(window.first, dtype=np.uint8).astype(np.intp)
    seconds = np.frombuffer(window.second, dtype=np.uint8).astype(np.intp)
    first = np.bincount(firsts, weights=pair_weights, minlength=256)
    second = np.bincount(_SECOND_CLASS[seconds], weights=pair_weights, minlength=260)
    undefined = undefined_bytes(candidates)
    bad = (undefined[:, firsts] | undefined[:, seconds]) @ pair_weights if len(firsts) else np.zeros(len(candidates))
    shapes = byte_shapes(candidates)
    count = len(candidates)
    pattern = (shapes[:, befores] * 16 + shapes[:, firsts] * 4 + shapes[:, seconds]).astype(np.intp)  # (K, n)
    pattern += (np.arange(count) * 64)[:, None]
    shape = np.bincount(pattern.ravel(), weights=np.tile(pair_weights, count), minlength=count * 64).reshape(count, 64)
    high = sample.translate(None, _ASCII)
    spread = np.bincount(np.frombuffer(high, dtype=np.uint8), minlength=256)[0x80:] / max(1, len(high))
    err = np.zeros(len(candidates))
    if len(firsts):
        joined = bytes(np.column_stack((firsts, seconds)).astype(np.uint8).ravel())
        for k, codec in _multi_byte_codecs(candidates):
            err[k] = min(joined.decode(codec, "replace").count("\ufffd"), MAX_ERRORS)
    return Features(
        first=first, second=second, bad=np.asarray(bad, dtype=float), err=err, shape=shape, spread=spread,
        derate=derate(window.count), weighted_pairs=float(pair_weights.sum()),
        tld_row=weights.tld_row(tld), default=_index(candidates, default),
        generic=_index(candidates, generic), hinted=_index(candidates, hinted),
    )


@cache
def _multi_byte_codecs(candidates: tuple[str, ...]) -> tuple[tuple[int, str], ...]:
    return tuple((k, MULTI_BYTE[name]) for k, name in enumerate(candidates) if name in MULTI_BYTE)


def _index(candidates: tuple[str, ...], encoding: str | None) -> int:
    return candidates.index(encoding) if encoding in candidates else -1


def scores(found: Features, weights: Weights) -> np.ndarray:
    """Every candidate's score (higher wins)."""
    dflt, generic, hinted, generic_w, hinted_w = weights.scalars
    evidence = found.weighted_pairs / MAX_PAIRS
    score = (
        weights.bias
        + found.derate * (weights.prior + weights.tld[found.tld_row])
        + (found.weighted_pairs / MAX_PAIRS) * weights.tld_pairs[found.tld_row]
        + weights.b1 @ found.first
        + weights.b2 @ found.second
        + weights.bad * found.bad
        + weights.err * found.err
        + (weights.shape * found.shape).sum(axis=1)
        + weights.robust @ found.spread
    )
    if found.default >= 0:
        score[found.default] += found.derate * dflt
    if found.generic >= 0:
        score[found.generic] += generic + generic_w * evidence
    if found.hinted >= 0:
        score[found.hinted] += hinted + hinted_w * evidence
    return score


@lru_cache(maxsize=1)
def load_weights(path: Path = WEIGHTS_FILE) -> Weights:
    """The fitted tables shipped with the package."""
    with np.load(path, allow_pickle=False) as data:
        return Weights(
            candidates=tuple(str(name) for name in data["candidates"]),
            tlds=tuple(str(name) for name in data["tlds"]),
            bias=data["bias"], prior=data["prior"], tld=data["tld"], tld_pairs=data["tld_pairs"],
            scalars=data["scalars"], b1=data["b1"], b2=data["b2"], bad=data["bad"], err=data["err"],
            shape=data["shape"], robust=data["robust"],
        )


def save_weights(weights: Weights, path: Path = WEIGHTS_FILE) -> None:
    """Write ``weights`` (what ``scripts/browser_view.py fit`` produced)."""
    np.savez_compressed(
        path, candidates=np.array(weights.candidates), tlds=np.array(weights.tlds),
        bias=weights.bias, prior=weights.prior, tld=weights.tld, tld_pairs=weights.tld_pairs, scalars=weights.scalars,
        b1=weights.b1, b2=weights.b2, bad=weights.bad, err=weights.err, shape=weights.shape,
        robust=weights.robust,
    )


@dataclass(frozen=True, slots=True)
class CedGuess:
    """The emulated CED answer, the runner-up, the score margin between them, and what the
    scores came from (pairs scored, how many of them in tag or title text, the derating)."""

    encoding: str
    runner_up: str
    margin: float
    pairs: int
    tag_pairs: int
    derate: float
    top: tuple[tuple[str, float], ...]


def ced_guess(
    window: PairWindow, tld: str | None, default: str, generic: str | None, hinted: str | None,
    sample: bytes = b"", weights: Weights | None = None,
) -> CedGuess:
    """The candidate with the highest score for the page whose pairs are ``window``."""
    weights = weights or load_weights()
    found = features(window, weights, tld, default, generic, hinted, sample)
    score = scores(found, weights)
    order = np.argsort(-score, kind="stable")
    best, second = int(order[0]), int(order[1])
    return CedGuess(
        weights.candidates[best], weights.candidates[second], float(score[best] - score[second]), window.count,
        sum(weight < 1 for weight in window.weights), found.derate,
        tuple((weights.candidates[int(k)], round(float(score[k] - score[best]), 2)) for k in order[:3]),
    )
