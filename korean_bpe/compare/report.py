"""Write a comparison as files people open: ``table.csv``, ``report.md``, ``report.html`` and the plots.

:func:`write_report` takes the frame of :func:`korean_bpe.compare.compare` (the columns of
:data:`DEFINITIONS`) and writes into one directory:

* ``table.csv``: the frame as is (full precision, ``NaN`` as an empty field);
* ``*.png``: the plots of :mod:`korean_bpe.compare.plot` (those the frame has data for);
* ``report.md``: corpus summary, verdict (with the rows x tasks ranks, ``summary.png``), table, the
  noise task's section (rows x perturbations, ``noise.png``) when it ran, the PNGs linked,
  segmentation examples, every column, column definitions, notes, command, settings and package
  versions;
* ``report.html``: the same on one self-contained page: every image embedded as a ``data:`` URI, no
  network, no external CSS or JavaScript (a few inline lines make the table sortable: click a header).
  Someone who receives only this file sees everything.

Both reports are rendered from one context (:class:`_Context`), each by its Jinja2 template in
``templates/``: ``report.md.j2`` (every value through a filter that escapes it: :func:`_md`,
:func:`_code_span`, :func:`_fenced`, :func:`_markdown_table`) and ``report.html.j2`` (autoescaped),
which inlines ``report.css`` and ``report.js`` from the same folder.  So the two say the same things;
only how they are read differs (the page sorts its tables, shows each interval under its value).

A lone surrogate (U+D800..U+DFFF, which UTF-8 cannot hold) in a sentence, a token or a note is
shown as ``\\ud800`` in ``report.md`` and ``report.html``; ``table.csv`` is data, so a frame
holding one is refused (ValueError naming the cell) before any file is written.

The files are written into a temporary folder inside the directory and renamed into place once all
are written (:func:`korean_bpe.files.staged_dir`: flushed to disk, the umask's permissions), so a
failure (a full disk) leaves no half-written report: the directory's files stay as they were, and the
error names the file it was writing.
:func:`check_output_dir` refuses a bad directory before any work starts (the CLI calls it first).

The Markdown tables are written here (a dozen lines) rather than with ``DataFrame.to_markdown``, which
needs the ``tabulate`` package for no gain; the HTML tables are the template's.

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
from dataclasses import dataclass, fields
from datetime import datetime, timezone
from pathlib import Path
from typing import TYPE_CHECKING, Any

from . import columns

if TYPE_CHECKING:  # pragma: no cover
    from collections import Counter

    import jinja2
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
     "as dotted lines through their value at each size (flat when the size changes nothing), named at the "
     "right with the value at the largest size (a baseline far off is named in the footnote)."),
    ("tradeoff.png", "Morpheme-boundary F1 against tokens per 어절",
     "Up and to the left is better. The axes hold our BPE and the peers; a baseline far off is named in the "
     "footnote. Hollow points (‡) are graded by their own analyzer; a line joins a strategy's sizes, the "
     "larger point the larger vocabulary."),
    ("renyi.png", "Rényi efficiency against vocabulary size", "How evenly the vocabulary is used (α = 2.5); "
     "drawn as the tokens per 어절 plot, baselines at their value at each size."),
    ("token_lengths.png", "Token lengths", "Each token's characters on held-out text, per strategy. The mean "
     "counts a token's own characters (not the space a ▁ stands for; a character split between tokens in each), "
     "so it differs from the table's chars/token, all held-out characters over all tokens."),
    ("downstream.png", "Downstream accuracy", "A small neural classifier trained from scratch on each strategy's "
     "tokens (the mean of its seeds), with its interval over the held-out documents and the seeds."),
    ("probe.png", "Probe accuracy", "A bag-of-tokens logistic regression on the labels, per strategy: "
     "order-blind, a cheap signal beside the downstream model."),
    ("segmentation.png", "Segmentation examples",
     "Held-out sentences as each strategy cuts them; jamo composed back to syllables for reading."),
    ("summary.png", "Ranks across tasks",
     "Each candidate's rank in each task of the verdict (1 = best; colour: green the better ranks), and its "
     "mean rank; a panel a vocabulary size."),
    ("noise.png", "Robustness to Korean noise",
     "Left: how many points of accuracy each row's classifier loses when its held-out documents are perturbed "
     "(the same models on the clean and the noisy text; the rows '+ BPE-dropout' are a classifier trained on "
     "BPE-dropout segmentations of the same documents); right: the token stability, the share of the clean "
     "token sequence that survives. A column a perturbation at its rate, then the mean over them."),
)
#: the report's section of each plot drawn outside "Plots"
SECTIONS = {"summary.png": "summary", "noise.png": "noise"}

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
                token_lengths: Mapping[str, Sequence[int] | Counter[int]] | None,
                summary: Sequence[Any] = ()) -> tuple[list[str], list[str]]:
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
    if summary:
        jobs.append(("summary.png", lambda p: _summary_heatmap(summary, p)))
    if any(c.startswith("noise_") and c.endswith("_stability") for c in df.columns):
        jobs.append(("noise.png", lambda p: _noise_heatmap(df, p)))
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


def _summary_heatmap(summary: Sequence[Any], path: Path) -> Any:
    """The rows x tasks ranks of each size (:meth:`korean_bpe.compare.summary.TaskSummary.frame`), a
    panel a size, the rows of the first size's order."""
    from .plot import plot_heatmap

    frames = {f"ranks at {s.vocab_size:,}": s.frame() for s in summary}
    rows = list(dict.fromkeys(name for frame in frames.values() for name in frame.index))
    panels = {name: frame.reindex(rows) for name, frame in frames.items()}
    text = {name: frame.astype(object).where(frame.isna(), [[f"{v:.2f}" if c == "mean rank" else f"{v:g}"
                                                          for c, v in row.items()] for _, row in frame.iterrows()])
            for name, frame in panels.items()}
    return plot_heatmap(panels, path, title="ranks across tasks (1 = best in the task)",
                        better=dict.fromkeys(panels, "lower"), text=text)


