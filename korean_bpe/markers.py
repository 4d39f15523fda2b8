"""Word-boundary markers: how BPE (and decode) know where a word starts or ends.

One small object per kind, each owning what its marker means everywhere: putting it on a word's
symbols (:meth:`Marker.apply`), taking it off a token (:meth:`Marker.strip`), finding the words
again in a token sequence (:meth:`Marker.words`), the pieces a ``tokenizer.json`` needs
(``hf_*``) and the checks of a saved alphabet (:meth:`Marker.alphabet_problem`).

============== ============================ ============================== ===================
``marker=``    class (registry name)        ``apply(('값', '이'))``        as in
============== ============================ ============================== ===================
``"▁"``        :class:`SpaceMarker`         ``('▁', '값', '이')``          SentencePiece, HF
               (``space``)                                                 ``Metaspace``
``"</w>"``     :class:`EndOfWordMarker`     ``('값', '이</w>')``           subword-nmt, HF
               (``end_of_word``)                                           ``end_of_word_suffix``
``"##"``       :class:`ContinuationMarker`  ``('값', '##이')``             WordPiece, HF
               (``continuation``)                                          ``continuing_subword_prefix``
``None``       :class:`NoMarker` (``none``) ``('값', '이')``               (lossless pre-tokenizers)
============== ============================ ============================== ===================

The public API and the model files keep the strings (``tokenizer_config.json`` stores
``"marker": "▁"``); :func:`get_marker` turns a string into its object.

>>> get_marker("</w>").apply(("값", "이"))
('값', '이</w>')
>>> get_marker("##").words(["영화", "##관", "재", "##밌", "##다"])
[['영화', '관'], ['재', '밌', '다']]
>>> get_marker("▁").text, get_marker(None).name
('▁', 'none')

Three ambiguities are settled here rather than in the callers:

* ``##`` and a word that itself starts with ``##``: the word's first symbol is bare (``'#'``) and
  its second marked (``'###'``); merging them would give ``'##'``, then ``'##a'``, which is also
  the continuation token of ``a``, so decode could not tell them apart (HF's WordPiece decoder
  has the same ambiguity).  Training therefore never learns a merge that makes a word's first
  token start with ``##`` (:meth:`ContinuationMarker.ambiguous_start`): ``"##a"`` stays
  ``'#'`` + ``'###a'`` and comes back whole, from our decode and from HF's.
* ``</w>`` and a word holding the text ``</w>`` (``a</w>b``): a token ending with it would end the
  word early, so training cuts such words before the symbol that completes the text
  (:meth:`EndOfWordMarker.cuts`): no token ever holds ``</w>`` but as its marker.
* ``None`` keeps no word boundary at all, so it only suits pre-tokenizers whose pieces carry the
  spaces themselves (``raw``, lossless morpheme mode: they declare ``piece_kind = "marked"``, see
  :func:`pieces_keep_spaces`): with ``whitespace`` decode would glue ``영화 정말 재밌다`` into
  ``영화정말재밌다``; :meth:`NoMarker.check_pre_tokenizer` refuses it.

Not settled: a model trained before the cuts keeps its merges (it encodes as it did), so one that
learned ``'#' + '###'`` still decodes ``"##a"`` as ``"a"`` glued to the word before (a lone
``'##'`` token comes back right); and with ``##`` and byte fallback, a run of unknown ``'#'``
symbols is cut into marked symbols greedily (``####`` as ``'###' '#'``).
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from typing import Any, Protocol, runtime_checkable

from .registry import Registry

__all__ = [
    "Marker", "MARKERS", "MARKER_TEXTS", "SPACE_MARK", "SpaceMarker", "EndOfWordMarker", "ContinuationMarker",
    "NoMarker", "get_marker", "guess_marker", "pieces_keep_spaces", "MORPHEME_CUT",
]

SPACE_MARK = "\u2581"  # ▁

#: A cut inside a training word (U+FFFF, a Unicode noncharacter: never text): no merge crosses it
#: (:func:`korean_bpe.counting.split_words` cuts the marked symbols there), so a word
#: ``'▁아이언맨\uffff은'`` trains as ``('▁', '아', '이', '언', '맨')`` and ``('은',)`` while the
#: tokenizer encodes ``'▁아이언맨은'`` whole (:mod:`korean_bpe.pre_tokenizers.boundaries`).
MORPHEME_CUT = "\uffff"

#: The marker strings the public API takes and the model files store.
MARKER_TEXTS: tuple[str | None, ...] = (None, SPACE_MARK, "</w>", "##")


def pieces_keep_spaces(pre_tokenizer: Any) -> bool:
    """Whether the pre-tokenizer's pieces keep every space, as ``▁`` (it declares
    ``piece_kind = "marked"``: ``raw``, lossless morpheme mode), so that decode needs no marker to
    put the spaces back and ``▁`` as a marker would clash with them.  The declaration, not the
    ``lossless`` flag, says so (as it does for the encoder, :func:`korean_bpe.encoding.plan`): a
    stage may restore its text exactly from pieces without spaces (``text.split(" ")``, joined
    again with ``" "``), or keep the spaces in pieces it does not restore exactly.

    >>> from korean_bpe.pre_tokenizers import get_pre_tokenizer
    >>> pieces_keep_spaces(get_pre_tokenizer("raw")), pieces_keep_spaces(get_pre_tokenizer("whitespace"))
    (True, False)
    """
    return pre_tokenizer.piece_kind == "marked"


@runtime_checkable
class Marker(Protocol):
    """A word-boundary marker (see the module docstring): what the package reads and calls on one.

    The attributes are read-only here (a class constant such as ``text = "</w>"`` fits); the
    markers of this module share their defaults through a base class.
    """

    @property
    def name(self) -> str:
        """The registry name (``"space"``)."""

    @property
    def text(self) -> str | None:
        """The string of the public API and of ``tokenizer_config.json`` (``"▁"``, ``None``)."""

    @property
    def glued(self) -> bool:
        """True when the marker is glued to the symbol it marks (``'이</w>'``, ``'##이'``): it then
        counts no symbol of its own, and the alphabet holds each symbol bare and marked."""

    @property
    def compiled(self) -> bool:
        """True when ``apply`` is the rule ``text`` names (the compiled cores may apply it)."""

    @property
    def word_start(self) -> str | None:
        """The symbol put before every word (``"▁"``), or None."""

    @property
    def continuing_prefix(self) -> str | None:
        """HF BPE's ``continuing_subword_prefix`` (``"##"``; None: not used)."""

    @property
    def end_suffix(self) -> str | None:
        """HF BPE's ``end_of_word_suffix`` (``"</w>"``; None: not used)."""

    def apply(self, symbols: Sequence[str]) -> tuple[str, ...]:
        """The word's symbols, marked (``('값', '이')`` -> ``('값', '이</w>')``)."""

    def strip(self, token: str) -> str:
        """The token without its marker (``'이</w>'`` -> ``'이'``)."""

    def is_marked(self, token: str) -> bool:
        """Whether ``token`` carries the marker (``'##이'`` does, ``'##'`` alone does not)."""

    def base(self, symbol: str) -> str:
        """The unit symbol inside an alphabet symbol (``'이</w>'`` -> ``'이'``): read by the trainer."""

    def marked_alphabet(self, symbols: Iterable[str]) -> tuple[str, ...]:
        """``symbols`` with their marked forms (the tokenizer's initial alphabet)."""

    def may_cut(self, token: str) -> bool:
        """Whether a word holding ``token`` may need :meth:`cuts` (the trainer's quick filter)."""

    def cuts(self, tokens: Sequence[str]) -> list[int]:
        """Where the trainer cuts a word's tokens (before ``tokens[j]``) so that no merge hides a marker."""

    def words(self, tokens: Sequence[str]) -> list[list[str]]:
        """The words of a token sequence, each as its tokens without the marker (decode)."""

    def fallback_pieces(self, text: str) -> list[str]:
        """The marked symbols a run of byte-fallback tokens spells (decode)."""

    def check_pre_tokenizer(self, pre_tokenizer: Any) -> None:
        """Refuse a pre-tokenizer with which decode could not restore the text (``ValueError``)."""

    def check_model(self, model: Any) -> None:
        """Refuse a model trained with another marker (``ValueError``; read by the tokenizer)."""

    def check_words(self, words: Iterable[tuple[str, ...]]) -> None:
        """Refuse training words (symbol tuples) this marker did not mark (``ValueError``)."""

    def shows_in(self, alphabet: Sequence[str]) -> bool:
        """Whether an alphabet shows words marked this way (:func:`guess_marker`, continued training)."""

    def alphabet_problem(self, alphabet: Sequence[str]) -> str | None:
        """Why a saved alphabet cannot come from words marked so; None: it can (read on load)."""

    def hf_model(self) -> dict[str, Any]:
        """The marker's fields of HF's BPE model in ``tokenizer.json``."""

    def hf_normalizers(self, *, raw: bool, byte: bool) -> list[dict[str, Any]]:
        """The marker's HF normalizers."""

    def hf_pre_tokenizers(self, *, raw: bool, byte: bool) -> list[dict[str, Any]]:
        """The marker's HF pre-tokenizers, after the unit's own."""

    def hf_token_decoders(self, *, raw: bool, byte: bool, byte_fallback: bool) -> list[dict[str, Any]]:
        """The marker's HF decoders applied token by token, before the tokens are joined."""

    def hf_text_decoders(self, *, raw: bool, byte: bool) -> list[dict[str, Any]]:
        """The marker's HF decoders applied to the joined text."""

    def to_config(self) -> dict[str, Any]:
        """``{"type": name, ...}``, rebuilt by ``MARKERS.build``."""


