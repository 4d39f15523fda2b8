"""The jamo unit in a stock Hugging Face ``tokenizer.json``: decompose only the Hangul syllables,
recompose them on decode, in every HF client (Rust/Python ``tokenizers``, transformers and the
JavaScript ``@huggingface/tokenizers`` that transformers.js uses).

HF's ``NFD`` normalizer decomposes more than our jamo unit does (``é``, ``盧`` U+F933) and
reorders combining marks; SentencePiece's ``Precompiled`` normalizer (a charsmap of the 11,172
syllables) is ignored by the JavaScript client, which applies NFKC instead and so recomposes jamo
(and lost a combining mark right after a syllable in Rust).  HF has no decoder that composes.
So the export uses only ``Replace`` stages, which every client implements alike:

* normalizers (:func:`jamo_normalizers`): 27 + 21 + 19 regex ``Replace`` stages that each write
  one jamo right after the syllables that hold it (a lookbehind, ``(?<=[가-깋])`` -> ``ᄀ``: the
  final consonant, then the vowel, then the initial, each landing before the last), and one that
  deletes the syllables: the jamo of :func:`korean_bpe.jamo.decompose`, every other character
  left alone, each jamo with its syllable's offsets (HF gives an inserted character the span of
  the one before it);
* after the decoders that join the tokens, one ``Replace`` per syllable (L V T, then L V), as
  :func:`korean_bpe.jamo.compose` joins modern jamo back (:func:`recompose_decoders`).

>>> stages = jamo_normalizers()
>>> len(stages), stages[-2]["pattern"]["Regex"], stages[-2]["content"]
(68, '(?<=[\\\\x{ac00}-\\\\x{ae4b}])', 'ᄀ')
"""

from __future__ import annotations

from typing import Any

from ..jamo import L_BASE, L_COUNT, S_BASE, S_COUNT, T_BASE, T_COUNT, V_BASE, V_COUNT, decompose

__all__ = ["jamo_normalizers", "recompose_decoders"]

_N_COUNT = V_COUNT * T_COUNT  # syllables per initial consonant


def jamo_normalizers() -> list[dict[str, Any]]:
    """The normalizer stages of a jamo-unit ``tokenizer.json``: each jamo written right after the
    syllables that hold it (final, vowel, initial: each lands before the one written earlier),
    then the syllables deleted.  A regex ``Replace`` whose match is empty (a lookbehind) inserts
    its content, with the span of the character before it: the syllable.  Put them after every
    other normalizer (HF's ``Strip`` panics on the text after an insertion)."""
    initial = [[(S_BASE + ll * _N_COUNT, S_BASE + (ll + 1) * _N_COUNT - 1)] for ll in range(L_COUNT)]
    vowel = [[(S_BASE + ll * _N_COUNT + v * T_COUNT, S_BASE + ll * _N_COUNT + (v + 1) * T_COUNT - 1)
              for ll in range(L_COUNT)] for v in range(V_COUNT)]
    final = [[(S_BASE + k * T_COUNT + t,) * 2 for k in range(L_COUNT * V_COUNT)] for t in range(1, T_COUNT)]
    jamo = [chr(L_BASE + i) for i in range(L_COUNT)] + [chr(V_BASE + i) for i in range(V_COUNT)] + \
        [chr(T_BASE + i) for i in range(1, T_COUNT)]
    out = [_replace(f"(?<={_ranges(r)})", j) for r, j in zip(initial + vowel + final, jamo)]
    return out[::-1] + [_replace(_ranges([(S_BASE, S_BASE + S_COUNT - 1)]), "")]


def recompose_decoders() -> list[dict[str, Any]]:
    """``Replace`` decoders that write each modern L V T, then L V, jamo run as its syllable (the
    LVT runs first, so that an L V followed by a T joins all three, as :func:`korean_bpe.jamo.compose`)."""
    lvt = [s for s in map(chr, range(S_BASE, S_BASE + S_COUNT)) if (ord(s) - S_BASE) % T_COUNT]
    lv = [chr(S_BASE + k * T_COUNT) for k in range(L_COUNT * V_COUNT)]
    return [{"type": "Replace", "pattern": {"String": decompose(s)}, "content": s} for s in lvt + lv]


def _ranges(ranges: list[tuple[int, int]]) -> str:
    """A regex character class of code point ranges, each written ``\\x{..}`` (Oniguruma's syntax,
    which the JavaScript client translates)."""
    return "[" + "".join(f"\\x{{{a:x}}}" if a == b else f"\\x{{{a:x}}}-\\x{{{b:x}}}" for a, b in ranges) + "]"


def _replace(regex: str, content: str) -> dict[str, Any]:
    return {"type": "Replace", "pattern": {"Regex": regex}, "content": content}
