"""The strategies of a comparison as objects, one class per kind: our BPE (:class:`BPEStrategy`, the
2026 kinds included: MoB, SuperBPE, the ``*-train`` families), the kortok-style baselines
(:class:`BaselineStrategy`) and the peer libraries (:class:`PeerStrategy`).  Each trains itself at
every size of a run (or reads the model cache), yields its segmenters with their held-out
encodings (:class:`Trained`), and knows what it reads (its pre-tokenization and analyzer), what
its rows are compared with and whether it drops text; :func:`strategy` makes one from its name.

>>> s = strategy("okt/jamo")
>>> type(s).__name__, s.source, s.unit, s.analyzer, s.group, s.reference("jamo")
('BPEStrategy', 'okt', 'jamo', 'okt', 'okt', 'whitespace/jamo')
>>> strategy("baseline/morpheme-kiwi").analyzer, strategy("okt-analysis/byte").drops_text
('kiwi', True)
>>> groups(["whitespace/jamo", "baseline/word", "okt/jamo", "hf-bpe"])
[['whitespace/jamo', 'baseline/word'], ['okt/jamo'], ['hf-bpe']]
"""

from __future__ import annotations

import math
import time
import warnings
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass
from typing import Any, ClassVar

from .heldout import Layout
from .plan import Workspace
from .segmenters import BaselineSegmenter, BPESegmenter, Segmenter
from .strategies import (BASELINES, BPE_UNITS, DERIVED, DROPS_TEXT, GOLD_ANALYZERS, MORE_STRATEGIES, NOT_DEFAULT,
                         PEER_ANALYZERS, SUPERBPE, SUPERWORD, TRAIN_ONLY, peer_names, why)

__all__ = ["Strategy", "BPEStrategy", "BaselineStrategy", "PeerStrategy", "Trained", "strategy", "groups",
           "default_reference", "GROUP_COST"]


def default_reference(unit: str) -> str:
    """The row a row of ``unit`` is compared with (at its own vocabulary size): our whitespace BPE of
    the same unit, of syllables for the rows whose unit BPE has not (baselines of words and
    morphemes, peers).

    >>> default_reference("jamo"), default_reference("morpheme"), default_reference("")
    ('whitespace/jamo', 'whitespace/syllable', 'whitespace/syllable')
    """
    return f"whitespace/{unit}" if unit in BPE_UNITS else "whitespace/syllable"


@dataclass(frozen=True)
class Trained:
    """One size of a strategy, trained: its segmenter, the ids of the held-out documents (and their
    spans, where the library gives them in one pass), the ids of the labelled training sample (None
    without labels) and the columns of its training (``train_s``, ``pretok_s``, ``model_cached``)."""

    segmenter: Segmenter
    vocab_size: int
    encoded: list[list[int]]
    train_ids: list[list[int]] | None
    columns: dict[str, Any]
    spans: list[list[tuple[int, int]]] | None = None


