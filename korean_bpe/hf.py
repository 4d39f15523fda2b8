"""A ``transformers`` tokenizer that runs our morpheme analysis: :class:`KoreanBPETokenizerFast`.

HF ``tokenizers`` cannot serialize a Python pre-tokenizer, so no HF client can reproduce a model
trained on Okt / Kiwi / MeCab morphemes from a ``tokenizer.json`` (its export is refused with the
fix unless ``pretokenized=True``: a file for words analysed first; ``korean-bpe export-hf -o DIR/``
writes this class's folder instead).
``KoreanBPETokenizerFast`` (a ``PreTrainedTokenizerFast``) gives transformers our encoding of the
text itself: :meth:`korean_bpe.Tokenizer.encode_with_offsets` of each text (between added tokens),
every token with its span in the text, cut into our pre-tokenizer's words, handed to the fast
tokenizer as the splits of a pre-tokenizer that carries them (:class:`_Carrier`), so its model
never runs on them.  So the ids, the offsets (``return_offsets_mapping``) and the alignment
methods (``token_to_chars``, ``char_to_token``, ``word_ids`` = our words, ``word_to_chars``)
are ours, for every pre-tokenizer and unit, Hangul fallback and lone surrogates included.
Everything after that is transformers' own: batches, pairs, padding, truncation, attention masks,
``return_tensors``, ``return_overflowing_tokens`` with ``stride``, special-token templates.
``decode`` is ours (:meth:`korean_bpe.Tokenizer.decode`, exact, jamo recomposed), with added
tokens spliced in.

>>> import korean_bpe
>>> reviews = ["영화 정말 재밌어요", "배우 연기가 정말 좋아요", "영화가 너무 지루해요"] * 3
>>> kb = korean_bpe.Tokenizer.train(reviews, vocab_size=60, pre_tokenizer="kiwi",
...                                 special_tokens=("<unk>", "<pad>"))
>>> tok = KoreanBPETokenizerFast.from_korean_bpe(kb, pad_token="<pad>")
>>> tok("영화 정말 재밌어요")["input_ids"] == kb.encode("영화 정말 재밌어요")
True
>>> batch = tok(["영화 재밌어요", "배우 연기가 정말 좋아요"], padding=True, return_tensors="np")
>>> batch["input_ids"].shape, batch["attention_mask"].tolist()[0]
((2, 5), [1, 1, 1, 0, 0])
>>> tok.decode(batch["input_ids"][0], skip_special_tokens=True)   # analysis mode: morphemes, spaced
'영화 재밌 어요'

Saving writes transformers' files (``tokenizer.json`` for pre-tokenized words,
``tokenizer_config.json`` with ``"tokenizer_class": "KoreanBPETokenizer"``) and our model in
``korean_bpe/`` (``vocab.json``, ``merges.txt``, ``tokenizer_config.json``: the pre-tokenizer,
unit and marker); ``KoreanBPETokenizerFast.from_pretrained(directory)`` loads it back, offline.
``AutoTokenizer.from_pretrained(directory, trust_remote_code=True)`` works too, offline: the
directory also gets ``tokenization_korean_bpe.py``, one line that imports this class from the
installed korean_bpe, named in ``tokenizer_config.json``'s ``auto_map`` (``trust_remote_code``
is transformers' consent to run that line; without korean_bpe installed, transformers names the
missing package).

What differs from the fast tokenizer alone:

* ``is_split_into_words=True`` means the words are *already analysed* (our pre-tokenizer's
  output, e.g. ``kb.pre_tokenizer(text)``): they go to the fast tokenizer's own BPE as they are
  (offsets inside each word, as HF gives them for pre-tokenized input; no Hangul fallback).
* ``add_tokens``: HF cuts the text at each added token first, our encoding runs on the rest, so
  an added token keeps its one id and the text around it is analysed as usual; one added with
  the text of a model token keeps that token's id and decodes as a piece of its own.  Added
  tokens are matched on the raw text (``normalized=False`` is forced).  Kiwi's own
  ``SwTokenizer`` has no ``add_tokens``.
* A text holding a special token's text (``"<unk>"``) gets that token's id here (HF's rule),
  where ``Tokenizer.encode`` refuses it (``split_special_tokens=True``: its characters).
* A lone surrogate cannot enter Rust: the fast tokenizer sees a stand-in character in its place
  (U+F0000 + its offset from U+D800), the ids and offsets are ours of the real text.
* Okt with ``norm=True`` or ``stem=True`` rewrites words, which then have no span in the text:
  such a text gets the ids of :meth:`~korean_bpe.Tokenizer.encode`, each token spanning it all.
* ``train_new_from_iterator`` retrains with this pipeline (:meth:`korean_bpe.Tokenizer.train`).

The carrier is set on the fast tokenizer for the length of each call (HF cannot save or pickle a
Python stage), so one instance should not encode from two threads at once (transformers already
sets padding and truncation on it per call).

Needs transformers 5 (``_encode_plus`` is its one encoding seam; transformers 4 had two, with
other signatures, and is refused at import with the upgrade command).
"""

