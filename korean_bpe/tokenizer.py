"""``Tokenizer``: a pre-tokenizer + a unit + a BPE model, trained, applied, saved and loaded.

>>> texts = ["영화 정말 재밌다", "영화 진짜 재밌어요", "정말 재밌는 영화", "진짜 최고의 영화"] * 3
>>> tok = Tokenizer.train(texts, vocab_size=30, min_frequency=2)
>>> tok.tokenize("영화 정말 재밌다")
['▁영화', '▁정말', '▁재밌다']
>>> tok.decode(tok.encode("영화 정말 재밌다"))
'영화 정말 재밌다'
>>> tok.tokenize("영화관")                      # 관 is not in the alphabet
['▁영화', '<unk>']

SentencePiece style (``raw``): every space kept as ``▁``, each word opening with one, no token
across a space; ``split_by_whitespace=False`` lets merges cross spaces ("superword" tokens):

>>> raw = Tokenizer.train(texts, vocab_size=30, min_frequency=2, pre_tokenizer="raw")
>>> raw.tokenize(" 영화  정말 재밌다")
['▁', '▁영화', '▁', '▁정말', '▁재밌다']
>>> raw.decode(raw.encode(" 영화  정말 재밌다 "))
' 영화  정말 재밌다 '
>>> superword = Tokenizer.train(texts, vocab_size=30, pre_tokenizer={"type": "raw", "split_by_whitespace": False})
>>> superword.tokenize("정말 재밌는 영화")
['▁정말▁재밌', '는▁영화']

The pipeline, left to right:

1. ``pre_tokenizer`` cuts the text into words (``whitespace``: 어절; ``raw``: SentencePiece
   style, ``▁`` + each space-delimited word (``'▁영화'``), a ``'▁'`` piece for each extra space,
   line breaks apart; ``okt``/``kiwi``/``mecab``: morphemes);
2. ``unit`` cuts each word into symbols (``syllable``, ``jamo``, ``byte``) and ``marker`` marks
   word boundaries (``▁`` word-start symbol, ``</w>`` end-of-word suffix, ``##`` continuation
   prefix, or ``None``);
3. the merges are applied to each word by rank, lowest first (leftmost first among equal ranks),
   exactly as HF ``tokenizers`` applies them; each distinct word is segmented once and cached
   (:mod:`korean_bpe.encoding`: the compiled core cuts each new word into the unit's symbols,
   merges it and caches it, for every unit and the markers ``▁`` and None; with ``whitespace`` it
   cuts the text too, in the same C++ loop; the other pre-tokenizers cut the text in Python;
   same ids on every path, and without the compiled core);
4. symbols outside the vocabulary become ``<unk>``, or with ``byte_fallback=True`` the tokens
   ``<0x00>``..``<0xFF>`` of their UTF-8 bytes (as HF / SentencePiece ``byte_fallback``).

Default marker: ``"▁"`` for pre-tokenizers that lose the spaces (``whitespace``, morpheme analysis
mode), so ``decode`` can put them back; ``None`` for lossless ones (``raw``, lossless morpheme
mode), whose pieces already carry ``▁`` for each space (and, ``raw``, the dummy ``▁`` opening each
line, which ``decode`` drops again as SentencePiece does).

``decode(encode(x)) == x`` when the pipeline is lossless: the ``raw`` pre-tokenizer (text without
U+2581) or a lossless morpheme mode, any unit, with ``byte_fallback=True`` or a text whose symbols
are all in the alphabet.  The ``whitespace`` pre-tokenizer gives the text back with every run of
white space made one space.  The ``jamo`` unit gives Hangul back precomposed: text typed in NFD
(conjoining jamo) comes back NFC (see :mod:`korean_bpe.jamo`).  Lone surrogates come back with
every unit: the byte unit and byte fallback spell them as ``surrogatepass`` UTF-8 (``ED A0 80``
for U+D800) and decode them back (:func:`korean_bpe.units.decode_utf8`).

Special tokens are never text.  Training never makes one by merging (a run of symbols that
spells one is cut, see :func:`korean_bpe.trainer.api.cut_special_runs`), and ``encode`` refuses a
text that spells one (``"<unk>"``, or ``"<0x41>"`` with byte fallback), as tiktoken does, with a
``ValueError`` naming the token and the fixes; ``encode(text, disallowed_special=())`` encodes
such text as ordinary text (it decodes back to itself, never to ``"A"``, and never vanishes
under ``skip_special_tokens``).  Unlike tiktoken, text is never turned into a special token's
id (there is no ``allowed_special``): put special ids around encoded text yourself.

>>> tok.encode("영화 <unk>")
Traceback (most recent call last):
...
korean_bpe.tokenizer.SpecialTokenTextError: the text holds '<unk>', the text of a special token, at offset 3; encode never turns text into a special token. To encode it as ordinary text, pass disallowed_special=() (every special token's text), or disallowed_special=tok.special_tokens_set - {'<unk>'} (this one only); for the special token itself, add its id, tok.token_to_id('<unk>'), to the ids yourself
>>> tok.tokenize("영화 <unk>", disallowed_special=())
['▁영화', '▁', '<unk>', '<unk>', '<unk>', '<unk>', '<unk>']
"""

from __future__ import annotations

import gc
import random
import re
from contextlib import contextmanager
from collections.abc import Collection, Iterable, Iterator, Mapping, Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any, Literal

from .encoding import MergeTable as _CompiledMergeTable
from .encoding import WordCache, merge_dropout, merge_ids, plan
from .io.format import BYTE_TOKENS, check_writable_token
from .io.format import UNWRITABLE as _UNWRITABLE
from .jamo import L_BASE, L_COUNT, S_BASE, S_COUNT, T_BASE, T_COUNT, V_BASE, V_COUNT, compose, decompose
from .pre_tokenizers.base import LINE_BREAKS, PreTokenizer, get_pre_tokenizer
from .trainer.model import BPEModel
from .markers import SPACE_MARK, Marker, get_marker, pieces_keep_spaces
from .units import Unit, decode_utf8, get_unit

if TYPE_CHECKING:  # pragma: no cover
    from .counting import WordCounts
    from .progress import Progress
    from .trainer.api import OnMerge

__all__ = ["Tokenizer", "SpecialTokenTextError", "BYTE_TOKENS", "JAMO_ALPHABET", "default_marker", "check_writable_token",
           "DEFAULT_CACHE_SIZE"]

#: The conjoining jamo alphabet of modern Hangul: 19 초성 (U+1100..), 21 중성 (U+1161..), 27 종성
#: (U+11A8..).  ``Tokenizer.train(..., hangul_fallback=True)`` puts them in the vocabulary.
JAMO_ALPHABET: tuple[str, ...] = (
    tuple(chr(L_BASE + i) for i in range(L_COUNT)) + tuple(chr(V_BASE + i) for i in range(V_COUNT))
    + tuple(chr(T_BASE + i) for i in range(1, T_COUNT))
)

#: Words kept in the per-word cache before it is emptied (about 100 bytes a word).
DEFAULT_CACHE_SIZE = 1 << 19

_UNSET: Any = object()


def default_marker(pre_tokenizer: PreTokenizer) -> str | None:
    """The word marker a pre-tokenizer needs so that ``decode`` can restore the text.

    ``"▁"`` when the pre-tokenizer drops the spaces (``whitespace``, morpheme analysis mode);
    ``None`` when its pieces already carry them as ``▁`` (``raw``, lossless morpheme mode: its
    ``piece_kind`` is ``"marked"``, :func:`korean_bpe.markers.pieces_keep_spaces`).

    >>> default_marker(get_pre_tokenizer("whitespace")), default_marker(get_pre_tokenizer("raw"))
    ('▁', None)
    """
    return None if pieces_keep_spaces(pre_tokenizer) else SPACE_MARK