@dataclass(frozen=True)
class Strategy:
    """A strategy of the grid: its ``name``; ``source``, the pre-tokenization it reads (a key of
    :data:`~korean_bpe.compare.strategies.BPE_PRE_TOKENIZERS`, ``""`` for none); ``unit``;
    ``analyzer``, the morpheme analyzer it is built on (``""`` for none); ``trained_on``, the
    analyzer that cut its training words only (the ``*-train`` families); ``drops_text``, whether
    its pre-tokenizer drops text (analysis mode)."""

    name: str
    source: str = ""
    unit: str = ""
    analyzer: str = ""
    trained_on: str = ""
    drops_text: bool = False
    #: the ``kind`` column of its rows
    kind: ClassVar[str] = ""
    #: whether its rows' token spans are the same at every size (then measured once)
    sizes_share_spans: ClassVar[bool] = False
    #: whether it runs a peer library (:mod:`korean_bpe.compare.peers`)
    needs_peers: ClassVar[bool] = False

    @property
    def group(self) -> str:
        """The strategies of one group run together in one process and share nothing with the
        other groups but the on-disk caches: an analyzer's or a pre-tokenization's rows (with the
        baselines that read it), the jamo and syllable baselines, each peer alone."""
        return self.trained_on or _GROUP_OF.get(self.source, self.source) or "baseline"

    def reference(self, unit: str) -> str:
        """The strategy its row of segmenter unit ``unit`` is compared with by default."""
        return default_reference(unit)

    def self_graded(self, gold: str) -> bool:
        """Whether analyzer ``gold`` grades its own morphemes in this strategy's rows."""
        return bool(gold) and gold in (self.analyzer, self.trained_on)

    def train(self, ws: Workspace, notes: list[str]) -> Iterator[Trained]:
        """Each size of ``ws.plan`` trained (or read from the model cache), ascending; what cannot be
        trained is skipped with a note appended to ``notes``."""
        raise NotImplementedError

    def word_inputs(self, ws: Workspace, seg: Segmenter) -> tuple[Layout | None, list[list[str]] | None]:
        """What its rows' measurements read of its pre-tokenization: the held-out 어절 layout (our
        BPE) and the words of each held-out character alone (rows built on words); None, None here."""
        return None, None

    def encode_rate(self, ws: Workspace, seg: Segmenter) -> float:
        """``encode_texts_per_s`` of its row: :func:`korean_bpe.compare.measure.throughput`."""
        from .measure import throughput

        return throughput(seg, ws.plan.held.sample)


class _OnWords(Strategy):
    """A strategy of ours built on a pre-tokenization's words: an analyzer's time counts in its
    throughput once per analyzer (its words of the timed sample are encoded alone)."""

    def encode_rate(self, ws: Workspace, seg: Segmenter) -> float:
        if not self.analyzer:
            return super().encode_rate(ws, seg)
        from .measure import throughput_pretokenized

        analyzer_s, words = ws.pretok.sample_batch(self.source, ws.plan.held.sample)
        return throughput_pretokenized(seg, ws.plan.held.sample, analyzer_s=analyzer_s, words=words)  # type: ignore[arg-type]