from __future__ import annotations

import json
import os
import re
from bisect import bisect_left, bisect_right
from collections import deque
from collections.abc import Iterable, Iterator, Sequence
from contextlib import contextmanager
from pathlib import Path
from typing import Any

from ._optional import require
from .tokens import SURROGATE
from .io.hf import MODEL_SUBDIR, tokenizer_json
from .files import read_input_file
from .io.serialization import CONFIG_FILE, MAX_FILE_BYTES, MERGES_FILE, VOCAB_FILE
from .markers import SPACE_MARK, pieces_keep_spaces
from .pre_tokenizers.base import LINE_BREAKS
from .tokenizer import Tokenizer

_transformers = require("transformers")
if int(_transformers.__version__.split(".")[0]) < 5:
    raise ImportError(f"korean_bpe.hf needs transformers >= 5 (its _encode_plus seam); found {_transformers.__version__}: "
                      'pip install -U "transformers>=5"')
require("tokenizers")
from tokenizers import AddedToken, Token  # noqa: E402
from tokenizers import Tokenizer as _HFTokenizer  # noqa: E402
from tokenizers import pre_tokenizers as _pre_tokenizers  # noqa: E402

__all__ = ["KoreanBPETokenizerFast", "MODEL_SUBDIR"]

#: the two-line module ``save_pretrained`` writes for ``AutoTokenizer(..., trust_remote_code=True)``:
#: it imports this class from the installed korean_bpe (no code of ours is copied or downloaded)
_SHIM_MODULE = "tokenization_korean_bpe"
#: init_kwargs that name files or objects of the old tokenizer, not settings a retrained one keeps
_NOT_CARRIED = frozenset({"tokenizer_file", "tokenizer_object", "korean_bpe_tokenizer", "korean_bpe_vocab_file",
                          "korean_bpe_merges_file", "korean_bpe_config_file", "name_or_path", "added_tokens_decoder",
                          "vocab", "merges", "auto_map"})


def backend_tokenizer(tok: Tokenizer) -> Any:
    """The ``tokenizers.Tokenizer`` behind :class:`KoreanBPETokenizerFast` for ``tok``: the
    :mod:`korean_bpe.io.hf` export, for pre-tokenized words when ``tok`` analyses morphemes."""
    pretokenized = tok.pre_tokenizer.pos is not None
    return _HFTokenizer.from_str(json.dumps(tokenizer_json(tok, pretokenized=pretokenized)))


