"""The language-modelling task (:mod:`korean_bpe.compare.tasks.lm`): bits per byte against hand-computed
cases (a uniform model: ``n_tokens * log2(V) / n_bytes``), unknown tokens charged 8 bits a byte, rows
that drop or change text left without a value and a note, clear errors for empty input, a vocabulary
above 65,535, determinism for a seed, and ``--task lm`` on the command line in seconds."""

from __future__ import annotations

import math

import pytest

pytest.importorskip("pandas")
torch = pytest.importorskip("torch")

from korean_bpe.compare import Statistics, compare  # noqa: E402
from korean_bpe.compare.heldout import HeldOut  # noqa: E402
from korean_bpe.compare.rows import RowInput  # noqa: E402
from korean_bpe.compare.segmenters import BaselineSegmenter, BPESegmenter  # noqa: E402
from korean_bpe.compare.tasks import TASKS, LmSettings, LmTask, Task, get_task  # noqa: E402
from korean_bpe.compare.tasks.lm import (  # noqa: E402
    bits_per_byte, document_bits, document_log_probs, train_model, unknown_bytes,
)
from korean_bpe.corpus import CorpusError  # noqa: E402

from _reviews import MOVIE_REVIEWS  # noqa: E402

#: a model small enough for a test: a second or two a row
SMALL = LmSettings(tokens=3000, dim=16, batch_size=16)


def _texts(n: int, seed: int = 0) -> list[str]:
    import random

    rng = random.Random(seed)
    return [" ".join(rng.choice(MOVIE_REVIEWS) for _ in range(rng.randrange(1, 3))) for _ in range(n)]


def _row(seg, held: list[str], train: list[str], *, drops_text: bool = False) -> RowInput:
    return RowInput(seg.strategy, seg.vocab_size, seg, HeldOut(held, None), seg.encode_batch(held), None, 0,
                    drops_text=drops_text, train_texts=train)


# -- the scoring, by hand -------------------------------------------------------------------------


def test_a_uniform_model_costs_log2_v_bits_a_token() -> None:
    # three documents of 2, 0 and 3 tokens (each scored with its EOS: 3 + 1 + 4 = 8 predictions) over
    # V = 1000 ids, "영화" (6 bytes), "" (0) and "정말 좋다" (13 bytes): 8 log2(1000) / 19 bits a byte
    texts, n_tokens = ["영화", "", "정말 좋다"], [3, 1, 4]
    log_probs = [[-math.log(1000)] * n for n in n_tokens]
    bits = [document_bits(lp) for lp in log_probs]
    n_bytes = [len(t.encode("utf-8")) for t in texts]
    assert n_bytes == [6, 0, 13]
    assert bits_per_byte(bits, n_bytes) == pytest.approx(8 * math.log2(1000) / 19, rel=1e-12)
    assert bits[1] == pytest.approx(math.log2(1000))  # an empty document still pays its EOS


def test_an_unknown_token_pays_8_bits_a_byte_of_what_it_stands_for() -> None:
    # "영화 😀 최고": the emoji (4 bytes) is <unk> (id 0), the Hangul 3 bytes a syllable
    text = "영화 😀 최고"
    assert unknown_bytes(text, [7, 0, 8], [(0, 2), (3, 4), (5, 7)], frozenset({0})) == 4
    assert unknown_bytes(text, [0, 0, 8], [(0, 2), (0, 2), (5, 7)], frozenset({0})) == 6  # counted once
    assert document_bits([math.log(0.5)] * 3, unknown_bytes=4) == 3 + 32


def test_scoring_a_model_whose_probabilities_are_known() -> None:
    # every weight zero: the logits are all 0, the model uniform over the V + 1 ids (vocabulary and
    # boundary), so each document costs (its tokens + EOS) x log2(V + 1) bits
    vocab = 50
    model = train_model([[1, 2, 3]], vocab_size=vocab, settings=SMALL, seed=0)
    with torch.no_grad():
        for p in model.parameters():
            p.zero_()
    docs = [[5, 6, 7, 8], [], [49]]
    log_probs = document_log_probs(model, docs, vocab_size=vocab, settings=SMALL)
    assert [len(lp) for lp in log_probs] == [5, 1, 2]
    expected = 8 * math.log2(vocab + 1)
    assert sum(document_bits(lp) for lp in log_probs) == pytest.approx(expected, rel=1e-12)


