"""Write a comparison as files people open: ``table.csv``, ``report.md``, ``report.html`` and the plots.

:func:`write_report` takes the frame of :func:`korean_bpe.compare.compare` (the columns of
:data:`DEFINITIONS`) and writes into one directory:

* ``table.csv``: the frame as is (full precision, ``NaN`` as an empty field);
* ``*.png``: the plots of :mod:`korean_bpe.compare.plot` (those the frame has data for);
* ``report.md``: corpus summary, table, the PNGs linked, segmentation examples, column definitions,
  notes, command and package versions;
* ``report.html``: the same on one self-contained page: every image embedded as a ``data:`` URI, no
  network, no external CSS or JavaScript (a few inline lines make the table sortable: click a header).
  Someone who receives only this file sees everything.

A lone surrogate (U+D800..U+DFFF, which UTF-8 cannot hold) in a sentence, a token or a note is
shown as ``\\ud800`` in ``report.md`` and ``report.html``; ``table.csv`` is data, so a frame
holding one is refused (ValueError naming the cell) before any file is written.

Each file is written to a temporary name and renamed (:func:`korean_bpe.files.atomic_write_text`:
flushed to disk, the umask's permissions), so a failure leaves no half-written report.
:func:`check_output_dir` refuses a bad directory before any work starts (the CLI calls it first).

The Markdown table is written here (a dozen lines) rather than with ``DataFrame.to_markdown``, which
needs the ``tabulate`` package for no gain; the HTML table is ``DataFrame.to_html``.

>>> import tempfile
>>> with tempfile.TemporaryDirectory() as d:
...     check_output_dir(d) == Path(d).resolve()
True
>>> check_output_dir(__file__)  # doctest: +ELLIPSIS
Traceback (most recent call last):
...
ValueError: the output directory ... is a file: give a directory (it is created if missing), e.g. -o results
"""

from __future__ import annotations

import base64
import math
import os
import platform
import re
import shlex
import tempfile
from collections.abc import Mapping, Sequence
from datetime import datetime, timezone
from pathlib import Path
from typing import TYPE_CHECKING, Any

from . import columns

if TYPE_CHECKING:  # pragma: no cover
    from collections import Counter

    import pandas as pd

__all__ = [
    "write_report", "check_output_dir", "package_versions", "pick_sentences", "segmentation_examples",
    "token_lengths", "DEFINITIONS", "FORMATS", "VERSIONED",
]

#: what each column of the comparison table means, in the table's order (generated from
#: :data:`korean_bpe.compare.columns.TABLE`, as in report.md and report.html)
DEFINITIONS: dict[str, str] = columns.definitions()

#: how report.md and report.html show a column (after a rate is turned into a percentage;
#: table.csv keeps full precision); others as str
FORMATS: dict[str, str] = {c.name: c.format for c in columns.ALL if c.format != "{}"}

#: distributions whose versions the report records (when installed)
VERSIONED = ("korean_bpe", "pandas", "numpy", "matplotlib", "koreanize-matplotlib", "konlpy", "JPype1",
             "kiwipiepy", "python-mecab-ko", "tokenizers", "sentencepiece", "transformers", "scikit-learn")

#: (file, title, caption) of each plot, in report order
PLOTS = (
    ("tokens_per_word.png", "Tokens per 어절 against vocabulary size",
     "Lower is shorter. Our BPE: colour = pre-tokenizer, marker = unit; peers dash-dotted; baselines "
     "(no vocabulary sweep) as dotted reference lines, named at the right (a baseline far off is named in "
     "the footnote)."),
    ("tradeoff.png", "Morpheme-boundary F1 against tokens per 어절",
     "Up and to the left is better. The axes hold our BPE and the peers; a baseline far off is named in the "
     "footnote. Hollow points (‡) are graded by their own analyzer; a line joins a strategy's sizes, the "
     "larger point the larger vocabulary."),
    ("renyi.png", "Rényi efficiency against vocabulary size", "How evenly the vocabulary is used (α = 2.5)."),
    ("token_lengths.png", "Token lengths", "Each token's characters on held-out text, per strategy. The mean "
     "counts a token's own characters (not the space a ▁ stands for; a character split between tokens in each), "
     "so it differs from the table's chars/token, all held-out characters over all tokens."),
    ("downstream.png", "Downstream accuracy", "A small neural classifier trained from scratch on each strategy's "
     "tokens (the mean of its seeds), with its interval over the held-out documents and the seeds."),
    ("probe.png", "Probe accuracy", "A bag-of-tokens logistic regression on the labels, per strategy: "
     "order-blind, a cheap signal beside the downstream model."),
    ("segmentation.png", "Segmentation examples",
     "Held-out sentences as each strategy cuts them; jamo composed back to syllables for reading."),
)

