"""Units: how one word becomes a tuple of symbols for BPE, and how symbols become text again.

======== ========================================== =================================
unit     ``split("값이")``                           note
======== ========================================== =================================
syllable ``('값', '이')``                            one symbol per character
jamo     ``('ᄀ', 'ᅡ', 'ᆹ', 'ᄋ', 'ᅵ')``              conjoining jamo, recomposed on join
byte     ``('ê', '°', 'Ĵ', 'ì', 'Ŀ', '´')``          UTF-8 bytes as printable chars (GPT-2)
======== ========================================== =================================

Word markers tell BPE (and decode) where words start or end, as the peers do:
``"▁"`` a separate word-start symbol (SentencePiece, HF Metaspace), ``"</w>"`` glued to the last
symbol (subword-nmt, HF ``end_of_word_suffix``), ``"##"`` glued to every non-first symbol (WordPiece,
HF ``continuing_subword_prefix``), or ``None``.  Each is an object of :mod:`korean_bpe.markers`;
the functions here take the marker string and call it.

>>> get_unit("jamo").join(get_unit("jamo").split("값이")) == "값이"
True
>>> apply_marker(("값", "이"), "</w>")
('값', '이</w>')
>>> apply_marker(("값", "이"), "▁")
('▁', '값', '이')
>>> words_from_tokens(["▁", "값이", "▁안", "녕"], "▁")
[['값이'], ['안', '녕']]
"""

from __future__ import annotations

import codecs
from collections.abc import Iterable, Mapping, Sequence
from functools import lru_cache
from typing import Any, Literal, Protocol, runtime_checkable

from .jamo import compose, decompose
from .markers import MARKER_TEXTS, SPACE_MARK, get_marker
from .registry import Registry

__all__ = [
    "Unit", "BaseUnit", "CompiledSymbols", "SyllableUnit", "JamoUnit", "ByteUnit", "UNITS", "get_unit",
    "MARKERS", "SPACE_MARK", "apply_marker", "words_from_tokens", "strip_marker", "check_marker",
    "bytes_to_unicode", "decode_utf8",
]

#: The marker strings (:data:`korean_bpe.markers.MARKER_TEXTS`).
MARKERS: tuple[str | None, ...] = MARKER_TEXTS


#: how the compiled cores may cut a word into a unit's symbols (see :mod:`korean_bpe.encoding`)
CompiledSymbols = Literal["chars", "jamo", "bytes"] | None


@runtime_checkable
class Unit(Protocol):
    """A way to cut a word into symbols. ``join(split(w)) == w`` for every word the unit accepts.

    Declarations (:class:`BaseUnit` gives the defaults): ``name``, the registry name;
    ``initial_alphabet``, symbols the alphabet always holds whatever the corpus (``byte``: all
    256, byte ``b`` at index ``b``; ``()`` for ``syllable`` and ``jamo``); ``compiled_symbols``,
    how the compiled cores may cut words themselves (``"chars"``: one symbol a character;
    ``"jamo"``: Hangul syllables by the Unicode arithmetic; ``"bytes"``: UTF-8 bytes written
    ``initial_alphabet[b]``; ``None``: only ``split`` knows; a subclass whose ``split`` differs
    must set it to ``None``).
    """

    name: str
    initial_alphabet: tuple[str, ...]
    compiled_symbols: CompiledSymbols

    def split(self, word: str) -> tuple[str, ...]: ...

    def join(self, symbols: Iterable[str]) -> str: ...

    def to_config(self) -> dict[str, Any]: ...


class BaseUnit:
    """The declarations' defaults (no initial alphabet, no compiled cut), config and repr by name."""

    name: str = ""
    initial_alphabet: tuple[str, ...] = ()
    compiled_symbols: CompiledSymbols = None

    def to_config(self) -> dict[str, Any]:
        return {"type": self.name}

    def alphabet_problem(self, symbols: Sequence[str]) -> str | None:
        """Why a model's alphabet (``symbols``, its word marker taken off) cannot come from this
        unit, naming the first symbol that shows it; None when it can, or when the unit cannot
        tell (this default).  A model file's loader asks it (``korean_bpe.io.serialization``).

        >>> JamoUnit().alphabet_problem(["영", "화"])
        "the alphabet holds '영', a Hangul syllable, which the jamo unit never makes (it splits syllables into jamo)"
        >>> SyllableUnit().alphabet_problem(["영", "화"]) is None
        True
        """
        return None

    def __repr__(self) -> str:
        return f"{type(self).__name__}()"


