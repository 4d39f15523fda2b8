"""Corpora: where documents come from, yielded lazily, one string each.

``iter_texts(source)`` reads

* ``None``: the embedded default corpus, the real Korean text shipped inside the konlpy wheel
  (``konlpy/data/corpus/kolaw/constitution.txt`` and ``kobill/*.txt``), one non-blank line a
  document; nothing is downloaded;
* a path to a plain UTF-8 text file: one document a line;
* a path to a tab-separated file with a header line (NSMC's ``id  document  label``, or
  ``reviews.tsv``'s ``id  movie_id  rating  document``): the ``column`` of every row, read with
  pandas in chunks so memory stays bounded;
* ``"-"``: standard input, either of the two formats;
* the name of a corpus shipped with korean_bpe (:data:`EMBEDDED_CORPORA`), when no file of that name
  exists: ``"constitution"`` (the konlpy text above), ``"nsmc-sample"`` and ``"nsmc-sample-test"``
  (8,000 and 2,000 Naver movie reviews with their labels, CC0: ``korean-bpe compare``'s default).

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
(with the line number and byte offset of the first bad byte), a table row with more fields than
the header (with its line number and byte offset), or a corpus without a single non-blank
document (raised once the end is reached).

The reading rules live in a few functions that :mod:`korean_bpe.distributed` shares, so that a
file read in byte-range shards yields the same documents and raises the same errors, word for word
(module-internal: not in ``__all__``, but kept stable for that module): :data:`BOM`,
:func:`strip_eol`, :func:`decode_line`, :func:`read_first_line` (plain text or a table's header),
:func:`table_documents` (a table line's documents, or the too-many-fields error),
:func:`line_number` (for error messages).
"""

from __future__ import annotations

import os
import re
import sys
from collections.abc import Iterator
from importlib.util import find_spec
from pathlib import Path
from typing import BinaryIO, NamedTuple, TypeVar

__all__ = [
    "CorpusError", "iter_texts", "iter_labelled", "default_corpus_paths", "nsmc_dir", "nsmc_path", "NSMC_FILES",
    "NsmcSplit", "load_nsmc", "shared_corpus_dir", "EMBEDDED_CORPORA", "embedded_path",
]

#: NSMC split -> file name in :func:`nsmc_dir`
NSMC_FILES: dict[str, str] = {"train": "ratings_train.txt", "test": "ratings_test.txt", "all": "reviews.tsv"}

#: the corpora shipped with korean_bpe, by the name a ``source`` may give instead of a path
EMBEDDED_CORPORA: dict[str, str] = {
    "nsmc-sample": "8,000 Naver movie reviews with their labels (a seeded sample of NSMC's training split, CC0)",
    "nsmc-sample-test": "2,000 Naver movie reviews with their labels (a seeded sample of NSMC's test split, CC0)",
    "constitution": "the Korean Constitution and the bills shipped in the konlpy wheel (no labels)",
}
_SAMPLE_FILES = {"nsmc-sample": "train.tsv", "nsmc-sample-test": "test.tsv"}

#: the UTF-8 byte-order mark, skipped at the start of a file
BOM = b"\xef\xbb\xbf"
_HEADER_FIELD = re.compile(r"[A-Za-z_][A-Za-z0-9_]*")
_CHUNK_ROWS = 10_000
_READ = 2**20  # bytes read at a time when counting line breaks for an error message


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


def embedded_path(name: str) -> Path:
    """The file of the shipped NSMC sample ``name`` (``"nsmc-sample"`` or ``"nsmc-sample-test"``).

    >>> embedded_path("nsmc-sample").name, embedded_path("nsmc-sample-test").parent.name
    ('train.tsv', 'nsmc_sample')
    """
    if name not in _SAMPLE_FILES:
        raise ValueError(f"{name!r} is not a shipped sample: use one of {', '.join(map(repr, _SAMPLE_FILES))}")
    path = Path(__file__).resolve().parent / "data" / "nsmc_sample" / _SAMPLE_FILES[name]
    if not path.is_file():
        raise CorpusError(f"the shipped movie-review sample is missing ({path}): reinstall korean_bpe")
    return path


def _embedded(source: str | os.PathLike[str] | None) -> str | os.PathLike[str] | None:
    """``source``, or what an embedded corpus's name stands for (None: the konlpy corpus) when no
    file of that name exists."""
    if isinstance(source, str) and source in EMBEDDED_CORPORA and not os.path.exists(source):
        return None if source == "constitution" else embedded_path(source)
    return source


