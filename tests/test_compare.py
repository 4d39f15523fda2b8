"""korean_bpe.compare.compare: rows assembled by hand on tiny cases, the sweep equals separate trainings,
strategy selection, skip notes, the table."""

from __future__ import annotations

import importlib.util
import json
import math
import sys

import pytest

pd = pytest.importorskip("pandas")

from korean_bpe import Tokenizer  # noqa: E402
from korean_bpe.compare import metrics  # noqa: E402
from korean_bpe.compare import gold as gold_rule  # noqa: E402
from korean_bpe.compare import execute, heldout, measure, pretok, run, training  # noqa: E402
from korean_bpe.compare.run import compare, resolve_strategies  # noqa: E402
from korean_bpe.pre_tokenizers import get_pre_tokenizer  # noqa: E402
from korean_bpe.compare.segmenters import BPESegmenter, Segmenter, align_words  # noqa: E402

NEW_TIMING = ["train_s", "pretok_s", "encode_texts_per_s"]
#: what differs between two runs on the same texts: the timings, and whether a model came from the cache
VOLATILE = [*NEW_TIMING, "model_cached"]


def _skips(notes: list[str]) -> list[str]:
    """``notes`` without the one that two held-out documents are too few for intervals (HAND_TEST)."""
    return [n for n in notes if not n.startswith("no intervals and no bootstrap p-values")]
HAS_KIWI = importlib.util.find_spec("kiwipiepy") is not None


def _renyi(counts: list[int], vocab: int, alpha: float = 2.5) -> float:
    n = sum(counts)
    return math.log(sum((c / n) ** alpha for c in counts)) / (1 - alpha) / math.log(vocab)


# -- a BPE row by hand ---------------------------------------------------------------------------
#
# Training "가나 가나 가나", "가나 다" (whitespace, syllable, ▁ in front of each word): <unk> 0, ▁ 1, 가 2,
# 나 3, 다 4; merge 1 ▁+가 (5), merge 2 ▁가+나 (6); then (▁,다) has count 1 < min_frequency: 7 tokens.
# Held-out "가나 다 라" (6 chars, 14 UTF-8 bytes), "가나가나 가나" (7 chars, 19 bytes): 2 docs, 5 어절.
#   2 merges: ▁가나(0,2) | ▁(3,3) 다(3,4) | ▁(5,5) <unk>(5,6)      ▁가나(0,2) 가(2,3) 나(3,4) | ▁가나(5,7)
#             9 tokens: ▁가나 x3, ▁ x2, 다, <unk>, 가, 나; 어절 with 2+ tokens: 가나가나 only (1/5)
#   1 merge:  ▁가(0,1) 나(1,2) | ▁ 다 | ▁ <unk>                  ▁가 나 가 나 | ▁가 나
#             12 tokens: ▁가 x3, 나 x4, ▁ x2, 다, <unk>, 가; continued: 가나 x2, 가나가나 x1, 가나 (3/5)
# Characters (white space aside): 가 4, 나 4, 다 1, 라 1; 라 alone is ▁ <unk>: 1/10 unrepresentable.
# The first text decodes with <unk> for 라: round trip 1/2.  No token holds part of a syllable.

HAND_TRAIN = ["가나 가나 가나", "가나 다"]
HAND_TEST = ["가나 다 라", "가나가나 가나"]


def test_bpe_rows_by_hand() -> None:
    result = compare(HAND_TRAIN, eval_texts=HAND_TEST, strategies=["whitespace/syllable"], vocab_sizes=[4, 6, 7, 100],
                     gold=None, show_progress=False, keep_segmenters=True)
    df, notes, segs = result.table, _skips(result.notes), result.segmenters
    assert notes == ["skipped whitespace/syllable at vocab size 4: smaller than its 5 special tokens + alphabet",
                     "vocabulary size 100 not reached (the corpus ran out of merges, or the trainer stopped short): "
                     "whitespace/syllable 7; these rows are smaller models than the size says and are not candidates "
                     "in the verdict (ask for sizes the corpus supports)"]
    assert tuple(df.columns) == run.COLUMNS and {c: str(t) for c, t in df.dtypes.items()} == run.DTYPES
    assert df["vocab_size"].tolist() == [6, 7, 100] and df["actual_vocab_size"].tolist() == [6, 7, 7]
    one, two, stopped = (df.iloc[i] for i in range(3))
    assert (one["strategy"], one["kind"], one["pre_tokenizer"], one["unit"], one["lossless"]) == \
        ("whitespace/syllable", "bpe", "whitespace", "syllable", False)
    assert two["tokens_per_doc"] == 4.5 and one["tokens_per_doc"] == 6.0
    assert two["tokens_per_word"] == pytest.approx(9 / 5) and one["tokens_per_word"] == pytest.approx(12 / 5)
    assert two["continued_word_rate"] == pytest.approx(1 / 5) and one["continued_word_rate"] == pytest.approx(3 / 5)
    assert two["chars_per_token"] == pytest.approx(13 / 9) and two["bytes_per_token"] == pytest.approx(33 / 9)
    assert one["bytes_per_token"] == pytest.approx(33 / 12)
    assert two["unk_rate"] == pytest.approx(1 / 9) and one["unk_rate"] == pytest.approx(1 / 12)
    assert two["unrepresentable_char_rate"] == pytest.approx(1 / 10)
    assert two["renyi_efficiency"] == pytest.approx(_renyi([3, 2, 1, 1, 1, 1], 7))
    assert two["renyi_efficiency_observed"] == pytest.approx(_renyi([3, 2, 1, 1, 1, 1], 6))
    assert one["renyi_efficiency"] == pytest.approx(_renyi([3, 4, 2, 1, 1, 1], 6))
    assert two["round_trip_rate"] == 0.5 and one["round_trip_rate"] == 0.5
    assert two["incomplete_hangul_rate"] == 0 and two["jamo_token_rate"] == 0
    for col in ("morph_precision", "morph_recall", "morph_f1", "probe_accuracy"):
        assert math.isnan(two[col]), col
    assert two["gold"] == "" and not df["self_graded"].any()
    assert (df["train_docs"] == 2).all() and (df["test_docs"] == 2).all()
    assert (df[NEW_TIMING] > 0).all().all()
    # the row past the end of training repeats the largest model
    stable = [c for c in run.COLUMNS if c not in NEW_TIMING + ["vocab_size"]]
    pd.testing.assert_series_equal(stopped[stable], two[stable], check_names=False)
    # the segmenters are the rows' tokenizers: spans as worked out above
    assert sorted(segs) == [("whitespace/syllable", v) for v in (6, 7, 100)]
    seg = segs[("whitespace/syllable", 7)]
    assert isinstance(seg, Segmenter) and seg.vocab_size == 7 and seg.unk_ids == frozenset({0})
    assert seg.pieces(HAND_TEST[0]) == [("▁가나", 0, 2), ("▁", 3, 3), ("다", 3, 4), ("▁", 5, 5), ("<unk>", 5, 6)]
    assert seg.pieces(HAND_TEST[1]) == [("▁가나", 0, 2), ("가", 2, 3), ("나", 3, 4), ("▁가나", 5, 7)]
    assert sorted(seg.vocab_surfaces()) == sorted([b"", "가".encode(), "나".encode(), "다".encode(),
                                                   "가".encode(), "가나".encode()])


def test_baseline_rows_by_hand() -> None:
    """baseline/syllable on the same texts: every character a token, a space the token ▁.
    Training counts ▁ 3, 가 4, 나 4, 다 1: ranked 가, 나, ▁, 다 (ties by code point: 가 < 나 < ▁).
    At 3 tokens (<unk> 가 나) the held-out texts are 6 + 7 tokens, ▁ x3, 다 and 라 unknown."""
    df = compare(HAND_TRAIN, eval_texts=HAND_TEST, strategies=["baseline/syllable", "baseline/word"],
                 vocab_sizes=[3, 5], gold=None, show_progress=False).table
    assert df["strategy"].tolist() == ["baseline/syllable"] * 2 + ["baseline/word"] * 2
    assert df["actual_vocab_size"].tolist() == [3, 5, 3, 3]  # words: <unk> 가나 다
    small, full, word, _ = (df.iloc[i] for i in range(4))
    assert small["tokens_per_doc"] == pytest.approx((6 + 7) / 2)
    assert small["unk_rate"] == pytest.approx(5 / 13)  # ▁ x3, 다, 라
    assert full["unk_rate"] == pytest.approx(1 / 13)  # 라
    assert small["continued_word_rate"] == pytest.approx(3 / 5)  # 가나, 가나가나, 가나 (다 and 라 are one token)
    assert full["round_trip_rate"] == 0.5 and small["round_trip_rate"] == 0.0
    assert small["lossless"] and not word["lossless"]
    # words: 가나 x3, 다 1 in training; held-out 가나 다 라 | 가나가나 가나: 5 tokens, 라 and 가나가나 unknown
    assert word["tokens_per_word"] == 1.0 and word["unk_rate"] == pytest.approx(2 / 5)
    assert word["continued_word_rate"] == 0.0 and word["round_trip_rate"] == 0.0
    assert word["unrepresentable_char_rate"] == pytest.approx(1.0 - 1 / 10)  # only 다 is a word of one character
    assert (small["pre_tokenizer"], word["pre_tokenizer"]) == ("", "whitespace")