MARKERS: Registry[Marker] = Registry("marker")


class _BaseMarker:
    """Shared defaults: no marked alphabet, no cuts, no HF stages, repr/equality by ``text``."""

    name = ""
    text: str | None = None
    glued = False
    #: ``apply`` is the rule its ``text`` names, so the compiled cores may apply it themselves; a
    #: subclass whose ``apply`` differs must set it to False
    compiled = True
    word_start: str | None = None
    continuing_prefix: str | None = None
    end_suffix: str | None = None

    def apply(self, symbols: Sequence[str]) -> tuple[str, ...]:
        return tuple(symbols)

    def strip(self, token: str) -> str:
        return token

    def is_marked(self, token: str) -> bool:
        """Whether ``token`` carries the marker (``'##이'`` does, ``'##'`` alone does not)."""
        return False

    def base(self, symbol: str) -> str:
        """The unit symbol inside an alphabet symbol (``'이</w>'`` -> ``'이'``); the trainer
        puts the bare symbol in the alphabet beside the marked one."""
        return self.strip(symbol) if self.glued else symbol

    def marked_alphabet(self, symbols: Iterable[str]) -> tuple[str, ...]:
        """``symbols`` with their marked forms, so that every word of them stays encodable."""
        return tuple(symbols)

    def may_cut(self, token: str) -> bool:
        """Whether a word holding ``token`` may need :meth:`cuts` (a quick filter for the trainer)."""
        return False

    def cuts(self, tokens: Sequence[str]) -> list[int]:
        """Where to cut a word's tokens (before ``tokens[j]``) so that no merge makes a token
        that decode would read as something else; the trainer learns no merge across a cut."""
        return []

    def fallback_pieces(self, text: str) -> list[str]:
        """Cut the text of a run of byte-fallback tokens into the marked symbols it spells."""
        return [text]

    def check_pre_tokenizer(self, pre_tokenizer: Any) -> None:
        """Refuse a pre-tokenizer with which decode could not restore the text."""

    def check_model(self, model: Any) -> None:
        """Refuse a model trained with another marker (its ``continuing_subword_prefix``)."""
        prefix = getattr(model, "continuing_subword_prefix", None)
        if prefix is not None and prefix != self.continuing_prefix:
            raise ValueError(f"the model was trained with marker={prefix!r} (continuing_subword_prefix); "
                             f"pass marker={prefix!r}, not {self.text!r}")

    def check_words(self, words: Iterable[tuple[str, ...]]) -> None:
        """Refuse training words (symbol tuples) that this marker did not mark."""

    def shows_in(self, alphabet: Sequence[str]) -> bool:
        """Whether the alphabet shows words marked this way (see :func:`guess_marker`): some
        symbol carries the marker (never, for a marker that marks nothing)."""
        return any(map(self.is_marked, alphabet))

    def alphabet_problem(self, alphabet: Sequence[str]) -> str | None:
        """Why a saved alphabet (non-empty) cannot come from words marked so; None: it can.

        >>> get_marker("</w>").alphabet_problem(["가", "▁"])
        "no alphabet token ends with '</w>', which marker '</w>' glues to the last symbol of every word"
        """
        for tok in alphabet:
            if len(self.base(tok)) != 1:
                return f"the alphabet token {tok!r} is not one symbol"
        return None if not alphabet or self.shows_in(alphabet) else self._missing

    _missing = ""

    # --- Hugging Face tokenizer.json -----------------------------------------------------------

    def hf_model(self) -> dict[str, Any]:
        """The marker's fields of HF's BPE model."""
        return {"continuing_subword_prefix": self.continuing_prefix, "end_of_word_suffix": self.end_suffix}

    def hf_normalizers(self, *, raw: bool, byte: bool) -> list[dict[str, Any]]:
        return []

    def hf_pre_tokenizers(self, *, raw: bool, byte: bool) -> list[dict[str, Any]]:
        """Stages after the unit's own (``ByteLevel`` for bytes)."""
        return []

    def hf_token_decoders(self, *, raw: bool, byte: bool, byte_fallback: bool) -> list[dict[str, Any]]:
        """Decoders applied token by token, before ``Fuse`` (or ``ByteLevel``) joins them."""
        return []

    def hf_text_decoders(self, *, raw: bool, byte: bool) -> list[dict[str, Any]]:
        """Decoders applied to the joined text."""
        return []

    def to_config(self) -> dict[str, Any]:
        return {"type": self.name}

    def __repr__(self) -> str:
        return f"{type(self).__name__}()"

    def __eq__(self, other: object) -> bool:
        return isinstance(other, _BaseMarker) and self.to_config() == other.to_config()

    def __hash__(self) -> int:
        return hash(repr(self.to_config()))