def test_a_trained_model_beats_the_uniform_one_on_its_pattern() -> None:
    docs = [[1, 2, 3, 4]] * 50
    model = train_model(docs, vocab_size=10, settings=LmSettings(tokens=4000, max_passes=100, dim=16, learning_rate=0.01),
                        seed=0)
    bits = document_bits(document_log_probs(model, [[1, 2, 3, 4]], vocab_size=10, settings=SMALL)[0])
    assert bits < 0.5 * 5 * math.log2(11)  # under half of what a uniform model pays


def test_the_budget_is_tokens_or_passes_whichever_ends_first() -> None:
    docs = [[1, 2, 3]] * 10  # 4 predictions a document (EOS included): 40 a pass
    assert train_model(docs, vocab_size=5, settings=LmSettings(tokens=100, dim=8, batch_size=5),
                       seed=0).trained_tokens == 100  # five batches of 20
    assert train_model(docs, vocab_size=5, settings=LmSettings(tokens=10_000, dim=8, max_passes=3),
                       seed=0).trained_tokens == 120  # three passes


# -- errors and edges -----------------------------------------------------------------------------


def test_empty_input_is_a_clear_error(tmp_path) -> None:
    with pytest.raises(ValueError, match="hold no byte of text"):
        bits_per_byte([1.0], [0])
    with pytest.raises(ValueError, match="no training token"):
        train_model([[], []], vocab_size=10, settings=SMALL)
    (tmp_path / "empty.txt").write_text("\n  \n", encoding="utf-8")
    with pytest.raises(CorpusError, match="empty.txt"):
        LmTask(tmp_path / "empty.txt")
    with pytest.raises(CorpusError, match="is a directory"):
        LmTask(tmp_path)
    with pytest.raises(ValueError, match=r"id 10 outside the vocabulary of 10 ids \(0 to 9\)"):
        train_model([[1, 10]], vocab_size=10, settings=SMALL)
    with pytest.raises(ValueError, match=r"LmSettings\(dim=1\): must be an int >= 2"):
        LmSettings(dim=1)
    with pytest.raises(TypeError, match="LmTask\\(settings=...\\) must be"):
        LmTask(settings=3)


def test_a_vocabulary_above_65535_works() -> None:
    vocab = 70_000
    docs = [[69_999, 65_536, 3], [65_535, 69_998]] * 4
    model = train_model(docs, vocab_size=vocab, settings=LmSettings(tokens=200, dim=8), seed=0)
    assert model.embed.weight.shape == (vocab + 1, 8)
    log_probs = document_log_probs(model, [[69_999, 65_536]], vocab_size=vocab, settings=SMALL)
    assert len(log_probs[0]) == 3 and all(lp < 0 for lp in log_probs[0])


def test_a_row_that_drops_text_gets_no_value_and_a_note() -> None:
    texts = _texts(60)
    seg = BaselineSegmenter.train(texts, unit="syllable", vocab_size=300)
    got = LmTask(settings=SMALL).measure(_row(seg, texts[:30], texts[30:], drops_text=True))
    assert math.isnan(got.columns["lm_bits_per_byte"]) and got.evidence is None
    assert got.notes and "drops text (analysis mode)" in got.notes[0]


def test_a_row_that_decodes_to_other_text_gets_no_value_and_a_note() -> None:
    from korean_bpe import Tokenizer

    texts = _texts(60)
    tok = Tokenizer.train(texts, vocab_size=300, pre_tokenizer="whitespace", unit="syllable", show_progress=False)
    seg = BPESegmenter(tok, strategy="whitespace/syllable", pre_tokenizer="whitespace")
    held = ["영화  정말 재밌다"] + texts[:25]  # two spaces: the whitespace pre-tokenizer keeps one
    got = LmTask(settings=SMALL).measure(_row(seg, held, texts[30:]))
    assert math.isnan(got.columns["lm_bits_per_byte"])
    assert "1 held-out document decode to other text without an unknown token" in got.notes[0]
    assert "'영화  정말 재밌다' -> '영화 정말 재밌다'" in got.notes[0]
    fine = LmTask(settings=SMALL).measure(_row(seg, texts[:25], texts[30:]))
    assert 0 < fine.columns["lm_bits_per_byte"] < 8 and not fine.notes


