"""The held-out measurements of one row (:func:`measure_heldout`): the metrics of one segmenter on
the held-out documents, the continued-어절 and boundary counts (per text:
:func:`span_counts_per_text`; per distinct 어절 of a pre-tokenization's
:class:`~korean_bpe.compare.heldout.Layout`, vectorized: :func:`span_counts`), each document's
parts for the bootstrap, and the throughput timing (:func:`throughput`).  The formulas are the
columns' (:mod:`korean_bpe.compare.columns`); :class:`korean_bpe.compare.tasks.HeldOutTask` is the
task that runs them."""

from __future__ import annotations

import math
from typing import Any

from ..units import SPACE_MARK
from . import metrics
from .heldout import HeldOut, Layout, best_seconds
from .rows import RowInput
from .segmenters import BPESegmenter, Segmenter, WordSegmenter

__all__ = ["measure_heldout", "span_counts", "span_counts_per_text", "tokens_hash", "throughput",
           "throughput_pretokenized"]


def measure_heldout(row: RowInput) -> tuple[dict[str, Any], Any]:
    """``(columns, parts)`` of one row on the held-out documents: its metrics (the columns of
    :data:`korean_bpe.compare.columns.TABLE` from ``actual_vocab_size`` to ``round_trip_rate``) and
    its documents x :data:`~korean_bpe.compare.stats.PARTS` matrix (:func:`_doc_parts`, what the
    bootstrap resamples).  The 어절 and boundary counts come from ``row.layout`` (a BPE row over a
    pre-tokenization: :func:`span_counts`, per distinct 어절) or text by text
    (:func:`span_counts_per_text`; kept in ``row.spans_by_size`` for the other sizes of a baseline);
    ``row.char_words``: the row's pre-tokenizer's words of each held-out character (``encode_batch``
    of a pre-tokenizing segmenter is ``encode_pretokenized`` of them: the analyzer then runs once,
    not per row)."""
    seg, held, encoded = row.segmenter, row.held, row.encoded
    texts = held.texts
    n_tokens = row.n_tokens
    (continued, n_pred, tp), by_doc = _span_part(row)
    if held.gold is not None:
        precision, recall = metrics.ratio(tp, n_pred), metrics.ratio(tp, held.n_gold)
        f1 = metrics.ratio(2 * tp, n_pred + held.n_gold)
    else:
        precision = recall = f1 = math.nan
    unk = seg.unk_ids
    token_counts, n_unk = _token_stats(row.flat_ids, unk)
    chars = list(held.char_counts)
    if row.char_words is not None:  # the pre-tokenizer's words of each character, computed once for its rows
        word_seg: WordSegmenter = seg  # type: ignore[assignment]  # a row with char_words is built on words
        alone = word_seg.encode_pretokenized(row.char_words)
    else:
        alone = seg.encode_batch(chars) if chars else []
    representable = {ch for ch, ids in zip(chars, alone) if ids and unk.isdisjoint(ids)}
    surfaces = seg.vocab_surfaces()
    decoded = None if row.drops_text else [seg.decode(ids) for ids in encoded]
    round_trip = None if decoded is None else [a == b for a, b in zip(texts, decoded)]
    columns = {
        "actual_vocab_size": seg.vocab_size,
        "tokens_per_doc": n_tokens / len(texts) if texts else math.nan,
        "tokens_per_word": metrics.fertility(n_tokens=n_tokens, n_words=held.n_words),
        "continued_word_rate": metrics.ratio(continued, held.n_words),
        "chars_per_token": metrics.chars_per_token(n_chars=held.n_chars, n_tokens=n_tokens),
        "bytes_per_token": metrics.bytes_per_token(n_bytes=held.n_bytes, n_tokens=n_tokens),
        "unk_rate": metrics.ratio(n_unk, n_tokens),  # metrics.unk_rate(encoded, unk_ids=unk)
        "unrepresentable_char_rate": metrics.unrepresentable_char_rate(held.char_counts, known=representable.__contains__),
        "renyi_efficiency": metrics.renyi_efficiency(token_counts, vocab_size=seg.vocab_size),
        "renyi_efficiency_observed": metrics.renyi_efficiency(token_counts),
        "morph_precision": precision, "morph_recall": recall, "morph_f1": f1,
        "incomplete_hangul_rate": metrics.incomplete_hangul_rate(surfaces),
        "jamo_token_rate": metrics.jamo_token_rate(surfaces),
        "partial_char_end_rate": metrics.partial_char_end_rate(surfaces),
        "residue_rate": _residue_rate(seg, row.flat_ids),
        "single_token_retention": metrics.single_token_retention(held.word_counts(), seg.encode_batch, unk_ids=unk),
        "round_trip_rate": math.nan if decoded is None else metrics.round_trip_rate(texts, decoded),
    }
    return columns, _doc_parts(held, encoded, row.flat_ids, unk, by_doc, round_trip, seg.vocab_size)


def _span_part(row: RowInput) -> tuple[tuple[int, int, int], tuple[Any, Any, Any]]:
    """(the totals, the same per held-out document as numpy int arrays) of: 어절 with 2+ tokens,
    predicted boundaries, predicted boundaries that are gold; from the token spans per distinct 어절
    of ``row.layout`` for a BPE row (:func:`span_counts`), else text by text (:func:`_counts_by_text`;
    kept in ``row.spans_by_size``)."""
    held, cache = row.held, row.spans_by_size
    if row.layout is not None:  # a row of our BPE over a pre-tokenization
        bpe: BPESegmenter = row.segmenter  # type: ignore[assignment]
        found: dict[str, Any] = {}
        totals = span_counts(bpe, row.layout, out=found)
        return totals, row.layout.by_doc(found, len(held.texts))
    if cache:
        return cache["by_doc"]
    by_doc = _counts_by_text(row.segmenter, held, row.spans)
    got = (int(by_doc[0].sum()), int(by_doc[1].sum()), int(by_doc[2].sum())), by_doc
    if cache is not None:
        cache["by_doc"] = got
    return got


