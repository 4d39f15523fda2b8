"""What a symbol outside the vocabulary becomes, and back: one object for both directions.

Encoding, a symbol the vocabulary lacks is spelled by the first of these that applies:

1. Hangul fallback (``hangul_fallback=True``): an unknown Hangul syllable as the syllable without
   its 종성 + the 종성 jamo (``'값'`` -> ``'가' 'ᆹ'``), else its conjoining jamo
   (:func:`korean_bpe.jamo.hangul_spellings`), when all those tokens are in the vocabulary;
2. byte fallback (``byte_fallback=True``): its UTF-8 bytes as the tokens ``<0x00>``..``<0xFF>``
   (lone surrogates as ``surrogatepass`` writes them), as HF and SentencePiece do;
3. the unknown token (``<unk>``); with ``unk_token=None`` a ``ValueError``.

Decoding reverses it: runs of byte tokens become the (marked) symbols they spell, special tokens
are written in the unit's own symbols (so that ``unit.join`` gives their text back), and with
Hangul fallback the words are recomposed (``'가' 'ᆹ'`` -> ``'값'``).

>>> from korean_bpe.markers import get_marker
>>> from korean_bpe.units import get_unit
>>> from korean_bpe.jamo import JAMO_ALPHABET
>>> vocab = {t: i for i, t in enumerate(("<unk>", "▁", "가", *JAMO_ALPHABET))}
>>> fb = Fallback(vocab, unk_token="<unk>", byte_fallback=False, hangul_fallback=True, special_tokens=("<unk>",),
...               unit=get_unit("syllable"), marker=get_marker("▁"))
>>> [f"U+{ord(next(t for t, i in vocab.items() if i == k)):04X}" for k in fb.ids("값", "값")]
['U+AC00', 'U+11B9']
>>> fb.ids("a", "abc")
[0]
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from ..tokens import BYTE_TOKENS
from ..jamo import compose, decompose, hangul_spellings
from ..units import decode_utf8

__all__ = ["Fallback", "check_hangul_fallback", "check_byte_fallback"]


class Fallback:
    """Unknown symbols -> ids (:meth:`ids`, :meth:`fill`) and ids -> tokens for decode
    (:meth:`tokens`, :meth:`recompose`), for one vocabulary and its options (checked here)."""

    def __init__(self, vocab: Mapping[str, int], *, unk_token: str | None, byte_fallback: bool, hangul_fallback: bool,
                 special_tokens: Sequence[str], unit: Any, marker: Any) -> None:
        for key, value in (("byte_fallback", byte_fallback), ("hangul_fallback", hangul_fallback)):
            if not isinstance(value, bool):
                raise TypeError(f"{key} must be True or False, got {value!r}")
        if unk_token is not None and unk_token not in vocab:
            raise ValueError(
                f"unk_token={unk_token!r} is not in the vocabulary; add it to the model's special tokens "
                f"(Tokenizer.train(..., special_tokens=({unk_token!r},))) or pass unk_token=None"
            )
        if byte_fallback:
            missing = [t for t in BYTE_TOKENS if t not in vocab]
            if missing:
                raise ValueError(
                    f"byte_fallback=True needs the 256 byte tokens <0x00>..<0xFF> in the vocabulary; {missing[0]!r} "
                    f"and {len(missing) - 1} more are missing (train with Tokenizer.train(..., byte_fallback=True))"
                )
        if hangul_fallback:
            check_hangul_fallback(unit, marker)
        self.vocab = vocab
        self.unk_token = unk_token
        self.byte_fallback = byte_fallback
        self.hangul_fallback = hangul_fallback
        self.unit = unit
        self.marker = marker
        self.unk_id = -1 if unk_token is None else vocab[unk_token]
        self.byte_ids: tuple[int, ...] = tuple(vocab[t] for t in BYTE_TOKENS) if byte_fallback else ()
        self.byte_of_id = {i: b for b, i in enumerate(self.byte_ids)}
        byte_set = set(BYTE_TOKENS) if byte_fallback else set()
        #: the special tokens without the byte tokens, and their ids
        self.special_tokens = tuple(t for t in special_tokens if t not in byte_set)
        self.special_ids = frozenset(vocab[t] for t in self.special_tokens)
        #: ids that decode does not read as unit symbols
        self.literal_ids = self.special_ids | frozenset(self.byte_ids)

    # --- encoding ------------------------------------------------------------------------------

    def ids(self, symbol: str, word: str) -> list[int]:
        """The ids that spell ``symbol`` (not in the vocabulary; ``word`` is named in the error)."""
        if self.hangul_fallback:
            vocab = self.vocab
            for pieces in hangul_spellings(symbol):
                if all(piece in vocab for piece in pieces):
                    return [vocab[piece] for piece in pieces]
        if self.byte_fallback:
            byte_ids = self.byte_ids
            return [byte_ids[b] for b in symbol.encode("utf-8", "surrogatepass")]
        if self.unk_id >= 0:
            return [self.unk_id]
        raise ValueError(
            f"the symbol {symbol!r} (in the word {word!r}) is not in the vocabulary and unk_token=None; "
            "use a tokenizer with an unk_token or byte_fallback=True"
        )

    def fill(self, ids: Sequence[int], symbols: Sequence[str], word: str) -> list[int]:
        """``ids`` with each ``-1`` replaced by :meth:`ids` of its symbol: unknown symbols never
        merge, so the k-th ``-1`` is the k-th of ``symbols`` outside the vocabulary."""
        vocab = self.vocab
        unknown = iter([s for s in symbols if s not in vocab])
        out: list[int] = []
        for i in ids:
            if i >= 0:
                out.append(i)
            else:
                out += self.ids(next(unknown), word)
        return out

    # --- decoding ------------------------------------------------------------------------------

    def tokens(self, ids: Sequence[int], id_to_token: Sequence[str], *, skip_special_tokens: bool) -> list[str]:
        """The tokens of ``ids`` for decode: runs of byte tokens become the (marked) symbols they
        spell, special tokens their text in the unit's symbols (or nothing, when skipped)."""
        if self.literal_ids.isdisjoint(ids):
            return [id_to_token[i] for i in ids]
        byte_of, specials, unit_split = self.byte_of_id, self.special_ids, self.unit.split
        tokens: list[str] = []
        pending = bytearray()
        for i in ids:
            b = byte_of.get(i)
            if b is not None:
                pending.append(b)
                continue
            if pending:
                tokens += self.marker.fallback_pieces(decode_utf8(pending))
                pending.clear()
            if i in specials:
                if not skip_special_tokens:
                    tokens.append("".join(unit_split(id_to_token[i])))
                continue
            tokens.append(id_to_token[i])
        if pending:
            tokens += self.marker.fallback_pieces(decode_utf8(pending))
        return tokens

    def recompose(self, words: list[str]) -> list[str]:
        """With Hangul fallback, each word's jamo joined into syllables (``'가' 'ᆹ'`` -> ``'값'``)."""
        return [compose(w) for w in words] if self.hangul_fallback else words


