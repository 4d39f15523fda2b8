"""Pure metric functions over token counts and token sequences (no training, no I/O).

Every function takes plain numbers or lists and returns a float; an empty denominator gives
``nan`` (not an error), so a table can hold a strategy that had nothing to measure.

>>> fertility(n_tokens=7, n_words=4)
1.75
>>> chars_per_token(n_chars=21, n_tokens=7)
3.0
>>> unk_rate([[5, 0, 9], [0]], unk_ids={0})
0.5
>>> whole_word_rate([["▁영화"], ["▁재밌", "다"], ["▁정말"]])
0.6666666666666666
>>> round_trip_rate(["영화 정말 재밌다", "굿"], ["영화 정말 재밌다", "<unk>"])
0.5
>>> word_spans("영화 정말  재밌다")
[(0, 2), (3, 5), (7, 10)]
>>> internal_boundaries([(0, 1), (1, 2), (3, 5), (7, 9), (9, 10)], word_spans("영화 정말  재밌다"))
[frozenset({1}), frozenset(), frozenset({9})]

Morpheme boundaries, for every strategy and for the gold analyzer alike, are the character-offset
ends of token (or morpheme) spans strictly inside an 어절, where a span that covers part of a
character (a jamo token, a byte token) covers that whole character.  So Kiwi's ``갔다`` =
``가/VV`` (0, 1) + ``았/EP`` (0, 1) + ``다/EF`` (1, 2) has the one internal boundary ``{1}``.
"""

from __future__ import annotations

import bisect
import math
import re
from collections.abc import Callable, Collection, Iterable, Mapping, Sequence
from typing import Any

from ..jamo import S_BASE, S_LAST, compose

__all__ = [
    "fertility", "chars_per_token", "unk_rate", "whole_word_rate", "round_trip_rate", "throughput",
    "split_indices", "bytes_per_token", "continued_word_rate", "unrepresentable_char_rate", "renyi_efficiency",
    "word_spans", "internal_boundaries", "boundary_scores", "incomplete_hangul_rate", "jamo_token_rate",
    "probe_accuracy", "RENYI_ALPHA",
]

#: the Rényi order of :func:`renyi_efficiency`: 2.5, the best correlate of BLEU in Zouhar et al. 2023
#: (the ``tokenization-scorer`` package defaults to 3)
RENYI_ALPHA = 2.5


def _ratio(num: float, den: float) -> float:
    return num / den if den else math.nan


def fertility(*, n_tokens: int, n_words: int) -> float:
    """Tokens per word (words: white-space separated 어절 of the original text); lower is better."""
    return _ratio(n_tokens, n_words)


def chars_per_token(*, n_chars: int, n_tokens: int) -> float:
    """Characters of the original text per token; higher means more compression."""
    return _ratio(n_chars, n_tokens)


def unk_rate(encoded: Iterable[Sequence[int]], *, unk_ids: Collection[int]) -> float:
    """Share of all tokens whose id is in ``unk_ids``.

    >>> unk_rate([[1, 2], [3]], unk_ids={0})
    0.0
    """
    total = unknown = 0
    for ids in encoded:
        total += len(ids)
        unknown += sum(1 for i in ids if i in unk_ids)
    return _ratio(unknown, total)


def whole_word_rate(
    words_tokens: Iterable[Sequence[object]], *, ignore: Collection[object] = (), unk_ids: Collection[object] = ()
) -> float:
    """Share of words encoded as exactly one token (each item: the tokens of one word alone).

    Tokens in ``ignore`` do not count (e.g. a lone ``▁`` that only stands for the space before the
    word), and a word that comes out as a single unknown token (in ``unk_ids``) is not whole.

    >>> whole_word_rate([[1], [2, 3], [], [4]])
    0.5
    >>> whole_word_rate([[9, 1], [9, 0], [9, 2, 3]], ignore={9}, unk_ids={0})   # 9: the lone ▁
    0.3333333333333333
    """
    n = whole = 0
    for toks in words_tokens:
        n += 1
        kept = [t for t in toks if t not in ignore] if ignore else toks
        whole += len(kept) == 1 and kept[0] not in unk_ids
    return _ratio(whole, n)


def round_trip_rate(originals: Sequence[str], decoded: Sequence[str]) -> float:
    """Share of texts that decode back to exactly the original string."""
    if len(originals) != len(decoded):
        raise ValueError(f"originals and decoded must have the same length, got {len(originals)} and {len(decoded)}")
    return _ratio(sum(a == b for a, b in zip(originals, decoded)), len(originals))


