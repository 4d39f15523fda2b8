"""The text rules of our model files, in one place: ``merges.txt`` lines, the tokens they can hold,
the byte-fallback tokens, and the error that names a bad file and line.

``merges.txt`` is ``#version: 0.2`` (:data:`MERGES_HEADER`), then one merge a line, ``left right``
(GPT-2 / HF / subword-nmt): a token that holds a space or a line break cannot be written
(:func:`check_writable_token`, :data:`UNWRITABLE`).  :func:`render_merges_txt` writes the file,
:func:`parse_merges` reads it back, checking each line.

>>> text = render_merges_txt([("영", "화"), ("▁", "영화")])
>>> text.splitlines()
['#version: 0.2', '영 화', '▁ 영화']
>>> parse_merges(text, "merges.txt", known={"▁", "영", "화"}, merged=lambda a, b: a + b)
[('영', '화'), ('▁', '영화')]
>>> BYTE_TOKENS[0x41], len(BYTE_TOKENS)
('<0x41>', 256)

What a token may hold (:data:`BYTE_TOKENS`, :data:`UNWRITABLE`, :data:`SURROGATE`,
:func:`check_writable_token`) is written in :mod:`korean_bpe.tokens`, below the encoder and the
trainer that need it too; this module reads it from there (and so can you, under these names).
"""

from __future__ import annotations

import os
from collections.abc import Callable, Sequence
from pathlib import Path

from ..tokens import BYTE_TOKENS, SURROGATE, UNWRITABLE, check_writable_token

__all__ = [
    "BYTE_TOKENS", "MERGES_HEADER", "UNWRITABLE", "SURROGATE", "ModelFileError", "check_writable_token",
    "render_merges_txt", "parse_merges",
]

#: The first line of ``merges.txt`` (the version subword-nmt and HF write).
MERGES_HEADER = "#version: 0.2"


class ModelFileError(ValueError):
    """A model file is missing, corrupted or inconsistent.  ``path`` and ``line`` (1-based, or
    ``None``) say where; the message starts with ``path:line:``."""

    def __init__(self, message: str, *, path: str | os.PathLike[str], line: int | None = None) -> None:
        self.path = Path(path)
        self.line = line
        self.reason = message
        where = f"{self.path}:{line}" if line is not None else f"{self.path}"
        super().__init__(f"{where}: {message}")


def render_merges_txt(merges: Sequence[tuple[str, str]]) -> str:
    """``merges.txt`` text: the header, then ``left right`` one a line.

    >>> print(render_merges_txt([("영", "화"), ("▁", "영화")]), end="")
    #version: 0.2
    영 화
    ▁ 영화
    """
    for rank, (a, b) in enumerate(merges):
        check_writable_token(a, where=f"merge {rank}")
        check_writable_token(b, where=f"merge {rank}")
    return "".join([MERGES_HEADER, "\n", *(f"{a} {b}\n" for a, b in merges)])


def parse_merges(
    text: str, path: str | os.PathLike[str], *, known: set[str], merged: Callable[[str, str], str]
) -> list[tuple[str, str]]:
    """The merges of a ``merges.txt`` text, each line checked (:class:`ModelFileError` naming
    ``path`` and the line): the header, two tokens separated by one space, tokens that ``known``
    holds (the alphabet, then each merge's result ``merged(left, right)`` is added to it), no
    merge twice.  ``\\r\\n`` line ends are accepted."""
    lines = text.split("\n")
    if lines and lines[-1] == "":
        lines.pop()
    if not lines or not lines[0].startswith("#version"):
        first = lines[0] if lines else ""
        raise ModelFileError(f"expected the header {MERGES_HEADER!r}, got {first[:40]!r}", path=path, line=1)
    if lines[0].rstrip("\r") != MERGES_HEADER:
        raise ModelFileError(f"unsupported merges.txt version {lines[0]!r}; this korean_bpe reads {MERGES_HEADER!r}",
                             path=path, line=1)
    merges: list[tuple[str, str]] = []
    seen: set[tuple[str, str]] = set()
    for lineno, line in enumerate(lines[1:], start=2):
        if line.endswith("\r"):
            line = line[:-1]
        parts = line.split(" ")
        if len(parts) != 2 or not parts[0] or not parts[1]:
            raise ModelFileError(
                f"expected two tokens separated by one space ('left right'), got {line!r}", path=path, line=lineno)
        a, b = parts
        if (a, b) in seen:
            raise ModelFileError(f"the merge {line!r} appears twice", path=path, line=lineno)
        seen.add((a, b))
        merges.append((a, b))
    bad = first_unknown(merges, known, merged)
    if bad is not None:
        raise ModelFileError(
            f"unknown token {bad[1]!r}: it is neither in the alphabet (vocab.json + tokenizer_config.json) nor "
            "made by an earlier merge", path=path, line=bad[0] + 2)
    return merges


def first_unknown(merges: Sequence[tuple[str, str]], known: set[str],
                  merged: Callable[[str, str], str]) -> tuple[int, str] | None:
    """The merge chain rule: every merge joins tokens that exist before it, in ``known`` (the
    alphabet and special tokens; each merge's result ``merged(left, right)`` is added to it).
    Returns the rank and the token of the first merge that breaks it, or None.

    >>> first_unknown([("영", "화"), ("▁", "영화")], {"▁", "영", "화"}, str.__add__) is None
    True
    >>> first_unknown([("영", "화"), ("▁", "화영")], {"▁", "영", "화"}, str.__add__)
    (1, '화영')
    """
    for rank, (a, b) in enumerate(merges):
        for part in (a, b):
            if part not in known:
                return rank, part
        known.add(merged(a, b))
    return None
