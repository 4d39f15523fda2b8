"""Continued training: more merges on top of a trained :class:`BPEModel`, every old id kept.

``continue_bpe(model, word_counts, vocab_size=...)`` segments each new word with the model's
merges first (as ``encode`` does: lowest rank first), counts the resulting token pairs, and runs
the same BPE engine from there, numbering new tokens after the old vocabulary.  The result's
merges start with the old ones, so

- every old token keeps its id (ids are derived: special tokens, alphabet, merge results in
  order, see :class:`BPEModel`);
- old text encodes to the same tokens or fewer: the old merges rank first, so ``encode`` applies
  all of them before any new one, and a new merge only joins two tokens of the old encoding.

Symbols of the new text outside the old alphabet are **not** added: the alphabet comes before
the merge results in the id order, so a new symbol could only get an id by moving every merged
token.  They stay what they were for the old model (``<unk>``, or byte tokens with byte
fallback), and a new word is cut at them (no merge across an unknown symbol, as in
``limit_alphabet``), and a ``UserWarning`` says how many and which.  ``unknown_symbols`` in the
result lists them with their occurrences.  A law-text model adapted to movie reviews meets many
(``ㅋ``, ``!``, ``?``: 12% of the NSMC training symbols), so start from a model whose alphabet
covers the new domain (``unit="byte"`` holds all 256 bytes) when that matters.

>>> old = train_bpe({tuple("재밌다"): 4, tuple("재밌어"): 2}, vocab_size=5, special_tokens=())
>>> old.merges, old.vocab
((('재', '밌'),), {'다': 0, '밌': 1, '어': 2, '재': 3, '재밌': 4})
>>> result = continue_bpe(old, {tuple("재밌어"): 5, tuple("꿀잼"): 3}, vocab_size=6)
>>> new = result.model
>>> new.merges                                   # old merge first; 꿀 and 잼 are not in the alphabet
(('재', '밌'), ('재밌', '어'))
>>> new.vocab                                    # old ids unchanged, 재밌어 next
{'다': 0, '밌': 1, '어': 2, '재': 3, '재밌': 4, '재밌어': 5}
>>> result.unknown_symbols
{'꿀': 3, '잼': 3}
"""

from __future__ import annotations

import warnings
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import Any

from ..encoding import MergeTable, merge_ids
from ..markers import get_marker
from ..progress import Progress
from .api import OnMerge, check_options, cut_ambiguous, cut_special_runs, learn_merges, train_bpe
from .model import BPEModel

__all__ = ["continue_bpe", "ContinuedTraining", "segment_words"]


@dataclass(frozen=True)
class ContinuedTraining:
    """What :func:`continue_bpe` made: the extended ``model``, and the symbols of the new text
    that the old alphabet lacks (symbol -> occurrences; left out of training)."""

    model: BPEModel
    unknown_symbols: dict[str, int]


def segment_words(
    model: BPEModel, word_counts: Mapping[tuple[str, ...], int]
) -> tuple[list[list[int]], list[int], dict[str, int]]:
    """Apply ``model``'s merges to each word (symbol tuple -> count) as ``encode`` does; return the
    distinct resulting id sequences of two tokens or more with their counts (a word is cut at each
    symbol outside the vocabulary), and the unknown symbols with their occurrences.

    >>> m = BPEModel((), ("다", "밌", "재"), (("재", "밌"),))
    >>> segment_words(m, {("재", "밌", "다"): 2, ("재", "밌"): 1, ("꿀", "재", "밌", "다"): 1})
    ([[3, 0]], [3], {'꿀': 1})
    """
    vocab = model.vocab
    pairs = {(vocab[a], vocab[b]): (rank, vocab[model.merged_token(a, b)]) for rank, (a, b) in enumerate(model.merges)}
    if MergeTable is not None:  # the encoder's own merge loop: compiled when built, else pure Python
        apply_merges = MergeTable([(l, r, new) for (l, r), (_, new) in pairs.items()], {}).merge_ids
    else:
        apply_merges = lambda ids: merge_ids(ids, pairs)  # noqa: E731
    out: dict[tuple[int, ...], int] = {}
    unknown: dict[str, int] = {}
    get = vocab.get
    for key, count in word_counts.items():
        ids = [get(s, -1) for s in key]
        if -1 in ids:
            for s in key:
                if s not in vocab:
                    unknown[s] = unknown.get(s, 0) + count
        piece: list[int] = []
        for i in (*ids, -1):
            if i >= 0:
                piece.append(i)
                continue
            if len(piece) > 1:
                merged = tuple(apply_merges(piece))
                if len(merged) > 1:
                    out[merged] = out.get(merged, 0) + count
            piece = []
    words: list[list[int]] = []
    counts: list[int] = []
    while out:  # each tuple freed as its list is made (never both tables at once), order kept below
        key, count = out.popitem()
        words.append(list(key))
        counts.append(count)
    words.reverse()
    counts.reverse()
    return words, counts, unknown


