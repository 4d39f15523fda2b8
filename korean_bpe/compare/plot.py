"""Draw a comparison frame (matplotlib): the figures of ``korean-bpe compare`` and its report.

Every function draws from data it is given (nothing is recomputed), returns the matplotlib
``Figure`` and, given a ``path``, writes it there (Agg backend, format from the suffix) and closes it.

* :func:`plot_tokens_per_word`, :func:`plot_renyi`: a metric against the vocabulary size, one line
  per ``bpe`` strategy (colour: pre-tokenizer, marker and line style: unit), dash-dot lines for the
  ``peer`` tokenizers, and the ``baseline`` rows as dotted reference lines through their value at
  each size (flat when the size changes nothing), labelled at the right edge (a baseline far outside the range of the others, such as jamo
  tokens per 어절, is named in an "off the scale" note instead of squashing the lines);
* :func:`plot_tradeoff`: morpheme-boundary F1 against tokens per 어절, one labelled point per row,
  the rows of one strategy joined; hollow points are graded by their own analyzer (``self_graded``);
* :func:`plot_token_lengths`: one histogram per strategy of its tokens' lengths in characters;
* :func:`plot_probe`: probe accuracy per strategy (a dot per vocabulary size);
* :func:`plot_downstream`: the downstream model's accuracy per strategy, the same way;
* :func:`plot_segmentation`: sentences cut by each strategy, each token drawn in its own box,
  jamo tokens composed back to syllables for reading;
* :func:`plot_heatmap`: rows x columns of numbers as coloured, labelled cells, one panel a frame
  side by side (the report's rows x perturbations of the noise task, and rows x tasks of the
  summary across tasks).

Korean text
-----------
matplotlib's default font (DejaVu Sans) has no Hangul: labels come out as empty boxes, with a
``Glyph ... missing from font(s)`` warning.  :func:`korean_font` registers NanumGothic (SIL Open Font
License) from the **koreanize-matplotlib** wheel (the ``plot`` extra) with matplotlib's font manager
and every function here draws inside ``rc_context({"font.family": [NanumGothic, DejaVu Sans]})``
(DejaVu supplies what Nanum lacks, such as ``▁`` U+2581), so the user's global settings stay as they
were; :func:`use_korean_font` sets them for the user's own figures too.

Why koreanize-matplotlib, and why its font file rather than its import: of the two packages that ship
NanumGothic inside the wheel (no download at run time, both checked), koreanize-matplotlib 0.1.1 needs
nothing but matplotlib and ships four weights (regular, bold, extra bold, light); helper-plot-hangul
0.6.0 is more recent but pulls in seaborn, and importing it configures the *root* logger at INFO
level, monkey-patches ``matplotlib.RcParams.__setitem__`` and rewrites ``rcParamsDefault``.  Importing
koreanize-matplotlib changes the global font too, and it imports ``distutils`` (gone from the
standard library in Python 3.12; it warns on 3.11).  So neither is imported: :func:`bundled_font`
finds the font file through the import system (``importlib.util.find_spec``, which runs none of the
package's code) and it is registered with ``matplotlib.font_manager.fontManager.addfont``.  The
package is unmaintained since 2022, but a font file does not rot; without it, any installed font with Hangul (Noto Sans CJK,
Nanum from the system) is used, and with none an ImportError says what to install.
"""

from __future__ import annotations

import math
import os
import unicodedata
from collections import Counter
from collections.abc import Iterator, Mapping, Sequence
from contextlib import contextmanager
from dataclasses import dataclass
from functools import lru_cache
from pathlib import Path
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:  # pragma: no cover
    import pandas as pd

__all__ = [
    "plot_tokens_per_word", "plot_renyi", "plot_tradeoff", "plot_token_lengths", "plot_probe", "plot_downstream",
    "plot_segmentation", "korean_font", "use_korean_font", "bundled_font", "readable_token", "has_probe",
    "Drawing", "DRAWINGS", "drawing", "plot_heatmap",
]

#: the font shipped in the koreanize-matplotlib wheel, and the fallback for what it lacks
FONT_PACKAGE, FONT_FILE, FALLBACK_FAMILY = "koreanize_matplotlib", "NanumGothic.ttf", "DejaVu Sans"
#: unit -> (marker, line style) of the bpe lines
UNIT_STYLE = {"syllable": ("o", "-"), "jamo": ("s", "--"), "byte": ("^", ":")}
#: colours of the pre-tokenizers of our BPE (in first-seen order), of the peers, of the baselines
PRE_COLORS = ("#1f77b4", "#ff7f0e", "#2ca02c", "#d62728", "#9467bd", "#8c564b", "#e377c2", "#17becf")
PEER_STYLES = (("#000000", "D"), ("#bcbd22", "P"), ("#7f7f7f", "X"), ("#e7298a", "*"), ("#1b9e77", "h"),
               ("#7570b3", "v"), ("#d95f02", "p"), ("#66a61e", "<"))
BASELINE_STYLES = (("#555555", "s"), ("#999999", "H"), ("#a6761d", "8"), ("#666666", "d"), ("#b15928", ">"),
                   ("#333333", "p"), ("#80b1d3", "s"), ("#fb8072", "H"))


@dataclass(frozen=True)
class Drawing:
    """How the rows of one kind of strategy (the table's ``kind``) are drawn against the vocabulary size."""

    #: (colour, marker) of each strategy in turn; None: coloured by pre-tokenizer, marked by unit (:data:`UNIT_STYLE`)
    palette: tuple[tuple[str, str], ...] | None
    #: line style; ``""``: the unit's
    line: str
    #: a line over the sizes; False: one reference line (the mean over the sizes) named at the right edge
    swept: bool
    markersize: float = 5
    linewidth: float = 1.6
    #: after the strategy's name in the legend (a row with a palette of its own)
    suffix: str = ""


#: the table's ``kind`` -> how its rows are drawn (another kind is drawn as ``"bpe"``)
DRAWINGS: dict[str, Drawing] = {
    "bpe": Drawing(None, "", True),
    "peer": Drawing(PEER_STYLES, "-.", True, markersize=6, linewidth=1.2, suffix=" (peer)"),
    "baseline": Drawing(BASELINE_STYLES, ":", False),
}