def check_byte_fallback(unit: Any) -> None:
    """Byte fallback spells a symbol the vocabulary lacks with byte tokens; a unit whose symbols are
    the 256 bytes, always in the alphabet (``byte``), never lacks one, and its 256 byte tokens would
    only take the places of 256 merges: training refuses it, as it refuses Hangul fallback there."""
    alphabet = set(unit.initial_alphabet)
    if len(alphabet) >= 256 and alphabet.issuperset(unit.split("값 😉\ud800")):
        raise ValueError(f"byte_fallback=True does nothing with the {unit.name!r} unit: its 256 byte symbols are always "
                         "in the alphabet, so no symbol is ever unknown, and the 256 byte tokens would take the places "
                         "of 256 merges; leave byte_fallback out (or use the 'syllable' or 'jamo' unit)")


def check_hangul_fallback(unit: Any, marker: Any) -> None:
    """Hangul fallback needs a unit whose symbols are Hangul syllables or their jamo (``syllable``,
    ``jamo``: the byte unit never has an unknown symbol) and a marker that glues nothing."""
    if unit.split("값") not in (("값",), tuple(decompose("값"))):
        raise ValueError(f"hangul_fallback=True needs the 'syllable' or 'jamo' unit, not {unit.name!r}: the byte unit "
                         "never has an unknown symbol")
    if marker.glued:
        raise ValueError(f"hangul_fallback=True works with marker '▁' or None, not {marker.text!r} (a jamo glued to "
                         "'##' or '</w>' is a different token)")
