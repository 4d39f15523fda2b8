"""The named-entity task: where each row's token boundaries fall against the entities of KLUE-NER,
and how well a small tagger trained on the row's tokens finds them.

Korean particles follow names inside the same 어절 (``<경찰:OG>은``, ``<박:PS>씨의``), so a token that
runs across an entity's start or end cannot be tagged exactly by any tagger that labels whole
tokens.  This task counts it, exactly, with no model, on a seeded share of the sentences (the test
sentences: :func:`split_sentences`, 20% by default, the rest kept for a tagger):

* ``ner_boundary_crossing``: the share of the gold entities' starts and ends (two per entity) that
  fall strictly inside a token (``a < position < b`` for a token's span ``(a, b)``);
* ``ner_ceiling_f1``: the micro F1 over entities (exact character span and type) of a perfect
  tagger that labels whole tokens: an entity is recoverable iff a token starts at its start, a
  token ends at its end and no token crosses either; such a tagger finds every recoverable entity
  and predicts nothing else, so precision is 1 and F1 = 2 R / (R + G) (R recoverable of G).

A row's token spans are its segmenter's ``pieces(text)`` (characters of the sentence), with white
space trimmed from each span (a byte-level token ``Ġ박`` spans the space before it) and empty spans
dropped.  Both metrics are ratios of sums over the test sentences (per sentence: crossing
boundaries, boundaries, recoverable entities, entities), with a bootstrap interval over the
sentences and a paired test like every held-out metric (:func:`korean_bpe.compare.stats.replicate_sums`).

*The tagger* (``tagger=``, a :class:`NerTagger`; on by default, ``tagger=False`` for the exact
metrics alone, without PyTorch) gives ``ner_entity_f1``: the micro F1 over the test sentences'
entities (exact character span and type) of a small tagger trained from scratch on the row's
tokens of the training sentences.  Its labels are BIO over tokens (:func:`bio_tags`): a token is
``B-X`` if the start of an entity X falls in it, ``I-X`` if it lies in X after its start, ``O``
else; a piece that spells only white space (the ``▁`` of a SentencePiece-style row) is read by the
model but has no label and is skipped when tags are turned back into entities.  The predicted
tags become character spans through the row's token spans (:func:`tagged_entities`: a ``B-X``, or
an ``I-X`` that continues no X, opens an entity, an ``I-X`` after X extends it to its token's end,
as conlleval reads tags).  A token that runs across an entity's edge therefore makes that entity
unreachable, so ``ner_entity_f1 <= ner_ceiling_f1`` always (the tagger's true positives are
recoverable entities).  The model (:func:`predict_tags`): token embeddings (64; the tokens seen at
least twice in training, the others one unknown row), :attr:`NerTagger.layers` convolutions of
width 3 over the tokens (ReLU, the padding masked after each), dropout 0.2 and a linear layer per
token; AdamW with the warm-up and cosine schedule of the downstream stage
(:func:`korean_bpe.compare.downstream.learning_rate`); :attr:`NerTagger.seeds` models a row, seeds
``row.seed, row.seed + 1, ...``.  ``ner_entity_f1`` is the mean of the seeds' F1 (``ner_f1_seed_sd``
their spread); its interval is the two-stage bootstrap of the downstream stage (the test sentences
drawn as for the exact metrics, the seeds drawn with replacement), its p-value the paired
bootstrap against the reference row.

What it costs (defaults: 2 seeds, 4 epochs, 3 convolutions, batches of 32, the 4,000 training
sentences; one CPU thread).  The worst row, every character a token (about 45 tokens a sentence),
trains one seed in 5.7 s of CPU on this 2-core machine at a load average of 3 (10 s at 5.5, the
cores shared with other jobs).  A run on the 8,000 reviews of ``nsmc-sample`` at 8,000 tokens
(2026-11-28, load average 4.5, so the times are high; ``ner_s`` is the task's CPU a row, the
pieces of the 5,000 sentences included):

=====================  =============  ===============  ==============  ==========  =====
row                    ner_entity_f1  95% interval     ner_ceiling_f1  seed sd     ner_s
=====================  =============  ===============  ==============  ==========  =====
whitespace/syllable    45.89          [43.99, 47.85]   94.46           0.16        14.6
raw/syllable           44.78          [42.29, 47.37]   94.46           1.39        13.8
kiwi/syllable          54.16          [51.57, 56.73]   99.96           1.45        19.7
baseline/syllable      48.09          [45.91, 50.18]   100.00          0.53        17.8
=====================  =============  ===============  ==============  ==========  =====

(paired p against whitespace/syllable: raw 0.18, Kiwi 0.002, characters 0.02; the study took 120 s
of wall time with the tokenizers' training.)  Two seeds, not three, keep the worst row near 20 s
of CPU.  On characters, one seed, 4 epochs: these 3 convolutions 47% F1 in 5.7 s of CPU, 2 of them
43%, a 1-layer BiGRU (32 a direction, batches of 64) 40% in 8.0 s; one convolution reached 35%
in 8 epochs.

*Folds* (``folds=k``): instead of one seeded split, the sentences in ``k`` seeded folds, each
scored by the exact metrics and by taggers trained on the other folds: every sentence is a test
sentence once, the tagger's cost grows ``k``-fold.

The data is KLUE-NER v1.1 (Park et al., "KLUE: Korean Language Understanding Evaluation", NeurIPS
2021 Datasets and Benchmarks; github.com/KLUE-benchmark/KLUE, CC BY-SA 4.0): its published dev split,
5,000 sentences and 14,257 entities (PS, LC, OG, DT, TI, QT).  Nothing of it ships with korean_bpe:
the task reads the file it is given, else ``$KOREAN_BPE_KLUE_NER_DIR``, else
``../shared/corpora/klue-ner`` beside the repository (:func:`klue_ner_path`).

A hand-counted case: whitespace tokens of ``경찰은 또`` keep the particle with the name, the
entity's end falls inside ``경찰은``; a token ``경찰`` and a token ``은`` recover it:

>>> s = read_klue_ner_lines(["## s1\\t<경찰:OG>은 또", "경\\tB-OG", "찰\\tI-OG", "은\\tO", " \\tO", "또\\tO"])[0]
>>> s.text, s.entities
('경찰은 또', ((0, 2, 'OG'),))
>>> entity_counts(s.entities, [(0, 3), (4, 5)])     # crossing, boundaries, recoverable, entities
(1, 2, 0, 1)
>>> entity_counts(s.entities, [(0, 2), (2, 3), (4, 5)])
(0, 2, 1, 1)
>>> bio_tags(s.entities, [(0, 3), (4, 5)]), bio_tags(s.entities, [(0, 1), (1, 2), (2, 3), (4, 5)])
(['B-OG', 'O'], ['B-OG', 'I-OG', 'O', 'O'])
>>> tagged_entities([(0, 3), (4, 5)], ['B-OG', 'O'])      # the particle comes with the name: not (0, 2)
[(0, 3, 'OG')]
"""

