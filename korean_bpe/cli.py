"""The ``korean-bpe`` command: thin subcommands over the public API.

::

    korean-bpe train [CORPUS] --vocab-size 8000 --pre-tokenizer okt --unit jamo -o model/
    korean-bpe count [CORPUS] --pre-tokenizer okt -o counts.tsv           (word counts, once)
    korean-bpe count FILE... --pre-tokenizer okt --scheduler tcp://host:8786 -o counts.tsv   (on Dask; or 'local')
    korean-bpe train --counts counts.tsv --vocab-size 8000 --unit jamo -o model/   (same model)
    korean-bpe encode -m model/ "스파이더맨 파프롬홈은 MCU 최고의 영화이다"      (or < file, one text a line)
    korean-bpe encode -m model/ --ids < reviews.txt
    korean-bpe encode -m model/ --dropout 0.1 --seed 0 < reviews.txt          (BPE-dropout)
    korean-bpe encode -m model/ --offsets "영화 정말 재밌다"                  (▁영화@0:2 ▁정말@2:5 ...)
    korean-bpe decode -m model/ "5 812 97"                                   (or < ids.txt)
    korean-bpe export-hf -m model/ -o tokenizer.json                        (-o - : standard output)
    korean-bpe export-hf -m model/ -o hf-tokenizer/                         (a folder for AutoTokenizer;
                                                   okt/kiwi/mecab: KoreanBPETokenizerFast's, which runs the analyzer)
    korean-bpe export-hf -m model/ -o tokenizer.json --dropout 0.1          (HF BPE dropout)
    korean-bpe cache list | korean-bpe cache clear [okt]
    korean-bpe compare [CORPUS] [--eval FILE] --vocab-sizes 4000,8000 -o results/    (report.html, table.csv, *.png)

``encode`` and ``decode`` write a character standard output cannot encode (a lone surrogate,
U+D800..U+DFFF, which a model keeps but UTF-8 cannot hold) as its ``\\udXXX`` escape (Python's
``backslashreplace``): the output stays one valid UTF-8 line per text.

CORPUS is a text file (one document a line), an NSMC-format TSV, or ``-`` for standard input; the
default is the corpus embedded in konlpy (no download).  User mistakes (a missing file, text that is
not UTF-8, an empty corpus, a corrupted model directory, a missing analyzer or Java) print one line
``korean-bpe: error: ...`` on standard error and exit with status 1; ``--verbose`` (or
``KOREAN_BPE_DEBUG=1``) shows the traceback instead.

Importing this module imports no analyzer, pandas or tokenizers: each subcommand imports what it uses.
"""

from __future__ import annotations

import argparse
import functools
import os
import re
import sys
import time
import warnings
from collections.abc import Callable, Iterator, Sequence
from pathlib import Path
from typing import Any, BinaryIO, NoReturn

from . import __version__
from ._messages import one_line
from .compare.result import MAX_RESAMPLES, MAX_SEED

__all__ = ["main", "build_parser", "check_model_output", "speak_cli", "CLI_OPTIONS"]

PROG = "korean-bpe"


def _stage_choices() -> tuple[list[str], list[str], dict[str, str | None]]:
    """The names the registries know (pre-tokenizers, units; markers by name and by text)."""
    from .markers import MARKERS
    from .pre_tokenizers import PRE_TOKENIZERS
    from .units import UNITS

    markers: dict[str, str | None] = {}
    for name in MARKERS.names():
        text = MARKERS.build(name).text
        markers[name] = text
        if text is not None:
            markers[text] = text
    return PRE_TOKENIZERS.names(), UNITS.names(), markers


PRE_TOKENIZER_NAMES, UNIT_NAMES, MARKER_NAMES = _stage_choices()


class UserError(Exception):
    """A mistake the user can fix; printed as one line, without traceback."""


class _Parser(argparse.ArgumentParser):
    """argparse, but a usage mistake is one line on stderr (exit status 2), pointing at ``--help``."""

    def error(self, message: str) -> NoReturn:
        self.exit(2, f"{PROG}: error: {' '.join(message.split())} (see '{self.prog} --help')\n")


def compare_legend(alpha: float = 0.05) -> str:
    """What the short headers and marks of the ``compare`` table mean (printed under the table and
    in ``--help``), from :data:`korean_bpe.compare.columns.TABLE`."""
    from .compare.columns import legend
    from .compare.table import marks_legend

    return ("columns of the printed table, measured on the held-out documents (table.csv names in brackets;\n"
            "report.md and report.html define every column), rates in percent:\n" + legend() +
            "\nmarks:\n" + marks_legend(alpha))


#: how ``encode`` and ``decode`` write what standard output cannot encode (their ``--help``)
UNENCODABLE_HELP = ("A token or text holding a character standard output cannot encode, such as a lone "
                    "surrogate (U+D800..U+DFFF: a model keeps them, UTF-8 cannot hold them), is written with "
                    "that character as a \\udXXX escape (Python's backslashreplace), and a line break (\\n, \\r, "
                    "\\x0b, \\x0c, \\x1c..\\x1e, \\x85, \\u2028, \\u2029: a raw model keeps them as tokens) "
                    "as its Python escape, so the output stays valid UTF-8, one line per input; a literal backslash in "
                    "the text is written as it is.")

#: the largest vocabulary size ``korean-bpe compare`` trains: its Hugging Face and Kiwi peers allocate
#: memory for every token asked for (HF's trainer some 66 bytes a token: 141 GB at 2**31), so a
#: typing slip of a few digits must fail at once, not after a crash; our own BPE takes any size
COMPARE_MAX_VOCAB_SIZE = 2**20
#: the vocabulary sizes of ``korean-bpe compare`` when none are given
COMPARE_VOCAB_SIZES = (4000, 8000, 16000)
#: the defaults on the small embedded corpus (``make demo``, under a minute on 2 cores): 2,480 lines
#: run out of merges above a few thousand tokens and hold 550 distinct characters (a syllable
#: vocabulary needs more), and the two Kiwi peers, which spend some 8 s per size starting their
#: trainer whatever the corpus, are left out (``--strategies peer`` or ``all`` names them)
COMPARE_VOCAB_SIZES_EMBEDDED = (1000, 2000)
COMPARE_SLOW_PEERS = ("kiwi-bpe", "kiwi-swtokenizer")

#: the top-level help's examples (each command's own help has its options)
EXAMPLES = """examples:
  korean-bpe train reviews.txt --vocab-size 8000 --pre-tokenizer okt --unit jamo -o model/
  korean-bpe encode -m model/ "스파이더맨 봤는데 쩔어"      # tokens; --ids for ids, --offsets for spans
  korean-bpe decode -m model/ < ids.txt
  korean-bpe export-hf -m model/ -o tokenizer.json
  korean-bpe compare -o results/                         # every strategy on the embedded corpus: a report
  korean-bpe COMMAND --help                              # the options of one command"""

# --- parser -----------------------------------------------------------------------------------


