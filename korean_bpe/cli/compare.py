"""``korean-bpe compare``: every strategy trained and measured on a corpus, a table printed and a
report written (:func:`korean_bpe.compare.compare` does the work)."""

from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path
from typing import Any

from ..compare.downstream import MAX_EPOCHS, MAX_SEEDS
from ..compare.result import MAX_RESAMPLES, MAX_SEED
from .common import (
    STDOUT, UserError, add_corpus_arg, info, int_at_least, positive_int, refuse_overwriting, refuse_stdin_twice,
    refuse_stdout, speak_cli,
)


def compare_legend(alpha: float = 0.05, *, downstream: bool = True) -> str:
    """What the short headers and marks of the ``compare --full`` output mean (printed under it and in
    ``--help``), from :data:`korean_bpe.compare.columns.TABLE`: the full table's columns, then
    (``downstream``) those of the downstream block."""
    from ..compare.columns import legend
    from ..compare.table import marks_legend

    block = ("\n" + legend(["down%", "dF1%", "seed sd"])) if downstream else ""
    return ("columns of the printed table, measured on the held-out documents (table.csv names in brackets;\n"
            "report.md and report.html define every column), rates in percent:\n" + legend() + block +
            "\nmarks:\n" + marks_legend(alpha))


#: the largest vocabulary size ``korean-bpe compare`` trains: its Hugging Face and Kiwi peers allocate
#: memory for every token asked for (HF's trainer some 66 bytes a token: 141 GB at 2**31), so a
#: typing slip of a few digits must fail at once, not after a crash; our own BPE takes any size
COMPARE_MAX_VOCAB_SIZE = 2**20
#: the vocabulary sizes of ``korean-bpe compare`` when none are given
COMPARE_VOCAB_SIZES = (4000, 8000, 16000)
#: the defaults on the small Constitution corpus (``korean-bpe compare constitution``, under a minute on
#: 2 cores): 2,480 lines run out of merges above a few thousand tokens and hold 550 distinct characters
#: (a syllable vocabulary needs more), and the two Kiwi peers, which spend 6-8 s each starting their
#: trainer whatever the corpus (kiwi-bpe trains once for every size, kiwi-swtokenizer's child loads Kiwi
#: once: 8.0 s, then 1.7 s at the next size), are left out (``--strategies peer`` or ``all`` names them)
COMPARE_VOCAB_SIZES_EMBEDDED = (1000, 2000)
COMPARE_SLOW_PEERS = ("kiwi-bpe", "kiwi-swtokenizer")
#: below this many documents (training and held-out together) ``korean-bpe compare`` runs its rows in
#: this process unless ``--jobs`` says otherwise: a spawned worker spends some 4 s of CPU importing the
#: libraries and starting the analyzers, more than such rows cost (400 reviews, 4 strategies: 14 s of CPU
#: in one process, 22 s with two workers, the same table)
COMPARE_SMALL_CORPUS = 2_000
#: the demo: ``korean-bpe compare`` without a corpus, on the shipped movie-review sample (8,000 reviews
#: to train on, 2,000 held out, labelled) at one size, with the downstream classifier: the tutorials'
#: Okt analysis (syllable and jamo BPE), whitespace and raw BPE, Kiwi and MeCab lossless, SuperBPE, the
#: character and 어절 reference points and SentencePiece (about a minute and a half on 2 cores)
DEMO_STRATEGIES = ("okt-analysis/syllable", "okt-analysis/jamo", "whitespace/syllable", "whitespace/jamo",
                   "raw/syllable", "kiwi/syllable", "mecab/syllable", "superbpe/syllable", "baseline/syllable",
                   "baseline/word", "sentencepiece-unigram")
DEMO_VOCAB_SIZES = (8000,)
#: the demo's corpus and held-out documents (:data:`korean_bpe.corpus.EMBEDDED_CORPORA`)
DEMO_CORPUS, DEMO_EVAL = "nsmc-sample", "nsmc-sample-test"


