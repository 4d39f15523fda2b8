"""The language-modelling task: a small causal language model trained from scratch on each row's
tokens of the training documents, scored on held-out text in bits per byte.

How tokenizers are chosen for language models (Marin's tokenizer bake-off, nanochat's
``token_bytes``): train the same small model on each tokenization and compare how well it predicts
held-out text, per byte of the text rather than per token, so that a row with longer tokens gains
nothing from having fewer of them to predict.

*The model* (:func:`train_model`): token embeddings (one row per id of the row's vocabulary, however
large, plus one boundary token), a GRU (:attr:`LmSettings.layers` layers of width
:attr:`LmSettings.dim`), and an output layer tied to the embeddings: a distribution over the whole
vocabulary and the boundary.  Each document is one sequence: the boundary as BOS, its tokens, the
boundary as EOS (end of document).  Training reads a seeded sample of at most
:attr:`LmSettings.train_docs` training documents (the same for every row), each cut after
:attr:`LmSettings.max_length` tokens, in batches of documents of similar length, for a fixed budget
of :attr:`LmSettings.tokens` predicted tokens (the passes over the documents repeat until it is
spent: every row trains for the same number of predictions, as a compute budget; on a corpus too
small for it, :attr:`LmSettings.max_passes` passes end training first), with AdamW, a
linear warm-up over the first 5% of the steps and a cosine decay to a tenth of the learning rate.

*What is scored* (:func:`document_bits`, :func:`bits_per_byte`): each held-out document whole (no
cut: the GRU reads any length), from a fresh state and the BOS; the scored tokens are every token
of the document **and the EOS**, so a document's bits are its code length as a complete message:

    bits(d) = -sum over t = 1..n+1 of log2 p(x_t | BOS, x_1..x_t-1)   (x_n+1 = EOS)
              + 8 x (UTF-8 bytes of the characters its unknown tokens stand for)

    lm_bits_per_byte = sum over d of bits(d) / sum over d of bytes(d)

``bytes(d)`` the UTF-8 bytes of the original text (a Hangul syllable is 3).  An unknown token
(``<unk>``, a character the row cannot write) loses the characters it stands for: it is charged
what they take spelled out byte by byte with no knowledge, 8 bits a byte, so a row cannot gain by
writing text as ``<unk>``.

*Rows without a value.*  A row whose pre-tokenizer drops text (analysis mode) is not modelling the
text, and a row with a held-out document that decodes to other text without holding an unknown
token (white space normalised, say) is modelling another text: both get NaN and a note saying why.

*Statistics.*  The evidence is each held-out document's bits and bytes; the interval is the
bootstrap of the documents (the same resamples as every metric,
:func:`korean_bpe.compare.stats.resample_counts`) of the ratio of sums, and the p-value the paired
bootstrap against the row's reference.  One model a row by default (its seed:
:attr:`LmSettings.seed`, else the comparison's): the interval then covers the held-out sample, not
the training noise (on NSMC three seeds of a row spread over 0.007 to 0.009 bits per byte); with
:attr:`LmSettings.seeds` models the row's value is their mean, ``lm_seed_sd`` their spread, and the
bootstrap draws the seeds too (two stages, as the downstream classifier's).

*Held-out text*: the comparison's held-out documents, or those of a plain text file (``path``: one
document a line, as :func:`korean_bpe.corpus.iter_texts` reads it; ``--task lm=PATH``).

A uniform model over 4 symbols pays 2 bits a token: two documents of 2 and 1 tokens (EOS included)
and 3 + 3 bytes cost 6 bits for 6 bytes:

>>> import math
>>> bits = [document_bits([-math.log(4)] * 2), document_bits([-math.log(4)])]
>>> bits, bits_per_byte(bits, [3, 3])
([4.0, 2.0], 1.0)
"""

from __future__ import annotations

import math
import os
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, fields
from pathlib import Path
from typing import Any

from ..columns import Column
from ..downstream import MAX_SEEDS, Ragged
from ..rows import Measured, RowInput
from .base import BaseTask, register_task

__all__ = ["LmTask", "LmSettings", "document_bits", "bits_per_byte", "train_model", "document_log_probs",
           "unknown_bytes", "LM_DEVICES"]