def _byte_alphabet_problem(symbols: Sequence[str], name: str) -> str | None:
    """A syllable or jamo alphabet is never exactly the byte unit's 256 symbols."""
    byte_symbols = set(bytes_to_unicode().values())
    if byte_symbols.issubset(symbols) and byte_symbols.issuperset(symbols):
        return f"the alphabet holds exactly the byte unit's 256 symbols, which the {name} unit never makes all of"
    return None


UNITS: Registry[Unit] = Registry("unit")


class _SymbolCache(dict):  # type: ignore[type-arg]
    """One shared ``str`` object per symbol: a split word then costs 8 bytes a symbol instead of
    a fresh ~76-byte string per Hangul character (400 MB less for NSMC's words under jamo)."""

    def __missing__(self, key: str) -> str:
        self[key] = key
        return key


_shared = _SymbolCache().__getitem__


@UNITS.register("syllable")
class SyllableUnit(BaseUnit):
    """One symbol per Unicode character: ``split("먹겠다") == ('먹', '겠', '다')``."""

    name = "syllable"
    initial_alphabet: tuple[str, ...] = ()
    #: the compiled encoder may cut words itself, one symbol a character (see korean_bpe.encoding)
    compiled_symbols: CompiledSymbols = "chars"

    def split(self, word: str) -> tuple[str, ...]:
        return tuple(map(_shared, word))

    def join(self, symbols: Iterable[str]) -> str:
        return "".join(symbols)

    def alphabet_problem(self, symbols: Sequence[str]) -> str | None:
        """Composed text: not the byte symbols, not conjoining jamo without a syllable (NFD text)."""
        why = _byte_alphabet_problem(symbols, self.name)
        if why is None and not any("\uac00" <= b <= "\ud7a3" for b in symbols):
            jamo = next((b for b in symbols if "\u1100" <= b <= "\u11ff"), None)
            if jamo is not None:
                return (f"the alphabet holds conjoining jamo ({jamo!r}) and no Hangul syllable, which the {self.name} "
                        "unit makes only from NFD text")
        return why


@UNITS.register("jamo")
class JamoUnit(BaseUnit):
    """Hangul syllables as conjoining jamo (see :mod:`korean_bpe.jamo`); other characters as is.

    ``split("닭")`` gives ``('ᄃ', 'ᅡ', 'ᆰ')``: 초성 U+1103, 중성 U+1161, 종성 U+11B0.  ``join``
    recomposes exactly; text that already held conjoining jamo (NFD input) comes back in NFC.
    Compatibility jamo (ㅋㅋ, ㅠㅠ) stay compatibility jamo.
    """

    name = "jamo"
    initial_alphabet: tuple[str, ...] = ()
    #: the compiled encoder may cut words itself, Hangul syllables by the Unicode arithmetic
    compiled_symbols: CompiledSymbols = "jamo"

    def split(self, word: str) -> tuple[str, ...]:
        return tuple(map(_shared, decompose(word)))

    def join(self, symbols: Iterable[str]) -> str:
        return compose("".join(symbols))

    def alphabet_problem(self, symbols: Sequence[str]) -> str | None:
        """Never a Hangul syllable, never the byte symbols (see :meth:`BaseUnit.alphabet_problem`)."""
        bad = next((b for b in symbols if "\uac00" <= b <= "\ud7a3"), None)
        if bad is not None:
            return (f"the alphabet holds {bad!r}, a Hangul syllable, which the {self.name} unit never makes (it splits "
                    "syllables into jamo)")
        return _byte_alphabet_problem(symbols, self.name)


@lru_cache(maxsize=1)
def bytes_to_unicode() -> dict[int, str]:
    """GPT-2's byte -> printable character table: printable Latin-1 bytes map to themselves,
    the other 68 bytes to U+0100.. in order, so every byte is one visible, non-space character."""
    keep = list(range(ord("!"), ord("~") + 1)) + list(range(0xA1, 0xAD)) + list(range(0xAE, 0x100))
    table: dict[int, str] = {}
    extra = 0
    for b in range(256):
        if b in keep:
            table[b] = chr(b)
        else:
            table[b] = chr(256 + extra)
            extra += 1
    return table


def _keep_surrogates_else_replace(exc: UnicodeError) -> tuple[str, int]:
    """Decoding error handler: a surrogate spelled as UTF-8 (``ED A0..BF 80..BF``, what
    ``surrogatepass`` writes) becomes that lone surrogate again; other broken bytes U+FFFD."""
    if not isinstance(exc, UnicodeDecodeError):
        raise exc
    data, i = exc.object, exc.start
    if data[i] == 0xED and len(data) >= i + 3 and 0xA0 <= data[i + 1] <= 0xBF and 0x80 <= data[i + 2] <= 0xBF:
        return chr(0xD000 | (data[i + 1] & 0x3F) << 6 | data[i + 2] & 0x3F), i + 3
    return "\ufffd", exc.end


