"""Flat output: the ids of many texts in one NumPy array, and where each text's ids start.

What a language-model training script reads (nanoGPT's ``prepare.py``, Megatron's bin/idx): not a
Python list per text and an ``int`` per token, but ``ids`` (``uint16`` when every id fits in 16
bits, else ``uint32``: :func:`id_dtype`) and ``starts``, ``int64``, one more than the texts: text
``k``'s ids are ``ids[starts[k]:starts[k + 1]]``.

* :class:`FlatCollector` gathers the chunks the encoder hands out
  (:func:`korean_bpe._threads.each_chunk`): the compiled core's chunks are copied into the
  array without a Python object a token (``ChunkIds.write_flat``); lists of ids (the pure-Python
  fallback, a unit the compiled core does not cut) are copied from the lists;
* :func:`write_flat_files` streams batches of them to ``PREFIX.ids.npy`` and
  ``PREFIX.starts.npy`` (NumPy's ``.npy`` format, readable with ``numpy.load(..., mmap_mode="r")``)
  in bounded memory, atomically.

NumPy is imported when first needed, not with :mod:`korean_bpe`.

>>> flat = flat_from_lists([[8, 1, 9, 4], [], [1, 9, 4]], "uint16")
>>> flat.ids.tolist(), flat.starts.tolist()
([8, 1, 9, 4, 1, 9, 4], [0, 4, 4, 7])
>>> flat.ids.dtype.name, flat.text(2).tolist()
('uint16', [1, 9, 4])
"""

from __future__ import annotations

import os
from collections.abc import Iterable
from itertools import chain
from pathlib import Path
from typing import Any, BinaryIO, NamedTuple

from ..files import atomic_write

__all__ = ["FlatIds", "id_dtype", "FlatCollector", "flat_from_lists", "write_flat_files", "flat_file_paths",
           "MAX_FLAT_VOCAB"]

#: the largest vocabulary whose ids a flat array can hold (``uint32``)
MAX_FLAT_VOCAB = 1 << 32


class FlatIds(NamedTuple):
    """``(ids, starts)``: text ``k``'s ids are ``ids[starts[k]:starts[k + 1]]``."""

    #: every text's ids, one after the other (``uint16`` or ``uint32``)
    ids: Any
    #: ``int64``, ``len(texts) + 1`` items: where each text's ids start, then the total
    starts: Any

    def text(self, k: int) -> Any:
        """The ids of text ``k`` (a view into :attr:`ids`)."""
        return self.ids[self.starts[k]:self.starts[k + 1]]


def id_dtype(vocab_size: int) -> str:
    """The NumPy type of a flat array of ids below ``vocab_size``: ``"uint16"`` up to 65,536 ids,
    ``"uint32"`` up to 2**32; a larger vocabulary is refused (ValueError).

    >>> id_dtype(32000), id_dtype(65536), id_dtype(65537)
    ('uint16', 'uint16', 'uint32')
    """
    if vocab_size <= 1 << 16:
        return "uint16"
    if vocab_size <= MAX_FLAT_VOCAB:
        return "uint32"
    raise ValueError(f"a vocabulary of {vocab_size:,} tokens has ids above 2**32 - 1, more than a uint32 flat array "
                     "holds: encode to lists with encode_batch")


def _numpy() -> Any:
    from .._optional import require

    return require("numpy", purpose="flat arrays of ids")


class FlatCollector:
    """The chunks of ``n_texts`` texts, taken in order (:meth:`take`, the ``take`` of
    :func:`~korean_bpe._threads.each_chunk`), made one :class:`FlatIds` of ``dtype``
    (:meth:`result`).  Each chunk's ids are copied out as it comes (the compiled core's int32
    buffer freed at once), then joined: one copy of the ids more, in the calling thread."""

    def __init__(self, n_texts: int, dtype: str) -> None:
        np = _numpy()
        self._np = np
        self.dtype = np.dtype(dtype)
        self.starts = np.zeros(n_texts + 1, dtype=np.int64)
        self.parts: list[Any] = []
        self.total = 0

    def take(self, a: int, b: int, chunk: Any) -> None:
        """Texts ``a..b``'s ids: a compiled ``ChunkIds`` or a list of id lists."""
        np = self._np
        if isinstance(chunk, list):
            lens = np.fromiter(map(len, chunk), dtype=np.int64, count=b - a)
            n = int(lens.sum())
            part = np.fromiter(chain.from_iterable(chunk), dtype=self.dtype, count=n)
            np.cumsum(lens, out=self.starts[a + 1:b + 1])
            self.starts[a + 1:b + 1] += self.total
        else:
            n = chunk.n_ids
            part = np.empty(n, dtype=self.dtype)
            chunk.write_flat(part, self.starts[a + 1:b + 1], self.total)
        self.parts.append(part)
        self.total += n

    def result(self) -> FlatIds:
        np = self._np
        parts = self.parts
        ids = parts[0] if len(parts) == 1 else np.concatenate(parts) if parts else np.empty(0, dtype=self.dtype)
        self.parts = []
        return FlatIds(ids, self.starts)


