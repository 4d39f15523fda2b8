"""Compare tokenization strategies on held-out text: :func:`compare` (one call, one pandas table).

* :mod:`.run`: :func:`~korean_bpe.compare.run.compare` trains every strategy (our BPE over each
  pre-tokenizer x unit, kortok-style baselines, peer libraries) and returns one row per strategy
  and vocabulary size; :func:`~korean_bpe.compare.run.format_table` prints it;
* :mod:`.segmenters`: the :class:`~korean_bpe.compare.segmenters.Segmenter` protocol every row is
  measured through;
* :mod:`.metrics`: pure metric functions; :mod:`.plot`: draws a frame with matplotlib.

``korean-bpe compare`` runs it from the command line.  Importing this package imports neither
pandas nor matplotlib.
"""

from __future__ import annotations

__all__ = ["compare", "format_table", "DEFAULT_STRATEGIES", "COLUMNS"]


def __getattr__(name: str) -> object:
    if name in __all__:
        from . import run

        return getattr(run, name)
    raise AttributeError(f"module 'korean_bpe.compare' has no attribute {name!r}")
