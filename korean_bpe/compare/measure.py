"""Measuring one row: the held-out texts every row shares (:class:`_HeldOut`), the metrics of one
segmenter on them (:func:`_measure`), the continued-어절 and boundary counts (per text:
:func:`_span_counts_per_text`; per distinct 어절, vectorized: :class:`_Layout`, :func:`_span_counts`)
and the throughput timing.  The formulas are the columns' (:mod:`korean_bpe.compare.columns`)."""

from __future__ import annotations

import math
import time
from collections import Counter
from typing import TYPE_CHECKING, Any

from ..units import SPACE_MARK
from . import metrics
from ..encoding.offsets import word_bases
from .segmenters import BPESegmenter, Segmenter

if TYPE_CHECKING:  # pragma: no cover
    from .pretok import _Pretok
    from .strategies import _Strategy

#: held-out texts timed for ``encode_texts_per_s`` (the first ones; all when fewer)
THROUGHPUT_TEXTS = 2000


class _HeldOut:
    """The held-out texts and what every row shares: 어절 counts, characters, gold boundaries."""

    def __init__(self, test: list[str], labels: list[int] | None) -> None:
        self.texts = test
        self.labels = labels
        self.words_per_doc = [len(t.split()) for t in test]
        self.n_words = sum(self.words_per_doc)
        self.chars_per_doc = [len(t) for t in test]
        self.bytes_per_doc = [len(t.encode("utf-8", "surrogatepass")) for t in test]
        self.n_chars = sum(self.chars_per_doc)
        self.n_bytes = sum(self.bytes_per_doc)
        self.char_counts = Counter(ch for t in test for ch in t if not ch.isspace())
        self.word_spans = [metrics.word_spans(t) for t in test]
        self.gold: list[list[frozenset[int]]] | None = None
        self.gold_name = ""
        self.n_gold = 0  # gold boundaries over all 어절
        self.sample = test[:THROUGHPUT_TEXTS]
        self._gold_per_doc: list[int] | None = None
        self._word_counts: Counter[str] | None = None

    def word_counts(self) -> Counter[str]:
        """The held-out 어절 (white-space words) with their occurrences, counted once."""
        if self._word_counts is None:
            self._word_counts = Counter(w for t in self.texts for w in t.split())
        return self._word_counts

    def gold_per_doc(self) -> list[int]:
        """Gold boundaries in each held-out document (computed once)."""
        if self._gold_per_doc is None:
            self._gold_per_doc = [sum(map(len, g)) for g in self.gold or ()]
        return self._gold_per_doc


def _measure(seg: Segmenter, held: _HeldOut, *, encoded: list[list[int]], train_encoded: list[list[int]] | None,
             train_labels: list[int] | None, lossy: bool, seed: int, spans_fixed: dict[str, Any] | None = None,
             layout: _Layout | None = None, char_words: list[list[str]] | None = None,
             spans: list[list[tuple[int, int]]] | None = None) -> dict[str, Any]:
    """One row's metrics, and under ``"_parts"`` its per-document counts (:func:`_doc_parts`, for the
    bootstrap), ``"_correct"`` the documents the probe gets right (None without labels) and
    ``"_tokens_hash"`` a hash of its vocabulary size and held-out ids.
    ``spans_fixed``: a dict shared by the sizes of a strategy whose spans do not
    depend on the vocabulary size (a baseline: only which tokens are <unk> changes), filled by the
    first size and read by the others.  ``layout``: the held-out 어절 of a BPE row's pre-tokenizer,
    for :func:`_span_counts` (the same counts as :func:`_span_counts_per_text`, per distinct 어절).
    ``char_words``: the row's pre-tokenizer's words of each held-out character (``encode_batch`` of a
    pre-tokenizing segmenter is ``encode_pretokenized`` of them: the analyzer then runs once, not per row)."""
    texts = held.texts
    n_tokens = sum(map(len, encoded))
    (continued, n_pred, tp), by_doc = _span_part(seg, held, layout=layout, spans_fixed=spans_fixed, spans=spans)
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
    correct = None
    if train_encoded is not None and train_labels is not None and held.labels is not None:
        predicted = metrics.probe_predictions(train_encoded, train_labels, encoded, seed=seed)
        correct = [int(a) == int(b) for a, b in zip(predicted, held.labels)]
    round_trip = None if decoded is None else [a == b for a, b in zip(texts, decoded)]
    flat = _flat_ids(encoded, n_tokens)
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
        "partial_char_end_rate": metrics.partial_char_end_rate(surfaces),
        "residue_rate": _residue_rate(seg, encoded, n_tokens),
        "single_token_retention": metrics.single_token_retention(held.word_counts(), seg.encode_batch, unk_ids=unk),
        "round_trip_rate": math.nan if decoded is None else metrics.round_trip_rate(texts, decoded),
        "probe_accuracy": math.nan if correct is None else metrics._ratio(sum(correct), len(correct)),
        "_parts": _doc_parts(held, encoded, flat, unk, by_doc, round_trip, correct, seg.vocab_size),
        "_correct": correct, "_tokens_hash": _tokens_hash(seg.vocab_size, encoded, flat),
    }


