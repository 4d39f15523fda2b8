"""Progress of long work (counting, analysis, merges, comparisons) through one small protocol.

Every ``show_progress`` option of korean_bpe takes ``None`` (a bar on stderr when it is a
terminal: the default), ``True`` (always a bar), ``False`` (none), or any object with the four
methods of :class:`Progress`, which then hears what a bar would show.  A bar is
:class:`TqdmProgress` (tqdm, imported when a bar starts); :class:`NoProgress` does nothing.

>>> class Steps:                       # a Progress of one's own: it records what it hears
...     def __init__(self): self.seen = []
...     def start(self, total, *, desc, unit): self.seen.append((desc, total))
...     def update(self, n=1): self.seen.append(n)
...     def note(self, text): pass
...     def close(self): self.seen.append("done")
>>> from korean_bpe.trainer import train_bpe
>>> steps = Steps()
>>> train_bpe({tuple("재밌어요"): 3, tuple("재밌다"): 2}, num_merges=2, special_tokens=(), show_progress=steps).merges
(('재', '밌'), ('어', '요'))
>>> steps.seen
[('BPE merges', 2), 1, 1, 'done']

A :class:`Progress` is started, updated and closed once per stage; the same object may hear
several stages in a row (``Tokenizer.train``: ``pre-tokenizing``, then ``BPE merges``).
"""

from __future__ import annotations

import importlib.util
import sys
from typing import Any, Protocol, runtime_checkable

__all__ = ["Progress", "NoProgress", "TqdmProgress", "start_progress", "check_show_progress", "NO_PROGRESS"]


@runtime_checkable
class Progress(Protocol):
    """What long work reports to: ``start`` once, ``update`` as items get done, ``note`` the item
    being worked on (optional to show), ``close`` at the end (also after an error)."""

    def start(self, total: int | None, *, desc: str, unit: str) -> None:
        """A stage begins: ``total`` items (None: not known in advance) of ``unit``, named ``desc``."""

    def update(self, n: int = 1) -> None:
        """``n`` more items are done."""

    def note(self, text: str) -> None:
        """The item now worked on (a strategy name, say)."""

    def close(self) -> None:
        """The stage is over."""


class NoProgress:
    """The :class:`Progress` that shows nothing (``show_progress=False``)."""

    def start(self, total: int | None, *, desc: str, unit: str) -> None:
        pass

    def update(self, n: int = 1) -> None:
        pass

    def note(self, text: str) -> None:
        pass

    def close(self) -> None:
        pass

    def __repr__(self) -> str:
        return "NoProgress()"


#: The one :class:`NoProgress` that :func:`start_progress` hands out: code that could skip work
#: when nobody listens checks ``progress is NO_PROGRESS``.
NO_PROGRESS = NoProgress()


class TqdmProgress:
    """A tqdm bar on stderr (``tqdm.auto``: a widget in Jupyter) per stage; ``options`` go to
    ``tqdm`` (e.g. ``leave=False``, ``mininterval=1``)."""

    def __init__(self, **options: Any) -> None:
        self.options = options
        self._bar: Any = None

    def start(self, total: int | None, *, desc: str, unit: str) -> None:
        from ._optional import require

        self.close()
        tqdm = require("tqdm.auto").tqdm
        self._bar = tqdm(total=total, desc=desc, unit=unit, **{"file": sys.stderr, **self.options})

    def update(self, n: int = 1) -> None:
        if self._bar is not None:
            self._bar.update(n)

    def note(self, text: str) -> None:
        if self._bar is not None:
            self._bar.set_postfix_str(text)

    def close(self) -> None:
        if self._bar is not None:
            self._bar.close()
            self._bar = None

    def __repr__(self) -> str:
        return f"TqdmProgress({', '.join(f'{k}={v!r}' for k, v in self.options.items())})"


def check_show_progress(show_progress: Any) -> None:
    """Refuse a ``show_progress`` that is neither None, a bool nor a :class:`Progress`."""
    if show_progress is None or isinstance(show_progress, bool) or isinstance(show_progress, Progress):
        return
    raise TypeError(f"show_progress must be True, False, None (a bar when stderr is a terminal) or an object with "
                    f"start/update/note/close (korean_bpe.progress.Progress), got {show_progress!r}")


def start_progress(
    show_progress: bool | Progress | None, *, total: int | None, desc: str, unit: str, min_total: int = 0
) -> Progress:
    """The :class:`Progress` that ``show_progress`` asks for, started: the object itself when it is
    one, a :class:`TqdmProgress` for True (and for None when stderr is a terminal, ``total`` is
    unknown or at least ``min_total`` and tqdm is installed), else :data:`NO_PROGRESS`.  Close it
    when done.  True without tqdm raises the ``pip install tqdm`` hint.

    >>> start_progress(False, total=10, desc="BPE merges", unit="merge") is NO_PROGRESS
    True
    """
    check_show_progress(show_progress)
    if show_progress is None:  # a bar is never worth a crash: no tqdm (a broken install), no bar
        show_progress = (_stderr_is_tty() and (total is None or total >= min_total)
                         and importlib.util.find_spec("tqdm") is not None)
    if show_progress is False:
        return NO_PROGRESS
    progress: Progress = TqdmProgress() if show_progress is True else show_progress  # type: ignore[assignment]
    progress.start(total, desc=desc, unit=unit)
    return progress


def _stderr_is_tty() -> bool:
    try:
        return sys.stderr is not None and sys.stderr.isatty()
    except (AttributeError, ValueError):  # replaced by an object without isatty, or closed
        return False
