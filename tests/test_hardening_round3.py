"""Issue 29, hardening round three: each defect a hostile but fair user found, as a test that failed
before the fix (item 4, the statistics, is tested with them in tests/test_stats.py).  Command-line
cases run the installed ``korean-bpe`` in a subprocess (tests/test_cli.py's helpers)."""

from __future__ import annotations

import copy
import itertools
import multiprocessing
import os
import pickle
import signal
import subprocess
import sys
import time
from concurrent.futures import ProcessPoolExecutor
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from korean_bpe import Tokenizer

from _strings import hard, korean_heavy  # noqa: E402  (tests/_strings.py)
from test_cli import CMD, REVIEWS, fails, ok  # noqa: E402  (tests/test_cli.py)

TEXTS = ["영화 정말 재밌다", "영화 진짜 재밌어요 ㅋㅋ", "정말 재밌는 영화", "진짜 최고의 영화", "abc 123 😉"] * 3
#: what each pipeline encodes on both sides of a pickle (no long line: the analyzers are slow on it)
PROBES = hard(no_long=True)


# -- 1. a tokenizer crosses processes --------------------------------------------------------------


def _pipelines() -> dict[str, Tokenizer]:
    """Every pipeline: pre-tokenizer x unit x marker x byte fallback (the combinations training
    accepts), the analyzers in analysis and lossless mode, and Hangul fallback."""
    out = {}
    for pt, unit, marker, byte_fallback in itertools.product(
            ["whitespace", "raw", {"type": "raw", "split_by_whitespace": False}], ["syllable", "jamo", "byte"],
            ["▁", "</w>", "##", None], [False, True]):
        try:
            tok = Tokenizer.train(TEXTS, vocab_size=300 if byte_fallback else 60, pre_tokenizer=pt, unit=unit,
                                  marker=marker, byte_fallback=byte_fallback, min_frequency=1)
        except ValueError:  # a combination refused with its reason (e.g. no marker after whitespace)
            continue
        out[f"{pt}-{unit}-{marker}-{byte_fallback}"] = tok
    for name in ["okt", "kiwi", "mecab"]:
        for lossless in [False, True]:
            out[f"{name}-{lossless}"] = Tokenizer.train(TEXTS, vocab_size=60, pre_tokenizer={"type": name, "lossless": lossless})
    out["hangul-fallback"] = Tokenizer.train(TEXTS, vocab_size=120, unit="jamo", hangul_fallback=True)
    return out


@pytest.fixture(scope="module")
def pipelines() -> dict[str, Tokenizer]:
    return _pipelines()


def _ids(tok: Tokenizer) -> list[list[int]]:
    return tok.encode_batch(PROBES, disallowed_special=())


def _ids_of_pickled(data: bytes) -> list[list[int]]:
    return _ids(pickle.loads(data))


def test_every_pipeline_pickles_and_deep_copies(pipelines: dict[str, Tokenizer]) -> None:
    assert len(pipelines) > 25
    for name, tok in pipelines.items():
        want = _ids(tok)
        for again in (pickle.loads(pickle.dumps(tok)), copy.deepcopy(tok)):
            assert type(again) is Tokenizer and again.model == tok.model, name
            assert repr(again) == repr(tok), name
            assert _ids(again) == want, name
            assert again.encode_with_offsets(PROBES[8]) == tok.encode_with_offsets(PROBES[8]), name


def test_the_pickle_keeps_no_compiled_table(pipelines: dict[str, Tokenizer]) -> None:
    """What crosses is the model and the stages (derived state is rebuilt, never stored twice)."""
    tok = pipelines["whitespace-syllable-▁-False"]
    assert b"MergeTable" not in pickle.dumps(tok) and b"WordCache" not in pickle.dumps(tok)


