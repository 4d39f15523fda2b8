"""Issue 24, hardening round two: each defect a hostile but fair user found, as a test that failed
before the fix.  Command-line cases run the installed ``korean-bpe`` in a subprocess (tests/test_cli.py's
helpers): one ``korean-bpe: error: ...`` line, no traceback, and no input or model ever overwritten."""

from __future__ import annotations

import json
import os
import re
import subprocess
import tempfile
from pathlib import Path

import pytest

from korean_bpe import Tokenizer
from korean_bpe.corpus import CorpusError, iter_texts
from korean_bpe.counting import CountsFileError, WordCounts
from korean_bpe.pre_tokenizers._analyzer import AnalyzerSpec, BatchAnalyzer
from korean_bpe.pre_tokenizers.cache import ENV_VAR, AnalysisCache, list_caches

from test_cli import CMD, REVIEWS, fails, ok, run, unprivileged  # noqa: E402  (tests/test_cli.py)

DEMO = AnalyzerSpec(name="demo", version="1", options=(("upper", False),),
                    factory="korean_bpe.pre_tokenizers._analyzer:split_analyzer")


@pytest.fixture(scope="module")
def corpus(tmp_path_factory: pytest.TempPathFactory) -> Path:
    path = tmp_path_factory.mktemp("harden") / "reviews.txt"
    path.write_text("\n".join(REVIEWS) + "\n", encoding="utf-8")
    return path


@pytest.fixture(scope="module")
def model(corpus: Path) -> Path:
    out = corpus.parent / "model"
    ok("train", str(corpus), "--vocab-size", "80", "--no-progress", "-o", str(out))
    return out


@pytest.fixture(scope="module")
def counts(corpus: Path) -> Path:
    out = corpus.parent / "counts.tsv"
    ok("count", str(corpus), "--no-progress", "-o", str(out))
    return out


def _files(directory: Path) -> dict[str, bytes]:
    return {p.name: p.read_bytes() for p in sorted(directory.iterdir()) if p.is_file()}


# -- 1. an output that is also an input ------------------------------------------------------------


@pytest.mark.parametrize("scheduler", [[], ["--scheduler", "local"]], ids=["here", "dask"])
def test_count_refuses_an_output_that_is_its_corpus(corpus: Path, tmp_path: Path, scheduler: list[str]) -> None:
    before = corpus.read_bytes()
    line = fails("count", str(corpus), *scheduler, "-o", str(corpus))
    assert f"argument -o/--output: {corpus} is the corpus, which this command reads" in line
    (tmp_path / "link.tsv").symlink_to(corpus)  # through a symbolic link
    assert "through a link" in fails("count", str(corpus), *scheduler, "-o", str(tmp_path / "link.tsv"))
    os.link(corpus, tmp_path / "hard.txt")  # a hard link is the same file too
    assert "is the corpus" in fails("count", str(corpus), *scheduler, "-o", str(tmp_path / "hard.txt"))
    line = fails("count", "a.txt", str(corpus), *scheduler, "-o", str(tmp_path / "hard.txt"))
    assert f"is FILE 2 ({corpus}, through a link)" in line
    assert corpus.read_bytes() == before


def test_compare_refuses_an_output_over_an_input_before_reading(corpus: Path, tmp_path: Path) -> None:
    before = corpus.read_bytes()
    line = fails("compare", str(corpus), "--csv", str(corpus), "-o", str(tmp_path / "r"))
    assert line.startswith(f"korean-bpe: error: argument --csv: {corpus} is the corpus")
    report = tmp_path / "r"
    report.mkdir()
    (report / "table.csv").write_bytes(before)  # a table compared as a corpus, and the report over it
    line = fails("compare", str(corpus), "--eval", str(report / "table.csv"), "-o", str(report))
    assert f"argument -o/--output: {report / 'table.csv'} is the --eval file" in line
    assert "the --labels file" in fails("compare", str(corpus), "--labels", str(report / "report.md"), "-o",
                                        str(report), "--strategies", "baseline/word")
    assert corpus.read_bytes() == before and (report / "table.csv").read_bytes() == before
    assert not (tmp_path / "r" / "report.html").exists()