class KoreanBPETokenizerFast(_transformers.PreTrainedTokenizerFast):  # type: ignore[misc, name-defined]
    """A ``transformers`` fast tokenizer over a :class:`korean_bpe.Tokenizer`, analyzer included.

    Build one with :meth:`from_korean_bpe`, or load a saved one with ``from_pretrained(dir)``.
    Keyword arguments are transformers' (``pad_token="<pad>"``, ``model_max_length=512``, ...);
    ``unk_token`` defaults to the model's.
    """

    vocab_files_names = {
        "tokenizer_file": "tokenizer.json",
        "korean_bpe_vocab_file": f"{MODEL_SUBDIR}/{VOCAB_FILE}",
        "korean_bpe_merges_file": f"{MODEL_SUBDIR}/{MERGES_FILE}",
        "korean_bpe_config_file": f"{MODEL_SUBDIR}/{CONFIG_FILE}",
    }
    model_input_names = ["input_ids", "attention_mask"]
    slow_tokenizer_class = None

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        """``korean_bpe_tokenizer=`` (a :class:`korean_bpe.Tokenizer`) or, from ``from_pretrained``,
        ``korean_bpe_config_file=`` (its saved ``korean_bpe/`` folder); the rest is transformers'.
        (Only ``**kwargs``: transformers' suite checks every defaulted parameter is kept in
        ``init_kwargs``, which must not hold the model object.)"""
        korean_bpe_tokenizer = kwargs.pop("korean_bpe_tokenizer", None)
        korean_bpe_config_file = kwargs.pop("korean_bpe_config_file", None)
        kwargs.pop("korean_bpe_vocab_file", None), kwargs.pop("korean_bpe_merges_file", None)
        if korean_bpe_tokenizer is None:
            if korean_bpe_config_file is None:
                raise ValueError(
                    "KoreanBPETokenizerFast needs a korean_bpe model: KoreanBPETokenizerFast.from_korean_bpe(tok), or "
                    f"from_pretrained(dir) on a directory written by save_pretrained (with {MODEL_SUBDIR}/{CONFIG_FILE})"
                )
            korean_bpe_tokenizer = Tokenizer.load(Path(korean_bpe_config_file).parent)
        if not isinstance(korean_bpe_tokenizer, Tokenizer):
            raise TypeError(f"korean_bpe_tokenizer must be a korean_bpe.Tokenizer, got {type(korean_bpe_tokenizer).__name__}")
        self._korean_bpe = korean_bpe_tokenizer
        # transformers 5 hands a class with its own __init__ the vocabulary and merges it read from
        # tokenizer.json; ours come from korean_bpe/ (dropped: they would land in tokenizer_config.json)
        kwargs.pop("vocab", None), kwargs.pop("merges", None)
        if kwargs.get("tokenizer_file") is None and kwargs.get("tokenizer_object") is None:
            kwargs["tokenizer_object"] = backend_tokenizer(korean_bpe_tokenizer)
        if korean_bpe_tokenizer.unk_token is not None:
            kwargs.setdefault("unk_token", korean_bpe_tokenizer.unk_token)
        kwargs.setdefault("clean_up_tokenization_spaces", False)
        kwargs.pop("auto_map", None)  # written again by save_pretrained
        super().__init__(*args, **kwargs)
        self._auto_map = {"AutoTokenizer": [None, f"{_SHIM_MODULE}.{type(self).__name__}"]}

    @classmethod
    def from_pretrained(cls, pretrained_model_name_or_path: Any, *args: Any, **kwargs: Any) -> Any:
        """transformers' ``from_pretrained``, except that a name that can only be a folder of this
        machine (``./my-model/``, ``~/m``, ``a/b/c``, a trailing ``/``, a ``Path``; any name offline)
        and is none fails at once, before the Hub is asked (which retries for minutes offline):

        >>> KoreanBPETokenizerFast.from_pretrained("./my-modle/")
        Traceback (most recent call last):
        ...
        FileNotFoundError: no such folder: './my-modle/' (from_pretrained(dir) loads a folder written by save_pretrained(dir) or `korean-bpe export-hf -m model/ -o dir/`: check the path; a Hub model is named 'namespace/name')
        """
        name = pretrained_model_name_or_path
        if isinstance(name, str) and name.startswith("~"):
            name = os.path.expanduser(name)
        offline = bool(kwargs.get("local_files_only")) or hub_offline()
        if not os.path.isdir(name) and (looks_like_a_folder(pretrained_model_name_or_path)
                                        or (offline and not _in_hub_cache(name, kwargs.get("cache_dir")))):
            raise FileNotFoundError(missing_folder_message(pretrained_model_name_or_path, offline=offline))
        return super().from_pretrained(name, *args, **kwargs)

    @classmethod
    def _from_pretrained(cls, resolved_vocab_files: dict[str, Any], *args: Any, **kwargs: Any) -> Any:
        """``from_pretrained``'s loading: a damaged ``tokenizer.json`` is named (transformers parses
        it with a bare ``json.load``; it is parsed again here only when that fails)."""
        path = resolved_vocab_files.get("tokenizer_file")
        if path is not None:
            read_input_file(path, what="a tokenizer.json", max_bytes=MAX_FILE_BYTES)  # a FIFO, a huge file
        try:
            return super()._from_pretrained(resolved_vocab_files, *args, **kwargs)
        except Exception:  # json's error, or the Rust parser's, for a damaged file: say which and the fix
            if path is not None:
                _check_json(path)  # raises when tokenizer.json does not parse; otherwise the error stands
            raise

    @classmethod
    def from_korean_bpe(cls, tokenizer: Tokenizer, **kwargs: Any) -> KoreanBPETokenizerFast:
        """Wrap a trained :class:`korean_bpe.Tokenizer`; ``kwargs`` go to transformers
        (``pad_token="<pad>"``: a token of the model, or a new one added after its vocabulary)."""
        return cls(korean_bpe_tokenizer=tokenizer, **kwargs)

    @classmethod
    def register_for_auto_class(cls, auto_class: str = "AutoTokenizer") -> None:
        """Nothing to do: ``save_pretrained`` writes its own ``auto_map`` and one-line module.

        (``AutoTokenizer(..., trust_remote_code=True)`` calls this on the class it loaded; the
        default would make every later ``save_pretrained`` copy korean_bpe's source files.)"""

    @property
    def korean_bpe(self) -> Tokenizer:
        """The :class:`korean_bpe.Tokenizer` inside (its pre-tokenizer, unit, marker and merges)."""
        return self._korean_bpe

    # --- encoding: our ids and offsets, carried by the fast tokenizer --------------------------------

    def _encode_plus(self, text: Any, text_pair: Any = None, *args: Any, is_split_into_words: bool = False,
                     **kwargs: Any) -> Any:
        if is_split_into_words:  # analysed words, as they are: the fast tokenizer's BPE on each
            if _has_surrogates(text) or _has_surrogates(text_pair):
                raise ValueError("a pre-split word holds a lone surrogate, which the fast tokenizer cannot take "
                                 "(its strings are UTF-8): pass the text itself (is_split_into_words=False), "
                                 "which gets our ids")
            return super()._encode_plus(text, text_pair, *args, is_split_into_words=True, **kwargs)
        hidden = _has_surrogates(text) or _has_surrogates(text_pair)
        if hidden:
            _check_no_stand_ins(text), _check_no_stand_ins(text_pair)
            text, text_pair = _map_texts(_hide_surrogates, text), _map_texts(_hide_surrogates, text_pair)
        view, analysed = self._analysed_view()
        analysed.table = self._analyse(text, text_pair, kwargs.get("split_special_tokens"), hidden)
        shown = (_hide_surrogates(p) for p in analysed.table) if hidden else analysed.table
        try:
            with _carrying(self._tokenizer, _Carrier(view, hidden, shown)):
                return super()._encode_plus(text, text_pair, *args, is_split_into_words=False, **kwargs)
        finally:
            analysed.table = {}

    def _analysed_view(self) -> tuple[Tokenizer, _Analysed]:
        """Our tokenizer, but with a pre-tokenizer that answers from one ``batch`` call per
        encoding call (``encode_with_offsets`` analyses one text at a time: one JVM call each for
        Okt), built once."""
        if getattr(self, "_view", None) is None:
            kb = self._korean_bpe
            analysed = _Analysed(kb.pre_tokenizer)
            view = Tokenizer(kb.model, pre_tokenizer=analysed, unit=kb.unit, marker=kb.marker,
                             byte_fallback=kb.byte_fallback, unk_token=kb.unk_token, hangul_fallback=kb.hangul_fallback)
            self._view = (view, analysed)
        return self._view

    def _analyse(self, text: Any, text_pair: Any, split_special_tokens: bool | None, hidden: bool) -> dict[str, list[str]]:
        """The words of each text between added tokens, from one ``pre_tokenizer.batch`` call."""
        split = self.split_special_tokens if split_special_tokens is None else split_special_tokens
        pieces = [p for t in (*_texts_in(text), *_texts_in(text_pair)) for p in self._cut(t, split)]
        if hidden:
            pieces = [_reveal_surrogates(p) for p in pieces]
        return dict(zip(pieces, self._korean_bpe.pre_tokenizer.batch(pieces, show_progress=False)))

    def __getstate__(self) -> dict[str, Any]:
        state = dict(super().__getstate__())  # type: ignore[misc]
        state.pop("_view", None)  # rebuilt when needed
        return state

    def _cut(self, text: str, split_special_tokens: bool) -> list[str]:
        """``text`` between the added tokens, as HF cuts it before our pre-tokenizer sees it (for
        the one batch analysis; a piece cut otherwise is analysed on its own, the same words)."""
        contents = sorted({t.content for t in self.added_tokens_decoder.values()
                           if t.content and not (split_special_tokens and t.special)}, key=lambda c: (-len(c), c))
        if not contents:
            return [text]
        return [p for p in re.split("|".join(map(re.escape, contents)), text) if p]

    def _encode_without_added_tokens(self, text: str) -> list[int]:
        """Plain text, no added token matched (chat templates' control-token sanitizing)."""
        return self._korean_bpe.encode(text, disallowed_special=())

    def _add_tokens(self, new_tokens: Any, special_tokens: bool = False) -> int:
        """Added tokens match the raw text (``normalized=False``), before the analyzer."""
        fixed = []
        for t in new_tokens:
            if isinstance(t, str):
                t = AddedToken(t, special=special_tokens, normalized=False)
            elif isinstance(t, AddedToken) and t.normalized:
                t = AddedToken(t.content, single_word=t.single_word, lstrip=t.lstrip, rstrip=t.rstrip,
                               special=t.special, normalized=False)
            fixed.append(t)
        return int(super()._add_tokens(fixed, special_tokens=special_tokens))

    # --- decoding ---------------------------------------------------------------------------------

    def _decode(self, token_ids: Any, skip_special_tokens: bool = False, clean_up_tokenization_spaces: bool | None = None,
                **kwargs: Any) -> str:
        """Ours: runs of model ids through :meth:`korean_bpe.Tokenizer.decode`, added tokens as their
        text (special ones left out with ``skip_special_tokens``), pieces joined by a space (by
        nothing when the pre-tokenizer's pieces carry their spaces, ``piece_kind = "marked"``:
        :func:`korean_bpe.markers.pieces_keep_spaces`, as the marker checks ask).  A token added
        with the text of a model token (``add_tokens(["영화"])``) keeps that id but is a piece of its
        own, as it was one when encoding."""
        if isinstance(token_ids, int):
            token_ids = [token_ids]
        kb = self._korean_bpe
        n = kb.vocab_size
        added = self.added_tokens_decoder
        own = {kb.token_to_id(t) for t in kb.special_tokens}  # the model's special tokens: kb.decode writes them
        pieces: list[str] = []
        run: list[int] = []
        for i in map(int, token_ids):
            token = added.get(i)
            if 0 <= i < n and (token is None or i in own):
                run.append(i)
                continue
            if token is None:
                raise ValueError(f"id {i} is neither a model id (0..{n - 1}) nor an added token's")
            pieces += _decoded(kb, run, skip_special_tokens)
            run = []
            if not (skip_special_tokens and token.special):
                pieces.append(token.content)
        pieces += _decoded(kb, run, skip_special_tokens)
        return ("" if pieces_keep_spaces(kb.pre_tokenizer) else " ").join(pieces)

    # --- training ---------------------------------------------------------------------------------

    def train_new_from_iterator(self, text_iterator: Iterable[Any], vocab_size: int, length: int | None = None,
                                new_special_tokens: Sequence[Any] | None = None,
                                special_tokens_map: dict[str, str] | None = None, **kwargs: Any) -> KoreanBPETokenizerFast:
        """A tokenizer of this class trained on new texts with this one's pipeline: the same
        pre-tokenizer, unit, marker, byte and Hangul fallback and special tokens (renamed by
        ``special_tokens_map``, with ``new_special_tokens`` after them), and transformers' settings
        (``pad_token``, ``model_max_length``, ...).  ``text_iterator`` yields texts or batches
        of texts; ``kwargs`` go to :meth:`korean_bpe.Tokenizer.train` (``min_frequency=...``).  A
        ``vocab_size`` below the special tokens + the alphabet gives those alone, as HF's trainers do."""
        kb = self._korean_bpe
        rename = dict(special_tokens_map or {})
        specials = [rename.get(t, t) for t in kb.special_tokens]
        specials += [str(t) for t in new_special_tokens or () if str(t) not in specials]
        unk = None if kb.unk_token is None else rename.get(kb.unk_token, kb.unk_token)
        from .counting import WordCounts

        kwargs.setdefault("show_progress", False)
        counts = WordCounts.from_texts(_flatten(text_iterator), pre_tokenizer=kb.pre_tokenizer,
                                       show_progress=kwargs["show_progress"])
        options = dict(unit=kb.unit, marker=kb.marker, byte_fallback=kb.byte_fallback,
                       hangul_fallback=kb.hangul_fallback, unk_token=unk, special_tokens=specials, **kwargs)
        try:
            new = Tokenizer.train_from_counts(counts, vocab_size=vocab_size, **options)
        except ValueError as exc:  # as HF's trainers: the special tokens and the alphabet whatever vocab_size says
            least = re.search(r"use vocab_size >= (\d+)", str(exc))
            if least is None or int(least.group(1)) <= vocab_size:
                raise
            new = Tokenizer.train_from_counts(counts, vocab_size=int(least.group(1)), **options)
        init = {k: v for k, v in self.init_kwargs.items() if k not in _NOT_CARRIED}
        for name in self.SPECIAL_TOKENS_ATTRIBUTES:
            value = getattr(self, name, None)
            if value is not None:
                init[name] = rename.get(str(value), str(value))
        if new_special_tokens:
            init["extra_special_tokens"] = [*map(str, self.extra_special_tokens or ()), *map(str, new_special_tokens)]
        return type(self).from_korean_bpe(new, **init)

    # --- files ------------------------------------------------------------------------------------

    def _save_pretrained(self, save_directory: Any, file_names: tuple[str, ...], *args: Any, **kwargs: Any) -> tuple[str, ...]:
        from .files import atomic_write_text

        files = super()._save_pretrained(save_directory, file_names, *args, **kwargs)
        model_dir = self._korean_bpe.save(Path(save_directory) / MODEL_SUBDIR)
        shim = atomic_write_text(
            Path(save_directory) / f"{_SHIM_MODULE}.py",
            '"""Lets AutoTokenizer.from_pretrained(dir, trust_remote_code=True) load the installed korean_bpe."""\n'
            f"from korean_bpe.hf import {type(self).__name__}  # noqa: F401  (pip install \"korean_bpe[hf]\")\n",
        )
        return (*files, *(str(model_dir / name) for name in (VOCAB_FILE, MERGES_FILE, CONFIG_FILE)), str(shim))


