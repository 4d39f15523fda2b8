"""korean_bpe.compare.metrics: every metric on a tiny case worked out by hand (the arithmetic is in
the comments), its nan cases and its errors."""

from __future__ import annotations

import math
import sys
import warnings
from collections import Counter

import pytest

from korean_bpe._optional import MissingDependencyError
from korean_bpe.compare import metrics
from korean_bpe.compare import metrics as m
from korean_bpe.jamo import decompose

nan = math.nan


def same(a: float, b: float) -> bool:
    return (math.isnan(a) and math.isnan(b)) or a == pytest.approx(b)


# -- size ------------------------------------------------------------------------------------------


def test_bytes_per_token() -> None:
    # "영화 굿": 3 syllables x 3 bytes + 1 space = 10 bytes; tokens ▁영화 ▁굿: 10 / 2 = 5
    assert metrics.bytes_per_token(n_bytes=len("영화 굿".encode()), n_tokens=2) == 5.0
    assert math.isnan(metrics.bytes_per_token(n_bytes=10, n_tokens=0))


def test_continued_word_rate() -> None:
    # 영화 -> 1 token, 재밌다 -> ▁재밌 다 (2), 은 dropped by a lossy pipeline (0), 최고였어 -> 4: 2 of 4
    assert metrics.continued_word_rate([1, 2, 0, 4]) == 0.5
    assert metrics.continued_word_rate(iter([2, 2])) == 1.0  # any iterable, once
    assert math.isnan(metrics.continued_word_rate([]))


def test_unrepresentable_char_rate() -> None:
    # 영 x3 known, 뷁 x1 and 😀 x2 unknown: 3 / 6
    counts = Counter("영영영뷁😀😀")
    assert metrics.unrepresentable_char_rate(counts, known=lambda ch: ch == "영") == 0.5
    assert metrics.unrepresentable_char_rate(counts, known=lambda ch: True) == 0.0
    assert math.isnan(metrics.unrepresentable_char_rate({}, known=lambda ch: False))


# -- Rényi efficiency --------------------------------------------------------------------------------

# Counts 2, 1, 1 (▁영화 twice, ▁재밌 and 다 once): p = 1/2, 1/4, 1/4.
#   a = 2:   sum p^2 = 1/4 + 1/16 + 1/16 = 3/8, H_2 = log(3/8) / (1 - 2) = log(8/3)
#   a = 2.5: sum p^2.5 = 2^-2.5 + 2 * 2^-5 = 1/(4 sqrt 2) + 1/16, H = log(that) / (1 - 2.5)
#   a = 1:   Shannon, -(1/2 log 1/2 + 2 * 1/4 log 1/4) = 1/2 log 2 + log 2 = 3/2 log 2
#   a = 0:   log of the 3 observed types
# Efficiency: H / log 3 over the observed types, H / log 4 with a vocabulary of 4.
COUNTS = Counter({"▁영화": 2, "▁재밌": 1, "다": 1})


def test_renyi_efficiency_by_hand() -> None:
    r = metrics.renyi_efficiency
    assert r(COUNTS, alpha=2) == pytest.approx(math.log(8 / 3) / math.log(3))
    assert r(COUNTS, alpha=2, vocab_size=4) == pytest.approx(math.log(8 / 3) / math.log(4))
    h25 = math.log(1 / (4 * math.sqrt(2)) + 1 / 16) / (1 - 2.5)
    assert r(COUNTS) == pytest.approx(h25 / math.log(3))  # alpha defaults to 2.5
    assert r(COUNTS) == pytest.approx(0.8678431208399358)
    assert r(COUNTS, alpha=3) == pytest.approx(math.log(1 / 8 + 2 / 64) / -2 / math.log(3))
    shannon = 1.5 * math.log(2) / math.log(3)
    assert r(COUNTS, alpha=1) == pytest.approx(shannon)
    # the Shannon case is the limit of the general formula on both sides
    assert r(COUNTS, alpha=1 - 1e-6) == pytest.approx(shannon, rel=1e-5)
    assert r(COUNTS, alpha=1 + 1e-6) == pytest.approx(shannon, rel=1e-5)
    assert r(COUNTS, alpha=0, vocab_size=4) == pytest.approx(math.log(3) / math.log(4))
    # a larger alpha weighs the frequent token more: lower entropy, lower efficiency
    assert r(COUNTS, alpha=1) > r(COUNTS, alpha=2) > r(COUNTS) > r(COUNTS, alpha=3)