class Tokenizer:
    """Encode and decode Korean text with a trained :class:`~korean_bpe.trainer.BPEModel`.

    ``pre_tokenizer`` and ``unit`` take a name (``"okt"``, ``"jamo"``), a config dict
    (``{"type": "okt", "drop": []}``) or an object.  ``marker`` (``"▁"``, ``"</w>"``, ``"##"``,
    ``None`` or a :mod:`korean_bpe.markers` object) defaults to :func:`default_marker`; ``None``
    needs a lossless pre-tokenizer (``raw``), else decode would glue the words together.
    ``byte_fallback=True`` needs the 256 :data:`BYTE_TOKENS` in the vocabulary; ``unk_token`` (or
    ``None``: unknown symbols raise ``ValueError``) must be in it.  ``hangul_fallback=True``
    spells an unknown Hangul syllable with jamo tokens (see :meth:`encode`).  ``cache_size``
    bounds the per-word cache.

    The tutorial case (vocabulary ``b g h n p s u ug un hug``, merges ``u g``, ``u n``, ``h ug``),
    with the ``▁`` that opens each word:

    >>> model = BPEModel(("<unk>",), tuple("▁bghnpsu"), (("u", "g"), ("u", "n"), ("h", "ug")))
    >>> tok = Tokenizer(model)
    >>> tok.tokenize("pug bug mug")
    ['▁', 'p', 'ug', '▁', 'b', 'ug', '▁', '<unk>', 'ug']
    >>> tok.encode("hug"), tok.decode(tok.encode("hug bug"))
    ([1, 11], 'hug bug')
    """

    def __init__(
        self,
        model: BPEModel,
        *,
        pre_tokenizer: str | Mapping[str, Any] | PreTokenizer = "whitespace",
        unit: str | Mapping[str, Any] | Unit = "syllable",
        marker: str | Marker | None = _UNSET,
        byte_fallback: bool = False,
        unk_token: str | None = "<unk>",
        hangul_fallback: bool = False,
        cache_size: int = DEFAULT_CACHE_SIZE,
    ) -> None:
        if not isinstance(model, BPEModel):
            raise TypeError(f"model must be a korean_bpe.BPEModel, got {type(model).__name__}; "
                            "train one with Tokenizer.train(texts, vocab_size=...) or korean_bpe.train_bpe")
        if not isinstance(byte_fallback, bool):
            raise TypeError(f"byte_fallback must be True or False, got {byte_fallback!r}")
        if not isinstance(cache_size, int) or isinstance(cache_size, bool) or cache_size < 1:
            raise ValueError(f"cache_size must be an int >= 1, got {cache_size!r}")
        self._model = model
        self._pre_tokenizer = get_pre_tokenizer(pre_tokenizer)
        self._unit = get_unit(unit)
        self._mark = _resolve_marker(marker, self._pre_tokenizer, model)
        self._marker = self._mark.text
        self._byte_fallback = byte_fallback
        if not isinstance(hangul_fallback, bool):
            raise TypeError(f"hangul_fallback must be True or False, got {hangul_fallback!r}")
        if hangul_fallback:
            _check_hangul_fallback(self._unit, self._mark)
        self._hangul_fallback = hangul_fallback
        vocab = model.vocab
        if unk_token is not None and unk_token not in vocab:
            raise ValueError(
                f"unk_token={unk_token!r} is not in the vocabulary; add it to the model's special tokens "
                f"(Tokenizer.train(..., special_tokens=({unk_token!r},))) or pass unk_token=None"
            )
        self._unk_token = unk_token
        if byte_fallback:
            missing = [t for t in BYTE_TOKENS if t not in vocab]
            if missing:
                raise ValueError(
                    f"byte_fallback=True needs the 256 byte tokens <0x00>..<0xFF> in the vocabulary; {missing[0]!r} "
                    f"and {len(missing) - 1} more are missing (train with Tokenizer.train(..., byte_fallback=True))"
                )
        _check_model(model)
        self._vocab = vocab
        self._id_to_token = model.id_to_token
        self._unk_id = -1 if unk_token is None else vocab[unk_token]
        self._byte_ids = tuple(vocab[t] for t in BYTE_TOKENS) if byte_fallback else ()
        self._byte_of_id = {i: b for b, i in enumerate(self._byte_ids)}
        byte_set = set(BYTE_TOKENS) if byte_fallback else set()
        self._special_tokens = tuple(t for t in model.special_tokens if t not in byte_set)
        self._special_ids = frozenset(vocab[t] for t in self._special_tokens)
        self._literal_ids = self._special_ids | frozenset(self._byte_ids)
        self._special_regexes: dict[frozenset[str], re.Pattern[str] | None] = {}
        self._build_encoder()
        self._cache = WordCache(self._encode_word, cache_size)

    # --- training ------------------------------------------------------------------------------

    @classmethod
    def train(
        cls,
        texts: Iterable[str],
        *,
        vocab_size: int,
        pre_tokenizer: str | Mapping[str, Any] | PreTokenizer = _UNSET,
        unit: str | Mapping[str, Any] | Unit = _UNSET,
        marker: str | Marker | None = _UNSET,
        min_frequency: int = 2,
        special_tokens: Sequence[str] = ("<unk>",),
        byte_fallback: bool = False,
        limit_alphabet: int | None = None,
        max_token_length: int | None = None,
        unk_token: str | None = "<unk>",
        hangul_fallback: bool = False,
        show_progress: bool | Progress | None = None,
        on_merge: OnMerge | None = None,
        initial: Tokenizer | None = None,
    ) -> Tokenizer:
        """Train on ``texts`` (any iterable of strings: a list, or a generator over a huge file).

        The texts are pre-tokenized and counted in batches (:func:`korean_bpe.counting.count_words`,
        compiled for ``whitespace`` and ``raw``) and only the distinct words are kept, with their
        counts: memory grows with the vocabulary of the corpus, not with its length.  Each distinct
        word is split into units once, marked (:func:`korean_bpe.counting.split_words`), and handed
        to :func:`korean_bpe.trainer.train_bpe`.  To count once and train many times (or count
        shards apart), see :meth:`train_from_counts`.

        ``vocab_size`` counts special tokens + alphabet + merges, as HF does.  ``unk_token`` is
        added in front of ``special_tokens`` when missing.  ``byte_fallback=True`` adds the 256
        :data:`BYTE_TOKENS` right after the special tokens (so they count in ``vocab_size``).
        ``max_token_length``: no token spans more than that many of the unit's symbols (the ``▁``
        marker counts one, ``</w>`` and ``##`` nothing; see :func:`korean_bpe.trainer.train_bpe`).
        ``hangul_fallback=True`` adds the 67 conjoining jamo of :data:`JAMO_ALPHABET` to the
        alphabet (they count in ``vocab_size`` and, kept first, in ``limit_alphabet``) and makes the
        tokenizer spell unknown syllables with them (see :meth:`encode`).

        >>> lines = (line for line in ["ㅋㅋㅋ 진짜 웃기다", "ㅋㅋ 웃기다 ㅠㅠ"] * 4)   # a generator
        >>> tok = Tokenizer.train(lines, vocab_size=30, unit="jamo")
        >>> tok.tokenize("ㅋㅋ 웃기다") == ["▁ㅋㅋ", "▁" + decompose("웃기다")]    # tokens are jamo strings
        True
        >>> [len(t) for t in tok.tokenize("웃겨")]  # ▁우 ᆺ ᄀ <unk>: the vowel ᅧ was never seen
        [3, 1, 1, 5]
        >>> tok.decode(tok.encode("웃기다 ㅋㅋ"))
        '웃기다 ㅋㅋ'

        ``pre_tokenizer`` defaults to ``"whitespace"``, ``unit`` to ``"syllable"``.

        ``show_progress``: progress bars on stderr (None: when it is a terminal), or any
        :class:`korean_bpe.progress.Progress`.  ``on_merge(rank, (left, right), count)`` is called
        after each merge: ``rank`` is its index in ``tok.merges``, ``(left, right)`` the two tokens
        merged, ``count`` how often the pair occurred when it was merged; the new token is
        ``left + right`` (``tok.model.merged_token(left, right)``: without the ``##`` of ``right``).
        Nothing is called per merge when it is None.

        >>> heard = []
        >>> tok = Tokenizer.train(["재밌다 재밌어요"] * 3, vocab_size=12, on_merge=lambda *a: heard.append(a))
        >>> heard[:2]
        [(0, ('▁', '재'), 6), (1, ('▁재', '밌'), 6)]
        >>> [pair for _, pair, _ in heard] == list(tok.merges)
        True

        ``initial=tok`` continues training ``tok`` (see :mod:`korean_bpe.trainer.continued`): the
        new texts are segmented with ``tok``'s merges, then new merges are learned until
        ``vocab_size`` (old tokens included).  Every old id and merge is kept, old text encodes to
        the same tokens or fewer; symbols outside ``tok``'s alphabet stay unknown (``<unk>`` or
        byte fallback).  ``pre_tokenizer``, ``unit``, ``marker``, ``byte_fallback``, ``unk_token``
        and ``special_tokens`` default to ``tok``'s and must match them; ``limit_alphabet`` and
        ``max_token_length`` are refused.

        >>> law = Tokenizer.train(["법률 제정", "법률 개정"] * 3, vocab_size=10)
        >>> more = Tokenizer.train(["법률 개정안 제출", "개정안 제출"] * 3, vocab_size=16, initial=law)
        >>> more.id_to_token[:law.vocab_size] == law.id_to_token, more.merges[:len(law.merges)] == law.merges
        (True, True)
        >>> law.tokenize("법률 개정안"), more.tokenize("법률 개정안")      # 안 is not in law's alphabet
        (['▁법률', '▁개', '정', '<unk>'], ['▁법률', '▁개정', '<unk>'])
        """
        from .counting import count_words

        if isinstance(texts, (str, bytes)):
            raise TypeError("texts must be an iterable of strings, not a single string; pass [text]")
        if not isinstance(texts, Iterable):
            raise TypeError(f"texts must be an iterable of strings, got {type(texts).__name__}")
        if not isinstance(byte_fallback, bool):
            raise TypeError(f"byte_fallback must be True or False, got {byte_fallback!r}")
        if initial is not None and not isinstance(initial, Tokenizer):
            raise TypeError(f"initial must be a korean_bpe.Tokenizer (Tokenizer.load(dir)), got {type(initial).__name__}")
        pt = get_pre_tokenizer(initial.pre_tokenizer if initial is not None and pre_tokenizer is _UNSET else
                               "whitespace" if pre_tokenizer is _UNSET else pre_tokenizer)
        unit_ = get_unit(initial.unit if initial is not None and unit is _UNSET else
                         "syllable" if unit is _UNSET else unit)
        if initial is not None:
            from .trainer.continued import check_initial_options

            marker = initial._mark if marker is _UNSET else marker
            byte_fallback = byte_fallback or initial.byte_fallback
            if hangul_fallback is True and not initial.hangul_fallback:
                raise ValueError("hangul_fallback=True differs from the initial tokenizer's False; continued training "
                                 "cannot add the jamo alphabet without moving ids: leave hangul_fallback out")
            hangul_fallback = initial.hangul_fallback
            check_initial_options(initial, pre_tokenizer=pt, unit=unit_, marker=getattr(marker, "text", marker),
                                  special_tokens=special_tokens,
                                  byte_fallback=byte_fallback, unk_token=unk_token, limit_alphabet=limit_alphabet,
                                  max_token_length=max_token_length)
        _check_train_options(byte_fallback, unit_, marker, pt)
        _check_hangul_option(hangul_fallback, unit_, marker, pt, limit_alphabet)
        sample: list[str] = []
        counts = count_words(texts, pt, show_progress=show_progress, sample=sample, compact=True)
        if not counts:
            raise ValueError(_no_words_message(pt, sample))
        return cls._fit(
            counts, pt, unit_, marker, owned=True, initial=initial, vocab_size=vocab_size,
            min_frequency=min_frequency, special_tokens=special_tokens, byte_fallback=byte_fallback,
            limit_alphabet=limit_alphabet, max_token_length=max_token_length, unk_token=unk_token,
            hangul_fallback=hangul_fallback, show_progress=show_progress, on_merge=on_merge,
        )

    @classmethod
    def train_from_counts(
        cls,
        counts: WordCounts,
        *,
        vocab_size: int,
        pre_tokenizer: str | Mapping[str, Any] | PreTokenizer | None = None,
        unit: str | Mapping[str, Any] | Unit = "syllable",
        marker: str | Marker | None = _UNSET,
        min_frequency: int = 2,
        special_tokens: Sequence[str] = ("<unk>",),
        byte_fallback: bool = False,
        limit_alphabet: int | None = None,
        max_token_length: int | None = None,
        unk_token: str | None = "<unk>",
        hangul_fallback: bool = False,
        show_progress: bool | Progress | None = None,
        on_merge: OnMerge | None = None,
    ) -> Tokenizer:
        """Train on word counts (:class:`korean_bpe.counting.WordCounts`, e.g. read from a file
        written by ``korean-bpe count``): the same model as :meth:`train` on the texts counted.

        The tokenizer cuts texts with the pre-tokenizer the counts were made with (their
        ``pre_tokenizer``); ``pre_tokenizer``, when given, must be that one, else ``ValueError``
        (a tokenizer that cuts differently from its training would meet words it never saw).
        The other options are :meth:`train`'s.

        >>> from korean_bpe.counting import WordCounts
        >>> texts = ["ㅋㅋㅋ 진짜 웃기다", "ㅋㅋ 웃기다 ㅠㅠ"] * 4
        >>> counts = WordCounts.from_texts(texts[:4]) + WordCounts.from_texts(texts[4:])   # two shards
        >>> tok = Tokenizer.train_from_counts(counts, vocab_size=30, unit="jamo")
        >>> tok.model == Tokenizer.train(texts, vocab_size=30, unit="jamo").model
        True
        >>> Tokenizer.train_from_counts(counts, vocab_size=30, pre_tokenizer="raw")
        Traceback (most recent call last):
        ...
        ValueError: pre_tokenizer='raw' ({'type': 'raw', 'split_by_whitespace': True, 'add_dummy_prefix': True}) is not the pre-tokenizer these counts were made with ({'type': 'whitespace'}): the tokenizer must cut texts as its training words were cut, else it meets words it never saw; leave out pre_tokenizer (the counts' own is used) or count again with this one
        """
        from .counting import WordCounts

        if not isinstance(counts, WordCounts):
            raise TypeError(f"counts must be korean_bpe.counting.WordCounts, got {type(counts).__name__}; read a "
                            "counts file with WordCounts.load(path) or count texts with WordCounts.from_texts(texts)")
        pt = counts.pre_tokenizer
        if pre_tokenizer is not None:
            given = get_pre_tokenizer(pre_tokenizer)
            if given.to_config() != counts.pre_tokenizer_config:
                raise ValueError(
                    f"pre_tokenizer={pre_tokenizer!r} ({given.to_config()}) is not the pre-tokenizer these counts "
                    f"were made with ({counts.pre_tokenizer_config}): the tokenizer must cut texts as its training "
                    "words were cut, else it meets words it never saw; leave out pre_tokenizer (the counts' own is "
                    "used) or count again with this one"
                )
            pt = given
        _check_train_options(byte_fallback, unit, marker, pt)
        _check_hangul_option(hangul_fallback, get_unit(unit), marker, pt, limit_alphabet)
        if not len(counts):
            raise ValueError("no words to train on: the word counts are empty")
        return cls._fit(
            counts._counts, pt, unit, marker, owned=False, initial=None, vocab_size=vocab_size,
            min_frequency=min_frequency, special_tokens=special_tokens, byte_fallback=byte_fallback,
            limit_alphabet=limit_alphabet, max_token_length=max_token_length, unk_token=unk_token,
            hangul_fallback=hangul_fallback, show_progress=show_progress, on_merge=on_merge,
        )

    @classmethod
    def _fit(
        cls, counts: Mapping[str, int], pt: PreTokenizer, unit: Any, marker: Any, *, owned: bool,
        initial: Tokenizer | None, vocab_size: int, min_frequency: int, special_tokens: Sequence[str],
        byte_fallback: bool, limit_alphabet: int | None, max_token_length: int | None, unk_token: str | None,
        hangul_fallback: bool, show_progress: bool | Progress | None, on_merge: OnMerge | None,
    ) -> Tokenizer:
        """The training shared by :meth:`train` and :meth:`train_from_counts`: word counts -> marked
        unit symbols -> :func:`korean_bpe.trainer.train_bpe` (or, from ``initial``,
        :func:`korean_bpe.trainer.continued.continue_bpe`) -> a tokenizer.  ``counts``: a dict, or
        the read-only :class:`korean_bpe.trainer.fast.CountedWords` of ``count_words(compact=True)``.
        ``owned``: ``counts`` is ours to empty once split (its words as strings are no longer
        needed: freed before training; both kinds have ``clear``)."""
        from .trainer import train_bpe
        from .trainer.continued import continue_bpe

        with _gc_paused():  # after counting: an analyzer's garbage may hold cycles, the word tuples do not
            unit_, marker_, word_counts = _split_for_training(counts, pt, unit, marker)
            if owned and hasattr(counts, "clear"):
                counts.clear()
            if initial is not None:
                model = continue_bpe(initial.model, word_counts, vocab_size=vocab_size, min_frequency=min_frequency,
                                     show_progress=show_progress, on_merge=on_merge).model
            else:
                model = train_bpe(
                    word_counts,
                    vocab_size=vocab_size,
                    min_frequency=min_frequency,
                    special_tokens=_special_tokens(special_tokens, unk_token, byte_fallback),
                    limit_alphabet=limit_alphabet,
                    max_token_length=max_token_length,
                    initial_alphabet=_initial_alphabet(unit_, marker_) + (JAMO_ALPHABET if hangul_fallback else ()),
                    marker=marker_,
                    show_progress=show_progress,
                    on_merge=on_merge,
                )
            return cls(model, pre_tokenizer=pt, unit=unit_, marker=marker_, byte_fallback=byte_fallback,
                       unk_token=unk_token, hangul_fallback=hangul_fallback)

    # --- properties ----------------------------------------------------------------------------

    @property
    def model(self) -> BPEModel:
        """The BPE model (special tokens, alphabet, ordered merges)."""
        return self._model

    @property
    def vocab(self) -> dict[str, int]:
        """token -> id (a copy)."""
        return dict(self._vocab)

    @property
    def vocab_size(self) -> int:
        return len(self._id_to_token)

    @property
    def id_to_token(self) -> tuple[str, ...]:
        """id -> token: ``tok.id_to_token[5]``."""
        return self._id_to_token

    @property
    def merges(self) -> tuple[tuple[str, str], ...]:
        return self._model.merges

    @property
    def pre_tokenizer(self) -> PreTokenizer:
        return self._pre_tokenizer

    @property
    def unit(self) -> Unit:
        return self._unit

    @property
    def marker(self) -> str | None:
        """The word marker as the API and the files spell it: ``"▁"``, ``"</w>"``, ``"##"`` or ``None``."""
        return self._marker

    @property
    def byte_fallback(self) -> bool:
        return self._byte_fallback

    @property
    def hangul_fallback(self) -> bool:
        return self._hangul_fallback

    @property
    def unk_token(self) -> str | None:
        return self._unk_token

    @property
    def special_tokens(self) -> tuple[str, ...]:
        """The model's special tokens (``<unk>``, ...), without the 256 byte-fallback tokens."""
        return self._special_tokens

    @property
    def special_tokens_set(self) -> frozenset[str]:
        """Every token whose text ``encode`` refuses by default: the special tokens and, with
        byte fallback, the 256 byte tokens (tiktoken's name)."""
        return frozenset(self._model.special_tokens)

    def token_to_id(self, token: str) -> int | None:
        """The id of ``token``, or ``None``."""
        return self._vocab.get(token)

    def __repr__(self) -> str:
        return (f"Tokenizer(vocab_size={self.vocab_size}, pre_tokenizer={self._pre_tokenizer!r}, "
                f"unit={self._unit!r}, marker={self._marker!r}, byte_fallback={self._byte_fallback}"
                + (", hangul_fallback=True)" if self._hangul_fallback else ")"))

    # --- encoding ------------------------------------------------------------------------------

    def encode(
        self,
        text: str,
        *,
        disallowed_special: Literal["all"] | Collection[str] = "all",
        dropout: float = 0.0,
        seed: int | None = None,
    ) -> list[int]:
        """Token ids of ``text``.

        ``disallowed_special``: the special tokens whose text ``text`` must not hold (a
        ``ValueError`` names the token and the fixes); ``"all"`` (default) is
        :attr:`special_tokens_set`; the text of the others is encoded as ordinary text (``()``:
        every special token's).  See the module docstring.

        >>> tok = Tokenizer(BPEModel(("<unk>",), tuple("▁재밌다영화"), (("▁", "영"), ("▁영", "화"), ("재", "밌"))))
        >>> tok.encode("영화 재밌다")
        [8, 1, 9, 4]
        >>> tok.tokenize("영화 재밌다")
        ['▁영화', '▁', '재밌', '다']

        ``dropout=p`` (BPE-dropout, Provilkov et al. 2020, as HF ``tokenizers`` applies it): while
        merging a word, each candidate merge is skipped with probability ``p`` (see
        :func:`korean_bpe.encoding.merge_dropout`), so the same text gets other, finer
        segmentations: a regularizer for training a model.  The draws come from ``random.Random(seed)``, made
        afresh for each call: the same ``seed`` gives the same ids, ``seed=None`` fresh ones.
        The word cache and the compiled core are bypassed (each word is merged again in
        Python); ``dropout=0`` is exactly the ordinary encoding, ``dropout=1`` the unit symbols.
        ``decode`` gives the same text back whatever the segmentation:

        >>> tok.tokenize("재밌다", dropout=1.0)
        ['▁', '재', '밌', '다']
        >>> tok.decode(tok.encode("영화 재밌다", dropout=0.5, seed=1))
        '영화 재밌다'

        With :attr:`hangul_fallback`, a Hangul syllable outside the vocabulary is spelled, before
        ``<unk>`` or byte fallback are tried, by the first of these whose tokens are all in the
        vocabulary: (1) the syllable without its 종성 and the 종성 as a conjoining jamo
        (``'값'`` -> ``'가' 'ᆹ'``, kiwipiepy's ``fallback_hangul`` split); (2) its two or three
        conjoining jamo (``'ᄀ' 'ᅡ' 'ᆹ'``).  ``decode`` recomposes them (:func:`korean_bpe.jamo.compose`)
        into the syllable, so the text comes back exactly; text that holds conjoining jamo
        itself (NFD input) comes back composed (NFC), as with the ``jamo`` unit.

        >>> fb = Tokenizer(BPEModel(("<unk>",), ("▁", "가", *JAMO_ALPHABET), ()), hangul_fallback=True)
        >>> [f"U+{ord(t):04X}" for t in fb.tokenize("값 뷁")]      # ▁ 가 ᆹ ▁ ᄇ ᅰ ᆰ
        ['U+2581', 'U+AC00', 'U+11B9', 'U+2581', 'U+1107', 'U+1170', 'U+11B0']
        >>> fb.decode(fb.encode("값 뷁"))
        '값 뷁'
        """
        if not isinstance(text, str):
            raise TypeError(f"text must be a str, got {type(text).__name__}; use encode_batch for many texts")
        regex = self._special_regex(disallowed_special)
        p = _check_dropout(dropout, seed)
        if regex is not None:
            _check_no_special(regex, text, "the text")
        if p:
            return self._encode_dropout([self._pre_tokenizer(text)], p, random.Random(seed))[0]
        if self._fused and self._compiled is not None:  # fused: the plan found the compiled core
            return self._compiled.encode_whitespace([text], self._encode_word, self._cache.maxsize)[0]
        return self._encode_words([self._pre_tokenizer(text)])[0]

    def tokenize(
        self,
        text: str,
        *,
        disallowed_special: Literal["all"] | Collection[str] = "all",
        dropout: float = 0.0,
        seed: int | None = None,
    ) -> list[str]:
        """Tokens of ``text`` (``encode`` then ``id_to_token``)."""
        id_to_token = self._id_to_token
        ids = self.encode(text, disallowed_special=disallowed_special, dropout=dropout, seed=seed)
        return [id_to_token[i] for i in ids]

    def encode_with_offsets(
        self,
        text: str,
        *,
        disallowed_special: Literal["all"] | Collection[str] = "all",
        dropout: float = 0.0,
        seed: int | None = None,
    ) -> tuple[list[int], list[tuple[int, int]]]:
        """``(ids, offsets)``: the ids of ``encode(text)`` and, for each token, the ``(start, end)``
        character span of ``text`` it comes from (``text[start:end]``).

        A token inside a character (a jamo of a syllable, a byte of a character, a Hangul or byte
        fallback piece) gets that character's span.  A ``▁`` written for a space of the text
        (``raw``, lossless morpheme mode) gets that space's span.  The ``▁`` word marker
        (``whitespace``, analysis mode) stands for the white-space character right before its
        word (``'▁정말'`` in ``'영화 정말'`` is ``(2, 5)``); a ``▁`` that stands for no character
        is aligned as HF aligns the characters its normalizers insert: the ``▁`` marker of the
        first word and ``raw``'s dummy prefix on the first line with the first character
        (a lone ``'▁'`` token opening the text is ``(0, 1)``, sharing that character with the
        next token), ``raw``'s dummy prefix on a later line with the line break before it; the
        ``▁`` marker of a morpheme glued to the one before gets an empty span ``(i, i)`` where
        its word starts.  So ``return_offsets_mapping`` on our ``tokenizer.json`` (transformers'
        ``PreTrainedTokenizerFast``) gives our spans for the ``raw`` pre-tokenizer (every unit)
        and ``whitespace`` (syllable, jamo); not for ``whitespace`` with the byte unit (HF's
        ``▁`` there covers no space: ``'▁정'`` is ``(3, 4)``, ours ``(2, 4)``), nor for the
        morpheme pre-tokenizers, whose export HF is fed analysed words.  ``raw``'s dummy prefix ``▁`` stands for nothing too.
        A token gets the span from its first to its last character.  Characters no token
        stands for (spaces, morphemes dropped by an analysis) are in no span; spans go left to
        right, and the tokens inside one character share its span.

        >>> tok = Tokenizer.train(["영화 정말 재밌다", "영화 진짜 최고"] * 3, vocab_size=30, unit="jamo")
        >>> ids, offsets = tok.encode_with_offsets("영화 짱")
        >>> ids == tok.encode("영화 짱"), offsets
        (True, [(0, 2), (2, 3), (3, 4), (3, 4), (3, 4)])
        >>> [len(tok.id_to_token[i]) for i in ids]     # ▁영화 (▁ + 5 jamo), ▁, then ᄍ ᅡ ᆼ of 짱
        [6, 1, 1, 1, 1]

        Analyzers find the words in the text: the spans point into ``text`` even where the
        analysis drops morphemes.  With a morpheme pre-tokenizer in analysis mode a word is
        looked up in ``text`` from the end of the previous one; ``dropout`` and ``seed`` are
        those of :meth:`encode`.
        """
        if not isinstance(text, str):
            raise TypeError(f"text must be a str, got {type(text).__name__}")
        regex = self._special_regex(disallowed_special)
        p = _check_dropout(dropout, seed)
        if regex is not None:
            _check_no_special(regex, text, "the text")
        rng = random.Random(seed) if p else None
        ids: list[int] = []
        offsets: list[tuple[int, int]] = []
        marked = self._mark.word_start is not None
        for k, (word, places, start) in enumerate(_align_words(text, self._pre_tokenizer(text), self._pre_tokenizer)):
            spans = [(q, q + 1) for q in places]
            if marked:  # the ▁ marker stands for the white-space character right before the word
                if k == 0:  # HF's Prepend("▁"): aligned with the first character
                    spans.insert(0, (start, start + 1))
                else:
                    spans.insert(0, (start - 1, start) if text[start - 1].isspace() else (start, start))
            symbol_spans = [spans[c] for c in self._symbol_chars(word)]
            for tids, a, b in self._segment(word, p, rng):
                full = [sp for sp in symbol_spans[a:b] if sp[0] < sp[1]]
                span = (full[0][0], full[-1][1]) if full else symbol_spans[a]
                ids += tids
                offsets += [span] * len(tids)
        return ids, offsets

    def encode_batch(
        self,
        texts: Sequence[str],
        *,
        disallowed_special: Literal["all"] | Collection[str] = "all",
        dropout: float = 0.0,
        seed: int | None = None,
    ) -> list[list[int]]:
        """``[encode(t) for t in texts]``, pre-tokenizing with one ``pre_tokenizer.batch`` call.
        With ``dropout``, one ``random.Random(seed)`` serves the whole batch, text after text."""
        if isinstance(texts, str):
            raise TypeError("texts must be a sequence of strings, not a single string; use encode(text)")
        if not isinstance(texts, list):
            texts = list(texts)
        if not all(type(t) is str for t in texts):
            k, bad = next((k, t) for k, t in enumerate(texts) if not isinstance(t, str))
            raise TypeError(f"texts must hold strings; texts[{k}] is {type(bad).__name__} {bad!r}")
        regex = self._special_regex(disallowed_special)
        if regex is not None:
            search = regex.search
            for k, t in enumerate(texts):
                if search(t) is not None:
                    _check_no_special(regex, t, f"texts[{k}]")
        p = _check_dropout(dropout, seed)
        if p:
            return self._encode_dropout(self._pre_tokenizer.batch(texts), p, random.Random(seed))
        if self._fused and self._compiled is not None:  # fused: the plan found the compiled core
            return self._compiled.encode_whitespace(texts, self._encode_word, self._cache.maxsize)
        return self._encode_words(self._pre_tokenizer.batch(texts))

    def _encode_words(self, batch: list[list[str]]) -> list[list[int]]:
        """Ids of pre-tokenized texts, each distinct word segmented once (then cached)."""
        cache = self._cache
        if self._compiled is not None:
            if self._plan.symbols is not None:  # cut, merged and cached in the core
                return self._compiled.encode_pieces(batch, self._encode_word, cache.maxsize)
            return self._compiled.encode_batch(cache, batch, self._encode_word, cache.maxsize)
        getitem = cache.__getitem__
        out = []
        for words in batch:
            ids: list[int] = []
            for w in words:
                ids += getitem(w)
            out.append(ids)
        return out

    def _encode_dropout(self, batch: list[list[str]], p: float, rng: random.Random) -> list[list[int]]:
        """Ids of pre-tokenized texts with BPE-dropout: every word merged afresh, no cache."""
        out = []
        for words in batch:
            ids: list[int] = []
            for w in words:
                for tids, _, _ in self._segment(w, p, rng):
                    ids += tids
            out.append(ids)
        return out

    def _segment(self, word: str, p: float, rng: random.Random | None) -> list[tuple[list[int], int, int]]:
        """One word as ``(ids, first_symbol, end_symbol)`` per merged token: the ids it becomes
        (several for a byte or Hangul fallback) and the run of the word's marked symbols it spells."""
        symbols = self._symbols(word)
        get = self._vocab.get
        ids = [get(s, -1) for s in symbols]
        if len(ids) > 1:
            if p:
                ids = merge_dropout(ids, self._pairs, p, rng)  # type: ignore[arg-type]
            else:
                ids = self._compiled.merge_ids(ids) if self._compiled is not None else merge_ids(ids, self._pairs)
        mark, id_to_token = self._mark, self._id_to_token
        size = (lambda t: len(mark.strip(t))) if mark.glued else len
        out: list[tuple[list[int], int, int]] = []
        k = 0
        for i in ids:
            if i < 0:
                out.append((self._unknown_ids(symbols[k], word), k, k + 1))
                k += 1
                continue
            start, n, got = k, size(id_to_token[i]), 0
            while got < n:
                got += size(symbols[k])
                k += 1
            out.append(([i], start, k))
        assert k == len(symbols), (word, ids)
        return out

    def _symbol_chars(self, word: str) -> list[int]:
        """For each marked symbol of ``word``, the index of the character it comes from (with the
        ``▁`` marker, index 0 is the marker and the characters count from 1)."""
        split = self._unit.split
        shift = 1 if self._mark.word_start is not None and word else 0
        out: list[int] = [0] * shift
        for c, ch in enumerate(word, shift):
            out += [c] * len(split(ch))
        return out

    def _special_regex(self, disallowed_special: Any) -> re.Pattern[str] | None:
        """The compiled search for the disallowed special tokens' text (None: nothing to look for)."""
        if disallowed_special == "all":
            key = frozenset(self._model.special_tokens)
        elif isinstance(disallowed_special, str) or not isinstance(disallowed_special, Iterable):
            raise TypeError(f"disallowed_special must be 'all' or a collection of special tokens such as "
                            f"('<unk>',), got {disallowed_special!r}")
        else:
            key = frozenset(disallowed_special)
        try:
            return self._special_regexes[key]
        except KeyError:
            pass
        unknown = sorted(t for t in key if t not in self._model.special_tokens)
        if unknown:
            raise ValueError(f"disallowed_special holds {unknown[0]!r}, which is not a special token of this tokenizer; "
                             f"its special tokens are tok.special_tokens_set ({len(self._model.special_tokens)} tokens)")
        regex = re.compile("|".join(map(re.escape, sorted(key, key=len, reverse=True)))) if key else None
        self._special_regexes[key] = regex
        return regex

    def clear_cache(self) -> None:
        """Empty the per-word cache."""
        self._cache.clear()
        if self._compiled is not None:
            self._compiled.clear_words()

    def _build_encoder(self) -> None:
        model, vocab, unit, mark = self._model, self._vocab, self._unit, self._mark
        triples = []
        specials = set(model.special_tokens)
        for a, b in model.merges:
            new = model.merged_token(a, b)
            if new in specials:  # only from a trainer older than cut_special_runs: never applied
                continue
            triples.append((vocab[a], vocab[b], vocab[new]))
        pairs: dict[tuple[int, int], tuple[int, int]] = {}
        for rank, (left_id, right_id, new_id) in enumerate(triples):
            pairs.setdefault((left_id, right_id), (rank, new_id))
        self._pairs = pairs
        # The path follows what the stages declare (korean_bpe.encoding.plan): the compiled core
        # cuts words into symbols itself when the unit says how and the marker glues nothing (its
        # word-start symbol, if any, in the vocabulary), and cuts the text too when the
        # pre-tokenizer's pieces are str.split(); otherwise Python cuts each new word
        # (_encode_word) and the core merges.  The same ids on every path.
        self._plan = plan(self._pre_tokenizer, unit, mark, vocab, compiled=_CompiledMergeTable is not None)
        self._fused = self._plan.fused
        self._compiled = None
        if _CompiledMergeTable is not None:
            self._compiled = _CompiledMergeTable(triples, {t: i for t, i in vocab.items() if len(t) == 1})
            self._compiled.set_vocab_size(len(vocab))
            if self._plan.symbols is not None:
                byte_ids = [vocab.get(s, -1) for s in unit.initial_alphabet] if self._plan.symbols == "bytes" else None
                self._compiled.set_symbols(self._plan.prefix_id, self._plan.symbols, byte_ids)

    def _symbols(self, word: str) -> tuple[str, ...]:
        return self._mark.apply(self._unit.split(word))

    def _encode_word(self, word: str) -> tuple[int, ...]:
        """Segment one word (a cache miss): symbols, their ids (``-1``: unknown), the merges."""
        get = self._vocab.get
        ids = [get(s, -1) for s in self._symbols(word)]
        if len(ids) > 1:
            ids = self._compiled.merge_ids(ids) if self._compiled is not None else merge_ids(ids, self._pairs)
        if -1 in ids:
            ids = self._resolve_unknown(ids, word)
        return tuple(ids)

    def _resolve_unknown(self, ids: list[int], word: str) -> list[int]:
        """Replace each ``-1`` (a symbol outside the vocabulary; they never merge, so the k-th
        ``-1`` is the k-th unknown symbol) by its Hangul fallback, ``<unk>`` or its UTF-8 byte tokens."""
        unknown = iter([s for s in self._symbols(word) if s not in self._vocab])
        out: list[int] = []
        for i in ids:
            if i >= 0:
                out.append(i)
            else:
                out += self._unknown_ids(next(unknown), word)
        return out

    def _unknown_ids(self, sym: str, word: str) -> list[int]:
        """The ids of a symbol outside the vocabulary (see :meth:`encode`)."""
        if self._hangul_fallback:
            vocab = self._vocab
            for pieces in _hangul_pieces(sym):
                if all(piece in vocab for piece in pieces):
                    return [vocab[piece] for piece in pieces]
        if self._byte_fallback:
            byte_ids = self._byte_ids
            return [byte_ids[b] for b in sym.encode("utf-8", "surrogatepass")]
        if self._unk_id >= 0:
            return [self._unk_id]
        raise ValueError(
            f"the symbol {sym!r} (in the word {word!r}) is not in the vocabulary and unk_token=None; "
            "use a tokenizer with an unk_token or byte_fallback=True"
        )

    # --- decoding ------------------------------------------------------------------------------

    def decode(self, ids: Iterable[int], *, skip_special_tokens: bool = False) -> str:
        """The text of ``ids``: tokens grouped into words by the marker, each word's symbols
        joined by the unit (jamo recomposed, bytes decoded), then ``pre_tokenizer.restore``.

        >>> tok = Tokenizer(BPEModel(("<unk>",), tuple("▁재밌다영화"), (("▁", "영"), ("▁영", "화"), ("재", "밌"))))
        >>> tok.decode([8, 1, 9, 4])
        '영화 재밌다'
        >>> tok.decode(tok.encode("영화관 재밌다")), tok.decode(tok.encode("영화관 재밌다"), skip_special_tokens=True)
        ('영화<unk> 재밌다', '영화 재밌다')
        """
        ids = list(ids)
        id_to_token = self._id_to_token
        n = len(id_to_token)
        if ids and not (all(type(i) is int for i in ids) and 0 <= min(ids) and max(ids) < n):
            for i in ids:
                try:
                    ok = 0 <= i < n and int(i) == i
                except TypeError:
                    ok = False
                if not ok:
                    raise ValueError(f"id {i!r} is not a token id of this tokenizer (0..{n - 1})")
            ids = [int(i) for i in ids]
        if self._literal_ids.isdisjoint(ids):
            tokens = [id_to_token[i] for i in ids]
        else:
            tokens = self._tokens_with_literals(ids, skip_special_tokens)
        join = self._unit.join
        words = [join(symbols) for symbols in self._mark.words(tokens)]
        if self._hangul_fallback and self._unit.name == "syllable":  # '가' 'ᆹ' -> '값'
            words = [compose(w) for w in words]
        return self._pre_tokenizer.restore(words)

    def decode_batch(self, batch: Iterable[Iterable[int]], *, skip_special_tokens: bool = False) -> list[str]:
        """``[decode(ids) for ids in batch]``."""
        return [self.decode(ids, skip_special_tokens=skip_special_tokens) for ids in batch]

    def _tokens_with_literals(self, ids: list[int], skip_special_tokens: bool) -> list[str]:
        """Tokens for ``decode`` when special or byte tokens occur: runs of byte tokens become the
        (marked) symbols they spell; specials are written in the unit's own symbols so that
        ``unit.join`` gives their text back."""
        id_to_token, byte_of, specials = self._id_to_token, self._byte_of_id, self._special_ids
        unit_split = self._unit.split
        tokens: list[str] = []
        pending = bytearray()

        def flush() -> None:
            if pending:
                # the bytes spell marked symbols of the unit itself (byte unit: its byte characters)
                tokens.extend(self._fallback_pieces(decode_utf8(pending)))
                pending.clear()

        for i in ids:
            b = byte_of.get(i)
            if b is not None:
                pending.append(b)
                continue
            flush()
            if i in specials:
                if not skip_special_tokens:
                    tokens.append("".join(unit_split(id_to_token[i])))
                continue
            tokens.append(id_to_token[i])
        flush()
        return tokens

    def _fallback_pieces(self, text: str) -> list[str]:
        """Cut the text of a byte-fallback run into the marked symbols it came from."""
        return self._mark.fallback_pieces(text)

    # --- files ---------------------------------------------------------------------------------

    def save(self, directory: str | Path) -> Path:
        """Write ``vocab.json``, ``merges.txt`` and ``tokenizer_config.json`` into ``directory``,
        atomically (see :mod:`korean_bpe.io.serialization`).  Returns the directory."""
        from .io.serialization import save_tokenizer

        return save_tokenizer(self, directory)

    @classmethod
    def load(cls, directory: str | Path) -> Tokenizer:
        """Rebuild a tokenizer written by :meth:`save`; corrupted files raise
        :class:`korean_bpe.io.ModelFileError` naming the file and the line."""
        from .io.serialization import load_tokenizer

        return load_tokenizer(directory, cls)

    def to_huggingface(self, path: str | Path, *, dropout: float | None = None) -> Path:
        """Write a Hugging Face ``tokenizer.json`` (see :mod:`korean_bpe.io.hf`).  Returns the path.
        A directory (an existing one, or ``"dir/"``) gets a complete HF tokenizer folder, loadable
        with ``AutoTokenizer.from_pretrained(dir)`` (:func:`korean_bpe.io.hf.export_folder`).

        ``dropout``: HF BPE's ``dropout`` (BPE-dropout on every ``encode`` of the loaded
        tokenizer, HF drawing its own random numbers: the ids vary like ours with
        ``encode(..., dropout=p)``, not the same draws).  ``None``: no dropout."""
        from .io.hf import export_tokenizer_json

        export_tokenizer_json(self, path, dropout=dropout)
        return Path(path)


