"""Issue 42, hardening round four: each defect a hostile but fair user found, as a test that failed
before the fix.  Command-line cases run the installed ``korean-bpe`` in a subprocess (tests/test_cli.py's
helpers): one ``korean-bpe: error: ...`` line, no traceback."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import time
from pathlib import Path

import pytest

from korean_bpe import Tokenizer
from korean_bpe.counting import CountsFileError, WordCounts

from test_cli import fails  # noqa: E402  (tests/test_cli.py)

TEXTS = ["영화 정말 재밌다", "영화 진짜 재밌어요 ㅋㅋ", "정말 재밌는 영화", "진짜 최고의 영화"] * 3


@pytest.fixture(scope="module")
def model(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return Tokenizer.train(TEXTS, vocab_size=40).save(tmp_path_factory.mktemp("round4") / "model")


# -- 1. a model folder's files are checked before they are read ------------------------------------

#: what each bad file is made of, and how the error says it
BAD_FILES = {
    "dev-zero": (lambda p: p.symlink_to("/dev/zero"), "is a character device (the symbolic link points to /dev/zero), "
                                                      "not a regular file"),
    "fifo": (lambda p: os.mkfifo(p), "is a named pipe (FIFO), not a regular file"),
    "directory": (lambda p: p.mkdir(), "is a directory, not a regular file"),
}

#: loads a model in a process whose memory is capped at 1 GiB, and prints the error and the seconds
LOAD_CAPPED = """
import resource, sys, time
resource.setrlimit(resource.RLIMIT_AS, (2**30, 2**30))
from korean_bpe import Tokenizer
start = time.monotonic()
try:
    Tokenizer.load(sys.argv[1])
except ValueError as exc:
    print(time.monotonic() - start)
    print(exc)
"""


def _bad_model(model: Path, where: Path, name: str, kind: str) -> Path:
    folder = where / f"{kind}-{name}"
    folder.mkdir()
    for f in model.iterdir():
        if f.name != name:
            (folder / f.name).write_bytes(f.read_bytes())
    BAD_FILES[kind][0](folder / name)
    return folder


@pytest.mark.parametrize("kind", list(BAD_FILES))
@pytest.mark.parametrize("name", ["vocab.json", "merges.txt", "tokenizer_config.json"])
def test_a_model_file_that_is_not_a_regular_file_is_refused_at_once(model: Path, tmp_path: Path, name: str,
                                                                     kind: str) -> None:
    folder = _bad_model(model, tmp_path, name, kind)
    proc = subprocess.run([sys.executable, "-c", LOAD_CAPPED, str(folder)], capture_output=True, text=True,
                          timeout=30, env={**os.environ, "PYTHONPATH": str(Path(__file__).parents[1])})
    assert proc.returncode == 0 and proc.stderr == "", proc.stderr[-2000:]
    seconds, message = proc.stdout.splitlines()
    assert float(seconds) < 1
    assert message == f"{folder / name}: {BAD_FILES[kind][1]}: a model file must be a regular file; replace it with " \
                      "the file itself"


def test_the_command_line_says_it_in_one_line(model: Path, tmp_path: Path) -> None:
    folder = _bad_model(model, tmp_path, "merges.txt", "dev-zero")
    line = fails("encode", "-m", str(folder), "영화")
    assert line == f"korean-bpe: error: {folder / 'merges.txt'}: is a character device (the symbolic link points to " \
                   "/dev/zero), not a regular file: a model file must be a regular file; replace it with the file itself"


def test_a_model_file_past_the_limit_is_refused_before_it_is_read(model: Path, tmp_path: Path,
                                                                   monkeypatch: pytest.MonkeyPatch) -> None:
    from korean_bpe.io import serialization

    monkeypatch.setattr(serialization, "MAX_FILE_BYTES", 100)
    with pytest.raises(ValueError, match=r"vocab.json: is \d+ bytes, more than the 100 bytes a model file may be: "
                                         r"it is not one; give the right file"):
        Tokenizer.load(model)


@pytest.mark.parametrize("kind", list(BAD_FILES))
def test_a_counts_file_that_is_not_a_regular_file_is_refused_at_once(tmp_path: Path, kind: str) -> None:
    path = tmp_path / "counts.tsv"
    BAD_FILES[kind][0](path)
    start = time.monotonic()
    with pytest.raises(CountsFileError) as err:
        WordCounts.load(path)
    assert time.monotonic() - start < 1
    assert str(err.value) == f"{path}: {BAD_FILES[kind][1]}: a counts file must be a regular file; replace it with " \
                             "the file itself"


def test_a_model_cache_entry_that_is_not_a_regular_file_is_a_miss(tmp_path: Path) -> None:
    from korean_bpe.compare.model_cache import ModelCache

    cache = ModelCache(tmp_path)
    key = cache.key({"strategy": "whitespace/syllable"})
    cache.put(key, {"kind": "baseline", "train_s": 0.5, "vocab_tokens": ["<unk>", "영화"]})
    cache.path(key).unlink()
    cache.path(key).symlink_to("/dev/zero")
    start = time.monotonic()
    assert cache.get(key) is None and time.monotonic() - start < 1


# -- smaller: a model-cache entry edited into another valid one is trained again -------------------


def test_an_edited_model_cache_entry_is_a_miss(tmp_path: Path) -> None:
    from korean_bpe.compare.model_cache import ModelCache

    cache = ModelCache(tmp_path)
    key = cache.key({"strategy": "baseline/word"})
    cache.put(key, {"kind": "baseline", "train_s": 0.5, "vocab_tokens": ["<unk>", "영화"]})
    assert cache.get(key)["vocab_tokens"] == ["<unk>", "영화"]
    entry = json.loads(cache.path(key).read_text(encoding="utf-8"))
    entry["vocab_tokens"] = ["<unk>", "최고"]  # another valid model
    cache.path(key).write_text(json.dumps(entry), encoding="utf-8")
    assert cache.get(key) is None


# -- 3. a str subclass is its text, everywhere ----------------------------------------------------


class Odd(str):
    """A str subclass whose ``__str__`` says something else."""

    def __str__(self) -> str:
        return "최고 최고"


def test_a_str_subclass_is_encoded_as_its_text_everywhere() -> None:
    tok = Tokenizer.train(TEXTS, vocab_size=40)
    text, want = Odd("영화 재밌다"), tok.encode("영화 재밌다")
    assert tok.encode(text) == want
    assert tok.encode_batch([text, "영화 재밌다"]) == [want, want]
    assert tok.encode_with_offsets(text) == tok.encode_with_offsets("영화 재밌다")
    assert tok.encode_pretokenized([[Odd("영화"), "재밌다"]]) == [want]
    with pytest.raises(TypeError):
        tok.encode_pretokenized([["영화", 3]])


@pytest.mark.parametrize("as_list", [True, False], ids=["list", "iterator"])
def test_a_str_subclass_is_counted_as_its_text(as_list: bool) -> None:
    texts = [Odd("영화 재밌다"), "영화"]
    counts = WordCounts.from_texts(texts if as_list else iter(texts))
    assert dict(counts.items()) == {"영화": 2, "재밌다": 1}
