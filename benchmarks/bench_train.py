#!/usr/bin/env python
"""Training benchmark (issue #4): korean_bpe vs HF tokenizers vs SentencePiece vs subword-nmt.

Same texts for everyone: the NSMC train split (165,320 reviews), whitespace pre-tokenization,
syllable or jamo symbols, vocab 8k and 32k.  Each measurement runs once, in a fresh worker
process (so that its peak RSS is its own), timed from the texts in memory to a trained model:

* ours: ``korean_bpe.trainer.fast.count_words`` (``str.split`` + counting) + ``split_words``
  (unit symbols) + :func:`korean_bpe.trainer.train_bpe` (``min_frequency=0``,
  ``special_tokens=("<unk>",)``, as HF's defaults);
* HF tokenizers: ``Tokenizer(BPE)`` + ``WhitespaceSplit`` + ``BpeTrainer`` via
  ``train_from_iterator`` (same vocab size and special token); for jamo HF gets the texts already
  decomposed into conjoining jamo (the same symbols; decomposing is *not* in HF's time, it is in
  ours);
* SentencePiece: ``model_type="bpe"``, ``normalization_rule_name="identity"`` (jamo stay jamo),
  ``character_coverage=1.0``, the same texts (jamo: decomposed, outside the timer), ``num_threads``
  = CPU count.  Its vocabulary is not the same thing: it counts ``<unk> <s> </s>``, every
  character, and pieces carrying the ``▁`` word-start mark, so only the time is comparable;
* subword-nmt ``learn_bpe``: very slow, so by default on the first ``--snmt-limit`` texts, with the
  same number of merges as ours makes there (both ``min_frequency=2``); the table gives both
  times on that subset and the ratio.

The script checks that our merges equal HF's (same list, same order) and prints times, ratios to
ours and peak memory.  Peak RSS is the worker's ``VmHWM``; "+MB" is peak minus the worker's RSS
just before the timer (interpreter, libraries and the texts already loaded): the training's own
memory.

    python benchmarks/bench_train.py                      # full size (the README table)
    python benchmarks/bench_train.py --limit 20000 --vocab 8000 --units syllable
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import resource
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
PEERS = ("ours", "hf", "spm", "snmt")


# --- worker side --------------------------------------------------------------------------------


def _rss_mb() -> float:
    with open("/proc/self/status") as f:
        for line in f:
            if line.startswith("VmRSS:"):
                return int(line.split()[1]) / 1024
    return float("nan")


def _peak_mb() -> float:
    """Peak RSS of this process: VmHWM (``ru_maxrss`` would also count the driver's memory,
    since Linux carries it over fork + exec)."""
    with open("/proc/self/status") as f:
        for line in f:
            if line.startswith("VmHWM:"):
                return int(line.split()[1]) / 1024
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024  # KB on Linux


def _jamo_texts(texts: list[str]) -> list[str]:
    from korean_bpe.jamo import decompose

    return [decompose(t) for t in texts]


def run_ours(texts: list[str], unit: str, vocab: int, min_frequency: int, num_merges: int | None) -> dict:
    from korean_bpe.trainer import train_bpe
    from korean_bpe.trainer.fast import count_words, split_words

    base = _rss_mb()
    t0 = time.perf_counter()
    counts = count_words(texts)  # whitespace pre-tokenization (str.split) + counting
    t1 = time.perf_counter()
    word_counts = split_words(counts, unit=unit)  # words -> unit symbols
    t2 = time.perf_counter()
    model = train_bpe(word_counts, vocab_size=None if num_merges else vocab, num_merges=num_merges,
                      min_frequency=min_frequency, special_tokens=("<unk>",), show_progress=False)
    t3 = time.perf_counter()
    return {
        "time": t3 - t0, "phases": {"count": t1 - t0, "split": t2 - t1, "train": t3 - t2},
        "base_mb": base, "peak_mb": _peak_mb(), "merges": [list(m) for m in model.merges],
        "vocab_size": model.vocab_size, "words": len(counts),
    }


def run_hf(texts: list[str], unit: str, vocab: int) -> dict:
    from tokenizers import Tokenizer, models, pre_tokenizers, trainers

    if unit == "jamo":
        texts = _jamo_texts(texts)
    tok = Tokenizer(models.BPE(unk_token="<unk>"))
    tok.pre_tokenizer = pre_tokenizers.WhitespaceSplit()
    trainer = trainers.BpeTrainer(vocab_size=vocab, min_frequency=0, special_tokens=["<unk>"], show_progress=False)
    base = _rss_mb()
    t0 = time.perf_counter()
    tok.train_from_iterator(texts, trainer, length=len(texts))
    t1 = time.perf_counter()
    peak = _peak_mb()
    model = json.loads(tok.to_str())["model"]
    return {"time": t1 - t0, "base_mb": base, "peak_mb": peak, "merges": model["merges"],
            "vocab_size": len(model["vocab"])}


def run_spm(texts: list[str], unit: str, vocab: int) -> dict:
    import io

    import sentencepiece as spm

    if unit == "jamo":
        texts = _jamo_texts(texts)
    out = io.BytesIO()
    base = _rss_mb()
    t0 = time.perf_counter()
    spm.SentencePieceTrainer.train(
        sentence_iterator=iter(texts), model_writer=out, model_type="bpe", vocab_size=vocab,
        normalization_rule_name="identity", character_coverage=1.0, input_sentence_size=0,
        num_threads=os.cpu_count() or 1, minloglevel=2,
    )
    t1 = time.perf_counter()
    sp = spm.SentencePieceProcessor(model_proto=out.getvalue())
    return {"time": t1 - t0, "base_mb": base, "peak_mb": _peak_mb(), "vocab_size": sp.get_piece_size()}


def run_snmt(texts: list[str], unit: str, num_merges: int) -> dict:
    import io

    from subword_nmt.learn_bpe import learn_bpe

    if unit == "jamo":
        texts = _jamo_texts(texts)
    infile = io.StringIO("\n".join(texts) + "\n")
    outfile = io.StringIO()
    base = _rss_mb()
    stderr, sys.stderr = sys.stderr, open(os.devnull, "w")  # its tqdm bar
    try:
        t0 = time.perf_counter()
        learn_bpe(infile, outfile, num_merges, min_frequency=2)
        t1 = time.perf_counter()
    finally:
        sys.stderr.close()
        sys.stderr = stderr
    merges = [l for l in outfile.getvalue().splitlines() if l and not l.startswith("#version")]
    return {"time": t1 - t0, "base_mb": base, "peak_mb": _peak_mb(), "n_merges": len(merges)}


def worker(args: argparse.Namespace) -> None:
    texts = Path(args.texts).read_text(encoding="utf-8").split("\n")
    if args.limit:
        texts = texts[: args.limit]
    if args.worker == "ours":
        res = run_ours(texts, args.unit, args.vocab, args.min_frequency, args.num_merges)
    elif args.worker == "hf":
        res = run_hf(texts, args.unit, args.vocab)
    elif args.worker == "spm":
        res = run_spm(texts, args.unit, args.vocab)
    else:
        res = run_snmt(texts, args.unit, args.num_merges)
    Path(args.out).write_text(json.dumps(res, ensure_ascii=False), encoding="utf-8")


# --- driver side --------------------------------------------------------------------------------


def load_texts(nsmc_dir: Path, limit: int | None) -> list[str]:
    import pandas as pd

    df = pd.read_csv(nsmc_dir / "ratings_train.txt", sep="\t", quoting=3, keep_default_na=False)
    texts = df["document"].astype(str).tolist()
    # one text a line for the workers: a review holding a line break would shift the others
    texts = [" ".join(t.split("\n")) for t in texts]
    return texts[:limit] if limit else texts


def find_nsmc(arg: str | None) -> Path:
    for cand in (arg, os.environ.get("KOREAN_BPE_NSMC_DIR"), ROOT.parent / "shared" / "corpora" / "nsmc"):
        if cand and (Path(cand) / "ratings_train.txt").is_file():
            return Path(cand)
    sys.exit("NSMC not found: pass --nsmc-dir DIR (holding ratings_train.txt) or set KOREAN_BPE_NSMC_DIR")


def spawn(peer: str, texts_file: Path, unit: str, vocab: int, tmp: Path, *, limit: int | None = None,
          num_merges: int | None = None, min_frequency: int = 0) -> dict:
    out = tmp / f"{peer}-{unit}-{vocab}-{limit}.json"
    cmd = [sys.executable, __file__, "--worker", peer, "--texts", str(texts_file), "--unit", unit,
           "--vocab", str(vocab), "--out", str(out), "--min-frequency", str(min_frequency)]
    if limit:
        cmd += ["--limit", str(limit)]
    if num_merges is not None:
        cmd += ["--num-merges", str(num_merges)]
    subprocess.run(cmd, check=True)
    return json.loads(out.read_text(encoding="utf-8"))


def machine() -> str:
    cpu = platform.processor() or "?"
    try:
        for line in Path("/proc/cpuinfo").read_text().splitlines():
            if line.startswith("model name"):
                cpu = line.split(":", 1)[1].strip()
                break
    except OSError:
        pass
    mem = ""
    try:
        kb = int(Path("/proc/meminfo").read_text().split()[1])
        mem = f", {kb / 1024**2:.0f} GB RAM"
    except (OSError, ValueError, IndexError):
        pass
    return f"{cpu}, {os.cpu_count()} CPUs{mem}, {platform.system()} {platform.release()}, Python {platform.python_version()}"


def versions() -> str:
    from importlib.metadata import PackageNotFoundError, version

    out = []
    for pkg in ("korean_bpe", "tokenizers", "sentencepiece", "subword-nmt"):
        try:
            out.append(f"{pkg} {version(pkg)}")
        except PackageNotFoundError:
            out.append(f"{pkg} (not installed)")
    from korean_bpe.trainer import fast

    out.append("compiled engine" if fast.compiled_available() else "pure-Python engine (no compiled core)")
    return ", ".join(out)


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--nsmc-dir", help="directory holding ratings_train.txt (default: $KOREAN_BPE_NSMC_DIR or ../shared/corpora/nsmc)")
    p.add_argument("--limit", type=int, default=None, help="use only the first N reviews (default: all 165,320)")
    p.add_argument("--vocab", type=int, nargs="+", default=[8000, 32000])
    p.add_argument("--units", nargs="+", default=["syllable", "jamo"], choices=["syllable", "jamo"])
    p.add_argument("--peers", nargs="+", default=list(PEERS), choices=PEERS)
    p.add_argument("--snmt-limit", type=int, default=5000,
                   help="subword-nmt (and ours, for its ratio) on the first N reviews; 0 = all (slow)")
    p.add_argument("--json", help="also write the results to this file")
    # worker mode (internal)
    p.add_argument("--worker", choices=PEERS, help=argparse.SUPPRESS)
    p.add_argument("--texts", help=argparse.SUPPRESS)
    p.add_argument("--unit", help=argparse.SUPPRESS)
    p.add_argument("--out", help=argparse.SUPPRESS)
    p.add_argument("--num-merges", type=int, default=None, help=argparse.SUPPRESS)
    p.add_argument("--min-frequency", type=int, default=0, help=argparse.SUPPRESS)
    args = p.parse_args(argv)
    if args.worker:
        args.vocab = args.vocab[0]
        worker(args)
        return 0

    texts = load_texts(find_nsmc(args.nsmc_dir), args.limit)
    print(f"machine: {machine()}")
    print(f"versions: {versions()}")
    print(f"texts: {len(texts):,} NSMC train reviews" + (f" (--limit {args.limit})" if args.limit else ""))
    results: list[dict] = []
    ok = True
    with tempfile.TemporaryDirectory() as tmpdir:
        tmp = Path(tmpdir)
        texts_file = tmp / "texts.txt"
        texts_file.write_text("\n".join(texts), encoding="utf-8")
        header = f"{'unit':<9} {'vocab':>6}  {'peer':<34} {'time s':>8} {'vs ours':>8} {'peak MB':>8} {'+MB':>7}  note"
        print(header)
        print("-" * len(header))
        for unit in args.units:
            for vocab in args.vocab:
                rows: dict[str, dict] = {}
                for peer in ("ours", "hf", "spm"):
                    if peer in args.peers:
                        rows[peer] = spawn(peer, texts_file, unit, vocab, tmp)
                note = {}
                if "ours" in rows:
                    ph = rows["ours"]["phases"]
                    note["ours"] = (f"{len(rows['ours']['merges'])} merges; count {ph['count']:.2f} + split "
                                    f"{ph['split']:.2f} + train {ph['train']:.2f} s")
                if "ours" in rows and "hf" in rows:
                    same = rows["ours"]["merges"] == rows["hf"]["merges"]
                    ok &= same
                    note["hf"] = "merges identical to ours" if same else _first_diff(rows["ours"]["merges"], rows["hf"]["merges"])
                if "spm" in rows:
                    note["spm"] = f"{rows['spm']['vocab_size']} pieces (own vocab semantics)"
                for peer, res in rows.items():
                    ratio = res["time"] / rows["ours"]["time"] if "ours" in rows else float("nan")
                    _row(unit, vocab, _NAMES[peer], res, ratio, note.get(peer, ""))
                    results.append({"unit": unit, "vocab": vocab, "peer": peer, **{k: v for k, v in res.items() if k != "merges"}})
                if "snmt" in args.peers:
                    lim = args.snmt_limit or None
                    sub = spawn("ours", texts_file, unit, vocab, tmp, limit=lim, min_frequency=2)
                    n = len(sub["merges"])
                    sn = spawn("snmt", texts_file, unit, vocab, tmp, limit=lim, num_merges=n)
                    where = f"first {lim:,} reviews" if lim else "all reviews"
                    _row(unit, vocab, f"ours ({where}, {n} merges)", sub, 1.0, "min_frequency=2")
                    _row(unit, vocab, f"subword-nmt ({where})", sn, sn["time"] / sub["time"],
                         f"{sn['n_merges']} merges, {sn['n_merges'] / sn['time']:.0f} merges/s vs ours {n / sub['time']:.0f}")
                    results.append({"unit": unit, "vocab": vocab, "peer": "ours-subset", "limit": lim, **{k: v for k, v in sub.items() if k != "merges"}})
                    results.append({"unit": unit, "vocab": vocab, "peer": "snmt", "limit": lim, **sn})
    if args.json:
        Path(args.json).write_text(json.dumps(results, indent=1), encoding="utf-8")
    print("ours == HF merges in every run" if ok else "MERGES DIFFER FROM HF (see notes)")
    return 0 if ok else 1


_NAMES = {"ours": "korean_bpe train_bpe", "hf": "HF tokenizers BpeTrainer", "spm": "SentencePiece BPE"}


def _row(unit: str, vocab: int, name: str, res: dict, ratio: float, note: str) -> None:
    print(f"{unit:<9} {vocab:>6}  {name:<34} {res['time']:>8.2f} {ratio:>7.2f}x {res['peak_mb']:>8.0f} "
          f"{res['peak_mb'] - res['base_mb']:>7.0f}  {note}", flush=True)


def _first_diff(a: list, b: list) -> str:
    for i, (x, y) in enumerate(zip(a, b)):
        if x != y:
            return f"MERGES DIFFER at {i}: ours {x} vs HF {y}"
    return f"MERGES DIFFER in length: ours {len(a)} vs HF {len(b)}"


if __name__ == "__main__":
    sys.exit(main())
