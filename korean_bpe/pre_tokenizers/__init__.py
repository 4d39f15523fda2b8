"""Pre-tokenizers: text -> words, registered by name (``raw``, ``whitespace``, ``okt``, ``kiwi``,
``mecab``; ``morpheme_boundaries``, a training stage that cuts ``raw``/``whitespace`` words at an
analyzer's morphemes; ``mob``, an analyzer's morphemes with MoB's boundary marks).  Importing this package does not import any analyzer; each one is loaded by the first
call that needs it.
"""

from __future__ import annotations

from .base import PRE_TOKENIZERS, BasePreTokenizer, PreTokenizer, get_pre_tokenizer
from .simple import RawPreTokenizer, WhitespacePreTokenizer
from .kiwi import KiwiPreTokenizer
from .mecab import MecabPreTokenizer
from .okt import JavaNotFoundError, OktPreTokenizer
from .boundaries import MobPreTokenizer, MorphemeBoundaries

__all__ = [
    "PRE_TOKENIZERS", "PreTokenizer", "BasePreTokenizer", "get_pre_tokenizer",
    "RawPreTokenizer", "WhitespacePreTokenizer", "KiwiPreTokenizer", "MecabPreTokenizer",
    "OktPreTokenizer", "JavaNotFoundError", "MorphemeBoundaries", "MobPreTokenizer",
]