@dataclass(frozen=True)
class BPEStrategy(_OnWords):
    """Our BPE over a pre-tokenization x unit; ``superword``: SuperBPE's two stages (the transition a
    share of the largest size, :data:`~korean_bpe.compare.strategies.SUPERBPE`)."""

    superword: bool = False
    kind: ClassVar[str] = "bpe"

    def word_inputs(self, ws: Workspace, seg: Segmenter) -> tuple[Layout | None, list[list[str]] | None]:
        held = ws.plan.held
        return ws.pretok.layout(self.source, held), ws.pretok.char_words(self.source, list(held.char_counts))

    def train(self, ws: Workspace, notes: list[str]) -> Iterator[Trained]:
        from ..tokenizer import Tokenizer
        from ..trainer.model import BPEModel

        plan, sizes, name = ws.plan, ws.plan.sizes, self.name
        try:
            pt, train_words, test_words, table, pretok_s = ws.pretok.get(self.source)
        except (ImportError, RuntimeError, OSError, ValueError) as exc:
            notes.append(f"skipped {name}: {why(exc)}")
            return

        early: dict[str, int] = {}  # SuperBPE's first stage, when it stopped before the transition asked

        def load(entry: dict[str, Any]) -> Any:
            if entry["kind"] != "bpe":
                raise ValueError("not a BPE model")
            early.update(entry.get("early_transition") or {})
            return Tokenizer(BPEModel.from_dict(entry["model"]), pre_tokenizer=pt, unit=self.unit,
                             marker=entry["marker"], unk_token=entry["unk_token"])

        config: dict[str, Any] = {}
        training_pt: Any = _Table(pt, table)
        if self.trained_on:  # the raw words cut at the analyzer's morphemes, from its one analysis
            try:
                training_pt, config, analyze_s = _morpheme_cut(ws, self, pt)
            except (ImportError, RuntimeError, OSError, ValueError) as exc:
                notes.append(f"skipped {name}: {why(exc)}")
                return
            pretok_s += analyze_s
        superword: dict[str, Any] = {}
        if self.superword:
            superword = {"superword_transition": max(1, int(SUPERBPE["transition"] * sizes[-1])),
                         "superword_max_words": SUPERBPE["max_words"]}
            config["superword"] = superword

        def train() -> Any:
            from ..trainer.superbpe import EarlyTransitionWarning

            with warnings.catch_warnings(record=True) as caught:
                warnings.simplefilter("always", EarlyTransitionWarning)
                trained = Tokenizer.train(plan.train, vocab_size=sizes[-1], pre_tokenizer=training_pt, unit=self.unit,
                                          min_frequency=plan.min_frequency, show_progress=False, **superword)
            for w in caught:
                if isinstance(w.message, EarlyTransitionWarning):
                    early.update(asked=w.message.asked, actual=w.message.actual)
                else:  # not ours to keep
                    warnings.warn_explicit(w.message, w.category, w.filename, w.lineno, source=w.source)
            return Tokenizer(trained.model, pre_tokenizer=pt, unit=trained.unit, marker=trained.marker,
                             unk_token=trained.unk_token)

        def store(tok: Any, train_s: float) -> dict[str, Any]:
            return {"kind": "bpe", "train_s": train_s, "model": tok.model.to_dict(), "marker": tok.marker,
                    "unk_token": tok.unk_token, "early_transition": dict(early)}

        config |= {"pre_tokenizer": pt.to_config(), "analyzer": _analyzer_version(pt), "unit": self.unit,
                   "min_frequency": plan.min_frequency, "code": _code("bpe")}
        try:
            full, train_s, cached = _cached_train(ws, self, sizes[-1], config, load=load, train=train, store=store)
        except ValueError as exc:
            notes.append(f"skipped {name}: {why(exc)}")
            return
        if early:
            notes.append(f"{name}: SuperBPE's whitespace-bounded stage ran out of pairs at {early['actual']:,} tokens, "
                         f"before the transition asked ({early['asked']:,}, {SUPERBPE['transition']:.0%} of "
                         f"{sizes[-1]:,}): its merges cross spaces from {early['actual']:,} tokens on")
        base = len(full.model.truncate(0).id_to_token)
        labelled_words = None if plan.labelled is None else [train_words[i] for i in plan.labelled.idx]
        for size in sizes:
            if size < base:
                notes.append(f"skipped {name} at vocab size {size}: smaller than its {base} special tokens + alphabet")
                continue
            n = min(len(full.model.merges), size - base)
            while n < len(full.model.merges) and full.model.truncate(n).vocab_size < size:
                n += 1
            tok = full if n == len(full.model.merges) else Tokenizer(
                full.model.truncate(n), pre_tokenizer=pt, unit=full.unit, marker=full.marker, unk_token=full.unk_token)
            seg = BPESegmenter(tok, strategy=name, pre_tokenizer=self.source, words=table)
            yield Trained(seg, size, seg.encode_pretokenized(test_words),
                          None if labelled_words is None else seg.encode_pretokenized(labelled_words),
                          {"train_s": train_s, "pretok_s": pretok_s, "model_cached": cached})


