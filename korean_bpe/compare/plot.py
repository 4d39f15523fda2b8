"""Draw a :func:`~korean_bpe.compare.run.compare_strategies` frame (matplotlib, Agg backend).

The figure is drawn from the frame alone (nothing is recomputed): one panel per metric, one group
of bars per strategy (``pre-tokenizer/unit``), one bar per vocabulary size.
"""

from __future__ import annotations

import os
from pathlib import Path
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:  # pragma: no cover
    import pandas as pd

__all__ = ["plot_comparison", "PANELS"]

#: (column, panel title) drawn by :func:`plot_comparison`
PANELS: tuple[tuple[str, str], ...] = (
    ("tokens_per_word", "tokens per word (fertility, lower = shorter)"),
    ("chars_per_token", "characters per token (higher = more compression)"),
    ("whole_word_rate", "test words kept whole (share)"),
    ("round_trip_rate", "exact round trips (share of texts)"),
    ("unk_rate", "<unk> tokens (share)"),
    ("encode_texts_per_s", "encode_batch throughput (texts/s)"),
)


def plot_comparison(df: pd.DataFrame, path: str | os.PathLike[str] | None = None, *, title: str | None = None) -> Any:
    """Draw ``df`` (the frame of ``compare_strategies``); save it to ``path`` when given (the format
    follows the suffix, e.g. ``.png``, ``.svg``).  Returns the matplotlib ``Figure``."""
    from .._optional import require

    matplotlib = require("matplotlib")
    if path is not None:
        matplotlib.use("Agg")  # no display needed to write a file
    import matplotlib.pyplot as plt

    missing = [c for c, _ in PANELS if c not in df.columns] + [c for c in ("pre_tokenizer", "unit", "vocab_size") if c not in df.columns]
    if missing:
        raise ValueError(f"df lacks the column {missing[0]!r}: pass the frame returned by compare_strategies")
    if df.empty:
        raise ValueError("df is empty: there is nothing to plot (every strategy was skipped?)")

    strategies = list(dict.fromkeys(f"{p}/{u}" for p, u in zip(df["pre_tokenizer"], df["unit"])))
    sizes = sorted(df["vocab_size"].unique())
    fig, axes = plt.subplots(len(PANELS) // 2, 2, figsize=(13, 3.2 * (len(PANELS) // 2)), squeeze=False)
    width = 0.8 / len(sizes)
    label = df["pre_tokenizer"].astype(str) + "/" + df["unit"].astype(str)
    for ax, (column, panel_title) in zip(axes.flat, PANELS):
        for k, size in enumerate(sizes):
            sub = df[df["vocab_size"] == size]
            values = dict(zip(label[sub.index], sub[column]))
            xs = [i + (k - (len(sizes) - 1) / 2) * width for i in range(len(strategies))]
            ax.bar(xs, [values.get(s, float("nan")) for s in strategies], width, label=f"vocab {size}")
        ax.set_title(panel_title, fontsize=10)
        ax.set_xticks(range(len(strategies)))
        ax.set_xticklabels(strategies, rotation=45, ha="right", fontsize=8)
        ax.grid(axis="y", alpha=0.3)
    handles, labels = axes.flat[0].get_legend_handles_labels()
    fig.legend(handles, labels, loc="upper right", ncol=len(sizes), fontsize=8, frameon=False)
    fig.suptitle(title or "korean_bpe: pre-tokenizer x unit on held-out text")
    fig.tight_layout(rect=(0, 0, 1, 0.97))  # room for the title and the legend above the panels
    if path is not None:
        Path(path).parent.mkdir(parents=True, exist_ok=True)
        fig.savefig(path, dpi=110)
        plt.close(fig)
    return fig