def test_renyi_efficiency_matches_tokenization_scorer() -> None:
    # The tokenization-scorer README (zouharvi/tokenization-scorer) scores "pick @@ed pick @@l @@ed
    # pick @@les" (counts 3, 2, 1, 1) as 0.8031528501359657 and "pick @@e @@d pick @@l @@e @@d pick @@l
    # @@e @@s" (3, 3, 2, 2, 1) as 0.9105681923824472, over the observed types.  The README call says
    # power=2.5 but these are the values at 3, its default: log2((27+8+1+1)/343) / (1-3) / log2(4).
    r = metrics.renyi_efficiency
    assert r([3, 2, 1, 1], alpha=3) == pytest.approx(0.8031528501359657, abs=1e-12)
    assert r([3, 3, 2, 2, 1], alpha=3) == pytest.approx(0.9105681923824472, abs=1e-12)
    # at 2.5: (log((3^2.5 + 2^2.5 + 2) / 7^2.5) / (1 - 2.5)) / log 4
    assert r([3, 2, 1, 1]) == pytest.approx(math.log((3**2.5 + 2**2.5 + 2) / 7**2.5) / -1.5 / math.log(4))


def test_renyi_efficiency_inputs_and_limits() -> None:
    r = metrics.renyi_efficiency
    assert r([2, 1, 1]) == r(COUNTS) == r(iter([1, 2, 1])) == r([2, 1, 1, 0])  # zero counts are no types
    assert r([2, 1, 1, 0], vocab_size=4) == r(COUNTS, vocab_size=4)
    for alpha in (0, 0.5, 1, 2.5, 3, 100):
        assert r([7, 7, 7, 7], alpha=alpha) == pytest.approx(1.0)  # uniform over the vocabulary
        assert r([7, 7, 7, 7], alpha=alpha, vocab_size=16) == pytest.approx(0.5)  # log 4 / log 16
    # a huge alpha does not underflow: H_inf = -log max p = log 2 as alpha grows
    assert r([1, 1] + [0] * 10, alpha=2000, vocab_size=4) == pytest.approx(0.5)
    assert r([10**6, 1, 1], alpha=500) == pytest.approx(-math.log(10**6 / (10**6 + 2)) * 500 / 499 / math.log(3), rel=1e-3)
    # nan: no counts, a single type, a vocabulary of one
    assert math.isnan(r({})) and math.isnan(r([0, 0])) and math.isnan(r([5]))
    assert math.isnan(r([5], vocab_size=1))
    assert r([5], vocab_size=2) == 0.0  # one type used, two possible: H = 0
    with pytest.raises(ValueError, match="vocab_size=2 is smaller than the 3 token types"):
        r(COUNTS, vocab_size=2)
    with pytest.raises(ValueError, match="must not be negative"):
        r([3, -1])
    for bad in (-1, math.nan, math.inf):
        with pytest.raises(ValueError, match="alpha must be a finite number >= 0"):
            r(COUNTS, alpha=bad)


# -- morpheme boundaries -----------------------------------------------------------------------------


def test_word_spans_are_the_words_of_str_split() -> None:
    text = " 영화 정말\t재밌다\n\u3000굿ㅋㅋ  "
    # offsets: 0 space, 1-2 영화, 3 space, 4-5 정말, 6 tab, 7-9 재밌다, 10 \n, 11 ideographic space, 12-14 굿ㅋㅋ
    assert metrics.word_spans(text) == [(1, 3), (4, 6), (7, 10), (12, 15)]
    assert [text[s:e] for s, e in metrics.word_spans(text)] == text.split()
    assert metrics.word_spans("") == [] and metrics.word_spans(" \t ") == []


def test_gold_boundaries_when_two_morphemes_share_a_syllable() -> None:
    # Kiwi: 갔다 = 가/VV (0, 1) + 었/EP (0, 1) + 다/EF (1, 2); the ends are 1, 1, 2 and only 1 is
    # strictly inside the word (0, 2): one boundary, counted once.
    assert metrics.internal_boundaries([(0, 1), (0, 1), (1, 2)], [(0, 2)]) == [frozenset({1})]
    # 했었다 (5, 8) after "한국어를 ": 하/VV (5, 6), 었었/EP (5, 7), 다/EF (7, 8): ends 6, 7, 8 -> {6, 7};
    # 한국어/NNP (0, 3), 를/JKO (3, 4) in (0, 4): ends 3, 4 -> {3}
    words = metrics.word_spans("한국어를 했었다")
    spans = [(0, 3), (3, 4), (5, 6), (5, 7), (7, 8)]
    assert metrics.internal_boundaries(spans, words) == [frozenset({3}), frozenset({6, 7})]
    assert metrics.internal_boundaries(reversed(spans), words) == [frozenset({3}), frozenset({6, 7})]  # any order