_NA = columns.NA


# --- the output directory ------------------------------------------------------------------------


def check_output_dir(path: str | os.PathLike[str]) -> Path:
    """Refuse an output directory that cannot be written, before any work starts; return it resolved.

    A missing directory is fine when its nearest existing parent is a writable directory (it is
    created by :func:`write_report`).  Refused with ValueError: an empty path, a path that is a file,
    a parent that is a file, a directory where a file cannot be created (tried for real, so it holds
    for root and read-only file systems alike).  Nothing is created or left behind.
    """
    if not isinstance(path, (str, os.PathLike)):
        raise TypeError(f"the output directory must be a path, got {type(path).__name__}")
    if str(path).strip() == "":
        raise ValueError("the output directory is empty: give one, e.g. -o results")
    target = Path(path).expanduser().resolve()
    if target.exists() and not target.is_dir():
        raise ValueError(f"the output directory {target} is a file: give a directory (it is created if "
                         "missing), e.g. -o results")
    existing = target
    while not existing.exists():
        existing = existing.parent
    if not existing.is_dir():
        raise ValueError(f"cannot create the output directory {target}: {existing} is a file; "
                         "choose another place")
    try:
        with tempfile.TemporaryFile(dir=existing, prefix=".korean_bpe-probe-"):
            pass
    except OSError as exc:
        where = "write into" if existing == target else f"create {target} in"
        raise ValueError(f"cannot {where} {existing} ({exc.strerror or exc}): choose a writable directory, "
                         f"e.g. -o ~/korean_bpe_results") from None
    return target


# --- pieces ------------------------------------------------------------------------------------------


def package_versions() -> dict[str, str]:
    """Python and the installed distributions of :data:`VERSIONED` -> version (none is imported).

    >>> versions = package_versions()
    >>> versions["python"] == platform.python_version() and "korean_bpe" in versions
    True
    """
    from importlib.metadata import PackageNotFoundError, version

    found = {"python": platform.python_version()}
    for name in VERSIONED:
        try:
            found[name] = version(name)
        except PackageNotFoundError:
            continue
    return found


def _cell(column: str, value: Any) -> str:
    """A value as the reports show it (:func:`korean_bpe.compare.columns.cell`): the column's format,
    rates as percentages, NaN as an en dash, booleans as yes/no."""
    return columns.cell(column, value)


def _markdown_table(header: Sequence[str], rows: Sequence[Sequence[str]], *, right: Sequence[bool] | None = None) -> str:
    """A GitHub-flavoured Markdown table, every cell escaped (:func:`_md`); ``right`` aligns columns right."""
    esc = _md

    align = right or [False] * len(header)
    lines = ["| " + " | ".join(esc(h) for h in header) + " |",
             "|" + "|".join("---:" if r else ":---" for r in align) + "|"]
    lines += ["| " + " | ".join(esc(c) for c in row) + " |" for row in rows]
    return "\n".join(lines)


def _corpus_lines(corpus: str | Mapping[str, Any] | None, df: pd.DataFrame) -> list[tuple[str, str]]:
    items: list[tuple[str, str]] = []
    if isinstance(corpus, str):
        items.append(("corpus", corpus))
    elif corpus is not None:
        items += [(str(k), f"{v:,}" if isinstance(v, int) and not isinstance(v, bool) else str(v)) for k, v in corpus.items()]
    for column, label in (("train_docs", "training documents"), ("test_docs", "held-out documents")):
        if column in df.columns and not df.empty and label not in dict(items):
            items.append((label, f"{int(df[column].max()):,}"))
    if "strategy" in df.columns and not df.empty:
        items.append(("rows", f"{len(df)} ({df['strategy'].nunique()} strategies x "
                              f"{df['vocab_size'].nunique()} vocabulary sizes)"))
    return items


