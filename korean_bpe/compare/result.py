"""What :func:`korean_bpe.compare.compare` returns (:class:`Comparison`) and how it states its
uncertainty (:class:`Statistics`)."""

from __future__ import annotations

import os
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any

from . import stats

if TYPE_CHECKING:  # pragma: no cover
    from collections import Counter

    import pandas as pd

    from .segmenters import Segmenter
    from .summary import TaskSummary
    from .verdict import Choice, Verdict

__all__ = ["Comparison", "Statistics", "MAX_RESAMPLES", "MAX_SEED"]

#: the most bootstrap resamples (``Statistics(resamples=)``, ``--resamples``): 10,000 already give
#: the percentile intervals to a few parts in a thousand of their width
MAX_RESAMPLES = 100_000
#: the largest ``compare(seed=)``: scikit-learn's probe and NumPy's generators take 0 .. 2**32 - 1
MAX_SEED = 2**32 - 1


@dataclass(frozen=True)
class Statistics:
    """The intervals and the paired comparison of :func:`~korean_bpe.compare.compare`.

    ``resamples``: bootstrap resamples of the held-out documents (0: no intervals, no bootstrap
    p-values; else at least :func:`~korean_bpe.compare.stats.min_resamples` of ``confidence``, 200
    for 95%: fewer leave values outside their own interval; None, the default: 1,000, or more where
    the run's rows need them, :func:`~korean_bpe.compare.stats.enough_resamples`);
    ``confidence``: coverage of the percentile intervals, and ``1 - confidence`` the level below
    which a p-value counts as significant (the reports mark the others); ``reference``: the strategy
    every row is compared with at its vocabulary size, or None for the default (whitespace BPE of
    the row's unit, :func:`korean_bpe.compare.training.default_reference`).  The resamples are
    drawn with ``compare``'s ``seed``.  Below :data:`~korean_bpe.compare.stats.MIN_DOCUMENTS`
    held-out documents ``compare`` gives no intervals and no bootstrap p-values, with a note
    (:meth:`for_run` settles both before any work).

    >>> Statistics(resamples=200).alpha
    0.05...
    >>> Statistics(resamples=1)
    Traceback (most recent call last):
    ...
    ValueError: resamples=1 is too few for 95% intervals: give at least 200 (each tail beyond the interval then holds 5 resamples or more), or 0 for no intervals
    >>> Statistics(confidence=95)
    Traceback (most recent call last):
    ...
    ValueError: confidence must be between 0 and 1 (0.95 for 95% intervals), got 95
    """

    resamples: int | None = None
    confidence: float = stats.CONFIDENCE
    reference: str | None = None

    def __post_init__(self) -> None:
        if self.resamples is not None and (isinstance(self.resamples, bool) or not isinstance(self.resamples, int)
                                           or not 0 <= self.resamples <= MAX_RESAMPLES):
            raise ValueError(f"resamples must be an int from 0 (no intervals) to {MAX_RESAMPLES:,}, or None (enough "
                             f"for the run), got {self.resamples!r}")
        if not isinstance(self.confidence, (int, float)) or not 0 < self.confidence < 1:
            raise ValueError(f"confidence must be between 0 and 1 (0.95 for 95% intervals), got {self.confidence!r}")
        if self.resamples != 0 and stats.min_resamples(self.confidence) > MAX_RESAMPLES:
            raise ValueError(f"confidence={self.confidence!r} needs at least {stats.min_resamples(self.confidence):,} "
                             f"resamples for its intervals, more than the {MAX_RESAMPLES:,} a run may take: use "
                             f"confidence={1 - 10 / MAX_RESAMPLES:g} or lower, or resamples=0 for no intervals")
        if self.resamples and self.resamples < stats.min_resamples(self.confidence):
            raise ValueError(f"resamples={self.resamples} is too few for {self.confidence * 100:g}% intervals: give at "
                             f"least {stats.min_resamples(self.confidence):,} (each tail beyond the interval then holds "
                             "5 resamples or more), or 0 for no intervals")
        if self.reference is not None:
            from .strategies import DEFAULT_STRATEGIES

            if self.reference not in DEFAULT_STRATEGIES:
                raise ValueError(f"reference={self.reference!r} is not a strategy; name one such as "
                                 "'whitespace/syllable' (korean_bpe.compare.DEFAULT_STRATEGIES), or None")

    @property
    def alpha(self) -> float:
        """The significance level: ``1 - confidence``."""
        return 1 - self.confidence

    def for_run(self, n_documents: int, n_tests: int, notes: list[str]) -> Statistics:
        """These statistics for a run of ``n_tests`` rows on ``n_documents`` held-out documents, with
        a number of resamples: ``resamples`` as given, or for None
        :func:`~korean_bpe.compare.stats.enough_resamples`; 0 (and a note appended to ``notes``)
        below :data:`~korean_bpe.compare.stats.MIN_DOCUMENTS` documents, where a percentile interval
        of the documents means nothing (one document: zero width, every difference at the p-value
        floor).

        >>> Statistics().for_run(500, 12, []).resamples, Statistics().for_run(500, 60, []).resamples
        (1000, 2400)
        >>> notes = []
        >>> Statistics().for_run(3, 12, notes).resamples, notes  # doctest: +ELLIPSIS
        (0, ['no intervals and no bootstrap p-values: 3 held-out documents, fewer than the 20 ...'])
        """
        from dataclasses import replace

        resamples = stats.enough_resamples(n_tests, self.confidence) if self.resamples is None else self.resamples
        if resamples > MAX_RESAMPLES:
            raise ValueError(f"confidence={self.confidence!r} over {n_tests:,} rows needs {resamples:,} resamples for "
                             f"Holm's correction to reach significance, more than the {MAX_RESAMPLES:,} a run may "
                             f"take: give a lower confidence, fewer strategies or sizes, or resamples={MAX_RESAMPLES} "
                             "(fewer significant rows)")
        if resamples and n_documents < stats.MIN_DOCUMENTS:
            plural = "" if n_documents == 1 else "s"
            notes.append(f"no intervals and no bootstrap p-values: {n_documents:,} held-out document{plural}, fewer "
                         f"than the {stats.MIN_DOCUMENTS} a bootstrap of documents needs (hold out more, e.g. a "
                         "larger test_fraction or eval_texts)")
            resamples = 0
        return replace(self, resamples=resamples)


