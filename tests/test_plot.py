"""Plots of the comparison frame (COMPARE_SPEC.md columns): Korean renders, files are written, bad
input is refused.  The frames are built here with the exact columns and realistic values."""

from __future__ import annotations

import math
import warnings
from collections import Counter
from pathlib import Path

import pytest

pd = pytest.importorskip("pandas")
matplotlib = pytest.importorskip("matplotlib")
matplotlib.use("Agg")

from korean_bpe.compare import columns, plot  # noqa: E402
from korean_bpe.compare.stats import holm  # noqa: E402

#: the columns of korean_bpe.compare.compare before the statistics (COMPARE_SPEC.md): a frame of an
#: older run, which the plots and the report still draw
SPEC_COLUMNS = (
    "strategy", "kind", "pre_tokenizer", "unit", "lossless", "vocab_size", "actual_vocab_size",
    "tokens_per_doc", "tokens_per_word", "continued_word_rate", "chars_per_token", "bytes_per_token",
    "unk_rate", "unrepresentable_char_rate", "renyi_efficiency", "renyi_efficiency_observed",
    "gold", "self_graded", "morph_precision", "morph_recall", "morph_f1",
    "incomplete_hangul_rate", "jamo_token_rate", "round_trip_rate", "probe_accuracy",
    "train_s", "pretok_s", "encode_texts_per_s", "train_docs", "test_docs", "model_cached",
)

NAN = float("nan")


def _row(strategy: str, kind: str, pre: str, unit: str, vocab: int, tpw: float, f1: float, renyi: float,
         probe: float, *, lossless: bool = True, self_graded: bool = False) -> dict:
    words_per_doc = 7.5
    chars_per_token = 34.7 / (tpw * words_per_doc)
    return {
        "strategy": strategy, "kind": kind, "pre_tokenizer": pre, "unit": unit, "lossless": lossless,
        "vocab_size": vocab, "actual_vocab_size": vocab if kind != "baseline" else min(vocab, 2350),
        "tokens_per_doc": tpw * words_per_doc, "tokens_per_word": tpw,
        "continued_word_rate": min(1.0, max(0.0, (tpw - 1) / 1.5)), "chars_per_token": chars_per_token,
        "bytes_per_token": chars_per_token * 2.6, "unk_rate": 0.001 if unit == "syllable" else 0.0,
        "unrepresentable_char_rate": 0.0, "renyi_efficiency": renyi, "renyi_efficiency_observed": renyi + 0.03,
        "gold": "kiwi", "self_graded": self_graded, "morph_precision": f1 + 0.02, "morph_recall": f1 - 0.02,
        "morph_f1": f1, "incomplete_hangul_rate": 0.12 if unit == "byte" else 0.0,
        "jamo_token_rate": 0.08 if unit == "jamo" else 0.0, "round_trip_rate": 0.994 if lossless else 0.61,
        "probe_accuracy": probe, "train_s": 1.2, "pretok_s": 20.5 if pre in ("okt", "kiwi") else 0.03,
        "encode_texts_per_s": 120_000.0, "train_docs": 20_000, "test_docs": 2_000, "model_cached": False,
    }


