"""Words -> ids: the merge table, the word cache and the one routine that segments a word.

An :class:`Encoder` is built once per tokenizer from its model and stages.  Every encode path goes
through :meth:`Encoder.symbols` and :meth:`Encoder.merge` (the unit's symbols, marked, merged by
rank) and :class:`~korean_bpe.encoding.fallback.Fallback` for the symbols the vocabulary lacks:

* plain and batch encoding (:meth:`Encoder.encode_texts`): each distinct word segmented once
  (:meth:`Encoder.encode_word`) and cached; with the compiled core and a pre-tokenizer whose cut
  it knows (:func:`korean_bpe.encoding.plan`), the core also cuts the text, in the same loop.
  The compiled core works without the GIL on chunks of the batch, so ``num_threads`` threads
  encode a batch at once (:func:`korean_bpe._threads.in_chunks`), each with its own word cache: the same ids for
  any number of threads;
* BPE-dropout and offsets (:meth:`Encoder.segment`): a word merged afresh, each token with the run
  of symbols it spells.

>>> from korean_bpe import Tokenizer
>>> from korean_bpe.trainer import BPEModel
>>> tok = Tokenizer(BPEModel(("<unk>",), tuple("▁재밌다영화"), (("▁", "영"), ("▁영", "화"), ("재", "밌"))))
>>> tok._encoder.segment("재밌다")
[([1], 0, 1), ([9], 1, 3), ([4], 3, 4)]
"""

from __future__ import annotations

import random
from collections.abc import Callable, Mapping, Sequence
from functools import cached_property
from typing import Any

from .._threads import each_chunk, in_chunks
from ..markers import SPACE_MARK
from . import plan as make_plan
from .fallback import Fallback
from .flat import FlatCollector, FlatIds
from .offsets import Segment
from .pure import WordCache, merge_dropout, merge_ids


def _only_str(items: list[Any]) -> bool:
    """The compiled core's ``only_str`` in Python: every item a ``str`` itself (no subclass)."""
    return set(map(type, items)) <= {str}


try:  # the compiled core (korean_bpe/encoding/_encode.pyx), built at install time when possible
    from ._encode import MergeTable, only_str
except ImportError:  # pragma: no cover - depends on the build
    MergeTable = None
    only_str = _only_str

__all__ = ["Encoder", "only_str"]

#: a pre-tokenized text's weight for :func:`korean_bpe._threads.in_chunks`: 8 characters a piece
PIECE_CHARS = 8


def _lists(chunk_ids: Any) -> list[list[int]]:
    """A chunk's ids (the compiled core's ``ChunkIds``) as a list of lists."""
    return chunk_ids.lists()


