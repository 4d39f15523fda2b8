"""How many threads a call may use: ``num_threads``, the one option of every path that runs on
several cores without the GIL (``Tokenizer.encode_batch``, the CLI's ``encode``, ``Tokenizer.train``
and the counting), and :func:`run_parallel`, which runs the compiled training steps' tasks.

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

import os
import threading
from collections.abc import Callable

__all__ = ["ENV_VAR", "available_cores", "resolve_threads", "run_parallel"]

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
