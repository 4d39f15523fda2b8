"""``korean-bpe train`` and ``korean-bpe count``: a corpus in, a model directory or a word-counts
file out (the counts train the same model later)."""

from __future__ import annotations

import argparse
import os
import sys
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

from .._messages import one_line
from .common import (
    MARKER_NAMES, PRE_TOKENIZER_NAMES, STDOUT, UNIT_NAMES, UserError, add_corpus_arg, add_threads_arg,
    check_model_output, info, load_model, positive_int, refuse_overwriting, refuse_stdin_twice, refuse_stdout,
)


def add_parsers(sub: Any) -> None:
    """Add ``train`` and ``count`` to the subcommands ``sub``."""
    _add_train(sub)
    _add_count(sub)


def _add_train(sub: Any) -> None:
    p = sub.add_parser("train", help="train a tokenizer and save it to a directory",
                       description="Train a BPE tokenizer on CORPUS and save it (vocab.json, merges.txt, "
                                   "tokenizer_config.json).")
    add_corpus_arg(p)
    p.add_argument("--counts", default=None, metavar="FILE",
                   help="train from word counts written by 'korean-bpe count' instead of CORPUS (the same model; "
                        "the pre-tokenizer is the one the counts were made with)")
    p.add_argument("--vocab-size", type=positive_int, default=8000, metavar="N",
                   help="special tokens + alphabet + merges (default: 8000)")
    _pre_tokenizer_args(p, initial=True)
    p.add_argument("--unit", choices=UNIT_NAMES, default=None,
                   help="symbols BPE starts from (default: syllable; with --initial, its own)")
    p.add_argument("--marker", choices=tuple(MARKER_NAMES), default=None,
                   help="word-boundary marker ('space' is ▁; default: ▁ for whitespace and analysis "
                        "mode, none for raw and --lossless)")
    p.add_argument("--min-frequency", type=positive_int, default=2, metavar="N",
                   help="stop merging below this pair count (default: 2)")
    p.add_argument("--limit-alphabet", type=positive_int, default=None, metavar="N",
                   help="keep only the N most frequent symbols (the rest: <unk> or byte fallback)")
    p.add_argument("--max-token-length", type=positive_int, default=None, metavar="N",
                   help="no token longer than N symbols (characters, jamo or bytes; the ▁ marker counts one)")
    p.add_argument("--superword-transition", type=positive_int, default=None, metavar="T",
                   help="SuperBPE: merges stay inside words up to T tokens, then cross spaces (one piece a line)")
    p.add_argument("--superword-max-words", type=positive_int, default=None, metavar="N",
                   help="with --superword-transition: at most N word starts (▁) a token (default: 4)")
    p.add_argument("--byte-fallback", action="store_true", help="unknown symbols become <0x..> byte tokens")
    p.add_argument("--hangul-fallback", action="store_true",
                   help="add the 67 conjoining jamo to the vocabulary; unknown syllables become jamo tokens")
    p.add_argument("--initial", default=None, metavar="MODEL_DIR",
                   help="continue training this model: its ids and merges are kept, new merges are learned from "
                        "CORPUS up to --vocab-size (old tokens included)")
    p.add_argument("-o", "--output", required=True, metavar="DIR",
                   help="directory to write the model to ('-' is refused: a model is three files)")
    add_threads_arg(p, "count the words (whitespace and raw) and prepare the merges", "model")
    p.add_argument("--no-progress", action="store_true", help="no progress bars")
    p.set_defaults(func=cmd_train)


