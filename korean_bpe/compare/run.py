"""``compare``: train every tokenization strategy on the same texts and measure it on held-out text.

The study of Park et al. 2020 (kakaobrain/kortok: jamo, syllable, morpheme, subword and
morpheme-aware subword tokenization on the same data), on your corpus, in one call:

>>> texts = ["영화 정말 재밌다", "영화 진짜 재밌어요", "정말 재밌는 영화", "진짜 최고의 영화"] * 5
>>> df = compare(texts, strategies=["whitespace/syllable", "baseline/word"], vocab_sizes=[20, 30],
...              show_progress=False, gold=None).table
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
and is shared by its units and sizes and the baselines (the gold analyzer's morpheme spans of the
held-out texts are kept in the analysis cache); so are the held-out 어절
of each pre-tokenization, keyed by the words that cover them, so that a BPE row counts continued
어절 and boundaries once per distinct 어절 (a test shows the counts equal the per-text ones).  A size a strategy
cannot reach (merges stop at ``min_frequency``, a baseline runs out of tokens) gives a row whose
``actual_vocab_size`` is smaller; a size below a BPE strategy's alphabet is skipped with a note.

Columns: :data:`korean_bpe.compare.columns.TABLE` describes each one (dtype, header, unit, which
way is better, format, definition with its formula), and :data:`COLUMNS`, :data:`DTYPES`, the
printed table, the CLI's legend and the report's definitions are generated from it.  They are
measured on the held-out texts (``eval_texts``, or a seeded ``test_fraction`` of ``texts``), through
the same ``encode_batch`` a user calls; every per-document metric has a bootstrap interval and a
p-value against the row's reference (:mod:`korean_bpe.compare.stats`).  The morpheme gold is
every morpheme end inside an 어절 (:mod:`korean_bpe.compare.gold`).

The lossy ``okt-analysis`` rows (``drops_text``) measure what such a model sees: the dropped 조사, punctuation and
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
from .assemble import build_frame, reduce_rows
from .columns import COLUMNS, DTYPES
from .downstream import Downstream, resolved_device
from .result import MAX_SEED, Comparison, Statistics
from .table import format_table
from .verdict import verdicts
from .training import Context, State, _segmenters

if TYPE_CHECKING:  # pragma: no cover
    import pandas as pd

__all__ = [
    "compare", "format_table", "COLUMNS", "DTYPES", "DEFAULT_STRATEGIES", "Comparison", "Statistics", "Downstream",
    "BPE_PRE_TOKENIZERS", "BPE_UNITS", "BASELINES", "GOLD_ANALYZERS", "THROUGHPUT_TEXTS",
]

_LINE_BREAK_TABLE = {ord(c): " " for c in LINE_BREAKS}

def _line_breaks_as_spaces(text: str) -> str:
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
    test_fraction: float = 0.1,
    min_frequency: int = 2,
    probe_train_docs: int | None = 20_000,
    downstream: Downstream | None = None,
    statistics: Statistics = Statistics(),
    show_progress: Any = None,
    n_jobs: int | None = None,
    model_cache: bool = True,
    pieces_texts: Sequence[str] = (),
    keep_segmenters: bool = False,
) -> Comparison:
    """One row per strategy x vocabulary size, measured on held-out text (see the module docstring);
    returns a :class:`~korean_bpe.compare.result.Comparison` (``.table``, ``.notes``, ...).

    *What is compared.*  ``texts`` are documents.  Without ``eval_texts`` a seeded shuffle holds
    out ``test_fraction`` of them (:func:`korean_bpe.compare.metrics.split_indices`); with it, all
    of ``texts`` train and ``eval_texts`` are measured.  ``labels`` (one int per text) and
    ``eval_labels`` (per held-out text; taken from the split when ``eval_texts`` is None) turn on
    ``probe_accuracy``.  ``strategies`` (None: :data:`DEFAULT_STRATEGIES`), ``vocab_sizes``;
    ``gold``: ``"kiwi"``, ``"mecab"``, ``"okt"`` or None (no morpheme-boundary metrics).
    ``min_frequency``: the BPE trainer's (merges seen fewer times stop training).
    ``probe_train_docs``: the probe is fitted on a seeded sample of at most this many training
    documents (the same for every row; None: all of them), which keeps it to seconds a row.
    ``downstream`` (a :class:`~korean_bpe.compare.downstream.Downstream`, None: off): with labels,
    train a small neural sequence classifier (a CNN by default, or a Transformer) from scratch on
    each row's token ids, several seeds, and report ``downstream_accuracy``, ``downstream_macro_f1``
    and ``downstream_seed_sd`` with intervals over the held-out documents and the seeds
    (:mod:`korean_bpe.compare.downstream`; needs ``korean_bpe[downstream]``, i.e. PyTorch).

    *How sure.*  ``statistics`` (:class:`~korean_bpe.compare.result.Statistics`): bootstrap
    resamples of the held-out documents (drawn with ``seed``, the same for every row), the
    intervals' confidence and the reference row of the p-values (:mod:`korean_bpe.compare.stats`).

    *How it runs.*  ``n_jobs``: worker processes (None: 1, all in this process; -1: one per CPU).
    With 2 or more, the strategies are grouped into tasks that share nothing but the on-disk caches
    (the rows of one analyzer or pre-tokenizer with the baselines that read it, the jamo and
    syllable baselines, each peer alone), and spawned workers run them, the longest first.  Every
    metric is the same whatever ``n_jobs`` (a test checks it); the timing columns measure whichever
    process ran the row, sharing the machine.  While the rows are measured, the cyclic garbage
    collector runs less often (:func:`rare_collections`) and each task's pre-tokenizations are
    released when it ends.  ``model_cache`` (on by default): each trained model is kept in
    ``models/`` under the analysis cache's directory (:mod:`korean_bpe.compare.model_cache`) and
    read back by a rerun on the same texts, strategy, size and seed (``model_cached`` True,
    ``train_s`` the original training's); False trains every model and keeps none.

    *What is kept.*  ``pieces_texts``: the result's ``pieces`` holds, for each strategy at its
    largest size, ``{text: Segmenter.pieces(text)}`` of these texts (what the report's segmentation
    examples and token lengths read), whatever ``n_jobs``.  ``keep_segmenters``: the result's
    ``segmenters`` holds each row's live :class:`~korean_bpe.compare.segmenters.Segmenter` (the rows
    then run in this process: ``n_jobs`` must be 1).  A strategy whose analyzer or peer library is
    missing, or that cannot be trained, is skipped with a note (``"skipped X: why"``).
    """
    texts, train, test, train_labels, test_labels = _split(texts, eval_texts, labels, eval_labels, test_fraction, seed)
    sizes, names = _sizes(vocab_sizes), resolve_strategies(strategies)
    _check_options(gold=gold, min_frequency=min_frequency, probe_train_docs=probe_train_docs,
                   statistics=statistics, model_cache=model_cache, seed=seed, held_out=len(test),
                   downstream=downstream)
    if downstream is not None and train_labels is None:
        raise ValueError("downstream needs labels: give labels (and eval_labels with eval_texts), or downstream=None")
    extrinsic_idx, train_labels, probe_pos, downstream_pos = _extrinsic_sample(
        train, train_labels, probe_train_docs, False if downstream is None else downstream.train_docs, seed)
    pieces_texts = _pieces_texts(pieces_texts)
    jobs = _jobs(n_jobs)
    if jobs > 1 and keep_segmenters:
        raise ValueError(f"keep_segmenters needs the rows in this process: pass n_jobs=1 (got n_jobs={n_jobs!r}), "
                         "or keep_segmenters=False")
    tasks = _tasks(names)
    jobs = min(jobs, len(tasks))  # a worker per task at most; one task runs in this process
    notes: list[str] = []
    statistics = statistics.for_run(len(test), len(names) * len(sizes), notes)
    held = _HeldOut(test, test_labels)
    _grade_with(held, gold, notes)
    state = State(train=train, train_labels=train_labels, extrinsic_idx=extrinsic_idx, sizes=sizes, held=held, seed=seed,
                  min_frequency=min_frequency, peers_ok=_peers_ok(names, notes, held.texts), pieces_texts=pieces_texts,
                  probe_pos=probe_pos, downstream_pos=downstream_pos, downstream=downstream)
    if model_cache:
        from .model_cache import default_directory, texts_hash

        state.model_cache_dir, state.texts_hash = str(default_directory()), texts_hash(train)
    segmenters: dict[tuple[str, int], Segmenter] | None = {} if keep_segmenters else None
    done = _execute(tasks, state, jobs, _Pretok(train, test), show_progress, len(names), segmenters,
                    reduce=lambda rows: reduce_rows(rows, resamples=statistics.resamples, seed=seed))
    result = Comparison(table=None, segmenters=segmenters)  # type: ignore[arg-type]
    by_name: dict[str, list[dict[str, Any]]] = {}
    for k, (task_rows, task_notes, wall, cpu, task_pieces) in sorted(done.items()):
        notes.extend(task_notes)
        result.pieces.update(task_pieces)
        result.timings[_task_key(tasks[k])] = {"wall_s": wall, "cpu_s": cpu, "rows": len(task_rows)}
        for row in task_rows:
            by_name.setdefault(row["strategy"], []).append(row)
    rows = [row for name in names for row in by_name.get(name, [])]
    result.table = build_frame(rows, confidence=statistics.confidence, reference=statistics.reference, notes=notes,
                               resamples=statistics.resamples)
    result.verdicts = verdicts(rows, alpha=statistics.alpha)
    result.notes = notes
    result.config = _config(names, sizes, gold=gold, seed=seed, eval_texts=eval_texts, test_fraction=test_fraction,
                            train=train, test=test, labels=labels, min_frequency=min_frequency,
                            probe_train_docs=probe_train_docs, statistics=statistics, jobs=jobs,
                            model_cache=model_cache, downstream=downstream)
    from .report import package_versions

    result.versions = package_versions()
    return result


def _config(names: list[str], sizes: list[int], *, gold: str | None, seed: int, eval_texts: Any,
            test_fraction: float, train: list[str], test: list[str], labels: Any, min_frequency: int,
            probe_train_docs: int | None, statistics: Statistics, jobs: int, model_cache: bool,
            downstream: Downstream | None = None) -> dict[str, Any]:
    """The exact configuration of a run, as the result and the report record it."""
    return {
        "strategies": names, "vocab_sizes": sizes, "gold": gold, "seed": seed,
        "held_out": "eval_texts" if eval_texts is not None else f"a seeded {test_fraction:g} of texts",
        "train_docs": len(train), "test_docs": len(test), "labels": labels is not None,
        "min_frequency": min_frequency, "probe_train_docs": probe_train_docs, "resamples": statistics.resamples,
        "confidence": statistics.confidence,
        "reference": statistics.reference or "whitespace BPE of the row's unit (syllable for the others)",
        "n_jobs": jobs, "model_cache": model_cache,
        "downstream": None if downstream is None else {**downstream.to_config(),
                                                        "device_used": resolved_device(downstream)},
    }


#: the most bytes of the bootstrap's resample table (resamples x held-out documents, one byte each)
_MAX_RESAMPLE_BYTES = 2**31


def _check_options(*, gold: str | None, min_frequency: int, probe_train_docs: int | None, statistics: Any,
                   model_cache: bool, seed: Any = 0, held_out: int = 0, downstream: Any = None) -> None:
    """Every option checked before any work (a bad one fails in a second, not after the training)."""
    if isinstance(seed, bool) or not isinstance(seed, int) or not 0 <= seed <= MAX_SEED:
        raise ValueError(f"seed must be an int from 0 to {MAX_SEED} (it seeds the split, the bootstrap and the probe), "
                         f"got {seed!r}")
    if gold is not None and gold not in GOLD_ANALYZERS:
        raise ValueError(f"gold={gold!r} is not an analyzer; use one of {GOLD_ANALYZERS} or None")
    if not isinstance(min_frequency, int) or min_frequency < 1:
        raise ValueError(f"min_frequency must be a positive int, got {min_frequency!r}")
    if probe_train_docs is not None and (not isinstance(probe_train_docs, int) or probe_train_docs < 1):
        raise ValueError(f"probe_train_docs must be a positive int or None (all), got {probe_train_docs!r}")
    if not isinstance(statistics, Statistics):
        raise TypeError(f"statistics must be a korean_bpe.compare.Statistics, e.g. Statistics(resamples=2000), "
                        f"got {statistics!r}")
    if (statistics.resamples or 0) * held_out > _MAX_RESAMPLE_BYTES:  # None: chosen for the run, far below
        most = _MAX_RESAMPLE_BYTES // held_out
        raise ValueError(f"resamples={statistics.resamples:,} of {held_out:,} held-out documents need a "
                         f"{statistics.resamples * held_out / 2**30:.1f} GiB resample table; at most {most:,} fit "
                         f"{_MAX_RESAMPLE_BYTES / 2**30:.0f} GiB (e.g. Statistics(resamples={min(most, 10_000)}))")
    if not isinstance(model_cache, bool):
        raise TypeError(f"model_cache must be True or False, got {model_cache!r}")
    if downstream is not None:
        if not isinstance(downstream, Downstream):
            raise TypeError(f"downstream must be a korean_bpe.compare.Downstream, e.g. Downstream(model='cnn'), or "
                            f"None, got {downstream!r}")
        from .downstream import require_torch

        require_torch()  # before any training: the install hint now, not after the rows


def _sample(n: int, k: int | None, seed: int) -> list[int]:
    """A seeded sample of at most ``k`` of ``range(n)``, in order (all of them for None)."""
    if k is None or n <= k:
        return list(range(n))
    import random

    return sorted(random.Random(seed).sample(range(n), k))


def _extrinsic_sample(train: list[str], train_labels: list[int] | None, probe_train_docs: int | None,
                      downstream_train_docs: int | None | bool, seed: int) -> tuple[Any, Any, Any, Any]:
    """(the training documents the probe and the downstream stage read, their labels, the positions
    of the probe's sample among them, those of the downstream stage's or None when it is off): each
    a seeded sample of ``range(len(train))`` (:func:`_sample`), the same for every row, encoded once
    per row; (None, None, None, None) without labels.

    >>> _extrinsic_sample(["a"] * 6, [0, 1] * 3, 2, 4, seed=0)   # the probe reads 3 and 5; the downstream 0, 1, 3, 5
    ([0, 1, 3, 5], [0, 1, 1, 1], [2, 3], [0, 1, 2, 3])
    """
    if train_labels is None:
        return None, None, None, None
    probe = _sample(len(train), probe_train_docs, seed)
    down = None if downstream_train_docs is False else _sample(len(train), downstream_train_docs, seed)
    idx = sorted(set(probe) | set(down or ()))
    where = {i: k for k, i in enumerate(idx)}
    return (idx, [train_labels[i] for i in idx], [where[i] for i in probe],
            None if down is None else [where[i] for i in down])


def _pieces_texts(pieces_texts: Sequence[str]) -> list[str]:
    if isinstance(pieces_texts, str):
        raise TypeError(f"pieces_texts must be a sequence of strings, not the string {pieces_texts!r}; "
                        f"write pieces_texts=[{pieces_texts!r}]")
    out = list(dict.fromkeys(pieces_texts))
    if not all(isinstance(t, str) for t in out):
        raise TypeError("pieces_texts must hold strings (the texts to record the pieces of)")
    return out


def _grade_with(held: _HeldOut, gold: str | None, notes: list[str]) -> None:
    """Set ``held``'s gold boundaries from analyzer ``gold`` (:mod:`korean_bpe.compare.gold`), or note why not."""
    if gold is None:
        return
    try:
        held.gold = gold_boundaries(gold_spans(gold, held.texts), held.word_spans)
    except (ImportError, RuntimeError, OSError, ValueError) as exc:
        notes.append(f"skipped the morpheme-boundary metrics (gold {gold}): {_why(exc)}")
        return
    held.n_gold = sum(len(g) for per_text in held.gold for g in per_text)
    held.gold_name = gold


