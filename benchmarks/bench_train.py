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

The script checks that our merges equal HF's (same list, same order) and prints, on stdout, a
Markdown table (times, ratios to ours, peak memory, merges == HF) with the command and the machine,
then the issue's targets checked on this run's numbers (exit status 1 if one fails); progress goes
to stderr.  Peak RSS is the worker's ``VmHWM``; "+MB" is peak minus the worker's RSS
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
    p = argparse.ArgumentParser(
        description=__doc__.split("\n\n")[0],
        epilog="Default: the full benchmark of issue #4 (all 165,320 reviews; syllable and jamo; vocab 8k "
               "and 32k; ours, HF, SentencePiece; subword-nmt on the first 5,000 reviews).",
    )
    p.add_argument("--nsmc-dir", help="directory holding ratings_train.txt (default: $KOREAN_BPE_NSMC_DIR or ../shared/corpora/nsmc)")
    p.add_argument("--limit", type=int, default=None, help="use only the first N reviews (default: all 165,320)")
    p.add_argument("--vocab", type=int, nargs="+", default=[8000, 32000])
    p.add_argument("--units", nargs="+", default=["syllable", "jamo"], choices=["syllable", "jamo"])
    p.add_argument("--peers", nargs="+", default=list(PEERS), choices=PEERS)
    p.add_argument("--snmt-limit", type=int, default=5000,
                   help="subword-nmt (and ours again, for its ratio) on the first N reviews (default 5000); 0 = all (hours)")
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
    n_texts = len(texts)
    command = "python benchmarks/bench_train.py" + "".join(f" {a}" for a in (sys.argv[1:] if argv is None else argv))
    rows: list[dict] = []  # one per table row
    results: list[dict] = []
    with tempfile.TemporaryDirectory() as tmpdir:
        tmp = Path(tmpdir)
        texts_file = tmp / "texts.txt"
        texts_file.write_text("\n".join(texts), encoding="utf-8")
        for unit in args.units:
            for vocab in args.vocab:
                got: dict[str, dict] = {}
                for peer in ("ours", "hf", "spm"):
                    if peer in args.peers:
                        _progress(f"{unit} {vocab}: {_NAMES[peer]} on {n_texts:,} reviews ...")
                        got[peer] = spawn(peer, texts_file, unit, vocab, tmp)
                        _progress(f"  {got[peer]['time']:.2f} s, peak {got[peer]['peak_mb']:.0f} MB")
                ours = got.get("ours")
                for peer, res in got.items():
                    row = {"unit": unit, "vocab": vocab, "tool": _NAMES[peer], "peer": peer, "texts": n_texts,
                           "res": res, "ratio": res["time"] / ours["time"] if ours else None}
                    if peer == "ours":
                        ph = res["phases"]
                        row["merges"] = len(res["merges"])
                        row["note"] = f"count {ph['count']:.2f} + split {ph['split']:.2f} + train {ph['train']:.2f} s"
                    elif peer == "hf":
                        row["merges"] = len(res["merges"])
                        if ours:
                            row["same"] = ours["merges"] == res["merges"]
                            row["note"] = "" if row["same"] else _first_diff(ours["merges"], res["merges"])
                    elif peer == "spm":
                        row["note"] = f"{res['vocab_size']} pieces (its own vocabulary: <s>, </s>, ▁-pieces)"
                    rows.append(row)
                    results.append({"unit": unit, "vocab": vocab, "peer": peer, "texts": n_texts,
                                    **{k: v for k, v in res.items() if k != "merges"}})
                if "snmt" in args.peers:
                    lim = min(args.snmt_limit, n_texts) if args.snmt_limit else n_texts
                    _progress(f"{unit} {vocab}: ours and subword-nmt on the first {lim:,} reviews ...")
                    sub = spawn("ours", texts_file, unit, vocab, tmp, limit=lim, min_frequency=2)
                    n = len(sub["merges"])
                    sn = spawn("snmt", texts_file, unit, vocab, tmp, limit=lim, num_merges=n)
                    _progress(f"  ours {sub['time']:.2f} s, subword-nmt {sn['time']:.2f} s")
                    rows.append({"unit": unit, "vocab": vocab, "tool": "korean_bpe (subset)", "peer": "ours-subset",
                                 "texts": lim, "res": sub, "ratio": 1.0, "merges": n, "note": "min_frequency=2"})
                    rows.append({"unit": unit, "vocab": vocab, "tool": "subword-nmt learn_bpe (subset)", "peer": "snmt",
                                 "texts": lim, "res": sn, "ratio": sn["time"] / sub["time"], "merges": sn["n_merges"],
                                 "note": "same number of merges as ours, min_frequency=2"})
                    results.append({"unit": unit, "vocab": vocab, "peer": "ours-subset", "texts": lim,
                                    **{k: v for k, v in sub.items() if k != "merges"}})
                    results.append({"unit": unit, "vocab": vocab, "peer": "snmt", "texts": lim, **sn})
    if args.json:
        Path(args.json).write_text(json.dumps(results, indent=1), encoding="utf-8")

    print(f"Command: `{command}`  ")
    print(f"Machine: {machine()}  ")
    print(f"Versions: {versions()}  ")
    print(f"Texts: NSMC ratings_train.txt, {n_texts:,} reviews" + (f" (--limit {args.limit})" if args.limit else "")
          + "; whitespace words; every time is from the texts in memory to a trained model (one run each, "
          "fresh process)")
    print()
    print(_table(rows))
    print()
    print("× ours: the tool's time / korean_bpe's on the same reviews (subset rows: vs korean_bpe on that subset). "
          "peak MB: the worker process's peak RSS (VmHWM); +MB: peak minus RSS just before the timer (interpreter, "
          "libraries and texts already loaded). Jamo: HF, SentencePiece and subword-nmt get the texts already "
          "decomposed (outside their timers); ours decomposes inside its time.")
    print()
    checks = _targets(rows)
    for line in checks:
        print(line)
    return 0 if all(not line.startswith("- FAIL") for line in checks) else 1


