#!/usr/bin/env python
"""Flat output benchmark (issue 41): ``encode_batch_flat`` vs ``encode_batch`` and SentencePiece,
and ``korean-bpe encode --npy`` on a large file.

1. For each pre-tokenizer x unit (``whitespace`` and ``raw``, ``syllable`` and ``jamo`` by default),
   train our tokenizer on the NSMC train split (``--vocab`` 32k) and a SentencePiece BPE of the same
   size on the same texts (jamo: on the decomposed texts, which it also encodes, decomposed outside
   the timer), then time on the NSMC test split (55,106 reviews, in memory), the least wall time
   and the least CPU time (every thread of the process) of ``--repeat`` runs, each run cold (``clear_cache()`` before it: every distinct word merged) and warm (the word
   caches of the previous run):

   * ours ``encode_batch(num_threads=1)`` (a list a text, an ``int`` a token);
   * ours ``encode_batch_flat(num_threads=1)`` and ``(num_threads=2)``, checked equal to it;
   * SentencePiece ``encode(texts, num_threads=2)``.

2. ``--npy-mb N`` (default 300; 0: skip): the train split's reviews written again and again into a
   file of about N MB, then ``korean-bpe encode -m MODEL --npy PREFIX FILE --threads 2`` run as a
   child process (the first pipeline's model), its wall time (MB/s of input, end to end: start-up,
   reading, encoding, writing), its CPU time and its peak RSS (``VmHWM``) printed; the ids of the
   file's first copy of the split are checked equal to ``encode_batch``'s, and every later copy
   equal to the first.

    python benchmarks/bench_encode_flat.py                  # the four pipelines, 300 MB for --npy
    python benchmarks/bench_encode_flat.py --npy-mb 1000    # the issue's 1 GB
    python benchmarks/bench_encode_flat.py --pre-tokenizer whitespace --unit syllable --npy-mb 0 --repeat 3
"""

from __future__ import annotations

import argparse
import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from bench_encode import machine_info  # noqa: E402

ROOT = Path(__file__).resolve().parent.parent

#: runs ``korean-bpe ARGS`` and prints its peak resident memory at exit (``VmHWM``: this process's
#: own, not the parent's pages that ``wait4``'s ``ru_maxrss`` counts for a child forked from a big
#: process)
PEAK_RSS_LAUNCHER = """
import atexit, resource, runpy, sys
def peak():
    with open("/proc/self/status") as f:
        kb = next(line.split()[1] for line in f if line.startswith("VmHWM:"))
    sys.stderr.write(f"VmHWM: {kb} kB\\n")
    usage = resource.getrusage(resource.RUSAGE_SELF)
    sys.stderr.write(f"CPU: {usage.ru_utime + usage.ru_stime:.2f} s\\n")
atexit.register(peak)
sys.argv = ["korean-bpe", *sys.argv[1:]]
runpy.run_module("korean_bpe.cli", run_name="__main__", alter_sys=True)
"""


def best_wall_and_cpu(fn, repeat: int, before=None) -> tuple[float, float]:
    """The least wall time and the least CPU time (``time.process_time``, every thread of this
    process) of ``repeat`` runs of ``fn`` (``before()`` untimed before each): on a machine shared
    with other jobs the CPU time moves less than the wall time."""
    wall, cpu = float("inf"), float("inf")
    for _ in range(repeat):
        if before is not None:
            before()
        c0, t0 = time.process_time(), time.perf_counter()
        fn()
        wall, cpu = min(wall, time.perf_counter() - t0), min(cpu, time.process_time() - c0)
    return wall, cpu


