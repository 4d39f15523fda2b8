"""Consecutive batches of an iterable: the one way the package cuts a stream of texts.

``itertools.batched`` (Python 3.12) gives tuples and copies a list that is one batch already;
counting (:mod:`korean_bpe.counting`) and the CLI's ``encode`` want lists, and a list short enough
handed over as it is.

>>> list(batches(iter("abcde"), 2))
[['a', 'b'], ['c', 'd'], ['e']]
>>> texts = ["영화", "재밌다"]
>>> next(batches(texts, 10)) is texts
True
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator
from itertools import islice
from typing import TypeVar

__all__ = ["batches"]

T = TypeVar("T")


def batches(items: Iterable[T], size: int) -> Iterator[list[T]]:
    """Consecutive lists of up to ``size`` items (``size`` >= 1); a list of at most ``size``
    items is handed over whole, not copied; nothing for no items."""
    if size < 1:
        raise ValueError(f"size must be >= 1, got {size}")
    if isinstance(items, list) and len(items) <= size:
        if items:
            yield items
        return
    it = iter(items)
    while batch := list(islice(it, size)):
        yield batch