def _draw_plots(df: pd.DataFrame, out: Path, *, sentences: Sequence[str],
                examples: Mapping[str, Sequence[Sequence[str]]] | None,
                token_lengths: Mapping[str, Sequence[int] | Counter[int]] | None) -> tuple[list[str], list[str]]:
    """Draw every plot there is data for into ``out``; returns (files written, why others were not)."""
    from . import plot

    jobs: list[tuple[str, Any]] = [
        ("tokens_per_word.png", lambda p: plot.plot_tokens_per_word(df, p)),
        ("tradeoff.png", lambda p: plot.plot_tradeoff(df, p)),
        ("renyi.png", lambda p: plot.plot_renyi(df, p)),
    ]
    skipped: list[str] = []
    if token_lengths:
        jobs.append(("token_lengths.png", lambda p: plot.plot_token_lengths(token_lengths, p)))
    if "downstream_accuracy" in df.columns and df["downstream_accuracy"].notna().any():
        jobs.append(("downstream.png", lambda p: plot.plot_downstream(df, p)))
    if plot.has_probe(df):
        jobs.append(("probe.png", lambda p: plot.plot_probe(df, p)))
    else:
        skipped.append("probe.png: no probe_accuracy (no labels were given)")
    if examples and sentences:
        jobs.append(("segmentation.png", lambda p: plot.plot_segmentation(sentences, examples, p)))
    written: list[str] = []
    from ..files import atomic_write

    for name, draw in jobs:
        try:
            atomic_write(out / name, draw)
        except ValueError as exc:  # a metric NaN in every row: say so in the report
            skipped.append(f"{name}: {exc}")
            continue
        written.append(name)
    return written, skipped


# --- from the segmenters of a run to examples and histograms ---------------------------------------


def pick_sentences(texts: Sequence[str], *, n: int = 3, min_chars: int = 12, max_chars: int = 48) -> list[str]:
    """``n`` example sentences for the segmentation figure: the first texts (in the given order)
    of ``min_chars`` to ``max_chars`` characters, without a repeat; the first texts when too few fit.

    >>> pick_sentences(["짧다", "이 영화 정말 재밌어요 최고", "배우들 연기가 좋았다 ㅎㅎ", "짧다"], n=2, min_chars=5)
    ['이 영화 정말 재밌어요 최고', '배우들 연기가 좋았다 ㅎㅎ']
    """
    if n < 1:
        raise ValueError(f"n must be >= 1, got {n!r}")
    fit = [t for t in dict.fromkeys(t.strip() for t in texts) if min_chars <= len(t) <= max_chars]
    if len(fit) < n:
        fit += [t for t in dict.fromkeys(t.strip() for t in texts) if t and t not in fit]
    return fit[:n]


def _largest(segmenters: Mapping[tuple[str, int], Any]) -> dict[str, Any]:
    """strategy -> the pieces of its segmenter at the largest vocabulary size, as a function of the
    text (strategies in first-seen order).  A value of ``segmenters`` is a Segmenter, or the
    ``{text: pieces}`` that :func:`korean_bpe.compare.compare` records under ``pieces=``."""
    best: dict[str, tuple[int, Any]] = {}
    for (name, size), seg in segmenters.items():
        if name not in best or size > best[name][0]:
            best[name] = (size, seg)
    return {name: seg.__getitem__ if isinstance(seg, Mapping) else seg.pieces for name, (_, seg) in best.items()}


def segmentation_examples(segmenters: Mapping[tuple[str, int], Any], sentences: Sequence[str]) -> dict[str, list[list[str]]]:
    """strategy -> the tokens of each sentence (``Segmenter.pieces``), at the strategy's largest
    vocabulary size: the ``examples`` of :func:`write_report`.  ``segmenters`` is a dict that
    :func:`korean_bpe.compare.compare` fills: ``segmenters=`` (``(strategy, vocab_size) -> Segmenter``),
    or ``pieces=`` (``(strategy, vocab_size) -> {text: pieces}`` for its ``pieces_texts``, which
    must hold ``sentences``; it works with ``n_jobs`` > 1).

    >>> from korean_bpe.compare.segmenters import BaselineSegmenter
    >>> seg = BaselineSegmenter.train(["영화 정말 재밌다"], unit="word", vocab_size=4)
    >>> segmentation_examples({("baseline/word", 4): seg}, ["영화 정말 좋다"])
    {'baseline/word': [['영화', '정말', '<unk>']]}
    """
    return {name: [[token for token, _, _ in pieces(s)] for s in sentences]
            for name, pieces in _largest(segmenters).items()}


