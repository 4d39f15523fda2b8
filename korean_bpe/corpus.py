"""Corpora: where documents come from, yielded lazily, one string each.

``iter_texts(source)`` reads

* ``None``: the embedded default corpus, the real Korean text shipped inside the konlpy wheel
  (``konlpy/data/corpus/kolaw/constitution.txt`` and ``kobill/*.txt``), one non-blank line a
  document; nothing is downloaded;
* a path to a plain UTF-8 text file: one document a line;
* a path to a tab-separated file with a header line (NSMC's ``id  document  label``, or
  ``reviews.tsv``'s ``id  movie_id  rating  document``): the ``column`` of every row, read with
  pandas in chunks so memory stays bounded;
* ``"-"``: standard input, either of the two formats.

>>> docs = list(iter_texts(limit=2))
>>> docs[0]
'대한민국헌법'
>>> len(docs)
2

A file is a table when its first line has at least two tab-separated fields, every one an ASCII
identifier (``id``, ``document``, ``label``); anything else is plain text.  Documents are yielded
exactly as stored, minus the line ending (``\\n`` or ``\\r\\n``) and a UTF-8 byte-order mark; blank
documents (empty or white space only) are skipped.  Nothing is normalized: NFD text stays NFD,
emoji and compatibility jamo (``ㅋㅋ``) pass through.

Every problem is a :class:`CorpusError` (a ``ValueError``) with a one-line message naming the file:
a missing path or a directory (raised by the ``iter_texts`` call itself), text that is not UTF-8
(with the line number and byte offset of the first bad byte), a malformed table row, or a corpus
without a single non-blank document (raised once the end is reached).
"""

from __future__ import annotations

import os
import re
import sys
from collections.abc import Iterator
from importlib.util import find_spec
from pathlib import Path
from typing import BinaryIO, NamedTuple

__all__ = [
    "CorpusError", "iter_texts", "iter_labelled", "default_corpus_paths", "nsmc_dir", "nsmc_path", "NSMC_FILES",
    "NsmcSplit", "load_nsmc",
]

#: NSMC split -> file name in :func:`nsmc_dir`
NSMC_FILES: dict[str, str] = {"train": "ratings_train.txt", "test": "ratings_test.txt", "all": "reviews.tsv"}

_BOM = b"\xef\xbb\xbf"
_HEADER_FIELD = re.compile(r"[A-Za-z_][A-Za-z0-9_]*")
_CHUNK_ROWS = 10_000


class CorpusError(ValueError):
    """A corpus cannot be read; the message is one line, fit for a command line."""


def default_corpus_paths() -> list[Path]:
    """The embedded corpus files inside the installed konlpy package (konlpy is not imported).

    >>> [p.name for p in default_corpus_paths()][:2]
    ['constitution.txt', '1809890.txt']
    """
    spec = find_spec("konlpy")
    if spec is None or not spec.submodule_search_locations:
        raise CorpusError(
            "the default corpus ships inside konlpy, which is not installed: pip install konlpy "
            "(or give a corpus file)"
        )
    base = Path(next(iter(spec.submodule_search_locations))) / "data" / "corpus"
    paths = [base / "kolaw" / "constitution.txt", *sorted((base / "kobill").glob("*.txt"))]
    missing = [str(p) for p in paths if not p.is_file()]
    if missing or len(paths) < 2:
        raise CorpusError(f"the konlpy corpus files are missing ({', '.join(missing) or base / 'kobill'}): reinstall konlpy")
    return paths


def nsmc_dir() -> Path | None:
    """The NSMC directory: ``$KOREAN_BPE_NSMC_DIR``, else ``../shared/corpora/nsmc`` beside the
    repository; ``None`` when neither holds the corpus."""
    candidates: list[Path] = []
    env = os.environ.get("KOREAN_BPE_NSMC_DIR")
    if env:
        candidates.append(Path(env).expanduser())
    candidates.append(Path(__file__).resolve().parent.parent.parent / "shared" / "corpora" / "nsmc")
    for c in candidates:
        if any((c / f).is_file() for f in NSMC_FILES.values()):
            return c
    return None


def nsmc_path(split: str = "train", *, directory: str | os.PathLike[str] | None = None) -> Path:
    """``ratings_train.txt`` (``"train"``), ``ratings_test.txt`` (``"test"``) or ``reviews.tsv``
    (``"all"``) in ``directory``, else in :func:`nsmc_dir`; :class:`CorpusError` when the corpus
    is not there."""
    if split not in NSMC_FILES:
        raise ValueError(f"split={split!r}: use one of {', '.join(map(repr, NSMC_FILES))}")
    d = Path(directory).expanduser() if directory is not None else nsmc_dir()
    if d is None:
        raise CorpusError(
            "the NSMC corpus was not found: set KOREAN_BPE_NSMC_DIR to the directory holding "
            f"{NSMC_FILES[split]} (or put it in ../shared/corpora/nsmc beside the repository)"
        )
    path = d / NSMC_FILES[split]
    if not path.is_file():
        raise CorpusError(f"{path} not found in the NSMC directory {d}")
    return path


