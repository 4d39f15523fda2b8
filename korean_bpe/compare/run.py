"""``compare``: train every tokenization strategy on the same texts and measure it on held-out text.

The study of Park et al. 2020 (kakaobrain/kortok: jamo, syllable, morpheme, subword and
morpheme-aware subword tokenization on the same data), on your corpus, in one call:

>>> texts = ["영화 정말 재밌다", "영화 진짜 재밌어요", "정말 재밌는 영화", "진짜 최고의 영화"] * 5
>>> df = compare(texts, strategies=["whitespace/syllable", "baseline/word"], vocab_sizes=[20, 30],
...              show_progress=False, gold=None)
>>> df[["strategy", "vocab_size", "actual_vocab_size", "tokens_per_doc", "round_trip_rate"]].to_string(index=False)
'           strategy  vocab_size  actual_vocab_size  tokens_per_doc  round_trip_rate\\nwhitespace/syllable          20                 20             7.0              1.0\\nwhitespace/syllable          30                 30             4.0              1.0\\n      baseline/word          20                  8             3.0              1.0\\n      baseline/word          30                  8             3.0              1.0'

(``baseline/word`` has only 7 words and ``<unk>``: ``actual_vocab_size`` 8 at both sizes.)

Strategies (:data:`DEFAULT_STRATEGIES`; ``strategies=`` names any subset, or a family: ``"bpe"``,
``"baseline"``, ``"peer"``, or a pre-tokenizer name such as ``"okt"`` for its three units):

* ``kind="bpe"``: our BPE over a pre-tokenizer x unit (``syllable``, ``jamo``, ``byte``), named
  ``"<pre-tokenizer>/<unit>"``: ``whitespace`` (어절), ``raw`` (SentencePiece style), ``okt-analysis``
  (Okt analysis mode: 조사, punctuation and foreign tokens dropped, the classic pipeline), and
  ``okt``, ``kiwi``, ``mecab`` in lossless mode (morpheme-aware BPE in kortok's sense);
* ``kind="baseline"``, no BPE: ``baseline/jamo``, ``baseline/syllable`` (a space is the token
  ``▁``), ``baseline/morpheme-okt`` (-kiwi, -mecab: the analyzer's lossless morphemes, each space a
  ``▁`` token) and ``baseline/word`` (어절); the vocabulary is ``<unk>`` plus the ``N - 1`` most
  frequent tokens of the training texts, the rest ``<unk>``;
* ``kind="peer"``: each name of :data:`korean_bpe.compare.peers.PEERS` (SentencePiece, HF, Kiwi),
  trained on the same texts at each size, except the greedy byte-level BPE peers
  (:data:`~korean_bpe.compare.peers.TRUNCATABLE_PEERS`: ``hf-bpe``, ``kiwi-bpe``), trained once at
  the largest size and truncated, which gives the model training at the smaller size gives (a test
  checks the ids).  A peer that crashes (``kiwi-swtokenizer`` on NSMC) is skipped at its remaining
  sizes with one note.

Two cores: ``n_jobs=2`` (or ``-1``, one worker per CPU) runs groups of strategies in spawned worker
processes (the peers' trainers beside our rows, the analyzers side by side) and gives the same
metrics as ``n_jobs=1``; as with any ``multiprocessing`` code, a script calling it needs the
``if __name__ == "__main__":`` guard.

A vocabulary sweep costs one training per BPE strategy: it is trained at the largest size and each
smaller size is ``model.truncate(n)`` (BPE merges are a usable prefix; a test shows the rows equal
separate trainings).  Pre-tokenization runs once per pre-tokenizer (training and held-out texts)
and is shared by its units and sizes, the baselines and the gold analyzer; so are the held-out 어절
of each pre-tokenization, keyed by the words that cover them, so that a BPE row counts continued
어절 and boundaries once per distinct 어절 (a test shows the counts equal the per-text ones).  A size a strategy
cannot reach (merges stop at ``min_frequency``, a baseline runs out of tokens) gives a row whose
``actual_vocab_size`` is smaller; a size below a BPE strategy's alphabet is skipped with a note.

Columns (:data:`COLUMNS`), measured on the held-out texts (``eval_texts``, or a seeded
``test_fraction`` of ``texts``); ``N`` = held-out documents, ``W`` = their 어절 (white-space
words of the original text), ``T`` = tokens of ``encode_batch``:

* ``strategy``, ``kind``, ``pre_tokenizer`` (``""`` for peers and the jamo/syllable baselines),
  ``unit``, ``lossless`` (the pipeline promises ``decode(encode(x)) == x``), ``vocab_size`` (asked),
  ``actual_vocab_size`` (reached);
* ``tokens_per_doc`` = T / N; ``tokens_per_word`` = T / W; ``continued_word_rate`` = share of 어절
  occurrences overlapped by two or more tokens (a token of white space alone overlaps none);
  ``chars_per_token`` = characters / T; ``bytes_per_token`` = UTF-8 bytes / T;
* ``unk_rate`` = unknown tokens / T; ``unrepresentable_char_rate`` = share of the held-out
  characters (white space excluded) that the strategy cannot write at all: encoded alone, the
  character gives no token, or an unknown one (a byte vocabulary writes every character; the word
  baseline only the characters that are words);
* ``renyi_efficiency`` = H_2.5(p) / log(actual_vocab_size) of the token distribution over the
  held-out texts (Zouhar et al. 2023, alpha 2.5; the tokenization-scorer package defaults to 3);
  ``renyi_efficiency_observed``: the same over the token types seen;
* ``gold`` (the gold analyzer), ``self_graded`` (the strategy is built on that analyzer, graded by
  its own ruler), ``morph_precision``, ``morph_recall``, ``morph_f1``: token boundaries strictly
  inside an 어절 against the gold analyzer's morpheme boundaries on the same held-out texts, as
  character offsets of the original text, micro-averaged over all 어절 (a span covering part of a
  character covers all of it);
* ``incomplete_hangul_rate``: share of vocabulary tokens holding part of a Hangul syllable's UTF-8
  bytes, not all of it; ``jamo_token_rate``: share holding jamo that do not make whole syllables;
* ``round_trip_rate``: share of held-out documents with ``decode(encode(x)) == x``;
* ``probe_accuracy``: with ``labels`` and ``eval_labels``, a seeded logistic regression on
  bag-of-token counts, fitted on the training split (a seeded sample of ``probe_train_docs``,
  20,000 by default) and scored on the held-out one;
* ``train_s`` (seconds to train at the largest size: shared by the smaller, truncated sizes;
  counting for a baseline, the peer's own trainer at each size, or once for a truncated peer), ``pretok_s`` (seconds to
  pre-tokenize training + held-out texts, once per pre-tokenizer; NaN for peers and the
  jamo/syllable baselines), ``encode_texts_per_s`` (the public ``encode_batch`` a user calls, on up
  to :data:`THROUGHPUT_TEXTS` held-out texts, cold word cache, best of up to three runs; for a row
  built on an analyzer, whose ``encode_batch`` is ``pre_tokenizer.batch`` then the encoding of its
  words, ``n / (t_analyzer + t_encode)``: ``t_analyzer`` timed once per pre-tokenizer on the same
  texts, best of up to three runs (Okt's on-disk cache makes its second run faster), ``t_encode``
  per row);
* ``train_docs``, ``test_docs``;
* ``model_cached``: the row's model was read from the model cache (``compare(model_cache=True)``,
  the default: see :mod:`korean_bpe.compare.model_cache`) instead of trained in this run; its
  ``train_s`` is then the original training's.

The lossy ``okt-analysis`` rows measure what such a model sees: the dropped 조사, punctuation and
foreign characters are not encoded, so ``tokens_per_doc``, ``tokens_per_word`` (still per 어절 of
the original text), ``chars_per_token`` and ``bytes_per_token`` (characters and bytes of the
original text) count only the kept tokens; their characters count as unrepresentable, an 어절 left
with one token is not continued, and ``round_trip_rate`` is NaN (decoding cannot give them back).
All other metrics are defined as above.

Documents are taken as single lines: line-break characters inside one become spaces.
"""

from __future__ import annotations

import contextlib
import gc
import math
import numbers
import time
from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from ..pre_tokenizers.base import LINE_BREAKS
from ..units import SPACE_MARK
from . import metrics
from .segmenters import BaselineSegmenter, BPESegmenter, Segmenter, align_words

if TYPE_CHECKING:  # pragma: no cover
    import pandas as pd

__all__ = [
    "compare", "format_table", "COLUMNS", "DTYPES", "DEFAULT_STRATEGIES",
    "BPE_PRE_TOKENIZERS", "BPE_UNITS", "BASELINES", "GOLD_ANALYZERS", "THROUGHPUT_TEXTS",
]

#: the pre-tokenizations of the ``bpe`` rows: name -> (registered pre-tokenizer, options)
BPE_PRE_TOKENIZERS: dict[str, tuple[str, dict[str, Any]]] = {
    "whitespace": ("whitespace", {}),
    "raw": ("raw", {}),
    "okt-analysis": ("okt", {}),
    "okt": ("okt", {"lossless": True}),
    "kiwi": ("kiwi", {"lossless": True}),
    "mecab": ("mecab", {"lossless": True}),
}
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
#: held-out texts timed for ``encode_texts_per_s`` (the first ones; all when fewer)
THROUGHPUT_TEXTS = 2000
_PEER_NAMES_FALLBACK = ("sentencepiece-bpe", "sentencepiece-unigram", "hf-bpe", "hf-wordpiece", "kiwi-bpe",
                        "kiwi-swtokenizer")