def sample_frame(*, probe: bool = True, stats: bool = True, downstream: bool = False) -> pd.DataFrame:
    """A comparison at vocab 4k and 8k: BPE rows, peers, baselines (realistic NSMC-like values);
    ``stats``: with every column of today's table (intervals of half-width 2% of each value, p-values
    0.5 for the okt rows and 0.001 for the others, okt-analysis dropping text, raw/byte the same as
    whitespace/jamo; Holm-adjusted p-values), else the 31 older columns."""
    rows = []
    for vocab, shrink in ((4000, 1.0), (8000, 0.9)):
        for pre, unit, tpw, f1, renyi, acc, own in (
            ("whitespace", "syllable", 2.35, 0.48, 0.41, 0.801, False),
            ("whitespace", "jamo", 2.30, 0.50, 0.42, 0.803, False),
            ("raw", "byte", 2.45, 0.46, 0.39, 0.795, False),
            ("kiwi", "jamo", 2.70, 0.83, 0.45, 0.812, True),
            ("okt", "syllable", 2.55, 0.74, 0.44, 0.809, False),
        ):
            rows.append(_row(f"{pre}/{unit}", "bpe", pre, unit, vocab, tpw * shrink + (1 - shrink) * 1.2,
                             f1 - (1 - shrink) * 0.1, renyi - (1 - shrink) * 0.2, acc + (1 - shrink) * 0.02,
                             self_graded=own))
        rows.append(_row("okt-analysis/syllable", "bpe", "okt-analysis", "syllable", vocab, 2.1 * shrink,
                         0.70, 0.43, 0.79, lossless=False))
        rows.append(_row("sentencepiece-unigram", "peer", "", "unigram", vocab, 2.28 * shrink + 0.1, 0.55,
                         0.40, 0.80))
        rows.append(_row("kiwi-bpe", "peer", "", "byte-bpe", vocab, 2.6 * shrink + 0.2, 0.80, 0.43, 0.81,
                         self_graded=True))
        for unit, tpw, f1 in (("jamo", 10.9, 0.20), ("syllable", 4.6, 0.33), ("word", 1.0, 0.0)):
            rows.append(_row(f"baseline/{unit}", "baseline", "", unit, vocab, tpw, f1, 0.30, 0.70))
    df = pd.DataFrame(rows, columns=list(SPEC_COLUMNS))
    if not probe:
        df["probe_accuracy"] = NAN
    if not stats:
        return df
    df["drops_text"] = df["strategy"] == "okt-analysis/syllable"
    df["partial_char_end_rate"] = df["incomplete_hangul_rate"] * 0.9  # the hygiene columns
    df["residue_rate"] = [0.03 if k == "bpe" else NAN for k in df["kind"]]
    df["single_token_retention"] = [0.9 if p in ("whitespace", "raw") else 0.5 for p in df["pre_tokenizer"]]
    df["downstream_accuracy"] = df["probe_accuracy"] + 0.04 if downstream else NAN  # a model on the sequences
    df["downstream_macro_f1"] = df["downstream_accuracy"] - 0.002
    df["downstream_seed_sd"] = 0.003 if downstream else NAN
    df["downstream_s"] = 40.0 if downstream else NAN
    df["same_as"] = ["whitespace/jamo" if s == "raw/byte" else "" for s in df["strategy"]]
    df["reference"] = [f"whitespace/{u}" if u in ("syllable", "jamo", "byte") else "whitespace/syllable"
                       for u in df["unit"]]
    for metric in columns.INTERVAL_METRICS:
        low, high, p = columns.interval_columns(metric)
        df[low], df[high] = df[metric] * 0.98, df[metric] * 1.02
        df[p] = [NAN if r == s else 0.5 if s.startswith("okt") else 0.001 for s, r in zip(df["strategy"], df["reference"])]
        df[columns.adjusted_column(metric)] = holm(df[p])
    return df[list(columns.COLUMNS)].astype(columns.DTYPES)


def sample_segmentations() -> tuple[list[str], dict[str, list[list[str]]]]:
    sentences = ["언제나 스타일이 이긴다", "너무너무재밌게보았습니다 🥲"]
    cuts = {
        "whitespace/syllable": [["▁언제나", "▁스타일이", "▁이긴다"], ["▁너무너무", "재밌게", "보", "았", "습니다", "▁", "<unk>"]],
        # jamo tokens: the tokenizer shows conjoining jamo; 보아|ᆻ습니다 cuts the syllable 았
        "okt/jamo": [["▁언제나", "▁스타일", "이", "▁이긴다"],
                     ["▁너무너무", "재밌게", "보아", "\u11bb\u1109\u1173\u11b8\u1102\u1175\u1103\u1161", "▁🥲"]],
        "raw/byte": [["▁언제나", "▁스타일이", "▁이", "긴다"], ["▁너무너무", "재밌게", "보았습니다", "▁\ufffd", "\ufffd"]],
    }
    return sentences, cuts


def _glyph_errors() -> warnings.catch_warnings:
    """A context in which a missing glyph (tofu) raises instead of warning."""
    ctx = warnings.catch_warnings()
    ctx.__enter__()
    warnings.filterwarnings("error", message=r"Glyph .* missing from font", category=UserWarning)
    return ctx


def test_sample_frames_have_the_columns() -> None:
    assert len(SPEC_COLUMNS) == 31 and len(set(SPEC_COLUMNS)) == 31  # the 30 and model_cached
    assert list(sample_frame(stats=False).columns) == list(SPEC_COLUMNS)
    assert list(sample_frame().columns) == list(columns.COLUMNS) and set(SPEC_COLUMNS) < set(columns.COLUMNS)