# --- pure helpers --------------------------------------------------------------------------------


class SpecialTokenTextError(ValueError):
    """``encode`` was given a text that spells a disallowed special token; ``token`` and
    ``offset`` (in the text) say which and where."""

    def __init__(self, message: str, *, token: str, offset: int) -> None:
        super().__init__(message)
        self.token = token
        self.offset = offset


def _check_no_special(regex: re.Pattern[str], text: str, where: str) -> None:
    """Raise, as tiktoken does, when ``text`` spells a disallowed special token."""
    m = regex.search(text)
    if m is None:
        return
    token = m.group()
    raise SpecialTokenTextError(
        f"{where} holds {token!r}, the text of a special token, at offset {m.start()}; encode never turns text "
        f"into a special token. To encode it as ordinary text, pass disallowed_special=() (every special token's "
        f"text), or disallowed_special=tok.special_tokens_set - {{{token!r}}} (this one only); for the special "
        f"token itself, add its id, tok.token_to_id({token!r}), to the ids yourself",
        token=token, offset=m.start(),
    )




def _resolve_marker(marker: Any, pre_tokenizer: PreTokenizer, model: BPEModel | None) -> Marker:
    """The marker object for ``marker`` (default: :func:`default_marker`), checked against the
    pre-tokenizer (decode must be able to restore the text) and the model's prefix."""
    mark = get_marker(default_marker(pre_tokenizer) if marker is _UNSET else marker)
    mark.check_pre_tokenizer(pre_tokenizer)
    if model is not None:
        mark.check_model(model)
    return mark


