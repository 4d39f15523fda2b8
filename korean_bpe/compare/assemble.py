"""From measured rows to the comparison table: bootstrap intervals, the paired comparison against
each row's reference, identical rows, the frame with :data:`~korean_bpe.compare.columns.COLUMNS`
(and the columns of any task beyond the built-in ones).

A row reaches this stage as a :class:`~korean_bpe.compare.rows.Row`: its columns, and each task's
evidence.  :func:`reduce_rows` turns the evidence into the row's replicates (each metric on each
resample, :meth:`korean_bpe.compare.tasks.Task.replicates`) as soon as a group's rows arrive, so
the held-out documents' matrices never pile up; :func:`build_frame` does the rest once every row is in.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from typing import TYPE_CHECKING, Any

from . import columns, stats
from .rows import Row
from .tasks import Task, paired_p

if TYPE_CHECKING:  # pragma: no cover
    import pandas as pd

__all__ = ["reduce_rows", "build_frame"]


def reduce_rows(rows: list[Row], tasks: Sequence[Task], *, resamples: int, seed: int) -> None:
    """Each row's evidence made into its replicates: metric -> its values on the ``resamples``
    resamples of ``seed`` (each task's :meth:`~korean_bpe.compare.tasks.Task.replicates`; none when
    ``resamples`` is 0); the evidence is then released, but that of the tasks that keep it for
    their paired test."""
    for row in rows:
        for task in tasks:
            evidence = row.evidence.get(task.name)
            if evidence is not None and resamples:
                row.replicates.update(task.replicates(evidence, point=row.columns, resamples=resamples, seed=seed))
            if not task.keeps_evidence:
                row.evidence.pop(task.name, None)


def build_frame(rows: list[Row], tasks: Sequence[Task], *, confidence: float, reference: str | None,
                notes: list[str], resamples: int | None = None) -> pd.DataFrame:
    """The table of ``rows`` (reduced by :func:`reduce_rows`): each interval metric's bounds,
    p-value (the test of the task that measures it, :func:`korean_bpe.compare.tasks.paired_p`) and
    Holm-adjusted p-value (each metric a family: its p-values over the rows,
    :func:`~korean_bpe.compare.stats.holm`), ``reference``, ``same_as``; a note for each set of
    identical rows, for a missing reference and, given the run's ``resamples``, for a metric whose
    bootstrap p-value floor (:func:`~korean_bpe.compare.stats.p_floor`) times its tests keeps every
    adjusted p at or above ``1 - confidence`` (appended to ``notes``).  The columns are
    :data:`~korean_bpe.compare.columns.COLUMNS`, then those the tasks add
    (:func:`korean_bpe.compare.columns.task_columns`)."""
    from .._optional import require

    pd = require("pandas")
    extra = [c for task in tasks for c in task.columns]
    interval_metrics = columns.INTERVAL_METRICS + tuple(c.name for c in extra if c.interval)
    _mark_identical(rows, notes)
    _note_sizes_not_reached(rows, notes)
    by_key = {(row.strategy, row.vocab_size): row for row in rows}
    missing: dict[str, tuple[dict[str, None], dict[int, None]]] = {}
    for row in rows:
        name = reference or row.reference
        ref = by_key.get((name, row.vocab_size))
        row.columns["reference"] = name if ref is not None else ""
        if ref is None:
            names, sizes = missing.setdefault(name, ({}, {}))
            names[row.strategy] = sizes[row.vocab_size] = None
        for metric in interval_metrics:
            low, high, p = columns.interval_columns(metric)
            reps = row.replicates.get(metric)
            row.columns[low], row.columns[high] = (math.nan, math.nan) if reps is None else \
                stats.percentile_interval(reps, confidence)
            row.columns[p] = math.nan if ref is None or ref is row else paired_p(metric, row, ref, tasks)
    _adjust(rows, interval_metrics, alpha=1 - confidence, resamples=resamples, notes=notes)
    _note_unlearned(rows, notes)
    for name, (names, sizes) in missing.items():
        notes.append(f"no p-values for {', '.join(names)} at vocab size {', '.join(f'{v:,}' for v in sizes)}: "
                     f"the reference {name} was not measured there (add it to strategies, or choose another reference)")
    names, dtypes = columns.task_columns(extra)
    table = [{c: row.columns.get(c) for c in names} for row in rows]
    return pd.DataFrame(table, columns=list(names)).astype(dtypes)


def _adjust(rows: list[Row], metrics: Sequence[str], *, alpha: float, resamples: int | None,
            notes: list[str]) -> None:
    """Each row's ``<metric>_p_holm``: Holm over the metric's p-values of every row; a note where the
    bootstrap's floor makes a significant adjusted p impossible."""
    short: list[str] = []
    for metric in metrics:
        p = columns.interval_columns(metric)[2]
        adjusted = stats.holm([row.columns[p] for row in rows])
        for row, value in zip(rows, adjusted):
            row.columns[columns.adjusted_column(metric)] = value
        tests = sum(not math.isnan(row.columns[p]) for row in rows)
        if resamples and metric != "probe_accuracy" and tests and tests * stats.p_floor(resamples) >= alpha:
            short.append(metric)
    if short:
        tests = max(sum(not math.isnan(row.columns[columns.interval_columns(m)[2]]) for row in rows) for m in short)
        need = math.ceil(2 * tests / alpha)
        notes.append(f"{resamples:,} resamples cannot show a significant difference in {', '.join(short)} after "
                     f"Holm's correction: the smallest bootstrap p-value is 2/(resamples + 1) = "
                     f"{stats.p_floor(resamples):.2g} and {tests} tests multiply it past {alpha:g}; give "
                     f"resamples >= {need:,} to make it possible")


