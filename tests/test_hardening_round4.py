"""Issue 42, hardening round four: each defect a hostile but fair user found, as a test that failed
before the fix.  Command-line cases run the installed ``korean-bpe`` in a subprocess (tests/test_cli.py's
helpers): one ``korean-bpe: error: ...`` line, no traceback."""

from __future__ import annotations

import errno
import json
import os
import re
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

from korean_bpe import Tokenizer
from korean_bpe.counting import CountsFileError, WordCounts

from test_cli import REVIEWS, fails, ok  # noqa: E402  (tests/test_cli.py)

TEXTS = ["영화 정말 재밌다", "영화 진짜 재밌어요 ㅋㅋ", "정말 재밌는 영화", "진짜 최고의 영화"] * 3


@pytest.fixture(scope="module")
def corpus(tmp_path_factory: pytest.TempPathFactory) -> Path:
    path = tmp_path_factory.mktemp("round4") / "reviews.txt"
    path.write_text("\n".join(REVIEWS[:60]) + "\n", encoding="utf-8")
    return path


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


# -- 2. --morpheme-boundaries with --initial is refused, not ignored -------------------------------


def test_initial_refuses_morpheme_boundaries(corpus: Path, tmp_path: Path) -> None:
    initial = tmp_path / "initial"
    ok("train", str(corpus), "--vocab-size", "80", "--no-progress", "-o", str(initial))
    line = fails("train", str(corpus), "--initial", str(initial), "--morpheme-boundaries", "kiwi", "--vocab-size", "120",
                 "-o", str(tmp_path / "more"))
    assert line == ("korean-bpe: error: --morpheme-boundaries cannot be used with --initial: continued training cuts "
                    "CORPUS with the --initial model's own pre-tokenizer (whitespace), so the kiwi boundaries would "
                    "not be applied; leave --morpheme-boundaries out, or train a new model with it")
    assert not (tmp_path / "more").exists()


# -- 4. an option that qualifies another does nothing without it: refused ---------------------------


@pytest.mark.parametrize(("args", "option", "fix"), [
    (["--device", "cpu"], "--device", "--downstream"),
    (["--downstream-seeds", "5"], "--downstream-seeds", "--downstream"),
    (["--downstream-docs", "100"], "--downstream-docs", "--downstream"),
    (["--downstream-epochs", "2"], "--downstream-epochs", "--downstream"),
])
def test_compare_refuses_a_downstream_option_without_downstream(corpus: Path, tmp_path: Path, args: list[str],
                                                                option: str, fix: str) -> None:
    line = fails("compare", str(corpus), "--strategies", "baseline/word", "--gold", "none", "--no-progress",
                 "-o", str(tmp_path / "r"), *args)
    assert line == (f"korean-bpe: error: {option} qualifies --downstream, which is not given, so it would do nothing: "
                    f"leave {option} out, or add --downstream (with labels)")
    assert not (tmp_path / "r").exists()


@pytest.mark.parametrize(("option", "value", "most"), [("--downstream-seeds", "100000", 100),
                                                       ("--downstream-epochs", "100000", 1000)])
def test_downstream_seeds_and_epochs_have_upper_bounds(corpus: Path, tmp_path: Path, option: str, value: str,
                                                       most: int) -> None:
    from korean_bpe.compare.downstream import Downstream

    line = fails("compare", str(corpus), "--downstream", option, value, "-o", str(tmp_path / "r"))
    assert f"argument {option}: expected an integer from 1 to {most}, got '{value}'" in line
    field = option.removeprefix("--downstream-")
    with pytest.raises(ValueError, match=rf"Downstream\({field}=100000\): must be an int >= 1 and <= {most:,}"):
        Downstream(**{field: 100_000})


def test_train_refuses_superword_max_words_without_the_transition(corpus: Path, tmp_path: Path) -> None:
    line = fails("train", str(corpus), "--superword-max-words", "2", "-o", str(tmp_path / "m"))
    assert line == ("korean-bpe: error: --superword-max-words limits the tokens SuperBPE makes after "
                    "--superword-transition; without it no token crosses a space: leave --superword-max-words out, "
                    "or add --superword-transition T")
    assert not (tmp_path / "m").exists()
    ok("train", str(corpus), "--superword-transition", "60", "--superword-max-words", "2", "--vocab-size", "90",
       "--no-progress", "-o", str(tmp_path / "m"))


