"""Training a tokenizer: texts (or word counts) -> a model and the stages that cut its words.

The training options are one frozen :class:`TrainOptions`, validated when made; ``Tokenizer.train``,
``Tokenizer.train_from_counts``, continued training (``initial=``) and the CLI all build one.  The
pipeline, in order (:func:`train_texts`, :func:`train_counts`):

1. resolve the stages (pre-tokenizer, unit, marker; from ``initial`` when continuing) and refuse a
   bad combination before any counting (which may take hours with an analyzer);
2. count the words (:func:`korean_bpe.counting.count_words`);
3. split each distinct word into marked unit symbols (:func:`korean_bpe.counting.split_words`)
   and check that every symbol that can enter a merge fits a ``merges.txt`` line;
4. learn the merges (:func:`korean_bpe.trainer.train_bpe`, or
   :func:`korean_bpe.trainer.continued.continue_bpe` from ``initial``), the cyclic garbage
   collector paused (:func:`korean_bpe._gc.paused`).

>>> opts = TrainOptions(vocab_size=30, byte_fallback=True)
>>> opts.all_special_tokens[:3], len(opts.all_special_tokens)
(('<unk>', '<0x00>', '<0x01>'), 257)
>>> TrainOptions(vocab_size=-1)
Traceback (most recent call last):
...
ValueError: vocab_size must be >= 0, got -1
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, NamedTuple

from .._gc import paused
from .._threads import resolve_threads
from ..tokens import BYTE_TOKENS, check_writable_token
from ..jamo import JAMO_ALPHABET
from ..markers import SPACE_MARK, Marker, get_marker, pieces_keep_spaces
from ..pre_tokenizers.base import LINE_BREAKS, PreTokenizer, get_pre_tokenizer
from ..units import Unit, get_unit
from .api import check_max_token_length, check_options, check_special_tokens
from .model import BPEModel

if TYPE_CHECKING:  # pragma: no cover
    from ..counting import WordCounts
    from ..progress import Progress
    from .api import OnMerge

__all__ = ["TrainOptions", "Trained", "train_texts", "train_counts", "resolve_marker", "UNSET"]

#: an option left out (a default that depends on other options or on ``initial``)
UNSET: Any = type("Unset", (), {"__repr__": lambda self: "UNSET"})()


@dataclass(frozen=True)
class TrainOptions:
    """What training learns the model with, checked once here (types, ranges, combinations).

    ``vocab_size`` counts special tokens + alphabet + merges, as HF does; ``unk_token`` is added
    in front of ``special_tokens`` when missing and ``byte_fallback`` adds the 256 byte tokens
    after them (:attr:`all_special_tokens`); ``hangul_fallback`` adds the 67 conjoining jamo to the
    alphabet (first in ``limit_alphabet``); ``max_token_length`` bounds a token's symbols."""

    vocab_size: int
    min_frequency: int = 2
    special_tokens: tuple[str, ...] = ("<unk>",)
    byte_fallback: bool = False
    hangul_fallback: bool = False
    limit_alphabet: int | None = None
    max_token_length: int | None = None
    unk_token: str | None = "<unk>"
    #: SuperBPE (:mod:`korean_bpe.trainer.superbpe`): merges cross spaces from this size on (None: never)
    superword_transition: int | None = None
    #: SuperBPE: at most this many word starts (``▁``) a token (None: no limit)
    superword_max_words: int | None = 4

    def __post_init__(self) -> None:
        for key in ("byte_fallback", "hangul_fallback"):
            if not isinstance(getattr(self, key), bool):
                raise TypeError(f"{key} must be True or False, got {getattr(self, key)!r}")
        check_options(self.vocab_size, None, self.min_frequency, self.limit_alphabet, None, None, "auto")
        check_max_token_length(self.max_token_length)
        object.__setattr__(self, "special_tokens", check_special_tokens(self.special_tokens))
        if self.unk_token is not None and (not isinstance(self.unk_token, str) or not self.unk_token):
            raise TypeError(f"unk_token must be a non-empty string or None, got {self.unk_token!r}")
        if self.superword_transition is not None and (self.max_token_length is not None or self.hangul_fallback):
            raise ValueError("superword_transition (SuperBPE) takes neither max_token_length nor hangul_fallback: "
                             "leave them out")
        if self.hangul_fallback and self.limit_alphabet is not None and self.limit_alphabet < len(JAMO_ALPHABET):
            raise ValueError(f"hangul_fallback=True keeps the {len(JAMO_ALPHABET)} jamo in the alphabet, first: "
                             f"limit_alphabet={self.limit_alphabet} is too small; use limit_alphabet >= "
                             f"{len(JAMO_ALPHABET)} (the rest goes to the most frequent symbols)")

    @property
    def all_special_tokens(self) -> tuple[str, ...]:
        """The model's special tokens: ``unk_token`` first when missing, the byte tokens last."""
        specials = list(self.special_tokens)
        if self.unk_token is not None and self.unk_token not in specials:
            specials.insert(0, self.unk_token)
        if self.byte_fallback:
            specials += [t for t in BYTE_TOKENS if t not in specials]
        return tuple(specials)


