#!/usr/bin/env python
"""Training benchmark (issues #4 and #12): korean_bpe's public path and engine vs HF tokenizers vs
SentencePiece (vs subword-nmt on request).

Same texts for everyone: the NSMC train split (165,320 reviews; line breaks inside a review made
spaces, blank reviews left out), syllable or jamo symbols, vocab 32k (``--vocab``), for two
pre-tokenizations:

* ``whitespace``: 어절 (``str.split()``), each word opening with the ``▁`` marker (our default);
* ``raw``: SentencePiece style, ``▁`` + each space-delimited word, no merge across a space.

Rows, each the median of ``--repeat`` runs (default 5; CPU time, wall time and peak memory each
their own median), each run in a fresh process:

* ``Tokenizer.train``: the public Python call, texts in memory -> a ``Tokenizer`` (counting,
  splitting, training, building the encoder), one row per ``--threads`` count (its
  ``num_threads``; default 1 and 2);
* ``korean-bpe train``: the command on the texts file, whole process (interpreter start, imports,
  reading the file, training, saving the model directory);
* engine alone: :func:`korean_bpe.counting.count_words` (``compact=True``, as ``Tokenizer.train``)
  + :func:`~korean_bpe.counting.split_words` + :func:`korean_bpe.trainer.train_bpe`, the same symbols
  and marker as ``Tokenizer.train``, without building the ``Tokenizer``, on one thread;
* HF tokenizers ``BpeTrainer`` via ``train_from_iterator`` with the same pre-tokenization
  (``raw``: ``Metaspace(prepend_scheme="always", split=True)``; ``whitespace``: ``WhitespaceSplit``
  then ``Metaspace(prepend_scheme="always", split=False)``), the same vocab size, ``min_frequency``
  and special token; jamo: HF gets the texts already decomposed (outside its timer; in ours);
* SentencePiece ``model_type="bpe"``, ``normalization_rule_name="identity"``,
  ``character_coverage=1.0``, ``input_sentence_size=0`` (every text), ``num_threads``
  ``--spm-threads`` (default: the CPU count),
  the texts in memory handed over as an iterator (``sentence_iterator``), the model written to
  memory (its own whitespace splitting, so one run per unit serves both pre-tokenizations); its
  vocabulary counts other things, so only its time and memory compare.

Time is **CPU time** (user + system, every thread of the process: ``time.process_time()`` around
the training inside the worker; for the command, ``os.wait4``'s rusage of the whole process),
because the machine is shared: wall time is printed beside it, and the 1-minute load average
when each run began (median).  The tools take turns run by run (API, command, engine, HF,
SentencePiece, then again), so that a change of load hits them alike.  Peak memory is the process's peak RSS (``VmHWM``; the command:
``ru_maxrss``), texts and libraries included; every tool holds the same texts in memory.

Our merges are checked against HF's (same list, same order) and the command's model against
``Tokenizer.train``'s.  Stdout gets a Markdown table (CPU and wall seconds, ratios, peak MB), the
command and the machine, then issue #12's targets checked on this run (exit status 1 if one
fails); progress goes to stderr.

    python benchmarks/bench_train.py                      # full size (the README table)
    python benchmarks/bench_train.py --limit 20000 --vocab 8000 --units syllable
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import resource
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

PEERS = ("api", "cli", "engine", "hf", "spm", "snmt")
DEFAULT_PEERS = ("api", "cli", "engine", "hf", "spm")
MIN_FREQUENCY = 2


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


class _Timer:
    """CPU (process-wide, all threads) and wall seconds of a block."""

    def __enter__(self) -> _Timer:
        self.base_mb = _rss_mb()
        self.c0, self.w0 = time.process_time(), time.perf_counter()
        return self

    def __exit__(self, *exc: object) -> None:
        self.cpu = time.process_time() - self.c0
        self.wall = time.perf_counter() - self.w0

    def result(self, **extra: object) -> dict:
        return {"time": self.cpu, "wall": self.wall, "base_mb": self.base_mb, "peak_mb": _peak_mb(), **extra}


def run_api(texts: list[str], pt: str, unit: str, vocab: int, min_frequency: int, num_threads: int) -> dict:
    from korean_bpe import Tokenizer

    with _Timer() as t:
        tok = Tokenizer.train(texts, vocab_size=vocab, pre_tokenizer=pt, unit=unit, min_frequency=min_frequency,
                              show_progress=False, num_threads=num_threads)
    return t.result(merges=[list(m) for m in tok.model.merges], vocab_size=tok.vocab_size)


def run_engine(texts: list[str], pt: str, unit: str, vocab: int, min_frequency: int, num_merges: int | None) -> dict:
    from korean_bpe.counting import count_words, split_words
    from korean_bpe.pre_tokenizers import get_pre_tokenizer
    from korean_bpe.tokenizer import default_marker
    from korean_bpe.trainer import train_bpe
    from korean_bpe.units import get_unit

    pre = get_pre_tokenizer(pt)
    with _Timer() as t:
        c0 = time.process_time()
        counts = count_words(texts, pre, compact=True, num_threads=1)  # pre-tokenization + counting
        c1 = time.process_time()
        word_counts = split_words(counts, get_unit(unit), marker=default_marker(pre))  # words -> marked symbols
        c2 = time.process_time()
        model = train_bpe(word_counts, vocab_size=None if num_merges else vocab, num_merges=num_merges,
                          min_frequency=min_frequency, special_tokens=("<unk>",), show_progress=False, num_threads=1)
        c3 = time.process_time()
    return t.result(phases={"count": c1 - c0, "split": c2 - c1, "train": c3 - c2},
                    merges=[list(m) for m in model.merges], vocab_size=model.vocab_size, words=len(counts))


def run_hf(texts: list[str], pt: str, unit: str, vocab: int, min_frequency: int) -> dict:
    from tokenizers import Tokenizer, models, pre_tokenizers, trainers

    if unit == "jamo":
        texts = _jamo_texts(texts)
    tok = Tokenizer(models.BPE(unk_token="<unk>"))
    if pt == "raw":
        tok.pre_tokenizer = pre_tokenizers.Metaspace(replacement="\u2581", prepend_scheme="always", split=True)
    else:
        tok.pre_tokenizer = pre_tokenizers.Sequence([
            pre_tokenizers.WhitespaceSplit(),
            pre_tokenizers.Metaspace(replacement="\u2581", prepend_scheme="always", split=False),
        ])
    trainer = trainers.BpeTrainer(vocab_size=vocab, min_frequency=min_frequency, special_tokens=["<unk>"],
                                  show_progress=False)
    with _Timer() as t:
        tok.train_from_iterator(texts, trainer, length=len(texts))
    res = t.result()
    model = json.loads(tok.to_str())["model"]
    merges = [m if isinstance(m, list) else m.split(" ") for m in model["merges"]]
    return {**res, "merges": merges, "vocab_size": len(model["vocab"])}


def run_spm(texts: list[str], unit: str, vocab: int, num_threads: int) -> dict:
    import io

    import sentencepiece as spm

    if unit == "jamo":
        texts = _jamo_texts(texts)
    out = io.BytesIO()
    with _Timer() as t:
        spm.SentencePieceTrainer.train(
            sentence_iterator=iter(texts), model_writer=out, model_type="bpe", vocab_size=vocab,
            normalization_rule_name="identity", character_coverage=1.0, input_sentence_size=0,
            num_threads=num_threads, minloglevel=2,
        )
    sp = spm.SentencePieceProcessor(model_proto=out.getvalue())
    return t.result(vocab_size=sp.get_piece_size())


def worker(args: argparse.Namespace) -> None:
    texts = Path(args.texts).read_text(encoding="utf-8").split("\n")
    if args.worker == "api":
        res = run_api(texts, args.pt, args.unit, args.vocab, args.min_frequency, args.num_threads)
    elif args.worker == "engine":
        res = run_engine(texts, args.pt, args.unit, args.vocab, args.min_frequency, None)
    elif args.worker == "hf":
        res = run_hf(texts, args.pt, args.unit, args.vocab, args.min_frequency)
    else:
        res = run_spm(texts, args.unit, args.vocab, args.num_threads)
    Path(args.out).write_text(json.dumps(res, ensure_ascii=False), encoding="utf-8")


# --- driver side --------------------------------------------------------------------------------


def load_texts(nsmc_dir: str | None, limit: int | None) -> list[str]:
    """The reviews, one a line for the workers and the command: line breaks inside a review made
    spaces (blank reviews are left out by the loader; the command's reader skips them too)."""
    from korean_bpe.corpus import load_nsmc

    texts = [" ".join(t.splitlines()) for t in load_nsmc("train", limit=limit, directory=nsmc_dir).texts]
    return [t for t in texts if t and not t.isspace()]


def _run(cmd: list[str]) -> tuple[float, float, float]:
    """Run ``cmd``; its CPU seconds (user + system, from ``wait4``), wall seconds, peak RSS MB."""
    w0 = time.perf_counter()
    proc = subprocess.Popen(cmd)
    _, status, usage = os.wait4(proc.pid, 0)
    wall = time.perf_counter() - w0
    proc.returncode = os.waitstatus_to_exitcode(status)
    if proc.returncode != 0:
        raise subprocess.CalledProcessError(proc.returncode, cmd)
    return usage.ru_utime + usage.ru_stime, wall, usage.ru_maxrss / 1024


def spawn(peer: str, texts_file: Path, pt: str, unit: str, vocab: int, tmp: Path, min_frequency: int,
          spm_threads: int) -> dict:
    if peer == "cli":
        model_dir = tmp / f"cli-{pt}-{unit}-{vocab}"
        cmd = [sys.executable, "-m", "korean_bpe.cli", "train", str(texts_file), "--pre-tokenizer", pt, "--unit", unit,
               "--vocab-size", str(vocab), "--min-frequency", str(min_frequency), "-o", str(model_dir), "--no-progress"]
        cpu, wall, peak = _run(cmd)
        merges = [line.split(" ") for line in (model_dir / "merges.txt").read_text(encoding="utf-8").splitlines()
                  if line and not line.startswith("#")]
        return {"time": cpu, "wall": wall, "peak_mb": peak, "base_mb": float("nan"), "merges": merges}
    out = tmp / f"{peer}-{pt}-{unit}-{vocab}.json".replace(":", "-")
    worker, _, threads = peer.partition(":")  # "api:2": Tokenizer.train on two threads
    threads = threads or str(spm_threads if peer == "spm" else 1)
    cmd = [sys.executable, __file__, "--worker", worker, "--texts", str(texts_file), "--pt", pt, "--unit", unit,
           "--vocab", str(vocab), "--out", str(out), "--min-frequency", str(min_frequency), "--num-threads", threads]
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
    for pkg in ("korean_bpe", "tokenizers", "sentencepiece"):
        try:
            out.append(f"{pkg} {version(pkg)}")
        except PackageNotFoundError:
            out.append(f"{pkg} (not installed)")
    from korean_bpe.trainer import fast

    out.append("compiled core" if fast.compiled_available() else "pure-Python engine (no compiled core)")
    return ", ".join(out)


_NAMES = {"api": "korean_bpe Tokenizer.train", "cli": "korean-bpe train (command)", "engine": "korean_bpe engine alone",
          "hf": "HF tokenizers BpeTrainer", "spm": "SentencePiece BPE"}


def _name(peer: str) -> str:
    """The row's tool: ``"api:2"`` is ``Tokenizer.train`` with ``num_threads=2``."""
    base, _, threads = peer.partition(":")
    if threads:
        return f"{_NAMES[base]}, {threads} thread{'s' if threads != '1' else ''}"
    return _NAMES[base]


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(
        description=__doc__.split("\n\n")[0],
        epilog="Default: all 165,320 reviews; whitespace and raw; syllable and jamo; vocab 32k; "
               "Tokenizer.train, the command, the engine, HF and SentencePiece.",
    )
    p.add_argument("--nsmc-dir", help="directory holding ratings_train.txt (default: $KOREAN_BPE_NSMC_DIR or ../shared/corpora/nsmc)")
    p.add_argument("--limit", type=int, default=None, help="use only the first N reviews (default: all 165,320)")
    p.add_argument("--vocab", type=int, nargs="+", default=[32000])
    p.add_argument("--units", nargs="+", default=["syllable", "jamo"], choices=["syllable", "jamo"])
    p.add_argument("--pre-tokenizers", nargs="+", default=["whitespace", "raw"], choices=["whitespace", "raw"])
    p.add_argument("--peers", nargs="+", default=list(DEFAULT_PEERS), choices=PEERS[:5])
    p.add_argument("--repeat", type=int, default=5,
                   help="run each measurement N times and report the medians (default 5: the machine is shared)")
    p.add_argument("--best", action="store_true",
                   help="report each tool's best run (least wall time) instead of the medians")
    p.add_argument("--threads", type=int, nargs="+", default=[1, 2],
                   help="Tokenizer.train's num_threads, one row each (default: 1 2)")
    p.add_argument("--spm-threads", type=int, default=os.cpu_count() or 1,
                   help="SentencePiece's num_threads (default: the CPU count)")
    p.add_argument("--json", help="also write the results to this file")
    # worker mode (internal)
    p.add_argument("--worker", choices=PEERS, help=argparse.SUPPRESS)
    p.add_argument("--texts", help=argparse.SUPPRESS)
    p.add_argument("--pt", help=argparse.SUPPRESS)
    p.add_argument("--unit", help=argparse.SUPPRESS)
    p.add_argument("--out", help=argparse.SUPPRESS)
    p.add_argument("--min-frequency", type=int, default=MIN_FREQUENCY, help=argparse.SUPPRESS)
    p.add_argument("--num-threads", type=int, default=1, help=argparse.SUPPRESS)
    args = p.parse_args(argv)
    if args.worker:
        args.vocab = args.vocab[0]
        worker(args)
        return 0

    texts = load_texts(args.nsmc_dir, args.limit)
    n_texts = len(texts)
    command = "python benchmarks/bench_train.py" + "".join(f" {a}" for a in (sys.argv[1:] if argv is None else argv))
    rows: list[dict] = []
    with tempfile.TemporaryDirectory() as tmpdir:
        tmp = Path(tmpdir)
        texts_file = tmp / "texts.txt"
        texts_file.write_text("\n".join(texts), encoding="utf-8")
        spm_done: dict[tuple[str, int], dict] = {}
        for unit in args.units:
            for vocab in args.vocab:
                for pt in args.pre_tokenizers:
                    got: dict[str, dict] = {}
                    order = [*(f"api:{n}" for n in args.threads), "cli", "engine", "hf", "spm"]
                    todo = [peer for peer in order if peer.partition(":")[0] in args.peers]
                    if "spm" in todo and (unit, vocab) in spm_done:
                        todo.remove("spm")
                        got["spm"] = spm_done[unit, vocab]  # its own splitting: one run per unit
                    # the tools take turns, run by run, so that each sees the same changes of load
                    runs: dict[str, list[dict]] = {peer: [] for peer in todo}
                    loads: dict[str, list[float]] = {peer: [] for peer in todo}
                    for rep in range(args.repeat):
                        for peer in todo:
                            _progress(f"{pt} {unit} {vocab}: {_name(peer)} on {n_texts:,} reviews, run {rep + 1} ...")
                            loads[peer].append(os.getloadavg()[0])
                            runs[peer].append(spawn(peer, texts_file, pt, unit, vocab, tmp, MIN_FREQUENCY,
                                                    args.spm_threads))
                            r = runs[peer][-1]
                            _progress(f"  cpu {r['time']:.2f} s, wall {r['wall']:.2f} s, peak {r['peak_mb']:.0f} MB")
                    for peer in todo:
                        got[peer] = _median_run(runs[peer], statistics.median(loads[peer]), best=args.best)
                        if peer == "spm":
                            spm_done[unit, vocab] = got[peer]
                    got = {peer: got[peer] for peer in order if peer in got}
                    rows += _rows(pt, unit, vocab, n_texts, got)
    if args.json:
        Path(args.json).write_text(json.dumps([{k: v for k, v in r.items() if k != "res"} | {
            k: v for k, v in r["res"].items() if k != "merges"} for r in rows], indent=1), encoding="utf-8")

    print(f"Command: `{command}`  ")
    print(f"Machine: {machine()}  ")
    print(f"Versions: {versions()}  ")
    print(f"Texts: NSMC ratings_train.txt, {n_texts:,} non-blank reviews" + (f" (--limit {args.limit})" if args.limit else "")
          + f"; min_frequency {MIN_FREQUENCY}; each row the {'best' if args.best else 'medians'} of {args.repeat} "
          f"runs, each in a fresh process; SentencePiece on {args.spm_threads} threads; load average at the end "
          + " / ".join(f"{x:.1f}" for x in os.getloadavg()))
    print()
    print(_table(rows))
    print()
    print("cpu s: CPU seconds (user + system, all threads) of the training, the measure of this table (the machine "
          "is shared); wall s beside it; load: the 1-minute load average when its runs began (median); the tools took turns run by run. × API: the tool's CPU time / Tokenizer.train's (the first --threads row) on the same row group; SPM wall ×: SentencePiece's wall time / the tool's. "
          "The command's time and memory are its whole process (start, imports, reading the file, saving). peak MB: "
          "the process's peak RSS, texts and libraries included. merges: = HF (same list, same order) for ours; the "
          "command's = Tokenizer.train's. SentencePiece splits on its own: one run per unit, shown in both groups.")
    print()
    checks = _targets(rows)
    for line in checks:
        print(line)
    return 0 if all(not line.startswith("- FAIL") for line in checks) else 1


def _rows(pt: str, unit: str, vocab: int, n_texts: int, got: dict[str, dict]) -> list[dict]:
    apis = [peer for peer in got if peer.startswith("api")]
    api, hf, spm = (got[apis[0]] if apis else None), got.get("hf"), got.get("spm")
    out = []
    for peer, res in got.items():
        kind = peer.partition(":")[0]
        row = {"pt": pt, "unit": unit, "vocab": vocab, "tool": _name(peer), "peer": peer, "kind": kind,
               "texts": n_texts, "res": res, "ratio": res["time"] / api["time"] if api else None,
               "spm_wall": spm["wall"] / res["wall"] if spm and kind != "spm" else None, "note": ""}
        if kind in ("api", "engine") and hf:
            row["same"] = res["merges"] == hf["merges"]
            row["merges"] = len(res["merges"])
            if not row["same"]:
                row["note"] = _first_diff(res["merges"], hf["merges"])
        if kind == "api" and api and peer != apis[0] and res["merges"] != api["merges"]:
            row["note"] = (row["note"] + " " if row["note"] else "") + "MERGES DIFFER from the first row's"
        if kind == "engine":
            ph = res["phases"]
            row["merges"] = len(res["merges"])
            row["note"] = (row["note"] + " " if row["note"] else "") + (
                f"count {ph['count']:.2f} + split {ph['split']:.2f} + train {ph['train']:.2f} s")
        if kind == "cli":
            row["merges"] = len(res["merges"])
            if api:
                row["same"] = res["merges"] == api["merges"]
                row["note"] = "merges = Tokenizer.train's" if row["same"] else "MERGES DIFFER from Tokenizer.train's"
        if kind == "hf":
            row["merges"] = len(res["merges"])
        if kind == "spm":
            row["note"] = f"{res['vocab_size']} pieces (its own vocabulary)"
        out.append(row)
    return out


def _median_run(runs: list[dict], load: float, *, best: bool = False) -> dict:
    """One result for ``runs``: the run of median CPU time (its merges and phases), with the medians
    of CPU time, wall time and peak memory, every run's CPU time, and the load average; ``best``:
    the run of least wall time instead, with the least of each."""
    if best:
        out = dict(min(runs, key=lambda r: r["wall"]))
        for key in ("time", "wall", "peak_mb"):
            out[key] = min(r[key] for r in runs)
    else:
        by_time = sorted(runs, key=lambda r: r["time"])
        out = dict(by_time[(len(runs) - 1) // 2])
        for key in ("time", "wall", "peak_mb"):
            out[key] = statistics.median(r[key] for r in runs)
    out["times"] = [r["time"] for r in runs]
    out["walls"] = [r["wall"] for r in runs]
    out["load"] = load
    return out


def _progress(msg: str) -> None:
    print(msg, file=sys.stderr, flush=True)


def _table(rows: list[dict]) -> str:
    """A Markdown table, columns padded so that it also reads as plain text."""
    head = ["pre-tok", "unit", "vocab", "tool", "merges", "cpu s", "wall s", "load", "× API", "SPM wall ×", "peak MB",
            "= HF", "note"]
    body = []
    for r in rows:
        res = r["res"]
        same = {True: "yes", False: "**NO**"}.get(r.get("same"), "")
        if r["kind"] == "cli":
            same = ""
        ratio = "" if r["ratio"] is None else f"{r['ratio']:.2f}"
        spm_wall = "" if r.get("spm_wall") is None else f"{r['spm_wall']:.2f}"
        body.append([r["pt"], r["unit"], f"{r['vocab']:,}", r["tool"],
                     "" if r.get("merges") is None else f"{r['merges']:,}", f"{res['time']:.2f}", f"{res['wall']:.2f}",
                     f"{res.get('load', float('nan')):.1f}", ratio, spm_wall, f"{res['peak_mb']:.0f}", same,
                     r.get("note", "")])
    right = {2, 4, 5, 6, 7, 8, 9, 10}
    widths = [max(len(h), *(len(b[i]) for b in body)) if body else len(h) for i, h in enumerate(head)]

    def line(cells: list[str]) -> str:
        return "| " + " | ".join(c.rjust(w) if i in right else c.ljust(w) for i, (c, w) in enumerate(zip(cells, widths))) + " |"

    rule = "|" + "|".join(("-" * (w + 1) + ":") if i in right else ("-" * (w + 2)) for i, w in enumerate(widths)) + "|"
    return "\n".join([line(head), rule, *map(line, body)])


def _targets(rows: list[dict]) -> list[str]:
    """Issue #12's targets for the user's path (the first ``--threads`` row), checked on this
    run's CPU times, and issue #33's on wall time (every row of more than one thread)."""
    out = ["Targets (issue #12, CPU time, Tokenizer.train; issue #33, wall time, Tokenizer.train on threads):"]

    def mark(ok: bool) -> str:
        return "- PASS" if ok else "- FAIL"

    by = {(r["pt"], r["unit"], r["vocab"], r["peer"]): r for r in rows}
    first: set[tuple[str, str, int]] = set()
    for (pt, unit, vocab, peer), r in by.items():
        if r["kind"] != "api":
            continue
        t, peak = r["res"]["time"], r["res"]["peak_mb"]
        hf, spm, cli = (by.get((pt, unit, vocab, k)) for k in ("hf", "spm", "cli"))
        name = f"{pt} {unit} {vocab} ({r['tool']})"
        threads = int(peer.partition(":")[2] or 1)
        if hf:
            out.append(f"{mark(bool(r.get('same')))} {name}: merges identical to HF's")
        if threads > 1 and spm and pt == "whitespace":
            out.append(f"{mark(r['spm_wall'] >= 3.5)} {name}: at least 3.5x less wall time than SentencePiece "
                       f"({r['res']['wall']:.2f} s vs {spm['res']['wall']:.2f} s, {r['spm_wall']:.2f}x)")
        if (pt, unit, vocab) in first:
            continue
        first.add((pt, unit, vocab))
        if spm:
            out.append(f"{mark(spm['ratio'] >= 2)} {name}: at least 2x faster than SentencePiece "
                       f"({t:.2f} s vs {spm['res']['time']:.2f} s CPU, {spm['ratio']:.2f}x)")
            out.append(f"{mark(peak <= spm['res']['peak_mb'])} {name}: peak memory at most SentencePiece's "
                       f"({peak:.0f} MB vs {spm['res']['peak_mb']:.0f} MB)")
        if hf:
            out.append(f"{mark(hf['ratio'] >= 4)} {name}: at least 4x faster than HF tokenizers "
                       f"({t:.2f} s vs {hf['res']['time']:.2f} s CPU, {hf['ratio']:.2f}x)")
        if cli:
            out.append(f"{mark(bool(cli.get('same')))} {name}: 'korean-bpe train' gives Tokenizer.train's merges")
    return out


def _first_diff(a: list, b: list) -> str:
    for i, (x, y) in enumerate(zip(a, b)):
        if x != y:
            return f"MERGES DIFFER at {i}: {x} vs HF {y}"
    return f"MERGES DIFFER in length: {len(a)} vs HF {len(b)}"


if __name__ == "__main__":
    sys.exit(main())