from __future__ import annotations

import os
import re
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, fields
from pathlib import Path
from typing import Any

from ..columns import Column
from ..downstream import MAX_EPOCHS, MAX_SEEDS
from ..rows import Measured, RowInput
from .base import BaseTask, register_task

__all__ = ["NerTask", "NerTagger", "NerSentence", "read_klue_ner", "read_klue_ner_lines", "klue_ner_path",
           "split_sentences", "fold_sentences", "token_spans", "trimmed_pieces", "entity_counts", "bio_tags",
           "tagged_entities", "predict_tags", "KLUE_NER_FILE", "NER_TEST_FRACTION"]

#: the file of the KLUE-NER dev split in its directory
KLUE_NER_FILE = "klue-ner-v1.1_dev.tsv"
#: the share of the sentences the exact metrics are measured on by default (the rest train a tagger)
NER_TEST_FRACTION = 0.2
_HEADER = re.compile(r"## (\S+)\t")
_TAG = re.compile(r"O|[BI]-[A-Za-z_]+")
_P = "%"
#: the parts counted per test sentence: the columns of the evidence
PARTS = ("crossing", "boundaries", "recoverable", "entities")
#: what the tagger's evidence counts per seed and test sentence: entities found right, predicted, gold
TAGGER_PARTS = ("tp", "predicted", "gold")
_IGNORE = -100  # the label of a piece without a span: read, never scored
_PAD_ID, _UNKNOWN_ID, _FIRST_ID = 0, 1, 2
_WIDTH, _DROPOUT = 3, 0.2
_NER_DEVICES = ("auto", "cpu", "cuda")


@dataclass(frozen=True)
class NerTagger:
    """Settings of the NER task's tagger (``NerTask(tagger=NerTagger(...))`` or a dict of these fields).

    >>> NerTagger().describe()
    'CNN tagger (embeddings 64, 3 convolutions of width 3), 4 epochs, batch 32, lr 0.01 warm-up + cosine, 2 seeds, tokens seen at least 2 times'
    >>> NerTagger(seeds=0)
    Traceback (most recent call last):
      ...
    ValueError: NerTagger(seeds=0): must be an int >= 1 and <= 100
    """

    #: models trained per row, seeds ``row.seed, row.seed + 1, ...``: their F1s are averaged
    seeds: int = 2
    #: passes over the training sentences
    epochs: int = 4
    #: embedding width, and the channels of each convolution
    dim: int = 64
    #: convolutions of width 3 stacked (each sees one token more on either side)
    layers: int = 3
    #: sentences per batch
    batch_size: int = 32
    #: AdamW's peak learning rate (warm-up, then cosine decay to 0:
    #: :func:`korean_bpe.compare.downstream.learning_rate`)
    learning_rate: float = 1e-2
    #: a token gets its own embedding when the training sentences hold it this often; rarer ones
    #: share the unknown row (which then learns, where a token seen once would not)
    min_count: int = 2
    #: ``"auto"`` (CUDA when torch sees a GPU, else the CPU), ``"cpu"`` or ``"cuda"``
    device: str = "auto"
    #: CPU threads torch may use (one: the same numbers on any machine, workers side by side)
    threads: int = 1

    def __post_init__(self) -> None:
        for name, low, high in (("seeds", 1, MAX_SEEDS), ("epochs", 1, MAX_EPOCHS), ("dim", 2, None),
                                ("layers", 1, None), ("batch_size", 1, None), ("min_count", 1, None),
                                ("threads", 1, None)):
            value = getattr(self, name)
            if isinstance(value, bool) or not isinstance(value, int) or value < low or (high is not None and value > high):
                raise ValueError(f"NerTagger({name}={value!r}): must be an int >= {low}"
                                 + (f" and <= {high:,}" if high is not None else ""))
        if isinstance(self.learning_rate, bool) or not isinstance(self.learning_rate, (int, float)) or \
                not 0 < self.learning_rate < 1:
            raise ValueError(f"NerTagger(learning_rate={self.learning_rate!r}): must be a number in (0, 1)")
        if self.device not in _NER_DEVICES:
            raise ValueError(f"NerTagger(device={self.device!r}): use one of {', '.join(map(repr, _NER_DEVICES))}")

    def describe(self) -> str:
        """One line for reports: the model and the settings that change its numbers."""
        return (f"CNN tagger (embeddings {self.dim}, {self.layers} convolution{'s' if self.layers > 1 else ''} of "
                f"width {_WIDTH}), {self.epochs} epoch{'s' if self.epochs > 1 else ''}, batch {self.batch_size}, "
                f"lr {self.learning_rate:g} warm-up + cosine, {self.seeds} seed{'s' if self.seeds > 1 else ''}, "
                f"tokens seen at least {self.min_count} times")

    def to_config(self) -> dict[str, Any]:
        """The settings as a plain dict (the comparison's configuration records it)."""
        return {f.name: getattr(self, f.name) for f in fields(self)}


