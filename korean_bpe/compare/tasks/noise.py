"""Korean noise as a task: each row's held-out documents perturbed the way people write
(:mod:`korean_bpe.noise`), encoded again, compared with the clean encoding, and scored by the row's
classifier.

For each perturbation ``<name>`` at its rate, on ``N`` held-out documents (a seeded sample of
:attr:`NoiseTask.test_docs`, the same for every row, or all of them when fewer; ``W`` their 어절,
white-space words of the clean text):

* ``noise_<name>_stability``: per document ``1 - d / max(len(clean), len(noisy))``, ``d`` the
  Levenshtein distance between the clean and the noisy token-id sequences
  (:func:`korean_bpe.compare.metrics.token_stability`: insertions, deletions and substitutions of one
  token; two empty sequences are at distance 0, stability 1), averaged over the documents; with a
  bootstrap interval (the documents resampled as every metric, :func:`korean_bpe.compare.stats.resample_counts`)
  and a paired test against the row's reference;
* ``noise_<name>_fertility_change``: ``(T_noisy - T) / W``, the tokens per clean 어절 the
  noise adds (the clean 어절 count both times: removing spaces does not shrink the denominator);
* ``noise_<name>_unk_rate_change``: the noisy text's share of unknown tokens minus the clean's;
* ``noise_<name>_accuracy_drop`` (with labels): the row's downstream classifier
  (:class:`~korean_bpe.compare.downstream.Classifier`: the one the ``downstream`` task trained on
  the row, else one trained here with :attr:`NoiseTask.settings`) scored on the clean and on the
  noisy documents, the same models both times: the share of (seed, document) pairs right on the
  clean text minus the share right on the noisy text, paired per document and seed; its interval
  and p-value come from the downstream stage's two-stage bootstrap (documents as every metric,
  seeds with replacement: :func:`korean_bpe.compare.stats.seed_counts`), applied to the paired
  differences;
* ``noise_<name>_dropout_accuracy_drop`` (with labels and ``dropout``): the same for a classifier of
  the same settings trained on BPE-dropout's segmentations of the same training documents (each
  merge skipped with probability ``dropout``, seeded by the row's seed; the held-out documents,
  clean and noisy, encoded without dropout): does subword regularization buy robustness?  Its clean
  accuracy is ``noise_dropout_accuracy``.  Only rows of our BPE have dropout
  (:meth:`~korean_bpe.compare.segmenters.BPESegmenter.encode_dropout`); the others' stay empty.
  Columns, not rows: the dropout classifier reads the same tokenizer, so a row of its own would
  repeat every other column and the same held-out ids;

and ``noise_stability``, ``noise_accuracy_drop`` and ``noise_dropout_accuracy_drop``, the means
over the perturbations (per document, then over the documents), with their intervals.  Every row
reads the same noisy texts: the perturbations are seeded by the run's seed (``row.seed``), and made
once per process.  At rate 0 every noisy text is the clean one: stability exactly 1 and accuracy
drop exactly 0.
"""

from __future__ import annotations

import math
import time
from collections.abc import Mapping, Sequence
from dataclasses import replace
from typing import Any

from ...noise import DEFAULT_RATE, NOISE, PERTURBATIONS, check_rate, describe, perturb
from .. import metrics, stats
from ..columns import Column
from ..downstream import Downstream
from ..rows import Measured, RowInput
from .base import BaseTask, register_task

__all__ = ["NoiseTask", "DEFAULT_DROPOUT", "DEFAULT_TEST_DOCS", "NOISE_METRICS", "noise_frame"]

#: the BPE-dropout rate of the noise task's dropout classifier by default (Provilkov et al. 2020's 0.1)
DEFAULT_DROPOUT = 0.1
#: the held-out documents the noise task reads by default (a seeded sample): each is predicted by
#: each seed's model clean and once per perturbation that changed its ids (a document the noise left
#: as it was is predicted once: about 37% fewer at rate 0.1 on NSMC), per classifier; on NSMC's
#: 55,106 held-out reviews that would cost minutes of CPU a row; 2,000 keep it to seconds (about
#: 2.3 s a classifier) and the accuracy drops' intervals within about +-0.5 points
DEFAULT_TEST_DOCS = 2_000


