"""Loading a trained model: korean_bpe's ``Tokenizer.load`` and ``KoreanBPETokenizerFast.from_pretrained``
beside HF ``tokenizers``' ``Tokenizer.from_file`` (our export of the same model), transformers'
``AutoTokenizer.from_pretrained`` on that export, and SentencePiece's load of a BPE model trained on
the same reviews.

Models: vocab 32k (``--vocab``), the NSMC train split (``--limit`` reviews), ``whitespace``
pre-tokenizer, syllable and jamo units, without and with byte fallback; trained once into
``--dir`` (kept: a rerun only times).  Each load is timed ``--repeat`` times in this process after
one untimed load (the imports and the disk cache warm); the table gives the best and the median.

    .venv/bin/python benchmarks/bench_load.py --repeat 7

Results: benchmarks/README.md, "Loading a model".
"""

from __future__ import annotations

import argparse
import os
import statistics
import tempfile
import time
from pathlib import Path
from typing import Any, Callable

from korean_bpe import Tokenizer
from korean_bpe.corpus import load_nsmc


def timed(load: Callable[[], Any], repeat: int) -> tuple[float, float]:
    """(best, median) seconds of ``repeat`` calls of ``load`` after one untimed call."""
    load()
    runs = []
    for _ in range(repeat):
        start = time.perf_counter()
        load()
        runs.append(time.perf_counter() - start)
    return min(runs), statistics.median(runs)


def models(root: Path, *, vocab: int, limit: int | None) -> list[tuple[str, Path]]:
    """(name, folder) of each model, trained and saved (with its HF export in ``hf/``) when missing."""
    out, texts = [], None
    for unit in ("syllable", "jamo"):
        for fallback in (False, True):
            name = f"{unit}{' + byte fallback' if fallback else ''}"
            folder = root / f"{unit}-{'bf' if fallback else 'plain'}-{vocab}"
            if not (folder / "hf" / "tokenizer.json").is_file():
                texts = texts or load_nsmc("train", limit=limit).texts
                tok = Tokenizer.train(texts, vocab_size=vocab, unit=unit, byte_fallback=fallback, show_progress=False)
                tok.save(folder)
                tok.to_huggingface(f"{folder / 'hf'}/")
            out.append((name, folder))
    return out


def sentencepiece_model(root: Path, *, vocab: int, limit: int | None) -> Path | None:
    """A SentencePiece BPE model of the same reviews (syllables), or None without sentencepiece."""
    try:
        import sentencepiece as spm
    except ImportError:
        return None
    prefix = root / f"spm-bpe-{vocab}"
    if not prefix.with_suffix(".model").is_file():
        corpus = root / "train.txt"
        corpus.write_text("\n".join(load_nsmc("train", limit=limit).texts) + "\n", encoding="utf-8")
        spm.SentencePieceTrainer.train(input=str(corpus), model_prefix=str(prefix), vocab_size=vocab, model_type="bpe",
                                       character_coverage=1.0, num_threads=2, minloglevel=2)
    return prefix.with_suffix(".model")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--vocab", type=int, default=32_000)
    parser.add_argument("--limit", type=int, default=None, help="train reviews (default: the whole split)")
    parser.add_argument("--repeat", type=int, default=7)
    parser.add_argument("--dir", type=Path, default=Path(tempfile.gettempdir()) / "korean_bpe-bench-load")
    args = parser.parse_args()
    args.dir.mkdir(parents=True, exist_ok=True)

    import tokenizers
    import transformers
    from korean_bpe.hf import KoreanBPETokenizerFast

    print(f"load average {os.getloadavg()[0]:.1f}; best / median of {args.repeat} loads, seconds")
    print("| model | Tokenizer.load | KoreanBPETokenizerFast.from_pretrained | HF Tokenizer.from_file (export) "
          "| AutoTokenizer (export) |")
    print("|---|---:|---:|---:|---:|")
    for name, folder in models(args.dir, vocab=args.vocab, limit=args.limit):
        wrapper = folder / "wrapper"
        if not (wrapper / "tokenizer_config.json").is_file():
            KoreanBPETokenizerFast.from_korean_bpe(Tokenizer.load(folder)).save_pretrained(wrapper)
        cells = [timed(lambda: Tokenizer.load(folder), args.repeat),
                 timed(lambda: KoreanBPETokenizerFast.from_pretrained(wrapper), args.repeat),
                 timed(lambda: tokenizers.Tokenizer.from_file(str(folder / "hf" / "tokenizer.json")), args.repeat),
                 timed(lambda: transformers.AutoTokenizer.from_pretrained(folder / "hf"), args.repeat)]
        print(f"| {name} | " + " | ".join(f"{b:.3f} / {m:.3f}" for b, m in cells) + " |")
    sp = sentencepiece_model(args.dir, vocab=args.vocab, limit=args.limit)
    if sp is not None:
        import sentencepiece as spm

        best, median = timed(lambda: spm.SentencePieceProcessor(model_file=str(sp)), args.repeat)
        print(f"\nSentencePiece BPE ({args.vocab:,}, syllables), SentencePieceProcessor(model_file=...): "
              f"{best:.3f} / {median:.3f}")


if __name__ == "__main__":
    main()