def _pre_tokenizer_args(p: argparse.ArgumentParser, *, initial: bool = False) -> None:
    p.add_argument("--pre-tokenizer", choices=PRE_TOKENIZER_NAMES, default=None,
                   help="how texts are cut into words (default: whitespace" + ("; with --initial, its own; with "
                        "--counts, theirs)" if initial else ")") + ". The analyzers okt, kiwi, mecab default to "
                        "analysis mode (조사, punctuation and foreign words dropped), named okt-analysis, "
                        "kiwi-analysis, mecab-analysis in the output, as in compare; with --lossless, okt, kiwi, mecab")
    p.add_argument("--lossless", action="store_true",
                   help="morpheme pre-tokenizers: keep every morpheme and the spaces, so decode restores the text "
                        "(the pipelines compare calls okt, kiwi, mecab)")
    p.add_argument("--morpheme-boundaries", choices=("okt", "kiwi", "mecab"), default=None, metavar="ANALYZER",
                   help="cut the training words (raw or whitespace; default here: raw) where this analyzer's "
                        "morphemes meet, so no merge crosses one; the model then encodes without the analyzer "
                        "(compare's ANALYZER-train rows)")


def _add_count(sub: Any) -> None:
    p = sub.add_parser("count", help="pre-tokenize a corpus and write its word counts",
                       description="Pre-tokenize the FILEs and write each distinct word with its count (a versioned "
                                   "TSV: a '#' header line naming the pre-tokenizer, then word<TAB>count lines, "
                                   "most frequent first). 'korean-bpe train --counts FILE' trains from it.")
    p.add_argument("corpus", nargs="*", metavar="FILE",
                   help="text files (one document a line) or NSMC-format TSVs, or '-' for stdin "
                        "(default: the corpus embedded in konlpy)")
    p.add_argument("--limit", type=positive_int, default=None, metavar="N", help="read at most N documents")
    _pre_tokenizer_args(p)
    p.add_argument("-o", "--output", required=True, metavar="FILE",
                   help="file to write the counts to; '-' for standard output")
    p.add_argument("--scheduler", default=None, metavar="ADDRESS",
                   help="count on Dask: a scheduler address (tcp://host:8786), or 'local' for one worker process per "
                        "core on this machine; the files are cut into shards counted in parallel, same counts "
                        "(needs: pip install \"korean_bpe[distributed]\")")
    p.add_argument("--shard-mb", type=positive_int, default=None, metavar="N",
                   help="with --scheduler: MiB of a file per task (default: 64)")
    add_threads_arg(p, "count the words of whitespace and raw", "counts")
    p.add_argument("--no-progress", action="store_true", help="no progress bars")
    p.set_defaults(func=cmd_count)


def _pre_tokenizer(args: argparse.Namespace) -> Any:
    """The pre-tokenizer of --pre-tokenizer and --lossless (default: whitespace)."""
    from ..pre_tokenizers import get_pre_tokenizer

    name = args.pre_tokenizer or ("raw" if getattr(args, "morpheme_boundaries", None) else "whitespace")
    if getattr(args, "morpheme_boundaries", None):
        if name not in ("raw", "whitespace") or args.lossless:
            raise UserError(f"--morpheme-boundaries cuts the words of --pre-tokenizer raw or whitespace, not "
                            f"'{name}'{' --lossless' if args.lossless else ''}: leave --pre-tokenizer out (raw)")
        return get_pre_tokenizer({"type": "morpheme_boundaries", "analyzer": args.morpheme_boundaries, "base": name})
    options: dict[str, Any] = {}
    if args.lossless:
        modes = [n for n in PRE_TOKENIZER_NAMES if _has_lossless_mode(n)]
        if name not in modes:
            already = "'raw' is already lossless" if name in ("whitespace", "raw") else \
                "it reads an analyzer's lossless morphemes already"
            raise UserError(f"--lossless is for the morpheme pre-tokenizers ({', '.join(modes)}); '{name}' has no such "
                            f"mode ({already}): leave --lossless out")
        options = {"lossless": True, "drop": ()}
    return get_pre_tokenizer(name, **options)


def _has_lossless_mode(name: str) -> bool:
    """Whether the registered pre-tokenizer ``name`` takes ``lossless`` (the morpheme analyzers)."""
    import inspect

    from ..pre_tokenizers import PRE_TOKENIZERS

    return "lossless" in inspect.signature(PRE_TOKENIZERS.get_class(name)).parameters


