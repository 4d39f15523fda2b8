"""Encoding on several threads (issue #33): the same ids for any ``num_threads``, from one call or
from many Python threads at once, and clear errors for a bad count.

The compiled core encodes chunks of a batch without the GIL (``MergeTable.encode_chunk``);
:func:`korean_bpe._threads.in_chunks` hands the chunks to the threads.  A batch under
:data:`~korean_bpe._threads.CHUNK_CHARS` characters is one chunk, so most tests here
shrink the chunk (``small_chunks``) to make a few hundred short texts span many chunks.
"""

from __future__ import annotations

import threading
from concurrent.futures import ThreadPoolExecutor

import pytest

from korean_bpe import Tokenizer
from korean_bpe._threads import ENV_VAR, available_cores, resolve_threads
from korean_bpe.corpus import load_nsmc
from korean_bpe.encoding import encoder as encoder_module
from korean_bpe import _threads as threads_module
from korean_bpe._threads import in_chunks
from korean_bpe.pre_tokenizers import RawPreTokenizer

from _strings import HARD

pytestmark = pytest.mark.skipif(encoder_module.MergeTable is None, reason="the compiled core is not built")

#: the pipelines whose encode runs in the compiled core: the two cuts it makes itself, and pieces
PIPELINES = [
    ("whitespace", "syllable", {}),
    ("whitespace", "jamo", {}),
    ("raw", "syllable", {}),
    ("raw", "jamo", {"byte_fallback": True}),
    ("raw", "byte", {}),
    (RawPreTokenizer(split_by_whitespace=False), "syllable", {}),  # pieces (no compiled cut)
]


@pytest.fixture
def small_chunks(monkeypatch: pytest.MonkeyPatch) -> int:
    monkeypatch.setattr(threads_module, "CHUNK_CHARS", 200)
    return 200


@pytest.fixture(scope="module")
def texts(real_texts: list[str]) -> list[str]:
    # the hard strings (emoji, NFD, compatibility jamo, lone surrogates, line breaks, huge lines) among real texts
    hard = [t for t in HARD if len(t) < 20_000]
    return [t for pair in zip(real_texts[:600], hard * 10) for t in pair] + real_texts[600:1200]


@pytest.fixture(scope="module")
def tokenizers(real_texts: list[str]) -> list[Tokenizer]:
    train = real_texts[:800]  # unknown characters in the rest: the slow path (unk, byte fallback) runs in threads
    return [Tokenizer.train(train, vocab_size=1500, pre_tokenizer=pre, unit=unit, **opts) for pre, unit, opts in PIPELINES]


def test_in_chunks_keeps_order_and_uses_the_threads(small_chunks: int) -> None:
    items = [str(i) * 50 for i in range(100)]
    together = threading.Barrier(3, timeout=10)  # broken (an error) unless three threads run chunks at once
    seen: set[str] = set()

    def run(chunk: list[str], k: int) -> list[list[int]]:
        name = threading.current_thread().name
        if name not in seen:
            seen.add(name)
            together.wait()
        return [[int(s[0])] for s in chunk]

    assert in_chunks(items, run, num_threads=3) == [[int(s[0])] for s in items]
    assert len(seen) == 3
    assert in_chunks([], run, num_threads=3) == []


def test_in_chunks_a_thread_done_with_its_chunks_takes_those_left(small_chunks: int) -> None:
    import time

    items = [str(i % 10) * 50 for i in range(64)]  # 3,200 characters: 16 chunks of 200
    taken = {0: 0, 1: 0}

    def run(chunk: list[str], k: int) -> list[list[int]]:
        if k == 0 and not taken[0]:
            time.sleep(0.5)  # thread 0's first chunk holds it up
        taken[k] += 1
        return [[int(s[0])] for s in chunk]

    finished: list[int] = []

    def finish(lists: list[list[int]]) -> list[list[int]]:
        finished.append(len(lists))
        return lists

    assert in_chunks(items, run, num_threads=2, finish=finish) == [[int(s[0])] for s in items]
    assert taken[0] <= 1 and taken[1] >= 15 and sum(taken.values()) == len(finished) == 16 and sum(finished) == 64


