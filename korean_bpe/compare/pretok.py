"""Each pre-tokenization of a comparison once: training and held-out words, their alignment with
the text, the held-out 어절 layout, cached on disk for the analyzers that have no cache of their own."""

from __future__ import annotations

import time
from collections.abc import Callable
from typing import Any

from .heldout import HeldOut, Layout, best_seconds
from .strategies import BPE_PRE_TOKENIZERS, DERIVED

__all__ = ["Pretokenizations", "batch_cached", "build_pre_tokenizer"]


class Pretokenizations:
    """Each pre-tokenization of a comparison once (keyed by its name in
    :data:`~korean_bpe.compare.strategies.BPE_PRE_TOKENIZERS`): training and held-out words,
    seconds, or why it failed; what the rows built on it share."""

    def __init__(self, train: list[str], test: list[str]) -> None:
        self.train, self.test = train, test
        self._done: dict[str, Any] = {}
        self._aligned: dict[str, dict[str, Any]] = {}
        self._layouts: dict[str, Layout] = {}
        self._char_words: dict[str, list[list[str]]] = {}
        self._sample: dict[str, tuple[float, list[list[str]]]] = {}

    def layout(self, key: str, held: HeldOut) -> Layout:
        """The held-out 어절 of pre-tokenization ``key`` (:class:`~korean_bpe.compare.heldout.Layout`), built once."""
        got = self._layouts.get(key)
        if got is None:
            pt, _, _, table, _ = self.get(key)
            got = self._layouts[key] = Layout(held, [table[t] for t in held.texts], self.aligned(key), pt)
        return got

    def char_words(self, key: str, chars: list[str]) -> list[list[str]]:
        """The words pre-tokenization ``key`` gives for each of ``chars`` alone, computed once."""
        got = self._char_words.get(key)
        if got is None:
            got = self._char_words[key] = batch_cached(self.get(key)[0], chars)
        return got

    def sample_batch(self, key: str, sample: list[str]) -> tuple[float, list[list[str]]]:
        """(seconds, words) of ``pre_tokenizer.batch(sample)`` of pre-tokenization ``key``: the
        fastest of up to three runs (:func:`~korean_bpe.compare.heldout.best_seconds`), measured once."""
        got = self._sample.get(key)
        if got is None:
            pt = self.get(key)[0]
            words: list[list[list[str]]] = []
            seconds = best_seconds(lambda: words.append(pt.batch(sample, show_progress=False)))
            got = self._sample[key] = (seconds, words[-1])
        return got

    def forget(self, keys: set[str]) -> None:
        """Release what was kept for the pre-tokenizations ``keys`` (a later :meth:`get` computes
        them again): their words, alignments, layouts and samples."""
        for store in (self._done, self._aligned, self._layouts, self._char_words, self._sample):
            for key in keys:
                store.pop(key, None)

    def aligned(self, key: str) -> dict[str, Any]:
        """A dict shared by the segmenters of one pre-tokenization: text -> ``word_bases``."""
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
        if key in DERIVED:  # made from the analysis of the one it reads: no second analyzer pass
            from ..pre_tokenizers.boundaries import mob_pieces

            pt = build_pre_tokenizer(key)
            _, train_words, test_words, _, seconds = self.get(DERIVED[key])
            start = time.perf_counter()
            words = [mob_pieces(w) for w in train_words + test_words]
            seconds += time.perf_counter() - start
        else:
            pt = build_pre_tokenizer(key)
            start = time.perf_counter()
            words = batch_cached(pt, self.train + self.test)
            seconds = time.perf_counter() - start
        n = len(self.train)
        table = dict(zip(self.train + self.test, words))
        return pt, words[:n], words[n:], table, seconds


def build_pre_tokenizer(key: str) -> Any:
    from ..pre_tokenizers import get_pre_tokenizer

    name, options = BPE_PRE_TOKENIZERS[key]
    pt = get_pre_tokenizer(name, **options)
    pt("한국어 시험")  # start the analyzer now: a missing Java or package shows here
    return pt


def batch_cached(pt: Any, texts: list[str], *, what: str = "words",
                  compute: Callable[[list[str]], list[Any]] | None = None) -> list[Any]:
    """``compute(texts)`` (default ``pt.batch(texts)``, the words); for an analyzer without an on-disk
    cache of its own (``kiwi``, ``mecab``: they have ``analyzer_version``), the results are kept in
    :mod:`korean_bpe.pre_tokenizers.cache` under the analyzer's name, keyed by ``what``, its version
    and config, so that a second comparison reads them back (as JSON: tuples come back as lists)."""
    if compute is None:
        compute = lambda ts: pt.batch(ts, show_progress=False)  # noqa: E731
    version = getattr(pt, "analyzer_version", None)
    if version is None:
        return compute(texts)
    import warnings

    from ..pre_tokenizers.cache import AnalysisCache

    unique = list(dict.fromkeys(texts))
    found: dict[str, Any] = {}
    cache = None
    try:
        cache = AnalysisCache(pt.name)
        ns = cache.namespace({"analyzer": f"{pt.name} {what} (korean_bpe.compare)", "version": version,
                              "options": pt.to_config()})
        found = cache.get_many(ns, unique)
    except Exception as exc:  # a broken cache costs time, never the run
        warnings.warn(f"{pt.name} {what} cache disabled for this comparison: {exc}", RuntimeWarning, stacklevel=2)
        if cache is not None:
            cache.close()
        cache = None
    missing = [t for t in unique if t not in found]
    if missing:
        words = compute(missing)
        found.update(zip(missing, words))
        if cache is not None:
            try:
                cache.put_many(ns, zip(missing, words))
            except Exception as exc:
                warnings.warn(f"{pt.name} {what} not cached: {exc}", RuntimeWarning, stacklevel=2)
    if cache is not None:
        cache.close()
    return [found[t] for t in texts]