def drawing(kind: Any) -> Drawing:
    """How rows of ``kind`` are drawn (:data:`DRAWINGS`)."""
    return DRAWINGS.get(str(kind), DRAWINGS["bpe"])


def _swept(rows: pd.DataFrame) -> Any:
    """A boolean Series: the rows drawn as lines over the sizes (not as a reference line)."""
    return rows["kind"].map(lambda kind: drawing(kind).swept).astype(bool)


#: a token drawn in this colour in the segmentation figure holds part of a character
PARTIAL_COLOR, WHOLE_COLORS = "#f6c6a0", ("#dbe8f6", "#e4f1dc")


# --- fonts ----------------------------------------------------------------------------------------


def bundled_font() -> Path | None:
    """The path of :data:`FONT_FILE` (NanumGothic) inside the :data:`FONT_PACKAGE` wheel, found
    without importing the package; None when it is not installed.  :func:`korean_font` registers it
    with matplotlib; :mod:`korean_bpe.compare.report` embeds a subset of it in report.html."""
    import importlib.util

    try:
        spec = importlib.util.find_spec(FONT_PACKAGE)
    except (ImportError, ValueError):  # pragma: no cover - broken installs
        return None
    for location in (spec.submodule_search_locations or []) if spec else []:
        path = Path(location) / "fonts" / FONT_FILE
        if path.is_file():
            return path
    return None


@lru_cache(maxsize=1)
def korean_font() -> str:
    """Register a font with Hangul glyphs with matplotlib (once) and return its family name.

    NanumGothic from the koreanize-matplotlib wheel when installed, else the first installed font
    that has the syllable 한; ImportError with the install line when there is none.

    >>> korean_font()
    'NanumGothic'
    """
    from .._optional import require

    require("matplotlib")
    from matplotlib import font_manager, ft2font

    path = bundled_font()
    if path is not None:
        known = {Path(f.fname) for f in font_manager.fontManager.ttflist}
        for weight in sorted(path.parent.glob("NanumGothic*.ttf")):  # regular, bold, extra bold, light
            if weight not in known:
                font_manager.fontManager.addfont(str(weight))
        return str(font_manager.FontProperties(fname=str(path)).get_name())
    for entry in font_manager.fontManager.ttflist:  # a system font (fonts-nanum, Noto Sans CJK, ...)
        try:
            if ord("한") in ft2font.FT2Font(entry.fname).get_charmap():
                return str(entry.name)
        except (OSError, RuntimeError):  # pragma: no cover - unreadable font files
            continue
    raise ImportError('no font with Hangul glyphs for matplotlib: pip install "korean_bpe[plot]" '
                      "(or: pip install koreanize-matplotlib), which ships NanumGothic")


def _rc() -> dict[str, Any]:
    return {"font.family": [korean_font(), FALLBACK_FAMILY], "axes.unicode_minus": False}


def use_korean_font() -> str:
    """Make Korean render in every later matplotlib figure (sets the global ``rcParams``); returns
    the family.  The functions of this module do not need it: they set the font for their own figures."""
    import matplotlib

    matplotlib.rcParams.update(_rc())
    return korean_font()


@contextmanager
def _figure_context(path: str | os.PathLike[str] | None) -> Iterator[Any]:
    """Yield pyplot inside the Korean-font rc context (Agg when writing a file)."""
    from .._optional import require

    matplotlib = require("matplotlib")
    if path is not None:
        matplotlib.use("Agg")  # no display needed to write a file
    import matplotlib.pyplot as plt

    with matplotlib.rc_context(_rc()):
        yield plt


def _finish(fig: Any, path: str | os.PathLike[str] | None, plt: Any) -> Any:
    """Save to ``path`` when asked (drawing inside the font context), else draw once inside it (ticks
    are made at draw time, so a figure shown later keeps the Korean font); return fig."""
    if path is None:
        fig.draw_without_rendering()
        return fig
    Path(path).parent.mkdir(parents=True, exist_ok=True)
    fig.savefig(path, dpi=fig.dpi)
    plt.close(fig)
    return fig


# --- the frame -----------------------------------------------------------------------------------


def _check(df: pd.DataFrame, columns: Sequence[str]) -> None:
    missing = [c for c in columns if c not in df.columns]
    if missing:
        raise ValueError(f"df lacks the column {missing[0]!r}: pass the frame returned by "
                         "korean_bpe.compare.compare")
    if df.empty:
        raise ValueError("df is empty: there is nothing to plot (every strategy was skipped?)")


def _numeric(values: Any) -> list[float]:
    return [float("nan") if v is None else float(v) for v in values]


def _errors(group: pd.DataFrame, column: str) -> list[list[float]] | None:
    """``[below, above]`` distances from each value of ``column`` to its interval bounds
    (``<column>_ci_low``, ``<column>_ci_high``), for matplotlib's ``xerr``/``yerr``; None when the
    frame has no interval for it."""
    low, high = f"{column}_ci_low", f"{column}_ci_high"
    if low not in group.columns or not group[low].notna().any():
        return None
    values, lo, hi = _numeric(group[column]), _numeric(group[low]), _numeric(group[high])
    return [[max(v - a, 0.0) if a == a else 0.0 for v, a in zip(values, lo)],
            [max(b - v, 0.0) if b == b else 0.0 for v, b in zip(values, hi)]]


def _styles(df: pd.DataFrame) -> dict[str, tuple[str, str, str]]:
    """strategy -> (colour, marker, line style), the same in every plot of a frame: our BPE coloured by
    pre-tokenizer with a marker and line style per unit, each peer and each baseline a colour and
    marker of its own (dash-dot and dotted lines)."""
    out: dict[str, tuple[str, str, str]] = {}
    pre_colors: dict[str, str] = {}
    taken: dict[Drawing, int] = {}  # strategies of each drawing with a palette so far
    for strategy, group in df.groupby("strategy", sort=False):
        d = drawing(group["kind"].iloc[0])
        if d.palette is not None:
            k = taken[d] = taken.get(d, -1) + 1
            color, marker = d.palette[k % len(d.palette)]
            out[str(strategy)] = (color, marker, d.line)
        else:
            pre = str(group["pre_tokenizer"].iloc[0]) if "pre_tokenizer" in group.columns else ""
            color = pre_colors.setdefault(pre, PRE_COLORS[len(pre_colors) % len(PRE_COLORS)])
            marker, style = UNIT_STYLE.get(str(group["unit"].iloc[0]) if "unit" in group.columns else "", ("o", "-"))
            out[str(strategy)] = (color, marker, style)
    return out


