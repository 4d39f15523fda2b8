"""A trained strategy at one vocabulary size, as :func:`korean_bpe.compare.compare` measures it.

Every row of the comparison table is one :class:`Segmenter`: our BPE (:class:`BPESegmenter`, a
:class:`~korean_bpe.Tokenizer`), a kortok-style baseline without BPE (:class:`BaselineSegmenter`:
jamo, syllable, morpheme, word) or a peer library (:mod:`korean_bpe.compare.peers`).  The metrics
only use this protocol, so a peer is measured exactly like our own rows.

>>> seg = BaselineSegmenter.train(["영화 정말 재밌다", "영화 최고"], unit="syllable", vocab_size=6)
>>> seg.vocab_tokens                     # <unk>, then the most frequent symbols (ties: code point)
('<unk>', '▁', '영', '화', '고', '다')
>>> seg.pieces("영화 좋다")               # (token, start, end) per token, in the text's characters
[('영', 0, 1), ('화', 1, 2), ('▁', 2, 3), ('<unk>', 3, 4), ('다', 4, 5)]
>>> seg.decode(seg.encode_batch(["영화 좋다"])[0])
'영화 <unk>다'

Spans (``pieces``): a token covering part of a character (a jamo of a syllable, a byte of its
UTF-8) covers that whole character; a token covering nothing of the text (the ``▁`` word marker
of the ``whitespace`` pre-tokenizer) has ``start == end`` at its position.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterable, Mapping, Sequence
from typing import Any, Protocol, runtime_checkable

from ..encoding.offsets import word_bases
from ..jamo import compose, decompose
from ..pre_tokenizers.base import get_pre_tokenizer
from ..units import SPACE_MARK, bytes_to_unicode

__all__ = ["Segmenter", "WordSegmenter", "BPESegmenter", "BaselineSegmenter", "CharBaseline", "JamoBaseline",
           "MorphemeBaseline", "WordBaseline", "BASELINE_CLASSES", "BASELINE_UNITS", "align_words"]

#: the ``unit`` of each kortok-style baseline
BASELINE_UNITS = ("jamo", "syllable", "morpheme", "word")
_UNK = "<unk>"


@runtime_checkable
class Segmenter(Protocol):
    """One row's tokenizer: exactly what the measurements of :func:`~korean_bpe.compare.compare`
    read, nothing more (a peer library is measured through the same methods as our rows)."""

    strategy: str
    kind: str
    pre_tokenizer: str
    unit: str
    lossless: bool
    vocab_size: int  # actual size
    unk_ids: frozenset[int]

    def encode_batch(self, texts: Sequence[str]) -> list[list[int]]:
        """The ids of each text (a text spelling a special token is text)."""

    def encode_with_spans(self, texts: Sequence[str]) -> tuple[list[list[int]], list[list[tuple[int, int]]] | None]:
        """``(encode_batch(texts), spans)``: each token's character span where the library gives
        them in the same pass (HF), else None (the spans are then those of :meth:`pieces`)."""

    def decode(self, ids: Sequence[int]) -> str: ...

    def pieces(self, text: str) -> list[tuple[str, int, int]]:
        """``(readable token, start, end)`` per token, in ``text``'s characters (see the module)."""

    def vocab_surfaces(self) -> list[bytes]:
        """The UTF-8 surface of each ordinary token (markers as spaces; specials left out)."""

    def merge_triples(self) -> list[tuple[int, int, int]] | None:
        """Our BPE's merges as ``(left id, right id, merged id)``, in rank order; None for a row
        without BPE merges of ours (the residue rate is then NaN)."""

    def clear_cache(self) -> None:
        """Forget what encoding remembers (timed runs start cold)."""


