"""Counting: texts -> pre-tokenized words -> word counts -> unit symbols.

BPE never needs the running text, only the distinct words and how often each occurs.  This module
is the one place that computes them, for :meth:`korean_bpe.Tokenizer.train`, ``korean-bpe count``
and the benchmarks:

1. :func:`count_words`: pre-tokenize the texts in batches and count the words (compiled for the
   ``whitespace`` pre-tokenizer and the default ``raw`` one when the core was built: the same
   counts as the plain-Python loop, several times faster);
2. :class:`WordCounts`: those counts as a value tied to the pre-tokenizer that made them; two of
   them add up (counts of two shards == counts of the whole), and they are written and read as a
   versioned TSV (:meth:`WordCounts.save`, :meth:`WordCounts.load`);
3. :func:`split_words`: each word cut into the unit's symbols with the word marker, the input of
   :func:`korean_bpe.trainer.train_bpe` (compiled for ``syllable`` and ``jamo``).

>>> counts = WordCounts.from_texts(["영화 정말 재밌다", "정말 재밌어요"])
>>> counts.items()                     # count descending, then word by code point
[('정말', 2), ('영화', 1), ('재밌다', 1), ('재밌어요', 1)]
>>> split_words({"값이": 2}, get_unit("jamo"), marker="▁")
{('▁', 'ᄀ', 'ᅡ', 'ᆹ', 'ᄋ', 'ᅵ'): 2}

The file format (``counts.tsv``), one header line then one word a line, as SentencePiece's
``input_format=tsv``::

    #{"format": "korean_bpe word counts", "version": 1, "pre_tokenizer": {"type": "whitespace"}, "words": 2, "total": 3}
    정말<TAB>2
    영화<TAB>1

Words are sorted by count (largest first), then by code point; counts are decimal integers
(any size).  A word holding a tab, a line feed, a carriage return or a backslash is written
escaped (``\\t``, ``\\n``, ``\\r``, ``\\\\``) and read back unescaped: the ``raw`` pre-tokenizer
makes words such as ``'▁공백\\t탭'`` and ``'\\n'``, which a plain TSV cannot hold.  A lone surrogate
(U+D800..U+DFFF: Python text decoded with ``surrogateescape``, or broken JSON), which UTF-8
cannot hold, is written ``\\u`` and four lowercase hex digits (``'영화\\udc80'`` is the line
``영화\\udc80<TAB>1``) and read back as that code point; only surrogates are written so, so each
word has one spelling.  (A reader older than this escape refuses it: "unknown escape", never a
misread word.  SentencePiece does not unescape: a word with a backslash reads differently there.)
A bad line raises :class:`CountsFileError` naming the file and the line.
"""

from __future__ import annotations

import io
import json
import re
from collections import Counter
from collections.abc import Callable, Iterable, Iterator, Mapping
from itertools import chain, islice
from pathlib import Path
from types import MappingProxyType
from typing import Any, Literal, overload

from ._batches import batches
from ._threads import resolve_threads
from .corpus import COUNTS_FORMAT
from .encoding.encoder import only_str
from .files import InputFileError, open_input_file
from .pre_tokenizers.base import PreTokenizer, get_pre_tokenizer
from .markers import MORPHEME_CUT, SPACE_MARK, Marker, get_marker
from .progress import NO_PROGRESS, Progress, start_progress
from .tokens import plain_text
from .units import Unit, get_unit

__all__ = ["WordCounts", "CountsFileError", "count_words", "split_words", "cut_symbols", "holds_any", "FORMAT", "FORMAT_VERSION",
           "MAX_FILE_BYTES"]

FORMAT = COUNTS_FORMAT
FORMAT_VERSION = 1
#: the largest counts file :meth:`WordCounts.load` reads (some 300 million words); a link to
#: ``/dev/zero``, a FIFO or a directory is refused before any read
MAX_FILE_BYTES = 8 * 2**30

_CHUNK = 50_000  # texts pre-tokenized and counted per batch (bounds the memory held for a stream)
_SAMPLE = 20  # non-blank texts kept to explain an empty count


