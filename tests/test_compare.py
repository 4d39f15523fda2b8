"""korean_bpe.compare: metrics worked out by hand, the documented frame on real text, plots."""

from __future__ import annotations

import importlib.util
import math
import sys

import pytest

pd = pytest.importorskip("pandas")

from korean_bpe import Tokenizer  # noqa: E402
from korean_bpe.compare import metrics  # noqa: E402
from korean_bpe.compare.run import COLUMNS, DTYPES, compare_strategies, format_table  # noqa: E402

TIMING = ["pretok_s", "train_s", "encode_texts_per_s"]

# -- a case small enough to do by hand -----------------------------------------------------------
#
# Training texts "가나 가나 가나", "가나 다"; whitespace pre-tokenizer, syllable unit, marker ▁ in front
# of every word: ▁가나 x4, ▁다 x1.  Ids: <unk> 0, then the alphabet by code point: ▁ (U+2581) 1,
# 가 2, 나 3, 다 4 (5 tokens).  Pair counts: (▁,가) 4, (가,나) 4, (▁,다) 1.  The tie between the two
# 4s goes to the smaller id pair: merge 1 is ▁+가 (id 5), merge 2 is ▁가+나 (id 6, count 4); then
# (▁,다) has count 1 < min_frequency 2 and training stops at 7 tokens.
#
# Test texts "가나 다 라", "가나가나 가나": 5 white-space words (가나 twice), 6 + 7 = 13 characters.
#   2 merges:  ▁가나 | ▁ 다 | ▁ <unk>          = 5 tokens    ▁가나 가 나 | ▁가나 = 4 tokens
#   1 merge:   ▁가 나 | ▁ 다 | ▁ <unk>         = 6 tokens    ▁가 나 가 나 | ▁가 나 = 6 tokens
# Round trips: the first text decodes with <unk> in place of 라, the second exactly: 1/2.
# Whole words (occurrences of " " + word; a lone ▁ does not count, a lone <unk> is not whole):
#   2 merges: 가나 twice (▁가나) and 다 (▁ 다) are whole, 라 (▁ <unk>) and 가나가나 are not: 3/5;
#   1 merge:  only 다: 1/5.

HAND_TRAIN = ["가나 가나 가나", "가나 다"]
HAND_TEST = ["가나 다 라", "가나가나 가나"]


def test_metrics_on_a_hand_computed_case() -> None:
    notes: list[str] = []
    tokenizers: dict = {}
    df = compare_strategies(HAND_TRAIN, test_texts=HAND_TEST, pre_tokenizers=["whitespace"], units=["syllable"],
                            vocab_sizes=[4, 6, 7, 100], show_progress=False, notes=notes, tokenizers=tokenizers)
    assert notes == ["skipped whitespace/syllable at vocab size 4: smaller than its 5 special tokens + alphabet"]
    assert df["vocab_size"].tolist() == [6, 7, 100]
    assert df["actual_vocab_size"].tolist() == [6, 7, 7]  # training stopped at 7 (min_frequency)
    one, two, stopped = (df.iloc[i] for i in range(3))
    assert one["tokens_per_word"] == pytest.approx(12 / 5)
    assert one["chars_per_token"] == pytest.approx(13 / 12)
    assert one["unk_rate"] == pytest.approx(1 / 12)
    assert one["whole_word_rate"] == pytest.approx(1 / 5)
    assert one["round_trip_rate"] == 0.5
    assert two["tokens_per_word"] == pytest.approx(9 / 5)
    assert two["chars_per_token"] == pytest.approx(13 / 9)
    assert two["unk_rate"] == pytest.approx(1 / 9)
    assert two["whole_word_rate"] == pytest.approx(3 / 5)
    assert two["round_trip_rate"] == 0.5
    assert stopped[["tokens_per_word", "unk_rate", "whole_word_rate"]].tolist() == \
        two[["tokens_per_word", "unk_rate", "whole_word_rate"]].tolist()
    assert set(df["marker"]) == {"▁"} and not df["lossless"].any()
    assert (df["train_docs"] == 2).all() and (df["test_docs"] == 2).all()
    assert sorted(tokenizers) == [("whitespace", "syllable", v) for v in (6, 7, 100)]
    assert tokenizers[("whitespace", "syllable", 6)].tokenize(HAND_TEST[1]) == ["▁가", "나", "가", "나", "▁가", "나"]
    # the same tokenizations, spelled out, from a tokenizer trained directly
    tok = Tokenizer.train(HAND_TRAIN, vocab_size=7)
    assert tok.model.merges == (("▁", "가"), ("▁가", "나"))
    assert [tok.tokenize(t) for t in HAND_TEST] == [["▁가나", "▁", "다", "▁", "<unk>"], ["▁가나", "가", "나", "▁가나"]]


