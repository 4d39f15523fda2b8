"""The one seam through which pre-tokenization runs in parallel.

An executor is anything with ``map(fn, items) -> iterator of fn(item)``, results in the order of
``items``, computed lazily or eagerly, locally or elsewhere.  ``fn`` is a picklable callable
(a module-level function, or ``functools.partial`` of one) and items are picklable, so the same
call works in a thread, a process pool or on a cluster.  The analyzers never see the executor:
:mod:`korean_bpe.pre_tokenizers._analyzer` cuts the uncached texts into chunks and maps one
"analyze this chunk" task over them.

Three executors ship: :class:`SerialExecutor` (in this process), :class:`LocalProcessExecutor`
(a pool of worker processes, started with ``spawn``; each worker loads its analyzer once and
keeps it for every later chunk: the default for analyzers that hold the GIL) and
:class:`ThreadExecutor` (threads in this process, for analyzers that release the GIL and are
thread-safe: Okt, whose one JVM then serves every core and warms up once).

A corpus too big for one machine plugs in an existing engine here, without touching the
analyzers, e.g. with Dask (not a dependency; a sketch)::

    class DaskExecutor:
        def __init__(self, client):            # a dask.distributed.Client
            self.client = client
        def map(self, fn, items):
            futures = self.client.map(fn, list(items), pure=False)
            for f in futures:                  # in order
                yield f.result()

or Ray: ``ray.get([ray.remote(fn).remote(x) for x in items])``.  Pass it as
``get_pre_tokenizer("okt", executor=DaskExecutor(client))``.

>>> list(SerialExecutor().map(len, ["스파이더맨", "ㅋㅋ"]))
[5, 2]
"""

from __future__ import annotations

import atexit
import multiprocessing
import os
import signal
import sys
import threading
import time
from collections import deque
from collections.abc import Callable, Iterable, Iterator
from concurrent.futures import Future, ProcessPoolExecutor, ThreadPoolExecutor
from concurrent.futures.process import BrokenProcessPool
from typing import Any, Protocol, TypeVar, runtime_checkable

from .._threads import available_cores

__all__ = [
    "Executor", "SerialExecutor", "ThreadExecutor", "LocalProcessExecutor", "default_workers",
    "shared_process_executor", "shared_thread_executor", "spawn_pool", "end_pool",
]

T = TypeVar("T")
R = TypeVar("R")


@runtime_checkable
class Executor(Protocol):
    """``map(fn, items)`` yielding ``fn(item)`` for each item, in order."""

    def map(self, fn: Callable[[Any], Any], items: Iterable[Any]) -> Iterator[Any]: ...


#: CPU cores this process may use: the default number of workers (and of encoding threads)
default_workers = available_cores


def _windowed_map(pool: Any, fn: Callable[[T], R], items: Iterable[T], limit: int) -> Iterator[R]:
    """``pool.submit(fn, item)`` for each item, in order, with at most ``limit`` tasks in flight,
    so that a huge iterable is never submitted at once; tasks still queued are cancelled when the
    caller stops early."""
    window: deque[Future[R]] = deque()
    try:
        for item in items:
            window.append(pool.submit(fn, item))
            if len(window) >= limit:
                yield window.popleft().result()
        while window:
            yield window.popleft().result()
    finally:
        for f in window:
            f.cancel()


class SerialExecutor:
    """Runs every task here, one after the other (no pickling, no extra process)."""

    workers = 1

    def map(self, fn: Callable[[T], R], items: Iterable[T]) -> Iterator[R]:
        for item in items:
            yield fn(item)

    def __repr__(self) -> str:
        return "SerialExecutor()"


class _PoolExecutor:
    """What the two pool executors share: the settings they pickle as (the copy starts its own
    pool), ``shutdown``, the context manager, ``repr``."""

    workers: int
    prefetch: int
    _pool: Any
    _lock: threading.Lock

    def _settings(self) -> dict[str, Any]:
        return {"prefetch": self.prefetch}

    def shutdown(self) -> None:
        """Stop the pool (a later ``map`` starts a new one)."""
        with self._lock:
            pool, self._pool = self._pool, None
        if pool is not None:
            pool.shutdown(wait=True, cancel_futures=True)

    def __getstate__(self) -> dict[str, Any]:
        return {"workers": self.workers, **self._settings()}

    def __setstate__(self, state: dict[str, Any]) -> None:
        state = dict(state)
        self.__init__(state.pop("workers"), **state)  # type: ignore[misc]

    def __enter__(self) -> Any:
        return self

    def __exit__(self, *exc: object) -> None:
        self.shutdown()

    def __repr__(self) -> str:
        return f"{type(self).__name__}(workers={self.workers})"