#: the columns of the frame :func:`compare` returns, in order
COLUMNS = (
    "strategy", "kind", "pre_tokenizer", "unit", "lossless", "vocab_size", "actual_vocab_size",
    "tokens_per_doc", "tokens_per_word", "continued_word_rate", "chars_per_token", "bytes_per_token",
    "unk_rate", "unrepresentable_char_rate", "renyi_efficiency", "renyi_efficiency_observed",
    "gold", "self_graded", "morph_precision", "morph_recall", "morph_f1",
    "incomplete_hangul_rate", "jamo_token_rate", "round_trip_rate", "probe_accuracy",
    "train_s", "pretok_s", "encode_texts_per_s", "train_docs", "test_docs", "model_cached",
)
_TEXT = ("strategy", "kind", "pre_tokenizer", "unit", "gold")
#: the dtype of each column (an empty frame has them too)
DTYPES: dict[str, str] = {
    c: "object" if c in _TEXT else "bool" if c in ("lossless", "self_graded", "model_cached")
    else "int64" if c in ("vocab_size", "actual_vocab_size", "train_docs", "test_docs") else "float64"
    for c in COLUMNS
}

_LINE_BREAK_TABLE = {ord(c): " " for c in LINE_BREAKS}


def _peer_names() -> tuple[str, ...]:
    try:
        from . import peers
    except ImportError:
        return _PEER_NAMES_FALLBACK
    return tuple(peers.PEERS)


def _default_strategies() -> tuple[str, ...]:
    bpe = tuple(f"{p}/{u}" for p in BPE_PRE_TOKENIZERS for u in BPE_UNITS)
    return bpe + tuple(BASELINES) + _peer_names()


#: every strategy of the default grid, in row order
DEFAULT_STRATEGIES: tuple[str, ...] = _default_strategies()


@dataclass(frozen=True)
class _Strategy:
    name: str
    kind: str
    source: str  # the pre-tokenization it reads ("" for none)
    unit: str
    analyzer: str  # the morpheme analyzer it is built on ("" for none)


def _parse(name: str) -> _Strategy:
    if name in BASELINES:
        unit, source = BASELINES[name]
        return _Strategy(name, "baseline", source, unit, source if unit == "morpheme" else "")
    if name in _peer_names():
        return _Strategy(name, "peer", "", "", "kiwi" if name.startswith("kiwi") else "")
    pre, _, unit = name.partition("/")
    analyzer = "okt" if pre == "okt-analysis" else pre if pre in GOLD_ANALYZERS else ""
    return _Strategy(name, "bpe", pre, unit, analyzer)


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
        "bpe": [n for n in grid if _parse(n).kind == "bpe"],
        "baseline": list(BASELINES),
        "peer": list(_peer_names()),
        **{p: [f"{p}/{u}" for u in BPE_UNITS] for p in BPE_PRE_TOKENIZERS},
    }
    out: list[str] = []
    for name in strategies:
        if not isinstance(name, str):
            raise TypeError(f"strategies must hold names (str), got {name!r}")
        if name in families:
            members = families[name]
        elif name in grid:
            members = [name]
        else:
            shown = [*families, *grid]
            raise ValueError(
                f"unknown strategy {name!r}; valid names: {', '.join(shown[:10])}, ... "
                f"(see korean_bpe.compare.DEFAULT_STRATEGIES)"
                if len(shown) > 10 else f"unknown strategy {name!r}; valid names: {', '.join(shown)}"
            )
        out.extend(m for m in members if m not in out)
    if not out:
        raise ValueError("strategies names no strategy; give at least one, e.g. ['whitespace/syllable'] or None")
    return out


# -- what every row is measured against ----------------------------------------------------------


class _HeldOut:
    """The held-out texts and what every row shares: 어절 counts, characters, gold boundaries."""

    def __init__(self, test: list[str], labels: list[int] | None) -> None:
        self.texts = test
        self.labels = labels
        self.n_words = sum(len(t.split()) for t in test)
        self.n_chars = sum(map(len, test))
        self.n_bytes = sum(len(t.encode("utf-8", "surrogatepass")) for t in test)
        self.char_counts = Counter(ch for t in test for ch in t if not ch.isspace())
        self.word_spans = [metrics.word_spans(t) for t in test]
        self.gold: list[list[frozenset[int]]] | None = None
        self.gold_name = ""
        self.n_gold = 0  # gold boundaries over all 어절
        self.sample = test[:THROUGHPUT_TEXTS]


def _gold_boundaries(test: list[str], words: list[list[str]], word_spans: list[list[tuple[int, int]]]) -> list[list[frozenset[int]]]:
    """Per text, per 어절: the gold analyzer's morpheme boundaries (from its lossless pieces)."""
    out = []
    for text, ws, spans in zip(test, words, word_spans):
        morph = []
        for w, (base, z) in zip(ws, align_words(text, ws)):
            start = base + max(len(w) - len(w.lstrip(SPACE_MARK)), z)  # the morpheme, not the spaces before it
            if start < base + len(w):
                morph.append((start, base + len(w)))
        out.append(metrics.internal_boundaries(morph, spans))
    return out


def _measure(seg: Segmenter, held: _HeldOut, *, encoded: list[list[int]], train_encoded: list[list[int]] | None,
             train_labels: list[int] | None, lossy: bool, seed: int, spans_fixed: dict[str, Any] | None = None,
             layout: _Layout | None = None, char_words: list[list[str]] | None = None,
             spans: list[list[tuple[int, int]]] | None = None) -> dict[str, Any]:
    """One row's metrics.  ``spans_fixed``: a dict shared by the sizes of a strategy whose spans do not
    depend on the vocabulary size (a baseline: only which tokens are <unk> changes), filled by the
    first size and read by the others.  ``layout``: the held-out 어절 of a BPE row's pre-tokenizer,
    for :func:`_span_counts` (the same counts as :func:`_span_counts_per_text`, per distinct 어절).
    ``char_words``: the row's pre-tokenizer's words of each held-out character (``encode_batch`` of a
    pre-tokenizing segmenter is ``encode_pretokenized`` of them: the analyzer then runs once, not per row)."""
    texts = held.texts
    n_tokens = sum(map(len, encoded))
    # spans -> tokens per 어절 (how many are continued) and boundaries strictly inside 어절
    if layout is not None and isinstance(seg, BPESegmenter):
        continued, n_pred, tp = _span_counts(seg, layout)
    elif spans_fixed:
        continued, n_pred, tp = spans_fixed["counts"]
    else:
        continued, n_pred, tp = _span_counts_per_text(seg, held, spans)
        if spans_fixed is not None:
            spans_fixed["counts"] = (continued, n_pred, tp)
    if held.gold is not None:
        precision, recall = metrics._ratio(tp, n_pred), metrics._ratio(tp, held.n_gold)
        f1 = metrics._ratio(2 * tp, n_pred + held.n_gold)
    else:
        precision = recall = f1 = math.nan
    unk = seg.unk_ids
    token_counts, n_unk = _token_stats(encoded, unk, n_tokens)
    chars = list(held.char_counts)
    if char_words is not None:  # the pre-tokenizer's words of each character, computed once for its rows
        alone = seg.encode_pretokenized(char_words)  # type: ignore[attr-defined]
    else:
        alone = seg.encode_batch(chars) if chars else []
    representable = {ch for ch, ids in zip(chars, alone) if ids and unk.isdisjoint(ids)}
    surfaces = seg.vocab_surfaces()
    decoded = None if lossy else [seg.decode(ids) for ids in encoded]
    probe = math.nan
    if train_encoded is not None and train_labels is not None and held.labels is not None:
        probe = metrics.probe_accuracy(train_encoded, train_labels, encoded, held.labels, seed=seed)
    return {
        "actual_vocab_size": seg.vocab_size,
        "tokens_per_doc": n_tokens / len(texts) if texts else math.nan,
        "tokens_per_word": metrics.fertility(n_tokens=n_tokens, n_words=held.n_words),
        "continued_word_rate": metrics._ratio(continued, held.n_words),
        "chars_per_token": metrics.chars_per_token(n_chars=held.n_chars, n_tokens=n_tokens),
        "bytes_per_token": metrics.bytes_per_token(n_bytes=held.n_bytes, n_tokens=n_tokens),
        "unk_rate": metrics._ratio(n_unk, n_tokens),  # metrics.unk_rate(encoded, unk_ids=unk)
        "unrepresentable_char_rate": metrics.unrepresentable_char_rate(held.char_counts, known=representable.__contains__),
        "renyi_efficiency": metrics.renyi_efficiency(token_counts, vocab_size=seg.vocab_size),
        "renyi_efficiency_observed": metrics.renyi_efficiency(token_counts),
        "morph_precision": precision, "morph_recall": recall, "morph_f1": f1,
        "incomplete_hangul_rate": metrics.incomplete_hangul_rate(surfaces),
        "jamo_token_rate": metrics.jamo_token_rate(surfaces),
        "round_trip_rate": math.nan if decoded is None else metrics.round_trip_rate(texts, decoded),
        "probe_accuracy": probe,
    }


