"""What ``hangul_fallback`` does on held-out reviews: ``<unk>`` share and tokens per review.

Trains whitespace/syllable tokenizers on the first N NSMC training reviews (same merges budget:
``vocab_size`` = BASE + 256 with byte fallback + 67 with Hangul fallback) and encodes every NSMC
test review with each: no fallback, byte fallback, Hangul fallback, both.

    .venv/bin/python benchmarks/hangul_fallback.py [--train 20000] [--vocab-size 8000] [--limit-alphabet N]

Prints a table (pandas).
"""

from __future__ import annotations

import argparse
import itertools

from korean_bpe import Tokenizer
from korean_bpe.corpus import load_nsmc
from korean_bpe.jamo import is_syllable


def measure(tok: Tokenizer, texts: list[str]) -> dict[str, float]:
    unk = tok.token_to_id("<unk>")
    tokens = unk_tokens = hangul_unk = reviews_with_unk = 0
    for t in texts:
        ids, offsets = tok.encode_with_offsets(t)
        tokens += len(ids)
        here = [t[s:e] for i, (s, e) in zip(ids, offsets) if i == unk]
        unk_tokens += len(here)
        hangul_unk += sum(map(is_syllable, here))
        reviews_with_unk += bool(here)
    return {
        "tokens/review": tokens / len(texts),
        "<unk> % of tokens": 100 * unk_tokens / tokens,
        "Hangul <unk> % of tokens": 100 * hangul_unk / tokens,
        "reviews with <unk> %": 100 * reviews_with_unk / len(texts),
        "round trip %": 100 * sum(tok.decode(tok.encode(t)) == " ".join(t.split()) for t in texts) / len(texts),
    }


def main() -> None:
    import pandas as pd

    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--train", type=int, default=20_000, help="training reviews (default: 20000)")
    ap.add_argument("--vocab-size", type=int, default=8000, help="vocabulary without fallback tokens (default: 8000)")
    ap.add_argument("--limit-alphabet", type=int, default=None, help="keep only the N most frequent syllables")
    args = ap.parse_args()
    train = load_nsmc("train", limit=args.train).texts
    test = load_nsmc("test").texts
    rows = []
    for byte, hangul in itertools.product((False, True), repeat=2):
        size = args.vocab_size + 256 * byte + 67 * hangul
        limit = None if args.limit_alphabet is None else args.limit_alphabet + 67 * hangul
        tok = Tokenizer.train(train, vocab_size=size, byte_fallback=byte, hangul_fallback=hangul,
                              limit_alphabet=limit, show_progress=False)
        rows.append({"fallback": {(0, 0): "none", (1, 0): "byte", (0, 1): "hangul", (1, 1): "hangul+byte"}[byte, hangul],
                     "vocab": tok.vocab_size, **measure(tok, test)})
    print(f"train: first {len(train):,} NSMC training reviews; test: {len(test):,} NSMC test reviews; "
          f"whitespace/syllable, vocab {args.vocab_size} + fallback tokens, limit_alphabet {args.limit_alphabet}")
    with pd.option_context("display.width", 200, "display.max_columns", 20, "display.precision", 3):
        print(pd.DataFrame(rows).to_string(index=False))


if __name__ == "__main__":
    main()