class Trained(NamedTuple):
    """What training made: the model and the stages the tokenizer cuts texts with."""

    model: BPEModel
    pre_tokenizer: PreTokenizer
    unit: Unit
    marker: Marker
    options: TrainOptions


def resolve_marker(marker: Any, pre_tokenizer: PreTokenizer, model: BPEModel | None) -> Marker:
    """The marker object for ``marker`` (:data:`UNSET`: ``"▁"`` when the pre-tokenizer drops the
    spaces, ``None`` when its pieces keep them), checked against the pre-tokenizer (decode must be
    able to restore the text) and, when given, the model's prefix."""
    if marker is UNSET:
        marker = None if pieces_keep_spaces(pre_tokenizer) else SPACE_MARK
    mark = get_marker(marker)
    mark.check_pre_tokenizer(pre_tokenizer)
    if model is not None:
        mark.check_model(model)
    return mark


def train_texts(texts: Iterable[str], options: TrainOptions, *, pre_tokenizer: Any, unit: Any, marker: Any,
                initial: Any, show_progress: bool | Progress | None, on_merge: OnMerge | None,
                num_threads: int | None = None) -> Trained:
    """Steps 1-4 on texts (see the module docstring); ``initial``: a tokenizer to continue;
    ``num_threads``: threads for the compiled steps (counting, the engine's words and initial pair
    index; ``None``: every core, or ``KOREAN_BPE_NUM_THREADS``), the same model whatever the number."""
    from ..counting import count_words

    if isinstance(texts, (str, bytes)):
        raise TypeError("texts must be an iterable of strings, not a single string; pass [text]")
    if not isinstance(texts, Iterable):
        raise TypeError(f"texts must be an iterable of strings, got {type(texts).__name__}")
    threads = resolve_threads(num_threads)
    superword = options.superword_transition is not None
    pt = get_pre_tokenizer(_default(pre_tokenizer, initial, "pre_tokenizer", _LINES if superword else "whitespace"))
    unit_ = get_unit(_default(unit, initial, "unit", "syllable"))
    if initial is not None:
        options, marker = _continued_options(initial, options, pt, unit_, marker)
    mark = _check_stages(options, pt, unit_, marker)
    if superword and initial is not None:
        raise ValueError("superword_transition (SuperBPE) trains a new model; it cannot continue initial=")
    sample: list[str] = []
    counts = count_words(texts, pt, show_progress=show_progress, sample=sample, compact=True, num_threads=threads)
    if not counts:
        raise ValueError(_no_words_message(pt, sample))
    return _fit(counts, options, pt, unit_, mark, owned=True, initial=initial, show_progress=show_progress,
                on_merge=on_merge, num_threads=threads)


def train_counts(counts: WordCounts, options: TrainOptions, *, pre_tokenizer: Any, unit: Any, marker: Any,
                 show_progress: bool | Progress | None, on_merge: OnMerge | None,
                 num_threads: int | None = None) -> Trained:
    """Steps 1, 3 and 4 on word counts, cut by their own pre-tokenizer (``pre_tokenizer``, when
    given, must be that one); ``num_threads`` as :func:`train_texts`'s."""
    from ..counting import WordCounts

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
    unit_ = get_unit(unit)
    mark = _check_stages(options, pt, unit_, marker)
    if not len(counts):
        raise ValueError("no words to train on: the word counts are empty")
    return _fit(counts.as_mapping(), options, pt, unit_, mark, owned=False, initial=None,
                show_progress=show_progress, on_merge=on_merge, num_threads=resolve_threads(num_threads))


def _default(value: Any, initial: Any, name: str, default: Any) -> Any:
    if value is not UNSET:
        return value
    return getattr(initial, name) if initial is not None else default


def _continued_options(initial: Any, options: TrainOptions, pt: PreTokenizer, unit: Unit,
                       marker: Any) -> tuple[TrainOptions, Any]:
    """The options of continued training: the initial tokenizer's pipeline, mismatches refused."""
    from dataclasses import replace

    from .continued import check_initial_options

    marker = initial.word_marker if marker is UNSET else marker
    if options.hangul_fallback and not initial.hangul_fallback:
        raise ValueError("hangul_fallback=True differs from the initial tokenizer's False; continued training "
                         "cannot add the jamo alphabet without moving ids: leave hangul_fallback out")
    options = replace(options, byte_fallback=options.byte_fallback or initial.byte_fallback,
                      hangul_fallback=initial.hangul_fallback)
    check_initial_options(initial, pre_tokenizer=pt, unit=unit, marker=get_marker(marker).text,
                          special_tokens=options.special_tokens, byte_fallback=options.byte_fallback,
                          unk_token=options.unk_token, limit_alphabet=options.limit_alphabet,
                          max_token_length=options.max_token_length)
    return options, marker