@MARKERS.register("space")
class SpaceMarker(_BaseMarker):
    """``▁`` before every word, a symbol of its own (SentencePiece, HF ``Metaspace``); the default
    for pre-tokenizers that drop the spaces (``whitespace``, morpheme analysis mode).

    >>> m = SpaceMarker()
    >>> m.apply(("영", "화"))
    ('▁', '영', '화')
    >>> m.words(["▁영화", "▁", "재밌", "다"])
    [['영화'], ['재밌', '다']]
    """

    name = "space"
    text = SPACE_MARK
    word_start = SPACE_MARK
    _missing = "the alphabet has no '▁', which marker '▁' puts before every word"

    def apply(self, symbols: Sequence[str]) -> tuple[str, ...]:
        return (SPACE_MARK, *symbols) if symbols else ()

    def strip(self, token: str) -> str:
        return token[1:] if token.startswith(SPACE_MARK) else token

    def is_marked(self, token: str) -> bool:
        return token.startswith(SPACE_MARK)

    def words(self, tokens: Sequence[str]) -> list[list[str]]:
        words: list[list[str]] = []
        current: list[str] | None = None
        for tok in tokens:
            if current is None or tok.startswith(SPACE_MARK):
                current = []
                words.append(current)
            rest = self.strip(tok)
            if rest:
                current.append(rest)
        return words

    def check_pre_tokenizer(self, pre_tokenizer: Any) -> None:
        if pieces_keep_spaces(pre_tokenizer):
            raise ValueError(
                f"marker='▁' cannot be used with the pre-tokenizer {pre_tokenizer!r}: its pieces already "
                "write spaces as '▁' (piece_kind 'marked'), so decode could not tell them apart; use marker=None "
                "(its default), '</w>' or '##'"
            )

    def shows_in(self, alphabet: Sequence[str]) -> bool:
        return SPACE_MARK in alphabet

    def alphabet_problem(self, alphabet: Sequence[str]) -> str | None:
        rest = [t for t in alphabet if t != SPACE_MARK]
        bad = next((t for t in rest if len(t) != 1), None)
        if bad is not None:
            return f"the alphabet token {bad!r} is not one symbol"
        return None if not alphabet or SPACE_MARK in alphabet else self._missing

    def hf_normalizers(self, *, raw: bool, byte: bool) -> list[dict[str, Any]]:
        if byte or raw:
            return []
        # not HF's Strip: its JavaScript client strips its own white space (U+FEFF too); and its
        # Prepend prepends to an empty text there too: a lone "▁" is taken back
        return [_replace({"Regex": f"\\A{_RUST_SPACE}+|{_RUST_SPACE}+\\z"}, ""), {"type": "Prepend", "prepend": SPACE_MARK},
                _replace({"Regex": f"\\A{SPACE_MARK}\\z"}, ""), _replace(" ", " " + SPACE_MARK)]

    def hf_pre_tokenizers(self, *, raw: bool, byte: bool) -> list[dict[str, Any]]:
        if not byte:
            return []
        return [{"type": "Metaspace", "replacement": SPACE_MARK, "prepend_scheme": "always", "split": False}]

    def hf_token_decoders(self, *, raw: bool, byte: bool, byte_fallback: bool) -> list[dict[str, Any]]:
        return [_replace(SPACE_MARK, "\u0120")] if byte else []  # Ġ: the byte-level spelling of a space

    def hf_text_decoders(self, *, raw: bool, byte: bool) -> list[dict[str, Any]]:
        out = [] if byte else [_replace(SPACE_MARK, " ")]
        return out + ([] if raw else [{"type": "Strip", "content": " ", "start": 1, "stop": 0}])