def test_every_pipeline_crosses_a_spawn_pool(pipelines: dict[str, Tokenizer]) -> None:
    names = list(pipelines)
    with ProcessPoolExecutor(1, mp_context=multiprocessing.get_context("spawn")) as pool:
        got = list(pool.map(_ids_of_pickled, [pickle.dumps(pipelines[n]) for n in names]))
        # the tokenizer itself as the argument (pool.submit pickles it)
        assert pool.submit(_ids, pipelines["okt-False"]).result() == _ids(pipelines["okt-False"])
    for name, ids in zip(names, got):
        assert ids == _ids(pipelines[name]), name


def test_the_transformers_tokenizer_pickles_deep_copies_and_crosses_a_spawn_pool(pipelines: dict[str, Tokenizer]) -> None:
    pytest.importorskip("transformers")
    from korean_bpe.hf import KoreanBPETokenizerFast

    text = "영화 정말 최고 ㅋㅋ 😉"
    fasts = {name: KoreanBPETokenizerFast.from_korean_bpe(pipelines[name])
             for name in ["whitespace-jamo-▁-True", "kiwi-False", "raw-syllable-None-False"]}
    want = {name: fast(text)["input_ids"] for name, fast in fasts.items()}
    for name, fast in fasts.items():
        for again in (pickle.loads(pickle.dumps(fast)), copy.deepcopy(fast)):
            assert again(text)["input_ids"] == want[name], name
            assert again.korean_bpe.model == pipelines[name].model
    with ProcessPoolExecutor(1, mp_context=multiprocessing.get_context("spawn")) as pool:
        assert pool.submit(_fast_ids, fasts, text).result() == want


def _fast_ids(fasts: dict, text: str) -> dict[str, list[int]]:
    return {name: fast(text)["input_ids"] for name, fast in fasts.items()}


# -- 2. one text is cut as in a batch; offsets give the ids of encode ------------------------------

ANALYZERS = [{"type": name, "lossless": lossless} for name in ["okt", "kiwi", "mecab"] for lossless in [False, True]]
PRE_TOKENIZERS = ["whitespace", "raw", {"type": "raw", "split_by_whitespace": False}, *ANALYZERS,
                  {"type": "okt", "norm": True, "stem": True}]


@pytest.fixture(scope="module", params=PRE_TOKENIZERS, ids=lambda spec: str(spec))
def pre_tokenizer(request: pytest.FixtureRequest):
    from korean_bpe.pre_tokenizers import get_pre_tokenizer

    return get_pre_tokenizer(request.param)


@pytest.mark.parametrize("text", ["\u3000영화 최고", "\xa0영화 최고", "\u2003영화 최고", "영화 \u3000#명작 \u2028최고"])
def test_okt_keeps_the_word_after_non_ascii_white_space(text: str) -> None:
    from korean_bpe.pre_tokenizers import get_pre_tokenizer

    for spec in [{"type": "okt"}, {"type": "okt", "norm": True, "stem": True}]:
        pt = get_pre_tokenizer(spec)
        assert "영화" in pt(text) and "최고" in pt(text), (spec, pt(text))
        assert pt(text) == pt.batch([text])[0]
    lossless = get_pre_tokenizer({"type": "okt", "lossless": True})
    assert "영화" in lossless(text) and lossless.restore(lossless(text)) == text


def test_one_text_is_cut_as_in_a_batch(pre_tokenizer) -> None:
    texts = hard(no_long=True)
    assert [pre_tokenizer(t) for t in texts] == pre_tokenizer.batch(texts)