def _downstream_defaults() -> Any:
    """``Downstream()``, whose fields the compare options' defaults show (its module imports no torch)."""
    from ..compare.downstream import Downstream

    return Downstream()


_DOWNSTREAM = _downstream_defaults()


def add_parsers(sub: Any) -> None:
    """Add ``compare`` to the subcommands ``sub``."""
    p = sub.add_parser(
        "compare", help="compare tokenization strategies on held-out text and write a report",
        description="Train every tokenization strategy (our BPE over each pre-tokenizer x unit, kortok-style\n"
                    "baselines, SentencePiece / HF / Kiwi peers) on CORPUS and measure it on held-out text\n"
                    "(korean_bpe.compare.compare). Prints the table and writes DIR/table.csv, report.md,\n"
                    "report.html (one self-contained page) and the plots (*.png). A missing analyzer or\n"
                    "peer library is skipped with a note.",
        epilog=compare_legend(), formatter_class=argparse.RawDescriptionHelpFormatter)
    add_corpus_arg(p, default=f"{DEMO_CORPUS} (the shipped movie reviews, held out on {DEMO_EVAL}, with "
                               "the downstream stage; 'constitution' names the unlabelled konlpy text)")
    p.add_argument("--full", action="store_true",
                   help="print the full table, its intervals and every task's block (default: the verdict, then a "
                        "compact table; the full table is in DIR/table.csv and the reports either way)")
    p.add_argument("--eval", default=None, metavar="FILE",
                   help="measure on FILE (text or NSMC-format TSV) and train on all of CORPUS "
                        "(default: hold out --test-fraction of CORPUS)")
    p.add_argument("--eval-limit", type=positive_int, default=None, metavar="N",
                   help="read at most the first N documents of --eval (default: --limit)")
    p.add_argument("-o", "--output", default="results", metavar="DIR",
                   help="directory for table.csv, report.md, report.html and the PNGs (default: results)")
    p.add_argument("--strategies", type=_strategy_list, default=None, metavar="LIST",
                   help="comma-separated strategy names or families: bpe, baseline, peer, a pre-tokenizer "
                        "(whitespace, raw, okt-analysis, okt, kiwi, mecab) or names such as okt/jamo, "
                        "baseline/word, sentencepiece-unigram; 'all' for every one (default: all; on the "
                        "embedded corpus all but the Kiwi peers, which take 6-8 s each to start); outside 'all', "
                        "when named: okt-train, kiwi-train, mecab-train, mob, mob-kiwi, superbpe")
    p.add_argument("--vocab-sizes", type=_vocab_sizes, default=None, metavar="LIST",
                   help=f"comma-separated vocabulary sizes, at most {COMPARE_MAX_VOCAB_SIZE:,} (default: "
                        f"{','.join(map(str, COMPARE_VOCAB_SIZES))}; "
                        f"{','.join(map(str, COMPARE_VOCAB_SIZES_EMBEDDED))} on the small embedded corpus)")
    p.add_argument("--gold", choices=("kiwi", "mecab", "okt", "none"), default="kiwi",
                   help="analyzer whose morpheme boundaries grade morph_f1 (default: kiwi)")
    p.add_argument("--labels", default=None, metavar="FILE",
                   help="one integer label a line for the documents of CORPUS (turns on probe_accuracy); "
                        "NSMC-format TSVs with a 'label' column give their labels without it")
    p.add_argument("--eval-labels", default=None, metavar="FILE", help="the same for the documents of --eval")
    p.add_argument("--test-fraction", type=float, default=0.1, metavar="F",
                   help="share of CORPUS held out when there is no --eval (default: 0.1)")
    p.add_argument("--seed", type=_compare_seed, default=0,
                   help=f"seed of the split, the bootstrap and the probe, 0 to {MAX_SEED} (default: 0)")
    p.add_argument("--resamples", type=_resamples, default=None, metavar="N",
                   help="bootstrap resamples of the held-out documents for the intervals and p-values "
                        "(default: 1000, more where Holm's correction over the rows needs them; at least 200 for "
                        f"95%% intervals; 0: none; at most {MAX_RESAMPLES:,})")
    p.add_argument("--confidence", type=float, default=0.95, metavar="C",
                   help="coverage of the intervals; p-values below 1 - C count as significant (default: 0.95)")
    p.add_argument("--reference", default=None, metavar="STRATEGY",
                   help="the strategy every row is compared with at its size (default: whitespace BPE of the "
                        "row's unit, whitespace/syllable for the others)")
    p.add_argument("--downstream", nargs="?", const="cnn", default=None, choices=("cnn", "transformer"),
                   metavar="MODEL",
                   help="with labels: train a small neural classifier from scratch on each row's tokens "
                        "(cnn, the default, or transformer; several seeds) and report its held-out accuracy "
                        "and macro-F1 with intervals (needs PyTorch: pip install \"korean_bpe[downstream]\")")
    # the options of --downstream: not set unless given (argparse.SUPPRESS), so that one given without it is refused
    p.add_argument("--downstream-seeds", type=int_at_least(1, f"an integer from 1 to {MAX_SEEDS}", MAX_SEEDS),
                   default=argparse.SUPPRESS, metavar="N",
                   help=f"with --downstream: models trained per row, at most {MAX_SEEDS} (default: {_DOWNSTREAM.seeds})")
    p.add_argument("--downstream-docs", type=_docs_or_all, default=argparse.SUPPRESS, metavar="N",
                   help="with --downstream: training documents of the downstream models: a seeded sample of N (2 or "
                        f"more), or 'all' (default: {_DOWNSTREAM.train_docs})")
    p.add_argument("--downstream-epochs", type=int_at_least(1, f"an integer from 1 to {MAX_EPOCHS}", MAX_EPOCHS),
                   default=argparse.SUPPRESS, metavar="N",
                   help=f"with --downstream: passes over them, at most {MAX_EPOCHS} (default: {_DOWNSTREAM.epochs})")
    p.add_argument("--device", choices=("auto", "cpu", "cuda"), default=argparse.SUPPRESS,
                   help="with --downstream: where the downstream models train: auto (a GPU when torch sees one, the "
                        "default), cpu or cuda")
    p.add_argument("--task", action="append", default=None, metavar="NAME[=PATH|SPEC]", dest="tasks",
                   help="run a task of its own data on every row, with the same tokenizers (repeatable): nsmc "
                        "(NSMC movie reviews: PATH the directory of ratings_train.txt and ratings_test.txt, or "
                        "train.tsv and test.tsv, or nsmc-sample, the shipped sample; nsmc_accuracy, nsmc_macro_f1 "
                        "on 10,000 test reviews; needs PyTorch), hate "
                        "(the Korean hate-speech comments: PATH their directory of train.tsv and dev.tsv; "
                        "hate_macro_f1, hate_accuracy; needs PyTorch), ner (KLUE-NER: PATH its file or directory; "
                        "ner_entity_f1 of a small tagger, ner_boundary_crossing, ner_ceiling_f1; needs PyTorch), "
                        "noise (token stability of 2,000 held-out documents "
                        "under each Korean perturbation of korean_bpe.noise at 10%%, and with labels the accuracy "
                        "drop of each row's classifier and of one trained with BPE-dropout 0.1: noise_stability, "
                        "noise_accuracy_drop and a column set a perturbation; noise=SPEC chooses them, e.g. "
                        "noise=keyboard_typo:0.2,nfd,dropout:0), lm (a small GRU language model trained on each row's tokens: "
                        "lm_bits_per_byte of the held-out documents, or of PATH, a text file of one document a line; "
                        "needs PyTorch), or any registered task; without PATH a task finds its data itself "
                        "($KOREAN_BPE_NSMC_DIR, $KOREAN_BPE_HATE_SPEECH_DIR, $KOREAN_BPE_KLUE_NER_DIR, "
                        "../shared/corpora)")
    p.add_argument("--csv", default=None, metavar="PATH",
                   help="also write the table to PATH; '-' for standard output (the printed table then goes to "
                        "standard error)")
    p.add_argument("--jobs", type=positive_int, default=None, metavar="N",
                   help="worker processes, each running groups of strategies (an analyzer's rows, a peer); "
                        "same table and report whatever N (default: the number of CPUs, at most one per "
                        f"group; 1, all in this process, on the embedded Constitution corpus and below "
                        f"{COMPARE_SMALL_CORPUS:,} documents, where starting the analyzers in each worker "
                        "costs more than its rows)")
    p.add_argument("--no-model-cache", action="store_true",
                   help="train every model again and keep none (default: the trained tokenizers and what the "
                        "tasks' models give, the classifiers' predictions, the tagger's tags, the language "
                        "model's log probabilities, are kept in models/ under the analysis cache's directory "
                        "and read back on a rerun on the same texts, strategy, size and seed: a rerun with "
                        "--full or another -o trains nothing)")
    p.add_argument("--no-progress", action="store_true", help="no progress bar")
    p.set_defaults(func=cmd_compare)


