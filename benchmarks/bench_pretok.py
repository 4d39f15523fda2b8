"""Pre-tokenization speed: naive per-review analyzer loops vs ``batch`` (cold and warm cache).

On the same reviews (default: the NSMC train split, 165,320 reviews), in one run:

* Okt: the naive konlpy loop ``[okt.pos(r) for r in reviews]`` (JVM started, not timed; its
  JIT warm-up is in the naive time) vs ``OktPreTokenizer().batch(reviews)`` with a fresh, empty
  cache directory (cold) and again with a new pre-tokenizer object over the filled cache (warm).
  By default the batch runs in threads that share this process's JVM, already warmed up by the
  naive loop; ``--processes`` uses worker processes instead, whose JVMs start and warm up inside
  the cold timing.  The words of the naive loop (same ``drop`` filter, white space never inside
  a word) must equal the batch output: the script checks it and exits non-zero otherwise.
  Each row also gives the process's CPU time (all threads, the JVM's too) and the load average:
  the machine may be shared, and the ratio within one run is what compares.  Then, on the first
  ``--okt-split`` reviews, where the time goes: the JVM's analysis vs converting its answer to
  Python through JPype, for the naive loop and for the batch path (thread CPU time).
* Kiwi and MeCab: the per-review loop ``[pt(r) for r in reviews]`` vs ``pt.batch(reviews)``
  twice (their batch has no on-disk cache yet; the second call shows the warm analyzer), same
  identity check.  Skipped with a note when their pre-tokenizer or library is missing.
* ``--okt-fresh`` (issue 13's measure): the naive loop, then the cold batch, each in a fresh
  interpreter (its own JVM, cold JIT, the JVM start not timed); prints their wall and CPU time
  (every thread of the process: the JVM's GC and JIT too), the cores used (CPU / wall), the
  ratio and whether the words are identical.

Usage::

    python benchmarks/bench_pretok.py                      # full train split (~10 min for Okt)
    python benchmarks/bench_pretok.py --limit 5000         # a subset while developing
    python benchmarks/bench_pretok.py --analyzers okt --workers 2 --nsmc-dir ../shared/corpora/nsmc
    python benchmarks/bench_pretok.py --limit 40000 --analyzers okt --processes
    python benchmarks/bench_pretok.py --limit 20000 --analyzers okt --okt-modes threads,processes --okt-split 0
    python benchmarks/bench_pretok.py --limit 20000 --analyzers okt --okt-split 5000
    python benchmarks/bench_pretok.py --analyzers okt --okt-fresh   # issue 13's measure: each side in a fresh interpreter
"""

from __future__ import annotations

import argparse
import os
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


def timed_cpu(fn):
    """``(fn(), wall seconds, CPU seconds of this process: every thread, the JVM's included)``."""
    c0, t0 = time.process_time(), time.perf_counter()
    out = fn()
    return out, time.perf_counter() - t0, time.process_time() - c0


def load() -> str:
    return "load %.2f %.2f %.2f" % os.getloadavg()


