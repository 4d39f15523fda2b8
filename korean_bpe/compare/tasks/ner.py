"""The named-entity task: where each row's token boundaries fall against the entities of KLUE-NER.

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
"""

from __future__ import annotations

import os
import re
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from ..columns import Column
from ..rows import Measured, RowInput
from .base import BaseTask, register_task

__all__ = ["NerTask", "NerSentence", "read_klue_ner", "read_klue_ner_lines", "klue_ner_path", "split_sentences",
           "token_spans", "entity_counts", "KLUE_NER_FILE", "NER_TEST_FRACTION"]

#: the file of the KLUE-NER dev split in its directory
KLUE_NER_FILE = "klue-ner-v1.1_dev.tsv"
#: the share of the sentences the exact metrics are measured on by default (the rest train a tagger)
NER_TEST_FRACTION = 0.2
_HEADER = re.compile(r"## (\S+)\t")
_TAG = re.compile(r"O|[BI]-[A-Za-z_]+")
_P = "%"
#: the parts counted per test sentence: the columns of the evidence
PARTS = ("crossing", "boundaries", "recoverable", "entities")


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
    """``ner_boundary_crossing`` and ``ner_ceiling_f1`` of each row on the test sentences of
    KLUE-NER (see the module).  ``path``: the KLUE-NER file, or its directory (None:
    :func:`klue_ner_path`); ``test_fraction`` and ``split_seed``: the seeded sentence split
    (:func:`split_sentences`).  The file is read when the task is made: a missing or malformed
    file fails before any training."""

    name = "ner"
    labels = "unused"  # the task brings its own entities
    metrics = ("ner_boundary_crossing", "ner_ceiling_f1")
    verdict = (("entity boundaries", "ner_boundary_crossing"),)
    columns = (
        Column("ner_boundary_crossing", "float64", "share of the gold entity starts and ends of the KLUE-NER test "
               "sentences that fall strictly inside one of the row's tokens (white space trimmed from the tokens' "
               "spans): an entity edge no tagger of whole tokens can mark (task ner; exact, no model)", "nerX%", _P,
               "lower", "{:.2f}", True),
        Column("ner_ceiling_f1", "float64", "micro F1 over the entities (exact span and type) of a perfect tagger "
               "of whole tokens on those sentences: 2 R / (R + G), R the entities whose start and end are token "
               "boundaries, G all (task ner)", "nerCeil%", _P, "higher", "{:.2f}", True),
        Column("ner_s", "float64", "CPU seconds of the ner task on the row", unit="s", format="{:.1f}"),
    )

    def __init__(self, path: str | os.PathLike[str] | None = None, *, test_fraction: float = NER_TEST_FRACTION,
                 split_seed: int = 0) -> None:
        if isinstance(test_fraction, bool) or not isinstance(test_fraction, (int, float)) or \
                not 0 < test_fraction < 1:
            raise ValueError(f"NerTask(test_fraction={test_fraction!r}): must be a number between 0 and 1, "
                             "e.g. 0.2 (the share of the sentences measured on)")
        if isinstance(split_seed, bool) or not isinstance(split_seed, int) or split_seed < 0:
            raise ValueError(f"NerTask(split_seed={split_seed!r}): must be an int >= 0")
        self.path = _file(path)
        self.test_fraction, self.split_seed = float(test_fraction), split_seed
        self.sentences = read_klue_ner(self.path)
        self.train_idx, self.test_idx = split_sentences(len(self.sentences), test_fraction=self.test_fraction,
                                                        seed=split_seed)

    @property
    def test(self) -> list[NerSentence]:
        return [self.sentences[i] for i in self.test_idx]

    def measure(self, row: RowInput) -> Measured:
        import time

        import numpy as np

        cpu = time.process_time()
        test = self.test
        pieces = row.segmenter.pieces
        parts = np.array([entity_counts(s.entities, token_spans(s.text, pieces(s.text))) for s in test],
                         dtype=np.int64).reshape(len(test), len(PARTS))
        crossing, boundaries, recoverable, entities = (int(v) for v in parts.sum(0))
        notes: tuple[str, ...] = ()
        if not entities:
            notes = (f"ner: the {len(test)} test sentences hold no entity: no ner_boundary_crossing or ner_ceiling_f1",)
        columns = {
            "ner_boundary_crossing": crossing / boundaries if boundaries else float("nan"),
            "ner_ceiling_f1": 2 * recoverable / (recoverable + entities) if entities else float("nan"),
            "ner_s": time.process_time() - cpu,
        }
        return Measured(columns, evidence=parts, notes=notes)

    def replicates(self, evidence: Any, *, point: Mapping[str, Any], resamples: int, seed: int) -> dict[str, Any]:
        import numpy as np

        from .. import stats

        if len(evidence) < stats.MIN_DOCUMENTS or not evidence[:, PARTS.index("entities")].any():
            return {}
        sums = stats.replicate_sums(evidence, stats.resample_counts(len(evidence), resamples=resamples, seed=seed))
        crossing, boundaries, recoverable, entities = (sums[:, k] for k in range(len(PARTS)))
        with np.errstate(divide="ignore", invalid="ignore"):
            return {"ner_boundary_crossing": np.where(boundaries > 0, crossing / boundaries, np.nan),
                    "ner_ceiling_f1": np.where(entities > 0, 2 * recoverable / (recoverable + entities), np.nan)}

    def to_config(self) -> dict[str, Any]:
        return {"path": str(self.path), "sentences": len(self.sentences), "test_fraction": self.test_fraction,
                "split_seed": self.split_seed, "test_sentences": len(self.test_idx),
                "train_sentences": len(self.train_idx),
                "test_entities": sum(len(self.sentences[i].entities) for i in self.test_idx)}

    def __repr__(self) -> str:
        return f"NerTask({str(self.path)!r}, test_fraction={self.test_fraction}, split_seed={self.split_seed})"


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


def token_spans(text: str, pieces: Iterable[tuple[str, int, int]]) -> list[tuple[int, int]]:
    """The ``(start, end)`` character spans of ``pieces`` (a segmenter's ``(token, start, end)``) in
    ``text``, white space trimmed from each, empty ones dropped.

    >>> token_spans("박 씨의", [("박", 0, 1), ("Ġ씨", 1, 3), ("의", 3, 4), ("▁", 4, 4)])
    [(0, 1), (2, 3), (3, 4)]
    """
    out = []
    for _, a, b in pieces:
        while a < b and text[a].isspace():
            a += 1
        while b > a and text[b - 1].isspace():
            b -= 1
        if a < b:
            out.append((a, b))
    return out


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