def _docs_or_all(value: str) -> int | None:
    """An argparse type: ``all`` (None) or an integer >= 2 (the minimum is said in the error)."""
    if value.strip().lower() == "all":
        return None
    return int_at_least(2, "a number of documents, at least 2 (a classifier needs two classes), or 'all'")(value)


#: compare's seed: the split, the bootstrap and scikit-learn's probe take 0 .. 2**32 - 1
_compare_seed = int_at_least(0, f"an integer from 0 to {MAX_SEED} (it seeds the split, the bootstrap and the probe)",
                             MAX_SEED)


_resamples = int_at_least(0, f"an integer from 0 to {MAX_RESAMPLES:,} (0: no intervals)", MAX_RESAMPLES)


def _strategy_list(value: str) -> list[str]:
    names = [v.strip() for v in value.split(",") if v.strip()]
    if not names:
        raise argparse.ArgumentTypeError(f"expected comma-separated strategy names, got {value!r}")
    return names


def _vocab_sizes(value: str) -> list[int]:
    sizes = [positive_int(v.strip()) for v in value.split(",") if v.strip()]
    for n in sizes:
        if n > COMPARE_MAX_VOCAB_SIZE:
            raise argparse.ArgumentTypeError(
                f"{n} is larger than compare trains: its Hugging Face and Kiwi peers allocate memory for every token "
                f"asked for; give sizes of at most {COMPARE_MAX_VOCAB_SIZE} (a corpus runs out of merges long before)")
    return sizes


