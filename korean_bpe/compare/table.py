"""The comparison as text: :func:`format_table` (the values, with their significance marks) and
:func:`format_intervals` (their bootstrap intervals), both at most 100 characters wide, both
generated from :data:`korean_bpe.compare.columns.TABLE`."""

from __future__ import annotations

import math
from collections.abc import Sequence
from typing import TYPE_CHECKING, Any

from . import columns

if TYPE_CHECKING:  # pragma: no cover
    import pandas as pd

__all__ = ["format_table", "format_compact", "COMPACT", "format_intervals", "format_task", "MARKS", "marks_legend", "name_marks", "value_marks",
           "not_significant", "metrics_tested"]

#: what the marks of the printed table and the reports mean
MARKS = {
    "~": "after a value: not significantly different from the row's reference, whitespace BPE of its unit and "
         "size unless chosen (Holm-adjusted p >= {alpha:g} over the rows; paired bootstrap, McNemar for the "
         "probe); a value without a mark differs significantly",
    "?": "after a value in the reports, after a name in the printed table (then for each of its values): not "
         "tested (its reference was not measured: a note names the rows)",
    "(ref)": "after a name: the reference of other rows, so not tested itself",
    "†": "after a name: drops text (analysis mode), so its counts leave out what it dropped",
    "‡": "after mF1: graded by its own analyzer (not a significance mark)",
    "↓": "after vocab: the vocabulary stopped short of the size asked (a note gives the size reached)",
    "≡": "before a name under the table: a row with the same ids as the row it names, shown once",
}
#: the intervals :func:`format_intervals` prints (what fits 100 columns)
INTERVALS = ("tokens_per_word", "continued_word_rate", "morph_f1", "round_trip_rate", "probe_accuracy")


def marks_legend(alpha: float = 0.05, *, width: int = 100) -> str:
    """The marks' legend, wrapped to ``width`` columns."""
    import textwrap

    return "\n".join(textwrap.fill(text.format(alpha=alpha), width, initial_indent=f"  {mark:5s}  ",
                                    subsequent_indent="         ") for mark, text in MARKS.items())


def name_marks(row: Any) -> str:
    """The marks after a row's strategy name: ``†`` for a row that drops text, ``(ref)`` for the
    reference of other rows."""
    return ("†" if row.get("drops_text") else "") + ("(ref)" if row.get("reference") == row.get("strategy") else "")


def value_marks(row: Any, column: columns.Column, alpha: float, *, tested: bool) -> str:
    """The marks after a shown value: ``‡`` (mF1 graded by its own analyzer), ``~`` (Holm-adjusted
    p of ``alpha`` or more: not significant), ``?`` (not tested though the run tested the metric:
    ``tested``; the reference row itself excepted)."""
    out = "‡" if column.name == "morph_f1" and row.get("self_graded") else ""
    if not column.interval:
        return out
    p = _p(row, column.name)
    if p is not None:
        return out + ("~" if p >= alpha else "")
    return out + ("?" if tested and row.get("reference") != row.get("strategy") else "")


def not_significant(row: Any, metric: str, alpha: float) -> bool:
    """The row has a p-value for ``metric`` (Holm-adjusted where the frame has it) not below ``alpha``."""
    p = _p(row, metric)
    return p is not None and p >= alpha


def _p(row: Any, metric: str) -> float | None:
    """The p-value the marks use: ``<metric>_p_holm`` (``<metric>_p`` in a frame of an older run); None for NaN."""
    p = row.get(columns.adjusted_column(metric), row.get(f"{metric}_p"))
    return None if p is None or (isinstance(p, float) and math.isnan(p)) else float(p)


def metrics_tested(df: pd.DataFrame) -> set[str]:
    """The interval metrics with a p-value in some row of ``df``."""
    return {m for m in columns.INTERVAL_METRICS if f"{m}_p" in df.columns and df[f"{m}_p"].notna().any()}


def short_of_size(row: Any) -> bool:
    """The row's vocabulary stopped short of the size asked (a baseline's is what the corpus holds):
    the ``↓`` after its vocab."""
    from .verdict import SIZE_SLACK

    reached = row.get("actual_vocab_size")
    return (row.get("kind") != "baseline" and isinstance(reached, (int, float)) and not math.isnan(reached)
            and reached < SIZE_SLACK * row["vocab_size"])


def _vocab(row: Any) -> str:
    return f"{row['vocab_size']:d}" + ("↓" if short_of_size(row) else "")


#: the columns of :func:`format_compact`, those measured in some row (the downstream accuracy with its interval)
COMPACT = ("tokens_per_word", "unk_rate", "morph_f1", "round_trip_rate", "downstream_accuracy", "probe_accuracy",
           "encode_texts_per_s")