@dataclass(frozen=True)
class NerSentence:
    """One sentence of KLUE-NER: its id, its text (the characters of its lines) and its entities as
    ``(start, end, type)`` character spans, in order."""

    id: str
    text: str
    entities: tuple[tuple[int, int, str], ...]


def klue_ner_path() -> Path | None:
    """The KLUE-NER file: :data:`KLUE_NER_FILE` in ``$KOREAN_BPE_KLUE_NER_DIR``, else in
    ``../shared/corpora/klue-ner`` beside the repository; None when neither holds it."""
    from ...corpus import shared_corpus_dir

    found = shared_corpus_dir("klue-ner", env="KOREAN_BPE_KLUE_NER_DIR", files=(KLUE_NER_FILE,))
    return None if found is None else found / KLUE_NER_FILE


@register_task("ner")
class NerTask(BaseTask):
    """``ner_boundary_crossing``, ``ner_ceiling_f1`` and ``ner_entity_f1`` of each row on the test
    sentences of KLUE-NER (see the module).  ``path``: the KLUE-NER file, or its directory (None:
    :func:`klue_ner_path`); ``test_fraction`` and ``split_seed``: the seeded sentence split
    (:func:`split_sentences`); ``folds``: k seeded folds instead (:func:`fold_sentences`; every
    sentence tested once, ``test_fraction`` unused); ``tagger``: the tagger's settings (a
    :class:`NerTagger`, a dict of its fields, or True for the defaults), or False for the exact
    metrics alone (no PyTorch needed).  The file is read when the task is made: a missing or
    malformed file, or a tagger without a training sentence, fails before any training."""

    name = "ner"
    labels = "unused"  # the task brings its own entities
    metrics: tuple[str, ...] = ("ner_entity_f1", "ner_boundary_crossing", "ner_ceiling_f1")
    verdict: tuple[tuple[str, str], ...] = (("entity tagging", "ner_entity_f1"),
                                            ("entity boundaries", "ner_boundary_crossing"))
    columns: tuple[Column, ...] = (
        Column("ner_entity_f1", "float64", "micro F1 over the entities (exact character span and type) of the "
               "KLUE-NER test sentences of a small tagger trained from scratch on the row's tokens of the training "
               "sentences (BIO over tokens, predictions mapped back to characters through the token spans), the "
               "mean of its seeds' (task ner; two-stage bootstrap of the sentences and the seeds; never above "
               "ner_ceiling_f1)", "nerF1%", _P, "higher", "{:.2f}", True),
        Column("ner_entity_precision", "float64", "share of the tagger's predicted entities that are gold entities "
               "(exact span and type), the mean of its seeds' (task ner)", unit=_P, direction="higher",
               format="{:.2f}"),
        Column("ner_entity_recall", "float64", "share of the gold entities the tagger predicts exactly, the mean of "
               "its seeds' (task ner)", unit=_P, direction="higher", format="{:.2f}"),
        Column("ner_f1_seed_sd", "float64", "standard deviation of the tagger's per-seed ner_entity_f1 (NaN for one "
               "seed; task ner)", unit=_P, format="{:.2f}"),
        Column("ner_boundary_crossing", "float64", "share of the gold entity starts and ends of the KLUE-NER test "
               "sentences that fall strictly inside one of the row's tokens (white space trimmed from the tokens' "
               "spans): an entity edge no tagger of whole tokens can mark (task ner; exact, no model)", "nerX%", _P,
               "lower", "{:.2f}", True),
        Column("ner_ceiling_f1", "float64", "micro F1 over the entities (exact span and type) of a perfect tagger "
               "of whole tokens on those sentences: 2 R / (R + G), R the entities whose start and end are token "
               "boundaries, G all (task ner)", "nerCeil%", _P, "higher", "{:.2f}", True),
        Column("ner_s", "float64", "CPU seconds of the ner task on the row: the pieces of the sentences, the exact "
               "counts and the tagger's training and predictions", unit="s", format="{:.1f}"),
    )
    #: the columns and metrics that only the tagger gives
    _TAGGER_COLUMNS = ("ner_entity_f1", "ner_entity_precision", "ner_entity_recall", "ner_f1_seed_sd")

    def __init__(self, path: str | os.PathLike[str] | None = None, *, test_fraction: float = NER_TEST_FRACTION,
                 split_seed: int = 0, folds: int | None = None,
                 tagger: NerTagger | Mapping[str, Any] | bool = True) -> None:
        if isinstance(test_fraction, bool) or not isinstance(test_fraction, (int, float)) or \
                not 0 < test_fraction < 1:
            raise ValueError(f"NerTask(test_fraction={test_fraction!r}): must be a number between 0 and 1, "
                             "e.g. 0.2 (the share of the sentences measured on)")
        if isinstance(split_seed, bool) or not isinstance(split_seed, int) or split_seed < 0:
            raise ValueError(f"NerTask(split_seed={split_seed!r}): must be an int >= 0")
        if folds is not None and (isinstance(folds, bool) or not isinstance(folds, int) or folds < 2):
            raise ValueError(f"NerTask(folds={folds!r}): must be an int >= 2 (k-fold), or None (one split of "
                             "test_fraction)")
        settings = NerTagger() if tagger is True else None if tagger is False or tagger is None else \
            NerTagger(**tagger) if isinstance(tagger, Mapping) else tagger
        if settings is not None and not isinstance(settings, NerTagger):
            raise TypeError(f"NerTask(tagger=...) must be a korean_bpe.compare.tasks.ner.NerTagger, a dict of its "
                            f"fields, True (the defaults) or False (no tagger), got {tagger!r}")
        self.path = _file(path)
        self.test_fraction, self.split_seed, self.folds, self.tagger = float(test_fraction), split_seed, folds, settings
        self.sentences = read_klue_ner(self.path)
        n = len(self.sentences)
        if folds is not None and folds > n:
            raise ValueError(f"NerTask(folds={folds}): {self.path} holds {n} sentence{'s' if n > 1 else ''}; give "
                             f"folds <= {n}, or folds=None")
        #: (training, test) sentence indices of each split: one, or one per fold
        self.splits = fold_sentences(n, folds=folds, seed=split_seed) if folds is not None else \
            [split_sentences(n, test_fraction=self.test_fraction, seed=split_seed)]
        self.test_idx = sorted(i for _, test in self.splits for i in test)
        self.train_idx = self.splits[0][0] if folds is None else []
        if settings is None:
            self.metrics = tuple(m for m in self.metrics if m not in self._TAGGER_COLUMNS)
            self.verdict = tuple(v for v in self.verdict if v[1] not in self._TAGGER_COLUMNS)
            self.columns = tuple(c for c in self.columns if c.name not in self._TAGGER_COLUMNS)
            return
        from ..downstream import require_torch

        require_torch()  # the install hint now, not after the rows are trained
        if any(not train for train, _ in self.splits):
            raise ValueError(f"NerTask: {self.path} holds {n} sentence{'s' if n > 1 else ''}, all of them test "
                             "sentences: the tagger has nothing to train on; give a file of more sentences, or "
                             "tagger=False for the exact metrics alone")
        self.types = sorted({kind for s in self.sentences for _, _, kind in s.entities})

    @property
    def test(self) -> list[NerSentence]:
        return [self.sentences[i] for i in self.test_idx]

    def measure(self, row: RowInput) -> Measured:
        import time

        import numpy as np

        cpu = time.process_time()
        pieces = row.segmenter.pieces
        needed = set(self.test_idx) if self.tagger is None else range(len(self.sentences))
        trimmed = {i: trimmed_pieces(self.sentences[i].text, pieces(self.sentences[i].text)) for i in needed}
        spans = {i: [(a, b) for _, a, b in trimmed[i] if a < b] for i in self.test_idx}
        test = self.test
        parts = np.array([entity_counts(s.entities, spans[i]) for i, s in zip(self.test_idx, test)],
                         dtype=np.int64).reshape(len(test), len(PARTS))
        crossing, boundaries, recoverable, entities = (int(v) for v in parts.sum(0))
        notes: list[str] = []
        if not entities:
            notes.append(f"ner: the {len(test)} test sentences hold no entity: no ner_boundary_crossing, "
                         "ner_ceiling_f1 or ner_entity_f1")
        columns = {
            "ner_boundary_crossing": crossing / boundaries if boundaries else float("nan"),
            "ner_ceiling_f1": 2 * recoverable / (recoverable + entities) if entities else float("nan"),
        }
        evidence: dict[str, Any] = {"parts": parts}
        if self.tagger is not None:
            counts, tagger_notes = self._tagged(row, trimmed)
            notes += tagger_notes
            evidence["tagger"] = counts
            columns |= _tagger_columns(counts)
        columns["ner_s"] = time.process_time() - cpu
        return Measured(columns, evidence=evidence, notes=tuple(notes))

    def _tagged(self, row: RowInput, trimmed: Mapping[int, list[tuple[str, int, int]]]) -> tuple[Any, list[str]]:
        """The tagger's counts (:data:`TAGGER_PARTS`), seeds x test sentences (in ``test_idx``'s
        order) x 3, over every split; and its notes."""
        import numpy as np

        from ...progress import start_progress

        settings = self.tagger
        assert settings is not None
        tags = ["O", *(f"{p}-{kind}" for kind in self.types for p in "BI")]
        where = {i: k for k, i in enumerate(self.test_idx)}
        counts = np.zeros((settings.seeds, len(self.test_idx), len(TAGGER_PARTS)), dtype=np.int64)
        notes = []
        bar = start_progress(row.show_progress, total=settings.seeds * settings.epochs * len(self.splits),
                             desc=f"ner {row.strategy} {row.vocab_size:,}", unit="epoch")
        try:
            for train, test in self.splits:
                if not any(self.sentences[i].entities for i in train):
                    notes.append(f"ner: the {len(train):,} training sentences hold no entity: the tagger of "
                                 f"{row.strategy} learns to predict none")
                labels = [[_IGNORE if a == b else tags.index(t) for (_, a, b), t in
                           zip(trimmed[i], bio_tags(self.sentences[i].entities, [(a, b) for _, a, b in trimmed[i]]))]
                          for i in train]
                predicted = self._predicted(row, [[t for t, _, _ in trimmed[i]] for i in train], labels,
                                            [[t for t, _, _ in trimmed[i]] for i in test], len(tags), bar)
                for s in range(settings.seeds):
                    for i, pred in zip(test, predicted[s]):
                        found = set(tagged_entities([(a, b) for _, a, b in trimmed[i]], [tags[t] for t in pred]))
                        gold = set(self.sentences[i].entities)
                        counts[s, where[i]] = (len(found & gold), len(found), len(gold))
        finally:
            bar.close()
        return counts, notes

    def _predicted(self, row: RowInput, train_tokens: list[list[str]], train_labels: list[list[int]],
                   test_tokens: list[list[str]], n_tags: int, bar: Any) -> list[list[list[int]]]:
        """:func:`predict_tags` of one split, kept in the comparison's model cache (on the CPU, where
        training is deterministic): a rerun on the same tokens, labels, settings and seed trains
        no tagger (:func:`korean_bpe.compare.downstream.kept_model_scores`)."""
        from ..downstream import kept_model_scores
        from ..model_cache import data_hash

        settings = self.tagger
        assert settings is not None

        def make() -> tuple[list[list[list[int]]], dict[str, Any]]:
            tags = predict_tags(train_tokens, train_labels, test_tokens, n_tags=n_tags, settings=settings,
                                seed=row.seed, progress=bar)
            return tags, {"tags": tags}

        def load(entry: dict[str, Any]) -> list[list[list[int]]] | None:
            tags = entry["tags"]
            shape_ok = len(tags) == settings.seeds and all(
                len(seed) == len(test_tokens) and all(len(t) == len(s) for t, s in zip(seed, test_tokens)) for seed in tags)
            return tags if shape_ok and all(isinstance(t, int) for seed in tags for s in seed for t in s) else None

        fields = {"kind": "ner-tagger", "inputs": data_hash([train_tokens, train_labels, test_tokens, n_tags]),
                  "settings": settings.to_config(), "seed": row.seed}
        return kept_model_scores(row.model_cache, settings, fields, make=make, load=load,
                                 code=("korean_bpe.compare.tasks.ner", "korean_bpe.compare.downstream"))

    def replicates(self, evidence: Any, *, point: Mapping[str, Any], resamples: int, seed: int) -> dict[str, Any]:
        """The exact metrics on each resample of the test sentences (ratios of the resample's sums),
        and ``ner_entity_f1`` on each of a two-stage bootstrap: the sentences drawn as for the exact
        metrics, the seeds' models with replacement (:func:`korean_bpe.compare.stats.seed_counts`),
        the mean over the drawn models of each one's F1 on the drawn sentences."""
        import numpy as np

        from .. import stats

        parts = evidence["parts"]
        if len(parts) < stats.MIN_DOCUMENTS or not parts[:, PARTS.index("entities")].any():
            return {}
        draws = stats.resample_counts(len(parts), resamples=resamples, seed=seed)
        sums = stats.replicate_sums(parts, draws)
        crossing, boundaries, recoverable, entities = (sums[:, k] for k in range(len(PARTS)))
        with np.errstate(divide="ignore", invalid="ignore"):
            out = {"ner_boundary_crossing": np.where(boundaries > 0, crossing / boundaries, np.nan),
                   "ner_ceiling_f1": np.where(entities > 0, 2 * recoverable / (recoverable + entities), np.nan)}
            if "tagger" in evidence:
                counts = evidence["tagger"]
                f1 = np.empty((resamples, counts.shape[0]))
                for s in range(counts.shape[0]):
                    tp, predicted, gold = stats.replicate_sums(counts[s], draws).T
                    f1[:, s] = np.where(predicted + gold > 0, 2 * tp / (predicted + gold), np.nan)
                weights = stats.seed_counts(counts.shape[0], resamples=resamples, seed=seed)
                out["ner_entity_f1"] = (f1 * weights).sum(1) / counts.shape[0]
        return out

    def to_config(self) -> dict[str, Any]:
        split = {"folds": self.folds} if self.folds is not None else \
            {"test_fraction": self.test_fraction, "train_sentences": len(self.train_idx)}
        config = {"path": str(self.path), "sentences": len(self.sentences), **split, "split_seed": self.split_seed,
                  "test_sentences": len(self.test_idx),
                  "test_entities": sum(len(self.sentences[i].entities) for i in self.test_idx)}
        if self.tagger is None:
            return config | {"tagger": False}
        from ..downstream import require_torch, torch_device

        device = torch_device(require_torch(), self.tagger.device, owner="NerTagger").type
        return config | {"tagger": {**self.tagger.to_config(), "device_used": device, "model": self.tagger.describe(),
                                    "labels": "BIO over tokens: B-X where an entity X starts inside the token, I-X "
                                              "inside X after its start, O else; white-space pieces unlabelled",
                                    "scored": "micro F1 over the test entities, exact character span and type, the "
                                              "mean of the seeds'"}}

    def __repr__(self) -> str:
        split = f"folds={self.folds}" if self.folds is not None else f"test_fraction={self.test_fraction}"
        return (f"NerTask({str(self.path)!r}, {split}, split_seed={self.split_seed}, "
                f"tagger={self.tagger if self.tagger is not None else False!r})")