#: where the models train: ``"auto"`` (CUDA when torch sees a GPU), ``"cpu"`` or ``"cuda"``
LM_DEVICES = ("auto", "cpu", "cuda")
_LN2 = math.log(2)
_WARMUP = 0.05  # share of the steps the learning rate rises over
_FLOOR = 0.1  # the cosine decay ends at this share of the learning rate


@dataclass(frozen=True)
class LmSettings:
    """Settings of the language-modelling task (``LmTask(settings=LmSettings(...))`` or a dict of
    these fields; ``{"type": "lm", "settings": {...}}``).

    >>> LmSettings().describe()
    'GRU (1 layer, dim 128), 200,000 training tokens (at most 4 passes), batch 32, lr 0.003, first 128 tokens a document, at most 8,000 training documents'
    >>> LmSettings(tokens=0)
    Traceback (most recent call last):
      ...
    ValueError: LmSettings(tokens=0): must be an int >= 1
    """

    #: training documents: a seeded sample of the training split, the same for every row (None: all)
    train_docs: int | None = 8000
    #: the training budget: predicted tokens (EOS included) over the run, the same for every row
    tokens: int = 200_000
    #: passes over the training documents at most: on a small corpus the passes end training before
    #: the token budget (more passes over the same few documents would only fit them)
    max_passes: int = 4
    #: embedding and GRU width
    dim: int = 128
    #: GRU layers
    layers: int = 1
    #: tokens of a training document kept (the first ones); held-out documents are scored whole
    max_length: int = 128
    #: documents per batch
    batch_size: int = 32
    #: AdamW's peak learning rate
    learning_rate: float = 3e-3
    #: the first model's seed (None: the comparison's ``seed``)
    seed: int | None = None
    #: models trained per row, seeds ``seed, seed + 1, ...``: their mean is the row's value, and the
    #: interval then covers the training noise too (a two-stage bootstrap of documents and seeds)
    seeds: int = 1
    #: ``"auto"``, ``"cpu"`` or ``"cuda"`` (:data:`LM_DEVICES`)
    device: str = "auto"
    #: CPU threads torch may use (one: the same numbers on any machine, workers side by side)
    threads: int = 1

    def __post_init__(self) -> None:
        for name, low in (("tokens", 1), ("max_passes", 1), ("dim", 2), ("layers", 1), ("max_length", 1),
                          ("batch_size", 1), ("threads", 1), ("seeds", 1)):
            value = getattr(self, name)
            if isinstance(value, bool) or not isinstance(value, int) or value < low:
                raise ValueError(f"LmSettings({name}={value!r}): must be an int >= {low}")
        if self.seeds > MAX_SEEDS:
            raise ValueError(f"LmSettings(seeds={self.seeds}): at most {MAX_SEEDS} models a row")
        for name in ("train_docs", "seed"):
            value = getattr(self, name)
            low = 1 if name == "train_docs" else 0
            if value is not None and (isinstance(value, bool) or not isinstance(value, int) or value < low):
                raise ValueError(f"LmSettings({name}={value!r}): must be an int >= {low}, or None "
                                 + ("(all)" if name == "train_docs" else "(the comparison's seed)"))
        if isinstance(self.learning_rate, bool) or not isinstance(self.learning_rate, (int, float)) or \
                not 0 < self.learning_rate < 1:
            raise ValueError(f"LmSettings(learning_rate={self.learning_rate!r}): must be a number in (0, 1)")
        if self.device not in LM_DEVICES:
            raise ValueError(f"LmSettings(device={self.device!r}): use one of {', '.join(map(repr, LM_DEVICES))}")

    def describe(self) -> str:
        """One line for reports: the model and the settings that change its numbers."""
        docs = "all training documents" if self.train_docs is None else \
            f"at most {self.train_docs:,} training documents"
        return (f"GRU ({self.layers} layer{'s' if self.layers > 1 else ''}, dim {self.dim}), {self.tokens:,} "
                f"training tokens (at most {self.max_passes} passes), batch {self.batch_size}, lr {self.learning_rate:g}, first {self.max_length} "
                f"tokens a document, {docs}" + (f", {self.seeds} seeds" if self.seeds > 1 else ""))

    def to_config(self) -> dict[str, Any]:
        return {f.name: getattr(self, f.name) for f in fields(self)}