class CountsFileError(ValueError):
    """A word-counts file that cannot be read; the message names the file and the line."""


# --- pure functions ------------------------------------------------------------------------------


@overload
def count_words(
    texts: Iterable[str], pre_tokenizer: PreTokenizer, *, into: dict[str, int] | None = None,
    show_progress: bool | Progress | None = None, sample: list[str] | None = None, compact: Literal[False] = False,
    num_threads: int | None = None,
) -> dict[str, int]: ...


@overload
def count_words(
    texts: Iterable[str], pre_tokenizer: PreTokenizer, *, into: dict[str, int] | None = None,
    show_progress: bool | Progress | None = None, sample: list[str] | None = None, compact: bool,
    num_threads: int | None = None,
) -> Mapping[str, int]: ...


def count_words(
    texts: Iterable[str],
    pre_tokenizer: PreTokenizer,
    *,
    into: dict[str, int] | None = None,
    show_progress: bool | Progress | None = None,
    sample: list[str] | None = None,
    compact: bool = False,
    num_threads: int | None = None,
) -> Mapping[str, int]:
    """``{word: count}`` over the pieces ``pre_tokenizer`` cuts ``texts`` into, in first-seen
    order, added into ``into`` when given (updated and returned): a dict, except with ``compact``.

    The texts are read in batches of 50,000 (a generator over a huge file is fine: memory grows
    with the distinct words, not with the corpus).  ``whitespace`` and the default ``raw``
    (``split_by_whitespace`` and ``add_dummy_prefix``) are counted by the compiled core when it
    was built; every other pre-tokenizer goes through its ``batch``.  Same counts either way.
    ``sample`` (a list) receives the first 20 texts that are not blank, for error messages.
    ``compact=True`` (without ``into``): when the counting is compiled, the counts stay in the
    compiled counter (a read-only :class:`korean_bpe.words.CountedWords`, the same items),
    which :func:`split_words` cuts into symbol ids without a Python string per word; so the result
    is annotated ``Mapping`` then, and ``dict`` without ``compact``.

    ``num_threads``: the compiled counting reads that many slices of each batch at once, without
    the GIL, each slice into a table of its own, the tables then added in slice order: the same
    counts in the same order whatever the number (``None``: every core, or ``KOREAN_BPE_NUM_THREADS``;
    ``1``: one thread).  Other pre-tokenizers run on their own executors (an analyzer's process
    pool) and ignore it.

    >>> count_words(["ㅋㅋ 진짜 웃기다", "ㅋㅋ"], get_pre_tokenizer("raw"))
    {'▁ㅋㅋ': 2, '▁진짜': 1, '▁웃기다': 1}
    """
    from .words import CountedWords, word_counter

    if isinstance(texts, (str, bytes)):
        raise TypeError("texts must be an iterable of strings, not a single string; pass [text]")
    if not isinstance(texts, Iterable):
        raise TypeError(f"texts must be an iterable of strings, got {type(texts).__name__}")
    threads = resolve_threads(num_threads)
    out: dict[str, int] = {} if into is None else into
    mode = _compiled_mode(pre_tokenizer)
    progress = start_progress(show_progress, total=None, desc="pre-tokenizing", unit="text")
    counter = word_counter(sentencepiece=mode == "sentencepiece") if compact and into is None and mode else None

    def add(chunk: list[str]) -> None:
        if counter is not None:
            counter.update(chunk, threads)
        else:
            _count_cut(chunk, out, sentencepiece=mode == "sentencepiece", num_threads=threads)

    if mode is not None and progress is NO_PROGRESS and type(texts) is list and only_str(texts):  # one compiled pass
        add(texts)
        if sample is not None and len(sample) < _SAMPLE:
            sample += islice((t for t in texts if t and not t.isspace()), _SAMPLE - len(sample))
        return out if counter is None else CountedWords(counter)
    try:
        start = 0
        for chunk in batches(texts, _CHUNK):
            if not all(type(t) is str for t in chunk):
                pos, bad = next(((k, t) for k, t in enumerate(chunk) if not isinstance(t, str)), (None, None))
                if pos is not None:
                    raise TypeError(f"texts must hold strings; text {start + pos} is {type(bad).__name__} {bad!r}")
                chunk = list(map(plain_text, chunk))  # str subclasses: their text
            if sample is not None and len(sample) < _SAMPLE:
                sample += islice((t for t in chunk if t and not t.isspace()), _SAMPLE - len(sample))
            if mode is not None:
                add(chunk)
            else:
                got = Counter(chain.from_iterable(pre_tokenizer.batch(chunk, show_progress=False)))
                get = out.get
                for w, c in got.items():
                    out[w] = get(w, 0) + c
            progress.update(len(chunk))
            start += len(chunk)
    finally:
        progress.close()
    return out if counter is None else CountedWords(counter)


