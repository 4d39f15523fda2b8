"""From measured rows to the comparison table: bootstrap intervals, the paired comparison against
each row's reference, identical rows, the frame with :data:`~korean_bpe.compare.columns.COLUMNS`.

A row reaches this stage as the dict :func:`~korean_bpe.compare.measure._measure` made (plus the
strategy's columns), holding three private entries: ``_parts`` (its documents x parts matrix),
``_correct`` (the documents its probe gets right) and ``_tokens_hash``.  :func:`reduce_rows` turns
``_parts`` into ``_replicates`` (each metric on each resample) as soon as a task's rows arrive, so
the matrices never pile up; :func:`build_frame` does the rest once every row is in.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from typing import TYPE_CHECKING, Any

from . import columns, stats
from .strategies import BPE_UNITS

if TYPE_CHECKING:  # pragma: no cover
    import pandas as pd

__all__ = ["reduce_rows", "build_frame", "default_reference"]


def default_reference(unit: str) -> str:
    """The row a row of ``unit`` is compared with (at its own vocabulary size): our whitespace BPE of
    the same unit, of syllables for the rows whose unit BPE has not (baselines of words and
    morphemes, peers).

    >>> default_reference("jamo"), default_reference("morpheme"), default_reference("")
    ('whitespace/jamo', 'whitespace/syllable', 'whitespace/syllable')
    """
    return f"whitespace/{unit}" if unit in BPE_UNITS else "whitespace/syllable"


def reduce_rows(rows: list[dict[str, Any]], *, resamples: int, seed: int) -> None:
    """Replace each row's ``_parts`` (and ``_downstream``) by ``_replicates``: metric -> its values on
    the ``resamples`` resamples of ``seed`` (:func:`~korean_bpe.compare.stats.row_replicates`, and
    :func:`~korean_bpe.compare.stats.seed_document_replicates` for the downstream metrics); none
    when ``resamples`` is 0."""
    for row in rows:
        parts = row.pop("_parts", None)
        row["_replicates"] = {} if parts is None or not resamples else stats.row_replicates(
            parts, row, resamples=resamples, seed=seed, renyi=row["renyi_efficiency"])
        downstream = row.pop("_downstream", None)
        if downstream is not None and resamples:
            row["_replicates"].update(stats.seed_document_replicates(downstream, resamples=resamples, seed=seed))


def build_frame(rows: list[dict[str, Any]], *, confidence: float, reference: str | None,
                notes: list[str], resamples: int | None = None) -> pd.DataFrame:
    """The table of ``rows`` (reduced by :func:`reduce_rows`): each interval metric's bounds,
    p-value and Holm-adjusted p-value (each metric a family: its p-values over the rows,
    :func:`~korean_bpe.compare.stats.holm`), ``reference``, ``same_as``; a note for each set of
    identical rows, for a missing reference and, given the run's ``resamples``, for a metric whose
    bootstrap p-value floor (:func:`~korean_bpe.compare.stats.p_floor`) times its tests keeps every
    adjusted p at or above ``1 - confidence`` (appended to ``notes``)."""
    from .._optional import require

    pd = require("pandas")
    _mark_identical(rows, notes)
    by_key = {(row["strategy"], row["vocab_size"]): row for row in rows}
    missing: dict[str, tuple[dict[str, None], dict[int, None]]] = {}
    for row in rows:
        name = reference or default_reference(row["unit"])
        ref = by_key.get((name, row["vocab_size"]))
        row["reference"] = name if ref is not None else ""
        if ref is None:
            names, sizes = missing.setdefault(name, ({}, {}))
            names[row["strategy"]] = sizes[row["vocab_size"]] = None
        for metric in columns.INTERVAL_METRICS:
            low, high, p = columns.interval_columns(metric)
            reps = row["_replicates"].get(metric)
            row[low], row[high] = (math.nan, math.nan) if reps is None else stats.percentile_interval(reps, confidence)
            row[p] = math.nan if ref is None or ref is row else _p_value(metric, row, ref)
    _adjust(rows, alpha=1 - confidence, resamples=resamples, notes=notes)
    for name, (names, sizes) in missing.items():
        notes.append(f"no p-values for {', '.join(names)} at vocab size {', '.join(f'{v:,}' for v in sizes)}: "
                     f"the reference {name} was not measured there (add it to strategies, or choose another reference)")
    table = [{c: row.get(c) for c in columns.COLUMNS} for row in rows]
    return pd.DataFrame(table, columns=list(columns.COLUMNS)).astype(columns.DTYPES)


def _adjust(rows: list[dict[str, Any]], *, alpha: float, resamples: int | None, notes: list[str]) -> None:
    """Each row's ``<metric>_p_holm``: Holm over the metric's p-values of every row; a note where the
    bootstrap's floor makes a significant adjusted p impossible."""
    short: list[str] = []
    for metric in columns.INTERVAL_METRICS:
        p = columns.interval_columns(metric)[2]
        adjusted = stats.holm([row[p] for row in rows])
        for row, value in zip(rows, adjusted):
            row[columns.adjusted_column(metric)] = value
        tests = sum(not math.isnan(row[p]) for row in rows)
        if resamples and metric != "probe_accuracy" and tests and tests * stats.p_floor(resamples) >= alpha:
            short.append(metric)
    if short:
        tests = max(sum(not math.isnan(row[columns.interval_columns(m)[2]]) for row in rows) for m in short)
        need = math.ceil(2 * tests / alpha)
        notes.append(f"{resamples:,} resamples cannot show a significant difference in {', '.join(short)} after "
                     f"Holm's correction: the smallest bootstrap p-value is 2/(resamples + 1) = "
                     f"{stats.p_floor(resamples):.2g} and {tests} tests multiply it past {alpha:g}; give "
                     f"resamples >= {need:,} to make it possible")


