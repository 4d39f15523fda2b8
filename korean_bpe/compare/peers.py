"""Peers: the tokenizers people would use instead, trained on the same texts at the same size.

:func:`train_peer` trains one of :data:`PEERS` and returns a segmenter that compare() measures
exactly like our own strategies (the ``Segmenter`` protocol of :mod:`korean_bpe.compare.segmenters`,
implemented structurally: ``strategy``, ``kind``, ``pre_tokenizer``, ``unit``, ``lossless``,
``vocab_size``, ``unk_ids``, ``encode_batch``, ``decode``, ``pieces``, ``vocab_surfaces``).

=========================  =================  =============  ========  ==========================
peer                       library            unit           lossless  pre-tokenization
=========================  =================  =============  ========  ==========================
``sentencepiece-bpe``      sentencepiece      sentencepiece  no        its own (``▁`` + spaces)
``sentencepiece-unigram``  sentencepiece      sentencepiece  no        its own (``▁`` + spaces)
``hf-bpe``                 tokenizers         byte           yes       ByteLevel (GPT-2 regex)
``hf-wordpiece``           tokenizers         wordpiece      no        BertPreTokenizer
``kiwi-bpe``               kiwipiepy >= 0.24  byte           yes       ``kiwi`` (training only)
``kiwi-swtokenizer``       kiwipiepy          swtokenizer    no        ``kiwi`` (Kiwi analysis)
=========================  =================  =============  ========  ==========================

Settings (each library's defaults unless listed; the reasons are the comparison's):

* **SentencePiece** (BPE and Unigram) is trained in memory (``sentence_iterator`` and
  ``model_writer``: no file is written) with ``normalization_rule_name="identity"`` and
  ``remove_extra_whitespaces=False`` (the normalizer changes nothing, so white space survives),
  ``character_coverage=1.0`` (every training character is in the vocabulary),
  ``hard_vocab_limit=False`` (a small corpus may not reach the size asked; ``vocab_size`` is the
  size reached), ``max_sentence_length`` raised to the longest text (SentencePiece silently skips
  longer ones), ``byte_fallback=False`` (SentencePiece's default: a character unseen in training
  is ``<unk>`` and decodes as `` ⁇ ``, so these peers are not lossless; pass
  ``byte_fallback=True`` to :func:`train_sentencepiece` for the Llama-style variant, which is
  lossless and says so) and the
  default ``<unk>``, ``<s>``, ``</s>`` (3 of the ids).  Determinism: SentencePiece draws random
  numbers only to sample or shuffle input sentences (``input_sentence_size``, off here: every
  text is used); :func:`train_sentencepiece` still seeds its process-wide generator
  (``set_random_generator_seed(seed)``), and fixes ``num_threads`` (Unigram's E-step sums
  per-thread partial sums, so the thread count is part of the result; the same count on any
  machine gives the same model).
* **hf-bpe**: a byte-level BPE (GPT-2 style: ``ByteLevel(add_prefix_space=False)`` pre-tokenizer
  and decoder, the 256 byte symbols as initial alphabet, no normalizer, no special token), the
  setting of byte-level Korean models such as Polyglot-Ko.  It is the same family as ``kiwi-bpe``
  (also byte-level, no prefix space), so the pair isolates what Kiwi's morpheme boundaries change.
  A SentencePiece-style ``Metaspace`` BPE would repeat ``sentencepiece-bpe``.
* **hf-wordpiece**: BERT's ``BertPreTokenizer`` (splits on white space and punctuation) and
  ``WordPiece`` decoder, as KLUE-BERT-style Korean models use, without BERT's normalizer (its
  accent stripping decomposes Hangul into jamo) and with ``[UNK]`` as the only special token.  A
  word holding a character outside the vocabulary is one ``[UNK]`` (WordPiece's rule).  HF's
  WordPiece trainer is *not* fully deterministic: it numbers the ``##`` symbols in hash-map order
  and breaks equal-count merges by id, so two trainings can differ in a few of the last tokens
  (huggingface/tokenizers#1794; a fix is proposed upstream in PR #2066).  The tests bound the
  drift (under 3% of the vocabulary, 98% of documents segmented the same); the other five peers
  give the same ids run after run.
* **kiwi-bpe**: ``kiwipiepy.bpe_trainer.train_bpe_tokenizer`` with the four morpheme-boundary
  options on (``pretokenize_j``, ``_e``, ``_vcp``, ``_xsv``: no merge crosses a 조사, 어미,
  -이다 or derivational-suffix boundary during training), ``min_pair_frequency=5`` (its
  default, so a small corpus can stop short of the size asked), single-threaded.  It writes a
  Hugging Face ``tokenizer.json`` (ByteLevel), read back into ``tokenizers`` and deleted; encoding
  does not run Kiwi (the merges carry the morphology).
* **kiwi-swtokenizer**: ``SwTokenizer.train`` with the default :class:`SwTokenizerConfig`
  (morpheme tags such as ``어/E``, glue token ``##``, ``fallback_hangul``) and
  ``chr_coverage=1.0`` as SentencePiece's; encoding analyses each text with Kiwi.  Its vocabulary
  always holds the Hangul fallback (every 초성+중성 syllable and 종성 jamo, about 430 tokens),
  so a smaller size asked is exceeded; decoding re-spaces morphemes and punctuation and can drop
  a morpheme, so it is not lossless.  Training runs in a spawned child process: kiwipiepy
  0.24.1's trainer segfaults on the NSMC training reviews, and a crash must not take the caller
  (compare()) down with it; it becomes a :class:`PeerCrash` (a :class:`RuntimeError`, see
  :func:`run_isolated`).  The child is kept for the next training, its Kiwi loaded (a new child
  spends some 4 s of CPU loading Kiwi and its first analyses: every size of a comparison paid it);
  a comparison ends it once the peer's sizes are trained (:func:`end_isolated`).

``pre_tokenizer`` is ``"kiwi"`` for both Kiwi peers (Kiwi's morphology shaped their vocabulary, so
a Kiwi-gold morpheme F1 grades them with their own ruler) and ``""`` for the others, which split
text themselves.  ``seed`` is accepted by every peer; only SentencePiece has random state, the
other trainers have no random state (the tests check each; see hf-wordpiece above).

``vocab_surfaces()`` gives each ordinary token as the bytes of the text it stands for:
SentencePiece's ``▁`` and WordPiece's ``##`` prefix stripped, GPT-2's byte alphabet mapped back to
bytes (a leading space byte is a real space there and stays), SwTokenizer's ``##`` prefix and
``/tag`` suffix stripped; special and control tokens, ``<unk>`` and SwTokenizer's glue token
(which stands for no text) are left out.

Readable tokens in :meth:`pieces` are each library's own strings (``▁영화``, ``##화``, ``었/E``),
except for byte-level peers, whose GPT-2 characters (``ìĺģ``) are shown as the text the bytes
spell, with ``<0xEC>`` for a byte that is only part of a character.
"""

