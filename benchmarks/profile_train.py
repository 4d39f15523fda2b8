#!/usr/bin/env python
"""Where ``Tokenizer.train``'s time goes, stage by stage (issue #33): counting, the symbol split,
the alphabet (``prepare``), the engine (``train_ids``: its words, the initial pair index, the merge
loop), the rest of the training call, and building the ``Tokenizer`` afterwards.

Two measures a stage: wall seconds, and *ideal* seconds, which do not depend on the machine's
load: this thread's CPU seconds, with each parallel step's own share replaced by its busiest
thread's (the wall time on idle cores; ``KOREAN_BPE_PROFILE=1`` makes the compiled core record
them).  The best run of ``--repeat`` (least ideal total).  Texts: the NSMC train split as
``bench_train.py`` loads it; whitespace pre-tokenization, vocab 32k, ``min_frequency=2``.

    .venv/bin/python benchmarks/profile_train.py --units syllable jamo --threads 1 2
"""

from __future__ import annotations

import argparse
import contextlib
import functools
import io
import os
import re
import sys
import time

os.environ["KOREAN_BPE_PROFILE"] = "1"  # before the compiled core is imported
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

STAGES = ["count", "split", "prepare", "train_ids", "merge loop", "other", "tokenizer", "total"]


def profile(texts: list[str], unit: str, threads: int, repeat: int) -> tuple[dict[str, float], dict[str, float]]:
    """``(wall, ideal)`` seconds by stage, the best of ``repeat`` runs."""
    import korean_bpe.counting as counting
    import korean_bpe.tokenizer as tokenizer
    import korean_bpe.trainer.api as api
    from korean_bpe import Tokenizer
    from korean_bpe import _tasks

    steps = _tasks.STEPS
    wall: dict[str, float] = {}
    ideal: dict[str, float] = {}

    def timed(mod: object, name: str, key: str) -> None:
        f = getattr(mod, name)

        @functools.wraps(f)
        def g(*a: object, **k: object) -> object:
            n0, t, c = len(steps), time.perf_counter(), time.thread_time()
            out = f(*a, **k)
            cpu = time.thread_time() - c
            wall[key] = wall.get(key, 0.0) + time.perf_counter() - t
            ideal[key] = ideal.get(key, 0.0) + cpu - sum(m for m, _ in steps[n0:]) + sum(b for _, b in steps[n0:])
            return out

        setattr(mod, name, g)

    timed(counting, "count_words", "count")
    timed(counting, "split_words", "split")
    timed(api, "_prepare_ids", "prepare")
    timed(api, "_learn_merges_flat", "train_ids")
    timed(tokenizer, "train_texts", "train")
    best: tuple[dict[str, float], dict[str, float]] | None = None
    for _ in range(repeat):
        wall.clear()
        ideal.clear()
        steps.clear()
        printed = io.StringIO()
        with contextlib.redirect_stdout(printed):
            t, c = time.perf_counter(), time.thread_time()
            Tokenizer.train(texts, vocab_size=32000, pre_tokenizer="whitespace", unit=unit, min_frequency=2,
                            show_progress=False, num_threads=threads)
            cpu = time.thread_time() - c
            wall["total"] = time.perf_counter() - t
        ideal["total"] = cpu - sum(m for m, _ in steps) + sum(b for _, b in steps)
        loop = re.search(r"this thread's CPU [\d.]+ [\d.]+ ([\d.]+)", printed.getvalue())
        ideal["merge loop"] = float(loop.group(1)) if loop else float("nan")  # one thread: its CPU
        for d in (wall, ideal):
            d["tokenizer"] = d["total"] - d["train"]
            d["other"] = d.pop("train") - sum(d.get(k, 0.0) for k in ("count", "split", "prepare", "train_ids"))
        if best is None or ideal["total"] < best[1]["total"]:
            best = (dict(wall), dict(ideal))
    assert best is not None
    return best


def main() -> None:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--units", nargs="+", default=["syllable", "jamo"], choices=["syllable", "jamo"])
    p.add_argument("--threads", nargs="+", type=int, default=[1, 2])
    p.add_argument("--repeat", type=int, default=3)
    p.add_argument("--limit", type=int, default=None, help="the first N reviews (default: all 165,320)")
    args = p.parse_args()
    from bench_train import load_texts

    texts = load_texts(None, args.limit)
    print(f"{len(texts):,} reviews; best of {args.repeat}; load average {os.getloadavg()[0]:.1f}; "
          "ideal s (wall s): " + ", ".join(STAGES))
    for unit in args.units:
        for threads in args.threads:
            wall, ideal = profile(texts, unit, threads, args.repeat)
            cells = " | ".join(f"{ideal[k]:.3f}" + (f" ({wall[k]:.3f})" if k in wall else "") for k in STAGES)
            print(f"| {unit} | {threads} | {cells} |", flush=True)


if __name__ == "__main__":
    main()