@dataclass
class Comparison:
    """The result of :func:`korean_bpe.compare.compare`.

    ``table``: one row per strategy x vocabulary size (:data:`korean_bpe.compare.columns.COLUMNS`);
    ``notes``: what was skipped and why, identical rows, missing references; ``timings``: each
    task's ``{"wall_s", "cpu_s", "rows"}``; ``pieces``: ``(strategy, largest size) -> {text:
    Segmenter.pieces(text)}`` for the ``pieces_texts`` given; ``config``: the exact configuration
    (strategies, sizes, seed, split, statistics, ...); ``versions``: the packages it ran with;
    ``segmenters``: ``(strategy, size) -> Segmenter`` with ``keep_segmenters=True``, else None;
    ``verdicts``: the best strategy of each family of metrics and those not significantly different
    from it (:func:`korean_bpe.compare.verdict.verdicts`); ``choices``: per size, the strategy to
    choose among those a user would deploy, and on what evidence (:func:`korean_bpe.compare.verdict.choose`);
    ``held_out``: the documents every row was measured on (:func:`korean_bpe.compare.run.held_out_split`).
    ``len()`` is the number of rows.
    """

    table: pd.DataFrame
    notes: list[str] = field(default_factory=list)
    timings: dict[str, dict[str, float]] = field(default_factory=dict)
    pieces: dict[tuple[str, int], dict[str, list[tuple[str, int, int]]]] = field(default_factory=dict)
    config: dict[str, Any] = field(default_factory=dict)
    versions: dict[str, str] = field(default_factory=dict)
    segmenters: dict[tuple[str, int], Segmenter] | None = None
    #: per family of metrics and vocabulary size, the best strategy and those not significantly
    #: different from it (:mod:`korean_bpe.compare.verdict`; downstream first when measured)
    verdicts: list[Verdict] = field(default_factory=list)
    held_out: list[str] = field(default_factory=list)
    #: per vocabulary size, the strategy to choose and its evidence (:func:`korean_bpe.compare.verdict.choose`)
    choices: list[Choice] = field(default_factory=list)
    #: per vocabulary size with two tasks or more: the rows x tasks ranks, mean ranks and Kendall's W
    #: (:func:`korean_bpe.compare.summary.summarize`)
    summary: list[TaskSummary] = field(default_factory=list)
    #: the definitions of the columns the run's tasks added (:func:`korean_bpe.compare.columns.definitions`)
    task_definitions: dict[str, str] = field(default_factory=dict)

    def __len__(self) -> int:
        return len(self.table)

    def __repr__(self) -> str:
        return (f"Comparison({len(self.table)} rows, {self.table['strategy'].nunique() if len(self.table) else 0} "
                f"strategies, {len(self.notes)} notes)")

    def examples(self, sentences: Sequence[str]) -> dict[str, list[list[str]]]:
        """strategy -> the tokens of each sentence at its largest size (the sentences must be among
        the ``pieces_texts`` of the run): :func:`korean_bpe.compare.report.segmentation_examples`."""
        from .report import segmentation_examples

        return segmentation_examples(self.pieces, sentences)

    def token_lengths(self, texts: Sequence[str]) -> dict[str, Counter[int]]:
        """strategy -> Counter of its tokens' lengths in characters of ``texts`` (among the
        ``pieces_texts``): :func:`korean_bpe.compare.report.token_lengths`."""
        from .report import token_lengths

        return token_lengths(self.pieces, texts)

    def write_report(self, out_dir: str | os.PathLike[str], *, sentences: Sequence[str] = (),
                     corpus: str | Mapping[str, Any] | None = None, command: str | Sequence[str] | None = None,
                     length_texts: Sequence[str] = (), **options: Any) -> dict[str, Path]:
        """:func:`korean_bpe.compare.report.write_report` of this comparison: its table, notes,
        configuration and versions, the segmentation of ``sentences`` and the token lengths on
        ``length_texts`` (both among the ``pieces_texts`` of the run)."""
        from .report import write_report

        return write_report(self.table, out_dir, corpus=corpus, sentences=sentences,
                            examples=self.examples(sentences) if sentences else None,
                            token_lengths=self.token_lengths(length_texts) if length_texts else None,
                            command=command, notes=self.notes, config=self.config, versions=self.versions,
                            verdicts=self.verdicts, choices=self.choices, summary=self.summary,
                            definitions=self.task_definitions, **options)

    def noise(self, metric: str = "accuracy_drop", *, vocab_size: int | None = None,
              dropout: bool = False) -> pd.DataFrame:
        """The noise task's rows x perturbations frame of ``metric`` (``"accuracy_drop"``,
        ``"stability"``, ``"dropout_accuracy_drop"``, ``"fertility_change"`` or
        ``"unk_rate_change"``), a ``mean`` column last; ``dropout``: each row's BPE-dropout
        classifier as a row below it (:func:`korean_bpe.compare.tasks.noise.noise_frame`).
        ValueError when the run had no noise task."""
        from .tasks.noise import noise_frame

        return noise_frame(self.table, metric, vocab_size=vocab_size, dropout=dropout)

    @property
    def alpha(self) -> float:
        """The significance level the marks use (``1 - confidence`` of the run)."""
        return 1 - float(self.config.get("confidence", stats.CONFIDENCE))

    def significant(self, metric: str) -> Any:
        """A boolean Series: the rows whose ``metric`` differs from their reference's at the run's
        level after Holm's correction (``<metric>_p_holm < alpha``); False where there is no p-value."""
        p = self.table[f"{metric}_p_holm"]
        return p.notna() & (p < self.alpha)
