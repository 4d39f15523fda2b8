"""Training each strategy at each size (or reading it from the model cache): yields the segmenters
the rows measure, with their held-out and probe encodings."""

from __future__ import annotations

import math
import time
from collections.abc import Sequence
from typing import Any

from .segmenters import BaselineSegmenter, BPESegmenter
from .strategies import _Strategy, why as _why

def _segmenters(strategy: _Strategy, ctx: dict[str, Any]) -> Any:
    """Yield ``(segmenter, vocab size, extra columns with the encodings)`` for each size."""
    if strategy.kind == "bpe":
        yield from _bpe_segmenters(strategy, ctx)
    elif strategy.kind == "baseline":
        yield from _baseline_segmenters(strategy, ctx)
    else:
        yield from _peer_segmenters(strategy, ctx)


def _bpe_segmenters(strategy: _Strategy, ctx: dict[str, Any]) -> Any:
    from ..tokenizer import Tokenizer
    from ..trainer.model import BPEModel

    notes, sizes, name = ctx["notes"], ctx["sizes"], strategy.name
    try:
        pt, train_words, test_words, table, pretok_s = ctx["pretok"].get(strategy.source)
    except (ImportError, RuntimeError, OSError, ValueError) as exc:
        notes.append(f"skipped {name}: {_why(exc)}")
        return
    cache, key = _model_key(ctx, strategy, sizes[-1], {
        "pre_tokenizer": pt.to_config(), "analyzer": _analyzer_version(pt), "unit": strategy.unit,
        "min_frequency": ctx["min_frequency"], "code": _code("bpe"),
    })
    full = None
    entry = cache.get(key) if cache is not None else None
    if entry is not None and entry["kind"] == "bpe":
        try:
            model = BPEModel(special_tokens=entry["special_tokens"], alphabet=entry["alphabet"],
                             merges=[tuple(m) for m in entry["merges"]],
                             continuing_subword_prefix=entry["continuing_subword_prefix"])
            full = Tokenizer(model, pre_tokenizer=pt, unit=strategy.unit, marker=entry["marker"],
                             unk_token=entry["unk_token"])
            train_s = float(entry["train_s"])
        except (KeyError, TypeError, ValueError):  # an entry that does not make a model: train again
            full = None
    cached = full is not None
    if full is None:
        try:
            start = time.perf_counter()
            trained = Tokenizer.train(ctx["train"], vocab_size=sizes[-1], pre_tokenizer=_Table(pt, table),
                                      unit=strategy.unit, min_frequency=ctx["min_frequency"], show_progress=False)
            train_s = time.perf_counter() - start
            full = Tokenizer(trained.model, pre_tokenizer=pt, unit=trained.unit, marker=trained.marker,
                             unk_token=trained.unk_token)
        except ValueError as exc:
            notes.append(f"skipped {name}: {_why(exc)}")
            return
        if cache is not None:
            m = trained.model
            cache.put(key, {"kind": "bpe", "train_s": train_s, "special_tokens": list(m.special_tokens),
                            "alphabet": list(m.alphabet), "merges": [list(p) for p in m.merges],
                            "continuing_subword_prefix": m.continuing_subword_prefix,
                            "marker": trained.marker, "unk_token": trained.unk_token})
    base = len(full.model.truncate(0).id_to_token)
    for size in sizes:
        if size < base:
            notes.append(f"skipped {name} at vocab size {size}: smaller than its {base} special tokens + alphabet")
            continue
        n = min(len(full.model.merges), size - base)
        while n < len(full.model.merges) and full.model.truncate(n).vocab_size < size:
            n += 1
        tok = full if n == len(full.model.merges) else Tokenizer(
            full.model.truncate(n), pre_tokenizer=pt, unit=full.unit, marker=full.marker, unk_token=full.unk_token)
        seg = BPESegmenter(tok, strategy=name, pre_tokenizer=strategy.source, words=table,
                           aligned=ctx["pretok"].aligned(strategy.source))
        yield seg, size, {
            "encoded": seg.encode_pretokenized(test_words),
            "train_encoded": None if ctx["probe_idx"] is None else
            seg.encode_pretokenized([train_words[i] for i in ctx["probe_idx"]]),
            "train_s": train_s, "pretok_s": pretok_s, "model_cached": cached,
        }