def _check_dropout(dropout: Any, seed: Any) -> float:
    """``dropout`` as a float in [0, 1]; ``seed`` an int or None."""
    if isinstance(dropout, bool) or not isinstance(dropout, (int, float)) or not 0.0 <= dropout <= 1.0:
        raise ValueError(f"dropout must be a probability between 0 and 1 (e.g. dropout=0.1), got {dropout!r}")
    if seed is not None and (isinstance(seed, bool) or not isinstance(seed, int)):
        raise TypeError(f"seed must be an int or None, got {seed!r}")
    return float(dropout)


def _align_words(text: str, words: Sequence[str], pt: PreTokenizer) -> Iterator[tuple[str, list[int], int]]:
    """Each word with, for each of its characters, its index in ``text`` (``raw``'s dummy prefix:
    the character HF aligns it with), and where in ``text`` the word starts.
    Words are substrings of the text, with ``▁`` for a space where the pre-tokenizer marks
    spaces; they come in order.  How to find them follows the pre-tokenizer's declaration
    (``piece_kind``, as for :func:`korean_bpe.encoding.plan`): ``"marked"`` pieces keep every
    character, in order (a leading ``▁`` with no space under it when it declares
    ``add_dummy_prefix``, as ``raw`` does); other pieces are looked up in the text."""
    marked = getattr(pt, "piece_kind", "words") == "marked"
    dummy = marked and getattr(pt, "add_dummy_prefix", False) is True
    line_start = True
    cursor = 0
    n = len(text)
    for word in words:
        places: list[int] = []
        if marked:  # every character is kept, in order: raw, lossless morpheme mode, ...
            for k, ch in enumerate(word):
                if k == 0 and dummy and line_start and ch == SPACE_MARK:
                    # stands for no character; HF aligns it with the line's first character
                    # (text start) or with the line break before it: so do we
                    places.append(cursor if cursor == 0 else cursor - 1)
                    continue
                if cursor < n and (text[cursor] == ch or (ch == SPACE_MARK and text[cursor] == " ")):
                    places.append(cursor)
                    cursor += 1
                else:
                    raise ValueError(_not_a_slice(pt, word, cursor))
            line_start = word in LINE_BREAKS
            start = places[0] if places else cursor
        else:  # words are substrings, in order, with dropped characters between them
            at = text.find(word, cursor)
            if at < 0:
                raise ValueError(_not_a_slice(pt, word, cursor))
            places = list(range(at, at + len(word)))
            cursor = at + len(word)
            start = at
        yield word, places, start