# --- the carrier: our encoding inside the fast tokenizer's Encoding ----------------------------------


class _Carrier:
    """A ``tokenizers`` pre-tokenizer that hands over our encoding: each text between added tokens
    is cut into our pre-tokenizer's words (slices of the text: HF counts offsets in the text, and
    its ``word_ids`` are our words), each carrying our tokens with their
    :meth:`korean_bpe.Tokenizer.encode_with_offsets` spans, so HF's model never runs on them.

    ``texts`` (as the fast tokenizer will show them) are worked out when the carrier is made, in
    the calling thread: the fast tokenizer calls :meth:`pre_tokenize` from its own threads, which
    would take turns at the GIL for that work; a text not among them is worked out then."""

    def __init__(self, kb: Tokenizer, hidden: bool, texts: Iterable[str] = ()) -> None:
        self._kb = kb
        self._hidden = hidden
        self._words = {shown: self.words(shown) for shown in texts}

    def words(self, shown: str) -> list[tuple[int, int, list[Any]]]:
        """``(start, end, tokens)`` of each word of the text the fast tokenizer shows (lone
        surrogates hidden), each token a ``tokenizers.Token`` with its span in bytes of the word."""
        text = _reveal_surrogates(shown) if self._hidden else shown
        id_to_token = self._kb.id_to_token
        out = []
        for start, end, tokens in _carried_words(self._kb, text):
            word = shown[start:end]
            out.append((start, end, [Token(i, id_to_token[i], (_utf8_len(word, a - start), _utf8_len(word, b - start)))
                                     for i, a, b in tokens]))
        return out

    def pre_tokenize(self, pretok: Any) -> None:
        queue: deque[list[Any]] = deque()  # each word's tokens, for pretok.tokenize (called in split order)

        def split(_: int, segment: Any) -> list[Any]:
            shown = str(segment)
            words = self._words.get(shown)
            out = []
            for start, end, tokens in self.words(shown) if words is None else words:
                queue.append(tokens)
                out.append(segment.slice((start, end)))
            return out

        pretok.split(split)
        pretok.tokenize(lambda _: queue.popleft())


