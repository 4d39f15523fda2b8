"""Fast, cached, parallel batch analysis for any morpheme analyzer (Okt, Kiwi, MeCab, ...).

An analyzer plugs in with two things:

* an :class:`AnalyzerSpec`: its ``name`` (also the cache file, ``okt.sqlite3``), a ``version``
  string (library + model/dictionary versions: a new version means a new cache namespace), the
  ``options`` the analysis depends on (as sorted ``(name, value)`` pairs of JSON values), and a
  ``factory``: the import path ``"package.module:function"`` of a function that takes those
  options as keywords, loads the analyzer (once per process: a JVM, a model) and returns
  ``analyze(texts: list[str]) -> list[analysis]``, one JSON-serialisable analysis per text.
  ``analyze`` may be as clever as it likes (Okt joins many texts into one JVM call) as long as
  each analysis is exactly what the analyzer gives for that text alone.
* a :class:`BatchAnalyzer` built from the spec: ``.analyze(texts)`` runs here, uncached (the
  reference); ``.analyze_batch(texts)`` gives the same list, faster:

  1. duplicates are analyzed once;
  2. texts found in the on-disk cache (:mod:`korean_bpe.pre_tokenizers.cache`, keyed by the text and the spec)
     are not analyzed again;
  3. the rest is cut into chunks mapped over an executor (:mod:`korean_bpe.pre_tokenizers.executor`) when
     there is more than one core: shared threads of this process for analyzers that release
     the GIL (``AnalyzerSpec.threads``, e.g. Okt: one JVM for every core; from ``THREADS_MIN``
     texts), else a shared local process pool, one analyzer per worker, when there is enough
     work to pay for starting it (``PARALLEL_MIN`` texts and ``PARALLEL_MIN_CHARS``
     characters); this process otherwise;
  4. finished chunks are written to the cache together, one transaction per second of work or
     per ``FLUSH_ROWS`` analyses (a killed run keeps what it finished up to the last second; a
     transaction per chunk cost the Okt batch of the NSMC train split 10 s of its 49), with a
     tqdm progress bar on long runs in a terminal.

The pre-tokenizer then turns each analysis into words (dropping tags, lossless pieces); that step
is cheap and stays out of the cache, so changing ``drop`` reuses the cached analyses.

>>> spec = AnalyzerSpec(name="demo", version="1", options=(("upper", False),),
...                     factory="korean_bpe.pre_tokenizers._analyzer:split_analyzer")
>>> BatchAnalyzer(spec, cache=False).analyze_batch(["어제 IMAX 봤는데", "ㅋㅋ"])
[['어제', 'IMAX', '봤는데'], ['ㅋㅋ']]
"""

from __future__ import annotations

import functools
import importlib
import math
import os
import threading
import time
import warnings
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass
from typing import Any

from ..progress import Progress, start_progress
from .executor import (
    Executor, SerialExecutor, ThreadExecutor, default_workers, shared_process_executor, shared_thread_executor,
)

__all__ = ["AnalyzerSpec", "BatchAnalyzer", "split_analyzer"]

AnalyzeFn = Callable[[list[str]], list[Any]]

#: below this many texts to analyze, the work stays in this process (a worker pool costs a few
#: seconds to start: a new interpreter, and for Okt a JVM that still has to warm up)
PARALLEL_MIN = 4000
#: ... and this many characters (about 6,000 reviews; less work than this is done sooner here
#: than by fresh workers that must first start, and for Okt warm up, their own analyzer)
PARALLEL_MIN_CHARS = 200_000
#: for analyzers that run in threads (``AnalyzerSpec.threads``) starting costs nothing: a few
#: chunks' worth of texts is enough
THREADS_MIN = 2000
#: above this many texts to analyze, a progress bar is shown (when ``show_progress`` is None and
#: stderr is a terminal)
PROGRESS_MIN = 2000
#: finished analyses are written to the cache when this many wait, or ...
FLUSH_ROWS = 50_000
#: ... when the last write is this many seconds old (and at the end, or when the run stops on an error)
FLUSH_SECONDS = 1.0


@dataclass(frozen=True)
class AnalyzerSpec:
    """What identifies an analyzer set-up: picklable, hashable, and the cache namespace."""

    name: str
    version: str
    options: tuple[tuple[str, Any], ...]
    factory: str
    #: ``analyze`` releases the GIL and is thread-safe: run in threads of this process, not in
    #: worker processes (never part of the cache key: it does not change the analysis)
    threads: bool = False

    def cache_spec(self) -> dict[str, Any]:
        """The JSON that keys the cache namespace: analyzer, version and options."""
        return {"analyzer": self.name, "version": self.version, "options": dict(self.options)}

    def load(self) -> AnalyzeFn:
        """The ``analyze`` function, built once per process and spec."""
        with _LOADED_LOCK:
            fn = _LOADED.get(self)
            if fn is None:
                module, _, attr = self.factory.partition(":")
                factory = getattr(importlib.import_module(module), attr)
                fn = _LOADED[self] = factory(**dict(self.options))
            return fn


