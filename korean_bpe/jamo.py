"""Hangul syllables <-> conjoining jamo, by the Unicode arithmetic.

A precomposed syllable (U+AC00..U+D7A3) is ``S = S_BASE + (L * V_COUNT + V) * T_COUNT + T``
where ``L`` indexes the 19 leading consonants (초성, U+1100..), ``V`` the 21 vowels (중성, U+1161..)
and ``T`` the 28 trailing consonants (종성, U+11A7.., 0 meaning "none").

>>> decompose("값")
'값'
>>> [hex(ord(c)) for c in decompose("값")]
['0x1100', '0x1161', '0x11b9']
>>> compose(decompose("한국어 ㅋㅋ"))
'한국어 ㅋㅋ'

What passes through untouched
-----------------------------
Everything that is not a precomposed syllable: Latin, digits, emoji, punctuation, *compatibility*
jamo typed by users (ㅋ U+314B, ㅠ U+3160 stay as they are; they never become U+110F), old Hangul
(ᄒᆞᆫ: U+1112 U+119E U+11AB) and filler characters.

What ``compose`` does with text that was not produced by ``decompose``
-------------------------------------------------------------------
``compose`` joins every *modern* leading consonant (U+1100..U+1112) followed by a modern vowel
(U+1161..U+1175), plus an optional modern trailing consonant (U+11A8..U+11C2), into one syllable,
and a precomposed syllable without a final followed by a trailing consonant into the syllable with
that final: exactly Unicode canonical composition restricted to modern Hangul.  So:

* ``compose(decompose(x)) == x`` for every string ``x`` with ``unicodedata.is_normalized("NFC", x)``
  restricted to Hangul, i.e. every string that contains no modern L+V conjoining sequence of its own.
* Text already in NFD (``"한"`` typed as U+1112 U+1161 U+11AB) comes back *precomposed*: the result
  is the NFC form of its Hangul, never a different syllable.  ``decompose`` leaves such text as is.
* Stray conjoining jamo that do not form a modern L+V pair (a lone ``ᆫ``, old Hangul, fillers)
  are left untouched.
"""

from __future__ import annotations

__all__ = [
    "S_BASE", "S_COUNT", "L_BASE", "V_BASE", "T_BASE", "L_COUNT", "V_COUNT", "T_COUNT", "N_COUNT",
    "decompose", "compose", "is_syllable", "is_conjoining_jamo", "is_compatibility_jamo",
    "decompose_syllable", "JAMO_ALPHABET", "hangul_spellings",
]

S_BASE = 0xAC00
L_BASE = 0x1100
V_BASE = 0x1161
T_BASE = 0x11A7  # T index 0 means "no trailing consonant"; T_BASE itself is never emitted
L_COUNT = 19
V_COUNT = 21
T_COUNT = 28
N_COUNT = V_COUNT * T_COUNT  # 588 syllables per leading consonant
S_COUNT = L_COUNT * N_COUNT  # 11,172 precomposed syllables
S_LAST = S_BASE + S_COUNT - 1  # U+D7A3

_CONJOINING_FIRST, _CONJOINING_LAST = 0x1100, 0x11FF
_COMPAT_FIRST, _COMPAT_LAST = 0x3131, 0x318E


def is_syllable(ch: str) -> bool:
    """True for a precomposed modern syllable (U+AC00..U+D7A3): ``is_syllable("한") -> True``."""
    return S_BASE <= ord(ch) <= S_LAST


def is_conjoining_jamo(ch: str) -> bool:
    """True for a conjoining jamo (U+1100..U+11FF), e.g. ``"ᄒ"``; False for compatibility ``"ㅎ"``."""
    return _CONJOINING_FIRST <= ord(ch) <= _CONJOINING_LAST


def is_compatibility_jamo(ch: str) -> bool:
    """True for a compatibility jamo (U+3131..U+318E) as typed in ``"ㅋㅋ"`` or ``"ㅠㅠ"``."""
    return _COMPAT_FIRST <= ord(ch) <= _COMPAT_LAST


def decompose_syllable(ch: str) -> str:
    """One syllable to its two or three conjoining jamo: ``"한"`` -> U+1112 U+1161 U+11AB; others unchanged."""
    s = ord(ch) - S_BASE
    if not 0 <= s < S_COUNT:
        return ch
    l, rest = divmod(s, N_COUNT)
    v, t = divmod(rest, T_COUNT)
    if t:
        return chr(L_BASE + l) + chr(V_BASE + v) + chr(T_BASE + t)
    return chr(L_BASE + l) + chr(V_BASE + v)