def test_export_hf_refuses_to_write_over_a_file_of_its_model(model: Path, tmp_path: Path) -> None:
    before = _files(model)
    for name in ("vocab.json", "merges.txt", "tokenizer_config.json"):
        line = fails("export-hf", "-m", str(model), "-o", str(model / name))
        assert f"is the model's {name}, which this command reads" in line
        assert f"such as {model / 'tokenizer.json'}" in line
    (tmp_path / "out.json").symlink_to(model / "vocab.json")
    assert "through a link" in fails("export-hf", "-m", str(model), "-o", str(tmp_path / "out.json"))
    assert _files(model) == before
    ok("export-hf", "-m", str(model), "-o", str(model))  # beside the model files: fine
    assert (model / "tokenizer.json").is_file()
    assert Tokenizer.load(model).vocab_size == len(json.loads(before["vocab.json"]))
    (model / "tokenizer.json").unlink()


def test_train_refuses_an_output_over_its_inputs(corpus: Path, model: Path, counts: Path, tmp_path: Path) -> None:
    before = _files(model)
    line = fails("train", str(corpus), "--initial", str(model), "--vocab-size", "90", "-o", str(model))
    assert f"argument -o/--output: {model} is the --initial model" in line
    line = fails("train", str(model / "vocab.json"), "-o", str(model))
    assert f"{model / 'vocab.json'} is the corpus" in line
    copy = tmp_path / "m"
    copy.mkdir()
    (copy / "merges.txt").write_bytes(counts.read_bytes())
    assert "is the --counts file" in fails("train", "--counts", str(copy / "merges.txt"), "-o", str(copy))
    assert _files(model) == before and (copy / "merges.txt").read_bytes() == counts.read_bytes()


# -- 11. standard input read once ------------------------------------------------------------------------


def test_stdin_given_twice_is_refused(tmp_path: Path) -> None:
    text = "\n".join(REVIEWS) + "\n"
    line = fails("count", "-", "-", "-o", str(tmp_path / "c.tsv"), stdin=text)
    assert "'-' (standard input) is given for FILE 1 and FILE 2, but standard input can be read only once" in line
    line = fails("compare", "-", "--labels", "-", "-o", str(tmp_path / "r"), stdin=text)
    assert "for the corpus and the --labels file" in line
    assert sorted(p.name for p in tmp_path.iterdir()) == []


# -- 2. a counts file given as a corpus --------------------------------------------------------------


@pytest.mark.parametrize("args", [
    ["train", "{counts}", "-o", "{tmp}/m"],
    ["count", "{counts}", "-o", "{tmp}/c.tsv"],
    ["compare", "{counts}", "-o", "{tmp}/r"],
    ["compare", "{corpus}", "--eval", "{counts}", "--strategies", "baseline/word", "-o", "{tmp}/r"],
], ids=["train", "count", "compare", "compare-eval"])
def test_a_counts_file_given_as_a_corpus_says_to_use_counts(args: list[str], corpus: Path, counts: Path,
                                                            tmp_path: Path) -> None:
    argv = [a.format(counts=counts, corpus=corpus, tmp=tmp_path) for a in args]
    line = fails(*argv, "--no-progress")
    assert f"{counts} is a word-counts file (written by 'korean-bpe count'), not a corpus" in line
    assert f"'korean-bpe train --counts {counts}'" in line
    assert sorted(p.name for p in tmp_path.iterdir()) == []


def test_the_corpus_reader_refuses_a_counts_file(counts: Path) -> None:
    with pytest.raises(CorpusError, match=r"WordCounts\.load"):
        next(iter_texts(counts))
    line = fails("train", "-", "-o", "m", stdin=counts.read_text(encoding="utf-8"))
    assert "<stdin> is a word-counts file" in line and "'korean-bpe train --counts FILE'" in line


def test_a_document_that_only_looks_like_a_counts_header_is_read(tmp_path: Path) -> None:
    path = tmp_path / "notes.txt"
    path.write_text('#{"format": "my notes"}\n#{not json\n영화 정말 재밌다\n', encoding="utf-8")
    assert list(iter_texts(path)) == ['#{"format": "my notes"}', "#{not json", "영화 정말 재밌다"]


# -- 3. any vocabulary size a user can type ----------------------------------------------------------


