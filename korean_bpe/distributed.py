"""Count the words of corpus files on a Dask cluster: map (pre-tokenize a shard, count) -> merge.

BPE needs only the distinct words and their counts, so the part of training that has to scale
past one machine is pre-tokenization and counting (with Okt, some 36,000 characters a second per
core).  :func:`count_files` spreads it over `Dask <https://distributed.dask.org>`_
(``dask.distributed``: a ``LocalCluster`` on one machine, or any cluster behind a scheduler
address) and returns the same :class:`~korean_bpe.counting.WordCounts` as counting locally, word
for word::

    from korean_bpe.distributed import count_files
    counts = count_files(["wiki_ko.txt", "news.tsv"], pre_tokenizer="okt", scheduler="tcp://10.0.0.5:8786")
    counts.save("counts.tsv")                   # then: korean-bpe train --counts counts.tsv ...

1. **Shards.** Each file is cut into byte ranges of ``shard_bytes`` (:func:`plan_shards`); a shard
   owns the lines that *start* inside its range (:func:`iter_shard_lines`): it skips the end of a
   line begun before its start and reads on past its end to finish its last line, so every line is
   read exactly once, whatever the shard size, and no file has to fit in a worker's memory.  A file
   is read as :func:`korean_bpe.corpus.iter_texts` reads it (one document a line, or the ``column``
   of a TSV with a header line; a byte-order mark, ``\\r\\n``, blank documents), so each shard
   yields the same documents as the local reader (:func:`iter_shard_texts`).
2. **Map.** One Dask task per shard pre-tokenizes and counts its documents in batches
   (:func:`korean_bpe.counting.count_words`).  The pre-tokenizer travels as its config dict and
   each worker process builds it once and keeps it for every later shard: Okt starts one JVM per
   worker process and Kiwi loads its model once (neither is ever pickled); morpheme analyses go
   through the on-disk analysis cache of the worker's machine (``KOREAN_BPE_CACHE_DIR`` there, or
   ``cache_dir``).
3. **Reduce.** The partial counts are added in a tree (``split_every`` at a time), so no single
   task holds more than a few partial counts, and the total comes back to the caller.

Faults are Dask's to handle: a worker that dies mid-run (killed, out of memory, its machine gone)
has its tasks, and the partial counts it held, computed again on another worker, and the counts are
still exact.  A shard that fails on bad input fails the whole run at once with the local reader's error:
``CorpusError: big.txt: not UTF-8 text: line 81234, byte offset 40000123 (byte 0xb0); ...``.  Such a
user's mistake (or a missing analyzer) is the task's value, not a raised error, so Dask's workers do not
log it as a failed computation; and a ``"local"`` cluster stopped by it is stopped without its logs.

Dask is an optional dependency (``pip install "korean_bpe[distributed]"``), imported by the calls
that need it; ``import korean_bpe`` does not import it.
"""

from __future__ import annotations

import inspect
import json
import logging
import os
import threading
import uuid
from collections.abc import Iterable, Iterator, Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any, BinaryIO

from .corpus import BOM, CorpusError, decode_line, line_number, read_first_line, strip_eol, table_documents
from .counting import WordCounts, count_words
from .pre_tokenizers.base import PRE_TOKENIZERS, PreTokenizer, get_pre_tokenizer
from .pre_tokenizers.cache import CacheError
from .pre_tokenizers.okt import JavaNotFoundError
from .progress import Progress, check_show_progress, start_progress

__all__ = ["Shard", "count_files", "local_cluster", "plan_shards", "iter_shard_lines", "iter_shard_texts", "SHARD_BYTES"]

#: default shard size: 64 MiB (some 27 million Korean characters: about 12 minutes of cold Okt on one core)
SHARD_BYTES = 64 * 2**20


@dataclass(frozen=True)
class Shard:
    """The lines of ``path`` that start in the byte range ``[start, end)``.

    ``column`` is the index of the text column when the file is a table (its header line names
    it), ``fields`` the number of header fields; ``column`` is None for plain text.
    """

    path: str
    start: int
    end: int
    column: int | None = None
    fields: int = 0