def test_gold_boundaries_from_the_real_kiwi() -> None:
    kiwipiepy = pytest.importorskip("kiwipiepy")
    text = "학교에 갔다"
    tokens = kiwipiepy.Kiwi().tokenize(text)
    spans = [(t.start, t.start + t.len) for t in tokens]
    # 학교/NNG (0, 2), 에/JKB (2, 3), 가/VV (4, 5), 었/EP (4, 5), 다/EF (5, 6)
    assert [(t.form, s) for t, s in zip(tokens, spans)] == [
        ("학교", (0, 2)), ("에", (2, 3)), ("가", (4, 5)), ("었", (4, 5)), ("다", (5, 6))]
    assert metrics.internal_boundaries(spans, metrics.word_spans(text)) == [frozenset({2}), frozenset({5})]


def test_jamo_and_byte_token_boundaries_round_up_to_the_syllable() -> None:
    # 한국 (0, 2) as jamo tokens ᄒ ᅡ ᆫ ᄀ ᅮ ᆨ: each covers its whole syllable, so the spans are
    # (0, 1) x3 and (1, 2) x3; ends 1 and 2 -> {1}, the syllable boundary.
    assert metrics.internal_boundaries([(0, 1)] * 3 + [(1, 2)] * 3, [(0, 2)]) == [frozenset({1})]
    # merged jamo tokens ᄒ | ᅡᆫᄀ | ᅮᆨ: (0, 1), (0, 2), (1, 2) -> ends 1, 2, 2 -> {1}
    assert metrics.internal_boundaries([(0, 1), (0, 2), (1, 2)], [(0, 2)]) == [frozenset({1})]
    # one jamo token 한국 for the whole word: no boundary
    assert metrics.internal_boundaries([(0, 2)], [(0, 2)]) == [frozenset()]
    # byte tokens of 한국 (ED 95 9C EA B5 AD) cut as [ED 95] [9C EA] [B5 AD]: (0, 1), (0, 2), (1, 2) -> {1}
    assert metrics.internal_boundaries([(0, 1), (0, 2), (1, 2)], [(0, 2)]) == [frozenset({1})]


def test_internal_boundaries_edges() -> None:
    words = metrics.word_spans("영화 정말")  # (0, 2), (3, 5)
    # a superword token 영화▁정말 (0, 5) ends at the end of the second word: nothing inside either
    assert metrics.internal_boundaries([(0, 5)], words) == [frozenset(), frozenset()]
    # ▁ | 영 | 화 with the lone ▁ as a zero-width span at 0; then ▁정 (2, 4) covering the space, 말 (4, 5)
    assert metrics.internal_boundaries([(0, 0), (0, 1), (1, 2), (2, 4), (4, 5)], words) == [
        frozenset({1}), frozenset({4})]
    assert metrics.internal_boundaries([(1, 1)], words) == [frozenset({1}), frozenset()]  # zero width inside: counts
    assert metrics.internal_boundaries([], words) == [frozenset(), frozenset()]
    assert metrics.internal_boundaries([(0, 2)], []) == []
    with pytest.raises(ValueError, match=r"start <= end, got \(3, 1\)"):
        metrics.internal_boundaries([(3, 1)], words)


def test_boundary_scores_by_hand() -> None:
    # 먹었다 gold 먹|었|다 {1, 2}, predicted 먹었|다 {2}; 영화 gold {}, predicted 영|화 {1};
    # 학교에 gold 학교|에 {2}, predicted 학교|에 {2}.
    # tp = 1 + 0 + 1 = 2; predicted 1 + 1 + 1 = 3; gold 2 + 0 + 1 = 3
    # precision 2/3, recall 2/3, F1 = 2 * 2 / (3 + 3) = 2/3
    p, r, f = metrics.boundary_scores([{2}, {1}, {2}], [{1, 2}, set(), {2}])
    assert (p, r, f) == pytest.approx((2 / 3, 2 / 3, 2 / 3))
    # unequal: predicted {1} {} vs gold {1, 2} {1}: tp 1, predicted 1, gold 3 -> P 1, R 1/3, F1 2/4
    assert metrics.boundary_scores([frozenset({1}), frozenset()], [frozenset({1, 2}), frozenset({1})]) == (
        1.0, pytest.approx(1 / 3), 0.5)
    # F1 is the harmonic mean of P and R whenever both exist
    assert 2 * 1.0 * (1 / 3) / (1.0 + 1 / 3) == pytest.approx(0.5)