@runtime_checkable
class WordSegmenter(Segmenter, Protocol):
    """A :class:`Segmenter` over a pre-tokenizer's words (our BPE, the morpheme and word baselines):
    a pre-tokenization made once serves every row built on it."""

    def encode_pretokenized(self, batch: list[list[str]]) -> list[list[int]]:
        """The ids of texts already cut into words by the row's pre-tokenizer: ``encode_batch``'s."""


# -- aligning pre-tokenizer words with the text --------------------------------------------------


#: where each word lies in the text: the offsets module's definition (compare's own copy is gone)
align_words = word_bases
#: the pre-tokenizer of the word baseline's 어절
_WORDS = get_pre_tokenizer("whitespace")
#: GPT-2 byte character -> its byte (our byte unit's symbols)
_GPT2_BYTES = {c: b for b, c in bytes_to_unicode().items()}


# -- our BPE --------------------------------------------------------------------------------------


class BPESegmenter:
    """A :class:`~korean_bpe.Tokenizer` as a :class:`Segmenter`.

    ``words``: an optional ``text -> words`` table (the pre-tokenization :func:`compare` already
    computed), used by :meth:`pieces` and :meth:`encode_dropout` instead of running the analyzer
    again; :meth:`encode_batch` always runs the tokenizer's own public path.
    """

    kind = "bpe"

    def __init__(self, tokenizer: Any, *, strategy: str, pre_tokenizer: str,
                 words: Mapping[str, list[str]] | None = None) -> None:
        self.tokenizer = tokenizer
        self.strategy = strategy
        self.pre_tokenizer = pre_tokenizer
        self.unit = tokenizer.unit.name
        self.lossless = tokenizer.pre_tokenizer.lossless
        self.vocab_size = tokenizer.vocab_size
        unk = tokenizer.unk_token
        self.unk_ids = frozenset({tokenizer.token_to_id(unk)} if unk is not None and tokenizer.token_to_id(unk) is not None else ())
        #: the ids of the special tokens (each spells one symbol: :meth:`symbol_lengths`)
        self.special_ids = frozenset(tokenizer.token_to_id(t) for t in tokenizer.special_tokens)
        #: the tokenizer's word marker (``"▁"``, ``"</w>"``, ``"##"`` or None)
        self.marker = tokenizer.marker
        self._words = words or {}
        self._readable_cache: dict[int, str] = {}
        self._symbol_lengths: Any = None

    def __repr__(self) -> str:
        return f"BPESegmenter({self.strategy!r}, vocab_size={self.vocab_size})"

    def encode_batch(self, texts: Sequence[str]) -> list[list[int]]:
        return self.tokenizer.encode_batch(texts, disallowed_special=())  # a review spelling "<unk>" is text

    def encode_with_spans(self, texts: Sequence[str]) -> tuple[list[list[int]], None]:
        return self.encode_batch(texts), None

    def encode_dropout(self, texts: Sequence[str], *, dropout: float, seed: int) -> list[list[int]]:
        """The ids of each text with BPE-dropout: each merge skipped with probability ``dropout``
        (:meth:`korean_bpe.Tokenizer.encode_batch`, one ``random.Random(seed)`` for the batch).  A
        row that has it can train its classifier on dropout's segmentations (the ``noise`` task).
        Texts all in the ``words`` table are not pre-tokenized again (the same ids)."""
        if self._words and all(t in self._words for t in texts):
            return self.tokenizer.encode_pretokenized([self._words[t] for t in texts], dropout=dropout, seed=seed)
        return self.tokenizer.encode_batch(texts, disallowed_special=(), dropout=dropout, seed=seed)

    def encode_pretokenized(self, batch: list[list[str]]) -> list[list[int]]:
        """The ids of texts already cut into words by this tokenizer's pre-tokenizer: the same ids
        as :meth:`encode_batch` (:meth:`korean_bpe.Tokenizer.encode_pretokenized`)."""
        return self.tokenizer.encode_pretokenized(batch)

    def decode(self, ids: Sequence[int]) -> str:
        return self.tokenizer.decode(ids)

    def clear_cache(self) -> None:
        self.tokenizer.clear_cache()

    def merge_triples(self) -> list[tuple[int, int, int]]:
        model = self.tokenizer.model
        vocab = model.vocab
        return [(vocab[a], vocab[b], vocab[model.merged_token(a, b)]) for a, b in model.merges]

    def symbol_lengths(self) -> Any:
        """How many unit symbols each id spells (a special token: one), as the encoder counts them,
        as a numpy int64 array indexed by id (made once)."""
        if self._symbol_lengths is None:
            import numpy as np

            specials, id_to_token = self.special_ids, self.tokenizer.id_to_token
            self._symbol_lengths = np.fromiter((1 if i in specials else len(t) for i, t in enumerate(id_to_token)),
                                               dtype=np.int64, count=len(id_to_token))
        return self._symbol_lengths

    def _readable(self, i: int) -> str:
        """Token ``i`` as text: jamo recomposed, bytes decoded (``<0xEB>`` for a byte that is part of
        a character, as the peers show it: :func:`~korean_bpe.compare.peers.readable_bytes`), the
        ``▁`` marker kept."""
        got = self._readable_cache.get(i)
        if got is None:
            token = self.tokenizer.id_to_token[i]
            if i in self.special_ids:
                got = token
            else:
                mark = SPACE_MARK if self.marker == SPACE_MARK and token.startswith(SPACE_MARK) else ""
                body = token[len(mark):]
                if body and self.tokenizer.unit.compiled_symbols == "bytes" and set(body) <= _GPT2_BYTES.keys():
                    from .peers import readable_bytes

                    got = mark + readable_bytes(bytes(_GPT2_BYTES[c] for c in body))
                else:
                    got = mark + (self.tokenizer.unit.join([body]) if body else "")
            self._readable_cache[i] = got
        return got

    def pieces(self, text: str) -> list[tuple[str, int, int]]:
        """Each token with the characters of ``text`` it spells: the ``"spelled"`` view of
        :func:`korean_bpe.encoding.offsets.token_offsets` (the ``▁`` marker and a dummy prefix
        spell nothing), over the words :func:`compare` already cut when it has them."""
        tok = self.tokenizer
        words = self._words.get(text)
        if words is None:
            words = tok.pre_tokenizer(text)
        ids, spans = tok.encode_with_offsets(text, disallowed_special=(), words=words, view="spelled")
        return [(self._readable(i), a, b) for i, (a, b) in zip(ids, spans)]

    def vocab_surfaces(self) -> list[bytes]:
        tok = self.tokenizer
        surfaces = []
        to_byte = {c: b for b, c in bytes_to_unicode().items()}
        for i, token in enumerate(tok.id_to_token):
            if i in self.special_ids:
                continue
            if self.marker == SPACE_MARK and token.startswith(SPACE_MARK):
                token = token[1:]
            if tok.unit.compiled_symbols == "bytes":  # byte symbols: GPT-2 characters for bytes
                surfaces.append(bytes(to_byte[c] if c in to_byte else 0x20 for c in token))
            else:
                surfaces.append(token.replace(SPACE_MARK, " ").encode("utf-8", "surrogatepass"))
        return surfaces