def _span_part(seg: Segmenter, held: _HeldOut, *, layout: _Layout | None, spans_fixed: dict[str, Any] | None,
               spans: list[list[tuple[int, int]]] | None) -> tuple[tuple[int, int, int], tuple[Any, Any, Any]]:
    """(the totals, the same per held-out document as numpy int arrays) of: 어절 with 2+ tokens,
    predicted boundaries, predicted boundaries that are gold; from the token spans per distinct 어절
    of ``layout`` for a BPE row (:func:`_span_counts`), else text by text (:func:`_counts_by_text`;
    kept in ``spans_fixed``)."""
    if layout is not None and isinstance(seg, BPESegmenter):
        found: dict[str, Any] = {}
        totals = _span_counts(seg, layout, out=found)
        return totals, layout.by_doc(found, len(held.texts))
    if spans_fixed:
        return spans_fixed["by_doc"]
    by_doc = _counts_by_text(seg, held, spans)
    got = (int(by_doc[0].sum()), int(by_doc[1].sum()), int(by_doc[2].sum())), by_doc
    if spans_fixed is not None:
        spans_fixed["by_doc"] = got
    return got


def _counts_by_text(seg: Segmenter, held: _HeldOut, spans: list[list[tuple[int, int]]] | None) -> tuple[Any, ...]:
    """:func:`_span_counts_per_text` of each held-out text alone: three int arrays, one entry per text."""
    import numpy as np
    from types import SimpleNamespace

    out = np.zeros((3, len(held.texts)), dtype=np.int64)
    one = SimpleNamespace(texts=[""], word_spans=[[]], gold=None if held.gold is None else [frozenset()])
    alone = None if spans is None else [[]]
    for t, (text, word_spans) in enumerate(zip(held.texts, held.word_spans)):
        one.texts[0], one.word_spans[0] = text, word_spans  # one held-out text, the same object reused
        if held.gold is not None:
            one.gold[0] = held.gold[t]
        if alone is not None:
            alone[0] = spans[t]  # type: ignore[index]
        out[:, t] = _span_counts_per_text(seg, one, alone)  # type: ignore[arg-type]
    return out[0], out[1], out[2]


def _residue_rate(seg: Segmenter, encoded: list[list[int]], n_tokens: int) -> float:
    """:func:`~korean_bpe.compare.metrics.residue_rate` of a row of our BPE (its merges by id,
    the held-out ids counted); NaN for other rows."""
    if not isinstance(seg, BPESegmenter):
        return math.nan
    import numpy as np

    model = seg.tokenizer.model
    vocab = model.vocab
    merges = [(vocab[a], vocab[b], vocab[model.merged_token(a, b)]) for a, b in model.merges]
    bins = np.bincount(_flat_ids(encoded, n_tokens)) if n_tokens else np.zeros(0, dtype=np.int64)
    usage = {int(i): int(bins[i]) for i in np.flatnonzero(bins)}
    return metrics.residue_rate(merges, usage, vocab_size=model.vocab_size)