def _peers_ok(names: list[str], notes: list[str], held_texts: Sequence[str] = ()) -> bool:
    """Whether the peers module imports and every held-out text is one they can encode (a note when
    not and a peer was asked for: before any training, the other rows kept)."""
    peers = [n for n in names if _parse(n).kind == "peer"]
    if not peers:
        return True
    from ..tokens import SURROGATE

    bad = next((k for k, t in enumerate(held_texts) if SURROGATE.search(t)), None)
    if bad is not None:  # SentencePiece, HF and Kiwi take UTF-8 only: each would fail on it after training
        text = held_texts[bad]
        notes.append(f"skipped the peers ({', '.join(peers)}): held-out document {bad + 1} of {len(held_texts)} "
                     f"({text[:40]!r}{'...' if len(text) > 40 else ''}) holds a lone surrogate (U+D800..U+DFFF), which "
                     "UTF-8 cannot hold and the peers' libraries cannot encode; remove or repair it to measure them")
        return False
    try:
        from . import peers as _  # noqa: F401
    except ImportError as exc:
        notes.append(f"skipped the peers ({', '.join(n for n in names if _parse(n).kind == 'peer')}): "
                     f"korean_bpe.compare.peers is not available ({_why(exc)})")
        return False
    return True


def _execute(tasks: list[list[str]], state: State, jobs: int, pretok: _Pretok, show_progress: Any,
             n_strategies: int, segmenters: dict[tuple[str, int], Segmenter] | None,
             reduce: Any) -> dict[int, tuple[list[dict[str, Any]], list[str], float, float, dict[Any, Any]]]:
    """Run ``tasks`` in this process or in ``jobs`` workers; task index -> (rows, notes, wall s, CPU s,
    pieces), ``reduce(rows)`` called on each task's rows as they arrive."""
    bar = _progress(n_strategies, show_progress)
    done: dict[int, Any] = {}
    try:
        if jobs == 1:
            context = _context(state, pretok, show_progress)
            with rare_collections():
                for k, task in enumerate(tasks):
                    done[k] = _timed_task(task, context, bar=bar, segmenters=segmenters)
                    reduce(done[k][0])
        else:
            done = _run_pool(tasks, state, jobs, bar, reduce)
    finally:
        bar.close()
    return done


