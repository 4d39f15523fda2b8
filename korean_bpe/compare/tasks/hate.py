"""The hate-speech task: the downstream classifier (:mod:`korean_bpe.compare.downstream`) trained
from scratch on each row's tokens of Korean news comments and scored on held-out ones.

The data is the Korean HateSpeech Dataset (Moon, Cho and Lee, "BEEP! Korean Corpus of Online News
Comments for Toxic Speech Detection", SocialNLP 2020; github.com/kocohub/korean-hate-speech, CC BY-SA
4.0): comments on entertainment news, ``train.tsv`` (7,896) and ``dev.tsv`` (471; the published test
set has no labels), columns ``comments``, ``contain_gender_bias``, ``bias`` and ``hate``.  Nothing of
it ships with korean_bpe: the task reads the directory it is given, else
``$KOREAN_BPE_HATE_SPEECH_DIR``, else ``../shared/corpora/korean-hate-speech`` beside the repository
(:func:`hate_speech_dir`).

For each row: the training comments and the dev comments encoded with the row's segmenter
(``encode_batch``), the classifier of :class:`~korean_bpe.compare.downstream.Downstream` (its
settings, seeds ``row.seed, row.seed + 1, ...``) trained on the training comments' ids and labels
(``label``: the ``hate`` column by default, three classes none / offensive / hate; or ``bias``), and
the dev comments predicted.  Columns: ``hate_macro_f1`` (it leads: the classes are unbalanced,
none 160 / offensive 189 / hate 122 on dev), ``hate_accuracy``, ``hate_seed_sd`` and ``hate_s``;
the first two with the two-stage bootstrap of the downstream stage over the dev comments and the
seeds (:func:`korean_bpe.compare.stats.seed_document_replicates`) and its paired test.  471 comments
make wide intervals: about ±5 points of macro-F1 at 95% (docs/API.md records a run),
so only large differences between rows are significant.

The reader is :func:`read_comments` (clear errors for a missing file, a missing label column, a
malformed line):

>>> import pathlib, tempfile
>>> d = pathlib.Path(tempfile.mkdtemp())
>>> _ = (d / "dev.tsv").write_text("comments\\thate\\n송중기 시대극은 믿고본다.\\tnone\\n지현우 나쁜놈\\toffensive\\n",
...                                encoding="utf-8")
>>> read_comments(d / "dev.tsv").labels
['none', 'offensive']
>>> read_comments(d / "dev.tsv", label="bias")  # doctest: +ELLIPSIS
Traceback (most recent call last):
  ...
korean_bpe.corpus.CorpusError: .../dev.tsv has no label column 'bias': its columns are comments, hate; give label= one of them
"""

from __future__ import annotations

import os
from collections.abc import Mapping
from pathlib import Path
from typing import Any

from ..downstream import Downstream
from .base import register_task
from .classification import ClassificationTask, LabelledTexts, task_column

__all__ = ["HateTask", "HATE_DOWNSTREAM", "Comments", "read_comments", "hate_speech_dir", "HATE_SPEECH_FILES",
           "TEXT_COLUMN"]

#: split -> its file in the data's directory
HATE_SPEECH_FILES = {"train": "train.tsv", "dev": "dev.tsv"}
#: the column of the comments
TEXT_COLUMN = "comments"

#: the comments of one file of the hate-speech data and their labels (the strings of the label column)
Comments = LabelledTexts


def hate_speech_dir() -> Path | None:
    """The hate-speech data's directory: ``$KOREAN_BPE_HATE_SPEECH_DIR``, else
    ``../shared/corpora/korean-hate-speech`` beside the repository; None when neither holds it."""
    from ...corpus import shared_corpus_dir

    return shared_corpus_dir("korean-hate-speech", env="KOREAN_BPE_HATE_SPEECH_DIR",
                             files=tuple(HATE_SPEECH_FILES.values()))


#: the classifier's settings when none are given: the downstream defaults with batches of 32.  The
#: defaults' batches of 256 make 93 optimizer steps of the 7,896 comments, too few to learn the three
#: classes (macro-F1 17%: one class everywhere); batches of 32 (741 steps) give 60% (whitespace BPE
#: at 32,000 trained on NSMC, 3 seeds; the previous defaults gave 53%)
HATE_DOWNSTREAM = Downstream(batch_size=32)


