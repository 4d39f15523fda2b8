"""``compare``: train every tokenization strategy on the same texts and measure it on held-out text.

The study of Park et al. 2020 (kakaobrain/kortok: jamo, syllable, morpheme, subword and
morpheme-aware subword tokenization on the same data), on your corpus, in one call:

>>> texts = ["영화 정말 재밌다", "영화 진짜 재밌어요", "정말 재밌는 영화", "진짜 최고의 영화"] * 5
>>> df = compare(texts, strategies=["whitespace/syllable", "baseline/word"], vocab_sizes=[20, 30],
...              show_progress=False, gold=None).table
>>> df[["strategy", "vocab_size", "actual_vocab_size", "tokens_per_doc", "round_trip_rate"]].to_string(index=False)
'           strategy  vocab_size  actual_vocab_size  tokens_per_doc  round_trip_rate\\nwhitespace/syllable          20                 20             7.0              1.0\\nwhitespace/syllable          30                 30             4.0              1.0\\n      baseline/word          20                  8             3.0              1.0\\n      baseline/word          30                  8             3.0              1.0'

(``baseline/word`` has only 7 words and ``<unk>``: ``actual_vocab_size`` 8 at both sizes.)

Strategies (:data:`DEFAULT_STRATEGIES`; ``strategies=`` names any subset, or a family: ``"bpe"``,
``"baseline"``, ``"peer"``, or a pre-tokenizer name such as ``"okt"`` for its three units):

* ``kind="bpe"``: our BPE over a pre-tokenizer x unit (``syllable``, ``jamo``, ``byte``), named
  ``"<pre-tokenizer>/<unit>"``: ``whitespace`` (어절), ``raw`` (SentencePiece style), ``okt-analysis``
  (Okt analysis mode: 조사, punctuation and foreign tokens dropped, the classic pipeline), and
  ``okt``, ``kiwi``, ``mecab`` in lossless mode (morpheme-aware BPE in kortok's sense);
* ``kind="baseline"``, no BPE: ``baseline/jamo``, ``baseline/syllable`` (a space is the token
  ``▁``), ``baseline/morpheme-okt`` (-kiwi, -mecab: the analyzer's lossless morphemes, each space a
  ``▁`` token) and ``baseline/word`` (어절); the vocabulary is ``<unk>`` plus the ``N - 1`` most
  frequent tokens of the training texts, the rest ``<unk>``;
* ``kind="peer"``: each name of :data:`korean_bpe.compare.peers.PEERS` (SentencePiece, HF, Kiwi),
  trained on the same texts at each size, except the greedy byte-level BPE peers
  (:data:`~korean_bpe.compare.peers.TRUNCATABLE_PEERS`: ``hf-bpe``, ``kiwi-bpe``), trained once at
  the largest size and truncated, which gives the model training at the smaller size gives (a test
  checks the ids).  A peer that crashes (``kiwi-swtokenizer`` on NSMC) is skipped at its remaining
  sizes with one note.

Two cores: ``n_jobs=2`` (or ``-1``, one worker per CPU) runs groups of strategies in spawned worker
processes (the peers' trainers beside our rows, the analyzers side by side) and gives the same
metrics as ``n_jobs=1``; as with any ``multiprocessing`` code, a script calling it needs the
``if __name__ == "__main__":`` guard.

A vocabulary sweep costs one training per BPE strategy: it is trained at the largest size and each
smaller size is ``model.truncate(n)`` (BPE merges are a usable prefix; a test shows the rows equal
separate trainings).  Pre-tokenization runs once per pre-tokenizer (training and held-out texts)
and is shared by its units and sizes and the baselines (the gold analyzer's morpheme spans of the
held-out texts are kept in the analysis cache); so are the held-out 어절
of each pre-tokenization, keyed by the words that cover them, so that a BPE row counts continued
어절 and boundaries once per distinct 어절 (a test shows the counts equal the per-text ones).  A size a strategy
cannot reach (merges stop at ``min_frequency``, a baseline runs out of tokens) gives a row whose
``actual_vocab_size`` is smaller; a size below a BPE strategy's alphabet is skipped with a note.

Columns: :data:`korean_bpe.compare.columns.TABLE` describes each one (dtype, header, unit, which
way is better, format, definition with its formula), and :data:`COLUMNS`, :data:`DTYPES`, the
printed table, the CLI's legend and the report's definitions are generated from it.  They are
measured on the held-out texts (``eval_texts``, or a seeded ``test_fraction`` of ``texts``), through
the same ``encode_batch`` a user calls; every per-document metric has a bootstrap interval and a
p-value against the row's reference (:mod:`korean_bpe.compare.stats`).  The morpheme gold is
every morpheme end inside an 어절 (:mod:`korean_bpe.compare.gold`).

The lossy ``okt-analysis`` rows (``drops_text``) measure what such a model sees: the dropped 조사, punctuation and
foreign characters are not encoded, so ``tokens_per_doc``, ``tokens_per_word`` (still per 어절 of
the original text), ``chars_per_token`` and ``bytes_per_token`` (characters and bytes of the
original text) count only the kept tokens; their characters count as unrepresentable, an 어절 left
with one token is not continued, and ``round_trip_rate`` is NaN (decoding cannot give them back).
All other metrics are defined as above.

Documents are taken as single lines: line-break characters inside one become spaces.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from ..pre_tokenizers.base import LINE_BREAKS
from . import metrics
from .assemble import build_frame, reduce_rows
from .columns import COLUMNS, DTYPES, definitions
from .config import CompareConfig
from .downstream import Downstream
from .execute import GC_THRESHOLDS, GroupResult, rare_collections, run_groups
from .heldout import THROUGHPUT_TEXTS, HeldOut
from .plan import Plan, Workspace
from .pretok import Pretokenizations
from .result import Comparison, Statistics
from .rows import Labelled, Row
from .strategies import BASELINES, BPE_PRE_TOKENIZERS, BPE_UNITS, DEFAULT_STRATEGIES, GOLD_ANALYZERS, resolve_strategies, why
from .table import format_table
from .tasks import Task
from .training import groups, strategy
from .summary import place_choices, summarize
from .verdict import choose, verdicts

__all__ = [
    "compare", "CompareConfig", "held_out_split", "Split", "format_table", "COLUMNS", "DTYPES", "DEFAULT_STRATEGIES",
    "Comparison", "Statistics", "Downstream", "BPE_PRE_TOKENIZERS", "BPE_UNITS", "BASELINES", "GOLD_ANALYZERS",
    "THROUGHPUT_TEXTS", "resolve_strategies", "rare_collections", "GC_THRESHOLDS", "fit_vocab_sizes",
]

_LINE_BREAK_TABLE = {ord(c): " " for c in LINE_BREAKS}


def _line_breaks_as_spaces(text: str) -> str:
    """A document as one line: stray line breaks become spaces (no token may hold one)."""
    return text.translate(_LINE_BREAK_TABLE)


def compare(texts: Sequence[str], *, eval_texts: Sequence[str] | None = None, labels: Sequence[int] | None = None,
            eval_labels: Sequence[int] | None = None, config: CompareConfig | None = None,
            **options: Any) -> Comparison:
    """One row per strategy x vocabulary size, measured on held-out text (see the module docstring):
    a :class:`~korean_bpe.compare.result.Comparison`.  ``texts`` are documents; without
    ``eval_texts`` a seeded ``test_fraction`` of them is held out (:func:`held_out_split`).
    ``labels`` (one int per text) and ``eval_labels`` (with ``eval_texts``) turn on the tasks that
    read labels (the probe, the downstream classifier).  The settings: a
    :class:`~korean_bpe.compare.config.CompareConfig` (``config``), or its fields as keywords
    (``strategies=``, ``vocab_sizes=``, ``gold=``, ``downstream=``, ``tasks=``, ``n_jobs=``, ...:
    each documented there), which override those of ``config``.
    """
    config = (config or CompareConfig()).replace(**options) if options else (config or CompareConfig())
    split = held_out_split(texts, eval_texts=eval_texts, labels=labels, eval_labels=eval_labels,
                           test_fraction=config.test_fraction, seed=config.seed)
    tasks = config.task_list()
    _check_labels(tasks, split)
    notes: list[str] = []
    statistics = config.statistics.for_run(len(split.test), len(config.strategies) * len(config.vocab_sizes), notes)
    _check_resample_table(statistics, len(split.test))
    plan = _plan(config, split, tasks, notes)
    grouped = groups(config.strategies)
    segmenters: dict[tuple[str, int], Any] | None = {} if config.keep_segmenters else None
    from ..progress import start_progress

    bar = start_progress(config.show_progress, total=len(config.strategies), desc="strategies", unit="strategy")
    try:
        done = run_groups(grouped, Workspace.open(plan, pretok=Pretokenizations(split.train, split.test),
                                                  show_progress=config.show_progress),
                          jobs=min(config.jobs, len(grouped)), bar=bar, segmenters=segmenters,
                          reduce=lambda rows: reduce_rows(rows, tasks, resamples=statistics.resamples, seed=config.seed))
    finally:
        bar.close()
    result = _result(config, statistics, split, tasks, grouped, done, notes)
    result.segmenters = segmenters
    result.config = config.to_config(statistics=statistics, held_out=split.describe(config.test_fraction),
                                     train_docs=len(split.train), test_docs=len(split.test),
                                     labels=split.train_labels is not None, jobs=min(config.jobs, len(grouped)))
    return result


@dataclass(frozen=True)
class Split:
    """The documents a comparison trains on and those it measures on, with their labels (None:
    none); ``given``: whether the held-out documents were given (``eval_texts``) rather than drawn."""

    train: list[str]
    test: list[str]
    train_labels: list[int] | None
    test_labels: list[int] | None
    given: bool

    def describe(self, test_fraction: float) -> str:
        """Where the held-out documents come from, as the configuration records it."""
        return "eval_texts" if self.given else f"a seeded {test_fraction:g} of texts"


def fit_vocab_sizes(texts: Sequence[str], sizes: Sequence[int], *, min_frequency: int = 2) -> tuple[list[int], int]:
    """The ``sizes`` this corpus supports, and the size whitespace syllable BPE reaches on it (trained
    once, at the largest size, with ``min_frequency``: where its merges run out); when none is
    supported, that size rounded down (to a thousand above 1,000, a hundred above 100, else to ten).  The default
    sizes of ``korean-bpe compare`` go through it, so that a small corpus does not give rows labelled
    16,000 that are 4,500-token models.

    >>> from korean_bpe.corpus import iter_texts
    >>> fit_vocab_sizes(list(iter_texts("constitution")), [4000, 8000, 16000])
    ([4000], 4554)
    >>> fit_vocab_sizes(list(iter_texts("constitution", limit=300)), [4000, 8000])
    ([1000], 1668)
    """
    from ..tokenizer import Tokenizer

    tok = Tokenizer.train(texts, vocab_size=max(sizes), pre_tokenizer="whitespace", unit="syllable",
                          min_frequency=min_frequency, show_progress=False)
    reached = tok.vocab_size
    kept = [n for n in sizes if n <= reached]
    if kept:
        return kept, reached
    step = 1000 if reached >= 1000 else 100 if reached >= 100 else 10
    return [reached // step * step or reached], reached


def held_out_split(texts: Sequence[str], *, eval_texts: Sequence[str] | None = None,
                   labels: Sequence[int] | None = None, eval_labels: Sequence[int] | None = None,
                   test_fraction: float = 0.1, seed: int = 0) -> Split:
    """The training and held-out documents of a comparison (:func:`compare` and the command line
    both ask this one function): without ``eval_texts``, a seeded ``test_fraction`` of ``texts``
    (:func:`korean_bpe.compare.metrics.split_indices`); with it, all of ``texts`` train and the
    non-blank ``eval_texts`` are measured.  Documents are single lines (line breaks become spaces).

    >>> split = held_out_split(["가", "나", "다", "라", "마"], test_fraction=0.4, seed=0)
    >>> len(split.train), len(split.test), sorted(split.train + split.test)
    (3, 2, ['가', '나', '다', '라', '마'])
    """
    train, test, train_labels, test_labels = _split(texts, eval_texts, labels, eval_labels, test_fraction, seed)
    return Split(train, test, train_labels, test_labels, eval_texts is not None)


def _check_labels(tasks: Sequence[Task], split: Split) -> None:
    """A task that needs labels refused without them, before any work."""
    for task in tasks:
        if task.labels == "required" and split.train_labels is None:
            raise ValueError(f"{task.name} needs labels: give labels (and eval_labels with eval_texts), or leave the "
                             f"{task.name} task out")


#: the most bytes of the bootstrap's resample table (resamples x held-out documents, one byte each)
_MAX_RESAMPLE_BYTES = 2**31


def _check_resample_table(statistics: Statistics, held_out: int) -> None:
    if (statistics.resamples or 0) * held_out > _MAX_RESAMPLE_BYTES:
        most = _MAX_RESAMPLE_BYTES // held_out
        raise ValueError(f"resamples={statistics.resamples:,} of {held_out:,} held-out documents need a "
                         f"{statistics.resamples * held_out / 2**30:.1f} GiB resample table; at most {most:,} fit "
                         f"{_MAX_RESAMPLE_BYTES / 2**30:.0f} GiB (e.g. Statistics(resamples={min(most, 10_000)}))")


def _plan(config: CompareConfig, split: Split, tasks: tuple[Task, ...], notes: list[str]) -> Plan:
    """The plan of a run: the held-out documents graded by the gold analyzer (or a note why not),
    the labelled training sample of the tasks that read labels, the peers' and the model cache's state."""
    held = HeldOut(split.test, split.test_labels)
    if config.gold is not None:
        from .gold import gold_boundaries, gold_spans

        try:
            held.grade(config.gold, gold_boundaries(gold_spans(config.gold, held.texts), held.word_spans))
        except (ImportError, RuntimeError, OSError, ValueError) as exc:
            notes.append(f"skipped the morpheme-boundary metrics (gold {config.gold}): {why(exc)}")
    labelled = None if split.train_labels is None else Labelled.sample(
        len(split.train), split.train_labels, {t.name: t.train_docs for t in tasks if t.labels != "unused"},
        seed=config.seed)
    cache_dir, texts_hash = None, ""
    if config.model_cache:
        from .model_cache import default_directory, texts_hash as hash_texts

        cache_dir, texts_hash = str(default_directory()), hash_texts(split.train)
    return Plan(split.train, held, tuple(config.vocab_sizes), config.seed, config.min_frequency, tasks, labelled,
                _peers_ok(list(config.strategies), notes, held.texts), tuple(config.pieces_texts), cache_dir,
                texts_hash)


def _result(config: CompareConfig, statistics: Statistics, split: Split, tasks: tuple[Task, ...],
            grouped: list[list[str]], done: dict[int, GroupResult], notes: list[str]) -> Comparison:
    """The comparison of the groups' results: the rows in the order of the strategies, the table,
    the verdicts, the notes, each group's timings and the pieces."""
    result = Comparison(table=None, held_out=split.test)  # type: ignore[arg-type]
    by_name: dict[str, list[Row]] = {}
    for k, got in sorted(done.items()):
        notes.extend(got.notes)
        result.pieces.update(got.pieces)
        result.timings[strategy(grouped[k][0]).group] = {"wall_s": got.wall_s, "cpu_s": got.cpu_s,
                                                         "rows": len(got.rows)}
        for row in got.rows:
            by_name.setdefault(row.strategy, []).append(row)
    rows = [row for name in config.strategies for row in by_name.get(name, [])]
    result.table = build_frame(rows, tasks, confidence=statistics.confidence, reference=statistics.reference,
                               notes=notes, resamples=statistics.resamples)
    result.verdicts = verdicts(rows, tasks, alpha=statistics.alpha)
    result.summary = summarize(rows, tasks, confidence=statistics.confidence)
    result.choices = place_choices(choose(result.verdicts, result.table), result.summary)
    extra = [c for task in tasks for c in task.columns]
    table = definitions()
    result.task_definitions = {k: v for k, v in definitions(extra).items() if k not in table}
    result.notes = notes
    from .report import package_versions

    result.versions = package_versions()
    return result