@MARKERS.register("end_of_word")
class EndOfWordMarker(_BaseMarker):
    """``</w>`` glued to the last symbol of every word (subword-nmt, HF ``end_of_word_suffix``).

    >>> m = EndOfWordMarker()
    >>> m.apply(("재", "밌", "다"))
    ('재', '밌', '다</w>')
    >>> m.words(["재밌", "다</w>", "영화</w>"])
    [['재밌', '다'], ['영화']]
    """

    name = "end_of_word"
    text = "</w>"
    glued = True
    end_suffix = "</w>"
    _missing = "no alphabet token ends with '</w>', which marker '</w>' glues to the last symbol of every word"

    def apply(self, symbols: Sequence[str]) -> tuple[str, ...]:
        return (*symbols[:-1], symbols[-1] + "</w>") if symbols else ()

    def is_marked(self, token: str) -> bool:
        return len(token) > 4 and token.endswith("</w>")

    def strip(self, token: str) -> str:
        return token[:-4] if self.is_marked(token) else token

    def words(self, tokens: Sequence[str]) -> list[list[str]]:
        words: list[list[str]] = []
        current: list[str] | None = None
        for tok in tokens:
            if current is None:
                current = []
                words.append(current)
            current.append(self.strip(tok))
            if self.is_marked(tok):
                current = None
        return words

    def marked_alphabet(self, symbols: Iterable[str]) -> tuple[str, ...]:
        base = tuple(symbols)
        return base + tuple(s + "</w>" for s in base)

    def may_cut(self, token: str) -> bool:
        return ">" in self.strip(token)  # the symbol that completes a literal '</w>'

    def cuts(self, tokens: Sequence[str]) -> list[int]:
        """Before each token that completes a literal ``</w>`` begun by the tokens before it, so
        that no token holds the text ``</w>`` (it would read as the end of a word, in our decode
        and in HF's): the word ``a</w>b`` is ``a < / w > b</w>``, cut before ``>``.

        >>> EndOfWordMarker().cuts(["a", "<", "/", "w", ">", "b</w>"]), EndOfWordMarker().cuts(["<", "/", "w", "></w>"])
        ([4], [3])
        """
        bases = [self.strip(t) for t in tokens]
        if "</w>" not in "".join(bases):
            return []
        out: list[int] = []
        text = ""
        for j, base in enumerate(bases):
            start = len(text)
            text += base
            if any(text.startswith("</w>", k) for k in range(max(0, start - 3), start)):
                out.append(j)
        return out

    def fallback_pieces(self, text: str) -> list[str]:
        parts = text.split("</w>")
        pieces = [p + "</w>" for p in parts[:-1]]
        if parts[-1]:
            pieces.append(parts[-1])
        return pieces

    def check_words(self, words: Iterable[tuple[str, ...]]) -> None:
        bad = next((k for k in words if not k[-1].endswith("</w>")), None)
        if bad is not None:
            raise ValueError(f"marker='</w>' but the word {bad!r} does not end with it; build words with "
                             "korean_bpe.units.apply_marker(symbols, '</w>')")

    def hf_token_decoders(self, *, raw: bool, byte: bool, byte_fallback: bool) -> list[dict[str, Any]]:
        return [_replace("</w>", "" if raw else "\u0120" if byte else " ")]

    def hf_text_decoders(self, *, raw: bool, byte: bool) -> list[dict[str, Any]]:
        return [] if raw else [_replace({"Regex": " \\z"}, "")]  # the space after the last word


