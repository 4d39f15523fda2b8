"""The NSMC task (:mod:`korean_bpe.compare.tasks.nsmc`): its reader's errors on NSMC-format files,
the task on a small directory in seconds (deterministic for a seed, intervals, the test sample),
``--task nsmc=DIR`` on the command line, and the real NSMC (``../shared/corpora/nsmc`` or
``$KOREAN_BPE_NSMC_DIR``) where it is present."""

from __future__ import annotations

import sys

import pytest

pytest.importorskip("pandas")

from korean_bpe.compare import Downstream, Statistics, compare  # noqa: E402
from korean_bpe.compare.tasks import TASKS, ClassificationTask, NsmcTask, Task, get_task  # noqa: E402
from korean_bpe.compare.tasks.nsmc import read_reviews  # noqa: E402
from korean_bpe.corpus import CorpusError, nsmc_dir  # noqa: E402

HEADER = "id\tdocument\tlabel"
GOOD = ["연기 최고 감동 명작", "정말 재밌다 최고", "감동 두 번 봐도 명작", "배우 연기 최고"]
BAD = ["지루하고 최악 시간 낭비", "돈 아깝다 최악", "스토리 엉망 지루함", "졸작 시간 낭비"]
SMALL = Downstream(seeds=2, epochs=3, dim=8, batch_size=8, learning_rate=0.02)  # 160 reviews: 20 steps an epoch


def _write_nsmc(directory, *, train_rows: int = 160, test_rows: int = 60, one_class: bool = False,
                names: tuple[str, str] = ("ratings_train.txt", "ratings_test.txt")) -> None:
    """A tiny NSMC-format directory: good reviews labelled 1, bad ones 0."""
    directory.mkdir(parents=True, exist_ok=True)
    for name, n in zip(names, (train_rows, test_rows)):
        lines = [HEADER]
        for k in range(n):
            bad = k % 2 and not one_class
            lines.append(f"{1000 + k}\t{(BAD if bad else GOOD)[k % 4]}\t{0 if bad else 1}")
        (directory / name).write_text("\n".join(lines) + "\n", encoding="utf-8")


# -- the reader -----------------------------------------------------------------------------------


def test_the_review_reader_reads_nsmc_as_it_is(tmp_path) -> None:
    path = tmp_path / "ratings_test.txt"
    path.write_text(f'{HEADER}\n1\t"굿 ㅋㅋ\t1\n2\tNA\t0\n3\t \t1\n4\tnull\t1\n', encoding="utf-8")
    got = read_reviews(path)  # a quote opens no quoted field, NA and null are reviews, a blank review is skipped
    assert (got.texts, got.labels, got.path) == (['"굿 ㅋㅋ', "NA", "null"], ["1", "0", "1"], path)


def test_the_review_reader_refuses_what_it_cannot_read(tmp_path) -> None:
    with pytest.raises(CorpusError, match="ratings_train.txt not found: the NSMC task needs"):
        read_reviews(tmp_path / "ratings_train.txt")
    (tmp_path / "a.txt").write_text("id\tdocument\n1\t좋다\n", encoding="utf-8")
    with pytest.raises(CorpusError, match=r"a.txt has no label column 'label': its columns are id, document"):
        read_reviews(tmp_path / "a.txt")
    (tmp_path / "b.txt").write_text("id\treview\tlabel\n1\t좋다\t1\n", encoding="utf-8")
    with pytest.raises(CorpusError, match=r"b.txt has no text column 'document': its columns are id, review, label"):
        read_reviews(tmp_path / "b.txt")
    (tmp_path / "c.txt").write_text(f"{HEADER}\n1\t좋다\t1\n2\t나쁘다\t0\textra\n", encoding="utf-8")
    with pytest.raises(CorpusError, match=r"c.txt: malformed table: line 3, .*more than the 3 of the header"):
        read_reviews(tmp_path / "c.txt")
    (tmp_path / "d.txt").write_text(f"{HEADER}\n1\t좋다\t1\n2\t나쁘다\n", encoding="utf-8")
    with pytest.raises(CorpusError, match=r"d.txt: the review '나쁘다' has an empty 'label' label"):
        read_reviews(tmp_path / "d.txt")
    (tmp_path / "e.txt").write_text(f"{HEADER}\n", encoding="utf-8")
    with pytest.raises(CorpusError, match="the corpus is empty"):
        read_reviews(tmp_path / "e.txt")