def _not_a_slice(pt: PreTokenizer, word: str, cursor: int) -> str:
    return (f"encode_with_offsets: the pre-tokenizer {pt!r} gave the word {word!r}, which is not the text from offset "
            f"{cursor} on; offsets need words cut out of the text (okt with norm=True or stem=True rewrites them: "
            "use norm=False, stem=False)")


def _check_hangul_option(hangul_fallback: Any, unit: Unit, marker: Any, pt: PreTokenizer,
                         limit_alphabet: int | None) -> None:
    """The training option ``hangul_fallback``: a bool, a unit and marker it works with, room for the jamo."""
    if not isinstance(hangul_fallback, bool):
        raise TypeError(f"hangul_fallback must be True or False, got {hangul_fallback!r}")
    if not hangul_fallback:
        return
    _check_hangul_fallback(unit, _resolve_marker(marker, pt, None))
    if limit_alphabet is not None and limit_alphabet < len(JAMO_ALPHABET):
        raise ValueError(f"hangul_fallback=True keeps the {len(JAMO_ALPHABET)} jamo in the alphabet, first: "
                         f"limit_alphabet={limit_alphabet} is too small; use limit_alphabet >= "
                         f"{len(JAMO_ALPHABET)} (the rest goes to the most frequent symbols)")