_LOADED: dict[AnalyzerSpec, AnalyzeFn] = {}
_LOADED_LOCK = threading.RLock()


def _analyze_chunk(spec: AnalyzerSpec, texts: list[str]) -> list[Any]:
    """One executor task (module level, so that it pickles): analyze a chunk in this worker."""
    out = spec.load()(texts)
    if len(out) != len(texts):
        raise RuntimeError(f"analyzer {spec.name!r} returned {len(out)} analyses for {len(texts)} texts")
    return out


class ProcessWide:
    """One object per process, made by ``make()`` on first use, under a lock (an analyzer's model,
    a tagger: loaded once, shared by every thread); ``value`` is None until then.

    >>> made = ProcessWide(lambda: object())
    >>> made.get() is made.get()
    True
    """

    def __init__(self, make: Callable[[], Any]) -> None:
        self._make = make
        self._lock = threading.Lock()
        self.value: Any = None

    def get(self) -> Any:
        if self.value is None:
            with self._lock:
                if self.value is None:
                    self.value = self._make()
        return self.value


def split_analyzer(*, upper: bool = False) -> AnalyzeFn:
    """A tiny analyzer for examples: white-space split (upper-cased when ``upper``)."""

    def analyze(texts: list[str]) -> list[list[str]]:
        return [(t.upper() if upper else t).split() for t in texts]

    return analyze