def token_lengths(segmenters: Mapping[tuple[str, int], Any], texts: Sequence[str]) -> dict[str, Counter[int]]:
    """strategy -> Counter of its tokens' lengths in characters of ``texts`` (``Segmenter.pieces``:
    a token holding part of a character counts that character; a lone ``▁`` marker counts 0), at
    the strategy's largest vocabulary size: the ``token_lengths`` of :func:`write_report`.
    ``segmenters`` as in :func:`segmentation_examples` (``pieces_texts`` holding ``texts``).

    >>> from korean_bpe.compare.segmenters import BaselineSegmenter
    >>> seg = BaselineSegmenter.train(["영화 정말 재밌다"], unit="word", vocab_size=4)
    >>> token_lengths({("baseline/word", 4): seg}, ["영화 정말 재밌다 ㅋㅋ"])
    {'baseline/word': Counter({2: 3, 3: 1})}
    """
    from collections import Counter

    return {name: Counter(b - a for text in texts for _, a, b in pieces(text))
            for name, pieces in _largest(segmenters).items()}


# --- the report --------------------------------------------------------------------------------------


def write_report(
    df: pd.DataFrame,
    out_dir: str | os.PathLike[str],
    *,
    corpus: str | Mapping[str, Any] | None = None,
    sentences: Sequence[str] = (),
    examples: Mapping[str, Sequence[Sequence[str]]] | None = None,
    token_lengths: Mapping[str, Sequence[int] | Counter[int]] | None = None,
    command: str | Sequence[str] | None = None,
    notes: Sequence[str] = (),
    title: str = "korean_bpe: tokenization strategies compared",
    config: Mapping[str, Any] | None = None,
    versions: Mapping[str, str] | None = None,
    verdicts: Sequence[Any] = (),
) -> dict[str, Path]:
    """Write ``table.csv``, the plots (``*.png``), ``report.md`` and ``report.html`` into ``out_dir``
    (created if missing); returns file name -> path, in the order written.

    ``corpus``: a name, or a mapping of what to say about it (``{"corpus": "NSMC", "training
    file": "ratings_train.txt"}``); ``sentences`` and ``examples`` (strategy -> the tokens of each
    sentence) draw the segmentation examples; ``token_lengths`` (strategy -> token lengths in
    characters, or a Counter) the histograms; ``command`` is recorded as run (a list is shell-quoted);
    ``notes`` (e.g. "skipped mecab: not installed") are listed; ``config`` (the comparison's exact
    configuration) and ``versions`` (default: :func:`package_versions` now) are recorded;
    ``verdicts`` (:func:`korean_bpe.compare.verdict.verdicts`) open the report.
    :meth:`korean_bpe.compare.Comparison.write_report` passes all of them from a comparison.

    Every text from the corpus or the user (file names, sentences, notes, the command) is literal
    in ``report.md`` (code spans and fenced blocks; table cells escaped) as in ``report.html``
    (escaped): Markdown viewers that render HTML show it as text.
    """
    import pandas as pd

    from ..files import atomic_write_text

    if not isinstance(df, pd.DataFrame):
        raise TypeError(f"df must be the pandas DataFrame of korean_bpe.compare.compare, got {type(df).__name__}")
    if df.empty:
        raise ValueError("df is empty: there is nothing to report (every strategy was skipped? see the notes)")
    if examples and len(sentences) == 0:
        raise ValueError("examples were given without sentences: pass sentences=[...] (the texts they cut)")
    _check_no_surrogate(df)
    out = check_output_dir(out_dir)
    out.mkdir(parents=True, exist_ok=True)
    if isinstance(command, str):
        command_text = command
    elif command is not None:
        command_text = shlex.join(str(c) for c in command)
    else:
        command_text = "korean_bpe.compare.report.write_report(...) called from Python"
    written: dict[str, Path] = {}

    atomic_write_text(out / "table.csv", df.to_csv(index=False))
    written["table.csv"] = out / "table.csv"
    pngs, skipped = _draw_plots(df, out, sentences=sentences, examples=examples, token_lengths=token_lengths)
    for name in pngs:
        written[name] = out / name

    names = [str(c) for c in df.columns]
    cells = [[_cell(c, v) for c, v in zip(names, row)] for row in df.itertuples(index=False, name=None)]
    numeric = [pd.api.types.is_numeric_dtype(df[c]) and not pd.api.types.is_bool_dtype(df[c]) for c in names]
    confidence = float((config or {}).get("confidence", 0.95))
    context = {
        "title": title, "corpus": _corpus_lines(corpus, df), "columns": names, "cells": cells,
        "numeric": numeric, "pngs": pngs, "skipped": skipped, "notes": [str(n) for n in notes],
        "command": command_text, "versions": dict(versions) if versions is not None else package_versions(),
        "generated": datetime.now(timezone.utc).strftime("%Y-%m-%d %H:%M UTC"),
        "sentences": list(sentences), "examples": dict(examples or {}),
        "main": main_view(df, alpha=1 - confidence), "settings": _settings(config or {}),
        "legend": _legend(df, confidence, (config or {}).get("resamples")),
        "verdicts": _verdict_lines(verdicts), "alpha": f"{1 - confidence:.2g}",
    }
    atomic_write_text(out / "report.md", _render_markdown(context), errors="backslashreplace")
    written["report.md"] = out / "report.md"
    atomic_write_text(out / "report.html", _render_html(context, out), errors="backslashreplace")
    written["report.html"] = out / "report.html"
    return written


