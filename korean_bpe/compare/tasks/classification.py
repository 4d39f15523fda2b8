"""A task with its own labelled texts: the downstream classifier
(:func:`korean_bpe.compare.tasks.downstream.classify`) trained from scratch on each row's tokens of a
training file and scored on a second file, the same two files whatever corpus the tokenizers were
trained on (:class:`ClassificationTask`).  The hate-speech comments (:mod:`.hate`) and the NSMC movie
reviews (:mod:`.nsmc`) are its subclasses: each says only where its files are, how to read them and
what its columns mean.

For each row: a seeded sample of the training texts (``Downstream.train_docs``; the same for every
row) and of the scored texts (``test_docs``; None: all) encoded with the row's segmenter
(``encode_batch``), the classifier of :class:`~korean_bpe.compare.downstream.Downstream` trained on
the first (seeds ``row.seed, row.seed + 1, ...``) and the second predicted.  Its columns are the
downstream stage's renamed with the task's name (``downstream_accuracy`` -> ``hate_accuracy``), with
the two-stage bootstrap over the scored texts and the seeds
(:func:`korean_bpe.compare.stats.seed_document_replicates`) and its paired test.

>>> task_column("nsmc", "downstream_accuracy", "nsmc%", "accuracy on NSMC").name
'nsmc_accuracy'
"""

from __future__ import annotations

import os
from collections.abc import Mapping
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Any, ClassVar

from ..columns import Column, by_name
from ..downstream import Downstream, require_torch, resolved_device
from ..rows import Measured, RowInput
from .base import BaseTask
from .downstream import classify

__all__ = ["ClassificationTask", "LabelledTexts", "task_column"]


@dataclass(frozen=True)
class LabelledTexts:
    """The texts of one file of a task's data and their labels (the strings of the label column)."""

    texts: list[str]
    labels: list[str]
    path: Path


def task_column(task: str, downstream: str, header: str, definition: str) -> Column:
    """The downstream stage's column ``downstream`` (its unit, direction, format, interval) as task
    ``task``'s: ``downstream_macro_f1`` -> ``<task>_macro_f1``."""
    return replace(by_name(downstream), name=f"{task}_" + downstream.removeprefix("downstream_"), header=header,
                   definition=definition)