# -- kortok-style baselines -----------------------------------------------------------------------


def _char_tokens(text: str, *, jamo: bool) -> str:
    """The tokens of the jamo and syllable baselines, one character each.

    >>> _char_tokens("값 싸다", jamo=False)
    '값▁싸다'
    >>> len(_char_tokens("값 싸다", jamo=True))        # ᄀ ᅡ ᆹ ▁ ᄊ ᅡ ᄃ ᅡ
    8
    """
    return (decompose(text) if jamo else text).replace(" ", SPACE_MARK)


def _split_chars(text: str, *, jamo: bool) -> list[tuple[str, int, int]]:
    """kortok's syllable (character) and jamo tokenization: a space is the token ``▁``."""
    out = []
    for i, ch in enumerate(text):
        if ch == " ":
            out.append((SPACE_MARK, i, i + 1))
        elif jamo:
            out.extend((j, i, i + 1) for j in decompose(ch))
        else:
            out.append((ch, i, i + 1))
    return out


def _split_words(text: str, words: Sequence[str], pre_tokenizer: Any) -> list[tuple[str, int, int]]:
    """Morpheme baseline: lossless pieces, each space before a morpheme a ``▁`` token of its own;
    word baseline: the 어절 as they are."""
    out: list[tuple[str, int, int]] = []
    for word, (base, z) in zip(words, word_bases(text, words, pre_tokenizer)):
        core = word.lstrip(SPACE_MARK)
        n_marks = len(word) - len(core)
        for k in range(n_marks):
            p = base + (k if k > z else z)
            out.append((SPACE_MARK, p, p + 1 if k >= z else p))
        if core:
            out.append((core, base + (n_marks if n_marks > z else z), base + len(word)))
    return out