def _context(state: State, pretok: _Pretok | None = None, show_progress: Any = False) -> Context:
    """What :func:`_run_task` reads: ``state`` (plain data) plus this process's pre-tokenizations,
    the peers module and the model cache."""
    from dataclasses import fields

    peers_module = None
    if state.peers_ok:
        from . import peers as peers_module
    cache = None
    if state.model_cache_dir is not None:
        from .model_cache import ModelCache

        cache = ModelCache(state.model_cache_dir)
    return Context(**{f.name: getattr(state, f.name) for f in fields(State)},
                   pretok=pretok if pretok is not None else _Pretok(state.train, state.held.texts),
                   peers=peers_module, model_cache=cache, show_progress=show_progress)


def _run_task(names: list[str], ctx: Context, *, bar: Any = None,
              segmenters: dict[tuple[str, int], Segmenter] | None = None) -> list[dict[str, Any]]:
    """The rows of ``names`` (one task), measured in this process; skips go to ``ctx.notes``."""
    rows: list[dict[str, Any]] = []
    for name in names:
        rows += _run_strategy(name, ctx, bar=bar, segmenters=segmenters)
    return rows


def _run_strategy(name: str, ctx: Context, *, bar: Any = None,
                  segmenters: dict[tuple[str, int], Segmenter] | None = None) -> list[dict[str, Any]]:
    """The rows of one strategy (one per size), measured in this process."""
    held, pretok, train = ctx.held, ctx.pretok, ctx.train
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
        row = _measure(seg, held, encoded=encoded, train_encoded=_pick(train_encoded, ctx.probe_pos),
                       train_labels=_pick(ctx.train_labels, ctx.probe_pos), lossy=lossy, seed=ctx.seed,
                       spans_fixed=spans_fixed, layout=layout, char_words=char_words, spans=spans)
        if ctx.downstream is not None and train_encoded is not None and held.labels is not None:
            row |= _downstream_row(f"{name} {size:,}", train_encoded, encoded, ctx)
        rows.append(row | extra | {
            "strategy": name, "kind": strategy.kind, "pre_tokenizer": seg.pre_tokenizer, "unit": seg.unit,
            "lossless": bool(seg.lossless), "drops_text": lossy, "vocab_size": size,
            "gold": held.gold_name, "self_graded": bool(held.gold_name) and held.gold_name in (strategy.analyzer, strategy.trained_on),
            "encode_texts_per_s": _row_throughput(seg, strategy, pretok, held),
            "train_docs": len(train), "test_docs": len(held.texts),
        })
    if largest is not None and ctx.pieces_texts:
        size, seg = largest
        ctx.pieces[(name, size)] = {text: seg.pieces(text) for text in ctx.pieces_texts}
    _advance(bar)
    return rows


