"""Time each stage of BPE training from texts, for the merge engine's own work.

Stages: count whitespace words (``count_words``), split them into symbols (``split_words``),
alphabet (``symbol_counts`` + code-point sort), ids (``words_to_ids``), merges (the engine; the
callback builds token strings and reuses ids as HF does).  Compiled helpers when built, else the
pure-Python ones (``--python`` forces those).  ``train_bpe`` itself is timed in
``benchmarks/bench_train.py``.

    .venv/bin/python benchmarks/profile_engine.py                 # full NSMC train split
    .venv/bin/python benchmarks/profile_engine.py --limit 20000 --units jamo --vocab 8000
"""

from __future__ import annotations

import argparse
import gc
import sys
import time


def run(texts: list[str], unit: str, vocab: int, fast) -> dict[str, float]:
    from korean_bpe.counting import count_words, split_words
    from korean_bpe.pre_tokenizers.base import get_pre_tokenizer
    from korean_bpe.units import get_unit
    from korean_bpe.words import core as words_core

    times: dict[str, float] = {}
    gc.collect()
    t = time.perf_counter()
    words = count_words(texts, get_pre_tokenizer("whitespace"))
    times["count"] = time.perf_counter() - t
    t = time.perf_counter()
    core = words_core()  # the compiled split into a dict, as the engine's callers had it; else plain Python
    table = core.split_counts(words, unit, None) if core is not None else split_words(words, get_unit(unit), marker=None)
    times["split"] = time.perf_counter() - t
    t = time.perf_counter()
    tokens = ["<unk>", *sorted(fast.symbol_counts(table))]
    ids = {s: i for i, s in enumerate(tokens)}
    times["alphabet"] = time.perf_counter() - t
    t = time.perf_counter()
    seqs, counts = fast.words_to_ids(table, ids, min_length=2)
    times["ids"] = time.perf_counter() - t
    merges = 0

    def on_merge(a: int, b: int, c: int) -> int:
        nonlocal merges
        if c < 2 or len(tokens) >= vocab:
            return -1
        merges += 1
        s = tokens[a] + tokens[b]
        i = ids.get(s)
        if i is None:
            i = ids[s] = len(tokens)
            tokens.append(s)
        return i

    engine = fast.merge_engine if fast.PYTHON else fast.get_engine()
    t = time.perf_counter()
    engine(seqs, counts, next_id=len(tokens), on_merge=on_merge)
    times["engine"] = time.perf_counter() - t
    times["total"] = sum(times.values())
    times["merges"] = merges
    return times


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--limit", type=int, default=None, help="first N reviews (default: all)")
    ap.add_argument("--units", nargs="+", default=["syllable", "jamo"])
    ap.add_argument("--vocab", nargs="+", type=int, default=[8000, 32000])
    ap.add_argument("--python", action="store_true", help="pure-Python helpers and engine")
    args = ap.parse_args()
    if args.python:
        for module in ("korean_bpe._counting", "korean_bpe.trainer._merge"):
            sys.modules[module] = None  # type: ignore[assignment]
    from korean_bpe.corpus import load_nsmc
    from korean_bpe.trainer import fast

    fast.PYTHON = args.python  # type: ignore[attr-defined]
    texts = load_nsmc("train", limit=args.limit).texts
    print(f"{len(texts)} reviews; compiled: {fast.compiled_available()}")
    print(f"{'unit':9} {'vocab':>6} {'merges':>6} {'count':>6} {'split':>6} {'alpha':>6} {'ids':>6} {'engine':>7} {'total':>6}")
    for unit in args.units:
        for vocab in args.vocab:
            r = run(texts, unit, vocab, fast)
            print(f"{unit:9} {vocab:>6} {r['merges']:>6} {r['count']:6.2f} {r['split']:6.2f} {r['alphabet']:6.2f} "
                  f"{r['ids']:6.2f} {r['engine']:7.2f} {r['total']:6.2f}")


if __name__ == "__main__":
    main()
