"""The textbook BPE loop, kept small and readable: it is the specification the fast engine is
tested against (same inputs, same tie rule, identical merges).

Each round counts every adjacent pair in every word (times the word's count), merges the best
pair (:func:`korean_bpe.trainer.ties.best_pair`) everywhere, and repeats.  Wikipedia's example,
one word ``aaabdaaabac`` with ids ``a=0 b=1 c=2 d=3``:

>>> merges = []
>>> def record(left, right, count):
...     merges.append((left, right, count))
...     return 4 + len(merges) - 1            # each merge result gets the next id: aa=4, ab=5, ...
>>> reference_engine([[0, 0, 0, 1, 3, 0, 0, 0, 1, 0, 2]], [1], next_id=4, on_merge=record)
>>> merges[:4]                                # a a (count 4), a b, aa ab, a c
[(0, 0, 4), (0, 1, 2), (4, 5, 2), (0, 2, 1)]

``(a, a)`` counts 4 because each ``aaa`` holds two overlapping ``a a`` windows; then ``a b`` and
``aa a`` tie at 2 and the smaller id pair ``(0, 1)`` wins.  Slow (every round rescans every word):
use :func:`korean_bpe.trainer.train_bpe` for real corpora.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Callable

from .ties import best_pair

__all__ = ["reference_engine", "count_pairs", "merge_word"]


def count_pairs(words: list[list[int]], counts: list[int]) -> Counter[tuple[int, int]]:
    """Adjacent-pair counts over all words, overlapping windows included:
    ``count_pairs([[7, 7, 7]], [2]) == {(7, 7): 4}``."""
    pairs: Counter[tuple[int, int]] = Counter()
    for word, count in zip(words, counts):
        for pair in zip(word, word[1:]):
            pairs[pair] += count
    return pairs


def merge_word(word: list[int], pair: tuple[int, int], new_id: int) -> list[int]:
    """Replace each occurrence of ``pair`` left to right, without overlap:
    ``merge_word([7, 7, 7], (7, 7), 9) == [9, 7]``."""
    out: list[int] = []
    i = 0
    while i < len(word):
        if i + 1 < len(word) and (word[i], word[i + 1]) == pair:
            out.append(new_id)
            i += 2
        else:
            out.append(word[i])
            i += 1
    return out


def reference_engine(
    words: list[list[int]], counts: list[int], *, next_id: int, on_merge: Callable[[int, int, int], int],
    max_token_length: int | None = None, symbol_lengths: dict[int, int] | None = None,
) -> None:
    """Merge until ``on_merge(left, right, count)`` returns -1 or no pair is left.

    ``on_merge`` returns the id of the merged token (the caller owns the vocabulary).  With
    ``max_token_length``, only pairs whose merged token spans at most that many symbols compete:
    each id below ``next_id`` (a symbol) has length 1 (or ``symbol_lengths[id]``), a merged token
    the sum of its two parts.

    >>> out = []
    >>> reference_engine([[0, 0, 0, 0]], [1], next_id=1, max_token_length=3,   # ㅋㅋㅋㅋ
    ...                  on_merge=lambda l, r, c: out.append((l, r, c)) or len(out))
    >>> out               # ㅋ ㅋ (3 windows), then ㅋㅋ ㅋㅋ would make 4 symbols: nothing else
    [(0, 0, 3)]
    """
    words = [list(w) for w in words]
    length: dict[int, int] = dict(symbol_lengths or {})  # merged tokens (and symbol_lengths); else 1
    while True:
        pairs = count_pairs(words, counts)
        if max_token_length is not None:
            pairs = Counter({p: c for p, c in pairs.items()
                             if length.get(p[0], 1) + length.get(p[1], 1) <= max_token_length})
        if not pairs:
            return
        pair = best_pair(pairs)
        new_id = on_merge(pair[0], pair[1], pairs[pair])
        if new_id < 0:
            return
        if new_id >= next_id and new_id not in length:
            length[new_id] = length.get(pair[0], 1) + length.get(pair[1], 1)
        words = [merge_word(w, pair, new_id) if pair[0] in w else w for w in words]