from __future__ import annotations

import importlib
import io
import json
import os
import re
import tempfile
import threading
from collections.abc import Callable, Iterable, Sequence
from pathlib import Path
from typing import Any

from .._optional import MissingDependencyError, require

__all__ = [
    "PEERS", "train_peer", "train_sentencepiece", "train_hf_bpe", "train_hf_wordpiece",
    "train_kiwi_bpe", "train_kiwi_swtokenizer", "Peer", "SentencePiecePeer", "HFPeer", "SwTokenizerPeer",
    "char_spans_from_byte_offsets", "byte_level_decode", "readable_bytes", "run_isolated", "end_isolated",
    "TRUNCATABLE_PEERS",
    "PeerCrash", "peer_to_entry", "peer_from_entry", "TRAIN_ONLY_PEERS",
]

PEERS: tuple[str, ...] = (
    "sentencepiece-bpe", "sentencepiece-unigram", "hf-bpe", "hf-wordpiece", "kiwi-bpe", "kiwi-swtokenizer",
)

#: SentencePiece BPE trained with ``pretokenization_delimiter`` on texts cut at an analyzer's
#: morphemes (beside our ``*-train`` rows: :data:`korean_bpe.compare.strategies.TRAIN_ONLY`)
TRAIN_ONLY_PEERS: tuple[str, ...] = ("sentencepiece-bpe/okt-train", "sentencepiece-bpe/kiwi-train",
                                     "sentencepiece-bpe/mecab-train")

#: peers whose trainer is greedy byte-level BPE (merges picked one at a time, most frequent first,
#: ties broken deterministically): a model trained at a smaller size is the first ``n`` tokens and
#: merges of one trained at a larger size, so :meth:`HFPeer.truncate` of the larger one *is* the
#: smaller one (tests/test_peers.py checks the ids on real texts; compare() trains them once per
#: sweep).  Not WordPiece (HF numbers its ``##`` symbols in hash-map order) nor SentencePiece.
TRUNCATABLE_PEERS: tuple[str, ...] = ("hf-bpe", "kiwi-bpe")

#: thread count SentencePiece trains with: fixed, so a model does not depend on the machine
SENTENCEPIECE_THREADS = 2

_KIWI_BPE_MIN_VERSION = "0.24"


# ---------------------------------------------------------------------------------------------
# pure helpers


def char_spans_from_byte_offsets(text: str, spans: Iterable[tuple[int, int]]) -> list[tuple[int, int]]:
    """UTF-8 byte spans of ``text`` as character spans; a span covering part of a character covers
    that whole character (start rounded down, end rounded up).

    >>> char_spans_from_byte_offsets("한 a", [(0, 3), (3, 4), (4, 5), (1, 2), (3, 3)])
    [(0, 1), (1, 2), (2, 3), (0, 1), (1, 1)]
    """
    data = text.encode("utf-8")
    # char index of each byte offset: starts[b] = index of the character holding byte b
    starts = [0] * (len(data) + 1)
    pos = 0
    for i, ch in enumerate(text):
        n = len(ch.encode("utf-8"))
        for b in range(pos, pos + n):
            starts[b] = i
        pos += n
    starts[len(data)] = len(text)

    def ceil(b: int) -> int:
        return starts[b] if b == len(data) or _is_lead(data[b]) else starts[b] + 1

    out = []
    for s, e in spans:
        if not 0 <= s <= e <= len(data):
            raise ValueError(f"byte span ({s}, {e}) is outside the {len(data)} bytes of {text!r}")
        cs = starts[s] if s < len(data) else len(text)
        out.append((cs, max(cs, ceil(e))))
    return out


def _is_lead(byte: int) -> bool:
    return byte & 0xC0 != 0x80