#: what :func:`noise_frame` gives per perturbation: the ``<metric>`` of ``noise_<name>_<metric>``
NOISE_METRICS = ("stability", "accuracy_drop", "dropout_accuracy_drop", "fertility_change", "unk_rate_change")


def noise_frame(table: Any, metric: str = "accuracy_drop", *, vocab_size: int | None = None,
                dropout: bool = False) -> Any:
    """The rows x perturbations frame of ``metric`` (one of :data:`NOISE_METRICS`) in a comparison's
    ``table``: a row per strategy (``"strategy @ size"`` when the frame holds several sizes;
    ``vocab_size`` keeps one), a column per perturbation in the table's order, then ``mean`` (the
    overall ``noise_<metric>``, where there is one).  ``dropout`` (with ``"accuracy_drop"``): after
    each row with a BPE-dropout classifier, its drops as a row ``"strategy + BPE-dropout"``.

    >>> import pandas as pd
    >>> t = pd.DataFrame({"strategy": ["whitespace/syllable"], "vocab_size": [8000], "noise_nfd_accuracy_drop": [0.0],
    ...                   "noise_accuracy_drop": [0.0], "noise_nfd_dropout_accuracy_drop": [0.0],
    ...                   "noise_dropout_accuracy_drop": [0.0]})
    >>> noise_frame(t, dropout=True)
                                       nfd  mean
    whitespace/syllable                0.0   0.0
    whitespace/syllable + BPE-dropout  0.0   0.0
    """
    import pandas as pd

    if metric not in NOISE_METRICS:
        raise ValueError(f"metric must be one of {', '.join(NOISE_METRICS)}, got {metric!r}")
    if dropout and metric != "accuracy_drop":
        raise ValueError(f"dropout=True adds the BPE-dropout classifier's rows to metric='accuracy_drop', not "
                         f"{metric!r}; ask for metric='dropout_accuracy_drop' alone, or dropout=False")
    if vocab_size is not None:
        sizes = sorted({int(v) for v in table["vocab_size"]})
        table = table[table["vocab_size"] == vocab_size]
        if table.empty:
            raise ValueError(f"no row at vocab_size {vocab_size!r}: the table's sizes are "
                             f"{', '.join(map(str, sizes)) or 'none'}")
    names = [c[len("noise_"):-len(metric) - 1] for c in table.columns if c.startswith("noise_")
             and c.endswith(f"_{metric}") and c[len("noise_"):-len(metric) - 1] in NOISE]
    if not names:
        raise ValueError(f"the table has no noise_<perturbation>_{metric} column: run compare(..., "
                         "tasks=['noise']) (with labels for the accuracy drops)")
    several = table["vocab_size"].nunique() > 1
    rows, index = [], []
    for _, row in table.iterrows():
        name = f"{row['strategy']} @ {int(row['vocab_size']):,}" if several else str(row["strategy"])
        variants = [("", metric)] + ([(" + BPE-dropout", "dropout_" + metric)] if dropout else [])
        for suffix, m in variants:
            values = [row.get(f"noise_{n}_{m}", math.nan) for n in names]
            if suffix and all(v != v for v in values):
                continue  # a row without dropout
            rows.append(values + ([row[f"noise_{m}"]] if f"noise_{m}" in table.columns else []))
            index.append(name + suffix)
    columns = names + (["mean"] if f"noise_{metric}" in table.columns else [])
    return pd.DataFrame(rows, index=index, columns=columns, dtype="float64")


