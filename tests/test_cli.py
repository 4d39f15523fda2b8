"""The ``korean-bpe`` command end to end, each call a real subprocess (the installed entry point), but
the comparisons, which run in this process (``here=True``: tests/_cli.py says why)."""

from __future__ import annotations

import json
import os
import re
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
ENTRY = Path(sys.executable).parent / "korean-bpe"
CMD = [str(ENTRY)] if ENTRY.is_file() else [sys.executable, "-m", "korean_bpe.cli"]

from _cli import run_cli  # noqa: E402  (tests/_cli.py)
from _reviews import MOVIE_REVIEWS  # noqa: E402  (tests/_reviews.py)

REVIEWS = list(MOVIE_REVIEWS) * 5


def run(*args: str, stdin: bytes | str | None = None, env: dict[str, str] | None = None,
        cwd: Path | None = None, here: bool = False) -> subprocess.CompletedProcess[str]:
    if here:
        return run_cli(*args, stdin=stdin, env=env, cwd=cwd)
    data = stdin.encode("utf-8") if isinstance(stdin, str) else stdin
    proc = subprocess.run([*CMD, *args], input=data, capture_output=True, env=env, cwd=cwd, timeout=300)
    return subprocess.CompletedProcess(proc.args, proc.returncode, proc.stdout.decode("utf-8"),
                                       proc.stderr.decode("utf-8"))


def ok(*args: str, **kw: object) -> subprocess.CompletedProcess[str]:
    proc = run(*args, **kw)  # type: ignore[arg-type]
    assert proc.returncode == 0, proc.stderr
    assert "Traceback" not in proc.stderr
    return proc


def fails(*args: str, **kw: object) -> str:
    """Run a user mistake: status 1 or 2, exactly one line on stderr, no traceback; return it."""
    proc = run(*args, **kw)  # type: ignore[arg-type]
    assert proc.returncode in (1, 2), (proc.returncode, proc.stderr)
    assert "Traceback" not in proc.stderr
    lines = proc.stderr.splitlines()
    assert len(lines) == 1, proc.stderr
    assert lines[0].startswith("korean-bpe: error: "), lines[0]
    return lines[0]


@pytest.fixture(scope="module")
def corpus(tmp_path_factory: pytest.TempPathFactory) -> Path:
    path = tmp_path_factory.mktemp("cli") / "reviews.txt"
    path.write_text("\n".join(REVIEWS) + "\n", encoding="utf-8")
    return path


@pytest.fixture(scope="module")
def model(corpus: Path) -> Path:
    out = corpus.parent / "model"
    proc = ok("train", str(corpus), "--vocab-size", "80", "--no-progress", "-o", str(out))
    assert proc.stderr.startswith("trained whitespace/syllable: ")
    return out


# -- train ---------------------------------------------------------------------------------------

def test_train_text_file_writes_a_model(model: Path) -> None:
    assert sorted(p.name for p in model.iterdir()) == ["merges.txt", "tokenizer_config.json", "vocab.json"]
    config = json.loads((model / "tokenizer_config.json").read_text(encoding="utf-8"))
    assert config["unit"] == {"type": "syllable"} and config["pre_tokenizer"] == {"type": "whitespace"}
    vocab = json.loads((model / "vocab.json").read_text(encoding="utf-8"))
    assert len(vocab) == config["vocab_size"] <= 80 and "▁영화" in vocab


def test_train_nsmc_tsv_reads_only_the_document_column(tmp_path: Path) -> None:
    rows = ["id\tdocument\tlabel"] + [f"{9976970 + i}\t{t}\t{i % 2}" for i, t in enumerate(REVIEWS)]
    tsv = tmp_path / "ratings.txt"
    tsv.write_text("\n".join(rows) + "\n", encoding="utf-8")
    ok("train", str(tsv), "--vocab-size", "60", "--unit", "jamo", "--no-progress", "-o", str(tmp_path / "m"))
    vocab = json.loads((tmp_path / "m" / "vocab.json").read_text(encoding="utf-8"))
    assert "ᄋ" in vocab  # jamo alphabet
    assert not any(c.isdigit() or c in "\t" for tok in vocab for c in tok)  # no id, no label, no header
    assert "d" not in vocab


def test_train_from_stdin_with_options(tmp_path: Path) -> None:
    proc = ok("train", "-", "--vocab-size", "300", "--pre-tokenizer", "raw", "--unit", "byte", "--min-frequency", "3",
              "-o", str(tmp_path / "m"), "--no-progress", stdin="\n".join(REVIEWS))
    assert "trained raw/byte" in proc.stderr
    config = json.loads((tmp_path / "m" / "tokenizer_config.json").read_text(encoding="utf-8"))
    assert config["unit"]["type"] == "byte" and config["pre_tokenizer"]["type"] == "raw" and config["marker"] is None
    text = "영화 정말 재밌다  ㅋㅋ"  # raw is lossless: two spaces survive
    ids = ok("encode", "-m", str(tmp_path / "m"), "--ids", text).stdout.strip()
    assert ok("decode", "-m", str(tmp_path / "m"), ids).stdout == text + "\n"