def holds_any(counts: Mapping[str, int], chars: str) -> bool:
    """Whether some word of ``counts`` holds one of ``chars`` (read from the compiled counter when
    ``counts`` is compact, see :func:`count_words`).

    >>> holds_any({"영화": 1, "a\\nb": 2}, " \\n"), holds_any({"영화": 1}, " \\n")
    (True, False)
    """
    from .words import CountedWords

    if isinstance(counts, CountedWords):
        return counts.holds(chars)
    return re.search(f"[{re.escape(chars)}]", "\x00".join(counts)) is not None


def split_words(
    word_counts: Mapping[str, int], unit: Unit, *, marker: str | Marker | None, num_threads: int | None = None,
) -> Mapping[tuple[str, ...], int]:
    """``{symbols: count}``: each word cut by ``unit`` and marked with ``marker``
    (:meth:`korean_bpe.markers.Marker.apply`); words that give the same symbols add up (NFD and NFC
    spellings under ``jamo``); a word that gives no symbol is left out.  Compiled for the built-in
    ``syllable`` and ``jamo`` units: then a :class:`korean_bpe.words.SymbolCounts`, symbol
    ids in flat arrays that :func:`korean_bpe.trainer.train_bpe` takes as they are (read as a
    mapping, the same dict).  ``num_threads``: the words of :func:`count_words`'s compact counts
    are cut on that many threads (``None``: every core, or ``KOREAN_BPE_NUM_THREADS``), the same table.

    >>> split_words({"값이": 2, "값": 1}, get_unit("syllable"), marker="</w>")
    {('값', '이</w>'): 2, ('값</w>',): 1}

    A word holding :data:`~korean_bpe.markers.MORPHEME_CUT` (U+FFFF) is marked whole, then cut
    there into pieces that train as words of their own (:func:`cut_symbols`), so that no merge
    crosses a morpheme boundary (:mod:`korean_bpe.pre_tokenizers.boundaries`):

    >>> split_words({"값\uffff이": 2, "값": 1}, get_unit("syllable"), marker="▁")
    {('▁', '값'): 3, ('이',): 2}
    """
    from .words import core, split_ids

    mark = get_marker(marker)
    threads = resolve_threads(num_threads)
    if holds_any(word_counts, MORPHEME_CUT):
        return _split_cut_words(word_counts, unit, mark)
    compiled = {"chars": "syllable", "jamo": "jamo"}.get(unit.compiled_symbols)  # type: ignore[arg-type]
    if compiled is not None and mark.compiled:
        ids = split_ids(word_counts, unit=compiled, marker=mark.text, num_threads=threads)  # train_bpe's fast path
        if ids is not None:
            return ids
        counting = core()
        if counting is not None:  # the compiled split into a dict (counts beyond int64: Python ints)
            table: dict[tuple[str, ...], int] = counting.split_counts(word_counts, compiled, mark.text)
            table.pop((), None)
            return table
    split, apply = unit.split, mark.apply
    out = {}
    get = out.get
    for word, count in word_counts.items():
        key = apply(split(word))
        if key:
            out[key] = get(key, 0) + count
    return out


