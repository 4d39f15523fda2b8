"""Tokenizer.save / Tokenizer.load: exact round trips, the file formats, every corruption named by
file and line, and atomic saving (a save killed with SIGKILL at several points)."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import textwrap
import time
from pathlib import Path

import pytest

from korean_bpe import BPEModel, Tokenizer
from korean_bpe.io import FORMAT_VERSION, ModelFileError
from korean_bpe.pre_tokenizers import PRE_TOKENIZERS
from korean_bpe.tokenizer import BYTE_TOKENS


@pytest.fixture(scope="module")
def small(real_texts):
    return Tokenizer.train(real_texts[:600], vocab_size=2500)


@pytest.fixture()
def saved(small, tmp_path):
    return small.save(tmp_path / "model")


def assert_same(a: Tokenizer, b: Tokenizer, texts: list[str]) -> None:
    assert b.model == a.model
    assert (b.marker, b.byte_fallback, b.unk_token, b.special_tokens) == (a.marker, a.byte_fallback, a.unk_token, a.special_tokens)
    assert b.unit.to_config() == a.unit.to_config()
    assert b.pre_tokenizer.to_config() == a.pre_tokenizer.to_config()
    assert b.encode_batch(texts) == a.encode_batch(texts)
    ids = a.encode_batch(texts)
    assert b.decode_batch(ids) == a.decode_batch(ids)


# --- round trips -------------------------------------------------------------------------------------


@pytest.mark.parametrize("unit", ["syllable", "jamo", "byte"])
@pytest.mark.parametrize("pre_tokenizer,marker,byte_fallback", [
    ("whitespace", "▁", False), ("whitespace", "</w>", True), ("whitespace", "##", False),
    ("raw", None, False), ("raw", None, True), ("raw", "##", True),
])
def test_round_trip(tmp_path, real_texts, unit, pre_tokenizer, marker, byte_fallback):
    texts = real_texts[:400]
    tok = Tokenizer.train(texts, vocab_size=2000 if unit != "syllable" else 2700, pre_tokenizer=pre_tokenizer,
                          unit=unit, marker=marker, byte_fallback=byte_fallback and unit != "byte",
                          special_tokens=("<unk>", "<pad>"))
    again = Tokenizer.load(tok.save(tmp_path / "m"))
    assert_same(tok, again, real_texts[400:700] + ["😀 ᄒᆞᆫ글 ㅋㅋ \u1112\u1161\u11ab"])


@pytest.mark.parametrize("name,config", [("kiwi", {"type": "kiwi", "lossless": True}), ("okt", {"type": "okt", "drop": [], "lossless": True}),
                                         ("kiwi", {"type": "kiwi"})])
def test_round_trip_morpheme_pre_tokenizers(tmp_path, real_texts, name, config):
    if name not in PRE_TOKENIZERS:
        pytest.skip(f"the {name} pre-tokenizer is not available in this checkout")
    try:
        pt = PRE_TOKENIZERS.build(config)
        pt("영화 최고")
    except (ImportError, ValueError, TypeError) as exc:  # analyzer missing, or option named differently
        pytest.skip(f"{name} {config}: {exc}")
    texts = [t for t in real_texts[:200] if not any(" " in w for w in pt(t))]
    tok = Tokenizer.train(texts, vocab_size=1500, pre_tokenizer=pt, byte_fallback=True)
    again = Tokenizer.load(tok.save(tmp_path / "m"))
    assert_same(tok, again, real_texts[200:260])
    if pt.lossless:
        assert all(again.decode(again.encode(t)) == t for t in real_texts[200:260])


def test_tutorial_model_round_trip(tmp_path):
    tok = Tokenizer(BPEModel(("<unk>",), tuple("▁bghnpsu"), (("u", "g"), ("u", "n"), ("h", "ug"))))
    again = Tokenizer.load(tok.save(tmp_path / "tutorial"))
    assert again.tokenize("pug bug mug") == ["▁", "p", "ug", "▁", "b", "ug", "▁", "<unk>", "ug"]


# --- models saved by older versions ---------------------------------------------------------------------

#: data/raw_v1_model was saved by korean_bpe before raw had options (commit fe403a0, format_version 1,
#: pre_tokenizer {"type": "raw"}: whole lines, superword merges).  The ids below are what that code gave.
RAW_V1 = Path(__file__).resolve().parent.parent / "data" / "raw_v1_model"
RAW_V1_IDS = {
    "아이언맨 또 보고 싶다": [58],
    "정말 최고의 영화다": [53, 7],
    " 또  보고 싶다\n정말 ": [2, 9, 29, 14, 38, 1, 27, 2],
    "처음 보는 글자": [0, 0, 30, 0, 2, 0, 0],
}


def test_format_1_raw_model_loads_and_encodes_as_before(tmp_path):
    config = json.loads((RAW_V1 / "tokenizer_config.json").read_text(encoding="utf-8"))
    assert config["format_version"] == 1 and config["pre_tokenizer"] == {"type": "raw"}  # the file is old
    old = Tokenizer.load(RAW_V1)
    assert old.pre_tokenizer.to_config() == {"type": "raw", "split_by_whitespace": False, "add_dummy_prefix": False}
    assert {t: old.encode(t) for t in RAW_V1_IDS} == RAW_V1_IDS
    assert old.tokenize("아이언맨 또 보고 싶다") == ["아이언맨▁또▁보고▁싶다"]  # a superword token, as trained
    assert all(old.decode(old.encode(t)) == t for t in list(RAW_V1_IDS)[:3])
    # saved again it is format 2 with the options written out, and loads the same
    again = Tokenizer.load(old.save(tmp_path / "m"))
    config = json.loads((tmp_path / "m" / "tokenizer_config.json").read_text(encoding="utf-8"))
    assert config["format_version"] == FORMAT_VERSION == 2
    assert config["pre_tokenizer"] == {"type": "raw", "split_by_whitespace": False, "add_dummy_prefix": False}
    assert_same(old, again, list(RAW_V1_IDS))


def test_missing_raw_options_in_format_2_take_the_defaults(tmp_path):
    tok = Tokenizer.train(["아이언맨 또 보고 싶다", "또 보고 싶다"] * 3, vocab_size=30, pre_tokenizer="raw")
    path = tok.save(tmp_path / "m")
    config = json.loads((path / "tokenizer_config.json").read_text(encoding="utf-8"))
    config["pre_tokenizer"] = {"type": "raw"}
    (path / "tokenizer_config.json").write_text(json.dumps(config), encoding="utf-8")
    assert Tokenizer.load(path).pre_tokenizer == tok.pre_tokenizer
    assert Tokenizer.load(path).tokenize("또 보고 싶다") == tok.tokenize("또 보고 싶다")


@pytest.mark.parametrize("options", [{}, {"split_by_whitespace": False}, {"add_dummy_prefix": False}])
def test_raw_options_round_trip(tmp_path, real_texts, options):
    tok = Tokenizer.train(real_texts[:300], vocab_size=1500, pre_tokenizer={"type": "raw", **options}, byte_fallback=True)
    again = Tokenizer.load(tok.save(tmp_path / "m"))
    assert again.pre_tokenizer == tok.pre_tokenizer
    assert_same(tok, again, real_texts[300:400])
    superword = any("▁" in t[1:] for t in tok.id_to_token)
    assert superword == (options.get("split_by_whitespace") is False)


# --- file formats -----------------------------------------------------------------------------------------


def test_file_formats(small, saved):
    vocab_text = (saved / "vocab.json").read_text(encoding="utf-8")
    lines = vocab_text.splitlines()
    assert lines[0] == "{" and lines[-1] == "}"
    assert lines[1] == '  "<unk>": 0,'
    token = next(t for t in small.model.id_to_token[-2::-1] if t.startswith("▁") and len(t) > 2 and "가" <= t[1] <= "힣")
    assert lines[1 + small.token_to_id(token)] == f'  "{token}": {small.token_to_id(token)},'  # literal UTF-8, one a line
    assert json.loads(vocab_text) == small.vocab
    merges = (saved / "merges.txt").read_text(encoding="utf-8").splitlines()
    assert merges[0] == "#version: 0.2"
    assert [tuple(m.split(" ")) for m in merges[1:]] == list(small.merges)
    config = json.loads((saved / "tokenizer_config.json").read_text(encoding="utf-8"))
    import korean_bpe

    assert config["format_version"] == FORMAT_VERSION
    assert config["korean_bpe_version"] == korean_bpe.__version__
    assert config["unit"] == {"type": "syllable"} and config["pre_tokenizer"] == {"type": "whitespace"}
    assert config["marker"] == "▁" and config["special_tokens"] == ["<unk>"] and config["byte_fallback"] is False
    assert config["unk_token"] == "<unk>" and config["num_merges"] == len(small.merges)
    assert sorted(p.name for p in saved.iterdir()) == ["merges.txt", "tokenizer_config.json", "vocab.json"]


def _spelled(text: str) -> bytes:
    return text.encode("utf-8", "surrogatepass")


@pytest.mark.parametrize("unit", ["syllable", "jamo"])
@pytest.mark.parametrize("byte_fallback", [False, True])
def test_lone_surrogate_tokens_save_and_load(tmp_path, unit, byte_fallback):
    """Tokens holding a lone surrogate (training on Python text that has one): every file spells it
    as surrogatepass UTF-8 (ED A0 80, as the byte unit does); the model loads back the same, a
    special token with one and a surrogate pair written as two code points (not one emoji) too."""
    texts = ["영화 a\ud800b 좋다 \udc80\udc80", "a\ud800b 영화 \ud83d\ude00"] * 3
    tok = Tokenizer.train(texts, vocab_size=300 if byte_fallback else 40, unit=unit, byte_fallback=byte_fallback,
                          special_tokens=["<unk>", "<s\udfff>"])
    assert "▁a\ud800b" in tok.vocab and any("\ud800" in a + b for a, b in tok.merges)
    assert "▁\ud83d\ude00" in tok.vocab
    path = tok.save(tmp_path / "m")
    assert _spelled('  "▁a\ud800b": ') in (path / "vocab.json").read_bytes()
    assert _spelled('  "<s\udfff>": 1,') in (path / "vocab.json").read_bytes()
    assert _spelled('"<s\udfff>"') in (path / "tokenizer_config.json").read_bytes()
    assert _spelled("a\ud800") in (path / "merges.txt").read_bytes()
    back = Tokenizer.load(path)
    assert_same(tok, back, texts)
    assert back.decode(back.encode(texts[0])) == texts[0]


def test_lone_surrogate_in_merges_loads_but_other_bad_bytes_are_named(tmp_path):
    path = Tokenizer.train(["a\ud800b a\ud800b"] * 3, vocab_size=12).save(tmp_path / "m")
    merges = (path / "merges.txt").read_bytes()
    (path / "merges.txt").write_bytes(merges.replace(b"\xed\xa0\x80", b"\xed\xa0"))  # a cut surrogate
    with pytest.raises(ModelFileError, match="merges.txt:2: not valid UTF-8"):
        Tokenizer.load(path)


@pytest.mark.parametrize("char", ["\t", "\x00", "\u2028", "\u2581", "\r", "\n", "\\", '"'])
def test_odd_characters_in_tokens_round_trip(tmp_path, char):
    """A tab, NUL, U+2028 (a line break to str.splitlines), U+2581, CR, LF, backslash or quote in a
    special token (all files) or, where merges.txt can hold it, in a merged token."""
    pt = {"type": "raw", "split_by_whitespace": False}  # keeps tabs, NUL and U+2581 inside a piece
    texts = [f"영화{char}좋다", f"영화{char}좋다 a{char}b"] * 3
    tok = Tokenizer.train(texts, vocab_size=40, pre_tokenizer=pt, special_tokens=["<unk>", f"<s{char}>"])
    back = Tokenizer.load(tok.save(tmp_path / "m"))
    assert_same(tok, back, texts)
    assert back.special_tokens == ("<unk>", f"<s{char}>")
    if char in "\t\x00\u2581\\\"":
        assert any(char in a + b for a, b in back.merges)


def test_hf_export_refuses_a_lone_surrogate_naming_the_token(tmp_path):
    from korean_bpe.io.hf import render_tokenizer_json

    tok = Tokenizer.train(["영화 a\ud800b"] * 3, vocab_size=20)
    with pytest.raises(ValueError, match=r"the token '.*\\ud800.*' holds a lone surrogate \(U\+D800\).*errors='replace'"):
        tok.to_huggingface(tmp_path / "tokenizer.json")
    with pytest.raises(ValueError, match="lone surrogate"):
        render_tokenizer_json(tok)
    assert not list(tmp_path.iterdir())


def test_byte_fallback_config_lists_byte_tokens(tmp_path, real_texts):
    tok = Tokenizer.train(real_texts[:200], vocab_size=1500, byte_fallback=True)
    config = json.loads((tok.save(tmp_path / "m") / "tokenizer_config.json").read_text(encoding="utf-8"))
    assert config["special_tokens"] == ["<unk>", *BYTE_TOKENS] and config["byte_fallback"] is True


def test_save_overwrites_and_keeps_other_files(small, tmp_path, real_texts):
    target = tmp_path / "m"
    other = Tokenizer.train(real_texts[:100], vocab_size=900)
    other.save(target)
    (target / "tokenizer.json").write_text("{}", encoding="utf-8")
    small.save(target)
    assert Tokenizer.load(target).model == small.model
    assert (target / "tokenizer.json").read_text(encoding="utf-8") == "{}"
    assert [p.name for p in tmp_path.iterdir()] == ["m"]  # no temporary or backup left behind


def test_save_refuses_directories_with_subdirectories_and_files(small, tmp_path):
    (tmp_path / "project" / "src").mkdir(parents=True)
    with pytest.raises(ValueError, match="sub-directories"):
        small.save(tmp_path / "project")
    (tmp_path / "afile").write_text("x")
    with pytest.raises(ValueError, match="is a file"):
        small.save(tmp_path / "afile")


def test_save_refuses_unregistered_custom_stages(small, tmp_path):
    from korean_bpe.units import BaseUnit

    class Shouty(BaseUnit):
        name = "shouty"

        def split(self, word):
            return tuple(word)

        def join(self, symbols):
            return "".join(symbols)

        def to_config(self):
            return {"type": "shouty"}

    tok = Tokenizer(small.model, unit=Shouty())
    with pytest.raises(ValueError, match="cannot save the unit .*register"):
        tok.save(tmp_path / "m")
    assert not (tmp_path / "m").exists()


# --- corrupted and mismatched files --------------------------------------------------------------------------


def edit(path: Path, old: str, new: str, count: int = 1) -> None:
    text = path.read_text(encoding="utf-8")
    assert old in text, old
    path.write_text(text.replace(old, new, count), encoding="utf-8")


def load_error(path: Path) -> ModelFileError:
    with pytest.raises(ModelFileError) as info:
        Tokenizer.load(path)
    err = info.value
    assert isinstance(err, ValueError)
    return err


def test_missing_directory_and_files(saved, tmp_path):
    err = load_error(tmp_path / "nope")
    assert err.path == tmp_path / "nope" and "does not exist" in str(err)
    for name in ("vocab.json", "merges.txt", "tokenizer_config.json"):
        content = (saved / name).read_bytes()
        (saved / name).unlink()
        err = load_error(saved)
        assert err.path == saved / name and f"missing file {name}" in str(err)
        (saved / name).write_bytes(content)
    Tokenizer.load(saved)


def test_bad_json_names_file_and_line(saved):
    edit(saved / "vocab.json", '"<unk>": 0,', '"<unk>": 0,,')
    err = load_error(saved)
    assert err.path == saved / "vocab.json" and err.line == 2
    assert str(err).startswith(f"{saved / 'vocab.json'}:2: bad JSON")


def test_bad_json_in_config(saved):
    edit(saved / "tokenizer_config.json", '"marker": "▁",', '"marker": ▁,')
    err = load_error(saved)
    lines = (saved / "tokenizer_config.json").read_text(encoding="utf-8").splitlines()
    assert err.path.name == "tokenizer_config.json" and lines[err.line - 1].strip().startswith('"marker"')


def test_not_utf8_names_line(saved):
    path = saved / "merges.txt"
    data = path.read_bytes().splitlines(keepends=True)
    data[4] = b"\xff\xfe " + data[4]
    path.write_bytes(b"".join(data))
    err = load_error(saved)
    assert err.path == path and err.line == 5 and "UTF-8" in str(err)


def test_newer_format_version(saved):
    edit(saved / "tokenizer_config.json", f'"format_version": {FORMAT_VERSION}', '"format_version": 99')
    err = load_error(saved)
    assert err.path.name == "tokenizer_config.json" and "newer korean_bpe" in str(err) and err.line == 3


def test_merges_line_with_wrong_field_count(saved):
    lines = (saved / "merges.txt").read_text(encoding="utf-8").split("\n")
    lines[6] = lines[6] + " extra"
    (saved / "merges.txt").write_text("\n".join(lines), encoding="utf-8")
    err = load_error(saved)
    assert err.path.name == "merges.txt" and err.line == 7 and "two tokens" in str(err)


def test_merges_unknown_token(saved):
    lines = (saved / "merges.txt").read_text(encoding="utf-8").split("\n")
    lines[10] = "꿻 " + lines[10].split(" ")[1]
    (saved / "merges.txt").write_text("\n".join(lines), encoding="utf-8")
    err = load_error(saved)
    assert err.path.name == "merges.txt" and err.line == 11 and "unknown token '꿻'" in str(err)


def test_merges_out_of_order(saved):
    lines = (saved / "merges.txt").read_text(encoding="utf-8").split("\n")
    # find a merge whose left token is made by an earlier merge, and move it to the front
    made = {}
    for k, line in enumerate(lines[1:], start=2):
        a, b = line.split(" ") if line else ("", "")
        made[a + b] = k
        if a in made:
            break
    moved = lines.pop(k - 1)
    lines.insert(1, moved)
    (saved / "merges.txt").write_text("\n".join(lines), encoding="utf-8")
    err = load_error(saved)
    assert err.line == 2 and f"unknown token {moved.split(' ')[0]!r}" in str(err)


def test_merges_bad_header_and_truncation(saved):
    text = (saved / "merges.txt").read_text(encoding="utf-8")
    (saved / "merges.txt").write_text(text.replace("#version: 0.2", "#version: 0.1"), encoding="utf-8")
    err = load_error(saved)
    assert err.line == 1 and "version" in str(err)
    (saved / "merges.txt").write_text("\n".join(text.split("\n")[:-30]) + "\n", encoding="utf-8")
    err = load_error(saved)
    assert err.path.name == "merges.txt" and "cut" in str(err)


def test_vocab_inconsistent_with_merges(small, saved):
    # swap two merge-made tokens' ids: vocab.json no longer matches merges.txt
    a, b = small.id_to_token[-1], small.id_to_token[-2]
    ia, ib = small.vocab[a], small.vocab[b]
    edit(saved / "vocab.json", f'"{a}": {ia}', f'"{a}": {ib}')
    edit(saved / "vocab.json", f'"{b}": {ib}', f'"{b}": {ia}')
    err = load_error(saved)
    assert err.path.name == "vocab.json" and "does not match merges.txt" in str(err)
    line = (saved / "vocab.json").read_text(encoding="utf-8").splitlines()[err.line - 1]
    # the first wrong id is ib, now held by a: the error names a and points at its line
    assert line.strip().rstrip(",") == f"{json.dumps(a, ensure_ascii=False)}: {ib}" and repr(a) in str(err) and repr(b) in str(err)


def test_vocab_extra_token(small, saved):
    n = small.vocab_size
    edit(saved / "vocab.json", "\n}", f',\n  "꿻꿻": {n}\n}}')
    err = load_error(saved)
    assert err.path.name == "vocab.json" and err.line == n + 2 and "'꿻꿻'" in str(err)


def test_vocab_duplicate_token_and_id(small, saved):
    tok = small.id_to_token[5]
    edit(saved / "vocab.json", "\n}", f',\n  {json.dumps(tok, ensure_ascii=False)}: {small.vocab_size}\n}}')
    err = load_error(saved)
    assert "appears twice" in str(err) and err.path.name == "vocab.json"


def test_vocab_special_token_mismatch(saved):
    edit(saved / "tokenizer_config.json", '"special_tokens": [\n    "<unk>"', '"special_tokens": [\n    "<oov>"')
    err = load_error(saved)
    assert "'<oov>'" in str(err) and err.path.name == "vocab.json" and err.line == 2


@pytest.mark.parametrize("key,value,match", [
    ('"unit": {\n    "type": "syllable"\n  }', '"unit": {\n    "type": "hanja"\n  }', "unknown unit 'hanja'"),
    ('"pre_tokenizer": {\n    "type": "whitespace"\n  }', '"pre_tokenizer": {\n    "type": "spacy"\n  }', "unknown pre-tokenizer 'spacy'"),
    ('"marker": "▁"', '"marker": "@@"', "marker '@@'"),
    ('"byte_fallback": false', '"byte_fallback": "no"', "'byte_fallback' must be true or false"),
])
def test_bad_config_values_name_the_line(saved, key, value, match):
    path = saved / "tokenizer_config.json"
    edit(path, key, value)
    err = load_error(saved)
    assert err.path == path and match in str(err)
    first_key = value.split(":")[0]
    assert path.read_text(encoding="utf-8").splitlines()[err.line - 1].strip().startswith(first_key)


def test_missing_config_key(saved):
    path = saved / "tokenizer_config.json"
    config = json.loads(path.read_text(encoding="utf-8"))
    del config["alphabet_size"]
    path.write_text(json.dumps(config, ensure_ascii=False, indent=2), encoding="utf-8")
    err = load_error(saved)
    assert "missing key 'alphabet_size'" in str(err)


# --- atomic saving -------------------------------------------------------------------------------------------------

CHILD = textwrap.dedent(
    """
    import os, sys, time
    from pathlib import Path
    import korean_bpe.io.serialization as ser
    from korean_bpe import Tokenizer

    mode, source, target, flag = sys.argv[1:5]
    tok = Tokenizer.load(source)
    if mode == "mid-file":
        real_write = ser._write_file
        def slow_write(path, text, **kw):
            if path.name == "merges.txt":  # half the file, then wait to be killed
                with open(path, "w", encoding="utf-8") as f:
                    f.write(text[: len(text) // 2]); f.flush()
                Path(flag).write_text("go"); time.sleep(60)
            real_write(path, text, **kw)
        ser._write_file = slow_write
    elif mode == "between-renames":
        real_rename = os.rename
        def slow_rename(a, b):
            real_rename(a, b)
            if Path(b).name.startswith(f".{Path(target).name}.old-"):  # the old model moved aside
                Path(flag).write_text("go"); time.sleep(60)
        ser.os.rename = slow_rename
    tok.save(target)
    Path(flag).write_text("done")
    time.sleep(60)
    """
)


@pytest.mark.parametrize("mode", ["mid-file", "between-renames", "after"])
def test_save_killed_with_sigkill(tmp_path, real_texts, mode):
    old = Tokenizer.train(real_texts[:150], vocab_size=900)
    new = Tokenizer.train(real_texts[150:400], vocab_size=1200, unit="jamo")
    target = old.save(tmp_path / "model")
    source = new.save(tmp_path / "source")
    flag = tmp_path / "flag"
    proc = subprocess.Popen([sys.executable, "-c", CHILD, mode, str(source), str(target), str(flag)])
    try:
        deadline = time.monotonic() + 60
        while not flag.exists():
            assert proc.poll() is None, "the child died before reaching the kill point"
            assert time.monotonic() < deadline
            time.sleep(0.05)
        os.kill(proc.pid, signal.SIGKILL)
        proc.wait(10)
    finally:
        if proc.poll() is None:
            proc.kill()
    probe = real_texts[400:500]
    if mode == "mid-file":  # killed while writing: the old model is untouched
        assert_same(old, Tokenizer.load(target), probe)
    elif mode == "between-renames":  # no model at the target; the error says where the old one is
        err = load_error(target)
        assert "interrupted save" in str(err)
        backup = Path(str(err).split("previous model in ")[1].split(": rename")[0])
        assert_same(old, Tokenizer.load(backup), probe)
        cli = subprocess.run([sys.executable, "-m", "korean_bpe.cli", "encode", "-m", str(target), "영화"],
                             capture_output=True, text=True, timeout=120)
        assert cli.returncode == 1 and f"an interrupted save left the previous model in {backup}" in cli.stderr
        assert f"mv {backup} {target}" in cli.stderr
    else:
        assert_same(new, Tokenizer.load(target), probe)
    # whatever happened, a new save succeeds, is complete, and leaves nothing beside it
    new.save(target)
    assert_same(new, Tokenizer.load(target), probe)
    assert sorted(p.name for p in tmp_path.iterdir()) == ["flag", "model", "source"]


# --- the unit and marker in tokenizer_config.json must fit the alphabet (issue 14, item 4) -------


def _set_config(model_dir: Path, **changes) -> Path:
    path = model_dir / "tokenizer_config.json"
    config = json.loads(path.read_text(encoding="utf-8"))
    config.update(changes)
    path.write_text(json.dumps(config, ensure_ascii=False, indent=2) + "\n", encoding="utf-8")
    return path


@pytest.fixture(scope="module")
def three_units(real_texts):
    return {unit: Tokenizer.train(real_texts[:300], vocab_size=1500, unit=unit) for unit in ("syllable", "jamo", "byte")}


@pytest.mark.parametrize("trained,edited,seen", [
    ("syllable", "jamo", "a Hangul syllable"),
    ("syllable", "byte", "not one of the byte unit's 256 symbols"),
    ("jamo", "syllable", "conjoining jamo"),
    ("jamo", "byte", "not one of the byte unit's 256 symbols"),
    ("byte", "syllable", "the byte unit's 256 symbols"),
    ("byte", "jamo", "the byte unit's 256 symbols"),
])
def test_unit_edited_to_another_valid_unit_is_refused_naming_the_file(three_units, tmp_path, trained, edited, seen):
    """A jamo config on a syllable model used to load and give <unk> for every Hangul syllable."""
    model_dir = three_units[trained].save(tmp_path / "m")
    path = _set_config(model_dir, unit={"type": edited})
    err = load_error(model_dir)
    msg = str(err)
    assert err.path == path and msg.startswith(f"{path}:")
    assert path.read_text(encoding="utf-8").splitlines()[err.line - 1].strip().startswith('"unit"')
    assert f"the {edited} unit" in msg and seen in msg
    assert f'"unit": {{"type": "{trained}"}}' in msg  # the fix: the unit the alphabet fits


@pytest.mark.parametrize("trained,edited,seen", [
    ("▁", "</w>", "'</w>'"),
    ("▁", "##", "'##'"),
    ("</w>", "▁", "is not one syllable symbol"),
    ("</w>", None, "is not one syllable symbol"),
    ("##", "▁", None),
])
def test_marker_edited_to_another_valid_marker_is_refused(real_texts, tmp_path, trained, edited, seen):
    tok = Tokenizer.train(real_texts[:300], vocab_size=1500, marker=trained)
    model_dir = tok.save(tmp_path / "m")
    path = _set_config(model_dir, marker=edited)
    err = load_error(model_dir)
    assert err.path == path and "marker" in str(err)
    if seen is not None:
        assert seen in str(err) and f'"marker": {json.dumps(trained, ensure_ascii=False)}' in str(err)


def test_every_trained_combination_still_loads(three_units, tmp_path):
    for unit, tok in three_units.items():
        assert Tokenizer.load(tok.save(tmp_path / unit)).model == tok.model



def test_alphabet_check_asks_the_unit():
    """alphabet_mismatch asks the unit which symbols it makes (``alphabet_problem``), whatever its name."""
    from korean_bpe.io.serialization import alphabet_mismatch
    from korean_bpe.units import SyllableUnit, get_unit

    class Latin(SyllableUnit):  # a syllable unit for Latin text only: its own rule replaces the syllable one
        name = "latin"

        def alphabet_problem(self, symbols):
            bad = next((s for s in symbols if not s.isascii()), None)
            return None if bad is None else f"the alphabet holds {bad!r}, which the latin unit never makes"

    assert alphabet_mismatch(Latin(), "▁", ["▁", "a", "영"]) == "the alphabet holds '영', which the latin unit never makes"
    assert alphabet_mismatch(Latin(), "▁", ["▁", "a", "b"]) is None
    by_name = alphabet_mismatch("jamo", "▁", ["▁", "영"])  # a name still works
    assert by_name is not None and alphabet_mismatch(get_unit("jamo"), "▁", ["▁", "영"]) == by_name


def test_load_checks_the_merge_chain_once(tmp_path, monkeypatch):
    """merges.txt's chain is checked as it is read (a break named by its line); building the
    tokenizer does not check it again; a model handed to ``Tokenizer()`` is checked there."""
    import korean_bpe.io.format as fmt
    import korean_bpe.tokenizer as tokenizer_module

    path = Tokenizer.train(["영화 정말 재밌다", "영화 최고"] * 3, vocab_size=24).save(tmp_path / "m")
    calls = []
    real = fmt.first_unknown

    def counted(*args, **kwargs):
        calls.append(1)
        return real(*args, **kwargs)

    monkeypatch.setattr(fmt, "first_unknown", counted)
    monkeypatch.setattr(tokenizer_module, "first_unknown", counted)
    back = Tokenizer.load(path)
    assert len(calls) == 1 and back.encode("영화 최고") == Tokenizer.load(path).encode("영화 최고")
    Tokenizer(back.model)  # a model from anywhere else is checked where it is handed over
    assert len(calls) == 3
    lines = (path / "merges.txt").read_text(encoding="utf-8").splitlines()
    a, b = lines[1].split(" ")
    lines[1] = f"{a} {b}\u2028"  # a token neither in the alphabet nor made before
    (path / "merges.txt").write_text("\n".join(lines) + "\n", encoding="utf-8")
    with pytest.raises(ModelFileError, match=r"merges.txt:2: unknown token"):
        Tokenizer.load(path)
