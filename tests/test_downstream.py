"""The downstream stage (korean_bpe.compare.downstream): small classifiers trained on each row's token
ids, with intervals over the held-out documents and the seeds."""

from __future__ import annotations

import math
import subprocess
import sys

import numpy as np
import pandas as pd
import pytest

torch = pytest.importorskip("torch")

from korean_bpe.compare import Downstream, compare  # noqa: E402
from korean_bpe.compare import stats  # noqa: E402
from korean_bpe.compare.downstream import WARMUP, evaluate, learning_rate, predict  # noqa: E402
from _cli import run_cli  # noqa: E402  (tests/_cli.py)
from _reviews import labelled_reviews  # noqa: E402  (tests/_reviews.py)


# 300 toy reviews: small batches and a higher rate than the defaults' (made for 20,000 reviews) to learn in 57 steps
SMALL = Downstream(seeds=2, epochs=3, dim=16, batch_size=16, learning_rate=0.02, train_docs=None)


@pytest.fixture(scope="module")
def small_run():
    texts, labels = labelled_reviews(300, 0)
    eval_texts, eval_labels = labelled_reviews(80, 1)
    eval_texts[0], eval_texts[1] = "", "。"  # blank documents are dropped; a lone symbol stays
    result = compare(texts, eval_texts=eval_texts, labels=labels, eval_labels=eval_labels,
                     strategies=["whitespace/syllable", "whitespace/jamo", "baseline/word"], vocab_sizes=[100],
                     gold=None, show_progress=False, model_cache=False, downstream=SMALL,
                     statistics=stats_settings())
    return result


def stats_settings():
    from korean_bpe.compare import Statistics

    return Statistics(resamples=200)


def test_compare_reports_downstream_columns_with_intervals_and_p(small_run) -> None:
    df = small_run.table.set_index("strategy")
    for name in df.index:
        acc = df.loc[name, "downstream_accuracy"]
        assert 0.8 <= acc <= 1.0, (name, acc)  # the labels are in the phrases: every model learns them
        low, high = df.loc[name, "downstream_accuracy_ci_low"], df.loc[name, "downstream_accuracy_ci_high"]
        assert low <= acc <= high and low < high or acc == 1.0
        assert 0 <= df.loc[name, "downstream_macro_f1"] <= 1
        assert not math.isnan(df.loc[name, "downstream_seed_sd"])
    # p-values against the reference (whitespace BPE of the row's unit; syllable for the word baseline)
    assert math.isnan(df.loc["whitespace/syllable", "downstream_accuracy_p"])
    assert 0 < df.loc["baseline/word", "downstream_accuracy_p"] <= 1
    assert small_run.config["downstream"]["model"] == "cnn" and small_run.config["downstream"]["seeds"] == 2


def test_rows_with_the_same_ids_share_one_classifier(monkeypatch) -> None:
    """raw and whitespace BPE give the same ids on singly spaced reviews: the process that runs both
    (one group) trains their classifier once, and the two rows get the same scores."""
    from korean_bpe.compare.tasks import downstream as task

    calls = []
    real = task.scored

    def counted(*args, **kwargs):
        calls.append(kwargs.get("seed"))
        return real(*args, **kwargs)

    monkeypatch.setattr(task, "scored", counted)
    texts, labels = labelled_reviews(200, 5)
    run = compare(texts, labels=labels, strategies=["whitespace/syllable", "raw/syllable", "whitespace/jamo"],
                  vocab_sizes=[100], gold=None, show_progress=False, model_cache=False,
                  downstream=Downstream(seeds=1, epochs=2, dim=16, batch_size=16, learning_rate=0.02, train_docs=None))
    df = run.table.set_index("strategy")
    assert df.loc["raw/syllable", "same_as"] == "whitespace/syllable"
    assert len(calls) == 2  # whitespace/syllable (raw/syllable reuses it) and whitespace/jamo
    for column in ("downstream_accuracy", "downstream_macro_f1", "downstream_seed_sd"):
        assert df.loc["raw/syllable", column] == df.loc["whitespace/syllable", column] \
            or math.isnan(df.loc["raw/syllable", column]) and math.isnan(df.loc["whitespace/syllable", column])
    # the seconds each row spent: the lookup is a small part of a training
    assert 0 <= df.loc["raw/syllable", "downstream_s"] < df.loc["whitespace/syllable", "downstream_s"] / 2


