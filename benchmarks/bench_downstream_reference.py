"""A plain Kim-style CNN beside the comparison's downstream stage, on the same NSMC token ids.

The reference is written out here in plain PyTorch, apart from the library, so that the library's
defaults (:class:`korean_bpe.compare.downstream.Downstream`) can be checked against it: token
embeddings of 64 (drawn uniformly from [-0.05, 0.05]), convolutions of widths 3 and 5 with 64
channels each, ReLU, max over time, dropout 0.5, a linear layer; AdamW at 2e-3 (weight decay 0.01)
on every parameter, the learning rate rising linearly over the first 10% of the steps then falling
to 0 along a cosine; batches of 256 documents in a seeded random order, padded to the longest; the
first 128 tokens of a document.

The ids are those of `korean-bpe compare ratings_train.txt --eval ratings_test.txt --vocab-sizes
32000 --downstream`: ``whitespace`` is our whitespace/syllable BPE (``korean_bpe.Tokenizer.train``)
and ``words`` the comparison's word baseline (``BaselineSegmenter.train(unit="word")``: the 31,999
most frequent 어절 and ``<unk>``), both trained on the training split; the training sample is the
comparison's (``Labelled.sample``, seed 0); the test split is scored whole.  Each model runs on one
CPU thread, like the library's.

    PYTHONPATH=. nice .venv/bin/python benchmarks/bench_downstream_reference.py   # (a) 20,000 reviews, 3 epochs
    PYTHONPATH=. nice .venv/bin/python benchmarks/bench_downstream_reference.py --docs all --epochs 1 --rows whitespace

(``PYTHONPATH=.``: "ours" is the korean_bpe of this checkout; the header line prints its settings.)

Prints, for each row and model, the accuracy of each seed, their mean and the CPU seconds (training
and predicting, all seeds: the cost of one row of the comparison).
"""

from __future__ import annotations

import argparse
import math
import time

import torch

from korean_bpe import Tokenizer
from korean_bpe.compare.downstream import Downstream, evaluate
from korean_bpe.compare.rows import Labelled
from korean_bpe.compare.segmenters import BaselineSegmenter
from korean_bpe.corpus import load_nsmc

MAX_LENGTH = 128


class KimCNN(torch.nn.Module):
    """Embeddings, one convolution per width, ReLU, max over time, dropout, linear."""

    def __init__(self, n_ids: int, *, dim: int = 64, channels: int = 64, widths: tuple[int, ...] = (3, 5),
                 n_classes: int = 2) -> None:
        super().__init__()
        self.embed = torch.nn.Embedding(n_ids, dim, padding_idx=0)
        with torch.no_grad():  # small random vectors (Kim's were uniform too): PyTorch's N(0, 1) gives 62% here
            self.embed.weight.uniform_(-0.05, 0.05)
            self.embed.weight[0].zero_()
        self.convs = torch.nn.ModuleList(torch.nn.Conv1d(dim, channels, w) for w in widths)
        self.drop = torch.nn.Dropout(0.5)
        self.out = torch.nn.Linear(channels * len(widths), n_classes)

    def forward(self, ids: torch.Tensor) -> torch.Tensor:
        x = self.embed(ids).transpose(1, 2)
        return self.out(self.drop(torch.cat([torch.relu(conv(x)).amax(2) for conv in self.convs], 1)))


def padded(docs: list[list[int]], index: list[int]) -> torch.Tensor:
    """The documents ``index`` as a batch x longest matrix (ids + 1, 0 pads), at least 5 wide."""
    longest = max(5, max(len(docs[i]) for i in index))
    out = torch.zeros((len(index), longest), dtype=torch.long)
    for row, i in enumerate(index):
        out[row, :len(docs[i])] = torch.tensor(docs[i], dtype=torch.long) + 1
    return out