# -- the task -------------------------------------------------------------------------------------


def test_the_nsmc_task_refuses_before_any_work(tmp_path, monkeypatch) -> None:
    _write_nsmc(tmp_path / "one", one_class=True)
    with pytest.raises(ValueError, match="every training review has the label '1' in column 'label'.*both labels"):
        NsmcTask(tmp_path / "one")
    _write_nsmc(tmp_path / "half")
    (tmp_path / "half" / "ratings_test.txt").unlink()
    with pytest.raises(CorpusError, match="ratings_test.txt not found"):
        NsmcTask(tmp_path / "half")
    with pytest.raises(CorpusError, match="is a file: give the directory holding ratings_train.txt and ratings_test"):
        NsmcTask(tmp_path / "half" / "ratings_train.txt")
    with pytest.raises(ValueError, match=r"test_docs=...\) must be an integer of 2 or more .* or None"):
        NsmcTask(tmp_path / "one", test_docs=0)
    with pytest.raises(TypeError, match=r"NsmcTask\(downstream=...\) must be a korean_bpe.compare.Downstream"):
        NsmcTask(tmp_path / "one", downstream="cnn")
    monkeypatch.setitem(sys.modules, "torch", None)  # torch absent: the install line
    _write_nsmc(tmp_path / "ok")
    with pytest.raises(ImportError, match=r'pip install "korean_bpe\[downstream\]"'):
        NsmcTask(tmp_path / "ok")


def test_the_nsmc_task_is_a_registered_task(tmp_path) -> None:
    pytest.importorskip("torch")
    _write_nsmc(tmp_path)
    task = get_task({"type": "nsmc", "path": str(tmp_path), "test_docs": 40, "downstream": {"seeds": 2}})
    assert isinstance(task, Task) and isinstance(task, ClassificationTask) and "nsmc" in TASKS.names()
    assert task.labels == "unused" and task.verdict == (("sentiment (NSMC)", "nsmc_accuracy"),)
    config = task.to_config()
    assert (config["label"], config["classes"], config["train_reviews"], config["test_reviews"], config["test_docs"]) \
        == ("label", ["0", "1"], 160, 60, 40)
    assert config["downstream"]["seeds"] == 2 and NsmcTask(tmp_path).test_docs == 10_000
    # a sample's file pair (train.tsv / test.tsv, the shipped sample's names) does as well
    _write_nsmc(tmp_path / "sample", train_rows=20, test_rows=10, names=("train.tsv", "test.tsv"))
    sample = NsmcTask(tmp_path / "sample")
    assert (len(sample.train.texts), len(sample.test.texts), sample.train.path.name) == (20, 10, "train.tsv")


@pytest.fixture(scope="module")
def nsmc_run(tmp_path_factory):
    pytest.importorskip("torch")
    directory = tmp_path_factory.mktemp("nsmc")
    _write_nsmc(directory)
    task = NsmcTask(directory, test_docs=40, downstream=SMALL)

    def run():
        return compare((GOOD + BAD) * 30, strategies=["baseline/syllable", "baseline/word"], vocab_sizes=[300],
                       gold=None, show_progress=False, model_cache=False, n_jobs=1, keep_segmenters=True,
                       statistics=Statistics(resamples=200, reference="baseline/syllable"), tasks=[task])

    return run(), run


