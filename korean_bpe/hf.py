"""A ``transformers`` tokenizer that runs our morpheme analysis: :class:`KoreanBPETokenizerFast`.

HF ``tokenizers`` cannot serialize a Python pre-tokenizer, so a ``tokenizer.json`` exported from a
model trained on Okt / Kiwi / MeCab morphemes only works on words analysed by hand first.
``KoreanBPETokenizerFast`` (a ``PreTrainedTokenizerFast``) does that step itself: each text is
cut into morphemes by the model's own pre-tokenizer (analysis or lossless mode, batched: one
analyzer call per batch) and the words go to the fast tokenizer as pre-tokenized input
(``is_pretokenized``), which applies the unit, marker and merges in Rust.  Everything after that
is transformers' own: batches, padding, truncation, attention masks, ``return_tensors``,
``return_overflowing_tokens`` with ``stride``, special-token templates.  ``decode`` is ours
(:meth:`korean_bpe.Tokenizer.decode`, exact, jamo recomposed), with added tokens spliced in.

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
  output, e.g. ``kb.pre_tokenizer(text)``): they go to the fast tokenizer as they are.
* ``add_tokens``: the text is cut at each added token first (longest first, as HF matches them),
  the analyzer runs on the rest, each added token is one word of its own, so it keeps its one id
  and the text around it is analysed as usual.  Added tokens are matched on the raw text
  (``normalized=False`` is forced: the ``▁`` marker and the jamo unit's NFD would otherwise split
  them).  Kiwi's own ``SwTokenizer`` has no ``add_tokens``.
* ``return_overflowing_tokens=True`` with ``stride``: transformers' own windows over our ids.
* ``return_offsets_mapping=True`` with a morpheme pre-tokenizer raises ``ValueError``: the fast
  tokenizer would give offsets inside each analysed word, not in the text; mapping them back needs
  each word's span in the text, which the pre-tokenizers do not expose yet.  With ``whitespace``
  and ``raw`` (run inside ``tokenizer.json``) the offsets are HF's own, in the text.
* Ids are :meth:`korean_bpe.Tokenizer.encode`'s, except where HF and we treat special-token text
  differently: a text holding ``"<unk>"`` gets that token's id here (HF's rule), where
  ``Tokenizer.encode`` refuses it; and the jamo unit's NFD on non-Hangul (see
  :mod:`korean_bpe.io.hf`).

Needs transformers 5 (``_encode_plus`` is its one encoding seam; transformers 4 had two, with
other signatures, and is refused at import with the upgrade command).
"""

from __future__ import annotations

import json
import re
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from ._optional import require
from .io.hf import _ANALYZED_PRE_TOKENIZERS, _name, tokenizer_json
from .io.serialization import CONFIG_FILE, MERGES_FILE, VOCAB_FILE
from .markers import pieces_keep_spaces
from .tokenizer import Tokenizer

_transformers = require("transformers")
if int(_transformers.__version__.split(".")[0]) < 5:
    raise ImportError(f"korean_bpe.hf needs transformers >= 5 (its _encode_plus seam); found {_transformers.__version__}: "
                      'pip install -U "transformers>=5"')
require("tokenizers")
from tokenizers import AddedToken  # noqa: E402
from tokenizers import Tokenizer as _HFTokenizer  # noqa: E402

__all__ = ["KoreanBPETokenizerFast", "MODEL_SUBDIR"]

#: the directory, inside a ``save_pretrained`` directory, that holds our own model files
MODEL_SUBDIR = "korean_bpe"
#: the two-line module ``save_pretrained`` writes for ``AutoTokenizer(..., trust_remote_code=True)``:
#: it imports this class from the installed korean_bpe (no code of ours is copied or downloaded)
_SHIM_MODULE = "tokenization_korean_bpe"