def _verdict_lines(verdicts: Sequence[Any]) -> list[dict[str, Any]]:
    """What the reports say of each :class:`~korean_bpe.compare.verdict.Verdict`."""
    out = []
    for v in verdicts:
        out.append({"family": v.family, "metric": v.metric, "vocab": f"{v.vocab_size:,}", "best": v.best,
                    "value": columns.cell(v.metric, v.value), "tied": ", ".join(v.tied[1:]),
                    "compared": v.compared - 1})
    return out


def _check_no_surrogate(df: pd.DataFrame) -> None:
    """Refuse a frame whose column names or text cells hold a lone surrogate: ``table.csv`` is UTF-8."""
    from ..tokens import SURROGATE

    for k, col in enumerate(df.columns):
        for row, value in enumerate([col, *df.iloc[:, k]]):
            if isinstance(value, str) and SURROGATE.search(value):
                where = f"the column name {value!r}" if row == 0 else f"row {row - 1}, column {col!r}: {value!r}"
                raise ValueError(f"cannot write table.csv: {where} holds a lone surrogate, which UTF-8 cannot hold; "
                                 "name strategies and columns with text that has none (text.encode('utf-8', "
                                 "'replace').decode() cleans it)")


def _readable_cut(tokens: Sequence[str]) -> str:
    from .plot import readable_token

    return " | ".join(readable_token(t) for t in tokens)


def _render_markdown(c: Mapping[str, Any]) -> str:
    md = _md
    parts = [f"# {md(c['title'])}", "", f"Generated {c['generated']} by korean_bpe "
             f"{md(c['versions'].get('korean_bpe', '?'))}.", "", "## Corpus", ""]
    parts += [f"- **{md(k)}**: {_code_span(v)}" for k, v in c["corpus"]] + [""]
    if c["verdicts"]:
        parts += ["## Verdict", "", f"Per family of metrics and vocabulary size: the best strategy, and those not "
                  f"significantly different from it (Holm-adjusted p >= {c['alpha']} against the best, on the same "
                  "resamples).", ""]
        parts += [f"- **{md(v['family'])}** at {v['vocab']} (`{v['metric']}`): best {_code_span(v['best'])} "
                  f"({md(v['value'])}); not significantly different: "
                  + (", ".join(_code_span(t) for t in v["tied"].split(", ")) if v["tied"] else "none")
                  + f" ({v['compared']} comparisons)" for v in c["verdicts"]] + [""]
    parts += ["## Table", ""]
    main = c["main"]
    parts += [md(c["legend"]), "", _markdown_table(main["headers"], main["rows"], right=main["right"]), ""]
    if main["intervals"]:
        parts += ["Intervals, in the same units:", "",
                  _markdown_table(main["interval_headers"], main["intervals"], right=main["interval_right"]), ""]
    parts += ["## Plots", ""]
    captions = {name: (t, cap) for name, t, cap in PLOTS}
    for name in c["pngs"]:
        t, cap = captions.get(name, (name, ""))
        parts += [f"### {t}", "", f"![{t}]({name})", "", cap, ""]
    if c["skipped"]:
        parts += ["Not drawn:", ""] + [f"- {md(s)}" for s in c["skipped"]] + [""]
    if c["examples"]:
        parts += ["## Segmentation examples", "", "Tokens separated by `|`, jamo composed back to syllables; "
                  "`▁` marks the start of a word.", ""]
        width = max(len(n) for n in c["examples"])
        for i, sentence in enumerate(c["sentences"]):
            cut = "\n".join(f"{name:<{width}}  {_readable_cut(cuts[i])}" for name, cuts in c["examples"].items())
            parts += [f"{i + 1}\\. {_code_span(sentence)}", "", _fenced(cut), ""]
    parts += ["## All columns", "", "Every column of `table.csv`, which has full precision.", ""]
    parts += [_markdown_table(c["columns"], c["cells"], right=c["numeric"]), "", "## Columns", ""]
    parts += [f"- {_code_span(col)}: {md(DEFINITIONS.get(col, '(not a column of korean_bpe.compare.compare)'))}"
              for col in c["columns"]]
    parts += ["", "## Notes", ""]
    parts += [f"- {_code_span(n)}" for n in c["notes"]] or ["- none: every strategy ran"]
    parts += ["", "## How this was made", "", _fenced(c["command"], info="sh"), ""]
    if c["settings"]:
        parts += [_markdown_table(["setting", "value"], [[k, _setting(v)] for k, v in c["settings"]]), ""]
    parts += [_markdown_table(["package", "version"], sorted(c["versions"].items(), key=lambda kv: kv[0] != "python")), ""]
    return "\n".join(parts)