def _token_stats(encoded: list[list[int]], unk_ids: frozenset[int], n_tokens: int) -> tuple[list[int], int]:
    """(the count of each token id that occurs, in id order; how many tokens are in ``unk_ids``)
    of the held-out ids, with one numpy ``bincount`` (what ``Counter`` and
    :func:`~korean_bpe.compare.metrics.unk_rate` count, at C speed: ~2M ids a 32k row)."""
    import itertools

    import numpy as np

    flat = np.fromiter(itertools.chain.from_iterable(encoded), dtype=np.int64, count=n_tokens)
    bins = np.bincount(flat)
    return bins[bins > 0].tolist(), sum(int(bins[i]) for i in unk_ids if i < len(bins))


def _span_counts_per_text(seg: Segmenter, held: _HeldOut,
                          spans: list[list[tuple[int, int]]] | None = None) -> tuple[int, int, int]:
    """(어절 with 2+ tokens, predicted boundaries, predicted boundaries that are gold) over the held-out
    texts, from ``seg.pieces`` of each text: the straightforward definition (metrics'
    :func:`~korean_bpe.compare.metrics.continued_word_rate` and
    :func:`~korean_bpe.compare.metrics.boundary_scores` count the same).  ``spans``: the spans of
    those pieces when already known (an HF peer's ``encode_with_spans``)."""
    continued = n_pred = tp = 0
    gold = held.gold
    for t, (text, word_spans) in enumerate(zip(held.texts, held.word_spans)):
        pieces = [(a, b) for a, b in spans[t] if a < b] if spans is not None else \
            [(a, b) for _, a, b in seg.pieces(text) if a < b]
        continued += sum(n >= 2 for n in _tokens_per_word(pieces, word_spans))
        if gold is not None:
            for p, g in zip(metrics.internal_boundaries(pieces, word_spans), gold[t]):
                n_pred += len(p)
                tp += len(p & g)
    return continued, n_pred, tp


class _Layout:
    """The held-out 어절 of one pre-tokenization, each occurrence keyed by what its counts depend on:
    the pre-tokenizer's words that overlap it (word, start relative to the 어절, ``z`` of
    :func:`~korean_bpe.compare.segmenters.align_words`), its length and its gold boundaries
    (relative); ``counts`` maps each distinct key to its occurrences.  Shared by the units and sizes
    of the pre-tokenizer: a row then measures each distinct key once (:func:`_span_counts`)."""

    def __init__(self, held: _HeldOut, words: list[list[str]], aligned: dict[str, Any]) -> None:
        import bisect

        counts: Counter[tuple[Any, ...]] = Counter()
        distinct: dict[str, None] = {}
        gold = held.gold
        for t, (text, ws, spans) in enumerate(zip(held.texts, words, held.word_spans)):
            where = aligned.get(text)
            if where is None:
                where = aligned[text] = align_words(text, ws)
            ends = [e for _, e in spans]
            assigned: list[list[tuple[str, int, int]]] = [[] for _ in spans]
            for w, (base, z) in zip(ws, where):
                lo, hi = base + z, base + len(w)  # every token span of w lies in [lo, hi]
                if lo >= hi:
                    continue
                j = bisect.bisect_right(ends, lo)  # the first 어절 ending after lo
                while j < len(spans) and spans[j][0] < hi:
                    assigned[j].append((w, base, z))
                    j += 1
                distinct[w] = None
            for j, (s, e) in enumerate(spans):
                g = None if gold is None else frozenset(k - s for k in gold[t][j])
                counts[(tuple((w, base - s, z) for w, base, z in assigned[j]), e - s, g)] += 1
        self.counts = counts
        self.words = list(distinct)
        self.singletons = [[w] for w in self.words]  # each word a text of its own, for encode_pretokenized
        self._arrays: dict[str, Any] | None = None
        self._symbols: dict[str, dict[str, Any]] = {}

    def arrays(self) -> dict[str, Any]:
        """The keys as numpy arrays, built once: per placed word ``key``, ``word`` (index in
        :attr:`words`), ``base``, ``z``; per key ``count`` and ``n``; ``gold``: the sorted codes
        ``key * big + boundary`` (None without a gold analyzer)."""
        if self._arrays is None:
            import numpy as np

            index = {w: i for i, w in enumerate(self.words)}
            placed = [(k, index[w], base, z) for k, (ws, _, _) in enumerate(self.counts) for w, base, z in ws]
            cols = np.array(placed, dtype=np.int64).reshape(-1, 4).T
            n = np.fromiter((n for _, n, _ in self.counts), dtype=np.int64, count=len(self.counts))
            big = int(n.max(initial=0)) + 1
            gold = None
            if any(g is not None for _, _, g in self.counts):
                gold = np.unique(np.fromiter((k * big + b for k, (_, _, g) in enumerate(self.counts) for b in g or ()),
                                             dtype=np.int64))
            self._arrays = {"key": cols[0], "word": cols[1], "base": cols[2], "z": cols[3], "n": n, "big": big,
                            "count": np.fromiter(self.counts.values(), dtype=np.int64, count=len(self.counts)),
                            "gold": gold}
        return self._arrays

    def symbols(self, unit: str) -> dict[str, Any]:
        """For ``unit``'s symbols of each distinct word (the marker aside): ``char_of`` (all words
        end to end: the character each symbol comes from), ``off`` (each word's first symbol there),
        ``n_sym`` and ``wlen`` (characters); built once per unit."""
        got = self._symbols.get(unit)
        if got is None:
            import itertools

            import numpy as np

            from .segmenters import _char_len

            char_len = _char_len(unit)
            per_word = [[k for k, ch in enumerate(w) for _ in range(char_len(ch))] for w in self.words]
            n_sym = np.fromiter(map(len, per_word), dtype=np.int64, count=len(per_word))
            off = np.zeros(len(per_word), dtype=np.int64)
            np.cumsum(n_sym[:-1], out=off[1:])
            char_of = np.fromiter(itertools.chain.from_iterable(per_word), dtype=np.int64, count=int(n_sym.sum()))
            got = self._symbols[unit] = {
                "char_of": np.append(char_of, 0), "off": off, "n_sym": n_sym,
                "wlen": np.fromiter(map(len, self.words), dtype=np.int64, count=len(self.words)),
            }
        return got


def _span_counts(seg: BPESegmenter, layout: _Layout) -> tuple[int, int, int]:
    """:func:`_span_counts_per_text` per distinct 어절 of ``layout``, weighted by its occurrences: a
    token span ``(a, b)`` of word ``w`` placed at ``base`` (``z`` of ``align_words``) is
    ``(base + max(a, z), base + max(b, z))`` as in :meth:`BPESegmenter.pieces`; it counts for the 어절
    ``(0, n)`` when non-empty and overlapping it, its end is a boundary when ``0 < end < n``.

    Vectorized (numpy) over every token of every placed word; the token spans are those of
    :meth:`BPESegmenter._ranges_of` (symbol ``j`` of a word, the marker aside, belongs to character
    ``char_of[j]``), and a test checks the counts against the per-text ``pieces()`` ones."""
    import itertools

    import numpy as np

    arr = layout.arrays()
    sym = layout.symbols(seg.unit)
    n_words = len(layout.words)
    ids_lists = seg.encode_pretokenized(layout.singletons)
    ntok = np.fromiter(map(len, ids_lists), dtype=np.int64, count=n_words)
    tok_off = np.zeros(n_words + 1, dtype=np.int64)
    np.cumsum(ntok, out=tok_off[1:])
    flat = np.fromiter(itertools.chain.from_iterable(ids_lists), dtype=np.int64, count=int(tok_off[-1]))
    lengths = _symbol_lengths(seg, np)[flat]
    end = np.cumsum(lengths)
    end -= np.repeat(np.concatenate(([0], end))[tok_off[:-1]], ntok)  # symbol end of each token in its word
    marker = 1 if seg._marker == SPACE_MARK else 0
    a = np.maximum(end - lengths - marker, 0)
    b = end - marker
    wid = np.repeat(np.arange(n_words, dtype=np.int64), ntok)
    n_sym, off, wlen, char_of = sym["n_sym"][wid], sym["off"][wid], sym["wlen"][wid], sym["char_of"]
    last = len(char_of) - 1
    inside = (b > 0) & (a < n_sym)
    ca = np.where(inside, char_of[np.clip(off + a, 0, last)], np.where(b <= 0, 0, wlen))
    cb = np.where(inside, char_of[np.clip(off + np.minimum(b, n_sym) - 1, 0, last)] + 1, np.where(b <= 0, 0, wlen))
    # every token of every placed word
    p_word = arr["word"]
    rep = ntok[p_word]
    t = np.repeat(tok_off[p_word] - np.concatenate(([0], np.cumsum(rep)[:-1])), rep) + np.arange(int(rep.sum()))
    key, base, z = np.repeat(arr["key"], rep), np.repeat(arr["base"], rep), np.repeat(arr["z"], rep)
    start = base + np.maximum(ca[t], z)
    stop = base + np.maximum(cb[t], z)
    n = arr["n"][key]
    valid = (start < stop) & (start < n) & (stop > 0)
    counts = arr["count"]
    per_key = np.bincount(key[valid], minlength=len(counts))
    continued = int(counts[per_key >= 2].sum())
    n_pred = tp = 0
    if arr["gold"] is not None:
        big = arr["big"]
        sel = valid & (stop < n)
        ends = _distinct(key[sel] * big + stop[sel], np)  # each boundary of each distinct 어절 once
        keys = ends // big
        n_pred = int(counts[keys].sum())
        tp = int(counts[keys[np.isin(ends, arr["gold"], assume_unique=True)]].sum())
    return continued, n_pred, tp


