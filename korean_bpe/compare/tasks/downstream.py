"""The downstream classifier as a task: a small neural sequence classifier trained from scratch on
each row's token ids, several seeds (:mod:`korean_bpe.compare.downstream`), scored on the held-out
documents, with intervals over the documents and the seeds."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from .. import stats
from ..downstream import DeferredClassifier, Downstream, Ragged, kept_model_scores, resolved_device, scored
from ..rows import Measured, RowInput
from .base import BaseTask, register_task

__all__ = ["DownstreamTask", "classify"]


@register_task("downstream")
class DownstreamTask(BaseTask):
    """``downstream_accuracy``, ``downstream_macro_f1``, ``downstream_seed_sd`` and ``downstream_s``
    of each row; needs labels and PyTorch (``pip install "korean_bpe[downstream]"``)."""

    name = "downstream"
    labels = "required"
    metrics = ("downstream_accuracy", "downstream_macro_f1")

    def __init__(self, settings: Downstream | None = None) -> None:
        settings = Downstream() if settings is None else settings
        if not isinstance(settings, Downstream):
            raise TypeError(f"downstream must be a korean_bpe.compare.Downstream, e.g. Downstream(model='cnn'), or "
                            f"None, got {settings!r}")
        self.settings = settings
        self.train_docs = settings.train_docs

    def measure(self, row: RowInput) -> Measured | None:
        if row.labelled is None or row.held.labels is None:
            return None
        train_ids, train_labels = row.training(self.name)
        columns, evidence = classify(row, train_ids, train_labels, row.encoded, row.held.labels,
                                     settings=self.settings, desc=self.name)
        return Measured(columns, evidence=evidence)

    def replicates(self, evidence: Any, *, point: Mapping[str, Any], resamples: int, seed: int) -> dict[str, Any]:
        return stats.seed_document_replicates(evidence, resamples=resamples, seed=seed)

    def to_config(self) -> dict[str, Any]:
        return {**self.settings.to_config(), "device_used": resolved_device(self.settings)}

    def __repr__(self) -> str:
        return f"DownstreamTask({self.settings!r})"


def classify(row: RowInput, train_ids: Sequence[Sequence[int]], train_labels: Sequence[int],
             test_ids: Sequence[Sequence[int]], test_labels: Sequence[int], *, settings: Downstream,
             desc: str) -> tuple[dict[str, Any], dict[str, Any]]:
    """:func:`korean_bpe.compare.downstream.evaluate` of one row's documents (seeded by ``row.seed``),
    with a progress bar of its epochs named ``desc`` (the task that trains it): ``(columns, evidence)``
    with the ``downstream_`` names (a task of its own renames them).  The trained
    :class:`~korean_bpe.compare.downstream.Classifier` is left in ``row.shared[desc]`` for the tasks
    after it.

    Nothing is trained twice for the same inputs (the training and held-out ids, their labels,
    the settings and the seed, :func:`_inputs_key`):

    * a row whose inputs equal an earlier row's in this process (``row.across_rows``: raw and
      whitespace BPE often give the same ids) gets that row's classifier and scores; its
      ``downstream_s`` is the CPU it spent finding them (the rows' seconds add up to what the
      comparison spent);
    * with the comparison's model cache (``row.model_cache``), the scores are kept there, and a
      rerun reads them back (:func:`~korean_bpe.compare.downstream.kept_model_scores`: the inputs,
      the classifier's code, the PyTorch and NumPy versions; on the CPU only, where training is
      deterministic); ``downstream_s`` is
      then the original training's, as ``train_s`` of a cached model, and ``row.shared[desc]`` a
      :class:`~korean_bpe.compare.downstream.DeferredClassifier`, trained only if a later task
      asks it for more predictions."""
    import time

    from ...progress import start_progress

    cpu = time.process_time()
    kept = row.across_rows.setdefault("classifiers", {})
    key = _inputs_key(train_ids, train_labels, test_ids, test_labels, settings, row.seed)
    if key in kept:  # a row with the same ids as one before it (raw and whitespace BPE often are)
        columns, evidence, row.shared[desc] = kept[key]
        return {**columns, "downstream_s": time.process_time() - cpu}, evidence  # the seconds it spent: no training
    def make() -> tuple[tuple[dict[str, Any], dict[str, Any], Any], dict[str, Any]]:
        bar = start_progress(row.show_progress, total=settings.seeds * settings.epochs,
                             desc=f"{desc} {row.strategy} {row.vocab_size:,}", unit="epoch")
        try:
            made = scored(train_ids, train_labels, test_ids, test_labels, settings=settings, seed=row.seed, progress=bar)
        finally:
            bar.close()
        return made, {"columns": made[0], "evidence": {name: values.tolist() for name, values in made[1].items()}}

    def load(entry: dict[str, Any]) -> tuple[dict[str, Any], dict[str, Any], Any] | None:
        read = _read(entry, test_labels)
        return None if read is None else \
            (*read, DeferredClassifier(train_ids, train_labels, settings=settings, seed=row.seed, known=test_ids))

    columns, evidence, row.shared[desc] = kept_model_scores(
        row.model_cache, settings, {"kind": "classifier", "inputs": key.hex()}, make=make, load=load,
        code=("korean_bpe.compare.downstream", "korean_bpe.compare.stats", "korean_bpe.compare.tasks.downstream"))
    kept[key] = (dict(columns), evidence, row.shared[desc])
    while len(kept) > _KEPT:
        del kept[next(iter(kept))]
    return columns, evidence


#: the columns :func:`korean_bpe.compare.downstream.scored` gives, and the evidence
_COLUMNS = ("downstream_accuracy", "downstream_macro_f1", "downstream_seed_sd", "downstream_s",
            "downstream_one_class", "downstream_chance")
_EVIDENCE = ("predictions", "truth", "classes")


def _read(entry: Mapping[str, Any], test_labels: Sequence[int]) -> tuple[dict[str, Any], dict[str, Any]] | None:
    """``(columns, evidence)`` of a stored classifier's entry, or None when it holds something else
    (another kind, missing or extra names, held-out labels other than ``test_labels``): trained again."""
    import numpy as np

    if entry["kind"] != "classifier" or set(entry["columns"]) != set(_COLUMNS) or set(entry["evidence"]) != set(_EVIDENCE):
        return None
    evidence = {name: np.asarray(entry["evidence"][name], dtype=np.int64) for name in _EVIDENCE}
    truth, predictions = evidence["truth"], evidence["predictions"]
    if truth.tolist() != [int(y) for y in test_labels] or predictions.ndim != 2 or predictions.shape[1] != truth.size:
        return None
    return dict(entry["columns"]), evidence


#: the classifiers a comparison's process keeps (the last ones it trained, by :func:`_inputs_key`): a
#: row whose training and held-out ids, labels, settings and seed equal an earlier row's gets that
#: row's classifier and scores (training is deterministic: the same inputs give the same models)
_KEPT = 4


def _inputs_key(train_ids: Sequence[Sequence[int]], train_labels: Sequence[int], test_ids: Sequence[Sequence[int]],
                test_labels: Sequence[int], settings: Downstream, seed: int) -> bytes:
    """A digest of everything a classifier's training and scores depend on."""
    import hashlib

    import numpy as np

    h = hashlib.blake2b(digest_size=20)
    h.update(repr((settings, seed)).encode())
    for docs in map(Ragged, (train_ids, test_ids)):
        h.update(docs.lengths.tobytes())
        h.update(docs.flat.tobytes())
    for labels in (train_labels, test_labels):
        h.update(np.asarray([int(y) for y in labels], dtype=np.int64).tobytes())
    return h.digest()
