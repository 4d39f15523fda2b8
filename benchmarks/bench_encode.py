#!/usr/bin/env python
"""Encoding benchmark (issue #5): ``Tokenizer.encode_batch`` vs HF ``encode_batch`` vs SentencePiece.

In one run, with identical input (the NSMC test split, 50,000 reviews, in memory):

1. train one tokenizer of ours on the NSMC train split (``whitespace`` pre-tokenizer, ``syllable``
   unit by default; ``--pre-tokenizer whitespace raw --unit syllable jamo`` runs every pair in one
   run and ends with a summary against SentencePiece; ``--vocab`` 32k, ``min_frequency=2``), or
   load one with ``--model DIR`` (a directory written by ``Tokenizer.save``);
2. export it to a HF ``tokenizer.json`` and load that with ``tokenizers.Tokenizer.from_file``: the
   same model, so the ids must be equal - the script compares every review and exits non-zero on a
   difference (jamo: reviews where HF's ``NFD`` normalizer differs from our jamo unit, e.g. ``é``, are
   counted apart as the documented divergence, see :mod:`korean_bpe.io.hf`);
3. train a SentencePiece BPE of the same vocab size on the same train texts
   (``normalization_rule_name="identity"``, ``character_coverage=1.0``; jamo: on the decomposed
   texts, and it encodes the decomposed test texts, decomposed outside the timer);
4. time, ``--repeat`` times each, best run reported (the machine is shared):

   * ours ``encode_batch`` on every core (its default, ``num_threads`` = the cores this process
     may use) and on one thread (``num_threads=1``), each cold (``clear_cache()`` before each run:
     every distinct word segmented) and warm (the caches filled by the previous run); the ids of
     both are checked equal;
   * the same model without the compiled core (the pure-Python fallback used when
     ``korean_bpe/encoding/_encode.pyx`` could not be built), cold and warm, same ids checked;
   * HF ``Tokenizer.encode_batch(texts, add_special_tokens=False)`` (Rust, all cores through rayon);
   * HF ``encode_batch_fast`` (no offsets) when this ``tokenizers`` has it;
   * SentencePiece ``encode(texts, num_threads=cores)``.

It prints reviews/s, the ratio of each to HF ``encode_batch``, and the machine.  Training is not
timed here (see ``bench_train.py``).

``--pieces raw mecab ...`` times instead the encoding of pieces that are already pre-tokenized
(issue #12), for each pre-tokenizer given (``raw``, or ``okt``/``kiwi``/``mecab`` in lossless mode)
and both units: the train split is counted once per pre-tokenizer (``WordCounts``), one tokenizer a
unit is trained from the counts, the test split is pre-tokenized once, outside the timer, and

* ours: the step of ``Tokenizer.encode_batch`` after ``pre_tokenizer.batch`` (the compiled core
  cuts, merges and caches each distinct piece), cold and warm, and the pure-Python fallback;
  ``raw`` also the whole ``encode_batch(texts)``, pre-tokenization included;
* HF: ``encode_batch(pieces, is_pretokenized=True)`` (and ``encode_batch_fast``) with our exported
  model, its normalizer and pre-tokenizer taken out (jamo: ``NFD`` kept), so that it takes the
  pieces as they are; the ids are checked equal (jamo: the documented NFD divergence apart).

Wall time and CPU time (``time.process_time``: HF runs on every core) are both printed.

    python benchmarks/bench_encode.py                        # full test split, syllable, 32k
    python benchmarks/bench_encode.py --unit jamo
    python benchmarks/bench_encode.py --limit 5000 --train-limit 20000 --vocab 8000   # quick
    python benchmarks/bench_encode.py --pieces raw mecab     # pre-tokenized pieces, syllable and jamo
"""

from __future__ import annotations

import argparse
import os
import platform
import sys
import tempfile
import time
import unicodedata
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent


def best_of(fn, repeat: int, before=None) -> tuple[object, float]:
    """Run ``fn`` ``repeat`` times (``before()`` untimed before each); the last result, best time."""
    best = float("inf")
    out = None
    for _ in range(repeat):
        out = None  # the last run's result freed outside the timer (for every tokenizer alike)
        if before is not None:
            before()
        t0 = time.perf_counter()
        out = fn()
        best = min(best, time.perf_counter() - t0)
    return out, best