class BaselineSegmenter:
    """kortok's tokenizations without BPE, one class a unit (:data:`BASELINE_CLASSES`): ``jamo``,
    ``syllable`` (:class:`CharBaseline`), ``morpheme`` (an analyzer's morphemes,
    :class:`MorphemeBaseline`), ``word`` (어절, :class:`WordBaseline`); the vocabulary is ``<unk>``
    plus the ``vocab_size - 1`` most frequent tokens of the training texts (ties: the smaller token
    by code point), the rest ``<unk>``.

    Spaces are tokens (``▁``) for ``jamo``, ``syllable`` and ``morpheme``, so those three are lossless
    (up to ``<unk>``); ``word`` is white-space split and joins its words with one space.
    ``pre_tokenizer``: the analyzer object for ``morpheme`` (any lossless pre-tokenizer), else None;
    ``words``: an optional ``text -> words`` table of the pre-tokenization already computed.
    :meth:`build` and :meth:`train` take the unit's name and make its class.
    """

    kind = "baseline"
    unit: str = ""
    lossless = True

    def __init__(self, vocab_tokens: Sequence[str], *, strategy: str | None = None, pre_tokenizer: Any = None,
                 pre_tokenizer_name: str = "", words: Mapping[str, list[str]] | None = None) -> None:
        if not vocab_tokens or vocab_tokens[0] != _UNK:
            raise ValueError(f"vocab_tokens must start with {_UNK!r}")
        self.strategy = strategy or f"baseline/{self.unit}"
        self.pre_tokenizer = pre_tokenizer_name
        self.vocab_tokens = tuple(vocab_tokens)
        self.vocab_size = len(self.vocab_tokens)
        self.unk_ids = frozenset({0})
        self._pt = pre_tokenizer
        self._ids = {t: i for i, t in enumerate(self.vocab_tokens)}
        self._words = words or {}

    def __repr__(self) -> str:
        return f"{type(self).__name__}({self.strategy!r}, vocab_size={self.vocab_size})"

    @classmethod
    def build(cls, unit: str, vocab_tokens: Sequence[str], **options: Any) -> BaselineSegmenter:
        """The baseline of ``unit`` (a name of :data:`BASELINE_UNITS`) with ``vocab_tokens``."""
        return _baseline_class(unit)(vocab_tokens, **options)

    @classmethod
    def train(cls, texts: Iterable[str], *, unit: str, vocab_size: int, **options: Any) -> BaselineSegmenter:
        """Count the tokens of ``texts`` and keep the ``vocab_size - 1`` most frequent (the baseline
        of ``unit``'s class, whatever class this is called on)."""
        made = _baseline_class(unit)
        probe = made((_UNK,), **options)
        return made(top_tokens(probe.count(list(texts)), vocab_size), **options)

    def count(self, texts: list[str]) -> Counter[str]:
        """Each token's occurrences in ``texts``."""
        raise NotImplementedError

    def splits(self, texts: list[str]) -> Iterable[list[tuple[str, int, int]]]:
        """Each text as ``(token, start, end)`` before the vocabulary (a token outside it is ``<unk>``)."""
        raise NotImplementedError

    def truncate(self, vocab_size: int) -> BaselineSegmenter:
        """The same baseline with only the first ``vocab_size`` tokens (the most frequent)."""
        return type(self)(self.vocab_tokens[:max(vocab_size, 1)], strategy=self.strategy, pre_tokenizer=self._pt,
                          pre_tokenizer_name=self.pre_tokenizer, words=self._words)

    def encode_with_spans(self, texts: Sequence[str]) -> tuple[list[list[int]], None]:
        return self.encode_batch(texts), None

    def merge_triples(self) -> None:
        return None

    def clear_cache(self) -> None:
        """Nothing to forget: a baseline looks each token up."""

    def pieces(self, text: str) -> list[tuple[str, int, int]]:
        ids = self._ids
        split = next(iter(self.splits([text])))
        return [(t if t in ids else _UNK, a, b) for t, a, b in split]

    def vocab_surfaces(self) -> list[bytes]:
        return [(" " if t == SPACE_MARK else t).encode("utf-8", "surrogatepass") for t in self.vocab_tokens[1:]]