def document_bits(log_probs: Sequence[float], *, unknown_bytes: int = 0) -> float:
    """The bits of one document: ``-sum(log_probs) / ln 2`` (``log_probs``: the natural log
    probability of each scored token, the EOS included) plus 8 bits for each of ``unknown_bytes``
    (the UTF-8 bytes its unknown tokens stand for).

    >>> document_bits([math.log(0.5), math.log(0.25)], unknown_bytes=1)
    11.0
    """
    return -math.fsum(log_probs) / _LN2 + 8.0 * unknown_bytes


def bits_per_byte(bits: Sequence[float], n_bytes: Sequence[int]) -> float:
    """The bits of the documents over their UTF-8 bytes, ratio of the sums; ValueError without a byte."""
    total = sum(n_bytes)
    if len(bits) != len(n_bytes):
        raise ValueError(f"bits and n_bytes must give one value per document: {len(bits)} and {len(n_bytes)}")
    if total <= 0:
        raise ValueError("the held-out documents hold no byte of text: bits per byte needs text")
    return math.fsum(bits) / total


def unknown_bytes(text: str, ids: Sequence[int], spans: Sequence[tuple[int, int]], unk_ids: frozenset[int]) -> int:
    """The UTF-8 bytes of the characters of ``text`` that its unknown tokens stand for (``spans``:
    each token's character span; a character under two unknown tokens counts once).

    >>> unknown_bytes("영화 😀 좋다", [5, 0, 6], [(0, 2), (3, 4), (5, 7)], frozenset({0}))
    4
    """
    chars = {p for i, (a, b) in zip(ids, spans) if i in unk_ids for p in range(a, b)}
    return sum(len(text[p].encode("utf-8", "surrogatepass")) for p in chars)


def _require_torch() -> Any:
    from ..downstream import require_torch

    return require_torch()


def _device(torch: Any, device: str) -> Any:
    from ..downstream import torch_device

    return torch_device(torch, device, owner="LmSettings")


def _network(torch: Any, n_ids: int, settings: LmSettings) -> Any:
    """Embeddings of ``n_ids`` ids, a GRU, and an output layer tied to the embeddings (with a bias)."""
    nn = torch.nn

    class GRULanguageModel(nn.Module):
        def __init__(self) -> None:
            super().__init__()
            self.embed = nn.Embedding(n_ids, settings.dim)
            nn.init.normal_(self.embed.weight, std=settings.dim ** -0.5)
            self.gru = nn.GRU(settings.dim, settings.dim, num_layers=settings.layers, batch_first=True)
            self.bias = nn.Parameter(torch.zeros(n_ids))

        def hidden(self, ids: Any) -> Any:
            return self.gru(self.embed(ids))[0]

        def logits(self, hidden: Any) -> Any:
            return hidden @ self.embed.weight.T + self.bias

    return GRULanguageModel()


def _sequences(docs: Sequence[Sequence[int]], boundary: int, max_length: int | None) -> tuple[Ragged, Ragged]:
    """``(inputs, targets)`` of the documents: each BOS + its tokens, and its tokens + EOS, cut
    after ``max_length`` predictions (None: whole)."""
    inputs, targets = [], []
    for ids in docs:
        seq = [boundary, *ids, boundary]
        x, y = seq[:-1], seq[1:]
        if max_length is not None:
            x, y = x[:max_length], y[:max_length]
        inputs.append(x)
        targets.append(y)
    return Ragged(inputs), Ragged(targets)


def _batches(lengths: Sequence[int], settings: LmSettings, generator: Any, torch: Any) -> list[list[int]]:
    """Batches of document indices until ``settings.tokens`` predictions (the batch that reaches
    it ends the run) or ``settings.max_passes`` passes: pass after pass, each a seeded permutation
    cut into pools of 50 batches, each pool sorted by length and cut into batches, the pass's
    batches shuffled."""
    out: list[list[int]] = []
    spent, n, size = 0, len(lengths), settings.batch_size
    for _ in range(settings.max_passes):
        if spent >= settings.tokens:
            break
        order = torch.randperm(n, generator=generator).tolist()
        batches: list[list[int]] = []
        for start in range(0, n, size * 50):
            chunk = sorted(order[start:start + size * 50], key=lambda i: lengths[i])
            batches += [chunk[k:k + size] for k in range(0, len(chunk), size)]
        for k in torch.randperm(len(batches), generator=generator).tolist():
            out.append(batches[k])
            spent += sum(lengths[i] for i in batches[k])
            if spent >= settings.tokens:
                break
    return out


