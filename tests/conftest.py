"""Shared fixtures: the NSMC corpus (skips when absent), a few thousand real reviews."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
DATA = ROOT / "data"


def nsmc_dir() -> Path | None:
    """``$KOREAN_BPE_NSMC_DIR`` or ``../shared/corpora/nsmc`` beside the repository, if present."""
    env = os.environ.get("KOREAN_BPE_NSMC_DIR")
    candidates = [Path(env)] if env else []
    candidates.append(ROOT.parent / "shared" / "corpora" / "nsmc")
    for c in candidates:
        if (c / "ratings_train.txt").is_file():
            return c
    return None


@pytest.fixture(scope="session")
def nsmc() -> Path:
    d = nsmc_dir()
    if d is None:
        pytest.skip("NSMC corpus not found (set KOREAN_BPE_NSMC_DIR or put it in ../shared/corpora/nsmc)")
    return d


def _read_reviews(path: Path, n: int) -> list[str]:
    import pandas as pd

    df = pd.read_csv(path, sep="\t", quoting=3, keep_default_na=False, nrows=n)
    return [t for t in df["document"].astype(str).tolist() if t.strip()]


@pytest.fixture(scope="session")
def real_texts() -> list[str]:
    """About 2,000 real Korean texts: NSMC test-split reviews when present, else the embedded
    konlpy corpus (constitution + bills), one line each."""
    d = nsmc_dir()
    if d is not None:
        return _read_reviews(d / "ratings_test.txt", 2000)
    import konlpy

    base = Path(konlpy.__file__).parent / "data" / "corpus"
    lines: list[str] = []
    for f in [base / "kolaw" / "constitution.txt", *sorted((base / "kobill").glob("*.txt"))]:
        lines.extend(l.strip() for l in f.read_text(encoding="utf-8").splitlines() if l.strip())
    return lines[:2000]


@pytest.fixture(scope="session")
def okt_sentences() -> list[str]:
    return (DATA / "okt_tutorial.txt").read_text(encoding="utf-8").splitlines()