def test_baseline_training_counts_each_distinct_word_once() -> None:
    """Training from the words compare() already has counts a word's tokens once per distinct word;
    the vocabulary is the one counted text by text (_split_words: a ▁ token per leading mark)."""
    from korean_bpe.compare.segmenters import BaselineSegmenter

    from korean_bpe.pre_tokenizers import get_pre_tokenizer

    texts = ["영화 ▁▁정말 재밌다", "영화  재밌다 ▁", "정말 최고 ▁▁"]
    raw = get_pre_tokenizer("raw")  # lossless pieces: ▁영화 ▁ ▁ ▁정말 ▁재밌다 | ▁영화 ▁ ▁재밌다 ▁ ▁ | ▁정말 ▁최고 ▁ ▁ ▁
    table = dict(zip(texts, raw.batch(texts)))
    fast = BaselineSegmenter.train(texts, unit="morpheme", vocab_size=6, pre_tokenizer=raw, words=table)
    slow = BaselineSegmenter.train(texts, unit="morpheme", vocab_size=6, pre_tokenizer=raw)
    # ▁ 5 + 5 + 5; 영화 2, 재밌다 2, 정말 2, 최고 1 -> <unk> ▁, then 영화 재밌다 정말 (ties by code point), 최고
    assert fast.vocab_tokens == slow.vocab_tokens == ("<unk>", "▁", "영화", "재밌다", "정말", "최고")
    words = BaselineSegmenter.train(texts, unit="word", vocab_size=4, words={t: t.split() for t in texts})
    assert words.vocab_tokens == BaselineSegmenter.train(texts, unit="word", vocab_size=4).vocab_tokens == (
        "<unk>", "▁", "영화", "재밌다")


def test_morpheme_boundaries_by_hand_against_real_kiwi() -> None:
    """Kiwi cuts "아이언맨은 올해 봤다!!" into 아이언맨|은 올해 봤|다|!! (the kiwi pre-tokenizer's doctest):
    gold boundaries 4 (아이언맨|은), 10 and 11 (봤|다|!!).  The syllable baseline ends a token after every
    character: 1 2 3 4 | 7 | 10 11 12, 8 boundaries, 3 of them gold: P 3/8, R 3/3, F1 6/11.
    The word baseline has no boundary inside a 어절: P undefined, R 0."""
    if not HAS_KIWI:
        pytest.skip("kiwipiepy not installed")
    text = "아이언맨은 올해 봤다!!"
    df = compare([text, "올해 봤다"], eval_texts=[text], strategies=["baseline/syllable", "baseline/word",
                 "baseline/morpheme-kiwi"], vocab_sizes=[50], show_progress=False).table
    syl, word, kiwi = (df.iloc[i] for i in range(3))
    assert (syl["morph_precision"], syl["morph_recall"]) == (pytest.approx(3 / 8), 1.0)
    assert syl["morph_f1"] == pytest.approx(6 / 11)
    assert word["morph_recall"] == 0.0
    assert kiwi["morph_f1"] == 1.0 and kiwi["self_graded"] and not syl["self_graded"]
    assert set(df["gold"]) == {"kiwi"}


def test_gold_boundaries_from_lossless_pieces() -> None:
    """Okt gives no offsets: its lossless pieces (surfaces that never overlap) are its morphemes."""
    text = "아이언맨은 올해  봤다!!"
    pieces = ["아이언맨", "은", "▁올해", "▁▁봤", "다", "!!"]
    okt = get_pre_tokenizer("okt", lossless=True)  # its declarations only: no JVM
    assert align_words(text, pieces, okt) == [(0, 0), (4, 0), (5, 0), (8, 0), (11, 0), (12, 0)]
    assert align_words("영화 좋다", ["▁영화", "▁좋다"], get_pre_tokenizer("raw")) == [(-1, 1), (2, 0)]  # the dummy prefix
    assert gold_rule.gold_boundaries([gold_rule.piece_spans(text, pieces, okt)], [metrics.word_spans(text)]) == \
        [[frozenset({4}), frozenset(), frozenset({11, 12})]]


CONTRACTIONS = "했었다 된다 봐요 아닌가요"  # 했0 었1 다2 _ 된4 다5 _ 봐7 요8 _ 아10 닌11 가12 요13


def test_gold_keeps_the_boundary_of_a_contraction_with_real_kiwi() -> None:
    """The documented rule (metrics, gold): every morpheme end inside an 어절.  Kiwi's morphemes of
    a contraction share the fused syllable's span: 했었다 = 하 (0, 1) 었었 (0, 2) 다 (2, 3) -> {1, 2};
    된다 = 되 (4, 5) ᆫ다 (4, 6) -> {5}; 봐요 = 보 (7, 8) 어요 (7, 9) -> {8}; 아닌가요 = 아니 (10, 12)
    ᆫ가요 (11, 14) -> {12}.  The lossless kiwi words (했었|다, 된다, 봐요, 아닌가요) would keep only {2}."""
    if not HAS_KIWI:
        pytest.skip("kiwipiepy not installed")
    from korean_bpe.pre_tokenizers import get_pre_tokenizer

    spans = gold_rule.morpheme_spans(get_pre_tokenizer("kiwi", lossless=True), [CONTRACTIONS, "", "\u1112\u1162\u11bb다"])
    assert spans[0] == [(0, 1), (0, 2), (2, 3), (4, 5), (4, 6), (7, 8), (7, 9), (10, 12), (11, 14)]
    assert spans[1] == [] and spans[2] == [(0, 3), (3, 4)]  # NFD 했다: offsets of the original (했 is 3 jamo)
    words = metrics.word_spans(CONTRACTIONS)
    expected = [[frozenset({1, 2}), frozenset({5}), frozenset({8}), frozenset({12})]]
    assert gold_rule.gold_boundaries(spans[:1], [words]) == expected
    assert gold_rule.gold_spans("kiwi", [CONTRACTIONS]) == spans[:1]  # through the analysis cache: the same
    # compare() grades with that gold: the syllable baseline ends a token after every character:
    # 1 2 | 5 | 8 | 11 12 13, 7 boundaries, 5 gold (all of them): P 5/7, R 1, F1 10/12; the kiwi
    # morpheme baseline cuts the lossless words 했었|다: {2} only, P 1, R 1/5
    df = compare([CONTRACTIONS] * 3, eval_texts=[CONTRACTIONS], strategies=["baseline/syllable",
                 "baseline/morpheme-kiwi"], vocab_sizes=[50], show_progress=False).table
    syl, kiwi = df.iloc[0], df.iloc[1]
    assert (syl["morph_precision"], syl["morph_recall"], syl["morph_f1"]) == \
        (pytest.approx(5 / 7), 1.0, pytest.approx(10 / 12))
    assert (kiwi["morph_precision"], kiwi["morph_recall"]) == (1.0, pytest.approx(1 / 5)) and kiwi["self_graded"]


def test_mecab_gold_cuts_inflected_tokens_into_their_morphemes_with_real_mecab() -> None:
    """MeCab gives 했었, 된다, 봐요, 아닌가요 one token each (Inflect), its morphemes in the expression
    (하+았었, 되+ᆫ다, 보+아요, 아니+ᆫ가요): the gold cuts them by the same rule as Kiwi's spans, so
    the boundaries inside the 어절 are Kiwi's here; a compound noun (영화관 = 영화+관) stays whole.
    Before, MeCab's gold took the token ends: {2}, {}, {}, {} (2,416 of Kiwi's boundaries missing on NSMC)."""
    if importlib.util.find_spec("mecab") is None:
        pytest.skip("python-mecab-ko not installed")
    text = CONTRACTIONS + " 영화관에서"
    spans = gold_rule.morpheme_spans(get_pre_tokenizer("mecab", lossless=True), [text])
    got = gold_rule.gold_boundaries(spans, [metrics.word_spans(text)])
    assert got == [[frozenset({1, 2}), frozenset({5}), frozenset({8}), frozenset({12}), frozenset({18})]]
    assert gold_rule.gold_spans("mecab", [text]) == spans  # through the analysis cache


