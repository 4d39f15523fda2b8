"""The first comparison (pre-tokenizer x unit, size metrics only), kept while the CLI and the notebook
move to :func:`korean_bpe.compare.compare`; new code should call that.

>>> texts = ["영화 정말 재밌다", "영화 진짜 재밌어요", "정말 재밌는 영화", "진짜 최고의 영화"] * 5
>>> df = compare_strategies(texts, pre_tokenizers=["whitespace"], units=["syllable", "jamo"],
...                         vocab_sizes=[40, 60], test_fraction=0.2, show_progress=False)
>>> df[["pre_tokenizer", "unit", "vocab_size", "round_trip_rate"]].to_string(index=False)
'pre_tokenizer     unit  vocab_size  round_trip_rate\\n   whitespace syllable          40              1.0\\n   whitespace syllable          60              1.0\\n   whitespace     jamo          40              1.0\\n   whitespace     jamo          60              1.0'

How a row is measured (test split = the held-out documents, or ``test_texts`` when given):

* ``pre_tokenizer``, ``unit``, ``marker`` (the word-boundary marker, ``""`` for none), ``lossless``
  (the pipeline promises ``decode(encode(x)) == x``: ``raw`` and lossless morpheme modes);
* ``vocab_size``: the size asked for; ``actual_vocab_size``: the size reached (smaller when merges
  stopped at ``min_frequency`` first);
* ``pretok_s``: seconds to pre-tokenize the training and test documents (each pre-tokenizer once,
  shared by its units; analyzers' on-disk caches may make a second run faster);
* ``train_s``: seconds of ``Tokenizer.train`` on the pre-tokenized training split (counting words,
  splitting units, BPE), once per strategy at the largest vocabulary size: smaller sizes are
  ``model.truncate(n)`` of that model (BPE merges are a prefix-usable list), so they share the time;
* ``tokens_per_word`` (fertility): tokens of the test texts / their white-space words (어절);
  ``chars_per_token``: characters of the test texts / tokens; ``unk_rate``: ``<unk>`` share of tokens;
* ``whole_word_rate``: share of the test words (each occurrence) that one token covers, encoding
  ``" " + word`` so that every pre-tokenizer sees the word as it appears inside a sentence; a token
  of white space alone (a lone ``▁``) does not count, and a word that is one ``<unk>`` is not whole;
* ``round_trip_rate``: share of test texts with ``decode(encode(text)) == text`` (measured for every
  strategy: below 1 for a lossless one only through ``<unk>``; ``whitespace`` also loses runs of
  spaces and indentation);
* ``encode_texts_per_s``: ``encode_batch`` throughput over the test texts from a cold word cache
  (best of three), pre-tokenization excluded (it is ``pretok_s``);
* ``train_docs``, ``test_docs``: documents in each split.

Documents are taken as single lines: line-break characters inside one (form feeds) become spaces.
Morpheme analyzers run in lossless mode by default (every morpheme kept, spaces recorded), so that
every strategy covers every character of the text and can round-trip; ``morpheme_lossless=False``
uses their analysis mode (particles and punctuation dropped: fewer tokens, no round trip).
"""

from __future__ import annotations

import math
import numbers
import time
from collections import Counter
from collections.abc import Iterable, Mapping, Sequence
from typing import TYPE_CHECKING, Any

from ..pre_tokenizers.base import LINE_BREAKS
from . import metrics

if TYPE_CHECKING:  # pragma: no cover
    import pandas as pd

__all__ = ["compare_strategies", "format_table", "COLUMNS", "DTYPES", "MORPHEME_PRE_TOKENIZERS"]

MORPHEME_PRE_TOKENIZERS = ("okt", "kiwi", "mecab")

#: the columns of the frame :func:`compare_strategies` returns, in order
COLUMNS = (
    "pre_tokenizer", "unit", "marker", "lossless", "vocab_size", "actual_vocab_size", "tokens_per_word",
    "chars_per_token", "unk_rate", "whole_word_rate", "round_trip_rate", "pretok_s", "train_s",
    "encode_texts_per_s", "train_docs", "test_docs",
)