class BatchAnalyzer:
    """Cached, parallel ``analyze_batch`` over one :class:`AnalyzerSpec`.

    Options (keyword-only):

    * ``cache``: use the on-disk cache (default True); ``cache_dir`` overrides its directory
      (default :func:`korean_bpe.pre_tokenizers.cache.cache_dir`).
    * ``workers``: processes for large batches: None = one per core, 1 = stay in this process.
    * ``executor``: any :class:`korean_bpe.pre_tokenizers.executor.Executor`; when given it runs every batch
      that needs analysis (whatever its size), ``workers`` is then ignored.
    * ``chunk_size``: at most this many texts per task (smaller when that spreads the work
      better over the workers); also the cache commit unit.
    """

    def __init__(
        self,
        spec: AnalyzerSpec,
        *,
        cache: bool = True,
        cache_dir: str | os.PathLike[str] | None = None,
        workers: int | None = None,
        executor: Executor | None = None,
        chunk_size: int = 1000,
    ) -> None:
        if workers is not None and (not isinstance(workers, int) or isinstance(workers, bool) or workers < 1):
            raise ValueError(f"workers must be a positive int or None (one per core), got {workers!r}")
        if not isinstance(chunk_size, int) or chunk_size < 1:
            raise ValueError(f"chunk_size must be a positive int, got {chunk_size!r}")
        if executor is not None and not callable(getattr(executor, "map", None)):
            raise TypeError(f"executor must have a map(fn, items) method, got {executor!r}")
        self.spec = spec
        self.cache = bool(cache)
        self.cache_dir = cache_dir
        self.workers = workers
        self.executor = executor
        self.chunk_size = chunk_size
        self._cache_warned = False
        #: what the last ``analyze_batch`` did: texts, unique, cached, analyzed, chunks, executor
        self.last_stats: dict[str, Any] = {}

    def analyze(self, texts: Sequence[str]) -> list[Any]:
        """Analyze here and now, no cache: the reference result."""
        return _analyze_chunk(self.spec, list(texts))

    # -- the fast path --------------------------------------------------------------------------

    def _open_cache(self) -> Any:
        """The cache, or None (disabled, or unusable: said once).  A corrupt database is moved
        aside and a new one started; a read-only one is read."""
        if not self.cache:
            return None
        from .cache import AnalysisCache, CacheError, move_aside

        try:
            cache = AnalysisCache(self.spec.name, directory=self.cache_dir)
        except CacheError as exc:
            if not exc.corrupt or exc.path is None:
                self._warn_cache(exc)
                return None
            return self._restart_cache(exc.path, exc.reason, move_aside(exc.path, inode=exc.inode))
        except OSError as exc:
            self._warn_cache(exc)
            return None
        if cache.read_only:
            self._say_once(f"the analysis cache {cache.path} is read-only (its directory or file cannot be written): "
                           "reading it, but new analyses are not stored")
        return cache

    def _restart_cache(self, path: Any, reason: str, aside: Any) -> Any:
        """After a corrupt database was moved aside (by us: ``aside``, or by another run): a new one."""
        from .cache import AnalysisCache, CacheError

        moved = f"moved it to {aside}" if aside is not None else "another run moved it aside"
        try:
            cache = AnalysisCache(self.spec.name, directory=self.cache_dir)
        except (CacheError, OSError) as exc:
            self._say_once(f"the analysis cache {path} was corrupted ({reason}); {moved}, but a new one cannot be "
                           f"started: analysis cache disabled for this run: {exc}")
            return None
        self._say_once(f"the analysis cache {path} was corrupted ({reason}); {moved} and started a new one")
        return cache

    def _warn_cache(self, exc: BaseException) -> None:
        self._say_once(f"analysis cache disabled for this run: {exc}")

    def _say_once(self, message: str) -> None:
        if not self._cache_warned:
            warnings.warn(message, RuntimeWarning, stacklevel=5)
            self._cache_warned = True

    def _after_cache_fault(self, cache: Any, exc: BaseException, pairs: Sequence[tuple[str, Any]] = ()) -> tuple[Any, Any]:
        """A cache failed in use (``cache`` is closed): a corrupt file is moved aside and a new
        cache started, ``pairs`` stored in it, and ``(cache, namespace)`` returned; any other fault
        (or a second one) disables the cache for the run: ``(None, None)``."""
        from .cache import is_corruption, move_aside

        if not is_corruption(exc):
            self._warn_cache(exc)
            return None, None
        fresh = self._restart_cache(cache.path, str(exc), move_aside(cache.path, inode=cache.inode))
        if fresh is None:
            return None, None
        try:
            ns = fresh.namespace(self.spec.cache_spec())
            fresh.put_many(ns, pairs)
        except Exception as again:  # noqa: BLE001 - any fault of the new file: run uncached
            fresh.close()
            self._warn_cache(again)
            return None, None
        return fresh, ns

    def _choose_executor(self, missing: list[str]) -> Executor:
        if self.executor is not None:
            return self.executor
        workers = self.workers or default_workers()
        if workers > 1 and self.spec.threads and len(missing) >= THREADS_MIN:
            return shared_thread_executor(workers)
        if workers > 1 and len(missing) >= PARALLEL_MIN and sum(map(len, missing)) >= PARALLEL_MIN_CHARS:
            return shared_process_executor(workers)
        return SerialExecutor()

    def _chunks(self, texts: list[str], executor: Executor) -> list[list[str]]:
        workers = getattr(executor, "workers", 1) or 1
        size = self.chunk_size
        if workers > 1:  # at least ~4 tasks per worker, so that the tail is short
            size = max(1, min(size, math.ceil(len(texts) / (4 * workers))))
        return [texts[i : i + size] for i in range(0, len(texts), size)]

    def analyze_batch(self, texts: Iterable[str], *, show_progress: bool | Progress | None = None) -> list[Any]:
        """``[analysis of t for t in texts]``, identical to :meth:`analyze`, from the cache when
        possible and in parallel otherwise."""
        texts = list(texts)
        for i, t in enumerate(texts):
            if not isinstance(t, str):
                raise TypeError(f"texts must be strings; item {i} is {type(t).__name__}: {t!r}")
        unique = list(dict.fromkeys(texts))
        results: dict[str, Any] = {}
        cache = self._open_cache()
        ns = None
        try:
            if cache is not None:
                try:
                    ns = cache.namespace(self.spec.cache_spec())
                    results.update(cache.get_many(ns, unique))
                except Exception as exc:  # sqlite errors, disk errors: run uncached, say so
                    cache.close()
                    cache, ns = self._after_cache_fault(cache, exc)
            missing = [t for t in unique if t not in results]
            executor = self._choose_executor(missing) if missing else SerialExecutor()
            chunks = self._chunks(missing, executor) if missing else []
            self.last_stats = {
                "texts": len(texts), "unique": len(unique), "cached": len(unique) - len(missing),
                "analyzed": len(missing), "chunks": len(chunks), "executor": repr(executor),
            }
            if chunks:
                if isinstance(executor, ThreadExecutor):
                    self.spec.load()  # in the calling thread: a JVM starts here, its errors surface here
                bar = start_progress(show_progress, total=len(missing), desc=f"{self.spec.name} analysis", unit="text",
                                     min_total=PROGRESS_MIN)
                pending: list[tuple[str, Any]] = []
                last_flush = time.monotonic()

                def flush() -> None:
                    nonlocal cache, ns, last_flush
                    if cache is not None and pending:
                        try:
                            cache.put_many(ns, pending)  # type: ignore[arg-type]
                        except Exception as exc:
                            cache.close()
                            cache, ns = self._after_cache_fault(cache, exc, pending)
                    pending.clear()
                    last_flush = time.monotonic()

                try:
                    task = functools.partial(_analyze_chunk, self.spec)
                    for chunk, analyses in zip(chunks, executor.map(task, chunks)):
                        if len(analyses) != len(chunk):
                            raise RuntimeError(
                                f"executor {executor!r} returned {len(analyses)} analyses for a chunk of {len(chunk)} texts"
                            )
                        pairs = list(zip(chunk, analyses))
                        results.update(pairs)
                        if cache is not None:
                            pending.extend(pairs)
                            if len(pending) >= FLUSH_ROWS or time.monotonic() - last_flush >= FLUSH_SECONDS:
                                flush()
                        bar.update(len(chunk))
                finally:
                    try:
                        flush()  # what finished is kept, also when the run stops on an error
                    finally:
                        bar.close()
        finally:
            if cache is not None:
                cache.close()
        return [results[t] for t in texts]