def test_in_chunks_raises_the_first_error_and_stops(small_chunks: int) -> None:
    calls = []

    def run(chunk: list[str], k: int) -> list[list[int]]:
        calls.append(len(chunk))
        raise ValueError("bad chunk")

    with pytest.raises(ValueError, match="bad chunk"):
        in_chunks(["x" * 100] * 100, run, num_threads=2)
    assert len(calls) <= 2  # each thread stopped after its first chunk failed


def test_cumulative_weights_of_texts_and_of_pieces() -> None:
    from itertools import accumulate

    from korean_bpe._tasks import cumulative_weights

    texts = ["영화 재밌다", "", "😀 ㅋㅋ", "x" * 70_000]
    for weights in (cumulative_weights, threads_module._py_cumulative_weights):  # compiled, Python
        assert list(weights(texts)) == list(accumulate(map(len, texts)))
        assert list(weights([["▁영화"], [], ("a", "b", "c")], 8)) == [8, 8, 32]
        assert len(weights([])) == 0
        with pytest.raises(TypeError, match=r"texts must hold strings; texts\[2\] is NoneType None"):
            weights(["a", "b", None])


def test_the_cut_knows_every_white_space_character(tokenizers: list[Tokenizer]) -> None:
    # the core asks CPython whether a character is white space only up to U+3000, the last one
    assert max(c for c in range(0x110000) if chr(c).isspace()) == 0x3000
    tok = tokenizers[0]  # whitespace: str.split()'s cut
    for space in ("\u3000", "\u2029", "\x85", "\u00a0", "\u1680"):
        assert tok.encode(f"영화{space}재밌다") == tok.encode("영화 재밌다"), hex(ord(space))
    assert tok.encode("영화\u3001재밌다") != tok.encode("영화 재밌다")  # 、 is not white space


@pytest.mark.parametrize("k", range(len(PIPELINES)))
def test_same_ids_for_any_thread_count(k: int, tokenizers: list[Tokenizer], texts: list[str], small_chunks: int) -> None:
    tok = tokenizers[k]
    one = [tok.encode(t, disallowed_special=()) for t in texts]
    for n in (1, 2, 3):
        tok.clear_cache()
        assert tok.encode_batch(texts, num_threads=n, disallowed_special=()) == one, n
        assert tok.encode_batch(texts, num_threads=n, disallowed_special=()) == one, n  # warm caches
    assert tok.decode(tok.encode_batch(texts[:50], num_threads=2, disallowed_special=())[7]) is not None


def test_pieces_of_an_analysis_in_threads(tokenizers: list[Tokenizer], texts: list[str], small_chunks: int) -> None:
    tok = tokenizers[0]
    batch = tok.pre_tokenizer.batch(texts)
    assert tok.encode_pretokenized(batch, num_threads=3) == tok.encode_pretokenized(batch, num_threads=1)


def test_one_tokenizer_from_many_python_threads(tokenizers: list[Tokenizer], texts: list[str], small_chunks: int) -> None:
    tok = tokenizers[1]
    slices = [texts[i::7] for i in range(7)]
    expected = [tok.encode_batch(s, num_threads=1, disallowed_special=()) for s in slices]
    for _ in range(3):
        tok.clear_cache()
        with ThreadPoolExecutor(max_workers=4) as pool:
            got = list(pool.map(lambda s: tok.encode_batch(s, num_threads=2, disallowed_special=()), slices * 2))
        assert got == expected * 2
        with ThreadPoolExecutor(max_workers=4) as pool:  # single texts: the one-chunk path, many at once
            singles = list(pool.map(lambda t: tok.encode(t, disallowed_special=()), texts[:300]))
        assert singles == [ids for s in [texts[:300]] for ids in tok.encode_batch(s, num_threads=1, disallowed_special=())]


def test_an_error_in_a_thread_reaches_the_caller_and_the_tokenizer_still_works(tokenizers: list[Tokenizer],
                                                                            small_chunks: int) -> None:
    tok = tokenizers[0]
    batch = [["▁영화"] * 30] * 40 + [["▁영화", 3]] + [["▁재미"] * 30] * 40
    with pytest.raises(TypeError, match=r"pieces must be strings; got int 3"):
        tok.encode_pretokenized(batch, num_threads=2)
    good = [["▁영화"] * 30] * 80
    assert tok.encode_pretokenized(good, num_threads=2) == tok.encode_pretokenized(good, num_threads=1)