@register_task("noise")
class NoiseTask(BaseTask):
    """``perturbations``: None (every one of :data:`korean_bpe.noise.PERTURBATIONS` at ``rate``), a
    list of names (each at ``rate``) or a mapping name -> its rate; ``rate``: the default rate
    (:data:`korean_bpe.noise.DEFAULT_RATE`, 0.1); ``dropout``: the BPE-dropout rate of the
    classifier trained on dropout's segmentations (:data:`DEFAULT_DROPOUT`; None or 0: none);
    ``downstream``: the classifier's settings when the run has no downstream task (a
    :class:`~korean_bpe.compare.downstream.Downstream`, a dict of its fields, or None: the
    defaults); ``test_docs``: a seeded sample of that many held-out documents, the same for every
    row (:data:`DEFAULT_TEST_DOCS`; None: all).  With labels it scores the row's classifier on the
    noisy documents (see the module).

    >>> NoiseTask({"keyboard_typo": 0.2}).metrics[:2]
    ('noise_keyboard_typo_stability', 'noise_stability')
    """

    name = "noise"
    labels = "optional"
    #: the verdict names the most robust rows, never the row to choose (:mod:`korean_bpe.compare.verdict`)
    choice_evidence = False

    def __init__(self, perturbations: Mapping[str, float] | Sequence[str] | None = None, *,
                 rate: float = DEFAULT_RATE, dropout: float | None = DEFAULT_DROPOUT,
                 downstream: Downstream | Mapping[str, Any] | None = None,
                 test_docs: int | None = DEFAULT_TEST_DOCS) -> None:
        check_rate(rate)
        if perturbations is None:
            perturbations = PERTURBATIONS
        if isinstance(perturbations, str):
            raise TypeError(f"perturbations must be a list of names or a mapping name -> rate, not the string "
                            f"{perturbations!r}; write [{perturbations!r}]")
        rates = dict(perturbations) if isinstance(perturbations, Mapping) else dict.fromkeys(perturbations, rate)
        if not rates:
            raise ValueError(f"perturbations must name at least one of {', '.join(PERTURBATIONS)}")
        for name, r in rates.items():
            NOISE.get_class(name)  # ValueError naming the choices
            if not name.isidentifier():
                raise ValueError(f"perturbation {name!r} cannot name a column: register it under a name of "
                                 "letters, digits and _")
            check_rate(r)
        if dropout is not None and (isinstance(dropout, bool) or not isinstance(dropout, (int, float))
                                    or not 0 <= dropout < 1):
            raise ValueError(f"NoiseTask(dropout={dropout!r}): the BPE-dropout rate must be a number from 0 to below 1 "
                             f"(e.g. dropout={DEFAULT_DROPOUT}), or None for no dropout classifier")
        settings = replace(Downstream(), **downstream) if isinstance(downstream, Mapping) else \
            Downstream() if downstream is None else downstream
        if not isinstance(settings, Downstream):
            raise TypeError(f"NoiseTask(downstream=...) must be a korean_bpe.compare.Downstream, a dict of its fields "
                            f"or None, got {downstream!r}")
        if test_docs is not None and (isinstance(test_docs, bool) or not isinstance(test_docs, int) or test_docs < 2):
            raise ValueError(f"NoiseTask(test_docs={test_docs!r}): must be an integer of 2 or more (a seeded sample of "
                             "the held-out documents) or None for all of them")
        self.test_docs = test_docs
        self.perturbations: dict[str, float] = rates
        self.dropout: float | None = float(dropout) if dropout else None
        self.settings = settings
        self.train_docs = settings.train_docs
        names = list(rates)
        drops = [f"noise_{n}_accuracy_drop" for n in names] + ["noise_accuracy_drop"]
        dropout_metrics = ([f"noise_{n}_dropout_accuracy_drop" for n in names]
                           + ["noise_dropout_accuracy_drop", "noise_dropout_accuracy"]) if self.dropout else []
        self.metrics = tuple(f"noise_{n}_stability" for n in names) + ("noise_stability",) + tuple(drops) \
            + tuple(dropout_metrics)
        self.columns = _columns(rates, self.dropout)
        #: the most robust rows: overall (token stability, accuracy drop, the dropout classifier's
        #: drop) and by each perturbation's accuracy drop
        self.verdict = (("noise stability", "noise_stability"), ("noise accuracy drop", "noise_accuracy_drop"),
                        *((f"noise accuracy drop ({n})", f"noise_{n}_accuracy_drop") for n in names),
                        *((("noise accuracy drop with BPE-dropout", "noise_dropout_accuracy_drop"),)
                          if self.dropout else ()))
        self._noisy: tuple[Any, int, Any] | None = None  # (texts, seed, (sample, name -> noisy texts))
        self._noted: set[str] = set()  # what this process has noted (:meth:`_once`)

    @classmethod
    def from_spec(cls, spec: str) -> NoiseTask:
        """The task of a command-line spec (``--task noise=SPEC``): perturbations separated by commas,
        each ``name`` (at :data:`~korean_bpe.noise.DEFAULT_RATE`) or ``name:rate``; ``dropout:rate``
        sets the dropout classifier's rate (``dropout:0``: none).  ValueError naming the bad item.

        >>> NoiseTask.from_spec("keyboard_typo:0.2,nfd,dropout:0").perturbations
        {'keyboard_typo': 0.2, 'nfd': 0.1}
        >>> NoiseTask.from_spec("keyboard_typo:0.2,typo")
        Traceback (most recent call last):
          ...
        ValueError: noise spec 'keyboard_typo:0.2,typo': unknown perturbation 'typo'; choose from spacing_removed, spacing_inserted, keyboard_typo, batchim_dropped, batchim_added, initials, elongation, nfd, compat_jamo, wrong_layout, mix
        """
        rates: dict[str, float] = {}
        dropout: float | None = DEFAULT_DROPOUT
        seen: set[str] = set()
        for item in spec.split(","):
            name, colon, value = (part.strip() for part in item.partition(":"))
            if not name:
                raise ValueError(f"noise spec {spec!r}: an empty item; write perturbations as name or name:rate "
                                 "separated by commas, e.g. keyboard_typo:0.2,nfd")
            if name != "dropout" and name not in NOISE:
                raise ValueError(f"noise spec {spec!r}: unknown perturbation {name!r}; choose from "
                                 f"{', '.join(PERTURBATIONS)}")
            if name in seen:
                raise ValueError(f"noise spec {spec!r}: {name} given twice; give each once")
            seen.add(name)
            if name == "dropout" and not colon:
                raise ValueError(f"noise spec {spec!r}: dropout needs its rate, e.g. dropout:0.1 (dropout:0 for none)")
            try:
                rate = float(value) if colon else DEFAULT_RATE
            except ValueError:
                raise ValueError(f"noise spec {spec!r}: the rate {value!r} of {name} is not a number; write "
                                 f"{name}:0.2") from None
            if not 0 <= rate <= 1 or math.isnan(rate) or (name == "dropout" and rate == 1):
                raise ValueError(f"noise spec {spec!r}: the rate {value} of {name} must be from 0 to "
                                 f"{'below 1' if name == 'dropout' else '1'}, e.g. {name}:0.2")
            if name == "dropout":
                dropout = rate or None
            else:
                rates[name] = rate
        return cls(rates or None, dropout=dropout)

    def measure(self, row: RowInput) -> Measured:
        cpu = time.process_time()
        seg, held = row.segmenter, row.held
        keep, made = self.noisy(held.texts, seed=row.seed)
        clean = row.encoded if keep is None else [row.encoded[i] for i in keep]
        n_words = held.n_words if keep is None else sum(held.words_per_doc[i] for i in keep)
        n_tokens = row.n_tokens if keep is None else sum(map(len, clean))
        n_unk = _unknown(clean, seg.unk_ids)
        out: dict[str, Any] = {}
        per_doc = []
        encoded = {}
        for name, texts in made.items():
            ids = encoded[name] = seg.encode_batch(texts)
            stability = [metrics.token_stability(a, b) for a, b in zip(clean, ids)]
            noisy_tokens = sum(map(len, ids))
            out[f"noise_{name}_stability"] = sum(stability) / len(stability) if stability else float("nan")
            out[f"noise_{name}_fertility_change"] = (metrics.fertility(n_tokens=noisy_tokens, n_words=n_words)
                                                     - metrics.fertility(n_tokens=n_tokens, n_words=n_words))
            out[f"noise_{name}_unk_rate_change"] = (metrics.ratio(_unknown(ids, seg.unk_ids), noisy_tokens)
                                                    - metrics.ratio(n_unk, n_tokens))
            per_doc.append(stability)
        by_doc = [sum(values) / len(values) for values in zip(*per_doc)]
        out["noise_stability"] = sum(by_doc) / len(by_doc) if by_doc else float("nan")
        evidence: dict[str, Any] = {"stability": per_doc}
        if row.labelled is None or row.held.labels is None:
            out["noise_s"] = time.process_time() - cpu
            return Measured(out, evidence=evidence, notes=self._once(
                "", "noise: no labels, so no accuracy drop: its columns stay empty (give compare() labels, or "
                "korean-bpe compare a labelled corpus such as nsmc-sample)"))
        notes: tuple[str, ...] = ()
        classifier, (_, train_labels) = self.classifier(row)
        labels = held.labels if keep is None else [held.labels[i] for i in keep]
        evidence["drop"] = _drops(classifier, clean, encoded, labels, out, "")
        if self.dropout:
            if hasattr(seg, "encode_dropout"):
                started = time.process_time()
                dropped = self._dropout(row, classifier.settings, train_labels)
                out["noise_dropout_s"] = time.process_time() - started
                evidence["dropout"] = _drops(dropped, clean, encoded, labels, out, "dropout_")
            else:
                notes = self._once(row.strategy, f"noise: {row.strategy} is not our BPE and has no BPE-dropout: its "
                                   "noise_dropout_ columns stay empty")
        out["noise_s"] = time.process_time() - cpu
        return Measured(out, evidence=evidence, notes=notes)

    def classifier(self, row: RowInput) -> tuple[Any, tuple[list[list[int]], list[int]]]:
        """The row's downstream classifier (the one the ``downstream`` task left in ``row.shared``,
        else one trained here with :attr:`settings`) and the labelled training documents of it."""
        from ..downstream import fit

        shared = row.shared.get("downstream")
        if shared is not None:
            return shared, row.training("downstream")
        train_ids, train_labels = row.training(self.name)
        return fit(train_ids, train_labels, settings=self.settings, seed=row.seed, known=row.encoded), \
            (train_ids, train_labels)

    def _dropout(self, row: RowInput, settings: Downstream, train_labels: list[int]) -> Any:
        """The dropout classifier: trained on the same documents as the row's classifier, with the
        same settings and seed, the documents encoded with BPE-dropout."""
        from ..downstream import fit

        labelled = row.labelled
        assert labelled is not None
        task = "downstream" if "downstream" in row.shared and "downstream" in labelled.positions else self.name
        texts = [row.train_texts[labelled.idx[k]] for k in labelled.positions[task]]
        ids = row.segmenter.encode_dropout(texts, dropout=self.dropout, seed=row.seed)  # type: ignore[attr-defined]
        return fit(ids, train_labels, settings=settings, seed=row.seed, known=row.encoded)

    def _once(self, key: str, note: str) -> tuple[str, ...]:
        """``(note,)`` the first time this process meets ``key`` in this run (a strategy's sizes, or
        every row, say it once: a strategy's rows are measured in one process; a run with worker
        processes may say a run-wide note once in each), else ``()``."""
        if key in self._noted:
            return ()
        self._noted.add(key)
        return (note,)

    def noisy(self, texts: list[str], *, seed: int) -> tuple[list[int] | None, dict[str, list[str]]]:
        """``(sample, noisy)``: the positions of the documents of ``texts`` the task reads (a seeded
        sample of :attr:`test_docs`, in order; None: all of them) and each perturbation's noisy
        texts of them (made once for the same list and seed, kept for the next rows)."""
        if self._noisy is None or self._noisy[0] is not texts or self._noisy[1] != seed:
            keep = None
            if self.test_docs is not None and self.test_docs < len(texts):
                import random

                keep = sorted(random.Random(f"{seed}/noise").sample(range(len(texts)), self.test_docs))
            chosen = texts if keep is None else [texts[i] for i in keep]
            made = {name: perturb(chosen, name, rate=rate, seed=seed) for name, rate in self.perturbations.items()}
            self._noisy, self._noted = (texts, seed, (keep, made)), set()  # another run: its notes anew
        return self._noisy[2]

    def replicates(self, evidence: Any, *, point: Mapping[str, Any], resamples: int, seed: int) -> dict[str, Any]:
        """Each stability on each resample: the mean over its drawn documents (with their
        multiplicity); each accuracy drop: the mean of the paired differences over the drawn
        documents and seeds (the downstream stage's two-stage bootstrap)."""
        import numpy as np

        values = np.asarray(evidence["stability"], dtype=np.float64).T  # documents x perturbations
        counts = stats.resample_counts(values.shape[0], resamples=resamples, seed=seed)
        reps = (counts @ values) / counts.sum(1, keepdims=True)
        names = list(self.perturbations)
        out = {f"noise_{name}_stability": reps[:, k] for k, name in enumerate(names)}
        out["noise_stability"] = reps.mean(1)
        for key, prefix in (("drop", ""), ("dropout", "dropout_")):
            if key not in evidence:
                continue
            got = evidence[key]
            seeds = stats.seed_counts(got["clean"].shape[0], resamples=resamples, seed=seed)
            docs = counts.astype(np.float32)
            total = docs.sum(1).astype(np.float64) * got["clean"].shape[0]

            def mean(right: Any) -> Any:  # seeds x documents of 0/1 -> its mean on each resample
                return (seeds * (docs @ right.astype(np.float32).T).astype(np.float64)).sum(1) / total

            clean = mean(got["clean"])
            drops = [clean - mean(got["noisy"][name]) for name in names]
            for name, value in zip(names, drops):
                out[f"noise_{name}_{prefix}accuracy_drop"] = value
            out[f"noise_{prefix}accuracy_drop"] = np.mean(drops, axis=0)
            if prefix:
                out["noise_dropout_accuracy"] = clean
        return out

    def to_config(self) -> dict[str, Any]:
        return {"perturbations": dict(self.perturbations), "dropout": self.dropout, "test_docs": self.test_docs,
                "downstream": self.settings.to_config()}

    def __getstate__(self) -> dict[str, Any]:
        return self.__dict__ | {"_noisy": None, "_noted": set()}  # a worker makes its own noisy texts and notes

    def __repr__(self) -> str:
        return f"NoiseTask({self.perturbations!r}, dropout={self.dropout!r})"


