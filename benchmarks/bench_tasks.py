"""The multi-task study: one tokenizer per strategy, judged on several tasks at once (issue 39).

    KOREAN_BPE_NSMC_DIR=../shared/corpora/nsmc python benchmarks/bench_tasks.py
    python benchmarks/bench_tasks.py --limit 20000 --size 16000 --tasks nsmc,hate,ner,lm --out study.md
    python benchmarks/bench_tasks.py --strategies whitespace/syllable,kiwi/syllable --tasks ner,lm
    python benchmarks/bench_tasks.py --strategies bpe,peer --size 32000 --task noise --out noise.md

Trains each strategy's tokenizer once, at one size, on the first ``--limit`` reviews of NSMC's
``ratings_train.txt`` (the held-out text of the built-in measurements: the first ``--test-limit`` of
``ratings_test.txt``), then runs every task of ``--tasks`` on every row with
those tokenizers, as a user who picks one tokenizer for many jobs would:

* sentiment of movie reviews: the comparison's own downstream stage (the CNN of
  :class:`korean_bpe.compare.Downstream`, its defaults) on the labelled NSMC reviews the tokenizers
  trained on, scored on the held-out ones (``--no-downstream`` leaves it out; the ``nsmc`` task does
  the same for a corpus other than NSMC, so it is not in the default tasks);
* ``hate``: hate speech in news comments (korean-hate-speech, three classes, macro-F1 leads);
* ``ner``: entity tagging on KLUE-NER (boundary crossing, the ceiling, and the tagger's F1 when
  the task trains one);
* ``lm``: a small language model's bits per byte on held-out reviews;
* ``noise``: token stability under Korean noise and the accuracy drop of each row's sentiment
  classifier (the downstream stage's, shared), with BPE-dropout's beside it.

Writes a markdown record (``--out``): the command, the machine and its load, the settings of every
task (``Comparison.config``), the rows x tasks table with intervals, each task's CPU seconds (its
``<task>_s`` columns summed over the rows) and the run's wall and CPU time (workers included), the
verdict and the choice, the cross-task summary (ranks, mean rank with its interval, Kendall's W)
and, with the noise task, its rows x perturbations tables at each size (accuracy drop with each
BPE row's BPE-dropout classifier, token stability); the full frame as CSV beside it (``--csv``).
``--sizes 16000,32000`` trains and judges each strategy at both sizes; ``--limit 0`` trains the
tokenizers on the whole train split.  Each task finds its data as the CLI does
(``$KOREAN_BPE_NSMC_DIR``, ``$KOREAN_BPE_HATE_DIR``, ``$KOREAN_BPE_KLUE_NER_DIR`` or
``../shared/corpora``).
"""

from __future__ import annotations

import argparse
import os
import platform
import resource
import sys
import time
from pathlib import Path

#: eight strategies a user would choose between, plus the characters as a reference point
DEFAULT_STRATEGIES = ("whitespace/syllable", "whitespace/jamo", "okt/syllable", "kiwi/syllable", "mecab/syllable",
                      "superbpe/syllable", "sentencepiece-unigram", "baseline/syllable")
DEFAULT_TASKS = ("hate", "ner", "lm", "noise")
#: the columns of the rows x tasks table: (header, column), the interval metric's low/high read beside it
SHOWN = (("tok/어절", "tokens_per_word"), ("NSMC acc %", "downstream_accuracy"), ("NSMC acc %", "nsmc_accuracy"), ("hate mF1 %", "hate_macro_f1"),
         ("NER F1 %", "ner_entity_f1"), ("NER cross %", "ner_boundary_crossing"), ("NER ceiling %", "ner_ceiling_f1"),
         ("LM bits/byte", "lm_bits_per_byte"), ("noise stab %", "noise_stability"),
         ("noise acc drop pts", "noise_accuracy_drop"))
PERCENT = {"downstream_accuracy", "nsmc_accuracy", "hate_macro_f1", "ner_entity_f1", "ner_boundary_crossing", "ner_ceiling_f1",
           "noise_stability", "noise_accuracy_drop"}  # the accuracy drop: in points


def _cell(row: object, column: str, alpha: float) -> str:
    import math

    value = getattr(row, column, math.nan)
    if value is None or (isinstance(value, float) and math.isnan(value)):
        return "-"
    scale = 100.0 if column in PERCENT else 1.0
    digits = 3 if column in ("lm_bits_per_byte", "tokens_per_word") else 2
    text = f"{value * scale:.{digits}f}"
    low, high = getattr(row, f"{column}_ci_low", math.nan), getattr(row, f"{column}_ci_high", math.nan)
    p = getattr(row, f"{column}_p_holm", math.nan)
    if isinstance(p, float) and not math.isnan(p) and p >= alpha:
        text += "~"
    if isinstance(low, float) and not math.isnan(low):
        text += f" [{low * scale:.{digits}f}, {high * scale:.{digits}f}]"
    return text