def _spread(values: Sequence[float], gap: float) -> list[float]:
    """``values`` moved apart as little as needed so that neighbours are at least ``gap`` apart (the
    order kept; a label layout that needs no search).

    >>> _spread([1.0, 1.1, 5.0], 1.0)
    [0.55, 1.55, 5.0]
    """
    order = sorted(range(len(values)), key=lambda i: values[i])
    placed = [float(values[i]) for i in order]
    for _ in range(len(placed)):
        moved = False
        for k in range(1, len(placed)):
            if placed[k] - placed[k - 1] < gap - 1e-12:
                middle = (placed[k] + placed[k - 1]) / 2
                placed[k - 1], placed[k] = middle - gap / 2, middle + gap / 2
                moved = True
        if not moved:
            break
    out = [0.0] * len(values)
    for k, i in enumerate(order):
        out[i] = round(placed[k], 9)
    return out


def _label(name: str, group: pd.DataFrame) -> str:
    """A strategy's label: ``†`` after a strategy that drops text."""
    drops = "drops_text" in group.columns and bool(group["drops_text"].any())
    return f"{name} †" if drops else name


def _footnotes(df: pd.DataFrame, *, over: str = "the held-out documents") -> list[str]:
    """What a figure must say about its rows: identical rows (``same_as``) drawn on top of each
    other, rows that drop text (``drops_text``), intervals (resampling ``over``)."""
    out = []
    if "same_as" in df.columns:
        pairs = dict.fromkeys(f"{a} same as {b}" for a, b in zip(df["strategy"], df["same_as"])
                              if isinstance(b, str) and b)
        if pairs:
            out.append("identical rows, drawn on top of each other: " + ", ".join(pairs))
    if "drops_text" in df.columns and df["drops_text"].any():
        out.append("† drops text (조사, punctuation, foreign words): its counts leave out what it dropped")
    if any(c.endswith("_ci_low") for c in df.columns):
        out.append(f"bars: bootstrap intervals over {over} (95% unless the run chose otherwise)")
    return out


def _write_footnotes(fig: Any, notes: list[str]) -> None:
    if notes:
        fig.text(0.01, 0.005, "\n".join(notes), fontsize=7, color="#555555", va="bottom", wrap=True)


def _percent(ax: Any, axis: str) -> None:
    """Show the fractions of ``axis`` (``"x"`` or ``"y"``) as percentages, as the tables do."""
    formatter = matplotlib_ticker().FuncFormatter(lambda v, _: f"{v * 100:g}")
    (ax.xaxis if axis == "x" else ax.yaxis).set_major_formatter(formatter)


def _by_vocab(df: pd.DataFrame, column: str, *, ylabel: str, title: str,
              path: str | os.PathLike[str] | None) -> Any:
    """``column`` against the vocabulary size: bpe and peer lines, baseline reference lines labelled
    at the right edge (labels moved apart when values are close, :func:`_spread`); a baseline far
    off the others' range is named in a footnote instead."""
    _check(df, ("strategy", "kind", "pre_tokenizer", "unit", "vocab_size", column))
    rows = df[df[column].notna()]
    if rows.empty:
        raise ValueError(f"{column} is NaN in every row: there is nothing to plot")
    styles = _styles(rows)
    with _figure_context(path) as plt:
        fig, ax = plt.subplots(figsize=(11, 6), dpi=110)
        for strategy, group in rows.groupby("strategy", sort=False):
            d = drawing(group["kind"].iloc[0])
            if not d.swept:
                continue
            group = group.sort_values("vocab_size")
            color, marker, style = styles[str(strategy)]
            ax.errorbar(_numeric(group["vocab_size"]), _numeric(group[column]), yerr=_errors(group, column),
                        color=color, linestyle=style, marker=marker, markersize=d.markersize, linewidth=d.linewidth,
                        capsize=2, label=_label(str(strategy), group) if d.palette is None else f"{strategy}{d.suffix}")
        sizes = sorted({int(v) for v in rows["vocab_size"]})
        swept_rows = _swept(rows)
        baselines = {str(k): g.sort_values("vocab_size") for k, g in rows[~swept_rows].groupby("strategy", sort=False)}
        swept = _numeric(rows.loc[swept_rows, column])
        every = [v for g in baselines.values() for v in _numeric(g[column])]
        lo, hi = (min(swept), max(swept)) if swept else (min(every), max(every))
        reach = max(hi - lo, 0.1 * abs(hi), 1e-9)  # a baseline farther than this would squash the lines
        off_scale, shown = [], []
        for strategy, group in baselines.items():  # each at its value at each size, as the table has it
            xs, values = _numeric(group["vocab_size"]), _numeric(group[column])
            flat = len(set(values)) == 1
            if not all(lo - reach <= v <= hi + reach for v in values):
                off_scale.append(f"{strategy} {values[0]:.3g}" if flat else
                                 f"{strategy} " + ", ".join(f"{v:.3g} at {int(x):,}" for x, v in zip(xs, values)))
                continue
            shown.append((strategy, values[-1]))
            if flat or len(xs) == 1:
                ax.axhline(values[-1], color=styles[strategy][0], linestyle=(0, (1, 2)), linewidth=1.2)
            else:  # a baseline whose size changes it (its rarer units become <unk>): a dotted line through them
                ax.plot(xs, values, color=styles[strategy][0], linestyle=(0, (1, 2)), linewidth=1.2, marker=".",
                        markersize=4)
        if len(sizes) > 1:
            ax.set_xscale("log", base=2)
        ax.set_xticks(sizes, [f"{s:,}" for s in sizes])
        ax.minorticks_off()
        ax.set_xlabel("vocabulary size (asked)")
        ax.set_ylabel(ylabel)
        ax.set_title(title)
        ax.grid(alpha=0.3)
        if ax.get_legend_handles_labels()[0]:  # right of the baselines' names (about 0.0075 of the axes a letter)
            right = 1.03 + 0.0075 * max((len(f"{n} {v:.3g}") for n, v in shown), default=0)
            ax.legend(fontsize=8, loc="upper left", bbox_to_anchor=(right, 1.0), frameon=False,
                      title="BPE: colour = pre-tokenizer, marker = unit", title_fontsize=8)
        notes = _footnotes(rows)
        if off_scale:
            notes.insert(0, "baselines off the scale: " + ", ".join(off_scale))
        fig.tight_layout(rect=(0, 0.02 + 0.018 * len(notes) if notes else 0, 1, 1))
        if shown:  # the baselines' names at the right edge, apart from each other
            y0, y1 = ax.get_ylim()
            gap = (y1 - y0) * 11 / (ax.bbox.height / fig.dpi * 72)  # 11 points in data units
            for (strategy, value), y in zip(shown, _spread([v for _, v in shown], gap)):
                ax.annotate(f"{strategy} {value:.3g}", xy=(1.0, value), xycoords=("axes fraction", "data"),
                            xytext=(1.01, y), textcoords=("axes fraction", "data"), va="center", fontsize=8,
                            color=styles[strategy][0], annotation_clip=False,
                            arrowprops={"arrowstyle": "-", "color": "#bbbbbb", "linewidth": 0.6,
                                        "shrinkA": 0, "shrinkB": 0} if abs(y - value) > gap / 4 else None)
        _write_footnotes(fig, notes)
        return _finish(fig, path, plt)