def throughput(n_items: int, seconds: float) -> float:
    """Items per second (``inf`` for a time of zero with items; ``nan`` without items).

    >>> throughput(500, 0.25)
    2000.0
    """
    if n_items == 0:
        return math.nan
    return n_items / seconds if seconds > 0 else math.inf


def split_indices(n: int, *, test_fraction: float, seed: int) -> tuple[list[int], list[int]]:
    """Deterministic train/test split of ``range(n)``: ``round(n * test_fraction)`` test indices
    (at least 1 when ``n >= 2``), chosen by a seeded shuffle; both lists sorted.

    >>> split_indices(10, test_fraction=0.2, seed=0)
    ([0, 1, 2, 3, 4, 5, 6, 9], [7, 8])
    """
    import random

    if not 0 < test_fraction < 1:
        raise ValueError(f"test_fraction must be between 0 and 1 (exclusive), got {test_fraction!r}")
    if n < 2:
        raise ValueError(f"need at least 2 documents to hold some out, got {n}")
    order = list(range(n))
    random.Random(seed).shuffle(order)
    k = min(n - 1, max(1, round(n * test_fraction)))
    return sorted(order[k:]), sorted(order[:k])


def bytes_per_token(*, n_bytes: int, n_tokens: int) -> float:
    """UTF-8 bytes of the original text per token (a Hangul syllable is 3 bytes); higher = more compression.

    >>> bytes_per_token(n_bytes=len("영화 최고".encode()), n_tokens=2)   # 13 bytes, ['▁영화', '▁최고']
    6.5
    """
    return _ratio(n_bytes, n_tokens)


def continued_word_rate(tokens_per_word: Iterable[int]) -> float:
    """Share of 어절 occurrences cut into two or more tokens (each item: the tokens of one 어절).

    >>> continued_word_rate([1, 2, 1, 3])     # 영화 | 재밌 다 | 최고 | 정 말 요
    0.5
    """
    n = continued = 0
    for k in tokens_per_word:
        n += 1
        continued += k >= 2
    return _ratio(continued, n)


def unrepresentable_char_rate(char_counts: Mapping[str, int], *, known: Callable[[str], bool]) -> float:
    """Share of character occurrences that a strategy cannot represent at all: ``sum(count of c for
    c not known) / sum(count)``; ``known(c)`` says whether ``c`` alone encodes without ``<unk>``.

    >>> unrepresentable_char_rate({"영": 3, "화": 3, "😉": 2}, known=lambda c: c != "😉")
    0.25
    """
    total = bad = 0
    for ch, c in char_counts.items():
        total += c
        if not known(ch):
            bad += c
    return _ratio(bad, total)


def renyi_efficiency(
    counts: Mapping[Any, int] | Iterable[int], *, alpha: float = RENYI_ALPHA, vocab_size: int | None = None
) -> float:
    """Rényi efficiency of a unigram token distribution (Zouhar et al. 2023, "Tokenization and the
    Noiseless Channel"): ``H_a(p) / log |V|`` with ``H_a(p) = log(sum_i p_i^a) / (1 - a)`` and
    ``p_i`` the share of token type ``i`` among all tokens.

    ``alpha`` defaults to 2.5, the paper's best correlate of downstream BLEU (the
    ``tokenization-scorer`` package defaults to 3); ``alpha == 1`` is the Shannon limit
    ``-sum p log p``.  ``|V|`` is ``vocab_size`` (the whole vocabulary: types never used lower the
    efficiency), or the number of types observed when ``None``.  1.0 means every type is used
    equally often.  ``nan`` without tokens or when ``|V| <= 1``.

    >>> renyi_efficiency({"▁영화": 2, "▁최고": 2})              # uniform over the 2 types seen
    1.0
    >>> round(renyi_efficiency({"▁영화": 2, "▁최고": 2}, vocab_size=4), 6)   # log 2 / log 4
    0.5
    >>> round(renyi_efficiency([3, 1], alpha=2), 6)   # -log(0.75² + 0.25²) / log 2 = log2(1.6)
    0.678072
    """
    values = [int(c) for c in (counts.values() if isinstance(counts, Mapping) else counts)]
    if any(c < 0 for c in values):
        raise ValueError("counts must be non-negative token counts")
    values = [c for c in values if c]
    if vocab_size is not None and vocab_size < len(values):
        raise ValueError(f"vocab_size={vocab_size} is smaller than the {len(values)} token types counted: "
                         "pass the vocabulary's size, or None to use the types observed")
    size = len(values) if vocab_size is None else vocab_size
    total = sum(values)
    if not total or size <= 1:
        return math.nan
    if alpha < 0:
        raise ValueError(f"alpha must be >= 0, got {alpha!r}")
    ps = [c / total for c in values]
    if alpha == 1:
        entropy = -sum(p * math.log(p) for p in ps)
    else:
        entropy = math.log(sum(p ** alpha for p in ps)) / (1 - alpha)
    return entropy / math.log(size)


