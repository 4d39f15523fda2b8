"""Training each strategy at each size (or reading it from the model cache): yields the segmenters
the rows measure, with their held-out and probe encodings."""

from __future__ import annotations

import math
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import Any

from .segmenters import BaselineSegmenter, BPESegmenter
from .strategies import SUPERBPE, _Strategy, why as _why


@dataclass
class State:
    """What every process of a comparison shares, as plain data (sent once to each worker)."""

    train: list[str]
    train_labels: list[int] | None  # the labels of the extrinsic_idx documents
    #: the training documents the extrinsic stages read (the union of the probe's and the downstream
    #: stage's seeded samples), encoded once per row; None without labels
    extrinsic_idx: list[int] | None
    sizes: list[int]
    held: Any  # korean_bpe.compare.measure._HeldOut
    seed: int
    min_frequency: int
    peers_ok: bool
    pieces_texts: list[str]
    model_cache_dir: str | None = None
    texts_hash: str = ""
    #: positions in ``extrinsic_idx`` of the probe's sample and of the downstream stage's (None: all)
    probe_pos: list[int] | None = None
    downstream_pos: list[int] | None = None
    #: the downstream stage's settings (korean_bpe.compare.downstream.Downstream), None: off
    downstream: Any = None


@dataclass
class Context(State):
    """:class:`State` plus what one process keeps: its pre-tokenizations, the peers module, the
    model cache, and the current task's notes and recorded pieces."""

    pretok: Any = None  # korean_bpe.compare.pretok._Pretok
    peers: Any = None
    model_cache: Any = None
    notes: list[str] = field(default_factory=list)
    pieces: dict[tuple[str, int], Any] = field(default_factory=dict)
    show_progress: Any = False  # the downstream stage's bar of each row (this process's option)

def _segmenters(strategy: _Strategy, ctx: Context) -> Any:
    """Yield ``(segmenter, vocab size, extra columns with the encodings)`` for each size."""
    if strategy.kind == "bpe":
        yield from _bpe_segmenters(strategy, ctx)
    elif strategy.kind == "baseline":
        yield from _baseline_segmenters(strategy, ctx)
    else:
        yield from _peer_segmenters(strategy, ctx)