def _gpt2_byte_decoder() -> dict[str, int]:
    """GPT-2's printable stand-in character -> byte (the inverse of its ``bytes_to_unicode``)."""
    keep = [*range(ord("!"), ord("~") + 1), *range(ord("¡"), ord("¬") + 1), *range(ord("®"), ord("ÿ") + 1)]
    table = {chr(b): b for b in keep}
    n = 0
    for b in range(256):
        if b not in keep:
            table[chr(256 + n)] = b
            n += 1
    return table


_BYTE_DECODER = _gpt2_byte_decoder()


def byte_level_decode(token: str) -> bytes:
    """The bytes a GPT-2 byte-level token stands for.

    >>> byte_level_decode("Ġìĺģ").decode()
    ' 영'
    >>> byte_level_decode("ì")
    b'\\xec'
    """
    try:
        return bytes(_BYTE_DECODER[c] for c in token)
    except KeyError as exc:
        raise ValueError(f"{token!r} is not a GPT-2 byte-level token (no byte for {exc.args[0]!r})") from None


def readable_bytes(data: bytes) -> str:
    """Bytes as text, each byte that is not part of a whole UTF-8 character shown as ``<0xNN>``.

    >>> readable_bytes("영화".encode())
    '영화'
    >>> readable_bytes("영".encode()[:2])
    '<0xEC><0x98>'
    """
    text = data.decode("utf-8", errors="surrogateescape")
    return re.sub("[\udc80-\udcff]", lambda m: f"<0x{ord(m.group()) - 0xDC00:02X}>", text)


_SW_TAG = re.compile(r"/[A-Z]{1,3}(?:-[A-Z])?$")


def _sw_surface(token: str) -> str:
    """SwTokenizer token -> the text it stands for: ``##`` prefix and ``/tag`` suffix stripped.

    >>> [_sw_surface(t) for t in ["었/E", "##화", "영화", "ᆫ다/E", "/"]]
    ['었', '화', '영화', 'ᆫ다', '/']
    """
    if token.startswith("##") and len(token) > 2:
        token = token[2:]
    if len(token) > 1:
        token = _SW_TAG.sub("", token) or token
    return token


# ---------------------------------------------------------------------------------------------
# segmenters


class Peer:
    """What every peer shares: the Segmenter attributes and ``encode`` through ``encode_batch``."""

    kind: str = "peer"
    strategy: str
    pre_tokenizer: str
    unit: str
    lossless: bool
    vocab_size: int
    unk_ids: frozenset[int]

    def encode(self, text: str) -> list[int]:
        """Token ids of one text (the batch path with one text)."""
        return self.encode_batch([text])[0]

    def encode_batch(self, texts: Sequence[str]) -> list[list[int]]:
        raise NotImplementedError

    def encode_with_spans(self, texts: Sequence[str]) -> tuple[list[list[int]], list[list[tuple[int, int]]] | None]:
        """:meth:`encode_batch`, and no spans (a library that gives them in the same pass overrides it)."""
        return self.encode_batch(texts), None

    def merge_triples(self) -> None:
        """None: a peer's merges are not ours to read (its residue rate is NaN)."""
        return None

    def clear_cache(self) -> None:
        """Nothing to forget: the peers' libraries keep no word cache of ours."""

    def __repr__(self) -> str:
        return f"{type(self).__name__}(strategy={self.strategy!r}, vocab_size={self.vocab_size})"


class SentencePiecePeer(Peer):
    """A trained SentencePiece model (BPE or Unigram)."""

    def __init__(self, processor: Any, *, strategy: str, lossless: bool) -> None:
        self._sp = processor
        self.strategy = strategy
        self.pre_tokenizer = ""
        self.unit = "sentencepiece"
        # without byte fallback, characters unseen in training decode as " ⁇ "
        self.lossless = lossless
        self.vocab_size = processor.get_piece_size()
        unk = processor.unk_id()
        self.unk_ids = frozenset([unk] if unk >= 0 else [])

    @property
    def processor(self) -> Any:
        """The ``sentencepiece.SentencePieceProcessor``."""
        return self._sp

    def encode_batch(self, texts: Sequence[str]) -> list[list[int]]:
        return [list(ids) for ids in self._sp.encode(list(texts))]

    def decode(self, ids: Sequence[int]) -> str:
        return self._sp.decode([int(i) for i in ids])

    def pieces(self, text: str) -> list[tuple[str, int, int]]:
        sp = self._sp
        ids, byte_spans = _sentencepiece_byte_spans(sp, text)
        spans = char_spans_from_byte_offsets(text, byte_spans)
        # SentencePiece gives a character's whole span to its last byte piece and an empty one to
        # the others: each byte piece covers the character it is part of
        return [
            (sp.id_to_piece(i), s, s + 1 if s == e and s < len(text) and sp.is_byte(i) else e)
            for i, (s, e) in zip(ids, spans)
        ]

    def vocab_surfaces(self) -> list[bytes]:
        sp = self._sp
        out = []
        for i in range(sp.get_piece_size()):
            if sp.is_control(i) or sp.is_unknown(i) or sp.is_unused(i):
                continue
            piece = sp.id_to_piece(i)
            if sp.is_byte(i):  # "<0xEC>"
                out.append(bytes([int(piece[3:5], 16)]))
            else:
                out.append(piece.replace("\u2581", "").encode("utf-8"))
        return out