def continue_bpe(
    model: BPEModel,
    word_counts: Mapping[tuple[str, ...], int],
    *,
    vocab_size: int | None = None,
    num_merges: int | None = None,
    min_frequency: int = 2,
    on_merge: OnMerge | None = None,
    show_progress: bool | Progress | None = None,
    engine: str = "auto",
    max_token_length: int | None = None,
    token_length: Callable[[str], int] | None = None,
) -> ContinuedTraining:
    """Add merges learned from ``word_counts`` (marked symbol tuples, as for
    :func:`korean_bpe.trainer.train_bpe`, same unit and marker as ``model``) after ``model``'s own.

    ``vocab_size`` counts the whole vocabulary, old tokens included (it must be at least
    ``model.vocab_size``); ``num_merges`` counts the new merges only.  The tie rule is
    :mod:`.ties`' (count, then smaller id pair), with old tokens keeping their ids.
    ``max_token_length`` needs ``token_length(token)``, the length of each old token (the engines
    cannot tell an old merged token from a symbol); a new token's length is the sum of its parts'
    (:mod:`korean_bpe.trainer.superbpe` counts words so).  ``on_merge(rank, (left, right), count)``
    hears each new merge, ``rank`` being its index in the extended model's ``merges`` (after the
    old ones).
    """
    if not isinstance(model, BPEModel):
        raise TypeError(f"model must be a korean_bpe.BPEModel (tok.model), got {type(model).__name__}")
    if not isinstance(word_counts, Mapping):
        raise TypeError(f"word_counts must be a mapping from symbol tuples to counts, got {type(word_counts).__name__}")
    check_options(vocab_size, num_merges, min_frequency, None, on_merge, show_progress, engine)
    old_size = model.vocab_size
    if vocab_size is not None and vocab_size < old_size:
        raise ValueError(f"vocab_size={vocab_size} is smaller than the initial model's {old_size} tokens; continued "
                         f"training only adds tokens: use vocab_size >= {old_size}")
    words, counts, unknown = segment_words(model, word_counts)
    id_to_token = list(model.id_to_token)
    specials = model.special_tokens
    prefix = model.continuing_subword_prefix
    words, counts = cut_special_runs(words, counts, id_to_token, specials, prefix=prefix)
    words, counts = cut_ambiguous(words, counts, id_to_token, _marker_of(model))
    lengths = None
    if max_token_length is not None:
        if token_length is None:
            raise ValueError("max_token_length needs token_length(token), the length of each old token: the engines "
                             "count an old merged token as one symbol otherwise")
        lengths = {i: n for i, n in enumerate(map(token_length, id_to_token)) if n != 1}
    new_merges = learn_merges(
        engine, words, counts, id_to_token, special_tokens=specials, prefix=prefix, vocab_size=vocab_size,
        num_merges=num_merges, min_frequency=min_frequency, on_merge=on_merge, show_progress=show_progress,
        first_rank=len(model.merges), max_token_length=max_token_length, symbol_lengths=lengths,
    )
    extended = BPEModel(
        special_tokens=specials, alphabet=model.alphabet, merges=model.merges + tuple(new_merges),
        continuing_subword_prefix=prefix,
    )
    assert extended.id_to_token[:old_size] == model.id_to_token  # old ids never move
    if unknown:
        total = sum(c for key, c in word_counts.items() for _ in key)
        seen = sum(unknown.values())
        top = ", ".join(repr(s) for s, _ in sorted(unknown.items(), key=lambda kv: (-kv[1], kv[0]))[:5])
        warnings.warn(
            f"{len(unknown)} symbols of the new text ({seen} of its {total} symbols, {100 * seen / total:.1f}%; most "
            f"often {top}) are not in the initial alphabet: they stay unknown (<unk>, or byte tokens with byte "
            "fallback) and no merge crosses them; continued training cannot add symbols without moving old ids. "
            "Start from a model whose alphabet covers the new text (unit='byte' holds all 256 bytes; "
            "byte_fallback=True at least avoids <unk>), or train anew",
            UserWarning, stacklevel=2,
        )
    return ContinuedTraining(extended, unknown)


def _marker_of(model: BPEModel) -> Any:
    """The marker ``model`` was trained with, as far as the cuts of :func:`cut_ambiguous` go:
    ``##`` from its prefix, ``</w>`` from its alphabet, else one that cuts nothing."""
    if model.continuing_subword_prefix is not None:
        return get_marker(model.continuing_subword_prefix)
    return get_marker("</w>" if get_marker("</w>").shows_in(model.alphabet) else None)


def check_initial_options(
    initial: Any, *, pre_tokenizer: Any, unit: Any, marker: Any, special_tokens: Any, byte_fallback: bool,
    unk_token: Any, limit_alphabet: Any, max_token_length: Any,
) -> None:
    """Refuse options of ``Tokenizer.train(..., initial=tok)`` that differ from the initial tokenizer
    (the old merges would not mean the same thing, or old ids would move), naming the first one.
    ``pre_tokenizer``/``unit`` are resolved objects, the others as given."""
    for name, ours, theirs in (
        ("pre_tokenizer", pre_tokenizer.to_config(), initial.pre_tokenizer.to_config()),
        ("unit", unit.to_config(), initial.unit.to_config()),
        ("marker", marker, initial.marker),
        ("byte_fallback", byte_fallback, initial.byte_fallback),
        ("unk_token", unk_token, initial.unk_token),
    ):
        if ours != theirs:
            raise ValueError(
                f"{name}={ours!r} differs from the initial tokenizer's {theirs!r}; continued training keeps the "
                f"initial pipeline: leave {name} out (it defaults to the initial tokenizer's) or pass {theirs!r}"
            )
    specials = tuple(special_tokens)
    if specials not in (("<unk>",), tuple(initial.special_tokens)):
        raise ValueError(
            f"special_tokens={specials!r} differs from the initial tokenizer's {tuple(initial.special_tokens)!r}; "
            "special tokens take the first ids, so new ones would move every old id: leave special_tokens out"
        )
    for name, value in (("limit_alphabet", limit_alphabet), ("max_token_length", max_token_length)):
        if value is not None:
            raise ValueError(
                f"{name}={value!r} is not supported with initial=: continued training keeps the initial alphabet "
                f"and the engines count an old merged token as one symbol; leave {name} out"
            )