def _bpe_segmenters(strategy: _Strategy, ctx: Context) -> Any:
    from ..tokenizer import Tokenizer
    from ..trainer.model import BPEModel

    notes, sizes, name = ctx.notes, ctx.sizes, strategy.name
    try:
        pt, train_words, test_words, table, pretok_s = ctx.pretok.get(strategy.source)
    except (ImportError, RuntimeError, OSError, ValueError) as exc:
        notes.append(f"skipped {name}: {_why(exc)}")
        return
    def load(entry: dict[str, Any]) -> Any:
        if entry["kind"] != "bpe":
            raise ValueError("not a BPE model")
        model = BPEModel(special_tokens=entry["special_tokens"], alphabet=entry["alphabet"],
                         merges=[tuple(m) for m in entry["merges"]],
                         continuing_subword_prefix=entry["continuing_subword_prefix"])
        return Tokenizer(model, pre_tokenizer=pt, unit=strategy.unit, marker=entry["marker"],
                         unk_token=entry["unk_token"])

    config: dict[str, Any] = {}
    training_pt = _Table(pt, table)
    if strategy.trained_on:  # the raw words cut at the analyzer's morphemes, from its one analysis
        try:
            training_pt, config, analyze_s = _morpheme_cut(ctx, strategy, pt)
        except (ImportError, RuntimeError, OSError, ValueError) as exc:
            notes.append(f"skipped {name}: {_why(exc)}")
            return
        pretok_s += analyze_s
    superword: dict[str, Any] = {}
    if strategy.source == "superbpe":  # SuperBPE's two stages, the transition a share of the largest size
        superword = {"superword_transition": max(1, int(SUPERBPE["transition"] * sizes[-1])),
                     "superword_max_words": SUPERBPE["max_words"]}
        config["superword"] = superword

    def train() -> Any:
        trained = Tokenizer.train(ctx.train, vocab_size=sizes[-1], pre_tokenizer=training_pt,
                                  unit=strategy.unit, min_frequency=ctx.min_frequency, show_progress=False,
                                  **superword)
        return Tokenizer(trained.model, pre_tokenizer=pt, unit=trained.unit, marker=trained.marker,
                         unk_token=trained.unk_token)

    def store(tok: Any, train_s: float) -> dict[str, Any]:
        m = tok.model
        return {"kind": "bpe", "train_s": train_s, "special_tokens": list(m.special_tokens),
                "alphabet": list(m.alphabet), "merges": [list(p) for p in m.merges],
                "continuing_subword_prefix": m.continuing_subword_prefix, "marker": tok.marker,
                "unk_token": tok.unk_token}

    config |= {"pre_tokenizer": pt.to_config(), "analyzer": _analyzer_version(pt), "unit": strategy.unit,
               "min_frequency": ctx.min_frequency, "code": _code("bpe")}
    try:
        full, train_s, cached = _cached_train(ctx, strategy, sizes[-1], config, load=load, train=train, store=store)
    except ValueError as exc:
        notes.append(f"skipped {name}: {_why(exc)}")
        return
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
        seg = BPESegmenter(tok, strategy=name, pre_tokenizer=strategy.source, words=table)
        yield seg, size, {
            "encoded": seg.encode_pretokenized(test_words),
            "train_encoded": None if ctx.extrinsic_idx is None else
            seg.encode_pretokenized([train_words[i] for i in ctx.extrinsic_idx]),
            "train_s": train_s, "pretok_s": pretok_s, "model_cached": cached,
        }


def _morpheme_cut(ctx: Context, strategy: _Strategy, base: Any) -> tuple[Any, dict[str, Any], float]:
    """(the training pre-tokenizer of a ``*-train`` row: ``base``'s words of the training texts cut
    at the analyzer's lossless morphemes; the model cache's config of that analysis; the analysis
    seconds).  Raises the analyzer's error."""
    from ..pre_tokenizers.boundaries import MorphemeBoundaries

    texts, config, analyzer, analyze_s = _boundary_texts(ctx, strategy)
    words = base.batch(texts, show_progress=False)
    return _Table(MorphemeBoundaries(analyzer=analyzer, base=base), dict(zip(ctx.train, words))), config, analyze_s


def _boundary_texts(ctx: Context, strategy: _Strategy) -> tuple[list[str], dict[str, Any], Any, float]:
    """(the training texts with :data:`~korean_bpe.markers.MORPHEME_CUT` at the morpheme boundaries
    of ``strategy.trained_on``, read from the analysis compare already made, never a second
    analyzer pass; the model cache's config of it; the analyzer; its seconds): what the ``*-train``
    rows train on, and the ``sentencepiece-bpe/*-train`` peers with ``pretokenization_delimiter``."""
    from ..pre_tokenizers.boundaries import mark_boundaries

    analyzer, _, _, morphemes, analyze_s = ctx.pretok.get(strategy.trained_on)
    config = {"trained_on": analyzer.to_config(), "trained_on_version": _analyzer_version(analyzer),
              "cut": _code("cut")}
    return [mark_boundaries(t, morphemes[t]) for t in ctx.train], config, analyzer, analyze_s


def _model_key(ctx: Context, strategy: _Strategy, vocab_size: int,
               config: dict[str, Any]) -> tuple[Any, str]:
    """(the model cache or None, the key of ``strategy``'s model trained at ``vocab_size``)."""
    cache = ctx.model_cache
    if cache is None:
        return None, ""
    return cache, cache.key({"texts": ctx.texts_hash, "strategy": strategy.name, "vocab_size": vocab_size,
                             "seed": ctx.seed, **config})