def _noise_heatmap(df: pd.DataFrame, path: Path) -> Any:
    """The noise task's rows x perturbations: the accuracy drop (with the BPE-dropout rows) and the
    token stability beside it; the stability alone without labels."""
    from .plot import plot_heatmap
    from .tasks.noise import noise_frame

    stability = noise_frame(df, "stability")
    panels, better = {}, {}
    if any(c.endswith("_accuracy_drop") for c in df.columns) and \
            df.filter(regex=r"^noise_.*_accuracy_drop$").notna().any().any():
        drop = noise_frame(df, "accuracy_drop", dropout=True)
        panels["accuracy drop"], better["accuracy drop"] = drop, "lower"
        stability = stability.reindex(drop.index)  # a dropout row reads the same tokens: left blank
    panels["token stability"], better["token stability"] = stability, "higher"
    return plot_heatmap(panels, path, title="robustness to Korean noise (held-out documents perturbed)",
                        better=better, percent=list(panels),
                        footnote="" if len(panels) == 2 else "no accuracy drop: the run had no labels")


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
    choices: Sequence[Any] = (),
    summary: Sequence[Any] = (),
    definitions: Mapping[str, str] | None = None,
) -> dict[str, Path]:
    """Write ``table.csv``, the plots (``*.png``), ``report.md`` and ``report.html`` into ``out_dir``
    (created if missing); returns file name -> path, in the order written.

    ``corpus``: a name, or a mapping of what to say about it (``{"corpus": "NSMC", "training
    file": "ratings_train.txt"}``); ``sentences`` and ``examples`` (strategy -> the tokens of each
    sentence) draw the segmentation examples; ``token_lengths`` (strategy -> token lengths in
    characters, or a Counter) the histograms; ``command`` is recorded as run (a list is shell-quoted);
    ``notes`` (e.g. "skipped mecab: not installed") are listed; ``config`` (the comparison's exact
    configuration) and ``versions`` (default: :func:`package_versions` now) are recorded;
    ``choices`` (:func:`korean_bpe.compare.verdict.choose`: the strategy to choose), ``verdicts``
    (:func:`korean_bpe.compare.verdict.verdicts`) and ``summary`` (the rows x tasks ranks,
    :func:`korean_bpe.compare.summary.summarize`) open the report; ``definitions`` (column -> its
    definition) define the columns the run's tasks added.
    :meth:`korean_bpe.compare.Comparison.write_report` passes all of them from a comparison.

    Every text from the corpus or the user (file names, sentences, notes, the command) is literal
    in ``report.md`` (code spans and fenced blocks; table cells escaped) as in ``report.html``
    (escaped): Markdown viewers that render HTML show it as text.
    """
    import pandas as pd

    from ..files import atomic_write_text, staged_dir

    if not isinstance(df, pd.DataFrame):
        raise TypeError(f"df must be the pandas DataFrame of korean_bpe.compare.compare, got {type(df).__name__}")
    if df.empty:
        raise ValueError("df is empty: there is nothing to report (every strategy was skipped? see the notes)")
    if examples and len(sentences) == 0:
        raise ValueError("examples were given without sentences: pass sentences=[...] (the texts they cut)")
    _check_no_surrogate(df)
    out = check_output_dir(out_dir)
    with staged_dir(out) as stage:  # all the files or none: a full disk leaves no half report
        atomic_write_text(stage / "table.csv", df.to_csv(index=False))
        pngs, skipped = _draw_plots(df, stage, sentences=sentences, examples=examples, token_lengths=token_lengths,
                                    summary=summary)
        context = _context(df, corpus=corpus, title=title, command=command, notes=notes, config=config or {},
                           versions=versions, verdicts=verdicts, pngs=pngs, skipped=skipped, sentences=sentences,
                           examples=examples, choices=choices, summary=summary, definitions=definitions or {})
        atomic_write_text(stage / "report.md", _render_markdown(context), errors="backslashreplace")
        atomic_write_text(stage / "report.html", _render_html(context, stage), errors="backslashreplace")
    return {name: out / name for name in ("table.csv", *pngs, "report.md", "report.html")}