def plot_tokens_per_word(df: pd.DataFrame, path: str | os.PathLike[str] | None = None) -> Any:
    """Tokens per 어절 (``tokens_per_word``) against the vocabulary size: lower is shorter."""
    return _by_vocab(df, "tokens_per_word", ylabel="tokens per 어절 (lower = shorter)",
                     title="토큰 수 / 어절: tokens per white-space word on held-out text", path=path)


def plot_renyi(df: pd.DataFrame, path: str | os.PathLike[str] | None = None) -> Any:
    """Rényi efficiency (alpha 2.5) of the token distribution against the vocabulary size."""
    return _by_vocab(df, "renyi_efficiency", ylabel="Rényi efficiency (α = 2.5, |V| = vocabulary)",
                     title="Rényi 효율: how evenly the vocabulary is used", path=path)


def plot_tradeoff(df: pd.DataFrame, path: str | os.PathLike[str] | None = None) -> Any:
    """Morpheme-boundary F1 (percent) against tokens per 어절, a point per row (the trade-off: up and
    to the left is better); the rows of one strategy joined in vocabulary order, the largest size
    the larger point.  The axes hold our BPE and the peers (the cluster) and the baselines near it; a
    baseline far outside is named in a footnote ("off the scale").  Each strategy has its colour
    and marker (:func:`_styles`) in the legend, and its name beside its largest size's point, placed
    where it covers no other name and no point (:func:`_place_labels`); a name with no such place is
    left to the legend."""
    _check(df, ("strategy", "kind", "vocab_size", "tokens_per_word", "morph_f1", "self_graded", "gold"))
    rows = df[df["morph_f1"].notna() & df["tokens_per_word"].notna()]
    if rows.empty:
        raise ValueError("morph_f1 is NaN in every row (no gold analyzer?): there is nothing to plot")
    gold = ", ".join(sorted({str(g) for g in rows["gold"] if isinstance(g, str) and g}))
    shown, off_scale = _zoom(rows)
    styles = _styles(rows)
    with _figure_context(path) as plt:
        fig, ax = plt.subplots(figsize=(11, 6.5), dpi=110)
        names: list[tuple[str, float, float, str]] = []  # label, at its largest vocabulary's point, colour
        for strategy, group in shown.groupby("strategy", sort=False):
            group = group.sort_values("vocab_size")
            color, marker, _ = styles[str(strategy)]
            xs, ys = _numeric(group["tokens_per_word"]), _numeric(group["morph_f1"])
            if len(group) > 1:
                ax.plot(xs, ys, color=color, linewidth=0.8, alpha=0.6)
            xerr, yerr = _errors(group, "tokens_per_word"), _errors(group, "morph_f1")
            if xerr is not None or yerr is not None:
                ax.errorbar(xs, ys, xerr=xerr, yerr=yerr, fmt="none", ecolor=color, elinewidth=0.8, alpha=0.6,
                            capsize=1.5, zorder=2)
            own = bool(group["self_graded"].any())
            sizes = [22 + 30 * k / max(len(xs) - 1, 1) for k in range(len(xs))]  # the largest size the largest
            ax.scatter(xs, ys, marker=marker, s=sizes, color=color, facecolors="none" if own else color,
                       linewidths=1.3, zorder=3, label=_label(str(strategy), group) + (" ‡" if own else ""))
            names.append((_label(str(strategy), group), xs[-1], ys[-1], color))
        ax.set_xscale("log", base=2)
        low, high = ax.get_xlim()
        ax.set_xticks([v for v in (1, 1.25, 1.5, 1.75, 2, 2.5, 3, 3.5, 4, 5, 6, 8, 10, 12, 16, 24, 32)
                       if low <= v <= high] or [low, high])
        ax.set_xlim(low, high)
        ax.xaxis.set_major_formatter(matplotlib_ticker().FormatStrFormatter("%g"))
        ax.minorticks_off()
        _percent(ax, "y")
        ax.set_xlabel("tokens per 어절 (log scale; lower = shorter sequences)")
        ax.set_ylabel(f"morpheme-boundary F1 (%) against {gold or 'the gold analyzer'}")
        ax.set_title("형태소 경계 F1 vs 토큰 수 (up and to the left is better)", fontsize=10)
        ax.grid(alpha=0.3)
        ax.legend(fontsize=7.5, loc="upper left", bbox_to_anchor=(1.01, 1.0), frameon=False, markerscale=0.8,
                  title="hollow, ‡: graded by its own analyzer;\nlines join the sizes, larger = larger vocabulary",
                  title_fontsize=7.5, alignment="left")
        notes = _footnotes(rows)
        if off_scale:
            notes.insert(0, "off the scale (not drawn): " + ", ".join(off_scale))
        fig.tight_layout(rect=(0, 0.02 + 0.018 * len(notes) if notes else 0, 1, 1))
        _write_footnotes(fig, notes)
        _place_labels(fig, ax, names)
        return _finish(fig, path, plt)


