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
from typing import NoReturn

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
    body = lines[1:]
    if any(line.endswith("\r") for line in body):
        body = [line[:-1] if line.endswith("\r") else line for line in body]
    parts = [line.split(" ") for line in body]
    merges: list[tuple[str, str]] = [(p[0], p[1]) for p in parts if len(p) == 2 and p[0] and p[1]]
    if len(merges) != len(body) or len(set(merges)) != len(merges):  # find the line to name
        _first_bad_merge_line(body, path)
    bad = first_unknown(merges, known, merged)
    if bad is not None:
        raise ModelFileError(
            f"unknown token {bad[1]!r}: it is neither in the alphabet (vocab.json + tokenizer_config.json) nor "
            "made by an earlier merge", path=path, line=bad[0] + 2)
    return merges


def _first_bad_merge_line(body: Sequence[str], path: str | os.PathLike[str]) -> NoReturn:
    """Raise :class:`ModelFileError` at the first line of ``body`` (merges.txt after its header)
    that is not two tokens separated by one space, or repeats an earlier merge."""
    seen: set[tuple[str, str]] = set()
    for lineno, line in enumerate(body, start=2):
        parts = line.split(" ")
        if len(parts) != 2 or not parts[0] or not parts[1]:
            raise ModelFileError(
                f"expected two tokens separated by one space ('left right'), got {line!r}", path=path, line=lineno)
        if (parts[0], parts[1]) in seen:
            raise ModelFileError(f"the merge {line!r} appears twice", path=path, line=lineno)
        seen.add((parts[0], parts[1]))
    raise AssertionError("a bad merges.txt line was counted but not found")


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
        if a not in known:
            return rank, a
        if b not in known:
            return rank, b
        known.add(merged(a, b))
    return None