def test_a_rerun_reads_the_classifiers_scores_back_and_trains_only_what_a_task_asks(monkeypatch, tmp_path):
    """With the model cache, each row's classifier scores are kept with its model: a rerun on the
    same inputs trains no classifier and gives the same table, downstream_s included (the original
    training's, as train_s); the noise task, which scores perturbed documents, gets a classifier
    trained on its first use, the same models, so the same noise columns.  An entry edited on disk
    is trained again; model_cache=False reads and writes none."""
    import json

    from korean_bpe.compare import downstream as model
    from korean_bpe.compare.tasks import NoiseTask
    from korean_bpe.compare.tasks import downstream as task

    monkeypatch.setenv("KOREAN_BPE_CACHE_DIR", str(tmp_path))
    scorings, fits = [], []
    real_scored, real_fit = task.scored, model.fit
    monkeypatch.setattr(task, "scored", lambda *a, **k: scorings.append(1) or real_scored(*a, **k))
    monkeypatch.setattr(model, "fit", lambda *a, **k: fits.append(1) or real_fit(*a, **k))
    texts, labels = labelled_reviews(300, 0)
    eval_texts, eval_labels = labelled_reviews(80, 1)
    noise = NoiseTask({"spacing_removed": 0.5}, dropout=None)
    kwargs = dict(eval_texts=eval_texts, labels=labels, eval_labels=eval_labels, vocab_sizes=[100], gold=None,
                  strategies=["whitespace/syllable", "whitespace/jamo"], show_progress=False, downstream=SMALL,
                  statistics=stats_settings())

    def run(**more):
        scorings.clear(), fits.clear()
        return compare(texts, **kwargs, **more).table.drop(columns=["pretok_s", "encode_texts_per_s", "model_cached",
                                                                     "noise_s", "probe_s"], errors="ignore")

    first = run(tasks=[noise])
    assert len(scorings) == 2 and first["noise_spacing_removed_accuracy_drop"].notna().all()
    stored = [json.loads(p.read_text()) for p in (tmp_path / "models").glob("*.json")]
    assert sorted(entry["kind"] for entry in stored).count("classifier") == 2
    again = run(tasks=[noise])
    assert scorings == [] and len(fits) == 2  # no scoring; the noise task's two classifiers, trained when asked
    pd.testing.assert_frame_equal(first, again)  # downstream_s and the noise accuracy drops included
    assert run().equals(first.drop(columns=[c for c in first if c.startswith("noise")]))
    assert scorings == [] and fits == []  # no task asked for a classifier: none trained
    for p in (tmp_path / "models").glob("*.json"):  # edited: each classifier entry is trained again
        entry = json.loads(p.read_text())
        if entry["kind"] == "classifier":
            entry["columns"]["downstream_accuracy"] = 0.01
            p.write_text(json.dumps(entry))
    edited = run()
    assert len(scorings) == 2
    pd.testing.assert_frame_equal(edited.drop(columns="downstream_s"),
                                  first.drop(columns=[c for c in first if c.startswith("noise")] + ["downstream_s"]))
    written = sorted(p.stat().st_mtime_ns for p in (tmp_path / "models").glob("*.json"))
    run(model_cache=False)
    assert len(scorings) == 2 and sorted(p.stat().st_mtime_ns for p in (tmp_path / "models").glob("*.json")) == written


def _review_ids() -> tuple[list[list[int]], list[int], list[list[int]]]:
    """(ids, labels) of 120 toy reviews and the ids of 40 others, with a small syllable BPE of them."""
    from korean_bpe import Tokenizer

    texts, labels = labelled_reviews(120, 3)
    tests, _ = labelled_reviews(40, 4)
    tok = Tokenizer.train(texts, vocab_size=100, pre_tokenizer="whitespace", unit="syllable", show_progress=False)
    return tok.encode_batch(texts), labels, tok.encode_batch(tests)


