"""Ids -> text, the encoder's stages in reverse: fallback tokens, marker words, unit join, restore.

1. :meth:`Fallback.tokens <korean_bpe.encoding.fallback.Fallback.tokens>`: the tokens of the ids,
   runs of byte tokens read back as the symbols they spell, special tokens as text (or skipped);
2. the marker groups the tokens into words (``▁`` opens a word, ``</w>`` ends one, ...);
3. the unit joins each word's symbols (jamo recomposed, bytes decoded), Hangul fallback recomposes;
4. the pre-tokenizer restores the text from its words (spaces put back).

>>> from korean_bpe import Tokenizer
>>> from korean_bpe.trainer import BPEModel
>>> tok = Tokenizer(BPEModel(("<unk>",), tuple("▁재밌다영화"), (("▁", "영"), ("▁영", "화"), ("재", "밌"))))
>>> tok._decoder.decode([8, 1, 9, 4], skip_special_tokens=False)
'영화 재밌다'
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from typing import Any

from .fallback import Fallback

__all__ = ["Decoder", "check_ids"]


class Decoder:
    """Decode ids of a vocabulary (``id_to_token``) made of ``unit`` symbols marked by ``marker``."""

    def __init__(self, id_to_token: Sequence[str], *, fallback: Fallback, pre_tokenizer: Any, unit: Any,
                 marker: Any) -> None:
        self.id_to_token = id_to_token
        self.fallback, self.pre_tokenizer, self.unit, self.marker = fallback, pre_tokenizer, unit, marker

    def decode(self, ids: Iterable[int], *, skip_special_tokens: bool) -> str:
        ids = check_ids(ids, len(self.id_to_token))
        tokens = self.fallback.tokens(ids, self.id_to_token, skip_special_tokens=skip_special_tokens)
        join = self.unit.join
        words = self.fallback.recompose([join(symbols) for symbols in self.marker.words(tokens)])
        return self.pre_tokenizer.restore(words)


def check_ids(ids: Iterable[int], n: int) -> list[int]:
    """``ids`` as a list of ``int`` in ``0..n-1`` (numpy integers and integral floats are
    accepted); anything else is a ``ValueError`` naming it.

    >>> check_ids([3, 1.0], 5)
    [3, 1]
    >>> check_ids([3, -1], 5)
    Traceback (most recent call last):
    ...
    ValueError: id -1 is not a token id of this tokenizer (0..4)
    """
    ids = list(ids)
    if ids and not (all(type(i) is int for i in ids) and 0 <= min(ids) and max(ids) < n):
        for i in ids:
            try:
                ok = 0 <= i < n and int(i) == i
            except TypeError:
                ok = False
            if not ok:
                raise ValueError(f"id {i!r} is not a token id of this tokenizer (0..{n - 1})")
        ids = [int(i) for i in ids]
    return ids