def _distinct(codes: Any, np: Any) -> Any:
    """``np.unique(codes)``; codes already in order (keys ascend, and so do the ends of a key's
    tokens) are deduplicated in one pass instead of hashed (0.15 s a 32k jamo row on NSMC)."""
    if codes.size and _SORTED_FAST_PATH and bool(np.all(codes[1:] >= codes[:-1])):
        keep = np.empty(codes.size, dtype=bool)
        keep[0] = True
        np.not_equal(codes[1:], codes[:-1], out=keep[1:])
        return codes[keep]
    return np.unique(codes)


#: :func:`_distinct`'s one-pass path for sorted codes (a test turns it off to compare)
_SORTED_FAST_PATH = True


def _symbol_lengths(seg: BPESegmenter, np: Any) -> Any:
    """Symbols each id spells (a special token: one), as :meth:`BPESegmenter._ranges_of` counts them."""
    got = getattr(seg, "_symbol_lengths", None)
    if got is None:
        specials = seg._specials
        got = seg._symbol_lengths = np.fromiter(
            (1 if i in specials else len(t) for i, t in enumerate(seg.tokenizer.id_to_token)),
            dtype=np.int64, count=len(seg.tokenizer.id_to_token))
    return got


def _tokens_per_word(pieces: list[tuple[int, int]], words: list[tuple[int, int]]) -> list[int]:
    """How many of the (non-empty, sorted) token spans overlap each 어절 span.

    >>> _tokens_per_word([(0, 2), (2, 3), (3, 5), (5, 6)], [(0, 3), (4, 6)])
    [2, 2]
    """
    out = []
    k = 0
    for s, e in words:
        while k < len(pieces) and pieces[k][1] <= s:
            k += 1
        j, n = k, 0
        while j < len(pieces) and pieces[j][0] < e:
            n += 1
            j += 1
        out.append(n)
    return out


def _throughput(seg: Segmenter, sample: list[str], *, analyzer_s: float | None = None,
                words: list[list[str]] | None = None) -> float:
    """Texts of ``sample`` per second through ``seg.encode_batch``: cold word cache, best of up to
    three runs (stopping once a second has been spent).  With ``analyzer_s`` (the seconds of
    ``pre_tokenizer.batch(sample)``, timed once per pre-tokenizer) and ``words`` (its output), the
    encoding of ``words`` is timed alone and the rate is ``len(sample) / (analyzer_s + encode_s)``:
    ``encode_batch`` of an analyzer-backed tokenizer is exactly those two steps, and the analyzer
    then runs once per pre-tokenizer instead of once per row."""
    if analyzer_s is not None and words is not None:
        encode_s = _best_seconds(lambda: seg.encode_pretokenized(words), getattr(seg, "clear_cache", None))  # type: ignore[attr-defined]
        return metrics.throughput(len(sample), analyzer_s + encode_s)
    return metrics.throughput(len(sample), _best_seconds(lambda: seg.encode_batch(sample),
                                                         getattr(seg, "clear_cache", None)))


def _best_seconds(fn: Any, clear: Any = None) -> float:
    """The fastest of up to three calls of ``fn`` (``clear()`` before each), stopping once a
    second has been spent."""
    best, spent = math.inf, 0.0
    for _ in range(3):
        if clear is not None:
            clear()
        start = time.perf_counter()
        fn()
        took = time.perf_counter() - start
        best, spent = min(best, took), spent + took
        if spent > 1.0:
            break
    return best


# -- the run -----------------------------------------------------------------------------------------


class _Pretok:
    """Each pre-tokenization once: training and held-out words, seconds, or why it failed."""

    def __init__(self, train: list[str], test: list[str]) -> None:
        self.train, self.test = train, test
        self._done: dict[str, Any] = {}
        self._aligned: dict[str, dict[str, Any]] = {}
        self._layouts: dict[str, _Layout] = {}
        self._char_words: dict[str, list[list[str]]] = {}
        self._sample: dict[str, tuple[float, list[list[str]]]] = {}

    def layout(self, key: str, held: _HeldOut) -> _Layout:
        """The held-out 어절 of pre-tokenization ``key`` (:class:`_Layout`), built once."""
        got = self._layouts.get(key)
        if got is None:
            table = self.get(key)[3]
            got = self._layouts[key] = _Layout(held, [table[t] for t in held.texts], self.aligned(key))
        return got

    def char_words(self, key: str, chars: list[str]) -> list[list[str]]:
        """The words pre-tokenization ``key`` gives for each of ``chars`` alone, computed once."""
        got = self._char_words.get(key)
        if got is None:
            got = self._char_words[key] = _batch_cached(self.get(key)[0], chars)
        return got

    def sample_batch(self, key: str, sample: list[str]) -> tuple[float, list[list[str]]]:
        """(seconds, words) of ``pre_tokenizer.batch(sample)`` of pre-tokenization ``key``: the
        fastest of up to three runs (:func:`_best_seconds`), measured once."""
        got = self._sample.get(key)
        if got is None:
            pt = self.get(key)[0]
            words: list[list[list[str]]] = []
            seconds = _best_seconds(lambda: words.append(pt.batch(sample, show_progress=False)))
            got = self._sample[key] = (seconds, words[-1])
        return got

    def forget(self, keys: set[str]) -> None:
        """Release what was kept for the pre-tokenizations ``keys`` (a later :meth:`get` computes
        them again): their words, alignments, layouts and samples."""
        for store in (self._done, self._aligned, self._layouts, self._char_words, self._sample):
            for key in keys:
                store.pop(key, None)

    def aligned(self, key: str) -> dict[str, Any]:
        """A dict shared by the segmenters of one pre-tokenization: text -> ``align_words``."""
        return self._aligned.setdefault(key, {})

    def get(self, key: str) -> tuple[Any, list[list[str]], list[list[str]], dict[str, list[str]], float]:
        """(pre-tokenizer, training words, held-out words, text -> words, seconds); raises the
        analyzer's error (ImportError, RuntimeError, OSError, ValueError) when it cannot run."""
        if key not in self._done:
            try:
                self._done[key] = self._run(key)
            except (ImportError, RuntimeError, OSError, ValueError) as exc:
                self._done[key] = exc
        got = self._done[key]
        if isinstance(got, BaseException):
            raise got
        return got

    def _run(self, key: str) -> tuple[Any, list[list[str]], list[list[str]], dict[str, list[str]], float]:
        pt = _build_pre_tokenizer(key)
        start = time.perf_counter()
        words = _batch_cached(pt, self.train + self.test)
        seconds = time.perf_counter() - start
        n = len(self.train)
        table = dict(zip(self.train + self.test, words))
        return pt, words[:n], words[n:], table, seconds


def _build_pre_tokenizer(key: str) -> Any:
    from ..pre_tokenizers import get_pre_tokenizer

    name, options = BPE_PRE_TOKENIZERS[key]
    pt = get_pre_tokenizer(name, **options)
    pt("한국어 시험")  # start the analyzer now: a missing Java or package shows here
    return pt


def _batch_cached(pt: Any, texts: list[str]) -> list[list[str]]:
    """``pt.batch(texts)``; for an analyzer without an on-disk cache of its own (``kiwi``, ``mecab``:
    they have ``analyzer_version``), the words are kept in :mod:`korean_bpe.pre_tokenizers.cache` under the
    analyzer's name, keyed by its version and config, so that a second comparison reads them back."""
    version = getattr(pt, "analyzer_version", None)
    if version is None:
        return pt.batch(texts, show_progress=False)
    import warnings

    from ..pre_tokenizers.cache import AnalysisCache

    unique = list(dict.fromkeys(texts))
    found: dict[str, list[str]] = {}
    cache = None
    try:
        cache = AnalysisCache(pt.name)
        ns = cache.namespace({"analyzer": f"{pt.name} words (korean_bpe.compare)", "version": version,
                              "options": pt.to_config()})
        found = cache.get_many(ns, unique)
    except Exception as exc:  # a broken cache costs time, never the run
        warnings.warn(f"{pt.name} words cache disabled for this comparison: {exc}", RuntimeWarning, stacklevel=2)
        if cache is not None:
            cache.close()
        cache = None
    missing = [t for t in unique if t not in found]
    if missing:
        words = pt.batch(missing, show_progress=False)
        found.update(zip(missing, words))
        if cache is not None:
            try:
                cache.put_many(ns, zip(missing, words))
            except Exception as exc:
                warnings.warn(f"{pt.name} words not cached: {exc}", RuntimeWarning, stacklevel=2)
    if cache is not None:
        cache.close()
    return [found[t] for t in texts]


