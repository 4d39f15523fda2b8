"""korean_bpe: Korean-aware subword tokenization (BPE over syllables, jamo or bytes, after
raw, whitespace or morpheme pre-tokenization) and tools to compare the strategies.

Importing the package is cheap: analyzers (konlpy/JPype, kiwipiepy, mecab), pandas, matplotlib
and tokenizers are imported only by the code that needs them.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

__version__ = "0.1.0"

__all__ = ["__version__", "Tokenizer", "train_bpe", "BPEModel", "get_pre_tokenizer", "get_unit", "get_marker"]

if TYPE_CHECKING:  # pragma: no cover
    from .markers import get_marker
    from .pre_tokenizers import get_pre_tokenizer
    from .tokenizer import Tokenizer
    from .trainer import BPEModel, train_bpe
    from .units import get_unit

_LAZY = {
    "Tokenizer": ("tokenizer", "Tokenizer"),
    "train_bpe": ("trainer", "train_bpe"),
    "BPEModel": ("trainer", "BPEModel"),
    "get_pre_tokenizer": ("pre_tokenizers", "get_pre_tokenizer"),
    "get_unit": ("units", "get_unit"),
    "get_marker": ("markers", "get_marker"),
}


def __getattr__(name: str) -> Any:
    if name in _LAZY:
        import importlib

        module, attr = _LAZY[name]
        value = getattr(importlib.import_module(f".{module}", __name__), attr)
        globals()[name] = value
        return value
    raise AttributeError(f"module 'korean_bpe' has no attribute {name!r}")