def okt_split(okt, reviews: list[str]) -> None:
    """Where Okt's time goes, in CPU seconds of the calling thread (a JVM call runs on it):
    the JVM's analysis (konlpy's ``tokenize``, which also builds its Java list of strings) vs
    bringing the result into Python through JPype, for the naive loop (``.toArray()`` and one
    Python string per token, as ``okt.pos`` does) and for the batch path (the distinct pieces
    joined by spaces, 1,000 per call, one ``String.join`` string per call, as ``okt_analyzer``)."""
    import jpype

    from korean_bpe.pre_tokenizers._sejong import prepare_text
    from korean_bpe.pre_tokenizers.okt import space_pieces

    false = jpype.java.lang.Boolean(False)
    jstring = jpype.JClass("java.lang.String")
    jki = okt.jki
    ana = conv = 0.0
    for r in reviews:
        t0 = time.thread_time()
        answer = jki.tokenize(r, false, false)
        t1 = time.thread_time()
        [tuple(t.rsplit("/", 1)) for t in answer.toArray()]
        ana, conv = ana + t1 - t0, conv + time.thread_time() - t1
    print(f"    naive loop: JVM analysis {ana:.2f} s, JPype conversion {conv:.2f} s ({conv / (ana + conv):.1%})")
    units = [space_pieces(prepare_text(r)[0]) or [] for r in reviews]
    keys = list(dict.fromkeys(u for us in units for u in us))
    ana = conv = 0.0
    for i in range(0, len(keys), 1000):
        t0 = time.thread_time()
        answer = jki.tokenize(" ".join(keys[i : i + 1000]), false, false)
        t1 = time.thread_time()
        str(jstring.join("\x00", answer)).split("\x00")
        ana, conv = ana + t1 - t0, conv + time.thread_time() - t1
    print(f"    batch path ({len(keys):,} distinct pieces): JVM analysis {ana:.2f} s, "
          f"JPype conversion {conv:.3f} s ({conv / (ana + conv):.1%})")


def tree_cpu() -> float:
    """CPU seconds of this process (every thread, the JVM's) and of its finished children."""
    t = os.times()
    return t.user + t.system + t.children_user + t.children_system


def bench_okt(reviews: list[str], chars: int, workers: int | None, modes: list[str], split_sample: int) -> bool:
    from korean_bpe.pre_tokenizers.executor import _shutdown_shared
    from korean_bpe.pre_tokenizers.okt import DEFAULT_DROP, MAX_RUN, OktPreTokenizer, _start_okt, cut_long_runs

    print(f"\nOkt (drop={DEFAULT_DROP}, workers={workers or 'one per core'}, batch in {' and '.join(modes)}); {load()}")
    okt = _start_okt()  # konlpy's Okt; the JVM start is not part of any timing
    okt.pos("워밍업 문장")
    drop = set(DEFAULT_DROP)
    naive_pos, t_naive, c_naive = timed_cpu(lambda: [okt.pos(r) for r in reviews])
    naive = [[w for s, t in p if t not in drop for w in s.split()] for p in naive_pos]  # words never hold white space
    row("naive konlpy loop okt.pos(review)", t_naive, len(reviews), chars, None)
    print(f"    CPU {c_naive:.1f} s ({c_naive / t_naive:.2f} cores); {load()}")
    outputs: list[tuple[str, list[list[str]]]] = []
    for mode in modes:
        threads = mode == "threads"
        with tempfile.TemporaryDirectory(prefix="korean_bpe_bench_") as tmp:
            cold_pt = OktPreTokenizer(cache_dir=tmp, workers=workers, threads=threads)
            c0, t0 = tree_cpu(), time.perf_counter()
            cold = cold_pt.batch(reviews, show_progress=False)
            t_cold = time.perf_counter() - t0
            _shutdown_shared()  # worker processes end here, so that their CPU time is counted
            c_cold = tree_cpu() - c0
            row(f"batch in {mode}, cold cache (empty dir)", t_cold, len(reviews), chars, t_naive)
            print(f"    CPU {c_cold:.1f} s with worker processes ({c_cold / t_cold:.2f} cores; "
                  f"{c_naive / c_cold:.1f}x less than the naive loop); {load()}")
            print(f"    {cold_pt._batcher.last_stats}")
            warm_pt = OktPreTokenizer(cache_dir=tmp, workers=workers, threads=threads)
            warm, t_warm, c_warm = timed_cpu(lambda: warm_pt.batch(reviews, show_progress=False))
            row(f"batch in {mode}, warm cache (second run)", t_warm, len(reviews), chars, t_naive)
            print(f"    CPU {c_warm:.1f} s; {load()}")
            print(f"    {warm_pt._batcher.last_stats}")
        outputs += [(f"{mode} cold", cold), (f"{mode} warm", warm)]
    # a review with a run of more than MAX_RUN Hangul syllables is cut before Okt sees it (by
    # design, see cut_long_runs): the naive loop is not, so those reviews may differ
    cut = {i for i, r in enumerate(reviews) if len(cut_long_runs(r)) > 1}
    ok = True
    for label, out in outputs:
        bad = sum(x != y for i, (x, y) in enumerate(zip(naive, out)) if i not in cut) + abs(len(naive) - len(out))
        same = out == outputs[0][1]
        print(f"  {label}: identical to the naive loop {bad == 0} ({bad} differ), to {outputs[0][0]} {same}")
        ok &= bad == 0 and same
    print(f"  (not counting the {len(cut)} reviews with a Hangul run longer than MAX_RUN = {MAX_RUN}: "
          f"{sum(naive[i] != outputs[0][1][i] for i in cut)} of them differ from the naive loop)")
    if split_sample:
        print(f"  where the time goes (thread CPU, first {min(split_sample, len(reviews)):,} reviews; {load()}):")
        okt_split(okt, reviews[:split_sample])
    return ok