def _tagger_columns(counts: Any) -> dict[str, Any]:
    """``ner_entity_f1`` and its companions from the tagger's counts (seeds x sentences x
    :data:`TAGGER_PARTS`): each seed's micro F1, precision and recall over the sentences, their means;
    ``ner_entity_unlearned``, how a tagger that learned nothing shows (``""``: it learned), which
    leaves its ``ner_entity_`` metrics out of the verdict (:func:`korean_bpe.compare.verdict.unlearned`)."""
    import math

    import numpy as np

    tp, predicted, gold = (counts[:, :, k].sum(1).astype(np.float64) for k in range(len(TAGGER_PARTS)))
    with np.errstate(divide="ignore", invalid="ignore"):
        f1 = np.where(predicted + gold > 0, 2 * tp / (predicted + gold), np.nan)
        precision = np.where(predicted > 0, tp / predicted, np.nan)
        recall = np.where(gold > 0, tp / gold, np.nan)
    if not gold.any():
        return {"ner_entity_f1": math.nan, "ner_entity_precision": math.nan, "ner_entity_recall": math.nan,
                "ner_f1_seed_sd": math.nan, "ner_entity_unlearned": ""}
    return {"ner_entity_f1": float(np.mean(f1)),
            # not a column of the table (the verdict and a note read it): every seed's tagger found no
            # entity in any test sentence, tagging every token O, the most frequent tag
            "ner_entity_unlearned": "" if predicted.any() else "it tags every token O: no entity in any test sentence",
            # a seed that predicts nothing has no precision: the mean of those that predict
            "ner_entity_precision": float(np.nanmean(precision)) if not np.isnan(precision).all() else math.nan,
            "ner_entity_recall": float(np.mean(recall)),
            "ner_f1_seed_sd": float(np.std(f1, ddof=1)) if len(f1) > 1 else math.nan}