# --- shards ---------------------------------------------------------------------------------------


def plan_shards(
    paths: Iterable[str | os.PathLike[str]], *, shard_bytes: int = SHARD_BYTES, column: str = "document"
) -> list[Shard]:
    """Cut each file into shards of ``shard_bytes`` (the last one of a file shorter); an empty file
    is one empty shard.  Each file's first line is read here, to tell a table from plain text;
    shards name files by absolute path.

    >>> import tempfile
    >>> path = Path(tempfile.mkdtemp()) / "reviews.txt"
    >>> _ = path.write_text("아이언맨 최고\\n노잼\\n", encoding="utf-8")    # 20 + 7 bytes
    >>> [(s.start, s.end) for s in plan_shards([path], shard_bytes=16)]
    [(0, 16), (16, 27)]
    """
    if isinstance(shard_bytes, bool) or not isinstance(shard_bytes, int) or shard_bytes < 1:
        raise ValueError(f"shard_bytes must be a positive int (bytes per shard, e.g. 64 * 2**20), got {shard_bytes!r}")
    if isinstance(paths, (str, bytes, os.PathLike)):
        raise TypeError(f"paths must be a list of files, not one path; pass [{str(paths)!r}]")
    shards: list[Shard] = []
    for p in paths:
        path = Path(p)
        if not path.exists():
            raise CorpusError(f"corpus file not found: {path}")
        if path.is_dir():
            raise CorpusError(f"{path} is a directory: give a text file (one document a line) or a .tsv file")
        col, fields = _layout(path, column)
        size = path.stat().st_size
        starts = range(0, size, shard_bytes) if size else [0]
        where = os.path.abspath(path)  # a worker's working directory is not this one
        shards += [Shard(where, a, min(a + shard_bytes, size), col, fields) for a in starts]
    if not shards:
        raise ValueError("paths is empty: give at least one corpus file")
    return shards


def _layout(path: Path, column: str) -> tuple[int | None, int]:
    """``(index of column, number of fields)`` when the first line is a header, else ``(None, 0)``
    (the rule of :func:`korean_bpe.corpus.iter_texts`: :func:`korean_bpe.corpus.read_first_line`)."""
    with path.open("rb") as f:
        first = read_first_line(f.readline(), str(path), column)
    return (None, 0) if first.fields is None else (first.column, len(first.fields))


def iter_shard_lines(f: BinaryIO, start: int, end: int) -> Iterator[tuple[int, bytes]]:
    """``(offset, line)`` for each line of the open binary file ``f`` that starts in
    ``[start, end)``, line ending included: the line running across ``start`` belongs to the
    shard before, the one running across ``end`` to this one.  Lines end with ``\\n`` (``\\r\\n``
    included), as when iterating over the file.

    >>> import io
    >>> data = io.BytesIO("영화\\n최고\\r\\n".encode())     # lines at bytes 0 and 7
    >>> list(iter_shard_lines(data, 0, 3)), list(iter_shard_lines(data, 3, 15))
    ([(0, b'\\xec\\x98\\x81\\xed\\x99\\x94\\n')], [(7, b'\\xec\\xb5\\x9c\\xea\\xb3\\xa0\\r\\n')])
    """
    if start > 0:
        f.seek(start - 1)
        f.readline()  # the rest of the line running into start (just its "\n" when one ends at start - 1)
        pos = f.tell()
    else:
        f.seek(0)
        pos = 0
    if pos >= end:
        return
    for line in f:
        yield pos, line
        pos += len(line)
        if pos >= end:
            return