def test_words_spelled_in_python_stay_right_in_the_cache_as_it_grows(tokenizers: list[Tokenizer]) -> None:
    # a word with a symbol the vocabulary lacks is spelled by Python after its chunk is merged (a
    # mark in the cache meanwhile, replaced then); the cache growing later must not bring a mark back
    for tok in tokenizers[:3]:
        assert tok.token_to_id("😀") is None and tok.token_to_id("🎬") is None
        odd = "😀영화 ㅋ😀ㅋ 🎬 😀영화 🎬🎬"
        many = [" ".join(chr(0xAC00 + (k * 31 + j * 7) % 11172) * 2 for j in range(40)) for k in range(200)]
        expected = {}
        for t in [odd, *many[:3]]:
            tok.clear_cache()
            expected[t] = tok.encode(t)  # a fresh cache for each: no mark from before
        for threads in (1, 2):
            tok.clear_cache()
            assert tok.encode_batch([odd, many[0]], num_threads=threads) == [expected[odd], expected[many[0]]]
            tok.encode_batch(many, num_threads=threads)  # 8,000 new words: the cache grows, more than once
            assert tok.encode_batch([odd, many[1]], num_threads=threads) == [expected[odd], expected[many[1]]]
            assert tok.encode(odd) == expected[odd]


def test_a_special_token_in_a_threaded_batch_is_refused_naming_its_text(tokenizers: list[Tokenizer],
                                                                        real_texts: list[str], small_chunks: int) -> None:
    # the special-token check runs in the calling thread while the threads merge
    from korean_bpe.encoding.specials import SpecialTokenTextError

    tok = tokenizers[0]
    good = real_texts[:400]
    for k in (0, 150, 399):
        with pytest.raises(SpecialTokenTextError, match=rf"texts\[{k}\] holds '<unk>'"):
            tok.encode_batch(good[:k] + ["영화 <unk> 재밌다"] + good[k:], num_threads=2)
    with pytest.raises(ValueError, match="disallowed_special holds '<nope>'"):
        tok.encode_batch(good, num_threads=2, disallowed_special={"<nope>"})
    assert tok.encode_batch(good, num_threads=2) == tok.encode_batch(good, num_threads=1)


def test_the_word_cache_of_each_thread_stays_within_cache_size(real_texts: list[str], small_chunks: int) -> None:
    tok = Tokenizer(Tokenizer.train(real_texts[:300], vocab_size=1200).model, cache_size=50)
    tok.encode_batch(real_texts, num_threads=2)
    assert 0 < tok._encoder.compiled.cached_words() <= 50
    tok.clear_cache()
    assert tok._encoder.compiled.cached_words() == 0
    assert tok.encode_batch(real_texts, num_threads=2) == tok.encode_batch(real_texts, num_threads=1)


@pytest.mark.parametrize(("bad", "error"), [(0, ValueError), (-1, ValueError), ("2", TypeError), (2.0, TypeError),
                                            (True, TypeError)])
def test_a_bad_thread_count_is_refused(bad: object, error: type, tokenizers: list[Tokenizer]) -> None:
    with pytest.raises(error, match="num_threads must be an int >= 1"):
        tokenizers[0].encode_batch(["영화"], num_threads=bad)  # type: ignore[arg-type]