def test_pure_metrics() -> None:
    assert math.isnan(metrics.fertility(n_tokens=3, n_words=0))
    assert math.isnan(metrics.unk_rate([], unk_ids={0}))
    assert math.isnan(metrics.whole_word_rate([]))
    assert metrics.round_trip_rate(["가", "나"], ["가", "다"]) == 0.5
    with pytest.raises(ValueError, match="same length"):
        metrics.round_trip_rate(["가"], [])
    assert metrics.throughput(3, 0.0) == math.inf and math.isnan(metrics.throughput(0, 1.0))
    train, test = metrics.split_indices(100, test_fraction=0.1, seed=3)
    assert len(test) == 10 and sorted(train + test) == list(range(100))
    assert metrics.split_indices(100, test_fraction=0.1, seed=3) == (train, test)
    assert metrics.split_indices(100, test_fraction=0.1, seed=4) != (train, test)
    with pytest.raises(ValueError, match="test_fraction"):
        metrics.split_indices(10, test_fraction=1.0, seed=0)


# -- the documented frame on real text ----------------------------------------------------------

UNITS = ["syllable", "jamo", "byte"]
SIZES = [800, 1100]  # above the ~720 syllables of the sample


@pytest.fixture(scope="module")
def sample(real_texts: list[str]) -> list[str]:
    return real_texts[:300]


@pytest.fixture(scope="module")
def frame(sample: list[str]) -> pd.DataFrame:
    return compare_strategies(sample, pre_tokenizers=["whitespace", "raw"], units=UNITS, vocab_sizes=SIZES,
                              test_fraction=0.2, seed=7, show_progress=False)


def test_frame_columns_dtypes_and_rows(frame: pd.DataFrame, sample: list[str]) -> None:
    assert tuple(frame.columns) == COLUMNS
    assert {c: str(t) for c, t in frame.dtypes.items()} == DTYPES
    assert list(zip(frame["pre_tokenizer"], frame["unit"], frame["vocab_size"])) == [
        (p, u, v) for p in ("whitespace", "raw") for u in UNITS for v in SIZES
    ]
    assert (frame["train_docs"] == 240).all() and (frame["test_docs"] == 60).all()
    assert (frame["actual_vocab_size"] <= frame["vocab_size"]).all()
    for col in ("unk_rate", "whole_word_rate", "round_trip_rate"):
        assert frame[col].between(0, 1).all(), col
    assert (frame["tokens_per_word"] >= 1).all() and (frame["chars_per_token"] > 0).all()
    assert (frame[TIMING] > 0).all().all()
    assert frame["lossless"].tolist() == [False] * 6 + [True] * 6
    assert frame["marker"].tolist() == ["▁"] * 6 + [""] * 6
    # bytes cover every test symbol: no <unk>, and the lossless pipeline (raw) is exact
    covered = frame[frame["unit"] == "byte"]
    assert (covered["unk_rate"] == 0).all()
    assert (covered[covered["lossless"]]["round_trip_rate"] == 1).all()
    # jamo spell unseen syllables from seen jamo: fewer <unk> than syllables
    for p in ("whitespace", "raw"):
        by_unit = frame[frame["pre_tokenizer"] == p].groupby("unit")["unk_rate"].max()
        assert by_unit["jamo"] < by_unit["syllable"]
    # a bigger vocabulary never makes the sequences longer
    for _, g in frame.groupby(["pre_tokenizer", "unit"]):
        assert g["tokens_per_word"].iloc[1] <= g["tokens_per_word"].iloc[0]


def test_frame_agrees_with_a_tokenizer_trained_directly(frame: pd.DataFrame, sample: list[str]) -> None:
    """Row whitespace/jamo/800: training at 800 directly gives the truncated model's merges and
    the same fertility over the held-out documents of the split."""
    train_idx, test_idx = metrics.split_indices(len(sample), test_fraction=0.2, seed=7)
    train = [sample[i] for i in train_idx]
    test = [sample[i] for i in test_idx]
    tok = Tokenizer.train(train, vocab_size=800, unit="jamo")
    row = frame[(frame["pre_tokenizer"] == "whitespace") & (frame["unit"] == "jamo") & (frame["vocab_size"] == 800)]
    assert len(row) == 1
    n_tokens = sum(len(ids) for ids in tok.encode_batch(test))
    n_words = sum(len(t.split()) for t in test)
    assert row["actual_vocab_size"].item() == tok.vocab_size
    assert row["tokens_per_word"].item() == pytest.approx(n_tokens / n_words)
    assert row["chars_per_token"].item() == pytest.approx(sum(map(len, test)) / n_tokens)


def test_deterministic_for_a_seed(frame: pd.DataFrame, sample: list[str]) -> None:
    again = compare_strategies(sample, pre_tokenizers=["whitespace", "raw"], units=UNITS, vocab_sizes=SIZES,
                               test_fraction=0.2, seed=7, show_progress=False)
    stable = [c for c in COLUMNS if c not in TIMING]
    pd.testing.assert_frame_equal(frame[stable], again[stable])
    other = compare_strategies(sample, pre_tokenizers=["whitespace"], units=["syllable"], vocab_sizes=SIZES,
                               test_fraction=0.2, seed=8, show_progress=False)
    assert other["tokens_per_word"].tolist() != frame["tokens_per_word"].tolist()[:2]


