"""The comparison's metrics on tiny cases worked out by hand (each comment shows the arithmetic)."""

from __future__ import annotations

import math
import sys

import pytest

from korean_bpe.compare import metrics as m


def test_bytes_and_continued_words() -> None:
    # "영화 재밌다": 5 syllables x 3 bytes + 1 space = 16 bytes; tokens ▁영화 ▁재밌 다 -> 16 / 3
    assert m.bytes_per_token(n_bytes=len("영화 재밌다".encode()), n_tokens=3) == pytest.approx(16 / 3)
    assert m.bytes_per_token(n_bytes=5, n_tokens=0) != m.bytes_per_token(n_bytes=5, n_tokens=0)  # nan
    # 어절 cut into 1, 2, 2, 1, 4 tokens: 3 of 5 continued
    assert m.continued_word_rate([1, 2, 2, 1, 4]) == 0.6
    assert math.isnan(m.continued_word_rate([]))


def test_unrepresentable_chars() -> None:
    # 10 occurrences, 😉 (1) and 뷁 (2) unknown: 3 / 10
    counts = {"영": 4, "화": 3, "😉": 1, "뷁": 2}
    assert m.unrepresentable_char_rate(counts, known=lambda c: c in "영화") == 0.3
    assert m.unrepresentable_char_rate(counts, known=lambda c: True) == 0.0


def test_renyi_efficiency_by_hand() -> None:
    # counts 3, 1 -> p = 0.75, 0.25.  a = 2.5: sum p^a = 0.75^2.5 + 0.25^2.5 = 0.487139 + 0.03125
    # = 0.518389; H = ln(0.518389) / (1 - 2.5) = -0.657029 / -1.5 = 0.438019; / ln 2 = 0.631928
    expected = math.log(0.75 ** 2.5 + 0.25 ** 2.5) / (1 - 2.5) / math.log(2)
    assert m.renyi_efficiency([3, 1]) == pytest.approx(expected)
    assert m.renyi_efficiency([3, 1]) == pytest.approx(0.631928, abs=1e-6)
    # the same over a vocabulary of 8: divide by log 8 instead of log 2 -> a third
    assert m.renyi_efficiency({"a": 3, "b": 1}, vocab_size=8) == pytest.approx(0.631928 / 3, abs=1e-6)
    # Shannon at a = 1: -(0.75 ln 0.75 + 0.25 ln 0.25) / ln 2 = 0.811278
    assert m.renyi_efficiency([3, 1], alpha=1) == pytest.approx(0.811278, abs=1e-6)
    # uniform is 1 at any order; zeros are unused types, dropped
    assert m.renyi_efficiency([5, 5, 5, 0], alpha=3) == pytest.approx(1.0)
    assert math.isnan(m.renyi_efficiency([7]))
    assert math.isnan(m.renyi_efficiency([]))
    with pytest.raises(ValueError, match="smaller than the 3 token types"):
        m.renyi_efficiency([1, 1, 1], vocab_size=2)
    assert m.RENYI_ALPHA == 2.5


def test_word_spans_and_internal_boundaries() -> None:
    text = "아이언맨은  올해 최고"
    assert m.word_spans(text) == [(0, 5), (7, 9), (10, 12)]
    # tokens 아이언맨 | 은 | ▁▁올해 (the spaces' token spans 5..9) | ▁최 | 고
    spans = [(0, 4), (4, 5), (5, 9), (9, 11), (11, 12)]
    assert m.internal_boundaries(spans, m.word_spans(text)) == [frozenset({4}), frozenset(), frozenset({11})]
    # Kiwi's 갔다: 가/VV (0,1) + 았/EP (0,1) + 다/EF (1,2) -> one inside boundary, at 1
    assert m.internal_boundaries([(0, 1), (0, 1), (1, 2)], [(0, 2)]) == [frozenset({1})]
    # a jamo token that ends inside 갔 covers all of 갔: 가 + ᆻ다 -> spans (0,1), (0,2) -> {1}
    assert m.internal_boundaries([(0, 1), (0, 2)], [(0, 2)]) == [frozenset({1})]
    # empty spans (a lone ▁) and spans outside every 어절 add nothing
    assert m.internal_boundaries([(3, 3), (0, 3)], [(0, 3)]) == [frozenset()]


