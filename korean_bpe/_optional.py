"""Lazy imports of heavy optional dependencies, each with the command that installs it.

Nothing here imports anything heavy at module import time: ``import korean_bpe`` stays light
(a test checks that konlpy, jpype, kiwipiepy, mecab, pandas, matplotlib and tokenizers stay
unloaded).
"""

from __future__ import annotations

import importlib
from types import ModuleType

__all__ = ["require", "compiled", "MissingDependencyError", "INSTALL_HINTS"]

#: module name -> (what it is for, pip extra / install line)
INSTALL_HINTS: dict[str, tuple[str, str]] = {
    "konlpy": ("the Okt morpheme analyzer", 'pip install konlpy JPype1   (and a Java JDK >= 8, e.g. "apt install openjdk-17-jdk")'),
    "jpype": ("the Okt morpheme analyzer (JVM bridge)", "pip install JPype1"),
    "kiwipiepy": ("the Kiwi morpheme analyzer", 'pip install "korean_bpe[kiwi]"   (or: pip install kiwipiepy)'),
    "mecab": ("the MeCab-ko morpheme analyzer", 'pip install "korean_bpe[mecab]"   (or: pip install python-mecab-ko)'),
    "pandas": ("corpus tables and metrics", "pip install pandas"),
    "matplotlib": ("plots", 'pip install "korean_bpe[plot]"   (or: pip install matplotlib)'),
    "tokenizers": ("Hugging Face export and comparison", 'pip install "korean_bpe[hf]"   (or: pip install tokenizers)'),
    "transformers": ("loading exports in transformers", 'pip install "korean_bpe[hf]"   (or: pip install transformers)'),
    "sentencepiece": ("SentencePiece comparisons", 'pip install "korean_bpe[eval]"   (or: pip install sentencepiece)'),
    "tqdm": ("progress bars", "pip install tqdm"),
    "distributed": ("counting on a Dask cluster", 'pip install "korean_bpe[distributed]"   (or: pip install "dask[distributed]")'),
    "dask": ("counting on a Dask cluster", 'pip install "korean_bpe[distributed]"   (or: pip install "dask[distributed]")'),
    "sklearn": ("the classification probe", 'pip install "korean_bpe[eval]"   (or: pip install scikit-learn)'),
    "jinja2": ("report.md and report.html", 'pip install "korean_bpe[plot]"   (or: pip install Jinja2)'),
    "scipy": ("the classification probe", 'pip install "korean_bpe[eval]"   (or: pip install scikit-learn)'),
    "threadpoolctl": ("the classification probe", 'pip install "korean_bpe[eval]"   (or: pip install scikit-learn)'),
    "torch": ("the downstream stage's neural classifiers", 'pip install "korean_bpe[downstream]"   (or: pip install torch; '
              'the CPU build is enough)'),
    "numpy": ("flat arrays of ids and the classification probe", "pip install numpy"),
}


class MissingDependencyError(ImportError):
    """An optional dependency is not installed; the message says how to install it."""


def require(module: str, *, purpose: str | None = None) -> ModuleType:
    """Import ``module`` or raise :class:`MissingDependencyError` with the install line.

    >>> require("json").__name__
    'json'
    """
    try:
        return importlib.import_module(module)
    except ImportError as exc:
        top = module.split(".")[0]
        what, hint = INSTALL_HINTS.get(top, (purpose or module, f"pip install {top}"))
        raise MissingDependencyError(
            f"{module!r} is needed for {purpose or what} but is not installed: {hint}"
        ) from exc


def compiled(module: str) -> ModuleType | None:
    """The compiled module ``module`` (a ``.pyx`` built at install time, such as
    ``korean_bpe._counting`` or ``korean_bpe.trainer._merge``), or None when it was not built, or
    when a test hides it (``sys.modules[module] = None``): the caller then takes its pure-Python path.

    >>> compiled("korean_bpe.no_such_core") is None
    True
    """
    try:
        return importlib.import_module(module)
    except ImportError:
        return None
