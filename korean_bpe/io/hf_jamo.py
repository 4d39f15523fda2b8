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
* after the decoders that join the tokens, 827 ``Replace`` stages that compose modern jamo back
  as :func:`korean_bpe.jamo.compose` does (:func:`recompose_decoders`): each L V followed by a
  final consonant becomes the 27 syllables L V T it could be, of which the final then keeps one;
  every other L V becomes its syllable.  (One literal stage per syllable, 11,172 of them, was the
  first way: HF runs every stage on every decode, about 4 ms even for one token, and parsed them
  all on every load; ``benchmarks/bench_hf_jamo.py`` times both.)

>>> stages = jamo_normalizers()
>>> len(stages), stages[-2]["pattern"]["Regex"], stages[-2]["content"]
(68, '(?<=[\\\\x{ac00}-\\\\x{ae4b}])', 'ᄀ')
"""

from __future__ import annotations

from typing import Any

from ..jamo import L_BASE, L_COUNT, S_BASE, S_COUNT, T_BASE, T_COUNT, V_BASE, V_COUNT

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


#: the two noncharacters (Unicode's own, for internal use) that mark the candidates of a syllable
#: while the decoders compose; one in the text is written as both, and read back at the end
_MARK, _ESCAPE = "\ufdd0", "\ufdd1"


def recompose_decoders() -> list[dict[str, Any]]:
    """``Replace`` decoders that compose modern conjoining jamo into syllables, as
    :func:`korean_bpe.jamo.compose` does (L V T, then L V), in 827 stages:

    1. a ``\ufdd0`` of the text becomes ``\ufdd0\ufdd1`` (so every ``\ufdd0`` next to a
       syllable and a final below is one these stages wrote);
    2. for each L V (399 stages), an L V followed by a final consonant (T) becomes its 27
       candidates between two ``\ufdd0``: ``각`` (ᄀ ᅡ ᆨ) becomes ``◇각갂갃 ... 갛◇ᆨ``;
    3. for each T (27 stages), in candidates followed by ``◇`` + T, the ones before that T's
       candidate (with the opening ``◇``) and the ones after it (with ``◇`` + T) are deleted;
    4. every other L V becomes its syllable (399 stages);
    5. ``\ufdd0\ufdd1`` becomes ``\ufdd0`` again.

    Each stage's content is fixed (``Replace`` has no back-references), so a syllable's 27
    candidates are the price of fewer stages; each stage starts with a literal, which the regex
    engines find fast.  The same text as one literal stage per syllable (``tests/test_hf.py``
    compares them on random strings of jamo, syllables and the two marks, forged candidates too).

    >>> stages = recompose_decoders()
    >>> len(stages), stages[0]["content"] == _MARK + _ESCAPE, stages[-1]["content"] == _MARK
    (827, True, True)
    """
    mark, syllable = _ranges([(ord(_MARK), ord(_MARK))]), _ranges([(S_BASE, S_BASE + S_COUNT - 1)])
    final = _ranges([(T_BASE + 1, T_BASE + T_COUNT - 1)])
    lv = [(chr(L_BASE + ll) + chr(V_BASE + v), S_BASE + (ll * V_COUNT + v) * T_COUNT)
          for ll in range(L_COUNT) for v in range(V_COUNT)]
    out: list[dict[str, Any]] = [_string(_MARK, _MARK + _ESCAPE)]
    for pair, base in lv:
        out.append(_replace(f"{pair}(?={final})", _MARK + "".join(chr(base + t) for t in range(1, T_COUNT)) + _MARK))
    for t in range(1, T_COUNT):
        jamo = _ranges([(T_BASE + t, T_BASE + t)])
        head = f"{mark}{syllable}{{{t - 1}}}(?={syllable}{{{T_COUNT - t}}}{mark}{jamo})"  # ◇ and those before
        tail = f"{syllable}{{{T_COUNT - 1 - t}}}{mark}{jamo}"  # those after, ◇ and the final
        out.append(_replace(f"{head}|{tail}", ""))
    out += [_string(pair, chr(base)) for pair, base in lv]
    return out + [_string(_MARK + _ESCAPE, _MARK)]


def _ranges(ranges: list[tuple[int, int]]) -> str:
    """A regex character class of code point ranges, each written ``\\x{..}`` (Oniguruma's syntax,
    which the JavaScript client translates)."""
    return "[" + "".join(f"\\x{{{a:x}}}" if a == b else f"\\x{{{a:x}}}-\\x{{{b:x}}}" for a, b in ranges) + "]"


def _replace(regex: str, content: str) -> dict[str, Any]:
    return {"type": "Replace", "pattern": {"Regex": regex}, "content": content}


def _string(text: str, content: str) -> dict[str, Any]:
    return {"type": "Replace", "pattern": {"String": text}, "content": content}
