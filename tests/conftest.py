"""Shared fixtures: the NSMC corpus (skips when absent), a few thousand real reviews; the ``jvm`` marker."""

from __future__ import annotations

from pathlib import Path

import pytest

from korean_bpe.corpus import load_nsmc, nsmc_dir

ROOT = Path(__file__).resolve().parent.parent
DATA = ROOT / "data"

#: tests that start Okt's JVM without "okt" in their node id (they loop over the analyzers)
_JVM_TESTS = {"test_lossless_morpheme_mode_round_trip"}


def pytest_configure(config: pytest.Config) -> None:
    config.addinivalue_line("markers", "jvm: starts Okt's JVM (set below; make test-fast leaves these out)")


#: the files whose tests take longest (minutes: make demo's fresh run, the pure-Python SuperBPE engine,
#: the notebooks, every HF client), run first, so that under ``pytest -n`` (``make test``: xdist, with
#: ``--no-loadscope-reorder``) no worker is left alone with one of them at the end
SLOWEST_FIRST = ("test_docs.py", "test_superbpe.py", "test_notebooks.py", "test_hf_clients.py", "test_okt.py",
                 "test_demo.py")


def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
    """Mark ``jvm`` the tests known to start Okt's JVM: those whose node id (file, name or
    parameters) says ``okt``, and :data:`_JVM_TESTS`.  ``make test-fast`` leaves them out
    (``-m "not jvm"``): the JVM's start and Okt's analyses are most of their time.  The list is
    complete for the fast tier's files; elsewhere (the CLI, compare) Okt may also start unmarked.
    The files of :data:`SLOWEST_FIRST` go first, in that order (the rest keeps its order)."""
    first = {name: k for k, name in enumerate(SLOWEST_FIRST)}
    items.sort(key=lambda item: first.get(item.path.name, len(first)) if item.path.parent.name == "tests" else len(first))
    for item in items:
        if "okt" in item.nodeid.lower() or getattr(item, "originalname", item.name) in _JVM_TESTS:
            item.add_marker(pytest.mark.jvm)


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