def iter_shard_texts(shard: Shard) -> Iterator[str]:
    """The documents of ``shard``: the non-blank lines (a table: the text column of each row), as
    :func:`korean_bpe.corpus.iter_texts` yields them, so that the documents of a file's shards, one
    shard after the other, are the documents of the file.  Text that is not UTF-8 and a table row
    with more fields than the header raise the local reader's
    :class:`~korean_bpe.corpus.CorpusError`, word for word (the same line and byte offset): both
    read with the rules of :mod:`korean_bpe.corpus` (:func:`~korean_bpe.corpus.decode_line`,
    :func:`~korean_bpe.corpus.table_documents`)."""
    name = shard.path
    try:
        f = open(shard.path, "rb")  # noqa: SIM115 - closed by the with below
    except OSError as exc:
        raise CorpusError(f"cannot open corpus file {shard.path}: {exc.strerror or exc} (on a cluster, every worker "
                          "must see the files at the same path)") from None
    with f:
        for offset, raw in iter_shard_lines(f, shard.start, shard.end):
            if offset == 0:  # the file's first line: a byte-order mark, and a table's header
                if shard.column is not None:
                    continue
                if raw.startswith(BOM):
                    raw, offset = raw[len(BOM):], len(BOM)
            line = strip_eol(raw)
            try:
                text = line.decode("utf-8")
            except UnicodeDecodeError:
                decode_line(line, name, line_number(f, offset), offset)  # raises the local reader's error
                raise  # pragma: no cover - decode_line raises
            if shard.column is None:
                if text and not text.isspace():
                    yield text
                continue
            for doc in table_documents(text, column=shard.column, n_fields=shard.fields, name=name, f=f,
                                       offset=offset):
                if doc and not doc.isspace():
                    yield doc


# --- tasks (run in the workers) ---------------------------------------------------------------------

_BUILT: dict[str, PreTokenizer] = {}
_BUILT_LOCK = threading.Lock()


def _worker_pre_tokenizer(config: Mapping[str, Any], runtime: Mapping[str, Any]) -> PreTokenizer:
    """The pre-tokenizer of ``config``, built once in this process and kept (Okt's JVM, Kiwi's
    model and their on-disk caches are this machine's)."""
    key = json.dumps([config, runtime], sort_keys=True)
    with _BUILT_LOCK:
        pt = _BUILT.get(key)
        if pt is None:
            accepted = inspect.signature(PRE_TOKENIZERS.get_class(config["type"])).parameters
            pt = _BUILT[key] = get_pre_tokenizer(config, **{k: v for k, v in runtime.items() if k in accepted})
        return pt


#: what a task returns instead of raising: a user's mistake (text that is not UTF-8, a malformed
#: row, a missing analyzer or Java), raised again by :func:`count_files` with its own one-line
#: message; Dask's workers would log a raised one as a failed computation, with its traceback
_USER_ERRORS = (ValueError, TypeError, OSError, ImportError, JavaNotFoundError, CacheError)


@dataclass(frozen=True)
class _Failed:
    """The user error of a shard's task, carried back as its value (see :data:`_USER_ERRORS`)."""

    error: BaseException


_Part = tuple[dict[str, int], dict[str, int]]


def _count_shard(shard: Shard, config: Mapping[str, Any], runtime: Mapping[str, Any]) -> _Part | _Failed:
    """One map task: ``({word: count}, {path: documents})`` of ``shard``, or its :class:`_Failed`."""
    docs = 0

    def texts() -> Iterator[str]:
        nonlocal docs
        for doc in iter_shard_texts(shard):
            docs += 1
            yield doc

    try:
        counts = count_words(texts(), _worker_pre_tokenizer(config, runtime), show_progress=False)
    except _USER_ERRORS as exc:
        return _Failed(exc)
    return counts, {shard.path: docs}


def _failure(part: _Part | _Failed) -> _Failed | None:
    """A small task after each map task: its :class:`_Failed`, or None (what the caller fetches)."""
    return part if isinstance(part, _Failed) else None