def _flat_ids(encoded: list[list[int]], n_tokens: int) -> Any:
    """Every held-out id, document after document, as one int64 array."""
    import itertools

    import numpy as np

    return np.fromiter(itertools.chain.from_iterable(encoded), dtype=np.int64, count=n_tokens)


def _doc_parts(held: _HeldOut, encoded: list[list[int]], flat: Any, unk: frozenset[int], by_doc: tuple[Any, ...],
               round_trip: list[bool] | None, correct: list[bool] | None, vocab_size: int) -> Any:
    """The row's documents x :data:`~korean_bpe.compare.stats.PARTS` matrix (float32: counts are
    exact below 2**24): what each ratio metric sums per document, and each document's Rényi
    influence (:func:`~korean_bpe.compare.stats.renyi_influence`)."""
    import numpy as np

    from .stats import PARTS, renyi_influence

    n = len(held.texts)
    parts = np.zeros((n, len(PARTS)), dtype=np.float32)
    lengths = np.fromiter(map(len, encoded), dtype=np.int64, count=n)
    doc_of = np.repeat(np.arange(n), lengths)
    column = {name: parts[:, k] for k, name in enumerate(PARTS)}
    column["docs"][:] = 1
    column["tokens"][:] = lengths
    column["words"][:] = held.words_per_doc
    column["chars"][:] = held.chars_per_doc
    column["bytes"][:] = held.bytes_per_doc
    column["continued"][:], column["pred"][:], column["tp"][:] = by_doc
    if unk:
        column["unk"][:] = np.bincount(doc_of, weights=np.isin(flat, list(unk)), minlength=n)
    if round_trip is not None:
        column["round_trip"][:] = round_trip
    if held.gold is not None:
        column["gold"][:] = held.gold_per_doc()
    if correct is not None:
        column["correct"][:] = correct
    column["renyi"][:] = renyi_influence(flat, doc_of, n, alpha=metrics.RENYI_ALPHA, vocab_size=vocab_size)
    return parts


