"""Where a word or a token sits in the text: the package's one definition.

:meth:`korean_bpe.Tokenizer.encode_with_offsets`, :mod:`korean_bpe.hf` (transformers' offsets and
alignment methods) and :mod:`korean_bpe.compare` (boundary metrics, segmentation examples) read
these functions; compare's vectorized counts are tested against them.

Three steps, each a small function:

1. :func:`find_in_order`: surfaces (an analyzer's morphemes) located in the text, left to right;
2. :func:`word_places`: each pre-tokenizer word with, for each of its characters, the index of the
   text character it stands for.  How follows the pre-tokenizer's ``piece_kind`` declaration:
   ``"marked"`` pieces keep every character in order, spaces written ``▁`` (``raw``, lossless
   morpheme mode), and a ``▁`` that opens a line when the stage declares ``add_dummy_prefix``
   stands for no character: it is aligned, as HF aligns the characters its normalizers insert,
   with the line's first character (text start) or the line break before it; other pieces
   (``whitespace``, analysis mode) are substrings found in order, with dropped text between them;
3. :func:`token_offsets`: each token's ``(start, end)``, from its first to its last character.
   A token inside a character (a jamo of a syllable, a byte of a character, a fallback piece) gets
   that character's span.  The ``▁`` *word marker* (``whitespace``, analysis mode) stands for the
   white-space character right before its word (``'▁정말'`` in ``'영화 정말'`` is ``(2, 5)``); for
   the first word, as HF's ``Prepend("▁")``, for the word's first character; after no white space
   (a morpheme glued to the one before) it is an empty span ``(i, i)`` where its word starts.

>>> from korean_bpe.pre_tokenizers import get_pre_tokenizer
>>> [w.places for w in word_places("영화  정말", ["영화", "정말"], get_pre_tokenizer("whitespace"))]
[[0, 1], [4, 5]]
>>> [w.places for w in word_places("영화 정말", ["▁영화", "▁정말"], get_pre_tokenizer("raw"))]
[[0, 0, 1], [2, 3, 4]]
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Iterator, Sequence
from functools import lru_cache
from typing import Any, Literal, NamedTuple

from ..markers import SPACE_MARK

__all__ = ["find_in_order", "word_places", "word_bases", "WordPlace", "symbol_chars", "token_offsets", "Segment", "View"]

#: how the characters that stand for no text character are spanned: ``"hf"`` as HF aligns what its
#: normalizers insert (the ``▁`` marker: the white space before its word; a dummy prefix: the
#: line's first character or the line break before it), ``"spelled"`` as nothing (an empty span
#: where the word's text starts): the characters a token spells, what compare's boundaries count
View = Literal["hf", "spelled"]

#: one word's segmentation: ``(ids, first symbol, end symbol)`` per merged token (several ids for a
#: fallback spelling), as :meth:`korean_bpe.encoding.encoder.Encoder.segment` gives it
Segment = list[tuple[list[int], int, int]]


def find_in_order(text: str, surfaces: Iterable[str]) -> list[tuple[int, int]]:
    """The span of each non-empty surface in ``text``, searched left to right.

    Raises ``ValueError`` when a surface is not found in order (the analyzer rewrote the text,
    e.g. Okt with ``norm=True``): callers that promise losslessness must not guess.

    >>> find_in_order("아이언맨은 올해", ["아이언맨", "은", "올해"])
    [(0, 4), (4, 5), (6, 8)]
    """
    spans: list[tuple[int, int]] = []
    cursor = 0
    for s in surfaces:
        if not s:
            continue
        i = text.find(s, cursor)
        if i < 0:
            raise ValueError(f"morpheme {s!r} not found in the text after offset {cursor}: the analyzer changed the surface")
        spans.append((i, i + len(s)))
        cursor = i + len(s)
    return spans


class WordPlace(NamedTuple):
    """Where one pre-tokenizer word sits in the text (see :func:`word_places`)."""

    word: str
    #: for each character of the word, the index of the text character it stands for
    places: list[int]
    #: the text index where the word starts (its first character that stands for one)
    start: int
    #: how many leading characters of the word stand for no text character (a dummy-prefix ``▁``;
    #: with ``strict=False``, every character of a word not found in the text)
    stand_ins: int


def word_places(text: str, words: Sequence[str], pre_tokenizer: Any, *, strict: bool = True) -> Iterator[WordPlace]:
    """Each word with, for each of its characters, its index in ``text``, and where the word
    starts (see the module docstring).  A word that is not the text is a ``ValueError``; with
    ``strict=False`` it stands for nothing (its characters sit where the search stopped)."""
    marked = pre_tokenizer.piece_kind == "marked"
    dummy = marked and pre_tokenizer.add_dummy_prefix
    stand_in = getattr(pre_tokenizer, "stand_in", None) if marked else None  # MoB's morpheme mark
    line_start = True
    cursor = 0
    n = len(text)
    for word in words:
        places: list[int] = []
        stand_ins = 0
        if marked:  # every character is kept, in order
            for k, ch in enumerate(word):
                if k == 0 and dummy and line_start and ch == SPACE_MARK:
                    places.append(cursor if cursor == 0 else cursor - 1)  # stands for no character
                    stand_ins = 1
                    continue
                if k == 0 and ch == stand_in:  # a mark that opens a piece and stands for no character
                    places.append(cursor)
                    stand_ins = 1
                    continue
                if cursor < n and (text[cursor] == ch or (ch == SPACE_MARK and text[cursor] == " ")):
                    places.append(cursor)
                    cursor += 1
                elif strict:
                    raise ValueError(_not_a_slice(pre_tokenizer, word, cursor))
                else:
                    places += [cursor] * (len(word) - k)
                    stand_ins = len(word)
                    break
            line_start = len(word) == 1 and word.splitlines() == [""]  # a line-break piece
            start = places[stand_ins] if len(places) > stand_ins and stand_ins < len(word) else cursor
        else:  # substrings, in order, with dropped characters between them
            at = text.find(word, cursor)
            if at < 0 and strict:
                raise ValueError(_not_a_slice(pre_tokenizer, word, cursor))
            if at < 0:
                places, stand_ins, start = [cursor] * len(word), len(word), cursor
            else:
                places = list(range(at, at + len(word)))
                cursor = start = at
                cursor += len(word)
        yield WordPlace(word, places, start, stand_ins)


def word_bases(text: str, words: Sequence[str], pre_tokenizer: Any) -> list[tuple[int, int]]:
    """:func:`word_places` in compact form, lenient (``strict=False``): ``(base, z)`` per word
    such that character ``i >= z`` of the word is ``text[base + i]`` and characters ``i < z``
    stand for nothing (they sit at ``base + z``).  :mod:`korean_bpe.compare` places words with it.

    >>> from korean_bpe.pre_tokenizers import get_pre_tokenizer
    >>> word_bases("영화 좋다", ["▁영화", "▁좋다"], get_pre_tokenizer("raw"))     # the first ▁: a dummy prefix
    [(-1, 1), (2, 0)]
    >>> word_bases("영화  좋다", ["영화", "▁▁좋", "다"], get_pre_tokenizer("kiwi", lossless=True))
    [(0, 0), (2, 0), (5, 0)]
    """
    out: list[tuple[int, int]] = []
    for place in word_places(text, words, pre_tokenizer, strict=False):
        z = place.stand_ins
        out.append((place.places[z] - z, z) if z < len(place.word) else (place.start - z, z))
    return out


def symbol_chars(word: str, split: Callable[[str], Sequence[str]], *, word_start: bool) -> list[int]:
    """For each marked symbol of ``word``, the index of the character it comes from; with a
    word-start symbol (``▁`` marker) index 0 is the marker and the characters count from 1.

    >>> symbol_chars("값이", lambda ch: ch, word_start=True)
    [0, 1, 2]
    >>> from korean_bpe.jamo import decompose
    >>> symbol_chars("값이", decompose, word_start=False)
    [0, 0, 0, 1, 1]
    """
    shift = 1 if word_start and word else 0
    out: list[int] = [0] * shift
    for c, ch in enumerate(word, shift):
        out += [c] * len(split(ch))
    return out


@lru_cache(maxsize=1 << 16)
def _symbol_chars(word: str, split: Callable[[str], Sequence[str]], word_start: bool) -> tuple[int, ...]:
    """:func:`symbol_chars`, remembered (the same words come back text after text)."""
    return tuple(symbol_chars(word, split, word_start=word_start))


def token_offsets(text: str, words: Sequence[str], *, pre_tokenizer: Any, unit: Any, marker: Any,
                  segment: Callable[[str], Segment], view: View = "hf",
                  strict: bool = True) -> tuple[list[int], list[tuple[int, int]]]:
    """``(ids, offsets)`` of ``text`` cut into ``words`` and each word by ``segment(word)``;
    ``view`` says how characters that stand for none are spanned (:data:`View`), ``strict``
    what a word that is not the text does (:func:`word_places`).

    >>> from korean_bpe import Tokenizer
    >>> tok = Tokenizer.train(["영화 정말 재밌다", "영화 진짜 최고"] * 3, vocab_size=30, unit="jamo")
    >>> tok.encode_with_offsets("영화 짱")[1]
    [(0, 2), (2, 3), (3, 4), (3, 4), (3, 4)]
    >>> token_offsets("영화 짱", ["영화", "짱"], pre_tokenizer=tok.pre_tokenizer, unit=tok.unit, marker=tok._mark,
    ...               segment=tok._encoder.segment, view="spelled")[1]     # the lone ▁ spells nothing
    [(0, 2), (3, 3), (3, 4), (3, 4), (3, 4)]
    """
    ids: list[int] = []
    offsets: list[tuple[int, int]] = []
    word_start = marker.word_start is not None
    for k, (word, places, start, stand_ins) in enumerate(word_places(text, words, pre_tokenizer, strict=strict)):
        if view == "hf":  # a stand-in is aligned with the character its place names
            spans = [(q, q + 1) for q in places]
        else:
            spans = [(start, start)] * stand_ins + [(q, q + 1) for q in places[stand_ins:]]
        if word_start:  # the ▁ marker stands for the white-space character right before the word
            if view == "spelled":
                spans.insert(0, (start, start))
            elif k == 0:  # HF's Prepend("▁"): aligned with the first character
                spans.insert(0, (start, start + 1))
            else:
                spans.insert(0, (start - 1, start) if text[start - 1].isspace() else (start, start))
        symbol_spans = [spans[c] for c in _symbol_chars(word, unit.split, word_start)]
        for tids, a, b in segment(word):
            full = [sp for sp in symbol_spans[a:b] if sp[0] < sp[1]]
            span = (full[0][0], full[-1][1]) if full else symbol_spans[a]
            ids += tids
            offsets += [span] * len(tids)
    return ids, offsets


def _not_a_slice(pre_tokenizer: Any, word: str, cursor: int) -> str:
    return (f"encode_with_offsets: the pre-tokenizer {pre_tokenizer!r} gave the word {word!r}, which is not the text "
            f"from offset {cursor} on; offsets need words cut out of the text (okt with norm=True or stem=True "
            "rewrites them: use norm=False, stem=False)")