def test_missing_glyph_filter_catches_tofu_without_the_font(tmp_path: Path) -> None:
    """The control: matplotlib's own default font has no Hangul, and the filter turns that into an error."""
    import matplotlib.pyplot as plt

    ctx = _glyph_errors()
    try:
        with matplotlib.rc_context({"font.family": ["DejaVu Sans"]}):
            fig, ax = plt.subplots()
            ax.set_title("토큰 수")
            with pytest.raises(UserWarning, match="missing from font"):
                fig.savefig(tmp_path / "tofu.png")
            plt.close(fig)
    finally:
        ctx.__exit__(None, None, None)


def test_korean_font_is_the_bundled_nanum_gothic() -> None:
    assert plot.korean_font() == "NanumGothic"
    path = plot.bundled_font()
    assert path is not None and path.name == "NanumGothic.ttf" and path.stat().st_size > 1_000_000
    import sys

    assert "koreanize_matplotlib" not in sys.modules  # the file is used, the package never imported


@pytest.mark.parametrize("draw", [plot.plot_tokens_per_word, plot.plot_renyi, plot.plot_tradeoff, plot.plot_probe],
                         ids=lambda f: f.__name__)
def test_frame_plots_render_hangul_without_tofu(draw, tmp_path: Path) -> None:
    ctx = _glyph_errors()
    try:
        path = tmp_path / "sub" / f"{draw.__name__}.png"
        fig = draw(sample_frame(), path, **({"task": "감성 분류"} if draw is plot.plot_probe else {}))
    finally:
        ctx.__exit__(None, None, None)
    assert path.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
    assert path.stat().st_size > 20_000
    texts = [t.get_text() for ax in fig.axes for t in ax.texts] + [ax.get_title() for ax in fig.axes]
    assert any(any("\uac00" <= ch <= "\ud7a3" for ch in t) for t in texts)  # Hangul drawn


def test_the_user_rc_params_are_left_alone(tmp_path: Path) -> None:
    before = list(matplotlib.rcParams["font.family"])
    plot.plot_tokens_per_word(sample_frame(), tmp_path / "a.png")
    assert list(matplotlib.rcParams["font.family"]) == before


def _lines(ax: object) -> dict[str, object]:
    """label -> the data line of each labelled errorbar of ``ax``."""
    return {c.get_label(): c.lines[0] for c in ax.containers}  # type: ignore[attr-defined]


def test_tokens_per_word_lines_and_baseline_references() -> None:
    import matplotlib.pyplot as plt

    fig = plot.plot_tokens_per_word(sample_frame())
    ax = fig.axes[0]
    lines = _lines(ax)
    # one line per bpe strategy and per peer, each with its two vocabulary sizes
    assert "okt/syllable" in lines and "kiwi-bpe (peer)" in lines and "baseline/jamo" not in lines
    assert "okt-analysis/syllable †" in lines  # drops text: marked
    okt = lines["okt/syllable"]
    assert list(okt.get_xdata()) == [4000.0, 8000.0]
    assert okt.get_ydata()[0] == pytest.approx(2.55) and okt.get_ydata()[1] == pytest.approx(2.55 * 0.9 + 0.12)
    # baselines: horizontal reference lines at their value, labelled
    # bpe and peers span 1.9..2.8: word (1.0) is drawn, syllable (4.6) and jamo (10.9) are named off the scale
    horizontal = sorted(line.get_ydata()[0] for line in ax.get_lines() if line.get_label().startswith("_child"))
    assert horizontal == pytest.approx([1.0])
    assert {t.get_text() for t in ax.texts} == {"baseline/word 1"}
    # error bars: the interval around each point (2% of the value either side)
    bars = ax.containers[list(lines).index("okt/syllable")].lines[2][0].get_segments()
    assert [(a[1], b[1]) for a, b in bars] == [pytest.approx((2.55 * 0.98, 2.55 * 1.02)),
                                               pytest.approx(((2.55 * 0.9 + 0.12) * 0.98, (2.55 * 0.9 + 0.12) * 1.02))]
    notes = " ".join(t.get_text() for t in fig.texts)
    assert "raw/byte same as whitespace/jamo" in notes and "† drops text" in notes and "bootstrap intervals" in notes
    assert "baselines off the scale: baseline/jamo 10.9, baseline/syllable 4.6" in notes
    plt.close(fig)


