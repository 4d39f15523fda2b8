"""What a started JVM costs the rest of a Python process: JPype's link between the two garbage
collectors (``_jpype._collect`` in ``gc.callbacks``), which ``korean_bpe`` takes out when Okt starts
the JVM (``korean_bpe/pre_tokenizers/okt.py``, ``_unlink_jpype_gc``).

Each run is a fresh process, in one of three states:

* ``no JVM``: Okt never started;
* ``JPype's link``: Okt started with the callback left as JPype installs it (every Python collection,
  young ones included, reads glibc's ``mallinfo`` twice and may run Java's ``System.gc()``; with
  konlpy's start it is in ``gc.callbacks`` twice);
* ``korean_bpe``: Okt started, as the package leaves the process.

and times, after Okt analysed one review:

* ``train``: ``Tokenizer.train`` (32k, whitespace, syllables) on ``--limit`` NSMC train reviews;
* ``encode_batch``: those reviews encoded by the trained model (one list per review);
* ``fragmented``: two ``list(d.items())`` of a 100,000-entry dict, on a heap where 200,000 freed
  malloc blocks of 600-4,000 bytes lie between 200,000 live ones (what a long session of analyses,
  models and tables leaves; a test worker of the suite had 2.7 GB).  ``--skip-fragmented`` leaves it
  out (with JPype's link it is most of the run: 40 s a process).

The three states alternate, ``--repeat`` rounds; the table gives the best of each.

    .venv/bin/python benchmarks/bench_jvm_gc.py --repeat 3

Results: benchmarks/README.md, "A started JVM and Python's garbage collector".
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys

STATES = ("no JVM", "JPype's link", "korean_bpe")

CHILD = r"""
import gc, json, random, sys, time
from korean_bpe import Tokenizer
from korean_bpe.corpus import load_nsmc
from korean_bpe.pre_tokenizers import get_pre_tokenizer

state, limit, fragmented = sys.argv[1], int(sys.argv[2]), sys.argv[3] == "1"
texts = load_nsmc("train", limit=limit).texts
if state == "JPype's link":  # the JVM started as before: JPype's callbacks left in place
    import korean_bpe.pre_tokenizers.okt as okt

    okt._unlink_jpype_gc = lambda: None
if state != "no JVM":
    get_pre_tokenizer({"type": "okt", "cache": False})(texts[0])
    import _jpype
    assert (_jpype._collect in gc.callbacks) == (state == "JPype's link")
out = {}

def timed(name, work):
    start = time.perf_counter()
    result = work()
    out[name] = time.perf_counter() - start
    return result

tok = timed("train", lambda: Tokenizer.train(texts, vocab_size=32000, pre_tokenizer="whitespace", unit="syllable",
                                             show_progress=False))
timed("encode_batch", lambda: tok.encode_batch(texts))
if fragmented:
    random.seed(0)
    blocks = [bytes(random.randint(600, 4000)) for _ in range(400_000)]
    del blocks[::2]
    table = {str(k): k for k in range(100_000)}
    timed("fragmented", lambda: [list(table.items()) for _ in range(2)])
print(json.dumps(out))
"""


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--limit", type=int, default=150_000, help="NSMC train reviews (default 150,000)")
    parser.add_argument("--repeat", type=int, default=3, help="rounds of the three states (default 3)")
    parser.add_argument("--skip-fragmented", action="store_true", help="leave out the fragmented-heap work")
    args = parser.parse_args()

    best: dict[str, dict[str, float]] = {state: {} for state in STATES}
    for _ in range(args.repeat):
        for state in STATES:
            proc = subprocess.run([sys.executable, "-c", CHILD, state, str(args.limit),
                                   "0" if args.skip_fragmented else "1"], capture_output=True, text=True, check=False)
            if proc.returncode != 0:
                raise SystemExit(f"{state}: {proc.stderr.strip()[-2000:]}")
            for name, seconds in json.loads(proc.stdout.splitlines()[-1]).items():
                best[state][name] = min(seconds, best[state].get(name, float("inf")))
    names = list(best["no JVM"])
    print(f"load average {os.getloadavg()[0]:.1f}; best of {args.repeat} fresh processes each, seconds "
          f"({args.limit:,} NSMC train reviews)")
    print("| work | " + " | ".join(STATES) + " | JPype's link / korean_bpe |")
    print("|---|" + "---:|" * (len(STATES) + 1))
    for name in names:
        cells = [best[state][name] for state in STATES]
        print(f"| {name} | " + " | ".join(f"{c:.2f}" for c in cells) + f" | {cells[1] / cells[2]:.1f}x |")


if __name__ == "__main__":
    main()
