"""``korean-bpe export-hf``: a model written as a Hugging Face ``tokenizer.json``, or a folder that
``AutoTokenizer`` loads."""

from __future__ import annotations

import argparse
import os
import sys
from typing import Any

from .common import STDOUT, UserError, add_model_arg, info, load_model, probability, refuse_overwriting, speak_cli


def add_parsers(sub: Any) -> None:
    """Add ``export-hf`` to the subcommands ``sub``."""
    p = sub.add_parser("export-hf", help="write a Hugging Face tokenizer.json or tokenizer folder",
                       description="Write a tokenizer.json that tokenizers and transformers load with the same ids; "
                                   "to a directory (DIR/), a complete folder for AutoTokenizer.from_pretrained(DIR). "
                                   "A model whose pre-tokenizer runs an analyzer (okt, kiwi, mecab) gets the folder of "
                                   "korean_bpe.hf.KoreanBPETokenizerFast instead, which runs it (no HF client can).")
    add_model_arg(p)
    p.add_argument("-o", "--output", required=True, metavar="PATH",
                   help="file to write, or a directory (existing, or written DIR/) that gets tokenizer.json, "
                        "tokenizer_config.json and special_tokens_map.json; '-' for standard output. A symbolic "
                        "link is written through to its target; FIFOs and devices are refused")
    p.add_argument("--dropout", type=probability, default=None, metavar="P",
                   help="write HF BPE's dropout P (0 < P <= 1; default: none)")
    p.add_argument("--pretokenized", action="store_true",
                   help="okt, kiwi, mecab models: a stock tokenizer.json for the words of our analysis "
                        "(encode(words, is_pretokenized=True)); without it such a model is written to -o DIR/ as "
                        "the folder of korean_bpe.hf.KoreanBPETokenizerFast, which runs the analysis")
    p.set_defaults(func=cmd_export_hf)


def cmd_export_hf(args: argparse.Namespace) -> int:
    from ..files import NotRegularFileError
    from ..io.hf import (SPECIAL_TOKENS_MAP_FILE, TOKENIZER_CONFIG_FILE, TOKENIZER_FILE, analysis_refusal,
                        export_tokenizer_json, holds_model, is_folder, render_tokenizer_json)
    from ..io.serialization import FILES

    folder = args.output != STDOUT and is_folder(args.output) and not holds_model(args.output)
    if args.output != STDOUT:  # a folder gets three files (a model's directory: tokenizer.json beside the model)
        targets = ([os.path.join(args.output, f) for f in (TOKENIZER_FILE, TOKENIZER_CONFIG_FILE, SPECIAL_TOKENS_MAP_FILE)]
                   if folder else [os.path.join(args.output, TOKENIZER_FILE) if is_folder(args.output) else args.output])
        refuse_overwriting("-o/--output", targets, [(f"the model's {f}", os.path.join(args.model, f)) for f in FILES],
                           f"give another path, such as {os.path.join(args.model, 'tokenizer.json')} or a folder "
                           "of its own")
    tok = load_model(args.model)
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
        info(f"wrote {path.parent}/: tokenizer.json, tokenizer_config.json, special_tokens_map.json{words} (load it "
             f"with transformers.AutoTokenizer.from_pretrained({str(path.parent)!r}))")
    else:
        info(f"wrote {path}{words} (load it with tokenizers.Tokenizer.from_file or "
             "transformers.PreTrainedTokenizerFast(tokenizer_file=...))")
    return 0


def _export_wrapper(tok: Any, args: argparse.Namespace) -> int:
    """export-hf of a model whose pre-tokenizer runs an analyzer: the folder of
    :class:`korean_bpe.hf.KoreanBPETokenizerFast`, which runs it (``save_pretrained``)."""
    from ..io.hf import special_tokens_map

    if args.dropout is not None:
        raise UserError("argument --dropout: this model's folder encodes with korean_bpe itself (its analyzer runs "
                        "in Python), which has no HF BPE dropout; leave --dropout out, or use "
                        "Tokenizer.encode(text, dropout=P) for BPE-dropout")
    from ..hf import KoreanBPETokenizerFast

    roles = {k: v for k, v in special_tokens_map(tok).items() if k != "additional_special_tokens"}
    KoreanBPETokenizerFast.from_korean_bpe(tok, **roles).save_pretrained(args.output)
    name = tok.pre_tokenizer.to_config()["type"]
    info(f"wrote {args.output.rstrip('/')}/ for korean_bpe.hf.KoreanBPETokenizerFast, which runs the {name} analysis "
         f"(no Hugging Face client can; a stock tokenizer.json would give other ids): load it with "
         f"KoreanBPETokenizerFast.from_pretrained({args.output!r}) or transformers.AutoTokenizer.from_pretrained("
         f"{args.output!r}, trust_remote_code=True), korean_bpe installed")
    return 0
