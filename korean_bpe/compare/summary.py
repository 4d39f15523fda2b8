"""One verdict across tasks: the rows x tasks ranks, each row's mean rank with a bootstrap interval, and
how far the tasks agree (Kendall's W).

The tasks are the families of the verdict that a model trained on the tokens decides: the downstream
classifier (:data:`korean_bpe.compare.verdict.EVIDENCE`'s first) and each task's own families
(``Task.verdict``: hate speech, entity boundaries, language modelling, noise stability...), the first
metric of each; the order-blind probe and the intrinsic families are not tasks.  The rows are the
candidates of the verdict at that size (:func:`korean_bpe.compare.verdict.not_a_candidate`: no
reference points, no row short of its size) that have a value in every task (the scores of a classifier
that learned nothing are no value: :func:`korean_bpe.compare.verdict.unlearned`).

Ranks: per task, 1 for the best value (the column's ``direction``), ties sharing the mean of their
ranks.  The mean rank of a row is the mean of its ranks over the tasks; its interval is the
percentile interval of the mean rank recomputed on each bootstrap replicate (each task's replicates
are the same resampled documents for every row, so a replicate ranks the rows as the data would
have on that resample; tasks with fewer replicates bound the count).  Kendall's W (coefficient of
concordance, no tie correction) is ``12 S / (m² (n³ − n))`` for ``m`` tasks ranking ``n`` rows,
``S`` the sum of squared deviations of the rows' rank sums from their mean: 1 when every task
ranks the rows alike, 0 when the rank sums are all equal; its p-value is Friedman's chi-square,
``m (n − 1) W`` on ``n − 1`` degrees of freedom.

>>> kendalls_w([[1, 2, 3], [1, 2, 3]]), kendalls_w([[1, 2, 3], [3, 2, 1]])
(1.0, 0.0)
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from . import columns
from .rows import Row
from .tasks import Task
from .verdict import EVIDENCE, FAMILIES, Choice, not_a_candidate, unlearned

__all__ = ["TaskSummary", "summarize", "place_choices", "ranks", "kendalls_w", "format_summary"]


@dataclass(frozen=True)
class TaskSummary:
    """The rows x tasks summary at one vocabulary size (see the module docstring)."""

    vocab_size: int
    #: (family, metric) of each task, in the verdict's order
    tasks: tuple[tuple[str, str], ...]
    #: the rows ranked, by mean rank (best first; ties: table order)
    strategies: tuple[str, ...]
    #: strategy -> its rank in each task (the order of ``tasks``)
    ranks: dict[str, tuple[float, ...]]
    #: strategy -> its mean rank, and the interval of it over the bootstrap replicates (NaN: none)
    mean_rank: dict[str, float]
    interval: dict[str, tuple[float, float]]
    #: Kendall's W of the tasks over the rows, and its p-value (Friedman's chi-square)
    w: float
    w_p: float
    #: bootstrap replicates the intervals rest on (0: none)
    replicates: int

    def frame(self) -> Any:
        """The rows x tasks ranks as a pandas frame (a column a task's metric, then ``mean rank``),
        the rows by mean rank, best first: what the report's heatmap draws."""
        import pandas as pd

        return pd.DataFrame([[*self.ranks[name], self.mean_rank[name]] for name in self.strategies],
                            index=list(self.strategies),
                            columns=[*(metric for _, metric in self.tasks), "mean rank"], dtype="float64")

    def agreement(self) -> str:
        """One sentence on how far the tasks agree, said plainly when they do not.

        >>> TaskSummary(8000, (("a", "x"), ("b", "y")), ("r",), {}, {}, {}, 0.12, 0.8, 0).agreement()
        "the tasks disagree on the order of the rows (Kendall's W 0.12, p 0.8): choose by the task that matters to you"

        A high W that is not significant (3 rows, 2 tasks: even W 1 has p 0.14) is not a disagreement:

        >>> TaskSummary(8000, (("a", "x"), ("b", "y")), ("r", "s", "t"), {}, {}, {}, 1.0, 0.14, 0).agreement()
        "the tasks order the rows alike (Kendall's W 1.00, p 0.14), but 3 rows and 2 tasks are too few to tell that from chance"
        """
        w = f"Kendall's W {self.w:.2f}, p {self.w_p:.2g}"
        if math.isnan(self.w):
            return "one row: nothing to agree on"
        if self.w_p < 0.05 and self.w >= 0.5:
            return f"the tasks agree on the order of the rows ({w})"
        if self.w_p < 0.05:
            return f"the tasks agree on the order of the rows only in part ({w})"
        if self.w >= 0.5:
            return (f"the tasks order the rows alike ({w}), but {len(self.strategies)} rows and {len(self.tasks)} "
                    "tasks are too few to tell that from chance")
        return f"the tasks disagree on the order of the rows ({w}): choose by the task that matters to you"


def ranks(values: Sequence[float], *, lower_is_better: bool = False) -> list[float]:
    """Ranks of ``values``, 1 the best, ties sharing the mean of their ranks.

    >>> ranks([0.8, 0.9, 0.8]), ranks([2.1, 1.4], lower_is_better=True)
    ([2.5, 1.0, 2.5], [2.0, 1.0])
    """
    order = sorted(range(len(values)), key=lambda i: values[i] if lower_is_better else -values[i])
    out = [0.0] * len(values)
    k = 0
    while k < len(order):
        j = k
        while j + 1 < len(order) and values[order[j + 1]] == values[order[k]]:
            j += 1
        for i in order[k:j + 1]:
            out[i] = (k + j) / 2 + 1
        k = j + 1
    return out


def kendalls_w(task_ranks: Sequence[Sequence[float]]) -> float:
    """Kendall's W of ``task_ranks`` (one list of ranks per task, the rows in the same order)."""
    m, n = len(task_ranks), len(task_ranks[0])
    if n < 2 or m < 2:
        return math.nan
    sums = [sum(r[i] for r in task_ranks) for i in range(n)]
    mean = sum(sums) / n
    s = sum((x - mean) ** 2 for x in sums)
    return 12 * s / (m * m * (n ** 3 - n))


def place_choices(choices: Sequence[Choice], found: Sequence[TaskSummary]) -> list[Choice]:
    """Each choice with where its strategy stands across the tasks at its size (``Choice.across``), so
    that a choice resting on one task's evidence says when the other tasks rank it low: its mean rank
    and interval, and the strategy with the best mean rank when that is another one.

    >>> from korean_bpe.compare.verdict import Choice
    >>> s = TaskSummary(8000, (("a", "x"), ("b", "y")), ("r", "q"), {"r": (1, 1), "q": (2, 2)},
    ...                 {"r": 1.0, "q": 2.0}, {"r": (1.0, 1.5), "q": (1.5, 2.0)}, 1.0, 0.16, 100)
    >>> place_choices([Choice(8000, "q", None, math.nan, (math.nan, math.nan), 2.1, ("r", "q"))], [s])[0].across
    'across the 2 tasks its mean rank is 2.00 [1.50, 2.00] of 2 rows; r ranks best (1.00)'
    """
    import dataclasses

    by_size = {s.vocab_size: s for s in found}
    out = []
    for choice in choices:
        s = by_size.get(choice.vocab_size)
        if s is None or choice.strategy not in s.mean_rank:
            out.append(choice)
            continue
        rank, (low, high) = s.mean_rank[choice.strategy], s.interval[choice.strategy]
        text = f"across the {len(s.tasks)} tasks its mean rank is {rank:.2f}"
        if not math.isnan(low):
            text += f" [{low:.2f}, {high:.2f}]"
        text += f" of {len(s.strategies)} rows"
        best = s.strategies[0]
        text += (f"; {best} ranks best ({s.mean_rank[best]:.2f})" if best != choice.strategy
                 else ", the best")
        out.append(dataclasses.replace(choice, across=text))
    return out


def _scored(row: Row, metric: str) -> bool:
    """Whether the row has a value of ``metric`` that ranks it: a number, not the score of a
    classifier that learned nothing (:func:`korean_bpe.compare.verdict.unlearned`)."""
    return _number(row.columns.get(metric)) and not any(metric.startswith(f"{task}_") for task in unlearned(row.columns))


def summarize(rows: Sequence[Row], tasks: Sequence[Task], *, confidence: float) -> list[TaskSummary]:
    """One :class:`TaskSummary` per vocabulary size with at least two tasks and two candidate rows
    measured in every one of them (see the module docstring); ``[]`` when no size has them."""
    import numpy as np

    from .stats import percentile_interval

    unlabelled = set(FAMILIES) - {EVIDENCE[0]}
    families = [(f, m) for f, m in FAMILIES.items() if f not in unlabelled]
    families += [task.verdict[0] for task in tasks if task.verdict]
    own = {c.name: c for task in tasks for c in task.columns}
    out = []
    for size in sorted({row.vocab_size for row in rows}):
        at = [row for row in rows if row.vocab_size == size and not not_a_candidate(row.columns)]
        measured = [(f, m) for f, m in families if sum(_scored(r, m) for r in at) >= 2]
        at = [r for r in at if all(_scored(r, m) for _, m in measured)]
        if len(measured) < 2 or len(at) < 2:
            continue
        lower = [(own.get(m) or columns.by_name(m)).direction == "lower" for _, m in measured]
        point = [ranks([r.columns[m] for r in at], lower_is_better=lw) for (_, m), lw in zip(measured, lower)]
        reps = [[np.asarray(r.replicates[m], dtype=float) if m in r.replicates else None for r in at]
                for _, m in measured]
        n_reps = 0 if any(x is None for task in reps for x in task) else min(len(x) for task in reps for x in task)
        means = np.full((n_reps, len(at)), np.nan)
        for k in range(n_reps):
            per_task = [ranks([float(x[k]) for x in task], lower_is_better=lw) for task, lw in zip(reps, lower)]
            means[k] = np.mean(per_task, axis=0)
        mean_rank = {r.strategy: float(np.mean([p[i] for p in point])) for i, r in enumerate(at)}
        interval = {r.strategy: (percentile_interval(means[:, i], confidence) if n_reps else (math.nan, math.nan))
                    for i, r in enumerate(at)}
        w = kendalls_w(point)
        from scipy.stats import chi2

        w_p = float(chi2.sf(len(measured) * (len(at) - 1) * w, len(at) - 1)) if not math.isnan(w) else math.nan
        order = sorted(range(len(at)), key=lambda i: (mean_rank[at[i].strategy], i))
        out.append(TaskSummary(size, tuple(measured), tuple(at[i].strategy for i in order),
                               {r.strategy: tuple(p[i] for p in point) for i, r in enumerate(at)}, mean_rank,
                               {k: (float(v[0]), float(v[1])) for k, v in interval.items()}, w, w_p, n_reps))
    return out


def _number(value: Any) -> bool:
    return isinstance(value, (int, float)) and not math.isnan(value)


def format_summary(found: Sequence[TaskSummary], *, confidence: float, width: int = 100) -> str:
    """The summaries as text: per size a table of the rows' ranks in each task and their mean rank
    with its interval, then the agreement sentence; ``""`` without a summary."""
    import textwrap

    blocks = []
    for s in found:
        headers = ["strategy", *(metric for _, metric in s.tasks), "mean rank", f"{confidence:.0%} interval"]
        cells = [[name, *(f"{r:g}" for r in s.ranks[name]), f"{s.mean_rank[name]:.2f}",
                  "-" if math.isnan(s.interval[name][0]) else f"[{s.interval[name][0]:.2f}, {s.interval[name][1]:.2f}]"]
                 for name in s.strategies]
        widths = [max(len(h), *(len(c[i]) for c in cells)) for i, h in enumerate(headers)]
        line = lambda vals: " ".join(v.ljust(w) if i == 0 else v.rjust(w)  # noqa: E731
                                     for i, (v, w) in enumerate(zip(vals, widths))).rstrip()
        head = f"across tasks at {s.vocab_size:,} tokens (rank 1 = best in the task; {s.replicates:,} replicates):"
        blocks.append("\n".join([head, line(headers), *map(line, cells),
                                 textwrap.fill(s.agreement(), width)]))
    return "\n\n".join(blocks)
