"""The noise task's accuracy drop (korean_bpe.compare.tasks.noise): the row's downstream classifier,
trained once, scored on the clean and the noisy held-out documents, paired; the BPE-dropout
classifier beside it; identity at rate 0, determinism, the same models with or without the
downstream task.  Real PyTorch on toy reviews whose labels lie in their phrases (seconds)."""

from __future__ import annotations

import math

import numpy as np
import pytest

torch = pytest.importorskip("torch")
pytest.importorskip("pandas")

from korean_bpe.compare import Downstream, Statistics, compare  # noqa: E402
from korean_bpe.compare.downstream import fit, predict  # noqa: E402
from korean_bpe.compare.tasks.noise import noise_frame  # noqa: E402
from korean_bpe.noise import perturb  # noqa: E402
from _reviews import labelled_reviews  # noqa: E402  (tests/_reviews.py)

# 300 toy reviews: small batches and a higher rate than the defaults' to learn in 57 steps
SMALL = Downstream(seeds=2, epochs=3, dim=16, batch_size=16, learning_rate=0.02, train_docs=None)
NOISE = {"type": "noise", "perturbations": {"keyboard_typo": 0.3, "wrong_layout": 0.5, "nfd": 0.0}, "dropout": 0.2}
STRATEGIES = ["whitespace/syllable", "whitespace/jamo", "baseline/word"]


TRAIN, TRAIN_LABELS = labelled_reviews(300, 0)
HELD, HELD_LABELS = labelled_reviews(80, 1)


def _run(strategies: list[str], *, downstream: Downstream | None, noise: dict) -> object:
    return compare(TRAIN, eval_texts=HELD, labels=TRAIN_LABELS, eval_labels=HELD_LABELS, strategies=strategies,
                   vocab_sizes=[100], gold=None, show_progress=False, model_cache=False, downstream=downstream,
                   statistics=Statistics(resamples=200), tasks=[noise], keep_segmenters=True)


@pytest.fixture(scope="module")
def run():
    return _run(STRATEGIES, downstream=SMALL, noise=NOISE)


def test_rate_zero_is_the_identity(run):
    df = run.table.set_index("strategy")
    assert (df["noise_nfd_stability"] == 1.0).all()
    assert (df["noise_nfd_accuracy_drop"] == 0.0).all()  # exactly: the same ids, the same models, the same labels
    assert (df.loc[["whitespace/syllable", "whitespace/jamo"], "noise_nfd_dropout_accuracy_drop"] == 0.0).all()
    assert (df["noise_nfd_accuracy_drop_ci_low"] == 0.0).all() and (df["noise_nfd_accuracy_drop_ci_high"] == 0.0).all()


def test_the_drop_is_the_downstream_models_on_the_noisy_documents(run):
    """The downstream task's own classifier (not a second one): its clean accuracy is
    downstream_accuracy, and the drop is that minus its accuracy on the perturbed documents."""
    df = run.table.set_index("strategy")
    held = run.held_out
    labels = np.asarray([HELD_LABELS[HELD.index(t)] for t in held])
    for name in ("whitespace/syllable", "baseline/word"):
        seg = run.segmenters[(name, 100)]
        clean = seg.encode_batch(held)
        classifier = fit(seg.encode_batch(TRAIN), TRAIN_LABELS, settings=SMALL, seed=0, known=clean)
        assert (classifier.predict(clean) == labels).mean() == df.loc[name, "downstream_accuracy"]
        for perturbation, rate in NOISE["perturbations"].items():
            noisy = seg.encode_batch(perturb(held, perturbation, rate=rate, seed=0))
            expected = df.loc[name, "downstream_accuracy"] - (classifier.predict(noisy) == labels).mean()
            assert df.loc[name, f"noise_{perturbation}_accuracy_drop"] == pytest.approx(expected, abs=1e-12)
        assert df.loc[name, "noise_accuracy_drop"] == pytest.approx(
            df.loc[name, [f"noise_{p}_accuracy_drop" for p in NOISE["perturbations"]]].mean())
    # Latin keys for half the 어절 lose a syllable classifier most of what it read
    assert df.loc["whitespace/syllable", "noise_wrong_layout_accuracy_drop"] > 0.05