#: the dtype of each column (an empty frame has them too)
DTYPES: dict[str, str] = {
    "pre_tokenizer": "object", "unit": "object", "marker": "object", "lossless": "bool",
    "vocab_size": "int64", "actual_vocab_size": "int64", "tokens_per_word": "float64",
    "chars_per_token": "float64", "unk_rate": "float64", "whole_word_rate": "float64",
    "round_trip_rate": "float64", "pretok_s": "float64", "train_s": "float64",
    "encode_texts_per_s": "float64", "train_docs": "int64", "test_docs": "int64",
}


class _Memo:
    """A pre-tokenizer that answers from precomputed words (falling back to the real one), so a
    strategy is timed without re-running the analyzer."""

    def __init__(self, pt: Any, table: Mapping[str, list[str]]) -> None:
        self._pt = pt
        self._table = table
        self.name = pt.name
        self.lossless = pt.lossless

    def __call__(self, text: str) -> list[str]:
        words = self._table.get(text)
        return list(words) if words is not None else self._pt(text)

    def batch(self, texts: Iterable[str], *, show_progress: bool | None = None) -> list[list[str]]:
        texts = list(texts)
        table = self._table
        missing = [t for t in dict.fromkeys(texts) if t not in table]
        extra = dict(zip(missing, self._pt.batch(missing, show_progress=False))) if missing else {}
        return [list(table[t]) if t in table else list(extra[t]) for t in texts]

    def restore(self, words: Sequence[str]) -> str:
        return self._pt.restore(words)

    def to_config(self) -> dict[str, Any]:
        return self._pt.to_config()

    def __repr__(self) -> str:
        return repr(self._pt)


_LINE_BREAK_TABLE = {ord(c): " " for c in LINE_BREAKS}


def _one_line(text: str) -> str:
    """A document as one line: stray line breaks (the form feeds of the konlpy bills) become spaces,
    since no token may hold a line break (``merges.txt`` is one merge a line)."""
    return text.translate(_LINE_BREAK_TABLE)


def _build_pre_tokenizer(spec: Any, morpheme_lossless: bool) -> Any:
    from ..pre_tokenizers import get_pre_tokenizer

    if isinstance(spec, str) and spec in MORPHEME_PRE_TOKENIZERS and morpheme_lossless:
        pt = get_pre_tokenizer(spec, lossless=True)
    else:
        pt = get_pre_tokenizer(spec)
    pt("한국어 시험")  # start the analyzer now: a missing Java or package shows here
    return pt


def _label(spec: Any, pt: Any) -> str:
    name = spec if isinstance(spec, str) else pt.name
    return name


def _merges_for(model: Any, vocab_size: int) -> int | None:
    """The number of merges whose truncated model has ``vocab_size`` tokens (or the whole model when
    training stopped short of it); ``None`` when the special tokens + alphabet alone are larger."""
    base = len(model.truncate(0).id_to_token)
    if vocab_size < base:
        return None
    n = min(len(model.merges), vocab_size - base)
    while n < len(model.merges) and model.truncate(n).vocab_size < vocab_size:
        n += 1
    return n