def _overlapping(fig: object, texts: list) -> list[tuple[str, str]]:
    """The pairs of ``texts`` whose drawn boxes overlap."""
    renderer = fig.canvas.get_renderer()  # type: ignore[attr-defined]
    boxes = [(t.get_text(), t.get_window_extent(renderer)) for t in texts]
    return [(a, b) for i, (a, x) in enumerate(boxes) for b, y in boxes[i + 1:] if x.overlaps(y)]


def test_baseline_names_are_moved_apart_when_their_values_are_close() -> None:
    """Three baselines within a hair of each other (the morpheme baselines of the demo: 3.05, 3.22,
    3.26 tokens per 어절) used to overprint at the right edge."""
    import matplotlib.pyplot as plt

    df = sample_frame()
    df.loc[df["strategy"] == "baseline/syllable", "tokens_per_word"] = 2.0
    df.loc[df["strategy"] == "baseline/word", "tokens_per_word"] = 2.01
    fig = plot.plot_tokens_per_word(df)
    names = [t for t in fig.axes[0].texts if t.get_text().startswith("baseline/")]
    assert len(names) == 2 and not _overlapping(fig, names)
    plt.close(fig)


def test_spread_keeps_order_and_gap() -> None:
    got = plot._spread([3.26, 3.05, 3.22, 1.0], 0.1)
    assert got[3] == 1.0 and got[1] < got[2] < got[0]
    ordered = sorted(got)
    assert all(b - a >= 0.1 - 1e-9 for a, b in zip(ordered, ordered[1:]))


def test_a_frame_without_intervals_is_drawn_without_bars() -> None:
    import matplotlib.pyplot as plt

    for draw in (plot.plot_tokens_per_word, plot.plot_tradeoff, plot.plot_probe):
        fig = draw(sample_frame(stats=False))
        assert not any(c.has_xerr or c.has_yerr for c in fig.axes[0].containers), draw.__name__
        assert not any("bootstrap" in t.get_text() for t in fig.texts)
        plt.close(fig)


def test_tradeoff_zooms_on_the_cluster_with_a_legend_and_no_overlapping_labels() -> None:
    """The bpe and peer rows fill the axes; the jamo, syllable and word baselines (10.9, 4.6 and 1.0
    tokens per 어절) are named off the scale instead of stretching them; every strategy drawn is
    in the legend with a colour and marker of its own; the names beside the points never overlap;
    the F1 axis is in percent, as the tables."""
    import matplotlib.pyplot as plt

    df = sample_frame()
    fig = plot.plot_tradeoff(df)
    ax = fig.axes[0]
    points = [c for c in ax.collections if type(c).__name__ == "PathCollection"]
    drawn = df[~df["strategy"].isin(["baseline/jamo", "baseline/syllable", "baseline/word"])]
    assert len(points) == drawn["strategy"].nunique()  # one scatter per strategy, a point per row
    assert sum(len(c.get_offsets()) for c in points) == len(drawn)
    assert len(ax.containers) == drawn["strategy"].nunique()  # its error bars, both ways
    assert all(c.has_xerr and c.has_yerr for c in ax.containers)
    notes = " ".join(t.get_text() for t in fig.texts)
    assert "off the scale (not drawn): baseline/jamo (10.9 tokens/어절, F1 20.0%), baseline/syllable (4.6" in notes
    legend = [t.get_text() for t in ax.get_legend().get_texts()]
    assert len(legend) == drawn["strategy"].nunique() and "okt-analysis/syllable †" in legend
    assert "kiwi/jamo ‡" in legend  # graded by its own analyzer
    styles = {(str(c.get_edgecolor()[0].round(3).tolist()), c.get_paths()[0].vertices.tobytes()) for c in points}
    assert len(styles) == len(points)  # no two strategies share colour and marker
    labels = [t for t in ax.texts if t.get_text()]
    assert labels and not _overlapping(fig, labels)
    assert ax.yaxis.get_major_formatter()(0.5, 0) == "50" and "(%)" in ax.get_ylabel() and "kiwi" in ax.get_ylabel()
    hollow = [c for c in points if len(c.get_facecolors()) == 0 or c.get_facecolors()[0][3] == 0]
    assert len(hollow) == drawn[drawn["self_graded"]]["strategy"].nunique()
    assert not _overlapping(fig, [ax.title, *labels])  # the title is not overprinted
    plt.close(fig)