@pytest.mark.parametrize("surface, forms, spans", [
    ("했었", ["하", "았었"], [(0, 1), (0, 2)]),
    ("갔었", ["가", "았었"], [(0, 1), (0, 2)]),
    ("난", ["나", "ᆫ"], [(0, 1), (0, 1)]),  # both in one syllable: no boundary inside
    ("아닐까", ["아니", "ᆯ까"], [(0, 2), (1, 3)]),
    ("재밌었어요", ["재밌", "었", "어요"], [(0, 2), (2, 3), (3, 5)]),  # no fusion: the plain cut
    ("영화", [], [(0, 2)]),
])
def test_fused_spans_by_hand(surface: str, forms: list[str], spans: list[tuple[int, int]]) -> None:
    assert gold_rule.fused_spans(surface, forms) == spans


# -- the sweep costs one training, and equals separate trainings ------------------------------------

SWEEP = [900, 1100, 1400]
SWEEP_STRATEGIES = ["whitespace/jamo", "raw/byte", "okt/syllable", "okt-analysis/jamo", "baseline/word",
                    "baseline/morpheme-okt"]


@pytest.fixture(scope="module")
def sweep_texts(real_texts: list[str]) -> list[str]:
    return real_texts[:240]


@pytest.fixture(scope="module")
def sweep_result(sweep_texts: list[str]) -> object:
    labels = [len(t) % 2 for t in sweep_texts]
    return compare(sweep_texts, labels=labels, strategies=SWEEP_STRATEGIES, vocab_sizes=SWEEP, gold="okt",
                   seed=3, show_progress=False)


@pytest.fixture(scope="module")
def sweep(sweep_result: object) -> pd.DataFrame:
    return sweep_result.table  # type: ignore[attr-defined]


def test_sweep_rows_equal_separate_trainings(sweep: pd.DataFrame, sweep_texts: list[str]) -> None:
    labels = [len(t) % 2 for t in sweep_texts]
    # Holm's correction is over the rows of a run: a run of one size has fewer tests than the sweep
    stable = [c for c in run.COLUMNS if c not in VOLATILE and not c.endswith("_p_holm")]
    assert len(sweep) == len(SWEEP_STRATEGIES) * len(SWEEP)
    for size in SWEEP:
        alone = compare(sweep_texts, labels=labels, strategies=SWEEP_STRATEGIES, vocab_sizes=[size], gold="okt",
                        seed=3, show_progress=False).table
        rows = sweep[sweep["vocab_size"] == size].reset_index(drop=True)
        pd.testing.assert_frame_equal(rows[stable], alone[stable])
    # sizes differ where the vocabulary does
    for name, g in sweep.groupby("strategy", sort=False):
        assert g["actual_vocab_size"].is_monotonic_increasing, name
    assert sweep["probe_accuracy"].between(0, 1).all()
    lossy = sweep[sweep["strategy"] == "okt-analysis/jamo"]
    assert lossy["round_trip_rate"].isna().all() and not lossy["lossless"].any()
    assert sweep.loc[sweep["strategy"].str.startswith("okt"), "self_graded"].all()
    assert not sweep.loc[sweep["strategy"].str.startswith(("whitespace", "raw")), "self_graded"].any()


def _short_notes(df: pd.DataFrame) -> list[str]:
    """The notes of the sizes some row of ``df`` did not reach (by more than 2%; baselines aside)."""
    out = []
    for size, rows in df[(df["kind"] != "baseline") & (df["actual_vocab_size"] < 0.98 * df["vocab_size"])].groupby(
            "vocab_size", sort=False):
        names = ", ".join(f"{s} {n:,}" for s, n in zip(rows["strategy"], rows["actual_vocab_size"]))
        out.append(f"vocabulary size {size:,} not reached (the corpus ran out of merges, or the trainer stopped short): "
                   f"{names}; these rows are smaller models than the size says and are not candidates in the verdict "
                   "(ask for sizes the corpus supports)")
    return out


def test_worker_processes_give_the_same_rows_and_notes(sweep_result: object, sweep_texts: list[str]) -> None:
    sweep = sweep_result.table  # type: ignore[attr-defined]
    labels = [len(t) % 2 for t in sweep_texts]
    result = compare(sweep_texts, labels=labels, strategies=[*SWEEP_STRATEGIES, "sentencepiece-bpe"],
                     vocab_sizes=SWEEP, gold="okt", seed=3, show_progress=False, n_jobs=2)
    parallel, notes = result.table, result.notes
    stable = [c for c in run.COLUMNS if c not in VOLATILE]
    ours = parallel[parallel["kind"] != "peer"].reset_index(drop=True)
    pd.testing.assert_frame_equal(ours[stable], sweep[stable])  # same rows, same order
    assert parallel["strategy"].tolist()[-len(SWEEP):] == ["sentencepiece-bpe"] * len(SWEEP)
    # raw/byte has no whitespace/byte to be compared with; the syllable rows, baselines and peers are
    # compared with whitespace/syllable, which this sweep does not run: no p-values, one note each
    short = _short_notes(sweep)  # the sizes a row did not reach on this corpus, first
    assert sweep_result.notes == [*short,  # type: ignore[attr-defined]
        "no p-values for raw/byte at vocab size 900, 1,100, 1,400: the reference whitespace/byte was not measured "
        "there (add it to strategies, or choose another reference)",
        "no p-values for okt/syllable, baseline/word, baseline/morpheme-okt at vocab size 900, 1,100, 1,400: the "
        "reference whitespace/syllable was not measured there (add it to strategies, or choose another reference)"]
    assert notes == [*_short_notes(parallel), sweep_result.notes[-2],  # type: ignore[attr-defined]
                     sweep_result.notes[-1].replace(  # type: ignore[attr-defined]
                         "baseline/morpheme-okt at", "baseline/morpheme-okt, sentencepiece-bpe at")]
    # the groups: one per analyzer or pre-tokenizer with the baselines that read it (raw beside
    # whitespace: their ids are often the same, and one process then trains one classifier), each peer alone
    assert training.groups([*SWEEP_STRATEGIES, "baseline/jamo", "hf-bpe", "whitespace/byte"]) == [
        ["whitespace/jamo", "raw/byte", "baseline/word", "whitespace/byte"],
        ["okt/syllable", "okt-analysis/jamo", "baseline/morpheme-okt"], ["baseline/jamo"], ["hf-bpe"]]


def test_pieces_are_recorded_alike_in_worker_processes(sweep_texts: list[str]) -> None:
    # what the report shows (segmentation examples, token lengths), as plain data from any process
    names, sizes, probe = ["whitespace/syllable", "okt/jamo", "baseline/word", "hf-bpe"], [700, 900], \
        [*sweep_texts[:4], "영화 정말 재밌다"]
    result = compare(sweep_texts[:120], strategies=names, vocab_sizes=sizes, gold=None, show_progress=False,
                     keep_segmenters=True, pieces_texts=probe)
    segs, serial = result.segmenters, result.pieces
    assert set(serial) == {(name, 900) for name in names}  # the largest size only
    assert serial == {key: {text: segs[key].pieces(text) for text in probe} for key in serial}
    assert [(a, b) for _, a, b in serial[("baseline/word", 900)]["영화 정말 재밌다"]] == [(0, 2), (3, 5), (6, 9)]
    parallel = compare(sweep_texts[:120], strategies=names, vocab_sizes=sizes, gold=None, show_progress=False, n_jobs=2,
                       pieces_texts=probe).pieces
    assert parallel == serial
    with pytest.raises(TypeError, match="pieces_texts=\\['영화'\\]"):
        compare(sweep_texts[:20], strategies=["baseline/word"], vocab_sizes=[9], gold=None, show_progress=False,
                pieces_texts="영화")