def build_parser() -> argparse.ArgumentParser:
    """The full ``korean-bpe`` parser (one small function per subcommand)."""
    parser = _Parser(
        prog=PROG,
        description="Korean-aware BPE: train, apply, export and compare tokenizers.",
        epilog=EXAMPLES, formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    parser.add_argument("--version", action="version", version=f"%(prog)s {__version__}")
    parser.add_argument("-v", "--verbose", action="store_true",
                        help="show the full traceback on errors (also: KOREAN_BPE_DEBUG=1)")
    sub = parser.add_subparsers(dest="command", metavar="COMMAND")
    sub.required = True
    for add in (_add_train, _add_count, _add_encode, _add_decode, _add_export_hf, _add_cache, _add_compare):
        add(sub)
    return parser


def _corpus_arg(p: argparse.ArgumentParser) -> None:
    p.add_argument("corpus", nargs="?", default=None, metavar="CORPUS",
                   help="text file (one document a line), NSMC-format TSV, or '-' for stdin "
                        "(default: the corpus embedded in konlpy)")
    p.add_argument("--limit", type=_positive_int, default=None, metavar="N", help="read at most N documents")


def _model_arg(p: argparse.ArgumentParser) -> None:
    p.add_argument("-m", "--model", required=True, metavar="DIR", help="a model directory written by 'train'")


def _add_train(sub: Any) -> None:
    p = sub.add_parser("train", help="train a tokenizer and save it to a directory",
                       description="Train a BPE tokenizer on CORPUS and save it (vocab.json, merges.txt, "
                                   "tokenizer_config.json).")
    _corpus_arg(p)
    p.add_argument("--counts", default=None, metavar="FILE",
                   help="train from word counts written by 'korean-bpe count' instead of CORPUS (the same model; "
                        "the pre-tokenizer is the one the counts were made with)")
    p.add_argument("--vocab-size", type=_positive_int, default=8000, metavar="N",
                   help="special tokens + alphabet + merges (default: 8000)")
    _pre_tokenizer_args(p, initial=True)
    p.add_argument("--unit", choices=UNIT_NAMES, default=None,
                   help="symbols BPE starts from (default: syllable; with --initial, its own)")
    p.add_argument("--marker", choices=tuple(MARKER_NAMES), default=None,
                   help="word-boundary marker ('space' is ▁; default: ▁ for whitespace and analysis "
                        "mode, none for raw and --lossless)")
    p.add_argument("--min-frequency", type=_positive_int, default=2, metavar="N",
                   help="stop merging below this pair count (default: 2)")
    p.add_argument("--limit-alphabet", type=_positive_int, default=None, metavar="N",
                   help="keep only the N most frequent symbols (the rest: <unk> or byte fallback)")
    p.add_argument("--max-token-length", type=_positive_int, default=None, metavar="N",
                   help="no token longer than N symbols (characters, jamo or bytes; the ▁ marker counts one)")
    p.add_argument("--superword-transition", type=_positive_int, default=None, metavar="T",
                   help="SuperBPE: merges stay inside words up to T tokens, then cross spaces (one piece a line)")
    p.add_argument("--superword-max-words", type=_positive_int, default=4, metavar="N",
                   help="with --superword-transition: at most N word starts (▁) a token (default: 4)")
    p.add_argument("--byte-fallback", action="store_true", help="unknown symbols become <0x..> byte tokens")
    p.add_argument("--hangul-fallback", action="store_true",
                   help="add the 67 conjoining jamo to the vocabulary; unknown syllables become jamo tokens")
    p.add_argument("--initial", default=None, metavar="MODEL_DIR",
                   help="continue training this model: its ids and merges are kept, new merges are learned from "
                        "CORPUS up to --vocab-size (old tokens included)")
    p.add_argument("-o", "--output", required=True, metavar="DIR",
                   help="directory to write the model to ('-' is refused: a model is three files)")
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
    p.add_argument("--limit", type=_positive_int, default=None, metavar="N", help="read at most N documents")
    _pre_tokenizer_args(p)
    p.add_argument("-o", "--output", required=True, metavar="FILE",
                   help="file to write the counts to; '-' for standard output")
    p.add_argument("--scheduler", default=None, metavar="ADDRESS",
                   help="count on Dask: a scheduler address (tcp://host:8786), or 'local' for one worker process per "
                        "core on this machine; the files are cut into shards counted in parallel, same counts "
                        "(needs: pip install \"korean_bpe[distributed]\")")
    p.add_argument("--shard-mb", type=_positive_int, default=None, metavar="N",
                   help="with --scheduler: MiB of a file per task (default: 64)")
    p.add_argument("--no-progress", action="store_true", help="no progress bars")
    p.set_defaults(func=cmd_count)


def _add_encode(sub: Any) -> None:
    p = sub.add_parser("encode", help="print the tokens (or ids) of texts",
                       description="Encode TEXT, or each line of standard input; one output line per text. "
                                   + UNENCODABLE_HELP)
    _model_arg(p)
    p.add_argument("text", nargs="*", metavar="TEXT", help="texts to encode (default: read stdin, one a line)")
    p.add_argument("--ids", action="store_true", help="print token ids instead of tokens")
    p.add_argument("--offsets", action="store_true",
                   help="follow each token (or id) with @START:END, its character span in the text")
    p.add_argument("--dropout", type=_probability, default=None, metavar="P",
                   help="BPE-dropout: skip each merge with probability P (default: 0, the usual encoding)")
    p.add_argument("--seed", type=int, default=None, metavar="S",
                   help="with --dropout: text k (from 1) is encoded with seed S+k-1, so a rerun prints the same "
                        "(default: fresh draws)")
    p.add_argument("--special-text", action="store_true",
                   help="encode text that spells a special token (<unk>, <0x41>) as ordinary characters "
                        "(default: refuse it; text never becomes a special token)")
    p.set_defaults(func=cmd_encode)


def _add_decode(sub: Any) -> None:
    p = sub.add_parser("decode", help="turn token ids back into text",
                       description="Decode IDS (space- or comma-separated), or each line of standard input; "
                                   "one output line per sequence. " + UNENCODABLE_HELP)
    _model_arg(p)
    p.add_argument("ids", nargs="*", metavar="IDS", help="token ids (default: read stdin, one sequence a line)")
    p.add_argument("--skip-special-tokens", action="store_true", help="leave out <unk> and other special tokens")
    p.set_defaults(func=cmd_decode)


def _add_export_hf(sub: Any) -> None:
    p = sub.add_parser("export-hf", help="write a Hugging Face tokenizer.json or tokenizer folder",
                       description="Write a tokenizer.json that tokenizers and transformers load with the same ids; "
                                   "to a directory (DIR/), a complete folder for AutoTokenizer.from_pretrained(DIR). "
                                   "A model whose pre-tokenizer runs an analyzer (okt, kiwi, mecab) gets the folder of "
                                   "korean_bpe.hf.KoreanBPETokenizerFast instead, which runs it (no HF client can).")
    _model_arg(p)
    p.add_argument("-o", "--output", required=True, metavar="PATH",
                   help="file to write, or a directory (existing, or written DIR/) that gets tokenizer.json, "
                        "tokenizer_config.json and special_tokens_map.json; '-' for standard output. A symbolic "
                        "link is written through to its target; FIFOs and devices are refused")
    p.add_argument("--dropout", type=_probability, default=None, metavar="P",
                   help="write HF BPE's dropout P (0 < P <= 1; default: none)")
    p.add_argument("--pretokenized", action="store_true",
                   help="okt, kiwi, mecab models: a stock tokenizer.json for the words of our analysis "
                        "(encode(words, is_pretokenized=True)); without it such a model is written to -o DIR/ as "
                        "the folder of korean_bpe.hf.KoreanBPETokenizerFast, which runs the analysis")
    p.set_defaults(func=cmd_export_hf)


def _add_cache(sub: Any) -> None:
    p = sub.add_parser("cache", help="list or clear the analyzer caches and compare's trained models",
                       description="The on-disk morpheme-analysis caches and the trained models of "
                                   "`korean-bpe compare` (models/ beside them; KOREAN_BPE_CACHE_DIR overrides the place).")
    csub = p.add_subparsers(dest="cache_command", metavar="ACTION")
    csub.required = True
    ls = csub.add_parser("list", help="list the caches")
    ls.set_defaults(func=cmd_cache_list)
    clear = csub.add_parser("clear", help="delete one cache, or all")
    clear.add_argument("name", nargs="?", default=None, help="okt, kiwi, mecab, or models (compare's trained models); default: every cache")
    clear.set_defaults(func=cmd_cache_clear)


def _downstream_defaults() -> Any:
    """``Downstream()``, whose fields the compare options' defaults show (its module imports no torch)."""
    from .compare.downstream import Downstream

    return Downstream()


_DOWNSTREAM = _downstream_defaults()


def _add_compare(sub: Any) -> None:
    p = sub.add_parser(
        "compare", help="compare tokenization strategies on held-out text and write a report",
        description="Train every tokenization strategy (our BPE over each pre-tokenizer x unit, kortok-style\n"
                    "baselines, SentencePiece / HF / Kiwi peers) on CORPUS and measure it on held-out text\n"
                    "(korean_bpe.compare.compare). Prints the table and writes DIR/table.csv, report.md,\n"
                    "report.html (one self-contained page) and the plots (*.png). A missing analyzer or\n"
                    "peer library is skipped with a note.",
        epilog=compare_legend(), formatter_class=argparse.RawDescriptionHelpFormatter)
    _corpus_arg(p)
    p.add_argument("--eval", default=None, metavar="FILE",
                   help="measure on FILE (text or NSMC-format TSV) and train on all of CORPUS "
                        "(default: hold out --test-fraction of CORPUS)")
    p.add_argument("-o", "--output", default="results", metavar="DIR",
                   help="directory for table.csv, report.md, report.html and the PNGs (default: results)")
    p.add_argument("--strategies", type=_strategy_list, default=None, metavar="LIST",
                   help="comma-separated strategy names or families: bpe, baseline, peer, a pre-tokenizer "
                        "(whitespace, raw, okt-analysis, okt, kiwi, mecab) or names such as okt/jamo, "
                        "baseline/word, sentencepiece-unigram; 'all' for every one (default: all; on the "
                        "embedded corpus all but the Kiwi peers, which take 8 s a size to start); outside 'all', "
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
    p.add_argument("--downstream-seeds", type=_positive_int, default=_DOWNSTREAM.seeds, metavar="N",
                   help=f"models trained per row (default: {_DOWNSTREAM.seeds})")
    p.add_argument("--downstream-docs", type=_docs_or_all, default=_DOWNSTREAM.train_docs, metavar="N",
                   help="training documents of the downstream models: a seeded sample of N, or 'all' "
                        f"(default: {_DOWNSTREAM.train_docs})")
    p.add_argument("--downstream-epochs", type=_positive_int, default=_DOWNSTREAM.epochs, metavar="N",
                   help=f"passes over them (default: {_DOWNSTREAM.epochs})")
    p.add_argument("--device", choices=("auto", "cpu", "cuda"), default="auto",
                   help="where the downstream models train: auto (a GPU when torch sees one), cpu or cuda")
    p.add_argument("--csv", default=None, metavar="PATH",
                   help="also write the table to PATH; '-' for standard output (the printed table then goes to "
                        "standard error)")
    p.add_argument("--jobs", type=_positive_int, default=None, metavar="N",
                   help="worker processes, each running groups of strategies (an analyzer's rows, a peer); "
                        "same table and report whatever N (default: the number of CPUs, at most one per "
                        "group; 1, all in this process, on the small embedded corpus, where starting the "
                        "analyzers in each worker costs more than its rows)")
    p.add_argument("--no-model-cache", action="store_true",
                   help="train every model again and keep none (default: trained models are kept in "
                        "models/ under the analysis cache's directory and read back on a rerun on the same "
                        "texts, strategy, size and seed)")
    p.add_argument("--no-progress", action="store_true", help="no progress bar")
    p.set_defaults(func=cmd_compare)


def _docs_or_all(value: str) -> int | None:
    """An argparse type: ``all`` (None) or an integer >= 2."""
    if value.strip().lower() == "all":
        return None
    return _int_at_least(2, "a number of documents (or 'all')")(value)


def _int_at_least(low: int, what: str, high: int | None = None) -> Any:
    """An argparse type: an integer >= ``low`` (and <= ``high``; ``what`` names it in the error)."""

    def parse(value: str) -> int:
        try:
            n = int(value)
        except ValueError:
            n = low - 1
        if n < low or (high is not None and n > high):
            raise argparse.ArgumentTypeError(f"expected {what}, got {value!r}")
        return n

    return parse


_nonnegative_int = _int_at_least(0, "an integer >= 0")
_positive_int = _int_at_least(1, "a positive integer")
#: compare's seed: the split, the bootstrap and scikit-learn's probe take 0 .. 2**32 - 1
_compare_seed = _int_at_least(0, f"an integer from 0 to {MAX_SEED} (it seeds the split, the bootstrap and the probe)",
                              MAX_SEED)
_resamples = _int_at_least(0, f"an integer from 0 to {MAX_RESAMPLES:,} (0: no intervals)", MAX_RESAMPLES)


def _strategy_list(value: str) -> list[str]:
    names = [v.strip() for v in value.split(",") if v.strip()]
    if not names:
        raise argparse.ArgumentTypeError(f"expected comma-separated strategy names, got {value!r}")
    return names


def _probability(value: str) -> float:
    try:
        p = float(value)
    except ValueError:
        raise argparse.ArgumentTypeError(f"expected a probability between 0 and 1, got {value!r}") from None
    if not 0.0 <= p <= 1.0:
        raise argparse.ArgumentTypeError(f"expected a probability between 0 and 1, got {value!r}")
    return p


def _vocab_sizes(value: str) -> list[int]:
    sizes = [_positive_int(v.strip()) for v in value.split(",") if v.strip()]
    for n in sizes:
        if n > COMPARE_MAX_VOCAB_SIZE:
            raise argparse.ArgumentTypeError(
                f"{n} is larger than compare trains: its Hugging Face and Kiwi peers allocate memory for every token "
                f"asked for; give sizes of at most {COMPARE_MAX_VOCAB_SIZE} (a corpus runs out of merges long before)")
    return sizes


# --- commands ---------------------------------------------------------------------------------


def pipeline_name(pre_tokenizer: dict[str, Any], unit: str) -> str:
    """A pipeline's one name, as ``korean-bpe compare`` and its report write it: an analyzer in
    analysis mode is ``NAME-analysis``, in lossless mode ``NAME``.

    >>> pipeline_name({"type": "okt", "lossless": False}, "jamo"), pipeline_name({"type": "okt", "lossless": True}, "jamo")
    ('okt-analysis/jamo', 'okt/jamo')
    >>> pipeline_name({"type": "whitespace"}, "syllable")
    'whitespace/syllable'
    >>> pipeline_name({"type": "morpheme_boundaries", "analyzer": "kiwi", "base": "raw"}, "jamo")
    'kiwi-train/jamo'
    >>> pipeline_name({"type": "mob", "analyzer": "mecab"}, "syllable"), pipeline_name({"type": "mob", "analyzer": "kiwi"}, "byte")
    ('mob/syllable', 'mob-kiwi/byte')
    """
    name = str(pre_tokenizer["type"])
    if name == "morpheme_boundaries":
        return f"{pre_tokenizer['analyzer']}-train/{unit}"
    if name == "mob":
        return f"mob/{unit}" if pre_tokenizer.get("analyzer", "mecab") == "mecab" else f"mob-{pre_tokenizer['analyzer']}/{unit}"
    analysis = "lossless" in pre_tokenizer and not pre_tokenizer["lossless"]
    return f"{name}{'-analysis' if analysis else ''}/{unit}"


def _pre_tokenizer(args: argparse.Namespace) -> Any:
    """The pre-tokenizer of --pre-tokenizer and --lossless (default: whitespace)."""
    from .pre_tokenizers import get_pre_tokenizer

    name = args.pre_tokenizer or ("raw" if getattr(args, "morpheme_boundaries", None) else "whitespace")
    if getattr(args, "morpheme_boundaries", None):
        if name not in ("raw", "whitespace") or args.lossless:
            raise UserError(f"--morpheme-boundaries cuts the words of --pre-tokenizer raw or whitespace, not "
                            f"'{name}'{' --lossless' if args.lossless else ''}: leave --pre-tokenizer out (raw)")
        return get_pre_tokenizer({"type": "morpheme_boundaries", "analyzer": args.morpheme_boundaries, "base": name})
    options: dict[str, Any] = {}
    if args.lossless:
        if name in ("whitespace", "raw"):
            raise UserError(f"--lossless is for the morpheme pre-tokenizers (okt, kiwi, mecab); "
                            f"'{name}' has no such mode ('raw' is already lossless)")
        options = {"lossless": True, "drop": ()}
    return get_pre_tokenizer(name, **options)


def cmd_count(args: argparse.Namespace) -> int:
    from itertools import chain, islice

    from .corpus import default_corpus_paths, iter_texts
    from .counting import WordCounts
    from .files import check_output_file

    if args.output != STDOUT:
        check_output_file(args.output)  # before hours of counting, not after
    inputs = [(f"FILE {k}" if len(args.corpus) > 1 else "the corpus", c) for k, c in enumerate(args.corpus, 1)]
    _refuse_stdin_twice(inputs)
    _refuse_overwriting("-o/--output", [args.output], inputs or [("the corpus", p) for p in default_corpus_paths()],
                        "give another file for the counts")
    if args.shard_mb is not None and args.scheduler is None:
        raise UserError("--shard-mb sizes the shards of --scheduler; without it the files are counted here, line by "
                        "line: leave --shard-mb out, or add --scheduler local")
    pt = _pre_tokenizer(args)
    show = False if args.no_progress else None
    start = time.perf_counter()
    if args.scheduler is not None:
        from .distributed import SHARD_BYTES, count_files

        if "-" in args.corpus or args.limit is not None:
            raise UserError("--scheduler counts whole files: give file paths, without '-' (stdin) or --limit")
        counts = count_files(args.corpus or default_corpus_paths(), pre_tokenizer=pt, scheduler=args.scheduler,
                             shard_bytes=SHARD_BYTES if args.shard_mb is None else args.shard_mb * 2**20,
                             show_progress=show)
    else:
        sources = [iter_texts(c) for c in args.corpus] if args.corpus else [iter_texts(None)]
        texts = chain.from_iterable(sources)  # one file after the other, line by line: never all in memory
        counts = WordCounts.from_texts(texts if args.limit is None else islice(texts, args.limit), pre_tokenizer=pt,
                                       show_progress=show)
    if not len(counts):
        raise UserError(f"no words to count: the pre-tokenizer {pt!r} gave no word for any document")
    if args.output == STDOUT:
        sys.stdout.write(counts.to_text())
    else:
        counts.save(args.output)
    _info(f"counted {len(counts):,} distinct words ({counts.total:,} occurrences, {pt!r}) in "
          f"{time.perf_counter() - start:.1f} s; " + ("written to standard output" if args.output == STDOUT else
                                                        f"saved to {args.output}"))
    return 0


def cmd_train(args: argparse.Namespace) -> int:
    from .corpus import iter_texts
    from .io.serialization import FILES
    from .tokenizer import Tokenizer

    _no_stdout("-o/--output", args.output, "a model (vocab.json, merges.txt, tokenizer_config.json)",
               "export-hf -m DIR -o - writes a trained model's tokenizer.json to standard output")
    check_model_output(args.output)  # before hours of training, not after
    _refuse_overwriting("-o/--output", [args.output, *(os.path.join(args.output, f) for f in FILES)],
                        [("the corpus", args.corpus), ("the --counts file", args.counts),
                         ("the --initial model", args.initial)], "save the model to another directory")
    kw: dict[str, Any] = {}
    if args.initial is not None:
        if args.counts is not None:
            raise UserError("--initial continues training on CORPUS; it cannot take --counts (train from the counts "
                            "without --initial, or give the corpus)")
        kw["initial"] = initial = _load(args.initial)
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
        from .counting import WordCounts

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
        tok = Tokenizer.train_from_counts(counts, pre_tokenizer=given, **options)
        source = f"{pipeline_name(counts.pre_tokenizer_config, args.unit)} from {args.counts}"
    else:
        pt = kw.pop("pre_tokenizer", None) or _pre_tokenizer(args)
        options.pop("pre_tokenizer", None)
        if args.superword_transition is not None:  # SuperBPE cuts lines itself: raw without split_by_whitespace
            if args.pre_tokenizer is not None or args.initial is not None:
                raise UserError("--superword-transition trains a new model on whole lines: leave out --pre-tokenizer "
                                "and --initial")
            pt = {"type": "raw", "split_by_whitespace": False}
            options.update(superword_transition=args.superword_transition,
                           superword_max_words=args.superword_max_words)
        tok = Tokenizer.train(iter_texts(args.corpus, limit=args.limit), pre_tokenizer=pt, **options)
        source = f"superbpe/{args.unit}" if args.superword_transition is not None else \
            pipeline_name(pt.to_config(), args.unit)
    try:
        out = tok.save(args.output)
    except (OSError, ValueError) as exc:  # the disk filled up, the place changed meanwhile: keep the model
        beside = _save_beside(tok, args.output)
        move = (f"mv {beside} {args.output}" if not os.path.lexists(args.output)
                else f"mv {beside}/* {args.output}/ once {args.output} can be written")
        raise UserError(f"could not save the model to {args.output} ({one_line(exc)}); the trained model was saved "
                        f"to {beside} instead: move it into place with {move}") from None
    added = "" if args.initial is None else f" ({tok.vocab_size - kw['initial'].vocab_size} new tokens after {args.initial})"
    _info(f"trained {source}: {tok.vocab_size} tokens{added}, {len(tok.model.merges)} merges "
          f"in {time.perf_counter() - start:.1f} s; saved to {out}")
    return 0


def _check_initial(args: argparse.Namespace, initial: Any) -> None:
    """Refuse, in the command line's words, the train options that --initial fixes (the API's own
    check names its arguments): continued training keeps the initial model's pipeline."""
    from .units import get_unit

    for option, value in (("--limit-alphabet", args.limit_alphabet), ("--max-token-length", args.max_token_length)):
        if value is not None:
            raise UserError(f"{option} cannot be used with --initial: continued training keeps the initial alphabet "
                            f"and counts an old merged token as one symbol; leave {option} out")
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


def cmd_encode(args: argparse.Namespace) -> int:
    if args.seed is not None and args.dropout is None:
        raise UserError("--seed draws the merges BPE-dropout skips; without --dropout P nothing is drawn: leave --seed "
                        "out, or add --dropout 0.1")
    args.dropout = args.dropout or 0.0
    tok = _load(args.model)
    from .tokenizer import SpecialTokenTextError

    texts = args.text if args.text else _stdin_lines()
    write = _stdout_writer()
    disallowed: Any = () if args.special_text else "all"
    for k, text in enumerate(texts, 1):
        seed = None if args.seed is None else args.seed + k - 1
        try:
            if args.offsets:
                ids, offsets = tok.encode_with_offsets(text, disallowed_special=disallowed, dropout=args.dropout, seed=seed)
            else:
                ids = tok.encode(text, disallowed_special=disallowed, dropout=args.dropout, seed=seed)
        except SpecialTokenTextError as exc:
            where = f"argument {k}" if args.text else f"<stdin> line {k}"
            raise UserError(f"{where} holds {exc.token!r}, the text of a special token, at offset {exc.offset}; "
                            "pass --special-text to encode it as ordinary characters") from None
        shown = list(map(str, ids)) if args.ids else [_escape_line_breaks(tok.id_to_token[i]) for i in ids]
        if args.offsets:
            shown = [f"{t}@{a}:{b}" for t, (a, b) in zip(shown, offsets)]
        write(" ".join(shown) + "\n")
    return 0


def cmd_decode(args: argparse.Namespace) -> int:
    tok = _load(args.model)
    lines: Any = [" ".join(args.ids)] if args.ids else _stdin_lines()
    write = _stdout_writer()
    for lineno, line in enumerate(lines, 1):
        where = "the arguments" if args.ids else f"<stdin> line {lineno}"
        ids = _parse_ids(line, where)
        try:
            text = tok.decode(ids, skip_special_tokens=args.skip_special_tokens)
        except ValueError as exc:
            raise UserError(f"{where}: {exc}") from None
        write(_escape_line_breaks(text) + "\n")
    return 0


def cmd_export_hf(args: argparse.Namespace) -> int:
    from .files import NotRegularFileError
    from .io.hf import (SPECIAL_TOKENS_MAP_FILE, TOKENIZER_CONFIG_FILE, TOKENIZER_FILE, analysis_refusal,
                        export_tokenizer_json, holds_model, is_folder, render_tokenizer_json)
    from .io.serialization import FILES

    folder = args.output != STDOUT and is_folder(args.output) and not holds_model(args.output)
    if args.output != STDOUT:  # a folder gets three files (a model's directory: tokenizer.json beside the model)
        targets = ([os.path.join(args.output, f) for f in (TOKENIZER_FILE, TOKENIZER_CONFIG_FILE, SPECIAL_TOKENS_MAP_FILE)]
                   if folder else [os.path.join(args.output, TOKENIZER_FILE) if is_folder(args.output) else args.output])
        _refuse_overwriting("-o/--output", targets, [(f"the model's {f}", os.path.join(args.model, f)) for f in FILES],
                            f"give another path, such as {os.path.join(args.model, 'tokenizer.json')} or a folder "
                            "of its own")
    tok = _load(args.model)
    if args.dropout == 0.0:
        raise UserError("argument --dropout: HF's BPE refuses dropout 0; leave --dropout out for no dropout")
    if tok.pre_tokenizer.pos is not None and not args.pretokenized:  # an analyzer: no HF client runs it
        if not folder:
            raise UserError(f"{speak_cli(analysis_refusal(tok), 'export-hf')} (-o DIR/, a folder of its own, gets "
                            "that folder)")
        return _export_wrapper(tok, args)
    if args.output == STDOUT:
        sys.stdout.write(render_tokenizer_json(tok, dropout=args.dropout, pretokenized=args.pretokenized))
        return 0
    try:
        path = export_tokenizer_json(tok, args.output, dropout=args.dropout, pretokenized=args.pretokenized)
    except NotRegularFileError as exc:
        raise UserError(f"argument -o/--output: {exc}, or -o - for standard output") from None
    words = " (for analysed words: encode(words, is_pretokenized=True))" if args.pretokenized else ""
    if folder:
        _info(f"wrote {path.parent}/: tokenizer.json, tokenizer_config.json, special_tokens_map.json{words} (load it "
              f"with transformers.AutoTokenizer.from_pretrained({str(path.parent)!r}))")
    else:
        _info(f"wrote {path}{words} (load it with tokenizers.Tokenizer.from_file or "
              "transformers.PreTrainedTokenizerFast(tokenizer_file=...))")
    return 0


def _export_wrapper(tok: Any, args: argparse.Namespace) -> int:
    """export-hf of a model whose pre-tokenizer runs an analyzer: the folder of
    :class:`korean_bpe.hf.KoreanBPETokenizerFast`, which runs it (``save_pretrained``)."""
    from .io.hf import special_tokens_map

    if args.dropout is not None:
        raise UserError("argument --dropout: this model's folder encodes with korean_bpe itself (its analyzer runs "
                        "in Python), which has no HF BPE dropout; leave --dropout out, or use "
                        "Tokenizer.encode(text, dropout=P) for BPE-dropout")
    from .hf import KoreanBPETokenizerFast

    roles = {k: v for k, v in special_tokens_map(tok).items() if k != "additional_special_tokens"}
    KoreanBPETokenizerFast.from_korean_bpe(tok, **roles).save_pretrained(args.output)
    name = tok.pre_tokenizer.to_config()["type"]
    _info(f"wrote {args.output.rstrip('/')}/ for korean_bpe.hf.KoreanBPETokenizerFast, which runs the {name} analysis "
          f"(no Hugging Face client can; a stock tokenizer.json would give other ids): load it with "
          f"KoreanBPETokenizerFast.from_pretrained({args.output!r}) or transformers.AutoTokenizer.from_pretrained("
          f"{args.output!r}, trust_remote_code=True), korean_bpe installed")
    return 0


def cmd_cache_list(args: argparse.Namespace) -> int:
    from .compare.model_cache import ModelCache
    from .pre_tokenizers.cache import cache_dir, list_caches, moved_aside

    infos = list_caches()
    aside = moved_aside()
    print(f"cache directory: {cache_dir()}")
    if not infos and not aside:
        print("(no caches)")
    for info in infos:
        entries = info.problem.split(":")[0] if info.entries < 0 else f"{info.entries} entries"
        moves = "an analysis that reads the damaged entry moves it aside and starts anew; or " \
            if info.problem.startswith("corrupt") else ""
        fix = f"  ({info.problem}; {moves}remove it with: korean-bpe cache clear {info.name})" if info.problem else ""
        print(f"{info.name:<12} {entries:>18} {info.bytes / 1e6:10.1f} MB  {info.path}{fix}")
    for path in aside:
        print(f"{path.name.split('.')[0]:<12} {'moved aside':>18} {path.stat().st_size / 1e6:10.1f} MB  {path}  (found "
              f"corrupt and replaced by a new cache; kept for inspection: korean-bpe cache clear removes it)")
    models = ModelCache()
    files = models.entries()
    if files:
        size = sum(f.stat().st_size for f in files)
        print(f"{'models':<12} {f'{len(files)} entries':>18} {size / 1e6:10.1f} MB  {models.directory}"
              "  (compare's trained models)")
    return 0


def cmd_cache_clear(args: argparse.Namespace) -> int:
    from .compare.model_cache import ModelCache
    from .pre_tokenizers.cache import clear_cache

    n = 0 if args.name == "models" else clear_cache(args.name)
    if args.name in (None, "models"):
        n += ModelCache().clear()
    print(f"removed {n} cached entries" + (f" from '{args.name}'" if args.name else ""))
    return 0


def cmd_compare(args: argparse.Namespace) -> int:
    from .compare.report import check_output_dir

    # every output is checked before the corpus is read: a bad place fails in a second, not after the run
    if not 0 < args.test_fraction < 1:
        raise UserError(f"--test-fraction must be between 0 and 1, got {args.test_fraction}")
    _no_stdout("-o/--output", args.output, "the report (table.csv, report.md, report.html and the plots)",
               "--csv - writes the table to standard output")
    try:
        out_dir = check_output_dir(args.output)
    except ValueError as exc:
        raise UserError(f"argument -o/--output: {exc}") from None
    if args.csv is not None and args.csv != STDOUT:
        from .files import check_output_file

        try:
            check_output_file(args.csv)
        except ValueError as exc:
            raise UserError(f"argument --csv: {exc}") from None
    if args.eval is None and args.eval_labels is not None:
        raise UserError("--eval-labels needs --eval (without it the held-out labels come from --labels)")
    _check_compare_files(args, out_dir)

    from .compare.report import pick_sentences
    from .compare.run import compare, resolve_strategies
    from .compare.table import format_downstream, format_intervals, format_table
    from .compare.verdict import format_verdicts

    # an unknown name or a bad statistics option fails before the corpus is read
    strategies = resolve_strategies(None if args.strategies == ["all"] else args.strategies)
    statistics = _compare_statistics(args)
    downstream = _compare_downstream(args)
    if args.corpus is None and args.strategies is None:
        strategies = [s for s in strategies if s not in COMPARE_SLOW_PEERS]
    if args.vocab_sizes is None:
        args.vocab_sizes = list(COMPARE_VOCAB_SIZES_EMBEDDED if args.corpus is None else COMPARE_VOCAB_SIZES)
    texts, labels = _documents(args.corpus, args.labels, "--labels", limit=args.limit)
    eval_texts, eval_labels = (None, None) if args.eval is None else \
        _documents(args.eval, args.eval_labels, "--eval-labels", limit=args.limit)
    if (labels is None) != (eval_labels is None) and args.eval is not None:
        _info("note: labels for only one of CORPUS and --eval: no probe_accuracy")
        labels = eval_labels = None
    if downstream is not None and labels is None:
        raise UserError("--downstream needs labels: give --labels FILE (one integer a line), or a corpus in NSMC "
                        "format (a TSV with a 'label' column); with --eval, --eval-labels too")
    held_out = _held_out(texts, eval_texts, args.test_fraction, args.seed)
    sentences = pick_sentences(held_out)
    start = time.perf_counter()
    result = compare(
        texts, eval_texts=eval_texts, labels=labels, eval_labels=eval_labels, strategies=strategies,
        vocab_sizes=args.vocab_sizes, gold=None if args.gold == "none" else args.gold, seed=args.seed,
        test_fraction=args.test_fraction, show_progress=False if args.no_progress else None,
        n_jobs=args.jobs or (1 if args.corpus is None else -1), pieces_texts=sentences + held_out[:1000],
        model_cache=not args.no_model_cache, statistics=statistics, downstream=downstream,
    )
    seconds = time.perf_counter() - start
    df = result.table
    for note in result.notes:
        _info(f"note: {speak_cli(note, 'compare')}")
    shown = sys.stderr if args.csv == STDOUT else sys.stdout  # --csv -: standard output holds the CSV alone
    print(format_table(df, alpha=statistics.alpha), file=shown)
    if df.empty:
        raise UserError("no strategy could be measured (see the notes above)")
    resamples = result.config["resamples"]
    if resamples and df["tokens_per_word_ci_low"].notna().any():
        print(f"\n{statistics.confidence:.0%} bootstrap intervals ({resamples:,} resamples of the held-out "
              f"documents, seed {args.seed}):\n{format_intervals(df)}", file=shown)
    if downstream is not None and format_downstream(df):
        import textwrap

        head = textwrap.fill(f"downstream: {downstream.describe()}, on {result.config['downstream']['device_used']}; "
                             "intervals over the held-out documents and the seeds:", 100)
        print(f"\n{head}\n{format_downstream(df, alpha=statistics.alpha)}", file=shown)
    if result.verdicts:
        print(f"\nverdict:\n{format_verdicts(result.verdicts, alpha=statistics.alpha)}", file=shown)
    print(f"\n{len(df)} rows: {int(df['train_docs'].iloc[0]):,} training / {int(df['test_docs'].iloc[0]):,} "
          f"held-out documents (seed {args.seed}), {seconds:.0f} s.\n{compare_legend(statistics.alpha)}", file=shown)
    result.notes = [speak_cli(n, "compare") for n in result.notes]
    written = result.write_report(out_dir, corpus=_compare_corpus(args, labels is not None, seconds),
                                  sentences=sentences, length_texts=held_out[:1000],
                                  command=["korean-bpe", *sys.argv[1:]])
    if args.csv == STDOUT:
        sys.stdout.write(df.to_csv(index=False))
    elif args.csv is not None:
        from .files import atomic_write_text

        atomic_write_text(args.csv, df.to_csv(index=False))
        _info(f"wrote {args.csv}")
    pngs = [name for name in written if name.endswith(".png")]
    _info(f"wrote {args.output.rstrip('/')}/: table.csv, report.md, report.html (open it in a browser: images embedded) "
          f"and {len(pngs)} plots ({', '.join(pngs)})")
    return 0


def _check_compare_files(args: argparse.Namespace, out_dir: Path) -> None:
    """Standard input read once, and no output over an input (--csv, or a file of the report)."""
    from .compare.report import PLOTS

    inputs = [("the corpus", args.corpus), ("the --eval file", args.eval), ("the --labels file", args.labels),
              ("the --eval-labels file", args.eval_labels)]
    _refuse_stdin_twice(inputs)
    if args.csv is not None:
        _refuse_overwriting("--csv", [args.csv], inputs, "give another file for the table")
    report = ["table.csv", "report.md", "report.html", *(name for name, *_ in PLOTS)]
    _refuse_overwriting("-o/--output", [out_dir / name for name in report], inputs,
                        "give another directory for the report")


def _compare_statistics(args: argparse.Namespace) -> Any:
    """The :class:`~korean_bpe.compare.result.Statistics` of ``--resamples``, ``--confidence``,
    ``--reference``; a bad one is a UserError naming the option."""
    from .compare.result import Statistics

    try:
        return Statistics(resamples=args.resamples, confidence=args.confidence, reference=args.reference)
    except ValueError as exc:
        raise UserError(str(exc).replace("resamples", "--resamples", 1).replace("confidence", "--confidence", 1)
                        .replace("reference=", "--reference ", 1)) from None


def _compare_downstream(args: argparse.Namespace) -> Any:
    """The :class:`~korean_bpe.compare.downstream.Downstream` of ``--downstream`` and its options, or
    None; PyTorch missing is a UserError with the install line, before any work."""
    if args.downstream is None:
        return None
    from .compare.downstream import Downstream, require_torch

    try:
        require_torch()
    except ImportError as exc:
        raise UserError(f"--downstream: {exc}") from None
    return Downstream(model=args.downstream, seeds=args.downstream_seeds, train_docs=args.downstream_docs,
                      epochs=args.downstream_epochs, device=args.device)


def _compare_corpus(args: argparse.Namespace, labelled: bool, seconds: float) -> dict[str, str]:
    """What the report says about the corpus: its paths as given on the command line."""
    return {
        "corpus": args.corpus or "the corpus embedded in konlpy (kolaw constitution + kobill bills)",
        "held-out documents from": args.eval or f"a seeded {args.test_fraction:.0%} of the corpus (seed {args.seed})",
        "labels": ("yes: probe_accuracy" + (" and downstream_accuracy" if args.downstream else "") + " measured")
        if labelled else "none (no probe_accuracy)",
        **({"downstream models": args.downstream} if args.downstream and labelled else {}),
        "vocabulary sizes": ", ".join(f"{v:,}" for v in sorted(set(args.vocab_sizes))),
        "gold analyzer": args.gold,
        "run time": f"{seconds:.0f} s",
    }


def _documents(source: str | None, labels_file: str | None, option: str, *,
               limit: int | None) -> tuple[list[str], list[int] | None]:
    """The documents of ``source`` and their labels: from ``labels_file`` (one integer a line), or
    from the ``label`` column of an NSMC-format TSV, or None."""
    from .corpus import iter_labelled, iter_texts

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


def _held_out(texts: list[str], eval_texts: list[str] | None, test_fraction: float, seed: int) -> list[str]:
    """The documents compare() measured on (its seeded split when there is no --eval)."""
    if eval_texts is not None:
        return [t for t in eval_texts if t.strip()]
    from .compare.metrics import split_indices

    _, test_idx = split_indices(len(texts), test_fraction=test_fraction, seed=seed)
    return [texts[i] for i in test_idx]


# --- messages in the words of the command line --------------------------------------------------

#: The library's messages name API arguments (``vocab_size=5``, ``limit_alphabet``); a message
#: reaching the command line names the option of the running command instead.  Per command, an
#: argument maps to its option (``"--vocab-size"``: ``vocab_size=5`` -> ``--vocab-size 5``,
#: ``vocab_size >= 8`` -> ``--vocab-size 8 or more``), or, when the command has no such option, to
#: the text that replaces the clause advising it (``""`` drops it).
CLI_OPTIONS: dict[str, dict[str, str]] = {
    "train": {
        "vocab_size": "--vocab-size", "limit_alphabet": "--limit-alphabet", "min_frequency": "--min-frequency",
        "byte_fallback": "--byte-fallback", "marker": "--marker", "limit": "--limit", "unit": "--unit",
        "max_token_length": "--max-token-length", "hangul_fallback": "--hangul-fallback",
        "superword_transition": "--superword-transition", "superword_max_words": "--superword-max-words",
        "column": "; name the text column 'document' in the header line",
        "pre_tokenizer": "; keep them with --lossless",  # an analysis that dropped every morpheme
    },
    "count": {"scheduler": "--scheduler", "limit": "--limit"},
    "export-hf": {"pretokenized": "--pretokenized"},
    "compare": {
        "vocab_size": "--vocab-sizes", "vocab_sizes": "--vocab-sizes", "test_fraction": "--test-fraction",
        "strategies": "--strategies", "seed": "--seed", "limit": "--limit", "gold": "--gold",
        "eval_texts": "--eval", "eval_labels": "--eval-labels", "labels": "--labels",
        "limit_alphabet": "", "column": "; name the text column 'document' in the header line",
    },
}
_CLI_VALUES = {"'\u2581'": "space", "None": "none", "'</w>'": "'</w>'", "'##'": "'##'"}
_VALUE = r"('[^']*'|\"[^\"]*\"|[^\s,;)]+)"


def speak_cli(message: str, command: str | None) -> str:
    """``message`` with the API arguments it names turned into ``command``'s options (see CLI_OPTIONS).

    >>> speak_cli("vocab_size=5 is too small; use vocab_size >= 15, or limit_alphabet=4 to shrink it", "train")
    '--vocab-size 5 is too small; use --vocab-size 15 or more, or --limit-alphabet 4 to shrink it'
    >>> speak_cli("vocab_size=3 is too small; use vocab_size >= 8, or limit_alphabet=2 to shrink it", "compare")
    '--vocab-sizes 3 is too small; use --vocab-sizes 8 or more'

    Text quoted from another library keeps its own identifiers (SentencePiece's C++ messages):

    >>> speak_cli("Vocabulary size is smaller than required_chars. 9 vs 12. (trainer_spec_.vocab_size())", "compare")
    'Vocabulary size is smaller than required_chars. 9 vs 12. (trainer_spec_.vocab_size())'
    """
    for name, option in CLI_OPTIONS.get(command or "", {}).items():
        if not option.startswith("--"):
            message = re.sub(rf"(?:,? or |; )[^;,]*?\b{name}=[^;]*", option, message)
            continue

        def spell(m: re.Match[str], option: str = option) -> str:
            value = m.group(1)
            if value == "True":
                return option
            value = _CLI_VALUES.get(value, value.strip("'\""))
            return f"{option} {value}"

        message = re.sub(rf"\b{name}={_VALUE}", spell, message)
        message = re.sub(rf"\b{name} >= (\d+)", rf"{option} \1 or more", message)
        if "_" in name:  # an identifier, never an English word
            message = re.sub(rf"(?<![.\w]){name}\b(?![(\w])", option, message)  # not trainer_spec_.vocab_size()
    return message


# --- helpers ----------------------------------------------------------------------------------


def _info(message: str) -> None:
    print(message, file=sys.stderr)


def check_model_output(path: str) -> Path:
    """Check ``-o PATH`` of a command that saves a model, before it starts: refuses a file, a
    directory holding sub-directories and a place the user cannot write, with the fix
    (:func:`korean_bpe.io.serialization.check_model_dir`).  Returns the real directory."""
    from .io.serialization import check_model_dir

    try:
        return check_model_dir(path)
    except ValueError as exc:
        raise UserError(f"argument -o/--output: {exc}") from None


def _refuse_overwriting(option: str, outputs: Sequence[Any], inputs: Sequence[tuple[str, Any]], fix: str) -> None:
    """Refuse, before any work, an output of ``option`` (paths ``outputs``; ``-``, standard output,
    is skipped) that is, through links (hard ones too), one of the ``inputs`` (``(what, path)``
    pairs; None is skipped, ``-`` is standard input: the file it is redirected from, by device and
    inode): writing it would destroy what the command reads.  ``fix`` ends the message."""
    from .files import is_stdin, same_file

    for out in outputs:
        if str(out) == STDOUT:
            continue
        for what, path in inputs:
            if path is None:
                continue
            if str(path) == "-":
                if is_stdin(out):
                    raise UserError(f"argument {option}: {out} is {what}: standard input is redirected from it, and "
                                    f"writing it would destroy it; {fix}")
            elif same_file(out, path):
                via = "" if os.path.abspath(out) == os.path.abspath(path) else f" ({path}, through a link)"
                raise UserError(f"argument {option}: {out} is {what}{via}, which this command reads: writing it would "
                                f"destroy it; {fix}")


#: an output path meaning standard output: a file output (count -o, compare --csv, export-hf -o)
#: writes there; an output that is a directory (train -o, compare -o) refuses it (:func:`_no_stdout`)
STDOUT = "-"


def _no_stdout(option: str, path: str, what: str, fix: str) -> None:
    """Refuse ``-`` for an output that is a directory of files: standard output takes one file."""
    if path == STDOUT:
        raise UserError(f"argument {option}: '-' means standard output, which cannot take {what}: give a directory "
                        f"(./- for one named '-'); {fix}")


def _refuse_stdin_twice(inputs: Sequence[tuple[str, Any]]) -> None:
    """Refuse ``-`` (standard input) for two of the ``inputs`` (``(what, path)`` pairs): the first
    reads it to the end, the second would find it empty."""
    named = [what for what, path in inputs if path is not None and str(path) == "-"]
    if len(named) > 1:
        raise UserError(f"'-' (standard input) is given for {' and '.join(named)}, but standard input can be read only "
                        "once: give '-' once and the other input as a file")


def _save_beside(tok: Any, output: str) -> Path:
    """Save ``tok`` to a fresh directory beside ``output`` (or in the temporary directory): a trained
    model is never lost because its place could not be written."""
    import shutil
    import tempfile

    from .files import new_dir_mode

    real = Path(os.path.realpath(os.path.abspath(output)))
    errors = []
    for place in (real.parent, Path(tempfile.gettempdir())):
        directory = None
        try:
            directory = Path(tempfile.mkdtemp(prefix=f"{real.name or 'model'}.saved-", dir=place))
            os.chmod(directory, new_dir_mode())
            tok.save(directory)
            return directory
        except (OSError, ValueError) as exc:
            errors.append(one_line(exc))
            if directory is not None:
                shutil.rmtree(directory, ignore_errors=True)
    raise UserError(f"could not save the trained model anywhere ({'; '.join(errors)})")


def _load(directory: str) -> Any:
    from .io.serialization import find_backup
    from .tokenizer import Tokenizer

    if not os.path.exists(directory):
        backup = find_backup(directory)
        if backup is not None:
            raise UserError(f"model directory not found: {directory}; an interrupted save left the previous model in "
                            f"{backup}: put it back with mv {backup} {directory}")
        raise UserError(f"model directory not found: {directory} (write one with 'korean-bpe train ... -o {directory}')")
    if not os.path.isdir(directory):
        raise UserError(f"{directory} is not a directory: give the model directory written by 'korean-bpe train'")
    return Tokenizer.load(directory)


def _parse_ids(line: str, where: str) -> list[int]:
    ids: list[int] = []
    for part in line.replace(",", " ").split():
        try:
            ids.append(int(part))
        except ValueError:
            raise UserError(f"{where}: {part!r} is not a token id (expected integers such as '5 812 97')") from None
    return ids


def _escape_line_breaks(text: str) -> str:
    """``text`` with each line break (:data:`~korean_bpe.pre_tokenizers.base.LINE_BREAKS`) as its
    Python escape: one text, one output line (:data:`UNENCODABLE_HELP`).

    >>> print(_escape_line_breaks("▁영화\\n최고\\u2028"))
    ▁영화\\n최고\\u2028
    """
    escapes = _line_break_escapes()
    return text.translate(escapes) if any(chr(c) in text for c in escapes) else text


@functools.lru_cache(maxsize=1)
def _line_break_escapes() -> dict[int, str]:
    """Each line break -> its Python escape (``repr``'s spelling: ``\\n``, ``\\x85``, ``\\u2028``)."""
    from .pre_tokenizers.base import LINE_BREAKS

    return {ord(c): repr(c)[1:-1] for c in LINE_BREAKS}


def _stdout_writer() -> Callable[[str], Any]:
    """``sys.stdout.write``, but each lone surrogate written as its ``\\udXXX`` escape, whatever
    the stream's error handler (``surrogateescape`` in the C.UTF-8 locale would write U+DC80 as the
    byte 0x80, which is not UTF-8, and fail on U+D800; ``strict`` fails on both), and any other
    character the stream cannot encode escaped as ``backslashreplace`` does: see
    :data:`UNENCODABLE_HELP`.  The usual string is written as it is."""
    from .tokens import SURROGATE

    out = sys.stdout

    def write(text: str) -> Any:
        if SURROGATE.search(text):
            text = SURROGATE.sub(lambda m: f"\\u{ord(m.group()):04x}", text)
        try:
            return out.write(text)
        except UnicodeEncodeError:  # a text stream encodes the whole string before writing any of it
            encoding = getattr(out, "encoding", None) or "utf-8"
            return out.write(text.encode(encoding, "backslashreplace").decode(encoding))

    return write


def _stdin_lines(stream: BinaryIO | None = None) -> Iterator[str]:
    """Lines of standard input as UTF-8 text (line ending removed), failing with the byte offset."""
    f = stream if stream is not None else sys.stdin.buffer
    offset = 0
    for lineno, raw in enumerate(f, 1):
        try:
            text = raw.decode("utf-8")
        except UnicodeDecodeError as exc:
            raise UserError(f"<stdin> is not UTF-8: line {lineno}, byte offset {offset + exc.start} "
                            f"(byte 0x{raw[exc.start]:02X})") from None
        if lineno == 1 and text.startswith("\ufeff"):
            text = text[1:]
        offset += len(raw)
        yield text.rstrip("\r\n") if text.endswith("\n") else text


def _user_error_types() -> tuple[type[BaseException], ...]:
    """Exceptions that mean a user mistake: one line, no traceback."""
    types: list[type[BaseException]] = [UserError, ValueError, TypeError, OSError, ImportError]
    for module, name in (("korean_bpe.pre_tokenizers.okt", "JavaNotFoundError"), ("korean_bpe.pre_tokenizers.cache", "CacheError")):
        mod = sys.modules.get(module)  # only if it was imported: then its errors may occur
        if mod is not None and hasattr(mod, name):
            types.append(getattr(mod, name))
    return tuple(types)


def _warning_printer(command: str) -> Callable[..., None]:
    """``warnings.showwarning`` for the command line: one line ``korean-bpe: warning: ...`` in the
    words of ``command`` (:func:`speak_cli`), without Python's file, line and source."""

    def show(message: Warning | str, category: type[Warning], filename: str, lineno: int, file: Any = None,
             line: str | None = None) -> None:
        text = speak_cli(" ".join(str(message).split()), command)
        print(f"{PROG}: warning: {text}", file=sys.stderr if file is None else file)

    return show


class _Terminated(KeyboardInterrupt):
    """SIGTERM (``timeout``, systemd, Slurm, CI), raised where Ctrl-C's KeyboardInterrupt would be, so that a
    command stops the same way: its worker processes ended, nothing half written left (exit status 143)."""


def _raise_terminated(signum: int, frame: Any) -> NoReturn:
    raise _Terminated


def main(argv: Sequence[str] | None = None) -> int:
    """Run ``korean-bpe`` with ``argv`` (default: ``sys.argv[1:]``); returns the exit status."""
    import signal
    import threading

    parser = build_parser()
    args = parser.parse_args(argv)
    debug = args.verbose or os.environ.get("KOREAN_BPE_DEBUG", "") not in ("", "0")
    here = threading.current_thread() is threading.main_thread()  # signal handlers live in the main thread
    previous = signal.signal(signal.SIGTERM, _raise_terminated) if here else None
    try:
        with warnings.catch_warnings():  # restores Python's way of showing them after the command
            if not debug:
                warnings.showwarning = _warning_printer(args.command)
            return int(args.func(args) or 0)
    except KeyboardInterrupt as exc:
        terminated = isinstance(exc, _Terminated)
        print(f"{PROG}: {'terminated' if terminated else 'interrupted'}", file=sys.stderr)
        return 143 if terminated else 130
    except BrokenPipeError:  # e.g. `korean-bpe encode ... | head`
        try:
            sys.stdout = open(os.devnull, "w")  # noqa: SIM115 - silence the flush at exit
        except OSError:  # pragma: no cover
            pass
        return 0
    except Exception as exc:
        if debug or not isinstance(exc, _user_error_types()):
            raise
        text = one_line(exc) if isinstance(exc, UserError) else speak_cli(one_line(exc), args.command)
        print(f"{PROG}: error: {text}", file=sys.stderr)
        return 1
    finally:
        if here:
            signal.signal(signal.SIGTERM, previous)


if __name__ == "__main__":  # pragma: no cover
    sys.exit(main())