def test_boundary_scores_by_hand() -> None:
    # 어절 1: pred {2, 3}, gold {2}; 어절 2: pred {}, gold {1}; 어절 3: pred {4}, gold {4}
    # tp = 1 + 0 + 1 = 2; |pred| = 3; |gold| = 3 -> P = R = F1 = 2/3
    p, r, f = m.boundary_scores([{2, 3}, set(), {4}], [{2}, {1}, {4}])
    assert (p, r, f) == pytest.approx((2 / 3, 2 / 3, 2 / 3))
    # no predicted boundaries at all: P undefined, R = 0, F1 = 0
    p, r, f = m.boundary_scores([set(), set()], [{1}, set()])
    assert math.isnan(p) and r == 0.0 and f == 0.0
    with pytest.raises(ValueError):
        m.boundary_scores([{1}], [{1}, {2}])


def test_incomplete_hangul_rate_by_hand() -> None:
    ga, da = "가".encode(), "다".encode()  # EA B0 80, EB 8B A4
    surfaces = [
        ga,               # whole: no
        ga[:1],           # EA: ends inside 가: yes
        ga[:2],           # EA B0: yes
        ga[1:],           # B0 80: starts inside: yes
        ga[2:] + da,      # 80 + 다: starts inside: yes
        da + ga[:2],      # 다 + EA B0: ends inside: yes
        b"abc",           # ASCII: no
        "ㅋ".encode(),    # a whole compatibility jamo: no
        "é".encode()[:1],  # C3: ends inside a 2-byte Latin letter, not Hangul: no
    ]
    assert m.incomplete_hangul_rate(surfaces) == pytest.approx(5 / 9)
    assert math.isnan(m.incomplete_hangul_rate([]))


def test_jamo_token_rate_by_hand() -> None:
    surfaces = [s.encode() for s in (
        "\u1112\u1161\u11ab",   # ᄒ ᅡ ᆫ -> 한: whole, no
        "\u1161\u11ab",         # ᅡ ᆫ: part of a syllable, yes
        "한\u1100",             # 한 + ᄀ: yes
        "ㅋㅋ",                 # compatibility jamo typed as letters: no
        "영화",                 # no
    )]
    assert m.jamo_token_rate(surfaces) == pytest.approx(2 / 5)


def test_probe_accuracy_learns_a_separable_signal() -> None:
    pytest.importorskip("sklearn")
    # token 1 marks positive, 4 negative; 2 and 3 are noise on both sides
    train = [[1, 2], [1, 3, 3], [4, 2], [4, 3]] * 10
    labels = [1, 1, 0, 0] * 10
    assert m.probe_accuracy(train, labels, [[1, 2], [4, 4], [3, 1]], [1, 0, 1]) == 1.0
    # labels that contradict the signal: every test document is misclassified
    assert m.probe_accuracy(train, labels, [[1], [4]], [0, 1]) == 0.0
    # same seed, same answer
    a = m.probe_accuracy(train, labels, [[2], [3]], [1, 0], seed=3)
    assert a == m.probe_accuracy(train, labels, [[2], [3]], [1, 0], seed=3)


def test_probe_accuracy_refuses_bad_labels() -> None:
    pytest.importorskip("sklearn")
    with pytest.raises(ValueError, match="single class"):
        m.probe_accuracy([[1], [2]], [1, 1], [[1]], [1])
    with pytest.raises(ValueError, match="one label"):
        m.probe_accuracy([[1], [2]], [1], [[1]], [1])


def test_probe_accuracy_without_sklearn_says_how_to_install(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setitem(sys.modules, "sklearn.linear_model", None)  # an import of it now fails
    with pytest.raises(ImportError, match=r"korean_bpe\[eval\]"):
        m.probe_accuracy([[1], [2]], [0, 1], [[1]], [0])