def _one_line(text: str) -> str:
    """A document as one line: stray line breaks become spaces (no token may hold one)."""
    return text.translate(_LINE_BREAK_TABLE)


def _why(exc: BaseException) -> str:
    return " ".join(str(exc).split()) or type(exc).__name__


def compare(
    texts: Sequence[str],
    *,
    eval_texts: Sequence[str] | None = None,
    labels: Sequence[int] | None = None,
    eval_labels: Sequence[int] | None = None,
    strategies: Sequence[str] | None = None,
    vocab_sizes: Sequence[int] = (8000,),
    gold: str | None = "kiwi",
    seed: int = 0,
    show_progress: bool | None = None,
    notes: list[str] | None = None,
    segmenters: dict[tuple[str, int], Segmenter] | None = None,
    test_fraction: float = 0.1,
    min_frequency: int = 2,
    probe_train_docs: int | None = 20_000,
    n_jobs: int | None = None,
    timings: dict[str, dict[str, float]] | None = None,
    pieces: dict[tuple[str, int], dict[str, list[tuple[str, int, int]]]] | None = None,
    pieces_texts: Sequence[str] = (),
    model_cache: bool = True,
) -> pd.DataFrame:
    """One row per strategy x vocabulary size, measured on held-out text (see the module docstring).

    ``texts`` are documents.  Without ``eval_texts`` a seeded shuffle holds out ``test_fraction``
    of them (:func:`korean_bpe.compare.metrics.split_indices`); with it, all of ``texts`` train and
    ``eval_texts`` are measured.  ``labels`` (one int per text) and ``eval_labels`` (per held-out
    text; taken from the split when ``eval_texts`` is None) turn on ``probe_accuracy``.
    ``gold``: ``"kiwi"``, ``"mecab"``, ``"okt"`` or None (no morpheme-boundary metrics).
    ``min_frequency``: the BPE trainer's (merges seen fewer times stop training).
    ``probe_train_docs``: the probe is fitted on a seeded sample of at most this many training
    documents (the same for every row; None: all of them), which keeps it to seconds a row.

    A strategy whose analyzer or peer library is missing, or that cannot be trained, is skipped;
    each skip appends one line ``"skipped X: why"`` to ``notes`` when a list is given.
    ``segmenters``, when a dict, receives each row's :class:`~korean_bpe.compare.segmenters.Segmenter`
    under ``(strategy, vocab_size)`` (the rows then run in this process: ``n_jobs`` must be 1).
    ``pieces``, when a dict, receives the same as plain data, whatever ``n_jobs``: under
    ``(strategy, largest vocab_size reached)``, ``{text: Segmenter.pieces(text)}`` for each of
    ``pieces_texts`` (what :func:`korean_bpe.compare.report.segmentation_examples` and
    :func:`~korean_bpe.compare.report.token_lengths` read, as they read ``segmenters``).

    ``n_jobs``: worker processes (None: 1, all in this process; -1: one per CPU).  With 2 or more,
    the strategies are grouped into tasks that share nothing but the on-disk caches (the rows of
    one analyzer or pre-tokenizer with the baselines that read it, the jamo and syllable baselines,
    each peer alone), and spawned workers run them, the longest first.  Every metric is the same
    whatever ``n_jobs`` (each row depends only on its own strategy, the texts and ``seed``; a test
    checks it); the timing columns measure whichever process ran the row, sharing the machine.
    While the rows are measured, the cyclic garbage collector runs less often
    (:func:`rare_collections`, restored after; in workers, for their life) and each task's
    pre-tokenizations are released when it ends: a full collection walks every object a
    comparison keeps, and on NSMC they took a quarter of a run.
    ``timings``, when a dict, receives each task's ``{"wall_s", "cpu_s", "rows"}`` (CPU: of the
    process that ran it) under the task's name (a pre-tokenizer, ``"baseline"`` for the jamo and
    syllable baselines, or a peer).

    ``model_cache`` (on by default): each trained model (ours, the baselines' vocabularies, the
    peers') is kept in ``models/`` under the analysis cache's directory
    (:mod:`korean_bpe.compare.model_cache`), keyed by the training texts' content hash, the
    strategy and its configuration, the size, ``seed`` and the library versions; a rerun reads it
    back instead of training (``model_cached`` True, ``train_s`` the original training's).
    False: every model is trained, nothing is read or written.
    """
    pd = _require_pandas()
    texts, train, test, train_labels, test_labels = _split(texts, eval_texts, labels, eval_labels, test_fraction, seed)
    sizes = _sizes(vocab_sizes)
    names = resolve_strategies(strategies)
    if gold is not None and gold not in GOLD_ANALYZERS:
        raise ValueError(f"gold={gold!r} is not an analyzer; use one of {GOLD_ANALYZERS} or None")
    if not isinstance(min_frequency, int) or min_frequency < 1:
        raise ValueError(f"min_frequency must be a positive int, got {min_frequency!r}")
    if probe_train_docs is not None and (not isinstance(probe_train_docs, int) or probe_train_docs < 1):
        raise ValueError(f"probe_train_docs must be a positive int or None (all), got {probe_train_docs!r}")
    probe_idx: list[int] | None = None
    if train_labels is not None:
        probe_idx = list(range(len(train)))
        if probe_train_docs is not None and len(train) > probe_train_docs:
            import random

            probe_idx = sorted(random.Random(seed).sample(probe_idx, probe_train_docs))
        train_labels = [train_labels[i] for i in probe_idx]
    if isinstance(pieces_texts, str):
        raise TypeError(f"pieces_texts must be a sequence of strings, not the string {pieces_texts!r}; "
                        f"write pieces_texts=[{pieces_texts!r}]")
    pieces_texts = list(dict.fromkeys(pieces_texts))
    if not all(isinstance(t, str) for t in pieces_texts):
        raise TypeError("pieces_texts must hold strings (the texts to record the pieces of)")
    jobs = _jobs(n_jobs)
    if jobs > 1 and segmenters is not None:
        raise ValueError(f"segmenters needs the rows in this process: pass n_jobs=1 (got n_jobs={n_jobs!r}), "
                         "or segmenters=None")
    tasks = _tasks(names)
    jobs = min(jobs, len(tasks))  # a worker per task at most; one task runs in this process
    notes = notes if notes is not None else []
    held = _HeldOut(test, test_labels)
    pretok = _Pretok(train, test)
    if gold is not None:
        try:
            if jobs == 1 and gold in {_parse(n).source for n in names}:  # analysed anyway: train + held-out
                _, _, gold_words, _, _ = pretok.get(gold)
            else:  # only the held-out texts need the gold analyzer
                gold_words = _batch_cached(_build_pre_tokenizer(gold), test)
            held.gold = _gold_boundaries(test, gold_words, held.word_spans)
            held.n_gold = sum(len(g) for per_text in held.gold for g in per_text)
            held.gold_name = gold
        except (ImportError, RuntimeError, OSError, ValueError) as exc:
            notes.append(f"skipped the morpheme-boundary metrics (gold {gold}): {_why(exc)}")
    peers_ok = True
    if any(_parse(n).kind == "peer" for n in names):
        try:
            from . import peers as _  # noqa: F401
        except ImportError as exc:
            peers_ok = False
            notes.append(f"skipped the peers ({', '.join(n for n in names if _parse(n).kind == 'peer')}): "
                         f"korean_bpe.compare.peers is not available ({_why(exc)})")
    if not isinstance(model_cache, bool):
        raise TypeError(f"model_cache must be True or False, got {model_cache!r}")
    cache_directory = None
    if model_cache:
        from .model_cache import default_directory, texts_hash

        cache_directory = str(default_directory())
    state = {"model_cache_dir": cache_directory, "texts_hash": texts_hash(train) if model_cache else "",
             "train": train, "train_labels": train_labels, "probe_idx": probe_idx, "sizes": sizes, "held": held,
             "seed": seed, "min_frequency": min_frequency, "peers_ok": peers_ok,
             "pieces_texts": pieces_texts if pieces is not None else None}
    bar = _progress(len(names), show_progress)
    done: dict[int, tuple[list[dict[str, Any]], list[str], float, float, dict[Any, Any]]] = {}
    try:
        if jobs == 1:
            context = _context(state, pretok)
            with rare_collections():
                for k, task in enumerate(tasks):
                    done[k] = _timed_task(task, context, bar=bar, segmenters=segmenters)
        else:
            done = _run_pool(tasks, state, jobs, bar)
    finally:
        bar.close()
    by_name: dict[str, list[dict[str, Any]]] = {}
    for k in range(len(tasks)):
        task_rows, task_notes, wall, cpu, task_pieces = done[k]
        notes.extend(task_notes)
        if pieces is not None:
            pieces.update(task_pieces)
        if timings is not None:
            timings[_task_key(tasks[k])] = {"wall_s": wall, "cpu_s": cpu, "rows": len(task_rows)}
        for row in task_rows:
            by_name.setdefault(row["strategy"], []).append(row)
    rows = [row for name in names for row in by_name.get(name, [])]
    return pd.DataFrame(rows, columns=list(COLUMNS)).astype(DTYPES)