def _pick(items: list[Any] | None, positions: list[int] | None) -> list[Any] | None:
    """``items`` at ``positions`` (all of them for None positions; None for None items)."""
    if items is None or positions is None:
        return items
    return [items[k] for k in positions]


def _downstream_row(what: str, train_encoded: list[list[int]], encoded: list[list[int]],
                    ctx: Context) -> dict[str, Any]:
    """The downstream columns of one row (:func:`korean_bpe.compare.downstream.evaluate`), with a
    bar of its epochs when this process shows progress."""
    from ..progress import start_progress
    from .downstream import evaluate

    settings = ctx.downstream
    bar = start_progress(ctx.show_progress, total=settings.seeds * settings.epochs, desc=f"downstream {what}",
                         unit="epoch")
    try:
        return evaluate(_pick(train_encoded, ctx.downstream_pos), _pick(ctx.train_labels, ctx.downstream_pos),
                        encoded, ctx.held.labels, settings=settings, seed=ctx.seed, progress=bar)
    finally:
        bar.close()


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


def _timed_task(names: list[str], ctx: Context, *, bar: Any = None,
                segmenters: dict[tuple[str, int], Segmenter] | None = None,
                ) -> tuple[list[dict[str, Any]], list[str], float, float, dict[Any, Any]]:
    """(rows, notes, wall s, CPU s, pieces) of one task; the pre-tokenizations it read are then
    released (tasks share none: :func:`_tasks` groups the strategies of a pre-tokenizer)."""
    ctx.notes, ctx.pieces = [], {}
    wall, cpu = time.perf_counter(), time.process_time()
    rows = _run_task(names, ctx, bar=bar, segmenters=segmenters)
    took = (time.perf_counter() - wall, time.process_time() - cpu)
    ctx.pretok.forget({_parse(n).source for n in names} - {""})
    return rows, ctx.notes, *took, ctx.pieces


