"""``korean-bpe encode`` and ``korean-bpe decode``: a model applied to texts (or ids) read from the
command line or standard input, one output line per input line."""

from __future__ import annotations

import argparse
import sys
from typing import Any

from .._batches import batches
from .common import (
    UserError, add_model_arg, add_threads_arg, escape_line_breaks, load_model, parse_ids, probability, stdin_lines,
    stdout_writer,
)


#: how ``encode`` and ``decode`` write what standard output cannot encode (their ``--help``)
UNENCODABLE_HELP = ("A token or text holding a character standard output cannot encode, such as a lone "
                    "surrogate (U+D800..U+DFFF: a model keeps them, UTF-8 cannot hold them), is written with "
                    "that character as a \\udXXX escape (Python's backslashreplace), and a line break (\\n, \\r, "
                    "\\x0b, \\x0c, \\x1c..\\x1e, \\x85, \\u2028, \\u2029: a raw model keeps them as tokens) "
                    "as its Python escape, so the output stays valid UTF-8, one line per input; a literal backslash in "
                    "the text is written as it is.")


#: lines of standard input ``encode`` reads before encoding them together (``--line-buffered``: one)
ENCODE_BATCH_LINES = 4096


def add_parsers(sub: Any) -> None:
    """Add ``encode`` and ``decode`` to the subcommands ``sub``."""
    _add_encode(sub)
    _add_decode(sub)


def _add_encode(sub: Any) -> None:
    p = sub.add_parser("encode", help="print the tokens (or ids) of texts",
                       description="Encode TEXT, or each line of standard input; one output line per text. "
                                   + UNENCODABLE_HELP)
    add_model_arg(p)
    p.add_argument("text", nargs="*", metavar="TEXT", help="texts to encode (default: read stdin, one a line)")
    p.add_argument("--ids", action="store_true", help="print token ids instead of tokens")
    p.add_argument("--offsets", action="store_true",
                   help="follow each token (or id) with @START:END, its character span in the text")
    p.add_argument("--dropout", type=probability, default=None, metavar="P",
                   help="BPE-dropout: skip each merge with probability P (default: 0, the usual encoding)")
    p.add_argument("--seed", type=int, default=None, metavar="S",
                   help="with --dropout: text k (from 1) is encoded with seed S+k-1, so a rerun prints the same "
                        "(default: fresh draws)")
    p.add_argument("--special-text", action="store_true",
                   help="encode text that spells a special token (<unk>, <0x41>) as ordinary characters "
                        "(default: refuse it; text never becomes a special token)")
    add_threads_arg(p, "encode a batch of lines", "output")
    p.add_argument("--line-buffered", action="store_true",
                   help=f"encode and print each line as it arrives (for a stream such as tail -f; the default "
                        f"when standard input is a terminal); otherwise lines are read in batches of up to "
                        f"{ENCODE_BATCH_LINES:,}, which --threads share")
    p.set_defaults(func=cmd_encode)


def _add_decode(sub: Any) -> None:
    p = sub.add_parser("decode", help="turn token ids back into text",
                       description="Decode IDS (space- or comma-separated), or each line of standard input; "
                                   "one output line per sequence. " + UNENCODABLE_HELP)
    add_model_arg(p)
    p.add_argument("ids", nargs="*", metavar="IDS", help="token ids (default: read stdin, one sequence a line)")
    p.add_argument("--skip-special-tokens", action="store_true", help="leave out <unk> and other special tokens")
    p.set_defaults(func=cmd_decode)


def cmd_encode(args: argparse.Namespace) -> int:
    if args.seed is not None and args.dropout is None:
        raise UserError("--seed draws the merges BPE-dropout skips; without --dropout P nothing is drawn: leave --seed "
                        "out, or add --dropout 0.1")
    args.dropout = args.dropout or 0.0
    tok = load_model(args.model)
    from ..tokenizer import SpecialTokenTextError

    texts = args.text if args.text else stdin_lines()
    write = stdout_writer()
    disallowed: Any = () if args.special_text else "all"

    def one(k: int, text: str) -> list[str]:
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
        shown = show(ids)
        return [f"{t}@{a}:{b}" for t, (a, b) in zip(shown, offsets)] if args.offsets else shown

    shown_tokens = [str(i) for i in range(tok.vocab_size)] if args.ids else list(map(escape_line_breaks, tok.id_to_token))

    def show(ids: list[int]) -> list[str]:
        return [shown_tokens[i] for i in ids]

    per_text = args.offsets or args.dropout or args.line_buffered or (not args.text and sys.stdin.isatty())
    if per_text:  # offsets and dropout seeds are per text; a stream is answered line by line
        for k, text in enumerate(texts, 1):
            write(" ".join(one(k, text)) + "\n")
            if args.line_buffered:
                sys.stdout.flush()
        return 0
    k = 1
    for batch in batches(texts, ENCODE_BATCH_LINES):
        try:
            encoded = tok.encode_batch(batch, disallowed_special=disallowed, num_threads=args.threads)
        except SpecialTokenTextError:  # the lines before it are written, then the one-text path names it
            for j, text in enumerate(batch):
                write(" ".join(one(k + j, text)) + "\n")
            raise  # not reached: one() refuses the same line
        write("".join(" ".join(show(ids)) + "\n" for ids in encoded))
        k += len(batch)
    return 0


def cmd_decode(args: argparse.Namespace) -> int:
    tok = load_model(args.model)
    lines: Any = [" ".join(args.ids)] if args.ids else stdin_lines()
    write = stdout_writer()
    for lineno, line in enumerate(lines, 1):
        where = "the arguments" if args.ids else f"<stdin> line {lineno}"
        ids = parse_ids(line, where)
        try:
            text = tok.decode(ids, skip_special_tokens=args.skip_special_tokens)
        except ValueError as exc:
            raise UserError(f"{where}: {exc}") from None
        write(escape_line_breaks(text) + "\n")
    return 0
