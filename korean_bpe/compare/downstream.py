"""The downstream stage of a comparison: a small neural classifier trained from scratch on each row's
token ids, scored on the held-out documents.

The probe (:func:`korean_bpe.compare.metrics.probe_predictions`) is a bag-of-tokens logistic
regression: it cannot see the order of the tokens, and the order is what a segmentation changes.
This stage trains what a researcher would train to tell strategies apart: a small sequence model,
from scratch, on the training documents' ids, several seeds, and reads its predictions on the
held-out documents.  Two model families (:data:`MODELS`):

* ``"cnn"`` (the default): token embeddings, two 1-d convolutions of widths 3 and 5 over the
  sequence (as many channels as the embedding is wide), each max-pooled over the positions the
  document covers, dropout 0.5, then a linear layer (Kim 2014);
* ``"transformer"``: token and position embeddings, one Transformer encoder layer (4 heads,
  pre-norm), a mean over the document's positions, then a linear layer.

Input: the row's token ids shifted by two (0 pads, 1 stands for an empty document: an analysis row
can drop every token of a document), cut after :attr:`Downstream.max_length` tokens.  Batches are
documents of similar length (sorted by length within seeded pools of 8 batches, the batches then
shuffled), so padding costs little.  The embedding table has one row per id the row's documents
use, however large the vocabulary (byte rows, 64k+ vocabularies), its vectors drawn uniformly from
[-0.05, 0.05].  One AdamW optimizer (weight decay 0.01) trains every parameter; its learning rate
(:func:`learning_rate`) rises linearly over the first tenth of the steps (:data:`WARMUP`) to
:attr:`Downstream.learning_rate`, then falls to 0 along a cosine.

What it costs: with the defaults (CNN, 64-dim embeddings, 3 epochs over at most 20,000 training
documents, batches of 256, a peak learning rate of 2e-3, 3 seeds, one CPU thread) a row of the NSMC
grid takes 30-45 s of CPU with its 55,106 held-out reviews, most of it training.  On NSMC these
defaults score within 0.5 points of a plain Kim CNN written apart from the library
(benchmarks/bench_downstream_reference.py; benchmarks/README.md records the figures, the grid's
cost and results).  The same code runs on a GPU when one is present (``device="auto"``).  On the
CPU a seed gives the same numbers every time (the model's initialisation, the dropout and the batch
order all come from the seed, and the CPU kernels are deterministic for a fixed thread count).  A
comparison keeps each row's scores in its model cache, so a rerun on the same ids trains nothing
(:func:`korean_bpe.compare.tasks.downstream.classify`, :class:`DeferredClassifier`).

The statistics (:func:`korean_bpe.compare.stats.seed_document_replicates`): ``downstream_accuracy``
is the share of (seed, held-out document) pairs classified right; ``downstream_macro_f1`` the mean
over seeds of the macro-averaged F1 over the training labels' classes; ``downstream_seed_sd`` the
standard deviation of the per-seed accuracies.  Their intervals come from a two-stage bootstrap:
each resample draws the held-out documents with replacement (the same draws as every other metric
of the comparison) and the seeds with replacement, and recomputes the metric on the drawn pairs;
the interval is the percentile interval of those values, and the p-value against the reference row
is the paired bootstrap of the difference (both rows on the same drawn documents and seed numbers).

>>> train = [[5, 6], [5, 7], [8, 9], [8, 6, 9]] * 25
>>> labels = [1, 1, 0, 0] * 25
>>> predict(train, labels, [[5, 7], [8, 9]], settings=Downstream(epochs=5, seeds=2, batch_size=8), seed=0).tolist()
[[1, 0], [1, 0]]
"""

from __future__ import annotations

import contextlib
import math
from collections.abc import Callable, Iterator, Mapping, Sequence
from dataclasses import dataclass, fields
from typing import Any, TypeVar