def cut_symbols(word: str, unit: Unit, mark: Marker) -> list[tuple[str, ...]]:
    """The marked symbols of ``word`` cut at each :data:`~korean_bpe.markers.MORPHEME_CUT`: the
    word is marked whole (``▁`` opens the first piece, ``</w>`` ends the last, ``##`` marks every
    symbol after the word's first) and each piece's symbols follow; empty pieces are left out.

    >>> cut_symbols("재밌\uffff다", get_unit("syllable"), get_marker("##"))
    [('재', '##밌'), ('##다',)]
    >>> cut_symbols("값\uffff이", get_unit("jamo"), get_marker("▁"))
    [('▁', 'ᄀ', 'ᅡ', 'ᆹ'), ('ᄋ', 'ᅵ')]
    """
    sizes = [len(unit.split(p)) for p in word.split(MORPHEME_CUT)]
    symbols = mark.apply(unit.split(word.replace(MORPHEME_CUT, "")))
    at = len(symbols) - sum(sizes)  # the symbols a marker puts before the first piece (``▁``: one)
    out: list[tuple[str, ...]] = []
    for k, size in enumerate(sizes):
        end = at + size
        piece = symbols[0 if k == 0 else at:end]
        if piece:
            out.append(piece)
        at = end
    return out


def _split_cut_words(word_counts: Mapping[str, int], unit: Unit, mark: Marker) -> dict[tuple[str, ...], int]:
    """:func:`split_words` of words that hold :data:`~korean_bpe.markers.MORPHEME_CUT`: each piece
    a word of its own (those of other words counted as usual).  With a marker that marks only a
    word's first or last symbol (``None``, ``▁``, ``</w>``) the pieces are counted as strings, the
    marked ones apart, and each group goes through :func:`split_words` (compiled for ``syllable``
    and ``jamo``): the same counts as :func:`cut_symbols` word by word, which the other markers use."""
    out: dict[tuple[str, ...], int] = {}
    if mark.text in (None, SPACE_MARK, "</w>"):
        marked: dict[str, int] = {}  # the pieces that carry the marker: a word's first (▁) or last (</w>)
        bare: dict[str, int] = {}
        end = -1 if mark.text == "</w>" else 0
        alone = (SPACE_MARK,)  # a ▁ before an empty first piece stays a piece of its own, as cut_symbols cuts
        for word, count in word_counts.items():
            pieces = word.split(MORPHEME_CUT)
            lone = mark.text == SPACE_MARK and not pieces[0]
            if lone and any(pieces):
                out[alone] = out.get(alone, 0) + count
            pieces = [p for p in pieces if p]
            if not pieces:
                continue
            if mark.text is not None and not lone:
                edge = pieces.pop(end)
                marked[edge] = marked.get(edge, 0) + count
            for piece in pieces:
                bare[piece] = bare.get(piece, 0) + count
        for group, marker in ((marked, mark), (bare, get_marker(None))):
            for key, count in split_words(group, unit, marker=marker).items():
                out[key] = out.get(key, 0) + count
        return out
    split, apply = unit.split, mark.apply
    get = out.get
    for word, count in word_counts.items():
        for key in cut_symbols(word, unit, mark) if MORPHEME_CUT in word else (apply(split(word)),):
            if key:
                out[key] = get(key, 0) + count
    return out


