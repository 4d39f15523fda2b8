"""SuperBPE (Liu et al., COLM 2025): whitespace-bounded BPE up to a transition size, then merges
across spaces ("superword" tokens such as ``'▁할▁수▁있'``), at most ``max_words`` words a token.

Two stages on the same line counts (the ``raw`` pieces with ``split_by_whitespace=False``: one
piece a line, every space a ``▁``):

1. **whitespace-bounded**: each line cut before every ``▁`` (exactly ``raw``'s words, counted
   once per line's count) trains ordinary BPE up to ``transition`` tokens
   (:func:`korean_bpe.trainer.train_bpe`);
2. **superwords**: the whole lines, segmented with the stage-1 merges, train on from there up to
   ``vocab_size`` (:func:`korean_bpe.trainer.continued.continue_bpe`: every stage-1 id and merge
   kept), the whitespace constraint lifted; no token holds more than ``max_words`` word starts
   (``▁``).

The word limit is the trainers' ``max_token_length`` with lengths that count words: each
starting token's length is ``1 + M * (its ▁ count)`` with ``M = 2**32``, lengths add up in a merge,
and the limit is ``max_words * M + M - 1``, so a token passes exactly when it holds at most
``max_words`` ``▁`` (any token spans fewer than ``M`` starting tokens).  Every engine (compiled,
pure Python, reference) counts pairs exactly as before, so stage 2 runs at our usual speed, and
its memory is the distinct lines' symbols, the size of the text's distinct lines: no n-gram table.
Under the ``byte`` unit the ``▁`` is three bytes; its lead byte (``â``, 0xE2) is what is counted,
so a token holding another character of U+2000..U+2FFF (``…``) counts it as a word too (a
stricter limit, never a looser one).

>>> from korean_bpe.units import get_unit
>>> lines = {"▁할▁수▁있다": 6, "▁할▁수▁없다": 4, "▁볼▁수▁있다": 3}
>>> import warnings
>>> with warnings.catch_warnings(record=True) as caught:
...     warnings.simplefilter("always")
...     model = train_superbpe(lines, get_unit("syllable"), vocab_size=24, transition=16, min_frequency=2,
...                            special_tokens=("<unk>",), max_words=2)
>>> (caught[0].message.asked, caught[0].message.actual)  # stage 1 ran out of pairs: it says so
(16, 15)
>>> model.merges[:7]                  # stage 1: inside a word (it runs out of pairs before 16 tokens)
(('▁', '수'), ('▁', '할'), ('▁', '있'), ('▁있', '다'), ('▁', '없'), ('▁없', '다'), ('▁', '볼'))
>>> model.merges[7:]                  # stage 2: across spaces, two ▁ at most ('▁할▁수▁있다' has three)
(('▁할', '▁수'), ('▁수', '▁있다'))
"""

from __future__ import annotations

import re
import warnings
from collections.abc import Iterator, Mapping, Sequence
from typing import Any

from ..markers import SPACE_MARK
from ..units import Unit
from .model import BPEModel

__all__ = ["train_superbpe", "stage_one_words", "word_lengths", "EarlyTransitionWarning"]

_M = 2**32
_BEFORE_SPACE = re.compile(f"(?={SPACE_MARK})")


class EarlyTransitionWarning(UserWarning):
    """The whitespace-bounded stage ran out of pairs before ``superword_transition``: merges cross
    spaces from ``actual`` tokens on, not from the ``asked`` transition (a small corpus)."""

    def __init__(self, message: str, *, asked: int, actual: int) -> None:
        super().__init__(message)
        self.asked, self.actual = asked, actual

    def __reduce__(self) -> tuple[Any, ...]:  # picklable (worker processes): keyword-only fields
        return (_early_transition, (self.args[0], self.asked, self.actual))


def _early_transition(message: str, asked: int, actual: int) -> EarlyTransitionWarning:
    return EarlyTransitionWarning(message, asked=asked, actual=actual)