def test_boundary_scores_empty_and_errors() -> None:
    assert all(math.isnan(x) for x in metrics.boundary_scores([], []))
    assert all(math.isnan(x) for x in metrics.boundary_scores([set(), set()], [set(), set()]))
    # a segmenter that never splits, against a gold that does: P undefined, R 0, F1 0
    p, r, f = metrics.boundary_scores([set()], [{1}])
    assert math.isnan(p) and r == 0.0 and f == 0.0
    p, r, f = metrics.boundary_scores([{1}], [set()])
    assert p == 0.0 and math.isnan(r) and f == 0.0
    for pred, gold in (([set()], []), ([], [set()]), ([set(), set()], [set()])):
        with pytest.raises(ValueError, match="one boundary set per word"):
            metrics.boundary_scores(pred, gold)
    assert metrics.boundary_scores(iter([{1}]), iter([{1}])) == (1.0, 1.0, 1.0)  # iterators, once


# -- partial syllables ----------------------------------------------------------------------------------

HAN = "한".encode()  # ED 95 9C
GUK = "국".encode()  # EA B5 AD


@pytest.mark.parametrize(("token", "cuts"), [
    (HAN, False),                        # a whole syllable
    (HAN + GUK, False),                  # two whole syllables
    (HAN[:1], True),                     # ED: the lead of a syllable
    (HAN[:2], True),                     # ED 95: lead + first continuation
    (HAN[2:], True),                     # 9C: a syllable's last byte
    (HAN[1:], True),                     # 95 9C: its last two bytes
    (HAN[1:2], True),                    # 95: its middle byte
    (HAN + GUK[:2], True),               # 한 + the first two bytes of 국: ends cut
    (HAN[2:] + GUK[:1], True),           # cut at both ends: counted once
    (HAN[1:] + b" ok", True),            # starts with a syllable's tail
    ("가".encode()[:1], True),           # EA: lead of 가 (U+AC00), the first syllable
    (b"\xea\x80", False),                # EA 80: begins U+A000 (Yi), below 가 = EA B0 80
    ("힣".encode()[:2], True),           # ED 9E: begins 힣 (U+D7A3), the last syllable
    (b"\xed\x9f", False),                # ED 9F: begins U+D7C0.. (Jamo Extended-B), past 힣
    (b"\xe1\x84", False),                # E1 84: part of a conjoining jamo, not of a syllable
    ("ᄒ".encode(), False),               # E1 84 92: a whole conjoining jamo (jamo_token_rate's)
    ("😀".encode()[1:], False),          # 9F 98 80: three continuation bytes end a 4-byte character
    ("😀".encode()[:2], False),          # F0 9F: the start of an emoji, not of a syllable
    ("é".encode(), False),               # C3 A9: a whole 2-byte character
    ("é".encode()[1:], True),            # A9 alone: could be a syllable's last byte (the upper bound)
    (b"ok", False),
    (b"", False),
])
def test_cuts_a_syllable(token: bytes, cuts: bool) -> None:
    assert metrics.incomplete_hangul_rate([token]) == float(cuts)


def test_incomplete_hangul_rate_by_hand() -> None:
    # a byte-level vocabulary: 한 (whole), ED 95 (cut), 9C (cut), 국 (whole), ▁ (whole), 9C EA (cut):
    # 3 of 6 tokens
    vocab = [HAN, HAN[:2], HAN[2:], GUK, "▁".encode(), HAN[2:] + GUK[:1]]
    assert metrics.incomplete_hangul_rate(vocab) == 0.5
    assert metrics.incomplete_hangul_rate(iter(vocab)) == 0.5
    # every single byte of a byte-level base alphabet: the 4 leads EA..ED and the 64 continuation bytes
    assert metrics.incomplete_hangul_rate([bytes([b]) for b in range(256)]) == (4 + 64) / 256
    assert math.isnan(metrics.incomplete_hangul_rate([]))
    with pytest.raises(TypeError, match="pass token.encode"):
        metrics.incomplete_hangul_rate(["한"])  # type: ignore[list-item]


def test_jamo_token_rate_by_hand() -> None:
    han = decompose("한")  # ᄒ ᅡ ᆫ
    tokens = [
        han,              # composes to 한: whole, not counted
        han[:2],          # 하 composes to 하: whole, not counted
        han[2:],          # ᆫ alone: counted
        han[1:],          # ᅡᆫ: counted
        han + "ᄀ",        # 한 + ᄀ: counted
        "ㅋㅋ",            # compatibility jamo as typed: whole letters, not counted
        "ㅠ",             # idem
        "ᄒᆞᆫ",           # old Hangul L V T (arae-a): a whole block without a precomposed form
        "\u115f\u1161",    # choseong filler + ᅡ: how Unicode writes a lone vowel: counted
        "영화",            # no jamo
    ]
    # counted: 4 of 10
    assert metrics.jamo_token_rate(t.encode() for t in tokens) == 0.4
    # byte tokens: a whole conjoining jamo (E1 84 92 = ᄒ) counts, a fragment of one (E1 84) does not
    assert metrics.jamo_token_rate(["ᄒ".encode(), "ᄒ".encode()[:2], "한".encode()]) == pytest.approx(1 / 3)
    assert math.isnan(metrics.jamo_token_rate([]))
    with pytest.raises(TypeError, match="pass token.encode"):
        metrics.jamo_token_rate(["ᄒ"])  # type: ignore[list-item]