#: rough seconds of each task on NSMC (165k/55k reviews, 4 sizes, cold) on one core: only the order in
#: which the worker processes start tasks (longest first), never a result
_TASK_COST = {"okt": 340, "sentencepiece-unigram": 180, "kiwi": 160, "baseline": 110, "mecab": 120,
              "kiwi-bpe": 100, "raw": 90, "whitespace": 90, "kiwi-swtokenizer": 60}


def _tasks(names: list[str]) -> list[list[str]]:
    """The strategies grouped into tasks that share nothing but the on-disk caches: the rows of one
    analyzer or pre-tokenizer (its BPE units and the baselines that read it; ``okt`` and
    ``okt-analysis`` together, as they read the same cached Okt analysis), the jamo and syllable
    baselines, each peer alone; in the order of their first strategy in ``names``."""
    groups: dict[str, list[str]] = {}
    for name in names:
        groups.setdefault(_task_key([name]), []).append(name)
    return list(groups.values())


def _task_key(task: list[str]) -> str:
    s = _parse(task[0])
    if s.kind == "peer":
        return s.name
    return "okt" if s.source == "okt-analysis" else s.source or "baseline"


def _context(state: dict[str, Any], pretok: _Pretok | None = None) -> dict[str, Any]:
    """What :func:`_run_task` reads: ``state`` (plain data) plus this process's pre-tokenizations
    and the peers module."""
    peers_module = None
    if state["peers_ok"]:
        from . import peers as peers_module
    if pretok is None:
        pretok = _Pretok(state["train"], state["held"].texts)
    cache = None
    if state["model_cache_dir"] is not None:
        from .model_cache import ModelCache

        cache = ModelCache(state["model_cache_dir"])
    return {**state, "pretok": pretok, "peers": peers_module, "notes": [], "pieces": {}, "model_cache": cache}


def _run_task(names: list[str], ctx: dict[str, Any], *, bar: Any = None,
              segmenters: dict[tuple[str, int], Segmenter] | None = None) -> list[dict[str, Any]]:
    """The rows of ``names`` (one task), measured in this process; skips go to ``ctx["notes"]``."""
    rows: list[dict[str, Any]] = []
    for name in names:
        rows += _run_strategy(name, ctx, bar=bar, segmenters=segmenters)
    return rows


def _run_strategy(name: str, ctx: dict[str, Any], *, bar: Any = None,
                  segmenters: dict[tuple[str, int], Segmenter] | None = None) -> list[dict[str, Any]]:
    """The rows of one strategy (one per size), measured in this process."""
    held, pretok, train = ctx["held"], ctx["pretok"], ctx["train"]
    rows: list[dict[str, Any]] = []
    _describe(bar, name)
    strategy = _parse(name)
    spans_fixed: dict[str, Any] | None = {} if strategy.kind == "baseline" else None
    largest: tuple[int, Segmenter] | None = None
    for seg, size, extra in _segmenters(strategy, ctx):
        largest = (size, seg)  # sizes come in ascending order
        if segmenters is not None:
            segmenters[(name, size)] = seg
        encoded, train_encoded, spans = extra.pop("encoded"), extra.pop("train_encoded"), extra.pop("spans", None)
        lossy = strategy.source == "okt-analysis"
        layout = pretok.layout(strategy.source, held) if isinstance(seg, BPESegmenter) else None
        char_words = pretok.char_words(strategy.source, list(held.char_counts)) if (
            isinstance(seg, BPESegmenter) or strategy.unit == "morpheme") else None
        row = _measure(seg, held, encoded=encoded, train_encoded=train_encoded, train_labels=ctx["train_labels"],
                       lossy=lossy, seed=ctx["seed"], spans_fixed=spans_fixed, layout=layout,
                       char_words=char_words, spans=spans)
        rows.append(row | extra | {
            "strategy": name, "kind": strategy.kind, "pre_tokenizer": seg.pre_tokenizer, "unit": seg.unit,
            "lossless": bool(seg.lossless), "vocab_size": size,
            "gold": held.gold_name, "self_graded": bool(held.gold_name) and strategy.analyzer == held.gold_name,
            "encode_texts_per_s": _row_throughput(seg, strategy, pretok, held),
            "train_docs": len(train), "test_docs": len(held.texts),
        })
    if largest is not None and ctx["pieces_texts"] is not None:
        size, seg = largest
        ctx["pieces"][(name, size)] = {text: seg.pieces(text) for text in ctx["pieces_texts"]}
    _advance(bar)
    return rows


def _row_throughput(seg: Segmenter, strategy: _Strategy, pretok: _Pretok, held: _HeldOut) -> float:
    """``encode_texts_per_s`` of one row (:func:`_throughput`); a row of ours built on an analyzer
    (BPE over okt, kiwi, mecab; the morpheme baselines) adds the analyzer's time, measured once."""
    if strategy.analyzer and strategy.kind != "peer" and hasattr(seg, "encode_pretokenized"):
        analyzer_s, words = pretok.sample_batch(strategy.source, held.sample)
        return _throughput(seg, held.sample, analyzer_s=analyzer_s, words=words)
    return _throughput(seg, held.sample)


#: :func:`rare_collections`' generation thresholds (Python's defaults: 700, 10, 10)
GC_THRESHOLDS = (50_000, 20, 100)


@contextlib.contextmanager
def rare_collections() -> Any:
    """Run the body with the cyclic garbage collector's thresholds raised to at least
    :data:`GC_THRESHOLDS`, restored after.

    A comparison keeps tens of millions of objects alive (each pre-tokenization's words, the
    held-out 어절 layouts) while each row allocates millions of short-lived lists of ids; at
    Python's default thresholds every few rows trigger a full collection that walks the whole heap
    (on NSMC, 17 of 78 seconds for the kiwi, mecab and hf-bpe rows, and an hf-bpe task run after
    the analyzers' took 75 s instead of 16).  The comparison makes no reference cycles of its own
    that need collecting quickly; collection still runs, only less often.
    """
    old = _raise_gc_thresholds()
    try:
        yield
    finally:
        gc.set_threshold(*old)


def _raise_gc_thresholds() -> tuple[int, ...]:
    """Raise the collector's thresholds to at least :data:`GC_THRESHOLDS`; returns the old ones."""
    old = gc.get_threshold()
    gc.set_threshold(*(max(a, b) for a, b in zip(old, GC_THRESHOLDS)))
    return old


def _timed_task(names: list[str], ctx: dict[str, Any], *, bar: Any = None,
                segmenters: dict[tuple[str, int], Segmenter] | None = None,
                ) -> tuple[list[dict[str, Any]], list[str], float, float, dict[Any, Any]]:
    """(rows, notes, wall s, CPU s, pieces) of one task; the pre-tokenizations it read are then
    released (tasks share none: :func:`_tasks` groups the strategies of a pre-tokenizer)."""
    ctx["notes"], ctx["pieces"] = [], {}
    wall, cpu = time.perf_counter(), time.process_time()
    rows = _run_task(names, ctx, bar=bar, segmenters=segmenters)
    took = (time.perf_counter() - wall, time.process_time() - cpu)
    ctx["pretok"].forget({_parse(n).source for n in names} - {""})
    return rows, ctx["notes"], *took, ctx["pieces"]


_WORKER: dict[str, Any] = {}  # a worker process's context (set by _worker_init)


def _worker_init(state: dict[str, Any]) -> None:
    _raise_gc_thresholds()  # for the worker's life: the process is ours
    _WORKER.clear()
    _WORKER.update(_context(state))


def _worker_run(names: list[str]) -> tuple[list[dict[str, Any]], list[str], float, float, dict[Any, Any]]:
    return _timed_task(names, _WORKER)


def _run_pool(tasks: list[list[str]], state: dict[str, Any], jobs: int, bar: Any) -> dict[int, Any]:
    """Run ``tasks`` in ``jobs`` spawned worker processes, the longest (by :data:`_TASK_COST`) first;
    task index -> (rows, notes, wall s, CPU s, pieces).  Each worker receives ``state`` once and keeps its own analyzers
    and pre-tokenizations; the analyses meet in the on-disk caches (SQLite, concurrent-safe)."""
    import multiprocessing
    from concurrent.futures import ProcessPoolExecutor, as_completed

    order = sorted(range(len(tasks)), key=lambda k: (-_TASK_COST.get(_task_key(tasks[k]), 30), k))
    done: dict[int, Any] = {}
    with ProcessPoolExecutor(max_workers=min(jobs, len(tasks)), mp_context=multiprocessing.get_context("spawn"),
                             initializer=_worker_init, initargs=(state,)) as pool:
        futures = {pool.submit(_worker_run, tasks[k]): k for k in order}
        for future in as_completed(futures):
            k = futures[future]
            done[k] = future.result()
            bar.update(len(tasks[k]))
    return done


