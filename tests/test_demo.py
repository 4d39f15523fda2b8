"""The first ten minutes: the shipped labelled sample, the verdict that names what to choose among the
strategies a user would deploy, and the compact output ``korean-bpe compare`` prints first."""

from __future__ import annotations

import hashlib
import importlib.util
import math
import os
import re
from pathlib import Path

import pytest

from _cli import run_cli  # tests/_cli.py
from korean_bpe.corpus import EMBEDDED_CORPORA, embedded_path, iter_labelled, iter_texts, nsmc_dir

ROOT = Path(__file__).resolve().parent.parent


def _env(tmp_path: Path) -> dict[str, str]:
    path = os.pathsep.join(filter(None, [str(ROOT), os.environ.get("PYTHONPATH")]))
    return {**os.environ, "KOREAN_BPE_CACHE_DIR": str(tmp_path / "cache"), "PYTHONPATH": path}


# -- the shipped sample ---------------------------------------------------------------------------

def test_the_sample_is_labelled_movie_reviews_by_name() -> None:
    train = list(iter_labelled("nsmc-sample"))
    test = list(iter_labelled("nsmc-sample-test"))
    assert (len(train), len(test)) == (8000, 2000)
    assert {y for _, y in train} == {y for _, y in test} == {"0", "1"}
    assert sum(y == "1" for _, y in train) == 3959 and sum(y == "1" for _, y in test) == 997
    assert train[1] == ("말장난 영화.. 왕가위의 전작들의 성공에 도취된 매너리즘의 극치. 내용은 사랑노래인데 대사는 불경을 외우는 듯.. "
                        "극의 흐름을 방해하는 가식적, 현학적 대사들", "0")
    shared = {t for t, _ in train} & {t for t, _ in test}  # NSMC's own duplicates across its splits: short ones
    assert len(shared) == 20 and {"굿", "별로", "쓰레기"} <= shared
    size = embedded_path("nsmc-sample").stat().st_size + embedded_path("nsmc-sample-test").stat().st_size
    assert 0.9e6 < size < 1.1e6  # about 1 MB, as data/README.md says
    assert list(iter_texts("constitution", limit=1)) == list(iter_texts(None, limit=1)) == ["대한민국헌법"]
    assert set(EMBEDDED_CORPORA) == {"nsmc-sample", "nsmc-sample-test", "constitution"}


def test_a_file_of_the_same_name_wins_and_a_missing_one_lists_the_names(tmp_path: Path,
                                                                         monkeypatch: pytest.MonkeyPatch) -> None:
    from korean_bpe.corpus import CorpusError

    monkeypatch.chdir(tmp_path)
    Path("constitution").write_text("내 파일의 한 줄\n", encoding="utf-8")
    assert list(iter_texts("constitution")) == ["내 파일의 한 줄"]
    with pytest.raises(CorpusError, match="corpus file not found: nsmc-smaple .*nsmc-sample, nsmc-sample-test, "
                                          "constitution"):
        list(iter_texts("nsmc-smaple"))


@pytest.mark.skipif(nsmc_dir() is None, reason="NSMC corpus not found (../shared/corpora/nsmc)")
def test_the_sample_is_rebuilt_byte_for_byte_by_its_script(tmp_path: Path) -> None:
    spec = importlib.util.spec_from_file_location("make_nsmc_sample", ROOT / "data" / "make_nsmc_sample.py")
    module = importlib.util.module_from_spec(spec)  # type: ignore[arg-type]
    spec.loader.exec_module(module)  # type: ignore[union-attr]
    module.main(nsmc_dir(), tmp_path)
    for name, split in (("train.tsv", "nsmc-sample"), ("test.tsv", "nsmc-sample-test")):
        assert hashlib.sha256((tmp_path / name).read_bytes()).digest() == \
            hashlib.sha256(embedded_path(split).read_bytes()).digest()


# -- the verdict: candidates, reference points, sizes not reached, the choice -------------------------

@pytest.fixture(scope="module")
def probe_run():
    """A labelled comparison on 700 of the sample's reviews, the order-blind probe as evidence (no
    torch): two BPE rows, a peer-free set with the character and 어절 reference points, and a size the
    small corpus cannot reach for the syllable rows."""
    pytest.importorskip("sklearn")
    from korean_bpe.compare import Statistics, compare

    pairs = list(iter_labelled("nsmc-sample", limit=700))
    texts, labels = [t for t, _ in pairs], [int(y) for _, y in pairs]
    return compare(texts, labels=labels, strategies=["whitespace/syllable", "whitespace/jamo", "raw/jamo",
                                                     "baseline/syllable", "baseline/word"],
                   vocab_sizes=[400, 9000], gold=None, statistics=Statistics(resamples=400), seed=0, show_progress=False,
                   model_cache=False)


