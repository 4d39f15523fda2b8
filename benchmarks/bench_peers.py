#!/usr/bin/env python
"""Peer training times (issue #10): each peer of :mod:`korean_bpe.compare.peers` trained on the
NSMC train split (165,320 reviews) at the sizes asked, timed from the texts in memory to a trained
segmenter (the settings are the ones ``compare()`` uses; see the module docstring).

Prints a Markdown table (peer, size asked, size reached, seconds) with the command and the machine.

    python benchmarks/bench_peers.py                         # all peers, vocab 32k
    python benchmarks/bench_peers.py --vocab 4000 8000 16000 32000 --peers kiwi-bpe
"""

from __future__ import annotations

import argparse
import os
import platform
import sys
import time

from korean_bpe.compare.peers import PEERS, train_peer
from korean_bpe.corpus import CorpusError, load_nsmc


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--vocab", type=int, nargs="+", default=[32000])
    ap.add_argument("--peers", nargs="+", default=list(PEERS), choices=PEERS)
    ap.add_argument("--limit", type=int, default=None, help="first N reviews only")
    args = ap.parse_args(argv)
    try:
        texts, _, path = load_nsmc("train", limit=args.limit)
    except CorpusError as exc:
        print(exc, file=sys.stderr)
        return 2
    print(f"command: python benchmarks/bench_peers.py {' '.join(argv or sys.argv[1:])}")
    print(f"machine: {platform.processor() or platform.machine()}, {os.cpu_count()} CPUs, Python {platform.python_version()}")
    print(f"texts: {len(texts)} reviews from {path.name}\n")
    print("| peer | vocab asked | vocab reached | train s |")
    print("|---|---:|---:|---:|")
    for name in args.peers:
        for size in args.vocab:
            t0 = time.perf_counter()
            peer = train_peer(name, texts, vocab_size=size)
            dt = time.perf_counter() - t0
            print(f"| {name} | {size} | {peer.vocab_size} | {dt:.1f} |", flush=True)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