def _sentencepiece_byte_spans(sp: Any, text: str) -> tuple[list[int], list[tuple[int, int]]]:
    """Ids of ``text`` and each piece's UTF-8 byte span: from ``offset_mapping`` (sentencepiece
    0.2.1+), else from the immutable proto of older versions."""
    try:
        res = sp.encode(text, return_type="offset_mapping", return_bytes=True)
    except (TypeError, ValueError):
        proto = sp.encode(text, out_type="immutable_proto")
        return [p.id for p in proto.pieces], [(p.begin, p.end) for p in proto.pieces]
    return list(res["ids"]), [tuple(o) for o in res["offsets"]]


class HFPeer(Peer):
    """A trained Hugging Face ``tokenizers.Tokenizer`` (hf-bpe, hf-wordpiece, kiwi-bpe)."""

    def __init__(self, tokenizer: Any, *, strategy: str, unit: str, lossless: bool, pre_tokenizer: str = "") -> None:
        self._tk = tokenizer
        self.strategy = strategy
        self.unit = unit
        self.lossless = lossless
        self.pre_tokenizer = pre_tokenizer
        self.vocab_size = tokenizer.get_vocab_size(with_added_tokens=True)
        model = json.loads(tokenizer.to_str())["model"]
        self._byte_level = unit == "byte"
        self._prefix = (model.get("continuing_subword_prefix") or "") if model["type"] == "WordPiece" else ""
        unk = model.get("unk_token")
        unk_id = tokenizer.token_to_id(unk) if unk else None
        self.unk_ids = frozenset([unk_id] if unk_id is not None else [])
        self._special = frozenset(i for i, t in tokenizer.get_added_tokens_decoder().items() if t.special)
        self._batch = getattr(tokenizer, "encode_batch_fast", tokenizer.encode_batch)

    @property
    def tokenizer(self) -> Any:
        """The ``tokenizers.Tokenizer``."""
        return self._tk

    def encode_batch(self, texts: Sequence[str]) -> list[list[int]]:
        return [enc.ids for enc in self._batch(list(texts), add_special_tokens=False)]

    def truncate(self, vocab_size: int) -> HFPeer:
        """The BPE model cut to its first ``vocab_size`` ids: the tokens with a smaller id and the
        merges that make them (for :data:`TRUNCATABLE_PEERS`, the model training at that size gives).

        >>> texts = ["이 영화 최고", "이 영화 별로", "영화를 봤다"] * 5
        >>> small = train_hf_bpe(texts, vocab_size=270).truncate(262)
        >>> small.vocab_size, small.pieces("영화를")
        (262, [('영화', 0, 2), ('<0xEB>', 2, 3), ('<0xA5>', 2, 3), ('<0xBC>', 2, 3)])
        >>> small.encode_batch(texts) == train_hf_bpe(texts, vocab_size=262).encode_batch(texts)
        True
        """
        if isinstance(vocab_size, bool) or not isinstance(vocab_size, int) or vocab_size < 1:
            raise ValueError(f"vocab_size must be a positive int, got {vocab_size!r}")
        if vocab_size >= self.vocab_size:
            return self
        data = json.loads(self._tk.to_str())
        model = data["model"]
        if model.get("type") != "BPE":
            raise ValueError(f"only a BPE model can be truncated; {self.strategy} is {model.get('type')}")
        vocab = {t: i for t, i in model["vocab"].items() if i < vocab_size}
        kept = []
        for merge in model["merges"]:
            a, b = merge if isinstance(merge, list) else merge.split(" ", 1)
            if a + b in vocab and a in vocab and b in vocab:
                kept.append(merge)
        model["vocab"], model["merges"] = vocab, kept
        data["added_tokens"] = [t for t in data.get("added_tokens") or [] if t["id"] < vocab_size]
        tokenizer = type(self._tk).from_str(json.dumps(data, ensure_ascii=False))
        return HFPeer(tokenizer, strategy=self.strategy, unit=self.unit, lossless=self.lossless,
                      pre_tokenizer=self.pre_tokenizer)

    def decode(self, ids: Sequence[int]) -> str:
        return self._tk.decode([int(i) for i in ids], skip_special_tokens=False)

    def pieces(self, text: str) -> list[tuple[str, int, int]]:
        enc = self._tk.encode(text, add_special_tokens=False)
        tokens = [readable_bytes(byte_level_decode(t)) for t in enc.tokens] if self._byte_level else enc.tokens
        if self._byte_level:  # a leading space as the ▁ the other rows show
            tokens = ["▁" + t[1:] if t.startswith(" ") else t for t in tokens]
        return [(t, s, e) for t, (s, e) in zip(tokens, enc.offsets)]

    def encode_with_spans(self, texts: Sequence[str]) -> tuple[list[list[int]], list[list[tuple[int, int]]]]:
        """:meth:`encode_batch` of ``texts`` and the spans of :meth:`pieces` of each, in one batch
        call (compare() needs both for every held-out text; the token strings are only for people).

        >>> bpe = train_hf_bpe(["이 영화 최고", "이 영화 별로", "영화를 봤다"] * 5, vocab_size=270)
        >>> bpe.encode_with_spans(["영화를"]) == (bpe.encode_batch(["영화를"]), [[(s, e) for _, s, e in bpe.pieces("영화를")]])
        True
        """
        encodings = self._tk.encode_batch(list(texts), add_special_tokens=False)
        return [enc.ids for enc in encodings], [list(enc.offsets) for enc in encodings]

    def vocab_surfaces(self) -> list[bytes]:
        out = []
        for token, i in sorted(self._tk.get_vocab(with_added_tokens=True).items(), key=lambda kv: kv[1]):
            if i in self._special or i in self.unk_ids:
                continue
            if self._byte_level:
                out.append(byte_level_decode(token))
            else:
                if self._prefix and token.startswith(self._prefix) and len(token) > len(self._prefix):
                    token = token[len(self._prefix):]
                out.append(token.encode("utf-8"))
        return out


