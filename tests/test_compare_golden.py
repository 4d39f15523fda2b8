"""A small comparison's whole table, held as a golden copy (``tests/golden/compare_table.csv``): every
column but the timings, at full precision, with labels (the probe), intervals and p-values.  A
refactoring of :mod:`korean_bpe.compare` must leave it byte-identical; a change that moves a number
on purpose rewrites it (``KOREAN_BPE_UPDATE_GOLDEN=1``) and says why in its commit.

The corpus is the embedded default (the konlpy wheel's law texts), the labels a fixed rule of each
text (its length's parity), no gold analyzer (an analyzer's upgrade must not move the file).
"""

from __future__ import annotations

import os
from pathlib import Path

import pytest

pytest.importorskip("pandas")
pytest.importorskip("sklearn")

GOLDEN = Path(__file__).parent / "golden" / "compare_table.csv"
#: what changes from run to run: the timings and whether a model came from the cache
VOLATILE = ("train_s", "pretok_s", "encode_texts_per_s", "model_cached", "downstream_s")
STRATEGIES = ["whitespace/syllable", "whitespace/byte", "raw/jamo", "baseline/syllable", "baseline/word"]


def small_table() -> str:
    from korean_bpe.compare import Statistics, compare
    from korean_bpe.corpus import default_corpus_paths, iter_texts

    texts = [t for path in default_corpus_paths() for t in iter_texts(str(path))][:400]
    labels = [len(t) % 2 for t in texts]
    result = compare(texts, labels=labels, strategies=STRATEGIES, vocab_sizes=[300, 600], gold=None, seed=3,
                     statistics=Statistics(resamples=200), show_progress=False, model_cache=False)
    table = result.table.drop(columns=list(VOLATILE))
    return table.to_csv(index=False, float_format="%.17g")


def test_small_comparison_table_is_the_golden_copy() -> None:
    got = small_table()
    if os.environ.get("KOREAN_BPE_UPDATE_GOLDEN"):
        GOLDEN.write_text(got, encoding="utf-8")
    want = GOLDEN.read_text(encoding="utf-8")
    # a header and 5 strategies x 2 sizes, but whitespace/syllable at 300 (below its alphabet: skipped)
    assert got.count("\n") == want.count("\n") == 10
    for k, (a, b) in enumerate(zip(got.splitlines(), want.splitlines())):
        assert a == b, f"line {k + 1} of {GOLDEN.name} differs:\n got {a}\nwant {b}"
