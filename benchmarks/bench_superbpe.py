"""SuperBPE's memory and time against our whitespace-bounded (raw) training, on NSMC train.

    python benchmarks/bench_superbpe.py                      # all of ratings_train.txt, 32k, t = 24k
    python benchmarks/bench_superbpe.py --limit 20000 --vocab-size 8000 --transition 6000

Each training runs in a fresh process (``--one KIND``), so that each peak RSS (``ru_maxrss``) is
that training's own: reading the reviews, counting, both stages.  Prints one line per run: kind,
seconds, peak RSS (MiB), tokens with a ``▁`` inside (superwords).
"""

from __future__ import annotations

import argparse
import json
import resource
import subprocess
import sys
import time


def one(kind: str, args: argparse.Namespace) -> dict[str, object]:
    from korean_bpe import Tokenizer
    from korean_bpe.corpus import load_nsmc

    texts = load_nsmc("train", limit=args.limit).texts
    start = time.perf_counter()
    options = {"pre_tokenizer": "raw"} if kind == "raw" else {
        "superword_transition": args.transition, "superword_max_words": args.max_words}
    tok = Tokenizer.train(texts, vocab_size=args.vocab_size, unit=args.unit, show_progress=False, **options)
    seconds = time.perf_counter() - start
    return {"kind": kind, "seconds": round(seconds, 1), "peak_rss_mib": resource.getrusage(resource.RUSAGE_SELF).ru_maxrss // 1024,
            "superwords": sum("\u2581" in t[1:] for t in tok.id_to_token), "texts": len(texts)}


def main() -> None:
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--limit", type=int, default=None, help="training reviews (default: all)")
    p.add_argument("--vocab-size", type=int, default=32000)
    p.add_argument("--transition", type=int, default=24000)
    p.add_argument("--max-words", type=int, default=4)
    p.add_argument("--unit", default="syllable")
    p.add_argument("--one", default=None, help=argparse.SUPPRESS)
    args = p.parse_args()
    if args.one:
        print(json.dumps(one(args.one, args)))
        return
    for kind in ("raw", "superbpe"):
        cmd = [sys.executable, __file__, "--one", kind, "--vocab-size", str(args.vocab_size), "--transition",
               str(args.transition), "--max-words", str(args.max_words), "--unit", args.unit]
        if args.limit:
            cmd += ["--limit", str(args.limit)]
        print(subprocess.run(cmd, check=True, capture_output=True, text=True).stdout.strip(), flush=True)


if __name__ == "__main__":
    main()