class CharBaseline(BaselineSegmenter):
    """The syllable baseline: each character a token, a space the token ``▁``."""

    unit = "syllable"

    def tokens(self, text: str) -> str:
        """The text's tokens, one character each (:func:`_char_tokens`)."""
        return _char_tokens(text, jamo=False)

    def count(self, texts: list[str]) -> Counter[str]:
        counts: Counter[str] = Counter()
        for t in texts:
            counts.update(self.tokens(t))
        return counts

    def splits(self, texts: list[str]) -> Iterable[list[tuple[str, int, int]]]:
        return (_split_chars(t, jamo=False) for t in texts)

    def encode_batch(self, texts: Sequence[str]) -> list[list[int]]:
        get = self._ids.get
        return [[get(c, 0) for c in self.tokens(t)] for t in texts]

    def decode(self, ids: Sequence[int]) -> str:
        return "".join(" " if t == SPACE_MARK else t for t in (self.vocab_tokens[i] for i in ids))


class JamoBaseline(CharBaseline):
    """The jamo baseline: each syllable decomposed into its conjoining jamo, recomposed on decode."""

    unit = "jamo"

    def tokens(self, text: str) -> str:
        return _char_tokens(text, jamo=True)

    def splits(self, texts: list[str]) -> Iterable[list[tuple[str, int, int]]]:
        return (_split_chars(t, jamo=True) for t in texts)

    def decode(self, ids: Sequence[int]) -> str:
        return compose(super().decode(ids))