def _file(path: str | os.PathLike[str] | None) -> Path:
    """The KLUE-NER file: ``path`` (a directory: :data:`KLUE_NER_FILE` in it), else
    :func:`klue_ner_path`; CorpusError with the fix."""
    from ...corpus import CorpusError

    if path is None:
        found = klue_ner_path()
        if found is None:
            raise CorpusError(f"the KLUE-NER data was not found: give the path of {KLUE_NER_FILE} (github.com/"
                              "KLUE-benchmark/KLUE, klue_benchmark/klue-ner-v1.1/), or set KOREAN_BPE_KLUE_NER_DIR "
                              "to its directory")
        return found
    given = Path(path).expanduser()
    return given / KLUE_NER_FILE if given.is_dir() else given


def read_klue_ner(path: str | os.PathLike[str]) -> list[NerSentence]:
    """The sentences of a KLUE-NER file (:func:`read_klue_ner_lines` of its lines, UTF-8);
    :class:`~korean_bpe.corpus.CorpusError` (a ValueError) naming the file for a missing file, and
    with its line number for a malformed line."""
    from ...corpus import CorpusError

    path = Path(path)
    if not path.is_file():
        raise CorpusError(f"{path} not found: give the KLUE-NER file ({KLUE_NER_FILE}) or its directory")
    with path.open(encoding="utf-8-sig", newline="") as f:
        return read_klue_ner_lines((line.rstrip("\r\n") for line in f), source=str(path))


