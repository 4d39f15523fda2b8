"""The two pre-tokenizers that need no analyzer: ``raw`` and ``whitespace``."""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from typing import Any

from .base import PRE_TOKENIZERS, BasePreTokenizer, raw_pieces, restore_marked

__all__ = ["RawPreTokenizer", "WhitespacePreTokenizer"]


@PRE_TOKENIZERS.register("raw")
class RawPreTokenizer(BasePreTokenizer):
    """SentencePiece style: the whole line is one piece, spaces kept as ``▁``.

    >>> RawPreTokenizer()("어제 IMAX 봤는데 ㅋㅋ")
    ['어제▁IMAX▁봤는데▁ㅋㅋ']

    Lossless for every text that does not itself contain ``▁`` (U+2581), which would come back as
    a space (as in SentencePiece).  Each line break is a piece of its own.
    """

    name = "raw"
    lossless = True

    def __call__(self, text: str) -> list[str]:
        return raw_pieces(text)

    def batch(self, texts: Iterable[str], *, show_progress: bool | None = None) -> list[list[str]]:
        return [raw_pieces(t) for t in texts]

    def restore(self, words: Sequence[str]) -> str:
        return restore_marked(words)


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

    def __call__(self, text: str) -> list[str]:
        return text.split()

    def batch(self, texts: Iterable[str], *, show_progress: bool | None = None) -> list[list[str]]:
        return [t.split() for t in texts]

    def restore(self, words: Sequence[str]) -> str:
        return " ".join(words)

    def to_config(self) -> dict[str, Any]:
        return {"type": self.name}
