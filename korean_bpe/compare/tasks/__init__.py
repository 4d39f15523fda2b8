"""The tasks of a comparison, each a plug-in on the :class:`Task` protocol (:mod:`.base`): the
held-out measurements (:class:`HeldOutTask`, ``"heldout"``), the order-blind probe
(:class:`ProbeTask`, ``"probe"``) and the downstream classifier (:class:`DownstreamTask`,
``"downstream"``).  A new task is one module with a class registered by ``@register_task(name)``;
``compare(texts, tasks=[name])`` then runs it on every row."""

from __future__ import annotations

from .base import LABEL_USES, TASKS, BaseTask, Task, get_task, paired_p, register_task
from .downstream import DownstreamTask
from .hate import HateTask
from .heldout import HeldOutTask
from .ner import NerTask
from .probe import PROBE_TRAIN_DOCS, ProbeTask
from ..rows import Labelled, Measured, Row, RowInput

__all__ = ["Task", "BaseTask", "TASKS", "register_task", "get_task", "paired_p", "LABEL_USES", "HeldOutTask",
           "ProbeTask", "DownstreamTask", "HateTask", "NerTask", "PROBE_TRAIN_DOCS", "Measured", "Row", "RowInput", "Labelled"]