def test_intervals_tests_and_the_verdict(run):
    df = run.table.set_index("strategy")
    for name in df.index:
        for metric in ("noise_wrong_layout_accuracy_drop", "noise_accuracy_drop"):
            low, high, value = (df.loc[name, f"{metric}{s}"] for s in ("_ci_low", "_ci_high", ""))
            assert low <= value <= high and low < high, (name, metric)
    assert math.isnan(df.loc["whitespace/jamo", "noise_accuracy_drop_p"])  # its own reference (the unit's)
    assert 0 < df.loc["baseline/word", "noise_accuracy_drop_p"] <= 1  # against whitespace/syllable
    assert 0 < df.loc["baseline/word", "noise_accuracy_drop_p_holm"] <= 1
    families = {v.family: v for v in run.verdicts}
    for family in ("noise accuracy drop", "noise accuracy drop (wrong_layout)",
                   "noise accuracy drop with BPE-dropout"):
        v = families[family]
        candidates = df.loc[["whitespace/syllable", "whitespace/jamo"], v.metric]
        assert v.value == candidates.min() and v.best in candidates.index  # the smallest drop is the most robust
    (choice,) = run.choices
    assert choice.evidence.family == "downstream"  # robustness names rows; the choice rests on the classifier


def test_the_dropout_classifier(run):
    """A classifier of the same settings trained on BPE-dropout segmentations: its clean accuracy and
    drops for our BPE's rows; empty, with a note, for a row without dropout."""
    df = run.table.set_index("strategy")
    for name in ("whitespace/syllable", "whitespace/jamo"):
        seg = run.segmenters[(name, 100)]
        clean = seg.encode_batch(run.held_out)
        dropped = seg.encode_dropout(TRAIN, dropout=0.2, seed=0)
        assert dropped != seg.encode_batch(TRAIN)
        labels = np.asarray([HELD_LABELS[HELD.index(t)] for t in run.held_out])
        expected = (predict(dropped, TRAIN_LABELS, clean, settings=SMALL, seed=0) == labels).mean()
        assert df.loc[name, "noise_dropout_accuracy"] == expected
        assert not math.isnan(df.loc[name, "noise_dropout_accuracy_drop"])
    assert df.loc["baseline/word"].filter(like="dropout").isna().all()
    assert "noise: baseline/word is not our BPE and has no BPE-dropout: its noise_dropout_ columns stay empty" \
        in run.notes
    assert run.config["tasks"]["noise"]["dropout"] == 0.2
    # its CPU seconds, dropout classifier included, in the task's column: above the column of a
    # row whose noise work has no second classifier to train
    assert (df["noise_s"] > 0).all()
    assert df.loc["whitespace/syllable", "noise_s"] > df.loc["baseline/word", "noise_s"]
    # of it, the dropout classifier's training: measured for our BPE's rows, none for the others
    bpe = df.loc[["whitespace/syllable", "whitespace/jamo"]]
    assert ((bpe["noise_dropout_s"] > 0) & (bpe["noise_dropout_s"] < bpe["noise_s"])).all()
    assert math.isnan(df.loc["baseline/word", "noise_dropout_s"])


def test_the_same_drop_for_a_seed_with_or_without_the_downstream_task(run):
    """Run again, one strategy, no downstream task: the noise task trains the classifier itself with
    its own settings (the same here), and every accuracy column comes out the same."""
    again = _run(["whitespace/syllable"], downstream=None, noise={**NOISE, "downstream": SMALL.to_config()})
    first = run.table.set_index("strategy").loc["whitespace/syllable"]
    second = again.table.set_index("strategy").loc["whitespace/syllable"]
    names = [c for c in first.index if c.startswith("noise_") and c.endswith(("_drop", "_accuracy"))]
    assert len(names) == 2 * 3 + 3 and math.isnan(second["downstream_accuracy"])  # no downstream task this time
    for c in names:
        assert first[c] == second[c], c