def pure_python(tok):
    """The same tokenizer without the compiled core (as when ``_encode.pyx`` was not built)."""
    import korean_bpe.encoding.encoder as ke
    from korean_bpe import Tokenizer

    saved, ke.MergeTable = ke.MergeTable, None
    try:
        return Tokenizer(tok.model, pre_tokenizer=tok.pre_tokenizer, unit=tok.unit, marker=tok.marker,
                         byte_fallback=tok.byte_fallback, unk_token=tok.unk_token)
    finally:
        ke.MergeTable = saved


def machine_info() -> str:
    cpu = platform.processor() or "?"
    try:
        with open("/proc/cpuinfo") as f:
            cpu = next((line.split(":", 1)[1].strip() for line in f if line.startswith("model name")), cpu)
    except OSError:
        pass
    load = " / ".join(f"{x:.2f}" for x in os.getloadavg()) if hasattr(os, "getloadavg") else "?"
    import sentencepiece
    import tokenizers

    import korean_bpe
    from korean_bpe.encoding import encoder as ke

    compiled = "compiled" if ke.MergeTable is not None else "pure Python"
    return (f"{cpu}, {os.cpu_count()} cores, load average {load}; {platform.platform()}; "
            f"Python {platform.python_version()}; korean_bpe {getattr(korean_bpe, '__version__', '?')} "
            f"({compiled} merge loop), tokenizers {tokenizers.__version__}, sentencepiece {sentencepiece.__version__}")


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--nsmc-dir", help="directory with ratings_train.txt / ratings_test.txt")
    ap.add_argument("--limit", type=int, default=None, help="encode only the first N test reviews (default: all)")
    ap.add_argument("--train-limit", type=int, default=None, help="train on the first N train reviews (default: all)")
    ap.add_argument("--vocab", type=int, default=32000, help="vocabulary size of both models (default 32000)")
    ap.add_argument("--unit", nargs="+", choices=("syllable", "jamo"), default=["syllable"],
                    help="one or more units (default syllable): every pre-tokenizer x unit in one run")
    ap.add_argument("--pre-tokenizer", nargs="+", choices=("whitespace", "raw"), default=["whitespace"],
                    help="one or more pipelines (default whitespace; raw is SentencePiece's own cut)")
    ap.add_argument("--min-frequency", type=int, default=2)
    ap.add_argument("--model", help="load our tokenizer from this directory instead of training it")
    ap.add_argument("--repeat", type=int, default=3, help="timed runs of each; the best is reported (default 3)")
    ap.add_argument("--no-spm", action="store_true", help="skip SentencePiece")
    ap.add_argument("--no-pure", action="store_true", help="skip the pure-Python fallback")
    ap.add_argument("--pieces", nargs="+", metavar="PT", choices=("raw", "okt", "kiwi", "mecab"),
                    help="time pre-tokenized pieces of these pre-tokenizers (morpheme ones in lossless mode) instead")
    args = ap.parse_args(argv)
    if args.pieces:
        args.unit = args.unit[0] if len(args.unit) == 1 else args.unit
        return bench_pieces(args)
    summary: list[str] = []
    for pre_tokenizer in args.pre_tokenizer:
        for unit in args.unit:
            one = argparse.Namespace(**{**vars(args), "pre_tokenizer": pre_tokenizer, "unit": unit})
            if bench_texts(one, summary):
                return 1
    if len(summary) > 1:
        print("\nsummary (cold cache / warm cache, reviews per second and x SentencePiece in the same run):")
        print("\n".join(summary))
    return 0


