"""``Tokenizer``: a record of stages (pre-tokenizer, unit, marker, model), trained, applied, saved.

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

The pipeline, each stage in a room of its own (docs/API.md tells each one's contract):

1. ``pre_tokenizer`` cuts the text into words (:mod:`korean_bpe.pre_tokenizers`);
2. ``unit`` cuts each word into symbols (:mod:`korean_bpe.units`), ``marker`` marks the word
   boundaries (:mod:`korean_bpe.markers`);
3. the encoder merges them by rank and caches each distinct word (:mod:`korean_bpe.encoding.encoder`;
   the path follows what the stages declare, :func:`korean_bpe.encoding.plan`);
4. symbols outside the vocabulary go to Hangul fallback, byte fallback or ``<unk>``
   (:mod:`korean_bpe.encoding.fallback`);
5. ``decode`` runs it backwards (:mod:`korean_bpe.encoding.decoder`), ``encode_with_offsets``
   reads :mod:`korean_bpe.encoding.offsets`, special-token text is refused by
   :mod:`korean_bpe.encoding.specials`, and training is :mod:`korean_bpe.trainer.pipeline`.

``decode(encode(x)) == x`` when the pipeline is lossless: ``raw`` (text without U+2581) or a
lossless morpheme mode, any unit, with ``byte_fallback=True`` or a text whose symbols are all in
the alphabet.  ``whitespace`` gives the text back with every run of white space made one space;
``jamo`` gives Hangul back precomposed (NFD input comes back NFC).

Special tokens are never text: ``encode`` refuses a text that spells one, as tiktoken does;
``disallowed_special=()`` encodes such text as ordinary text.

>>> tok.encode("영화 <unk>")
Traceback (most recent call last):
...
korean_bpe.encoding.specials.SpecialTokenTextError: the text holds '<unk>', the text of a special token, at offset 3; encode never turns text into a special token. To encode it as ordinary text, pass disallowed_special=() (every special token's text), or disallowed_special=tok.special_tokens_set - {'<unk>'} (this one only); for the special token itself, add its id, tok.token_to_id('<unk>'), to the ids yourself
>>> tok.tokenize("영화 <unk>", disallowed_special=())
['▁영화', '▁', '<unk>', '<unk>', '<unk>', '<unk>', '<unk>']
"""

from __future__ import annotations

import random
import threading
from collections.abc import Callable, Iterable, Mapping, Sequence
from functools import partial
from pathlib import Path
from typing import TYPE_CHECKING, Any

from ._threads import resolve_threads
from .encoding.decoder import Decoder
from .encoding.encoder import Encoder, only_str
from .encoding.fallback import Fallback
from .encoding.flat import FlatIds, id_dtype
from .encoding.offsets import View, token_offsets
from .encoding.specials import Disallowed, SpecialTokens, SpecialTokenTextError
from .io.format import first_unknown
from .tokens import BYTE_TOKENS, UNWRITABLE, check_writable_token, plain_text
from .jamo import JAMO_ALPHABET
from .markers import Marker
from .pre_tokenizers.base import PreTokenizer, get_pre_tokenizer
from .trainer.model import BPEModel
from .trainer.pipeline import UNSET, TrainOptions, Trained, resolve_marker, train_counts, train_texts
from .units import Unit, get_unit

if TYPE_CHECKING:  # pragma: no cover
    from .counting import WordCounts
    from .progress import Progress
    from .trainer.api import OnMerge

__all__ = ["Tokenizer", "SpecialTokenTextError", "BYTE_TOKENS", "JAMO_ALPHABET", "default_marker", "check_writable_token",
           "DEFAULT_CACHE_SIZE"]

#: Words kept in the per-word cache before it is emptied (about 100 bytes a word).
DEFAULT_CACHE_SIZE = 1 << 19


def default_marker(pre_tokenizer: PreTokenizer) -> str | None:
    """The word marker a pre-tokenizer needs so that ``decode`` can restore the text: ``"▁"``
    when it drops the spaces (``whitespace``, analysis mode), ``None`` when its pieces keep them.

    >>> default_marker(get_pre_tokenizer("whitespace")), default_marker(get_pre_tokenizer("raw"))
    ('▁', None)
    """
    return resolve_marker(UNSET, pre_tokenizer, None).text