_WORD_RE = re.compile(r"\S+")


def word_spans(text: str) -> list[tuple[int, int]]:
    """The 어절 (white-space separated words) of ``text`` as ``(start, end)`` character spans.

    >>> word_spans(" 아이언맨은 최고")
    [(1, 6), (7, 9)]
    """
    return [m.span() for m in _WORD_RE.finditer(text)]


def internal_boundaries(
    spans: Iterable[tuple[int, int]], words: Sequence[tuple[int, int]]
) -> list[frozenset[int]]:
    """Per 어절 ``(s, e)`` of ``words``: the ends ``k`` of the given spans with ``s < k < e``.

    The spans are tokens or morphemes as character spans of the text (a token covering part of a
    character covers all of it).  Jamo tokens ``ᄀ ᅡ ᆻ`` + ``다`` of ``갔다`` all end at 1 or 2:

    >>> internal_boundaries([(0, 1), (0, 1), (0, 1), (1, 2)], [(0, 2)])
    [frozenset({1})]
    """
    ends = sorted({b for _, b in spans})
    out = []
    for s, e in words:
        lo = bisect.bisect_right(ends, s)
        hi = bisect.bisect_left(ends, e)
        out.append(frozenset(ends[lo:hi]))
    return out


def boundary_scores(
    predicted: Iterable[Collection[int]], gold: Iterable[Collection[int]]
) -> tuple[float, float, float]:
    """Micro-averaged ``(precision, recall, F1)`` of predicted boundary sets against gold ones, 어절
    by 어절: ``P = tp / |pred|``, ``R = tp / |gold|``, ``F1 = 2 tp / (|pred| + |gold|)`` (the
    harmonic mean of P and R, defined when either set is non-empty).

    >>> boundary_scores([{2}, {1, 2}], [{2}, {1}])      # tp 2, pred 3, gold 2
    (0.6666666666666666, 1.0, 0.8)
    """
    tp = n_pred = n_gold = 0
    pairs = 0
    for p, g in zip(predicted, gold, strict=True):
        pairs += 1
        p, g = set(p), set(g)
        tp += len(p & g)
        n_pred += len(p)
        n_gold += len(g)
    return _ratio(tp, n_pred), _ratio(tp, n_gold), _ratio(2 * tp, n_pred + n_gold)


def _hangul_fragments() -> tuple[frozenset[bytes], frozenset[bytes]]:
    """The proper prefixes and proper suffixes of the UTF-8 encodings of the 11,172 syllables."""
    heads, tails = set(), set()
    for cp in range(S_BASE, S_LAST + 1):
        b = chr(cp).encode("utf-8")
        heads.update((b[:1], b[:2]))
        tails.update((b[1:], b[2:]))
    return frozenset(heads), frozenset(tails)


_FRAGMENTS: tuple[frozenset[bytes], frozenset[bytes]] | None = None


def _is_continuation(byte: int) -> bool:
    return 0x80 <= byte <= 0xBF


def incomplete_hangul_rate(surfaces: Iterable[bytes]) -> float:
    """Share of vocabulary tokens whose bytes hold part of a Hangul syllable's UTF-8 encoding but
    not the whole: a token that ends inside a syllable (its last, unfinished sequence is the first
    one or two bytes of some syllable, ``EA B0`` of 가) or starts inside one (it opens with the last
    one or two bytes of some syllable: a run of one or two continuation bytes, which the tail of a
    syllable always can be).  Each token counts once.  Only byte-level vocabularies have such
    tokens; jamo tokens are whole code points (see :func:`jamo_token_rate`).

    >>> ga = "가".encode()                            # EA B0 80
    >>> incomplete_hangul_rate([ga, ga[:2], ga[2:] + "다".encode(), b"ab"])
    0.5
    """
    global _FRAGMENTS
    if _FRAGMENTS is None:
        _FRAGMENTS = _hangul_fragments()
    heads, tails = _FRAGMENTS
    n = cut = 0
    for b in surfaces:
        n += 1
        if not b:
            continue
        lead_run = 0
        while lead_run < len(b) and _is_continuation(b[lead_run]):
            lead_run += 1
        starts_inside = lead_run in (1, 2) and b[:lead_run] in tails
        # the last sequence: from the last non-continuation byte to the end
        i = len(b) - 1
        while i > 0 and _is_continuation(b[i]):
            i -= 1
        last = b[i:]
        ends_inside = not _is_continuation(b[i]) and len(last) < 3 and last in heads
        cut += starts_inside or ends_inside
    return _ratio(cut, n)