_MD_ESCAPE = re.compile(r"([\\`*\[\]{}|~#!])")


def _md(text: Any) -> str:
    """``text`` as literal Markdown on one line: ``&``, ``<``, ``>`` as entities (no raw HTML, in
    any CommonMark viewer), the characters that make emphasis, code, links, tables or headings
    backslash-escaped.

    >>> _md('<script>alert(1)</script> "><img src=x onerror=alert(1)> *a* [b](javascript:c)')
    '&lt;script&gt;alert(1)&lt;/script&gt; "&gt;&lt;img src=x onerror=alert(1)&gt; \\\\*a\\\\* \\\\[b\\\\](javascript:c)'
    """
    text = " ".join(str(text).splitlines())
    text = text.replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;")
    return _MD_ESCAPE.sub(r"\\\1", text)


def _fenced(text: str, *, info: str = "") -> str:
    """``text`` in a fenced code block whose fence is longer than any run of backticks in it (so
    nothing in the text can close it); inside, nothing is Markdown or HTML."""
    longest = max((len(m) for m in re.findall("`+", text)), default=0)
    fence = "`" * max(3, longest + 1)
    return f"{fence}{info}\n{text}\n{fence}"


def _code_span(text: Any) -> str:
    """``text`` (on one line) as a Markdown code span: shown literally, nothing in it is Markdown or
    HTML (the backtick run around it is longer than any inside).

    >>> _code_span('<img src=x onerror=alert(1)> `x`')
    '`` <img src=x onerror=alert(1)> `x` ``'
    """
    text = " ".join(str(text).splitlines()) or " "
    longest = max((len(m) for m in re.findall("`+", text)), default=0)
    ticks = "`" * (longest + 1)
    pad = " " if text.startswith("`") or text.endswith("`") else ""
    return f"{ticks}{pad}{text}{pad}{ticks}"


def _settings(config: Mapping[str, Any]) -> list[tuple[str, Any]]:
    """The configuration as the reports list it: what did not take part in the run left out (the
    probe's sample size without labels)."""
    return [(k, v) for k, v in config.items() if not (k == "probe_train_docs" and config.get("labels") is False)]


def _setting(value: Any) -> str:
    if isinstance(value, (list, tuple)):
        return ", ".join(f"{v:,}" if isinstance(v, int) else str(v) for v in value)
    return f"{value:,}" if isinstance(value, int) and not isinstance(value, bool) else str(value)


def _legend(df: pd.DataFrame, confidence: float, resamples: Any) -> str:
    """What the main view shows: units, intervals, tests and marks (:data:`korean_bpe.compare.table.MARKS`)."""
    from . import stats
    from .table import MARKS, metrics_tested

    text = "Measured on the held-out documents; rates in percent."
    drawn = any(c.endswith("_ci_low") and df[c].notna().any() for c in df.columns)
    if drawn:
        many = f"{resamples:,} " if isinstance(resamples, int) else ""
        text += (f" Intervals: {confidence:.0%} bootstrap percentile intervals over {many}resamples of the held-out "
                 "documents (Rényi efficiency: of its first-order expansion).")
    else:
        text += " No intervals (no resamples, or too few held-out documents: see the notes)."
    alpha = 1 - confidence
    if metrics_tested(df):
        floor = f", never below 2/(resamples + 1) = {stats.p_floor(resamples):.2g}" if isinstance(resamples, int) \
            and resamples else ""
        text += (f" Tests: each row against its reference at the same size (column reference), p-values from a "
                 f"paired bootstrap on the same resamples{floor} (McNemar's exact test for the probe), "
                 f"Holm-corrected over the rows of each metric (columns *_p_holm; the raw p in *_p); significant "
                 f"below {alpha:g}.")
    else:
        text += " No tests."
    marks = "; ".join(f"{mark} {meaning.format(alpha=alpha)}" for mark, meaning in MARKS.items())
    return (text + f" Marks: {marks}; (≡ X) after a name, the same ids as X on every held-out document, so the same "
            "row. The definitions are below; every column with full precision is in table.csv.")