def _split(texts: Sequence[str], eval_texts: Sequence[str] | None, labels: Sequence[int] | None,
           eval_labels: Sequence[int] | None, test_fraction: float, seed: int) -> tuple[Any, ...]:
    if isinstance(texts, str):
        raise TypeError("texts must be a sequence of strings (documents), not one string; write [text]")
    texts = list(texts)
    if not texts or not all(isinstance(t, str) for t in texts):
        raise ValueError("texts must be a non-empty sequence of strings (documents)")
    if labels is not None:
        labels = list(labels)
        if len(labels) != len(texts):
            raise ValueError(f"labels must give one label per text: {len(labels)} labels for {len(texts)} texts")
    texts = [_one_line(t) for t in texts]
    if eval_texts is None:
        if eval_labels is not None:
            raise ValueError("eval_labels needs eval_texts; without eval_texts the held-out labels come from labels")
        train_idx, test_idx = metrics.split_indices(len(texts), test_fraction=test_fraction, seed=seed)
        train = [texts[i] for i in train_idx]
        test = [texts[i] for i in test_idx]
        train_labels = None if labels is None else [labels[i] for i in train_idx]
        test_labels = None if labels is None else [labels[i] for i in test_idx]
    else:
        if isinstance(eval_texts, str):
            raise TypeError("eval_texts must be a sequence of strings, not one string")
        eval_texts = list(eval_texts)
        if not all(isinstance(t, str) for t in eval_texts):
            raise TypeError("eval_texts must be a sequence of strings (documents) or None")
        if eval_labels is not None:
            eval_labels = list(eval_labels)
            if len(eval_labels) != len(eval_texts):
                raise ValueError(f"eval_labels must give one label per eval text: {len(eval_labels)} for "
                                 f"{len(eval_texts)} eval_texts")
        keep = [i for i, t in enumerate(eval_texts) if t.strip()]  # blank documents say nothing
        if not keep:
            raise ValueError("eval_texts holds no non-blank document: give some text to measure, or None")
        test = [_one_line(eval_texts[i]) for i in keep]
        test_labels = None if eval_labels is None else [eval_labels[i] for i in keep]
        train, train_labels = texts, labels
    if (train_labels is None) != (test_labels is None):
        raise ValueError("probe_accuracy needs labels for both splits: give labels and eval_labels together")
    return texts, train, test, train_labels, test_labels


def _jobs(n_jobs: int | None) -> int:
    if n_jobs is None:
        return 1
    if isinstance(n_jobs, bool) or not isinstance(n_jobs, numbers.Integral) or n_jobs == 0 or n_jobs < -1:
        raise ValueError(f"n_jobs must be a positive int, -1 (one per CPU) or None (1), got {n_jobs!r}")
    if n_jobs == -1:
        import os

        return os.cpu_count() or 1
    return int(n_jobs)


def _sizes(vocab_sizes: Sequence[int]) -> list[int]:
    if isinstance(vocab_sizes, (int, str)) or not all(
        isinstance(v, numbers.Integral) and not isinstance(v, bool) for v in vocab_sizes
    ):
        raise TypeError(f"vocab_sizes must be a sequence of ints such as [4000, 8000], got {vocab_sizes!r}")
    sizes = sorted({int(v) for v in vocab_sizes})
    if not sizes or sizes[0] < 1:
        raise ValueError(f"vocab_sizes must hold positive ints such as [4000, 8000], got {list(vocab_sizes)!r}")
    return sizes


def _segmenters(strategy: _Strategy, ctx: dict[str, Any]) -> Any:
    """Yield ``(segmenter, vocab size, extra columns with the encodings)`` for each size."""
    if strategy.kind == "bpe":
        yield from _bpe_segmenters(strategy, ctx)
    elif strategy.kind == "baseline":
        yield from _baseline_segmenters(strategy, ctx)
    else:
        yield from _peer_segmenters(strategy, ctx)


def _bpe_segmenters(strategy: _Strategy, ctx: dict[str, Any]) -> Any:
    from ..tokenizer import Tokenizer
    from ..trainer.model import BPEModel

    notes, sizes, name = ctx["notes"], ctx["sizes"], strategy.name
    try:
        pt, train_words, test_words, table, pretok_s = ctx["pretok"].get(strategy.source)
    except (ImportError, RuntimeError, OSError, ValueError) as exc:
        notes.append(f"skipped {name}: {_why(exc)}")
        return
    cache, key = _model_key(ctx, strategy, sizes[-1], {
        "pre_tokenizer": pt.to_config(), "analyzer": _analyzer_version(pt), "unit": strategy.unit,
        "min_frequency": ctx["min_frequency"], "code": _code("bpe"),
    })
    full = None
    entry = cache.get(key) if cache is not None else None
    if entry is not None and entry["kind"] == "bpe":
        try:
            model = BPEModel(special_tokens=entry["special_tokens"], alphabet=entry["alphabet"],
                             merges=[tuple(m) for m in entry["merges"]],
                             continuing_subword_prefix=entry["continuing_subword_prefix"])
            full = Tokenizer(model, pre_tokenizer=pt, unit=strategy.unit, marker=entry["marker"],
                             unk_token=entry["unk_token"])
            train_s = float(entry["train_s"])
        except (KeyError, TypeError, ValueError):  # an entry that does not make a model: train again
            full = None
    cached = full is not None
    if full is None:
        try:
            start = time.perf_counter()
            trained = Tokenizer.train(ctx["train"], vocab_size=sizes[-1], pre_tokenizer=_Table(pt, table),
                                      unit=strategy.unit, min_frequency=ctx["min_frequency"], show_progress=False)
            train_s = time.perf_counter() - start
            full = Tokenizer(trained.model, pre_tokenizer=pt, unit=trained.unit, marker=trained.marker,
                             unk_token=trained.unk_token)
        except ValueError as exc:
            notes.append(f"skipped {name}: {_why(exc)}")
            return
        if cache is not None:
            m = trained.model
            cache.put(key, {"kind": "bpe", "train_s": train_s, "special_tokens": list(m.special_tokens),
                            "alphabet": list(m.alphabet), "merges": [list(p) for p in m.merges],
                            "continuing_subword_prefix": m.continuing_subword_prefix,
                            "marker": trained.marker, "unk_token": trained.unk_token})
    base = len(full.model.truncate(0).id_to_token)
    for size in sizes:
        if size < base:
            notes.append(f"skipped {name} at vocab size {size}: smaller than its {base} special tokens + alphabet")
            continue
        n = min(len(full.model.merges), size - base)
        while n < len(full.model.merges) and full.model.truncate(n).vocab_size < size:
            n += 1
        tok = full if n == len(full.model.merges) else Tokenizer(
            full.model.truncate(n), pre_tokenizer=pt, unit=full.unit, marker=full.marker, unk_token=full.unk_token)
        seg = BPESegmenter(tok, strategy=name, pre_tokenizer=strategy.source, words=table,
                           aligned=ctx["pretok"].aligned(strategy.source))
        yield seg, size, {
            "encoded": seg.encode_pretokenized(test_words),
            "train_encoded": None if ctx["probe_idx"] is None else
            seg.encode_pretokenized([train_words[i] for i in ctx["probe_idx"]]),
            "train_s": train_s, "pretok_s": pretok_s, "model_cached": cached,
        }


def _model_key(ctx: dict[str, Any], strategy: _Strategy, vocab_size: int,
               config: dict[str, Any]) -> tuple[Any, str]:
    """(the model cache or None, the key of ``strategy``'s model trained at ``vocab_size``)."""
    cache = ctx.get("model_cache")
    if cache is None:
        return None, ""
    return cache, cache.key({"texts": ctx["texts_hash"], "strategy": strategy.name, "vocab_size": vocab_size,
                             "seed": ctx["seed"], **config})


def _analyzer_version(pt: Any) -> str | None:
    """The version of the analyzer behind ``pt`` (part of a model's cache key), None for none."""
    version = getattr(pt, "analyzer_version", None)
    if version is None and pt.name == "okt":
        from ..pre_tokenizers.okt import okt_version

        version = okt_version()
    return version


#: the modules whose source makes up the training-code fingerprint of each model kind
_TRAINING_CODE = {
    "bpe": ("korean_bpe.trainer", "korean_bpe.tokenizer", "korean_bpe.units", "korean_bpe.markers"),
    "baseline": ("korean_bpe.compare.segmenters",),
    "peer": ("korean_bpe.compare.peers",),
}


def _code(kind: str) -> str:
    from .model_cache import code_fingerprint

    return code_fingerprint(*_TRAINING_CODE[kind])


class _Table:
    """The pre-tokenizer ``pt`` answering from words already computed (training only: the trained
    model then goes into a Tokenizer with the real ``pt``, whose public path is what is measured).
    Every declaration (``name``, ``lossless``, ``piece_kind``, ``drop``, ...) is ``pt``'s own."""

    def __init__(self, pt: Any, table: dict[str, list[str]]) -> None:
        self._pt, self._table = pt, table

    def __getattr__(self, name: str) -> Any:  # the declarations the trainer and markers read
        if name.startswith("__") or name in ("_pt", "_table"):
            raise AttributeError(name)
        return getattr(self._pt, name)

    def __call__(self, text: str) -> list[str]:
        return self.batch([text])[0]

    def batch(self, texts: Any, *, show_progress: bool | None = None) -> list[list[str]]:
        texts = list(texts)
        table = self._table
        if all(t in table for t in texts):
            return [table[t] for t in texts]
        return self._pt.batch(texts, show_progress=False)

    def restore(self, words: Sequence[str]) -> str:
        return self._pt.restore(words)

    def to_config(self) -> dict[str, Any]:
        return self._pt.to_config()