def stage_one_words(line_counts: Mapping[str, int]) -> dict[str, int]:
    """The whitespace-bounded words of lines (``raw`` pieces without ``split_by_whitespace``):
    each line cut before every ``▁``, as ``raw`` cuts it, counted ``count`` times.

    >>> stage_one_words({"▁할▁수▁있다": 2, "▁수▁▁있다": 1})
    {'▁할': 2, '▁수': 3, '▁있다': 3, '▁': 1}
    """
    out: dict[str, int] = {}
    get = out.get
    for line, count in line_counts.items():
        for word in _BEFORE_SPACE.split(line):
            if word:
                out[word] = get(word, 0) + count
    return out


def word_lengths(unit: Unit, max_words: int) -> tuple[Any, int]:
    """``(token_length, limit)``: the lengths of :func:`continue_bpe`'s ``max_token_length`` that
    count words (see the module docstring).

    >>> from korean_bpe.units import get_unit
    >>> length, limit = word_lengths(get_unit("syllable"), 2)
    >>> [length(t) <= limit for t in ("▁할▁수", "▁할▁수▁있")]
    [True, False]
    """
    mark = unit.split(SPACE_MARK)[0]
    return (lambda token: 1 + _M * token.count(mark)), max_words * _M + _M - 1


class _LineSymbols(Mapping[tuple[str, ...], int]):
    """Lines as unit symbols, each made when read and dropped after (stage 2 keeps no table of
    symbol tuples: :func:`continue_bpe` only reads the items, once, to segment them)."""

    def __init__(self, line_counts: Mapping[str, int], unit: Unit) -> None:
        self._lines, self._split = line_counts, unit.split

    def __getitem__(self, key: tuple[str, ...]) -> int:
        raise KeyError(key)  # read by items() only

    def __iter__(self) -> Iterator[tuple[str, ...]]:
        return (tuple(self._split(line)) for line in self._lines)

    def __len__(self) -> int:
        return len(self._lines)

    def items(self) -> Iterator[tuple[tuple[str, ...], int]]:  # type: ignore[override]
        split = self._split
        return ((tuple(split(line)), count) for line, count in self._lines.items())


def train_superbpe(
    line_counts: Mapping[str, int], unit: Unit, *, vocab_size: int, transition: int, max_words: int | None,
    min_frequency: int, special_tokens: Sequence[str], limit_alphabet: int | None = None,
    initial_alphabet: Sequence[str] = (), show_progress: Any = None, on_merge: Any = None,
) -> BPEModel:
    """The two stages on ``line_counts`` (line -> count; see the module docstring): a model of
    ``vocab_size`` tokens whose first ``transition`` ids are the whitespace-bounded stage's."""
    from ..counting import split_words
    from . import train_bpe
    from .continued import continue_bpe

    if not isinstance(transition, int) or isinstance(transition, bool) or not 0 < transition <= vocab_size:
        raise ValueError(f"superword_transition must be an int in 1..vocab_size ({vocab_size}): the size at which "
                         f"merges may start crossing spaces, got {transition!r}")
    if max_words is not None and (not isinstance(max_words, int) or isinstance(max_words, bool) or max_words < 1):
        raise ValueError(f"superword_max_words must be None (no limit) or an int >= 1, got {max_words!r}")
    stage1 = train_bpe(split_words(stage_one_words(line_counts), unit, marker=None), vocab_size=transition,
                       min_frequency=min_frequency, special_tokens=special_tokens, limit_alphabet=limit_alphabet,
                       initial_alphabet=initial_alphabet, marker=None, show_progress=show_progress, on_merge=on_merge)
    if stage1.vocab_size < transition:
        warnings.warn(EarlyTransitionWarning(
            f"SuperBPE's whitespace-bounded stage ran out of pairs (min_frequency={min_frequency}) at "
            f"{stage1.vocab_size:,} tokens, before superword_transition={transition:,}: merges cross spaces from "
            f"{stage1.vocab_size:,} tokens on, not {transition:,}; more text, or a smaller superword_transition, "
            "gives the first stage its size", asked=transition, actual=stage1.vocab_size), stacklevel=2)
    length, limit = word_lengths(unit, max_words) if max_words is not None else (None, None)
    return continue_bpe(stage1, _LineSymbols(line_counts, unit), vocab_size=vocab_size,
                        min_frequency=min_frequency, show_progress=show_progress, on_merge=on_merge,
                        max_token_length=limit, token_length=length).model