class NsmcSplit(NamedTuple):
    """One NSMC split in memory: the reviews, their labels (0 negative, 1 positive; None for
    ``reviews.tsv``, which has ratings instead) and the file they came from."""

    texts: list[str]
    labels: list[int] | None
    path: Path


def load_nsmc(
    split: str = "train", *, limit: int | None = None, directory: str | os.PathLike[str] | None = None
) -> NsmcSplit:
    """The reviews of an NSMC split, in file order (the first ``limit``), read by
    :func:`iter_labelled` (blank reviews skipped, nothing normalized), from ``directory`` or else
    :func:`nsmc_dir`: the one loader of the benchmarks.  :class:`CorpusError` when absent.

    >>> nsmc = load_nsmc("test", limit=2)  # doctest: +SKIP
    >>> nsmc.texts[1], nsmc.labels, nsmc.path.name  # doctest: +SKIP
    ('안봐야 할 영화는 너무 많다.', [0, 0], 'ratings_test.txt')
    """
    path = nsmc_path(split, directory=directory)
    texts: list[str] = []
    raw: list[str | None] = []
    for doc, label in iter_labelled(path, limit=limit):
        texts.append(doc)
        raw.append(label)
    labels = None if any(x is None for x in raw) else [int(x) for x in raw]  # type: ignore[arg-type]
    return NsmcSplit(texts, labels, path)


def iter_texts(
    source: str | os.PathLike[str] | None = None, *, limit: int | None = None, column: str = "document"
) -> Iterator[str]:
    """Yield the documents of ``source`` lazily (see the module docstring); at most ``limit``.

    >>> next(iter_texts(limit=1))
    '대한민국헌법'
    """
    if limit is not None and (isinstance(limit, bool) or not isinstance(limit, int) or limit < 1):
        raise ValueError(f"limit must be a positive int or None, got {limit!r}")
    if not isinstance(column, str) or not column:
        raise ValueError(f"column must be a non-empty column name such as 'document', got {column!r}")
    if source is None:
        paths = default_corpus_paths()
        return _limited(_nonempty(_chain_files(paths), "the default konlpy corpus"), limit)
    if isinstance(source, str) and source == "-":
        return _limited(_nonempty(_read_stream(sys.stdin.buffer, "<stdin>", column), "<stdin>"), limit)
    if not isinstance(source, (str, os.PathLike)):
        raise TypeError(f"source must be a path, '-' or None, got {type(source).__name__}")
    path = Path(source)
    if not path.exists():
        raise CorpusError(f"corpus file not found: {path}")
    if path.is_dir():
        raise CorpusError(f"{path} is a directory: give a text file (one document a line) or a .tsv file")
    return _limited(_nonempty(_read_file(path, column), str(path)), limit)


def iter_labelled(
    source: str | os.PathLike[str] | None = None, *, limit: int | None = None, column: str = "document",
    label_column: str = "label",
) -> Iterator[tuple[str, str | None]]:
    """Yield ``(document, label)`` for the documents :func:`iter_texts` yields: the label is the
    ``label_column`` field of the same row of a table (NSMC's 0/1, as text), None when ``source`` is
    not a table with that column (plain text, the embedded corpus, standard input).

    >>> next(iter_labelled(limit=1))
    ('대한민국헌법', None)
    """
    docs = iter_texts(source, limit=limit, column=column)  # checks the arguments and the path now
    if source is None or (isinstance(source, str) and source == "-"):
        return ((d, None) for d in docs)
    path = Path(source)
    with path.open("rb") as f:
        first = f.readline()
    fields = _decode(_strip_eol(first.removeprefix(_BOM)), str(path), 1, 0).split("\t")
    is_table = len(fields) >= 2 and all(_HEADER_FIELD.fullmatch(x) for x in fields)
    if not is_table or label_column not in fields or column not in fields:
        return ((d, None) for d in docs)
    rows = zip(_read_file(path, column), _read_file(path, label_column))
    pairs = ((d, label) for d, label in rows if d and not d.isspace())
    return _limited(_nonempty_pairs(pairs, str(path)), limit)