def test_a_deferred_classifier_trains_on_first_use_the_models_fit_gives() -> None:
    from korean_bpe.compare.downstream import DeferredClassifier, fit

    train, labels, test = _review_ids()
    settings = Downstream(seeds=2, epochs=1, dim=8, batch_size=8)
    later = DeferredClassifier(train, labels, settings=settings, seed=5, known=test)
    assert repr(later).startswith("DeferredClassifier(not trained yet") and later.classes == [0, 1]
    now = fit(train, labels, settings=settings, seed=5, known=test)
    assert np.array_equal(later.predict(test), now.predict(test)) and len(later.models) == 2
    assert repr(later).startswith("Classifier(2 models")


def test_same_seed_same_numbers_other_seed_other_models() -> None:
    train, labels, test = _review_ids()
    settings = Downstream(seeds=2, epochs=1, dim=8, batch_size=8)
    a = predict(train, labels, test, settings=settings, seed=5)
    b = predict(train, labels, test, settings=settings, seed=5)
    assert a.shape == (2, 40) and np.array_equal(a, b)
    # seed 6's first model is seed 5's second: the seeds are seed, seed + 1, ...
    c = predict(train, labels, test, settings=Downstream(seeds=1, epochs=1, dim=8, batch_size=8), seed=6)
    assert np.array_equal(c[0], a[1])


def test_identical_documents_are_forwarded_once_and_labelled_alike() -> None:
    from korean_bpe.compare.downstream import fit

    train = [[5, 6], [5, 7], [8, 9], [8, 6, 9]] * 25
    clf = fit(train, [1, 1, 0, 0] * 25, settings=Downstream(epochs=2, seeds=2, batch_size=8, dim=8), seed=0)
    seen: list[int] = []
    hooks = [m.register_forward_hook(lambda m, args, out: seen.append(args[0].shape[0])) for m in clf.models]
    # the noise task's sets: most documents unchanged; identical after the first max_length ids too
    long = [5] * 200
    docs = [[5, 7], [8, 9], [5, 7], [8, 9, 6], [5, 7], long, long + [9], [77_777]]
    got = clf.predict(docs, batch_size=2)
    for h in hooks:
        h.remove()
    assert sum(seen) == 2 * 5  # 5 distinct documents (the two long ones share their first 128 ids), per model
    assert got.shape == (2, 8) and (got[:, 0] == got[:, 2]).all() and (got[:, 0] == got[:, 4]).all()
    assert (got[:, 5] == got[:, 6]).all()
    alone = clf.predict([[5, 7], [8, 9], [8, 9, 6], long, [77_777]])
    assert np.array_equal(got[:, [0, 1, 3, 5, 7]], alone)


