"""The pure-Python encoder on ids: what :class:`korean_bpe.Tokenizer` runs when the compiled core
(``korean_bpe/encoding/_encode.pyx``) was not built.  Same ids as the compiled core and as
:mod:`korean_bpe.encoding.reference`, which says the same thing in strings.

``pairs`` maps ``(left_id, right_id)`` to ``(rank, new_id)``; ``-1`` is a symbol outside the
vocabulary, which never merges.
"""

from __future__ import annotations

import random
import sys
from heapq import heapify, heappop, heappush
from collections.abc import Callable, Mapping
from itertools import repeat

__all__ = ["merge_ids", "merge_dropout", "WordCache", "NO_MERGE"]

#: the rank of a pair that is not a merge: above every real rank
NO_MERGE = (sys.maxsize, -1)


def merge_ids(ids: list[int], pairs: Mapping[tuple[int, int], tuple[int, int]]) -> list[int]:
    """Apply merges to symbol ids: lowest rank first, leftmost first among equal ranks (HF's
    ``merge_all``); ``-1`` never merges.  The compiled ``MergeTable.merge_ids`` does the same.

    >>> merge_ids([0, 1, 0, 1], {(0, 1): (0, 5), (5, 5): (1, 6)})
    [6]
    """
    get = pairs.get
    ranks = list(map(get, zip(ids, ids[1:]), repeat(NO_MERGE)))
    while ranks:
        best = min(ranks)  # (rank, new_id): equal ranks are the same pair, so index() is leftmost
        if best[1] < 0:
            break
        i = ranks.index(best)
        new = best[1]
        ids[i] = new
        del ids[i + 1]
        del ranks[i]
        if i:
            ranks[i - 1] = get((ids[i - 1], new), NO_MERGE)
        if i < len(ranks):
            ranks[i] = get((new, ids[i + 1]), NO_MERGE)
    return ids


def merge_dropout(ids: list[int], pairs: Mapping[tuple[int, int], tuple[int, int]], p: float,
                  rng: random.Random) -> list[int]:
    """BPE-dropout (Provilkov et al. 2020) as HF ``tokenizers`` applies it: at each step the
    candidate merges are taken lowest rank first (leftmost first among equal ranks), each skipped
    with probability ``p`` (one ``rng.random() < p`` draw per candidate tried); the first one not
    skipped is applied; when every candidate is skipped the word is done.  ``p=1``: no merge.

    A heap of candidates (HF's ``Word::merge_all``), so a word of ``n`` symbols takes
    ``O(n log n)``, not a rescan of every pair per merge: a skipped candidate waits aside and goes
    back into the heap after the next applied merge; an entry that an earlier merge made stale (its
    pair is gone) is dropped without a draw, so the draws are exactly one per live candidate tried.

    >>> merge_dropout([0, 1, 0, 1], {(0, 1): (0, 5), (5, 5): (1, 6)}, 0.0, random.Random(0))
    [6]
    >>> merge_dropout([0, 1, 0, 1], {(0, 1): (0, 5), (5, 5): (1, 6)}, 1.0, random.Random(0))
    [0, 1, 0, 1]
    """
    n = len(ids)
    if n < 2:
        return ids
    get = pairs.get
    draw = rng.random
    sym = ids[:]  # sym[i]: the symbol starting at position i (dead positions keep a stale id)
    nxt = list(range(1, n + 1))
    nxt[-1] = -1
    prv = list(range(-1, n - 1))
    # (rank, position, new_id): positions only grow left to right, so the heap order is the order
    # of the candidates in the current word
    heap = [(m[0], i, m[1]) for i, pair in enumerate(zip(ids, ids[1:])) if (m := get(pair)) is not None]
    heapify(heap)
    skipped: list[tuple[int, int, int]] = []
    while heap:
        top = heappop(heap)
        rank, i, new = top
        j = nxt[i]
        if j < 0 or sym[i] < 0 or get((sym[i], sym[j])) != (rank, new):
            continue  # stale: the pair at i was merged or changed since this entry was pushed
        if heap and heap[0] == top:
            continue  # the same live pair pushed twice: try it once
        if draw() < p:
            skipped.append(top)
            continue
        for entry in skipped:  # skipped for that step only
            heappush(heap, entry)
        skipped.clear()
        sym[i] = new
        sym[j] = -1  # dead
        k = nxt[i] = nxt[j]
        if k >= 0:
            prv[k] = i
            if (m := get((new, sym[k]))) is not None:
                heappush(heap, (m[0], i, m[1]))
        h = prv[i]
        if h >= 0 and (m := get((sym[h], new))) is not None:
            heappush(heap, (m[0], h, m[1]))
    out = []
    i = 0
    while i >= 0:
        out.append(sym[i])
        i = nxt[i]
    return out


class WordCache(dict):  # type: ignore[type-arg]
    """word -> tuple of ids; a miss segments the word with ``encode_word``.  Emptied when it
    reaches ``maxsize``."""

    __slots__ = ("encode_word", "maxsize")

    def __init__(self, encode_word: Callable[[str], tuple[int, ...]], maxsize: int) -> None:
        super().__init__()
        self.encode_word = encode_word
        self.maxsize = maxsize

    def __missing__(self, word: str) -> tuple[int, ...]:
        ids = self.encode_word(word)
        if len(self) >= self.maxsize:
            self.clear()
        self[word] = ids
        return ids
