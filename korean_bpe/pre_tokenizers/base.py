"""The pre-tokenizer protocol and the pieces every implementation shares.

A pre-tokenizer turns a text into a list of *words* (strings) that BPE segments further, and back:
``pt(text) -> list[str]``, ``pt.batch(texts, *, show_progress=None)`` (exactly the per-text
result), ``pt.restore(words) -> str`` and ``pt.to_config() -> {"type": name, ...}``
(``get_pre_tokenizer(config)`` rebuilds it).

Besides these methods a pre-tokenizer *declares* what it does, and the rest of the package reads
the declarations directly, never the class; :class:`BasePreTokenizer` gives every default, and
docs/API.md's table says what reads each one:

* ``name`` and ``lossless`` (required): the registry name; whether ``restore(pt(text)) == text``;
* ``piece_kind``: ``"whitespace"`` (the pieces are ``text.split()``), ``"marked"`` (every
  character kept in order, each space as ``▁``: ``raw``, lossless morpheme mode; then the pieces
  carry the word boundaries and the default marker is ``None``), ``"words"`` (anything else);
* ``compiled_cut``: how the compiled core may cut the text itself, ``"whitespace"`` or
  ``"sentencepiece"`` (:func:`korean_bpe.encoding.plan`, the compiled counting), or ``None``;
* ``add_dummy_prefix``: with ``"marked"``, a ``▁`` opening each non-empty line stands for no
  character (``raw``; :mod:`korean_bpe.encoding.offsets` aligns it as HF does);
* ``drop`` and ``pos``: an analyzer's dropped tags and its ``(surface, tag)`` analysis (training
  names the dropped tags when no word is left);
* ``analyzer_version``: the analyzer's version (compare's on-disk analysis cache is keyed by it).

Lossless morpheme mode marks the white space that preceded a morpheme with ``▁`` glued to its
front, so ``"아이언맨은 올해"`` becomes ``['아이언맨', '은', '▁올해']`` and restores by replacing
``▁`` with a space.  Line breaks become pieces of their own (``'\\n'``), so that no token ever holds
a line break (``merges.txt`` is one merge a line).
"""

from __future__ import annotations

import re
from collections.abc import Callable, Collection, Iterable, Mapping, Sequence
from typing import Any, Literal, Protocol, runtime_checkable

from ..encoding.offsets import find_in_order
from ..registry import Registry
from ..tokens import LINE_BREAKS
from ..units import SPACE_MARK

__all__ = [
    "PreTokenizer", "BasePreTokenizer", "PRE_TOKENIZERS", "get_pre_tokenizer",
    "raw_pieces", "pieces_from_spans", "spans_from_surfaces", "restore_marked", "LINE_BREAKS",
]

_LINE_BREAK_RE = re.compile(f"([{re.escape(LINE_BREAKS)}])")


@runtime_checkable
class PreTokenizer(Protocol):
    """What every pre-tokenizer has: four methods and the declarations the rest of the package
    reads (the module docstring says what each means and what reads it; :class:`BasePreTokenizer`
    gives the defaults)."""

    name: str
    lossless: bool
    piece_kind: PieceKind
    compiled_cut: CompiledCut
    add_dummy_prefix: bool
    drop: Collection[str]
    analyzer_version: str | None

    def __call__(self, text: str) -> list[str]: ...

    def batch(self, texts: Iterable[str], *, show_progress: bool | None = None) -> list[list[str]]: ...

    def restore(self, words: Sequence[str]) -> str: ...

    def to_config(self) -> dict[str, Any]: ...


#: what a pre-tokenizer's pieces are (see the module docstring)
PieceKind = Literal["whitespace", "marked", "words"]
#: how the compiled encoder may cut the text itself (see :func:`korean_bpe.encoding.plan`)
CompiledCut = Literal["whitespace", "sentencepiece"] | None
#: every declaration, with :class:`BasePreTokenizer`'s default
DECLARATIONS = ("name", "lossless", "piece_kind", "compiled_cut", "add_dummy_prefix", "pos", "drop", "analyzer_version")


PRE_TOKENIZERS: Registry[PreTokenizer] = Registry("pre-tokenizer")