class SwTokenizerPeer(Peer):
    """A trained ``kiwipiepy.sw_tokenizer.SwTokenizer``."""

    def __init__(self, tokenizer: Any, *, strategy: str = "kiwi-swtokenizer") -> None:
        self._tk = tokenizer
        self.strategy = strategy
        self.pre_tokenizer = "kiwi"
        self.unit = "swtokenizer"
        self.lossless = False  # decode re-spaces morphemes and punctuation (SwTokenizer's docs say so)
        self._id2vocab: list[str] = list(tokenizer.id2vocab)
        self.vocab_size = len(self._id2vocab)
        unk = tokenizer.unk_token_id
        self.unk_ids = frozenset([unk] if unk is not None else [])
        self._special = frozenset(tokenizer.all_special_ids)
        self._source: bytes | None = None  # the trained file (for compare()'s model cache)

    @property
    def tokenizer(self) -> Any:
        """The ``kiwipiepy.sw_tokenizer.SwTokenizer``."""
        return self._tk

    def encode_batch(self, texts: Sequence[str]) -> list[list[int]]:
        return [ids.tolist() for ids in self._tk.encode(list(texts))]

    def decode(self, ids: Sequence[int]) -> str:
        return self._tk.decode([int(i) for i in ids])

    def pieces(self, text: str) -> list[tuple[str, int, int]]:
        ids, offsets = self._tk.encode(text, return_offsets=True)
        return [(self._id2vocab[i], int(s), int(e)) for i, (s, e) in zip(ids.tolist(), offsets.tolist())]

    def vocab_surfaces(self) -> list[bytes]:
        return [
            _sw_surface(t).encode("utf-8")
            for i, t in enumerate(self._id2vocab)
            if i not in self._special and t != "##"  # "##" alone is the glue token: it stands for no text
        ]


# ---------------------------------------------------------------------------------------------
# training


def _check_args(texts: Sequence[str], vocab_size: int) -> list[str]:
    if isinstance(texts, (str, bytes)):
        raise TypeError("texts must be a sequence of strings, not one string: pass [text]")
    texts = list(texts)
    bad = next((t for t in texts if not isinstance(t, str)), None)
    if bad is not None:
        raise TypeError(f"texts must hold strings, got {type(bad).__name__} ({bad!r:.40}): decode them first")
    if not any(t.strip() for t in texts):
        raise ValueError("texts holds no non-blank text: give the peer some Korean text to train on")
    if isinstance(vocab_size, bool) or not isinstance(vocab_size, int) or vocab_size < 1:
        raise ValueError(f"vocab_size must be a positive int, got {vocab_size!r}")
    return texts


def train_sentencepiece(
    texts: Sequence[str], *, vocab_size: int, model_type: str = "unigram", seed: int = 0, byte_fallback: bool = False,
    pretokenization_delimiter: str = "",
) -> SentencePiecePeer:
    """Train SentencePiece (``model_type`` ``"bpe"`` or ``"unigram"``) in memory; see the module
    docstring for the settings.

    >>> sp = train_sentencepiece(["이 영화 최고", "이 영화 별로", "영화를 봤다"] * 5, vocab_size=18, model_type="bpe")
    >>> sp.vocab_size, sp.pieces("이 영화")
    (18, [('▁이', 0, 1), ('▁영화', 1, 4)])
    >>> sp.decode(sp.encode("영화 봤다 ㅋㅋ"))
    '영화 봤다  ⁇ '

    With ``byte_fallback=True`` an unseen character is spelled in bytes (each byte piece covers
    the character) and decoding gives the text back:

    >>> sp = train_sentencepiece(["이 영화 최고", "이 영화 별로", "영화를 봤다"] * 5, vocab_size=300,
    ...                          model_type="bpe", byte_fallback=True)
    >>> sp.lossless, sp.pieces("ㅋ 영화")
    (True, [('▁', 0, 0), ('<0xE3>', 0, 1), ('<0x85>', 0, 1), ('<0x8B>', 0, 1), ('▁영화', 1, 4)])
    >>> sp.decode(sp.encode("ㅋ 영화"))
    'ㅋ 영화'

    ``pretokenization_delimiter``: SentencePiece's option, a string in the training texts where no
    piece may cross (the ``*-train`` peers: U+FFFF at the morpheme boundaries,
    :func:`korean_bpe.pre_tokenizers.boundaries.mark_boundaries`); encoding reads plain text.
    """
    texts = _check_args(texts, vocab_size)
    if model_type not in ("bpe", "unigram"):
        raise ValueError(f"model_type must be 'bpe' or 'unigram', got {model_type!r}")
    spm = require("sentencepiece")
    spm.set_random_generator_seed(seed)
    longest = max(len(t.encode("utf-8")) for t in texts)
    model = io.BytesIO()
    try:
        spm.SentencePieceTrainer.train(
            sentence_iterator=iter(texts), model_writer=model, model_type=model_type, vocab_size=vocab_size,
            normalization_rule_name="identity", remove_extra_whitespaces=False, character_coverage=1.0,
            hard_vocab_limit=False, byte_fallback=byte_fallback, max_sentence_length=max(4192, longest + 1),
            num_threads=SENTENCEPIECE_THREADS, minloglevel=2,
            **({"pretokenization_delimiter": pretokenization_delimiter} if pretokenization_delimiter else {}),
        )
    except RuntimeError as exc:
        raise ValueError(
            f"SentencePiece ({model_type}) cannot train a {vocab_size}-token vocabulary on these texts: {exc} "
            "(a vocab_size above the number of distinct characters usually fixes it)"
        ) from exc
    processor = spm.SentencePieceProcessor(model_proto=model.getvalue())
    return SentencePiecePeer(processor, strategy=f"sentencepiece-{model_type}", lossless=byte_fallback)


