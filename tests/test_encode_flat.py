"""Flat output (issue 41): ``encode_batch_flat`` / ``encode_pretokenized_flat`` give the ids of
``encode_batch`` / ``encode_pretokenized`` as one NumPy array and its ``starts``, on every
pipeline, compiled or not, for any number of threads; ``korean-bpe encode --npy`` writes them to
files, streaming and atomically."""

from __future__ import annotations

import io
import os
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from korean_bpe import Tokenizer
from korean_bpe.cli.common import UserError, stdin_lines
from korean_bpe.cli.encode import line_blocks
from korean_bpe import _threads as threads_module
from korean_bpe.encoding import encoder as encoder_module
from korean_bpe.encoding.flat import flat_file_paths, flat_from_lists, id_dtype, write_flat_files
from korean_bpe.pre_tokenizers import RawPreTokenizer
from korean_bpe.trainer import BPEModel

from _strings import HARD, korean_heavy

#: pre-tokenizer, unit, options: the core's two cuts, bytes, pieces it merges (no cut of its own)
#: and a marker it does not know (lists first, then copied)
PIPELINES = [
    ("whitespace", "syllable", {}),
    ("whitespace", "jamo", {}),
    ("whitespace", "byte", {}),
    ("raw", "syllable", {}),
    ("raw", "jamo", {"byte_fallback": True}),
    ("raw", "byte", {}),
    (RawPreTokenizer(split_by_whitespace=False), "syllable", {}),
    ("whitespace", "syllable", {"marker": "</w>"}),
]
IDS = ["whitespace-syllable", "whitespace-jamo", "whitespace-byte", "raw-syllable", "raw-jamo-bytefb", "raw-byte",
       "superword-pieces", "end-of-word-marker"]


@pytest.fixture(scope="module")
def texts(real_texts: list[str]) -> list[str]:
    """Real reviews among the hard strings (empty ones, line breaks, surrogates, emoji, NFD)."""
    hard = [t for t in HARD if len(t) < 20_000]
    return [t for pair in zip(real_texts[:400], hard * 10) for t in pair] + real_texts[400:900]


@pytest.fixture(scope="module", params=range(len(PIPELINES)), ids=IDS)
def tok(request: pytest.FixtureRequest, real_texts: list[str]) -> Tokenizer:
    pre, unit, opts = PIPELINES[request.param]
    return Tokenizer.train(real_texts[:600], vocab_size=1500, limit_alphabet=900, pre_tokenizer=pre, unit=unit, **opts)


def pure_python(tok: Tokenizer, monkeypatch: pytest.MonkeyPatch) -> Tokenizer:
    """The same tokenizer without the compiled core (as when ``_encode.pyx`` was not built)."""
    monkeypatch.setattr(encoder_module, "MergeTable", None)
    return Tokenizer(tok.model, pre_tokenizer=tok.pre_tokenizer, unit=tok.unit, marker=tok.word_marker,
                     byte_fallback=tok.byte_fallback, unk_token=tok.unk_token)


def joined(lists: list[list[int]]) -> tuple[list[int], list[int]]:
    """The flat form of id lists, by hand: every id, and the running total of the lengths."""
    starts = [0]
    for ids in lists:
        starts.append(starts[-1] + len(ids))
    return [i for ids in lists for i in ids], starts


def assert_flat_equals(flat: tuple[np.ndarray, np.ndarray], lists: list[list[int]], dtype: str = "uint16") -> None:
    ids, starts = flat
    assert ids.dtype == np.dtype(dtype) and starts.dtype == np.int64
    assert ids.ndim == 1 and starts.shape == (len(lists) + 1,)
    want_ids, want_starts = joined(lists)
    assert ids.tolist() == want_ids
    assert starts.tolist() == want_starts


# -- the API --------------------------------------------------------------------------------------