def test_probe_refused_when_every_row_is_nan() -> None:
    df = sample_frame(probe=False)
    assert not plot.has_probe(df) and plot.has_probe(sample_frame())
    with pytest.raises(ValueError, match="labels"):
        plot.plot_probe(df)


def test_probe_orders_strategies_best_on_top() -> None:
    import matplotlib.pyplot as plt

    fig = plot.plot_probe(sample_frame())
    names = [t.get_text() for t in fig.axes[0].get_yticklabels()]
    assert names[-1] == "kiwi/jamo" and names[0] == "baseline/jamo"
    plt.close(fig)


def test_probe_legend_sits_outside_the_points_and_bars_show_intervals() -> None:
    """The legend ("vocab 8,000") used to sit on a data point and read as one: it is outside the axes."""
    import matplotlib.pyplot as plt

    fig = plot.plot_probe(sample_frame())
    ax = fig.axes[0]
    fig.canvas.draw()
    legend = ax.get_legend().get_window_extent()
    assert legend.x0 >= ax.get_window_extent().x1  # right of the axes: on no point
    assert [t.get_text() for t in ax.get_legend().get_texts()] == ["vocab 4,000", "vocab 8,000"]
    assert all(c.has_xerr for c in ax.containers) and len(ax.containers) == 2
    low, high = ax.containers[1].lines[2][0].get_segments()[0][:, 0]  # whitespace/syllable at 8,000: 0.803
    assert (low, high) == (pytest.approx(0.803 * 0.98), pytest.approx(0.803 * 1.02))
    plt.close(fig)


def test_frame_checks() -> None:
    with pytest.raises(ValueError, match="lacks the column 'morph_f1'"):
        plot.plot_tradeoff(sample_frame().drop(columns=["morph_f1"]))
    with pytest.raises(ValueError, match="empty"):
        plot.plot_tokens_per_word(sample_frame().iloc[:0])
    df = sample_frame()
    df["morph_f1"] = NAN
    with pytest.raises(ValueError, match="NaN in every row"):
        plot.plot_tradeoff(df)


def test_token_lengths_shares_and_pooled_tail(tmp_path: Path) -> None:
    import matplotlib.pyplot as plt

    lengths = {"okt/jamo": Counter({1: 50, 2: 30, 3: 15, 12: 5}), "raw/byte": [0, 1, 1, 2]}
    ctx = _glyph_errors()
    try:
        fig = plot.plot_token_lengths(lengths, tmp_path / "lengths.png", max_length=10)
    finally:
        ctx.__exit__(None, None, None)
    heights = [p.get_height() for p in fig.axes[0].patches]
    assert heights[:4] == pytest.approx([0.0, 0.5, 0.3, 0.15]) and heights[10] == pytest.approx(0.05)
    assert [p.get_height() for p in fig.axes[1].patches][:3] == pytest.approx([0.25, 0.5, 0.25])
    assert fig.axes[0].get_title() == "okt/jamo  (mean 2.15)"
    plt.close(fig)
    with pytest.raises(ValueError, match="no tokens"):
        plot.plot_token_lengths({"x": Counter()})
    with pytest.raises(ValueError, match="int >= 0"):
        plot.plot_token_lengths({"x": [1.5]})


def test_readable_token_composes_jamo_and_shows_stray_jamo() -> None:
    assert plot.readable_token("▁\u1112\u1161\u11ab\u1100\u116e\u11a8") == "▁한국"
    assert plot.readable_token("\u11bb\u1109\u1173\u11b8") == "ㅆ습"
    assert plot.readable_token("\u1100") == "ㄱ" and plot.readable_token("\u1161") == "ㅏ"
    assert plot.readable_token("ㅋㅋ abc") == "ㅋㅋ abc"
    assert plot._is_partial("\u11bb\u1109\u1173\u11b8") and not plot._is_partial("\u1109\u1173\u11b8")
    assert plot._is_partial("\ufffd") and not plot._is_partial("▁영화")