def test_rows_are_measured_through_the_public_encode_path(sweep_texts: list[str]) -> None:
    segs = compare(sweep_texts[:80], strategies=["whitespace/syllable", "okt/jamo"], vocab_sizes=[700], gold=None,
                   show_progress=False, keep_segmenters=True).segmenters
    ws, okt = segs[("whitespace/syllable", 700)], segs[("okt/jamo", 700)]
    assert isinstance(ws, BPESegmenter) and ws.tokenizer._encoder.plan.fused  # the compiled whitespace path users get
    assert type(okt.tokenizer.pre_tokenizer).__name__ == "OktPreTokenizer"  # the real analyzer, not a table
    for seg in (ws, okt):
        words = seg.tokenizer.pre_tokenizer.batch(sweep_texts[:80])
        assert seg.encode_pretokenized(words) == seg.encode_batch(sweep_texts[:80])
        for text in sweep_texts[:20]:  # pieces spell the tokens of encode, in order, inside the text
            pieces = seg.pieces(text)
            assert len(pieces) == len(seg.encode_batch([text])[0])
            assert all(0 <= a <= b <= len(text) for _, a, b in pieces)
            assert [a for _, a, _ in pieces] == sorted(a for _, a, _ in pieces)


def test_probe_is_fitted_on_a_seeded_sample_of_the_training_split(sweep_texts: list[str]) -> None:
    labels = [int(len(t) > 30) for t in sweep_texts]
    result = compare(sweep_texts, labels=labels, strategies=["whitespace/syllable"], vocab_sizes=[900], gold=None,
                     seed=5, probe_train_docs=100, show_progress=False, keep_segmenters=True)
    df, segs = result.table, result.segmenters
    train_idx, test_idx = metrics.split_indices(len(sweep_texts), test_fraction=0.1, seed=5)
    import random

    sample = sorted(random.Random(5).sample(range(len(train_idx)), 100))
    tok = segs[("whitespace/syllable", 900)].tokenizer
    train = [sweep_texts[train_idx[i]] for i in sample]
    test = [sweep_texts[i] for i in test_idx]
    expected = metrics.probe_accuracy(tok.encode_batch(train), [labels[train_idx[i]] for i in sample],
                                      tok.encode_batch(test), [labels[i] for i in test_idx], seed=5)
    assert df["probe_accuracy"].item() == expected
    with pytest.raises(ValueError, match="probe_train_docs"):
        compare(sweep_texts, labels=labels, strategies=["whitespace/syllable"], probe_train_docs=0)


def test_peer_rows_are_measured_like_ours(sweep_texts: list[str]) -> None:
    pytest.importorskip("sentencepiece")
    result = compare(sweep_texts, strategies=["sentencepiece-bpe", "whitespace/syllable"], vocab_sizes=[900, 1100],
                     gold=None, show_progress=False, keep_segmenters=True)
    df, segs = result.table, result.segmenters
    peer = df[df["kind"] == "peer"]
    assert peer["strategy"].tolist() == ["sentencepiece-bpe"] * 2 and (peer["pre_tokenizer"] == "").all()
    assert (peer["train_s"] > 0).all() and peer["pretok_s"].isna().all()
    assert peer["tokens_per_doc"].iloc[1] <= peer["tokens_per_doc"].iloc[0]  # trained at each size
    seg = segs[("sentencepiece-bpe", 900)]
    assert isinstance(seg, Segmenter) and peer["actual_vocab_size"].iloc[0] == seg.vocab_size


@pytest.mark.parametrize("gold", ["okt", None])
def test_span_counts_per_distinct_word_equal_the_per_text_ones(sweep_texts: list[str], gold: str | None) -> None:
    """compare() counts continued 어절 and boundaries per distinct 어절 (Layout): the same numbers as
    seg.pieces() text by text, for pre-tokenizers that rewrite spaces (raw, lossless okt) or drop text."""
    texts = [*sweep_texts[:200], "  앞뒤 공백과\t탭 ", "ㅋㅋㅋㅋ ㅠㅠ 개꿀잼!!", "영화  정말   재밌다", "가나가나 가나"] * 2
    held = heldout.HeldOut(texts, None)
    pre = pretok.Pretokenizations(texts[:150], texts)
    if gold is not None:
        gold_pt = pre.get(gold)[0]
        held.grade(gold, gold_rule.gold_boundaries([gold_rule.piece_spans(t, w, gold_pt)
                                                    for t, w in zip(texts, pre.get(gold)[2])], held.word_spans))
    for source, unit in [("whitespace", "jamo"), ("raw", "byte"), ("okt", "syllable"), ("okt-analysis", "jamo")]:
        pt, _, _, table, _ = pre.get(source)
        tok = Tokenizer.train(texts[:150], vocab_size=2000, pre_tokenizer=training._Table(pt, table), unit=unit,
                              show_progress=False)
        seg = BPESegmenter(Tokenizer(tok.model, pre_tokenizer=pt, unit=tok.unit, marker=tok.marker,
                                     unk_token=tok.unk_token), strategy=f"{source}/{unit}", pre_tokenizer=source,
                           words=table)
        layout = pre.layout(source, held)
        assert sum(layout.counts.values()) == held.n_words >= 2 * len(layout.counts)  # each text is there twice
        fast, straight = measure.span_counts(seg, layout), measure.span_counts_per_text(seg, held)
        assert fast == straight, source
        chars = list(held.char_counts)  # unrepresentable characters: the words of each character computed once
        assert seg.encode_pretokenized(pre.char_words(source, chars)) == seg.encode_batch(chars)
        assert fast[0] > 0 and (gold is None or fast[1] > fast[2] > 0)
        # and the straightforward counts are the metrics' definitions
        per_word, predicted = [], []
        for text, spans in zip(texts, held.word_spans):
            pieces = [(a, b) for _, a, b in seg.pieces(text) if a < b]
            per_word += measure._tokens_per_word(pieces, spans)
            predicted += metrics.internal_boundaries(pieces, spans)
        assert metrics.continued_word_rate(per_word) == fast[0] / held.n_words
        if gold is not None:
            expected = metrics.boundary_scores(predicted, [b for t in held.gold for b in t])
            assert expected == (fast[2] / fast[1], fast[2] / held.n_gold, 2 * fast[2] / (fast[1] + held.n_gold))


def test_greedy_bpe_peer_sweep_equals_separate_trainings(sweep_texts: list[str]) -> None:
    """hf-bpe is trained once at the largest size and truncated: its rows equal training at each size."""
    pytest.importorskip("tokenizers")
    stable = [c for c in run.COLUMNS if c not in VOLATILE]
    labels = [len(t) % 2 for t in sweep_texts]
    sweep = compare(sweep_texts, labels=labels, strategies=["hf-bpe"], vocab_sizes=[400, 600], gold="okt",
                    show_progress=False).table
    assert sweep["train_s"].nunique() == 1  # one training
    for size in (400, 600):
        alone = compare(sweep_texts, labels=labels, strategies=["hf-bpe"], vocab_sizes=[size], gold="okt",
                        show_progress=False).table
        rows = sweep[sweep["vocab_size"] == size].reset_index(drop=True)
        pd.testing.assert_frame_equal(rows[stable], alone[stable])


def test_a_crashing_peer_skips_its_remaining_sizes_with_one_note(monkeypatch: pytest.MonkeyPatch) -> None:
    from korean_bpe.compare import peers

    calls: list[int] = []

    def crash(name: str, texts: object, *, vocab_size: int, seed: int = 0) -> object:  # fault injection
        calls.append(vocab_size)
        raise RuntimeError("kiwipiepy SwTokenizer.train crashed its process")

    monkeypatch.setattr(peers, "train_peer", crash)
    result = compare(HAND_TRAIN * 3, eval_texts=HAND_TEST, strategies=["kiwi-swtokenizer", "whitespace/syllable"],
                 vocab_sizes=[6, 7, 8], gold=None, show_progress=False)
    df, notes = result.table, _skips(result.notes)
    assert calls == [6]
    assert notes == ["skipped kiwi-swtokenizer at vocab size 6, 7, 8: kiwipiepy SwTokenizer.train crashed its process"]
    assert df["strategy"].unique().tolist() == ["whitespace/syllable"]


# -- choosing strategies ---------------------------------------------------------------------------

def test_default_grid_names() -> None:
    bpe = [f"{p}/{u}" for p in ("whitespace", "raw", "okt-analysis", "okt", "kiwi", "mecab")
           for u in ("syllable", "jamo", "byte")]
    baselines = ["baseline/jamo", "baseline/syllable", "baseline/morpheme-okt", "baseline/morpheme-kiwi",
                 "baseline/morpheme-mecab", "baseline/word"]
    peers = ["sentencepiece-bpe", "sentencepiece-unigram", "hf-bpe", "hf-wordpiece", "kiwi-bpe", "kiwi-swtokenizer"]
    assert resolve_strategies(None)[: len(bpe) + len(baselines)] == bpe + baselines
    assert sorted(resolve_strategies(None)[len(bpe) + len(baselines):]) == sorted(peers)
    assert resolve_strategies(["peer"]) == resolve_strategies(None)[len(bpe) + len(baselines):]
    assert resolve_strategies(["baseline", "baseline/word"]) == baselines
    assert resolve_strategies(["okt-analysis", "whitespace/byte"]) == [
        "okt-analysis/syllable", "okt-analysis/jamo", "okt-analysis/byte", "whitespace/byte"]