@pytest.mark.parametrize("threads", [1, 2])
def test_flat_equals_encode_batch_on_every_pipeline(tok: Tokenizer, texts: list[str], threads: int,
                                                    monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(threads_module, "CHUNK_CHARS", 300)  # many chunks: the threads share them
    want = tok.encode_batch(texts, num_threads=1, disallowed_special=())
    assert_flat_equals(tok.encode_batch_flat(texts, num_threads=threads, disallowed_special=()), want)
    tok.clear_cache()  # cold: every word merged afresh in the threads
    assert_flat_equals(tok.encode_batch_flat(texts, num_threads=threads, disallowed_special=()), want)


def test_threads_1_and_2_give_identical_arrays(tok: Tokenizer, texts: list[str],
                                               monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(threads_module, "CHUNK_CHARS", 300)
    one = tok.encode_batch_flat(texts, num_threads=1, disallowed_special=())
    two = tok.encode_batch_flat(texts, num_threads=2, disallowed_special=())
    assert np.array_equal(one.ids, two.ids) and np.array_equal(one.starts, two.starts)
    assert one.ids.dtype == two.ids.dtype


def test_the_pure_python_fallback_gives_the_same_arrays(tok: Tokenizer, texts: list[str],
                                                        monkeypatch: pytest.MonkeyPatch) -> None:
    compiled = tok.encode_batch_flat(texts, num_threads=2, disallowed_special=())
    slow = pure_python(tok, monkeypatch)
    assert slow._encoder.compiled is None
    flat = slow.encode_batch_flat(texts, num_threads=2, disallowed_special=())
    assert np.array_equal(flat.ids, compiled.ids) and np.array_equal(flat.starts, compiled.starts)


def test_pretokenized_flat_equals_encode_pretokenized(tok: Tokenizer, texts: list[str]) -> None:
    batch = tok.pre_tokenizer.batch(texts)
    assert_flat_equals(tok.encode_pretokenized_flat(batch, num_threads=2), tok.encode_pretokenized(batch))
    assert_flat_equals(tok.encode_pretokenized_flat([], num_threads=2), [])


def test_empty_input_and_empty_strings() -> None:
    tok = Tokenizer(BPEModel(("<unk>",), tuple("▁재밌다영화"), (("▁", "영"), ("▁영", "화"), ("재", "밌"))))
    ids, starts = tok.encode_batch_flat([])
    assert ids.dtype == np.uint16 and ids.shape == (0,)
    assert starts.dtype == np.int64 and starts.tolist() == [0]
    ids, starts = tok.encode_batch_flat(["", "영화 재밌다", "", "   "])
    assert ids.tolist() == [8, 1, 9, 4]  # ▁영화 ▁ 재밌 다
    assert starts.tolist() == [0, 0, 4, 4, 4]
    assert tok.encode_batch_flat(("영화", "재밌다")).text(1).tolist() == tok.encode("재밌다")  # any sequence


def test_a_vocabulary_over_65536_tokens_gives_uint32() -> None:
    # 70,000 astral characters: ids up to 70,000, more than uint16 holds
    alphabet = ("▁", *(chr(0x20000 + k) for k in range(70_000)))
    tok = Tokenizer(BPEModel(("<unk>",), alphabet, ((alphabet[-2], alphabet[-1]),)))
    assert tok.vocab_size > 65_536
    texts = [alphabet[-2] + alphabet[-1] + alphabet[5], "", alphabet[-1] * 3 + " " + alphabet[1]]
    flat = tok.encode_batch_flat(texts, num_threads=2)
    assert flat.ids.dtype == np.uint32
    assert int(flat.ids.max()) > 65_535
    assert_flat_equals(flat, tok.encode_batch(texts), "uint32")


def test_the_dtype_follows_the_vocabulary_and_refuses_ids_over_32_bits() -> None:
    assert (id_dtype(2), id_dtype(65_536), id_dtype(65_537), id_dtype(2**32)) == ("uint16", "uint16", "uint32",
                                                                                   "uint32")
    with pytest.raises(ValueError, match=r"above 2\*\*32 - 1.*encode_batch"):
        id_dtype(2**32 + 1)


def test_special_token_text_is_refused_as_encode_batch_refuses_it(real_texts: list[str]) -> None:
    tok = Tokenizer.train(real_texts[:300], vocab_size=400, limit_alphabet=300)
    texts = real_texts[:50] + ["영화 <unk> 최고"]
    with pytest.raises(ValueError, match=r"texts\[50\] holds '<unk>'"):
        tok.encode_batch_flat(texts, num_threads=2)
    assert_flat_equals(tok.encode_batch_flat(texts, disallowed_special=()), tok.encode_batch(texts, disallowed_special=()))
    with pytest.raises(TypeError, match="not a single string"):
        tok.encode_batch_flat("영화")  # type: ignore[arg-type]


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(batch=st.lists(korean_heavy(20), max_size=12), threads=st.sampled_from([1, 2]))
def test_property_flat_is_encode_batch_joined(batch: list[str], threads: int, small_tok: Tokenizer) -> None:
    assert_flat_equals(small_tok.encode_batch_flat(batch, num_threads=threads, disallowed_special=()),
                       small_tok.encode_batch(batch, num_threads=1, disallowed_special=()))


@pytest.fixture(scope="module")
def small_tok(real_texts: list[str]) -> Tokenizer:
    return Tokenizer.train(real_texts[:400], vocab_size=900, limit_alphabet=400, pre_tokenizer="raw", unit="jamo",
                           byte_fallback=True)


# -- writing files ---------------------------------------------------------------------------------


def test_write_flat_files_appends_batches_and_np_load_reads_them(tmp_path: Path) -> None:
    batches = [flat_from_lists([[8, 1], [], [9]], "uint32"), flat_from_lists([], "uint32"),
               flat_from_lists([[4, 70_000]], "uint32")]
    assert write_flat_files(tmp_path / "r", iter(batches), dtype="uint32") == (4, 5)
    ids_path, starts_path = flat_file_paths(tmp_path / "r")
    ids, starts = np.load(ids_path, mmap_mode="r"), np.load(starts_path)
    assert ids.dtype == np.uint32 and ids.tolist() == [8, 1, 9, 4, 70_000]
    assert starts.tolist() == [0, 2, 2, 3, 5]
    assert sorted(os.listdir(tmp_path)) == ["r.ids.npy", "r.starts.npy"]


def test_write_flat_files_leaves_the_old_files_and_no_temporary_one_after_an_error(tmp_path: Path) -> None:
    write_flat_files(tmp_path / "r", [flat_from_lists([[1, 2, 3]], "uint16")], dtype="uint16")
    before = {p: p.read_bytes() for p in flat_file_paths(tmp_path / "r")}

    def failing():
        yield flat_from_lists([[5, 6]], "uint16")
        raise OSError(28, "No space left on device")

    with pytest.raises(OSError, match="No space left"):
        write_flat_files(tmp_path / "r", failing(), dtype="uint16")
    assert {p: p.read_bytes() for p in flat_file_paths(tmp_path / "r")} == before
    assert sorted(os.listdir(tmp_path)) == ["r.ids.npy", "r.starts.npy"]


@settings(max_examples=80, deadline=None)
@given(lines=st.lists(st.text(st.sampled_from("영화 a\r\n\x85\u2028"), max_size=8), max_size=8),
       bom=st.booleans(), last_newline=st.booleans(), block=st.integers(1, 40))
def test_property_line_blocks_reads_the_lines_stdin_lines_reads(lines: list[str], bom: bool, last_newline: bool,
                                                                block: int) -> None:
    data = ("\ufeff" if bom else "") + "\n".join(lines) + ("\n" if last_newline else "")
    raw = data.encode("utf-8")
    got = [line for part, _ in line_blocks(io.BytesIO(raw), "<stdin>", block) for line in part]
    assert got == list(stdin_lines(io.BytesIO(raw)))
    assert sum(n for _, n in line_blocks(io.BytesIO(raw), "<stdin>", block)) == len(raw)


def test_line_blocks_names_the_line_and_offset_of_a_byte_that_is_not_utf8() -> None:
    raw = "영화\n재밌다\n".encode() + b"\xff\n"
    with pytest.raises(UserError, match=r"reviews.txt is not UTF-8: line 3, byte offset 17 \(byte 0xFF\)"):
        list(line_blocks(io.BytesIO(raw), "reviews.txt", 5))


# -- the command line -----------------------------------------------------------------------------

ROOT = Path(__file__).resolve().parent.parent


def cli(*args: str, stdin: bytes | None = None, cwd: Path | None = None) -> subprocess.CompletedProcess[str]:
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    proc = subprocess.run([sys.executable, "-m", "korean_bpe.cli", *args], input=stdin, capture_output=True, env=env,
                          cwd=cwd, timeout=300)
    return subprocess.CompletedProcess(proc.args, proc.returncode, proc.stdout.decode(), proc.stderr.decode())


@pytest.fixture(scope="module")
def model_dir(tmp_path_factory: pytest.TempPathFactory, real_texts: list[str]) -> Path:
    out = tmp_path_factory.mktemp("flat") / "model"
    Tokenizer.train(real_texts[:800], vocab_size=900, limit_alphabet=500, pre_tokenizer="raw", unit="jamo").save(out)
    return out


def test_cli_npy_round_trip_from_a_file_and_from_stdin(model_dir: Path, real_texts: list[str], tmp_path: Path) -> None:
    lines = real_texts[:3000] + ["", "영화\r", "  끝 "]
    data = ("\r\n".join(lines[:10]) + "\n" + "\n".join(lines[10:])).encode("utf-8")  # no final line break
    corpus = tmp_path / "reviews.txt"
    corpus.write_bytes(data)
    tok = Tokenizer.load(model_dir)
    want = tok.encode_batch(list(stdin_lines(io.BytesIO(data))))
    for name, args, stdin in (("file", [str(corpus)], None), ("stdin", [], data), ("dash", ["-"], data)):
        proc = cli("encode", "-m", str(model_dir), "--npy", str(tmp_path / name), "--threads", "2", *args, stdin=stdin)
        assert proc.returncode == 0, proc.stderr
        assert proc.stdout == ""
        assert f"({len(lines):,} lines)" in proc.stderr
        ids, starts = (np.load(p) for p in flat_file_paths(tmp_path / name))
        assert_flat_equals((ids, starts), want)


def test_cli_npy_leaves_no_file_after_a_failure(model_dir: Path, tmp_path: Path) -> None:
    corpus = tmp_path / "bad.txt"
    corpus.write_bytes("영화 최고\n".encode() * 1000 + b"\xb0\xa1\n" + "재밌다\n".encode())
    proc = cli("encode", "-m", str(model_dir), "--npy", str(tmp_path / "out"), str(corpus))
    assert proc.returncode == 1
    assert proc.stderr.strip() == f"korean-bpe: error: {corpus} is not UTF-8: line 1001, byte offset 14000 (byte 0xB0)"
    proc = cli("encode", "-m", str(model_dir), "--npy", str(tmp_path / "out"), stdin="좋아 <unk>\n".encode())
    assert "<stdin> line 1 holds '<unk>'" in proc.stderr and "--special-text" in proc.stderr
    assert sorted(os.listdir(tmp_path)) == ["bad.txt"]


@pytest.mark.parametrize(("args", "message"), [
    (["--ids"], "argument --ids: not with --npy: --npy always writes ids"),
    (["--offsets"], "argument --offsets: not with --npy"),
    (["--dropout", "0.1"], "argument --dropout: not with --npy"),
    (["--line-buffered"], "argument --line-buffered: not with --npy"),
    (["a.txt", "b.txt"], "with --npy the arguments name one FILE to read (got 2: a.txt b.txt)"),
])
def test_cli_npy_refuses_what_it_cannot_do_with_the_reason(model_dir: Path, tmp_path: Path, args: list[str],
                                                           message: str) -> None:
    proc = cli("encode", "-m", str(model_dir), "--npy", str(tmp_path / "out"), *args, stdin=b"")
    assert proc.returncode in (1, 2)
    assert message in proc.stderr and "Traceback" not in proc.stderr
    assert os.listdir(tmp_path) == []


def test_cli_npy_refuses_to_overwrite_its_input(model_dir: Path, tmp_path: Path) -> None:
    corpus = tmp_path / "x.ids.npy"
    corpus.write_text("영화\n", encoding="utf-8")
    proc = cli("encode", "-m", str(model_dir), "--npy", str(tmp_path / "x"), str(corpus))
    assert proc.returncode == 1 and "which this command reads" in proc.stderr
    assert corpus.read_text(encoding="utf-8") == "영화\n"