def _plain_strings(texts: list[Any]) -> list[str]:
    """``texts`` with each ``str`` subclass made a ``str`` (its text, :func:`~korean_bpe.tokens.plain_text`);
    refuses any other item, naming it."""
    out = []
    for k, t in enumerate(texts):
        if not isinstance(t, str):
            raise TypeError(f"texts must hold strings; texts[{k}] is {type(t).__name__} {t!r}")
        out.append(plain_text(t))
    return out


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
        marker: str | Marker | None = UNSET,
        byte_fallback: bool = False,
        unk_token: str | None = "<unk>",
        hangul_fallback: bool = False,
        cache_size: int = DEFAULT_CACHE_SIZE,
    ) -> None:
        if not isinstance(model, BPEModel):
            raise TypeError(f"model must be a korean_bpe.BPEModel, got {type(model).__name__}; "
                            "train one with Tokenizer.train(texts, vocab_size=...) or korean_bpe.train_bpe")
        if not isinstance(cache_size, int) or isinstance(cache_size, bool) or cache_size < 1:
            raise ValueError(f"cache_size must be an int >= 1, got {cache_size!r}")
        _check_model(model)
        self._build(model, pre_tokenizer=pre_tokenizer, unit=unit, marker=marker, byte_fallback=byte_fallback,
                    unk_token=unk_token, hangul_fallback=hangul_fallback, cache_size=cache_size)
        self._encoder  # built now: a model from elsewhere (a file, a user) is refused here, not at its first encode

    def _build(self, model: BPEModel, *, pre_tokenizer: Any, unit: Any, marker: Any, byte_fallback: bool,
               unk_token: str | None, hangul_fallback: bool, cache_size: int) -> None:
        """The stages over a checked ``model`` (``__init__`` checks it; a model just trained is
        checked by construction: :meth:`_from_trained`)."""
        self._model = model
        self._pre_tokenizer = get_pre_tokenizer(pre_tokenizer)
        self._unit = get_unit(unit)
        self._mark = resolve_marker(marker, self._pre_tokenizer, model)
        self._vocab = model.vocab
        stages = dict(pre_tokenizer=self._pre_tokenizer, unit=self._unit, marker=self._mark)
        self._fallback = Fallback(self._vocab, unk_token=unk_token, byte_fallback=byte_fallback,
                                  hangul_fallback=hangul_fallback, special_tokens=model.special_tokens,
                                  unit=self._unit, marker=self._mark)
        self._specials = SpecialTokens(model.special_tokens)
        self._cache_size = cache_size
        self._built_encoder: Encoder | None = None
        self._encoder_lock = threading.Lock()
        self._decoder = Decoder(model.id_to_token, fallback=self._fallback, **stages)

    @property
    def _encoder(self) -> Encoder:
        """The encoder (its merge table, compiled when built), made on first use: a training that
        only saves its model never needs it (16-26 ms of a 32k syllable training on NSMC, 3-4%).
        One thread builds it; the others wait for it."""
        encoder = self._built_encoder
        if encoder is None:
            with self._encoder_lock:
                if self._built_encoder is None:
                    self._built_encoder = Encoder(self._model, self._vocab, pre_tokenizer=self._pre_tokenizer,
                                                  unit=self._unit, marker=self._mark, fallback=self._fallback,
                                                  cache_size=self._cache_size)
                encoder = self._built_encoder
        return encoder

    # --- training ------------------------------------------------------------------------------

    @classmethod
    def train(
        cls,
        texts: Iterable[str],
        *,
        vocab_size: int,
        pre_tokenizer: str | Mapping[str, Any] | PreTokenizer = UNSET,
        unit: str | Mapping[str, Any] | Unit = UNSET,
        marker: str | Marker | None = UNSET,
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
        superword_transition: int | None = None,
        superword_max_words: int | None = 4,
        num_threads: int | None = None,
    ) -> Tokenizer:
        """Train on ``texts`` (any iterable of strings: a list, or a generator over a huge file).

        Only the distinct words are kept, with their counts: memory grows with the vocabulary of
        the corpus, not with its length (:mod:`korean_bpe.trainer.pipeline` tells the steps).
        ``pre_tokenizer`` defaults to ``"whitespace"``, ``unit`` to ``"syllable"``.

        ``vocab_size`` counts special tokens + alphabet + merges, as HF does.  ``unk_token`` is
        added in front of ``special_tokens`` when missing.  ``byte_fallback=True`` adds the 256
        :data:`BYTE_TOKENS` right after the special tokens.  ``max_token_length``: no token spans
        more than that many of the unit's symbols (see :func:`korean_bpe.trainer.train_bpe`).
        ``hangul_fallback=True`` adds the 67 conjoining jamo of :data:`JAMO_ALPHABET` to the
        alphabet and makes the tokenizer spell unknown syllables with them (see :meth:`encode`).

        >>> from korean_bpe.jamo import decompose
        >>> lines = (line for line in ["ㅋㅋㅋ 진짜 웃기다", "ㅋㅋ 웃기다 ㅠㅠ"] * 4)   # a generator
        >>> tok = Tokenizer.train(lines, vocab_size=30, unit="jamo")
        >>> tok.tokenize("ㅋㅋ 웃기다") == ["▁ㅋㅋ", "▁" + decompose("웃기다")]    # tokens are jamo strings
        True
        >>> [len(t) for t in tok.tokenize("웃겨")]  # ▁우 ᆺ ᄀ <unk>: the vowel ᅧ was never seen
        [3, 1, 1, 5]

        ``show_progress``: progress bars on stderr (None: when it is a terminal), or any
        :class:`korean_bpe.progress.Progress`.  ``on_merge(rank, (left, right), count)`` is called
        after each merge (``rank``: its index in ``tok.merges``; ``count``: the pair's occurrences).

        >>> heard = []
        >>> tok = Tokenizer.train(["재밌다 재밌어요"] * 3, vocab_size=12, on_merge=lambda *a: heard.append(a))
        >>> heard[:2]
        [(0, ('▁', '재'), 6), (1, ('▁재', '밌'), 6)]

        ``initial=tok`` continues training ``tok`` (:mod:`korean_bpe.trainer.continued`): every old
        id and merge is kept, old text encodes to the same tokens or fewer; symbols outside
        ``tok``'s alphabet stay unknown.  The stages and fallbacks default to ``tok``'s and must
        match them; ``limit_alphabet`` and ``max_token_length`` are refused.

        >>> law = Tokenizer.train(["법률 제정", "법률 개정"] * 3, vocab_size=10)
        >>> more = Tokenizer.train(["법률 개정안 제출", "개정안 제출"] * 3, vocab_size=16, initial=law)
        >>> more.id_to_token[:law.vocab_size] == law.id_to_token, more.merges[:len(law.merges)] == law.merges
        (True, True)
        >>> law.tokenize("법률 개정안"), more.tokenize("법률 개정안")      # 안 is not in law's alphabet
        (['▁법률', '▁개', '정', '<unk>'], ['▁법률', '▁개정', '<unk>'])

        ``superword_transition=t`` trains SuperBPE (:mod:`korean_bpe.trainer.superbpe`): merges stay
        inside words up to ``t`` tokens, then cross spaces, a token holding at most
        ``superword_max_words`` word starts ``▁`` (None: no limit); the pre-tokenizer is ``raw``
        without ``split_by_whitespace`` (one piece a line), and the export is a plain ``tokenizer.json``.

        >>> texts = ["할 수 있다", "할 수 없다", "볼 수 있다"] * 3
        >>> Tokenizer.train(texts, vocab_size=20, superword_transition=14).tokenize("할 수 있다")
        ['▁할▁수▁있다']
        >>> Tokenizer.train(texts, vocab_size=20, superword_transition=14, superword_max_words=2).tokenize("할 수 있다")
        ['▁할', '▁수▁있다']

        ``num_threads``: threads for the compiled steps around the merge loop (counting the words for
        ``whitespace`` and ``raw``, the engine's words and initial pair index; ``None``: every core,
        or ``KOREAN_BPE_NUM_THREADS``; ``1``: one); the merge loop is one thread, and the model is the same
        whatever the number.  Analyzer pre-tokenizers count through their own process pools.
        """
        if initial is not None and not isinstance(initial, Tokenizer):
            raise TypeError(f"initial must be a korean_bpe.Tokenizer (Tokenizer.load(dir)), got {type(initial).__name__}")
        options = TrainOptions(vocab_size=vocab_size, min_frequency=min_frequency, special_tokens=special_tokens,
                               byte_fallback=byte_fallback, hangul_fallback=hangul_fallback,
                               limit_alphabet=limit_alphabet, max_token_length=max_token_length, unk_token=unk_token,
                               superword_transition=superword_transition, superword_max_words=superword_max_words)
        return cls._from_trained(train_texts(texts, options, pre_tokenizer=pre_tokenizer, unit=unit, marker=marker,
                                             initial=initial, show_progress=show_progress, on_merge=on_merge,
                                             num_threads=num_threads))

    @classmethod
    def train_from_counts(
        cls,
        counts: WordCounts,
        *,
        vocab_size: int,
        pre_tokenizer: str | Mapping[str, Any] | PreTokenizer | None = None,
        unit: str | Mapping[str, Any] | Unit = "syllable",
        marker: str | Marker | None = UNSET,
        min_frequency: int = 2,
        special_tokens: Sequence[str] = ("<unk>",),
        byte_fallback: bool = False,
        limit_alphabet: int | None = None,
        max_token_length: int | None = None,
        unk_token: str | None = "<unk>",
        hangul_fallback: bool = False,
        show_progress: bool | Progress | None = None,
        on_merge: OnMerge | None = None,
        num_threads: int | None = None,
    ) -> Tokenizer:
        """Train on word counts (:class:`korean_bpe.counting.WordCounts`, e.g. read from a file
        written by ``korean-bpe count``): the same model as :meth:`train` on the texts counted.

        The tokenizer cuts texts with the pre-tokenizer the counts were made with;
        ``pre_tokenizer``, when given, must be that one, else ``ValueError``.  The other options
        are :meth:`train`'s (``num_threads``: for the symbol split and the engine's set-up).

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
        options = TrainOptions(vocab_size=vocab_size, min_frequency=min_frequency, special_tokens=special_tokens,
                               byte_fallback=byte_fallback, hangul_fallback=hangul_fallback,
                               limit_alphabet=limit_alphabet, max_token_length=max_token_length, unk_token=unk_token)
        return cls._from_trained(train_counts(counts, options, pre_tokenizer=pre_tokenizer, unit=unit, marker=marker,
                                              show_progress=show_progress, on_merge=on_merge, num_threads=num_threads))

    @classmethod
    def _from_trained(cls, trained: Trained) -> Tokenizer:
        """The tokenizer of a model the trainer just made: its merges are not checked again (each
        joins tokens made before it by construction; ``tests/test_trainer.py`` checks that rule on
        every trained model): 23 ms of a 32k training on NSMC (about 3%)."""
        opts = trained.options
        tok = cls.__new__(cls)
        tok._build(trained.model, pre_tokenizer=trained.pre_tokenizer, unit=trained.unit, marker=trained.marker,
                   byte_fallback=opts.byte_fallback, unk_token=opts.unk_token, hangul_fallback=opts.hangul_fallback,
                   cache_size=DEFAULT_CACHE_SIZE)
        return tok

    @classmethod
    def _from_file(cls, model: BPEModel, **options: Any) -> Tokenizer:
        """The tokenizer of a model read from a ``merges.txt`` whose merge chain was checked line by
        line as it was read (:func:`korean_bpe.io.format.parse_merges`): ``__init__`` less that
        check done again (about a tenth of ``Tokenizer.load``: 17.4 -> 16.1 ms for an 8k NSMC
        model, 119-130 -> 103-113 ms for a 32k one)."""
        _check_writable(model)
        tok = cls.__new__(cls)
        tok._build(model, cache_size=DEFAULT_CACHE_SIZE, **options)
        tok._encoder  # built now, as __init__ does: a bad model from a file is refused where it is read
        return tok

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
        return len(self._model.id_to_token)

    @property
    def id_to_token(self) -> tuple[str, ...]:
        """id -> token: ``tok.id_to_token[5]``."""
        return self._model.id_to_token

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
        return self._mark.text

    @property
    def word_marker(self) -> Marker:
        """The marker object behind :attr:`marker` (:class:`korean_bpe.markers.Marker`), as the
        encoder, the decoder and continued training apply it."""
        return self._mark

    @property
    def byte_fallback(self) -> bool:
        return self._fallback.byte_fallback

    @property
    def hangul_fallback(self) -> bool:
        return self._fallback.hangul_fallback

    @property
    def unk_token(self) -> str | None:
        return self._fallback.unk_token

    @property
    def special_tokens(self) -> tuple[str, ...]:
        """The model's special tokens (``<unk>``, ...), without the 256 byte-fallback tokens."""
        return self._fallback.special_tokens

    @property
    def special_tokens_set(self) -> frozenset[str]:
        """Every token whose text ``encode`` refuses by default: the special tokens and, with
        byte fallback, the 256 byte tokens (tiktoken's name)."""
        return self._specials.tokens

    def token_to_id(self, token: str) -> int | None:
        """The id of ``token``, or ``None``."""
        return self._vocab.get(token)

    def __reduce__(self) -> tuple[Any, ...]:
        """Pickle and copy keep the model and the stages only: the encoder's compiled merge table,
        the caches and the decoder are derived from them, so the copy (in this process or another:
        spawn pools, ``datasets.map(num_proc=...)``, DataLoader workers) rebuilds them and gives
        the same ids.

        >>> import pickle
        >>> tok = Tokenizer(BPEModel(("<unk>",), tuple("▁재밌다"), (("재", "밌"),)))
        >>> pickle.loads(pickle.dumps(tok)).tokenize("재밌다")
        ['▁', '재밌', '다']
        """
        options = dict(pre_tokenizer=self._pre_tokenizer, unit=self._unit, marker=self._mark,
                       byte_fallback=self.byte_fallback, unk_token=self.unk_token, hangul_fallback=self.hangul_fallback,
                       cache_size=self._cache_size)
        return (_rebuild, (type(self), self._model, options))

    def __repr__(self) -> str:
        return (f"Tokenizer(vocab_size={self.vocab_size}, pre_tokenizer={self._pre_tokenizer!r}, "
                f"unit={self._unit!r}, marker={self.marker!r}, byte_fallback={self.byte_fallback}"
                + (", hangul_fallback=True)" if self.hangul_fallback else ")"))

    # --- encoding ------------------------------------------------------------------------------

    def encode(self, text: str, *, disallowed_special: Disallowed = "all", dropout: float = 0.0,
               seed: int | None = None) -> list[int]:
        """Token ids of ``text``.

        ``disallowed_special``: the special tokens whose text ``text`` must not hold (a
        :class:`SpecialTokenTextError` names the token and the fixes); ``"all"`` (default) is
        :attr:`special_tokens_set`; ``()``: encode every special token's text as ordinary text.

        >>> tok = Tokenizer(BPEModel(("<unk>",), tuple("▁재밌다영화"), (("▁", "영"), ("▁영", "화"), ("재", "밌"))))
        >>> tok.encode("영화 재밌다")
        [8, 1, 9, 4]
        >>> tok.tokenize("영화 재밌다")
        ['▁영화', '▁', '재밌', '다']

        ``dropout=p`` (BPE-dropout, Provilkov et al. 2020, as HF ``tokenizers`` applies it): while
        merging a word, each candidate merge is skipped with probability ``p``
        (:func:`korean_bpe.encoding.merge_dropout`).  The draws come from ``random.Random(seed)``,
        made afresh for each call: the same ``seed`` gives the same ids, ``seed=None`` fresh ones;
        ``dropout=0`` is the ordinary encoding, ``dropout=1`` the unit symbols.  ``decode`` gives the
        same text back whatever the segmentation:

        >>> tok.tokenize("재밌다", dropout=1.0)
        ['▁', '재', '밌', '다']
        >>> tok.decode(tok.encode("영화 재밌다", dropout=0.5, seed=1))
        '영화 재밌다'

        With :attr:`hangul_fallback`, a Hangul syllable outside the vocabulary is spelled, before
        ``<unk>`` or byte fallback are tried, as the syllable without its 종성 and the 종성 jamo
        (``'값'`` -> ``'가' 'ᆹ'``), else as its jamo (:mod:`korean_bpe.encoding.fallback`);
        ``decode`` recomposes them, so the text comes back exactly.

        >>> fb = Tokenizer(BPEModel(("<unk>",), ("▁", "가", *JAMO_ALPHABET), ()), hangul_fallback=True)
        >>> [f"U+{ord(t):04X}" for t in fb.tokenize("값 뷁")]      # ▁ 가 ᆹ ▁ ᄇ ᅰ ᆰ
        ['U+2581', 'U+AC00', 'U+11B9', 'U+2581', 'U+1107', 'U+1170', 'U+11B0']
        >>> fb.decode(fb.encode("값 뷁"))
        '값 뷁'
        """
        if type(text) is not str:
            if not isinstance(text, str):
                raise TypeError(f"text must be a str, got {type(text).__name__}; use encode_batch for many texts")
            text = plain_text(text)  # a str subclass: its text (the compiled core reads plain str)
        self._specials.check(text, disallowed_special)
        return self._encode([text], dropout, seed, 1)[0]

    def encode_batch(self, texts: Sequence[str], *, disallowed_special: Disallowed = "all", dropout: float = 0.0,
                     seed: int | None = None, num_threads: int | None = None) -> list[list[int]]:
        """``[encode(t) for t in texts]``, pre-tokenizing with one ``pre_tokenizer.batch`` call.
        With ``dropout``, one ``random.Random(seed)`` serves the whole batch, text after text.

        ``num_threads``: how many threads encode the batch (default: every core, or the
        environment variable ``KOREAN_BPE_NUM_THREADS``; ``1``: the calling thread alone).  The
        ids are the same for any number.  Threads help where the compiled core merges without the
        GIL: every unit with the ``raw`` and ``whitespace`` pre-tokenizers (the core cuts the
        text too), and the merging of an analyzer's pieces (the analysis itself runs as before,
        in ``jobs`` processes where the pre-tokenizer has them).  A batch under about 32,000
        characters is encoded by the calling thread alone; BPE-dropout, a marker or unit the core
        does not know, and the pure-Python fallback run on one thread.

        >>> tok = Tokenizer(BPEModel(("<unk>",), tuple("▁재밌다영화"), (("▁", "영"), ("▁영", "화"), ("재", "밌"))))
        >>> tok.encode_batch(["영화 재밌다", "재밌다"], num_threads=2)
        [[8, 1, 9, 4], [1, 9, 4]]
        """
        texts, threads, check = self._batch(texts, disallowed_special, num_threads)
        return self._encode(texts, dropout, seed, threads, check=check)

    def encode_batch_flat(self, texts: Sequence[str], *, disallowed_special: Disallowed = "all",
                          num_threads: int | None = None) -> FlatIds:
        """``(ids, starts)``: the ids of :meth:`encode_batch` in one NumPy array, text ``k``'s
        ids being ``ids[starts[k]:starts[k + 1]]`` (:class:`~korean_bpe.encoding.flat.FlatIds`).
        ``ids`` is ``uint16`` when the vocabulary has at most 65,536 tokens, else ``uint32``;
        ``starts`` is ``int64``, ``len(texts) + 1`` items.  What a language-model training script
        wants of a corpus (``korean-bpe encode --npy`` writes it to files), without the Python
        list a text and ``int`` a token that :meth:`encode_batch` makes.

        ``disallowed_special`` and ``num_threads`` are :meth:`encode_batch`'s; the ids are the
        same for any number of threads.  With the ``raw`` and ``whitespace`` pre-tokenizers and
        the compiled core, the threads merge chunks of the batch as for :meth:`encode_batch` and
        the calling thread copies each chunk's ids into the array (no Python object a token)
        while they merge the next; an analyzer (Okt, Kiwi, MeCab) analyses the texts as
        :meth:`encode_batch` does, then its pieces take the same road.  A unit or marker the compiled core does not know (``</w>``,
        ``##``, a unit of your own) and the pure-Python fallback (no compiler) make the lists
        first and copy them: the same arrays, no faster than :meth:`encode_batch`.

        >>> tok = Tokenizer(BPEModel(("<unk>",), tuple("▁재밌다영화"), (("▁", "영"), ("▁영", "화"), ("재", "밌"))))
        >>> ids, starts = tok.encode_batch_flat(["영화 재밌다", "", "재밌다"])
        >>> ids, starts
        (array([8, 1, 9, 4, 1, 9, 4], dtype=uint16), array([0, 4, 4, 7]))
        >>> ids[starts[2]:starts[3]].tolist() == tok.encode("재밌다")
        True
        """
        texts, threads, check = self._batch(texts, disallowed_special, num_threads)
        return self._encoder.encode_texts_flat(texts, dtype=id_dtype(self.vocab_size), num_threads=threads,
                                               check=check)

    def _batch(self, texts: Sequence[str], disallowed_special: Disallowed,
               num_threads: int | None) -> tuple[list[str], int, Any]:
        """What :meth:`encode_batch` and :meth:`encode_batch_flat` check before any work: the texts as
        a list of plain strings, the number of threads, and the check of special-token text."""
        if isinstance(texts, str):
            raise TypeError("texts must be a sequence of strings, not a single string; use encode(text)")
        texts = texts if isinstance(texts, list) else list(texts)
        if not only_str(texts):
            texts = _plain_strings(texts)
        threads = resolve_threads(num_threads)
        self._specials.regex(disallowed_special)  # a bad value refused before any work
        return texts, threads, partial(self._specials.check_all, texts, disallowed_special)

    def _encode(self, texts: list[str], dropout: Any, seed: Any, num_threads: int,
                check: Callable[[], None] | None = None) -> list[list[int]]:
        """The one encode, the special-token check (``check()``) done before any id is returned
        (while the threads merge, where there are threads): the encoder, with or without dropout."""
        p = _check_dropout(dropout, seed)
        if p:
            if check is not None:
                check()
            return self._encoder.encode_dropout(self._pre_tokenizer.batch(texts), p, random.Random(seed))
        return self._encoder.encode_texts(texts, num_threads=num_threads, check=check)

    def encode_pretokenized(self, batch: Sequence[list[str]], *, num_threads: int | None = None,
                            dropout: float = 0.0, seed: int | None = None) -> list[list[int]]:
        """The ids of texts already cut into words by this tokenizer's pre-tokenizer: ``encode_batch``
        without its ``pre_tokenizer.batch`` step (an analysis computed once serves several
        tokenizers), the same ids, each distinct word segmented once.  Special tokens' text is
        ordinary text here (no ``disallowed_special`` check: the words are the pre-tokenizer's).
        ``dropout`` and ``seed``: BPE-dropout as :meth:`encode_batch` applies it (the same draws, so
        the same ids as ``encode_batch(texts, dropout=p, seed=s)``; every word merged afresh, by the
        calling thread).

        >>> tok = Tokenizer(BPEModel(("<unk>",), tuple("▁재밌다영화"), (("▁", "영"), ("▁영", "화"), ("재", "밌"))))
        >>> words = tok.pre_tokenizer.batch(["영화 재밌다"])
        >>> words, tok.encode_pretokenized(words) == tok.encode_batch(["영화 재밌다"])
        ([['영화', '재밌다']], True)
        >>> tok.encode_pretokenized(words, dropout=0.5, seed=3) == tok.encode_batch(["영화 재밌다"], dropout=0.5, seed=3)
        True
        """
        p = _check_dropout(dropout, seed)
        if p:
            return self._encoder.encode_dropout(self._word_batch(batch), p, random.Random(seed))
        return self._encoder.encode_words(self._word_batch(batch), num_threads=resolve_threads(num_threads))

    @staticmethod
    def _word_batch(batch: Sequence[list[str]]) -> list[list[str]]:
        """``batch`` (word lists) as a list, each ``str`` subclass made a ``str``; a string refused."""
        if isinstance(batch, str):
            raise TypeError("batch must be a sequence of word lists, such as [['영화', '재밌다']], not a string")
        batch = batch if isinstance(batch, list) else list(batch)
        if not all(isinstance(words, list) and only_str(words) for words in batch):  # str subclasses: their text
            batch = [[plain_text(w) if isinstance(w, str) else w for w in words] if isinstance(words, (list, tuple))
                     else words for words in batch]
        return batch

    def encode_pretokenized_flat(self, batch: Sequence[list[str]], *, num_threads: int | None = None) -> FlatIds:
        """:meth:`encode_pretokenized` as :meth:`encode_batch_flat` gives it: ``(ids, starts)``,
        one NumPy array of every text's ids and where each starts.

        >>> tok = Tokenizer(BPEModel(("<unk>",), tuple("▁재밌다영화"), (("▁", "영"), ("▁영", "화"), ("재", "밌"))))
        >>> ids, starts = tok.encode_pretokenized_flat([["영화", "재밌다"], ["재밌다"]])
        >>> ids.tolist(), starts.tolist()
        ([8, 1, 9, 4, 1, 9, 4], [0, 4, 7])
        """
        return self._encoder.encode_words_flat(self._word_batch(batch), dtype=id_dtype(self.vocab_size),
                                               num_threads=resolve_threads(num_threads))

    def tokenize(self, text: str, *, disallowed_special: Disallowed = "all", dropout: float = 0.0,
                 seed: int | None = None) -> list[str]:
        """Tokens of ``text`` (``encode`` then ``id_to_token``)."""
        id_to_token = self._model.id_to_token
        return [id_to_token[i] for i in self.encode(text, disallowed_special=disallowed_special, dropout=dropout,
                                                    seed=seed)]

    def encode_with_offsets(self, text: str, *, disallowed_special: Disallowed = "all", dropout: float = 0.0,
                            seed: int | None = None, words: Sequence[str] | None = None,
                            view: View = "hf") -> tuple[list[int], list[tuple[int, int]]]:
        """``(ids, offsets)``: the ids of ``encode(text)`` and, for each token, the ``(start, end)``
        character span of ``text`` it comes from (``text[start:end]``), as
        :mod:`korean_bpe.encoding.offsets` defines them (a token inside a character gets that
        character's span; the ``▁`` marker stands for the white space before its word).

        >>> tok = Tokenizer.train(["영화 정말 재밌다", "영화 진짜 최고"] * 3, vocab_size=30, unit="jamo")
        >>> ids, offsets = tok.encode_with_offsets("영화 짱")
        >>> ids == tok.encode("영화 짱"), offsets
        (True, [(0, 2), (2, 3), (3, 4), (3, 4), (3, 4)])

        Analyzers find the words in the text: the spans point into ``text`` even where the
        analysis drops morphemes.  ``dropout`` and ``seed`` are those of :meth:`encode`.

        ``words``: ``pre_tokenizer(text)`` when it is already known (an analysis made once for
        many tokenizers): the analyzer does not run again, and a word not found in ``text``
        spans nothing instead of raising.  ``view``: ``"hf"`` (default, HF ``tokenizers``'
        offsets) or ``"spelled"`` (the characters each token spells: the ``▁`` word marker
        spells none), :data:`korean_bpe.encoding.offsets.View`.

        >>> tok.encode_with_offsets("영화 짱", words=["영화", "짱"], view="spelled")[1]
        [(0, 2), (3, 3), (3, 4), (3, 4), (3, 4)]
        """
        if not isinstance(text, str):
            raise TypeError(f"text must be a str, got {type(text).__name__}")
        text = plain_text(text)  # a str subclass: its text, as encode reads it
        self._specials.check(text, disallowed_special)
        p = _check_dropout(dropout, seed)
        rng = random.Random(seed) if p else None
        if view not in ("hf", "spelled"):
            raise ValueError(f"view must be 'hf' or 'spelled', got {view!r}")
        if words is None:
            words, strict = self._pre_tokenizer(text), True
        elif isinstance(words, str) or not all(isinstance(w, str) for w in words):
            raise TypeError(f"words must be a list of strings (pre_tokenizer(text)), got {words!r}")
        else:
            strict = False
        return token_offsets(text, words, pre_tokenizer=self._pre_tokenizer, unit=self._unit, marker=self._mark,
                             segment=lambda word: self._encoder.segment(word, p, rng), view=view, strict=strict)

    def clear_cache(self) -> None:
        """Empty the per-word cache."""
        self._encoder.clear()

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
        return self._decoder.decode(ids, skip_special_tokens=skip_special_tokens)

    def decode_batch(self, batch: Iterable[Iterable[int]], *, skip_special_tokens: bool = False) -> list[str]:
        """``[decode(ids) for ids in batch]``."""
        return [self.decode(ids, skip_special_tokens=skip_special_tokens) for ids in batch]

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

        return load_tokenizer(directory, cls._from_file)

    def to_huggingface(self, path: str | Path, *, dropout: float | None = None, pretokenized: bool = False) -> Path:
        """Write a Hugging Face ``tokenizer.json`` (see :mod:`korean_bpe.io.hf`).  Returns the path.
        A directory (an existing one, or ``"dir/"``) gets a complete HF tokenizer folder, loadable
        with ``AutoTokenizer.from_pretrained(dir)`` (:func:`korean_bpe.io.hf.export_folder`).

        ``dropout``: HF BPE's ``dropout`` (BPE-dropout on every ``encode`` of the loaded
        tokenizer, HF drawing its own random numbers).  ``None``: no dropout.

        A model whose pre-tokenizer runs an analyzer (Okt, Kiwi, MeCab) is refused with the fix, as
        no HF client can run the analysis (:class:`korean_bpe.hf.KoreanBPETokenizerFast` does:
        ``KoreanBPETokenizerFast.from_korean_bpe(tok).save_pretrained(dir)``), unless
        ``pretokenized=True``: a file for the words of our analysis (``tok.pre_tokenizer(text)``,
        encoded with ``is_pretokenized=True``)."""
        from .io.hf import export_tokenizer_json

        export_tokenizer_json(self, path, dropout=dropout, pretokenized=pretokenized)
        return Path(path)