def _cached_train(ctx: Context, strategy: _Strategy, vocab_size: int, config: dict[str, Any], *,
                  load: Callable[[dict[str, Any]], Any], train: Callable[[], Any],
                  store: Callable[[Any, float], dict[str, Any]],
                  failed: Callable[[BaseException, float], dict[str, Any] | None] | None = None,
                  ) -> tuple[Any, float, bool]:
    """(the model, the seconds its training took, whether it was read from the model cache) of
    ``strategy`` at ``vocab_size``, the one shape of every training :func:`compare` runs: the cache
    entry under the key of ``config`` when ``load(entry)`` makes a model of it (KeyError,
    TypeError, ValueError, RuntimeError or OSError: it does not, train again), else ``train()``,
    timed, and ``store(model, seconds)`` kept (a model that cannot be stored, ValueError, is
    trained again next time).  When ``train()`` raises, ``failed(exc, seconds)`` may give an entry
    to keep (a deterministic crash), and the exception goes on."""
    cache, key = _model_key(ctx, strategy, vocab_size, config)
    entry = cache.get(key) if cache is not None else None
    if entry is not None:
        try:
            return load(entry), float(entry["train_s"]), True
        except (KeyError, TypeError, ValueError, RuntimeError, OSError):  # not a model: train again
            pass
    start = time.perf_counter()
    try:
        model = train()
    except Exception as exc:
        kept = None if failed is None or cache is None else failed(exc, time.perf_counter() - start)
        if kept is not None:
            cache.put(key, kept)
        raise
    train_s = time.perf_counter() - start
    if cache is not None:
        try:
            cache.put(key, store(model, train_s))
        except ValueError:
            pass
    return model, train_s, False


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
    "cut": ("korean_bpe.pre_tokenizers.boundaries", "korean_bpe.counting"),
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


def _baseline_segmenters(strategy: _Strategy, ctx: Context) -> Any:
    notes, sizes, name = ctx.notes, ctx.sizes, strategy.name
    options: dict[str, Any] = {"strategy": name}
    pretok_s = math.nan
    pt = train_words = test_words = None
    if strategy.source:
        try:
            pt, train_words, test_words, table, pretok_s = ctx.pretok.get(strategy.source)
        except (ImportError, RuntimeError, OSError, ValueError) as exc:
            notes.append(f"skipped {name}: {_why(exc)}")
            return
        options.update(pre_tokenizer=pt if strategy.unit == "morpheme" else None, words=table,
                       pre_tokenizer_name=strategy.source)
    def load(entry: dict[str, Any]) -> Any:
        if entry["kind"] != "baseline":
            raise ValueError("not a baseline vocabulary")
        return BaselineSegmenter(strategy.unit, entry["vocab_tokens"], **options)

    config = {"pre_tokenizer": None if pt is None else pt.to_config(),
              "analyzer": None if pt is None else _analyzer_version(pt), "unit": strategy.unit, "code": _code("baseline")}
    full, train_s, cached = _cached_train(
        ctx, strategy, sizes[-1], config, load=load,
        train=lambda: BaselineSegmenter.train(ctx.train, unit=strategy.unit, vocab_size=sizes[-1], **options),
        store=lambda seg, seconds: {"kind": "baseline", "train_s": seconds, "vocab_tokens": list(seg.vocab_tokens)})
    for size in sizes:
        seg = full.truncate(size)
        if test_words is not None:
            encoded = seg.encode_pretokenized(test_words)
            train_encoded = None if ctx.extrinsic_idx is None else \
                seg.encode_pretokenized([train_words[i] for i in ctx.extrinsic_idx])
        else:
            encoded = seg.encode_batch(ctx.held.texts)
            train_encoded = None if ctx.extrinsic_idx is None else \
                seg.encode_batch([ctx.train[i] for i in ctx.extrinsic_idx])
        yield seg, size, {"encoded": encoded, "train_encoded": train_encoded, "train_s": train_s, "pretok_s": pretok_s,
                          "model_cached": cached}