class ClassificationTask(BaseTask):
    """The downstream classifier on a task's own two files (see the module).  A subclass sets the
    class attributes below and :meth:`read`; ``path``: the directory holding the two files (None:
    :meth:`find_directory`); ``label``: the label column (None: :attr:`label_column`); ``test_docs``:
    a seeded sample of that many scored texts, the same for every row (None: all); ``downstream``:
    the classifier's settings (a :class:`~korean_bpe.compare.downstream.Downstream` or a dict of its
    fields that differ from :attr:`default_downstream`; None: :attr:`default_downstream`; its
    ``train_docs`` samples the training texts).  The files are read
    when the task is made: a missing file or column, or one class only, fails before any training.
    Needs PyTorch (``pip install "korean_bpe[downstream]"``)."""

    labels = "unused"  # the task brings its own labels
    #: split -> its file in the data's directory: the training split first, then the scored one
    files: ClassVar[Mapping[str, str]] = {}
    #: the label column when ``label`` is not given
    label_column: ClassVar[str] = "label"
    #: one text of the data, in messages and config keys (``"comment"``: ``train_comments``)
    unit: ClassVar[str] = "text"
    #: the data's name in messages, e.g. ``"the Korean hate-speech data"``
    data: ClassVar[str] = ""
    #: where the files come from, after their names in the not-found message
    source: ClassVar[str] = ""
    #: the environment variable naming the data's directory
    env: ClassVar[str] = ""
    #: the fix of a training file with one class only
    one_class_fix: ClassVar[str] = "choose another label column"
    #: the classifier's settings when none are given; a dict of fields changes these
    default_downstream: ClassVar[Downstream] = Downstream()

    def __init__(self, path: str | os.PathLike[str] | None = None, *, label: str | None = None,
                 test_docs: int | None = None, downstream: Downstream | Mapping[str, Any] | None = None) -> None:
        settings = replace(self.default_downstream, **downstream) if isinstance(downstream, Mapping) else \
            self.default_downstream if downstream is None else downstream
        if not isinstance(settings, Downstream):
            raise TypeError(f"{type(self).__name__}(downstream=...) must be a korean_bpe.compare.Downstream, a dict of "
                            f"its fields or None, got {downstream!r}")
        if test_docs is not None and (isinstance(test_docs, bool) or not isinstance(test_docs, int) or test_docs < 2):
            raise ValueError(f"{type(self).__name__}(test_docs=...) must be an integer of 2 or more (a seeded sample "
                             f"of the scored {self.unit}s) or None for all of them, got {test_docs!r}")
        require_torch()  # the install hint now, not after the rows are trained
        label = self.label_column if label is None else label
        directory = self._directory(path)
        self.path, self.label, self.settings, self.test_docs = directory, label, settings, test_docs
        train_path, scored_path = self.split_paths(directory)
        self.train = self.read(train_path, label=label)
        self.scored = self.read(scored_path, label=label)
        self.classes = sorted(set(self.train.labels))
        if len(self.classes) < 2:
            raise ValueError(f"{self.train.path}: every training {self.unit} has the label {self.classes[0]!r} in "
                             f"column {label!r}: a classifier needs two classes or more; {self.one_class_fix}")

    @classmethod
    def find_directory(cls) -> Path | None:
        """The data's directory when no path is given (None: not found)."""
        return None

    def split_paths(self, directory: Path) -> tuple[Path, Path]:
        """The training file and the scored file in ``directory``."""
        train, scored = self.files.values()
        return directory / train, directory / scored

    def read(self, path: Path, *, label: str) -> LabelledTexts:
        """The texts of the file ``path`` and their labels (``label``: the column)."""
        raise NotImplementedError(f"{type(self).__name__} must define read(path, label=...)")

    def measure(self, row: RowInput) -> Measured:
        import random
        import time

        cpu = time.process_time()
        train_texts, train_labels = _sample(self.train, self.settings.train_docs, random.Random(row.seed))
        # the scored sample: its own stream, so that it does not change with train_docs
        scored_texts, scored_labels = _sample(self.scored, self.test_docs, random.Random(f"{row.seed}/scored"))
        codes = {c: k for k, c in enumerate(self.classes)}
        unseen = sorted(set(scored_labels) - set(codes))
        codes |= {c: len(self.classes) + k for k, c in enumerate(unseen)}
        encode = row.segmenter.encode_batch
        columns, evidence = classify(row, encode(train_texts), [codes[c] for c in train_labels],
                                     encode(scored_texts), [codes[c] for c in scored_labels],
                                     settings=self.settings, desc=self.name)
        columns = self._renamed(columns)
        columns[f"{self.name}_s"] = time.process_time() - cpu
        scored = list(self.files)[1]
        notes = (f"{self.name}: the {scored} labels {', '.join(unseen)} never occur in training: those {self.unit}s "
                 f"count as wrong in {self.name}_accuracy and their classes are left out of {self.name}_macro_f1",) \
            if unseen else ()
        return Measured(columns, evidence=evidence, notes=notes)

    def replicates(self, evidence: Any, *, point: Mapping[str, Any], resamples: int, seed: int) -> dict[str, Any]:
        from .. import stats

        if evidence["truth"].size < stats.MIN_DOCUMENTS:
            return {}
        return self._renamed(stats.seed_document_replicates(evidence, resamples=resamples, seed=seed))

    def to_config(self) -> dict[str, Any]:
        train, scored = self.files
        sample = {} if self.test_docs is None else {"test_docs": self.test_docs}
        return {"path": str(self.path), "label": self.label, "classes": self.classes,
                f"{train}_{self.unit}s": len(self.train.texts), f"{scored}_{self.unit}s": len(self.scored.texts),
                **sample, "downstream": {**self.settings.to_config(), "device_used": resolved_device(self.settings)}}

    def _directory(self, path: str | os.PathLike[str] | None) -> Path:
        """The data's directory: ``path``, else :meth:`find_directory`; CorpusError with the fix."""
        from ...corpus import CorpusError

        names = " and ".join(self.files.values())
        if path is None:
            found = self.find_directory()
            if found is None:
                raise CorpusError(f"{self.data} was not found: give its directory (holding {names}{self.source}), or "
                                  f"set {self.env} to it")
            return found
        directory = Path(path).expanduser()
        if directory.is_file():
            raise CorpusError(f"{directory} is a file: give the directory holding {names}")
        return directory

    def _renamed(self, values: dict[str, Any]) -> dict[str, Any]:
        """The downstream stage's names as the task's: ``downstream_accuracy`` -> ``<name>_accuracy``."""
        return {f"{self.name}_" + k.removeprefix("downstream_"): v for k, v in values.items()}


def _sample(data: LabelledTexts, limit: int | None, rng: Any) -> tuple[list[str], list[str]]:
    """A seeded sample of ``limit`` of ``data``'s texts and labels, in file order (all for None)."""
    if limit is None or limit >= len(data.texts):
        return data.texts, data.labels
    keep = sorted(rng.sample(range(len(data.texts)), limit))
    return [data.texts[i] for i in keep], [data.labels[i] for i in keep]
