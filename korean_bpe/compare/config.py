"""The settings of a comparison in one frozen, validated object (:class:`CompareConfig`): what
:func:`korean_bpe.compare.compare` runs and the command line builds.  Every option is checked when
the object is made, before any work (a bad one fails in a second, not after the training).

>>> config = CompareConfig(strategies=["whitespace/syllable", "baseline/word"], vocab_sizes=[300, 100])
>>> config.strategies, config.vocab_sizes, [t.name for t in config.task_list()]
(('whitespace/syllable', 'baseline/word'), (100, 300), ['heldout', 'probe'])
>>> CompareConfig(gold="hannanum")
Traceback (most recent call last):
...
ValueError: gold='hannanum' is not an analyzer; use one of ('kiwi', 'mecab', 'okt') or None
"""

from __future__ import annotations

import numbers
from collections.abc import Sequence
from dataclasses import dataclass, field, fields, replace
from typing import Any

from .downstream import Downstream
from .result import MAX_SEED, Statistics
from .strategies import GOLD_ANALYZERS, resolve_strategies
from .tasks import PROBE_TRAIN_DOCS, DownstreamTask, HeldOutTask, ProbeTask, Task, get_task

__all__ = ["CompareConfig"]


@dataclass(frozen=True)
class CompareConfig:
    """The settings of :func:`korean_bpe.compare.compare`.

    *What is compared.*  ``strategies`` (None: :data:`~korean_bpe.compare.strategies.DEFAULT_STRATEGIES`;
    a family such as ``"bpe"`` or ``"okt"`` stands for its members) and ``vocab_sizes``, stored
    resolved: the names in row order, the sizes ascending and distinct.  ``gold``: ``"kiwi"``,
    ``"mecab"``, ``"okt"`` or None (no morpheme-boundary metrics).  ``test_fraction``: the share
    of the texts held out when no ``eval_texts`` are given.  ``min_frequency``: the BPE trainer's
    (merges seen fewer times stop training).

    *The tasks run on every row.*  The held-out measurements always; with labels, the order-blind
    probe, fitted on a seeded sample of at most ``probe_train_docs`` training documents (the same
    for every row; None: all of them), which keeps it to seconds a row; ``downstream`` (a
    :class:`~korean_bpe.compare.downstream.Downstream`, None: off): a small neural sequence
    classifier (a CNN by default, or a Transformer) trained from scratch on each row's token ids,
    several seeds, reporting ``downstream_accuracy``, ``downstream_macro_f1`` and
    ``downstream_seed_sd`` with intervals over the held-out documents and the seeds (needs
    ``korean_bpe[downstream]``, i.e. PyTorch); ``tasks``: more tasks, by registered name, config
    dict or object (:mod:`korean_bpe.compare.tasks`: a task is a plug-in).

    *How sure.*  ``statistics`` (:class:`~korean_bpe.compare.result.Statistics`): bootstrap
    resamples of the held-out documents (drawn with ``seed``, the same for every row; ``seed``
    also draws the split and seeds the probe), the intervals' confidence and the reference row of
    the p-values (:mod:`korean_bpe.compare.stats`).

    *How it runs.*  ``n_jobs``: worker processes (None: 1, all in this process; -1: one per CPU).
    With 2 or more, the strategies are grouped (:func:`korean_bpe.compare.training.groups`: the
    rows of one analyzer or pre-tokenizer with the baselines that read it, the jamo and syllable
    baselines, each peer alone), and spawned workers run the groups, the longest first.  Every
    metric is the same whatever ``n_jobs`` (a test checks it); the timing columns measure whichever
    process ran the row, sharing the machine.  While the rows are measured, the cyclic garbage
    collector runs less often (:func:`korean_bpe.compare.execute.rare_collections`) and each
    group's pre-tokenizations are released when it ends.  ``model_cache`` (on by default): each
    trained model is kept in ``models/`` under the analysis cache's directory
    (:mod:`korean_bpe.compare.model_cache`) and read back by a rerun on the same texts, strategy,
    size and seed (``model_cached`` True, ``train_s`` the original training's); so is what the
    tasks' own models give (the downstream classifiers' predictions, the NER tagger's tags, the
    language model's log probabilities), read back by a rerun on the same inputs, settings and seed
    (:func:`korean_bpe.compare.model_cache.kept_scores`; ``downstream_s`` then the original
    training's); False trains every model and keeps none.  ``show_progress``: the progress bars
    (None: on a terminal).

    *What is kept.*  ``pieces_texts``: the result's ``pieces`` holds, for each strategy at its
    largest size, ``{text: Segmenter.pieces(text)}`` of these texts (what the report's segmentation
    examples and token lengths read), whatever ``n_jobs``.  ``keep_segmenters``: the result's
    ``segmenters`` holds each row's live :class:`~korean_bpe.compare.segmenters.Segmenter` (the rows
    then run in this process: ``n_jobs`` must be 1).  A strategy whose analyzer or peer library is
    missing, or that cannot be trained, is skipped with a note (``"skipped X: why"``).

    :meth:`replace` gives a copy with some settings changed, checked again.
    """

    strategies: Sequence[str] | None = None
    vocab_sizes: Sequence[int] = (8000,)
    gold: str | None = "kiwi"
    seed: int = 0
    test_fraction: float = 0.1
    min_frequency: int = 2
    probe_train_docs: int | None = PROBE_TRAIN_DOCS
    downstream: Downstream | None = None
    statistics: Statistics = field(default_factory=Statistics)
    tasks: Sequence[str | Task] = ()
    n_jobs: int | None = None
    model_cache: bool = True
    pieces_texts: Sequence[str] = ()
    keep_segmenters: bool = False
    show_progress: Any = None

    def __post_init__(self) -> None:
        set_ = object.__setattr__  # frozen: the checked, normalised values replace the given ones
        set_(self, "strategies", tuple(resolve_strategies(self.strategies)))
        set_(self, "vocab_sizes", _sizes(self.vocab_sizes))
        seed = self.seed
        if isinstance(seed, bool) or not isinstance(seed, int) or not 0 <= seed <= MAX_SEED:
            raise ValueError(f"seed must be an int from 0 to {MAX_SEED} (it seeds the split, the bootstrap and the "
                             f"probe), got {seed!r}")
        if self.gold is not None and self.gold not in GOLD_ANALYZERS:
            raise ValueError(f"gold={self.gold!r} is not an analyzer; use one of {GOLD_ANALYZERS} or None")
        if not isinstance(self.min_frequency, int) or self.min_frequency < 1:
            raise ValueError(f"min_frequency must be a positive int, got {self.min_frequency!r}")
        ProbeTask(self.probe_train_docs)  # its check
        if not isinstance(self.statistics, Statistics):
            raise TypeError(f"statistics must be a korean_bpe.compare.Statistics, e.g. Statistics(resamples=2000), "
                            f"got {self.statistics!r}")
        if not isinstance(self.model_cache, bool):
            raise TypeError(f"model_cache must be True or False, got {self.model_cache!r}")
        if self.downstream is not None:
            DownstreamTask(self.downstream)  # its type check
            from .downstream import require_torch

            require_torch()  # before any training: the install hint now, not after the rows
        if isinstance(self.tasks, (str, bytes)):
            raise TypeError(f"tasks must be a list of task names or objects, not the string {self.tasks!r}; "
                            f"write tasks=[{self.tasks!r}]")
        set_(self, "tasks", tuple(get_task(t) for t in self.tasks))
        names = [t.name for t in self.task_list()]
        if len(set(names)) < len(names):
            raise ValueError(f"tasks must be distinct: {names} name one twice (heldout and probe always run, "
                             "downstream with downstream=Downstream(...))")
        set_(self, "pieces_texts", _pieces_texts(self.pieces_texts))
        if self.jobs > 1 and self.keep_segmenters:
            raise ValueError(f"keep_segmenters needs the rows in this process: pass n_jobs=1 (got "
                             f"n_jobs={self.n_jobs!r}), or keep_segmenters=False")

    @property
    def jobs(self) -> int:
        """Worker processes: ``n_jobs`` (None: 1; -1: one per CPU)."""
        n_jobs = self.n_jobs
        if n_jobs is None:
            return 1
        if isinstance(n_jobs, bool) or not isinstance(n_jobs, numbers.Integral) or n_jobs == 0 or n_jobs < -1:
            raise ValueError(f"n_jobs must be a positive int, -1 (one per CPU) or None (1), got {n_jobs!r}")
        if n_jobs == -1:
            import os

            return os.cpu_count() or 1
        return int(n_jobs)

    def task_list(self) -> tuple[Task, ...]:
        """Every task run on each row, in order: the held-out measurements, the probe, the
        downstream classifier (with ``downstream``), then ``tasks``."""
        built_in: tuple[Task, ...] = (HeldOutTask(), ProbeTask(self.probe_train_docs))
        if self.downstream is not None:
            built_in += (DownstreamTask(self.downstream),)
        return built_in + tuple(self.tasks)  # type: ignore[operator]

    def replace(self, **changes: Any) -> CompareConfig:
        """A copy with ``changes`` (keyword names of the fields), checked again."""
        unknown = sorted(set(changes) - {f.name for f in fields(self)})
        if unknown:
            raise TypeError(f"unknown compare option{'s' if len(unknown) > 1 else ''} {', '.join(unknown)}; "
                            f"the options are {', '.join(f.name for f in fields(self))}")
        return replace(self, **changes)

    def to_config(self, *, statistics: Statistics, held_out: str, train_docs: int, test_docs: int, labels: bool,
                  jobs: int) -> dict[str, Any]:
        """The exact configuration of a run, as the result and the report record it: these settings
        with what the run settled (``statistics`` with its resamples, the held-out split, the
        documents, whether there were labels, the worker processes)."""
        by_name = {t.name: t for t in self.task_list()}
        config = {
            "strategies": list(self.strategies), "vocab_sizes": list(self.vocab_sizes), "gold": self.gold,
            "seed": self.seed, "held_out": held_out, "train_docs": train_docs, "test_docs": test_docs,
            "labels": labels, "min_frequency": self.min_frequency, "probe_train_docs": self.probe_train_docs,
            "resamples": statistics.resamples, "confidence": statistics.confidence,
            "reference": statistics.reference or "whitespace BPE of the row's unit (syllable for the others)",
            "n_jobs": jobs, "model_cache": self.model_cache,
            "downstream": by_name["downstream"].to_config() if "downstream" in by_name else None,
        }
        if self.tasks:
            config["tasks"] = {t.name: t.to_config() for t in self.tasks}  # type: ignore[union-attr]
        return config


def _sizes(vocab_sizes: Sequence[int]) -> tuple[int, ...]:
    if isinstance(vocab_sizes, (int, str)) or not all(
        isinstance(v, numbers.Integral) and not isinstance(v, bool) for v in vocab_sizes
    ):
        raise TypeError(f"vocab_sizes must be a sequence of ints such as [4000, 8000], got {vocab_sizes!r}")
    sizes = tuple(sorted({int(v) for v in vocab_sizes}))
    if not sizes or sizes[0] < 1:
        raise ValueError(f"vocab_sizes must hold positive ints such as [4000, 8000], got {list(vocab_sizes)!r}")
    return sizes


def _pieces_texts(pieces_texts: Sequence[str]) -> tuple[str, ...]:
    if isinstance(pieces_texts, str):
        raise TypeError(f"pieces_texts must be a sequence of strings, not the string {pieces_texts!r}; "
                        f"write pieces_texts=[{pieces_texts!r}]")
    out = tuple(dict.fromkeys(pieces_texts))
    if not all(isinstance(t, str) for t in out):
        raise TypeError("pieces_texts must hold strings (the texts to record the pieces of)")
    return out