def okt_child(kind: str, args: argparse.Namespace, out_path: str) -> None:
    """One side of ``--okt-fresh``, in its own interpreter: the naive loop or the cold batch,
    timed after the JVM has started (konlpy's ``Okt()`` for the naive loop, the pre-tokenizer's
    own start for the batch: neither start is timed, neither JIT is warm); the words go to
    ``out_path`` (pickle) and the timings to stdout (one JSON line)."""
    import json
    import pickle

    from korean_bpe.corpus import load_nsmc
    from korean_bpe.pre_tokenizers.executor import _shutdown_shared
    from korean_bpe.pre_tokenizers.okt import DEFAULT_DROP, OktPreTokenizer, _start_okt

    reviews = load_nsmc(args.split, limit=args.limit, directory=args.nsmc_dir).texts
    load0 = load()
    if kind == "naive":
        from konlpy.tag import Okt

        _start_okt()  # the JVM, started the way the batch starts it
        okt = Okt()
        drop = set(DEFAULT_DROP)
        c0, t0 = tree_cpu(), time.perf_counter()
        pos = [okt.pos(r) for r in reviews]
        wall, cpu = time.perf_counter() - t0, tree_cpu() - c0
        words = [[w for s, t in p if t not in drop for w in s.split()] for p in pos]
        stats = None
    else:
        with tempfile.TemporaryDirectory(prefix="korean_bpe_bench_") as tmp:
            pt = OktPreTokenizer(cache_dir=tmp, workers=args.workers, threads=not args.processes)
            _start_okt()
            c0, t0 = tree_cpu(), time.perf_counter()
            words = pt.batch(reviews, show_progress=False)
            wall = time.perf_counter() - t0
            _shutdown_shared()  # worker processes (if any) end here, so that their CPU time is counted
            cpu = tree_cpu() - c0
            stats = pt._batcher.last_stats
    with open(out_path, "wb") as f:
        pickle.dump(words, f)
    print(json.dumps({"wall": wall, "cpu": cpu, "stats": stats, "load_before": load0, "load_after": load()}))