def _count_cut(texts: list[str], into: dict[str, int], *, sentencepiece: bool, num_threads: int) -> None:
    """Add the words of ``texts`` into ``into``: ``str.split()``'s, or with ``sentencepiece`` the
    pieces of :func:`korean_bpe.pre_tokenizers.simple.sentencepiece_pieces` (the cuts the compiled
    counting knows, :func:`_compiled_mode`); counted by the compiled core on ``num_threads``
    threads when it was built, else by this loop (the same counts, Python ints however large).

    >>> counts = {"▁칸": 2**40}
    >>> _count_cut([" 두  칸", "칸"], counts, sentencepiece=True, num_threads=1)
    >>> counts
    {'▁칸': 1099511627778, '▁': 2, '▁두': 1}
    """
    from .words import core

    counting = core()
    if counting is not None:
        mode = counting.MODE_SENTENCEPIECE if sentencepiece else counting.MODE_WHITESPACE
        counting.count_texts(texts, into, mode, num_threads)
        return
    if sentencepiece:
        from .pre_tokenizers.simple import sentencepiece_pieces

        cut: Callable[[str], list[str]] = sentencepiece_pieces
    else:
        cut = str.split
    counts: Counter[str] = Counter()
    for t in texts:
        counts.update(cut(t))
    get = into.get
    for w, c in counts.items():
        into[w] = get(w, 0) + c


def _compiled_mode(pt: PreTokenizer) -> str | None:
    """Which compiled counting cuts exactly as ``pt`` does, if any: its ``compiled_cut``."""
    return pt.compiled_cut


# --- the value -----------------------------------------------------------------------------------