class ThreadExecutor(_PoolExecutor):
    """``workers`` threads in this process: for analyzers that release the GIL while they work
    and are thread-safe (Okt: every call runs inside the JVM, which JPype enters without the
    GIL), so that one analyzer (one JVM, warmed up once) serves every core.

    >>> with ThreadExecutor(workers=2) as ex:
    ...     list(ex.map(len, ["아이언맨", "ㅠㅠ", ""]))
    [4, 2, 0]
    """

    def __init__(self, workers: int | None = None, *, prefetch: int = 3) -> None:
        if workers is not None and (not isinstance(workers, int) or workers < 1):
            raise ValueError(f"workers must be a positive int or None (one per core), got {workers!r}")
        self.workers = workers or default_workers()
        self.prefetch = prefetch
        self._pool: ThreadPoolExecutor | None = None
        self._lock = threading.Lock()

    def map(self, fn: Callable[[T], R], items: Iterable[T]) -> Iterator[R]:
        with self._lock:
            if self._pool is None:
                self._pool = ThreadPoolExecutor(max_workers=self.workers, thread_name_prefix="korean_bpe")
            pool = self._pool
        return _windowed_map(pool, fn, items, self.workers * self.prefetch)


def _exit_with_parent(parent: int, pdeathsig: bool = False, interval: float = 0.5) -> None:
    """Worker initializer: end this worker when ``parent`` is gone.

    A pool parent killed with SIGKILL (or SIGTERM, in a script that does not handle it) cannot stop
    its workers, and a worker holding a JVM or a half-trained model would otherwise live on as an
    orphan.  A daemon thread notices the new parent pid and exits (every platform, within
    ``interval`` seconds, while the worker's Python runs); on Linux, with ``pdeathsig``, the kernel
    also sends SIGKILL the moment the parent dies (``prctl(PR_SET_PDEATHSIG)``), even to a worker
    busy in native code.  The kernel sends it when the *thread* that started the worker ends, so
    only a pool used and ended within one call (see :func:`spawn_pool`) asks for it.
    """
    if pdeathsig and sys.platform.startswith("linux"):
        try:
            import ctypes

            ctypes.CDLL(None, use_errno=True).prctl(1, signal.SIGKILL, 0, 0, 0)  # 1: PR_SET_PDEATHSIG
        except (OSError, AttributeError):  # pragma: no cover - no libc prctl: the thread below does it
            pass
    if os.getppid() != parent:  # the parent died while this worker started
        os._exit(0)

    def watch() -> None:
        while os.getppid() == parent:
            time.sleep(interval)
        os._exit(0)

    threading.Thread(target=watch, name="korean_bpe-exit-with-parent", daemon=True).start()


def _init_worker(parent: int, pdeathsig: bool, initializer: Callable[..., Any] | None, initargs: tuple[Any, ...]) -> None:
    _exit_with_parent(parent, pdeathsig)
    if initializer is not None:
        initializer(*initargs)


def spawn_pool(workers: int, *, initializer: Callable[..., Any] | None = None, initargs: tuple[Any, ...] = (),
               start_method: str = "spawn", scoped: bool = False) -> ProcessPoolExecutor:
    """A :class:`~concurrent.futures.ProcessPoolExecutor` of ``workers`` spawned processes that end
    with this one (:func:`_exit_with_parent`), then run ``initializer(*initargs)``: every process
    pool of korean_bpe is made here.  ``scoped=True``: the pool is used and ended within the calling
    function (every task submitted by this thread), so on Linux its workers also get the kernel's
    SIGKILL when this process dies.  Leave it with :func:`end_pool` when interrupted.

    >>> with spawn_pool(1, scoped=True) as pool:
    ...     pool.submit(len, "스파이더맨").result()
    5

    A main script that a spawned process cannot import (one read from standard input, ``python -``)
    is a ``RuntimeError`` here, with the fix, before any process starts: each would die importing it.
    """
    main = _unimportable_main() if start_method != "fork" else None
    if main is not None:
        raise RuntimeError(
            f"worker processes cannot start here: each first imports this process's main script, and {main!r} "
            "is not a file (a script read from standard input); save the script to a file and run that, or "
            "run in this process (compare(..., n_jobs=1), an analyzer's workers=1)")
    return ProcessPoolExecutor(max_workers=workers, mp_context=multiprocessing.get_context(start_method),
                               initializer=_init_worker, initargs=(os.getpid(), scoped, initializer, initargs))


def _unimportable_main() -> str | None:
    """The ``__file__`` of this process's main module when a spawned process could not import it
    (``'<stdin>'``: multiprocessing would run it by that path and fail), else None."""
    main = sys.modules.get("__main__")
    if main is None or getattr(getattr(main, "__spec__", None), "name", None):  # python -m, or a module
        return None
    path = getattr(main, "__file__", None)
    if not isinstance(path, str):  # python -c, an interactive session, a notebook: nothing to import
        return None
    base = multiprocessing.process.ORIGINAL_DIR or os.getcwd()  # type: ignore[attr-defined]
    return None if os.path.exists(os.path.join(base, path)) else path