def nsmc_dir() -> Path | None:
    """The NSMC directory: ``$KOREAN_BPE_NSMC_DIR``, else ``../shared/corpora/nsmc`` beside the
    repository; ``None`` when neither holds the corpus."""
    return shared_corpus_dir("nsmc", env="KOREAN_BPE_NSMC_DIR", files=tuple(NSMC_FILES.values()))


def shared_corpus_dir(name: str, *, env: str, files: tuple[str, ...]) -> Path | None:
    """The directory of the shared corpus ``name``: ``$env``, else ``../shared/corpora/<name>``
    beside the repository, the first that holds one of ``files``; ``None`` when neither does (the
    tests that need it then skip).

    >>> shared_corpus_dir("no-such-corpus", env="KOREAN_BPE_NO_SUCH_DIR", files=("x.tsv",)) is None
    True
    """
    candidates: list[Path] = []
    given = os.environ.get(env)
    if given:
        candidates.append(Path(given).expanduser())
    candidates.append(Path(__file__).resolve().parent.parent.parent / "shared" / "corpora" / name)
    for c in candidates:
        if any((c / f).is_file() for f in files):
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
    source = _embedded(source)
    if source is None:
        paths = default_corpus_paths()
        return _limited(_nonempty(_chain_files(paths), "the default konlpy corpus"), limit)
    if isinstance(source, str) and source == "-":
        return _limited(_nonempty(_read_stream(sys.stdin.buffer, "<stdin>", column), "<stdin>"), limit)
    if not isinstance(source, (str, os.PathLike)):
        raise TypeError(f"source must be a path, '-' or None, got {type(source).__name__}")
    path = Path(source)
    if not path.exists():
        raise CorpusError(f"corpus file not found: {path} (the corpora shipped with korean_bpe go by name: "
                          f"{', '.join(EMBEDDED_CORPORA)})")
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
    source = _embedded(source)
    if source is None or (isinstance(source, str) and source == "-"):
        return ((d, None) for d in docs)
    path = Path(source)
    with path.open("rb") as f:
        fields = read_first_line(f.readline(), str(path), None).fields
    if fields is None or label_column not in fields or column not in fields:
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

_T = TypeVar("_T")


def _limited(docs: Iterator[_T], limit: int | None) -> Iterator[_T]:
    """The first ``limit`` items of ``docs`` (documents, or ``(document, label)`` pairs); all when None."""
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


def _read_stream(f: BinaryIO, name: str, column: str) -> Iterator[str]:
    raw = f.readline()
    first = read_first_line(raw, name, column)
    if first.fields is not None:
        assert first.column is not None
        yield from _read_table(f, name, first.fields, first.column, header_bytes=len(raw))
        return
    yield first.text
    offset = len(raw)
    lineno = 1
    for raw in f:
        lineno += 1
        yield decode_line(strip_eol(raw), name, lineno, offset)
        offset += len(raw)


def _read_table(f: BinaryIO, name: str, fields: list[str], column: int, *, header_bytes: int) -> Iterator[str]:
    """The ``column`` field of each row, read with pandas in chunks.  On a bad row (pandas' parser
    error or warning, a surplus field, text that is not UTF-8) the body is read again line by line
    with the rules :mod:`korean_bpe.distributed` reads shards with, so that the error names the same
    line and byte offset in the same words (a stream that cannot seek, standard input, gets pandas'
    row number instead)."""
    import warnings

    from ._optional import require

    pd = require("pandas")
    extra = "\x00extra"  # catches rows with one field too many (a tab inside a document)
    try:
        with warnings.catch_warnings():  # pandas only warns when it drops the surplus fields of a first row
            warnings.simplefilter("error", pd.errors.ParserWarning)
            reader = iter(pd.read_csv(
                f, sep="\t", quoting=3, keep_default_na=False, header=None, names=[*fields, extra],
                index_col=False, dtype=str, chunksize=_CHUNK_ROWS, encoding="utf-8",
            ))
        while True:
            with warnings.catch_warnings():  # around the read only: a generator must not hold the filter
                warnings.simplefilter("error", pd.errors.ParserWarning)
                chunk = next(reader, None)
            if chunk is None:
                break
            bad = chunk.index[chunk[extra] != ""]
            if len(bad):
                _raise_first_bad_row(f, name, header_bytes, column=column, n_fields=len(fields))
                raise CorpusError(
                    f"{name}: malformed table: data row {bad[0] + 1} has more than the {len(fields)} fields of the "
                    "header (a tab inside a document?)"
                )
            for doc in chunk[fields[column]].tolist():
                yield doc[:-1] if doc.endswith("\r") else doc
    except UnicodeDecodeError:
        _raise_first_bad_row(f, name, header_bytes, column=column, n_fields=len(fields))
        raise CorpusError(f"{name}: not UTF-8 text (after line 1); re-encode it as UTF-8") from None
    except (pd.errors.ParserError, pd.errors.ParserWarning) as exc:
        _raise_first_bad_row(f, name, header_bytes, column=column, n_fields=len(fields))
        msg = str(exc).strip().splitlines()[-1]
        m = re.search(r"in line (\d+), saw (\d+)", msg)
        if m:  # pandas counts lines after the header
            msg = f"line {int(m.group(1)) + 1} has {m.group(2)} fields, the header {len(fields)}"
        raise CorpusError(f"{name}: malformed table: {msg}") from None