def test_train_max_token_length(tmp_path: Path) -> None:
    common = ("train", "-", "--vocab-size", "120", "--min-frequency", "2", "--no-progress")
    ok(*common, "--max-token-length", "2", "-o", str(tmp_path / "m"), stdin="\n".join(REVIEWS))
    merges = (tmp_path / "m" / "merges.txt").read_text(encoding="utf-8").splitlines()[1:]
    assert merges and max(len(m.replace(" ", "")) for m in merges) == 2  # ▁ counts: '▁영' yes, '▁영화' no
    ok(*common, "-o", str(tmp_path / "free"), stdin="\n".join(REVIEWS))
    free = (tmp_path / "free" / "merges.txt").read_text(encoding="utf-8").splitlines()[1:]
    assert max(len(m.replace(" ", "")) for m in free) > 2
    proc = run(*common, "--max-token-length", "0", "-o", str(tmp_path / "bad"), stdin="\n".join(REVIEWS))
    assert proc.returncode != 0 and "expected a positive integer, got '0'" in proc.stderr
    assert not (tmp_path / "bad").exists()


def test_train_on_the_default_embedded_corpus(tmp_path: Path) -> None:
    ok("train", "--limit", "40", "--vocab-size", "500", "--no-progress", "-o", str(tmp_path / "m"))
    vocab = json.loads((tmp_path / "m" / "vocab.json").read_text(encoding="utf-8"))
    assert "헌" in vocab and "법" in vocab  # the Constitution of the Republic of Korea
    tokens = ok("encode", "-m", str(tmp_path / "m"), "대한민국헌법").stdout.split()
    assert "".join(tokens).replace("▁", "") == "대한민국헌법"


# -- encode / decode -------------------------------------------------------------------------------

def test_encode_tokens_and_ids_from_arguments_and_stdin(model: Path) -> None:
    from korean_bpe import Tokenizer

    tok = Tokenizer.load(model)
    texts = ["영화 정말 재밌다", "스파이더맨 최고의 영화 ㅋㅋ", "처음 보는 글자 뷁"]
    by_arg = ok("encode", "-m", str(model), *texts).stdout.splitlines()
    assert by_arg == [" ".join(tok.tokenize(t)) for t in texts]
    by_stdin = ok("encode", "-m", str(model), stdin="\n".join(texts) + "\n").stdout.splitlines()
    assert by_stdin == by_arg
    assert "<unk>" in by_arg[2]
    ids = ok("encode", "-m", str(model), "--ids", stdin="\r\n".join(texts)).stdout.splitlines()
    assert [list(map(int, line.split())) for line in ids] == [tok.encode(t) for t in texts]


def test_decode_gives_the_text_back(model: Path) -> None:
    texts = ["영화 정말 재밌다", "아이언맨은 올해 최고의 영화!"]
    ids = ok("encode", "-m", str(model), "--ids", *texts).stdout
    assert ok("decode", "-m", str(model), stdin=ids).stdout.splitlines() == texts
    first = ids.splitlines()[0]
    assert ok("decode", "-m", str(model), *first.split()).stdout == texts[0] + "\n"
    assert ok("decode", "-m", str(model), first.replace(" ", ",")).stdout == texts[0] + "\n"
    unk = ok("encode", "-m", str(model), "--ids", "뷁 영화").stdout.strip()
    assert ok("decode", "-m", str(model), unk).stdout == "<unk> 영화\n"
    assert ok("decode", "-m", str(model), "--skip-special-tokens", unk).stdout == " 영화\n"


def test_encode_and_decode_write_lone_surrogates_as_escapes(tmp_path: Path) -> None:
    """A model keeps lone surrogates (a str from surrogateescape, broken JSON); standard output
    cannot encode them in UTF-8: encode and decode write them as \\udXXX escapes (valid UTF-8,
    one line per input) where they ended with a UnicodeEncodeError traceback."""
    from korean_bpe import Tokenizer

    tok = Tokenizer.train(["영화 \udc80 최고", "\ud800 영화"] * 3, vocab_size=20)
    tok.save(tmp_path / "m")
    model = str(tmp_path / "m")
    # an argument that is not UTF-8 reaches Python as a lone surrogate (byte 0x80 -> U+DC80)
    shown = ok("encode", "-m", model, "영화 \udc80").stdout  # run() decodes stdout as strict UTF-8
    assert shown == "\u2581영화 \u2581\\udc80\n" and tok.tokenize("영화 \udc80") == ["\u2581영화", "\u2581\udc80"]
    assert ok("encode", "-m", model, "--offsets", "\udc80").stdout == "\u2581\\udc80@0:1\n"
    ids = " ".join(map(str, tok.encode("\ud800 영화 \udc80")))
    assert ok("decode", "-m", model, ids).stdout == "\\ud800 영화 \\udc80\n"
    assert ok("decode", "-m", model, stdin=f"{ids}\n{ids}\n").stdout == "\\ud800 영화 \\udc80\n" * 2
    assert ok("decode", "-m", model, str(tok.token_to_id("\u2581영화"))).stdout == "영화\n"  # the usual text as is
    for io_encoding in ("utf-8:strict", "utf-8:surrogateescape"):  # en_US.UTF-8, C.UTF-8: the same output
        env = {**os.environ, "PYTHONIOENCODING": io_encoding}
        assert ok("decode", "-m", model, ids, env=env).stdout == "\\ud800 영화 \\udc80\n"
    ascii_env = {**os.environ, "PYTHONIOENCODING": "ascii"}  # what the stream cannot encode: escaped too
    assert ok("decode", "-m", model, ids, env=ascii_env).stdout == "\\ud800 \\uc601\\ud654 \\udc80\n"
    assert "backslashreplace" in " ".join(ok("decode", "--help").stdout.split())


# -- export, cache ---------------------------------------------------------------------------------