def bench_texts(args: argparse.Namespace, summary: list[str]) -> int:
    """One pre-tokenizer x unit: train, check ids against HF, time (see the module docstring)."""
    sys.path.insert(0, str(ROOT))
    import sentencepiece as spm
    from tokenizers import Tokenizer as HFTokenizer

    from korean_bpe import Tokenizer
    from korean_bpe.jamo import decompose

    from korean_bpe.corpus import load_nsmc

    test, _, test_path = load_nsmc("test", limit=args.limit, directory=args.nsmc_dir)
    n_chars = sum(map(len, test))
    from korean_bpe._threads import available_cores

    cores = available_cores()
    print(f"machine: {machine_info()}")
    print(f"input: {len(test):,} reviews of {test_path} ({n_chars:,} characters)")

    train: list[str] | None = None
    with tempfile.TemporaryDirectory() as tmp:
        tmpdir = Path(tmp)
        t0 = time.perf_counter()
        if args.model:
            ours = Tokenizer.load(args.model)
            how = f"loaded from {args.model}"
        else:
            train = load_nsmc("train", limit=args.train_limit, directory=args.nsmc_dir).texts
            ours = Tokenizer.train(train, vocab_size=args.vocab, pre_tokenizer=args.pre_tokenizer, unit=args.unit,
                                   min_frequency=args.min_frequency, show_progress=False)
            how = f"trained on {len(train):,} train reviews in {time.perf_counter() - t0:.1f} s"
        unit = getattr(ours.unit, "name", str(ours.unit))
        print(f"ours: {ours!r}, {how}")
        hf = HFTokenizer.from_file(str(ours.to_huggingface(tmpdir / "tokenizer.json")))

        sp = None
        spm_input = test
        if not args.no_spm:
            if train is None:
                train = load_nsmc("train", limit=args.train_limit, directory=args.nsmc_dir).texts
            spm_train = [decompose(t) for t in train] if unit == "jamo" else train
            spm_input = [decompose(t) for t in test] if unit == "jamo" else test
            t0 = time.perf_counter()
            spm.SentencePieceTrainer.train(
                sentence_iterator=iter(spm_train), model_prefix=str(tmpdir / "spm"), model_type="bpe",
                vocab_size=ours.vocab_size, character_coverage=1.0, normalization_rule_name="identity",
                num_threads=cores, minloglevel=2, input_sentence_size=0,
                max_sentence_length=1 << 16, bos_id=-1, eos_id=-1,
            )
            sp = spm.SentencePieceProcessor(model_file=str(tmpdir / "spm.model"))
            print(f"sentencepiece: BPE, vocab {sp.get_piece_size():,}, trained on the same texts"
                  f"{' (decomposed into jamo)' if unit == 'jamo' else ''} in {time.perf_counter() - t0:.1f} s")

        # --- identity check: HF runs our exported model ------------------------------------------
        ours.clear_cache()
        ids_ours = ours.encode_batch(test)
        ids_hf = [e.ids for e in hf.encode_batch(test, add_special_tokens=False)]
        bad = [k for k, (a, b) in enumerate(zip(ids_ours, ids_hf)) if a != b]
        known = [k for k in bad if unit == "jamo" and unicodedata.normalize("NFD", test[k]) != decompose(test[k])]
        real = [k for k in bad if k not in set(known)]
        print(f"ids ours == HF: {len(test) - len(bad):,} / {len(test):,} reviews"
              + (f" ({len(known)} differ where HF's NFD is not our jamo unit, documented)" if known else ""))
        if real:
            k = real[0]
            print(f"ERROR: {len(real)} reviews differ, first #{k} {test[k]!r}:\n  ours {ids_ours[k]}\n  HF   {ids_hf[k]}")
            return 1
        n_tokens = sum(map(len, ids_ours))
        print(f"tokens: {n_tokens:,} ours/HF ({n_tokens / len(test):.2f} a review)"
              + (f", {sum(map(len, sp.encode(spm_input))):,} SentencePiece" if sp is not None else ""))

        # --- timings -----------------------------------------------------------------------------
        rows: list[tuple[str, float]] = []
        for n in (cores, 1):  # every core (encode_batch's default), then the one-thread path
            if ours.encode_batch(test, num_threads=n) != ids_ours:
                print(f"ERROR: num_threads={n} gives other ids than the default")
                return 1
            _, t = best_of(lambda: ours.encode_batch(test, num_threads=n), args.repeat, before=ours.clear_cache)
            rows.append((f"ours encode_batch, {n} thread{'s' if n > 1 else ''}, cold cache", t))
            ours.encode_batch(test, num_threads=n)
            _, t = best_of(lambda: ours.encode_batch(test, num_threads=n), args.repeat)
            rows.append((f"ours encode_batch, {n} thread{'s' if n > 1 else ''}, warm cache", t))
        if not args.no_pure:
            pure = pure_python(ours)
            if pure.encode_batch(test) != ids_ours:
                print("ERROR: the pure-Python fallback gives other ids than the compiled core")
                return 1
            _, t = best_of(lambda: pure.encode_batch(test), args.repeat, before=pure.clear_cache)
            rows.append(("ours, pure-Python fallback, cold cache", t))
            _, t = best_of(lambda: pure.encode_batch(test), args.repeat)
            rows.append(("ours, pure-Python fallback, warm cache", t))
        _, t = best_of(lambda: hf.encode_batch(test, add_special_tokens=False), args.repeat)
        rows.append(("HF encode_batch", t))
        if hasattr(hf, "encode_batch_fast"):
            _, t = best_of(lambda: hf.encode_batch_fast(test, add_special_tokens=False), args.repeat)
            rows.append(("HF encode_batch_fast (no offsets)", t))
        if sp is not None:
            _, t = best_of(lambda: sp.encode(spm_input, num_threads=cores), args.repeat)
            rows.append((f"SentencePiece encode, num_threads={cores}", t))

    hf_time = next(t for name, t in rows if name == "HF encode_batch")
    sp_time = next((t for name, t in rows if name.startswith("SentencePiece")), float("nan"))
    print(f"\nencode {len(test):,} reviews, {ours.pre_tokenizer.name}/{args.unit}, vocab {ours.vocab_size:,}, "
          f"best of {args.repeat}:")
    print(f"  {'':<40} {'seconds':>9} {'reviews/s':>12} {'vs HF encode_batch':>19} {'vs SentencePiece':>17}")
    for name, t in rows:
        print(f"  {name:<40} {t:9.3f} {len(test) / t:12,.0f} {hf_time / t:18.2f}x {sp_time / t:16.2f}x")
    print(f"(load average at the end: {' / '.join(f'{x:.2f}' for x in os.getloadavg())}; "
          f"{os.cpu_count()} cores shared with whatever else runs)")
    cold, warm, cold1, warm1 = rows[0][1], rows[1][1], rows[2][1], rows[3][1]
    summary.append(f"  {ours.pre_tokenizer.name}/{args.unit:<9} {cores} threads: cold {len(test) / cold:9,.0f}/s "
                   f"{sp_time / cold:5.2f}x SP, {cold1 / cold:4.2f}x 1 thread; warm {len(test) / warm:9,.0f}/s "
                   f"{sp_time / warm:5.2f}x SP, {warm1 / warm:4.2f}x 1 thread;   HF {hf_time / cold:5.2f}x slower (cold); "
                   f"SentencePiece {len(test) / sp_time:9,.0f}/s")
    return 0