def test_reference_points_and_high_unknown_rates_are_never_crowned(probe_run) -> None:
    df = probe_run.table
    word = df[(df["strategy"] == "baseline/word") & (df["vocab_size"] == 400)].iloc[0]
    assert word["tokens_per_word"] == 1.0 and word["unk_rate"] > 0.3  # the shortest, and lossy
    length = [v for v in probe_run.verdicts if v.family == "sequence length" and v.vocab_size == 400]
    assert length and length[0].best != "baseline/word" and "baseline/word" not in length[0].tied
    assert length[0].reference_points["baseline/word"][1] == "a reference point (every 어절 a token)"
    assert all(not name.startswith("baseline/") for v in probe_run.verdicts for name in v.tied)


def test_a_size_not_reached_is_noted_marked_and_not_a_candidate(probe_run) -> None:
    from korean_bpe.compare.table import format_compact, format_table

    df = probe_run.table
    short = df[(df["vocab_size"] == 9000) & (df["kind"] == "bpe")]
    assert (short["actual_vocab_size"] < 9000).all()
    note = next(n for n in probe_run.notes if n.startswith("vocabulary size 9,000 not reached"))
    for row in short.itertuples():
        assert f"{row.strategy} {row.actual_vocab_size:,}" in note
    assert re.search(r"^whitespace/syllable\(ref\)\s+9000↓ ", format_table(df), re.M)
    assert "9000↓" in format_compact(df)[0]
    assert not [c for c in probe_run.choices if c.vocab_size == 9000]  # every row there is short or a baseline
    assert all(v.vocab_size != 9000 or not v.tied for v in probe_run.verdicts)


def test_the_choice_is_the_shortest_of_the_candidates_level_with_the_best(probe_run) -> None:
    (choice,) = probe_run.choices
    assert choice.vocab_size == 400 and choice.evidence is not None
    assert choice.evidence.family == "probe (order-blind)" and choice.evidence.metric == "probe_accuracy"
    df = probe_run.table.set_index(["strategy", "vocab_size"])
    level = choice.evidence.tied
    assert choice.strategy in level and all(not n.startswith("baseline/") for n in level)
    assert choice.tokens_per_word == min(df.loc[(n, 400), "tokens_per_word"] for n in level)
    assert choice.value == df.loc[(choice.strategy, 400), "probe_accuracy"]
    text = choice.describe(alpha=0.05)
    assert text.startswith(f"at 400 tokens, choose {choice.strategy}: order-blind probe accuracy ")
    assert not math.isnan(choice.interval[0]) and choice.interval[0] <= choice.value <= choice.interval[1]


def test_without_labels_the_choice_says_it_has_no_evidence() -> None:
    from korean_bpe.compare import Statistics, compare

    run = compare(list(iter_texts("nsmc-sample", limit=500)), strategies=["whitespace/syllable", "raw/syllable",
                                                                            "baseline/word"],
                  vocab_sizes=[1000], gold=None, statistics=Statistics(resamples=0), show_progress=False, model_cache=False)
    (choice,) = run.choices
    assert choice.evidence is None and choice.strategy in ("whitespace/syllable", "raw/syllable")
    assert "No labelled task was measured" in choice.describe(alpha=0.05)


# -- the CLI: the demo's defaults and the compact output ------------------------------------------

@pytest.mark.slow
def test_compare_without_a_corpus_runs_the_labelled_demo_verdict_first(tmp_path: Path) -> None:
    """The demo's path (the sample, its held-out split, the downstream stage), cut to a few strategies
    and 400 reviews so it runs in seconds; the output opens with the verdict naming a BPE strategy,
    then the compact table, and the legend covers every printed column and mark.  (The README's
    fresh demo run checks a verdict on the downstream accuracy, on 8,000 reviews.)"""
    pytest.importorskip("torch")
    from korean_bpe.compare.columns import TABLE
    from korean_bpe.compare.table import MARKS

    out = tmp_path / "results"
    proc = run_cli("compare", "--limit", "400", "--strategies",
                   "whitespace/syllable,whitespace/jamo,baseline/syllable,baseline/word", "--vocab-sizes", "1000",
                   "--downstream-seeds", "2", "--no-progress", "-o", str(out),
                   env=_env(tmp_path), cwd=tmp_path)
    assert proc.returncode == 0, proc.stderr
    lines = proc.stdout.splitlines()
    assert lines[0] == "verdict (on 400 held-out documents):"
    # 400 reviews are too few for the classifier (2 steps an epoch: it predicts one class for every
    # review): the choice rests on the probe, and a note says why and what to give it
    assert re.match(r"at 1,000 tokens, choose whitespace/(syllable|jamo): order-blind probe accuracy \d+\.\d\d% \[",
                    lines[1])
    assert "learned nothing: it predicts one class for every document" in proc.stderr
    assert "not candidates: baseline/syllable, a reference point (every character a token); baseline/word, " \
           "a reference point (every 어절 a token)" in " ".join(line.strip() for line in lines)
    start = lines.index("", 1) + 1
    end = lines.index("", start)
    table = lines[start:end]
    assert table[0].split()[:2] == ["strategy", "vocab"] and "down%" in table[0] and len(table) <= 25
    assert max(map(len, lines[:end])) <= 100
    legend = proc.stdout[proc.stdout.index("columns, measured"):]
    headers = {c.header for c in TABLE if c.header}
    for header in table[0].split()[1:]:
        if header in headers:
            assert f"\n  {header} " in legend, header
    for mark in MARKS:
        if mark in "\n".join(table):
            assert f"\n  {mark} " in legend, mark
    report = (out / "report.md").read_text(encoding="utf-8")
    assert "## Verdict" in report and "choose whitespace/" in report and "nsmc-sample: 8,000 Naver" in report
    # 400 reviews (COMPARE_SMALL_CORPUS): the rows run in this process, no worker is spawned for them
    assert "| n_jobs | 1 |" in report
    # the notes on stderr, before where the report went
    assert proc.stderr.index("note:") < proc.stderr.index("--full prints the full table")