def _add_counts(*parts: _Part | _Failed) -> _Part | _Failed:
    """One reduce task: the sums of the partial counts (added into the largest); the first
    :class:`_Failed` when a part failed."""
    failed = next((p for p in parts if isinstance(p, _Failed)), None)
    if failed is not None:
        return failed
    ordered = sorted(parts, key=lambda p: len(p[0]), reverse=True)  # type: ignore[arg-type, index]
    counts, docs = dict(ordered[0][0]), dict(ordered[0][1])
    for more, more_docs in ordered[1:]:
        get = counts.get
        for w, c in more.items():
            counts[w] = get(w, 0) + c
        for p, n in more_docs.items():
            docs[p] = docs.get(p, 0) + n
    return counts, docs


# --- the call -------------------------------------------------------------------------------------


def count_files(
    paths: Iterable[str | os.PathLike[str]],
    *,
    pre_tokenizer: str | Mapping[str, Any] | PreTokenizer = "whitespace",
    scheduler: Any = None,
    shard_bytes: int = SHARD_BYTES,
    column: str = "document",
    split_every: int = 8,
    cache: bool = True,
    cache_dir: str | os.PathLike[str] | None = None,
    show_progress: bool | Progress | None = None,
) -> WordCounts:
    """The word counts of the corpus ``paths``, counted on Dask: exactly
    ``WordCounts.from_texts(documents of every file, pre_tokenizer=...)``.

    * ``scheduler``: a ``dask.distributed.Client``; a scheduler address (``"tcp://10.0.0.5:8786"``);
      ``"local"`` to start a ``LocalCluster`` for this call, one worker process per core (one
      thread each); None: the client already made in this process, else ``"local"``.
    * ``shard_bytes``: bytes per shard (default 64 MiB): more shards spread the work better,
      fewer cost less merging.  ``split_every``: partial counts added per reduce task.
    * ``column``: the text column of TSV files with a header line (as
      :func:`korean_bpe.corpus.iter_texts`).
    * ``cache``, ``cache_dir``: the on-disk analysis cache of the workers' Okt (default: on, in
      each worker machine's own cache directory, ``KOREAN_BPE_CACHE_DIR`` there).
    * ``show_progress``: a bar of finished shards on stderr (None: when stderr is a terminal), or a
      :class:`korean_bpe.progress.Progress`.

    The files must be readable at the same path on every worker (a shared or copied file system).

    >>> import tempfile
    >>> path = Path(tempfile.mkdtemp()) / "reviews.txt"
    >>> _ = path.write_text("아이언맨 최고\\n노잼\\n아이언맨 또 보고 싶다\\n", encoding="utf-8")
    >>> counts = count_files([path], shard_bytes=16, scheduler="local")      # doctest: +SKIP
    >>> counts.items()[:2]                                                    # doctest: +SKIP
    [('아이언맨', 2), ('노잼', 1)]
    """
    if isinstance(split_every, bool) or not isinstance(split_every, int) or split_every < 2:
        raise ValueError(f"split_every must be an int >= 2 (partial counts added per task), got {split_every!r}")
    if not isinstance(cache, bool):
        raise TypeError(f"cache must be True or False, got {cache!r}")
    check_show_progress(show_progress)
    pt = get_pre_tokenizer(pre_tokenizer)
    config = WordCounts(pre_tokenizer=pt).pre_tokenizer_config  # JSON, or a ValueError naming the fix
    shards = plan_shards(paths, shard_bytes=shard_bytes, column=column)
    runtime = {"cache": cache, "cache_dir": None if cache_dir is None else os.fspath(cache_dir), "workers": 1}
    with _connect(scheduler) as client:
        counts, docs = _run(client, shards, config, runtime, split_every=split_every, show_progress=show_progress)
    for path in dict.fromkeys(s.path for s in shards):
        if not docs.get(path):
            raise CorpusError(f"{path}: the corpus is empty (no non-blank document)")
    return WordCounts(counts, pre_tokenizer=pt)


