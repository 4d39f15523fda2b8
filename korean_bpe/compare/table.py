"""The comparison table: its columns (:data:`COLUMNS`, :data:`DTYPES`) and the text view
:func:`format_table`."""

from __future__ import annotations

import math
from typing import TYPE_CHECKING

if TYPE_CHECKING:  # pragma: no cover
    import pandas as pd

__all__ = ["COLUMNS", "DTYPES", "format_table"]

#: the columns of the frame :func:`compare` returns, in order
COLUMNS = (
    "strategy", "kind", "pre_tokenizer", "unit", "lossless", "vocab_size", "actual_vocab_size",
    "tokens_per_doc", "tokens_per_word", "continued_word_rate", "chars_per_token", "bytes_per_token",
    "unk_rate", "unrepresentable_char_rate", "renyi_efficiency", "renyi_efficiency_observed",
    "gold", "self_graded", "morph_precision", "morph_recall", "morph_f1",
    "incomplete_hangul_rate", "jamo_token_rate", "round_trip_rate", "probe_accuracy",
    "train_s", "pretok_s", "encode_texts_per_s", "train_docs", "test_docs", "model_cached",
)
_TEXT = ("strategy", "kind", "pre_tokenizer", "unit", "gold")
#: the dtype of each column (an empty frame has them too)
DTYPES: dict[str, str] = {
    c: "object" if c in _TEXT else "bool" if c in ("lossless", "self_graded", "model_cached")
    else "int64" if c in ("vocab_size", "actual_vocab_size", "train_docs", "test_docs") else "float64"
    for c in COLUMNS
}


#: (column, header, format) of :func:`format_table`: what fits a 100-column terminal
_TABLE: tuple[tuple[str, str, str], ...] = (
    ("strategy", "strategy", "{}"),
    ("vocab_size", "vocab", "{:d}"),
    ("tokens_per_doc", "tok/doc", "{:.2f}"),
    ("tokens_per_word", "tok/w", "{:.2f}"),
    ("continued_word_rate", "cont%", "{:.1f}"),
    ("unk_rate", "unk%", "{:.2f}"),
    ("renyi_efficiency", "renyi", "{:.3f}"),
    ("morph_f1", "mF1%", "{:.1f}"),
    ("round_trip_rate", "rt%", "{:.1f}"),
    ("probe_accuracy", "probe%", "{:.1f}"),
    ("train_s", "train s", "{:.1f}"),
    ("encode_texts_per_s", "k doc/s", "{:.1f}"),
)
_PERCENT = {"continued_word_rate", "unk_rate", "morph_f1", "round_trip_rate", "probe_accuracy"}


def format_table(df: pd.DataFrame) -> str:
    """The frame as an aligned text table, at most 100 characters wide: the main columns, short
    headers, rates in percent, ``-`` for NaN, ``*`` after a morpheme F1 graded by its own analyzer."""
    if df.empty:
        return "(no strategy could be measured)"
    cells: list[list[str]] = []
    for _, row in df.iterrows():
        line = []
        for col, _, fmt in _TABLE:
            v = row[col]
            if isinstance(v, float) and math.isnan(v):
                line.append("-")
                continue
            if col in _PERCENT:
                v = v * 100
            elif col == "encode_texts_per_s":
                v = v / 1000
            text = fmt.format(v)
            if col == "morph_f1" and row["self_graded"]:
                text += "*"
            line.append(text)
        cells.append(line)
    headers = [h for _, h, _ in _TABLE]
    widths = [max(len(h), *(len(c[i]) for c in cells)) for i, h in enumerate(headers)]
    fmt_row = lambda vals: " ".join(  # noqa: E731
        v.ljust(w) if i == 0 else v.rjust(w) for i, (v, w) in enumerate(zip(vals, widths))).rstrip()
    return "\n".join([fmt_row(headers), *map(fmt_row, cells)])