def reference(train: list[list[int]], labels: list[int], test: list[list[int]], *, n_ids: int, epochs: int,
              seed: int, batch_size: int = 256, lr: float = 2e-3, warmup: float = 0.1) -> list[int]:
    """Train the Kim CNN with seed ``seed``; its predicted labels of ``test``."""
    torch.manual_seed(seed)
    generator = torch.Generator().manual_seed(seed)
    train = [d[:MAX_LENGTH] for d in train]
    test = [d[:MAX_LENGTH] for d in test]
    target = torch.tensor(labels)
    model = KimCNN(n_ids + 1)
    optimizer = torch.optim.AdamW(model.parameters(), lr=lr, weight_decay=0.01)
    steps = epochs * math.ceil(len(train) / batch_size)
    warm = max(1, round(warmup * steps))
    def factor(s: int) -> float:  # of the peak rate, at step s
        return (s + 1) / warm if s < warm else 0.5 * (1 + math.cos(math.pi * (s - warm) / max(1, steps - warm)))

    schedule = torch.optim.lr_scheduler.LambdaLR(optimizer, factor)
    for _ in range(epochs):
        model.train()
        order = torch.randperm(len(train), generator=generator).tolist()
        for start in range(0, len(order), batch_size):
            index = order[start:start + batch_size]
            loss = torch.nn.functional.cross_entropy(model(padded(train, index)), target[index])
            optimizer.zero_grad(set_to_none=True)
            loss.backward()
            optimizer.step()
            schedule.step()
    model.eval()
    predicted = [0] * len(test)
    by_length = sorted(range(len(test)), key=lambda i: len(test[i]))  # less padding
    with torch.no_grad():
        for start in range(0, len(test), 1024):
            index = by_length[start:start + 1024]
            for i, label in zip(index, model(padded(test, index)).argmax(1).tolist()):
                predicted[i] = label
    return predicted


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--nsmc", help="the NSMC folder (default: $KOREAN_BPE_NSMC_DIR or ../shared/corpora/nsmc)")
    parser.add_argument("--docs", default="20000", help="training reviews, or 'all' (default 20000)")
    parser.add_argument("--epochs", type=int, default=3)
    parser.add_argument("--seeds", type=int, default=3)
    parser.add_argument("--vocab-size", type=int, default=32_000)
    parser.add_argument("--rows", default="whitespace,words", help="whitespace, words, or both (comma-separated)")
    parser.add_argument("--models", default="reference,ours", help="reference, ours, or both (comma-separated)")
    args = parser.parse_args()
    torch.set_num_threads(1)
    train = load_nsmc("train", directory=args.nsmc)
    test = load_nsmc("test", directory=args.nsmc)
    docs = None if args.docs == "all" else int(args.docs)
    sample = Labelled.sample(len(train.texts), train.labels, {"downstream": docs}, seed=0)
    chosen = [sample.idx[k] for k in sample.positions["downstream"]]
    texts = [train.texts[i] for i in chosen]
    labels = [train.labels[i] for i in chosen]
    ours = Downstream(seeds=args.seeds, epochs=args.epochs, train_docs=docs, device="cpu")
    print(f"{len(texts):,} training reviews, {len(test.texts):,} test reviews, {args.epochs} epochs, {args.seeds} seeds, "
          f"torch {torch.__version__}; ours: {ours.describe()}", flush=True)
    for row in args.rows.split(","):
        if row == "whitespace":
            seg = Tokenizer.train(train.texts, vocab_size=args.vocab_size, pre_tokenizer="whitespace", unit="syllable")
            n_ids = seg.vocab_size
        elif row == "words":
            seg = BaselineSegmenter.train(train.texts, unit="word", vocab_size=args.vocab_size)
            n_ids = seg.vocab_size
        else:
            raise SystemExit(f"--rows: unknown row {row!r}; use whitespace, words")
        ids_train = seg.encode_batch(texts)
        ids_test = seg.encode_batch(test.texts)
        for model in args.models.split(","):
            cpu = time.process_time()
            if model == "reference":
                per_seed = []
                for s in range(args.seeds):
                    predicted = reference(ids_train, labels, ids_test, n_ids=n_ids, epochs=args.epochs, seed=s)
                    per_seed.append(sum(p == y for p, y in zip(predicted, test.labels)) / len(test.labels))
            elif model == "ours":
                _, evidence = evaluate(ids_train, labels, ids_test, test.labels, settings=ours, seed=0)
                per_seed = (evidence["predictions"] == evidence["truth"][None, :]).mean(1).tolist()
            else:
                raise SystemExit(f"--models: unknown model {model!r}; use reference, ours")
            cpu = time.process_time() - cpu
            print(f"{row:<10} {model:<9} accuracy {100 * sum(per_seed) / len(per_seed):.2f} "
                  f"(seeds {', '.join(f'{100 * a:.2f}' for a in per_seed)}), {cpu:.0f} CPU s", flush=True)


if __name__ == "__main__":
    main()