def cmd_count(args: argparse.Namespace) -> int:
    from itertools import chain, islice

    from ..corpus import default_corpus_paths, iter_texts
    from ..counting import WordCounts
    from ..files import check_output_file

    if args.output != STDOUT:
        check_output_file(args.output)  # before hours of counting, not after
    inputs = [(f"FILE {k}" if len(args.corpus) > 1 else "the corpus", c) for k, c in enumerate(args.corpus, 1)]
    refuse_stdin_twice(inputs)
    refuse_overwriting("-o/--output", [args.output], inputs or [("the corpus", p) for p in default_corpus_paths()],
                       "give another file for the counts")
    if args.shard_mb is not None and args.scheduler is None:
        raise UserError("--shard-mb sizes the shards of --scheduler; without it the files are counted here, line by "
                        "line: leave --shard-mb out, or add --scheduler local")
    pt = _pre_tokenizer(args)
    show = False if args.no_progress else None
    start = time.perf_counter()
    if args.scheduler is not None:
        from ..distributed import SHARD_BYTES, count_files

        if "-" in args.corpus or args.limit is not None:
            raise UserError("--scheduler counts whole files: give file paths, without '-' (stdin) or --limit")
        counts = count_files(args.corpus or default_corpus_paths(), pre_tokenizer=pt, scheduler=args.scheduler,
                             shard_bytes=SHARD_BYTES if args.shard_mb is None else args.shard_mb * 2**20,
                             show_progress=show)
    else:
        sources = [iter_texts(c) for c in args.corpus] if args.corpus else [iter_texts(None)]
        texts = chain.from_iterable(sources)  # one file after the other, line by line: never all in memory
        counts = WordCounts.from_texts(texts if args.limit is None else islice(texts, args.limit), pre_tokenizer=pt,
                                       show_progress=show, num_threads=args.threads)
    if not len(counts):
        raise UserError(f"no words to count: the pre-tokenizer {pt!r} gave no word for any document")
    if args.output == STDOUT:
        sys.stdout.write(counts.to_text())
        sys.stdout.flush()  # a full disk fails here, before "written to standard output" is said
    else:
        try:
            counts.save(args.output)
        except (OSError, ValueError) as exc:  # the disk filled up, the place changed meanwhile: keep the counts
            beside = _save_beside(counts.save, args.output, folder=False)
            raise UserError(f"could not write the counts to {args.output} ({_reason(exc)}); the counts were saved "
                            f"to {beside} instead: move them into place with mv {beside} {args.output}") from None
    info(f"counted {len(counts):,} distinct words ({counts.total:,} occurrences, {pt!r}) in "
         f"{time.perf_counter() - start:.1f} s; " + ("written to standard output" if args.output == STDOUT else
                                                       f"saved to {args.output}"))
    return 0


