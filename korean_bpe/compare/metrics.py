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
"""

from __future__ import annotations

import math
from collections.abc import Collection, Iterable, Sequence

__all__ = [
    "fertility", "chars_per_token", "unk_rate", "whole_word_rate", "round_trip_rate", "throughput",
    "split_indices",
]


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