def read_klue_ner_lines(lines: Iterable[str], *, source: str = "<lines>") -> list[NerSentence]:
    """The sentences of KLUE-NER's format, line by line (no line endings): ``## ID<TAB>sentence``
    opens a sentence (other ``##`` lines are comments), each ``CHAR<TAB>TAG`` line is one character
    of it with its BIO tag (``O``, ``B-PS``, ``I-PS``, ...; a space is a character), a blank line
    ends it.  The entities come from the tags: ``B-X`` starts one of type X, ``I-X`` continues it.
    :class:`~korean_bpe.corpus.CorpusError` (a ValueError) with ``source`` and the line number for
    a line that is neither, a tag that is not BIO, an ``I-X`` that continues no entity of type X,
    and for input without a sentence.

    >>> read_klue_ner_lines(["## a\\t<박:PS>씨", "박\\tB-PS", "씨\\tI-OG"])
    Traceback (most recent call last):
      ...
    korean_bpe.corpus.CorpusError: <lines>, line 3: I-OG continues no OG entity (the tag before is B-PS); an entity starts with B-OG
    """
    from ...corpus import CorpusError

    out: list[NerSentence] = []
    current = ""
    chars: list[str] = []
    tags: list[tuple[str, int]] = []

    def finish() -> None:
        if chars:
            out.append(NerSentence(current or f"sentence {len(out) + 1}", "".join(chars), _entities(tags, source)))
        chars.clear()
        tags.clear()

    for number, line in enumerate(lines, 1):
        if not line:
            finish()
            current = ""
            continue
        if line.startswith("##"):
            header = _HEADER.match(line)
            if header:
                finish()
                current = header.group(1)
            continue
        fields = line.split("\t")
        if len(fields) != 2 or len(fields[0]) != 1 or not _TAG.fullmatch(fields[1]):
            raise CorpusError(f"{source}, line {number}: expected one character, a tab and a BIO tag (O, B-PS, "
                              f"I-PS, ...), got {line[:40]!r}")
        chars.append(fields[0])
        tags.append((fields[1], number))
    finish()
    if not out:
        raise CorpusError(f"{source} holds no sentence (KLUE-NER's format: '## ID<TAB>sentence', then CHAR<TAB>TAG "
                          "lines, a blank line after each sentence)")
    return out


def _entities(tags: Sequence[tuple[str, int]], source: str) -> tuple[tuple[int, int, str], ...]:
    """The ``(start, end, type)`` spans of BIO ``tags`` (each with its line number)."""
    from ...corpus import CorpusError

    out: list[tuple[int, int, str]] = []
    start, kind = -1, ""
    for i, (tag, number) in enumerate(tags):
        if tag.startswith("I-") and tag[2:] == kind:
            continue
        if tag.startswith("I-"):
            before = tags[i - 1][0] if i else "the sentence's start"
            raise CorpusError(f"{source}, line {number}: {tag} continues no {tag[2:]} entity (the tag before is "
                              f"{before}); an entity starts with B-{tag[2:]}")
        if kind:
            out.append((start, i, kind))
        start, kind = (i, tag[2:]) if tag != "O" else (-1, "")
    if kind:
        out.append((start, len(tags), kind))
    return tuple(out)


def split_sentences(n: int, *, test_fraction: float, seed: int) -> tuple[list[int], list[int]]:
    """``(train, test)``: the indices of ``n`` sentences in a seeded random split, ``round(n *
    test_fraction)`` of them (at least 1) in test, each list in order.

    >>> split_sentences(10, test_fraction=0.2, seed=0)
    ([0, 1, 2, 3, 4, 5, 6, 9], [7, 8])
    """
    import random

    order = list(range(n))
    random.Random(seed).shuffle(order)
    k = min(n, max(1, round(n * test_fraction)))
    return sorted(order[k:]), sorted(order[:k])


def fold_sentences(n: int, *, folds: int, seed: int) -> list[tuple[list[int], list[int]]]:
    """``(train, test)`` of each of ``folds`` folds of ``n`` sentences: a seeded shuffle (the one of
    :func:`split_sentences`) cut into ``folds`` parts as even as can be, each the test of one fold
    and the rest its training; each list in order.

    >>> fold_sentences(5, folds=2, seed=0)
    [([1, 4], [0, 2, 3]), ([0, 2, 3], [1, 4])]
    """
    import random

    if not 2 <= folds <= n:
        raise ValueError(f"folds={folds}: need 2 to {n} folds of {n} sentences")
    order = list(range(n))
    random.Random(seed).shuffle(order)
    parts = [sorted(order[k::folds]) for k in range(folds)]
    return [(sorted(i for j, part in enumerate(parts) if j != k for i in part), parts[k]) for k in range(folds)]


