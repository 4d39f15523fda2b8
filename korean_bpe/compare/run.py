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
  inside an 어절 against the gold analyzer's morpheme boundaries (every morpheme end inside an 어절:
  :mod:`korean_bpe.compare.gold`) on the same held-out texts, as
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
import numbers
import time
from collections.abc import Sequence
from typing import TYPE_CHECKING, Any

from ..pre_tokenizers.base import LINE_BREAKS
from . import metrics
from .gold import gold_boundaries, gold_spans
from .measure import THROUGHPUT_TEXTS, _HeldOut, _measure, _row_throughput
from .pretok import _Pretok
from .segmenters import BPESegmenter, Segmenter
from .strategies import (BASELINES, BPE_PRE_TOKENIZERS, BPE_UNITS, DEFAULT_STRATEGIES, GOLD_ANALYZERS, _parse,
                         _task_key, _TASK_COST, _tasks, resolve_strategies, why as _why)
from .table import COLUMNS, DTYPES, format_table
from .training import _segmenters

if TYPE_CHECKING:  # pragma: no cover
    import pandas as pd

__all__ = [
    "compare", "format_table", "COLUMNS", "DTYPES", "DEFAULT_STRATEGIES",
    "BPE_PRE_TOKENIZERS", "BPE_UNITS", "BASELINES", "GOLD_ANALYZERS", "THROUGHPUT_TEXTS",
]

_LINE_BREAK_TABLE = {ord(c): " " for c in LINE_BREAKS}

def _one_line(text: str) -> str:
    """A document as one line: stray line breaks become spaces (no token may hold one)."""
    return text.translate(_LINE_BREAK_TABLE)


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
            held.gold = gold_boundaries(gold_spans(gold, test), held.word_spans)
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
