"""Shared fixtures: the NSMC corpus (skips when absent), a few thousand real reviews."""

from __future__ import annotations

from pathlib import Path

import pytest

from korean_bpe.corpus import load_nsmc, nsmc_dir

ROOT = Path(__file__).resolve().parent.parent
DATA = ROOT / "data"


@pytest.fixture(scope="session")
def nsmc() -> Path:
    d = nsmc_dir()
    if d is None or not (d / "ratings_train.txt").is_file():
        pytest.skip("NSMC corpus not found (set KOREAN_BPE_NSMC_DIR or put it in ../shared/corpora/nsmc)")
    return d


@pytest.fixture(scope="session")
def real_texts() -> list[str]:
    """About 2,000 real Korean texts: NSMC test-split reviews when present, else the embedded
    konlpy corpus (constitution + bills), one line each."""
    if nsmc_dir() is not None:
        return load_nsmc("test", limit=2000).texts
    import konlpy

    base = Path(konlpy.__file__).parent / "data" / "corpus"
    lines: list[str] = []
    for f in [base / "kolaw" / "constitution.txt", *sorted((base / "kobill").glob("*.txt"))]:
        lines.extend(l.strip() for l in f.read_text(encoding="utf-8").splitlines() if l.strip())
    return lines[:2000]


@pytest.fixture(scope="session")
def okt_sentences() -> list[str]:
    return (DATA / "okt_tutorial.txt").read_text(encoding="utf-8").splitlines()