def flat_from_lists(lists: list[list[int]], dtype: str) -> FlatIds:
    """The :class:`FlatIds` of id lists (what slower paths give)."""
    collector = FlatCollector(len(lists), dtype)
    collector.take(0, len(lists), lists)
    return collector.result()


def flat_file_paths(prefix: str | os.PathLike[str]) -> tuple[Path, Path]:
    """``PREFIX.ids.npy`` and ``PREFIX.starts.npy``.

    >>> [p.name for p in flat_file_paths("data/nsmc_train")]
    ['nsmc_train.ids.npy', 'nsmc_train.starts.npy']
    """
    prefix = os.fspath(prefix)
    return Path(prefix + ".ids.npy"), Path(prefix + ".starts.npy")


class _NpyStream:
    """A 1-D ``.npy`` file written as it grows: a header for length 0 (NumPy leaves room in it for
    a length of up to 21 digits, so that it can be rewritten in place), the items appended raw,
    then the header rewritten with the real length."""

    def __init__(self, f: BinaryIO, dtype: Any) -> None:
        np = _numpy()
        self.f, self.dtype, self.count = f, np.dtype(dtype), 0
        self.descr = np.lib.format.dtype_to_descr(self.dtype)
        self.header_size = self._header(0)

    def _header(self, n: int) -> int:
        np = _numpy()
        self.f.seek(0)
        np.lib.format.write_array_header_1_0(self.f, {"descr": self.descr, "fortran_order": False, "shape": (n,)})
        return self.f.tell()

    def append(self, items: Any) -> None:
        """Items of this stream's type, appended (little-endian, as the header says)."""
        self.f.write(memoryview(_numpy().ascontiguousarray(items, dtype=self.dtype)).cast("B"))
        self.count += len(items)

    def close(self) -> None:
        end = self.f.tell()
        if self._header(self.count) != self.header_size:  # pragma: no cover - NumPy's room for 21 digits
            raise RuntimeError(f"the .npy header of {self.count} items does not fit where the header of 0 was")
        self.f.seek(end)
        self.f.flush()


def write_flat_files(prefix: str | os.PathLike[str], batches: Iterable[FlatIds], *, dtype: str) -> tuple[int, int]:
    """Write the :class:`FlatIds` of ``batches``, one after the other, as one pair of files:
    ``PREFIX.ids.npy`` (``dtype``, every id) and ``PREFIX.starts.npy`` (``int64``, one more than
    the texts); returns ``(texts, ids)``.  Memory holds one batch at a time.  Both files are
    written beside their place and renamed into it at the end (:func:`korean_bpe.files.atomic_write`):
    an error in the middle (the batches' iterator raising) leaves the old files, or none, and no
    temporary file.

    >>> import tempfile, numpy as np
    >>> d = tempfile.mkdtemp()
    >>> write_flat_files(f"{d}/reviews", [flat_from_lists([[8, 1], [9]], "uint16"),
    ...                                   flat_from_lists([[4, 4, 4]], "uint16")], dtype="uint16")
    (3, 6)
    >>> np.load(f"{d}/reviews.ids.npy").tolist(), np.load(f"{d}/reviews.starts.npy").tolist()
    ([8, 1, 9, 4, 4, 4], [0, 2, 3, 6])
    """
    np = _numpy()
    ids_path, starts_path = flat_file_paths(prefix)
    counts = [0, 0]

    def write_ids(ids_tmp: Path) -> None:
        atomic_write(starts_path, lambda starts_tmp: write_both(ids_tmp, starts_tmp))

    def write_both(ids_tmp: Path, starts_tmp: Path) -> None:
        with open(ids_tmp, "r+b") as fi, open(starts_tmp, "r+b") as fs:
            ids, starts = _NpyStream(fi, dtype), _NpyStream(fs, np.int64)
            starts.append(np.zeros(1, dtype=np.int64))
            for flat in batches:
                if flat.ids.dtype != ids.dtype:
                    raise TypeError(f"a batch of {flat.ids.dtype} ids, but the file holds {ids.dtype}: encode every "
                                    f"batch with the same tokenizer")
                starts.append(flat.starts[1:] + ids.count)
                ids.append(flat.ids)
            ids.close()
            starts.close()
            counts[:] = [starts.count - 1, ids.count]

    atomic_write(ids_path, write_ids)
    return counts[0], counts[1]