def cmd_compare(args: argparse.Namespace) -> int:
    from ..compare.report import check_output_dir

    # every output is checked before the corpus is read: a bad place fails in a second, not after the run
    if not 0 < args.test_fraction < 1:
        raise UserError(f"--test-fraction must be between 0 and 1, got {args.test_fraction}")
    refuse_stdout("-o/--output", args.output, "the report (table.csv, report.md, report.html and the plots)",
                  "--csv - writes the table to standard output")
    try:
        out_dir = check_output_dir(args.output)
    except ValueError as exc:
        raise UserError(f"argument -o/--output: {exc}") from None
    if args.csv is not None and args.csv != STDOUT:
        from ..files import check_output_file

        try:
            check_output_file(args.csv)
        except ValueError as exc:
            raise UserError(f"argument --csv: {exc}") from None
    if args.eval is None and args.eval_labels is not None:
        raise UserError("--eval-labels needs --eval (without it the held-out labels come from --labels)")
    if args.eval is None and args.eval_limit is not None:
        raise UserError("--eval-limit needs --eval (without it the held-out documents are --test-fraction of CORPUS)")
    _check_compare_files(args, out_dir)

    from ..compare.report import pick_sentences
    from ..compare.run import CompareConfig, compare, fit_vocab_sizes, held_out_split, resolve_strategies
    from ..compare.table import format_compact, format_table
    from ..compare.verdict import format_choices, format_verdicts

    # an unknown name or a bad statistics option fails before the corpus is read
    demo = args.corpus is None  # the shipped movie reviews, labelled: the verdict with the downstream stage
    constitution = args.corpus == "constitution" and not Path(args.corpus).exists()
    if demo:
        args.corpus = DEMO_CORPUS
        if args.downstream is None and args.labels is None and args.eval is None:  # the sample's labels both sides
            args.downstream = _demo_downstream()
        args.eval = args.eval or DEMO_EVAL
    default_strategies = DEMO_STRATEGIES if demo else None
    strategies = resolve_strategies(None if args.strategies == ["all"] else args.strategies or default_strategies)
    statistics = _compare_statistics(args)
    downstream = _compare_downstream(args)
    tasks = _compare_tasks(args.tasks)
    if constitution and args.strategies is None:
        strategies = [s for s in strategies if s not in COMPARE_SLOW_PEERS]
    fit_sizes = args.vocab_sizes is None and not (demo or constitution)  # to the corpus, once it is read
    fitted = ""
    if args.vocab_sizes is None:
        args.vocab_sizes = list(DEMO_VOCAB_SIZES if demo else COMPARE_VOCAB_SIZES_EMBEDDED if constitution
                                else COMPARE_VOCAB_SIZES)
    config = CompareConfig(
        strategies=strategies, vocab_sizes=args.vocab_sizes, gold=None if args.gold == "none" else args.gold,
        seed=args.seed, test_fraction=args.test_fraction, statistics=statistics, downstream=downstream, tasks=tasks,
        n_jobs=args.jobs or (1 if constitution else -1), model_cache=not args.no_model_cache,
        show_progress=False if args.no_progress else None)
    texts, labels = _documents(args.corpus, args.labels, "--labels", limit=args.limit)
    eval_texts, eval_labels = (None, None) if args.eval is None else \
        _documents(args.eval, args.eval_labels, "--eval-labels",
                   limit=args.limit if args.eval_limit is None else args.eval_limit)
    if (labels is None) != (eval_labels is None) and args.eval is not None:
        info("note: labels for only one of CORPUS and --eval: no probe_accuracy")
        labels = eval_labels = None
    if args.jobs is None and len(texts) + len(eval_texts or ()) < COMPARE_SMALL_CORPUS:
        config = config.replace(n_jobs=1)
    if downstream is not None and labels is None:
        raise UserError("--downstream needs labels: give --labels FILE (one integer a line), or a corpus in NSMC "
                        "format (a TSV with a 'label' column); with --eval, --eval-labels too")
    # the documents compare() will measure on, by its own split: the report's examples are among them
    split = held_out_split(texts, eval_texts=eval_texts, test_fraction=config.test_fraction, seed=config.seed)
    held_out = split.test
    if fit_sizes:
        sizes, reached = fit_vocab_sizes(split.train, args.vocab_sizes, min_frequency=config.min_frequency)
        if sizes != args.vocab_sizes:  # said with the run's notes (and in the report)
            fitted = (f"vocabulary sizes fitted to the corpus: whitespace BPE runs out of merges at {reached:,} tokens "
                      f"here, so the comparison runs at {', '.join(f'{n:,}' for n in sizes)} instead of "
                      f"{', '.join(f'{n:,}' for n in args.vocab_sizes)} (--vocab-sizes chooses)")
            args.vocab_sizes = sizes
            config = config.replace(vocab_sizes=sizes)
    sentences = pick_sentences(held_out)
    start = time.perf_counter()
    result = compare(texts, eval_texts=eval_texts, labels=labels, eval_labels=eval_labels,
                     config=config.replace(pieces_texts=sentences + held_out[:1000]))
    seconds = time.perf_counter() - start
    if fitted:
        result.notes.insert(0, fitted)
    df = result.table
    shown = sys.stderr if args.csv == STDOUT else sys.stdout  # --csv -: standard output holds the CSV alone
    if df.empty:
        for note in result.notes:
            info(f"note: {speak_cli(note, 'compare')}")
        print(format_table(df, alpha=statistics.alpha), file=shown)
        raise UserError("no strategy could be measured (see the notes above)")
    alpha = statistics.alpha
    verdict = format_choices(result.choices, result.verdicts, alpha=alpha)
    if result.verdicts:
        verdict += ("\n" if verdict else "") + format_verdicts(result.verdicts, alpha=alpha)
    if result.summary:
        from ..compare.summary import format_summary

        verdict += ("\n\n" if verdict else "") + format_summary(result.summary, confidence=statistics.confidence)
    if verdict:
        print(f"verdict (on {int(df['test_docs'].iloc[0]):,} held-out documents):\n{verdict}\n", file=shown)
    if args.full:
        printed, headers = _print_full(df, result, downstream, tasks, statistics, args.seed, shown), []
    else:
        evidence = result.choices[0].evidence.metric if result.choices and result.choices[0].evidence else None
        compact, headers = format_compact(df, alpha=alpha, order_by=evidence)
        blocks = [compact, *_task_blocks(df, tasks, statistics)]  # what --task asked for is shown either way
        printed = "\n\n".join(blocks)
        print(printed, file=shown)
    print(f"\n{len(df)} rows: {int(df['train_docs'].iloc[0]):,} training / {int(df['test_docs'].iloc[0]):,} "
          f"held-out documents (seed {args.seed}), {seconds:.0f} s.", file=shown)
    print(compare_legend(alpha, downstream="down% [interval]" in printed) if args.full else
          _compact_legend(headers, printed, alpha), file=shown)
    for note in result.notes:  # after the verdict and the table, which come first
        info(f"note: {speak_cli(note, 'compare')}")
    result.notes = [speak_cli(n, "compare") for n in result.notes]
    written = result.write_report(out_dir, corpus=_compare_corpus(args, labels is not None, seconds),
                                  sentences=sentences, length_texts=held_out[:1000],
                                  command=["korean-bpe", *args.argv])
    if args.csv == STDOUT:
        sys.stdout.write(df.to_csv(index=False))
    elif args.csv is not None:
        from ..files import atomic_write_text

        atomic_write_text(args.csv, df.to_csv(index=False))
        info(f"wrote {args.csv}")
    pngs = [name for name in written if name.endswith(".png")]
    info(f"wrote {args.output.rstrip('/')}/: table.csv (every column, with intervals and p-values), report.md, "
         f"report.html (open it in a browser: images embedded) and {len(pngs)} plots ({', '.join(pngs)})"
         + ("" if args.full else "; --full prints the full table and its intervals here"))
    return 0