def best_of_cpu(fn, repeat: int, before=None) -> tuple[object, float, float]:
    """:func:`best_of`, with the CPU time (``time.process_time``) of the best run."""
    best, cpu, out = float("inf"), 0.0, None
    for _ in range(repeat):
        if before is not None:
            before()
        c0, t0 = time.process_time(), time.perf_counter()
        out = fn()
        t, c = time.perf_counter() - t0, time.process_time() - c0
        if t < best:
            best, cpu = t, c
    return out, best, cpu


def hf_for_pieces(ours, path: Path):
    """HF ``tokenizers`` running our model on pieces given as they are: the exported
    tokenizer.json without its pre-tokenizer and normalizer (jamo keeps ``NFD``, its unit)."""
    import json

    from tokenizers import Tokenizer as HFTokenizer

    config = json.loads(ours.to_huggingface(path).read_text(encoding="utf-8"))
    config["pre_tokenizer"] = None
    config["normalizer"] = {"type": "NFD"} if ours.unit.name == "jamo" else None
    return HFTokenizer.from_str(json.dumps(config))


def bench_pieces(args: argparse.Namespace) -> int:
    """The ``--pieces`` section (see the module docstring)."""
    sys.path.insert(0, str(ROOT))
    from korean_bpe import Tokenizer
    from korean_bpe.counting import WordCounts
    from korean_bpe.corpus import load_nsmc
    from korean_bpe.jamo import decompose

    test, _, test_path = load_nsmc("test", limit=args.limit, directory=args.nsmc_dir)
    train = load_nsmc("train", limit=args.train_limit, directory=args.nsmc_dir).texts
    print(f"machine: {machine_info()}")
    print(f"input: {len(test):,} reviews of {test_path}; train {len(train):,} reviews")
    status = 0
    for name in args.pieces:
        spec = {"type": name} if name == "raw" else {"type": name, "drop": [], "lossless": True}
        t0 = time.perf_counter()
        counts = WordCounts.from_texts(train, pre_tokenizer=spec, show_progress=False)
        t_count = time.perf_counter() - t0
        t0 = time.perf_counter()
        pieces = counts.pre_tokenizer.batch(test)
        t_pre = time.perf_counter() - t0
        n_pieces = sum(map(len, pieces))
        print(f"\n{counts.pre_tokenizer!r}: train counted in {t_count:.1f} s ({len(counts):,} distinct pieces); "
              f"test pre-tokenized once in {t_pre:.1f} s, {n_pieces:,} pieces (not timed below)")
        for unit in ("syllable", "jamo"):
            ours = Tokenizer.train_from_counts(counts, vocab_size=args.vocab, unit=unit,
                                               min_frequency=args.min_frequency, show_progress=False)
            with tempfile.TemporaryDirectory() as tmp:
                hf = hf_for_pieces(ours, Path(tmp) / "tokenizer.json")
            ours.clear_cache()
            ids_ours = ours.encode_pretokenized(pieces)
            ids_hf = [e.ids for e in hf.encode_batch(pieces, is_pretokenized=True, add_special_tokens=False)]
            bad = [k for k, (a, b) in enumerate(zip(ids_ours, ids_hf)) if a != b]
            known = [k for k in bad if unit == "jamo" and unicodedata.normalize("NFD", test[k]) != decompose(test[k])]
            real = sorted(set(bad) - set(known))
            print(f"{ours!r}\nids ours == HF: {len(test) - len(bad):,} / {len(test):,} reviews"
                  + (f" ({len(known)} differ where HF's NFD is not our jamo unit, documented)" if known else ""))
            if real:
                k = real[0]
                print(f"ERROR: {len(real)} reviews differ, first #{k} {pieces[k]!r}:\n  ours {ids_ours[k]}\n"
                      f"  HF   {ids_hf[k]}")
                status = 1
                continue
            rows: list[tuple[str, float, float]] = []
            encode = ours.encode_pretokenized
            rows.append(("ours, cold cache", *best_of_cpu(lambda: encode(pieces), args.repeat, ours.clear_cache)[1:]))
            rows.append(("ours, warm cache", *best_of_cpu(lambda: encode(pieces), args.repeat)[1:]))
            if not args.no_pure:
                pure = pure_python(ours)
                if pure.encode_pretokenized(pieces) != ids_ours:
                    print("ERROR: the pure-Python fallback gives other ids than the compiled core")
                    return 1
                rows.append(("ours, pure-Python fallback, cold cache",
                             *best_of_cpu(lambda: pure.encode_pretokenized(pieces), args.repeat, pure.clear_cache)[1:]))
                rows.append(("ours, pure-Python fallback, warm cache",
                             *best_of_cpu(lambda: pure.encode_pretokenized(pieces), args.repeat)[1:]))
            rows.append(("HF encode_batch(is_pretokenized)", *best_of_cpu(
                lambda: hf.encode_batch(pieces, is_pretokenized=True, add_special_tokens=False), args.repeat)[1:]))
            if hasattr(hf, "encode_batch_fast"):
                rows.append(("HF encode_batch_fast(is_pretokenized)", *best_of_cpu(
                    lambda: hf.encode_batch_fast(pieces, is_pretokenized=True, add_special_tokens=False),
                    args.repeat)[1:]))
            if name == "raw":
                rows.append(("ours encode_batch(texts), cold, pre-tok. incl.",
                             *best_of_cpu(lambda: ours.encode_batch(test), args.repeat, ours.clear_cache)[1:]))
            hf_time = rows[next(k for k, r in enumerate(rows) if r[0].startswith("HF encode_batch("))][1]
            print(f"encode the pieces of {len(test):,} reviews, {name}, {unit}, vocab {ours.vocab_size:,}, "
                  f"best of {args.repeat}:")
            print(f"  {'':<48} {'wall s':>7} {'CPU s':>7} {'reviews/s':>10} {'vs HF encode_batch':>19}")
            for label, t, c in rows:
                print(f"  {label:<48} {t:7.3f} {c:7.3f} {len(test) / t:10,.0f} {hf_time / t:18.2f}x")
            print(f"(load average: {' / '.join(f'{x:.2f}' for x in os.getloadavg())}; "
                  f"{os.cpu_count()} cores shared with whatever else runs)")
    return status


if __name__ == "__main__":
    sys.exit(main())