def test_segmentation_draws_every_token_composed(tmp_path: Path) -> None:
    import matplotlib.pyplot as plt

    sentences, cuts = sample_segmentations()
    ctx = _glyph_errors()
    try:
        fig = plot.plot_segmentation(sentences, cuts, tmp_path / "seg.png")
    finally:
        ctx.__exit__(None, None, None)
    texts = [t.get_text() for t in fig.axes[0].texts]
    assert "1. 언제나 스타일이 이긴다" in texts
    assert "2. 너무너무재밌게보았습니다 [U+1F972]" in texts  # no font has this emoji: shown as its code
    assert "okt/jamo (5)" in texts and "ㅆ습니다" in texts and "보아" in texts
    boxes = [t for t in fig.axes[0].texts if t.get_bbox_patch() is not None]
    assert len(boxes) == sum(len(tokens) for per in cuts.values() for tokens in per)
    orange = [t.get_text() for t in boxes if matplotlib.colors.to_hex(t.get_bbox_patch().get_facecolor()) == plot.PARTIAL_COLOR]
    assert sorted(orange) == sorted(["ㅆ습니다", "<unk>", "▁\ufffd", "\ufffd"]) or sorted(orange) == sorted(["ㅆ습니다", "▁\ufffd", "\ufffd"])
    assert (tmp_path / "seg.png").stat().st_size > 10_000
    plt.close(fig)


def test_segmentation_checks() -> None:
    sentences, cuts = sample_segmentations()
    with pytest.raises(ValueError, match="2 sentences"):
        plot.plot_segmentation(sentences, {"x": [["a"]]})
    with pytest.raises(ValueError, match="sentences is empty"):
        plot.plot_segmentation([], cuts)


def test_nan_is_not_a_number_plotted() -> None:
    df = sample_frame()
    df.loc[df["strategy"] == "raw/byte", "renyi_efficiency"] = NAN
    fig = plot.plot_renyi(df)
    labels = list(_lines(fig.axes[0]))
    assert "raw/byte" not in labels and "okt/syllable" in labels
    assert not any(math.isnan(y) for line in fig.axes[0].get_lines() for y in line.get_ydata())


def test_tradeoff_draws_when_labels_are_crowded_out() -> None:
    """Names that cannot be placed without overlapping are left out, with no leader line (one left
    pointing at a removed name broke the drawing on the NSMC grid)."""
    import matplotlib.pyplot as plt

    base = sample_frame()
    base = base[base["kind"] != "baseline"]
    df = pd.concat([base.assign(strategy=base["strategy"] + f" copy {k}") for k in range(6)], ignore_index=True)
    crowd = df["kind"] != "baseline"
    df["tokens_per_word"] = 2.0 + 0.0005 * df.index
    df["morph_f1"] = 0.6 + 0.0002 * df.index
    fig = plot.plot_tradeoff(df)
    ax = fig.axes[0]
    labels = [t for t in ax.texts if t.get_text()]
    assert len(labels) < df.loc[crowd, "strategy"].nunique()  # some names left to the legend
    assert not _overlapping(fig, labels)
    fig.canvas.draw()  # every artist left draws
    plt.close(fig)


# -- issue 43: the plots say what the tables say -------------------------------------------------

def test_renyi_draws_each_baseline_at_its_value_at_each_size() -> None:
    """renyi.png drew each baseline at its mean over the sizes (values in no table); a morpheme
    baseline's Rényi efficiency changes with the size (its rarer morphemes become <unk>)."""
    import matplotlib.pyplot as plt

    df = sample_frame()
    varying = df["strategy"] == "baseline/syllable"
    df.loc[varying, "renyi_efficiency"] = [0.41 if v == 4000 else 0.385 for v in df.loc[varying, "vocab_size"]]
    fig = plot.plot_renyi(df)
    ax = fig.axes[0]
    drawn = {(tuple(line.get_xdata()), tuple(line.get_ydata())) for line in ax.get_lines()
             if line.get_linestyle() != "-" and line.get_label().startswith("_")}
    assert ((4000.0, 8000.0), (0.41, 0.385)) in drawn  # the table's two values, where they are
    flat = {y for x, y in drawn if tuple(x) == (0, 1)}  # axhline: the value at every size
    assert flat == {(0.30, 0.30)}  # jamo and word: 0.30 at both sizes
    assert not any(abs(v - 0.3975) < 1e-6 for _, y in drawn for v in y)  # no mean of 0.41 and 0.385
    assert "baseline/syllable 0.385" in {t.get_text() for t in ax.texts}  # named with its value at the largest size
    plt.close(fig)