def _print_full(df: Any, result: Any, downstream: Any, tasks: list[Any], statistics: Any, seed: int,
                shown: Any) -> str:
    """``--full``: the table of every column the terminal holds, its intervals, the downstream block and
    each task's block, as printed; returns the text printed."""
    from ..compare.table import format_downstream, format_intervals, format_table

    blocks = [format_table(df, alpha=statistics.alpha)]
    resamples = result.config["resamples"]
    if resamples and df["tokens_per_word_ci_low"].notna().any():
        blocks.append(f"{statistics.confidence:.0%} bootstrap intervals ({resamples:,} resamples of the held-out "
                      f"documents, seed {seed}):\n{format_intervals(df)}")
    if downstream is not None and format_downstream(df):
        import textwrap

        head = textwrap.fill(f"downstream: {downstream.describe()}, on {result.config['downstream']['device_used']}; "
                             "intervals over the held-out documents and the seeds:", 100)
        blocks.append(f"{head}\n{format_downstream(df, alpha=statistics.alpha)}")
    blocks += _task_blocks(df, tasks, statistics)
    text = "\n\n".join(blocks)
    print(text, file=shown)
    return text


def _task_blocks(df: Any, tasks: list[Any], statistics: Any) -> list[str]:
    """Each ``--task``'s columns with their intervals (:func:`korean_bpe.compare.table.format_task`)."""
    from ..compare.table import format_task

    blocks = []
    for task in tasks:
        shown_task = format_task(df, task.columns, alpha=statistics.alpha)
        if shown_task:
            blocks.append(f"task {task.name} ({statistics.confidence:.0%} intervals):\n{shown_task}")
    return blocks


