"""The pure-Python encoder on ids: what :class:`korean_bpe.Tokenizer` runs when the compiled core
(``korean_bpe/encoding/_encode.pyx``) was not built.  Same ids as the compiled core and as
:mod:`korean_bpe.encoding.reference`, which says the same thing in strings.

``pairs`` maps ``(left_id, right_id)`` to ``(rank, new_id)``; ``-1`` is a symbol outside the
vocabulary, which never merges.
"""

from __future__ import annotations

import random
import sys
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

    >>> merge_dropout([0, 1, 0, 1], {(0, 1): (0, 5), (5, 5): (1, 6)}, 0.0, random.Random(0))
    [6]
    >>> merge_dropout([0, 1, 0, 1], {(0, 1): (0, 5), (5, 5): (1, 6)}, 1.0, random.Random(0))
    [0, 1, 0, 1]
    """
    get = pairs.get
    draw = rng.random
    while True:
        cands = sorted((r, i, new) for i, pair in enumerate(zip(ids, ids[1:])) if (m := get(pair)) is not None
                       for r, new in (m,))
        for _, i, new in cands:
            if draw() >= p:
                ids[i:i + 2] = [new]
                break
        else:
            return ids


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