def test_the_bits_are_the_documents_own() -> None:
    # a row's value is the sum of its evidence's bits over its bytes, and the bytes are the texts'
    texts = _texts(80)
    seg = BaselineSegmenter.train(texts, unit="syllable", vocab_size=300)
    held = texts[:30] + ["영화 😀 최고"]  # 😀 is not in the vocabulary: <unk>
    got = LmTask(settings=SMALL).measure(_row(seg, held, texts[30:]))
    bits, n_bytes = got.evidence["bits"][0], got.evidence["bytes"]
    assert n_bytes.tolist() == [len(t.encode("utf-8")) for t in held]
    assert got.columns["lm_bits_per_byte"] == pytest.approx(bits.sum() / n_bytes.sum(), rel=1e-12)
    assert bits[-1] > 32  # the emoji's 4 bytes at 8 bits each, and the model's own bits
    assert got.columns["lm_train_tokens"] >= SMALL.tokens and math.isnan(got.columns["lm_seed_sd"])
    # two seeds: the mean of the two one-seed rows, their spread, and a bootstrap that draws the seeds
    from dataclasses import replace

    row = _row(seg, held, texts[30:])
    one = [LmTask(settings=replace(SMALL, seed=s)).measure(row).columns["lm_bits_per_byte"] for s in (0, 1)]
    two = LmTask(settings=replace(SMALL, seeds=2))
    got2 = two.measure(row)
    assert got2.evidence["bits"].shape == (2, len(held))
    assert got2.columns["lm_bits_per_byte"] == pytest.approx(sum(one) / 2, rel=1e-12)
    assert got2.columns["lm_seed_sd"] == pytest.approx(abs(one[0] - one[1]) / math.sqrt(2), rel=1e-9)
    reps = two.replicates(got2.evidence, point=got2.columns, resamples=200, seed=0)["lm_bits_per_byte"]
    assert reps.shape == (200,) and min(one) - 0.5 < reps.mean() < max(one) + 0.5


# -- in a comparison ------------------------------------------------------------------------------


@pytest.fixture(scope="module")
def lm_run():
    texts = _texts(400)

    def run(**options):
        return compare(texts, strategies=["baseline/syllable", "whitespace/syllable", "whitespace/jamo", "baseline/word"],
                       vocab_sizes=[80], gold=None, show_progress=False, model_cache=False,
                       statistics=Statistics(resamples=200, reference="baseline/syllable"),
                       tasks=[LmTask(settings=SMALL)], **options)

    return run(), run, texts


def test_a_rerun_reads_the_models_scores_back_from_the_model_cache(tmp_path, monkeypatch) -> None:
    """With the model cache, each seed's document log probabilities are kept: a rerun trains no
    language model and gives the same bits, to the last digit."""
    from korean_bpe.compare.tasks import lm

    monkeypatch.setenv("KOREAN_BPE_CACHE_DIR", str(tmp_path))
    calls, real = [], lm.train_model
    monkeypatch.setattr(lm, "train_model", lambda *a, **k: calls.append(1) or real(*a, **k))

    def run(**options):
        calls.clear()
        return compare(_texts(300), strategies=["whitespace/syllable", "baseline/word"], vocab_sizes=[80], gold=None,
                       show_progress=False, statistics=Statistics(resamples=200),
                       tasks=[LmTask(settings=LmSettings(tokens=3000, dim=16, batch_size=16, seeds=2))],
                       **options).table.filter(regex="^lm_(?!s$)")

    first = run()
    assert len(calls) == 4 and first["lm_bits_per_byte"].notna().all()  # 2 rows x 2 seeds
    again = run()
    assert calls == [] and again.equals(first)
    assert run(model_cache=False).equals(first) and len(calls) == 4