@pytest.mark.parametrize("size", [str(2**63), str(10**30)])
def test_a_vocabulary_size_past_int64_trains(corpus: Path, counts: Path, tmp_path: Path, size: str) -> None:
    ok("train", str(corpus), "--vocab-size", "100000", "--no-progress", "-o", str(tmp_path / "all"))
    ok("train", str(corpus), "--vocab-size", size, "--no-progress", "-o", str(tmp_path / "big"))
    ok("train", "--counts", str(counts), "--vocab-size", size, "--no-progress", "-o", str(tmp_path / "counted"))
    every = _files(tmp_path / "all")
    assert _files(tmp_path / "big") == every == _files(tmp_path / "counted")  # every merge there is
    ok("train", str(corpus), "--min-frequency", size, "--no-progress", "-o", str(tmp_path / "none"))
    assert Tokenizer.load(tmp_path / "none").model.merges == ()  # no pair occurs that often


def test_train_from_counts_takes_any_size(counts: Path) -> None:
    words = WordCounts.load(counts)
    assert Tokenizer.train_from_counts(words, vocab_size=2**64).vocab_size == \
        Tokenizer.train_from_counts(words, vocab_size=100_000).vocab_size


def test_compare_refuses_a_size_no_peer_can_allocate(corpus: Path, tmp_path: Path) -> None:
    line = fails("compare", str(corpus), "--vocab-sizes", f"1000,{2**63}", "-o", str(tmp_path / "r"))
    assert f"argument --vocab-sizes: {2**63} is larger than compare trains" in line and "at most 1048576" in line


# -- 4. a counts file that is not UTF-8 ----------------------------------------------------------------


def test_a_counts_file_not_utf8_names_the_line_and_byte_offset(tmp_path: Path) -> None:
    path = tmp_path / "counts.tsv"
    WordCounts({f"단어{k}": 40_000 - k for k in range(40_000)}).save(path)
    lines = path.read_bytes().split(b"\n")
    offset = sum(len(line) + 1 for line in lines[:30_001])  # line 30,002 starts here
    lines[30_001] = b"\xb0" + lines[30_001]
    path.write_bytes(b"\n".join(lines))
    where = f"line 30002, byte offset {offset} (byte 0xb0)"
    with pytest.raises(CountsFileError, match=re.escape(f"not UTF-8 text: {where}")):
        WordCounts.load(path)
    assert where in fails("train", "--counts", str(path), "-o", str(tmp_path / "m"))


# -- 5. more labels than documents ---------------------------------------------------------------------


def test_compare_refuses_more_labels_than_documents(tmp_path: Path) -> None:
    docs = tmp_path / "docs.txt"
    docs.write_text("\n".join(REVIEWS[:20]) + "\n", encoding="utf-8")
    labels = tmp_path / "labels.txt"
    labels.write_text("\n".join(["1"] + [str(k % 2) for k in range(20)]) + "\n", encoding="utf-8")  # one extra on top
    line = fails("compare", str(docs), "--labels", str(labels), "-o", str(tmp_path / "r"), here=True)
    assert f"--labels {labels} has 21 labels for 20 documents" in line
    assert not (tmp_path / "r").exists()
    # --limit cuts the documents short: the first labels go with them, once the file has one per document
    # (issue 29: the same shifted file is refused with --limit, tests/test_hardening_round3.py)
    labels.write_text("\n".join(str(k % 2) for k in range(20)) + "\n", encoding="utf-8")
    ok("compare", str(docs), "--labels", str(labels), "--limit", "10", "--strategies", "baseline/word", "--gold",
       "none", "--vocab-sizes", "50", "--no-progress", "-o", str(tmp_path / "r"), here=True)


# -- 6. Dask's logging stays quiet for a user's mistake --------------------------------------------------