def _tokens_hash(vocab_size: int, encoded: list[list[int]], flat: Any) -> str:
    """A BLAKE2b hash of the vocabulary size and the held-out ids, document by document: two rows
    with the same hash give the same ids on every held-out document."""
    import hashlib

    import numpy as np

    h = hashlib.blake2b(digest_size=16)
    h.update(str(vocab_size).encode())
    h.update(np.fromiter(map(len, encoded), dtype=np.int64, count=len(encoded)).tobytes())
    h.update(flat.tobytes())
    return h.hexdigest()


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
    :func:`~korean_bpe.encoding.offsets.word_bases`), its length and its gold boundaries
    (relative); ``counts`` maps each distinct key to its occurrences, ``occurrences`` says which
    key each 어절 of each document has (:meth:`by_doc`).  Shared by the units and sizes
    of the pre-tokenizer: a row then measures each distinct key once (:func:`_span_counts`)."""

    def __init__(self, held: _HeldOut, words: list[list[str]], aligned: dict[str, Any], pre_tokenizer: Any) -> None:
        import bisect

        counts: Counter[tuple[Any, ...]] = Counter()
        index: dict[tuple[Any, ...], int] = {}  # key -> its position in counts (insertion order)
        occurrences: list[tuple[int, int]] = []  # (key index, document) of each 어절
        distinct: dict[str, None] = {}
        gold = held.gold
        for t, (text, ws, spans) in enumerate(zip(held.texts, words, held.word_spans)):
            where = aligned.get(text)
            if where is None:
                where = aligned[text] = word_bases(text, ws, pre_tokenizer)
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
                key = (tuple((w, base - s, z) for w, base, z in assigned[j]), e - s, g)
                counts[key] += 1
                occurrences.append((index.setdefault(key, len(index)), t))
        self.counts = counts
        self.occurrences = occurrences
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

    def by_doc(self, found: dict[str, Any], n_docs: int) -> tuple[Any, Any, Any]:
        """Per document (``n_docs``): continued 어절, predicted boundaries, gold ones among them, from
        what :func:`_span_counts` left in ``found`` (``tokens``: tokens per key; ``ends``: the codes
        ``key * big + boundary`` of each key's distinct boundaries)."""
        import numpy as np

        arr = self.arrays()
        if not isinstance(self.occurrences, np.ndarray):  # built once, shared by the rows
            self.occurrences = np.array(self.occurrences, dtype=np.int64).reshape(-1, 2)
        occ = self.occurrences
        n_keys = len(self.counts)
        per_key = [found["tokens"] >= 2, np.zeros(n_keys), np.zeros(n_keys)]
        if "ends" in found:
            ends = found["ends"]
            keys = ends // arr["big"]
            per_key[1] = np.bincount(keys, minlength=n_keys)
            per_key[2] = np.bincount(keys[np.isin(ends, arr["gold"], assume_unique=True)], minlength=n_keys)
        return tuple(np.bincount(occ[:, 1], weights=v[occ[:, 0]], minlength=n_docs).astype(np.int64)
                     for v in per_key)  # type: ignore[return-value]

    def symbols(self, unit: Any) -> dict[str, Any]:
        """For ``unit``'s symbols of each distinct word (the marker aside): ``char_of`` (all words
        end to end: the character each symbol comes from), ``off`` (each word's first symbol there),
        ``n_sym`` and ``wlen`` (characters); built once per unit."""
        got = self._symbols.get(unit.name)
        if got is None:
            import itertools

            import numpy as np

            split = unit.split
            per_word = [[k for k, ch in enumerate(w) for _ in split(ch)] for w in self.words]
            n_sym = np.fromiter(map(len, per_word), dtype=np.int64, count=len(per_word))
            off = np.zeros(len(per_word), dtype=np.int64)
            np.cumsum(n_sym[:-1], out=off[1:])
            char_of = np.fromiter(itertools.chain.from_iterable(per_word), dtype=np.int64, count=int(n_sym.sum()))
            got = self._symbols[unit.name] = {
                "char_of": np.append(char_of, 0), "off": off, "n_sym": n_sym,
                "wlen": np.fromiter(map(len, self.words), dtype=np.int64, count=len(self.words)),
            }
        return got


def _span_counts(seg: BPESegmenter, layout: _Layout, out: dict[str, Any] | None = None) -> tuple[int, int, int]:
    """:func:`_span_counts_per_text` per distinct 어절 of ``layout``, weighted by its occurrences: a
    token span ``(a, b)`` of word ``w`` placed at ``base`` (``z`` of ``word_bases``) is
    ``(base + max(a, z), base + max(b, z))`` as in :meth:`BPESegmenter.pieces`; it counts for the 어절
    ``(0, n)`` when non-empty and overlapping it, its end is a boundary when ``0 < end < n``.

    Vectorized (numpy) over every token of every placed word (symbol ``j`` of a word, the marker
    aside, belongs to character ``char_of[j]``); the definition is the offsets module's spelled
    view (:meth:`BPESegmenter.pieces`), and a test checks these counts against the per-text ones.
    ``out``, when a dict, receives ``tokens`` (tokens per key) and ``ends`` (the distinct boundary
    codes) for :meth:`_Layout.by_doc`."""
    import itertools

    import numpy as np

    arr = layout.arrays()
    sym = layout.symbols(seg.tokenizer.unit)
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
    if out is not None:  # per key, for the documents' own counts (the bootstrap)
        out["tokens"] = per_key
        if arr["gold"] is not None:
            out["ends"] = ends
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
    """Symbols each id spells (a special token: one), as the encoder's ``segment`` counts them."""
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



def _row_throughput(seg: Segmenter, strategy: _Strategy, pretok: _Pretok, held: _HeldOut) -> float:
    """``encode_texts_per_s`` of one row (:func:`_throughput`); a row of ours built on an analyzer
    (BPE over okt, kiwi, mecab; the morpheme baselines) adds the analyzer's time, measured once."""
    if strategy.analyzer and strategy.kind != "peer" and hasattr(seg, "encode_pretokenized"):
        analyzer_s, words = pretok.sample_batch(strategy.source, held.sample)
        return _throughput(seg, held.sample, analyzer_s=analyzer_s, words=words)
    return _throughput(seg, held.sample)