#: the columns two identical rows may differ in: what they cost, and how the model was obtained
_OWN = frozenset({"strategy", "kind", "pre_tokenizer", "unit", "lossless", "drops_text", "train_s", "pretok_s",
                  "encode_texts_per_s", "model_cached", "self_graded", "downstream_s"})


def _note_sizes_not_reached(rows: Sequence[Row], notes: list[str]) -> None:
    """One note per size that some row's vocabulary stopped short of (by more than the verdict's
    slack, :data:`korean_bpe.compare.verdict.SIZE_SLACK`), naming the rows and the sizes they reached;
    the baselines, whose vocabulary is what the corpus holds, are not named."""
    from numbers import Integral

    from .verdict import SIZE_SLACK

    short: dict[int, list[str]] = {}
    for row in rows:
        reached = row.columns.get("actual_vocab_size")
        if row.columns.get("kind") != "baseline" and isinstance(reached, Integral) and reached < SIZE_SLACK * row.vocab_size:
            short.setdefault(row.vocab_size, []).append(f"{row.strategy} {int(reached):,}")
    for size, names in short.items():
        notes.append(f"vocabulary size {size:,} not reached (the corpus ran out of merges, or the trainer stopped "
                     f"short): {', '.join(names)}; these rows are smaller models than the size says and are not "
                     "candidates in the verdict (ask for sizes the corpus supports)")


def _note_unlearned(rows: Sequence[Row], notes: list[str]) -> None:
    """One note per task and size where some row's model learned nothing
    (:func:`korean_bpe.compare.verdict.unlearned`: a classifier giving one class for every held-out
    document, or an accuracy interval reaching down to always predicting the most frequent training
    label; a task's own words, ``<task>_unlearned``), naming the rows; the verdict leaves them out of
    the task's families."""
    from .verdict import unlearned

    found: dict[tuple[str, int], list[str]] = {}
    for row in rows:
        for task in unlearned(row.columns):
            found.setdefault((task, row.vocab_size), []).append(row.strategy)
    for (task, size), names in found.items():
        own = {row.columns.get(f"{task}_unlearned") for row in rows if row.vocab_size == size and row.strategy in names}
        if own - {None, ""}:  # the task's own words
            notes.append(f"{task} at vocabulary size {size:,}: the model of {', '.join(names)} learned nothing "
                         f"({'; '.join(sorted(own - {None, ''}))}); these rows are left out of the verdict on its "
                         "scores; give it more training data or more epochs")
            continue
        chance = {row.columns.get(f"{task}_chance") for row in rows if row.vocab_size == size and row.strategy in names}
        shown = f" ({next(iter(chance)):.2%} of the held-out documents)" if len(chance) == 1 else ""
        notes.append(f"{task} at vocabulary size {size:,}: the classifier of {', '.join(names)} learned nothing: it "
                     "predicts one class for every document, or its accuracy is not surely above that of always "
                     f"predicting the most frequent training label{shown}; these rows are left out of the verdict on its scores "
                     "(and an accuracy drop under noise measured with it means little); give it more training "
                     "documents (the shipped sample has 8,000) or more epochs (--downstream-epochs)")


def _mark_identical(rows: Sequence[Row], notes: list[str]) -> None:
    """``same_as`` of each row: the first earlier row of its size with the same ids on every held-out
    document (``tokens_hash``) and the same metrics, else ``""``; one note per pair of strategies."""
    first: dict[tuple[int, str], Row] = {}
    pairs: dict[tuple[str, str], list[int]] = {}
    for row in rows:
        key = (row.vocab_size, row.tokens_hash)
        earlier = first.setdefault(key, row) if key[1] else row
        same = earlier is not row and all(_equal(row.columns.get(c), earlier.columns.get(c)) for c in columns.TABLE_NAMES
                                          if c not in _OWN and c in row.columns)
        row.columns["same_as"] = earlier.strategy if same else ""
        if same:
            pairs.setdefault((row.strategy, earlier.strategy), []).append(row.vocab_size)
    for (name, earlier_name), sizes in pairs.items():
        notes.append(f"{name} gives the same ids as {earlier_name} on every held-out document at vocab size "
                     f"{', '.join(f'{s:,}' for s in sizes)}: identical rows (same_as), drawn on top of each other")


def _equal(a: Any, b: Any) -> bool:
    """Equal values, NaN equal to NaN."""
    return a == b or (isinstance(a, float) and isinstance(b, float) and math.isnan(a) and math.isnan(b))
