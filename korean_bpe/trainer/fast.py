"""The incremental BPE merge engine: distinct words as id lists in, merges out through a callback.

``merge_engine`` is the pure-Python engine; ``get_engine()`` returns the compiled one
(``korean_bpe/trainer/_merge.pyx``, Cython -> C++, built at install time) when it was built, else
``merge_engine``.  Both give the same merges, in the same order, with the same counts.

The rule, as in HF tokenizers' ``BpeTrainer``: pick the pair with the highest count (a word with
count ``c`` adds ``c`` for every adjacent position holding the pair, so ``ㅋ ㅋ ㅋ`` holds
``(ㅋ, ㅋ)`` twice); among equal counts the smaller ``(left_id, right_id)``.  Merge it in every
word, left to right, never overlapping (``ㅋ ㅋ ㅋ`` -> ``ㅋㅋ ㅋ``), and update only the pairs
around each merge site: for ``A B C D`` merging ``B C``, ``(A, B)`` and ``(C, D)`` lose the word's
count, ``(A, BC)`` and ``(BC, D)`` gain it.

>>> merges = []
>>> def record(left, right, count):
...     merges.append((left, right, count))
...     return 3 + len(merges) - 1       # ids 0..2 are ㅋ, ㅎ, !; new tokens take 3, 4, ...
>>> merge_engine([[0, 0, 0, 0, 0, 2], [1, 1, 0, 0]], [2, 5], next_id=3, on_merge=record)
>>> merges                      # ㅋㅋㅋㅋㅋ! x2, ㅎㅎㅋㅋ x5: (ㅋ,ㅋ) counts 4*2 + 1*5 = 13
[(0, 0, 13), (1, 1, 5), (4, 3, 5), (0, 2, 2), (3, 3, 2), (7, 6, 2)]
"""

from __future__ import annotations

import heapq
import logging
from collections.abc import Callable, Iterable, Mapping, Sequence
from typing import Any

from .._optional import compiled

__all__ = ["merge_engine", "get_engine", "compiled_available", "symbol_counts", "words_to_ids"]

#: the compiled engine's module (Cython -> C++, built at install time when possible)
CORE = "korean_bpe.trainer._merge"

logger = logging.getLogger(__name__)

OnMerge = Callable[[int, int, int], int]


def _check(words: Sequence[Sequence[int]], counts: Sequence[int], next_id: int) -> None:
    if len(words) != len(counts):
        raise ValueError(
            f"words and counts must have the same length, got {len(words)} words and {len(counts)} "
            "counts; pass one count per distinct word"
        )
    if not isinstance(next_id, int) or next_id < 0:
        raise ValueError(f"next_id must be an int >= 0 (the first free token id), got {next_id!r}")


def merge_engine(
    words: list[list[int]], counts: list[int], *, next_id: int, on_merge: OnMerge,
    max_token_length: int | None = None, symbol_lengths: dict[int, int] | None = None,
) -> None:
    """Run BPE merges over ``words`` (distinct words as symbol-id lists) weighted by ``counts``.

    For each best pair, calls ``on_merge(left_id, right_id, count)``; it returns the id of the
    merged token (a new id, or an existing one when the merged string is already a token) or
    ``-1`` to stop.  Stops by itself when no pair is left.  ``words`` is not modified.
    With ``max_token_length``, a pair competes only when its merged token spans at most that many
    symbols (an id below ``next_id`` counts 1, a merged token the sum of its parts); every pair is
    still counted exactly, so the choice is the reference engine's.  ``symbol_lengths``: the
    lengths of ids below ``next_id`` that are not 1 (continued training: an old merged token).

    >>> out = []
    >>> merge_engine([[0, 0, 0, 1, 2, 0, 0, 0, 1, 0, 3]], [1], next_id=4,   # aaabdaaabac
    ...              on_merge=lambda l, r, c: out.append((l, r, c)) or 3 + len(out))
    >>> out[:4]           # a a (4 positions), a b, aa ab, a c  (ids: a0 b1 d2 c3 aa4 ab5 aaab6)
    [(0, 0, 4), (0, 1, 2), (4, 5, 2), (0, 3, 1)]
    """
    _check(words, counts, next_id)
    ws = [list(w) for w in words]
    cs = [int(c) for c in counts]
    pair_counts: dict[tuple[int, int], int] = {}
    where: dict[tuple[int, int], set[int]] = {}
    for i, w in enumerate(ws):
        c = cs[i]
        if c <= 0:
            raise ValueError(f"counts must be positive, got {c} for word {i}; drop words that never occur")
        for p in zip(w, w[1:]):
            pair_counts[p] = pair_counts.get(p, 0) + c
            s = where.get(p)
            if s is None:
                where[p] = {i}
            else:
                s.add(i)
    limit = max_token_length
    length: dict[int, int] = dict(symbol_lengths or {})  # merged tokens (and symbol_lengths); else 1
    if limit is not None:
        _check_limit(limit)

    def fits(p: tuple[int, int]) -> bool:
        return limit is None or length.get(p[0], 1) + length.get(p[1], 1) <= limit

    heap = [(-c, p) for p, c in pair_counts.items() if c > 0 and fits(p)]
    heapq.heapify(heap)
    while heap:
        neg, pair = heapq.heappop(heap)
        cur = pair_counts.get(pair, 0)
        if -neg != cur:  # stale entry: requeue with the current count (HF's lazy update)
            if cur > 0:
                heapq.heappush(heap, (-cur, pair))
            continue
        if cur <= 0:
            break
        new = on_merge(pair[0], pair[1], cur)
        if new is None or new < 0:
            break
        a, b = pair
        if limit is not None and new >= next_id and new not in length:
            length[new] = length.get(a, 1) + length.get(b, 1)
        gained: set[tuple[int, int]] = set()
        for i in sorted(where.pop(pair, ())):
            w = ws[i]
            c = cs[i]
            j = 0
            out: list[int] = []
            n = len(w)
            while j < n:
                if j + 1 < n and w[j] == a and w[j + 1] == b:
                    _add(pair_counts, pair, -c)  # this occurrence goes
                    if out:  # A B C: (A, B) loses, (A, BC) gains
                        prev = out[-1]
                        _add(pair_counts, (prev, a), -c)
                        _add(pair_counts, (prev, new), c)
                        _gain(where, gained, (prev, new), i)
                    if j + 2 < n:  # B C D: (C, D) loses, (BC, D) gains
                        nxt = w[j + 2]
                        _add(pair_counts, (b, nxt), -c)
                        _add(pair_counts, (new, nxt), c)
                        _gain(where, gained, (new, nxt), i)
                    out.append(new)
                    j += 2
                else:
                    out.append(w[j])
                    j += 1
            ws[i] = out
        for p in sorted(gained):
            c = pair_counts.get(p, 0)
            if c > 0 and fits(p):
                heapq.heappush(heap, (-c, p))