def _model_key(ctx: dict[str, Any], strategy: _Strategy, vocab_size: int,
               config: dict[str, Any]) -> tuple[Any, str]:
    """(the model cache or None, the key of ``strategy``'s model trained at ``vocab_size``)."""
    cache = ctx.get("model_cache")
    if cache is None:
        return None, ""
    return cache, cache.key({"texts": ctx["texts_hash"], "strategy": strategy.name, "vocab_size": vocab_size,
                             "seed": ctx["seed"], **config})


def _analyzer_version(pt: Any) -> str | None:
    """The version of the analyzer behind ``pt`` (part of a model's cache key), None for none."""
    version = getattr(pt, "analyzer_version", None)
    if version is None and pt.name == "okt":
        from ..pre_tokenizers.okt import okt_version

        version = okt_version()
    return version


#: the modules whose source makes up the training-code fingerprint of each model kind
_TRAINING_CODE = {
    "bpe": ("korean_bpe.trainer", "korean_bpe.tokenizer", "korean_bpe.units", "korean_bpe.markers"),
    "baseline": ("korean_bpe.compare.segmenters",),
    "peer": ("korean_bpe.compare.peers",),
}


def _code(kind: str) -> str:
    from .model_cache import code_fingerprint

    return code_fingerprint(*_TRAINING_CODE[kind])


class _Table:
    """The pre-tokenizer ``pt`` answering from words already computed (training only: the trained
    model then goes into a Tokenizer with the real ``pt``, whose public path is what is measured).
    Every declaration (``name``, ``lossless``, ``piece_kind``, ``drop``, ...) is ``pt``'s own."""

    def __init__(self, pt: Any, table: dict[str, list[str]]) -> None:
        self._pt, self._table = pt, table

    def __getattr__(self, name: str) -> Any:  # the declarations the trainer and markers read
        if name.startswith("__") or name in ("_pt", "_table"):
            raise AttributeError(name)
        return getattr(self._pt, name)

    def __call__(self, text: str) -> list[str]:
        return self.batch([text])[0]

    def batch(self, texts: Any, *, show_progress: bool | None = None) -> list[list[str]]:
        texts = list(texts)
        table = self._table
        if all(t in table for t in texts):
            return [table[t] for t in texts]
        return self._pt.batch(texts, show_progress=False)

    def restore(self, words: Sequence[str]) -> str:
        return self._pt.restore(words)

    def to_config(self) -> dict[str, Any]:
        return self._pt.to_config()


def _baseline_segmenters(strategy: _Strategy, ctx: dict[str, Any]) -> Any:
    notes, sizes, name = ctx["notes"], ctx["sizes"], strategy.name
    options: dict[str, Any] = {"strategy": name}
    pretok_s = math.nan
    pt = train_words = test_words = None
    if strategy.source:
        try:
            pt, train_words, test_words, table, pretok_s = ctx["pretok"].get(strategy.source)
        except (ImportError, RuntimeError, OSError, ValueError) as exc:
            notes.append(f"skipped {name}: {_why(exc)}")
            return
        options.update(pre_tokenizer=pt if strategy.unit == "morpheme" else None, words=table,
                       pre_tokenizer_name=strategy.source)
    cache, key = _model_key(ctx, strategy, sizes[-1], {
        "pre_tokenizer": None if pt is None else pt.to_config(),
        "analyzer": None if pt is None else _analyzer_version(pt),
        "unit": strategy.unit, "code": _code("baseline"),
    })
    full = None
    entry = cache.get(key) if cache is not None else None
    if entry is not None and entry["kind"] == "baseline":
        try:
            full = BaselineSegmenter(strategy.unit, entry["vocab_tokens"], **options)
            train_s = float(entry["train_s"])
        except (KeyError, TypeError, ValueError):
            full = None
    cached = full is not None
    if full is None:
        start = time.perf_counter()
        full = BaselineSegmenter.train(ctx["train"], unit=strategy.unit, vocab_size=sizes[-1], **options)
        train_s = time.perf_counter() - start
        if cache is not None:
            cache.put(key, {"kind": "baseline", "train_s": train_s, "vocab_tokens": list(full.vocab_tokens)})
    for size in sizes:
        seg = full.truncate(size)
        if test_words is not None:
            encoded = seg.encode_pretokenized(test_words)
            train_encoded = None if ctx["probe_idx"] is None else \
                seg.encode_pretokenized([train_words[i] for i in ctx["probe_idx"]])
        else:
            encoded = seg.encode_batch(ctx["held"].texts)
            train_encoded = None if ctx["probe_idx"] is None else \
                seg.encode_batch([ctx["train"][i] for i in ctx["probe_idx"]])
        yield seg, size, {"encoded": encoded, "train_encoded": train_encoded, "train_s": train_s, "pretok_s": pretok_s,
                          "model_cached": cached}


