"""Model files: :mod:`.serialization` (our ``vocab.json`` + ``merges.txt`` +
``tokenizer_config.json``, versioned, atomic) and :mod:`.hf` (Hugging Face ``tokenizer.json``);
:mod:`.format` holds the ``merges.txt`` rules (the token rules and the byte tokens are
:mod:`korean_bpe.tokens`'s, the atomic writes :mod:`korean_bpe.files`'s).
Nothing here imports :mod:`korean_bpe.tokenizer` (it imports us).

Importing this package imports neither ``tokenizers`` nor ``transformers``.
"""

from __future__ import annotations

from .serialization import FORMAT_VERSION, ModelFileError, load_tokenizer, save_tokenizer

__all__ = ["ModelFileError", "save_tokenizer", "load_tokenizer", "FORMAT_VERSION", "export_tokenizer_json"]


def __getattr__(name: str) -> object:
    if name == "export_tokenizer_json":
        from .hf import export_tokenizer_json

        return export_tokenizer_json
    raise AttributeError(f"module 'korean_bpe.io' has no attribute {name!r}")