@MARKERS.register("continuation")
class ContinuationMarker(_BaseMarker):
    """``##`` glued to every symbol but a word's first (WordPiece, HF ``continuing_subword_prefix``);
    a merge drops the right part's prefix, as HF does (``'재' + '##밌'`` -> ``'재밌'``).

    >>> m = ContinuationMarker()
    >>> m.apply(("재", "밌", "다"))
    ('재', '##밌', '##다')
    >>> m.words(["재밌", "##다", "영화"])
    [['재밌', '다'], ['영화']]

    A word that starts with ``##`` keeps a bare ``'#'`` first (see the module docstring):

    >>> m.apply(tuple("##a"))
    ('#', '###', '##a')
    >>> m.ambiguous_start("#", "###"), m.ambiguous_start("#", "##a")
    (True, False)
    >>> m.words(["#", "###a", "#", "###"])
    [['#', '#a'], ['#', '#']]
    """

    name = "continuation"
    text = "##"
    glued = True
    continuing_prefix = "##"
    _missing = "no alphabet token starts with '##', which marker '##' glues to every symbol but the first"

    def apply(self, symbols: Sequence[str]) -> tuple[str, ...]:
        return (symbols[0], *("##" + s for s in symbols[1:])) if symbols else ()

    def is_marked(self, token: str) -> bool:
        return len(token) > 2 and token.startswith("##")

    def strip(self, token: str) -> str:
        return token[2:] if self.is_marked(token) else token

    def words(self, tokens: Sequence[str]) -> list[list[str]]:
        words: list[list[str]] = []
        current: list[str] | None = None
        for tok in tokens:
            if current is None or not self.is_marked(tok):
                current = []
                words.append(current)
            current.append(self.strip(tok))
        return words

    def marked_alphabet(self, symbols: Iterable[str]) -> tuple[str, ...]:
        base = tuple(symbols)
        return base + tuple("##" + s for s in base)

    def ambiguous_start(self, first: str, second: str) -> bool:
        """Whether merging a word's first two tokens would start the word with ``##``."""
        merged = first + (second[2:] if second.startswith("##") else second)
        return not first.startswith("##") and merged.startswith("##")

    def may_cut(self, token: str) -> bool:
        return token != "##" and "##".startswith(token)

    def cuts(self, tokens: Sequence[str]) -> list[int]:
        """After the first token when merging it with the second would start the word with
        ``##`` (:meth:`ambiguous_start`).

        >>> ContinuationMarker().cuts(["#", "###", "##a"]), ContinuationMarker().cuts(["#", "##a"])
        ([1], [])
        """
        return [1] if len(tokens) > 1 and self.ambiguous_start(tokens[0], tokens[1]) else []

    def fallback_pieces(self, text: str) -> list[str]:
        pieces, i = [], 0
        while i < len(text):
            if text.startswith("##", i) and i + 2 < len(text):
                pieces.append(text[i:i + 3])
                i += 3
            else:
                pieces.append(text[i])
                i += 1
        return pieces

    def check_model(self, model: Any) -> None:
        if getattr(model, "continuing_subword_prefix", None) != "##":
            raise ValueError("marker='##' needs a model trained with it: BPEModel(..., continuing_subword_prefix='##')")

    def check_words(self, words: Iterable[tuple[str, ...]]) -> None:
        bad = next((k for k in words if any(not s.startswith("##") for s in k[1:])), None)
        if bad is not None:
            raise ValueError(f"marker='##' but the word {bad!r} has a non-first symbol without it; build "
                             "words with korean_bpe.units.apply_marker(symbols, '##')")

    def hf_token_decoders(self, *, raw: bool, byte: bool, byte_fallback: bool) -> list[dict[str, Any]]:
        out = []
        if byte_fallback and not byte:  # one run of byte tokens may spell several "##" symbols: keep the first
            out.append(_replace({"Regex": "(?<=[\\s\\S])##"}, ""))
        if raw:
            out.append(_replace({"Regex": "^##"}, ""))
        else:
            out.append({"type": "WordPiece", "prefix": "##", "cleanup": False})
            if byte:
                out.append(_replace(" ", "\u0120"))  # the byte-level spelling of a space
        return out


