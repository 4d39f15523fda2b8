"""Tasks as plug-ins (:mod:`korean_bpe.compare.tasks`): a task added as one module with a registration
line (``tests/_toy_task.py``) runs on every row, its columns reach the table and the report, its
metric gets an interval and a p-value; the built-in tasks keep their contract."""

from __future__ import annotations

import math

import pytest

pytest.importorskip("pandas")

from korean_bpe.compare import CompareConfig, Statistics, compare  # noqa: E402
from korean_bpe.compare.tasks import TASKS, BaseTask, HeldOutTask, ProbeTask, Task, get_task  # noqa: E402

from _reviews import MOVIE_REVIEWS  # noqa: E402
import _toy_task  # noqa: E402,F401  # its registration line runs on import

STRATEGIES = ["whitespace/syllable", "whitespace/jamo", "baseline/word"]


def _texts(n: int) -> list[str]:
    """``n`` documents of one to five reviews each, seeded (some long, some short)."""
    import random

    rng = random.Random(0)
    return [" ".join(rng.choice(MOVIE_REVIEWS) for _ in range(rng.randrange(1, 6))) for _ in range(n)]


@pytest.fixture(scope="module")
def toy_run():
    texts = _texts(240)
    return compare(texts, strategies=STRATEGIES, vocab_sizes=[80], gold=None, show_progress=False, model_cache=False,
                   statistics=Statistics(resamples=200), tasks=["token-count"], keep_segmenters=True)


def test_a_registered_task_adds_its_columns_to_every_row(toy_run) -> None:
    df = toy_run.table.set_index("strategy")
    assert list(toy_run.table.columns[-6:]) == ["token_count", "long_doc_rate", "long_doc_rate_ci_low",
                                                "long_doc_rate_ci_high", "long_doc_rate_p", "long_doc_rate_p_holm"]
    held = toy_run.held_out
    for name in STRATEGIES:  # the columns are the task's own computation on the row's ids
        ids = toy_run.segmenters[(name, 80)].encode_batch(held)
        assert df.loc[name, "token_count"] == sum(map(len, ids)) == round(df.loc[name, "tokens_per_doc"] * len(held))
        assert df.loc[name, "long_doc_rate"] == pytest.approx(sum(len(d) > _toy_task.LONG for d in ids) / len(held))
        assert df.loc[name, "long_doc_rate_ci_low"] <= df.loc[name, "long_doc_rate"] <= df.loc[name, "long_doc_rate_ci_high"]
    # the jamo row is compared with whitespace/jamo (itself: no p), the others with whitespace/syllable
    assert math.isnan(df.loc["whitespace/syllable", "long_doc_rate_p"])
    assert 0 < df.loc["baseline/word", "long_doc_rate_p"] <= 1
    assert str(toy_run.table["token_count"].dtype) == "int64"
    assert toy_run.config["tasks"] == {"token-count": None}


def test_a_registered_task_reaches_the_report(toy_run, tmp_path) -> None:
    pytest.importorskip("matplotlib")
    written = toy_run.write_report(tmp_path / "r")
    assert "token_count" in written["table.csv"].read_text(encoding="utf-8").splitlines()[0]
    for name in ("report.md", "report.html"):
        text = written[name].read_text(encoding="utf-8")
        assert "token_count" in text and "long_doc_rate_ci_low" in text, name


def test_a_task_returns_its_notes_once_per_row() -> None:
    texts = ["영화 정말 재밌다 " * 12] * 40  # every document is long
    result = compare(texts, strategies=["baseline/word"], vocab_sizes=[10, 20], gold=None, show_progress=False,
                     model_cache=False, statistics=Statistics(resamples=0), tasks=["token-count"])
    assert result.notes.count("token-count: every held-out document is long") == 2  # one row per size


def test_tasks_are_checked_before_any_work() -> None:
    with pytest.raises(ValueError, match="unknown comparison task 'no-such-task'"):
        CompareConfig(tasks=["no-such-task"])
    with pytest.raises(TypeError, match="not the string"):
        CompareConfig(tasks="token-count")
    with pytest.raises(ValueError, match="tasks must be distinct"):
        CompareConfig(tasks=["probe"])
    with pytest.raises(TypeError, match="a comparison task needs"):
        get_task(object())


def test_the_built_in_tasks_are_tasks_and_registered() -> None:
    assert {"heldout", "probe", "downstream", "token-count"} <= set(TASKS.names())
    for task in (HeldOutTask(), ProbeTask()):
        assert isinstance(task, Task) and isinstance(task, BaseTask)
    config = CompareConfig(strategies=["baseline/word"], probe_train_docs=50)
    assert [t.name for t in config.task_list()] == ["heldout", "probe"]
    assert config.task_list()[1].train_docs == 50
    assert HeldOutTask.metrics == ("tokens_per_doc", "tokens_per_word", "continued_word_rate", "chars_per_token",
                                   "bytes_per_token", "unk_rate", "renyi_efficiency", "morph_precision",
                                   "morph_recall", "morph_f1", "round_trip_rate")


def test_config_overrides_and_replace_check_again() -> None:
    config = CompareConfig(strategies=["baseline/word"], vocab_sizes=[30, 10, 30])
    assert config.vocab_sizes == (10, 30)
    assert config.replace(seed=7).seed == 7 and config.seed == 0
    with pytest.raises(ValueError, match="seed must be an int"):
        config.replace(seed=-1)
    with pytest.raises(TypeError, match="unknown compare option vocab_size;"):
        config.replace(vocab_size=10)
    with pytest.raises(TypeError, match="unknown compare option"):
        compare(["영화 정말 재밌다"] * 30, config=config, vocab_size=10)


def test_the_probe_resamples_its_documents_as_every_metric() -> None:
    """probe_accuracy on a resample: the share of the drawn documents the probe got right (the same
    draws as the held-out metrics: stats.resample_counts of the run's seed)."""
    import numpy as np

    from korean_bpe.compare import stats

    correct = [True] * 30 + [False] * 10
    reps = ProbeTask().replicates(correct, point={}, resamples=50, seed=4)["probe_accuracy"]
    counts = stats.resample_counts(40, resamples=50, seed=4)
    assert reps.tolist() == (counts[:, :30].sum(1) / 40).tolist()
    assert reps.min() < 0.75 < reps.max() and np.isclose(reps.mean(), 0.75, atol=0.05)


def test_a_task_adds_its_family_to_the_verdict(toy_run) -> None:
    from korean_bpe.compare.verdict import format_verdicts

    (found,) = [v for v in toy_run.verdicts if v.family == "long documents"]
    df = toy_run.table.set_index("strategy")
    candidates = df.loc[["whitespace/syllable", "whitespace/jamo"], "long_doc_rate"]
    assert found.metric == "long_doc_rate" and found.value == candidates.min()  # lower is better
    assert df.loc[found.best, "long_doc_rate"] == found.value and found.compared == 2  # the two BPE rows:
    assert list(found.reference_points) == ["baseline/word"]  # words are a reference point, never crowned
    assert found.shown() == f"{found.value * 100:.2f}%"  # the task's own column formats it
    assert "long documents at 80 (long_doc_rate): best" in format_verdicts(toy_run.verdicts, alpha=0.05)