def _check_hangul_fallback(unit: Unit, mark: Marker) -> None:
    name = getattr(unit, "name", None)
    if name not in ("syllable", "jamo"):
        raise ValueError(f"hangul_fallback=True needs the 'syllable' or 'jamo' unit, not {name!r}: the byte unit "
                         "never has an unknown symbol")
    if mark.glued:
        raise ValueError(f"hangul_fallback=True works with marker '▁' or None, not {mark.text!r} (a jamo glued to "
                         "'##' or '</w>' is a different token)")


def _hangul_pieces(sym: str) -> tuple[tuple[str, ...], ...]:
    """How :attr:`Tokenizer.hangul_fallback` may spell the syllable ``sym``, best first: the
    syllable without its 종성 + the 종성 jamo (``'값'`` -> ``'가' 'ᆹ'``, as kiwipiepy's
    ``fallback_hangul``), then its two or three conjoining jamo; ``()`` for anything else.

    >>> _hangul_pieces("값") == (("가", "\u11b9"), ("\u1100", "\u1161", "\u11b9"))
    True
    >>> _hangul_pieces("가") == (("\u1100", "\u1161"),)
    True
    """
    s = ord(sym) - S_BASE if len(sym) == 1 else -1
    if not 0 <= s < S_COUNT:
        return ()
    jamo = tuple(decompose(sym))
    if s % T_COUNT:
        return (chr(S_BASE + s - s % T_COUNT), jamo[2]), jamo
    return (jamo,)