def trimmed_pieces(text: str, pieces: Iterable[tuple[str, int, int]]) -> list[tuple[str, int, int]]:
    """``pieces`` (a segmenter's ``(token, start, end)`` in ``text``) with white space trimmed from
    each span; a piece that spells only white space keeps an empty span at its end.

    >>> trimmed_pieces("박 씨", [("박", 0, 1), ("▁", 1, 2), ("씨", 2, 3)])
    [('박', 0, 1), ('▁', 2, 2), ('씨', 2, 3)]
    """
    out = []
    for token, a, b in pieces:
        while a < b and text[a].isspace():
            a += 1
        while b > a and text[b - 1].isspace():
            b -= 1
        out.append((token, a, b))
    return out


def token_spans(text: str, pieces: Iterable[tuple[str, int, int]]) -> list[tuple[int, int]]:
    """The ``(start, end)`` character spans of ``pieces`` (a segmenter's ``(token, start, end)``) in
    ``text``, white space trimmed from each, empty ones dropped (:func:`trimmed_pieces`).

    >>> token_spans("박 씨의", [("박", 0, 1), ("Ġ씨", 1, 3), ("의", 3, 4), ("▁", 4, 4)])
    [(0, 1), (2, 3), (3, 4)]
    """
    return [(a, b) for _, a, b in trimmed_pieces(text, pieces) if a < b]


def entity_counts(entities: Sequence[tuple[int, int, str]], spans: Sequence[tuple[int, int]]) -> tuple[int, int, int, int]:
    """``(crossing, boundaries, recoverable, entities)`` of one sentence: how many of the entities'
    starts and ends fall strictly inside a token of ``spans``, of how many (two an entity), how
    many entities a tagger of whole tokens can recover exactly (a token starts at the start, one
    ends at the end, none crosses either), of how many.

    >>> entity_counts([(0, 1, "PS"), (5, 9, "DT")], [(0, 2), (2, 3), (4, 9)])   # an end inside (0, 2), a start inside (4, 9)
    (2, 4, 0, 2)
    """
    starts = {a for a, _ in spans}
    ends = {b for _, b in spans}
    inside = {p for a, b in spans for p in range(a + 1, b)}
    crossing = recoverable = 0
    for start, end, _ in entities:
        crossing += (start in inside) + (end in inside)
        recoverable += start in starts and end in ends and start not in inside and end not in inside
    return crossing, 2 * len(entities), recoverable, len(entities)


def bio_tags(entities: Sequence[tuple[int, int, str]], spans: Sequence[tuple[int, int]]) -> list[str]:
    """The BIO tag of each token span (``(start, end)``; an empty span gets ``O``): ``B-X`` where
    the start of an entity X falls in the token (``start <= s < end``), ``I-X`` where the token
    begins inside X after its start (``s < start < e``), ``O`` else.  A token that runs across an
    entity's edge takes the entity's tag, so that the tagger learns the entity, though it cannot
    mark its exact span.

    >>> bio_tags([(0, 2, "OG"), (4, 5, "PS")], [(0, 1), (1, 3), (4, 7), (8, 9)])   # 경|찰은 박씨의 딸
    ['B-OG', 'I-OG', 'B-PS', 'O']
    """
    out = []
    for a, b in spans:
        begun = next((kind for s, _, kind in entities if a <= s < b), None)
        inside = None if begun or a >= b else next((kind for s, e, kind in entities if s < a < e), None)
        out.append(f"B-{begun}" if begun else f"I-{inside}" if inside else "O")
    return out


def tagged_entities(spans: Sequence[tuple[int, int]], tags: Sequence[str]) -> list[tuple[int, int, str]]:
    """The ``(start, end, type)`` entities that BIO ``tags`` of the tokens at ``spans`` mark, as
    conlleval reads them: ``B-X``, or an ``I-X`` that does not follow X, opens an entity at its
    token's start; an ``I-X`` after X extends it to its token's end; ``O`` closes it.  Tokens with
    an empty span (white space) are skipped: they neither close nor extend.

    >>> tagged_entities([(0, 1), (1, 2), (2, 2), (3, 4), (4, 5)], ["B-LC", "I-LC", "O", "I-LC", "I-PS"])
    [(0, 4, 'LC'), (4, 5, 'PS')]
    """
    if len(spans) != len(tags):
        raise ValueError(f"tagged_entities needs one tag per token span, got {len(tags)} tags for {len(spans)} spans")
    out: list[tuple[int, int, str]] = []
    current: list[Any] | None = None
    for (a, b), tag in zip(spans, tags):
        if a >= b:
            continue
        if tag == "O" or tag.startswith("B-") or current is None or current[2] != tag[2:]:
            if current is not None:
                out.append((current[0], current[1], current[2]))
            current = None if tag == "O" else [a, b, tag[2:]]
        else:
            current[1] = b
    if current is not None:
        out.append((current[0], current[1], current[2]))
    return out