# -- probe ---------------------------------------------------------------------------------------------


def test_probe_accuracy_by_hand() -> None:
    pytest.importorskip("sklearn")
    # ids: 1 = 최고, 2 = 지루.  Training: 최고 in both positive reviews, 지루 in both negative ones.
    # The problem is symmetric under swapping 1 <-> 2 and the labels, so the intercept is 0 and
    # w_1 = -w_2 > 0: a review is positive iff it holds more 최고 than 지루.
    train = [[1], [1], [2], [2]]
    labels = [1, 1, 0, 0]
    # test: 최고 -> 1 (right), 지루 -> 0 (right), 최고 최고 지루 -> 1 (labelled 0: wrong),
    # 지루 지루 최고 -> 0 (right): 3 / 4
    test = [[1], [2], [1, 1, 2], [2, 2, 1]]
    assert metrics.probe_accuracy(train, labels, test, [1, 0, 0, 0]) == 0.75
    # counts, not presence: 최고 지루 지루 is negative only because 지루 counts twice
    assert metrics.probe_accuracy(train, labels, [[1, 2, 2]], [0]) == 1.0
    # an id seen only in the test split (3) gets no weight: 3 with 최고 stays positive
    assert metrics.probe_accuracy(train, labels, [[3, 1]], [1]) == 1.0
    assert math.isnan(metrics.probe_accuracy(train, labels, [], []))


def test_probe_accuracy_multiclass_deterministic_and_converged() -> None:
    np = pytest.importorskip("numpy")
    pytest.importorskip("sklearn")
    rng = np.random.default_rng(1)
    # 3 classes, 600 documents: 1-20 noise ids in 0..299, plus 3-6 ids in 100k..100k+99 for class k
    def docs(n: int) -> tuple[list[list[int]], list[int]]:
        out, ys = [], []
        for _ in range(n):
            y = int(rng.integers(3))
            ids = rng.integers(0, 300, size=int(rng.integers(1, 21)))
            mine = rng.integers(100 * y, 100 * y + 100, size=int(rng.integers(3, 7)))
            out.append([int(i) for i in np.concatenate([ids, mine])])
            ys.append(y)
        return out, ys
    train, ytrain = docs(600)
    test, ytest = docs(200)
    with warnings.catch_warnings():
        warnings.simplefilter("error")  # no ConvergenceWarning (nor any other)
        a = metrics.probe_accuracy(train, ytrain, test, ytest, seed=0)
    assert a == metrics.probe_accuracy(train, ytrain, test, ytest, seed=0) == metrics.probe_accuracy(
        train, ytrain, test, ytest, seed=7)
    assert 0.6 < a <= 1.0  # chance is 1/3


def test_probe_accuracy_errors() -> None:
    pytest.importorskip("sklearn")
    with pytest.raises(ValueError, match="one label per training document"):
        metrics.probe_accuracy([[1], [2]], [1], [[1]], [1])
    with pytest.raises(ValueError, match="one label per test document"):
        metrics.probe_accuracy([[1], [2]], [1, 0], [[1]], [])
    with pytest.raises(ValueError, match=r"single class \(\[1\]\): probe_accuracy needs at least two classes"):
        metrics.probe_accuracy([[1], [2]], [1, 1], [[1]], [1])
    with pytest.raises(ValueError, match="at least two classes"):
        metrics.probe_accuracy([], [], [[1]], [1])
    with pytest.raises(ValueError, match="token ids must be >= 0, got -1"):
        metrics.probe_accuracy([[1], [-1]], [1, 0], [[1]], [1])