def _p_value(metric: str, row: dict[str, Any], ref: dict[str, Any]) -> float:
    """``metric``'s p-value of ``row`` against ``ref``: McNemar for the probe, else the paired bootstrap."""
    if metric == "probe_accuracy":
        if row.get("_correct") is None or ref.get("_correct") is None:
            return math.nan
        return stats.mcnemar_p(row["_correct"], ref["_correct"])
    a, b = row["_replicates"].get(metric), ref["_replicates"].get(metric)
    return math.nan if a is None or b is None else stats.paired_p(a, b)


#: the columns two identical rows may differ in: what they cost, and how the model was obtained
_OWN = frozenset({"strategy", "kind", "pre_tokenizer", "unit", "lossless", "drops_text", "train_s", "pretok_s",
                  "encode_texts_per_s", "model_cached", "self_graded", "downstream_s"})


def _mark_identical(rows: Sequence[dict[str, Any]], notes: list[str]) -> None:
    """``same_as`` of each row: the first earlier row of its size with the same ids on every held-out
    document (``_tokens_hash``) and the same metrics, else ``""``; one note per pair of strategies."""
    first: dict[tuple[int, str], dict[str, Any]] = {}
    pairs: dict[tuple[str, str], list[int]] = {}
    for row in rows:
        key = (row["vocab_size"], row.get("_tokens_hash", ""))
        earlier = first.setdefault(key, row) if key[1] else row
        same = earlier is not row and all(_equal(row.get(c), earlier.get(c)) for c in columns.TABLE_NAMES
                                          if c not in _OWN and c in row)
        row["same_as"] = earlier["strategy"] if same else ""
        if same:
            pairs.setdefault((row["strategy"], earlier["strategy"]), []).append(row["vocab_size"])
    for (name, earlier), sizes in pairs.items():
        notes.append(f"{name} gives the same ids as {earlier} on every held-out document at vocab size "
                     f"{', '.join(f'{s:,}' for s in sizes)}: identical rows (same_as), drawn on top of each other")


def _equal(a: Any, b: Any) -> bool:
    """Equal values, NaN equal to NaN."""
    return a == b or (isinstance(a, float) and isinstance(b, float) and math.isnan(a) and math.isnan(b))