class _Analysed:
    """A pre-tokenizer that answers from ``table`` (the words of texts analysed in one batch),
    else asks the one it wraps; its declarations (``piece_kind``, ...) are the wrapped one's."""

    def __init__(self, pre_tokenizer: Any) -> None:
        self._pre_tokenizer = pre_tokenizer
        self.table: dict[str, list[str]] = {}

    def __getattr__(self, name: str) -> Any:  # only for names not found on the object itself
        if name.startswith("__") or name == "_pre_tokenizer":  # copy / pickle probe an empty object
            raise AttributeError(name)
        return getattr(self._pre_tokenizer, name)

    def __call__(self, text: str) -> list[str]:
        words = self.table.get(text)
        return list(words) if words is not None else self._pre_tokenizer(text)

    def batch(self, texts: Iterable[str], *, show_progress: bool | None = None) -> list[list[str]]:
        return [self(t) for t in texts]

    def restore(self, words: Sequence[str]) -> str:
        return str(self._pre_tokenizer.restore(words))

    def to_config(self) -> dict[str, Any]:
        return dict(self._pre_tokenizer.to_config())

    def __repr__(self) -> str:
        return repr(self._pre_tokenizer)


@contextmanager
def _carrying(backend: Any, carrier: _Carrier) -> Iterator[None]:
    """The fast tokenizer with ``carrier`` as its pre-tokenizer and no normalizer (the splits are
    slices of the text itself: offsets in the text), for the length of one call: HF can neither
    save nor pickle a Python stage."""
    normalizer, pre_tokenizer = backend.normalizer, backend.pre_tokenizer
    backend.normalizer, backend.pre_tokenizer = None, _pre_tokenizers.PreTokenizer.custom(carrier)
    try:
        yield
    finally:
        backend.normalizer, backend.pre_tokenizer = normalizer, pre_tokenizer