def train_hf_bpe(texts: Sequence[str], *, vocab_size: int) -> HFPeer:
    """Train a GPT-2-style byte-level BPE with Hugging Face ``tokenizers``.

    >>> bpe = train_hf_bpe(["이 영화 최고", "이 영화 별로", "영화를 봤다"] * 5, vocab_size=270)
    >>> bpe.vocab_size, bpe.pieces("영화를")
    (270, [('영화', 0, 2), ('<0xEB>', 2, 3), ('<0xA5><0xBC>', 2, 3)])
    >>> bpe.decode(bpe.encode("영화를 봤다 ㅋㅋ 😀"))
    '영화를 봤다 ㅋㅋ 😀'
    """
    texts = _check_args(texts, vocab_size)
    tk_mod = require("tokenizers")
    from tokenizers import decoders, models, pre_tokenizers, trainers

    tokenizer = tk_mod.Tokenizer(models.BPE())
    tokenizer.pre_tokenizer = pre_tokenizers.ByteLevel(add_prefix_space=False, use_regex=True)
    tokenizer.decoder = decoders.ByteLevel()
    trainer = trainers.BpeTrainer(
        vocab_size=vocab_size, show_progress=False, initial_alphabet=pre_tokenizers.ByteLevel.alphabet(),
        special_tokens=[],
    )
    tokenizer.train_from_iterator(texts, trainer=trainer, length=len(texts))
    return HFPeer(tokenizer, strategy="hf-bpe", unit="byte", lossless=True)


def train_hf_wordpiece(texts: Sequence[str], *, vocab_size: int) -> HFPeer:
    """Train a BERT-style WordPiece with Hugging Face ``tokenizers``.

    >>> wp = train_hf_wordpiece(["이 영화 최고", "이 영화 별로"] * 5, vocab_size=30)
    >>> [t for t, _, _ in wp.pieces("영화 최고!")]
    ['영화', '최고', '[UNK]']
    """
    texts = _check_args(texts, vocab_size)
    tk_mod = require("tokenizers")
    from tokenizers import decoders, models, pre_tokenizers, trainers

    tokenizer = tk_mod.Tokenizer(models.WordPiece(unk_token="[UNK]"))
    tokenizer.pre_tokenizer = pre_tokenizers.BertPreTokenizer()
    tokenizer.decoder = decoders.WordPiece()
    trainer = trainers.WordPieceTrainer(vocab_size=vocab_size, show_progress=False, special_tokens=["[UNK]"])
    tokenizer.train_from_iterator(texts, trainer=trainer, length=len(texts))
    return HFPeer(tokenizer, strategy="hf-wordpiece", unit="wordpiece", lossless=False)


_kiwi_lock = threading.Lock()
_kiwi_instance: Any = None


def _kiwi() -> Any:
    """The Kiwi instance the Kiwi peers share (not the pre-tokenizer's: SwTokenizer sets options
    on the Kiwi it encodes with)."""
    global _kiwi_instance
    if _kiwi_instance is None:
        with _kiwi_lock:
            if _kiwi_instance is None:
                _kiwi_instance = require("kiwipiepy").Kiwi()
    return _kiwi_instance


def _require_kiwi_bpe() -> Any:
    kiwipiepy = require("kiwipiepy")
    try:
        bpe_trainer = importlib.import_module("kiwipiepy.bpe_trainer")
    except ImportError as exc:
        version = getattr(kiwipiepy, "__version__", "unknown")
        raise MissingDependencyError(
            f"kiwi-bpe needs kiwipiepy >= {_KIWI_BPE_MIN_VERSION} (kiwipiepy.bpe_trainer), but kiwipiepy "
            f"{version} is installed: pip install -U \"kiwipiepy>={_KIWI_BPE_MIN_VERSION}\""
        ) from exc
    return bpe_trainer


def train_kiwi_bpe(texts: Sequence[str], *, vocab_size: int, workdir: str | Path | None = None) -> HFPeer:
    """Train Kiwi's morpheme-aware byte-level BPE (kiwipiepy >= 0.24) and load it into
    ``tokenizers``; its ``tokenizer.json`` goes to a temporary directory (under ``workdir`` if
    given) that is removed afterwards.

    >>> kb = train_kiwi_bpe(["이 영화를 봤다"] * 6, vocab_size=300)
    >>> kb.vocab_size, kb.pieces("영화를 봤다")
    (271, [('영화', 0, 2), ('를', 2, 3), ('▁봤', 3, 5), ('다', 5, 6)])
    """
    texts = _check_args(texts, vocab_size)
    bpe_trainer = _require_kiwi_bpe()
    tk_mod = require("tokenizers")
    with tempfile.TemporaryDirectory(prefix="korean_bpe-kiwi-bpe-", dir=workdir) as tmp:
        path = os.path.join(tmp, "tokenizer.json")
        bpe_trainer.train_bpe_tokenizer(
            path, texts, vocab_size, pretokenize_j=True, pretokenize_e=True, pretokenize_vcp=True,
            pretokenize_xsv=True, kiwi=_kiwi(), num_workers=0, show_progress=False,
        )
        tokenizer = tk_mod.Tokenizer.from_file(path)
    return HFPeer(tokenizer, strategy="kiwi-bpe", unit="byte", lossless=True, pre_tokenizer="kiwi")