def _tensors(inputs: Ragged, targets: Ragged, index: Sequence[int], torch: Any, device: Any,
             pad: int) -> tuple[Any, Any, Any]:
    """(inputs, targets, mask) of the documents ``index``, padded to the longest."""
    x = torch.from_numpy(inputs.padded(index, pad=pad))
    mask = torch.arange(x.shape[1]).unsqueeze(0) < torch.from_numpy(inputs.lengths[index]).unsqueeze(1)
    return x.to(device), torch.from_numpy(targets.padded(index, pad=pad)).to(device), mask.to(device)


def train_model(train_docs: Sequence[Sequence[int]], *, vocab_size: int, settings: LmSettings = LmSettings(),
                seed: int = 0, progress: Any = None) -> Any:
    """A :class:`LmSettings` language model trained on ``train_docs`` (token ids below
    ``vocab_size``; id ``vocab_size`` is the boundary, BOS and EOS) for ``settings.tokens``
    predictions, seeded by ``seed``; ``progress``: told of each step (``update(1)``).  ValueError
    for no training token or an id outside the vocabulary."""
    torch = _require_torch()
    if not any(len(d) for d in train_docs):
        raise ValueError("the language model has no training token: give training documents that the row encodes "
                         "to at least one token")
    _check_ids(train_docs, vocab_size, "training")
    device = _device(torch, settings.device)
    inputs_, targets_ = _sequences(train_docs, vocab_size, settings.max_length)
    lengths = inputs_.lengths.tolist()
    threads = torch.get_num_threads()
    torch.set_num_threads(settings.threads)
    try:
        torch.manual_seed(seed)
        generator = torch.Generator().manual_seed(seed)
        model = _network(torch, vocab_size + 1, settings).to(device)
        batches = _batches(lengths, settings, generator, torch)
        steps, warm = len(batches), max(1, round(_WARMUP * len(batches)))

        def rate(step: int) -> float:
            if step < warm:
                return (step + 1) / warm
            done = (step - warm) / max(1, steps - warm)
            return _FLOOR + (1 - _FLOOR) * 0.5 * (1 + math.cos(math.pi * done))

        optimizer = torch.optim.AdamW(model.parameters(), lr=settings.learning_rate, weight_decay=0.01)
        schedule = torch.optim.lr_scheduler.LambdaLR(optimizer, rate)
        model.train()
        for index in batches:
            inputs, targets, mask = _tensors(inputs_, targets_, index, torch, device, vocab_size)
            hidden = model.hidden(inputs)[mask]
            loss = torch.nn.functional.cross_entropy(model.logits(hidden), targets[mask])
            optimizer.zero_grad(set_to_none=True)
            loss.backward()
            torch.nn.utils.clip_grad_norm_(model.parameters(), 1.0)
            optimizer.step()
            schedule.step()
            if progress is not None:
                progress.update(1)
    finally:
        torch.set_num_threads(threads)
    model.steps, model.trained_tokens = steps, sum(lengths[i] for b in batches for i in b)
    return model


def document_log_probs(model: Any, docs: Sequence[Sequence[int]], *, vocab_size: int, settings: LmSettings = LmSettings(),
                       batch_size: int = 128) -> list[Any]:
    """The natural log probability of each scored token of each document under ``model`` (from
    :func:`train_model`): each document whole from a fresh state and BOS, its tokens then EOS
    (``len(doc) + 1`` values, a numpy float64 array a document)."""
    import numpy as np

    torch = _require_torch()
    _check_ids(docs, vocab_size, "held-out")
    device = next(model.parameters()).device
    inputs_, targets_ = _sequences(docs, vocab_size, None)
    lengths = inputs_.lengths.tolist()
    order = inputs_.by_length()
    out: list[Any] = [None] * len(lengths)
    threads = torch.get_num_threads()
    torch.set_num_threads(settings.threads)
    model.eval()
    try:
        with torch.no_grad():
            for start in range(0, len(order), batch_size):
                index = order[start:start + batch_size]
                inputs, targets, mask = _tensors(inputs_, targets_, index, torch, device, vocab_size)
                hidden = model.hidden(inputs)
                logp = torch.log_softmax(model.logits(hidden).double(), -1)
                got = logp.gather(2, targets.unsqueeze(2)).squeeze(2).cpu().numpy()
                for row, i in enumerate(index):
                    out[i] = np.asarray(got[row, :lengths[i]], dtype=np.float64)
    finally:
        torch.set_num_threads(threads)
    return out