def end_pool(pool: ProcessPoolExecutor, *, timeout: float = 5.0) -> None:
    """Stop ``pool`` now: queued tasks cancelled, running workers terminated (``shutdown`` alone waits
    for the running tasks: minutes of training after a Ctrl-C or a SIGTERM)."""
    processes = list((getattr(pool, "_processes", None) or {}).values())
    pool.shutdown(wait=False, cancel_futures=True)
    for p in processes:
        if p.is_alive():
            p.terminate()
    for p in processes:
        p.join(timeout)
        if p.is_alive():  # pragma: no cover - a worker that ignores SIGTERM
            p.kill()
    # the pool's manager thread closes its wake-up pipe as it ends; if it were still ending when the
    # interpreter exits, concurrent.futures' exit hook (Python 3.11) could write to that pipe as it
    # closes and print "OSError: [Errno 9] Bad file descriptor" after the CLI's last line
    manager = getattr(pool, "_executor_manager_thread", None)
    if manager is not None and manager.is_alive():
        manager.join(timeout)


class LocalProcessExecutor(_PoolExecutor):
    """A pool of ``workers`` processes on this machine (default: one per core).

    Workers are started with ``spawn`` (never ``fork``: a forked JVM is unusable), lazily on the
    first :meth:`map`, and kept until :meth:`shutdown` (or interpreter exit), so a worker that
    loaded an analyzer reuses it for every later task.  ``map`` keeps at most ``prefetch`` tasks
    per worker in flight, so a huge iterable is not submitted at once.

    >>> with LocalProcessExecutor(workers=2) as ex:
    ...     list(ex.map(len, ["아이언맨", "ㅠㅠ", ""]))
    [4, 2, 0]
    """

    def __init__(self, workers: int | None = None, *, prefetch: int = 3, start_method: str = "spawn") -> None:
        if workers is not None and (not isinstance(workers, int) or workers < 1):
            raise ValueError(f"workers must be a positive int or None (one per core), got {workers!r}")
        if prefetch < 1:
            raise ValueError(f"prefetch must be >= 1, got {prefetch!r}")
        self.workers = workers or default_workers()
        self.prefetch = prefetch
        self.start_method = start_method
        self._pool: ProcessPoolExecutor | None = None
        self._lock = threading.Lock()

    def _get_pool(self) -> ProcessPoolExecutor:
        with self._lock:
            if self._pool is None:
                self._pool = spawn_pool(self.workers, start_method=self.start_method)
            return self._pool

    def map(self, fn: Callable[[T], R], items: Iterable[T]) -> Iterator[R]:
        pool = self._get_pool()
        return self._explained(pool, _windowed_map(pool, fn, items, self.workers * self.prefetch))

    def _explained(self, pool: ProcessPoolExecutor, results: Iterator[R]) -> Iterator[R]:
        """``results``; a broken pool is dropped (the next :meth:`map` starts a new one) and its
        error says the likely cause."""
        try:
            yield from results
        except (KeyboardInterrupt, SystemExit):  # Ctrl-C, or SIGTERM in the command line: stop the workers too
            with self._lock:
                if self._pool is pool:
                    self._pool = None
            end_pool(pool)
            raise
        except BrokenProcessPool as exc:
            with self._lock:
                if self._pool is pool:
                    self._pool = None
            pool.shutdown(wait=False, cancel_futures=True)
            raise BrokenProcessPool(
                f"{exc} Worker processes are started with {self.start_method!r}: each first imports the main "
                "script, so a script that starts them must keep its code under `if __name__ == \"__main__\":` "
                "(without it every worker runs the script again and fails); or run in this process instead "
                "(e.g. OktPreTokenizer(threads=True), the default, or workers=1). A worker killed from outside "
                "(out of memory, a signal) ends the same way."
            ) from exc

    def _settings(self) -> dict[str, Any]:
        return {"prefetch": self.prefetch, "start_method": self.start_method}


_SHARED: dict[int, LocalProcessExecutor] = {}
_SHARED_LOCK = threading.Lock()


def shared_process_executor(workers: int | None = None) -> LocalProcessExecutor:
    """One long-lived :class:`LocalProcessExecutor` per worker count, shared by every analyzer in
    this process (so the JVMs of its workers start once), shut down at exit."""
    n = workers or default_workers()
    with _SHARED_LOCK:
        ex = _SHARED.get(n)
        if ex is None:
            ex = _SHARED[n] = LocalProcessExecutor(n)
        return ex


_SHARED_THREADS: dict[int, ThreadExecutor] = {}


def shared_thread_executor(workers: int | None = None) -> ThreadExecutor:
    """One long-lived :class:`ThreadExecutor` per worker count, shared by this process."""
    n = workers or default_workers()
    with _SHARED_LOCK:
        ex = _SHARED_THREADS.get(n)
        if ex is None:
            ex = _SHARED_THREADS[n] = ThreadExecutor(n)
        return ex


@atexit.register
def _shutdown_shared() -> None:
    for ex in [*_SHARED.values(), *_SHARED_THREADS.values()]:
        ex.shutdown()
    _SHARED.clear()
    _SHARED_THREADS.clear()