@MARKERS.register("none")
class NoMarker(_BaseMarker):
    """No marker: the words' symbols as they are, for pre-tokenizers whose pieces carry the spaces
    themselves (``raw``: ``'▁영화'``; lossless morpheme mode: ``'▁올해'``).

    >>> NoMarker().words(["▁영화", "▁재밌", "다"])
    [['▁영화', '▁재밌', '다']]
    >>> from korean_bpe.pre_tokenizers import get_pre_tokenizer
    >>> NoMarker().check_pre_tokenizer(get_pre_tokenizer("whitespace"))
    Traceback (most recent call last):
    ...
    ValueError: marker=None with the pre-tokenizer WhitespacePreTokenizer(), which drops the spaces, keeps no word boundary: decode would glue the words together ('영화 정말 재밌다' -> '영화정말재밌다'); use marker='▁' (default) or a lossless pre-tokenizer such as raw

    ``glue_words=True`` accepts it anyway: only for models saved before this check, which
    :meth:`korean_bpe.Tokenizer.load` loads so, with a warning.
    """

    name = "none"
    text = None

    def __init__(self, *, glue_words: bool = False) -> None:
        if not isinstance(glue_words, bool):
            raise TypeError(f"glue_words must be True or False, got {glue_words!r}")
        self.glue_words = glue_words

    def words(self, tokens: Sequence[str]) -> list[list[str]]:
        return [list(tokens)] if tokens else []

    def check_pre_tokenizer(self, pre_tokenizer: Any) -> None:
        if not self.glue_words and not pieces_keep_spaces(pre_tokenizer):
            raise ValueError(
                f"marker=None with the pre-tokenizer {pre_tokenizer!r}, which drops the spaces, keeps no word "
                "boundary: decode would glue the words together ('영화 정말 재밌다' -> '영화정말재밌다'); use "
                "marker='▁' (default) or a lossless pre-tokenizer such as raw"
            )

    def alphabet_problem(self, alphabet: Sequence[str]) -> str | None:
        bad = next((t for t in alphabet if len(t) != 1), None)
        return None if bad is None else f"the alphabet token {bad!r} is not one symbol"

    def to_config(self) -> dict[str, Any]:
        return {"type": self.name, "glue_words": True} if self.glue_words else {"type": self.name}

    def __repr__(self) -> str:
        return "NoMarker(glue_words=True)" if self.glue_words else "NoMarker()"