@pytest.mark.parametrize(("strategies", "error", "match"), [
    (["whitespace/letters"], ValueError, r"unknown strategy 'whitespace/letters'; valid names: bpe, baseline, peer"),
    (["baseline/morpheme"], ValueError, "unknown strategy 'baseline/morpheme'"),
    ("okt/jamo", TypeError, r"strategies=\['okt/jamo'\]"),
    ([], ValueError, "names no strategy"),
])
def test_strategy_selection_errors(strategies: object, error: type, match: str) -> None:
    with pytest.raises(error, match=match):
        compare(HAND_TRAIN, strategies=strategies, show_progress=False)


@pytest.mark.parametrize(("kwargs", "error", "match"), [
    ({"vocab_sizes": 4000}, TypeError, "vocab_sizes"),
    ({"vocab_sizes": [0]}, ValueError, "vocab_sizes"),
    ({"gold": "hannanum"}, ValueError, "gold='hannanum'"),
    ({"labels": [1]}, ValueError, "one label per text"),
    ({"eval_labels": [1, 0]}, ValueError, "eval_labels needs eval_texts"),
    ({"eval_texts": [" ", ""]}, ValueError, "eval_texts"),
    ({"eval_texts": ["가"], "labels": [0, 1]}, ValueError, "labels and eval_labels together"),
    ({"test_fraction": 1.0}, ValueError, "test_fraction"),
    ({"n_jobs": 0}, ValueError, "n_jobs must be a positive int"),
    ({"n_jobs": 2, "keep_segmenters": True}, ValueError, "pass n_jobs=1"),
    ({"statistics": {"resamples": 10}}, TypeError, "Statistics"),
])
def test_bad_arguments_name_the_fix(kwargs: dict, error: type, match: str) -> None:
    with pytest.raises(error, match=match):
        compare(HAND_TRAIN, **{"strategies": ["whitespace/syllable"], "show_progress": False, **kwargs})


# -- skips -------------------------------------------------------------------------------------------

def test_missing_peers_module_is_one_note(monkeypatch: pytest.MonkeyPatch) -> None:
    import korean_bpe.compare

    monkeypatch.setitem(sys.modules, "korean_bpe.compare.peers", None)  # fault injection: the import fails
    monkeypatch.delattr(korean_bpe.compare, "peers", raising=False)
    result = compare(HAND_TRAIN * 3, eval_texts=HAND_TEST, strategies=["peer", "whitespace/syllable"], vocab_sizes=[7],
                 gold=None, show_progress=False)
    df, notes = result.table, _skips(result.notes)
    assert len(notes) == 1 and notes[0].startswith("skipped the peers (")
    assert "korean_bpe.compare.peers is not available" in notes[0]
    assert df["strategy"].tolist() == ["whitespace/syllable"]


def test_missing_analyzer_skips_its_strategies_and_the_gold(monkeypatch: pytest.MonkeyPatch) -> None:
    import korean_bpe.pre_tokenizers.kiwi as kiwi_module

    monkeypatch.setattr(kiwi_module._kiwi, "value", None)
    monkeypatch.setitem(sys.modules, "kiwipiepy", None)  # fault injection: the import fails
    result = compare(HAND_TRAIN * 3, eval_texts=HAND_TEST, strategies=["kiwi/jamo", "baseline/morpheme-kiwi",
                 "whitespace/syllable"], vocab_sizes=[7], gold="kiwi", show_progress=False)
    df, notes = result.table, _skips(result.notes)
    assert [n.split(":")[0] for n in notes] == ["skipped the morpheme-boundary metrics (gold kiwi)",
                                                "skipped kiwi/jamo", "skipped baseline/morpheme-kiwi"]
    assert all("pip install" in n and "\n" not in n for n in notes)
    assert df["strategy"].tolist() == ["whitespace/syllable"]
    assert df["morph_f1"].isna().all() and df["gold"].tolist() == [""]


def _jamo_token_rate_straight(surfaces: object) -> float:
    """metrics.jamo_token_rate as first written: every token composed (the metric now skips the
    tokens without a conjoining jamo, which composing cannot change)."""
    from korean_bpe.jamo import compose

    n = partial = 0
    for token in surfaces:  # type: ignore[attr-defined]
        n += 1
        text = compose(bytes(token).decode("utf-8", errors="ignore"))
        if metrics._CONJOINING.search(text):
            partial += metrics._CONJOINING.search(metrics._WHOLE_BLOCK.sub("", text)) is not None
    return metrics.ratio(partial, n)


def _token_stats_straight(flat: object, unk_ids: frozenset[int]) -> tuple[list[int], int]:
    from collections import Counter

    ids = [int(i) for i in flat]  # type: ignore[attr-defined]
    counts = Counter(ids)
    n_unk = round(metrics.unk_rate([ids], unk_ids=unk_ids) * len(ids)) if ids else 0
    return [counts[i] for i in sorted(counts)], n_unk


def test_the_fast_metric_paths_give_the_straightforward_table(
        sweep_texts: list[str], tmp_path: object, monkeypatch: pytest.MonkeyPatch) -> None:
    """Every metric column of the fast paths (HF peers' ids and spans in one batch call, jamo_token_rate
    skipping jamo-free tokens, token counts by numpy, sorted boundaries deduplicated in one pass)
    equals the per-text / compose-everything / Counter / np.unique computation."""
    pytest.importorskip("tokenizers")
    from korean_bpe.compare import peers

    monkeypatch.setenv("KOREAN_BPE_CACHE_DIR", str(tmp_path))  # the second run reads the first's models
    names = ["whitespace/jamo", "raw/byte", "okt/jamo", "baseline/jamo", "hf-bpe", "hf-wordpiece"]
    kwargs = {"labels": [len(t) % 2 for t in sweep_texts], "strategies": names, "vocab_sizes": [700, 900],
              "gold": "okt", "seed": 3, "show_progress": False}
    fast = compare(sweep_texts, **kwargs).table
    monkeypatch.delattr(peers.HFPeer, "encode_with_spans")
    monkeypatch.setattr(metrics, "jamo_token_rate", _jamo_token_rate_straight)
    monkeypatch.setattr(measure, "_token_stats", _token_stats_straight)
    monkeypatch.setattr(measure, "_SORTED_FAST_PATH", False)
    straight = compare(sweep_texts, **kwargs).table
    assert straight["model_cached"].all()
    same = [c for c in run.COLUMNS if c not in VOLATILE]
    pd.testing.assert_frame_equal(fast[same], straight[same], check_exact=True)
    assert (fast["jamo_token_rate"] > 0).any() and (fast.loc[fast["kind"] == "peer", "morph_f1"] > 0).all()
    assert (fast["round_trip_rate"] < 1).any()


# -- the model cache -------------------------------------------------------------------------------

def _cache_strategies() -> list[str]:
    names = ["whitespace/syllable", "raw/byte", "baseline/word", "baseline/jamo"]
    if importlib.util.find_spec("sentencepiece") is not None:
        names.append("sentencepiece-unigram")
    if importlib.util.find_spec("tokenizers") is not None:
        names += ["hf-bpe", "hf-wordpiece"]
        if importlib.util.find_spec("kiwipiepy.bpe_trainer") is not None:
            names.append("kiwi-bpe")
    if HAS_KIWI:
        names.append("kiwi-swtokenizer")
    return names


@pytest.fixture
def trainings(monkeypatch: pytest.MonkeyPatch) -> list[str]:
    """Each training compare() runs in this process, by strategy (the real trainers run: these
    wrappers only count the calls)."""
    from korean_bpe.compare import peers
    from korean_bpe.compare.segmenters import BaselineSegmenter

    calls: list[str] = []
    bpe_train, baseline_train, peer_train = Tokenizer.train.__func__, BaselineSegmenter.train.__func__, peers.train_peer

    def count_bpe(cls: type, texts: object, **kwargs: object) -> object:
        calls.append(f"bpe {kwargs['pre_tokenizer'].name}/{kwargs['unit']}")
        return bpe_train(cls, texts, **kwargs)

    def count_baseline(cls: type, texts: object, **kwargs: object) -> object:
        calls.append(kwargs["strategy"])
        return baseline_train(cls, texts, **kwargs)

    def count_peer(name: str, texts: object, **kwargs: object) -> object:
        calls.append(f"{name} {kwargs['vocab_size']}")
        return peer_train(name, texts, **kwargs)

    monkeypatch.setattr(Tokenizer, "train", classmethod(count_bpe))
    monkeypatch.setattr(BaselineSegmenter, "train", classmethod(count_baseline))
    monkeypatch.setattr(peers, "train_peer", count_peer)
    return calls


