"""The ``korean-bpe`` command end to end, each call a real subprocess (the installed entry point)."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

ENTRY = Path(sys.executable).parent / "korean-bpe"
CMD = [str(ENTRY)] if ENTRY.is_file() else [sys.executable, "-m", "korean_bpe.cli"]

REVIEWS = [
    "아이언맨은 올해 최고의 영화!",
    "영화 정말 재밌다 ㅋㅋ",
    "스파이더맨 봤는데 쩔어 ㅠㅠ",
    "영화 진짜 재밌어요 최고",
    "정말 최고의 영화 또 보고 싶다",
    "이 영화 진짜 별로였어요",
] * 5


def run(*args: str, stdin: bytes | str | None = None, env: dict[str, str] | None = None,
        cwd: Path | None = None) -> subprocess.CompletedProcess[str]:
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
    listing = ok("cache", "list", env=env).stdout.splitlines()
    assert listing == [f"cache directory: {tmp_path / 'cache'}", "(no caches)"]
    ok("train", str(corpus), "--pre-tokenizer", "okt", "--vocab-size", "60", "--no-progress",
       "-o", str(tmp_path / "m"), env=env)
    listing = ok("cache", "list", env=env).stdout.splitlines()
    assert len(listing) == 2 and listing[1].split()[0] == "okt"
    entries = int(listing[1].split()[1])
    assert entries == len({p for r in REVIEWS for p in r.split(" ") if p})  # one analysis per distinct space-separated piece
    assert ok("cache", "clear", "okt", env=env).stdout == f"removed {entries} cached entries from 'okt'\n"
    assert ok("cache", "list", env=env).stdout.splitlines()[1] == "(no caches)"
    assert ok("cache", "clear", env=env).stdout == "removed 0 cached entries\n"


# -- compare -------------------------------------------------------------------------------------

def test_compare_writes_csv_and_plot(tmp_path: Path) -> None:
    pd = pytest.importorskip("pandas")
    pytest.importorskip("matplotlib")
    from korean_bpe.compare.run import COLUMNS

    csv, png = tmp_path / "out.csv", tmp_path / "plots" / "out.png"
    proc = ok("compare", "--limit", "150", "--pre-tokenizers", "whitespace,raw", "--units", "syllable,byte",
              "--vocab-sizes", "900,1200", "--no-progress", "--csv", str(csv), "--plot", str(png))
    df = pd.read_csv(csv, keep_default_na=False)
    assert tuple(df.columns) == COLUMNS and len(df) == 8
    assert list(zip(df["pre_tokenizer"], df["unit"])) == [(p, u) for p in ("whitespace", "raw")
                                                         for u in ("syllable", "byte") for _ in (0, 1)]
    assert (df["train_docs"] + df["test_docs"] == 150).all() and (df["test_docs"] == 15).all()
    assert png.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
    lines = proc.stdout.splitlines()
    assert lines[0].split()[:3] == ["pre-tok", "unit", "lossless"]
    assert lines[1].split()[:4] == ["whitespace", "syllable", "no", "900"]
    assert lines[1].split()[5] == f"{df['tokens_per_word'][0]:.3f}"
    assert "tok/word" in proc.stdout and "tokens per white-space word" in proc.stdout  # the legend
    assert f"wrote {csv}" in proc.stderr and f"wrote {png}" in proc.stderr


def test_compare_skips_a_missing_analyzer_with_one_note(tmp_path: Path) -> None:
    fake = tmp_path / "shadow" / "kiwipiepy"
    fake.mkdir(parents=True)  # fault injection: kiwipiepy cannot be imported
    (fake / "__init__.py").write_text("raise ImportError('No module named kiwipiepy')\n", encoding="utf-8")
    env = {**os.environ, "PYTHONPATH": str(fake.parent)}
    proc = ok("compare", "--limit", "60", "--pre-tokenizers", "kiwi,whitespace", "--units", "syllable,jamo",
              "--vocab-sizes", "2000", "--no-progress", env=env)
    notes = [line for line in proc.stderr.splitlines() if line.startswith("note: ")]
    assert len(notes) == 1 and notes[0].startswith("note: skipped kiwi (syllable, jamo): ")
    assert "pip install" in notes[0]
    rows = proc.stdout.splitlines()[1:3]
    assert [r.split()[:2] for r in rows] == [["whitespace", "syllable"], ["whitespace", "jamo"]]


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
    assert "empty" in fails("compare", str(empty))


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
    (["compare", "--units", "syllable,letters"], "unknown name 'letters'"),
    (["compare", "--vocab-sizes", "4000,x"], "expected a positive integer, got 'x'"),
    (["compare", "--test-fraction", "1.5"], "--test-fraction must be between 0 and 1"),
    (["compare", "--limit", "1", "--pre-tokenizers", "whitespace"], "need at least 2 documents"),
    ([], "required: COMMAND"),
    (["tokenize"], "invalid choice: 'tokenize'"),
])
def test_bad_option_values(args: list[str], expect: str, tmp_path: Path) -> None:
    assert expect in fails(*args, cwd=tmp_path)
    assert not (tmp_path / "m").exists()


def test_bad_ids_for_decode(model: Path) -> None:
    assert "'x' is not a token id" in fails("decode", "-m", str(model), "3", "x")
    assert "<stdin> line 2" in fails("decode", "-m", str(model), stdin="3 4\n5 y\n")
    assert "99999" in fails("decode", "-m", str(model), "99999")


def test_verbose_shows_the_traceback(tmp_path: Path) -> None:
    proc = run("--verbose", "train", str(tmp_path / "nope.txt"), "-o", str(tmp_path / "m"))
    assert proc.returncode != 0 and "Traceback" in proc.stderr and "CorpusError" in proc.stderr