#: The conjoining jamo alphabet of modern Hangul: 19 초성 (U+1100..), 21 중성 (U+1161..), 27 종성
#: (U+11A8..).  ``Tokenizer.train(..., hangul_fallback=True)`` puts them in the vocabulary.
JAMO_ALPHABET: tuple[str, ...] = (
    tuple(chr(L_BASE + i) for i in range(L_COUNT)) + tuple(chr(V_BASE + i) for i in range(V_COUNT))
    + tuple(chr(T_BASE + i) for i in range(1, T_COUNT))
)


def hangul_spellings(sym: str) -> tuple[tuple[str, ...], ...]:
    """How Hangul fallback may spell the syllable ``sym`` with smaller pieces, best first: the
    syllable without its 종성 + the 종성 jamo (``'값'`` -> ``'가' 'ᆹ'``, as kiwipiepy's
    ``fallback_hangul``), then its two or three conjoining jamo; ``()`` for anything else.

    >>> hangul_spellings("값") == (("가", "\u11b9"), ("\u1100", "\u1161", "\u11b9"))
    True
    >>> hangul_spellings("가") == (("\u1100", "\u1161"),)
    True
    >>> hangul_spellings("ㅋ")
    ()
    """
    s = ord(sym) - S_BASE if len(sym) == 1 else -1
    if not 0 <= s < S_COUNT:
        return ()
    jamo = tuple(decompose_syllable(sym))
    if s % T_COUNT:
        return (chr(S_BASE + s - s % T_COUNT), jamo[2]), jamo
    return (jamo,)


# The table costs ~1 MB once and makes decompose a single str.translate (C speed).
_DECOMPOSE_TABLE: dict[int, str] = {S_BASE + i: decompose_syllable(chr(S_BASE + i)) for i in range(S_COUNT)}


def decompose(text: str) -> str:
    """Replace every precomposed syllable by its conjoining jamo; leave everything else.

    >>> decompose("당") == "\u1103\u1161\u11bc"
    True
    >>> len(decompose("먹겠습니당!")), len("먹겠습니당!")
    (15, 6)
    >>> decompose("ㅋㅋ 😉 abc") == "ㅋㅋ 😉 abc"
    True
    """
    return text.translate(_DECOMPOSE_TABLE)


def compose(text: str) -> str:
    """Join modern L+V(+T) conjoining jamo sequences (and an LV syllable + T) into syllables.

    This is Unicode canonical composition restricted to modern Hangul, so on Hangul it agrees
    with NFC: ``compose("가" + "\u11a8") == "각"``.  Everything else is left as is.  This
    function is the definition; with the compiled core, ``korean_bpe.jamo.compose`` is its C
    translation (``korean_bpe/_jamo.pyx``, ~9x faster on NSMC's words; a test checks they agree on random
    text).

    >>> compose("한글")
    '한글'
    >>> compose("ᄒᆞᆫ글")  # old Hangul (arae-a U+119E) is not a modern vowel: untouched
    'ᄒᆞᆫ글'
    """
    n = len(text)
    # Fast path: no leading consonant followed by a vowel anywhere.
    out: list[str] = []
    i = 0
    start = 0
    while i < n - 1:
        l = ord(text[i]) - L_BASE
        if 0 <= l < L_COUNT:
            v = ord(text[i + 1]) - V_BASE
            if 0 <= v < V_COUNT:
                t = 0
                if i + 2 < n:
                    t = ord(text[i + 2]) - T_BASE
                    if not 0 < t < T_COUNT:
                        t = 0
                out.append(text[start:i])
                out.append(chr(S_BASE + (l * V_COUNT + v) * T_COUNT + t))
                i += 3 if t else 2
                start = i
                continue
        else:
            s = ord(text[i]) - S_BASE
            if 0 <= s < S_COUNT and s % T_COUNT == 0:  # an LV syllable followed by a T jamo
                t = ord(text[i + 1]) - T_BASE
                if 0 < t < T_COUNT:
                    out.append(text[start:i])
                    out.append(chr(S_BASE + s + t))
                    i += 2
                    start = i
                    continue
        i += 1
    if not out:
        return text
    out.append(text[start:])
    return "".join(out)


compose_reference = compose  # the readable definition above, kept under this name
try:  # the compiled translation when the package was built with a compiler (setup.py)
    from ._jamo import compose  # type: ignore[no-redef]  # noqa: F811
except ImportError:  # pragma: no cover - a build without a compiler
    pass