def bench_pipelines(args: argparse.Namespace, train: list[str], test: list[str], tmpdir: Path) -> Path | None:
    import numpy as np
    import sentencepiece as spm

    from korean_bpe import Tokenizer
    from korean_bpe.jamo import decompose

    chars = sum(map(len, test))
    mb = sum(len(t.encode("utf-8")) + 1 for t in test) / 1e6
    print(f"test split: {len(test):,} reviews, {chars:,} characters, {mb:.1f} MB of UTF-8")
    first_model = None
    summary = []
    sp_models: dict[str, object] = {}
    for pre in args.pre_tokenizer:
        for unit in args.unit:
            t0 = time.perf_counter()
            tok = Tokenizer.train(train, vocab_size=args.vocab, pre_tokenizer=pre, unit=unit, show_progress=False)
            print(f"\n== {pre}/{unit}: ours trained in {time.perf_counter() - t0:.1f} s, vocab {tok.vocab_size:,}")
            if first_model is None:
                first_model = tmpdir / "model"
                tok.save(first_model)
            if unit not in sp_models:
                spm_train = [decompose(t) for t in train] if unit == "jamo" else train
                t0 = time.perf_counter()
                spm.SentencePieceTrainer.train(
                    sentence_iterator=iter(spm_train), model_prefix=str(tmpdir / f"spm-{unit}"), model_type="bpe",
                    vocab_size=args.vocab, character_coverage=1.0, normalization_rule_name="identity",
                    num_threads=2, minloglevel=2, input_sentence_size=0, max_sentence_length=1 << 16,
                    bos_id=-1, eos_id=-1,
                )
                sp_models[unit] = spm.SentencePieceProcessor(model_file=str(tmpdir / f"spm-{unit}.model"))
                print(f"sentencepiece {unit}: trained in {time.perf_counter() - t0:.1f} s")
            sp = sp_models[unit]
            sp_input = [decompose(t) for t in test] if unit == "jamo" else test

            lists = tok.encode_batch(test, num_threads=1)
            want = np.fromiter((i for ids in lists for i in ids), dtype=np.int64)
            flat = tok.encode_batch_flat(test, num_threads=2)
            assert np.array_equal(flat.ids, want), "encode_batch_flat differs from encode_batch"
            assert flat.starts[-1] == len(want) and flat.ids.dtype == np.uint16
            del lists, flat
            print(f"ids: {len(want):,} tokens, flat == encode_batch (checked)")

            times, cpus = {}, {}
            for state in ("cold", "warm"):
                before = tok.clear_cache if state == "cold" else None
                for name, fn in (
                    ("encode_batch 1t", lambda: tok.encode_batch(test, num_threads=1)),
                    ("flat 1t", lambda: tok.encode_batch_flat(test, num_threads=1)),
                    ("flat 2t", lambda: tok.encode_batch_flat(test, num_threads=2)),
                ):
                    if state == "warm":
                        fn()
                    times[name, state], cpus[name, state] = best_wall_and_cpu(fn, args.repeat, before)
            times["spm 2t", "-"], cpus["spm 2t", "-"] = best_wall_and_cpu(
                lambda: sp.encode(sp_input, num_threads=2), args.repeat)
            for (name, state), t in times.items():
                print(f"  {name:16} {state:5} wall {t * 1000:7.1f} ms  CPU {cpus[name, state] * 1000:7.1f} ms  "
                      f"{len(test) / t / 1000:7.1f} kreviews/s  {mb / t:6.1f} MB/s")
            for state in ("cold", "warm"):
                for what, m in (("wall", times), ("CPU", cpus)):
                    eb, f1, f2, sp_t = m["encode_batch 1t", state], m["flat 1t", state], m["flat 2t", state], \
                        m["spm 2t", "-"]
                    summary.append(f"{pre}/{unit} {state} {what:4}: flat 1t = {eb / f1:.2f}x encode_batch 1t; "
                                   f"flat 2t = {sp_t / f2:.2f}x SentencePiece 2t; flat 2t = {f1 / f2:.2f}x flat 1t")
    print("\nsummary (ratios from one run):")
    for line in summary:
        print("  " + line)
    return first_model


def bench_npy(args: argparse.Namespace, model: Path, train: list[str], tmpdir: Path) -> None:
    import numpy as np

    from korean_bpe import Tokenizer

    block = ("\n".join(train) + "\n").encode("utf-8")
    copies = max(1, round(args.npy_mb * 1e6 / len(block)))
    big = tmpdir / "big.txt"
    with open(big, "wb") as f:
        for _ in range(copies):
            f.write(block)
    size = big.stat().st_size
    print(f"\n== encode --npy: {size / 1e6:.0f} MB ({copies} copies of the train split, {copies * len(train):,} lines)")
    prefix = tmpdir / "big"
    cmd = [sys.executable, "-c", PEAK_RSS_LAUNCHER, "encode", "-m", str(model), "--npy", str(prefix), str(big),
           "--threads", "2"]
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    t0 = time.perf_counter()
    proc = subprocess.run(cmd, env=env, stderr=subprocess.PIPE, text=True)
    wall = time.perf_counter() - t0
    if proc.returncode != 0:
        raise SystemExit(f"encode --npy failed: {proc.stderr}")
    lines = proc.stderr.strip().splitlines()
    peak_kb, cpu = int(lines[-2].split()[1]), float(lines[-1].split()[1])
    print(f"  {wall:.1f} s, {size / 1e6 / wall:.1f} MB/s end to end (start-up included), peak RSS "
          f"{peak_kb / 1024:.0f} MiB; CPU {cpu:.1f} s (user + system, every thread): {size / 1e6 / cpu:.1f} MB "
          "per CPU second")
    print("  " + lines[-3])
    ids = np.load(f"{prefix}.ids.npy", mmap_mode="r")
    starts = np.load(f"{prefix}.starts.npy", mmap_mode="r")
    assert len(starts) == copies * len(train) + 1 and starts[-1] == len(ids)
    tok = Tokenizer.load(model)
    want = tok.encode_batch_flat(train)
    n = len(want.ids)
    assert np.array_equal(ids[:n], want.ids) and np.array_equal(starts[:len(train) + 1], want.starts)
    for k in range(1, copies):
        assert np.array_equal(ids[k * n:(k + 1) * n], want.ids)
    print(f"  {len(ids):,} ids; the first copy equals encode_batch's, every copy the first (checked)")


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--nsmc-dir", help="directory with ratings_train.txt / ratings_test.txt")
    ap.add_argument("--vocab", type=int, default=32000)
    ap.add_argument("--pre-tokenizer", nargs="+", choices=("whitespace", "raw"), default=["whitespace", "raw"])
    ap.add_argument("--unit", nargs="+", choices=("syllable", "jamo"), default=["syllable", "jamo"])
    ap.add_argument("--repeat", type=int, default=5, help="runs of each, the best reported (default 5)")
    ap.add_argument("--npy-mb", type=float, default=300, help="size of the encode --npy file in MB (0: skip)")
    args = ap.parse_args(argv)
    from korean_bpe.corpus import load_nsmc

    print(machine_info())
    test = load_nsmc("test", directory=args.nsmc_dir).texts
    train = load_nsmc("train", directory=args.nsmc_dir).texts
    with tempfile.TemporaryDirectory() as d:
        model = bench_pipelines(args, train, test, Path(d))
        if args.npy_mb > 0 and model is not None:
            bench_npy(args, model, train, Path(d))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
