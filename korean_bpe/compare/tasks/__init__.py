"""The tasks of a comparison, each a plug-in on the :class:`Task` protocol (:mod:`.base`): the
held-out measurements (:class:`HeldOutTask`, ``"heldout"``), the order-blind probe
(:class:`ProbeTask`, ``"probe"``), the downstream classifier (:class:`DownstreamTask`,
``"downstream"``), the Korean hate-speech comments (:class:`HateTask`, ``"hate"``) and the NSMC
movie reviews (:class:`NsmcTask`, ``"nsmc"``), both a :class:`ClassificationTask`, KLUE-NER's entity
boundaries (:class:`NerTask`, ``"ner"``), token stability under Korean noise (:class:`NoiseTask`,
``"noise"``) and a small language model's bits per byte (:class:`LmTask`, ``"lm"``).  A new task
is one module with a class registered by ``@register_task(name)``; ``compare(texts,
tasks=[name])`` then runs it on every row."""

from __future__ import annotations

from .base import LABEL_USES, TASKS, BaseTask, Task, get_task, paired_p, register_task, task_from_spec
from .classification import ClassificationTask
from .downstream import DownstreamTask
from .hate import HateTask
from .heldout import HeldOutTask
from .lm import LmSettings, LmTask
from .ner import NerTask
from .noise import NoiseTask
from .nsmc import NsmcTask
from .probe import PROBE_TRAIN_DOCS, ProbeTask
from ..rows import Labelled, Measured, Row, RowInput

__all__ = ["Task", "BaseTask", "TASKS", "register_task", "get_task", "task_from_spec", "paired_p", "LABEL_USES", "HeldOutTask",
           "ProbeTask", "DownstreamTask", "ClassificationTask", "HateTask", "NsmcTask", "NerTask", "NoiseTask", "LmTask",
           "LmSettings", "PROBE_TRAIN_DOCS", "Measured", "Row", "RowInput", "Labelled"]
