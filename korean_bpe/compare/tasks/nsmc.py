"""The movie-review task: the downstream classifier (:mod:`korean_bpe.compare.downstream`) trained
from scratch on each row's tokens of the NSMC training reviews and scored on NSMC test reviews, so
that a tokenizer trained on any corpus is judged on movie-review sentiment.

The data is the Naver Sentiment Movie Corpus (Lucy Park, github.com/e9t/nsmc, CC0 1.0):
``ratings_train.txt`` (165,320 reviews) and ``ratings_test.txt`` (55,106), tab-separated, columns
``id``, ``document`` and ``label`` (0 negative, 1 positive; the classes are balanced).  The task
reads the directory it is given, else ``$KOREAN_BPE_NSMC_DIR``, else ``../shared/corpora/nsmc``
beside the repository (:func:`korean_bpe.corpus.nsmc_dir`); a directory of ``train.tsv`` and
``test.tsv`` in the same format (a sample of NSMC) does as well.  The files are read by
:func:`korean_bpe.corpus.iter_labelled` (no quoting: a review may start with ``"``; a review
``NA`` or ``null`` is text; blank reviews are skipped).

Per row (a :class:`~korean_bpe.compare.tasks.classification.ClassificationTask`): a seeded sample of
``Downstream.train_docs`` training reviews (20,000 by default) and of ``test_docs`` test reviews
(10,000 by default, so that a study of many rows stays within its time budget; None: all 55,106),
the same samples for every row.  Columns ``nsmc_accuracy`` (it leads the verdict family
"sentiment (NSMC)": the classes are balanced), ``nsmc_macro_f1``, ``nsmc_seed_sd`` and ``nsmc_s``,
the first two with intervals (two-stage bootstrap of the test reviews and the seeds) and the paired
test.

>>> import pathlib, tempfile
>>> d = pathlib.Path(tempfile.mkdtemp())
>>> _ = (d / "test.tsv").write_text('id\\tdocument\\tlabel\\n1\\t"재밌다\\t1\\n2\\tNA\\t0\\n', encoding="utf-8")
>>> read_reviews(d / "test.tsv").texts
['"재밌다', 'NA']
>>> _ = (d / "plain.tsv").write_text("id\\tdocument\\n1\\t재밌다\\n", encoding="utf-8")
>>> read_reviews(d / "plain.tsv")  # doctest: +ELLIPSIS
Traceback (most recent call last):
  ...
korean_bpe.corpus.CorpusError: .../plain.tsv has no label column 'label': its columns are id, document; ...
"""

from __future__ import annotations

import os
from collections.abc import Mapping
from pathlib import Path
from typing import Any

from ..downstream import Downstream
from .base import register_task
from .classification import ClassificationTask, LabelledTexts, task_column

__all__ = ["NsmcTask", "read_reviews", "NSMC_TEST_DOCS", "SAMPLE_FILES"]

#: the test reviews the task scores by default (a seeded sample of the 55,106)
NSMC_TEST_DOCS = 10_000
#: the file pair of a directory holding a sample of NSMC in its format (korean_bpe's shipped sample)
SAMPLE_FILES = {"train": "train.tsv", "test": "test.tsv"}
_TEXT, _LABEL = "document", "label"