def test_probe_accuracy_without_sklearn_says_how_to_install(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setitem(sys.modules, "sklearn", None)  # fault injection: the import fails
    monkeypatch.setitem(sys.modules, "sklearn.linear_model", None)
    with pytest.raises(MissingDependencyError, match=r'pip install "korean_bpe\[eval\]"') as exc:
        metrics.probe_accuracy([[1], [2]], [1, 0], [[1]], [1])
    assert isinstance(exc.value, ImportError) and "scikit-learn" in str(exc.value)


# -- more hand cases (from the first implementation of these metrics on main) ----------------------


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


def test_renyi_efficiency_by_hand_second_case() -> None:
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


def test_boundary_scores_by_hand_second_case() -> None:
    # 어절 1: pred {2, 3}, gold {2}; 어절 2: pred {}, gold {1}; 어절 3: pred {4}, gold {4}
    # tp = 1 + 0 + 1 = 2; |pred| = 3; |gold| = 3 -> P = R = F1 = 2/3
    p, r, f = m.boundary_scores([{2, 3}, set(), {4}], [{2}, {1}, {4}])
    assert (p, r, f) == pytest.approx((2 / 3, 2 / 3, 2 / 3))
    # no predicted boundaries at all: P undefined, R = 0, F1 = 0
    p, r, f = m.boundary_scores([set(), set()], [{1}, set()])
    assert math.isnan(p) and r == 0.0 and f == 0.0
    with pytest.raises(ValueError):
        m.boundary_scores([{1}], [{1}, {2}])


def test_incomplete_hangul_rate_by_hand_second_case() -> None:
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


def test_jamo_token_rate_by_hand_second_case() -> None:
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


def test_probe_accuracy_without_sklearn_says_how_to_install_second_case(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setitem(sys.modules, "sklearn.linear_model", None)  # an import of it now fails
    with pytest.raises(ImportError, match=r"korean_bpe\[eval\]"):
        m.probe_accuracy([[1], [2]], [0, 1], [[1]], [0])


# -- the small helpers -------------------------------------------------------------------------------


def test_helpers_nan_cases_split_and_throughput() -> None:
    assert math.isnan(metrics.fertility(n_tokens=3, n_words=0))
    assert math.isnan(metrics.unk_rate([], unk_ids={0}))
    assert math.isnan(metrics.whole_word_rate([]))
    assert metrics.round_trip_rate(["가", "나"], ["가", "다"]) == 0.5
    with pytest.raises(ValueError, match="same length"):
        metrics.round_trip_rate(["가"], [])
    assert metrics.throughput(3, 0.0) == math.inf and math.isnan(metrics.throughput(0, 1.0))
    train, test = metrics.split_indices(100, test_fraction=0.1, seed=3)
    assert len(test) == 10 and sorted(train + test) == list(range(100))
    assert metrics.split_indices(100, test_fraction=0.1, seed=3) == (train, test)
    assert metrics.split_indices(100, test_fraction=0.1, seed=4) != (train, test)
    with pytest.raises(ValueError, match="test_fraction"):
        metrics.split_indices(10, test_fraction=1.0, seed=0)


# -- bootstrap intervals and paired comparisons (korean_bpe.compare.stats) ----------------------------

np = pytest.importorskip("numpy")
from korean_bpe.compare import stats  # noqa: E402


def _parts(n: int, **columns: object) -> object:
    """A documents x PARTS matrix: ``docs`` 1, the named parts as given (a scalar or one value a document)."""
    x = np.zeros((n, len(stats.PARTS)))
    x[:, stats.PARTS.index("docs")] = 1
    for name, values in columns.items():
        x[:, stats.PARTS.index(name)] = values
    return x


def test_bootstrap_of_a_rate_is_binomial() -> None:
    """30 of 100 documents round-trip: a resample's rate is Binomial(100, 0.3) / 100 (mean 0.3, variance
    0.0021); its 2.5% and 97.5% quantiles are 0.21 and 0.39 (scipy.stats.binom.ppf)."""
    x = _parts(100, round_trip=[1] * 30 + [0] * 70)
    reps = stats.ratio_replicates(stats.replicate_sums(x, stats.resample_counts(100, resamples=20_000, seed=1)))
    rate = reps["round_trip_rate"]
    assert rate.mean() == pytest.approx(0.3, abs=0.002) and rate.var() == pytest.approx(0.0021, rel=0.05)
    assert stats.percentile_interval(rate, 0.95) == (pytest.approx(0.21, abs=0.005), pytest.approx(0.39, abs=0.005))
    assert stats.percentile_interval(rate, 0.5) == (pytest.approx(0.27, abs=0.005), pytest.approx(0.33, abs=0.005))


def test_bootstrap_of_equal_documents_is_a_point_and_f1_is_2tp_over_pred_plus_gold() -> None:
    x = _parts(40, tokens=5, words=2, tp=2, pred=3, gold=5)
    reps = stats.ratio_replicates(stats.replicate_sums(x, stats.resample_counts(40, resamples=50, seed=0)))
    assert stats.percentile_interval(reps["tokens_per_doc"], 0.95) == (5.0, 5.0)
    assert set(reps["tokens_per_word"]) == {2.5} and set(reps["morph_f1"]) == {0.5}  # 2*2 / (3 + 5)
    assert set(reps["morph_precision"]) == {2 / 3} and set(reps["morph_recall"]) == {0.4}
    assert np.isnan(reps["unk_rate"]).sum() == 0 and "probe_accuracy" not in reps  # the probe task's own
    empty = stats.ratio_replicates(stats.replicate_sums(_parts(40), stats.resample_counts(40, resamples=5, seed=0)))
    assert np.isnan(empty["morph_precision"]).all()  # no predicted boundary: NaN, not an error
    assert stats.percentile_interval(empty["morph_precision"], 0.95) == (pytest.approx(float("nan"), nan_ok=True),) * 2


def test_resamples_are_the_same_for_the_same_seed() -> None:
    a = stats.resample_counts(1000, resamples=30, seed=7)
    assert (a.sum(axis=1) == 1000).all() and not a.flags.writeable
    stats.resample_counts.cache_clear()  # drawn again, not the cached array
    again = stats.resample_counts(1000, resamples=30, seed=7)
    assert again is not a and (again == a).all()
    assert not (stats.resample_counts(1000, resamples=30, seed=8) == a).all()
    x = _parts(1000, tokens=np.arange(1000) % 7)
    lo_hi = [stats.percentile_interval(stats.ratio_replicates(stats.replicate_sums(x, w))["tokens_per_doc"], 0.95)
             for w in (a, again, stats.resample_counts(1000, resamples=30, seed=8))]
    assert lo_hi[0] == lo_hi[1] != lo_hi[2]


def test_paired_p_by_hand() -> None:
    b = 999
    w = stats.resample_counts(200, resamples=b, seed=3)
    tokens = np.arange(200) % 5
    ref = stats.ratio_replicates(stats.replicate_sums(_parts(200, tokens=tokens), w))["tokens_per_doc"]
    same = stats.ratio_replicates(stats.replicate_sums(_parts(200, tokens=tokens), w))["tokens_per_doc"]
    shifted = stats.ratio_replicates(stats.replicate_sums(_parts(200, tokens=tokens + 1), w))["tokens_per_doc"]
    assert stats.paired_p(same, ref) == 1.0  # identical rows
    assert stats.paired_p(shifted, ref) == 2 / (b + 1)  # one more token in every document: every resample
    # the same documents swapped between the rows: the difference is symmetric around 0
    swapped = stats.ratio_replicates(stats.replicate_sums(_parts(200, tokens=tokens[::-1]), w))["tokens_per_doc"]
    assert stats.paired_p(swapped, ref) > 0.5
    assert np.isnan(stats.paired_p([np.nan], [1.0]))


def test_mcnemar_by_hand() -> None:
    import math

    # b = 9 documents only the row gets right, c = 1 only the reference: 2 * (C(10,0) + C(10,1)) / 2^10
    assert stats.mcnemar_p([True] * 9 + [False] + [True] * 5, [False] * 9 + [True] * 6) == pytest.approx(22 / 1024)
    assert stats.mcnemar_p([True, False], [True, False]) == 1.0  # never differ
    assert stats.mcnemar_p([True, False, True], [False, True, True]) == 1.0  # b = c = 1
    exact = 2 * sum(math.comb(25, j) for j in range(6)) / 2 ** 25  # b = 20, c = 5
    assert stats.mcnemar_p([True] * 20 + [False] * 5, [False] * 20 + [True] * 5) == pytest.approx(exact, rel=1e-12)
    big = stats.mcnemar_p([True] * 2100 + [False] * 1900, [False] * 2100 + [True] * 1900)  # n = 4,000: no overflow
    assert 0.001 < big < 0.01
    with pytest.raises(ValueError, match="same documents"):
        stats.mcnemar_p([True], [True, False])


def test_renyi_influence_is_the_derivative_and_its_bootstrap_follows_the_exact_one() -> None:
    """g_d is d/de E(c + e c_d) (checked by finite differences on metrics.renyi_efficiency), the g_d
    sum to 0, and the linearized resamples E + sum w_d g_d track E recomputed on each resample."""
    rng = np.random.default_rng(0)
    docs = [rng.integers(0, 60, size=rng.integers(3, 30)) ** 2 % 60 for _ in range(400)]  # skewed ids
    flat = np.concatenate(docs)
    doc_of = np.repeat(np.arange(len(docs)), [len(d) for d in docs])
    g = stats.renyi_influence(flat, doc_of, len(docs), alpha=2.5, vocab_size=64)
    counts = np.bincount(flat, minlength=64).astype(float)
    e = metrics.renyi_efficiency(counts, vocab_size=64)
    assert abs(g.sum()) < 1e-12
    for d in (0, 7, 123):
        step = 1e-6
        moved = counts + step * np.bincount(docs[d], minlength=64)
        assert (metrics.renyi_efficiency(moved, vocab_size=64) - e) / step == pytest.approx(g[d], rel=1e-4, abs=1e-9)
    w = stats.resample_counts(len(docs), resamples=300, seed=2)
    linear = e + w.astype(float) @ g
    exact = np.array([metrics.renyi_efficiency(np.bincount(flat, weights=wb[doc_of], minlength=64), vocab_size=64)
                      for wb in w])
    assert np.corrcoef(linear, exact)[0, 1] > 0.99
    lo, hi = stats.percentile_interval(exact, 0.95)
    assert stats.percentile_interval(linear, 0.95) == (pytest.approx(lo, abs=0.1 * (hi - lo)),
                                                       pytest.approx(hi, abs=0.1 * (hi - lo)))


def _mcnemar_log_space(b: int, c: int) -> float:
    """McNemar's exact p summed by hand in log space (what stats.mcnemar_p did before scipy's binomtest)."""
    import math

    n, k = b + c, min(b, c)
    if n == 0:
        return 1.0
    logs = [math.lgamma(n + 1) - math.lgamma(j + 1) - math.lgamma(n - j + 1) - n * math.log(2) for j in range(k + 1)]
    top = max(logs)
    return min(1.0, 2 * math.exp(top) * math.fsum(math.exp(x - top) for x in logs))


@pytest.mark.parametrize("b, c", [(0, 0), (1, 0), (9, 1), (20, 5), (5, 5), (6, 7), (2100, 1900), (0, 3000)])
def test_mcnemar_is_scipys_binomial_test_and_the_hand_sum(b: int, c: int) -> None:
    from scipy.stats import binomtest

    row, ref = [True] * b + [False] * c, [False] * b + [True] * c
    p = stats.mcnemar_p(row, ref)
    assert p == pytest.approx(_mcnemar_log_space(b, c), rel=1e-9, abs=1e-300)
    if b + c:
        assert p == pytest.approx(binomtest(b, b + c, 0.5).pvalue, rel=1e-12)


def test_holm_by_hand_and_its_invariants() -> None:
    """Holm (1979): the k-th smallest of m p-values times (m - k + 1), made monotone, capped at 1."""
    assert stats.holm([0.01, 0.04, 0.03, 0.005]) == pytest.approx([0.03, 0.06, 0.06, 0.02])
    assert stats.holm([0.5, 0.6]) == [1.0, 1.0] and stats.holm([]) == []
    got = stats.holm([0.02, float("nan"), 0.01])
    assert got[0] == pytest.approx(0.02) and math.isnan(got[1]) and got[2] == pytest.approx(0.02)  # NaN: not tested
    rng = np.random.default_rng(5)
    for _ in range(50):
        p = rng.uniform(0, 0.2, size=rng.integers(1, 30))
        adj = np.array(stats.holm(p))
        assert (adj >= p).all() and (adj <= 1).all()
        order = np.argsort(p, kind="stable")
        assert (np.diff(adj[order]) >= -1e-15).all()  # the order of the p-values is kept
        assert adj.min() == pytest.approx(min(1.0, len(p) * p.min()))  # Bonferroni for the smallest


def test_too_few_resamples_refused_and_the_default_grows_with_the_tests() -> None:
    from korean_bpe.compare import Statistics

    for bad, confidence in ((1, 0.95), (199, 0.95), (999, 0.99)):
        with pytest.raises(ValueError, match=f"resamples={bad} is too few"):
            Statistics(resamples=bad, confidence=confidence)
    assert Statistics(resamples=200).resamples == 200 and Statistics(resamples=0).resamples == 0
    for tests in (1, 10, 50, 64, 200):
        b = Statistics().for_run(1000, tests, []).resamples
        assert b >= stats.RESAMPLES and tests * stats.p_floor(b) < 0.05  # the smallest p can pass Holm
    assert Statistics(resamples=300).for_run(1000, 200, []).resamples == 300  # as asked


def test_bootstrap_p_floor_is_two_over_resamples_plus_one() -> None:
    w = stats.resample_counts(50, resamples=399, seed=0)
    a = stats.ratio_replicates(stats.replicate_sums(_parts(50, tokens=3), w))["tokens_per_doc"]
    b = stats.ratio_replicates(stats.replicate_sums(_parts(50, tokens=2), w))["tokens_per_doc"]
    assert stats.paired_p(a, b) == stats.p_floor(399) == 2 / 400


def test_chars_and_bytes_per_token_are_ratios_of_sums() -> None:
    x = _parts(3, tokens=[2, 3, 5], chars=[4, 9, 7], bytes=[12, 27, 21])
    sums = stats.replicate_sums(x, np.ones((1, 3), dtype=np.uint8))
    reps = stats.ratio_replicates(sums, ["chars_per_token", "bytes_per_token"])
    assert reps["chars_per_token"][0] == pytest.approx(20 / 10) and reps["bytes_per_token"][0] == pytest.approx(6.0)
