"""BPE training: ``train_bpe(word_counts, ...) -> BPEModel``.

``train_bpe`` runs the fast incremental engine (compiled when built); ``train_reference`` is the
same with the readable textbook loop of :mod:`.reference` (slow; the specification).  The tie rule
lives in :mod:`.ties`.
"""

from __future__ import annotations

from typing import Any

from .api import train_bpe
from .model import BPEModel
from .reference import reference_engine

__all__ = ["train_bpe", "train_reference", "BPEModel", "reference_engine"]


def train_reference(word_counts: Any, **options: Any) -> BPEModel:
    """``train_bpe(word_counts, **options, engine="reference")``: the textbook loop, same merges."""
    return train_bpe(word_counts, **options, engine="reference")