def _run(client: Any, shards: list[Shard], config: dict[str, Any], runtime: dict[str, Any], *, split_every: int,
         show_progress: bool | Progress | None) -> tuple[dict[str, int], dict[str, int]]:
    """Submit the map tasks and the reduce tree; wait for the root."""
    distributed = _require()
    run = f"korean_bpe-count-{uuid.uuid4().hex[:8]}"
    level = [client.submit(_count_shard, s, config, runtime, key=f"{run}-shard-{k}", pure=False)
             for k, s in enumerate(shards)]
    checks = [client.submit(_failure, f, key=f"{run}-check-{k}", pure=False) for k, f in enumerate(level)]
    progress = start_progress(show_progress, total=len(shards), desc="counting shards", unit="shard")
    depth = 0
    while len(level) > 1:  # the tree is submitted at once: partial counts are added as soon as they exist
        depth += 1
        level = [client.submit(_add_counts, *level[i : i + split_every], key=f"{run}-add-{depth}-{i // split_every}",
                               pure=False)
                 for i in range(0, len(level), split_every)]
    try:  # a shard's mistake ends the run at once, not after the other shards
        for _, failed in distributed.as_completed(checks, with_results=True):
            if failed is not None:
                raise failed.error
            progress.update(1)
    finally:
        progress.close()
    result = level[0].result()
    if isinstance(result, _Failed):  # pragma: no cover - the checks raised it first
        raise result.error
    return result


class _connect:
    """``with _connect(scheduler) as client``: the client to use, and what to close after."""

    def __init__(self, scheduler: Any) -> None:
        self.scheduler = scheduler
        self._close: list[Any] = []

    def __enter__(self) -> Any:
        distributed = _require()
        s = self.scheduler
        if isinstance(s, distributed.Client):
            return s
        if s is None:
            try:
                return distributed.default_client()
            except ValueError:  # no client in this process
                s = "local"
        if not isinstance(s, str) or not s:
            raise TypeError(f"scheduler must be a dask.distributed.Client, an address such as 'tcp://10.0.0.5:8786', "
                            f"'local' or None, got {s!r}")
        if s == "local":
            cluster = local_cluster()
            self._close.append(cluster)
            client = distributed.Client(cluster)
        else:
            try:
                client = distributed.Client(s, timeout=30)
            except (OSError, TimeoutError) as exc:
                raise ValueError(f"cannot reach the Dask scheduler at {s} ({exc}); start one with 'dask scheduler' and "
                                 f"workers with 'dask worker {s}', or use scheduler='local'") from None
        self._close.insert(0, client)
        return client

    def __exit__(self, exc_type: type[BaseException] | None, *exc: object) -> None:
        # our own cluster, stopped by a user's mistake that the caller reports: its workers, stopped
        # mid-shard, would log the cancelled tasks and their killing (other errors keep Dask's logs)
        quiet = exc_type is not None and issubclass(exc_type, _USER_ERRORS) and len(self._close) > 1
        if quiet:
            self._close[0].run(_silence_worker_logs, on_error="ignore")
        saved = _silence_dask_logs() if quiet else []
        try:
            for thing in self._close:
                thing.close()
        finally:
            for handler, level in saved:
                handler.setLevel(level)


def _silence_dask_logs() -> list[tuple[logging.Handler, int]]:
    """Silence the handlers of Dask's ``distributed`` logger in this process (a worker about to
    stop, or this one while it stops its cluster); returns their levels, to restore."""
    saved = [(h, h.level) for h in logging.getLogger("distributed").handlers]
    for h, _ in saved:
        h.setLevel(logging.CRITICAL + 1)
    return saved


def _silence_worker_logs() -> None:
    _silence_dask_logs()


def local_cluster(n_workers: int | None = None) -> Any:
    """A ``dask.distributed.LocalCluster`` of ``n_workers`` worker processes (default: one per
    core), one thread each; its HTTP server (dashboard) on a free port, so that clusters of other
    programs on this machine are no bother."""
    from .pre_tokenizers.executor import default_workers

    distributed = _require()
    return distributed.LocalCluster(n_workers=n_workers or default_workers(), threads_per_worker=1, processes=True,
                                    dashboard_address=":0")


def _require() -> Any:
    from ._optional import require

    return require("distributed", purpose="counting on a Dask cluster")