@pytest.mark.parametrize("kind", ["cp949", "table"])
def test_a_dask_shard_with_a_mistake_prints_one_line(tmp_path: Path, kind: str) -> None:
    pytest.importorskip("distributed")
    body = [f"{k}번째 리뷰: 영화 정말 재밌다, 또 보고 싶다" for k in range(60_000)]  # 4 MB: shards of 1 MiB
    if kind == "table":
        rows = ["id\tdocument\tlabel", *(f"{k}\t{t}\t{k % 2}" for k, t in enumerate(body))]
        rows[50_000] = "49999\t탭이\t들어간 리뷰\t0"
        data = ("\n".join(rows) + "\n").encode()
        expect = "malformed table: line 50001, byte offset"
    else:
        lines = [t.encode() for t in body]
        lines[50_000] = "인코딩이 깨진 리뷰".encode("cp949")  # in a later shard
        data = b"\n".join(lines) + b"\n"
        expect = "not UTF-8 text: line 50001, byte offset"
    path = tmp_path / "reviews.tsv"
    path.write_bytes(data)
    proc = run("count", str(path), "--scheduler", "local", "--shard-mb", "1", "--no-progress", "-o",
               str(tmp_path / "c.tsv"))
    assert proc.returncode == 1
    assert len(proc.stderr.splitlines()) == 1, proc.stderr
    assert proc.stderr.startswith("korean-bpe: error: ") and expect in proc.stderr


# -- 7. and 8. the analysis cache: read-only, and damaged inside an entry ---------------------------------


def _demo_cache(directory: Path, texts: list[str]) -> Path:
    with AnalysisCache("demo", directory=directory) as c:
        ns = c.namespace(DEMO.cache_spec())
        c.put_many(ns, [(t, t.split()) for t in texts])
    return directory / "demo.sqlite3"


def test_cache_list_reads_a_cache_it_cannot_write() -> None:
    prefix = unprivileged()
    place = Path(tempfile.mkdtemp(prefix="korean_bpe-ro-list-"))
    try:
        db = _demo_cache(place, ["영화 정말 재밌다", "아이언맨 최고"])
        os.chmod(db, 0o444)
        os.chmod(place, 0o555)
        proc = subprocess.run([*prefix, *CMD, "cache", "list"], env={**os.environ, ENV_VAR: str(place)},
                              capture_output=True, text=True, timeout=120)
        assert proc.returncode == 0, proc.stderr
        assert any(line.split()[:3] == ["demo", "2", "entries"] for line in proc.stdout.splitlines()), proc.stdout
        assert "unreadable" not in proc.stdout and sorted(p.name for p in place.iterdir()) == ["demo.sqlite3"]
    finally:
        os.chmod(place, 0o755)
        for p in place.iterdir():
            p.unlink()
        place.rmdir()


@pytest.mark.parametrize("damage", ["text", "value"])
def test_a_cache_damaged_inside_an_entry_is_listed_and_moved_aside(tmp_path: Path, damage: str) -> None:
    texts = ["영화 정말 재밌다", "아이언맨 최고", "노잼 시간 아까움"]
    db = _demo_cache(tmp_path, texts)
    data = db.read_bytes()
    if damage == "text":  # a byte inside the stored text: no longer UTF-8 (SQLite does not check)
        at = data.index("아이언맨 최고".encode()) + 1
        data = data[:at] + b"\xff" + data[at + 1:]
    else:  # the stored analysis: still UTF-8, no longer JSON
        at = data.index('["아이언맨","최고"]'.encode())
        data = data[:at] + b"{" + data[at + 1:]
    db.write_bytes(data)
    [info] = list_caches(directory=tmp_path)
    assert info.entries == -1 and info.problem.startswith("corrupt: ")
    proc = run("cache", "list", env={**os.environ, ENV_VAR: str(tmp_path)})
    assert "corrupt" in proc.stdout and "korean-bpe cache clear demo" in proc.stdout
    b = BatchAnalyzer(DEMO, cache_dir=tmp_path, workers=1)
    with pytest.warns(RuntimeWarning, match=r"was corrupted .*; moved it to .*demo\.sqlite3\.corrupt-.* and started"):
        assert b.analyze_batch(texts) == [t.split() for t in texts]
    again = BatchAnalyzer(DEMO, cache_dir=tmp_path, workers=1)
    assert again.analyze_batch(texts) == [t.split() for t in texts]  # the new cache, silently
    assert again.last_stats["cached"] == 3
    out = run("cache", "list", env={**os.environ, ENV_VAR: str(tmp_path)}).stdout
    assert any(line.split()[:3] == ["demo", "3", "entries"] for line in out.splitlines()), out
    assert any(line.split()[:3] == ["demo", "moved", "aside"] and ".corrupt-" in line for line in out.splitlines())