def compare_strategies(
    texts: Sequence[str],
    *,
    test_texts: Sequence[str] | None = None,
    pre_tokenizers: Sequence[Any] = ("raw", "whitespace", "okt", "kiwi", "mecab"),
    units: Sequence[str] = ("syllable", "jamo", "byte"),
    vocab_sizes: Sequence[int] = (4000,),
    test_fraction: float = 0.1,
    seed: int = 0,
    min_frequency: int = 2,
    morpheme_lossless: bool = True,
    show_progress: bool | None = None,
    notes: list[str] | None = None,
    tokenizers: dict[tuple[str, str, int], Any] | None = None,
) -> pd.DataFrame:
    """One row per pre-tokenizer x unit x vocabulary size, measured on a held-out split.

    ``texts`` are documents; a seeded shuffle holds out ``test_fraction`` of them (see
    :func:`korean_bpe.compare.metrics.split_indices`), unless ``test_texts`` are given: then every
    one of ``texts`` is trained on and ``test_texts`` are measured (e.g. NSMC's own test split).
    A pre-tokenizer whose analyzer is missing (no Java, package not installed) or a strategy that
    cannot be trained is skipped, one line saying why appended to ``notes`` when a list is given.
    When a dict is given as ``tokenizers``, it receives the :class:`~korean_bpe.Tokenizer` of each row
    under ``(pre_tokenizer, unit, vocab_size)``, e.g. to look at how each strategy cuts a text.
    The columns and their dtypes are :data:`COLUMNS` and :data:`DTYPES`; the module docstring says
    how each one is measured.
    """
    pd = _require_pandas()
    from ..tokenizer import Tokenizer

    texts = list(texts)
    if not texts or not all(isinstance(t, str) for t in texts):
        raise ValueError("texts must be a non-empty sequence of strings (documents)")
    texts = [_one_line(t) for t in texts]
    if isinstance(vocab_sizes, (int, str)) or not all(
        isinstance(v, numbers.Integral) and not isinstance(v, bool) for v in vocab_sizes
    ):
        raise TypeError(f"vocab_sizes must be a sequence of ints such as [2000, 4000], got {vocab_sizes!r}")
    sizes = sorted({int(v) for v in vocab_sizes})
    if not sizes or sizes[0] < 1:
        raise ValueError(f"vocab_sizes must hold positive ints such as [2000, 4000], got {list(vocab_sizes)!r}")
    if isinstance(pre_tokenizers, str) or isinstance(units, str):
        raise TypeError("pre_tokenizers and units must be sequences of names, e.g. units=['syllable'], not a string")
    if not units or not pre_tokenizers:
        raise ValueError("pre_tokenizers and units must each name at least one strategy")
    if test_texts is None:
        train_idx, test_idx = metrics.split_indices(len(texts), test_fraction=test_fraction, seed=seed)
        train = [texts[i] for i in train_idx]
        test = [texts[i] for i in test_idx]
    else:
        test_texts = list(test_texts)
        if not all(isinstance(t, str) for t in test_texts):
            raise TypeError("test_texts must be a sequence of strings (documents) or None")
        test = [_one_line(t) for t in test_texts if t.strip()]  # blank documents say nothing
        if not test:
            raise ValueError("test_texts holds no non-blank document: give some text to measure, or None")
        train = texts
    word_counts = Counter(w for t in test for w in t.split())
    probes = [" " + w for w in word_counts]
    n_words = sum(word_counts.values())
    n_chars = sum(len(t) for t in test)
    notes = notes if notes is not None else []

    bar = _progress(len(pre_tokenizers) * len(units), show_progress)
    rows: list[dict[str, Any]] = []
    try:
        for spec in pre_tokenizers:
            label = spec if isinstance(spec, str) else getattr(spec, "name", str(spec))
            _describe(bar, f"{label}: pre-tokenizing")
            try:
                pt = _build_pre_tokenizer(spec, morpheme_lossless)
                label = _label(spec, pt)
                start = time.perf_counter()
                words = pt.batch(train + test, show_progress=False)
                pretok_s = time.perf_counter() - start
                table = dict(zip(train + test, words))
                table.update(zip(probes, pt.batch(probes, show_progress=False)))
            except (ImportError, RuntimeError, OSError, ValueError) as exc:
                notes.append(f"skipped {label} ({', '.join(units)}): {' '.join(str(exc).split())}")
                _advance(bar, len(units))
                continue
            memo = _Memo(pt, table)
            for unit in units:
                _describe(bar, f"{label}/{unit}")
                try:
                    start = time.perf_counter()
                    full = Tokenizer.train(train, vocab_size=sizes[-1], pre_tokenizer=memo, unit=unit,
                                           min_frequency=min_frequency, show_progress=False)
                    train_s = time.perf_counter() - start
                except ValueError as exc:
                    notes.append(f"skipped {label}/{unit}: {' '.join(str(exc).split())}")
                    _advance(bar, 1)
                    continue
                for size in sizes:
                    n = _merges_for(full.model, size)
                    if n is None:
                        notes.append(f"skipped {label}/{unit} at vocab size {size}: smaller than its "
                                     f"{len(full.model.truncate(0).id_to_token)} special tokens + alphabet")
                        continue
                    tok = Tokenizer(full.model.truncate(n), pre_tokenizer=memo, unit=full.unit, marker=full.marker,
                                    unk_token=full.unk_token)
                    if tokenizers is not None:
                        tokenizers[(label, unit, size)] = tok
                    rows.append(_measure(tok, test, word_counts, n_words, n_chars) | {
                        "pre_tokenizer": label, "unit": unit, "marker": full.marker or "",
                        "lossless": bool(getattr(pt, "lossless", False)), "vocab_size": size,
                        "pretok_s": pretok_s, "train_s": train_s, "train_docs": len(train), "test_docs": len(test),
                    })
                _advance(bar, 1)
    finally:
        if bar is not None:
            bar.close()
    return pd.DataFrame(rows, columns=list(COLUMNS)).astype(DTYPES)