_DECODE_ERRORS = "korean_bpe.surrogatepass_or_replace"
codecs.register_error(_DECODE_ERRORS, _keep_surrogates_else_replace)


def decode_utf8(data: bytes | bytearray) -> str:
    """UTF-8 bytes to text, keeping lone surrogates (as ``surrogatepass`` encodes them) and
    replacing other broken bytes by U+FFFD.

    >>> decode_utf8("a\\ud800한".encode("utf-8", "surrogatepass"))
    'a\\ud800한'
    >>> decode_utf8("한".encode()[:2] + b"!")
    '\\ufffd!'
    """
    return bytes(data).decode("utf-8", _DECODE_ERRORS)


@UNITS.register("byte")
class ByteUnit(BaseUnit):
    """UTF-8 bytes, each shown as one printable character (GPT-2 byte level); any text fits.

    ``split("한")`` gives ``('í', 'ķ', 'ľ')``: the three bytes ED 95 9C.  A lone surrogate
    (``"\\ud800"``) is spelled as ``surrogatepass`` writes it (ED A0 80) and comes back from
    ``join``, as the syllable and jamo units keep it through byte fallback; ``join`` of a sequence
    that is not whole UTF-8 replaces the broken bytes by U+FFFD (:func:`decode_utf8`).
    """

    name = "byte"
    #: the compiled encoder may cut words itself: UTF-8 bytes, byte b written initial_alphabet[b]
    compiled_symbols: CompiledSymbols = "bytes"

    def __init__(self) -> None:
        self._to_char = bytes_to_unicode()
        self._to_byte = {c: b for b, c in self._to_char.items()}
        self._split_table = [self._to_char[b] for b in range(256)]
        # join's str.translate table: each symbol -> the Latin-1 character of its byte; a character
        # below 256 that is no symbol -> U+FFFF, so that it fails encode("latin-1") as any other does
        self._join_table = {c: "\uffff" for c in range(256)} | {ord(c): chr(b) for c, b in self._to_byte.items()}

    @property
    def initial_alphabet(self) -> tuple[str, ...]:
        """All 256 byte symbols, so that every text is encodable."""
        return tuple(self._split_table)

    def alphabet_problem(self, symbols: Sequence[str]) -> str | None:
        """Only the 256 byte symbols (see :meth:`BaseUnit.alphabet_problem`)."""
        byte_symbols = set(self._to_char.values())
        bad = next((b for b in symbols if b not in byte_symbols), None)
        if bad is not None:
            return f"the alphabet holds {bad!r}, which is not one of the byte unit's 256 symbols"
        return None

    def split(self, word: str) -> tuple[str, ...]:
        table = self._split_table
        return tuple([table[b] for b in word.encode("utf-8", "surrogatepass")])

    def join(self, symbols: Iterable[str]) -> str:
        text = "".join(symbols)
        try:  # one translate and one encode, in C (a per-character dict lookup took twice as long)
            data = text.translate(self._join_table).encode("latin-1")
        except UnicodeEncodeError:
            bad = next(c for c in text if c not in self._to_byte)
            raise ValueError(f"symbol {bad!r} is not a byte-unit symbol") from None
        return decode_utf8(data)



def get_unit(spec: str | Mapping[str, Any] | Unit) -> Unit:
    """``get_unit("jamo")``, ``get_unit({"type": "jamo"})``, or a unit object, checked for every
    declaration."""
    unit = UNITS.build(spec)
    missing = [name for name in ("name", "initial_alphabet", "compiled_symbols") if not hasattr(unit, name)]
    if missing:
        raise TypeError(f"the unit {unit!r} does not declare {', '.join(missing)}; subclass "
                        "korean_bpe.units.BaseUnit (it gives the defaults) or declare them")
    return unit


def check_marker(marker: str | None) -> str | None:
    """Validate a marker string, naming the allowed ones."""
    return get_marker(marker).text


def apply_marker(symbols: Sequence[str], marker: str | None) -> tuple[str, ...]:
    """Attach a word-boundary marker to a word's symbols (:meth:`korean_bpe.markers.Marker.apply`)."""
    return get_marker(marker).apply(symbols)


def strip_marker(token: str, marker: str | None) -> str:
    """A token without its marker: ``strip_marker("##다", "##") == "다"``."""
    return get_marker(marker).strip(token)


def words_from_tokens(tokens: Sequence[str], marker: str | None) -> list[list[str]]:
    """Group a token sequence into words by its markers, markers stripped
    (:meth:`korean_bpe.markers.Marker.words`).

    With ``marker=None`` there are no boundaries: everything is one group.
    """
    return get_marker(marker).words(tokens)