def main_view(df: pd.DataFrame, *, alpha: float = 0.05) -> dict[str, Any]:
    """The report's main table: the columns of :data:`korean_bpe.compare.columns.TABLE` with a
    short header, the values in their reports' format with the marks of
    :data:`korean_bpe.compare.table.MARKS` (``row_classes``: ``"ref"`` for a reference row); and,
    when the frame has intervals, a second table of them (``low–high``).  A frame without the
    statistics or marking columns gets no marks."""
    from .table import metrics_tested, name_marks, value_marks, measured

    shown = [c for c in columns.TABLE if c.header and c.name in df.columns and measured(df, c.name)]
    with_ci = [c for c in shown if c.interval and f"{c.name}_ci_low" in df.columns
               and df[f"{c.name}_ci_low"].notna().any()]
    tested = metrics_tested(df)
    rows, intervals, classes = [], [], []
    for row in df.to_dict("records"):
        line = []
        for c in shown:
            if c.name == "strategy":
                same = row.get("same_as") or ""
                line.append(f"{row['strategy']}{name_marks(row)}" + (f" (≡ {same})" if same else ""))
                continue
            text = columns.cell(c.name, row[c.name], percent_sign=False)  # the header says %
            if c.scale != 1.0 and text != _NA:  # the header's unit (kdoc/s)
                text = c.shown(row[c.name], short=True)
            if text != _NA:
                text += value_marks(row, c, alpha, tested=c.name in tested)
            line.append(text)
        rows.append(line)
        classes.append("ref" if row.get("reference") == row["strategy"] else "")
        if with_ci:
            bounds = [(row[f"{c.name}_ci_low"], row[f"{c.name}_ci_high"]) for c in with_ci]
            intervals.append([line[0], _cell("vocab_size", row["vocab_size"]),
                              *(_NA if _isnan(lo) else f"{columns.cell(c.name, lo, percent_sign=False)}–"
                                f"{columns.cell(c.name, hi, percent_sign=False)}"
                                for c, (lo, hi) in zip(with_ci, bounds))])
    return {"headers": [c.header for c in shown], "rows": rows, "right": [c.name != "strategy" for c in shown],
            "names": [c.name for c in shown], "intervals": intervals, "row_classes": classes,
            "interval_headers": ["strategy", "vocab", *(c.header for c in with_ci)],
            "interval_right": [False] + [True] * (1 + len(with_ci)), "interval_names": [c.name for c in with_ci]}


def _isnan(value: Any) -> bool:
    return value is None or (isinstance(value, float) and math.isnan(value))


_STYLE = """
*{box-sizing:border-box}html{-webkit-text-size-adjust:100%}
body{font-family:system-ui,"korean_bpe Nanum","Noto Sans KR","Apple SD Gothic Neo","Malgun Gothic","NanumGothic",sans-serif;
margin:2em auto;max-width:1400px;padding:0 1em;color:#222;line-height:1.45;overflow-wrap:anywhere}
h1{font-size:1.6em}h2{border-bottom:1px solid #ddd;padding-bottom:.2em;margin-top:1.8em}
table{border-collapse:collapse;font-size:.82em}th,td{border:1px solid #ddd;padding:.25em .5em}
th{background:#f3f5f8;position:sticky;top:0}table.sortable th{cursor:pointer;user-select:none}
table.sortable th:after{content:" \\2195";color:#aaa}td{white-space:nowrap}td.num{text-align:right;font-variant-numeric:tabular-nums}
.wide{overflow-x:auto;max-width:100%}.wide.tall{max-height:80vh;overflow-y:auto}th,td{overflow-wrap:normal}
th{white-space:nowrap}
tbody tr:nth-child(even){background:#fafbfc}tr.ref td{background:#fff8e1}
table.main td:first-child,table.main th:first-child{position:sticky;left:0;background:#fff;z-index:1}
table.main tr.ref td:first-child{background:#fff8e1}
table.main th:first-child{background:#f3f5f8;z-index:2}td small{color:#666;font-size:.8em}
table.settings td{white-space:normal}
details summary{cursor:pointer;margin:1em 0 .5em}
.plot{overflow-x:auto;max-width:100%}.plot img{max-width:100%;border:1px solid #eee;cursor:zoom-in;display:block}
.plot.zoomed img{max-width:none;cursor:zoom-out}figure{margin:1.2em 0}figcaption{color:#555;font-size:.9em}
.hint{color:#555;font-size:.9em}
dl dt{font-family:monospace;font-weight:bold;margin-top:.5em}dl dd{margin-left:1.5em}
pre,code,.cut td{font-family:"korean_bpe Nanum",ui-monospace,monospace}pre{background:#f6f8fa;padding:.8em;overflow-x:auto;
white-space:pre-wrap}
"""