def _measure(tok: Any, test: list[str], word_counts: Counter[str], n_words: int, n_chars: int) -> dict[str, Any]:
    encode_s = math.inf
    for _ in range(3):  # best of three, each from a cold word cache
        tok.clear_cache()
        start = time.perf_counter()
        encoded = tok.encode_batch(test, disallowed_special=())  # a review that spells "<unk>" is text
        encode_s = min(encode_s, time.perf_counter() - start)
    n_tokens = sum(map(len, encoded))
    unk_ids = {tok.vocab[tok.unk_token]} if tok.unk_token in tok.vocab else set()
    decoded = [tok.decode(ids) for ids in encoded]
    probe_ids = tok.encode_batch([" " + w for w in word_counts], disallowed_special=())
    whole = [ids for ids, c in zip(probe_ids, word_counts.values()) for _ in range(c)]
    # tokens that decode to white space alone (a lone ▁) stand for the space before the word
    space_ids = {i for i in {i for ids in probe_ids for i in ids} if not tok.decode([i]).strip()}
    return {
        "actual_vocab_size": tok.vocab_size,
        "tokens_per_word": metrics.fertility(n_tokens=n_tokens, n_words=n_words),
        "chars_per_token": metrics.chars_per_token(n_chars=n_chars, n_tokens=n_tokens),
        "unk_rate": metrics.unk_rate(encoded, unk_ids=unk_ids),
        "whole_word_rate": metrics.whole_word_rate(whole, ignore=space_ids, unk_ids=unk_ids),
        "round_trip_rate": metrics.round_trip_rate(test, decoded),
        "encode_texts_per_s": metrics.throughput(len(test), encode_s),
    }


def format_table(df: pd.DataFrame) -> str:
    """The frame as an aligned text table with short headers and rounded numbers."""
    if df.empty:
        return "(no strategy could be measured)"
    short = {
        "pre_tokenizer": "pre-tok", "unit": "unit", "lossless": "lossless", "vocab_size": "vocab",
        "actual_vocab_size": "actual",
        "tokens_per_word": "tok/word", "chars_per_token": "chars/tok", "unk_rate": "unk%",
        "whole_word_rate": "whole%", "round_trip_rate": "roundtrip%", "pretok_s": "pretok s",
        "train_s": "train s", "encode_texts_per_s": "enc texts/s",
    }
    out = df[list(short)].copy()
    for col in ("unk_rate", "whole_word_rate", "round_trip_rate"):
        out[col] = out[col] * 100
    out["lossless"] = ["yes" if v else "no" for v in out["lossless"]]
    out = out.rename(columns=short)
    formats = {"tok/word": "{:.3f}", "chars/tok": "{:.3f}", "unk%": "{:.2f}", "whole%": "{:.1f}",
               "roundtrip%": "{:.1f}", "pretok s": "{:.2f}", "train s": "{:.2f}", "enc texts/s": "{:,.0f}"}
    for col, fmt in formats.items():
        out[col] = [fmt.format(v) if not (isinstance(v, float) and math.isnan(v)) else "-" for v in out[col]]
    return out.to_string(index=False)


def _require_pandas() -> Any:
    from .._optional import require

    return require("pandas")


def _progress(total: int, show: bool | None) -> Any:
    import sys

    if show is None:
        show = bool(getattr(sys.stderr, "isatty", lambda: False)())
    if not show:
        return None
    try:
        from tqdm.auto import tqdm
    except ImportError:  # pragma: no cover
        return None
    return tqdm(total=total, desc="strategies", unit="strategy", file=sys.stderr)


def _advance(bar: Any, n: int) -> None:
    if bar is not None:
        bar.update(n)


def _describe(bar: Any, text: str) -> None:
    if bar is not None:
        bar.set_postfix_str(text)
