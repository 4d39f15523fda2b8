"""The options several commands share (corpus, model, integer and probability types) and the parser
class: a usage mistake is one line on standard error."""

from __future__ import annotations

import argparse
from typing import Any, NoReturn

from .io import PROG


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


class _Parser(argparse.ArgumentParser):
    """argparse, but a usage mistake is one line on stderr (exit status 2), pointing at ``--help``."""

    def error(self, message: str) -> NoReturn:
        self.exit(2, f"{PROG}: error: {' '.join(message.split())} (see '{self.prog} --help')\n")


def _corpus_arg(p: argparse.ArgumentParser) -> None:
    p.add_argument("corpus", nargs="?", default=None, metavar="CORPUS",
                   help="text file (one document a line), NSMC-format TSV, or '-' for stdin "
                        "(default: the corpus embedded in konlpy)")
    p.add_argument("--limit", type=_positive_int, default=None, metavar="N", help="read at most N documents")


def _threads_arg(p: argparse.ArgumentParser, what: str, same: str) -> None:
    """``--threads N``: the ``num_threads`` of the command's work (``what``); ``same`` is what
    does not change with N."""
    p.add_argument("--threads", type=_positive_int, default=None, metavar="N",
                   help=f"threads that {what} (default: every core, or KOREAN_BPE_NUM_THREADS; the same {same} "
                        "for any N)")


def _model_arg(p: argparse.ArgumentParser) -> None:
    p.add_argument("-m", "--model", required=True, metavar="DIR", help="a model directory written by 'train'")


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


_positive_int = _int_at_least(1, "a positive integer")


def _probability(value: str) -> float:
    try:
        p = float(value)
    except ValueError:
        raise argparse.ArgumentTypeError(f"expected a probability between 0 and 1, got {value!r}") from None
    if not 0.0 <= p <= 1.0:
        raise argparse.ArgumentTypeError(f"expected a probability between 0 and 1, got {value!r}")
    return p
