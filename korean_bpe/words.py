"""The values of the compiled counting core (``korean_bpe/_counting.pyx``): counted words held in
its arena (:class:`CountedWords`) and their symbols as ids in flat arrays (:class:`SymbolCounts`,
which :func:`korean_bpe.trainer.train_bpe` trains on as they are), each read as the mapping the
plain-Python path gives.  :func:`korean_bpe.counting.count_words` and
:func:`korean_bpe.counting.split_words` are the public calls that make them; without the compiled
core (:func:`core` is None) they give plain dicts, the same items.

>>> c = word_counter()
>>> c is None or (c.update(["재밌다 진짜 재밌다"]), dict(CountedWords(c)))[1] == {"재밌다": 2, "진짜": 1}
True
"""

from __future__ import annotations

from collections.abc import Mapping
from types import ModuleType
from typing import Any

from ._optional import compiled

__all__ = ["split_ids", "SymbolCounts", "CountedWords", "word_counter", "core", "CORE"]

#: the compiled counting core's module (Cython -> C++, built at install time when possible)
CORE = "korean_bpe._counting"


def core() -> ModuleType | None:
    """The compiled counting core (:data:`CORE`), or None when it was not built or a test hides it."""
    return compiled(CORE)


class SymbolCounts(Mapping[tuple[str, ...], int]):
    """``{symbols: count}`` held as the compiled core's flat word table
    (``_counting.WordSymbols``: symbol ids in one int32 array, no tuple per word), which
    :func:`korean_bpe.trainer.train_bpe` trains on directly.  Read as a mapping, it is the dict
    :func:`korean_bpe.counting.split_words` gives (made on first read: words giving the same symbols added up).

    >>> sc = split_ids({"값이": 2, "값": 1}, unit="syllable", marker="</w>")   # None if not compiled
    >>> sc is None or sc == {('값', '이</w>'): 2, ('값</w>',): 1}
    True
    """

    __slots__ = ("words", "_dict")

    def __init__(self, words: Any) -> None:
        self.words = words
        self._dict: dict[tuple[str, ...], int] | None = None

    def _mapping(self) -> dict[tuple[str, ...], int]:
        if self._dict is None:
            self._dict = self.words.to_dict()
        return self._dict

    def __getitem__(self, key: tuple[str, ...]) -> int:
        return self._mapping()[key]

    def __iter__(self) -> Any:
        return iter(self._mapping())

    def __len__(self) -> int:
        return len(self._mapping())

    def items(self) -> Any:
        return self._mapping().items()

    def values(self) -> Any:
        return self._mapping().values()

    def __repr__(self) -> str:
        return repr(self._mapping())


class CountedWords(Mapping[str, int]):
    """``{word: count}`` held by the compiled counter (``_counting.WordCounter``: the distinct
    words' code points in one array, int64 counts), from which :func:`split_ids` reads the words
    without a Python string each.  Read as a mapping, it is the dict :func:`korean_bpe.counting.count_words` gives
    (made on first read).

    >>> c = word_counter()
    >>> c is None or (c.update(["재밌다 진짜 재밌다"]), CountedWords(c) == {"재밌다": 2, "진짜": 1})[1]
    True
    """

    __slots__ = ("counter", "_dict")

    def __init__(self, counter: Any) -> None:
        self.counter = counter
        self._dict: dict[str, int] | None = None

    def _mapping(self) -> dict[str, int]:
        if self._dict is None:
            self._dict = self.counter.to_dict()
        return self._dict

    def __getitem__(self, word: str) -> int:
        return self._mapping()[word]

    def __iter__(self) -> Any:
        return iter(self._mapping())

    def __len__(self) -> int:
        return len(self.counter)

    def items(self) -> Any:
        return self._mapping().items()

    def values(self) -> Any:
        return self._mapping().values()

    def clear(self) -> None:
        """Forget every word (the counter's memory is freed), as ``dict.clear``."""
        self.counter = type(self.counter)(self.counter.mode)
        self._dict = None

    def holds(self, chars: str) -> bool:
        """Whether some word holds one of ``chars`` (read from the counter's array)."""
        return bool(self.counter.holds(chars))

    def __repr__(self) -> str:
        return repr(self._mapping())


def word_counter(*, sentencepiece: bool = False) -> Any:
    """A compiled ``WordCounter`` (``update(texts)``, ``to_dict()``, ``split_ids(unit, marker)``)
    counting :func:`korean_bpe.counting.count_words`'s words, or ``None`` without the compiled core."""
    counting = core()
    if counting is None:
        return None
    return counting.WordCounter(counting.MODE_SENTENCEPIECE if sentencepiece else counting.MODE_WHITESPACE)


def split_ids(word_counts: Mapping[str, int], *, unit: str, marker: str | None,
              num_threads: int = 1) -> SymbolCounts | None:
    """:func:`korean_bpe.counting.split_words` for ``syllable`` and ``jamo`` straight to symbol ids
    (a :class:`SymbolCounts`), or ``None`` when the compiled core is not there, or when a count is
    not an int >= 1 or the sums would leave int64 (the dict path stays exact in Python ints).
    ``num_threads``: counted words (a :class:`CountedWords`) are cut on that many threads, the same
    table."""
    counting = core()
    if counting is None or unit not in ("syllable", "jamo"):
        return None
    if isinstance(word_counts, CountedWords):  # straight from the counter's array
        words = word_counts.counter.split_ids(unit, marker, num_threads)
    else:
        words = counting.split_ids(word_counts, unit, marker)
    return None if words is None else SymbolCounts(words)
