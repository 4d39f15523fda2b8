"""Compare tokenization strategies on held-out text: :func:`compare` (one call, a
:class:`~korean_bpe.compare.result.Comparison` holding one pandas table).

One module a stage: :mod:`.strategies` (names and families), :mod:`.pretok` (each
pre-tokenization once), :mod:`.gold` (the gold morpheme boundaries), :mod:`.training` (each
strategy at each size, or from :mod:`.model_cache`), :mod:`.measure` (one row), :mod:`.stats`
(bootstrap intervals, paired comparisons), :mod:`.assemble` (rows to the table), :mod:`.run`
(:func:`~korean_bpe.compare.run.compare`, in this process or in workers), :mod:`.result`
(:class:`Comparison`, :class:`Statistics`), :mod:`.columns` (the one description of the columns),
:mod:`.table` (:func:`~korean_bpe.compare.table.format_table`); beside them :mod:`.segmenters`
(the :class:`~korean_bpe.compare.segmenters.Segmenter` protocol every row is measured through),
:mod:`.peers`, :mod:`.metrics` (pure metric functions), :mod:`.downstream` (a small neural
classifier trained on each row's tokens), :mod:`.plot` and :mod:`.report`.

``korean-bpe compare`` runs it from the command line.  Importing this package imports neither
pandas nor matplotlib.
"""

from __future__ import annotations

__all__ = ["compare", "format_table", "DEFAULT_STRATEGIES", "COLUMNS", "Comparison", "Statistics", "Downstream"]


def __getattr__(name: str) -> object:
    if name in __all__:
        from . import run

        return getattr(run, name)
    raise AttributeError(f"module 'korean_bpe.compare' has no attribute {name!r}")