def _check_stages(options: TrainOptions, pt: PreTokenizer, unit: Unit, marker: Any) -> Marker:
    """The marker, checked with the pre-tokenizer; Hangul and byte fallback checked with unit and marker."""
    from ..encoding.fallback import check_byte_fallback, check_hangul_fallback

    mark = resolve_marker(marker, pt, None)
    if options.hangul_fallback:
        check_hangul_fallback(unit, mark)
    if options.byte_fallback:
        check_byte_fallback(unit)
    return mark


def _fit(counts: Mapping[str, int], options: TrainOptions, pt: PreTokenizer, unit: Unit, mark: Marker, *,
         owned: bool, initial: Any, show_progress: bool | Progress | None, on_merge: OnMerge | None,
         num_threads: int = 1) -> Trained:
    """Steps 3 and 4.  ``counts``: a dict, a read-only view of one (``WordCounts.as_mapping()``) or
    the read-only ``CountedWords`` of ``count_words(compact=True)``; ``owned``: ours to empty once
    split (freed before training)."""
    from ..counting import split_words
    from . import train_bpe
    from .continued import continue_bpe

    if options.superword_transition is not None:
        return _fit_superwords(counts, options, pt, unit, mark, show_progress=show_progress, on_merge=on_merge)
    with paused():  # after counting: an analyzer's garbage may hold cycles, the word tuples do not
        word_counts = split_words(counts, unit, marker=mark, num_threads=num_threads)
        _check_symbols(word_counts, counts, pt, unit, mark)
        if owned and hasattr(counts, "clear"):
            counts.clear()
        if initial is not None:
            model = continue_bpe(initial.model, word_counts, vocab_size=options.vocab_size,
                                 min_frequency=options.min_frequency, show_progress=show_progress,
                                 on_merge=on_merge).model
        else:
            alphabet = mark.marked_alphabet(unit.initial_alphabet)
            model = train_bpe(
                word_counts, vocab_size=options.vocab_size, min_frequency=options.min_frequency,
                special_tokens=options.all_special_tokens, limit_alphabet=options.limit_alphabet,
                max_token_length=options.max_token_length, marker=mark, show_progress=show_progress,
                initial_alphabet=alphabet + (JAMO_ALPHABET if options.hangul_fallback else ()), on_merge=on_merge,
                num_threads=num_threads,
            )
    from ..pre_tokenizers.boundaries import encoding_stage

    return Trained(model, encoding_stage(pt), unit, mark, options)


#: the pre-tokenizer of SuperBPE: one piece a line, every space a ``▁``
_LINES = {"type": "raw", "split_by_whitespace": False}


def _fit_superwords(counts: Mapping[str, int], options: TrainOptions, pt: PreTokenizer, unit: Unit, mark: Marker, *,
                    show_progress: bool | Progress | None, on_merge: OnMerge | None) -> Trained:
    """SuperBPE's two stages (:mod:`korean_bpe.trainer.superbpe`) on the line counts of ``raw``
    without ``split_by_whitespace`` (the only pre-tokenizer it takes)."""
    from .superbpe import train_superbpe

    if pt.to_config() != get_pre_tokenizer(_LINES).to_config() or mark.text is not None:
        raise ValueError(f"superword_transition (SuperBPE) cuts lines at spaces itself: use pre_tokenizer={_LINES!r} "
                         f"(the default with it) and no marker, not {pt!r} with marker={mark.text!r}")
    with paused():
        model = train_superbpe(counts, unit, vocab_size=options.vocab_size,
                               transition=options.superword_transition, max_words=options.superword_max_words,
                               min_frequency=options.min_frequency, special_tokens=options.all_special_tokens,
                               limit_alphabet=options.limit_alphabet, initial_alphabet=unit.initial_alphabet,
                               show_progress=show_progress, on_merge=on_merge)
    return Trained(model, pt, unit, mark, options)


def _check_symbols(word_counts: Mapping[tuple[str, ...], int], counts: Mapping[str, int], pt: PreTokenizer,
                   unit: Unit, mark: Marker) -> None:
    """Only symbols that can enter a merge must fit a merges.txt line: a word of one symbol (a
    raw line-break piece such as ``"\\x0c"``) is never merged, and vocab.json holds any string.
    A symbol holds a space or a line break only if its word does (markers hold neither), so the
    words are searched first, all at once."""
    from ..counting import holds_any

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
    pos, drop = pt.pos, pt.drop
    if pos is not None and drop:
        tags: dict[str, str] = {}
        for text in sample:
            for surface, tag in pos(text):
                if surface and not surface.isspace():
                    tags.setdefault(tag, surface)
        name = pt.name
        shown = ", ".join(f"{tag} ({surface!r})" for tag, surface in sorted(tags.items()))
        return (
            f"no words to train on: the {name} analysis dropped everything; the texts hold only morphemes tagged "
            f"{shown or 'nothing'}, which its drop option removes ({pt!r}); keep them with "
            f"pre_tokenizer={{'type': {name!r}, 'drop': []}} or pre_tokenizer={{'type': {name!r}, 'lossless': True}}"
        )
    return (f"no words to train on: the pre-tokenizer {pt!r} gave no word for any text, e.g. {sample[0][:40]!r}; "
            "use one that keeps what these texts hold")