def _nonempty_pairs(pairs: Iterator[tuple[str, str]], name: str) -> Iterator[tuple[str, str | None]]:
    seen = False
    for pair in pairs:
        seen = True
        yield pair
    if not seen:
        raise CorpusError(f"{name}: the corpus is empty (no non-blank document)")


# -- internals -------------------------------------------------------------------------------

def _limited(docs: Iterator[str], limit: int | None) -> Iterator[str]:
    if limit is None:
        yield from docs
        return
    for i, doc in enumerate(docs, 1):
        yield doc
        if i >= limit:
            return


def _nonempty(docs: Iterator[str], name: str) -> Iterator[str]:
    seen = False
    for doc in docs:
        if doc and not doc.isspace():
            seen = True
            yield doc
    if not seen:
        raise CorpusError(f"{name}: the corpus is empty (no non-blank document)")


def _chain_files(paths: list[Path]) -> Iterator[str]:
    for p in paths:
        yield from _read_file(p, "document")


def _read_file(path: Path, column: str) -> Iterator[str]:
    try:
        f = path.open("rb")
    except OSError as exc:
        raise CorpusError(f"cannot open corpus file {path}: {exc.strerror or exc}") from None
    with f:
        yield from _read_stream(f, str(path), column)


def _decode(raw: bytes, name: str, lineno: int, offset: int) -> str:
    try:
        return raw.decode("utf-8")
    except UnicodeDecodeError as exc:
        raise CorpusError(
            f"{name}: not UTF-8 text: line {lineno}, byte offset {offset + exc.start} "
            f"(byte 0x{raw[exc.start]:02x}); re-encode the file as UTF-8 (e.g. iconv -f cp949 -t utf-8)"
        ) from None


def _strip_eol(raw: bytes) -> bytes:
    if raw.endswith(b"\n"):
        raw = raw[:-1]
        if raw.endswith(b"\r"):
            raw = raw[:-1]
    return raw


def _read_stream(f: BinaryIO, name: str, column: str) -> Iterator[str]:
    first = f.readline()
    offset = 0
    if first.startswith(_BOM):
        first = first[len(_BOM):]
        offset = len(_BOM)
    header = _decode(_strip_eol(first), name, 1, offset)
    fields = header.split("\t")
    if len(fields) >= 2 and all(_HEADER_FIELD.fullmatch(x) for x in fields):
        if column not in fields:
            raise CorpusError(f"{name}: no column {column!r} in the header {fields!r}; pass column=... with one of them")
        yield from _read_table(f, name, fields, column, header_bytes=offset + len(first))
        return
    yield header
    offset += len(first)
    lineno = 1
    for raw in f:
        lineno += 1
        yield _decode(_strip_eol(raw), name, lineno, offset)
        offset += len(raw)


def _read_table(f: BinaryIO, name: str, fields: list[str], column: str, *, header_bytes: int) -> Iterator[str]:
    from ._optional import require

    pd = require("pandas")
    extra = "\x00extra"  # catches rows with one field too many (a tab inside a document)
    try:
        reader = pd.read_csv(
            f, sep="\t", quoting=3, keep_default_na=False, header=None, names=[*fields, extra],
            index_col=False, dtype=str, chunksize=_CHUNK_ROWS, encoding="utf-8",
        )
        for chunk in reader:
            bad = chunk.index[chunk[extra] != ""]
            if len(bad):
                raise CorpusError(
                    f"{name}: data row {bad[0] + 1} has more than the {len(fields)} fields of the header "
                    f"(a tab inside a document?)"
                )
            for doc in chunk[column].tolist():
                yield doc[:-1] if doc.endswith("\r") else doc
    except UnicodeDecodeError:
        _raise_first_bad_byte(f, name, header_bytes)
        raise  # pragma: no cover - the scan always finds the byte pandas failed on
    except pd.errors.ParserError as exc:
        msg = str(exc).strip().splitlines()[-1]
        m = re.search(r"in line (\d+), saw (\d+)", msg)
        if m:  # pandas counts lines after the header
            msg = f"line {int(m.group(1)) + 1} has {m.group(2)} fields, the header {len(fields)}"
        raise CorpusError(f"{name}: malformed table: {msg}") from None


def _raise_first_bad_byte(f: BinaryIO, name: str, header_bytes: int) -> None:
    """Re-read the table's body to name the line and byte offset of the first non-UTF-8 byte."""
    if not f.seekable():
        raise CorpusError(f"{name}: not UTF-8 text (after line 1); re-encode it as UTF-8") from None
    f.seek(header_bytes)
    offset, lineno = header_bytes, 1
    for raw in f:
        lineno += 1
        _decode(raw, name, lineno, offset)
        offset += len(raw)
    raise CorpusError(f"{name}: not UTF-8 text; re-encode it as UTF-8") from None