def _zoom(rows: pd.DataFrame) -> tuple[pd.DataFrame, list[str]]:
    """(the rows the trade-off plot draws, the names and values of those it leaves off the scale):
    everything within the range of the bpe and peer rows widened by half its size on each side
    (tokens per 어절 on a log scale); all rows when there are no bpe or peer rows."""
    swept_rows = _swept(rows)
    swept = rows[swept_rows]
    if swept.empty:
        return rows, []
    x = [math.log2(v) for v in _numeric(swept["tokens_per_word"])]
    y = _numeric(swept["morph_f1"])
    x_reach, y_reach = max(max(x) - min(x), 0.1) / 2, max(max(y) - min(y), 0.02) / 2
    keep, off = [], {}
    for (_, row), is_swept, tpw, f1 in zip(rows.iterrows(), swept_rows, _numeric(rows["tokens_per_word"]),
                                          _numeric(rows["morph_f1"])):
        inside = (min(x) - x_reach <= math.log2(tpw) <= max(x) + x_reach if tpw > 0 else False) and \
            min(y) - y_reach <= f1 <= max(y) + y_reach
        keep.append(inside or bool(is_swept))
        if not keep[-1]:
            off.setdefault(str(row["strategy"]), f"{row['strategy']} ({tpw:.3g} tokens/어절, F1 {f1 * 100:.1f}%)")
    return rows[keep], list(off.values())


def matplotlib_ticker() -> Any:
    import matplotlib.ticker

    return matplotlib.ticker


#: where a name may go around its point, in display pixels: nearest first, eight directions a ring
_RINGS = (7, 14, 24, 38, 56, 80)
_DIRECTIONS = ((1, 0), (-1, 0), (0, 1), (0, -1), (1, 1), (-1, 1), (1, -1), (-1, -1))


def _place_labels(fig: Any, ax: Any, names: Sequence[tuple[str, float, float, str]]) -> list[Any]:
    """Write each name beside its point: the nearest place, ring by ring around it (8 directions,
    :data:`_RINGS` pixels out), whose box overlaps no name placed before, no point of the plot and
    stays inside the axes; a thin leader line when it lands past the first ring.  A name with no
    such place is left to the legend.  Deterministic: names in the order given, places in a fixed
    order (no search with a time limit).  Returns the texts kept."""
    ax.set_xlim(ax.get_xlim())  # the limits fixed: the leader lines must not move the points
    ax.set_ylim(ax.get_ylim())
    renderer = fig.canvas.get_renderer()
    to_pixels = ax.transData.transform
    inside = ax.get_window_extent(renderer)
    scale = fig.dpi / 72.0
    points = []  # (x0, y0, x1, y1) of each drawn marker, a pixel of margin around it
    for collection in ax.collections:
        if not hasattr(collection, "get_sizes"):  # error bars: names may cross them
            continue
        offsets = collection.get_offsets()
        sizes = collection.get_sizes() if len(collection.get_sizes()) else [36.0]
        for k, (px, py) in enumerate(to_pixels(offsets) if len(offsets) else []):
            r = math.sqrt(float(sizes[k % len(sizes)])) / 2 * scale + 1
            points.append((px - r, py - r, px + r, py + r))

    def hits(box: Any, others: Sequence[tuple[float, float, float, float]]) -> bool:
        return any(box.x0 < x1 and x0 < box.x1 and box.y0 < y1 and y0 < box.y1 for x0, y0, x1, y1 in others)

    kept: list[Any] = []
    placed: list[tuple[float, float, float, float]] = []
    for name, x, y, color in names:
        px, py = to_pixels((x, y))
        text = ax.text(x, y, name, fontsize=7.5, color=color, zorder=4)
        for ring, (dx, dy) in ((ring, d) for ring in _RINGS for d in _DIRECTIONS):
            text.set_horizontalalignment("left" if dx > 0 else "right" if dx < 0 else "center")
            text.set_verticalalignment("bottom" if dy > 0 else "top" if dy < 0 else "center")
            text.set_position(ax.transData.inverted().transform((px + dx * ring, py + dy * ring)))
            box = text.get_window_extent(renderer)
            if (inside.x0 <= box.x0 and box.x1 <= inside.x1 and inside.y0 <= box.y0 and box.y1 <= inside.y1
                    and not hits(box, placed) and not hits(box, points)):
                break
        else:
            text.remove()
            continue
        placed.append((box.x0, box.y0, box.x1, box.y1))
        kept.append(text)
        if ring > _RINGS[0]:
            end = ax.transData.inverted().transform((min(max(px, box.x0), box.x1), min(max(py, box.y0), box.y1)))
            ax.plot([x, end[0]], [y, end[1]], color="#aaaaaa", linewidth=0.5, zorder=1)
    return kept


def has_probe(df: pd.DataFrame) -> bool:
    """True when ``df`` has a ``probe_accuracy`` that is not NaN everywhere (labels were given)."""
    return "probe_accuracy" in df.columns and bool(df["probe_accuracy"].notna().any())


def plot_probe(df: pd.DataFrame, path: str | os.PathLike[str] | None = None, *, task: str | None = None) -> Any:
    """Probe accuracy (logistic regression on bags of tokens) per strategy, a dot per vocabulary
    size with its interval, best strategy on top; ValueError when no row has one (see :func:`has_probe`).
    ``task``: what the labels are (``"감성 분류"``, sentiment), said in the title; the title names no
    task without it."""
    return _plot_accuracy(df, path, "probe_accuracy",
                          "held-out accuracy (%) of a bag-of-tokens logistic regression (order-blind)",
                          _titled(task, "probe: accuracy per strategy on the labels (order-blind, not a model of the "
                                        "sequence)"), over="the held-out documents")