def _check_model(model: BPEModel) -> None:
    """Every merge joins tokens that exist before it; no merged token breaks merges.txt.

    Alphabet tokens that no merge uses may hold anything (a raw line-break piece is one):
    vocab.json escapes them.  The common case (a sound model) is checked all at once; a problem
    is then located, merge by merge, for the message.
    """
    merges = model.merges
    parts = [part for merge in merges for part in merge]
    if "" not in parts and not _UNWRITABLE.search("\x00".join(parts)):
        known = set(model.special_tokens) | set(model.alphabet)
        merged = model.merged_token
        add = known.add
        for a, b in merges:
            if a not in known or b not in known:
                break
            add(merged(a, b))
        else:
            return
    known = set(model.special_tokens) | set(model.alphabet)
    for rank, (a, b) in enumerate(merges):
        for part in (a, b):
            check_writable_token(part, where=f"merge {rank} ({a!r}, {b!r})")
            if part not in known:
                raise ValueError(
                    f"merge {rank} ({a!r}, {b!r}) uses {part!r}, which is neither in the alphabet nor made by "
                    "an earlier merge"
                )
        known.add(model.merged_token(a, b))
    raise AssertionError("unreachable: the fast check found a problem the slow one did not")  # pragma: no cover


def _special_tokens(special_tokens: Sequence[str], unk_token: str | None, byte_fallback: bool) -> tuple[str, ...]:
    if isinstance(special_tokens, str):
        raise TypeError(f"special_tokens must be a sequence of strings, got the string {special_tokens!r}; "
                        f"write special_tokens=({special_tokens!r},)")
    specials = list(dict.fromkeys(special_tokens))
    if unk_token is not None and unk_token not in specials:
        specials.insert(0, unk_token)
    if byte_fallback:
        specials += [t for t in BYTE_TOKENS if t not in specials]
    return tuple(specials)


