"""The ``korean-bpe`` command: thin subcommands over the public API (``main`` and the parser here,
one module per command family, each adding its subcommands with ``add_parsers``: :mod:`.train`
(train, count), :mod:`.encode` (encode, decode), :mod:`.export` (export-hf), :mod:`.cache`,
:mod:`.compare`; what they share, the parser class, the shared options, the I/O helpers and the
messages, in :mod:`.common`).

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
    korean-bpe export-hf -m model/ -o tokenizer.json                        (raw/whitespace models; -o -: stdout)
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
import os
import sys
import warnings
from collections.abc import Callable, Sequence
from typing import Any, NoReturn

from .. import __version__
from .._messages import one_line
from . import cache, compare, encode, export, train
from .common import CLI_OPTIONS, PROG, Parser, UserError, check_model_output, command_stdout, speak_cli
from .compare import compare_legend

__all__ = [
    "main", "build_parser", "check_model_output", "speak_cli", "CLI_OPTIONS", "compare_legend", "UserError", "PROG",
]

#: the top-level help's examples: a session that runs as written, in order, in a folder holding reviews.txt
#: (one review a line); tests/test_cli.py runs it
EXAMPLES = """examples (in order, in a folder with reviews.txt, one review a line):
  korean-bpe train reviews.txt --vocab-size 8000 --pre-tokenizer okt --unit jamo -o model/
  korean-bpe encode -m model/ "스파이더맨 봤는데 쩔어"      # tokens; --offsets for spans
  korean-bpe encode -m model/ --ids < reviews.txt > ids.txt   # one line of ids a review
  korean-bpe decode -m model/ < ids.txt
  korean-bpe export-hf -m model/ -o hf-model/            # a folder for AutoTokenizer (an okt model:
                                                         # KoreanBPETokenizerFast's, which runs Okt)
  korean-bpe compare -o results/                         # every strategy on the embedded corpus: a report
  korean-bpe COMMAND --help                              # the options of one command"""


def build_parser() -> argparse.ArgumentParser:
    """The full ``korean-bpe`` parser (each command module adds its subcommands: ``add_parsers``)."""
    parser = Parser(
        prog=PROG,
        description="Korean-aware BPE: train, apply, export and compare tokenizers.",
        epilog=EXAMPLES, formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    parser.add_argument("--version", action="version", version=f"%(prog)s {__version__}")
    parser.add_argument("-v", "--verbose", action="store_true",
                        help="show the full traceback on errors (also: KOREAN_BPE_DEBUG=1)")
    sub = parser.add_subparsers(dest="command", metavar="COMMAND")
    sub.required = True
    for command in (train, encode, export, cache, compare):
        command.add_parsers(sub)
    return parser


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
    argv = list(sys.argv[1:] if argv is None else argv)
    args = parser.parse_args(argv)
    args.argv = argv  # the command as given, which a report records
    debug = args.verbose or os.environ.get("KOREAN_BPE_DEBUG", "") not in ("", "0")
    here = threading.current_thread() is threading.main_thread()  # signal handlers live in the main thread
    previous = signal.signal(signal.SIGTERM, _raise_terminated) if here else None
    try:
        with warnings.catch_warnings(), command_stdout():  # restores Python's way of showing warnings after it
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