def test_export_hf_loads_in_tokenizers_with_the_same_ids(model: Path, tmp_path: Path) -> None:
    tokenizers = pytest.importorskip("tokenizers")
    out = tmp_path / "hf" / "tokenizer.json"
    proc = ok("export-hf", "-m", str(model), "-o", str(out))
    assert str(out) in proc.stderr
    hf = tokenizers.Tokenizer.from_file(str(out))
    texts = ["영화 정말 재밌다", "스파이더맨 최고의 영화 ㅋㅋ", "처음 보는 글자 뷁"]
    ours = ok("encode", "-m", str(model), "--ids", *texts).stdout.splitlines()
    assert [" ".join(map(str, e.ids)) for e in hf.encode_batch(texts)] == ours


def test_cache_list_and_clear(corpus: Path, tmp_path: Path) -> None:
    if shutil.which("java") is None and not os.environ.get("JAVA_HOME"):
        pytest.skip("Okt needs Java")
    env = {**os.environ, "KOREAN_BPE_CACHE_DIR": str(tmp_path / "cache")}
    listing = ok("cache", "list", env=env, here=True).stdout.splitlines()
    assert listing == [f"cache directory: {tmp_path / 'cache'}", "(no caches)"]
    ok("train", str(corpus), "--pre-tokenizer", "okt", "--vocab-size", "60", "--no-progress",
       "-o", str(tmp_path / "m"), env=env, here=True)
    listing = ok("cache", "list", env=env, here=True).stdout.splitlines()
    assert len(listing) == 2 and listing[1].split()[0] == "okt"
    entries = int(listing[1].split()[1])
    assert entries == len({p for r in REVIEWS for p in r.split(" ") if p})  # one analysis per distinct space-separated piece
    assert ok("cache", "clear", "okt", env=env, here=True).stdout == f"removed {entries} cached entries from 'okt'\n"
    assert ok("cache", "list", env=env, here=True).stdout.splitlines()[1] == "(no caches)"
    assert ok("cache", "clear", env=env, here=True).stdout == "removed 0 cached entries\n"


def test_cache_list_and_clear_show_compares_trained_models(tmp_path: Path) -> None:
    pytest.importorskip("pandas")
    env = {**os.environ, "KOREAN_BPE_CACHE_DIR": str(tmp_path / "cache")}
    ok("compare", "constitution", "--limit", "120", "--strategies", "whitespace/syllable,baseline/word", "--vocab-sizes", "300",
       "--gold", "none", "--no-progress", "-o", str(tmp_path / "r1"), env=env, here=True)
    models = tmp_path / "cache" / "models"
    stored = sorted(models.glob("*.json"))
    n = len(stored)
    assert n >= 1  # at least the BPE model of whitespace/syllable
    listing = ok("cache", "list", env=env, here=True).stdout.splitlines()
    line = [entry for entry in listing if entry.split()[0] == "models"]
    assert len(line) == 1 and line[0].split()[1] == str(n) and str(models) in line[0]
    assert ok("cache", "clear", "models", env=env, here=True).stdout == f"removed {n} cached entries from 'models'\n"
    assert not list(models.glob("*.json"))
    assert all(entry.split()[0] != "models" for entry in ok("cache", "list", env=env, here=True).stdout.splitlines())
    # a rerun trains again and stores them again; clearing every cache takes them too
    ok("compare", "constitution", "--limit", "120", "--strategies", "whitespace/syllable,baseline/word", "--vocab-sizes", "300",
       "--gold", "none", "--no-progress", "-o", str(tmp_path / "r2"), env=env, here=True)
    assert len(list(models.glob("*.json"))) == n
    assert ok("cache", "clear", env=env, here=True).stdout == f"removed {n} cached entries\n"
    assert not list(models.glob("*.json"))


# -- compare -------------------------------------------------------------------------------------

def test_compare_writes_the_report_end_to_end(tmp_path: Path) -> None:
    pd = pytest.importorskip("pandas")
    pytest.importorskip("matplotlib")
    from korean_bpe.compare.run import COLUMNS

    out, csv = tmp_path / "results", tmp_path / "copy" / "table.csv"
    proc = ok("compare", "constitution", "--limit", "150", "--strategies", "whitespace/syllable,raw/byte,baseline/word",
              "--vocab-sizes", "400,600", "--gold", "none", "--no-progress", "-o", str(out), "--csv", str(csv), "--full",
              here=True)
    df = pd.read_csv(out / "table.csv", keep_default_na=False)
    assert tuple(df.columns) == COLUMNS and len(df) == 6
    assert list(zip(df["strategy"], df["vocab_size"])) == [(s, v) for s in ("whitespace/syllable", "raw/byte",
                                                                             "baseline/word") for v in (400, 600)]
    assert (df["train_docs"] + df["test_docs"] == 150).all() and (df["test_docs"] == 15).all()
    assert csv.read_text(encoding="utf-8") == (out / "table.csv").read_text(encoding="utf-8")
    lines = proc.stdout.splitlines()
    assert lines[0] == "verdict (on 15 held-out documents):"  # the verdict first: no labels, the shortest sequences
    assert lines[1].startswith("at 400 tokens, choose ") and "No labelled task was measured" in proc.stdout
    lines = lines[lines.index("") + 1:]
    assert lines[0].split()[:4] == ["strategy", "vocab", "tok/doc", "tok/w"]
    assert lines[1].split()[:3] == ["whitespace/syllable(ref)", "400", f"{df['tokens_per_doc'][0]:.2f}"]
    assert max(map(len, lines)) <= 100 and "fertility" in proc.stdout  # fits a terminal; the legend
    pngs = {"tokens_per_word.png", "renyi.png", "token_lengths.png", "segmentation.png"}  # no gold: no tradeoff
    assert {p.name for p in out.iterdir()} == pngs | {"table.csv", "report.md", "report.html"}
    for name in pngs:
        assert (out / name).read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
    page = (out / "report.html").read_text(encoding="utf-8")
    assert page.count('src="data:image/png;base64,') == len(pngs)
    assert "http://" not in page.replace("http://www.w3.org", "") and "<script src" not in page  # no network
    report = (out / "report.md").read_text(encoding="utf-8")
    assert "korean-bpe compare constitution --limit 150 --strategies" in report  # the exact command
    assert "- tradeoff.png: " in report and "- probe.png: " in report  # why they were not drawn
    assert "\n## Segmentation examples" in report and "baseline/word" in report.rsplit("## Segmentation examples", 1)[1]
    assert f"wrote {out}" in proc.stderr and f"wrote {csv}" in proc.stderr