__all__ = ["torch_device", "Downstream", "MODELS", "MAX_SEEDS", "MAX_EPOCHS", "WARMUP", "learning_rate", "Classifier",
           "DeferredClassifier", "fit", "predict", "evaluate", "scored", "require_torch", "resolved_device",
           "length_batches", "Ragged", "kept_model_scores"]

T = TypeVar("T")

#: the model families, the default first
MODELS = ("cnn", "transformer")
_DEVICES = ("auto", "cpu", "cuda")
#: the most models a row trains, and passes over the documents each: a run's cost grows with both
#: (100,000 seeds ran until killed), and more than these gains nothing an interval can show
MAX_SEEDS, MAX_EPOCHS = 100, 1000
_PAD, _EMPTY, _SHIFT = 0, 1, 2
#: the share of a run's optimizer steps over which the learning rate rises to its peak
WARMUP = 0.1
#: batches per pool of the length-sorted batching (:func:`length_batches`)
_POOL = 8


@dataclass(frozen=True)
class Downstream:
    """Settings of the downstream stage (``compare(downstream=Downstream(...))``; ``--downstream``).

    >>> Downstream().model, Downstream().seeds, Downstream().max_length
    ('cnn', 3, 128)
    >>> Downstream(model="rnn")
    Traceback (most recent call last):
      ...
    ValueError: Downstream(model='rnn'): use one of 'cnn', 'transformer'
    """

    #: the model family: ``"cnn"`` or ``"transformer"`` (:data:`MODELS`)
    model: str = "cnn"
    #: models trained per row, seeds ``seed, seed + 1, ...`` of the comparison's ``seed``
    seeds: int = 3
    #: training documents (a seeded sample of the training split, the same for every row; None: all)
    train_docs: int | None = 20_000
    #: passes over the training documents
    epochs: int = 3
    #: tokens kept per document (the first ones); the rest is cut
    max_length: int = 128
    #: embedding (and model) width: the CNN's channels per convolution, the Transformer's width
    dim: int = 64
    #: documents per batch
    batch_size: int = 256
    #: AdamW's peak learning rate, reached after the warm-up (the first :data:`WARMUP` of the
    #: steps), then falling to 0 along a cosine (:func:`learning_rate`)
    learning_rate: float = 2e-3
    #: ``"auto"`` (CUDA when torch sees a GPU, else the CPU), ``"cpu"`` or ``"cuda"``
    device: str = "auto"
    #: CPU threads torch may use while training and predicting.  One by default: these models are too
    #: small to gain from more (on 2 cores, two threads cost 8 times the CPU of one for the same
    #: model), a comparison's workers run side by side, and one thread gives the same numbers on any
    #: machine's CPU count
    threads: int = 1

    def __post_init__(self) -> None:
        if self.model not in MODELS:
            raise ValueError(f"Downstream(model={self.model!r}): use one of {', '.join(map(repr, MODELS))}")
        if self.device not in _DEVICES:
            raise ValueError(f"Downstream(device={self.device!r}): use one of {', '.join(map(repr, _DEVICES))}")
        for name, low, high in (("seeds", 1, MAX_SEEDS), ("epochs", 1, MAX_EPOCHS), ("max_length", 1, None),
                                ("dim", 4, None), ("batch_size", 1, None)):
            value = getattr(self, name)
            if isinstance(value, bool) or not isinstance(value, int) or value < low or (high is not None and value > high):
                raise ValueError(f"Downstream({name}={value!r}): must be an int >= {low}"
                                 + (f" and <= {high:,}" if high is not None else ""))
        if self.train_docs is not None and (isinstance(self.train_docs, bool) or not isinstance(self.train_docs, int)
                                            or self.train_docs < 2):
            raise ValueError(f"Downstream(train_docs={self.train_docs!r}): must be an int >= 2, or None (all)")
        if isinstance(self.threads, bool) or not isinstance(self.threads, int) or self.threads < 1:
            raise ValueError(f"Downstream(threads={self.threads!r}): must be an int >= 1")
        if self.model == "transformer" and self.dim % 4:
            raise ValueError(f"Downstream(dim={self.dim}): the transformer's 4 heads need a multiple of 4")
        if not (isinstance(self.learning_rate, (int, float)) and 0 < self.learning_rate < 1):
            raise ValueError(f"Downstream(learning_rate={self.learning_rate!r}): must be a number in (0, 1)")

    def describe(self) -> str:
        """One line for reports: the model and the settings that change its numbers.

        >>> import textwrap
        >>> print(textwrap.fill(Downstream().describe(), 90))
        cnn (dim 64, 3 epochs, batch 256, lr 0.002 warm-up + cosine, first 128 tokens, 3 seeds, at
        most 20,000 training documents)
        """
        docs = "all training documents" if self.train_docs is None else \
            f"at most {self.train_docs:,} training documents"
        return (f"{self.model} (dim {self.dim}, {self.epochs} epochs, batch {self.batch_size}, "
                f"lr {self.learning_rate:g} warm-up + cosine, first {self.max_length} tokens, {self.seeds} seeds, {docs})")

    def to_config(self) -> dict[str, Any]:
        """The settings as a plain dict (the comparison's configuration records it)."""
        return {f.name: getattr(self, f.name) for f in fields(self)}


