"""The pre-tokenizer protocol and the pieces every implementation shares.

A pre-tokenizer turns a text into a list of *words* (strings) that BPE segments further, and back:

* ``pt(text) -> list[str]`` and ``pt.batch(texts, *, show_progress=None) -> list[list[str]]``
  (exactly the per-text result);
* ``pt.restore(words) -> str``: the text again;
* ``pt.to_config() -> {"type": name, ...}``; ``get_pre_tokenizer(config)`` rebuilds it.

Besides these methods, a pre-tokenizer *declares* what it does with attributes, and the rest of the
package reads the declarations, never the class, so a stage of your own gets the same treatment by
declaring the same (:class:`BasePreTokenizer` gives the defaults).  Each declaration, and what
reads it:

* ``name`` (required): the registry name, ``to_config()["type"]``.
* ``lossless`` (required, bool): whether ``pt.restore(pt(text)) == text`` for every text (see each
  class for the fine print).  Read by :mod:`korean_bpe.compare` (its table's ``lossless``
  column; the morpheme baseline needs it); :class:`BasePreTokenizer` derives ``piece_kind`` from
  it.
* ``piece_kind`` (optional): what the pieces are.  ``"whitespace"``:
  exactly ``text.split()``, so the compiled encoder may cut the text itself
  (:func:`korean_bpe.encoding.plan`); ``"marked"``: every character kept, in order, each space as
  ``▁`` inside the pieces (``raw``, lossless morpheme mode), so offsets are read off the pieces
  (:meth:`korean_bpe.Tokenizer.encode_with_offsets`) and the pieces carry the word boundaries
  (:func:`korean_bpe.markers.pieces_keep_spaces`: the default marker is then ``None``, ``▁`` is
  refused, and ``None`` is refused for any other kind; :mod:`korean_bpe.hf`'s ``decode`` joins
  the runs around added tokens by nothing, not a space); ``"words"``: anything else (the pieces
  are looked up in the text for offsets).  A stage that declares none is taken as ``"words"`` by
  the encoder and for offsets (the safe path), and by the marker checks as
  :class:`BasePreTokenizer` derives it (``"marked"`` when ``lossless``), so stages written before
  the declaration keep their markers.
* ``add_dummy_prefix`` (optional, with ``piece_kind = "marked"``; missing means False): a ``▁``
  opens the first piece of each non-empty line that stands for no character of the text (as
  SentencePiece's, ``raw``'s default).  Read for offsets
  (:meth:`korean_bpe.Tokenizer.encode_with_offsets` aligns it with the line's first character, as
  HF does); :mod:`korean_bpe.io.hf` reads it from ``raw``'s config for ``tokenizer.json``.
* ``drop`` and ``pos`` (optional, analyzers): the tags an analysis leaves out and the analysis
  itself, ``pt.pos(text) -> [(surface, tag), ...]``; when training finds no word,
  :meth:`korean_bpe.Tokenizer.train` names the dropped tags with an example each.
* ``analyzer_version`` (optional, str): the analyzer's version; :mod:`korean_bpe.compare` keeps
  the pieces of such a stage (``kiwi``, ``mecab``) in the on-disk analysis cache under it.

Constructor keywords ``cache``, ``cache_dir`` and ``workers``, when the class takes them, are set
by :func:`korean_bpe.distributed.count_files` in each worker (one process a worker, the worker's
own cache).  ``raw``'s ``split_by_whitespace`` is no declaration: only :mod:`korean_bpe.counting`
reads it, on ``raw`` itself, to pick the compiled counting.

Lossless morpheme mode marks the white space that preceded a morpheme with ``▁`` glued to its
front, so ``"아이언맨은 올해"`` becomes ``['아이언맨', '은', '▁올해']`` and restores by replacing
``▁`` with a space.  Line breaks become pieces of their own (``'\\n'``), so that no token ever holds
a line break (``merges.txt`` is one merge a line).
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Mapping, Sequence
from typing import Any, Protocol, runtime_checkable

from ..registry import Registry
from ..units import SPACE_MARK

__all__ = [
    "PreTokenizer", "BasePreTokenizer", "PRE_TOKENIZERS", "get_pre_tokenizer",
    "raw_pieces", "pieces_from_spans", "spans_from_surfaces", "restore_marked", "LINE_BREAKS",
]

#: every character ``str.splitlines`` breaks on; each becomes a piece of its own
LINE_BREAKS = "\n\r\x0b\x0c\x1c\x1d\x1e\x85\u2028\u2029"
_LINE_BREAK_RE = re.compile(f"([{re.escape(LINE_BREAKS)}])")


@runtime_checkable
class PreTokenizer(Protocol):
    """What every pre-tokenizer has; the optional declarations (``piece_kind``,
    ``add_dummy_prefix``, ...) are listed in the module docstring with what reads them."""

    name: str
    lossless: bool

    def __call__(self, text: str) -> list[str]: ...

    def batch(self, texts: Iterable[str], *, show_progress: bool | None = None) -> list[list[str]]: ...

    def restore(self, words: Sequence[str]) -> str: ...

    def to_config(self) -> dict[str, Any]: ...


PRE_TOKENIZERS: Registry[PreTokenizer] = Registry("pre-tokenizer")


class BasePreTokenizer:
    """Shared defaults: a per-text ``batch`` loop, ``repr`` from the config, equality by config."""

    name: str = ""
    lossless: bool = False

    def __call__(self, text: str) -> list[str]:  # pragma: no cover - abstract
        raise NotImplementedError

    @property
    def piece_kind(self) -> str:
        """``"marked"`` when lossless (spaces kept as ``▁``), else ``"words"`` (see the module docstring)."""
        return "marked" if self.lossless else "words"

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
    """``get_pre_tokenizer("okt", drop=())``, ``get_pre_tokenizer({"type": "okt", ...})``."""
    return PRE_TOKENIZERS.build(spec, **options)


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
    """Locate each analyzer surface in ``text``, left to right.

    Raises ``ValueError`` when a surface is not found in order (the analyzer rewrote the text,
    e.g. Okt with ``norm=True``): callers that promise losslessness must not guess.
    """
    spans: list[tuple[int, int]] = []
    cursor = 0
    for s in surfaces:
        if not s:
            continue
        i = text.find(s, cursor)
        if i < 0:
            raise ValueError(f"morpheme {s!r} not found in the text after offset {cursor}: the analyzer changed the surface")
        spans.append((i, i + len(s)))
        cursor = i + len(s)
    return spans
