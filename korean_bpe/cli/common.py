"""What the ``korean-bpe`` commands share: the program name, the user's mistakes (:class:`UserError`,
printed as one line), messages in the command line's words (:func:`speak_cli`), the parser class
(:class:`Parser`: a usage mistake is one line on standard error), the options several commands take
(corpus, model, threads; integer and probability types), and the I/O helpers (reading standard
input, writing standard output, refusing to overwrite an input, loading a model)."""

from __future__ import annotations

import argparse
import functools
import io
import os
import re
import sys
from collections.abc import Callable, Iterator, Sequence
from contextlib import contextmanager
from pathlib import Path
from typing import Any, BinaryIO, NoReturn


PROG = "korean-bpe"


class UserError(Exception):
    """A mistake the user can fix; printed as one line, without traceback."""


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
        "confidence": "--confidence", "resamples": "--resamples", "reference": "--reference",
        "train_labels": "--labels",
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


# --- the parser and the options several commands share -------------------------------------------


def _stage_choices() -> tuple[list[str], list[str], dict[str, str | None]]:
    """The names the registries know (pre-tokenizers, units; markers by name and by text)."""
    from ..markers import MARKERS
    from ..pre_tokenizers import PRE_TOKENIZERS
    from ..units import UNITS

    markers: dict[str, str | None] = {}
    for name in MARKERS.names():
        text = MARKERS.build(name).text
        markers[name] = text
        if text is not None:
            markers[text] = text
    return PRE_TOKENIZERS.names(), UNITS.names(), markers


PRE_TOKENIZER_NAMES, UNIT_NAMES, MARKER_NAMES = _stage_choices()


class Parser(argparse.ArgumentParser):
    """argparse, but a usage mistake is one line on stderr (exit status 2), pointing at ``--help``."""

    def error(self, message: str) -> NoReturn:
        self.exit(2, f"{PROG}: error: {' '.join(message.split())} (see '{self.prog} --help')\n")


def int_at_least(low: int, what: str, high: int | None = None) -> Any:
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


#: an argparse type: an integer >= 1
positive_int = int_at_least(1, "a positive integer")


def probability(value: str) -> float:
    """An argparse type: a float from 0 to 1."""
    try:
        p = float(value)
    except ValueError:
        raise argparse.ArgumentTypeError(f"expected a probability between 0 and 1, got {value!r}") from None
    if not 0.0 <= p <= 1.0:
        raise argparse.ArgumentTypeError(f"expected a probability between 0 and 1, got {value!r}")
    return p


def add_corpus_arg(p: argparse.ArgumentParser, *, default: str = "the Korean Constitution and bills embedded in "
                                                                     "konlpy") -> None:
    """``CORPUS`` (optional: ``default`` says what the command reads without it) and ``--limit N``."""
    from ..corpus import EMBEDDED_CORPORA

    p.add_argument("corpus", nargs="?", default=None, metavar="CORPUS",
                   help="text file (one document a line), NSMC-format TSV, '-' for stdin, or a corpus shipped "
                        f"with korean_bpe by name ({', '.join(EMBEDDED_CORPORA)}) (default: {default})")
    p.add_argument("--limit", type=positive_int, default=None, metavar="N", help="read at most N documents")


def add_threads_arg(p: argparse.ArgumentParser, what: str, same: str) -> None:
    """``--threads N``: the ``num_threads`` of the command's work (``what``); ``same`` is what
    does not change with N."""
    p.add_argument("--threads", type=positive_int, default=None, metavar="N",
                   help=f"threads that {what} (default: every core, or KOREAN_BPE_NUM_THREADS; the same {same} "
                        "for any N)")


def add_model_arg(p: argparse.ArgumentParser) -> None:
    """``-m/--model DIR`` (required): the model directory the command reads."""
    p.add_argument("-m", "--model", required=True, metavar="DIR", help="a model directory written by 'train'")


# --- messages and I/O ----------------------------------------------------------------------------


def info(message: str) -> None:
    """Print ``message`` on standard error (what a command did; standard output keeps its data)."""
    print(message, file=sys.stderr)


def check_model_output(path: str) -> Path:
    """Check ``-o PATH`` of a command that saves a model, before it starts: refuses a file, a
    directory holding sub-directories and a place the user cannot write, with the fix
    (:func:`korean_bpe.io.serialization.check_model_dir`).  Returns the real directory."""
    from ..io.serialization import check_model_dir

    try:
        return check_model_dir(path)
    except ValueError as exc:
        raise UserError(f"argument -o/--output: {exc}") from None


def refuse_overwriting(option: str, outputs: Sequence[Any], inputs: Sequence[tuple[str, Any]], fix: str) -> None:
    """Refuse, before any work, an output of ``option`` (paths ``outputs``; ``-``, standard output,
    is skipped) that is, through links (hard ones too), one of the ``inputs`` (``(what, path)``
    pairs; None is skipped, ``-`` is standard input: the file it is redirected from, by device and
    inode): writing it would destroy what the command reads.  ``fix`` ends the message."""
    from ..files import is_stdin, same_file

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
#: writes there; an output that is a directory (train -o, compare -o) refuses it (:func:`refuse_stdout`)
STDOUT = "-"


def refuse_stdout(option: str, path: str, what: str, fix: str) -> None:
    """Refuse ``-`` for an output that is a directory of files: standard output takes one file."""
    if path == STDOUT:
        raise UserError(f"argument {option}: '-' means standard output, which cannot take {what}: give a directory "
                        f"(./- for one named '-'); {fix}")