def test_unseen_ids_get_seeded_rows_and_the_clean_predictions_stay():
    train = [[5, 6], [5, 7], [8, 9], [8, 6, 9]] * 25
    labels = [1, 1, 0, 0] * 25
    settings = Downstream(epochs=5, seeds=2, batch_size=8, dim=8)
    classifier = fit(train, labels, settings=settings, seed=3, known=[[5, 7], [8, 9]])
    assert classifier.predict([[5, 7], [8, 9]]).tolist() == \
        predict(train, labels, [[5, 7], [8, 9]], settings=settings, seed=3).tolist()
    unseen = [[5, 700, 701], [8, 702], [703]]
    first = classifier.predict(unseen)
    classifier.predict([[900, 901]])  # an earlier call changes nothing
    assert classifier.predict(unseen).tolist() == first.tolist() and first.shape == (2, 3)


# --- the command line ---------------------------------------------------------------------------------


@pytest.mark.parametrize("spec, perturbations, dropout", [
    ("keyboard_typo:0.2,nfd", {"keyboard_typo": 0.2, "nfd": 0.1}, 0.1),
    (" wrong_layout : 1 , dropout:0.25", {"wrong_layout": 1.0}, 0.25),
    ("dropout:0", None, None),  # every perturbation at 10%, no dropout classifier
])
def test_the_noise_spec(spec, perturbations, dropout):
    from korean_bpe.compare.tasks import NoiseTask
    from korean_bpe.noise import PERTURBATIONS

    task = NoiseTask.from_spec(spec)
    assert task.perturbations == (perturbations or dict.fromkeys(PERTURBATIONS, 0.1)) and task.dropout == dropout


@pytest.mark.parametrize("spec, message", [
    ("keyboard_typo:x", "the rate 'x' of keyboard_typo is not a number; write keyboard_typo:0.2"),
    ("keyboard_typo:1.5", "the rate 1.5 of keyboard_typo must be from 0 to 1, e.g. keyboard_typo:0.2"),
    ("typo", "unknown perturbation 'typo'; choose from spacing_removed, "),
    ("nfd,,initials", "an empty item; write perturbations as name or name:rate separated by commas"),
    ("nfd,nfd:0.2", "nfd given twice; give each once"),
    ("dropout", "dropout needs its rate, e.g. dropout:0.1 (dropout:0 for none)"),
    ("dropout:1", "the rate 1 of dropout must be from 0 to below 1"),
])
def test_bad_noise_specs_are_refused_on_the_command_line(spec, message):
    from korean_bpe.cli.compare import _compare_tasks
    from korean_bpe.cli.common import UserError

    with pytest.raises(UserError) as info:
        _compare_tasks([f"noise={spec}"])
    assert str(info.value).startswith(f"argument --task noise={spec}: noise spec {spec!r}: {message}")


def test_the_command_line_runs_the_chosen_perturbations(tmp_path):
    """``--task noise=SPEC`` on a labelled TSV, in seconds: the chosen columns in table.csv."""
    import pandas as pd

    from _cli import run_cli  # tests/_cli.py

    corpus = tmp_path / "reviews.tsv"
    corpus.write_text("id\tdocument\tlabel\n" + "".join(f"{k}\t{t}\t{y}\n" for k, (t, y) in
                                                         enumerate(zip(TRAIN + HELD, TRAIN_LABELS + HELD_LABELS))),
                      encoding="utf-8")
    proc = run_cli("compare", str(corpus), "--strategies", "whitespace/syllable", "--vocab-sizes", "100",
                   "--gold", "none", "--no-progress", "--no-model-cache", "--jobs", "1", "--downstream",
                   "--downstream-epochs", "1", "--downstream-seeds", "2", "-o", str(tmp_path / "out"),
                   "--task", "noise=wrong_layout:0.5,nfd:0,dropout:0")
    assert proc.returncode == 0, proc.stderr
    table = pd.read_csv(tmp_path / "out" / "table.csv")
    noise = [c for c in table.columns if c.startswith("noise_") and c.endswith(("_stability", "_drop"))]
    assert noise == ["noise_wrong_layout_stability", "noise_wrong_layout_accuracy_drop", "noise_nfd_stability",
                     "noise_nfd_accuracy_drop", "noise_stability", "noise_accuracy_drop"]
    assert table["noise_nfd_accuracy_drop"].iloc[0] == 0.0 and table["noise_nfd_stability"].iloc[0] == 1.0


# --- accessors and the report ---------------------------------------------------------------------------