def test_morpheme_analyzers_in_lossless_mode(sample: list[str]) -> None:
    installed = [n for n, mod in (("okt", "konlpy"), ("kiwi", "kiwipiepy"), ("mecab", "mecab"))
                 if importlib.util.find_spec(mod) is not None]
    if not installed:
        pytest.skip("no morpheme analyzer installed")
    notes: list[str] = []
    df = compare_strategies(sample[:120], pre_tokenizers=installed, units=["byte"], vocab_sizes=[500],
                            show_progress=False, notes=notes)
    assert notes == [] or all("okt" in n and "Java" in n for n in notes)  # only a missing JVM may skip
    assert df["lossless"].all() and (df["round_trip_rate"] == 1).all()
    assert df["pre_tokenizer"].tolist() == [n for n in installed if not any(n in note for note in notes)]
    assert (df["unk_rate"] == 0).all()
    assert (df["pretok_s"] > 0).all() and (df["tokens_per_word"] >= 1).all()


def test_missing_analyzer_is_skipped_with_one_note(sample: list[str], monkeypatch: pytest.MonkeyPatch) -> None:
    import korean_bpe.pre_tokenizers.kiwi as kiwi_module

    monkeypatch.setattr(kiwi_module, "_kiwi", None)
    monkeypatch.setitem(sys.modules, "kiwipiepy", None)  # fault injection: the import fails
    notes: list[str] = []
    df = compare_strategies(sample[:60], pre_tokenizers=["kiwi", "whitespace"], units=["syllable", "byte"],
                            vocab_sizes=[2000], show_progress=False, notes=notes)
    assert len(notes) == 1 and notes[0].startswith("skipped kiwi (syllable, byte): ")
    assert "pip install" in notes[0] and "\n" not in notes[0]
    assert df["pre_tokenizer"].tolist() == ["whitespace", "whitespace"]


def test_empty_frame_keeps_columns_and_dtypes() -> None:
    notes: list[str] = []
    df = compare_strategies(HAND_TRAIN, test_texts=HAND_TEST, pre_tokenizers=["whitespace"], units=["syllable"],
                            vocab_sizes=[3], show_progress=False, notes=notes)
    assert df.empty and tuple(df.columns) == COLUMNS and {c: str(t) for c, t in df.dtypes.items()} == DTYPES
    assert format_table(df) == "(no strategy could be measured)"
    assert len(notes) == 1


@pytest.mark.parametrize(("kwargs", "error", "match"), [
    ({"vocab_sizes": 4000}, TypeError, "vocab_sizes"),
    ({"vocab_sizes": [0]}, ValueError, "vocab_sizes"),
    ({"units": "jamo"}, TypeError, "units"),
    ({"units": []}, ValueError, "units"),
    ({"test_texts": [" ", ""]}, ValueError, "test_texts"),
    ({"test_fraction": 0.0}, ValueError, "test_fraction"),
])
def test_bad_arguments(kwargs: dict, error: type, match: str) -> None:
    with pytest.raises(error, match=match):
        compare_strategies(HAND_TRAIN, **{"pre_tokenizers": ["whitespace"], "show_progress": False, **kwargs})


def test_format_table(frame: pd.DataFrame) -> None:
    text = format_table(frame)
    lines = text.splitlines()
    assert len(lines) == 1 + len(frame)
    assert lines[0].split() == ["pre-tok", "unit", "lossless", "vocab", "actual", "tok/word", "chars/tok", "unk%",
                                "whole%", "roundtrip%", "pretok", "s", "train", "s", "enc", "texts/s"]
    first = lines[1].split()
    assert first[:5] == ["whitespace", "syllable", "no", "800", str(frame["actual_vocab_size"].iloc[0])]
    assert first[5] == f"{frame['tokens_per_word'].iloc[0]:.3f}"


# -- plots ---------------------------------------------------------------------------------------

def test_plot_writes_a_png(frame: pd.DataFrame, tmp_path) -> None:
    pytest.importorskip("matplotlib")
    from korean_bpe.compare.plot import PANELS, plot_comparison

    out = tmp_path / "sub" / "compare.png"
    fig = plot_comparison(frame, out, title="test")
    data = out.read_bytes()
    assert data[:8] == b"\x89PNG\r\n\x1a\n" and len(data) > 20_000
    import matplotlib

    assert matplotlib.get_backend().lower() == "agg"
    assert len(fig.axes) == len(PANELS)
    assert [t.get_text() for t in fig.axes[0].get_xticklabels()] == [
        f"{p}/{u}" for p in ("whitespace", "raw") for u in UNITS
    ]
    with pytest.raises(ValueError, match="empty"):
        plot_comparison(frame.iloc[:0], tmp_path / "empty.png")
    with pytest.raises(ValueError, match="unk_rate"):
        plot_comparison(frame.drop(columns=["unk_rate"]), tmp_path / "bad.png")
