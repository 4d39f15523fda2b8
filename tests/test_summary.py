"""The verdict across tasks (korean_bpe.compare.summary): ranks, mean ranks with intervals, Kendall's W."""

from __future__ import annotations

import math

import pytest

import _toy_task  # noqa: F401  (registers the toy task "token-count")
from korean_bpe.compare.summary import format_summary, kendalls_w, ranks


def test_kendalls_w_by_hand() -> None:
    # rank sums 2, 5, 5 (mean 4): S = 4 + 1 + 1 = 6; W = 12 * 6 / (2**2 * (3**3 - 3)) = 72 / 96
    assert kendalls_w([[1, 2, 3], [1, 3, 2]]) == pytest.approx(0.75)
    assert kendalls_w([[1, 2], [2, 1], [1, 2]]) == pytest.approx(1 / 9)  # sums 4, 5: S = 0.5; 12*0.5/(9*6)
    assert math.isnan(kendalls_w([[1, 2, 3]]))  # one task: nothing to agree on
    assert ranks([3.0, 1.0, 3.0, 2.0]) == [1.5, 4.0, 1.5, 3.0]


@pytest.fixture(scope="module")
def two_task_run():
    pytest.importorskip("scipy")
    from test_tasks import _texts

    from korean_bpe.compare import Statistics, compare

    return compare(_texts(240), strategies=["whitespace/syllable", "whitespace/jamo", "raw/jamo", "baseline/word"],
                   vocab_sizes=[80], gold=None, show_progress=False, model_cache=False,
                   statistics=Statistics(resamples=200), tasks=["token-count", "noise"])


def test_two_tasks_give_ranks_mean_ranks_and_agreement(two_task_run) -> None:
    (s,) = two_task_run.summary
    assert s.tasks == (("long documents", "long_doc_rate"), ("noise stability", "noise_stability"))
    assert "baseline/word" not in s.strategies and len(s.strategies) == 3  # a reference point is not ranked
    df = two_task_run.table.set_index("strategy")
    for k, (_, metric) in enumerate(s.tasks):  # the ranks are the table's values ranked (lower / higher better)
        lower = metric == "long_doc_rate"
        expect = ranks([df.loc[n, metric] for n in s.strategies], lower_is_better=lower)
        assert [s.ranks[n][k] for n in s.strategies] == expect
    for n in s.strategies:
        assert s.mean_rank[n] == pytest.approx(sum(s.ranks[n]) / 2)
        low, high = s.interval[n]
        assert 1 <= low <= high <= 3 and s.replicates == 200
    assert s.w == pytest.approx(kendalls_w([[s.ranks[n][k] for n in s.strategies] for k in range(2)]))
    assert [s.mean_rank[n] for n in s.strategies] == sorted(s.mean_rank.values())
    text = format_summary(two_task_run.summary, confidence=0.95)
    assert text.startswith("across tasks at 80 tokens (rank 1 = best in the task; 200 replicates):")
    assert "Kendall's W" in text and max(map(len, text.splitlines())) <= 100


def test_the_summary_reaches_the_reports(two_task_run, tmp_path) -> None:
    written = two_task_run.write_report(tmp_path / "r")
    md = written["report.md"].read_text(encoding="utf-8")
    html = written["report.html"].read_text(encoding="utf-8")
    assert "across tasks at 80 tokens" in md and "across tasks at 80 tokens" in html and "Kendall" in html
    assert "not a column of korean_bpe.compare.compare" not in md  # the tasks' columns are defined too
    assert "- `long_doc_rate`: share of held-out documents of more than 20 tokens" in md


def test_one_task_gives_no_summary() -> None:
    from test_tasks import _texts

    from korean_bpe.compare import compare

    run = compare(_texts(120), strategies=["whitespace/syllable", "whitespace/jamo"], vocab_sizes=[80], gold=None,
                  show_progress=False, model_cache=False, tasks=["token-count"])
    assert run.summary == []


def test_the_choice_says_where_it_stands_across_tasks(two_task_run) -> None:
    """A choice rests on one family's evidence; with a summary it also says its mean rank across the
    tasks, and names the best-ranked row when that is another one."""
    (s,) = two_task_run.summary
    (choice,) = two_task_run.choices
    assert choice.strategy in s.mean_rank
    assert choice.across.startswith(f"across the 2 tasks its mean rank is {s.mean_rank[choice.strategy]:.2f} [")
    best = s.strategies[0]
    assert (choice.across.endswith(", the best") if best == choice.strategy
            else f"; {best} ranks best ({s.mean_rank[best]:.2f})" in choice.across)
    assert choice.describe(alpha=0.05).endswith(choice.across)


def test_without_a_summary_the_choice_says_nothing_across_tasks() -> None:
    from test_tasks import _texts

    from korean_bpe.compare import compare

    run = compare(_texts(120), strategies=["whitespace/syllable", "whitespace/jamo"], vocab_sizes=[80], gold=None,
                  show_progress=False, model_cache=False, tasks=["token-count"])
    assert run.choices and all(c.across == "" for c in run.choices)
    assert "across the" not in run.choices[0].describe(alpha=0.05)


def test_a_classifier_that_learned_nothing_is_not_a_task_of_the_summary() -> None:
    """The downstream scores of a model that learned nothing (its accuracy interval reaching down to
    always predicting the most frequent label) rank nothing: with one other task left, no summary."""
    import numpy as np

    from korean_bpe.compare.rows import Row
    from korean_bpe.compare.summary import summarize
    from korean_bpe.compare.tasks import get_task
    from korean_bpe.compare.tasks.downstream import DownstreamTask

    rng = np.random.default_rng(0)
    tasks = [DownstreamTask(), get_task("token-count")]

    def rows(low: float) -> list[Row]:
        out = []
        for k, name in enumerate(["whitespace/syllable", "whitespace/jamo", "raw/jamo"]):
            acc, long = 0.5 + 0.01 * k, 0.2 - 0.01 * k
            out.append(Row({"strategy": name, "kind": "bpe", "vocab_size": 80, "actual_vocab_size": 80, "unk_rate": 0.0,
                            "downstream_accuracy": acc, "downstream_chance": 0.5, "downstream_one_class": False,
                            "downstream_accuracy_ci_low": low, "long_doc_rate": long},
                           replicates={"downstream_accuracy": acc + rng.normal(0, 0.01, 100),
                                       "long_doc_rate": long + rng.normal(0, 0.01, 100)}))
        return out

    (learned,) = summarize(rows(0.7), tasks, confidence=0.95)
    assert [m for _, m in learned.tasks] == ["downstream_accuracy", "long_doc_rate"]
    assert summarize(rows(0.45), tasks, confidence=0.95) == []