def _carried_words(kb: Tokenizer, text: str) -> list[tuple[int, int, list[tuple[int, int, int]]]]:
    """Our encoding of ``text`` by word: ``(start, end, [(id, start, end), ...])``, each token with
    its span from :meth:`~korean_bpe.Tokenizer.encode_with_offsets`, ``start:end`` covering them.

    >>> kb = Tokenizer.train(["영화 정말 재밌다"] * 3, vocab_size=14)
    >>> [(s, e, [kb.id_to_token[i] for i, _, _ in t]) for s, e, t in _carried_words(kb, "영화 정말")]
    [(0, 2, ['▁영화']), (2, 5, ['▁정', '말'])]

    When the pre-tokenizer's words are not slices of the text (Okt with ``norm=True``), there are no
    offsets to give: the ids of :meth:`~korean_bpe.Tokenizer.encode`, each spanning the whole text.
    """
    if not text:
        return []
    try:
        ids, offsets = kb.encode_with_offsets(text, disallowed_special=())
    except ValueError:  # no spans to give; a text that cannot be encoded at all raises from encode itself
        return [(0, len(text), [(i, 0, len(text)) for i in kb.encode(text, disallowed_special=())])]
    starts, ends = _word_spans(text, kb.pre_tokenizer(text), kb.pre_tokenizer)
    groups: list[tuple[int, list[tuple[int, int, int]]]] = []
    for i, (a, b) in zip(ids, offsets):
        k = _word_index(starts, ends, a, b)
        if groups and k <= groups[-1][0]:
            groups[-1][1].append((i, a, b))
        else:
            groups.append((k, [(i, a, b)]))
    out: list[tuple[int, int, list[tuple[int, int, int]]]] = []
    for _, t in groups:
        s, e = min(a for _, a, _ in t), max(b for _, _, b in t)
        if out and (s == e or out[-1][0] == out[-1][1]):  # tokens that cover no character join a neighbour
            s0, e0, t0 = out.pop()
            s, e, t = min(s0, s), max(e0, e), t0 + t
        out.append((s, e, t))
    return out