def test_compare_jobs_give_the_same_table_and_examples(tmp_path: Path) -> None:
    pd = pytest.importorskip("pandas")
    pytest.importorskip("matplotlib")
    timing = ["train_s", "pretok_s", "encode_texts_per_s", "model_cached"]
    frames, examples = [], []
    env = {**os.environ, "KOREAN_BPE_CACHE_DIR": str(tmp_path / "cache")}
    for jobs in ("1", "2"):  # two groups, two workers: whitespace BPE with raw; the character baselines
        out = tmp_path / jobs
        ok("compare", "constitution", "--limit", "150", "--strategies", "whitespace/syllable,raw/byte,baseline/jamo",
           "--vocab-sizes", "400,600", "--gold", "none", "--no-progress", "-o", str(out), "--jobs", jobs, env=env,
           here=True)
        table = pd.read_csv(out / "table.csv")
        assert table["model_cached"].tolist() == [jobs == "2"] * 6  # the second run reads the first's models
        frames.append(table.drop(columns=timing))
        report = (out / "report.md").read_text(encoding="utf-8")
        examples.append(report.split("\n## Segmentation examples", 1)[1].split("\n## ", 1)[0])
        assert (out / "segmentation.png").exists() and (out / "token_lengths.png").exists()
    pd.testing.assert_frame_equal(frames[0], frames[1])
    assert examples[0] == examples[1] and "baseline/jamo " in examples[0] and "raw/byte " in examples[0]
    ok("compare", "constitution", "--limit", "150", "--strategies", "whitespace/syllable,raw/byte,baseline/jamo",
       "--vocab-sizes", "400,600", "--gold", "none", "--no-progress", "-o", str(tmp_path / "off"),
       "--no-model-cache", env=env, here=True)
    off = pd.read_csv(tmp_path / "off" / "table.csv")
    assert not off["model_cached"].any()
    pd.testing.assert_frame_equal(off.drop(columns=timing), frames[0])
    assert "--jobs: expected a positive integer" in fails("compare", "constitution", "--jobs", "0", here=True)
    assert "--jobs N" in ok("compare", "--help", here=True).stdout


def test_compare_reads_nsmc_labels_and_an_eval_file(tmp_path: Path) -> None:
    pd = pytest.importorskip("pandas")
    pytest.importorskip("sklearn")
    rows = [(i, text, i % 2) for i, text in enumerate(REVIEWS * 2)]
    train, test = tmp_path / "train.tsv", tmp_path / "test.tsv"
    for path, part in ((train, rows[:50]), (test, rows[50:])):
        path.write_text("id\tdocument\tlabel\n" + "".join(f"{i}\t{t}\t{y}\n" for i, t, y in part), encoding="utf-8")
    ok("compare", str(train), "--eval", str(test), "--strategies", "baseline/word", "--vocab-sizes", "20",
       "--gold", "none", "--no-progress", "-o", str(tmp_path / "out"), here=True)
    df = pd.read_csv(tmp_path / "out" / "table.csv")
    assert df["train_docs"].tolist() == [50] and df["test_docs"].tolist() == [10]
    assert 0 <= df["probe_accuracy"][0] <= 1  # labels were read from the 'label' column
    assert (tmp_path / "out" / "probe.png").is_file()
    ok("compare", str(train), "--eval", str(test), "--eval-limit", "6", "--strategies", "baseline/word", "--vocab-sizes",
       "20", "--gold", "none", "--no-progress", "-o", str(tmp_path / "out6"), here=True)
    df = pd.read_csv(tmp_path / "out6" / "table.csv")
    assert df["train_docs"].tolist() == [50] and df["test_docs"].tolist() == [6]  # the first 6 of --eval, all of CORPUS
    assert "--eval-limit needs --eval" in fails("compare", str(train), "--eval-limit", "6", "-o", str(tmp_path / "o3"),
                                                here=True)
    plain, labels = tmp_path / "plain.txt", tmp_path / "labels.txt"
    plain.write_text("영화 정말 재밌다\n아이언맨 최고\n", encoding="utf-8")
    labels.write_text("1\nx\n", encoding="utf-8")
    assert "label 2 is 'x', not an integer" in fails("compare", str(plain), "--labels", str(labels),
                                                     "-o", str(tmp_path / "o2"), here=True)
    labels.write_text("1\n", encoding="utf-8")
    assert "has 1 labels for 2 documents" in fails("compare", str(plain), "--labels", str(labels),
                                                   "-o", str(tmp_path / "o2"), here=True)