_BY_TEXT: dict[str | None, type[Marker]] = {
    cls.text: cls for cls in (SpaceMarker, EndOfWordMarker, ContinuationMarker, NoMarker)
}


def get_marker(spec: str | None | Mapping[str, Any] | Marker) -> Marker:
    """The marker object for a marker string (``"▁"``, ``"</w>"``, ``"##"``, ``None``), a config
    dict (``{"type": "space"}``) or a marker object (returned as is).

    >>> get_marker("##"), get_marker({"type": "space"}).text
    (ContinuationMarker(), '▁')
    >>> get_marker("@@")
    Traceback (most recent call last):
    ...
    ValueError: marker='@@' is not supported; use one of (None, '▁', '</w>', '##')
    """
    if spec is None or isinstance(spec, str):
        cls = _BY_TEXT.get(spec)
        if cls is None:
            raise ValueError(f"marker={spec!r} is not supported; use one of {MARKER_TEXTS!r}")
        return cls()
    if isinstance(spec, Mapping):
        return MARKERS.build(spec)
    if isinstance(spec, Marker):
        return spec
    raise ValueError(f"marker={spec!r} is not supported; use one of {MARKER_TEXTS!r}")


def guess_marker(alphabet: Sequence[str]) -> str | None:
    """The marker string an alphabet shows: marked symbols ``x</w>`` or ``##x``, else a ``▁``.

    >>> guess_marker(["가", "가</w>"]), guess_marker(["▁", "가"]), guess_marker(["가"])
    ('</w>', '▁', None)
    """
    for cls in (EndOfWordMarker, ContinuationMarker, SpaceMarker):
        if cls().shows_in(alphabet):
            return cls.text
    return None


#: the characters HF's Rust ``Strip`` strips (Unicode White_Space), as a regex class
_RUST_SPACE = "[\\x{9}-\\x{d}\\x{20}\\x{85}\\x{a0}\\x{1680}\\x{2000}-\\x{200a}\\x{2028}\\x{2029}\\x{202f}\\x{205f}\\x{3000}]"


def _replace(pattern: str | dict[str, str], content: str) -> dict[str, Any]:
    pat = {"String": pattern} if isinstance(pattern, str) else pattern
    return {"type": "Replace", "pattern": pat, "content": content}