def backend_tokenizer(tok: Tokenizer) -> Any:
    """The ``tokenizers.Tokenizer`` behind :class:`KoreanBPETokenizerFast` for ``tok``: the
    :mod:`korean_bpe.io.hf` export, for pre-tokenized words when ``tok`` analyses morphemes."""
    pretokenized = _name(tok.pre_tokenizer) in _ANALYZED_PRE_TOKENIZERS
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

    def __init__(
        self,
        *args: Any,
        korean_bpe_tokenizer: Tokenizer | None = None,
        korean_bpe_vocab_file: str | None = None,
        korean_bpe_merges_file: str | None = None,
        korean_bpe_config_file: str | None = None,
        **kwargs: Any,
    ) -> None:
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
        self._analyzes = _name(korean_bpe_tokenizer.pre_tokenizer) in _ANALYZED_PRE_TOKENIZERS
        if kwargs.get("tokenizer_file") is None and kwargs.get("tokenizer_object") is None:
            kwargs["tokenizer_object"] = backend_tokenizer(korean_bpe_tokenizer)
        if korean_bpe_tokenizer.unk_token is not None:
            kwargs.setdefault("unk_token", korean_bpe_tokenizer.unk_token)
        kwargs.setdefault("clean_up_tokenization_spaces", False)
        kwargs.pop("auto_map", None)  # written again by save_pretrained
        super().__init__(*args, **kwargs)
        self._auto_map = {"AutoTokenizer": [None, f"{_SHIM_MODULE}.{type(self).__name__}"]}

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

    # --- analysis before the fast tokenizer -------------------------------------------------------

    def _split_pattern(self, split_special_tokens: bool) -> re.Pattern[str] | None:
        """The added tokens the text is cut at, longest first (special ones not when
        ``split_special_tokens``: their text is then ordinary text)."""
        contents = {t.content for t in self.added_tokens_decoder.values()
                    if t.content and not (split_special_tokens and t.special)}
        if not contents:
            return None
        return re.compile("|".join(re.escape(c) for c in sorted(contents, key=lambda c: (-len(c), c))))

    def _analyse(self, texts: Sequence[str], split_special_tokens: bool) -> list[list[str]]:
        """Each text as words: added tokens whole, the rest through our pre-tokenizer (one batch)."""
        pattern = self._split_pattern(split_special_tokens)
        plans: list[list[tuple[bool, str]]] = []
        segments: list[str] = []
        for text in texts:
            if not isinstance(text, str):
                raise TypeError(f"texts must be strings (or pass is_split_into_words=True with analysed words), "
                                f"got {type(text).__name__} {text!r}")
            plan: list[tuple[bool, str]] = []
            cursor = 0
            for m in pattern.finditer(text) if pattern is not None else ():
                if m.start() > cursor:
                    plan.append((False, text[cursor:m.start()]))
                plan.append((True, m.group()))
                cursor = m.end()
            if cursor < len(text) or not plan:
                plan.append((False, text[cursor:]))
            segments += [s for added, s in plan if not added]
            plans.append(plan)
        analysed = iter(self._korean_bpe.pre_tokenizer.batch(segments, show_progress=False)) if segments else iter(())
        out: list[list[str]] = []
        for plan in plans:
            words: list[str] = []
            for added, s in plan:
                words += [s] if added else next(analysed)
            out.append(words)
        return out

    def _to_words(self, text: Any, pair: Any, split_special_tokens: bool | None) -> tuple[Any, Any]:
        split = self.split_special_tokens if split_special_tokens is None else split_special_tokens
        if isinstance(text, str):
            return self._analyse([text], split)[0], None if pair is None else self._analyse([pair], split)[0]
        text = list(text)
        if pair is None and text and all(isinstance(t, (tuple, list)) and len(t) == 2 for t in text):
            firsts, seconds = self._analyse([a for a, _ in text], split), self._analyse([b for _, b in text], split)
            return list(zip(firsts, seconds)), None  # a batch of (text, pair) tuples
        return self._analyse(text, split), None if pair is None else self._analyse(list(pair), split)

    def _check_offsets(self, return_offsets_mapping: bool) -> None:
        if return_offsets_mapping and self._analyzes:
            raise ValueError(
                "return_offsets_mapping=True is not supported with the morpheme pre-tokenizer "
                f"{self._korean_bpe.pre_tokenizer!r}: the fast tokenizer only sees the analysed words, so its offsets "
                "are inside each word, not in the text; use word_ids() on the result to map tokens to the analysed "
                "words, or a whitespace/raw model, whose offsets are in the text"
            )

    def _encode_plus(self, text: Any, text_pair: Any = None, *args: Any, is_split_into_words: bool = False,
                     return_offsets_mapping: bool = False, split_special_tokens: bool | None = None,
                     **kwargs: Any) -> Any:
        self._check_offsets(return_offsets_mapping)
        if self._analyzes and not is_split_into_words:
            text, text_pair = self._to_words(text, text_pair, split_special_tokens)
            is_split_into_words = True
        return super()._encode_plus(text, text_pair, *args, is_split_into_words=is_split_into_words,
                                    return_offsets_mapping=return_offsets_mapping,
                                    split_special_tokens=split_special_tokens, **kwargs)

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
        :func:`korean_bpe.markers.pieces_keep_spaces`, as the marker checks ask)."""
        if isinstance(token_ids, int):
            token_ids = [token_ids]
        ids = [int(i) for i in token_ids]
        kb = self._korean_bpe
        n = kb.vocab_size
        added = self.added_tokens_decoder
        pieces: list[str] = []
        run: list[int] = []
        for i in [*ids, -1]:
            if 0 <= i < n:
                run.append(i)
                continue
            if run:
                text = kb.decode(run, skip_special_tokens=skip_special_tokens)
                if text:
                    pieces.append(text)
                run = []
            if i == -1:
                break
            token = added.get(i)
            if token is None:
                raise ValueError(f"id {i} is neither a model id (0..{n - 1}) nor an added token's")
            if not (skip_special_tokens and token.special):
                pieces.append(token.content)
        return ("" if pieces_keep_spaces(kb.pre_tokenizer) else " ").join(pieces)

    # --- files ------------------------------------------------------------------------------------

    def _save_pretrained(self, save_directory: Any, file_names: tuple[str, ...], *args: Any, **kwargs: Any) -> tuple[str, ...]:
        from .io.files import atomic_write_text

        files = super()._save_pretrained(save_directory, file_names, *args, **kwargs)
        model_dir = self._korean_bpe.save(Path(save_directory) / MODEL_SUBDIR)
        shim = atomic_write_text(
            Path(save_directory) / f"{_SHIM_MODULE}.py",
            '"""Lets AutoTokenizer.from_pretrained(dir, trust_remote_code=True) load the installed korean_bpe."""\n'
            f"from korean_bpe.hf import {type(self).__name__}  # noqa: F401  (pip install \"korean_bpe[hf]\")\n",
        )
        return (*files, *(str(model_dir / name) for name in (VOCAB_FILE, MERGES_FILE, CONFIG_FILE)), str(shim))
