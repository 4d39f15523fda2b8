"""The vocabulary hygiene columns (compare/metrics.py): intermediate residues, single-token
retention of frequent 어절 (STRR), tokens ending inside a UTF-8 character; hand-checked."""

from __future__ import annotations

import math

import pytest

from korean_bpe import Tokenizer
from korean_bpe.compare import metrics
from korean_bpe.compare.columns import by_name


def test_residue_rate_by_hand():
    """'▁영화관' 9 times, '▁영화' once: merges (▁,영) -> ▁영, (▁영,화) -> ▁영화, (▁영화,관) -> ▁영화관.
    Held-out '영화관 영화관 영화': ▁영화관 emitted twice, ▁영화 once.  ▁영 is inside 3 trees and never
    emitted: a residue; ▁영화 is emitted once of 3 occurrences (33%): not one.  Vocabulary:
    <unk> ▁ 관 영 화 + 3 merges = 8 tokens: 1 / 8."""
    tok = Tokenizer.train(["영화관"] * 9 + ["영화"], vocab_size=8)
    assert tok.merges == (("▁", "영"), ("▁영", "화"), ("▁영화", "관"))
    ids = tok.encode("영화관 영화관 영화")
    vocab = tok.vocab
    merges = [(vocab[a], vocab[b], vocab[a + b]) for a, b in tok.merges]
    usage = {i: ids.count(i) for i in set(ids)}
    assert usage == {vocab["▁영화관"]: 2, vocab["▁영화"]: 1}
    assert metrics.residue_rate(merges, usage, vocab_size=tok.vocab_size) == 1 / 8
    assert metrics.residue_rate(merges, {vocab["▁영화관"]: 2}, vocab_size=8) == 2 / 8  # ▁영화 too
    assert metrics.residue_rate(merges, {}, vocab_size=8) == 0.0  # unused is not residue


def test_partial_char_end_rate_unifies_with_incomplete_hangul():
    han, e = "한".encode(), "é".encode()  # ED 95 9C, C3 A9
    tokens = [han, han[:1], han[:2], e[:1], b"a" + e[:1], han + b"a", e]
    # ends inside: ED, ED 95, C3, a C3 (4 of 7); cuts Hangul: ED, ED 95 (2 of 7)
    assert metrics.partial_char_end_rate(tokens) == pytest.approx(4 / 7)
    assert metrics.incomplete_hangul_rate(tokens) == pytest.approx(2 / 7)
    assert math.isnan(metrics.partial_char_end_rate([]))


def test_single_token_retention_ties_and_top():
    counts = {"영화": 2, "최고": 2, "재밌다": 1}
    encode = lambda words: [[1] if w == "영화" else [2, 3] for w in words]  # noqa: E731
    assert metrics.single_token_retention(counts, encode, top=1) == 1.0  # 영화 < 최고 by code point
    assert metrics.single_token_retention(counts, encode) == 2 / 5


def test_compare_rows_have_the_hygiene_columns(real_texts):
    from korean_bpe.compare import compare

    for name in ("residue_rate", "single_token_retention", "partial_char_end_rate"):
        assert by_name(name).unit == "%"
    train, test = real_texts[:300], real_texts[300:400]
    table = compare(train, eval_texts=test, strategies=["raw/byte", "raw/syllable", "baseline/word"],
                    vocab_sizes=[1200], gold=None, show_progress=False, model_cache=False).table.set_index("strategy")
    assert 0 < table.loc["raw/byte", "partial_char_end_rate"] < 1
    assert table.loc["raw/syllable", "partial_char_end_rate"] == 0
    assert 0 <= table.loc["raw/syllable", "residue_rate"] < 1 and math.isnan(table.loc["baseline/word", "residue_rate"])
    assert 0 < table.loc["raw/syllable", "single_token_retention"] < 1