class BasePreTokenizer:
    """Shared defaults: the declarations, a per-text ``batch`` loop, ``repr`` from the config,
    equality by config."""

    name: str = ""
    lossless: bool = False
    add_dummy_prefix: bool = False
    #: the analysis, ``pos(text) -> [(surface, tag), ...]`` (analyzers), else None
    pos: Callable[[str], list[tuple[str, str]]] | None = None
    drop: Collection[str] = ()
    analyzer_version: str | None = None

    def __call__(self, text: str) -> list[str]:  # pragma: no cover - abstract
        raise NotImplementedError

    @property
    def piece_kind(self) -> PieceKind:
        """``"marked"`` when lossless (spaces kept as ``▁``), else ``"words"`` (see the module docstring)."""
        return "marked" if self.lossless else "words"

    @property
    def compiled_cut(self) -> CompiledCut:
        """``"whitespace"`` when the pieces are ``text.split()`` (``piece_kind``), else None."""
        return "whitespace" if self.piece_kind == "whitespace" else None

    def batch(self, texts: Iterable[str], *, show_progress: bool | None = None) -> list[list[str]]:
        return [self(t) for t in texts]

    def restore(self, words: Sequence[str]) -> str:
        return " ".join(words)

    def to_config(self) -> dict[str, Any]:
        return {"type": self.name}

    def __repr__(self) -> str:
        cfg = self.to_config()
        cfg.pop("type")
        args = ", ".join(f"{k}={v!r}" for k, v in cfg.items())
        return f"{type(self).__name__}({args})"

    def __eq__(self, other: object) -> bool:
        return isinstance(other, BasePreTokenizer) and self.to_config() == other.to_config()

    def __hash__(self) -> int:
        return hash(repr(self.to_config()))


def get_pre_tokenizer(spec: str | Mapping[str, Any] | PreTokenizer, **options: Any) -> PreTokenizer:
    """``get_pre_tokenizer("okt", drop=())``, ``get_pre_tokenizer({"type": "okt", ...})``; an
    object is checked for every declaration (:data:`DECLARATIONS`)."""
    pt = PRE_TOKENIZERS.build(spec, **options)
    missing = [name for name in DECLARATIONS if not hasattr(pt, name)]
    if missing:
        raise TypeError(f"the pre-tokenizer {pt!r} does not declare {', '.join(missing)}; subclass "
                        "korean_bpe.pre_tokenizers.BasePreTokenizer (it gives the defaults) or declare them")
    return pt


def raw_pieces(text: str) -> list[str]:
    """Marked lines: one piece per line, spaces as ``▁``, each line break a piece.

    The gaps between morphemes in lossless morpheme mode, and the legacy ``raw`` cut
    (``RawPreTokenizer(split_by_whitespace=False, add_dummy_prefix=False)``); today's ``raw`` adds
    a dummy prefix and splits at spaces (:func:`korean_bpe.pre_tokenizers.simple.sentencepiece_pieces`).

    >>> raw_pieces("아이언맨 또 보고 싶다\\n굿")
    ['아이언맨▁또▁보고▁싶다', '\\n', '굿']
    """
    return [p.replace(" ", SPACE_MARK) for p in _LINE_BREAK_RE.split(text) if p]


def restore_marked(words: Sequence[str]) -> str:
    """Inverse of :func:`raw_pieces` and :func:`pieces_from_spans`: concatenate, ``▁`` -> space."""
    return "".join(words).replace(SPACE_MARK, " ")


def pieces_from_spans(text: str, spans: Iterable[tuple[int, int]]) -> list[str]:
    """Lossless pieces from sorted, non-overlapping ``(start, end)`` spans of ``text``.

    Text between spans (white space, or characters an analyzer skipped) is kept: runs of spaces
    become ``▁`` glued to the next span, anything else becomes raw pieces of its own.

    >>> pieces_from_spans("아이언맨은 올해", [(0, 4), (4, 5), (6, 8)])
    ['아이언맨', '은', '▁올해']
    """
    out: list[str] = []
    cursor = 0
    for start, end in spans:
        if start < cursor or end < start:
            raise ValueError(f"spans must be sorted and non-overlapping; got ({start}, {end}) after {cursor}")
        prefix = ""
        if start > cursor:
            gap = raw_pieces(text[cursor:start])
            if gap and gap[-1].strip(SPACE_MARK) == "":
                prefix = gap.pop()
            out.extend(gap)
        if end > start:
            out.append(prefix + text[start:end])
        elif prefix:
            out.append(prefix)
        cursor = end
    out.extend(raw_pieces(text[cursor:]))
    return out


def spans_from_surfaces(text: str, surfaces: Iterable[str]) -> list[tuple[int, int]]:
    """Locate each analyzer surface in ``text``, left to right
    (:func:`korean_bpe.encoding.offsets.find_in_order`, the one definition of where text sits)."""
    return find_in_order(text, surfaces)
