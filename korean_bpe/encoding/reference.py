"""The readable BPE encoder: the specification the fast paths are tested against.

In the spirit of tiktoken's ``_educational.py``: strings, not ids, and no cache, no heap.  A word
is cut into the unit's symbols, marked, then the merges are applied by rank: the lowest-ranked
pair of neighbours is merged first, the leftmost one among equal ranks, until no pair of
neighbours is a merge (HF ``tokenizers``' ``Word::merge_all``).  A symbol outside the
vocabulary never merges; it becomes its Hangul fallback, its byte tokens or ``<unk>``.

The tutorial case of HF's course (words ``hug pug pun bun hugs``, merges ``u g``, ``u n``,
``h ug``):

>>> merges = [("u", "g"), ("u", "n"), ("h", "ug")]
>>> [bpe_encode(list(word), merges) for word in ["pug", "bug", "mug", "hugs"]]
[['p', 'ug'], ['b', 'ug'], ['m', 'ug'], ['hug', 's']]

and Korean, syllables with the ``▁`` word marker (``visualise`` prints each step):

>>> bpe_encode(["▁", "재", "밌", "다"], [("재", "밌"), ("▁", "재밌"), ("밌", "다")], visualise=True)
▁ 재 밌 다
▁ 재밌 다
▁재밌 다
['▁재밌', '다']

:func:`encode` runs a whole :class:`korean_bpe.Tokenizer` this way: pre-tokenizer, unit, marker,
merges, fallbacks; it gives the ids of ``Tokenizer.encode`` (``disallowed_special=()``, no dropout).
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

from ..jamo import hangul_spellings
from ..markers import get_marker

__all__ = ["bpe_encode", "encode"]


def bpe_encode(
    symbols: Sequence[str],
    merges: Sequence[tuple[str, str]],
    *,
    merged: Callable[[str, str], str] = str.__add__,
    visualise: bool = False,
) -> list[str]:
    """Apply ``merges`` (in rank order) to one word's ``symbols``; ``merged(a, b)`` names the
    token a merge makes (``a + b``; the ``##`` marker drops ``b``'s prefix)."""
    rank: dict[tuple[str, str], int] = {}
    for r, pair in enumerate(merges):
        rank.setdefault(pair, r)  # a pair listed twice: its first rank counts
    parts = list(symbols)
    if visualise:
        print(" ".join(parts))
    while len(parts) > 1:
        # (rank, position) of every pair of neighbours that is a merge; min() takes the lowest
        # rank and, among equal ranks, the leftmost position
        candidates = [(rank[pair], i) for i, pair in enumerate(zip(parts, parts[1:])) if pair in rank]
        if not candidates:
            break
        _, i = min(candidates)
        parts[i:i + 2] = [merged(parts[i], parts[i + 1])]
        if visualise:
            print(" ".join(parts))
    return parts


def encode(tokenizer: Any, text: str) -> list[int]:
    """The ids of ``text`` under ``tokenizer``, computed the slow, obvious way."""
    model, vocab = tokenizer.model, tokenizer.vocab
    specials = set(model.special_tokens)
    # a merge that would make a special token is never applied (old models only)
    merges = [(a, b) for a, b in model.merges if model.merged_token(a, b) not in specials]
    mark = get_marker(tokenizer.marker)  # "▁" puts a symbol before the word, "</w>" and "##" glue on
    ids: list[int] = []
    for word in tokenizer.pre_tokenizer(text):
        symbols = mark.apply(tokenizer.unit.split(word))
        for token in bpe_encode(symbols, merges, merged=model.merged_token):
            ids += [vocab[token]] if token in vocab else _unknown(tokenizer, vocab, token)
    return ids


def _unknown(tokenizer: Any, vocab: dict[str, int], symbol: str) -> list[int]:
    """A symbol outside the vocabulary: Hangul fallback (``'값'`` -> ``'가' 'ᆹ'``, else its jamo),
    then byte fallback (``<0xEA><0xB0><0x92>``), then ``<unk>``."""
    if tokenizer.hangul_fallback:
        for pieces in hangul_spellings(symbol):  # 값 -> 가 ᆹ, else ᄀ ᅡ ᆹ
            if all(p in vocab for p in pieces):
                return [vocab[p] for p in pieces]
    if tokenizer.byte_fallback:
        return [vocab[f"<0x{b:02X}>"] for b in symbol.encode("utf-8", "surrogatepass")]
    if tokenizer.unk_token is None:
        raise ValueError(f"the symbol {symbol!r} is not in the vocabulary and unk_token=None")
    return [vocab[tokenizer.unk_token]]