# -- 5. a confidence past what the resamples allow says what to do ---------------------------------


def test_a_confidence_too_high_for_the_resamples_says_what_to_do(corpus: Path, tmp_path: Path) -> None:
    from korean_bpe.compare import Statistics

    line = fails("compare", str(corpus), "--confidence", "0.999999", "--gold", "none", "-o", str(tmp_path / "r"))
    assert line == ("korean-bpe: error: --confidence 0.999999 needs at least 10,000,000 resamples for its intervals, "
                    "more than the 100,000 a run may take: use --confidence 0.9999 or lower, or --resamples 0 for no "
                    "intervals")
    assert Statistics(confidence=0.999999, resamples=0).resamples == 0  # no intervals: any confidence
    with pytest.raises(ValueError, match=r"confidence=0.9999 over 60 rows needs 1,200,000 resamples for Holm's "
                                         r"correction to reach significance, more than the 100,000 a run may take"):
        Statistics(confidence=0.9999).for_run(500, 60, [])


# -- 6. --lossless on a pre-tokenizer without the mode: the user's words ---------------------------


@pytest.mark.parametrize("name", ["mob", "morpheme_boundaries"])
def test_lossless_on_a_pre_tokenizer_without_the_mode(corpus: Path, tmp_path: Path, name: str) -> None:
    line = fails("train", str(corpus), "--pre-tokenizer", name, "--lossless", "-o", str(tmp_path / "m"))
    assert line == (f"korean-bpe: error: --lossless is for the morpheme pre-tokenizers (kiwi, mecab, okt); '{name}' has "
                    "no such mode (it reads an analyzer's lossless morphemes already): leave --lossless out")


# -- 7. --downstream-docs states its minimum -------------------------------------------------------


def test_downstream_docs_states_its_minimum(corpus: Path, tmp_path: Path) -> None:
    line = fails("compare", str(corpus), "--downstream", "--downstream-docs", "1", "-o", str(tmp_path / "r"))
    assert "argument --downstream-docs: expected a number of documents, at least 2 (a classifier needs two classes), " \
           "or 'all', got '1'" in line


# -- 8. train names its pipelines as compare does ---------------------------------------------------


def test_pipeline_names_are_compares() -> None:
    from korean_bpe.compare.strategies import BPE_PRE_TOKENIZERS, SUPERWORD, TRAIN_ONLY, pipeline_name
    from korean_bpe.pre_tokenizers import get_pre_tokenizer

    for key, (name, options) in BPE_PRE_TOKENIZERS.items():
        if key not in SUPERWORD:  # superbpe is a way of training, not a pre-tokenizer: train names it itself
            assert pipeline_name(get_pre_tokenizer(name, **options).to_config(), "jamo") == f"{key}/jamo"
    for family, analyzer in TRAIN_ONLY.items():
        config = get_pre_tokenizer({"type": "morpheme_boundaries", "analyzer": analyzer, "base": "raw"}).to_config()
        assert pipeline_name(config, "byte") == f"{family}/byte"


@pytest.mark.parametrize(("args", "name"), [(["--morpheme-boundaries", "kiwi"], "kiwi-train/syllable"),
                                            (["--pre-tokenizer", "mob"], "mob/syllable")])
def test_train_names_the_new_pipelines_as_compare_does(corpus: Path, tmp_path: Path, args: list[str], name: str) -> None:
    proc = ok("train", str(corpus), *args, "--vocab-size", "90", "--no-progress", "-o", str(tmp_path / "m"))
    assert proc.stderr.startswith(f"trained {name}: "), proc.stderr


# -- smaller: the one-class message of the probe and --downstream in the command line's words -------