def plot_downstream(df: pd.DataFrame, path: str | os.PathLike[str] | None = None, *, task: str | None = None) -> Any:
    """Downstream accuracy (a small neural classifier trained on the tokens, mean of its seeds) per
    strategy, a dot per vocabulary size with its interval over the held-out documents and the seeds,
    best strategy on top; ValueError when no row has one (compare(downstream=...) with labels).
    ``task``: what the labels are, said in the title (as :func:`plot_probe`)."""
    return _plot_accuracy(df, path, "downstream_accuracy",
                          "held-out accuracy (%) of a classifier trained on the tokens (mean of its seeds)",
                          _titled(task, "downstream: a classifier trained from scratch on each strategy's tokens"),
                          over="the held-out documents and the classifier's seeds (two-stage)")


def _titled(task: str | None, title: str) -> str:
    """``title`` after the task's name when there is one.

    >>> _titled("감성 분류", "probe: accuracy"), _titled(None, "probe: accuracy")
    ('감성 분류 probe: accuracy', 'probe: accuracy')
    """
    if task is not None and not isinstance(task, str):
        raise TypeError(f"task must be a str (what the labels are, e.g. '감성 분류') or None, got {type(task).__name__}")
    return f"{task.strip()} {title}" if task and task.strip() else title


def _plot_accuracy(df: pd.DataFrame, path: str | os.PathLike[str] | None, metric: str, xlabel: str,
                   title: str, *, over: str) -> Any:
    """An accuracy column per strategy: a dot per vocabulary size with its interval, best on top."""
    _check(df, ("strategy", "vocab_size", metric))
    if not bool(df[metric].notna().any()):
        raise ValueError(f"{metric} is NaN in every row: compare() measures it only with labels "
                         "(pass labels=..., or an NSMC TSV to the CLI)"
                         + ("" if metric == "probe_accuracy" else " and downstream=Downstream() (--downstream)"))
    rows = df[df[metric].notna()]
    # best on top; ties keep the frame's order (a stable sort)
    order = rows.groupby("strategy", sort=False)[metric].max().sort_values(kind="stable")
    with _figure_context(path) as plt:
        fig, ax = plt.subplots(figsize=(9, 1.6 + 0.34 * len(order)), dpi=110)
        colors = plt.rcParams["axes.prop_cycle"].by_key()["color"]
        position = {s: i for i, s in enumerate(order.index)}
        sizes = sorted({int(v) for v in rows["vocab_size"]})
        for k, size in enumerate(sizes):
            sub = rows[rows["vocab_size"] == size]
            offset = (k - (len(sizes) - 1) / 2) * min(0.18, 0.6 / max(len(sizes), 1))  # sizes side by side
            ax.errorbar(_numeric(sub[metric]), [position[s] + offset for s in sub["strategy"]],
                        xerr=_errors(sub, metric), fmt="o", markersize=5, capsize=2, elinewidth=1,
                        color=colors[k % len(colors)], label=f"vocab {size:,}", zorder=3)
        labels = {s: _label(str(s), rows[rows["strategy"] == s]) for s in order.index}
        ax.set_yticks(range(len(order)), [labels[s] for s in order.index], fontsize=8)
        _percent(ax, "x")
        ax.set_xlabel(xlabel)
        ax.set_title(title, fontsize=10)
        ax.grid(axis="x", alpha=0.3)
        # outside the axes: a legend inside would sit on a point and read as one
        ax.legend(fontsize=8, frameon=False, loc="upper left", bbox_to_anchor=(1.01, 1.0),
                  title="vocabulary size", title_fontsize=8, alignment="left")
        notes = _footnotes(rows, over=over)
        fig.tight_layout(rect=(0, 0.05 if notes else 0, 1, 1))
        _write_footnotes(fig, notes)
        return _finish(fig, path, plt)


# --- heatmaps ------------------------------------------------------------------------------------------