class Encoder:
    """The merges of ``model`` applied to the words of ``pre_tokenizer`` cut by ``unit`` and
    marked by ``marker``; ``fallback`` spells unknown symbols.  ``fuse=False`` keeps the compiled
    core from cutting the text (the tests compare both paths)."""

    def __init__(self, model: Any, vocab: Mapping[str, int], *, pre_tokenizer: Any, unit: Any, marker: Any,
                 fallback: Fallback, cache_size: int, fuse: bool = True) -> None:
        self.vocab = vocab
        self.id_to_token = model.id_to_token
        self.pre_tokenizer, self.unit, self.marker, self.fallback = pre_tokenizer, unit, marker, fallback
        specials = set(model.special_tokens)
        #: (left id, right id, new id) of each merge applied, in rank order (a merge making a special
        #: token comes only from a trainer older than cut_special_runs: never applied)
        self.triples = [(vocab[a], vocab[b], vocab[new]) for (a, b), new in zip(model.merges, model.merged_tokens)
                        if new not in specials]
        self.plan = make_plan(pre_tokenizer, unit, marker, vocab, compiled=MergeTable is not None)
        if not fuse:
            self.plan = self.plan._replace(fused=False, cut=None, space_id=-1)
        self.compiled = None
        if MergeTable is not None:
            self.compiled = MergeTable(self.triples, {t: i for t, i in vocab.items() if len(t) == 1})
            self.compiled.set_vocab_size(len(vocab))
            if self.plan.symbols is not None:
                byte_ids = ([vocab.get(s, -1) for s in unit.initial_alphabet] if self.plan.symbols == "bytes" else None)
                self.compiled.set_symbols(self.plan.prefix_id, self.plan.symbols, byte_ids)
        self.cache = WordCache(self.encode_word, cache_size)
        #: word -> its :meth:`segment` without dropout (offsets: ``encode_with_offsets``, the HF wrapper)
        self.segments = WordCache(self._segment, cache_size)
        #: whether the compiled core cuts whole texts (``plan.cut``: "whitespace", "sentencepiece")
        self.cuts_texts = self.compiled is not None and self.plan.cut is not None
        if self.compiled is not None:
            self.compiled.set_cut(self.plan.cut, spell=self.encode_word, spell_piece=self._encode_piece,
                                  space_id=self.plan.space_id, maxsize=self.cache.maxsize)

    # --- one word ------------------------------------------------------------------------------

    @cached_property
    def pairs(self) -> dict[tuple[int, int], tuple[int, int]]:
        """(left id, right id) -> (rank, new id); a pair listed twice keeps its first rank (the
        pure-Python merge and BPE-dropout read it; made on first use)."""
        pairs: dict[tuple[int, int], tuple[int, int]] = {}
        for rank, (left_id, right_id, new_id) in enumerate(self.triples):
            pairs.setdefault((left_id, right_id), (rank, new_id))
        return pairs

    def symbols(self, word: str) -> tuple[str, ...]:
        """The marked unit symbols of ``word``."""
        return self.marker.apply(self.unit.split(word))

    def merge(self, symbols: Sequence[str], p: float = 0.0, rng: random.Random | None = None) -> list[int]:
        """The ids of ``symbols`` merged by rank (``-1``: a symbol outside the vocabulary, never
        merged); with ``p``, BPE-dropout drawing from ``rng``."""
        get = self.vocab.get
        ids = [get(s, -1) for s in symbols]
        if len(ids) < 2:
            return ids
        if p:
            return merge_dropout(ids, self.pairs, p, rng)  # type: ignore[arg-type]
        return self.compiled.merge_ids(ids) if self.compiled is not None else merge_ids(ids, self.pairs)

    def _encode_piece(self, segment: str) -> tuple[int, ...]:
        """The ids of the SentencePiece piece ``'▁' + segment`` (the core caches it as ``segment``)."""
        return self.encode_word(SPACE_MARK + segment)

    def encode_word(self, word: str) -> tuple[int, ...]:
        """The ids of one word (what the word cache holds)."""
        symbols = self.symbols(word)
        ids = self.merge(symbols)
        if -1 in ids:
            ids = self.fallback.fill(ids, symbols, word)
        return tuple(ids)

    def segment(self, word: str, p: float = 0.0, rng: random.Random | None = None) -> Segment:
        """One word as ``(ids, first_symbol, end_symbol)`` per merged token: the ids it becomes
        (several for a fallback spelling) and the run of the word's marked symbols it spells.
        Without dropout, a word's segment is cached (shared: not to be changed)."""
        if not p:
            return self.segments[word]
        return self._segment(word, p, rng)

    def _segment(self, word: str, p: float = 0.0, rng: random.Random | None = None) -> Segment:
        symbols = self.symbols(word)
        ids = self.merge(symbols, p, rng)
        mark, id_to_token = self.marker, self.id_to_token
        size = (lambda t: len(mark.strip(t))) if mark.glued else len
        out: Segment = []
        k = 0
        for i in ids:
            if i < 0:
                out.append((self.fallback.ids(symbols[k], word), k, k + 1))
                k += 1
                continue
            start, n, got = k, size(id_to_token[i]), 0
            while got < n:
                got += size(symbols[k])
                k += 1
            out.append(([i], start, k))
        assert k == len(symbols), (word, ids)
        return out

    # --- many texts ----------------------------------------------------------------------------

    def encode_texts(self, texts: list[str], *, num_threads: int = 1,
                     check: Callable[[], None] | None = None) -> list[list[int]]:
        """The ids of each text: cut by the compiled core when the plan says it can (on
        ``num_threads`` threads), else by ``pre_tokenizer.batch``.  ``check()`` (the special-token
        check) runs before any id is returned: while the threads merge, where there are threads."""
        if not self.cuts_texts or len(texts) == 1:
            if check is not None:
                check()
        if not self.cuts_texts:
            return self.encode_words(self.pre_tokenizer.batch(texts), num_threads=num_threads)
        if len(texts) == 1:  # encode(text): straight to the core (a fifth of its time otherwise)
            return self.compiled.encode_chunk(texts)  # type: ignore[no-any-return]
        return in_chunks(texts, self.compiled.merge_chunk, num_threads=num_threads, finish=_lists, check=check)

    def encode_texts_flat(self, texts: list[str], *, dtype: str, num_threads: int = 1,
                          check: Callable[[], None] | None = None) -> FlatIds:
        """:meth:`encode_texts` as one flat array of ``dtype`` (:mod:`korean_bpe.encoding.flat`):
        the compiled core's chunks copied into it without a Python object a token; a pipeline
        whose text the core does not cut goes through :meth:`encode_words_flat`."""
        if not self.cuts_texts:
            if check is not None:
                check()
            return self.encode_words_flat(self.pre_tokenizer.batch(texts), dtype=dtype, num_threads=num_threads)
        collector = FlatCollector(len(texts), dtype)
        each_chunk(texts, self.compiled.merge_chunk, collector.take, num_threads=num_threads, check=check)
        return collector.result()

    def encode_words_flat(self, batch: list[list[str]], *, dtype: str, num_threads: int = 1) -> FlatIds:
        """:meth:`encode_words` as one flat array of ``dtype``: from the compiled core's chunks
        when it cuts the symbols, else built from the lists (a unit or marker the core does not
        know, the pure-Python fallback)."""
        collector = FlatCollector(len(batch), dtype)
        if self.compiled is not None and self.plan.symbols is not None:
            each_chunk(batch if isinstance(batch, list) else list(batch), self.compiled.merge_pieces, collector.take,
                       num_threads=num_threads, per_piece=PIECE_CHARS)
        else:
            collector.take(0, len(batch), self.encode_words(batch, num_threads=num_threads))
        return collector.result()

    def encode_words(self, batch: list[list[str]], *, num_threads: int = 1) -> list[list[int]]:
        """The ids of pre-tokenized texts, each distinct word segmented once (then cached); on
        ``num_threads`` threads when the compiled core cuts the symbols."""
        cache, compiled = self.cache, self.compiled
        if compiled is not None:
            if self.plan.symbols is not None:  # cut, merged and cached in the core
                return in_chunks(batch if isinstance(batch, list) else list(batch), self.compiled.merge_pieces,
                                 num_threads=num_threads, per_piece=PIECE_CHARS, finish=_lists)
            return compiled.encode_batch(cache, batch, self.encode_word, cache.maxsize)
        getitem = cache.__getitem__
        out = []
        for words in batch:
            ids: list[int] = []
            for w in words:
                ids += getitem(w)
            out.append(ids)
        return out

    def encode_dropout(self, batch: list[list[str]], p: float, rng: random.Random) -> list[list[int]]:
        """The ids of pre-tokenized texts with BPE-dropout: every word merged afresh, no cache."""
        out = []
        for words in batch:
            ids: list[int] = []
            for w in words:
                for tids, _, _ in self.segment(w, p, rng):
                    ids += tids
            out.append(ids)
        return out

    def clear(self) -> None:
        """Empty the word caches."""
        self.cache.clear()
        self.segments.clear()
        if self.compiled is not None:
            self.compiled.clear_words()