def predict_tags(train_tokens: Sequence[Sequence[str]], train_labels: Sequence[Sequence[int]],
                 test_tokens: Sequence[Sequence[str]], *, n_tags: int, settings: NerTagger = NerTagger(),
                 seed: int = 0, progress: Any = None) -> list[list[list[int]]]:
    """Train ``settings.seeds`` taggers (seeds ``seed, seed + 1, ...``) on the token sequences
    ``train_tokens`` and their labels (``train_labels``: a tag number below ``n_tags`` per token,
    or -100 for a token that is read but not scored), and return each one's tags of
    ``test_tokens``: ``seeds x sentences x tokens`` tag numbers.  The model and its training: the
    module's docstring; ``progress``: an object with ``update(n)`` told of each finished epoch.

    >>> train = [["서울", "에", "갔다"], ["부산", "에", "왔다"], ["집", "에", "갔다"]] * 20
    >>> labels = [[1, 0, 0], [1, 0, 0], [0, 0, 0]] * 20
    >>> predict_tags(train, labels, [["서울", "에", "왔다"]], n_tags=2, settings=NerTagger(epochs=10, seeds=1))
    [[[1, 0, 0]]]
    """
    from collections import Counter

    from ..downstream import Ragged, learning_rate, length_batches, require_torch, torch_device

    torch = require_torch()
    if len(train_tokens) != len(train_labels) or any(len(t) != len(y) for t, y in zip(train_tokens, train_labels)):
        raise ValueError("train_labels must give one label per token of each training sentence")
    if not any(y != _IGNORE for labels in train_labels for y in labels):
        raise ValueError("the tagger has no labelled training token: give training sentences with tokens")
    bad = {y for labels in train_labels for y in labels if y != _IGNORE and not 0 <= y < n_tags}
    if bad:
        raise ValueError(f"train_labels hold {sorted(bad)[:3]}: a label is a tag number below n_tags={n_tags}, or -100")
    seen = Counter(t for tokens in train_tokens for t in tokens)
    ids = {t: k + _FIRST_ID for k, t in enumerate(sorted(t for t, c in seen.items() if c >= settings.min_count))}
    train = Ragged([[ids.get(t, _UNKNOWN_ID) for t in tokens] for tokens in train_tokens])
    test = Ragged([[ids.get(t, _UNKNOWN_ID) for t in tokens] for tokens in test_tokens])
    gold = Ragged(train_labels)
    device = torch_device(torch, settings.device, owner="NerTagger")
    threads = torch.get_num_threads()
    torch.set_num_threads(settings.threads)
    out = []
    try:
        for s in range(settings.seeds):
            torch.manual_seed(seed + s)
            generator = torch.Generator().manual_seed(seed + s)
            model = _tagger_model(torch, settings, len(ids) + _FIRST_ID, n_tags).to(device)
            optimizer = torch.optim.AdamW(model.parameters(), lr=settings.learning_rate, weight_decay=0.01)
            steps = settings.epochs * -(-len(train) // settings.batch_size)
            schedule = torch.optim.lr_scheduler.LambdaLR(optimizer, lambda step: learning_rate(step, steps, peak=1.0))
            lengths = train.lengths.tolist()
            for _ in range(settings.epochs):
                model.train()
                for index in length_batches(lengths, settings.batch_size, generator, torch):
                    x, y = _padded(train, index, torch, device, gold)
                    if not (y != _IGNORE).any():
                        schedule.step()
                        continue
                    loss = torch.nn.functional.cross_entropy(model(x).reshape(-1, n_tags), y.reshape(-1),
                                                             ignore_index=_IGNORE)
                    optimizer.zero_grad(set_to_none=True)
                    loss.backward()
                    optimizer.step()
                    schedule.step()
                if progress is not None:
                    progress.update(1)
            out.append(_tag(model, test, settings.batch_size * 8, torch, device))
    finally:
        torch.set_num_threads(threads)
    return out


def _padded(seqs: Ragged, index: Sequence[int], torch: Any, device: Any,
            labels: Ragged | None = None) -> tuple[Any, Any]:
    """(ids, labels) of the sentences ``index``: batch x longest (at least 1), ids padded with 0,
    labels with -100 (None without ``labels``)."""
    x = torch.from_numpy(seqs.padded(index, pad=_PAD_ID, least=1)).to(device)
    return x, None if labels is None else torch.from_numpy(labels.padded(index, pad=_IGNORE, least=1)).to(device)


def _tag(model: Any, seqs: Ragged, batch_size: int, torch: Any, device: Any) -> list[list[int]]:
    """The model's tag numbers of each sentence (batches of similar length)."""
    model.eval()
    lengths = seqs.lengths.tolist()
    order = seqs.by_length()
    out: list[list[int]] = [[] for _ in lengths]
    with torch.no_grad():
        for start in range(0, len(order), batch_size):
            index = order[start:start + batch_size]
            x, _ = _padded(seqs, index, torch, device)
            best = model(x).argmax(-1).cpu().tolist()
            for row, i in enumerate(index):
                out[i] = best[row][:lengths[i]]
    return out


def _tagger_model(torch: Any, settings: NerTagger, n_ids: int, n_tags: int) -> Any:
    """Embeddings, ``settings.layers`` masked convolutions of width 3 with ReLU, dropout, a linear
    layer per token (see the module)."""
    nn = torch.nn
    dim = settings.dim

    class CNNTagger(nn.Module):
        def __init__(self) -> None:
            super().__init__()
            self.embed = nn.Embedding(n_ids, dim, padding_idx=_PAD_ID)
            with torch.no_grad():  # small vectors, as the downstream stage's (N(0, 1) is too large for a short run)
                self.embed.weight.uniform_(-0.05, 0.05)
                self.embed.weight[_PAD_ID].zero_()
            self.convs = nn.ModuleList(nn.Conv1d(dim, dim, _WIDTH, padding=_WIDTH // 2) for _ in range(settings.layers))
            self.drop = nn.Dropout(_DROPOUT)
            self.out = nn.Linear(dim, n_tags)

        def forward(self, ids: Any) -> Any:
            keep = (ids != _PAD_ID).unsqueeze(1)  # batch x 1 x length: the padding stays 0 between layers
            h = self.embed(ids).transpose(1, 2)
            for conv in self.convs:
                h = torch.relu(conv(h)) * keep
            return self.out(self.drop(h.transpose(1, 2)))

    return CNNTagger()