def test_one_class_labels_are_named_as_the_option(corpus: Path, tmp_path: Path) -> None:
    pytest.importorskip("pandas")
    labels = tmp_path / "labels.txt"
    documents = [line for line in corpus.read_text(encoding="utf-8").splitlines() if line.strip()]
    labels.write_text("1\n" * len(documents), encoding="utf-8")
    line = fails("compare", str(corpus), "--labels", str(labels), "--strategies", "whitespace/syllable", "--gold",
                 "none", "--no-progress", "-o", str(tmp_path / "r"))
    assert line.startswith("korean-bpe: error: --labels hold a single class ([1]): probe_accuracy needs at least two "
                           "classes in --labels"), line


# -- smaller: a version that is not a number, an unknown cache name ---------------------------------


def test_a_counts_version_that_is_not_a_number_is_said_so(tmp_path: Path) -> None:
    path = WordCounts.from_texts(TEXTS).save(tmp_path / "counts.tsv")
    path.write_text(path.read_text(encoding="utf-8").replace('"version": 1', '"version": "1"'), encoding="utf-8")
    with pytest.raises(CountsFileError) as err:
        WordCounts.load(path)
    assert str(err.value) == (f'{path}, line 1: the header\'s "version" is "1", not a number: this korean_bpe reads '
                              '"version": 1; count again with \'korean-bpe count\'')


@pytest.mark.parametrize(("config", "says"), [
    ({"type": "whitespaec"}, "unknown pre-tokenizer 'whitespaec'; choose one of "),
    ({"type": "okt", "drop": ["Jsoa"]}, "drop has unknown Okt tags ['Jsoa']; choose from ['Adjective', "),
], ids=["pre-tokenizer", "okt-tag"])
def test_a_counts_header_naming_an_unknown_stage_names_the_file(tmp_path: Path, config: dict, says: str) -> None:
    """An unknown pre-tokenizer or Okt tag in the header was reported, when training, without the file."""
    path = WordCounts.from_texts(TEXTS).save(tmp_path / "counts.tsv")
    text = path.read_text(encoding="utf-8")
    path.write_text(text.replace('{"type": "whitespace"}', json.dumps(config), 1), encoding="utf-8")
    with pytest.raises(CountsFileError) as err:
        WordCounts.load(path)
    assert str(err.value).startswith(f'{path}, line 1: the header\'s "pre_tokenizer" cannot be rebuilt ({says}')
    assert str(err.value).endswith("); count again with 'korean-bpe count', or correct the header")
    line = fails("train", "--counts", str(path), "--vocab-size", "50", "-o", str(tmp_path / "m"))
    assert line == f"korean-bpe: error: {err.value}"
    assert not (tmp_path / "m").exists()


def test_cache_clear_refuses_an_unknown_name(tmp_path: Path) -> None:
    env = {**os.environ, "KOREAN_BPE_CACHE_DIR": str(tmp_path)}
    line = fails("cache", "clear", "otk", env=env)
    assert line == ("korean-bpe: error: no cache is named 'otk': give one of kiwi, mecab, okt, models (korean-bpe cache "
                    "list shows what is kept), or no name for every cache")
    assert ok("cache", "clear", "kiwi", env=env).stdout == "removed 0 cached entries from 'kiwi'\n"


def test_a_cache_directory_variable_naming_a_file_is_refused_with_the_fix(tmp_path, monkeypatch) -> None:
    """KOREAN_BPE_CACHE_DIR pointing at a file gave only '[Errno 17] File exists'."""
    from korean_bpe.pre_tokenizers.cache import cache_dir

    file = tmp_path / "not-a-dir"
    file.write_text("x", encoding="utf-8")
    monkeypatch.setenv("KOREAN_BPE_CACHE_DIR", str(file))
    with pytest.raises(ValueError, match=r"KOREAN_BPE_CACHE_DIR=.*not-a-dir is not a directory: point it at a "
                                         r"directory \(created if missing\) or unset it"):
        cache_dir()
    env = {**os.environ, "KOREAN_BPE_CACHE_DIR": str(file)}
    proc = subprocess.run([sys.executable, "-m", "korean_bpe", "cache", "list"], capture_output=True, text=True,
                          env=env, timeout=60)
    assert proc.returncode != 0 and "not-a-dir is not a directory" in proc.stderr
    assert "Traceback" not in proc.stderr and len(proc.stderr.strip().splitlines()) == 1
    monkeypatch.setenv("KOREAN_BPE_CACHE_DIR", str(tmp_path / "new"))  # a missing directory is fine
    assert cache_dir() == tmp_path / "new"


