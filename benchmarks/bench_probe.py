"""Time korean_bpe.compare.metrics.probe_accuracy on NSMC (165,320 training, 55,106 test reviews).

Token ids come from a whitespace split (every distinct 어절 an id: ~490k features, the worst case)
and from the same split capped to the 32k most frequent 어절 (the rest one <unk> id).

    .venv/bin/python benchmarks/bench_probe.py [NSMC_DIR]
"""

from __future__ import annotations

import sys
import time
from collections import Counter

from korean_bpe.compare.metrics import probe_accuracy
from korean_bpe.corpus import load_nsmc


def main() -> None:
    nsmc = sys.argv[1] if len(sys.argv) > 1 else None  # else $KOREAN_BPE_NSMC_DIR or ../shared/corpora/nsmc
    train, y_train, _ = load_nsmc("train", directory=nsmc)
    test, y_test, _ = load_nsmc("test", directory=nsmc)
    vocab: dict[str, int] = {}
    ids_train = [[vocab.setdefault(w, len(vocab)) for w in d.split()] for d in train]
    ids_test = [[vocab.setdefault(w, len(vocab)) for w in d.split()] for d in test]
    counts = Counter(i for d in ids_train for i in d)
    top = {i: r + 1 for r, (i, _) in enumerate(counts.most_common(32000 - 1))}  # 0 is <unk>
    capped_train = [[top.get(i, 0) for i in d] for d in ids_train]
    capped_test = [[top.get(i, 0) for i in d] for d in ids_test]
    print(f"{len(train)} train, {len(test)} test docs; {len(vocab)} whitespace ids")
    for name, a, b in (("whitespace, all ids", ids_train, ids_test), ("whitespace, top 32k", capped_train, capped_test)):
        wall, cpu = time.perf_counter(), time.process_time()
        acc = probe_accuracy(a, y_train, b, y_test, seed=0)
        print(f"{name}: accuracy {acc:.4f}, {time.perf_counter() - wall:.1f} s wall, {time.process_time() - cpu:.1f} s CPU")


if __name__ == "__main__":
    main()