class WordCounts:
    """Distinct words with their counts, and the config of the pre-tokenizer that cut them.

    A mergeable value: ``a + b`` (or ``a += b``, ``a.update(texts)``) adds counts, so counting
    shards apart and adding gives the counts of the whole.  Two counts made by different
    pre-tokenizers do not add (``ValueError``).  Iteration (``for word in counts``,
    :meth:`items`) is sorted: count descending, then word by code point.

    >>> a = WordCounts.from_texts(["재밌다 진짜"])
    >>> b = WordCounts.from_texts(["진짜 최고"])
    >>> (a + b).items()
    [('진짜', 2), ('재밌다', 1), ('최고', 1)]
    >>> a + WordCounts.from_texts(["진짜"], pre_tokenizer="raw")
    Traceback (most recent call last):
    ...
    ValueError: cannot add word counts of different pre-tokenizers: {'type': 'whitespace'} and {'type': 'raw', 'split_by_whitespace': True, 'add_dummy_prefix': True}; count both with the same pre-tokenizer
    """

    __slots__ = ("_counts", "_config", "_pt")

    def __init__(
        self,
        counts: Mapping[str, int] = {},  # noqa: B006 - never modified
        *,
        pre_tokenizer: str | Mapping[str, Any] | PreTokenizer = "whitespace",
    ) -> None:
        pt = get_pre_tokenizer(pre_tokenizer)
        self._pt: PreTokenizer | None = pt
        self._config: dict[str, Any] = _config_of(pt)
        if not isinstance(counts, Mapping):
            raise TypeError(f"counts must be a mapping word -> count, got {type(counts).__name__}")
        for w, c in counts.items():
            _check_entry(w, c)
        self._counts: dict[str, int] = dict(counts)

    # --- building

    @classmethod
    def from_texts(
        cls,
        texts: Iterable[str],
        *,
        pre_tokenizer: str | Mapping[str, Any] | PreTokenizer = "whitespace",
        show_progress: bool | Progress | None = None,
        num_threads: int | None = None,
    ) -> WordCounts:
        """Pre-tokenize and count ``texts`` (see :func:`count_words`, ``num_threads`` too)."""
        out = cls(pre_tokenizer=pre_tokenizer)
        out.update(texts, show_progress=show_progress, num_threads=num_threads)
        return out

    def update(self, texts: Iterable[str], *, show_progress: bool | Progress | None = None,
               num_threads: int | None = None) -> None:
        """Add the words of ``texts``, cut by this value's pre-tokenizer (on ``num_threads``
        threads where :func:`count_words` can)."""
        count_words(texts, self.pre_tokenizer, into=self._counts, show_progress=show_progress, num_threads=num_threads)

    def merge(self, other: WordCounts) -> None:
        """Add ``other``'s counts into this one (same pre-tokenizer)."""
        if not isinstance(other, WordCounts):
            raise TypeError(f"can only add WordCounts, got {type(other).__name__}")
        if other._config != self._config:
            raise ValueError(f"cannot add word counts of different pre-tokenizers: {self._config} and "
                             f"{other._config}; count both with the same pre-tokenizer")
        d = self._counts
        get = d.get
        for w, c in other._counts.items():
            d[w] = get(w, 0) + c

    def __add__(self, other: WordCounts) -> WordCounts:
        if not isinstance(other, WordCounts):
            return NotImplemented
        out = self.copy()
        out.merge(other)
        return out

    def __iadd__(self, other: WordCounts) -> WordCounts:
        if not isinstance(other, WordCounts):
            return NotImplemented
        self.merge(other)
        return self

    def copy(self) -> WordCounts:
        out = WordCounts.__new__(WordCounts)
        out._counts, out._config, out._pt = dict(self._counts), self._config, self._pt
        return out

    # --- reading

    @property
    def pre_tokenizer_config(self) -> dict[str, Any]:
        """The config of the pre-tokenizer that cut the words (``{"type": "whitespace"}``)."""
        return dict(self._config)

    @property
    def pre_tokenizer(self) -> PreTokenizer:
        """The pre-tokenizer that cut the words (rebuilt from its config when read from a file)."""
        if self._pt is None:
            self._pt = get_pre_tokenizer(self._config)
        return self._pt

    @property
    def total(self) -> int:
        """The number of word occurrences counted."""
        return sum(self._counts.values())

    def items(self) -> list[tuple[str, int]]:
        """``(word, count)`` pairs, count descending, then word by code point."""
        return sorted(self._counts.items(), key=_sort_key)

    def as_mapping(self) -> Mapping[str, int]:
        """``{word: count}``, a read-only view of the counts: unsorted, nothing copied (what
        training reads)."""
        return MappingProxyType(self._counts)

    def __iter__(self) -> Iterator[str]:
        return (w for w, _ in self.items())

    def __len__(self) -> int:
        return len(self._counts)

    def __getitem__(self, word: str) -> int:
        return self._counts[word]

    def __contains__(self, word: object) -> bool:
        return word in self._counts

    def __eq__(self, other: object) -> bool:
        if not isinstance(other, WordCounts):
            return NotImplemented
        return self._config == other._config and self._counts == other._counts

    __hash__ = None  # type: ignore[assignment]  # mutable

    def __repr__(self) -> str:
        return f"WordCounts({len(self)} words, {self.total} occurrences, pre_tokenizer={self._config})"

    def symbol_counts(
        self, *, unit: str | Mapping[str, Any] | Unit = "syllable", marker: str | None
    ) -> Mapping[tuple[str, ...], int]:
        """``{symbols: count}`` for :func:`korean_bpe.trainer.train_bpe` (see :func:`split_words`):
        a dict, or a read-only :class:`korean_bpe.words.SymbolCounts` when compiled."""
        return split_words(self._counts, get_unit(unit), marker=marker)

    # --- files

    def save(self, path: str | Path) -> Path:
        """Write the counts to ``path`` as the versioned TSV of the module docstring (:meth:`to_text`),
        atomically (a reader never sees half a file).  Returns ``path``."""
        from .files import atomic_write_text

        return Path(atomic_write_text(path, self.to_text()))

    def to_text(self) -> str:
        """The text :meth:`save` writes (``korean-bpe count -o -`` prints it).

        >>> WordCounts.from_texts(["영화 영화 최고"]).to_text().splitlines()[1:]
        ['영화\\t2', '최고\\t1']
        """
        items = self.items()
        header = {"format": FORMAT, "version": FORMAT_VERSION, "pre_tokenizer": self._config,
                  "words": len(items), "total": sum(c for _, c in items)}
        lines = ["#" + json.dumps(header, ensure_ascii=False)]
        lines += [f"{_escape(w)}\t{c}" for w, c in items]
        return "\n".join(lines) + "\n"

    @classmethod
    def load(cls, path: str | Path) -> WordCounts:
        """Read a file written by :meth:`save`; a bad line raises :class:`CountsFileError` naming
        the file, the line and what was expected."""
        p = Path(path)
        counts: dict[str, int] = {}
        first_line: dict[str, int] = {}
        try:
            raw = open_input_file(p, what="a counts file", max_bytes=MAX_FILE_BYTES)
        except InputFileError as exc:
            raise CountsFileError(str(exc)) from None
        with io.TextIOWrapper(raw, encoding="utf-8", newline="\n") as f:
            try:
                header_line = f.readline()
                config, header, pt = _parse_header(header_line, p)
                n = 1
                for n, line in enumerate(f, start=2):  # noqa: B007 - n is read after the loop
                    if not line.endswith("\n"):
                        raise CountsFileError(f"{p}, line {n}: the file ends in the middle of a line "
                                              "(truncated?); write it again with 'korean-bpe count'")
                    word, count = _parse_line(line[:-1], p, n)
                    if word in counts:
                        raise CountsFileError(f"{p}, line {n}: the word {word!r} is already on line "
                                              f"{first_line[word]}; each word must appear once")
                    counts[word] = count
                    first_line[word] = n
            except UnicodeDecodeError:
                from .corpus import first_non_utf8  # the decoder's position is in its buffer, not the file

                raise CountsFileError(f"{p}: not UTF-8 text: {first_non_utf8(p)}; a counts file is written by "
                                      "'korean-bpe count' or WordCounts.save") from None
        if header.get("words") is not None and header["words"] != len(counts):
            raise CountsFileError(f"{p}: the header announces {header['words']} words but the file holds "
                                  f"{len(counts)} (truncated or edited?); write it again with 'korean-bpe count'")
        if header.get("total") is not None and header["total"] != sum(counts.values()):
            raise CountsFileError(f"{p}: the header announces a total of {header['total']} but the counts add up "
                                  f"to {sum(counts.values())} (edited?); write it again with 'korean-bpe count'")
        out = cls.__new__(cls)
        out._counts, out._config, out._pt = counts, config, pt
        return out