def test_full_prints_the_full_table_and_its_intervals(tmp_path: Path) -> None:
    """``--full``: the verdict first, then the full table (its every short column) and its intervals."""
    proc = run_cli("compare", "nsmc-sample", "--limit", "400", "--strategies",
                   "whitespace/syllable,baseline/word", "--vocab-sizes", "1000", "--gold", "none", "--full",
                   "--no-progress", "-o", str(tmp_path / "r"),
                   env=_env(tmp_path), cwd=tmp_path)
    assert proc.returncode == 0, proc.stderr
    lines = proc.stdout.splitlines()
    assert lines[0] == "verdict (on 40 held-out documents):" and "choose whitespace/syllable" in lines[1]
    assert any(line.split()[:4] == ["strategy", "vocab", "tok/doc", "tok/w"] for line in lines)
    assert "bootstrap intervals" in proc.stdout and "probe%" in proc.stdout
    assert "--full prints" not in proc.stderr


def test_default_sizes_are_fitted_to_a_small_corpus(tmp_path: Path) -> None:
    """Without --vocab-sizes, a corpus whose merges run out at 1,668 tokens is compared at 1,000, with a
    note, not at 4,000-16,000 with rows that are 1,668-token models."""
    pd = pytest.importorskip("pandas")
    corpus = tmp_path / "law.txt"
    corpus.write_text("\n".join(iter_texts("constitution", limit=333)) + "\n", encoding="utf-8")
    proc = run_cli("compare", str(corpus), "--strategies", "whitespace/syllable,raw/jamo",
                   "--gold", "none", "--resamples", "0", "--no-progress", "-o", str(tmp_path / "r"),
                   env=_env(tmp_path), cwd=tmp_path)
    assert proc.returncode == 0, proc.stderr
    assert re.search(r"note: vocabulary sizes fitted to the corpus: whitespace BPE runs out of merges at 1,\d{3} "
                     r"tokens here, so the comparison runs at 1,000 instead of 4,000, 8,000, 16,000", proc.stderr)
    df = pd.read_csv(tmp_path / "r" / "table.csv")
    assert df["vocab_size"].tolist() == [1000, 1000] and (df["actual_vocab_size"] == 1000).all()


def test_the_nsmc_task_reads_the_shipped_sample_by_name(tmp_path: Path) -> None:
    pytest.importorskip("torch")
    from korean_bpe.compare.tasks import get_task

    task = get_task({"type": "nsmc", "path": "nsmc-sample", "test_docs": 500})
    assert (len(task.train.texts), len(task.test.texts)) == (8000, 2000) and task.path.name == "nsmc_sample"
    from korean_bpe.cli import main

    assert main(["compare", "--task", "nsmc=nsmc-smaple", "-o", str(tmp_path / "r")]) == 1  # a typo: not found


def test_the_demo_with_an_unlabelled_eval_file_asks_for_no_downstream(tmp_path: Path) -> None:
    """Without a corpus but with --eval of plain text: the sample trains, the file is measured, and the
    downstream stage the demo turns on for its own labelled split is not asked for (no labels there)."""
    held = tmp_path / "held.txt"
    held.write_text("영화 정말 재밌다\n배우 연기가 좋아요\n지루하고 별로였다 ㅠㅠ\n", encoding="utf-8")
    proc = run_cli("compare", "--eval", str(held), "--limit", "300", "--strategies",
                   "whitespace/syllable,baseline/word", "--vocab-sizes", "1000", "--gold", "none",
                   "--no-progress", "-o", str(tmp_path / "r"),
                   env=_env(tmp_path), cwd=tmp_path)
    assert proc.returncode == 0, proc.stderr
    assert "note: labels for only one of CORPUS and --eval: no probe_accuracy" in proc.stderr
    assert "down%" not in proc.stdout and proc.stdout.startswith("verdict (on 3 held-out documents):")
