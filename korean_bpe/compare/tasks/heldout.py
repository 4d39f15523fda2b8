"""The held-out measurements as a task: sequence length, coverage, morpheme boundaries, vocabulary
shape and round trips of each row on the held-out documents (:func:`korean_bpe.compare.measure.measure_heldout`),
with their bootstrap replicates."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from .. import columns, stats
from ..measure import measure_heldout
from ..rows import Measured, RowInput
from .base import BaseTask, register_task

__all__ = ["HeldOutTask"]


@register_task("heldout")
class HeldOutTask(BaseTask):
    """Every metric of :data:`korean_bpe.compare.columns.TABLE` measured on the held-out documents;
    the ratio metrics and the Rényi efficiency get intervals from the documents' parts
    (:func:`korean_bpe.compare.stats.row_replicates`)."""

    name = "heldout"
    metrics = tuple(m for m in columns.INTERVAL_METRICS if m in stats.RATIOS or m == "renyi_efficiency")

    def measure(self, row: RowInput) -> Measured:
        measured, parts = measure_heldout(row)
        return Measured(measured, evidence=parts)

    def replicates(self, evidence: Any, *, point: Mapping[str, Any], resamples: int, seed: int) -> dict[str, Any]:
        return stats.row_replicates(evidence, point, resamples=resamples, seed=seed, renyi=point["renyi_efficiency"])