def _word_spans(text: str, words: Sequence[str], pt: Any) -> tuple[list[int], list[int]]:
    """Where each pre-tokenizer word sits in ``text`` (starts, ends): pieces that keep every
    character (``piece_kind = "marked"``: ``▁`` for a space, ``raw``'s dummy prefix for none) one
    after the other, other words looked up from the end of the previous one."""
    marked = getattr(pt, "piece_kind", "words") == "marked"
    dummy = marked and getattr(pt, "add_dummy_prefix", False) is True
    starts: list[int] = []
    ends: list[int] = []
    cursor, line_start = 0, True
    for w in words:
        if marked:
            start, end = cursor, cursor + len(w) - (dummy and line_start and w.startswith(SPACE_MARK))
            line_start = w in LINE_BREAKS
        else:
            start = text.find(w, cursor)
            if start < 0:
                raise ValueError(f"the pre-tokenizer {pt!r} gave the word {w!r}, not in the text after offset {cursor}")
            end = start + len(w)
        starts.append(start)
        ends.append(end)
        cursor = end
    return starts, ends


def _word_index(starts: list[int], ends: list[int], a: int, b: int) -> int:
    """The word a token spanning ``a:b`` belongs to: the word holding its last character; for a
    span of a space only (the ``▁`` marker) or an empty one (a glued morpheme's ``▁``), the word
    that starts there."""
    if b > a:
        k = bisect_right(starts, b - 1) - 1
        if k >= 0 and b - 1 < ends[k]:
            return k
    return min(bisect_left(starts, b), len(starts) - 1)


def _flatten(texts: Iterable[Any]) -> Iterable[str]:
    """Texts from an iterator of texts or of batches (lists or tuples) of texts, what transformers'
    callers pass; anything else is refused by name (a dataset row, a dict, would give its keys).

    >>> list(_flatten(["영화", ["정말", "재밌다"]]))
    ['영화', '정말', '재밌다']
    >>> list(_flatten([{"text": "영화 정말"}]))
    Traceback (most recent call last):
    TypeError: text_iterator item 0 is a dict ({'text': '영화 정말'}), not a text (str) nor a batch of texts (list or tuple of str); pass the texts themselves, e.g. (row["text"] for row in dataset)
    """
    for n, t in enumerate(texts):
        if isinstance(t, str):
            yield t
        elif isinstance(t, (list, tuple)) and all(isinstance(x, str) for x in t):
            yield from t
        else:
            raise TypeError(f"text_iterator item {n} is a {type(t).__name__} ({str(t)[:60]}), not a text (str) nor a "
                            "batch of texts (list or tuple of str); pass the texts themselves, e.g. "
                            '(row["text"] for row in dataset)')


def _check_json(path: Any) -> None:
    """A ``tokenizer.json`` that does not parse, or is not a regular file of at most
    :data:`~korean_bpe.io.serialization.MAX_FILE_BYTES`, named with the fix (transformers' own error
    is a bare ``JSONDecodeError``, or a hang on a FIFO)."""
    data = read_input_file(path, what="a tokenizer.json", max_bytes=MAX_FILE_BYTES)
    try:
        json.loads(data.decode("utf-8"))
    except (json.JSONDecodeError, UnicodeDecodeError) as exc:
        raise ValueError(f"{path}: not a valid tokenizer.json ({exc}); the file is damaged: delete it and save "
                         "the tokenizer again (KoreanBPETokenizerFast.from_korean_bpe(Tokenizer.load(dir / "
                         f"'{MODEL_SUBDIR}')).save_pretrained(dir))") from None


def _decoded(kb: Tokenizer, run: list[int], skip_special_tokens: bool) -> list[str]:
    text = kb.decode(run, skip_special_tokens=skip_special_tokens) if run else ""
    return [text] if text else []


def _utf8_len(text: str, chars: int) -> int:
    """HF's token offsets are UTF-8 byte offsets into the split."""
    return len(text[:chars].encode("utf-8"))


