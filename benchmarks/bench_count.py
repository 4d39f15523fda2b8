#!/usr/bin/env python
"""Counting benchmark (issue 13): local counting vs a Dask LocalCluster, and streaming a 1 GB corpus.

1. **Local vs Dask** on the NSMC train split (``ratings_train.txt``, the TSV as users give it, 165,320
   reviews) for ``whitespace`` and ``okt``:

   * local: what ``korean-bpe count FILE`` runs, ``WordCounts.from_texts(iter_texts(FILE))`` in this
     process (Okt: its threads over one JVM, one per core);
   * Dask: :func:`korean_bpe.distributed.count_files` on a ``LocalCluster`` of ``--workers`` worker
     processes (one thread each), the file cut into ``4 x workers`` shards; the cluster is started
     before the timer (its start is printed), each worker's analyzer (Okt: its JVM) is not.

   Okt starts cold: the analysis cache is a fresh temporary directory for every run.  Both results
   must be equal word for word.  Throughput is characters (of the documents) per wall second; CPU
   time adds this process and, for Dask, the workers' (``time.process_time`` in each, JVM threads
   included).

2. **Streaming**: the train split's documents written one a line, repeated to about ``--small-mb``
   (25 MB) and to about ``--stream-gb`` (1 GB) in a temporary directory (deleted after; never
   committed); ``korean-bpe count`` and ``korean-bpe train --vocab-size 8000`` (``whitespace``) on
   each, as separate processes: wall and CPU seconds and peak RSS (``/usr/bin/time``).  Both corpora hold
   the same distinct words, so memory bounded by the distinct words means the same peak; the 1 GB
   counts are checked against the reviews' counts times the repeats.

Stdout: Markdown tables, the machine, the load average before and after each part.

    python benchmarks/bench_count.py                     # the README tables (about 15 min under load)
    python benchmarks/bench_count.py --limit 20000 --stream-gb 0.2 --small-mb 10
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
from bench_train import machine  # noqa: E402 - the machine line every benchmark prints


def load() -> str:
    return "load average " + ", ".join(f"{x:.2f}" for x in os.getloadavg())


def documents(path: Path, limit: int | None) -> list[str]:
    from korean_bpe.corpus import iter_texts

    return list(iter_texts(path, limit=limit))


# --- 1. local vs Dask -------------------------------------------------------------------------------


def local_vs_dask(corpus: Path, chars: int, workers: int, pre_tokenizers: list[str]) -> list[str]:
    from distributed import Client

    from korean_bpe.corpus import iter_texts
    from korean_bpe.counting import WordCounts
    from korean_bpe.distributed import count_files, local_cluster
    from korean_bpe.pre_tokenizers import get_pre_tokenizer

    out = [f"corpus: {corpus.name}, {corpus.stat().st_size / 1e6:.1f} MB, {chars:,} characters of documents; "
           f"{load()}", ""]
    start = time.perf_counter()
    cluster = local_cluster(workers)
    client = Client(cluster)
    out.append(f"LocalCluster of {workers} worker processes started in {time.perf_counter() - start:.1f} s")
    out += ["", "| pre-tokenizer | run | wall s | CPU s | characters/s | vs local | shards | load |",
            "| --- | --- | ---: | ---: | ---: | ---: | ---: | --- |"]
    shard_bytes = -(-corpus.stat().st_size // (4 * workers))
    try:
        for name in pre_tokenizers:
            runtime = {"cache_dir": tempfile.mkdtemp(prefix="bench-count-cache-")} if name == "okt" else {}
            pt = get_pre_tokenizer(name, **runtime)
            print(f"{name}: local ...", file=sys.stderr)
            c0, w0 = time.process_time(), time.perf_counter()
            local = WordCounts.from_texts(iter_texts(corpus), pre_tokenizer=pt, show_progress=False)
            local_wall, local_cpu = time.perf_counter() - w0, time.process_time() - c0
            out.append(f"| {name} | local (this process) | {local_wall:.1f} | {local_cpu:.1f} | "
                       f"{chars / local_wall:,.0f} | 1.00 | - | {os.getloadavg()[0]:.1f} |")
            print(f"{name}: dask ...", file=sys.stderr)
            cache_dir = tempfile.mkdtemp(prefix="bench-count-cache-")  # cold for the workers too
            before = sum(client.run(time.process_time).values())
            c0, w0 = time.process_time(), time.perf_counter()
            got = count_files([corpus], pre_tokenizer=name, scheduler=client, shard_bytes=shard_bytes,
                              cache_dir=cache_dir, show_progress=False)
            wall = time.perf_counter() - w0
            cpu = time.process_time() - c0 + sum(client.run(time.process_time).values()) - before
            if got != local:
                raise SystemExit(f"{name}: the Dask counts differ from the local counts")
            out.append(f"| {name} | Dask, {workers} workers | {wall:.1f} | {cpu:.1f} | {chars / wall:,.0f} | "
                       f"{local_wall / wall:.2f} | {-(-corpus.stat().st_size // shard_bytes)} | "
                       f"{os.getloadavg()[0]:.1f} |")
            print(out[-1], file=sys.stderr)
    finally:
        client.close()
        cluster.close()
    out += ["", f"counts equal word for word (local == Dask) for {', '.join(pre_tokenizers)}; {load()}"]
    return out


# --- 2. streaming -----------------------------------------------------------------------------------


def write_repeated(docs: list[str], path: Path, target_bytes: int) -> int:
    block = ("\n".join(docs) + "\n").encode("utf-8")
    repeats = max(1, round(target_bytes / len(block)))
    with open(path, "wb") as f:
        for _ in range(repeats):
            f.write(block)
    return repeats


def run_cli(args: list[str], tmp: str) -> tuple[float, float, float]:
    """(wall s, CPU s, peak RSS MB) of ``korean-bpe ARGS`` in a fresh process, measured by
    ``/usr/bin/time`` (a child forked from this big process would report this process's RSS as its
    own peak: Linux keeps the larger of the two across fork and exec)."""
    report = Path(tmp) / "time.txt"
    start = time.perf_counter()
    done = subprocess.run(["/usr/bin/time", "-o", str(report), "-f", "%U %S %M",
                           sys.executable, "-m", "korean_bpe.cli", *args], stdout=subprocess.DEVNULL)
    wall = time.perf_counter() - start
    if done.returncode != 0:
        raise SystemExit(f"korean-bpe {' '.join(args)} failed")
    user, system, kb = report.read_text().split()[-3:]
    return wall, float(user) + float(system), int(kb) / 1024


def streaming(docs: list[str], small_mb: float, stream_gb: float) -> list[str]:
    from korean_bpe.counting import WordCounts

    base = WordCounts.from_texts(docs, show_progress=False)
    out = ["| corpus | size | command | wall s | CPU s | MB/s | peak RSS MB | load |",
           "| --- | ---: | --- | ---: | ---: | ---: | ---: | --- |"]
    peaks: dict[str, list[float]] = {}
    with tempfile.TemporaryDirectory(prefix="bench-count-stream-") as tmp:
        for label, target in (("small", small_mb * 1e6), ("big", stream_gb * 1e9)):
            path = Path(tmp) / f"{label}.txt"
            repeats = write_repeated(docs, path, int(target))
            size = path.stat().st_size
            for command in ("count", "train"):
                print(f"streaming: {command} on {size / 1e6:,.0f} MB ...", file=sys.stderr)
                extra = ["-o", f"{tmp}/{label}.tsv"] if command == "count" else \
                    ["--vocab-size", "8000", "-o", f"{tmp}/{label}-model"]
                wall, cpu, peak = run_cli([command, str(path), "--no-progress", *extra], tmp)
                peaks.setdefault(command, []).append(peak)
                out.append(f"| reviews x {repeats} | {size / 1e6:,.0f} MB | korean-bpe {command} | {wall:.1f} | "
                           f"{cpu:.1f} | {size / 1e6 / wall:.1f} | {peak:,.0f} | {os.getloadavg()[0]:.1f} |")
                print(out[-1], file=sys.stderr)
            counts = WordCounts.load(f"{tmp}/{label}.tsv")
            if counts.items() != [(w, c * repeats) for w, c in base.items()]:
                raise SystemExit(f"the counts of {path.name} are not the reviews' counts x {repeats}")
            os.unlink(path)
    out.append("")
    for command, (small, big) in peaks.items():
        out.append(f"korean-bpe {command}: peak RSS {big:,.0f} MB on the big corpus = {big / small:.2f} x the small "
                   f"one's {small:,.0f} MB")
    out.append(f"counts of each corpus == the reviews' counts x the repeats; {load()}")
    return out


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--limit", type=int, default=None, help="first N reviews of the train split (default: all)")
    parser.add_argument("--workers", type=int, default=2, help="LocalCluster worker processes (default: 2)")
    parser.add_argument("--pre-tokenizers", default="whitespace,okt")
    parser.add_argument("--small-mb", type=float, default=25.0)
    parser.add_argument("--stream-gb", type=float, default=1.0, help="0: no streaming part")
    args = parser.parse_args()

    from korean_bpe.corpus import nsmc_path

    train = nsmc_path("train")
    docs = documents(train, args.limit)
    print(f"# bench_count.py {' '.join(sys.argv[1:])}\n\n{machine()}\n")
    with tempfile.TemporaryDirectory(prefix="bench-count-") as tmp:
        corpus = train
        if args.limit is not None:  # the first reviews as a text file, one a line
            corpus = Path(tmp) / "reviews.txt"
            corpus.write_text("\n".join(docs) + "\n", encoding="utf-8")
        chars = sum(map(len, docs))
        print("## Local vs Dask\n")
        print("\n".join(local_vs_dask(corpus, chars, args.workers, args.pre_tokenizers.split(","))), flush=True)
    if args.stream_gb > 0:
        print(f"\n## Streaming: {args.small_mb:g} MB vs {args.stream_gb:g} GB, whitespace\n\n{load()}\n")
        print("\n".join(streaming(docs, args.small_mb, args.stream_gb)), flush=True)


if __name__ == "__main__":
    main()
