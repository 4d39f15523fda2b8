"""Running the rows of a comparison: each strategy trained and every task run on each of its sizes
(:func:`measure_strategy`), the strategies in groups (:func:`korean_bpe.compare.training.groups`)
in this process or in spawned worker processes (:func:`run_groups`), with the cyclic garbage
collector running less often meanwhile (:func:`rare_collections`)."""

from __future__ import annotations

import contextlib
import gc
import time
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from typing import Any

from .plan import Plan, Workspace
from .rows import Row, RowInput
from .segmenters import Segmenter
from .measure import tokens_hash
from .training import GROUP_COST, Strategy, Trained, strategy

__all__ = ["GroupResult", "measure_strategy", "run_groups", "rare_collections", "GC_THRESHOLDS"]


@dataclass
class GroupResult:
    """What one group of strategies gave: its rows, its notes, its wall and CPU seconds, and the
    pieces of the ``pieces_texts`` at each strategy's largest size."""

    rows: list[Row] = field(default_factory=list)
    notes: list[str] = field(default_factory=list)
    wall_s: float = 0.0
    cpu_s: float = 0.0
    pieces: dict[tuple[str, int], dict[str, list[tuple[str, int, int]]]] = field(default_factory=dict)


def measure_strategy(s: Strategy, ws: Workspace, *,
                     segmenters: dict[tuple[str, int], Segmenter] | None = None) -> GroupResult:
    """The rows of strategy ``s`` (one per size it reaches), every task of the plan run on each, in
    this process; what was skipped, and the tasks' notes, in the result's notes.  ``segmenters``,
    a dict: each row's segmenter is kept there under ``(strategy, size)``."""
    plan = ws.plan
    held = plan.held
    out = GroupResult()
    shared: dict[str, Any] | None = {} if s.sizes_share_spans else None
    largest: Trained | None = None
    for trained in s.train(ws, out.notes):
        largest = trained  # sizes come in ascending order
        seg = trained.segmenter
        if segmenters is not None:
            segmenters[(s.name, trained.vocab_size)] = seg
        layout, char_words = s.word_inputs(ws, seg)
        given = RowInput(s.name, trained.vocab_size, seg, held, trained.encoded, trained.spans, plan.seed,
                         drops_text=s.drops_text, labelled=plan.labelled, train_ids=trained.train_ids, layout=layout,
                         char_words=char_words, spans_by_size=shared, show_progress=ws.show_progress,
                         train_texts=plan.train, across_rows=ws.across_rows,
                         model_cache=ws.model_cache)
        columns: dict[str, Any] = {}
        evidence: dict[str, Any] = {}
        for task in plan.tasks:
            measured = task.measure(given)
            if measured is None:
                continue
            columns |= measured.columns
            evidence[task.name] = measured.evidence
            out.notes.extend(measured.notes)
        columns |= trained.columns | {
            "strategy": s.name, "kind": s.kind, "pre_tokenizer": seg.pre_tokenizer, "unit": seg.unit,
            "lossless": bool(seg.lossless), "drops_text": s.drops_text, "vocab_size": trained.vocab_size,
            "gold": held.gold_name, "self_graded": s.self_graded(held.gold_name),
            "encode_texts_per_s": s.encode_rate(ws, seg),
            "train_docs": len(plan.train), "test_docs": len(held.texts),
        }
        out.rows.append(Row(columns, evidence, tokens_hash=tokens_hash(trained.vocab_size, trained.encoded,
                                                                       given.flat_ids),
                            reference=s.reference(seg.unit)))
    if largest is not None and plan.pieces_texts:
        out.pieces[(s.name, largest.vocab_size)] = {text: largest.segmenter.pieces(text) for text in plan.pieces_texts}
    return out


def run_group(names: list[str], ws: Workspace, *, bar: Any = None,
              segmenters: dict[tuple[str, int], Segmenter] | None = None) -> GroupResult:
    """The rows of one group of strategies in this process, timed; the pre-tokenizations it read
    are then released (groups share none)."""
    out = GroupResult()
    wall, cpu = time.perf_counter(), time.process_time()
    strategies = [strategy(name) for name in names]
    for s in strategies:
        if bar is not None:
            bar.note(s.name)
        got = measure_strategy(s, ws, segmenters=segmenters)
        out.rows += got.rows
        out.notes += got.notes
        out.pieces |= got.pieces
        if bar is not None:
            bar.update(1)
    out.wall_s, out.cpu_s = time.perf_counter() - wall, time.process_time() - cpu
    ws.pretok.forget({s.source for s in strategies} - {""})
    return out


def run_groups(groups: list[list[str]], ws: Workspace, *, jobs: int, bar: Any,
               segmenters: dict[tuple[str, int], Segmenter] | None,
               reduce: Callable[[list[Row]], None]) -> dict[int, GroupResult]:
    """Run ``groups`` in this process (``jobs`` 1) or in ``jobs`` spawned workers; group index -> its
    result, ``reduce(rows)`` called on each group's rows as they arrive."""
    done: dict[int, GroupResult] = {}
    if jobs == 1:
        with rare_collections():
            for k, names in enumerate(groups):
                done[k] = run_group(names, ws, bar=bar, segmenters=segmenters)
                reduce(done[k].rows)
        return done
    from concurrent.futures import as_completed

    from ..pre_tokenizers.executor import end_pool, spawn_pool

    order = sorted(range(len(groups)), key=lambda k: (-GROUP_COST.get(strategy(groups[k][0]).group, 30), k))
    # the workers end with this process, and with an error, a Ctrl-C or the CLI's SIGTERM here
    with spawn_pool(min(jobs, len(groups)), initializer=_worker_init, initargs=(ws.plan,), scoped=True) as pool:
        try:
            futures = {pool.submit(_worker_run, groups[k]): k for k in order}
            for future in as_completed(futures):
                k = futures[future]
                done[k] = future.result()
                reduce(done[k].rows)
                bar.update(len(groups[k]))
        except BaseException:
            end_pool(pool)
            raise
    return done


_WORKER: list[Workspace] = []  # a worker process's workspace (set by _worker_init)


def _worker_init(plan: Plan) -> None:
    _raise_gc_thresholds()  # for the worker's life: the process is ours
    _WORKER[:] = [Workspace.open(plan)]


def _worker_run(names: list[str]) -> GroupResult:
    return run_group(names, _WORKER[0])


#: :func:`rare_collections`' generation thresholds (Python's defaults: 700, 10, 10)
GC_THRESHOLDS = (50_000, 20, 100)


@contextlib.contextmanager
def rare_collections() -> Iterator[None]:
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