def _compact_legend(headers: list[str], printed: str, alpha: float) -> str:
    """The legend of the compact table: its columns, and the marks that appear in it."""
    from ..compare.columns import legend
    from ..compare.table import MARKS

    marks = {m: t for m, t in MARKS.items() if m in printed}
    import textwrap

    lines = [textwrap.fill(text.format(alpha=alpha), 100, initial_indent=f"  {mark:5s}  ", subsequent_indent="         ")
             for mark, text in marks.items()]
    return ("columns, measured on the held-out documents (table.csv names in brackets), rates in percent:\n"
            + legend(headers) + ("\nmarks:\n" + "\n".join(lines) if lines else ""))


def _demo_downstream() -> str | None:
    """``"cnn"`` when PyTorch imports (the demo's downstream stage), else None with a note saying how."""
    from ..compare.downstream import require_torch

    try:
        require_torch()
    except ImportError:
        info('note: no downstream stage in the demo: PyTorch is not installed (pip install "korean_bpe[downstream]")')
        return None
    return "cnn"


def _check_compare_files(args: argparse.Namespace, out_dir: Path) -> None:
    """Standard input read once, and no output over an input (--csv, or a file of the report)."""
    from ..compare.report import PLOTS

    inputs = [("the corpus", args.corpus), ("the --eval file", args.eval), ("the --labels file", args.labels),
              ("the --eval-labels file", args.eval_labels)]
    refuse_stdin_twice(inputs)
    if args.csv is not None:
        refuse_overwriting("--csv", [args.csv], inputs, "give another file for the table")
    report = ["table.csv", "report.md", "report.html", *(name for name, *_ in PLOTS)]
    refuse_overwriting("-o/--output", [out_dir / name for name in report], inputs,
                       "give another directory for the report")


