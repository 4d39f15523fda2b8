"""Threads, in one place: how many a call may use (``num_threads``, the one option of every path
that runs on several cores without the GIL: ``Tokenizer.encode_batch``, the CLI's ``encode``,
``Tokenizer.train`` and the counting) and the two schedulers: :func:`run_parallel` runs the compiled
training steps' tasks (each task its own part of the data), :func:`each_chunk` / :func:`in_chunks`
hand a batch's chunks to the encoding threads (each thread its own word cache) while the calling
thread takes the results in order.

``None`` (the default) means the environment variable ``KOREAN_BPE_NUM_THREADS`` when it is set,
else every core this process may run on (its CPU affinity, as ``os.process_cpu_count`` counts
them); ``1`` is the one-thread path.  The result does not depend on the number: the same ids (and
the same merges) for any count.

>>> resolve_threads(3)
3
>>> resolve_threads(0)
Traceback (most recent call last):
...
ValueError: num_threads must be an int >= 1 (or None: every core), got 0
"""

from __future__ import annotations

import gc
import os
import threading
from bisect import bisect_left
from collections.abc import Callable
from itertools import accumulate
from typing import Any

from ._gc import paused

__all__ = ["ENV_VAR", "available_cores", "resolve_threads", "run_parallel", "in_chunks", "each_chunk",
           "cumulative_weights", "CHUNK_CHARS", "MAX_CHUNK_CHARS", "CHUNKS_PER_THREAD"]

#: the environment variable that sets the default of ``num_threads``
ENV_VAR = "KOREAN_BPE_NUM_THREADS"


def available_cores() -> int:
    """The cores this process may run on (its affinity mask where the OS has one)."""
    count = getattr(os, "process_cpu_count", None)  # Python 3.13
    if count is not None:
        return max(1, count() or 1)
    try:
        return max(1, len(os.sched_getaffinity(0)))
    except (AttributeError, OSError):  # pragma: no cover - macOS, Windows
        return max(1, os.cpu_count() or 1)


def resolve_threads(num_threads: int | None, *, name: str = "num_threads") -> int:
    """``num_threads`` checked (an int >= 1), or its default when None (see the module)."""
    if num_threads is None:
        env = os.environ.get(ENV_VAR, "").strip()
        if not env:
            return available_cores()
        try:
            value = int(env)
        except ValueError:
            raise ValueError(f"{ENV_VAR}={env!r} is not a number of threads: set it to an int >= 1, "
                             "or unset it to use every core") from None
        if value < 1:
            raise ValueError(f"{ENV_VAR}={env!r}: set it to an int >= 1, or unset it to use every core")
        return value
    if isinstance(num_threads, bool) or not isinstance(num_threads, int):
        raise TypeError(f"{name} must be an int >= 1 (or None: every core), got {type(num_threads).__name__} "
                        f"{num_threads!r}")
    if num_threads < 1:
        raise ValueError(f"{name} must be an int >= 1 (or None: every core), got {num_threads!r}")
    return num_threads


def run_parallel(task: Callable[[int], object], n: int, threads: int) -> None:
    """``task(i)`` for ``i`` in ``range(n)`` on up to ``threads`` threads, this one included
    (tasks dealt round-robin; one thread: in order, here).  The compiled training steps
    (``_counting.pyx``: counting, the symbol split; ``trainer/_merge.pyx``: the engine's set-up) run
    their tasks so, each without the GIL on its own part of the data, the parts joined in a fixed
    order.  An exception in a task is raised here once every thread has ended."""
    threads = max(1, min(threads, n))
    if threads == 1:
        for i in range(n):
            task(i)
        return
    errors: list[BaseException] = []

    def work(first: int) -> None:
        try:
            for i in range(first, n, threads):
                task(i)
        except BaseException as exc:  # noqa: BLE001 - handed to the caller's thread
            errors.append(exc)

    others = [threading.Thread(target=work, args=(k,), daemon=True) for k in range(1, threads)]
    for t in others:
        t.start()
    try:
        work(0)
    finally:
        for t in others:
            t.join()
    if errors:
        raise errors[0]