def _drops(classifier: Any, clean: list[list[int]], encoded: Mapping[str, list[list[int]]], labels: Sequence[int],
           out: dict[str, Any], prefix: str) -> dict[str, Any]:
    """``classifier``'s accuracy drop from the ``clean`` documents to each perturbation's
    ``encoded`` ones, into ``out`` (``noise_<name>_<prefix>accuracy_drop``, their mean
    ``noise_<prefix>accuracy_drop``, and for the dropout classifier its clean accuracy); the
    evidence: which (seed, document) pairs it got right, clean and noisy."""
    import numpy as np

    truth = np.asarray([int(y) for y in labels], dtype=np.int64)
    batch = classifier.settings.batch_size  # less padding than the downstream task's 4 batches: 3 times faster
    # one call for the clean and every noisy set: a document the noise left as it was is predicted once
    every = list(clean) + [doc for ids in encoded.values() for doc in ids]
    got = classifier.predict(every, batch_size=batch) == np.tile(truth, 1 + len(encoded))[None, :]
    n = len(truth)
    right = got[:, :n]
    noisy = {name: got[:, n * (k + 1):n * (k + 2)] for k, name in enumerate(encoded)}
    clean_accuracy = float(right.mean()) if right.size else math.nan
    drops = []
    for name, got in noisy.items():
        # the paired difference: identical predictions give exactly 0
        drop = float((right.astype(np.int8) - got.astype(np.int8)).mean()) if got.size else math.nan
        out[f"noise_{name}_{prefix}accuracy_drop"] = drop
        drops.append(drop)
    out[f"noise_{prefix}accuracy_drop"] = sum(drops) / len(drops) if drops else math.nan
    if prefix:
        out["noise_dropout_accuracy"] = clean_accuracy
    return {"clean": right, "noisy": noisy}