def _compare_statistics(args: argparse.Namespace) -> Any:
    """The :class:`~korean_bpe.compare.result.Statistics` of ``--resamples``, ``--confidence``,
    ``--reference``; a bad one is a UserError naming the option."""
    from ..compare.result import Statistics

    try:
        return Statistics(resamples=args.resamples, confidence=args.confidence, reference=args.reference)
    except ValueError as exc:
        raise UserError(speak_cli(str(exc), "compare")) from None


def _compare_downstream(args: argparse.Namespace) -> Any:
    """The :class:`~korean_bpe.compare.downstream.Downstream` of ``--downstream`` and its options, or
    None; PyTorch missing is a UserError with the install line, before any work."""
    given = {field: getattr(args, attr) for field, attr in _DOWNSTREAM_OPTIONS.items() if hasattr(args, attr)}
    if args.downstream is None:
        if given:
            option = "--" + _DOWNSTREAM_OPTIONS[next(iter(given))].replace("_", "-")
            raise UserError(f"{option} qualifies --downstream, which is not given, so it would do nothing: leave "
                            f"{option} out, or add --downstream (with labels)")
        return None
    from ..compare.downstream import Downstream, require_torch

    try:
        require_torch()
    except ImportError as exc:
        raise UserError(f"--downstream: {exc}") from None
    return Downstream(model=args.downstream, **given)


#: Downstream's field -> the attribute of its option (``--downstream-seeds``...)
_DOWNSTREAM_OPTIONS = {"seeds": "downstream_seeds", "train_docs": "downstream_docs", "epochs": "downstream_epochs",
                       "device": "device"}


#: the tasks every run has, set by their own options rather than --task
_BUILT_IN_TASKS = {"heldout": "always runs", "probe": "runs with labels", "downstream": "use --downstream"}


