"""Strategy names: the grid of :func:`korean_bpe.compare.compare`, its families and the tables that
say what each name is built on (the objects behind the names: :mod:`korean_bpe.compare.training`).

>>> resolve_strategies(["baseline/word", "raw"])
['baseline/word', 'raw/syllable', 'raw/jamo', 'raw/byte']
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

__all__ = ["BPE_PRE_TOKENIZERS", "BPE_UNITS", "GOLD_ANALYZERS", "BASELINES", "DEFAULT_STRATEGIES",
           "TRAIN_ONLY", "MORE_STRATEGIES", "NOT_DEFAULT", "DERIVED", "DROPS_TEXT", "SUPERWORD", "SUPERBPE",
           "PEER_ANALYZERS", "peer_names", "resolve_strategies", "pipeline_name", "why"]

#: the pre-tokenizations of the ``bpe`` rows: name -> (registered pre-tokenizer, options)
BPE_PRE_TOKENIZERS: dict[str, tuple[str, dict[str, Any]]] = {
    "whitespace": ("whitespace", {}),
    "raw": ("raw", {}),
    "okt-analysis": ("okt", {}),
    "okt": ("okt", {"lossless": True}),
    "kiwi": ("kiwi", {"lossless": True}),
    "mecab": ("mecab", {"lossless": True}),
    "mob": ("mob", {"analyzer": "mecab"}),
    "mob-kiwi": ("mob", {"analyzer": "kiwi"}),
    "superbpe": ("raw", {"split_by_whitespace": False}),
}
#: SuperBPE rows: the transition size as a share of the largest vocabulary size (the paper's 180k of
#: 200k is 0.9; 0.8 leaves room at the smaller sizes a sweep reads by truncation) and the word limit
SUPERBPE = {"transition": 0.8, "max_words": 4}
#: the pre-tokenizations outside the default grid (each ``<name>/<unit>`` runs when named)
NOT_DEFAULT = ("mob", "mob-kiwi", "superbpe")
#: the pre-tokenizations whose rows train SuperBPE's two stages (:data:`SUPERBPE`)
SUPERWORD = ("superbpe",)
#: the pre-tokenizations that drop text (analysis mode: 조사, punctuation and foreign tokens)
DROPS_TEXT = ("okt-analysis",)
#: pre-tokenizations made from another one's analysis (MoB's marks on the lossless morphemes):
#: name -> the one it reads, so that an analyzer runs once per comparison
DERIVED: dict[str, str] = {"mob": "mecab", "mob-kiwi": "kiwi"}
BPE_UNITS = ("syllable", "jamo", "byte")
#: the analyzers a ``gold`` can name (their lossless morphemes are the gold spans)
GOLD_ANALYZERS = ("kiwi", "mecab", "okt")
#: baseline name -> (unit, pre-tokenization it reads, "" for none)
BASELINES: dict[str, tuple[str, str]] = {
    "baseline/jamo": ("jamo", ""),
    "baseline/syllable": ("syllable", ""),
    "baseline/morpheme-okt": ("morpheme", "okt"),
    "baseline/morpheme-kiwi": ("morpheme", "kiwi"),
    "baseline/morpheme-mecab": ("morpheme", "mecab"),
    "baseline/word": ("word", "whitespace"),
}
#: the families that use an analyzer at training time only: name -> analyzer.  ``<name>/<unit>`` is
#: our BPE trained on the ``raw`` words cut at the analyzer's lossless morphemes
#: (:mod:`korean_bpe.pre_tokenizers.boundaries`) and encoding with ``raw`` alone;
#: ``sentencepiece-bpe/<name>`` is SentencePiece BPE trained on the same analyses with
#: ``pretokenization_delimiter``
TRAIN_ONLY: dict[str, str] = {"okt-train": "okt", "kiwi-train": "kiwi", "mecab-train": "mecab"}
#: the peers built on a morpheme analyzer: name -> analyzer
PEER_ANALYZERS: dict[str, str] = {"kiwi-bpe": "kiwi", "kiwi-swtokenizer": "kiwi"}
_PEER_NAMES_FALLBACK = ("sentencepiece-bpe", "sentencepiece-unigram", "hf-bpe", "hf-wordpiece", "kiwi-bpe",
                        "kiwi-swtokenizer")


def peer_names() -> tuple[str, ...]:
    """The peers' names (:data:`korean_bpe.compare.peers.PEERS`; their names alone where the peers
    module cannot be imported)."""
    try:
        from . import peers
    except ImportError:
        return _PEER_NAMES_FALLBACK
    return tuple(peers.PEERS)


def _default_strategies() -> tuple[str, ...]:
    bpe = tuple(f"{p}/{u}" for p in BPE_PRE_TOKENIZERS if p not in NOT_DEFAULT for u in BPE_UNITS)
    return bpe + tuple(BASELINES) + peer_names()


#: every strategy of the default grid, in row order
DEFAULT_STRATEGIES: tuple[str, ...] = _default_strategies()


def _more_families() -> dict[str, list[str]]:
    """The families outside the default grid, each with its members in row order."""
    return {**{family: [f"{family}/{u}" for u in BPE_UNITS] for family in NOT_DEFAULT},
            **{family: [*(f"{family}/{u}" for u in BPE_UNITS), f"sentencepiece-bpe/{family}"] for family in TRAIN_ONLY}}


#: the strategies compare() runs when named (``strategies=["kiwi-train"]``), not by default
MORE_STRATEGIES: tuple[str, ...] = tuple(n for members in _more_families().values() for n in members)


def resolve_strategies(strategies: Sequence[str] | None) -> list[str]:
    """Strategy names in row order: ``None`` is the default grid; a family (``"bpe"``,
    ``"baseline"``, ``"peer"``) or a pre-tokenizer name (``"okt"``) stands for its members.

    >>> resolve_strategies(["baseline/word", "raw"])
    ['baseline/word', 'raw/syllable', 'raw/jamo', 'raw/byte']
    >>> resolve_strategies(["whitespace/letters"])
    Traceback (most recent call last):
    ...
    ValueError: unknown strategy 'whitespace/letters'; valid names: bpe, baseline, peer, whitespace, raw, okt-analysis, okt, kiwi, mecab, whitespace/syllable, ... (see korean_bpe.compare.DEFAULT_STRATEGIES)
    """
    grid = _default_strategies()
    if strategies is None:
        return list(grid)
    if isinstance(strategies, str):
        raise TypeError(f"strategies must be a list of names such as ['okt/jamo', 'baseline/word'], not the string "
                        f"{strategies!r}; write strategies=[{strategies!r}]")
    families: dict[str, list[str]] = {
        "bpe": [f"{p}/{u}" for p in BPE_PRE_TOKENIZERS if p not in NOT_DEFAULT for u in BPE_UNITS],
        "baseline": list(BASELINES),
        "peer": list(peer_names()),
        **{p: [f"{p}/{u}" for u in BPE_UNITS] for p in BPE_PRE_TOKENIZERS if p not in NOT_DEFAULT},
    }
    more = _more_families()
    out: list[str] = []
    for name in strategies:
        if not isinstance(name, str):
            raise TypeError(f"strategies must hold names (str), got {name!r}")
        if name in families or name in more:
            members = families.get(name) or more[name]
        elif name in grid or name in MORE_STRATEGIES:
            members = [name]
        else:
            shown = [*families, *grid, *more, *MORE_STRATEGIES]
            raise ValueError(
                f"unknown strategy {name!r}; valid names: {', '.join(shown[:10])}, ... "
                f"(see korean_bpe.compare.DEFAULT_STRATEGIES)"
                if len(shown) > 10 else f"unknown strategy {name!r}; valid names: {', '.join(shown)}"
            )
        out.extend(m for m in members if m not in out)
    if not out:
        raise ValueError("strategies names no strategy; give at least one, e.g. ['whitespace/syllable'] or None")
    return out



def pipeline_name(pre_tokenizer: Mapping[str, Any], unit: str) -> str:
    """The name of our BPE with the pre-tokenizer of config ``pre_tokenizer`` (``to_config()``) and
    ``unit``, as compare names its rows and ``korean-bpe train`` reports what it trained: an analyzer
    in analysis mode is ``NAME-analysis``, in lossless mode ``NAME``; words cut at an analyzer's
    morphemes are its :data:`TRAIN_ONLY` family, MoB's marks its :data:`DERIVED` name.  An
    analyzer may be named or given by its config.

    >>> pipeline_name({"type": "okt", "lossless": False}, "jamo"), pipeline_name({"type": "okt", "lossless": True}, "jamo")
    ('okt-analysis/jamo', 'okt/jamo')
    >>> pipeline_name({"type": "whitespace"}, "syllable")
    'whitespace/syllable'
    >>> pipeline_name({"type": "morpheme_boundaries", "analyzer": {"type": "kiwi", "lossless": True}, "base": "raw"}, "jamo")
    'kiwi-train/jamo'
    >>> pipeline_name({"type": "mob", "analyzer": "mecab"}, "syllable"), pipeline_name({"type": "mob", "analyzer": "kiwi"}, "byte")
    ('mob/syllable', 'mob-kiwi/byte')
    """
    kind = str(pre_tokenizer["type"])
    analyzer = pre_tokenizer.get("analyzer", "mecab")
    analyzer = str(analyzer["type"] if isinstance(analyzer, Mapping) else analyzer)
    if kind == "morpheme_boundaries":
        name = next((family for family, a in TRAIN_ONLY.items() if a == analyzer), f"{analyzer}-train")
    elif kind == "mob":
        name = next((derived for derived, a in DERIVED.items() if a == analyzer), f"mob-{analyzer}")
    else:
        name = kind + ("-analysis" if pre_tokenizer.get("lossless") is False else "")
    return f"{name}/{unit}"


def why(exc: BaseException) -> str:
    """An exception as one line for a note."""
    return " ".join(str(exc).split()) or type(exc).__name__
