"""Compare tokenization strategies (pre-tokenizer x unit x vocabulary size) on held-out text.

* :mod:`.metrics`: pure functions (fertility, characters per token, unk rate, whole words, round trips);
* :mod:`.run`: :func:`~korean_bpe.compare.run.compare_strategies` trains each strategy and returns a
  pandas DataFrame, one row per strategy and vocabulary size;
* :mod:`.plot`: draws such a frame with matplotlib.

``korean-bpe compare`` runs it on the corpus embedded in konlpy.  Importing this package imports
neither pandas nor matplotlib.
"""

from __future__ import annotations

__all__ = ["compare_strategies"]


def __getattr__(name: str) -> object:
    if name == "compare_strategies":
        from .run import compare_strategies

        return compare_strategies
    raise AttributeError(f"module 'korean_bpe.compare' has no attribute {name!r}")