def _check_ids(docs: Sequence[Sequence[int]], vocab_size: int, what: str) -> None:
    top = max((max(d) for d in docs if len(d)), default=-1)
    low = min((min(d) for d in docs if len(d)), default=0)
    if top >= vocab_size or low < 0:
        raise ValueError(f"the {what} documents hold id {top if top >= vocab_size else low} outside the vocabulary of "
                         f"{vocab_size:,} ids (0 to {vocab_size - 1:,})")


@register_task("lm")
class LmTask(BaseTask):
    """``lm_bits_per_byte`` of each row (see the module); ``path``: a plain text file of held-out
    documents, one a line (None: the comparison's held-out documents); ``settings``: the model's
    (a :class:`LmSettings` or a dict of its fields; None: the defaults).  The file is read when the
    task is made.  Needs PyTorch (``pip install "korean_bpe[downstream]"``)."""

    name = "lm"
    # the task reads the labelled training sample when the run has one (its ids are then encoded once
    # for every task that reads it); it never reads the labels
    labels = "optional"
    metrics = ("lm_bits_per_byte",)
    verdict = (("language modelling", "lm_bits_per_byte"),)
    columns = (
        Column("lm_bits_per_byte", "float64", "bits per UTF-8 byte of the held-out text under a small GRU language "
               "model trained from scratch on the row's tokens of the training documents (a fixed budget of "
               "training tokens): per document -log2 p of its tokens and an end-of-document token, from a BOS, "
               "plus 8 bits per byte of the characters an unknown token stands for, summed over the documents and "
               "divided by their bytes; NaN for a row that drops text or decodes to other text (task lm)",
               "lmBPB", "", "lower", "{:.4f}", True),
        Column("lm_bits_per_token", "float64", "the model's mean bits per scored token (the held-out tokens and "
               "one end-of-document token a document), unknown characters' bits aside (task lm)",
               format="{:.3f}"),
        Column("lm_seed_sd", "float64", "standard deviation of the per-seed lm_bits_per_byte (NaN for one seed): "
               "how much the training noise moves one model's number (task lm)", format="{:.4f}"),
        Column("lm_train_tokens", "int64", "tokens the row's language model was trained to predict (the budget, "
               "ending with a whole batch; fewer when max_passes passes over a small corpus end it first)", format="{:,d}"),
        Column("lm_s", "float64", "CPU seconds of the lm task on the row: encoding, training, scoring", unit="s",
               format="{:.1f}"),
    )

    def __init__(self, path: str | os.PathLike[str] | None = None, *,
                 settings: LmSettings | Mapping[str, Any] | None = None) -> None:
        settings = LmSettings(**settings) if isinstance(settings, Mapping) else \
            LmSettings() if settings is None else settings
        if not isinstance(settings, LmSettings):
            raise TypeError(f"LmTask(settings=...) must be a korean_bpe.compare.tasks.LmSettings, a dict of its "
                            f"fields or None, got {settings!r}")
        _require_torch()  # the install hint now, not after the rows are trained
        self.settings = settings
        self.train_docs = settings.train_docs
        self.path = None if path is None else Path(path).expanduser()
        self.texts: list[str] | None = None if self.path is None else _read_heldout(self.path)

    def measure(self, row: RowInput) -> Measured:
        import time

        import numpy as np

        cpu = time.process_time()
        seg = row.segmenter
        empty = {"lm_bits_per_byte": math.nan, "lm_bits_per_token": math.nan, "lm_seed_sd": math.nan,
                 "lm_train_tokens": 0}
        if row.drops_text:
            return Measured(empty | {"lm_s": time.process_time() - cpu}, notes=(
                f"lm: no lm_bits_per_byte for {row.strategy}: its pre-tokenizer drops text (analysis mode), so its "
                "tokens do not spell the held-out text",))
        texts = row.held.texts if self.texts is None else self.texts
        if not texts:
            raise ValueError("the lm task has no held-out document to score")
        encoded = row.encoded if self.texts is None else seg.encode_batch(texts)
        lossy = [k for k, (t, ids) in enumerate(zip(texts, encoded))
                 if not (seg.unk_ids and any(i in seg.unk_ids for i in ids)) and seg.decode(ids) != t]
        if lossy:
            k = lossy[0]
            return Measured(empty | {"lm_s": time.process_time() - cpu}, notes=(
                f"lm: no lm_bits_per_byte for {row.strategy} at {row.vocab_size:,}: {len(lossy):,} held-out "
                f"document{'s' if len(lossy) > 1 else ''} decode to other text without an unknown token (e.g. "
                f"{texts[k][:30]!r} -> {seg.decode(encoded[k])[:30]!r}), so its tokens do not spell the text",))
        spans = None if self.texts is not None else row.spans
        unknown = [0] * len(texts)
        for k, (t, ids) in enumerate(zip(texts, encoded)):
            if not (seg.unk_ids and any(i in seg.unk_ids for i in ids)):
                continue
            where = spans[k] if spans is not None else [(a, b) for _, a, b in seg.pieces(t)]
            if len(where) != len(ids) or any(a >= b for i, (a, b) in zip(ids, where) if i in seg.unk_ids):
                return Measured(empty | {"lm_s": time.process_time() - cpu}, notes=(
                    f"lm: no lm_bits_per_byte for {row.strategy} at {row.vocab_size:,}: its pieces do not say which "
                    f"characters an unknown token of {t[:30]!r} stands for, so they cannot be charged",))
            unknown[k] = unknown_bytes(t, ids, where, seg.unk_ids)
        train = self._training(row)
        vocab = max(int(seg.vocab_size), 1 + max((max(d) for d in (*train, *encoded) if len(d)), default=0))
        first = row.seed if self.settings.seed is None else self.settings.seed
        n_bytes = [len(t.encode("utf-8", "surrogatepass")) for t in texts]
        bits, per_token, trained = [], [], []
        for seed in range(first, first + self.settings.seeds):
            sums, counts, tokens = self._scores(row, train, encoded, vocab, seed)
            bits.append([document_bits([s], unknown_bytes=u) for s, u in zip(sums, unknown)])
            per_token.append(math.fsum(document_bits([s]) for s in sums) / sum(counts))
            trained.append(tokens)
        per_seed = [bits_per_byte(b, n_bytes) for b in bits]
        columns = {"lm_bits_per_byte": float(np.mean(per_seed)), "lm_bits_per_token": float(np.mean(per_token)),
                   "lm_seed_sd": float(np.std(per_seed, ddof=1)) if len(per_seed) > 1 else math.nan,
                   "lm_train_tokens": int(trained[0]), "lm_s": time.process_time() - cpu}
        return Measured(columns, evidence={"bits": np.asarray(bits, dtype=np.float64),
                                           "bytes": np.asarray(n_bytes, dtype=np.float64)})

    def _training(self, row: RowInput) -> list[list[int]]:
        """The row's ids of the training sample: the labelled sample's (encoded once for every task)
        when the run has labels, else the seeded sample of the training documents encoded here."""
        if row.labelled is not None and row.train_ids is not None and self.name in row.labelled.positions:
            return row.training(self.name)[0]
        from ..rows import Labelled

        texts = row.train_texts
        if not texts:
            raise ValueError("the lm task has no training document: compare() trains it on the training split")
        keep = Labelled.sample(len(texts), [0] * len(texts), {self.name: self.train_docs}, seed=row.seed).idx
        return row.segmenter.encode_batch([texts[i] for i in keep])

    def _scores(self, row: RowInput, train: list[list[int]], encoded: list[list[int]], vocab: int,
                seed: int) -> tuple[list[float], list[int], int]:
        """``(sums, counts, trained)`` of the model of ``seed``: each held-out document's log
        probability (``math.fsum`` of :func:`document_log_probs`'), its scored tokens, and the
        tokens the model trained on; kept in the comparison's model cache (on the CPU, where
        training is deterministic): a rerun on the same ids, settings and seed trains no model
        (:func:`korean_bpe.compare.downstream.kept_model_scores`)."""
        from ..downstream import kept_model_scores
        from ..model_cache import data_hash

        def make() -> tuple[tuple[list[float], list[int], int], dict[str, Any]]:
            model = self._train(row, train, vocab, seed)
            log_probs = document_log_probs(model, encoded, vocab_size=vocab, settings=self.settings)
            sums, counts = [math.fsum(lp) for lp in log_probs], [len(lp) for lp in log_probs]
            return (sums, counts, int(model.trained_tokens)), {"sums": sums, "counts": counts,
                                                               "trained_tokens": int(model.trained_tokens)}

        def load(entry: dict[str, Any]) -> tuple[list[float], list[int], int] | None:
            sums, counts, tokens = entry["sums"], entry["counts"], entry["trained_tokens"]
            if counts != [len(d) + 1 for d in encoded] or len(sums) != len(encoded) or not isinstance(tokens, int) \
                    or not all(isinstance(s, float) for s in sums):
                return None
            return sums, counts, tokens

        fields = {"kind": "lm", "inputs": data_hash([train, encoded, vocab]), "settings": self.settings.to_config(),
                  "seed": seed}
        return kept_model_scores(row.model_cache, self.settings, fields, make=make, load=load,
                                 code=("korean_bpe.compare.tasks.lm", "korean_bpe.compare.downstream"))

    def _train(self, row: RowInput, train: list[list[int]], vocab: int, seed: int) -> Any:
        from ...progress import start_progress

        bar = start_progress(row.show_progress, total=None, desc=f"lm {row.strategy} {row.vocab_size:,}", unit="step")
        try:
            return train_model(train, vocab_size=vocab, settings=self.settings, seed=seed, progress=bar)
        finally:
            bar.close()

    def replicates(self, evidence: Any, *, point: Mapping[str, Any], resamples: int, seed: int) -> dict[str, Any]:
        """``lm_bits_per_byte`` on each resample of a two-stage bootstrap: the held-out documents
        drawn as for every metric (:func:`korean_bpe.compare.stats.resample_counts`), the seeds'
        models drawn with replacement (:func:`korean_bpe.compare.stats.seed_counts`; one seed: always
        it), the mean over the drawn models of the drawn documents' bits over their bytes."""
        import numpy as np

        from .. import stats

        bits, n_bytes = evidence["bits"], evidence["bytes"]
        if bits.shape[1] < stats.MIN_DOCUMENTS:
            return {}
        counts = stats.resample_counts(bits.shape[1], resamples=resamples, seed=seed)
        sums = stats.replicate_sums(np.vstack([bits, n_bytes]).T, counts)  # resamples x (seeds + 1)
        with np.errstate(divide="ignore", invalid="ignore"):
            ratios = np.where(sums[:, -1:] > 0, sums[:, :-1] / sums[:, -1:], np.nan)
        weights = stats.seed_counts(bits.shape[0], resamples=resamples, seed=seed)
        return {"lm_bits_per_byte": (ratios * weights).sum(1) / bits.shape[0]}

    def to_config(self) -> dict[str, Any]:
        torch = _require_torch()
        return {"held_out": str(self.path) if self.path else "the comparison's held-out documents",
                **({"held_out_docs": len(self.texts)} if self.texts is not None else {}),
                **self.settings.to_config(), "device_used": _device(torch, self.settings.device).type,
                "model": self.settings.describe(),
                "scored": "each held-out document whole from a BOS: its tokens and an end-of-document token; "
                          "unknown tokens also pay 8 bits per byte of the characters they stand for"}

    def __repr__(self) -> str:
        return f"LmTask({str(self.path) if self.path else None!r}, settings={self.settings!r})"


def _read_heldout(path: Path) -> list[str]:
    """The documents of a plain text file (one a line, blank lines skipped); CorpusError naming it."""
    from ...corpus import CorpusError, iter_texts

    if path.is_dir():
        raise CorpusError(f"{path} is a directory: the lm task's held-out text is a plain text file, one document "
                          "a line")
    try:
        texts = list(iter_texts(path))
    except CorpusError:
        raise
    except ValueError as exc:  # an empty file: iter_texts says it holds no document
        raise CorpusError(str(exc)) from None
    if not texts:
        raise CorpusError(f"{path} holds no document: the lm task needs held-out text, one document a line")
    return texts
