"""The order-blind probe as a task: a logistic regression on bag-of-token counts
(:func:`korean_bpe.compare.metrics.probe_predictions`), fitted on a seeded sample of the labelled
training documents and scored on the held-out ones; tested against the reference row with
McNemar's exact test on the documents the two rows classify differently."""

from __future__ import annotations

import math
from collections.abc import Mapping
from typing import Any

from .. import metrics, stats
from ..rows import Measured, Row, RowInput
from .base import BaseTask, register_task

__all__ = ["ProbeTask", "PROBE_TRAIN_DOCS"]

#: the labelled training documents the probe is fitted on by default (a seeded sample: seconds a row)
PROBE_TRAIN_DOCS = 20_000


@register_task("probe")
class ProbeTask(BaseTask):
    """``probe_accuracy`` of each row, when the run has labels; ``train_docs``: the probe is fitted
    on a seeded sample of at most this many training documents (the same for every row; None: all)."""

    name = "probe"
    labels = "optional"
    metrics = ("probe_accuracy",)
    keeps_evidence = True  # McNemar's test reads which documents each row gets right

    def __init__(self, train_docs: int | None = PROBE_TRAIN_DOCS) -> None:
        if train_docs is not None and (isinstance(train_docs, bool) or not isinstance(train_docs, int) or train_docs < 1):
            raise ValueError(f"probe_train_docs must be a positive int or None (all), got {train_docs!r}")
        self.train_docs = train_docs

    def measure(self, row: RowInput) -> Measured | None:
        if row.labelled is None or row.held.labels is None:
            return None
        train_ids, train_labels = row.training(self.name)
        predicted = metrics.probe_predictions(train_ids, train_labels, row.encoded, seed=row.seed)
        correct = [int(a) == int(b) for a, b in zip(predicted, row.held.labels)]
        return Measured({"probe_accuracy": metrics.ratio(sum(correct), len(correct))}, evidence=correct)

    def replicates(self, evidence: Any, *, point: Mapping[str, Any], resamples: int, seed: int) -> dict[str, Any]:
        """``probe_accuracy`` on each resample: the share of its documents the probe gets right."""
        import numpy as np

        correct = np.asarray(evidence, dtype=np.float32)
        counts = stats.resample_counts(len(correct), resamples=resamples, seed=seed)
        sums = stats.replicate_sums(np.stack([correct, np.ones_like(correct)], axis=1), counts)
        right, docs = sums[:, 0], sums[:, 1]
        with np.errstate(divide="ignore", invalid="ignore"):
            return {"probe_accuracy": np.where(docs != 0, right / np.where(docs != 0, docs, 1), np.nan)}

    def paired_p(self, metric: str, row: Row, reference: Row) -> float:
        """McNemar's exact test (:func:`korean_bpe.compare.stats.mcnemar_p`)."""
        a, b = row.evidence.get(self.name), reference.evidence.get(self.name)
        return math.nan if a is None or b is None else stats.mcnemar_p(a, b)

    def to_config(self) -> dict[str, Any]:
        return {"probe_train_docs": self.train_docs}

    def __repr__(self) -> str:
        return f"ProbeTask(train_docs={self.train_docs!r})"