def record(result: object, *, argv: list[str], wall: float, cpu: float, load: tuple[float, float], rss_mib: float) -> str:
    """The study as markdown (see the module)."""
    import json

    from korean_bpe.compare.summary import format_summary
    from korean_bpe.compare.verdict import format_choices, format_verdicts

    df = result.table  # type: ignore[attr-defined]
    alpha = result.alpha  # type: ignore[attr-defined]
    confidence = 1 - alpha
    shown = [(h, c) for h, c in SHOWN if c in df.columns and df[c].notna().any()]
    sized = df["vocab_size"].nunique() > 1  # several sizes: a size column
    lines = ["| strategy | " + ("size | " if sized else "") + " | ".join(h for h, _ in shown) + " |",
             "|---|" + ("---:|" if sized else "") + "---:|" * len(shown)]
    for row in df.itertuples(index=False):
        ref = " (ref)" if getattr(row, "reference", "") == row.strategy else ""
        size = f"{row.vocab_size:,} | " if sized else ""
        lines.append(f"| `{row.strategy}`{ref} | {size}" + " | ".join(_cell(row, c, alpha) for _, c in shown) + " |")
    task_cpu = {c[:-2]: float(df[c].sum()) for c in df.columns if c.endswith("_s") and c not in
                ("train_s", "pretok_s", "encode_texts_per_s", "noise_dropout_s") and df[c].notna().any()}
    if "noise" in task_cpu and "noise_dropout_s" in df.columns and df["noise_dropout_s"].notna().any():
        dropout = float(df["noise_dropout_s"].sum())
        total = task_cpu.pop("noise")
        # the dropout classifiers are the downstream stage of the BPE-dropout rows; the rest measures
        task_cpu[f"noise (of it perturbing, encoding and scoring {total - dropout:,.0f}, training the "
                 f"BPE-dropout rows' classifiers {dropout:,.0f})"] = total
    verdict = format_choices(result.choices, result.verdicts, alpha=alpha)  # type: ignore[attr-defined]
    verdict += "\n\n" + format_verdicts(result.verdicts, alpha=alpha)  # type: ignore[attr-defined]
    summary = format_summary(result.summary, confidence=confidence)  # type: ignore[attr-defined]
    settings = {k: v for k, v in result.config.items() if k in ("strategies", "vocab_sizes", "seed", "tasks",  # type: ignore[attr-defined]
                                                                  "held_out", "train_docs", "test_docs", "statistics")}
    return "\n".join([
        "# The multi-task study (benchmarks/bench_tasks.py)", "",
        "```", "python benchmarks/bench_tasks.py " + " ".join(argv), "```", "",
        f"{time.strftime('%Y-%m-%d %H:%M UTC', time.gmtime())}, {platform.machine()} with {os.cpu_count()} CPUs, "
        f"load average {load[0]:.1f} before and {load[1]:.1f} after; Python {platform.python_version()}, "
        f"versions {json.dumps(result.versions, ensure_ascii=False)}.", "",  # type: ignore[attr-defined]
        f"**Time**: {wall / 60:.1f} min wall, {cpu / 60:.1f} min of CPU (this process and its workers), "
        f"peak RSS {rss_mib:,.0f} MiB. CPU seconds of each task, summed over the rows: "
        + ", ".join(f"{k} {v:,.0f}" for k, v in task_cpu.items()) + ".", "",
        f"`~`: not significantly different from the row's reference (Holm-adjusted p >= {alpha:.2g}); "
        f"intervals {confidence:.0%}. Percentages except tokens per 어절 and bits per byte; the accuracy drop in points.", "",
        *lines, "", "## Verdict", "", "```", verdict.strip(), "```", "",
        "## Across tasks", "", "```", summary.strip() or "(fewer than two tasks with a primary metric)", "```", "",
        *_noise_tables(result),
        "## Notes", "", *[f"- {n}" for n in result.notes], "",  # type: ignore[attr-defined]
        "## Settings", "", "```json", json.dumps(settings, ensure_ascii=False, indent=1, default=str), "```", ""])


def _markdown(frame: object, *, scale: float, digits: int) -> list[str]:
    """A frame of numbers as a markdown table (``-`` for NaN), its index the first column."""
    cols = list(frame.columns)  # type: ignore[attr-defined]
    out = ["| row | " + " | ".join(cols) + " |", "|---|" + "---:|" * len(cols)]
    for name, values in frame.iterrows():  # type: ignore[attr-defined]
        cells = ["-" if v != v else f"{v * scale:.{digits}f}" for v in values]
        out.append(f"| `{name}` | " + " | ".join(cells) + " |")
    return out


