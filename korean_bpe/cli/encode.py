"""``korean-bpe encode`` and ``korean-bpe decode``: a model applied to texts (or ids) read from the
command line or standard input, one output line per input line."""

from __future__ import annotations

import argparse
import os
import queue
import sys
import threading
from collections.abc import Iterator
from typing import Any, BinaryIO

from .._batches import batches
from .common import (
    UserError, add_model_arg, add_threads_arg, escape_line_breaks, info, load_model, parse_ids, probability,
    refuse_overwriting, stdin_lines, stdout_writer,
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

#: bytes of text ``encode --npy`` reads, encodes and writes at a time: what bounds its memory
#: (with the word caches, ``Tokenizer.DEFAULT_CACHE_SIZE`` words a thread)
NPY_BLOCK_BYTES = 1 << 22

#: the options ``encode --npy`` refuses (what writes ids one way cannot apply): option -> why
NPY_CONFLICTS = {
    "ids": "--npy always writes ids",
    "offsets": "--npy writes no offsets",
    "dropout": "--npy writes the usual encoding (BPE-dropout draws afresh each epoch: encode in the training loop)",
    "seed": "--npy writes the usual encoding, with no draws to seed",
    "line_buffered": "--npy writes its files once the input ends",
}


def add_parsers(sub: Any) -> None:
    """Add ``encode`` and ``decode`` to the subcommands ``sub``."""
    _add_encode(sub)
    _add_decode(sub)


def _add_encode(sub: Any) -> None:
    p = sub.add_parser("encode", help="print the tokens (or ids) of texts",
                       description="Encode TEXT, or each line of standard input; one output line per text. "
                                   + UNENCODABLE_HELP)
    add_model_arg(p)
    p.add_argument("text", nargs="*", metavar="TEXT",
                   help="texts to encode (default: read stdin, one a line); with --npy, the FILE to read")
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
    p.add_argument("--npy", metavar="PREFIX", default=None,
                   help="write the ids of every line of FILE (the one argument; none or '-': standard input) to "
                        "PREFIX.ids.npy (uint16, or uint32 for a vocabulary over 65,536 tokens) and "
                        "PREFIX.starts.npy (int64, one more than the lines: line k's ids are "
                        "ids[starts[k]:starts[k+1]]), streamed in blocks of lines (bounded memory, a progress bar "
                        "on a terminal) and renamed into place at the end; nothing is printed")
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
    if args.npy is not None:
        return _encode_npy(args)
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


def _encode_npy(args: argparse.Namespace) -> int:
    """``encode --npy PREFIX [FILE]``: :func:`korean_bpe.encoding.flat.write_flat_files` over
    blocks of lines (:func:`line_blocks`), each encoded by ``Tokenizer.encode_batch_flat``."""
    for dest, why in NPY_CONFLICTS.items():
        if getattr(args, dest) not in (None, False):
            option = "--" + dest.replace("_", "-")
            raise UserError(f"argument {option}: not with --npy: {why}; leave out {option}")
    if len(args.text) > 1:
        named = " ".join(args.text[:3]) + (" ..." if len(args.text) > 3 else "")
        raise UserError(f"with --npy the arguments name one FILE to read (got {len(args.text)}: {named}); to encode "
                        "several, cat them into one: cat A B | korean-bpe encode -m DIR --npy PREFIX")
    source = args.text[0] if args.text else "-"
    from ..encoding.flat import flat_file_paths, id_dtype, write_flat_files
    from ..files import check_output_file, format_bytes

    outputs = flat_file_paths(args.npy)
    refuse_overwriting("--npy", [str(p) for p in outputs], [("the input", source)], "give another PREFIX")
    for path in outputs:
        try:
            check_output_file(path)
        except ValueError as exc:
            raise UserError(f"argument --npy: {exc}") from None
    tok = load_model(args.model)
    try:
        dtype = id_dtype(tok.vocab_size)
    except ValueError as exc:
        raise UserError(f"argument --npy: {exc}") from None
    from ..progress import start_progress
    from ..tokenizer import SpecialTokenTextError

    disallowed: Any = () if args.special_text else "all"
    name = "<stdin>" if source == "-" else source
    try:
        f = sys.stdin.buffer if source == "-" else open(source, "rb")  # noqa: SIM115 - closed below
    except OSError as exc:
        raise UserError(f"cannot read {source}: {exc.strerror or exc}") from None
    try:
        total = os.fstat(f.fileno()).st_size if source != "-" and os.path.isfile(source) else None
        progress = start_progress(None, total=total, desc="encoding", unit="B", min_total=NPY_BLOCK_BYTES)
        line = [0]

        def encoded() -> Any:
            for lines, nbytes in read_ahead(line_blocks(f, name)):
                try:
                    flat = tok.encode_batch_flat(lines, disallowed_special=disallowed, num_threads=args.threads)
                except SpecialTokenTextError as exc:
                    j = next((j for j, t in enumerate(lines) if t.startswith(exc.token, exc.offset)), 0)
                    raise UserError(f"{name} line {line[0] + j + 1} holds {exc.token!r}, the text of a special token, "
                                    f"at offset {exc.offset}; pass --special-text to encode it as ordinary "
                                    "characters") from None
                line[0] += len(lines)
                progress.update(nbytes)
                yield flat

        try:
            texts, n_ids = write_flat_files(args.npy, encoded(), dtype=dtype)
        finally:
            progress.close()
    finally:
        if f is not sys.stdin.buffer:
            f.close()
    info(f"wrote {outputs[0]} ({n_ids:,} {dtype} ids, {format_bytes(os.path.getsize(outputs[0]))}) and "
         f"{outputs[1]} ({texts:,} lines)")
    return 0


def read_ahead(items: Iterator[Any]) -> Iterator[Any]:
    """The items of ``items``, the next one made by a thread of its own while the caller works
    on this one (reading and decoding the next block of lines while the encoder's threads
    merge this one, which they do without the GIL); what ``items`` raises is raised here, in
    order.  One item ahead at most: memory holds two.

    >>> list(read_ahead(iter("영화")))
    ['영', '화']
    """
    ahead: queue.Queue[tuple[bool, Any]] = queue.Queue(maxsize=1)
    stop = threading.Event()

    def give(ok: bool, item: Any) -> bool:
        while not stop.is_set():  # the consumer gone (an error, a break): the thread ends
            try:
                ahead.put((ok, item), timeout=0.1)
                return True
            except queue.Full:
                continue
        return False

    def produce() -> None:
        try:
            for item in items:
                if not give(True, item):
                    return
        except BaseException as exc:  # noqa: BLE001 - raised by the consumer, in order
            give(False, exc)
            return
        give(False, None)

    threading.Thread(target=produce, name="korean_bpe-read-ahead", daemon=True).start()
    try:
        while True:
            ok, item = ahead.get()
            if not ok:
                if item is not None:
                    raise item
                return
            yield item
    finally:
        stop.set()


def line_blocks(f: BinaryIO, name: str, block_bytes: int = NPY_BLOCK_BYTES) -> Iterator[tuple[list[str], int]]:
    """The lines of the binary stream ``f`` as :func:`~korean_bpe.cli.common.stdin_lines` reads
    them (UTF-8, the line ending and the trailing ``\\r`` removed, a BOM opening the stream
    dropped), about ``block_bytes`` at a time: ``(lines, bytes read)``.  A block is decoded at
    once (a line at a time costs more than the encoding); text that is not UTF-8 is a
    :class:`UserError` naming the line and the byte offset.

    >>> import io
    >>> list(line_blocks(io.BytesIO("\\ufeff영화\\r\\n\\n재밌다".encode()), "<stdin>", 4))
    [(['영화', ''], 12), (['재밌다'], 9)]
    """
    offset, lineno, rest = 0, 0, b""
    while True:
        data = f.read(block_bytes)
        if data:
            data = rest + data
            cut = data.rfind(b"\n") + 1
            if not cut:
                rest = data
                continue
            data, rest = data[:cut], data[cut:]
        elif rest:
            data, rest = rest, b""
        else:
            return
        try:
            text = data.decode("utf-8")
        except UnicodeDecodeError as exc:
            where = lineno + data.count(b"\n", 0, exc.start) + 1
            raise UserError(f"{name} is not UTF-8: line {where}, byte offset {offset + exc.start} "
                            f"(byte 0x{data[exc.start]:02X})") from None
        lines = text.split("\n")
        last = lines.pop()  # after the last line break: nothing, or the stream's last line, without one
        if "\r" in text:
            lines = [t.rstrip("\r") for t in lines]
        if last:
            lines.append(last)
        if offset == 0 and lines and lines[0].startswith("\ufeff"):
            lines[0] = lines[0][1:]
        lineno += len(lines)
        offset += len(data)
        yield lines, len(data)
