"""The verdict of a comparison: for each family of metrics and each vocabulary size, the best strategy
and the strategies not significantly different from it.

The families, in the order the reports show them (:data:`FAMILIES`): downstream accuracy (a model
trained on the tokens; first, when it was measured), the order-blind probe, morpheme-boundary F1
(the rows graded by their own analyzer left out) and the sequence length (tokens per 어절).  In each,
the best row is the one with the best value (ties: the earlier row of the table); every other row is
compared with it by the metric's paired test on the same resamples (the paired bootstrap of
:func:`~korean_bpe.compare.stats.paired_p`, McNemar's exact test for the probe), and the p-values of
a family and size are adjusted for the number of comparisons with Holm's step-down method
(:func:`~korean_bpe.compare.stats.holm`).  A row whose adjusted p is at least ``alpha`` is "not significantly different from
the best": the strategies a reader cannot tell apart from the best on this data.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from . import columns, stats
from .rows import Row
from .tasks import Task, paired_p

__all__ = ["FAMILIES", "Verdict", "verdicts", "format_verdicts"]

#: family name -> the metric that decides it, in the order the reports show them
FAMILIES: dict[str, str] = {
    "downstream": "downstream_accuracy",
    "probe (order-blind)": "probe_accuracy",
    "morpheme boundaries": "morph_f1",
    "sequence length": "tokens_per_word",
}


@dataclass(frozen=True)
class Verdict:
    """The verdict of one family at one vocabulary size."""

    family: str
    metric: str
    vocab_size: int
    best: str
    value: float
    #: the strategies not significantly different from ``best`` (Holm-adjusted p >= alpha), best first
    tied: tuple[str, ...]
    #: strategy -> its Holm-adjusted p-value against ``best``
    adjusted_p: dict[str, float]
    #: the rows compared (``best`` included)
    compared: int
    #: the metric's column, for a task's own metric (None: :func:`korean_bpe.compare.columns.by_name`)
    column: columns.Column | None = None

    def shown(self) -> str:
        """The best value as the reports show it (a rate as a percentage)."""
        column = self.column or columns.by_name(self.metric)
        return column.shown(self.value) + ("%" if column.unit == "%" else "")


def verdicts(rows: Sequence[Row], tasks: Sequence[Task], *, alpha: float) -> list[Verdict]:
    """The verdicts of the measured ``rows`` (as :func:`~korean_bpe.compare.assemble.build_frame`
    leaves them: with their replicates, and the evidence of the tasks that keep it), per family
    of :data:`FAMILIES` and of the tasks' ``verdict`` families measured in some row, per vocabulary size; the p-values are the tests of
    the ``tasks`` that measure each metric (:func:`korean_bpe.compare.tasks.paired_p`); none for a
    family whose rows have no resamples (``Statistics(resamples=0)``)."""
    out = []
    own = {c.name: c for task in tasks for c in task.columns}  # the tasks' own metrics
    families = [*FAMILIES.items(), *((family, metric) for task in tasks for family, metric in task.verdict)]
    for family, metric in families:
        column = own.get(metric) or columns.by_name(metric)
        for size in sorted({row.vocab_size for row in rows}):
            candidates = [row for row in rows if row.vocab_size == size and _number(row.columns.get(metric))
                          and not (metric == "morph_f1" and row.columns.get("self_graded"))]
            if len(candidates) < 2:
                continue
            sign = -1 if column.direction == "lower" else 1
            best = max(candidates, key=lambda row: sign * row.columns[metric])  # max keeps the first of equals
            others = [row for row in candidates if row is not best]
            raw = [paired_p(metric, row, best, tasks) for row in others]
            if all(math.isnan(p) for p in raw):
                continue
            adjusted = stats.holm(raw)
            tied = tuple(row.strategy for row, p in zip(others, adjusted) if not math.isnan(p) and p >= alpha)
            out.append(Verdict(family, metric, size, best.strategy, float(best.columns[metric]),
                               (best.strategy, *tied), {row.strategy: p for row, p in zip(others, adjusted)},
                               len(candidates), own.get(metric)))
    return out


def _number(value: Any) -> bool:
    return isinstance(value, (int, float)) and not math.isnan(value)


def format_verdicts(found: Sequence[Verdict], *, alpha: float, width: int = 100) -> str:
    """The verdicts as text, one paragraph a family and size, wrapped to ``width`` columns."""
    import textwrap

    lines = []
    for v in found:
        shown = v.shown()
        others = ", ".join(v.tied[1:]) or "none"
        text = (f"{v.family} at {v.vocab_size:,} ({v.metric}): best {v.best} ({shown}); not significantly "
                f"different from it (Holm-adjusted p >= {alpha:g}, {v.compared - 1} "
                f"comparison{'s' if v.compared > 2 else ''}): {others}")
        lines.append(textwrap.fill(text, width, subsequent_indent="    "))
    return "\n".join(lines)