def _peers_ok(names: list[str], notes: list[str], held_texts: Sequence[str] = ()) -> bool:
    """Whether the peers module imports and every held-out text is one they can encode (a note when
    not and a peer was asked for: before any training, the other rows kept)."""
    peers = [n for n in names if strategy(n).needs_peers]
    if not peers:
        return True
    from ..tokens import SURROGATE

    bad = next((k for k, t in enumerate(held_texts) if SURROGATE.search(t)), None)
    if bad is not None:  # SentencePiece, HF and Kiwi take UTF-8 only: each would fail on it after training
        text = held_texts[bad]
        notes.append(f"skipped the peers ({', '.join(peers)}): held-out document {bad + 1} of {len(held_texts)} "
                     f"({text[:40]!r}{'...' if len(text) > 40 else ''}) holds a lone surrogate (U+D800..U+DFFF), which "
                     "UTF-8 cannot hold and the peers' libraries cannot encode; remove or repair it to measure them")
        return False
    try:
        from . import peers as _  # noqa: F401
    except ImportError as exc:
        notes.append(f"skipped the peers ({', '.join(peers)}): korean_bpe.compare.peers is not available "
                     f"({why(exc)})")
        return False
    return True


def _split(texts: Sequence[str], eval_texts: Sequence[str] | None, labels: Sequence[int] | None,
           eval_labels: Sequence[int] | None, test_fraction: float, seed: int) -> tuple[list[str], list[str], list[int] | None, list[int] | None]:
    if isinstance(texts, str):
        raise TypeError("texts must be a sequence of strings (documents), not one string; write [text]")
    texts = list(texts)
    if not texts or not all(isinstance(t, str) for t in texts):
        raise ValueError("texts must be a non-empty sequence of strings (documents)")
    if labels is not None:
        labels = list(labels)
        if len(labels) != len(texts):
            raise ValueError(f"labels must give one label per text: {len(labels)} labels for {len(texts)} texts")
    texts = [_line_breaks_as_spaces(t) for t in texts]
    if eval_texts is None:
        if eval_labels is not None:
            raise ValueError("eval_labels needs eval_texts; without eval_texts the held-out labels come from labels")
        train_idx, test_idx = metrics.split_indices(len(texts), test_fraction=test_fraction, seed=seed)
        train = [texts[i] for i in train_idx]
        test = [texts[i] for i in test_idx]
        train_labels = None if labels is None else [labels[i] for i in train_idx]
        test_labels = None if labels is None else [labels[i] for i in test_idx]
    else:
        if isinstance(eval_texts, str):
            raise TypeError("eval_texts must be a sequence of strings, not one string")
        eval_texts = list(eval_texts)
        if not all(isinstance(t, str) for t in eval_texts):
            raise TypeError("eval_texts must be a sequence of strings (documents) or None")
        if eval_labels is not None:
            eval_labels = list(eval_labels)
            if len(eval_labels) != len(eval_texts):
                raise ValueError(f"eval_labels must give one label per eval text: {len(eval_labels)} for "
                                 f"{len(eval_texts)} eval_texts")
        keep = [i for i, t in enumerate(eval_texts) if t.strip()]  # blank documents say nothing
        if not keep:
            raise ValueError("eval_texts holds no non-blank document: give some text to measure, or None")
        test = [_line_breaks_as_spaces(eval_texts[i]) for i in keep]
        test_labels = None if eval_labels is None else [eval_labels[i] for i in keep]
        train, train_labels = texts, labels
    if (train_labels is None) != (test_labels is None):
        raise ValueError("probe_accuracy needs labels for both splits: give labels and eval_labels together")
    return train, test, train_labels, test_labels