@dataclass(frozen=True)
class _Context:
    """What report.md and report.html say, each value as text before its file's escaping: the one
    source of both templates (``templates/report.md.j2`` and ``templates/report.html.j2``), so the
    two files say the same things."""

    title: str
    #: when the report was written, to the minute (UTC)
    generated: str
    #: the version of korean_bpe that wrote it
    version: str
    #: (what, value) of the corpus, the held-out documents and the rows
    corpus: list[tuple[str, str]]
    #: :func:`_verdict_lines`
    verdicts: list[dict[str, Any]]
    #: each :class:`~korean_bpe.compare.verdict.Choice` described, and the rows left out of the competition
    choices: list[str]
    not_candidates: list[str]
    #: :func:`korean_bpe.compare.summary.format_summary`'s text ("" without a summary)
    summary: str
    #: whether the verdicts open with the downstream model's (the verdict's introduction says so)
    downstream_first: bool
    #: the significance level, as the verdict states it
    alpha: str
    #: what the main table shows (:func:`_legend`)
    legend: str
    #: :func:`main_view`
    main: dict[str, Any]
    #: each PNG written: ``name``, ``title``, ``caption`` (:data:`PLOTS`), ``section`` (:data:`SECTIONS`;
    #: ``"plots"`` for the others)
    plots: list[dict[str, str]]
    #: why a plot was not drawn
    skipped: list[str]
    #: each example sentence: ``sentence``, ``cuts`` ((strategy, number of tokens, tokens readable))
    examples: list[dict[str, Any]]
    #: every column of table.csv; its cells as shown; whether each column is numeric (aligned right)
    columns: list[str]
    cells: list[list[str]]
    numeric: list[bool]
    #: (column, definition) of each column
    definitions: list[tuple[str, str]]
    notes: list[str]
    #: the command as run (a list shell-quoted)
    command: str
    #: (setting, value) of the configuration (:func:`_settings`)
    settings: list[tuple[str, str]]
    #: (package, version), Python first
    versions: list[tuple[str, str]]


def _context(df: pd.DataFrame, *, corpus: str | Mapping[str, Any] | None, title: str,
             command: str | Sequence[str] | None, notes: Sequence[str], config: Mapping[str, Any],
             versions: Mapping[str, str] | None, verdicts: Sequence[Any], pngs: Sequence[str], skipped: Sequence[str],
             sentences: Sequence[str], examples: Mapping[str, Sequence[Sequence[str]]] | None,
             choices: Sequence[Any] = (), summary: Sequence[Any] = (),
             definitions: Mapping[str, str] | None = None) -> _Context:
    """The :class:`_Context` of :func:`write_report`'s arguments and the plots it drew."""
    import pandas as pd

    if isinstance(command, str):
        command_text = command
    elif command is not None:
        command_text = shlex.join(str(c) for c in command)
    else:
        command_text = "korean_bpe.compare.report.write_report(...) called from Python"
    names = [str(c) for c in df.columns]
    confidence = float(config.get("confidence", 0.95))
    found = dict(versions) if versions is not None else package_versions()
    captions = {name: {"title": t, "caption": cap} for name, t, cap in PLOTS}
    from .summary import format_summary

    lines = _verdict_lines(verdicts)
    alpha = 1 - confidence
    known = {**DEFINITIONS, **(definitions or {})}
    left = {name: why for v in verdicts for name, (_, why) in v.reference_points.items()}
    return _Context(
        title=title, generated=datetime.now(timezone.utc).strftime("%Y-%m-%d %H:%M UTC"),
        version=found.get("korean_bpe", "?"), corpus=_corpus_lines(corpus, df), verdicts=lines,
        choices=[c.describe(alpha=alpha) for c in choices], not_candidates=[f"{n}: {w}" for n, w in left.items()],
        summary=format_summary(summary, confidence=confidence),
        downstream_first=bool(lines) and lines[0]["family"] == "downstream", alpha=f"{1 - confidence:.2g}",
        legend=_legend(df, confidence, config.get("resamples")), main=main_view(df, alpha=1 - confidence),
        plots=[{"name": name, "section": SECTIONS.get(name, "plots"), **captions.get(name, {"title": name, "caption": ""})}
               for name in pngs],
        skipped=list(skipped),
        examples=[{"sentence": sentence, "cuts": [(name, len(cuts[i]), _readable_cut(cuts[i]))
                                                  for name, cuts in examples.items()]}
                  for i, sentence in enumerate(sentences)] if examples else [],
        columns=names,
        cells=[[_cell(c, v) for c, v in zip(names, row)] for row in df.itertuples(index=False, name=None)],
        numeric=[pd.api.types.is_numeric_dtype(df[c]) and not pd.api.types.is_bool_dtype(df[c]) for c in names],
        definitions=[(c, known.get(c, "(not a column of korean_bpe.compare.compare)")) for c in names],
        notes=[str(n) for n in notes], command=command_text, settings=_settings(config),
        versions=sorted(found.items(), key=lambda kv: kv[0] != "python"),
    )