def _rebuild(cls: type[Tokenizer], model: BPEModel, options: dict[str, Any]) -> Tokenizer:
    """A tokenizer from what :meth:`Tokenizer.__reduce__` keeps (pickle cannot pass keywords)."""
    return cls(model, **options)


def _check_dropout(dropout: Any, seed: Any) -> float:
    """``dropout`` as a float in [0, 1]; ``seed`` an int or None."""
    if isinstance(dropout, bool) or not isinstance(dropout, (int, float)) or not 0.0 <= dropout <= 1.0:
        raise ValueError(f"dropout must be a probability between 0 and 1 (e.g. dropout=0.1), got {dropout!r}")
    if seed is not None and (isinstance(seed, bool) or not isinstance(seed, int)):
        raise TypeError(f"seed must be an int or None, got {seed!r}")
    return float(dropout)


def _check_writable(model: BPEModel) -> None:
    """No merged token breaks merges.txt (an empty token, a space, a line break)."""
    merges = model.merges
    parts = [part for merge in merges for part in merge]
    if "" in parts or UNWRITABLE.search("\x00".join(parts)):
        for rank, (a, b) in enumerate(merges):
            check_writable_token(a, where=f"merge {rank} ({a!r}, {b!r})")
            check_writable_token(b, where=f"merge {rank} ({a!r}, {b!r})")


def _check_model(model: BPEModel) -> None:
    """Every merge joins tokens that exist before it (:func:`korean_bpe.io.format.first_unknown`);
    no merged token breaks merges.txt.  Alphabet tokens that no merge uses may hold anything (a raw
    line-break piece is one): vocab.json escapes them."""
    _check_writable(model)
    merges = model.merges
    bad = first_unknown(merges, set(model.special_tokens) | set(model.alphabet), model.merged_token)
    if bad is not None:
        rank, part = bad
        a, b = merges[rank]
        raise ValueError(f"merge {rank} ({a!r}, {b!r}) uses {part!r}, which is neither in the alphabet nor made by "
                         "an earlier merge")
