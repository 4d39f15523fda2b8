"""What the processes of a comparison share (:class:`Plan`, plain data sent once to each worker) and
what one process keeps beside it (:class:`Workspace`: its pre-tokenizations, the peers module and
the model cache)."""

from __future__ import annotations

from dataclasses import dataclass, field
from types import ModuleType
from typing import Any

from .heldout import HeldOut
from .model_cache import ModelCache
from .pretok import Pretokenizations
from .rows import Labelled
from .tasks.base import Task

__all__ = ["Plan", "Workspace"]


@dataclass(frozen=True)
class Plan:
    """Every input of a comparison's rows: the training documents, the held-out ones
    (:class:`~korean_bpe.compare.heldout.HeldOut`), the vocabulary sizes (ascending), the seed, the
    trainer's ``min_frequency``, the tasks run on every row, the labelled training sample
    (None without labels), whether the peers can run, the texts whose pieces are kept, and the
    model cache's directory (None: off) with the hash of the training texts that keys it."""

    train: list[str]
    held: HeldOut
    sizes: tuple[int, ...]
    seed: int
    min_frequency: int
    tasks: tuple[Task, ...]
    labelled: Labelled | None
    peers_ok: bool
    pieces_texts: tuple[str, ...] = ()
    model_cache_dir: str | None = None
    texts_hash: str = ""


@dataclass(frozen=True)
class Workspace:
    """A :class:`Plan` and what one process keeps for it: each pre-tokenization once, the peers
    module (None when the peers cannot run), the model cache (None: off), whether this process
    shows progress bars (a worker does not), and what the tasks keep across its rows
    (:attr:`korean_bpe.compare.rows.RowInput.across_rows`)."""

    plan: Plan
    pretok: Pretokenizations
    peers: ModuleType | None = None
    model_cache: ModelCache | None = None
    show_progress: Any = False
    across_rows: dict[str, Any] = field(default_factory=dict)

    @classmethod
    def open(cls, plan: Plan, *, pretok: Pretokenizations | None = None, show_progress: Any = False) -> Workspace:
        """The workspace of ``plan`` in this process (``pretok``: pre-tokenizations already made)."""
        peers = None
        if plan.peers_ok:
            from . import peers
        return cls(plan, pretok if pretok is not None else Pretokenizations(plan.train, plan.held.texts),
                   peers, None if plan.model_cache_dir is None else ModelCache(plan.model_cache_dir), show_progress)