def test_compare_refuses_a_bad_output_before_reading_the_corpus(tmp_path: Path) -> None:
    """Issue 14 item 9: -o and --csv are checked first: the corpus given does not even exist."""
    (tmp_path / "file").write_text("x", encoding="utf-8")
    missing = str(tmp_path / "no-such-corpus.txt")
    line = fails("compare", missing, "-o", str(tmp_path / "file"))
    assert "argument -o/--output" in line and "is a file" in line
    line = fails("compare", missing, "-o", str(tmp_path / "file" / "sub"))
    assert "argument -o/--output" in line
    line = fails("compare", missing, "-o", str(tmp_path / "ok"), "--csv", str(tmp_path / "file" / "t.csv"))
    assert "argument --csv" in line
    line = fails("compare", missing, "-o", str(tmp_path / "ok"), "--strategies", "okt/letters")
    assert "unknown strategy 'okt/letters'" in line
    assert not (tmp_path / "ok").exists()
    assert "no-such-corpus.txt" in fails("compare", missing, "-o", str(tmp_path / "ok"))  # then the corpus


@pytest.mark.skipif(os.geteuid() == 0, reason="root writes anywhere")
def test_compare_refuses_an_unwritable_output(tmp_path: Path) -> None:
    locked = tmp_path / "locked"
    locked.mkdir(mode=0o500)
    line = fails("compare", str(tmp_path / "none.txt"), "-o", str(locked / "out"))
    assert "argument -o/--output" in line and "writable" in line


def test_compare_skips_a_missing_analyzer_with_one_note(tmp_path: Path) -> None:
    fake = tmp_path / "shadow" / "kiwipiepy"
    fake.mkdir(parents=True)  # fault injection: kiwipiepy cannot be imported
    (fake / "__init__.py").write_text("raise ImportError('No module named kiwipiepy')\n", encoding="utf-8")
    env = {**os.environ, "PYTHONPATH": os.pathsep.join(filter(None, [str(fake.parent), os.environ.get("PYTHONPATH")]))}
    proc = ok("compare", "constitution", "--limit", "60", "--strategies", "kiwi/syllable,whitespace/syllable",
              "--vocab-sizes", "600", "--gold", "none", "--no-progress", "-o", str(tmp_path / "out"), env=env)
    notes = [line for line in proc.stderr.splitlines() if line.startswith("note: ")
             and not line.startswith("note: no intervals and no bootstrap p-values: 6 held-out documents")]
    assert len(notes) == 1 and notes[0].startswith("note: skipped kiwi/syllable: ")
    assert "pip install" in notes[0]
    lines = proc.stdout.splitlines()
    table = lines[next(k for k, line in enumerate(lines) if line.startswith("strategy ")):]
    assert [r.split()[0] for r in table[1:2]] == ["whitespace/syllable(ref)"]
    assert notes[0][len("note: "):] in (tmp_path / "out" / "report.md").read_text(encoding="utf-8")


# -- user mistakes: one line, non-zero status, no traceback --------------------------------------

def test_missing_corpus_file(tmp_path: Path) -> None:
    line = fails("train", str(tmp_path / "nope.txt"), "-o", str(tmp_path / "m"))
    assert "not found" in line and "nope.txt" in line
    assert not (tmp_path / "m").exists()


def test_non_utf8_file_names_line_and_byte_offset(tmp_path: Path) -> None:
    bad = tmp_path / "cp949.txt"
    bad.write_bytes("영화 좋아\n".encode("utf-8") + "재밌다".encode("cp949") + b"\n")
    line = fails("train", str(bad), "-o", str(tmp_path / "m"))
    offset = len("영화 좋아\n".encode("utf-8"))
    assert f"line 2, byte offset {offset}" in line and "UTF-8" in line


def test_non_utf8_stdin(model: Path, tmp_path: Path) -> None:
    line = fails("encode", "-m", str(model), stdin="영화\n".encode("utf-8") + b"\xff\xfe\n")
    assert "<stdin>" in line and "line 2, byte offset 7" in line
    line = fails("train", "-", "-o", str(tmp_path / "m"), stdin=b"\xb0\xa1")
    assert "<stdin>" in line and "byte offset 0" in line


def test_empty_corpus(tmp_path: Path) -> None:
    empty = tmp_path / "empty.txt"
    empty.write_text("\n   \n\t\n", encoding="utf-8")
    assert "empty" in fails("train", str(empty), "-o", str(tmp_path / "m"))
    assert "empty" in fails("train", "-", "-o", str(tmp_path / "m"), stdin="")
    assert "empty" in fails("compare", str(empty), "-o", str(tmp_path / "r"))


@pytest.mark.parametrize(("damage", "expect"), [
    (lambda d: (d / "vocab.json").write_text("{not json", encoding="utf-8"), "vocab.json:1"),
    (lambda d: (d / "merges.txt").unlink(), "merges.txt"),
    (lambda d: (d / "merges.txt").open("a", encoding="utf-8").write("oops\n"), "merges.txt:"),
    (lambda d: (d / "tokenizer_config.json").write_text('{"format_version": 99}', encoding="utf-8"),
     "tokenizer_config.json"),
])
def test_corrupted_model_directory(model: Path, tmp_path: Path, damage, expect: str) -> None:
    broken = tmp_path / "broken"
    shutil.copytree(model, broken)
    damage(broken)
    line = fails("encode", "-m", str(broken), "영화")
    assert expect in line


def test_model_directory_mistakes(model: Path, tmp_path: Path) -> None:
    assert "model directory not found" in fails("encode", "-m", str(tmp_path / "none"), "영화")
    assert "is not a directory" in fails("decode", "-m", str(model / "vocab.json"), "1")
    assert "vocab.json" in fails("encode", "-m", str(tmp_path), "영화")  # empty directory