def _unknown(encoded: list[list[int]], unk_ids: frozenset[int]) -> int:
    return sum(1 for ids in encoded for i in ids if i in unk_ids) if unk_ids else 0


def _columns(rates: Mapping[str, float], dropout: float | None) -> tuple[Column, ...]:
    out = []
    for name, rate in rates.items():
        what = describe(name, rate=rate)
        out += [
            Column(f"noise_{name}_stability", "float64", f"token stability under {what}: per held-out document 1 - "
                   "Levenshtein(clean ids, noisy ids) / max(clean tokens, noisy tokens) (1 for two empty "
                   "sequences), averaged over the documents", unit="%", direction="higher", format="{:.2f}",
                   interval=True),
            Column(f"noise_{name}_fertility_change", "float64", f"tokens per clean 어절 that {name} adds: "
                   "(T_noisy - T) / W", format="{:+.3f}"),
            Column(f"noise_{name}_unk_rate_change", "float64", f"share of unknown tokens after {name} minus the "
                   "clean text's", unit="%", format="{:+.2f}"),
            Column(f"noise_{name}_accuracy_drop", "float64", f"accuracy drop under {what}: the row's downstream "
                   "classifier's share of (seed, held-out document) pairs right on the clean text minus on the "
                   "noisy text (the same models; NaN without labels)", unit="%", direction="lower",
                   format="{:+.2f}", interval=True),
        ]
        if dropout:
            out.append(Column(f"noise_{name}_dropout_accuracy_drop", "float64", f"accuracy drop under {name} of the "
                              f"classifier trained on BPE-dropout {dropout:g} segmentations (NaN for rows without "
                              "dropout)", unit="%", direction="lower", format="{:+.2f}", interval=True))
    names = ", ".join(rates)
    out += [
        Column("noise_s", "float64", "CPU seconds of the noise task on the row: perturbing and encoding the held-out "
               "documents, scoring the classifier on them, training and scoring the BPE-dropout classifier",
               unit="s", format="{:.1f}"),
        *((Column("noise_dropout_s", "float64", "of noise_s, the CPU seconds of training the BPE-dropout classifier "
                  "(encoding the training documents with dropout and fitting; NaN for rows without dropout)",
                  unit="s", format="{:.1f}"),) if dropout else ()),
        Column("noise_stability", "float64", f"mean token stability over the perturbations ({names}): per document, "
               "then over the documents", unit="%", direction="higher", format="{:.2f}", interval=True),
        Column("noise_accuracy_drop", "float64", f"mean accuracy drop over the perturbations ({names}) of the row's "
               "downstream classifier (NaN without labels)", unit="%", direction="lower", format="{:+.2f}",
               interval=True),
    ]
    if dropout:
        out += [
            Column("noise_dropout_accuracy_drop", "float64", "mean accuracy drop over the perturbations of the "
                   f"classifier trained on BPE-dropout {dropout:g} segmentations of the same training documents "
                   "(NaN for rows without dropout)", unit="%", direction="lower", format="{:+.2f}", interval=True),
            Column("noise_dropout_accuracy", "float64", f"clean held-out accuracy of that BPE-dropout {dropout:g} "
                   "classifier (against downstream_accuracy: what dropout costs on clean text)", unit="%",
                   direction="higher", format="{:.2f}", interval=True),
        ]
    return tuple(out)