def _counts_by_text(seg: Segmenter, held: HeldOut, spans: list[list[tuple[int, int]]] | None) -> tuple[Any, ...]:
    """:func:`span_counts_per_text` of each held-out text alone: three int arrays, one entry per text."""
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
        out[:, t] = span_counts_per_text(seg, one, alone)  # type: ignore[arg-type]
    return out[0], out[1], out[2]


def _residue_rate(seg: Segmenter, flat: Any) -> float:
    """:func:`~korean_bpe.compare.metrics.residue_rate` of a row with BPE merges of ours
    (:meth:`~korean_bpe.compare.segmenters.Segmenter.merge_triples`), the held-out ids counted;
    NaN for other rows."""
    merges = seg.merge_triples()
    if merges is None:
        return math.nan
    import numpy as np

    bins = np.bincount(flat) if flat.size else np.zeros(0, dtype=np.int64)
    usage = {int(i): int(bins[i]) for i in np.flatnonzero(bins)}
    return metrics.residue_rate(merges, usage, vocab_size=seg.vocab_size)


def _doc_parts(held: HeldOut, encoded: list[list[int]], flat: Any, unk: frozenset[int], by_doc: tuple[Any, ...],
               round_trip: list[bool] | None, vocab_size: int) -> Any:
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
    column["renyi"][:] = renyi_influence(flat, doc_of, n, alpha=metrics.RENYI_ALPHA, vocab_size=vocab_size)
    return parts


def tokens_hash(vocab_size: int, encoded: list[list[int]], flat: Any) -> str:
    """A BLAKE2b hash of the vocabulary size and the held-out ids, document by document: two rows
    with the same hash give the same ids on every held-out document."""
    import hashlib

    import numpy as np

    h = hashlib.blake2b(digest_size=16)
    h.update(str(vocab_size).encode())
    h.update(np.fromiter(map(len, encoded), dtype=np.int64, count=len(encoded)).tobytes())
    h.update(flat.tobytes())
    return h.hexdigest()


def _token_stats(flat: Any, unk_ids: frozenset[int]) -> tuple[list[int], int]:
    """(the count of each token id that occurs, in id order; how many tokens are in ``unk_ids``)
    of the held-out ids ``flat``, with one numpy ``bincount`` (what ``Counter`` and
    :func:`~korean_bpe.compare.metrics.unk_rate` count, at C speed: ~2M ids a 32k row)."""
    import numpy as np

    bins = np.bincount(flat)
    return bins[bins > 0].tolist(), sum(int(bins[i]) for i in unk_ids if i < len(bins))


def span_counts_per_text(seg: Segmenter, held: HeldOut,
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


def span_counts(seg: BPESegmenter, layout: Layout, out: dict[str, Any] | None = None) -> tuple[int, int, int]:
    """:func:`span_counts_per_text` per distinct 어절 of ``layout``, weighted by its occurrences: a
    token span ``(a, b)`` of word ``w`` placed at ``base`` (``z`` of ``word_bases``) is
    ``(base + max(a, z), base + max(b, z))`` as in :meth:`BPESegmenter.pieces`; it counts for the 어절
    ``(0, n)`` when non-empty and overlapping it, its end is a boundary when ``0 < end < n``.

    Vectorized (numpy) over every token of every placed word (symbol ``j`` of a word, the marker
    aside, belongs to character ``char_of[j]``); the definition is the offsets module's spelled
    view (:meth:`BPESegmenter.pieces`), and a test checks these counts against the per-text ones.
    ``out``, when a dict, receives ``tokens`` (tokens per key) and ``ends`` (the distinct boundary
    codes) for :meth:`~korean_bpe.compare.heldout.Layout.by_doc`."""
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
    lengths = seg.symbol_lengths()[flat]
    end = np.cumsum(lengths)
    end -= np.repeat(np.concatenate(([0], end))[tok_off[:-1]], ntok)  # symbol end of each token in its word
    marker = 1 if seg.marker == SPACE_MARK else 0
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


def throughput(seg: Segmenter, sample: list[str]) -> float:
    """Texts of ``sample`` per second through ``seg.encode_batch``: cold word cache, best of up to
    three runs (stopping once a second has been spent: :func:`~korean_bpe.compare.heldout.best_seconds`)."""
    return metrics.throughput(len(sample), best_seconds(lambda: seg.encode_batch(sample), seg.clear_cache))


def throughput_pretokenized(seg: WordSegmenter, sample: list[str], *, analyzer_s: float,
                            words: list[list[str]]) -> float:
    """:func:`throughput` of a row built on an analyzer: ``analyzer_s`` (the seconds of
    ``pre_tokenizer.batch(sample)``, timed once per pre-tokenizer) plus the best time of encoding
    its output ``words``; ``encode_batch`` of an analyzer-backed tokenizer is exactly those two
    steps, and the analyzer then runs once per pre-tokenizer instead of once per row."""
    encode_s = best_seconds(lambda: seg.encode_pretokenized(words), seg.clear_cache)
    return metrics.throughput(len(sample), analyzer_s + encode_s)