@pytest.mark.parametrize("key", ["format", "vocab_size"])
def test_config_fields_that_disagree_are_refused_with_their_line(tmp_path, key) -> None:
    """tokenizer_config.json's "format" and "vocab_size" were accepted whatever they said."""
    from korean_bpe.io.serialization import ModelFileError

    tok = Tokenizer.train(["영화 정말 재밌다", "영화 진짜 최고"] * 3, vocab_size=30, show_progress=False)
    value, says = {"format": ("other", "format 'other' is not a korean_bpe tokenizer ('korean_bpe.Tokenizer')"),
                   "vocab_size": (tok.vocab_size + 1, f"vocab_size {tok.vocab_size + 1} disagrees with the "
                                  f"{tok.vocab_size} tokens of vocab.json and merges.txt")}[key]
    folder = tok.save(tmp_path / "m")
    config = folder / "tokenizer_config.json"
    data = json.loads(config.read_text(encoding="utf-8"))
    data[key] = value
    config.write_text(json.dumps(data, ensure_ascii=False, indent=2), encoding="utf-8")
    line = next(k for k, text in enumerate(config.read_text(encoding="utf-8").splitlines(), 1) if f'"{key}"' in text)
    with pytest.raises(ModelFileError, match=rf"tokenizer_config\.json:{line}: {re.escape(says)}"):
        Tokenizer.load(folder)
    data.pop(key)  # a format-1 file may lack both keys: still read
    config.write_text(json.dumps(data, ensure_ascii=False, indent=2), encoding="utf-8")
    assert Tokenizer.load(folder).encode("영화 최고") == tok.encode("영화 최고")


# -- smaller: a full disk names the file, says what was kept and the fix ----------------------------

NO_ROOM = "No space left on device"


