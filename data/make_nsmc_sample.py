"""Rebuild ``korean_bpe/data/nsmc_sample/`` (the labelled corpus ``korean-bpe compare`` and ``make demo``
use when no corpus is given) from the Naver movie reviews (NSMC, CC0 1.0).

    python data/make_nsmc_sample.py [NSMC_DIR]    # default: ../shared/corpora/nsmc

A seeded sample of 8,000 reviews of ``ratings_train.txt`` and 2,000 of ``ratings_test.txt``, each
with its NSMC id and label, in the files' own order; the same seed gives the same bytes.
"""

from __future__ import annotations

import sys
from pathlib import Path

import numpy as np
import pandas as pd

SEED = 20261128
SIZES = {"train": ("ratings_train.txt", 8000), "test": ("ratings_test.txt", 2000)}
OUT = Path(__file__).resolve().parent.parent / "korean_bpe" / "data" / "nsmc_sample"


def main(nsmc: Path, out: Path = OUT) -> None:
    out.mkdir(parents=True, exist_ok=True)
    rng = np.random.default_rng(SEED)
    for split, (name, n) in SIZES.items():
        df = pd.read_csv(nsmc / name, sep="\t", quoting=3, keep_default_na=False, dtype=str)
        rows = np.sort(rng.choice(len(df), size=n, replace=False))
        sample = df.iloc[rows][["id", "document", "label"]]
        text = "id\tdocument\tlabel\n" + "".join(f"{i}\t{d}\t{y}\n" for i, d, y in sample.itertuples(index=False))
        (out / f"{split}.tsv").write_bytes(text.encode("utf-8"))
        labels = sample["label"].value_counts().sort_index().to_dict()
        print(f"{split}.tsv: {n:,} reviews, {len(text.encode()):,} bytes, labels {labels}")


if __name__ == "__main__":
    main(Path(sys.argv[1]) if len(sys.argv) > 1 else Path(__file__).resolve().parents[2] / "shared" / "corpora" / "nsmc")