def format_compact(df: pd.DataFrame, *, alpha: float = 0.05, limit: int = 20, width: int = 100,
                   order_by: str | None = None) -> tuple[str, list[str]]:
    """The table a person reads first, and the headers it printed (for the legend): one line a row
    with :data:`COMPACT`'s columns (the probe left out when the downstream interval fills the width),
    identical rows (``same_as``) shown once and named under the table, at most ``limit`` rows (those
    of the largest size first, sorted by ``order_by``'s direction when given; a last line counts the
    rows left to ``--full`` and table.csv)."""
    if df.empty:
        return "(no strategy could be measured)", []
    records = df.to_dict("records")
    shown = [columns.by_name(m) for m in COMPACT if m in df.columns and measured(df, m)]
    if order_by is not None and order_by in df.columns:
        sign = -1 if columns.by_name(order_by).direction == "lower" else 1
        largest = max(r["vocab_size"] for r in records)
        records.sort(key=lambda r: (r["vocab_size"] != largest,
                                    -sign * (r[order_by] if not math.isnan(r[order_by]) else -sign * math.inf)))
    same = [r for r in records if r.get("same_as")]
    kept = [r for r in records if not r.get("same_as")]
    tested = metrics_tested(df)
    for attempt in (shown, [c for c in shown if c.name != "probe_accuracy"]):
        cells = []
        for row in kept[:limit]:
            untested = tested and not row.get("reference")
            line = [f"{row['strategy']}{name_marks(row)}{'?' if untested else ''}", _vocab(row)]
            for c in attempt:
                line.append(_compact_cell(row, c, alpha))
            cells.append(line)
        headers = ["strategy", "vocab", *(c.header + (" [interval]" if c.name == "downstream_accuracy" else "")
                                          for c in attempt)]
        text = _aligned(headers, cells)
        if max(map(len, text.splitlines())) <= width:
            break
    tail = []
    if len(kept) > limit:
        tail.append(f"({len(kept) - limit} more rows: --full prints every row, table.csv has them all)")
    for row in same:
        tail.append(f"≡ {row['strategy']} at {row['vocab_size']:,}: the same ids as {row['same_as']} on every "
                    "held-out document (shown once)")
    return "\n".join([text, *tail]), headers[1:]


def _compact_cell(row: Any, c: columns.Column, alpha: float) -> str:
    v = row.get(c.name)
    if v is None or (isinstance(v, float) and math.isnan(v)):
        return "-"
    if c.name == "downstream_accuracy":
        text = f"{v * 100:.2f}" + ("~" if not_significant(row, c.name, alpha) else "")
        low, high = (row.get(n, math.nan) for n in columns.interval_columns(c.name)[:2])
        return text if math.isnan(low) else f"{text} [{low * 100:.1f}, {high * 100:.1f}]"
    return c.shown(v, short=True) + value_marks(row, c, alpha, tested=False)


def format_table(df: pd.DataFrame, *, alpha: float = 0.05) -> str:
    """The frame as an aligned text table, at most 100 characters wide: the columns with a ``short``
    format, short headers, rates in percent, ``-`` for NaN; the marks of :data:`MARKS` (``~`` for a
    Holm-adjusted p-value of ``alpha`` or more)."""
    if df.empty:
        return "(no strategy could be measured)"
    shown = [c for c in columns.TABLE if c.short and measured(df, c.name)]
    tested = metrics_tested(df)
    cells: list[list[str]] = []
    for row in df.to_dict("records"):
        line = []
        for c in shown:
            v = row[c.name]
            if c.name == "strategy":  # ? once, after the name: 100 columns hold no ? after each value
                untested = tested and not row.get("reference")
                line.append(f"{v}{name_marks(row)}{'?' if untested else ''}")
                continue
            if c.name == "vocab_size":
                line.append(_vocab(row))
                continue
            if isinstance(v, float) and math.isnan(v):
                line.append("-")
                continue
            line.append(c.shown(v, short=True) + value_marks(row, c, alpha, tested=False))
        cells.append(line)
    return _aligned([c.header for c in shown], cells)


def measured(df: pd.DataFrame, name: str) -> bool:
    """Whether column ``name`` of ``df`` holds a value in some row (a metric nobody measured, the probe
    without labels, is left out of the shown tables)."""
    column = df[name]
    return column.dtype != "float64" or bool(column.notna().any())


#: the downstream block's columns (:func:`format_downstream`): the accuracy with its interval, then the rest
DOWNSTREAM = ("downstream_accuracy", "downstream_macro_f1", "downstream_seed_sd", "probe_accuracy")


