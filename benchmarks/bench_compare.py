"""The default comparison grid on NSMC, timed cold, warm (analysis cache) and warm (both caches).

    python benchmarks/bench_compare.py                       # the three runs, 4k..32k, 2 workers
    python benchmarks/bench_compare.py --jobs 1              # everything in one process
    python benchmarks/bench_compare.py --sizes 8000 --limit 20000 --test-limit 5000
    python benchmarks/bench_compare.py --once --cache-dir DIR --profile out.prof
    python benchmarks/bench_compare.py --once --by-family --cache-dir DIR   # rows as each family ends

Each run is a fresh process (``--once``): the analyzers start and load as a user's would.  The
driver runs three, on one new temporary ``KOREAN_BPE_CACHE_DIR`` (``--cache-dir``: that one):

1. **cold**: the directory is empty; every analysis and every model is computed (and cached);
2. **warm, analysis cache only** (``--no-model-cache``: ``compare(model_cache=False)``): the
   morpheme analyses are read back, every model is trained again (the issue's "warm");
3. **warm, both caches**: the analyses and the trained models (``compare``'s model cache) are
   read back; only the metrics are computed.

Trains on ``ratings_train.txt``, measures on ``ratings_test.txt``, with the sentiment labels for
the probe.  Prints the notes, the 100-column table, each task's wall and CPU seconds
(``compare(...).timings``: a pre-tokenizer's rows with the baselines that read it, the
jamo/syllable baselines, each peer), the seconds of each run, the load average, and writes the
full frame of the last run as CSV (``--csv``) and as a markdown table (``--markdown``).  The
driver ends with a summary: each run's wall seconds and CPU seconds (user + system of the run and
its worker processes) and the load average.
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path


def markdown(df: object) -> str:
    """The frame as a markdown table (4 significant decimals), without the tabulate package."""
    def cell(v: object) -> str:
        if isinstance(v, float):
            return "" if v != v else f"{v:.4g}" if abs(v) < 1000 else f"{v:,.0f}"
        return str(v)

    rows = [list(df.columns)] + [[cell(v) for v in row] for row in df.itertuples(index=False)]  # type: ignore[attr-defined]
    lines = ["| " + " | ".join(r) + " |" for r in rows]
    lines.insert(1, "|" + "|".join("---" for _ in rows[0]) + "|")
    return "\n".join(lines) + "\n"


#: the families of ``--by-family``, in the order of the default grid
FAMILIES = ("whitespace", "raw", "okt-analysis", "okt", "kiwi", "mecab", "baseline", "peer")


def run_once(args: argparse.Namespace) -> None:
    from korean_bpe.compare import Statistics, compare, format_table
    from korean_bpe.compare.table import format_intervals
    from korean_bpe.corpus import load_nsmc

    train, train_labels, _ = load_nsmc("train", limit=args.limit)
    test, test_labels, _ = load_nsmc("test", limit=args.test_limit)
    strategies = args.strategies.split(",") if args.strategies else None
    statistics = Statistics(resamples=args.resamples)
    notes: list[str] = []
    profiler = None
    if args.profile:
        import cProfile

        profiler = cProfile.Profile()
        profiler.enable()
    start = time.perf_counter()
    if args.by_family:  # one compare() per family, each printed as it ends (the families share nothing
        import pandas as pd  # but the on-disk caches and the gold analysis, read back from the cache)

        parts = []
        for family in (strategies or list(FAMILIES)):
            t0 = time.perf_counter()
            result = compare(train, labels=train_labels, eval_texts=test, eval_labels=test_labels,
                             strategies=[family], vocab_sizes=args.sizes, show_progress=False,
                             model_cache=not args.no_model_cache, statistics=statistics)
            part = result.table
            notes += result.notes
            print(f"-- {family}: {time.perf_counter() - t0:.1f} s, {len(part)} rows, load {os.getloadavg()}", flush=True)
            if not part.empty:
                print(format_table(part), flush=True)
                parts.append(part)
                if args.csv:
                    pd.concat(parts, ignore_index=True).to_csv(args.csv, index=False)
        df = pd.concat(parts, ignore_index=True)
    else:
        result = compare(train, labels=train_labels, eval_texts=test, eval_labels=test_labels, strategies=strategies,
                         vocab_sizes=args.sizes, show_progress=False, n_jobs=args.jobs,
                         model_cache=not args.no_model_cache, statistics=statistics)
        df, timings = result.table, result.timings
        notes += result.notes
        print("task              rows   wall s    CPU s")
        for name, t in sorted(timings.items(), key=lambda kv: -kv[1]["wall_s"]):
            print(f"{name:16s} {t['rows']:5d} {t['wall_s']:8.1f} {t['cpu_s']:8.1f}")
    seconds = time.perf_counter() - start
    if profiler is not None:
        profiler.disable()
        profiler.dump_stats(args.profile)
    for note in notes:
        print(f"note: {note}")
    print(format_table(df))
    if args.resamples:
        print(format_intervals(df))
    import resource

    own, kids = resource.getrusage(resource.RUSAGE_SELF), resource.getrusage(resource.RUSAGE_CHILDREN)
    cpu = own.ru_utime + own.ru_stime + kids.ru_utime + kids.ru_stime
    print(json.dumps({"seconds": round(seconds, 1), "cpu_s": round(cpu, 1), "rows": len(df), "jobs": args.jobs,
                      "train_docs": len(train), "test_docs": len(test), "loadavg": os.getloadavg()}))
    if args.csv:
        df.to_csv(args.csv, index=False)
    if args.markdown:
        Path(args.markdown).write_text(markdown(df), encoding="utf-8")


def main() -> None:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--sizes", type=lambda s: [int(x) for x in s.split(",")], default=[4000, 8000, 16000, 32000])
    p.add_argument("--limit", type=int, default=None, help="training reviews (default: all)")
    p.add_argument("--test-limit", type=int, default=None, help="held-out reviews (default: all)")
    p.add_argument("--strategies", default=None, help="comma-separated (default: the whole grid)")
    p.add_argument("--once", action="store_true", help="one run in this process (with the cache of --cache-dir)")
    p.add_argument("--cache-dir", default=None)
    p.add_argument("--by-family", action="store_true",
                   help="with --once: one compare() per family (pre-tokenizer, baselines, peers), printed as each ends")
    p.add_argument("--profile", default=None, metavar="PATH", help="with --once: cProfile stats to PATH")
    p.add_argument("--no-model-cache", action="store_true",
                   help="with --once: compare(model_cache=False), every model trained (the analysis cache stays)")
    p.add_argument("--jobs", type=int, default=2, help="compare(n_jobs=) worker processes (default: 2)")
    p.add_argument("--resamples", type=int, default=1000,
                   help="Statistics(resamples=): bootstrap resamples (default: 1000; 0: none, the cost without them)")
    p.add_argument("--csv", default=None)
    p.add_argument("--markdown", default=None)
    args = p.parse_args()
    if args.once:
        if args.cache_dir:
            os.environ["KOREAN_BPE_CACHE_DIR"] = args.cache_dir
        run_once(args)
        return
    cache = args.cache_dir or tempfile.mkdtemp(prefix="korean_bpe_bench_cache_")
    base = [sys.executable, __file__, "--once", "--cache-dir", cache,
            "--sizes", ",".join(map(str, args.sizes))]
    for flag in ("limit", "test_limit", "strategies", "jobs", "resamples"):
        value = getattr(args, flag)
        if value is not None:
            base += [f"--{flag.replace('_', '-')}", str(value)]
    import resource

    summary = []
    # cold stores the models it trains (the cache is on by default); the second run trains them all
    # again (model_cache=False: the analyses are read back); the third reads both caches
    runs = (("cold", []), ("warm, analysis cache only", ["--no-model-cache"]), ("warm, both caches", []))
    for k, (label, extra) in enumerate(runs):
        extra = list(extra)
        if k == len(runs) - 1:
            extra += ["--csv", args.csv] if args.csv else []
            extra += ["--markdown", args.markdown] if args.markdown else []
        load = os.getloadavg()
        print(f"== {label} run (KOREAN_BPE_CACHE_DIR={cache}), load average before: {load}", flush=True)
        before = resource.getrusage(resource.RUSAGE_CHILDREN)
        start = time.perf_counter()
        subprocess.run(base + extra, check=True)
        wall = time.perf_counter() - start
        after = resource.getrusage(resource.RUSAGE_CHILDREN)
        cpu = (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)
        summary.append((label, wall, cpu, load, os.getloadavg()))
        print(f"== {label}: {wall:.1f} s wall, {cpu:.1f} s CPU (process start included)", flush=True)
    print(f"== summary ({args.jobs} worker process{'es' if args.jobs != 1 else ''})")
    for label, wall, cpu, load, after in summary:
        print(f"   {label:26s} {wall / 60:5.1f} min wall ({wall:.0f} s), {cpu:.0f} s CPU; load average before "
              f"{load[0]:.2f}, after {after[0]:.2f}")


if __name__ == "__main__":
    main()
