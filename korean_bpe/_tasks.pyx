# cython: language_level=3, boundscheck=False, wraparound=False
# distutils: language = c++
"""The compiled half of :mod:`korean_bpe._threads`: a C++ job's tasks run on threads without the
GIL (:func:`run_tasks`, through ``_threads.run_parallel``), how many threads a job is worth
(:func:`share`), and what ``_threads.each_chunk`` cuts a batch by (:func:`cumulative_weights`).
The counting core (``korean_bpe/_counting.pyx``) and the merge engine's set-up
(``korean_bpe/trainer/_merge.pyx``) cimport it (``_tasks.pxd``)."""

import os
from time import thread_time

from cpython.array cimport array, clone
from cpython.unicode cimport PyUnicode_GET_LENGTH

#: profiling (``KOREAN_BPE_PROFILE=1``): each parallel step's CPU seconds on the calling thread
#: and on the busiest one, in :data:`STEPS` (``benchmarks/profile_train.py`` reads them)
PROFILE = bool(os.environ.get("KOREAN_BPE_PROFILE"))
STEPS = []
#: the least work worth a thread of its own (code points counted or cut, symbols filled): a
#: thread costs more than a smaller share (tests set 1 to run tiny inputs on threads)
PARALLEL_MIN = 32768


cdef int share(int threads, size_t work, size_t items):
    """How many threads share ``work`` (code points, symbols) over ``items`` (texts, words)."""
    cdef size_t least = max(<size_t>1, <size_t>PARALLEL_MIN)
    return <int>max(<size_t>1, min(<size_t>threads, work // least, items, <size_t>1024))


cdef class _Tasks:
    """Runs task ``i`` of a C++ job without the GIL (:meth:`run`, called from one thread each by
    :func:`korean_bpe._threads.run_parallel`); remembers the first failure (and, profiling, each
    task's thread CPU seconds)."""
    cdef task_fn fn
    cdef void* job
    cdef int failed
    cdef list cpu

    def run(self, int i):
        cdef int err
        t = thread_time() if PROFILE else 0.0
        with nogil:
            err = run_task(self.fn, self.job, i)
        if PROFILE:
            self.cpu.append((i, thread_time() - t))
        if err and not self.failed:
            self.failed = err


cdef run_tasks(task_fn fn, void* job, int n, int threads):
    """Tasks ``0 .. n - 1`` of ``job`` on up to ``threads`` threads (this one included)."""
    from ._threads import run_parallel

    cdef _Tasks tasks = _Tasks.__new__(_Tasks)
    tasks.fn = fn
    tasks.job = job
    tasks.cpu = []
    run_parallel(tasks.run, n, threads)
    if PROFILE:   # (this thread's CPU seconds in the step's tasks, the busiest thread's)
        threads = max(1, min(threads, n))
        per = [sum(c for i, c in tasks.cpu if i % threads == k) for k in range(threads)]
        STEPS.append((per[0], max(per)))
    if tasks.failed == 1:
        raise MemoryError("korean_bpe: out of memory in a compiled step")
    if tasks.failed:
        raise RuntimeError("korean_bpe: a compiled step failed")


cdef array _INT64 = array("q")


def cumulative_weights(list items, Py_ssize_t per_piece=0):
    """The running total of the items' weights, an ``array('q')``: each text's length (a text
    not a ``str`` is refused, named by its index), or with ``per_piece`` each item's ``len`` that
    many times (a pre-tokenized text).  What :func:`korean_bpe._threads.each_chunk` cuts a batch
    by, without an ``int`` object a text.

    >>> list(cumulative_weights(["영화", "재밌다"])), list(cumulative_weights([["영화"], ["a", "b"]], 8))
    ([2, 5], [8, 24])
    """
    cdef Py_ssize_t k, n = len(items)
    cdef long long total = 0
    cdef array out = clone(_INT64, n, False)
    cdef long long* data = out.data.as_longlongs
    cdef object item
    for k in range(n):
        item = items[k]
        if per_piece:
            total += per_piece * len(item)
        elif type(item) is str:
            total += PyUnicode_GET_LENGTH(item)
        else:
            raise TypeError(f"texts must hold strings; texts[{k}] is {type(item).__name__} {item!r}")
        data[k] = total
    return out
