"""Distinct words, counted and cut into symbols: the word counter and the word split that
:mod:`korean_bpe.counting` runs and :mod:`korean_bpe.trainer` trains on, compiled when the core
(``korean_bpe._fast_core``) was built, else plain Python (the same results).

It sits below both (the layer order of ``docs/API.md``): counting imports no module of the
trainer's, only its compiled core (whose package, ``korean_bpe.trainer``, imports nothing of counting).

>>> count_words(["재밌다 진짜 재밌다"])
{'재밌다': 2, '진짜': 1}
>>> split_words({"값이": 2}, marker="▁")
{('▁', '값', '이'): 2}
"""

from __future__ import annotations

import sys
from collections import Counter
from collections.abc import Callable, Iterable, Mapping
from typing import Any

__all__ = ["count_words", "split_words", "split_ids", "SymbolCounts", "CountedWords", "word_counter", "from_core"]


def count_words(
    texts: Iterable[str], *, into: dict[str, int] | None = None, sentencepiece: bool = False, num_threads: int = 1,
) -> dict[str, int]:
    """``{word: count}`` of the whitespace-separated words (``str.split()``) of ``texts``, in
    first-seen order: the same as ``dict(Counter(w for t in texts for w in t.split()))``, faster
    when compiled (a word becomes a Python string once, not at every occurrence).

    >>> count_words(["재밌다 진짜 재밌다", "진짜\t최고!"])
    {'재밌다': 2, '진짜': 2, '최고!': 1}

    ``sentencepiece=True`` counts the pieces of
    :func:`korean_bpe.pre_tokenizers.simple.sentencepiece_pieces` (the ``raw`` pre-tokenizer with
    its defaults) instead; ``into``: a dict to add the counts to (updated and returned).  Counts
    are Python ints in the result, exact however large the sums over many calls grow.
    ``num_threads``: the compiled counting reads that many slices of ``texts`` at once, the same
    dict whatever the number (the pure-Python loop is one thread).

    >>> count_words([" 두  칸", "칸"], sentencepiece=True, into={"▁칸": 2**40})
    {'▁칸': 1099511627778, '▁': 2, '▁두': 1}
    """
    if into is not None and type(into) is not dict:
        raise TypeError(f"into must be a dict, got {type(into).__name__}")
    compiled = from_core("count_words")
    if compiled is not None:
        return compiled(texts, into, 1 if sentencepiece else 0, num_threads)  # type: ignore[no-any-return]
    if sentencepiece:
        from .pre_tokenizers.simple import sentencepiece_pieces

        cut: Callable[[str], list[str]] = sentencepiece_pieces
    else:
        cut = str.split
    counts: Counter[str] = Counter()
    for t in texts:
        if not isinstance(t, str):
            raise TypeError(f"texts must hold str, got {type(t).__name__} {t!r}")
        counts.update(cut(t))
    if into is None:
        return dict(counts)
    for w, c in counts.items():
        into[w] = into.get(w, 0) + c
    return into


def split_words(
    word_counts: Mapping[str, int], *, unit: str = "syllable", marker: str | None = None
) -> dict[tuple[str, ...], int]:
    """``{symbols: count}`` from ``{word: count}``: each word split by ``unit`` (``"syllable"`` or
    ``"jamo"``; other units go through :func:`korean_bpe.units.get_unit`) with ``marker``
    attached (:func:`korean_bpe.units.apply_marker`); words giving the same symbols add up.
    Compiled for syllable and jamo; every symbol is one shared ``str`` object.

    >>> split_words({"값이": 2, "값": 1}, unit="jamo", marker="</w>") == {
    ...     ("ᄀ", "ᅡ", "ᆹ", "ᄋ", "ᅵ</w>"): 2, ("ᄀ", "ᅡ", "ᆹ</w>"): 1}
    True
    >>> split_words({"값이": 2}, marker="▁")
    {('▁', '값', '이'): 2}
    """
    from .markers import get_marker
    from .units import get_unit

    apply = get_marker(marker).apply
    compiled = from_core("split_words")
    if compiled is not None and unit in ("syllable", "jamo"):
        return compiled(word_counts, unit, marker)
    u = get_unit(unit)
    out: dict[tuple[str, ...], int] = {}
    for word, count in word_counts.items():
        if not isinstance(word, str):
            raise TypeError(f"word_counts keys must be str words, got {type(word).__name__} {word!r}")
        key = apply(u.split(word))
        out[key] = out.get(key, 0) + count
    return out


class SymbolCounts(Mapping[tuple[str, ...], int]):
    """``{symbols: count}`` held as the compiled core's flat word table
    (``_fast_core.WordSymbols``: symbol ids in one int32 array, no tuple per word), which
    :func:`korean_bpe.trainer.train_bpe` trains on directly.  Read as a mapping, it is the dict
    :func:`split_words` gives (made on first read: words giving the same symbols added up).

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
    """``{word: count}`` held by the compiled counter (``_fast_core.WordCounter``: the distinct
    words' code points in one array, int64 counts), from which :func:`split_ids` reads the words
    without a Python string each.  Read as a mapping, it is the dict :func:`count_words` gives
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
    counting :func:`count_words`'s words, or ``None`` without the compiled core."""
    compiled = from_core("WordCounter")
    return None if compiled is None else compiled(1 if sentencepiece else 0)


def split_ids(word_counts: Mapping[str, int], *, unit: str, marker: str | None,
              num_threads: int = 1) -> SymbolCounts | None:
    """:func:`split_words` for ``syllable`` and ``jamo`` straight to symbol ids (a
    :class:`SymbolCounts`), or ``None`` when the compiled core is not there, or when a count is
    not an int >= 1 or the sums would leave int64 (the dict path stays exact in Python ints).
    ``num_threads``: counted words (a :class:`CountedWords`) are cut on that many threads, the same
    table."""
    compiled = from_core("split_ids")
    if compiled is None or unit not in ("syllable", "jamo"):
        return None
    if isinstance(word_counts, CountedWords):  # straight from the counter's array
        words = word_counts.counter.split_ids(unit, marker, num_threads)
    else:
        words = compiled(word_counts, unit, marker)
    return None if words is None else SymbolCounts(words)


def from_core(name: str) -> Callable[..., Any] | None:
    """The compiled core's function or class ``name`` (``korean_bpe._fast_core``), or
    None when the core was not built (or a test hides it); the trainer's engine reads it here too."""
    try:
        from . import _fast_core
    except ImportError:
        return None
    if sys.modules.get("korean_bpe._fast_core") is None:  # hidden (tests) or never loaded
        return None
    return getattr(_fast_core, name, None)
