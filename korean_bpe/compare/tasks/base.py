"""What a task of a comparison is (:class:`Task`), what it reads of a row (:class:`RowInput`) and
what it gives back (:class:`Measured`); the registry of tasks by name (:data:`TASKS`).

A task measures each row (one strategy at one vocabulary size) with the tokens that row's
segmenter gives: the held-out measurements, the order-blind probe and the downstream classifier are
tasks, and so is any a user adds.  It returns its columns, the evidence its statistics need and
its notes; :func:`korean_bpe.compare.compare` runs every task of its configuration on every row and
never needs to know which tasks there are.

Adding a task is one module (a toy task that counts the held-out tokens of each row)::

    from korean_bpe.compare.columns import Column
    from korean_bpe.compare.tasks import BaseTask, Measured, register_task

    @register_task("token-count")
    class TokenCount(BaseTask):
        name = "token-count"
        columns = (Column("token_count", "int64", "held-out tokens of the row"),)

        def measure(self, row):
            return Measured({"token_count": sum(map(len, row.encoded))})

and ``compare(texts, tasks=["token-count"])`` gives the table a ``token_count`` column.
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from typing import Any, ClassVar, Protocol, runtime_checkable

from ...registry import Registry
from .. import stats
from ..columns import Column
from ..rows import Measured, Row, RowInput

__all__ = ["Task", "BaseTask", "TASKS", "register_task", "get_task", "task_from_spec", "paired_p", "LABEL_USES"]

#: how a task uses labels: not at all, when the run has them, or only with them (a run without
#: labels is refused before any work)
LABEL_USES = ("unused", "optional", "required")


@runtime_checkable
class Task(Protocol):
    """A measurement of every row of a comparison (see the module)."""

    #: the registered name, also the key of the task's evidence in each :class:`~korean_bpe.compare.rows.Row`
    name: str
    #: how it uses labels: one of :data:`LABEL_USES`
    labels: str
    #: how many labelled training documents it reads (a seeded sample; None: all)
    train_docs: int | None
    #: its metrics with a bootstrap interval and a paired test against each row's reference
    metrics: tuple[str, ...]
    #: the columns it adds to the table beyond :data:`korean_bpe.compare.columns.TABLE`
    columns: tuple[Column, ...]
    #: whether a row keeps its evidence once its replicates are made (for :meth:`paired_p`)
    keeps_evidence: bool
    #: ``(family, metric)`` pairs the verdict adds (:mod:`korean_bpe.compare.verdict`: the best row of
    #: each and the rows level with it)
    verdict: tuple[tuple[str, str], ...]

    def measure(self, row: RowInput) -> Measured | None:
        """The task's columns of ``row``, or None where it does not apply (its columns stay empty)."""

    def replicates(self, evidence: Any, *, point: Mapping[str, Any], resamples: int, seed: int) -> dict[str, Any]:
        """metric -> its values on the ``resamples`` bootstrap resamples of the held-out documents
        (:func:`korean_bpe.compare.stats.resample_counts` of ``seed``: the same for every row), from
        the row's ``evidence``; ``point``: the row's columns."""

    def paired_p(self, metric: str, row: Row, reference: Row) -> float:
        """The p-value of ``metric`` of ``row`` against ``reference`` (NaN: not tested)."""

    def to_config(self) -> dict[str, Any] | None:
        """The task's settings as the report records them (None: none to record)."""


class BaseTask:
    """The defaults of a :class:`Task`: no labels, no interval metrics, no columns of its own, no
    replicates, the paired bootstrap as its test, nothing to record."""

    name: ClassVar[str] = ""
    labels: str = "unused"
    train_docs: int | None = None
    metrics: tuple[str, ...] = ()
    columns: tuple[Column, ...] = ()
    keeps_evidence: bool = False
    verdict: tuple[tuple[str, str], ...] = ()

    def measure(self, row: RowInput) -> Measured | None:
        raise NotImplementedError(f"{type(self).__name__} must define measure(row)")

    def replicates(self, evidence: Any, *, point: Mapping[str, Any], resamples: int, seed: int) -> dict[str, Any]:
        return {}

    def paired_p(self, metric: str, row: Row, reference: Row) -> float:
        """The paired bootstrap (:func:`korean_bpe.compare.stats.paired_p`) of the two rows' replicates."""
        a, b = row.replicates.get(metric), reference.replicates.get(metric)
        return math.nan if a is None or b is None else stats.paired_p(a, b)

    def to_config(self) -> dict[str, Any] | None:
        return None

    def __repr__(self) -> str:
        return f"{type(self).__name__}()"


#: the tasks by name (``@register_task("name")`` on the class)
TASKS: Registry[Task] = Registry("comparison task")
register_task = TASKS.register


def get_task(spec: str | Mapping[str, Any] | Task) -> Task:
    """A task from its registered name, a ``{"type": name, ...}`` config or a task object.

    >>> get_task("probe").name
    'probe'
    """
    task = TASKS.build(spec)
    if not isinstance(task, Task):
        raise TypeError(f"a comparison task needs name, labels, train_docs, metrics, columns, keeps_evidence, "
                        f"verdict, measure, replicates, paired_p and to_config (korean_bpe.compare.tasks.BaseTask gives the "
                        f"defaults), got {task!r}")
    if task.labels not in LABEL_USES:
        raise ValueError(f"task {task.name!r}: labels must be one of {LABEL_USES}, got {task.labels!r}")
    return task


def task_from_spec(spec: str) -> Task:
    """The task of a command-line spec, ``NAME`` or ``NAME=ARG`` (``korean-bpe compare --task``,
    ``benchmarks/bench_tasks.py --task``): ARG is the task's own spec where its class reads one
    (``from_spec``: the noise task's perturbations and rates), else the path of its data (or the
    name of data shipped with korean_bpe, such as ``nsmc-sample``).  ValueError for an unknown name,
    an empty ARG or a bad one (a :class:`~korean_bpe.corpus.CorpusError` naming what is missing).

    >>> task_from_spec("noise=keyboard_typo:0.2,dropout:0").perturbations
    {'keyboard_typo': 0.2}
    >>> task_from_spec("lm").name
    'lm'
    >>> task_from_spec("nsmc=")
    Traceback (most recent call last):
      ...
    ValueError: task spec 'nsmc=': nothing after '='; give nsmc=PATH (its data) or nsmc alone
    """
    name, eq, arg = (part.strip() for part in spec.partition("="))
    if not eq:
        return get_task(name)
    if not arg:
        raise ValueError(f"task spec {spec!r}: nothing after '='; give {name}=PATH (its data) or {name} alone")
    from_spec = getattr(TASKS.get_class(name), "from_spec", None)  # ValueError naming the choices
    return get_task(from_spec(arg)) if from_spec is not None else get_task({"type": name, "path": arg})


def paired_p(metric: str, row: Row, reference: Row, tasks: Sequence[Task]) -> float:
    """``metric``'s p-value of ``row`` against ``reference``: the test of the task that measures it
    (the paired bootstrap where no task claims it)."""
    for task in tasks:
        if metric in task.metrics:
            return task.paired_p(metric, row, reference)
    return BaseTask().paired_p(metric, row, reference)