@pytest.mark.parametrize(("args", "expect"), [
    (["train", "--vocab-size", "0", "-o", "m"], "--vocab-size: expected a positive integer, got '0'"),
    (["train", "--vocab-size", "many", "-o", "m"], "got 'many'"),
    (["train", "--unit", "letter", "-o", "m"], "--unit: invalid choice: 'letter'"),
    (["train", "--lossless", "-o", "m"], "--lossless is for the morpheme pre-tokenizers"),
    (["train"], "required: -o/--output"),
    (["compare", "constitution", "--strategies", "whitespace/letters", "-o", "r"], "unknown strategy 'whitespace/letters'"),
    (["compare", "constitution", "--vocab-sizes", "4000,x", "-o", "r"], "expected a positive integer, got 'x'"),
    (["compare", "constitution", "--test-fraction", "1.5", "-o", "r"], "--test-fraction must be between 0 and 1"),
    (["compare", "constitution", "--gold", "hannanum", "-o", "r"], "--gold: invalid choice: 'hannanum'"),
    (["compare", "constitution", "--limit", "1", "--strategies", "whitespace", "-o", "r"], "need at least 2 documents"),
    ([], "required: COMMAND"),
    (["tokenize"], "invalid choice: 'tokenize'"),
])
def test_bad_option_values(args: list[str], expect: str, tmp_path: Path) -> None:
    assert expect in fails(*args, cwd=tmp_path)
    assert not (tmp_path / "m").exists() and not (tmp_path / "r").exists()


def test_bad_ids_for_decode(model: Path) -> None:
    assert "'x' is not a token id" in fails("decode", "-m", str(model), "3", "x")
    assert "<stdin> line 2" in fails("decode", "-m", str(model), stdin="3 4\n5 y\n")
    assert "99999" in fails("decode", "-m", str(model), "99999")


def test_verbose_shows_the_traceback(tmp_path: Path) -> None:
    proc = run("--verbose", "train", str(tmp_path / "nope.txt"), "-o", str(tmp_path / "m"))
    assert proc.returncode != 0 and "Traceback" in proc.stderr and "CorpusError" in proc.stderr


# -- files and paths, messages (issue 14) ------------------------------------------------------------

def test_export_hf_to_stdout_and_never_over_special_files(model: Path, tmp_path: Path) -> None:
    proc = ok("export-hf", "-m", str(model), "-o", "-", cwd=tmp_path)
    data = json.loads(proc.stdout)
    assert not (tmp_path / "-").exists() and proc.stderr == ""
    ok("export-hf", "-m", str(model), "-o", str(tmp_path / "t.json"))
    assert json.loads((tmp_path / "t.json").read_text(encoding="utf-8")) == data
    link = tmp_path / "out.json"
    link.symlink_to("/dev/stdout")  # stdout of the command is a pipe here: a special file
    line = fails("export-hf", "-m", str(model), "-o", str(link))
    assert "is a named pipe (FIFO), not a regular file" in line and "-o - for standard output" in line
    assert link.is_symlink() and os.readlink(link) == "/dev/stdout"
    os.mkfifo(tmp_path / "fifo")
    assert "named pipe" in fails("export-hf", "-m", str(model), "-o", str(tmp_path / "fifo"))
    assert (tmp_path / "fifo").is_fifo()


def test_train_output_is_checked_before_reading_the_corpus(tmp_path: Path) -> None:
    missing = str(tmp_path / "no-corpus.txt")  # the output is refused first: nothing is read or trained
    (tmp_path / "afile").write_text("x", encoding="utf-8")
    line = fails("train", missing, "-o", str(tmp_path / "afile"))
    assert "afile is a file, not a directory" in line and "-o" in line
    assert "afile is a file, not a directory" in fails("train", missing, "-o", str(tmp_path / "afile" / "m"))
    (tmp_path / "project" / "src").mkdir(parents=True)
    assert "holds sub-directories (src)" in fails("train", missing, "-o", str(tmp_path / "project"))
    assert sorted(p.name for p in tmp_path.iterdir()) == ["afile", "project"]


def unprivileged() -> list[str]:
    """A command prefix that runs as an ordinary user (root ignores file permissions)."""
    if os.geteuid() != 0:
        return []
    if shutil.which("setpriv") is None:
        pytest.skip("running as root without setpriv: cannot test permissions")
    prefix = ["setpriv", "--reuid=65534", "--regid=65534", "--clear-groups"]
    if subprocess.run([*prefix, *CMD, "--version"], capture_output=True).returncode != 0:
        pytest.skip("the unprivileged user cannot run korean-bpe from this checkout")
    return prefix


def test_train_refuses_an_unwritable_output_up_front() -> None:
    import tempfile

    prefix = unprivileged()
    place = Path(tempfile.mkdtemp(prefix="korean_bpe-ro-"))
    try:
        os.chmod(place, 0o555)
        proc = subprocess.run([*prefix, *CMD, "train", "-", "-o", str(place / "model")], input=b"",
                              capture_output=True, timeout=120)
        err = proc.stderr.decode("utf-8")
        assert proc.returncode == 1 and "Traceback" not in err, err
        assert f"cannot write the model in {place}" in err and "-o" in err
        assert "empty" not in err  # refused before the (empty) corpus was read
    finally:
        os.chmod(place, 0o755)
        shutil.rmtree(place)