def test_a_rerun_reads_every_model_back_and_gives_the_same_table(
        sweep_texts: list[str], tmp_path: object, monkeypatch: pytest.MonkeyPatch, trainings: list[str]) -> None:
    monkeypatch.setenv("KOREAN_BPE_CACHE_DIR", str(tmp_path))
    names = _cache_strategies()
    labels = [len(t) % 2 for t in sweep_texts]
    kwargs = {"labels": labels, "strategies": names, "vocab_sizes": [700, 900], "gold": None, "seed": 1,
              "show_progress": False}
    first_result = compare(sweep_texts, **kwargs)
    first, notes = first_result.table, first_result.notes
    trained = list(trainings)
    assert not first["model_cached"].any() and len(trained) >= 4
    entries = sorted((tmp_path / "models").glob("*.json"))  # type: ignore[operator]
    assert len(entries) == len(trained)  # one entry per training (a crash included)
    trainings.clear()
    second_result = compare(sweep_texts, **kwargs)
    second, again = second_result.table, second_result.notes
    assert trainings == []  # nothing trained
    assert second["model_cached"].all() and again == notes
    same = [c for c in run.COLUMNS if c not in ("pretok_s", "encode_texts_per_s", "model_cached")]
    pd.testing.assert_frame_equal(first[same], second[same])  # train_s included: the original training's
    # turned off: everything is trained, nothing read or written
    trainings.clear()
    third = compare(sweep_texts, model_cache=False, **kwargs).table
    assert sorted(trainings) == sorted(trained) and not third["model_cached"].any()
    assert sorted((tmp_path / "models").glob("*.json")) == entries  # type: ignore[operator]
    with pytest.raises(TypeError, match="model_cache must be True or False"):
        compare(sweep_texts, model_cache="no", strategies=["baseline/word"])  # type: ignore[arg-type]


def test_other_texts_seed_or_size_train_again(
        sweep_texts: list[str], tmp_path: object, monkeypatch: pytest.MonkeyPatch, trainings: list[str]) -> None:
    monkeypatch.setenv("KOREAN_BPE_CACHE_DIR", str(tmp_path))
    names = ["whitespace/syllable", "baseline/word"] + (
        ["sentencepiece-bpe"] if importlib.util.find_spec("sentencepiece") is not None else [])
    kwargs = {"strategies": names, "gold": None, "show_progress": False}
    compare(sweep_texts, vocab_sizes=[700, 900], seed=1, **kwargs)
    everything = list(trainings)
    for changed in ({"texts": sweep_texts[1:]}, {"seed": 2}):
        trainings.clear()
        df = compare(changed.get("texts", sweep_texts), vocab_sizes=[700, 900], seed=changed.get("seed", 1), **kwargs).table
        assert trainings == everything and not df["model_cached"].any(), changed
    trainings.clear()  # a new largest size: our models train again, the peer's 700 is read back
    df = compare(sweep_texts, vocab_sizes=[700, 1000], seed=1, **kwargs).table
    assert trainings == [t for t in everything if not t.endswith(" 900") and not t.startswith("sentencepiece")] + \
        (["sentencepiece-bpe 1000"] if "sentencepiece-bpe" in names else [])
    assert df.loc[df["model_cached"], "strategy"].tolist() == (["sentencepiece-bpe"] if "sentencepiece-bpe" in names
                                                                 else [])