def require_torch() -> Any:
    """``torch``, or ImportError with the install line."""
    from .._optional import require

    return require("torch")


def resolved_device(settings: Any) -> str:
    """Where ``settings``' models train on this machine: ``"cuda"`` or ``"cpu"`` (``settings``: any
    settings with a ``device``: :class:`Downstream`, the NER tagger's, the language model's)."""
    return torch_device(require_torch(), settings.device).type


def kept_model_scores(cache: Any, settings: Any, fields: Mapping[str, Any], *, code: Sequence[str],
                      make: Callable[[], tuple[T, dict[str, Any]]], load: Callable[[dict[str, Any]], T | None]) -> T:
    """:func:`korean_bpe.compare.model_cache.kept_scores` for what a small PyTorch model of a
    comparison gives (the classifier's predictions, the NER tagger's tags, the language model's log
    probabilities): kept only where its training is deterministic, on the CPU (``settings.device``
    resolved; elsewhere made every time), under ``fields`` with the fingerprint of the ``code``
    modules that train and score it and the PyTorch and NumPy versions."""
    from .model_cache import code_fingerprint, kept_scores, library_versions

    if resolved_device(settings) != "cpu":
        cache = None
    return kept_scores(cache, {**fields, "libraries": library_versions("torch", "numpy"),
                               "code": code_fingerprint(*code)}, make=make, load=load)


def torch_device(torch: Any, device: str, *, owner: str = "Downstream") -> Any:
    """The ``torch.device`` of a ``device`` setting (``"auto"``: CUDA when torch sees a GPU, else the
    CPU); ValueError naming ``owner``'s setting for ``"cuda"`` on a machine without one."""
    if device == "auto":
        return torch.device("cuda" if torch.cuda.is_available() else "cpu")
    if device == "cuda" and not torch.cuda.is_available():
        raise ValueError(f"{owner}(device='cuda'): torch sees no GPU here; use device='auto' or 'cpu'")
    return torch.device(device)


def learning_rate(step: int, steps: int, *, peak: float) -> float:
    """The learning rate of optimizer step ``step`` (0, 1, ..., ``steps - 1``) of a run of ``steps``:
    it rises linearly over the first ``w = max(1, round(WARMUP * steps))`` steps (``peak * (step + 1)
    / w``), then falls from ``peak`` to 0 along a cosine (``peak * (1 + cos(pi * (step - w) / (steps
    - w))) / 2``): a short warm-up keeps Adam's first, badly scaled steps small; the cosine ends the
    run on small steps, so that a seed's model does not end on one noisy step.

    >>> [round(learning_rate(k, 100, peak=2e-3), 6) for k in (0, 4, 9, 10, 55, 99)]
    [0.0002, 0.001, 0.002, 0.002, 0.001, 1e-06]
    """
    warm = max(1, round(WARMUP * steps))
    if step < warm:
        return peak * (step + 1) / warm
    return peak * 0.5 * (1 + math.cos(math.pi * (step - warm) / max(1, steps - warm)))