def _noise_tables(result: object) -> list[str]:
    """The noise task's rows x perturbations at each size (``Comparison.noise``): the accuracy drop in
    points (each BPE row's BPE-dropout classifier below it) and the token stability in %."""
    df = result.table  # type: ignore[attr-defined]
    if "noise_stability" not in df.columns or df["noise_stability"].isna().all():
        return []
    out = ["## Noise by perturbation", ""]
    labelled = "noise_accuracy_drop" in df.columns and df["noise_accuracy_drop"].notna().any()
    for size in sorted({int(v) for v in df["vocab_size"]}):
        if labelled:
            out += [f"Accuracy drop at {size:,} (points: clean accuracy minus noisy, the same classifiers; "
                    "`+ BPE-dropout`: the row's classifier trained on BPE-dropout segmentations):", "",
                    *_markdown(result.noise("accuracy_drop", vocab_size=size, dropout=True),  # type: ignore[attr-defined]
                               scale=100.0, digits=2), ""]
        out += [f"Token stability at {size:,} (%):", "",
                *_markdown(result.noise("stability", vocab_size=size), scale=100.0, digits=1), ""]  # type: ignore[attr-defined]
    return out


def main(argv: list[str] | None = None) -> None:
    argv = sys.argv[1:] if argv is None else argv
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0], formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--strategies", default=",".join(DEFAULT_STRATEGIES), help="comma-separated (default: %(default)s)")
    p.add_argument("--size", "--sizes", dest="sizes", default="16000",
                   help="the vocabulary size, or sizes separated by commas (default: %(default)s)")
    p.add_argument("--tasks", default=",".join(DEFAULT_TASKS),
                   help="comma-separated task names, NAME or NAME=PATH (default: %(default)s)")
    p.add_argument("--task", action="append", metavar="SPEC",
                   help="a task as `korean-bpe compare --task` takes it (repeatable; replaces --tasks), e.g. "
                        "--task noise=keyboard_typo:0.2,nfd,dropout:0.1")
    p.add_argument("--limit", type=int, default=20000,
                   help="training reviews for the tokenizers, 0 for the whole train split (default: %(default)s)")
    p.add_argument("--test-limit", type=int, default=5000, help="held-out reviews (default: %(default)s)")
    p.add_argument("--no-downstream", action="store_true", help="no sentiment classifier on the NSMC reviews")
    p.add_argument("--jobs", type=int, default=2, help="worker processes (default: %(default)s)")
    p.add_argument("--out", default="tasks_study.md", help="the markdown record (default: %(default)s)")
    p.add_argument("--csv", default=None, help="the full frame as CSV (default: beside --out)")
    args = p.parse_args(argv)

    from korean_bpe.compare import Downstream, compare
    from korean_bpe.compare.tasks import task_from_spec
    from korean_bpe.corpus import load_nsmc

    tasks = [task_from_spec(spec) for spec in (args.task or filter(None, args.tasks.split(",")))]
    try:
        sizes = [int(size) for size in args.sizes.split(",")]
    except ValueError:
        p.error(f"--sizes {args.sizes!r}: give vocabulary sizes as integers separated by commas, e.g. 16000,32000")
    train, test = load_nsmc("train", limit=args.limit or None), load_nsmc("test", limit=args.test_limit or None)
    load_before = os.getloadavg()[0]
    wall, cpu = time.perf_counter(), time.process_time()
    result = compare(train.texts, labels=train.labels, eval_texts=test.texts, eval_labels=test.labels,
                     strategies=args.strategies.split(","), vocab_sizes=sizes, tasks=tasks, n_jobs=args.jobs,
                     downstream=None if args.no_downstream else Downstream(), show_progress=None)
    wall = time.perf_counter() - wall
    children = resource.getrusage(resource.RUSAGE_CHILDREN)
    cpu = time.process_time() - cpu + children.ru_utime + children.ru_stime
    rss = max(resource.getrusage(resource.RUSAGE_SELF).ru_maxrss, children.ru_maxrss) / 1024
    out = Path(args.out)
    out.write_text(record(result, argv=argv, wall=wall, cpu=cpu, load=(load_before, os.getloadavg()[0]), rss_mib=rss),
                   encoding="utf-8")
    result.table.to_csv(args.csv or out.with_suffix(".csv"), index=False)
    print(out.read_text(encoding="utf-8"))


if __name__ == "__main__":
    main()
