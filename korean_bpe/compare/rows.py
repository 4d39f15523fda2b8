"""What flows between the strategies, the tasks and the table: what a task reads of a row
(:class:`RowInput`, with the labelled training sample :class:`Labelled`), what it gives back
(:class:`Measured`), and a row as it is measured (:class:`Row`): its published values and the
evidence its statistics read, kept apart (no hidden keys among the columns)."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from functools import cached_property
from typing import Any

from .heldout import HeldOut, Layout
from .segmenters import Segmenter

__all__ = ["Row", "RowInput", "Measured", "Labelled"]


@dataclass(frozen=True)
class Labelled:
    """The labelled training documents the label-using tasks read: for each task a seeded sample
    of the training documents (``train_docs`` of them, all for None; the same for every row), their
    union encoded once per row.  ``idx``: the union's positions in the training documents, in
    order; ``labels``: their labels; ``positions``: task name -> its sample's positions in ``idx``.

    >>> Labelled.sample(6, [0, 1] * 3, {"probe": 2, "downstream": 4}, seed=0)   # the probe reads 3 and 5
    Labelled(idx=[0, 1, 3, 5], labels=[0, 1, 1, 1], positions={'probe': [2, 3], 'downstream': [0, 1, 2, 3]})
    """

    idx: list[int]
    labels: list[int]
    positions: dict[str, list[int]]

    @classmethod
    def sample(cls, n: int, labels: Sequence[int], train_docs: Mapping[str, int | None], *, seed: int) -> Labelled:
        """The samples of ``n`` training documents with ``labels``: task name -> how many it reads."""
        samples = {name: _sample(n, k, seed) for name, k in train_docs.items()}
        idx = sorted({i for chosen in samples.values() for i in chosen})
        where = {i: k for k, i in enumerate(idx)}
        return cls(idx, [labels[i] for i in idx], {name: [where[i] for i in chosen] for name, chosen in samples.items()})


def _sample(n: int, k: int | None, seed: int) -> list[int]:
    """A seeded sample of at most ``k`` of ``range(n)``, in order (all of them for None)."""
    if k is None or n <= k:
        return list(range(n))
    import random

    return sorted(random.Random(seed).sample(range(n), k))


@dataclass(frozen=True)
class RowInput:
    """What a task reads of one row: the strategy's name and size, its segmenter, the held-out
    documents (:class:`~korean_bpe.compare.heldout.HeldOut`) with their ids and, where the library
    gives them in one pass, their token spans; the ids of the labelled training sample; the
    pre-tokenization the row is built on, where it has one (``layout``: its held-out 어절,
    ``char_words``: its words of each held-out character alone); the training documents
    (``train_texts``: those the row's tokenizer was trained on, for a task that encodes them itself)."""

    strategy: str
    vocab_size: int
    segmenter: Segmenter
    held: HeldOut
    #: the ids of each held-out document (``segmenter.encode_batch``'s)
    encoded: list[list[int]]
    #: each held-out token's character span, when the segmenter gave them with the ids; else None
    spans: list[list[tuple[int, int]]] | None
    seed: int
    #: whether the row's pre-tokenizer drops text (analysis mode): decoding cannot give it back
    drops_text: bool = False
    #: the labelled training sample (None without labels) and the row's ids of its documents
    labelled: Labelled | None = None
    train_ids: list[list[int]] | None = None
    layout: Layout | None = None
    char_words: list[list[str]] | None = None
    #: a dict shared by the sizes of a strategy whose token spans do not depend on the size (a
    #: baseline: only which tokens are ``<unk>`` changes), filled by the first size; else None
    spans_by_size: dict[str, Any] | None = None
    show_progress: Any = False
    train_texts: Sequence[str] = ()
    #: what a task made of this row for the tasks after it, by the task's name (the downstream
    #: classifier's trained models, :class:`~korean_bpe.compare.downstream.Classifier`, which the
    #: noise task scores on perturbed documents); dropped with the row
    shared: dict[str, Any] = field(default_factory=dict)
    #: what a task keeps across the rows this process measures in one comparison, by the task's
    #: choice of key (the downstream classifiers by their inputs: a row with the same ids as an
    #: earlier one reuses its classifier)
    across_rows: dict[str, Any] = field(default_factory=dict)
    #: the comparison's cache of what it trains (:class:`~korean_bpe.compare.model_cache.ModelCache`;
    #: None when it is off): a task may keep there what a rerun can read back instead of training
    #: (what the tasks' models give: :func:`korean_bpe.compare.model_cache.kept_scores`)
    model_cache: Any = None

    def training(self, task: str) -> tuple[list[list[int]], list[int]]:
        """``(ids, labels)`` of task ``task``'s labelled training sample; ValueError without labels."""
        if self.labelled is None or self.train_ids is None or task not in self.labelled.positions:
            raise ValueError(f"the task {task!r} needs labels: give compare() labels (and eval_labels with eval_texts)")
        positions, ids, labels = self.labelled.positions[task], self.train_ids, self.labelled.labels
        return [ids[k] for k in positions], [labels[k] for k in positions]

    @cached_property
    def n_tokens(self) -> int:
        return sum(map(len, self.encoded))

    @cached_property
    def flat_ids(self) -> Any:
        """Every held-out id, document after document, as one int64 array (made once)."""
        import itertools

        import numpy as np

        return np.fromiter(itertools.chain.from_iterable(self.encoded), dtype=np.int64, count=self.n_tokens)


@dataclass(frozen=True)
class Measured:
    """What a task gives back for one row: ``columns`` (name -> value, each a column of the table),
    ``evidence`` (what its :meth:`Task.replicates` and :meth:`Task.paired_p` read) and ``notes``."""

    columns: dict[str, Any]
    evidence: Any = None
    notes: tuple[str, ...] = field(default=())


@dataclass
class Row:
    """One strategy at one vocabulary size.

    ``columns``: column name -> value, every one a column of the table (what the strategy, its
    training and each task measured; the statistics' columns are added by
    :func:`korean_bpe.compare.assemble.build_frame`), and what the verdict reads of a classifier
    (``<task>_one_class``, ``<task>_chance``: :func:`korean_bpe.compare.verdict.unlearned`).
    ``evidence``: task name -> what that task
    left for its statistics (:meth:`korean_bpe.compare.tasks.Task.replicates` reads it; it is
    released once read, unless the task keeps it for a paired test).  ``replicates``: metric ->
    its values on the bootstrap resamples.  ``tokens_hash``: a hash of the vocabulary size and the
    held-out ids (two rows with the same hash give the same ids on every held-out document).
    ``reference``: the strategy this row is compared with by default.
    """

    columns: dict[str, Any]
    evidence: dict[str, Any] = field(default_factory=dict)
    replicates: dict[str, Any] = field(default_factory=dict)
    tokens_hash: str = ""
    reference: str = ""

    @property
    def strategy(self) -> str:
        return self.columns["strategy"]

    @property
    def vocab_size(self) -> int:
        return self.columns["vocab_size"]