def _config_of(pt: PreTokenizer) -> dict[str, Any]:
    cfg = pt.to_config()
    try:
        json.dumps(cfg)
    except (TypeError, ValueError):
        raise ValueError(f"the pre-tokenizer {pt!r} has a config that is not JSON ({cfg!r}); word counts record "
                         "their pre-tokenizer, so use a registered one") from None
    return dict(cfg)


def _sort_key(item: tuple[str, int]) -> tuple[int, str]:
    return -item[1], item[0]


def _check_entry(word: Any, count: Any) -> None:
    if not isinstance(word, str) or not word:
        raise ValueError(f"words must be non-empty strings, got {word!r}")
    if not isinstance(count, int) or isinstance(count, bool) or count <= 0:
        raise ValueError(f"the count of {word!r} must be an int >= 1, got {count!r}; leave out words that never occur")


_ESCAPES = {"\\": "\\\\", "\t": "\\t", "\n": "\\n", "\r": "\\r"}
_UNESCAPES = {v: k for k, v in _ESCAPES.items()}
_ESCAPE_RE = re.compile("[\\\\\t\n\r\ud800-\udfff]")  # and lone surrogates, as \udXXX
_UNESCAPE_RE = re.compile(r"\\(?:ud[89a-f][0-9a-f]{2}|.?)", re.DOTALL)
_COUNT_RE = re.compile(r"[1-9][0-9]*")


def _escape(word: str) -> str:
    """``'a\\tb'`` -> ``'a\\\\tb'``: tab, line feed, carriage return and backslash escaped, a lone
    surrogate written ``\\udXXX`` (``'\\udc80'`` -> ``'\\\\udc80'``)."""
    if not _ESCAPE_RE.search(word):
        return word
    return _ESCAPE_RE.sub(lambda m: _ESCAPES.get(m.group()) or f"\\u{ord(m.group()):04x}", word)