def plot_heatmap(panels: Mapping[str, pd.DataFrame], path: str | os.PathLike[str] | None = None, *, title: str,
                 better: Mapping[str, str] | None = None, text: Mapping[str, pd.DataFrame] | None = None,
                 percent: Sequence[str] = (), footnote: str = "") -> Any:
    """Panels of coloured cells side by side, one a frame of numbers (its index the rows, its columns
    the columns; every panel the same rows, in the same order): each cell coloured on its panel's
    own scale, green for the better end (``better[panel]``: ``"higher"``, the default, or
    ``"lower"``), and labelled with its value (``text[panel]``, strings, replaces the labels; a
    panel named in ``percent`` shows fractions as percentages); NaN cells are left grey and blank.
    ``footnote``: a line under the figure.  The report draws the noise task's rows x perturbations
    (accuracy drop, token stability) and the summary's rows x tasks ranks with it.

    >>> import pandas as pd
    >>> drop = pd.DataFrame({"nfd": [-0.0002, 0.01], "wrong_layout": [0.21, 0.12]}, index=["whitespace/syllable", "whitespace/jamo"])
    >>> fig = plot_heatmap({"accuracy drop": drop}, title="정확도 하락", better={"accuracy drop": "lower"},
    ...                    percent=["accuracy drop"])
    >>> [t.get_text() for t in fig.axes[0].texts]
    ['0.0', '21.0', '1.0', '12.0']
    """
    import numpy as np

    if not panels:
        raise ValueError("panels is empty: give {panel title: a rows x columns frame of numbers}")
    better = dict(better or {})
    bad = {k: v for k, v in better.items() if v not in ("higher", "lower") or k not in panels}
    if bad:
        raise ValueError(f"better must map a panel of panels to 'higher' or 'lower', got {bad!r}")
    frames = list(panels.items())
    rows = list(frames[0][1].index)
    for name, frame in frames:
        if list(frame.index) != rows:
            raise ValueError(f"panel {name!r} has other rows than panel {frames[0][0]!r}: give every panel the "
                             "same rows in the same order (frame.reindex(rows))")
        if frame.empty:
            raise ValueError(f"panel {name!r} is empty: there is nothing to draw")
    with _figure_context(path) as plt:
        widths = [max(2.2, 0.62 * frame.shape[1] + 0.6) for _, frame in frames]
        label_width = 0.075 * max(len(str(r)) for r in rows) + 0.4
        fig, axes = plt.subplots(1, len(frames), figsize=(label_width + sum(widths) + 0.4 * len(frames),
                                                         1.5 + 0.32 * len(rows) + 0.9 * bool(footnote)),
                                 dpi=110, squeeze=False, gridspec_kw={"width_ratios": widths})
        cmap = plt.get_cmap("RdYlGn").with_extremes(bad="#eeeeee")
        for k, (ax, (name, frame)) in enumerate(zip(axes[0], frames)):
            values = frame.to_numpy(dtype=np.float64)
            finite = values[np.isfinite(values)]
            low, high = (float(finite.min()), float(finite.max())) if finite.size else (0.0, 1.0)
            if low == high:
                low, high = low - 0.5, high + 0.5
            shown = -values if better.get(name, "higher") == "lower" else values
            ax.imshow(np.ma.masked_invalid(shown), cmap=cmap, aspect="auto",
                      vmin=-high if better.get(name) == "lower" else low,
                      vmax=-low if better.get(name) == "lower" else high)
            labels = None if text is None or name not in text else text[name].reindex(index=frame.index,
                                                                                       columns=frame.columns)
            scale = 100.0 if name in percent else 1.0
            for i in range(values.shape[0]):
                for j in range(values.shape[1]):
                    if labels is not None:
                        label = "" if labels.iat[i, j] is None or labels.iat[i, j] != labels.iat[i, j] \
                            else str(labels.iat[i, j])
                    else:
                        label = "" if not math.isfinite(values[i, j]) else f"{values[i, j] * scale:.1f}"
                        label = "0.0" if label == "-0.0" else label  # a drop that rounds to nothing has no sign
                    if label:
                        ax.text(j, i, label, ha="center", va="center", fontsize=7, color="#111111")
            ax.set_xticks(range(values.shape[1]), [str(c) for c in frame.columns], rotation=40, ha="right",
                          fontsize=7)
            ax.set_yticks(range(len(rows)), [str(r) for r in rows] if k == 0 else [], fontsize=7)
            unit = " (%)" if name in percent else ""
            arrow = {"higher": "higher is better", "lower": "lower is better"}[better.get(name, "higher")]
            ax.set_title(f"{name}{unit}\n{arrow}", fontsize=8)
            ax.tick_params(length=0)
        fig.suptitle(title, fontsize=10)
        fig.tight_layout(rect=(0, 0.3 / fig.get_figheight() if footnote else 0, 1, 1))
        if footnote:
            _write_footnotes(fig, [footnote])
        return _finish(fig, path, plt)


# --- token lengths ---------------------------------------------------------------------------------


def plot_token_lengths(lengths: Mapping[str, Sequence[int] | Counter[int]],
                       path: str | os.PathLike[str] | None = None, *, max_length: int = 10) -> Any:
    """One histogram per strategy of its tokens' lengths in characters (a ``Counter`` length ->
    count, or the lengths themselves): the share of tokens of each length (percent), lengths from
    ``max_length`` on pooled in the last bar (``10+``), and the mean length.  The mean is over the
    tokens' own characters (:func:`korean_bpe.compare.report.token_lengths`: the space a ``▁``
    stands for not counted, a character split between tokens counted in each), so it is not the
    table's ``chars_per_token`` (every held-out character, spaces included, over the tokens)."""
    if not lengths:
        raise ValueError("lengths is empty: give {strategy: token lengths or Counter}")
    if max_length < 1:
        raise ValueError(f"max_length must be >= 1, got {max_length!r}")
    counts: dict[str, Counter[int]] = {}
    for name, value in lengths.items():
        c = Counter(value) if not isinstance(value, Counter) else value
        if any((not isinstance(n, int)) or n < 0 for n in c):
            raise ValueError(f"lengths[{name!r}] holds a length that is not an int >= 0")
        if sum(c.values()) <= 0:
            raise ValueError(f"lengths[{name!r}] has no tokens")
        counts[str(name)] = c
    bins = list(range(0, max_length + 1))
    cols = min(4, len(counts))
    nrows = math.ceil(len(counts) / cols)
    with _figure_context(path) as plt:
        fig, axes = plt.subplots(nrows, cols, figsize=(3.2 * cols, 2.3 * nrows + 0.6), dpi=110,
                                 sharex=True, sharey=True, squeeze=False)
        for ax, (name, c) in zip(axes.flat, counts.items()):
            total = sum(c.values())
            shares = [sum(v for n, v in c.items() if (n >= b if b == max_length else n == b)) / total for b in bins]
            mean = sum(n * v for n, v in c.items()) / total
            ax.bar(bins, shares, width=0.85, color="#4c72b0")
            ax.set_title(f"{name}  (mean {mean:.2f})", fontsize=9)
            _percent(ax, "y")
            ax.grid(axis="y", alpha=0.3)
        for ax in list(axes.flat)[len(counts):]:
            ax.set_visible(False)
        for ax in axes[-1]:
            ax.set_xticks(bins, [str(b) if b < max_length else f"{b}+" for b in bins], fontsize=7)
        for ax in axes[:, 0]:
            ax.set_ylabel("tokens (%)", fontsize=8)
        fig.suptitle("토큰 길이: each token's characters on held-out text (0 = white space alone or a special "
                     "token; the space a ▁ stands for not counted, so the mean is not the table's chars/token)",
                     fontsize=9, wrap=True)
        fig.tight_layout(rect=(0, 0, 1, 1 - 0.45 / fig.get_figheight()))
        return _finish(fig, path, plt)


# --- segmentation ------------------------------------------------------------------------------------