_WORKER: list[Context] = []  # a worker process's context (set by _worker_init)


def _worker_init(state: State) -> None:
    _raise_gc_thresholds()  # for the worker's life: the process is ours
    _WORKER[:] = [_context(state)]


def _worker_run(names: list[str]) -> tuple[list[dict[str, Any]], list[str], float, float, dict[Any, Any]]:
    return _timed_task(names, _WORKER[0])


def _run_pool(tasks: list[list[str]], state: State, jobs: int, bar: Any, reduce: Any) -> dict[int, Any]:
    """Run ``tasks`` in ``jobs`` spawned worker processes, the longest (by :data:`_TASK_COST`) first;
    task index -> (rows, notes, wall s, CPU s, pieces), ``reduce(rows)`` on each as it arrives.  Each worker receives ``state`` once and keeps its own analyzers
    and pre-tokenizations; the analyses meet in the on-disk caches (SQLite, concurrent-safe)."""
    from concurrent.futures import as_completed

    from ..pre_tokenizers.executor import end_pool, spawn_pool

    order = sorted(range(len(tasks)), key=lambda k: (-_TASK_COST.get(_task_key(tasks[k]), 30), k))
    done: dict[int, Any] = {}
    # the workers end with this process, and with an error, a Ctrl-C or the CLI's SIGTERM here
    with spawn_pool(min(jobs, len(tasks)), initializer=_worker_init, initargs=(state,), scoped=True) as pool:
        try:
            futures = {pool.submit(_worker_run, tasks[k]): k for k in order}
            for future in as_completed(futures):
                k = futures[future]
                done[k] = future.result()
                reduce(done[k][0])
                bar.update(len(tasks[k]))
        except BaseException:
            end_pool(pool)
            raise
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
    texts = [_line_breaks_as_spaces(t) for t in texts]
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
        test = [_line_breaks_as_spaces(eval_texts[i]) for i in keep]
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


def _progress(total: int, show: Any) -> Any:
    from ..progress import start_progress

    return start_progress(show, total=total, desc="strategies", unit="strategy")


def _advance(bar: Any) -> None:
    if bar is not None:  # None: a worker process (the parent shows the progress)
        bar.update(1)


def _describe(bar: Any, text: str) -> None:
    if bar is not None:
        bar.note(text)