_NAMES = {"ours": "korean_bpe train_bpe", "hf": "HF tokenizers BpeTrainer", "spm": "SentencePiece BPE"}


def _progress(msg: str) -> None:
    print(msg, file=sys.stderr, flush=True)


def _table(rows: list[dict]) -> str:
    """A Markdown table, columns padded so that it also reads as plain text."""
    head = ["unit", "vocab", "tool", "reviews", "merges", "time s", "× ours", "peak MB", "+MB", "merges = HF", "note"]
    body = []
    for r in rows:
        res = r["res"]
        same = {True: "yes", False: "**NO**"}.get(r.get("same"), "")
        if r["peer"] == "ours":
            same = "(reference)"
        ratio = "" if r["ratio"] is None else f"{r['ratio']:.2f}"
        body.append([r["unit"], f"{r['vocab']:,}", r["tool"], f"{r['texts']:,}",
                     "" if r.get("merges") is None else f"{r['merges']:,}", f"{res['time']:.2f}", ratio,
                     f"{res['peak_mb']:.0f}", f"{res['peak_mb'] - res['base_mb']:.0f}", same, r.get("note", "")])
    right = {1, 3, 4, 5, 6, 7, 8}
    widths = [max(len(h), *(len(b[i]) for b in body)) if body else len(h) for i, h in enumerate(head)]

    def line(cells: list[str]) -> str:
        return "| " + " | ".join(c.rjust(w) if i in right else c.ljust(w) for i, (c, w) in enumerate(zip(cells, widths))) + " |"

    rule = "|" + "|".join(("-" * (w + 1) + ":") if i in right else ("-" * (w + 2)) for i, w in enumerate(widths)) + "|"
    return "\n".join([line(head), rule, *map(line, body)])


def _targets(rows: list[dict]) -> list[str]:
    """The targets of issue #4, checked on this run's numbers."""
    out = ["Targets (issue #4):"]

    def mark(ok: bool) -> str:
        return "- PASS" if ok else "- FAIL"

    by = {(r["unit"], r["vocab"], r["peer"]): r for r in rows}
    for (unit, vocab, peer), r in by.items():
        if peer != "ours":
            continue
        t = r["res"]["time"]
        hf, spm = by.get((unit, vocab, "hf")), by.get((unit, vocab, "spm"))
        if hf:
            out.append(f"{mark(t < hf['res']['time'])} {unit} {vocab}: faster than HF tokenizers "
                       f"({t:.2f} s vs {hf['res']['time']:.2f} s, {hf['ratio']:.1f}x)")
            out.append(f"{mark(bool(hf.get('same')))} {unit} {vocab}: merges identical to HF's")
            out.append(f"{mark(r['res']['peak_mb'] <= hf['res']['peak_mb'])} {unit} {vocab}: peak memory at most HF's "
                       f"({r['res']['peak_mb']:.0f} MB vs {hf['res']['peak_mb']:.0f} MB)")
        if spm:
            out.append(f"{mark(t < spm['res']['time'])} {unit} {vocab}: faster than SentencePiece "
                       f"({t:.2f} s vs {spm['res']['time']:.2f} s, {spm['ratio']:.1f}x)")
        sn = by.get((unit, vocab, "snmt"))
        if sn:
            out.append(f"{mark(sn['ratio'] >= 20)} {unit} {vocab}: at least 20x faster than subword-nmt "
                       f"({sn['ratio']:.0f}x on the first {sn['texts']:,} reviews)")
    for (unit, vocab, peer), sn in by.items():
        if peer == "snmt" and (unit, vocab, "ours") not in by:
            out.append(f"{mark(sn['ratio'] >= 20)} {unit} {vocab}: at least 20x faster than subword-nmt "
                       f"({sn['ratio']:.0f}x on the first {sn['texts']:,} reviews)")
    return out


def _first_diff(a: list, b: list) -> str:
    for i, (x, y) in enumerate(zip(a, b)):
        if x != y:
            return f"MERGES DIFFER at {i}: ours {x} vs HF {y}"
    return f"MERGES DIFFER in length: ours {len(a)} vs HF {len(b)}"


if __name__ == "__main__":
    sys.exit(main())
