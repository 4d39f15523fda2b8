"""Okt on long runs of Hangul syllables without a space, before and after ``cut_long_runs``,
and the effect of the cut on Okt's analysis of every NSMC review (train + test splits).

    python benchmarks/bench_okt_long_runs.py            # timing and effect (about 10 minutes)

Timing: runs of 1,000 / 2,000 / 3,000 syllables (the Hangul of NSMC test reviews, spaces and
everything else removed), one call each, after a warm-up.  Effect: every review holding a run
longer than the limit is analysed whole (no cut) and cut; a review "changes" when the two token
lists (``surface/Tag``) differ.  Reviews without such a run are handed to Okt unchanged.
"""

from __future__ import annotations

import re
import time

from korean_bpe.corpus import load_nsmc
from korean_bpe.pre_tokenizers.okt import MAX_RUN, okt_analyzer


def main() -> None:
    whole = okt_analyzer(max_run=10**9)
    cut = okt_analyzer()
    hangul = "".join(re.findall("[가-힣]", "".join(load_nsmc("test", limit=5000).texts)))
    cut([hangul[:300]] * 3)
    whole([hangul[:300]])  # warm up the JIT
    print(f"Okt, one run of Hangul syllables (limit MAX_RUN={MAX_RUN})")
    for n in (1000, 2000, 3000):
        text = hangul[n : 2 * n]
        t = time.perf_counter()
        after = cut([text])
        t_after = time.perf_counter() - t
        t = time.perf_counter()
        before = whole([text])
        t_before = time.perf_counter() - t
        print(f"  {n:>5} syllables: whole {t_before:6.1f} s, cut {t_after:5.1f} s "
              f"({len(before[0])} -> {len(after[0])} tokens)")
    docs = load_nsmc("train").texts + load_nsmc("test").texts
    print(f"effect on the analysis of the {len(docs):,} NSMC reviews")
    for limit in (100, 50, 30, 20):
        long_run = re.compile("[가-힣]{%d,}" % (limit + 1))
        texts = [d for d in docs if long_run.search(d)]
        changed = sum(a != b for a, b in zip(whole(texts), okt_analyzer(max_run=limit)(texts)))
        print(f"  limit {limit:>3}: {len(texts):>5} reviews cut, {changed:>5} analyses change "
              f"({100 * changed / len(docs):.4f} % of all reviews)")


if __name__ == "__main__":
    main()
