#!/usr/bin/env python
"""What exact jamo costs in HF (issues 22, 28): a jamo model's ``tokenizer.json`` layouts.

* NFD: HF's ``NFD`` normalizer and no composing decoder (the export until issue 22: ids differ
  where NFD decomposes more than Hangul, decode gives conjoining jamo);
* Replace (the default since issue 28): 68 regex ``Replace`` normalizers that write each
  syllable's jamo after it and delete it, and 827 ``Replace`` decoders that compose them back
  (:mod:`korean_bpe.io.hf_jamo`): our ids, our text, in every HF client, JavaScript included
  (issue 22's ``Precompiled`` normalizer was faster in Rust but read as NFKC by tokenizers.js);
* Replace, one literal decoder per syllable: the same normalizers and the 11,172 decoders that
  composed until 2026-11-29 (each L V T, then each L V, written as its syllable);
* Replace, ``compose_jamo=False``: the same normalizers, no composing decoders (our ids,
  conjoining jamo back).

One model (``whitespace``/``jamo``, ``--vocab`` tokens, trained on ``--train`` NSMC train reviews),
each file loaded with ``tokenizers.Tokenizer.from_file``; on the whole NSMC test split (55,106
reviews) it times ``encode_batch`` (Rust, all cores through rayon) and one text at a time (5,000),
best of ``--repeat``, and counts the reviews whose ids differ from ours; ``decode_batch`` and
one-by-one ``decode`` on the first ``--decode`` reviews (the composing decoders make a full pass
slow), counting those whose text differs.

    .venv/bin/python benchmarks/bench_hf_jamo.py            # --train 50000 --vocab 8000 --repeat 3
"""

from __future__ import annotations

import argparse
import json
import os
import tempfile
import time
from pathlib import Path

from korean_bpe import Tokenizer
from korean_bpe.corpus import load_nsmc
from korean_bpe.io.hf import tokenizer_json
from korean_bpe.io.hf_jamo import jamo_normalizers, recompose_decoders
from korean_bpe.jamo import S_BASE, S_COUNT, T_COUNT, decompose


def best(fn, repeat: int) -> float:
    times = []
    for _ in range(repeat):
        t = time.perf_counter()
        fn()
        times.append(time.perf_counter() - t)
    return min(times)


def literal_decoders() -> list[dict]:
    """The composing decoders until 2026-11-29: one literal ``Replace`` per syllable, L V T first."""
    lvt = [chr(c) for c in range(S_BASE, S_BASE + S_COUNT) if (c - S_BASE) % T_COUNT]
    lv = [chr(c) for c in range(S_BASE, S_BASE + S_COUNT, T_COUNT)]
    return [{"type": "Replace", "pattern": {"String": decompose(s)}, "content": s} for s in lvt + lv]


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--train", type=int, default=50_000)
    ap.add_argument("--vocab", type=int, default=8000)
    ap.add_argument("--repeat", type=int, default=3)
    ap.add_argument("--decode", type=int, default=2000)
    args = ap.parse_args()
    from tokenizers import Tokenizer as HF

    train = load_nsmc("train", limit=args.train).texts
    test = load_nsmc("test").texts
    ours = Tokenizer.train(train, vocab_size=args.vocab, unit="jamo", show_progress=False)
    ids = ours.encode_batch(test)
    texts = ours.decode_batch(ids)
    after = tokenizer_json(ours)
    plain = tokenizer_json(ours, compose_jamo=False)
    before = json.loads(json.dumps(plain))
    before["normalizer"]["normalizers"][-len(jamo_normalizers()):] = [{"type": "NFD"}]  # the jamo stages come last
    literal = json.loads(json.dumps(after))
    stages = literal["decoder"]["decoders"]
    composing = len(recompose_decoders())
    assert stages[-composing:] == recompose_decoders()  # the composing decoders come last
    stages[-composing:] = literal_decoders()
    print(f"{len(test):,} NSMC test reviews, {ours.vocab_size:,}-token whitespace/jamo model, {os.cpu_count()} CPUs "
          "(shared machine: best of runs)")
    with tempfile.TemporaryDirectory() as d:
        n = args.decode
        for name, content in (("before (NFD)", before), ("Replace (default)", after),
                              ("Replace, one literal decoder per syllable", literal),
                              ("Replace, compose_jamo=False", plain)):
            path = Path(d) / "tokenizer.json"
            path.write_text(json.dumps(content, ensure_ascii=False), encoding="utf-8")
            t = time.perf_counter()
            hf = HF.from_file(str(path))
            load = time.perf_counter() - t
            enc = best(lambda: hf.encode_batch(test, add_special_tokens=False), args.repeat)
            one = best(lambda: [hf.encode(x, add_special_tokens=False) for x in test[:5000]], args.repeat)
            dec = best(lambda: hf.decode_batch(ids[:n], skip_special_tokens=False), args.repeat)
            dec_one = best(lambda: [hf.decode(x, skip_special_tokens=False) for x in ids[:n]], 1)
            theirs = [e.ids for e in hf.encode_batch(test, add_special_tokens=False)]
            back = hf.decode_batch(ids[:n], skip_special_tokens=False)
            print(f"{name}: {path.stat().st_size / 1e6:.1f} MB, loads in {load:.2f} s")
            print(f"  encode_batch {len(test) / enc:,.0f} reviews/s, one by one {5000 / one:,.0f} reviews/s; "
                  f"decode_batch {n / dec:,.0f} reviews/s, one by one {n / dec_one:,.0f} reviews/s")
            print(f"  ids differ from ours: {sum(a != b for a, b in zip(theirs, ids))}, "
                  f"text differs (of {n}): {sum(a != b for a, b in zip(back, texts))}")


if __name__ == "__main__":
    main()
