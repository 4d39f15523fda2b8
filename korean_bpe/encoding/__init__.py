"""Encoding: the merges applied to words, three ways that give the same ids.

* :mod:`~korean_bpe.encoding.reference`: the readable encoder (strings, merges by rank), the spec;
* :mod:`~korean_bpe.encoding.pure`: the pure-Python encoder on ids, used without a compiler;
* ``_encode.pyx``: the compiled core (:class:`MergeTable`), built at install time when possible.

Which path a :class:`korean_bpe.Tokenizer` takes follows from what its stages declare
(:func:`plan`), not from their classes, so a stage of your own gets the fast path by saying
what it can do:

* a unit's ``compiled_symbols``: how the compiled core can cut a word into the unit's symbols,
  ``"chars"`` (one symbol a character: ``syllable``), ``"jamo"`` (Hangul syllables as conjoining
  jamo by the Unicode arithmetic, anything else one character: ``jamo``), ``"bytes"`` (the UTF-8
  bytes, byte ``b`` written ``unit.initial_alphabet[b]``: ``byte``), or ``None`` (only
  ``unit.split`` knows: the core then merges what Python cut);
* a pre-tokenizer's ``compiled_cut``: ``"whitespace"`` when its pieces are exactly
  ``text.split()`` (``whitespace``), ``"sentencepiece"`` when they are SentencePiece's: a piece at
  every space, each opening with ``▁``, line breaks apart (``raw``'s default); the core then cuts
  the text itself, in the same loop; ``None``: ``pre_tokenizer.batch`` cuts it.

>>> from korean_bpe.pre_tokenizers import get_pre_tokenizer
>>> from korean_bpe.units import get_unit
>>> plan(get_pre_tokenizer("whitespace"), get_unit("jamo"), "▁", {"▁": 0}, compiled=True)
EncodePlan(symbols='jamo', fused=True, prefix_id=0, cut='whitespace', space_id=-1)
>>> plan(get_pre_tokenizer("raw"), get_unit("syllable"), None, {"▁": 3}, compiled=True)
EncodePlan(symbols='chars', fused=True, prefix_id=-1, cut='sentencepiece', space_id=3)
>>> plan(get_pre_tokenizer("raw"), get_unit("byte"), None, {}, compiled=True)
EncodePlan(symbols='bytes', fused=False, prefix_id=-1, cut=None, space_id=-1)
>>> plan(get_pre_tokenizer("whitespace"), get_unit("syllable"), "</w>", {}, compiled=True)
EncodePlan(symbols=None, fused=False, prefix_id=-1, cut=None, space_id=-1)
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any, NamedTuple

from ..markers import SPACE_MARK, Marker, get_marker
from .pure import NO_MERGE, WordCache, merge_dropout, merge_ids
from .reference import bpe_encode

try:  # the compiled core (korean_bpe/encoding/_encode.pyx), built at install time when possible
    from ._encode import MergeTable
except ImportError:  # pragma: no cover - depends on the build
    MergeTable = None

__all__ = ["EncodePlan", "plan", "SYMBOL_MODES", "MergeTable", "bpe_encode", "merge_ids", "merge_dropout",
           "WordCache", "NO_MERGE"]

#: the values of a unit's ``compiled_symbols`` the compiled core understands
SYMBOL_MODES = ("chars", "jamo", "bytes")


class EncodePlan(NamedTuple):
    """How a tokenizer encodes, from :func:`plan`."""

    #: how the compiled core cuts words into symbols (:data:`SYMBOL_MODES`), or None: in Python
    symbols: str | None
    #: the compiled core also cuts the text (``cut`` says how)
    fused: bool
    #: the id of the ``▁`` word-start symbol the core puts before each word (-1: none)
    prefix_id: int
    #: how the core cuts the text: ``"whitespace"`` (``str.split()``), ``"sentencepiece"`` (a piece
    #: at every space, each opening with the ``▁`` of id ``space_id``; line breaks apart), or None
    cut: str | None = None
    #: the id of the ``▁`` that opens each piece of the ``"sentencepiece"`` cut (-1: none)
    space_id: int = -1


def plan(pre_tokenizer: Any, unit: Any, marker: str | None | Marker, vocab: Mapping[str, int], *,
         compiled: bool) -> EncodePlan:
    """The encoding path from the stages' declarations (see the module docstring).

    The compiled core cuts words itself when the core is built (``compiled``), the unit declares
    a :data:`SYMBOL_MODES` value, and the marker (a string or a :mod:`korean_bpe.markers` object)
    glues nothing to the symbols (``glued``: ``</w>`` and ``##`` change the symbols' text, so
    Python cuts those words) and its ``word_start`` symbol, if any (``▁``), is in the vocabulary.
    It cuts the text too when the pre-tokenizer declares a ``compiled_cut`` it knows:
    ``"whitespace"``, or ``"sentencepiece"`` when ``▁`` is one symbol of the unit, in the vocabulary.
    """
    mark = get_marker(marker)
    start = mark.word_start
    symbols = unit.compiled_symbols if compiled else None
    if symbols not in SYMBOL_MODES or mark.glued or (start is not None and start not in vocab):
        return EncodePlan(None, False, -1)
    prefix = -1 if start is None else vocab[start]
    cut = pre_tokenizer.compiled_cut
    if cut == "whitespace":
        return EncodePlan(symbols, True, prefix, cut)
    if cut == "sentencepiece" and start is None and unit.split(SPACE_MARK) == (SPACE_MARK,) and SPACE_MARK in vocab:
        return EncodePlan(symbols, True, prefix, cut, vocab[SPACE_MARK])
    return EncodePlan(symbols, False, prefix)