def _baseline_segmenters(strategy: _Strategy, ctx: dict[str, Any]) -> Any:
    notes, sizes, name = ctx["notes"], ctx["sizes"], strategy.name
    options: dict[str, Any] = {"strategy": name}
    pretok_s = math.nan
    pt = train_words = test_words = None
    if strategy.source:
        try:
            pt, train_words, test_words, table, pretok_s = ctx["pretok"].get(strategy.source)
        except (ImportError, RuntimeError, OSError, ValueError) as exc:
            notes.append(f"skipped {name}: {_why(exc)}")
            return
        options.update(pre_tokenizer=pt if strategy.unit == "morpheme" else None, words=table,
                       pre_tokenizer_name=strategy.source)
    cache, key = _model_key(ctx, strategy, sizes[-1], {
        "pre_tokenizer": None if pt is None else pt.to_config(),
        "analyzer": None if pt is None else _analyzer_version(pt),
        "unit": strategy.unit, "code": _code("baseline"),
    })
    full = None
    entry = cache.get(key) if cache is not None else None
    if entry is not None and entry["kind"] == "baseline":
        try:
            full = BaselineSegmenter(strategy.unit, entry["vocab_tokens"], **options)
            train_s = float(entry["train_s"])
        except (KeyError, TypeError, ValueError):
            full = None
    cached = full is not None
    if full is None:
        start = time.perf_counter()
        full = BaselineSegmenter.train(ctx["train"], unit=strategy.unit, vocab_size=sizes[-1], **options)
        train_s = time.perf_counter() - start
        if cache is not None:
            cache.put(key, {"kind": "baseline", "train_s": train_s, "vocab_tokens": list(full.vocab_tokens)})
    for size in sizes:
        seg = full.truncate(size)
        if test_words is not None:
            encoded = seg.encode_pretokenized(test_words)
            train_encoded = None if ctx["probe_idx"] is None else \
                seg.encode_pretokenized([train_words[i] for i in ctx["probe_idx"]])
        else:
            encoded = seg.encode_batch(ctx["held"].texts)
            train_encoded = None if ctx["probe_idx"] is None else \
                seg.encode_batch([ctx["train"][i] for i in ctx["probe_idx"]])
        yield seg, size, {"encoded": encoded, "train_encoded": train_encoded, "train_s": train_s, "pretok_s": pretok_s,
                          "model_cached": cached}


def _peer_segmenters(strategy: _Strategy, ctx: dict[str, Any]) -> Any:
    """Each size's peer: trained at each size, except :data:`~korean_bpe.compare.peers.TRUNCATABLE_PEERS`
    (greedy BPE: trained once at the largest size and truncated, which gives the same model; their
    ``train_s`` is that one training).  A peer that crashes or fails (RuntimeError) is not tried
    at its remaining sizes: one note.  With the model cache, each training is read back when it
    was done before (a native crash too, as its note: :class:`~korean_bpe.compare.peers.PeerCrash`)."""
    peers, notes, name = ctx["peers"], ctx["notes"], strategy.name
    if peers is None:
        return
    full = None
    full_cached = False
    train_s = math.nan
    for size in ctx["sizes"]:
        try:
            if name in getattr(peers, "TRUNCATABLE_PEERS", ()):
                if full is None:
                    full, train_s, full_cached = _train_peer(strategy, ctx, ctx["sizes"][-1])
                seg, cached = full.truncate(size), full_cached
            else:
                seg, train_s, cached = _train_peer(strategy, ctx, size)
        except ImportError as exc:
            notes.append(f"skipped {name}: {_why(exc)}")
            return
        except RuntimeError as exc:
            notes.append(f"skipped {name} at vocab size {', '.join(str(s) for s in ctx['sizes'] if s >= size)}: "
                         f"{_why(exc)}")
            return
        except (ValueError, OSError) as exc:
            notes.append(f"skipped {name} at vocab size {size}: {_why(exc)}")
            continue
        both = getattr(seg, "encode_with_spans", None)  # an HF peer: ids and spans in one call
        encoded, spans = both(ctx["held"].texts) if both is not None else (seg.encode_batch(ctx["held"].texts), None)
        yield seg, size, {
            "encoded": encoded, "spans": spans,
            "train_encoded": None if ctx["probe_idx"] is None else
            seg.encode_batch([ctx["train"][i] for i in ctx["probe_idx"]]),
            "train_s": train_s, "pretok_s": math.nan, "model_cached": cached,
        }


def _train_peer(strategy: _Strategy, ctx: dict[str, Any], size: int) -> tuple[Any, float, bool]:
    """(peer ``strategy`` trained at ``size``, seconds of its training, read from the model cache);
    a cached crash raises its :class:`~korean_bpe.compare.peers.PeerCrash` again."""
    peers = ctx["peers"]
    cache, key = _model_key(ctx, strategy, size, {"libraries": _peer_libraries(), "code": _code("peer")})
    entry = cache.get(key) if cache is not None else None
    if entry is not None:
        if entry["kind"] == "crash" and isinstance(entry.get("note"), str):
            raise peers.PeerCrash(entry["note"])
        try:
            return peers.peer_from_entry(strategy.name, entry), float(entry["train_s"]), True
        except (KeyError, TypeError, ValueError, RuntimeError, OSError):  # not a model: train again
            pass
    start = time.perf_counter()
    try:
        peer = peers.train_peer(strategy.name, ctx["train"], vocab_size=size, seed=ctx["seed"])
    except peers.PeerCrash as exc:
        if cache is not None:  # the same texts and versions crash again: keep the note
            cache.put(key, {"kind": "crash", "note": str(exc), "train_s": time.perf_counter() - start})
        raise
    train_s = time.perf_counter() - start
    if cache is not None:
        try:
            cache.put(key, {**peers.peer_to_entry(peer), "train_s": train_s})
        except ValueError:  # a peer that cannot be stored is trained again next time
            pass
    return peer, train_s, False


def _peer_libraries() -> dict[str, str | None]:
    from .model_cache import library_versions

    return library_versions("sentencepiece", "tokenizers", "kiwipiepy", "kiwipiepy_model")


# -- the table ---------------------------------------------------------------------------------------

#: (column, header, format) of :func:`format_table`: what fits a 100-column terminal
_TABLE: tuple[tuple[str, str, str], ...] = (
    ("strategy", "strategy", "{}"),
    ("vocab_size", "vocab", "{:d}"),
    ("tokens_per_doc", "tok/doc", "{:.2f}"),
    ("tokens_per_word", "tok/w", "{:.2f}"),
    ("continued_word_rate", "cont%", "{:.1f}"),
    ("unk_rate", "unk%", "{:.2f}"),
    ("renyi_efficiency", "renyi", "{:.3f}"),
    ("morph_f1", "mF1%", "{:.1f}"),
    ("round_trip_rate", "rt%", "{:.1f}"),
    ("probe_accuracy", "probe%", "{:.1f}"),
    ("train_s", "train s", "{:.1f}"),
    ("encode_texts_per_s", "k doc/s", "{:.1f}"),
)
_PERCENT = {"continued_word_rate", "unk_rate", "morph_f1", "round_trip_rate", "probe_accuracy"}


def format_table(df: pd.DataFrame) -> str:
    """The frame as an aligned text table, at most 100 characters wide: the main columns, short
    headers, rates in percent, ``-`` for NaN, ``*`` after a morpheme F1 graded by its own analyzer."""
    if df.empty:
        return "(no strategy could be measured)"
    cells: list[list[str]] = []
    for _, row in df.iterrows():
        line = []
        for col, _, fmt in _TABLE:
            v = row[col]
            if isinstance(v, float) and math.isnan(v):
                line.append("-")
                continue
            if col in _PERCENT:
                v = v * 100
            elif col == "encode_texts_per_s":
                v = v / 1000
            text = fmt.format(v)
            if col == "morph_f1" and row["self_graded"]:
                text += "*"
            line.append(text)
        cells.append(line)
    headers = [h for _, h, _ in _TABLE]
    widths = [max(len(h), *(len(c[i]) for c in cells)) for i, h in enumerate(headers)]
    fmt_row = lambda vals: " ".join(  # noqa: E731
        v.ljust(w) if i == 0 else v.rjust(w) for i, (v, w) in enumerate(zip(vals, widths))).rstrip()
    return "\n".join([fmt_row(headers), *map(fmt_row, cells)])


def _require_pandas() -> Any:
    from .._optional import require

    return require("pandas")


def _progress(total: int, show: Any) -> Any:
    from ..progress import start_progress

    return start_progress(show, total=total, desc="strategies", unit="strategy")


def _advance(bar: Any) -> None:
    if bar is not None:  # None: a worker process (the parent shows the progress)
        bar.update(1)


def _describe(bar: Any, text: str) -> None:
    if bar is not None:
        bar.note(text)