def test_the_default_is_every_core_or_the_environment(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv(ENV_VAR, raising=False)
    assert resolve_threads(None) == available_cores() >= 1
    monkeypatch.setenv(ENV_VAR, "3")
    assert resolve_threads(None) == 3
    assert resolve_threads(2) == 2  # an explicit count wins
    monkeypatch.setenv(ENV_VAR, "many")
    with pytest.raises(ValueError, match=f"{ENV_VAR}='many' is not a number of threads"):
        resolve_threads(None)
    monkeypatch.setenv(ENV_VAR, "0")
    with pytest.raises(ValueError, match="set it to an int >= 1"):
        resolve_threads(None)


@pytest.mark.nsmc
@pytest.mark.parametrize("pre", ["whitespace", "raw"])
@pytest.mark.parametrize("unit", ["syllable", "jamo"])
def test_same_ids_on_the_nsmc_test_split(nsmc: object, pre: str, unit: str) -> None:
    train = load_nsmc("train", limit=20_000, directory=nsmc).texts
    test = load_nsmc("test", directory=nsmc).texts  # 55,106 reviews: about 60 chunks of the default size
    tok = Tokenizer.train(train, vocab_size=8000, pre_tokenizer=pre, unit=unit)
    one = tok.encode_batch(test, num_threads=1, disallowed_special=())
    tok.clear_cache()
    assert tok.encode_batch(test, num_threads=2, disallowed_special=()) == one
    assert tok.encode_batch(test, num_threads=4, disallowed_special=()) == one


def test_cli_encode_batches_the_lines_with_the_same_output(tmp_path, monkeypatch: pytest.MonkeyPatch,
                                                           capsys: pytest.CaptureFixture[str], tokenizers: list[Tokenizer],
                                                           texts: list[str], small_chunks: int) -> None:
    import io

    from korean_bpe import cli

    tok = tokenizers[1]
    tok.save(tmp_path / "m")
    lines = [t for t in texts if t and not any(c in t for c in "\n\r\x0b\x0c\x1c\x1d\x1e\x85\u2028\u2029")]
    lines = [t for t in lines if not any(c in t for c in "\ud800\udfff\udc80\udcff") and "\ufeff" not in t[:1]]
    expected = "".join(" ".join(map(str, tok.encode(t, disallowed_special=()))) + "\n" for t in lines)

    def run(*flags: str) -> str:
        monkeypatch.setattr("sys.stdin", io.TextIOWrapper(io.BytesIO("\n".join(lines).encode("utf-8") + b"\n")))
        assert cli.main(["encode", "-m", str(tmp_path / "m"), "--ids", "--special-text", *flags]) == 0
        return capsys.readouterr().out

    assert run("--threads", "3") == expected  # batches of lines, three threads
    assert run("--threads", "1") == expected
    assert run("--line-buffered") == expected  # line by line
    monkeypatch.setattr("korean_bpe.cli.encode.ENCODE_BATCH_LINES", 7)
    assert run() == expected  # many batches
    with pytest.raises(SystemExit) as exited:  # argparse's usage error
        cli.main(["encode", "-m", str(tmp_path / "m"), "--threads", "0", "영화"])
    assert exited.value.code == 2
    assert "argument --threads: expected a positive integer, got '0'" in capsys.readouterr().err


def test_cli_train_and_count_give_the_same_files_for_any_thread_count(tmp_path, real_texts: list[str]) -> None:
    from korean_bpe import cli

    corpus = tmp_path / "c.txt"
    corpus.write_text("\n".join(t for t in real_texts if "\n" not in t and "\r" not in t) + "\n", encoding="utf-8")
    for n in ("1", "3"):
        assert cli.main(["train", str(corpus), "--vocab-size", "1500", "--unit", "jamo", "--threads", n, "--no-progress",
                         "-o", str(tmp_path / f"m{n}")]) == 0
        assert cli.main(["count", str(corpus), "--pre-tokenizer", "raw", "--threads", n, "--no-progress",
                         "-o", str(tmp_path / f"c{n}.tsv")]) == 0
    for n in ("1", "3"):  # from the counts, --threads for the split and the engine's set-up
        assert cli.main(["train", "--counts", str(tmp_path / "c1.tsv"), "--vocab-size", "1500", "--threads", n,
                         "--no-progress", "-o", str(tmp_path / f"mc{n}")]) == 0
    for name in ("vocab.json", "merges.txt"):
        assert (tmp_path / "m1" / name).read_bytes() == (tmp_path / "m3" / name).read_bytes()
        assert (tmp_path / "mc1" / name).read_bytes() == (tmp_path / "mc3" / name).read_bytes()
    assert (tmp_path / "c1.tsv").read_bytes() == (tmp_path / "c3.tsv").read_bytes()