def _py_cumulative_weights(items: list[Any], per_piece: int = 0) -> list[int]:
    """The running total of each text's length, or with ``per_piece`` of each item's ``len``
    that many times: what :func:`each_chunk` cuts a batch by (``_tasks.cumulative_weights`` when
    compiled, without an ``int`` object a text).

    >>> _py_cumulative_weights(["영화", "재밌다"]), _py_cumulative_weights([["영화"], ["a", "b"]], 8)
    ([2, 5], [8, 24])
    """
    if per_piece:
        return list(accumulate(per_piece * len(x) for x in items))
    for k, t in enumerate(items):
        if type(t) is not str:
            raise TypeError(f"texts must hold strings; texts[{k}] is {type(t).__name__} {t!r}")
    return list(accumulate(map(len, items)))


try:  # compiled (korean_bpe/_tasks.pyx) when built
    from ._tasks import cumulative_weights
except ImportError:  # pragma: no cover - depends on the build
    cumulative_weights = _py_cumulative_weights


#: the smallest share of a batch a thread takes, in characters of text (a pre-tokenized text
#: counts its pieces, 8 characters each): a smaller batch is one chunk, encoded by the calling
#: thread alone (a thread costs more than that much encoding).
CHUNK_CHARS = 1 << 15
#: the largest chunk: it bounds the ids a thread holds before they become lists
MAX_CHUNK_CHARS = 1 << 20
#: chunks a thread for a large batch: enough that the threads finish together (the last chunks
#: small next to the batch: measured on the NSMC test split, 2 threads, 4 chunks a thread left one
#: idle up to 14 ms of 110, 16 about balanced them) and that the calling thread makes a chunk's
#: lists while the threads merge the next ones
CHUNKS_PER_THREAD = 16


def in_chunks(items: list[Any], run: Callable[[list[Any], int], Any], *, num_threads: int, per_piece: int = 0,
              finish: Callable[[Any], list[list[int]]] | None = None,
              check: Callable[[], None] | None = None) -> list[list[int]]:
    """``finish(run(chunk, k))`` for consecutive chunks of ``items``, joined in order: ``run`` on
    up to ``num_threads`` threads at once, ``finish`` (default: none, ``run`` gives the lists) in
    the calling thread, chunk after chunk as they are ready (:func:`each_chunk` tells how).

    >>> in_chunks(list("abc"), lambda chunk, k: [[ord(c)] for c in chunk], num_threads=2)
    [[97], [98], [99]]
    """
    done = finish if finish is not None else _as_is
    if len(items) <= 1:  # encode(text): no chunking to compute
        if check is not None:
            check()
        return done(run(items, 0)) if items else []
    parts: list[list[list[int]]] = []
    each_chunk(items, run, lambda a, b, result: parts.append(done(result)), num_threads=num_threads,
               per_piece=per_piece, check=check)
    if len(parts) == 1:
        return parts[0]
    out: list[list[int]] = []
    for part in parts:
        out += part
    return out