def cmd_train(args: argparse.Namespace) -> int:
    from ..compare.strategies import pipeline_name
    from ..corpus import iter_texts
    from ..io.serialization import FILES
    from ..tokenizer import Tokenizer

    refuse_stdout("-o/--output", args.output, "a model (vocab.json, merges.txt, tokenizer_config.json)",
                  "export-hf -m DIR -o - writes a trained model's tokenizer.json to standard output")
    check_model_output(args.output)  # before hours of training, not after
    refuse_overwriting("-o/--output", [args.output, *(os.path.join(args.output, f) for f in FILES)],
                       [("the corpus", args.corpus), ("the --counts file", args.counts),
                        ("the --initial model", args.initial)], "save the model to another directory")
    if args.superword_max_words is not None and args.superword_transition is None:
        raise UserError("--superword-max-words limits the tokens SuperBPE makes after --superword-transition; without "
                        "it no token crosses a space: leave --superword-max-words out, or add --superword-transition T")
    kw: dict[str, Any] = {}
    if args.initial is not None:
        if args.counts is not None:
            raise UserError("--initial continues training on CORPUS; it cannot take --counts (train from the counts "
                            "without --initial, or give the corpus)")
        kw["initial"] = initial = load_model(args.initial)
        _check_initial(args, initial)
        if args.pre_tokenizer is None:
            args.pre_tokenizer = initial.pre_tokenizer.to_config()["type"]
            if not args.lossless:
                kw["pre_tokenizer"] = initial.pre_tokenizer
        args.unit = args.unit or initial.unit.to_config()["type"]
    args.unit = args.unit or "syllable"
    if args.marker is not None:
        kw["marker"] = MARKER_NAMES[args.marker]
    options = dict(vocab_size=args.vocab_size, unit=args.unit, min_frequency=args.min_frequency,
                   byte_fallback=args.byte_fallback, hangul_fallback=args.hangul_fallback,
                   limit_alphabet=args.limit_alphabet, max_token_length=args.max_token_length, show_progress=False if args.no_progress else None, **kw)
    start = time.perf_counter()
    if args.counts is not None:
        from ..counting import WordCounts

        if args.corpus is not None or args.limit is not None:
            raise UserError("give either CORPUS (with --limit) or --counts FILE, not both: the counts already "
                            "hold the words of their corpus")
        if args.superword_transition is not None:
            raise UserError("--superword-transition trains from CORPUS, not from --counts")
        counts = WordCounts.load(args.counts)
        given = (None if args.pre_tokenizer is None and not args.lossless and not args.morpheme_boundaries
                 else _pre_tokenizer(args))
        if given is not None and given.to_config() != counts.pre_tokenizer_config:
            raise UserError(f"{args.counts} was counted with the pre-tokenizer {counts.pre_tokenizer_config}, not "
                            f"{given.to_config()} (--pre-tokenizer/--lossless): a model must cut texts as its "
                            "training words were cut; leave out --pre-tokenizer, or count again with "
                            "'korean-bpe count CORPUS --pre-tokenizer ...'")
        tok = Tokenizer.train_from_counts(counts, pre_tokenizer=given, num_threads=args.threads, **options)
        source = f"{pipeline_name(counts.pre_tokenizer_config, args.unit)} from {args.counts}"
    else:
        pt = kw.pop("pre_tokenizer", None) or _pre_tokenizer(args)
        options.pop("pre_tokenizer", None)
        if args.superword_transition is not None:  # SuperBPE cuts lines itself: raw without split_by_whitespace
            if args.pre_tokenizer is not None or args.initial is not None:
                raise UserError("--superword-transition trains a new model on whole lines: leave out --pre-tokenizer "
                                "and --initial")
            pt = {"type": "raw", "split_by_whitespace": False}
            options.update(superword_transition=args.superword_transition)
            if args.superword_max_words is not None:
                options.update(superword_max_words=args.superword_max_words)
        tok = Tokenizer.train(iter_texts(args.corpus, limit=args.limit), pre_tokenizer=pt, num_threads=args.threads,
                              **options)
        source = f"superbpe/{args.unit}" if args.superword_transition is not None else \
            pipeline_name(pt.to_config(), args.unit)
    try:
        out = tok.save(args.output)
    except (OSError, ValueError) as exc:  # the disk filled up, the place changed meanwhile: keep the model
        beside = _save_beside(tok.save, args.output, folder=True)
        move = (f"mv {beside} {args.output}" if not os.path.lexists(args.output)
                else f"mv {beside}/* {args.output}/ once {args.output} can be written")
        raise UserError(f"could not save the model to {args.output} ({_reason(exc)}); the trained model was saved "
                        f"to {beside} instead: move it into place with {move}") from None
    added = "" if args.initial is None else f" ({tok.vocab_size - kw['initial'].vocab_size} new tokens after {args.initial})"
    info(f"trained {source}: {tok.vocab_size} tokens{added}, {len(tok.model.merges)} merges "
         f"in {time.perf_counter() - start:.1f} s; saved to {out}")
    return 0