def _raise_first_bad_row(f: BinaryIO, name: str, header_bytes: int, *, column: int, n_fields: int) -> None:
    """Read the table's body again, line by line, and raise the error of its first bad line (not
    UTF-8, or a surplus field); return when the stream cannot seek or no line is bad."""
    if not f.seekable():
        return
    f.seek(header_bytes)
    offset, lineno = header_bytes, 1
    for raw in f:
        lineno += 1
        text = decode_line(strip_eol(raw), name, lineno, offset)
        table_documents(text, column=column, n_fields=n_fields, name=name, f=f, offset=offset)
        offset += len(raw)


# -- the reading rules, shared with korean_bpe.distributed ----------------------------------------


def strip_eol(raw: bytes) -> bytes:
    """A line without its ending (``\\n`` or ``\\r\\n``; a lone ``\\r`` stays)."""
    if raw.endswith(b"\n"):
        raw = raw[:-1]
        if raw.endswith(b"\r"):
            raw = raw[:-1]
    return raw


def decode_line(raw: bytes, name: str, lineno: int, offset: int) -> str:
    """``raw`` (line ``lineno`` of ``name``, starting at byte ``offset``) as UTF-8 text, or the
    :class:`CorpusError` naming the line and the byte offset of the first bad byte."""
    try:
        return raw.decode("utf-8")
    except UnicodeDecodeError as exc:
        raise CorpusError(
            f"{name}: not UTF-8 text: {_bad_byte(raw, lineno, offset, exc)}; re-encode the file as UTF-8 (e.g. "
            "iconv -f cp949 -t utf-8)"
        ) from None


def _bad_byte(raw: bytes, lineno: int, offset: int, exc: UnicodeDecodeError) -> str:
    return f"line {lineno}, byte offset {offset + exc.start} (byte 0x{raw[exc.start]:02x})"


def first_non_utf8(path: str | os.PathLike[str]) -> str:
    """Where the first byte of the file ``path`` that is not UTF-8 is, in the words of the corpus
    reader's errors (``'line 3, byte offset 17 (byte 0xb0)'``), or ``''`` when there is none: for
    the messages of readers that decode a whole stream, whose decoder only knows its buffer."""
    with open(path, "rb") as f:
        offset = 0
        for lineno, raw in enumerate(f, 1):
            try:
                raw.decode("utf-8")
            except UnicodeDecodeError as exc:
                return _bad_byte(raw, lineno, offset, exc)
            offset += len(raw)
    return ""


class FirstLine(NamedTuple):
    """A file's first line, from :func:`read_first_line`."""

    #: the line as text, without byte-order mark and line ending (a document, unless a header)
    text: str
    #: bytes of the byte-order mark before it (0 or 3)
    bom: int
    #: the header's field names when the file is a table, else None
    fields: list[str] | None
    #: the index of the text column in a table (None: plain text, or no column asked for)
    column: int | None