@register_task("nsmc")
class NsmcTask(ClassificationTask):
    """``nsmc_accuracy`` and ``nsmc_macro_f1`` of each row (see the module); ``path``: the directory
    holding ``ratings_train.txt`` and ``ratings_test.txt``, or ``train.tsv`` and ``test.tsv``, or
    ``"nsmc-sample"``, the sample shipped with korean_bpe (None: :func:`korean_bpe.corpus.nsmc_dir`); ``test_docs``: a seeded sample of that many test reviews
    (default 10,000; None: all); ``downstream``: the classifier's settings (a
    :class:`~korean_bpe.compare.downstream.Downstream` or a dict of its fields; None: the defaults,
    20,000 training reviews).  Needs PyTorch (``pip install "korean_bpe[downstream]"``)."""

    name = "nsmc"
    metrics = ("nsmc_accuracy", "nsmc_macro_f1")
    verdict = (("sentiment (NSMC)", "nsmc_accuracy"),)  # accuracy leads: the classes are balanced
    columns = (
        task_column("nsmc", "downstream_accuracy", "nsmc%", "share of (seed, test review) pairs labelled right by the "
                    "downstream classifier trained on the row's tokens of the NSMC training reviews (a seeded sample "
                    "of Downstream.train_docs), on a seeded sample of the NSMC test reviews (test_docs, 10,000 of "
                    "55,106 by default) (task nsmc; two-stage bootstrap of the reviews and the seeds)"),
        task_column("nsmc", "downstream_macro_f1", "nsmcF1%", "macro-averaged F1 over the two classes (negative / "
                    "positive) of that classifier on the same test reviews, the mean of its seeds' (task nsmc)"),
        task_column("nsmc", "downstream_seed_sd", "", "standard deviation of the per-seed test accuracies of the "
                    "nsmc task's classifier"),
        task_column("nsmc", "downstream_s", "", "CPU seconds of the nsmc task on the row: encoding the reviews, "
                    "training the seeds' models, predicting the test reviews"),
    )
    files = {"train": "ratings_train.txt", "test": "ratings_test.txt"}
    unit = "review"
    data = "the NSMC movie reviews"
    source = " from github.com/e9t/nsmc, or train.tsv and test.tsv of a sample in its format"
    env = "KOREAN_BPE_NSMC_DIR"
    one_class_fix = "give files with reviews of both labels (0 negative, 1 positive)"

    def __init__(self, path: str | os.PathLike[str] | None = None, *, test_docs: int | None = NSMC_TEST_DOCS,
                 downstream: Downstream | Mapping[str, Any] | None = None) -> None:
        if path == "nsmc-sample" and not os.path.exists(path):  # the sample shipped with korean_bpe, by name
            from ...corpus import embedded_path

            path = embedded_path("nsmc-sample").parent
        super().__init__(path, test_docs=test_docs, downstream=downstream)

    @property
    def test(self) -> LabelledTexts:
        """The test reviews (all of them; each row scores a sample of ``test_docs``)."""
        return self.scored

    @classmethod
    def find_directory(cls) -> Path | None:
        from ...corpus import nsmc_dir

        return nsmc_dir()

    def split_paths(self, directory: Path) -> tuple[Path, Path]:
        """NSMC's ``ratings_train.txt`` and ``ratings_test.txt``, else a sample's ``train.tsv`` and
        ``test.tsv`` where the directory holds those instead."""
        if not (directory / self.files["train"]).is_file() and (directory / SAMPLE_FILES["train"]).is_file():
            return directory / SAMPLE_FILES["train"], directory / SAMPLE_FILES["test"]
        return super().split_paths(directory)

    def read(self, path: Path, *, label: str) -> LabelledTexts:
        return read_reviews(path, label=label)

    def __repr__(self) -> str:
        return f"NsmcTask({str(self.path)!r}, test_docs={self.test_docs!r}, downstream={self.settings!r})"


def read_reviews(path: str | os.PathLike[str], *, label: str = _LABEL) -> LabelledTexts:
    """The reviews of an NSMC-format file (tab-separated, UTF-8, a header naming ``document`` and
    ``label``) and their labels, as :func:`korean_bpe.corpus.iter_labelled` reads them.
    :class:`~korean_bpe.corpus.CorpusError` (a ValueError) naming the file for a missing file, a
    header without ``document`` or ``label`` (with the columns it has), a malformed line (with its
    number), an empty label, or a file without reviews."""
    from ...corpus import CorpusError, iter_labelled, read_first_line

    path = Path(path)
    if not path.is_file():
        raise CorpusError(f"{path} not found: the NSMC task needs ratings_train.txt and ratings_test.txt "
                          "(github.com/e9t/nsmc), or train.tsv and test.tsv of a sample in their format")
    with path.open("rb") as f:
        header = read_first_line(f.readline(), str(path), None).fields or []
    for column in (_TEXT, label):
        if column not in header:
            kind = "text" if column == _TEXT else "label"
            raise CorpusError(f"{path} has no {kind} column {column!r}: its columns are {', '.join(header) or 'none'}; "
                              f"an NSMC-format file has a header line 'id<TAB>document<TAB>label'")
    texts, labels = [], []
    for text, value in iter_labelled(path, column=_TEXT, label_column=label):
        if not value:
            raise CorpusError(f"{path}: the review {text[:60]!r} has an empty {label!r} label (a line with fewer "
                              "fields than the header?)")
        texts.append(text)
        labels.append(value)
    return LabelledTexts(texts, labels, path)