def _prepare(docs: Sequence[Sequence[int]], max_length: int, remap: dict[int, int]) -> Ragged:
    """Each document's ids, cut at ``max_length``, through ``remap`` (id -> embedding row); an empty
    document becomes the one ``_EMPTY`` row."""
    return Ragged([[remap[i] for i in ids[:max_length]] or [_EMPTY] for ids in docs])


class Ragged:
    """Sequences of ints of different lengths kept as one flat int64 array and their starts, so that
    a padded batch of them is made by NumPy indexing, without a Python object per element (the
    training loops of the downstream, ``ner`` and ``lm`` tasks make one a step).

    >>> r = Ragged([[5, 6, 7], [8], []])
    >>> r.padded([1, 0], pad=0).tolist(), r.lengths.tolist(), r.by_length()
    ([[8, 0, 0], [5, 6, 7]], [3, 1, 0], [2, 1, 0])
    >>> r.padded([2], pad=-1, least=1).tolist()
    [[-1]]
    """

    def __init__(self, seqs: Sequence[Sequence[int]]) -> None:
        import itertools

        import numpy as np

        self.lengths = np.fromiter(map(len, seqs), dtype=np.int64, count=len(seqs))
        self.starts = np.zeros(len(seqs) + 1, dtype=np.int64)
        np.cumsum(self.lengths, out=self.starts[1:])
        self.flat = np.fromiter(itertools.chain.from_iterable(seqs), dtype=np.int64, count=int(self.starts[-1]))

    def __len__(self) -> int:
        return len(self.lengths)

    def by_length(self) -> list[int]:
        """The sequences' positions, shortest first, ties in order (what a batched prediction reads)."""
        import numpy as np

        return np.argsort(self.lengths, kind="stable").tolist()

    def padded(self, index: Sequence[int], *, pad: int, least: int = 0) -> Any:
        """The sequences ``index`` as a ``len(index) x longest`` int64 array (at least ``least``
        columns), each padded on the right with ``pad``."""
        import numpy as np

        index = np.asarray(index, dtype=np.int64)
        lengths = self.lengths[index]
        out = np.full((len(index), max(least, int(lengths.max(initial=0)))), pad, dtype=np.int64)
        rows = np.repeat(np.arange(len(index)), lengths)
        columns = np.arange(rows.size) - np.repeat(np.cumsum(lengths) - lengths, lengths)
        out[rows, columns] = self.flat[np.repeat(self.starts[index], lengths) + columns]
        return out


def length_batches(lengths: Sequence[int], batch_size: int, generator: Any, torch: Any) -> list[list[int]]:
    """Batches of document indices of similar length: a seeded permutation cut into pools of
    :data:`_POOL` batches, each pool sorted by length and cut into batches, the batches shuffled."""
    n = len(lengths)
    order = torch.randperm(n, generator=generator).tolist()
    pool = batch_size * _POOL
    batches = []
    for start in range(0, n, pool):
        chunk = sorted(order[start:start + pool], key=lambda i: lengths[i])
        batches += [chunk[k:k + batch_size] for k in range(0, len(chunk), batch_size)]
    perm = torch.randperm(len(batches), generator=generator).tolist()
    return [batches[k] for k in perm]


def _tensor(docs: Ragged, index: Sequence[int], torch: Any, device: Any) -> tuple[Any, Any]:
    """(ids, mask) of the documents ``index``: a batch x longest matrix padded with ``_PAD``."""
    ids = torch.from_numpy(docs.padded(index, pad=_PAD)).to(device)
    return ids, ids != _PAD