@register_task("hate")
class HateTask(ClassificationTask):
    """``hate_macro_f1`` and ``hate_accuracy`` of each row (see the module); ``path``: the directory
    holding ``train.tsv`` and ``dev.tsv`` (None: :func:`hate_speech_dir`); ``label``: the label
    column; ``downstream``: the classifier's settings (a
    :class:`~korean_bpe.compare.downstream.Downstream`, or a dict of the fields that differ from
    :data:`HATE_DOWNSTREAM`; None: :data:`HATE_DOWNSTREAM`).
    The files are read when the task is made: a missing file or column fails before any training.
    Needs PyTorch (``pip install "korean_bpe[downstream]"``).  A
    :class:`~korean_bpe.compare.tasks.classification.ClassificationTask`."""

    name = "hate"
    metrics = ("hate_macro_f1", "hate_accuracy")
    verdict = (("hate speech", "hate_macro_f1"),)  # macro-F1 leads: the classes are unbalanced
    columns = (
        task_column("hate", "downstream_macro_f1", "hateF1%", "macro-averaged F1 over the classes (none / offensive / "
                    "hate by default) of the downstream classifier trained on the row's tokens of the Korean "
                    "hate-speech training comments, on the 471 dev comments, the mean of its seeds' (task hate; "
                    "two-stage bootstrap of the comments and the seeds)"),
        task_column("hate", "downstream_accuracy", "hate%", "share of (seed, dev comment) pairs that classifier labels "
                    "right (task hate)"),
        task_column("hate", "downstream_seed_sd", "", "standard deviation of the per-seed dev accuracies of the hate "
                    "task's classifier"),
        task_column("hate", "downstream_s", "", "CPU seconds of the hate task on the row: encoding the comments, "
                    "training the seeds' models, predicting the dev comments"),
    )
    files = HATE_SPEECH_FILES
    label_column = "hate"
    unit = "comment"
    data = "the Korean hate-speech data"
    source = " from github.com/kocohub/korean-hate-speech, labeled/"
    env = "KOREAN_BPE_HATE_SPEECH_DIR"
    default_downstream = HATE_DOWNSTREAM

    def __init__(self, path: str | os.PathLike[str] | None = None, *, label: str = "hate",
                 downstream: Downstream | Mapping[str, Any] | None = None) -> None:
        super().__init__(path, label=label, downstream=downstream)

    @property
    def dev(self) -> Comments:
        """The dev comments, the scored split."""
        return self.scored

    @classmethod
    def find_directory(cls) -> Path | None:
        return hate_speech_dir()

    def read(self, path: Path, *, label: str) -> Comments:
        return read_comments(path, label=label)

    def __repr__(self) -> str:
        return f"HateTask({str(self.path)!r}, label={self.label!r}, downstream={self.settings!r})"


def read_comments(path: str | os.PathLike[str], *, label: str = "hate") -> Comments:
    """The comments of a hate-speech TSV (tab-separated, UTF-8, a header line naming ``comments``
    and ``label``; no quoting) and their labels.  :class:`~korean_bpe.corpus.CorpusError` (a
    ValueError) naming the file for a missing file, a header without ``comments`` or ``label`` (with
    the columns it has), a line with another number of fields than the header (with its number), an
    empty label, or a file without comments."""
    from ...corpus import CorpusError

    path = Path(path)
    if not path.is_file():
        raise CorpusError(f"{path} not found: the hate-speech data needs train.tsv and dev.tsv "
                          "(github.com/kocohub/korean-hate-speech, labeled/)")
    with path.open(encoding="utf-8-sig", newline="") as f:
        lines = [line.rstrip("\r\n") for line in f]
    header = lines[0].split("\t") if lines else []
    for column in (TEXT_COLUMN, label):
        if column not in header:
            kind = "text" if column == TEXT_COLUMN else "label"
            raise CorpusError(f"{path} has no {kind} column {column!r}: its columns are {', '.join(header) or 'none'}; "
                              + ("give label= one of them" if kind == "label" else "the comments must be in 'comments'"))
    text_at, label_at = header.index(TEXT_COLUMN), header.index(label)
    texts, labels = [], []
    for number, line in enumerate(lines[1:], 2):
        if not line:
            continue
        fields = line.split("\t")
        if len(fields) != len(header):
            raise CorpusError(f"{path}, line {number}: {len(fields)} tab-separated fields where the header has "
                              f"{len(header)} ({', '.join(header)}): {line[:60]!r}")
        if not fields[label_at]:
            raise CorpusError(f"{path}, line {number}: the {label!r} label is empty")
        texts.append(fields[text_at])
        labels.append(fields[label_at])
    if not texts:
        raise CorpusError(f"{path} holds no comments (a header line and nothing else)")
    return Comments(texts, labels, path)