def test_train_never_loses_the_model_when_saving_fails(corpus: Path, tmp_path: Path, monkeypatch, capsys) -> None:
    from korean_bpe import Tokenizer, cli

    target = tmp_path / "model"
    real_save = Tokenizer.save

    def failing_save(self, directory):  # the disk fills up while training: the first save fails
        if Path(directory) == target:
            raise OSError(28, "No space left on device", str(target))
        return real_save(self, directory)

    monkeypatch.setattr(Tokenizer, "save", failing_save)
    assert cli.main(["train", str(corpus), "--vocab-size", "80", "--no-progress", "-o", str(target)]) == 1
    err = capsys.readouterr().err.strip()
    assert err.startswith("korean-bpe: error: could not save the model to ") and "No space left" in err
    beside = Path(err.split("was saved to ")[1].split(" instead")[0])
    assert beside.parent == tmp_path and beside.name.startswith("model.saved-")
    assert f"mv {beside} {target}" in err
    monkeypatch.undo()
    assert Tokenizer.load(beside).model == Tokenizer.train(REVIEWS, vocab_size=80).model


def test_interrupted_save_names_the_backup(model: Path, tmp_path: Path, monkeypatch) -> None:
    from korean_bpe import Tokenizer
    from korean_bpe.io import serialization as ser

    target = tmp_path / "m"
    shutil.copytree(model, target)
    tok = Tokenizer.load(target)
    real_rename = os.rename
    calls: list[str] = []

    def rename(a, b):  # killed between the two renames: the old model moved aside, the new one not in
        calls.append(str(b))
        if len(calls) == 2:
            raise OSError(5, "injected fault")
        return real_rename(a, b)

    monkeypatch.setattr(ser.os, "rename", rename)
    with pytest.raises(OSError):
        tok.save(target)
    monkeypatch.undo()
    (tmp_path / ".m.old-zzzzzz").mkdir()  # an empty leftover, last by name
    line = fails("encode", "-m", str(target), "영화")
    assert f"an interrupted save left the previous model in {calls[0]}" in line
    assert f"mv {calls[0]} {target}" in line


@pytest.mark.parametrize(("args", "expect", "api"), [
    (["train", "--vocab-size", "5", "--limit-alphabet", "99"],
     "--vocab-size 5 is smaller than the 1 special tokens + 14 alphabet symbols (15); use --vocab-size 15 or "
     "more, or --limit-alphabet 4 to shrink the alphabet", "limit_alphabet="),
    (["train", "--vocab-size", "100", "--byte-fallback"], "--vocab-size 100 leaves no room after the 257 special",
     "vocab_size"),
    (["train", "--pre-tokenizer", "kiwi", "--lossless", "--marker", "space"],
     "--marker space cannot be used with the pre-tokenizer", "marker="),
    (["compare", "--vocab-sizes", "3", "--strategies", "whitespace/syllable", "--gold", "none"],
     "--vocab-sizes 3 is smaller than the 1 special tokens + 7 alphabet symbols (8); use --vocab-sizes 8 or more\n",
     "limit_alphabet"),
])
def test_messages_name_the_command_line_options(tmp_path: Path, args: list[str], expect: str, api: str) -> None:
    if "kiwi" in args:
        pytest.importorskip("kiwipiepy")
    (tmp_path / "c.txt").write_text("영화 정말 재밌다\n아이언맨 최고\n", encoding="utf-8")
    proc = run(args[0], str(tmp_path / "c.txt"), *args[1:], "--no-progress",
               "-o", str(tmp_path / "m"))
    assert expect in proc.stderr, proc.stderr
    assert api not in proc.stderr and "Traceback" not in proc.stderr


def test_table_without_the_document_column_names_no_api_argument(tmp_path: Path) -> None:
    (tmp_path / "t.tsv").write_text("id\ttext\n1\t영화 정말 재밌다\n", encoding="utf-8")
    line = fails("train", str(tmp_path / "t.tsv"), "-o", str(tmp_path / "m"))
    assert "no column 'document' in the header ['id', 'text']" in line and "column=" not in line
    assert "name the text column 'document'" in line


def test_train_saves_beside_a_model_directory_that_cannot_be_replaced(corpus: Path, tmp_path: Path, monkeypatch,
                                                                      capsys) -> None:
    from korean_bpe import Tokenizer, cli

    target = tmp_path / "model"
    Tokenizer.train(REVIEWS, vocab_size=40).save(target)  # an older model is there
    real_save = Tokenizer.save

    def failing_save(self, directory):
        if Path(directory) == target:
            raise OSError(13, "Permission denied", str(target))
        return real_save(self, directory)

    monkeypatch.setattr(Tokenizer, "save", failing_save)
    assert cli.main(["train", str(corpus), "--vocab-size", "80", "--no-progress", "-o", str(target)]) == 1
    err = capsys.readouterr().err.strip()
    beside = Path(err.split("was saved to ")[1].split(" instead")[0])
    assert f"mv {beside}/* {target}/ once {target} can be written" in err
    assert sorted(p.name for p in tmp_path.iterdir()) == sorted(["model", beside.name])
    monkeypatch.undo()
    assert Tokenizer.load(beside).vocab_size == 80 and Tokenizer.load(target).vocab_size == 40


# -- issue 14, items 2 and 15: special-token text, a corpus the analysis empties ------------------

def test_encode_refuses_special_token_text_unless_told(model: Path) -> None:
    line = fails("encode", "-m", str(model), "영화 <unk>")
    assert "'<unk>'" in line and "--special-text" in line and "disallowed_special" not in line
    out = ok("encode", "-m", str(model), "--special-text", "영화 <unk>").stdout.split()
    assert out[0] == "▁영화" and "<unk>" in out  # < u n k > are unknown symbols here: one <unk> each
    ids = ok("encode", "-m", str(model), "--special-text", "--ids", "<unk>").stdout.split()
    assert ok("decode", "-m", str(model), *ids).stdout == "<unk><unk><unk><unk><unk>\n"


