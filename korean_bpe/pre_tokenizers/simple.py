"""The two pre-tokenizers that need no analyzer: ``raw`` and ``whitespace``."""

from __future__ import annotations

import re
from collections.abc import Iterable, Sequence
from typing import Any

from ..units import SPACE_MARK
from .base import LINE_BREAKS, PRE_TOKENIZERS, BasePreTokenizer, CompiledCut, raw_pieces, restore_marked

__all__ = ["RawPreTokenizer", "WhitespacePreTokenizer", "sentencepiece_pieces", "restore_sentencepiece"]

_LINE_BREAK_SPLIT = re.compile(f"([{re.escape(LINE_BREAKS)}])").split
#: the dummy prefix: a ``▁`` at the start of the text or right after a line break
_DUMMY_PREFIX = re.compile(f"(?:\\A|(?<=[{re.escape(LINE_BREAKS)}])){SPACE_MARK}")


def sentencepiece_pieces(text: str, *, split_by_whitespace: bool = True, add_dummy_prefix: bool = True) -> list[str]:
    """Cut ``text`` as SentencePiece does before BPE, spaces written ``▁``; each line break a piece.

    Each line (text between line breaks) that is not empty gets a ``▁`` in front
    (``add_dummy_prefix``), every space becomes ``▁``, and with ``split_by_whitespace`` a new piece
    starts at every ``▁``: one piece a word, a run of n spaces gives n - 1 pieces ``'▁'`` before the
    next word, as SentencePiece's ``SplitIntoWords`` (``allow_whitespace_only_pieces=false``).

    >>> sentencepiece_pieces("아이언맨 또 보고")
    ['▁아이언맨', '▁또', '▁보고']
    >>> sentencepiece_pieces(" 두  칸\\n굿 ")
    ['▁', '▁두', '▁', '▁칸', '\\n', '▁굿', '▁']
    >>> sentencepiece_pieces("아이언맨 또 보고", split_by_whitespace=False)
    ['▁아이언맨▁또▁보고']

    A ``▁`` already in the text is a space like any other (it comes back as one).
    """
    if SPACE_MARK in text:
        text = text.replace(SPACE_MARK, " ")
    if text.isprintable():  # no line break (every one is unprintable): one line, the usual case
        return _line_pieces(text, split_by_whitespace, add_dummy_prefix) if text else []
    out: list[str] = []
    for k, part in enumerate(_LINE_BREAK_SPLIT(text)):  # line, break, line, break, ..., line
        if k & 1:
            out.append(part)
        elif part:
            out += _line_pieces(part, split_by_whitespace, add_dummy_prefix)
    return out


def _line_pieces(line: str, split_by_whitespace: bool, add_dummy_prefix: bool) -> list[str]:
    """The pieces of one non-empty line (no line break, no ``▁``)."""
    if split_by_whitespace:  # "a  b" -> "a ▁ ▁b" -> split at the spaces
        if add_dummy_prefix:
            return (SPACE_MARK + line.replace(" ", " " + SPACE_MARK)).split(" ")
        pieces = line.replace(" ", " " + SPACE_MARK).split(" ")
        return pieces if pieces[0] else pieces[1:]
    marked = line.replace(" ", SPACE_MARK)
    return [SPACE_MARK + marked if add_dummy_prefix else marked]


def restore_sentencepiece(words: Sequence[str], *, add_dummy_prefix: bool = True) -> str:
    """Inverse of :func:`sentencepiece_pieces`: concatenate, drop each dummy prefix (the ``▁``
    opening the text or following a line break), then ``▁`` -> space, as SentencePiece decodes.

    >>> restore_sentencepiece(['▁', '▁두', '▁', '▁칸', '\\n', '▁굿', '▁'])
    ' 두  칸\\n굿 '
    """
    text = "".join(words)
    if add_dummy_prefix:
        text = _DUMMY_PREFIX.sub("", text)
    return text.replace(SPACE_MARK, " ")