def _model(torch: Any, settings: Downstream, n_embeddings: int, n_classes: int) -> Any:
    nn = torch.nn
    dim = settings.dim

    def _embedding(n: int, *, pad: bool = True) -> Any:
        """An embedding table of small random vectors, uniform in [-0.05, 0.05] (PyTorch's N(0, 1) is
        too large for the few hundred steps of a run: 62% instead of 81% on NSMC), the padding row 0."""
        table = nn.Embedding(n, dim, padding_idx=_PAD if pad else None)
        with torch.no_grad():
            table.weight.uniform_(-0.05, 0.05)
            if pad:
                table.weight[_PAD].zero_()
        return table

    class CNN(nn.Module):
        widths = (3, 5)

        def __init__(self) -> None:
            super().__init__()
            self.embed = _embedding(n_embeddings)
            self.convs = nn.ModuleList(nn.Conv1d(dim, dim, w, padding=w - 1) for w in self.widths)
            self.drop = nn.Dropout(0.5)
            self.out = nn.Linear(dim * len(self.widths), n_classes)

        def forward(self, ids: Any, mask: Any) -> Any:
            x = self.embed(ids).transpose(1, 2)  # batch x dim x length
            lengths = mask.sum(1, keepdim=True)
            pooled = []
            for w, conv in zip(self.widths, self.convs):
                h = torch.relu(conv(x))  # batch x dim x (length + w - 1): every window touching the text
                positions = torch.arange(h.shape[2], device=h.device).unsqueeze(0)
                inside = (positions < lengths + w - 1).unsqueeze(1)
                pooled.append(h.masked_fill(~inside, 0.0).amax(2))
            return self.out(self.drop(torch.cat(pooled, 1)))

    class Transformer(nn.Module):
        def __init__(self) -> None:
            super().__init__()
            self.embed = _embedding(n_embeddings)
            self.position = _embedding(settings.max_length, pad=False)
            layer = nn.TransformerEncoderLayer(dim, 4, dim_feedforward=2 * dim, dropout=0.1, batch_first=True,
                                               norm_first=True)
            self.encoder = nn.TransformerEncoder(layer, 1, enable_nested_tensor=False)
            self.norm = nn.LayerNorm(dim)
            self.out = nn.Linear(dim, n_classes)

        def forward(self, ids: Any, mask: Any) -> Any:
            positions = torch.arange(ids.shape[1], device=ids.device).unsqueeze(0)
            h = self.encoder(self.embed(ids) + self.position(positions), src_key_padding_mask=~mask)
            h = self.norm(h).masked_fill(~mask.unsqueeze(2), 0.0)
            return self.out(h.sum(1) / mask.sum(1, keepdim=True))

    return CNN() if settings.model == "cnn" else Transformer()