def test_accuracy_titles_name_the_task_given_and_the_footnote_the_seeds() -> None:
    """The downstream and probe titles said 감성 분류 whatever the labels were; the downstream footnote
    left the seeds out of what its interval covers."""
    import matplotlib.pyplot as plt

    df = sample_frame(downstream=True)
    fig = plot.plot_downstream(df)
    title, notes = fig.axes[0].get_title(), " ".join(t.get_text() for t in fig.texts)
    assert "감성" not in title and title.startswith("downstream: a classifier")
    assert "bootstrap intervals over the held-out documents and the classifier's seeds" in notes
    plt.close(fig)
    fig = plot.plot_downstream(df, task="혐오 표현 분류")
    assert fig.axes[0].get_title().startswith("혐오 표현 분류 downstream:")
    plt.close(fig)
    fig = plot.plot_probe(df, task="감성 분류")
    title, notes = fig.axes[0].get_title(), " ".join(t.get_text() for t in fig.texts)
    assert title.startswith("감성 분류 probe:") and "seeds" not in notes  # the probe has no seeds
    plt.close(fig)
    assert "감성" not in plot.plot_probe(df).axes[0].get_title()
    with pytest.raises(TypeError, match="task must be a str"):
        plot.plot_probe(df, task=1)  # type: ignore[arg-type]
    plt.close("all")


def test_tradeoff_names_cover_no_other_name_and_no_point() -> None:
    """tradeoff.png's names overprinted points and each other (adjustText's layout, cut off by a time
    limit): each name now sits clear of every name and every point, inside the axes."""
    import matplotlib.pyplot as plt

    fig = plot.plot_tradeoff(sample_frame())
    ax = fig.axes[0]
    renderer = fig.canvas.get_renderer()
    names = [t for t in ax.texts if t.get_text()]
    assert len(names) >= 8 and not _overlapping(fig, names)
    scale = fig.dpi / 72
    for collection in (c for c in ax.collections if type(c).__name__ == "PathCollection"):
        size = collection.get_sizes()
        for k, (px, py) in enumerate(ax.transData.transform(collection.get_offsets())):
            r = (size[k % len(size)] ** 0.5) / 2 * scale
            for t in names:
                box = t.get_window_extent(renderer)
                assert not (box.x0 < px + r and px - r < box.x1 and box.y0 < py + r and py - r < box.y1), t.get_text()
    frame = ax.get_window_extent(renderer)
    assert all(frame.contains(b.x0, b.y0) and frame.contains(b.x1, b.y1)
               for b in (t.get_window_extent(renderer) for t in names))
    again = plot.plot_tradeoff(sample_frame())
    assert [t.get_position() for t in again.axes[0].texts] == [t.get_position() for t in names]  # deterministic
    plt.close("all")


def test_heatmap_panels_labels_nan_and_checks(tmp_path: Path) -> None:
    drop = pd.DataFrame({"nfd": [0.0, NAN], "wrong_layout": [0.21, 0.125]}, index=["whitespace/syllable", "바이트"])
    stability = pd.DataFrame({"nfd": [1.0, 0.5]}, index=drop.index)
    fig = plot.plot_heatmap({"drop": drop, "stability": stability}, tmp_path / "h.png", title="잡음",
                            better={"drop": "lower"}, percent=["drop"], footnote="a note")
    assert (tmp_path / "h.png").stat().st_size > 5_000
    left, right = fig.axes
    assert [t.get_text() for t in left.texts] == ["0.0", "21.0", "12.5"]  # the NaN cell is left blank
    assert [t.get_text() for t in right.texts] == ["1.0", "0.5"] and right.get_title() == "stability\nhigher is better"
    assert left.get_title() == "drop (%)\nlower is better"
    assert [t.get_text() for t in left.get_yticklabels()] == ["whitespace/syllable", "바이트"]
    ranks = pd.DataFrame({"a": [1.0, 2.0]}, index=drop.index)
    fig = plot.plot_heatmap({"ranks": ranks}, title="r", text={"ranks": pd.DataFrame({"a": ["1st", None]},
                                                                                     index=drop.index)})
    assert [t.get_text() for t in fig.axes[0].texts] == ["1st"]
    with pytest.raises(ValueError, match="panels is empty"):
        plot.plot_heatmap({}, title="x")
    with pytest.raises(ValueError, match="other rows than panel 'drop'"):
        plot.plot_heatmap({"drop": drop, "s": stability.iloc[::-1]}, title="x")
    with pytest.raises(ValueError, match="better must map a panel of panels to 'higher' or 'lower'"):
        plot.plot_heatmap({"drop": drop}, title="x", better={"drop": "down"})