def test_the_lm_task_is_a_registered_task(tmp_path) -> None:
    task = get_task({"type": "lm", "settings": {"tokens": 5000}})
    assert isinstance(task, Task) and "lm" in TASKS.names() and task.settings.tokens == 5000
    (tmp_path / "held.txt").write_text("영화 정말 재밌다\n\n최고의 영화\n", encoding="utf-8")
    config = get_task({"type": "lm", "path": str(tmp_path / "held.txt")}).to_config()
    assert config["held_out_docs"] == 2 and config["tokens"] == 200_000 and config["device_used"] in ("cpu", "cuda")


def test_every_row_gets_bits_per_byte_with_an_interval_and_a_test(lm_run) -> None:
    result, _, _ = lm_run
    df = result.table.set_index("strategy")
    for name in ("baseline/syllable", "whitespace/syllable", "baseline/word"):
        value = df.loc[name, "lm_bits_per_byte"]
        assert 0 < value < 8, name
        assert df.loc[name, "lm_bits_per_byte_ci_low"] <= value <= df.loc[name, "lm_bits_per_byte_ci_high"]
        assert df.loc[name, "lm_s"] > 0 and df.loc[name, "lm_train_tokens"] >= SMALL.tokens
    assert math.isnan(df.loc["baseline/syllable", "lm_bits_per_byte_p"])  # the reference
    assert 0 < df.loc["whitespace/syllable", "lm_bits_per_byte_p"] <= 1
    assert result.config["tasks"]["lm"]["tokens"] == SMALL.tokens
    verdict = next(v for v in result.verdicts if v.family == "language modelling")
    candidates = df.loc[["whitespace/syllable", "whitespace/jamo"], "lm_bits_per_byte"]  # baselines: reference points
    assert verdict.best == candidates.idxmin() and verdict.compared == 2  # lower is better
    assert set(verdict.reference_points) == {"baseline/syllable", "baseline/word"}


def test_the_same_seed_gives_the_same_numbers_with_or_without_labels(lm_run) -> None:
    result, run, texts = lm_run
    cols = ["lm_bits_per_byte", "lm_bits_per_byte_ci_low", "lm_bits_per_byte_ci_high", "lm_bits_per_byte_p"]
    assert run().table[cols].equals(result.table[cols])
    # with labels the training ids come from the labelled sample, encoded once for every task: the same ids
    labelled = run(labels=[k % 2 for k in range(len(texts))]).table
    assert labelled[cols].equals(result.table[cols])
    other = run(seed=1).table
    assert not other["lm_bits_per_byte"].equals(result.table["lm_bits_per_byte"])


def test_held_out_text_from_a_file(tmp_path) -> None:
    held = _texts(30, seed=5)
    (tmp_path / "held.txt").write_text("\n".join(held) + "\n", encoding="utf-8")
    result = compare(_texts(200), strategies=["baseline/syllable"], vocab_sizes=[300], gold=None, show_progress=False,
                     model_cache=False, statistics=Statistics(resamples=200),
                     tasks=[LmTask(tmp_path / "held.txt", settings=SMALL)])
    value = result.table["lm_bits_per_byte"].iloc[0]
    assert 0 < value < 8
    assert result.config["tasks"]["lm"]["held_out_docs"] == 30


def test_the_cli_runs_the_lm_task_in_seconds(tmp_path) -> None:
    from test_cli import ok

    corpus = tmp_path / "reviews.txt"
    corpus.write_text("\n".join(_texts(300)) + "\n", encoding="utf-8")
    proc = ok("compare", str(corpus), "--strategies", "baseline/syllable", "--vocab-sizes", "300", "--gold", "none",
              "--no-progress", "--no-model-cache", "--jobs", "1", "-o", str(tmp_path / "out"), "--task", "lm",
              here=True)
    assert "task lm (95% intervals)" in proc.stdout
    import pandas as pd

    table = pd.read_csv(tmp_path / "out" / "table.csv")
    assert len(table) == 1 and 0 < table["lm_bits_per_byte"].iloc[0] < 8
    assert table["lm_bits_per_byte_ci_low"].iloc[0] < table["lm_bits_per_byte"].iloc[0]