def train_kiwi_swtokenizer(
    texts: Sequence[str], *, vocab_size: int, workdir: str | Path | None = None, isolate: bool = True,
) -> SwTokenizerPeer:
    """Train Kiwi's SwTokenizer (morpheme-aware unigram subwords); its file goes to a temporary
    directory (under ``workdir`` if given) that is removed afterwards.

    With ``isolate`` (the default) the training runs in a child process (:func:`run_isolated`):
    kiwipiepy 0.24.1's ``SwTokenizer.train`` crashes the interpreter (SIGSEGV inside
    ``_kiwipiepy``) on some corpora, e.g. the 165,320 NSMC training reviews at 32k; a crash then is
    a :class:`RuntimeError` here instead of the end of the caller's process.  The child loads its
    own Kiwi once and keeps it for later trainings (the first costs some 5 s more than in process).

    The vocabulary always holds SwTokenizer's Hangul fallback (each 초성+중성 syllable and each
    종성 jamo), so a size below about 430 is exceeded.

    >>> sw = train_kiwi_swtokenizer(["이 영화 최고", "이 영화 별로", "영화를 봤다"] * 5, vocab_size=440)
    >>> sw.vocab_size, sw.pieces("영화를 봤다")
    (435, [('영화', 0, 2), ('를/J', 2, 3), ('보/V', 4, 5), ('었/E', 4, 5), ('다/E', 5, 6)])
    """
    texts = _check_args(texts, vocab_size)
    kiwipiepy = require("kiwipiepy")
    from kiwipiepy.sw_tokenizer import SwTokenizer

    with tempfile.TemporaryDirectory(prefix="korean_bpe-kiwi-sw-", dir=workdir) as tmp:
        path = os.path.join(tmp, "tokenizer.json")
        if not isolate:
            _train_swtokenizer_file(path, texts, vocab_size, kiwi=_kiwi())
        else:
            what = (
                f"kiwipiepy {getattr(kiwipiepy, '__version__', '?')} SwTokenizer.train on {len(texts)} texts "
                f"at vocab_size={vocab_size}"
            )
            run_isolated(_train_swtokenizer_file, path, texts, vocab_size, what=what)
        tokenizer = SwTokenizer(path, kiwi=_kiwi())
        source = Path(path).read_bytes()
    peer = SwTokenizerPeer(tokenizer)
    peer._source = source
    return peer


class PeerCrash(RuntimeError):
    """A peer's trainer crashed its (isolated) process: a native crash, which the same texts and
    library versions give again (compare()'s model cache keeps it as the row's note)."""


_isolation_lock = threading.Lock()
_isolation: Any = None


def _isolated_executor() -> Any:
    """The one-process :class:`~korean_bpe.pre_tokenizers.executor.LocalProcessExecutor` that
    :func:`run_isolated` runs in, made on first use and shut down at exit."""
    global _isolation
    with _isolation_lock:
        if _isolation is None:
            import atexit

            from ..pre_tokenizers.executor import LocalProcessExecutor

            _isolation = LocalProcessExecutor(1)
            atexit.register(_isolation.shutdown)
        return _isolation


def end_isolated() -> None:
    """End :func:`run_isolated`'s child now, and what it holds (Kiwi's model: some 500 MB); the next
    call starts a new one.  A comparison calls it once a peer's sizes are trained."""
    with _isolation_lock:
        executor = _isolation
    if executor is not None:
        executor.shutdown()


def _apply(job: tuple[Callable[..., Any], tuple[Any, ...]]) -> Any:
    fn, args = job
    return fn(*args)


def run_isolated(fn: Callable[..., Any], *args: Any, what: str) -> Any:
    """``fn(*args)`` in a spawned child process, the same one for every call of this process (what
    ``fn`` loads there, Kiwi's model, stays loaded for the next call; the child ends with this
    process); a crash of the child (a native segfault or abort) is a :class:`PeerCrash` (a
    :class:`RuntimeError`) naming ``what``, the caller lives on, and the next call starts a new child.
    Calls from several threads share the child, one at a time (a crash fails every call waiting on it).

    >>> run_isolated(pow, 2, 10, what="a power")
    1024
    """
    from concurrent.futures.process import BrokenProcessPool

    try:
        return list(_isolated_executor().map(_apply, [(fn, args)]))[0]
    except BrokenProcessPool as exc:  # the executor has dropped the broken child
        raise PeerCrash(
            f"{what} crashed its process (a native crash, isolated in a child process; a smaller or "
            "different corpus, or another library version, may train)"
        ) from exc


def _train_swtokenizer_file(path: str, texts: list[str], vocab_size: int, *, kiwi: Any = None) -> None:
    """Train SwTokenizer and write it to ``path`` (the body of the child process, whose own
    :func:`_kiwi` is loaded once for all its trainings)."""
    from kiwipiepy.sw_tokenizer import SwTokenizer, SwTokenizerConfig

    SwTokenizer.train(
        path, texts, SwTokenizerConfig(), vocab_size=vocab_size, chr_coverage=1.0,
        kiwi=kiwi if kiwi is not None else _kiwi(), show_progress=False,
    )