def _is_jamo(ch: str) -> bool:
    o = ord(ch)
    return 0x1100 <= o <= 0x11FF or 0xA960 <= o <= 0xA97F or 0xD7B0 <= o <= 0xD7FF


def jamo_token_rate(surfaces: Iterable[bytes]) -> float:
    """Share of vocabulary tokens holding conjoining jamo that do not compose into whole syllables
    (a jamo-unit token that is part of a syllable: ``ᅡᆫ``, or ``한ᄀ``).  A token whose jamo all
    compose (``ᄒ ᅡ ᆫ`` -> 한) does not count, nor do compatibility jamo typed as letters (ㅋㅋ, ㅠㅠ:
    whole symbols of their own, not parts of a syllable).  Bytes that do not decode are ignored.

    >>> jamo_token_rate(["한".encode(), "ᄒ ᅡ ᆫ".replace(" ", "").encode(), "ᅡᆫ".encode(), "ㅋㅋ".encode()])
    0.25
    """
    n = partial = 0
    for b in surfaces:
        n += 1
        text = compose(b.decode("utf-8", "ignore"))
        partial += any(_is_jamo(ch) for ch in text)
    return _ratio(partial, n)


def probe_accuracy(
    train_docs: Sequence[Sequence[int]],
    train_labels: Sequence[int],
    test_docs: Sequence[Sequence[int]],
    test_labels: Sequence[int],
    *,
    seed: int = 0,
) -> float:
    """Accuracy on ``test_docs`` of a logistic regression fitted on ``train_docs``, each document a
    bag of token-id counts: a quick extrinsic probe of how much a segmentation keeps of the label
    (NSMC's 0/1 sentiment).  scikit-learn's ``LogisticRegression`` (L2, C=1, liblinear: the same
    answers as lbfgs here, three times faster on sparse counts), ``seed`` fixed.
    Needs the ``eval`` extra.

    >>> train = [[1, 2], [1, 3], [4, 2], [4, 3]] * 5      # token 1 = positive, token 4 = negative
    >>> probe_accuracy(train, [1, 1, 0, 0] * 5, [[1], [4, 4, 2], [3, 1]], [1, 0, 1])
    1.0
    """
    from .._optional import require

    np = require("numpy", purpose="the probe")
    sparse = require("scipy.sparse", purpose="the probe")
    linear_model = require("sklearn.linear_model", purpose="the probe")
    if len(train_docs) != len(train_labels) or len(test_docs) != len(test_labels):
        raise ValueError(f"each document needs one label: got {len(train_docs)} training documents for "
                         f"{len(train_labels)} labels and {len(test_docs)} test documents for {len(test_labels)}")
    if not len(test_docs):
        return math.nan
    if len(set(train_labels)) < 2:
        raise ValueError("train_labels hold a single class: the probe needs at least two labels to tell apart")

    width = 1 + max((max(d) for d in (*train_docs, *test_docs) if len(d)), default=0)

    def matrix(docs: Sequence[Sequence[int]]) -> Any:
        lengths = np.fromiter((len(d) for d in docs), dtype=np.int64, count=len(docs))
        indptr = np.zeros(len(docs) + 1, dtype=np.int64)
        np.cumsum(lengths, out=indptr[1:])
        indices = np.fromiter((i for d in docs for i in d), dtype=np.int64, count=int(indptr[-1]))
        if indices.size and indices.min() < 0:
            raise ValueError("token ids must be non-negative ints")
        m = sparse.csr_matrix((np.ones(indices.size, dtype=np.float64), indices, indptr), shape=(len(docs), width))
        m.sum_duplicates()  # repeated tokens add up: a bag of counts
        return m

    model = linear_model.LogisticRegression(solver="liblinear", max_iter=2000, random_state=seed)
    model.fit(matrix(train_docs), np.asarray(train_labels))
    return float(model.score(matrix(test_docs), np.asarray(test_labels)))