def test_the_learning_rate_warms_up_then_follows_a_cosine_to_zero() -> None:
    # the defaults on NSMC: 20,000 reviews in batches of 256, 3 epochs -> 3 x 79 = 237 steps, 24 of warm-up
    steps, peak = 3 * -(-20_000 // 256), Downstream().learning_rate
    assert (steps, peak, WARMUP, round(WARMUP * steps)) == (237, 2e-3, 0.1, 24)
    rates = [learning_rate(k, steps, peak=peak) for k in range(steps)]
    assert rates[0] == pytest.approx(peak / 24) and rates[11] == pytest.approx(peak / 2)  # linear: (k + 1) / 24
    assert rates[23] == rates[24] == pytest.approx(peak)  # the last warm-up step and the cosine's first
    assert rates[24 + 213 // 2] == pytest.approx(peak * (1 + math.cos(math.pi * 106 / 213)) / 2)  # half-way down
    assert rates[-1] == pytest.approx(peak * (1 + math.cos(math.pi * 212 / 213)) / 2) and rates[-1] < 2e-7
    assert all(a < b for a, b in zip(rates[:24], rates[1:24])) and all(a > b for a, b in zip(rates[24:], rates[25:]))
    # a run of one step is all peak; of ten, one step of warm-up
    assert learning_rate(0, 1, peak=0.5) == 0.5
    assert [round(learning_rate(k, 10, peak=1.0), 4) for k in (0, 1, 5, 9)] == [1.0, 1.0, 0.5868, 0.0302]


def test_empty_documents_and_ids_past_65535() -> None:
    train = [[70_000, 70_001], [], [99_999, 3], [3, 70_001]] * 10
    labels = [1, 0, 0, 1] * 10
    out = predict(train, labels, [[], [70_000, 70_001], [123_456]], settings=Downstream(seeds=1, epochs=20, dim=8, batch_size=8),
                  seed=0)
    assert out.shape == (1, 3) and set(out[0].tolist()) <= {0, 1}
    assert out[0, 0] == 0  # an empty document is the one token 'empty', labelled 0 in training


def test_transformer_family_runs_and_learns() -> None:
    texts, labels = labelled_reviews(200, 7)
    tests, test_labels = labelled_reviews(60, 8)
    from korean_bpe import Tokenizer

    tok = Tokenizer.train(texts, vocab_size=100, pre_tokenizer="whitespace", unit="syllable", show_progress=False)
    row, evidence = evaluate(tok.encode_batch(texts), labels, tok.encode_batch(tests), test_labels,
                             settings=Downstream(model="transformer", seeds=1, epochs=6, dim=16, batch_size=16), seed=0)
    assert row["downstream_accuracy"] >= 0.8 and math.isnan(row["downstream_seed_sd"])  # one seed: no spread
    assert evidence["predictions"].shape == (1, 60)


def test_labels_missing_or_one_class_are_refused() -> None:
    texts, labels = labelled_reviews(40, 0)
    with pytest.raises(ValueError, match="downstream needs labels"):
        compare(texts, strategies=["whitespace/syllable"], vocab_sizes=[40], gold=None, show_progress=False,
                model_cache=False, downstream=SMALL)
    with pytest.raises(ValueError, match="single class"):
        predict([[1, 2], [2, 3]], [1, 1], [[1]], settings=SMALL)
    with pytest.raises(ValueError, match="one label per training document"):
        predict([[1, 2], [2, 3]], [1], [[1]], settings=SMALL)
    with pytest.raises(TypeError, match="korean_bpe.compare.Downstream"):
        compare(texts, labels=labels, strategies=["whitespace/syllable"], vocab_sizes=[40], gold=None,
                show_progress=False, downstream="cnn")


@pytest.mark.parametrize("bad, match", [
    (dict(model="lstm"), "use one of 'cnn', 'transformer'"),
    (dict(seeds=0), "seeds=0"),
    (dict(train_docs=1), "train_docs=1"),
    (dict(device="tpu"), "device='tpu'"),
    (dict(model="transformer", dim=30), "multiple of 4"),
])
def test_bad_settings_name_the_option(bad, match) -> None:
    with pytest.raises(ValueError, match=match):
        Downstream(**bad)


def test_missing_torch_gives_the_install_hint(monkeypatch, tmp_path) -> None:
    monkeypatch.setitem(sys.modules, "torch", None)  # the fault: torch cannot be imported
    texts, labels = labelled_reviews(40, 0)
    with pytest.raises(ImportError, match=r'pip install "korean_bpe\[downstream\]"'):
        compare(texts, labels=labels, strategies=["whitespace/syllable"], vocab_sizes=[40], gold=None,
                show_progress=False, downstream=SMALL)
    # the CLI says it before reading the corpus, without a traceback
    code = ("import sys; sys.modules['torch'] = None; from korean_bpe.cli import main; "
            "sys.exit(main(['compare', 'no-such-corpus.txt', '--downstream', '-o', %r]))" % str(tmp_path / "out"))
    proc = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=120)
    assert proc.returncode != 0 and "korean_bpe[downstream]" in proc.stderr and "Traceback" not in proc.stderr


def test_seed_document_metrics_match_sklearn_per_seed() -> None:
    from sklearn.metrics import f1_score

    rng = np.random.default_rng(0)
    truth = rng.integers(0, 3, size=50)
    pred = np.where(rng.random((3, 50)) < 0.7, truth, rng.integers(0, 3, size=(3, 50)))
    m = stats.seed_document_metrics(pred, truth, np.array([0, 1, 2]))
    assert m["downstream_accuracy"] == pytest.approx(float((pred == truth).mean()))
    assert m["downstream_macro_f1"] == pytest.approx(np.mean([f1_score(truth, p, average="macro") for p in pred]))


def test_two_stage_bootstrap_draws_documents_and_seeds() -> None:
    truth = np.array([1, 0, 1, 0, 1, 0, 1, 0])
    good = np.array([truth, truth])  # two seeds, every document right
    mixed = np.array([truth, 1 - truth])  # seed 0 right everywhere, seed 1 wrong everywhere
    down = {"predictions": mixed, "truth": truth, "classes": np.array([0, 1])}
    reps = stats.seed_document_replicates(down, resamples=400, seed=0)["downstream_accuracy"]
    # a resample's accuracy is the share of seed 0 among its drawn seeds: 0, 1/2 or 1
    assert set(np.round(reps, 6).tolist()) <= {0.0, 0.5, 1.0} and {0.0, 1.0} <= set(reps.tolist())
    same = stats.seed_document_replicates({**down, "predictions": good}, resamples=400, seed=0)
    assert np.all(same["downstream_accuracy"] == 1.0)
    assert stats.paired_p(reps, reps) == 1.0
    # the seeds are drawn alike for every row: the same settings give the same draws
    assert np.array_equal(stats.seed_counts(2, resamples=400, seed=0), stats.seed_counts(2, resamples=400, seed=0))


def test_verdict_puts_downstream_first_and_the_report_shows_it(small_run, tmp_path) -> None:
    families = [v.family for v in small_run.verdicts]
    assert families[0] == "downstream" and "probe (order-blind)" in families
    first = small_run.verdicts[0]
    df = small_run.table.set_index("strategy")
    best = df.loc[df["kind"] != "baseline", "downstream_accuracy"].max()  # a reference point is never best
    assert first.value == best and df.loc[first.best, "downstream_accuracy"] == best and first.tied[0] == first.best
    written = small_run.write_report(tmp_path / "r")
    md = (tmp_path / "r" / "report.md").read_text(encoding="utf-8")
    assert "downstream.png" in written and md.index("## Verdict") < md.index("## Table")
    assert f"**downstream** at 100 (`downstream_accuracy`): best `{first.best}`" in md
    html = (tmp_path / "r" / "report.html").read_text(encoding="utf-8")
    assert "<h2>Verdict</h2>" in html and 'id="downstream.png"' in html


def test_cli_downstream_prints_the_block_and_the_verdict(tmp_path) -> None:
    texts, labels = labelled_reviews(200, 2)
    corpus = tmp_path / "reviews.tsv"
    corpus.write_text("id\tdocument\tlabel\n" + "".join(f"{i}\t{t}\t{y}\n" for i, (t, y) in
                                                       enumerate(zip(texts, labels))), encoding="utf-8")
    proc = run_cli("compare", str(corpus), "--strategies", "whitespace/syllable,raw/syllable,baseline/word",
                   "--vocab-sizes", "100", "--gold", "none", "--downstream", "--downstream-seeds", "2",
                   "--downstream-epochs", "12", "--jobs", "1", "--no-progress", "-o", str(tmp_path / "out"), "--full")
    assert proc.returncode == 0, proc.stderr
    out = proc.stdout
    # 12 epochs: in 3 (a step each on these 160 reviews) the model learns nothing, and the verdict leaves it out
    assert "downstream: cnn (dim 64, 12 epochs, batch 256, lr 0.002 warm-up + cosine" in out and "2 seeds" in out \
        and "on cpu" in out
    block = out[out.index("down% [interval]"):].splitlines()
    assert block[1].split()[:2] == ["whitespace/syllable(ref)", "100"] and block[3].split()[0] == "baseline/word"
    assert out.startswith("verdict (on ") and "downstream at 100 (downstream_accuracy): best" in out
    assert max(map(len, out.splitlines())) <= 100
    legend = out[out.index("columns of the printed table"):]
    assert all(f"\n  {h} " in legend for h in ("down%", "dF1%", "seed sd", "probe%"))  # every printed header
    proc = run_cli("compare", str(tmp_path / "plain.txt"), "--downstream", "-o", str(tmp_path / "o2"))
    assert proc.returncode != 0


def test_a_classifier_that_learned_nothing_is_noted_and_not_the_verdicts_evidence() -> None:
    """A model that learned nothing (one class for every held-out document: one step of training, as
    3 epochs of 1,500 reviews in batches of 256 gave) says nothing of the tokens: its rows are left
    out of the downstream verdict, and a note says so and what to change."""
    import numpy as np

    from korean_bpe.compare import columns
    from korean_bpe.compare.assemble import build_frame
    from korean_bpe.compare.downstream import scored
    from korean_bpe.compare.rows import Row
    from korean_bpe.compare.tasks.downstream import DownstreamTask
    from korean_bpe.compare.verdict import verdicts

    train, labels = [[5, 6], [5, 7], [8, 9], [8, 6, 9]] * 25, [1, 1, 0, 0] * 25
    test, truth = [[5, 7], [8, 9], [6, 9], [5]], [1, 0, 0, 1]
    blind, _, _ = scored(train, labels, test, truth, settings=Downstream(epochs=1, seeds=2, batch_size=256), seed=0)
    learned, _, _ = scored(train, labels, test, truth, settings=Downstream(epochs=5, seeds=2, batch_size=8), seed=0)
    assert blind["downstream_one_class"] is True and blind["downstream_accuracy"] == 0.5
    assert learned["downstream_one_class"] is False and learned["downstream_accuracy"] == 1.0

    rng = np.random.default_rng(0)

    def row(name: str, columns: dict, reference: str) -> Row:
        # a one-class row at 0.5 would still be crowned over a learned row on these replicates if it
        # were a candidate: the learned rows' replicates sit lower
        center = 0.9 if columns is blind else 0.6
        return Row({"strategy": name, "kind": "bpe", "vocab_size": 1000, "actual_vocab_size": 1000, "unk_rate": 0.0,
                    **columns, "downstream_accuracy": center}, reference=reference,
                   replicates={"downstream_accuracy": center + rng.normal(0, 0.01, 400)})

    rows = [row("whitespace/syllable", blind, "whitespace/syllable"), row("raw/syllable", blind, "whitespace/syllable"),
            row("whitespace/jamo", learned, "whitespace/syllable"), row("raw/jamo", learned, "whitespace/syllable")]
    names, dtypes = columns.task_columns([])
    for r in rows:  # the table's integer columns, which these hand-made rows do not measure
        r.columns.update({name: 0 for name in names if name not in r.columns and str(dtypes[name]).startswith("int")})
    notes: list[str] = []
    build_frame(rows, [DownstreamTask()], confidence=0.95, reference=None, notes=notes, resamples=400)
    (note,) = [n for n in notes if "learned nothing" in n]
    assert note.startswith("downstream at vocabulary size 1,000: the classifier of whitespace/syllable, raw/syllable "
                           "learned nothing: it predicts one class for every document")
    assert "--downstream-epochs" in note and "left out of the verdict" in note
    (found,) = [v for v in verdicts(rows, [DownstreamTask()], alpha=0.05) if v.family == "downstream"]
    assert found.compared == 2 and found.best in ("whitespace/jamo", "raw/jamo")
    assert set(found.reference_points) == set()  # left out as unfair evidence, not as a reference point
    # without the flags the one-class rows win: the test above is not vacuous
    for r in rows:
        r.columns["downstream_one_class"] = False
        r.columns.pop("downstream_chance")
    (found,) = [v for v in verdicts(rows, [DownstreamTask()], alpha=0.05) if v.family == "downstream"]
    assert found.best == "whitespace/syllable" and found.compared == 4


def test_a_classifier_not_above_the_most_frequent_label_learned_nothing() -> None:
    """Not one class, yet no better than always predicting the most frequent training label (its
    accuracy interval reaches down to that share): as good as nothing learned, not the verdict's
    evidence; a row whose interval clears it is."""
    from korean_bpe.compare.verdict import unlearned

    near = {"downstream_one_class": False, "downstream_chance": 0.5075, "downstream_accuracy": 0.4992,
            "downstream_accuracy_ci_low": 0.456}
    learned = {**near, "downstream_accuracy": 0.7973, "downstream_accuracy_ci_low": 0.7815}
    assert "always predicting the most frequent label" in unlearned(near)["downstream"]
    assert unlearned(learned) == {} and unlearned({**near, "downstream_chance": math.nan}) == {}
    # a task's renamed columns (the nsmc task's classifier) are read the same way
    assert set(unlearned({k.replace("downstream", "nsmc"): v for k, v in near.items()})) == {"nsmc"}