def test_the_rows_x_perturbations_frame(run):
    drop = run.noise("accuracy_drop", dropout=True)
    assert list(drop.columns) == ["keyboard_typo", "wrong_layout", "nfd", "mean"]
    assert list(drop.index) == ["whitespace/syllable", "whitespace/syllable + BPE-dropout", "whitespace/jamo",
                                "whitespace/jamo + BPE-dropout", "baseline/word"]  # the word baseline has no dropout
    df = run.table.set_index("strategy")
    assert drop.loc["whitespace/jamo + BPE-dropout", "wrong_layout"] == \
        df.loc["whitespace/jamo", "noise_wrong_layout_dropout_accuracy_drop"]
    assert drop.loc["baseline/word", "mean"] == df.loc["baseline/word", "noise_accuracy_drop"]
    stability = run.noise("stability", vocab_size=100)
    assert list(stability.index) == STRATEGIES and (stability["nfd"] == 1.0).all()
    with pytest.raises(ValueError, match="metric must be one of stability, accuracy_drop"):
        run.noise("accuracy")
    with pytest.raises(ValueError, match="no row at vocab_size 200: the table's sizes are 100"):
        run.noise("stability", vocab_size=200)
    with pytest.raises(ValueError, match=r"no noise_<perturbation>_stability column: run compare\(..., tasks="):
        noise_frame(run.table.drop(columns=[c for c in run.table.columns if c.startswith("noise_")]), "stability")


def test_the_heatmaps_are_written_and_placed_in_the_reports(run, tmp_path):
    written = run.write_report(tmp_path / "report")
    assert {"noise.png", "summary.png"} <= set(written)
    for name in ("noise.png", "summary.png"):
        assert written[name].read_bytes()[:8] == b"\x89PNG\r\n\x1a\n" and written[name].stat().st_size > 10_000
    md = written["report.md"].read_text(encoding="utf-8")
    html = written["report.html"].read_text(encoding="utf-8")
    # the ranks under the summary across tasks, in the verdict; the noise heatmap in its own section
    verdict, table = md.index("## Verdict"), md.index("## Table")
    assert verdict < md.index("![Ranks across tasks](summary.png)") < table
    assert table < md.index("## Noise\n\n![Robustness to Korean noise](noise.png)") < md.index("## Plots")
    assert md.count("(noise.png)") == 1 and md.count("(summary.png)") == 1  # not again among the plots
    assert html.index("<h2>Verdict</h2>") < html.index('id="summary.png"') < html.index("<h2>Table</h2>")
    assert html.index("<h2>Noise</h2>") < html.index('id="noise.png"') < html.index("<h2>Plots</h2>")
    assert html.count('src="data:image/png;base64,') == len([n for n in written if n.endswith(".png")])


def test_the_dropout_classifiers_documents_come_from_the_words_table_not_the_analyzer(monkeypatch) -> None:
    """The dropout classifier's training reviews are encoded from the pre-tokenization compare already
    made (the segmenter's words table): the same ids as the tokenizer's own dropout path, and the
    analyzer is not run again (it would cost Kiwi's rows some 8 s on 20,000 reviews)."""
    pytest.importorskip("kiwipiepy")
    from korean_bpe import Tokenizer
    from korean_bpe.compare.segmenters import BPESegmenter

    texts, _ = labelled_reviews(60, 1)
    tok = Tokenizer.train(texts, vocab_size=300, pre_tokenizer="kiwi", show_progress=False)
    seg = BPESegmenter(tok, strategy="kiwi/syllable", pre_tokenizer="kiwi",
                       words=dict(zip(texts, tok.pre_tokenizer.batch(texts))))
    want = tok.encode_batch(texts, disallowed_special=(), dropout=0.3, seed=7)
    assert want != tok.encode_batch(texts, disallowed_special=())  # the dropout shows

    def analyzer_again(*args, **kwargs):
        raise AssertionError("the analyzer ran again")

    monkeypatch.setattr(type(tok.pre_tokenizer), "batch", analyzer_again)
    assert seg.encode_dropout(texts, dropout=0.3, seed=7) == want
    with pytest.raises(AssertionError, match="ran again"):  # a text outside the table: the tokenizer's path
        seg.encode_dropout(texts + ["처음 보는 리뷰"], dropout=0.3, seed=7)