@settings(max_examples=30, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(texts=st.lists(st.sampled_from(hard(no_long=True)) | korean_heavy(12), max_size=6))
def test_one_text_is_cut_as_in_a_batch_property(pre_tokenizer, texts: list[str]) -> None:
    assert [pre_tokenizer(t) for t in texts] == pre_tokenizer.batch(texts)


def test_offsets_give_the_ids_of_encode(pipelines: dict[str, Tokenizer]) -> None:
    for name, tok in pipelines.items():
        for text in PROBES:
            ids, offsets = tok.encode_with_offsets(text, disallowed_special=())
            assert ids == tok.encode(text, disallowed_special=()), (name, text)
            assert len(offsets) == len(ids)


# -- 3. a killed compare ends its workers ----------------------------------------------------------

needs_proc = pytest.mark.skipif(not Path("/proc/self/stat").exists(), reason="reads the process table in /proc")


def _children(pid: int) -> dict[int, str]:
    """pid -> command line of the live (not zombie) children of ``pid``."""
    out = {}
    for stat in Path("/proc").glob("[0-9]*/stat"):
        try:
            fields = stat.read_text().rsplit(")", 1)[1].split()
            cmdline = (stat.parent / "cmdline").read_bytes().replace(b"\0", b" ").decode(errors="replace")
        except OSError:
            continue
        if int(fields[1]) == pid and fields[0] != "Z":
            out[int(stat.parent.name)] = cmdline
    return out


def _alive(pid: int) -> bool:
    try:
        return Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[0] != "Z"
    except OSError:
        return False


def _wait(predicate, timeout: float) -> bool:
    end = time.monotonic() + timeout
    while time.monotonic() < end:
        if predicate():
            return True
        time.sleep(0.1)
    return predicate()


def _kill(proc: subprocess.Popen, kids: dict[int, str]) -> None:
    """Leave nothing running, whatever the test found (orphans included)."""
    if proc.poll() is None:
        proc.kill()
        proc.communicate()
    for p in {**kids, **_children(proc.pid)}:
        if _alive(p):
            os.kill(p, signal.SIGKILL)


def _started(proc: subprocess.Popen, workers: int) -> dict[int, str]:
    """The spawned workers and resource tracker of ``proc`` once ``workers`` workers run."""
    def ready() -> bool:
        return sum("spawn_main" in c for c in _children(proc.pid).values()) >= workers or proc.poll() is not None

    assert _wait(ready, 120), "the workers never started"
    assert proc.poll() is None, proc.communicate()
    kids = {p: c for p, c in _children(proc.pid).items() if "multiprocessing" in c}
    assert sum("spawn_main" in c for c in kids.values()) >= workers and any("resource_tracker" in c for c in kids.values())
    return kids


@needs_proc
@pytest.mark.parametrize("sig", [signal.SIGTERM, signal.SIGKILL], ids=["SIGTERM", "SIGKILL"])
def test_a_killed_compare_ends_its_workers(tmp_path: Path, sig: int) -> None:
    pytest.importorskip("pandas")
    env = {**os.environ, "KOREAN_BPE_CACHE_DIR": str(tmp_path / "cache")}
    # two groups (whitespace BPE with the baselines reading its words; the character baselines), so
    # two workers
    proc = subprocess.Popen([*CMD, "compare", "constitution", "--limit", "400", "--jobs", "2", "--strategies",
                             "whitespace/syllable,baseline/jamo,whitespace/jamo,baseline/word", "--vocab-sizes", "300,600",
                             "--gold", "none", "--no-progress", "-o", str(tmp_path / "out")],
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, env=env)
    kids: dict[int, str] = {}
    try:
        kids = _started(proc, 2)
        proc.send_signal(sig)
        _, err = proc.communicate(timeout=60)
        if sig == signal.SIGTERM:  # stopped as Ctrl-C stops it: one line, status 143
            assert proc.returncode == 143 and err.decode().splitlines()[-1] == "korean-bpe: terminated", err
        assert _wait(lambda: not any(_alive(p) for p in kids), 60), {p: c for p, c in kids.items() if _alive(p)}
    finally:
        _kill(proc, kids)


BUSY_POOL = """
import sys, time
from korean_bpe.pre_tokenizers.executor import LocalProcessExecutor, spawn_pool
if __name__ == "__main__":
    if sys.argv[1] == "scoped":  # a worker busy in native code, holding the GIL: only the kernel can stop it
        pool = spawn_pool(2, scoped=True)
        futures = [pool.submit(sum, range(10**13)) for _ in range(2)]
    else:  # the long-lived executor of the analyzers
        futures = LocalProcessExecutor(2).map(time.sleep, [600] * 4)
        next(futures)
    time.sleep(600)
"""


@needs_proc
@pytest.mark.parametrize("kind", ["scoped", "executor"])
def test_pool_workers_end_with_a_killed_parent(tmp_path: Path, kind: str) -> None:
    script = tmp_path / "busy.py"
    script.write_text(BUSY_POOL, encoding="utf-8")
    proc = subprocess.Popen([sys.executable, str(script), kind], stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    kids: dict[int, str] = {}
    try:
        kids = _started(proc, 2)
        time.sleep(1)  # the workers are past their start, in their tasks
        proc.kill()
        proc.communicate(timeout=60)
        assert _wait(lambda: not any(_alive(p) for p in kids), 30), {p: c for p, c in kids.items() if _alive(p)}
    finally:
        _kill(proc, kids)


# -- 5. options out of range fail before any work -------------------------------------------------


@pytest.mark.parametrize(("option", "value", "expect"), [
    ("--resamples", "1000000000000", "argument --resamples: expected an integer from 0 to 100,000"),
    ("--resamples", "-1", "argument --resamples: expected an integer from 0 to 100,000"),
    ("--seed", "-1", "argument --seed: expected an integer from 0 to 4294967295"),
    ("--seed", "4294967296", "argument --seed: expected an integer from 0 to 4294967295"),
])
def test_compare_refuses_out_of_range_numbers_in_the_parser(tmp_path: Path, option: str, value: str, expect: str) -> None:
    start = time.monotonic()
    line = fails("compare", "constitution", "--strategies", "whitespace/syllable", "--gold", "none", "--no-progress",
                 "-o", str(tmp_path / "out"), option, value)
    assert expect in line and time.monotonic() - start < 60
    assert not (tmp_path / "out").exists()


@pytest.mark.parametrize("seed", [-1, 2**32, 1.5, True])
def test_compare_refuses_a_seed_out_of_range_before_training(seed) -> None:
    from korean_bpe.compare import compare

    with pytest.raises(ValueError, match=r"seed must be an int from 0 to 4294967295"):
        compare(TEXTS * 5, strategies=["whitespace/syllable"], vocab_sizes=[40], gold=None, seed=seed)


def test_statistics_refuse_resamples_past_memory() -> None:
    from korean_bpe.compare import Statistics, compare

    with pytest.raises(ValueError, match=r"resamples must be an int from 0 \(no intervals\) to 100,000, or None \(enough for the run\), got 1000000000000"):
        Statistics(resamples=10**12)
    held_out = ["영화 최고"] * 30_000  # 30,000 x 100,000 one-byte counts: 2.8 GiB
    with pytest.raises(ValueError, match=r"resamples=100,000 of 30,000 held-out documents need a 2.8 GiB resample "
                                         r"table; at most 71,582 fit"):
        compare(TEXTS, eval_texts=held_out, strategies=["whitespace/syllable"], vocab_sizes=[40], gold=None,
                statistics=Statistics(resamples=100_000))


# -- 6. labels shifted by a line are refused with --limit too --------------------------------------


@pytest.mark.parametrize("shift", [1, -1], ids=["one-more", "one-fewer"])
def test_labels_shifted_by_a_line_are_refused_with_limit(tmp_path: Path, shift: int) -> None:
    docs, labels = tmp_path / "docs.txt", tmp_path / "labels.txt"
    docs.write_text("\n".join(REVIEWS[:20]) + "\n", encoding="utf-8")
    values = ["1"] + [str(k % 2) for k in range(20)] if shift > 0 else [str(k % 2) for k in range(19)]
    labels.write_text("\n".join(values) + "\n", encoding="utf-8")
    line = fails("compare", str(docs), "--labels", str(labels), "--limit", "10", "-o", str(tmp_path / "r"))
    assert f"--labels {labels} has {20 + shift} labels for 20 documents (10 of them read with --limit)" in line
    assert not (tmp_path / "r").exists()


# -- 7. an output that standard input is redirected from is refused --------------------------------


def _run_with_stdin(path: Path, *args: str) -> subprocess.CompletedProcess[str]:
    with open(path, "rb") as stdin:
        proc = subprocess.run([*CMD, *args], stdin=stdin, capture_output=True, timeout=300)
    return subprocess.CompletedProcess(proc.args, proc.returncode, proc.stdout.decode(), proc.stderr.decode())


@pytest.mark.parametrize("command", ["count", "compare"])
def test_an_output_that_stdin_is_redirected_from_is_refused(tmp_path: Path, command: str) -> None:
    corpus = tmp_path / "x.txt"
    corpus.write_text("\n".join(REVIEWS[:40]) + "\n", encoding="utf-8")
    before = corpus.read_bytes()
    link = tmp_path / "link.txt"
    link.symlink_to(corpus)
    for out in (corpus, link):
        args = ["count", "-", "-o", str(out)] if command == "count" else \
            ["compare", "-", "--csv", str(out), "--strategies", "baseline/word", "--gold", "none", "--no-progress",
             "-o", str(tmp_path / "report")]
        proc = _run_with_stdin(corpus, *args)
        option = "-o/--output" if command == "count" else "--csv"
        assert proc.returncode == 1 and proc.stderr.splitlines() == [
            f"korean-bpe: error: argument {option}: {out} is the corpus: standard input is redirected from it, and "
            f"writing it would destroy it; give another file for the {'counts' if command == 'count' else 'table'}"]
        assert corpus.read_bytes() == before
    # another file is written as before
    other = tmp_path / "counts.tsv"
    assert _run_with_stdin(corpus, "count", "-", "-o", str(other), "--no-progress").returncode == 0
    assert other.read_text(encoding="utf-8").startswith("#{")


# -- 8. '-' is standard output for every file output, refused for a directory ---------------------


def test_dash_is_standard_output_for_the_counts_and_the_table(tmp_path: Path) -> None:
    corpus = tmp_path / "x.txt"
    corpus.write_text("\n".join(REVIEWS[:40]) + "\n", encoding="utf-8")
    counts = tmp_path / "counts.tsv"
    ok("count", str(corpus), "-o", str(counts), "--no-progress")
    proc = ok("count", str(corpus), "-o", "-", "--no-progress", cwd=tmp_path)
    assert proc.stdout == counts.read_text(encoding="utf-8")
    pytest.importorskip("pandas")
    proc = ok("compare", str(corpus), "--csv", "-", "--strategies", "baseline/word", "--gold", "none", "--no-progress",
              "-o", str(tmp_path / "report"), cwd=tmp_path)
    assert proc.stdout == (tmp_path / "report" / "table.csv").read_text(encoding="utf-8")
    assert "baseline/word" in proc.stderr  # the printed table, on standard error
    assert not (tmp_path / "-").exists()


@pytest.mark.parametrize(("args", "expect"), [
    (["train", "{corpus}", "--vocab-size", "60", "-o", "-"],
     "argument -o/--output: '-' means standard output, which cannot take a model (vocab.json, merges.txt, "
     "tokenizer_config.json): give a directory (./- for one named '-'); export-hf -m DIR -o - writes a trained "
     "model's tokenizer.json to standard output"),
    (["compare", "{corpus}", "-o", "-"],
     "argument -o/--output: '-' means standard output, which cannot take the report (table.csv, report.md, "
     "report.html and the plots): give a directory (./- for one named '-'); --csv - writes the table to standard output"),
])
def test_dash_is_refused_for_a_directory_output(tmp_path: Path, args: list[str], expect: str) -> None:
    corpus = tmp_path / "x.txt"
    corpus.write_text("\n".join(REVIEWS[:40]) + "\n", encoding="utf-8")
    line = fails(*[a.format(corpus=corpus) for a in args], cwd=tmp_path)
    assert line == f"korean-bpe: error: {expect}"
    assert not (tmp_path / "-").exists()


# -- 9. byte fallback over the byte unit is refused with the reason --------------------------------


def test_byte_fallback_with_the_byte_unit_is_refused(tmp_path: Path) -> None:
    from korean_bpe.counting import WordCounts

    why = (r"byte_fallback=True does nothing with the 'byte' unit: its 256 byte symbols are always in the alphabet, "
           r"so no symbol is ever unknown, and the 256 byte tokens would take the places of 256 merges; leave "
           r"byte_fallback out \(or use the 'syllable' or 'jamo' unit\)")
    with pytest.raises(ValueError, match=why):
        Tokenizer.train(TEXTS, vocab_size=600, unit="byte", byte_fallback=True)
    with pytest.raises(ValueError, match=why):
        Tokenizer.train_from_counts(WordCounts.from_texts(TEXTS), vocab_size=600, unit="byte", byte_fallback=True)
    corpus = tmp_path / "x.txt"
    corpus.write_text("\n".join(TEXTS) + "\n", encoding="utf-8")
    line = fails("train", str(corpus), "--unit", "byte", "--byte-fallback", "--vocab-size", "600", "-o", str(tmp_path / "m"))
    assert "--byte-fallback does nothing with the 'byte' unit" in line and "leave --byte-fallback out" in line
    assert not (tmp_path / "m").exists()


# -- 10. encode and decode write one line per text, line breaks escaped ----------------------------


def test_encode_escapes_line_break_tokens(tmp_path: Path) -> None:
    model = tmp_path / "raw"
    Tokenizer.train(["영화\n최고\r\n재밌다\u2028굿\x85끝"] * 5, vocab_size=40, pre_tokenizer="raw").save(model)
    text = "영화\n최고\u2028굿\x85"
    for extra in ([], ["--offsets"]):
        lines = ok("encode", "-m", str(model), *extra, text).stdout.splitlines()
        assert len(lines) == 1, lines
        assert lines[0].split(" ") == (["▁영화", "\\n", "▁최고", "\\u2028", "▁굿", "\\x85"] if not extra else
                                       ["▁영화@0:2", "\\n@2:3", "▁최고@2:5", "\\u2028@5:6", "▁굿@5:7", "\\x85@7:8"])
    ids = ok("encode", "-m", str(model), "--ids", text).stdout.strip()
    assert ok("decode", "-m", str(model), ids).stdout == "영화\\n최고\\u2028굿\\x85\n"


# -- 11. a lone surrogate in the held-out texts skips the peers, the rest measured ----------------


def test_a_lone_surrogate_held_out_skips_the_peers_before_training() -> None:
    pytest.importorskip("sentencepiece")
    pytest.importorskip("pandas")
    from korean_bpe.compare import compare

    held_out = REVIEWS[:10] + ["영화 \ud800 최고"]
    result = compare(REVIEWS[:60], eval_texts=held_out, strategies=["whitespace/syllable", "sentencepiece-bpe", "hf-bpe"],
                     vocab_sizes=[60], gold=None, model_cache=False)
    assert list(result.table["strategy"]) == ["whitespace/syllable"]
    assert "skipped the peers (sentencepiece-bpe, hf-bpe): held-out document 11 of 11 ('영화 \\ud800 최고') holds a " \
        "lone surrogate (U+D800..U+DFFF), which UTF-8 cannot hold and the peers' libraries cannot encode; remove or " \
        "repair it to measure them" in result.notes  # beside the note that 11 documents give no intervals
