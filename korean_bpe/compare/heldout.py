"""The held-out documents every row of a comparison is measured on (:class:`HeldOut`), the 어절
layout of one pre-tokenization of them (:class:`Layout`, shared by its rows) and the timing rule
(:func:`best_seconds`): what the pre-tokenizations (:mod:`.pretok`) and the measurements
(:mod:`.measure`) both read."""

from __future__ import annotations

import math
import time
from collections import Counter
from typing import Any

from ..encoding.offsets import word_bases
from . import metrics

__all__ = ["HeldOut", "Layout", "best_seconds", "THROUGHPUT_TEXTS"]

#: held-out texts timed for ``encode_texts_per_s`` (the first ones; all when fewer)
THROUGHPUT_TEXTS = 2000


class HeldOut:
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

    def grade(self, gold: str, boundaries: list[list[frozenset[int]]]) -> None:
        """Grade with analyzer ``gold``'s morpheme ``boundaries``: per document, per 어절 the
        boundary offsets inside it (:func:`korean_bpe.compare.gold.gold_boundaries`)."""
        self.gold, self.gold_name = boundaries, gold
        self.n_gold = sum(len(g) for per_text in boundaries for g in per_text)

    def gold_per_doc(self) -> list[int]:
        """Gold boundaries in each held-out document (computed once)."""
        if self._gold_per_doc is None:
            self._gold_per_doc = [sum(map(len, g)) for g in self.gold or ()]
        return self._gold_per_doc


class Layout:
    """The held-out 어절 of one pre-tokenization, each occurrence keyed by what its counts depend on:
    the pre-tokenizer's words that overlap it (word, start relative to the 어절, ``z`` of
    :func:`~korean_bpe.encoding.offsets.word_bases`), its length and its gold boundaries
    (relative); ``counts`` maps each distinct key to its occurrences, ``occurrences`` says which
    key each 어절 of each document has (:meth:`by_doc`).  Shared by the units and sizes
    of the pre-tokenizer: a row then measures each distinct key once (:func:`korean_bpe.compare.measure.span_counts`)."""

    def __init__(self, held: HeldOut, words: list[list[str]], aligned: dict[str, Any], pre_tokenizer: Any) -> None:
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
        what :func:`korean_bpe.compare.measure.span_counts` left in ``found`` (``tokens``: tokens per key; ``ends``: the codes
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


def best_seconds(fn: Any, clear: Any = None) -> float:
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