@dataclass(frozen=True)
class BaselineStrategy(_OnWords):
    """A kortok-style baseline without BPE (:class:`~korean_bpe.compare.segmenters.BaselineSegmenter`):
    jamo, syllable, an analyzer's morphemes or 어절; trained once at the largest size and truncated."""

    kind: ClassVar[str] = "baseline"
    sizes_share_spans: ClassVar[bool] = True

    def word_inputs(self, ws: Workspace, seg: Segmenter) -> tuple[Layout | None, list[list[str]] | None]:
        if not self.analyzer:
            return None, None
        return None, ws.pretok.char_words(self.source, list(ws.plan.held.char_counts))

    def train(self, ws: Workspace, notes: list[str]) -> Iterator[Trained]:
        plan, sizes, name = ws.plan, ws.plan.sizes, self.name
        options: dict[str, Any] = {"strategy": name}
        pretok_s = math.nan
        pt = train_words = test_words = None
        if self.source:
            try:
                pt, train_words, test_words, table, pretok_s = ws.pretok.get(self.source)
            except (ImportError, RuntimeError, OSError, ValueError) as exc:
                notes.append(f"skipped {name}: {why(exc)}")
                return
            options.update(pre_tokenizer=pt if self.analyzer else None, words=table, pre_tokenizer_name=self.source)

        def load(entry: dict[str, Any]) -> Any:
            if entry["kind"] != "baseline":
                raise ValueError("not a baseline vocabulary")
            return BaselineSegmenter.build(self.unit, entry["vocab_tokens"], **options)

        config = {"pre_tokenizer": None if pt is None else pt.to_config(),
                  "analyzer": None if pt is None else _analyzer_version(pt), "unit": self.unit,
                  "code": _code("baseline")}
        full, train_s, cached = _cached_train(
            ws, self, sizes[-1], config, load=load,
            train=lambda: BaselineSegmenter.train(plan.train, unit=self.unit, vocab_size=sizes[-1], **options),
            store=lambda seg, seconds: {"kind": "baseline", "train_s": seconds, "vocab_tokens": list(seg.vocab_tokens)})
        idx = None if plan.labelled is None else plan.labelled.idx
        for size in sizes:
            seg = full.truncate(size)
            if test_words is not None:
                encoded = seg.encode_pretokenized(test_words)
                train_ids = None if idx is None else seg.encode_pretokenized([train_words[i] for i in idx])
            else:
                encoded = seg.encode_batch(plan.held.texts)
                train_ids = None if idx is None else seg.encode_batch([plan.train[i] for i in idx])
            yield Trained(seg, size, encoded, train_ids,
                          {"train_s": train_s, "pretok_s": pretok_s, "model_cached": cached})