def refuse_stdin_twice(inputs: Sequence[tuple[str, Any]]) -> None:
    """Refuse ``-`` (standard input) for two of the ``inputs`` (``(what, path)`` pairs): the first
    reads it to the end, the second would find it empty."""
    named = [what for what, path in inputs if path is not None and str(path) == "-"]
    if len(named) > 1:
        raise UserError(f"'-' (standard input) is given for {' and '.join(named)}, but standard input can be read only "
                        "once: give '-' once and the other input as a file")


def load_model(directory: str) -> Any:
    """The :class:`~korean_bpe.Tokenizer` saved in ``directory``; a missing directory (or an
    interrupted save's backup) is a :class:`UserError` with the fix."""
    from ..io.serialization import find_backup
    from ..tokenizer import Tokenizer

    if not os.path.exists(directory):
        backup = find_backup(directory)
        if backup is not None:
            raise UserError(f"model directory not found: {directory}; an interrupted save left the previous model in "
                            f"{backup}: put it back with mv {backup} {directory}")
        raise UserError(f"model directory not found: {directory} (write one with 'korean-bpe train ... -o {directory}')")
    if not os.path.isdir(directory):
        raise UserError(f"{directory} is not a directory: give the model directory written by 'korean-bpe train'")
    return Tokenizer.load(directory)


def parse_ids(line: str, where: str) -> list[int]:
    """The token ids of ``line`` (space- or comma-separated); ``where`` names it in the error."""
    ids: list[int] = []
    for part in line.replace(",", " ").split():
        try:
            ids.append(int(part))
        except ValueError:
            raise UserError(f"{where}: {part!r} is not a token id (expected integers such as '5 812 97')") from None
    return ids


def escape_line_breaks(text: str) -> str:
    """``text`` with each line break (:data:`~korean_bpe.pre_tokenizers.base.LINE_BREAKS`) as its
    Python escape: one text, one output line (:data:`UNENCODABLE_HELP`).

    >>> print(escape_line_breaks("▁영화\\n최고\\u2028"))
    ▁영화\\n최고\\u2028
    """
    escapes = _line_break_escapes()
    return text.translate(escapes) if any(chr(c) in text for c in escapes) else text


@functools.lru_cache(maxsize=1)
def _line_break_escapes() -> dict[int, str]:
    """Each line break -> its Python escape (``repr``'s spelling: ``\\n``, ``\\x85``, ``\\u2028``)."""
    from ..pre_tokenizers.base import LINE_BREAKS

    return {ord(c): repr(c)[1:-1] for c in LINE_BREAKS}


def stdout_writer() -> Callable[[str], Any]:
    """``sys.stdout.write``, but each lone surrogate written as its ``\\udXXX`` escape, whatever
    the stream's error handler (``surrogateescape`` in the C.UTF-8 locale would write U+DC80 as the
    byte 0x80, which is not UTF-8, and fail on U+D800; ``strict`` fails on both), and any other
    character the stream cannot encode escaped as ``backslashreplace`` does: see
    :data:`UNENCODABLE_HELP`.  The usual string is written as it is."""
    from ..tokens import SURROGATE

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


class _Stdout(io.TextIOWrapper):
    """Standard output while a command runs (:func:`command_stdout`): a failed write or flush
    names it, says what it holds and the fix (a UserError); a closed pipe stays BrokenPipeError."""

    def write(self, s: str) -> int:
        try:
            return super().write(s)
        except BrokenPipeError:
            raise
        except OSError as exc:
            raise _stdout_error(exc, self.fileno()) from None

    def flush(self) -> None:
        try:
            super().flush()
        except BrokenPipeError:
            raise
        except OSError as exc:
            raise _stdout_error(exc, self.fileno()) from None


def _stdout_error(exc: OSError, fd: int) -> UserError:
    from .._messages import one_line
    from ..files import write_error

    try:
        target = os.readlink(f"/proc/self/fd/{fd}")  # Linux: the file it was sent to ('pipe:[...]' for a pipe)
    except OSError:
        target = ""
    name = f"standard output ({target})" if target.startswith("/") else "standard output"
    return UserError(one_line(write_error(exc, name, kept="what was written before is there, the rest is not")))


@contextmanager
def command_stdout() -> Iterator[None]:
    """Standard output for one command's run, so that no output is lost without an error:

    * buffered even under ``python -u`` / ``PYTHONUNBUFFERED=1``, whose unbuffered stream drops the
      rest of a short write (a disk that fills up mid-write: CPython gh-85393) and exits 0; lines
      are then flushed as they end, as ``-u`` asks;
    * a write that fails names standard output and the file it goes to (``standard output
      (/data/ids.txt): No space left on device; ...: free space on that disk ...``);
    * flushed when the command ends, inside it: a full disk is the command's error, not a lost tail.

    Another stream than Python's own (pytest's capture, a closed descriptor) is used as it is.
    """
    out = sys.stdout
    try:
        if type(out) is not io.TextIOWrapper:
            raise ValueError(out)
        fd = os.dup(out.fileno())
    except (OSError, ValueError):  # io.UnsupportedOperation is both
        yield
        return
    out.flush()
    ours = _Stdout(open(fd, "wb"), encoding=out.encoding, errors=out.errors,  # noqa: SIM115 - closed below
                   line_buffering=out.line_buffering or out.write_through)
    sys.stdout = ours
    try:
        yield
        ours.flush()
    finally:
        sys.stdout = out
        try:
            ours.close()
        except Exception:  # noqa: BLE001 - reported by the flush above, or the command's own error
            pass


def stdin_lines(stream: BinaryIO | None = None) -> Iterator[str]:
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