def test_the_nsmc_task_measures_each_row_deterministically(nsmc_run) -> None:
    result, run = nsmc_run
    df = result.table.set_index("strategy")
    # the words of the toy reviews (the corpus holds them) separate the two classes: every test review right
    assert df.loc["baseline/word", "nsmc_accuracy"] == 1.0 and df.loc["baseline/word", "nsmc_macro_f1"] == 1.0
    for name in ("baseline/syllable", "baseline/word"):
        for metric in ("nsmc_accuracy", "nsmc_macro_f1"):
            assert df.loc[name, f"{metric}_ci_low"] <= df.loc[name, metric] <= df.loc[name, f"{metric}_ci_high"]
        assert df.loc[name, "nsmc_s"] > 0 and df.loc[name, "nsmc_seed_sd"] >= 0
    assert 0 < df.loc["baseline/word", "nsmc_accuracy_p"] <= 1  # tested against baseline/syllable's reference
    assert result.config["tasks"]["nsmc"]["test_docs"] == 40
    # each row scores the same seeded 40 of the 60 test reviews
    from korean_bpe.compare.heldout import HeldOut
    from korean_bpe.compare.rows import RowInput

    task = NsmcTask(result.config["tasks"]["nsmc"]["path"], test_docs=40, downstream=SMALL)
    truths = []
    for strategy in ("baseline/syllable", "baseline/word"):
        row = RowInput(strategy, 300, result.segmenters[strategy, 300], HeldOut(["좋다"], None), [[0]], None, seed=0)
        truths.append(task.measure(row).evidence["truth"])
    assert truths[0].size == 40 and truths[0].tolist() == truths[1].tolist()
    again = run().table
    cols = ["nsmc_accuracy", "nsmc_macro_f1", "nsmc_accuracy_ci_low", "nsmc_accuracy_ci_high", "nsmc_accuracy_p"]
    assert again[cols].equals(result.table[cols])  # the same seed: the same numbers


# -- the command line -----------------------------------------------------------------------------


def test_the_cli_runs_the_nsmc_task_in_seconds(tmp_path) -> None:
    pytest.importorskip("torch")
    from test_cli import fails, ok

    _write_nsmc(tmp_path / "nsmc", train_rows=120, test_rows=40)
    corpus = tmp_path / "reviews.txt"
    corpus.write_text("\n".join((GOOD + BAD) * 25) + "\n", encoding="utf-8")
    proc = ok("compare", str(corpus), "--strategies", "baseline/word", "--vocab-sizes", "300", "--gold", "none",
              "--no-progress", "--no-model-cache", "--jobs", "1", "-o", str(tmp_path / "out"),
              "--task", f"nsmc={tmp_path / 'nsmc'}", here=True)
    assert "task nsmc (95% intervals)" in proc.stdout
    import pandas as pd

    table = pd.read_csv(tmp_path / "out" / "table.csv")
    assert len(table) == 1 and table["nsmc_accuracy"].iloc[0] == 1.0
    low, value, high = (table[c].iloc[0] for c in ("nsmc_macro_f1_ci_low", "nsmc_macro_f1", "nsmc_macro_f1_ci_high"))
    assert low <= value <= high
    _write_nsmc(tmp_path / "one", one_class=True)
    line = fails("compare", str(corpus), "-o", str(tmp_path / "out2"), "--task", f"nsmc={tmp_path / 'one'}", here=True)
    assert "argument --task nsmc=" in line and "every training review has the label '1'" in line


# -- the real data, where present ------------------------------------------------------------------


@pytest.mark.skipif(nsmc_dir() is None, reason="NSMC not in ../shared/corpora/nsmc (or $KOREAN_BPE_NSMC_DIR)")
def test_nsmc_as_published(tmp_path) -> None:
    pytest.importorskip("torch")
    task = NsmcTask(test_docs=300, downstream=Downstream(seeds=1, train_docs=5000))  # ~10 s
    assert (len(task.train.texts), len(task.test.texts), task.classes) == (165_320, 55_106, ["0", "1"])
    assert task.test.texts[1] == "안봐야 할 영화는 너무 많다." and task.test.labels[:2] == ["0", "0"]
    result = compare(task.train.texts[:3000], strategies=["whitespace/syllable"], vocab_sizes=[2000], gold=None,
                     show_progress=False, model_cache=False, statistics=Statistics(resamples=200), tasks=[task])
    row = result.table.iloc[0]
    assert 0.7 < row["nsmc_accuracy"] < 1 and row["nsmc_accuracy_ci_low"] < row["nsmc_accuracy"]  # 0.82 on 300
    assert result.config["tasks"]["nsmc"]["test_docs"] == 300
