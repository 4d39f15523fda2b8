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
    from .pretok import _batch_cached, _build_pre_tokenizer

    pt = _build_pre_tokenizer(gold)
    # "fused": the spans of fused_spans (MeCab's inflected tokens cut), not those of an older cache
    got = _batch_cached(pt, texts, what="morpheme spans (fused)", compute=lambda ts: morpheme_spans(pt, ts))
    return [[(int(s), int(e)) for s, e in spans] for spans in got]  # read back from JSON: lists


def morpheme_spans(pt: Any, texts: list[str]) -> list[list[Span]]:
    """``(start, end)`` of every morpheme of each text (character offsets of the text, sorted,
    empty spans left out).  A Kiwi pre-tokenizer (``_morphemes_many``) gives its analyzer's own
    spans, overlapping morphemes kept apart; a MeCab one its tokens, an inflected token cut into
    its morphemes (:func:`fused_spans`); any other (Okt) its lossless pieces, which are its
    morphemes (:func:`piece_spans`)."""
    if not hasattr(pt, "_morphemes_many"):
        return [piece_spans(text, words, pt) for text, words in zip(texts, pt.batch(texts, show_progress=False))]
    from ..pre_tokenizers._sejong import _prepare  # the text as the analyzer sees it, and the offset map back

    prepared = [_prepare(t) for t in texts]
    todo = [i for i, t in enumerate(texts) if t]
    out: list[list[Span]] = [[] for _ in texts]
    if hasattr(pt, "_tokens"):  # MeCab: inflected tokens cut into their morphemes
        analyses: Any = ([(s + a, s + b) for s, e, _, expression in pt._tokens(prepared[i][0])
                          for a, b in fused_spans(prepared[i][0][s:e], _forms(expression))] for i in todo)
    else:
        analyses = ([(s, e) for s, e, _ in morphemes] for morphemes in pt._morphemes_many([prepared[i][0] for i in todo]))
    for i, spans in zip(todo, analyses):
        offsets = prepared[i][1]
        out[i] = sorted({(s, e) if offsets is None else (offsets[s], offsets[e]) for s, e in spans if s < e})
    return out


def _forms(expression: str) -> list[str]:
    """The morphemes' forms in a mecab-ko-dic expression: ``"하/VV/*+았었/EP/*"`` -> ``["하", "았었"]``."""
    return [part.split("/")[0] for part in expression.split("+")] if expression else []


def fused_spans(surface: str, forms: Sequence[str]) -> list[Span]:
    """The character spans in ``surface`` of the morphemes ``forms`` it fuses (their jamo aligned
    with its jamo, NFD, by ``difflib``): a morpheme ending inside a syllable ends with it, the last
    ends with the surface; ``[(0, len(surface))]`` without ``forms``.

    >>> fused_spans("했었", ["하", "았었"]), fused_spans("된다", ["되", "ᆫ다"])
    ([(0, 1), (0, 2)], [(0, 1), (0, 2)])
    >>> fused_spans("아닌가요", ["아니", "ᆫ가요"]), fused_spans("봐요", ["보", "아요"])
    ([(0, 2), (1, 4)], [(0, 1), (0, 2)])
    """
    import difflib
    import unicodedata

    if len(forms) < 2:
        return [(0, len(surface))] if surface else []
    chars = [unicodedata.normalize("NFD", ch) for ch in surface]
    first = [0]  # first[c]: the jamo position where character c starts
    for ch in chars:
        first.append(first[-1] + len(ch))
    target = "".join(chars)
    pieces = [unicodedata.normalize("NFD", f) for f in forms]
    source = "".join(pieces)
    blocks = difflib.SequenceMatcher(None, source, target, autojunk=False).get_opcodes()

    def to_target(x: int, *, end: bool) -> int:
        for tag, i1, i2, j1, j2 in blocks:
            if (i1 < x <= i2) if end else (i1 <= x < i2):
                return j1 + x - i1 if tag == "equal" else (j2 if end else j1)
        return len(target) if end else 0

    out: list[Span] = []
    at, last_end = 0, 0
    for k, piece in enumerate(pieces):
        start_j, end_j = to_target(at, end=False), to_target(at + len(piece), end=True)
        at += len(piece)
        end = len(surface) if k == len(pieces) - 1 else next(c for c in range(len(first)) if first[c] >= end_j)
        end = max(end, last_end, 1)
        start = min(max(c for c in range(len(first)) if first[c] <= start_j), end - 1)
        out.append((start, end))
        last_end = end
    return out


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
