"""bench/rouge_lsum.py against Google's rouge-score (the package the benchmark scores with):
the same ROUGE-LSum on texts whose sentences are already cut (rouge-score then splits on
newlines; bench/rouge_lsum cuts with Punkt, which gives those same sentences back)."""

from __future__ import annotations

import random

import pytest

from bench.rouge_lsum import lcs_indices, rouge_lsum, summary_lcs, tokenize

rouge_scorer = pytest.importorskip("rouge_score.rouge_scorer", reason="the bench extra's rouge-score")
tokenizers = pytest.importorskip("rouge_score.tokenizers")


class _WhiteSpace(tokenizers.Tokenizer):
    def tokenize(self, text: str) -> list[str]:
        return tokenize(text)


def test_lcs_indices_equal_the_dynamic_programming_table() -> None:
    rng = random.Random(7)
    for _ in range(300):
        ref = [rng.choice("abcde") for _ in range(rng.randint(0, 12))]
        can = [rng.choice("abcde") for _ in range(rng.randint(0, 12))]
        assert lcs_indices(ref, can) == rouge_scorer.lcs_ind(ref, can)


def test_summary_scores_equal_rouge_score() -> None:
    scorer = rouge_scorer.RougeScorer(["rougeLsum"], use_stemmer=False, tokenizer=_WhiteSpace())
    rng = random.Random(11)
    words = "the a of cat dog runs fast slow big x y z q".split()
    for _ in range(200):
        target = [[rng.choice(words) for _ in range(rng.randint(1, 9))] for _ in range(rng.randint(1, 6))]
        pred = [[rng.choice(words) for _ in range(rng.randint(1, 9))] for _ in range(rng.randint(1, 6))]
        expected = scorer.score("\n".join(map(" ".join, target)), "\n".join(map(" ".join, pred)))["rougeLsum"]
        got = summary_lcs(target, pred)
        assert (got.precision, got.recall, got.f1) == pytest.approx(
            (expected.precision, expected.recall, expected.fmeasure), abs=1e-12)


def test_empty_gold_scores_as_the_benchmark_scores_it() -> None:
    pytest.importorskip("punkt")
    assert rouge_lsum("", "").f1 == 1.0
    assert rouge_lsum("", "some words").recall == 1.0
    assert rouge_lsum("Some words here.", "").f1 == 0.0