#: the page's script: sortable tables (click a header), plots shown at full size on a click
_SCRIPT = """
document.querySelectorAll("table.sortable").forEach(function (table) {
  table.querySelectorAll("thead th").forEach(function (th, col) {
    th.addEventListener("click", function () {
      var body = table.tBodies[0], rows = Array.prototype.slice.call(body.rows);
      var up = th.dataset.dir !== "asc"; th.dataset.dir = up ? "asc" : "desc";
      function key(row) { var t = row.cells[col].textContent.trim(), n = parseFloat(t.replace(/[,%]/g, ""));
        return t === "\\u2013" ? null : (isNaN(n) ? t : n); }
      rows.sort(function (a, b) { var x = key(a), y = key(b);
        if (x === null) return 1; if (y === null) return -1;
        var r = (typeof x === "number" && typeof y === "number") ? x - y : String(x).localeCompare(String(y));
        return up ? r : -r; });
      rows.forEach(function (r) { body.appendChild(r); });
    });
  });
});
document.querySelectorAll(".plot img").forEach(function (img) {
  img.addEventListener("click", function () { img.parentNode.classList.toggle("zoomed"); });
});
"""


def _render_html(c: Mapping[str, Any], out: Path) -> str:
    """report.html from the template ``templates/report.html.j2`` (Jinja2, autoescaped: every value is
    text), the Hangul font subset of what the page shows embedded."""
    from markupsafe import Markup

    from .._optional import require

    jinja2 = require("jinja2", purpose="report.html")
    env = jinja2.Environment(loader=jinja2.PackageLoader("korean_bpe.compare", "templates"),
                             autoescape=True, trim_blocks=True, lstrip_blocks=True, undefined=jinja2.StrictUndefined)
    captions = {name: (t, cap) for name, t, cap in PLOTS}
    plots = [{"name": name, "title": captions.get(name, (name, ""))[0], "caption": captions.get(name, (name, ""))[1],
              "data": base64.b64encode((out / name).read_bytes()).decode("ascii")} for name in c["pngs"]]
    context = {**c, "plots": plots, "na": _NA, "definitions": DEFINITIONS, "readable": _readable_cut,
               "settings": [(k, _setting(v)) for k, v in c["settings"]],
               "style": Markup(_STYLE), "script": Markup(_SCRIPT), "font_face": Markup("")}
    template = env.get_template("report.html.j2")
    page = template.render(context)
    context["font_face"] = Markup(_font_face(page))
    return template.render(context)


def _font_face(text: str) -> str:
    """An ``@font-face`` embedding NanumGothic cut down to the Hangul of ``text`` (a data URI of some
    100 kB), so the page shows Korean on a machine without a Korean font; ``""`` when the font or
    fontTools (a matplotlib dependency) is missing: browsers then use a system font."""
    import io

    from .plot import bundled_font

    hangul = {ch for ch in text if "\uac00" <= ch <= "\ud7a3" or "\u1100" <= ch <= "\u11ff" or "\u3131" <= ch <= "\u318e"}
    path = bundled_font()
    if not hangul or path is None:
        return ""
    try:
        from fontTools import subset
    except ImportError:  # pragma: no cover - fontTools comes with matplotlib
        return ""
    options = subset.Options()
    options.name_IDs, options.hinting, options.notdef_outline = ["*"], False, True
    options.drop_tables += ["TSI0", "TSI1", "TSI2", "TSI3", "TSI5"]  # VTT hinting sources: not subsettable
    font = subset.load_font(str(path), options)
    subsetter = subset.Subsetter(options)
    subsetter.populate(unicodes=sorted(ord(ch) for ch in hangul))
    subsetter.subset(font)
    buffer = io.BytesIO()
    font.save(buffer)
    data = base64.b64encode(buffer.getvalue()).decode("ascii")
    return ("@font-face{font-family:\"korean_bpe Nanum\";unicode-range:U+1100-11FF,U+3131-318E,U+AC00-D7A3;"
            f"src:url(data:font/ttf;base64,{data}) format(\"truetype\")}}")