def test_an_unreadable_entry_is_trained_again(
        sweep_texts: list[str], tmp_path: object, monkeypatch: pytest.MonkeyPatch, trainings: list[str]) -> None:
    monkeypatch.setenv("KOREAN_BPE_CACHE_DIR", str(tmp_path))
    kwargs = {"strategies": ["whitespace/jamo"], "vocab_sizes": [800], "gold": None, "show_progress": False}
    first = compare(sweep_texts, **kwargs).table
    (entry,) = (tmp_path / "models").glob("*.json")  # type: ignore[operator]
    good = entry.read_text(encoding="utf-8")
    same = [c for c in run.COLUMNS if c not in VOLATILE]
    for fault in (good[: len(good) // 2], "\x00garbage", good.replace('"merges": [[', '"merges": [[7, ', 1),
                  good.replace('"format": 2', '"format": 999')):  # fault injection: damaged files
        assert fault != good
        entry.write_text(fault, encoding="utf-8")
        trainings.clear()
        df = compare(sweep_texts, **kwargs).table
        assert trainings == ["bpe whitespace/jamo"] and not df["model_cached"].any()
        pd.testing.assert_frame_equal(df[same], first[same])
        again = json.loads(entry.read_text(encoding="utf-8"))  # rewritten whole, with its new checksum
        assert again.pop("checksum") != json.loads(good)["checksum"]
        assert again == {**{k: v for k, v in json.loads(good).items() if k != "checksum"},
                         "train_s": df["train_s"].item()}
    entry.unlink()  # a directory that cannot be written costs the cache, not the run
    (tmp_path / "models").rmdir()  # type: ignore[operator]
    (tmp_path / "models").write_text("not a directory")  # type: ignore[operator]
    df = compare(sweep_texts, **kwargs).table
    pd.testing.assert_frame_equal(df[same], first[same])


def test_a_peer_crash_is_kept_as_its_note(
        tmp_path: object, monkeypatch: pytest.MonkeyPatch) -> None:
    from korean_bpe.compare import peers

    monkeypatch.setenv("KOREAN_BPE_CACHE_DIR", str(tmp_path))
    calls: list[int] = []

    def crash(name: str, texts: object, *, vocab_size: int, seed: int = 0) -> object:  # fault injection
        calls.append(vocab_size)
        raise peers.PeerCrash("kiwipiepy SwTokenizer.train crashed its process")

    monkeypatch.setattr(peers, "train_peer", crash)
    kwargs = {"eval_texts": HAND_TEST, "strategies": ["kiwi-swtokenizer"], "vocab_sizes": [6, 7], "gold": None,
              "show_progress": False}
    notes = _skips(compare(HAND_TRAIN * 3, **kwargs).notes)
    again = _skips(compare(HAND_TRAIN * 3, **kwargs).notes)
    assert calls == [6] and notes == again == [
        "skipped kiwi-swtokenizer at vocab size 6, 7: kiwipiepy SwTokenizer.train crashed its process"]
    compare(HAND_TRAIN * 3, model_cache=False, **kwargs)
    assert calls == [6, 6]


# -- the table -------------------------------------------------------------------------------------

def test_format_table_fits_100_columns(sweep: pd.DataFrame) -> None:
    from korean_bpe.compare.columns import INTERVAL_METRICS

    # the widest row: the longest name, wide numbers, and every interval metric not significant (~)
    longest = sweep.iloc[[0]].assign(strategy="baseline/morpheme-mecab", tokens_per_doc=12345.678,
                                     encode_texts_per_s=1.5e6, train_s=1234.5, self_graded=True,
                                     **{f"{m}_p": 0.5 for m in INTERVAL_METRICS},
                                     **{f"{m}_p_holm": 0.5 for m in INTERVAL_METRICS})
    text = run.format_table(pd.concat([sweep, longest], ignore_index=True))
    lines = text.splitlines()
    assert len(lines) == 2 + len(sweep) and max(map(len, lines)) <= 100
    assert lines[-1].split()[2:4] == ["12345.68~", f"{sweep.iloc[0]['tokens_per_word']:.2f}~"]
    assert lines[-1].split()[7].endswith("‡~")
    assert lines[0].split() == ["strategy", "vocab", "tok/doc", "tok/w", "cont%", "unk%", "renyi", "mF1%", "rt%",
                                "probe%", "train", "s", "kdoc/s"]
    first = sweep.iloc[0]
    cells = lines[1].split()
    assert cells[:4] == [first["strategy"] + "(ref)", str(first["vocab_size"]), f"{first['tokens_per_doc']:.2f}",
                         f"{first['tokens_per_word']:.2f}"]  # whitespace/jamo: the reference of the jamo rows
    assert first["reference"] == first["strategy"] == "whitespace/jamo" and math.isnan(first["tokens_per_doc_p"])
    assert cells[7] == f"{first['morph_f1'] * 100:.1f}"
    okt_row = lines[1 + sweep.index[sweep["strategy"] == "okt/syllable"][0]].split()
    # graded by its own analyzer; not tested: its reference (whitespace/syllable) is not in this sweep
    assert sweep.loc[sweep["strategy"] == "okt/syllable", "reference"].eq("").all()
    assert okt_row[0] == "okt/syllable?" and okt_row[7].endswith("‡")
    untested = [line.split()[0] for line in lines[1:] if line.split()[0].endswith("?")]
    assert untested == [f"{n}?" for n, ref in zip(sweep["strategy"], sweep["reference"]) if ref == ""] != []
    index = sweep.index[sweep["strategy"] == "okt-analysis/jamo"][0]
    lossy = lines[1 + index].split()
    assert lossy[0] == "okt-analysis/jamo†" and lossy[8] == "-"  # drops text; no round trip
    # ~ exactly where the Holm-adjusted p-value is not below 0.05
    row = sweep.loc[index]
    assert lossy[3].endswith("~") == (row["tokens_per_word_p_holm"] >= 0.05)
    assert lossy[9].endswith("~") == (row["probe_accuracy_p_holm"] >= 0.05)
    assert run.format_table(sweep.iloc[:0]) == "(no strategy could be measured)"
    from korean_bpe.cli import compare_legend
    from korean_bpe.compare.table import format_intervals

    legend = compare_legend(0.01)
    assert max(map(len, legend.splitlines())) <= 100 and "p >= 0.01" in legend and "mF1%" in legend
    intervals = format_intervals(pd.concat([sweep, longest], ignore_index=True)).splitlines()
    assert max(map(len, intervals)) <= 100 and intervals[0].split() == ["strategy", "vocab", "tok/w", "cont%",
                                                                         "mF1%", "rt%", "probe%"]
    assert intervals[1].split()[2:4] == [f"[{first['tokens_per_word_ci_low']:.2f},",
                                         f"{first['tokens_per_word_ci_high']:.2f}]"]


# -- the run's memory: collections and pre-tokenizations -------------------------------------------


def test_rare_collections_raises_the_thresholds_and_restores_them() -> None:
    import gc

    old = gc.get_threshold()
    try:
        gc.set_threshold(700, 10, 10)
        with run.rare_collections():
            assert gc.get_threshold() == run.GC_THRESHOLDS
        assert gc.get_threshold() == (700, 10, 10)
        gc.set_threshold(10**6, 5, 500)  # a caller's own higher value is kept, a lower one raised
        with pytest.raises(RuntimeError), run.rare_collections():
            assert gc.get_threshold() == (10**6, 20, 500)
            raise RuntimeError("a failing row")
        assert gc.get_threshold() == (10**6, 5, 500)
    finally:
        gc.set_threshold(*old)


def test_a_group_runs_with_rare_collections_and_releases_its_pre_tokenizations(
        sweep_texts: list[str], monkeypatch: pytest.MonkeyPatch) -> None:
    import gc

    seen: list[tuple[int, int, int]] = []
    kept: list[set[str]] = []
    measure_heldout = measure.measure_heldout

    def spy(row):  # noqa: ANN001, ANN202
        seen.append(gc.get_threshold())
        return measure_heldout(row)

    forget = pretok.Pretokenizations.forget

    def spy_forget(self, keys):  # noqa: ANN001, ANN202
        kept.append(set(self._done) | set(self._layouts))
        forget(self, keys)
        kept.append(set(self._done) | set(self._layouts) | set(self._aligned) | set(self._sample))

    from korean_bpe.compare.tasks import heldout as heldout_task

    monkeypatch.setattr(heldout_task, "measure_heldout", spy)
    monkeypatch.setattr(pretok.Pretokenizations, "forget", spy_forget)
    before = gc.get_threshold()
    df = compare(sweep_texts[:60], strategies=["whitespace/syllable", "baseline/word", "raw/syllable"],
                 vocab_sizes=[700], gold=None, show_progress=False).table
    assert len(df) == 3 and seen and all(t[0] >= run.GC_THRESHOLDS[0] for t in seen)
    assert gc.get_threshold() == before
    # the group (raw runs beside whitespace) held its pre-tokenizations (words, layout of the held-out
    # 어절) and let go of them at its end
    assert kept == [{"whitespace", "raw"}, set()]


def test_the_training_table_declares_what_its_pre_tokenizer_declares() -> None:
    from korean_bpe.pre_tokenizers import get_pre_tokenizer

    for pt in (get_pre_tokenizer("raw"), get_pre_tokenizer("whitespace")):
        table = training._Table(pt, {"영화 최고": ["영화", "최고"]})
        assert (table.name, table.lossless, table.piece_kind, table.to_config()) == \
            (pt.name, pt.lossless, pt.piece_kind, pt.to_config())
        assert getattr(table, "add_dummy_prefix", False) == getattr(pt, "add_dummy_prefix", False)
        assert table.batch(["영화 최고"]) == [["영화", "최고"]]  # from the table, not the stage
    assert not hasattr(training._Table(object(), {}), "piece_kind")  # what the stage lacks, it lacks


def test_a_model_with_a_lone_surrogate_is_cached_and_read_back(tmp_path: object, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("KOREAN_BPE_CACHE_DIR", str(tmp_path))
    texts = ["영화 \ud800 재밌다", "영화 최고 \ud800"] * 30  # the syllable alphabet holds the surrogate
    kwargs = {"strategies": ["whitespace/syllable"], "vocab_sizes": [20], "gold": None, "show_progress": False}
    first = compare(texts, **kwargs).table
    again = compare(texts, **kwargs).table
    assert not first["model_cached"].any() and again["model_cached"].all()
    same = [c for c in run.COLUMNS if c not in VOLATILE]
    pd.testing.assert_frame_equal(first[same], again[same], check_exact=True)


def test_model_cache_entries_leave_out_a_writes_leftovers(tmp_path: object) -> None:
    from korean_bpe.compare.model_cache import ModelCache

    cache = ModelCache(tmp_path)  # type: ignore[arg-type]
    key = cache.key({"strategy": "whitespace/syllable", "vocab_size": 300})
    cache.put(key, {"kind": "baseline", "train_s": 0.1, "vocab_tokens": ["<unk>", "영화"]})
    assert [p.name for p in tmp_path.iterdir()] == [f"{key}.json"]  # type: ignore[attr-defined]  # written whole
    leftovers = [tmp_path / f".{key}.json.x1y2.tmp.json", tmp_path / ".0123abcd-x1y2.tmp"]  # type: ignore[operator]
    for p in leftovers:
        p.write_text("{", encoding="utf-8")
    assert cache.entries() == [cache.path(key)]
    assert cache.get(key)["vocab_tokens"] == ["<unk>", "영화"]
    assert cache.clear() == 1 and not list(tmp_path.iterdir())  # type: ignore[attr-defined]


# -- intervals and the paired comparison ------------------------------------------------------------

STATS_STRATEGIES = ["whitespace/syllable", "raw/syllable", "whitespace/jamo", "baseline/word"]


@pytest.fixture(scope="module")
def spaced_texts(real_texts: list[str]) -> list[str]:
    """Reviews with single spaces only: raw and whitespace pre-tokenization then give the same ids."""
    return [" ".join(t.split()) for t in real_texts[:400] if t.split()]


def _stats_run(texts: list[str], **kwargs: object) -> object:
    labels = [len(t) % 2 for t in texts]
    return compare(texts[:300], labels=labels[:300], eval_texts=texts[300:], eval_labels=labels[300:],
                   strategies=STATS_STRATEGIES, vocab_sizes=[1000, 1200], gold=None, show_progress=False,
                   **kwargs)


def test_intervals_reference_and_identical_rows(spaced_texts: list[str]) -> None:
    from korean_bpe.compare import Statistics
    from korean_bpe.compare.columns import INTERVAL_METRICS, interval_columns

    result = _stats_run(spaced_texts, statistics=Statistics(resamples=300), seed=4)
    df = result.table
    assert result.config["resamples"] == 300 and result.config["seed"] == 4 and len(result) == 8
    # every row is compared with whitespace BPE of its unit; the word baseline with whitespace/syllable
    assert df["reference"].tolist() == ["whitespace/syllable"] * 4 + ["whitespace/jamo"] * 2 + \
        ["whitespace/syllable"] * 2
    ws, raw = df.iloc[0], df.iloc[2]
    assert raw["same_as"] == "whitespace/syllable" and ws["same_as"] == ""
    assert any(n.startswith("raw/syllable gives the same ids as whitespace/syllable") for n in result.notes)
    for metric in INTERVAL_METRICS:
        low, high, p = interval_columns(metric)
        if metric.startswith("morph") or metric.startswith("downstream"):  # gold=None; no downstream stage
            assert df[[low, high, p]].isna().all().all(), metric
            continue
        assert math.isnan(ws[p]) and raw[p] == 1.0, metric  # the reference itself; an identical row
        assert (raw[low], raw[high]) == (ws[low], ws[high]), metric
        assert (df[low] <= df[high]).all() and df[p].iloc[6:].between(0, 1).all(), metric
    jamo = df.iloc[4]
    assert jamo[["tokens_per_doc_p", "probe_accuracy_p"]].isna().all()  # the jamo rows' reference
    # the word baseline: one token an 어절, far fewer tokens than syllable BPE at any size
    word = df.iloc[6]
    assert word["tokens_per_word_ci_low"] == word["tokens_per_word_ci_high"] == 1.0
    assert word["tokens_per_doc_p"] < 0.01
    assert result.significant("tokens_per_doc").tolist() == [False] * 6 + [True] * 2  # references, same, word
    # the same seed gives the same intervals; another seed other intervals, the same values
    again = _stats_run(spaced_texts, statistics=Statistics(resamples=300), seed=4).table
    stable = [c for c in run.COLUMNS if c not in VOLATILE]
    pd.testing.assert_frame_equal(again[stable], df[stable])
    other = _stats_run(spaced_texts, statistics=Statistics(resamples=300), seed=5).table
    assert other["tokens_per_doc"].tolist() == df["tokens_per_doc"].tolist()
    assert other["tokens_per_doc_ci_low"].tolist() != df["tokens_per_doc_ci_low"].tolist()
    # none: no intervals, no p-values; a reference of one's choosing
    off = _stats_run(spaced_texts, statistics=Statistics(resamples=0, reference="baseline/word")).table
    ci = [c for m in INTERVAL_METRICS for c in interval_columns(m)[:2]]
    assert off[ci].isna().all().all() and (off["reference"] == "baseline/word").all()
    assert off["probe_accuracy_p"].iloc[:6].between(0, 1).all()  # McNemar needs no resamples
    with pytest.raises(ValueError, match="reference='baseline/letters' is not a strategy"):
        Statistics(reference="baseline/letters")
    with pytest.raises(ValueError, match=r"resamples must be an int from 0 \(no intervals\) to 100,000"):
        Statistics(resamples=-1)


def test_document_parts_add_up_to_every_row(spaced_texts: list[str], monkeypatch: pytest.MonkeyPatch) -> None:
    """One 'resample' that draws every document once gives each metric's own value: the per-document
    counts the bootstrap resamples (BPE rows per distinct 어절, baselines and peers per text, HF's
    spans) add up to what the row reports, exactly, and Rényi's influences sum to 0."""
    import numpy as np

    from korean_bpe.compare import Statistics, stats
    from korean_bpe.compare.columns import INTERVAL_METRICS, interval_columns

    monkeypatch.setattr(stats, "resample_counts", lambda n, resamples, seed: np.ones((resamples, n), dtype=np.uint8))
    names = ["whitespace/jamo", "okt/syllable", "okt-analysis/jamo", "baseline/syllable", "baseline/morpheme-okt"]
    if importlib.util.find_spec("tokenizers") is not None:
        names.append("hf-bpe")
    texts = [*spaced_texts[:200], "  앞뒤 공백과\t탭 ", "ㅋㅋㅋㅋ ㅠㅠ 개꿀잼!!", "영화  정말   재밌다"]
    labels = [len(t) % 2 for t in texts]
    df = compare(texts, labels=labels, strategies=names, vocab_sizes=[1500], gold="okt", seed=1,
                 statistics=Statistics(resamples=200), show_progress=False).table
    assert len(df) == len(names)
    for metric in INTERVAL_METRICS:
        low, high, _ = interval_columns(metric)
        for _, row in df.iterrows():
            if math.isnan(row[metric]):
                assert math.isnan(row[low]), (metric, row["strategy"])
            elif metric == "renyi_efficiency":
                assert row[low] == pytest.approx(row[metric], abs=1e-8) and row[high] == row[low]  # float32 parts
            else:
                assert row[low] == row[high] == row[metric], (metric, row["strategy"])
    assert df["morph_f1"].notna().all() and df["probe_accuracy"].notna().all()


def test_degenerate_statistics_give_no_interval_with_a_note(spaced_texts: list[str]) -> None:
    """One held-out document gave zero-width intervals and p = 0.002 for every difference: below
    stats.MIN_DOCUMENTS there are no intervals and no bootstrap p-values, with a note; the report
    does not speak of intervals over 0 resamples."""
    from korean_bpe.compare import Statistics, report, stats
    from korean_bpe.compare.columns import INTERVAL_METRICS, interval_columns

    names = ["baseline/word", "baseline/syllable"]
    for held_out in (spaced_texts[300:301], spaced_texts[300:300 + stats.MIN_DOCUMENTS - 1]):
        result = compare(spaced_texts[:300], eval_texts=held_out, strategies=names, vocab_sizes=[500], gold=None,
                         show_progress=False, statistics=Statistics(reference="baseline/word"))
        df = result.table
        stat_columns = [c for m in INTERVAL_METRICS for c in interval_columns(m)]
        assert df[stat_columns].isna().all().all() and result.config["resamples"] == 0
        assert any(n.startswith(f"no intervals and no bootstrap p-values: {len(held_out)} held-out") for n in result.notes)
        legend = report._legend(df, 0.95, result.config["resamples"])
        assert "over 0 resamples" not in legend and "No intervals" in legend and "No tests" in legend
    enough = compare(spaced_texts[:300], eval_texts=spaced_texts[300:300 + stats.MIN_DOCUMENTS], strategies=names,
                     vocab_sizes=[500], gold=None, show_progress=False, statistics=Statistics(reference="baseline/word"))
    assert enough.table["tokens_per_doc_ci_low"].notna().all() and enough.config["resamples"] == stats.RESAMPLES
    word, syllable = enough.table.iloc[0], enough.table.iloc[1]
    low, high = word["chars_per_token_ci_low"], word["chars_per_token_ci_high"]
    assert low <= word["chars_per_token"] <= high and low < high  # chars per token has its interval
    assert syllable["tokens_per_doc_p_holm"] == syllable["tokens_per_doc_p"]  # one test: Holm changes nothing


def test_cli_refuses_too_few_resamples_before_any_work(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    from korean_bpe.cli import main

    corpus = tmp_path / "c.txt"
    corpus.write_text("영화 정말 재밌다\n" * 50, encoding="utf-8")
    for bad in ("1", "150"):
        assert main(["compare", str(corpus), "--resamples", bad, "--no-progress", "-o", str(tmp_path / "out")]) == 1
        err = capsys.readouterr().err
        assert f"--resamples {bad} is too few for 95% intervals: give at least 200" in err, err
    assert not (tmp_path / "out").exists()


def test_byte_rows_show_partial_characters_as_the_peers_do() -> None:
    """Our byte rows showed a byte that is part of a character as U+FFFD while hf-bpe showed <0xEB>
    (and a leading space where the others show ▁): one way for every row."""
    from korean_bpe import Tokenizer
    from korean_bpe.compare.segmenters import BPESegmenter

    tok = Tokenizer.train(["영화 정말 재밌다 비밀과"] * 20, vocab_size=270, unit="byte", pre_tokenizer="whitespace")
    pieces = BPESegmenter(tok, strategy="whitespace/byte", pre_tokenizer="whitespace").pieces("뷁 영화")
    tokens = [t for t, _, _ in pieces]
    assert "\ufffd" not in "".join(tokens) and "<0xEB>" in "".join(tokens)  # 뷁 = EB B7 81, unseen
    assert "".join(tokens).replace("▁", "").startswith("<0xEB><0xB7><0x81>") or "<0xEB>" in tokens[1]
    if importlib.util.find_spec("tokenizers") is not None:
        from korean_bpe.compare.peers import train_hf_bpe

        hf = [t for t, _, _ in train_hf_bpe(["이 영화 최고", "이 영화 별로"] * 5, vocab_size=270).pieces("이 뷁")]
        assert hf[1].startswith("▁") and not any(t.startswith(" ") for t in hf) and "<0xEB>" in "".join(hf)