def format_downstream(df: pd.DataFrame, *, alpha: float = 0.05) -> str:
    """The downstream stage's columns: its accuracy with the interval over the held-out documents and
    the seeds, its macro-F1, the seeds' spread, and the order-blind probe beside them, in percent,
    ``~`` where the (Holm-adjusted) p-value against the reference is ``alpha`` or more; ``""`` when
    no row has a downstream accuracy."""
    if df.empty or not measured(df, "downstream_accuracy"):
        return ""
    cells = []
    for row in df.to_dict("records"):
        line = [f"{row['strategy']}{name_marks(row)}", f"{row['vocab_size']:d}"]
        for name in DOWNSTREAM:
            c, v = columns.by_name(name), row[name]
            if isinstance(v, float) and math.isnan(v):
                line.append("-")
                continue
            text = f"{v * 100:.2f}" + ("~" if c.interval and not_significant(row, name, alpha) else "")
            low, high = (row.get(n, math.nan) for n in columns.interval_columns(name)[:2]) if c.interval else \
                (math.nan, math.nan)
            if name == "downstream_accuracy" and not math.isnan(low):
                text += f" [{low * 100:.1f}, {high * 100:.1f}]"
            line.append(text)
        cells.append(line)
    return _aligned(["strategy", "vocab", "down% [interval]", "dF1%", "seed sd", "probe%"], cells)


def format_task(df: pd.DataFrame, task_columns: Sequence[columns.Column], *, alpha: float = 0.05,
                width: int = 100) -> str:
    """A task's columns (``Task.columns``) of each row of ``df``: each value as the reports show it,
    with ``~`` where the (Holm-adjusted) p-value against the reference is ``alpha`` or more and the
    interval ``[low, high]`` of an interval metric; ``-`` where there is none; ``""`` when no row has
    any of them.  A table wider than ``width`` characters (a task of many columns: ``noise``) is
    printed long instead: a line per row and interval metric, its other columns left to table.csv
    and the reports (a last line says so)."""
    shown = [c for c in task_columns if c.name in df.columns and df[c.name].notna().any()]
    if df.empty or not shown:
        return ""
    records = df.to_dict("records")
    cells = [[f"{row['strategy']}{name_marks(row)}", f"{row['vocab_size']:d}",
              *(_task_cell(row, c, alpha) for c in shown)] for row in records]
    wide = _aligned(["strategy", "vocab", *(c.name + (" [interval]" if c.interval else "") for c in shown)], cells)
    if max(map(len, wide.splitlines())) <= width:
        return wide
    metrics = [c for c in shown if c.interval] or shown
    long = [[f"{row['strategy']}{name_marks(row)}", f"{row['vocab_size']:d}", c.name, _task_cell(row, c, alpha)]
            for row in records for c in metrics]
    left = len(shown) - len(metrics)
    return _aligned(["strategy", "vocab", "metric", "value [interval]"], long) + (
        f"\n({left} more column{'s' if left > 1 else ''} of this task in table.csv and the report)" if left else "")


def _task_cell(row: Any, c: columns.Column, alpha: float) -> str:
    """One value of a task's column as :func:`format_task` prints it (``-`` for NaN)."""
    v = row[c.name]
    if isinstance(v, float) and math.isnan(v):
        return "-"
    text = c.shown(v) + ("~" if c.interval and not_significant(row, c.name, alpha) else "")
    low, high = (row.get(n, math.nan) for n in columns.interval_columns(c.name)[:2])
    if c.interval and not math.isnan(low):
        text += f" [{c.shown(low)}, {c.shown(high)}]"
    return text


def format_intervals(df: pd.DataFrame) -> str:
    """The bootstrap intervals of the main metrics (:data:`INTERVALS`, those measured in some row) as
    ``[low, high]``, in the printed table's units, one row per row of ``df``; ``-`` where there is none."""
    if df.empty:
        return "(no strategy could be measured)"
    metrics = [columns.by_name(m) for m in INTERVALS if df[columns.interval_columns(m)[0]].notna().any()]
    cells = []
    for row in df.to_dict("records"):
        line = [f"{row['strategy']}{name_marks(row)}", f"{row['vocab_size']:d}"]
        for c in metrics:
            low, high = (row[n] for n in columns.interval_columns(c.name)[:2])
            line.append("-" if math.isnan(low) else f"[{c.shown(low, short=True)}, {c.shown(high, short=True)}]")
        cells.append(line)
    return _aligned(["strategy", "vocab", *(c.header for c in metrics)], cells)


def _aligned(headers: list[str], cells: list[list[str]]) -> str:
    widths = [max(len(h), *(len(c[i]) for c in cells)) for i, h in enumerate(headers)]
    fmt_row = lambda vals: " ".join(  # noqa: E731
        v.ljust(w) if i == 0 else v.rjust(w) for i, (v, w) in enumerate(zip(vals, widths))).rstrip()
    return "\n".join([fmt_row(headers), *map(fmt_row, cells)])