@lru_cache(maxsize=None)
def _compat_jamo(ch: str) -> str:
    """A conjoining jamo as the compatibility jamo people read (ᆫ -> ㄴ); anything else unchanged."""
    if not 0x1100 <= ord(ch) <= 0x11FF:
        return ch
    name = unicodedata.name(ch, "")
    for part in ("CHOSEONG ", "JUNGSEONG ", "JONGSEONG "):
        if part in name:
            try:
                return unicodedata.lookup(name.replace(part, "LETTER "))
            except KeyError:
                return ch
    return ch


def readable_token(token: str) -> str:
    """A token as a reader wants to see it: jamo composed back to syllables, stray jamo (a token
    that holds part of a syllable) shown as compatibility jamo.

    >>> readable_token("▁ᄒ" "ᅡ" "ᆫ" "ᄀ" "ᅮ" "ᆨ")
    '▁한국'
    >>> readable_token("ᆻ" "ᄉ" "ᅳ" "ᆸ")
    'ㅆ습'
    """
    from ..jamo import compose

    return "".join(_compat_jamo(ch) for ch in compose(token))


def _is_partial(token: str) -> bool:
    """True when the token holds part of a character: stray jamo after composing, or a byte token
    shown as U+FFFD / ``<0x..>``."""
    from ..jamo import compose

    return any(0x1100 <= ord(ch) <= 0x11FF for ch in compose(token)) or "\ufffd" in token or "<0x" in token


@lru_cache(maxsize=1)
def _charset() -> frozenset[int]:
    from matplotlib import font_manager, ft2font

    covered: set[int] = set()
    for family in (korean_font(), FALLBACK_FAMILY):
        path = font_manager.findfont(font_manager.FontProperties(family=family), fallback_to_default=True)
        covered.update(ft2font.FT2Font(path).get_charmap())
    return frozenset(covered)


def _drawable(text: str) -> str:
    """``text`` with characters that no registered font has (emoji, rare Hanja) shown as their code."""
    covered = _charset()
    return "".join(ch if ord(ch) in covered or ch in " \t" else f"[U+{ord(ch):04X}]" for ch in text)


def plot_segmentation(sentences: Sequence[str], segmentations: Mapping[str, Sequence[Sequence[str]]],
                      path: str | os.PathLike[str] | None = None, *, width: float = 12.0) -> Any:
    """The sentences as each strategy cuts them, drawn as text: one box per token (a ▁ marks a
    word start), jamo tokens composed back to syllables, tokens holding part of a character (a lone
    jamo, a byte of a syllable) in orange; the token count follows each strategy's name.

    ``segmentations[strategy][i]`` are the tokens of ``sentences[i]`` (strings as the tokenizer
    shows them: conjoining jamo and a ``▁`` marker are fine).  Characters no font has (emoji) are
    drawn as ``[U+1F609]``.
    """
    if not sentences:
        raise ValueError("sentences is empty: give the sentences the strategies cut")
    if not segmentations:
        raise ValueError("segmentations is empty: give {strategy: [tokens of each sentence]}")
    for name, cuts in segmentations.items():
        if len(cuts) != len(sentences):
            raise ValueError(f"segmentations[{name!r}] has {len(cuts)} token lists for {len(sentences)} sentences")
    from matplotlib.transforms import IdentityTransform

    with _figure_context(path) as plt:
        dpi = 110
        fig = plt.figure(figsize=(width, 2.0), dpi=dpi)
        renderer = fig.canvas.get_renderer()
        from matplotlib.font_manager import FontProperties

        prop_tok, prop_label = FontProperties(size=10), FontProperties(size=9)

        def text_width(s: str, prop: Any) -> float:
            w, _, _ = renderer.get_text_width_height_descent(s, prop, ismath=False)
            return float(w)

        total_w = width * dpi
        label_w = max(text_width(f"{name} (999)", prop_label) for name in segmentations) + 16
        line_h, pad, gap = 24.0, 5.0, 4.0
        # layout pass: (kind, x, y-line index, text, partial)
        items: list[tuple[str, float, float, str, int]] = []  # kind, x, line, text, colour index
        line = 0.0
        for i, sentence in enumerate(sentences):
            items.append(("head", 8.0, line, _drawable(f"{i + 1}. {sentence}"), 0))
            line += 1
            for name, cuts in segmentations.items():
                tokens = [readable_token(t) for t in cuts[i]]
                items.append(("label", 8.0, line, f"{name} ({len(tokens)})", 0))
                x = label_w
                for k, (raw, tok) in enumerate(zip(cuts[i], tokens)):
                    shown = _drawable(tok) or "∅"
                    w = text_width(shown, prop_tok) + 2 * pad
                    if x + w > total_w - 8 and x > label_w:
                        line += 1
                        x = label_w
                    items.append(("token", x, line, shown, -1 if _is_partial(raw) else k % 2))
                    x += w + gap
                line += 1
            line += 0.5
        height = (line + 1.5) * line_h
        fig.set_size_inches(width, height / dpi)
        ax = fig.add_axes((0, 0, 1, 1))  # a blank canvas: Jupyter shows no figure without axes
        ax.set_axis_off()
        top = height - line_h
        for kind, x, ln, text, shade in items:
            y = top - ln * line_h
            if kind == "head":
                ax.text(x, y, text, transform=IdentityTransform(), fontsize=10.5, fontweight="bold", va="baseline")
            elif kind == "label":
                ax.text(x + 8, y, text, transform=IdentityTransform(), fontsize=9, color="#333333", va="baseline")
            else:
                color = PARTIAL_COLOR if shade < 0 else WHOLE_COLORS[shade]
                ax.text(x + pad, y, text, transform=IdentityTransform(), fontsize=10, va="baseline",
                         bbox={"boxstyle": "round,pad=0.25", "facecolor": color, "edgecolor": "#7a7a7a",
                               "linewidth": 0.6})
        ax.text(8, 8, "one box per token; ▁ = a word starts; orange = part of a character (jamo or byte); "
                       "jamo composed back to syllables for reading",
                 transform=IdentityTransform(), fontsize=8, color="#555555")
        return _finish(fig, path, plt)