class Classifier:
    """The downstream models of one row, trained (:func:`fit`): one per seed, with the embedding rows
    of the ids they were trained with.  :meth:`predict` labels any documents of the row's ids, so
    that one training serves several scored sets (the held-out documents, and the same documents
    perturbed: :class:`korean_bpe.compare.tasks.NoiseTask`).

    >>> train = [[5, 6], [5, 7], [8, 9], [8, 6, 9]] * 25
    >>> clf = fit(train, [1, 1, 0, 0] * 25, settings=Downstream(epochs=5, seeds=2, batch_size=8), seed=0)
    >>> clf.predict([[5, 7], [8, 9]]).tolist(), clf.predict([[8, 9], [42, 7]]).shape
    ([[1, 0], [1, 0]], (2, 2))
    """

    def __init__(self, models: list[Any], remap: dict[int, int], classes: list[int], settings: Downstream,
                 seed: int) -> None:
        self.models, self.remap, self.classes, self.settings, self.seed = models, remap, classes, settings, seed

    def predict(self, docs: Sequence[Sequence[int]], *, batch_size: int | None = None) -> Any:
        """The labels each model predicts for ``docs`` (token ids): a ``seeds x len(docs)`` numpy
        int64 array.  An id the models have no embedding row for (one in neither the training
        documents nor the ``known`` documents of :func:`fit`) gets a row drawn as an untrained row
        is drawn (uniform in [-0.05, 0.05]), from a generator of the seed and those ids alone: the
        same documents give the same labels, whatever was predicted before.  Documents identical in
        their first ``max_length`` ids are predicted once and get the same labels.  ``batch_size``:
        documents per forward pass, sorted by length (None: four training batches, as
        :func:`predict`; the training batch size pads less and runs about 3 times faster on the CPU,
        the logits equal up to rounding)."""
        import numpy as np

        torch = require_torch()
        settings = self.settings
        cut = [tuple(doc[:settings.max_length]) for doc in docs]
        where: dict[tuple[int, ...], int] = {}
        back = np.fromiter((where.setdefault(doc, len(where)) for doc in cut), dtype=np.int64, count=len(cut))
        unique = list(where)  # identical documents are predicted once (the noise task's are often unchanged)
        new = sorted({i for doc in unique for i in doc} - self.remap.keys())
        remap = self.remap | {i: len(self.remap) + _SHIFT + k for k, i in enumerate(new)}
        prepared = _prepare(unique, settings.max_length, remap)
        device = torch_device(torch, settings.device)
        order = prepared.by_length()
        size = batch_size or settings.batch_size * 4
        batches = [(index, *_tensor(prepared, index, torch, device))  # made once for every model
                   for index in (order[k:k + size] for k in range(0, len(order), size))]
        got = np.empty((len(self.models), len(unique)), dtype=np.int64)
        threads = torch.get_num_threads()
        torch.set_num_threads(settings.threads)
        try:
            for s, model in enumerate(self.models):
                with _extended(model, len(new), torch, torch.Generator().manual_seed(self.seed + s)):
                    got[s] = _predict(model, batches, len(unique), torch)
        finally:
            torch.set_num_threads(threads)
        return np.asarray(self.classes, dtype=np.int64)[got][:, back]

    def __repr__(self) -> str:
        return f"Classifier({len(self.models)} models, {len(self.remap):,} ids, classes {self.classes})"


class DeferredClassifier(Classifier):
    """The :class:`Classifier` that :func:`fit` gives for these arguments, trained on its first use
    (:meth:`predict`, ``models``, ``remap``).  A rerun of a comparison reads a row's scores back from
    the model cache, not its models; a task after the downstream stage that scores more documents
    (the noise task) gets one of these, and only then pays for the training.  Training on the CPU
    is deterministic, so the models made then are those the stored scores came from.

    >>> train = [[5, 6], [5, 7], [8, 9], [8, 6, 9]] * 25
    >>> settings = Downstream(epochs=5, seeds=2, batch_size=8)
    >>> later = DeferredClassifier(train, [1, 1, 0, 0] * 25, settings=settings, seed=0)
    >>> later
    DeferredClassifier(not trained yet, classes [0, 1])
    >>> later.predict([[5, 7], [8, 9]]).tolist()
    [[1, 0], [1, 0]]
    """

    def __init__(self, train_docs: Sequence[Sequence[int]], train_labels: Sequence[int], *, settings: Downstream,
                 seed: int, known: Sequence[Sequence[int]] = ()) -> None:
        self.settings, self.seed = settings, seed
        self.classes = sorted({int(y) for y in train_labels})
        self._inputs: tuple[Any, Any, Any] | None = (train_docs, train_labels, known)
        self._fitted: Classifier | None = None

    def fitted(self) -> Classifier:
        """The trained classifier (trained now, the first time)."""
        if self._fitted is None:
            assert self._inputs is not None
            docs, labels, known = self._inputs
            self._fitted = fit(docs, labels, settings=self.settings, seed=self.seed, known=known)
            self._inputs = None  # the documents are no longer needed
        return self._fitted

    @property  # type: ignore[override]
    def models(self) -> list[Any]:
        return self.fitted().models

    @property  # type: ignore[override]
    def remap(self) -> dict[int, int]:
        return self.fitted().remap

    def predict(self, docs: Sequence[Sequence[int]], *, batch_size: int | None = None) -> Any:
        return self.fitted().predict(docs, batch_size=batch_size)

    def __repr__(self) -> str:
        return repr(self._fitted) if self._fitted is not None else \
            f"DeferredClassifier(not trained yet, classes {self.classes})"