@PRE_TOKENIZERS.register("raw")
class RawPreTokenizer(BasePreTokenizer):
    """SentencePiece style: every space kept as ``▁``, one piece a white-space-delimited word,
    each starting with ``▁``, so no merge crosses a space.

    >>> RawPreTokenizer()("어제 IMAX 봤는데  ㅋㅋ")
    ['▁어제', '▁IMAX', '▁봤는데', '▁', '▁ㅋㅋ']

    Options, named as SentencePiece's (its defaults, except that SentencePiece
    also splits where the Unicode script or digits change, which we leave to BPE):

    * ``split_by_whitespace=True``: a new piece at every space.  ``False`` keeps each line one
      piece, so merges may cross spaces into "superword" tokens (``'▁또▁보고'``; SuperBPE-style).
    * ``add_dummy_prefix=True``: a ``▁`` before each non-empty line, so that the first word is
      cut like the others (``'▁어제'``, not ``'어제'``); ``restore`` drops it again.

    >>> RawPreTokenizer(split_by_whitespace=False)("어제 IMAX 봤는데")
    ['▁어제▁IMAX▁봤는데']

    Only U+0020 is a word boundary, as in SentencePiece: a tab or U+3000 is an ordinary character
    of its word.  Each line break is a piece of its own (so no token holds one) and each line gets
    its own dummy prefix.  Lossless for every text that does not itself contain ``▁`` (U+2581),
    which comes back as a space (as in SentencePiece): ``restore(pt(text)) == text``, runs of
    spaces and leading and trailing spaces included.

    Models saved before these options existed (``{"type": "raw"}`` in a ``format_version`` 1
    file) load as ``RawPreTokenizer(split_by_whitespace=False, add_dummy_prefix=False)``, which
    cuts exactly as they were trained: whole lines, no dummy prefix.
    """

    name = "raw"
    lossless = True

    def __init__(self, *, split_by_whitespace: bool = True, add_dummy_prefix: bool = True) -> None:
        for key, value in (("split_by_whitespace", split_by_whitespace), ("add_dummy_prefix", add_dummy_prefix)):
            if not isinstance(value, bool):
                raise TypeError(f"{key} must be True or False, got {value!r}")
        self.split_by_whitespace = split_by_whitespace
        self.add_dummy_prefix = add_dummy_prefix

    @property
    def compiled_cut(self) -> CompiledCut:
        """``"sentencepiece"`` with the default options: the compiled encoder then cuts the text
        itself, as :func:`sentencepiece_pieces` does (see :func:`korean_bpe.encoding.plan`)."""
        return "sentencepiece" if self.split_by_whitespace and self.add_dummy_prefix else None

    def __call__(self, text: str) -> list[str]:
        if not self.split_by_whitespace and not self.add_dummy_prefix:
            return raw_pieces(text)
        return sentencepiece_pieces(text, split_by_whitespace=self.split_by_whitespace,
                                    add_dummy_prefix=self.add_dummy_prefix)

    def batch(self, texts: Iterable[str], *, show_progress: bool | None = None) -> list[list[str]]:
        split, dummy = self.split_by_whitespace, self.add_dummy_prefix
        if not split and not dummy:
            return [raw_pieces(t) for t in texts]
        return [sentencepiece_pieces(t, split_by_whitespace=split, add_dummy_prefix=dummy) for t in texts]

    def restore(self, words: Sequence[str]) -> str:
        if self.add_dummy_prefix:
            return restore_sentencepiece(words)
        return restore_marked(words)

    def to_config(self) -> dict[str, Any]:
        return {"type": self.name, "split_by_whitespace": self.split_by_whitespace,
                "add_dummy_prefix": self.add_dummy_prefix}


@PRE_TOKENIZERS.register("whitespace")
class WhitespacePreTokenizer(BasePreTokenizer):
    """어절 (space-separated word) split: ``str.split()``.

    >>> WhitespacePreTokenizer()("스파이더맨 파프롬홈은  MCU 최고의 영화이다")
    ['스파이더맨', '파프롬홈은', 'MCU', '최고의', '영화이다']

    Lossless up to white space: ``restore`` joins with one space, so every run of white space
    (tabs, newlines, several spaces) becomes a single space and leading/trailing white space is
    dropped.  Use ``raw`` when the exact spacing matters.
    """

    name = "whitespace"
    lossless = False
    piece_kind = "whitespace"  # pieces are text.split(): the compiled encoder may cut the text itself

    def __call__(self, text: str) -> list[str]:
        return text.split()

    def batch(self, texts: Iterable[str], *, show_progress: bool | None = None) -> list[list[str]]:
        return [t.split() for t in texts]

    def restore(self, words: Sequence[str]) -> str:
        return " ".join(words)

    def to_config(self) -> dict[str, Any]:
        return {"type": self.name}