def each_chunk(items: list[Any], run: Callable[[list[Any], int], Any], take: Callable[[int, int, Any], None], *,
               num_threads: int, per_piece: int = 0, check: Callable[[], None] | None = None) -> None:
    """``take(a, b, run(items[a:b], k))`` for consecutive chunks ``items[a:b]``, in order: ``run``
    on up to ``num_threads`` threads at once, ``take`` in the calling thread, chunk after chunk as
    they are ready.  Thread ``k`` takes chunks ``k``, ``k + threads``, ... (the same share of the
    same batch each time: the compiled core keeps a word cache per ``k``), then, done with its
    own, the last chunks no thread has started.  ``run`` must release the GIL to gain anything
    (the compiled core's ``merge_chunk`` does); ``take`` is the work that needs it (making the
    lists, or copying the ids into one array), done while the threads merge the next chunks.  The
    first error stops the threads after their chunk and is raised here.  A batch becomes
    ``CHUNKS_PER_THREAD`` chunks a thread, none under :data:`CHUNK_CHARS` nor over
    :data:`MAX_CHUNK_CHARS` characters (where they allow): ``items`` are texts, or with
    ``per_piece`` lists of pieces, each piece counting as that many characters.  ``check()``, when
    given, runs in the calling thread before any chunk is taken (while the threads merge, where
    there are threads); what it raises is raised here.  No items: no chunk.

    >>> seen = []
    >>> each_chunk(list("abc"), lambda chunk, k: "".join(chunk).upper(), lambda a, b, r: seen.append((a, b, r)),
    ...            num_threads=2)
    >>> seen
    [(0, 3, 'ABC')]
    """
    if not items:
        if check is not None:
            check()
        return
    cum = cumulative_weights(items, per_piece)
    total = cum[-1]
    n = max(1, min(-(-total // CHUNK_CHARS), max(num_threads * CHUNKS_PER_THREAD, -(-total // MAX_CHUNK_CHARS))))
    bounds = sorted({0, len(items), *(bisect_left(cum, total * j // n) for j in range(1, n))})
    chunks = list(zip(bounds, bounds[1:]))
    threads = min(num_threads, len(chunks))
    if threads == 1 and check is not None:
        check()
    if len(chunks) == 1:
        take(0, len(items), run(items, 0))
        return
    if threads == 1:
        with paused():  # a list a text and no cycles: a collection would only walk them again
            for a, b in chunks:
                take(a, b, run(items[a:b], 0))
        return
    results: list[Any] = [None] * len(chunks)
    ready = [threading.Event() for _ in chunks]
    errors: list[BaseException] = []
    unclaimed = set(range(len(chunks)))
    claiming = threading.Lock()

    def claim(k: int) -> int | None:
        """Thread k's next chunk: its own first (k, k + threads, ...), then the last one left."""
        with claiming:
            if errors or not unclaimed:
                return None
            mine = [j for j in range(k, len(chunks), threads) if j in unclaimed]
            j = mine[0] if mine else max(unclaimed)
            unclaimed.discard(j)
            return j

    def work(k: int) -> None:
        try:
            while (j := claim(k)) is not None:
                a, b = chunks[j]
                results[j] = run(items[a:b], k)
                ready[j].set()
        except BaseException as exc:  # noqa: BLE001 - re-raised by the calling thread
            errors.append(exc)
        finally:
            if errors:  # the calling thread waits for no chunk in vain
                for event in ready:
                    event.set()

    helpers = [threading.Thread(target=work, args=(k,), name=f"korean_bpe-encode-{k}", daemon=True)
               for k in range(threads)]
    collect = gc.isenabled()
    # The collector is paused while the threads run (a list a text, no cycles: each collection
    # would walk them again); the calling thread lets it walk each chunk's new lists once, while
    # the threads merge the next chunks, rather than all of them at the end.
    with paused():
        for t in helpers:
            t.start()
        try:
            if check is not None:
                check()
            for j, (a, b) in enumerate(chunks):
                ready[j].wait()
                if errors:
                    break
                take(a, b, results[j])
                results[j] = None
                if collect:
                    gc.collect(0)
        except BaseException as exc:  # noqa: BLE001 - the threads stop, then it is raised
            errors.insert(0, exc)
        finally:
            if errors:
                errors.append(_STOP)  # the threads stop after their chunk
            for t in helpers:
                t.join()
    if errors:
        raise errors[0]


def _as_is(lists: list[list[int]]) -> list[list[int]]:
    return lists


#: set in ``in_chunks``'s errors when the calling thread stops the threads (an error of its own)
_STOP = RuntimeError("stopped")