@dataclass(frozen=True)
class PeerStrategy(Strategy):
    """A peer library's tokenizer (:mod:`korean_bpe.compare.peers`), trained on the same texts at each
    size, except the greedy BPE peers (:data:`~korean_bpe.compare.peers.TRUNCATABLE_PEERS`: trained
    once at the largest size and truncated, which gives the same model; their ``train_s`` is that
    one training).  A peer that crashes or fails (RuntimeError) is not tried at its remaining
    sizes: one note.  With the model cache, each training is read back when it was done before (a
    native crash too, as its note: :class:`~korean_bpe.compare.peers.PeerCrash`)."""

    kind: ClassVar[str] = "peer"
    needs_peers: ClassVar[bool] = True

    @property
    def group(self) -> str:
        return self.trained_on or self.name  # a *-train peer beside its analyzer's rows: they read one analysis

    def train(self, ws: Workspace, notes: list[str]) -> Iterator[Trained]:
        peers = ws.peers
        if peers is None:
            return
        try:
            yield from self._train_sizes(ws, notes)
        finally:
            peers.end_isolated()  # the isolated trainer's child, kept for this row's sizes, and its Kiwi

    def _train_sizes(self, ws: Workspace, notes: list[str]) -> Iterator[Trained]:
        peers, name, plan = ws.peers, self.name, ws.plan
        assert peers is not None
        full = None
        full_cached = False
        train_s = math.nan
        for size in plan.sizes:
            try:
                if name in peers.TRUNCATABLE_PEERS:
                    if full is None:
                        full, train_s, full_cached = self._train_at(ws, plan.sizes[-1])
                    seg, cached = full.truncate(size), full_cached
                else:
                    seg, train_s, cached = self._train_at(ws, size)
            except ImportError as exc:
                notes.append(f"skipped {name}: {why(exc)}")
                return
            except RuntimeError as exc:
                notes.append(f"skipped {name} at vocab size {', '.join(str(s) for s in plan.sizes if s >= size)}: "
                             f"{why(exc)}")
                return
            except (ValueError, OSError) as exc:
                notes.append(f"skipped {name} at vocab size {size}: {why(exc)}")
                continue
            encoded, spans = seg.encode_with_spans(plan.held.texts)
            yield Trained(seg, size, encoded,
                          None if plan.labelled is None else seg.encode_batch([plan.train[i] for i in plan.labelled.idx]),
                          {"train_s": train_s, "pretok_s": math.nan, "model_cached": cached}, spans)

    def _train_at(self, ws: Workspace, size: int) -> tuple[Any, float, bool]:
        """(this peer trained at ``size``, seconds of its training, read from the model cache); a
        cached crash raises its :class:`~korean_bpe.compare.peers.PeerCrash` again."""
        peers = ws.peers
        assert peers is not None

        def load(entry: dict[str, Any]) -> Any:
            if entry["kind"] == "crash" and isinstance(entry.get("note"), str):
                return _Crash(entry["note"])
            return peers.peer_from_entry(self.name, entry)

        def failed(exc: BaseException, seconds: float) -> dict[str, Any] | None:
            # the same texts and versions crash again: keep the note
            return {"kind": "crash", "note": str(exc), "train_s": seconds} if isinstance(exc, peers.PeerCrash) else None

        texts, config = _boundary_texts(ws, self)[:2] if self.trained_on else (ws.plan.train, {})
        peer, train_s, cached = _cached_train(
            ws, self, size, {"libraries": _peer_libraries(), "code": _code("peer"), **config}, load=load,
            train=lambda: peers.train_peer(self.name, texts, vocab_size=size, seed=ws.plan.seed),
            store=lambda peer, seconds: {**peers.peer_to_entry(peer), "train_s": seconds}, failed=failed)
        if isinstance(peer, _Crash):
            raise peers.PeerCrash(peer.note)
        return peer, train_s, cached


#: the pre-tokenizations whose rows run with another one's: the Okt analysis mode reads the one Okt
#: analysis, MoB the lossless morphemes of its analyzer
#: raw BPE beside whitespace BPE: on singly spaced text their ids are the same, and a process that
#: runs both trains the downstream classifier once (korean_bpe.compare.tasks.downstream)
_GROUP_OF: dict[str, str] = {"okt-analysis": "okt", "raw": "whitespace", **DERIVED}


def strategy(name: str) -> Strategy:
    """The strategy named ``name`` (a name of :func:`~korean_bpe.compare.strategies.resolve_strategies`)."""
    family, _, rest = name.partition("/")
    if name in MORE_STRATEGIES and family not in NOT_DEFAULT:  # the *-train families
        if family == "sentencepiece-bpe":
            return PeerStrategy(name, trained_on=TRAIN_ONLY[rest])
        return BPEStrategy(name, source="raw", unit=rest, trained_on=TRAIN_ONLY[family])
    if name in BASELINES:
        unit, source = BASELINES[name]
        return BaselineStrategy(name, source=source, unit=unit, analyzer=source if source in GOLD_ANALYZERS else "")
    if name in peer_names():
        return PeerStrategy(name, analyzer=PEER_ANALYZERS.get(name, ""))
    pre, _, unit = name.partition("/")
    analyzer = _GROUP_OF.get(pre, pre)
    return BPEStrategy(name, source=pre, unit=unit, analyzer=analyzer if analyzer in GOLD_ANALYZERS else "",
                       drops_text=pre in DROPS_TEXT, superword=pre in SUPERWORD)