def _peer_segmenters(strategy: _Strategy, ctx: dict[str, Any]) -> Any:
    """Each size's peer: trained at each size, except :data:`~korean_bpe.compare.peers.TRUNCATABLE_PEERS`
    (greedy BPE: trained once at the largest size and truncated, which gives the same model; their
    ``train_s`` is that one training).  A peer that crashes or fails (RuntimeError) is not tried
    at its remaining sizes: one note.  With the model cache, each training is read back when it
    was done before (a native crash too, as its note: :class:`~korean_bpe.compare.peers.PeerCrash`)."""
    peers, notes, name = ctx["peers"], ctx["notes"], strategy.name
    if peers is None:
        return
    full = None
    full_cached = False
    train_s = math.nan
    for size in ctx["sizes"]:
        try:
            if name in getattr(peers, "TRUNCATABLE_PEERS", ()):
                if full is None:
                    full, train_s, full_cached = _train_peer(strategy, ctx, ctx["sizes"][-1])
                seg, cached = full.truncate(size), full_cached
            else:
                seg, train_s, cached = _train_peer(strategy, ctx, size)
        except ImportError as exc:
            notes.append(f"skipped {name}: {_why(exc)}")
            return
        except RuntimeError as exc:
            notes.append(f"skipped {name} at vocab size {', '.join(str(s) for s in ctx['sizes'] if s >= size)}: "
                         f"{_why(exc)}")
            return
        except (ValueError, OSError) as exc:
            notes.append(f"skipped {name} at vocab size {size}: {_why(exc)}")
            continue
        both = getattr(seg, "encode_with_spans", None)  # an HF peer: ids and spans in one call
        encoded, spans = both(ctx["held"].texts) if both is not None else (seg.encode_batch(ctx["held"].texts), None)
        yield seg, size, {
            "encoded": encoded, "spans": spans,
            "train_encoded": None if ctx["probe_idx"] is None else
            seg.encode_batch([ctx["train"][i] for i in ctx["probe_idx"]]),
            "train_s": train_s, "pretok_s": math.nan, "model_cached": cached,
        }


def _train_peer(strategy: _Strategy, ctx: dict[str, Any], size: int) -> tuple[Any, float, bool]:
    """(peer ``strategy`` trained at ``size``, seconds of its training, read from the model cache);
    a cached crash raises its :class:`~korean_bpe.compare.peers.PeerCrash` again."""
    peers = ctx["peers"]
    cache, key = _model_key(ctx, strategy, size, {"libraries": _peer_libraries(), "code": _code("peer")})
    entry = cache.get(key) if cache is not None else None
    if entry is not None:
        if entry["kind"] == "crash" and isinstance(entry.get("note"), str):
            raise peers.PeerCrash(entry["note"])
        try:
            return peers.peer_from_entry(strategy.name, entry), float(entry["train_s"]), True
        except (KeyError, TypeError, ValueError, RuntimeError, OSError):  # not a model: train again
            pass
    start = time.perf_counter()
    try:
        peer = peers.train_peer(strategy.name, ctx["train"], vocab_size=size, seed=ctx["seed"])
    except peers.PeerCrash as exc:
        if cache is not None:  # the same texts and versions crash again: keep the note
            cache.put(key, {"kind": "crash", "note": str(exc), "train_s": time.perf_counter() - start})
        raise
    train_s = time.perf_counter() - start
    if cache is not None:
        try:
            cache.put(key, {**peers.peer_to_entry(peer), "train_s": train_s})
        except ValueError:  # a peer that cannot be stored is trained again next time
            pass
    return peer, train_s, False


def _peer_libraries() -> dict[str, str | None]:
    from .model_cache import library_versions

    return library_versions("sentencepiece", "tokenizers", "kiwipiepy", "kiwipiepy_model")