def _check_limit(limit: Any) -> None:
    if not isinstance(limit, int) or isinstance(limit, bool) or limit < 1:
        raise ValueError(f"max_token_length must be None or an int >= 1, got {limit!r}")


def _add(d: dict[tuple[int, int], int], key: tuple[int, int], delta: int) -> None:
    v = d.get(key, 0) + delta
    if v:
        d[key] = v
    else:
        d.pop(key, None)


def _gain(where: dict[tuple[int, int], set[int]], gained: set[tuple[int, int]], p: tuple[int, int], i: int) -> None:
    s = where.get(p)
    if s is None:
        where[p] = {i}
    else:
        s.add(i)
    gained.add(p)


def compiled_available() -> bool:
    """True when the compiled engine (``korean_bpe/trainer/_merge.pyx``) was built and imports."""
    return compiled(CORE) is not None


_noted = False


def get_engine() -> Callable[..., None]:
    """The compiled merge engine when it was built, else ``merge_engine`` (same merges, slower;
    logs a one-line note the first time).

    >>> engine = get_engine()
    >>> out = []
    >>> engine([[0, 1, 0, 1]], [3], next_id=2, on_merge=lambda l, r, c: out.append((l, r, c)) or 1 + len(out))
    >>> out
    [(0, 1, 6), (2, 2, 3)]
    """
    global _noted
    core = compiled(CORE)
    if core is None:
        if not _noted:
            _noted = True
            logger.warning(
                "korean_bpe: compiled BPE engine not available (%s not built); using the pure-Python engine "
                "(same merges, slower). Reinstall with a C++ compiler to build it.", CORE,
            )
        return merge_engine
    return core.merge_engine  # type: ignore[no-any-return]


def words_to_ids(
    word_counts: Mapping[tuple[str, ...], int] | Iterable[tuple[Sequence[str], int]],
    symbol_to_id: dict[str, int],
    *,
    min_length: int = 1,
) -> tuple[list[list[int]], list[int]]:
    """``(words, counts)`` for the engine from ``{symbols: count}`` (or ``(symbols, count)`` pairs):
    each symbol replaced by its id, words shorter than ``min_length`` symbols left out.  Compiled
    when available; a symbol missing from ``symbol_to_id`` raises ``KeyError``.

    >>> words_to_ids({("값", "이"): 3, ("이",): 1}, {"값": 0, "이": 1})
    ([[0, 1], [1]], [3, 1])
    >>> words_to_ids({("값", "이"): 3, ("이",): 1}, {"값": 0, "이": 1}, min_length=2)
    ([[0, 1]], [3])
    """
    core = compiled(CORE)
    if core is not None:
        return core.words_to_ids(word_counts, symbol_to_id, min_length=min_length)  # type: ignore[no-any-return]
    items = word_counts.items() if isinstance(word_counts, Mapping) else word_counts
    get = symbol_to_id.__getitem__
    words: list[list[int]] = []
    counts: list[int] = []
    for symbols, count in items:
        if len(symbols) >= min_length:
            words.append(list(map(get, symbols)))
            counts.append(count)
    return words, counts


def symbol_counts(word_counts: Mapping[tuple[str, ...], int]) -> dict[str, int]:
    """``{symbol: count}``: how often each symbol occurs, each word weighted by its count, in
    first-seen order (the alphabet and ``limit_alphabet`` need it).

    >>> symbol_counts({("ᄏ", "ᄏ"): 3, ("ᄒ", "ᄏ"): 1})
    {'ᄏ': 7, 'ᄒ': 1}
    """
    core = compiled(CORE)
    if core is not None:
        return core.symbol_counts(word_counts)  # type: ignore[no-any-return]
    out: dict[str, int] = {}
    for symbols, count in word_counts.items():
        for s in symbols:
            out[s] = out.get(s, 0) + count
    return out