def _peer_segmenters(strategy: _Strategy, ctx: Context) -> Any:
    """Each size's peer: trained at each size, except :data:`~korean_bpe.compare.peers.TRUNCATABLE_PEERS`
    (greedy BPE: trained once at the largest size and truncated, which gives the same model; their
    ``train_s`` is that one training).  A peer that crashes or fails (RuntimeError) is not tried
    at its remaining sizes: one note.  With the model cache, each training is read back when it
    was done before (a native crash too, as its note: :class:`~korean_bpe.compare.peers.PeerCrash`)."""
    peers, notes, name = ctx.peers, ctx.notes, strategy.name
    if peers is None:
        return
    full = None
    full_cached = False
    train_s = math.nan
    for size in ctx.sizes:
        try:
            if name in getattr(peers, "TRUNCATABLE_PEERS", ()):
                if full is None:
                    full, train_s, full_cached = _train_peer(strategy, ctx, ctx.sizes[-1])
                seg, cached = full.truncate(size), full_cached
            else:
                seg, train_s, cached = _train_peer(strategy, ctx, size)
        except ImportError as exc:
            notes.append(f"skipped {name}: {_why(exc)}")
            return
        except RuntimeError as exc:
            notes.append(f"skipped {name} at vocab size {', '.join(str(s) for s in ctx.sizes if s >= size)}: "
                         f"{_why(exc)}")
            return
        except (ValueError, OSError) as exc:
            notes.append(f"skipped {name} at vocab size {size}: {_why(exc)}")
            continue
        both = getattr(seg, "encode_with_spans", None)  # an HF peer: ids and spans in one call
        encoded, spans = both(ctx.held.texts) if both is not None else (seg.encode_batch(ctx.held.texts), None)
        yield seg, size, {
            "encoded": encoded, "spans": spans,
            "train_encoded": None if ctx.extrinsic_idx is None else
            seg.encode_batch([ctx.train[i] for i in ctx.extrinsic_idx]),
            "train_s": train_s, "pretok_s": math.nan, "model_cached": cached,
        }


def _train_peer(strategy: _Strategy, ctx: Context, size: int) -> tuple[Any, float, bool]:
    """(peer ``strategy`` trained at ``size``, seconds of its training, read from the model cache);
    a cached crash raises its :class:`~korean_bpe.compare.peers.PeerCrash` again."""
    peers = ctx.peers

    def load(entry: dict[str, Any]) -> Any:
        if entry["kind"] == "crash" and isinstance(entry.get("note"), str):
            return _Crash(entry["note"])
        return peers.peer_from_entry(strategy.name, entry)

    def failed(exc: BaseException, seconds: float) -> dict[str, Any] | None:
        # the same texts and versions crash again: keep the note
        return {"kind": "crash", "note": str(exc), "train_s": seconds} if isinstance(exc, peers.PeerCrash) else None

    texts, config = _boundary_texts(ctx, strategy)[:2] if strategy.trained_on else (ctx.train, {})
    peer, train_s, cached = _cached_train(
        ctx, strategy, size, {"libraries": _peer_libraries(), "code": _code("peer"), **config}, load=load,
        train=lambda: peers.train_peer(strategy.name, texts, vocab_size=size, seed=ctx.seed),
        store=lambda peer, seconds: {**peers.peer_to_entry(peer), "train_s": seconds}, failed=failed)
    if isinstance(peer, _Crash):
        raise peers.PeerCrash(peer.note)
    return peer, train_s, cached


class _Crash:
    """A peer's crash read from the model cache (raised again as its PeerCrash)."""

    def __init__(self, note: str) -> None:
        self.note = note


def _peer_libraries() -> dict[str, str | None]:
    from .model_cache import library_versions

    return library_versions("sentencepiece", "tokenizers", "kiwipiepy", "kiwipiepy_model")