def _initial_alphabet(unit: Unit, mark: Marker) -> tuple[str, ...]:
    """The unit's own initial alphabet (the byte unit: all 256 bytes), with the marked forms too
    when the marker glues onto symbols (``'##ì'``, ``'ì</w>'``), so that every text stays encodable."""
    return mark.marked_alphabet(getattr(unit, "initial_alphabet", ()))


@contextmanager
def _gc_paused() -> Iterator[None]:
    """Pause the cyclic garbage collector while training (hundreds of thousands of word tuples and
    lists, no cycles: each collection would only walk them again), restored afterwards, also on
    error (as :func:`korean_bpe.trainer.train_bpe` does for its part)."""
    was_enabled = gc.isenabled()
    gc.disable()
    try:
        yield
    finally:
        if was_enabled:
            gc.enable()


def _split_for_training(
    counts: Mapping[str, int], pt: PreTokenizer, unit: Any, marker: Any
) -> tuple[Unit, Marker, Mapping[tuple[str, ...], int]]:
    """The unit, the resolved marker and ``{marked symbols: count}`` of the words, checked (a dict,
    or a read-only :class:`korean_bpe.trainer.fast.SymbolCounts`: see :func:`korean_bpe.counting.split_words`)."""
    from .counting import split_words

    unit_ = get_unit(unit)
    marker_ = _resolve_marker(marker, pt, None)
    word_counts = split_words(counts, unit_, marker=marker_)
    _check_symbols(word_counts, counts, pt, unit_, marker_)
    return unit_, marker_, word_counts


def _check_train_options(byte_fallback: Any, unit: Any, marker: Any, pt: PreTokenizer) -> None:
    """Refuse bad options before counting (which may take hours with an analyzer)."""
    if not isinstance(byte_fallback, bool):
        raise TypeError(f"byte_fallback must be True or False, got {byte_fallback!r}")
    get_unit(unit)
    _resolve_marker(marker, pt, None)


def _check_symbols(
    word_counts: Mapping[tuple[str, ...], int], counts: Mapping[str, int], pt: PreTokenizer, unit: Unit,
    mark: Marker,
) -> None:
    """Only symbols that can enter a merge must fit a merges.txt line: a word of one symbol (a
    raw line-break piece such as ``"\x0c"``) is never merged, and vocab.json holds any string.
    A symbol holds a space or a line break only if its word does (markers hold neither), so the
    words are searched first, all at once."""
    from .counting import holds_any

    if not holds_any(counts, " " + LINE_BREAKS):
        return
    for sym in {s for key in word_counts if len(key) > 1 for s in key}:
        try:
            check_writable_token(sym, where="symbol")
        except ValueError:
            word = next(w for w in counts if sym in mark.apply(unit.split(w)))
            source = (f"the pre-tokenizer {pt!r} gave the word {word!r}, whose symbol" if sym in word else
                      f"the {unit.name} unit with marker={mark.text!r} made, from the word {word!r}, the symbol")
            check_writable_token(sym, where=source)


def _no_words_message(pt: PreTokenizer, sample: Sequence[str]) -> str:
    """Why training found no word: blank texts, or an analysis that dropped every morpheme
    (naming the tags it saw, with an example each, and the two ways to keep them)."""
    if not sample:
        return "no words to train on: texts is empty or holds only white space"
    pos = getattr(pt, "pos", None)
    drop = getattr(pt, "drop", ())
    if callable(pos) and drop:
        tags: dict[str, str] = {}
        for text in sample:
            for surface, tag in pos(text):
                if surface and not surface.isspace():
                    tags.setdefault(tag, surface)
        name = pt.to_config()["type"]
        shown = ", ".join(f"{tag} ({surface!r})" for tag, surface in sorted(tags.items()))
        return (
            f"no words to train on: the {name} analysis dropped everything; the texts hold only morphemes tagged "
            f"{shown or 'nothing'}, which its drop option removes ({pt!r}); keep them with "
            f"pre_tokenizer={{'type': {name!r}, 'drop': []}} or pre_tokenizer={{'type': {name!r}, 'lossless': True}}"
        )
    return (f"no words to train on: the pre-tokenizer {pt!r} gave no word for any text, e.g. {sample[0][:40]!r}; "
            "use one that keeps what these texts hold")
