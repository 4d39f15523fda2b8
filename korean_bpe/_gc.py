"""The one way the package pauses Python's cyclic garbage collector.

Training and analysis build hundreds of thousands of small tuples and lists that hold no cycles;
each collection would only walk them again.  :func:`paused` turns the collector off for a block
and restores it afterwards, also on error (other threads see it paused meanwhile).

>>> import gc
>>> with paused():
...     gc.isenabled()
False
>>> gc.isenabled()
True
"""

from __future__ import annotations

import gc
from collections.abc import Iterator
from contextlib import contextmanager

__all__ = ["paused"]


@contextmanager
def paused() -> Iterator[None]:
    """Disable the cyclic collector inside the block; re-enable it after if it was enabled."""
    was_enabled = gc.isenabled()
    gc.disable()
    try:
        yield
    finally:
        if was_enabled:
            gc.enable()