def test_training_on_what_the_analysis_drops_speaks_cli(tmp_path: Path) -> None:
    pytest.importorskip("kiwipiepy")
    (tmp_path / "c.txt").write_text("!!! ...\n?? !!\n", encoding="utf-8")
    line = fails("train", str(tmp_path / "c.txt"), "--pre-tokenizer", "kiwi", "--vocab-size", "30", "--no-progress",
                 "-o", str(tmp_path / "m"), here=True)
    assert "the kiwi analysis dropped everything" in line and "SF ('!!!')" in line
    assert line.endswith("keep them with --lossless") and "pre_tokenizer=" not in line


def test_top_level_help_has_examples_and_encode_help_the_common_options_first(capsys: pytest.CaptureFixture[str]) -> None:
    from korean_bpe.cli import build_parser

    top = build_parser().format_help()
    assert "examples (in order" in top and "korean-bpe encode -m model/" in top and "korean-bpe compare -o results/" in top
    encode = build_parser()._subparsers._group_actions[0].choices["encode"].format_help()  # type: ignore[union-attr]
    order = [encode.index(flag) for flag in ("--ids", "--offsets", "--dropout", "--special-text")]
    assert order == sorted(order)


def help_examples() -> list[str]:
    """The command lines of ``korean-bpe --help``'s examples, in order, their comments left out."""
    top = ok("--help").stdout
    lines = top[top.index("examples"):].splitlines()[1:]
    return [line.split("  #")[0].strip() for line in lines if line.lstrip().startswith("korean-bpe ")]


def test_help_examples_run_in_order_as_written(tmp_path: Path) -> None:
    """Issue 43: the help's examples trained an Okt model, then `export-hf -o tokenizer.json` refused it
    (exit 1). Each line runs here as written, in a shell, in a folder holding a small reviews.txt; only
    the analyzer (no Java) and the comparison (the Makefile's `make demo`, run by tests/test_docs.py)
    are left to other tests."""
    if shutil.which("java") is None and not os.environ.get("JAVA_HOME"):
        pytest.skip("the examples' model is an Okt model: Okt needs Java")
    pytest.importorskip("transformers")
    examples = help_examples()
    assert examples[0].startswith("korean-bpe train reviews.txt") and "--pre-tokenizer okt" in examples[0]
    assert any(e.startswith("korean-bpe export-hf") for e in examples)
    (tmp_path / "reviews.txt").write_text("\n".join(REVIEWS) + "\n", encoding="utf-8")
    env = {**os.environ, "PATH": f"{ENTRY.parent}{os.pathsep}{os.environ.get('PATH', '')}",
           "KOREAN_BPE_CACHE_DIR": str(tmp_path / "cache")}
    demo = re.search(r"^demo:.*\n\t\$\(VENV\)/bin/(.*)$", (ROOT / "Makefile").read_text(), re.M)
    ran = []
    for line in examples:
        if line.startswith("korean-bpe compare"):  # the demo: checked by test_docs.py's fresh `make demo` run
            assert demo and line.rstrip("/") == demo.group(1).strip(), (line, demo)
            continue
        if "COMMAND" in line:  # the template: each command's help
            for command in ("train", "count", "encode", "decode", "export-hf", "cache", "compare"):
                ok(command, "--help")
            continue
        proc = subprocess.run(line, shell=True, cwd=tmp_path, env=env, capture_output=True, timeout=300)
        err = proc.stderr.decode("utf-8")
        assert proc.returncode == 0 and "Traceback" not in err, f"{line}\n{err}"
        ran.append((line, proc.stdout.decode("utf-8")))
    assert len(ran) >= 5
    outputs = dict(ran)
    ids = (tmp_path / "ids.txt").read_text(encoding="utf-8").splitlines()
    assert len(ids) == len(REVIEWS) and all(re.fullmatch(r"\d+( \d+)*", line) for line in ids)
    decoded = outputs["korean-bpe decode -m model/ < ids.txt"].splitlines()
    assert len(decoded) == len(REVIEWS) and "스파이더맨" in decoded[2]  # Okt's analysis: the words it keeps
    assert (tmp_path / "hf-model" / "tokenizer_config.json").is_file()
    from korean_bpe.hf import KoreanBPETokenizerFast

    hf = KoreanBPETokenizerFast.from_pretrained(str(tmp_path / "hf-model"))
    assert hf.tokenize("스파이더맨 봤는데 쩔어") == outputs[examples[1]].split()


def test_train_names_the_pipeline_as_compare_does(corpus: Path, tmp_path: Path) -> None:
    """`train --pre-tokenizer mecab` trains analysis mode and said "mecab/jamo", compare's name of the
    lossless pipeline; the analysis mode is "mecab-analysis" there (okt-analysis in compare)."""
    pytest.importorskip("mecab")
    lossy = ok("train", str(corpus), "--vocab-size", "300", "--pre-tokenizer", "mecab", "--unit", "jamo",
               "-o", str(tmp_path / "a"), "--no-progress")
    assert lossy.stderr.startswith("trained mecab-analysis/jamo: ")
    lossless = ok("train", str(corpus), "--vocab-size", "300", "--pre-tokenizer", "mecab", "--lossless", "--unit",
                  "jamo", "-o", str(tmp_path / "b"), "--no-progress")
    assert lossless.stderr.startswith("trained mecab/jamo: ")
    helptext = " ".join(ok("train", "--help").stdout.split())
    assert "default to analysis mode" in helptext and "okt-analysis" in helptext
