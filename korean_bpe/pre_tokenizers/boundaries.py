"""``morpheme_boundaries``: an analyzer's morphemes at training time only, plain text at encode time.

The training words are the words of a plain pre-tokenizer (``raw`` or ``whitespace``: the 어절),
each cut where the analyzer's lossless morphemes meet inside it, as Kiwi's ``bpe_trainer``,
SentencePiece's ``pretokenization_delimiter``, MorphBPE and EXAONE's tokenizer train: no merge
crosses a morpheme boundary inside an 어절.  The cut is written
:data:`~korean_bpe.markers.MORPHEME_CUT` (U+FFFF) inside the word; :func:`korean_bpe.counting.split_words`
cuts the marked symbols there.  Training then gives the tokenizer the plain pre-tokenizer
(:attr:`MorphemeBoundaries.base`, :func:`encoding_stage`), so the saved model, its
``tokenizer.json`` and every encode need no analyzer:

>>> from korean_bpe import Tokenizer
>>> pt = MorphemeBoundaries(analyzer="kiwi")
>>> [w.replace("\\uffff", "|") for w in pt("아이언맨은 최고의 영화다")]
['▁아이언맨|은', '▁최고|의', '▁영화|다']
>>> tok = Tokenizer.train(["아이언맨은 최고의 영화다", "아이언맨이 최고다"] * 4, vocab_size=40, pre_tokenizer=pt)
>>> tok.pre_tokenizer
RawPreTokenizer(split_by_whitespace=True, add_dummy_prefix=True)
>>> tok.tokenize("아이언맨은 최고다")
['▁아이언맨', '은', '▁최고', '다']

The text the encoder meets is the 어절 whole, so a merge learned inside one morpheme may still
apply where two morphemes meet (SentencePiece's encoder does the same); only training is cut.
A U+FFFF already in a text is dropped from its training words (it is no text: Unicode keeps it
for a program's own use); the encoder treats it as any unknown character.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from typing import Any

from ..markers import MORPHEME_CUT, SPACE_MARK
from .base import LINE_BREAKS, PRE_TOKENIZERS, BasePreTokenizer, PieceKind, PreTokenizer, get_pre_tokenizer
from .simple import restore_sentencepiece

__all__ = ["MorphemeBoundaries", "mark_boundaries", "encoding_stage", "MobPreTokenizer", "mob_pieces", "MOB_MARK"]


def mark_boundaries(text: str, morphemes: Sequence[str]) -> str:
    """``text`` with :data:`~korean_bpe.markers.MORPHEME_CUT` where two of ``morphemes`` (an
    analyzer's lossless pieces of ``text``: every character in order, spaces as ``▁``) meet
    between two characters that are not white space: inside an 어절.  A U+FFFF already in the text
    is dropped; morphemes that do not spell the text cut nothing.  SentencePiece's
    ``pretokenization_delimiter`` reads the same text.

    >>> mark_boundaries("영화를 봤다", ["영화", "를", "▁봤", "다"]).replace("\uffff", "|")
    '영화|를 봤|다'
    """
    if MORPHEME_CUT in text:
        text = text.replace(MORPHEME_CUT, "")
        morphemes = [m.replace(MORPHEME_CUT, "") for m in morphemes]
    if sum(map(len, morphemes)) != len(text):
        return text
    parts: list[str] = []
    at = 0
    for piece in morphemes:
        if at and piece and not _blank(text[at - 1]) and not _blank(text[at]):
            parts.append(MORPHEME_CUT)
        parts.append(text[at:at + len(piece)])
        at += len(piece)
    return "".join(parts)


def _blank(ch: str) -> bool:
    return ch.isspace() or ch == SPACE_MARK


@PRE_TOKENIZERS.register("morpheme_boundaries")
class MorphemeBoundaries(BasePreTokenizer):
    """The words of ``base`` (``"raw"``, default, or ``"whitespace"``) cut at the morpheme
    boundaries of ``analyzer`` (``"okt"``, ``"kiwi"``, ``"mecab"``, a config or an object; run in
    lossless mode): a training stage (see the module docstring).  ``restore`` drops the cuts and
    restores as ``base`` does.
    """

    name = "morpheme_boundaries"
    compiled_cut = None  # the words hold cuts: the compiled counter must not cut the text itself

    def __init__(self, *, analyzer: str | Mapping[str, Any] | PreTokenizer = "kiwi",
                 base: str | Mapping[str, Any] | PreTokenizer = "raw") -> None:
        self.base = get_pre_tokenizer(base)
        if self.base.name not in ("raw", "whitespace") or not getattr(self.base, "split_by_whitespace", True):
            raise ValueError(f"base={base!r} cannot be cut at morphemes: use 'raw' (split_by_whitespace=True) or "
                             "'whitespace', whose words are the 어절")
        if isinstance(analyzer, str):
            analyzer = {"type": analyzer, "lossless": True}
        self.analyzer = get_pre_tokenizer(analyzer)
        if self.analyzer.piece_kind != "marked" or not self.analyzer.lossless:
            raise ValueError(f"analyzer={analyzer!r} must give lossless morphemes (every character, spaces as ▁): "
                             f"use {{'type': {self.analyzer.name!r}, 'lossless': True}}")
        self.lossless = self.base.lossless
        self.add_dummy_prefix = self.base.add_dummy_prefix

    @property
    def piece_kind(self) -> PieceKind:
        return "marked" if self.base.piece_kind == "marked" else "words"

    def __call__(self, text: str) -> list[str]:
        return self.base(mark_boundaries(text, self.analyzer(text)))

    def batch(self, texts: Iterable[str], *, show_progress: bool | None = None) -> list[list[str]]:
        texts = list(texts)
        morphemes = self.analyzer.batch(texts, show_progress=show_progress)
        return self.base.batch([mark_boundaries(t, m) for t, m in zip(texts, morphemes)], show_progress=False)

    def restore(self, words: Sequence[str]) -> str:
        return self.base.restore([w.replace(MORPHEME_CUT, "") for w in words])

    def to_config(self) -> dict[str, Any]:
        return {"type": self.name, "analyzer": self.analyzer.to_config(), "base": self.base.to_config()}


def encoding_stage(pre_tokenizer: PreTokenizer) -> PreTokenizer:
    """The pre-tokenizer a tokenizer trained with ``pre_tokenizer`` encodes with: the ``base`` of
    a :class:`MorphemeBoundaries` (it cuts training words only), else ``pre_tokenizer`` itself."""
    return pre_tokenizer.base if isinstance(pre_tokenizer, MorphemeBoundaries) else pre_tokenizer


#: MoB's mark of a morpheme that continues an 어절 (U+2582 ``▂``; a new 어절 opens with ``▁``)
MOB_MARK = "\u2582"


def mob_pieces(morphemes: Sequence[str]) -> list[str]:
    """MoB's pieces (Lee et al., EACL 2026, "Morpheme Matters"): an analyzer's lossless morphemes
    (spaces as ``▁`` glued to the next one, line breaks pieces of their own), each marked by a
    prefix: ``▁`` for a morpheme that opens an 어절 (its own space, or a dummy ``▁`` at the start
    of a line, as ``raw``'s), :data:`MOB_MARK` for a morpheme that continues one.

    >>> mob_pieces(["아이언맨", "은", "▁올해", "▁최고", "의", "\\n", "굿"])
    ['▁아이언맨', '▂은', '▁올해', '▁최고', '▂의', '\\n', '▁굿']
    """
    out: list[str] = []
    line_start = True
    for piece in morphemes:
        if len(piece) == 1 and piece in LINE_BREAKS:
            out.append(piece)
            line_start = True
            continue
        out.append(SPACE_MARK + piece if line_start else piece if piece.startswith(SPACE_MARK) else MOB_MARK + piece)
        line_start = False
    return out


@PRE_TOKENIZERS.register("mob")
class MobPreTokenizer(BasePreTokenizer):
    """MoB (morpheme-boundary markers, Lee et al., EACL 2026): ``analyzer``'s lossless morphemes
    (``"mecab"``, default, as in the paper; ``"kiwi"``, ``"okt"``), each a word with its prefix
    mark (:func:`mob_pieces`).  Every morpheme is a training word of its own, so no merge takes a
    morpheme-initial right side (MoB's constraint) and our incremental trainer learns them at its
    usual speed; the mark itself merges into the morpheme's tokens (``'▂은'``).  The analyzer runs
    at encode time too.

    >>> mob = MobPreTokenizer()
    >>> mob("아이언맨은 최고의 영화다!!")
    ['▁아이언맨', '▂은', '▁최고', '▂의', '▁영화', '▂다', '▂!', '▂!']
    >>> mob.restore(mob("아이언맨은 최고의 영화다!!"))
    '아이언맨은 최고의 영화다!!'

    Lossless (``restore(pt(text)) == text``, so ``decode(encode(text)) == text`` with every unit) for
    every text without ``▁`` (U+2581, which comes back as a space, as in ``raw``) or ``▂``
    (U+2582: decode reads every one as a mark and drops it).
    """

    name = "mob"
    lossless = True
    add_dummy_prefix = True
    compiled_cut = None
    #: opens a piece and stands for no character (:func:`korean_bpe.encoding.offsets.word_places`)
    stand_in = MOB_MARK

    def __init__(self, *, analyzer: str | Mapping[str, Any] | PreTokenizer = "mecab") -> None:
        if isinstance(analyzer, str):
            analyzer = {"type": analyzer, "lossless": True}
        self.analyzer = get_pre_tokenizer(analyzer)
        if self.analyzer.piece_kind != "marked" or not self.analyzer.lossless or self.analyzer.name in ("raw", "mob"):
            raise ValueError(f"analyzer={analyzer!r} must be a morpheme analyzer in lossless mode: use "
                             "'mecab', 'kiwi' or 'okt'")
        self.analyzer_version = self.analyzer.analyzer_version
        self.pos = self.analyzer.pos

    @property
    def piece_kind(self) -> PieceKind:
        return "marked"

    def __call__(self, text: str) -> list[str]:
        return mob_pieces(self.analyzer(text))

    def batch(self, texts: Iterable[str], *, show_progress: bool | None = None) -> list[list[str]]:
        return [mob_pieces(m) for m in self.analyzer.batch(list(texts), show_progress=show_progress)]

    def restore(self, words: Sequence[str]) -> str:
        return restore_sentencepiece(["".join(words).replace(MOB_MARK, "")])

    def to_config(self) -> dict[str, Any]:
        return {"type": self.name, "analyzer": self.analyzer.to_config()}