def _verdict_lines(verdicts: Sequence[Any]) -> list[dict[str, Any]]:
    """What the reports say of each :class:`~korean_bpe.compare.verdict.Verdict` (``tied``: the
    strategies not significantly different from the best, the best left out); a kind measured several
    ways at a size (:func:`korean_bpe.compare.verdict.grouped`: the noise task's perturbations) is one
    entry whose ``ways`` hold a line each, as the terminal prints them."""
    from .verdict import grouped

    def line(v: Any) -> dict[str, Any]:
        return {"best": v.best, "value": v.shown(), "tied": list(v.tied[1:]), "compared": v.compared - 1}

    return [{"family": kind, "metric": ways[0][1].metric, "vocab": f"{ways[0][1].vocab_size:,}", **line(ways[0][1]),
             "ways": [{"way": way, **line(v)} for way, v in ways] if ways[0][0] else []}
            for kind, ways in grouped(verdicts)]


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


def _cut_lines(cuts: Sequence[tuple[str, int, str]]) -> str:
    """The cuts of one example sentence as aligned lines of text: strategy, number of tokens, tokens."""
    name_width = max(len(name) for name, _, _ in cuts)
    count_width = max(len(str(count)) for _, count, _ in cuts)
    return "\n".join(f"{name:<{name_width}}  {count:>{count_width}}  {text}" for name, count, text in cuts)


def _templates() -> jinja2.Environment:
    """The Jinja2 environment of ``templates/``: ``*.html.j2`` autoescaped (every value is text), the
    Markdown not (every value goes through a filter: ``md``, ``code_span``, ``fenced``)."""
    from .._optional import require

    jinja2 = require("jinja2", purpose="report.md and report.html")
    env = jinja2.Environment(loader=jinja2.PackageLoader("korean_bpe.compare", "templates"),
                             autoescape=jinja2.select_autoescape(("html.j2",), default=False),
                             trim_blocks=True, lstrip_blocks=True, undefined=jinja2.StrictUndefined)
    env.filters.update(md=_md, code_span=_code_span, fenced=_fenced, cut_lines=_cut_lines)
    env.globals.update(markdown_table=_markdown_table, na=_NA)
    return env


def _variables(c: _Context) -> dict[str, Any]:
    """The fields of ``c`` as the templates' variables."""
    return {f.name: getattr(c, f.name) for f in fields(c)}


def _render_markdown(c: _Context) -> str:
    """report.md from the template ``templates/report.md.j2``."""
    return _templates().get_template("report.md.j2").render(_variables(c))


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


def _settings(config: Mapping[str, Any]) -> list[tuple[str, str]]:
    """The configuration as the reports list it, each value as text: what did not take part in the
    run left out (the probe's sample size without labels)."""
    return [(k, _setting(v)) for k, v in config.items()
            if not (k == "probe_train_docs" and config.get("labels") is False)]


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


def _render_html(c: _Context, out: Path) -> str:
    """report.html from the template ``templates/report.html.j2``, the PNGs in ``out`` embedded,
    ``templates/report.css`` and ``templates/report.js`` inlined, and the Hangul font cut down to
    what the page shows."""
    from markupsafe import Markup

    env = _templates()
    images = {plot["name"]: base64.b64encode((out / plot["name"]).read_bytes()).decode("ascii") for plot in c.plots}
    assets = {name: Markup(env.loader.get_source(env, f"report.{name}")[0]) for name in ("css", "js")}
    variables = {**_variables(c), "images": images, "style": assets["css"], "script": assets["js"],
                 "font_face": Markup("")}
    template = env.get_template("report.html.j2")
    variables["font_face"] = Markup(_font_face(template.render(variables)))
    return template.render(variables)


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
