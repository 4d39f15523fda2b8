"""BPE training: ``train_bpe(word_counts, ...) -> BPEModel``."""

from __future__ import annotations

from .model import BPEModel

__all__ = ["BPEModel"]