@pytest.fixture
def full_disk(monkeypatch: pytest.MonkeyPatch):
    """``full(place, name)``: every ``Path.write_text`` under ``place`` of a file whose name holds
    ``name`` writes half its text, then fails as a disk that fills up mid-write does (ENOSPC)."""

    def full(place: Path, name: str = "") -> None:
        real = Path.write_text

        def write_text(self: Path, data: str, *args: object, **kw: object) -> int:
            if place in self.parents and name in self.name:
                real(self, data[: len(data) // 2], *args, **kw)
                raise OSError(errno.ENOSPC, os.strerror(errno.ENOSPC))
            return real(self, data, *args, **kw)

        monkeypatch.setattr(Path, "write_text", write_text)

    return full


def _listing(folder: Path) -> dict[str, bytes]:
    return {p.name: p.read_bytes() for p in sorted(folder.iterdir())}


def test_count_on_a_full_disk_keeps_the_counts_and_prints_the_mv(corpus: Path, tmp_path: Path, full_disk, capsys,
                                                                 monkeypatch: pytest.MonkeyPatch) -> None:
    import tempfile

    from korean_bpe import cli

    out, elsewhere = tmp_path / "out", tmp_path / "tmp"
    out.mkdir()
    elsewhere.mkdir()
    monkeypatch.setattr(tempfile, "tempdir", str(elsewhere))
    full_disk(out)
    assert cli.main(["count", str(corpus), "--no-progress", "-o", str(out / "counts.tsv")]) == 1
    err = capsys.readouterr().err.strip()
    kept = next(elsewhere.iterdir())
    assert err == (f"korean-bpe: error: could not write the counts to {out / 'counts.tsv'} ({NO_ROOM}); the counts "
                   f"were saved to {kept} instead: move them into place with mv {kept} {out / 'counts.tsv'}")
    assert list(out.iterdir()) == []  # no half file, no temporary one
    monkeypatch.undo()
    assert dict(WordCounts.load(kept).items()) == dict(WordCounts.from_texts(corpus.read_text(encoding="utf-8")
                                                                             .splitlines()).items())


def test_count_that_cannot_keep_the_counts_anywhere_says_so(corpus: Path, tmp_path: Path, full_disk, capsys,
                                                            monkeypatch: pytest.MonkeyPatch) -> None:
    import tempfile

    from korean_bpe import cli

    monkeypatch.setattr(tempfile, "tempdir", str(tmp_path / "tmp"))
    (tmp_path / "tmp").mkdir()
    full_disk(tmp_path)  # the output's disk and the temporary directory's
    assert cli.main(["count", str(corpus), "--no-progress", "-o", str(tmp_path / "counts.tsv")]) == 1
    assert capsys.readouterr().err.strip() == (
        f"korean-bpe: error: could not save the counts to {tmp_path / 'counts.tsv'}, nor beside it or in the temporary "
        f"directory ({tmp_path}: {NO_ROOM}; {tmp_path / 'tmp'}: {NO_ROOM}); nothing was kept: free space on that "
        "disk, or give -o a path on another one, and run again")
    assert [p.name for p in tmp_path.iterdir()] == ["tmp"] and list((tmp_path / "tmp").iterdir()) == []


def test_export_hf_on_a_full_disk_names_the_file_and_leaves_the_old_one(model: Path, tmp_path: Path, full_disk,
                                                                        capsys) -> None:
    from korean_bpe import cli

    target = tmp_path / "tokenizer.json"
    target.write_text("{}\n", encoding="utf-8")
    full_disk(tmp_path)
    assert cli.main(["export-hf", "-m", str(model), "-o", str(target)]) == 1
    assert capsys.readouterr().err.strip() == (f"korean-bpe: error: {target}: {NO_ROOM}; the file was left as it "
                                               "was: free space on that disk, or write to another one")
    assert _listing(tmp_path) == {"tokenizer.json": b"{}\n"}


@pytest.mark.parametrize("existing", [False, True], ids=["new-folder", "existing-folder"])
def test_export_hf_folder_on_a_full_disk_is_all_or_nothing(model: Path, tmp_path: Path, full_disk, capsys,
                                                           existing: bool) -> None:
    from korean_bpe import cli

    folder = tmp_path / "hf"
    if existing:
        folder.mkdir()
        (folder / "README.md").write_text("# 영화\n", encoding="utf-8")
        (folder / "tokenizer.json").write_text("{}\n", encoding="utf-8")
    before = _listing(folder) if existing else None
    full_disk(tmp_path, "special_tokens_map")  # tokenizer.json and tokenizer_config.json get written first
    assert cli.main(["export-hf", "-m", str(model), "-o", f"{folder}/"]) == 1
    kept = f"nothing in {folder} was changed (what was written was removed)" if existing else \
        f"nothing was written ({folder} was not created)"
    assert capsys.readouterr().err.strip() == (f"korean-bpe: error: {folder / 'special_tokens_map.json'}: {NO_ROOM}; "
                                               f"{kept}: free space on that disk, or write to another one")
    assert (_listing(folder) == before) if existing else not folder.exists()


@pytest.mark.parametrize("existing", [False, True], ids=["new-folder", "existing-folder"])
def test_compare_on_a_full_disk_leaves_no_partial_report(corpus: Path, tmp_path: Path, full_disk, capsys,
                                                          existing: bool) -> None:
    pytest.importorskip("pandas")
    pytest.importorskip("matplotlib")
    from korean_bpe import cli

    out = tmp_path / "results"
    if existing:  # an earlier report, and a file of the user's
        out.mkdir()
        (out / "report.md").write_text("# 지난 보고서\n", encoding="utf-8")
        (out / "notes.txt").write_text("메모\n", encoding="utf-8")
    before = _listing(out) if existing else None
    full_disk(out, "report.html")  # table.csv, the plots and report.md are written first
    assert cli.main(["compare", str(corpus), "--strategies", "whitespace/syllable", "--gold", "none",
                     "--no-model-cache", "--no-progress", "-o", str(out)]) == 1
    kept = f"nothing in {out} was changed (what was written was removed)" if existing else \
        f"nothing was written ({out} was not created)"
    assert capsys.readouterr().err.strip().splitlines()[-1] == (
        f"korean-bpe: error: {out / 'report.html'}: {NO_ROOM}; {kept}: free space on that disk, or write to another "
        "one")
    assert (_listing(out) == before) if existing else not out.exists()


#: the commands that write standard output, and what they are given
STDOUT_COMMANDS = {
    "encode": lambda model, corpus: ["encode", "-m", str(model), "영화 정말 재밌다"],
    "decode": lambda model, corpus: ["decode", "-m", str(model), "1 2 3"],
    "count": lambda model, corpus: ["count", str(corpus), "--no-progress", "-o", "-"],
    "export-hf": lambda model, corpus: ["export-hf", "-m", str(model), "-o", "-"],
}


@pytest.mark.skipif(not os.path.exists("/dev/full"), reason="no /dev/full (a device that is always full)")
@pytest.mark.parametrize("unbuffered", ["1", ""], ids=["PYTHONUNBUFFERED", "buffered"])
@pytest.mark.parametrize("command", list(STDOUT_COMMANDS))
def test_standard_output_on_a_full_disk_is_named(model: Path, corpus: Path, command: str, unbuffered: str) -> None:
    """/dev/full answers every write with ENOSPC: the kernel's full disk, not a mock.  Buffered, a
    short output failed only in Python's flush at exit: 'Exception ignored ...', status 120."""
    with open("/dev/full", "wb") as full:
        proc = subprocess.run([sys.executable, "-m", "korean_bpe", *STDOUT_COMMANDS[command](model, corpus)],
                              stdout=full, stderr=subprocess.PIPE, text=True, timeout=120,
                              env={**os.environ, "PYTHONPATH": str(Path(__file__).parents[1]),
                                   "PYTHONUNBUFFERED": unbuffered})
    assert proc.returncode == 1 and proc.stderr == (
        f"korean-bpe: error: standard output (/dev/full): {NO_ROOM}; what was written before is there, the rest "
        "is not: free space on that disk, or write to another one\n"), proc.stderr


#: a process whose files may not grow past 4 KiB: a write across the limit is cut short, the next
#: fails with EFBIG (SIGXFSZ ignored), as a disk filling up mid-write cuts it short then fails
LIMITED = """
import resource, runpy, signal, sys
signal.signal(signal.SIGXFSZ, signal.SIG_IGN)
resource.setrlimit(resource.RLIMIT_FSIZE, (4096, 4096))
sys.argv = ["korean-bpe", *sys.argv[1:]]
runpy.run_module("korean_bpe", run_name="__main__")
"""


@pytest.mark.skipif(not hasattr(signal, "SIGXFSZ"), reason="no file size limit signal (not POSIX)")
@pytest.mark.parametrize("unbuffered", ["1", ""], ids=["PYTHONUNBUFFERED", "buffered"])
def test_a_write_cut_short_is_an_error_not_a_lost_tail(model: Path, tmp_path: Path, unbuffered: str) -> None:
    """Under PYTHONUNBUFFERED=1 (python -u) CPython's standard output dropped the rest of a short
    write (gh-85393): encode exited 0 with its output cut at the limit."""
    lines = "영화 정말 재밌다\n" * 2000
    with open(tmp_path / "ids.txt", "wb") as out:
        proc = subprocess.run([sys.executable, "-c", LIMITED, "encode", "-m", str(model), "--ids"], input=lines,
                              stdout=out, stderr=subprocess.PIPE, text=True, timeout=120,
                              env={**os.environ, "PYTHONPATH": str(Path(__file__).parents[1]),
                                   "PYTHONUNBUFFERED": unbuffered})
    assert proc.returncode == 1 and proc.stderr == (
        f"korean-bpe: error: standard output ({tmp_path / 'ids.txt'}): File too large; what was written before is "
        "there, the rest is not\n"), proc.stderr
    assert (tmp_path / "ids.txt").stat().st_size == 4096