def bench_okt_fresh(args: argparse.Namespace, reviews: list[str], chars: int) -> bool:
    """The naive loop and the cold batch, each in a fresh interpreter (fresh JVM, cold JIT),
    one after the other; then the identity check on their words."""
    import json
    import pickle
    import subprocess

    from korean_bpe.pre_tokenizers.okt import DEFAULT_DROP, MAX_RUN, cut_long_runs

    mode = "processes" if args.processes else "threads"
    print(f"\nOkt, each side in a fresh interpreter (drop={DEFAULT_DROP}, workers={args.workers or 'one per core'}, "
          f"batch in {mode}); {load()}")
    base = [sys.executable, os.path.abspath(__file__), "--split", args.split, "--analyzers", "okt"]
    for opt, value in (("--limit", args.limit), ("--nsmc-dir", args.nsmc_dir), ("--workers", args.workers)):
        if value is not None:
            base += [opt, str(value)]
    if args.processes:
        base.append("--processes")
    out: dict[str, tuple[dict, list[list[str]]]] = {}
    with tempfile.TemporaryDirectory(prefix="korean_bpe_bench_") as tmp:
        for kind in ("naive", "cold"):
            path = os.path.join(tmp, f"{kind}.pickle")
            proc = subprocess.run([*base, "--okt-child", kind, path], capture_output=True, text=True)
            if proc.returncode != 0:
                print(proc.stdout + proc.stderr)
                return False
            timing = json.loads(proc.stdout.strip().splitlines()[-1])
            with open(path, "rb") as f:
                out[kind] = (timing, pickle.load(f))
    (tn, naive), (tc, cold) = out["naive"], out["cold"]
    row("naive konlpy loop okt.pos(review)", tn["wall"], len(reviews), chars, None)
    print(f"    CPU {tn['cpu']:.1f} s ({tn['cpu'] / tn['wall']:.2f} cores); {tn['load_before']} -> {tn['load_after']}")
    row(f"batch in {mode}, cold cache (empty dir)", tc["wall"], len(reviews), chars, tn["wall"])
    print(f"    CPU {tc['cpu']:.1f} s ({tc['cpu'] / tc['wall']:.2f} cores; {tn['cpu'] / tc['cpu']:.1f}x less CPU than "
          f"the naive loop); {tc['load_before']} -> {tc['load_after']}")
    print(f"    {tc['stats']}")
    cut = {i for i, r in enumerate(reviews) if len(cut_long_runs(r)) > 1}
    bad = sum(x != y for i, (x, y) in enumerate(zip(naive, cold)) if i not in cut) + abs(len(naive) - len(cold))
    print(f"  ratio (wall): {tn['wall'] / tc['wall']:.2f}x; cold batch identical to the naive loop: {bad == 0} "
          f"({bad} differ; not counting the {len(cut)} reviews with a Hangul run longer than MAX_RUN = {MAX_RUN}, "
          f"{sum(naive[i] != cold[i] for i in cut)} of which differ)")
    return bad == 0


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
    ap.add_argument("--okt-modes", default=None, metavar="MODES",
                    help="comma-separated Okt batch paths to time in this run, each with its own fresh cache: "
                         "threads,processes (default: threads, or processes with --processes)")
    ap.add_argument("--okt-split", type=int, default=20000, metavar="N",
                    help="after the Okt timings, split the JVM analysis from the JPype conversion on the first N reviews (0: skip)")
    ap.add_argument("--okt-fresh", action="store_true",
                    help="Okt: time the naive loop and the cold batch each in a fresh interpreter (fresh JVM, cold JIT; "
                         "the fairest comparison), instead of both in this process")
    ap.add_argument("--okt-child", nargs=2, metavar=("KIND", "OUT"), help=argparse.SUPPRESS)
    args = ap.parse_args(argv)
    if args.okt_child:
        okt_child(args.okt_child[0], args, args.okt_child[1])
        return 0

    from korean_bpe.corpus import load_nsmc

    reviews, _, path = load_nsmc(args.split, limit=args.limit, directory=args.nsmc_dir)
    chars = sum(map(len, reviews))
    from korean_bpe.pre_tokenizers.executor import default_workers

    print(f"{len(reviews):,} reviews ({chars:,} characters) from {path}")
    print(f"python {platform.python_version()}, {default_workers()} cores available, {platform.platform()}")
    ok = True
    for name in [a.strip() for a in args.analyzers.split(",") if a.strip()]:
        if name == "okt":
            modes = [m.strip() for m in (args.okt_modes or ('processes' if args.processes else 'threads')).split(',') if m.strip()]
            if not modes or set(modes) - {'threads', 'processes'}:
                ap.error(f'--okt-modes takes threads and/or processes, got {args.okt_modes!r}')
            if args.okt_fresh:
                ok &= bench_okt_fresh(args, reviews, chars)
            else:
                ok &= bench_okt(reviews, chars, args.workers, modes, args.okt_split)
        else:
            ok &= bench_other(name, reviews, chars)
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