def train_peer(
    name: str, texts: Sequence[str], *, vocab_size: int, seed: int = 0, workdir: str | Path | None = None,
) -> Peer:
    """Train the peer ``name`` (one of :data:`PEERS`) on ``texts`` at ``vocab_size``.

    A peer whose package is missing raises :class:`ImportError` with the ``pip install`` line.
    ``vocab_size`` on the result is the size reached (some trainers stop short on small corpora).

    >>> peer = train_peer("sentencepiece-unigram", ["이 영화 최고", "이 영화 별로", "영화를 봤다"] * 5, vocab_size=16)
    >>> peer.kind, peer.unit, peer.lossless, peer.vocab_size
    ('peer', 'sentencepiece', False, 16)
    >>> peer.pieces("이 영화")
    [('▁', 0, 0), ('이', 0, 1), ('▁영화', 1, 4)]
    """
    if name in TRAIN_ONLY_PEERS:  # texts marked at the morpheme boundaries (see train_sentencepiece)
        from ..markers import MORPHEME_CUT

        peer = train_sentencepiece(texts, vocab_size=vocab_size, model_type="bpe", seed=seed,
                                   pretokenization_delimiter=MORPHEME_CUT)
        peer.strategy = name
        return peer
    if name not in PEERS:
        raise ValueError(f"unknown peer {name!r}: choose one of {', '.join(PEERS + TRAIN_ONLY_PEERS)}")
    if name == "sentencepiece-bpe":
        return train_sentencepiece(texts, vocab_size=vocab_size, model_type="bpe", seed=seed)
    if name == "sentencepiece-unigram":
        return train_sentencepiece(texts, vocab_size=vocab_size, model_type="unigram", seed=seed)
    if name == "hf-bpe":
        return train_hf_bpe(texts, vocab_size=vocab_size)
    if name == "hf-wordpiece":
        return train_hf_wordpiece(texts, vocab_size=vocab_size)
    if name == "kiwi-bpe":
        return train_kiwi_bpe(texts, vocab_size=vocab_size, workdir=workdir)
    return train_kiwi_swtokenizer(texts, vocab_size=vocab_size, workdir=workdir)


# ---------------------------------------------------------------------------------------------
# the model cache of compare()


def peer_to_entry(peer: Peer) -> dict[str, Any]:
    """A trained peer as JSON data (:mod:`korean_bpe.compare.model_cache`): SentencePiece's model
    proto, HF's ``tokenizer.json`` text, SwTokenizer's trained file; :func:`peer_from_entry`
    rebuilds the same peer.

    >>> sp = train_sentencepiece(["이 영화 최고", "이 영화 별로", "영화를 봤다"] * 5, vocab_size=18, model_type="bpe")
    >>> again = peer_from_entry("sentencepiece-bpe", peer_to_entry(sp))
    >>> again.vocab_size, again.pieces("이 영화") == sp.pieces("이 영화")
    (18, True)
    """
    import base64

    if isinstance(peer, SentencePiecePeer):
        return {"kind": "sentencepiece", "lossless": peer.lossless,
                "model": base64.b64encode(peer.processor.serialized_model_proto()).decode("ascii")}
    if isinstance(peer, HFPeer):
        return {"kind": "hf", "unit": peer.unit, "lossless": peer.lossless, "pre_tokenizer": peer.pre_tokenizer,
                "tokenizer": peer.tokenizer.to_str()}
    if isinstance(peer, SwTokenizerPeer) and peer._source is not None:
        return {"kind": "swtokenizer", "file": base64.b64encode(peer._source).decode("ascii")}
    raise ValueError(f"{peer!r} cannot be stored (a SwTokenizer peer keeps its file only when train_peer made it)")


def peer_from_entry(name: str, entry: dict[str, Any]) -> Peer:
    """The peer ``name`` from :func:`peer_to_entry`'s data; ValueError when it is not such data."""
    import base64

    kind = entry.get("kind")
    if kind == "sentencepiece":
        spm = require("sentencepiece")
        processor = spm.SentencePieceProcessor(model_proto=base64.b64decode(entry["model"], validate=True))
        return SentencePiecePeer(processor, strategy=name, lossless=bool(entry["lossless"]))
    if kind == "hf":
        tk_mod = require("tokenizers")
        try:
            tokenizer = tk_mod.Tokenizer.from_str(entry["tokenizer"])
        except Exception as exc:  # tokenizers raises its own Exception subclass on bad JSON
            raise ValueError(f"not a tokenizer.json: {exc}") from exc
        return HFPeer(tokenizer, strategy=name, unit=entry["unit"], lossless=bool(entry["lossless"]),
                      pre_tokenizer=entry["pre_tokenizer"])
    if kind == "swtokenizer":
        require("kiwipiepy")
        from kiwipiepy.sw_tokenizer import SwTokenizer

        source = base64.b64decode(entry["file"], validate=True)
        with tempfile.TemporaryDirectory(prefix="korean_bpe-kiwi-sw-") as tmp:
            path = os.path.join(tmp, "tokenizer.json")
            Path(path).write_bytes(source)
            try:
                tokenizer = SwTokenizer(path, kiwi=_kiwi())
            except Exception as exc:
                raise ValueError(f"not a SwTokenizer file: {exc}") from exc
        peer = SwTokenizerPeer(tokenizer, strategy=name)
        peer._source = source
        return peer
    raise ValueError(f"not a stored peer (kind {kind!r})")