# -- 9. options that do nothing ------------------------------------------------------------------------


def test_options_that_do_nothing_are_refused(corpus: Path, model: Path, tmp_path: Path) -> None:
    line = fails("count", str(corpus), "--shard-mb", "8", "-o", str(tmp_path / "c.tsv"))
    assert "--shard-mb sizes the shards of --scheduler" in line and not (tmp_path / "c.tsv").exists()
    assert "without --dropout P nothing is drawn" in fails("encode", "-m", str(model), "--seed", "3", "영화")
    ok("encode", "-m", str(model), "--dropout", "0.1", "--seed", "3", "영화")


# -- 10. warnings and messages in the command line's words -------------------------------------------------


def test_a_warning_is_one_line_in_the_words_of_the_command_line(model: Path, tmp_path: Path) -> None:
    new = tmp_path / "new.txt"
    new.write_text("😀 영화 𝒜 ÿ\n😀 꿻 최고\n", encoding="utf-8")
    proc = ok("train", str(new), "--initial", str(model), "--vocab-size", "90", "--no-progress", "-o",
              str(tmp_path / "m"))
    warning, trained = proc.stderr.splitlines()  # the warning, one line, then the usual report
    assert warning.startswith("korean-bpe: warning: ") and "are not in the initial alphabet" in warning
    assert trained.startswith("trained whitespace/syllable: ")
    assert "--unit byte holds all 256 bytes; --byte-fallback at least avoids <unk>" in warning
    assert "UserWarning" not in proc.stderr and ".py:" not in proc.stderr and "unit=" not in proc.stderr


@pytest.mark.parametrize(("option", "expect"), [
    (["--byte-fallback"], "--byte-fallback differs from the --initial model {m}, which has no byte fallback"),
    (["--hangul-fallback"], "--hangul-fallback differs from the --initial model {m}, which has no Hangul fallback"),
    (["--unit", "jamo"], "--unit jamo differs from the --initial model {m}, which has the syllable unit"),
    (["--marker", "</w>"], "--marker </w> differs from the --initial model {m}, which has the marker space"),
    (["--max-token-length", "3"], "--max-token-length cannot be used with --initial"),
    (["--pre-tokenizer", "raw"], "--pre-tokenizer raw differs from the --initial model {m}, which has the "
                                 "pre-tokenizer {{'type': 'whitespace'}}"),
])
def test_what_initial_fixes_is_refused_in_cli_words(corpus: Path, model: Path, tmp_path: Path, option: list[str],
                                                    expect: str) -> None:
    line = fails("train", str(corpus), "--initial", str(model), *option, "--vocab-size", "90", "-o",
                 str(tmp_path / "m"))
    assert expect.format(m=model) in line and f"leave {option[0]} out" in line
    assert "pass " not in line and "=" not in line


def test_an_hf_folder_export_never_replaces_the_models_own_config(tmp_path):
    """HF's folder holds a tokenizer_config.json too: exported into a saved model's directory (the
    API, export-hf -o MODEL or MODEL/), it would replace the model's own. There it writes
    tokenizer.json alone, beside the model files; export_folder itself refuses."""
    from korean_bpe import Tokenizer
    from korean_bpe.cli import main
    from korean_bpe.io.hf import export_folder

    tok = Tokenizer.train(["영화 정말 재밌다"] * 3, vocab_size=20)
    model = tok.save(tmp_path / "model")
    before = {p.name: p.read_bytes() for p in model.iterdir()}
    with pytest.raises(ValueError, match="holds a korean_bpe model .* export to another folder"):
        export_folder(tok, model)
    for out in (lambda: tok.to_huggingface(model), lambda: main(["export-hf", "-m", str(model), "-o", f"{model}/"])):
        out()
        assert sorted(p.name for p in model.iterdir()) == sorted([*before, "tokenizer.json"])
        assert {name: (model / name).read_bytes() for name in before} == before
        (model / "tokenizer.json").unlink()
    assert Tokenizer.load(model).model == tok.model
    tok.to_huggingface(f"{tmp_path}/hf/")  # a folder of its own: the complete HF folder
    assert sorted(p.name for p in (tmp_path / "hf").iterdir()) == [
        "special_tokens_map.json", "tokenizer.json", "tokenizer_config.json"]