#: rough seconds of each group on NSMC (165k/55k reviews, 4 sizes, cold) on one core: only the order
#: in which the worker processes start groups (longest first), never a result
GROUP_COST = {"okt": 340, "sentencepiece-unigram": 180, "kiwi": 160, "baseline": 110, "mecab": 120,
              "kiwi-bpe": 100, "whitespace": 180, "kiwi-swtokenizer": 60}


def groups(names: Sequence[str]) -> list[list[str]]:
    """The strategies grouped by :attr:`Strategy.group`, in the order of their first strategy in ``names``."""
    found: dict[str, list[str]] = {}
    for name in names:
        found.setdefault(strategy(name).group, []).append(name)
    return list(found.values())


def _morpheme_cut(ws: Workspace, s: Strategy, base: Any) -> tuple[Any, dict[str, Any], float]:
    """(the training pre-tokenizer of a ``*-train`` row: ``base``'s words of the training texts cut
    at the analyzer's lossless morphemes; the model cache's config of that analysis; the analysis
    seconds).  Raises the analyzer's error."""
    from ..pre_tokenizers.boundaries import MorphemeBoundaries

    texts, config, analyzer, analyze_s = _boundary_texts(ws, s)
    words = base.batch(texts, show_progress=False)
    return _Table(MorphemeBoundaries(analyzer=analyzer, base=base), dict(zip(ws.plan.train, words))), config, analyze_s


def _boundary_texts(ws: Workspace, s: Strategy) -> tuple[list[str], dict[str, Any], Any, float]:
    """(the training texts with :data:`~korean_bpe.markers.MORPHEME_CUT` at the morpheme boundaries
    of ``s.trained_on``, read from the analysis compare already made, never a second analyzer
    pass; the model cache's config of it; the analyzer; its seconds): what the ``*-train`` rows
    train on, and the ``sentencepiece-bpe/*-train`` peers with ``pretokenization_delimiter``."""
    from ..pre_tokenizers.boundaries import mark_boundaries

    analyzer, _, _, morphemes, analyze_s = ws.pretok.get(s.trained_on)
    config = {"trained_on": analyzer.to_config(), "trained_on_version": _analyzer_version(analyzer),
              "cut": _code("cut")}
    return [mark_boundaries(t, morphemes[t]) for t in ws.plan.train], config, analyzer, analyze_s


def _cached_train(ws: Workspace, strategy: Strategy, vocab_size: int, config: dict[str, Any], *,
                  load: Callable[[dict[str, Any]], Any], train: Callable[[], Any],
                  store: Callable[[Any, float], dict[str, Any]],
                  failed: Callable[[BaseException, float], dict[str, Any] | None] | None = None,
                  ) -> tuple[Any, float, bool]:
    """(the model, the seconds its training took, whether it was read from the model cache) of
    ``strategy`` at ``vocab_size``, the one shape of every training :func:`~korean_bpe.compare.compare` runs: the cache
    entry under the key of ``config`` when ``load(entry)`` makes a model of it (KeyError,
    TypeError, ValueError, RuntimeError or OSError: it does not, train again), else ``train()``,
    timed, and ``store(model, seconds)`` kept (a model that cannot be stored, ValueError, is
    trained again next time).  When ``train()`` raises, ``failed(exc, seconds)`` may give an entry
    to keep (a deterministic crash), and the exception goes on."""
    cache = ws.model_cache
    key = "" if cache is None else cache.key({"texts": ws.plan.texts_hash, "strategy": strategy.name,
                                              "vocab_size": vocab_size, "seed": ws.plan.seed, **config})
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


class _Crash:
    """A peer's crash read from the model cache (raised again as its PeerCrash)."""

    def __init__(self, note: str) -> None:
        self.note = note


def _peer_libraries() -> dict[str, str | None]:
    from .model_cache import library_versions

    return library_versions("sentencepiece", "tokenizers", "kiwipiepy", "kiwipiepy_model")