def _check_initial(args: argparse.Namespace, initial: Any) -> None:
    """Refuse, in the command line's words, the train options that --initial fixes (the API's own
    check names its arguments): continued training keeps the initial model's pipeline."""
    from ..units import get_unit

    for option, value in (("--limit-alphabet", args.limit_alphabet), ("--max-token-length", args.max_token_length)):
        if value is not None:
            raise UserError(f"{option} cannot be used with --initial: continued training keeps the initial alphabet "
                            f"and counts an old merged token as one symbol; leave {option} out")
    if args.morpheme_boundaries is not None:
        raise UserError(f"--morpheme-boundaries cannot be used with --initial: continued training cuts CORPUS with the "
                        f"--initial model's own pre-tokenizer ({initial.pre_tokenizer.to_config()['type']}), so the "
                        f"{args.morpheme_boundaries} boundaries would not be applied; leave --morpheme-boundaries out, "
                        "or train a new model with it")
    marker_names = {text: name for name, text in MARKER_NAMES.items() if name != "\u2581"}
    pt, unit = initial.pre_tokenizer.to_config(), initial.unit.to_config()
    asked = argparse.Namespace(**{**vars(args), "pre_tokenizer": args.pre_tokenizer or pt["type"]})  # --lossless alone
    conflicts = [
        ("--pre-tokenizer" if args.pre_tokenizer else "--lossless", args.pre_tokenizer or "",
         args.pre_tokenizer is not None or args.lossless, lambda: _pre_tokenizer(asked).to_config() != pt,
         f"the pre-tokenizer {pt}"),
        ("--unit", args.unit, args.unit is not None, lambda: get_unit(args.unit).to_config() != unit,
         f"the {unit['type']} unit"),
        ("--marker", args.marker, args.marker is not None, lambda: MARKER_NAMES[args.marker] != initial.marker,
         f"the marker {marker_names.get(initial.marker, initial.marker)}"),
        ("--byte-fallback", "", args.byte_fallback, lambda: not initial.byte_fallback, "no byte fallback"),
        ("--hangul-fallback", "", args.hangul_fallback, lambda: not initial.hangul_fallback, "no Hangul fallback"),
    ]
    for option, value, given, differs, theirs in conflicts:
        if given and differs():
            raise UserError(f"{option}{' ' + value if value else ''} differs from the --initial model {args.initial}, "
                            f"which has {theirs}: continued training keeps its pipeline (so its ids and merges keep "
                            f"their meaning); leave {option} out")


def _save_beside(save: Callable[[Path], Any], output: str, *, folder: bool) -> Path:
    """``save`` (a model's, into a directory; word counts', to a file) run on a fresh path beside
    ``output``, or else in the temporary directory: hours of training or counting are never lost
    because their place could not be written.  Returns the path saved to."""
    import shutil
    import tempfile

    from ..files import new_dir_mode, new_file_mode

    real = Path(os.path.realpath(os.path.abspath(output)))
    what = "trained model" if folder else "counts"
    errors = []
    for place in (real.parent, Path(tempfile.gettempdir())):
        path = None
        try:
            if folder:
                path = Path(tempfile.mkdtemp(prefix=f"{real.name or 'model'}.saved-", dir=place))
                os.chmod(path, new_dir_mode())
            else:
                fd, name = tempfile.mkstemp(prefix=f"{real.name}.saved-", dir=place)
                os.close(fd)
                path = Path(name)
                os.chmod(path, new_file_mode())
            save(path)
            return path
        except (OSError, ValueError) as exc:
            errors.append(f"{place}: {_reason(exc)}")
            if path is not None:
                if folder:
                    shutil.rmtree(path, ignore_errors=True)
                else:
                    path.unlink(missing_ok=True)
    raise UserError(f"could not save the {what} to {output}, nor beside it or in the temporary directory "
                    f"({'; '.join(errors)}); nothing was kept: free space on that disk, or give -o a path on "
                    "another one, and run again")


def _reason(exc: BaseException) -> str:
    """Why a save failed, in a few words: ``No space left on device`` (the path is named around it)."""
    if isinstance(exc, OSError) and exc.errno:
        return os.strerror(exc.errno)
    return one_line(exc)
