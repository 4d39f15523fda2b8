"""The gold standard of the morpheme-boundary metrics: the analyzer's morphemes, under the one rule
of :mod:`korean_bpe.compare.metrics`.

The rule, for every strategy and for the gold analyzer alike: the boundaries of a segmentation
are the ends of its spans strictly inside an 어절 (:func:`~korean_bpe.compare.metrics.internal_boundaries`).
The gold spans are the analyzer's *morphemes*, each with its own character span.  Kiwi gives the
morphemes of a contraction the span of the syllable they were fused into (했었다 is ``하/VV (0, 1)``,
``었었/EP (0, 2)``, ``다/EF (2, 3)``), so a contraction keeps the boundary at the end of that
syllable's span:

=========== ====================================================== ==========
어절         Kiwi's morphemes (start, end)                           gold
=========== ====================================================== ==========
했었다       하/VV (0, 1), 었었/EP (0, 2), 다/EF (2, 3)               {1, 2}
된다         되/VV (0, 1), ᆫ다/EF (0, 2)                              {1}
봐요         보/VV (0, 1), 어요/EF (0, 2)                             {1}
아닌가요     아니/VCN (0, 2), ᆫ가요/EF (1, 4)                         {2}
=========== ====================================================== ==========

(The lossless ``kiwi`` pre-tokenizer merges overlapping morphemes into one word, ``했었`` + ``다``,
``된다``: its words are what our ``kiwi`` BPE rows are trained on, not the gold.)

>>> gold_boundaries([[(0, 1), (0, 2), (2, 3), (4, 5), (4, 6)]], [metrics.word_spans("했었다 된다")])
[[frozenset({1, 2}), frozenset({5})]]

MeCab (mecab-ko-dic) gives an inflected token one span for all its morphemes and lists them in its
expression (``했었`` is ``하/VV + 았었/EP``); :func:`fused_spans` gives each morpheme the same kind
of span: the syllables its jamo fall in, aligned with the token's jamo (``difflib``), a morpheme
ending inside a syllable ending with that syllable, as Kiwi's spans do.  The same rule then gives
MeCab's morphemes (a compound noun, ``영화관`` = ``영화`` + ``관``, is one dictionary token, not split;
nor does Kiwi split it):

=========== ====================================================== ==========
어절         MeCab's tokens, and the morphemes of an inflected one    gold
=========== ====================================================== ==========
했었다       했었 = 하/VV + 았었/EP, 다/EC                            {1, 2}
된다         된다 = 되/VV + ᆫ다/EC                                    {1}
봐요         봐요 = 보/VV + 아요/EC                                   {1}
아닌가요     아닌가요 = 아니/VCN + ᆫ가요/EC                          {2}
=========== ====================================================== ==========

Kiwi and MeCab report each morpheme's offsets (:func:`morpheme_spans`); Okt does not, but its
morphemes are surfaces that never overlap, so the lossless ``okt`` pieces are its morphemes.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from ..units import SPACE_MARK
from . import metrics
from ..encoding.offsets import word_bases
from ..pre_tokenizers.mecab import fused_spans  # MeCab's inflected tokens cut there (re-exported)

__all__ = ["gold_spans", "morpheme_spans", "gold_boundaries", "piece_spans", "fused_spans"]

Span = tuple[int, int]


def gold_boundaries(spans: Sequence[Sequence[Span]], word_spans: Sequence[Sequence[Span]]) -> list[list[frozenset[int]]]:
    """Per text, per 어절 (``word_spans``): the ends of the morpheme ``spans`` strictly inside it."""
    return [metrics.internal_boundaries(s, w) for s, w in zip(spans, word_spans)]


def gold_spans(gold: str, texts: list[str]) -> list[list[Span]]:
    """The morpheme spans of analyzer ``gold`` (``"kiwi"``, ``"mecab"``, ``"okt"``) on ``texts``:
    :func:`morpheme_spans` of its lossless pre-tokenizer, kept in the analysis cache (a rerun on
    the same texts reads them back).  Raises the analyzer's ImportError / RuntimeError / OSError
    when it cannot run."""
    from .pretok import batch_cached, build_pre_tokenizer

    pt = build_pre_tokenizer(gold)
    # "fused": the spans of fused_spans (MeCab's inflected tokens cut), not those of an older cache
    got = batch_cached(pt, texts, what="morpheme spans (fused)", compute=lambda ts: morpheme_spans(pt, ts))
    return [[(int(s), int(e)) for s, e in spans] for spans in got]  # read back from JSON: lists


def morpheme_spans(pt: Any, texts: list[str]) -> list[list[Span]]:
    """``(start, end)`` of every morpheme of each text (character offsets of the text, sorted,
    empty spans left out).  A Kiwi or MeCab pre-tokenizer gives its analyzer's own spans
    (``morpheme_spans``: overlapping morphemes kept apart, MeCab's inflected tokens cut into their
    morphemes by :func:`~korean_bpe.pre_tokenizers.mecab.fused_spans`); any other (Okt) its
    lossless pieces, which are its morphemes (:func:`piece_spans`)."""
    if not hasattr(pt, "morpheme_spans"):
        return [piece_spans(text, words, pt) for text, words in zip(texts, pt.batch(texts, show_progress=False))]
    return pt.morpheme_spans(texts)  # type: ignore[no-any-return]


def piece_spans(text: str, pieces: Sequence[str], pre_tokenizer: Any) -> list[Span]:
    """The spans of lossless pieces in ``text``, each without the spaces its ``▁`` stand for.

    >>> from korean_bpe.pre_tokenizers import get_pre_tokenizer
    >>> piece_spans("아이언맨은 올해  봤다!!", ["아이언맨", "은", "▁올해", "▁▁봤", "다", "!!"],
    ...             get_pre_tokenizer("kiwi", lossless=True))
    [(0, 4), (4, 5), (6, 8), (10, 11), (11, 12), (12, 14)]
    """
    out = []
    for w, (base, z) in zip(pieces, word_bases(text, pieces, pre_tokenizer)):
        start = base + max(len(w) - len(w.lstrip(SPACE_MARK)), z)  # the morpheme, not the spaces before it
        if start < base + len(w):
            out.append((start, base + len(w)))
    return out