class MorphemeBaseline(BaselineSegmenter):
    """The morpheme baseline: an analyzer's lossless morphemes, each space before a morpheme a ``▁``
    token of its own (a word's tokens depend on the word alone: each distinct word is counted and
    encoded once)."""

    unit = "morpheme"

    def __init__(self, vocab_tokens: Sequence[str], **options: Any) -> None:
        pt = options.get("pre_tokenizer")
        if pt is None or not getattr(pt, "lossless", False):
            raise ValueError("the morpheme baseline needs a lossless pre-tokenizer, e.g. get_pre_tokenizer('kiwi', lossless=True)")
        super().__init__(vocab_tokens, **options)

    def words(self, texts: list[str]) -> list[list[str]]:
        """The pre-tokenizer's words of ``texts`` (from the table of words when it has them all)."""
        known = self._words
        if all(t in known for t in texts):
            return [known[t] for t in texts]
        return self._pt.batch(texts, show_progress=False)

    def count(self, texts: list[str]) -> Counter[str]:
        counts: Counter[str] = Counter()
        if all(t in self._words for t in texts):  # count each distinct word once
            words: Counter[str] = Counter()
            for ws in self.words(texts):
                words.update(ws)
            for w, c in words.items():
                core = w.lstrip(SPACE_MARK)
                if len(w) > len(core):
                    counts[SPACE_MARK] += c * (len(w) - len(core))
                if core:
                    counts[core] += c
            return counts
        for split in self.splits(texts):
            counts.update(t for t, _, _ in split)
        return counts

    def splits(self, texts: list[str]) -> Iterable[list[tuple[str, int, int]]]:
        pt = self._pt if self._pt is not None else _WORDS  # the word baseline: 어절, as str.split() cuts them
        return (_split_words(t, w, pt) for t, w in zip(texts, self.words(texts)))

    def encode_batch(self, texts: Sequence[str]) -> list[list[int]]:
        return self.encode_pretokenized(self._pt.batch(list(texts), show_progress=False))

    def encode_pretokenized(self, batch: list[list[str]]) -> list[list[int]]:
        """Ids of texts already cut by the pre-tokenizer: a ``▁`` token per leading mark, then the morpheme."""
        get = self._ids.get
        space = get(SPACE_MARK, 0)
        known: dict[str, list[int]] = {}  # word -> its ids
        out = []
        for words in batch:
            ids: list[int] = []
            for w in words:
                got = known.get(w)
                if got is None:
                    core = w.lstrip(SPACE_MARK)
                    got = known[w] = [space] * (len(w) - len(core)) + ([get(core, 0)] if core else [])
                ids += got
            out.append(ids)
        return out

    def decode(self, ids: Sequence[int]) -> str:
        return "".join(" " if t == SPACE_MARK else t for t in (self.vocab_tokens[i] for i in ids))


class WordBaseline(MorphemeBaseline):
    """The word baseline: the 어절 as ``str.split()`` cuts them, joined with one space on decode."""

    unit = "word"
    lossless = False

    def __init__(self, vocab_tokens: Sequence[str], **options: Any) -> None:
        BaselineSegmenter.__init__(self, vocab_tokens, **options)

    def words(self, texts: list[str]) -> list[list[str]]:
        known = self._words
        if all(t in known for t in texts):
            return [known[t] for t in texts]
        return [t.split() for t in texts]

    def encode_batch(self, texts: Sequence[str]) -> list[list[int]]:
        get = self._ids.get
        return [[get(w, 0) for w in t.split()] for t in texts]

    def encode_pretokenized(self, batch: list[list[str]]) -> list[list[int]]:
        """Ids of texts already cut into 어절."""
        get = self._ids.get
        return [[get(w, 0) for w in words] for words in batch]

    def decode(self, ids: Sequence[int]) -> str:
        return " ".join(self.vocab_tokens[i] for i in ids)


#: each baseline unit's class (:meth:`BaselineSegmenter.build`)
BASELINE_CLASSES: dict[str, type[BaselineSegmenter]] = {
    "jamo": JamoBaseline, "syllable": CharBaseline, "morpheme": MorphemeBaseline, "word": WordBaseline}


def _baseline_class(unit: str) -> type[BaselineSegmenter]:
    try:
        return BASELINE_CLASSES[unit]
    except KeyError:
        raise ValueError(f"unit={unit!r} is not a baseline unit; use one of {BASELINE_UNITS}") from None


def top_tokens(counts: Mapping[str, int], vocab_size: int) -> tuple[str, ...]:
    """``<unk>`` + the ``vocab_size - 1`` most frequent tokens; ties: the smaller token first.

    >>> top_tokens({"다": 2, "가": 2, "나": 5}, 3)
    ('<unk>', '나', '가')
    """
    ranked = sorted(counts.items(), key=lambda kv: (-kv[1], kv[0]))
    return (_UNK, *(t for t, _ in ranked[: max(vocab_size - 1, 0)] if t != _UNK))