def _compare_tasks(specs: list[str] | None) -> list[Any]:
    """The tasks of ``--task NAME[=PATH]`` (:func:`~korean_bpe.compare.tasks.task_from_spec`), each
    made (its data read) before the corpus is: an unknown name, a missing PATH or a task that cannot
    be made is a UserError naming the flag."""
    from ..compare.tasks import TASKS, task_from_spec

    tasks: list[Any] = []
    for spec in specs or ():
        name = spec.partition("=")[0].strip()
        if name in _BUILT_IN_TASKS:
            raise UserError(f"argument --task {spec}: the {name} task {_BUILT_IN_TASKS[name]}; --task adds others "
                            f"({', '.join(n for n in TASKS.names() if n not in _BUILT_IN_TASKS)})")
        if name not in TASKS:
            raise UserError(f"argument --task: unknown task {name!r}; choose one of "
                            f"{', '.join(n for n in TASKS.names() if n not in _BUILT_IN_TASKS)}")
        try:
            tasks.append(task_from_spec(spec))
        except (ValueError, TypeError, ImportError) as exc:
            raise UserError(f"argument --task {spec}: {exc}") from None
    names = [t.name for t in tasks]
    if len(set(names)) < len(names):
        raise UserError(f"argument --task: each task once, got {', '.join(names)}")
    return tasks


def _compare_corpus(args: argparse.Namespace, labelled: bool, seconds: float) -> dict[str, str]:
    """What the report says about the corpus: its paths as given on the command line."""
    return {
        "corpus": _corpus_name(args.corpus),
        "held-out documents from": _corpus_name(args.eval) if args.eval else
        f"a seeded {args.test_fraction:.0%} of the corpus (seed {args.seed})",
        "labels": ("yes: probe_accuracy" + (" and downstream_accuracy" if args.downstream else "") + " measured")
        if labelled else "none (no probe_accuracy)",
        **({"downstream models": args.downstream} if args.downstream and labelled else {}),
        **({"tasks": ", ".join(args.tasks)} if args.tasks else {}),
        "vocabulary sizes": ", ".join(f"{v:,}" for v in sorted(set(args.vocab_sizes))),
        "gold analyzer": args.gold,
        "run time": f"{seconds:.0f} s",
    }


def _corpus_name(source: str) -> str:
    """A corpus as the report names it: a shipped corpus's name with what it is, else the path as given."""
    from ..corpus import EMBEDDED_CORPORA

    if source in EMBEDDED_CORPORA and not Path(source).exists():
        return f"{source}: {EMBEDDED_CORPORA[source]}"
    return source


def _documents(source: str | None, labels_file: str | None, option: str, *,
               limit: int | None) -> tuple[list[str], list[int] | None]:
    """The documents of ``source`` and their labels: from ``labels_file`` (one integer a line), or
    from the ``label`` column of an NSMC-format TSV, or None."""
    from ..corpus import iter_labelled, iter_texts

    if labels_file is None:
        pairs = iter_labelled(source, limit=limit) if source not in (None, "-") else None
        if pairs is not None:
            rows = list(pairs)
            if rows and rows[0][1] is not None:
                return [t for t, _ in rows], [_label(v, source, k) for k, (_, v) in enumerate(rows, 1)]
            return [t for t, _ in rows], None
        return list(iter_texts(source, limit=limit)), None
    # the documents past --limit are counted, not kept: a labels file shifted by a line is refused with
    # --limit as without it (the first labels would otherwise go with the wrong documents, silently)
    texts: list[str] = []
    total = 0
    for text in iter_texts(source):
        if limit is None or total < limit:
            texts.append(text)
        total += 1
    values = [line.strip() for line in iter_texts(labels_file)]
    if len(values) != total:
        read = f" ({len(texts)} of them read with --limit)" if len(texts) < total else ""
        raise UserError(f"{option} {labels_file} has {len(values)} labels for {total} documents{read}: "
                        "give one integer label a line, one per non-blank document")
    return texts, [_label(v, labels_file, k) for k, v in enumerate(values[:len(texts)], 1)]


def _label(value: str, source: Any, k: int) -> int:
    try:
        return int(value)
    except ValueError:
        raise UserError(f"{source}: label {k} is {value!r}, not an integer (such as NSMC's 0 and 1)") from None