# A lone surrogate cannot cross into Rust (its strings are UTF-8): the fast tokenizer is shown
# U+F0000 + (surrogate - U+D800) instead (one character, so offsets stay), and the carrier encodes
# the real text.  A batch that holds both a surrogate and such a character is refused.
_STAND_IN = 0xF0000
_STAND_INS = re.compile("[\U000F0000-\U000F07FF]")


def _hide_surrogates(text: str) -> str:
    return SURROGATE.sub(lambda m: chr(_STAND_IN + ord(m.group()) - 0xD800), text)


def _reveal_surrogates(text: str) -> str:
    return _STAND_INS.sub(lambda m: chr(ord(m.group()) - _STAND_IN + 0xD800), text)


def _texts_in(x: Any) -> Iterable[str]:
    if isinstance(x, str):
        yield x
    elif isinstance(x, (list, tuple)):
        for y in x:
            yield from _texts_in(y)


def _has_surrogates(x: Any) -> bool:
    return any(SURROGATE.search(t) for t in _texts_in(x))


def _check_no_stand_ins(x: Any) -> None:
    bad = next((t for t in _texts_in(x) if _STAND_INS.search(t)), None)
    if bad is not None:
        raise ValueError(f"this batch holds lone surrogates and the text {bad!r}, with a character of "
                         "U+F0000..U+F07FF that stands in for them on the way to the fast tokenizer; "
                         "encode the texts with lone surrogates in a batch of their own")


def _map_texts(fn: Any, x: Any) -> Any:
    if isinstance(x, str):
        return fn(x)
    if isinstance(x, (list, tuple)):
        return type(x)(_map_texts(fn, y) for y in x)
    return x


# -- from_pretrained on a folder that is not there ------------------------------------------------

#: the values of HF_HUB_OFFLINE / TRANSFORMERS_OFFLINE that mean offline (huggingface_hub's)
_TRUE = frozenset({"1", "on", "yes", "true"})


def hub_offline() -> bool:
    """True when ``HF_HUB_OFFLINE`` or ``TRANSFORMERS_OFFLINE`` says offline (read now, not at import)."""
    return any(os.environ.get(v, "").strip().lower() in _TRUE for v in ("HF_HUB_OFFLINE", "TRANSFORMERS_OFFLINE"))


def looks_like_a_folder(name: Any) -> bool:
    """True when ``name`` can only be a path of this machine, never a Hub id (``name`` or
    ``namespace/name``, no trailing ``/``).

    >>> [looks_like_a_folder(n) for n in ("./my-model/", "~/m", "/tmp/m", "a/b/c", "my-model/", "..")]
    [True, True, True, True, True, True]
    >>> [looks_like_a_folder(n) for n in ("klue/roberta-base", "gpt2")]
    [False, False]
    """
    if not isinstance(name, str):
        return isinstance(name, os.PathLike)
    if name in (".", "..") or name.startswith(("./", "../", "~", "/")) or os.path.isabs(name):
        return True
    if any(sep and sep != "/" and sep in name for sep in (os.sep, os.altsep)):
        return True
    return "/" in name and (name.count("/") != 1 or name.endswith("/"))


def missing_folder_message(name: Any, *, offline: bool = False) -> str:
    """The error for a ``from_pretrained`` folder that is not there: the path, a near name beside
    it if there is one, and how to make the folder."""
    import difflib

    path = os.path.expanduser(os.fspath(name))
    parent, base = os.path.split(path.rstrip("/" + os.sep) or path)
    near = ""
    try:
        siblings = [e.name for e in os.scandir(parent or ".") if e.is_dir()]
    except OSError:
        siblings = []
    close = difflib.get_close_matches(base, siblings, n=1, cutoff=0.75) if base else []
    if close:
        near = f"; did you mean {os.path.join(parent, close[0])!r}?"
    hub = ("offline (HF_HUB_OFFLINE / local_files_only), and not in the Hub cache either; " if offline else "")
    return (f"no such folder: {os.fspath(name)!r} ({hub}from_pretrained(dir) loads a folder written by "
            f"save_pretrained(dir) or `korean-bpe export-hf -m model/ -o dir/`: check the path"
            f"{near or chr(59) + ' a Hub model is named ' + repr('namespace/name')})")


def _in_hub_cache(name: Any, cache_dir: Any) -> bool:
    """True when the Hub cache holds ``name``'s ``tokenizer_config.json`` (what an offline load reads)."""
    if not isinstance(name, str):
        return False
    try:
        from huggingface_hub import try_to_load_from_cache

        found = try_to_load_from_cache(name, "tokenizer_config.json", cache_dir=cache_dir)
    except Exception:  # an invalid repo id (HFValidationError), an unreadable cache
        return False
    return isinstance(found, str)
