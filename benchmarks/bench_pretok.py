"""Pre-tokenization speed: naive per-review analyzer loops vs ``batch`` (cold and warm cache).

On the same reviews (default: the NSMC train split, 165,320 reviews), in one run:

* Okt: the naive konlpy loop ``[okt.pos(r) for r in reviews]`` (JVM started, not timed; its
  JIT warm-up is in the naive time) vs ``OktPreTokenizer().batch(reviews)`` with a fresh, empty
  cache directory (cold) and again with a new pre-tokenizer object over the filled cache (warm).
  By default the batch runs in threads that share this process's JVM, already warmed up by the
  naive loop; ``--processes`` uses worker processes instead, whose JVMs start and warm up inside
  the cold timing.  The words of the naive loop (same ``drop`` filter, white space never inside
  a word) must equal the batch output: the script checks it and exits non-zero otherwise.
* Kiwi and MeCab: the per-review loop ``[pt(r) for r in reviews]`` vs ``pt.batch(reviews)``
  twice (their batch has no on-disk cache yet; the second call shows the warm analyzer), same
  identity check.  Skipped with a note when their pre-tokenizer or library is missing.

Usage::

    python benchmarks/bench_pretok.py                      # full train split (~10 min for Okt)
    python benchmarks/bench_pretok.py --limit 5000         # a subset while developing
    python benchmarks/bench_pretok.py --analyzers okt --workers 2 --nsmc-dir ../shared/corpora/nsmc
    python benchmarks/bench_pretok.py --limit 40000 --analyzers okt --processes
"""

from __future__ import annotations

import argparse
import platform
import sys
import tempfile
import time


def timed(fn):
    t0 = time.perf_counter()
    out = fn()
    return out, time.perf_counter() - t0


def row(label: str, seconds: float, n: int, chars: int, base: float | None) -> None:
    ratio = f"{base / seconds:8.1f}x" if base else "     1.0x"
    print(f"  {label:<38} {seconds:9.2f} s {n / seconds:11,.0f} reviews/s {chars / seconds:12,.0f} chars/s {ratio}")


def mismatches(a: list[list[str]], b: list[list[str]]) -> int:
    return sum(x != y for x, y in zip(a, b)) + abs(len(a) - len(b))


def bench_okt(reviews: list[str], chars: int, workers: int | None, threads: bool) -> bool:
    from korean_bpe.pre_tokenizers.okt import DEFAULT_DROP, OktPreTokenizer, _start_okt

    print(f"\nOkt (drop={DEFAULT_DROP}, workers={workers or 'one per core'}, {'threads' if threads else 'processes'})")
    okt = _start_okt()  # konlpy's Okt; the JVM start is not part of any timing
    okt.pos("워밍업 문장")
    drop = set(DEFAULT_DROP)
    naive_pos, t_naive = timed(lambda: [okt.pos(r) for r in reviews])
    naive = [[w for s, t in p if t not in drop for w in s.split()] for p in naive_pos]  # words never hold white space
    row("naive konlpy loop okt.pos(review)", t_naive, len(reviews), chars, None)
    with tempfile.TemporaryDirectory(prefix="korean_bpe_bench_") as tmp:
        cold_pt = OktPreTokenizer(cache_dir=tmp, workers=workers, threads=threads)
        cold, t_cold = timed(lambda: cold_pt.batch(reviews, show_progress=False))
        row("batch, cold cache (empty dir)", t_cold, len(reviews), chars, t_naive)
        print(f"    {cold_pt._batcher.last_stats}")
        warm_pt = OktPreTokenizer(cache_dir=tmp, workers=workers, threads=threads)
        warm, t_warm = timed(lambda: warm_pt.batch(reviews, show_progress=False))
        row("batch, warm cache (second run)", t_warm, len(reviews), chars, t_naive)
        print(f"    {warm_pt._batcher.last_stats}")
    bad_cold, bad_warm = mismatches(naive, cold), mismatches(naive, warm)
    print(f"  identical to the naive loop: cold {bad_cold == 0} ({bad_cold} differ), warm {bad_warm == 0} ({bad_warm} differ)")
    return bad_cold == 0 and bad_warm == 0


def bench_other(name: str, reviews: list[str], chars: int) -> bool:
    from korean_bpe.pre_tokenizers import PRE_TOKENIZERS, get_pre_tokenizer

    print(f"\n{name}")
    if name not in PRE_TOKENIZERS:
        print(f"  skipped: no '{name}' pre-tokenizer is registered in this checkout")
        return True
    try:
        pt = get_pre_tokenizer(name)
        pt("워밍업 문장")  # loads the model/dictionary outside the timings
    except Exception as exc:  # missing library or dictionary
        print(f"  skipped: {type(exc).__name__}: {exc}")
        return True
    naive, t_naive = timed(lambda: [pt(r) for r in reviews])
    row(f"naive loop {name}(review)", t_naive, len(reviews), chars, None)
    first, t_first = timed(lambda: pt.batch(reviews, show_progress=False))
    row("batch (first call)", t_first, len(reviews), chars, t_naive)
    second, t_second = timed(lambda: pt.batch(reviews, show_progress=False))
    row("batch (second call)", t_second, len(reviews), chars, t_naive)
    b1, b2 = mismatches(naive, first), mismatches(naive, second)
    print(f"  identical to the naive loop: first {b1 == 0} ({b1} differ), second {b2 == 0} ({b2} differ)")
    return b1 == 0 and b2 == 0


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--limit", type=int, default=None, help="first N reviews only (default: the whole split)")
    ap.add_argument("--nsmc-dir", default=None, help="directory with ratings_train.txt (default: $KOREAN_BPE_NSMC_DIR or ../shared/corpora/nsmc)")
    ap.add_argument("--split", choices=["train", "test"], default="train")
    ap.add_argument("--analyzers", default="okt,kiwi,mecab", help="comma-separated subset of okt,kiwi,mecab")
    ap.add_argument("--workers", type=int, default=None, help="Okt workers (default: one per core)")
    ap.add_argument("--processes", action="store_true",
                    help="Okt batch in worker processes, one JVM each (default: threads sharing this process's JVM)")
    args = ap.parse_args(argv)

    from korean_bpe.corpus import load_nsmc

    reviews, _, path = load_nsmc(args.split, limit=args.limit, directory=args.nsmc_dir)
    chars = sum(map(len, reviews))
    from korean_bpe.pre_tokenizers.executor import default_workers

    print(f"{len(reviews):,} reviews ({chars:,} characters) from {path}")
    print(f"python {platform.python_version()}, {default_workers()} cores available, {platform.platform()}")
    ok = True
    for name in [a.strip() for a in args.analyzers.split(",") if a.strip()]:
        if name == "okt":
            ok &= bench_okt(reviews, chars, args.workers, not args.processes)
        else:
            ok &= bench_other(name, reviews, chars)
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