@contextlib.contextmanager
def _extended(model: Any, n: int, torch: Any, generator: Any) -> Iterator[None]:
    """``model`` with ``n`` more embedding rows drawn from ``generator`` while the body runs."""
    if not n:
        yield
        return
    table = model.embed
    extra = torch.empty((n, table.embedding_dim)).uniform_(-0.05, 0.05, generator=generator)
    model.embed = torch.nn.Embedding.from_pretrained(torch.cat([table.weight.detach(), extra.to(table.weight.device)]),
                                                     freeze=True, padding_idx=_PAD)
    try:
        yield
    finally:
        model.embed = table


def fit(train_docs: Sequence[Sequence[int]], train_labels: Sequence[int], *, settings: Downstream = Downstream(),
        seed: int = 0, known: Sequence[Sequence[int]] = (), progress: Any = None) -> Classifier:
    """Train ``settings.seeds`` models on ``train_docs`` (token ids) and ``train_labels`` (ints, at least
    two classes), seeds ``seed, seed + 1, ...``: a :class:`Classifier`.  ``known``: documents to be
    predicted whose ids get embedding rows before training (as :func:`predict` gives its
    ``test_docs``: the table, and so each seed's numbers, depend on them).  ``progress``: an object
    with ``update(n)`` told of each finished epoch."""
    torch = require_torch()
    train_labels = [int(y) for y in train_labels]
    if len(train_labels) != len(train_docs):
        raise ValueError(f"train_labels must give one label per training document: {len(train_labels)} labels for "
                         f"{len(train_docs)} documents")
    classes = sorted(set(train_labels))
    if len(classes) < 2:
        raise ValueError(f"the training labels hold a single class ({classes}): the downstream stage needs at least "
                         "two classes in the training split")
    ids = sorted({i for doc in train_docs for i in doc[:settings.max_length]}
                 | {i for doc in known for i in doc[:settings.max_length]})
    remap = {i: k + _SHIFT for k, i in enumerate(ids)}
    train = _prepare(train_docs, settings.max_length, remap)
    target = torch.tensor([classes.index(y) for y in train_labels], dtype=torch.long)
    device = torch_device(torch, settings.device)
    models = []
    threads = torch.get_num_threads()
    torch.set_num_threads(settings.threads)
    try:
        for s in range(settings.seeds):
            torch.manual_seed(seed + s)
            generator = torch.Generator().manual_seed(seed + s)
            model = _model(torch, settings, len(ids) + _SHIFT, len(classes)).to(device)
            optimizer = torch.optim.AdamW(model.parameters(), lr=settings.learning_rate, weight_decay=0.01)
            lengths = train.lengths.tolist()
            steps = settings.epochs * -(-len(train) // settings.batch_size)
            schedule = torch.optim.lr_scheduler.LambdaLR(
                optimizer, lambda step: learning_rate(step, steps, peak=1.0))
            for _ in range(settings.epochs):
                model.train()
                for index in length_batches(lengths, settings.batch_size, generator, torch):
                    x, mask = _tensor(train, index, torch, device)
                    loss = torch.nn.functional.cross_entropy(model(x, mask), target[index].to(device))
                    optimizer.zero_grad(set_to_none=True)
                    loss.backward()
                    optimizer.step()
                    schedule.step()
                if progress is not None:
                    progress.update(1)
            model.eval()
            models.append(model)
    finally:
        torch.set_num_threads(threads)
    return Classifier(models, remap, classes, settings, seed)


def predict(train_docs: Sequence[Sequence[int]], train_labels: Sequence[int], test_docs: Sequence[Sequence[int]],
            *, settings: Downstream = Downstream(), seed: int = 0, progress: Any = None) -> Any:
    """Train ``settings.seeds`` models on ``train_docs`` (token ids) and ``train_labels`` (ints, at least
    two classes), seeds ``seed, seed + 1, ...``; returns their predicted labels of ``test_docs``, a
    ``seeds x len(test_docs)`` numpy int64 array: :func:`fit` (``test_docs`` known) then
    :meth:`Classifier.predict`.  ``progress``: an object with ``update(n)`` told of each finished epoch."""
    return fit(train_docs, train_labels, settings=settings, seed=seed, known=test_docs,
               progress=progress).predict(test_docs)


def _predict(model: Any, batches: list[tuple[Any, Any, Any]], n: int, torch: Any) -> Any:
    """The class number ``model`` gives each of ``n`` documents, from ``batches`` of ``(index, ids,
    mask)`` (:func:`_tensor`)."""
    import numpy as np

    model.eval()
    out = np.empty(n, dtype=np.int64)
    with torch.no_grad():
        for index, x, mask in batches:
            out[index] = model(x, mask).argmax(1).cpu().numpy()
    return out


def evaluate(train_docs: Sequence[Sequence[int]], train_labels: Sequence[int], test_docs: Sequence[Sequence[int]],
             test_labels: Sequence[int], *, settings: Downstream = Downstream(), seed: int = 0,
             progress: Any = None) -> tuple[dict[str, Any], dict[str, Any]]:
    """``(columns, evidence)`` of one row: the columns ``downstream_accuracy``,
    ``downstream_macro_f1``, ``downstream_seed_sd`` and ``downstream_s`` (this process's CPU
    seconds), ``downstream_one_class`` and ``downstream_chance`` (not columns: whether every seed's
    model predicts one class for every held-out document, and the accuracy of always predicting the
    most frequent training label: what the verdict compares a model with); the evidence, the
    per-seed predictions with the classes and held-out labels (what
    :func:`korean_bpe.compare.stats.seed_document_replicates` resamples): :func:`scored` of
    :func:`fit`."""
    columns, evidence, _ = scored(train_docs, train_labels, test_docs, test_labels, settings=settings, seed=seed,
                                  progress=progress)
    return columns, evidence


def _most_frequent(labels: Sequence[int]) -> int:
    """The most frequent label (ties: the smallest)."""
    from collections import Counter

    counts = Counter(int(y) for y in labels)
    return min(counts, key=lambda y: (-counts[y], y))


def scored(train_docs: Sequence[Sequence[int]], train_labels: Sequence[int], test_docs: Sequence[Sequence[int]],
           test_labels: Sequence[int], *, settings: Downstream = Downstream(), seed: int = 0,
           progress: Any = None) -> tuple[dict[str, Any], dict[str, Any], Classifier]:
    """:func:`evaluate`'s ``(columns, evidence)`` and the trained :class:`Classifier`, for a caller
    that scores more documents with the same models."""
    import time

    import numpy as np

    from .stats import seed_document_metrics

    cpu = time.process_time()
    classifier = fit(train_docs, train_labels, settings=settings, seed=seed, known=test_docs, progress=progress)
    predictions = classifier.predict(test_docs)
    cpu = time.process_time() - cpu
    classes = np.asarray(sorted({int(y) for y in train_labels}), dtype=np.int64)
    truth = np.asarray([int(y) for y in test_labels], dtype=np.int64)
    per_seed = (predictions == truth[None, :]).mean(1)
    point = seed_document_metrics(predictions, truth, classes)
    columns = {
        "downstream_accuracy": point["downstream_accuracy"],
        "downstream_macro_f1": point["downstream_macro_f1"],
        "downstream_seed_sd": float(np.std(per_seed, ddof=1)) if len(per_seed) > 1 else math.nan,
        "downstream_s": cpu,
        # not columns of the table (the verdict and a note read them): whether every seed's model
        # gives every held-out document one class, and the held-out accuracy of always predicting
        # the most frequent training label (ties: the smallest), what a model that learned nothing gets
        "downstream_one_class": bool(all(np.unique(seed_predictions).size == 1 for seed_predictions in predictions)),
        "downstream_chance": float(np.mean(truth == _most_frequent(train_labels))),
    }
    return columns, {"predictions": predictions, "truth": truth, "classes": classes}, classifier