def read_first_line(raw: bytes, name: str, column: str | None) -> FirstLine:
    """Tell a table from plain text by the first line ``raw``: a table's first line has at least
    two tab-separated fields, every one an ASCII identifier.  A table without ``column`` (unless
    None) raises :class:`CorpusError`.

    >>> read_first_line(b"id\\tdocument\\tlabel\\r\\n", "ratings.txt", "document")
    FirstLine(text='id\\tdocument\\tlabel', bom=0, fields=['id', 'document', 'label'], column=1)
    >>> read_first_line("\\ufeff아이언맨 최고\\n".encode(), "reviews.txt", "document").text
    '아이언맨 최고'
    """
    bom = len(BOM) if raw.startswith(BOM) else 0
    text = decode_line(strip_eol(raw[bom:]), name, 1, bom)
    if text.startswith("#{"):
        _refuse_counts_file(text, name)
    fields = text.split("\t")
    if len(fields) < 2 or not all(_HEADER_FIELD.fullmatch(x) for x in fields):
        return FirstLine(text, bom, None, None)
    if column is None:
        return FirstLine(text, bom, fields, None)
    if column not in fields:
        raise CorpusError(f"{name}: no column {column!r} in the header {fields!r}; pass column=... with one of them")
    return FirstLine(text, bom, fields, fields.index(column))


#: the format name in a word-counts file's header (korean_bpe.counting writes and reads it; defined
#: here, the lower room, so that a corpus reader can refuse such a file without importing counting)
COUNTS_FORMAT = "korean_bpe word counts"


def _refuse_counts_file(first_line: str, name: str) -> None:
    """Raise :class:`CorpusError` when ``first_line`` is the header of a word-counts file
    (:meth:`korean_bpe.counting.WordCounts.save`): read as a corpus, its header and numbers would be
    trained on as text."""
    import json

    try:
        header = json.loads(first_line[1:])
    except ValueError:
        return
    if isinstance(header, dict) and header.get("format") == COUNTS_FORMAT:
        path = "FILE" if name == "<stdin>" else name
        raise CorpusError(f"{name} is a word-counts file (written by 'korean-bpe count'), not a corpus: train from it "
                          f"with 'korean-bpe train --counts {path}' "
                          "(Tokenizer.train_from_counts(WordCounts.load(path))), and give the texts it was counted "
                          "from where a corpus is needed")


def table_documents(text: str, *, column: int, n_fields: int, name: str, f: BinaryIO, offset: int) -> list[str]:
    """The ``column`` field of each row of the table line ``text`` (decoded, line ending
    stripped; it starts at byte ``offset`` of the open file ``f``), blank ones included.  A lone
    ``\\r`` ends a row too, as pandas reads it.  A row with more fields than the header's
    ``n_fields`` (one empty field after a trailing tab is fine) raises :class:`CorpusError` with
    its line and byte offset, counted in ``f`` (only then).

    >>> import io
    >>> table_documents("3\\t영화\\t1", column=1, n_fields=3, name="t.tsv", f=io.BytesIO(), offset=0)
    ['영화']
    >>> table_documents("3\\t탭\\t안에\\t1", column=1, n_fields=3, name="t.tsv", f=io.BytesIO(b"h\\n"), offset=2)
    Traceback (most recent call last):
    ...
    korean_bpe.corpus.CorpusError: t.tsv: malformed table: line 2, byte offset 2: a row of 4 tab-separated fields, more than the 3 of the header (a tab inside a document?); replace the tabs inside documents with spaces
    """
    if "\r" not in text:  # one row, the usual case
        fields = text.split("\t")
        if len(fields) <= n_fields or (len(fields) == n_fields + 1 and not fields[n_fields]):
            return [fields[column] if column < len(fields) else ""]
    rows = text.split("\r")
    out: list[str] = []
    for k, row in enumerate(rows):
        fields = row.split("\t")
        if len(fields) > n_fields and (len(fields) > n_fields + 1 or fields[n_fields]):
            at = offset + (len("\r".join(rows[:k]).encode("utf-8")) + 1 if k else 0)
            raise CorpusError(
                f"{name}: malformed table: line {line_number(f, offset)}, byte offset {at}: a row of {len(fields)} "
                f"tab-separated fields, more than the {n_fields} of the header (a tab inside a document?); replace "
                "the tabs inside documents with spaces"
            )
        out.append(fields[column] if column < len(fields) else "")
    return out


def line_number(f: BinaryIO, offset: int) -> int:
    """The number (from 1) of the line of the open binary file ``f`` that starts at byte
    ``offset``, counted from the start: only for error messages.

    >>> import io
    >>> line_number(io.BytesIO(b"a\\nb\\nc\\n"), 4)
    3
    """
    f.seek(0)
    n, left = 1, offset
    while left > 0:
        block = f.read(min(_READ, left))
        if not block:
            break
        n += block.count(b"\n")
        left -= len(block)
    return n