def _unescape(text: str, path: Path, n: int) -> str:
    if "\\" not in text:
        return text

    def one(m: re.Match[str]) -> str:
        got = _UNESCAPES.get(m.group())
        if got is None:
            if len(m.group()) == 6:  # \udXXX: a lone surrogate
                return chr(int(m.group()[2:], 16))
            raise CountsFileError(f"{path}, line {n}: unknown escape {m.group()!r} in the word {text!r}; "
                                  "only \\\\, \\t, \\n, \\r and \\ud800..\\udfff (a lone surrogate, lowercase) "
                                  "are escapes (write a backslash as \\\\)")
        return got

    return _UNESCAPE_RE.sub(one, text)


def _parse_line(line: str, path: Path, n: int) -> tuple[str, int]:
    word, tab, count = line.rpartition("\t")
    if not tab:
        raise CountsFileError(f"{path}, line {n}: expected 'word<TAB>count', got {line[:60]!r} (no tab)")
    if "\t" in word or "\r" in word:
        raise CountsFileError(f"{path}, line {n}: expected 'word<TAB>count' with one tab, got {line[:60]!r} "
                              "(a tab or carriage return inside a word is written \\t or \\r)")
    if not word:
        raise CountsFileError(f"{path}, line {n}: empty word in {line[:60]!r}; expected 'word<TAB>count'")
    if not _COUNT_RE.fullmatch(count):
        raise CountsFileError(f"{path}, line {n}: the count {count[:30]!r} of {word[:30]!r} is not an integer >= 1 "
                              "(decimal digits, no sign, no leading zero)")
    return _unescape(word, path, n), int(count)


def _parse_header(line: str, path: Path) -> tuple[dict[str, Any], dict[str, Any], PreTokenizer]:
    hint = "a counts file is written by 'korean-bpe count' or WordCounts.save"
    if not line:
        raise CountsFileError(f"{path}, line 1: the file is empty; {hint}")
    if not line.startswith("#"):
        raise CountsFileError(f"{path}, line 1: expected the header '#{{\"format\": \"{FORMAT}\", ...}}', got "
                              f"{line[:60]!r}; {hint}")
    try:
        header = json.loads(line[1:])
    except json.JSONDecodeError as exc:
        raise CountsFileError(f"{path}, line 1: the header is not JSON ({exc.msg}); {hint}") from None
    if not isinstance(header, dict) or header.get("format") != FORMAT:
        raise CountsFileError(f"{path}, line 1: not a word-counts header (format {FORMAT!r} expected); {hint}")
    version = header.get("version")
    if version != FORMAT_VERSION and (not isinstance(version, int) or isinstance(version, bool)):
        raise CountsFileError(f"{path}, line 1: the header's \"version\" is {json.dumps(version)}, not a number: this "
                              f"korean_bpe reads \"version\": {FORMAT_VERSION}; count again with 'korean-bpe count'")
    if version != FORMAT_VERSION:
        raise CountsFileError(f"{path}, line 1: format version {version!r}, but this korean_bpe reads version "
                              f"{FORMAT_VERSION}; count again with this version ('korean-bpe count')")
    config = header.get("pre_tokenizer")
    if not isinstance(config, dict) or not isinstance(config.get("type"), str):
        raise CountsFileError(f"{path}, line 1: the header names no pre-tokenizer ({{\"type\": ...}} expected under "
                              f"'pre_tokenizer'); {hint}")
    for key in ("words", "total"):
        value = header.get(key)
        if value is not None and (not isinstance(value, int) or isinstance(value, bool) or value < 0):
            raise CountsFileError(f"{path}, line 1: the header's {key!r} must be an int >= 0, got {value!r}")
    try:  # rebuilt now, as a model's is, so that a bad one is named with its file (analyzers load lazily)
        pre_tokenizer = get_pre_tokenizer(config)
    except (ValueError, TypeError) as exc:
        raise CountsFileError(f"{path}, line 1: the header's \"pre_tokenizer\" cannot be rebuilt "
                              f"({' '.join(str(exc).split())}); count again with 'korean-bpe count', or correct the "
                              "header") from None
    return config, header, pre_tokenizer

